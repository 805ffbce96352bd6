/*
 * replay.c - replays over a real device (replay.h).  The device is wrapped
 * in a timed device that forwards every call, times it, samples the memory
 * in use after it and logs the addresses handed out; the engine and policy
 * are the simulation's own.  Three runs: the prediction (simulated device),
 * the replay (the wrapper over the real device) and the re-simulation (the
 * recorded device, fed the replay's addresses).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/replay.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "sim/run.h"
#include "traces/tracemem.h"

struct timing {
	double *t;
	size_t n, cap;
};

struct timed {
	struct device *inner;
	struct replay_gpu *g;
	struct timing mallocs, frees;
	struct replay_call *log;	/* every device call answered, in order */
	size_t nlog, caplog;
	uint64_t used_peak, refusals;
	int used_err;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
timing_add(struct timing *t, double s)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->t = gms_realloc(t->t, t->cap * sizeof(*t->t));
	}
	t->t[t->n++] = s;
}

static void
log_call(struct timed *w, char op, uint64_t addr, uint64_t size)
{
	if (w->nlog == w->caplog) {
		w->caplog = w->caplog ? w->caplog * 2 : 256;
		w->log = gms_realloc(w->log, w->caplog * sizeof(*w->log));
	}
	w->log[w->nlog++] = (struct replay_call){ op, addr, size };
}

static void
sample_used(struct timed *w)
{
	uint64_t used;

	if (w->g->used(w->g->ctx, &used) < 0)
		w->used_err = 1;
	else
		w->used_peak = GMS_MAX(w->used_peak, used);
}

static int
tm_reserve(struct device *d, uint64_t size, uint64_t *addr)
{
	struct timed *w = d->priv;
	double t0 = now();
	int err = w->inner->ops->reserve(w->inner, size, addr);

	if (err < 0) {
		w->refusals++;
		return err;
	}
	timing_add(&w->mallocs, now() - t0);
	log_call(w, 'a', *addr, size);
	sample_used(w);
	return 0;
}

static void
tm_release(struct device *d, uint64_t addr, uint64_t size)
{
	struct timed *w = d->priv;
	double t0 = now();

	w->inner->ops->release(w->inner, addr, size);
	timing_add(&w->frees, now() - t0);
	log_call(w, 'f', addr, size);
}

static uint64_t
tm_physical(struct device *d)
{
	struct timed *w = d->priv;

	return w->inner->ops->physical(w->inner);
}

static int
tm_reserve_va(struct device *d, uint64_t size, uint64_t *addr)
{
	struct timed *w = d->priv;
	int err = w->inner->ops->reserve_va(w->inner, size, addr);

	if (err == 0)
		log_call(w, 'r', *addr, size);
	return err;
}

static void
tm_release_va(struct device *d, uint64_t addr, uint64_t size)
{
	struct timed *w = d->priv;

	w->inner->ops->release_va(w->inner, addr, size);
	log_call(w, 'R', addr, size);
}

static int
tm_map(struct device *d, uint64_t addr, uint64_t size)
{
	struct timed *w = d->priv;
	double t0 = now();
	int err = w->inner->ops->map(w->inner, addr, size);

	if (err < 0) {
		w->refusals++;
		return err;
	}
	timing_add(&w->mallocs, now() - t0);
	log_call(w, 'm', addr, size);
	sample_used(w);
	return 0;
}

static void
tm_unmap(struct device *d, uint64_t addr, uint64_t size)
{
	struct timed *w = d->priv;
	double t0 = now();

	w->inner->ops->unmap(w->inner, addr, size);
	timing_add(&w->frees, now() - t0);
	log_call(w, 'u', addr, size);
}

static void
tm_destroy(struct device *d)
{
	free(d);	/* the inner device belongs to the replay_gpu */
}

