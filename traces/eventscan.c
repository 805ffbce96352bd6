/*
 * eventscan.c - the fast path for one native event object, such as
 * {"op":"alloc","id":1,"size":1048576,"stream":0,"at":"train.py:3 step"}:
 * one pass, integers parsed as they are read, keys told apart by their
 * first bytes, nothing allocated.  Whatever it is not sure of (an escape in
 * a string, a fraction or an exponent, a number above 2^53, null,
 * a nested value, an unknown or repeated key, a missing field, a value out
 * of range) it leaves to the cJSON path (trace_event_from_json), which then
 * gives the same event or the located error: the fast path only ever
 * agrees with it, it is never the one to refuse.
 */
#include "config.h"

#include <string.h>

#include "traces/reader.h"

/* Each key the native event has; a bit each, to catch repeats. */
enum key { K_OP, K_ID, K_SIZE, K_ADDR, K_STREAM, K_T_US, K_AT, K_LABEL, K_NONE };

#define MAX_DIGITS 16		/* epoch microseconds have 16; above 2^53 is cJSON's */

static enum key
which(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'o' && k[1] == 'p')
			return K_OP;
		if (k[0] == 'i' && k[1] == 'd')
			return K_ID;
		if (k[0] == 'a' && k[1] == 't')
			return K_AT;
		break;
	case 4:
		if (memcmp(k, "size", 4) == 0)
			return K_SIZE;
		if (memcmp(k, "addr", 4) == 0)
			return K_ADDR;
		if (memcmp(k, "t_us", 4) == 0)
			return K_T_US;
		break;
	case 5:
		if (memcmp(k, "label", 5) == 0)
			return K_LABEL;
		break;
	case 6:
		if (memcmp(k, "stream", 6) == 0)
			return K_STREAM;
		break;
	}
	return K_NONE;
}

/* Blanks; a newline too unless nl is 0 (a line read in place ends there). */
static const char *
skip_ws(const char *p, int nl)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || (*p == '\n' && nl))
		p++;
	return p;
}

/*
 * A string without escapes or control characters (DEL included: what the
 * fast path reads is printable as it is): its span, or NULL.
 */
static const char *
scan_string(const char *p, const char **start, size_t *len)
{
	const char *q = ++p;

	while (*q != '"') {
		if ((unsigned char)*q < 0x20 || *q == '\\' || *q == 0x7f)
			return NULL;	/* an escape, a control character, or the end */
		q++;
	}
	*start = p;
	*len = (size_t)(q - p);
	return q + 1;
}

/* An integer's start, for both scans: past its sign, or NULL at a leading zero (not JSON). */
static const char *
int_start(const char *p, int *neg)
{
	*neg = *p == '-';
	p += *neg;
	return *p == '0' && p[1] >= '0' && p[1] <= '9' ? NULL : p;
}

