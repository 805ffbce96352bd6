/*
 * trace-formats.c - the PyTorch snapshot and RMM log readers against what is
 * known independently:
 *  - the shared snapshots (recorded with PyTorch 2.11 on an H200) give
 *    exactly the events of the shared .json samples, `at` included;
 *  - the fixture snapshots made with PyTorch on the H200 (t/data/gen) agree
 *    with what Python's own pickle module read in them (*.facts.json): action
 *    counts, protocols 2 (the C++ path), 4 and 5, the first entry, and for
 *    ring-buffer and late-start snapshots the blocks that had to be seeded;
 *  - hand-written RMM logs give the events worked out by hand;
 *  - the writer prints every kind of event as cJSON prints it, byte for byte;
 *  - a profiler trace's rank (trace_peek_rank) from the real DDP profiles,
 *    and nothing from hand-made files that only look like one.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "sim/gms.h"
#include "t/gtload.h"
#include "t/tap.h"
#include "traces/trace.h"

static struct trace_reader *
open_or_bail(const char *rel, int device)
{
	struct trace_opts opts = { .device = device };
	char *path = tap_srcpath(rel), *cause = NULL;
	struct trace_reader *r;

	if (trace_open_opts(path, &opts, &r, &cause) < 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	free(path);
	return r;
}

/*
 * The shared .json names as a site the first frame outside a shorter list of
 * PyTorch's files than the reader skips.  Where it names a layer (a frame
 * in torch/nn or a package), the reader names the user's line that called
 * it and then that layer ("train.py:79 gpt2_train via linear.py:134
 * forward"); where it names torch/_tensor.py (Tensor.backward) or Module's
 * own calling and moving (module.py), the user's line alone.
 */
struct sites {
	int via, skipped;
};

static int
same_site(const char *a, const char *b, struct sites *k)
{
	size_t la, lb;

	if ((a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0))
		return 1;
	if (a == NULL || b == NULL || strncmp(a, "train.py:", 9) != 0)
		return 0;
	la = strlen(a);
	lb = strlen(b);
	if (la > lb + 5 && strcmp(a + la - lb, b) == 0 && strncmp(a + la - lb - 5, " via ", 5) == 0 &&
	    strstr(a, " via ") == a + la - lb - 5) {
		k->via++;
		return 1;
	}
	if (strncmp(b, "_tensor.py:", 11) == 0 || strncmp(b, "module.py:", 10) == 0) {
		k->skipped++;
		return strstr(a, " via ") == NULL || strncmp(b, "module.py:", 10) == 0;
	}
	return 0;
}

static int
same_event(const struct trace_event *a, const struct trace_event *b, struct sites *skipped)
{
	return a->op == b->op && a->id == b->id && a->size == b->size && a->addr == b->addr &&
	    a->stream == b->stream && (a->flags & TRACE_HAS_TIME) == (b->flags & TRACE_HAS_TIME) &&
	    a->t_us == b->t_us && same_site(a->at, b->at, skipped);
}

/* The shared pickles against the shared .json events. */
static void
shared_pickles(void)
{
	static const char *const names[] = { "resnet50-train-b32", "gpt2-train-varlen-bf16" };
	char rel[256], *json, *cause = NULL, *at_copy;
	struct trace_reader *p, *j;
	struct trace_event a, b;
	struct sites skipped;
	uint64_t n, diff;
	size_t i;
	int ra, rb;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(rel, sizeof(rel), "traces/%s.pickle", names[i]);
		p = open_or_bail(rel, -1);
		json = gt_sample_path(names[i]);
		if (trace_open(json, &j, &cause) < 0) {
			printf("Bail out! %s\n", cause);
			exit(1);
		}
		n = diff = 0;
		skipped = (struct sites){ 0, 0 };
		for (;;) {
			ra = trace_next(p, &a, &cause);
			at_copy = a.at ? gms_strdup(a.at) : NULL;	/* b's read may reuse buffers */
			a.at = at_copy;
			rb = trace_next(j, &b, &cause);
			if (ra != 1 || rb != 1) {
				free(at_copy);
				break;
			}
			if (!same_event(&a, &b, &skipped) && diff++ == 0)
				diag("%s: event %llu differs: %s id %llu size %llu (at %s, the .json's %s)",
				    names[i], (unsigned long long)n, trace_op_name(a.op),
				    (unsigned long long)a.id, (unsigned long long)a.size,
				    a.at ? a.at : "none", b.at ? b.at : "none");
			free(at_copy);
			n++;
		}
		ok(ra == 0 && rb == 0, "%s.pickle: as many events as the .json (%llu)", names[i],
		    (unsigned long long)n);
		is_u64(diff, 0, "%s.pickle: every event equals the .json's: op, id, size, address, "
		    "stream, time and place (the user's frame before the layer the .json names)",
		    names[i]);
		ok(skipped.skipped > 0, "%s.pickle: %d sites in Tensor.backward or Module's calls "
		    "named by the caller's line", names[i], skipped.skipped);
		ok(skipped.via > 0, "%s.pickle: %d sites in a layer named by the user's line via "
		    "the layer", names[i], skipped.via);
		is_str(trace_header(p)->format, "pickle", "%s.pickle: recognised", names[i]);
		is_u64((uint64_t)cJSON_GetObjectItem(trace_header(p)->observed, "peak_reserved")->valuedouble,
		    (uint64_t)cJSON_GetObjectItem(trace_header(j)->observed, "peak_reserved")->valuedouble,
		    "%s.pickle: observed peak reserved, counted from its segments, equals "
		    "memory_stats()'s", names[i]);
		trace_close(p);
		trace_close(j);
		free(json);
	}
}

