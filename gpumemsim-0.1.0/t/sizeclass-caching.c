/*
 * sizeclass-caching.c - PyTorch's rounding, pool choice and segment sizes
 * (sim/sizeclass.c), with values worked by hand from
 * PyTorch's c10/cuda/CUDACachingAllocator.cpp (round_size, get_allocation_size).
 */
#include "config.h"

#include "sim/sizeclass.h"
#include "t/tap.h"

static const struct {
	uint64_t request, rounded, segment;
	int small;
} table[] = {
	/* below kMinBlockSize: one 512-byte block of a 2 MiB small segment */
	{ 1, 512, 2 << 20, 1 },
	{ 511, 512, 2 << 20, 1 },
	{ 512, 512, 2 << 20, 1 },
	{ 513, 1024, 2 << 20, 1 },
	{ 37632, 37888, 2 << 20, 1 },		/* 73.5 * 512 -> 74 * 512 */
	/* exactly 1 MiB is still small */
	{ 1048576, 1048576, 2 << 20, 1 },
	/* one byte more rounds to 1 MiB + 512: large pool, a 20 MiB segment */
	{ 1048577, 1049088, 20 << 20, 0 },
	{ 3145728, 3145728, 20 << 20, 0 },
	/* the segment follows the ROUNDED size: 10 MiB - 1 rounds to 10 MiB,
	   which is not below kMinLargeAlloc, so it gets a 10 MiB segment */
	{ 10485247, 10485248, 20 << 20, 0 },	/* 10 MiB - 512: 20 MiB segment */
	{ 10485759, 10485760, 10 << 20, 0 },
	{ 10485760, 10485760, 10 << 20, 0 },
	{ 10485761, 10486272, 12 << 20, 0 },	/* rounded up to 2 MiB: 12 MiB */
	{ 20971519, 20971520, 20 << 20, 0 },
	{ 20971521, 20972032, 22 << 20, 0 },
	{ 154389504, 154389504, 155189248, 0 },	/* GPT-2's embedding: 147.23 -> 148 MiB */
	{ 1608224000, 1608224256, 1608515584ULL, 0 },
};

int
main(void)
{
	struct sc_caching sc, sc4;
	size_t i;

	sc_caching_defaults(&sc);
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		uint64_t r = sc_caching_round(&sc, table[i].request);

		is_u64(r, table[i].rounded, "request %llu rounds to %llu",
		    (unsigned long long)table[i].request, (unsigned long long)table[i].rounded);
		ok(sc_caching_is_small(r) == table[i].small, "request %llu: %s pool",
		    (unsigned long long)table[i].request, table[i].small ? "small" : "large");
		is_u64(sc_caching_segment(&sc, r), table[i].segment, "request %llu: segment of %llu",
		    (unsigned long long)table[i].request, (unsigned long long)table[i].segment);
		ok(sc_caching_segment(&sc, r) % (2 << 20) == 0, "request %llu: the segment is a "
		    "multiple of 2 MiB", (unsigned long long)table[i].request);
	}

	/* roundup_power2_divisions:4 -> steps of a quarter between powers of two */
	sc_caching_defaults(&sc4);
	for (i = 0; i < SC_DIVISION_SLOTS; i++)
		sc4.divisions[i] = 4;
	is_u64(sc_caching_round(&sc4, 1200), 1536, "divisions 4: 1200 <= 512*4 rounds plainly to 1536");
	is_u64(sc_caching_round(&sc4, 2049), 2560, "divisions 4: 2049 -> 2048 + 512");
	is_u64(sc_caching_round(&sc4, 5 << 20 | 1), 6 << 20, "divisions 4: 5 MiB + 1 -> 6 MiB");
	is_u64(sc_caching_round(&sc4, 4 << 20), 4 << 20, "divisions 4: a power of two stays");
	is_u64(sc_caching_round(&sc4, 100000000), 100663296, "divisions 4: 100e6 -> 96 MiB");
	return tap_done();
}
