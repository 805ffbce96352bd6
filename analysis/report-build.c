/*
 * report-build.c - a batch of policy runs made into report rows, and the
 * report page's three passes over the trace (report.h, report-html.h): the
 * library entries behind compare and report.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/report-html.h"
#include "analysis/report.h"
#include "sim/batch.h"
#include "sim/gms.h"
#include "sim/progress.h"
#include "traces/tracemem.h"

int
report_rows_run(struct batch_job *jobs, size_t n, int threads,
    const struct report_rows_of *of, struct report_row *rows,
    const struct report_row **first, char **cause)
{
	size_t i;

	*first = NULL;
	if (n > 0 && jobs[0].spec.mem != NULL)
		batch_run(jobs, n, threads);
	else
		batch_run_shared(jobs, n, threads);
	for (i = 0; i < n; i++) {
		/* a broken trace breaks every run: said once */
		if (jobs[i].err == GMS_ETRACE || jobs[i].err == GMS_EIO)
			return gms_fail(cause, jobs[i].err, "%s", jobs[i].cause);
		rows[i].label = jobs[i].out.label ? jobs[i].out.label : of->labels[i];
		rows[i].err = jobs[i].err;
		rows[i].cause = jobs[i].cause;
		if (jobs[i].err != 0)
			continue;
		rows[i].run = (struct report_run){ .trace = jobs[i].out.hdr->name,
		    .path = of->path, .gpu = of->gpu, .policy = jobs[i].spec.policy->name,
		    .ops = jobs[i].spec.policy,
		    .opts = jobs[i].out.opts ? jobs[i].out.opts : jobs[i].spec.opts,
		    .nopts = jobs[i].out.opts ? jobs[i].out.nopts : jobs[i].spec.nopts,
		    .recorded_conf = jobs[i].out.recorded_conf,
		    .as_recorded = jobs[i].out.as_recorded,
		    .placement = run_placement_name(jobs[i].out.placement),
		    .capacity = of->capacity, .hdr = jobs[i].out.hdr, .res = &jobs[i].out.res };
		if (*first == NULL)
			*first = &rows[i];
	}
	if (*first == NULL)
		return gms_fail(cause, GMS_ECONFIG, "no policy could run: %s",
		    n ? jobs[0].cause : "none named");
	return 0;
}

/* The events attrib_run_jobs will replay: each policy's to its last moment. */
static uint64_t
moments_events(const struct batch_job *jobs, const struct run_watch *w, size_t n)
{
	uint64_t sum = 0, last;
	size_t i;

	for (i = 0; i < n; i++) {
		if (jobs[i].err != 0 || (!w[i].peak.seen && !jobs[i].out.res.oomed))
			continue;
		last = w[i].peak.seen ? w[i].peak.event : 0;
		if (jobs[i].out.res.oomed)
			last = GMS_MAX(last, jobs[i].out.res.oom.event);
		sum += last + 1;
	}
	return sum;
}

int
report_page_build(struct batch_job *jobs, size_t n, const struct report_rows_of *of,
    const struct trace_mem *mem, const struct trace_opts *topts, size_t points, size_t top,
    const uint64_t *at, size_t nat, int threads, struct report_page *p, char **cause)
{
	struct attrib_peak *peaks;
	const struct report_row *first = NULL;
	const struct sim_result *whole;
	struct report_compare how;
	size_t i, k;
	int err;

	memset(p, 0, sizeof(*p));
	p->jobs = jobs;
	p->n = n;
	p->rows = gms_calloc(n + 1, sizeof(*p->rows));
	p->watch = gms_calloc(n + 1, sizeof(*p->watch));
	p->ats = gms_calloc(n + 1, sizeof(*p->ats));
	p->hp = gms_calloc(n + 1, sizeof(*p->hp));
	attrib_init(&p->first_live);
	attrib_init(&p->live);
	attrib_want_stacks(&p->live);
	for (i = 0; i < n; i++) {
		size_t j;

		run_watch(&p->watch[i], WATCH_TIMELINE | WATCH_PEAK | WATCH_SEGMENTS,
		    REPORT_FINEST(points), &jobs[i].spec);
		attrib_init(&p->ats[i]);
		attrib_want_stacks(&p->ats[i]);
		for (j = 0; j < nat; j++)
			attrib_at(&p->ats[i], at[j]);
	}

	/* 1. the policies side by side */
	progress_phase("the policies side by side");
	if ((err = report_rows_run(jobs, n, threads, of, p->rows, &first, cause)) < 0)
		return err;
	whole = first->run.res;
	/* the events to come: each policy again to its peak and OOM, then the
	   trace alone to its live peak and whole (its walks count too) */
	progress_expect_left(moments_events(jobs, p->watch, n) +
	    (whole->peak_live > 0 ? whole->peak_live_event + 1 + whole->events : 0));

	/* 2. each policy to its peak and OOM */
	progress_phase("what holds the memory at each peak");
	peaks = run_watch_peaks(p->watch, n);
	err = attrib_run_jobs(jobs, n, peaks, 1, p->ats, threads, cause);
	free(peaks);
	if (err < 0)
		return err;

	/* 3. the trace alone: its live peak's largest sites, then those over time */
	progress_phase("the live bytes by site");
	if (whole->peak_live > 0) {
		attrib_add(&p->first_live, "live_peak", "live peak", whole->peak_live_event, 0, 0);
		if ((err = attrib_walk(of->path, mem, topts, &p->first_live, cause)) < 0)
			return err;
		for (k = 0; k < REPORT_STACK_SITES && k < p->first_live.m[0].nrows; k++)
			p->names[k] = p->first_live.m[0].rows[k].site;
		attrib_add(&p->live, "live_peak", "live peak", whole->peak_live_event, 0, 0);
		attrib_stack(&p->live, p->names, k, whole->events, REPORT_FINEST(points));
		if ((err = attrib_walk(of->path, mem, topts, &p->live, cause)) < 0)
			return err;
	}

	for (i = 0; i < n; i++)
		p->hp[i] = (struct html_policy){ .row = &p->rows[i], .tl = &p->watch[i].tl,
		    .at = &p->ats[i], .segs = &p->watch[i].segs };
	how = (struct report_compare){ .capacity = of->capacity, .time_bound = 1.0,
	    .framework = of->framework };
	p->hr = (struct html_report){ .hdr = first->run.hdr, .res = whole,
	    .capacity = of->capacity, .gpu = of->gpu, .pols = p->hp, .n = n, .live = &p->live,
	    .top = top, .points = points };
	p->hr.winner = report_winner(p->rows, n, &how, &p->why);
	p->hr.why = p->why;
	return 0;
}

void
report_page_free(struct report_page *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (p->watch != NULL)
			run_watch_free(&p->watch[i]);
		if (p->ats != NULL)
			attrib_free(&p->ats[i]);
	}
	if (p->jobs != NULL)
		batch_free(p->jobs, p->n);
	attrib_free(&p->live);
	attrib_free(&p->first_live);
	free(p->jobs);
	free(p->rows);
	free(p->watch);
	free(p->ats);
	free(p->hp);
	free(p->why);
	memset(p, 0, sizeof(*p));
}
