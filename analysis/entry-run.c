/*
 * entry-run.c - `run`'s entry (entries.h): one trace through one policy,
 * with its placements and what holds its memory at its moments; or every
 * rank of a job, and the job's answer.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

/* Every --at reached by the run, or a GMS_ECONFIG code saying where it stopped. */
static int
moments_reached(const struct attrib *at, const struct sim_result *res, char **cause)
{
	size_t i;

	for (i = 0; i < at->n; i++) {
		if (at->m[i].taken || strcmp(at->m[i].key, "at") != 0)
			continue;
		if (res->oomed)
			return gms_fail(cause, GMS_ECONFIG, "--at %llu: the run ran out of memory "
			    "at event %llu and did not get past it", (unsigned long long)at->m[i].event,
			    (unsigned long long)res->oom.event);
		return gms_fail(cause, GMS_ECONFIG, "--at %llu: the trace has %llu events (0 to "
		    "%llu)", (unsigned long long)at->m[i].event, (unsigned long long)res->events,
		    (unsigned long long)(res->events ? res->events - 1 : 0));
	}
	return 0;
}

/* The ranks of a job: every rank's run, the job's answer. */
static int
run_ranks(const struct inputs *in, const struct run_spec *spec, struct run_answer *ans,
    char **cause)
{
	const struct run_request *rq = ans->rq;

	ans->ranked = 1;
	ans->label = policy_label(rq->policy.ops->name, rq->policy.opts, rq->policy.nopts);
	return ranks_run(&in->ranks, spec, rq->placements, RANKS_DIFF, rq->threads, &ans->job,
	    cause);
}

int
entry_run(const struct inputs *in, const struct run_request *rq, struct run_answer *ans,
    char **cause)
{
	struct run_spec spec = entry_spec(&rq->policy, &rq->target);
	int by_site = rq->by_site || rq->by_stack || rq->folded;
	size_t i;
	int err;

	memset(ans, 0, sizeof(*ans));
	ans->rq = rq;
	attrib_init(&ans->at);
	spec.check_every = rq->check_every;
	spec.policy_as_recorded = rq->as_recorded;
	spec.device = in->topts.device;
	spec.unknown_frees_warn = in->topts.unknown_frees_warn;
	if (in->kind == INPUTS_RANKS)
		return run_ranks(in, &spec, ans, cause);
	/* --by-site reads the trace twice: standard input is held for it */
	if ((err = inputs_spec(in, by_site, &spec, &ans->held, cause)) < 0)
		return err;
	run_watch(&ans->w, (rq->timeline ? WATCH_TIMELINE : 0) | (by_site ? WATCH_PEAK : 0),
	    rq->points, &spec);
	if (rq->by_stack || rq->folded)
		attrib_want_stacks(&ans->at);
	for (i = 0; i < rq->nat; i++)
		attrib_at(&ans->at, rq->at[i]);
	if (rq->timeline && rq->points == 0)	/* every change: written as it comes */
		timeline_stream(&ans->w.tl, rq->timeline_stream);
	if (rq->placements > 0) {
		/* the model's placement is the first of them: its output is the run's */
		err = placements_run(&spec, rq->placements, rq->threads, &ans->pl, cause);
		ans->out = ans->pl.model;
		memset(&ans->pl.model, 0, sizeof(ans->pl.model));
	} else {
		err = run_simulate(&spec, &ans->out, cause);
	}
	if (err == 0 && by_site)
		err = attrib_run(&spec, &ans->out.res, &ans->w.peak, 0, &ans->at, cause);
	if (err == 0 && by_site)
		err = moments_reached(&ans->at, &ans->out.res, cause);
	if (err < 0)
		return err;
	if (ans->out.res.unknown_frees > 0)
		entry_warn(&ans->warn, "%s: %llu frees of ids the trace never allocated (the first "
		    "at event %llu): the trace starts mid-run, so its first numbers are low",
		    spec.path, (unsigned long long)ans->out.res.unknown_frees,
		    (unsigned long long)ans->out.res.first_unknown_free);
	if (ans->out.recorded_diverged > 0 && spec.placement == RUN_PLACEMENT_RECORDED)
		entry_warn(&ans->warn, "%s: %llu of %llu segments did not follow the recording; "
		    "the placement model placed them", spec.path,
		    (unsigned long long)ans->out.recorded_diverged,
		    (unsigned long long)ans->out.res.device_allocs);
	ans->rep = (struct report_run){
		.gpu = rq->target.gpu ? rq->target.gpu->name : NULL,
		.trace = ans->out.hdr->name,
		.path = spec.path,
		.policy = ans->out.policy ? ans->out.policy->name : spec.policy->name,
		.ops = ans->out.policy ? ans->out.policy : spec.policy,
		.opts = ans->out.opts ? ans->out.opts : rq->policy.opts,
		.nopts = ans->out.opts ? ans->out.nopts : rq->policy.nopts,
		.recorded_conf = ans->out.recorded_conf,
		.as_recorded = ans->out.as_recorded,
		.placement = run_placement_name(ans->out.placement),
		.capacity = spec.capacity,
		.hdr = ans->out.hdr,
		.res = &ans->out.res,
	};
	return 0;
}

