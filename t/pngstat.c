/*
 * pngstat.c - what a screenshot holds, for t/cli-report.sh: "WIDTH HEIGHT
 * COLOURS NONWHITE_PERMILLE" of an 8-bit RGB or RGBA PNG (what headless
 * Chromium writes), so a test can tell a rendered page from a blank one.
 * COLOURS counts distinct colours up to 4096.  Decoding is zlib's; the
 * filters are PNG's five.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int
paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static int
fail(const char *why)
{
	fprintf(stderr, "pngstat: %s\n", why);
	return 1;
}

int
main(int argc, char **argv)
{
	static uint32_t seen[8192];	/* open addressing; 0xffffffff: empty */
	unsigned char *buf = NULL, *idat = NULL, *raw;
	size_t len = 0, cap = 0, nidat = 0, n, stride, y, x, i, nseen = 0;
	uint32_t w = 0, h = 0, clen;
	unsigned long rawlen, nonwhite = 0;
	int bpp = 0;
	FILE *f;

	memset(seen, 0xff, sizeof(seen));
	if (argc != 2 || (f = fopen(argv[1], "rb")) == NULL)
		return fail("usage: pngstat FILE.png");
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = realloc(buf, cap);
		}
		if ((n = fread(buf + len, 1, cap - len, f)) == 0)
			break;
		len += n;
	}
	fclose(f);
	if (len < 8 || memcmp(buf, "\x89PNG\r\n\x1a\n", 8) != 0)
		return fail("not a PNG");
	for (i = 8; i + 12 <= len; i += 12 + clen) {
		clen = be32(buf + i);
		if (clen > len - i - 12)
			return fail("a chunk runs past the end");
		if (memcmp(buf + i + 4, "IHDR", 4) == 0) {
			w = be32(buf + i + 8);
			h = be32(buf + i + 12);
			if (buf[i + 16] != 8 || (buf[i + 17] != 2 && buf[i + 17] != 6) || buf[i + 20])
				return fail("only 8-bit RGB or RGBA, not interlaced");
			bpp = buf[i + 17] == 6 ? 4 : 3;
		} else if (memcmp(buf + i + 4, "IDAT", 4) == 0) {
			idat = realloc(idat, nidat + clen + 1);
			memcpy(idat + nidat, buf + i + 8, clen);
			nidat += clen;
		}
	}
	if (bpp == 0 || w == 0 || h == 0 || w > 20000 || h > 40000)
		return fail("no usable IHDR");
	stride = (size_t)w * bpp;
	rawlen = (unsigned long)(h * (stride + 1));
	raw = malloc(rawlen);
	if (uncompress(raw, &rawlen, idat, nidat) != Z_OK || rawlen != h * (stride + 1))
		return fail("the image data does not inflate");
	for (y = 0; y < h; y++) {
		unsigned char *row = raw + y * (stride + 1) + 1, *up = y ? row - stride - 1 : NULL;
		int ft = row[-1];

		for (x = 0; x < stride; x++) {
			int a = x >= (size_t)bpp ? row[x - bpp] : 0, b = up ? up[x] : 0;
			int c = up && x >= (size_t)bpp ? up[x - bpp] : 0;

			switch (ft) {
			case 0: break;
			case 1: row[x] = (unsigned char)(row[x] + a); break;
			case 2: row[x] = (unsigned char)(row[x] + b); break;
			case 3: row[x] = (unsigned char)(row[x] + (a + b) / 2); break;
			case 4: row[x] = (unsigned char)(row[x] + paeth(a, b, c)); break;
			default: return fail("a bad filter");
			}
		}
		for (x = 0; x < w; x++) {
			const unsigned char *p = row + x * bpp;
			uint32_t rgb = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
			size_t k;

			if (rgb != 0xffffff)
				nonwhite++;
			for (k = (rgb * 2654435761u) >> 19; seen[k] != 0xffffffff && seen[k] != rgb;
			    k = (k + 1) & 8191)
				;
			if (seen[k] == 0xffffffff && nseen < 4096) {
				seen[k] = rgb;
				nseen++;
			}
		}
	}
	printf("%u %u %zu %lu\n", w, h, nseen, nonwhite * 1000 / ((unsigned long)w * h));
	free(raw);
	free(idat);
	free(buf);
	return 0;
}
