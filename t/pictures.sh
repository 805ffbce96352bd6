#!/bin/sh
# t/pictures.sh - README's pictures are what their commands draw today:
# doc/pictures.sh (what `make pictures` runs) draws them again into a
# scratch directory, and each must be doc/'s: gnuplot's pictures and the
# icicle graph byte for byte, the report's pages drawn by Chromium pixel for
# pixel but a thousandth of them (its text's anti-aliasing).  A change that
# changes a picture fails here until `make pictures` draws it anew.  Skipped
# without gnuplot or Chromium (CI installs both), or where fontconfig
# gives other fonts than doc/pictures.fonts names.
# Exercises doc/pictures.sh, analysis/plot.c, analysis/report-*.c.
. "${TOP_SRCDIR:-.}/t/lib.sh"

if ! command -v gnuplot >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
	ok 0 "# SKIP gnuplot and Chromium draw the pictures"
	done_testing
	exit
fi
if ! command -v fc-match >/dev/null 2>&1; then
	ok 0 "# SKIP fontconfig names the fonts the pictures are drawn in"
	done_testing
	exit
fi
GPUMEMSIM=$GPUMEMSIM TOP_SRCDIR=$TOP_SRCDIR sh "$TOP_SRCDIR/doc/pictures.sh" "$TMP/doc" \
    >"$TMP/draw.log" 2>&1
st=$?
ok $st "doc/pictures.sh draws README's pictures"
[ "$st" -eq 0 ] || sed 's/^/# /' "$TMP/draw.log"
if ! cmp -s "$TMP/doc/pictures.fonts" "$TOP_SRCDIR/doc/pictures.fonts"; then
	# Another machine's fonts draw other pixels: not a drift of ours.
	diff "$TOP_SRCDIR/doc/pictures.fonts" "$TMP/doc/pictures.fonts" | sed 's/^/# /'
	ok 0 "# SKIP this machine's fonts are not those doc/pictures.fonts names"
	done_testing
	exit
fi
for p in resnet50-3.3GiB.png resnet50-map.png flame.svg; do
	cmp -s "$TMP/doc/$p" "$TOP_SRCDIR/doc/$p"
	ok $? "doc/$p is what its command draws (make pictures draws it anew)"
done
for p in report.png explorer.png; do
	set -- $("$PNGSTAT" "$TMP/doc/$p" "$TOP_SRCDIR/doc/$p" 2>/dev/null)
	[ "${3:-1000}" -le 1 ]
	ok $? "doc/$p is the page its command writes, as Chromium draws it (${3:-?} in 1000 pixels differ)"
done
done_testing
