/*
 * pickle-dump.c - the snapshot reader's scan (pickle-snap.h): a trace
 * entry read and checked, the dump's segments and blocks against the
 * records (the seeds of a snapshot that starts mid-run), the limit the
 * recording ran under, and CUDA graphs' private pools.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sizeclass.h"
#include "traces/pickle-snap.h"

/* An integer field of a trace entry; -1 and *cause when missing or wrong. */
/* What the native format's readers accept (trace.c): converting must never write more. */

static int
field(const struct pk_val *e, const char *key, size_t idx, int64_t min, int64_t max,
    int64_t *out, char **cause)
{
	const struct pk_val *v = pk_get(e, key);

	if (v == NULL)
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu has no \"%s\"", idx, key);
	if (!pk_is(v, PK_INT))
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu: \"%s\" is not an integer",
		    idx, key);
	if (v->u.i < min || v->u.i > max)
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu: \"%s\" out of range: %lld",
		    idx, key, (long long)v->u.i);
	*out = v->u.i;
	return 0;
}

void
snap_clear_map(struct addr_id **map)
{
	struct addr_id *a, *tmp;

	HASH_ITER(hh, *map, a, tmp) {
		HASH_DEL(*map, a);
		free(a);
	}
}

struct addr_id *
snap_map_add(struct addr_id **map, uint64_t addr, uint64_t id, uint64_t size)
{
	struct addr_id *a = gms_calloc(1, sizeof(*a));

	a->addr = addr;
	a->id = id;
	a->size = size;
	HASH_ADD(hh, *map, addr, sizeof(a->addr), a);
	return a;
}

struct addr_id *
snap_map_find(struct addr_id *map, uint64_t addr)
{
	struct addr_id *a;

	HASH_FIND(hh, map, &addr, sizeof(addr), a);
	return a;
}

/* The actions a trace entry may have; those past KIND_KEPT are dropped. */
const char *const snap_action_names[] = {
	"alloc", "free_completed", "segment_alloc", "segment_free", "segment_map",
	"segment_unmap", "oom", "free_requested", "snapshot", NULL,
};
const enum trace_op snap_action_ops[] = {
	TRACE_ALLOC, TRACE_FREE, TRACE_SEGMENT_ALLOC, TRACE_SEGMENT_FREE,
	TRACE_SEGMENT_MAP, TRACE_SEGMENT_UNMAP, TRACE_OOM,
};

int
snap_read_entry(const struct pk_val *e, size_t i, struct entry *out, char **cause)
{
	const struct pk_val *act = pk_get(e, "action");
	int64_t v;
	int err;

	memset(out, 0, sizeof(*out));
	out->t = -1;
	if (!pk_is(e, PK_DICT))
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu is not a dict", i);
	/* every entry's, dropped ones too: a later entry may name the same list */
	out->frames = pk_get(e, "frames");
	if (!pk_is(act, PK_STR))
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu has no \"action\"", i);
	for (out->kind = 0; snap_action_names[out->kind] != NULL; out->kind++)
		if (strcmp(act->u.str.s, snap_action_names[out->kind]) == 0)
			break;
	if (snap_action_names[out->kind] == NULL) {
		out->kind = -1;
		return 0;
	}
	if (out->kind >= KIND_KEPT)
		return 0;
	if (out->kind != 6) {	/* an oom's addr is the device's free memory */
		if ((err = field(e, "addr", i, 0, TRACE_INT_MAX, &v, cause)) < 0)
			return err;
		out->addr = (uint64_t)v;
	}
	if ((err = field(e, "size", i, 0, TRACE_SIZE_MAX, &v, cause)) < 0)
		return err;
	out->size = (uint64_t)v;
	if (pk_get(e, "stream") != NULL &&
	    (err = field(e, "stream", i, -TRACE_INT_MAX, TRACE_INT_MAX, &out->stream, cause)) < 0)
		return err;
	if (pk_get(e, "time_us") != NULL && (err = field(e, "time_us", i, 0, TRACE_INT_MAX, &out->t, cause)) < 0)
		return err;
	return 0;
}

static void
seed_add(struct seed **arr, size_t *n, size_t *cap, uint64_t addr, uint64_t size,
    uint32_t sid, int64_t stream)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*arr = gms_realloc(*arr, *cap * sizeof(**arr));
	}
	(*arr)[(*n)++] = (struct seed){ addr, size, sid, stream };
}

/* A dump segment's stream (0 when it says none, or one out of range). */
static int64_t
seg_stream(const struct pk_val *seg)
{
	const struct pk_val *v = pk_get(seg, "stream");

	return pk_is(v, PK_INT) && v->u.i >= -TRACE_INT_MAX && v->u.i <= TRACE_INT_MAX ? v->u.i : 0;
}

