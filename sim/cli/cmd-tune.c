/*
 * cmd-tune.c - `gpumemsim tune TRACE`: the PyTorch allocator setting that
 * reserves least and fits, RMM's resources on an RMM log, or the setting for
 * every rank of a job (analysis/entry-tune.c).  Exit 1 when none fits.
 */
#include "config.h"

#include "analysis/entries.h"
#include "sim/cli/cli.h"

int
cmd_tune(struct cli_args *a)
{
	struct tune_request rq = { .threads = (int)a->v[OPT_JOBS].n };
	struct tune_answer ans;
	char *cause = NULL;
	int json = a->v[OPT_FORMAT].choice == 1, rc;

	if ((rc = cli_entry_target(a, &rq.target)) != 0)
		return rc;
	if ((rc = entry_tune(a->in, &rq, &ans, &cause)) < 0) {
		rc = cli_fail(rc, cause);
	} else {
		cli_print(a, json ? entry_tune_json(&ans) : NULL, json ? NULL : entry_tune_text(&ans));
		rc = entry_tune_fits(&ans) ? EXIT_DONE : EXIT_CHECK;
	}
	entry_tune_free(&ans);
	return rc;
}
