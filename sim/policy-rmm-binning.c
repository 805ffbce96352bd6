/*
 * policy-rmm-binning.c - RMM's binning_memory_resource (rapidsai/rmm,
 * src/mr/detail/binning_memory_resource_impl.cpp): a fixed-size resource per
 * bin of 2^min .. 2^max bytes (each aligned up to 256; equal bins are one),
 * made in increasing order at the start, each taking its first chunk of 128
 * blocks then; a request goes to the smallest bin at least its size (as asked,
 * not aligned), and a larger one to upstream.
 *
 * A bin whose first chunk upstream refuses leaves the whole resource unable
 * to serve anything, as RMM's constructor would have thrown.
 *
 * Upstream is what RMM's own benchmarks (REPLAY_BENCH's make_binning) and
 * most users put under it: a pool (initial and maximum as rmm-pool's, half the
 * free memory by default), or with upstream=cuda cudaMalloc itself, a
 * segment per large request.  Defaults min=18, max=22 as there.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/rmm.h"

#define BIN_MIN 18
#define BIN_MAX 22
#define BIN_BLOCKS 128

struct binning {
	struct device *dev;
	struct rmm_pool *pool;		/* upstream, or NULL: the device */
	struct rmm_fixed *bins[64];
	uint64_t bin_size[64];
	size_t nbins;
	int broken;			/* a part's first reservation was refused:
					   RMM's constructor would have thrown */
	uint64_t big_allocated, big_ooms;
	struct rmm_addr_tree big;	/* upstream=cuda: the large blocks */
	struct objpool blks;
};

static int
exponent(const char *v, int dflt, int *out, char **cause, const char *key)
{
	char *end;
	long n;

	*out = dflt;
	if (v == NULL)
		return 0;
	n = strtol(v, &end, 10);
	if (*v == '\0' || *end != '\0' || n < 0 || n > 40)
		return gms_fail(cause, GMS_ECONFIG, "rmm-binning: option %s takes an exponent "
		    "from 0 to 40 (bins of 2^%s bytes), not '%s'", key, key, v);
	*out = (int)n;
	return 0;
}

static int
binning_create(const struct policy_args *args, struct device *dev, void **state, char **cause)
{
	static const char *const ups[] = { "pool", "cuda", NULL };
	uint64_t initial = 0, maximum = 0, size;
	enum rmm_order order;
	struct binning *b;
	int lo, hi, up = 0, i, err;

	if ((err = exponent(policy_opt(args, "min"), BIN_MIN, &lo, cause, "min")) < 0 ||
	    (err = exponent(policy_opt(args, "max"), BIN_MAX, &hi, cause, "max")) < 0 ||
	    (err = policy_opt_choice("rmm-binning", args, "upstream", ups, &up, cause)) < 0 ||
	    (err = rmm_opt_order("rmm-binning", args, &order, cause)) < 0)
		return err;
	if (lo > hi)
		return gms_fail(cause, GMS_ECONFIG, "rmm-binning: min (%d) is above max (%d)", lo,
		    hi);
	if (up == 0 && (err = rmm_pool_sizes("rmm-binning", args, dev, &initial, &maximum,
	    cause)) < 0)
		return err;
	if (up == 1 && (policy_opt(args, "initial") || policy_opt(args, "maximum")))
		return gms_fail(cause, GMS_ECONFIG, "rmm-binning: initial and maximum size a "
		    "pool upstream; upstream=cuda has none");
	b = gms_calloc(1, sizeof(*b));
	b->dev = dev;
	RB_INIT(&b->big);
	objpool_init(&b->blks, sizeof(struct rmm_blk), 256);
	if (up == 0)
		b->pool = rmm_pool_new(dev, initial, maximum, order);
	for (i = lo; i <= hi; i++) {
		size = rmm_align((uint64_t)1 << i);
		if (b->nbins > 0 && b->bin_size[b->nbins - 1] == size)
			continue;
		b->bin_size[b->nbins] = size;
		b->bins[b->nbins++] = rmm_fixed_new(dev, b->pool, size, BIN_BLOCKS, order);
		b->broken |= rmm_fixed_broken(b->bins[b->nbins - 1]);
	}
	b->broken |= b->pool != NULL && rmm_pool_broken(b->pool);
	*state = b;
	return 0;
}

static int
binning_alloc(void *state, uint64_t size, int64_t stream, void **handle, uint64_t *block)
{
	struct binning *b = state;
	struct rmm_blk *blk;
	uint64_t addr;
	size_t i;

	for (i = 0; i < b->nbins && b->bin_size[i] < size; i++)
		;
	if (b->broken) {
		blk = NULL;
		b->big_ooms++;
	} else if (i < b->nbins) {
		blk = rmm_fixed_alloc(b->bins[i], size, stream);
	} else if (b->pool != NULL) {
		blk = rmm_pool_alloc(b->pool, size, stream);
	} else if (device_reserve(b->dev, rmm_align(size), &addr) == 0) {
		/* cuda_memory_resource: cudaMalloc of the request (256-aligned here) */
		blk = objpool_get(&b->blks);
		blk->addr = addr;
		blk->size = rmm_align(size);
		blk->requested = size;
		blk->owner = b;
		b->big_allocated += blk->size;
		RB_INSERT(rmm_addr_tree, &b->big, blk);
	} else {
		blk = NULL;
		b->big_ooms++;
	}
	if (blk == NULL)
		return GMS_EOOM;
	*handle = blk;
	*block = blk->size;
	return 0;
}

