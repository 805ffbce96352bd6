/*
 * share.c - the shared-GPU engine of share.h.  Every job is a run_prepare()d
 * simulation whose device is attached to one struct device_gpu; the jobs'
 * next events are merged by time (ties: a start before an event, then the
 * job listed first), so a run is deterministic.  A job starts by taking its
 * CUDA context from the card, then (preallocate) its whole pool, failing
 * there when the card has not that much free; it ends after its last pass,
 * or when it runs out of memory, and gives everything back.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/share.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "sim/run.h"
#include "sim/sim.h"

#define PAGE (2 * GMS_MiB)
/* JAX's XLA_PYTHON_CLIENT_MEM_FRACTION when it is not set. */
#define JAX_FRACTION 0.75

/* J_HELD: done, alive, holding what it reserved (after=hold) until the others end */
enum { J_PENDING, J_RUNNING, J_HELD, J_ENDED };

/* A job's clock: when each event happens within a pass. */
struct timing {
	int timed;			/* the trace has times */
	int64_t t_first;		/* its first time */
	int64_t pass_len;		/* one pass, a mean gap included */
	uint64_t n;
};

struct js {
	const struct share_job *j;
	int state;
	struct timing tm;
	int64_t start, next_t, last_t;
	uint64_t i, pass;
	struct run_spec spec;
	struct run_output out;
	struct share_settings set;	/* j's, and the limit share derives */
	uint64_t reserved_row;		/* in the last timeline row */
};

struct ctx {
	const struct share_scenario *sc;
	struct device_gpu gpu;
	struct js *js;
	struct share_result *res;
	FILE *tl;
	char **cause;
};

static int
timing_of(const struct share_job *j, struct timing *tm, char **cause)
{
	struct trace_event ev;
	int64_t last = 0;
	uint64_t i;

	memset(tm, 0, sizeof(*tm));
	tm->n = trace_mem_count(j->mem);
	for (i = 0; i < tm->n; i++) {
		trace_mem_event(j->mem, i, &ev);
		if (!(ev.flags & TRACE_HAS_TIME))
			continue;
		if (!tm->timed) {
			tm->timed = 1;
			tm->t_first = last = ev.t_us;
		}
		last = GMS_MAX(last, ev.t_us);
	}
	if (j->duration_us > 0) {
		tm->timed = 0;		/* given: the events spread evenly over it */
		tm->pass_len = j->duration_us;
	} else if (tm->timed) {
		tm->pass_len = last - tm->t_first;
		if (tm->n > 1)
			tm->pass_len += tm->pass_len / (int64_t)(tm->n - 1);
	} else {
		return gms_fail(cause, GMS_ECONFIG, "job %s: %s has no times: give duration= "
		    "(one pass of the trace, e.g. duration=60s) to spread its events over",
		    j->name, j->path);
	}
	if (tm->pass_len <= 0)
		tm->pass_len = 1;
	return 0;
}

/* When event i of the current pass happens. */
static int64_t
event_time(const struct js *s, uint64_t i, int64_t *last_t)
{
	int64_t base = s->start + (int64_t)s->pass * s->tm.pass_len, t;
	struct trace_event ev;

	if (!s->tm.timed)
		return base + (int64_t)((double)i * (double)s->tm.pass_len / (double)s->tm.n);
	trace_mem_event(s->j->mem, i, &ev);
	t = (ev.flags & TRACE_HAS_TIME) ? ev.t_us : *last_t;
	if (t < *last_t)
		t = *last_t;	/* time does not go back within a job */
	*last_t = t;
	return base + (t - s->tm.t_first);
}

/* The job's first event, its clock set to it: 0 when the trace has none. */
static int
clock_begin(struct js *s)
{
	s->i = 0;
	s->pass = 0;
	s->last_t = s->tm.t_first;
	if (s->tm.n == 0)
		return 0;
	s->next_t = event_time(s, 0, &s->last_t);
	return 1;
}

