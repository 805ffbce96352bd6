/*
 * cmd-report.c - `gpumemsim report TRACE -o report.html`: every policy (or
 * --policies) on a trace, written up as one self-contained HTML page
 * (analysis/report-html.c).  Three passes over the trace: the policies side
 * by side (each one's envelope and peak), each policy again to its peak and
 * OOM (what holds the memory there, and its blocks), and the trace alone
 * (its live peak's sites, then the live bytes of the largest of them over
 * time).  Standard input is held in memory to be read three times.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "analysis/report-html.h"
#include "analysis/report.h"
#include "analysis/timeline.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"
#include "sim/progress.h"
#include "traces/tracemem.h"

#define STACK_SITES 6

/* The command line again, for the page's footer. */
/*
 * The events the policies that ran have replayed (events each), and those
 * attrib_run_jobs will: each policy's to its last moment.
 */
static uint64_t
moments_events(const struct batch_job *jobs, const struct attrib_peak *peaks, size_t n,
    uint64_t events)
{
	uint64_t sum = 0, last;
	size_t i;

	for (i = 0; i < n; i++) {
		if (jobs[i].err != 0)
			continue;
		sum += events;
		if (!peaks[i].seen && !jobs[i].out.res.oomed)
			continue;
		last = peaks[i].seen ? peaks[i].event : 0;
		if (jobs[i].out.res.oomed)
			last = GMS_MAX(last, jobs[i].out.res.oom.event);
		sum += last + 1;
	}
	return sum;
}

static char *
command_line(const struct cli_args *a, const struct cli_policies *pols,
    const struct cli_target *t)
{
	char *s = gms_asprintf("gpumemsim report %s", a->argv[0]), *n;
	size_t i;

	for (i = 0; i < pols->n; i++) {
		n = gms_asprintf("%s %s%s", s, i ? "" : "--policies=", pols->ents[i].label);
		free(s);
		s = n;
		if (i + 1 < pols->n) {
			n = gms_asprintf("%s,", s);
			free(s);
			s = n;
		}
	}
	/* the list reads as one argument */
	for (n = strstr(s, "--policies="); n != NULL && (n = strstr(n, ", ")) != NULL;)
		memmove(n + 1, n + 2, strlen(n + 2) + 1);
	if (t->gpu_name != NULL)
		n = gms_asprintf("%s --gpu=%s", s, t->gpu_name);
	else if (t->capacity != 0)
		n = gms_asprintf("%s --capacity=%lluB", s, (unsigned long long)t->capacity);
	else
		n = gms_strdup(s);
	free(s);
	return n;
}

