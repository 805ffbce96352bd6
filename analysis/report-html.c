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

#include "analysis/report-page.h"
#include <uthash.h>

#include "sim/gms.h"

extern const char asset_report_css[];
extern const char asset_report_js[];

#define NSTACK page_nsite_fill
#define site_fill page_site_fill
#define OTHER_FILL "#6b6b6b"	/* map: an allocated block of another site */

/* A memory map: rows of MAP_W units, each MAP_ROWS high. */
#define MAP_W 1000.0
#define MAP_ROWS 16
#define MAP_ROWH 14
#define MAP_GAP 5
#define MAP_MINW 3.0		/* narrower blocks are merged with their neighbours */

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

/* --- the summary and the policy table ------------------------------------ */

/*
 * A recording that ran out of memory leads with it, and with the limit it
 * ran under as far as it shows it (observed limit_min..limit_max): what
 * brought its user to the page.
 */
static void
recorded_oom(FILE *f, const struct html_report *r)
{
	const struct sim_result *res = r->res;
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(r->hdr->observed, "limit_min");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(r->hdr->observed, "limit_max");

	if (res->recorded_ooms == 0)
		return;
	fprintf(f, "<p class=\"verdict oom\" id=\"recorded-oom\"><strong>The job ran out of "
	    "memory</strong> at event %llu, asking for %s (%llu B)",
	    (unsigned long long)res->recorded_oom_event, SZ(res->recorded_oom_size),
	    (unsigned long long)res->recorded_oom_size);
	if (cJSON_IsNumber(lo) && cJSON_IsNumber(hi) && hi->valuedouble >= lo->valuedouble)
		fprintf(f, ", under a limit between %s and %s (%.0f to %.0f B: the recording shows "
		    "it reached one; --capacity in that range replays the recorded run)",
		    SZ((uint64_t)lo->valuedouble), SZ((uint64_t)hi->valuedouble), lo->valuedouble,
		    hi->valuedouble);
	else if (r->hdr->device_total)
		fprintf(f, ", on a card of %s", SZ(r->hdr->device_total));
	if (res->recorded_ooms > 1)
		fprintf(f, "; %llu failures in all", (unsigned long long)res->recorded_ooms);
	fputs(".</p>\n", f);
}

