/*
 * sizeclass.c - the caching allocator's rounding and segment sizes
 * (sizeclass.h has the worked table).  Follows
 * PyTorch's c10/cuda/CUDACachingAllocator.cpp (round_size, get_allocation_size).
 */
#include "config.h"

#include <string.h>

#include "sim/sizeclass.h"

void
sc_caching_defaults(struct sc_caching *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->large_segment = SC_LARGE_SEGMENT;
}

static uint64_t
round_up(uint64_t n, uint64_t m)
{
	return (n + m - 1) / m * m;
}

static uint64_t
divisions_for(const struct sc_caching *sc, uint64_t n)
{
	int idx = (int)sc_log2(n) - 20;

	if (idx < 0)
		idx = 0;
	if (idx > SC_DIVISION_SLOTS - 1)
		idx = SC_DIVISION_SLOTS - 1;
	return sc->divisions[idx];
}

/* roundup_power2_next_division(): d equal steps between powers of two. */
static uint64_t
next_division(uint64_t n, uint64_t d)
{
	uint64_t floor2, step;

	if ((n & (n - 1)) == 0)
		return n;
	floor2 = (uint64_t)1 << sc_log2(n);
	step = floor2 >> sc_log2(d);
	if (step == 0)
		return floor2 * 2;
	return round_up(n, step);
}

uint64_t
sc_caching_round(const struct sc_caching *sc, uint64_t n)
{
	uint64_t d;

	if (n < SC_MIN_BLOCK)
		return SC_MIN_BLOCK;
	d = divisions_for(sc, n);
	/* size_t arithmetic, as PyTorch's: past 2^55 divisions the product wraps */
	if (d > 1 && n > SC_MIN_BLOCK * d)
		return next_division(n, d);
	return round_up(n, SC_MIN_BLOCK);
}

uint64_t
sc_caching_segment(const struct sc_caching *sc, uint64_t rounded)
{
	if (rounded <= SC_SMALL_SIZE)
		return SC_SMALL_BUFFER;
	if (rounded < SC_MIN_LARGE)
		return sc->large_segment;
	return round_up(rounded, SC_ROUND_LARGE);
}
