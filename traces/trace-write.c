/*
 * trace-write.c - writing native traces (trace.h): a JSON document or JSON
 * Lines, plain or gzip'd, streamed event by event.  The document form is
 * framed by hand around cJSON's rendering of the header and of each event,
 * so converting a long trace never holds it in memory.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "sim/gms.h"
#include "sim/outfile.h"
#include "traces/trace.h"

struct trace_writer {
	char *path;
	struct outfile out;	/* the file being written, renamed into place at the end */
	gzFile gz;
	int document;		/* .json: one object with "events" */
	int stdout_;
	uint64_t events;
	int failed;
	char *buf;		/* the event being written */
	size_t len, cap;
};

int
trace_writer_open(const char *path, const char *const *inputs, size_t ninputs,
    struct trace_writer **out, char **cause)
{
	struct trace_writer *w = gms_calloc(1, sizeof(*w));
	char base[4096];
	int gz = 0, fd;
	size_t n;

	snprintf(base, sizeof(base), "%s", path);
	n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".gz") == 0) {
		gz = 1;
		base[n - 3] = '\0';
	}
	if (strcmp(path, "-") == 0) {
		w->stdout_ = 1;
	} else if (trace_ends_with(base, ".json")) {
		w->document = 1;
	} else if (!trace_ends_with(base, ".jsonl")) {
		free(w);
		return gms_fail(cause, GMS_ECONFIG, "cannot tell the format of '%s': name it "
		    ".json, .jsonl, .json.gz or .jsonl.gz", path);
	}
	w->out.fd = -1;
	{
		int err = w->stdout_ ? outfile_check_stdout(inputs, ninputs, cause) :
		    outfile_open(path, inputs, ninputs, &w->out, cause);

		if (err < 0) {
			free(w);
			return err;
		}
	}
	w->path = gms_strdup(path);
	errno = 0;
	fd = dup(w->stdout_ ? STDOUT_FILENO : w->out.fd);
	w->gz = fd < 0 ? NULL : gzdopen(fd, w->stdout_ ? "wT" : gz ? "wb6" : "wbT");
	if (w->gz == NULL) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		if (!w->stdout_)
			outfile_abort(&w->out);
		free(w->path);
		free(w);
		return gms_fail(cause, GMS_EIO, "cannot create '%s': %s", path,
		    e ? strerror(e) : "out of memory");
	}
	gzbuffer(w->gz, 1 << 17);
	*out = w;
	return 0;
}

static int
put(struct trace_writer *w, const char *s, char **cause)
{
	size_t n = strlen(s);
	int zerr;

	if (n > 0 && gzwrite(w->gz, s, (unsigned)n) != (int)n) {
		w->failed = 1;
		return gms_fail(cause, GMS_EIO, "cannot write '%s': %s", w->path,
		    errno ? strerror(errno) : gzerror(w->gz, &zerr));
	}
	return 0;
}

int
trace_writer_header(struct trace_writer *w, const struct trace_header *hdr, char **cause)
{
	cJSON *o = cJSON_CreateObject();
	char *text;
	size_t n;
	int err;

	cJSON_AddStringToObject(o, "format", "gpumemsim-trace");
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddStringToObject(o, "name", hdr->name ? hdr->name : "trace");
	if (hdr->source)
		cJSON_AddItemToObject(o, "source", cJSON_Duplicate(hdr->source, 1));
	if (hdr->device)
		cJSON_AddItemToObject(o, "device", cJSON_Duplicate(hdr->device, 1));
	if (hdr->observed)
		cJSON_AddItemToObject(o, "observed", cJSON_Duplicate(hdr->observed, 1));
	if (hdr->starts_mid_run)
		cJSON_AddBoolToObject(o, "starts_mid_run", 1);
	if (hdr->ends_in_oom)
		cJSON_AddBoolToObject(o, "ends_in_oom", 1);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (w->document) {
		/* reopen the object for its events: drop the closing brace */
		n = strlen(text);
		text[n - 1] = '\0';
		err = put(w, text, cause);
		if (err == 0)
			err = put(w, ",\"events\":[", cause);
	} else {
		err = put(w, text, cause);
		if (err == 0)
			err = put(w, "\n", cause);
	}
	free(text);
	return err;
}

/*
 * An integer's digits into num (size bytes): 1, or 0 when d is no integer a
 * double holds exactly (beyond 2^53).  Ids, sizes, addresses and times are
 * written so, never in cJSON's "%1.15g", which writes a time of 16 digits
 * ending in 0 as 1.79596282225799e+15: a float to a script's JSON parser.
 */
static int
int_digits(double d, char *num, size_t size)
{
	if (d != floor(d) || fabs(d) > 9007199254740992.0)
		return 0;
	snprintf(num, size, "%.0f", d);
	return 1;
}

/* An integer field: its digits (int_digits), or cJSON's form past 2^53. */
static void
add_int(cJSON *o, const char *key, double d)
{
	char num[32];

	if (int_digits(d, num, sizeof(num)))
		cJSON_AddRawToObject(o, key, num);
	else
		cJSON_AddNumberToObject(o, key, d);
}