/* Past event i: the next, or the next pass's first; 0 when all passes are made. */
static int
clock_next(struct js *s)
{
	if (++s->i == s->tm.n) {
		s->i = 0;
		s->pass++;
		s->last_t = s->tm.t_first;
		if (s->j->repeat != 0 && s->pass == s->j->repeat)
			return 0;
	}
	s->next_t = event_time(s, s->i, &s->last_t);
	return 1;
}

int64_t
share_span(const struct share_job *j)
{
	struct timing tm;

	if (timing_of(j, &tm, NULL) < 0)
		return 0;
	return tm.pass_len * (int64_t)(j->repeat ? j->repeat : 1);
}

/*
 * What a scenario may ask: times within 2^62 microseconds, and at most
 * SHARE_MAX_EVENTS events replayed in all (a job repeating until the others
 * end passes as often as fits in their time): so no scenario overflows a
 * clock or runs for ever.
 */
#define SHARE_MAX_EVENTS 1e10
#define SHARE_MAX_US 4.6e18

static int
share_bounds(const struct share_scenario *sc, const struct timing *tm, char **cause)
{
	double end = 0, start, total = 0, passes, e;
	size_t k;

	for (k = 0; k < sc->njobs; k++) {
		const struct share_job *j = &sc->jobs[k];

		start = j->start_is_event ? (double)sc->jobs[0].start_us + (double)tm[0].pass_len :
		    (double)j->start_us;
		e = start + (double)tm[k].pass_len * (double)(j->repeat ? j->repeat : 1);
		if (e > SHARE_MAX_US)
			return gms_fail(cause, GMS_ECONFIG, "job %s: runs past 2^62 microseconds "
			    "(%llu passes of %.3f s from %.3f s)", j->name,
			    (unsigned long long)(j->repeat ? j->repeat : 1),
			    (double)tm[k].pass_len / 1e6, start / 1e6);
		if (j->repeat != 0)
			end = e > end ? e : end;
	}
	for (k = 0; k < sc->njobs; k++) {
		const struct share_job *j = &sc->jobs[k];

		start = j->start_is_event ? (double)sc->jobs[0].start_us + (double)tm[0].pass_len :
		    (double)j->start_us;
		passes = j->repeat ? (double)j->repeat :
		    (end > start ? (end - start) / (double)tm[k].pass_len + 1 : 1);
		total += passes * (double)tm[k].n;
		if (total > SHARE_MAX_EVENTS)
			return gms_fail(cause, GMS_ECONFIG, "the scenario would replay more than "
			    "10^10 events (job %s: %.0f passes of %llu events); give fewer passes or "
			    "a longer duration", j->name, passes, (unsigned long long)tm[k].n);
	}
	return 0;
}

/* share_check(), each job's clock into tm[] on the way. */
static int
check(const struct share_scenario *sc, struct timing *tm, char **cause)
{
	size_t k, finite = 0;
	int err;

	if (sc->njobs == 0)
		return gms_fail(cause, GMS_ECONFIG, "no jobs: give --job (twice or more) or "
		    "--scenario");
	for (k = 0; k < sc->njobs; k++) {
		const struct share_job *j = &sc->jobs[k];

		finite += j->repeat != 0;
		if ((err = timing_of(j, &tm[k], cause)) < 0)
			return err;
		if (j->start_is_event && k == 0)
			return gms_fail(cause, GMS_ECONFIG, "job %s: start=event:N counts the "
			    "first job's events, so the first job cannot use it", j->name);
		if (j->start_is_event && j->start_event >= trace_mem_count(sc->jobs[0].mem))
			return gms_fail(cause, GMS_ECONFIG, "job %s: start=event:%llu, but job %s "
			    "has %zu events", j->name, (unsigned long long)j->start_event,
			    sc->jobs[0].name, trace_mem_count(sc->jobs[0].mem));
		if (j->fraction > 1.0)
			return gms_fail(cause, GMS_ECONFIG, "job %s: fraction=%g is more than the "
			    "card", j->name, j->fraction);
	}
	if (finite == 0)
		return gms_fail(cause, GMS_ECONFIG, "every job repeats until the others end: "
		    "give one of them a number of passes (repeat=N)");
	return share_bounds(sc, tm, cause);
}

