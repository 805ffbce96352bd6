/*
 * scale-plan.h - `gpumemsim plan --at V1 T1 --at V2 T2 ...`: for each GPU
 * model and each policy, the largest value of the job's size (batch,
 * sequence length) that fits the card, each searched as scale searches it
 * (analysis/scaling.h: every candidate built and replayed), with the run of
 * the value above it.  The question users bring before buying or renting a
 * card: "what batch fits on an A10, an L4, an H100?".
 */
#ifndef ANALYSIS_SCALE_PLAN_H
#define ANALYSIS_SCALE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "analysis/plan.h"
#include "analysis/scaling.h"
#include "sim/gpus.h"

struct scale_plan {
	struct scale_model *model;	/* not owned */
	const struct plan_policy *pols;	/* label, ops, options (results unused) */
	size_t npols;
	const struct gpu_model **gpus;
	size_t ngpus;
	uint64_t overhead;		/* taken off each card's memory */
	/* out: [gpu * npols + policy], each a search (no curve) on that card */
	struct scale_report *cells;
	int *errs;			/* < 0: that search could not run */
	char **causes;
};

/*
 * Search every cell on up to threads threads.  0, or the first cell's
 * error with *cause (a recording that cannot be built at some value).
 */
int scale_plan_run(struct scale_plan *p, int threads, char **cause);
void scale_plan_free(struct scale_plan *p);
cJSON *scale_plan_json(const struct scale_plan *p);
char *scale_plan_text(const struct scale_plan *p);

#endif /* ANALYSIS_SCALE_PLAN_H */
