/*
 * entry-replay.c - `replay`'s entry (entries.h): a trace's policy run over a
 * real GPU (replay/), the simulation's prediction beside what the GPU did;
 * or a shared card's jobs, one process each with its own CUDA context,
 * taking turns in the scenario's order (replay/share-gpu.h), beside
 * share's prediction.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

static int
agrees(const struct replay_result *r)
{
	return r->agree_reserved && r->agree_allocs && r->agree_frees && r->agree_oom &&
	    r->agree_resim;
}

/* A job's outcome, in a word or a few. */
static const char *
outcome(const struct share_result *r, size_t k, char *buf, size_t len)
{
	const struct share_job_result *j = &r->jobs[k];

	if (j->oomed && r->ooms[j->oom].event < 0)
		snprintf(buf, len, "could not start (%s)", r->ooms[j->oom].what);
	else if (j->oomed)
		snprintf(buf, len, "out of memory at event %lld", (long long)r->ooms[j->oom].event);
	else if (!j->started)
		snprintf(buf, len, "not started");
	else
		snprintf(buf, len, "fits");
	return buf;
}

static int
same_outcome(const struct share_result *a, const struct share_result *b, size_t k)
{
	char x[64], y[64];

	return strcmp(outcome(a, k, x, sizeof(x)), outcome(b, k, y, sizeof(y))) == 0;
}

static int
replay_scenario(const struct inputs *in, struct replay_answer *ans, char **cause)
{
	const struct share_scenario *sc = &in->sc;
	size_t k;
	int err;

	if (!ans->rq->built)
		return gms_fail(cause, GMS_ENOTBUILT, "replay support not built; reconfigure with "
		    "--with-cuda");
	if ((err = share_run(sc, NULL, &ans->pred, cause)) < 0 ||
	    (err = replay_share(sc, ans->rq->gpu, &ans->real, cause)) < 0)
		return err;
	ans->agree = 1;
	for (k = 0; k < sc->njobs; k++)
		ans->agree &= same_outcome(&ans->pred, &ans->real, k) &&
		    ans->pred.jobs[k].peak_reserved == ans->real.jobs[k].peak_reserved;
	return 0;
}

int
entry_replay(const struct inputs *in, const struct replay_request *rq,
    struct replay_answer *ans, char **cause)
{
	struct replay_spec spec = { .policy = rq->policy.ops, .opts = rq->policy.opts,
	    .nopts = rq->policy.nopts, .capacity = rq->capacity, .touch = rq->touch };
	int err;

	memset(ans, 0, sizeof(*ans));
	ans->in = in;
	ans->rq = rq;
	if (in->kind == INPUTS_JOBS)
		return replay_scenario(in, ans, cause);
	/* The GPU first: without one, there is nothing to read the trace for. */
	if ((err = rq->gpu->open(rq->gpu->arg, &ans->g, cause)) < 0 ||
	    (err = inputs_mem(in, &ans->mem, &ans->owned, cause)) < 0)
		return err;
	spec.mem = ans->mem;
	if ((err = replay_run(&spec, &ans->g, &ans->r, cause)) < 0)
		return err;
	ans->have_r = 1;
	if (rq->baseline) {
		spec.policy = &policy_no_cache;
		spec.opts = NULL;
		spec.nopts = 0;
		if ((err = replay_run(&spec, &ans->g, &ans->base, cause)) < 0)
			return err;
		ans->have_base = 1;
	}
	ans->agree = agrees(&ans->r);
	return 0;
}

static char *
scenario_text(const struct replay_answer *ans)
{
	const struct share_scenario *sc = &ans->in->sc;
	const struct share_result *pred = &ans->pred, *real = &ans->real;
	char *text = NULL, x[64], y[64], sz[2][32], p[96], q[96];
	size_t len = 0, k;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	fprintf(f, "%zu jobs, one process each, on GPU %d brought down to %s (%s of context "
	    "each in the prediction)\n\n", sc->njobs, ans->rq->cuda_device,
	    gms_fmt_size(sc->total, sz[0], sizeof(sz[0])),
	    gms_fmt_size(sc->context, sz[1], sizeof(sz[1])));
	fprintf(f, "  %-24s  %-30s  %-30s\n", "job", "predicted", "replayed");
	for (k = 0; k < sc->njobs; k++) {
		snprintf(p, sizeof(p), "%s, %s", outcome(pred, k, x, sizeof(x)),
		    gms_fmt_size(pred->jobs[k].peak_reserved, sz[0], sizeof(sz[0])));
		snprintf(q, sizeof(q), "%s, %s", outcome(real, k, y, sizeof(y)),
		    gms_fmt_size(real->jobs[k].peak_reserved, sz[1], sizeof(sz[1])));
		fprintf(f, "  %-24s  %-30s  %-30s%s\n", sc->jobs[k].name, p, q,
		    same_outcome(pred, real, k) && pred->jobs[k].peak_reserved ==
		    real->jobs[k].peak_reserved ? "" : "  DIFFERS");
	}
	fprintf(f, "\n  %s\n", ans->agree ? "the GPU did what the simulation said" :
	    "the GPU and the simulation differ");
	fclose(f);
	return text;
}

