/*
 * entries.c - every command's library entry (analysis/entries.h) called as
 * the Python package or a later command would, without the binary, on every
 * kind of input it takes (analysis/inputs.h), against what the real
 * allocators did: PyTorch 2.11's runs of the ResNet-50 trace on the H200
 * (t/data/pytorch.json), the pipeline job's four ranks' and the small
 * transformer's memory_stats() (t/data/ranks/facts, t/data/scale), and the
 * OOM snapshot's (t/data/users/oom-except.facts.json).
 *
 * Exercises analysis/inputs.c and analysis/entry*.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "analysis/entries.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "t/gtload.h"
#include "t/tap.h"
#include "traces/tracemem.h"

static const struct entry_policy caching = { .ops = &policy_caching, .label = "caching" };

/* The paths the inputs name, kept as long as the test (an input keeps them). */
static char *paths[64];
static size_t npaths;

/* The input of one kind, resolved, or the test bails out. */
static void
input(struct inputs *in, enum inputs_kind kind, const char *const *rel, size_t n,
    const uint64_t *at, uint64_t value)
{
	char **args = gms_calloc(n + 1, sizeof(*args)), *cause = NULL;
	struct inputs_req rq = { .kind = kind, .args = args, .nargs = n, .at = at,
	    .value = value, .topts = { .device = -1 } };
	size_t i;

	for (i = 0; i < n; i++)
		args[i] = paths[npaths++] = tap_srcpath(rel[i]);
	if (inputs_open(&rq, in, &cause) < 0) {
		printf("Bail out! %s: %s\n", rel[0], cause);
		exit(1);
	}
	free(args);
}

static void
bail(const char *what, char *cause)
{
	printf("Bail out! %s: %s\n", what, cause ? cause : "(no cause)");
	exit(1);
}

/* pytorch.json's run k of the ResNet-50 trace under the default settings, or expandable. */
static const cJSON *
gt_run(const cJSON *gt, const char *setting, int k)
{
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(gt, "runs");

	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(runs, "resnet50-train-b32"), setting), k);
}

/* A memory_stats() value of a facts file. */
static uint64_t
fact(const char *rel, const char *key)
{
	cJSON *f = gt_load(rel);
	uint64_t v = gt_u64(cJSON_GetObjectItemCaseSensitive(f, "memory_stats"), key);

	cJSON_Delete(f);
	return v;
}

static void
test_run(const cJSON *gt)
{
	static const char *const resnet[] = { "traces/resnet50-train-b32.json" };
	static const char *const pp[] = { "t/data/ranks" };
	const cJSON *plain = gt_run(gt, "(default)", 0), *lim = gt_run(gt, "(default)", 1);
	const cJSON *oom = cJSON_GetObjectItemCaseSensitive(lim, "oom");
	struct run_request rq = { .policy = caching, .as_recorded = 1, .threads = 2, .top = 10 };
	struct run_answer ans;
	struct inputs in;
	char *cause = NULL, *text, rel[64];
	size_t i;

	input(&in, INPUTS_TRACE, resnet, 1, NULL, 0);
	if (entry_run(&in, &rq, &ans, &cause) < 0)
		bail("run", cause);
	is_u64(ans.out.res.peak_reserved, gt_u64(plain, "peak_reserved"),
	    "run, one trace: PyTorch's peak reserved");
	is_u64(ans.out.res.device_allocs, gt_u64(plain, "device_allocs"), "... its cudaMallocs");
	text = entry_run_text(&ans);
	ok(strstr(text, "reproduced exactly") != NULL, "... and the report says it reproduced");
	free(text);
	entry_run_free(&ans);

	/* under the limit PyTorch's memory fraction set */
	rq.target.capacity = gt_u64(lim, "limit");
	if (entry_run(&in, &rq, &ans, &cause) < 0)
		bail("run", cause);
	ok(entry_run_oomed(&ans), "run under its recorded limit: out of memory, as PyTorch was");
	is_u64(ans.out.res.oom.event, gt_u64(oom, "event"), "... at its event");
	is_u64(ans.out.res.oom.reserved, gt_u64(oom, "reserved"), "... with what it had reserved");
	is_u64(ans.out.res.device_allocs, gt_u64(lim, "device_allocs"), "... after its cudaMallocs");
	is_u64(ans.out.res.device_frees, gt_u64(lim, "device_frees"), "... its cudaFrees");
	is_u64(ans.out.res.alloc_retries, gt_u64(lim, "alloc_retries"), "... and its retries");
	entry_run_free(&ans);
	inputs_close(&in);

	/* the ranks of the pipeline job: every rank is its own memory_stats() */
	rq.target.capacity = 0;
	input(&in, INPUTS_RANKS, pp, 1, NULL, 0);
	if (entry_run(&in, &rq, &ans, &cause) < 0)
		bail("run --ranks", cause);
	is_u64(in.ranks.n, 4, "run, the ranks of a job: the directory's four");
	for (i = 0; i < in.ranks.n; i++) {
		snprintf(rel, sizeof(rel), "t/data/ranks/facts/pp-rank%d.facts.json",
		    in.ranks.f[i].rank);
		is_u64(ans.job.jobs[i].out.res.peak_reserved, fact(rel, "reserved_bytes.all.peak"),
		    "... rank %d's peak reserved", in.ranks.f[i].rank);
	}
	is_u64(ans.job.reproduced, 4, "... every rank reproduced its recording");
	is_u64(in.ranks.f[ans.job.worst].rank, 3, "... the worst rank is 3 (its peak the largest)");
	entry_run_free(&ans);
	inputs_close(&in);
}

