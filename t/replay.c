/*
 * replay.c - replay/replay.c over a fake GPU that records every call, runs
 * everywhere.  The fake places segments with the placement model, counts
 * the bytes live as its memory in use, checks that every touched block lies
 * inside a live segment, and can be made small (its driver refuses beyond
 * a size).  Expected numbers are PyTorch's and JAX's on the H200
 * (t/data/pytorch.json, t/data/jax.json.gz) and the trace's own recording.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/replay.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "sim/placement.h"
#include "sim/policy.h"
#include "t/gtload.h"
#include "t/tap.h"
#include "t/tfile.h"
#include "traces/tracemem.h"

#define MAXLIVE 100000

struct fake {
	struct placement *pl;
	uint64_t limit;			/* the driver refuses beyond it; 0: never */
	uint64_t base;			/* "others' memory" in use before */
	uint64_t live_bytes;
	uint64_t addr[MAXLIVE], size[MAXLIVE];
	size_t nlive;
	/* the call log */
	uint64_t *mallocs;		/* sizes, in order */
	size_t nmallocs, nfrees, refused;
	uint64_t touches, touched, stray_touches, resets;
};

static int
fk_reserve(struct device *d, uint64_t size, uint64_t *addr)
{
	struct fake *f = d->priv;

	if ((f->limit && f->live_bytes + size > f->limit) || f->nlive == MAXLIVE ||
	    placement_place(f->pl, size, addr) < 0) {
		f->refused++;
		return GMS_EOOM;
	}
	f->addr[f->nlive] = *addr;
	f->size[f->nlive++] = size;
	f->live_bytes += size;
	f->mallocs = gms_realloc(f->mallocs, (f->nmallocs + 1) * sizeof(*f->mallocs));
	f->mallocs[f->nmallocs++] = size;
	return 0;
}

static void
fk_drop(struct fake *f, uint64_t addr, uint64_t size)
{
	size_t i;

	for (i = 0; i < f->nlive; i++) {
		if (f->addr[i] == addr) {
			f->live_bytes -= f->size[i];
			f->addr[i] = f->addr[--f->nlive];
			f->size[i] = f->size[f->nlive];
			placement_remove(f->pl, addr, size);
			return;
		}
	}
	printf("Bail out! cudaFree of %#llx, never allocated\n", (unsigned long long)addr);
	exit(1);
}

static void
fk_release(struct device *d, uint64_t addr, uint64_t size)
{
	struct fake *f = d->priv;

	f->nfrees++;
	fk_drop(f, addr, size);
}

static uint64_t
fk_physical(struct device *d)
{
	return ((struct fake *)d->priv)->live_bytes;
}

static int
fk_used(void *ctx, uint64_t *used)
{
	struct fake *f = ctx;

	*used = f->base + f->live_bytes;
	return 0;
}

static int
fk_touch(void *ctx, uint64_t addr, uint64_t size)
{
	struct fake *f = ctx;
	size_t i;

	f->touches++;
	f->touched += size;
	for (i = 0; i < f->nlive; i++)
		if (addr >= f->addr[i] && addr + size <= f->addr[i] + f->size[i])
			return 0;
	f->stray_touches++;
	return 0;
}

static void
fk_reset(void *ctx)
{
	struct fake *f = ctx;

	f->resets++;
	while (f->nlive > 0)
		fk_drop(f, f->addr[0], f->size[0]);
}

static const struct device_ops fake_ops = {
	.name = "fake",
	.reserve = fk_reserve,
	.release = fk_release,
	.physical = fk_physical,
};

static struct fake *
fake_open(struct replay_gpu *g, uint64_t limit)
{
	struct fake *f = gms_calloc(1, sizeof(*f));

	f->pl = placement_create(0);
	f->limit = limit;
	f->base = 536870912;
	memset(g, 0, sizeof(*g));
	g->dev = gms_calloc(1, sizeof(*g->dev));
	g->dev->ops = &fake_ops;
	g->dev->priv = f;
	g->ctx = f;
	g->used = fk_used;
	g->touch = fk_touch;
	g->reset = fk_reset;
	g->total = 150109880320;	/* the H200's cudaMemGetInfo total */
	snprintf(g->name, sizeof(g->name), "fake");
	return f;
}

static void
fake_close(struct replay_gpu *g, struct fake *f)
{
	placement_destroy(f->pl);
	free(f->mallocs);
	free(f);
	free(g->dev);
}

