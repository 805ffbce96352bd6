/*
 * cmd-replay.c - `gpumemsim replay`: a trace's policy run over a real GPU,
 * or a shared card's jobs (analysis/entry-replay.c), the prediction beside
 * what the GPU did.  Exit 2 when the CUDA backend was not built; 1 with
 * --fail-on-mismatch when they differ.
 */
#include "config.h"

#include <stdint.h>

#include "analysis/entries.h"
#include "replay/replay.h"
#include "sim/cli/cli.h"

/* The GPU the replay runs on: CUDA's (the only calls into replay/'s CUDA half). */
static int
cuda_open(void *arg, struct replay_gpu *g, char **cause)
{
	return replay_cuda_open((int)(intptr_t)arg, g, cause);
}

static int
cuda_ballast(void *arg, uint64_t keep, char **cause)
{
	return replay_cuda_ballast((int)(intptr_t)arg, keep, cause);
}

static void
cuda_unballast(void *arg)
{
	(void)arg;
	replay_cuda_unballast();
}


int
cmd_replay(struct cli_args *a)
{
	struct replay_request rq = { .touch = a->given[OPT_TOUCH] > 0,
	    .baseline = a->given[OPT_NO_CACHE_BASELINE] > 0,
	    .cuda_device = (int)a->v[OPT_CUDA_DEVICE].n,
	    .capacity = a->given[OPT_CAPACITY] ? a->v[OPT_CAPACITY].size : 0 };
	int log = a->given[OPT_DEVICE_LOG] > 0, json = a->v[OPT_FORMAT].choice == 1, rc;
	struct replay_share_gpu gpu = { .open = cuda_open, .ballast = cuda_ballast,
	    .unballast = cuda_unballast, .arg = (void *)(intptr_t)a->v[OPT_CUDA_DEVICE].n };
	struct replay_answer ans;
	struct cli_policies pols = { 0 };
	char *cause = NULL;

	rq.gpu = &gpu;
	rq.built = replay_cuda_built();
	if (a->in->kind == INPUTS_TRACE && (rc = cli_policies(a, CLI_ONE_POLICY, &pols)) != 0)
		goto out;
	if (a->in->kind == INPUTS_TRACE)
		rq.policy = cli_entry_policy(&pols, 0);
	if ((rc = entry_replay(a->in, &rq, &ans, &cause)) < 0) {
		rc = cli_fail(rc, cause);
	} else {
		cli_print(a, json ? entry_replay_json(&ans, log) : NULL, json ? NULL :
		    entry_replay_text(&ans, log));
		rc = !ans.agree && a->given[OPT_FAIL_ON_MISMATCH] ? EXIT_CHECK : EXIT_DONE;
	}
	entry_replay_free(&ans);
out:
	cli_policies_free(&pols);
	return rc;
}
