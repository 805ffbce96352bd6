/*
 * plot.h - pictures drawn with gnuplot (a dependency of `gpumemsim plot`
 * only): a timeline of live, allocated and reserved bytes per policy, and a
 * memory map of segments and their blocks.  The gnuplot scripts are
 * analysis/plot-*.gp, built into the binary.
 */
#ifndef ANALYSIS_PLOT_H
#define ANALYSIS_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/timeline.h"
#include "sim/policy.h"

struct plot_point {
	uint64_t event;
	uint64_t bytes;		/* OOM points: reserved there */
	const char *label;
	size_t series;		/* OOM points: the policy's index in tls */
};

/*
 * Every picture is drawn in a private directory, checked whole and only then
 * written to fd (the caller's output: a file's temporary twin, standard
 * output); out is its name as the user gave it, which says the format (.svg,
 * .png; "-" is an SVG) and names it in messages.
 */
struct plot_timeline_args {
	const char *out;		/* .svg or .png */
	int fd;
	const char *title;
	struct timeline *const *tls;	/* one per policy */
	const char *const *labels;
	size_t n;
	uint64_t capacity;		/* drawn as a line; 0: none */
	const struct plot_point *marks;	/* vertical lines */
	size_t nmarks;
	const struct plot_point *ooms;
	size_t nooms;
	const char *xlabel;		/* NULL: "event" */
	int ranks;			/* each series another rank's: no common live line,
					   and x is not one trace's event (peaks unnamed by it) */
};

/* 0, GMS_ENOTBUILT when gnuplot is missing, GMS_EIO, GMS_ECONFIG (bad name). */
int plot_timeline(const struct plot_timeline_args *a, char **cause);

/*
 * share: each job's reservation stacked over time from csv (share_run's
 * timeline: t_us, a column per job, used, free), the card's capacity, and
 * the out-of-memory points (event: the time in us, bytes: in use then).
 */
int plot_share(const char *out, int fd, const char *title, const char *csv,
    const char *const *names, size_t njobs, uint64_t capacity, const struct plot_point *ooms,
    size_t nooms, char **cause);

/*
 * scale: peak reserved and allocated against the value (n points, recorded
 * ones marked), the capacity (0: none) and the largest value fitting it (0: none).
 */
int plot_scale(const char *out, int fd, const char *title, const uint64_t *values,
    const uint64_t *reserved, const uint64_t *allocated, const int *recorded, size_t n,
    uint64_t capacity, uint64_t largest, char **cause);

/* Render the segments and blocks a walk of (ops, state) reports. */
int plot_map(const char *out, int fd, const char *title, const struct policy_ops *ops,
    void *state, char **cause);

/* "svg" or "png" from the output's name ("-": svg); NULL with *cause otherwise. */
const char *plot_term(const char *out, char **cause);

#endif /* ANALYSIS_PLOT_H */
