/*
 * trace.c - opening a trace of any format, recognising it, validating its
 * header, and turning one JSON event object into a struct trace_event with the
 * type and range checks every format shares.
 */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/gms.h"
#include "sim/progress.h"
#include "traces/gztail.h"
#include "traces/input.h"
#include "traces/reader.h"

static const char *const op_names[TRACE_NOPS] = {
	[TRACE_ALLOC] = "alloc",
	[TRACE_FREE] = "free",
	[TRACE_MARK] = "mark",
	[TRACE_SEGMENT_ALLOC] = "segment_alloc",
	[TRACE_SEGMENT_FREE] = "segment_free",
	[TRACE_SEGMENT_MAP] = "segment_map",
	[TRACE_SEGMENT_UNMAP] = "segment_unmap",
	[TRACE_OOM] = "oom",
	[TRACE_EMPTY_CACHE] = "empty_cache",
};

const char *
trace_op_name(enum trace_op op)
{
	return (unsigned)op < TRACE_NOPS ? op_names[op] : "?";
}

static int
same_str(const char *a, const char *b)
{
	return (a == NULL) == (b == NULL) && (a == NULL || strcmp(a, b) == 0);
}

int
trace_oom_caught(const struct trace_event *ev)
{
	static const char plan[] = "run_conv_plan\n";
	size_t n;

	if (ev->op != TRACE_ALLOC || ev->stack == NULL)
		return 0;
	n = strcspn(ev->stack, "\n") + 1;	/* the innermost frame and its newline */
	return n >= sizeof(plan) - 1 && memcmp(ev->stack + n - (sizeof(plan) - 1), plan,
	    sizeof(plan) - 1) == 0 && (n == sizeof(plan) - 1 || ev->stack[n - sizeof(plan)] == ':');
}

int
trace_event_equal(const struct trace_event *a, const struct trace_event *b)
{
	return a->op == b->op && a->flags == b->flags && a->id == b->id && a->size == b->size &&
	    a->addr == b->addr && a->stream == b->stream && a->t_us == b->t_us &&
	    a->in_use == b->in_use &&
	    same_str(a->at, b->at) && same_str(a->label, b->label) && same_str(a->stack, b->stack);
}

int
trace_json_int(const cJSON *item, const char *what, int64_t min, int64_t max,
    int64_t *out, char **cause)
{
	double v;

	if (!cJSON_IsNumber(item))
		return gms_fail(cause, GMS_ETRACE, "%s is not a number", what);
	v = item->valuedouble;
	if (!isfinite(v) || v != floor(v))
		return gms_fail(cause, GMS_ETRACE, "%s is not an integer: %.17g", what, v);
	if (v < (double)min) {
		if (min == 0)
			return gms_fail(cause, GMS_ETRACE, "%s is negative: %.17g", what, v);
		return gms_fail(cause, GMS_ETRACE, "%s out of range: %.17g", what, v);
	}
	if (v > (double)max)
		return gms_fail(cause, GMS_ETRACE, "%s out of range: %.17g (at most %lld)",
		    what, v, (long long)max);
	*out = (int64_t)v;
	return 0;
}

static int
get_u64_max(const cJSON *obj, const char *key, const char *op, int required,
    int64_t max, uint64_t *out, char **cause)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char what[64];
	int64_t v;
	int err;

	if (it == NULL || cJSON_IsNull(it)) {
		if (required)
			return gms_fail(cause, GMS_ETRACE, "%s without \"%s\"", op, key);
		return 1;
	}
	/* The common case first: the message is built only for a bad value. */
	if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= (double)max &&
	    it->valuedouble == (double)(int64_t)it->valuedouble) {
		*out = (uint64_t)it->valuedouble;
		return 0;
	}
	snprintf(what, sizeof(what), "%s \"%s\"", op, key);
	if ((err = trace_json_int(it, what, 0, max, &v, cause)) < 0)
		return err;
	*out = (uint64_t)v;
	return 0;
}

static int
get_u64(const cJSON *obj, const char *key, const char *op, int required,
    uint64_t *out, char **cause)
{
	return get_u64_max(obj, key, op, required, strcmp(key, "size") == 0 ?
	    TRACE_SIZE_MAX : TRACE_INT_MAX, out, cause);
}

static int
get_str(const cJSON *obj, const char *key, const char *op, const char **out, char **cause)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsString(it))
		return gms_fail(cause, GMS_ETRACE, "%s \"%s\" is not a string", op, key);
	*out = it->valuestring;
	return 0;
}

/*
 * "stack": the frames, innermost first, as an array of strings (or as one
 * string, each frame ended by a newline, the form trace.h hands out).  The
 * array is joined in place, its object replaced by the string, so that the
 * text lives as long as the event's object, as `at` does.
 */
