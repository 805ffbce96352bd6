"""test_recorder.py - the recorder's own logic without PyTorch 2.x (issue 56):
the trace it writes read back by the binary, its GPU table against the
binary's catalogue, its command line's errors, the device-query library built
and asked as torch would ask it (ctypes), and the refusal of a job that reads
a tensor's value.  The recorder on real jobs is measured on the GPU machine
(t/data/gen/nogpu_all.sh); its recordings are asserted in t/cli-nogpu.sh."""

import ctypes
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys

import pytest

import gpumemsim
from gpumemsim import recorder
from gpumemsim._cli import binary


def test_trace_is_read_by_the_binary_with_the_allocators_rounding(tmp_path):
    t = recorder.Trace()
    t.alloc("a", 100)
    t.alloc("b", 1000)
    # the caching allocator's blocks: each request rounded up to 512 bytes
    assert t.allocated() == 512 + 1024
    t.free("a")
    t.mark("step 1")
    t.free("b")
    t.free("b")                 # a storage seen dying twice is freed once
    assert t.allocated() == 0 and t.peak_allocated == 1536
    p = str(tmp_path / "t.jsonl.gz")
    t.write(p, {"format": "gpumemsim-trace", "version": 1, "name": "t"})
    with gzip.open(p, "rt") as f:
        ops = [json.loads(line).get("op") for line in f][1:]
    assert ops == ["alloc", "alloc", "free", "mark", "free"]
    r = gpumemsim.run(p)
    assert r.peak_allocated == 1536
    assert r.events == 5


def test_reserved_so_far_is_the_replays(tmp_path):
    t = recorder.Trace()
    t.alloc("a", 3 << 20)
    t.free("a")
    t.alloc("b", 2 << 20)
    # 3 MiB asks for a 20 MiB segment (the large pool's smallest), which
    # the 2 MiB request reuses: what PyTorch's memory_reserved() would say
    assert t.reserved() == 20 << 20


