/*
 * kineto-stacks.h - call stacks for a PyTorch profile's [memory] events
 * (kineto.c): a profile recorded with_stack=True holds each Python call as
 * a span ("python_function" events), and every profile each operator
 * ("cpu_op") and record_function ("user_annotation"), on the thread that
 * ran it.  A memory event's stack is the spans of its thread that enclose
 * its time, innermost first, in trace.h's form; its site the innermost
 * Python frame outside torch and the installed packages.
 */
#ifndef TRACES_KINETO_STACKS_H
#define TRACES_KINETO_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

struct kstacks;

struct kstacks *kstacks_new(void);
void kstacks_free(struct kstacks *s);

/* One element of "traceEvents": kept when it is a span of a kind above. */
void kstacks_collect(struct kstacks *s, const cJSON *ev);
/*
 * The same for an element's bytes, read without cJSON: 1 when done, 0 when
 * the element is not plainly written (escapes, repeated keys, a field
 * missing): parse it and hand it to kstacks_collect instead.
 */
int kstacks_scan(struct kstacks *s, const char *bytes, size_t len);
/* Whether an element's bytes may be such a span (worth parsing). */
int kstacks_wanted(const char *bytes, size_t len);

/* A moment of one thread whose stack is asked for. */
struct kstack_point {
	int64_t pid, tid;
	double ts;
	const char *stack;	/* out: interned (owned by s), or NULL */
	const char *at;		/* out: interned, or NULL */
};
/*
 * Fill each point's stack and site (their order is kept; the spans are
 * dropped after).  Stacks stop once their distinct text reaches
 * KSTACKS_TEXT_MAX: later points get none, counted by kstacks_left_out.
 */
#define KSTACKS_TEXT_MAX ((uint64_t)64 << 20)
void kstacks_assign(struct kstacks *s, struct kstack_point *pts, size_t n);
uint64_t kstacks_left_out(const struct kstacks *s);
/* Spans collected (0: the profile holds none; its events get no stack). */
size_t kstacks_spans(const struct kstacks *s);

#endif /* TRACES_KINETO_STACKS_H */