int
share_check(const struct share_scenario *sc, char **cause)
{
	struct timing *tm = gms_calloc(sc->njobs + 1, sizeof(*tm));
	int err = check(sc, tm, cause);

	free(tm);
	return err;
}

/* --- starting and ending jobs ------------------------------------------- */

int
share_job_is_jax(const struct share_job *j)
{
	const char *f = policy_opt(&(struct policy_args){ .opts = j->opts, .nopts = j->nopts },
	    "flavor");

	return f != NULL && strcmp(f, "jax") == 0;
}

/* The BFC memory limit a job's framework takes when it starts with free bytes free. */
static uint64_t
bfc_limit(const struct share_scenario *sc, const struct share_job *j, uint64_t free_bytes)
{
	uint64_t l;

	if (j->limit != 0)
		return j->limit;
	if (j->fraction > 0 || share_job_is_jax(j)) {
		l = (uint64_t)((j->fraction > 0 ? j->fraction : JAX_FRACTION) * (double)sc->total);
		/*
		 * measured on the H200 (replay/RESULTS.md, t/data/xplane/share-*):
		 * a JAX pool asked above what is free takes about what is free (its
		 * attempts back off by 10% until one fits), it does not fail; the
		 * card hands it out in whole pages
		 */
		if ((j->ops->traits & POLICY_WHOLE_POOL) && share_job_is_jax(j) && l > free_bytes)
			l = free_bytes / PAGE * PAGE;
		return l;
	}
	return policy_bfc_tf_limit(free_bytes, j->cc ? j->cc : sc->cc);
}

int
share_pool_fits(const struct share_job *j, const struct share_settings *st, uint64_t free_bytes)
{
	return !(j->ops->traits & POLICY_WHOLE_POOL) ||
	    (st->limit + PAGE - 1) / PAGE * PAGE <= free_bytes;
}

int
share_preallocate(const struct share_job *j, struct sim *sim)
{
	const struct policy_ops *ops = sim_policy(sim);
	void *st = sim_policy_state(sim);
	uint64_t block;
	void *h;

	if (!(j->ops->traits & POLICY_WHOLE_POOL))
		return 0;
	/* a byte's request makes BFC reserve its whole pool: in one piece, or not at all */
	if (ops->alloc(st, 1, 0, &h, &block) < 0 || sim_device(sim)->c.refusals > 0)
		return -1;
	ops->free(st, h);
	return 0;
}

static void
note_oom(struct ctx *c, size_t k, int64_t event, int64_t now, uint64_t size, const char *what)
{
	struct share_result *r = c->res;
	struct share_oom *o;
	size_t m;

	r->ooms = gms_realloc(r->ooms, (r->nooms + 1) * sizeof(*r->ooms));
	o = &r->ooms[r->nooms];
	*o = (struct share_oom){ .job = k, .event = event, .pass = c->js[k].pass, .time_us = now,
	    .size = size, .what = what, .gpu_free = c->gpu.total - c->gpu.used };
	o->held = gms_calloc(c->sc->njobs, sizeof(*o->held));
	for (m = 0; m < c->sc->njobs; m++)
		if (c->js[m].state == J_RUNNING || c->js[m].state == J_HELD)
			o->held[m] = c->js[m].out.dev->c.reserved;
	r->jobs[k].oomed = 1;
	r->jobs[k].oom = r->nooms++;
	r->fits = 0;
}

/* The job ends (done or dead): the card gets its memory and context back. */
static void
job_end(struct ctx *c, size_t k, int64_t now)
{
	struct js *s = &c->js[k];
	struct share_job_result *jr = &c->res->jobs[k];
	struct sim_result sr;

	if (s->state == J_RUNNING || s->state == J_HELD) {
		sim_result(s->out.sim, &sr);
		jr->peak_reserved = sr.peak_reserved;
		c->gpu.used -= s->out.dev->c.physical + c->sc->context;
		s->out.dev->gpu = NULL;
		run_output_free(&s->out);
	}
	if (s->state != J_HELD)
		jr->done_us = now;
	s->state = J_ENDED;
	jr->end_us = now;
}