static int
get_stack(const cJSON *obj, const char *op, struct trace_event *ev, char **cause)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "stack"), *f, *joined;
	size_t n = 0, len, k = 0, i;
	char *buf;

	ev->stack = NULL;
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (cJSON_IsString(it)) {
		if (it->valuestring[0] == '\0')
			return 0;
		len = strlen(it->valuestring);
		if (it->valuestring[len - 1] != '\n' || it->valuestring[0] == '\n' ||
		    strstr(it->valuestring, "\n\n") != NULL)
			return gms_fail(cause, GMS_ETRACE, "%s \"stack\" as a string must end "
			    "each frame with a newline, and no frame may be empty", op);
		ev->stack = it->valuestring;
		return 0;
	}
	if (!cJSON_IsArray(it))
		return gms_fail(cause, GMS_ETRACE, "%s \"stack\" is not an array of frames", op);
	for (f = it->child; f != NULL; f = f->next, k++) {
		if (!cJSON_IsString(f))
			return gms_fail(cause, GMS_ETRACE, "%s \"stack\" frame %zu is not a string",
			    op, k);
		if (f->valuestring[0] == '\0' || strchr(f->valuestring, '\n') != NULL)
			return gms_fail(cause, GMS_ETRACE, "%s \"stack\" frame %zu is %s", op, k,
			    f->valuestring[0] == '\0' ? "empty" : "more than one line");
		n += strlen(f->valuestring) + 1;
	}
	if (n == 0)
		return 0;
	buf = gms_malloc(n + 1);
	for (f = it->child, i = 0; f != NULL; f = f->next) {
		len = strlen(f->valuestring);
		memcpy(buf + i, f->valuestring, len);
		buf[i + len] = '\n';
		i += len + 1;
	}
	buf[i] = '\0';
	joined = cJSON_CreateString(buf);
	free(buf);
	/* obj is the reader's own parse of this event: changing it changes no input */
	cJSON_ReplaceItemViaPointer((cJSON *)obj, it, joined);
	ev->stack = joined->valuestring;
	return 0;
}

/* "pool": a CUDA graph's pool (trace.h), folded into the stream. */
static int
get_pool(const cJSON *obj, const char *op, struct trace_event *ev, char **cause)
{
	uint64_t pool;
	int err = get_u64_max(obj, "pool", op, 0, TRACE_POOL_MAX, &pool, cause);

	if (err == 0)
		ev->stream = trace_pool_stream((unsigned)pool, ev->stream);
	return err < 0 ? err : 0;
}

/* "in_use": the recording allocator's bytes in use after an alloc or free. */
static int
get_in_use(const cJSON *obj, const char *op, struct trace_event *ev, char **cause)
{
	int err = get_u64_max(obj, "in_use", op, 0, TRACE_SIZE_MAX, &ev->in_use, cause);

	if (err == 0)
		ev->flags |= TRACE_HAS_INUSE;
	return err < 0 ? err : 0;
}

/* "seeded": true, on an alloc or segment_alloc. */
static int
get_seeded(const cJSON *obj, const char *op, struct trace_event *ev, char **cause)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "seeded");

	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsBool(it))
		return gms_fail(cause, GMS_ETRACE, "%s \"seeded\" is not true or false", op);
	if (cJSON_IsTrue(it))
		ev->flags |= TRACE_SEEDED;
	return 0;
}

/*
 * A key of ours given twice in one event: JSON leaves it open, Python's json
 * takes the last, cJSON's lookup the first; refused, as the header's are.
 * Only the keys read are looked up (each lookup walks the event's keys, and
 * the first repeat ends the walk).
 */
static int
repeated_key(const cJSON *obj, char **cause)
{
	static const char *const ours[] = { "op", "id", "size", "stream", "t_us", "addr", "pool",
	    "at", "stack", "label", "seeded", "in_use" };
	const cJSON *c;
	size_t i;

	for (c = obj->child; c != NULL; c = c->next)
		for (i = 0; c->string != NULL && i < ARRAY_SIZE(ours); i++)
			if (strcmp(c->string, ours[i]) == 0 &&
			    cJSON_GetObjectItemCaseSensitive(obj, ours[i]) != c)
				return gms_fail(cause, GMS_ETRACE, "event gives \"%s\" twice", ours[i]);
	return 0;
}

