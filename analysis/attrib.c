/*
 * attrib.c - what holds the memory at a moment (attrib.h): the live set by
 * id with each allocation's site, the sites interned once, tables built when
 * a moment is reached, and the per-site stack the report draws.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "analysis/attrib.h"
#include "sim/batch.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/run.h"

struct attrib_site {
	char *name;
	long idx;
	UT_hash_handle hh;
};

struct attrib_live {
	uint64_t id, size, event;
	long site;
	uint32_t stack;		/* its node in the stack tree, when kept */
	UT_hash_handle hh;
};

/* A block's owner, found by its address while the map is taken. */
struct owner {
	uint64_t addr, event;
	long site;
	uint32_t stack;
	UT_hash_handle hh;
};

void
attrib_peak_sample(void *arg, const struct sim_sample *smp)
{
	struct attrib_peak *p = arg;

	if (!smp->stopped && (!p->seen || smp->reserved > p->reserved)) {
		p->reserved = smp->reserved;
		p->event = smp->event;
		p->seen = 1;
	}
	if (p->next != NULL)
		p->next(p->next_arg, smp);
}

void
attrib_init(struct attrib *a)
{
	memset(a, 0, sizeof(*a));
}

void
attrib_want_stacks(struct attrib *a)
{
	if (a->stacks == NULL)
		a->stacks = stack_tree_new();
}

int
attrib_at(struct attrib *a, uint64_t event)
{
	if (a->nat == ATTRIB_AT_MAX)
		return -1;	/* the peak's, the OOM's and the live peak's places kept */
	a->at[a->nat++] = event;
	return 0;
}

const struct attrib_moment *
attrib_chosen(const struct attrib *a)
{
	static const char *const order[] = { "at", "oom", "peak_reserved" };
	size_t i, k;

	for (k = 0; k < 3; k++)
		for (i = 0; i < a->n; i++)
			if (strcmp(a->m[i].key, order[k]) == 0 && a->m[i].taken)
				return &a->m[i];
	return NULL;
}

static void
moment_free(struct attrib_moment *m)
{
	stack_values_free(&m->stk);
	free(m->site_stacks);
	free(m->rows);
	free(m->segs);
	free(m->blocks);
}

void
attrib_free(struct attrib *a)
{
	struct attrib_site *s, *st;
	struct attrib_live *l, *lt;
	size_t i;

	for (i = 0; i < a->n; i++)
		moment_free(&a->m[i]);
	HASH_ITER(hh, a->sites, s, st) {
		HASH_DEL(a->sites, s);
		free(s->name);
		free(s);
	}
	HASH_ITER(hh, a->live, l, lt) {
		HASH_DEL(a->live, l);
		free(l);
	}
	for (i = 0; i < a->nbuckets; i++)
		free(a->buckets[i].bytes);
	free(a->buckets);
	free(a->byidx);
	free(a->cur);
	free(a->stack_site);
	stack_tree_free(a->stacks);
	moment_free(&a->pre);
	memset(a, 0, sizeof(*a));
}

int
attrib_add(struct attrib *a, const char *key, const char *what, uint64_t event, int before,
    int want_map)
{
	if (a->n == ATTRIB_MOMENTS)
		return -1;
	a->m[a->n++] = (struct attrib_moment){ .key = key, .what = what, .event = event, .before = before,
	    .want_map = want_map };
	if (event > a->last)
		a->last = event;
	return 0;
}

void
attrib_stack(struct attrib *a, const char *const *names, size_t n, uint64_t events,
    size_t points)
{
	size_t i;

	a->nstack = n;
	a->stack_names = (const char **)names;
	a->stack_site = gms_malloc((n ? n : 1) * sizeof(*a->stack_site));
	for (i = 0; i < n; i++)
		a->stack_site[i] = -1;
	if (points == 0)
		points = 1;
	a->width = events / points + (events % points != 0);
	if (a->width == 0)
		a->width = 1;
	a->nbuckets = events / a->width + 1;
	a->buckets = gms_calloc(a->nbuckets, sizeof(*a->buckets));
	for (i = 0; i < a->nbuckets; i++)
		a->buckets[i].bytes = gms_calloc(n + 1, sizeof(uint64_t));
}

