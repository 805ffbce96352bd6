#!/bin/sh
# python.sh - the Python package (python/): its wheel built from this tree
# (the binary and the libraries a bare machine lacks inside it), installed
# into a fresh virtual environment with pip from the wheel alone (no
# network), and its pytest suite (python/tests) run there against the
# bundled traces; each pytest test is one TAP line.  Skipped without
# python3's venv, setuptools, wheel and pytest (Debian: python3-venv,
# python3-setuptools, python3-wheel, python3-pytest; CI installs them).
. "${TOP_SRCDIR:-.}/t/lib.sh"

PY=$(command -v /usr/bin/python3 || command -v python3 || true)
if [ -z "$PY" ] || ! "$PY" -c 'import venv, setuptools, wheel, pytest' 2>/dev/null; then
	ok 0 "# SKIP python3 with venv, setuptools, wheel and pytest is not installed"
	done_testing
	exit
fi
if [ -n "${GMS_MUTATING:-}" ]; then
	ok 0 "# SKIP mutation testing: the package calls the same binary the other tests do"
	done_testing
	exit
fi

# the bundle: the binary and the libraries make bundle would copy
mkdir -p "$TMP/bundle"
cp "$GPUMEMSIM" "$TMP/bundle/gpumemsim"
for l in $(ldd "$GPUMEMSIM" | awk '/libcjson|libprotobuf-c/ { print $3 }'); do
	cp -L "$l" "$TMP/bundle/"
done
cp -r "$TOP_SRCDIR/python" "$TMP/src"
(cd "$TMP/src" && GPUMEMSIM_BUNDLE="$TMP/bundle" GPUMEMSIM_TOP="$TOP_SRCDIR" "$PY" setup.py -q egg_info --egg-base "$TMP" \
    build --build-base "$TMP/build" bdist_wheel --bdist-dir "$TMP/bdist" -d "$TMP/dist") \
    >"$TMP/wheel.log" 2>&1
st=$?
ok $st "the wheel builds"
[ "$st" -eq 0 ] || sed 's/^/# /' "$TMP/wheel.log"
whl=$(ls "$TMP"/dist/gpumemsim-*.whl 2>/dev/null | head -n 1)
case "$whl" in
*-py3-none-linux_*.whl) ok 0 "it is this platform's wheel, for any Python 3: $(basename "$whl")" ;;
*) ok 1 "it is this platform's wheel: '$whl'" ;;
esac
"$PY" -m zipfile -l "$whl" | grep -q 'gpumemsim/_bin/gpumemsim '; ok $? "it carries the binary"
"$PY" -m venv --system-site-packages "$TMP/venv" >"$TMP/venv.log" 2>&1
"$TMP/venv/bin/pip" install -q --no-index --no-deps "$whl" >"$TMP/pip.log" 2>&1
st=$?
ok $st "pip installs it into a fresh virtual environment, offline"
[ "$st" -eq 0 ] || sed 's/^/# /' "$TMP/venv.log" "$TMP/pip.log"

# or from the source tree, offline (setuptools and wheel from the system)
"$PY" -m venv --system-site-packages "$TMP/venv2" >"$TMP/venv2.log" 2>&1
(cd "$TMP" && GPUMEMSIM_BUNDLE="$TMP/bundle" GPUMEMSIM_TOP="$TOP_SRCDIR" "$TMP/venv2/bin/pip" install -q \
    --no-index --no-deps --no-build-isolation "$TMP/src") >"$TMP/pip2.log" 2>&1
st=$?
ok $st "pip installs it from the source tree too"
[ "$st" -eq 0 ] || sed 's/^/# /' "$TMP/pip2.log"
"$TMP/venv2/bin/python" -c 'import gpumemsim; print(gpumemsim.run(
    "'"$TOP_SRCDIR"'/traces/resnet50-train-b32.json").peak_reserved)' >"$TMP/peak2" 2>&1
is "$(cat "$TMP/peak2")" 3703570432 "... and that one runs: ResNet-50's peak, PyTorch's 3703570432 B"

# the suite, from a directory outside the tree: the installed package is the one tested
cd "$TMP" || exit 1
env -u GPUMEMSIM GMS_TRACES="$TOP_SRCDIR/traces" GMS_TOP="$TOP_SRCDIR" \
    "$TMP/venv/bin/python" -m pytest -p no:cacheprovider -v -rN --no-header \
    "$TOP_SRCDIR/python/tests" >"$TMP/pytest.log" 2>&1
status=$?
grep -E ' (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)' "$TMP/pytest.log" |
    sed -n 's/^\([^ ]*\) \([A-Z]*\).*/\2 \1/p' >"$TMP/results"
[ -s "$TMP/results" ]; ok $? "pytest ran the package's tests"
while read -r verdict name; do
	case $verdict in
	PASSED) ok 0 "pytest: ${name##*/}" ;;
	SKIPPED) ok 0 "# SKIP pytest: ${name##*/}" ;;
	*) ok 1 "pytest: ${name##*/} ($verdict)" ;;
	esac
done <"$TMP/results"
[ "$status" -eq 0 ] || sed -n '/= FAILURES =/,$p' "$TMP/pytest.log" | head -n 80 | sed 's/^/# /'
is "$status" 0 "pytest exits 0"
done_testing
