/*
 * seglog.c - a run's segments over its events (seglog.h): lives appended as
 * the hook reports them, the live ones found again by address when given
 * back (a red-black tree: a partial release, or one of a life past
 * SEGLOG_MAX, finds the life holding it without walking them all), a partial
 * release splitting a mapped range.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/sys/tree.h>

#include "analysis/seglog.h"
#include "sim/gms.h"
#include "sim/policy.h"

struct seg_index {
	uint64_t addr;
	size_t i;		/* into the log's lives */
	RB_ENTRY(seg_index) link;
};

static int
index_cmp(const struct seg_index *x, const struct seg_index *y)
{
	return (x->addr > y->addr) - (x->addr < y->addr);
}

RB_PROTOTYPE(seg_live_tree, seg_index, link, index_cmp)
RB_GENERATE(seg_live_tree, seg_index, link, index_cmp)

void
seg_log_init(struct seg_log *l)
{
	memset(l, 0, sizeof(*l));
	RB_INIT(&l->live);
}

static void
clear_live(struct seg_log *l)
{
	struct seg_index *e, *et;

	RB_FOREACH_SAFE(e, seg_live_tree, &l->live, et) {
		RB_REMOVE(seg_live_tree, &l->live, e);
		free(e);
	}
}

void
seg_log_free(struct seg_log *l)
{
	clear_live(l);
	free(l->v);
	seg_log_init(l);
}

static void
add(struct seg_log *l, uint64_t addr, uint64_t size, uint64_t start)
{
	struct seg_index *e, key = { .addr = addr };

	if (l->n == SEGLOG_MAX) {
		l->dropped++;
		return;
	}
	if (l->n == l->cap)
		l->v = gms_realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 256) * sizeof(*l->v));
	l->v[l->n] = (struct seg_life){ .addr = addr, .size = size, .start = start,
	    .end = SEGLOG_LIVE };
	if ((e = RB_FIND(seg_live_tree, &l->live, &key)) == NULL) {
		e = gms_malloc(sizeof(*e));
		e->addr = addr;
		RB_INSERT(seg_live_tree, &l->live, e);
	}
	e->i = l->n++;
}

/* Release [addr, addr + size): the life that starts there, or the one holding it. */
static void
release(struct seg_log *l, uint64_t addr, uint64_t size)
{
	struct seg_index *e, key = { .addr = addr };
	struct seg_life was;

	/* the life at addr, else the one below it, when it holds addr */
	if ((e = RB_FIND(seg_live_tree, &l->live, &key)) == NULL) {
		key.addr = addr + 1;
		e = addr == UINT64_MAX ? NULL : RB_NFIND(seg_live_tree, &l->live, &key);
		e = e != NULL ? RB_PREV(seg_live_tree, &l->live, e) :
		    RB_MAX(seg_live_tree, &l->live);
		if (e != NULL && !(addr < l->v[e->i].addr + l->v[e->i].size))
			e = NULL;
	}
	if (e == NULL)
		return;		/* a life past SEGLOG_MAX */
	was = l->v[e->i];
	l->v[e->i].end = l->next;
	RB_REMOVE(seg_live_tree, &l->live, e);
	free(e);
	/* what of a mapped range stays mapped lives on, from its first event */
	if (was.addr < addr)
		add(l, was.addr, addr - was.addr, was.start);
	if (addr + size < was.addr + was.size)
		add(l, addr + size, was.addr + was.size - addr - size, was.start);
}

void
seg_log_hook(void *arg, int reserve, uint64_t addr, uint64_t size)
{
	struct seg_log *l = arg;

	if (l->stopped)
		return;
	if (reserve)
		add(l, addr, size, l->next);
	else
		release(l, addr, size);
}

static void
walk_seg(void *arg, const struct policy_walk_segment *s)
{
	add(arg, s->addr, s->size, 0);
}

static void
walk_block(void *arg, const struct policy_walk_block *b)
{
	(void)arg;
	(void)b;
}

void
seg_log_sample(void *arg, const struct sim_sample *smp)
{
	struct seg_log *l = arg;

	if (!l->started && smp->sim != NULL) {
		/* what the first event left, a pool made before it included */
		l->started = 1;
		l->n = 0;
		clear_live(l);
		sim_policy(smp->sim)->walk(sim_policy_state(smp->sim), walk_seg, walk_block, l);
	}
	l->next = smp->event + 1;
	l->stopped |= smp->stopped;
	if (l->next_fn != NULL)
		l->next_fn(l->next_arg, smp);
}
