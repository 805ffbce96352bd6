/*
 * policy-rmm.c - RMM's memory resources (rmm-pool, rmm-fixed, rmm-binning,
 * rmm-arena) request by request, every value worked by hand from rapidsai/rmm's
 * code (sim/rmm.h names the files), and RMM's own tests (cpp/tests/mr/
 * pool_mr_tests.cpp, arena_mr_tests.cpp) transcribed with their expected
 * outcomes.  The policies are driven directly (an RMM resource keeps serving
 * after a request it refused, which a replay never asks of it), over the
 * simulated device; check() runs after every request.  Addresses are
 * offsets from the first upstream block's start.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "t/tap.h"

#define KiB ((uint64_t)1024)
#define MiB GMS_MiB
#define NIDS 64

struct rig {
	const struct policy_ops *ops;
	struct policy_kv *opts;
	char *store;
	struct device *dev;
	void *st;
	void *h[NIDS];
	uint64_t blk[NIDS];	/* the bytes counted for each */
	uint64_t base;		/* the first upstream block's start */
};

static void
bail(const char *what, char *cause)
{
	printf("Bail out! %s: %s\n", what, cause ? cause : "?");
	exit(1);
}

static void
first_segment(void *arg, const struct policy_walk_segment *seg)
{
	uint64_t *base = arg;

	if (*base == 0 || seg->addr < *base)
		*base = seg->addr;
}

/* A resource from a spec ("rmm-pool initial=1MiB") over a device of capacity (0: unlimited). */
static struct rig *
rig(const char *spec, uint64_t capacity)
{
	struct rig *r = gms_calloc(1, sizeof(*r));
	struct policy_args args = { 0 };
	char *cause = NULL;
	size_t n;

	if (policy_parse_spec(spec, &r->ops, &r->opts, &n, &r->store, &cause) < 0)
		bail(spec, cause);
	args.opts = r->opts;
	args.nopts = n;
	r->dev = device_sim_create(capacity);
	if (r->ops->create(&args, r->dev, &r->st, &cause) < 0)
		bail(spec, cause);
	r->ops->walk(r->st, first_segment, NULL, &r->base);
	return r;
}

/* The error creating spec gives, or NULL if it is made. */
static char *
refused(const char *spec)
{
	struct rig r = { 0 };
	struct policy_args args = { 0 };
	char *cause = NULL;
	size_t n;

	if (policy_parse_spec(spec, &r.ops, &r.opts, &n, &r.store, &cause) < 0)
		return cause;
	args.opts = r.opts;
	args.nopts = n;
	r.dev = device_sim_create(0);
	if (r.ops->create(&args, r.dev, &r.st, &cause) == 0) {
		r.ops->destroy(r.st);
		cause = NULL;
	}
	device_destroy(r.dev);
	free(r.opts);
	free(r.store);
	return cause;
}

/* Is creating spec refused (with a cause)? */
static int
is_refused(const char *spec)
{
	char *cause = refused(spec);
	int was = cause != NULL;

	free(cause);
	return was;
}

static void
checked(struct rig *r)
{
	char *cause = NULL;

	if (r->ops->check(r->st, &cause) < 0)
		bail("check", cause);
}

/* Allocate id: its offset from the base, or -1 when refused. */
static int64_t
al(struct rig *r, int id, uint64_t size, int64_t stream)
{
	uint64_t block = 0;
	int rc = r->ops->alloc(r->st, size, stream, &r->h[id], &block);

	r->blk[id] = block;
	checked(r);
	if (rc < 0) {
		r->h[id] = NULL;
		return -1;
	}
	return (int64_t)(r->ops->addr(r->st, r->h[id]) - r->base);
}

static void
fr(struct rig *r, int id, int64_t stream)
{
	if (r->ops->free_on != NULL)
		r->ops->free_on(r->st, r->h[id], stream);
	else
		r->ops->free(r->st, r->h[id]);
	r->h[id] = NULL;
	checked(r);
}

static uint64_t
reserved(const struct rig *r)
{
	return r->dev->c.reserved;
}

static void
done(struct rig *r)
{
	r->ops->destroy(r->st);
	device_destroy(r->dev);
	free(r->opts);
	free(r->store);
	free(r);
}