static void
test_info(const cJSON *gt)
{
	static const char *const resnet[] = { "traces/resnet50-train-b32.json" };
	struct info_answer ans;
	struct inputs in;
	char *cause = NULL;

	input(&in, INPUTS_TRACE, resnet, 1, NULL, 0);
	if (entry_info(&in, 5, &ans, &cause) < 0)
		bail("info", cause);
	is_u64(ans.t[0].res.peak_live, gt_u64(gt_run(gt, "(default)", 0), "peak_requested"),
	    "info: the live peak is PyTorch's peak requested");
	ok(ans.at.n == 1 && ans.at.m[0].taken, "... and what holds it, by site");
	entry_info_free(&ans);
	inputs_close(&in);
}

static void
test_compare(const cJSON *gt)
{
	static const char *const resnet[] = { "traces/resnet50-train-b32.json" };
	static const char *const pair[] = { "t/data/scale/xfmr-seq-64.pickle.gz",
		"t/data/scale/xfmr-seq-128.pickle.gz" };
	static const struct policy_kv exp = { "alloc_conf", "expandable_segments:True" };
	struct entry_policy pols[2] = { caching, { .ops = &policy_caching, .opts = &exp,
	    .nopts = 1, .label = "caching alloc_conf=expandable_segments:True" } };
	struct compare_request rq = { .pols = pols, .npols = 2, .threads = 2, .top = 10,
	    .how = { .time_bound = 1.0 } };
	struct compare_answer ans;
	struct inputs in;
	char *cause = NULL;

	input(&in, INPUTS_TRACE, resnet, 1, NULL, 0);
	if (entry_compare(&in, &rq, &ans, &cause) < 0)
		bail("compare", cause);
	is_u64(ans.rows[0].run.res->peak_reserved,
	    gt_u64(gt_run(gt, "(default)", 0), "peak_reserved"),
	    "compare, one trace: the default setting as PyTorch ran it");
	is_u64(ans.rows[1].run.res->peak_reserved,
	    gt_u64(gt_run(gt, "expandable_segments:True", 0), "peak_reserved"),
	    "... and expandable segments as PyTorch ran them");
	entry_compare_free(&ans);
	inputs_close(&in);

	rq.npols = 1;
	rq.as_recorded = 1;
	input(&in, INPUTS_PAIR, pair, 2, NULL, 0);
	if (entry_compare(&in, &rq, &ans, &cause) < 0)
		bail("compare A B", cause);
	is_u64(ans.td.out[0].res.peak_reserved,
	    fact("t/data/scale/xfmr-seq-64.facts.json", "reserved_bytes.all.peak"),
	    "compare, two traces: the first's peak, its memory_stats()'s");
	is_u64(ans.td.out[1].res.peak_reserved,
	    fact("t/data/scale/xfmr-seq-128.facts.json", "reserved_bytes.all.peak"),
	    "... the second's");
	ok(ans.td.d.n > 0 && ans.td.d.after > ans.td.d.before, "... and stacks that grew between them");
	entry_compare_free(&ans);
	inputs_close(&in);
}

