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

#include "analysis/ranks.h"
#include "analysis/report-html.h"
#include "analysis/report.h"
#include "analysis/tracediff.h"
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
	char *s = a->given[OPT_RANKS] ? gms_asprintf("gpumemsim report --ranks %s%s",
	    a->argv[0], a->argc > 1 ? " ..." : "") : a->argc == 2 ?
	    gms_asprintf("gpumemsim report %s %s", a->argv[0], a->argv[1]) :
	    gms_asprintf("gpumemsim report %s", a->argv[0]), *n;
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

/* What one trace's page is made of, and what it holds. */
struct one {
	const char *path;
	struct trace_mem *mem;
	const char **labels;
	struct report_page page;
};

static int
build(struct cli_args *a, const struct cli_policies *pols, const struct cli_target *target,
    const struct trace_opts *topts, const uint64_t *at, size_t nat, struct one *o)
{
	struct batch_job *jobs;
	struct report_rows_of of;
	size_t n = pols->n, i, points = (size_t)a->v[OPT_POINTS].n;
	size_t top = (size_t)a->v[OPT_TOP].n;
	int threads = (int)a->v[OPT_JOBS].n;
	char *cause = NULL;
	int err;

	progress_phase("reading the trace");
	/* the trace is read three times: standard input, a pipe, a pickle are held */
	if (trace_mem_worth(o->path) &&
	    (err = trace_mem_load(o->path, topts, &o->mem, &cause)) < 0)
		goto fail;
	jobs = gms_calloc(n + 1, sizeof(*jobs));
	o->labels = gms_calloc(n + 1, sizeof(*o->labels));
	for (i = 0; i < n; i++) {
		jobs[i].spec = (struct run_spec){ .path = o->path, .mem = o->mem,
		    .policy = pols->ents[i].ops, .opts = pols->ents[i].opts,
		    .nopts = pols->ents[i].nopts };
		cli_run_spec(a, target, &jobs[i].spec);
		o->labels[i] = pols->ents[i].label;
	}
	of = (struct report_rows_of){ .path = o->path, .gpu = target->gpu_name,
	    .capacity = target->capacity, .labels = o->labels };
	if ((err = report_page_build(jobs, n, &of, o->mem, topts, points, top, at, nat, threads,
	    &o->page, &cause)) < 0)
		goto fail;
	for (i = 0; i < nat; i++)
		if (at[i] >= o->page.hr.res->events) {
			cli_error("--at %llu: '%s' has %llu events (0 to %llu)",
			    (unsigned long long)at[i], o->path,
			    (unsigned long long)o->page.hr.res->events,
			    (unsigned long long)(o->page.hr.res->events ?
			    o->page.hr.res->events - 1 : 0));
			return EXIT_USAGE;
		}
	return 0;
fail:
	return cli_fail(err, cause);
}

static void
one_free(struct one *o)
{
	report_page_free(&o->page);
	trace_mem_free(o->mem);
	free(o->labels);
}

/* Two traces: the first policy on each, what grew by stack (tracediff.h). */
static int
diff(struct cli_args *a, const struct cli_policies *pols, const struct cli_target *target,
    struct one *o, struct trace_diff *td)
{
	struct run_spec specs[2];
	char *cause = NULL;
	int i, err;

	progress_phase("what grew between the traces");
	for (i = 0; i < 2; i++) {
		specs[i] = (struct run_spec){ .path = o[i].path, .mem = o[i].mem,
		    .policy = pols->ents[0].ops, .opts = pols->ents[0].opts,
		    .nopts = pols->ents[0].nopts };
		cli_run_spec(a, target, &specs[i]);
	}
	if ((err = trace_diff_run(specs, NULL, 0, td, &cause)) < 0)
		return cli_fail(err, cause);
	return 0;
}

