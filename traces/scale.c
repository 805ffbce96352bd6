/*
 * scale.c - the trace at a value nobody ran (scale.h): the recordings'
 * input events as tokens, their alignment (traces/align.c, kept per pair as it
 * is needed), each allocation's size fitted over the values, and the trace
 * at V built after the recording nearest V.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "traces/align.h"
#include "sim/gms.h"
#include "traces/scale.h"
#include "traces/trace.h"
#include "traces/tracemem.h"

/* How many allocations a recording makes with one token. */
struct tally {
	uint64_t tok;
	size_t n;
	UT_hash_handle hh;
};

/* One recording's input events (what a run replays), as tokens to align. */
struct seq {
	size_t n;
	struct tally *tally;	/* allocations by token */
	uint64_t *tok;
	uint32_t *ev;		/* the event's index in the recording */
	uint64_t *size;		/* allocations' sizes */
	unsigned char *is_alloc;
	size_t allocs;
};

struct scale_model {
	struct scale_rec *recs;	/* sorted by value */
	struct seq *seqs;
	size_t n;
	int32_t **maps;		/* maps[b * n + r]: base b's input event -> r's, or -1 */
	long *edits;		/* ... and the edits between them (-1: not yet made) */
};

static const char *const form_names[SCALE_NFORMS] = {
	"constant", "affine", "quadratic", "capped", "no form", "unaligned",
};

const char *
scale_form_name(enum scale_form f)
{
	return f < SCALE_NFORMS ? form_names[f] : "?";
}

size_t
scale_nrecs(const struct scale_model *m)
{
	return m->n;
}

const struct scale_rec *
scale_rec_at(const struct scale_model *m, size_t i)
{
	return &m->recs[i];
}

uint64_t
scale_event_of(const struct scale_model *m, size_t base, uint64_t i)
{
	return i < m->seqs[base].n ? m->seqs[base].ev[i] : i;
}

static uint64_t
fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* An event's token: what must be the same for two recordings to share it. */
static uint64_t
token(int op, const char *at, int64_t stream)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, &op, sizeof(op));

	h = fnv(h, &stream, sizeof(stream));
	return at != NULL ? fnv(h, at, strlen(at) + 1) : h;
}

/* Which site and stream each live id was allocated at: a free's token names them. */
struct live {
	uint64_t id;
	const char *at;
	int64_t stream;
	UT_hash_handle hh;
};

static void
seq_make(const struct trace_mem *mem, struct seq *s)
{
	size_t i, n = trace_mem_count(mem);
	struct live *live = NULL, *l, *tmp;
	struct tally *t;
	struct trace_event ev;

	s->tok = gms_calloc(n ? n : 1, sizeof(*s->tok));
	s->ev = gms_calloc(n ? n : 1, sizeof(*s->ev));
	s->size = gms_calloc(n ? n : 1, sizeof(*s->size));
	s->is_alloc = gms_calloc(n ? n : 1, 1);
	for (i = 0; i < n; i++) {
		trace_mem_event(mem, i, &ev);
		switch (ev.op) {
		case TRACE_ALLOC:
			HASH_FIND(hh, live, &ev.id, sizeof(ev.id), l);
			if (l == NULL) {
				l = gms_calloc(1, sizeof(*l));
				l->id = ev.id;
				HASH_ADD(hh, live, id, sizeof(l->id), l);
			}
			l->at = ev.at;
			l->stream = ev.stream;
			s->size[s->n] = ev.size;
			s->is_alloc[s->n] = 1;
			s->tok[s->n] = token('A', ev.at, ev.stream);
			s->allocs++;
			HASH_FIND(hh, s->tally, &s->tok[s->n], sizeof(uint64_t), t);
			if (t == NULL) {
				t = gms_calloc(1, sizeof(*t));
				t->tok = s->tok[s->n];
				HASH_ADD(hh, s->tally, tok, sizeof(t->tok), t);
			}
			t->n++;
			break;
		case TRACE_FREE:
			HASH_FIND(hh, live, &ev.id, sizeof(ev.id), l);
			s->tok[s->n] = l != NULL ? token('F', l->at, l->stream) : token('F', NULL, 0);
			if (l != NULL) {
				HASH_DEL(live, l);
				free(l);
			}
			break;
		case TRACE_MARK:
			s->tok[s->n] = token('M', ev.label, 0);
			break;
		case TRACE_EMPTY_CACHE:
			s->tok[s->n] = token('E', NULL, 0);
			break;
		default:	/* what the recording allocator did: the new run does its own */
			continue;
		}
		s->ev[s->n++] = (uint32_t)i;
	}
	HASH_ITER(hh, live, l, tmp) {
		HASH_DEL(live, l);
		free(l);
	}
}

