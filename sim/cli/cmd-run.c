/*
 * cmd-run.c - `gpumemsim run`: one trace through one policy (or every rank
 * of a job), its options into entry_run's request (analysis/entry-run.c),
 * and the answer as text or JSON; --timeline's file, written as it comes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/cli/cli.h"

/* --at, --depth, --frames and --folded, with what they need. */
static int
moments_usage(struct cli_args *a)
{
	int moments = a->given[OPT_BY_SITE] || a->given[OPT_BY_STACK] || a->given[OPT_FOLDED];

	if (a->given[OPT_AT] && !moments)
		return cli_usage_error(a->cmd, "--at goes with --by-site, --by-stack or --folded");
	if (a->given[OPT_AT] > 2)
		return cli_usage_error(a->cmd, "give --at twice at most");
	if ((a->given[OPT_DEPTH] || a->given[OPT_FRAMES]) && !a->given[OPT_BY_STACK] &&
	    !a->given[OPT_FOLDED])
		return cli_usage_error(a->cmd, "--depth and --frames go with --by-stack or --folded");
	if (a->given[OPT_FOLDED] && (a->given[OPT_BY_SITE] || a->given[OPT_BY_STACK] ||
	    a->v[OPT_FORMAT].choice == 1 || a->given[OPT_PLACEMENTS]))
		return cli_usage_error(a->cmd, "--folded writes the stacks alone: it does not go "
		    "with --by-site, --by-stack, --placements or --format=json");
	return 0;
}

int
cmd_run(struct cli_args *a)
{
	struct run_request rq = { .check_every = a->given[OPT_CHECK] > 0,
	    .placements = a->given[OPT_PLACEMENTS] ? (size_t)a->v[OPT_PLACEMENTS].n : 0,
	    .threads = (int)a->v[OPT_JOBS].n, .by_site = a->given[OPT_BY_SITE] > 0,
	    .by_stack = a->given[OPT_BY_STACK] > 0, .folded = a->given[OPT_FOLDED] > 0,
	    .frames = a->given[OPT_FRAMES] ? a->v[OPT_FRAMES].s : NULL,
	    .depth = (unsigned)a->v[OPT_DEPTH].n, .top = (size_t)a->v[OPT_TOP].n,
	    .timeline = a->given[OPT_TIMELINE] > 0, .points = (size_t)a->v[OPT_POINTS].n };
	struct run_answer ans;
	struct timeline *tl = &ans.w.tl;
	struct cli_policies pols;
	struct cli_out tout = { 0 };
	uint64_t at[2];
	char *cause = NULL;
	int rc;

	if ((rc = cli_placement_usage(a)) != 0 || (rc = moments_usage(a)) != 0 ||
	    (rc = cli_entry_target(a, &rq.target)) != 0)
		return rc;
	if ((rc = cli_policies(a, CLI_ONE_POLICY, &pols)) != 0)
		goto out;
	rq.policy = cli_entry_policy(&pols, 0);
	rq.as_recorded = pols.defaulted;
	rq.nat = cli_events(a, at, 2);
	rq.at = at;
	/* every change: written as it comes, not held */
	if (rq.timeline && rq.points == 0 && (rc = cli_out_open_n(a->v[OPT_TIMELINE].s,
	    a->in->files, a->in->nfiles, &tout)) != 0)
		goto out;
	rq.timeline_stream = tout.f;
	if ((rc = entry_run(a->in, &rq, &ans, &cause)) < 0) {
		rc = cli_fail(rc, cause);
		cli_out_close(&tout, 0);
	} else if (!rq.timeline || (rc = rq.points == 0 ? cli_out_close(&tout, 1) :
	    cli_write_timelines(a, &tl, NULL, 1)) == 0) {
		cli_warnings(&ans.warn);
		cli_print(a, a->v[OPT_FORMAT].choice == 1 ? entry_run_json(&ans) : NULL,
		    a->v[OPT_FORMAT].choice == 1 ? NULL : entry_run_text(&ans));
		rc = a->given[OPT_FAIL_ON_OOM] && entry_run_oomed(&ans) ? EXIT_CHECK : EXIT_DONE;
	}
	entry_run_free(&ans);
out:
	cli_policies_free(&pols);
	return rc;
}