/* Job k's work is done: it exits, or with after=hold stays, holding its memory. */
static void
job_done(struct ctx *c, size_t k, int64_t now)
{
	if (!c->js[k].j->hold) {
		job_end(c, k, now);
		return;
	}
	c->js[k].state = J_HELD;
	c->res->jobs[k].done_us = now;
}

void
share_settings(const struct share_scenario *sc, const struct share_job *j, uint64_t free_bytes,
    struct share_settings *st)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	st->opts = gms_calloc(j->nopts + 1, sizeof(*st->opts));
	for (i = 0; i < j->nopts; i++)
		if (strcmp(j->opts[i].key, "alloc_conf") != 0 || !(j->ops->traits & POLICY_ALLOC_CONF) ||
		    j->fraction == 0)
			st->opts[st->nopts++] = j->opts[i];
	if ((j->ops->traits & POLICY_BFC)) {
		st->limit = bfc_limit(sc, j, free_bytes);
		snprintf(st->limit_text, sizeof(st->limit_text), "%lluB",
		    (unsigned long long)st->limit);
		st->opts[st->nopts++] = (struct policy_kv){ "limit", st->limit_text };
	} else if ((j->ops->traits & POLICY_ALLOC_CONF) && j->fraction > 0) {
		const char *conf = policy_opt(&(struct policy_args){ .opts = j->opts,
		    .nopts = j->nopts }, "alloc_conf");

		st->conf = gms_asprintf("%s%sper_process_memory_fraction:%.17g", conf ? conf : "",
		    conf && conf[0] ? "," : "", j->fraction);
		st->opts[st->nopts++] = (struct policy_kv){ "alloc_conf", st->conf };
		/* PyTorch: allowed = fraction x total, truncated */
		st->limit = (uint64_t)(j->fraction * (double)sc->total);
	}
}

void
share_settings_free(struct share_settings *st)
{
	free(st->opts);
	free(st->conf);
	memset(st, 0, sizeof(*st));
}

static int
job_start(struct ctx *c, size_t k, int64_t now)
{
	struct js *s = &c->js[k];
	const struct share_job *j = s->j;
	struct share_job_result *jr = &c->res->jobs[k];
	uint64_t free_bytes = c->gpu.total - c->gpu.used, limit;
	int err;

	jr->start_us = now;
	if (c->sc->context > free_bytes) {
		note_oom(c, k, -1, now, c->sc->context, "context");
		job_end(c, k, now);
		return 0;
	}
	c->gpu.used += c->sc->context;
	free_bytes -= c->sc->context;
	share_settings(c->sc, j, free_bytes, &s->set);
	limit = s->set.limit;
	jr->limit = limit;
	/* preallocation: the whole pool at the start, or the job fails there */
	if (!share_pool_fits(j, &s->set, free_bytes)) {
		note_oom(c, k, -1, now, limit, "pool");
		c->gpu.used -= c->sc->context;
		job_end(c, k, now);
		return 0;
	}
	s->spec = (struct run_spec){ .mem = j->mem, .policy = j->ops, .opts = s->set.opts,
	    .nopts = s->set.nopts, .device_total = c->sc->total, .gpu = &c->gpu };
	if ((err = run_prepare(&s->spec, trace_mem_header(j->mem), &s->out, c->cause)) < 0) {
		char *why = *c->cause;

		*c->cause = NULL;
		err = gms_fail(c->cause, err, "job %s: %s", j->name, why);
		free(why);
		c->gpu.used -= c->sc->context;
		run_output_free(&s->out);
		return err;
	}
	s->state = J_RUNNING;
	jr->started = 1;
	if (share_preallocate(j, s->out.sim) < 0) {
		note_oom(c, k, -1, now, limit, "pool");
		job_end(c, k, now);
		return 0;
	}
	if (!clock_begin(s))
		job_end(c, k, now);
	return 0;
}

