/*
 * cmd-info.c - `gpumemsim info TRACE`: what a trace holds, or every rank's
 * side by side (analysis/entry-info.c), as text or JSON.
 */
#include "config.h"

#include "analysis/entries.h"
#include "sim/cli/cli.h"

int
cmd_info(struct cli_args *a)
{
	struct info_answer ans;
	char *cause = NULL;
	int json = a->v[OPT_FORMAT].choice == 1, rc;

	rc = entry_info(a->in, (size_t)a->v[OPT_TOP].n, &ans, &cause);
	cli_warnings(&ans.warn);
	if (rc < 0) {
		rc = cli_fail(rc, cause);
	} else {
		cli_print(a, json ? entry_info_json(&ans) : NULL, json ? NULL : entry_info_text(&ans));
		rc = EXIT_DONE;
	}
	entry_info_free(&ans);
	return rc;
}
