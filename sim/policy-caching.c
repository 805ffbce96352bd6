/*
 * policy-caching.c - PyTorch's native CUDA caching allocator
 * (DeviceCachingAllocator, PyTorch 2.9-2.11), byte-exact, following
 * docs/pytorch-caching-allocator.md:
 *
 *  - requests are rounded (sizeclass.h) and served from a small pool
 *    (<= 1 MiB, 2 MiB segments) or a large pool (20 MiB segments below 10 MiB,
 *    else the size rounded to 2 MiB);
 *  - each pool keeps its free blocks ordered by (stream, size, address); a
 *    lookup takes the single best fit on the request's stream, lowest address
 *    on ties, so a freed block is reused only on its own stream;
 *  - the allocated part of a split block is its low end; small-pool blocks
 *    split when >= 512 bytes remain, large-pool blocks when > 1 MiB remains;
 *  - a freed block merges with free physical neighbours; memory goes back to
 *    the device only when a new segment does not fit under the capacity: then
 *    every free unsplit segment is released and the segment is tried once more
 *    (counted as a retry), else the request is out of memory.
 *
 * Tunables: none yet beyond the defaults (max_split_size unlimited,
 * roundup_power2_divisions off, large_segment_size 20 MiB, no GC).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/sys/tree.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/objpool.h"
#include "sim/policy.h"
#include "sim/sizeclass.h"

/* A remainder above this is split off a large-pool block (strictly above). */
#define LARGE_SPLIT_REMAINDER GMS_MiB

struct cseg;

struct cblock {
	uint64_t addr, size;
	uint64_t requested;	/* the request this block serves; 0 when free */
	int64_t stream;
	struct cblock *prev, *next;	/* physical neighbours in the segment */
	struct cseg *seg;
	int allocated;
	RB_ENTRY(cblock) link;	/* in its pool's free tree while free */
};

struct cseg {
	uint64_t addr, size;
	int64_t stream;
	int small;
	struct cblock *head;	/* the block at addr */
	RB_ENTRY(cseg) link;
};

