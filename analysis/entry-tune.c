/*
 * entry-tune.c - `tune`'s entry (entries.h): the PyTorch allocator setting
 * that reserves least and fits, with the runner-ups and what TensorFlow's
 * and JAX's modes would cost (tune.h); on an RMM log, RMM's resource and
 * pool size; for the ranks of a job, the setting tuned on the worst rank
 * under the recorded settings (the one the job's memory is sized by), then
 * every rank run with it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

static int
tune_ranks(const struct inputs *in, struct tune_answer *ans, char **cause)
{
	const struct tune_request *rq = ans->rq;
	struct entry_policy caching = { .ops = &policy_caching };
	struct run_spec tmpl = entry_spec(&caching, &rq->target);
	int err;

	tmpl.device = in->topts.device;
	tmpl.unknown_frees_warn = in->topts.unknown_frees_warn;
	if ((err = ranks_run(&in->ranks, &tmpl, 0, 0, rq->threads, &ans->before, cause)) < 0)
		return err;
	ans->worst = ans->before.worst;
	ans->owned = 1;
	if ((err = trace_mem_load(in->ranks.f[ans->worst].path, &in->topts, &ans->mem,
	    cause)) < 0 || (err = tune_run(ans->mem, rq->target.capacity, rq->threads, &ans->rep,
	    cause)) < 0)
		return err;
	ans->tuned = 1;
	if (!tune_fits(&ans->rep))
		return 0;
	ans->kv = (struct policy_kv){ "alloc_conf", ans->rep.cands[0].conf };
	tmpl.opts = &ans->kv;
	tmpl.nopts = 1;
	return ranks_run(&in->ranks, &tmpl, 0, 0, rq->threads, &ans->after, cause);
}

int
entry_tune(const struct inputs *in, const struct tune_request *rq, struct tune_answer *ans,
    char **cause)
{
	int err;

	memset(ans, 0, sizeof(*ans));
	ans->rq = rq;
	ans->in = in;
	if (in->kind == INPUTS_RANKS)
		return tune_ranks(in, ans, cause);
	if ((err = inputs_mem(in, &ans->mem, &ans->owned, cause)) < 0)
		return err;
	if (in->framework == TRACE_FW_RMM) {
		ans->rmm = 1;
		return tune_rmm_run(ans->mem, rq->target.capacity, rq->threads, &ans->rrep, cause);
	}
	if ((err = tune_run(ans->mem, rq->target.capacity, rq->threads, &ans->rep, cause)) < 0)
		return err;
	ans->tuned = 1;
	ans->rep.framework = in->framework;
	return 0;
}

int
entry_tune_fits(const struct tune_answer *ans)
{
	if (ans->rmm)
		return tune_rmm_fits(&ans->rrep);
	if (ans->in->kind == INPUTS_RANKS)
		return tune_fits(&ans->rep) && ans->after.ooms == 0;
	return tune_fits(&ans->rep);
}

/* The job before and after: the ranks' text around tune's. */
static char *
job_text(const struct tune_answer *ans)
{
	const struct rank_set *set = &ans->in->ranks;
	const struct sim_result *b = &ans->before.jobs[ans->worst].out.res, *x;
	size_t w = ans->worst, len = 0;
	char *text = NULL, *part;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	fprintf(f, "%zu rank%s: tuned on rank %d, the worst under the recorded settings (%s "
	    "reserved at its peak%s)\n\n", set->n, set->n == 1 ? "" : "s", set->f[w].rank,
	    SZ(b->peak_reserved), b->oomed ? ", out of memory" : "");
	part = tune_text(&ans->rep);
	fputs(part, f);
	free(part);
	if (tune_fits(&ans->rep)) {
		x = &ans->after.jobs[ans->after.worst].out.res;
		fprintf(f, "\nTHE JOB with PYTORCH_CUDA_ALLOC_CONF=%s: the worst rank is %d, %s "
		    "reserved at its peak (under the recorded settings rank %d ",
		    ans->kv.value[0] ? ans->kv.value : "(the default)", set->f[ans->after.worst].rank,
		    SZ(x->peak_reserved), set->f[w].rank);
		if (b->oomed)
			fprintf(f, "ran out of memory)");
		else
			fprintf(f, "reserved %s)", SZ(b->peak_reserved));
		if (ans->after.ooms > 0)
			fprintf(f, "; %zu rank%s run%s out of memory with it, rank %d first: tune "
			    "that rank's file", ans->after.ooms, ans->after.ooms == 1 ? "" : "s",
			    ans->after.ooms == 1 ? "s" : "", set->f[ans->after.worst].rank);
		fprintf(f, "\n");
	}
	fclose(f);
	return text;
}

char *
entry_tune_text(const struct tune_answer *ans)
{
	if (ans->in->kind == INPUTS_RANKS)
		return job_text(ans);
	return entry_notes_text(ans->in, ans->rmm ? tune_rmm_text(&ans->rrep) :
	    tune_text(&ans->rep), trace_mem_header(ans->mem));
}

cJSON *
entry_tune_json(const struct tune_answer *ans)
{
	cJSON *o, *t;

	if (ans->in->kind != INPUTS_RANKS)
		return entry_notes_json(ans->rmm ? tune_rmm_json(&ans->rrep) : tune_json(&ans->rep),
		    trace_mem_header(ans->mem));
	o = cJSON_CreateObject();
	t = tune_json(&ans->rep);
	cJSON_AddNumberToObject(o, "schema", REPORT_JSON_SCHEMA);
	cJSON_AddStringToObject(o, "ranks_from", ans->in->ranks.from);
	cJSON_AddNumberToObject(o, "tuned_rank", ans->in->ranks.f[ans->worst].rank);
	cJSON_DeleteItemFromObjectCaseSensitive(t, "schema");
	cJSON_AddItemToObject(o, "tune", t);
	cJSON_AddItemToObject(o, "job_before", ranks_job_json(&ans->before));
	if (tune_fits(&ans->rep)) {
		cJSON_AddStringToObject(o, "alloc_conf", ans->kv.value);
		cJSON_AddItemToObject(o, "job_after", ranks_job_json(&ans->after));
	} else {
		cJSON_AddNullToObject(o, "alloc_conf");
		cJSON_AddNullToObject(o, "job_after");
	}
	return o;
}

void
entry_tune_free(struct tune_answer *ans)
{
	if (ans->tuned)
		tune_free(&ans->rep);
	if (ans->owned)
		trace_mem_free(ans->mem);
	if (ans->before.jobs != NULL)
		ranks_job_free(&ans->before);
	if (ans->after.jobs != NULL)
		ranks_job_free(&ans->after);
	memset(ans, 0, sizeof(*ans));
}
