/*
 * attrib.h - what holds the memory at a moment of a run: the live
 * allocations grouped by call site (the trace's "at", named by the snapshot
 * readers' rules), beside what the policy had reserved and not handed out
 * then; and, for the report, the policy's segments and blocks with the site
 * of each block.  The moments (the peak reservation, the OOM, the live peak)
 * come from a first run; a second run feeds this its events through the
 * engine's sampler.  Memory follows what is live, never the trace's length.
 */
#ifndef ANALYSIS_ATTRIB_H
#define ANALYSIS_ATTRIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "analysis/stacks.h"
#include "sim/sim.h"

/* The site of allocations whose trace says nothing of where they were made. */
#define ATTRIB_NO_SITE "(no call site)"

/* Where reserved first reaches its peak: a sampler (next, when set, is told too). */
struct attrib_peak {
	uint64_t reserved, event;
	int seen;
	sim_sample_fn *next;
	void *next_arg;
};
void attrib_peak_sample(void *arg, const struct sim_sample *smp);

/* One call site's live allocations at a moment. */
struct attrib_row {
	const char *site;	/* owned by the attrib */
	uint64_t bytes;		/* requested bytes live */
	uint64_t count;		/* allocations live */
	uint64_t first, last;	/* the events that made the oldest and the newest of them */
};

/* A policy's memory at a moment, for the map: its segments and their blocks. */
struct attrib_segment {
	uint64_t addr, size;
	int64_t stream;
	const char *pool;	/* static: the policy's */
};
struct attrib_block {
	uint64_t addr, size;
	uint64_t requested;	/* 0 for a free block */
	uint64_t event;		/* the alloc's event (allocated blocks with a site) */
	size_t seg;		/* index into segs */
	int allocated;
	long site;		/* index into the attrib's sites; -1: none known */
	uint32_t stack;		/* its node in the attrib's stack tree (0: none known) */
};

/*
 * The request a chosen moment's event made, and what the policy did with it:
 * which free block it took, or that none fit and a segment was reserved, or
 * that it could not be served; for a free, what it gave back.
 */
struct attrib_request {
	int has;		/* the event is an allocation or a free */
	int op;			/* TRACE_ALLOC (any request) or TRACE_FREE */
	uint64_t id, size;
	int64_t stream;
	int served;		/* after the event the policy holds a block for it */
	uint64_t addr, block;	/* that block */
	int from_free;		/* it lies in a block that was free before the event */
	uint64_t free_addr, free_size, seg_addr, seg_size;	/* that free block, its segment */
	uint64_t largest_free;	/* the largest block free before the event */
	uint64_t reserved_before, reserved_after;	/* the policy's reservation */
	uint64_t made_at;	/* a free: the event that made what it frees */
	long site;		/* ... and its site (-1: none known) */
};

/* The largest stacks of a stacked site at a moment (attrib_stack, with stacks kept). */
#define ATTRIB_SITE_STACKS 3
struct attrib_site_stacks {
	uint32_t node[ATTRIB_SITE_STACKS];
	uint64_t bytes[ATTRIB_SITE_STACKS];
};

#define ATTRIB_MOMENTS 16

struct attrib_moment {
	const char *key;	/* for scripts: "peak_reserved", "oom", "live_peak" */
	const char *what;	/* for people: "peak reservation", "OOM", "live peak" */
	uint64_t event;
	int before;		/* the state before the event: the request that failed */
	int want_map;		/* keep the policy's segments and blocks too */
	/* filled when the moment is reached: */
	int taken;
	uint64_t live, nlive;	/* requested bytes live, allocations live */
	struct attrib_row *rows;/* every site with something live, largest first */
	size_t nrows;
	int has_policy;		/* a policy ran: the three below are its */
	uint64_t reserved, allocated, largest_free;
	struct attrib_segment *segs;
	size_t nsegs;
	struct attrib_block *blocks;
	size_t nblocks;
	struct stack_values stk;	/* by stack, when the attrib keeps stacks */
	struct attrib_request req;	/* a chosen event's ("at", with want_map) */
	struct attrib_site_stacks *site_stacks;	/* nstack + 1 (the rest last), or NULL */
};

struct attrib_site;
struct attrib_live;

struct attrib {
	struct attrib_moment m[ATTRIB_MOMENTS];
	size_t n;
	uint64_t last;			/* the last event any moment needs */
	uint64_t live_bytes;		/* requested bytes live now */
	int trace_only;			/* the trace's live set alone, no policy numbers */
	/* the live set and the sites, private */
	struct attrib_site *sites;	/* by name (uthash) */
	struct attrib_site **byidx;	/* by index */
	size_t nsites, capsites;
	struct attrib_live *live;	/* by id (uthash) */
	struct stack_tree *stacks;	/* every stack seen (attrib_want_stacks), or NULL */
	int saw_stack;			/* ... and whether any allocation had one */
	/* the stack (attrib_stack): live bytes of the chosen sites over time */
	uint64_t at[ATTRIB_MOMENTS];	/* attrib_at's events, for attrib_run */
	size_t nat;
	size_t nstack;			/* sites stacked, the rest as one */
	long *stack_site;		/* their indices (-1: not seen yet) */
	const char **stack_names;
	uint64_t *cur;			/* live bytes per site index */
	uint64_t width, nbuckets;	/* events per bucket */
	struct attrib_bucket *buckets;
	/* the policy's memory before a chosen event (attrib_request), private */
	struct attrib_moment pre;
	uint64_t pre_event, pre_reserved;
};

