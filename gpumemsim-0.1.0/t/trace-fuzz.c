/*
 * trace-fuzz.c - the JSON and JSON Lines readers (plain and gzip) never
 * crash, hang or answer silently wrong on damaged input: a small valid trace
 * is cut at every byte and has bytes flipped at random (a fixed seed, so a
 * failure reproduces), and absurd lengths, counts and values are fed in.
 * The same for the PyTorch snapshot reader (two fixture snapshots made on the
 * H200: protocol 5, and protocol 2 from the C++ path) and the RMM log reader.
 * Every outcome must be a clean success or a bad-trace error whose message
 * starts with the file name.  Run under the sanitizers in CI.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/gms.h"
#include "t/tap.h"
#include "t/tfile.h"

static char *
make_trace(int lines)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);
	int i;

#define PUT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__))
	PUT("{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"fuzz\","
	    "\"device\":{\"total_bytes\":85899345920},\"observed\":{\"peak_reserved\":23068672}%s",
	    lines ? "}\n" : ",\"events\":[");
	for (i = 1; i <= 24; i++) {
		if (i % 8 == 1)
			PUT("{\"op\":\"mark\",\"label\":\"iter %d\"}%s", i / 8, lines ? "\n" : ",");
		if (i == 1)
			PUT("{\"op\":\"segment_alloc\",\"addr\":140211889635328,\"size\":2097152}%s",
			    lines ? "\n" : ",");
		PUT("{\"op\":\"alloc\",\"id\":%d,\"size\":%d,\"stream\":%d,\"at\":\"f.py:%d g\","
		    "\"t_us\":%d}%s", i, (i * 7919) % 3000000 + 1, i % 2, i, 1000 + i,
		    lines ? "\n" : ",");
		if (i % 3 == 0)
			PUT("{\"op\":\"free\",\"id\":%d}%s", i - 1, lines ? "\n" : ",");
	}
	PUT("{\"op\":\"free\",\"id\":24}%s", lines ? "\n" : "]}\n");
	return s;
#undef PUT
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

/*
 * One damaged input: 1 if it was handled cleanly, else 0 with a diagnostic.
 * must_fail: a success would be a silently wrong answer.
 */
static int
handled_as(const char *what, const char *suffix, const char *data, size_t len, int gz,
    int must_fail)
{
	char *path = tfile_write(suffix, data, len, gz), *cause = NULL;
	int err = tfile_replay(path, &cause);
	int good = (err == 0 && !must_fail) ||
	    (err == GMS_ETRACE && cause != NULL && strncmp(cause, path, strlen(path)) == 0);

	if (!good)
		diag("%s: code %d, message: %s", what, err, cause ? cause : "(none)");
	free(cause);
	unlink(path);
	free(path);
	return good;
}

static int
handled(const char *what, const char *suffix, const char *data, size_t len, int gz)
{
	return handled_as(what, suffix, data, len, gz, 0);
}

/*
 * Cut data at every byte.  A document cut anywhere is broken; a JSON Lines
 * file cut at a line's end is a valid shorter trace (FORMAT.md says so).
 */
static void
truncations(const char *name, const char *suffix, const char *data, int gz, int document)
{
	size_t len = strlen(data), cut, bad = 0, body = len;
	char what[64];

	while (body > 0 && data[body - 1] == '\n')
		body--;		/* cutting only the final newline loses nothing */
	for (cut = 0; cut < body; cut++) {
		snprintf(what, sizeof(what), "%s cut at %zu", name, cut);
		bad += !handled_as(what, suffix, data, cut, gz, document);
	}
	is_u64(bad, 0, "%s: every one of %zu truncations is %s", name, body, document ?
	    "refused with a located error" : "read or refused with a located error");
}

static void
flips(const char *name, const char *suffix, const char *data, int gz, int rounds)
{
	size_t len = strlen(data), bad = 0;
	char *copy = malloc(len + 1), what[64];
	int i, k;

	for (i = 0; i < rounds; i++) {
		memcpy(copy, data, len + 1);
		for (k = 0; k < 1 + i % 4; k++)
			copy[next_rand() % len] = (char)(next_rand() & 0xff);
		snprintf(what, sizeof(what), "%s flip round %d", name, i);
		bad += !handled(what, suffix, copy, len, gz);
	}
	is_u64(bad, 0, "%s: %d rounds of random byte flips handled", name, rounds);
	free(copy);
}

