/*
 * trace-jsonl.c - the native trace as JSON Lines: the header object on the
 * first line, then one event object per line.  Streams: only the current
 * line is held, so a trace of tens of millions of events replays in memory
 * proportional to what is live.  Blank lines are allowed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "traces/reader.h"

struct jsonl_state {
	struct trace_lines lines;
	cJSON *cur;		/* the parsed current event (owns its strings) */
};

/* The next line that is not blank: 1, 0 at EOF, or < 0. */
static int
next_line(struct trace_reader *r, struct jsonl_state *st, size_t *len, char **cause)
{
	int rc;

	do {
		if ((rc = trace_read_line(r, &st->lines, len, cause)) <= 0)
			return rc;
	} while (st->lines.buf[0] != '{' && st->lines.buf[strspn(st->lines.buf, " \t")] == '\0');
	return 1;
}

/* The current line (len bytes) as a cJSON object: 1, or < 0 saying why not. */
static int
parse_json(struct jsonl_state *st, size_t len, cJSON **out, char **cause)
{
	const char *end = NULL;
	size_t zero;

	if (trace_json_has_nul(st->lines.buf, len))
		return gms_fail(cause, GMS_ETRACE, "a string holds \\u0000 (a NUL character, "
		    "which would cut it short)");
	*out = cJSON_ParseWithLengthOpts(st->lines.buf, len, &end, 0);
	if (*out == NULL) {
		size_t off = end ? (size_t)(end - st->lines.buf) : 0;

		if (end == NULL && cJSON_GetErrorPtr() != NULL)
			off = (size_t)(cJSON_GetErrorPtr() - st->lines.buf);
		if (trace_json_truncated(st->lines.buf, len, off))
			return gms_fail(cause, GMS_ETRACE, "truncated JSON at column %zu "
			    "(the line ends early)", len + 1);
		return gms_fail(cause, GMS_ETRACE, "invalid JSON at column %zu", off + 1);
	}
	if ((zero = trace_json_leading_zero(st->lines.buf, len)) > 0) {
		cJSON_Delete(*out);
		*out = NULL;
		return gms_fail(cause, GMS_ETRACE, "invalid JSON at column %zu (a number with a "
		    "leading zero)", zero);
	}
	if (end != NULL && end[strspn(end, " \t")] != '\0') {
		cJSON_Delete(*out);
		*out = NULL;
		return gms_fail(cause, GMS_ETRACE,
		    "unexpected data after the JSON object at column %zu (one object per line)",
		    (size_t)(end - st->lines.buf) + 1);
	}
	return 1;
}

/* The next non-blank line parsed: 1, 0 at EOF, or < 0. */
static int
parse_line(struct trace_reader *r, struct jsonl_state *st, cJSON **out, char **cause)
{
	size_t len = 0;
	int rc;

	if ((rc = next_line(r, st, &len, cause)) <= 0)
		return rc;
	return parse_json(st, len, out, cause);
}

static int
jsonl_open(struct trace_reader *r, char **cause)
{
	struct jsonl_state *st = gms_calloc(1, sizeof(*st));
	cJSON *hdr = NULL;
	char *why;
	int rc;

	r->priv = st;
	rc = parse_line(r, st, &hdr, cause);
	if (rc == 0)
		rc = gms_fail(cause, GMS_ETRACE, "empty file");
	if (rc > 0)
		rc = trace_take_header(r, hdr, cause);
	if (rc == 0 && cJSON_GetObjectItemCaseSensitive(hdr, "events") != NULL)
		rc = gms_fail(cause, GMS_ETRACE, "a JSON Lines header holds no \"events\" "
		    "(is this a .json document?)");
	if (rc < 0) {
		why = *cause;
		*cause = NULL;
		gms_fail(cause, rc, "%s:%lu: %s", r->path, st->lines.line ? st->lines.line : 1, why);
		free(why);
		return rc;
	}
	return 0;
}

static int
jsonl_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	struct jsonl_state *st = r->priv;
	struct trace_lines *ln = &st->lines;
	size_t len = 0;
	char *nl;
	int rc;

	cJSON_Delete(st->cur);
	st->cur = NULL;
	/* the common line read where it lies, without finding its end first */
	if (ln->start < ln->end && ln->data[ln->start] == '{' &&
	    trace_event_scan_line(ln->data + ln->start, ev, &nl)) {
		ln->buf = ln->data + ln->start;
		ln->start = (size_t)(nl - ln->data) + 1;
		ln->line++;
		ln->unterminated = 0;
		r->printable = 1;
		return 1;
	}
	if ((rc = next_line(r, st, &len, cause)) <= 0)
		return rc;
	/* the common line, read directly; anything else through cJSON */
	if (trace_event_scan(st->lines.buf, ev)) {
		r->printable = 1;
		return 1;
	}
	if ((rc = parse_json(st, len, &st->cur, cause)) <= 0)
		return rc;
	if ((rc = trace_event_from_json(st->cur, ev, cause)) < 0)
		return rc;
	return 1;
}

static void
jsonl_where(struct trace_reader *r)
{
	struct jsonl_state *st = r->priv;

	snprintf(r->where, sizeof(r->where), "%s:%lu", r->path, st->lines.line);
}

static void
jsonl_close(struct trace_reader *r)
{
	struct jsonl_state *st = r->priv;

	if (st == NULL)
		return;
	cJSON_Delete(st->cur);
	trace_lines_free(&st->lines);
	free(st);
}

const struct trace_format trace_format_jsonl = {
	.name = "jsonl",
	.open = jsonl_open,
	.next = jsonl_next,
	.where = jsonl_where,
	.close = jsonl_close,
};
