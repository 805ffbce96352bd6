/*
 * policy-cuda-async.c - a cudaMallocAsync pool (RMM's cuda_async_memory_resource,
 * PyTorch's backend:cudaMallocAsync), as measured on an H200 (driver 580;
 * replay/async_probe.c, replay/results-h200/async/): the driver does not
 * document its placement, so this is a model calibrated on real runs, and a
 * range.
 *
 * What the measurements show (every allocation's address, and the pool's
 * reserved bytes, after every request): the pool is one contiguous address
 * range, physical memory mapped in 32 MiB granules as allocations first touch
 * them and never unmapped (RMM's and PyTorch's release threshold is the
 * largest value); requests are aligned to 512 bytes and go to the smallest
 * free block that holds them.  Among free blocks of one size the driver's
 * choice follows no rule found (neither the lowest nor the highest address,
 * nor the last freed), so the same sequence can map a little more or less.
 *
 *  - bound=fit (the default): best fit, the lowest address among equals, a
 *    freed block merged with its free neighbours at once (as when each free
 *    has completed before the next request: a synchronized stream).  On the
 *    synchronized runs measured: equal on 13 of 16 logs, within 4 granules
 *    (128 MiB) on the other 3.
 *  - bound=low: only the live bytes' granules (no placement can map fewer):
 *    below every run measured.
 *  - bound=high: best fit with freed blocks never merged, as if no free ever
 *    completed before the next request: above every run measured,
 *    synchronized or not.
 *
 * Streams are not told apart: the pool reuses across them once a free has
 * completed.  doc/ACCURACY.md has the measured runs beside the three.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/rmm.h"

#define ASYNC_GRANULE ((uint64_t)32 << 20)	/* measured: reserved grows by it */
#define ASYNC_ALIGN 512				/* measured: best fit at this grain */
#define ASYNC_BASE ((uint64_t)0x7e0000000000)	/* where the range starts */
#define ASYNC_SPAN ((uint64_t)1 << 48)		/* its size: more than any GPU */

struct granule {
	uint64_t index;
	UT_hash_handle hh;
};

struct cuda_async {
	struct device *dev;
	int high;			/* bound=high: nothing merges */
	int low;			/* bound=low: the live bytes' granules only */
	struct rmm_so so;		/* one list: every stream's */
	struct granule *mapped;
	uint64_t nmapped;
	struct rmm_addr_tree live;
	uint64_t allocated, ooms;
	struct objpool blks;
};

static struct rmm_blk *
async_split(void *arg, struct rmm_blk *b, uint64_t size, struct rmm_stream *s)
{
	struct cuda_async *a = arg;
	struct rmm_blk *rest;

	if (b->size > size) {
		rest = objpool_get(&a->blks);
		rest->addr = b->addr + size;
		rest->size = b->size - size;
		rest->head = a->high;
		b->size = size;
		rmm_so_insert(&a->so, s, rest);
	}
	return b;
}

static struct rmm_blk *
async_expand(void *arg, uint64_t size, struct rmm_stream *s)
{
	return NULL;	/* the range is never exhausted below ASYNC_SPAN */
}

static const struct rmm_so_ops async_ops = { .split = async_split, .expand = async_expand };

static int
is_mapped(struct cuda_async *a, uint64_t g)
{
	struct granule *gr;

	HASH_FIND(hh, a->mapped, &g, sizeof(g), gr);
	return gr != NULL;
}

/*
 * Map the granules [addr, addr + size) touches that are not yet (bound=low:
 * as many more as the live bytes need, from the range's start): 0, or GMS_EOOM.
 */
static int
map_range(struct cuda_async *a, uint64_t addr, uint64_t size)
{
	uint64_t first = (addr - ASYNC_BASE) / ASYNC_GRANULE;
	uint64_t last = (addr + size - 1 - ASYNC_BASE) / ASYNC_GRANULE, g, need = 0;
	struct granule *gr;

	if (a->low) {
		first = 0;
		last = (a->allocated + size + ASYNC_GRANULE - 1) / ASYNC_GRANULE - 1;
	}
	for (g = first; g <= last; g++)
		need += !is_mapped(a, g);
	if (a->dev->capacity != 0 && a->dev->c.reserved + need * ASYNC_GRANULE > a->dev->capacity)
		return GMS_EOOM;
	for (g = first; g <= last; g++) {
		if (is_mapped(a, g))
			continue;
		if (device_map(a->dev, ASYNC_BASE + g * ASYNC_GRANULE, ASYNC_GRANULE) < 0)
			return GMS_EOOM;
		gr = gms_calloc(1, sizeof(*gr));
		gr->index = g;
		HASH_ADD(hh, a->mapped, index, sizeof(gr->index), gr);
		a->nmapped++;
	}
	return 0;
}

static int
async_create(const struct policy_args *args, struct device *dev, void **state, char **cause)
{
	static const char *const bounds[] = { "fit", "low", "high", NULL };
	struct cuda_async *a;
	struct rmm_blk *b;
	int bound = 0, err;

	if ((err = policy_opt_choice("cuda-async", args, "bound", bounds, &bound, cause)) < 0)
		return err;
	a = gms_calloc(1, sizeof(*a));
	a->dev = dev;
	a->low = bound == 1;
	a->high = bound == 2;
	RB_INIT(&a->live);
	objpool_init(&a->blks, sizeof(struct rmm_blk), 1024);
	rmm_so_init(&a->so, RMM_COALESCING, RMM_ORDER_CREATED, &a->blks);
	b = objpool_get(&a->blks);
	b->addr = ASYNC_BASE;
	b->size = ASYNC_SPAN;
	b->head = 1;
	rmm_so_insert(&a->so, rmm_so_stream(&a->so, 1), b);
	*state = a;
	return 0;
}

