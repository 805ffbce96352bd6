/*
 * idtable.c - the live-id table (idtable.h).  Fibonacci hashing spreads the
 * sequential ids traces use; the table doubles at half full, so probes stay
 * short.  The ids sit in their own array, eight to a cache line, so a probe
 * reads that array alone and only the record found is touched: with 100k
 * ids live, a lookup is then one miss instead of two.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "sim/idtable.h"

#define MIN_CAP 1024

static size_t
slot_of(const struct idtable *t, uint64_t id)
{
	return (size_t)((id * 0x9E3779B97F4A7C15ULL) >> t->shift);
}

static void
alloc_slots(struct idtable *t, size_t cap)
{
	unsigned bits = 0;

	while (((size_t)1 << bits) < cap)
		bits++;
	t->cap = cap;
	t->shift = 64 - bits;
	t->keys = gms_calloc(cap, sizeof(*t->keys));
	t->slots = gms_calloc(cap, sizeof(*t->slots));
}

void
idtable_init(struct idtable *t)
{
	memset(t, 0, sizeof(*t));
	alloc_slots(t, MIN_CAP);
}

void
idtable_free(struct idtable *t)
{
	free(t->keys);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

struct idrec *
idtable_find(const struct idtable *t, uint64_t id)
{
	size_t i = slot_of(t, id), mask = t->cap - 1;

	for (;; i = (i + 1) & mask) {
		if (t->keys[i] == 0)
			return NULL;
		if (t->keys[i] == id + 1)
			return &t->slots[i];
	}
}

static void
grow(struct idtable *t)
{
	struct idrec *old = t->slots;
	uint64_t *oldkeys = t->keys;
	size_t oldcap = t->cap, i, j, mask;

	alloc_slots(t, oldcap * 2);
	mask = t->cap - 1;
	for (i = 0; i < oldcap; i++) {
		if (oldkeys[i] == 0)
			continue;
		for (j = slot_of(t, oldkeys[i] - 1); t->keys[j] != 0; j = (j + 1) & mask)
			;
		t->keys[j] = oldkeys[i];
		t->slots[j] = old[i];
	}
	free(oldkeys);
	free(old);
}

struct idrec *
idtable_claim(struct idtable *t, uint64_t id, uint64_t event, int *fresh)
{
	size_t i, mask;

	GMS_ASSERT(id != UINT64_MAX);
	if (2 * (t->n + 1) > t->cap)
		grow(t);
	mask = t->cap - 1;
	for (i = slot_of(t, id); t->keys[i] != 0; i = (i + 1) & mask)
		if (t->keys[i] == id + 1) {
			*fresh = 0;
			return &t->slots[i];
		}
	*fresh = 1;
	t->n++;
	t->keys[i] = id + 1;
	t->slots[i] = (struct idrec){ .event1 = event + 1 };
	return &t->slots[i];
}

void
idtable_delete(struct idtable *t, struct idrec *r)
{
	size_t i = (size_t)(r - t->slots), j = i, k, mask = t->cap - 1;

	/* Shift back every record of the run after i that may sit in i's place. */
	for (;;) {
		t->keys[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (t->keys[j] == 0) {
				t->n--;
				return;
			}
			k = slot_of(t, t->keys[j] - 1);
			/* k is cyclically outside (i, j]: the record may move to i */
			if (i <= j ? (k <= i || k > j) : (k <= i && k > j))
				break;
		}
		t->keys[i] = t->keys[j];
		t->slots[i] = t->slots[j];
		i = j;
	}
}
