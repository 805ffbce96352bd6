/*
 * policy-caching.c - PyTorch's native CUDA caching allocator
 * (DeviceCachingAllocator, PyTorch 2.9-2.11), byte-exact, following
 * PyTorch's c10/cuda/CUDACachingAllocator.cpp:
 *
 *  - requests are rounded (sizeclass.h) and served from a small pool
 *    (<= 1 MiB, 2 MiB segments) or a large pool (20 MiB segments below 10 MiB,
 *    else the size rounded to 2 MiB);
 *  - each pool keeps its free blocks ordered by (stream, size, address)
 *    (freebins.h); a lookup takes the single best fit on the request's
 *    stream, lowest address on ties, so a freed block is reused only on its
 *    own stream;
 *  - the allocated part of a split block is its low end; small-pool blocks
 *    split when >= 512 bytes remain, large-pool blocks when > 1 MiB remains;
 *  - a freed block merges with free physical neighbours; memory goes back to
 *    the device only when a new segment does not fit under the capacity
 *    (reserved + segment > limit): oversize blocks first (with
 *    max_split_size_mb), then every free unsplit segment, and one retry
 *    (counted), else the request is out of memory.
 *
 * Settings (PYTORCH_CUDA_ALLOC_CONF syntax, allocconf.h), option alloc_conf:
 *   max_split_size_mb           oversize blocks are never split, reused only
 *                               within max_non_split_rounding of the request
 *   roundup_power2_divisions    rounding in equal steps between powers of two
 *   garbage_collection_threshold  under a capacity, before growing past
 *                               threshold x capacity, free unsplit cached
 *                               large blocks at least as old (in lookups) as
 *                               the average, until under it
 *   expandable_segments:True    one growing virtual range per stream and pool,
 *                               mapped in 2 MiB (small) or 20 MiB (large) pages,
 *                               unmapped page-wise on release
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/sys/tree.h>

#include "sim/allocconf.h"
#include "sim/device.h"
#include "sim/freebins.h"
#include "sim/gms.h"
#include "sim/objpool.h"
#include "sim/policy.h"
#include "sim/sizeclass.h"
#include "traces/trace.h"

/* A remainder above this is split off a large-pool block (strictly above). */
#define LARGE_SPLIT_REMAINDER GMS_MiB
/* The device memory an expandable segment's address range is sized for when the
   trace does not say (PyTorch reserves 1 1/8 of the GPU's memory). */
#define DEFAULT_DEVICE_TOTAL ((uint64_t)80 << 30)

/*
 * The state's invariants, which caching_check() asserts one by one (after
 * every event under --enable-debug or run --check):
 *  I1  a segment's blocks tile it: its head block starts at its address,
 *      each block starts where its physical predecessor ends (prev and next
 *      agree), none is empty, and together they cover the segment exactly;
 *  I2  a block's segment and stream are the segment's it lies in;
 *  I3  an unmapped block (expandable segments only) is free, page-aligned
 *      in offset and size, and filed in its pool's unmapped tree;
 *  I4  no two mapped free blocks are physical neighbours (a free merges);
 *  I5  every mapped free block is filed in its own pool's free bins under
 *      its (stream, size, address), and the bins hold nothing else: as many
 *      free blocks in the bins as in the segments, as many unmapped ranges
 *      in the trees as in the segments;
 *  I6  allocated is the bytes of allocated blocks, cached_free the bytes of
 *      mapped free blocks, and together they are what the device reserved.
 */
struct cseg;

struct cblock {
	uint64_t addr, size;
	uint64_t requested;	/* the request this block serves; 0 when free */
	int64_t stream;
	struct cblock *prev, *next;	/* physical neighbours in the segment */
	struct cseg *seg;
	int allocated;
	int mapped;		/* always 1 outside expandable segments */
	int64_t gc_base;	/* the pool's lookup count when it was last cached */
	struct fb_node fb;	/* in its pool's free blocks (mapped) */
	RB_ENTRY(cblock) link;	/* in its pool's unmapped tree */
};

#define CBLOCK(n) ((struct cblock *)((char *)(n) - offsetof(struct cblock, fb)))

/* The block filed at n, or NULL. */
static struct cblock *
fb_block(struct fb_node *n)
{
	return n != NULL ? CBLOCK(n) : NULL;
}

/* A cudaMalloc'd segment, or an expandable segment's whole address range. */
struct cseg {
	uint64_t addr, size;
	int64_t stream;
	int small;
	int expandable;
	uint64_t page;		/* expandable: the mapping granularity */
	uint64_t rec_addr;	/* adopted: where the recording had it */
	int adopted;		/* there before the trace began (adopt_segment) */
	struct cblock *head;	/* the block at addr */
	RB_ENTRY(cseg) link;
};