/* Its end at p after n digits of value v: where JSON allows, and at most 2^53 - 1. */
static const char *
int_end(const char *p, int n, uint64_t v, int neg, int64_t *out)
{
	if (n == 0 || !(*p == ',' || *p == '}' || *p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		return NULL;
	/* below 2^53 a double holds the integer exactly; past it, cJSON's */
	if (v > (uint64_t)TRACE_INT_MAX)
		return NULL;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return p;
}

/* An integer of at most MAX_DIGITS digits, ending where JSON allows. */
static const char *
scan_int(const char *p, int64_t *out)
{
	int neg, n = 0;
	uint64_t v = 0;

	if ((p = int_start(p, &neg)) == NULL)
		return NULL;
	while (*p >= '0' && *p <= '9') {
		if (++n > MAX_DIGITS)
			return NULL;
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	return int_end(p, n, v, neg, out);
}

static int
op_of(const char *s, size_t n, enum trace_op *op)
{
	/* the two that are nearly every event, at once */
	if (n == 5 && memcmp(s, "alloc", 5) == 0)
		*op = TRACE_ALLOC;
	else if (n == 4 && memcmp(s, "free", 4) == 0)
		*op = TRACE_FREE;
	else {
		int i;

		for (i = 0; i < TRACE_NOPS; i++) {
			const char *name = trace_op_name((enum trace_op)i);

			if (strlen(name) == n && memcmp(name, s, n) == 0)
				break;
		}
		if (i == TRACE_NOPS)
			return 0;
		*op = (enum trace_op)i;
	}
	return 1;
}

/*
 * Whether the object closed at p ('}') ends the text (nl 1) or its line (nl
 * 0: *end, when asked, at the newline).
 */
static int
object_end(const char *p, int nl, char **end)
{
	p = skip_ws(p + 1, nl);
	if (nl ? *p != '\0' : *p != '\n')
		return 0;
	if (end != NULL)
		*end = (char *)p;
	return 1;
}

/* p past the literal s when p begins with it, else NULL (never reading past a mismatch). */
static const char *
lit(const char *p, const char *s)
{
	while (*s != '\0')
		if (*p++ != *s++)
			return NULL;
	return p;
}

/*
 * Word at a time, for a line where it lies in a reader's buffer, which holds
 * TRACE_SCAN_PAD readable bytes past its NUL: the bytes read past the end of
 * a literal or a number are never more than that.
 */
static inline uint64_t
word(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;	/* p[0] in the low byte */
}

#define ONES 0x0101010101010101ull

/* How many of w's bytes, from the low one, are digits (0 to 8). */
static inline int
digits(uint64_t w)
{
	/*
	 * A byte is a digit when its high nibble is 3 and it stays so after
	 * adding 6.  A byte above 0xF9 carries into the next: only into bytes
	 * after a non-digit, which are not counted.
	 */
	uint64_t odd = ((w & 0xF0 * ONES) ^ 0x30 * ONES) |
	    (((w + 0x06 * ONES) & 0xF0 * ONES) ^ 0x30 * ONES);

	return odd == 0 ? 8 : __builtin_ctzll(odd) / 8;
}

/* The value of w's first n digits (1 to 8): pairs, then fours, then eight. */
static inline uint64_t
eight(uint64_t w, int n)
{
	/* the digits' values, moved to the top: the bytes below are leading zeros */
	uint64_t d = (w - 0x30 * ONES) << (8 * (8 - n));

	d = d * 10 + (d >> 8);				/* even bytes: two digits */
	d &= 0x00FF00FF00FF00FFull;
	d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFull;	/* four digits */
	return (d & 0xFFFFFFFFull) * 10000 + (d >> 32);
}

/* scan_int, a word at a time. */
static const char *
scan_int_word(const char *p, int64_t *out)
{
	static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
	    10000000, 100000000 };
	int neg, n, total = 0;
	uint64_t v = 0;

	if ((p = int_start(p, &neg)) == NULL)
		return NULL;
	do {
		uint64_t w = word(p);

		if ((n = digits(w)) == 0)
			break;
		if ((total += n) > MAX_DIGITS)
			return NULL;
		v = v * pow10[n] + eight(w, n);
		p += n;
	} while (n == 8);
	return int_end(p, total, v, neg, out);
}

/* lit() for a literal of n bytes, compared whole. */
static inline const char *
lit_word(const char *p, const char *s, size_t n)
{
	return memcmp(p, s, n) == 0 ? p + n : NULL;
}

/*
 * The lines `convert` and the recorders write, keys in their order:
 * {"op":"alloc","id":N,"size":N[,"stream":N][,"addr":N][,"at":"S"][,"t_us":N]}
 * and {"op":"free","id":N[,"t_us":N]}: read without telling keys apart.
 * Anything else (another order, spaces, another op) is 0, for the general
 * scan below, which reads these lines alike.
 */
static inline int
canonical(const char *p, struct trace_event *ev, int nl, char **end)
{
	/* in place (nl 0) the buffer is padded: words, not bytes */
#define LIT(p, s) (nl ? lit(p, s) : lit_word(p, s, sizeof(s) - 1))
#define INT(p, v) (nl ? scan_int(p, v) : scan_int_word(p, v))
	const char *q, *at = NULL;
	size_t atlen = 0;
	int64_t v;

	if ((p = LIT(p, "{\"op\":\"")) == NULL)
		return 0;
	memset(ev, 0, sizeof(*ev));
	if ((q = LIT(p, "alloc\",\"id\":")) != NULL) {
		ev->op = TRACE_ALLOC;
		if ((p = INT(q, &v)) == NULL || v < 0)
			return 0;
		ev->id = (uint64_t)v;
		if ((p = LIT(p, ",\"size\":")) == NULL || (p = INT(p, &v)) == NULL || v < 0 ||
		    v > TRACE_SIZE_MAX)
			return 0;
		ev->size = (uint64_t)v;
		if ((q = LIT(p, ",\"stream\":")) != NULL) {
			if ((p = INT(q, &v)) == NULL)
				return 0;
			ev->stream = v;
			ev->flags |= TRACE_HAS_STREAM;
		}
		if ((q = LIT(p, ",\"addr\":")) != NULL) {
			if ((p = INT(q, &v)) == NULL || v < 0)
				return 0;
			ev->addr = (uint64_t)v;
			ev->flags |= TRACE_HAS_ADDR;
		}
		if ((q = LIT(p, ",\"at\":")) != NULL &&
		    (*q != '"' || (p = scan_string(q, &at, &atlen)) == NULL))
			return 0;
	} else if ((q = LIT(p, "free\",\"id\":")) != NULL) {
		ev->op = TRACE_FREE;
		if ((p = INT(q, &v)) == NULL || v < 0)
			return 0;
		ev->id = (uint64_t)v;
	} else {
		return 0;
	}
	if ((q = LIT(p, ",\"t_us\":")) != NULL) {
		if ((p = INT(q, &v)) == NULL)
			return 0;
		ev->t_us = v;
		ev->flags |= TRACE_HAS_TIME;
	}
	if (*p != '}' || !object_end(p, nl, end))
		return 0;
	if (at != NULL) {
		((char *)at)[atlen] = '\0';
		ev->at = at;
	}
	return 1;
#undef LIT
#undef INT
}

/*
 * The scan of trace_event_scan (nl 1: line is the whole text) and of
 * trace_event_scan_line (nl 0: the object must end its line, at a newline
 * left in *end; a NUL there means the buffer ended first).
 */
static int
scan(char *line, struct trace_event *ev, int nl, char **end)
{
	const char *p = skip_ws(line, nl), *str[K_NONE] = { 0 }, *k;
	size_t slen[K_NONE] = { 0 }, klen;
	int64_t num[K_NONE] = { 0 };
	unsigned seen = 0, isnum = 0;
	enum key key;

	if (*p++ != '{')
		return 0;
	p = skip_ws(p, nl);
	if (*p == '}')
		return 0;
	for (;;) {
		if (*p != '"' || (p = scan_string(p, &k, &klen)) == NULL)
			return 0;
		if ((key = which(k, klen)) == K_NONE || (seen & (1u << key)))
			return 0;
		seen |= 1u << key;
		p = skip_ws(p, nl);
		if (*p++ != ':')
			return 0;
		p = skip_ws(p, nl);
		if (*p == '"') {
			if ((p = scan_string(p, &str[key], &slen[key])) == NULL)
				return 0;
		} else {
			if ((p = scan_int(p, &num[key])) == NULL)
				return 0;
			isnum |= 1u << key;
		}
		p = skip_ws(p, nl);
		if (*p == '}')
			break;
		if (*p++ != ',')
			return 0;
		p = skip_ws(p, nl);
	}
	if (!object_end(p, nl, end))
		return 0;

	/* "op" a known name; numbers where numbers go, strings where strings. */
#define NUM(k) ((isnum & (1u << (k))) != 0)
#define STR(k) ((seen & ~isnum & (1u << (k))) != 0)
#define HAS(k) ((seen & (1u << (k))) != 0)
	if (!STR(K_OP))
		return 0;
	memset(ev, 0, sizeof(*ev));
	if (!op_of(str[K_OP], slen[K_OP], &ev->op))
		return 0;
	if (HAS(K_T_US)) {
		if (!NUM(K_T_US))
			return 0;
		ev->t_us = num[K_T_US];
		ev->flags |= TRACE_HAS_TIME;
	}
	if (HAS(K_STREAM)) {
		if (!NUM(K_STREAM))
			return 0;
		ev->stream = num[K_STREAM];
		ev->flags |= TRACE_HAS_STREAM;
	}
	switch (ev->op) {
	case TRACE_ALLOC:
		if (!NUM(K_ID) || !NUM(K_SIZE) || num[K_ID] < 0 || num[K_SIZE] < 0 ||
		    num[K_SIZE] > TRACE_SIZE_MAX || (HAS(K_ADDR) && (!NUM(K_ADDR) ||
		    num[K_ADDR] < 0)) || (HAS(K_AT) && !STR(K_AT)))
			return 0;
		ev->id = (uint64_t)num[K_ID];
		ev->size = (uint64_t)num[K_SIZE];
		if (HAS(K_ADDR)) {
			ev->addr = (uint64_t)num[K_ADDR];
			ev->flags |= TRACE_HAS_ADDR;
		}
		if (HAS(K_AT)) {
			((char *)str[K_AT])[slen[K_AT]] = '\0';
			ev->at = str[K_AT];
		}
		break;
	case TRACE_FREE:
		if (!NUM(K_ID) || num[K_ID] < 0)
			return 0;
		ev->id = (uint64_t)num[K_ID];
		break;
	case TRACE_MARK:
		if (HAS(K_LABEL) && !STR(K_LABEL))
			return 0;
		ev->label = "";
		if (HAS(K_LABEL)) {
			((char *)str[K_LABEL])[slen[K_LABEL]] = '\0';
			ev->label = str[K_LABEL];
		}
		break;
	case TRACE_SEGMENT_ALLOC:
	case TRACE_SEGMENT_FREE:
	case TRACE_SEGMENT_MAP:
	case TRACE_SEGMENT_UNMAP:
		if (!NUM(K_ADDR) || !NUM(K_SIZE) || num[K_ADDR] < 0 || num[K_SIZE] < 0 ||
		    num[K_SIZE] > TRACE_SIZE_MAX)
			return 0;
		ev->addr = (uint64_t)num[K_ADDR];
		ev->size = (uint64_t)num[K_SIZE];
		ev->flags |= TRACE_HAS_ADDR;
		break;
	case TRACE_OOM:
		if (HAS(K_ID) || HAS(K_AT))
			return 0;	/* a failed request: trace_event_from_json reads it */
		if (HAS(K_SIZE)) {
			if (!NUM(K_SIZE) || num[K_SIZE] < 0 || num[K_SIZE] > TRACE_SIZE_MAX)
				return 0;
			ev->size = (uint64_t)num[K_SIZE];
		}
		break;
	default:
		break;
	}
	return 1;
#undef NUM
#undef STR
#undef HAS
}

/* canonical() first: the lines convert and the recorders write */
int
trace_event_scan(char *line, struct trace_event *ev)
{
	return canonical(skip_ws(line, 1), ev, 1, NULL) || scan(line, ev, 1, NULL);
}

int
trace_event_scan_line(char *p, struct trace_event *ev, char **end)
{
	return canonical(skip_ws(p, 0), ev, 0, end) || scan(p, ev, 0, end);
}
