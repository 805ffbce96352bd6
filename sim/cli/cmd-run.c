/*
 * cmd-run.c - `gpumemsim run`: replay one trace through one policy and report
 * peaks, fragmentation, device calls and the out-of-memory story, as text for
 * people or JSON for scripts; with --placements, under many placements.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "analysis/placements.h"
#include "analysis/ranks.h"
#include "analysis/report.h"
#include "analysis/timeline.h"
#include "analysis/watch.h"
#include "sim/cli/cli.h"
#include "sim/gpus.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/run.h"
#include "traces/tracemem.h"

/* --at, --depth, --frames and --folded, with what they need. */
static int
run_moments_check(struct cli_args *a)
{
	int moments = a->given[OPT_BY_SITE] || a->given[OPT_BY_STACK] || a->given[OPT_FOLDED];

	if (a->given[OPT_AT] && !moments)
		return cli_usage_error(a->cmd, "--at goes with --by-site, --by-stack or --folded");
	if (a->given[OPT_AT] > 2)
		return cli_usage_error(a->cmd, "give --at twice at most");
	if ((a->given[OPT_DEPTH] || a->given[OPT_FRAMES]) && !a->given[OPT_BY_STACK] &&
	    !a->given[OPT_FOLDED])
		return cli_usage_error(a->cmd, "--depth and --frames go with --by-stack or --folded");
	if (a->given[OPT_FOLDED] && (a->given[OPT_BY_SITE] || a->given[OPT_BY_STACK] ||
	    a->v[OPT_FORMAT].choice == 1 || a->given[OPT_PLACEMENTS]))
		return cli_usage_error(a->cmd, "--folded writes the stacks alone: it does not go "
		    "with --by-site, --by-stack, --placements or --format=json");
	return 0;
}

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

