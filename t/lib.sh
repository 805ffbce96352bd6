# t/lib.sh - sourced by every shell test: TAP output, a scratch directory
# removed on exit, and helpers to run gpumemsim and check what it said
# (after jq's tests/setup and tmux's check_fail).
set -u
LC_ALL=C
export LC_ALL
: "${GPUMEMSIM:=$(pwd)/gpumemsim}"
: "${TOP_SRCDIR:=$(pwd)}"
TRACES=$TOP_SRCDIR/traces
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gms-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
tap_n=0
tap_failed=0
TAB=$(printf '\t')

# ok STATUS DESCRIPTION: one TAP line; STATUS 0 passes.
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
		# t/mutate.sh needs only a mutant's first failure (in a subshell
		# this ends the subshell only; the line above is what it reads)
		if [ -n "${TAP_BAIL:-}" ]; then
			echo "Bail out! TAP_BAIL: stopped at the first failure"
			exit 1
		fi
	fi
}

# gms ARGS...: run gpumemsim; $rc, $TMP/out and $TMP/err hold what happened.
gms() {
	"$GPUMEMSIM" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

# is GOT WANT DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#    got: '$1'"
		echo "#   want: '$2'"
	fi
}

# check_fail CODE 'exact first line of stderr' ARGS...
check_fail() {
	want_rc=$1
	want_msg=$2
	shift 2
	gms "$@"
	got_msg=$(head -n 1 "$TMP/err")
	is "$rc $got_msg" "$want_rc $want_msg" "gpumemsim $* -> exit $want_rc: $want_msg"
}

# json_top KEY: the value of a top-level key of the JSON in $TMP/out
# (cJSON prints one key per line, indented by one tab at the top level).
json_top() {
	sed -n "s/^$TAB\"$1\":$TAB\\(.*\\)\$/\\1/p" "$TMP/out" | sed 's/,$//' | head -n 1
}

# json_keys: the top-level keys in order, space-separated.
json_keys() {
	sed -n "s/^$TAB\"\\([a-z_]*\\)\":.*/\\1/p" "$TMP/out" | tr '\n' ' ' | sed 's/ $//'
}

# json_in OBJECT KEY: a key inside a top-level object (two tabs deep).
json_in() {
	sed -n "/^$TAB\"$1\":/,/^$TAB}/p" "$TMP/out" |
	    sed -n "s/^$TAB$TAB\"$2\":$TAB\\(.*\\)\$/\\1/p" | sed 's/,$//' | head -n 1
}

# json_deep OBJECT INNER KEY: a key inside an object inside a top-level one.
json_deep() {
	sed -n "/^$TAB\"$1\":/,/^$TAB}/p" "$TMP/out" |
	    sed -n "/^$TAB$TAB\"$2\":/,/^$TAB$TAB}/p" |
	    sed -n "s/^$TAB$TAB$TAB\"$3\":$TAB\\(.*\\)\$/\\1/p" | sed 's/,$//' | head -n 1
}

# json_file FILE KEY...: a value of a JSON file, down its keys (python3)
json_file() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    d = d[k]
print(d)' "$@"
}

# need_python3 WHY: a script that reads its facts with python3 skips whole
# without it
need_python3() {
	command -v python3 >/dev/null 2>&1 && return 0
	ok 0 "# SKIP python3 ($1) is not installed"
	done_testing
	exit
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