const char *
attrib_site_name(const struct attrib *a, long i)
{
	return i < 0 || (size_t)i >= a->nsites ? ATTRIB_NO_SITE : a->byidx[i]->name;
}

static long
intern(struct attrib *a, const char *at)
{
	struct attrib_site *s;
	size_t k;

	if (at == NULL)
		at = ATTRIB_NO_SITE;
	HASH_FIND_STR(a->sites, at, s);
	if (s != NULL)
		return s->idx;
	if (a->nsites == a->capsites) {
		a->capsites = a->capsites ? 2 * a->capsites : 64;
		a->byidx = gms_realloc(a->byidx, a->capsites * sizeof(*a->byidx));
		a->cur = gms_realloc(a->cur, a->capsites * sizeof(*a->cur));
	}
	s = gms_calloc(1, sizeof(*s));
	s->name = gms_strdup(at);
	s->idx = (long)a->nsites;
	a->byidx[a->nsites] = s;
	a->cur[a->nsites] = 0;
	a->nsites++;
	HASH_ADD_KEYPTR(hh, a->sites, s->name, strlen(s->name), s);
	for (k = 0; k < a->nstack; k++)
		if (a->stack_site[k] < 0 && strcmp(a->stack_names[k], s->name) == 0)
			a->stack_site[k] = s->idx;
	return s->idx;
}

static int
by_bytes(const void *x, const void *y)
{
	const struct attrib_row *p = x, *q = y;

	if (p->bytes != q->bytes)
		return p->bytes < q->bytes ? 1 : -1;
	return strcmp(p->site, q->site);
}

/* The live set grouped by site, largest first. */
static void
take_rows(struct attrib *a, struct attrib_moment *m)
{
	struct attrib_row *by = gms_calloc(a->nsites ? a->nsites : 1, sizeof(*by));
	struct attrib_live *l, *lt;
	size_t i, n = 0;

	m->live = m->nlive = 0;
	HASH_ITER(hh, a->live, l, lt) {
		struct attrib_row *r = &by[l->site];

		if (r->count == 0 || l->event < r->first)
			r->first = l->event;
		if (r->count == 0 || l->event > r->last)
			r->last = l->event;
		r->bytes += l->size;
		r->count++;
		m->live += l->size;
		m->nlive++;
	}
	for (i = 0; i < a->nsites; i++) {
		if (by[i].count == 0)
			continue;
		by[n] = by[i];
		by[n].site = a->byidx[i]->name;
		n++;
	}
	qsort(by, n, sizeof(*by), by_bytes);
	m->rows = by;
	m->nrows = n;
}

struct map_walk {
	struct attrib_moment *m;
	struct owner *owners;
	size_t capsegs, capblocks;
};

static void
map_seg(void *arg, const struct policy_walk_segment *s)
{
	struct map_walk *w = arg;
	struct attrib_moment *m = w->m;

	if (m->nsegs == w->capsegs) {
		w->capsegs = w->capsegs ? 2 * w->capsegs : 64;
		m->segs = gms_realloc(m->segs, w->capsegs * sizeof(*m->segs));
	}
	m->segs[m->nsegs++] = (struct attrib_segment){ .addr = s->addr, .size = s->size,
	    .stream = s->stream, .pool = s->pool };
}

static void
map_block(void *arg, const struct policy_walk_block *b)
{
	struct map_walk *w = arg;
	struct attrib_moment *m = w->m;
	struct owner *o = NULL;

	if (m->nblocks == w->capblocks) {
		w->capblocks = w->capblocks ? 2 * w->capblocks : 256;
		m->blocks = gms_realloc(m->blocks, w->capblocks * sizeof(*m->blocks));
	}
	if (b->allocated)
		HASH_FIND(hh, w->owners, &b->addr, sizeof(b->addr), o);
	m->blocks[m->nblocks++] = (struct attrib_block){ .addr = b->addr, .size = b->size,
	    .requested = b->requested, .allocated = b->allocated,
	    .seg = m->nsegs ? m->nsegs - 1 : 0, .site = o ? o->site : -1,
	    .event = o ? o->event : 0, .stack = o ? o->stack : 0 };
}