/* Best fit, ties to the lowest address, cut from the front. */
static void
pool_best_fit(void)
{
	struct rig *r = rig("rmm-pool initial=1MiB", 0);

	is_u64(al(r, 1, 1000, 0), 0, "pool: 1000 B at the pool's start");
	is_u64(al(r, 2, 256, 0), 1024, "pool: cut from the front, 1000 aligned to 1024");
	is_u64(al(r, 3, 3000, 0), 1280, "pool: 3000 -> 3072");
	is_u64(al(r, 4, 256, 0), 4352, "pool: a guard");
	fr(r, 1, 0);
	fr(r, 3, 0);
	is_u64(al(r, 5, 512, 0), 0, "pool: the 1 KiB hole is the best fit for 512");
	is_u64(al(r, 6, 1024, 0), 1280, "pool: 1 KiB fits the 3 KiB hole, not the 512 B rest");
	is_u64(al(r, 7, 2048, 0), 2304, "pool: 2 KiB fits the 3 KiB hole's rest exactly");
	is_u64(al(r, 8, 512, 0), 512, "pool: 512 fits the 1 KiB hole's rest exactly");
	is_u64(al(r, 9, 2048, 0), 4608, "pool: 2 KiB after the guard");
	is_u64(al(r, 10, 256, 0), 6656, "pool: a guard");
	is_u64(al(r, 11, 2048, 0), 6912, "pool: 2 KiB again");
	is_u64(al(r, 12, 256, 0), 8960, "pool: a guard");
	fr(r, 11, 0);
	fr(r, 9, 0);
	is_u64(al(r, 13, 2048, 0), 4608, "pool: two equal holes: the lower address");
	fr(r, 5, 0);
	fr(r, 8, 0);
	fr(r, 2, 0);
	fr(r, 6, 0);
	is_u64(al(r, 14, 2304, 0), 0, "pool: freed neighbours merged: 512+512+256+1024");
	is_u64(reserved(r), MiB, "pool: never grew");
	done(r);
}

/* Growth without a maximum: max(request, pool size). */
static void
pool_growth(void)
{
	struct rig *r = rig("rmm-pool initial=0", 0);

	ok(al(r, 1, 1000, 0) >= 0, "grow: the first request");
	is_u64(reserved(r), 1024, "grow: an empty pool grows by the request (1024)");
	ok(al(r, 2, 3000, 0) >= 0, "grow: 3000");
	is_u64(reserved(r), 1024 + 3072, "grow: max(3072, 1024)");
	ok(al(r, 3, 100, 0) >= 0, "grow: 100");
	is_u64(reserved(r), 8192, "grow: max(256, 4096): the pool doubles");
	is_u64(r->dev->c.allocs, 3, "grow: three upstream blocks");
	fr(r, 1, 0);
	fr(r, 2, 0);
	ok(al(r, 4, 4096, 0) >= 0, "grow: 4096");
	is_u64(reserved(r), 8192 + 8192, "grow: 1024 and 3072 are two upstream blocks, never "
	    "merged across the second's head: 4096 grows the pool");
	done(r);
	/* the same freed the other way round: the first merging into the second's head */
	r = rig("rmm-pool initial=0", 0);
	al(r, 1, 1000, 0);
	al(r, 2, 3000, 0);
	is_u64(r->ops->addr(r->st, r->h[2]) - r->ops->addr(r->st, r->h[1]), 1024, "grow: the "
	    "device put the second upstream block right after the first");
	al(r, 3, 100, 0);
	fr(r, 2, 0);
	fr(r, 1, 0);
	ok(al(r, 4, 4096, 0) >= 0, "grow: 4096 again");
	is_u64(reserved(r), 16384, "grow: a free block never merges into the next upstream "
	    "block's head");
	done(r);
}

/* RMM's PoolTest.ForceGrowth, on a device of 6000 bytes (its limiting adaptor). */
static void
pool_force_growth(void)
{
	struct rig *r = rig("rmm-pool initial=0", 6000);

	ok(al(r, 1, 1000, 0) >= 0, "ForceGrowth: 1000");
	ok(al(r, 2, 4000, 0) >= 0, "ForceGrowth: 4000");
	ok(al(r, 3, 500, 0) >= 0, "ForceGrowth: 500 (growth halved until it fits)");
	is_u64(reserved(r), 1024 + 4096 + 640, "ForceGrowth: 5120 and 2560 refused, 1280 "
	    "refused, 640 taken");
	ok(al(r, 4, 2000, 0) < 0, "ForceGrowth: 2000 is too much");
	done(r);
	r = rig("rmm-pool initial=0 maximum=8192B", 6000);
	ok(al(r, 1, 1000, 0) >= 0, "ForceGrowth max 8192: 1000");
	is_u64(reserved(r), 4096, "ForceGrowth max 8192: max(1024, 8192 / 2)");
	ok(al(r, 2, 4000, 0) < 0, "ForceGrowth max 8192: 4000 is too much");
	ok(al(r, 3, 500, 0) >= 0, "ForceGrowth max 8192: 500");
	ok(al(r, 4, 2000, 0) >= 0, "ForceGrowth max 8192: 2000 fits");
	is_u64(reserved(r), 4096, "ForceGrowth max 8192: still one block");
	done(r);
}

