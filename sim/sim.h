/*
 * sim.h - the engine: feeds trace events to a policy over a device and keeps
 * the statistics every report is built from.  It owns the live set (which id
 * maps to which policy block), validates the event stream's semantics
 * (duplicate live ids, frees of unknown ids), samples every peak at the moment
 * it changes, and records the first out-of-memory with its context.  After an
 * OOM no allocation reaches the policy (the real job would have died there),
 * though frees of blocks it served before still do, and the peaks are frozen;
 * the rest of the trace is still read: it is validated and its live peak
 * counted, so peak_live is the trace's lower bound whatever happened.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdint.h>

#include "sim/device.h"
#include "traces/trace.h"

struct device;
struct policy_args;
struct policy_ops;
struct sim;

struct sim_oom {
	uint64_t event;		/* 0-based index into the trace's events */
	uint64_t size;		/* the request that failed */
	int64_t stream;
	uint64_t live;		/* requested bytes live in the policy then */
	uint64_t allocated;	/* bytes of blocks handed out then */
	uint64_t reserved;	/* bytes the device held after the failed retry */
	uint64_t largest_free;	/* the largest free block then */
	char *at;		/* the alloc's program location, or NULL */
	char *mark;		/* the last mark label before it, or NULL */
	uint64_t mark_event;
};

struct sim_result {
	uint64_t events, allocs, frees, marks, observed_events;
	uint64_t zero_allocs;		/* size-0 requests: no-ops, as in PyTorch */
	uint64_t peak_live;		/* max live requested bytes, whole trace */
	uint64_t peak_live_event;
	uint64_t peak_requested;	/* ... while the policy ran (PyTorch's requested_bytes) */
	uint64_t peak_allocated;	/* max bytes of blocks handed out */
	uint64_t peak_reserved;		/* max bytes the device held */
	uint64_t peak_segments;
	uint64_t device_allocs, device_frees;
	uint64_t alloc_retries;
	uint64_t driver_ns;		/* the device calls' estimated driver time */
	uint64_t steady_driver_ns;	/* ... of the calls after the reservation last
					   grew: what each further iteration pays */
	uint64_t unknown_frees;		/* frees of ids never seen (mid-run traces) */
	uint64_t first_unknown_free;	/* event index of the first */
	uint64_t end_live;		/* ids still live at the end of the trace */
	uint64_t empty_caches;		/* empty_cache events */
	uint64_t empty_caches_ignored;	/* ... the policy has no such call */
	uint64_t recorded_ooms;		/* the trace's oom events: where the recorded
					   job ran out of memory */
	uint64_t recorded_oom_event;	/* the first: its event index */
	uint64_t recorded_oom_size;	/* ... and the request (0 if not known) */
	uint64_t limit;			/* the capacity in force: the device's, or a
					   tighter one the policy's options set; 0: none */
	uint64_t pool_slack;		/* policy_stats.pool_slack after the run */
	uint64_t largest_size;		/* policy_stats.largest_size after the run */
	uint64_t peak_asked;		/* the most the policy's limit check was asked
					   to allow, at least peak_reserved: a
					   capacity at or above it is never reached */
	uint64_t caught_ooms;		/* requests that did not fit and that the
					   framework catches (trace_oom_caught: a
					   cuDNN plan's workspace): not allocated,
					   the run goes on */
	uint64_t first_caught_oom;	/* the first: its event index */
	int oomed;
	struct sim_oom oom;
	/* Against the trace's observed segment_alloc events, when it has any: */
	uint64_t observed_segments;	/* segment_alloc events seen */
	uint64_t segment_mismatches;	/* events where the simulated segments differ */
	uint64_t first_segment_mismatch;/* event index of the first */
	/* Against the trace's observed bytes in use (in_use), when it has them: */
	uint64_t observed_in_use;	/* events that carry it */
	uint64_t in_use_mismatches;	/* ... where the policy's allocated bytes differ */
	uint64_t first_in_use_mismatch;	/* event index of the first */
	uint64_t first_in_use_simulated, first_in_use_observed;	/* ... and there */
	/* The policy's state after the last event: */
	uint64_t end_reserved, end_allocated, end_largest_free;
};