int
trace_event_from_json(const cJSON *obj, struct trace_event *ev, char **cause)
{
	const cJSON *opj, *it;
	const char *op;
	int64_t v;
	int err, i;

	if (!cJSON_IsObject(obj))
		return gms_fail(cause, GMS_ETRACE, "event is not a JSON object");
	if ((err = repeated_key(obj, cause)) < 0)
		return err;
	opj = cJSON_GetObjectItemCaseSensitive(obj, "op");
	if (opj == NULL)
		return gms_fail(cause, GMS_ETRACE, "event without \"op\"");
	if (!cJSON_IsString(opj))
		return gms_fail(cause, GMS_ETRACE, "event \"op\" is not a string");
	op = opj->valuestring;
	memset(ev, 0, sizeof(*ev));
	for (i = 0; i < TRACE_NOPS; i++)
		if (strcmp(op, op_names[i]) == 0)
			break;
	if (i == TRACE_NOPS)
		return gms_fail(cause, GMS_ETRACE, "unknown op '%s'", op);
	ev->op = (enum trace_op)i;

	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "t_us")) != NULL && !cJSON_IsNull(it)) {
		if ((err = trace_json_int(it, "\"t_us\"", -TRACE_INT_MAX, TRACE_INT_MAX, &v, cause)) < 0)
			return err;
		ev->t_us = v;
		ev->flags |= TRACE_HAS_TIME;
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "stream")) != NULL && !cJSON_IsNull(it)) {
		if ((err = trace_json_int(it, "\"stream\"", -TRACE_INT_MAX, TRACE_INT_MAX, &v, cause)) < 0)
			return err;
		ev->stream = v;
		ev->flags |= TRACE_HAS_STREAM;
	}

	switch (ev->op) {
	case TRACE_ALLOC:
		if ((err = get_u64(obj, "id", op, 1, &ev->id, cause)) < 0 ||
		    (err = get_u64(obj, "size", op, 1, &ev->size, cause)) < 0)
			return err;
		if ((err = get_pool(obj, op, ev, cause)) < 0)
			return err;
		if ((err = get_u64(obj, "addr", op, 0, &ev->addr, cause)) < 0)
			return err;
		if (err == 0)
			ev->flags |= TRACE_HAS_ADDR;
		if ((err = get_seeded(obj, op, ev, cause)) < 0 ||
		    (err = get_in_use(obj, op, ev, cause)) < 0 ||
		    (err = get_stack(obj, op, ev, cause)) < 0)
			return err;
		return get_str(obj, "at", op, &ev->at, cause);
	case TRACE_FREE:
		if ((err = get_u64(obj, "id", op, 1, &ev->id, cause)) < 0)
			return err;
		return get_in_use(obj, op, ev, cause);
	case TRACE_MARK:
		if ((err = get_str(obj, "label", op, &ev->label, cause)) < 0)
			return err;
		if (ev->label == NULL)
			ev->label = "";
		return 0;
	case TRACE_SEGMENT_ALLOC:
	case TRACE_SEGMENT_FREE:
	case TRACE_SEGMENT_MAP:
	case TRACE_SEGMENT_UNMAP:
		if ((err = get_u64(obj, "addr", op, 1, &ev->addr, cause)) < 0 ||
		    (err = get_u64(obj, "size", op, 1, &ev->size, cause)) < 0)
			return err;
		ev->flags |= TRACE_HAS_ADDR;
		if ((err = get_pool(obj, op, ev, cause)) < 0)
			return err;
		return ev->op == TRACE_SEGMENT_ALLOC ? get_seeded(obj, op, ev, cause) : 0;
	case TRACE_OOM:
		if ((err = get_u64(obj, "size", op, 0, &ev->size, cause)) < 0)
			return err;
		if ((err = get_pool(obj, op, ev, cause)) < 0)
			return err;
		if ((err = get_u64(obj, "id", op, 0, &ev->id, cause)) < 0)
			return err;
		if (err == 0) {
			if (ev->id == 0)
				return gms_fail(cause, GMS_ETRACE, "oom \"id\" must be at least 1");
			ev->flags |= TRACE_HAS_ID;
			if ((err = get_stack(obj, op, ev, cause)) < 0)
				return err;
		}
		return get_str(obj, "at", op, &ev->at, cause);
	default:
		break;
	}
	return 0;
}

/*
 * A string from a trace that holds control characters (an escape sequence
 * that would drive the user's terminal, a tab that breaks a table) is shown
 * with each replaced by '?'.  Returns s, or a copy in *buf.
 */
static int
is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

/* s with its control characters as '?' (keep: one that stays, a stack's '\n'). */
static const char *
printable_but(const char *s, char keep, char **buf, size_t *cap)
{
	size_t i, n;

	for (i = 0; s[i] != '\0'; i++)
		if (is_control(s[i]) && s[i] != keep)
			break;
	if (s[i] == '\0')
		return s;
	n = strlen(s) + 1;
	if (n > *cap)
		*buf = gms_realloc(*buf, *cap = n);
	for (i = 0; i < n; i++)
		(*buf)[i] = i + 1 < n && is_control(s[i]) && s[i] != keep ? '?' : s[i];
	return *buf;
}

static const char *
printable(const char *s, char **buf, size_t *cap)
{
	return printable_but(s, '\0', buf, cap);
}

static int
take_object(cJSON *hdr, const char *key, cJSON **out, char **cause)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(hdr, key);

	*out = NULL;
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsObject(it))
		return gms_fail(cause, GMS_ETRACE, "header \"%s\" is not an object", key);
	*out = it;
	return 0;
}

