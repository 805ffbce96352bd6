/*
 * entry-scale.c - `scale`'s entry (entries.h): the job at values of its size
 * nobody recorded, from the recordings at others (traces/scale.h builds the
 * traces, scaling.h runs them and searches the largest that fits), its
 * curve drawn, or the job at one value written as a trace.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "analysis/plot.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

static int
by_value(const void *a, const void *b)
{
	const struct scale_point *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* The values the curve shows: those asked (once each), or the recorded and 2, 4, 8 times the largest. */
static void
curve_values(const struct scale_request *rq, struct scale_model *m, struct scale_report *rep)
{
	size_t i, j, n = scale_nrecs(m), k = 0;
	uint64_t hi = scale_rec_at(m, n - 1)->value;

	if (rq->nvalues > 0) {
		rep->points = gms_calloc(rq->nvalues, sizeof(*rep->points));
		for (i = 0; i < rq->nvalues; i++) {
			for (j = 0; j < k && rep->points[j].value != rq->values[i]; j++)
				;
			if (j == k)
				rep->points[k++].value = rq->values[i];
		}
	} else {
		rep->points = gms_calloc(n + 3, sizeof(*rep->points));
		for (i = 0; i < n; i++)
			rep->points[k++].value = scale_rec_at(m, i)->value;
		for (i = 2; i <= 8; i *= 2)
			rep->points[k++].value = hi * i;
	}
	rep->npoints = k;
	qsort(rep->points, k, sizeof(*rep->points), by_value);
}

int
entry_scale_draw(const struct scale_request *rq, const struct scale_report *rep, char **cause)
{
	size_t i, k, n = rep->npoints, nrec = scale_nrecs(rep->model);
	uint64_t *v = gms_calloc(n + 1, sizeof(*v)), *res = gms_calloc(n + 1, sizeof(*res));
	uint64_t *al = gms_calloc(n + 1, sizeof(*al));
	int *rec = gms_calloc(n + 1, sizeof(*rec)), err;
	char *title;

	for (i = 0; i < n; i++) {
		v[i] = rep->points[i].value;
		res[i] = rep->points[i].peak_reserved;
		al[i] = rep->points[i].peak_allocated;
		for (k = 0; k < nrec; k++)
			rec[i] |= scale_rec_at(rep->model, k)->value == v[i];
	}
	title = gms_asprintf("gpumemsim scale: %s, %s", scale_rec_at(rep->model, nrec - 1)->path,
	    rep->policy);
	err = plot_scale(rq->plot, rq->plot_fd, title, v, res, al, rec, n, rep->capacity,
	    rep->searched && rep->found ? rep->fit.value : 0, cause);
	free(title);
	free(v);
	free(res);
	free(al);
	free(rec);
	return err;
}

int
entry_scale(const struct inputs *in, const struct scale_request *rq, struct scale_report *rep,
    char **cause)
{
	struct run_spec spec = entry_spec(&rq->policy, &rq->target);
	struct scale_model *m = in->model;

	memset(rep, 0, sizeof(*rep));
	spec.device = in->topts.device;
	spec.unknown_frees_warn = in->topts.unknown_frees_warn;
	spec.placement = RUN_PLACEMENT_MODEL;	/* the new run's addresses are nobody's */
	rep->model = m;
	rep->policy = rq->policy.label;
	rep->gpu = rq->target.gpu ? rq->target.gpu->name : NULL;
	curve_values(rq, m, rep);
	return scale_run(rep, &spec, (uint64_t)SCALE_EXTRAPOLATION_MAX *
	    scale_rec_at(m, scale_nrecs(m) - 1)->value, cause);
}

int
entry_scale_write(const struct inputs *in, uint64_t value, const char *path, char **cause)
{
	struct scale_built info;
	struct trace_writer *w = NULL;
	struct trace_mem *t = NULL;
	struct trace_event ev;
	size_t i;
	int err;

	if ((err = scale_build(in->model, value, &t, &info, cause)) < 0 ||
	    (err = trace_writer_open(path, in->files, in->nfiles, &w, cause)) < 0 ||
	    (err = trace_writer_header(w, trace_mem_header(t), cause)) < 0)
		goto out;
	for (i = 0; i < trace_mem_count(t); i++) {
		trace_mem_event(t, i, &ev);
		if ((err = trace_writer_event(w, &ev, cause)) < 0)
			goto out;
	}
	err = trace_writer_close(w, cause);
	w = NULL;
out:
	if (w != NULL)
		trace_writer_abort(w);
	trace_mem_free(t);
	return err;
}