#define SIM_UNKNOWN_FREES_WARN  0x1	/* count frees of unknown ids, do not fail */
#define SIM_FEED_RECORDED       0x2	/* push observed segment_alloc events into
					   a recorded device as they are read */
#define SIM_CHECK_EVERY         0x4	/* run the policy's check() after each event */
#define SIM_STOP_AT_OOM         0x8	/* end the replay at the first OOM: for searches
					   that need only "fits" (the totals over the
					   whole trace, peak_live first, stay partial) */

/*
 * pre: dev outlives the sim; args may be NULL (defaults).  Returns NULL with
 * *cause on bad policy options.
 */
struct sim *sim_create(const struct policy_ops *policy, const struct policy_args *args,
    struct device *dev, unsigned flags, char **cause);

/*
 * Apply one event (index: its position in the trace).  Returns 0, or
 * GMS_ETRACE with *cause for an event that makes no sense ("free of unknown
 * id 77"), or GMS_EBUG with *cause when SIM_CHECK_EVERY found a broken
 * invariant (exit 5: a bug in gpumemsim, not in the trace).
 */
int sim_event(struct sim *s, uint64_t index, const struct trace_event *ev, char **cause);

/*
 * Read every event of r into s.  On error *cause is located ("t.jsonl:42:
 * alloc without \"size\"").
 */
int sim_replay(struct sim *s, struct trace_reader *r, char **cause);
/* ... only its events up to index stop_after - 1 (0: all). */
int sim_replay_upto(struct sim *s, struct trace_reader *r, uint64_t stop_after, char **cause);

/* The same from a trace held in memory. */
struct trace_mem;
int sim_replay_mem(struct sim *s, const struct trace_mem *m, char **cause);
/* ... only its events up to index stop_after - 1 (0: all). */
int sim_replay_mem_upto(struct sim *s, const struct trace_mem *m, uint64_t stop_after,
    char **cause);
/* ... only its events from index from to index to - 1. */
int sim_replay_mem_range(struct sim *s, const struct trace_mem *m, uint64_t from, uint64_t to,
    char **cause);
/*
 * From the next event on, run under capacity as if the device had had it
 * from the start, and end at the first OOM (SIM_STOP_AT_OOM): a run without
 * a limit continued from a checkpoint (sim/checkpoint.h).  pre: the policy
 * has set_capacity, and its limit_inert held for the run so far; args are
 * those it was created from.
 */
void sim_limit_to(struct sim *s, const struct policy_args *args, uint64_t capacity);

/*
 * Told after every event: its index and time (t_us, has_time), the requested
 * bytes live in the trace, and the allocated and reserved bytes (frozen
 * after an OOM, stopped set).  ev is the event just applied and sim the
 * engine, for a sampler that looks deeper at a moment it cares about (the
 * live set by call site, the policy's blocks): both only for the call.
 */
struct sim_sample {
	uint64_t event;
	int64_t t_us;
	int has_time;
	uint64_t live, allocated, reserved;
	int stopped;
	const struct trace_event *ev;
	struct sim *sim;
};
typedef void (sim_sample_fn)(void *arg, const struct sim_sample *smp);
void sim_set_sampler(struct sim *s, sim_sample_fn *fn, void *arg);
/* Be told of every segment the policy reserves or releases (device.h's hook). */
void sim_set_segment_hook(struct sim *s, device_hook_fn *fn, void *arg);

/* The statistics so far (the OOM strings stay owned by the sim). */
void sim_result(struct sim *s, struct sim_result *res);
/* Has it run out of memory (no allocation reaches the policy since)? */
int sim_stopped(const struct sim *s);
/*
 * Free every allocation still live, as the job would on ending one pass of
 * a repeated trace (share's repeat): the policy keeps its cache.  index is
 * the event the frees are charged to.
 */
void sim_free_live(struct sim *s, uint64_t index);

/* The policy state, for walks and checks. */
const struct policy_ops *sim_policy(const struct sim *s);
void *sim_policy_state(const struct sim *s);
struct device *sim_device(const struct sim *s);

/*
 * The live allocation id: its block's address and the bytes counted for it.
 * Returns 0, or -1 when id is not live or the policy never served it.
 */
int sim_lookup(const struct sim *s, uint64_t id, uint64_t *addr, uint64_t *block);

void sim_destroy(struct sim *s);

#endif /* SIM_SIM_H */
