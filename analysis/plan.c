/*
 * plan.c - capacity planning (plan.h).  Each policy's search, and each cell
 * of the GPU table, is one task on the thread pool; every run replays the
 * same in-memory trace.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plan.h"
#include "sim/batch.h"
#include "sim/checkpoint.h"
#include "sim/gms.h"
#include "sim/progress.h"
#include "sim/run.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)
/* A pool's search goes by this (bytes). */
#define POOL_STEP 256
/* No search goes past this: far beyond any device. */
#define PLAN_CEILING ((uint64_t)1 << 46)

struct ctx {
	const struct trace_mem *m;
	struct plan_report *rep;
	int threads;
	int *rc0;			/* each policy's run without a limit */
	struct sim_result *res0;
	struct ckpt_first *first;	/* the same, for its checkpoints */
};

/*
 * The runs of a policy that reserves one pool whole (policy_ops.pool_at,
 * preallocate's), by pool: a run with a pool up to a known run's slack
 * larger goes as that one did (sim_result.pool_slack), and is taken from it.
 */
static int run_fits(const struct trace_mem *m, const struct plan_policy *p, uint64_t capacity,
    const struct gpu_model *gpu, struct sim_result *res);

struct pool_run {
	uint64_t pool, slack;
	int rc, oomed;
	uint64_t peak_reserved, oom_event;
};

struct pool_runs {
	pthread_mutex_t lock;
	struct pool_run *v;
	size_t n, cap;
};

static uint64_t
pool_of(const struct trace_mem *m, const struct plan_policy *p, uint64_t capacity,
    const struct gpu_model *gpu)
{
	struct run_spec spec = { .policy = p->ops, .opts = p->opts, .nopts = p->nopts,
	    .placement = p->placement, .capacity = capacity, .gpu_total = gpu ? gpu->total : 0,
	    .gpu_cc = gpu ? gpu->cc : 0 };
	struct run_output held;
	struct policy_args args;
	uint64_t pool;

	if (p->pools == NULL || capacity == 0)
		return 0;
	run_policy_args(&spec, trace_mem_header(m), &held, &args);
	pool = p->ops->pool_at(&args, capacity);
	free(held.opts);
	return pool;
}

static int
pool_known(struct pool_runs *pr, uint64_t pool, struct sim_result *res)
{
	size_t i;
	int rc = -1;

	pthread_mutex_lock(&pr->lock);
	for (i = 0; i < pr->n && rc < 0; i++) {
		const struct pool_run *r = &pr->v[i];

		if (pool < r->pool || pool - r->pool > r->slack)
			continue;
		rc = r->rc;
		if (res != NULL) {
			memset(res, 0, sizeof(*res));
			res->oomed = r->oomed;
			res->oom.event = r->oom_event;
			/* its pool, where the run reserved it */
			res->peak_reserved = r->peak_reserved == r->pool ? pool : r->peak_reserved;
		}
	}
	pthread_mutex_unlock(&pr->lock);
	return rc;
}

static void
pool_learn(struct pool_runs *pr, uint64_t pool, int rc, const struct sim_result *res)
{
	pthread_mutex_lock(&pr->lock);
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? 2 * pr->cap : 16;
		pr->v = gms_realloc(pr->v, pr->cap * sizeof(*pr->v));
	}
	pr->v[pr->n++] = (struct pool_run){ .pool = pool, .slack = res->pool_slack, .rc = rc,
	    .oomed = res->oomed, .peak_reserved = res->peak_reserved,
	    .oom_event = res->oom.event };
	pthread_mutex_unlock(&pr->lock);
}

static void
pool_runs_free(struct pool_runs *pr)
{
	if (pr == NULL)
		return;
	pthread_mutex_destroy(&pr->lock);
	free(pr->v);
	free(pr);
}

int
plan_fits(const struct trace_mem *m, const struct plan_policy *p, uint64_t capacity,
    const struct gpu_model *gpu, struct sim_result *res)
{
	uint64_t pool = pool_of(m, p, capacity, gpu);
	struct sim_result mine;
	int rc;

	progress_run();
	if (gpu == NULL && (rc = ckpt_fits(p->ckpt, capacity, res)) >= 0)
		return rc;
	if (pool != 0 && (rc = pool_known(p->pools, pool, res)) >= 0)
		return rc;
	rc = run_fits(m, p, capacity, gpu, pool != 0 && res == NULL ? &mine : res);
	if (pool != 0 && rc >= 0)
		pool_learn(p->pools, pool, rc, res ? res : &mine);
	return rc;
}

