/*
 * device-recorded.c - the recorded device: segment addresses taken in order
 * from a recording (a trace's observed segment_alloc events, or the segments
 * of a recorded run), so that best fit's ties between equal-size blocks break
 * exactly as they did on the real GPU.  A reserve whose size does not match
 * the next recorded segment (the simulation went another way) is placed by the
 * model and counted as a divergence, so a run never fails for it.
 */
#include "config.h"

#include <stdlib.h>

#include <uthash.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/placement.h"

struct live_seg {
	uint64_t addr, size;
	UT_hash_handle hh;
};

/* What the driver backs for a recorded segment: whole 2 MiB pages. */
#define PAGE (2 * GMS_MiB)

struct recorded {
	uint64_t *addr, *size;	/* the queue: [head, len) not yet handed out */
	size_t head, len, cap;
	struct placement *model;
	struct live_seg *live;	/* recorded addresses in use, to refuse a
				   recorded address that would overlap */
	uint64_t live_physical;	/* pages backing the recorded segments in use */
	struct device_recorded_stats st;
};

static int
rec_reserve(struct device *d, uint64_t size, uint64_t *addr)
{
	struct recorded *rc = d->priv;
	struct live_seg *s = NULL;

	rc->st.asked++;
	if (rc->head < rc->len && rc->size[rc->head] == size)
		HASH_FIND(hh, rc->live, &rc->addr[rc->head], sizeof(uint64_t), s);
	if (rc->head < rc->len && rc->size[rc->head] == size && s == NULL) {
		*addr = rc->addr[rc->head++];
		s = gms_malloc(sizeof(*s));
		s->addr = *addr;
		HASH_ADD(hh, rc->live, addr, sizeof(uint64_t), s);
		s->size = size;
		rc->live_physical += (size + PAGE - 1) / PAGE * PAGE;
		rc->st.used++;
		return 0;
	}
	if (rc->st.diverged++ == 0)
		rc->st.first_divergence = d->c.allocs;
	return placement_place(rc->model, size, addr) < 0 ? GMS_EOOM : 0;
}

static void
rec_release(struct device *d, uint64_t addr, uint64_t size)
{
	struct recorded *rc = d->priv;
	struct live_seg *s;

	HASH_FIND(hh, rc->live, &addr, sizeof(addr), s);
	if (s != NULL) {
		rc->live_physical -= (s->size + PAGE - 1) / PAGE * PAGE;
		HASH_DEL(rc->live, s);
		free(s);
	} else {
		placement_remove(rc->model, addr, size);
	}
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
	struct live_seg *s, *tmp;

	HASH_ITER(hh, rc->live, s, tmp) {
		HASH_DEL(rc->live, s);
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

	rc->model = placement_create();
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
