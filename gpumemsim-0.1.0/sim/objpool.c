/*
 * objpool.c - the object pool of objpool.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "sim/objpool.h"

/* A chunk starts with its link, padded so objects stay aligned. */
#define CHUNK_HEADER (sizeof(max_align_t))

void
objpool_init(struct objpool *p, size_t size, size_t per_chunk)
{
	memset(p, 0, sizeof(*p));
	size = GMS_MAX(size, sizeof(void *));
	p->size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	p->per_chunk = per_chunk;
}

void *
objpool_get(struct objpool *p)
{
	char *chunk, *obj;
	size_t i;

	if (p->spare == NULL) {
		chunk = gms_malloc(CHUNK_HEADER + p->size * p->per_chunk);
		*(void **)chunk = p->chunks;
		p->chunks = chunk;
		for (i = 0; i < p->per_chunk; i++) {
			obj = chunk + CHUNK_HEADER + i * p->size;
			*(void **)obj = p->spare;
			p->spare = obj;
		}
	}
	obj = p->spare;
	p->spare = *(void **)obj;
	return memset(obj, 0, p->size);
}

void
objpool_put(struct objpool *p, void *obj)
{
	*(void **)obj = p->spare;
	p->spare = obj;
}

void
objpool_destroy(struct objpool *p)
{
	void *chunk, *next;

	for (chunk = p->chunks; chunk != NULL; chunk = next) {
		next = *(void **)chunk;
		free(chunk);
	}
	memset(p, 0, sizeof(*p));
}
