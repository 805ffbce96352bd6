/*
 * cmd-tune.c - `gpumemsim tune TRACE`: the PyTorch allocator setting that
 * reserves least and fits, as a ready PYTORCH_CUDA_ALLOC_CONF line, with the
 * runner-ups, and what TensorFlow's and JAX's allocator modes would cost; on
 * an RMM log, RMM's resource and pool size that reserve least and fit.
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
#include "traces/trace.h"
#include "traces/tracemem.h"

/* An RMM log: RMM's resources and their sizes.  Exit 1 when no pool fits. */
static int
tune_rmm(struct cli_args *a, const struct trace_mem *m, uint64_t capacity, int threads)
{
	struct tune_rmm_report rep;
	char *cause = NULL;
	int rc;

	if ((rc = tune_rmm_run(m, capacity, threads, &rep, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		return gms_exit_code(rc);
	}
	if (a->v[OPT_FORMAT].choice == 1)
		cli_print_report(a, tune_rmm_json(&rep), NULL, trace_mem_header(m));
	else
		cli_print_report(a, NULL, tune_rmm_text(&rep), trace_mem_header(m));
	return tune_rmm_fits(&rep) ? EXIT_DONE : EXIT_CHECK;
}

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
	if (trace_is_rmm_log(a->argv[0])) {
		rc = tune_rmm(a, m, target.capacity, threads);
		trace_mem_free(m);
		cli_scaled_free(&sc);
		return rc;
	}
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
