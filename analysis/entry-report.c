/*
 * entry-report.c - `report`'s entry (entries.h): every policy on a trace,
 * written up as one self-contained HTML page (its three passes over the
 * trace: report-build.c; the page: report-html.c); with two traces the
 * second's page, compared with the first by call stack; with the ranks of a
 * job the worst rank's page, with a row for every rank, compared with the
 * least's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/gms.h"
#include "sim/progress.h"
#include "traces/tracemem.h"

/* One trace's page; shown: the page the report is (--at is its events'), not the one before. */
static int
build(const struct inputs *in, const struct report_request *rq, struct report_one *o,
    int shown, char **cause)
{
	struct batch_job *jobs;
	struct report_rows_of of;
	size_t n = rq->npols, i, nat = shown ? rq->nat : 0;
	int err;

	progress_phase("reading the trace");
	/* the trace is read three times: standard input, a pipe, a pickle are held */
	if (trace_mem_worth(o->path) &&
	    (err = trace_mem_load(o->path, &in->topts, &o->mem, cause)) < 0)
		return err;
	jobs = gms_calloc(n + 1, sizeof(*jobs));
	o->labels = gms_calloc(n + 1, sizeof(*o->labels));
	for (i = 0; i < n; i++) {
		jobs[i].spec = entry_spec(&rq->pols[i], &rq->target);
		jobs[i].spec.path = o->path;
		jobs[i].spec.mem = o->mem;
		jobs[i].spec.device = in->topts.device;
		jobs[i].spec.unknown_frees_warn = in->topts.unknown_frees_warn;
		o->labels[i] = rq->pols[i].label;
	}
	of = (struct report_rows_of){ .path = o->path, .capacity = rq->target.capacity,
	    .gpu = rq->target.gpu ? rq->target.gpu->name : NULL, .labels = o->labels,
	    .framework = in->framework };
	if ((err = report_page_build(jobs, n, &of, o->mem, &in->topts, rq->points, rq->top,
	    nat ? rq->at : NULL, nat, rq->threads, &o->page, cause)) < 0)
		return err;
	for (i = 0; i < nat; i++)
		if (rq->at[i] >= o->page.hr.res->events)
			return gms_fail(cause, GMS_EUSAGE, "--at %llu: '%s' has %llu events (0 to "
			    "%llu)", (unsigned long long)rq->at[i], o->path,
			    (unsigned long long)o->page.hr.res->events,
			    (unsigned long long)(o->page.hr.res->events ?
			    o->page.hr.res->events - 1 : 0));
	return 0;
}

/* Two traces: the first policy on each, what grew by stack (tracediff.h). */
static int
diff(const struct inputs *in, const struct report_request *rq, struct report_answer *ans,
    char **cause)
{
	struct run_spec specs[2];
	int i;

	progress_phase("what grew between the traces");
	for (i = 0; i < 2; i++) {
		specs[i] = entry_spec(&rq->pols[0], &rq->target);
		specs[i].path = ans->o[i].path;
		specs[i].mem = ans->o[i].mem;
		specs[i].device = in->topts.device;
		specs[i].unknown_frees_warn = in->topts.unknown_frees_warn;
	}
	return trace_diff_run(specs, NULL, 0, &ans->td, cause);
}

int
entry_report(const struct inputs *in, const struct report_request *rq,
    struct report_answer *ans, char **cause)
{
	const struct rank_set *set = &in->ranks;
	struct html_report *hr;
	int k, err;

	memset(ans, 0, sizeof(*ans));
	ans->rq = rq;
	ans->two = in->kind == INPUTS_PAIR;
	if (in->kind == INPUTS_RANKS) {
		struct run_spec tmpl = entry_spec(&rq->pols[0], &rq->target);

		tmpl.device = in->topts.device;
		tmpl.unknown_frees_warn = in->topts.unknown_frees_warn;
		progress_phase("every rank");
		if ((err = ranks_run(set, &tmpl, 0, 0, rq->threads, &ans->job, cause)) < 0)
			return err;
		/* the worst rank's page, compared with the least's */
		ans->two = ans->job.worst != ans->job.least;
		snprintf(ans->rname[0], sizeof(ans->rname[0]), "rank %d", set->f[ans->job.least].rank);
		snprintf(ans->rname[1], sizeof(ans->rname[1]), "rank %d", set->f[ans->job.worst].rank);
		ans->o[0].path = ans->two ? set->f[ans->job.least].path : set->f[ans->job.worst].path;
		ans->o[1].path = set->f[ans->job.worst].path;
	} else {
		ans->o[0].path = ans->two ? in->paths[0] : in->path;
		ans->o[1].path = in->path;
	}
	for (k = 0; k <= ans->two; k++)
		if ((err = build(in, rq, &ans->o[k], k == ans->two, cause)) < 0)
			return err;
	if (ans->two && (err = diff(in, rq, ans, cause)) < 0)
		return err;
	hr = &ans->o[ans->two].page.hr;
	hr->title = rq->title;
	hr->command = rq->command;
	if (ans->two) {
		hr->before = &ans->o[0].page.hr;
		hr->diff = &ans->td;
		hr->names[0] = in->kind == INPUTS_RANKS ? ans->rname[0] : in->paths[0];
		hr->names[1] = in->kind == INPUTS_RANKS ? ans->rname[1] : in->paths[1];
	}
	if (in->kind == INPUTS_RANKS)
		hr->ranks = &ans->job;
	progress_phase("writing the page");
	return 0;
}

int
entry_report_html(FILE *f, const struct report_answer *ans)
{
	return report_html(f, &ans->o[ans->two].page.hr);
}

void
entry_report_free(struct report_answer *ans)
{
	int k;

	if (ans->two)
		trace_diff_free(&ans->td);
	if (ans->job.jobs != NULL)
		ranks_job_free(&ans->job);
	for (k = 0; k < 2; k++) {
		report_page_free(&ans->o[k].page);
		trace_mem_free(ans->o[k].mem);
		free(ans->o[k].labels);
	}
	memset(ans, 0, sizeof(*ans));
}
