/*
 * cmd-report.c - `gpumemsim report TRACE -o report.html`: every policy (or
 * --policies) on a trace, written up as one self-contained HTML page: the
 * page's three passes over the trace are report_page_build's
 * (analysis/report-build.c), the page report_html's (analysis/report-html.c);
 * here, the command line, and the footer that repeats it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report-html.h"
#include "analysis/report.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"
#include "sim/progress.h"
#include "traces/tracemem.h"

/* The command line again, for the page's footer. */
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
	struct batch_job *jobs;
	struct report_page page = { 0 };
	struct report_rows_of of;
	struct cli_out out = { 0 };
	const char **labels = NULL;
	char *cause = NULL, *cmdline = NULL;
	size_t n = 0, i, points = a->given[OPT_POINTS] ? (size_t)a->v[OPT_POINTS].n : 1000;
	size_t top = a->given[OPT_TOP] ? (size_t)a->v[OPT_TOP].n : 10;
	int threads = a->given[OPT_JOBS] ? (int)a->v[OPT_JOBS].n : batch_default_threads();
	int rc, err;

	if (!a->given[OPT_OUTPUT])
		return cli_usage_error(a->cmd, "no output given (-o report.html)");
	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	if ((rc = cli_policies(a, NULL, &pols)) != 0)
		goto out;
	n = pols.n;
	cli_trace_opts(a, &topts);
	progress_phase("reading the trace");
	/* the trace is read three times: standard input, a pipe, a pickle are held */
	if (trace_mem_worth(a->argv[0]) &&
	    (err = trace_mem_load(a->argv[0], &topts, &mem, &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(err);
		goto out;
	}
	jobs = gms_calloc(n + 1, sizeof(*jobs));
	labels = gms_calloc(n + 1, sizeof(*labels));
	for (i = 0; i < n; i++) {
		jobs[i].spec = (struct run_spec){ .path = a->argv[0], .mem = mem,
		    .policy = pols.ents[i].ops, .opts = pols.ents[i].opts,
		    .nopts = pols.ents[i].nopts };
		cli_run_spec(a, &target, &jobs[i].spec);
		labels[i] = pols.ents[i].label;
	}
	of = (struct report_rows_of){ .path = a->argv[0], .gpu = target.gpu_name,
	    .capacity = target.capacity, .labels = labels };
	if ((err = report_page_build(jobs, n, &of, mem, &topts, points, top, threads, &page,
	    &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(err);
		goto out;
	}
	cmdline = command_line(a, &pols, &target);
	page.hr.title = a->given[OPT_TITLE] ? a->v[OPT_TITLE].s : NULL;
	page.hr.command = cmdline;
	progress_phase("writing the page");
	if ((rc = cli_out_open(a->v[OPT_OUTPUT].s, a->argv[0], &out)) != 0)
		goto out;
	if (report_html(out.f, &page.hr) < 0) {
		cli_error("cannot write '%s': %s", a->v[OPT_OUTPUT].s, strerror(errno));
		cli_out_close(&out, 0);
		rc = EXIT_SYSTEM;
		goto out;
	}
	rc = cli_out_close(&out, 1);
out:
	free(cause);
	free(cmdline);
	free(labels);
	report_page_free(&page);
	trace_mem_free(mem);
	cli_policies_free(&pols);
	return rc;
}