static const struct device_ops timed_ops = {
	.name = "timed",
	.reserve = tm_reserve,
	.release = tm_release,
	.physical = tm_physical,
	.reserve_va = tm_reserve_va,
	.release_va = tm_release_va,
	.map = tm_map,
	.unmap = tm_unmap,
	.destroy = tm_destroy,
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
summarise(struct timing *t, struct replay_calls *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->n = t->n;
	if (t->n == 0)
		return;
	qsort(t->t, t->n, sizeof(*t->t), cmp_double);
	for (i = 0; i < t->n; i++)
		c->total_s += t->t[i];
	c->median_s = t->t[t->n / 2];
	c->p99_s = t->t[(t->n * 99 + 99) / 100 - 1];	/* nearest rank */
	c->max_s = t->t[t->n - 1];
}

/* The OOM strings outlive the sim that made them. */
static void
keep_strings(struct sim_result *r)
{
	r->oom.at = r->oom.at ? gms_strdup(r->oom.at) : NULL;
	r->oom.mark = r->oom.mark ? gms_strdup(r->oom.mark) : NULL;
}

static void
drop_strings(struct sim_result *r)
{
	free(r->oom.at);
	free(r->oom.mark);
	r->oom.at = r->oom.mark = NULL;
}

/* --touch: after each alloc, write its block. */
struct toucher {
	const struct trace_mem *mem;
	struct sim *sim;
	struct replay_gpu *g;
	uint64_t bytes;
	int err;
	uint64_t err_event;
};

static void
touch_sample(void *arg, const struct sim_sample *smp)
{
	struct toucher *t = arg;
	struct trace_event ev;
	uint64_t addr, block;

	if (smp->stopped || t->err)
		return;
	trace_mem_event(t->mem, (size_t)smp->event, &ev);
	if (ev.op != TRACE_ALLOC || ev.size == 0 || sim_lookup(t->sim, ev.id, &addr, &block) < 0)
		return;
	if (t->g->touch(t->g->ctx, addr, ev.size) < 0) {
		t->err = 1;
		t->err_event = smp->event;
		return;
	}
	t->bytes += ev.size;
}

/*
 * The re-simulation against the replay.  For policies whose reservation is
 * what the driver backs (no-cache), the replay's is measured and the
 * re-simulation's modelled: only the calls and the OOM can be held equal.
 */
static int
same_run(const struct policy_ops *p, const struct sim_result *a, const struct sim_result *b)
{
	return (p->limit == POLICY_LIMIT_PHYSICAL || a->peak_reserved == b->peak_reserved) &&
	    a->device_allocs == b->device_allocs &&
	    a->device_frees == b->device_frees && a->oomed == b->oomed &&
	    (!a->oomed || a->oom.event == b->oom.event);
}

int
replay_run(const struct replay_spec *spec, struct replay_gpu *g, struct replay_result *out,
    char **cause)
{
	const struct trace_header *hdr = trace_mem_header(spec->mem);
	/*
	 * The capacity is the allocator's limit itself (no framework share is
	 * taken off it); uncapped, the frameworks size their defaults from the
	 * card the replay runs on.
	 */
	struct policy_args args = { .opts = spec->opts, .nopts = spec->nopts,
	    .device_total = g->total };
	/* the replay is a fresh process of its own: the driver places its
	   segments as the model does, not where the recorded job's went */
	struct run_spec rs = { .mem = spec->mem, .policy = spec->policy, .opts = spec->opts,
	    .nopts = spec->nopts, .capacity = spec->capacity, .device = -1,
	    .device_total = g->total, .placement = RUN_PLACEMENT_MODEL };
	unsigned flags = hdr->starts_mid_run ? SIM_UNKNOWN_FREES_WARN : 0;
	struct timed w = { .inner = g->dev, .g = g };
	struct toucher touch = { .mem = spec->mem, .g = g };
	struct run_output pred;
	struct device *dev = NULL, *rec = NULL;
	struct sim *s = NULL;
	double t0;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	/* 1. the prediction */
	if ((err = run_simulate(&rs, &pred, cause)) < 0) {
		run_output_free(&pred);
		return err;
	}
	out->predicted = pred.res;
	out->predicted_physical = pred.dev->c.peak_physical;
	keep_strings(&out->predicted);
	run_output_free(&pred);

	/* 2. the replay */
	if (g->used(g->ctx, &out->used_before) < 0) {
		err = gms_fail(cause, GMS_EIO, "cannot read the device's memory in use");
		goto out;
	}
	w.used_peak = out->used_before;
	dev = gms_calloc(1, sizeof(*dev));
	dev->ops = &timed_ops;
	dev->capacity = spec->capacity;
	dev->priv = &w;
	if ((s = sim_create(spec->policy, &args, dev, flags, cause)) == NULL) {
		err = GMS_ECONFIG;
		goto out;
	}
	if (spec->touch) {
		touch.sim = s;
		sim_set_sampler(s, touch_sample, &touch);
	}
	t0 = now();
	err = sim_replay_mem(s, spec->mem, cause);
	out->wall_s = now() - t0;
	if (err < 0)
		goto out;
	if (touch.err) {
		err = gms_fail(cause, GMS_EIO, "event %llu: cannot write the block allocated there",
		    (unsigned long long)touch.err_event);
		goto out;
	}
	sim_result(s, &out->real);
	keep_strings(&out->real);
	out->touched = touch.bytes;
	if (g->used(g->ctx, &out->used_end) < 0)
		w.used_err = 1;
	out->used_peak = w.used_peak;
	out->driver_refusals = w.refusals;
	summarise(&w.mallocs, &out->mallocs);
	summarise(&w.frees, &out->frees);
	sim_destroy(s);
	s = NULL;

	/* 3. the re-simulation with the replay's addresses */
	rec = device_recorded_create(spec->capacity);
	for (i = 0; i < w.nlog; i++)
		if (w.log[i].op == 'a')
			device_recorded_push(rec, w.log[i].addr, w.log[i].size);
	if ((s = sim_create(spec->policy, &args, rec, flags, cause)) == NULL) {
		err = GMS_ECONFIG;
		goto out;
	}
	if ((err = sim_replay_mem(s, spec->mem, cause)) < 0)
		goto out;
	sim_result(s, &out->resim);
	keep_strings(&out->resim);

	out->agree_reserved = out->predicted.peak_reserved == out->real.peak_reserved;
	out->agree_allocs = out->predicted.device_allocs == out->real.device_allocs;
	out->agree_frees = out->predicted.device_frees == out->real.device_frees;
	out->agree_oom = out->predicted.oomed == out->real.oomed &&
	    (!out->real.oomed || out->predicted.oom.event == out->real.oom.event);
	/* A driver refusal is not in the re-simulation's device: it cannot agree. */
	out->agree_resim = same_run(spec->policy, &out->resim, &out->real) && w.refusals == 0;
	if (w.used_err)
		err = gms_fail(cause, GMS_EIO, "cannot read the device's memory in use");
out:
	if (dev != NULL)
		g->reset(g->ctx);	/* the cache the replay left, before the next one */
	sim_destroy(s);
	device_destroy(rec);
	free(dev);
	free(w.mallocs.t);
	free(w.frees.t);
	if (err == 0) {
		out->calls = w.log;
		out->ncalls = w.nlog;
	} else {
		free(w.log);
	}
	return err;
}

void
replay_result_free(struct replay_result *r)
{
	drop_strings(&r->predicted);
	drop_strings(&r->real);
	drop_strings(&r->resim);
	free(r->calls);
	r->calls = NULL;
	r->ncalls = 0;
}
