/*
 * cmd-oom.c - `gpumemsim oom LOG`: an out-of-memory log read back into the
 * allocator's state at that moment (analysis/oomlog.h): shortage or
 * fragmentation, what the job needed, the settings that would have served
 * the request.  Exit 0 (the log was read).
 */
#include "config.h"

#include "analysis/inputs.h"
#include "analysis/oomlog.h"
#include "sim/cli/cli.h"

int
cmd_oom(struct cli_args *a)
{
	struct oomlog_answer ans;
	int json = a->v[OPT_FORMAT].choice == 1;

	oomlog_answer(a->in->oomlog, &ans);
	cli_print(a, json ? oomlog_json(a->in->oomlog, &ans) : NULL,
	    json ? NULL : oomlog_text(a->in->oomlog, &ans));
	oomlog_answer_free(&ans);
	return EXIT_DONE;
}