int
trace_take_header(struct trace_reader *r, cJSON *hdr, char **cause)
{
	const cJSON *it;
	int64_t v;
	int err;

	r->header_json = hdr;
	if (!cJSON_IsObject(hdr))
		return gms_fail(cause, GMS_ETRACE, "not a gpumemsim trace: the top level is not a JSON object");
	/* JSON readers disagree on a repeated key (Python takes the last): neither is taken */
	for (it = hdr->child; it != NULL; it = it->next) {
		const cJSON *o;

		for (o = it->next; o != NULL; o = o->next)
			if (strcmp(o->string, it->string) == 0)
				return gms_fail(cause, GMS_ETRACE, "the header names \"%s\" twice: "
				    "which one counts is not defined (keep one)", it->string);
	}
	/* TensorBoard's memory_profile.json keeps a sampled timeline, not each event */
	if (cJSON_GetObjectItemCaseSensitive(hdr, "memoryProfilePerAllocator") != NULL)
		return gms_fail(cause, GMS_ETRACE, "TensorBoard's memory profile (memory_profile"
		    ".json): it holds a sample of the allocator's events, not each one; give the "
		    "profile it was made from, the HOST.xplane.pb beside it in plugins/profile/RUN/ "
		    "(or that directory)");
	it = cJSON_GetObjectItemCaseSensitive(hdr, "format");
	if (!cJSON_IsString(it) || strcmp(it->valuestring, "gpumemsim-trace") != 0)
		return gms_fail(cause, GMS_ETRACE,
		    "not a gpumemsim trace: \"format\" must be \"gpumemsim-trace\"");
	it = cJSON_GetObjectItemCaseSensitive(hdr, "version");
	if (it == NULL)
		return gms_fail(cause, GMS_ETRACE, "header without \"version\"");
	if ((err = trace_json_int(it, "header \"version\"", 0, 1000000, &v, cause)) < 0)
		return err;
	if (v != 1)
		return gms_fail(cause, GMS_ETRACE,
		    "unsupported trace version %lld (this gpumemsim reads version 1)", (long long)v);
	it = cJSON_GetObjectItemCaseSensitive(hdr, "name");
	if (it != NULL && !cJSON_IsNull(it)) {
		if (!cJSON_IsString(it))
			return gms_fail(cause, GMS_ETRACE, "header \"name\" is not a string");
		r->hdr.name = printable(it->valuestring, &r->name_buf, &(size_t){ 0 });
	}
	if ((err = take_object(hdr, "device", &r->hdr.device, cause)) < 0 ||
	    (err = take_object(hdr, "source", &r->hdr.source, cause)) < 0 ||
	    (err = take_object(hdr, "observed", &r->hdr.observed, cause)) < 0)
		return err;
	if (r->hdr.device != NULL &&
	    (it = cJSON_GetObjectItemCaseSensitive(r->hdr.device, "total_bytes")) != NULL) {
		if ((err = trace_json_int(it, "device \"total_bytes\"", 0, TRACE_INT_MAX, &v, cause)) < 0)
			return err;
		r->hdr.device_total = (uint64_t)v;
	}
	it = cJSON_GetObjectItemCaseSensitive(hdr, "starts_mid_run");
	if (it != NULL && !cJSON_IsNull(it)) {
		if (!cJSON_IsBool(it))
			return gms_fail(cause, GMS_ETRACE, "header \"starts_mid_run\" is not true or false");
		r->hdr.starts_mid_run = cJSON_IsTrue(it);
	}
	it = cJSON_GetObjectItemCaseSensitive(hdr, "ends_in_oom");
	if (it != NULL && !cJSON_IsNull(it)) {
		if (!cJSON_IsBool(it))
			return gms_fail(cause, GMS_ETRACE, "header \"ends_in_oom\" is not true or false");
		r->hdr.ends_in_oom = cJSON_IsTrue(it);
	}
	return 0;
}

int
trace_slurp(struct trace_reader *r, char **bufp, size_t *lenp, char **cause)
{
	size_t cap = 1 << 16, len = 0;
	uint64_t limit = gms_input_cap();
	char *buf = gms_malloc(cap);
	int n, zerr;

	for (;;) {
		if (len > limit) {
			free(buf);
			return gms_fail(cause, GMS_ETRACE, "more than %llu MiB%s: too large to "
			    "hold in memory (the limit is 4 GiB, or a quarter of ulimit -v)",
			    (unsigned long long)(limit >> 20),
			    r->compressed ? " once decompressed" : "");
		}
		if (cap - len < 65536 + 1)
			buf = gms_realloc(buf, cap *= 2);
		n = gzread(r->gz, buf + len, 65536);
		if (n < 0)
			break;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	gzerror(r->gz, &zerr);
	if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
		free(buf);
		return gms_fail(cause, GMS_ETRACE, "%s", zerr == Z_BUF_ERROR ?
		    "truncated compressed file" : gzerror(r->gz, &zerr));
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

int
trace_json_truncated(const char *buf, size_t len, size_t off)
{
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t' ||
	    buf[len - 1] == '\r' || buf[len - 1] == '\n'))
		len--;
	return off + 1 >= len;
}

size_t
trace_json_leading_zero(const char *buf, size_t len)
{
	size_t i;
	int in_str = 0;

	for (i = 0; i < len; i++) {
		char c = buf[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '0' && i + 1 < len && buf[i + 1] >= '0' && buf[i + 1] <= '9' &&
		    (i == 0 || !((buf[i - 1] >= '0' && buf[i - 1] <= '9') || buf[i - 1] == '.' ||
		    buf[i - 1] == 'e' || buf[i - 1] == 'E' || buf[i - 1] == '+' ||
		    (buf[i - 1] == '-' && i >= 2 && (buf[i - 2] == 'e' || buf[i - 2] == 'E'))))) {
			return i + 1;
		}
	}
	return 0;
}

int
trace_json_has_nul(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	/* per event, on the hot path: memchr for the rare backslash beats memmem's set-up */
	while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL) {
		if (end - p >= 6 && memcmp(p, "\\u0000", 6) == 0)
			return 1;
		p++;
	}
	return 0;
}

