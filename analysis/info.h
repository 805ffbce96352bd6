/*
 * info.h - what a trace holds, for `gpumemsim info`: counts, streams,
 * duration, the live peak, a power-of-two size histogram and the largest
 * allocations with where they were made.  Fed one event at a time.
 */
#ifndef ANALYSIS_INFO_H
#define ANALYSIS_INFO_H

#include <stdint.h>

#include <cJSON.h>

#include "sim/sim.h"
#include "traces/trace.h"

#define INFO_TOP 10
#define INFO_STREAMS 64

struct info_alloc {
	uint64_t size, event, id;
	int64_t stream;
	char *at;		/* owned, or NULL */
};

struct info {
	uint64_t ops[TRACE_NOPS];	/* events by op */
	uint64_t events;
	int64_t streams[INFO_STREAMS];	/* distinct streams of allocs, in order seen */
	int nstreams, more_streams;
	int has_time;
	int64_t first_t, last_t;	/* the earliest and the latest time (not the
					   first and last event's: time may go back) */
	int64_t prev_t;
	uint64_t backwards;		/* events timed before the one before them */
	uint64_t first_backwards;	/* ... the first of them */
	uint64_t requested_total;	/* sum of alloc sizes */
	uint64_t hist_count[65], hist_bytes[65];	/* [0]: size 0; [k+1]: [2^k, 2^(k+1)) */
	struct info_alloc top[INFO_TOP];	/* largest first */
	int ntop;
};

void info_init(struct info *in);
void info_event(struct info *in, uint64_t index, const struct trace_event *ev);
void info_free(struct info *in);

/* The report: res is the replay through `ideal` (live peak, frees of unknown ids). */
cJSON *info_json(const struct info *in, const struct trace_header *hdr,
    const struct sim_result *res);
char *info_text(const struct info *in, const struct trace_header *hdr,
    const struct sim_result *res);

#endif /* ANALYSIS_INFO_H */
