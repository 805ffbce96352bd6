"""build_backend.py - the gpumemsim wheel, built by the standard library alone
(a PEP 517 backend, named by pyproject.toml), so that

    python3 -m venv venv && venv/bin/pip install --no-index ./python

works offline with nothing but the machine's python3: no setuptools, no
wheel package to fetch.  The wheel holds the package and, in
gpumemsim/_bin/, the binary the tree above built with the shared libraries a
bare machine lacks (make bundle; GPUMEMSIM_BUNDLE names another), the way
ruff and cmake ship; it is tagged for this platform, any Python 3, and
installs the `gpumemsim` command.

    python3 python/build_backend.py [DIR]     # the wheel into DIR (dist/)
"""

import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.environ.get("GPUMEMSIM_TOP") or os.path.dirname(HERE)
NAME = "gpumemsim"
SUMMARY = "What a GPU allocator does with your job's memory, simulated exactly"
ENTRY_POINTS = "[console_scripts]\ngpumemsim = gpumemsim.__main__:main\n"


def _version():
    with open(os.path.join(TOP, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[gpumemsim\],\s*\[([^\]]+)\]", f.read())
    return m.group(1) if m else "0"


def _tag():
    """This platform, any Python 3: the binary inside is the platform's."""
    return "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\n"
            "Requires-Python: >=3.8\n" % (NAME, _version(), SUMMARY))


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: gpumemsim build_backend\n"
            "Root-Is-Purelib: false\nTag: %s\n" % _tag())


def _bundle():
    """The binary and its libraries: make bundle's directory, made when missing."""
    bundle = os.environ.get("GPUMEMSIM_BUNDLE") or os.path.join(TOP, "gpumemsim-bundle")
    if not os.path.isdir(bundle):
        subprocess.check_call(["make", "-C", TOP, "bundle"], stdout=sys.stderr)
    return bundle


# what the package holds besides its modules: the device-query library's
# source and the stand-in header it builds with (recorder.py), the op tables
SHIPPED = (".py", ".c", ".h", ".json")


def _sources():
    """The package's files, relative to python/ (nested ones too)."""
    out = []
    for top, dirs, files in os.walk(os.path.join(HERE, NAME)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out += [os.path.relpath(os.path.join(top, n), HERE) for n in sorted(files)
                if n.endswith(SHIPPED)]
    return out


def _files():
    """(name in the wheel, path on disk, executable) of every file shipped."""
    for rel in _sources():
        yield rel.replace(os.sep, "/"), os.path.join(HERE, rel), False
    bundle = _bundle()
    for name in sorted(os.listdir(bundle)):
        path = os.path.join(bundle, name)
        if os.path.isfile(path):
            yield "%s/_bin/%s" % (NAME, name), path, os.access(path, os.X_OK)


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
        b"=").decode()


def _add(zf, record, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    zf.writestr(info, data)
    record.append("%s,%s,%d" % (name, _digest(data), len(data)))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, _dist_info())
    os.makedirs(d, exist_ok=True)
    for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_file()),
                       ("entry_points.txt", ENTRY_POINTS)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    whl = "%s-%s-%s.whl" % (NAME, _version(), _tag())
    os.makedirs(wheel_directory, exist_ok=True)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, whl), "w") as zf:
        for name, path, executable in _files():
            with open(path, "rb") as f:
                _add(zf, record, name, f.read(), executable)
        di = _dist_info()
        for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_file()),
                           ("entry_points.txt", ENTRY_POINTS)):
            _add(zf, record, "%s/%s" % (di, name), text.encode())
        record.append("%s/RECORD,," % di)
        zf.writestr(zipfile.ZipInfo("%s/RECORD" % di, date_time=(2020, 1, 1, 0, 0, 0)),
                    "\n".join(record) + "\n")
    return whl


def build_sdist(sdist_directory, config_settings=None):
    """The package's sources (the binary is the tree's: build it there)."""
    base = "%s-%s" % (NAME, _version())
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, base + ".tar.gz"), "w:gz") as tf:
        for rel in ["pyproject.toml", "build_backend.py"] + _sources():
            tf.add(os.path.join(HERE, rel), arcname=os.path.join(base, rel))
        info = tarfile.TarInfo(os.path.join(base, "PKG-INFO"))
        data = _metadata().encode()
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return base + ".tar.gz"


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "dist"
    print(os.path.join(out, build_wheel(out)))
