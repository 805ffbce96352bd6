"""python -m gpumemsim ARGS: the command line, exactly as the binary's."""
import os
import sys

from ._cli import GpumemsimError, binary


def main():
    try:
        exe = binary()
    except GpumemsimError as e:
        sys.stderr.write("gpumemsim: error: %s\n" % e.message)
        return e.status
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
