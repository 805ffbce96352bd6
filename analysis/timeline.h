/*
 * timeline.h - live, allocated and reserved bytes over a run, for
 * `run --timeline`, `compare --timeline` and `plot`.  Fed by the engine's
 * sampler after every event; keeps either every change, or (points > 0) an
 * envelope of about that many rows that keeps every peak: events fall into
 * buckets of a width that doubles as the trace goes on, and each bucket keeps
 * its largest values and the event where reserved peaked in it.  Memory is
 * O(points), whatever the trace's length.
 */
#ifndef ANALYSIS_TIMELINE_H
#define ANALYSIS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/sim.h"

struct timeline_row {
	uint64_t event;
	int64_t t_us;
	int has_time;
	uint64_t live, allocated, reserved;
	int stopped;		/* after an OOM: allocated and reserved mean nothing */
};

struct timeline {
	size_t points;		/* 0: every change */
	struct timeline_row *rows;
	size_t n, cap;
	uint64_t width;		/* events per bucket (points > 0) */
	struct timeline_row last;
	int have_last;
	FILE *out;		/* every change written here as it comes (a CSV) */
	FILE *spill;		/* ... or here, to be merged with other timelines */
	int spill_failed;
};

void timeline_init(struct timeline *tl, size_t points);
/* The sampler to give sim_set_sampler (arg: the timeline). */
void timeline_sample(void *arg, const struct sim_sample *smp);
void timeline_free(struct timeline *tl);

/*
 * An envelope of rows made factor times coarser: each run of factor rows
 * folded into one (the largest values, reserved's peak event), as the
 * timeline folds its own buckets.  Returns the new rows (caller frees) and
 * their number in *nout.
 */
struct timeline_row *timeline_coarsen(const struct timeline_row *rows, size_t n,
    size_t factor, size_t *nout);

/*
 * Without an envelope (points 0) a timeline would hold every change: rather,
 * timeline_stream() writes its CSV header to f and then each row as it comes
 * (one timeline), and timeline_spill() keeps the rows in a temporary file for
 * timeline_write_csv() to merge (several).  Either way memory stays O(1).
 * timeline_spill returns 0, or -1 (errno set).
 */
void timeline_stream(struct timeline *tl, FILE *f);
int timeline_spill(struct timeline *tl);

/*
 * Write one or more timelines of the same trace as CSV: event, t_us, live,
 * then allocated and reserved per timeline (columns named after labels[i]
 * when there are several).  Rows are the union of their events; a timeline
 * without a row at an event repeats its last value there.  Returns 0 or -1
 * (errno set) when f cannot be written.
 */
int timeline_write_csv(FILE *f, struct timeline *const *tls, const char *const *labels,
    size_t n);

#endif /* ANALYSIS_TIMELINE_H */
