/*
 * align.c - Myers' difference algorithm (align.h).  The linear-space form:
 * each step finds where a shortest edit script crosses its middle (the
 * forward and the backward search meeting on one diagonal), then solves the
 * two halves; common prefixes and suffixes are matched first, which is most
 * of the work when two recordings of one job differ in a few places.
 *
 * A search costs its length times its edits, so two long sequences that
 * share little (recordings whose sites come in unrelated orders) would cost
 * their product.  As GNU diff does, a search that has gone TOO_EXPENSIVE
 * steps from each end without meeting splits the problem where one of them
 * got furthest instead: the script may then be longer than the shortest,
 * never wrong (each match found is a match), and the whole costs about
 * the length times TOO_EXPENSIVE.  Recordings of one job that differ in a
 * few places never get there.
 */
#include "config.h"

#include <stdlib.h>

#include "traces/align.h"
#include "sim/gms.h"

#define TOO_EXPENSIVE 512

struct aligner {
	const uint64_t *a, *b;
	int32_t *map;
	long *v1, *v2;		/* furthest reach on each diagonal, forward and back */
	long dlim;		/* the most steps one search may take */
	int over;		/* the budget ran out */
};

/*
 * Where an optimal path through a[a0..a0+n) x b[b0..b0+m) crosses the
 * middle: *sx, *sy relative.  1 found, 0 nothing in common, -1 over budget.
 */
static int
bisect(struct aligner *s, size_t a0, long n, size_t b0, long m, long *sx, long *sy)
{
	const uint64_t *A = s->a + a0, *B = s->b + b0;
	long max_d = (n + m + 1) / 2, off, len, delta = n - m, d, k, i;
	long k1start = 0, k1end = 0, k2start = 0, k2end = 0;
	int limited = 0, front = delta % 2 != 0;

	if (max_d > s->dlim) {
		max_d = s->dlim;
		limited = 1;
	}
	off = max_d;
	len = 2 * max_d + 2;
	for (i = 0; i < len; i++)
		s->v1[i] = s->v2[i] = -1;
	s->v1[off + 1] = s->v2[off + 1] = 0;
	for (d = 0; d < max_d; d++) {
		for (k = -d + k1start; k <= d - k1end; k += 2) {
			long ko = off + k, x, y;

			if (k == -d || (k != d && s->v1[ko - 1] < s->v1[ko + 1]))
				x = s->v1[ko + 1];
			else
				x = s->v1[ko - 1] + 1;
			y = x - k;
			while (x < n && y < m && y >= 0 && A[x] == B[y])
				x++, y++;
			s->v1[ko] = x;
			if (x > n)
				k1end += 2;
			else if (y > m)
				k1start += 2;
			else if (front) {
				long k2o = off + delta - k;

				if (k2o >= 0 && k2o < len && s->v2[k2o] != -1 && x >= n - s->v2[k2o]) {
					*sx = x;
					*sy = y;
					return 1;
				}
			}
		}
		for (k = -d + k2start; k <= d - k2end; k += 2) {
			long ko = off + k, x, y;

			if (k == -d || (k != d && s->v2[ko - 1] < s->v2[ko + 1]))
				x = s->v2[ko + 1];
			else
				x = s->v2[ko - 1] + 1;
			y = x - k;
			while (x < n && y < m && y >= 0 && A[n - x - 1] == B[m - y - 1])
				x++, y++;
			s->v2[ko] = x;
			if (x > n)
				k2end += 2;
			else if (y > m)
				k2start += 2;
			else if (!front) {
				long k1o = off + delta - k;

				if (k1o >= 0 && k1o < len && s->v1[k1o] != -1 &&
				    s->v1[k1o] >= n - x) {
					*sx = s->v1[k1o];
					*sy = off + s->v1[k1o] - k1o;
					return 1;
				}
			}
		}
		if (d + 1 >= TOO_EXPENSIVE && d + 1 < max_d)
			goto expensive;
	}
	if (limited) {
		s->over = 1;
		return -1;
	}
	return 0;
expensive:
	{
		/* the diagonal each search got furthest along (x + y), the better of the two */
		long best = -1, bx = 0, by = 0;

		for (k = -d + k1start; k <= d - k1end; k += 2) {
			long x = GMS_MIN(s->v1[off + k], n), y = x - k;

			if (y >= 0 && y <= m && x + y > best) {
				best = x + y;
				bx = x;
				by = y;
			}
		}
		for (k = -d + k2start; k <= d - k2end; k += 2) {
			long x = GMS_MIN(s->v2[off + k], n), y = x - k;

			if (y >= 0 && y <= m && x + y > best) {
				best = x + y;
				bx = n - x;
				by = m - y;
			}
		}
		if (best <= 0 || (bx == 0 && by == 0) || (bx == n && by == m))
			return 0;
		*sx = bx;
		*sy = by;
		return 1;
	}
}

static void
diff(struct aligner *s, size_t a0, long n, size_t b0, long m)
{
	long x, y;

	while (n > 0 && m > 0 && s->a[a0] == s->b[b0]) {
		s->map[a0++] = (int32_t)b0++;
		n--, m--;
	}
	while (n > 0 && m > 0 && s->a[a0 + n - 1] == s->b[b0 + m - 1]) {
		s->map[a0 + n - 1] = (int32_t)(b0 + m - 1);
		n--, m--;
	}
	if (n == 0 || m == 0 || s->over)
		return;
	if (bisect(s, a0, n, b0, m, &x, &y) <= 0)
		return;
	/* a split at a corner would not shrink the problem: no common token there */
	if ((x == 0 && y == 0) || (x == n && y == m))
		return;
	diff(s, a0, x, b0, y);
	diff(s, a0 + x, n - x, b0 + y, m - y);
}

long
align_tokens(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, size_t max_d,
    int32_t *a_to_b)
{
	struct aligner s = { .a = a, .b = b, .map = a_to_b };
	long top = (long)((na + nb + 1) / 2), matched = 0;
	size_t i;

	for (i = 0; i < na; i++)
		a_to_b[i] = -1;
	/* the middle of a path of D edits is D / 2 steps from either end */
	s.dlim = (long)(max_d / 2 + 2);
	if (s.dlim > top)
		s.dlim = top;
	if (s.dlim < 1)
		s.dlim = 1;
	s.v1 = gms_calloc((size_t)(2 * s.dlim + 2), sizeof(*s.v1));
	s.v2 = gms_calloc((size_t)(2 * s.dlim + 2), sizeof(*s.v2));
	diff(&s, 0, (long)na, 0, (long)nb);
	free(s.v1);
	free(s.v2);
	for (i = 0; i < na; i++)
		matched += a_to_b[i] >= 0;
	if (s.over || (size_t)((long)(na + nb) - 2 * matched) > max_d)
		return -1;
	return (long)(na + nb) - 2 * matched;
}
