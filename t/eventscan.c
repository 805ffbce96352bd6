/*
 * eventscan.c - the fast event reader (traces/eventscan.c) against the
 * cJSON path it stands in for: on every line it reads, the cJSON path must
 * read the same event; on the common lines it must read at all (or the
 * speed is lost); and across a hundred thousand mutations of real lines
 * (bytes changed, dropped, doubled) it never reads one differently.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "t/tap.h"
#include "traces/reader.h"

/* Does the fast path agree with the cJSON path on line?  1 read, 0 left, -1 wrong. */
static int
agree(const char *line)
{
	struct trace_event fast, slow;
	char *copy = strdup(line), *cause = NULL;
	cJSON *o;
	int got, rc = 0;

	got = trace_event_scan(copy, &fast);
	if (got) {
		o = cJSON_Parse(line);
		if (o == NULL || trace_event_from_json(o, &slow, &cause) < 0 ||
		    !trace_event_equal(&fast, &slow))
			rc = -1;
		else
			rc = 1;
		free(cause);
		cJSON_Delete(o);
	}
	free(copy);
	return rc;
}

static const char *const common[] = {
	"{\"op\":\"alloc\",\"id\":1,\"size\":1048576,\"stream\":0}",
	"{\"op\":\"alloc\",\"id\":7,\"size\":37632,\"stream\":0,\"at\":\"conv.py:548 _conv_forward\"}",
	"{\"op\":\"alloc\",\"id\":7,\"size\":512,\"addr\":139637976727552,\"t_us\":1700000000000000}",
	"{\"op\":\"free\",\"id\":1}",
	"{\"op\":\"free\",\"id\":1,\"t_us\":-5}",
	"{\"op\":\"free\",\"id\":9007199254740991}",
	"{ \"op\" : \"mark\" , \"label\" : \"iteration 2\" }",
	"{\"op\":\"mark\"}",
	"{\"op\":\"segment_alloc\",\"addr\":139637976727552,\"size\":2097152,\"stream\":3}",
	"{\"op\":\"segment_unmap\",\"addr\":0,\"size\":20971520}",
	"{\"op\":\"oom\",\"size\":12845056}",
	"{\"op\":\"oom\"}",
	"{\"op\":\"empty_cache\"}",
	"\t{\"op\":\"free\",\"id\":999999999999999}\t",
	"{\n\t\"op\":\t\"alloc\",\n\t\"id\":\t3,\n\t\"size\":\t4096\n}",
};

/*
 * Read in place, as the JSON Lines reader does: line, a newline, and the next
 * line in one buffer.  1: read, alike trace_event_scan on the line alone, and
 * ended at that newline; 0: left to the line path; -1: wrong.
 */
static int
agree_in_place(const char *line, const char *after)
{
	size_t n = strlen(line);
	/* padded as the reader pads its buffer */
	char *buf = calloc(1, n + strlen(after) + 2 + TRACE_SCAN_PAD), *alone = strdup(line);
	char *end = NULL;
	struct trace_event inplace, whole;
	int got, rc;

	memcpy(buf, line, n);
	buf[n] = after[0] == '\0' ? '\0' : '\n';
	strcpy(buf + n + 1, after[0] == '\0' ? "" : after);
	got = trace_event_scan_line(buf, &inplace, &end);
	if (!got)
		rc = 0;
	else
		rc = end == buf + n && strchr(line, '\n') == NULL &&
		    trace_event_scan(alone, &whole) && trace_event_equal(&inplace, &whole) ? 1 : -1;
	free(buf);
	free(alone);
	return rc;
}

/*
 * Numbers of every length (1 to 20 digits, of four patterns, the last 2^64
 * + 5 at 20, which wraps to 5 in 64 bits) in id, stream (negated) and t_us,
 * read in place: the value strtoll gives, or left to cJSON above 2^53 - 1
 * or past 16 digits.  Returns how many went wrong.
 */
static int
numbers_in_place(void)
{
	static const char *const pattern[] = { "12345678901234567890", "99999999999999999999",
	    "10000000000000000000", "18446744073709551621" };
	char num[32], text[160], *buf, *end;
	struct trace_event ev;
	size_t i, d;
	int wrong = 0;

	for (i = 0; i < 4; i++)
		for (d = 1; d <= 20; d++) {
			long long v;
			int fits, got, len;

			memcpy(num, pattern[i], d);
			num[d] = '\0';
			v = strtoll(num, NULL, 10);
			fits = d <= 16 && v <= (1LL << 53) - 1;
			len = snprintf(text, sizeof(text), "{\"op\":\"alloc\",\"id\":%s,\"size\":5,"
			    "\"stream\":-%s,\"t_us\":%s}\n", num, num, num);
			/* padded as the reader pads; the number right before the pad too */
			buf = calloc(1, (size_t)len + 1 + TRACE_SCAN_PAD);
			memcpy(buf, text, (size_t)len);
			got = trace_event_scan_line(buf, &ev, &end);
			if (got != fits || (got && (ev.id != (uint64_t)v || ev.stream != -v ||
			    ev.t_us != v || ev.size != 5 || *end != '\n'))) {
				diag("in place, %s: read %d, id %llu", num, got,
				    (unsigned long long)ev.id);
				wrong++;
			}
			free(buf);
		}
	return wrong;
}

