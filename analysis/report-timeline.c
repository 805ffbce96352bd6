/*
 * report-timeline.c - the report's timeline (report-page.h): the live bytes
 * stacked by call site under each policy's reserved and allocated lines,
 * drawn as static SVG from the coarsest of its levels, and the data of every
 * level, coarse to fine (each REPORT_ZOOM times finer), for the script to
 * redraw finer as one zooms in; beside them the events' times (an axis in
 * seconds) and each band's largest stacks at the live peak.  The finest
 * level is the envelope the runs kept: the page stays bounded.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report-page.h"
#include "sim/gms.h"

/* The timeline's plot area in SVG units. */
#define TL_W 1000
#define TL_H 360
#define PL 78
#define PT 16
#define PW 900
#define PH 300

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

/* One level: the live buckets and each policy's rows, factor times coarser. */
struct level {
	const struct attrib_bucket **live;
	size_t nlive;
	struct timeline_row **rows;	/* per policy; NULL where none */
	size_t *nrows;
};

static size_t
rows_before_stop(const struct timeline *tl)
{
	size_t n = 0;

	while (n < tl->n && !tl->rows[n].stopped)
		n++;
	return n;
}

/* How many rows of n make one at a level of about want points. */
static size_t
factor_for(size_t n, size_t want)
{
	return want == 0 || n <= want ? 1 : (n + want - 1) / want;
}

static void
level_make(struct level *lv, const struct html_report *r, size_t want)
{
	const struct attrib *a = r->live;
	size_t i, b, j, n, factor;

	memset(lv, 0, sizeof(*lv));
	lv->rows = gms_calloc(r->n + 1, sizeof(*lv->rows));
	lv->nrows = gms_calloc(r->n + 1, sizeof(*lv->nrows));
	for (i = 0; i < r->n; i++)
		if (page_run_of(&r->pols[i]) && r->pols[i].tl != NULL) {
			n = rows_before_stop(r->pols[i].tl);
			lv->rows[i] = timeline_coarsen(r->pols[i].tl->rows, n, factor_for(n, want),
			    &lv->nrows[i]);
		}
	if (a == NULL || a->nbuckets == 0)
		return;
	lv->live = gms_calloc(a->nbuckets, sizeof(*lv->live));
	factor = factor_for(a->nbuckets, want);
	for (b = 0; b < a->nbuckets; b += factor) {
		const struct attrib_bucket *best = NULL;

		for (j = b; j < a->nbuckets && j < b + factor; j++)
			if (a->buckets[j].seen && (best == NULL || a->buckets[j].live > best->live))
				best = &a->buckets[j];
		if (best != NULL)
			lv->live[lv->nlive++] = best;
	}
}

static void
level_free(struct level *lv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(lv->rows[i]);
	free(lv->rows);
	free(lv->nrows);
	free(lv->live);
}

struct scale {
	double x0, x1, ymax;
};

static double
sx(const struct scale *s, double ev)
{
	return PL + (s->x1 > s->x0 ? (ev - s->x0) / (s->x1 - s->x0) * PW : 0);
}

static double
sy(const struct scale *s, double v)
{
	return PT + PH - (s->ymax > 0 ? v / s->ymax * PH : 0);
}

/* A tick step near max/5 that reads well: 1, 2, 2.5 or 5 times a power of ten of a binary unit. */
static double
tick_step(double max)
{
	static const double nice[] = { 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000 };
	double want = max / 5, unit = 1;
	size_t i;

	while (unit * 1024 <= want)
		unit *= 1024;
	for (i = 0; i < sizeof(nice) / sizeof(*nice) - 1 && nice[i] * unit < want; i++)
		;
	return nice[i] * unit;
}

/*
 * An event axis label at v, the ticks step apart: v to two figures of the
 * step (the 5999999.4 of a 10M-event trace reads 6000000), as report.js
 * writes it when it zooms.
 */
static double
tick_label(double v, double step)
{
	double p = step >= 100 ? pow(10, floor(log10(step)) - 1) : 1;

	return round(v / p) * p;
}

static const char *
band_name(const struct attrib *live, size_t k)
{
	return k < live->nstack ? live->stack_names[k] : "other sites";
}

static const char *
band_fill(const struct attrib *live, size_t k)
{
	return k < live->nstack ? page_site_fill[k % page_nsite_fill] : PAGE_REST_FILL;
}

