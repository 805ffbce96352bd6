/*
 * tracemem.h - a trace read once into memory, compactly (24 bytes an event,
 * strings interned), for commands that replay it many times (plan, tune):
 * parsing is most of a replay's cost, so they pay it once.  Memory is then
 * proportional to the trace's length, not to what is live.
 */
#ifndef TRACES_TRACEMEM_H
#define TRACES_TRACEMEM_H

#include <stddef.h>
#include <stdint.h>

#include "traces/trace.h"

struct trace_mem;

/*
 * Whether a second pass over path is better made from memory: formats slow
 * to parse (a snapshot pickle, a profiler trace, by their names), where
 * holding 24 bytes an event beats parsing the file again.  Standard input
 * ("-"), a pipe or a device too: they cannot be read again.
 */
int trace_mem_worth(const char *path);

/* Read path whole.  Returns 0, or a GMS_E* code with a located *cause. */
int trace_mem_load(const char *path, const struct trace_opts *opts, struct trace_mem **out,
    char **cause);
/*
 * A trace made rather than read (scale builds one at a value nobody ran):
 * an empty one named path with a copy of hdr, then events appended in order
 * (strings copied).  trace_mem_append returns 0 or GMS_ETRACE with *cause.
 */
struct trace_mem *trace_mem_new(const char *path, const struct trace_header *hdr);
int trace_mem_append(struct trace_mem *m, const struct trace_event *ev, char **cause);
size_t trace_mem_count(const struct trace_mem *m);
/* Event i (strings live as long as m). */
void trace_mem_event(const struct trace_mem *m, size_t i, struct trace_event *ev);
/* The header, as the reader gave it (cJSON members owned by m). */
const struct trace_header *trace_mem_header(const struct trace_mem *m);
/* "path: event N", for messages (into buf). */
const char *trace_mem_where(const struct trace_mem *m, size_t i, char *buf, size_t len);
void trace_mem_free(struct trace_mem *m);
/* Were frees of unknown ids to be tolerated (trace_opts.unknown_frees_warn)? */
int trace_mem_unknown_frees_warn(const struct trace_mem *m);

#endif /* TRACES_TRACEMEM_H */
