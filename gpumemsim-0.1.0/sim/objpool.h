/*
 * objpool.h - fixed-size objects carved from chunks and recycled through a
 * free list, so hot paths (a block per split, a live record per allocation)
 * make no host allocation once warm.  Objects never move; all are freed with
 * the pool.
 */
#ifndef SIM_OBJPOOL_H
#define SIM_OBJPOOL_H

#include <stddef.h>

struct objpool {
	size_t size;		/* object size, at least a pointer */
	size_t per_chunk;
	void *chunks;		/* linked through each chunk's first word */
	void *spare;		/* free objects, linked through their first word */
};

void objpool_init(struct objpool *p, size_t size, size_t per_chunk);
/* A zeroed object. */
void *objpool_get(struct objpool *p);
void objpool_put(struct objpool *p, void *obj);
void objpool_destroy(struct objpool *p);

#endif /* SIM_OBJPOOL_H */
