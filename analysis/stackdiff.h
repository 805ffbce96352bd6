/*
 * stackdiff.h - what grew between two runs, by call stack: the stacks that
 * hold bytes in either view (stacks.h) matched by their frames, each with
 * its bytes before and after and the events that made what is live after,
 * the largest growth first; as a table for people, JSON, and the
 * differential folded lines flame-graph tools draw ("stack BEFORE AFTER").
 */
#ifndef ANALYSIS_STACKDIFF_H
#define ANALYSIS_STACKDIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "analysis/stacks.h"

struct stack_diff_row {
	char *path;			/* the frames, outermost first, ';' between */
	char **frames;			/* ... one by one */
	size_t nframes;
	uint64_t before, after;		/* the stack's own bytes in each */
	uint64_t nbefore, nafter;	/* ... allocations */
	uint64_t first, last;		/* the events that made them: after's, else
					   before's; UINT64_MAX: not known (a saved run) */
	int first_in_after;		/* which run first and last are of */
};

struct stack_diff {
	struct stack_diff_row *rows;	/* by growth, largest first; shrinking last */
	size_t n;
	uint64_t before, after;		/* every byte of each view */
};

void stack_diff_build(const struct stack_view *before, const struct stack_view *after,
    struct stack_diff *d);
void stack_diff_free(struct stack_diff *d);

/* Growth, then shrinking: top rows of each, the rest summed; unchanged counted. */
void stack_diff_text(FILE *f, const struct stack_diff *d, size_t top);
/* {"before", "after", "grew": [...], "shrank": [...], "unchanged"}: top of each. */
cJSON *stack_diff_json(const struct stack_diff *d, size_t top);
/* Every stack: "outer;...;inner BEFORE AFTER" (a frame's own ';' as ','). */
void stack_diff_folded(FILE *f, const struct stack_diff *d);

#endif /* ANALYSIS_STACKDIFF_H */