void
trace_line_col(const char *buf, size_t off, unsigned long *line, unsigned long *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && buf[i] != '\0'; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

#define PEEK_BYTES (1u << 20)

int
trace_peek_rank(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	char *buf, *p;
	cJSON *info = NULL;
	const cJSON *r;
	int n, rank = -1;

	if (gz == NULL)
		return -1;
	buf = gms_malloc(PEEK_BYTES + 1);
	n = gzread(gz, buf, PEEK_BYTES);
	gzclose(gz);
	buf[n > 0 ? n : 0] = '\0';
	/* the object after the key; cJSON stops at its end, whatever follows */
	if (n > 0 && (p = strstr(buf, "\"distributedInfo\"")) != NULL &&
	    (p = strchr(p + 17, ':')) != NULL)
		info = cJSON_ParseWithOpts(p + 1, NULL, 0);
	r = cJSON_GetObjectItemCaseSensitive(info, "rank");
	if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble <= (1 << 20) &&
	    r->valuedouble == (double)(int)r->valuedouble)
		rank = (int)r->valuedouble;
	cJSON_Delete(info);
	free(buf);
	return rank;
}

/* Whether s says fw's name, without case: "pytorch 2.11", "jax profiler (xplane)". */
static unsigned
framework_in(const cJSON *s)
{
	static const struct {
		const char *word;
		unsigned fw;
	} names[] = { { "pytorch", TRACE_FW_PYTORCH }, { "tensorflow", TRACE_FW_TENSORFLOW },
	    { "jax", TRACE_FW_JAX }, { "rmm", TRACE_FW_RMM } };
	size_t i;

	if (!cJSON_IsString(s))
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasestr(s->valuestring, names[i].word) != NULL)
			return names[i].fw;
	return 0;
}

unsigned
trace_header_framework(const struct trace_header *hdr)
{
	unsigned fw;

	if ((fw = framework_in(cJSON_GetObjectItemCaseSensitive(hdr->source, "framework"))) ||
	    (fw = framework_in(cJSON_GetObjectItemCaseSensitive(hdr->source, "from"))))
		return fw;
	return framework_in(cJSON_GetObjectItemCaseSensitive(hdr->observed, "allocator"));
}

const char *
trace_framework_name(unsigned fw)
{
	return fw == TRACE_FW_PYTORCH ? "PyTorch" : fw == TRACE_FW_TENSORFLOW ? "TensorFlow" :
	    fw == TRACE_FW_JAX ? "JAX" : fw == TRACE_FW_RMM ? "RMM" : NULL;
}

int
trace_looks_like_oomlog(const char *head)
{
	return strstr(head, "ran out of memory trying to allocate") != NULL ||
	    strstr(head, "CUDA out of memory. Tried to allocate") != NULL ||
	    strstr(head, "BFCAllocator dump for") != NULL;
}

int
trace_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * The format of a trace whose first bytes (after gzip) are head[0..n), with
 * head[n] = '\0'; NULL when they are none gpumemsim reads.  A JSON Lines
 * file's first line is a header object without "events"; a document holds
 * its "events" array.
 */
static const struct trace_format *
by_content(const char *head, size_t n)
{
	const char *nl;

	if (n > 0 && (unsigned char)head[0] == 0x80)
		return &trace_format_pickle;
	if (strncmp(head, "Thread,", 7) == 0)
		return &trace_format_csv;
	/* an XSpace: its first plane (field 1) names a host or a device early */
	if (n > 2 && (unsigned char)head[0] == 0x0a && (memmem(head, n, "/host:", 6) ||
	    memmem(head, n, "/device:", 8)))
		return &trace_format_xplane;
	if (head[strspn(head, " \t\r\n")] != '{')
		return NULL;
	nl = strchr(head, '\n');
	if (nl != NULL && nl[strspn(nl, " \t\r\n")] == '{' && strstr(head, "\"events\"") == NULL)
		return &trace_format_jsonl;
	return &trace_format_json;
}

/* Could head[0..n), the start of a pipe, be a trace (input_open's looks_like)? */
static int
looks_like_trace(const unsigned char *head, size_t n)
{
	char buf[INPUT_HEAD + 1];

	if (n == 0 || (n >= 2 && head[0] == 0x1f && head[1] == 0x8b))
		return 1;	/* empty (the reader says so), or gzip: looked at after */
	n = GMS_MIN(n, (size_t)INPUT_HEAD);
	memcpy(buf, head, n);
	buf[n] = '\0';
	return by_content(buf, n) != NULL;
}

/* path without a ".gz" at its end, in base. */
static void
plain_name(const char *path, char *base, size_t len)
{
	size_t n;

	snprintf(base, len, "%s", path);
	n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".gz") == 0)
		base[n - 3] = '\0';
}