static void
summary(FILE *f, const struct html_report *r)
{
	const struct sim_result *res = r->res;
	char *note = report_incomplete_text(r->hdr);
	const cJSON *dev = r->hdr->device ?
	    cJSON_GetObjectItemCaseSensitive(r->hdr->device, "name") : NULL;

	fputs("<section id=\"summary\"><h2>Summary</h2>\n", f);
	recorded_oom(f, r);
	if (note != NULL) {
		fputs("<p class=\"note\" id=\"incomplete\"><strong>Incomplete trace.</strong> ", f);
		page_esc(f, note);
		fputs("</p>\n", f);
		free(note);
	}
	fputs("<table>\n", f);
	fprintf(f, "<tr><th class=\"l\">events</th><td>%llu</td><td class=\"l\">%llu alloc%s, "
	    "%llu free%s, %llu mark%s</td></tr>\n", (unsigned long long)res->events,
	    (unsigned long long)res->allocs, GMS_PLURAL(res->allocs), (unsigned long long)res->frees,
	    GMS_PLURAL(res->frees), (unsigned long long)res->marks, GMS_PLURAL(res->marks));
	fprintf(f, "<tr><th class=\"l\">live peak</th><td data-peak-live=\"%llu\">%s</td>"
	    "<td class=\"l\">at event %llu: what any allocator must hold at least</td></tr>\n",
	    (unsigned long long)res->peak_live, SZ(res->peak_live),
	    (unsigned long long)res->peak_live_event);
	fprintf(f, "<tr><th class=\"l\">capacity</th><td>%s</td><td class=\"l\">",
	    r->capacity ? SZ(r->capacity) : "unlimited");
	if (r->gpu != NULL) {
		fputs("the ", f);
		page_esc(f, r->gpu);
		fputs(" less its CUDA context", f);
	}
	fputs("</td></tr>\n", f);
	fputs("<tr><th class=\"l\">format</th><td>", f);
	page_esc(f, r->hdr->format);
	fputs("</td><td class=\"l\">", f);
	if (cJSON_IsString(dev)) {
		fputs("recorded on ", f);
		page_esc(f, dev->valuestring);
		if (r->hdr->device_total)
			fprintf(f, " (%s)", SZ(r->hdr->device_total));
	}
	fputs("</td></tr>\n</table>\n", f);
	if (r->winner >= 0) {
		fputs("<p class=\"verdict\">Winner: <strong>", f);
		page_esc(f, r->pols[r->winner].row->label);
		fputs("</strong>. ", f);
	} else {
		fputs("<p class=\"verdict\">No winner: ", f);
	}
	page_esc(f, r->why);
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
		const struct report_run *run = page_run_of(&r->pols[i]);
		const struct sim_result *s = run ? run->res : NULL;

		fprintf(f, "<tr%s><td class=\"l\">", (int)i == r->winner ? " class=\"winner\"" :
		    s && s->oomed ? " class=\"oom\"" : "");
		page_esc(f, r->pols[i].row->label);
		fputs("</td>", f);
		if (s == NULL) {
			fputs("<td colspan=\"5\" class=\"l\">could not run: ", f);
			page_esc(f, r->pols[i].row->cause);
			fputs("</td></tr>\n", f);
			continue;
		}
		fputs("<td data-policy=\"", f);
		page_esc(f, r->pols[i].row->label);
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
span(FILE *f, double pos, double w, const char *cls, const char *fill, const char *title,
    long stack)
{
	while (w > 1e-9) {
		int row = (int)(pos / MAP_W);
		double x = pos - row * MAP_W, piece = GMS_MIN(w, MAP_W - x);

		if (row >= MAP_ROWS)
			break;
		fprintf(f, "<rect class=\"blk %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		    "fill=\"%s\"", cls, x, row * (MAP_ROWH + MAP_GAP), piece, MAP_ROWH, fill);
		if (stack >= 0)
			fprintf(f, " data-s=\"%ld\"", stack);
		fputs("><title>", f);
		page_esc(f, title);
		fputs("</title></rect>\n", f);
		pos += piece;
		w -= piece;
	}
}

static void
map_svg(FILE *f, const struct html_report *r, const struct attrib *at,
    const struct attrib_moment *m, struct page_stacks *ps)
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
			span(f, run_pos, run_w, "m", "#d8d8d8", title, -1);
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
			span(f, c.pos, w, "a", k >= 0 ? site_fill[k] : OTHER_FILL, title,
			    page_stack(ps, at, bk->stack));
		} else {
			title = gms_asprintf("%s free \xc2\xb7 segment 0x%llx (%s, %s pool)",
			    SZ(bk->size), (unsigned long long)sg->addr, SZ(sg->size),
			    sg->pool ? sg->pool : "?");
			span(f, c.pos, w, "f", "#fff", title, -1);
		}
		free(title);
		c.pos += w;
	}
	if (run_n > 0) {
		title = gms_asprintf("%zu small blocks: %s allocated, %s free", run_n,
		    SZ(run_alloc), SZ(run_free));
		span(f, run_pos, run_w, "m", "#d8d8d8", title, -1);
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
maps(FILE *f, const struct html_report *r, struct page_stacks *ps)
{
	size_t i, k;
	char *req;

	fputs("<section id=\"maps\"><h2>Memory maps</h2>\n<p>Each policy's segments laid end to "
	    "end in address order, read left to right and down; a vertical mark starts a "
	    "segment. Allocated blocks take their call site's colour (dark grey: another "
	    "site), free blocks are white, and blocks too narrow to see are merged (light "
	    "grey). Point at a block for its size, site, event and call stack; click it to keep "
	    "it. The allocator's state at any event: <code>report --at=EVENT</code> adds its map "
	    "and what the policy did with that event's request.</p>\n"
	    "<div id=\"details\" aria-live=\"polite\"></div>\n", f);
	for (i = 0; i < r->n; i++) {
		const struct attrib *at = r->pols[i].at;

		if (!page_run_of(&r->pols[i]) || at == NULL)
			continue;
		for (k = 0; k < at->n; k++) {
			const struct attrib_moment *m = &at->m[k];

			if (!m->taken || !m->want_map)
				continue;
			fprintf(f, "<figure class=\"state\" data-policy-index=\"%zu\" data-moment=\"%s\" "
			    "data-event=\"%llu\" data-live=\"%llu\" data-count=\"%llu\" "
			    "data-reserved=\"%llu\" data-allocated=\"%llu\" data-largest-free=\"%llu\" "
			    "data-segments=\"%zu\" data-blocks=\"%zu\"><h3>", i, m->key,
			    (unsigned long long)m->event, (unsigned long long)m->live,
			    (unsigned long long)m->nlive, (unsigned long long)m->reserved,
			    (unsigned long long)m->allocated, (unsigned long long)m->largest_free,
			    m->nsegs, m->nblocks);
			page_esc(f, r->pols[i].row->label);
			fprintf(f, " at %s %s (event %llu): %s reserved in %zu segments, %s allocated, "
			    "%s live</h3>\n", strcmp(m->key, "at") == 0 ? "a" : "its", m->what,
			    (unsigned long long)m->event, SZ(m->reserved), m->nsegs, SZ(m->allocated),
			    SZ(m->live));
			if ((req = attrib_request_text(at, m)) != NULL) {
				fputs("<p class=\"req\">", f);
				page_esc(f, req);
				fputs("</p>\n", f);
				free(req);
			}
			map_svg(f, r, at, m, ps);
			fputs("</figure>\n", f);
		}
		for (k = 0; k < at->n; k++) {
			const struct report_run *run = page_run_of(&r->pols[i]);
			const struct attrib_moment *m = &at->m[k];

			if (m->taken || strcmp(m->key, "at") != 0 || !run->res->oomed)
				continue;
			fputs("<p class=\"req\">", f);
			page_esc(f, r->pols[i].row->label);
			fprintf(f, " ran out of memory at event %llu%s: it has no state after event %llu "
			    "(its OOM story says why the request did not fit; its map at the OOM shows "
			    "the memory then).</p>\n", (unsigned long long)run->res->oom.event,
			    run->res->oom.event == m->event ? " itself" : ", before it",
			    (unsigned long long)m->event);
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
		const struct report_run *run = page_run_of(&r->pols[i]);
		char *text;

		if (run == NULL || !run->res->oomed)
			continue;
		if (n++ == 0)
			fputs("<section id=\"oom\"><h2>Out of memory</h2>\n", f);
		fputs("<h3>", f);
		page_esc(f, r->pols[i].row->label);
		fputs("</h3>\n<pre class=\"story\">", f);
		text = report_oom_text(run);
		page_esc(f, text);
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
	page_esc(f, name);
	fprintf(f, "</code></td><td data-bytes=\"%llu\">%s</td><td>%llu</td><td>%.1f%%</td>"
	    "<td>%llu&ndash;%llu</td></tr>\n", (unsigned long long)row->bytes, SZ(row->bytes),
	    (unsigned long long)row->count, of ? 100.0 * (double)row->bytes / (double)of : 0,
	    (unsigned long long)row->first, (unsigned long long)row->last);
}

/*
 * The moments the page looks at, each once: policies that peak (or run
 * out) at the same event see the same live bytes there, which do not
 * depend on the allocator, so they share its table and its graph.
 */
struct moment_of {
	const struct attrib_moment *m;	/* the first policy's */
	const struct attrib *at;
	size_t pols[16];		/* the policies that share it */
	size_t n;
};

static size_t
moments(const struct html_report *r, struct moment_of *out, size_t max)
{
	size_t i, k, j, n = 0;

	for (i = 0; i < r->n; i++) {
		const struct attrib *at = r->pols[i].at;

		if (!page_run_of(&r->pols[i]) || at == NULL)
			continue;
		for (k = 0; k < at->n; k++) {
			const struct attrib_moment *m = &at->m[k];

			if (!m->taken)
				continue;
			for (j = 0; j < n; j++)
				if (out[j].m->event == m->event && out[j].m->before == m->before &&
				    strcmp(out[j].m->key, m->key) == 0)
					break;
			if (j == n && n < max)
				out[n++] = (struct moment_of){ .m = m, .at = at };
			if (j < n && out[j].n < sizeof(out[j].pols) / sizeof(*out[j].pols))
				out[j].pols[out[j].n++] = i;
		}
	}
	return n;
}

/* "caching, cuda-async and no-cache" */
static void
who(FILE *f, const struct html_report *r, const struct moment_of *mo)
{
	size_t i;

	for (i = 0; i < mo->n; i++) {
		if (i > 0)
			fputs(i + 1 < mo->n ? ", " : " and ", f);
		page_esc(f, r->pols[mo->pols[i]].row->label);
	}
}

static void
site_table(FILE *f, const char *who_text, const struct html_report *r,
    const struct moment_of *mo, const struct attrib_moment *m, size_t top)
{
	uint64_t of = m->live;
	size_t i, shown = GMS_MIN(top, m->nrows);

	fputs("<h3>", f);
	if (who_text != NULL)
		page_esc(f, who_text);
	else
		who(f, r, mo);
	fprintf(f, " at the %s (event %llu, %s live)</h3>\n<table class=\"sites\" "
	    "data-moment=\"%s\"><tr><th class=\"l\">call site</th><th>bytes</th><th>count</th>"
	    "<th>share</th><th>events</th></tr>\n", m->what, (unsigned long long)m->event,
	    SZ(of), m->key);
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
	fputs("</table>\n", f);
	if (mo == NULL || !m->has_policy)
		return;
	/* what each policy holds beside them: the rest of its reservation */
	fputs("<table class=\"rest\"><tr><th class=\"l\">policy</th><th>reserved</th>"
	    "<th>block rounding</th><th>reserved, not allocated</th><th>largest free block</th>"
	    "</tr>\n", f);
	for (i = 0; i < mo->n; i++) {
		const struct attrib *at = r->pols[mo->pols[i]].at;
		const struct attrib_moment *pm = NULL;
		size_t k;

		for (k = 0; k < at->n && pm == NULL; k++)
			if (at->m[k].taken && at->m[k].event == m->event &&
			    strcmp(at->m[k].key, m->key) == 0)
				pm = &at->m[k];
		if (pm == NULL)
			continue;
		fputs("<tr><td class=\"l\">", f);
		page_esc(f, r->pols[mo->pols[i]].row->label);
		fprintf(f, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
		    SZ(pm->reserved), SZ(pm->allocated - pm->live), SZ(pm->reserved - pm->allocated),
		    SZ(pm->largest_free));
	}
	fputs("</table>\n", f);
}

static void
sites(FILE *f, const struct html_report *r)
{
	struct moment_of mo[ATTRIB_MOMENTS * 16];
	size_t n = moments(r, mo, sizeof(mo) / sizeof(*mo)), i;

	fputs("<section id=\"sites\"><h2>What holds the memory</h2>\n<p>The live bytes by call "
	    "site (where the trace says the allocation was made), largest first, with the "
	    "events that made the oldest and the newest of them; at each policy's moment the "
	    "block rounding and what it reserved but had not handed out, which add up to its "
	    "reservation. Policies whose moments fall on the same event share its table: the "
	    "live bytes do not depend on the allocator.</p>\n", f);
	/* the trace's live peak, unless a policy's moment is the same event */
	for (i = 0; r->live != NULL && r->live->n > 0 && r->live->m[0].taken && i < n; i++)
		if (mo[i].m->event == r->live->m[0].event && mo[i].m->before == r->live->m[0].before)
			break;
	if (r->live != NULL && r->live->n > 0 && r->live->m[0].taken && i == n)
		site_table(f, "The trace", r, NULL, &r->live->m[0], r->top);
	for (i = 0; i < n; i++)
		site_table(f, NULL, r, &mo[i], mo[i].m, r->top);
	fputs("</section>\n", f);
}

/* The live bytes by stack at each moment, once for the policies that share it. */
static void
flames(FILE *f, const struct html_report *r)
{
	struct moment_of mo[ATTRIB_MOMENTS * 16];
	size_t n = moments(r, mo, sizeof(mo) / sizeof(*mo)), i, k = 0;
	char *title, *whom;
	size_t len;
	FILE *w;

	for (i = 0; i < n; i++) {
		if (!attrib_has_stacks(mo[i].at))
			continue;
		if (k++ == 0)
			fputs("<section id=\"stacks\"><h2>By call stack</h2>\n<p>The live "
			    "bytes at each moment by the whole call stack that allocated them, "
			    "callers above callees, each frame as wide as the bytes under it "
			    "(frames narrower than a pixel left out). Point at a frame for its "
			    "bytes.</p>\n", f);
		whom = NULL;
		len = 0;
		if ((w = open_memstream(&whom, &len)) == NULL)
			continue;
		for (size_t j = 0; j < mo[i].n; j++)
			fprintf(w, "%s%s", j == 0 ? "" : j + 1 < mo[i].n ? ", " : " and ",
			    r->pols[mo[i].pols[j]].row->label);
		fclose(w);
		title = gms_asprintf("%s at %s %s (event %llu)", whom, mo[i].n == 1 ? "its" : "their",
		    mo[i].m->what, (unsigned long long)mo[i].m->event);
		fputs("<figure>", f);
		attrib_flame(f, mo[i].at, mo[i].m, NULL, 0, title, 1.0, 1);
		fputs("</figure>\n", f);
		free(title);
		free(whom);
	}
	if (k > 0)
		fputs("</section>\n", f);
}

/* --- two traces compared ---------------------------------------------------- */

static void
diff_cell(FILE *f, uint64_t before, uint64_t after)
{
	fprintf(f, "<td data-bytes=\"%llu\">%s</td><td data-bytes=\"%llu\">%s</td><td>%s%s</td>",
	    (unsigned long long)before, SZ(before), (unsigned long long)after, SZ(after),
	    after >= before ? "+" : "&minus;", SZ(after >= before ? after - before : before - after));
}

static void
diff_row(FILE *f, const struct stack_diff_row *row)
{
	size_t j, shown = GMS_MIN(row->nframes, (size_t)3);
	char buf[512];

	fprintf(f, "<tr data-grew=\"%lld\"><td class=\"l\" title=\"",
	    (long long)row->after - (long long)row->before);
	for (j = 0; j < row->nframes; j++) {
		fputs(j ? "\n" : "", f);
		page_esc(f, stack_frame_shown(row->frames[row->nframes - 1 - j], buf, sizeof(buf)));
	}
	fputs("\"><code>", f);
	for (j = 0; j < shown; j++) {
		fputs(j ? " &larr; " : "", f);
		page_esc(f, stack_frame_shown(row->frames[row->nframes - 1 - j], buf, sizeof(buf)));
	}
	if (row->nframes > shown)
		fprintf(f, " &larr; (%zu more)", row->nframes - shown);
	fputs("</code></td>", f);
	diff_cell(f, row->before, row->after);
	if (row->first == UINT64_MAX)
		fputs("<td></td></tr>\n", f);
	else
		fprintf(f, "<td>%s %llu&ndash;%llu</td></tr>\n", row->first_in_after ? "after" :
		    "before", (unsigned long long)row->first, (unsigned long long)row->last);
}

static void
moment_words(FILE *f, const struct attrib_moment *m)
{
	if (m == NULL)
		fputs("(no moment)", f);
	else
		fprintf(f, "its %s, event %llu", m->what, (unsigned long long)m->event);
}

static void
diff_section(FILE *f, const struct html_report *r)
{
	const struct trace_diff *td = r->diff;
	const struct html_report *b = r->before;
	size_t i, k, grew = 0, shrank = 0;

	if (td == NULL || b == NULL)
		return;
	fputs("<section id=\"diff\"><h2>Compared with the trace before</h2>\n<p>This page is "
	    "<code>", f);
	page_esc(f, r->names[1]);
	fputs("</code>'s (after); here it is beside <code>", f);
	page_esc(f, r->names[0]);
	fputs("</code> (before).</p>\n<table>\n<tr><th class=\"l\"></th><th>before</th>"
	    "<th>after</th><th>change</th></tr>\n<tr><td class=\"l\">live peak</td>", f);
	diff_cell(f, b->res->peak_live, r->res->peak_live);
	fputs("</tr>\n", f);
	for (i = 0; i < r->n && i < b->n; i++) {
		const struct report_run *x = page_run_of(&b->pols[i]), *y = page_run_of(&r->pols[i]);

		if (x == NULL || y == NULL)
			continue;
		fputs("<tr><td class=\"l\">", f);
		page_esc(f, r->pols[i].row->label);
		fputs(" peak reserved</td>", f);
		diff_cell(f, x->res->peak_reserved, y->res->peak_reserved);
		fputs("</tr>\n", f);
		if (x->res->oomed || y->res->oomed) {
			fputs("<tr><td class=\"l\">", f);
			page_esc(f, r->pols[i].row->label);
			fputs(" out of memory</td>", f);
			for (k = 0; k < 2; k++) {
				const struct sim_result *res = k ? y->res : x->res;

				if (res->oomed)
					fprintf(f, "<td>event %llu</td>", (unsigned long long)res->oom.event);
				else
					fputs("<td>fits</td>", f);
			}
			fputs("<td></td></tr>\n", f);
		}
	}
	fputs("</table>\n<h3>What grew, by call stack</h3>\n<p>Under ", f);
	page_esc(f, r->pols[0].row->label);
	fputs(", the live bytes of each call stack before (at ", f);
	moment_words(f, td->m[0]);
	fputs(") and after (at ", f);
	moment_words(f, td->m[1]);
	fputs("), the largest growth first, then what shrank; innermost frame first (point at "
	    "a stack for all its frames), with the events that made what is live.</p>\n"
	    "<table class=\"diff\">\n<tr><th class=\"l\">stack</th><th>before</th><th>after</th>"
	    "<th>change</th><th>events</th></tr>\n", f);
	for (i = 0; i < td->d.n; i++) {
		const struct stack_diff_row *row = &td->d.rows[i];

		if (row->after > row->before && grew++ < r->top)
			diff_row(f, row);
	}
	for (i = 0; i < td->d.n; i++) {
		const struct stack_diff_row *row = &td->d.rows[i];

		if (row->after < row->before && shrank++ < r->top)
			diff_row(f, row);
	}
	fputs("<tr><td class=\"l\"><em>every stack</em></td>", f);
	diff_cell(f, td->d.before, td->d.after);
	fprintf(f, "<td>%zu grew, %zu shrank</td></tr>\n</table>\n</section>\n", grew, shrank);
}

int
report_html(FILE *f, const struct html_report *r)
{
	const char *title = r->title ? r->title : r->hdr->name;
	struct page_stacks *ps = page_stacks_new();

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<meta name=\"generator\" content=\"gpumemsim " PACKAGE_VERSION "\">\n<title>", f);
	page_esc(f, title);
	fputs(": gpumemsim report</title>\n<style>\n", f);
	fputs(asset_report_css, f);
	fputs("</style>\n</head>\n<body>\n<header><h1>", f);
	page_esc(f, title);
	fputs("</h1>\n<p class=\"sub\">What the allocators do with this trace, simulated by "
	    "gpumemsim " PACKAGE_VERSION ".</p></header>\n", f);
	summary(f, r);
	page_ranks(f, r);
	diff_section(f, r);
	policies_table(f, r);
	page_timeline(f, r, ps);
	stories(f, r);
	sites(f, r);
	flames(f, r);
	page_segments(f, r);
	maps(f, r, ps);
	fputs("<footer><p class=\"sub\">Made by <code>", f);
	page_esc(f, r->command);
	fputs("</code>. Self-contained: nothing is fetched.</p></footer>\n"
	    "<div id=\"tip\"></div>\n<pre id=\"selftest\"></pre>\n", f);
	page_stacks_write(f, ps);
	page_stacks_free(ps);
	fputs("<script>\n", f);
	fputs(asset_report_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
	if (fflush(f) != 0 || ferror(f)) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}
