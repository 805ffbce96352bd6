/*
 * trace-csv.c - RAPIDS RMM logs (rmm::mr::logging_resource_adaptor,
 * LoggingResourceAdaptor in Python) read as a trace.  The header names the
 * columns (Thread,Time,Action,Pointer,Size,Stream; an extra column such as
 * Device is ignored); each row is one event, streamed:
 *
 *   allocate          -> alloc: id and addr are the pointer
 *   free, deallocate  -> free of the pointer's id
 *   allocate failure  -> an observed oom of that size
 *
 * Pointers and streams are hex ("0x7f8a40000000"), decimal, or "(nil)".
 * The per-thread default stream (cudaStreamPerThread, 0x2) is a stream of
 * its own in each thread, as RMM's resources treat it: its rows get stream
 * 2 + N * 2^40 for the N-th thread that used it (from 1, by the Thread
 * column; 4095 at most).
 * Time is the adaptor's time of day ("14:03:27.123456", a day added each time
 * it wraps past midnight) or seconds since the epoch ("1634567890.123456").
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include <uthash.h>

#include "sim/gms.h"
#include "traces/reader.h"

enum { COL_THREAD, COL_TIME, COL_ACTION, COL_POINTER, COL_SIZE, COL_STREAM, NCOLS };

static const char *const col_names[NCOLS] = {
	"Thread", "Time", "Action", "Pointer", "Size", "Stream",
};

#define MAX_FIELDS 16
#define PTDS 2				/* cudaStreamPerThread */
#define PTDS_SHIFT 40
#define PTDS_THREADS 4095		/* 2 + 4095 * 2^40 < 2^53 */

struct thread_id {
	char *name;			/* the Thread column as written */
	uint64_t ordinal;		/* 1, 2, ...: first use of the per-thread stream */
	UT_hash_handle hh;
};

/* A live block, by pointer: what its free should say (its size). */
struct live_ptr {
	uint64_t ptr, size;
	UT_hash_handle hh;
};

struct csv_state {
	struct trace_lines lines;
	struct live_ptr *live;
	uint64_t bad_sizes, first_bad_size;	/* a free whose size is not its block's */
	int col[NCOLS];		/* field index of each column, -1 if absent */
	int nfields;
	int64_t day_us;		/* days added to time of day, in microseconds */
	int64_t last_tod;	/* last time of day seen, -1 before the first */
	struct thread_id *threads;	/* that used the per-thread default stream */
	uint64_t nthreads;
};

