"""kernels.py - what a CUDA kernel asks the caching allocator for inside
itself, as rules in the shapes of its arguments: the buffers the dispatcher
never sees, because the kernel makes and frees them below it.  A rule gives
the steps in the order the kernel takes them (after the op's outputs):
("alloc", tag, bytes, why) and ("free", tag); what a rule leaves live is
freed when the op returns.

Each rule is the kernel's own arithmetic, written from PyTorch 2.11's CUDA
sources and checked against real snapshots of the same runs on an H100
(t/data/gen/nogpu_real.py aligns them; doc/ACCURACY.md has the numbers):

- reductions (sum, mean) that split each output's inputs across thread
  blocks stage partial results in global memory: a buffer and one int per
  block column (Reduce.cuh's launch configuration, which reads the GPU's SM
  count and threads per SM: the buffer grows until the grid is full);
- the memory-efficient attention backward (fp32, head dim up to 64) makes
  grad_out * out for its delta, two per-row float arrays, and a per-block
  workspace for dQ's accumulation.

A case a rule does not cover (a dtype or head size not measured, an input
too large for 32-bit indexing), and an op measured to allocate inside itself
that no rule gives yet (cuDNN's convolution and attention workspaces, the
embedding gradient's sort), returns None: the recorder counts it under the
trace's source "not_modelled", never guesses.

Pure Python on shapes, strides and dtypes: tested without torch."""

# threads one SM runs at once, by compute capability (CUDA's
# maxThreadsPerMultiProcessor)
THREADS_PER_SM = {(7, 0): 2048, (7, 5): 1024, (8, 0): 2048, (8, 6): 1536, (8, 7): 1536,
                  (8, 9): 1536, (9, 0): 2048, (10, 0): 2048, (12, 0): 1536}

# the accumulator's size (opmath) of the float dtypes a sum or mean reduces
_ACC = {"float32": 4, "float16": 4, "bfloat16": 4, "float64": 8}
_SIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}

MAX_THREADS = 512       # a reduction block's threads (not complex double)
WARP = 32
VT0 = 4                 # values a thread loads per step
INPUT_VEC = 4           # Reduce.cuh's input vectorisation for 4-byte inputs


def _div_up(a, b):
    return (a + b - 1) // b


def _last_pow2(n):
    return max(1, 1 << (max(n, 1).bit_length() - 1))


