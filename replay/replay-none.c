/*
 * replay-none.c - the CUDA backend's stand-in when configure found no CUDA
 * runtime (or was given --without-cuda): `gpumemsim replay` then says how to
 * get it.
 */
#include "config.h"

#include "replay/replay.h"
#include "sim/gms.h"

int
replay_cuda_built(void)
{
	return 0;
}

int
replay_cuda_open(int index, struct replay_gpu *g, char **cause)
{
	return gms_fail(cause, GMS_ENOTBUILT,
	    "replay support not built; reconfigure with --with-cuda");
}

int
replay_cuda_ballast(int index, uint64_t keep, char **cause)
{
	return gms_fail(cause, GMS_ENOTBUILT,
	    "replay support not built; reconfigure with --with-cuda");
}

void
replay_cuda_unballast(void)
{
}
