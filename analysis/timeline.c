/*
 * timeline.c - timelines of a run (timeline.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "sim/gms.h"

void
timeline_init(struct timeline *tl, size_t points)
{
	memset(tl, 0, sizeof(*tl));
	tl->points = points;
	tl->width = 1;
}

static void write_row(FILE *f, uint64_t event, const struct timeline_row *cur,
    const struct timeline_row *const *rows, size_t n);

static void
push(struct timeline *tl, const struct timeline_row *r)
{
	/* every change, not an envelope: straight to the CSV, or to the spill */
	if (tl->out != NULL) {
		write_row(tl->out, r->event, r, &r, 1);
		tl->n++;
		return;
	}
	if (tl->spill != NULL) {
		if (fwrite(r, sizeof(*r), 1, tl->spill) != 1)
			tl->spill_failed = 1;
		tl->n++;
		return;
	}
	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 1024;
		tl->rows = gms_realloc(tl->rows, tl->cap * sizeof(*tl->rows));
	}
	tl->rows[tl->n++] = *r;
}

/* Fold b into a (a bucket's envelope): the larger values, reserved's peak event. */
static void
fold(struct timeline_row *a, const struct timeline_row *b)
{
	if (b->reserved > a->reserved || (a->stopped && !b->stopped)) {
		a->event = b->event;
		a->t_us = b->t_us;
		a->has_time = b->has_time;
	}
	a->live = GMS_MAX(a->live, b->live);
	if (!b->stopped) {
		a->allocated = a->stopped ? b->allocated : GMS_MAX(a->allocated, b->allocated);
		a->reserved = a->stopped ? b->reserved : GMS_MAX(a->reserved, b->reserved);
		a->stopped = 0;
	}
}

void
timeline_sample(void *arg, const struct sim_sample *smp)
{
	struct timeline *tl = arg;
	struct timeline_row r = { .event = smp->event, .t_us = smp->t_us, .has_time = smp->has_time,
	    .live = smp->live, .allocated = smp->allocated, .reserved = smp->reserved,
	    .stopped = smp->stopped };
	size_t bucket, i;

	if (tl->points == 0) {
		if (tl->have_last && r.live == tl->last.live && r.allocated == tl->last.allocated &&
		    r.reserved == tl->last.reserved && r.stopped == tl->last.stopped)
			return;
		tl->last = r;
		tl->have_last = 1;
		push(tl, &r);
		return;
	}
	bucket = (size_t)(r.event / tl->width);
	while (bucket >= tl->points) {
		/* twice as wide: fold pairs of buckets */
		for (i = 0; i < tl->n; i += 2) {
			tl->rows[i / 2] = tl->rows[i];
			if (i + 1 < tl->n)
				fold(&tl->rows[i / 2], &tl->rows[i + 1]);
		}
		tl->n = (tl->n + 1) / 2;
		tl->width *= 2;
		bucket = (size_t)(r.event / tl->width);
	}
	if (bucket < tl->n) {
		fold(&tl->rows[tl->n - 1], &r);
		return;
	}
	/* events arrive in order, so a new bucket is the next one */
	push(tl, &r);
}

struct timeline_row *
timeline_coarsen(const struct timeline_row *rows, size_t n, size_t factor, size_t *nout)
{
	struct timeline_row *out = gms_malloc((n ? n : 1) * sizeof(*out));
	size_t i, k = 0;

	if (factor == 0)
		factor = 1;
	for (i = 0; i < n; i++) {
		if (i % factor == 0)
			out[k++] = rows[i];
		else
			fold(&out[k - 1], &rows[i]);
	}
	*nout = k;
	return out;
}

void
timeline_free(struct timeline *tl)
{
	free(tl->rows);
	if (tl->spill != NULL)
		fclose(tl->spill);
	memset(tl, 0, sizeof(*tl));
}

static void
write_header(FILE *f, const char *const *labels, size_t n)
{
	size_t k;

	fprintf(f, "event,t_us,live");
	for (k = 0; k < n; k++) {
		if (n == 1)
			fprintf(f, ",allocated,reserved");
		else
			fprintf(f, ",%s_allocated,%s_reserved", labels[k], labels[k]);
	}
	fprintf(f, "\n");
}

void
timeline_stream(struct timeline *tl, FILE *f)
{
	if (tl->points != 0)
		return;
	tl->out = f;
	write_header(f, NULL, 1);
}

int
timeline_spill(struct timeline *tl)
{
	if (tl->points != 0)
		return 0;
	return (tl->spill = tmpfile()) != NULL ? 0 : -1;
}

