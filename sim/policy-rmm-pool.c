/*
 * policy-rmm-pool.c - RMM's pool_memory_resource (rapidsai/rmm,
 * src/mr/detail/pool_memory_resource_impl.cpp) over cudaMalloc: a coalescing
 * best-fit suballocator on the stream-ordered base (sim/rmm.h).
 *
 * An allocation is cut from the front of the best-fitting free block; a freed
 * block merges with its free neighbours, never across the start of an upstream
 * block.  The pool starts with initial bytes (RMM's Python default, and its
 * examples': half the free memory) and grows by max(request, pool size), or,
 * with a maximum, by max(request, remaining / 2); when that is less than the
 * request it first gives back upstream blocks that are wholly free (lowest
 * address first) until the request fits under the maximum.  A refused growth
 * halves down to the request.  Nothing is given back otherwise.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/rmm.h"

struct rmm_seg {
	uint64_t addr, size;
	RB_ENTRY(rmm_seg) link;
};

static int
seg_cmp(const struct rmm_seg *a, const struct rmm_seg *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(rmm_seg_tree, rmm_seg);
RB_PROTOTYPE(rmm_seg_tree, rmm_seg, link, seg_cmp)
RB_GENERATE(rmm_seg_tree, rmm_seg, link, seg_cmp)

struct rmm_pool {
	struct device *dev;
	uint64_t size;			/* current_pool_size_ */
	uint64_t maximum;		/* 0: none */
	int broken;			/* the initial pool was refused */
	struct rmm_seg_tree upstream;
	struct rmm_so so;
	struct rmm_addr_tree live;
	uint64_t allocated, ooms;
	struct objpool blks;
};

static struct rmm_blk *
pool_split(void *arg, struct rmm_blk *b, uint64_t size, struct rmm_stream *s)
{
	struct rmm_pool *p = arg;
	struct rmm_blk *rest;

	if (b->size > size) {
		rest = objpool_get(&p->blks);
		rest->addr = b->addr + size;
		rest->size = b->size - size;
		b->size = size;
		rmm_so_insert(&p->so, s, rest);
	}
	return b;
}

/* block_from_upstream() with try_to_expand()'s halving down to min_size. */
static struct rmm_blk *
try_to_expand(struct rmm_pool *p, uint64_t try_size, uint64_t min_size)
{
	struct rmm_seg *seg;
	struct rmm_blk *b;
	uint64_t addr;

	while (try_size >= min_size && try_size > 0) {
		if (device_reserve(p->dev, try_size, &addr) == 0) {
			p->size += try_size;
			seg = gms_calloc(1, sizeof(*seg));
			seg->addr = addr;
			seg->size = try_size;
			RB_INSERT(rmm_seg_tree, &p->upstream, seg);
			b = objpool_get(&p->blks);
			b->addr = addr;
			b->size = try_size;
			b->head = 1;
			return b;
		}
		if (try_size == min_size)
			break;
		try_size = GMS_MAX(min_size, try_size / 2);
	}
	return NULL;
}

static uint64_t
size_to_grow(const struct rmm_pool *p, uint64_t size)
{
	uint64_t remaining;

	if (p->maximum == 0)
		return GMS_MAX(size, p->size);
	remaining = rmm_align(p->maximum - p->size);
	return size <= remaining ? GMS_MAX(size, remaining / 2) : 0;
}

/* reclaim_free_blocks(): wholly free upstream blocks back, until size fits. */
static void
reclaim(struct rmm_pool *p, uint64_t size, struct rmm_stream *s)
{
	struct rmm_blk *b, *next;
	struct rmm_seg key, *seg;

	if (size > p->maximum)
		return;
	for (b = RB_MIN(rmm_addr_tree, &s->list.addr); b != NULL; b = next) {
		if (p->maximum - p->size >= size)
			return;
		next = RB_NEXT(rmm_addr_tree, &s->list.addr, b);
		if (!b->head)
			continue;
		key.addr = b->addr;
		if ((seg = RB_FIND(rmm_seg_tree, &p->upstream, &key)) == NULL || seg->size != b->size)
			continue;
		rmm_so_remove(&p->so, s, b);
		device_release(p->dev, seg->addr, seg->size);
		p->size -= seg->size;
		RB_REMOVE(rmm_seg_tree, &p->upstream, seg);
		free(seg);
		objpool_put(&p->blks, b);
	}
}

