/*
 * attrib.c - analysis/attrib.c: what holds the memory at a moment.
 *
 * 1. t/data/sites/handworked.json through the caching policy, every number
 *    worked out by hand from PyTorch's rules (a request of 1-10 MiB takes a
 *    20 MiB segment, a larger one its size rounded to 2 MiB, a small one a
 *    2 MiB segment and a block rounded to 512 bytes; an OOM frees every
 *    unused segment and retries), uncapped and in 60 MiB.
 * 2. The sample traces, each policy, uncapped and in a capacity that runs
 *    out: the table at the peak and at the OOM against a naive recount of
 *    the trace's live set (arrays, no hashing), the policy's numbers against
 *    the first run's (the peak reservation, the OOM's reserved, allocated,
 *    largest free block and live), and the memory map against itself (its
 *    blocks tile each segment, its allocated blocks are the live set).
 * 3. The stack (the report's timeline): for every bucket, the event where
 *    live first reached the bucket's largest and each chosen site's bytes
 *    there, against the naive recount.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/run.h"
#include "t/tap.h"
#include "traces/trace.h"

#define MiB ((uint64_t)1 << 20)

struct moments {
	struct run_output out;
	struct attrib at;
};

/* Run path, then take its moments (with the maps). */
static void
attribute(const char *path, const struct policy_ops *ops, uint64_t capacity,
    struct moments *mo)
{
	struct run_spec spec = { .path = path, .policy = ops, .capacity = capacity,
	    .device = -1 };
	struct attrib_peak peak = { 0 };
	char *cause = NULL;

	attrib_init(&mo->at);
	spec.sampler = attrib_peak_sample;
	spec.sampler_arg = &peak;
	if (run_simulate(&spec, &mo->out, &cause) < 0 ||
	    attrib_run(&spec, &mo->out.res, &peak, 1, &mo->at, &cause) < 0) {
		printf("Bail out! %s: %s\n", path, cause);
		exit(1);
	}
}

static void
moments_free(struct moments *mo)
{
	run_output_free(&mo->out);
	attrib_free(&mo->at);
}

static const struct attrib_row *
row(const struct attrib_moment *m, size_t i)
{
	static const struct attrib_row none = { .site = "(missing)" };

	return i < m->nrows ? &m->rows[i] : &none;
}

static void
handworked(void)
{
	char *path = tap_srcpath("t/data/sites/handworked.json");
	struct moments mo;
	const struct attrib_moment *p, *o;

	/* Uncapped: the peak is event 7's new 100 MiB segment (20 + 30 + 2 + 100 MiB). */
	attribute(path, &policy_caching, 0, &mo);
	is_u64(mo.at.n, 1, "uncapped: one moment, the peak reservation");
	p = &mo.at.m[0];
	is_u64(p->event, 7, "the peak is at event 7");
	is_u64(p->reserved, 152 * MiB, "152 MiB reserved");
	is_u64(p->nrows, 2, "two sites live");
	is_str(row(p, 0)->site, "c.py:3 h", "the largest first");
	is_u64(row(p, 0)->bytes, 100 * MiB, "its bytes");
	is_u64(row(p, 0)->first, 7, "made at event 7");
	is_str(row(p, 1)->site, ATTRIB_NO_SITE, "then the allocation without a site");
	is_u64(row(p, 1)->bytes, 1000, "1000 bytes");
	is_u64(p->live, 100 * MiB + 1000, "live");
	is_u64(p->allocated, 100 * MiB + 1024, "allocated: 1000 rounded to 1024");
	is_u64(p->largest_free, 30 * MiB, "the largest free block: the 30 MiB segment");
	moments_free(&mo);

	/* In 60 MiB: the peak is 52 MiB at event 4, then event 7 runs out. */
	attribute(path, &policy_caching, 60 * MiB, &mo);
	is_u64(mo.at.n, 2, "capped: the peak and the OOM");
	p = &mo.at.m[0];
	o = &mo.at.m[1];
	is_u64(p->event, 4, "the peak is at event 4");
	is_u64(p->reserved, 52 * MiB, "52 MiB reserved");
	is_u64(p->nrows, 2, "two sites live");
	is_str(row(p, 0)->site, "a.py:1 f", "a.py's two allocations first");
	is_u64(row(p, 0)->bytes, 38 * MiB, "8 + 30 MiB");
	is_u64(row(p, 0)->count, 2, "two of them");
	is_u64(row(p, 0)->first, 0, "the oldest made at event 0");
	is_u64(row(p, 0)->last, 2, "the newest at event 2");
	is_u64(row(p, 1)->bytes, 1000, "and the small one");
	is_u64(p->allocated, 38 * MiB + 1024, "allocated");
	is_u64(p->largest_free, 12 * MiB, "the largest free block: 12 MiB left of the 20 MiB segment");
	is_str(o->key, "oom", "the second moment is the OOM");
	is_u64(o->event, 7, "at event 7");
	is_u64(o->live, 1000, "the failed request is not live");
	is_u64(o->nrows, 1, "one site");
	is_u64(o->reserved, 2 * MiB, "after the retry freed the unused segments: the small one");
	is_u64(o->largest_free, 2 * MiB - 1024, "its free rest");
	is_u64(o->nsegs, 1, "the map holds one segment");
	is_u64(o->nblocks, 2, "of two blocks");
	moments_free(&mo);
	free(path);
}