static int
cblock_cmp(const struct cblock *a, const struct cblock *b)
{
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int
cseg_cmp(const struct cseg *a, const struct cseg *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(free_tree, cblock);
RB_PROTOTYPE(free_tree, cblock, link, cblock_cmp)
RB_GENERATE(free_tree, cblock, link, cblock_cmp)
RB_HEAD(seg_tree, cseg);
RB_PROTOTYPE(seg_tree, cseg, link, cseg_cmp)
RB_GENERATE(seg_tree, cseg, link, cseg_cmp)

struct caching {
	struct device *dev;
	struct sc_caching sc;
	struct free_tree pools[2];	/* [0] large, [1] small */
	struct seg_tree segs;
	uint64_t allocated;
	uint64_t cached_free;
	uint64_t alloc_retries, ooms;
	struct objpool blocks;		/* struct cblock: no malloc per request */
};

static struct cblock *
block_new(struct caching *c)
{
	return objpool_get(&c->blocks);
}

static void
block_put(struct caching *c, struct cblock *b)
{
	objpool_put(&c->blocks, b);
}

static void
free_insert(struct caching *c, struct cblock *b)
{
	GMS_ASSERT(!b->allocated);
	RB_INSERT(free_tree, &c->pools[b->seg->small], b);
	c->cached_free += b->size;
}

static void
free_remove(struct caching *c, struct cblock *b)
{
	RB_REMOVE(free_tree, &c->pools[b->seg->small], b);
	c->cached_free -= b->size;
}

/* get_free_block(): the single best fit on the stream, or NULL. */
static struct cblock *
get_free_block(struct caching *c, int small, int64_t stream, uint64_t size)
{
	struct cblock key = { .stream = stream, .size = size, .addr = 0 }, *b;

	b = RB_NFIND(free_tree, &c->pools[small], &key);
	if (b == NULL || b->stream != stream)
		return NULL;
	free_remove(c, b);
	return b;
}

/* alloc_block(): a new segment of seg_size bytes as one free-standing block. */
static struct cblock *
alloc_block(struct caching *c, int small, int64_t stream, uint64_t seg_size, int retry)
{
	struct cseg *s;
	struct cblock *b;
	uint64_t addr;

	if (retry)
		c->alloc_retries++;
	if (device_reserve(c->dev, seg_size, &addr) < 0)
		return NULL;
	s = gms_calloc(1, sizeof(*s));
	s->addr = addr;
	s->size = seg_size;
	s->stream = stream;
	s->small = small;
	b = block_new(c);
	b->addr = addr;
	b->size = seg_size;
	b->stream = stream;
	b->seg = s;
	s->head = b;
	RB_INSERT(seg_tree, &c->segs, s);
	return b;
}

static void
release_block(struct caching *c, struct cblock *b)
{
	struct cseg *s = b->seg;

	free_remove(c, b);
	device_release(c->dev, s->addr, s->size);
	RB_REMOVE(seg_tree, &c->segs, s);
	free(s);
	block_put(c, b);
}

/* release_cached_blocks(): every free, unsplit segment goes back; large pool first. */
static void
release_cached_blocks(struct caching *c)
{
	struct cblock *b, *next;
	int pool;

	for (pool = 0; pool < 2; pool++)
		for (b = RB_MIN(free_tree, &c->pools[pool]); b != NULL; b = next) {
			next = RB_NEXT(free_tree, &c->pools[pool], b);
			if (b->prev == NULL && b->next == NULL)
				release_block(c, b);
		}
}

static int
should_split(const struct cblock *b, uint64_t size)
{
	uint64_t rem = b->size - size;

	if (b->seg->small)
		return rem >= SC_MIN_BLOCK;
	return rem > LARGE_SPLIT_REMAINDER;
}

static int
caching_alloc(void *state, uint64_t request, int64_t stream, void **handle, uint64_t *block)
{
	struct caching *c = state;
	struct cblock *b, *rest;
	uint64_t size = sc_caching_round(&c->sc, request);
	uint64_t seg_size = sc_caching_segment(&c->sc, size);
	int small = sc_caching_is_small(size);

	b = get_free_block(c, small, stream, size);
	if (b == NULL)
		b = alloc_block(c, small, stream, seg_size, 0);
	if (b == NULL) {
		release_cached_blocks(c);
		b = alloc_block(c, small, stream, seg_size, 1);
	}
	if (b == NULL) {
		c->ooms++;
		return GMS_EOOM;
	}
	if (should_split(b, size)) {
		rest = block_new(c);
		rest->addr = b->addr + size;
		rest->size = b->size - size;
		rest->stream = stream;
		rest->seg = b->seg;
		rest->prev = b;
		rest->next = b->next;
		if (b->next != NULL)
			b->next->prev = rest;
		b->next = rest;
		b->size = size;
		free_insert(c, rest);
	}
	b->allocated = 1;
	b->requested = request;
	c->allocated += b->size;
	*handle = b;
	*block = b->size;
	return 0;
}

/* Merge src, a free neighbour of dst, into dst (try_merge_blocks). */
static void
merge(struct caching *c, struct cblock *dst, struct cblock *src)
{
	free_remove(c, src);
	if (src == dst->prev) {
		dst->addr = src->addr;
		dst->prev = src->prev;
		if (src->prev != NULL)
			src->prev->next = dst;
		else
			dst->seg->head = dst;
	} else {
		dst->next = src->next;
		if (src->next != NULL)
			src->next->prev = dst;
	}
	dst->size += src->size;
	block_put(c, src);
}

static void
caching_free(void *state, void *handle)
{
	struct caching *c = state;
	struct cblock *b = handle;

	GMS_ASSERT(b->allocated);
	b->allocated = 0;
	b->requested = 0;
	c->allocated -= b->size;
	if (b->prev != NULL && !b->prev->allocated)
		merge(c, b, b->prev);
	if (b->next != NULL && !b->next->allocated)
		merge(c, b, b->next);
	free_insert(c, b);
}

static uint64_t
caching_addr(void *state, void *handle)
{
	return ((struct cblock *)handle)->addr;
}

static void
caching_stats(void *state, struct policy_stats *st)
{
	struct caching *c = state;
	struct cblock *b;
	int pool;

	memset(st, 0, sizeof(*st));
	st->allocated = c->allocated;
	st->cached_free = c->cached_free;
	st->alloc_retries = c->alloc_retries;
	st->ooms = c->ooms;
	for (pool = 0; pool < 2; pool++)
		RB_FOREACH(b, free_tree, &c->pools[pool])
			st->largest_free = GMS_MAX(st->largest_free, b->size);
}

static void
caching_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	struct caching *c = state;
	struct policy_walk_segment ws;
	struct policy_walk_block wb;
	struct cseg *s;
	struct cblock *b;

	RB_FOREACH(s, seg_tree, &c->segs) {
		ws.addr = s->addr;
		ws.size = s->size;
		ws.stream = s->stream;
		ws.pool = s->small ? "small" : "large";
		if (segfn != NULL)
			segfn(arg, &ws);
		if (blkfn == NULL)
			continue;
		for (b = s->head; b != NULL; b = b->next) {
			wb.addr = b->addr;
			wb.size = b->size;
			wb.requested = b->requested;
			wb.allocated = b->allocated;
			blkfn(arg, &wb);
		}
	}
}

static int
caching_check(void *state, char **cause)
{
	struct caching *c = state;
	uint64_t allocated = 0, cached = 0, in_trees = 0, free_blocks = 0, end;
	struct cseg *s;
	struct cblock *b, *found;
	int pool;

	RB_FOREACH(s, seg_tree, &c->segs) {
		if (s->head == NULL || s->head->prev != NULL || s->head->addr != s->addr)
			return gms_fail(cause, -1, "segment %#llx: bad head block",
			    (unsigned long long)s->addr);
		end = s->addr;
		for (b = s->head; b != NULL; b = b->next) {
			if (b->addr != end || b->seg != s || b->size == 0 ||
			    (b->next != NULL && b->next->prev != b))
				return gms_fail(cause, -1, "segment %#llx: blocks not contiguous at %#llx",
				    (unsigned long long)s->addr, (unsigned long long)b->addr);
			if (b->stream != s->stream)
				return gms_fail(cause, -1, "block %#llx: stream differs from its segment",
				    (unsigned long long)b->addr);
			end += b->size;
			if (b->allocated) {
				allocated += b->size;
				continue;
			}
			free_blocks++;
			cached += b->size;
			if (b->next != NULL && !b->next->allocated)
				return gms_fail(cause, -1, "block %#llx: two adjacent free blocks",
				    (unsigned long long)b->addr);
			found = RB_FIND(free_tree, &c->pools[s->small], b);
			if (found != b)
				return gms_fail(cause, -1, "free block %#llx missing from its pool",
				    (unsigned long long)b->addr);
		}
		if (end != s->addr + s->size)
			return gms_fail(cause, -1, "segment %#llx: blocks cover %llu of %llu bytes",
			    (unsigned long long)s->addr, (unsigned long long)(end - s->addr),
			    (unsigned long long)s->size);
	}
	for (pool = 0; pool < 2; pool++)
		RB_FOREACH(b, free_tree, &c->pools[pool]) {
			if (b->allocated || b->seg->small != pool)
				return gms_fail(cause, -1, "block %#llx in the wrong free tree",
				    (unsigned long long)b->addr);
			in_trees++;
		}
	if (in_trees != free_blocks)
		return gms_fail(cause, -1, "%llu blocks in free trees, %llu free blocks in segments",
		    (unsigned long long)in_trees, (unsigned long long)free_blocks);
	if (allocated != c->allocated || cached != c->cached_free)
		return gms_fail(cause, -1, "byte counts disagree: allocated %llu/%llu, cached %llu/%llu",
		    (unsigned long long)allocated, (unsigned long long)c->allocated,
		    (unsigned long long)cached, (unsigned long long)c->cached_free);
	if (allocated + cached != c->dev->c.reserved)
		return gms_fail(cause, -1, "segments hold %llu bytes, the device reserved %llu",
		    (unsigned long long)(allocated + cached), (unsigned long long)c->dev->c.reserved);
	return 0;
}

static void
caching_destroy(void *state)
{
	struct caching *c = state;
	struct cseg *s, *snext;

	for (s = RB_MIN(seg_tree, &c->segs); s != NULL; s = snext) {
		snext = RB_NEXT(seg_tree, &c->segs, s);
		RB_REMOVE(seg_tree, &c->segs, s);
		free(s);
	}
	objpool_destroy(&c->blocks);
	free(c);
}

static int
caching_create(const struct policy_args *args, struct device *dev, void **state,
    char **cause)
{
	struct caching *c;

	c = gms_calloc(1, sizeof(*c));
	c->dev = dev;
	sc_caching_defaults(&c->sc);
	objpool_init(&c->blocks, sizeof(struct cblock), 1024);
	RB_INIT(&c->pools[0]);
	RB_INIT(&c->pools[1]);
	RB_INIT(&c->segs);
	*state = c;
	return 0;
}

static const struct policy_option caching_options[] = {
	{ NULL, NULL, NULL },
};

const struct policy_ops policy_caching = {
	.name = "caching",
	.models = "PyTorch's native CUDA caching allocator (default PYTORCH_CUDA_ALLOC_CONF)",
	.options = caching_options,
	.create = caching_create,
	.alloc = caching_alloc,
	.free = caching_free,
	.addr = caching_addr,
	.stats = caching_stats,
	.walk = caching_walk,
	.check = caching_check,
	.destroy = caching_destroy,
};