/* The static picture: the coarsest level (the script redraws from the data). */
static void
draw(FILE *f, const struct html_report *r, const struct scale *s, const struct level *lv)
{
	const struct attrib *a = r->live;
	double cum;
	size_t i, k, b, j, nl = 0;
	int first;

	fputs("<g clip-path=\"url(#clip)\"><g id=\"plot\">\n", f);
	for (k = 0; a != NULL && lv->nlive > 0 && k <= a->nstack; k++) {
		fprintf(f, "<path class=\"band\" data-band=\"%zu\" fill=\"%s\" stroke=\"none\" d=\"", k,
		    band_fill(a, k));
		for (first = 1, b = 0; b < lv->nlive; b++) {
			for (cum = 0, j = 0; j <= k; j++)
				cum += (double)lv->live[b]->bytes[j];
			fprintf(f, "%s%.1f %.1f", first ? "M" : " L", sx(s, (double)lv->live[b]->event),
			    sy(s, cum));
			first = 0;
		}
		for (b = lv->nlive; b-- > 0;) {
			for (cum = 0, j = 0; j < k; j++)
				cum += (double)lv->live[b]->bytes[j];
			fprintf(f, " L%.1f %.1f", sx(s, (double)lv->live[b]->event), sy(s, cum));
		}
		fputs(" Z\"><title>live: ", f);
		page_esc(f, band_name(a, k));
		fputs("</title></path>\n", f);
	}
	for (i = 0; i < r->n; i++) {
		const char *dash = page_line_dash[nl % page_nlines];
		const char *col = page_line_stroke[nl % page_nlines];
		int pass;

		if (lv->rows[i] == NULL)
			continue;
		for (pass = 0; pass < 2; pass++) {
			fprintf(f, "<path class=\"%s\" stroke=\"%s\"%s%s%s d=\"", pass ? "thin" : "line",
			    col, *dash || pass ? " stroke-dasharray=\"" : "", pass ? "1 3" : dash,
			    *dash || pass ? "\"" : "");
			for (first = 1, b = 0; b < lv->nrows[i]; b++) {
				fprintf(f, "%s%.1f %.1f", first ? "M" : " L",
				    sx(s, (double)lv->rows[i][b].event), sy(s, (double)(pass ?
				    lv->rows[i][b].allocated : lv->rows[i][b].reserved)));
				first = 0;
			}
			fputs("\"><title>", f);
			page_esc(f, r->pols[i].row->label);
			fputs(pass ? ": allocated" : ": reserved", f);
			fputs("</title></path>\n", f);
		}
		nl++;
	}
	for (i = 0; i < r->n; i++) {
		const struct report_run *run = page_run_of(&r->pols[i]);

		if (run == NULL || !run->res->oomed)
			continue;
		fprintf(f, "<circle class=\"oompt\" r=\"5\" cx=\"%.1f\" cy=\"%.1f\"><title>",
		    sx(s, (double)run->res->oom.event), sy(s, (double)run->res->oom.reserved));
		page_esc(f, r->pols[i].row->label);
		fprintf(f, " runs out of memory at event %llu</title></circle>\n",
		    (unsigned long long)run->res->oom.event);
	}
	fputs("</g></g>\n", f);
}

static void
legend(FILE *f, const struct html_report *r, const struct level *lv)
{
	const struct attrib *a = r->live;
	size_t i, k, nl = 0;

	fputs("<div class=\"legend\">", f);
	for (k = 0; a != NULL && lv->nlive > 0 && k <= a->nstack; k++) {
		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>live: ", band_fill(a, k));
		page_esc(f, band_name(a, k));
		fputs("</span>", f);
	}
	for (i = 0; i < r->n; i++) {
		if (lv->rows[i] == NULL)
			continue;
		fprintf(f, "<span><svg width=\"34\" height=\"10\" style=\"display:inline;"
		    "vertical-align:middle\"><line x1=\"0\" x2=\"34\" y1=\"5\" y2=\"5\" "
		    "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\"/></svg> ",
		    page_line_stroke[nl % page_nlines], page_line_dash[nl % page_nlines]);
		page_esc(f, r->pols[i].row->label);
		fputs(" reserved (dotted: allocated)</span>", f);
		nl++;
	}
	fputs("</div>\n", f);
}

/* "[d0,d1,...]": the events as differences from the one before (short numbers). */
static void
json_events_rows(FILE *f, const struct timeline_row *rows, size_t n)
{
	uint64_t prev = 0;
	size_t b;

	fputc('[', f);
	for (b = 0; b < n; b++) {
		fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)(rows[b].event - prev));
		prev = rows[b].event;
	}
	fputc(']', f);
}

