/*
 * report-html.c - the self-contained HTML report (report-html.h): the page's
 * sections as HTML tables and static SVG, written in one pass to a stream;
 * the CSS and the script (analysis/report.css, report.js) are carried in the
 * binary and inlined.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report-html.h"
#include "sim/gms.h"

extern const char asset_report_css[];
extern const char asset_report_js[];

/* Sites stacked in the timeline and coloured in the maps: dark to light, so
   they stay apart in greyscale (viridis, short of its lightest, which free
   white would swallow); the rest is light grey. */
static const char *const site_fill[] = { "#440154", "#414487", "#2a788e", "#22a884",
	"#7ad151", "#c2df23" };
#define NSTACK (sizeof(site_fill) / sizeof(*site_fill))
#define REST_FILL "#b0b0b0"
#define OTHER_FILL "#6b6b6b"	/* map: an allocated block of another site */

/* Policy lines: black to grey, each its own dash. */
static const char *const line_stroke[] = { "#000", "#444", "#777", "#222", "#999", "#555" };
static const char *const line_dash[] = { "", "8 4", "2 3", "12 3 3 3", "5 5", "1 2" };
#define NLINES (sizeof(line_stroke) / sizeof(*line_stroke))

/* The timeline's plot area in SVG units. */
#define TL_W 1000
#define TL_H 360
#define PL 78
#define PT 16
#define PW 900
#define PH 300

/* A memory map: rows of MAP_W units, each MAP_ROWS high. */
#define MAP_W 1000.0
#define MAP_ROWS 16
#define MAP_ROWH 14
#define MAP_GAP 5
#define MAP_MINW 3.0		/* narrower blocks are merged with their neighbours */

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