/* How many allocations s makes with token tok. */
static size_t
tally_of(const struct seq *s, uint64_t tok)
{
	struct tally *t;

	HASH_FIND(hh, s->tally, &tok, sizeof(tok), t);
	return t != NULL ? t->n : 0;
}

static int
by_value(const void *a, const void *b)
{
	const struct scale_rec *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

int
scale_model_new(const struct scale_rec *recs, size_t n, struct scale_model **out,
    char **cause)
{
	struct scale_model *m;
	const struct trace_header *h;
	size_t i;

	*out = NULL;
	if (n < 2)
		return gms_fail(cause, GMS_ECONFIG, "scale needs recordings at two values at least "
		    "(--at VALUE TRACE, twice)");
	for (i = 0; i < n; i++) {
		h = trace_mem_header(recs[i].mem);
		if (recs[i].value < 1 || recs[i].value > SCALE_VALUE_MAX)
			return gms_fail(cause, GMS_ECONFIG, "%s: value %llu out of range (1 to %d)",
			    recs[i].path, (unsigned long long)recs[i].value, SCALE_VALUE_MAX);
		if (h->cut != NULL)
			return gms_fail(cause, GMS_ETRACE, "%s: %s: scale needs the whole job",
			    recs[i].path, h->cut);
		if (h->starts_mid_run)
			return gms_fail(cause, GMS_ETRACE, "%s: recorded from a ring buffer, its "
			    "start lost (record with a larger max_entries): scale needs the whole job",
			    recs[i].path);
		if (h->ends_in_oom)
			return gms_fail(cause, GMS_ETRACE, "%s: the job ran out of memory: what it "
			    "would have done next is not in it (record without a limit)", recs[i].path);
	}
	m = gms_calloc(1, sizeof(*m));
	m->n = n;
	m->recs = gms_calloc(n, sizeof(*m->recs));
	memcpy(m->recs, recs, n * sizeof(*recs));
	qsort(m->recs, n, sizeof(*m->recs), by_value);
	for (i = 1; i < n; i++)
		if (m->recs[i].value == m->recs[i - 1].value) {
			gms_fail(cause, GMS_ECONFIG, "%s and %s: both at %llu (one recording a value)",
			    m->recs[i - 1].path, m->recs[i].path, (unsigned long long)m->recs[i].value);
			scale_model_free(m);
			return GMS_ECONFIG;
		}
	m->seqs = gms_calloc(n, sizeof(*m->seqs));
	m->maps = gms_calloc(n * n, sizeof(*m->maps));
	m->edits = gms_calloc(n * n, sizeof(*m->edits));
	for (i = 0; i < n; i++) {
		seq_make(m->recs[i].mem, &m->seqs[i]);
		if (m->seqs[i].allocs == 0) {
			gms_fail(cause, GMS_ETRACE, "%s: no allocations to scale", m->recs[i].path);
			scale_model_free(m);
			return GMS_ETRACE;
		}
	}
	for (i = 0; i < n * n; i++)
		m->edits[i] = -1;
	*out = m;
	return 0;
}

void
scale_model_free(struct scale_model *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; m->seqs != NULL && i < m->n; i++) {
		struct tally *t, *tmp;

		HASH_ITER(hh, m->seqs[i].tally, t, tmp) {
			HASH_DEL(m->seqs[i].tally, t);
			free(t);
		}
		free(m->seqs[i].tok);
		free(m->seqs[i].ev);
		free(m->seqs[i].size);
		free(m->seqs[i].is_alloc);
	}
	for (i = 0; m->maps != NULL && i < m->n * m->n; i++)
		free(m->maps[i]);
	free(m->maps);
	free(m->edits);
	free(m->seqs);
	free(m->recs);
	free(m);
}