static int
run_fits(const struct trace_mem *m, const struct plan_policy *p, uint64_t capacity,
    const struct gpu_model *gpu, struct sim_result *res)
{
	struct run_spec spec = { .mem = m, .policy = p->ops, .opts = p->opts, .nopts = p->nopts,
	    .capacity = capacity, .placement = p->placement, .placement_seed = p->seed,
	    .gpu_total = gpu ? gpu->total : 0, .gpu_cc = gpu ? gpu->cc : 0,
	    .stop_at_oom = capacity != 0 };
	struct run_output out;
	char *cause = NULL;
	int rc;

	rc = run_simulate(&spec, &out, &cause);
	if (rc == 0) {
		if (res != NULL)
			*res = out.res;
		rc = !out.res.oomed;
	}
	run_output_free(&out);
	free(cause);
	return rc;
}

uint64_t
plan_up(uint64_t n)
{
	return (n + PLAN_STEP - 1) / PLAN_STEP * PLAN_STEP;
}

/*
 * Would the run at capacity (on gpu, when there is one) go exactly as the
 * policy's uncapped run did?  The policy says (policy.h: limit_inert): the
 * cells and searches above that run's peak then take it as it is.
 */
static int
inert_at(const struct ctx *c, const struct plan_policy *p, uint64_t capacity,
    const struct gpu_model *gpu)
{
	struct policy_args args = { .opts = p->opts, .nopts = p->nopts,
	    .gpu_total = gpu ? gpu->total : 0, .gpu_cc = gpu ? gpu->cc : 0,
	    .device_total = trace_mem_header(c->m)->device_total };

	return p->unbounded_peak != 0 && p->err == 0 && p->ops->limit_inert != NULL &&
	    p->ops->limit_inert(&args, capacity, p->unbounded_asked);
}

/* A search's runs, remembered: bisection and verification ask some twice. */
/* What a search varies: the capacity, or the size of the policy's own pool. */
typedef int (size_fits_fn)(const struct trace_mem *m, const struct plan_policy *p, uint64_t at);

struct tried {
	size_fits_fn *fits_at;
	uint64_t cap[64];
	int fits[64];
	size_t n;
};

static int
fits_once(const struct ctx *c, const struct plan_policy *p, uint64_t at, struct tried *t)
{
	size_t i;
	int rc;

	for (i = 0; i < t->n; i++)
		if (t->cap[i] == at)
			return t->fits[i];
	rc = t->fits_at(c->m, p, at);
	if (rc >= 0 && t->n < 64) {
		t->cap[t->n] = at;
		t->fits[t->n++] = rc;
	}
	return rc;
}

static int
capacity_fits(const struct trace_mem *m, const struct plan_policy *p, uint64_t capacity)
{
	return plan_fits(m, p, capacity, NULL, NULL);
}

/*
 * The smallest multiple of step that fits: from hi, doubled until it fits
 * (up to the ceiling), then bisected down towards the live peak, below
 * which nothing fits; *verified when it fits and step less does not.
 * Returns 1 with *min, 0 when nothing up to the ceiling fits, or < 0 when
 * the policy cannot run.
 */
static int
smallest(const struct ctx *c, const struct plan_policy *p, struct tried *t, uint64_t hi,
    uint64_t step, uint64_t *min, int *verified)
{
	uint64_t lo, mid;
	int rc;

	while ((rc = fits_once(c, p, hi, t)) == 0 && hi < PLAN_CEILING)
		hi *= 2;
	if (rc <= 0)
		return rc;
	lo = c->rep->peak_live / step * step;
	if (lo >= hi)
		lo = hi - step;
	if (lo > 0 && fits_once(c, p, lo, t) == 1) {
		hi = lo;
	} else {
		while (hi - lo > step) {
			mid = lo + (hi - lo) / 2 / step * step;
			if (fits_once(c, p, mid, t) == 1)
				hi = mid;
			else
				lo = mid;
		}
	}
	*min = hi;
	*verified = fits_once(c, p, hi, t) == 1 &&
	    (hi <= step || fits_once(c, p, hi - step, t) != 1);
	return 1;
}

