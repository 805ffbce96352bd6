/*
 * scale.h - the trace of a run nobody made: from recordings of one job at
 * several values of one size (batch, sequence length, image side), the
 * allocations it would make at another value.  The recordings' events are
 * aligned (same op, same site, same stream, in the same order: traces/align.h);
 * each aligned allocation's size is fitted as a function of the value, in
 * the simplest form the recordings support; the trace at V follows the
 * recording nearest V event for event (its frees, times, streams, marks),
 * with every size taken from its fit.
 */
#ifndef TRACES_SCALE_H
#define TRACES_SCALE_H

#include <stddef.h>
#include <stdint.h>

struct trace_mem;

/* Values a recording may be made at, and how far beyond them scale goes. */
#define SCALE_VALUE_MAX 1048576
#define SCALE_EXTRAPOLATION_MAX 1024	/* times the largest recorded value */

/* The form an allocation's size took. */
enum scale_form {
	SCALE_CONST,		/* the same at every recorded value */
	SCALE_AFFINE,		/* a + b V */
	SCALE_QUADRATIC,	/* a + b V + c V^2 (from two recordings: c V^2) */
	SCALE_CAPPED,		/* a + b V up to the largest recorded, which it
				   stops at (from three or more: a reduction's
				   staging buffer, whose grid the GPU caps) */
	SCALE_NOFIT,		/* no form through every recording: the quadratic
				   through the three nearest V; from two, a size
				   that shrinks or grows faster than V (not as V^2):
				   a library's choice, its larger kept */
	SCALE_UNALIGNED,	/* only in the recording followed: in proportion to V
				   (as recorded, for the low end) */
	SCALE_NFORMS
};
/* "constant", "affine", ... as the reports spell them. */
const char *scale_form_name(enum scale_form f);

struct scale_rec {
	const char *path;
	uint64_t value;
	struct trace_mem *mem;	/* the recording, read whole (not owned) */
};

struct scale_model;

/*
 * Take n >= 2 recordings (values distinct, 1 to SCALE_VALUE_MAX; each one
 * a whole job: not cut short, not from a ring buffer, not ended by an OOM).
 * Returns 0 or a GMS_E* code with *cause naming the recording.
 */
int scale_model_new(const struct scale_rec *recs, size_t n, struct scale_model **out,
    char **cause);
void scale_model_free(struct scale_model *m);

/* What building the trace at one value took: how sure it is. */
struct scale_built {
	uint64_t value;
	size_t base;			/* the recording followed (nearest the value) */
	size_t allocs;			/* its allocations */
	size_t forms[SCALE_NFORMS];	/* ... by the form their size took */
	uint64_t unaligned_bytes;	/* SCALE_UNALIGNED's bytes at the value */
	size_t clamped;			/* fits at or below 0, raised to the least recorded */
	size_t first_unaligned;		/* the first such allocation's event in the
					   recording followed (when forms[UNALIGNED]) */
	size_t first_nofit;		/* ... and of SCALE_NOFIT */
	size_t uncapped;		/* reductions' staging buffers grown past the
					   largest recorded, with no cap seen yet */
	size_t first_uncapped;		/* ... the first one's event */
	double beyond;			/* value / largest recorded, or smallest / value,
					   when outside the recordings (> 1); else 0 */
};

/*
 * The alignment of recording r with recording base: allocations of base
 * matched (*aligned) out of *allocs, and the edits (insertions and
 * deletions of input events) between them.  Returns 0 or GMS_ETRACE when the
 * two differ too much to be one job (*cause says where they part).
 */
int scale_alignment(struct scale_model *m, size_t base, size_t r, size_t *aligned,
    size_t *allocs, long *edits, char **cause);

/*
 * Build the trace at value (1 to SCALE_EXTRAPOLATION_MAX times the largest
 * recorded value): a trace_mem of input events only (allocations, frees,
 * marks, empty_cache; the recordings' segments and addresses are theirs,
 * not the new run's), named "NAME at VALUE".  *info says how it was made.
 * Returns 0 or a GMS_E* code with *cause.
 */
int scale_build(struct scale_model *m, uint64_t value, struct trace_mem **out,
    struct scale_built *info, char **cause);

/*
 * What the recordings leave open, taken at either end: SCALE_FIT (what
 * scale_build builds) takes each size from its fit, an allocation seen in
 * one recording only in proportion to the value; SCALE_LOW takes that one as
 * recorded, and a reduction's staging buffer grown past every recording as
 * though the GPU's cap were the largest recorded.  Sizes that do not grow
 * with the value, the two ends agree: the peak's range is between the two
 * traces' (info->forms[SCALE_UNALIGNED] or info->uncapped say whether there
 * is one).
 */
enum scale_bound { SCALE_FIT, SCALE_LOW };
int scale_build_bound(struct scale_model *m, uint64_t value, enum scale_bound bound,
    struct trace_mem **out, struct scale_built *info, char **cause);

/*
 * Align every pair of recordings now (building aligns lazily, the pairs it
 * needs).  After it succeeds scale_build only reads the model, so several
 * threads may build from it at once.  0, or scale_alignment's error.
 */
int scale_model_align(struct scale_model *m, char **cause);

/* Event i of a trace built after recording base: its index in that recording. */
uint64_t scale_event_of(const struct scale_model *m, size_t base, uint64_t i);

/* The recordings, sorted by value. */
size_t scale_nrecs(const struct scale_model *m);
const struct scale_rec *scale_rec_at(const struct scale_model *m, size_t i);

#endif /* TRACES_SCALE_H */