def test_gpu_table_agrees_with_the_binarys_catalogue():
    names = ",".join(sorted(recorder.GPUS))
    out = subprocess.run([binary(), "plan", os.path.join(os.environ.get("GMS_TRACES", ""),
                                                         "resnet50-train-b32.json"),
                          "--gpus=" + names, "--format=json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    total = {g["gpu"]: g["total"] for g in json.loads(out.stdout)["gpus"]}
    assert {k: v[1] for k, v in recorder.GPUS.items()} == total


def test_unknown_gpu_names_the_known_ones():
    with pytest.raises(recorder.RecordError) as e:
        recorder.gpu_spec("X100")
    assert "unknown GPU 'X100'" in str(e.value) and "H100-80GB" in str(e.value)
    assert recorder.gpu_spec("h100")[0] == "H100-80GB"
    env = recorder.gpu_env("A100-80GB")
    assert env["GMS_GPU_NAME"] == "NVIDIA A100-SXM4-80GB"
    assert (env["GMS_GPU_MAJOR"], env["GMS_GPU_MINOR"]) == ("8", "0")


def test_command_line_errors(tmp_path, capsys):
    assert recorder.main([]) == 2
    assert "no script given" in capsys.readouterr().err
    assert recorder.main(["--bogus", "x.py"]) == 2
    assert "unknown option '--bogus'" in capsys.readouterr().err
    assert recorder.main(["--gpu=X100", "x.py"]) == 3
    assert "unknown GPU 'X100'" in capsys.readouterr().err
    assert recorder.main(["--gpu=H100", str(tmp_path / "missing.py")]) == 3
    assert "missing.py: no such script" in capsys.readouterr().err
    assert recorder.main(["--help"]) == 0
    assert "python -m gpumemsim record --gpu=NAME" in capsys.readouterr().out


def test_a_python_without_torch_is_named(tmp_path, capsys):
    if subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0:
        pytest.skip("this python has torch")
    script = tmp_path / "job.py"
    script.write_text("print('never run')\n")
    assert recorder.main(["--gpu=H100", str(script)]) == 3
    assert "cannot import torch with %s" % sys.executable in capsys.readouterr().err


def _cuda_headers():
    for d in sorted(glob.glob("/usr/local/cuda*/include")) + ["/usr/include"]:
        v = recorder._cudart_version(d)
        if v and v // 1000 in (12, 13):
            return d, v
    return None, None


needs_cc_and_headers = pytest.mark.skipif(
    not (shutil.which("cc") or shutil.which("gcc")) or _cuda_headers()[0] is None,
    reason="needs a C compiler and CUDA 12 or 13 headers")


def _info(tmp_path, version):
    return {"cuda": "%d.%d" % (version // 1000, version % 1000 // 10), "torch": "2.11.0+test",
            "dir": str(tmp_path / "site")}


def _ask(lib, env, monkeypatch):
    """The device queries, asked of the library as torch asks them."""
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    so = ctypes.CDLL(lib)
    n = ctypes.c_int(0)
    assert so.cudaGetDeviceCount(ctypes.byref(n)) == 0 and n.value == 1
    prop = ctypes.create_string_buffer(4096)
    assert so.cudaGetDeviceProperties(prop, 0) == 0
    name = prop.raw[:256].split(b"\0")[0].decode()
    # cudaDeviceProp: totalGlobalMem after name[256], uuid, luid and a mask;
    # major and minor at the same offsets in CUDA 12 and 13
    total = ctypes.c_size_t.from_buffer(prop, 288).value
    major, minor = ctypes.c_int.from_buffer(prop, 360).value, ctypes.c_int.from_buffer(prop, 364).value
    flags, active = ctypes.c_uint(9), ctypes.c_int(0)
    assert so.cuDevicePrimaryCtxGetState(0, ctypes.byref(flags), ctypes.byref(active)) == 0
    p = ctypes.c_void_p()
    return name, total, (major, minor), active.value, so.cudaMalloc(ctypes.byref(p), 1 << 20), \
        so.cudaSetDevice(1)


@needs_cc_and_headers
def test_device_queries_answered_as_the_named_gpu(tmp_path, monkeypatch, capfd):
    inc, version = _cuda_headers()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lib = recorder.build_nocuda(_info(tmp_path, version), [inc])
    assert lib.startswith(str(tmp_path / "cache" / "gpumemsim"))
    assert recorder.build_nocuda(_info(tmp_path, version), [inc]) == lib     # cached
    name, total, cc, active, malloc, setdev = _ask(lib, recorder.gpu_env("A100-80GB"), monkeypatch)
    assert (name, total, cc) == ("NVIDIA A100-SXM4-80GB", 85100068864, (8, 0))
    assert active == 1                  # a device guard's restore finds a context
    assert malloc == 100                # cudaErrorNoDevice: memory is never pretended
    assert "cudaMalloc needs a real device" in capfd.readouterr().err
    assert setdev == 101                # cudaErrorInvalidDevice: one device only


@needs_cc_and_headers
def test_built_against_a_pip_installations_headers(tmp_path, monkeypatch):
    """PyTorch's pip wheels ship the runtime's headers without the compiler's
    crt/host_defines.h: nocuda-inc/ stands in for it."""
    inc, version = _cuda_headers()
    pip = tmp_path / "site" / "nvidia" / ("cu%d" % (version // 1000)) / "include"
    pip.mkdir(parents=True)
    for h in glob.glob(os.path.join(inc, "*.h")):
        shutil.copy(h, pip)
    assert not (pip / "crt").exists()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lib = recorder.build_nocuda(_info(tmp_path, version), [str(pip)])
    name, total, cc, *_ = _ask(lib, recorder.gpu_env("H200"), monkeypatch)
    assert (name, total, cc) == ("NVIDIA H200", 150109880320, (9, 0))


def test_no_headers_is_an_error_that_says_where_it_looked(tmp_path):
    with pytest.raises(recorder.RecordError) as e:
        recorder.build_nocuda({"cuda": "13.0", "torch": "2.11.0", "dir": str(tmp_path)},
                              [str(tmp_path / "none")])
    assert "no CUDA 13 headers" in str(e.value) and str(tmp_path / "none") in str(e.value)
    with pytest.raises(recorder.RecordError) as e:
        recorder.build_nocuda({"cuda": None, "torch": "2.11.0+cpu", "dir": str(tmp_path)})
    assert "built without CUDA" in str(e.value)


class DataDependentOutputException(Exception):
    pass


def test_a_job_that_reads_a_value_is_refused_naming_the_op_and_frames():
    lib = "/opt/venv/lib/python3.12/site-packages/transformers/generation/utils.py"
    code = compile("def _sample():\n    raise DataDependentOutputException("
                   "'aten._local_scalar_dense.default')\n", lib, "exec")
    ns = {"DataDependentOutputException": DataDependentOutputException}
    exec(code, ns)
    user = compile("def train():\n    _sample()\n", "/home/me/train.py", "exec")
    exec(user, ns)
    with pytest.raises(DataDependentOutputException) as e:
        ns["train"]()
    msg = str(recorder._refuse_data_dependent(e.value))
    assert msg.startswith("the job reads the value of a tensor (aten._local_scalar_dense.default")
    assert "at %s:2 _sample, called from /home/me/train.py:2 train" % lib in msg
    assert msg.endswith("nothing was written")


def test_the_recording_process_answers_as_the_gpu_named(tmp_path, monkeypatch):
    lib = tmp_path / "nocuda-13000-abc.so"
    lib.write_bytes(b"")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/lib")
    env = recorder.child_env("L4", str(lib), "out.jsonl.gz", True)
    assert (env["GMS_GPU_NAME"], env["GMS_GPU_MAJOR"], env["GMS_GPU_MINOR"]) == ("NVIDIA L4", "8", "9")
    assert env["LD_PRELOAD"].split()[0] == str(lib)
    first = env["LD_LIBRARY_PATH"].split(os.pathsep)
    assert first[1:] == ["/opt/lib"]
    assert os.path.realpath(os.path.join(first[0], "libcuda.so.1")) == str(lib)
    assert env["GMS_RECORD_GPU"] == "L4" and env["GMS_RECORD_OUT"] == "out.jsonl.gz"


def test_the_allocation_that_runs_out_of_the_gpu_is_found_and_made_the_oom():
    from gpumemsim.closedloop import OomCheck
    t = recorder.Trace()
    check = OomCheck("H100-80GB", recorder.GPUS["H100-80GB"][1])
    t.alloc("weights", 70 << 30)
    assert check.fails(t.events, t.live_bytes) is None       # below 90 %: not replayed
    assert check.checked == 0
    t.alloc("activations", 12 << 30)
    oom = check.fails(t.events, t.live_bytes)
    # 82 GiB asked of an H100 that leaves the allocator 85045477376 B less
    # 512 MiB of context: the second request is the one that fails
    assert oom is not None and oom.event == 1 and oom.size == 12 << 30
    t.to_oom("activations")
    assert t.events[-1]["op"] == "oom" and t.allocated() == 70 << 30
    t.free("activations")               # its storage dying later frees nothing
    assert [e["op"] for e in t.events] == ["alloc", "oom"]
    # the job caught it and asks for less: 74 GiB fits, 84 runs out
    t.alloc("smaller", 4 << 30)
    assert check.fails(t.events, t.live_bytes) is None
    assert check.checked == 74 << 30                          # replayed, fits
    t.alloc("more", 10 << 30)
    oom = check.fails(t.events, t.live_bytes)
    assert oom is not None and oom.event == 2 and oom.size == 10 << 30


def _card_refusing(monkeypatch, size):
    """A stand-in torch's OutOfMemoryError, and a trace whose card refuses
    any request of size bytes (and holds every other)."""
    import types
    oom_error = type("OutOfMemoryError", (Exception,), {})
    monkeypatch.setitem(sys.modules, "torch",
                        types.SimpleNamespace(cuda=types.SimpleNamespace(OutOfMemoryError=oom_error)))

    class Check:
        gpu = "H100-80GB"

        def fails(self, events, live):
            if events[-1]["size"] != size:
                return None
            return types.SimpleNamespace(event=len(events) - 1, reserved=2 * size, largest_free=0)

    t = recorder.Trace()
    t.oom_check = Check()
    return oom_error, t


def test_a_kernel_buffer_that_runs_out_is_the_oom_and_the_rest_are_freed(monkeypatch):
    """A kernel's own buffer (kernels.py) the named GPU could not hold is the
    trace's oom event, never freed; the buffers it made before are freed as
    the error unwinds the op."""
    oom_error, t = _card_refusing(monkeypatch, 2048)
    with pytest.raises(oom_error):
        recorder._kernel_steps(t, [("alloc", "a", 1024, "first"), ("alloc", "b", 2048, "second"),
                                   ("free", "a")], None)
    assert [(e["op"], e["id"]) for e in t.events] == [("alloc", 1), ("oom", 2), ("free", 1)]
    assert t.allocated() == 0


def test_a_library_workspace_the_card_cannot_hold_is_the_oom(monkeypatch):
    """An op memory table entry (a cuBLAS workspace, kept for the process)
    is checked against the card like any request: the one that runs out is
    the trace's oom event, the temporaries made before it are freed as the
    error unwinds the op, and a workspace kept before it stays."""
    oom_error, t = _card_refusing(monkeypatch, 32 << 20)
    temps = []
    with pytest.raises(oom_error):
        recorder._extras(t, [(4096, False, "scratch"), (1 << 20, True, "kept"),
                             (32 << 20, True, "cuBLAS workspace"), (512, False, "never made")],
                         "aten.mm.default", None, temps)
    assert [(e["op"], e["id"], e["size"] if e["op"] != "free" else None) for e in t.events] == [
        ("alloc", 1, 4096), ("alloc", 2, 1 << 20), ("oom", 3, 32 << 20), ("free", 1, None)]
    assert t.allocated() == 1 << 20 and t.oomed["note"] == "aten.mm.default: cuBLAS workspace"