static void
fixture(const char *name)
{
	char rel[256];
	cJSON *facts, *acts, *it, *first;
	const cJSON *src, *seeded, *sacts;
	struct trace_reader *r;
	struct trace_event ev;
	char *cause = NULL;
	uint64_t want_seeds, got_seeds, allocs = 0;
	int rc;

	snprintf(rel, sizeof(rel), "t/data/snapshots/%s.facts.json", name);
	facts = gt_load(rel);
	snprintf(rel, sizeof(rel), "t/data/snapshots/%s.pickle", name);
	r = open_or_bail(rel, -1);
	src = trace_header(r)->source;
	sacts = cJSON_GetObjectItem(src, "actions");
	acts = cJSON_GetObjectItem(facts, "actions");
	cJSON_ArrayForEach(it, acts)
		is_u64((uint64_t)cJSON_GetObjectItem(sacts, it->string)->valuedouble,
		    (uint64_t)it->valuedouble, "%s: %s entries, as Python read them", name, it->string);
	is_u64((uint64_t)cJSON_GetObjectItem(src, "pickle_protocol")->valuedouble,
	    gt_u64(facts, "protocol"), "%s: pickle protocol %llu", name,
	    (unsigned long long)gt_u64(facts, "protocol"));
	want_seeds = gt_u64(facts, "orphan_frees") + gt_u64(facts, "active_at_end_unseen");
	seeded = cJSON_GetObjectItem(src, "seeded");
	got_seeds = seeded ? (uint64_t)cJSON_GetObjectItem(seeded, "allocs")->valuedouble : 0;
	is_u64(got_seeds, want_seeds, "%s: seeded blocks: %llu freed unrecorded + %llu live "
	    "at the end unrecorded", name, (unsigned long long)gt_u64(facts, "orphan_frees"),
	    (unsigned long long)gt_u64(facts, "active_at_end_unseen"));
	ok(trace_header(r)->starts_mid_run == (want_seeds > 0), "%s: starts_mid_run %s", name,
	    want_seeds > 0 ? "set" : "not set");
	ok((trace_header(r)->observed != NULL) == (want_seeds == 0),
	    "%s: observed numbers only for a complete trace", name);
	/* the first recorded entry, after any seeds */
	first = cJSON_GetObjectItem(facts, "first");
	while ((rc = trace_next(r, &ev, &cause)) == 1) {
		if (ev.op == TRACE_ALLOC)
			allocs++;
		if (allocs > got_seeds || (ev.op != TRACE_ALLOC && ev.op != TRACE_SEGMENT_ALLOC) ||
		    (ev.flags & TRACE_HAS_TIME))
			break;
	}
	if (strcmp(cJSON_GetObjectItem(first, "action")->valuestring, "free_requested") != 0) {
		ok(rc == 1 && (ev.flags & TRACE_HAS_TIME) &&
		    ev.t_us == (int64_t)gt_u64(first, "time_us") &&
		    ev.size == gt_u64(first, "size"), "%s: the first entry's size and time", name);
	}
	trace_close(r);
	cJSON_Delete(facts);
}

static void
devices(void)
{
	struct trace_opts opts = { .device = 1 };
	char *path = tap_srcpath("t/data/snapshots/proto5.pickle"), *cause = NULL;
	struct trace_reader *r;
	int rc = trace_open_opts(path, &opts, &r, &cause);

	ok(rc == GMS_ETRACE && cause && strstr(cause, "no device 1: the snapshot has traces for "
	    "devices 0 to 0") != NULL, "--device beyond the snapshot: %s", cause ? cause : "");
	free(cause);
	free(path);
}

