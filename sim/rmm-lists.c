/*
 * rmm-lists.c - RMM's two free lists and the stream-ordered base over them
 * (sim/rmm.h says what each follows).
 *
 * The coalescing list is RMM's address-ordered std::list searched in full for
 * the best fit: here two trees, by address (for the neighbours a freed block
 * merges with) and by (size, address), whose first entry at or above the
 * request is exactly the block RMM's min_element finds (the smallest that
 * fits, the lowest address among equals).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "sim/rmm.h"

static int
rmm_addr_cmp(const struct rmm_blk *a, const struct rmm_blk *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int
rmm_size_cmp(const struct rmm_blk *a, const struct rmm_blk *b)
{
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return rmm_addr_cmp(a, b);
}

RB_GENERATE(rmm_addr_tree, rmm_blk, by_addr, rmm_addr_cmp)
RB_GENERATE(rmm_size_tree, rmm_blk, by_size, rmm_size_cmp)

static void
list_init(struct rmm_list *l)
{
	RB_INIT(&l->addr);
	RB_INIT(&l->size);
	TAILQ_INIT(&l->fifo);
	l->bytes = 0;
}

static void
list_insert(struct rmm_so *so, struct rmm_list *l, struct rmm_blk *b)
{
	struct rmm_blk *next, *prev;
	int merge_prev, merge_next;

	so->free_bytes += b->size;
	l->bytes += b->size;
	b->requested = 0;
	if (so->kind == RMM_FIFO) {
		TAILQ_INSERT_TAIL(&l->fifo, b, fifo);
		return;
	}
	next = RB_NFIND(rmm_addr_tree, &l->addr, b);
	prev = next != NULL ? RB_PREV(rmm_addr_tree, &l->addr, next) :
	    RB_MAX(rmm_addr_tree, &l->addr);
	/* a head starts an upstream block: nothing merges across it */
	merge_prev = prev != NULL && prev->addr + prev->size == b->addr && !b->head;
	merge_next = next != NULL && b->addr + b->size == next->addr && !next->head;
	if (merge_prev) {
		RB_REMOVE(rmm_size_tree, &l->size, prev);
		prev->size += b->size;
		objpool_put(so->blks, b);
		if (merge_next) {
			RB_REMOVE(rmm_size_tree, &l->size, next);
			RB_REMOVE(rmm_addr_tree, &l->addr, next);
			prev->size += next->size;
			objpool_put(so->blks, next);
		}
		RB_INSERT(rmm_size_tree, &l->size, prev);
	} else if (merge_next) {
		/* b takes next's place: the address order is unchanged */
		RB_REMOVE(rmm_size_tree, &l->size, next);
		next->addr = b->addr;
		next->size += b->size;
		next->head = b->head;
		objpool_put(so->blks, b);
		RB_INSERT(rmm_size_tree, &l->size, next);
	} else {
		RB_INSERT(rmm_addr_tree, &l->addr, b);
		RB_INSERT(rmm_size_tree, &l->size, b);
	}
}

static void
list_remove(struct rmm_so *so, struct rmm_list *l, struct rmm_blk *b)
{
	so->free_bytes -= b->size;
	l->bytes -= b->size;
	if (so->kind == RMM_FIFO) {
		TAILQ_REMOVE(&l->fifo, b, fifo);
		return;
	}
	RB_REMOVE(rmm_addr_tree, &l->addr, b);
	RB_REMOVE(rmm_size_tree, &l->size, b);
}

/* get_block() of a list: best fit, or the first of a FIFO; NULL if none fits. */
static struct rmm_blk *
list_get(struct rmm_so *so, struct rmm_list *l, uint64_t size)
{
	struct rmm_blk key = { .size = size, .addr = 0 }, *b;

	if (so->kind == RMM_FIFO)
		b = TAILQ_FIRST(&l->fifo);
	else
		b = RB_NFIND(rmm_size_tree, &l->size, &key);
	if (b != NULL)
		list_remove(so, l, b);
	return b;
}

/* insert(free_list&&): src's blocks into dst, in src's order; src is left empty. */
static void
list_merge(struct rmm_so *so, struct rmm_list *dst, struct rmm_list *src)
{
	struct rmm_blk *b;

	if (so->kind == RMM_FIFO) {
		dst->bytes += src->bytes;
		src->bytes = 0;
		TAILQ_CONCAT(&dst->fifo, &src->fifo, fifo);
		return;
	}
	while ((b = RB_MIN(rmm_addr_tree, &src->addr)) != NULL) {
		list_remove(so, src, b);
		list_insert(so, dst, b);
	}
}

