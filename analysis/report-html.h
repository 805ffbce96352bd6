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
#include "analysis/timeline.h"

struct html_policy {
	const struct report_row *row;	/* its run, or why it could not run */
	const struct timeline *tl;	/* its envelope */
	const struct attrib *at;	/* its moments, with their maps */
};

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
};

/* Write the page to f; 0, or -1 when f failed (errno set). */
int report_html(FILE *f, const struct html_report *r);

#endif /* ANALYSIS_REPORT_HTML_H */
