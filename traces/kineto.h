/*
 * kineto.h - PyTorch profiler (Kineto) Chrome traces as gpumemsim traces:
 * the mapping of "[memory]" events (kineto.c); trace-json.c streams the
 * document and calls these, once per element of "traceEvents" and pass.
 */
#ifndef TRACES_KINETO_H
#define TRACES_KINETO_H

#include <stddef.h>

#include <cJSON.h>

#include "traces/trace.h"

struct kineto;

/* device: the CUDA device to read, or -1 for the one with the most [memory] events. */
struct kineto *kineto_new(int device);
void kineto_free(struct kineto *k);

/*
 * One element of "traceEvents": a CUDA [memory] event is counted and kept
 * (anything else is ignored).  0, or GMS_ETRACE with *cause (its numbers).
 */
int kineto_collect(struct kineto *k, const cJSON *ev, char **cause);
/*
 * An element that is not a [memory] event, from its bytes: 1 when read
 * (a call's span kept for the stacks, or nothing to keep), 0 when it must
 * be parsed and handed to kineto_collect.
 */
int kineto_scan(struct kineto *k, const char *bytes, size_t len);
/*
 * After the last element: fix the device, put its events in the profiler's
 * order and find what was live before the profile.  0, or GMS_ETRACE with
 * *cause (no such events).
 */
int kineto_choose(struct kineto *k, char **cause);
/*
 * The trace's header (caller owns it): name, source, starts_mid_run with
 * what came before, and the observed peaks.
 */
cJSON *kineto_header(struct kineto *k, const char *name);
/* The next event: the seeded blocks, then the device's events.  1 with *out, or 0 at the end. */
int kineto_next(struct kineto *k, struct trace_event *out);

#endif /* TRACES_KINETO_H */
