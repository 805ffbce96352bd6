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
 * Ranges are kept in sorted arrays: a caching allocator holds hundreds of
 * segments, and the searches stop after DRV_SCAN holes (as placement.c's do)
 * so that a policy reserving per request stays fast; for those the
 * addresses decide nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "sim/placement-driver.h"

#define SLOT (32 * GMS_MiB)
#define DRV_SCAN 256
#define BASE ((uint64_t)1 << 51)	/* in placement.c's large region, unused here; below 2^53 */

struct range {
	uint64_t a, b;		/* [a, b) */
};

struct rset {
	struct range *r;
	size_t n, cap;
};

struct slot {
	uint64_t a, span;
	uint64_t live;		/* reservations in it */
};

struct driver {
	uint64_t top;		/* new slots are taken below this */
	struct rset holes, released;
	struct slot *slots;	/* sorted by address */
	size_t nslots, capslots;
	/* a perturbed driver (driver_create_perturbed): its random state, and
	   the hidden reservations it holds */
	uint64_t rng;
	int perturbed;
	struct range *hidden;
	size_t nhidden, caphidden;
};

/* The index of the first range with b > x (ranges are disjoint, sorted). */
static size_t
after(const struct rset *s, uint64_t x)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->r[mid].b <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
insert_at(struct rset *s, size_t i, uint64_t a, uint64_t b)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->r = gms_realloc(s->r, s->cap * sizeof(*s->r));
	}
	memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(*s->r));
	s->r[i] = (struct range){ a, b };
	s->n++;
}

static void
remove_at(struct rset *s, size_t i)
{
	memmove(&s->r[i], &s->r[i + 1], (s->n - i - 1) * sizeof(*s->r));
	s->n--;
}

/* Add [a, b), merged with the ranges it touches. */
static void
rset_add(struct rset *s, uint64_t a, uint64_t b)
{
	size_t i = after(s, a > 0 ? a - 1 : 0);

	while (i < s->n && s->r[i].a <= b && s->r[i].b >= a) {
		a = GMS_MIN(a, s->r[i].a);
		b = GMS_MAX(b, s->r[i].b);
		remove_at(s, i);
	}
	insert_at(s, i, a, b);
}

/* Take [a, b) out of whatever ranges overlap it. */
static void
rset_sub(struct rset *s, uint64_t a, uint64_t b)
{
	size_t i = after(s, a);

	while (i < s->n && s->r[i].a < b) {
		struct range r = s->r[i];

		remove_at(s, i);
		if (r.b > b)
			insert_at(s, i, b, r.b);
		if (r.a < a) {
			insert_at(s, i, r.a, a);
			i++;
		}
	}
}

struct driver *
driver_create(void)
{
	struct driver *d = gms_calloc(1, sizeof(*d));

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
	free(d->holes.r);
	free(d->released.r);
	free(d->slots);
	free(d);
}

/* The slot holding addr, or NULL. */
static struct slot *
slot_of(struct driver *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nslots;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->slots[mid].a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= d->slots[lo - 1].a + d->slots[lo - 1].span)
		return NULL;
	return &d->slots[lo - 1];
}

static void
slot_add(struct driver *d, uint64_t a, uint64_t span)
{
	size_t i = 0;

	if (d->nslots == d->capslots) {
		d->capslots = d->capslots ? 2 * d->capslots : 16;
		d->slots = gms_realloc(d->slots, d->capslots * sizeof(*d->slots));
	}
	while (i < d->nslots && d->slots[i].a < a)
		i++;
	memmove(&d->slots[i + 1], &d->slots[i], (d->nslots - i) * sizeof(*d->slots));
	d->slots[i] = (struct slot){ a, span, 1 };
	d->nslots++;
}

static int
place_raw(struct driver *d, uint64_t size, uint64_t *addr)
{
	uint64_t span = (size + SLOT - 1) / SLOT * SLOT, at;
	size_t i, scanned = 0;
	struct slot *sl;

	if (size == 0 || span < size)
		return -1;
	/* a hole that runs across slots (the rest of one, the freed bottom of the
	   next) is as many holes: a reservation never spans two slots */
	for (i = 0; i < d->holes.n && scanned++ < DRV_SCAN; i++) {
		uint64_t end;

		for (at = d->holes.r[i].a; at < d->holes.r[i].b; at = end) {
			sl = slot_of(d, at);
			end = sl != NULL ? GMS_MIN(d->holes.r[i].b, sl->a + sl->span) :
			    d->holes.r[i].b;
			if (end - at < size)
				continue;
			rset_sub(&d->holes, at, at + size);
			if (sl != NULL)
				sl->live++;
			*addr = at;
			return 0;
		}
	}
	for (i = d->released.n; i-- > 0;)
		if (d->released.r[i].b - d->released.r[i].a > span)
			break;
	if (i != (size_t)-1) {
		at = d->released.r[i].b - span;
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
	struct slot gone;
	size_t i;

	if (sl == NULL || --sl->live > 0) {
		rset_add(&d->holes, addr, addr + size);
		return;
	}
	gone = *sl;
	i = (size_t)(sl - d->slots);
	memmove(&d->slots[i], &d->slots[i + 1], (d->nslots - i - 1) * sizeof(*d->slots));
	d->nslots--;
	rset_sub(&d->holes, gone.a, gone.a + gone.span);
	rset_add(&d->released, gone.a, gone.a + gone.span);
	/* released slots at the edge give their space back to it */
	while ((i = after(&d->released, d->top)) < d->released.n &&
	    d->released.r[i].a == d->top) {
		d->top = d->released.r[i].b;
		remove_at(&d->released, i);
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
	d->hidden[d->nhidden++] = (struct range){ at, at + size };
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
