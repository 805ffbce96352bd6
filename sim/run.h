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
	RUN_PLACEMENT_MODEL,	/* the simulated device's placement model */
	RUN_PLACEMENT_RECORDED,	/* addresses from the trace's segment_alloc events */
};

struct run_spec {
	const char *path;
	const struct policy_ops *policy;
	const struct policy_kv *opts;	/* policy options (--option KEY=VALUE) */
	size_t nopts;
	uint64_t capacity;		/* 0: unlimited */
	enum run_placement placement;
	int unknown_frees_warn;		/* tolerate frees of unknown ids */
	int check_every;		/* policy check() after each event */
};

struct run_output {
	struct trace_reader *reader;	/* kept open: its header is reported */
	struct device *dev;
	struct sim *sim;
	struct sim_result res;
	uint64_t recorded_used;		/* recorded placement: addresses used */
	uint64_t recorded_diverged;	/* ... segments the model had to place */
};

/*
 * Run spec; fills *out (release with run_output_free, also after a failure).
 * Returns 0, or a negative GMS_E* code with a located *cause.
 */
int run_simulate(const struct run_spec *spec, struct run_output *out, char **cause);
void run_output_free(struct run_output *out);

#endif /* SIM_RUN_H */
