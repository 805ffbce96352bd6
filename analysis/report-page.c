/*
 * report-page.c - what the report page's sections share (report-page.h),
 * below them all: the palette, escaping into HTML and into a <script>
 * data block, a policy's run, and the page's table of stacks, each written
 * once and named by its index.  The sections (report-html.c, the page;
 * report-timeline.c, report-segments.c, report-ranks.c) call down here and
 * never into each other.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "analysis/report-page.h"
#include "sim/gms.h"

/* Sites stacked in the timeline and coloured in the maps: dark to light, so
   they stay apart in greyscale (viridis, short of its lightest, which free
   white would swallow); the rest is light grey. */
const char *const page_site_fill[] = { "#440154", "#414487", "#2a788e", "#22a884",
	"#7ad151", "#c2df23" };
const size_t page_nsite_fill = sizeof(page_site_fill) / sizeof(*page_site_fill);

/* Policy lines: black to grey, each its own dash. */
const char *const page_line_stroke[] = { "#000", "#444", "#777", "#222", "#999", "#555" };
const char *const page_line_dash[] = { "", "8 4", "2 3", "12 3 3 3", "5 5", "1 2" };
const size_t page_nlines = sizeof(page_line_stroke) / sizeof(*page_line_stroke);

void
page_esc(FILE *f, const char *s)
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
void
page_json_str(FILE *f, const char *s)
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

const struct report_run *
page_run_of(const struct html_policy *p)
{
	return p->row->err == 0 ? &p->row->run : NULL;
}

/* --- the page's stacks ------------------------------------------------------ */

#define PAGE_STACK_FRAMES 64		/* innermost frames a stack shows */
#define PAGE_STACKS_BYTES (4u << 20)	/* stack text a page carries at most */

struct page_stack_ent {
	char *text;
	long idx;
	UT_hash_handle hh;
};

/* A stack tree's node, once looked up: its index (-1: none, or past the bound). */
struct page_node_key {
	const struct attrib *a;
	uint64_t node;
};
struct page_node_ent {
	struct page_node_key key;
	long idx;
	UT_hash_handle hh;
};

struct page_stacks {
	struct page_stack_ent *h;	/* by text: policies' trees name the same stacks */
	struct page_node_ent *nodes;	/* by tree and node: every block of a stack asks */
	struct page_stack_ent **byidx;
	size_t n, cap, bytes;
};

struct page_stacks *
page_stacks_new(void)
{
	return gms_calloc(1, sizeof(struct page_stacks));
}

/* The index of node's text, kept once; -1 for no stack or past the bound. */
static long
stack_index(struct page_stacks *ps, const struct attrib *a, uint32_t node)
{
	const char *fr[PAGE_STACK_FRAMES];
	char buf[512], *text = NULL;
	struct page_stack_ent *e;
	size_t n, i, len = 0;
	FILE *f;

	if (node == 0 || (n = attrib_stack_frames(a, node, fr, PAGE_STACK_FRAMES)) == 0 ||
	    (n == 1 && strcmp(fr[0], STACKS_NONE) == 0))
		return -1;
	if ((f = open_memstream(&text, &len)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "\n" : "", stack_frame_shown(fr[i], buf, sizeof(buf)));
	fclose(f);
	HASH_FIND(hh, ps->h, text, len, e);
	if (e != NULL) {
		free(text);
		return e->idx;
	}
	if (ps->bytes + len > PAGE_STACKS_BYTES) {
		/* the page stays bounded: a block past it shows no stack */
		free(text);
		return -1;
	}
	e = gms_malloc(sizeof(*e));
	e->text = text;
	e->idx = (long)ps->n;
	ps->bytes += len;
	if (ps->n == ps->cap)
		ps->byidx = gms_realloc(ps->byidx, (ps->cap = ps->cap ? 2 * ps->cap : 64) *
		    sizeof(*ps->byidx));
	ps->byidx[ps->n++] = e;
	HASH_ADD_KEYPTR(hh, ps->h, e->text, len, e);
	return e->idx;
}

long
page_stack(struct page_stacks *ps, const struct attrib *a, uint32_t node)
{
	struct page_node_key key;
	struct page_node_ent *e;

	memset(&key, 0, sizeof(key));
	key.a = a;
	key.node = node;
	HASH_FIND(hh, ps->nodes, &key, sizeof(key), e);
	if (e == NULL) {
		e = gms_malloc(sizeof(*e));
		e->key = key;
		e->idx = stack_index(ps, a, node);
		HASH_ADD(hh, ps->nodes, key, sizeof(e->key), e);
	}
	return e->idx;
}

void
page_stacks_write(FILE *f, const struct page_stacks *ps)
{
	size_t i;

	fputs("<script type=\"application/json\" id=\"stacks-data\">[", f);
	for (i = 0; i < ps->n; i++) {
		fputs(i ? "," : "", f);
		page_json_str(f, ps->byidx[i]->text);
	}
	fprintf(f, "]</script>\n");
}

void
page_stacks_free(struct page_stacks *ps)
{
	struct page_stack_ent *e, *et;
	struct page_node_ent *k, *kt;

	if (ps == NULL)
		return;
	HASH_ITER(hh, ps->h, e, et) {
		HASH_DEL(ps->h, e);
		free(e->text);
		free(e);
	}
	HASH_ITER(hh, ps->nodes, k, kt) {
		HASH_DEL(ps->nodes, k);
		free(k);
	}
	free(ps->byidx);
	free(ps);
}