static void
append(FILE *f, char *text)
{
	fputs(text, f);
	free(text);
}

char *
entry_run_text(const struct run_answer *ans)
{
	const struct run_request *rq = ans->rq;
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	if (ans->ranked)
		return ranks_text(&ans->job, ans->label, rq->top);
	if ((f = open_memstream(&text, &len)) == NULL)
		return NULL;
	if (rq->folded) {
		const struct attrib_moment *m = attrib_chosen(&ans->at);

		if (m != NULL)
			attrib_folded(f, &ans->at, m, rq->frames, rq->depth);
		fclose(f);
		return text;
	}
	append(f, report_run_text(&ans->rep));
	if (rq->placements > 0) {
		fputc('\n', f);
		append(f, placements_text(&ans->pl));
	}
	if ((rq->by_site || rq->by_stack) && ans->at.n == 0)
		fputs("\nNothing holds any memory: the trace has no events.\n", f);
	for (i = 0; i < ans->at.n && rq->by_site; i++) {
		fputc('\n', f);
		append(f, attrib_text(&ans->at.m[i], rq->top));
	}
	for (i = 0; i < ans->at.n && rq->by_stack; i++) {
		fputc('\n', f);
		append(f, attrib_stacks_text(&ans->at, &ans->at.m[i], rq->frames, rq->depth,
		    rq->top));
	}
	fclose(f);
	return text;
}

cJSON *
entry_run_json(const struct run_answer *ans)
{
	const struct run_request *rq = ans->rq;
	cJSON *o, *sites;
	size_t i;

	if (ans->ranked)
		return ranks_json(&ans->job, ans->label, rq->top);
	o = report_run_json(&ans->rep);
	if (rq->placements > 0)
		cJSON_AddItemToObject(o, "placements", placements_json(&ans->pl));
	if (rq->by_site) {
		sites = cJSON_AddArrayToObject(o, "sites");
		for (i = 0; i < ans->at.n; i++)
			cJSON_AddItemToArray(sites, attrib_json(&ans->at.m[i], rq->top));
	}
	if (rq->by_stack) {
		sites = cJSON_AddArrayToObject(o, "stacks");
		for (i = 0; i < ans->at.n; i++)
			cJSON_AddItemToArray(sites, attrib_stacks_json(&ans->at, &ans->at.m[i],
			    rq->frames, rq->depth));
	}
	return o;
}

int
entry_run_oomed(const struct run_answer *ans)
{
	if (ans->ranked)
		return ans->job.ooms > 0 || ans->job.place_ooms > 0;
	return ans->out.res.oomed || (ans->rq->placements > 0 && !placements_all_fit(&ans->pl));
}

void
entry_run_free(struct run_answer *ans)
{
	if (ans->job.set != NULL)
		ranks_job_free(&ans->job);
	free(ans->label);
	run_output_free(&ans->out);
	placements_free(&ans->pl);
	attrib_free(&ans->at);
	run_watch_free(&ans->w);
	trace_mem_free(ans->held);
	entry_warnings_free(&ans->warn);
	memset(ans, 0, sizeof(*ans));
}
