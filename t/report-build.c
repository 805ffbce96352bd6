/*
 * t/report-build.c - the report page's three passes as a library entry
 * (analysis/report-build.c, report_page_build) and the rows a batch of
 * policies makes (report_rows_run), on t/data/sites/handworked.json in 60
 * MiB, every number worked by hand in t/attrib.c: caching peaks at 52 MiB
 * at event 4 and runs out at event 7 (100 MiB asked); the trace's live peak,
 * a number of the whole trace whatever a policy does, is 100 MiB + 1000 B
 * at event 7 (the 1000 bytes of event 4 are still live).  And what the
 * entry says when the trace cannot be read, or no policy can run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/report-html.h"
#include "analysis/report.h"
#include "sim/batch.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/progress.h"
#include "t/tap.h"
#include "traces/trace.h"

#define MiB ((uint64_t)1 << 20)

/* A page of ops[0..n) on path in capacity; its jobs are the page's. */
static int
build_at(const char *path, const struct policy_ops *const *ops, const char *const *labels,
    size_t n, uint64_t capacity, const uint64_t *at, size_t nat, struct report_page *p,
    char **cause)
{
	struct batch_job *jobs = calloc(n + 1, sizeof(*jobs));
	struct report_rows_of of = { .path = path, .capacity = capacity, .labels = labels };
	struct trace_opts topts = { .device = -1 };
	size_t i;

	for (i = 0; i < n; i++)
		jobs[i].spec = (struct run_spec){ .path = path, .policy = ops[i],
		    .capacity = capacity, .device = -1 };
	return report_page_build(jobs, n, &of, NULL, &topts, 100, 10, at, nat, 2, p, cause);
}

static int
build(const char *path, const struct policy_ops *const *ops, const char *const *labels,
    size_t n, uint64_t capacity, struct report_page *p, char **cause)
{
	return build_at(path, ops, labels, n, capacity, NULL, 0, p, cause);
}

/* The life of the segment of size bytes in log l, or NULL. */
static const struct seg_life *
life(const struct seg_log *l, uint64_t size)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].size == size)
			return &l->v[i];
	return NULL;
}

/*
 * The chosen events' requests and the segments' lives, by hand: caching
 * puts event 0's 8 MiB in a new 20 MiB segment, event 1's 8 MiB after it
 * (4 MiB left free), event 2's 30 MiB in a new segment of its own; event 3
 * frees b.py's block (made at event 1) into the cache.  In 60 MiB, the
 * OOM at event 7 gives back the two wholly free segments (20 and 30 MiB)
 * and keeps the 2 MiB small one of event 4's 1000 B.
 */
static void
chosen(const char *hand)
{
	static const struct policy_ops *const one[] = { &policy_caching };
	static const char *const labels[] = { "caching" };
	static const uint64_t at[] = { 2, 3 };
	const struct attrib_moment *m;
	const struct seg_life *l;
	struct report_page p;
	char *cause = NULL, *reuse;

	ok(build_at(hand, one, labels, 1, 60 * MiB, at, 2, &p, &cause) == 0, "caching in 60 MiB, "
	    "--at 2 --at 3: the page is built");
	ok(p.ats[0].n == 4, "peak, OOM and the two chosen events");
	m = &p.ats[0].m[2];
	ok(strcmp(m->key, "at") == 0 && m->event == 2 && m->taken && m->nsegs == 2,
	    "after event 2: two segments");
	ok(m->req.has && m->req.op == TRACE_ALLOC && m->req.size == 30 * MiB && m->req.served &&
	    !m->req.from_free && m->req.block == 30 * MiB && m->req.largest_free == 4 * MiB,
	    "event 2's 30 MiB: no free block served it (the largest was 4 MiB), new memory");
	is_u64(m->req.reserved_before, 20 * MiB, "... reserved 20 MiB before it");
	is_u64(m->req.reserved_after, 50 * MiB, "... and 50 MiB after");
	m = &p.ats[0].m[3];
	ok(m->req.has && m->req.op == TRACE_FREE && m->req.size == 8 * MiB && m->req.made_at == 1 &&
	    strcmp(attrib_site_name(&p.ats[0], m->req.site), "b.py:2 g") == 0,
	    "event 3 frees b.py's 8 MiB, made at event 1");
	ok(m->req.reserved_before == 50 * MiB && m->req.reserved_after == 50 * MiB &&
	    m->largest_free == 12 * MiB, "... into the cache: 50 MiB still reserved, 12 MiB free together");
	is_u64(p.watch[0].segs.n, 3, "caching's segments: three");
	l = life(&p.watch[0].segs, 20 * MiB);
	ok(l != NULL && l->start == 0 && l->end == 7, "the 20 MiB one from event 0 to the OOM at 7");
	l = life(&p.watch[0].segs, 30 * MiB);
	ok(l != NULL && l->start == 2 && l->end == 7, "the 30 MiB one from event 2 to 7");
	l = life(&p.watch[0].segs, 2 * MiB);
	ok(l != NULL && l->start == 4 && l->end == SEGLOG_LIVE, "the small 2 MiB one from event 4, kept");
	report_page_free(&p);
	free(cause);
	cause = NULL;

	/* t/data/sites/reuse.json: event 2's 4 MiB from the front of the free 20 MiB */
	reuse = tap_srcpath("t/data/sites/reuse.json");
	ok(build_at(reuse, one, labels, 1, 0, at, 1, &p, &cause) == 0, "reuse.json, --at 2");
	m = &p.ats[0].m[1];
	ok(strcmp(m->key, "at") == 0 && m->req.served && m->req.from_free &&
	    m->req.free_addr == m->req.addr && m->req.seg_addr == m->req.addr &&
	    m->req.free_size == 20 * MiB && m->req.seg_size == 20 * MiB && m->req.block == 4 * MiB,
	    "event 2 took 4 MiB from the front of the free 20 MiB block, its whole segment");
	report_page_free(&p);
	free(cause);
	free(reuse);
}

