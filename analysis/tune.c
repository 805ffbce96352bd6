/*
 * tune.c - the settings search of tune.h.  The caching policy's space is
 * searched greedily rather than whole (2 x 8 x 5 x 6 settings would take
 * minutes on a long trace): every single change from the default first, then
 * coordinate descent from the best, one dimension at a time, until nothing
 * improves.  Settings rank by fitting, then peak reserved, then device calls,
 * then fewer keys.  Every run replays the same in-memory trace; a batch runs
 * on all cores, and the BFC runs share the caching search's batches (its
 * modes the first, its limit searches the second), so no core waits.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plan.h"
#include "analysis/tune.h"
#include "sim/batch.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/progress.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)
#define MAX_CANDS 512

/* The dimensions; index 0 of each is "unset". */
static const char *const expandable[] = { NULL, "expandable_segments:True" };
static const char *const max_split[] = { NULL, "max_split_size_mb:20", "max_split_size_mb:32",
	"max_split_size_mb:64", "max_split_size_mb:128", "max_split_size_mb:256",
	"max_split_size_mb:512", "max_split_size_mb:1024" };
static const uint64_t max_split_mb[] = { 0, 20, 32, 64, 128, 256, 512, 1024 };
static const char *const roundup[] = { NULL, "roundup_power2_divisions:2",
	"roundup_power2_divisions:4", "roundup_power2_divisions:8",
	"roundup_power2_divisions:16" };
static const char *const gc[] = { NULL, "garbage_collection_threshold:0.5",
	"garbage_collection_threshold:0.6", "garbage_collection_threshold:0.7",
	"garbage_collection_threshold:0.8", "garbage_collection_threshold:0.9" };

struct dim {
	const char *const *values;
	int n;
};

#define NDIMS 4

struct point {
	int v[NDIMS];
};

static void
point_conf(const struct dim *dims, const struct point *p, char *buf, size_t len)
{
	size_t used = 0;
	int d;

	buf[0] = '\0';
	for (d = 0; d < NDIMS; d++)
		if (p->v[d] != 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
			    dims[d].values[p->v[d]]);
}

static int
nkeys(const char *conf)
{
	int n = conf[0] != '\0';

	for (; *conf; conf++)
		n += *conf == ',';
	return n;
}

/* < 0 when a ranks before b. */
static int
rank(const struct tune_candidate *a, const struct tune_candidate *b)
{
	int fa = a->err == 0 && !a->res.oomed, fb = b->err == 0 && !b->res.oomed;
	uint64_t ca, cb;

	if (fa != fb)
		return fb - fa;
	if (!fa) {
		/* neither fits: the one that gets further */
		uint64_t ea = a->err ? 0 : a->res.oom.event, eb = b->err ? 0 : b->res.oom.event;

		if (ea != eb)
			return ea > eb ? -1 : 1;
	}
	if (a->res.peak_reserved != b->res.peak_reserved)
		return a->res.peak_reserved < b->res.peak_reserved ? -1 : 1;
	ca = a->res.device_allocs + a->res.device_frees;
	cb = b->res.device_allocs + b->res.device_frees;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (nkeys(a->conf) != nkeys(b->conf))
		return nkeys(a->conf) - nkeys(b->conf);
	return strcmp(a->conf, b->conf);
}

/* Work beside a batch of caching runs: fn(arg, k) for k < n, started first. */
struct side {
	void (*fn)(void *arg, size_t k);
	void *arg;
	size_t n;
};

struct search {
	const struct trace_mem *m;
	uint64_t capacity;
	int threads;
	struct tune_candidate *cands;
	size_t n;
	char **cause;
	struct side first, second;	/* beside the first batch, and the second */
	void (*between)(struct search *s);	/* after the first batch: sets second */
	void *between_arg;
	uint64_t second_runs;		/* about how many runs second makes (the progress line) */
	uint64_t after_runs;		/* ... and the caller after the search */
};

/*
 * A setting with max_split_size_mb X goes exactly as the same setting
 * without it when every segment of that run is under X (the policy's
 * largest_size): X is compared only with blocks and requests, which those
 * bound.  Such a job takes its base's result instead of a run: the base
 * already run (done), or a job earlier in the same batch (base, waited for:
 * the batch hands out jobs in order, so it is running or ran, and a base is
 * never itself waiting).  Not the recording's own setting, which follows
 * the recorded addresses where the base (another setting) ran under the
 * model.
 */