/* With a maximum: growth by max(request, remaining / 2), reclaiming wholly free blocks. */
static void
pool_maximum(void)
{
	struct rig *r = rig("rmm-pool initial=0 maximum=8MiB", 0);

	ok(al(r, 1, 3 * MiB, 0) >= 0, "maximum: 3 MiB");
	is_u64(reserved(r), 4 * MiB, "maximum: max(3 MiB, 8 MiB / 2)");
	ok(al(r, 2, 3 * MiB, 0) >= 0, "maximum: 3 MiB more");
	is_u64(reserved(r), 7 * MiB, "maximum: max(3 MiB, 4 MiB / 2)");
	fr(r, 1, 0);
	ok(al(r, 3, 5 * MiB, 0) >= 0, "maximum: 5 MiB fits once the free 4 MiB block goes back");
	is_u64(reserved(r), 8 * MiB, "maximum: 3 + 5 MiB");
	is_u64(r->dev->c.frees, 1, "maximum: one upstream block given back");
	ok(al(r, 4, 1, 0) < 0, "maximum: nothing left under the maximum");
	done(r);
	ok(is_refused("rmm-pool initial=1024B maximum=256B"),
	    "ThrowMaxLessThanInitial: refused");
	ok(is_refused("rmm-pool initial=1000031B maximum=1000192B"),
	    "NonAlignedPoolSize: initial refused");
	ok(is_refused("rmm-pool initial=1000192B maximum=1000200B"),
	    "NonAlignedPoolSize: maximum refused");
	r = rig("rmm-pool initial=1000192B maximum=1000192B", 0);
	ok(al(r, 1, 1000, 0) >= 0, "InitialAndMaxPoolSizeEqual: 1000 B served");
	done(r);
	ok(is_refused("rmm-pool"), "no capacity, no initial: refused (nothing to halve)");
	r = rig("rmm-pool", 10 * MiB);
	is_u64(reserved(r), 5 * MiB, "default initial: half the capacity");
	done(r);
	r = rig("rmm-pool initial=16MiB", 10 * MiB);
	ok(al(r, 1, 1, 0) < 0, "an initial pool the device refuses: nothing is served");
	done(r);
}

/* A freed block goes to the freeing stream's list; other streams' lists after one's own. */
static void
pool_streams(void)
{
	struct rig *r = rig("rmm-pool initial=1MiB", 0);

	is_u64(al(r, 1, 1000, 5), 0, "streams: stream 5 takes from the default stream's list");
	fr(r, 1, 5);
	is_u64(al(r, 2, 512, 0), 1024, "streams: the default stream's own list first (the "
	    "better 1 KiB hole is stream 5's)");
	is_u64(al(r, 3, 2048, 7), 1536, "streams: stream 7 takes from the first list that fits");
	is_u64(al(r, 4, 1024, 5), 0, "streams: stream 5's own block");
	done(r);

	r = rig("rmm-pool initial=4096B", 0);
	al(r, 1, 1024, 0);
	al(r, 2, 1024, 0);
	al(r, 3, 2048, 0);
	fr(r, 1, 5);
	fr(r, 2, 0);
	is_u64(al(r, 4, 2048, 5), 0, "merge: stream 5's 1 KiB and the default's 1 KiB merge");
	is_u64(reserved(r), 4096, "merge: no growth");
	fr(r, 3, 0);
	done(r);

	/* which other stream's list is searched first */
	r = rig("rmm-pool initial=4096B", 0);
	al(r, 1, 1024, 9);
	al(r, 2, 1024, 3);
	al(r, 3, 2048, 0);
	fr(r, 1, 9);
	fr(r, 2, 3);
	is_u64(al(r, 4, 1024, 0), 0, "order=created: stream 9's list (used first) first");
	done(r);
	r = rig("rmm-pool initial=4096B order=handle", 0);
	al(r, 1, 1024, 9);
	al(r, 2, 1024, 3);
	al(r, 3, 2048, 0);
	fr(r, 1, 9);
	fr(r, 2, 3);
	is_u64(al(r, 4, 1024, 0), 1024, "order=handle: stream 3's list first");
	done(r);
}