/*
 * Before the dump is walked: what the blocks of every segment add up to,
 * charged before they are read, and no segment or block (or a block's first
 * history entry) with more keys than a snapshot's: every later lookup in
 * them is then short.  (Trace entries are charged and checked as they
 * stream: take_entry.)
 */
int
snap_check_shape(const struct pk_val *segments, struct walk *w, char **cause)
{
	const struct pk_val *seg, *b, *blocks;
	uint64_t n = 0;
	size_t i, j;

	for (i = 0, n = 0; i < pk_len(segments); i++)
		n += pk_len(pk_get(pk_item(segments, i), "blocks"));
	if (snap_charge(w, WALK_PER_BLOCK * n + pk_len(segments), "blocks") < 0)
		return snap_walk_fail(w, cause);
	for (i = 0; i < pk_len(segments); i++) {
		seg = pk_item(segments, i);
		if (snap_too_many_keys(seg))
			return gms_fail(cause, GMS_ETRACE, "segments[%zu] has %zu keys (a segment "
			    "has about 12): not a snapshot", i, seg->u.seq.n / 2);
		blocks = pk_get(seg, "blocks");
		for (j = 0; j < pk_len(blocks); j++) {
			b = pk_item(blocks, j);
			if (snap_too_many_keys(b) || (pk_len(pk_get(b, "history")) > 0 &&
			    snap_too_many_keys(pk_item(pk_get(b, "history"), 0))))
				return gms_fail(cause, GMS_ETRACE, "segments[%zu].blocks[%zu] has "
				    "more keys than a block (about 6): not a snapshot", i, j);
		}
	}
	return 0;
}

/*
 * First pass, as the trace streams: count the actions and find what the
 * trace does not show: blocks freed with no recorded alloc, and segments
 * released with no recorded reservation (they were there before).  Then
 * keep the entry as a record.
 */
int
snap_scan_entry(struct dev *d, const struct entry *en, uint32_t sid, size_t i, char **cause)
{
	struct scan *sc = &d->sc;
	struct addr_id *a;
	struct rec r;

	if (en->kind < 0) {
		sc->unknown_actions++;
		return 0;
	}
	sc->counts[en->kind]++;
	if (en->kind >= KIND_KEPT)
		return 0;
	a = en->kind <= 1 ? snap_map_find(d->live, en->addr) : NULL;
	if (en->kind == 0 && a != NULL) {
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu: alloc at %#llx, which is "
		    "already allocated", i, (unsigned long long)en->addr);
	} else if (en->kind == 0) {
		snap_map_add(&d->live, en->addr, 0, en->size);
	} else if (en->kind == 1 && a == NULL) {
		seed_add(&sc->seed, &sc->nseed, &sc->seedcap, en->addr, en->size, sid, en->stream);
	} else if (en->kind == 1) {
		HASH_DEL(d->live, a);
		free(a);
	} else if ((en->kind == 2 || en->kind == 4) && snap_map_find(d->segs, en->addr) == NULL) {
		snap_map_add(&d->segs, en->addr, 0, en->size);
	} else if (en->kind == 3 && snap_map_find(d->segs, en->addr) == NULL) {
		/* released, never reserved in the trace: it was there before */
		seed_add(&sc->seedseg, &sc->nseedseg, &sc->seedsegcap, en->addr, en->size, 0,
		    en->stream);
		snap_map_add(&d->segs, en->addr, 0, en->size);
	}
	r = (struct rec){ en->addr, en->size, en->stream, en->t, sid, (int8_t)en->kind };
	snap_recs_add(&d->recs, &r);
	return 0;
}

/*
 * After the trace: the dump's blocks live at the end that the trace never
 * allocated, and the segments in the dump it never reserved (expandable
 * ones aside: their pages map and unmap).
 */
