/*
 * stacks.h - the live memory by call stack.  Every distinct frame and every
 * distinct stack a trace names is kept once, as a tree of frames whose root's
 * children are the outermost callers (a node is a frame called from its
 * parent's); a moment's live allocations add their bytes to their stacks'
 * nodes, and a view folds the tree (a frame filter, a depth) and shows it:
 * a tree for people, JSON, folded stacks (the input of flame-graph tools),
 * and an SVG icicle graph.  Memory follows the distinct stacks, never the
 * trace's length.
 */
#ifndef ANALYSIS_STACKS_H
#define ANALYSIS_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

/* The frame of allocations whose trace gives no stack. */
#define STACKS_NONE "(no stack)"
/* The frame that holds bytes whose every frame a filter left out. */
#define STACKS_FILTERED "(no frame matches)"

struct stack_tree;

struct stack_tree *stack_tree_new(void);
void stack_tree_free(struct stack_tree *t);

/*
 * The node of stack (trace.h's form: frames innermost first, each ended by
 * '\n'), made on first sight; a NULL or empty stack is STACKS_NONE's node.
 */
uint32_t stack_tree_intern(struct stack_tree *t, const char *stack);

/* The frames of node, innermost first, at most max into frames; how many. */
size_t stack_tree_frames(const struct stack_tree *t, uint32_t node, const char **frames,
    size_t max);

/* Nodes so far (the root, 0, among them). */
size_t stack_tree_nodes(const struct stack_tree *t);

/*
 * What a moment's live allocations hold, by the node of each one's own
 * stack (not yet summed into the callers): bytes and count arrays of
 * nnodes entries (nodes made later hold nothing).
 */
struct stack_values {
	uint64_t *bytes, *count;
	uint64_t *first, *last;	/* the events that made the oldest and newest */
	size_t nnodes;
	uint64_t live, nlive;	/* their sums */
};
void stack_values_init(struct stack_values *v, const struct stack_tree *t);
/* One live allocation of bytes, made at event, on node's stack. */
void stack_values_add(struct stack_values *v, uint32_t node, uint64_t bytes, uint64_t event);
void stack_values_free(struct stack_values *v);

/*
 * The tree stack_view_json wrote (a saved run's "tree"), read back: its
 * stacks into t, their own bytes and counts into v (events UINT64_MAX: not
 * known), made for t as it is after.  0, or -1 with *why when json is not such a tree.
 */
int stack_values_from_json(struct stack_tree *t, const cJSON *json, struct stack_values *v,
    const char **why);

/*
 * A view: the stacks of v with only the frames that match filter (an
 * fnmatch(3) pattern, NULL: every frame), cut at depth frames from the
 * outermost (0: whole), each node holding what it and its callees hold,
 * children largest first.  The view reads t's frames: t must outlive it.
 */
struct stack_view;
struct stack_view *stack_view_new(const struct stack_tree *t, const struct stack_values *v,
    const char *filter, unsigned depth);
void stack_view_free(struct stack_view *w);

/* Sum of the view (its root): equal to v's live and nlive. */
uint64_t stack_view_bytes(const struct stack_view *w);
uint64_t stack_view_count(const struct stack_view *w);

/*
 * The view as a tree for people, top children a node at most (the rest
 * folded into one line), each line "bytes share count frame", indented one
 * step at every branch: a frame that passes all of its bytes on to one
 * callee has it on the next line at the same indent.
 */
void stack_view_text(FILE *f, const struct stack_view *w, size_t top);

/* The view as nested JSON: {"frame", "bytes", "count", "children": [...]}. */
cJSON *stack_view_json(const struct stack_view *w);

/*
 * Folded stacks: a line per stack that holds bytes itself, "outer;...;inner
 * BYTES", the frames' own ';' written as ','.
 */
void stack_view_folded(FILE *f, const struct stack_view *w);

/*
 * An icicle graph (callers on top, widths in bytes), titles on hover; a
 * frame narrower than min_px pixels is left out with its callees (which
 * bounds the picture); in_html: an <svg> element for a page, no XML prolog.
 */
void stack_view_svg(FILE *f, const struct stack_view *w, const char *title, double min_px,
    int in_html);

/*
 * A frame as shown to people (buf, len): control characters as '?', and a
 * library's path from its package on ("torch/nn/modules/module.py:1779 f",
 * without the site-packages directory before it).
 */
const char *stack_frame_shown(const char *frame, char *buf, size_t len);

/* A stack of the view that holds bytes itself: its frames, outermost first. */
struct stack_leaf {
	const char *const *frames;
	size_t nframes;
	uint64_t bytes, count;	/* its own */
	uint64_t first, last;	/* the events that made its oldest and newest */
};
/* fn for every such stack, largest first as the folded lines are. */
void stack_view_leaves(const struct stack_view *w,
    void (*fn)(void *arg, const struct stack_leaf *l), void *arg);
/* Its frames as one folded line's stack: ';' between, a frame's own ';' as ',' (caller frees). */
char *stack_leaf_folded(const struct stack_leaf *l);

#endif /* ANALYSIS_STACKS_H */