static void
test_check(const cJSON *gt)
{
	static const char *const resnet[] = { "traces/resnet50-train-b32.json" };
	struct check_request rq = { .pols = &caching, .npols = 1, .as_recorded = 1,
	    .threads = 2, .has_fit = 1, .top = 10 };
	struct check_answer ans;
	struct inputs in;
	char *cause = NULL;

	input(&in, INPUTS_TRACE, resnet, 1, NULL, 0);
	rq.fit_capacity = gt_u64(gt_run(gt, "(default)", 1), "limit");
	if (entry_check(&in, &rq, &ans, &cause) < 0)
		bail("check", cause);
	is_u64(check_failed(&ans.l), 1, "check --must-fit at the limit PyTorch ran out under: fails");
	entry_check_free(&ans);
	rq.fit_capacity = gt_u64(gt_run(gt, "(default)", 2), "limit");
	if (entry_check(&in, &rq, &ans, &cause) < 0)
		bail("check", cause);
	is_u64(check_failed(&ans.l), 0, "... at the limit it fitted under: passes");
	entry_check_free(&ans);
	inputs_close(&in);
}

static void
test_plan(const cJSON *gt)
{
	static const char *const resnet[] = { "traces/resnet50-train-b32.json" };
	static const char *const pp[] = { "t/data/ranks" };
	struct plan_request rq = { .pols = &caching, .npols = 1, .threads = 2,
	    .overhead = GPU_CONTEXT_OVERHEAD };
	struct plan_answer ans;
	struct inputs in;
	char *cause = NULL, rel[64];
	uint64_t lo = gt_u64(gt_run(gt, "(default)", 1), "limit");
	uint64_t hi = gt_u64(gt_run(gt, "(default)", 2), "limit"), min;
	size_t r;

	input(&in, INPUTS_TRACE, resnet, 1, NULL, 0);
	if (entry_plan(&in, &rq, &ans, &cause) < 0)
		bail("plan", cause);
	min = ans.rep.pols[0].min_capacity;
	ok(min > lo && min <= hi, "plan: the smallest capacity (%llu) lies between the limit "
	    "PyTorch ran out under and the one it fitted", (unsigned long long)min);
	entry_plan_free(&ans);
	inputs_close(&in);

	input(&in, INPUTS_RANKS, pp, 1, NULL, 0);
	if (entry_plan(&in, &rq, &ans, &cause) < 0)
		bail("plan --ranks", cause);
	for (r = 0; r < in.ranks.n; r++) {
		snprintf(rel, sizeof(rel), "t/data/ranks/facts/pp-rank%d.facts.json",
		    in.ranks.f[r].rank);
		min = ans.rp.reps[r].pols[0].min_capacity;
		ok(min > fact(rel, "allocated_bytes.all.peak") &&
		    min <= fact(rel, "reserved_bytes.all.peak"), "plan --ranks: rank %d's smallest "
		    "lies between its real peak allocated and reserved", in.ranks.f[r].rank);
	}
	entry_plan_free(&ans);
	inputs_close(&in);
}