int
snap_scan_dump(struct pickle_state *st, const struct pk_val *segments, int64_t device, struct dev *d,
    char **cause)
{
	const struct pk_val *seg, *blocks, *b, *v;
	struct scan *sc = &d->sc;
	size_t i, j, k;
	uint64_t off;
	int err = 0;

	for (i = 0; i < pk_len(segments) && err == 0; i++) {
		seg = pk_item(segments, i);
		v = pk_get(seg, "device");
		if (pk_is(v, PK_INT) && v->u.i != device)
			continue;
		blocks = pk_get(seg, "blocks");
		sc->dump_segments++;
		if (pk_is(pk_get(seg, "total_size"), PK_INT) && pk_get(seg, "total_size")->u.i > 0)
			sc->dump_reserved += (uint64_t)pk_get(seg, "total_size")->u.i;
		/* blocks are listed in address order: PyTorch 2.0's carry no address */
		v = pk_get(seg, "address");
		off = pk_is(v, PK_INT) && v->u.i >= 0 ? (uint64_t)v->u.i : 0;
		for (k = 0; k < pk_len(blocks); k++) {
			const struct pk_val *state, *addr, *req, *bsize, *hist, *frames;
			int64_t ba, rq;

			b = pk_item(blocks, k);
			state = pk_get(b, "state");
			addr = pk_get(b, "address");
			bsize = pk_get(b, "size");
			if (!pk_is(bsize, PK_INT) || bsize->u.i < 0 || bsize->u.i > TRACE_SIZE_MAX) {
				err = gms_fail(cause, GMS_ETRACE, "segments[%zu].blocks[%zu]: no size, "
				    "or one out of range", i, k);
				break;
			}
			ba = pk_is(addr, PK_INT) ? addr->u.i : (int64_t)off;
			off += (uint64_t)bsize->u.i;
			if (!pk_is(state, PK_STR) || strncmp(state->u.str.s, "active", 6) != 0) {
				if (pk_is(state, PK_STR) && strcmp(state->u.str.s, "inactive") == 0 &&
				    (uint64_t)bsize->u.i > sc->dump_largest_free)
					sc->dump_largest_free = (uint64_t)bsize->u.i;
				continue;
			}
			/* requested bytes and frames: the block's own, else its history's (2.0) */
			hist = pk_len(pk_get(b, "history")) > 0 ? pk_item(pk_get(b, "history"), 0) : NULL;
			req = pk_get(b, "requested_size");
			if (!pk_is(req, PK_INT))
				req = pk_get(hist, "real_size");
			rq = pk_is(req, PK_INT) ? req->u.i : bsize->u.i;
			frames = pk_get(b, "frames");
			if (frames == NULL)
				frames = pk_get(hist, "frames");
			sc->dump_active += (uint64_t)bsize->u.i;
			if (ba < 0 || ba > TRACE_INT_MAX || rq < 0 || rq > TRACE_SIZE_MAX) {
				err = gms_fail(cause, GMS_ETRACE, "segments[%zu].blocks[%zu]: address "
				    "%lld or requested_size %lld out of range", i, k, (long long)ba,
				    (long long)rq);
				break;
			}
			sc->dump_requested += (uint64_t)rq;
			if (snap_map_find(d->live, (uint64_t)ba) == NULL)
				seed_add(&sc->seed, &sc->nseed, &sc->seedcap, (uint64_t)ba, (uint64_t)rq,
				    snap_sid_of(st, NULL, frames), seg_stream(seg));
		}
	}
	if (err == 0) {
		for (j = 0; j < pk_len(segments); j++) {
			const struct pk_val *addr, *size;

			seg = pk_item(segments, j);
			v = pk_get(seg, "device");
			addr = pk_get(seg, "address");
			size = pk_get(seg, "total_size");
			if ((pk_is(v, PK_INT) && v->u.i != device) || !pk_is(addr, PK_INT) ||
			    !pk_is(size, PK_INT) || (pk_is(pk_get(seg, "is_expandable"), PK_BOOL) &&
			    pk_get(seg, "is_expandable")->u.i))
				continue;
			if (addr->u.i < 0 || addr->u.i > TRACE_INT_MAX || size->u.i <= 0 ||
			    size->u.i > TRACE_SIZE_MAX) {
				err = gms_fail(cause, GMS_ETRACE, "segments[%zu]: address %lld or "
				    "total_size %lld out of range", j, (long long)addr->u.i,
				    (long long)size->u.i);
				break;
			}
			if (snap_map_find(d->segs, (uint64_t)addr->u.i) != NULL)
				continue;
			seed_add(&sc->seedseg, &sc->nseedseg, &sc->seedsegcap, (uint64_t)addr->u.i,
			    (uint64_t)size->u.i, 0, seg_stream(seg));
		}
	}
	return err;
}

/*
 * Whether the segment releases starting at entry i were torch.cuda.empty_cache():
 * the frames say so where there are any; else by what follows, since the
 * allocator releases segments itself only to make room (an OOM retry,
 * garbage collection, oversize blocks), and then reserves again or runs out
 * right after; releases followed by anything else were asked for.
 */
int
snap_called_empty_cache(const struct pickle_state *st, struct cursor *look, uint64_t i)
{
	const struct rec *r = snap_rec_at(look, i);
	uint64_t n = snap_recs_count(look->rs);
	int by;

	if (r != NULL && (by = st->sum[r->sid].released) >= 0)
		return by;
	for (; i < n; i++) {
		if ((r = snap_rec_at(look, i)) == NULL)
			return 0;
		if (r->kind == 3 || r->kind == 5)
			continue;
		return r->kind != 2 && r->kind != 4 && r->kind != 6;
	}
	return 1;	/* the last thing the trace shows */
}

