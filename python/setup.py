"""setup.py - the gpumemsim wheel: the Python package and, inside it
(gpumemsim/_bin/), the binary built by the tree above with the shared
libraries a bare machine lacks (make bundle), the way ruff and cmake ship.
The wheel is tagged for this platform only; nothing is fetched.

    python3 setup.py bdist_wheel        # from the built tree, or
    GPUMEMSIM_BUNDLE=DIR python3 setup.py bdist_wheel
"""

import os
import re
import shutil
import subprocess
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # setuptools >= 70 carries it
    from setuptools.command.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.environ.get("GPUMEMSIM_TOP") or os.path.dirname(HERE)


def version():
    with open(os.path.join(TOP, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[gpumemsim\],\s*\[([^\]]+)\]", f.read())
    return m.group(1) if m else "0"


class BuildPy(build_py):
    """The package, then the bundle beside it (made by make when missing)."""

    def run(self):
        super().run()
        bundle = os.environ.get("GPUMEMSIM_BUNDLE", os.path.join(TOP, "gpumemsim-bundle"))
        if not os.path.isdir(bundle):
            subprocess.check_call(["make", "-C", TOP, "bundle"])
        dest = os.path.join(self.build_lib, "gpumemsim", "_bin")
        os.makedirs(dest, exist_ok=True)
        for name in os.listdir(bundle):
            shutil.copy2(os.path.join(bundle, name), os.path.join(dest, name))


class BdistWheel(bdist_wheel):
    """A binary inside, no extension: this platform's wheel, for any Python 3
    (the files stay at the wheel's root, as a pure one's)."""

    def get_tag(self):
        return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")


setup(
    name="gpumemsim",
    version=version(),
    description="What a GPU allocator does with your job's memory, simulated exactly",
    packages=["gpumemsim"],
    python_requires=">=3.8",
    cmdclass={"build_py": BuildPy, "bdist_wheel": BdistWheel},
    zip_safe=False,
)
