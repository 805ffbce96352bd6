/*
 * trace-json.c - the native trace as one JSON document: a header object whose
 * "events" array holds every event.  The document is streamed, never held:
 * opening it reads it through once, checking its outer structure, parsing
 * every header value (with cJSON) and skipping "events", wherever in the
 * object it is; then the reader goes back to the array and hands out its
 * elements one by one, each parsed by cJSON on its own.  Memory is bounded by
 * the header and the largest event, whatever the trace's length (a gzip'd
 * file of blanks included).
 *
 * A PyTorch profiler trace (Chrome trace JSON with "traceEvents" and no
 * "format") is read here too, in the one pass: an element whose bytes name
 * "[memory]" is parsed and goes to kineto.c, which keeps the [memory] events
 * and puts them in order; so does one that may be a span of a call stack
 * (a Python function, an operator, a record_function: kineto-stacks.h); the
 * others (kernels, runtime calls, flows) are only scanned for their end.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "traces/kineto.h"
#include "traces/reader.h"

/* No header value or event is anywhere near this long; past it the input is not a trace. */
#define MAX_VALUE (16u << 20)
/* All header values together. */
#define MAX_HEADER (64u << 20)

struct pos {
	uint64_t off;		/* bytes consumed */
	unsigned long line, col;
};

struct json_state {
	unsigned char buf[1 << 16];
	size_t at, len;
	int eof;
	struct pos p;		/* of the next byte */
	struct pos events;	/* just inside the events array's '[' */
	char *val;		/* the value being captured */
	size_t vlen, vcap;
	cJSON *cur;		/* the event last returned (owns its strings) */
	int opened;		/* past json_open: messages no longer name the file
				   (trace_where() does) */
	int started, done;
	struct pos ev_at;	/* where the event last read began */
	struct kineto *k;	/* a profiler trace: its mapping; else NULL */
};

/* A located message: "t.json:3:14: msg" while opening, "msg at line 3, column 14" after. */
static int
at(struct trace_reader *r, const struct pos *p, char **cause, const char *msg)
{
	struct json_state *st = r->priv;

	if (st->opened)
		return gms_fail(cause, GMS_ETRACE, "%s at line %lu, column %lu", msg, p->line,
		    p->col);
	return gms_fail(cause, GMS_ETRACE, "%s:%lu:%lu: %s", r->path, p->line, p->col, msg);
}

/* The next byte without taking it: 0..255, -1 at the end, or < -1 (GMS_E*). */
static int
peek(struct trace_reader *r, struct json_state *st, char **cause)
{
	int n, zerr;

	if (st->at < st->len)
		return st->buf[st->at];
	if (st->eof)
		return -1;
	n = gzread(r->gz, st->buf, sizeof(st->buf));
	if (n < 0 || (n == 0 && (gzerror(r->gz, &zerr), zerr != Z_OK && zerr != Z_STREAM_END))) {
		gzerror(r->gz, &zerr);
		/* where in the decompressed text says nothing about the file */
		return gms_fail(cause, GMS_ETRACE, "%s%s%s", st->opened ? "" : r->path,
		    st->opened ? "" : ": ", zerr == Z_BUF_ERROR ? "truncated compressed file" :
		    gzerror(r->gz, &zerr));
	}
	st->at = 0;
	st->len = (size_t)n;
	if (n == 0) {
		st->eof = 1;
		return -1;
	}
	return st->buf[0];
}