/* The probes above a policy's smallest capacity. */
struct probes {
	const struct ctx *c;
	const struct plan_policy *p;
	uint64_t at[PLAN_PROBES];
	int fits[PLAN_PROBES];
	size_t n;
};

static void
probe(void *arg, size_t i)
{
	struct probes *pr = arg;

	if (pr->fits[i] < 0)
		pr->fits[i] = capacity_fits(pr->c->m, pr->p, pr->at[i]);
}

static void
search(void *arg, size_t i)
{
	struct ctx *c = arg;
	struct plan_policy *p = &c->rep->pols[i];
	uint64_t hi, cap;
	struct tried t = { .fits_at = capacity_fits };
	size_t k;
	int rc;

	ckpt_wait(p->ckpt);
	/* with no limit: where the search starts (a preallocated pool needs one) */
	if (c->rc0[i] == 1) {
		p->unbounded_peak = c->res0[i].peak_reserved;
		p->unbounded_asked = c->res0[i].peak_asked;
		hi = plan_up(GMS_MAX(p->unbounded_peak, PLAN_STEP));
	} else {
		hi = plan_up(GMS_MAX(c->rep->peak_live, PLAN_STEP));
	}
	/* above the uncapped run's peak nothing changes: it fits */
	if (inert_at(c, p, hi, NULL)) {
		t.cap[t.n] = hi;
		t.fits[t.n++] = 1;
	}
	if ((rc = smallest(c, p, &t, hi, PLAN_STEP, &p->min_capacity, &p->verified)) < 0)
		p->err = rc;
	if (rc <= 0)
		return;		/* cannot run, or nothing up to the ceiling fits */
	hi = p->min_capacity;
	if (c->rep->no_probes)
		return;
	/* probe above: more memory must not fail, but with caching it can */
	cap = p->unbounded_peak ? plan_up(p->unbounded_peak) : hi * 2;
	struct probes pr = { .c = c, .p = p };

	for (k = 1; k <= PLAN_PROBES && cap > hi; k++) {
		uint64_t at = plan_up(hi + (cap - hi) * k / (PLAN_PROBES + 1));

		if (pr.n > 0 && pr.at[pr.n - 1] == at)
			continue;	/* the same probe, rounded to 2 MiB */
		if (at > hi && at < cap)
			pr.at[pr.n++] = at;
	}
	/* independent of each other: on every core (unless already run) */
	for (k = 0; k < pr.n; k++)
		pr.fits[k] = -1;
	for (k = 0; k < pr.n; k++) {
		size_t j;

		for (j = 0; j < t.n; j++)
			if (t.cap[j] == pr.at[k])
				pr.fits[k] = t.fits[j];
	}
	batch_map(pr.n, probe, &pr, c->threads);
	for (k = 0; k < pr.n; k++)
		if (pr.fits[k] == 0 && p->nfails < PLAN_PROBES)
			p->fails_above[p->nfails++] = pr.at[k];
}

/*
 * One run of p with each of its pool keys set to pool bytes, on a device
 * without a limit: 1 fits, 0 runs out, < 0 cannot run (that size refused, an
 * arena under 1 MiB, which the search counts as not fitting; or no pool of
 * its own to size).
 */
static int
pool_fits(const struct trace_mem *m, const struct plan_policy *p, uint64_t pool)
{
	struct plan_policy q = *p;
	struct policy_kv *kv;
	const char *const *k;
	size_t n = 0, i;
	char val[32];
	int rc;

	for (k = p->ops->pool_keys; *k != NULL; k++)
		n++;
	kv = gms_calloc(p->nopts + n, sizeof(*kv));
	for (i = 0; i < p->nopts; i++)
		kv[i] = p->opts[i];
	snprintf(val, sizeof(val), "%lluB", (unsigned long long)pool);
	for (k = p->ops->pool_keys; *k != NULL; k++)
		kv[i++] = (struct policy_kv){ .key = *k, .value = val };
	q.opts = kv;
	q.nopts = i;
	rc = plan_fits(m, &q, 0, NULL, NULL);
	free(kv);
	return rc;
}