static void
test_tune(const cJSON *gt)
{
	static const char *const resnet[] = { "traces/resnet50-train-b32.json" };
	struct tune_request rq = { .threads = 2 };
	struct tune_answer ans;
	struct inputs in;
	char *cause = NULL;
	size_t i;
	int seen = 0;

	input(&in, INPUTS_TRACE, resnet, 1, NULL, 0);
	if (entry_tune(&in, &rq, &ans, &cause) < 0)
		bail("tune", cause);
	is_u64(ans.rep.cands[ans.rep.default_index].res.peak_reserved,
	    gt_u64(gt_run(gt, "(default)", 0), "peak_reserved"),
	    "tune: its baseline is the default setting as PyTorch ran it");
	for (i = 0; i < ans.rep.ncands; i++)
		if (strcmp(ans.rep.cands[i].conf, "expandable_segments:True") == 0) {
			seen = 1;
			is_u64(ans.rep.cands[i].res.peak_reserved,
			    gt_u64(gt_run(gt, "expandable_segments:True", 0), "peak_reserved"),
			    "... and its expandable segments' row, as PyTorch ran them");
		}
	ok(seen, "... which it tried");
	ok(entry_tune_fits(&ans), "... and something fits without a limit");
	entry_tune_free(&ans);
	inputs_close(&in);
}

static void
test_scale(void)
{
	static const char *const recs[] = { "t/data/scale/xfmr-seq-64.pickle.gz",
		"t/data/scale/xfmr-seq-128.pickle.gz" };
	static const uint64_t at[] = { 64, 128 }, value = 256;
	struct scale_request rq = { .policy = caching, .values = &value, .nvalues = 1 };
	struct scale_report rep;
	struct inputs in;
	char *cause = NULL;
	uint64_t real = fact("t/data/scale/xfmr-seq-256.facts.json", "reserved_bytes.all.peak");
	double err;

	input(&in, INPUTS_SCALED, recs, 2, at, 0);
	if (entry_scale(&in, &rq, &rep, &cause) < 0)
		bail("scale", cause);
	err = ((double)rep.points[0].peak_reserved - (double)real) / (double)real;
	ok(rep.npoints == 1 && err < 0.01 && err > -0.01, "scale: the job at 256 from 64 and 128 "
	    "within 1%% of its real peak reserved (%+.2f%%)", 100 * err);
	scale_report_free(&rep);
	inputs_close(&in);

	/* the job built at a value, as plan, check and tune take it */
	input(&in, INPUTS_SCALED, recs, 2, at, value);
	ok(in.mem != NULL && in.built != NULL && in.built->value == value,
	    "recordings at values, with a value: the job is built there");
	inputs_close(&in);
}

static void
test_report(void)
{
	static const char *const resnet[] = { "traces/resnet50-train-b32.json" };
	struct entry_policy pols[2] = { caching, { .ops = &policy_grow_only,
	    .label = "grow-only" } };
	struct report_request rq = { .pols = pols, .npols = 2, .threads = 2, .points = 100,
	    .top = 5, .command = "t/entries" };
	struct report_answer ans;
	struct inputs in;
	struct trace_mem *m;
	char *cause = NULL, path[] = "/tmp/gms-entries-XXXXXX";
	FILE *f;
	int fd;

	input(&in, INPUTS_TRACE, resnet, 1, NULL, 0);
	if (trace_mem_load(in.path, &in.topts, &m, &cause) < 0)
		bail("load", cause);
	if (entry_report(&in, &rq, &ans, &cause) < 0)
		bail("report", cause);
	is_u64(ans.o[0].page.hr.res->events, trace_mem_count(m), "report: the page's run read "
	    "every event");
	is_u64(ans.o[0].page.hr.n, 2, "... with a column for each policy");
	if ((fd = mkstemp(path)) < 0 || (f = fdopen(fd, "w")) == NULL)
		bail("report", gms_strdup("mkstemp"));
	ok(entry_report_html(f, &ans) == 0 && ftell(f) > 100000, "... written whole");
	fclose(f);
	unlink(path);
	entry_report_free(&ans);
	trace_mem_free(m);
	inputs_close(&in);
}

