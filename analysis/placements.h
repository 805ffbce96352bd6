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
#include "traces/tracemem.h"

#define PLACEMENTS_MAX 4096

/* What is kept of one placement's run: the range needs no more. */
struct placement_run {
	uint64_t peak_reserved;
	int oomed;
	uint64_t oom_event;
};

struct placements {
	size_t n;
	struct run_output model;	/* seed 0's whole output: the prediction (a
					   trace that cannot be read again is held by it) */
	struct placement_run *runs;	/* runs[i]: seed i */
	uint64_t capacity;
	/* over every placement */
	uint64_t peak_min, peak_max;
	size_t ooms;			/* placements that ran out of memory */
	uint64_t oom_first, oom_last;	/* their OOM events (when ooms > 0) */
};

/*
 * Run tmpl (a model placement) under n placements, threads at a time: no
 * more simulations are alive at once than run at once, so memory is that of
 * `threads` runs whatever n is.  Each group of them reads the trace once
 * (a file that cannot be read again is held in memory first).  Returns 0,
 * or the first failed run's GMS_E* code with its *cause (every run replays
 * the same events: one that fails, all do).
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
