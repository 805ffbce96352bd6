/*
 * stackdiff.c - what grew between two runs, by call stack (stackdiff.h):
 * both views' stacks into one table keyed by their folded path (uthash),
 * sorted by growth, and shown.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "analysis/stackdiff.h"
#include "sim/gms.h"

struct by_path {
	const char *path;
	size_t idx;
	UT_hash_handle hh;
};

struct build {
	struct stack_diff *d;
	struct by_path *h;
	size_t cap;
	int after;
};

static void
add_leaf(void *arg, const struct stack_leaf *l)
{
	struct build *b = arg;
	struct stack_diff *d = b->d;
	struct stack_diff_row *r;
	struct by_path *e;
	char *path = stack_leaf_folded(l);
	size_t i;

	HASH_FIND_STR(b->h, path, e);
	if (e == NULL) {
		if (d->n == b->cap)
			d->rows = gms_realloc(d->rows, (b->cap = b->cap ? 2 * b->cap : 64) *
			    sizeof(*d->rows));
		r = &d->rows[d->n];
		memset(r, 0, sizeof(*r));
		r->path = path;
		r->nframes = l->nframes;
		r->frames = gms_malloc((l->nframes ? l->nframes : 1) * sizeof(*r->frames));
		for (i = 0; i < l->nframes; i++)
			r->frames[i] = gms_strdup(l->frames[i]);
		e = gms_malloc(sizeof(*e));
		e->path = r->path;
		e->idx = d->n++;
		HASH_ADD_KEYPTR(hh, b->h, e->path, strlen(e->path), e);
	} else {
		free(path);
		r = &d->rows[e->idx];
	}
	if (b->after) {
		r->after += l->bytes;
		r->nafter += l->count;
		r->first = l->first;
		r->last = l->last;
		r->first_in_after = 1;
	} else {
		r->before += l->bytes;
		r->nbefore += l->count;
		r->first = l->first;
		r->last = l->last;
	}
}

static int64_t
change(const struct stack_diff_row *r)
{
	return (int64_t)r->after - (int64_t)r->before;
}

static int
by_growth(const void *x, const void *y)
{
	const struct stack_diff_row *a = x, *b = y;
	int64_t ca = change(a), cb = change(b);

	if (ca != cb)
		return ca > cb ? -1 : 1;
	return strcmp(a->path, b->path);
}

void
stack_diff_build(const struct stack_view *before, const struct stack_view *after,
    struct stack_diff *d)
{
	struct build b = { .d = d };
	struct by_path *e, *et;

	memset(d, 0, sizeof(*d));
	stack_view_leaves(before, add_leaf, &b);
	b.after = 1;
	stack_view_leaves(after, add_leaf, &b);
	HASH_ITER(hh, b.h, e, et) {
		HASH_DEL(b.h, e);
		free(e);
	}
	if (d->n > 0)
		qsort(d->rows, d->n, sizeof(*d->rows), by_growth);
	d->before = stack_view_bytes(before);
	d->after = stack_view_bytes(after);
}

void
stack_diff_free(struct stack_diff *d)
{
	size_t i, k;

	for (i = 0; i < d->n; i++) {
		for (k = 0; k < d->rows[i].nframes; k++)
			free(d->rows[i].frames[k]);
		free(d->rows[i].frames);
		free(d->rows[i].path);
	}
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

/* A size with its sign: "+1.00 GiB", "-512 B", "0 B". */
static void
signed_size(int64_t v, char *buf, size_t len)
{
	char s[32];

	gms_fmt_size((uint64_t)(v < 0 ? -v : v), s, sizeof(s));
	snprintf(buf, len, "%s%s", v > 0 ? "+" : v < 0 ? "-" : "", s);
}

#define SHOWN_FRAMES 4	/* innermost frames a table row shows */

static void
row_text(FILE *f, const struct stack_diff_row *r)
{
	char a[32], b[32], c[40], ev[64], buf[1024];
	size_t i, shown = 0;

	gms_fmt_size(r->before, a, sizeof(a));
	gms_fmt_size(r->after, b, sizeof(b));
	signed_size(change(r), c, sizeof(c));
	if (r->first == UINT64_MAX)
		ev[0] = '\0';	/* a saved run's: its events are not known */
	else
		snprintf(ev, sizeof(ev), "%s%llu-%llu", r->first_in_after ? "" : "was ",
		    (unsigned long long)r->first, (unsigned long long)r->last);
	fprintf(f, "  %10s %10s %11s  %-21s  ", a, b, c, ev);
	for (i = r->nframes; i-- > 0 && shown < SHOWN_FRAMES; shown++)
		fprintf(f, "%s%s", shown ? " < " : "", stack_frame_shown(r->frames[i], buf,
		    sizeof(buf)));
	if (r->nframes > SHOWN_FRAMES)
		fprintf(f, " < (%zu more)", r->nframes - SHOWN_FRAMES);
	fputc('\n', f);
}