static void
limit_bound(struct limit_scan *l, uint64_t reserved, uint64_t segment)
{
	uint64_t b = reserved + segment - 1;

	if (l->expandable)
		return;
	if (!l->known || b < l->hi)
		l->hi = b;
	l->known = 1;
}

void
snap_limit_event(struct limit_scan *l, int kind, uint64_t size, int empty_cache)
{
	struct sc_caching sc;

	switch (kind) {
	case 2:
	case 4:
		if (l->releasing && l->gc > 0)
			limit_bound(l, GMS_MAX(l->before, (uint64_t)((double)l->before / l->gc) -
			    size + 1), size);
		else if (l->releasing)
			limit_bound(l, l->before, size);
		l->releasing = 0;
		l->reserved += size;
		l->peak = GMS_MAX(l->peak, l->reserved);
		break;
	case 3:
	case 5:
		if (!l->releasing && !empty_cache) {
			l->releasing = 1;
			l->before = l->reserved;
		}
		l->reserved -= GMS_MIN(l->reserved, size);
		break;
	case 6:
		/* the request is the block's size: its segment as PyTorch sizes it */
		sc_caching_defaults(&sc);
		if (size > 0)
			limit_bound(l, l->reserved, sc_caching_segment(&sc, sc_caching_round(&sc, size)));
		l->releasing = 0;
		break;
	default:
		l->releasing = 0;
		break;
	}
}

static int
cmp_pool_seg(const void *a, const void *b)
{
	const struct pool_seg *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void
snap_pools_scan(const struct pk_val *segments, int64_t device, struct pools *pl)
{
	const struct pk_val *seg, *pid, *d, *addr, *size;
	int64_t a, b;
	unsigned k;
	size_t i;

	for (i = 0; i < pk_len(segments); i++) {
		seg = pk_item(segments, i);
		d = pk_get(seg, "device");
		pid = pk_get(seg, "segment_pool_id");
		addr = pk_get(seg, "address");
		size = pk_get(seg, "total_size");
		if ((pk_is(d, PK_INT) && d->u.i != device) || !pk_is(pid, PK_TUPLE) ||
		    pk_len(pid) != 2 || !pk_is(pk_item(pid, 0), PK_INT) ||
		    !pk_is(pk_item(pid, 1), PK_INT) || !pk_is(addr, PK_INT) || !pk_is(size, PK_INT) ||
		    addr->u.i < 0 || size->u.i <= 0 || size->u.i > TRACE_SIZE_MAX ||
		    addr->u.i > TRACE_INT_MAX)
			continue;
		a = pk_item(pid, 0)->u.i;
		b = pk_item(pid, 1)->u.i;
		if (a == 0 && b == 0)
			continue;
		for (k = 0; k < pl->nids && (pl->id[k][0] != a || pl->id[k][1] != b); k++)
			;
		if (k == pl->nids) {
			if (pl->nids == TRACE_POOL_MAX)
				continue;	/* more pools than a trace can name: the ordinary one */
			pl->id[pl->nids][0] = a;
			pl->id[pl->nids++][1] = b;
		}
		pl->seg = gms_realloc(pl->seg, (pl->n + 1) * sizeof(*pl->seg));
		pl->seg[pl->n++] = (struct pool_seg){ (uint64_t)addr->u.i, (uint64_t)size->u.i, k + 1, 0 };
	}
	if (pl->n > 0)
		qsort(pl->seg, pl->n, sizeof(*pl->seg), cmp_pool_seg);
}

static struct pool_seg *
pool_seg_at(const struct pools *pl, uint64_t addr)
{
	size_t lo = 0, hi = pl->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pl->seg[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr - pl->seg[lo - 1].addr >= pl->seg[lo - 1].size)
		return NULL;
	return &pl->seg[lo - 1];
}

/* When each private segment was reserved: the last segment_alloc at its address. */
void
snap_pools_since(const struct recs *rs, struct pools *pl)
{
	struct pool_seg *ps;
	const struct rec *r;
	struct cursor c;
	uint64_t i;

	snap_cursor_init(&c, rs);
	for (i = 0; pl->n > 0 && i < snap_recs_count(rs) && (r = snap_rec_at(&c, i)) != NULL; i++)
		if (r->kind == 2 && (ps = pool_seg_at(pl, r->addr)) != NULL && ps->addr == r->addr)
			ps->since = i;
	snap_cursor_free(&c);
}

/* The private pool a block allocated at addr by record i belongs to, or 0. */
unsigned
snap_pool_of(const struct pools *pl, uint64_t addr, uint64_t i)
{
	const struct pool_seg *ps = pool_seg_at(pl, addr);

	return ps != NULL && i >= ps->since ? ps->pool : 0;
}