/* A gzip stream cut short: the reader must notice, not take the prefix. */
static void
truncated_gzip(const char *data)
{
	char *path = tfile_write(".jsonl.gz", data, strlen(data), 1), *cause = NULL;
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf), f), cut, bad = 0;

	fclose(f);
	for (cut = 10; cut + 8 < n; cut += 7) {
		int err;

		f = fopen(path, "wb");
		fwrite(buf, 1, cut, f);
		fclose(f);
		err = tfile_replay(path, &cause);
		if (err != GMS_ETRACE)
			bad++;
		free(cause);
	}
	is_u64(bad, 0, "gzip cut short at every 7th byte: always an error, never a silent prefix");
	unlink(path);
	free(path);
}

static void
absurd(void)
{
	static const char *const cases[] = {
		"{\"format\":\"gpumemsim-trace\",\"version\":1}\n{\"op\":\"alloc\",\"id\":1,\"size\":1e19}\n",
		"{\"format\":\"gpumemsim-trace\",\"version\":1}\n{\"op\":\"alloc\",\"id\":1e300,\"size\":1}\n",
		"{\"format\":\"gpumemsim-trace\",\"version\":1}\n{\"op\":\"alloc\",\"id\":-1,\"size\":1}\n",
		"{\"format\":\"gpumemsim-trace\",\"version\":1}\n{\"op\":\"alloc\",\"id\":1,\"size\":1125899906842624}\n"
		"{\"op\":\"alloc\",\"id\":2,\"size\":1125899906842624}\n{\"op\":\"alloc\",\"id\":3,\"size\":1125899906842624}\n"
		"{\"op\":\"alloc\",\"id\":4,\"size\":1125899906842624}\n{\"op\":\"alloc\",\"id\":5,\"size\":1125899906842624}\n",
		"{\"format\":\"gpumemsim-trace\",\"version\":1e300}\n",
		"{\"format\":\"gpumemsim-trace\",\"version\":1,\"device\":{\"total_bytes\":-3}}\n",
		"{\"format\":\"gpumemsim-trace\",\"version\":1,\"device\":[]}\n",
	};
	size_t i, bad = 0, n;
	char *deep, *huge;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bad += !handled("absurd value", ".jsonl", cases[i], strlen(cases[i]), 0);
	is_u64(bad, 0, "absurd sizes, ids, versions and header types are handled");

	/* nesting far past cJSON's limit */
	n = 200000;
	deep = malloc(2 * n + 64);
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	ok(handled("deep nesting", ".json", deep, 2 * n, 0), "200000 levels of nesting refused");
	free(deep);

	/* a 20 MiB line without a newline, and a 2 MiB label */
	n = 20u << 20;
	huge = malloc(n + 256);
	strcpy(huge, "{\"format\":\"gpumemsim-trace\",\"version\":1}\n{\"op\":\"mark\",\"label\":\"");
	memset(huge + strlen(huge), 'x', n - 200);
	huge[n - 100] = '\0';
	ok(handled("huge line", ".jsonl", huge, strlen(huge), 0), "a 20 MiB line is refused");
	strcpy(huge + (2u << 20), "\"}\n");
	ok(handled("huge label", ".jsonl", huge, strlen(huge), 0), "a 2 MiB label is read");
	free(huge);
}

static char *
load(const char *rel, size_t *len)
{
	char *path = tap_srcpath(rel), *buf;
	FILE *f = fopen(path, "rb");
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	buf[n] = '\0';
	fclose(f);
	free(path);
	*len = (size_t)n;
	return buf;
}

/* Binary inputs: cut at every byte (every proper prefix of a pickle is broken). */
static void
cut_binary(const char *name, const char *suffix, const char *data, size_t len, int must_fail)
{
	size_t cut, bad = 0;
	char what[64];

	for (cut = 0; cut < len; cut++) {
		snprintf(what, sizeof(what), "%s cut at %zu", name, cut);
		bad += !handled_as(what, suffix, data, cut, 0, must_fail);
	}
	is_u64(bad, 0, "%s: every one of %zu truncations is %s", name, len,
	    must_fail ? "refused with a located error" : "read or refused with a located error");
}

static void
flip_binary(const char *name, const char *suffix, const char *data, size_t len, int rounds)
{
	char *copy = malloc(len), what[64];
	size_t bad = 0;
	int i, k;

	for (i = 0; i < rounds; i++) {
		memcpy(copy, data, len);
		for (k = 0; k < 1 + i % 4; k++)
			copy[next_rand() % len] = (char)(next_rand() & 0xff);
		snprintf(what, sizeof(what), "%s flip round %d", name, i);
		bad += !handled(what, suffix, copy, len, 0);
	}
	is_u64(bad, 0, "%s: %d rounds of random byte flips handled", name, rounds);
	free(copy);
}