/* The stream of a per-thread default stream row: one per thread. */
static int
ptds_stream(struct csv_state *st, const char *thread, uint64_t *stream, char **cause)
{
	struct thread_id *t;

	HASH_FIND_STR(st->threads, thread, t);
	if (t == NULL) {
		if (st->nthreads == PTDS_THREADS)
			return gms_fail(cause, GMS_ETRACE, "more than %d threads use the per-thread "
			    "default stream", PTDS_THREADS);
		t = gms_calloc(1, sizeof(*t));
		t->name = gms_strdup(thread);
		t->ordinal = ++st->nthreads;
		HASH_ADD_KEYPTR(hh, st->threads, t->name, strlen(t->name), t);
	}
	*stream = PTDS + (t->ordinal << PTDS_SHIFT);
	return 0;
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int
split(char *line, char **f)
{
	int n = 0;
	char *p = line, *c;

	for (;;) {
		if (n == MAX_FIELDS)
			return -1;
		c = strchr(p, ',');
		if (c != NULL)
			*c = '\0';
		f[n++] = trim(p);
		if (c == NULL)
			return n;
		p = c + 1;
	}
}

/* A pointer or stream: 0x-hex, decimal, "(nil)" or "nullptr". */
static int
parse_ptr(const char *s, const char *what, uint64_t *out, char **cause)
{
	char *end;
	int base = 10;

	if (strcmp(s, "(nil)") == 0 || strcmp(s, "nullptr") == 0 || strcmp(s, "NULL") == 0) {
		*out = 0;
		return 0;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	errno = 0;
	*out = strtoull(s, &end, base);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 ||
	    (base == 16 && s[2] == '\0'))
		return gms_fail(cause, GMS_ETRACE, "%s is not a pointer: '%s'", what, s);
	if (*out > (uint64_t)TRACE_INT_MAX)
		return gms_fail(cause, GMS_ETRACE, "%s %s is 2^53 or beyond", what, s);
	return 0;
}

static int
parse_time(struct csv_state *st, const char *s, int64_t *out, char **cause)
{
	unsigned h, m, sec;
	char frac[16] = "";
	int64_t us, tod;
	size_t i;
	char *end;
	double d;

	if (sscanf(s, "%u:%u:%u.%15[0-9]", &h, &m, &sec, frac) >= 3 && strchr(s, ':')) {
		if (h > 23 || m > 59 || sec > 60)
			return gms_fail(cause, GMS_ETRACE, "time is not a time of day: '%s'", s);
		/* microseconds; finer digits are dropped */
		us = 0;
		for (i = 0; i < 6; i++)
			us = us * 10 + (i < strlen(frac) ? frac[i] - '0' : 0);
		tod = ((int64_t)h * 3600 + m * 60 + sec) * 1000000 + us;
		/* A log spans days: time of day going back by over 12 hours wrapped. */
		if (st->last_tod >= 0 && tod < st->last_tod - 43200LL * 1000000)
			st->day_us += 86400LL * 1000000;
		st->last_tod = tod;
		*out = st->day_us + tod;
		/* what the native format holds (2^53 us: centuries of wrapped days) */
		if (*out > TRACE_INT_MAX)
			return gms_fail(cause, GMS_ETRACE, "time '%s' is 2^53 microseconds or more "
			    "after the log began (more days wrapped than a log can span)", s);
		return 0;
	}
	errno = 0;
	d = strtod(s, &end);
	/* written so that a NaN fails too */
	if (*s == '\0' || *end != '\0' || errno != 0 || !(d >= 0 && d <= 9e9))
		return gms_fail(cause, GMS_ETRACE, "time is neither a time of day nor epoch "
		    "seconds: '%s'", s);
	*out = (int64_t)(d * 1e6 + 0.5);
	return 0;
}

static int
csv_open(struct trace_reader *r, char **cause)
{
	struct csv_state *st = gms_calloc(1, sizeof(*st));
	char *f[MAX_FIELDS], *why = NULL;
	size_t len;
	int i, j, n, rc;
	cJSON *hdr, *src;

	r->priv = st;
	st->last_tod = -1;
	rc = trace_read_line(r, &st->lines, &len, &why);
	if (rc == 0)
		rc = gms_fail(&why, GMS_ETRACE, "empty file");
	if (rc < 0)
		goto fail;
	n = split(st->lines.buf, f);
	for (i = 0; i < NCOLS; i++) {
		st->col[i] = -1;
		for (j = 0; j < n; j++)
			if (strcasecmp(f[j], col_names[i]) == 0)
				st->col[i] = j;
	}
	if (n < 0 || st->col[COL_ACTION] < 0 || st->col[COL_POINTER] < 0 || st->col[COL_SIZE] < 0) {
		rc = gms_fail(&why, GMS_ETRACE, "not an RMM log: the header must name the columns "
		    "Action, Pointer and Size (RMM writes Thread,Time,Action,Pointer,Size,Stream)");
		goto fail;
	}
	st->nfields = n;
	hdr = cJSON_CreateObject();
	cJSON_AddStringToObject(hdr, "format", "gpumemsim-trace");
	cJSON_AddNumberToObject(hdr, "version", 1);
	{
		char name[256], *dot;

		snprintf(name, sizeof(name), "%s", r->hdr.name);
		if ((dot = strstr(name, ".csv")) != NULL)
			*dot = '\0';
		cJSON_AddStringToObject(hdr, "name", name);
	}
	src = cJSON_AddObjectToObject(hdr, "source");
	cJSON_AddStringToObject(src, "from", "rmm logging_resource_adaptor log");
	if ((rc = trace_take_header(r, hdr, &why)) < 0)
		goto fail;
	return 0;
fail:
	gms_fail(cause, rc, "%s:%lu: %s", r->path, st->lines.line ? st->lines.line : 1, why);
	free(why);
	return rc;
}

/*
 * The log against itself: a free whose size is not its block's.  Replayed as
 * logged (the free frees the block), and said in the header once the log is
 * read (source.inconsistent, as a profiler trace's disagreements are).  An
 * allocate at a pointer still live is the engine's to refuse (an id live
 * twice).
 */
static void
follow(struct csv_state *st, const struct trace_event *ev, uint64_t index)
{
	struct live_ptr *l;

	HASH_FIND(hh, st->live, &ev->id, sizeof(ev->id), l);
	if (ev->op == TRACE_ALLOC) {
		if (l == NULL) {
			l = gms_malloc(sizeof(*l));
			l->ptr = ev->id;
			HASH_ADD(hh, st->live, ptr, sizeof(l->ptr), l);
		}
		l->size = ev->size;
	} else if (l != NULL) {
		if (l->size != ev->size && st->bad_sizes++ == 0)
			st->first_bad_size = index;
		HASH_DEL(st->live, l);
		free(l);
	}
}

static void
say_inconsistent(struct trace_reader *r, struct csv_state *st)
{
	cJSON *bad;

	if (st->bad_sizes == 0 || r->hdr.source == NULL ||
	    cJSON_GetObjectItemCaseSensitive(r->hdr.source, "inconsistent") != NULL)
		return;
	bad = cJSON_AddObjectToObject(r->hdr.source, "inconsistent");
	cJSON_AddNumberToObject(bad, "sizes", (double)st->bad_sizes);
	cJSON_AddNumberToObject(bad, "first_size_event", (double)st->first_bad_size);
}

static int
csv_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	struct csv_state *st = r->priv;
	char *f[MAX_FIELDS], *end;
	const char *action;
	uint64_t ptr, stream = 0;
	size_t len;
	int n, rc;

	do {
		if ((rc = trace_read_line(r, &st->lines, &len, cause)) <= 0) {
			if (rc == 0)
				say_inconsistent(r, st);
			return rc;
		}
	} while (st->lines.buf[strspn(st->lines.buf, " \t")] == '\0');
	/*
	 * RMM ends every row with a newline: a last row without one was cut short
	 * (the job died writing it).  The complete rows are the log; that one is
	 * left out, and the header says so.
	 */
	if (st->lines.unterminated) {
		r->hdr.cut = "its last row has no end of line (was the job killed while "
		    "logging?): that row was left out";
		say_inconsistent(r, st);
		return 0;
	}
	n = split(st->lines.buf, f);
	if (n != st->nfields)
		return gms_fail(cause, GMS_ETRACE, "expected %d fields as the header has, found %d",
		    st->nfields, n < 0 ? MAX_FIELDS : n);
	memset(ev, 0, sizeof(*ev));
	action = f[st->col[COL_ACTION]];
	if (strcmp(action, "allocate") == 0)
		ev->op = TRACE_ALLOC;
	else if (strcmp(action, "free") == 0 || strcmp(action, "deallocate") == 0)
		ev->op = TRACE_FREE;
	else if (strcmp(action, "allocate failure") == 0)
		ev->op = TRACE_OOM;
	else
		return gms_fail(cause, GMS_ETRACE, "unknown action '%s' (RMM logs allocate, free "
		    "and allocate failure)", action);
	errno = 0;
	ev->size = strtoull(f[st->col[COL_SIZE]], &end, 10);
	if (f[st->col[COL_SIZE]][0] == '\0' || f[st->col[COL_SIZE]][0] == '-' || *end != '\0' ||
	    errno != 0)
		return gms_fail(cause, GMS_ETRACE, "size is not a number of bytes: '%s'",
		    f[st->col[COL_SIZE]]);
	if (ev->size > (uint64_t)TRACE_SIZE_MAX)
		return gms_fail(cause, GMS_ETRACE, "size %llu out of range (at most 2^50)",
		    (unsigned long long)ev->size);
	if ((rc = parse_ptr(f[st->col[COL_POINTER]], "pointer", &ptr, cause)) < 0)
		return rc;
	if (st->col[COL_STREAM] >= 0) {
		if ((rc = parse_ptr(f[st->col[COL_STREAM]], "stream", &stream, cause)) < 0)
			return rc;
		if (stream == PTDS && st->col[COL_THREAD] >= 0 &&
		    (rc = ptds_stream(st, f[st->col[COL_THREAD]], &stream, cause)) < 0)
			return rc;
		ev->stream = (int64_t)stream;
		ev->flags |= TRACE_HAS_STREAM;
	}
	if (st->col[COL_TIME] >= 0) {
		if ((rc = parse_time(st, f[st->col[COL_TIME]], &ev->t_us, cause)) < 0)
			return rc;
		ev->flags |= TRACE_HAS_TIME;
	}
	if (ev->op != TRACE_OOM) {
		if (ptr == 0)
			return gms_fail(cause, GMS_ETRACE, "%s of a null pointer", action);
		ev->id = ptr;
		if (ev->op == TRACE_ALLOC) {
			ev->addr = ptr;
			ev->flags |= TRACE_HAS_ADDR;
		}
		follow(st, ev, r->index);
	}
	return 1;
}

static void
csv_where(struct trace_reader *r)
{
	struct csv_state *st = r->priv;

	snprintf(r->where, sizeof(r->where), "%s:%lu", r->path, st->lines.line);
}

static void
csv_close(struct trace_reader *r)
{
	struct csv_state *st = r->priv;
	struct thread_id *t, *tmp;
	struct live_ptr *l, *ltmp;

	if (st == NULL)
		return;
	HASH_ITER(hh, st->threads, t, tmp) {
		HASH_DEL(st->threads, t);
		free(t->name);
		free(t);
	}
	HASH_ITER(hh, st->live, l, ltmp) {
		HASH_DEL(st->live, l);
		free(l);
	}
	trace_lines_free(&st->lines);
	free(st);
}

const struct trace_format trace_format_csv = {
	.name = "csv",
	.open = csv_open,
	.next = csv_next,
	.where = csv_where,
	.close = csv_close,
};