/* The trace's live set at a moment, recounted the slow way. */
struct naive {
	uint64_t *id, *size, *event;
	char **site;
	size_t n, cap;
};

static void
naive_apply(struct naive *nv, uint64_t index, const struct trace_event *ev)
{
	size_t i;

	if (ev->op == TRACE_ALLOC && ev->size > 0) {
		if (nv->n == nv->cap) {
			nv->cap = nv->cap ? 2 * nv->cap : 1024;
			nv->id = gms_realloc(nv->id, nv->cap * sizeof(*nv->id));
			nv->size = gms_realloc(nv->size, nv->cap * sizeof(*nv->size));
			nv->event = gms_realloc(nv->event, nv->cap * sizeof(*nv->event));
			nv->site = gms_realloc(nv->site, nv->cap * sizeof(*nv->site));
		}
		nv->id[nv->n] = ev->id;
		nv->size[nv->n] = ev->size;
		nv->event[nv->n] = index;
		nv->site[nv->n] = gms_strdup(ev->at ? ev->at : ATTRIB_NO_SITE);
		nv->n++;
	} else if (ev->op == TRACE_FREE) {
		for (i = 0; i < nv->n; i++) {
			if (nv->id[i] != ev->id)
				continue;
			free(nv->site[i]);
			nv->n--;
			nv->id[i] = nv->id[nv->n];
			nv->size[i] = nv->size[nv->n];
			nv->event[i] = nv->event[nv->n];
			nv->site[i] = nv->site[nv->n];
			break;
		}
	}
}

static void
naive_free(struct naive *nv)
{
	size_t i;

	for (i = 0; i < nv->n; i++)
		free(nv->site[i]);
	free(nv->id);
	free(nv->size);
	free(nv->event);
	free(nv->site);
	memset(nv, 0, sizeof(*nv));
}

/* Does m's table say what the naive live set says?  Returns a reason, or NULL. */
static const char *
naive_differs(const struct naive *nv, const struct attrib_moment *m)
{
	uint64_t live = 0, bytes, count, first, last;
	size_t i, j, nsites = 0;

	for (i = 0; i < nv->n; i++)
		live += nv->size[i];
	if (live != m->live || nv->n != m->nlive)
		return "live bytes or count";
	for (i = 0; i < nv->n; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(nv->site[j], nv->site[i]) == 0)
				break;
		if (j < i)
			continue;	/* counted with its first */
		nsites++;
		bytes = count = 0;
		first = UINT64_MAX;
		last = 0;
		for (j = i; j < nv->n; j++) {
			if (strcmp(nv->site[j], nv->site[i]) != 0)
				continue;
			bytes += nv->size[j];
			count++;
			first = GMS_MIN(first, nv->event[j]);
			last = GMS_MAX(last, nv->event[j]);
		}
		for (j = 0; j < m->nrows; j++)
			if (strcmp(m->rows[j].site, nv->site[i]) == 0)
				break;
		if (j == m->nrows)
			return "a site is missing";
		if (m->rows[j].bytes != bytes || m->rows[j].count != count ||
		    m->rows[j].first != first || m->rows[j].last != last)
			return "a site's bytes, count or events";
	}
	if (nsites != m->nrows)
		return "a site too many";
	for (j = 1; j < m->nrows; j++)
		if (m->rows[j].bytes > m->rows[j - 1].bytes)
			return "not largest first";
	return NULL;
}

/* The map's blocks tile their segments; its allocated blocks hold what is live. */
static const char *
map_differs(const struct attrib_moment *m)
{
	uint64_t at, requested = 0, allocated = 0, reserved = 0, nalloc = 0;
	size_t i = 0, s;

	for (s = 0; s < m->nsegs; s++) {
		at = m->segs[s].addr;
		reserved += m->segs[s].size;
		for (; i < m->nblocks && m->blocks[i].seg == s; i++) {
			if (m->blocks[i].addr != at)
				return "a gap or an overlap in a segment";
			at += m->blocks[i].size;
			if (m->blocks[i].allocated) {
				if (m->blocks[i].site < 0)
					return "an allocated block without its site";
				requested += m->blocks[i].requested;
				allocated += m->blocks[i].size;
				nalloc++;
			}
		}
		if (at != m->segs[s].addr + m->segs[s].size)
			return "blocks that do not fill their segment";
	}
	if (i != m->nblocks)
		return "blocks outside every segment";
	if (requested != m->live || nalloc != m->nlive)
		return "allocated blocks that are not the live set";
	if (allocated != m->allocated)
		return "allocated bytes";
	(void)reserved;
	return NULL;
}