/* Choose the format by extension (".gz" stripped), else from the first bytes. */
static const struct trace_format *
sniff(struct trace_reader *r, char **cause)
{
	const struct trace_format *f;
	char head[4096], base[4096];
	int n, zerr;

	plain_name(r->path, base, sizeof(base));
	if (trace_ends_with(base, ".jsonl"))
		return &trace_format_jsonl;
	if (trace_ends_with(base, ".json"))
		return &trace_format_json;
	if (trace_ends_with(base, ".pickle") || trace_ends_with(base, ".pkl"))
		return &trace_format_pickle;
	if (trace_ends_with(base, ".csv"))
		return &trace_format_csv;
	if (trace_ends_with(base, ".xplane.pb") || trace_ends_with(base, ".pb"))
		return &trace_format_xplane;

	n = gzread(r->gz, head, sizeof(head) - 1);
	if (n < 0 || gzrewind(r->gz) != 0) {
		const char *why = gzerror(r->gz, &zerr);

		gms_fail(cause, GMS_EIO, "cannot read trace '%s': %s", r->path,
		    why != NULL && *why ? why : strerror(errno));
		return NULL;
	}
	head[n] = '\0';
	if ((f = by_content(head, (size_t)n)) == NULL && trace_looks_like_oomlog(head))
		gms_fail(cause, GMS_ETRACE, "%s: an out-of-memory log, not a trace: 'gpumemsim "
		    "oom %s' reads it (the allocator's state when it ran out, and what serves it)",
		    r->path, r->path);
	else if (f == NULL)
		gms_fail(cause, GMS_ETRACE, "%s: not a trace gpumemsim can read (expected a "
		    "gpumemsim JSON trace, a PyTorch snapshot pickle or profiler trace, a "
		    "TensorFlow or JAX profile (.xplane.pb) or an RMM log CSV, optionally "
		    "gzip'd)", r->path);
	return f;
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define HOSTS_NAMED 8	/* a profile of more hosts: the first named, the rest counted */

/*
 * The profiles under dir: its own NAME.xplane.pb, else a log directory's
 * plugins/profile/RUN/, else those of the log directories in it (Keras's
 * TensorBoard callback writes logs/fit/RUN/train/plugins/profile/...).
 */
static int
profiles_glob(const char *dir, glob_t *g)
{
	static const char *const pats[] = { "*.xplane.pb", "*.xplane.pb.gz",
	    "plugins/profile/*/*.xplane.pb", "plugins/profile/*/*.xplane.pb.gz",
	    "*/plugins/profile/*/*.xplane.pb", "*/plugins/profile/*/*.xplane.pb.gz" };
	char pat[4200];
	size_t i;
	int found = 0;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		snprintf(pat, sizeof(pat), "%s/%s", dir, pats[i]);
		if (glob(pat, found ? GLOB_APPEND : 0, NULL, g) == 0)
			found = 1;
		if (found && i % 2 == 1)
			break;	/* the directory's own profiles, else the log directory's */
	}
	if (found)
		qsort(g->gl_pathv, g->gl_pathc, sizeof(*g->gl_pathv), cmp_path);
	return found;
}

int
trace_is_profile_dir(const char *path)
{
	struct stat st;
	glob_t g;
	int found;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	found = profiles_glob(path, &g);
	globfree(&g);
	return found;
}

int
trace_is_rmm_log(const char *path)
{
	char base[4096], head[INPUT_HEAD + 1];
	struct stat st;
	gzFile gz;
	int got;

	plain_name(path, base, sizeof(base));
	if (trace_ends_with(base, ".csv"))
		return 1;
	/* another name: what sniff() reads it as, from a file only (a pipe is read once) */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (gz = gzopen(path, "rb")) == NULL)
		return 0;
	got = gzread(gz, head, INPUT_HEAD);
	gzclose(gz);
	if (got < 0)
		return 0;
	head[got] = '\0';
	return by_content(head, (size_t)got) == &trace_format_csv;
}

unsigned
trace_framework(const char *path, const struct trace_opts *opts)
{
	char base[4096], *head, *why = NULL;
	struct trace_reader *r;
	struct stat st;
	unsigned fw = 0;
	gzFile gz;
	int got;

	plain_name(path, base, sizeof(base));
	if (trace_ends_with(base, ".pickle") || trace_ends_with(base, ".pkl"))
		return TRACE_FW_PYTORCH;
	if (trace_ends_with(base, ".csv"))
		return TRACE_FW_RMM;
	/* a file's first bytes say a snapshot, a log or a profiler trace (a pipe is read whole) */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (gz = gzopen(path, "rb")) != NULL) {
		head = gms_malloc(PEEK_BYTES + 1);
		got = gzread(gz, head, PEEK_BYTES);
		gzclose(gz);
		head[got > 0 ? got : 0] = '\0';
		if (got > 0 && by_content(head, (size_t)got) == &trace_format_pickle)
			fw = TRACE_FW_PYTORCH;
		else if (got > 0 && by_content(head, (size_t)got) == &trace_format_csv)
			fw = TRACE_FW_RMM;
		else if (got > 0 && strstr(head, "\"traceEvents\"") != NULL)
			fw = TRACE_FW_PYTORCH;
		free(head);
		if (fw != 0)
			return fw;
	}
	if (trace_open_opts(path, opts, &r, &why) < 0) {
		free(why);	/* the command that reads it says why */
		return 0;
	}
	fw = trace_header_framework(trace_header(r));
	trace_close(r);
	return fw;
}

/*
 * A profile directory's file: the one .xplane.pb in it, or in the newest run
 * of plugins/profile/ (runs are named by their time); several hosts' are
 * refused, listed.
 */
