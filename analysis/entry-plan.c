/*
 * entry-plan.c - `plan`'s entry (entries.h): the smallest capacity each
 * policy needs and which cards the trace fits (plan.h); for recordings at
 * values, each card's largest value (scale-plan.h), or the plan of the job
 * built at one; for the ranks of a job, every rank's and the job's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

int
entry_plan(const struct inputs *in, const struct plan_request *rq, struct plan_answer *ans,
    char **cause)
{
	struct plan_report *rep = &ans->rep;
	size_t i;
	int err;

	memset(ans, 0, sizeof(*ans));
	ans->rq = rq;
	ans->in = in;
	*rep = (struct plan_report){ .overhead = rq->overhead, .checkpoints = 1,
	    .placements = rq->placements, .gpus = (const struct gpu_model **)rq->gpus,
	    .ngpus = rq->ngpus, .npols = rq->npols };
	rep->pols = gms_calloc(rq->npols + 1, sizeof(*rep->pols));
	for (i = 0; i < rq->npols; i++)
		rep->pols[i] = (struct plan_policy){ .label = rq->pols[i].label,
		    .ops = rq->pols[i].ops, .opts = rq->pols[i].opts, .nopts = rq->pols[i].nopts,
		    .placement = rq->placement };
	if (in->kind == INPUTS_RANKS)
		return ranks_plan_run(&in->ranks, rep, &in->topts, rq->threads, &ans->rp, cause);
	if (in->kind == INPUTS_SCALED && in->mem == NULL) {
		/* recordings at values, no value: each card's largest */
		if (rep->placements > 1)
			return gms_fail(cause, GMS_EUSAGE, "--placements plans one trace: give "
			    "--value (or run each value's plan)");
		ans->scaled = 1;
		ans->sp = (struct scale_plan){ .model = in->model, .pols = rep->pols,
		    .npols = rep->npols, .gpus = rep->gpus, .ngpus = rep->ngpus,
		    .overhead = rep->overhead };
		return scale_plan_run(&ans->sp, rq->threads, cause);
	}
	if ((err = inputs_mem(in, &ans->mem, &ans->owned, cause)) < 0)
		return err;
	return plan_run(ans->mem, rep, rq->threads, cause);
}

char *
entry_plan_text(const struct plan_answer *ans)
{
	if (ans->in->kind == INPUTS_RANKS)
		return ranks_plan_text(&ans->rp);
	if (ans->scaled)
		return scale_plan_text(&ans->sp);
	return entry_notes_text(ans->in, plan_text(&ans->rep), trace_mem_header(ans->mem));
}

cJSON *
entry_plan_json(const struct plan_answer *ans)
{
	if (ans->in->kind == INPUTS_RANKS)
		return ranks_plan_json(&ans->rp);
	if (ans->scaled)
		return scale_plan_json(&ans->sp);
	return entry_notes_json(plan_json(&ans->rep), trace_mem_header(ans->mem));
}

void
entry_plan_free(struct plan_answer *ans)
{
	if (ans->in != NULL && ans->in->kind == INPUTS_RANKS)
		ranks_plan_free(&ans->rp);
	if (ans->scaled)
		scale_plan_free(&ans->sp);
	plan_free(&ans->rep);
	free(ans->rep.pols);
	if (ans->owned)
		trace_mem_free(ans->mem);
	memset(ans, 0, sizeof(*ans));
}