static int
async_alloc(void *state, uint64_t size, int64_t stream, void **handle, uint64_t *block)
{
	struct cuda_async *a = state;
	uint64_t aligned = (size + ASYNC_ALIGN - 1) / ASYNC_ALIGN * ASYNC_ALIGN;
	struct rmm_blk *b = rmm_so_get(&a->so, &async_ops, a, aligned, 1);

	if (b == NULL || map_range(a, b->addr, b->size) < 0) {
		if (b != NULL) {
			b->head = a->high || b->addr == ASYNC_BASE;
			rmm_so_insert(&a->so, rmm_so_stream(&a->so, 1), b);
		}
		a->ooms++;
		return GMS_EOOM;
	}
	b->requested = size;
	b->stream = stream;
	a->allocated += b->size;
	RB_INSERT(rmm_addr_tree, &a->live, b);
	*handle = b;
	*block = b->size;
	return 0;
}

static void
async_free(void *state, void *handle)
{
	struct cuda_async *a = state;
	struct rmm_blk *b = handle;

	RB_REMOVE(rmm_addr_tree, &a->live, b);
	a->allocated -= b->size;
	/* the first block of the range never merges backwards: nothing is before it */
	b->head = a->high || b->addr == ASYNC_BASE;
	rmm_so_insert(&a->so, rmm_so_stream(&a->so, 1), b);
}

static void
async_stats(void *state, struct policy_stats *st)
{
	struct cuda_async *a = state;

	memset(st, 0, sizeof(*st));
	st->allocated = a->allocated;
	st->cached_free = a->dev->c.reserved - GMS_MIN(a->dev->c.reserved, a->allocated);
	st->largest_free = st->cached_free;	/* a bound: the mapped rest */
	st->ooms = a->ooms;
}

/* The mapped granules as segments (runs of them), and the live blocks in them. */
static void
async_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	struct cuda_async *a = state;
	struct policy_walk_segment ws = { .pool = "async" };
	struct policy_walk_block wb;
	struct rmm_blk *b;
	uint64_t g, seen = 0;

	/* granules are touched from the range's start up: walk indices until all seen */
	for (g = 0; seen < a->nmapped; g++) {
		if (!is_mapped(a, g))
			continue;
		seen++;
		if (segfn != NULL) {
			ws.addr = ASYNC_BASE + g * ASYNC_GRANULE;
			ws.size = ASYNC_GRANULE;
			segfn(arg, &ws);
		}
	}
	RB_FOREACH(b, rmm_addr_tree, &a->live) {
		wb = (struct policy_walk_block){ .addr = b->addr, .size = b->size,
		    .requested = b->requested, .allocated = 1 };
		if (blkfn != NULL)
			blkfn(arg, &wb);
	}
}

static int
async_check(void *state, char **cause)
{
	struct cuda_async *a = state;
	struct rmm_blk *b;
	uint64_t live = 0;

	RB_FOREACH(b, rmm_addr_tree, &a->live) {
		live += b->size;
		if ((b->addr - ASYNC_BASE) % ASYNC_ALIGN != 0 || b->size % ASYNC_ALIGN != 0)
			return gms_fail(cause, -1, "block %#llx is not on the 512 B grain",
			    (unsigned long long)b->addr);
	}
	if (live != a->allocated || a->nmapped * ASYNC_GRANULE != a->dev->c.reserved ||
	    live + a->so.free_bytes != ASYNC_SPAN)
		return gms_fail(cause, -1, "counts disagree: live %llu/%llu, mapped %llu (device "
		    "%llu), free %llu", (unsigned long long)live, (unsigned long long)a->allocated,
		    (unsigned long long)(a->nmapped * ASYNC_GRANULE),
		    (unsigned long long)a->dev->c.reserved, (unsigned long long)a->so.free_bytes);
	return 0;
}

static void
async_destroy(void *state)
{
	struct cuda_async *a = state;
	struct granule *g, *tmp;

	HASH_ITER(hh, a->mapped, g, tmp) {
		HASH_DEL(a->mapped, g);
		free(g);
	}
	rmm_so_destroy(&a->so);
	objpool_destroy(&a->blks);
	free(a);
}

static const struct policy_option async_options[] = {
	{ "bound", "fit", "fit (best fit, frees merged at once: the synchronized runs measured "
	  "within 128 MiB), low (the live bytes' granules: below every run) or high (frees "
	  "never merged: above every run)" },
	{ NULL, NULL, NULL },
};

const struct policy_ops policy_cuda_async = {
	.name = "cuda-async",
	.frameworks = TRACE_FW_PYTORCH | TRACE_FW_TENSORFLOW | TRACE_FW_RMM,
	.models = "cudaMallocAsync's pool (RMM's cuda_async_memory_resource, PyTorch's "
	    "backend:cudaMallocAsync), as measured on an H200: best fit in one range mapped "
	    "in 32 MiB granules; a model within the range bound=low .. bound=high",
	.options = async_options,
	.limit = POLICY_LIMIT_RESERVED,
	.create = async_create,
	.alloc = async_alloc,
	.free = async_free,
	.addr = rmm_blk_addr,
	.stats = async_stats,
	.walk = async_walk,
	.check = async_check,
	.destroy = async_destroy,
};
