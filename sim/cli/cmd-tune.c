/*
 * cmd-tune.c - `gpumemsim tune TRACE`: the PyTorch allocator setting that
 * reserves least and fits, as a ready PYTORCH_CUDA_ALLOC_CONF line, with the
 * runner-ups, and what TensorFlow's and JAX's allocator modes would cost.
 * Exit 1 when no setting fits.  The trace may be built at a value nobody
 * recorded (--at, --value).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis/tune.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

int
cmd_tune(struct cli_args *a)
{
	struct trace_opts topts;
	struct cli_target target;
	struct tune_report rep;
	struct trace_mem *m = NULL;
	struct cli_scaled sc;
	char *cause = NULL;
	int threads = a->given[OPT_JOBS] ? (int)a->v[OPT_JOBS].n : batch_default_threads(), rc;

	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	cli_trace_opts(a, &topts);
	if ((rc = cli_load_trace(a, &topts, 1, &sc, &m)) != 0)
		return rc;
	if ((rc = tune_run(m, target.capacity, threads, &rep, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		trace_mem_free(m);
		cli_scaled_free(&sc);
		return gms_exit_code(rc);
	}
	if (a->v[OPT_FORMAT].choice == 1)
		cli_print_report(a, tune_json(&rep), NULL, trace_mem_header(m));
	else
		cli_print_report(a, NULL, tune_text(&rep), trace_mem_header(m));
	rc = tune_fits(&rep) ? EXIT_DONE : EXIT_CHECK;
	tune_free(&rep);
	trace_mem_free(m);
	cli_scaled_free(&sc);
	return rc;
}
