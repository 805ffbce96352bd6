/*
 * placements.h - one run under N plausible placements (--placements=N): the
 * placement model as measured (seed 0, the prediction) and N - 1 processes
 * with hidden reservations (seeds 1 .. N-1, placement.h), each a replay of
 * its own on every core; the range of peak reserved, and under a capacity
 * how many run out of memory and where.
 */
#ifndef ANALYSIS_PLACEMENTS_H
#define ANALYSIS_PLACEMENTS_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "sim/batch.h"
#include "sim/run.h"

#define PLACEMENTS_MAX 4096

struct placements {
	size_t n;
	struct batch_job *jobs;		/* jobs[i]: seed i; jobs[0] is the prediction */
	uint64_t capacity;
	/* over every placement */
	uint64_t peak_min, peak_max;
	size_t ooms;			/* placements that ran out of memory */
	uint64_t oom_first, oom_last;	/* their OOM events (when ooms > 0) */
};

/*
 * Run tmpl (a model placement) under n placements on up to threads threads:
 * the trace is read once when tmpl reads a file.  Returns 0, or the first
 * failed run's GMS_E* code with its *cause (every run replays the same
 * events: one that fails, all do).
 */
int placements_run(const struct run_spec *tmpl, size_t n, int threads, struct placements *p,
    char **cause);
/* Does every placement fit (none ran out of memory)? */
int placements_all_fit(const struct placements *p);
/* "16 placements: ...": the range, for people; a paragraph ending in a newline. */
char *placements_text(const struct placements *p);
/* {"n", "peak_reserved": {min, max, prediction}, "oom": {...}, "runs": [...]}. */
cJSON *placements_json(const struct placements *p);
void placements_free(struct placements *p);

#endif /* ANALYSIS_PLACEMENTS_H */
