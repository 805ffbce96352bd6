/*
 * seglog.h - a run's segments over its events, for the report's segment
 * timeline: each segment (or mapped range of an expandable one) the policy
 * reserved, with the event that reserved it and the one that gave it back.
 * Fed by the engine's segment hook and its sampler; the segments there at
 * the first sample (a pool made before any event) start at event 0.
 * Memory follows the device calls, up to SEGLOG_MAX lives (the rest counted).
 */
#ifndef ANALYSIS_SEGLOG_H
#define ANALYSIS_SEGLOG_H

#include <stddef.h>
#include <stdint.h>

#include <bsd/sys/tree.h>

#include "sim/sim.h"

#define SEGLOG_MAX 100000
#define SEGLOG_LIVE UINT64_MAX	/* seg_life.end of a segment kept to the end */

struct seg_life {
	uint64_t addr, size;
	uint64_t start, end;	/* the events that reserved and released it */
};

struct seg_index;

struct seg_log {
	struct seg_life *v;
	size_t n, cap;
	size_t dropped;		/* lives past SEGLOG_MAX, not kept */
	uint64_t next;		/* the event being replayed */
	int started;
	int stopped;		/* the run ran out of memory: nothing after is its */
	RB_HEAD(seg_live_tree, seg_index) live;	/* live lives by address */
	sim_sample_fn *next_fn;	/* the sampler told after this one */
	void *next_arg;
};

void seg_log_init(struct seg_log *l);
void seg_log_free(struct seg_log *l);
/* The segment hook (device.h) and the sampler (arg: the log). */
void seg_log_hook(void *arg, int reserve, uint64_t addr, uint64_t size);
void seg_log_sample(void *arg, const struct sim_sample *smp);

#endif /* ANALYSIS_SEGLOG_H */
