/*
 * policy-rmm-arena.c - RMM's arena_memory_resource (rapidsai/rmm,
 * include/rmm/mr/detail/arena.hpp and src/mr/detail/arena_memory_resource_impl.cpp),
 * as its code behaves where its comments say otherwise.
 *
 * One upstream block (size: half the free memory by default) is the global
 * arena's first superblock.  Each stream has an arena of its own (the
 * per-thread default stream one shared arena: logs give no thread to each
 * arena); a request of at most 1 MiB takes the first fit, by address, in the
 * first of its arena's superblocks that has room, else the arena acquires a
 * superblock from the global arena: the first one there with room (an empty
 * one cut to 1 MiB when at least 2 MiB; a partly used one whole).  A larger
 * request is served by the global arena directly: the first superblock with
 * room (an empty one cut to the request when 1 MiB more remains), its first
 * fit.  A freed block merges with its neighbours in its superblock.  Arenas
 * keep their superblocks, empty or not (the header's "returns them when they
 * become empty" is not what the code does); the global arena merges empty
 * neighbours.  When a request fails, every arena gives all its superblocks
 * back (defragment(): clean()) and the request is tried once more.
 * Requests are aligned to 256 bytes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/sys/tree.h>
#include <uthash.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/objpool.h"
#include "sim/policy.h"
#include "sim/rmm.h"

#define SUPER_MIN ((uint64_t)1 << 20)	/* superblock::minimum_size */

struct fblk {				/* a free block in a superblock */
	uint64_t addr, size;
	RB_ENTRY(fblk) link;
};

struct arena;

struct sblk {
	uint64_t addr, size;
	struct arena *owner;		/* NULL: the global arena */
	RB_HEAD(rmm_fblk_tree, fblk) free;
	uint64_t nfree, free_bytes, maxfree;
	RB_ENTRY(sblk) own;		/* in its owner's set */
	RB_ENTRY(sblk) idx;		/* among all superblocks */
};

struct live {
	uint64_t addr, size, requested;
	RB_ENTRY(live) link;
};

