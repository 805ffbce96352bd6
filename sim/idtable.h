/*
 * idtable.h - the trace's live allocations by id: an open-addressing table
 * (linear probing, deletion by shifting back, no tombstones) whose ids sit
 * in one array and 32-byte records in another, so a lookup is one hash, a
 * probe of the ids (eight to a cache line) and one record, where uthash's
 * chained 96-byte records cost a pointer chase each.  Memory follows the
 * most ids live at once.
 */
#ifndef SIM_IDTABLE_H
#define SIM_IDTABLE_H

#include <stddef.h>
#include <stdint.h>

struct idrec {
	uint64_t size;		/* requested bytes */
	uint64_t block;		/* bytes the policy counts for it */
	uint64_t event1;	/* where it was allocated, plus 1 */
	void *handle;		/* the policy's block; NULL if never given to it */
};

struct idtable {
	uint64_t *keys;		/* id + 1 (ids are below 2^53); 0: a free slot */
	struct idrec *slots;	/* the record of keys[i] */
	size_t cap, n;		/* cap a power of two, n < cap / 2 */
	unsigned shift;		/* 64 - log2(cap), for the hash */
};

void idtable_init(struct idtable *t);
void idtable_free(struct idtable *t);
/* The record of id, or NULL. */
struct idrec *idtable_find(const struct idtable *t, uint64_t id);
/* id's record if it is there (*fresh 0), else a fresh one (*fresh 1) that
   the caller fills: one probe where a lookup and an insert would take two. */
struct idrec *idtable_claim(struct idtable *t, uint64_t id, uint64_t event, int *fresh);
/* Remove r (from idtable_find): other records may move. */
void idtable_delete(struct idtable *t, struct idrec *r);

#endif /* SIM_IDTABLE_H */