struct derived {
	const struct tune_candidate *done;
	long base;			/* -1: none in this batch */
	uint64_t x;			/* 0: not a max_split setting */
	int taken;			/* the base's result taken */
	struct sim_result res;
};

struct mixed {
	struct batch_job *jobs;
	struct derived *der;
	int *finished;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const struct side *side;
};

static void
mixed_job(struct mixed *x, size_t j)
{
	struct derived *d = &x->der[j];
	const struct sim_result *base = NULL;
	int err = 0, recorded = 0;

	if (d->done != NULL) {
		err = d->done->err;
		base = &d->done->res;
		recorded = d->done->recorded;
	} else if (d->base >= 0) {
		pthread_mutex_lock(&x->lock);
		while (!x->finished[d->base])
			pthread_cond_wait(&x->cond, &x->lock);
		pthread_mutex_unlock(&x->lock);
		err = x->der[d->base].taken ? 0 : x->jobs[d->base].err;
		base = x->der[d->base].taken ? &x->der[d->base].res : &x->jobs[d->base].out.res;
		recorded = !x->der[d->base].taken &&
		    x->jobs[d->base].out.placement == RUN_PLACEMENT_RECORDED;
	}
	progress_run();
	/* a base at the recorded addresses is not the model's run this one is */
	if (base != NULL && err == 0 && !recorded && base->largest_size < d->x) {
		d->res = *base;
		d->taken = 1;
	} else {
		batch_run_one(&x->jobs[j]);
	}
	pthread_mutex_lock(&x->lock);
	x->finished[j] = 1;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
}

static void
mixed_one(void *arg, size_t i)
{
	struct mixed *x = arg;

	if (i < x->side->n)
		x->side->fn(x->side->arg, i);
	else
		mixed_job(x, i - x->side->n);
}

static struct tune_candidate *
find(struct search *s, const char *conf)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->cands[i].conf, conf) == 0)
			return &s->cands[i];
	return NULL;
}

/* Run every point not run yet, as one batch, with side's work beside it. */
static int
run_points(struct search *s, const struct dim *dims, const struct point *pts, size_t npts,
    const struct side *side)
{
	struct mixed x;
	char (*confs)[192] = gms_calloc(npts ? npts : 1, sizeof(*confs));
	char base[192];
	size_t nconf = npts;
	struct batch_job *jobs = gms_calloc(nconf ? nconf : 1, sizeof(*jobs));
	struct derived *der = gms_calloc(nconf ? nconf : 1, sizeof(*der));
	int *finished = gms_calloc(nconf ? nconf : 1, sizeof(*finished));
	struct policy_kv *kv = gms_calloc(nconf ? nconf : 1, sizeof(*kv));
	size_t i, nj = 0, *which = gms_calloc(nconf ? nconf : 1, sizeof(*which));
	int err = 0;

	for (i = 0; i < nconf; i++) {
		point_conf(dims, &pts[i], confs[i], sizeof(confs[i]));
		if (find(s, confs[i]) != NULL || s->n + nj >= MAX_CANDS)
			continue;
		for (size_t k = 0; k < nj; k++)
			if (strcmp(confs[which[k]], confs[i]) == 0)
				goto dup;
		kv[nj] = (struct policy_kv){ "alloc_conf", confs[i] };
		jobs[nj].spec = (struct run_spec){ .mem = s->m, .policy = &policy_caching,
		    .opts = &kv[nj], .nopts = 1, .capacity = s->capacity };
		der[nj].base = -1;
		/* the recording's own setting runs at its addresses: a run of its own */
		if (pts[i].v[1] != 0 && !run_conf_recorded(trace_mem_header(s->m), confs[i])) {
			struct point bp = pts[i];

			bp.v[1] = 0;
			point_conf(dims, &bp, base, sizeof(base));
			der[nj].x = max_split_mb[pts[i].v[1]] * GMS_MiB;
			der[nj].done = find(s, base);
			for (size_t k = 0; k < nj && der[nj].done == NULL; k++)
				if (strcmp(confs[which[k]], base) == 0)
					der[nj].base = (long)k;
		}
		which[nj++] = i;
dup:
		;
	}
	x = (struct mixed){ .jobs = jobs, .der = der, .finished = finished, .side = side };
	pthread_mutex_init(&x.lock, NULL);
	pthread_cond_init(&x.cond, NULL);
	batch_map(side->n + nj, mixed_one, &x, s->threads);
	pthread_cond_destroy(&x.cond);
	pthread_mutex_destroy(&x.lock);
	for (i = 0; i < nj; i++) {
		struct tune_candidate *c = &s->cands[s->n++];

		snprintf(c->conf, sizeof(c->conf), "%s", confs[which[i]]);
		memcpy(c->point, pts[which[i]].v, sizeof(c->point));
		c->err = der[i].taken ? 0 : jobs[i].err;
		c->recorded = !der[i].taken && jobs[i].err == 0 &&
		    jobs[i].out.placement == RUN_PLACEMENT_RECORDED;
		if (der[i].taken) {
			c->res = der[i].res;
		} else if (jobs[i].err == 0) {
			c->res = jobs[i].out.res;
		} else if (jobs[i].err == GMS_ETRACE && err == 0) {
			err = gms_fail(s->cause, jobs[i].err, "%s", jobs[i].cause);
		}
	}
	batch_free(jobs, nj);
	free(jobs);
	free(der);
	free(finished);
	free(kv);
	free(which);
	free(confs);
	return err;
}

