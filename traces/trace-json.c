/*
 * trace-json.c - the native trace as one JSON document: a header object whose
 * "events" array holds every event.  The document is parsed whole by cJSON, so
 * memory is proportional to the file; traces too large for that belong in the
 * JSON Lines form (trace-jsonl.c), which streams.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "traces/reader.h"

struct json_state {
	const cJSON *next;	/* next event to return, NULL at the end */
};

static int
json_open(struct trace_reader *r, char **cause)
{
	struct json_state *st;
	const cJSON *events;
	const char *end = NULL;
	unsigned long line, col;
	char *buf;
	size_t len;
	cJSON *doc;
	int err, truncated;

	if ((err = trace_slurp(r, &buf, &len, cause)) < 0) {
		char *why = *cause;

		*cause = NULL;
		gms_fail(cause, err, "%s: %s", r->path, why);
		free(why);
		return err;
	}
	doc = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (doc == NULL) {
		size_t off = end ? (size_t)(end - buf) : 0;

		/* cJSON leaves end at the first byte it could not use. */
		if (end == NULL && cJSON_GetErrorPtr() != NULL)
			off = (size_t)(cJSON_GetErrorPtr() - buf);
		truncated = len > 0 && trace_json_truncated(buf, len, off);
		if (truncated)
			off = len;	/* point past the end, where input ran out */
		trace_line_col(buf, off, &line, &col);
		err = gms_fail(cause, GMS_ETRACE, "%s:%lu:%lu: %s", r->path, line, col,
		    len == 0 ? "empty file" : truncated ?
		    "truncated JSON (unexpected end of file)" : "invalid JSON");
		free(buf);
		return err;
	}
	if (end != NULL && end[strspn(end, " \t\r\n")] != '\0') {
		trace_line_col(buf, (size_t)(end - buf), &line, &col);
		err = gms_fail(cause, GMS_ETRACE, "%s:%lu:%lu: unexpected data after the JSON document",
		    r->path, line, col);
		free(buf);
		cJSON_Delete(doc);
		return err;
	}
	free(buf);
	if ((err = trace_take_header(r, doc, cause)) < 0)
		goto fail;
	events = cJSON_GetObjectItemCaseSensitive(doc, "events");
	if (events == NULL) {
		err = gms_fail(cause, GMS_ETRACE, "trace without \"events\"");
		goto fail;
	}
	if (!cJSON_IsArray(events)) {
		err = gms_fail(cause, GMS_ETRACE, "\"events\" is not an array");
		goto fail;
	}
	st = gms_calloc(1, sizeof(*st));
	st->next = events->child;
	r->priv = st;
	return 0;
fail:
	{
		char *why = *cause;

		*cause = NULL;
		gms_fail(cause, err, "%s: %s", r->path, why);
		free(why);
	}
	return err;
}

static int
json_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	struct json_state *st = r->priv;
	const cJSON *obj = st->next;
	int err;

	if (obj == NULL)
		return 0;
	if ((err = trace_event_from_json(obj, ev, cause)) < 0)
		return err;
	st->next = obj->next;
	return 1;
}

static void
json_where(struct trace_reader *r)
{
	snprintf(r->where, sizeof(r->where), "%s: event %llu", r->path,
	    (unsigned long long)r->cur);
}

static void
json_close(struct trace_reader *r)
{
	free(r->priv);
}

const struct trace_format trace_format_json = {
	.name = "json",
	.open = json_open,
	.next = json_next,
	.where = json_where,
	.close = json_close,
};
