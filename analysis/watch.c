/*
 * watch.c - a run's observers (watch.h): the peak's sampler chained before
 * the timeline's.
 */
#include "config.h"

#include <string.h>

#include "analysis/watch.h"
#include "sim/gms.h"

void
run_watch(struct run_watch *w, unsigned what, size_t points, struct run_spec *spec)
{
	memset(w, 0, sizeof(*w));
	timeline_init(&w->tl, points);
	if (what & WATCH_TIMELINE) {
		spec->sampler = timeline_sample;
		spec->sampler_arg = &w->tl;
	}
	if (what & WATCH_PEAK) {
		w->peak.next = spec->sampler;
		w->peak.next_arg = spec->sampler_arg;
		spec->sampler = attrib_peak_sample;
		spec->sampler_arg = &w->peak;
	}
	seg_log_init(&w->segs);
	if (what & WATCH_SEGMENTS) {
		w->segs.next_fn = spec->sampler;
		w->segs.next_arg = spec->sampler_arg;
		spec->sampler = seg_log_sample;
		spec->sampler_arg = &w->segs;
		spec->segment_hook = seg_log_hook;
		spec->segment_hook_arg = &w->segs;
	}
}

void
run_watch_free(struct run_watch *w)
{
	timeline_free(&w->tl);
	seg_log_free(&w->segs);
}

struct attrib_peak *
run_watch_peaks(const struct run_watch *w, size_t n)
{
	struct attrib_peak *peaks = gms_calloc(n + 1, sizeof(*peaks));
	size_t i;

	for (i = 0; i < n; i++)
		peaks[i] = w[i].peak;
	return peaks;
}
