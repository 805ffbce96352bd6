/*
 * pickle-emit.c - the snapshot reader's events (pickle-snap.h): the
 * seeds, then each record as the events it stands for, and what the
 * recording allocator observed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/pickle-snap.h"

/* Event ev, and for a free the requested bytes of the block it frees (the emitter knows them). */
static void
observe(struct observed *o, const struct trace_event *ev, uint64_t freed)
{
	switch (ev->op) {
	case TRACE_SEGMENT_ALLOC:
	case TRACE_SEGMENT_MAP:
		o->reserved += ev->size;
		o->peak_reserved = GMS_MAX(o->peak_reserved, o->reserved);
		o->dallocs++;
		break;
	case TRACE_SEGMENT_FREE:
	case TRACE_SEGMENT_UNMAP:
		o->reserved -= GMS_MIN(o->reserved, ev->size);
		o->dfrees++;
		break;
	case TRACE_ALLOC:
		o->requested += ev->size;
		o->peak_requested = GMS_MAX(o->peak_requested, o->requested);
		break;
	case TRACE_FREE:
		o->requested -= GMS_MIN(o->requested, freed);
		break;
	case TRACE_OOM:
		o->ooms++;
		break;
	default:
		break;
	}
}

cJSON *
snap_observed_json(const struct observed *ob)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "allocator", "pytorch-caching");
	cJSON_AddNumberToObject(o, "peak_reserved", (double)ob->peak_reserved);
	cJSON_AddNumberToObject(o, "peak_requested", (double)ob->peak_requested);
	cJSON_AddNumberToObject(o, "device_allocs", (double)ob->dallocs);
	cJSON_AddNumberToObject(o, "device_frees", (double)ob->dfrees);
	cJSON_AddNumberToObject(o, "ooms", (double)ob->ooms);
	return o;
}

void
snap_emit_free(struct emitter *em)
{
	snap_clear_map(&em->live);
	snap_cursor_free(&em->cur);
	snap_cursor_free(&em->look);
}

/* (Re)start em from the first seed; the first run, with lim and ob, also counts for the header. */
void
snap_emit_start(struct emitter *em, struct scan *sc, const struct pools *pl, const struct recs *rs,
    struct limit_scan *lim, struct observed *ob)
{
	snap_emit_free(em);
	memset(em, 0, sizeof(*em));
	em->sc = sc;
	em->pl = pl;
	em->rs = rs;
	em->lim = lim;
	em->ob = ob;
	em->id = 1;
	snap_cursor_init(&em->cur, rs);
	snap_cursor_init(&em->look, rs);
}

static struct trace_event *
queue(struct emitter *em, enum trace_op op)
{
	struct trace_event *pe = &em->q[em->nq++];

	memset(pe, 0, sizeof(*pe));
	pe->op = op;
	em->freed[em->nq - 1] = 0;
	return pe;
}

