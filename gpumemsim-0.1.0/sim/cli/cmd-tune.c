/*
 * cmd-tune.c - `gpumemsim tune TRACE`: the PyTorch allocator setting that
 * reserves least and fits, as a ready PYTORCH_CUDA_ALLOC_CONF line, with the
 * runner-ups, and what TensorFlow's and JAX's allocator modes would cost.
 * Exit 1 when no setting fits.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis/report.h"
#include "analysis/tune.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

int
cmd_tune(struct cli_args *a)
{
	struct trace_opts topts = { .device = -1 };
	struct cli_target target;
	struct tune_report rep;
	struct trace_mem *m = NULL;
	char *cause = NULL, *text, *note;
	int threads = a->given[OPT_JOBS] ? (int)a->v[OPT_JOBS].n : batch_default_threads(), rc;
	cJSON *o;

	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	if (a->given[OPT_DEVICE])
		topts.device = (int)a->v[OPT_DEVICE].n;
	topts.unknown_frees_warn = a->given[OPT_UNKNOWN_FREES] && a->v[OPT_UNKNOWN_FREES].choice;
	if ((rc = trace_mem_load(a->argv[0], &topts, &m, &cause)) < 0 ||
	    (rc = tune_run(m, target.capacity, threads, &rep, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		trace_mem_free(m);
		return gms_exit_code(rc);
	}
	if (a->v[OPT_FORMAT].choice == 1) {
		o = tune_json(&rep);
		cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(trace_mem_header(m)));
		cli_print_json(a, o);
	} else {
		text = tune_text(&rep);
		fputs(text, a->report);
		free(text);
		if ((note = report_incomplete_text(trace_mem_header(m))) != NULL)
			fprintf(a->report, "\n%s", note);
		free(note);
	}
	rc = tune_fits(&rep) ? EXIT_DONE : EXIT_CHECK;
	tune_free(&rep);
	trace_mem_free(m);
	return rc;
}
