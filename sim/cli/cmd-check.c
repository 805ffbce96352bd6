/*
 * cmd-check.c - `gpumemsim check TRACE`: thresholds on a run, for CI; its
 * options into entry_check's request (analysis/entry-check.c), the answer
 * as text, JSON or TAP.  Exit 0 when every check holds, 1 when one fails
 * (2, 3, 4 as for every command).
 */
#include "config.h"

#include <stdlib.h>

#include "analysis/entries.h"
#include "sim/cli/cli.h"

static const enum cli_opt for_baseline[] = { OPT_TOLERANCE, OPT_ANY_TRACE, OPT_FRAMES, OPT_DEPTH };

int
cmd_check(struct cli_args *a)
{
	struct check_request rq = {
	    .placements = a->given[OPT_PLACEMENTS] ? (size_t)a->v[OPT_PLACEMENTS].n : 0,
	    .threads = (int)a->v[OPT_JOBS].n, .tolerance = a->v[OPT_TOLERANCE].ratio,
	    .top = (size_t)a->v[OPT_TOP].n,
	    .has_max_peak = a->given[OPT_MAX_PEAK_RESERVED] > 0,
	    .max_peak_reserved = a->v[OPT_MAX_PEAK_RESERVED].size,
	    .has_max_frag = a->given[OPT_MAX_FRAGMENTATION] > 0,
	    .max_fragmentation = a->v[OPT_MAX_FRAGMENTATION].ratio,
	    .has_max_overhead = a->given[OPT_MAX_OVERHEAD] > 0,
	    .max_overhead = a->v[OPT_MAX_OVERHEAD].ratio,
	    .has_max_allocs = a->given[OPT_MAX_DEVICE_ALLOCS] > 0,
	    .max_device_allocs = a->v[OPT_MAX_DEVICE_ALLOCS].n,
	    .has_fit = a->given[OPT_MUST_FIT] > 0,
	    .baseline_path = a->given[OPT_BASELINE] ? a->v[OPT_BASELINE].s : NULL,
	    .any_trace = a->given[OPT_ANY_TRACE] > 0,
	    .must_be_complete = a->given[OPT_MUST_BE_COMPLETE] > 0,
	    .frames = a->given[OPT_FRAMES] ? a->v[OPT_FRAMES].s : NULL,
	    .depth = a->given[OPT_DEPTH] ? (unsigned)a->v[OPT_DEPTH].n : 0 };
	struct check_answer ans;
	struct cli_policies pols = { 0 };
	struct entry_policy *ep = NULL;
	cJSON *base = NULL;
	char *cause = NULL;
	int format = a->v[OPT_FORMAT].choice, rc;

	if (!rq.has_max_peak && !rq.has_max_frag && !rq.has_max_overhead && !rq.has_fit &&
	    !rq.has_max_allocs && !rq.baseline_path && !a->given[OPT_CAPACITY] &&
	    !a->given[OPT_GPU] && !rq.must_be_complete)
		return cli_usage_error(a->cmd, "nothing to check: give a threshold, "
		    "--must-fit, --capacity, --gpu, --baseline or --must-be-complete");
	/* what only a baseline uses, without one, would be silently nothing */
	for (size_t i = 0; i < ARRAY_SIZE(for_baseline) && !rq.baseline_path; i++)
		if (a->given[for_baseline[i]])
			return cli_usage_error(a->cmd, "--%s is for --baseline: give one",
			    cli_optdefs[for_baseline[i]].name);
	if ((rc = cli_placement_usage(a)) != 0 || (rc = cli_entry_target(a, &rq.target)) != 0)
		return rc;
	rq.fit_capacity = cli_fit_capacity(&a->v[OPT_MUST_FIT], a->v[OPT_CONTEXT_OVERHEAD].size);
	if ((rc = cli_policies(a, CLI_ONE_POLICY, &pols)) != 0)
		goto out;
	if (rq.baseline_path != NULL && pols.n > 1) {
		rc = cli_usage_error(a->cmd, "--baseline is one policy's saved run: give one --policy");
		goto out;
	}
	if (rq.baseline_path != NULL &&
	    (rc = entry_check_baseline(rq.baseline_path, &base, &cause)) < 0) {
		rc = cli_fail(rc, cause);
		goto out;
	}
	rq.baseline = base;
	rq.pols = ep = cli_entry_policies(&pols);
	rq.npols = pols.n;
	rq.as_recorded = pols.defaulted;
	if ((rc = entry_check(a->in, &rq, &ans, &cause)) < 0) {
		rc = cli_fail(rc, cause);
	} else {
		cli_print(a, format == 1 ? entry_check_json(&ans) : NULL, format == 1 ? NULL :
		    format == 2 ? entry_check_tap(&ans) : entry_check_text(&ans));
		rc = check_failed(&ans.l) ? EXIT_CHECK : EXIT_DONE;
	}
	entry_check_free(&ans);
out:
	free(ep);
	cJSON_Delete(base);
	cli_policies_free(&pols);
	return rc;
}
