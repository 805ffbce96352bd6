#!/bin/sh
# python.sh - the Python package (python/): README's recipe run word for
# word (pip installs ./python offline into a fresh virtual environment of the
# machine's python3, through the package's own build backend: no setuptools,
# no wheel), its `gpumemsim` command and its API; the wheel written by
# build_backend.py (the binary and the libraries a bare machine lacks inside
# it), installed with pip from the wheel alone; and the pytest suite
# (python/tests) run there against the bundled traces, each pytest test one
# TAP line.  Skipped without python3's venv and pytest (Debian: python3-venv,
# python3-pytest; CI installs them).
. "${TOP_SRCDIR:-.}/t/lib.sh"

PY=$(command -v /usr/bin/python3 || command -v python3 || true)
if [ -z "$PY" ] || ! "$PY" -c 'import venv, pytest' 2>/dev/null ||
    ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
	ok 0 "# SKIP python3 with venv (and pytest, for the suite) is not installed"
	done_testing
	exit
fi
if [ -n "${GMS_MUTATING:-}" ]; then
	ok 0 "# SKIP mutation testing: the package calls the same binary the other tests do"
	done_testing
	exit
fi

# the bundle: the binary and the libraries make bundle would copy (the
# binary under test may be built outside the source tree)
mkdir -p "$TMP/bundle"
cp "$GPUMEMSIM" "$TMP/bundle/gpumemsim"
for l in $(ldd "$GPUMEMSIM" | awk '/libcjson|libprotobuf-c/ { print $3 }'); do
	cp -L "$l" "$TMP/bundle/"
done
export GPUMEMSIM_BUNDLE="$TMP/bundle" GPUMEMSIM_TOP="$TOP_SRCDIR"

# README's recipe, word for word, with the machine's python3, offline, in a
# directory of its own (a copy of python/, the traces beside it)
mkdir -p "$TMP/recipe"
cp -r "$TOP_SRCDIR/python" "$TMP/recipe/python"
ln -s "$TOP_SRCDIR/traces" "$TMP/recipe/traces"
sed -n '/^python3 -m venv venv && venv\/bin\/pip install --no-index .\/python$/,/^```$/p' \
    "$TOP_SRCDIR/README.md" | sed '$d' >"$TMP/recipe.sh"
is "$(wc -l <"$TMP/recipe.sh")" 3 "README's recipe: three lines"
(cd "$TMP/recipe" && env -u GPUMEMSIM sh -e "$TMP/recipe.sh") >"$TMP/recipe.out" 2>"$TMP/recipe.err"
st=$?
ok $st "README's recipe runs with the machine's python3, offline"
[ "$st" -eq 0 ] || sed 's/^/# /' "$TMP/recipe.err" | tail -n 20
grep -q '^observed (pytorch-caching, as recorded): reproduced exactly' "$TMP/recipe.out"
ok $? "... its gpumemsim command is the binary's: ResNet-50 reproduced exactly"
is "$(tail -n 1 "$TMP/recipe.out")" 3703570432 "... and the package runs it: PyTorch's 3703570432 B"
whl=$(cd "$TMP/recipe/python" && "$PY" build_backend.py "$TMP/dist" 2>"$TMP/wheel.log")
case "$whl" in
*-py3-none-linux_*.whl) ok 0 "build_backend.py writes this platform's wheel, for any Python 3: $(basename "$whl")" ;;
*) ok 1 "build_backend.py writes this platform's wheel: '$whl'"; sed 's/^/# /' "$TMP/wheel.log" ;;
esac
"$PY" -m zipfile -l "$whl" | grep -q 'gpumemsim/_bin/gpumemsim '; ok $? "it carries the binary"
"$PY" -m venv --system-site-packages "$TMP/venv" >"$TMP/venv.log" 2>&1
"$TMP/venv/bin/pip" install -q --no-index --no-deps "$whl" >"$TMP/pip.log" 2>&1
st=$?
ok $st "pip installs the wheel into a fresh virtual environment, offline"
[ "$st" -eq 0 ] || sed 's/^/# /' "$TMP/venv.log" "$TMP/pip.log"

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