/* Account for the n bytes from st->at on as consumed (line and column kept). */
static void
advance(struct json_state *st, size_t n)
{
	const unsigned char *b = st->buf + st->at, *e = b + n, *nl, *last = NULL;

	while (b < e && (nl = memchr(b, '\n', (size_t)(e - b))) != NULL) {
		st->p.line++;
		last = nl;
		b = nl + 1;
	}
	if (last != NULL)
		st->p.col = (unsigned long)(e - last);
	else
		st->p.col += n;
	st->p.off += n;
	st->at += n;
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Skip blanks; the next byte (as peek).  A buffer at a time: gigabytes of blanks are cheap. */
static int
blanks(struct trace_reader *r, struct json_state *st, char **cause)
{
	const unsigned char *q, *end;
	int c;

	for (;;) {
		if ((c = peek(r, st, cause)) < 0)
			return c;
		q = st->buf + st->at;
		end = st->buf + st->len;
		while (q < end && is_blank(*q))
			q++;
		advance(st, (size_t)(q - (st->buf + st->at)));
		if (q < end)
			return *q;
	}
}

/* The bytes value() must look at: inside a string, and outside one. */
#define CONTROL_BYTES \
	[0] = 1, [1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [7] = 1, \
	[8] = 1, [9] = 1, [10] = 1, [11] = 1, [12] = 1, [13] = 1, [14] = 1, [15] = 1, \
	[16] = 1, [17] = 1, [18] = 1, [19] = 1, [20] = 1, [21] = 1, [22] = 1, [23] = 1, \
	[24] = 1, [25] = 1, [26] = 1, [27] = 1, [28] = 1, [29] = 1, [30] = 1, [31] = 1
static const unsigned char in_string[256] = { CONTROL_BYTES, ['"'] = 1, ['\\'] = 1 };
static const unsigned char outside[256] = { ['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1,
	[']'] = 1, [','] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1 };
/* In a flat object: a quote (1), or what it must not hold (2). */
static const unsigned char flat[256] = { CONTROL_BYTES, ['"'] = 1, ['{'] = 2, ['['] = 2,
	[']'] = 2, ['\\'] = 2 };

/*
 * The length of the object at q (its '{') through its first '}', when that
 * is a flat object the scan below would pass over at once: within the
 * buffer, no brackets, escapes or control bytes before the brace, and an
 * even count of quotes, so the brace is outside any string.  Else 0.
 */
static size_t
flat_object(const unsigned char *q, const unsigned char *end)
{
	const unsigned char *close = memchr(q + 1, '}', (size_t)(end - q - 1)), *b;
	unsigned quotes = 0, bad = 0;

	if (close == NULL)
		return 0;
	for (b = q + 1; b < close; b++) {
		quotes += flat[*b] & 1;
		bad |= flat[*b] & 2;
	}
	return bad || (quotes & 1) ? 0 : (size_t)(close - q) + 1;
}

/*
 * Read one JSON value's bytes, matching brackets outside strings; kept in
 * st->val when capture is set (and at most MAX_VALUE), else only skipped.
 * Its validity inside is cJSON's to judge; here only what is needed to find
 * its end: brackets, strings (no raw control characters), the end of input.
 * depth 1 skips the rest of a container whose opening bracket was taken.
 * The scan runs over the read buffer; what it passes is taken in bulk.
 */
static int
value(struct trace_reader *r, struct json_state *st, int capture, uint64_t depth, char **cause)
{
	const unsigned char *start, *q, *end;
	int c, instr = 0, esc = 0, done = 0;
	uint64_t run = 0;	/* skipping: bytes of the current element */
	size_t n;

	st->vlen = 0;
	while (!done) {
		if ((c = peek(r, st, cause)) < -1)
			return c;
		if (c == -1)
			return at(r, &st->p, cause, "truncated JSON (unexpected end of file)");
		start = q = st->buf + st->at;
		end = st->buf + st->len;
		for (; q < end; q++) {
			/* bytes that change nothing, in bulk: most of a trace */
			if (!esc) {
				const unsigned char *from = q;
				const unsigned char *cls = instr ? in_string : outside;

				while (q < end && !cls[*q])
					q++;
				if (!capture) {
					if (run + (uint64_t)(q - from) > MAX_VALUE) {
						advance(st, (size_t)(from - start) +
						    (size_t)(MAX_VALUE - run));
						return at(r, &st->p, cause, "an event longer than "
						    "16 MiB: not a trace");
					}
					run += (uint64_t)(q - from);
				}
				if (q == end)
					break;
			}
			c = *q;
			/* a skipped element is held to the limit a read one is */
			if (!capture) {
				if (depth == 1 && !instr && (c == ',' || is_blank(c))) {
					run = 0;
				} else if (++run > MAX_VALUE) {
					advance(st, (size_t)(q - start));
					return at(r, &st->p, cause, "an event longer than 16 MiB: not "
					    "a trace");
				}
			}
			/* skipping the events array: a flat event at once */
			if (!capture && depth == 1 && c == '{' && !instr &&
			    (n = flat_object(q, end)) > 0 && run + n - 1 <= MAX_VALUE) {
				run += n - 1;
				q += n - 1;
				continue;
			}
			if (instr) {
				if (c < 0x20) {
					advance(st, (size_t)(q - start));
					return at(r, &st->p, cause, "invalid JSON (a control "
					    "character inside a string)");
				}
				if (esc) {
					esc = 0;
				} else if (c == '\\') {
					esc = 1;
				} else if (c == '"') {
					instr = 0;
					if (depth == 0) {
						q++;
						done = 1;
						break;
					}
				}
			} else if (c == '"') {
				instr = 1;
			} else if (c == '{' || c == '[') {
				depth++;
			} else if (c == '}' || c == ']') {
				if (depth == 0) {
					done = 1;	/* the container around the value ends */
					break;
				}
				if (--depth == 0) {
					q++;
					done = 1;
					break;
				}
			} else if (depth == 0 && (c == ',' || is_blank(c))) {
				done = 1;
				break;
			}
		}
		n = (size_t)(q - start);
		if (capture && n > 0) {
			if (st->vlen + n > MAX_VALUE) {
				advance(st, n);
				return at(r, &st->p, cause, "a JSON value longer than 16 MiB: not "
				    "a trace");
			}
			if (st->vlen + n + 1 > st->vcap) {
				while (st->vlen + n + 1 > st->vcap)
					st->vcap = st->vcap ? st->vcap * 2 : 4096;
				st->val = gms_realloc(st->val, st->vcap);
			}
			memcpy(st->val + st->vlen, start, n);
			st->vlen += n;
			st->val[st->vlen] = '\0';
		}
		advance(st, n);
	}
	return 0;
}

/* Parse the captured value; its start is p (for messages). */
static int
parse(struct trace_reader *r, struct json_state *st, const struct pos *p, cJSON **out,
    char **cause)
{
	const char *end = NULL;
	struct pos e = *p;
	unsigned long line, col;
	size_t off;

	if (st->vlen == 0)
		return at(r, p, cause, "invalid JSON (a value is missing)");
	if (trace_json_has_nul(st->val, st->vlen))
		return at(r, p, cause, "a string holds \\u0000 (a NUL character, which would cut "
		    "it short)");
	*out = cJSON_ParseWithLengthOpts(st->val, st->vlen, &end, 0);
	if (*out != NULL && (size_t)(end - st->val) == st->vlen &&
	    (off = trace_json_leading_zero(st->val, st->vlen)) > 0) {
		cJSON_Delete(*out);
		*out = NULL;
		trace_line_col(st->val, off - 1, &line, &col);
		e.col = line == 1 ? e.col + col - 1 : col;
		e.line += line - 1;
		return at(r, &e, cause, "invalid JSON (a number with a leading zero)");
	}
	if (*out != NULL && (size_t)(end - st->val) == st->vlen)
		return 0;
	if (*out == NULL && end == NULL && cJSON_GetErrorPtr() != NULL)
		end = cJSON_GetErrorPtr();
	off = end ? (size_t)(end - st->val) : 0;
	cJSON_Delete(*out);
	*out = NULL;
	/* where in the value, from where the value began */
	trace_line_col(st->val, GMS_MIN(off, st->vlen), &line, &col);
	e.col = line == 1 ? e.col + col - 1 : col;
	e.line += line - 1;
	return at(r, &e, cause, "invalid JSON");
}

/*
 * To the next element of the events array (st just past '[' or an element):
 * 1 with st at its first byte, 0 after the closing ']', or < 0.
 */
static int
element_start(struct trace_reader *r, struct json_state *st, char **cause)
{
	int c;

	if (st->done)
		return 0;
	if ((c = blanks(r, st, cause)) < -1)
		return c;
	if (c == ']') {
		advance(st, 1);
		st->done = 1;
		return 0;
	}
	if (st->started) {
		if (c != ',')
			return at(r, &st->p, cause, c == -1 ? "truncated JSON (unexpected end of file)" :
			    "invalid JSON (expected ',' or ']')");
		advance(st, 1);
		if ((c = blanks(r, st, cause)) < -1)
			return c;
	}
	st->started = 1;
	st->ev_at = st->p;
	return 1;
}

/* The element at st, its bytes captured in st->val (NUL-terminated): 0 or < 0. */
static int
element_value(struct trace_reader *r, struct json_state *st, char **cause)
{
	int err;

	if ((err = value(r, st, 1, 0, cause)) < 0)
		return err;
	if (st->vlen + 1 > st->vcap)
		st->val = gms_realloc(st->val, st->vcap = st->vlen + 1);
	st->val[st->vlen] = '\0';
	return 0;
}

/* The next element, its bytes captured in st->val: as element_start(). */
static int
element_raw(struct trace_reader *r, struct json_state *st, char **cause)
{
	int err;

	if ((err = element_start(r, st, cause)) <= 0)
		return err;
	return (err = element_value(r, st, cause)) < 0 ? err : 1;
}

/*
 * The element at st, when it is the common flat event and the read buffer
 * holds it: 1 with ev and st past it, else 0 with st unmoved.  Its bytes are
 * those up to the first '}': if they scan as a whole event, that brace
 * closes it, whatever follows.
 */
static int
flat_event(struct json_state *st, struct trace_event *ev)
{
	const unsigned char *b = st->buf + st->at, *close;
	size_t n;

	if (*b != '{' || (close = memchr(b, '}', st->len - st->at)) == NULL)
		return 0;
	n = (size_t)(close - b) + 1;
	if (n + 1 > st->vcap)
		st->val = gms_realloc(st->val, st->vcap = GMS_MAX(n + 1, 4096));
	memcpy(st->val, b, n);
	st->val[n] = '\0';
	st->vlen = n;
	if (!trace_event_scan(st->val, ev))
		return 0;
	advance(st, n);
	return 1;
}

/* Back to just inside the events array: plain files seek, gzip'd ones are read again. */
static int
rewind_events(struct trace_reader *r, struct json_state *st, char **cause)
{
	if (gzseek(r->gz, (z_off_t)st->events.off, SEEK_SET) < 0)
		return gms_fail(cause, GMS_EIO, "%s: cannot go back to the events", r->path);
	st->at = st->len = 0;
	st->eof = 0;
	st->p = st->events;
	st->started = 0;
	st->done = 0;
	return 0;
}

/*
 * A profiler trace, once its other keys are read (hdr): its [memory] events
 * were collected while reading "traceEvents"; choose the device, put them in
 * order; the header replaces hdr.
 */
static int
kineto_open(struct trace_reader *r, struct json_state *st, cJSON **hdr, char **cause)
{
	const cJSON *props, *p;
	char name[256], *dot;
	cJSON *h;
	int rc;

	if ((rc = kineto_choose(st->k, cause)) < 0)
		return rc;
	snprintf(name, sizeof(name), "%s", r->hdr.name);
	if ((dot = strstr(name, ".json")) != NULL)
		*dot = '\0';
	if ((dot = strstr(name, ".pt.trace")) != NULL)
		*dot = '\0';
	h = kineto_header(st->k, name);
	/* the card's memory, from Kineto's deviceProperties */
	props = cJSON_GetObjectItemCaseSensitive(*hdr, "deviceProperties");
	cJSON_ArrayForEach(p, props) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
		const cJSON *mem = cJSON_GetObjectItemCaseSensitive(p, "totalGlobalMem");
		cJSON *src = cJSON_GetObjectItemCaseSensitive(h, "source");

		if (cJSON_IsNumber(id) && cJSON_IsNumber(mem) && mem->valuedouble > 0 &&
		    mem->valuedouble <= 9007199254740992.0 &&
		    id->valuedouble == cJSON_GetObjectItemCaseSensitive(src, "device")->valuedouble) {
			cJSON *dev = cJSON_AddObjectToObject(h, "device");

			cJSON_AddNumberToObject(dev, "total_bytes", floor(mem->valuedouble));
			break;
		}
	}
	cJSON_Delete(*hdr);
	*hdr = h;
	return 0;
}

/*
 * The elements of "traceEvents" (st just inside its '['): those that name
 * "[memory]" parsed and collected, the rest passed over.  0 or < 0.
 */
static int
kineto_elements(struct trace_reader *r, struct json_state *st, char **cause)
{
	static const char tag[] = "\"[memory]\"";
	cJSON *v;
	char *why = NULL;
	int rc;

	while ((rc = element_raw(r, st, cause)) == 1) {
		if (memmem(st->val, st->vlen, tag, sizeof(tag) - 1) == NULL &&
		    kineto_scan(st->k, st->val, st->vlen))
			continue;
		if ((rc = parse(r, st, &st->ev_at, &v, cause)) < 0)
			return rc;
		rc = kineto_collect(st->k, v, &why);
		cJSON_Delete(v);
		if (rc < 0) {
			rc = at(r, &st->ev_at, cause, why);
			free(why);
			return rc;
		}
	}
	return rc;
}

static int
json_open(struct trace_reader *r, char **cause)
{
	struct json_state *st = gms_calloc(1, sizeof(*st));
	cJSON *hdr = cJSON_CreateObject(), *key = NULL, *v = NULL;
	uint64_t held = 0;
	struct pos p;
	int c, err, first = 1, has_events = 0;
	char *why;

	r->priv = st;
	st->p = (struct pos){ 0, 1, 1 };
	if ((c = blanks(r, st, cause)) < -1) {
		err = c;
		goto fail;
	}
	if (c == -1) {
		err = at(r, &st->p, cause, "empty file");
		goto fail;
	}
	if (c != '{') {
		err = at(r, &st->p, cause, "invalid JSON");
		goto fail;
	}
	advance(st, 1);
	for (;;) {
		if ((c = blanks(r, st, cause)) < -1) {
			err = c;
			goto fail;
		}
		if (c == '}' && first) {
			advance(st, 1);
			break;
		}
		p = st->p;
		if (c != '"') {
			err = at(r, &p, cause, c == -1 ? "truncated JSON (unexpected "
			    "end of file)" : "invalid JSON (expected a key)");
			goto fail;
		}
		if ((err = value(r, st, 1, 0, cause)) < 0 || (err = parse(r, st, &p, &key, cause)) < 0)
			goto fail;
		if ((c = blanks(r, st, cause)) != ':') {
			err = c < -1 ? c : at(r, &st->p, cause, c == -1 ?
			    "truncated JSON (unexpected end of file)" : "invalid JSON (expected ':')");
			goto fail;
		}
		advance(st, 1);
		if ((c = blanks(r, st, cause)) < -1) {
			err = c;
			goto fail;
		}
		p = st->p;
		if (strcmp(key->valuestring, "traceEvents") == 0 && c == '[' && !has_events &&
		    cJSON_GetObjectItemCaseSensitive(hdr, "format") == NULL) {
			/* a profiler trace: count its [memory] events per device */
			advance(st, 1);
			st->events = st->p;
			has_events = 1;
			st->k = kineto_new(r->opts.device);
			if ((err = kineto_elements(r, st, cause)) < 0)
				goto fail;
		} else if (strcmp(key->valuestring, "events") == 0 && c == '[' && !has_events) {
			advance(st, 1);
			st->events = st->p;
			has_events = 1;
			if ((err = value(r, st, 0, 1, cause)) < 0)
				goto fail;
			/* a placeholder: the header says "events" is there, as an array */
			cJSON_AddItemToObject(hdr, key->valuestring, cJSON_CreateArray());
		} else {
			if ((err = value(r, st, 1, 0, cause)) < 0 || (err = parse(r, st, &p, &v, cause)) < 0)
				goto fail;
			if ((held += st->vlen) > MAX_HEADER) {
				cJSON_Delete(v);
				err = at(r, &p, cause, "more than 64 MiB of header: not a trace");
				goto fail;
			}
			cJSON_AddItemToObject(hdr, key->valuestring, v);
		}
		cJSON_Delete(key);
		key = NULL;
		first = 0;
		if ((c = blanks(r, st, cause)) == ',') {
			advance(st, 1);
			continue;
		}
		if (c == '}') {
			advance(st, 1);
			break;
		}
		err = c < -1 ? c : at(r, &st->p, cause, c == -1 ?
		    "truncated JSON (unexpected end of file)" : "invalid JSON (expected ',' or '}')");
		goto fail;
	}
	if ((c = blanks(r, st, cause)) != -1) {
		err = c < -1 ? c : at(r, &st->p, cause,
		    "unexpected data after the JSON document");
		goto fail;
	}
	if (st->k != NULL && cJSON_GetObjectItemCaseSensitive(hdr, "format") == NULL) {
		if ((err = kineto_open(r, st, &hdr, cause)) < 0)
			goto fail_unlocated;
		snprintf(r->format, sizeof(r->format), "kineto%s", r->compressed ? ".gz" : "");
		cJSON_AddItemToObject(hdr, "events", cJSON_CreateArray());
	}
	r->header_json = NULL;
	err = trace_take_header(r, hdr, cause);
	hdr = NULL;	/* the reader owns it now */
	if (err < 0)
		goto fail_unlocated;
	v = cJSON_GetObjectItemCaseSensitive(r->header_json, "events");
	if (v == NULL) {
		err = gms_fail(cause, GMS_ETRACE, "trace without \"events\"");
		goto fail_unlocated;
	}
	if (!has_events) {
		err = gms_fail(cause, GMS_ETRACE, "\"events\" is not an array");
		goto fail_unlocated;
	}
	if (st->k == NULL && (err = rewind_events(r, st, cause)) < 0)
		goto fail;
	st->opened = 1;
	return 0;
fail_unlocated:
	why = *cause;
	*cause = NULL;
	gms_fail(cause, err, "%s: %s", r->path, why);
	free(why);
fail:
	cJSON_Delete(key);
	cJSON_Delete(hdr);
	return err;
}

static int
json_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	struct json_state *st = r->priv;
	int rc;

	for (;;) {
		cJSON_Delete(st->cur);
		st->cur = NULL;
		if (st->k == NULL) {
			/* the common event read directly; anything else through cJSON */
			if ((rc = element_start(r, st, cause)) <= 0)
				return rc;
			if (flat_event(st, ev))
				return 1;
			if ((rc = element_value(r, st, cause)) < 0)
				return rc;
			if (trace_event_scan(st->val, ev))
				return 1;
			if ((rc = parse(r, st, &st->ev_at, &st->cur, cause)) < 0)
				return rc;
			return trace_event_from_json(st->cur, ev, cause) < 0 ? GMS_ETRACE : 1;
		}
		/* a profiler trace: its device's [memory] events, held in order */
		return kineto_next(st->k, ev);
	}
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
	struct json_state *st = r->priv;

	if (st == NULL)
		return;
	cJSON_Delete(st->cur);
	kineto_free(st->k);
	free(st->val);
	free(st);
}

const struct trace_format trace_format_json = {
	.name = "json",
	.open = json_open,
	.next = json_next,
	.where = json_where,
	.close = json_close,
};
