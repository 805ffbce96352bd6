/*
 * timeline.c - timelines of a run (timeline.h).
 */
#include "config.h"

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

static void
push(struct timeline *tl, const struct timeline_row *r)
{
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

void
timeline_free(struct timeline *tl)
{
	free(tl->rows);
	memset(tl, 0, sizeof(*tl));
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

int
timeline_write_csv(FILE *f, struct timeline *const *tls, const char *const *labels, size_t n)
{
	size_t *at = gms_calloc(n ? n : 1, sizeof(*at)), i, k;
	const struct timeline_row **rows = gms_calloc(n ? n : 1, sizeof(*rows)), *cur;
	uint64_t next;
	int any;

	fprintf(f, "event,t_us,live");
	for (k = 0; k < n; k++) {
		if (n == 1)
			fprintf(f, ",allocated,reserved");
		else
			fprintf(f, ",%s_allocated,%s_reserved", labels[k], labels[k]);
	}
	fprintf(f, "\n");
	if (n > 0 && tls[0]->points > 0) {
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
			if (at[k] < tls[k]->n && tls[k]->rows[at[k]].event < next) {
				next = tls[k]->rows[at[k]].event;
				any = 1;
			}
		if (!any)
			break;
		cur = NULL;
		for (k = 0; k < n; k++) {
			while (at[k] < tls[k]->n && tls[k]->rows[at[k]].event <= next)
				at[k]++;
			rows[k] = at[k] > 0 ? &tls[k]->rows[at[k] - 1] : NULL;
			if (rows[k] != NULL && (cur == NULL || rows[k]->event == next))
				cur = rows[k];
		}
		write_row(f, next, cur, rows, n);
	}
out:
	free(at);
	free(rows);
	return ferror(f) ? -1 : 0;
}
