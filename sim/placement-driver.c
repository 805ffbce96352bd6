/*
 * placement-driver.c - where the CUDA driver puts cudaMalloc's reservations,
 * by the rules measured on the H200 (doc/placement.md, replay/va_model.py):
 * a fresh context leaves a 2 MiB hole and, 74 MiB above it, a 24 MiB one;
 * new space is taken downwards from 488 MiB below that in slots of the size
 * rounded up to 32 MiB, the reservation at the slot's bottom and its rest a
 * hole; a request goes to the lowest hole that holds it, then to the top of
 * the highest run of released slots strictly larger than its slot, then to a
 * new slot; a slot is released when its last reservation is, and released
 * slots at the edge give their space back to it.
 *
 * Ranges and slots are kept in red-black trees (libbsd's tree.h) by
 * address: a policy that reserves per request (no-cache, ideal) holds a
 * segment per live allocation, and a sorted array's insertions cost that
 * many moves each.  The searches stop after DRV_SCAN holes (as placement.c's
 * do): for those policies the addresses decide nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/sys/tree.h>

#include "sim/gms.h"
#include "sim/objpool.h"
#include "sim/placement-driver.h"

#define SLOT (32 * GMS_MiB)
#define DRV_SCAN 256
#define BASE ((uint64_t)1 << 51)	/* in placement.c's large region, unused here; below 2^53 */

struct range {
	uint64_t a, b;		/* [a, b) */
	RB_ENTRY(range) link;
};

static int
range_cmp(const struct range *x, const struct range *y)
{
	return (x->a > y->a) - (x->a < y->a);
}

RB_HEAD(drv_rtree, range);
RB_PROTOTYPE(drv_rtree, range, link, range_cmp)
RB_GENERATE(drv_rtree, range, link, range_cmp)

/* Disjoint ranges, merged where they touch (rset_add). */
struct rset {
	struct drv_rtree t;
	struct objpool *pool;
};

struct slot {
	uint64_t a, span;
	uint64_t live;		/* reservations in it */
	RB_ENTRY(slot) link;
};

static int
slot_cmp(const struct slot *x, const struct slot *y)
{
	return (x->a > y->a) - (x->a < y->a);
}

RB_HEAD(drv_stree, slot);
RB_PROTOTYPE(drv_stree, slot, link, slot_cmp)
RB_GENERATE(drv_stree, slot, link, slot_cmp)

struct driver {
	uint64_t top;		/* new slots are taken below this */
	struct objpool ranges, slotpool;
	struct rset holes, released;
	struct drv_stree slots;
	/* a perturbed driver (driver_create_perturbed): its random state, and
	   the hidden reservations it holds */
	uint64_t rng;
	int perturbed;
	struct { uint64_t a, b; } *hidden;
	size_t nhidden, caphidden;
};

/* The first range with b > x (ranges are disjoint, by address), or NULL. */
static struct range *
after(struct rset *s, uint64_t x)
{
	struct range key = { .a = x + 1 }, *next, *prev;

	next = x == UINT64_MAX ? NULL : RB_NFIND(drv_rtree, &s->t, &key);
	prev = next != NULL ? RB_PREV(drv_rtree, &s->t, next) : RB_MAX(drv_rtree, &s->t);
	return prev != NULL && prev->b > x ? prev : next;
}

static void
insert(struct rset *s, uint64_t a, uint64_t b)
{
	struct range *r = objpool_get(s->pool);

	r->a = a;
	r->b = b;
	RB_INSERT(drv_rtree, &s->t, r);
}

static void
drop(struct rset *s, struct range *r)
{
	RB_REMOVE(drv_rtree, &s->t, r);
	objpool_put(s->pool, r);
}

/* Add [a, b), merged with the ranges it touches. */
static void
rset_add(struct rset *s, uint64_t a, uint64_t b)
{
	struct range *r = after(s, a > 0 ? a - 1 : 0), *next;

	for (; r != NULL && r->a <= b && r->b >= a; r = next) {
		next = RB_NEXT(drv_rtree, &s->t, r);
		a = GMS_MIN(a, r->a);
		b = GMS_MAX(b, r->b);
		drop(s, r);
	}
	insert(s, a, b);
}

/* Take [a, b) out of whatever ranges overlap it. */
static void
rset_sub(struct rset *s, uint64_t a, uint64_t b)
{
	struct range *r = after(s, a), *next;

	for (; r != NULL && r->a < b; r = next) {
		struct range was = *r;

		next = RB_NEXT(drv_rtree, &s->t, r);
		drop(s, r);
		if (was.b > b)
			insert(s, b, was.b);
		if (was.a < a)
			insert(s, was.a, a);
	}
}

struct driver *
driver_create(void)
{
	struct driver *d = gms_calloc(1, sizeof(*d));

	objpool_init(&d->ranges, sizeof(struct range), 256);
	objpool_init(&d->slotpool, sizeof(struct slot), 256);
	RB_INIT(&d->holes.t);
	RB_INIT(&d->released.t);
	RB_INIT(&d->slots);
	d->holes.pool = d->released.pool = &d->ranges;
	d->top = BASE - 488 * GMS_MiB;
	rset_add(&d->holes, BASE - 74 * GMS_MiB, BASE - 72 * GMS_MiB);
	rset_add(&d->holes, BASE, BASE + 24 * GMS_MiB);
	return d;
}

void
driver_destroy(struct driver *d)
{
	if (d == NULL)
		return;
	free(d->hidden);
	objpool_destroy(&d->ranges);
	objpool_destroy(&d->slotpool);
	free(d);
}

