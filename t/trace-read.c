/*
 * trace-read.c - the native readers: the same events read from a .json
 * document, a .jsonl stream and their .gz forms; recognition by content when
 * the extension says nothing; and the located error for each kind of bad
 * input (the CLI test checks the exit codes).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/gms.h"
#include "t/tap.h"
#include "t/tfile.h"
#include "traces/trace.h"

static const char doc[] =
    "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"tiny\","
    "\"device\":{\"name\":\"H200\",\"total_bytes\":150109880320},"
    "\"observed\":{\"peak_reserved\":2097152},\"events\":["
    "{\"op\":\"mark\",\"label\":\"step 1\"},"
    "{\"op\":\"segment_alloc\",\"addr\":140211889635328,\"size\":2097152,\"stream\":0},"
    "{\"op\":\"alloc\",\"id\":1,\"size\":37632,\"stream\":0,\"addr\":140211889635328,"
    "\"at\":\"conv.py:548 _conv_forward\",\"t_us\":1795962822256848},"
    "{\"op\":\"alloc\",\"id\":2,\"size\":0},"
    "{\"op\":\"free\",\"id\":1},"
    "{\"op\":\"free\",\"id\":2,\"t_us\":-5}]}\n";

static const char lines[] =
    "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"tiny\","
    "\"device\":{\"name\":\"H200\",\"total_bytes\":150109880320},"
    "\"observed\":{\"peak_reserved\":2097152}}\n"
    "{\"op\":\"mark\",\"label\":\"step 1\"}\n"
    "{\"op\":\"segment_alloc\",\"addr\":140211889635328,\"size\":2097152,\"stream\":0}\n"
    "\n"
    "{\"op\":\"alloc\",\"id\":1,\"size\":37632,\"stream\":0,\"addr\":140211889635328,"
    "\"at\":\"conv.py:548 _conv_forward\",\"t_us\":1795962822256848}\r\n"
    "{\"op\":\"alloc\",\"id\":2,\"size\":0}\n"
    "{\"op\":\"free\",\"id\":1}\n"
    "{\"op\":\"free\",\"id\":2,\"t_us\":-5}";

static void
read_all(const char *what, const char *suffix, const char *data, int gz, const char *format)
{
	char *path = tfile_write(suffix, data, strlen(data), gz), *cause = NULL;
	struct trace_reader *r;
	struct trace_event ev;
	int rc, n = 0;

	rc = trace_open(path, &r, &cause);
	if (!ok(rc == 0, "%s: opens%s%s", what, cause ? ": " : "", cause ? cause : "")) {
		unlink(path);
		free(path);
		free(cause);
		return;
	}
	is_str(trace_header(r)->name, "tiny", "%s: name", what);
	is_str(trace_header(r)->format, format, "%s: format recognised", what);
	is_u64(trace_header(r)->device_total, 150109880320ULL, "%s: device total", what);
	ok(cJSON_IsObject(trace_header(r)->observed), "%s: observed kept", what);

	rc = trace_next(r, &ev, &cause);
	ok(rc == 1 && ev.op == TRACE_MARK && strcmp(ev.label, "step 1") == 0, "%s: mark", what);
	rc = trace_next(r, &ev, &cause);
	ok(rc == 1 && ev.op == TRACE_SEGMENT_ALLOC && ev.size == 2097152 &&
	    ev.addr == 140211889635328ULL, "%s: segment_alloc", what);
	rc = trace_next(r, &ev, &cause);
	ok(rc == 1 && ev.op == TRACE_ALLOC && ev.id == 1 && ev.size == 37632 &&
	    ev.stream == 0 && (ev.flags & TRACE_HAS_ADDR) && ev.addr == 140211889635328ULL &&
	    ev.t_us == 1795962822256848LL && ev.at && strcmp(ev.at, "conv.py:548 _conv_forward") == 0,
	    "%s: alloc with every field", what);
	is_u64(trace_index(r), 2, "%s: its index counts every event", what);
	rc = trace_next(r, &ev, &cause);
	ok(rc == 1 && ev.op == TRACE_ALLOC && ev.size == 0 && ev.at == NULL &&
	    !(ev.flags & TRACE_HAS_ADDR), "%s: size-0 alloc without optional fields", what);
	rc = trace_next(r, &ev, &cause);
	ok(rc == 1 && ev.op == TRACE_FREE && ev.id == 1, "%s: free", what);
	rc = trace_next(r, &ev, &cause);
	ok(rc == 1 && ev.op == TRACE_FREE && ev.id == 2 && ev.t_us == -5, "%s: negative t_us "
	    "(any epoch) is fine", what);
	while ((rc = trace_next(r, &ev, &cause)) == 1)
		n++;
	ok(rc == 0 && n == 0, "%s: ends cleanly", what);
	trace_close(r);
	unlink(path);
	free(path);
}

/* Bad inputs: each must fail with a message naming the place and the fault. */
static const struct {
	const char *what, *suffix, *data, *where, *msg;
} bad[] = {
	{ "empty file", ".json", "", ":1:1", "empty file" },
	{ "garbage", ".json", "hello", ":1:1", "invalid JSON" },
	{ "truncated document", ".json",
	  "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":[{\"op\":\"alloc\",\"id\":1,",
	  ":1:", "truncated JSON" },
	{ "not a trace", ".json", "{\"hello\":1}", "", "\"format\" must be \"gpumemsim-trace\"" },
	{ "future version", ".json", "{\"format\":\"gpumemsim-trace\",\"version\":2,\"events\":[]}",
	  "", "unsupported trace version 2" },
	{ "events not an array", ".json",
	  "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":{}}", "", "not an array" },
	{ "unknown op", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alocate\",\"id\":1}\n", ":2", "unknown op 'alocate'" },
	{ "alloc without size", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alloc\",\"id\":1}\n{\"op\":\"free\",\"id\":1}\n", ":2", "alloc without \"size\"" },
	{ "negative size", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alloc\",\"id\":1,\"size\":-4}\n", ":2", "alloc \"size\" is negative" },
	{ "fractional size", ".json", "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":["
	  "{\"op\":\"alloc\",\"id\":1,\"size\":10.5}]}", ": event 0", "not an integer" },
	{ "size as a string", ".json", "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":["
	  "{\"op\":\"mark\"},{\"op\":\"alloc\",\"id\":1,\"size\":\"10\"}]}", ": event 1",
	  "alloc \"size\" is not a number" },
	{ "bad header value, located", ".json", "{\"format\":\"gpumemsim-trace\",\"version\":1,\n"
	  " \"source\":{\"a\":\n   tru},\"events\":[]}", ":3:4", "invalid JSON" },
	{ "bad event, located", ".json", "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":[\n"
	  "{\"op\":\"mark\"},\n  {\"op\": tru}]}", ": event 1", "invalid JSON at line 3, column 10" },
	{ "size of -1", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alloc\",\"id\":1,\"size\":-1}\n", ":2", "alloc \"size\" is negative" },
	{ "absurd size", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alloc\",\"id\":1,\"size\":1e300}\n", ":2", "out of range" },
	{ "event not an object", ".json", "{\"format\":\"gpumemsim-trace\",\"version\":1,"
	  "\"events\":[42]}", ": event 0", "not a JSON object" },
	{ "op not a string", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":1}\n", ":2", "\"op\" is not a string" },
	{ "truncated line", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alloc\",\"id\":1,\"size\":5}\n{\"op\":\"free\",\"i", ":3", "truncated JSON" },
	{ "two objects on a line", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"mark\"} {\"op\":\"mark\"}\n", ":2", "one object per line" },
	{ "stream not an integer", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alloc\",\"id\":1,\"size\":5,\"stream\":true}\n", ":2", "\"stream\" is not a number" },
	{ "duplicate live id", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alloc\",\"id\":7,\"size\":5}\n{\"op\":\"alloc\",\"id\":7,\"size\":5}\n", ":3",
	  "alloc of id 7, which is already live (allocated at event 0" },
	{ "free of unknown id", ".json", "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":["
	  "{\"op\":\"alloc\",\"id\":1,\"size\":5},{\"op\":\"free\",\"id\":77}]}", ": event 1",
	  "free of unknown id 77" },
	{ "double free", ".jsonl", "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
	  "{\"op\":\"alloc\",\"id\":1,\"size\":5}\n{\"op\":\"free\",\"id\":1}\n{\"op\":\"free\",\"id\":1}\n",
	  ":4", "free of unknown id 1" },
	{ "document with trailing data", ".json",
	  "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":[]} []", ":1:", "unexpected data" },
	{ "a JSONL header with events", ".jsonl",
	  "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":[]}\n", ":1", "holds no \"events\"" },
	{ "cut pickle", ".bin", "\x80\x04\x95", ": pickle byte 2", "truncated pickle" },
	{ "neither", ".bin", "hello", "", "not a trace gpumemsim can read" },
};

static void
errors(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *path = tfile_write(bad[i].suffix, bad[i].data, strlen(bad[i].data), 0);
		char *cause = NULL, want[512];
		int err = tfile_replay(path, &cause);

		ok(err == GMS_ETRACE, "%s: a bad-trace error (%d)", bad[i].what, err);
		snprintf(want, sizeof(want), "%s%s", path, bad[i].where);
		ok(cause != NULL && strstr(cause, bad[i].msg) != NULL &&
		    strncmp(cause, want, strlen(want)) == 0,
		    "%s: located message: %s", bad[i].what, cause ? cause : "(none)");
		free(cause);
		unlink(path);
		free(path);
	}
}

static void
unknown_frees_warned_mid_run(void)
{
	static const char mid[] =
	    "{\"format\":\"gpumemsim-trace\",\"version\":1,\"starts_mid_run\":true}\n"
	    "{\"op\":\"free\",\"id\":3}\n{\"op\":\"alloc\",\"id\":1,\"size\":5}\n";
	char *path = tfile_write(".jsonl", mid, strlen(mid), 0), *cause = NULL;
	struct trace_reader *r;

	int rc = trace_open(path, &r, &cause);

	ok(rc == 0 && trace_header(r)->starts_mid_run, "starts_mid_run is read from the header");
	trace_close(r);
	unlink(path);
	free(path);
	free(cause);
}

/*
 * The document's fast paths: events taken whole up to their first '}' (read
 * and, while looking for a header that follows "events", skipped), beside
 * events whose strings hold braces, brackets or escapes, which are not flat
 * and must still read right; thousands of them, so some straddle the read
 * buffer.  Event i is an alloc of id i and size 8i whose "at" names i and
 * holds the character of its kind.
 */
static const char *const tricky[] = { "plain", "a}b", "a]b", "a{b", "}", "a\\\"}b" };
static const char *const tricky_read[] = { "plain", "a}b", "a]b", "a{b", "}", "a\"}b" };

static void
flat_events(int gz)
{
	const size_t n = 12000;
	size_t len = 0, cap = 64, i, got = 0, right = 0;
	char *data = gms_malloc(cap), *path, *cause = NULL, want[64];
	struct trace_reader *r;
	struct trace_event ev;
	int rc;

#define ADD(...) do { \
		int k_ = snprintf(data + len, cap - len, __VA_ARGS__); \
		while (len + (size_t)k_ + 1 > cap) { \
			data = gms_realloc(data, cap *= 2); \
			k_ = snprintf(data + len, cap - len, __VA_ARGS__); \
		} \
		len += (size_t)k_; \
	} while (0)
	ADD("{\"events\":[");
	for (i = 0; i < n; i++)
		ADD("%s{\"op\":\"alloc\",\"id\":%zu,\"size\":%zu,\"at\":\"%zu %s\"}", i ? "," : "",
		    i, 8 * i, i, tricky[i % 6]);
	ADD("],\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"tiny\"}");
	path = tfile_write(gz ? ".json.gz" : ".json", data, len, gz);
	rc = trace_open(path, &r, &cause);
	ok(rc == 0 && strcmp(trace_header(r)->name, "tiny") == 0,
	    "flat events%s: the header after them is read%s%s", gz ? " (gzip)" : "",
	    cause ? ": " : "", cause ? cause : "");
	if (rc == 0) {
		while ((rc = trace_next(r, &ev, &cause)) == 1) {
			snprintf(want, sizeof(want), "%zu %s", got, tricky_read[got % 6]);
			right += ev.op == TRACE_ALLOC && ev.id == got && ev.size == 8 * got &&
			    ev.at != NULL && strcmp(ev.at, want) == 0;
			got++;
		}
		ok(rc == 0 && got == n && right == n, "flat events%s: all %zu read, %zu right "
		    "(strings with braces, brackets and escapes too)", gz ? " (gzip)" : "", got, right);
		trace_close(r);
	}
	ok(len > 3 * 65536, "flat events: %zu bytes, several read buffers", len);
	free(cause);
	unlink(path);
	free(path);
	free(data);
#undef ADD
}

static void
missing_file(void)
{
	char *cause = NULL;
	struct trace_reader *r;

	int rc = trace_open("/nonexistent/t.json", &r, &cause);

	ok(rc == GMS_EIO && cause &&
	    strcmp(cause, "cannot open trace '/nonexistent/t.json': No such file or directory") == 0,
	    "a missing file is an I/O error: %s", cause ? cause : "(none)");
	free(cause);
}

int
main(void)
{
	read_all("json", ".json", doc, 0, "json");
	read_all("json.gz", ".json.gz", doc, 1, "json.gz");
	read_all("jsonl", ".jsonl", lines, 0, "jsonl");
	read_all("jsonl.gz", ".jsonl.gz", lines, 1, "jsonl.gz");
	read_all("document by content", ".trace", doc, 0, "json");
	read_all("lines by content", ".trace", lines, 0, "jsonl");
	read_all("gzip lines by content", ".trace", lines, 1, "jsonl.gz");
	errors();
	unknown_frees_warned_mid_run();
	missing_file();
	flat_events(0);
	flat_events(1);
	return tap_done();
}