static struct rmm_blk *
pool_expand(void *arg, uint64_t size, struct rmm_stream *s)
{
	struct rmm_pool *p = arg;
	uint64_t grow = size_to_grow(p, size);

	if (grow < size && p->maximum != 0) {
		reclaim(p, size, s);
		grow = size_to_grow(p, size);
	}
	return try_to_expand(p, grow, size);
}

static const struct rmm_so_ops pool_ops = { .split = pool_split, .expand = pool_expand };

struct rmm_pool *
rmm_pool_new(struct device *dev, uint64_t initial, uint64_t maximum, enum rmm_order order)
{
	struct rmm_pool *p = gms_calloc(1, sizeof(*p));
	struct rmm_blk *b;

	p->dev = dev;
	p->maximum = maximum;
	RB_INIT(&p->upstream);
	RB_INIT(&p->live);
	objpool_init(&p->blks, sizeof(struct rmm_blk), 1024);
	rmm_so_init(&p->so, RMM_COALESCING, order, &p->blks);
	if (initial > 0) {
		if ((b = try_to_expand(p, initial, initial)) == NULL)
			p->broken = 1;
		else
			rmm_so_insert(&p->so, rmm_so_stream(&p->so, 1), b);
	}
	return p;
}

struct rmm_blk *
rmm_pool_alloc(struct rmm_pool *p, uint64_t size, int64_t stream)
{
	struct rmm_blk *b;

	if (p->broken || (b = rmm_so_get(&p->so, &pool_ops, p, rmm_align(size), stream)) == NULL) {
		p->ooms++;
		return NULL;
	}
	b->requested = size;
	b->stream = stream;
	b->owner = p;
	p->allocated += b->size;
	RB_INSERT(rmm_addr_tree, &p->live, b);
	return b;
}

void
rmm_pool_free(struct rmm_pool *p, struct rmm_blk *b, int64_t stream)
{
	RB_REMOVE(rmm_addr_tree, &p->live, b);
	p->allocated -= b->size;
	rmm_so_insert(&p->so, rmm_so_stream(&p->so, stream), b);
}

void
rmm_pool_stats(struct rmm_pool *p, uint64_t *allocated, uint64_t *free_bytes, uint64_t *largest,
    uint64_t *ooms)
{
	*allocated = p->allocated;
	*free_bytes = p->so.free_bytes;
	*largest = rmm_so_largest(&p->so);
	*ooms = p->ooms;
}

/*
 * The free blocks are in their lists' trees; a walk merges them with the live
 * blocks by address, without moving any.
 */
struct walk_cur {
	struct rmm_blk **v;
	size_t n, cap;
};

static void
add_free(void *arg, const struct rmm_blk *b)
{
	struct walk_cur *w = arg;

	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->v = gms_realloc(w->v, w->cap * sizeof(*w->v));
	}
	w->v[w->n++] = (struct rmm_blk *)b;
}