static int
fblk_cmp(const struct fblk *a, const struct fblk *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int
sblk_cmp(const struct sblk *a, const struct sblk *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int
live_cmp(const struct live *a, const struct live *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(rmm_sb_own, sblk);
RB_HEAD(rmm_sb_idx, sblk);
RB_HEAD(rmm_live_tree, live);
RB_PROTOTYPE(rmm_fblk_tree, fblk, link, fblk_cmp)
RB_PROTOTYPE(rmm_sb_own, sblk, own, sblk_cmp)
RB_PROTOTYPE(rmm_sb_idx, sblk, idx, sblk_cmp)
RB_PROTOTYPE(rmm_live_tree, live, link, live_cmp)
RB_GENERATE(rmm_fblk_tree, fblk, link, fblk_cmp)
RB_GENERATE(rmm_sb_own, sblk, own, sblk_cmp)
RB_GENERATE(rmm_sb_idx, sblk, idx, sblk_cmp)
RB_GENERATE(rmm_live_tree, live, link, live_cmp)

struct arena {
	int64_t key;
	struct rmm_sb_own set;
	UT_hash_handle hh;
};

struct rarena {
	struct device *dev;
	uint64_t base, size;
	int broken;			/* the upstream block was refused */
	struct rmm_sb_own global;
	struct rmm_sb_idx idx;
	struct arena *arenas;
	struct rmm_live_tree live;
	uint64_t allocated, ooms, cleans;
	struct objpool fblks, sblks, lives;
};

static int
sb_empty(const struct sblk *s)
{
	return s->nfree == 1 && s->free_bytes == s->size;
}

static void
sb_maxfree(struct sblk *s)
{
	struct fblk *f;

	s->maxfree = 0;
	RB_FOREACH(f, rmm_fblk_tree, &s->free)
		s->maxfree = GMS_MAX(s->maxfree, f->size);
}

/* A superblock of one free block. */
static struct sblk *
sb_new(struct rarena *r, uint64_t addr, uint64_t size)
{
	struct sblk *s = objpool_get(&r->sblks);
	struct fblk *f = objpool_get(&r->fblks);

	s->addr = addr;
	s->size = size;
	RB_INIT(&s->free);
	f->addr = addr;
	f->size = size;
	RB_INSERT(rmm_fblk_tree, &s->free, f);
	s->nfree = 1;
	s->free_bytes = s->maxfree = size;
	RB_INSERT(rmm_sb_idx, &r->idx, s);
	return s;
}

static void
sb_drop(struct rarena *r, struct sblk *s)
{
	struct fblk *f;

	while ((f = RB_MIN(rmm_fblk_tree, &s->free)) != NULL) {
		RB_REMOVE(rmm_fblk_tree, &s->free, f);
		objpool_put(&r->fblks, f);
	}
	RB_REMOVE(rmm_sb_idx, &r->idx, s);
	objpool_put(&r->sblks, s);
}

/* superblock::first_fit(): the first free block by address that fits, cut from its front. */
static uint64_t
sb_first_fit(struct rarena *r, struct sblk *s, uint64_t size)
{
	struct fblk *f;
	uint64_t addr, was;

	RB_FOREACH(f, rmm_fblk_tree, &s->free)
		if (f->size >= size)
			break;
	GMS_ASSERT(f != NULL);
	addr = f->addr;
	was = f->size;
	s->free_bytes -= size;
	if (f->size > size) {
		f->addr += size;	/* stays between its neighbours */
		f->size -= size;
	} else {
		RB_REMOVE(rmm_fblk_tree, &s->free, f);
		objpool_put(&r->fblks, f);
		s->nfree--;
	}
	if (was == s->maxfree)
		sb_maxfree(s);
	return addr;
}

/* superblock::coalesce(): a freed block back, merged with its neighbours. */
static void
sb_coalesce(struct rarena *r, struct sblk *s, uint64_t addr, uint64_t size)
{
	struct fblk key = { .addr = addr }, *next, *prev, *f;
	int merge_prev, merge_next;

	next = RB_NFIND(rmm_fblk_tree, &s->free, &key);
	prev = next ? RB_PREV(rmm_fblk_tree, &s->free, next) : RB_MAX(rmm_fblk_tree, &s->free);
	merge_prev = prev != NULL && prev->addr + prev->size == addr;
	merge_next = next != NULL && addr + size == next->addr;
	s->free_bytes += size;
	if (merge_prev) {
		prev->size += size;
		if (merge_next) {
			prev->size += next->size;
			RB_REMOVE(rmm_fblk_tree, &s->free, next);
			objpool_put(&r->fblks, next);
			s->nfree--;
		}
		f = prev;
	} else if (merge_next) {
		next->addr = addr;
		next->size += size;
		f = next;
	} else {
		f = objpool_get(&r->fblks);
		f->addr = addr;
		f->size = size;
		RB_INSERT(rmm_fblk_tree, &s->free, f);
		s->nfree++;
	}
	s->maxfree = GMS_MAX(s->maxfree, f->size);
}

/* global_arena::coalesce(): a superblock into the global set, merged with empty neighbours. */
static void
global_coalesce(struct rarena *r, struct sblk *s)
{
	struct sblk *next, *prev;
	int merge_prev, merge_next;

	s->owner = NULL;
	next = RB_NFIND(rmm_sb_own, &r->global, s);
	prev = next ? RB_PREV(rmm_sb_own, &r->global, next) : RB_MAX(rmm_sb_own, &r->global);
	merge_prev = prev != NULL && sb_empty(prev) && sb_empty(s) &&
	    prev->addr + prev->size == s->addr;
	merge_next = next != NULL && sb_empty(next) && sb_empty(s) &&
	    s->addr + s->size == next->addr;
	if (!merge_prev && !merge_next) {
		RB_INSERT(rmm_sb_own, &r->global, s);
		return;
	}
	if (merge_prev) {
		RB_REMOVE(rmm_sb_own, &r->global, prev);
		prev->size += s->size;
		sb_drop(r, s);
		s = prev;
	}
	if (merge_next) {
		RB_REMOVE(rmm_sb_own, &r->global, next);
		s->size += next->size;
		sb_drop(r, next);
	}
	/* one free block, the whole of it */
	RB_MIN(rmm_fblk_tree, &s->free)->addr = s->addr;
	RB_MIN(rmm_fblk_tree, &s->free)->size = s->size;
	s->free_bytes = s->maxfree = s->size;
	RB_INSERT(rmm_sb_own, &r->global, s);
}

/* global_arena::first_fit(): the first superblock with room, out of the set. */
static struct sblk *
global_first_fit(struct rarena *r, uint64_t size)
{
	uint64_t min = GMS_MAX(SUPER_MIN, size);
	struct sblk *s, *tail;

	RB_FOREACH(s, rmm_sb_own, &r->global)
		if (s->maxfree >= size)
			break;
	if (s == NULL)
		return NULL;
	RB_REMOVE(rmm_sb_own, &r->global, s);
	if (sb_empty(s) && s->size >= min + SUPER_MIN) {
		tail = sb_new(r, s->addr + min, s->size - min);
		tail->owner = NULL;
		RB_INSERT(rmm_sb_own, &r->global, tail);
		s->size = min;
		RB_MIN(rmm_fblk_tree, &s->free)->size = min;
		s->free_bytes = s->maxfree = min;
	}
	return s;
}

static struct arena *
arena_of(struct rarena *r, int64_t stream)
{
	struct arena *a;

	HASH_FIND(hh, r->arenas, &stream, sizeof(stream), a);
	if (a == NULL) {
		a = gms_calloc(1, sizeof(*a));
		a->key = stream;
		RB_INIT(&a->set);
		HASH_ADD(hh, r->arenas, key, sizeof(a->key), a);
	}
	return a;
}

/* arena::allocate_sync(): 0 and *addr, or -1. */
static int
arena_alloc(struct rarena *r, struct arena *a, uint64_t size, uint64_t *addr)
{
	struct sblk *s;

	if (size > SUPER_MIN) {
		if ((s = global_first_fit(r, size)) == NULL)
			return -1;
		*addr = sb_first_fit(r, s, size);
		RB_INSERT(rmm_sb_own, &r->global, s);
		return 0;
	}
	RB_FOREACH(s, rmm_sb_own, &a->set)
		if (s->maxfree >= size)
			break;
	if (s == NULL) {
		if ((s = global_first_fit(r, size)) == NULL)
			return -1;
		s->owner = a;
		RB_INSERT(rmm_sb_own, &a->set, s);
	}
	*addr = sb_first_fit(r, s, size);
	return 0;
}

/* defragment(): every arena's superblocks back to the global arena. */
static void
defragment(struct rarena *r)
{
	struct arena *a, *tmp;
	struct sblk *s;

	r->cleans++;
	HASH_ITER(hh, r->arenas, a, tmp) {
		while ((s = RB_MIN(rmm_sb_own, &a->set)) != NULL) {
			RB_REMOVE(rmm_sb_own, &a->set, s);
			global_coalesce(r, s);
		}
	}
}

static int
rarena_alloc(void *state, uint64_t request, int64_t stream, void **handle, uint64_t *block)
{
	struct rarena *r = state;
	uint64_t size = rmm_align(request), addr;
	struct arena *a;
	struct live *l;

	if (r->broken) {
		r->ooms++;
		return GMS_EOOM;
	}
	a = arena_of(r, stream);
	if (arena_alloc(r, a, size, &addr) < 0) {
		defragment(r);
		if (arena_alloc(r, a, size, &addr) < 0) {
			r->ooms++;
			return GMS_EOOM;
		}
	}
	l = objpool_get(&r->lives);
	l->addr = addr;
	l->size = size;
	l->requested = request;
	RB_INSERT(rmm_live_tree, &r->live, l);
	r->allocated += size;
	*handle = l;
	*block = size;
	return 0;
}

static void
rarena_free(void *state, void *handle)
{
	struct rarena *r = state;
	struct live *l = handle;
	struct sblk key = { .addr = l->addr }, *s;

	/* the superblock holding it: the last one starting at or before it */
	s = RB_NFIND(rmm_sb_idx, &r->idx, &key);
	if (s == NULL || s->addr != l->addr)
		s = s ? RB_PREV(rmm_sb_idx, &r->idx, s) : RB_MAX(rmm_sb_idx, &r->idx);
	GMS_ASSERT(s != NULL && l->addr + l->size <= s->addr + s->size);
	sb_coalesce(r, s, l->addr, l->size);
	if (s->owner == NULL && sb_empty(s)) {
		RB_REMOVE(rmm_sb_own, &r->global, s);
		global_coalesce(r, s);
	}
	r->allocated -= l->size;
	RB_REMOVE(rmm_live_tree, &r->live, l);
	objpool_put(&r->lives, l);
}

static uint64_t
rarena_addr(void *state, void *handle)
{
	return ((struct live *)handle)->addr;
}

static void
rarena_stats(void *state, struct policy_stats *st)
{
	struct rarena *r = state;
	struct sblk *s;

	memset(st, 0, sizeof(*st));
	st->allocated = r->allocated;
	st->cached_free = r->broken ? 0 : r->size - r->allocated;
	RB_FOREACH(s, rmm_sb_idx, &r->idx)
		st->largest_free = GMS_MAX(st->largest_free, s->maxfree);
	st->alloc_retries = r->cleans;
	st->ooms = r->ooms;
}

static void
rarena_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	struct rarena *r = state;
	struct policy_walk_segment ws = { .addr = r->base, .size = r->size, .pool = "arena" };
	struct policy_walk_block wb;
	struct sblk *s;
	struct fblk *f;
	struct live *l = RB_MIN(rmm_live_tree, &r->live);

	if (r->broken)
		return;
	if (segfn != NULL)
		segfn(arg, &ws);
	if (blkfn == NULL)
		return;
	RB_FOREACH(s, rmm_sb_idx, &r->idx) {
		RB_FOREACH(f, rmm_fblk_tree, &s->free) {
			for (; l != NULL && l->addr < f->addr; l = RB_NEXT(rmm_live_tree, &r->live, l)) {
				wb = (struct policy_walk_block){ .addr = l->addr, .size = l->size,
				    .requested = l->requested, .allocated = 1 };
				blkfn(arg, &wb);
			}
			wb = (struct policy_walk_block){ .addr = f->addr, .size = f->size };
			blkfn(arg, &wb);
		}
	}
	for (; l != NULL; l = RB_NEXT(rmm_live_tree, &r->live, l)) {
		wb = (struct policy_walk_block){ .addr = l->addr, .size = l->size,
		    .requested = l->requested, .allocated = 1 };
		blkfn(arg, &wb);
	}
}

static int
rarena_check(void *state, char **cause)
{
	struct rarena *r = state;
	uint64_t end = r->base, free_bytes = 0, live_bytes = 0, fb, n, mx;
	struct live *l = RB_MIN(rmm_live_tree, &r->live);
	struct arena *a, *tmp;
	struct sblk *s;
	struct fblk *f;

	if (r->broken)
		return 0;
	RB_FOREACH(s, rmm_sb_idx, &r->idx) {
		if (s->addr != end || s->size < SUPER_MIN)
			return gms_fail(cause, -1, "superblock %#llx: not where the last one ended "
			    "(%#llx) or under 1 MiB", (unsigned long long)s->addr,
			    (unsigned long long)end);
		fb = n = mx = 0;
		for (end = s->addr, f = RB_MIN(rmm_fblk_tree, &s->free); ;) {
			/* live blocks up to the next free one, then it */
			for (; l != NULL && l->addr == end && l->addr < s->addr + s->size &&
			    (f == NULL || l->addr < f->addr);
			    l = RB_NEXT(rmm_live_tree, &r->live, l)) {
				end += l->size;
				live_bytes += l->size;
			}
			if (f == NULL)
				break;
			if (f->addr != end)
				return gms_fail(cause, -1, "superblock %#llx: a gap or overlap at %#llx",
				    (unsigned long long)s->addr, (unsigned long long)end);
			end += f->size;
			fb += f->size;
			mx = GMS_MAX(mx, f->size);
			n++;
			f = RB_NEXT(rmm_fblk_tree, &s->free, f);
		}
		if (end != s->addr + s->size || fb != s->free_bytes || n != s->nfree ||
		    mx != s->maxfree)
			return gms_fail(cause, -1, "superblock %#llx: blocks cover %llu of %llu, free "
			    "%llu/%llu in %llu/%llu, largest %llu/%llu", (unsigned long long)s->addr,
			    (unsigned long long)(end - s->addr), (unsigned long long)s->size,
			    (unsigned long long)fb, (unsigned long long)s->free_bytes,
			    (unsigned long long)n, (unsigned long long)s->nfree,
			    (unsigned long long)mx, (unsigned long long)s->maxfree);
		free_bytes += fb;
		if (s->owner == NULL ? RB_FIND(rmm_sb_own, &r->global, s) != s :
		    RB_FIND(rmm_sb_own, &s->owner->set, s) != s)
			return gms_fail(cause, -1, "superblock %#llx is not in its owner's set",
			    (unsigned long long)s->addr);
	}
	HASH_ITER(hh, r->arenas, a, tmp)
		RB_FOREACH(s, rmm_sb_own, &a->set)
			if (s->owner != a)
				return gms_fail(cause, -1, "arena of stream %lld holds superblock "
				    "%#llx of another", (long long)a->key, (unsigned long long)s->addr);
	if (end != r->base + r->size || l != NULL || live_bytes != r->allocated ||
	    free_bytes + live_bytes != r->size || r->size != r->dev->c.reserved)
		return gms_fail(cause, -1, "counts disagree: arena %llu (device %llu), live "
		    "%llu/%llu, free %llu", (unsigned long long)r->size,
		    (unsigned long long)r->dev->c.reserved, (unsigned long long)live_bytes,
		    (unsigned long long)r->allocated, (unsigned long long)free_bytes);
	return 0;
}

static void
rarena_destroy(void *state)
{
	struct rarena *r = state;
	struct arena *a, *tmp;

	HASH_ITER(hh, r->arenas, a, tmp) {
		HASH_DEL(r->arenas, a);
		free(a);
	}
	objpool_destroy(&r->fblks);
	objpool_destroy(&r->sblks);
	objpool_destroy(&r->lives);
	free(r);
}

static int
rarena_create(const struct policy_args *args, struct device *dev, void **state, char **cause)
{
	uint64_t free_bytes = dev->capacity ? dev->capacity : args->device_total, size;
	struct rarena *r;
	struct sblk *s;
	int err;

	size = free_bytes / 2;
	if ((err = policy_opt_size("rmm-arena", args, "size", &size, cause)) < 0)
		return err;
	if (policy_opt(args, "size") == NULL && free_bytes == 0)
		return gms_fail(cause, GMS_ECONFIG, "rmm-arena: its arena is " POLICY_NEEDS_SIZE ": give --capacity or --gpu, or --option size=SIZE (an RMM log does not "
		    "say its GPU)");
	size = size / RMM_ALIGN * RMM_ALIGN;
	if (size < SUPER_MIN)
		return gms_fail(cause, GMS_ECONFIG, "rmm-arena: the arena must be at least 1 MiB "
		    "(a superblock), as RMM requires");
	r = gms_calloc(1, sizeof(*r));
	r->dev = dev;
	r->size = size;
	RB_INIT(&r->global);
	RB_INIT(&r->idx);
	RB_INIT(&r->live);
	objpool_init(&r->fblks, sizeof(struct fblk), 1024);
	objpool_init(&r->sblks, sizeof(struct sblk), 256);
	objpool_init(&r->lives, sizeof(struct live), 1024);
	if (device_reserve(dev, size, &r->base) < 0) {
		r->broken = 1;
	} else {
		s = sb_new(r, r->base, size);
		RB_INSERT(rmm_sb_own, &r->global, s);
	}
	*state = r;
	return 0;
}

static const struct policy_option arena_options[] = {
	{ "size", "half the free memory", "the arena, reserved whole at the start (arena_size; "
	  "RMM's default: half of what --capacity or --gpu leaves free)" },
	{ NULL, NULL, NULL },
};

static const char *const arena_keys[] = { "size", NULL };

const struct policy_ops policy_rmm_arena = {
	.name = "rmm-arena",
	.frameworks = TRACE_FW_RMM,
	.models = "RAPIDS RMM's arena_memory_resource: an arena per stream taking 1 MiB "
	    "superblocks from one global arena, first fit by address",
	.options = arena_options,
	.limit = POLICY_LIMIT_RESERVED,
	.pool_keys = arena_keys,
	.create = rarena_create,
	.alloc = rarena_alloc,
	.free = rarena_free,
	.addr = rarena_addr,
	.stats = rarena_stats,
	.walk = rarena_walk,
	.check = rarena_check,
	.destroy = rarena_destroy,
};