/* The smallest pool for a policy whose pool the user did not size. */
static void
pool_search(void *arg, size_t i)
{
	struct ctx *c = arg;
	struct plan_policy *p = &c->rep->pols[i];
	struct tried t = { .fits_at = pool_fits };
	uint64_t hi;

	if (p->ops->pool_keys == NULL || policy_pool_sized(p->ops, p->opts, p->nopts))
		return;
	hi = GMS_MAX(c->rep->peak_live, PLAN_STEP);
	hi = (hi + POOL_STEP - 1) / POOL_STEP * POOL_STEP;
	/* < 0: it cannot run with a pool of its own (binning's upstream=cuda) */
	p->pool_searched = smallest(c, p, &t, hi, POOL_STEP, &p->min_pool,
	    &p->pool_verified) >= 0;
}

static void
cell(void *arg, size_t i)
{
	struct ctx *c = arg;
	size_t g = i / c->rep->npols, k = i % c->rep->npols;
	const struct gpu_model *gpu = c->rep->gpus[g];
	struct plan_cell *cl = &c->rep->cells[i];
	struct sim_result res;
	int rc;

	cl->capacity = gpu->total > c->rep->overhead ? gpu->total - c->rep->overhead : 0;
	if (cl->capacity == 0) {
		cl->err = -1;
		return;
	}
	/* a capacity above the uncapped run's peak that changes nothing: that run */
	if (inert_at(c, &c->rep->pols[k], cl->capacity, gpu)) {
		cl->fits = 1;
		cl->peak_reserved = c->rep->pols[k].unbounded_peak;
	} else if ((rc = plan_fits(c->m, &c->rep->pols[k], cl->capacity, gpu, &res)) < 0) {
		cl->err = rc;
		return;
	} else {
		cl->fits = rc;
		cl->peak_reserved = res.peak_reserved;
		cl->oom_event = res.oomed ? res.oom.event : 0;
	}
	/* the window fits, the job did not: it held more before the window */
	if (cl->fits && cl->capacity < c->rep->peak_before)
		cl->fits = 0, cl->before = 1;
}

/* A policy's run without a limit: its checkpoints' first pass and their driver. */
static struct run_spec
uncapped_spec(const struct trace_mem *m, const struct plan_policy *p)
{
	return (struct run_spec){ .mem = m, .policy = p->ops, .opts = p->opts, .nopts = p->nopts,
	    .placement = p->placement, .placement_seed = p->seed };
}

static void
uncapped(void *arg, size_t i)
{
	struct ctx *c = arg;
	struct plan_policy *p = &c->rep->pols[i];
	struct run_spec spec = uncapped_spec(c->m, p);

	/* with checkpoints: noting what it asked at each of their points */
	if (!c->rep->checkpoints || (c->rc0[i] = ckpt_first(&spec, &c->first[i])) < 0) {
		c->rc0[i] = plan_fits(c->m, p, 0, NULL, &c->res0[i]);
	} else {
		c->res0[i] = c->first[i].res;
		progress_run();
	}
}

/* Every placement of one policy at one capacity. */
struct every {
	const struct trace_mem *m;
	struct plan_policy *pols;	/* the policy under each placement */
	uint64_t capacity;
	int *fits;
};

static void
every_fits(void *arg, size_t i)
{
	struct every *e = arg;

	e->fits[i] = plan_fits(e->m, &e->pols[i], e->capacity, NULL, NULL);
}

/*
 * Each policy's smallest capacity under every placement: the largest of
 * the placements' own minimums, checked under each and raised by 2 MiB
 * while one fails there (a fit is not monotone), PLAN_PROBES times at most.
 */