/* Where base and r first part: "event 17 (an allocation at SITE) against ..." */
static void
first_difference(struct scale_model *m, size_t base, size_t r, const int32_t *map, char *buf,
    size_t len)
{
	const struct seq *b = &m->seqs[base];
	struct trace_event ev;
	size_t i;

	for (i = 0; i < b->n && map[i] >= 0; i++)
		;
	if (i == b->n) {
		snprintf(buf, len, "at its end");
		return;
	}
	trace_mem_event(m->recs[base].mem, b->ev[i], &ev);
	snprintf(buf, len, "at event %u (%s%s%s)", b->ev[i], trace_op_name(ev.op),
	    ev.op == TRACE_ALLOC && ev.at ? " at " : "", ev.op == TRACE_ALLOC && ev.at ? ev.at : "");
}

/* The most edits two recordings of one job may differ by: half their events. */
#define EDITS_CAP 200000

int
scale_alignment(struct scale_model *m, size_t base, size_t r, size_t *aligned, size_t *allocs,
    long *edits, char **cause)
{
	const struct seq *b = &m->seqs[base], *o = &m->seqs[r];
	int32_t *map = m->maps[base * m->n + r];
	size_t i, cap = (b->n + o->n) / 2, a = 0;
	char where[512];

	if (cap > EDITS_CAP)
		cap = EDITS_CAP;
	if (map == NULL) {
		map = m->maps[base * m->n + r] = gms_calloc(b->n ? b->n : 1, sizeof(*map));
		if (base == r) {
			for (i = 0; i < b->n; i++)
				map[i] = (int32_t)i;
			m->edits[base * m->n + r] = 0;
		} else if (b->n >= INT32_MAX || o->n >= INT32_MAX) {
			m->edits[base * m->n + r] = -2;
		} else {
			m->edits[base * m->n + r] = align_tokens(b->tok, b->n, o->tok, o->n, cap, map);
			if (m->edits[base * m->n + r] < 0)
				m->edits[base * m->n + r] = -2;
		}
	}
	for (i = 0; i < b->n; i++)
		a += b->is_alloc[i] && map[i] >= 0;
	*aligned = a;
	*allocs = b->allocs;
	*edits = m->edits[base * m->n + r];
	if (*edits == -2 || 2 * a < b->allocs) {
		first_difference(m, base, r, map, where, sizeof(where));
		return gms_fail(cause, GMS_ETRACE, "%s (at %llu) and %s (at %llu) are not one job "
		    "recorded twice: %s; they part %s", m->recs[base].path,
		    (unsigned long long)m->recs[base].value, m->recs[r].path,
		    (unsigned long long)m->recs[r].value, *edits == -2 ?
		    "they differ in more events than they share" :
		    "fewer than half the allocations align", where);
	}
	return 0;
}

int
scale_model_align(struct scale_model *m, char **cause)
{
	size_t base, r, aligned, allocs;
	long edits;
	int rc;

	for (base = 0; base < m->n; base++)
		for (r = 0; r < m->n; r++)
			if ((rc = scale_alignment(m, base, r, &aligned, &allocs, &edits, cause)) < 0)
				return rc;
	return 0;
}

struct pt {
	uint64_t v, s;
};

/*
 * The size at v of an allocation seen at p[0..n) (sorted by value, n >= 2),
 * in the simplest form through every point: *form says which.
 */