/* "stream", and "pool" for a CUDA graph's (trace.h): the two apart. */
static void
json_stream(cJSON *o, const struct trace_event *ev)
{
	add_int(o, "stream", (double)trace_stream_base(ev->stream));
	if (trace_stream_pool(ev->stream) > 0)
		add_int(o, "pool", (double)trace_stream_pool(ev->stream));
}

/* "stack": the frames as an array, innermost first. */
static void
json_stack(cJSON *o, const struct trace_event *ev)
{
	cJSON *arr;
	const char *p, *nl;

	if (ev->stack == NULL || ev->stack[0] == '\0')
		return;
	arr = cJSON_AddArrayToObject(o, "stack");
	for (p = ev->stack; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		char *f = gms_asprintf("%.*s", (int)(nl - p), p);

		cJSON_AddItemToArray(arr, cJSON_CreateString(f));
		free(f);
	}
}

cJSON *
trace_event_to_json(const struct trace_event *ev)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "op", trace_op_name(ev->op));
	switch (ev->op) {
	case TRACE_ALLOC:
		add_int(o, "id", (double)ev->id);
		add_int(o, "size", (double)ev->size);
		json_stream(o, ev);
		if (ev->flags & TRACE_HAS_ADDR)
			add_int(o, "addr", (double)ev->addr);
		if (ev->at != NULL)
			cJSON_AddStringToObject(o, "at", ev->at);
		json_stack(o, ev);
		if (ev->flags & TRACE_SEEDED)
			cJSON_AddBoolToObject(o, "seeded", 1);
		break;
	case TRACE_FREE:
		add_int(o, "id", (double)ev->id);
		if (ev->flags & TRACE_HAS_STREAM)
			json_stream(o, ev);
		break;
	case TRACE_MARK:
		cJSON_AddStringToObject(o, "label", ev->label ? ev->label : "");
		break;
	case TRACE_OOM:
		if (ev->flags & TRACE_HAS_ID)
			add_int(o, "id", (double)ev->id);
		add_int(o, "size", (double)ev->size);
		if (ev->flags & TRACE_HAS_ID) {
			json_stream(o, ev);
			if (ev->at != NULL)
				cJSON_AddStringToObject(o, "at", ev->at);
			json_stack(o, ev);
		}
		break;
	case TRACE_EMPTY_CACHE:
		break;
	default:
		add_int(o, "addr", (double)ev->addr);
		add_int(o, "size", (double)ev->size);
		json_stream(o, ev);
		if (ev->op == TRACE_SEGMENT_ALLOC && (ev->flags & TRACE_SEEDED))
			cJSON_AddBoolToObject(o, "seeded", 1);
		break;
	}
	if (ev->flags & TRACE_HAS_TIME)
		add_int(o, "t_us", (double)ev->t_us);
	if ((ev->flags & TRACE_HAS_INUSE) && (ev->op == TRACE_ALLOC || ev->op == TRACE_FREE))
		add_int(o, "in_use", (double)ev->in_use);
	return o;
}

/*
 * An event's JSON, written directly: byte for byte what cJSON_PrintUnformatted
 * prints for trace_event_to_json()'s object (its keys in that order, its
 * numbers and string escapes as cJSON 1.7 writes them: t/cli-convert.sh
 * holds converted traces to the bundled ones; t/trace-formats compares the
 * two on every kind of event), at a tenth of the cost.
 */
