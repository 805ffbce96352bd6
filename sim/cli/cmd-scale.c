/*
 * cmd-scale.c - `gpumemsim scale --at V1 T1 --at V2 T2 ...`: the job at
 * values of its size nobody recorded (sim/scale.h builds the traces,
 * analysis/scaling.h runs them and searches the largest that fits).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plot.h"
#include "analysis/scaling.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/scale.h"
#include "traces/tracemem.h"

static int
by_value(const void *a, const void *b)
{
	const struct scale_point *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* The values the curve shows: those asked, or the recorded and 2, 4, 8 times the largest. */
static void
curve_values(const struct cli_args *a, struct scale_model *m, struct scale_report *rep)
{
	size_t i, n = scale_nrecs(m), k = 0;
	uint64_t hi = scale_rec_at(m, n - 1)->value;

	if (a->given[OPT_VALUE]) {
		rep->points = gms_calloc((size_t)a->given[OPT_VALUE], sizeof(*rep->points));
		for (i = 0; i < (size_t)a->given[OPT_VALUE]; i++) {
			uint64_t v = strtoull(a->all[OPT_VALUE][i], NULL, 10);
			size_t j;

			for (j = 0; j < k && rep->points[j].value != v; j++)
				;
			if (j == k)
				rep->points[k++].value = v;
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

/* Write the trace built at the one --value. */
static int
write_built(const struct cli_args *a, struct scale_model *m, const char *path)
{
	struct scale_built info;
	struct trace_writer *w = NULL;
	struct trace_mem *t = NULL;
	struct trace_event ev;
	char *cause = NULL;
	const char **inputs = (const char **)a->argv;
	size_t i;
	int rc;

	if ((rc = scale_build(m, strtoull(a->all[OPT_VALUE][0], NULL, 10), &t, &info, &cause)) < 0 ||
	    (rc = trace_writer_open(path, inputs, (size_t)a->argc, &w, &cause)) < 0)
		goto fail;
	if ((rc = trace_writer_header(w, trace_mem_header(t), &cause)) < 0)
		goto fail;
	for (i = 0; i < trace_mem_count(t); i++) {
		trace_mem_event(t, i, &ev);
		if ((rc = trace_writer_event(w, &ev, &cause)) < 0)
			goto fail;
	}
	rc = trace_writer_close(w, &cause);
	w = NULL;
	if (rc < 0)
		goto fail;
	trace_mem_free(t);
	return 0;
fail:
	if (w != NULL)
		trace_writer_abort(w);
	trace_mem_free(t);
	cli_error("%s", cause);
	free(cause);
	return gms_exit_code(rc);
}

/* --plot: the curve, opened before the runs (a bad name costs nothing), drawn after. */
static int
draw(const char *out, struct outfile *of, const struct scale_report *rep)
{
	size_t i, k, n = rep->npoints, nrec = scale_nrecs(rep->model);
	uint64_t *v = gms_calloc(n + 1, sizeof(*v)), *res = gms_calloc(n + 1, sizeof(*res));
	uint64_t *al = gms_calloc(n + 1, sizeof(*al));
	int *rec = gms_calloc(n + 1, sizeof(*rec)), err;
	char *cause = NULL, *title;

	for (i = 0; i < n; i++) {
		v[i] = rep->points[i].value;
		res[i] = rep->points[i].peak_reserved;
		al[i] = rep->points[i].peak_allocated;
		for (k = 0; k < nrec; k++)
			rec[i] |= scale_rec_at(rep->model, k)->value == v[i];
	}
	title = gms_asprintf("gpumemsim scale: %s, %s", scale_rec_at(rep->model, nrec - 1)->path,
	    rep->policy);
	err = plot_scale(out, of->fd, title, v, res, al, rec, n, rep->capacity,
	    rep->searched && rep->found ? rep->fit.value : 0, &cause);
	if (err == 0)
		err = outfile_commit(of, &cause);
	else
		outfile_abort(of);
	if (err < 0)
		cli_error("--plot: %s", cause);
	free(cause);
	free(title);
	free(v);
	free(res);
	free(al);
	free(rec);
	return err < 0 ? gms_exit_code(err) : 0;
}

int
cmd_scale(struct cli_args *a)
{
	struct scale_rec *recs = gms_calloc((size_t)a->argc, sizeof(*recs));
	struct scale_report rep = { 0 };
	struct cli_policies pols = { 0 };
	struct cli_target target;
	struct run_spec spec = { 0 };
	struct trace_opts topts;
	struct scale_model *m = NULL;
	char *cause = NULL;
	const char *out = a->given[OPT_OUTPUT] ? a->v[OPT_OUTPUT].s : NULL;
	const char *plot = a->given[OPT_PLOT] ? a->v[OPT_PLOT].s : NULL;
	struct outfile pof;
	int i, rc, err = 0, plotting = 0;

	if (a->given[OPT_AT] != a->argc) {
		rc = cli_usage_error(a->cmd, "give each trace its value: --at VALUE TRACE (%d "
		    "traces, %d --at)", a->argc, a->given[OPT_AT]);
		goto out;
	}
	if (out != NULL && a->given[OPT_VALUE] != 1) {
		rc = cli_usage_error(a->cmd, "--output writes the trace at one --value: give "
		    "exactly one");
		goto out;
	}
	if (plot != NULL && strcmp(plot, "-") == 0) {
		rc = cli_usage_error(a->cmd, "--plot: standard output has the report: name a file "
		    "(.svg or .png)");
		goto out;
	}
	if (plot != NULL && plot_term(plot, &cause) == NULL) {
		cli_error("--plot: %s", cause);
		free(cause);
		rc = EXIT_INPUT;
		goto out;
	}
	if ((rc = cli_target(a, &target)) != 0 || (rc = cli_policies(a, "caching", &pols)) != 0)
		goto out;
	cli_trace_opts(a, &topts);
	for (i = 0; i < a->argc; i++) {
		recs[i].path = a->argv[i];
		recs[i].value = strtoull(a->all[OPT_AT][i], NULL, 10);
		if ((err = trace_mem_load(a->argv[i], &topts, &recs[i].mem, &cause)) < 0)
			goto fail;
	}
	if ((err = scale_model_new(recs, (size_t)a->argc, &m, &cause)) < 0)
		goto fail;
	if (out != NULL) {
		rc = write_built(a, m, out);
		goto out;
	}
	cli_run_spec(a, &target, &spec);
	spec.placement = RUN_PLACEMENT_MODEL;	/* the new run's addresses are nobody's */
	spec.policy = pols.ents[0].ops;
	spec.opts = pols.ents[0].opts;
	spec.nopts = pols.ents[0].nopts;
	rep.model = m;
	rep.policy = pols.ents[0].label;
	rep.gpu = target.gpu_name;
	curve_values(a, m, &rep);
	if (plot != NULL) {
		if ((err = outfile_open(plot, (const char *const *)a->argv, (size_t)a->argc, &pof,
		    &cause)) < 0) {
			cli_error("--plot: %s", cause);
			free(cause);
			rc = gms_exit_code(err);
			goto out;
		}
		plotting = 1;
	}
	if ((err = scale_run(&rep, &spec, (uint64_t)SCALE_EXTRAPOLATION_MAX *
	    scale_rec_at(m, scale_nrecs(m) - 1)->value, &cause)) < 0)
		goto fail;
	if (plotting) {
		plotting = 0;
		if ((rc = draw(plot, &pof, &rep)) != 0)
			goto out;
	}
	if (a->v[OPT_FORMAT].choice == 1) {
		cli_print_json(a, scale_json(&rep));
	} else {
		char *text = scale_text(&rep);

		fputs(text, a->report);
		fflush(a->report);
		free(text);
	}
	rc = EXIT_DONE;
	goto out;
fail:
	rc = cli_fail(err, cause);
out:
	if (plotting)
		outfile_abort(&pof);
	scale_report_free(&rep);
	scale_model_free(m);
	for (i = 0; i < a->argc; i++)
		trace_mem_free(recs[i].mem);
	free(recs);
	cli_policies_free(&pols);
	return rc;
}