static int
profile_in_dir(const char *dir, char **file, char **cause)
{
	glob_t g;
	size_t i, first, len;
	char *list, *slash;
	int err;

	if (!profiles_glob(dir, &g)) {
		globfree(&g);
		return gms_fail(cause, GMS_EIO, "cannot read trace '%s': a directory, with no "
		    "profile in it (NAME.xplane.pb, plugins/profile/RUN/NAME.xplane.pb, or "
		    "that in a directory of it: train/plugins/profile/...)", dir);
	}
	/* glob sorts: the newest run's files are last */
	slash = strrchr(g.gl_pathv[g.gl_pathc - 1], '/');
	len = (size_t)(slash - g.gl_pathv[g.gl_pathc - 1]);
	for (first = g.gl_pathc - 1; first > 0; first--)
		if (strncmp(g.gl_pathv[first - 1], g.gl_pathv[g.gl_pathc - 1], len + 1) != 0 ||
		    strchr(g.gl_pathv[first - 1] + len + 1, '/') != NULL)
			break;
	if (g.gl_pathc - first > 1) {
		/* the first few named, the rest counted: a message, not a listing */
		size_t n = g.gl_pathc - first, shown = GMS_MIN(n, (size_t)HOSTS_NAMED), at = 0;
		FILE *f = open_memstream(&list, &at);

		for (i = first; i < first + shown; i++)
			fprintf(f, "%s%s", i > first ? ", " : "", g.gl_pathv[i]);
		if (n > shown)
			fprintf(f, " and %zu more", n - shown);
		fclose(f);
		err = gms_fail(cause, GMS_ETRACE, "%s: a profile of %zu hosts (%s): give "
		    "the file of one", dir, n, list);
		free(list);
		globfree(&g);
		return err;
	}
	*file = gms_strdup(g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return 0;
}

int
trace_open(const char *path, struct trace_reader **out, char **cause)
{
	return trace_open_opts(path, NULL, out, cause);
}

int
trace_open_opts(const char *path, const struct trace_opts *opts,
    struct trace_reader **out, char **cause)
{
	struct trace_reader *r;
	const char *slash, *stdin_name;
	struct stat st;
	int fd_err, err, fd = -1;

	*out = NULL;
	r = gms_calloc(1, sizeof(*r));
	r->path = gms_strdup(path);
	r->opts.device = opts ? opts->device : -1;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		char *file = NULL;

		if ((err = profile_in_dir(path, &file, cause)) < 0) {
			trace_close(r);
			return err;
		}
		free(r->path);
		r->path = file;
		path = file;
	}
	/* readers may rewind, commands read twice: a pipe is kept in a temporary file */
	if ((err = input_open(path, looks_like_trace, &fd, cause)) < 0 ||
	    (err = input_unchanged(path, cause)) < 0) {
		if (fd >= 0)
			close(fd);
		trace_close(r);
		return err;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		r->size = (uint64_t)st.st_size;
	errno = 0;
	r->fd = fd;
	if ((r->gz = gzdopen(fd, "rb")) == NULL) {
		fd_err = errno;
		close(fd);
		err = gms_fail(cause, GMS_EIO, "cannot open trace '%s': %s", path,
		    fd_err ? strerror(fd_err) : "out of memory");
		trace_close(r);
		return err;
	}
	gzbuffer(r->gz, 1 << 17);
	r->compressed = !gzdirect(r->gz);
	if ((r->fmt = sniff(r, cause)) == NULL) {
		trace_close(r);
		return GMS_ETRACE;
	}
	slash = strrchr(path, '/');
	/* standard input is named by whoever feeds it (the Python package: "snapshot") */
	if (strcmp(path, "-") == 0 && (stdin_name = getenv("GPUMEMSIM_STDIN_NAME")) != NULL &&
	    *stdin_name != '\0')
		slash = NULL, path = stdin_name;
	r->hdr.name = printable(slash ? slash + 1 : path, &r->name_buf, &(size_t){ 0 });
	snprintf(r->format, sizeof(r->format), "%s%s", r->fmt->name, r->compressed ? ".gz" : "");
	r->hdr.format = r->format;
	if ((err = r->fmt->open(r, cause)) < 0) {
		trace_close(r);
		return err;
	}
	*out = r;
	return 0;
}

const struct trace_header *
trace_header(const struct trace_reader *r)
{
	return &r->hdr;
}

int
trace_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	int rc;

	r->cur = r->index;
	r->printable = 0;
	if (r->ended)
		return 0;
	rc = r->fmt->next(r, ev, cause);
	/* the whole file read: it must still be the one it was when the read began */
	if (rc == 0 && (rc = input_unchanged(r->path, cause)) < 0)
		return rc;
	/* nothing may follow the compressed data: gzread ignores it */
	if (rc == 0 && r->compressed && r->gz != NULL) {
		char drain[8192];

		while (gzread(r->gz, drain, sizeof(drain)) > 0)
			;
		if ((rc = gz_tail_check(r->fd, r->size, (uint64_t)GMS_MAX(gztell(r->gz), 0),
		    r->path, cause)) < 0)
			return rc;
	}
	if (rc == 0) {
		/* its descriptor goes back now: a command that keeps many readers
		   for their headers and strings (--ranks) holds no file open */
		r->ended = 1;
		if (r->gz != NULL)
			gzclose(r->gz);
		r->gz = NULL;
	}
	if (rc == 1) {
		const char *at = ev->at, *stack = ev->stack;

		/* how far into its file, for a person watching a long read */
		if ((r->index & (PROGRESS_STEP - 1)) == 0)
			progress_input((uint64_t)GMS_MAX(gzoffset(r->gz), 0), r->size);
		r->index++;
		r->event_stable = r->stable;
		if (r->printable)
			return rc;
		if (ev->at != NULL)
			ev->at = printable(ev->at, &r->at_buf, &r->at_cap);
		if (ev->label != NULL)
			ev->label = printable(ev->label, &r->label_buf, &r->label_cap);
		if (ev->stack != NULL)
			ev->stack = printable_but(ev->stack, '\n', &r->stack_buf, &r->stack_cap);
		/* a copy, shown printable, is not the reader's kept string */
		if (ev->at != at || ev->stack != stack)
			r->event_stable = 0;
	}
	return rc;
}