int
cmd_report(struct cli_args *a)
{
	struct cli_policies pols = { 0 };
	struct cli_target target;
	struct trace_opts topts;
	struct trace_diff td;
	struct one o[2];
	struct cli_out out = { 0 };
	uint64_t at[ATTRIB_AT_MAX];
	size_t nat = (size_t)a->given[OPT_AT], i;
	char *cmdline = NULL, *cause = NULL, rname[2][32];
	const char *paths[2];
	struct rank_set set = { 0 };
	struct ranks_job job = { 0 };
	int threads = (int)a->v[OPT_JOBS].n;
	int two = a->argc == 2 && !a->given[OPT_RANKS], rc, k, ranked = 0;

	memset(o, 0, sizeof(o));
	memset(&td, 0, sizeof(td));
	if (!a->given[OPT_OUTPUT])
		return cli_usage_error(a->cmd, "no output given (-o report.html)");
	if (nat > ATTRIB_AT_MAX)
		return cli_usage_error(a->cmd, "give --at %d times at most", ATTRIB_AT_MAX);
	for (i = 0; i < nat; i++)
		at[i] = strtoull(a->all[OPT_AT][i], NULL, 10);
	if (two && strcmp(a->argv[0], "-") == 0 && strcmp(a->argv[1], "-") == 0)
		return cli_usage_error(a->cmd, "standard input can be one of the traces, not both");
	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	if ((rc = cli_policies(a, NULL, &pols)) != 0)
		goto out;
	cli_trace_opts(a, &topts);
	if (a->given[OPT_RANKS]) {
		struct run_spec tmpl = { .policy = pols.ents[0].ops, .opts = pols.ents[0].opts,
		    .nopts = pols.ents[0].nopts };
		int err;

		cli_run_spec(a, &target, &tmpl);
		progress_phase("every rank");
		if ((err = ranks_collect(a->argv, a->argc, &set, &cause)) < 0 ||
		    (err = ranks_run(&set, &tmpl, 0, 0, threads, &job, &cause)) < 0) {
			rc = cli_fail(err, cause);
			goto out;
		}
		ranked = 1;
		/* the worst rank's page, compared with the least's */
		two = job.worst != job.least;
		snprintf(rname[0], sizeof(rname[0]), "rank %d", set.f[job.least].rank);
		snprintf(rname[1], sizeof(rname[1]), "rank %d", set.f[job.worst].rank);
		paths[0] = two ? set.f[job.least].path : set.f[job.worst].path;
		paths[1] = set.f[job.worst].path;
	} else {
		paths[0] = a->argv[0];
		paths[1] = two ? a->argv[1] : NULL;
	}
	/* the page is the last trace's; the first, before it, is compared with it */
	for (k = 0; k <= two; k++) {
		o[k].path = paths[k];
		if ((rc = build(a, &pols, &target, &topts, at, nat, &o[k])) != 0)
			goto out;
	}
	if (two && (rc = diff(a, &pols, &target, o, &td)) != 0)
		goto out;
	cmdline = command_line(a, &pols, &target);
	o[two].page.hr.title = a->given[OPT_TITLE] ? a->v[OPT_TITLE].s : NULL;
	o[two].page.hr.command = cmdline;
	if (two) {
		o[two].page.hr.before = &o[0].page.hr;
		o[two].page.hr.diff = &td;
		o[two].page.hr.names[0] = ranked ? rname[0] : a->argv[0];
		o[two].page.hr.names[1] = ranked ? rname[1] : a->argv[1];
	}
	if (ranked)
		o[two].page.hr.ranks = &job;
	progress_phase("writing the page");
	if ((rc = cli_out_open_n(a->v[OPT_OUTPUT].s, (const char *const *)a->argv,
	    (size_t)a->argc, &out)) != 0)
		goto out;
	if (report_html(out.f, &o[two].page.hr) < 0) {
		cli_error("cannot write '%s': %s", a->v[OPT_OUTPUT].s, strerror(errno));
		cli_out_close(&out, 0);
		rc = EXIT_SYSTEM;
		goto out;
	}
	rc = cli_out_close(&out, 1);
out:
	free(cmdline);
	if (two)
		trace_diff_free(&td);
	if (job.jobs != NULL)
		ranks_job_free(&job);
	ranks_free(&set);
	for (k = 0; k < 2; k++)
		one_free(&o[k]);
	cli_policies_free(&pols);
	return rc;
}