static struct tune_candidate *
best_of(struct search *s)
{
	struct tune_candidate *bc = NULL;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (bc == NULL || rank(&s->cands[i], bc) < 0)
			bc = &s->cands[i];
	return bc;
}

static int
search_caching(struct search *s, int with_gc)
{
	struct dim dims[NDIMS] = {
		{ expandable, 2 }, { max_split, 8 }, { roundup, 5 }, { gc, with_gc ? 6 : 1 },
	};
	struct point pts[64], best = { { 0 } }, p;
	struct tune_candidate *bc;
	struct side none = { .n = 0 };
	int d, v, round, err;
	size_t n = 0;

	/* the default and every single change from it */
	pts[n++] = best;
	for (d = 0; d < NDIMS; d++)
		for (v = 1; v < dims[d].n; v++) {
			p = best;
			p.v[d] = v;
			pts[n++] = p;
		}
	/* the runs to come, for the progress line: this batch and its side, a
	   round of the descent, the second side (guessed until between ranges it) */
	progress_expect_runs_left(n + s->first.n + n / 2 + s->second_runs + s->after_runs);
	if ((err = run_points(s, dims, pts, n, &s->first)) < 0)
		return err;
	s->between(s);
	/* coordinate descent from the best so far, until nothing improves */
	for (round = 0; round < 4; round++) {
		bc = best_of(s);
		/* from the default a round has nothing new to run: its points ran first */
		progress_expect_runs_left((bc->point[0] || bc->point[1] || bc->point[2] ||
		    bc->point[3] ? n / 2 : 0) + (round == 0 ? s->second_runs : 0) + s->after_runs);
		memcpy(best.v, bc->point, sizeof(best.v));
		n = 0;
		for (d = 0; d < NDIMS; d++)
			for (v = 0; v < dims[d].n; v++) {
				if (v == best.v[d])
					continue;
				p = best;
				p.v[d] = v;
				pts[n++] = p;
			}
		if ((err = run_points(s, dims, pts, n, round == 0 ? &s->second : &none)) < 0)
			return err;
		if (best_of(s) == bc)
			break;
	}
	return 0;
}

static int
cmp_cands(const void *a, const void *b)
{
	return rank(a, b);
}

/*
 * The smallest limit (2 MiB steps) in [lo, hi] under which ops fits, by
 * bisection, then checked: fitting is not always monotone in the limit.
 */