static void
absurd_pickles(void)
{
	static const struct {
		const char *what;
		const char *data;
		size_t len;
	} cases[] = {
#define P(what, bytes) { what, bytes, sizeof(bytes) - 1 }
		P("a 4 GiB string", "\x80\x04X\xff\xff\xff\xff"),
		P("a 2^63-byte frame", "\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\x7f}."),
		P("a 255-byte integer", "\x80\x04\x8a\xff"),
		P("a memo get out of range", "\x80\x04j\xff\xff\xff\xff."),
		P("a memo put far away", "\x80\x02}r\xff\xff\xff\x7f."),
		P("GLOBAL", "\x80\x02" "c__builtin__\nset\n."),
		P("REDUCE", "\x80\x04R."),
		P("protocol 9", "\x80\x09}."),
		P("a list at the top", "\x80\x04]."),
		P("no device_traces", "\x80\x04}\x8c\x08segments]s."),
		P("device_traces empty", "\x80\x04}\x8c\x0d" "device_traces]s."),
		P("an entry that is an int", "\x80\x04}\x8c\x0d" "device_traces]]K\x01" "aas."),
		P("an entry without action",
		    "\x80\x04}\x8c\x0d" "device_traces]]}\x8c\x04" "addrK\x01saas."),
		P("an alloc with a string size",
		    "\x80\x04}\x8c\x0d" "device_traces]]}(\x8c\x06" "action\x8c\x05" "alloc\x8c\x04" "addr"
		    "K\x01\x8c\x04size\x8c\x01xuaas."),
		P("a negative address",
		    "\x80\x04}\x8c\x0d" "device_traces]]}(\x8c\x06" "action\x8c\x05" "alloc\x8c\x04" "addr"
		    "J\xff\xff\xff\xff\x8c\x04sizeK\x01uaas."),
		P("SETITEMS on a list", "\x80\x04](K\x01K\x02u."),
		P("APPENDS without a mark", "\x80\x04]K\x01" "e."),
		P("STOP on an empty stack", "\x80\x04."),
		P("a tuple from nothing", "\x80\x04\x87."),
#undef P
	};
	size_t i, bad = 0, n = 3u << 20;
	char *deep;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (!handled_as(cases[i].what, ".pickle", cases[i].data, cases[i].len, 0, 1)) {
			diag("absurd pickle: %s", cases[i].what);
			bad++;
		}
	is_u64(bad, 0, "absurd pickles (huge lengths, far memo indices, opcodes outside the "
	    "subset, wrong shapes) are refused with a located error");
	/* three million MARKs: deeper than any snapshot */
	deep = malloc(n + 3);
	memcpy(deep, "\x80\x04", 2);
	memset(deep + 2, '(', n);
	deep[n + 2] = '.';
	ok(handled_as("deep pickle", ".pickle", deep, n + 3, 0, 1), "3 million nested marks refused");
	free(deep);
}

int
main(void)
{
	size_t plen, clen, rlen;
	char *proto5 = load("t/data/snapshots/proto5.pickle", &plen);
	char *cpp = load("t/data/snapshots/cpp-path.pickle", &clen);
	char *rmm = load("t/data/rmm-log.csv", &rlen);
	char *doc = make_trace(0), *lines = make_trace(1);

	ok(handled("intact document", ".json", doc, strlen(doc), 0) &&
	    handled("intact lines", ".jsonl", lines, strlen(lines), 0), "the intact traces are valid");
	truncations("json", ".json", doc, 0, 1);
	truncations("jsonl", ".jsonl", lines, 0, 0);
	truncations("json.gz", ".json.gz", doc, 1, 1);
	truncations("jsonl by content", ".trace", lines, 0, 0);
	flips("json", ".json", doc, 0, 1500);
	flips("jsonl", ".jsonl", lines, 0, 1500);
	flips("jsonl.gz", ".jsonl.gz", lines, 1, 300);
	truncated_gzip(lines);
	absurd();
	ok(handled_as("intact pickle", ".pickle", proto5, plen, 0, 0) &&
	    handled_as("intact C++ pickle", ".pickle", cpp, clen, 0, 0) &&
	    handled_as("intact RMM log", ".csv", rmm, rlen, 0, 0), "the intact fixtures are valid");
	cut_binary("pickle (protocol 5)", ".pickle", proto5, plen, 1);
	cut_binary("pickle (protocol 2, C++ path)", ".pickle", cpp, clen, 1);
	cut_binary("pickle by content", ".bin", proto5, plen, 1);
	cut_binary("RMM log", ".csv", rmm, rlen, 0);
	flip_binary("pickle (protocol 5)", ".pickle", proto5, plen, 1500);
	flip_binary("pickle (protocol 2, C++ path)", ".pickle", cpp, clen, 1500);
	flip_binary("RMM log", ".csv", rmm, rlen, 1500);
	absurd_pickles();
	free(proto5);
	free(cpp);
	free(rmm);
	free(doc);
	free(lines);
	return tap_done();
}
