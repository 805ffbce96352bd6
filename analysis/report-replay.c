/*
 * report-replay.c - `replay`'s report: the simulation's prediction beside
 * what the GPU did, the memory the driver says is in use, and the time spent
 * in cudaMalloc and cudaFree, as text and JSON.
 */
#include "config.h"

#include <stdio.h>

#include <cJSON.h>

#include "analysis/report.h"
#include "replay/replay.h"
#include "sim/gms.h"

static const char *
yes(int agree)
{
	return agree ? "agree" : "DIFFER";
}

static void
oom_text(const struct sim_result *r, char *buf, size_t len)
{
	if (r->oomed)
		snprintf(buf, len, "event %llu", (unsigned long long)r->oom.event);
	else
		snprintf(buf, len, "none");
}

static void
calls_text(FILE *f, const char *what, const struct replay_calls *c)
{
	if (c->n == 0) {
		fprintf(f, "  %-10s %8s calls\n", what, "0");
		return;
	}
	fprintf(f, "  %-10s %8llu calls, %.1f ms in all, median %.1f us, p99 %.1f us, max %.1f us\n",
	    what, (unsigned long long)c->n, c->total_s * 1e3, c->median_s * 1e6, c->p99_s * 1e6,
	    c->max_s * 1e6);
}

void
report_replay_text(FILE *f, const char *trace, const struct replay_gpu *g, const char *policy, uint64_t capacity,
    int touch, const struct replay_result *r, const struct replay_result *base)
{
	char a[48], b[48], u0[32], u1[32], u2[32], pp[32];

	gms_fmt_size(g->total, a, sizeof(a));
	fprintf(f, "replay %s on %s (GPU %d, %s; %s)\n", trace, g->name, g->index, a, g->versions);
	if (capacity)
		gms_fmt_size(capacity, b, sizeof(b));
	fprintf(f, "policy %s, capacity %s%s\n\n", policy, capacity ? b : "unlimited",
	    touch ? ", every block written" : "");
	fprintf(f, "                   %16s %16s\n", "simulated", "replayed");
	fprintf(f, "  peak reserved    %16llu %16llu  %s\n",
	    (unsigned long long)r->predicted.peak_reserved,
	    (unsigned long long)r->real.peak_reserved, yes(r->agree_reserved));
	fprintf(f, "  device allocs    %16llu %16llu  %s\n",
	    (unsigned long long)r->predicted.device_allocs,
	    (unsigned long long)r->real.device_allocs, yes(r->agree_allocs));
	fprintf(f, "  device frees     %16llu %16llu  %s\n",
	    (unsigned long long)r->predicted.device_frees,
	    (unsigned long long)r->real.device_frees, yes(r->agree_frees));
	oom_text(&r->predicted, a, sizeof(a));
	oom_text(&r->real, b, sizeof(b));
	fprintf(f, "  out of memory    %16s %16s  %s%s\n\n", a, b, yes(r->agree_oom),
	    r->driver_refusals ? " (the driver refused)" : "");
	gms_fmt_size(r->used_before, u0, sizeof(u0));
	gms_fmt_size(r->used_peak - r->used_before, u1, sizeof(u1));
	gms_fmt_size(r->used_end - r->used_before, u2, sizeof(u2));
	gms_fmt_size(r->predicted_physical, pp, sizeof(pp));
	fprintf(f, "  device memory in use (cudaMemGetInfo): %s before; +%s at the peak\n"
	    "  (%llu B; the driver model predicted %s), +%s at the end\n",
	    u0, u1, (unsigned long long)(r->used_peak - r->used_before), pp, u2);
	calls_text(f, "cudaMalloc", &r->mallocs);
	calls_text(f, "cudaFree", &r->frees);
	fprintf(f, "  replay %.3f s for %llu events", r->wall_s, (unsigned long long)r->real.events);
	if (r->touched)
		gms_fmt_size(r->touched, a, sizeof(a));
	fprintf(f, "%s%s\n", r->touched ? ", wrote " : "", r->touched ? a : "");
	fprintf(f, "  re-simulated with the replay's addresses: %s\n",
	    r->agree_resim ? "reserved, device calls and OOM agree exactly" :
	    r->driver_refusals ? "not comparable (the driver refused memory)" : "DIFFERS");
	if (base != NULL) {
		fprintf(f, "\nbaseline no-cache: %llu cudaMalloc + %llu cudaFree, %.1f ms in them; "
		    "%s saves %lld calls and %.1f ms\n",
		    (unsigned long long)base->mallocs.n, (unsigned long long)base->frees.n,
		    (base->mallocs.total_s + base->frees.total_s) * 1e3, policy,
		    (long long)(base->mallocs.n + base->frees.n) -
		    (long long)(r->mallocs.n + r->frees.n),
		    (base->mallocs.total_s + base->frees.total_s - r->mallocs.total_s -
		    r->frees.total_s) * 1e3);
	}
}

