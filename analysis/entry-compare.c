/*
 * entry-compare.c - `compare`'s entry (entries.h): every policy on one
 * trace, side by side and run concurrently, with the winner and why (and
 * what holds each one's memory); two traces under one policy and what grew
 * between them by call stack; or each policy's worst rank of a job.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/gms.h"
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

/* Two traces under one policy: their runs, what grew by stack (a second pass each). */
static int
compare_pair(const struct inputs *in, struct compare_answer *ans, char **cause)
{
	const struct compare_request *rq = ans->rq;
	struct run_spec specs[2];
	int i, err;

	for (i = 0; i < 2; i++) {
		specs[i] = entry_spec(&rq->pols[0], &rq->target);
		specs[i].path = in->paths[i];
		specs[i].device = in->topts.device;
		specs[i].unknown_frees_warn = in->topts.unknown_frees_warn;
		specs[i].policy_as_recorded = rq->as_recorded;
		/* standard input is held for the second pass */
		if (trace_mem_worth(in->paths[i])) {
			if ((err = trace_mem_load(in->paths[i], &in->topts, &ans->mem[i], cause)) < 0)
				return err;
			specs[i].mem = ans->mem[i];
		}
	}
	ans->diffed = 1;
	return trace_diff_run(specs, rq->frames, rq->depth, &ans->td, cause);
}

/* The ranks of a job: each policy's runs of every rank. */
static int
compare_ranks(const struct inputs *in, struct compare_answer *ans, char **cause)
{
	const struct compare_request *rq = ans->rq;
	int err;

	ans->rrows = gms_calloc(rq->npols + 1, sizeof(*ans->rrows));
	for (ans->n = 0; ans->n < rq->npols; ans->n++) {
		struct run_spec tmpl = entry_spec(&rq->pols[ans->n], &rq->target);
		struct ranks_row *r = &ans->rrows[ans->n];

		tmpl.device = in->topts.device;
		tmpl.unknown_frees_warn = in->topts.unknown_frees_warn;
		r->label = rq->pols[ans->n].label;
		/* a policy the job's recordings cannot run (options it lacks) is a row
		   that says why, as compare says it of one trace */
		if ((err = ranks_run(&in->ranks, &tmpl, 0, 0, rq->threads, &r->job,
		    &r->not_run)) < 0 && err != GMS_ECONFIG) {
			*cause = r->not_run;
			r->not_run = NULL;
			ans->n++;
			return err;
		}
	}
	return 0;
}

int
entry_compare(const struct inputs *in, const struct compare_request *rq,
    struct compare_answer *ans, char **cause)
{
	size_t n = rq->npols, i;
	int err;

	memset(ans, 0, sizeof(*ans));
	ans->rq = rq;
	ans->in = in;
	if (in->kind == INPUTS_PAIR)
		return compare_pair(in, ans, cause);
	if (in->kind == INPUTS_RANKS)
		return compare_ranks(in, ans, cause);
	ans->n = n;
	ans->jobs = gms_calloc(n + 1, sizeof(*ans->jobs));
	ans->rows = gms_calloc(n + 1, sizeof(*ans->rows));
	ans->watch = gms_calloc(n + 1, sizeof(*ans->watch));
	ans->tls = gms_calloc(n + 1, sizeof(*ans->tls));
	ans->labels = gms_calloc(n + 1, sizeof(*ans->labels));
	ans->ats = gms_calloc(n + 1, sizeof(*ans->ats));
	for (i = 0; i < n; i++)
		attrib_init(&ans->ats[i]);
	/* --by-site reads the trace again: standard input is held for it */
	if (rq->by_site && trace_mem_worth(in->path) &&
	    (err = trace_mem_load(in->path, &in->topts, &ans->held, cause)) < 0)
		return err;
	for (i = 0; i < n; i++) {
		struct run_spec *spec = &ans->jobs[i].spec;

		*spec = entry_spec(&rq->pols[i], &rq->target);
		spec->path = in->path;
		spec->mem = ans->held;
		spec->device = in->topts.device;
		spec->unknown_frees_warn = in->topts.unknown_frees_warn;
		run_watch(&ans->watch[i], (rq->timeline ? WATCH_TIMELINE : 0) |
		    (rq->by_site ? WATCH_PEAK : 0), rq->points, spec);
		ans->tls[i] = &ans->watch[i].tl;
		ans->labels[i] = csv_label(rq->pols[i].label);
		/* every change: kept in a temporary file, not in memory */
		if (rq->timeline && timeline_spill(&ans->watch[i].tl) < 0)
			return gms_fail(cause, GMS_EIO, "cannot make a temporary file: %s",
			    strerror(errno));
	}
	{
		const char **labels = gms_calloc(n + 1, sizeof(*labels));
		struct report_rows_of of = { .path = in->path, .capacity = rq->target.capacity,
		    .gpu = rq->target.gpu ? rq->target.gpu->name : NULL, .labels = labels };

		for (i = 0; i < n; i++)
			labels[i] = rq->pols[i].label;
		err = report_rows_run(ans->jobs, n, rq->threads, &of, ans->rows, &ans->first,
		    cause);
		free(labels);
		if (err < 0)
			return err;
	}
	if (!rq->by_site)
		return 0;
	ans->peaks = run_watch_peaks(ans->watch, n);
	return attrib_run_jobs(ans->jobs, n, ans->peaks, 0, ans->ats, rq->threads, cause);
}

