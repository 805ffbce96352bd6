/*
 * cmd-replay.c - `gpumemsim replay`: a trace's policy run over a real GPU
 * (replay/), the simulation's prediction beside what the GPU did, and
 * whether they agree.  Exit 2 when the CUDA backend was not built.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "replay/replay.h"
#include "sim/cli.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "traces/tracemem.h"

static const char replay_usage[] = "gpumemsim replay [options] <trace>";

static int
replay_help(void)
{
	printf("usage: %s\n\n"
	    "Replay a trace on a real GPU: the policy's own code, its segments from\n"
	    "cudaMalloc and cudaFree (expandable segments: the driver's virtual memory\n"
	    "API). Reports the simulation's prediction beside the replay (peak reserved,\n"
	    "device calls, the OOM event) and whether they agree; the device memory in\n"
	    "use (cudaMemGetInfo) before, at its peak and at the end; the time spent in\n"
	    "cudaMalloc and cudaFree; and a re-simulation given the addresses the GPU\n"
	    "handed out, which must agree exactly. Needs a build with --with-cuda.\n\n"
	    "Options:\n"
	    "  -p, --policy <name>        allocator policy (default: caching)\n"
	    "  -c, --capacity <size>      the most the allocator may reserve, enforced as\n"
	    "                             PyTorch enforces its memory fraction: a capped\n"
	    "                             replay on a large GPU meets a small GPU's OOM\n"
	    "      --alloc-conf <conf>    caching: PYTORCH_CUDA_ALLOC_CONF settings\n"
	    "  -o, --option <key=value>   a policy option (repeatable)\n"
	    "      --touch                write every block once (cudaMemset), so the\n"
	    "                             memory is truly backed\n"
	    "      --baseline             replay with no-cache too: what caching saves\n"
	    "      --device <n>           the GPU to use (default: 0)\n"
	    "      --trace-device <n>     PyTorch snapshots: the device's trace to replay\n"
	    "      --fail-on-mismatch     exit 1 unless the replay agrees with the simulation\n"
	    "  -f, --format <text|json>   output format (default: text)\n"
	    "  -h, --help                 show this help\n\n"
	    "Example:\n"
	    "  gpumemsim replay traces/resnet50-train-b32.json --policy=caching --touch\n",
	    replay_usage);
	return EXIT_DONE;
}

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

static void
print_text(const char *trace, const struct replay_gpu *g, const char *policy, uint64_t capacity,
    int touch, const struct replay_result *r, const struct replay_result *base)
{
	char a[48], b[48], u0[32], u1[32], u2[32], pp[32];

	gms_fmt_size(g->total, a, sizeof(a));
	printf("replay %s on %s (GPU %d, %s; %s)\n", trace, g->name, g->index, a, g->versions);
	if (capacity)
		gms_fmt_size(capacity, b, sizeof(b));
	printf("policy %s, capacity %s%s\n\n", policy, capacity ? b : "unlimited",
	    touch ? ", every block written" : "");
	printf("                   %16s %16s\n", "simulated", "replayed");
	printf("  peak reserved    %16llu %16llu  %s\n",
	    (unsigned long long)r->predicted.peak_reserved,
	    (unsigned long long)r->real.peak_reserved, yes(r->agree_reserved));
	printf("  device allocs    %16llu %16llu  %s\n",
	    (unsigned long long)r->predicted.device_allocs,
	    (unsigned long long)r->real.device_allocs, yes(r->agree_allocs));
	printf("  device frees     %16llu %16llu  %s\n",
	    (unsigned long long)r->predicted.device_frees,
	    (unsigned long long)r->real.device_frees, yes(r->agree_frees));
	oom_text(&r->predicted, a, sizeof(a));
	oom_text(&r->real, b, sizeof(b));
	printf("  out of memory    %16s %16s  %s%s\n\n", a, b, yes(r->agree_oom),
	    r->driver_refusals ? " (the driver refused)" : "");
	gms_fmt_size(r->used_before, u0, sizeof(u0));
	gms_fmt_size(r->used_peak - r->used_before, u1, sizeof(u1));
	gms_fmt_size(r->used_end - r->used_before, u2, sizeof(u2));
	gms_fmt_size(r->predicted_physical, pp, sizeof(pp));
	printf("  device memory in use (cudaMemGetInfo): %s before; +%s at the peak\n"
	    "  (%llu B; the driver model predicted %s), +%s at the end\n",
	    u0, u1, (unsigned long long)(r->used_peak - r->used_before), pp, u2);
	calls_text(stdout, "cudaMalloc", &r->mallocs);
	calls_text(stdout, "cudaFree", &r->frees);
	printf("  replay %.3f s for %llu events", r->wall_s, (unsigned long long)r->real.events);
	if (r->touched)
		gms_fmt_size(r->touched, a, sizeof(a));
	printf("%s%s\n", r->touched ? ", wrote " : "", r->touched ? a : "");
	printf("  re-simulated with the replay's addresses: %s\n",
	    r->agree_resim ? "reserved, device calls and OOM agree exactly" :
	    r->driver_refusals ? "not comparable (the driver refused memory)" : "DIFFERS");
	if (base != NULL) {
		printf("\nbaseline no-cache: %llu cudaMalloc + %llu cudaFree, %.1f ms in them; "
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

static cJSON *
result_json(const struct replay_result *r)
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

static int
agrees(const struct replay_result *r)
{
	return r->agree_reserved && r->agree_allocs && r->agree_frees && r->agree_oom &&
	    r->agree_resim;
}

int
cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "alloc-conf", required_argument, NULL, 'A' },
		{ "option", required_argument, NULL, 'o' },
		{ "touch", no_argument, NULL, 'T' },
		{ "baseline", no_argument, NULL, 'B' },
		{ "device", required_argument, NULL, 'd' },
		{ "trace-device", required_argument, NULL, 'D' },
		{ "fail-on-mismatch", no_argument, NULL, 'M' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_opts topts = { .device = -1 };
	struct replay_spec spec = { 0 };
	struct replay_result r, base;
	struct replay_gpu g = { 0 };
	struct trace_mem *m = NULL;
	struct policy_kv *opts = NULL;
	const char *policy = "caching";
	int json = 0, baseline = 0, strict = 0, gpu = 0, have_r = 0, have_base = 0, ch, rc, err;
	char *cause = NULL, *text;
	cJSON *o;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":p:c:o:f:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			policy = optarg;
			break;
		case 'c':
			if ((rc = cli_capacity(optarg, &spec.capacity)) != 0)
				goto done;
			break;
		case 'A':
			cli_add_kv(&opts, &spec.nopts, "alloc_conf", optarg);
			break;
		case 'o':
			if (cli_add_option(&opts, &spec.nopts, optarg) < 0) {
				rc = EXIT_INPUT;
				goto done;
			}
			break;
		case 'T':
			spec.touch = 1;
			break;
		case 'B':
			baseline = 1;
			break;
		case 'd':
			if ((rc = cli_device(optarg, &gpu)) != 0)
				goto done;
			break;
		case 'D':
			if ((rc = cli_device(optarg, &topts.device)) != 0)
				goto done;
			break;
		case 'M':
			strict = 1;
			break;
		case 'f':
			if ((rc = cli_choice("--format", optarg, cli_formats, &json)) != 0)
				goto done;
			break;
		case 'h':
			rc = replay_help();
			goto done;
		default:
			rc = cli_bad_option("replay", replay_usage, ch, argv);
			goto done;
		}
	}
	if (optind != argc - 1) {
		rc = cli_one_trace("replay", replay_usage, argc);
		goto done;
	}
	spec.opts = opts;
	if ((spec.policy = policy_find(policy, &cause)) == NULL) {
		err = GMS_ECONFIG;
		goto fail;
	}
	/* The GPU first: without one, there is nothing to read the trace for. */
	if ((err = replay_cuda_open(gpu, &g, &cause)) < 0 ||
	    (err = trace_mem_load(argv[optind], &topts, &m, &cause)) < 0)
		goto fail;
	spec.mem = m;
	if ((err = replay_run(&spec, &g, &r, &cause)) < 0)
		goto fail;
	have_r = 1;
	if (baseline) {
		struct replay_spec bs = spec;

		bs.policy = &policy_no_cache;
		bs.opts = NULL;
		bs.nopts = 0;
		if ((err = replay_run(&bs, &g, &base, &cause)) < 0)
			goto fail;
		have_base = 1;
	}
	if (json) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "trace", trace_mem_header(m)->name);
		cJSON_AddStringToObject(o, "gpu", g.name);
		cJSON_AddNumberToObject(o, "gpu_index", g.index);
		cJSON_AddNumberToObject(o, "gpu_total", (double)g.total);
		cJSON_AddStringToObject(o, "versions", g.versions);
		cJSON_AddStringToObject(o, "policy", spec.policy->name);
		if (spec.capacity)	/* null when unlimited, as run's JSON */
			cJSON_AddNumberToObject(o, "capacity", (double)spec.capacity);
		else
			cJSON_AddNullToObject(o, "capacity");
		cJSON_AddBoolToObject(o, "touch", spec.touch);
		cJSON_AddItemToObject(o, "result", result_json(&r));
		if (have_base)
			cJSON_AddItemToObject(o, "baseline", result_json(&base));
		text = cJSON_Print(o);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(o);
	} else {
		print_text(trace_mem_header(m)->name, &g, spec.policy->name, spec.capacity,
		    spec.touch, &r, have_base ? &base : NULL);
	}
	rc = strict && !agrees(&r) ? EXIT_CHECK : EXIT_DONE;
	if (fflush(stdout) != 0) {
		cli_error("cannot write the report: %s", strerror(errno));
		rc = EXIT_SYSTEM;
	}
	goto out;
fail:
	cli_error("%s", cause);
	free(cause);
	rc = gms_exit_code(err);
out:
	if (have_r)
		replay_result_free(&r);
	if (have_base)
		replay_result_free(&base);
	if (g.close != NULL)
		g.close(g.ctx);
	trace_mem_free(m);
done:
	free(opts);
	return rc;
}
