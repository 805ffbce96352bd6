/*
 * check.h - thresholds on a run, for CI (`gpumemsim check`): each check has
 * a value, a limit and a verdict, reported as text, JSON or TAP.
 */
#ifndef ANALYSIS_CHECK_H
#define ANALYSIS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "sim/sim.h"

enum check_unit { CHECK_BYTES, CHECK_RATIO, CHECK_COUNT, CHECK_FITS, CHECK_COMPLETE };

struct check_item {
	char name[192];		/* "peak_reserved", "baseline peak_reserved", or
				   "LABEL peak_reserved" for one of several */
	enum check_unit unit;
	double value, limit;	/* CHECK_FITS: value is the OOM event + 1 (0: fits) */
	int pass;
	char detail[160];	/* why, for a person */
};

struct check_list {
	struct check_item *items;
	size_t n, cap;
};

/* Add a check that value <= limit. */
void check_le(struct check_list *l, const char *name, enum check_unit unit, double value,
    double limit, const char *detail);
/* Add a "fits in capacity" check from a run's result. */
void check_fits(struct check_list *l, const char *name, uint64_t capacity,
    const struct sim_result *res, const struct trace_header *hdr);
/*
 * Add a "the trace holds the whole job" check (--must-be-complete): it fails
 * for a trace cut short by its out of memory, one that starts mid-run, one
 * cut off, one whose numbers disagree, and says which.
 */
struct trace_header;
void check_complete(struct check_list *l, const char *name, const struct trace_header *hdr);
/* The same under every placement of p (--placements): it fits when all do. */
struct placements;
void check_fits_placements(struct check_list *l, const char *name, const struct placements *p,
    const struct trace_header *hdr);
/*
 * Compare with a baseline (a saved `run --format=json` object of the same
 * trace, unless trace is NULL, and policy): none of its five metrics may be exceeded by more than
 * tolerance (a ratio: 0.02 is 2%), and a baseline that fitted must still fit.  Returns 0,
 * or GMS_ETRACE with *cause when the baseline is not such an object (another
 * trace or policy, a metric missing or one no run could give).
 */
int check_baseline(struct check_list *l, const cJSON *base, const char *trace,
    const char *policy, const struct sim_result *res, double tolerance, char **cause);
size_t check_failed(const struct check_list *l);
void check_free(struct check_list *l);

char *check_text(const struct check_list *l, const char *title);
char *check_tap(const struct check_list *l);
cJSON *check_json(const struct check_list *l);

#endif /* ANALYSIS_CHECK_H */