static void
sample(const char *name, const struct policy_ops *ops, uint64_t capacity)
{
	char *path = tap_srcpath(name), *cause = NULL;
	struct moments mo;
	struct trace_reader *r;
	struct trace_event ev;
	struct naive nv = { 0 };
	const char *why;
	size_t k;
	int rc;

	attribute(path, ops, capacity, &mo);
	ok(mo.at.n == 1 + (size_t)mo.out.res.oomed, "%s %s in %llu: %zu moments", name, ops->name,
	    (unsigned long long)capacity, mo.at.n);
	for (k = 0; k < mo.at.n; k++) {
		const struct attrib_moment *m = &mo.at.m[k];

		ok(m->taken, "%s %s: the %s was reached", name, ops->name, m->what);
		ok(m->live + (m->allocated - m->live) + (m->reserved - m->allocated) == m->reserved &&
		    m->allocated >= m->live && m->reserved >= m->allocated,
		    "%s %s %s: live <= allocated <= reserved", name, ops->name, m->what);
		if (m->before) {
			const struct sim_oom *oom = &mo.out.res.oom;

			ok(m->reserved == oom->reserved && m->allocated == oom->allocated &&
			    m->largest_free == oom->largest_free && m->live == oom->live,
			    "%s %s: the OOM's numbers are the run's (%llu reserved)", name, ops->name,
			    (unsigned long long)oom->reserved);
		} else {
			is_u64(m->reserved, mo.out.res.peak_reserved, "%s %s: the peak is the run's",
			    name, ops->name);
		}
		why = ops == &policy_caching || ops == &policy_no_cache ? map_differs(m) : NULL;
		ok(why == NULL, "%s %s %s: the map (%zu segments, %zu blocks): %s", name, ops->name,
		    m->what, m->nsegs, m->nblocks, why ? why : "consistent");
	}
	/* the naive recount, up to each moment */
	if (trace_open(path, &r, &cause) < 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	k = 0;
	while (k < mo.at.n && (rc = trace_next(r, &ev, &cause)) == 1) {
		uint64_t i = trace_index(r);

		for (; k < mo.at.n && mo.at.m[k].event == i && mo.at.m[k].before; k++) {
			why = naive_differs(&nv, &mo.at.m[k]);
			ok(why == NULL, "%s %s: the %s's sites, recounted: %s", name, ops->name,
			    mo.at.m[k].what, why ? why : "the same");
		}
		naive_apply(&nv, i, &ev);
		for (; k < mo.at.n && mo.at.m[k].event == i && !mo.at.m[k].before; k++) {
			why = naive_differs(&nv, &mo.at.m[k]);
			ok(why == NULL, "%s %s: the %s's sites, recounted: %s", name, ops->name,
			    mo.at.m[k].what, why ? why : "the same");
		}
	}
	is_u64(k, mo.at.n, "%s %s: every moment recounted", name, ops->name);
	trace_close(r);
	naive_free(&nv);
	moments_free(&mo);
	free(path);
}

/* Read path's events into the naive live set, calling fn(arg, index, live bytes) after each. */
static uint64_t
naive_walk(const char *path, struct naive *nv, void (*fn)(void *, uint64_t, const struct naive *),
    void *arg)
{
	struct trace_reader *r;
	struct trace_event ev;
	char *cause = NULL;
	uint64_t n = 0;

	if (trace_open(path, &r, &cause) < 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	while (trace_next(r, &ev, &cause) == 1) {
		naive_apply(nv, trace_index(r), &ev);
		fn(arg, trace_index(r), nv);
		n++;
	}
	trace_close(r);
	return n;
}

struct stack_ref {
	const struct attrib *a;
	uint64_t *max, *at;	/* per bucket: the largest live, and where first */
	int *seen;
	const char *const *names;
	size_t nnames;
	int bad;
	char *why;
};

static uint64_t
naive_live(const struct naive *nv)
{
	uint64_t live = 0;
	size_t i;

	for (i = 0; i < nv->n; i++)
		live += nv->size[i];
	return live;
}

static void
nothing(void *arg, uint64_t index, const struct naive *nv)
{
	(void)arg, (void)index, (void)nv;
}

static void
bucket_max(void *arg, uint64_t index, const struct naive *nv)
{
	struct stack_ref *s = arg;
	uint64_t b = index / s->a->width, live = naive_live(nv);

	if (!s->seen[b] || live > s->max[b]) {
		s->seen[b] = 1;
		s->max[b] = live;
		s->at[b] = index;
	}
}

static void
bucket_sites(void *arg, uint64_t index, const struct naive *nv)
{
	struct stack_ref *s = arg;
	const struct attrib_bucket *bk = &s->a->buckets[index / s->a->width];
	uint64_t sum = 0, v;
	size_t k, i;

	if (s->bad || s->at[index / s->a->width] != index)
		return;
	if (!bk->seen || bk->event != index || bk->live != s->max[index / s->a->width]) {
		s->bad = 1;
		s->why = gms_asprintf("bucket %llu: event %llu live %llu, want event %llu live %llu",
		    (unsigned long long)(index / s->a->width), (unsigned long long)bk->event,
		    (unsigned long long)bk->live, (unsigned long long)index,
		    (unsigned long long)s->max[index / s->a->width]);
		return;
	}
	for (k = 0; k < s->nnames; k++) {
		for (v = 0, i = 0; i < nv->n; i++)
			if (strcmp(nv->site[i], s->names[k]) == 0)
				v += nv->size[i];
		sum += v;
		if (bk->bytes[k] != v) {
			s->bad = 1;
			s->why = gms_asprintf("event %llu: %s holds %llu, want %llu",
			    (unsigned long long)index, s->names[k],
			    (unsigned long long)bk->bytes[k], (unsigned long long)v);
			return;
		}
	}
	if (bk->bytes[s->nnames] != bk->live - sum) {
		s->bad = 1;
		s->why = gms_asprintf("event %llu: the rest is %llu, want %llu",
		    (unsigned long long)index, (unsigned long long)bk->bytes[s->nnames],
		    (unsigned long long)(bk->live - sum));
	}
}

static void
stack(const char *name, const char *const *names, size_t nnames, size_t points)
{
	char *path = tap_srcpath(name), *cause = NULL;
	struct naive nv = { 0 };
	struct attrib a;
	struct trace_opts topts = { .device = -1 };
	struct stack_ref s = { .a = &a, .names = names, .nnames = nnames };
	uint64_t events, b, seen = 0;

	events = naive_walk(path, &nv, nothing, NULL);
	naive_free(&nv);
	attrib_init(&a);
	attrib_stack(&a, names, nnames, events, points);
	if (attrib_walk(path, NULL, &topts, &a, &cause) < 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	s.max = gms_calloc(a.nbuckets, sizeof(*s.max));
	s.at = gms_calloc(a.nbuckets, sizeof(*s.at));
	s.seen = gms_calloc(a.nbuckets, sizeof(*s.seen));
	naive_walk(path, &nv, bucket_max, &s);
	naive_free(&nv);
	naive_walk(path, &nv, bucket_sites, &s);
	naive_free(&nv);
	for (b = 0; b < a.nbuckets; b++)
		seen += (uint64_t)s.seen[b];
	ok(a.nbuckets <= points + 1 && seen == (events + a.width - 1) / a.width,
	    "%s: %llu events in %llu buckets of %llu (at most %zu + 1)", name,
	    (unsigned long long)events, (unsigned long long)seen, (unsigned long long)a.width,
	    points);
	ok(!s.bad, "%s: each bucket's largest live and its sites, recounted: %s", name,
	    s.bad ? s.why : "the same");
	free(s.why);
	free(s.max);
	free(s.at);
	free(s.seen);
	attrib_free(&a);
	free(path);
}

int
main(void)
{
	static const char *const samples[] = { "traces/resnet50-train-b32.json",
	    "traces/gpt2-train-varlen-bf16.jsonl.gz", "traces/synth-swiss-cheese-8.json",
	    "traces/resnet50-train-b32.pickle" };
	size_t i;

	handworked();
	for (i = 0; i < sizeof(samples) / sizeof(*samples); i++) {
		sample(samples[i], &policy_caching, 0);
		sample(samples[i], &policy_caching, 2 * ((uint64_t)1 << 30));
		sample(samples[i], &policy_no_cache, 2 * ((uint64_t)1 << 30));
		sample(samples[i], &policy_grow_only, 0);
	}
	stack("t/data/sites/handworked.json", (const char *const[]){ "c.py:3 h", "a.py:1 f",
	    "nowhere.py:1 f" }, 3, 4);
	stack("traces/resnet50-train-b32.json", (const char *const[]){
	    "conv.py:548 _conv_forward", "batchnorm.py:194 forward", ATTRIB_NO_SITE }, 3, 37);
	stack("traces/gpt2-train-varlen-bf16.jsonl.gz", (const char *const[]){
	    "activations.py:66 forward", "linear.py:134 forward" }, 2, 500);
	return tap_done();
}