static void
rmm(void)
{
	static const struct {
		enum trace_op op;
		uint64_t id, size;
		int64_t stream, t_us;
	} want[] = {
		/* times of day from 23:59:59.5; the log crosses midnight */
		{ TRACE_ALLOC, 0x7f8a40000000, 1048576, 0, 86399500000 },
		{ TRACE_ALLOC, 0x7f8a40100000, 3000000, 0, 86399750000 },
		{ TRACE_ALLOC, 0x7f8a40400000, 512, 0x5591c8a0, 86399900000 },
		{ TRACE_FREE, 0x7f8a40000000, 0, 0, 86400250000 },
		{ TRACE_OOM, 0, 80000000000, 0, 86400500000 },
		{ TRACE_ALLOC, 0x7f8a40000000, 2097152, 0, 86401000001 },
		{ TRACE_FREE, 0x7f8a40100000, 0, 0, 86402000000 },
		{ TRACE_FREE, 0x7f8a40400000, 0, 0x5591c8a0, 86402500000 },
		{ TRACE_FREE, 0x7f8a40000000, 0, 0, 86403000000 },
	};
	struct trace_reader *r = open_or_bail("t/data/rmm-log.csv", -1);
	struct trace_event ev;
	char *cause = NULL;
	size_t i, bad = 0;

	is_str(trace_header(r)->format, "csv", "rmm: recognised");
	is_str(trace_header(r)->name, "rmm-log", "rmm: named after the file");
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		if (trace_next(r, &ev, &cause) != 1 || ev.op != want[i].op ||
		    (ev.op != TRACE_OOM && ev.id != want[i].id) ||
		    (ev.op != TRACE_FREE && ev.size != want[i].size) ||
		    ev.stream != want[i].stream || ev.t_us != want[i].t_us) {
			diag("rmm: row %zu: %s id %#llx size %llu stream %#llx t %lld", i + 2,
			    trace_op_name(ev.op), (unsigned long long)ev.id, (unsigned long long)ev.size,
			    (unsigned long long)ev.stream, (long long)ev.t_us);
			bad++;
		}
	}
	is_u64(bad, 0, "rmm: every row as worked out by hand (pointers as ids, hex streams, "
	    "times of day across midnight, the failure as an observed oom)");
	ok(trace_next(r, &ev, &cause) == 0, "rmm: then the end");
	trace_close(r);

	r = open_or_bail("t/data/rmm-epoch.csv", -1);
	ok(trace_next(r, &ev, &cause) == 1 && ev.op == TRACE_ALLOC && ev.id == 0x1000 &&
	    ev.size == 4096 && ev.t_us == 1634567890123456LL, "rmm: columns in any order, epoch "
	    "seconds, an extra column ignored");
	ok(trace_next(r, &ev, &cause) == 1 && trace_next(r, &ev, &cause) == 1 &&
	    ev.op == TRACE_FREE && ev.id == 0x1000, "rmm: 'deallocate' is a free");
	trace_close(r);
}

