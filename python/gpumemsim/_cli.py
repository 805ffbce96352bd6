"""_cli.py - finding the gpumemsim binary and running it: the one place the
package talks to the tool.  Every API call is one run of the binary with
--format=json; a trace given as bytes or as a live snapshot dict goes to its
standard input, never through a temporary file."""

import json
import os
import pickle
import shutil
import subprocess

_HERE = os.path.dirname(os.path.abspath(__file__))


class GpumemsimError(Exception):
    """The tool refused or failed: its message (as it printed it, without the
    "gpumemsim: error: " prefix) and its exit status (2 usage, 3 bad trace or
    options, 4 I/O, 5 internal)."""

    def __init__(self, message, status, command=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.command = command

    def __str__(self):
        return "%s (exit %d)" % (self.message, self.status)


def binary():
    """The binary: $GPUMEMSIM, the one the wheel carries, or gpumemsim on PATH."""
    env = os.environ.get("GPUMEMSIM")
    if env:
        return env
    bundled = os.path.join(_HERE, "_bin", "gpumemsim")
    if os.access(bundled, os.X_OK):
        return bundled
    found = shutil.which("gpumemsim")
    if found:
        return found
    raise GpumemsimError("no gpumemsim binary: install the wheel, or put gpumemsim on "
                         "PATH, or set GPUMEMSIM", 4)


class Piped(bytes):
    """A trace's bytes for standard input, with the name the tool gives it
    (GPUMEMSIM_STDIN_NAME): "snapshot" for a dict, "trace" for bytes, not '-'."""

    def __new__(cls, data, name):
        b = super().__new__(cls, data)
        b.name = name
        return b


def trace_arg(trace):
    """(argument, bytes for standard input or None) for a trace given as a path,
    bytes (a file's contents, compressed or not) or a snapshot dict
    (torch.cuda.memory._snapshot())."""
    if isinstance(trace, (bytes, bytearray, memoryview)):
        return "-", Piped(bytes(trace), "trace")
    if isinstance(trace, dict):
        return "-", Piped(pickle.dumps(trace, protocol=4), "snapshot")
    if isinstance(trace, (str, os.PathLike)):
        path = os.fspath(trace)
        # a path is never taken for an option
        return ("./" + path if path.startswith("-") and path != "-" else path), None
    raise TypeError("a trace is a path, bytes or a snapshot dict, not %s"
                    % type(trace).__name__)


class Traces:
    """Several traces for one command: the first given as bytes or a dict goes
    to standard input, any other such one to a temporary file (a pipe serves
    one), removed when the block ends.

        with Traces() as t:
            args = [t.arg(a), t.arg(b)]; run(args, t.stdin)
    """

    def __init__(self):
        self.stdin = None
        self.files = []

    def arg(self, trace):
        a, data = trace_arg(trace)
        if data is None:
            return a
        if self.stdin is None:
            self.stdin = data
            return "-"
        import tempfile
        fd, p = tempfile.mkstemp(prefix="gpumemsim-", suffix=".pickle"
                                 if isinstance(trace, dict) else "")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        self.files.append(p)
        return p

    def word(self, trace):
        """arg() for a --job's first word: a path with blanks is named by a
        link without them (the job's settings follow it after a blank)."""
        a = self.arg(trace)
        if not any(c.isspace() for c in a):
            return a
        import tempfile
        d = tempfile.mkdtemp(prefix="gpumemsim-")
        link = os.path.join(d, "".join("_" if c.isspace() else c for c in os.path.basename(a)))
        os.symlink(os.path.abspath(a), link)
        self.files += [link, d]
        return link

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for p in self.files:
            try:
                (os.rmdir if os.path.isdir(p) and not os.path.islink(p) else os.unlink)(p)
            except OSError:
                pass


def run(args, stdin=None, ok=(0,)):
    """Run the binary with args; returns (status, stdout, stderr) as text.
    A status outside ok raises GpumemsimError with the tool's message."""
    cmd = [binary()] + [str(a) for a in args]
    env = None
    if isinstance(stdin, Piped):
        env = dict(os.environ, GPUMEMSIM_STDIN_NAME=stdin.name)
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env)
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in ok:
        msg = err.strip().splitlines()
        first = [m for m in msg if m.startswith("gpumemsim: error: ")]
        text = first[0][len("gpumemsim: error: "):] if first else (err.strip() or
                                                                    "exit %d" % p.returncode)
        raise GpumemsimError(text, p.returncode, cmd)
    return p.returncode, p.stdout.decode("utf-8", "replace"), err


def run_json(args, stdin=None, ok=(0,)):
    """run() with --format=json; returns (status, the parsed object)."""
    status, out, _ = run(list(args) + ["--format=json"], stdin, ok)
    obj = json.loads(out)
    if obj.get("schema") != SCHEMA:
        raise GpumemsimError("the binary speaks JSON schema %r, this package %d: install "
                             "them together" % (obj.get("schema"), SCHEMA), 2)
    return status, obj


SCHEMA = 1
