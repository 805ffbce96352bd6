/*
 * fuzz.c - the shared part of the harnesses (fuzz.h): a reader's trace replayed,
 * written and read back, and its stacks summed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stacks.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "t/fuzz/fuzz.h"
#include "traces/trace.h"

void
fuzz_assert(int cond, const char *what, const char *detail)
{
	if (cond)
		return;
	fprintf(stderr, "FINDING: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

const char *
fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	static char path[512];
	const char *dir = getenv("TMPDIR");
	FILE *f;

	snprintf(path, sizeof(path), "%s/gms-fuzz-%ld%s", dir && *dir ? dir : "/tmp",
	    (long)getpid(), suffix);
	f = fopen(path, "wb");
	fuzz_assert(f != NULL, "cannot write the scratch file", path);
	if (size > 0)
		fwrite(data, 1, size, f);
	fuzz_assert(fclose(f) == 0, "cannot write the scratch file", path);
	return path;
}

/*
 * What the readers accept, convert must write so that they accept it again:
 * the trace at path (read without error) goes to JSON Lines and back, and
 * must come back whole.
 */
static void
round_trip(const char *path, uint64_t nevents)
{
	char out[600], *cause = NULL;
	struct trace_reader *r = NULL, *back = NULL;
	struct trace_writer *w = NULL;
	struct trace_event ev;
	uint64_t n = 0;
	int rc;

	snprintf(out, sizeof(out), "%s.back.jsonl", path);
	fuzz_assert(trace_open(path, &r, &cause) == 0, "a trace that opened once does not", cause);
	fuzz_assert(trace_writer_open(out, NULL, 0, &w, &cause) == 0, "cannot write", cause);
	fuzz_assert(trace_writer_header(w, trace_header(r), &cause) == 0, "cannot write", cause);
	while ((rc = trace_next(r, &ev, &cause)) == 1)
		fuzz_assert(trace_writer_event(w, &ev, &cause) == 0, "cannot write", cause);
	fuzz_assert(rc == 0, "a trace that read once does not", cause);
	fuzz_assert(trace_writer_close(w, &cause) == 0, "cannot write", cause);
	trace_close(r);
	rc = trace_open(out, &back, &cause);
	fuzz_assert(rc == 0, "convert wrote a trace its reader refuses", cause);
	while ((rc = trace_next(back, &ev, &cause)) == 1)
		n++;
	fuzz_assert(rc == 0, "convert wrote an event its reader refuses", cause);
	fuzz_assert(n == nevents, "convert lost or made up events", NULL);
	trace_close(back);
	unlink(out);
	free(cause);
}

/*
 * Every stack the trace names goes into a stack tree, each allocation's
 * bytes onto its stack, and the views (whole, cut, filtered) must hold
 * every byte: what the attribution by stack would show of it.
 */
static void
stacks_sum(const char *path)
{
	struct stack_tree *t = stack_tree_new();
	struct trace_reader *r = NULL;
	struct stack_values v;
	struct stack_view *w;
	struct trace_event ev;
	uint32_t *node = NULL;
	uint64_t *bytes = NULL, sum = 0;
	size_t n = 0, cap = 0, i;
	char *cause = NULL;
	FILE *f;

	fuzz_assert(trace_open(path, &r, &cause) == 0, "a trace that opened once does not", cause);
	while (trace_next(r, &ev, &cause) == 1 && n < 4096) {
		if (ev.op != TRACE_ALLOC)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			node = gms_realloc(node, cap * sizeof(*node));
			bytes = gms_realloc(bytes, cap * sizeof(*bytes));
		}
		node[n] = stack_tree_intern(t, ev.stack);
		bytes[n] = ev.size;
		sum += ev.size;
		n++;
	}
	trace_close(r);
	free(cause);
	stack_values_init(&v, t);
	for (i = 0; i < n; i++)
		stack_values_add(&v, node[i], bytes[i], i);
	fuzz_assert(v.live == sum, "stack values lost bytes", NULL);
	w = stack_view_new(t, &v, NULL, 0);
	fuzz_assert(stack_view_bytes(w) == sum && stack_view_count(w) == n,
	    "a stack view lost bytes", NULL);
	if ((f = fopen("/dev/null", "w")) != NULL) {
		stack_view_text(f, w, 3);
		stack_view_folded(f, w);
		stack_view_svg(f, w, "fuzz", 0.1, 1);
		fclose(f);
	}
	stack_view_free(w);
	w = stack_view_new(t, &v, "*a*", 2);
	fuzz_assert(stack_view_bytes(w) == sum, "a filtered stack view lost bytes", NULL);
	stack_view_free(w);
	stack_values_free(&v);
	stack_tree_free(t);
	free(node);
	free(bytes);
}

uint64_t
fuzz_read(const char *path, int flags)
{
	struct trace_reader *r = NULL;
	struct device *dev;
	struct sim *s;
	char *cause = NULL;
	uint64_t n = 0;
	int rc;

	/* what --ranks reads of a file before its run: its rank, or -1 */
	rc = trace_peek_rank(path);
	fuzz_assert(rc >= -1, "a rank below -1", path);
	rc = trace_open(path, &r, &cause);
	if (rc < 0) {
		fuzz_assert(cause != NULL && strstr(cause, path) != NULL,
		    "an open error that does not name the file", cause);
		fuzz_assert(rc == GMS_ETRACE || rc == GMS_EIO, "an open error of an odd kind", cause);
		free(cause);
		return 0;
	}
	dev = device_sim_create(64 * GMS_GiB);
	s = sim_create(&policy_caching, NULL, dev, (flags & FUZZ_CHECK_EVERY ? SIM_CHECK_EVERY : 0) |
	    (trace_header(r)->starts_mid_run ? SIM_UNKNOWN_FREES_WARN : 0), &cause);
	fuzz_assert(s != NULL, "the caching policy cannot be made", cause);
	rc = sim_replay(s, r, &cause);
	if (rc < 0) {
		fuzz_assert(rc != GMS_EBUG, "the simulation broke an invariant", cause);
		fuzz_assert(cause != NULL && strstr(cause, path) != NULL,
		    "a read error that does not name the file", cause);
	}
	free(cause);
	sim_destroy(s);
	device_destroy(dev);
	if (rc == 0) {
		n = trace_index(r);	/* after the last read: the count */
		round_trip(path, n);
		stacks_sum(path);
	}
	trace_close(r);
	return n;
}
