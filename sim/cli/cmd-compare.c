/*
 * cmd-compare.c - `gpumemsim compare`: every policy (or --policies) on one
 * trace side by side with the winner, two traces under one policy and what
 * grew, or each policy's worst rank of a job (analysis/entry-compare.c);
 * --timeline's file.
 */
#include "config.h"

#include <stdlib.h>

#include "analysis/entries.h"
#include "sim/cli/cli.h"

int
cmd_compare(struct cli_args *a)
{
	int pair = a->in->kind == INPUTS_PAIR, json = a->v[OPT_FORMAT].choice == 1, rc;
	struct compare_request rq = { .threads = (int)a->v[OPT_JOBS].n,
	    .by_site = a->given[OPT_BY_SITE] > 0, .top = (size_t)a->v[OPT_TOP].n,
	    .timeline = a->given[OPT_TIMELINE] > 0, .points = (size_t)a->v[OPT_POINTS].n,
	    .frames = a->given[OPT_FRAMES] ? a->v[OPT_FRAMES].s : NULL,
	    .depth = (unsigned)a->v[OPT_DEPTH].n, .folded = a->given[OPT_FOLDED] > 0,
	    .how = { .by_memory = a->v[OPT_BY].choice == 1,
	    .time_bound = a->v[OPT_TIME_BOUND].ratio } };
	struct compare_answer ans;
	struct cli_policies pols = { 0 };
	struct entry_policy *ep = NULL;
	char *cause = NULL;

	if (pair && a->given[OPT_POLICY] > 1)
		return cli_usage_error(a->cmd, "two traces are compared under one policy: give "
		    "--policy once");
	if (rq.folded && json)
		return cli_usage_error(a->cmd, "--folded writes the stacks alone: it does not go "
		    "with --format=json");
	if ((rc = cli_entry_target(a, &rq.target)) != 0)
		return rc;
	rq.how.capacity = rq.target.capacity;
	rq.how.framework = a->in->framework;
	rq.how.by_option = 1;
	if ((rc = cli_policies(a, pair ? CLI_ONE_POLICY : CLI_POLICY_SET, &pols)) != 0)
		goto out;
	rq.pols = ep = cli_entry_policies(&pols);
	rq.npols = pols.n;
	rq.as_recorded = pols.defaulted;
	if ((rc = entry_compare(a->in, &rq, &ans, &cause)) < 0)
		rc = cli_fail(rc, cause);
	else if (!rq.timeline || (rc = cli_write_timelines(a, ans.tls,
	    (const char *const *)ans.labels, ans.n)) == 0)
		cli_print(a, json ? entry_compare_json(&ans) : NULL, json ? NULL :
		    entry_compare_text(&ans));
	entry_compare_free(&ans);
out:
	free(ep);
	cli_policies_free(&pols);
	return rc;
}
