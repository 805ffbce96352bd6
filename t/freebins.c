/*
 * freebins.c - the caching policy's free-block index (sim/freebins.h)
 * against a sorted array in PyTorch's order (stream, size, address): seeded
 * random inserts and removals over several streams (negative and extreme
 * ones too) and sizes across every class (below 8 bytes to near 2^63, many
 * ties), with every lookup the policy makes checked at each step and whole
 * walks forward and backward along the way.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/freebins.h"
#include "sim/gms.h"
#include "t/tap.h"

#define MAXN 3000

struct item {
	struct fb_node fb;
	int64_t stream;
	uint64_t size, addr;
};

static struct item *ref[MAXN];	/* sorted */
static size_t nref;
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static int bad;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int
cmp3(int64_t s1, uint64_t z1, uint64_t a1, int64_t s2, uint64_t z2, uint64_t a2)
{
	if (s1 != s2)
		return s1 < s2 ? -1 : 1;
	if (z1 != z2)
		return z1 < z2 ? -1 : 1;
	return a1 < a2 ? -1 : a1 > a2;
}

static int
cmp_item(const struct item *x, int64_t s, uint64_t z, uint64_t a)
{
	return cmp3(x->stream, x->size, x->addr, s, z, a);
}

static const int64_t streams[] = { INT64_MIN, -3, 0, 0, 0, 1, 7, INT64_MAX };

static uint64_t
random_size(void)
{
	switch (rnd() % 6) {
	case 0:
		return rnd() % 16;				/* the smallest classes */
	case 1:
		return (uint64_t)1 << (rnd() % 64);		/* class edges */
	case 2:
		return ((uint64_t)1 << (rnd() % 63)) - 1;
	case 3:
		return UINT64_MAX - rnd() % 4;
	default:
		return (rnd() % 64) << 20;			/* ties */
	}
}

/* First reference index at or above (s, z, a). */
static size_t
lower(int64_t s, uint64_t z, uint64_t a)
{
	size_t lo = 0, hi = nref, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (cmp_item(ref[mid], s, z, a) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
expect(const struct fb_node *got, const struct item *want, const char *what)
{
	if ((const void *)got != (want ? (const void *)&want->fb : NULL) && bad++ < 5)
		diag("%s: wrong node (%zu held)", what, nref);
}

static void
lookups(struct freebins *f)
{
	int64_t s = streams[rnd() % 8];
	uint64_t z = random_size(), a = rnd() % 64;
	size_t i, last = nref;
	const struct item *in_stream = NULL;

	if (nref > 0 && rnd() % 2) {
		const struct item *x = ref[rnd() % nref];

		s = x->stream;
		z = x->size;
		a = rnd() % 2 ? x->addr : 0;
	}
	i = lower(s, z, a);
	expect(fb_ceil(f, s, z, a), i < nref && ref[i]->stream == s ? ref[i] : NULL, "ceil");
	/* the stream's last */
	for (i = lower(s, 0, 0); i < nref && ref[i]->stream == s; i++)
		last = i;
	in_stream = last < nref ? ref[last] : NULL;
	expect(fb_last(f, s), in_stream, "last");
	expect(fb_first(f), nref ? ref[0] : NULL, "first");
	if (nref > 0) {
		i = rnd() % nref;
		expect(fb_next(f, &ref[i]->fb), i + 1 < nref ? ref[i + 1] : NULL, "next");
		expect(fb_prev(f, &ref[i]->fb), i > 0 ? ref[i - 1] : NULL, "prev");
		if (!fb_contains(f, &ref[i]->fb) && bad++ < 5)
			diag("contains: a filed node not found");
	}
}

static void
step(struct freebins *f, int grow)
{
	struct item *x;
	size_t p;

	if (nref > 0 && (nref == MAXN || rnd() % 100 < (unsigned)(grow ? 35 : 65))) {
		p = rnd() % nref;
		x = ref[p];
		fb_remove(f, &x->fb);
		if (fb_contains(f, &x->fb) && bad++ < 5)
			diag("contains: a removed node still found");
		memmove(&ref[p], &ref[p + 1], (nref - p - 1) * sizeof(ref[0]));
		nref--;
		free(x);
		return;
	}
	x = gms_calloc(1, sizeof(*x));
	x->stream = streams[rnd() % 8];
	x->size = random_size();
	x->addr = rnd() % 64;
	p = lower(x->stream, x->size, x->addr);
	if (p < nref && cmp_item(ref[p], x->stream, x->size, x->addr) == 0) {
		free(x);
		return;
	}
	fb_insert(f, &x->fb, x->stream, x->size, x->addr);
	memmove(&ref[p + 1], &ref[p], (nref - p) * sizeof(ref[0]));
	ref[p] = x;
	nref++;
}

/* The whole order, forward and back. */
static void
walks(struct freebins *f)
{
	const struct fb_node *n;
	size_t i = 0, fwd = 1, back = 1;

	for (n = fb_first(f); n != NULL; n = fb_next(f, n), i++)
		fwd &= i < nref && n == &ref[i]->fb;
	fwd &= i == nref;
	if (nref > 0) {
		i = nref;
		for (n = &ref[nref - 1]->fb; n != NULL; n = fb_prev(f, n))
			back &= i > 0 && n == &ref[--i]->fb;
		back &= i == 0;
	}
	ok(fwd && back, "a walk by next and one by prev visit all %zu nodes in order", nref);
}

int
main(void)
{
	struct freebins f;
	size_t most = 0;
	int phase, i;

	fb_init(&f);
	ok(fb_first(&f) == NULL && fb_last(&f, 0) == NULL && fb_ceil(&f, 0, 0, 0) == NULL,
	    "an empty index finds nothing");
	for (phase = 0; phase < 4; phase++) {
		for (i = 0; i < 15000; i++) {
			step(&f, phase % 2 == 0);
			lookups(&f);
			most = nref > most ? nref : most;
		}
		is_u64(f.count, nref, "phase %d: the count follows the nodes", phase);
		walks(&f);
	}
	ok(most > 1000, "up to %zu nodes at once", most);
	is_u64((uint64_t)bad, 0, "every lookup agreed with the sorted array");
	while (nref > 0) {
		fb_remove(&f, &ref[--nref]->fb);
		free(ref[nref]);
	}
	ok(f.count == 0 && fb_first(&f) == NULL, "emptied, it finds nothing");
	fb_free(&f);
	return tap_done();
}
