/*
 * allocconf.h - PyTorch's allocator settings (PYTORCH_CUDA_ALLOC_CONF), parsed
 * as PyTorch 2.11 parses them (c10/core/AllocatorConfig.cpp): a list of
 * key:value pairs separated by commas, list values in [..], spaces ignored.
 *
 *   max_split_size_mb:N          blocks >= N MiB are "oversize" (N >= 20)
 *   max_non_split_rounding_mb:N  slack allowed reusing an oversize block (N >= 20)
 *   roundup_power2_divisions:D   or [256:1,512:2,>:8]: rounding steps per
 *                                power-of-two interval (MB keys; powers of 2)
 *   garbage_collection_threshold:T   in (0, 1); acts only under a capacity
 *   expandable_segments:True|False
 *   large_segment_size_mb:N      the 1-10 MiB segment size (10 < N <= 2^30)
 *   per_process_memory_fraction:F  in [0, 1]: the allocator may reserve at
 *                                most F of the device's memory (PyTorch 2.9+;
 *                                as set_per_process_memory_fraction)
 *   graph_capture_record_stream_reuse:True|False  accepted (PyTorch 2.9+);
 *                                acts only during CUDA graph capture, which
 *                                no trace records
 *   backend:native               (cudaMallocAsync cannot be simulated)
 *   release_lock_on_cudamalloc, pinned_use_cuda_host_register,
 *   pinned_num_register_threads (a power of 2, at most 128),
 *   pinned_use_background_threads: accepted, no effect on device memory
 *
 * Every number must fit what it feeds: a value PyTorch refuses, or one that
 * would overflow where it is used, is refused, never truncated.
 */
#ifndef SIM_ALLOCCONF_H
#define SIM_ALLOCCONF_H

#include <stdint.h>

#include "sim/sizeclass.h"

struct alloc_conf {
	struct sc_caching sc;		/* rounding divisions, large segment size */
	uint64_t max_split;		/* SC_UNLIMITED when unset */
	uint64_t max_non_split_rounding;	/* 20 MiB */
	double gc_threshold;		/* 0: off */
	int expandable;
	int has_memory_fraction;	/* per_process_memory_fraction given */
	double memory_fraction;		/* of the device's memory, in [0, 1] */
	int graph_capture_reuse;	/* accepted; no effect outside graph capture */
};

void alloc_conf_defaults(struct alloc_conf *c);

/*
 * Parse s into c (starting from the defaults).  Returns 0, or GMS_ECONFIG
 * with *cause: PyTorch's own message, and where in s it went wrong.
 */
int alloc_conf_parse(const char *s, struct alloc_conf *c, char **cause);

/* Whether a and b set the allocator alike (every field that changes a run). */
int alloc_conf_same(const struct alloc_conf *a, const struct alloc_conf *b);

#endif /* SIM_ALLOCCONF_H */
