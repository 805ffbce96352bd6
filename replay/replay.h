/*
 * replay.h - a trace over a real device: the same policy code the simulation
 * runs, its segments taken from cudaMalloc/cudaFree (replay/device-cuda.c)
 * or from any device that behaves like one (the tests' fake), measured: the
 * device memory in use, the time of every device call, the wall time, a real
 * out-of-memory.  Beside it, the simulation's prediction for the same run,
 * and a re-simulation given the addresses the real device handed out, which
 * must agree exactly (the same numbers PyTorch's allocator would produce).
 */
#ifndef REPLAY_REPLAY_H
#define REPLAY_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/policy.h"
#include "sim/sim.h"

struct device;
struct trace_mem;

/* A real device and what it can say about itself. */
struct replay_gpu {
	struct device *dev;	/* its reserve/release are the real calls; capacity 0 */
	void *ctx;
	/* Bytes in use on the whole device now (cudaMemGetInfo: total - free). */
	int (*used)(void *ctx, uint64_t *used);
	/* Write every byte of [addr, addr + size) once and wait for it. */
	int (*touch)(void *ctx, uint64_t addr, uint64_t size);
	/* Give back everything the last replay left allocated (its cache). */
	void (*reset)(void *ctx);
	/* Release what is still allocated and the device itself (and dev). */
	void (*close)(void *ctx);
	char name[256];		/* "NVIDIA H200" (cudaDeviceProp.name) */
	char versions[96];	/* "driver 13.0, runtime 13.0" */
	int index;
	uint64_t total;		/* the memory the driver reports */
};

/*
 * Open CUDA device index for replays.  Returns 0, or GMS_ENOTBUILT ("replay
 * support not built; reconfigure with --with-cuda") or GMS_EIO (no such GPU,
 * driver errors) with *cause.
 */
int replay_cuda_open(int index, struct replay_gpu *g, char **cause);
/*
 * Hold all of GPU index's free memory but keep bytes (one cudaMalloc, in
 * this process), so other processes see a card of that size; unballast
 * gives it back.  0, or GMS_EIO / GMS_ENOTBUILT with *cause.
 */
int replay_cuda_ballast(int index, uint64_t keep, char **cause);
void replay_cuda_unballast(void);
/* 1 when the CUDA backend was built in. */
int replay_cuda_built(void);

/* One kind of device call, timed. */
struct replay_calls {
	uint64_t n;
	double total_s, median_s, p99_s, max_s;
};

struct replay_spec {
	const struct trace_mem *mem;
	const struct policy_ops *policy;
	const struct policy_kv *opts;
	size_t nopts;
	uint64_t capacity;	/* enforced as the simulation does; 0: none */
	int touch;		/* write every block handed out, once */
};

/*
 * One device call the driver answered, in order: what it was asked for and
 * the address it chose (issue 17's measurements of placement).
 */
struct replay_call {
	char op;	/* 'a' cudaMalloc, 'f' cudaFree; expandable segments: 'r' an
			   address range reserved, 'R' released, 'm' pages mapped,
			   'u' unmapped */
	uint64_t addr, size;
};

struct replay_result {
	struct sim_result predicted;	/* the simulation (placement model) */
	uint64_t predicted_physical;	/* ... what its driver model says is backed */
	struct sim_result real;		/* the replay over the device */
	struct sim_result resim;	/* the simulation given the replay's addresses */
	uint64_t used_before;		/* device memory in use before the replay */
	uint64_t used_peak;		/* ... at most, sampled after every device call */
	uint64_t used_end;		/* ... at the end, before anything is released */
	struct replay_calls mallocs;	/* cudaMalloc (and mappings of expandable segments) */
	struct replay_calls frees;	/* cudaFree (and unmappings) */
	uint64_t driver_refusals;	/* device calls the driver refused (real OOM) */
	uint64_t touched;		/* bytes written with touch */
	double wall_s;			/* the replay of the events */
	struct replay_call *calls;	/* every device call, in order */
	size_t ncalls;
	/* What agrees between prediction and replay: */
	int agree_reserved, agree_allocs, agree_frees, agree_oom;
	/* ... and between the re-simulation and the replay (all of the above) */
	int agree_resim;
};

/*
 * Replay spec over g (left open: the caller closes it).  Returns 0, or a
 * GMS_E* code with *cause (a bad trace, a failed touch).  The OOM strings in
 * the results are copies (replay_result_free).
 */
int replay_run(const struct replay_spec *spec, struct replay_gpu *g, struct replay_result *out,
    char **cause);
void replay_result_free(struct replay_result *r);

#endif /* REPLAY_REPLAY_H */