/* The policy's segments and blocks into m, each allocated one with its owner in owners. */
static void
walk_map(struct attrib_moment *m, struct sim *sim, struct owner *owners)
{
	struct map_walk w = { .m = m, .owners = owners };

	sim_policy(sim)->walk(sim_policy_state(sim), map_seg, map_block, &w);
}

/* The policy's segments and blocks, each allocated block with its owner's site. */
static void
take_map(struct attrib *a, struct attrib_moment *m, struct sim *sim)
{
	struct owner *owners = NULL, *o, *ot;
	struct attrib_live *l, *lt;
	uint64_t addr, block;

	HASH_ITER(hh, a->live, l, lt) {
		if (sim_lookup(sim, l->id, &addr, &block) < 0)
			continue;	/* the request that failed, or never served */
		HASH_FIND(hh, owners, &addr, sizeof(addr), o);
		if (o != NULL)
			continue;
		o = gms_malloc(sizeof(*o));
		*o = (struct owner){ .addr = addr, .event = l->event, .site = l->site,
		    .stack = l->stack };
		HASH_ADD(hh, owners, addr, sizeof(o->addr), o);
	}
	walk_map(m, sim, owners);
	HASH_ITER(hh, owners, o, ot) {
		HASH_DEL(owners, o);
		free(o);
	}
}

/* The stacked site of site index i (the rest: nstack). */
static size_t
stacked(const struct attrib *a, long i)
{
	size_t k;

	for (k = 0; k < a->nstack; k++)
		if (a->stack_site[k] == i)
			return k;
	return a->nstack;
}

/*
 * Each stacked site's largest stacks at m: what the timeline's bands say on
 * a click.  The moment's stack values hold bytes by node, not by site, so the
 * live set is summed again by (site, node).
 */
struct site_node {
	uint64_t key[2];	/* stacked site, node */
	uint64_t bytes;
	UT_hash_handle hh;
};

static void
take_site_stacks(struct attrib *a, struct attrib_moment *m)
{
	struct site_node *h = NULL, *e, *et;
	struct attrib_live *l, *lt;
	uint64_t key[2];
	size_t j;

	m->site_stacks = gms_calloc(a->nstack + 1, sizeof(*m->site_stacks));
	HASH_ITER(hh, a->live, l, lt) {
		key[0] = stacked(a, l->site);
		key[1] = l->stack;
		HASH_FIND(hh, h, key, sizeof(key), e);
		if (e == NULL) {
			e = gms_calloc(1, sizeof(*e));
			memcpy(e->key, key, sizeof(key));
			HASH_ADD(hh, h, key, sizeof(e->key), e);
		}
		e->bytes += l->size;
	}
	HASH_ITER(hh, h, e, et) {
		struct attrib_site_stacks *ss = &m->site_stacks[e->key[0]];

		/* insert into the site's top few, largest first, ties to the lower node */
		for (j = ATTRIB_SITE_STACKS; j > 0 && (ss->bytes[j - 1] < e->bytes ||
		    (ss->bytes[j - 1] == e->bytes && ss->node[j - 1] > e->key[1])); j--)
			if (j < ATTRIB_SITE_STACKS) {
				ss->bytes[j] = ss->bytes[j - 1];
				ss->node[j] = ss->node[j - 1];
			}
		if (j < ATTRIB_SITE_STACKS) {
			ss->bytes[j] = e->bytes;
			ss->node[j] = (uint32_t)e->key[1];
		}
		HASH_DEL(h, e);
		free(e);
	}
}

static void
take(struct attrib *a, struct attrib_moment *m, const struct sim_sample *smp)
{
	struct policy_stats st;

	/* after the run's OOM the job is dead: nothing chosen past it is a moment of it */
	if (smp != NULL && smp->stopped && strcmp(m->key, "at") == 0)
		return;
	take_rows(a, m);
	if (a->stacks != NULL) {
		struct attrib_live *l, *lt;

		stack_values_init(&m->stk, a->stacks);
		HASH_ITER(hh, a->live, l, lt)
			stack_values_add(&m->stk, l->stack, l->size, l->event);
		if (a->nstack > 0)
			take_site_stacks(a, m);
	}
	m->taken = 1;
	if (smp == NULL || smp->sim == NULL || a->trace_only)
		return;
	m->has_policy = 1;
	m->reserved = smp->reserved;
	m->allocated = smp->allocated;
	sim_policy(smp->sim)->stats(sim_policy_state(smp->sim), &st);
	m->largest_free = st.largest_free;
	if (m->want_map)
		take_map(a, m, smp->sim);
}