char *
entry_replay_text(const struct replay_answer *ans, int device_log)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (ans->in->kind == INPUTS_JOBS)
		return scenario_text(ans);
	if ((f = open_memstream(&text, &len)) == NULL)
		return NULL;
	report_replay_text(f, trace_mem_header(ans->mem)->name, &ans->g, ans->rq->policy.ops->name,
	    ans->rq->capacity, ans->rq->touch, &ans->r, ans->have_base ? &ans->base : NULL);
	if (device_log)
		report_replay_calls_text(f, &ans->r);
	fclose(f);
	return text;
}

cJSON *
entry_replay_json(const struct replay_answer *ans, int device_log)
{
	const struct share_scenario *sc = &ans->in->sc;
	cJSON *o = cJSON_CreateObject(), *jobs, *it, *res;
	size_t k;

	if (ans->in->kind == INPUTS_JOBS) {
		cJSON_AddItemToObject(o, "predicted", share_json(sc, &ans->pred));
		cJSON_AddItemToObject(o, "replayed", share_json(sc, &ans->real));
		jobs = cJSON_AddArrayToObject(o, "jobs");
		for (k = 0; k < sc->njobs; k++) {
			it = cJSON_CreateObject();
			cJSON_AddStringToObject(it, "name", sc->jobs[k].name);
			cJSON_AddBoolToObject(it, "same_outcome", same_outcome(&ans->pred, &ans->real,
			    k));
			cJSON_AddBoolToObject(it, "same_peak_reserved",
			    ans->pred.jobs[k].peak_reserved == ans->real.jobs[k].peak_reserved);
			cJSON_AddItemToArray(jobs, it);
		}
		cJSON_AddBoolToObject(o, "agree", ans->agree);
		return o;
	}
	cJSON_AddStringToObject(o, "trace", trace_mem_header(ans->mem)->name);
	cJSON_AddStringToObject(o, "gpu", ans->g.name);
	cJSON_AddNumberToObject(o, "gpu_index", ans->g.index);
	cJSON_AddNumberToObject(o, "gpu_total", (double)ans->g.total);
	cJSON_AddStringToObject(o, "versions", ans->g.versions);
	cJSON_AddStringToObject(o, "policy", ans->rq->policy.ops->name);
	if (ans->rq->capacity)	/* null when unlimited, as run's JSON */
		cJSON_AddNumberToObject(o, "capacity", (double)ans->rq->capacity);
	else
		cJSON_AddNullToObject(o, "capacity");
	cJSON_AddBoolToObject(o, "touch", ans->rq->touch);
	cJSON_AddItemToObject(o, "result", res = report_replay_json(&ans->r));
	if (device_log)
		cJSON_AddItemToObject(res, "device_calls", report_replay_calls_json(&ans->r));
	if (ans->have_base) {
		cJSON_AddItemToObject(o, "baseline", res = report_replay_json(&ans->base));
		if (device_log)
			cJSON_AddItemToObject(res, "device_calls", report_replay_calls_json(&ans->base));
	}
	return o;
}

void
entry_replay_free(struct replay_answer *ans)
{
	if (ans->have_r)
		replay_result_free(&ans->r);
	if (ans->have_base)
		replay_result_free(&ans->base);
	if (ans->g.close != NULL)
		ans->g.close(ans->g.ctx);
	if (ans->owned)
		trace_mem_free(ans->mem);
	share_result_free(&ans->pred);
	share_result_free(&ans->real);
	memset(ans, 0, sizeof(*ans));
}