static void
json_level(FILE *f, const struct html_report *r, const struct level *lv)
{
	const struct attrib *a = r->live;
	uint64_t prev = 0;
	size_t i, k, b, np = 0;

	fputs("{\"live\":", f);
	if (a != NULL && lv->nlive > 0) {
		fputs("{\"e\":[", f);
		for (b = 0; b < lv->nlive; b++) {
			fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)(lv->live[b]->event - prev));
			prev = lv->live[b]->event;
		}
		fputs("],\"v\":[", f);
		for (b = 0; b < lv->nlive; b++)
			fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)lv->live[b]->live);
		fputs("],\"b\":[", f);
		for (k = 0; k <= a->nstack; k++) {
			fputs(k ? ",[" : "[", f);
			for (b = 0; b < lv->nlive; b++)
				fprintf(f, "%s%llu", b ? "," : "",
				    (unsigned long long)lv->live[b]->bytes[k]);
			fputc(']', f);
		}
		fputs("]}", f);
	} else {
		fputs("null", f);
	}
	fputs(",\"pols\":[", f);
	for (i = 0; i < r->n; i++) {
		if (lv->rows[i] == NULL)
			continue;
		fputs(np++ ? ",{\"name\":" : "{\"name\":", f);
		page_json_str(f, r->pols[i].row->label);
		fputs(",\"e\":", f);
		json_events_rows(f, lv->rows[i], lv->nrows[i]);
		fputs(",\"r\":[", f);
		for (b = 0; b < lv->nrows[i]; b++)
			fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)lv->rows[i][b].reserved);
		fputs("],\"a\":[", f);
		for (b = 0; b < lv->nrows[i]; b++)
			fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)lv->rows[i][b].allocated);
		fputs("]}", f);
	}
	fputs("]}", f);
}

/* The events' times, from the finest rows of the first policy that has them. */
static void
json_time(FILE *f, const struct html_report *r, const struct level *fine)
{
	int64_t t0 = 0, prev_t = 0;
	uint64_t prev_e = 0;
	size_t i, b, k;

	for (i = 0; i < r->n; i++)
		if (fine->rows[i] != NULL && fine->nrows[i] > 0 && fine->rows[i][0].has_time)
			break;
	if (i == r->n) {
		fputs("null", f);
		return;
	}
	t0 = fine->rows[i][0].t_us;
	fputs("{\"e\":[", f);
	for (k = 0, b = 0; b < fine->nrows[i]; b++) {
		if (!fine->rows[i][b].has_time)
			continue;
		fprintf(f, "%s%llu", k++ ? "," : "", (unsigned long long)(fine->rows[i][b].event -
		    prev_e));
		prev_e = fine->rows[i][b].event;
	}
	fputs("],\"t\":[", f);
	for (k = 0, b = 0; b < fine->nrows[i]; b++) {
		if (!fine->rows[i][b].has_time)
			continue;
		fprintf(f, "%s%lld", k++ ? "," : "", (long long)(fine->rows[i][b].t_us - t0 - prev_t));
		prev_t = fine->rows[i][b].t_us - t0;
	}
	fputs("]}", f);
}

/* Each band's largest stacks at the live peak: [[[stack, bytes], ...], ...]. */
static void
json_bands(FILE *f, const struct html_report *r, struct page_stacks *ps)
{
	const struct attrib *a = r->live;
	const struct attrib_moment *m = a != NULL && a->n > 0 ? &a->m[0] : NULL;
	size_t k, j, n;

	fputs("[", f);
	for (k = 0; a != NULL && k <= a->nstack; k++) {
		fputs(k ? ",[" : "[", f);
		for (n = 0, j = 0; m != NULL && m->site_stacks != NULL && j < ATTRIB_SITE_STACKS;
		    j++) {
			const struct attrib_site_stacks *ss = &m->site_stacks[k];

			if (ss->bytes[j] == 0)
				continue;
			fprintf(f, "%s[%ld,%llu]", n++ ? "," : "", page_stack(ps, a, ss->node[j]),
			    (unsigned long long)ss->bytes[j]);
		}
		fputc(']', f);
	}
	fputs("]", f);
}