int
trace_strings_stable(const struct trace_reader *r)
{
	return r->event_stable;
}

uint64_t
trace_index(const struct trace_reader *r)
{
	return r->cur;
}

const char *
trace_where(struct trace_reader *r)
{
	r->fmt->where(r);
	return r->where;
}

void
trace_close(struct trace_reader *r)
{
	if (r == NULL)
		return;
	if (r->fmt != NULL && r->fmt->close != NULL)
		r->fmt->close(r);
	if (r->gz != NULL)
		gzclose(r->gz);
	cJSON_Delete(r->header_json);
	free(r->at_buf);
	free(r->label_buf);
	free(r->stack_buf);
	free(r->name_buf);
	free(r->path);
	free(r);
}

/* No event is anywhere near this long; past it the input is not a trace. */
#define MAX_LINE (16u << 20)

#define READ_CHUNK (256u << 10)

/*
 * Lines are cut in place out of large reads (no copy, no allocation per
 * line): the hot loop of every streamed trace.  An error of the compressed
 * stream is kept until the lines read before it have been handed out, as a
 * line-at-a-time reader would.
 */
int
trace_read_line(struct trace_reader *r, struct trace_lines *ln, size_t *lenp, char **cause)
{
	size_t avail, len;
	char *line, *nl;
	const char *msg;
	int n, zerr, terminated;

	for (;;) {
		avail = ln->end - ln->start;
		if (avail > 0 && (nl = memchr(ln->data + ln->start, '\n', avail)) != NULL) {
			line = ln->data + ln->start;
			len = (size_t)(nl - line);
			ln->start += len + 1;
			terminated = 1;
			break;
		}
		if (ln->eof) {
			if (ln->zerr != 0)
				return gms_fail(cause, GMS_ETRACE, "%s", ln->zerr == Z_BUF_ERROR ?
				    "truncated compressed file" : ln->zmsg);
			if (avail == 0)
				return 0;
			line = ln->data + ln->start;
			len = avail;
			ln->start = ln->end;
			terminated = 0;
			break;
		}
		if (avail >= MAX_LINE)
			return gms_fail(cause, GMS_ETRACE, "line longer than %u bytes: not a trace",
			    MAX_LINE);
		if (ln->start > 0) {
			memmove(ln->data, ln->data + ln->start, avail);
			ln->start = 0;
			ln->end = avail;
			ln->data[ln->end] = '\0';
		}
		if (ln->cap - ln->end < READ_CHUNK / 2)
			ln->data = gms_realloc(ln->data, ln->cap = ln->cap ? 2 * ln->cap :
			    READ_CHUNK + 1);
		/*
		 * Spare: the NUL after a last unterminated line, and zeros for
		 * trace_event_scan_line's words to read past it.
		 */
		n = gzread(r->gz, ln->data + ln->end,
		    (unsigned)(ln->cap - ln->end - 1 - TRACE_SCAN_PAD));
		if (n > 0)
			ln->end += (size_t)n;
		/* what was read ends: trace_event_scan_line */
		memset(ln->data + ln->end, 0, 1 + TRACE_SCAN_PAD);
		msg = gzerror(r->gz, &zerr);
		if (zerr != Z_OK && zerr != Z_STREAM_END) {
			ln->eof = 1;
			ln->zerr = zerr;
			ln->zmsg = gms_strdup(msg ? msg : "corrupt compressed data");
		} else if (n <= 0) {
			ln->eof = 1;
		}
	}
	/* a NUL inside a line is not text (and would cut its strings short);
	   the message names this line, so it is counted first */
	ln->line++;
	if (memchr(line, '\0', len) != NULL)
		return gms_fail(cause, GMS_ETRACE, "NUL byte in a line: not a trace");
	ln->unterminated = !terminated;
	while (len > 0 && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	ln->buf = line;
	*lenp = len;
	return 1;
}

void
trace_lines_free(struct trace_lines *ln)
{
	free(ln->data);
	free(ln->zmsg);
	memset(ln, 0, sizeof(*ln));
}

static uint64_t
source_number(const struct trace_header *hdr, const char *key)
{
	const cJSON *v = hdr != NULL && hdr->source != NULL ?
	    cJSON_GetObjectItemCaseSensitive(hdr->source, key) : NULL;

	return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

uint64_t
trace_peak_before(const struct trace_header *hdr)
{
	uint64_t before = source_number(hdr, "peak_in_use_before");

	return before ? before : source_number(hdr, "peak_in_use_window");
}

int
trace_peak_in_window(const struct trace_header *hdr)
{
	return source_number(hdr, "peak_in_use_before") == 0 &&
	    source_number(hdr, "peak_in_use_window") > 0;
}

const char *
trace_peak_where(const struct trace_header *hdr)
{
	return trace_peak_in_window(hdr) ? "in the profile's window (free chunks made before "
	    "it, handed out whole)" : "before the profile's window (its peak_bytes_in_use)";
}