/* One event of job k. */
static int
job_event(struct ctx *c, size_t k)
{
	struct js *s = &c->js[k];
	struct share_job_result *jr = &c->res->jobs[k];
	struct trace_event ev;
	struct sim_result sr;
	int64_t now = s->next_t;
	int err;

	trace_mem_event(s->j->mem, s->i, &ev);
	if ((err = sim_event(s->out.sim, s->i, &ev, c->cause)) < 0) {
		char *why = *c->cause;

		*c->cause = NULL;
		err = gms_fail(c->cause, err, "job %s: %s: event %llu: %s", s->j->name, s->j->path,
		    (unsigned long long)s->i, why);
		free(why);
		return err;
	}
	jr->events++;
	if (sim_stopped(s->out.sim)) {
		sim_result(s->out.sim, &sr);
		note_oom(c, k, (int64_t)s->i, now, sr.oom.size, "alloc");
		job_end(c, k, now);
		return 0;
	}
	if (!clock_next(s)) {
		jr->passes = s->pass;
		job_done(c, k, now);
	} else if (s->i == 0) {
		/* the next pass begins as the trace did; the cache stays */
		jr->passes = s->pass;
		sim_free_live(s->out.sim, s->tm.n - 1);
	}
	return 0;
}

/* --- the timeline -------------------------------------------------------- */

static void
row(struct ctx *c, int64_t now, int force)
{
	size_t k;
	int changed = force;
	uint64_t r;

	for (k = 0; k < c->sc->njobs; k++) {
		r = c->js[k].state == J_RUNNING || c->js[k].state == J_HELD ?
		    c->js[k].out.dev->c.reserved : 0;
		changed |= r != c->js[k].reserved_row;
		c->js[k].reserved_row = r;
	}
	c->res->peak_used = GMS_MAX(c->res->peak_used, c->gpu.used);
	if (c->tl == NULL || !changed)
		return;
	fprintf(c->tl, "%lld", (long long)now);
	for (k = 0; k < c->sc->njobs; k++)
		fprintf(c->tl, ",%llu", (unsigned long long)c->js[k].reserved_row);
	fprintf(c->tl, ",%llu,%llu\n", (unsigned long long)c->gpu.used,
	    (unsigned long long)(c->gpu.total - c->gpu.used));
}

