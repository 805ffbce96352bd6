/*
 * device-recorded.c - the recorded device: segment addresses taken in order
 * from a recording (a trace's observed segment_alloc events, or the segments
 * of a recorded run), so that best fit's ties between equal-size blocks break
 * exactly as they did on the real GPU.  A reserve whose size does not match
 * the next recorded segment (the simulation went another way) is placed by the
 * model and counted as a divergence, so a run never fails for it.
 *
 * Every live segment, recorded or placed, is kept in one address-ordered
 * tree: a recorded address that would overlap a live segment is refused (a
 * hostile trace, or one whose addresses came from the model itself), and a
 * range the model offers that overlaps a live recorded segment is held back
 * from the model until the end and another asked for.
 */
#include "config.h"

#include <stdlib.h>

#include <bsd/sys/tree.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/placement.h"

struct live_seg {
	uint64_t addr, size;
	int recorded;		/* from the queue (else placed by the model) */
	RB_ENTRY(live_seg) link;
	struct live_seg *next_held;
};

static int
seg_cmp(const struct live_seg *a, const struct live_seg *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(rec_tree, live_seg);
RB_PROTOTYPE(rec_tree, live_seg, link, seg_cmp)
RB_GENERATE(rec_tree, live_seg, link, seg_cmp)

/* Model ranges held back (they overlapped a recorded segment): at most this many a request. */
#define HOLD_MAX 64

/* What the driver backs for a recorded segment: whole 2 MiB pages. */
#define PAGE (2 * GMS_MiB)

struct recorded {
	uint64_t *addr, *size;	/* the queue: [head, len) not yet handed out */
	size_t head, len, cap;
	struct placement *model;
	struct rec_tree live;	/* every segment in use */
	struct live_seg *held;	/* model ranges held back, a list */
	uint64_t live_physical;	/* pages backing the recorded segments in use */
	struct device_recorded_stats st;
};

/* The live segment overlapping [addr, addr + size), or NULL. */
static struct live_seg *
overlap(struct recorded *rc, uint64_t addr, uint64_t size)
{
	struct live_seg key = { .addr = addr }, *n;

	n = RB_NFIND(rec_tree, &rc->live, &key);	/* the first at or above addr */
	if (n != NULL && n->addr < addr + size)
		return n;
	n = n ? RB_PREV(rec_tree, &rc->live, n) : RB_MAX(rec_tree, &rc->live);
	if (n != NULL && n->addr + n->size > addr)
		return n;
	return NULL;
}

static void
add_live(struct recorded *rc, uint64_t addr, uint64_t size, int recorded)
{
	struct live_seg *s = gms_calloc(1, sizeof(*s));

	s->addr = addr;
	s->size = size;
	s->recorded = recorded;
	RB_INSERT(rec_tree, &rc->live, s);
}

static int
rec_reserve(struct device *d, uint64_t size, uint64_t *addr)
{
	struct recorded *rc = d->priv;
	struct live_seg *h;
	int tries;

	rc->st.asked++;
	if (rc->head < rc->len && rc->size[rc->head] == size &&
	    overlap(rc, rc->addr[rc->head], size) == NULL &&
	    rc->addr[rc->head] + size > rc->addr[rc->head]) {
		*addr = rc->addr[rc->head++];
		add_live(rc, *addr, size, 1);
		rc->live_physical += (size + PAGE - 1) / PAGE * PAGE;
		rc->st.used++;
		return 0;
	}
	if (rc->st.diverged++ == 0)
		rc->st.first_divergence = d->c.allocs;
	for (tries = 0; tries < HOLD_MAX; tries++) {
		if (placement_place(rc->model, size, addr) < 0)
			return GMS_EOOM;
		if (overlap(rc, *addr, size) == NULL) {
			add_live(rc, *addr, size, 0);
			return 0;
		}
		h = gms_calloc(1, sizeof(*h));
		h->addr = *addr;
		h->size = size;
		h->next_held = rc->held;
		rc->held = h;
	}
	return GMS_EOOM;
}

static void
rec_release(struct device *d, uint64_t addr, uint64_t size)
{
	struct recorded *rc = d->priv;
	struct live_seg key = { .addr = addr }, *s;

	s = RB_FIND(rec_tree, &rc->live, &key);
	GMS_ASSERT(s != NULL);
	RB_REMOVE(rec_tree, &rc->live, s);
	if (s->recorded)
		rc->live_physical -= (s->size + PAGE - 1) / PAGE * PAGE;
	else
		placement_remove(rc->model, addr, size);
	free(s);
}

static uint64_t
rec_physical(struct device *d)
{
	struct recorded *rc = d->priv;

	return rc->live_physical + placement_physical(rc->model);
}

static int
rec_reserve_va(struct device *d, uint64_t size, uint64_t *addr)
{
	return placement_reserve_va(((struct recorded *)d->priv)->model, size, addr) < 0 ? GMS_EOOM : 0;
}

static void
rec_release_va(struct device *d, uint64_t addr, uint64_t size)
{
	placement_release_va(((struct recorded *)d->priv)->model, addr, size);
}

static int
rec_map(struct device *d, uint64_t addr, uint64_t size)
{
	placement_map(((struct recorded *)d->priv)->model, size);
	return 0;
}

static void
rec_unmap(struct device *d, uint64_t addr, uint64_t size)
{
	placement_unmap(((struct recorded *)d->priv)->model, size);
}

static void
rec_destroy(struct device *d)
{
	struct recorded *rc = d->priv;
	struct live_seg *s, *next;

	for (s = RB_MIN(rec_tree, &rc->live); s != NULL; s = next) {
		next = RB_NEXT(rec_tree, &rc->live, s);
		RB_REMOVE(rec_tree, &rc->live, s);
		free(s);
	}
	for (s = rc->held; s != NULL; s = next) {
		next = s->next_held;
		free(s);
	}
	placement_destroy(rc->model);
	free(rc->addr);
	free(rc->size);
	free(rc);
	free(d);
}

static const struct device_ops device_recorded_ops = {
	.name = "recorded",
	.reserve = rec_reserve,
	.release = rec_release,
	.physical = rec_physical,
	.reserve_va = rec_reserve_va,
	.release_va = rec_release_va,
	.map = rec_map,
	.unmap = rec_unmap,
	.destroy = rec_destroy,
};

struct device *
device_recorded_create(uint64_t capacity)
{
	struct device *d = gms_calloc(1, sizeof(*d));
	struct recorded *rc = gms_calloc(1, sizeof(*rc));

	rc->model = placement_create(0);
	RB_INIT(&rc->live);
	d->ops = &device_recorded_ops;
	d->capacity = capacity;
	d->priv = rc;
	return d;
}

void
device_recorded_push(struct device *d, uint64_t addr, uint64_t size)
{
	struct recorded *rc = d->priv;

	GMS_ASSERT(d->ops == &device_recorded_ops);
	if (rc->head > 0 && rc->head == rc->len)
		rc->head = rc->len = 0;
	if (rc->len == rc->cap) {
		rc->cap = rc->cap ? rc->cap * 2 : 64;
		rc->addr = gms_realloc(rc->addr, rc->cap * sizeof(*rc->addr));
		rc->size = gms_realloc(rc->size, rc->cap * sizeof(*rc->size));
	}
	rc->addr[rc->len] = addr;
	rc->size[rc->len++] = size;
	rc->st.pushed++;
}

void
device_recorded_stats(const struct device *d, struct device_recorded_stats *st)
{
	const struct recorded *rc = d->priv;

	GMS_ASSERT(d->ops == &device_recorded_ops);
	*st = rc->st;
}
