/*
 * share-gpu.h - share's scenarios on a real GPU: one process per job, each
 * with its own CUDA context and the policy's own code over cudaMalloc and
 * cudaFree, taking turns in the scenario's merged order through a counter
 * in shared memory (so a run is deterministic), the card brought down to
 * the scenario's memory by a ballast the parent holds.  What each job did
 * (ran to its end, ran out where, could not start) comes back beside what
 * share_run() predicts.
 */
#ifndef REPLAY_SHARE_GPU_H
#define REPLAY_SHARE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "sim/share.h"
#include "replay/replay.h"

#define REPLAY_SHARE_MAX_JOBS 16

/* Opens the GPU for a process: replay_cuda_open, or a test's stand-in. */
struct replay_share_gpu {
	int (*open)(void *arg, struct replay_gpu *g, char **cause);
	/* In the parent, before the jobs start: hold all but keep bytes of the card. */
	int (*ballast)(void *arg, uint64_t keep, char **cause);
	void (*unballast)(void *arg);
	void *arg;
};

/*
 * Run sc on gpu; res gets what really happened, in share_run()'s terms
 * (held: every job's reservation when one ran out).  0, or a GMS_E* code
 * with *cause (a job's trace refused, the GPU not there).
 */
int replay_share(const struct share_scenario *sc, const struct replay_share_gpu *gpu,
    struct share_result *res, char **cause);

#endif /* REPLAY_SHARE_GPU_H */