void
page_timeline(FILE *f, const struct html_report *r, struct page_stacks *ps)
{
	const struct attrib *a = r->live;
	struct level lv[REPORT_LEVELS];
	struct scale s = { 0, r->res->events > 1 ? (double)(r->res->events - 1) : 1, 0 };
	double step, v;
	size_t i, k, want, np = 0;

	for (i = 0, want = r->points; i < REPORT_LEVELS; i++, want *= REPORT_ZOOM)
		level_make(&lv[i], r, i + 1 < REPORT_LEVELS ? want : 0);
	for (i = 0; i < r->n; i++)
		if (page_run_of(&r->pols[i]))
			s.ymax = GMS_MAX(s.ymax, (double)page_run_of(&r->pols[i])->res->peak_reserved);
	s.ymax = GMS_MAX(s.ymax, (double)r->res->peak_live);
	s.ymax = GMS_MAX(s.ymax, (double)r->capacity);
	if (s.ymax <= 0)
		s.ymax = 1;
	s.ymax *= 1.06;

	fputs("<section id=\"timeline-sec\"><h2>Timeline</h2>\n<figure id=\"timeline-fig\">\n", f);
	fputs("<div class=\"controls\" hidden>Drag across the picture to zoom (finer data as you "
	    "go), double-click or <button id=\"zoomreset\" type=\"button\">reset</button> to see "
	    "<span id=\"zoomstate\">the whole trace</span>. <span id=\"axis\">Axis: <label><input "
	    "type=\"radio\" name=\"axis\" value=\"e\" checked> events</label> <label><input "
	    "type=\"radio\" name=\"axis\" value=\"s\"> seconds</label>.</span> Click a band for "
	    "its stacks, a point for the allocator's state nearest it.</div>\n", f);
	fprintf(f, "<svg id=\"timeline\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
	    "role=\"img\" aria-labelledby=\"tl-cap\">\n", TL_W, TL_H, TL_W, TL_H);
	fprintf(f, "<defs><clipPath id=\"clip\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
	    "</clipPath></defs>\n", PL, PT - 2, PW, PH + 2);
	step = tick_step(s.ymax);
	for (v = 0; v <= s.ymax; v += step)
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PL, PL + PW,
		    sy(&s, v), sy(&s, v), PL - 6, sy(&s, v) + 4, SZ((uint64_t)v));
	fprintf(f, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", PL, PL + PW,
	    PT + PH, PT + PH);
	fputs("<g id=\"xticks\">", f);
	for (i = 0; i <= 5; i++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.0f</text>",
		    PL + PW * i / 5.0, PT + PH + 16, i == 0 ? "start" : i == 5 ? "end" : "middle",
		    tick_label(s.x0 + (s.x1 - s.x0) * (double)i / 5, (s.x1 - s.x0) / 5));
	fprintf(f, "</g><text id=\"xlabel\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">event</text>\n",
	    PL + PW / 2, PT + PH + 34);
	draw(f, r, &s, &lv[0]);
	if (r->capacity)
		fprintf(f, "<line class=\"cap\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">capacity %s</text>\n", PL,
		    PL + PW, sy(&s, (double)r->capacity), sy(&s, (double)r->capacity),
		    PL + PW - 4, sy(&s, (double)r->capacity) - 4, SZ(r->capacity));
	fprintf(f, "<line id=\"guide\" class=\"axis\" x1=\"0\" x2=\"0\" y1=\"%d\" y2=\"%d\" "
	    "visibility=\"hidden\"/>\n</svg>\n", PT, PT + PH);
	legend(f, r, &lv[0]);
	fputs("<figcaption id=\"tl-cap\">Bytes over the trace: the live bytes stacked by call "
	    "site (the largest at the live peak), each policy's reservation and allocation, the "
	    "capacity, and where a policy runs out (circles). Each point is the largest of its "
	    "stretch of events, so every peak is kept; zoomed in, the stretches are shorter."
	    "</figcaption>\n</figure>\n", f);

	/* the data of every level, coarse to fine */
	fprintf(f, "<script type=\"application/json\" id=\"timeline-data\">{\"l\":%d,\"w\":%d,"
	    "\"pt\":%d,\"ph\":%d,\"x0\":%.0f,\"x1\":%.0f,\"ymax\":%.0f,\"zoom\":%d,\"sites\":[",
	    PL, PW, PT, PH, s.x0, s.x1, s.ymax, REPORT_ZOOM);
	for (k = 0; a != NULL && k <= a->nstack; k++) {
		fputs(k ? "," : "", f);
		page_json_str(f, band_name(a, k));
	}
	fputs("],\"fills\":[", f);
	for (k = 0; a != NULL && k <= a->nstack; k++)
		fprintf(f, "%s\"%s\"", k ? "," : "", band_fill(a, k));
	fputs("],\"bands\":", f);
	json_bands(f, r, ps);
	fputs(",\"pols\":[", f);
	for (i = 0; i < r->n; i++) {
		const struct report_run *run = page_run_of(&r->pols[i]);

		if (lv[0].rows[i] == NULL)
			continue;
		fputs(np ? ",{\"name\":" : "{\"name\":", f);
		page_json_str(f, r->pols[i].row->label);
		fprintf(f, ",\"stroke\":\"%s\",\"dash\":\"%s\",\"oom\":", page_line_stroke[np %
		    page_nlines], page_line_dash[np % page_nlines]);
		if (run->res->oomed)
			fprintf(f, "[%llu,%llu]}", (unsigned long long)run->res->oom.event,
			    (unsigned long long)run->res->oom.reserved);
		else
			fputs("null}", f);
		np++;
	}
	fputs("],\"time\":", f);
	json_time(f, r, &lv[REPORT_LEVELS - 1]);
	fputs(",\"levels\":[", f);
	for (i = 0; i < REPORT_LEVELS; i++) {
		fputs(i ? "," : "", f);
		json_level(f, r, &lv[i]);
	}
	fputs("]}</script>\n</section>\n", f);
	for (i = 0; i < REPORT_LEVELS; i++)
		level_free(&lv[i], r->n);
}
