/*
 * report-segments.c - the report's segment timeline (report-page.h): for
 * each policy, every segment it reserved as a bar from the event that
 * reserved it to the one that gave it back, at its place in the address
 * space (the ranges ever used, end to end, the gaps between them cut out),
 * as tall as its bytes.  What a cached segment costs, and for how long, in
 * one picture; bounded by drawing the SEG_DRAWN largest.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/report-page.h"
#include "sim/gms.h"

#define SG_W 1000
#define SG_H 262
#define PL 78
#define PT 8
#define PW 900
#define PH 210
#define RUN_GAP 3.0		/* pixels between address ranges */
#define SEG_DRAWN 3000		/* bars at most, the largest (bytes times events) kept */

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

/* A run of the address space some segment used. */
struct arun {
	uint64_t lo, hi;
	double off;		/* bytes before it, in the runs before it */
};

/* A segment to draw, and its weight: bytes times events held. */
struct bar {
	const struct seg_life *l;
	double w;
};

static int
by_addr(const void *x, const void *y)
{
	const struct bar *p = x, *q = y;

	return p->l->addr < q->l->addr ? -1 : p->l->addr > q->l->addr;
}

static int
by_weight(const void *x, const void *y)
{
	const struct bar *p = x, *q = y;

	return p->w > q->w ? -1 : p->w < q->w;
}

/* Held to the run's last event (given back only by the engine's teardown, if at all). */
static int
kept(const struct seg_life *l, uint64_t last)
{
	return l->end == SEGLOG_LIVE || l->end > last;
}

static void
one(FILE *f, const struct html_report *r, size_t i)
{
	const struct seg_log *sl = r->pols[i].segs;
	const struct report_run *run = page_run_of(&r->pols[i]);
	struct bar *v = gms_calloc(sl->n + 1, sizeof(*v));
	struct arun *runs = gms_calloc(sl->n + 1, sizeof(*runs));
	/* the x axis is the trace's events (as every timeline's); a run that ran out ends at its OOM */
	uint64_t span = r->res->events ? r->res->events - 1 : 0, last = span, total = 0, end;
	size_t n, nr = 0, k, lo, drawn;
	double bpx, x0, x1, y;

	if (run->res->oomed)
		last = run->res->oom.event;
	for (n = 0, k = 0; k < sl->n; k++) {
		/* what the engine does after the last event (its teardown) is no part of the run */
		if (sl->v[k].start > last)
			continue;
		v[n].l = &sl->v[k];
		v[n++].w = (double)sl->v[k].size * (double)((kept(&sl->v[k], last) ? last :
		    sl->v[k].end) - sl->v[k].start + 1);
	}
	/* the address runs: overlapping ranges merged */
	qsort(v, n, sizeof(*v), by_addr);
	for (k = 0; k < n; k++) {
		if (nr > 0 && v[k].l->addr <= runs[nr - 1].hi) {
			runs[nr - 1].hi = GMS_MAX(runs[nr - 1].hi, v[k].l->addr + v[k].l->size);
			continue;
		}
		runs[nr++] = (struct arun){ .lo = v[k].l->addr, .hi = v[k].l->addr + v[k].l->size };
	}
	for (k = 0; k < nr; k++) {
		runs[k].off = (double)total;
		total += runs[k].hi - runs[k].lo;
	}
	bpx = (double)total / (PH - RUN_GAP * (double)(nr > 1 ? GMS_MIN(nr - 1, 20) : 0));
	if (bpx <= 0)
		bpx = 1;

	fputs("<figure><h3>", f);
	page_esc(f, r->pols[i].row->label);
	fprintf(f, ": %zu segments%s over the events, %s of address space</h3>\n", n + sl->dropped,
	    sl->dropped ? " (the first shown)" : "", SZ(total));
	fprintf(f, "<svg class=\"segs\" data-policy-index=\"%zu\" viewBox=\"0 0 %d %d\" width=\"%d\" "
	    "height=\"%d\" role=\"img\">\n", i, SG_W, SG_H, SG_W, SG_H);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", PL, PL + PW,
	    PT + PH + 2, PT + PH + 2);
	for (k = 0; k <= 5; k++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.0f</text>", PL + PW * k / 5.0,
		    PT + PH + 18, k == 0 ? "start" : k == 5 ? "end" : "middle",
		    (double)span * (double)k / 5);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">event</text>\n"
	    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">low</text><text x=\"%d\" y=\"%d\" "
	    "text-anchor=\"end\">high</text>\n", PL + PW / 2, PT + PH + 36, PL - 6, PT + 10,
	    PL - 6, PT + PH);
	/* the largest first, then drawn in address order */
	qsort(v, n, sizeof(*v), by_weight);
	drawn = GMS_MIN(n, (size_t)SEG_DRAWN);
	qsort(v, drawn, sizeof(*v), by_addr);
	for (lo = 0, k = 0; k < drawn; k++) {
		const struct seg_life *l = v[k].l;
		double h;

		while (lo + 1 < nr && runs[lo].hi <= l->addr)
			lo++;
		end = kept(l, last) ? last : l->end;
		x0 = PL + (span ? (double)l->start / (double)span * PW : 0);
		x1 = PL + (span ? (double)end / (double)span * PW : PW);
		y = PT + ((runs[lo].off + (double)(l->addr - runs[lo].lo)) / bpx) +
		    RUN_GAP * (double)GMS_MIN(lo, 20);
		h = GMS_MAX((double)l->size / bpx, 0.8);
		fprintf(f, "<rect class=\"sg%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
		    "<title>segment 0x%llx of %s (%llu B), reserved at event %llu, ", kept(l, last) ?
		    " kept" : "", x0, y, GMS_MAX(x1 - x0, 0.8), h,
		    (unsigned long long)l->addr, SZ(l->size), (unsigned long long)l->size,
		    (unsigned long long)l->start);
		if (kept(l, last))
			fputs("kept to the end</title></rect>\n", f);
		else
			fprintf(f, "given back at event %llu</title></rect>\n",
			    (unsigned long long)l->end);
	}
	fputs("</svg>\n", f);
	if (drawn < n)
		fprintf(f, "<p>%zu smaller or shorter-lived segments not drawn.</p>\n", n - drawn);
	fputs("</figure>\n", f);
	free(v);
	free(runs);
}

void
page_segments(FILE *f, const struct html_report *r)
{
	size_t i, shown = 0;

	for (i = 0; i < r->n; i++) {
		if (page_run_of(&r->pols[i]) == NULL || r->pols[i].segs == NULL ||
		    r->pols[i].segs->n == 0)
			continue;
		if (shown++ == 0)
			fputs("<section id=\"segments\"><h2>Segments over time</h2>\n<p>Each "
			    "policy's segments (for expandable segments, each range mapped), from "
			    "the event that reserved one to the one that gave it back, placed by "
			    "address (low at the top; the address ranges ever used laid end to end), "
			    "each as tall as its bytes. Dark: kept to the end; light: given back. "
			    "Point at one for its address, size and events.</p>\n", f);
		one(f, r, i);
	}
	if (shown > 0)
		fputs("</section>\n", f);
}