static uint64_t
min_fitting_limit(const struct trace_mem *m, const struct plan_policy *p, uint64_t lo,
    uint64_t hi, const struct sim_result *uncapped)
{
	uint64_t step = 2 * GMS_MiB, mid;
	struct policy_args args = { .opts = p->opts, .nopts = p->nopts,
	    .device_total = trace_mem_header(m)->device_total };

	lo = lo / step * step;
	hi = (hi + step - 1) / step * step;
	/* at or above what the run without a limit asked, that run, which fit */
	if (!(uncapped != NULL && p->ops->limit_inert != NULL &&
	    p->ops->limit_inert(&args, hi, uncapped->peak_asked)) &&
	    plan_fits(m, p, hi, NULL, NULL) != 1)
		return 0;
	while (hi - lo > step) {
		mid = lo + (hi - lo) / 2 / step * step;
		if (plan_fits(m, p, mid, NULL, NULL) == 1)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* BFC's two flavors, as the framework's own settings. */
static const struct policy_kv tf[] = { { "flavor", "tensorflow" } };
static const struct policy_kv jax[] = { { "flavor", "jax" } };

/*
 * The two limit searches, growth and preallocated, side by side; the
 * preallocated pool's runs are shared (plan_policy_share).  Growth keeps no
 * checkpoints: its searched limits lie near its peak, which most jobs reach
 * early, so a run from a point would replay nearly all of it anyway.
 */
struct limits {
	const struct trace_mem *m;
	struct plan_policy *pols;
	uint64_t lo, hi, found[2];
	const struct sim_result *uncapped[2];	/* each one's run without a limit, when it fit */
};

static void
limit_search(void *arg, size_t i)
{
	struct limits *l = arg;

	l->found[i] = min_fitting_limit(l->m, &l->pols[i], l->lo, l->hi, l->uncapped[i]);
}

/* tune's BFC side: its three modes, beside the first batch; its two limit searches, the second. */
struct bfc_side {
	struct tune_report *rep;
	uint64_t capacity;
	struct batch_job modes[3];
	int modes_done;
	struct limits l;
	struct plan_policy pols[2];
	int searched;
};

/*
 * Without a limit TensorFlow's growth is JAX's: the flavors differ in
 * garbage collection, which runs only when growth is refused, and in the
 * limit taken from a card; so the TensorFlow mode waits for JAX's and takes
 * its run (bfc_between) unless the run took a recording's own limit.
 */
static int
tf_is_jax(const struct bfc_side *b)
{
	return b->capacity == 0;
}

static void
bfc_mode(void *arg, size_t k)
{
	struct bfc_side *b = arg;

	progress_run();
	if (k != 0 || !tf_is_jax(b))
		batch_run_one(&b->modes[k]);
}

/* The modes' results; the smallest limits to search, between the live peak and
   what growth reserved. */
static void
bfc_between(struct search *s)
{
	struct bfc_side *b = s->between_arg;
	struct tune_report *rep = b->rep;
	uint64_t hi, live = 0;
	size_t i;

	if (tf_is_jax(b) && (b->modes[1].err != 0 || b->modes[1].out.recorded_limit[0] != '\0'))
		batch_run_one(&b->modes[0]);
	else if (tf_is_jax(b))
		b->modes[0].out.res = b->modes[1].out.res;
	for (i = 0; i < 3; i++) {
		rep->bfc[i].err = b->modes[i].err;
		if (b->modes[i].err == 0)
			rep->bfc[i].res = b->modes[i].out.res;
	}
	b->modes_done = 1;
	for (i = 0; i < s->n; i++)
		if (s->cands[i].err == 0)
			live = s->cands[i].res.peak_live;
	hi = b->capacity;
	if (hi == 0 && rep->bfc[1].err == 0)
		hi = rep->bfc[1].res.peak_reserved;
	if (hi != 0 && live != 0 && live <= hi) {
		b->l = (struct limits){ .m = s->m, .pols = b->pols, .lo = live, .hi = hi };
		/* growth's mode ran without a limit, as its search's policy */
		if (b->capacity == 0 && b->modes[1].err == 0 && !b->modes[1].out.res.oomed &&
		    b->modes[1].out.recorded_limit[0] == '\0')
			b->l.uncapped[0] = &rep->bfc[1].res;
	}
	batch_free(b->modes, 3);
	s->second_runs = 0;
	if (hi != 0 && live != 0 && live <= hi) {
		s->second = (struct side){ .fn = limit_search, .arg = &b->l, .n = 2 };
		s->second_runs = 2 * plan_search_runs(live, hi, 2 * GMS_MiB);
		b->searched = 1;
	}
}

int
tune_run(const struct trace_mem *m, uint64_t capacity, int threads, struct tune_report *rep,
    char **cause)
{
	struct search s = { .m = m, .capacity = capacity, .threads = threads, .cause = cause };
	const struct trace_header *hdr = trace_mem_header(m);
	const char *rc = run_recorded_conf(hdr);
	/* preallocated as the job's framework does it (JAX's 75 %, TensorFlow's whole card) */
	int tfw = trace_header_framework(hdr) == TRACE_FW_TENSORFLOW;
	uint64_t card = capacity ? capacity : hdr->device_total;
	struct bfc_side b = { .rep = rep, .capacity = capacity, .modes = {
		{ .spec = { .mem = m, .policy = &policy_grow_only, .opts = tf, .nopts = 1,
		    .capacity = capacity } },
		{ .spec = { .mem = m, .policy = &policy_grow_only, .opts = jax, .nopts = 1,
		    .capacity = capacity } },
		{ .spec = { .mem = m, .policy = &policy_preallocate, .opts = tfw ? tf : jax,
		    .nopts = 1, .capacity = capacity } },
	} };
	size_t i;
	int err;

	memset(rep, 0, sizeof(*rep));
	rep->trace = hdr->name;
	rep->capacity = capacity;
	rep->card = card;
	rep->bfc[0] = (struct tune_bfc){ .label = "growth, TensorFlow",
	    .setting = "TF_FORCE_GPU_ALLOW_GROWTH=true (GC of free regions on)" };
	rep->bfc[1] = (struct tune_bfc){ .label = "growth, JAX",
	    .setting = "XLA_PYTHON_CLIENT_PREALLOCATE=false" };
	/* under a capacity the pool is the capacity: each framework's words for it */
	rep->bfc[2] = (struct tune_bfc){ .label = "preallocated", .setting = capacity ? (tfw ?
	    "TensorFlow's default: the whole limit (memory_limit) at the first allocation" :
	    "JAX preallocating the capacity: the fraction of the card that gives it "
	    "(XLA_PYTHON_CLIENT_MEM_FRACTION; its default is 75%)") : tfw ?
	    "TensorFlow's default: the card less its reserve at the first allocation" :
	    "JAX's default: 75% of the card at the first allocation" };
	b.pols[0] = (struct plan_policy){ .ops = &policy_grow_only, .opts = jax, .nopts = 1 };
	b.pols[1] = (struct plan_policy){ .ops = &policy_preallocate, .opts = tfw ? tf : jax,
	    .nopts = 1 };
	plan_policy_share(&b.pols[1]);
	s.first = (struct side){ .fn = bfc_mode, .arg = &b, .n = 3 };
	s.between = bfc_between;
	s.between_arg = &b;
	s.second_runs = 2 * PLAN_GUESS_RUNS;
	s.after_runs = rc != NULL;
	s.cands = gms_calloc(MAX_CANDS, sizeof(*s.cands));
	err = search_caching(&s, capacity != 0);
	plan_policy_done(&b.pols[0]);
	plan_policy_done(&b.pols[1]);
	if (err < 0) {
		if (!b.modes_done)
			batch_free(b.modes, 3);
		free(s.cands);
		return err;
	}
	if (b.searched) {
		rep->bfc_min_limit = b.l.found[0];
		rep->bfc_min_prealloc = b.l.found[1];
	}
	/* the window's own search knows nothing of what came before it */
	rep->peak_where = trace_peak_where(hdr);
	if ((rep->peak_before = trace_peak_before(hdr)) > 0) {
		uint64_t need = plan_up(rep->peak_before);

		if (capacity != 0 && need > capacity)
			rep->bfc_min_limit = rep->bfc_min_prealloc = 0;
		if (rep->bfc_min_limit != 0 && rep->bfc_min_limit < need)
			rep->bfc_min_limit = need;
		if (rep->bfc_min_prealloc != 0 && rep->bfc_min_prealloc < need)
			rep->bfc_min_prealloc = need;
	}
	/* the setting the job ran with is the baseline the others improve on */
	if (rc != NULL && s.n < MAX_CANDS) {
		struct policy_kv kv = { "alloc_conf", rc };
		struct batch_job job = { .spec = { .mem = m, .policy = &policy_caching,
		    .opts = &kv, .nopts = 1, .capacity = capacity } };

		if (find(&s, rc) == NULL && strlen(rc) < sizeof(s.cands[0].conf)) {
			progress_run();
			batch_run_one(&job);
			snprintf(s.cands[s.n].conf, sizeof(s.cands[0].conf), "%s", rc);
			s.cands[s.n].err = job.err;
			if (job.err == 0)
				s.cands[s.n].res = job.out.res;
			s.n++;
			batch_free(&job, 1);
		}
		rep->recorded = find(&s, rc) != NULL;
	}
	qsort(s.cands, s.n, sizeof(*s.cands), cmp_cands);
	rep->cands = s.cands;
	rep->ncands = s.n;
	for (i = 0; i < s.n; i++) {
		if (rep->recorded ? strcmp(s.cands[i].conf, rc) == 0 :
		    s.cands[i].conf[0] == '\0')
			rep->default_index = i;
		if (s.cands[i].err == 0)
			rep->peak_live = s.cands[i].res.peak_live;
	}
	return 0;
}

void
tune_free(struct tune_report *rep)
{
	free(rep->cands);
	rep->cands = NULL;
}

static int
fits(const struct tune_candidate *c)
{
	return c->err == 0 && !c->res.oomed;
}

int
tune_fits(const struct tune_report *rep)
{
	return rep->ncands > 0 && fits(&rep->cands[0]);
}

/* A setting that changes nothing over a simpler one says nothing new. */
static int
said_before(const struct tune_candidate *c, const struct tune_candidate *p)
{
	return c->err == 0 && p->err == 0 && c->res.peak_reserved == p->res.peak_reserved &&
	    c->res.device_allocs == p->res.device_allocs &&
	    c->res.device_frees == p->res.device_frees && c->res.oomed == p->res.oomed &&
	    c->conf[0] != '\0';
}

static double
pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

cJSON *
tune_json(const struct tune_report *rep)
{
	cJSON *o = cJSON_CreateObject(), *a, *it, *rec, *b;
	const struct tune_candidate *best = rep->ncands ? &rep->cands[0] : NULL;
	const struct tune_candidate *def = rep->ncands ? &rep->cands[rep->default_index] : NULL;
	size_t i;

	cJSON_AddStringToObject(o, "trace", rep->trace);
	if (rep->capacity)
		cJSON_AddNumberToObject(o, "capacity", (double)rep->capacity);
	else
		cJSON_AddNullToObject(o, "capacity");
	cJSON_AddNumberToObject(o, "peak_live", (double)rep->peak_live);
	cJSON_AddNumberToObject(o, "tried", (double)rep->ncands);
	if (rep->recorded)
		cJSON_AddStringToObject(o, "recorded_alloc_conf", def->conf);
	else
		cJSON_AddNullToObject(o, "recorded_alloc_conf");
	if (best != NULL && fits(best)) {
		rec = cJSON_AddObjectToObject(o, "recommended");
		cJSON_AddStringToObject(rec, "PYTORCH_CUDA_ALLOC_CONF", best->conf);
		cJSON_AddNumberToObject(rec, "peak_reserved", (double)best->res.peak_reserved);
		if (def != NULL && def->err == 0)
			cJSON_AddNumberToObject(rec, rep->recorded ? "recorded_peak_reserved" :
			    "default_peak_reserved", (double)def->res.peak_reserved);
		cJSON_AddBoolToObject(rec, rep->recorded ? "recorded_fits" : "default_fits",
		    def != NULL && fits(def));
	} else {
		cJSON_AddNullToObject(o, "recommended");
	}
	a = cJSON_AddArrayToObject(o, "caching");
	for (i = 0; i < rep->ncands; i++) {
		const struct tune_candidate *c = &rep->cands[i];

		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "alloc_conf", c->conf);
		cJSON_AddBoolToObject(it, "fits", fits(c));
		if (c->err == 0) {
			cJSON_AddNumberToObject(it, "peak_reserved", (double)c->res.peak_reserved);
			cJSON_AddNumberToObject(it, "device_allocs", (double)c->res.device_allocs);
			cJSON_AddNumberToObject(it, "device_frees", (double)c->res.device_frees);
			if (c->res.oomed)
				cJSON_AddNumberToObject(it, "oom_event", (double)c->res.oom.event);
		}
		cJSON_AddItemToArray(a, it);
	}
	b = cJSON_AddArrayToObject(o, "bfc");
	for (i = 0; i < 3; i++) {
		const struct tune_bfc *t = &rep->bfc[i];

		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "mode", t->label);
		cJSON_AddStringToObject(it, "setting", t->setting);
		cJSON_AddBoolToObject(it, "fits", t->err == 0 && !t->res.oomed);
		if (t->err == 0)
			cJSON_AddNumberToObject(it, "peak_reserved", (double)t->res.peak_reserved);
		cJSON_AddItemToArray(b, it);
	}
	if (rep->bfc_min_limit)
		cJSON_AddNumberToObject(o, "bfc_min_growth_limit", (double)rep->bfc_min_limit);
	else
		cJSON_AddNullToObject(o, "bfc_min_growth_limit");
	if (rep->bfc_min_prealloc)
		cJSON_AddNumberToObject(o, "bfc_min_preallocated", (double)rep->bfc_min_prealloc);
	else
		cJSON_AddNullToObject(o, "bfc_min_preallocated");
	if (rep->peak_before)
		cJSON_AddNumberToObject(o, "peak_in_use_before", (double)rep->peak_before);
	return o;
}

