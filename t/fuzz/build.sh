#!/bin/sh
# t/fuzz/build.sh - build the libFuzzer harnesses (`make fuzz` runs this):
# the library's sources compiled again by clang with -fsanitize=fuzzer-no-link,
# address and undefined into t/fuzz/libgms-fuzz.a, then one binary per
# harness.  Usage: build.sh CLANG SRCDIR "LIBRARY SOURCES" "CPPFLAGS" "LIBS"
set -eu
cc=$1 srcdir=$2 sources=$3 cppflags=$4 libs=$5
out=t/fuzz
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cflags="-g -O1 -std=gnu11 $san $cppflags"

mkdir -p "$out/obj"
# a header newer than the last full build may change any object: rebuild them all
if [ ! -f "$out/obj/.headers" ] ||
    [ -n "$(find "$srcdir/sim" "$srcdir/traces" "$srcdir/analysis" "$srcdir/replay" \
    "$srcdir/t/fuzz" -name '*.h' -newer "$out/obj/.headers" 2>/dev/null | head -n 1)" ]; then
	rm -f "$out"/obj/*.o
	touch "$out/obj/.headers"
fi
objs=
for s in $sources; do
	case $s in *.c) ;; *) continue ;; esac
	[ -f "$s" ] && src=$s || src=$srcdir/$s
	o=$out/obj/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ]; then
		echo "  FUZZCC   $s"
		$cc $cflags -fsanitize=fuzzer-no-link -c "$src" -o "$o"
	fi
	objs="$objs $o"
done
rm -f "$out/libgms-fuzz.a"
ar rc "$out/libgms-fuzz.a" $objs

link() {	# NAME SOURCE [DEFINES]
	echo "  FUZZLD   $out/$1"
	$cc $cflags -fsanitize=fuzzer ${3:-} "$srcdir/t/fuzz/$2" "$srcdir/t/fuzz/fuzz.c" \
	    "$out/libgms-fuzz.a" $libs -o "$out/$1"
}
link fuzz-json fuzz-reader.c '-DFUZZ_SUFFIX=".json"'
link fuzz-jsonl fuzz-reader.c '-DFUZZ_SUFFIX=".jsonl"'
link fuzz-pickle fuzz-reader.c '-DFUZZ_SUFFIX=".pickle"'
link fuzz-csv fuzz-reader.c '-DFUZZ_SUFFIX=".csv"'
link fuzz-xplane fuzz-reader.c '-DFUZZ_SUFFIX=".xplane.pb"'
link fuzz-pickle-shared fuzz-pickle-shared.c
link fuzz-allocconf fuzz-allocconf.c
link fuzz-baseline fuzz-baseline.c
link fuzz-sim fuzz-sim.c
link fuzz-eventscan fuzz-eventscan.c
link fuzz-scenario fuzz-scenario.c
link fuzz-scale fuzz-scale.c
link fuzz-oomlog fuzz-oomlog.c