/* --ranks: every rank's run and the job's answer. */
static int
run_ranks(struct cli_args *a, const struct run_spec *spec, const struct cli_policies *pols,
    int threads)
{
	static const int one_trace[] = { OPT_BY_SITE, OPT_BY_STACK, OPT_FOLDED, OPT_AT,
	    OPT_TIMELINE, OPT_CHECK };
	size_t nplace = a->given[OPT_PLACEMENTS] ? (size_t)a->v[OPT_PLACEMENTS].n : 0;
	struct rank_set set;
	struct ranks_job job;
	char *cause = NULL, *text, *label;
	size_t i, top = (size_t)a->v[OPT_TOP].n;
	int err, rc;

	for (i = 0; i < ARRAY_SIZE(one_trace); i++)
		if (a->given[one_trace[i]])
			return cli_usage_error(a->cmd, "--%s looks at one trace: with --ranks, "
			    "give it one rank's file without --ranks", cli_optdefs[one_trace[i]].name);
	if ((err = ranks_collect(a->argv, a->argc, &set, &cause)) < 0 ||
	    (err = ranks_run(&set, spec, nplace, RANKS_DIFF, threads, &job, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		if (set.f != NULL)
			ranks_job_free(&job);
		ranks_free(&set);
		return gms_exit_code(err);
	}
	label = policy_label(pols->ents[0].ops->name, pols->ents[0].opts, pols->ents[0].nopts);
	if (a->v[OPT_FORMAT].choice == 1) {
		cli_print_json(a, ranks_json(&job, label, top));
	} else {
		text = ranks_text(&job, label, top);
		fputs(text, a->report);
		free(text);
	}
	rc = a->given[OPT_FAIL_ON_OOM] && (job.ooms > 0 || job.place_ooms > 0) ? EXIT_CHECK :
	    EXIT_DONE;
	free(label);
	ranks_job_free(&job);
	ranks_free(&set);
	return rc;
}

int
cmd_run(struct cli_args *a)
{
	struct run_spec spec = { 0 };
	struct run_output out;
	struct report_run rep;
	struct cli_policies pols;
	struct cli_target target;
	char *cause = NULL, *text;
	struct policy_kv *opts;
	size_t nopts;
	int fail_on_oom = a->given[OPT_FAIL_ON_OOM] > 0, json = a->v[OPT_FORMAT].choice == 1;
	int err, rc;
	size_t i;
	const char *timeline_path = a->given[OPT_TIMELINE] ? a->v[OPT_TIMELINE].s : NULL;
	const char *gpu_name;
	struct run_watch w;
	struct cli_out tout = { 0 };
	int by_stack = a->given[OPT_BY_STACK] > 0, folded = a->given[OPT_FOLDED] > 0;
	int by_site = a->given[OPT_BY_SITE] > 0 || by_stack || folded;
	const char *frames = a->given[OPT_FRAMES] ? a->v[OPT_FRAMES].s : NULL;
	unsigned depth = a->given[OPT_DEPTH] ? (unsigned)a->v[OPT_DEPTH].n : 0;
	size_t top = (size_t)a->v[OPT_TOP].n;
	struct attrib at;
	struct trace_mem *mem = NULL;
	struct trace_opts topts;
	struct placements pl = { 0 };
	size_t nplace = a->given[OPT_PLACEMENTS] ? (size_t)a->v[OPT_PLACEMENTS].n : 0;
	int threads = (int)a->v[OPT_JOBS].n;

	if ((rc = cli_placement_usage(a)) != 0)
		return rc;
	if ((rc = run_moments_check(a)) != 0)
		return rc;
	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	if ((rc = cli_policies(a, "caching", &pols)) != 0) {
		cli_policies_free(&pols);
		return rc;
	}
	cli_run_spec(a, &target, &spec);
	gpu_name = target.gpu_name;
	spec.path = a->argv[0];
	spec.policy = pols.ents[0].ops;
	spec.opts = opts = pols.ents[0].opts;
	spec.nopts = nopts = pols.ents[0].nopts;
	spec.check_every = a->given[OPT_CHECK] > 0;
	spec.policy_as_recorded = pols.defaulted;
	if (a->given[OPT_RANKS]) {
		rc = run_ranks(a, &spec, &pols, threads);
		cli_policies_free(&pols);
		return rc;
	}
	run_watch(&w, (timeline_path ? WATCH_TIMELINE : 0) | (by_site ? WATCH_PEAK : 0),
	    (size_t)a->v[OPT_POINTS].n, &spec);
	attrib_init(&at);
	if (by_stack || folded)
		attrib_want_stacks(&at);
	for (i = 0; i < (size_t)a->given[OPT_AT]; i++)
		attrib_at(&at, strtoull(a->all[OPT_AT][i], NULL, 10));
	/* --by-site reads the trace twice: standard input is held for it */
	if (by_site && trace_mem_worth(spec.path)) {
		cli_trace_opts(a, &topts);
		if ((err = trace_mem_load(spec.path, &topts, &mem, &cause)) < 0) {
			cli_error("%s", cause);
			free(cause);
			cli_policies_free(&pols);
			return gms_exit_code(err);
		}
		spec.mem = mem;
	}
	/* every change: written as it comes, not held */
	if (timeline_path != NULL && w.tl.points == 0) {
		if ((rc = cli_out_open(timeline_path, spec.path, &tout)) != 0) {
			cli_policies_free(&pols);
			trace_mem_free(mem);
			run_watch_free(&w);
			return rc;
		}
		timeline_stream(&w.tl, tout.f);
	}

	if (nplace > 0) {
		/* the model's placement is the first of them: its output is the run's */
		err = placements_run(&spec, nplace, threads, &pl, &cause);
		out = pl.model;
		memset(&pl.model, 0, sizeof(pl.model));
	} else {
		err = run_simulate(&spec, &out, &cause);
	}
	if (err == 0 && by_site)
		err = attrib_run(&spec, &out.res, &w.peak, 0, &at, &cause);
	if (err == 0 && by_site)
		err = moments_reached(&at, &out.res, &cause);
	if (err < 0) {
		cli_error("%s", cause);
		free(cause);
		run_output_free(&out);
		cli_policies_free(&pols);
		run_watch_free(&w);
		cli_out_close(&tout, 0);
		attrib_free(&at);
		trace_mem_free(mem);
		placements_free(&pl);
		return gms_exit_code(err);
	}
	if (timeline_path != NULL) {
		struct timeline *one = &w.tl;

		rc = w.tl.points == 0 ? cli_out_close(&tout, 1) :
		    write_timeline(timeline_path, spec.path, &one, NULL, 1);
		run_watch_free(&w);
		if (rc != 0) {
			run_output_free(&out);
			cli_policies_free(&pols);
			attrib_free(&at);
			trace_mem_free(mem);
			placements_free(&pl);
			return rc;
		}
	}
	if (out.res.unknown_frees > 0)
		cli_warning("%s: %llu frees of ids the trace never allocated (the first at "
		    "event %llu): the trace starts mid-run, so its first numbers are low",
		    spec.path, (unsigned long long)out.res.unknown_frees,
		    (unsigned long long)out.res.first_unknown_free);
	if (out.recorded_diverged > 0 && spec.placement == RUN_PLACEMENT_RECORDED)
		cli_warning("%s: %llu of %llu segments did not follow the recording; the "
		    "placement model placed them", spec.path,
		    (unsigned long long)out.recorded_diverged,
		    (unsigned long long)out.res.device_allocs);

	rep = (struct report_run){
		.gpu = gpu_name,
		.trace = out.hdr->name,
		.path = spec.path,
		.policy = out.policy ? out.policy->name : spec.policy->name,
		.opts = out.opts ? out.opts : opts,
		.nopts = out.opts ? out.nopts : nopts,
		.recorded_conf = out.recorded_conf,
		.as_recorded = out.as_recorded,
		.placement = run_placement_name(out.placement),
		.capacity = spec.capacity,
		.hdr = out.hdr,
		.res = &out.res,
	};
	if (folded) {
		const struct attrib_moment *m = attrib_chosen(&at);

		if (m != NULL)
			attrib_folded(a->report, &at, m, frames, depth);
	} else if (json) {
		cJSON *o = report_run_json(&rep), *sites;

		if (nplace > 0)
			cJSON_AddItemToObject(o, "placements", placements_json(&pl));
		if (a->given[OPT_BY_SITE]) {
			sites = cJSON_AddArrayToObject(o, "sites");
			for (i = 0; i < at.n; i++)
				cJSON_AddItemToArray(sites, attrib_json(&at.m[i], top));
		}
		if (by_stack) {
			sites = cJSON_AddArrayToObject(o, "stacks");
			for (i = 0; i < at.n; i++)
				cJSON_AddItemToArray(sites, attrib_stacks_json(&at, &at.m[i], frames,
				    depth));
		}
		cli_print_json(a, o);
	} else {
		text = report_run_text(&rep);
		fputs(text, a->report);
		free(text);
		if (nplace > 0) {
			text = placements_text(&pl);
			fprintf(a->report, "\n%s", text);
			free(text);
		}
		if (by_site && at.n == 0)
			fputs("\nNothing holds any memory: the trace has no events.\n", a->report);
		for (i = 0; i < at.n && a->given[OPT_BY_SITE]; i++) {
			text = attrib_text(&at.m[i], top);
			fprintf(a->report, "\n%s", text);
			free(text);
		}
		for (i = 0; i < at.n && by_stack; i++) {
			text = attrib_stacks_text(&at, &at.m[i], frames, depth, top);
			fprintf(a->report, "\n%s", text);
			free(text);
		}
	}
	rc = fail_on_oom && (out.res.oomed || (nplace > 0 && !placements_all_fit(&pl))) ?
	    EXIT_CHECK : EXIT_DONE;
	run_output_free(&out);
	placements_free(&pl);
	attrib_free(&at);
	trace_mem_free(mem);
	cli_policies_free(&pols);
	return rc;
}
