/*
 * report-page.h - what the report page's writers share (report-html.c, the
 * page; report-timeline.c, its timeline; report-segments.c, its segment
 * timeline): escaping, the palette, the page's stack table.  Internal to
 * the page.
 */
#ifndef ANALYSIS_REPORT_PAGE_H
#define ANALYSIS_REPORT_PAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/report-html.h"

/* Text into HTML (element content and attribute values alike). */
void page_esc(FILE *f, const char *s);
/* A JSON string for a <script> data block: no "</script>" can end it early. */
void page_json_str(FILE *f, const char *s);

/* Sites stacked in the timeline and coloured in the maps, and the rest. */
extern const char *const page_site_fill[];
extern const size_t page_nsite_fill;
#define PAGE_REST_FILL "#b0b0b0"
/* Policy lines: a stroke and a dash each. */
extern const char *const page_line_stroke[];
extern const char *const page_line_dash[];
extern const size_t page_nlines;

/* report --ranks: the job's ranks, a row each (nothing without them). */
void page_ranks(FILE *f, const struct html_report *r);

/* The policy's run, or NULL when it could not run. */
const struct report_run *page_run_of(const struct html_policy *p);

/*
 * The page's stacks: each distinct stack text written once, in the data
 * block "stacks-data", and named by its index wherever a block, a band or
 * a request shows it.
 */
struct page_stacks;
struct page_stacks *page_stacks_new(void);
/* The index of a's stack node (frames innermost first); -1 for none. */
long page_stack(struct page_stacks *ps, const struct attrib *a, uint32_t node);
void page_stacks_write(FILE *f, const struct page_stacks *ps);
void page_stacks_free(struct page_stacks *ps);

/* The timeline section: static SVG of the coarsest level, the data of every level. */
void page_timeline(FILE *f, const struct html_report *r, struct page_stacks *ps);
/* The segment timeline section: each policy's segments over the events. */
void page_segments(FILE *f, const struct html_report *r);

#endif /* ANALYSIS_REPORT_PAGE_H */
