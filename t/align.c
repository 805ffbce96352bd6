/*
 * align.c - the alignment of two token sequences (traces/align.h) against the
 * textbook dynamic programme: on seeded random pairs (small alphabets, so
 * that many tokens repeat, as one site's allocations do; one sequence an
 * edited copy of the other, as two recordings of a job are) every match is
 * a real one (equal tokens, in order in both) and there are as many as the
 * longest common subsequence has; the edit budget is kept; hand-worked
 * cases first.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "traces/align.h"
#include "sim/gms.h"
#include "t/tap.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t
lcs_length(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t *row = gms_calloc(nb + 1, sizeof(*row)), *prev = gms_calloc(nb + 1, sizeof(*prev));
	size_t i, j, r, *t;

	for (i = 1; i <= na; i++) {
		row[0] = 0;
		for (j = 1; j <= nb; j++)
			row[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 :
			    row[j - 1] > prev[j] ? row[j - 1] : prev[j];
		t = prev, prev = row, row = t;
	}
	r = prev[nb];
	free(row);
	free(prev);
	return r;
}

/* every match equal and increasing; returns how many, or (size_t)-1 if one is wrong */
static size_t
matches(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, const int32_t *map)
{
	size_t i, n = 0;
	long last = -1;

	for (i = 0; i < na; i++) {
		if (map[i] < 0)
			continue;
		if (map[i] <= last || (size_t)map[i] >= nb || a[i] != b[map[i]])
			return (size_t)-1;
		last = map[i];
		n++;
	}
	return n;
}

/*
 * Past TOO_EXPENSIVE steps a search splits where it got furthest (align.c):
 * long pairs, an edited copy (1 in 50 tokens deleted, 1 in 50 followed by
 * one of a token not in a: the longest common subsequence is what stayed)
 * and an unrelated pair, whose matches must still be real ones.
 */
static void
large(void)
{
	size_t n = 200000, na = 0, nb = 0, kept = 0, i, l;
	uint64_t *a = gms_calloc(n, sizeof(*a)), *b = gms_calloc(2 * n, sizeof(*b));
	int32_t *m = gms_calloc(n, sizeof(*m));
	long d;

	for (i = 0; i < n; i++)
		a[na++] = rnd() % 40;
	for (i = 0; i < na; i++) {
		unsigned r = (unsigned)(rnd() % 100);

		if (r < 2)
			continue;
		b[nb++] = a[i];
		kept++;
		if (r < 4)
			b[nb++] = 1000 + rnd() % 8;
	}
	d = align_tokens(a, na, b, nb, (na + nb) / 2, m);
	l = matches(a, na, b, nb, m);
	ok(l != (size_t)-1 && d == (long)(na + nb - 2 * l),
	    "200,000 tokens and an edited copy: every match real, the edits counted the rest");
	diag("matched %zu of the %zu kept (%.3f%%), %ld edits", l, kept, 100.0 * l / kept, d);
	ok(l >= kept - kept / 200, "... at least 99.5%% of the longest common subsequence matched");
	for (i = 0; i < n; i++)
		b[i] = rnd() % 40;
	d = align_tokens(a, n, b, n, n, m);
	l = matches(a, n, b, n, m);
	ok(l != (size_t)-1 && (d == -1 || d == (long)(2 * n - 2 * l)),
	    "... and an unrelated pair: every match real");
	free(a);
	free(b);
	free(m);
}

int
main(void)
{
	/* a workspace allocation (9) only in b, and one (7) only in a */
	const uint64_t a1[] = { 1, 2, 3, 7, 4, 5 }, b1[] = { 1, 2, 9, 3, 4, 5 };
	const uint64_t a2[] = { 1, 1, 1 }, b2[] = { 2, 2 };
	int32_t map[6];
	uint64_t *a, *b;
	int32_t *m;
	int trial, bad_match = 0, bad_len = 0, bad_d = 0;
	size_t na, nb, i, j, l;
	long d;

	d = align_tokens(a1, 6, b1, 6, 100, map);
	ok(d == 2 && map[0] == 0 && map[1] == 1 && map[2] == 3 && map[3] == -1 && map[4] == 4 &&
	    map[5] == 5, "one inserted, one deleted: 2 edits, the rest matched in order (d %ld)", d);
	ok(align_tokens(a2, 3, b2, 2, 100, map) == 5 && map[0] == -1 && map[2] == -1,
	    "nothing in common: every token an edit");
	ok(align_tokens(a1, 6, b1, 6, 1, map) == -1, "a budget of 1 edit refuses 2");
	ok(align_tokens(a1, 0, b1, 6, 100, map) == 6, "an empty sequence: all insertions");

	a = gms_calloc(400, sizeof(*a));
	b = gms_calloc(400, sizeof(*b));
	m = gms_calloc(400, sizeof(*m));
	for (trial = 0; trial < 3000; trial++) {
		unsigned alpha = 2 + (unsigned)(rnd() % 6);

		na = rnd() % 200;
		for (i = 0; i < na; i++)
			a[i] = rnd() % alpha;
		if (trial % 2) {	/* b an edited copy of a */
			for (i = 0, nb = 0; i < na && nb < 390; i++) {
				unsigned r = (unsigned)(rnd() % 20);

				if (r == 0)
					continue;	/* deleted */
				if (r == 1)
					b[nb++] = 100 + rnd() % 3;	/* inserted */
				b[nb++] = a[i];
			}
		} else {
			nb = rnd() % 200;
			for (j = 0; j < nb; j++)
				b[j] = rnd() % alpha;
		}
		d = align_tokens(a, na, b, nb, 1000, m);
		l = matches(a, na, b, nb, m);
		bad_match += l == (size_t)-1;
		bad_len += l != lcs_length(a, na, b, nb);
		bad_d += d != (long)(na + nb - 2 * l);
		/* the budget: exactly the edits needed pass, one fewer does not */
		if (d > 0 && trial % 50 == 0) {
			bad_d += align_tokens(a, na, b, nb, (size_t)d, m) != d;
			bad_d += align_tokens(a, na, b, nb, (size_t)d - 1, m) != -1;
		}
	}
	is_u64(bad_match, 0, "3000 random pairs: every match pairs equal tokens, in order");
	is_u64(bad_len, 0, "... and there are as many as the longest common subsequence has");
	is_u64(bad_d, 0, "... the edits counted are the rest, and the budget is kept exactly");
	free(a);
	free(b);
	free(m);
	large();
	return tap_done();
}
