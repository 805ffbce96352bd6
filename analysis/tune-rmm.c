/*
 * tune-rmm.c - `gpumemsim tune` on an RMM log (tune.h): RAPIDS RMM's
 * resources and their sizes, each as the line that sets it in Python.
 *
 * Tried: RMM's default pool (half the free memory, growing), a pool that
 * grows from nothing, a pool of exactly the smallest size that runs the log
 * (plan's search, to 256 B; the setting people bisect by hand on a GPU), the
 * arena at its default and at its smallest size, binning over the default
 * pool, cudaMallocAsync's pool (its model, with the range it lies in), and
 * cudaMalloc itself (no pool: the memory floor, at the driver's cost of a
 * call per request, never the answer).  Settings rank by fitting, then peak
 * reserved (cudaMallocAsync's: the top of its range, since its placement is
 * known only that well), then device calls.  Without --capacity or --gpu the defaults sized
 * from the GPU's free memory are left out and said so.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plan.h"
#include "analysis/tune.h"
#include "sim/batch.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/progress.h"
#include "sim/run.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

struct rmm_try {
	struct tune_rmm_cand *c;
	const struct trace_mem *m;
	uint64_t capacity;
};

static void
add(struct tune_rmm_report *rep, const char *spec, const char *setting)
{
	struct tune_rmm_cand *c;

	if (rep->n == TUNE_RMM_MAX)
		return;
	c = &rep->c[rep->n++];
	snprintf(c->spec, sizeof(c->spec), "%s", spec);
	snprintf(c->setting, sizeof(c->setting), "%s", setting);
}

/* One candidate: its spec parsed, run under the capacity. */
static void
try_one(void *arg, size_t i)
{
	struct rmm_try *t = &((struct rmm_try *)arg)[i];
	struct plan_policy p = { .label = t->c->spec };
	struct policy_kv *opts = NULL;
	char *store = NULL, *cause = NULL;
	size_t n = 0;
	int rc;

	if (policy_parse_spec(t->c->spec, &p.ops, &opts, &n, &store, &cause) < 0) {
		t->c->err = GMS_ECONFIG;
		free(cause);
		return;
	}
	p.opts = opts;
	p.nopts = n;
	rc = plan_fits(t->m, &p, t->capacity, NULL, &t->c->res);
	if (rc < 0)
		t->c->err = rc;
	else
		t->c->fits = rc;
	free(opts);
	free(store);
}

static int
better(const struct tune_rmm_cand *a, const struct tune_rmm_cand *b)
{
	if ((a->err == 0) != (b->err == 0))
		return a->err == 0;
	if (a->fits != b->fits)
		return a->fits;
	if (a->rank_peak != b->rank_peak)
		return a->rank_peak < b->rank_peak;
	return a->res.device_allocs < b->res.device_allocs;
}

int
tune_rmm_run(const struct trace_mem *m, uint64_t capacity, int threads,
    struct tune_rmm_report *rep, char **cause)
{
	static const struct policy_kv low[] = { { "bound", "low" } }, high[] = { { "bound", "high" } };
	struct plan_policy pols[2] = {
		{ .label = "rmm-pool", .ops = &policy_rmm_pool },
		{ .label = "rmm-arena", .ops = &policy_rmm_arena },
	};
	struct plan_report plan = { .pols = pols, .npols = 2 };
	struct run_spec ideal = { .mem = m, .policy = &policy_ideal };
	struct run_output out;
	struct plan_policy range[2] = {
		{ .label = "cuda-async", .ops = &policy_cuda_async, .opts = low, .nopts = 1 },
		{ .label = "cuda-async", .ops = &policy_cuda_async, .opts = high, .nopts = 1 },
	};
	struct sim_result r;
	struct rmm_try *tries;
	char spec[128], setting[256];
	size_t i, j;
	int err;

