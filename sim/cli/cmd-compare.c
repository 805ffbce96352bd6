/*
 * cmd-compare.c - `gpumemsim compare`: every policy (or --policies) on one
 * trace, side by side, run concurrently, with the winner and why; or two
 * traces under one policy, and what grew between them by call stack.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "analysis/ranks.h"
#include "analysis/report.h"
#include "analysis/timeline.h"
#include "analysis/tracediff.h"
#include "analysis/watch.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"
#include "traces/tracemem.h"

/* A label as a CSV column name: letters, digits, '-' and '_' only. */
static char *
csv_label(const char *label)
{
	char *s = gms_strdup(label), *p;

	for (p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
			*p = '_';
	return s;
}

/*
 * Two traces under one policy: their numbers, then what grew by stack (a
 * second pass over each: standard input is held for it).
 */
static int
compare_traces(struct cli_args *a)
{
	struct cli_policies pols = { 0 };
	struct cli_target target;
	struct run_spec specs[2];
	struct trace_mem *mem[2] = { NULL, NULL };
	struct trace_opts topts;
	struct trace_diff td = { 0 };
	const char *names[2];
	const char *frames = a->given[OPT_FRAMES] ? a->v[OPT_FRAMES].s : NULL;
	unsigned depth = a->given[OPT_DEPTH] ? (unsigned)a->v[OPT_DEPTH].n : 0;
	size_t top = (size_t)a->v[OPT_TOP].n;
	char *cause = NULL, *text;
	int rc, err = 0, i;

	if (a->given[OPT_POLICIES] || a->given[OPT_POLICY] > 1)
		return cli_usage_error(a->cmd, "two traces are compared under one policy: give "
		    "--policy once");
	if (a->given[OPT_BY_SITE] || a->given[OPT_TIMELINE] || a->given[OPT_BY] ||
	    a->given[OPT_TIME_BOUND])
		return cli_usage_error(a->cmd, "with two traces, --by-site, --timeline, --by and "
		    "--time-bound have nothing to rank: the stacks are compared");
	if (a->given[OPT_FOLDED] && a->v[OPT_FORMAT].choice == 1)
		return cli_usage_error(a->cmd, "--folded writes the stacks alone: it does not go "
		    "with --format=json");
	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	if ((rc = cli_policies(a, "caching", &pols)) != 0) {
		cli_policies_free(&pols);
		return rc;
	}
	cli_trace_opts(a, &topts);
	for (i = 0; i < 2 && err == 0; i++) {
		specs[i] = (struct run_spec){ .path = a->argv[i], .policy = pols.ents[0].ops,
		    .opts = pols.ents[0].opts, .nopts = pols.ents[0].nopts };
		cli_run_spec(a, &target, &specs[i]);
		specs[i].policy_as_recorded = pols.defaulted;
		if (trace_mem_worth(a->argv[i]) &&
		    (err = trace_mem_load(a->argv[i], &topts, &mem[i], &cause)) == 0)
			specs[i].mem = mem[i];
		names[i] = a->argv[i];
	}
	if (err == 0)
		err = trace_diff_run(specs, frames, depth, &td, &cause);
	if (err < 0) {
		rc = cli_fail(err, cause);
	} else if (a->given[OPT_FOLDED]) {
		stack_diff_folded(a->report, &td.d);
	} else if (a->v[OPT_FORMAT].choice == 1) {
		cli_print_json(a, trace_diff_json(&td, names, top));
	} else {
		text = trace_diff_text(&td, names, top);
		fputs(text, a->report);
		free(text);
	}
	trace_diff_free(&td);
	for (i = 0; i < 2; i++)
		trace_mem_free(mem[i]);
	cli_policies_free(&pols);
	return rc;
}

/* --ranks: each policy on every rank, its worst rank side by side. */
static int
compare_ranks(struct cli_args *a)
{
	static const int one_trace[] = { OPT_BY_SITE, OPT_TIMELINE, OPT_DEPTH, OPT_FRAMES,
	    OPT_FOLDED };
	struct cli_policies pols = { 0 };
	struct cli_target target;
	struct rank_set set = { 0 };
	struct ranks_row *rows = NULL;
	char *cause = NULL, *text;
	size_t i, n = 0;
	int threads = (int)a->v[OPT_JOBS].n;
	int rc, err;

	for (i = 0; i < ARRAY_SIZE(one_trace); i++)
		if (a->given[one_trace[i]])
			return cli_usage_error(a->cmd, "--%s looks at one trace: with --ranks, "
			    "give it one rank's file without --ranks", cli_optdefs[one_trace[i]].name);
	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	if ((rc = cli_policies(a, NULL, &pols)) != 0)
		goto out;
	if ((err = ranks_collect(a->argv, a->argc, &set, &cause)) < 0)
		goto fail;
	rows = gms_calloc(pols.n, sizeof(*rows));
	for (n = 0; n < pols.n; n++) {
		struct run_spec tmpl = { .policy = pols.ents[n].ops, .opts = pols.ents[n].opts,
		    .nopts = pols.ents[n].nopts };

		cli_run_spec(a, &target, &tmpl);
		rows[n].label = pols.ents[n].label;
		/* a policy the job's recordings cannot run (options it lacks) is a row
		   that says why, as compare says it of one trace */
		if ((err = ranks_run(&set, &tmpl, 0, 0, threads, &rows[n].job, &cause)) ==
		    GMS_ECONFIG) {
			rows[n].not_run = cause;
			cause = NULL;
		} else if (err < 0) {
			n++;
			goto fail;
		}
	}
	if (a->v[OPT_FORMAT].choice == 1) {
		cli_print_json(a, ranks_compare_json(rows, n));
	} else {
		text = ranks_compare_text(rows, n);
		fputs(text, a->report);
		free(text);
	}
	rc = EXIT_DONE;
	goto out;
fail:
	rc = cli_fail(err, cause);
out:
	for (i = 0; i < n; i++) {
		ranks_job_free(&rows[i].job);
		free(rows[i].not_run);
	}
	free(rows);
	ranks_free(&set);
	cli_policies_free(&pols);
	return rc;
}

int
cmd_compare(struct cli_args *a)
{
	struct cli_policies pols = { 0 };
	struct cli_target target;
	struct batch_job *jobs;
	struct report_row *rows;
	struct report_compare how;
	const char *trace = NULL;
	const struct report_row *first = NULL;
	char *text;
	size_t n = 0, i;
	int json = a->v[OPT_FORMAT].choice == 1, rc = 0;
	int threads = (int)a->v[OPT_JOBS].n;
	const char *timeline_path = a->given[OPT_TIMELINE] ? a->v[OPT_TIMELINE].s : NULL;
	struct run_watch *watch = NULL;
	struct timeline **tlp = NULL;
	char **labels = NULL;
	uint64_t capacity;
	int by_site = a->given[OPT_BY_SITE] > 0;
	size_t top = (size_t)a->v[OPT_TOP].n;
	struct attrib_peak *peaks = NULL;
	struct attrib *ats = NULL;
	struct trace_mem *mem = NULL;
	struct trace_opts topts;
	char *cause = NULL;
	int err;

	if (a->given[OPT_RANKS])
		return compare_ranks(a);
	if (a->argc == 2)
		return compare_traces(a);
	if (a->given[OPT_DEPTH] || a->given[OPT_FRAMES] || a->given[OPT_FOLDED])
		return cli_usage_error(a->cmd, "--depth, --frames and --folded compare two traces' "
		    "stacks: give two traces");
	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	capacity = target.capacity;
	how = (struct report_compare){ .capacity = capacity,
	    .by_memory = a->v[OPT_BY].choice == 1,
	    .time_bound = a->v[OPT_TIME_BOUND].ratio };
	rc = cli_policies(a, NULL, &pols);
	n = pols.n;
	jobs = gms_calloc(n ? n : 1, sizeof(*jobs));
	rows = gms_calloc(n ? n : 1, sizeof(*rows));
	watch = gms_calloc(n ? n : 1, sizeof(*watch));
	tlp = gms_calloc(n ? n : 1, sizeof(*tlp));
	labels = gms_calloc(n ? n : 1, sizeof(*labels));
	ats = gms_calloc(n ? n : 1, sizeof(*ats));
	if (rc != 0)
		goto out;
	/* --by-site reads the trace again: standard input is held for it */
	cli_trace_opts(a, &topts);
	if (by_site && trace_mem_worth(a->argv[0]) &&
	    (err = trace_mem_load(a->argv[0], &topts, &mem, &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		jobs[i].spec = (struct run_spec){ .path = a->argv[0], .mem = mem,
		    .policy = pols.ents[i].ops, .opts = pols.ents[i].opts,
		    .nopts = pols.ents[i].nopts };
		cli_run_spec(a, &target, &jobs[i].spec);
		run_watch(&watch[i], (timeline_path ? WATCH_TIMELINE : 0) |
		    (by_site ? WATCH_PEAK : 0), (size_t)a->v[OPT_POINTS].n, &jobs[i].spec);
		tlp[i] = &watch[i].tl;
		labels[i] = csv_label(pols.ents[i].label);
		/* every change: kept in a temporary file, not in memory */
		if (timeline_path != NULL && timeline_spill(&watch[i].tl) < 0) {
			cli_error("cannot make a temporary file: %s", strerror(errno));
			rc = EXIT_SYSTEM;
			goto out;
		}
		attrib_init(&ats[i]);
	}
	if ((rc = cli_run_rows(a, &target, &pols, jobs, n, threads, rows, &first)) != 0)
		goto out;
	trace = first->run.trace;
	peaks = by_site ? run_watch_peaks(watch, n) : NULL;
	if (by_site && (err = attrib_run_jobs(jobs, n, peaks, 0, ats, threads, &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(err);
		goto out;
	}
	if (timeline_path != NULL &&
	    (rc = write_timeline(timeline_path, a->argv[0], tlp, (const char *const *)labels, n)) != 0)
		goto out;
	if (json) {
		cJSON *o = report_compare_json(rows, n, trace, &how), *res, *sites;
		size_t k;

		res = cJSON_GetObjectItemCaseSensitive(o, "results");
		for (i = 0; by_site && i < n; i++) {
			cJSON *item = cJSON_GetArrayItem(res, (int)i);

			if (rows[i].err != 0 || !cJSON_HasObjectItem(item, "peak_reserved"))
				continue;	/* could not run, or needs a capacity */
			sites = cJSON_AddArrayToObject(item, "sites");
			for (k = 0; k < ats[i].n; k++)
				cJSON_AddItemToArray(sites, attrib_json(&ats[i].m[k], top));
		}
		cli_print_json(a, o);
	} else {
		size_t k;

		text = report_compare_text(rows, n, trace, &how);
		fputs(text, a->report);
		free(text);
		for (i = 0; by_site && i < n; i++) {
			for (k = 0; k < ats[i].n; k++) {
				text = attrib_text(&ats[i].m[k], top);
				fprintf(a->report, "\n%s: %s", rows[i].label, text);
				free(text);
			}
		}
	}
out:
	batch_free(jobs, n);
	for (i = 0; i < n; i++) {
		if (ats != NULL)
			attrib_free(&ats[i]);
		if (watch != NULL)
			run_watch_free(&watch[i]);
		if (labels != NULL)
			free(labels[i]);
	}
	free(watch);
	free(tlp);
	free(peaks);
	free(ats);
	free(cause);
	trace_mem_free(mem);
	free(labels);
	cli_policies_free(&pols);
	free(jobs);
	free(rows);
	return rc;
}
