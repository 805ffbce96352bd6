/*
 * tune.h - searching allocator settings for a trace (`gpumemsim tune`):
 * PyTorch's PYTORCH_CUDA_ALLOC_CONF space for the caching policy (expandable
 * segments, max_split_size_mb, roundup_power2_divisions, and under a capacity
 * garbage_collection_threshold), and for the BFC family whether growth,
 * preallocation or a limit fits and the smallest limit that does; on an RMM
 * log, RMM's resources and their sizes instead (tune-rmm.c).
 */
#ifndef ANALYSIS_TUNE_H
#define ANALYSIS_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "sim/sim.h"
#include "traces/tracemem.h"

struct tune_candidate {
	char conf[192];			/* PYTORCH_CUDA_ALLOC_CONF, "" for the default */
	int point[4];			/* its value in each searched dimension */
	int err;			/* 0, or why it could not run */
	int recorded;			/* ran at the recording's addresses (the
					   recording's own settings: run.h) */
	struct sim_result res;
};

struct tune_bfc {
	const char *label;		/* "growth (TensorFlow)" ... */
	const char *setting;		/* the framework setting */
	int err;
	struct sim_result res;
};

struct tune_report {
	const char *trace;
	unsigned framework;		/* the trace's (TRACE_FW_*): a TensorFlow or JAX
					   profile leads with the BFC allocator's answer;
					   set by the caller (0: PyTorch's first) */
	uint64_t capacity;		/* 0: unlimited */
	uint64_t card;			/* the GPU's memory for fractions: capacity, else
					   the trace's device, else 0 */
	uint64_t peak_live;
	struct tune_candidate *cands;	/* every setting tried, best first */
	size_t ncands;
	size_t default_index;		/* the baseline among cands: the recording's
					   settings (recorded set), else the default */
	int recorded;			/* the trace records the settings it ran
					   under, and they are not the default */
	struct tune_bfc bfc[3];		/* growth TF, growth JAX, preallocate */
	uint64_t bfc_min_limit;		/* smallest BFC growth limit that fits (2 MiB
					   steps), 0 if none up to the capacity */
	uint64_t bfc_min_prealloc;	/* ... preallocated */
	uint64_t peak_before;		/* a profile's window began after the
					   allocator held this (peak_in_use_before),
					   or held it in the window, out of the
					   replay's sight: no limit below it fits */
	const char *peak_where;		/* which, in words (trace_peak_where) */
};

/* An RMM log's search (tune-rmm.c): RMM's resources and sizes. */
#define TUNE_RMM_MAX 16

struct tune_rmm_cand {
	char spec[128];			/* the policy as --policy takes it */
	char setting[256];		/* the Python line that sets it */
	int err;
	int fits;
	struct sim_result res;
	uint64_t rank_peak;		/* what it is ranked by: its peak reserved, or
					   for a model known as a range its top */
};

struct tune_rmm_report {
	const char *trace;
	uint64_t capacity;		/* 0: unlimited (defaults sized from the GPU left out) */
	uint64_t peak_live;
	uint64_t min_pool;		/* the smallest pool that runs it (plan's search) */
	uint64_t min_arena;
	uint64_t default_peak;		/* RMM's default pool's peak reserved, 0 if not run */
	uint64_t async_low, async_high;	/* cudaMallocAsync's measured range */
	struct tune_rmm_cand c[TUNE_RMM_MAX];	/* best first, cudaMalloc last */
	size_t n;
};

int tune_rmm_run(const struct trace_mem *m, uint64_t capacity, int threads,
    struct tune_rmm_report *rep, char **cause);
/* Does the best pool fit? */
int tune_rmm_fits(const struct tune_rmm_report *rep);
cJSON *tune_rmm_json(const struct tune_rmm_report *rep);
char *tune_rmm_text(const struct tune_rmm_report *rep);

/* Search; threads as batch_run.  Returns 0 or a GMS_E* code with *cause. */
int tune_run(const struct trace_mem *m, uint64_t capacity, int threads,
    struct tune_report *rep, char **cause);
void tune_free(struct tune_report *rep);
/* Does the best PyTorch setting fit? */
int tune_fits(const struct tune_report *rep);

cJSON *tune_json(const struct tune_report *rep);
char *tune_text(const struct tune_report *rep);

#endif /* ANALYSIS_TUNE_H */