/* Reading a timeline's rows back in order, from memory or from its spill. */
struct cursor {
	struct timeline *tl;
	size_t next;			/* rows taken */
	struct timeline_row ahead;	/* the next row, when has_ahead */
	int has_ahead;
	struct timeline_row last;	/* the row last taken, when has_last */
	int has_last;
};

static int
cursor_peek(struct cursor *c)
{
	if (c->has_ahead)
		return 1;
	if (c->next >= c->tl->n)
		return 0;
	if (c->tl->spill != NULL) {
		if (fread(&c->ahead, sizeof(c->ahead), 1, c->tl->spill) != 1) {
			c->tl->spill_failed = 1;
			return 0;
		}
	} else {
		c->ahead = c->tl->rows[c->next];
	}
	return c->has_ahead = 1;
}

static void
cursor_take(struct cursor *c)
{
	c->last = c->ahead;
	c->has_last = 1;
	c->has_ahead = 0;
	c->next++;
}

/* One CSV row: the event, cur's time and live bytes, each timeline's row (NULL: none yet). */
static void
write_row(FILE *f, uint64_t event, const struct timeline_row *cur,
    const struct timeline_row *const *rows, size_t n)
{
	size_t k;

	fprintf(f, "%llu,", (unsigned long long)event);
	if (cur->has_time)
		fprintf(f, "%lld", (long long)cur->t_us);
	fprintf(f, ",%llu", (unsigned long long)cur->live);
	for (k = 0; k < n; k++) {
		if (rows[k] == NULL || rows[k]->stopped)
			fprintf(f, ",,");
		else
			fprintf(f, ",%llu,%llu", (unsigned long long)rows[k]->allocated,
			    (unsigned long long)rows[k]->reserved);
	}
	fprintf(f, "\n");
}

/*
 * Whether envelopes share their buckets, row by row (runs of one trace);
 * else (the ranks of a job, each on the common clock) they are merged by
 * event as every-change timelines are.
 */
static int
same_buckets(struct timeline *const *tls, size_t n)
{
	size_t k, i;

	for (k = 1; k < n; k++) {
		if (tls[k]->points == 0 || tls[k]->n != tls[0]->n)
			return 0;
		for (i = 0; i < tls[0]->n; i++)
			if (tls[k]->rows[i].event != tls[0]->rows[i].event)
				return 0;
	}
	return 1;
}

int
timeline_write_csv(FILE *f, struct timeline *const *tls, const char *const *labels, size_t n)
{
	struct cursor *at = gms_calloc(n ? n : 1, sizeof(*at));
	const struct timeline_row **rows = gms_calloc(n ? n : 1, sizeof(*rows)), *cur;
	size_t i, k;
	uint64_t next;
	int any, failed = 0;

	write_header(f, labels, n);
	for (k = 0; k < n; k++) {
		at[k].tl = tls[k];
		if (tls[k]->spill != NULL && fseek(tls[k]->spill, 0, SEEK_SET) != 0)
			failed = 1;
	}
	if (n > 0 && tls[0]->points > 0 && same_buckets(tls, n)) {
		/* envelopes of the same trace share their buckets: a row a bucket */
		for (i = 0; i < tls[0]->n; i++) {
			for (k = 0; k < n; k++)
				rows[k] = i < tls[k]->n ? &tls[k]->rows[i] : NULL;
			write_row(f, tls[0]->rows[i].event, &tls[0]->rows[i], rows, n);
		}
		goto out;
	}
	for (;;) {
		/* the next event any timeline has a row for */
		any = 0;
		next = UINT64_MAX;
		for (k = 0; k < n; k++)
			if (cursor_peek(&at[k]) && at[k].ahead.event < next) {
				next = at[k].ahead.event;
				any = 1;
			}
		if (!any)
			break;
		cur = NULL;
		for (k = 0; k < n; k++) {
			while (cursor_peek(&at[k]) && at[k].ahead.event <= next)
				cursor_take(&at[k]);
			rows[k] = at[k].has_last ? &at[k].last : NULL;
			if (rows[k] != NULL && (cur == NULL || rows[k]->event == next))
				cur = rows[k];
		}
		write_row(f, next, cur, rows, n);
	}
out:
	for (k = 0; k < n; k++)
		failed |= tls[k]->spill_failed;
	free(at);
	free(rows);
	if (failed)
		errno = EIO;
	return ferror(f) || failed ? -1 : 0;
}
