/*
 * report-html.h - `gpumemsim report`: one self-contained HTML page (inline
 * CSS, JavaScript and SVG; nothing fetched) for one or several policies on a
 * trace: the summary, the policy table and its winner, the timeline with the
 * live bytes stacked by call site, the memory maps at each policy's peak and
 * OOM, the OOM stories and what holds the memory.  Its size is bounded
 * whatever the trace: timelines are envelopes, maps merge what is narrower
 * than a pixel, tables fold their tails.
 */
#ifndef ANALYSIS_REPORT_HTML_H
#define ANALYSIS_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/attrib.h"
#include "analysis/report.h"
#include "analysis/seglog.h"
#include "analysis/tracediff.h"
#include "analysis/timeline.h"
#include "analysis/watch.h"

struct html_policy {
	const struct report_row *row;	/* its run, or why it could not run */
	const struct timeline *tl;	/* its envelope, at the finest level */
	const struct attrib *at;	/* its moments, with their maps */
	const struct seg_log *segs;	/* its segments over the events, or NULL */
};

/* The timeline's levels, coarse to fine, each REPORT_ZOOM times finer. */
#define REPORT_LEVELS 3
#define REPORT_ZOOM 4
/* The finest level's points for a coarsest level of points. */
#define REPORT_FINEST(points) ((points) * REPORT_ZOOM * REPORT_ZOOM)

struct ranks_job;

struct html_report {
	const char *title;		/* NULL: the trace's name */
	const char *command;		/* how it was made, for the footer */
	const struct trace_header *hdr;
	const struct sim_result *res;	/* a run that read the whole trace (counts, live peak) */
	uint64_t capacity;		/* 0: unlimited */
	const char *gpu;		/* --gpu, or NULL */
	const struct html_policy *pols;
	size_t n;
	int winner;			/* index into pols, or -1 */
	const char *why;		/* the winner's reason */
	const struct attrib *live;	/* the trace alone: the live peak and the stack */
	size_t top;			/* table rows before the rest is folded */
	size_t points;			/* the timeline's coarsest level, in points */
	/* two traces: this page is the second's, compared with the first */
	const struct html_report *before;	/* the first's page, or NULL */
	const struct trace_diff *diff;		/* what grew, under the first policy */
	const char *names[2];			/* the two traces as given */
	const struct ranks_job *ranks;		/* report --ranks: the job, or NULL */
};

/* Write the page to f; 0, or -1 when f failed (errno set). */
int report_html(FILE *f, const struct html_report *r);

/*
 * Everything a page shows, made in three passes over the trace: the
 * policies side by side (each one's envelope and peak), each policy again
 * to its peak and OOM (what holds the memory there, and its blocks), and
 * the trace alone (its live peak's sites, then the live bytes of the
 * largest of them over time).
 */
#define REPORT_STACK_SITES 6	/* sites stacked on the timeline, the rest as one */

struct report_page {
	struct html_report hr;		/* title and command are the caller's */
	struct batch_job *jobs;		/* the rest: what hr points into */
	struct report_row *rows;
	struct run_watch *watch;
	struct attrib *ats;
	struct attrib first_live;	/* the live peak's sites: live's stack names them */
	const char *names[REPORT_STACK_SITES];	/* ... through this, which it keeps */
	struct attrib live;
	struct html_policy *hp;
	char *why;
	size_t n;
};

struct batch_job;
struct trace_mem;
struct trace_opts;
/*
 * Fill p from jobs[0..n) (each a policy on the trace: its spec made, its
 * output not yet), reading the trace at of->path (or mem, when it is held:
 * it is read three times) with topts; timelines of points rows at their
 * coarsest (REPORT_FINEST(points) at their finest), top table rows, the
 * allocator's state after each event of at[0..nat) too (at most
 * ATTRIB_AT_MAX), up to threads threads.  p takes jobs over.  0, or a GMS_E* code
 * with *cause; report_page_free(p) either way.
 */
int report_page_build(struct batch_job *jobs, size_t n, const struct report_rows_of *of,
    const struct trace_mem *mem, const struct trace_opts *topts, size_t points, size_t top,
    const uint64_t *at, size_t nat, int threads, struct report_page *p, char **cause);
void report_page_free(struct report_page *p);

#endif /* ANALYSIS_REPORT_HTML_H */