static void
fixed(void)
{
	struct rig *r = rig("rmm-fixed blocks=4", 0);

	is_u64(reserved(r), 4 * MiB, "fixed: the first chunk at the start");
	is_u64(al(r, 1, 1, 0), 0, "fixed: blocks in address order");
	is_u64(al(r, 2, MiB, 0), MiB, "fixed: a whole block");
	ok(al(r, 3, MiB + 1, 0) < 0, "fixed: more than a block fails");
	is_u64(al(r, 4, 300, 0), 2 * MiB, "fixed: third");
	fr(r, 2, 0);
	fr(r, 1, 0);
	is_u64(al(r, 5, 10, 0), 3 * MiB, "fixed: FIFO: the chunk's last block was queued first");
	is_u64(al(r, 6, 10, 0), MiB, "fixed: then the first freed");
	is_u64(al(r, 7, 10, 0), 0, "fixed: then the next");
	is_u64(reserved(r), 4 * MiB, "fixed: no second chunk yet");
	ok(al(r, 8, 10, 0) >= 0, "fixed: a fifth block");
	is_u64(reserved(r), 8 * MiB, "fixed: a second chunk");
	ok(al(r, 10, 10, 0) >= 0 && al(r, 11, 10, 0) >= 0 && al(r, 12, 10, 0) >= 0,
	    "fixed: its three other blocks");
	fr(r, 4, 6);
	is_u64(al(r, 9, 10, 0), 2 * MiB, "fixed: the default stream's list empty: stream 6's block");
	done(r);
}

/* RMM's FixedSizeMRTest.AllocAndDeallocBlocksAsync, one thread and stream, block-sized requests. */
static void
fixed_rmm(void)
{
	struct rig *r = rig("rmm-fixed block_size=1KiB blocks=1", 0);
	int i, n = 0;

	for (i = 1; i <= 16; i++)
		n += al(r, i, 512, 0) >= 0;
	is_u64(n, 16, "AllocAndDeallocBlocks: 16 blocks served");
	is_u64(reserved(r), 16 * KiB, "AllocAndDeallocBlocks: upstream holds the 16 blocks (RMM: "
	    "at least): the first chunk at the start, then a chunk of one for each next request");
	for (i = 1; i <= 16; i++)
		fr(r, i, 0);
	is_u64(reserved(r), 16 * KiB, "AllocAndDeallocBlocks: upstream unchanged after the frees");
	is_u64(r->dev->c.frees, 0, "AllocAndDeallocBlocks: nothing given back while it lives");
	done(r);
}

static void
binning(void)
{
	struct rig *r = rig("rmm-binning min=10 max=12 upstream=cuda", 0);

	is_u64(reserved(r), 128 * (1 + 2 + 4) * KiB, "binning: three bins' chunks at the start");
	is_u64(r->dev->c.allocs, 3, "binning: one chunk each");
	ok(al(r, 1, 1000, 0) >= 0, "binning: 1000");
	is_u64(r->blk[1], 1 * KiB, "binning: in the 1 KiB bin");
	ok(al(r, 2, 1025, 0) >= 0 && al(r, 3, 4096, 0) >= 0, "binning: 1025 and 4096");
	is_u64(r->blk[2], 2 * KiB, "binning: 1025 in the 2 KiB bin");
	is_u64(r->blk[3], 4 * KiB, "binning: 4096 in the 4 KiB bin");
	is_u64(reserved(r), 128 * 7 * KiB, "binning: served by the 2 and 4 KiB bins");
	ok(al(r, 4, 4097, 0) >= 0, "binning: 4097");
	is_u64(reserved(r), 128 * 7 * KiB + 4352, "binning: larger: cudaMalloc of 4352");
	fr(r, 4, 0);
	is_u64(reserved(r), 128 * 7 * KiB, "binning: and cudaFree");
	done(r);
	r = rig("rmm-binning min=7 max=9 upstream=cuda", 0);
	is_u64(reserved(r), 128 * (256 + 512), "binning: 128 and 256 B bins are one 256 B bin");
	done(r);
	r = rig("rmm-binning min=10 max=12 initial=1MiB", 0);
	is_u64(r->dev->c.allocs, 1, "binning over a pool: the pool's block only");
	is_u64(al(r, 1, 4097, 0), 896 * KiB, "binning over a pool: chunks of 128, 256, 512 KiB "
	    "cut from the pool first, then the large request");
	is_u64(al(r, 2, 2000, 0), 128 * KiB, "binning over a pool: 2000 in the 2 KiB bin's chunk");
	done(r);
}