static void
header(struct ctx *c)
{
	size_t k;
	const char *p;

	fprintf(c->tl, "t_us");
	for (k = 0; k < c->sc->njobs; k++) {
		fputc(',', c->tl);
		for (p = c->sc->jobs[k].name; *p; p++)
			fputc((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ? *p : '_', c->tl);
	}
	fprintf(c->tl, ",used,free\n");
}

/* --- the run --------------------------------------------------------------- */

/* The job to move next: the least time, a start before an event, then the first listed. */
static size_t
next_job(const struct ctx *c)
{
	size_t k, best = c->sc->njobs;

	for (k = 0; k < c->sc->njobs; k++) {
		const struct js *s = &c->js[k];

		if (s->state == J_ENDED || s->state == J_HELD)
			continue;
		if (best == c->sc->njobs || s->next_t < c->js[best].next_t ||
		    (s->next_t == c->js[best].next_t && s->state == J_PENDING &&
		    c->js[best].state != J_PENDING))
			best = k;
	}
	return best;
}

/* Are jobs with a number of passes still to come or running? */
static int
finite_left(const struct ctx *c)
{
	size_t k;

	for (k = 0; k < c->sc->njobs; k++)
		if (c->js[k].state != J_ENDED && c->js[k].state != J_HELD &&
		    c->sc->jobs[k].repeat != 0)
			return 1;
	return 0;
}

/* The jobs' clocks and starts (start=event:N: when the first job reaches its event N). */
static int
setup(struct ctx *c, char **cause)
{
	const struct share_scenario *sc = c->sc;
	struct timing *tm = gms_calloc(sc->njobs + 1, sizeof(*tm));
	int64_t t0;
	size_t k;
	int err;

	c->js = gms_calloc(sc->njobs, sizeof(*c->js));
	if ((err = check(sc, tm, cause)) < 0) {
		free(tm);
		return err;
	}
	for (k = 0; k < sc->njobs; k++) {
		struct js *s = &c->js[k];

		s->j = &sc->jobs[k];
		s->tm = tm[k];
		s->state = J_PENDING;
		s->start = s->j->start_us;
	}
	for (k = 1; k < sc->njobs; k++)
		if (sc->jobs[k].start_is_event) {
			t0 = c->js[0].tm.t_first;
			c->js[k].start = c->js[0].start + event_time(&(struct js){ .j = &sc->jobs[0],
			    .tm = c->js[0].tm }, sc->jobs[k].start_event, &t0);
		}
	for (k = 0; k < sc->njobs; k++)
		c->js[k].next_t = c->js[k].start;
	free(tm);
	return 0;
}

int
share_schedule(const struct share_scenario *sc, struct share_step **steps, size_t *n,
    char **cause)
{
	struct ctx c = { .sc = sc };
	size_t k, cap = 0;
	int err;

	*steps = NULL;
	*n = 0;
	if ((err = setup(&c, cause)) < 0) {
		free(c.js);
		return err;
	}
	while ((k = next_job(&c)) < sc->njobs) {
		struct js *s = &c.js[k];

		if (s->state == J_PENDING && sc->jobs[k].repeat == 0 && !finite_left(&c)) {
			s->state = J_ENDED;
			continue;
		}
		if (*n == cap)
			*steps = gms_realloc(*steps, (cap = cap ? 2 * cap : 1024) * sizeof(**steps));
		(*steps)[(*n)++] = (struct share_step){ .job = k, .start = s->state == J_PENDING,
		    .event = s->i, .pass = s->pass, .time_us = s->next_t };
		if (s->state == J_PENDING)
			s->state = clock_begin(s) ? J_RUNNING : J_ENDED;
		else if (!clock_next(s))
			s->state = J_ENDED;
		if (!finite_left(&c))
			for (k = 0; k < sc->njobs; k++)
				c.js[k].state = J_ENDED;
	}
	free(c.js);
	return 0;
}

int
share_run(const struct share_scenario *sc, FILE *timeline, struct share_result *res,
    char **cause)
{
	struct ctx c = { .sc = sc, .gpu = { .total = sc->total }, .res = res, .tl = timeline,
	    .cause = cause };
	int64_t now = 0;
	size_t k;
	int err = 0;

	memset(res, 0, sizeof(*res));
	res->fits = 1;
	res->jobs = gms_calloc(sc->njobs, sizeof(*res->jobs));
	if ((err = setup(&c, cause)) < 0)
		goto out;
	if (timeline != NULL)
		header(&c);
	row(&c, 0, 1);
	while ((k = next_job(&c)) < sc->njobs) {
		now = c.js[k].next_t;
		if (c.js[k].state == J_PENDING && sc->jobs[k].repeat == 0 && !finite_left(&c)) {
			c.js[k].state = J_ENDED;	/* nothing left to run beside */
			continue;
		}
		err = c.js[k].state == J_PENDING ? job_start(&c, k, now) : job_event(&c, k);
		if (err < 0)
			break;
		/* jobs that repeat until the others end, end with them */
		if (!finite_left(&c))
			for (k = 0; k < sc->njobs; k++)
				if (c.js[k].state != J_ENDED)
					job_end(&c, k, now);
		row(&c, now, 0);
	}
	/* the scenario ends: jobs that held their memory give it back now */
	if (err == 0) {
		for (k = 0; k < sc->njobs; k++)
			if (c.js[k].state == J_HELD)
				job_end(&c, k, now);
		row(&c, now, 0);
	}
out:
	for (k = 0; k < sc->njobs; k++) {
		if (c.js[k].state == J_RUNNING || c.js[k].state == J_HELD)
			run_output_free(&c.js[k].out);
		share_settings_free(&c.js[k].set);
	}
	free(c.js);
	return err;
}

void
share_result_free(struct share_result *res)
{
	size_t i;

	for (i = 0; i < res->nooms; i++)
		free(res->ooms[i].held);
	free(res->ooms);
	free(res->jobs);
	memset(res, 0, sizeof(*res));
}