static void
binning_free_on(void *state, void *handle, int64_t stream)
{
	struct binning *b = state;
	struct rmm_blk *blk = handle;

	if (blk->owner == b) {
		RB_REMOVE(rmm_addr_tree, &b->big, blk);
		b->big_allocated -= blk->size;
		device_release(b->dev, blk->addr, blk->size);
		objpool_put(&b->blks, blk);
	} else if (b->pool != NULL && blk->owner == (void *)b->pool) {
		rmm_pool_free(b->pool, blk, stream);
	} else {
		rmm_fixed_free(blk->owner, blk, stream);
	}
}

static void
binning_free(void *state, void *handle)
{
	binning_free_on(state, handle, ((struct rmm_blk *)handle)->stream);
}

/*
 * Allocated: the user's blocks (bins' blocks and large requests); free:
 * everything else reserved, the bins' free blocks and the pool's.
 */
static void
binning_stats(void *state, struct policy_stats *st)
{
	struct binning *b = state;
	uint64_t a, f, c, o, largest = 0, pool_alloc = 0, pool_free = 0, chunks = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < b->nbins; i++) {
		rmm_fixed_stats(b->bins[i], &a, &f, &c, &o);
		st->allocated += a;
		st->ooms += o;
		chunks += c;
		if (f > 0)
			largest = GMS_MAX(largest, b->bin_size[i]);
	}
	if (b->pool != NULL) {
		rmm_pool_stats(b->pool, &pool_alloc, &pool_free, &f, &o);
		largest = GMS_MAX(largest, f);
		st->ooms += o;
		/* the pool's allocated bytes hold the bins' chunks */
		st->allocated += pool_alloc - chunks;
	}
	st->allocated += b->big_allocated;
	st->ooms += b->big_ooms;
	st->cached_free = b->dev->c.reserved - st->allocated;
	st->largest_free = largest;
}

/* A pool block that is a bin's chunk: its blocks instead. */
static int
expand_chunk(void *earg, const struct rmm_blk *live, policy_block_fn *blkfn, void *arg)
{
	struct binning *b = earg;

	return live->owner != (void *)b->pool &&
	    rmm_fixed_walk_chunk(live->owner, live->addr, blkfn, arg);
}

static void
binning_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	struct binning *b = state;
	struct policy_walk_segment ws = { .pool = "large" };
	struct policy_walk_block wb;
	struct rmm_blk *blk;
	size_t i;

	if (b->pool != NULL) {
		rmm_pool_walk(b->pool, segfn, blkfn, arg, expand_chunk, b);
		return;
	}
	for (i = 0; i < b->nbins; i++)
		rmm_fixed_walk(b->bins[i], segfn, blkfn, arg);
	RB_FOREACH(blk, rmm_addr_tree, &b->big) {
		ws.addr = blk->addr;
		ws.size = blk->size;
		if (segfn != NULL)
			segfn(arg, &ws);
		wb = (struct policy_walk_block){ .addr = blk->addr, .size = blk->size,
		    .requested = blk->requested, .allocated = 1 };
		if (blkfn != NULL)
			blkfn(arg, &wb);
	}
}

static int
binning_check(void *state, char **cause)
{
	struct binning *b = state;
	uint64_t a, f, c, o, chunks = 0;
	size_t i;
	int err;

	for (i = 0; i < b->nbins; i++) {
		if ((err = rmm_fixed_check(b->bins[i], cause)) < 0)
			return err;
		rmm_fixed_stats(b->bins[i], &a, &f, &c, &o);
		chunks += c;
	}
	if (b->pool != NULL)
		return rmm_pool_check(b->pool, cause);
	if (chunks + b->big_allocated != b->dev->c.reserved)
		return gms_fail(cause, -1, "chunks %llu + large %llu != device %llu",
		    (unsigned long long)chunks, (unsigned long long)b->big_allocated,
		    (unsigned long long)b->dev->c.reserved);
	return 0;
}

static void
binning_destroy(void *state)
{
	struct binning *b = state;
	size_t i;

	for (i = 0; i < b->nbins; i++)
		rmm_fixed_destroy(b->bins[i]);
	if (b->pool != NULL)
		rmm_pool_destroy(b->pool);
	objpool_destroy(&b->blks);
	free(b);
}

static const struct policy_option binning_options[] = {
	{ "min", "18", "the smallest bin: 2^min bytes" },
	{ "max", "22", "the largest bin: 2^max bytes; larger requests go upstream" },
	{ "upstream", "pool", "pool (a pool_memory_resource under the bins, as RMM's "
	  "benchmarks build it) or cuda (cudaMalloc)" },
	{ "initial", "half the free memory", "upstream=pool: its initial_pool_size" },
	{ "maximum", "none", "upstream=pool: its maximum_pool_size" },
	{ "order", "created", "created or handle: the order other streams' free lists are "
	  "searched in" },
	{ NULL, NULL, NULL },
};

static const char *const binning_keys[] = { "initial", "maximum", NULL };

const struct policy_ops policy_rmm_binning = {
	.name = "rmm-binning",
	.frameworks = TRACE_FW_RMM,
	.models = "RAPIDS RMM's binning_memory_resource: fixed-size bins of 256 KiB to 4 MiB "
	    "over a pool, larger requests to the pool",
	.options = binning_options,
	.limit = POLICY_LIMIT_RESERVED,
	.pool_keys = binning_keys,
	.create = binning_create,
	.alloc = binning_alloc,
	.free = binning_free,
	.free_on = binning_free_on,
	.addr = rmm_blk_addr,
	.stats = binning_stats,
	.walk = binning_walk,
	.check = binning_check,
	.destroy = binning_destroy,
};
