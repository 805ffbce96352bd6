/*
 * watch.h - what a run is watched for while it replays, its observers: its
 * timeline (the live, allocated and reserved bytes over the events) and
 * where its reservation first peaks (so that what holds the memory there
 * can be found).  One structure per run, attached to its run_spec in one
 * place and one order, by every command that watches runs (run, compare,
 * report, plot) and by any caller of the library.
 */
#ifndef ANALYSIS_WATCH_H
#define ANALYSIS_WATCH_H

#include <stddef.h>

#include "analysis/attrib.h"
#include "analysis/seglog.h"
#include "analysis/timeline.h"
#include "sim/run.h"

#define WATCH_TIMELINE 0x1	/* w->tl: the run's timeline */
#define WATCH_PEAK 0x2		/* w->peak: where reserved first reaches its peak */
#define WATCH_SEGMENTS 0x4	/* w->segs: its segments over the events */

struct run_watch {
	struct timeline tl;
	struct attrib_peak peak;
	struct seg_log segs;
};

/*
 * Watch spec's run for what (WATCH_*): a timeline of points rows (0: every
 * change, which the caller streams or spills: timeline.h), and the peak,
 * which is told every sample first and passes it on to the timeline.  spec's
 * sampler is replaced; w must outlive the run.
 */
void run_watch(struct run_watch *w, unsigned what, size_t points, struct run_spec *spec);
void run_watch_free(struct run_watch *w);

/* The peaks of w[0..n), as attrib_run_jobs takes them (the caller frees). */
struct attrib_peak *run_watch_peaks(const struct run_watch *w, size_t n);

#endif /* ANALYSIS_WATCH_H */