	memset(rep, 0, sizeof(*rep));
	rep->trace = trace_mem_header(m)->name;
	rep->capacity = capacity;
	/* the runs to come, for the progress line: the two pool searches, the
	   candidates (at most 8), cudaMallocAsync's range */
	progress_expect_runs_left(1 + 2 * PLAN_GUESS_RUNS + 8 + 2);
	/* the live peak, the floor of the pool searches: an ideal run's */
	err = run_simulate(&ideal, &out, cause);
	progress_run();
	rep->peak_live = plan.peak_live = out.res.peak_live;
	run_output_free(&out);
	if (err < 0)
		return err;
	plan_pools(m, &plan, threads);
	rep->min_pool = pols[0].min_pool;
	rep->min_arena = pols[1].min_pool;
	if (capacity != 0) {
		add(rep, "rmm-pool", "rmm.reinitialize(pool_allocator=True)");
		add(rep, "rmm-arena", "rmm.mr.set_current_device_resource(rmm.mr.ArenaMemoryResource("
		    "rmm.mr.CudaMemoryResource()))");
		add(rep, "rmm-binning", "rmm.mr.set_current_device_resource(rmm.mr.BinningMemoryResource("
		    "rmm.mr.PoolMemoryResource(rmm.mr.CudaMemoryResource()), 18, 22))");
	}
	if (rep->min_pool != 0) {
		snprintf(spec, sizeof(spec), "rmm-pool initial=%lluB maximum=%lluB",
		    (unsigned long long)rep->min_pool, (unsigned long long)rep->min_pool);
		snprintf(setting, sizeof(setting), "rmm.reinitialize(pool_allocator=True, "
		    "initial_pool_size=%llu, maximum_pool_size=%llu)",
		    (unsigned long long)rep->min_pool, (unsigned long long)rep->min_pool);
		add(rep, spec, setting);
	}
	add(rep, "rmm-pool initial=0", "rmm.reinitialize(pool_allocator=True, initial_pool_size=0)");
	if (rep->min_arena != 0) {
		snprintf(spec, sizeof(spec), "rmm-arena size=%lluB", (unsigned long long)rep->min_arena);
		snprintf(setting, sizeof(setting), "rmm.mr.set_current_device_resource("
		    "rmm.mr.ArenaMemoryResource(rmm.mr.CudaMemoryResource(), arena_size=%llu))",
		    (unsigned long long)rep->min_arena);
		add(rep, spec, setting);
	}
	add(rep, "cuda-async", "rmm.mr.set_current_device_resource(rmm.mr.CudaAsyncMemoryResource())");
	add(rep, "no-cache", "rmm.reinitialize() (cudaMalloc and cudaFree for every request)");
	progress_expect_runs_left(rep->n + 2);
	tries = gms_calloc(rep->n, sizeof(*tries));
	for (i = 0; i < rep->n; i++)
		tries[i] = (struct rmm_try){ .c = &rep->c[i], .m = m, .capacity = capacity };
	batch_map(rep->n, try_one, tries, threads);
	free(tries);
	/* cudaMallocAsync's placement is known only as a range */
	if (plan_fits(m, &range[0], 0, NULL, &r) >= 0)
		rep->async_low = r.peak_reserved;
	if (plan_fits(m, &range[1], 0, NULL, &r) >= 0)
		rep->async_high = r.peak_reserved;
	/* a model known only as a range competes with its top (and fits only if that does) */
	for (i = 0; i < rep->n; i++) {
		struct tune_rmm_cand *c = &rep->c[i];

		c->rank_peak = c->res.peak_reserved;
		if (strcmp(c->spec, "cuda-async") == 0 && c->err == 0) {
			c->rank_peak = GMS_MAX(c->rank_peak, rep->async_high);
			c->fits = c->fits && (capacity == 0 || rep->async_high <= capacity);
		}
	}
	/* best first, cudaMalloc last whatever it reserves */
	for (i = 1; i < rep->n; i++)
		for (j = i; j > 0 && strcmp(rep->c[j].spec, "no-cache") != 0 &&
		    (strcmp(rep->c[j - 1].spec, "no-cache") == 0 ||
		    better(&rep->c[j], &rep->c[j - 1])); j--) {
			struct tune_rmm_cand tmp = rep->c[j];

			rep->c[j] = rep->c[j - 1];
			rep->c[j - 1] = tmp;
		}
	for (i = 0; i < rep->n; i++)
		if (strcmp(rep->c[i].spec, "rmm-pool") == 0)
			rep->default_peak = rep->c[i].err ? 0 : rep->c[i].res.peak_reserved;
	return 0;
}

int
tune_rmm_fits(const struct tune_rmm_report *rep)
{
	return rep->n > 0 && rep->c[0].err == 0 && rep->c[0].fits &&
	    strcmp(rep->c[0].spec, "no-cache") != 0;
}