static void
test_plot(void)
{
	static const char *const snap[] = { "t/data/users/oom-except.pickle.gz" };
	struct plot_request rq = { .pols = &caching, .npols = 1, .out = "flame.svg", .flame = 1,
	    .threads = 1 };
	struct inputs in;
	char *cause = NULL, path[] = "/tmp/gms-entries-XXXXXX", buf[4096];
	cJSON *facts = gt_load("t/data/users/oom-except.facts.json");
	FILE *f;
	size_t n;

	input(&in, INPUTS_TRACE, snap, 1, NULL, 0);
	rq.target.capacity = gt_u64(facts, "limit");
	if ((rq.fd = mkstemp(path)) < 0)
		bail("plot", gms_strdup("mkstemp"));
	if (entry_plot(&in, &rq, &cause) < 0)
		bail("plot --flame", cause);
	f = fopen(path, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	ok(strstr(buf, "<svg") != NULL, "plot --flame: an SVG");
	ok(strstr(buf, "out of memory at event") != NULL, "... at the OOM the job had under its "
	    "real limit");
	if (f)
		fclose(f);
	close(rq.fd);
	unlink(path);
	cJSON_Delete(facts);
	inputs_close(&in);
}

static void
test_share(const cJSON *gt)
{
	const char *jobs[2];
	char *t = tap_srcpath("traces/resnet50-train-b32.json"), *cause = NULL;
	uint64_t alloc = gt_u64(gt_run(gt, "(default)", 0), "peak_allocated");
	uint64_t reserved = gt_u64(gt_run(gt, "(default)", 0), "peak_reserved");
	struct inputs_req irq = { .kind = INPUTS_JOBS, .jobs = jobs, .njobs = 2,
	    .topts = { .device = -1 }, .command = "share" };
	struct share_request rq = { .threads = 2, .seed = 1 };
	struct share_answer ans;
	struct inputs in;

	jobs[0] = jobs[1] = t;
	/* room for both jobs' whole reservations beside their contexts: both fit */
	irq.capacity = 2 * (reserved + GPU_CONTEXT_OVERHEAD);
	if (inputs_open(&irq, &in, &cause) < 0 || entry_share(&in, &rq, &ans, &cause) < 0)
		bail("share", cause);
	ok(ans.res.fits, "share: two copies of a job fit a card of both their peaks and contexts");
	entry_share_free(&ans);
	inputs_close(&in);
	/* less than both their live bytes at once (they peak together): one runs out */
	irq.capacity = 2 * (alloc + GPU_CONTEXT_OVERHEAD) - GMS_MiB;
	if (inputs_open(&irq, &in, &cause) < 0 || entry_share(&in, &rq, &ans, &cause) < 0)
		bail("share", cause);
	ok(!ans.res.fits && ans.res.nooms > 0, "... and not a card short of both their peak "
	    "allocations");
	entry_share_free(&ans);
	inputs_close(&in);
	free(t);
}

static int
no_gpu(void *arg, struct replay_gpu *g, char **cause)
{
	(void)arg;
	(void)g;
	return gms_fail(cause, GMS_ENOTBUILT, "no GPU here");
}

static void
test_replay(void)
{
	static const char *const resnet[] = { "traces/resnet50-train-b32.json" };
	struct replay_share_gpu gpu = { .open = no_gpu };
	struct replay_request rq = { .policy = caching, .gpu = &gpu };
	struct replay_answer ans;
	struct inputs in;
	char *cause = NULL;

	input(&in, INPUTS_TRACE, resnet, 1, NULL, 0);
	is_u64((uint64_t)-entry_replay(&in, &rq, &ans, &cause), (uint64_t)-GMS_ENOTBUILT,
	    "replay: the GPU is opened first, and its refusal is the answer (the replay "
	    "itself: t/replay.c)");
	free(cause);
	entry_replay_free(&ans);
	inputs_close(&in);
}

int
main(void)
{
	cJSON *gt = gt_load("t/data/pytorch.json");

	test_run(gt);
	test_info(gt);
	test_compare(gt);
	test_check(gt);
	test_plan(gt);
	test_tune(gt);
	test_scale();
	test_report();
	test_plot();
	test_share(gt);
	test_replay();
	cJSON_Delete(gt);
	while (npaths > 0)
		free(paths[--npaths]);
	return tap_done();
}