static void
esc(FILE *f, const char *s)
{
	for (; s != NULL && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A JSON string's contents (for the timeline's data): quotes, backslashes,
   controls escaped, and '<' so that no "</script>" ends the block early. */
static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s != NULL && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const struct report_run *
run_of(const struct html_policy *p)
{
	return p->row->err == 0 ? &p->row->run : NULL;
}

/* --- the summary and the policy table ------------------------------------ */

static void
summary(FILE *f, const struct html_report *r)
{
	const struct sim_result *res = r->res;
	char *note = report_incomplete_text(r->hdr);
	const cJSON *dev = r->hdr->device ?
	    cJSON_GetObjectItemCaseSensitive(r->hdr->device, "name") : NULL;

	fputs("<section id=\"summary\"><h2>Summary</h2>\n", f);
	if (note != NULL) {
		fputs("<p class=\"note\" id=\"incomplete\"><strong>Incomplete trace.</strong> ", f);
		esc(f, note);
		fputs("</p>\n", f);
		free(note);
	}
	fputs("<table>\n", f);
	fprintf(f, "<tr><th class=\"l\">events</th><td>%llu</td><td class=\"l\">%llu allocs, "
	    "%llu frees, %llu marks</td></tr>\n", (unsigned long long)res->events,
	    (unsigned long long)res->allocs, (unsigned long long)res->frees,
	    (unsigned long long)res->marks);
	fprintf(f, "<tr><th class=\"l\">live peak</th><td data-peak-live=\"%llu\">%s</td>"
	    "<td class=\"l\">at event %llu: what any allocator must hold at least</td></tr>\n",
	    (unsigned long long)res->peak_live, SZ(res->peak_live),
	    (unsigned long long)res->peak_live_event);
	fprintf(f, "<tr><th class=\"l\">capacity</th><td>%s</td><td class=\"l\">",
	    r->capacity ? SZ(r->capacity) : "unlimited");
	if (r->gpu != NULL) {
		fputs("the ", f);
		esc(f, r->gpu);
		fputs(" less its CUDA context", f);
	}
	fputs("</td></tr>\n", f);
	fputs("<tr><th class=\"l\">format</th><td>", f);
	esc(f, r->hdr->format);
	fputs("</td><td class=\"l\">", f);
	if (cJSON_IsString(dev)) {
		fputs("recorded on ", f);
		esc(f, dev->valuestring);
		if (r->hdr->device_total)
			fprintf(f, " (%s)", SZ(r->hdr->device_total));
	}
	fputs("</td></tr>\n</table>\n", f);
	if (r->winner >= 0) {
		fputs("<p class=\"verdict\">Winner: <strong>", f);
		esc(f, r->pols[r->winner].row->label);
		fputs("</strong>. ", f);
	} else {
		fputs("<p class=\"verdict\">No winner. ", f);
	}
	esc(f, r->why);
	fputs("</p>\n</section>\n", f);
}

static void
policies_table(FILE *f, const struct html_report *r)
{
	size_t i;

	fputs("<section id=\"policies\"><h2>Policies</h2>\n<table>\n<tr><th class=\"l\">policy"
	    "</th><th>peak reserved</th><th>peak allocated</th><th>fragmentation</th>"
	    "<th>device allocs</th><th class=\"l\">out of memory</th></tr>\n", f);
	for (i = 0; i < r->n; i++) {
		const struct report_run *run = run_of(&r->pols[i]);
		const struct sim_result *s = run ? run->res : NULL;

		fprintf(f, "<tr%s><td class=\"l\">", (int)i == r->winner ? " class=\"winner\"" :
		    s && s->oomed ? " class=\"oom\"" : "");
		esc(f, r->pols[i].row->label);
		fputs("</td>", f);
		if (s == NULL) {
			fputs("<td colspan=\"5\" class=\"l\">could not run: ", f);
			esc(f, r->pols[i].row->cause);
			fputs("</td></tr>\n", f);
			continue;
		}
		fputs("<td data-policy=\"", f);
		esc(f, r->pols[i].row->label);
		fprintf(f, "\" data-peak-reserved=\"%llu\">%s</td><td>%s</td><td>%.1f%%</td>"
		    "<td>%llu</td>", (unsigned long long)s->peak_reserved, SZ(s->peak_reserved),
		    SZ(s->peak_allocated), 100 * report_fragmentation(s),
		    (unsigned long long)s->device_allocs);
		if (s->oomed)
			fprintf(f, "<td class=\"l oom\">at event %llu, asking %s</td></tr>\n",
			    (unsigned long long)s->oom.event, SZ(s->oom.size));
		else
			fputs("<td class=\"l\">fits</td></tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}

/* --- the timeline ---------------------------------------------------------- */

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

static const char *
stack_name(const struct attrib *live, size_t k)
{
	return k < live->nstack ? live->stack_names[k] : "other sites";
}

static void
timeline(FILE *f, const struct html_report *r)
{
	const struct attrib *lv = r->live;
	struct scale s = { 0, r->res->events > 1 ? (double)(r->res->events - 1) : 1, 0 };
	double step, v, cum;
	size_t i, k, b, nl = 0;
	int first;

	for (i = 0; i < r->n; i++)
		if (run_of(&r->pols[i]))
			s.ymax = GMS_MAX(s.ymax, (double)run_of(&r->pols[i])->res->peak_reserved);
	s.ymax = GMS_MAX(s.ymax, (double)r->res->peak_live);
	s.ymax = GMS_MAX(s.ymax, (double)r->capacity);
	if (s.ymax <= 0)
		s.ymax = 1;
	s.ymax *= 1.06;

	fputs("<section id=\"timeline-sec\"><h2>Timeline</h2>\n<figure id=\"timeline-fig\">\n", f);
	fputs("<div class=\"controls\" hidden>Drag across the picture to zoom, double-click "
	    "or <button id=\"zoomreset\" type=\"button\">reset</button> to see <span "
	    "id=\"zoomstate\">the whole trace</span>.</div>\n", f);
	fprintf(f, "<svg id=\"timeline\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
	    "role=\"img\" aria-labelledby=\"tl-cap\">\n", TL_W, TL_H, TL_W, TL_H);
	fprintf(f, "<defs><clipPath id=\"clip\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
	    "</clipPath></defs>\n", PL, PT - 2, PW, PH + 2);
	/* the grid and the y axis */
	step = tick_step(s.ymax);
	for (v = 0; v <= s.ymax; v += step) {
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PL, PL + PW,
		    sy(&s, v), sy(&s, v), PL - 6, sy(&s, v) + 4, SZ((uint64_t)v));
	}
	fprintf(f, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", PL, PL + PW,
	    PT + PH, PT + PH);
	fputs("<g id=\"xticks\">", f);
	for (i = 0; i <= 5; i++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>", PL + PW * i / 5.0,
		    PT + PH + 16, s.x0 + (s.x1 - s.x0) * (double)i / 5);
	fprintf(f, "</g><text x=\"%d\" y=\"%d\" text-anchor=\"middle\">event</text>\n",
	    PL + PW / 2, PT + PH + 34);

	fputs("<g clip-path=\"url(#clip)\"><g id=\"plot\">\n", f);
	/* live, stacked by site: each layer from its top edge forward and its bottom back */
	for (k = 0; lv != NULL && lv->nbuckets > 0 && k <= lv->nstack; k++) {
		fprintf(f, "<path fill=\"%s\" stroke=\"none\" d=\"", k < lv->nstack ?
		    site_fill[k % NSTACK] : REST_FILL);
		for (first = 1, b = 0; b < lv->nbuckets; b++) {
			const struct attrib_bucket *bk = &lv->buckets[b];
			size_t j;

			if (!bk->seen)
				continue;
			for (cum = 0, j = 0; j <= k; j++)
				cum += (double)bk->bytes[j];
			fprintf(f, "%s%.1f %.1f", first ? "M" : " L", sx(&s, (double)bk->event),
			    sy(&s, cum));
			first = 0;
		}
		for (b = lv->nbuckets; b-- > 0;) {
			const struct attrib_bucket *bk = &lv->buckets[b];
			size_t j;

			if (!bk->seen)
				continue;
			for (cum = 0, j = 0; j < k; j++)
				cum += (double)bk->bytes[j];
			fprintf(f, " L%.1f %.1f", sx(&s, (double)bk->event), sy(&s, cum));
		}
		fputs(" Z\"><title>live: ", f);
		esc(f, stack_name(lv, k));
		fputs("</title></path>\n", f);
	}
	/* each policy's reserved (solid or dashed) and allocated (thin) */
	for (i = 0; i < r->n; i++) {
		const struct timeline *tl = r->pols[i].tl;
		const char *dash = line_dash[nl % NLINES], *col = line_stroke[nl % NLINES];
		int pass;

		if (!run_of(&r->pols[i]) || tl == NULL)
			continue;
		for (pass = 0; pass < 2; pass++) {
			fprintf(f, "<path class=\"%s\" stroke=\"%s\"%s%s%s d=\"", pass ? "thin" : "line",
			    col, *dash || pass ? " stroke-dasharray=\"" : "", pass ? "1 3" : dash,
			    *dash || pass ? "\"" : "");
			for (first = 1, b = 0; b < tl->n; b++) {
				if (tl->rows[b].stopped)
					break;
				fprintf(f, "%s%.1f %.1f", first ? "M" : " L",
				    sx(&s, (double)tl->rows[b].event), sy(&s, (double)(pass ?
				    tl->rows[b].allocated : tl->rows[b].reserved)));
				first = 0;
			}
			fputs("\"><title>", f);
			esc(f, r->pols[i].row->label);
			fputs(pass ? ": allocated" : ": reserved", f);
			fputs("</title></path>\n", f);
		}
		nl++;
	}
	/* where each ran out */
	for (i = 0; i < r->n; i++) {
		const struct report_run *run = run_of(&r->pols[i]);

		if (run == NULL || !run->res->oomed)
			continue;
		fprintf(f, "<circle class=\"oompt\" r=\"5\" cx=\"%.1f\" cy=\"%.1f\"><title>",
		    sx(&s, (double)run->res->oom.event), sy(&s, (double)run->res->oom.reserved));
		esc(f, r->pols[i].row->label);
		fprintf(f, " runs out of memory at event %llu</title></circle>\n",
		    (unsigned long long)run->res->oom.event);
	}
	fputs("</g></g>\n", f);
	if (r->capacity)
		fprintf(f, "<line class=\"cap\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">capacity %s</text>\n", PL,
		    PL + PW, sy(&s, (double)r->capacity), sy(&s, (double)r->capacity),
		    PL + PW - 4, sy(&s, (double)r->capacity) - 4, SZ(r->capacity));
	fprintf(f, "<line id=\"guide\" class=\"axis\" x1=\"0\" x2=\"0\" y1=\"%d\" y2=\"%d\" "
	    "visibility=\"hidden\"/>\n</svg>\n", PT, PT + PH);

	/* the legend, in the page */
	fputs("<div class=\"legend\">", f);
	for (k = 0; lv != NULL && lv->nbuckets > 0 && k <= lv->nstack; k++) {
		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>live: ",
		    k < lv->nstack ? site_fill[k % NSTACK] : REST_FILL);
		esc(f, stack_name(lv, k));
		fputs("</span>", f);
	}
	for (nl = 0, i = 0; i < r->n; i++) {
		if (!run_of(&r->pols[i]) || r->pols[i].tl == NULL)
			continue;
		fprintf(f, "<span><svg width=\"34\" height=\"10\" style=\"display:inline;"
		    "vertical-align:middle\"><line x1=\"0\" x2=\"34\" y1=\"5\" y2=\"5\" "
		    "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\"/></svg> ",
		    line_stroke[nl % NLINES], line_dash[nl % NLINES]);
		esc(f, r->pols[i].row->label);
		fputs(" reserved (dotted: allocated)</span>", f);
		nl++;
	}
	fputs("</div>\n<figcaption id=\"tl-cap\">Bytes over the trace's events: the live "
	    "bytes stacked by call site (the largest at the live peak), each policy's "
	    "reservation and allocation, the capacity, and where a policy runs out (circles). "
	    "Each point is the largest of its stretch of events, so every peak is kept."
	    "</figcaption>\n</figure>\n", f);

	/* the same numbers for the script's read-out */
	fprintf(f, "<script type=\"application/json\" id=\"timeline-data\">{\"l\":%d,\"w\":%d,"
	    "\"x0\":%.0f,\"x1\":%.0f,\"series\":[", PL, PW, s.x0, s.x1);
	first = 1;
	if (lv != NULL && lv->nbuckets > 0) {
		fputs("{\"name\":\"live\",\"p\":[", f);
		for (k = 0, b = 0; b < lv->nbuckets; b++)
			if (lv->buckets[b].seen)
				fprintf(f, "%s[%llu,%llu]", k++ ? "," : "",
				    (unsigned long long)lv->buckets[b].event,
				    (unsigned long long)lv->buckets[b].live);
		fputs("]}", f);
		first = 0;
	}
	for (i = 0; i < r->n; i++) {
		const struct timeline *tl = r->pols[i].tl;
		char *name;

		if (!run_of(&r->pols[i]) || tl == NULL)
			continue;
		name = gms_asprintf("%s reserved", r->pols[i].row->label);
		fputs(first ? "{\"name\":" : ",{\"name\":", f);
		json_str(f, name);
		free(name);
		fputs(",\"p\":[", f);
		for (b = 0; b < tl->n && !tl->rows[b].stopped; b++)
			fprintf(f, "%s[%llu,%llu]", b ? "," : "",
			    (unsigned long long)tl->rows[b].event,
			    (unsigned long long)tl->rows[b].reserved);
		fputs("]}", f);
		first = 0;
	}
	fputs("]}</script>\n</section>\n", f);
}

/* --- the memory maps ----------------------------------------------------- */

/* The stacked site whose colour a block takes, or -1. */
static int
site_colour(const struct attrib *live, const struct attrib *at, long site)
{
	const char *name = attrib_site_name(at, site);
	size_t k;

	for (k = 0; live != NULL && k < live->nstack && k < NSTACK; k++)
		if (strcmp(live->stack_names[k], name) == 0)
			return (int)k;
	return -1;
}

struct cursor {
	double pos;		/* units from the map's start */
	double bpu;		/* bytes per unit */
};

/* Draw [pos, pos + w) over as many rows as it spans. */
static void
span(FILE *f, double pos, double w, const char *cls, const char *fill, const char *title)
{
	while (w > 1e-9) {
		int row = (int)(pos / MAP_W);
		double x = pos - row * MAP_W, piece = GMS_MIN(w, MAP_W - x);

		if (row >= MAP_ROWS)
			break;
		fprintf(f, "<rect class=\"blk %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		    "fill=\"%s\"><title>", cls, x, row * (MAP_ROWH + MAP_GAP), piece, MAP_ROWH, fill);
		esc(f, title);
		fputs("</title></rect>\n", f);
		pos += piece;
		w -= piece;
	}
}

static void
map_svg(FILE *f, const struct html_report *r, const struct attrib *at,
    const struct attrib_moment *m)
{
	uint64_t total = 0;
	struct cursor c = { 0, 1 };
	size_t i, s, run_n = 0;
	uint64_t run_alloc = 0, run_free = 0;
	double run_pos = 0, run_w = 0;
	char *title;
	int rows;

	for (s = 0; s < m->nsegs; s++)
		total += m->segs[s].size;
	if (total == 0) {
		fputs("<p>Nothing reserved.</p>\n", f);
		return;
	}
	c.bpu = (double)total / (MAP_W * MAP_ROWS);
	rows = MAP_ROWS;
	fprintf(f, "<svg class=\"map\" viewBox=\"-2 -2 %.0f %d\" width=\"%.0f\" height=\"%d\" "
	    "role=\"img\">\n", MAP_W + 4, rows * (MAP_ROWH + MAP_GAP) + 2, MAP_W + 4,
	    rows * (MAP_ROWH + MAP_GAP) + 2);
	for (i = 0; i < (size_t)rows; i++)
		fprintf(f, "<rect x=\"0\" y=\"%zu\" width=\"%.0f\" height=\"%d\" fill=\"#fff\" "
		    "stroke=\"#999\" stroke-width=\".5\"/>\n", i * (MAP_ROWH + MAP_GAP), MAP_W, MAP_ROWH);
	for (i = 0; i < m->nblocks; i++) {
		const struct attrib_block *bk = &m->blocks[i];
		const struct attrib_segment *sg = &m->segs[bk->seg];
		double w = (double)bk->size / c.bpu;

		if (w < MAP_MINW && run_w + w < MAP_MINW * 2) {
			/* too narrow to see or point at: merged with its neighbours */
			if (run_n == 0)
				run_pos = c.pos;
			run_n++;
			run_w += w;
			if (bk->allocated)
				run_alloc += bk->size;
			else
				run_free += bk->size;
			c.pos += w;
			continue;
		}
		if (run_n > 0) {
			title = gms_asprintf("%zu small blocks: %s allocated, %s free", run_n,
			    SZ(run_alloc), SZ(run_free));
			span(f, run_pos, run_w, "m", "#d8d8d8", title);
			free(title);
			run_n = 0;
			run_w = 0;
			run_alloc = run_free = 0;
		}
		if (bk->allocated) {
			int k = site_colour(r->live, at, bk->site);

			title = gms_asprintf("%s allocated (%llu B requested) \xc2\xb7 %s \xc2\xb7 event "
			    "%llu \xc2\xb7 segment 0x%llx (%s, %s pool)", SZ(bk->size),
			    (unsigned long long)bk->requested, attrib_site_name(at, bk->site),
			    (unsigned long long)bk->event, (unsigned long long)sg->addr,
			    SZ(sg->size), sg->pool ? sg->pool : "?");
			span(f, c.pos, w, "a", k >= 0 ? site_fill[k] : OTHER_FILL, title);
		} else {
			title = gms_asprintf("%s free \xc2\xb7 segment 0x%llx (%s, %s pool)",
			    SZ(bk->size), (unsigned long long)sg->addr, SZ(sg->size),
			    sg->pool ? sg->pool : "?");
			span(f, c.pos, w, "f", "#fff", title);
		}
		free(title);
		c.pos += w;
	}
	if (run_n > 0) {
		title = gms_asprintf("%zu small blocks: %s allocated, %s free", run_n,
		    SZ(run_alloc), SZ(run_free));
		span(f, run_pos, run_w, "m", "#d8d8d8", title);
		free(title);
	}
	/* segment edges over the blocks */
	for (c.pos = 0, s = 0; s < m->nsegs; s++) {
		int row = (int)(c.pos / MAP_W);

		if (row < MAP_ROWS)
			fprintf(f, "<line class=\"seg\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>\n",
			    c.pos - row * MAP_W, c.pos - row * MAP_W, row * (MAP_ROWH + MAP_GAP) - 2,
			    row * (MAP_ROWH + MAP_GAP) + MAP_ROWH + 2);
		c.pos += (double)m->segs[s].size / c.bpu;
	}
	fputs("</svg>\n", f);
}

static void
maps(FILE *f, const struct html_report *r)
{
	size_t i, k;

	fputs("<section id=\"maps\"><h2>Memory maps</h2>\n<p>Each policy's segments laid end to "
	    "end in address order, read left to right and down; a vertical mark starts a "
	    "segment. Allocated blocks take their call site's colour (dark grey: another "
	    "site), free blocks are white, and blocks too narrow to see are merged (light "
	    "grey). Point at a block for its size, site and event.</p>\n"
	    "<div id=\"details\" aria-live=\"polite\"></div>\n", f);
	for (i = 0; i < r->n; i++) {
		const struct attrib *at = r->pols[i].at;

		if (!run_of(&r->pols[i]) || at == NULL)
			continue;
		for (k = 0; k < at->n; k++) {
			const struct attrib_moment *m = &at->m[k];

			if (!m->taken)
				continue;
			fputs("<figure><h3>", f);
			esc(f, r->pols[i].row->label);
			fprintf(f, " at its %s (event %llu): %s reserved in %zu segments</h3>\n",
			    m->what, (unsigned long long)m->event, SZ(m->reserved), m->nsegs);
			map_svg(f, r, at, m);
			fputs("</figure>\n", f);
		}
	}
	fputs("</section>\n", f);
}

/* --- the OOM stories and the attribution ---------------------------------- */

static void
stories(FILE *f, const struct html_report *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->n; i++) {
		const struct report_run *run = run_of(&r->pols[i]);
		char *text;

		if (run == NULL || !run->res->oomed)
			continue;
		if (n++ == 0)
			fputs("<section id=\"oom\"><h2>Out of memory</h2>\n", f);
		fputs("<h3>", f);
		esc(f, r->pols[i].row->label);
		fputs("</h3>\n<pre class=\"story\">", f);
		text = report_oom_text(run);
		esc(f, text);
		free(text);
		fputs("</pre>\n", f);
	}
	if (n > 0)
		fputs("</section>\n", f);
}

static void
site_row(FILE *f, const struct attrib_row *row, const char *name, uint64_t of)
{
	fputs("<tr><td class=\"l\"><code>", f);
	esc(f, name);
	fprintf(f, "</code></td><td data-bytes=\"%llu\">%s</td><td>%llu</td><td>%.1f%%</td>"
	    "<td>%llu&ndash;%llu</td></tr>\n", (unsigned long long)row->bytes, SZ(row->bytes),
	    (unsigned long long)row->count, of ? 100.0 * (double)row->bytes / (double)of : 0,
	    (unsigned long long)row->first, (unsigned long long)row->last);
}

static void
site_table(FILE *f, const char *who, const struct attrib_moment *m, size_t top)
{
	uint64_t of = m->has_policy ? m->reserved : m->live;
	size_t i, shown = GMS_MIN(top, m->nrows);

	fputs("<h3>", f);
	esc(f, who);
	fprintf(f, " at the %s (event %llu, %s %s)</h3>\n<table class=\"sites\" data-moment=\"%s\">"
	    "<tr><th class=\"l\">call site</th><th>bytes</th><th>count</th><th>share</th>"
	    "<th>events</th></tr>\n", m->what, (unsigned long long)m->event, SZ(of),
	    m->has_policy ? "reserved" : "live", m->key);
	for (i = 0; i < shown; i++)
		site_row(f, &m->rows[i], m->rows[i].site, of);
	if (m->nrows > shown) {
		struct attrib_row rest = { .first = UINT64_MAX };
		char *name = gms_asprintf("(%zu other sites)", m->nrows - shown);

		for (i = shown; i < m->nrows; i++) {
			rest.bytes += m->rows[i].bytes;
			rest.count += m->rows[i].count;
			rest.first = GMS_MIN(rest.first, m->rows[i].first);
			rest.last = GMS_MAX(rest.last, m->rows[i].last);
		}
		site_row(f, &rest, name, of);
		free(name);
	}
	if (m->has_policy) {
		fprintf(f, "<tr><td class=\"l\"><em>block rounding</em></td><td>%s</td><td></td>"
		    "<td>%.1f%%</td><td></td></tr>\n", SZ(m->allocated - m->live),
		    of ? 100.0 * (double)(m->allocated - m->live) / (double)of : 0);
		fprintf(f, "<tr><td class=\"l\"><em>reserved, not allocated</em> (the largest free "
		    "block %s)</td><td>%s</td><td></td><td>%.1f%%</td><td></td></tr>\n",
		    SZ(m->largest_free), SZ(m->reserved - m->allocated),
		    of ? 100.0 * (double)(m->reserved - m->allocated) / (double)of : 0);
	}
	fputs("</table>\n", f);
}

static void
sites(FILE *f, const struct html_report *r)
{
	size_t i, k;

	fputs("<section id=\"sites\"><h2>What holds the memory</h2>\n<p>The live bytes by call "
	    "site (where the trace says the allocation was made), largest first, with the "
	    "events that made the oldest and the newest of them; under a policy, the block "
	    "rounding and what it reserved but had not handed out, which add up to its "
	    "reservation.</p>\n", f);
	if (r->live != NULL && r->live->n > 0 && r->live->m[0].taken)
		site_table(f, "The trace", &r->live->m[0], r->top);
	for (i = 0; i < r->n; i++) {
		const struct attrib *at = r->pols[i].at;

		if (!run_of(&r->pols[i]) || at == NULL)
			continue;
		for (k = 0; k < at->n; k++)
			if (at->m[k].taken)
				site_table(f, r->pols[i].row->label, &at->m[k], r->top);
	}
	fputs("</section>\n", f);
}

/*
 * Each policy's live memory by call stack at its moments, as icicle graphs
 * (frames under a pixel left out: the page stays bounded); none when the
 * trace has no stacks.
 */
static void
flames(FILE *f, const struct html_report *r)
{
	size_t i, k, n = 0;
	char *title;

	for (i = 0; i < r->n; i++) {
		const struct attrib *at = r->pols[i].at;

		if (!run_of(&r->pols[i]) || at == NULL || !attrib_has_stacks(at))
			continue;
		for (k = 0; k < at->n; k++) {
			const struct attrib_moment *m = &at->m[k];

			if (!m->taken)
				continue;
			if (n++ == 0)
				fputs("<section id=\"stacks\"><h2>By call stack</h2>\n<p>The live "
				    "bytes at each moment by the whole call stack that allocated them, "
				    "callers above callees, each frame as wide as the bytes under it "
				    "(frames narrower than a pixel left out). Point at a frame for its "
				    "bytes.</p>\n", f);
			title = gms_asprintf("%s at its %s (event %llu)", r->pols[i].row->label,
			    m->what, (unsigned long long)m->event);
			fputs("<figure>", f);
			attrib_flame(f, at, m, NULL, 0, title, 1.0, 1);
			fputs("</figure>\n", f);
			free(title);
		}
	}
	if (n > 0)
		fputs("</section>\n", f);
}

int
report_html(FILE *f, const struct html_report *r)
{
	const char *title = r->title ? r->title : r->hdr->name;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<meta name=\"generator\" content=\"gpumemsim " PACKAGE_VERSION "\">\n<title>", f);
	esc(f, title);
	fputs(": gpumemsim report</title>\n<style>\n", f);
	fputs(asset_report_css, f);
	fputs("</style>\n</head>\n<body>\n<header><h1>", f);
	esc(f, title);
	fputs("</h1>\n<p class=\"sub\">What the allocators do with this trace, simulated by "
	    "gpumemsim " PACKAGE_VERSION ".</p></header>\n", f);
	summary(f, r);
	policies_table(f, r);
	timeline(f, r);
	stories(f, r);
	sites(f, r);
	flames(f, r);
	maps(f, r);
	fputs("<footer><p class=\"sub\">Made by <code>", f);
	esc(f, r->command);
	fputs("</code>. Self-contained: nothing is fetched.</p></footer>\n"
	    "<div id=\"tip\"></div>\n<pre id=\"selftest\"></pre>\n<script>\n", f);
	fputs(asset_report_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
	if (fflush(f) != 0 || ferror(f)) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}