int
main(void)
{
	static const struct policy_ops *const two[] = { &policy_caching, &policy_no_cache };
	static const char *const two_labels[] = { "caching", "no-cache" };
	static const struct policy_ops *const pre[] = { &policy_preallocate };
	static const char *const pre_labels[] = { "preallocate" };
	char *path = tap_srcpath("t/data/sites/handworked.json"), *cause = NULL;
	const struct attrib_moment *m;
	struct report_page p;
	uint64_t before;
	int err;

	before = progress_events();
	err = build(path, two, two_labels, 2, 60 * MiB, &p, &cause);
	ok(err == 0, "caching and no-cache in 60 MiB: the page is built (%s)", cause ? cause : "");
	/* the progress line's total is what the passes replay: no stall at 100 % */
	is_u64(progress_events() - before, 2 * 10 + 8 + 8 + 8 + 10,
	    "progress: the two policies' 10 events, each again to its OOM (event 7), the trace "
	    "to its live peak (event 7) and whole");
	is_u64(progress_expected(), progress_events(),
	    "... all of them expected once the first pass was done");
	is_u64(p.hr.n, 2, "two policies on the page");
	is_str(p.rows[0].label, "caching", "the first row is caching's");
	is_str(p.rows[1].label, "no-cache", "the second no-cache's");
	is_u64(p.hr.capacity, 60 * MiB, "the page's capacity");
	is_u64(p.rows[0].run.res->peak_reserved, 52 * MiB, "caching's row: 52 MiB reserved at most");
	is_u64(p.watch[0].peak.event, 4, "its watch saw the peak at event 4");
	ok(p.watch[0].tl.n > 0, "and kept its timeline (%zu rows)", p.watch[0].tl.n);
	ok(p.ats[0].n == 2, "pass 2: caching's peak and OOM");
	m = &p.ats[0].m[0];
	ok(m->event == 4 && m->reserved == 52 * MiB && m->nsegs > 0,
	    "at its peak: event 4, 52 MiB, with the map");
	m = &p.ats[0].m[1];
	ok(strcmp(m->key, "oom") == 0 && m->event == 7 && m->nsegs == 1,
	    "at its OOM: event 7, one segment left after the retry");
	is_u64(p.hr.res->peak_live, 100 * MiB + 1000, "the trace's live peak: 100 MiB + 1000 B");
	m = &p.live.m[0];
	ok(p.live.n == 1 && m->event == 7 && m->live == 100 * MiB + 1000 && m->nrows == 2,
	    "pass 3: its sites at the live peak, event 7 (c.py's 100 MiB and the 1000 B)");
	ok(p.live.nstack > 0 && p.live.nbuckets > 0, "and its sites over time, stacked");
	ok(p.hr.pols[1].row == &p.rows[1] && p.hr.pols[1].tl == &p.watch[1].tl &&
	    p.hr.pols[1].at == &p.ats[1], "each policy of the page points at its row, timeline and moments");
	report_page_free(&p);

	chosen(path);

	err = build("t/data/no-such-trace.json", two, two_labels, 2, 0, &p, &cause);
	ok(err == GMS_EIO && cause != NULL && strstr(cause, "no-such-trace.json") != NULL,
	    "a trace that cannot be read: GMS_EIO, said once (%s)", cause ? cause : "");
	report_page_free(&p);
	free(cause);
	cause = NULL;

	err = build(path, pre, pre_labels, 1, 0, &p, &cause);
	ok(err == GMS_ECONFIG && cause != NULL && strncmp(cause, "no policy could run: ", 21) == 0,
	    "preallocate alone with no limit: no policy could run (%s)", cause ? cause : "");
	report_page_free(&p);
	free(cause);
	free(path);
	return tap_done();
}