char *
entry_compare_text(const struct compare_answer *ans)
{
	const struct compare_request *rq = ans->rq;
	const char *names[2] = { ans->in->paths[0], ans->in->paths[1] };
	char *text = NULL, *part;
	size_t len = 0, i, k;
	FILE *f;

	if (ans->rrows != NULL)
		return ranks_compare_text(ans->rrows, ans->n);
	if (ans->diffed && !rq->folded)
		return trace_diff_text(&ans->td, names, rq->top);
	if ((f = open_memstream(&text, &len)) == NULL)
		return NULL;
	if (ans->diffed) {
		stack_diff_folded(f, &ans->td.d);
		fclose(f);
		return text;
	}
	part = report_compare_text(ans->rows, ans->n, ans->first->run.trace, &rq->how);
	fputs(part, f);
	free(part);
	for (i = 0; rq->by_site && i < ans->n; i++)
		for (k = 0; k < ans->ats[i].n; k++) {
			part = attrib_text(&ans->ats[i].m[k], rq->top);
			fprintf(f, "\n%s: %s", ans->rows[i].label, part);
			free(part);
		}
	fclose(f);
	return text;
}

cJSON *
entry_compare_json(const struct compare_answer *ans)
{
	const struct compare_request *rq = ans->rq;
	const char *names[2] = { ans->in->paths[0], ans->in->paths[1] };
	cJSON *o, *res, *sites;
	size_t i, k;

	if (ans->rrows != NULL)
		return ranks_compare_json(ans->rrows, ans->n);
	if (ans->diffed)
		return trace_diff_json(&ans->td, names, rq->top);
	o = report_compare_json(ans->rows, ans->n, ans->first->run.trace, &rq->how);
	res = cJSON_GetObjectItemCaseSensitive(o, "results");
	for (i = 0; rq->by_site && i < ans->n; i++) {
		cJSON *item = cJSON_GetArrayItem(res, (int)i);

		if (ans->rows[i].err != 0 || !cJSON_HasObjectItem(item, "peak_reserved"))
			continue;	/* could not run, or needs a capacity */
		sites = cJSON_AddArrayToObject(item, "sites");
		for (k = 0; k < ans->ats[i].n; k++)
			cJSON_AddItemToArray(sites, attrib_json(&ans->ats[i].m[k], rq->top));
	}
	return o;
}

void
entry_compare_free(struct compare_answer *ans)
{
	size_t i;

	if (ans->jobs != NULL)
		batch_free(ans->jobs, ans->n);
	for (i = 0; ans->rrows == NULL && i < ans->n; i++) {
		attrib_free(&ans->ats[i]);
		run_watch_free(&ans->watch[i]);
		free(ans->labels[i]);
	}
	for (i = 0; ans->rrows != NULL && i < ans->n; i++) {
		if (ans->rrows[i].job.set != NULL)
			ranks_job_free(&ans->rrows[i].job);
		free(ans->rrows[i].not_run);
	}
	free(ans->rrows);
	free(ans->jobs);
	free(ans->rows);
	free(ans->watch);
	free(ans->tls);
	free(ans->labels);
	free(ans->ats);
	free(ans->peaks);
	trace_mem_free(ans->held);
	if (ans->diffed)
		trace_diff_free(&ans->td);
	for (i = 0; i < 2; i++)
		trace_mem_free(ans->mem[i]);
	memset(ans, 0, sizeof(*ans));
}
