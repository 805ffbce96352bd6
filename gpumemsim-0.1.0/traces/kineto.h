/*
 * kineto.h - PyTorch profiler (Kineto) Chrome traces as gpumemsim traces:
 * the mapping of "[memory]" events (kineto.c); trace-json.c streams the
 * document and calls these, once per element of "traceEvents" and pass.
 */
#ifndef TRACES_KINETO_H
#define TRACES_KINETO_H

#include <cJSON.h>

#include "traces/trace.h"

struct kineto;

/* device: the CUDA device to read, or -1 for the one with the most [memory] events. */
struct kineto *kineto_new(int device);
void kineto_free(struct kineto *k);

/* Pass 1: count the [memory] events per device. */
void kineto_count(struct kineto *k, const cJSON *ev);
/* After pass 1: fix the device.  0, or GMS_ETRACE with *cause (no such events). */
int kineto_choose(struct kineto *k, char **cause);
/* Pass 2: follow the chosen device's live set.  0, or GMS_ETRACE with *cause. */
int kineto_scan(struct kineto *k, const cJSON *ev, char **cause);
/*
 * After pass 2: the trace's header (caller owns it): name, source, and
 * either starts_mid_run with what came before, or the observed peak reserved.
 * Resets the live set for pass 3.
 */
cJSON *kineto_header(struct kineto *k, const char *name);
/*
 * Pass 3: the element as an event of the chosen device.  1 with *out, 0 for
 * an element that is none, or GMS_ETRACE with *cause.
 */
int kineto_event(struct kineto *k, const cJSON *ev, struct trace_event *out, char **cause);

#endif /* TRACES_KINETO_H */