static void
stack_event(struct attrib *a, uint64_t index)
{
	struct attrib_bucket *b;
	uint64_t sum = 0, v;
	size_t k;

	if (index / a->width >= a->nbuckets)
		return;
	b = &a->buckets[index / a->width];
	if (b->seen && a->live_bytes <= b->live)
		return;
	b->seen = 1;
	b->event = index;
	b->live = a->live_bytes;
	for (k = 0; k < a->nstack; k++) {
		v = a->stack_site[k] < 0 ? 0 : a->cur[a->stack_site[k]];
		b->bytes[k] = v;
		sum += v;
	}
	b->bytes[a->nstack] = a->live_bytes - sum;
}

static void
apply(struct attrib *a, uint64_t index, const struct trace_event *ev)
{
	struct attrib_live *l;

	if (trace_is_request(ev) && ev->size > 0) {
		HASH_FIND(hh, a->live, &ev->id, sizeof(ev->id), l);
		if (l != NULL)
			return;		/* the engine refused it: cannot happen here */
		l = gms_malloc(sizeof(*l));
		*l = (struct attrib_live){ .id = ev->id, .size = ev->size, .event = index,
		    .site = intern(a, ev->at),
		    .stack = a->stacks ? stack_tree_intern(a->stacks, ev->stack) : 0 };
		a->saw_stack |= ev->stack != NULL;
		HASH_ADD(hh, a->live, id, sizeof(l->id), l);
		a->cur[l->site] += l->size;
		a->live_bytes += l->size;
	} else if (ev->op == TRACE_FREE) {
		HASH_FIND(hh, a->live, &ev->id, sizeof(ev->id), l);
		if (l == NULL)
			return;		/* size 0, or a mid-run trace's unknown id */
		a->cur[l->site] -= l->size;
		a->live_bytes -= l->size;
		HASH_DEL(a->live, l);
		free(l);
	}
}

/* A chosen event's moment, whose request is explained. */
static int
is_chosen(const struct attrib_moment *m)
{
	return m->want_map && strcmp(m->key, "at") == 0;
}

/* The policy's memory before event (after the one before it): what request_after reads. */
static void
take_pre(struct attrib *a, uint64_t event, const struct sim_sample *smp)
{
	moment_free(&a->pre);
	memset(&a->pre, 0, sizeof(a->pre));
	a->pre_reserved = smp->reserved;
	a->pre_event = event;
	walk_map(&a->pre, smp->sim, NULL);
}

/* What the chosen event asks, from the live set before it. */
static void
request_before(struct attrib *a, uint64_t index, const struct trace_event *ev,
    struct attrib_request *r)
{
	struct attrib_live *l;
	size_t i;

	if (trace_is_request(ev)) {
		*r = (struct attrib_request){ .has = 1, .op = TRACE_ALLOC, .id = ev->id,
		    .size = ev->size, .stream = ev->stream, .site = -1 };
	} else if (ev->op == TRACE_FREE) {
		HASH_FIND(hh, a->live, &ev->id, sizeof(ev->id), l);
		*r = (struct attrib_request){ .has = 1, .op = TRACE_FREE, .id = ev->id,
		    .size = l ? l->size : 0, .stream = ev->stream, .made_at = l ? l->event :
		    UINT64_MAX, .site = l ? l->site : -1 };
	}
	/* the policy before it: nothing at the trace's start */
	if (a->pre_event != index || index == 0) {
		moment_free(&a->pre);
		memset(&a->pre, 0, sizeof(a->pre));
		a->pre_reserved = 0;
	}
	for (i = 0; i < a->pre.nblocks; i++)
		if (!a->pre.blocks[i].allocated)
			r->largest_free = GMS_MAX(r->largest_free, a->pre.blocks[i].size);
	r->reserved_before = a->pre_reserved;
}