static cJSON *
run_json(const struct sim_result *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "peak_reserved", (double)r->peak_reserved);
	cJSON_AddNumberToObject(o, "peak_allocated", (double)r->peak_allocated);
	cJSON_AddNumberToObject(o, "device_allocs", (double)r->device_allocs);
	cJSON_AddNumberToObject(o, "device_frees", (double)r->device_frees);
	cJSON_AddNumberToObject(o, "alloc_retries", (double)r->alloc_retries);
	if (r->oomed)
		cJSON_AddNumberToObject(o, "oom_event", (double)r->oom.event);
	else
		cJSON_AddNullToObject(o, "oom_event");
	return o;
}

static cJSON *
calls_json(const struct replay_calls *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "count", (double)c->n);
	cJSON_AddNumberToObject(o, "total_s", c->total_s);
	cJSON_AddNumberToObject(o, "median_s", c->median_s);
	cJSON_AddNumberToObject(o, "p99_s", c->p99_s);
	cJSON_AddNumberToObject(o, "max_s", c->max_s);
	return o;
}

cJSON *
report_replay_calls_json(const struct replay_result *r)
{
	cJSON *a = cJSON_CreateArray(), *c;
	char op[2] = { 0, 0 };
	size_t i;

	for (i = 0; i < r->ncalls; i++) {
		c = cJSON_CreateArray();
		op[0] = r->calls[i].op;
		cJSON_AddItemToArray(c, cJSON_CreateString(op));
		cJSON_AddItemToArray(c, cJSON_CreateNumber((double)r->calls[i].addr));
		cJSON_AddItemToArray(c, cJSON_CreateNumber((double)r->calls[i].size));
		cJSON_AddItemToArray(a, c);
	}
	return a;
}

void
report_replay_calls_text(FILE *f, const struct replay_result *r)
{
	size_t i;

	fprintf(f, "\ndevice calls, in order (op, address, size):\n");
	for (i = 0; i < r->ncalls; i++)
		fprintf(f, "  %c %#llx %llu\n", r->calls[i].op, (unsigned long long)r->calls[i].addr,
		    (unsigned long long)r->calls[i].size);
}

cJSON *
report_replay_json(const struct replay_result *r)
{
	cJSON *o = cJSON_CreateObject(), *agree, *mem;

	cJSON_AddItemToObject(o, "simulated", run_json(&r->predicted));
	cJSON_AddItemToObject(o, "replayed", run_json(&r->real));
	cJSON_AddItemToObject(o, "resimulated", run_json(&r->resim));
	agree = cJSON_AddObjectToObject(o, "agree");
	cJSON_AddBoolToObject(agree, "peak_reserved", r->agree_reserved);
	cJSON_AddBoolToObject(agree, "device_allocs", r->agree_allocs);
	cJSON_AddBoolToObject(agree, "device_frees", r->agree_frees);
	cJSON_AddBoolToObject(agree, "oom", r->agree_oom);
	cJSON_AddBoolToObject(agree, "resimulated", r->agree_resim);
	mem = cJSON_AddObjectToObject(o, "device_memory");
	cJSON_AddNumberToObject(mem, "before", (double)r->used_before);
	cJSON_AddNumberToObject(mem, "peak", (double)r->used_peak);
	cJSON_AddNumberToObject(mem, "end", (double)r->used_end);
	cJSON_AddNumberToObject(mem, "predicted_physical", (double)r->predicted_physical);
	cJSON_AddItemToObject(o, "cudaMalloc", calls_json(&r->mallocs));
	cJSON_AddItemToObject(o, "cudaFree", calls_json(&r->frees));
	cJSON_AddNumberToObject(o, "driver_refusals", (double)r->driver_refusals);
	cJSON_AddNumberToObject(o, "touched_bytes", (double)r->touched);
	cJSON_AddNumberToObject(o, "wall_s", r->wall_s);
	return o;
}