void
rmm_so_init(struct rmm_so *so, enum rmm_list_kind kind, enum rmm_order order,
    struct objpool *blks)
{
	memset(so, 0, sizeof(*so));
	so->kind = kind;
	so->order = order;
	so->blks = blks;
}

void
rmm_so_destroy(struct rmm_so *so)
{
	struct rmm_stream *s, *tmp;

	HASH_ITER(hh, so->hash, s, tmp) {
		HASH_DEL(so->hash, s);
		free(s);
	}
	free(so->seq);
	memset(so, 0, sizeof(*so));
}

struct rmm_stream *
rmm_so_stream(struct rmm_so *so, int64_t stream)
{
	struct rmm_stream *s;
	size_t at;

	/* RMM files the default stream's blocks under cudaStreamLegacy (1) */
	if (stream == 0)
		stream = 1;
	HASH_FIND(hh, so->hash, &stream, sizeof(stream), s);
	if (s != NULL)
		return s;
	s = gms_calloc(1, sizeof(*s));
	s->key = stream;
	list_init(&s->list);
	HASH_ADD(hh, so->hash, key, sizeof(s->key), s);
	if (so->n == so->cap) {
		so->cap = so->cap ? 2 * so->cap : 8;
		so->seq = gms_realloc(so->seq, so->cap * sizeof(*so->seq));
	}
	at = so->n;
	if (so->order == RMM_ORDER_HANDLE)
		while (at > 0 && so->seq[at - 1]->key > stream)
			at--;
	memmove(&so->seq[at + 1], &so->seq[at], (so->n - at) * sizeof(*so->seq));
	so->seq[at] = s;
	so->n++;
	return s;
}

void
rmm_so_insert(struct rmm_so *so, struct rmm_stream *s, struct rmm_blk *b)
{
	list_insert(so, &s->list, b);
}

void
rmm_so_remove(struct rmm_so *so, struct rmm_stream *s, struct rmm_blk *b)
{
	list_remove(so, &s->list, b);
}

struct rmm_blk *
rmm_so_take(struct rmm_so *so, struct rmm_stream *s, uint64_t size)
{
	return list_get(so, &s->list, size);
}

uint64_t
rmm_blk_addr(void *state, void *handle)
{
	return ((struct rmm_blk *)handle)->addr;
}

struct rmm_blk *
rmm_so_get(struct rmm_so *so, const struct rmm_so_ops *ops, void *arg, uint64_t size,
    int64_t stream)
{
	struct rmm_stream *own = rmm_so_stream(so, stream), *o;
	struct rmm_blk *b;
	size_t i;

	if ((b = list_get(so, &own->list, size)) != NULL)
		return ops->split(arg, b, size, own);
	/* a block another stream freed: taken as it is, its rest left there */
	for (i = 0; i < so->n; i++) {
		o = so->seq[i];
		if (o != own && (b = list_get(so, &o->list, size)) != NULL)
			return ops->split(arg, b, size, o);
	}
	/* then the other lists merged into this one, one at a time */
	for (i = 0; i < so->n; i++) {
		o = so->seq[i];
		if (o == own)
			continue;
		list_merge(so, &own->list, &o->list);
		if ((b = list_get(so, &own->list, size)) != NULL)
			return ops->split(arg, b, size, own);
	}
	if ((b = ops->expand(arg, size, own)) == NULL)
		return NULL;
	return ops->split(arg, b, size, own);
}

uint64_t
rmm_so_largest(const struct rmm_so *so)
{
	const struct rmm_blk *b;
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < so->n; i++) {
		if (so->kind == RMM_FIFO)
			b = TAILQ_FIRST(&so->seq[i]->list.fifo);
		else
			b = RB_MAX(rmm_size_tree, &so->seq[i]->list.size);
		if (b != NULL && b->size > max)
			max = b->size;
	}
	return max;
}

void
rmm_so_each(const struct rmm_so *so, void (*fn)(void *arg, const struct rmm_blk *b), void *arg)
{
	struct rmm_blk *b;
	size_t i;

	for (i = 0; i < so->n; i++) {
		if (so->kind == RMM_FIFO) {
			TAILQ_FOREACH(b, &so->seq[i]->list.fifo, fifo)
				fn(arg, b);
		} else {
			RB_FOREACH(b, rmm_addr_tree, &so->seq[i]->list.addr)
				fn(arg, b);
		}
	}
}

int
rmm_opt_order(const char *policy, const struct policy_args *args, enum rmm_order *order,
    char **cause)
{
	static const char *const orders[] = { "created", "handle", NULL };
	int i = 0, err;

	if ((err = policy_opt_choice(policy, args, "order", orders, &i, cause)) < 0)
		return err;
	*order = i == 1 ? RMM_ORDER_HANDLE : RMM_ORDER_CREATED;
	return 0;
}