static struct trace_mem *
load(const char *name)
{
	struct trace_opts topts = { .device = -1 };
	char *path = gt_sample_path(name), *cause = NULL;
	struct trace_mem *m;

	if (trace_mem_load(path, &topts, &m, &cause) < 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	free(path);
	return m;
}

static int
replay(struct trace_mem *m, const struct policy_ops *p, uint64_t capacity, int touch,
    struct replay_gpu *g, struct replay_result *r)
{
	struct replay_spec spec = { .mem = m, .policy = p, .capacity = capacity, .touch = touch };
	char *cause = NULL;
	int err = replay_run(&spec, g, r, &cause);

	if (err < 0)
		diag("replay_run: %s", cause);
	free(cause);
	return err;
}

static void
resnet_caching(struct trace_mem *m)
{
	struct replay_result r;
	struct replay_gpu g;
	struct fake *f = fake_open(&g, 0);
	struct trace_event ev;
	size_t i, j = 0, mismatch = 0, recorded = 0;

	if (!ok(replay(m, &policy_caching, 0, 0, &g, &r) == 0, "caching over the fake GPU runs"))
		return;
	is_u64(r.real.peak_reserved, 3703570432, "peak reserved is PyTorch's");
	is_u64(r.real.device_allocs, 118, "118 cudaMalloc calls, as PyTorch made");
	is_u64(f->nmallocs, 118, "the fake saw 118");
	for (i = 0; i < trace_mem_count(m); i++) {
		trace_mem_event(m, i, &ev);
		if (ev.op != TRACE_SEGMENT_ALLOC)
			continue;
		recorded++;
		if (j >= f->nmallocs || f->mallocs[j++] != ev.size)
			mismatch++;
	}
	is_u64(recorded, 118, "the trace recorded 118 segments");
	is_u64(mismatch, 0, "each cudaMalloc has the size of the recorded segment, in order");
	is_u64(r.mallocs.n, 118, "118 cudaMalloc timings");
	is_u64(r.frees.n, 0, "no cudaFree");
	ok(r.mallocs.median_s <= r.mallocs.p99_s && r.mallocs.p99_s <= r.mallocs.max_s &&
	    r.mallocs.max_s <= r.mallocs.total_s, "median <= p99 <= max <= total");
	is_u64(r.used_before, 536870912, "memory in use before: the fake's 512 MiB");
	is_u64(r.used_peak - r.used_before, 3703570432, "in use at the peak: what was reserved");
	is_u64(r.used_end - r.used_before, 3703570432, "at the end: the cache is still held");
	ok(r.agree_reserved && r.agree_allocs && r.agree_frees && r.agree_oom,
	    "prediction and replay agree");
	ok(r.agree_resim, "the re-simulation with the replay's addresses agrees");
	is_u64(f->nlive, 0, "everything is given back after the replay");
	is_u64(r.driver_refusals, 0, "no driver refusals");
	/* the device log: each cudaMalloc the fake saw, in order, at its address */
	for (i = j = mismatch = 0; i < r.ncalls; i++)
		if (r.calls[i].op != 'a' || j >= f->nmallocs || f->mallocs[j++] != r.calls[i].size)
			mismatch++;
	is_u64(r.ncalls, 118, "the device log has the 118 calls");
	is_u64(mismatch, 0, "each a cudaMalloc of the size the fake saw, in order");
	replay_result_free(&r);
	fake_close(&g, f);
}

static void
resnet_nocache_touch(struct trace_mem *m)
{
	struct replay_result r;
	struct replay_gpu g;
	struct fake *f = fake_open(&g, 0);
	struct trace_event ev;
	uint64_t allocs = 0, bytes = 0;
	size_t i;

	for (i = 0; i < trace_mem_count(m); i++) {
		trace_mem_event(m, i, &ev);
		if (ev.op == TRACE_ALLOC && ev.size > 0) {
			allocs++;
			bytes += ev.size;
		}
	}
	if (!ok(replay(m, &policy_no_cache, 0, 1, &g, &r) == 0, "no-cache with --touch runs"))
		return;
	is_u64(f->nmallocs, 3836, "no-cache: a cudaMalloc per allocation (3836)");
	is_u64(f->nfrees, 3833, "and a cudaFree per free (3833)");
	is_u64(f->touches, allocs, "--touch writes every allocation once");
	is_u64(r.touched, bytes, "its requested bytes");
	is_u64(f->stray_touches, 0, "each inside a live segment");
	ok(r.agree_allocs && r.agree_frees && r.agree_resim, "prediction and re-simulation agree");
	replay_result_free(&r);
	fake_close(&g, f);
}

static void
resnet_capped(struct trace_mem *m)
{
	struct replay_result r;
	struct replay_gpu g;
	struct fake *f = fake_open(&g, 0);

	/* PyTorch under set_per_process_memory_fraction to 3150157824 B: OOM at 2381 */
	if (!ok(replay(m, &policy_caching, 3150157824, 0, &g, &r) == 0, "a capped replay runs"))
		return;
	ok(r.real.oomed, "capped at 3150157824 B, the replay runs out");
	is_u64(r.real.oom.event, 2381, "at event 2381, as PyTorch did");
	ok(r.agree_oom && r.agree_resim, "as predicted, and as re-simulated");
	is_u64(r.driver_refusals, 0, "the cap refused, not the driver");
	ok(r.used_peak - r.used_before <= 3150157824, "never more than the cap in use");
	{
		size_t i, k, allocs = 0, frees = 0, unknown = 0;

		/* each cudaFree in the device log releases a segment it reserved earlier */
		for (i = 0; i < r.ncalls; i++) {
			if (r.calls[i].op == 'a') {
				allocs++;
				continue;
			}
			frees++;
			for (k = 0; k < i && !(r.calls[k].op == 'a' &&
			    r.calls[k].addr == r.calls[i].addr &&
			    r.calls[k].size == r.calls[i].size); k++)
				;
			unknown += k == i;
		}
		is_u64(allocs, f->nmallocs, "the device log: every cudaMalloc the fake saw");
		is_u64(frees, f->nfrees, "and every cudaFree (%zu)", frees);
		ok(frees > 0, "the retries released segments");
		is_u64(unknown, 0, "each released where it was reserved");
	}
	replay_result_free(&r);
	fake_close(&g, f);

	/* the same on a GPU that small: the driver refuses */
	f = fake_open(&g, 3150157824);
	if (!ok(replay(m, &policy_caching, 0, 0, &g, &r) == 0, "a replay on a small GPU runs"))
		return;
	ok(r.real.oomed && r.real.oom.event == 2381, "a 3150157824-byte GPU runs out at event 2381 "
	    "(got %llu)", (unsigned long long)r.real.oom.event);
	ok(r.driver_refusals > 0, "refused by the driver (%llu times)",
	    (unsigned long long)r.driver_refusals);
	ok(!r.agree_oom, "which the uncapped prediction did not foresee");
	ok(!r.agree_resim, "and the re-simulation cannot reproduce");
	replay_result_free(&r);
	fake_close(&g, f);
}

static void
resnet_growth(struct trace_mem *m)
{
	struct replay_result r;
	struct replay_gpu g;
	struct fake *f = fake_open(&g, 0);

	if (!ok(replay(m, &policy_grow_only, 0, 0, &g, &r) == 0, "grow-only runs"))
		return;
	is_u64(r.real.peak_reserved, 4292870144, "grow-only reserves JAX's real peak pool");
	is_u64(f->nmallocs, r.predicted.device_allocs, "as many cudaMalloc calls as predicted");
	ok(r.agree_reserved && r.agree_resim, "and agrees");
	replay_result_free(&r);
	fake_close(&g, f);
}

static void
bad_trace(void)
{
	static const char bad[] = "{\"format\":\"gpumemsim-trace\",\"version\":1,\"events\":["
	    "{\"op\":\"alloc\",\"id\":1,\"size\":512},{\"op\":\"free\",\"id\":2}]}";
	char *path = tfile_write(".json", bad, sizeof(bad) - 1, 0), *cause = NULL;
	struct trace_opts topts = { .device = -1 };
	struct trace_mem *m = NULL;
	struct replay_spec spec = { .policy = &policy_caching };
	struct replay_result r;
	struct replay_gpu g;
	struct fake *f;
	int err;

	if (trace_mem_load(path, &topts, &m, &cause) < 0) {
		is_str(cause, "", "the bad trace loads (its error is in the replay)");
		free(cause);
		unlink(path);
		free(path);
		return;
	}
	f = fake_open(&g, 0);
	spec.mem = m;
	err = replay_run(&spec, &g, &r, &cause);
	is_u64((uint64_t)-err, (uint64_t)-GMS_ETRACE, "a free of an unknown id fails the replay");
	ok(cause != NULL && strstr(cause, "free of unknown id 2") != NULL, "saying so: %s",
	    cause ? cause : "(nothing)");
	is_u64(f->nlive, 0, "and leaves nothing allocated");
	free(cause);
	trace_mem_free(m);
	fake_close(&g, f);
	unlink(path);
	free(path);
}

int
main(void)
{
	struct trace_mem *m = load("resnet50-train-b32");

	resnet_caching(m);
	resnet_nocache_touch(m);
	resnet_capped(m);
	resnet_growth(m);
	trace_mem_free(m);
	bad_trace();
	return tap_done();
}