/* The writer's JSON Lines against cJSON_PrintUnformatted of the same events. */
static void
writer(void)
{
	static const struct trace_event evs[] = {
		{ .op = TRACE_ALLOC, .id = 1, .size = 512 },
		{ .op = TRACE_ALLOC, .id = 9007199254740991ULL, .size = (uint64_t)1 << 50,
		  .stream = -3, .flags = TRACE_HAS_ADDR | TRACE_HAS_TIME | TRACE_HAS_STREAM,
		  .addr = 139637976727552ULL, .t_us = 1700000000123456LL, .at = "train.py:3 step" },
		{ .op = TRACE_ALLOC, .id = 2147483647, .size = 2147483648ULL, .stream = 7,
		  .at = "q\"uote \\ back\b\f\n\r\t\001\037 caf\xc3\xa9 \x7f" },
		{ .op = TRACE_FREE, .id = 4294967296ULL, .flags = TRACE_HAS_TIME, .t_us = -5 },
		{ .op = TRACE_FREE, .id = 5, .flags = TRACE_HAS_STREAM, .stream = 2199023255554LL },
		{ .op = TRACE_MARK, .label = "iteration 2" },
		{ .op = TRACE_MARK },
		{ .op = TRACE_SEGMENT_ALLOC, .addr = 1, .size = 2097152, .stream = 123456789012 },
		{ .op = TRACE_SEGMENT_UNMAP, .addr = 0, .size = 20971520 },
		{ .op = TRACE_OOM, .size = 12845056, .flags = TRACE_HAS_TIME, .t_us = 0 },
		{ .op = TRACE_EMPTY_CACHE },
	};
	struct trace_header hdr = { .name = "w", .format = "jsonl" };
	struct trace_writer *w = NULL;
	char path[] = "/tmp/gms-writer-XXXXXX", file[64], line[4096], *want, *cause = NULL;
	size_t i, same = 0;
	FILE *f;
	cJSON *o;
	int fd = mkstemp(path);

	close(fd);
	unlink(path);
	snprintf(file, sizeof(file), "%s.jsonl", path);
	if (trace_writer_open(file, NULL, 0, &w, &cause) < 0 ||
	    trace_writer_header(w, &hdr, &cause) < 0) {
		ok(0, "writer: %s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(evs); i++)
		trace_writer_event(w, &evs[i], &cause);
	if (trace_writer_close(w, &cause) < 0 || (f = fopen(file, "r")) == NULL) {
		ok(0, "writer: %s", cause ? cause : "cannot read it back");
		free(cause);
		return;
	}
	fgets(line, sizeof(line), f);	/* the header */
	for (i = 0; i < ARRAY_SIZE(evs) && fgets(line, sizeof(line), f) != NULL; i++) {
		line[strcspn(line, "\n")] = '\0';
		o = trace_event_to_json(&evs[i]);
		want = cJSON_PrintUnformatted(o);
		if (strcmp(line, want) == 0)
			same++;
		else
			diag("event %zu: wrote %s, cJSON prints %s", i, line, want);
		free(want);
		cJSON_Delete(o);
	}
	fclose(f);
	unlink(file);
	is_u64(same, ARRAY_SIZE(evs), "the writer prints %zu kinds of event as cJSON does, byte "
	    "for byte (numbers past 2^31, escapes, UTF-8)", ARRAY_SIZE(evs));
}

/* trace_peek_rank on text written to a file. */
static int
peek(const char *text)
{
	char path[] = "/tmp/gms-peek-XXXXXX";
	int fd = mkstemp(path), rank;
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	rank = trace_peek_rank(path);
	unlink(path);
	return rank;
}

static void
peek_rank(void)
{
	static const struct { const char *text; int rank; const char *why; } cases[] = {
		{ "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8}, "
		  "\"traceEvents\": []}", 3, "the profiler's form" },
		{ "{\"distributedInfo\":{\"rank\":0}", 0, "rank 0, the object whole, the file cut after it" },
		{ "{\"distributedInfo\": {\"backend\": \"gloo\"}}", -1, "no rank in it" },
		{ "{\"distributedInfo\": {\"rank\": -1}}", -1, "a negative rank" },
		{ "{\"distributedInfo\": {\"rank\": 1.5}}", -1, "a fraction" },
		{ "{\"distributedInfo\": {\"rank\": 1e300}}", -1, "far too large" },
		{ "{\"distributedInfo\": {\"rank\": \"2\"}}", -1, "a string" },
		{ "{\"distributedInfo\": {\"rank\": 2", -1, "the object cut short" },
		{ "{\"distributedInfo\"", -1, "the key alone" },
		{ "{\"distributedInfo\": [1, 2]}", -1, "not an object" },
		{ "{\"rank\": 4, \"traceEvents\": []}", -1, "a rank outside distributedInfo" },
		{ "", -1, "an empty file" },
	};
	char *path;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		is_u64((uint64_t)(int64_t)peek(cases[i].text), (uint64_t)(int64_t)cases[i].rank,
		    "peek rank: %s", cases[i].why);
	ok(trace_peek_rank("/nonexistent/x.json") == -1, "peek rank: no such file");
	path = tap_srcpath("t/data/ranks/profile/vm_534.1796403419977886576.pt.trace.json.gz");
	is_u64((uint64_t)trace_peek_rank(path), 0, "peek rank: the DDP profile of pid 534 is rank 0");
	free(path);
	path = tap_srcpath("t/data/ranks/profile/vm_535.1796403419979232242.pt.trace.json.gz");
	is_u64((uint64_t)trace_peek_rank(path), 1, "peek rank: pid 535's is rank 1");
	free(path);
}

int
main(void)
{
	static const char *const fixtures[] = {
		"cpp-path", "proto5", "ring", "late", "streams", "expandable",
	};
	size_t i;

	shared_pickles();
	for (i = 0; i < ARRAY_SIZE(fixtures); i++)
		fixture(fixtures[i]);
	devices();
	rmm();
	writer();
	peek_rank();
	return tap_done();
}