/* PyTorch's settings: the best, how it compares with the baseline, the runner-ups. */
static void
pytorch_text(FILE *f, const struct tune_report *rep)
{
	const struct tune_candidate *best = rep->ncands ? &rep->cands[0] : NULL;
	const struct tune_candidate *def = rep->ncands ? &rep->cands[rep->default_index] : NULL;
	char result[64], base[256];
	size_t i, shown, width;

	fprintf(f, "%s: capacity %s, peak live %s; %zu PyTorch settings tried\n", rep->trace,
	    rep->capacity ? SZ(rep->capacity) : "unlimited", SZ(rep->peak_live), rep->ncands);
	if (rep->recorded)
		fprintf(f, "recorded with PYTORCH_CUDA_ALLOC_CONF=%s: the baseline\n", def->conf);
	fputc('\n', f);
	snprintf(base, sizeof(base), "%s", rep->recorded ? "the recorded setting" : "the default");
	if (best != NULL && fits(best)) {
		fprintf(f, "  PYTORCH_CUDA_ALLOC_CONF=%s\n\n", best->conf[0] ? best->conf : "\"\"  (the default)");
		fprintf(f, "  peak reserved %s", SZ(best->res.peak_reserved));
		if (def != NULL && fits(def) && def != best && def->res.peak_reserved > best->res.peak_reserved)
			fprintf(f, ", %s (%.1f%%) less than %s's %s",
			    SZ(def->res.peak_reserved - best->res.peak_reserved),
			    pct(def->res.peak_reserved - best->res.peak_reserved, def->res.peak_reserved),
			    base, SZ(def->res.peak_reserved));
		else if (def != NULL && !fits(def))
			fprintf(f, "; %s runs out of memory at event %llu", base,
			    (unsigned long long)def->res.oom.event);
		else if (def == best)
			fprintf(f, ": %s is best", base);
		fprintf(f, "\n  %.1f%% over ideal (the live peak); %llu device allocations, %llu frees\n",
		    rep->peak_live ? pct(best->res.peak_reserved - GMS_MIN(best->res.peak_reserved,
		    rep->peak_live), rep->peak_live) : 0.0,
		    (unsigned long long)best->res.device_allocs, (unsigned long long)best->res.device_frees);
	} else {
		fprintf(f, "  no PyTorch setting fits in %s (the live peak is %s)\n",
		    SZ(rep->capacity), SZ(rep->peak_live));
	}
	/* the rows shown, first, so the columns fit the longest setting */
	for (i = 1, shown = 0, width = 60; i < rep->ncands && shown < 5; i++) {
		if (said_before(&rep->cands[i], &rep->cands[i - 1]))
			continue;
		shown++;
		width = GMS_MAX(width, strlen(rep->cands[i].conf));
	}
	fprintf(f, "\n  %-*s  peak reserved  result\n", (int)width, "runner-ups");
	for (i = 1, shown = 0; i < rep->ncands && shown < 5; i++) {
		const struct tune_candidate *c = &rep->cands[i];

		if (said_before(c, &rep->cands[i - 1]))
			continue;
		shown++;

		if (c->err)
			snprintf(result, sizeof(result), "not run");
		else if (c->res.oomed)
			snprintf(result, sizeof(result), "OOM at event %llu", (unsigned long long)c->res.oom.event);
		else
			snprintf(result, sizeof(result), "fits");
		fprintf(f, "  %-*s  %13s  %s\n", (int)width, c->conf[0] ? c->conf : "(default)",
		    c->err ? "-" : SZ(c->res.peak_reserved), result);
	}
}

