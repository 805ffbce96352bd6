/*
 * tracediff.h - two runs of a job compared (before and after a change, two
 * batch sizes, two ranks): each trace replayed through the same policy, its
 * live memory taken by call stack at its own moment (its OOM, else its peak
 * reservation), and what grew between them by stack (stackdiff.h), beside
 * the two runs' numbers.  compare's entry for two traces.
 */
#ifndef ANALYSIS_TRACEDIFF_H
#define ANALYSIS_TRACEDIFF_H

#include <cJSON.h>

#include "analysis/attrib.h"
#include "analysis/stackdiff.h"
#include "sim/run.h"

struct trace_diff {
	struct run_output out[2];	/* before, after */
	struct attrib at[2];
	const struct attrib_moment *m[2];	/* each run's moment, or NULL */
	struct stack_diff d;
	int ran[2];			/* out[i] holds a run to free */
};

/*
 * Run specs[0] (before) and specs[1] (after), each twice (the run, then its
 * moment), and diff their stacks through views with filter and depth
 * (stacks.h).  Each spec must be readable twice.  0, or a GMS_E* code with
 * *cause; td is freed by trace_diff_free either way.
 */
int trace_diff_run(const struct run_spec specs[2], const char *filter, unsigned depth,
    struct trace_diff *td, char **cause);
void trace_diff_free(struct trace_diff *td);

/* The two runs' numbers side by side, then what grew, top stacks of each sign. */
char *trace_diff_text(const struct trace_diff *td, const char *const names[2], size_t top);
/* {"before": {...}, "after": {...}, "stacks": stack_diff_json}. */
cJSON *trace_diff_json(const struct trace_diff *td, const char *const names[2], size_t top);

/*
 * What grew since a baseline, by stack: the saved run's stacks (stacks, the
 * "stacks" list `run --by-stack --format=json` writes) at its peak
 * reservation, against spec's run at its own (a run and a second pass),
 * through views with filter and depth (stacks.h) as trace_diff_run's.
 * 0 with d filled; 1 when the baseline holds no stacks at its peak; or a
 * GMS_E* code with *cause (GMS_ETRACE: the baseline's stacks are not such
 * a list).
 */
int trace_diff_baseline(const struct run_spec *spec, const cJSON *stacks, const char *filter,
    unsigned depth, struct stack_diff *d, char **cause);

#endif /* ANALYSIS_TRACEDIFF_H */