def reduction_iter(shape, strides, dims):
    """TensorIterator's view of a reduction of one input: dims reordered
    (reduced ones first, then by stride) and coalesced.  Returns (shape,
    input strides, output strides, number of reduced dims), strides in
    elements, the output's 0 where reduced."""
    nd = len(shape)
    red = set(d % nd for d in dims) if dims else set(range(nd))
    keep = [d for d in range(nd) if d not in red]
    out_st, acc = [0] * nd, 1
    for d in reversed(keep):            # the output is new and contiguous
        out_st[d] = acc
        acc *= shape[d]
    dims_ = [d for d in range(nd) if shape[d] != 1]
    if not dims_:
        return [1], [1], [0], 1
    ops = [out_st, list(strides)]

    def after(a, b):        # 1: a goes after b; -1: before; 0: either
        for k, st in enumerate(ops):
            s0, s1 = st[a], st[b]
            if k == 0 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[a] > shape[b]:
                return 1
        return 0
    perm = list(reversed(dims_))
    for i in range(1, len(perm)):
        j = i
        for k in range(i - 1, -1, -1):
            c = after(perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    sh = [shape[d] for d in perm]
    st = [[o[d] for d in perm] for o in ops]
    prev = 0
    for d in range(1, len(sh)):
        if all(sh[prev] * s[prev] == s[d] for s in st):
            sh[prev] *= sh[d]
        else:
            prev += 1
            sh[prev] = sh[d]
            for s in st:
                s[prev] = s[d]
    n = prev + 1
    sh, out, inp = sh[:n], st[0][:n], st[1][:n]
    return sh, inp, out, sum(1 for s in out if s == 0)


def reduce_buffers(shape, strides, dims, in_size, acc_size, sms, cc, offset=0):
    """The global staging buffer and the semaphores (bytes) gpu_reduce_kernel
    asks for when it reduces `shape` (with `strides`, in elements) over
    `dims` on a GPU of `sms` SMs and compute capability `cc`; () when it
    reduces within blocks; None when the rule does not cover the case."""
    threads_per_sm = THREADS_PER_SM.get(tuple(cc))
    if threads_per_sm is None:
        return None
    if not shape or 0 in shape:
        return ()
    sh, inp, out, nred = reduction_iter(shape, strides, dims)
    numel = 1
    for s in shape:
        numel *= s
    # one 32-bit-indexed launch only (beyond that the iterator splits)
    if numel >= 2 ** 31 or sum((s - 1) * t * in_size for s, t in zip(sh, inp)) >= 2 ** 31:
        return None
    num_outputs = 1
    for s, o in zip(sh, out):
        if o:
            num_outputs *= s
    inputs_per_output = numel // num_outputs
    on_fastest = nred == len(sh) or inp[0] < inp[nred]
    if on_fastest:
        dim0, dim1, fastest = inputs_per_output, num_outputs, inp[0]
    else:
        dim0, dim1, fastest = num_outputs, inputs_per_output, inp[nred]
    out_vec = 1
    if fastest == 1:
        if on_fastest and dim0 > 128 and nred == 1:
            if in_size != 4:
                return None         # 16-bit inputs load 8 at a time: not measured
            dim0 //= INPUT_VEC
        elif not on_fastest:
            out_vec = 4
            for v in [offset, sh[nred]] + [t for i, t in enumerate(inp) if i != nred]:
                while v % out_vec:
                    out_vec //= 2
            dim0 //= out_vec
    most = MAX_THREADS // out_vec
    d0 = _last_pow2(dim0) if dim0 < most else most
    d1 = _last_pow2(dim1) if dim1 < most else most
    bw = min(d0, WARP)
    bh = min(d1, most // bw)
    bw = min(d0, most // bh)
    step_in = step_out = 1
    x_reduce = on_fastest
    if x_reduce:
        step_in *= bw
    else:
        step_out *= bw
    per_thread = _div_up(inputs_per_output, step_in)
    y_reduce = per_thread >= bh * 16 or per_thread >= 256
    if y_reduce:
        step_in *= bh
    else:
        step_out *= bh
    per_thread = _div_up(inputs_per_output, step_in)
    target = sms * (threads_per_sm // (bw * bh))
    grid = _div_up(num_outputs // out_vec, step_out)
    if not (y_reduce and per_thread >= 256 and grid <= target):
        return ()
    ctas = max(min(_div_up(target, grid), _div_up(per_thread, 16)), _div_up(per_thread, 256))
    if ctas <= 1:
        return ()
    buf = acc_size * num_outputs * ctas * (1 if x_reduce else bw * out_vec)
    return (buf, 4 * grid)


def _dims_of(name, args, kwargs):
    if name in ("aten.sum.default", "aten.mean.default"):
        return []
    dims = args[1] if len(args) > 1 else kwargs.get("dim")
    if dims is None:
        return []
    return [dims] if isinstance(dims, int) else list(dims)


def _dtype(t):
    return _dtype_name(t.dtype)


def reduction(name, args, kwargs, gpu):
    """sum and mean over float inputs (PyTorch 2.11's gpu_reduce_kernel);
    of any dtype, fewer than 256 inputs per output never stage across
    blocks (each thread would take fewer than 256: reduce_buffers' test)."""
    x = args[0]
    dims = _dims_of(name, args, kwargs)
    per_output = 1
    for d in (dims or range(len(x.shape))):
        per_output *= x.shape[d] if x.shape else 1
    if per_output < 256:
        return ()
    dt = _dtype(x)
    want = kwargs.get("dtype")
    if dt not in _ACC or (want is not None and _dtype_name(want) != dt):
        return None
    got = reduce_buffers(list(x.shape), list(x.stride()), dims,
                         _SIZE[dt], _ACC[dt], gpu["sms"], gpu["cc"],
                         offset=x.storage_offset())
    if not got:
        return got
    buf, sem = got
    why = "%s: the reduction's staging buffer across thread blocks" % name
    return [("alloc", "buffer", buf, why),
            ("alloc", "semaphores", sem, "%s: the reduction's semaphores" % name)]


def _dtype_name(d):
    return str(d).replace("torch.", "")


def efficient_attention_backward(name, args, kwargs, gpu):
    """aten._scaled_dot_product_efficient_attention_backward, fp32 with a
    head dim up to 64 (as measured on sm90): args are grad_out, query, key,
    value, attn_bias, out, logsumexp, ..."""
    grad_out, q = args[0], args[1]
    if _dtype(q) != "float32" or q.shape[-1] > 64 or grad_out.shape[-1] > 64:
        return None
    b, h, lq = q.shape[0], q.shape[1], q.shape[2]
    if gpu["cc"] < (8, 0):
        return None
    n = 1
    for s in grad_out.shape:
        n *= s
    rows = b * h * lq * 4
    why = "%s: " % name
    return [("alloc", "product", n * _SIZE["float32"], why + "grad_out * out, for delta"),
            ("alloc", "rowsum", rows, why + "its sum per row"),
            ("alloc", "delta", rows, why + "delta"),
            ("free", "rowsum"), ("free", "product"),
            # dQ accumulated in fp32 per 64-query block: 64 x 64 floats and
            # the block's 16-byte counter
            ("alloc", "workspace", b * h * _div_up(lq, 64) * 16400, why + "dQ's workspace"),
            ("free", "delta"), ("free", "workspace")]


def not_modelled(name, args, kwargs, gpu):
    """Ops measured to ask for buffers inside themselves that no rule gives
    yet: cuDNN's convolution and attention workspaces (the algorithm cuDNN
    picks per shape and card), the embedding gradient's buffers (a sort of
    the indices above 3072 of them, small ones below), counted in the
    trace's not_modelled."""
    return None


RULES = {
    "aten.convolution.default": not_modelled,
    "aten.convolution_backward.default": not_modelled,
    "aten._scaled_dot_product_cudnn_attention.default": not_modelled,
    "aten._scaled_dot_product_cudnn_attention_backward.default": not_modelled,
    "aten.embedding_dense_backward.default": not_modelled,
    "aten.sum.dim_IntList": reduction,
    "aten.sum.default": reduction,
    "aten.mean.dim": reduction,
    "aten.mean.default": reduction,
    "aten._scaled_dot_product_efficient_attention_backward.default": efficient_attention_backward,
}


def steps(name, args, kwargs, gpu):
    """The steps an op's kernel takes inside itself: a list (empty when it
    asks for nothing), or None when the op has a rule that does not cover
    these arguments."""
    rule = RULES.get(name)
    if rule is None:
        return []
    return rule(name, args, kwargs or {}, gpu)