/* Record em->i's events into the queue. */
static void
emit_rec(struct pickle_state *st, struct emitter *em, const struct rec *r)
{
	struct trace_event *pe;
	/* only a free looks its block up */
	struct addr_id *a = r->kind == 1 ? snap_map_find(em->live, r->addr) : NULL;

	if (r->kind == 1 && a == NULL)
		return;		/* cannot happen: snap_scan_entry() seeded it */
	if ((r->kind == 3 || r->kind == 5) && !em->in_release) {
		em->asked = snap_called_empty_cache(st, &em->look, em->i);
		if (em->asked) {
			pe = queue(em, TRACE_EMPTY_CACHE);
			if (r->t >= 0) {
				pe->t_us = r->t;
				pe->flags |= TRACE_HAS_TIME;
			}
			if (em->lim != NULL)
				em->sc->empty_caches++;
		}
	}
	em->in_release = r->kind == 3 || r->kind == 5;
	if (em->lim != NULL)
		snap_limit_event(em->lim, r->kind, r->size, em->in_release && em->asked);
	pe = queue(em, snap_action_ops[r->kind]);
	pe->size = r->size;
	if (r->t >= 0) {
		pe->t_us = r->t;
		pe->flags |= TRACE_HAS_TIME;
	}
	switch (r->kind) {
	case 0:
		pe->id = em->id;
		snap_map_add(&em->live, r->addr, em->id++, r->size);
		pe->addr = r->addr;
		pe->stream = trace_pool_stream(snap_pool_of(em->pl, r->addr, em->i), r->stream);
		pe->flags |= TRACE_HAS_ADDR | TRACE_HAS_STREAM;
		pe->at = st->sum[r->sid].at;
		pe->stack = snap_frame_stack(st, r->sid);
		break;
	case 1:
		pe->id = a->id;
		pe->size = 0;	/* a free names its block; the size is the alloc's */
		em->freed[em->nq - 1] = a->size;
		HASH_DEL(em->live, a);
		free(a);
		break;
	case 6:
		/* the request that failed: replayed as one, never freed */
		pe->id = em->id++;
		pe->stream = r->stream;
		pe->flags |= TRACE_HAS_ID | TRACE_HAS_STREAM;
		pe->at = st->sum[r->sid].at;
		pe->stack = snap_frame_stack(st, r->sid);
		break;
	default:
		pe->addr = r->addr;
		pe->stream = r->stream;
		pe->flags |= TRACE_HAS_ADDR | TRACE_HAS_STREAM;
		break;
	}
}

/* The next event: 1, 0 at the end, or GMS_ETRACE when a record cannot be read back. */
int
snap_emit_next(struct pickle_state *st, struct emitter *em, struct trace_event *ev, char **cause)
{
	struct scan *sc = em->sc;
	struct trace_event *pe;
	const struct rec *r;

	while (em->qi == em->nq) {
		em->qi = em->nq = 0;
		switch (em->phase) {
		case 0:
			if (em->i == sc->nseedseg) {
				em->phase++;
				em->i = 0;
				break;
			}
			pe = queue(em, TRACE_SEGMENT_ALLOC);
			pe->addr = sc->seedseg[em->i].addr;
			pe->size = sc->seedseg[em->i].size;
			pe->stream = trace_pool_stream(snap_pool_of(em->pl, pe->addr, 0),
			    sc->seedseg[em->i].stream);
			pe->flags = TRACE_HAS_ADDR | TRACE_HAS_STREAM | TRACE_SEEDED;
			if (em->lim != NULL)
				snap_limit_event(em->lim, 2, sc->seedseg[em->i].size, 0);
			em->i++;
			break;
		case 1:
			if (em->i == sc->nseed) {
				em->phase++;
				em->i = 0;
				break;
			}
			/* a block freed and live again at the same address is seeded once */
			if (snap_map_find(em->live, sc->seed[em->i].addr) == NULL) {
				pe = queue(em, TRACE_ALLOC);
				pe->id = em->id;
				pe->addr = sc->seed[em->i].addr;
				pe->size = sc->seed[em->i].size;
				pe->flags = TRACE_HAS_ADDR | TRACE_HAS_STREAM | TRACE_SEEDED;
				pe->stream = trace_pool_stream(snap_pool_of(em->pl, pe->addr, 0),
				    sc->seed[em->i].stream);
				pe->at = st->sum[sc->seed[em->i].sid].at;
				pe->stack = snap_frame_stack(st, sc->seed[em->i].sid);
				snap_map_add(&em->live, sc->seed[em->i].addr, em->id++, pe->size);
			}
			em->i++;
			break;
		case 2:
			if (em->i == snap_recs_count(em->rs)) {
				em->phase++;
				break;
			}
			if ((r = snap_rec_at(&em->cur, em->i)) == NULL)
				return gms_fail(cause, GMS_ETRACE, "its trace entries, kept in a "
				    "temporary file, cannot be read back at entry %llu",
				    (unsigned long long)em->i);
			emit_rec(st, em, r);
			em->i++;
			break;
		default:
			return 0;
		}
	}
	if (em->ob != NULL)
		observe(em->ob, &em->q[em->qi], em->freed[em->qi]);
	*ev = em->q[em->qi++];
	return 1;
}