/* What the policy did with it. */
static void
request_after(struct attrib *a, struct attrib_request *r, const struct sim_sample *smp)
{
	size_t i;

	if (!r->has || smp == NULL || smp->sim == NULL)
		return;
	r->reserved_after = smp->reserved;
	if (r->op != TRACE_ALLOC)
		return;
	r->served = !smp->stopped && sim_lookup(smp->sim, r->id, &r->addr, &r->block) == 0;
	for (i = 0; r->served && i < a->pre.nblocks; i++) {
		const struct attrib_block *b = &a->pre.blocks[i];

		if (!b->allocated && b->addr <= r->addr && r->addr < b->addr + b->size) {
			r->from_free = 1;
			r->free_addr = b->addr;
			r->free_size = b->size;
			r->seg_addr = a->pre.segs[b->seg].addr;
			r->seg_size = a->pre.segs[b->seg].size;
			break;
		}
	}
}

void
attrib_event(struct attrib *a, uint64_t index, const struct trace_event *ev,
    const struct sim_sample *smp)
{
	size_t i;

	struct attrib_request req = { 0 };
	int chosen = 0;

	if (index > a->last && a->nstack == 0)
		return;
	for (i = 0; i < a->n; i++) {
		struct attrib_moment *m = &a->m[i];

		if (!m->taken && m->before && m->event == index)
			take(a, m, smp);
		chosen |= !m->taken && is_chosen(m) && m->event == index;
	}
	if (chosen)
		request_before(a, index, ev, &req);
	apply(a, index, ev);
	for (i = 0; i < a->n; i++) {
		struct attrib_moment *m = &a->m[i];

		if (m->taken || m->before || m->event != index)
			continue;
		take(a, m, smp);
		if (is_chosen(m) && m->taken) {
			m->req = req;
			request_after(a, &m->req, smp);
		}
	}
	/* the free blocks as the next chosen event finds them */
	for (i = 0; i < a->n; i++)
		if (!a->m[i].taken && is_chosen(&a->m[i]) && a->m[i].event == index + 1 &&
		    smp != NULL && smp->sim != NULL)
			take_pre(a, index + 1, smp);
	if (a->nstack > 0)
		stack_event(a, index);
}

void
attrib_sample(void *arg, const struct sim_sample *smp)
{
	attrib_event(arg, smp->event, smp->ev, smp);
}

int
attrib_run(const struct run_spec *spec, const struct sim_result *res,
    const struct attrib_peak *peak, int want_map, struct attrib *a, char **cause)
{
	struct run_spec again = *spec;
	struct run_output out;
	size_t i;
	int err;

	if (peak->seen)
		attrib_add(a, "peak_reserved", "peak reservation", peak->event, 0, want_map);
	if (res->oomed)
		attrib_add(a, "oom", "OOM", res->oom.event, 1, want_map);
	for (i = 0; i < a->nat; i++)
		attrib_add(a, "at", "chosen event", a->at[i], 0, want_map);
	if (a->n == 0)
		return 0;
	again.sampler = attrib_sample;
	again.sampler_arg = a;
	again.stop_after = a->last + 1;
	again.check_every = 0;
	err = run_simulate(&again, &out, cause);
	run_output_free(&out);
	return err < 0 ? err : 0;
}

struct jobs_arg {
	struct batch_job *jobs;
	const struct attrib_peak *peaks;
	struct attrib *ats;
	int want_map;
	int *err;
	char **cause;
};

static void
job_moments(void *arg, size_t i)
{
	struct jobs_arg *j = arg;

	if (j->jobs[i].err == 0)
		j->err[i] = attrib_run(&j->jobs[i].spec, &j->jobs[i].out.res, &j->peaks[i],
		    j->want_map, &j->ats[i], &j->cause[i]);
}