static void
add(struct trace_writer *w, const char *s, size_t n)
{
	if (w->len + n + 1 > w->cap) {
		while (w->len + n + 1 > w->cap)
			w->cap = w->cap ? 2 * w->cap : 4096;
		w->buf = gms_realloc(w->buf, w->cap);
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void
add_str(struct trace_writer *w, const char *s)
{
	add(w, s, strlen(s));
}

/* A number as cJSON prints one (print_number). */
static void
add_num(struct trace_writer *w, double d)
{
	char num[32];
	double test = 0;

	/* integers as add_int writes them, the rest as cJSON does */
	if (isnan(d) || isinf(d)) {
		snprintf(num, sizeof(num), "null");
	} else if (!int_digits(d, num, sizeof(num))) {
		snprintf(num, sizeof(num), "%1.15g", d);
		if (sscanf(num, "%lg", &test) != 1 ||
		    !(fabs(test - d) <= (fabs(test) > fabs(d) ? fabs(test) : fabs(d)) * DBL_EPSILON))
			snprintf(num, sizeof(num), "%1.17g", d);
	}
	add_str(w, num);
}

/* A string as cJSON escapes one (print_string_ptr). */
static void
add_json_str(struct trace_writer *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char esc[8];

	add(w, "\"", 1);
	for (; *p != '\0'; p++) {
		if (*p >= 32 && *p != '"' && *p != '\\')
			continue;
		add(w, (const char *)run, (size_t)(p - run));
		switch (*p) {
		case '"': add(w, "\\\"", 2); break;
		case '\\': add(w, "\\\\", 2); break;
		case '\b': add(w, "\\b", 2); break;
		case '\f': add(w, "\\f", 2); break;
		case '\n': add(w, "\\n", 2); break;
		case '\r': add(w, "\\r", 2); break;
		case '\t': add(w, "\\t", 2); break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			add_str(w, esc);
		}
		run = p + 1;
	}
	add(w, (const char *)run, (size_t)(p - run));
	add(w, "\"", 1);
}

static void
add_key_num(struct trace_writer *w, const char *key, double d)
{
	add_str(w, key);
	add_num(w, d);
}

/* As json_stream. */
static void
add_stream(struct trace_writer *w, const struct trace_event *ev)
{
	add_key_num(w, ",\"stream\":", (double)trace_stream_base(ev->stream));
	if (trace_stream_pool(ev->stream) > 0)
		add_key_num(w, ",\"pool\":", (double)trace_stream_pool(ev->stream));
}

/* As json_stack. */
static void
add_stack(struct trace_writer *w, const struct trace_event *ev)
{
	const char *p, *nl;
	char *f;

	if (ev->stack == NULL || ev->stack[0] == '\0')
		return;
	add_str(w, ",\"stack\":[");
	for (p = ev->stack; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		f = gms_asprintf("%.*s", (int)(nl - p), p);
		if (p != ev->stack)
			add(w, ",", 1);
		add_json_str(w, f);
		free(f);
	}
	add(w, "]", 1);
}

static void
event_text(struct trace_writer *w, const struct trace_event *ev)
{
	w->len = 0;
	add_str(w, "{\"op\":");
	add_json_str(w, trace_op_name(ev->op));
	switch (ev->op) {
	case TRACE_ALLOC:
		add_key_num(w, ",\"id\":", (double)ev->id);
		add_key_num(w, ",\"size\":", (double)ev->size);
		add_stream(w, ev);
		if (ev->flags & TRACE_HAS_ADDR)
			add_key_num(w, ",\"addr\":", (double)ev->addr);
		if (ev->at != NULL) {
			add_str(w, ",\"at\":");
			add_json_str(w, ev->at);
		}
		add_stack(w, ev);
		if (ev->flags & TRACE_SEEDED)
			add_str(w, ",\"seeded\":true");
		break;
	case TRACE_FREE:
		add_key_num(w, ",\"id\":", (double)ev->id);
		if (ev->flags & TRACE_HAS_STREAM)
			add_stream(w, ev);
		break;
	case TRACE_MARK:
		add_str(w, ",\"label\":");
		add_json_str(w, ev->label ? ev->label : "");
		break;
	case TRACE_OOM:
		if (ev->flags & TRACE_HAS_ID)
			add_key_num(w, ",\"id\":", (double)ev->id);
		add_key_num(w, ",\"size\":", (double)ev->size);
		if (ev->flags & TRACE_HAS_ID) {
			add_stream(w, ev);
			if (ev->at != NULL) {
				add_str(w, ",\"at\":");
				add_json_str(w, ev->at);
			}
			add_stack(w, ev);
		}
		break;
	case TRACE_EMPTY_CACHE:
		break;
	default:
		add_key_num(w, ",\"addr\":", (double)ev->addr);
		add_key_num(w, ",\"size\":", (double)ev->size);
		add_stream(w, ev);
		if (ev->op == TRACE_SEGMENT_ALLOC && (ev->flags & TRACE_SEEDED))
			add_str(w, ",\"seeded\":true");
		break;
	}
	if (ev->flags & TRACE_HAS_TIME)
		add_key_num(w, ",\"t_us\":", (double)ev->t_us);
	if ((ev->flags & TRACE_HAS_INUSE) && (ev->op == TRACE_ALLOC || ev->op == TRACE_FREE))
		add_key_num(w, ",\"in_use\":", (double)ev->in_use);
	add(w, "}", 1);
}

int
trace_writer_event(struct trace_writer *w, const struct trace_event *ev, char **cause)
{
	int err;

	event_text(w, ev);
	err = put(w, w->document && w->events > 0 ? "," : "", cause);
	if (err == 0)
		err = put(w, w->buf, cause);
	if (err == 0 && !w->document)
		err = put(w, "\n", cause);
	w->events++;
	return err;
}

int
trace_writer_close(struct trace_writer *w, char **cause)
{
	int err = 0, zerr;

	if (w->document)
		err = put(w, "]}\n", cause);
	zerr = gzclose(w->gz);
	if (err == 0 && zerr != Z_OK)
		err = gms_fail(cause, GMS_EIO, "cannot write '%s': %s", w->path,
		    errno ? strerror(errno) : "close failed");
	if (!w->stdout_) {
		if (err == 0)
			err = outfile_commit(&w->out, cause);
		else
			outfile_abort(&w->out);
	}
	free(w->path);
	free(w->buf);
	free(w);
	return err;
}

void
trace_writer_abort(struct trace_writer *w)
{
	gzclose(w->gz);
	if (!w->stdout_)
		outfile_abort(&w->out);
	free(w->path);
	free(w->buf);
	free(w);
}
