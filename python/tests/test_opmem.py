"""test_opmem.py - opmem.measure(), the tool that finds what the dispatcher
does not see, on a hand-made snapshot and op log (no torch): op outputs are
matched by address, size and time; the rest is filed under the op running
when it was made, once per occurrence of the op (an op seen twice with one
temporary buffer each asks for one, not two); cuBLAS's workspaces are the
rules' and left out."""

from gpumemsim.opmem import measure


def op(name, sig, t0_us, t1_us, outs):
    return [name, sig, t0_us * 1000, t1_us * 1000, 1, outs]


def alloc(addr, size, t_us, frames=()):
    return {"action": "alloc", "addr": addr, "size": size, "time_us": t_us,
            "frames": [{"name": f} for f in frames]}


def free(addr, size, t_us):
    return {"action": "free_completed", "addr": addr, "size": size, "time_us": t_us}


def test_each_occurrence_files_its_own_buffers_once():
    ops = [op("aten.sum.dim_IntList", "aten.sum.dim_IntList|float32[64, 768]", 100, 200,
              [(0x1000, 3072)]),
           op("aten.sum.dim_IntList", "aten.sum.dim_IntList|float32[64, 768]", 300, 400,
              [(0x2000, 3072)]),
           op("aten.mm.default", "aten.mm.default|float32[64, 768];float32[768, 768]", 500, 600,
              [(0x3000, 196608)])]
    snap = {"device_traces": [[
        alloc(0x1000, 3072, 110), alloc(0x9000, 24, 120), free(0x9000, 24, 190),
        alloc(0x2000, 3072, 310), alloc(0x9000, 24, 320), free(0x9000, 24, 390),
        alloc(0x3000, 196608, 510),
        alloc(0x8000000, 33554432, 520, ["at::cuda::getCurrentCUDABlasHandle()"]),
    ]]}
    table, unseen = measure(snap, ops)
    assert [(u["size"], u["op"]) for u in unseen] == [(24, 0), (24, 1), (33554432, 2)]
    assert table == {"aten.sum.dim_IntList|float32[64, 768]": [
        {"size": 24, "when": "after", "kept": False, "why": "inside the kernel"}]}


def test_an_output_is_matched_by_size_and_time_not_address_alone():
    ops = [op("aten.add.Tensor", "aten.add.Tensor|float32[4]", 100, 200, [(0x1000, 16)])]
    # a buffer at the output's address, freed, then the output itself
    snap = {"device_traces": [[alloc(0x1000, 512, 110), free(0x1000, 512, 120),
                               alloc(0x1000, 16, 150)]]}
    table, unseen = measure(snap, ops)
    assert [u["size"] for u in unseen] == [512]
    assert table["aten.add.Tensor|float32[4]"][0]["size"] == 512