int
attrib_run_jobs(struct batch_job *jobs, size_t n, const struct attrib_peak *peaks,
    int want_map, struct attrib *ats, int threads, char **cause)
{
	struct jobs_arg j = { jobs, peaks, ats, want_map, gms_calloc(n ? n : 1, sizeof(int)),
	    gms_calloc(n ? n : 1, sizeof(char *)) };
	size_t i;
	int err = 0;

	batch_map(n, job_moments, &j, threads);
	for (i = 0; i < n; i++) {
		if (j.err[i] < 0 && err == 0) {
			err = j.err[i];
			*cause = j.cause[i];
			j.cause[i] = NULL;
		}
		free(j.cause[i]);
	}
	free(j.err);
	free(j.cause);
	return err;
}

static int
walk_event(void *arg, uint64_t index, const struct trace_event *ev, char **cause)
{
	struct attrib *a = arg;
	size_t i;

	(void)cause;
	attrib_event(a, index, ev, NULL);
	if (a->nstack > 0)
		return 0;
	for (i = 0; i < a->n; i++)
		if (!a->m[i].taken)
			return 0;
	return 1;	/* every moment taken: the rest of the trace changes none */
}

int
attrib_walk(const char *path, const struct trace_mem *mem, const struct trace_opts *topts,
    struct attrib *a, char **cause)
{
	struct run_walk w = { .path = path, .mem = mem, .device = topts->device,
	    .unknown_frees_warn = topts->unknown_frees_warn, .fn = walk_event, .arg = a };
	struct sim_result res;

	a->trace_only = 1;
	return run_walk(&w, &res, cause);
}

/* What the shares are of: the reservation, or live when no policy ran. */
static uint64_t
whole(const struct attrib_moment *m)
{
	return m->has_policy ? m->reserved : m->live;
}

static double
share(uint64_t part, uint64_t of)
{
	return of ? (double)part / (double)of : 0;
}

/* The rows past top folded into one. */
static struct attrib_row
rest(const struct attrib_moment *m, size_t top)
{
	struct attrib_row r = { 0 };
	size_t i;

	for (i = top; i < m->nrows; i++) {
		if (r.count == 0 || m->rows[i].first < r.first)
			r.first = m->rows[i].first;
		if (r.count == 0 || m->rows[i].last > r.last)
			r.last = m->rows[i].last;
		r.bytes += m->rows[i].bytes;
		r.count += m->rows[i].count;
	}
	return r;
}

static void
row_text(FILE *f, const struct attrib_row *r, const char *name, uint64_t of)
{
	char size[32];

	gms_fmt_size(r->bytes, size, sizeof(size));
	fprintf(f, "  %10s %7llu %6.1f%%  %9llu-%-9llu  %s\n", size,
	    (unsigned long long)r->count, 100 * share(r->bytes, of),
	    (unsigned long long)r->first, (unsigned long long)r->last, name);
}

char *
attrib_text(const struct attrib_moment *m, size_t top)
{
	char *s = NULL, a[32], b[32], c[32], d[32];
	size_t len = 0, i, shown = m->nrows < top ? m->nrows : top;
	uint64_t of = whole(m);
	FILE *f;

	if (!m->taken)
		return gms_strdup("");
	if ((f = open_memstream(&s, &len)) == NULL)
		return gms_strdup("(out of memory)\n");
	gms_fmt_size(of, a, sizeof(a));
	fprintf(f, "At the %s (event %llu, %s %s), what holds the memory:\n"
	    "  %10s %7s %7s  %-19s  %s\n", m->what, (unsigned long long)m->event, a,
	    m->has_policy ? "reserved" : "live", "bytes", "count", "share", "events", "site");
	if (m->nrows == 0)
		fputs("  (nothing live)\n", f);
	for (i = 0; i < shown; i++)
		row_text(f, &m->rows[i], m->rows[i].site, of);
	if (m->nrows > shown) {
		struct attrib_row r = rest(m, shown);
		char *name = gms_asprintf("(%zu other sites)", m->nrows - shown);

		row_text(f, &r, name, of);
		free(name);
	}
	gms_fmt_size(m->live, a, sizeof(a));
	if (!m->has_policy) {
		fprintf(f, "  %s live in %llu allocation%s\n", a,
		    (unsigned long long)m->nlive, m->nlive == 1 ? "" : "s");
	} else {
		gms_fmt_size(m->allocated - m->live, b, sizeof(b));
		gms_fmt_size(m->reserved - m->allocated, c, sizeof(c));
		gms_fmt_size(m->largest_free, d, sizeof(d));
		fprintf(f, "  = %s live in %llu allocation%s + %s of block rounding "
		    "+ %s reserved but not allocated (the largest free block %s)\n", a,
		    (unsigned long long)m->nlive, m->nlive == 1 ? "" : "s", b, c, d);
	}
	fclose(f);
	return s;
}