static long double
fit(const struct pt *p, size_t n, uint64_t v, enum scale_form *form)
{
	long double x = (long double)v, r;
	size_t i, j, k, near[3];
	int all;

	for (i = 1; i < n && p[i].s == p[0].s; i++)
		;
	if (i == n) {
		*form = SCALE_CONST;
		return (long double)p[0].s;
	}
	if (n == 2) {
		/* c v^2 through both, exactly: quadratic (attention scores in the length) */
		if ((__int128)p[1].s * p[0].v * p[0].v == (__int128)p[0].s * p[1].v * p[1].v) {
			*form = SCALE_QUADRATIC;
			return (long double)p[0].s * (x / p[0].v) * (x / p[0].v);
		}
		/*
		 * Growing faster than the value (yet not as its square), or
		 * shrinking: not a tensor of the size but a library's choice (the
		 * workspace of the algorithm cuDNN picked for that shape).  The
		 * larger one recorded, said to fit no form.
		 */
		if (p[1].s < p[0].s || (__int128)p[1].s * p[0].v > (__int128)p[0].s * p[1].v) {
			*form = SCALE_NOFIT;
			return (long double)(p[1].s > p[0].s ? p[1].s : p[0].s);
		}
		*form = SCALE_AFFINE;
		return (long double)p[0].s + ((long double)p[1].s - p[0].s) *
		    (x - p[0].v) / ((long double)p[1].v - p[0].v);
	}
	for (i = 1, all = 1; i < n - 1 && all; i++)
		all = (__int128)((int64_t)p[i].s - (int64_t)p[0].s) * (int64_t)(p[n - 1].v - p[0].v) ==
		    (__int128)((int64_t)p[n - 1].s - (int64_t)p[0].s) * (int64_t)(p[i].v - p[0].v);
	if (all) {
		*form = SCALE_AFFINE;
		return (long double)p[0].s + ((long double)p[n - 1].s - p[0].s) *
		    (x - p[0].v) / ((long double)p[n - 1].v - p[0].v);
	}
	/*
	 * Growing on the line through the two smallest, then stopped at the
	 * largest: min(a + b V, cap), a reduction splitting its input over as
	 * many blocks as the GPU runs at once (its staging buffer stops growing
	 * there).  Exact through every point, or not this form.
	 */
	if (p[1].s > p[0].s && p[n - 1].s >= p[n - 2].s) {
		long double slope = ((long double)p[1].s - p[0].s) / ((long double)p[1].v - p[0].v);
		long double line = (long double)p[0].s + slope * ((long double)p[n - 1].v - p[0].v);

		for (i = 0, all = line > (long double)p[n - 1].s; i < n && all; i++) {
			r = (long double)p[0].s + slope * ((long double)p[i].v - p[0].v);
			if (r > (long double)p[n - 1].s)
				r = (long double)p[n - 1].s;
			all = fabsl(r - (long double)p[i].s) < 0.5L;
		}
		if (all) {
			*form = SCALE_CAPPED;
			r = (long double)p[0].s + slope * (x - p[0].v);
			return r < (long double)p[n - 1].s ? r : (long double)p[n - 1].s;
		}
	}
	/* the three points nearest v: slide a window of three while it gets nearer */
	for (k = 0; k + 3 < n; k++) {
		uint64_t dl = v > p[k].v ? v - p[k].v : p[k].v - v;
		uint64_t dr = v > p[k + 3].v ? v - p[k + 3].v : p[k + 3].v - v;

		if (dr >= dl)
			break;
	}
	near[0] = k, near[1] = k + 1, near[2] = k + 2;
	/* Lagrange's form, evaluated at each point to see whether all lie on it */
#define LAGRANGE(at, out) do {							\
	long double t_, sum_ = 0;						\
	for (i = 0; i < 3; i++) {						\
		t_ = (long double)p[near[i]].s;					\
		for (j = 0; j < 3; j++)						\
			if (j != i)						\
				t_ *= ((long double)(at) - p[near[j]].v) /	\
				    ((long double)p[near[i]].v - p[near[j]].v);	\
		sum_ += t_;							\
	}									\
	(out) = sum_;								\
} while (0)
	*form = SCALE_QUADRATIC;
	for (k = 0; k < n; k++) {
		LAGRANGE(p[k].v, r);
		if (fabsl(r - (long double)p[k].s) >= 0.5L)
			*form = SCALE_NOFIT;
	}
	LAGRANGE(x, r);
