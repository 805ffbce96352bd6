"""test_kernels.py - the kernels' own buffers as rules in the shapes
(kernels.py), against what PyTorch 2.11's caching allocator was asked for
on an H100 (132 SMs, sm90) in real runs of the same ops (the snapshots
t/data/gen/nogpu_real.py took, aligned with the dispatcher's log of each
run): every number below is an allocation of those snapshots."""

from gpumemsim import kernels
from gpumemsim.opmem import Table

H100 = {"sms": 132, "cc": (9, 0)}


class T:
    """A stand-in for a (fake) tensor: shape, strides, dtype."""

    def __init__(self, shape, dtype="float32", strides=None, offset=0):
        self.shape = list(shape)
        self.dtype = "torch." + dtype
        if strides is None:
            strides, acc = [], 1
            for s in reversed(shape):
                strides.insert(0, acc)
                acc *= s
        self._strides = list(strides)
        self._offset = offset

    def stride(self):
        return tuple(self._strides)

    def storage_offset(self):
        return self._offset


def sizes(steps):
    return [s[2] for s in steps if s[0] == "alloc"]


def test_bias_gradients_stage_across_blocks_until_the_grid_is_full():
    # (rows, features): the buffer and the semaphores each asked for
    seen = {(4096, 768): [25165824, 24], (4096, 3072): [100663296, 96],
            (2048, 768): [12582912, 24], (6304, 1536): [77856768, 48],
            (6304, 384): [19464192, 12], (3152, 1152): [29491200, 36],
            (1024, 2304): [18874368, 72], (12608, 1536): [138412032, 48],
            (12608, 1152): [116195328, 36], (12608, 384): [38731776, 12]}
    for shape, want in seen.items():
        got = kernels.steps("aten.sum.dim_IntList", (T(shape), [0]), {}, H100)
        assert sizes(got) == want, shape
    # bf16 inputs accumulate in fp32: GPT-2 in bf16 autocast
    got = kernels.steps("aten.sum.dim_IntList", (T((1024, 3072), "bfloat16"), [0]), {}, H100)
    assert sizes(got) == [25165824, 96]


def test_a_three_dim_sum_is_coalesced_as_the_iterator_does():
    # Llama's RMSNorm weight gradient: [2, 1024, 1024] over (0, 1) asked for
    # 16777216 and 32; the same over the last dim asked for nothing
    got = kernels.steps("aten.sum.dim_IntList", (T((2, 1024, 1024)), [0, 1], True), {}, H100)
    assert sizes(got) == [16777216, 32]
    assert kernels.steps("aten.sum.dim_IntList", (T((2, 1024, 1024)), [-1], True), {}, H100) == ()


def test_small_reductions_ask_for_nothing():
    # GPT-2 at 128 tokens x 4: its bias gradients, ResNet-50's pooling mean
    for shape, dims in (((512, 3072), [0]), ((512, 768), [0]), ((16, 1000), [0]),
                        ((4, 128, 768), [0, 1])):
        assert kernels.steps("aten.sum.dim_IntList", (T(shape), dims), {}, H100) == ()
    assert kernels.steps("aten.mean.dim", (T((32, 2048, 7, 7)), [-1, -2], True), {}, H100) == ()


def test_a_reduction_of_few_inputs_asks_for_nothing_whatever_its_dtype():
    # generate()'s test of the prompts' last tokens, a sum of 4 bools (a dtype
    # no rule covered: its recording stated no range); 255 per output either
    assert kernels.steps("aten.sum.default", (T((4,), "bool"),), {}, H100) == ()
    assert kernels.steps("aten.sum.dim_IntList", (T((4, 255), "int64"), [1]), {}, H100) == ()
    assert kernels.steps("aten.sum.dim_IntList", (T((64, 4096), "bool"), [1]), {}, H100) is None


def test_the_grid_depends_on_the_card():
    # the same sum on a card of 108 SMs fills its grid sooner
    h = kernels.reduce_buffers([12608, 1536], [1536, 1], [0], 4, 4, 132, (9, 0))
    a = kernels.reduce_buffers([12608, 1536], [1536, 1], [0], 4, 4, 108, (8, 0))
    assert h[0] == 138412032 and a[0] < h[0]


def test_what_a_rule_does_not_cover_is_said_not_guessed():
    # 16-bit inputs reduced along their fastest dim, an unknown card
    assert kernels.steps("aten.sum.dim_IntList", (T((64, 4096), "bfloat16"), [1]), {},
                         H100) is None
    assert kernels.steps("aten.sum.dim_IntList", (T((4096, 768)), [0]), {},
                         {"sms": 10, "cc": (6, 1)}) is None
    assert kernels.steps("aten.sum.dim_IntList", (T((4096, 768), "int64"), [0]), {}, H100) is None
    assert kernels.steps("aten.add.Tensor", (T((4,)), T((4,))), {}, H100) == []
    # ops measured to allocate inside that no rule gives: cuDNN's
    # convolution workspace (ResNet-50: up to 162529935 B), the embedding
    # gradient's buffers (BERT at 32 x 128: a sort, 13839360 B twice; at
    # 16 x 128: 16384 B)
    assert kernels.steps("aten.convolution.default", (T((32, 3, 224, 224)), T((64, 3, 7, 7))),
                         {}, H100) is None
    emb = "aten.embedding_dense_backward.default"
    assert kernels.steps(emb, (T((32, 128, 768)), T((32, 128), "int64"), 30522), {}, H100) is None
    assert kernels.steps(emb, (T((16, 128, 768)), T((16, 128), "int64"), 30522), {}, H100) is None


def test_memory_efficient_attention_backward_fp32():
    # BERT (12 heads, 128 tokens) at batch 32, ViT-S (6 heads, 197) at 32,
    # GPT-2 (12 heads, 256) at 4: grad_out * out, two rows of floats, dQ's
    # workspace, in that order
    bw = "aten._scaled_dot_product_efficient_attention_backward.default"
    for (b, h, l), want in (((32, 12, 128), [12582912, 196608, 196608, 12595200]),
                            ((32, 6, 197), [9682944, 151296, 151296, 12595200]),
                            ((4, 12, 256), [3145728, 49152, 49152, 3148800])):
        q = T((b, h, l, 64))
        got = kernels.steps(bw, (q, q, q, q, None, q, T((b, h, l))), {}, H100)
        assert sizes(got) == want
        # product and rowsum freed before the workspace is asked for
        assert [s[:2] for s in got if s[0] == "free"][:2] == [("free", "rowsum"),
                                                              ("free", "product")]
    q = T((2, 16, 512, 128), "bfloat16")
    assert kernels.steps(bw, (q, q, q, q, None, q, T((2, 16, 512))), {}, H100) is None


def test_the_table_adds_the_rules_and_counts_what_they_leave_out():
    t = Table({}, gpu=H100, rules=True)
    pre, post, inner = t.extra("aten.sum.dim_IntList", (T((4096, 768)), [0]), {}, 1)
    assert (pre, post, sizes(inner)) == ([], [], [25165824, 24])
    t.extra("aten.sum.dim_IntList", (T((64, 4096), "bfloat16"), [1]), {}, 1)
    assert t.missing() == {"aten.sum.dim_IntList": 1}
    assert "kernel rules" in t.describe()
    off = Table({"ops": {}}, gpu=H100, rules=False)
    assert off.extra("aten.sum.dim_IntList", (T((4096, 768)), [0]), {}, 1)[2] == []