int
cmd_report(struct cli_args *a)
{
	struct cli_policies pols = { 0 };
	struct cli_target target;
	struct trace_opts topts;
	struct trace_mem *mem = NULL;
	struct batch_job *jobs = NULL;
	struct report_row *rows = NULL;
	struct timeline *tls = NULL;
	struct attrib_peak *peaks = NULL;
	struct attrib *ats = NULL, first_live, live;
	struct html_policy *hp = NULL;
	struct report_compare how;
	struct html_report hr;
	struct cli_out out = { 0 };
	const struct sim_result *whole = NULL;
	const struct report_row *first = NULL;
	const char *names[STACK_SITES];
	char *why = NULL, *cause = NULL, *cmdline = NULL;
	size_t n = 0, i, points = a->given[OPT_POINTS] ? (size_t)a->v[OPT_POINTS].n : 1000;
	size_t top = a->given[OPT_TOP] ? (size_t)a->v[OPT_TOP].n : 10;
	int threads = a->given[OPT_JOBS] ? (int)a->v[OPT_JOBS].n : batch_default_threads();
	int rc, err;

	attrib_init(&first_live);
	attrib_init(&live);
	if (!a->given[OPT_OUTPUT])
		return cli_usage_error(a->cmd, "no output given (-o report.html)");
	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	if ((rc = cli_policies(a, NULL, &pols)) != 0)
		goto out;
	n = pols.n;
	cli_trace_opts(a, &topts);
	progress_phase("reading the trace");
	if (trace_mem_worth(a->argv[0]) &&
	    (err = trace_mem_load(a->argv[0], &topts, &mem, &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(err);
		goto out;
	}

	/* 1. the policies side by side */
	jobs = gms_calloc(n, sizeof(*jobs));
	rows = gms_calloc(n, sizeof(*rows));
	tls = gms_calloc(n, sizeof(*tls));
	peaks = gms_calloc(n, sizeof(*peaks));
	ats = gms_calloc(n, sizeof(*ats));
	hp = gms_calloc(n, sizeof(*hp));
	for (i = 0; i < n; i++) {
		jobs[i].spec = (struct run_spec){ .path = a->argv[0], .mem = mem,
		    .policy = pols.ents[i].ops, .opts = pols.ents[i].opts,
		    .nopts = pols.ents[i].nopts };
		cli_run_spec(a, &target, &jobs[i].spec);
		timeline_init(&tls[i], points);
		peaks[i].next = timeline_sample;
		peaks[i].next_arg = &tls[i];
		jobs[i].spec.sampler = attrib_peak_sample;
		jobs[i].spec.sampler_arg = &peaks[i];
		attrib_init(&ats[i]);
	}
	progress_phase("the policies side by side");
	if ((rc = cli_run_rows(a, &target, &pols, jobs, n, threads, rows, &first)) != 0)
		goto out;
	whole = first->run.res;
	/* the events so far and to come (each policy again to its peak and OOM) */
	progress_expect(moments_events(jobs, peaks, n, whole->events));
	how = (struct report_compare){ .capacity = target.capacity, .time_bound = 1.0 };

	/* 2. each policy to its peak and OOM */
	progress_phase("what holds the memory at each peak");
	if ((err = attrib_run_jobs(jobs, n, peaks, 1, ats, threads, &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(err);
		goto out;
	}

	/* 3. the trace alone: its live peak's largest sites, then those over time */
	progress_phase("the live bytes by site");
	if (whole->peak_live > 0) {
		size_t k;

		attrib_add(&first_live, "live_peak", "live peak", whole->peak_live_event, 0, 0);
		if ((err = attrib_walk(a->argv[0], mem, &topts, &first_live, &cause)) < 0) {
			cli_error("%s", cause);
			rc = gms_exit_code(err);
			goto out;
		}
		for (k = 0; k < STACK_SITES && k < first_live.m[0].nrows; k++)
			names[k] = first_live.m[0].rows[k].site;
		attrib_add(&live, "live_peak", "live peak", whole->peak_live_event, 0, 0);
		attrib_stack(&live, names, k, whole->events, points);
		if ((err = attrib_walk(a->argv[0], mem, &topts, &live, &cause)) < 0) {
			cli_error("%s", cause);
			rc = gms_exit_code(err);
			goto out;
		}
	}

	for (i = 0; i < n; i++)
		hp[i] = (struct html_policy){ .row = &rows[i], .tl = &tls[i], .at = &ats[i] };
	cmdline = command_line(a, &pols, &target);
	hr = (struct html_report){ .title = a->given[OPT_TITLE] ? a->v[OPT_TITLE].s : NULL,
	    .command = cmdline, .hdr = first->run.hdr, .res = whole,
	    .capacity = target.capacity, .gpu = target.gpu_name, .pols = hp, .n = n,
	    .live = &live, .top = top };
	hr.winner = report_winner(rows, n, &how, &why);
	hr.why = why;
	progress_phase("writing the page");
	if ((rc = cli_out_open(a->v[OPT_OUTPUT].s, a->argv[0], &out)) != 0)
		goto out;
	if (report_html(out.f, &hr) < 0) {
		cli_error("cannot write '%s': %s", a->v[OPT_OUTPUT].s, strerror(errno));
		cli_out_close(&out, 0);
		rc = EXIT_SYSTEM;
		goto out;
	}
	rc = cli_out_close(&out, 1);
out:
	free(cause);
	free(why);
	free(cmdline);
	for (i = 0; i < n; i++) {
		if (tls != NULL)
			timeline_free(&tls[i]);
		if (ats != NULL)
			attrib_free(&ats[i]);
	}
	batch_free(jobs, jobs ? n : 0);
	attrib_free(&first_live);
	attrib_free(&live);
	trace_mem_free(mem);
	cli_policies_free(&pols);
	free(jobs);
	free(rows);
	free(tls);
	free(peaks);
	free(ats);
	free(hp);
	return rc;
}