static void
rest_text(FILE *f, uint64_t before, uint64_t after, size_t n, const char *what)
{
	char a[32], b[32], c[40], name[64];

	gms_fmt_size(before, a, sizeof(a));
	gms_fmt_size(after, b, sizeof(b));
	signed_size((int64_t)after - (int64_t)before, c, sizeof(c));
	snprintf(name, sizeof(name), "(%zu other stack%s %s)", n, n == 1 ? "" : "s", what);
	fprintf(f, "  %10s %10s %11s  %-21s  %s\n", a, b, c, "", name);
}

/* Rows [from, to) of one sign: top of them shown, the rest summed. */
static void
part_text(FILE *f, const struct stack_diff *d, size_t from, size_t to, size_t top,
    int reverse, const char *what)
{
	uint64_t rb = 0, ra = 0;
	size_t i, k, n = to - from;

	for (k = 0; k < n; k++) {
		i = reverse ? to - 1 - k : from + k;
		if (k < top) {
			row_text(f, &d->rows[i]);
		} else {
			rb += d->rows[i].before;
			ra += d->rows[i].after;
		}
	}
	if (n > top)
		rest_text(f, rb, ra, n - top, what);
}

/* The rows' bounds: [0, grew) grew, [shrank, n) shrank, the rest the same. */
static void
bounds(const struct stack_diff *d, size_t *grew, size_t *shrank)
{
	for (*grew = 0; *grew < d->n && change(&d->rows[*grew]) > 0; (*grew)++)
		;
	for (*shrank = *grew; *shrank < d->n && change(&d->rows[*shrank]) == 0; (*shrank)++)
		;
}

void
stack_diff_text(FILE *f, const struct stack_diff *d, size_t top)
{
	size_t grew, shrank;

	bounds(d, &grew, &shrank);
	fprintf(f, "  %10s %10s %11s  %-21s  %s\n", "before", "after", "change", "events",
	    "stack (innermost first)");
	if (grew == 0)
		fputs("  (no stack grew)\n", f);
	part_text(f, d, 0, grew, top, 0, "grew");
	if (shrank < d->n)
		part_text(f, d, shrank, d->n, top, 1, "shrank");
	if (shrank > grew)
		fprintf(f, "  (%zu stack%s the same)\n", shrank - grew, shrank - grew == 1 ? "" : "s");
}

static cJSON *
row_json(const struct stack_diff_row *r)
{
	cJSON *o = cJSON_CreateObject(), *fr = cJSON_AddArrayToObject(o, "stack");
	size_t i;

	for (i = r->nframes; i-- > 0;)
		cJSON_AddItemToArray(fr, cJSON_CreateString(r->frames[i]));
	cJSON_AddNumberToObject(o, "before", (double)r->before);
	cJSON_AddNumberToObject(o, "after", (double)r->after);
	cJSON_AddNumberToObject(o, "change", (double)change(r));
	cJSON_AddNumberToObject(o, "count_before", (double)r->nbefore);
	cJSON_AddNumberToObject(o, "count_after", (double)r->nafter);
	cJSON_AddStringToObject(o, "events_of", r->first_in_after ? "after" : "before");
	if (r->first == UINT64_MAX) {
		cJSON_AddNullToObject(o, "first_event");
		cJSON_AddNullToObject(o, "last_event");
	} else {
		cJSON_AddNumberToObject(o, "first_event", (double)r->first);
		cJSON_AddNumberToObject(o, "last_event", (double)r->last);
	}
	return o;
}

cJSON *
stack_diff_json(const struct stack_diff *d, size_t top)
{
	cJSON *o = cJSON_CreateObject(), *g, *s;
	size_t grew, shrank, k;

	bounds(d, &grew, &shrank);
	cJSON_AddNumberToObject(o, "before", (double)d->before);
	cJSON_AddNumberToObject(o, "after", (double)d->after);
	g = cJSON_AddArrayToObject(o, "grew");
	for (k = 0; k < grew && k < top; k++)
		cJSON_AddItemToArray(g, row_json(&d->rows[k]));
	s = cJSON_AddArrayToObject(o, "shrank");
	for (k = 0; k < d->n - shrank && k < top; k++)
		cJSON_AddItemToArray(s, row_json(&d->rows[d->n - 1 - k]));
	cJSON_AddNumberToObject(o, "stacks_grew", (double)grew);
	cJSON_AddNumberToObject(o, "stacks_shrank", (double)(d->n - shrank));
	cJSON_AddNumberToObject(o, "stacks_unchanged", (double)(shrank - grew));
	return o;
}

void
stack_diff_folded(FILE *f, const struct stack_diff *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		fprintf(f, "%s %llu %llu\n", d->rows[i].path, (unsigned long long)d->rows[i].before,
		    (unsigned long long)d->rows[i].after);
}