static int
plan_every(const struct trace_mem *m, struct plan_report *rep, int threads, char **cause)
{
	size_t n = rep->placements, i, s, k;
	struct plan_report sub = { .overhead = rep->overhead, .no_probes = 1 };
	struct plan_policy *all = gms_calloc(n, sizeof(*all));
	int *fits = gms_calloc(n, sizeof(*fits)), rc;

	sub.npols = rep->npols * (n - 1);
	sub.pols = gms_calloc(sub.npols + 1, sizeof(*sub.pols));
	for (i = 0; i < rep->npols; i++)
		for (s = 1; s < n; s++) {
			struct plan_policy *v = &sub.pols[i * (n - 1) + s - 1];

			*v = (struct plan_policy){ .label = rep->pols[i].label,
			    .ops = rep->pols[i].ops, .opts = rep->pols[i].opts,
			    .nopts = rep->pols[i].nopts, .seed = s,
			    .placement = RUN_PLACEMENT_MODEL };
		}
	if ((rc = plan_run(m, &sub, threads, cause)) < 0)
		goto out;
	for (i = 0; i < rep->npols; i++) {
		struct plan_policy *p = &rep->pols[i];
		struct every e = { .m = m, .pols = all, .fits = fits };

		all[0] = *p;
		p->min_every = p->min_capacity;
		for (s = 1; s < n; s++) {
			all[s] = sub.pols[i * (n - 1) + s - 1];
			if (p->err || all[s].err || all[s].min_capacity == 0)
				p->min_every = 0;
			else if (p->min_every != 0)
				p->min_every = GMS_MAX(p->min_every, all[s].min_capacity);
		}
		for (k = 0; p->min_every != 0 && k < PLAN_PROBES; k++) {
			e.capacity = p->min_every;
			batch_map(n, every_fits, &e, threads);
			for (s = 0; s < n && fits[s] == 1; s++)
				;
			if ((p->every_verified = s == n))
				break;
			p->min_every += PLAN_STEP;
		}
		if (!p->every_verified && p->min_every != 0)
			p->min_every -= PLAN_STEP;	/* the last one tried */
	}
out:
	plan_free(&sub);
	free(sub.pols);
	free(all);
	free(fits);
	return rc;
}

void
plan_policy_share(struct plan_policy *p)
{
	if (p->ops->pool_at != NULL && p->pools == NULL) {
		p->pools = gms_calloc(1, sizeof(*p->pools));
		pthread_mutex_init(&p->pools->lock, NULL);
	}
}

void
plan_policy_done(struct plan_policy *p)
{
	ckpt_end(p->ckpt);
	p->ckpt = NULL;
	pool_runs_free(p->pools);
	p->pools = NULL;
}

uint64_t
plan_search_runs(uint64_t lo, uint64_t hi, uint64_t step)
{
	uint64_t n = 2, d;	/* the first and the check */

	for (d = hi > lo ? hi - lo : 0; d > step; d /= 2)
		n++;
	return n;
}

/*
 * The runs left for the progress line (plan_fits counts them): the searches
 * (ranged once the runs without a limit are known), the pools', the cells
 * whose capacity changes the run (known once the runs without a limit are;
 * before, guessed as one policy's).
 */
static void
expect_runs(const struct ctx *c, int uncapped_done, int searched)
{
	const struct plan_report *rep = c->rep;
	uint64_t n = uncapped_done ? 0 : rep->ngpus, probes = rep->no_probes ? 0 : PLAN_PROBES;
	size_t i, g;

	for (i = 0; i < rep->npols; i++) {
		struct plan_policy p = rep->pols[i];

		if (!uncapped_done)
			n += 1 + PLAN_GUESS_RUNS + probes;
		else if (!searched)
			n += probes + plan_search_runs(rep->peak_live, c->rc0[i] == 1 ?
			    c->res0[i].peak_reserved : rep->peak_live, PLAN_STEP);
		if (p.ops->pool_keys != NULL && !policy_pool_sized(p.ops, p.opts, p.nopts))
			n += uncapped_done ? 1 + plan_search_runs(0, rep->peak_live, POOL_STEP) :
			    PLAN_GUESS_RUNS;
		if (!uncapped_done)
			continue;
		if (c->rc0[i] == 1) {
			p.unbounded_peak = c->res0[i].peak_reserved;
			p.unbounded_asked = c->res0[i].peak_asked;
		}
		for (g = 0; g < rep->ngpus; g++)
			n += !inert_at(c, &p, rep->gpus[g]->total > rep->overhead ?
			    rep->gpus[g]->total - rep->overhead : 0, rep->gpus[g]);
	}
	progress_expect_runs_left(n);
}

/* The searches are done: their points' processes end. */
static void
end_points(struct plan_report *rep)
{
	size_t i;

	for (i = 0; i < rep->npols; i++) {
		ckpt_end(rep->pols[i].ckpt);
		rep->pols[i].ckpt = NULL;
	}
}