static int
cblock_addr_cmp(const struct cblock *a, const struct cblock *b)
{
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int
cseg_cmp(const struct cseg *a, const struct cseg *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(unmapped_tree, cblock);
RB_PROTOTYPE(unmapped_tree, cblock, link, cblock_addr_cmp)
RB_GENERATE(unmapped_tree, cblock, link, cblock_addr_cmp)
RB_HEAD(seg_tree, cseg);
RB_PROTOTYPE(seg_tree, cseg, link, cseg_cmp)
RB_GENERATE(seg_tree, cseg, link, cseg_cmp)

struct pool {
	struct freebins blocks;		/* free mapped blocks */
	struct unmapped_tree unmapped;	/* unmapped ranges of expandable segments */
	int small;
	int64_t lookups;		/* get_free_block calls while GC is on */
};

struct caching {
	struct device *dev;		/* every segment's reserve and release */
	struct alloc_conf conf;		/* fixed from create on */
	uint64_t capacity;		/* 0: no limit; else reserved never passes it
					   (a segment that would is refused first) */
	uint64_t device_total;		/* sizes expandable address ranges */
	struct pool pools[2];		/* [0] large, [1] small: each segment's blocks
					   are filed in its own pool alone (I5) */
	struct seg_tree segs;		/* every segment held, by address: the device's
					   reservations, one each */
	uint64_t allocated;		/* bytes of allocated blocks (I6) */
	uint64_t cached_free;		/* bytes of mapped free blocks; with allocated,
					   what the device reserved (I6) */
	uint64_t alloc_retries, ooms;	/* only ever grow */
	uint64_t peak_asked;		/* policy_stats: >= every reserved + asked */
	uint64_t largest;		/* policy_stats.largest_size: the largest segment
					   so far, never less than any block */
	struct objpool blocks;		/* struct cblock: no malloc per request */
	struct cseg **adopted;		/* adopted segments still held, sorted by
					   rec_addr, each also in segs */
	size_t nadopted;
};

static int
gc_on(const struct caching *c)
{
	return c->capacity != 0 && c->conf.gc_threshold > 0;
}

static struct cblock *
block_new(struct caching *c, const struct cblock *like, uint64_t addr, uint64_t size)
{
	struct cblock *b = objpool_get(&c->blocks);

	b->addr = addr;
	b->size = size;
	b->stream = like->stream;
	b->seg = like->seg;
	b->mapped = 1;
	return b;
}

/* insert_into_blocks(): cached again, so its age starts over. */
static void
free_insert(struct caching *c, struct cblock *b)
{
	struct pool *p = &c->pools[b->seg->small];

	GMS_ASSERT(!b->allocated && b->mapped);
	b->gc_base = p->lookups;
	fb_insert(&p->blocks, &b->fb, b->stream, b->size, b->addr);
	c->cached_free += b->size;
}

static void
free_remove(struct caching *c, struct cblock *b)
{
	fb_remove(&c->pools[b->seg->small].blocks, &b->fb);
	c->cached_free -= b->size;
}

/* The free block after b in its pool's order (all streams), or NULL. */
static struct cblock *
free_next(const struct pool *p, const struct cblock *b)
{
	return fb_block(fb_next(&p->blocks, &b->fb));
}

static struct cblock *
free_prev(const struct pool *p, const struct cblock *b)
{
	return fb_block(fb_prev(&p->blocks, &b->fb));
}

static int
is_split(const struct cblock *b)
{
	return b->prev != NULL || b->next != NULL;
}

/* Blocks are linked in address order; splice b between before and after. */
static void
splice(struct cblock *b, struct cblock *before, struct cblock *after)
{
	if (before != NULL)
		before->next = b;
	b->prev = before;
	if (after != NULL)
		after->prev = b;
	b->next = after;
}

/*
 * try_merge_blocks(): fold src, a neighbour of dst, into dst when it is free
 * and in the same mapped state.  Returns whether it did.
 */
static int
try_merge(struct caching *c, struct cblock *dst, struct cblock *src)
{
	if (src == NULL || src->allocated || src->mapped != dst->mapped)
		return 0;
	if (src->mapped)
		free_remove(c, src);
	else
		RB_REMOVE(unmapped_tree, &c->pools[src->seg->small].unmapped, src);
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
	objpool_put(&c->blocks, src);
	return 1;
}

static uint64_t
expandable_size(const struct cblock *b)
{
	return b->size + (b->next != NULL && !b->next->mapped ? b->next->size : 0);
}

/* get_free_block(): the single best fit on the stream, or NULL. */
static struct cblock *
get_free_block(struct caching *c, int small, int64_t stream, uint64_t size)
{
	struct pool *p = &c->pools[small];
	struct cblock *b, *n;

	if (gc_on(c))
		p->lookups++;
	b = fb_block(fb_ceil(&p->blocks, stream, size, 0));
	if (b == NULL || b->stream != stream)
		return NULL;
	if (b->seg->expandable) {
		if (c->conf.expandable) {
			/* Best fit counts what a block can grow into: skip ahead while a
			   larger candidate would grow less. */
			while (b->seg->expandable && (n = free_next(p, b)) != NULL &&
			    n->stream == stream && expandable_size(n) < expandable_size(b))
				b = n;
		} else {
			do
				b = free_next(p, b);
			while (b != NULL && b->seg->expandable && b->stream == stream);
			if (b == NULL || b->stream != stream)
				return NULL;
		}
	}
	/* no oversize block for a normal request; oversize ones only within the slack */
	if (size < c->conf.max_split && b->size >= c->conf.max_split)
		return NULL;
	if (size >= c->conf.max_split && b->size >= size + c->conf.max_non_split_rounding)
		return NULL;
	free_remove(c, b);
	return b;
}

static struct cseg *
seg_new(struct caching *c, uint64_t addr, uint64_t size, int64_t stream, int small)
{
	struct cseg *s = gms_calloc(1, sizeof(*s));

	s->addr = addr;
	s->size = size;
	s->stream = stream;
	s->small = small;
	RB_INSERT(seg_tree, &c->segs, s);
	return s;
}

static void
seg_free(struct caching *c, struct cseg *s)
{
	size_t i;

	for (i = 0; s->adopted && i < c->nadopted; i++)
		if (c->adopted[i] == s) {
			memmove(&c->adopted[i], &c->adopted[i + 1],
			    (c->nadopted - i - 1) * sizeof(*c->adopted));
			c->nadopted--;
			break;
		}
	RB_REMOVE(seg_tree, &c->segs, s);
	free(s);
}

/* release_block(): a whole cudaMalloc'd segment back to the device. */
static void
release_block(struct caching *c, struct cblock *b)
{
	struct cseg *s = b->seg;

	free_remove(c, b);
	device_release(c->dev, s->addr, s->size);
	seg_free(c, s);
	objpool_put(&c->blocks, b);
}

/* --- expandable segments ------------------------------------------------- */

/* map_block(): back [to_map, to_map + size) with whole pages; merge; cache. */
static int
map_block(struct caching *c, struct cblock *to_map, uint64_t size)
{
	struct cseg *s = to_map->seg;
	struct pool *p = &c->pools[s->small];
	uint64_t begin = (to_map->addr - s->addr) / s->page;
	uint64_t end = (to_map->addr + size - s->addr + s->page - 1) / s->page;
	uint64_t mapped = (end - begin) * s->page;
	struct cblock *rest;

	GMS_ASSERT(!to_map->mapped && size <= to_map->size && s->addr + begin * s->page == to_map->addr);
	if (device_map(c->dev, to_map->addr, mapped) < 0)
		return 0;
	RB_REMOVE(unmapped_tree, &p->unmapped, to_map);
	to_map->mapped = 1;
	if (mapped < to_map->size) {
		rest = block_new(c, to_map, to_map->addr + mapped, to_map->size - mapped);
		rest->mapped = 0;
		splice(rest, to_map, to_map->next);
		RB_INSERT(unmapped_tree, &p->unmapped, rest);
		to_map->size = mapped;
	}
	try_merge(c, to_map, to_map->prev);
	try_merge(c, to_map, to_map->next);
	free_insert(c, to_map);
	return 1;
}

static int
allocatable(const struct cblock *b)
{
	return b != NULL && !b->allocated;
}

static int
has_room(const struct cblock *b, uint64_t size)
{
	uint64_t bytes = 0;

	for (; bytes < size && allocatable(b); b = b->next)
		bytes += b->size;
	return bytes >= size;
}

/*
 * find_expandable_block(): the lowest address, in this stream's expandable
 * segments, where free and unmapped space together hold size bytes; else a
 * new expandable segment (an address range, nothing mapped).
 */
static struct cblock *
find_expandable_block(struct caching *c, int small, int64_t stream, uint64_t size)
{
	struct pool *p = &c->pools[small];
	struct cblock key = { .stream = stream, .addr = 0 }, *u, *cand;
	uint64_t page = small ? SC_SMALL_BUFFER : c->conf.sc.large_segment;
	uint64_t total = c->device_total ? c->device_total : DEFAULT_DEVICE_TOTAL;
	uint64_t pages = (total + total / 8 + page - 1) / page, addr;
	struct cseg *s;

	for (u = RB_NFIND(unmapped_tree, &p->unmapped, &key); u != NULL && u->stream == stream;
	    u = RB_NEXT(unmapped_tree, &p->unmapped, u)) {
		cand = allocatable(u->prev) ? u->prev : u;
		if (has_room(cand, size))
			return cand;
	}
	/* One segment spans the device's memory and then some: a larger request cannot be mapped. */
	if (size > pages * page)
		return NULL;
	if (device_reserve_va(c->dev, pages * page, &addr) < 0)
		return NULL;
	s = seg_new(c, addr, pages * page, stream, small);
	s->expandable = 1;
	s->page = page;
	cand = objpool_get(&c->blocks);
	cand->addr = addr;
	cand->size = pages * page;
	cand->stream = stream;
	cand->seg = s;
	s->head = cand;
	RB_INSERT(unmapped_tree, &p->unmapped, cand);
	return cand;
}

/* try_allocate_expandable_block(): map pages until a free block holds size. */
static struct cblock *
try_allocate_expandable(struct caching *c, int small, int64_t stream, uint64_t size)
{
	struct cblock *cand = find_expandable_block(c, small, stream, size), *next;

	if (cand == NULL)
		return NULL;
	if (!cand->mapped && !map_block(c, cand, GMS_MIN(cand->size, size)))
		return NULL;
	while (cand->size < size) {
		/* free (mapped) -> unmapped: mapping merges the two into next */
		next = cand->next;
		if (!map_block(c, next, GMS_MIN(size - cand->size, next->size)))
			return NULL;
		cand = next;
	}
	free_remove(c, cand);
	return cand;
}

/* unmap_block(): give back the whole pages inside a free expandable block. */
static void
unmap_block(struct caching *c, struct cblock *b)
{
	struct cseg *s = b->seg;
	struct pool *p = &c->pools[s->small];
	uint64_t begin = (b->addr - s->addr + s->page - 1) / s->page;
	uint64_t end = (b->addr + b->size - s->addr) / s->page;
	uint64_t start = s->addr + begin * s->page, len, before, after;
	struct cblock *nb;

	if (begin >= end)
		return;
	len = (end - begin) * s->page;
	free_remove(c, b);
	before = start - b->addr;
	after = b->size - before - len;
	if (before > 0) {
		nb = block_new(c, b, b->addr, before);
		splice(nb, b->prev, b);
		if (nb->prev == NULL)
			s->head = nb;
		free_insert(c, nb);
	}
	if (after > 0) {
		nb = block_new(c, b, start + len, after);
		splice(nb, b, b->next);
		free_insert(c, nb);
	}
	b->addr = start;
	b->size = len;
	b->mapped = 0;
	try_merge(c, b, b->prev);
	try_merge(c, b, b->next);
	RB_INSERT(unmapped_tree, &p->unmapped, b);
	device_unmap(c->dev, start, len);
}

/* An expandable segment with nothing mapped: its address range goes back. */
static void
release_expandable_segment(struct caching *c, struct cblock *b)
{
	struct cseg *s = b->seg;

	RB_REMOVE(unmapped_tree, &c->pools[s->small].unmapped, b);
	device_release_va(c->dev, s->addr, s->size);
	seg_free(c, s);
	objpool_put(&c->blocks, b);
}

/* --- memory back to the device ------------------------------------------- */

/*
 * A block of a CUDA graph's private pool (trace.h): the graph may replay
 * into it at any time, so PyTorch frees none of its memory while the graph
 * lives (release_cached_blocks frees only pools whose graphs are gone, and
 * garbage collection looks at the ordinary pool alone).  A trace says when
 * a pool's graph is gone nowhere, so private pools are kept to the end.
 */
static int
private_pool(const struct cblock *b)
{
	return trace_stream_pool(b->stream) > 0;
}

/* release_blocks(): every unsplit segment back; expandable ones unmapped. */
static void
release_blocks(struct caching *c, struct pool *p)
{
	struct cblock *b, *next, **to_unmap = NULL;
	size_t n = 0, cap = 0, i;

	for (b = fb_block(fb_first(&p->blocks)); b != NULL; b = next) {
		next = free_next(p, b);
		if (private_pool(b))
			continue;
		if (b->seg->expandable) {
			if (n == cap)
				to_unmap = gms_realloc(to_unmap, (cap = cap ? cap * 2 : 16) * sizeof(*to_unmap));
			to_unmap[n++] = b;
		} else if (!is_split(b)) {
			release_block(c, b);
		}
	}
	for (i = 0; i < n; i++) {
		b = to_unmap[i];
		unmap_block(c, b);
		if (!b->mapped && !is_split(b))
			release_expandable_segment(c, b);
	}
	free(to_unmap);
}

/* release_cached_blocks(): empty_cache(), large pool first. */
static void
release_cached_blocks(struct caching *c)
{
	release_blocks(c, &c->pools[0]);
	release_blocks(c, &c->pools[1]);
}

static int
releasable(const struct caching *c, const struct cblock *b)
{
	return !b->seg->expandable && !is_split(b);
}

/*
 * release_available_cached_blocks(): with max_split_size set, free one
 * oversize block big enough, or oversize blocks from the largest down until
 * enough is freed (those stay freed even when it is not enough).
 */
static int
release_available_cached_blocks(struct caching *c, int small, int64_t stream, uint64_t size)
{
	struct pool *p = &c->pools[small];
	uint64_t want = GMS_MAX(size, c->conf.max_split), released = 0;
	struct cblock *b, *prev;

	if (c->conf.max_split == SC_UNLIMITED)
		return 0;
	b = fb_block(fb_ceil(&p->blocks, stream, want, 0));
	if (b != NULL && b->stream == stream) {
		if (!releasable(c, b))
			return 0;
		release_block(c, b);
		return 1;
	}
	/* none that large: from the stream's largest down */
	b = fb_block(fb_last(&p->blocks, stream));
	while (b != NULL && released < want && b->size >= c->conf.max_split &&
	    b->stream == stream && releasable(c, b)) {
		prev = free_prev(p, b);
		released += b->size;
		release_block(c, b);
		b = prev;
	}
	return released >= want;
}

/* garbage_collect_cached_blocks(): see the top of the file. */
static void
garbage_collect(struct caching *c)
{
	struct pool *p = &c->pools[0];
	uint64_t threshold = (uint64_t)(c->conf.gc_threshold * (double)c->capacity);
	uint64_t reserved = c->dev->c.reserved, target, reclaimed = 0, total_age = 0, age;
	struct cblock *b, *next;
	int64_t count = 0;
	int freed = 1;
	double avg;

	if (reserved <= threshold)
		return;
	target = reserved - threshold;
	for (b = fb_block(fb_first(&p->blocks)); b != NULL; b = free_next(p, b))
		if (releasable(c, b) && !private_pool(b)) {
			total_age += (uint64_t)(int)(p->lookups - b->gc_base);
			count++;
		}
	while (reclaimed < target && freed && count > 0) {
		avg = (double)total_age / (double)count;
		freed = 0;
		for (b = fb_block(fb_first(&p->blocks)); b != NULL; b = next) {
			next = free_next(p, b);
			age = (uint64_t)(int)(p->lookups - b->gc_base);
			if (releasable(c, b) && !private_pool(b) && (double)age >= avg) {
				freed = 1;
				reclaimed += b->size;
				total_age -= age;
				count--;
				release_block(c, b);
			}
		}
	}
}

/* A segment just reserved at addr, as one block (not yet filed as free). */
static struct cblock *
whole_segment(struct caching *c, uint64_t addr, uint64_t size, int64_t stream, int small)
{
	struct cseg *s = seg_new(c, addr, size, stream, small);
	struct cblock *b = objpool_get(&c->blocks);

	c->largest = GMS_MAX(c->largest, s->size);

	b->addr = addr;
	b->size = size;
	b->stream = stream;
	b->seg = s;
	b->mapped = 1;
	s->head = b;
	return b;
}

/* alloc_block(): a new segment (or pages of an expandable one) under the limit. */
static struct cblock *
alloc_block(struct caching *c, int small, int64_t stream, uint64_t size, uint64_t seg_size,
    int retry)
{
	uint64_t addr;

	if (retry)
		c->alloc_retries++;
	/* the check is PyTorch's, on the whole segment even where pages are mapped */
	c->peak_asked = GMS_MAX(c->peak_asked, c->dev->c.reserved + seg_size);
	if (c->capacity != 0 && c->dev->c.reserved + seg_size > c->capacity)
		return NULL;
	if (c->conf.expandable)
		return try_allocate_expandable(c, small, stream, size);
	if (device_reserve(c->dev, seg_size, &addr) < 0)
		return NULL;
	return whole_segment(c, addr, seg_size, stream, small);
}

static int
should_split(const struct caching *c, const struct cblock *b, uint64_t size)
{
	uint64_t rem = b->size - size;

	if (b->seg->small || c->conf.expandable)
		return rem >= SC_MIN_BLOCK;
	return size < c->conf.max_split && rem > LARGE_SPLIT_REMAINDER;
}

static int
caching_alloc(void *state, uint64_t request, int64_t stream, void **handle, uint64_t *block)
{
	struct caching *c = state;
	struct cblock *b, *rest;
	uint64_t size = sc_caching_round(&c->conf.sc, request);
	uint64_t seg_size = sc_caching_segment(&c->conf.sc, size);
	int small = sc_caching_is_small(size);

	b = get_free_block(c, small, stream, size);
	if (b == NULL) {
		if (gc_on(c))
			garbage_collect(c);
		b = alloc_block(c, small, stream, size, seg_size, 0);
		if (b == NULL && release_available_cached_blocks(c, small, stream, size))
			b = alloc_block(c, small, stream, size, seg_size, 0);
		if (b == NULL) {
			release_cached_blocks(c);
			b = alloc_block(c, small, stream, size, seg_size, 1);
		}
	}
	if (b == NULL) {
		c->ooms++;
		return GMS_EOOM;
	}
	if (should_split(c, b, size)) {
		rest = block_new(c, b, b->addr + size, b->size - size);
		splice(rest, b, b->next);
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

/* --- a trace that starts mid-run: what was there before it ----------------- */

/*
 * A segment the recording held before the trace began: reserved from the
 * device (its address is the device's choice; rec_addr is the recording's),
 * one free block, filed for reuse like any other.
 */
static int
caching_adopt_segment(void *state, uint64_t rec_addr, uint64_t size, int64_t stream)
{
	struct caching *c = state;
	struct cblock *b;
	struct cseg *s;
	uint64_t addr;
	size_t i;

	if (size == 0 || size % SC_MIN_BLOCK != 0)
		return 0;	/* not a segment PyTorch makes: its blocks go the usual way */
	if (c->capacity != 0 && c->dev->c.reserved + size > c->capacity)
		return GMS_EOOM;
	if (device_reserve(c->dev, size, &addr) < 0)
		return GMS_EOOM;
	b = whole_segment(c, addr, size, stream, size == SC_SMALL_BUFFER);
	s = b->seg;
	s->adopted = 1;
	s->rec_addr = rec_addr;
	free_insert(c, b);
	c->adopted = gms_realloc(c->adopted, (c->nadopted + 1) * sizeof(*c->adopted));
	for (i = c->nadopted; i > 0 && c->adopted[i - 1]->rec_addr > rec_addr; i--)
		c->adopted[i] = c->adopted[i - 1];
	c->adopted[i] = s;
	c->nadopted++;
	return 0;
}

/* The adopted segment whose recorded range holds rec, or NULL. */
static struct cseg *
adopted_at(const struct caching *c, uint64_t rec)
{
	size_t lo = 0, hi = c->nadopted, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->adopted[mid]->rec_addr <= rec)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || rec - c->adopted[lo - 1]->rec_addr >= c->adopted[lo - 1]->size)
		return NULL;
	return c->adopted[lo - 1];
}

/*
 * A block live before the trace, carved out of its adopted segment at the
 * offset the recording had it at, so that the segment's free space is what
 * it was.  1 when no adopted segment has it free there (the caller then
 * allocates it as usual).
 */
static int
caching_alloc_at(void *state, uint64_t request, int64_t stream, uint64_t rec, void **handle,
    uint64_t *block)
{
	struct caching *c = state;
	struct cseg *s = adopted_at(c, rec);
	struct cblock *b, *nb;
	uint64_t size = sc_caching_round(&c->conf.sc, request), at;

	(void)stream;	/* the segment's: a block lives on its segment's stream */
	if (s == NULL || s->expandable)
		return 1;
	at = s->addr + (rec - s->rec_addr);
	for (b = s->head; b != NULL && b->addr + b->size <= at; b = b->next)
		;
	if (b == NULL || b->allocated || !b->mapped || at + size > b->addr + b->size)
		return 1;
	free_remove(c, b);
	if (at > b->addr) {
		nb = block_new(c, b, b->addr, at - b->addr);
		splice(nb, b->prev, b);
		if (nb->prev == NULL)
			s->head = nb;
		free_insert(c, nb);
		b->size -= nb->size;
		b->addr = at;
	}
	if (b->size > size) {
		nb = block_new(c, b, at + size, b->size - size);
		splice(nb, b, b->next);
		free_insert(c, nb);
		b->size = size;
	}
	b->allocated = 1;
	b->requested = request;
	c->allocated += b->size;
	*handle = b;
	*block = b->size;
	return 0;
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
	try_merge(c, b, b->prev);
	try_merge(c, b, b->next);
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
	st->limit = c->conf.has_memory_fraction ? c->capacity : 0;
	st->peak_asked = c->peak_asked;
	/* an expandable segment's blocks grow with its pages: not followed */
	st->largest_size = c->conf.expandable ? UINT64_MAX : c->largest;
	for (pool = 0; pool < 2; pool++)
		for (b = fb_block(fb_first(&c->pools[pool].blocks)); b != NULL;
		    b = free_next(&c->pools[pool], b))
			st->largest_free = GMS_MAX(st->largest_free, b->size);
}

/* Report a segment and its blocks; expandable ones as their mapped runs. */
static void
caching_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	struct caching *c = state;
	struct policy_walk_segment ws;
	struct policy_walk_block wb;
	struct cseg *s;
	struct cblock *b, *run;

	RB_FOREACH(s, seg_tree, &c->segs) {
		for (run = s->head; run != NULL; ) {
			if (!run->mapped) {
				run = run->next;
				continue;
			}
			ws.addr = run->addr;
			ws.size = 0;
			for (b = run; b != NULL && b->mapped; b = b->next)
				ws.size += b->size;
			ws.stream = s->stream;
			ws.pool = s->expandable ? (s->small ? "small expandable" : "large expandable") :
			    (s->small ? "small" : "large");
			if (segfn != NULL)
				segfn(arg, &ws);
			for (b = run; b != NULL && b->mapped; b = b->next) {
				wb.addr = b->addr;
				wb.size = b->size;
				wb.requested = b->requested;
				wb.allocated = b->allocated;
				if (blkfn != NULL)
					blkfn(arg, &wb);
			}
			run = b;
		}
	}
}

/* The invariants above the structures, I1 to I6, each where it is checked. */
static int
caching_check(void *state, char **cause)
{
	struct caching *c = state;
	uint64_t allocated = 0, cached = 0, in_trees = 0, free_blocks = 0, unmapped = 0;
	uint64_t in_unmapped = 0, end;
	struct cseg *s;
	struct cblock *b;
	int pool;

	RB_FOREACH(s, seg_tree, &c->segs) {
		if (s->head == NULL || s->head->prev != NULL || s->head->addr != s->addr)	/* I1 */
			return gms_fail(cause, -1, "segment %#llx: bad head block",
			    (unsigned long long)s->addr);
		end = s->addr;
		for (b = s->head; b != NULL; b = b->next) {
			if (b->addr != end || b->seg != s || b->size == 0 ||	/* I1, I2 */
			    (b->next != NULL && b->next->prev != b))
				return gms_fail(cause, -1, "segment %#llx: blocks not contiguous at %#llx",
				    (unsigned long long)s->addr, (unsigned long long)b->addr);
			if (b->stream != s->stream)	/* I2 */
				return gms_fail(cause, -1, "block %#llx: stream differs from its segment",
				    (unsigned long long)b->addr);
			end += b->size;
			if (!b->mapped) {	/* I3 */
				if (b->allocated || !s->expandable ||
				    (b->addr - s->addr) % s->page != 0 || b->size % s->page != 0)
					return gms_fail(cause, -1, "block %#llx: a bad unmapped range",
					    (unsigned long long)b->addr);
				if (RB_FIND(unmapped_tree, &c->pools[s->small].unmapped, b) != b)
					return gms_fail(cause, -1, "unmapped range %#llx not in its pool",
					    (unsigned long long)b->addr);
				unmapped++;
				continue;
			}
			if (b->allocated) {
				allocated += b->size;
				continue;
			}
			free_blocks++;
			cached += b->size;
			if (b->next != NULL && !b->next->allocated && b->next->mapped)	/* I4 */
				return gms_fail(cause, -1, "block %#llx: two adjacent free blocks",
				    (unsigned long long)b->addr);
			if (b->fb.stream != b->stream || b->fb.size != b->size ||	/* I5 */
			    b->fb.addr != b->addr || !fb_contains(&c->pools[s->small].blocks, &b->fb))
				return gms_fail(cause, -1, "free block %#llx missing from its pool",
				    (unsigned long long)b->addr);
		}
		if (end != s->addr + s->size)	/* I1 */
			return gms_fail(cause, -1, "segment %#llx: blocks cover %llu of %llu bytes",
			    (unsigned long long)s->addr, (unsigned long long)(end - s->addr),
			    (unsigned long long)s->size);
	}
	for (pool = 0; pool < 2; pool++) {
		for (b = fb_block(fb_first(&c->pools[pool].blocks)); b != NULL;
		    b = free_next(&c->pools[pool], b)) {
			if (b->allocated || !b->mapped || b->seg->small != pool)	/* I5 */
				return gms_fail(cause, -1, "block %#llx in the wrong free tree",
				    (unsigned long long)b->addr);
			in_trees++;
		}
		RB_FOREACH(b, unmapped_tree, &c->pools[pool].unmapped)
			in_unmapped++;
	}
	if (in_trees != free_blocks || in_unmapped != unmapped)	/* I5 */
		return gms_fail(cause, -1, "%llu blocks in free trees, %llu free blocks in segments",
		    (unsigned long long)in_trees, (unsigned long long)free_blocks);
	if (allocated != c->allocated || cached != c->cached_free)	/* I6 */
		return gms_fail(cause, -1, "byte counts disagree: allocated %llu/%llu, cached %llu/%llu",
		    (unsigned long long)allocated, (unsigned long long)c->allocated,
		    (unsigned long long)cached, (unsigned long long)c->cached_free);
	if (allocated + cached != c->dev->c.reserved)	/* I6 */
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
	fb_free(&c->pools[0].blocks);
	fb_free(&c->pools[1].blocks);
	objpool_destroy(&c->blocks);
	free(c->adopted);
	free(c);
}

static int
caching_create(const struct policy_args *args, struct device *dev, void **state,
    char **cause)
{
	const char *conf = policy_opt(args, "alloc_conf");
	struct caching *c = gms_calloc(1, sizeof(*c));
	char *why = NULL;
	int err;

	if ((err = alloc_conf_parse(conf ? conf : "", &c->conf, &why)) < 0) {
		gms_fail(cause, err, "caching: PYTORCH_CUDA_ALLOC_CONF %s", why);
		free(why);
		free(c);
		return err;
	}
	c->dev = dev;
	c->capacity = dev->capacity;
	c->device_total = args->device_total;
	if (c->conf.has_memory_fraction) {
		/* of the card the run is about: --gpu's, else the recording's, else the capacity */
		uint64_t allowed, total = args->gpu_total ? args->gpu_total : args->device_total ?
		    args->device_total : dev->capacity;

		if (total == 0) {
			gms_fail(cause, GMS_ECONFIG, "caching: per_process_memory_fraction is a "
			    "fraction of the device's memory, and the trace does not say how much "
			    "it has (give --gpu, or --capacity as the device's memory)");
			free(c);
			return GMS_ECONFIG;
		}
		/* PyTorch: allowed_memory_maximum = fraction * total, truncated */
		allowed = (uint64_t)(c->conf.memory_fraction * (double)total);
		/* capacity 0 means "no limit" here: a limit of 0 bytes is 1, which no segment fits */
		if (allowed == 0)
			allowed = 1;
		if (c->capacity == 0 || allowed < c->capacity)
			c->capacity = allowed;
	}
	fb_init(&c->pools[0].blocks);
	fb_init(&c->pools[1].blocks);
	RB_INIT(&c->pools[0].unmapped);
	RB_INIT(&c->pools[1].unmapped);
	c->pools[1].small = 1;
	RB_INIT(&c->segs);
	objpool_init(&c->blocks, sizeof(struct cblock), 1024);
	*state = c;
	return 0;
}

/*
 * The capacity is only checked (reserved + segment > capacity), so one never
 * reached changes nothing (peak is the most ever checked: with expandable
 * segments, more than was reserved), unless garbage_collection_threshold acts at a
 * share of it or per_process_memory_fraction sets a limit of its own.
 */
static int
caching_inert(const struct policy_args *args, uint64_t capacity, uint64_t peak)
{
	const char *text = policy_opt(args, "alloc_conf");
	struct alloc_conf conf;
	char *why = NULL;

	if (alloc_conf_parse(text ? text : "", &conf, &why) < 0) {
		free(why);
		return 0;
	}
	return capacity >= peak && conf.gc_threshold == 0 && !conf.has_memory_fraction;
}

/* Under caching_inert's conditions the limit is the capacity itself. */
static void
caching_set_capacity(void *state, const struct policy_args *args, uint64_t capacity)
{
	struct caching *c = state;

	(void)args;
	c->capacity = capacity;
}

static const struct policy_option caching_options[] = {
	{ "alloc_conf", "", "PYTORCH_CUDA_ALLOC_CONF: max_split_size_mb, "
	  "roundup_power2_divisions, garbage_collection_threshold, expandable_segments, ... "
	  "(also --alloc-conf)" },
	{ NULL, NULL, NULL },
};

/* torch.cuda.empty_cache(): every unsplit cached segment back, expandable pages unmapped. */
static void
caching_empty_cache(void *state)
{
	release_cached_blocks(state);
}

const struct policy_ops policy_caching = {
	.name = "caching",
	.frameworks = TRACE_FW_PYTORCH,
	.traits = POLICY_ALLOC_CONF,
	.models = "PyTorch's native CUDA caching allocator (PYTORCH_CUDA_ALLOC_CONF settings "
	    "included)",
	.options = caching_options,
	.limit = POLICY_LIMIT_SELF,
	.create = caching_create,
	.alloc = caching_alloc,
	.free = caching_free,
	.empty_cache = caching_empty_cache,
	.addr = caching_addr,
	.stats = caching_stats,
	.walk = caching_walk,
	.check = caching_check,
	.destroy = caching_destroy,
	.limit_inert = caching_inert,
	.set_capacity = caching_set_capacity,
	.adopt_segment = caching_adopt_segment,
	.alloc_at = caching_alloc_at,
};