static cJSON *
row_json(const struct attrib_row *r, const char *name, uint64_t of)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "site", name);
	cJSON_AddNumberToObject(o, "bytes", (double)r->bytes);
	cJSON_AddNumberToObject(o, "count", (double)r->count);
	cJSON_AddNumberToObject(o, "share", share(r->bytes, of));
	cJSON_AddNumberToObject(o, "first_event", (double)r->first);
	cJSON_AddNumberToObject(o, "last_event", (double)r->last);
	return o;
}

cJSON *
attrib_json(const struct attrib_moment *m, size_t top)
{
	cJSON *o = cJSON_CreateObject(), *rows;
	size_t i, shown = m->nrows < top ? m->nrows : top;
	uint64_t of = whole(m);

	cJSON_AddStringToObject(o, "moment", m->key);
	cJSON_AddNumberToObject(o, "event", (double)m->event);
	cJSON_AddNumberToObject(o, "live", (double)m->live);
	cJSON_AddNumberToObject(o, "count", (double)m->nlive);
	if (m->has_policy) {
		cJSON_AddNumberToObject(o, "reserved", (double)m->reserved);
		cJSON_AddNumberToObject(o, "allocated", (double)m->allocated);
		cJSON_AddNumberToObject(o, "rounding", (double)(m->allocated - m->live));
		cJSON_AddNumberToObject(o, "reserved_free", (double)(m->reserved - m->allocated));
		cJSON_AddNumberToObject(o, "largest_free", (double)m->largest_free);
	}
	rows = cJSON_AddArrayToObject(o, "sites");
	for (i = 0; i < shown; i++)
		cJSON_AddItemToArray(rows, row_json(&m->rows[i], m->rows[i].site, of));
	if (m->nrows > shown) {
		struct attrib_row r = rest(m, shown);
		cJSON *other = row_json(&r, "(other sites)", of);

		cJSON_AddNumberToObject(other, "sites", (double)(m->nrows - shown));
		cJSON_AddItemToObject(o, "other", other);
	} else {
		cJSON_AddNullToObject(o, "other");
	}
	return o;
}

char *
attrib_stacks_text(const struct attrib *a, const struct attrib_moment *m, const char *filter,
    unsigned depth, size_t top)
{
	struct stack_view *w;
	char *s = NULL, live[32], of[32];
	size_t len = 0;
	FILE *f;

	if (!m->taken || a->stacks == NULL)
		return gms_strdup("");
	if ((f = open_memstream(&s, &len)) == NULL)
		return gms_strdup("(out of memory)\n");
	w = stack_view_new(a->stacks, &m->stk, filter, depth);
	gms_fmt_size(m->stk.live, live, sizeof(live));
	gms_fmt_size(whole(m), of, sizeof(of));
	fprintf(f, "At the %s (event %llu, %s %s), the live memory by stack: %s in %llu "
	    "allocation%s%s%s%s\n", m->what, (unsigned long long)m->event, of,
	    m->has_policy ? "reserved" : "live", live, (unsigned long long)m->stk.nlive,
	    m->stk.nlive == 1 ? "" : "s", filter ? " (frames matching '" : "",
	    filter ? filter : "", filter ? "')" : "");
	stack_view_text(f, w, top);
	stack_view_free(w);
	fclose(f);
	return s;
}