int
plan_run(const struct trace_mem *m, struct plan_report *rep, int threads, char **cause)
{
	struct ctx c = { .m = m, .rep = rep, .threads = threads };
	const struct trace_header *hdr = trace_mem_header(m);
	struct plan_policy ideal = { .ops = &policy_ideal };
	struct sim_result res;
	size_t i;

	rep->trace = hdr->name;
	rep->recorded_conf = run_recorded_conf(hdr);
	/* every policy without a limit, at once; the live peak, the floor of every
	   search, is any whole run's (an ideal run when none is whole) */
	c.rc0 = gms_calloc(rep->npols + 1, sizeof(*c.rc0));
	c.res0 = gms_calloc(rep->npols + 1, sizeof(*c.res0));
	c.first = gms_calloc(rep->npols + 1, sizeof(*c.first));
	for (i = 0; i < rep->npols; i++)
		plan_policy_share(&rep->pols[i]);
	expect_runs(&c, 0, 0);
	batch_map(rep->npols, uncapped, &c, threads);
	/* forked here, no other thread running */
	for (i = 0; i < rep->npols && rep->checkpoints; i++) {
		struct run_spec spec = uncapped_spec(m, &rep->pols[i]);

		rep->pols[i].ckpt = ckpt_start(&spec, &c.first[i]);
	}
	free(c.first);
	for (i = 0; i < rep->npols && c.rc0[i] != 1; i++)
		;
	if (i < rep->npols) {
		rep->peak_live = c.res0[i].peak_live;
	} else if (plan_fits(m, &ideal, 0, NULL, &res) >= 0) {
		rep->peak_live = res.peak_live;
	} else {
		struct run_spec spec = { .mem = m, .policy = &policy_ideal };
		struct run_output out;
		int rc = run_simulate(&spec, &out, cause);

		run_output_free(&out);
		end_points(rep);
		free(c.rc0);
		free(c.res0);
		return rc < 0 ? rc : GMS_ETRACE;
	}
	expect_runs(&c, 1, 0);
	batch_map(rep->npols, search, &c, threads);
	end_points(rep);
	expect_runs(&c, 1, 1);
	batch_map(rep->npols, pool_search, &c, threads);
	/* the window began after the job held more: a fact no replay of it shows */
	rep->peak_before = trace_peak_before(hdr);
	rep->peak_where = trace_peak_where(hdr);
	for (i = 0; i < rep->npols && rep->peak_before > 0; i++)
		if (rep->pols[i].min_capacity > 0 && rep->pols[i].min_capacity < rep->peak_before)
			rep->pols[i].min_capacity = plan_up(rep->peak_before);
	rep->cells = gms_calloc(rep->ngpus * rep->npols + 1, sizeof(*rep->cells));
	batch_map(rep->ngpus * rep->npols, cell, &c, threads);
	free(c.rc0);
	free(c.res0);
	return rep->placements > 1 ? plan_every(m, rep, threads, cause) : 0;
}

void
plan_pools(const struct trace_mem *m, struct plan_report *rep, int threads)
{
	struct ctx c = { .m = m, .rep = rep, .threads = threads };

	batch_map(rep->npols, pool_search, &c, threads);
}

void
plan_free(struct plan_report *rep)
{
	size_t i;

	for (i = 0; i < rep->npols; i++)
		plan_policy_done(&rep->pols[i]);
	free(rep->cells);
	rep->cells = NULL;
}