/* Lines it must leave to cJSON (which reads them, or refuses them). */
static const char *const unusual[] = {
	"{\"op\":\"alloc\",\"id\":1.0,\"size\":5}",
	"{\"op\":\"alloc\",\"id\":1,\"size\":5e3}",
	"{\"op\":\"alloc\",\"id\":1,\"size\":5,\"at\":\"a\\\"b\"}",
	"{\"op\":\"alloc\",\"id\":1,\"size\":5,\"at\":\"\\u0000\"}",
	"{\"op\":\"alloc\",\"id\":1,\"id\":2,\"size\":5}",
	"{\"op\":\"alloc\",\"id\":1,\"size\":5,\"extra\":[1,2]}",
	"{\"op\":\"alloc\",\"id\":1,\"size\":5,\"at\":null}",
	"{\"op\":\"alloc\",\"id\":-1,\"size\":5}",
	"{\"op\":\"alloc\",\"id\":1,\"size\":1125899906842625}",
	"{\"op\":\"alloc\",\"id\":9007199254740992,\"size\":5}",
	"{\"op\":\"alloc\",\"id\":9007199254740993,\"size\":5}",
	"{\"op\":\"alloc\",\"id\":12345678901234567,\"size\":5}",
	"{\"op\":\"alloc\",\"id\":01,\"size\":5}",
	"{\"op\":\"alloc\",\"size\":5}",
	"{\"op\":\"grow\",\"id\":1,\"size\":5}",
	"{\"op\":\"free\",\"id\":1} x",
	"{\"op\":\"free\",\"id\":1",
	"{\"op\":\"free\",\"id\":true}",
	"[\"op\",\"free\"]",
	"{}",
	"",
};

int
main(void)
{
	size_t i, j, n, bad = 0, read = 0;
	unsigned seed = 12345;
	char line[512];

	for (i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		ok(agree(common[i]) == 1, "read, as cJSON reads it: %s", common[i]);
	for (i = 0; i < sizeof(unusual) / sizeof(unusual[0]); i++)
		ok(agree(unusual[i]) == 0, "left to cJSON: %s", unusual[i]);

	/* In place: every common line on one line, followed by the next. */
	for (i = 0, n = 0; i < sizeof(common) / sizeof(common[0]); i++)
		n += strchr(common[i], '\n') == NULL && agree_in_place(common[i], "{\"op\":\"free\",\"id\":2}") == 1;
	is_u64(n, sizeof(common) / sizeof(common[0]) - 1, "in place: every common line of one line "
	    "read alike, ending at its newline");
	ok(agree_in_place(common[sizeof(common) / sizeof(common[0]) - 1], "") == 0,
	    "in place: an object over several lines is left to the line path (JSON Lines refuses it)");
	ok(agree_in_place("{\"op\":\"free\",\"id\":1}", "") == 0,
	    "in place: an object the buffer ends in (no newline yet) is left to the line path");
	ok(agree_in_place("{\"op\":\"free\",\"id\":1}\r", "x") == 1,
	    "in place: a CRLF line ends at its newline");
	ok(agree_in_place("{\"op\":\"free\",\"id\":1} x", "x") == 0,
	    "in place: data after the object is left to the line path");

	is_u64((uint64_t)numbers_in_place(), 0, "in place, a word at a time: numbers of 1 to 20 digits read "
	    "as strtoll reads them, those above 2^53 - 1 or 16 digits left to cJSON");

	/* Mutations of the common lines: whatever it reads, cJSON reads alike. */
	for (i = 0; i < 100000; i++) {
		const char *src = common[i % (sizeof(common) / sizeof(common[0]))];

		n = strlen(src);
		memcpy(line, src, n + 1);
		for (j = 0; j < 1 + i % 3; j++) {
			size_t at;

			seed = seed * 1103515245 + 12345;
			at = (seed >> 8) % (n ? n : 1);
			switch ((seed >> 4) % 4) {
			case 0:		/* a byte changed, often to one that matters */
				line[at] = "\"{}:,-0123456789. \\\\n"[(seed >> 16) % 20];
				break;
			case 1:		/* a byte dropped */
				memmove(line + at, line + at + 1, n - at);
				n--;
				break;
			case 2:		/* a byte doubled */
				if (n + 2 < sizeof(line)) {
					memmove(line + at + 1, line + at, n - at + 1);
					n++;
				}
				break;
			default:	/* any byte */
				line[at] = (char)(1 + (seed >> 16) % 255);
				break;
			}
		}
		if (strchr(line, '\n') == NULL && agree_in_place(line, "{}") != (agree(line) != 0)) {
			if (bad++ < 5)
				diag("read differently in place: %s", line);
		}
		switch (agree(line)) {
		case -1:
			if (bad++ < 5)
				diag("read differently: %s", line);
			break;
		case 1:
			read++;
			break;
		}
	}
	is_u64(bad, 0, "100000 mutated lines: none read differently from cJSON (%zu read)", read);
	ok(read > 1000, "and many of them still read on the fast path (%zu)", read);
	return tap_done();
}