#undef LAGRANGE
	return r;
}

/*
 * The largest power of two, at most 8 (the widest element), that divides
 * every size seen: a tensor's bytes are its elements times their width.
 */
static uint64_t
alignment(const struct pt *p, size_t n)
{
	uint64_t bits = 8;
	size_t i;

	for (i = 0; i < n; i++)
		bits |= p[i].s;
	return bits & -bits;
}

static size_t
nearest(const struct scale_model *m, uint64_t v)
{
	size_t i, best = 0;
	uint64_t d, bd = UINT64_MAX;

	for (i = 0; i < m->n; i++) {
		d = m->recs[i].value > v ? m->recs[i].value - v : v - m->recs[i].value;
		if (d <= bd) {	/* a tie goes to the larger: it has more of the large run's events */
			bd = d;
			best = i;
		}
	}
	return best;
}

/* A reduction's staging buffer (PyTorch's gpu_reduce_kernel): see SCALE_CAPPED. */
static int
is_reduction(const char *at)
{
	return at != NULL && strstr(at, "gpu_reduce_kernel") != NULL;
}

int
scale_build(struct scale_model *m, uint64_t value, struct trace_mem **out,
    struct scale_built *info, char **cause)
{
	return scale_build_bound(m, value, SCALE_FIT, out, info, cause);
}

int
scale_build_bound(struct scale_model *m, uint64_t value, enum scale_bound bound,
    struct trace_mem **out, struct scale_built *info, char **cause)
{
	uint64_t lo = m->recs[0].value, hi = m->recs[m->n - 1].value, al, size;
	size_t base = nearest(m, value), i, r, np, same, aligned, allocs, n_fit;
	const struct seq *b = &m->seqs[base];
	struct trace_header hdr;
	struct trace_event ev;
	struct trace_mem *t;
	struct pt *pts;
	enum scale_form form;
	long double want;
	char name[300];
	long edits;
	int rc;