cJSON *
plan_json(const struct plan_report *rep)
{
	cJSON *o = cJSON_CreateObject(), *a, *it, *f, *g, *r, *c;
	size_t i, k, j;

	cJSON_AddStringToObject(o, "trace", rep->trace);
	cJSON_AddNumberToObject(o, "peak_live", (double)rep->peak_live);
	cJSON_AddNumberToObject(o, "context_overhead", (double)rep->overhead);
	if (rep->placements > 1)
		cJSON_AddNumberToObject(o, "placements", (double)rep->placements);
	a = cJSON_AddArrayToObject(o, "policies");
	for (i = 0; i < rep->npols; i++) {
		const struct plan_policy *p = &rep->pols[i];

		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "policy", p->label);
		if (p->err)
			cJSON_AddStringToObject(it, "error", "could not run");
		if (p->min_capacity)
			cJSON_AddNumberToObject(it, "min_capacity", (double)p->min_capacity);
		else
			cJSON_AddNullToObject(it, "min_capacity");
		cJSON_AddBoolToObject(it, "verified", p->verified);
		if (p->unbounded_peak)
			cJSON_AddNumberToObject(it, "unbounded_peak_reserved", (double)p->unbounded_peak);
		if (p->pool_searched) {
			if (p->min_pool)
				cJSON_AddNumberToObject(it, "min_pool", (double)p->min_pool);
			else
				cJSON_AddNullToObject(it, "min_pool");
			cJSON_AddBoolToObject(it, "pool_verified", p->pool_verified);
		}
		f = cJSON_AddArrayToObject(it, "fails_above_min");
		for (k = 0; k < p->nfails; k++)
			cJSON_AddItemToArray(f, cJSON_CreateNumber((double)p->fails_above[k]));
		if (rep->placements > 1) {
			if (p->min_every)
				cJSON_AddNumberToObject(it, "min_capacity_every_placement",
				    (double)p->min_every);
			else
				cJSON_AddNullToObject(it, "min_capacity_every_placement");
			cJSON_AddBoolToObject(it, "every_placement_verified", p->every_verified);
		}
		cJSON_AddItemToArray(a, it);
	}
	if (rep->peak_before > 0)
		cJSON_AddNumberToObject(o, "peak_in_use_before", (double)rep->peak_before);
	g = cJSON_AddArrayToObject(o, "gpus");
	for (j = 0; j < rep->ngpus; j++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "gpu", rep->gpus[j]->name);
		cJSON_AddNumberToObject(it, "total", (double)rep->gpus[j]->total);
		r = cJSON_AddArrayToObject(it, "results");
		for (i = 0; i < rep->npols; i++) {
			const struct plan_cell *cl = &rep->cells[j * rep->npols + i];

			c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "policy", rep->pols[i].label);
			cJSON_AddNumberToObject(c, "capacity", (double)cl->capacity);
			cJSON_AddBoolToObject(c, "fits", !cl->err && cl->fits);
			if (!cl->err) {
				cJSON_AddNumberToObject(c, "peak_reserved", (double)cl->peak_reserved);
				if (cl->fits)
					cJSON_AddNumberToObject(c, "headroom", (double)(cl->capacity -
					    GMS_MIN(cl->capacity, GMS_MAX(cl->peak_reserved,
					    rep->peak_before))));
				else if (cl->before)
					cJSON_AddNullToObject(c, "oom_event");
				else
					cJSON_AddNumberToObject(c, "oom_event", (double)cl->oom_event);
				if (cl->before)
					cJSON_AddBoolToObject(c, "before_window", 1);
			}
			cJSON_AddItemToArray(r, c);
		}
		cJSON_AddItemToArray(g, it);
	}
	return o;
}