cJSON *
attrib_stacks_json(const struct attrib *a, const struct attrib_moment *m, const char *filter,
    unsigned depth)
{
	cJSON *o = cJSON_CreateObject();
	struct stack_view *w;

	cJSON_AddStringToObject(o, "moment", m->key);
	cJSON_AddNumberToObject(o, "event", (double)m->event);
	cJSON_AddNumberToObject(o, "live", (double)m->stk.live);
	cJSON_AddNumberToObject(o, "count", (double)m->stk.nlive);
	if (!m->taken || a->stacks == NULL) {
		cJSON_AddNullToObject(o, "tree");
		return o;
	}
	w = stack_view_new(a->stacks, &m->stk, filter, depth);
	cJSON_AddItemToObject(o, "tree", stack_view_json(w));
	stack_view_free(w);
	return o;
}

void
attrib_folded(FILE *f, const struct attrib *a, const struct attrib_moment *m, const char *filter,
    unsigned depth)
{
	struct stack_view *w;

	if (!m->taken || a->stacks == NULL)
		return;
	w = stack_view_new(a->stacks, &m->stk, filter, depth);
	stack_view_folded(f, w);
	stack_view_free(w);
}

int
attrib_has_stacks(const struct attrib *a)
{
	return a->stacks != NULL && a->saw_stack;
}

void
attrib_flame(FILE *f, const struct attrib *a, const struct attrib_moment *m, const char *filter,
    unsigned depth, const char *title, double min_px, int in_html)
{
	struct stack_view *w;

	if (!m->taken || a->stacks == NULL)
		return;
	w = stack_view_new(a->stacks, &m->stk, filter, depth);
	stack_view_svg(f, w, title, min_px, in_html);
	stack_view_free(w);
}

size_t
attrib_stack_frames(const struct attrib *a, uint32_t node, const char **frames, size_t max)
{
	return a->stacks == NULL ? 0 : stack_tree_frames(a->stacks, node, frames, max);
}

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

char *
attrib_request_text(const struct attrib *a, const struct attrib_moment *m)
{
	const struct attrib_request *r = &m->req;
	char *s, *t;

	if (!m->taken || !r->has)
		return NULL;
	if (r->op == TRACE_FREE) {
		if (r->made_at == UINT64_MAX)
			return gms_asprintf("Event %llu frees allocation %llu, which the trace never "
			    "showed made.", (unsigned long long)m->event, (unsigned long long)r->id);
		t = r->reserved_after < r->reserved_before ? gms_asprintf("The policy gave %s back "
		    "to the device (its reservation %s, was %s).", SZ(r->reserved_before -
		    r->reserved_after), SZ(r->reserved_after), SZ(r->reserved_before)) :
		    gms_strdup("Its block stays reserved, free in the policy's cache.");
		s = gms_asprintf("Event %llu frees allocation %llu: %s (%llu B) made at event "
		    "%llu by %s. %s", (unsigned long long)m->event, (unsigned long long)r->id,
		    SZ(r->size), (unsigned long long)r->size, (unsigned long long)r->made_at,
		    attrib_site_name(a, r->site), t);
		free(t);
		return s;
	}
	s = gms_asprintf("Event %llu asks %s (%llu B) on stream %lld.", (unsigned long long)m->event,
	    SZ(r->size), (unsigned long long)r->size, (long long)r->stream);
	if (!r->served)
		t = gms_asprintf("%s It was not served: no block the policy had free served it (the "
		    "largest free block before it was %s, %llu B) and the device had no room for "
		    "more.", s,
		    SZ(r->largest_free), (unsigned long long)r->largest_free);
	else if (r->from_free)
		t = gms_asprintf("%s It took a block of %s at 0x%llx from the free block of %s at "
		    "0x%llx (segment 0x%llx, %s), leaving %s of it free.", s, SZ(r->block),
		    (unsigned long long)r->addr, SZ(r->free_size), (unsigned long long)r->free_addr,
		    (unsigned long long)r->seg_addr, SZ(r->seg_size),
		    SZ(r->free_size > r->block ? r->free_size - r->block : 0));
	else
		t = gms_asprintf("%s No block the policy had free served it (the largest free block before "
		    "it was %s, %llu B): it took a block of %s at 0x%llx in memory newly reserved.", s,
		    SZ(r->largest_free), (unsigned long long)r->largest_free, SZ(r->block),
		    (unsigned long long)r->addr);
	free(s);
	return t;
}