/* TensorFlow's and JAX's BFC allocator: growth, preallocation and the limits that fit. */
static void
bfc_text(FILE *f, const struct tune_report *rep)
{
	/* the job's own framework's modes first: JAX's growth, TensorFlow's */
	static const size_t jax_first[] = { 1, 2, 0 }, tf_first[] = { 0, 2, 1 };
	const size_t *order = rep->framework == TRACE_FW_JAX ? jax_first : tf_first;
	char result[64], tfl[64] = "", jaxl[96] = "";
	size_t k, i;

	fprintf(f, "\n  %s (BFC allocator)\n", rep->framework == TRACE_FW_JAX ? "JAX" :
	    rep->framework == TRACE_FW_TENSORFLOW ? "TensorFlow" : "TensorFlow / JAX");
	for (k = 0; k < 3; k++) {
		const struct tune_bfc *t = &rep->bfc[order[k]];

		i = order[k];
		if (t->err)
			snprintf(result, sizeof(result), "not run");
		else if (rep->capacity != 0 && rep->peak_before > rep->capacity)
			snprintf(result, sizeof(result), "OOM before");	/* the window */
		else if (t->res.oomed)
			snprintf(result, sizeof(result), "OOM at event %llu", (unsigned long long)t->res.oom.event);
		else
			snprintf(result, sizeof(result), "fits");
		fprintf(f, "  %-20s %12s  %-22s %s%s\n", t->label, t->err ? "-" : SZ(t->res.peak_reserved),
		    result, t->setting, (i == 0 && rep->framework == TRACE_FW_JAX) ||
		    (i == 1 && rep->framework == TRACE_FW_TENSORFLOW) ? " (the other framework's)" : "");
	}
	if (rep->bfc_min_limit) {
		snprintf(tfl, sizeof(tfl), "TensorFlow memory_limit=%llu (MB)",
		    (unsigned long long)((rep->bfc_min_limit + GMS_MiB - 1) / GMS_MiB));
		if (rep->card)
			snprintf(jaxl, sizeof(jaxl), "XLA_PYTHON_CLIENT_MEM_FRACTION=%.3f of %s",
			    ceil((double)rep->bfc_min_limit / (double)rep->card * 1000.0) / 1000.0,
			    SZ(rep->card));
		if (rep->framework == TRACE_FW_JAX && jaxl[0] != '\0')
			fprintf(f, "  growth fits in a limit of %s: %s (%s)\n", SZ(rep->bfc_min_limit),
			    jaxl, tfl);
		else
			fprintf(f, "  growth fits in a limit of %s: %s%s%s\n", SZ(rep->bfc_min_limit),
			    tfl, jaxl[0] ? ", " : "", jaxl);
	}
	else if (rep->capacity)
		fprintf(f, "  growth does not fit in %s with any limit\n", SZ(rep->capacity));
	if (rep->bfc_min_prealloc)
		fprintf(f, "  preallocated, it fits in %s\n", SZ(rep->bfc_min_prealloc));
	if (rep->peak_before)
		fprintf(f, "  (no limit below %s: the allocator held that %s; OOM before: less than "
		    "that)\n", SZ(rep->peak_before), rep->peak_where);
}

char *
tune_text(const struct tune_report *rep)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	if (rep->framework == TRACE_FW_TENSORFLOW || rep->framework == TRACE_FW_JAX) {
		/* the job's own framework first: its modes and limits are what its users set */
		fprintf(f, "%s: capacity %s, peak live %s; a %s profile: %s's BFC allocator first\n",
		    rep->trace, rep->capacity ? SZ(rep->capacity) : "unlimited", SZ(rep->peak_live),
		    trace_framework_name(rep->framework), trace_framework_name(rep->framework));
		bfc_text(f, rep);
		fprintf(f, "\nFor comparison, PyTorch's caching allocator (not an allocator this "
		    "job can use):\n");
		pytorch_text(f, rep);
	} else {
		pytorch_text(f, rep);
		bfc_text(f, rep);
	}
	fclose(f);
	return out;
}