	*out = NULL;
	memset(info, 0, sizeof(*info));
	if (value < 1 || value > (uint64_t)SCALE_EXTRAPOLATION_MAX * hi)
		return gms_fail(cause, GMS_ECONFIG, "value %llu is outside what the recordings "
		    "can say (1 to %llu: %d times the largest recorded, %llu)",
		    (unsigned long long)value, (unsigned long long)SCALE_EXTRAPOLATION_MAX * hi,
		    SCALE_EXTRAPOLATION_MAX, (unsigned long long)hi);
	for (r = 0; r < m->n; r++)
		if ((rc = scale_alignment(m, base, r, &aligned, &allocs, &edits, cause)) < 0)
			return rc;
	info->value = value;
	info->base = base;
	info->allocs = b->allocs;
	info->beyond = value > hi ? (double)value / (double)hi : value < lo ?
	    (double)lo / (double)value : 0;
	hdr = *trace_mem_header(m->recs[base].mem);
	snprintf(name, sizeof(name), "%s at %llu", hdr.name, (unsigned long long)value);
	hdr.name = name;
	hdr.observed = NULL;	/* the recording's own numbers are not this run's */
	hdr.cut = NULL;
	t = trace_mem_new(m->recs[base].path, &hdr);
	pts = gms_calloc(m->n, sizeof(*pts));
	for (i = 0; i < b->n; i++) {
		trace_mem_event(m->recs[base].mem, b->ev[i], &ev);
		ev.flags &= ~(unsigned)(TRACE_HAS_INUSE | (ev.op == TRACE_ALLOC ?
		    TRACE_HAS_ADDR | TRACE_SEEDED : 0));
		ev.addr = 0;
		if (ev.op == TRACE_ALLOC) {
			/*
			 * A recording that makes this site's allocations another number
			 * of times took another path through it (PyTorch's embedding
			 * backward sorts its indices only above 3072 of them): what its
			 * alignment pairs there are other buffers, not this one's size.
			 * Left out while two recordings that took the path remain.
			 */
			for (r = 0, np = 0, same = 0; r < m->n; r++)
				if (m->maps[base * m->n + r][i] >= 0)
					same += tally_of(&m->seqs[r], b->tok[i]) == tally_of(b, b->tok[i]);
			for (r = 0; r < m->n; r++)
				if (m->maps[base * m->n + r][i] >= 0 && (same < 2 ||
				    tally_of(&m->seqs[r], b->tok[i]) == tally_of(b, b->tok[i])))
					pts[np++] = (struct pt){ m->recs[r].value,
					    m->seqs[r].size[m->maps[base * m->n + r][i]] };
			if (np < 2) {
				/*
				 * Only in the recording followed: the framework adds such
				 * buffers above a size (a reduction split across blocks, a
				 * library's workspace), in proportion to the work.
				 */
				form = SCALE_UNALIGNED;
				al = alignment(pts, 1);
				want = bound == SCALE_LOW ? (long double)ev.size :
				    (long double)ev.size * value / m->recs[base].value;
				if (info->forms[SCALE_UNALIGNED] == 0)
					info->first_unaligned = b->ev[i];
			} else {
				want = fit(pts, np, value, &form);
				al = alignment(pts, np);
				if (form == SCALE_NOFIT && info->forms[SCALE_NOFIT] == 0)
					info->first_nofit = b->ev[i];
				if (is_reduction(ev.at) && value > pts[np - 1].v && form != SCALE_CAPPED &&
				    want > (long double)pts[np - 1].s) {
					if (info->uncapped++ == 0)
						info->first_uncapped = b->ev[i];
					if (bound == SCALE_LOW)
						want = (long double)pts[np - 1].s;
				}
			}
			if (want <= 0) {	/* a size that shrinks as the value grows: its least */
				info->clamped++;
				for (r = 0, want = (long double)pts[0].s; r < np; r++)
					if ((long double)pts[r].s < want)
						want = (long double)pts[r].s;
			}
			if (want > (long double)TRACE_SIZE_MAX) {
				rc = gms_fail(cause, GMS_ECONFIG, "at %llu the allocation of event "
				    "%u of %s would be over 2^50 bytes", (unsigned long long)value,
				    b->ev[i], m->recs[base].path);
				goto fail;
			}
			size = (uint64_t)ceill(want / al - 1e-9L) * al;
			ev.size = size ? size : al;
			info->forms[form]++;
			if (form == SCALE_UNALIGNED)
				info->unaligned_bytes += ev.size;
		}
		if ((rc = trace_mem_append(t, &ev, cause)) < 0)
			goto fail;
	}
	/*
	 * Recordings whose allocations align (the same sites in the same order)
	 * but whose sizes mostly follow no form of the value are not one job at
	 * two values: two jobs that share a few sites (issue 55).
	 */
	n_fit = info->forms[SCALE_CONST] + info->forms[SCALE_AFFINE] +
	    info->forms[SCALE_QUADRATIC];
	if (info->forms[SCALE_NOFIT] >= 4 && info->forms[SCALE_NOFIT] > n_fit) {
		rc = gms_fail(cause, GMS_ETRACE, "%s (at %llu) and the other recordings are not "
		    "one job recorded at several values: %llu of their aligned allocations "
		    "follow no form of the value, %llu do", m->recs[base].path,
		    (unsigned long long)m->recs[base].value,
		    (unsigned long long)info->forms[SCALE_NOFIT], (unsigned long long)n_fit);
		goto fail;
	}
	free(pts);
	*out = t;
	return 0;
fail:
	free(pts);
	trace_mem_free(t);
	return rc;
}
