/*
 * placement.c - the driver placement model of placement.h: two regions, each a
 * frontier plus an address-ordered red-black tree of released ranges ("holes")
 * that are merged with their neighbours and given back to the frontier when
 * they touch it.  Holes are few for caching allocators (segments go back only
 * under memory pressure), so the fit searches walk them; for policies that
 * reserve per request (no-cache, ideal) addresses decide nothing, and the walk
 * stops after HOLE_SCAN holes so that they stay fast.
 */
#include "config.h"

#include <stdlib.h>

#include <bsd/sys/tree.h>

#include "sim/gms.h"
#include "sim/placement.h"

/* Segments up to this size are "small" (PyTorch's small-pool segments). */
#define SMALL_SEGMENT (2 * GMS_MiB)
#define HOLE_SCAN 256

/*
 * The regions sit far from any address a real driver hands out, so model
 * addresses never collide with recorded ones (device-recorded.c mixes them).
 */
#define SMALL_BASE ((uint64_t)1 << 46)	/* ascends, up to SMALL_END */
#define SMALL_END  ((uint64_t)1 << 47)
#define LARGE_TOP  ((uint64_t)1 << 52)	/* descends, down to SMALL_END */
/* Every model address stays below 2^53, so JSON numbers carry it exactly. */
_Static_assert(LARGE_TOP < ((uint64_t)1 << 53), "addresses exact in JSON");

struct hole {
	uint64_t addr, size;
	RB_ENTRY(hole) link;
};

static int
hole_cmp(const struct hole *a, const struct hole *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(hole_tree, hole);
RB_PROTOTYPE(hole_tree, hole, link, hole_cmp)
RB_GENERATE(hole_tree, hole, link, hole_cmp)

struct region {
	struct hole_tree holes;
	uint64_t frontier;	/* small: first unused byte; large: lowest used */
	int descending;
};

struct placement {
	struct region small, large;
};

struct placement *
placement_create(void)
{
	struct placement *pl = gms_calloc(1, sizeof(*pl));

	RB_INIT(&pl->small.holes);
	RB_INIT(&pl->large.holes);
	pl->small.frontier = SMALL_BASE;
	pl->large.frontier = LARGE_TOP;
	pl->large.descending = 1;
	return pl;
}

static int
region_place(struct region *rg, uint64_t size, uint64_t *out)
{
	struct hole *h, *fit = NULL;
	uint64_t addr;
	int scanned = 0;

	if (!rg->descending) {
		RB_FOREACH(h, hole_tree, &rg->holes)
			if (h->size >= size || ++scanned == HOLE_SCAN) {
				fit = h->size >= size ? h : NULL;
				break;
			}
	} else {
		RB_FOREACH_REVERSE(h, hole_tree, &rg->holes)
			if (h->size >= size || ++scanned == HOLE_SCAN) {
				fit = h->size >= size ? h : NULL;
				break;
			}
	}
	if (fit == NULL) {
		if (!rg->descending) {
			if (size > SMALL_END - rg->frontier)
				return -1;
			*out = rg->frontier;
			rg->frontier += size;
		} else {
			if (size > rg->frontier - SMALL_END)
				return -1;
			rg->frontier -= size;
			*out = rg->frontier;
		}
		return 0;
	}
	if (!rg->descending) {
		addr = fit->addr;
		fit->addr += size;
	} else {
		addr = fit->addr + fit->size - size;
	}
	fit->size -= size;
	if (fit->size == 0) {
		RB_REMOVE(hole_tree, &rg->holes, fit);
		free(fit);
	}
	*out = addr;
	return 0;
}

int
placement_place(struct placement *pl, uint64_t size, uint64_t *addr)
{
	return region_place(size <= SMALL_SEGMENT ? &pl->small : &pl->large, size, addr);
}

static void
region_remove(struct region *rg, uint64_t addr, uint64_t size)
{
	struct hole *h, *prev, *next;

	h = gms_malloc(sizeof(*h));
	h->addr = addr;
	h->size = size;
	RB_INSERT(hole_tree, &rg->holes, h);
	prev = RB_PREV(hole_tree, &rg->holes, h);
	if (prev != NULL && prev->addr + prev->size == h->addr) {
		prev->size += h->size;
		RB_REMOVE(hole_tree, &rg->holes, h);
		free(h);
		h = prev;
	}
	next = RB_NEXT(hole_tree, &rg->holes, h);
	if (next != NULL && h->addr + h->size == next->addr) {
		h->size += next->size;
		RB_REMOVE(hole_tree, &rg->holes, next);
		free(next);
	}
	/* A hole at the frontier is just unused space again. */
	if (!rg->descending && h->addr + h->size == rg->frontier) {
		rg->frontier = h->addr;
	} else if (rg->descending && h->addr == rg->frontier) {
		rg->frontier = h->addr + h->size;
	} else {
		return;
	}
	RB_REMOVE(hole_tree, &rg->holes, h);
	free(h);
}

void
placement_remove(struct placement *pl, uint64_t addr, uint64_t size)
{
	region_remove(size <= SMALL_SEGMENT ? &pl->small : &pl->large, addr, size);
}

static void
region_clear(struct region *rg)
{
	struct hole *h, *next;

	for (h = RB_MIN(hole_tree, &rg->holes); h != NULL; h = next) {
		next = RB_NEXT(hole_tree, &rg->holes, h);
		RB_REMOVE(hole_tree, &rg->holes, h);
		free(h);
	}
}

void
placement_destroy(struct placement *pl)
{
	if (pl == NULL)
		return;
	region_clear(&pl->small);
	region_clear(&pl->large);
	free(pl);
}
