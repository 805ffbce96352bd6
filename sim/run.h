/*
 * run.h - one complete simulation: open a trace, build the device (simulated
 * or recorded placement), run a policy over every event, keep the result.
 * What `run` does once and later commands (compare, plan, ...) do many times.
 */
#ifndef SIM_RUN_H
#define SIM_RUN_H

#include <stdint.h>

#include "sim/policy.h"
#include "sim/sim.h"
#include "traces/trace.h"

enum run_placement {
	RUN_PLACEMENT_AS_RECORDED,	/* the default: the recording's addresses where
					   it carries them (as RECORDED), else the
					   model's; never with a perturbed placement */
	RUN_PLACEMENT_MODEL,	/* the driver's rules measured on the H200 */
	RUN_PLACEMENT_RECORDED,	/* addresses from the trace's segment_alloc events */
};

struct trace_mem;

/* "model" or "recorded", as --placement spells it (AS_RECORDED: "recorded"). */
const char *run_placement_name(enum run_placement p);

struct run_spec {
	const char *path;
	const struct trace_mem *mem;	/* replay this instead of reading path */
	const struct policy_ops *policy;
	const struct policy_kv *opts;	/* policy options (--option KEY=VALUE) */
	size_t nopts;
	uint64_t capacity;		/* 0: unlimited */
	enum run_placement placement;
	uint64_t placement_seed;	/* the model's placement: 0 as measured, else one
					   with hidden reservations (--placements) */
	int unknown_frees_warn;		/* tolerate frees of unknown ids */
	int check_every;		/* policy check() after each event */
	int device;			/* PyTorch snapshots: which device, -1 busiest */
	sim_sample_fn *sampler;		/* told after every event, or NULL */
	void *sampler_arg;
	device_hook_fn *segment_hook;	/* told of every segment reserved and released
					   (mapped and unmapped), before the sample of
					   its event; or NULL */
	void *segment_hook_arg;
	uint64_t stop_after;		/* stop after this event index + 1 (0: the end);
					   for looking at the state at an event */
	int stop_at_oom;		/* end at the first OOM (SIM_STOP_AT_OOM) */
	uint64_t gpu_total;		/* --gpu: the card's memory, else 0 */
	int gpu_cc;			/* --gpu: its compute capability major */
	uint64_t device_total;		/* the card the frameworks size their defaults
					   from; 0: the trace's recording GPU */
	struct device_gpu *gpu;		/* a card shared with other jobs (share), or NULL */
	int policy_as_recorded;		/* no policy was named: a recording that says
					   its allocator's mode (a TensorFlow or JAX
					   profile) runs that one */
};

struct run_output {
	struct trace_reader *reader;	/* kept open: its header is reported
					   (NULL when the spec gave a trace_mem) */
	const struct trace_header *hdr;	/* the trace's header, either way */
	struct device *dev;
	struct sim *sim;
	struct sim_result res;
	struct policy_kv *opts;		/* the options the policy ran with, when not the
					   spec's: those and the recording's alloc_conf */
	size_t nopts;
	const struct policy_ops *policy;/* the policy that ran: the spec's, or the
					   recording's mode (policy_as_recorded) */
	int as_recorded;		/* options came from the recording (its
					   alloc_conf, or its BFC limit and flavor) */
	char recorded_limit[32];	/* ... the limit's digits, when they did */
	const char *recorded_conf;	/* the recording's PYTORCH_CUDA_ALLOC_CONF it ran
					   with (a caching run that set none), or NULL */
	char *label;			/* then: the policy as compare names it,
					   "caching alloc_conf=... (as recorded)" */
	enum run_placement placement;	/* the placement that ran: MODEL or RECORDED
					   (AS_RECORDED resolved once the run ends) */
	uint64_t recorded_used;		/* recorded placement: addresses used */
	uint64_t recorded_diverged;	/* ... segments the model had to place */
	struct trace_mem *held;		/* a trace read into memory for this output
					   alone (hdr may point into it); freed with it */
	char *oom_kept[2];		/* res.oom.at and .mark, once settled */
};

/*
 * Keep only what is reported of a finished run: its result, header and
 * options; the simulation and its device go (what they held grows with the
 * trace's live set), and the reader keeps no file open once it has read to
 * the end.  out->sim and out->dev are NULL after.
 */
void run_output_settle(struct run_output *out);

/*
 * Run spec; fills *out (release with run_output_free, also after a failure).
 * Returns 0, or a negative GMS_E* code with a located *cause.
 */
int run_simulate(const struct run_spec *spec, struct run_output *out, char **cause);

/*
 * The allocator settings a recording was made under (source.alloc_conf: a
 * PyTorch snapshot's allocator_settings), or NULL when it names none or
 * the defaults.  A caching run that sets no alloc_conf of its own simulates
 * them, as the job ran ("as recorded").
 */
const char *run_recorded_conf(const struct trace_header *hdr);
/*
 * Whether a caching run under alloc_conf (NULL: none) has the recording's
 * own settings, compared parsed: such a run follows the recorded addresses
 * by default (RUN_PLACEMENT_AS_RECORDED), any other is the model's.
 */
int run_conf_recorded(const struct trace_header *hdr, const char *alloc_conf);
/*
 * A TensorFlow or JAX profile's allocator: its mode ("preallocate" or
 * "grow-only", NULL when the profile does not show it), its framework
 * ("jax", "tensorflow") and the limit it enforced (bytes_limit).  Returns
 * 0 when hdr is not such a recording.
 */
int run_recorded_bfc(const struct trace_header *hdr, const char **mode, const char **framework,
    uint64_t *limit);
/*
 * The args spec's policy is created from on a trace with header hdr: its
 * options and the recording's where it sets none (held keeps them: free
 * held->opts after).  pre: spec->policy is the policy that runs.
 */
void run_policy_args(const struct run_spec *spec, const struct trace_header *hdr,
    struct run_output *held, struct policy_args *args);
/*
 * run_simulate's two ends, for a caller that feeds the events itself
 * (sim_event on out->sim; batch_run_shared): the device and the policy for
 * a trace with header hdr, and after the last event the result.  Both 0 or
 * a GMS_E* code with *cause.
 */
int run_prepare(const struct run_spec *spec, const struct trace_header *hdr,
    struct run_output *out, char **cause);
int run_finish(const struct run_spec *spec, struct run_output *out, char **cause);
void run_output_free(struct run_output *out);

/*
 * Read a trace once, checking it (through the `ideal` policy: duplicate live
 * ids, frees of unknown ids), for commands that look at the events
 * themselves (convert, info).  begin gets the header before any event; each
 * event then goes to fn.  Either returning < 0 stops the walk with its
 * *cause; fn returning 1 ends it there (*res then partial).  *res gets the
 * replay's statistics (the live peak).
 */
struct run_walk {
	const char *path;
	const struct trace_mem *mem;	/* walk this instead of reading path */
	int device;			/* as run_spec.device */
	int unknown_frees_warn;
	int (*begin)(void *arg, const struct trace_header *hdr, char **cause);
	int (*fn)(void *arg, uint64_t index, const struct trace_event *ev, char **cause);
	void *arg;
	const char *cut;		/* out: the header's cut once the end is read */
};
int run_walk(struct run_walk *w, struct sim_result *res, char **cause);

#endif /* SIM_RUN_H */