/* One bucket of the stack: at its largest live, what each stacked site held. */
struct attrib_bucket {
	uint64_t event;
	uint64_t live;
	uint64_t *bytes;	/* nstack + 1: the chosen sites, then the rest */
	int seen;
};

void attrib_init(struct attrib *a);
void attrib_free(struct attrib *a);
/* Keep each live allocation's stack too: every moment gets its stk. */
void attrib_want_stacks(struct attrib *a);
/*
 * Ask attrib_run for the moment after event too ("at", "chosen event"),
 * after its peak and OOM; -1 when full (ATTRIB_AT_MAX).  With want_map the
 * moment says what the policy did with the event's request (attrib_request).
 */
#define ATTRIB_AT_MAX (ATTRIB_MOMENTS - 3)
int attrib_at(struct attrib *a, uint64_t event);
/* The one moment a single picture shows: the first --at, else the OOM, else the peak. */
const struct attrib_moment *attrib_chosen(const struct attrib *a);

/* Ask for the moment at event (before: ahead of its event); -1 when full. */
int attrib_add(struct attrib *a, const char *key, const char *what, uint64_t event, int before,
    int want_map);

/*
 * Keep, for events buckets of width events each, the live bytes of the
 * named sites (the rest folded into one) at each bucket's largest live.
 * names is kept, not copied: the array and its strings must outlive a.
 */
void attrib_stack(struct attrib *a, const char *const *names, size_t n, uint64_t events,
    size_t points);

/*
 * Feed one event that the engine accepted; smp: the engine's sample after
 * it (the policy's numbers and blocks), or NULL where no policy ran.
 */
void attrib_event(struct attrib *a, uint64_t index, const struct trace_event *ev,
    const struct sim_sample *smp);
/* The same as a sampler (arg: the attrib). */
void attrib_sample(void *arg, const struct sim_sample *smp);

/*
 * The moments of a run of spec that ended with res, taken by a second run:
 * the peak reservation (peak, from attrib_peak_sample) and the OOM, when
 * res has one; want_map keeps the policy's blocks too.  spec must be
 * readable twice (a file or a trace_mem).  0, or a GMS_E* code with *cause.
 */
struct run_spec;
int attrib_run(const struct run_spec *spec, const struct sim_result *res,
    const struct attrib_peak *peak, int want_map, struct attrib *a, char **cause);

/*
 * attrib_run for every job of a batch that ran (err 0), on up to threads
 * threads: ats[i] from jobs[i]'s result and peaks[i].  0, or the first
 * failure's GMS_E* code with *cause.
 */
struct batch_job;
int attrib_run_jobs(struct batch_job *jobs, size_t n, const struct attrib_peak *peaks,
    int want_map, struct attrib *ats, int threads, char **cause);

/*
 * Walk path (or mem) alone, no policy, feeding a up to its last moment (to
 * the end when it keeps a stack).  0, or a GMS_E* code with *cause.
 */
struct trace_mem;
struct trace_opts;
int attrib_walk(const char *path, const struct trace_mem *mem, const struct trace_opts *topts,
    struct attrib *a, char **cause);

/* The frames of a stack node, innermost first, at most max into frames; how many. */
size_t attrib_stack_frames(const struct attrib *a, uint32_t node, const char **frames,
    size_t max);

/* A chosen moment's request as a sentence for people (caller frees), or NULL. */
char *attrib_request_text(const struct attrib *a, const struct attrib_moment *m);

/* The site name of index i (attrib_block.site). */
const char *attrib_site_name(const struct attrib *a, long i);

/*
 * A moment as a table for people: the top sites, the rest folded, then the
 * live, rounding and reserved-but-free bytes that make up the reservation
 * (caller frees).  The share is of what was reserved, or of live when no
 * policy ran.
 */
char *attrib_text(const struct attrib_moment *m, size_t top);
/* The same as JSON (caller deletes). */
cJSON *attrib_json(const struct attrib_moment *m, size_t top);

/*
 * A moment's live memory by stack (attrib_want_stacks), through a view
 * (stacks.h: only the frames matching filter, NULL for all; depth frames
 * from the outermost, 0 for all): as a tree for people, top callees a
 * frame, under a heading (caller frees); as JSON (caller deletes).
 */
char *attrib_stacks_text(const struct attrib *a, const struct attrib_moment *m,
    const char *filter, unsigned depth, size_t top);
cJSON *attrib_stacks_json(const struct attrib *a, const struct attrib_moment *m,
    const char *filter, unsigned depth);
/* The same as folded stacks (stacks.h), into f. */
void attrib_folded(FILE *f, const struct attrib *a, const struct attrib_moment *m,
    const char *filter, unsigned depth);
/* The same as an icicle graph (stacks.h), into f: a file, or an element of a page. */
void attrib_flame(FILE *f, const struct attrib *a, const struct attrib_moment *m,
    const char *filter, unsigned depth, const char *title, double min_px, int in_html);
/* Whether a took stacks and any allocation had one. */
int attrib_has_stacks(const struct attrib *a);

#endif /* ANALYSIS_ATTRIB_H */
