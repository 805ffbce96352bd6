/*
 * scaling.h - `gpumemsim scale`'s answers over the traces traces/scale.h builds:
 * the peak at each value asked (the curve), and the largest value that fits
 * a capacity, searched over the integers with every candidate replayed, and
 * the run of the value above it (its OOM).  Then the report, text or JSON,
 * with how sure each answer is.
 */
#ifndef ANALYSIS_SCALING_H
#define ANALYSIS_SCALING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "sim/run.h"
#include "traces/scale.h"

/*
 * One value's run.  In the curve, the peaks are the job's with no limit
 * and the OOM (oomed and after) its run under the capacity, when there is one.
 */
struct scale_point {
	uint64_t value;
	struct scale_built built;
	uint64_t peak_reserved, peak_allocated, peak_live;
	int ranged;			/* the recordings leave the peak open (a curve
					   point's): the trace built at SCALE_LOW
					   (traces/scale.h) peaks elsewhere: at
					   alt_reserved, which may be above the fit's (a
					   caching allocator's peak is not monotone in
					   the sizes) */
	uint64_t alt_reserved, alt_allocated;
	int oomed;
	uint64_t oom_event;		/* in the recording followed (built.base) */
	uint64_t oom_size;
	char *oom_at;
};

struct scale_report {
	struct scale_model *model;
	const char *policy;		/* its label */
	uint64_t capacity;		/* the runs' capacity; 0: none */
	const char *gpu;		/* the card it comes from, or NULL */
	struct scale_point *points;	/* the curve, by value */
	size_t npoints;
	/* with a capacity: the largest value that fits it */
	int searched;
	uint64_t search_max;		/* the largest value searched */
	int found;			/* some value fits */
	struct scale_point fit;		/* the largest that fits (when found) */
	struct scale_point next;	/* the value above it, or 1 when none fits */
	uint64_t fits_again;		/* a value above next that fits again, or 0 */
	size_t probes;			/* replays the search made */
};

/* Build the trace at p->value and run it as spec says (spec->mem is set here). */
int scale_point_run(struct scale_model *m, const struct run_spec *spec, struct scale_point *p,
    char **cause);

/*
 * Fill rep: rep->points (values set by the caller) each run under spec;
 * and, when spec->capacity is set, the search for the largest value up to
 * search_max that fits.  0 or a GMS_E* code with *cause.
 */
int scale_run(struct scale_report *rep, const struct run_spec *spec, uint64_t search_max,
    char **cause);
void scale_report_free(struct scale_report *rep);

cJSON *scale_json(const struct scale_report *rep);
/* How one trace was built, into o: follows, beyond, sizes, unaligned_bytes, clamped. */
void scale_built_json(cJSON *o, const struct scale_model *m, const struct scale_built *b);
/* ... and as text: a line for each thing that makes it less sure (none: nothing). */
void scale_built_text(FILE *f, const struct scale_model *m, const struct scale_built *b);
char *scale_text(const struct scale_report *rep);

#endif /* ANALYSIS_SCALING_H */