char *
plan_text(const struct plan_report *rep)
{
	char *out = NULL, buf[64], col[256];
	size_t len = 0, i, j, k, width = 8;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	for (i = 0; i < rep->npols; i++)
		width = GMS_MAX(width, strlen(rep->pols[i].label));
	for (i = 0; rep->recorded_conf != NULL && i < rep->npols; i++)
		if ((rep->pols[i].ops->traits & POLICY_ALLOC_CONF) &&
		    policy_opt(&(struct policy_args){ .opts = rep->pols[i].opts,
		    .nopts = rep->pols[i].nopts }, "alloc_conf") == NULL) {
			fprintf(f, "%s: recorded with PYTORCH_CUDA_ALLOC_CONF=%s, which %s simulates "
			    "(as recorded)\n", rep->trace, rep->recorded_conf, rep->pols[i].label);
			break;
		}
	fprintf(f, "%s: peak live %s; a GPU's memory less %s of context\n\n", rep->trace,
	    SZ(rep->peak_live), SZ(rep->overhead));
	fprintf(f, "  smallest capacity that fits, to 2 MiB\n");
	for (i = 0; i < rep->npols; i++) {
		const struct plan_policy *p = &rep->pols[i];

		if (p->err)
			fprintf(f, "  %-*s  could not run\n", (int)width, p->label);
		else if (p->min_capacity == 0)
			fprintf(f, "  %-*s  nothing up to %s fits\n", (int)width, p->label, SZ(PLAN_CEILING));
		else
			fprintf(f, "  %-*s  %10s  %14llu B%s\n", (int)width, p->label, SZ(p->min_capacity),
			    (unsigned long long)p->min_capacity,
			    p->verified ? "" : "  (not confirmed: fits only at some capacities)");
	}
	if (rep->peak_before > 0)
		fprintf(f, "  (at least %s for every policy: the allocator recorded it in use %s)\n",
		    SZ(rep->peak_before), rep->peak_where);
	for (i = k = 0; i < rep->npols; i++) {
		const struct plan_policy *p = &rep->pols[i];
		const char *const *key;

		if (!p->pool_searched)
			continue;
		if (k++ == 0)
			fprintf(f, "\n  smallest pool that fits, to 256 B (the GPU without a limit)\n");
		if (p->min_pool == 0) {
			fprintf(f, "  %-*s  nothing up to %s fits\n", (int)width, p->label,
			    SZ(PLAN_CEILING));
			continue;
		}
		fprintf(f, "  %-*s  %10s  %14llu B  (", (int)width, p->label, SZ(p->min_pool),
		    (unsigned long long)p->min_pool);
		for (key = p->ops->pool_keys; *key != NULL; key++)
			fprintf(f, "%s%s=%lluB", key == p->ops->pool_keys ? "" : " ", *key,
			    (unsigned long long)p->min_pool);
		fprintf(f, ")%s\n", p->pool_verified ? "" :
		    "  (not confirmed: fits only at some sizes)");
	}
	if (rep->placements > 1) {
		fprintf(f, "\n  under every one of %zu placements (the model's, and %zu with hidden\n"
		    "  reservations such as library workspaces)\n", rep->placements,
		    rep->placements - 1);
		for (i = 0; i < rep->npols; i++) {
			const struct plan_policy *p = &rep->pols[i];

			if (p->err || p->min_capacity == 0)
				continue;
			if (p->min_every == 0)
				fprintf(f, "  %-*s  nothing up to %s fits under every one\n", (int)width,
				    p->label, SZ(PLAN_CEILING));
			else
				fprintf(f, "  %-*s  %10s  %14llu B  (%s more than the model's)%s\n",
				    (int)width, p->label, SZ(p->min_every),
				    (unsigned long long)p->min_every,
				    SZ(p->min_every - GMS_MIN(p->min_every, p->min_capacity)),
				    p->every_verified ? "" : "  (not confirmed: one still fails there)");
		}
	}
	for (i = 0; i < rep->npols; i++) {
		const struct plan_policy *p = &rep->pols[i];

		if (p->nfails == 0)
			continue;
		fprintf(f, "\n  finding: %s fits in %s but runs out of memory with more:", p->label,
		    SZ(p->min_capacity));
		for (k = 0; k < p->nfails; k++)
			fprintf(f, "%s %s", k ? "," : "", SZ(p->fails_above[k]));
		fprintf(f, "\n  (releasing cached segments at the limit changes later reuse; a larger\n"
		    "  capacity releases later and can fragment worse)\n");
	}
	if (rep->ngpus == 0) {
		fclose(f);
		return out;
	}
	/* each column as wide as its policy's name (policy_column) */
	fprintf(f, "\n  %-10s %10s", "GPU", "memory");
	for (i = 0; i < rep->npols; i++)
		fprintf(f, i + 1 < rep->npols ? "  %-16s" : "  %s",
		    policy_column(rep->pols[i].label, col, sizeof(col)));
	fprintf(f, "\n");
	for (j = 0; j < rep->ngpus; j++) {
		fprintf(f, "  %-10s %10s", rep->gpus[j]->name, SZ(rep->gpus[j]->total));
		for (i = 0; i < rep->npols; i++) {
			const struct plan_cell *cl = &rep->cells[j * rep->npols + i];

			if (cl->err)
				snprintf(buf, sizeof(buf), "-");
			else if (cl->fits)
				snprintf(buf, sizeof(buf), "fits +%s", SZ(cl->capacity -
				    GMS_MIN(cl->capacity, GMS_MAX(cl->peak_reserved, rep->peak_before))));
			else if (cl->before)
				snprintf(buf, sizeof(buf), "OOM before");
			else
				snprintf(buf, sizeof(buf), "OOM @%llu", (unsigned long long)cl->oom_event);
			fprintf(f, "  %-*s", i + 1 < rep->npols ? (int)GMS_MAX(16,
			    strlen(policy_column(rep->pols[i].label, col, sizeof(col)))) : 0, buf);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n  memory: what the driver reports; each policy gets it less the context (BFC\n"
	    "  policies: the framework's own limit on it); +: headroom at the peak;\n"
	    "  OOM @: the event where it runs out%s\n", rep->peak_before ? "; OOM before: less "
	    "than the job held before the profile's window" : "");
	fclose(f);
	return out;
}
