/*
 * pngstat.c - what a screenshot holds, for t/cli-report.sh: "WIDTH HEIGHT
 * COLOURS NONWHITE_PERMILLE" of an 8-bit RGB or RGBA PNG (what headless
 * Chromium writes), so a test can tell a rendered page from a blank one;
 * given two, "WIDTH HEIGHT DIFFERING_PERMILLE" (t/pictures.sh).
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

/* An 8-bit RGB or RGBA PNG, decoded: its pixels as 0xRRGGBB, w * h of them (caller frees). */
static uint32_t *
decode(const char *path, uint32_t *wp, uint32_t *hp)
{
	unsigned char *buf = NULL, *idat = NULL, *raw;
	size_t len = 0, cap = 0, nidat = 0, n, stride, y, x, i;
	uint32_t w = 0, h = 0, clen, *px;
	unsigned long rawlen;
	int bpp = 0;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL)
		return fail("cannot open it"), NULL;
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
		return fail("not a PNG"), NULL;
	for (i = 8; i + 12 <= len; i += 12 + clen) {
		clen = be32(buf + i);
		if (clen > len - i - 12)
			return fail("a chunk runs past the end"), NULL;
		if (memcmp(buf + i + 4, "IHDR", 4) == 0) {
			w = be32(buf + i + 8);
			h = be32(buf + i + 12);
			if (buf[i + 16] != 8 || (buf[i + 17] != 2 && buf[i + 17] != 6) || buf[i + 20])
				return fail("only 8-bit RGB or RGBA, not interlaced"), NULL;
			bpp = buf[i + 17] == 6 ? 4 : 3;
		} else if (memcmp(buf + i + 4, "IDAT", 4) == 0) {
			idat = realloc(idat, nidat + clen + 1);
			memcpy(idat + nidat, buf + i + 8, clen);
			nidat += clen;
		}
	}
	if (bpp == 0 || w == 0 || h == 0 || w > 20000 || h > 40000)
		return fail("no usable IHDR"), NULL;
	stride = (size_t)w * bpp;
	rawlen = (unsigned long)(h * (stride + 1));
	raw = malloc(rawlen);
	px = malloc((size_t)w * h * sizeof(*px));
	if (uncompress(raw, &rawlen, idat, nidat) != Z_OK || rawlen != h * (stride + 1))
		return fail("the image data does not inflate"), NULL;
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
			default: return fail("a bad filter"), NULL;
			}
		}
		for (x = 0; x < w; x++) {
			const unsigned char *p = row + x * bpp;

			px[y * w + x] = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
		}
	}
	free(raw);
	free(idat);
	free(buf);
	*wp = w;
	*hp = h;
	return px;
}

/* pngstat A B: "W H DIFFERING_PERMILLE", or "size" when their sizes differ. */
static int
compare(const char *a, const char *b)
{
	uint32_t wa, ha, wb, hb, *pa = decode(a, &wa, &ha), *pb = decode(b, &wb, &hb);
	unsigned long differ = 0, i;

	if (pa == NULL || pb == NULL)
		return 1;
	if (wa != wb || ha != hb) {
		printf("size\n");
		return 0;
	}
	for (i = 0; i < (unsigned long)wa * ha; i++)
		differ += pa[i] != pb[i];
	printf("%u %u %lu\n", wa, ha, differ * 1000 / ((unsigned long)wa * ha));
	free(pa);
	free(pb);
	return 0;
}

int
main(int argc, char **argv)
{
	static uint32_t seen[8192];	/* open addressing; 0xffffffff: empty */
	unsigned long nonwhite = 0, i;
	uint32_t w, h, *px, rgb;
	size_t nseen = 0, k;

	if (argc == 3)
		return compare(argv[1], argv[2]);
	if (argc != 2)
		return fail("usage: pngstat FILE.png [OTHER.png]");
	if ((px = decode(argv[1], &w, &h)) == NULL)
		return 1;
	memset(seen, 0xff, sizeof(seen));
	for (i = 0; i < (unsigned long)w * h; i++) {
		rgb = px[i];
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
	printf("%u %u %zu %lu\n", w, h, nseen, nonwhite * 1000 / ((unsigned long)w * h));
	free(px);
	return 0;
}
