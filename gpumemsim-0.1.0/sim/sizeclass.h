/*
 * sizeclass.h - PyTorch's caching-allocator size arithmetic (native backend,
 * PyTorch 2.9-2.11): request rounding, pool choice and segment size.
 *
 * With default settings (no roundup_power2_divisions):
 *
 *   request n            rounded s          pool    segment (cudaMalloc) size
 *   ------------------   ----------------   -----   ----------------------------
 *   1 .. 512             512                small   2 MiB
 *   513 .. 1 MiB         ceil(n/512)*512    small   2 MiB
 *   1 MiB+1 .. <10 MiB   ceil(n/512)*512    large   20 MiB (large_segment_size)
 *   >= 10 MiB            ceil(n/512)*512    large   ceil(s/2 MiB)*2 MiB
 *
 * e.g. 1 B -> 512 B in a 2 MiB segment; 1048577 B -> 1049088 B in a 20 MiB
 * segment; 10485761 B -> 10486272 B in a 12 MiB segment.  Every segment, and
 * so every reserved total, is a multiple of 2 MiB.
 *
 * roundup_power2_divisions d (per power-of-two interval of the request, slot
 * k covering [2^(20+k), 2^(21+k)) bytes, slot 0 also every size below 2 MiB):
 * a size above 512*d that is not a power of two is rounded up to the next of d
 * equal steps between powers of two (d=4: 1.25, 1.5, 1.75, 2 x 2^k).
 */
#ifndef SIM_SIZECLASS_H
#define SIM_SIZECLASS_H

#include <stdint.h>

#include "sim/gms.h"

#define SC_MIN_BLOCK      ((uint64_t)512)		/* kMinBlockSize */
#define SC_SMALL_SIZE     ((uint64_t)1 << 20)		/* kSmallSize: 1 MiB */
#define SC_SMALL_BUFFER   ((uint64_t)2 << 20)		/* kSmallBuffer: 2 MiB */
#define SC_MIN_LARGE      ((uint64_t)10 << 20)		/* kMinLargeAlloc: 10 MiB */
#define SC_ROUND_LARGE    ((uint64_t)2 << 20)		/* kRoundLarge: 2 MiB */
#define SC_LARGE_SEGMENT  ((uint64_t)20 << 20)		/* large_segment_size default */
#define SC_DIVISION_SLOTS 16
#define SC_UNLIMITED      UINT64_MAX

_Static_assert(SC_SMALL_BUFFER % SC_MIN_BLOCK == 0, "segments hold whole blocks");
_Static_assert(SC_LARGE_SEGMENT > SC_MIN_LARGE, "large_segment_size must exceed 10 MiB");

/* The caching allocator's settings that size arithmetic depends on. */
struct sc_caching {
	uint64_t large_segment;			/* 20 MiB */
	uint64_t divisions[SC_DIVISION_SLOTS];	/* 0 = off, else a power of 2 (any, as
						   PyTorch's size_t holds) */
};

void sc_caching_defaults(struct sc_caching *sc);

/* round_size(): the block size for a request of n > 0 bytes. */
uint64_t sc_caching_round(const struct sc_caching *sc, uint64_t n);

/* The pool of a rounded size: 1 for small (<= 1 MiB), 0 for large. */
static inline int
sc_caching_is_small(uint64_t rounded)
{
	return rounded <= SC_SMALL_SIZE;
}

/* get_allocation_size(): the segment size for a rounded size. */
uint64_t sc_caching_segment(const struct sc_caching *sc, uint64_t rounded);

/* floor(log2(n)) for n > 0. */
static inline unsigned
sc_log2(uint64_t n)
{
	return 63u - (unsigned)__builtin_clzll(n);
}

#endif /* SIM_SIZECLASS_H */