static int
by_addr(const void *a, const void *b)
{
	const struct rmm_blk *x = *(struct rmm_blk *const *)a, *y = *(struct rmm_blk *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every block, live and free, in address order (the caller frees *out). */
static size_t
all_blocks(struct rmm_pool *p, struct rmm_blk ***out)
{
	struct walk_cur w = { 0 };
	struct rmm_blk *b;

	rmm_so_each(&p->so, add_free, &w);
	RB_FOREACH(b, rmm_addr_tree, &p->live)
		add_free(&w, b);
	if (w.n > 1)
		qsort(w.v, w.n, sizeof(*w.v), by_addr);
	*out = w.v;
	return w.n;
}

void
rmm_pool_walk(struct rmm_pool *p, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg,
    int (*expand)(void *earg, const struct rmm_blk *live, policy_block_fn *blkfn, void *arg),
    void *earg)
{
	struct policy_walk_segment ws = { .pool = "pool", .stream = 0 };
	struct policy_walk_block wb;
	struct rmm_blk **v;
	struct rmm_seg *seg;
	size_t n = all_blocks(p, &v), i = 0;

	RB_FOREACH(seg, rmm_seg_tree, &p->upstream) {
		ws.addr = seg->addr;
		ws.size = seg->size;
		if (segfn != NULL)
			segfn(arg, &ws);
		for (; i < n && v[i]->addr < seg->addr + seg->size; i++) {
			if (blkfn == NULL || v[i]->addr < seg->addr)
				continue;
			if (v[i]->requested != 0 && expand != NULL && expand(earg, v[i], blkfn, arg))
				continue;
			wb = (struct policy_walk_block){ .addr = v[i]->addr, .size = v[i]->size,
			    .requested = v[i]->requested, .allocated = v[i]->requested != 0 };
			blkfn(arg, &wb);
		}
	}
	free(v);
}

int
rmm_pool_check(struct rmm_pool *p, char **cause)
{
	struct rmm_blk **v;
	struct rmm_seg *seg;
	size_t n = all_blocks(p, &v), i = 0;
	uint64_t end, size = 0, allocated = 0, free_bytes = 0;
	int rc = 0;

	RB_FOREACH(seg, rmm_seg_tree, &p->upstream) {
		size += seg->size;
		for (end = seg->addr; i < n && v[i]->addr < seg->addr + seg->size; i++) {
			if (v[i]->addr != end || v[i]->head != (v[i]->addr == seg->addr)) {
				rc = gms_fail(cause, -1, "upstream block %#llx: blocks broken at %#llx",
				    (unsigned long long)seg->addr, (unsigned long long)v[i]->addr);
				goto out;
			}
			end += v[i]->size;
			if (v[i]->requested != 0)
				allocated += v[i]->size;
			else
				free_bytes += v[i]->size;
		}
		if (end != seg->addr + seg->size) {
			rc = gms_fail(cause, -1, "upstream block %#llx: blocks cover %llu of %llu bytes",
			    (unsigned long long)seg->addr, (unsigned long long)(end - seg->addr),
			    (unsigned long long)seg->size);
			goto out;
		}
	}
	if (i != n || size != p->size || size != p->dev->c.reserved || allocated != p->allocated ||
	    free_bytes != p->so.free_bytes || (p->maximum != 0 && size > p->maximum))
		rc = gms_fail(cause, -1, "counts disagree: pool %llu/%llu (device %llu, maximum "
		    "%llu), allocated %llu/%llu, free %llu/%llu, %zu blocks outside",
		    (unsigned long long)size, (unsigned long long)p->size,
		    (unsigned long long)p->dev->c.reserved, (unsigned long long)p->maximum,
		    (unsigned long long)allocated, (unsigned long long)p->allocated,
		    (unsigned long long)free_bytes, (unsigned long long)p->so.free_bytes, n - i);
out:
	free(v);
	return rc;
}

int
rmm_pool_broken(const struct rmm_pool *p)
{
	return p->broken;
}

void
rmm_pool_destroy(struct rmm_pool *p)
{
	struct rmm_seg *seg, *next;

	for (seg = RB_MIN(rmm_seg_tree, &p->upstream); seg != NULL; seg = next) {
		next = RB_NEXT(rmm_seg_tree, &p->upstream, seg);
		RB_REMOVE(rmm_seg_tree, &p->upstream, seg);
		free(seg);
	}
	rmm_so_destroy(&p->so);
	objpool_destroy(&p->blks);
	free(p);
}

/*
 * The free memory RMM's default takes half of: the capacity given (a GPU's
 * memory less its context), else the recording GPU's.
 */
int
rmm_pool_sizes(const char *policy, const struct policy_args *args, const struct device *dev,
    uint64_t *initial, uint64_t *maximum, char **cause)
{
	uint64_t free_bytes = dev->capacity ? dev->capacity : args->device_total;
	int err;

	*initial = free_bytes / 2 / RMM_ALIGN * RMM_ALIGN;
	*maximum = 0;
	if ((err = policy_opt_size(policy, args, "initial", initial, cause)) < 0 ||
	    (err = policy_opt_size(policy, args, "maximum", maximum, cause)) < 0)
		return err;
	if (policy_opt(args, "initial") == NULL && free_bytes == 0)
		return gms_fail(cause, GMS_ECONFIG, "%s: its initial pool is " POLICY_NEEDS_SIZE ": give --capacity or --gpu, or --option initial=SIZE (an RMM log does "
		    "not say its GPU)", policy);
	if (*initial % RMM_ALIGN != 0 || *maximum % RMM_ALIGN != 0)
		return gms_fail(cause, GMS_ECONFIG, "%s: initial and maximum must be multiples of "
		    "256 bytes, as RMM requires", policy);
	if (*maximum != 0 && *initial > *maximum)
		return gms_fail(cause, GMS_ECONFIG, "%s: the initial pool (%llu B) exceeds the "
		    "maximum (%llu B)", policy, (unsigned long long)*initial,
		    (unsigned long long)*maximum);
	return 0;
}

/* The policy: a pool over the device. */
static int
pool_create(const struct policy_args *args, struct device *dev, void **state, char **cause)
{
	uint64_t initial, maximum;
	enum rmm_order order;
	int err;

	if ((err = rmm_pool_sizes("rmm-pool", args, dev, &initial, &maximum, cause)) < 0 ||
	    (err = rmm_opt_order("rmm-pool", args, &order, cause)) < 0)
		return err;
	*state = rmm_pool_new(dev, initial, maximum, order);
	return 0;
}

static int
pool_alloc(void *state, uint64_t size, int64_t stream, void **handle, uint64_t *block)
{
	struct rmm_blk *b = rmm_pool_alloc(state, size, stream);

	if (b == NULL)
		return GMS_EOOM;
	*handle = b;
	*block = b->size;
	return 0;
}

static void
pool_free_on(void *state, void *handle, int64_t stream)
{
	rmm_pool_free(state, handle, stream);
}

static void
pool_free(void *state, void *handle)
{
	rmm_pool_free(state, handle, ((struct rmm_blk *)handle)->stream);
}

static void
pool_stats(void *state, struct policy_stats *st)
{
	memset(st, 0, sizeof(*st));
	rmm_pool_stats(state, &st->allocated, &st->cached_free, &st->largest_free, &st->ooms);
}

static void
pool_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	rmm_pool_walk(state, segfn, blkfn, arg, NULL, NULL);
}

static int
pool_check(void *state, char **cause)
{
	return rmm_pool_check(state, cause);
}

static void
pool_destroy(void *state)
{
	rmm_pool_destroy(state);
}

static const struct policy_option pool_options[] = {
	{ "initial", "half the free memory", "initial_pool_size: reserved at the start "
	  "(RMM's Python default: half of what --capacity or --gpu leaves free)" },
	{ "maximum", "none", "maximum_pool_size: the pool never grows past it" },
	{ "order", "created", "created or handle: the order other streams' free lists are "
	  "searched in (RMM orders them by their CUDA events' addresses)" },
	{ NULL, NULL, NULL },
};

/* plan's pool size: a pool of P that never grows (initial = maximum = P) */
static const char *const pool_keys[] = { "initial", "maximum", NULL };

const struct policy_ops policy_rmm_pool = {
	.name = "rmm-pool",
	.frameworks = TRACE_FW_RMM,
	.models = "RAPIDS RMM's pool_memory_resource (rmm.reinitialize(pool_allocator=True)): "
	    "coalescing best fit per stream, growing by the pool's size, never shrinking",
	.options = pool_options,
	.limit = POLICY_LIMIT_RESERVED,
	.pool_keys = pool_keys,
	.create = pool_create,
	.alloc = pool_alloc,
	.free = pool_free,
	.free_on = pool_free_on,
	.addr = rmm_blk_addr,
	.stats = pool_stats,
	.walk = pool_walk,
	.check = pool_check,
	.destroy = pool_destroy,
};
