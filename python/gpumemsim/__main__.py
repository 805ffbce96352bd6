"""python -m gpumemsim ARGS: the command line, exactly as the binary's; and
python -m gpumemsim record ...: a job recorded without a GPU (recorder.py)."""
import os
import sys

from ._cli import GpumemsimError, binary


def main():
    if sys.argv[1:2] == ["record"]:
        from .recorder import main as record
        return record(sys.argv[2:])
    try:
        exe = binary()
    except GpumemsimError as e:
        sys.stderr.write("gpumemsim: error: %s\n" % e.message)
        return e.status
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