/* The slot holding addr, or NULL. */
static struct slot *
slot_of(struct driver *d, uint64_t addr)
{
	struct slot key = { .a = addr + 1 }, *next, *sl;

	next = addr == UINT64_MAX ? NULL : RB_NFIND(drv_stree, &d->slots, &key);
	sl = next != NULL ? RB_PREV(drv_stree, &d->slots, next) : RB_MAX(drv_stree, &d->slots);
	if (sl == NULL || addr >= sl->a + sl->span)
		return NULL;
	return sl;
}

static void
slot_add(struct driver *d, uint64_t a, uint64_t span)
{
	struct slot *sl = objpool_get(&d->slotpool);

	sl->a = a;
	sl->span = span;
	sl->live = 1;
	RB_INSERT(drv_stree, &d->slots, sl);
}

static int
place_raw(struct driver *d, uint64_t size, uint64_t *addr)
{
	uint64_t span = (size + SLOT - 1) / SLOT * SLOT, at;
	size_t scanned = 0;
	struct range *h, *rel;
	struct slot *sl;

	if (size == 0 || span < size)
		return -1;
	/* a hole that runs across slots (the rest of one, the freed bottom of the
	   next) is as many holes: a reservation never spans two slots */
	RB_FOREACH(h, drv_rtree, &d->holes.t) {
		uint64_t end;

		if (scanned++ >= DRV_SCAN)
			break;
		if (h->b - h->a < size)
			continue;	/* no piece of it can hold size */
		for (at = h->a; at < h->b; at = end) {
			sl = slot_of(d, at);
			end = sl != NULL ? GMS_MIN(h->b, sl->a + sl->span) : h->b;
			if (end - at < size)
				continue;
			rset_sub(&d->holes, at, at + size);
			if (sl != NULL)
				sl->live++;
			*addr = at;
			return 0;
		}
	}
	RB_FOREACH_REVERSE(rel, drv_rtree, &d->released.t)
		if (rel->b - rel->a > span)
			break;
	if (rel != NULL) {
		at = rel->b - span;
		rset_sub(&d->released, at, at + span);
	} else {
		if (d->top < span + GMS_MiB * 1024)
			return -1;	/* the model's space is full: no real device gets here */
		d->top -= span;
		at = d->top;
	}
	if (span > size)
		rset_add(&d->holes, at + size, at + span);
	slot_add(d, at, span);
	*addr = at;
	return 0;
}

static void
remove_raw(struct driver *d, uint64_t addr, uint64_t size)
{
	struct slot *sl = slot_of(d, addr);
	struct range *r;
	uint64_t a, span;

	if (sl == NULL || --sl->live > 0) {
		rset_add(&d->holes, addr, addr + size);
		return;
	}
	a = sl->a;
	span = sl->span;
	RB_REMOVE(drv_stree, &d->slots, sl);
	objpool_put(&d->slotpool, sl);
	rset_sub(&d->holes, a, a + span);
	rset_add(&d->released, a, a + span);
	/* released slots at the edge give their space back to it */
	while ((r = after(&d->released, d->top)) != NULL && r->a == d->top) {
		d->top = r->b;
		drop(&d->released, r);
	}
}

/*
 * Perturbations: what a real job reserves beside the allocator (cuBLAS and
 * cuDNN workspaces, NCCL buffers, another framework in the process, an
 * earlier phase of the job that reserved and gave back).  Sizes are
 * log-uniform from 2 MiB to 1 GiB in 2 MiB steps; splitmix64 draws them, so
 * a seed is a placement, the same on every machine.
 */
static uint64_t
draw(struct driver *d)
{
	uint64_t z = (d->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
hidden_size(struct driver *d)
{
	/* 2 MiB << [0, 9) with a uniform fraction: log-uniform, 2 MiB .. 1 GiB */
	double f = (double)(draw(d) >> 11) / (double)(1ULL << 53) * 9.0;
	uint64_t n = (uint64_t)((double)(2 * GMS_MiB) * __builtin_exp2(f));

	return (n + 2 * GMS_MiB - 1) / (2 * GMS_MiB) * (2 * GMS_MiB);
}

static void
hide(struct driver *d)
{
	uint64_t size = hidden_size(d), at;

	if (place_raw(d, size, &at) < 0)
		return;
	if (d->nhidden == d->caphidden) {
		d->caphidden = d->caphidden ? 2 * d->caphidden : 8;
		d->hidden = gms_realloc(d->hidden, d->caphidden * sizeof(*d->hidden));
	}
	d->hidden[d->nhidden].a = at;
	d->hidden[d->nhidden++].b = at + size;
}

static void
unhide(struct driver *d, size_t i)
{
	remove_raw(d, d->hidden[i].a, d->hidden[i].b - d->hidden[i].a);
	d->hidden[i] = d->hidden[--d->nhidden];
}

struct driver *
driver_create_perturbed(uint64_t seed)
{
	struct driver *d = driver_create();
	size_t n, i;

	if (seed == 0)
		return d;
	d->perturbed = 1;
	d->rng = seed;
	/* before the first reservation: up to six, about half given back */
	n = (size_t)(draw(d) % 7);
	for (i = 0; i < n; i++)
		hide(d);
	for (i = d->nhidden; i-- > 0;)
		if (draw(d) & 1)
			unhide(d, i);
	return d;
}

int
driver_place(struct driver *d, uint64_t size, uint64_t *addr)
{
	/* one reservation in 16 is preceded by a hidden one, and one in 16 by
	   the release of one held */
	if (d->perturbed) {
		uint64_t r = draw(d);

		if (r % 16 == 0)
			hide(d);
		if ((r >> 8) % 16 == 0 && d->nhidden > 0)
			unhide(d, (size_t)((r >> 16) % d->nhidden));
	}
	return place_raw(d, size, addr);
}

void
driver_remove(struct driver *d, uint64_t addr, uint64_t size)
{
	remove_raw(d, addr, size);
}
