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

#include "analysis/ranks.h"
#include "analysis/tune.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/policy.h"
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

/*
 * --ranks: the setting is tuned on the worst rank under the recorded
 * settings (the one the job's memory is sized by), then every rank runs
 * with it: the job's answer before and after.  Exit 1 when no setting fits.
 */
static int
tune_ranks(struct cli_args *a, const struct cli_target *target,
    const struct trace_opts *topts, int threads)
{
	struct rank_set set;
	struct ranks_job before = { 0 }, after = { 0 };
	struct tune_report rep = { 0 };
	struct trace_mem *m = NULL;
	struct run_spec tmpl = { .policy = &policy_caching };
	struct policy_kv kv = { "alloc_conf", NULL };
	char *cause = NULL, *text;
	int err, rc = EXIT_DONE, tuned = 0, fits;
	size_t w;

	if (a->given[OPT_AT] || a->given[OPT_VALUE])
		return cli_usage_error(a->cmd, "--ranks tunes recorded ranks: it does not go "
		    "with --at or --value");
	cli_run_spec(a, target, &tmpl);
	if ((err = ranks_collect(a->argv, a->argc, &set, &cause)) < 0)
		goto fail;
	if ((err = ranks_run(&set, &tmpl, 0, 0, threads, &before, &cause)) < 0)
		goto fail;
	w = before.worst;
	if ((err = trace_mem_load(set.f[w].path, topts, &m, &cause)) < 0 ||
	    (err = tune_run(m, target->capacity, threads, &rep, &cause)) < 0)
		goto fail;
	tuned = 1;
	fits = tune_fits(&rep);
	if (fits) {
		kv.value = rep.cands[0].conf;
		tmpl.opts = &kv;
		tmpl.nopts = 1;
		if ((err = ranks_run(&set, &tmpl, 0, 0, threads, &after, &cause)) < 0)
			goto fail;
	}
	if (a->v[OPT_FORMAT].choice == 1) {
		cJSON *o = cJSON_CreateObject(), *t = tune_json(&rep);

		cJSON_AddNumberToObject(o, "schema", 1);
		cJSON_AddStringToObject(o, "ranks_from", set.from);
		cJSON_AddNumberToObject(o, "tuned_rank", set.f[w].rank);
		cJSON_DeleteItemFromObjectCaseSensitive(t, "schema");
		cJSON_AddItemToObject(o, "tune", t);
		cJSON_AddItemToObject(o, "job_before", ranks_job_json(&before));
		if (fits) {
			cJSON_AddStringToObject(o, "alloc_conf", kv.value);
			cJSON_AddItemToObject(o, "job_after", ranks_job_json(&after));
		} else {
			cJSON_AddNullToObject(o, "alloc_conf");
			cJSON_AddNullToObject(o, "job_after");
		}
		cli_print_json(a, o);
	} else {
		const struct sim_result *b = &before.jobs[w].out.res;

		fprintf(a->report, "%zu rank%s: tuned on rank %d, the worst under the recorded "
		    "settings (%s reserved at its peak%s)\n\n", set.n, set.n == 1 ? "" : "s",
		    set.f[w].rank, gms_fmt_size(b->peak_reserved, (char[32]){ 0 }, 32),
		    b->oomed ? ", out of memory" : "");
		text = tune_text(&rep);
		fputs(text, a->report);
		free(text);
		if (fits) {
			const struct sim_result *x = &after.jobs[after.worst].out.res;

			fprintf(a->report, "\nTHE JOB with PYTORCH_CUDA_ALLOC_CONF=%s: the worst rank is "
			    "%d, %s reserved at its peak (under the recorded settings rank %d ",
			    kv.value[0] ? kv.value : "(the default)", set.f[after.worst].rank,
			    gms_fmt_size(x->peak_reserved, (char[32]){ 0 }, 32), set.f[w].rank);
			if (b->oomed)
				fprintf(a->report, "ran out of memory)");
			else
				fprintf(a->report, "reserved %s)",
				    gms_fmt_size(b->peak_reserved, (char[32]){ 0 }, 32));
			if (after.ooms > 0)
				fprintf(a->report, "; %zu rank%s run%s out of memory with it, rank %d "
				    "first: tune that rank's file", after.ooms, after.ooms == 1 ? "" : "s",
				    after.ooms == 1 ? "s" : "", set.f[after.worst].rank);
			fprintf(a->report, "\n");
		}
	}
	rc = fits && after.ooms == 0 ? EXIT_DONE : EXIT_CHECK;
	goto out;
fail:
	rc = cli_fail(err, cause);
out:
	if (tuned)
		tune_free(&rep);
	trace_mem_free(m);
	if (before.jobs != NULL)
		ranks_job_free(&before);
	if (after.jobs != NULL)
		ranks_job_free(&after);
	ranks_free(&set);
	return rc;
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
	int threads = (int)a->v[OPT_JOBS].n, rc;

	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	cli_trace_opts(a, &topts);
	if (a->given[OPT_RANKS])
		return tune_ranks(a, &target, &topts, threads);
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