/* RMM's ArenaTest cases, through one stream's arena, on a 4 MiB arena. */
static void
arena_rmm(void)
{
	struct rig *r = rig("rmm-arena size=4MiB", 0);

	is_u64(al(r, 1, MiB, 0), 0, "ArenaAllocate: 1 MiB");
	is_u64(al(r, 2, 256, 0), MiB, "ArenaAllocate: 256 B in the next superblock");
	done(r);
	r = rig("rmm-arena size=4MiB", 0);
	al(r, 1, MiB, 0);
	fr(r, 1, 0);
	al(r, 2, 256, 0);
	fr(r, 2, 0);
	is_u64(al(r, 3, MiB, 0), 0, "ArenaDeallocate: the arena kept its superblock");
	done(r);
	r = rig("rmm-arena size=4MiB", 0);
	al(r, 1, 256, 0);
	al(r, 2, 256, 0);
	al(r, 3, 256, 0);
	fr(r, 1, 0);
	fr(r, 2, 0);
	is_u64(al(r, 4, 512, 0), 0, "ArenaDeallocateMergePrevious");
	done(r);
	r = rig("rmm-arena size=4MiB", 0);
	al(r, 1, 256, 0);
	al(r, 2, 256, 0);
	al(r, 3, 256, 0);
	fr(r, 2, 0);
	fr(r, 1, 0);
	is_u64(al(r, 4, 512, 0), 0, "ArenaDeallocateMergeNext");
	done(r);
	r = rig("rmm-arena size=4MiB", 0);
	is_u64(al(r, 1, 2 * MiB, 0), 0, "GlobalArenaAllocate: 2 MiB from the global arena");
	fr(r, 1, 0);
	is_u64(al(r, 2, 2 * MiB, 0), 0, "GlobalArenaDeallocate: again at the start");
	done(r);
	r = rig("rmm-arena size=4MiB", 0);
	is_u64(al(r, 1, MiB + 256, 0), 0, "GlobalArenaDeallocateAlignUp: 1 MiB + 256");
	is_u64(al(r, 2, MiB + 512, 0), MiB + 256, "GlobalArenaDeallocateAlignUp: 1 MiB + 512");
	fr(r, 1, 0);
	fr(r, 2, 0);
	is_u64(al(r, 3, 4 * MiB, 0), 0, "GlobalArenaDeallocateAlignUp: merged into the whole arena");
	done(r);
	r = rig("rmm-arena size=4MiB", 0);
	ok(al(r, 1, (uint64_t)1 << 50, 0) < 0, "GlobalArenaAllocateExtraLarge: refused");
	ok(al(r, 2, (uint64_t)1 << 50, 0) < 0, "GlobalArenaAllocateExtraLarge: again");
	done(r);
}

/* Per-stream arenas, the global arena's splits, and defragment() on failure. */
static void
arena_streams(void)
{
	struct rig *r = rig("rmm-arena size=8MiB", 0);
	struct policy_stats st;

	is_u64(al(r, 1, 1000, 0), 0, "arena: stream 0's arena takes a 1 MiB superblock");
	is_u64(al(r, 2, 2 * MiB, 0), MiB, "arena: 2 MiB from the global arena, cut to size");
	is_u64(al(r, 3, 1000, 5), 3 * MiB, "arena: stream 5's arena takes the next superblock");
	is_u64(al(r, 4, 300000, 0), 1024, "arena: stream 0's superblock still has room");
	fr(r, 2, 0);
	is_u64(al(r, 5, 3 * MiB, 0), 4 * MiB, "arena: first fit by address: the freed 2 MiB is "
	    "too small, the rest is cut");
	fr(r, 5, 0);
	fr(r, 1, 0);
	fr(r, 4, 0);
	fr(r, 3, 5);
	is_u64(al(r, 6, 7 * MiB, 0), 0, "arena: 7 MiB fails while the arenas keep their empty "
	    "superblocks; defragment() gives them back, the retry fits at the start");
	r->ops->stats(r->st, &st);
	is_u64(st.alloc_retries, 1, "arena: one defragment");
	fr(r, 6, 0);
	is_u64(al(r, 7, 8 * MiB, 0), 0, "arena: the whole arena, merged again");
	r->ops->stats(r->st, &st);
	is_u64(st.alloc_retries, 1, "arena: no second defragment");
	done(r);
	ok(is_refused("rmm-arena size=1000000B"), "arena: under 1 MiB refused, as RMM does");
}

int
main(void)
{
	pool_best_fit();
	pool_growth();
	pool_force_growth();
	pool_maximum();
	pool_streams();
	fixed();
	fixed_rmm();
	binning();
	arena_rmm();
	arena_streams();
	return tap_done();
}