cJSON *
tune_rmm_json(const struct tune_rmm_report *rep)
{
	cJSON *o = cJSON_CreateObject(), *a, *it;
	size_t i;

	cJSON_AddStringToObject(o, "trace", rep->trace);
	if (rep->capacity)
		cJSON_AddNumberToObject(o, "capacity", (double)rep->capacity);
	else
		cJSON_AddNullToObject(o, "capacity");
	cJSON_AddNumberToObject(o, "peak_live", (double)rep->peak_live);
	if (rep->min_pool)
		cJSON_AddNumberToObject(o, "min_pool", (double)rep->min_pool);
	else
		cJSON_AddNullToObject(o, "min_pool");
	if (rep->min_arena)
		cJSON_AddNumberToObject(o, "min_arena", (double)rep->min_arena);
	else
		cJSON_AddNullToObject(o, "min_arena");
	it = cJSON_AddObjectToObject(o, "cuda_async_range");
	cJSON_AddNumberToObject(it, "low", (double)rep->async_low);
	cJSON_AddNumberToObject(it, "high", (double)rep->async_high);
	cJSON_AddBoolToObject(o, "fits", tune_rmm_fits(rep));
	a = cJSON_AddArrayToObject(o, "rmm");
	for (i = 0; i < rep->n; i++) {
		const struct tune_rmm_cand *c = &rep->c[i];

		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "policy", c->spec);
		cJSON_AddStringToObject(it, "setting", c->setting);
		if (c->err) {
			cJSON_AddStringToObject(it, "error", "could not run");
		} else {
			cJSON_AddBoolToObject(it, "fits", c->fits);
			cJSON_AddNumberToObject(it, "peak_reserved", (double)c->res.peak_reserved);
			cJSON_AddNumberToObject(it, "device_allocs", (double)c->res.device_allocs);
			if (c->res.oomed)
				cJSON_AddNumberToObject(it, "oom_event", (double)c->res.oom.event);
			else
				cJSON_AddNullToObject(it, "oom_event");
		}
		cJSON_AddItemToArray(a, it);
	}
	return o;
}

char *
tune_rmm_text(const struct tune_rmm_report *rep)
{
	char *out = NULL, res[64];
	size_t len = 0, i, width = 8;
	FILE *f = open_memstream(&out, &len);
	const struct tune_rmm_cand *b = &rep->c[0];

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	for (i = 0; i < rep->n; i++)
		width = GMS_MAX(width, strlen(rep->c[i].spec));
	fprintf(f, "%s: capacity %s, peak live %s; %zu RMM settings tried\n\n", rep->trace,
	    rep->capacity ? SZ(rep->capacity) : "unlimited", SZ(rep->peak_live), rep->n);
	if (!tune_rmm_fits(rep)) {
		fprintf(f, "  no RMM setting fits\n");
	} else {
		fprintf(f, "  %s\n  (gpumemsim: --policy '%s')\n\n", b->setting, b->spec);
		fprintf(f, "  peak reserved %s", SZ(b->res.peak_reserved));
		if (rep->default_peak > b->res.peak_reserved)
			fprintf(f, ", %s less than RMM's default pool (%s)",
			    SZ(rep->default_peak - b->res.peak_reserved), SZ(rep->default_peak));
		fprintf(f, "; %llu device allocations\n",
		    (unsigned long long)b->res.device_allocs);
	}
	if (rep->min_pool)
		fprintf(f, "  the smallest pool that runs it: %s (%llu B); the smallest arena: %s\n",
		    SZ(rep->min_pool), (unsigned long long)rep->min_pool,
		    rep->min_arena ? SZ(rep->min_arena) : "none up to the ceiling");
	fprintf(f, "\n  %-*s  %13s  %12s  %s\n", (int)width, "tried", "peak reserved",
	    "device calls", "result");
	for (i = 0; i < rep->n; i++) {
		const struct tune_rmm_cand *c = &rep->c[i];

		if (c->err) {
			fprintf(f, "  %-*s  %13s  %12s  could not run\n", (int)width, c->spec, "-", "-");
			continue;
		}
		if (c->res.oomed)
			snprintf(res, sizeof(res), "OOM at event %llu",
			    (unsigned long long)c->res.oom.event);
		else
			snprintf(res, sizeof(res), "fits");
		fprintf(f, "  %-*s  %13s  %12llu  %s%s\n", (int)width, c->spec,
		    SZ(c->res.peak_reserved), (unsigned long long)c->res.device_allocs, res,
		    strcmp(c->spec, "no-cache") == 0 ? " (no pool: a cudaMalloc per request)" :
		    strcmp(c->spec, "cuda-async") == 0 ? " (a model, ranked by its top: below)" : "");
	}
	fprintf(f, "\n  cuda-async: the driver's placement is not documented; as measured on an\n"
	    "  H200 its pool lies between %s (the live bytes' 32 MiB granules) and\n"
	    "  %s (freed blocks never merged) for this log (doc/ACCURACY.md)\n",
	    SZ(rep->async_low), SZ(rep->async_high));
	if (rep->capacity == 0)
		fprintf(f, "\n  RMM's default pool, arena and binning take half the GPU's free memory:\n"
		    "  give --capacity or --gpu to try them\n");
	fclose(f);
	return out;
}
