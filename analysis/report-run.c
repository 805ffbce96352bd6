/*
 * report-run.c - the report of one run: JSON with exactly the keys of
 * the keys scripts depend on (gpumemsim-run(1), OUTPUT), and a text summary a person reads in five
 * seconds (peaks, fragmentation, overhead over the live peak, device calls,
 * the out-of-memory story, and whether the recording is reproduced).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "sim/gms.h"
#include "sim/run.h"

uint64_t
report_capacity(const struct report_run *run)
{
	return run->res->limit;
}

double
report_fragmentation(const struct sim_result *res)
{
	if (res->peak_reserved == 0)
		return 0.0;
	return 1.0 - (double)res->peak_allocated / (double)res->peak_reserved;
}

/*
 * The BFC allocator's fragmentation at the end: the share of its free bytes
 * (its regions less what is in use) outside the largest free chunk.
 */
static double
bfc_fragmentation(const struct sim_result *r)
{
	uint64_t free_bytes = r->end_reserved > r->end_allocated ?
	    r->end_reserved - r->end_allocated : 0;

	if (free_bytes == 0)
		return 0.0;
	return (double)(free_bytes - GMS_MIN(r->end_largest_free, free_bytes)) / (double)free_bytes;
}

/*
 * A job recorded without a GPU, replayed by PyTorch's allocator: the range
 * its real peak reserved was measured to fall in, whole 2 MiB segments out.
 */
static int
nogpu_range(const struct report_run *run, uint64_t *lo, uint64_t *hi)
{
	const uint64_t seg = (uint64_t)2 << 20;
	double u = report_nogpu_uncertainty(run->hdr), p = (double)run->res->peak_reserved;

	if (u < 0 || strcmp(run->policy, "caching") != 0 || run->res->peak_reserved == 0)
		return 0;
	*lo = (uint64_t)(p * (1.0 - u)) / seg * seg;
	*hi = ((uint64_t)(p * (1.0 + u)) + seg - 1) / seg * seg;
	return 1;
}

const char *
report_observed_value(const struct report_observed_key *k, int which, char *buf, size_t size)
{
	if (k->ratio)
		snprintf(buf, size, "%.6g", which ? k->simulated_ratio : k->observed_ratio);
	else
		snprintf(buf, size, "%llu", (unsigned long long)(which ? k->simulated : k->observed));
	return buf;
}

int
report_observed_match(const struct report_observed_key *k)
{
	char a[32], b[32];

	if (!k->ratio)
		return k->simulated == k->observed;
	return strcmp(report_observed_value(k, 1, a, sizeof(a)),
	    report_observed_value(k, 0, b, sizeof(b))) == 0;
}

int
report_observed(const struct report_run *run, struct report_observed_key *keys,
    int *all_match)
{
	const struct sim_result *r = run->res;
	const struct { const char *key; uint64_t sim; } cand[REPORT_OBSERVED_KEYS] = {
		{ "peak_reserved", r->peak_reserved },
		{ "peak_allocated", r->peak_allocated },
		{ "peak_requested", r->peak_requested },
		{ "device_allocs", r->device_allocs },
		{ "alloc_retries", r->alloc_retries },
		{ "ooms", (uint64_t)r->oomed },
	};
	const cJSON *obs = run->hdr->observed, *it;
	int i, n = 0;

	if (obs == NULL)
		return -1;
	*all_match = r->segment_mismatches == 0 && r->in_use_mismatches == 0;
	for (i = 0; i < (int)(sizeof(cand) / sizeof(cand[0])); i++) {
		it = cJSON_GetObjectItemCaseSensitive(obs, cand[i].key);
		if (!cJSON_IsNumber(it) || it->valuedouble < 0)
			continue;
		keys[n] = (struct report_observed_key){ .key = cand[i].key,
		    .simulated = cand[i].sim, .observed = (uint64_t)it->valuedouble };
		if (keys[n].simulated != keys[n].observed)
			*all_match = 0;
		n++;
	}
	/* a BFC recording's fragmentation at its end, where the run went to the end */
	it = cJSON_GetObjectItemCaseSensitive(obs, "fragmentation");
	if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= 1 && !r->oomed) {
		keys[n] = (struct report_observed_key){ .key = "fragmentation", .ratio = 1,
		    .simulated_ratio = bfc_fragmentation(r), .observed_ratio = it->valuedouble };
		if (!report_observed_match(&keys[n]))
			*all_match = 0;
		n++;
	}
	/* a recording that ran out: the simulation must run out at the same event */
	if (r->recorded_ooms > 0 && r->oomed && r->oom.event != r->recorded_oom_event) {
		keys[n] = (struct report_observed_key){ .key = "oom_event",
		    .simulated = r->oom.event, .observed = r->recorded_oom_event };
		*all_match = 0;
		n++;
	}
	return n;
}

/*
 * The limit the recording ran under, where it shows it reached one
 * (observed limit_min..limit_max, from the snapshot's OOM or retries): 1
 * with the interval, else 0.
 */
static int
recorded_limit(const struct report_run *run, uint64_t *lo, uint64_t *hi)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(run->hdr->observed, "limit_min");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(run->hdr->observed, "limit_max");

	if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || a->valuedouble < 0 ||
	    b->valuedouble < a->valuedouble)
		return 0;
	*lo = (uint64_t)a->valuedouble;
	*hi = (uint64_t)b->valuedouble;
	return 1;
}

/*
 * Whether the run is the recording's own allocator under its own settings:
 * PyTorch's caching allocator with the settings the recording was made
 * under (compared parsed), TensorFlow's or JAX's BFC allocator in the mode
 * the profile shows; any other is a what-if, not held to the recording.
 * NULL when it is, else what differs (a static string).
 */
static const char *
what_if(const struct report_run *run)
{
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(run->hdr->observed, "allocator");
	const char *mode, *fw;
	uint64_t limit;
	size_t i;

	if (!cJSON_IsString(al) || run->ops == NULL)
		return NULL;
	if (strcmp(al->valuestring, "pytorch-caching") == 0) {
		const char *conf = NULL;

		if (!(run->ops->traits & POLICY_ALLOC_CONF))
			return "another allocator";
		for (i = 0; i < run->nopts; i++)
			if (strcmp(run->opts[i].key, "alloc_conf") == 0)
				conf = run->opts[i].value;
		return run_conf_recorded(run->hdr, conf) ? NULL : "another setting";
	}
	if (run_recorded_bfc(run->hdr, &mode, &fw, &limit)) {
		if (!(run->ops->traits & POLICY_BFC))
			return "another allocator";
		return mode != NULL && strcmp(mode, run->policy) != 0 ? "another mode" : NULL;
	}
	return NULL;
}

/*
 * Whether the run can be held to what was recorded: the recording's own
 * allocator and settings (what_if); under a recorded limit, only at a
 * capacity inside it; else without a capacity, or with one that changed
 * nothing (every number still matches).
 */
static int
comparable(const struct report_run *run, int all_match)
{
	uint64_t lo, hi, cap = report_capacity(run);

	if (what_if(run) != NULL)
		return 0;
	if (recorded_limit(run, &lo, &hi))
		return cap >= lo && cap <= hi;
	return cap == 0 || all_match;
}

/* Where the recorded job itself ran out of memory, when the trace says. */
static void
recorded_oom_json(cJSON *o, const struct sim_result *r)
{
	cJSON *ro;

	if (r->recorded_ooms == 0)
		return;
	ro = cJSON_AddObjectToObject(o, "recorded_oom");
	cJSON_AddNumberToObject(ro, "event", (double)r->recorded_oom_event);
	cJSON_AddNumberToObject(ro, "size", (double)r->recorded_oom_size);
	cJSON_AddNumberToObject(ro, "count", (double)r->recorded_ooms);
}

/* Whether every observed number agrees (the segments and bytes in use aside). */
static int
numbers_match(const struct report_observed_key *keys, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!report_observed_match(&keys[i]))
			return 0;
	return 1;
}

static cJSON *
observed_json(const struct report_run *run)
{
	struct report_observed_key keys[REPORT_OBSERVED_KEYS];
	cJSON *o, *mm;
	int n, i, all;

	if ((n = report_observed(run, keys, &all)) < 0) {
		if (run->res->recorded_ooms == 0)
			return cJSON_CreateNull();
		o = cJSON_CreateObject();
		recorded_oom_json(o, run->res);
		return o;
	}
	o = cJSON_Duplicate(run->hdr->observed, 1);
	recorded_oom_json(o, run->res);
	cJSON_AddBoolToObject(o, "matches", all);
	cJSON_AddBoolToObject(o, "numbers_match", numbers_match(keys, n));
	cJSON_AddBoolToObject(o, "comparable", comparable(run, all));
	mm = cJSON_AddObjectToObject(o, "mismatches");
	for (i = 0; i < n; i++) {
		cJSON *m;

		if (report_observed_match(&keys[i]))
			continue;
		m = cJSON_AddObjectToObject(mm, keys[i].key);
		cJSON_AddNumberToObject(m, "simulated", keys[i].ratio ? keys[i].simulated_ratio :
		    (double)keys[i].simulated);
		cJSON_AddNumberToObject(m, "observed", keys[i].ratio ? keys[i].observed_ratio :
		    (double)keys[i].observed);
	}
	if (run->res->observed_in_use > 0) {
		cJSON *iu = cJSON_AddObjectToObject(o, "in_use");

		cJSON_AddNumberToObject(iu, "observed", (double)run->res->observed_in_use);
		cJSON_AddBoolToObject(iu, "match", run->res->in_use_mismatches == 0);
		if (run->res->in_use_mismatches > 0) {
			cJSON_AddNumberToObject(iu, "mismatches", (double)run->res->in_use_mismatches);
			cJSON_AddNumberToObject(iu, "first_mismatch_event",
			    (double)run->res->first_in_use_mismatch);
			cJSON_AddNumberToObject(iu, "first_simulated",
			    (double)run->res->first_in_use_simulated);
			cJSON_AddNumberToObject(iu, "first_observed",
			    (double)run->res->first_in_use_observed);
		}
	}
	if (run->res->observed_segments > 0) {
		cJSON *seg = cJSON_AddObjectToObject(o, "segments");

		cJSON_AddNumberToObject(seg, "observed", (double)run->res->observed_segments);
		cJSON_AddBoolToObject(seg, "match", run->res->segment_mismatches == 0);
		if (run->res->segment_mismatches > 0)
			cJSON_AddNumberToObject(seg, "first_mismatch_event",
			    (double)run->res->first_segment_mismatch);
	}
	return o;
}

cJSON *
report_run_json(const struct report_run *run)
{
	const struct sim_result *r = run->res;
	cJSON *o = cJSON_CreateObject(), *opts, *oom;
	uint64_t before, lo, hi;
	size_t i;

	cJSON_AddStringToObject(o, "trace", run->trace);
	cJSON_AddStringToObject(o, "policy", run->policy);
	opts = cJSON_AddObjectToObject(o, "options");
	cJSON_AddStringToObject(opts, "placement", run->placement);
	for (i = 0; i < run->nopts; i++)
		cJSON_AddStringToObject(opts, run->opts[i].key, run->opts[i].value);
	if (run->recorded_conf)
		cJSON_AddBoolToObject(opts, "alloc_conf_as_recorded", 1);
	if (run->as_recorded && run->recorded_conf == NULL)
		cJSON_AddBoolToObject(opts, "as_recorded", 1);
	if (run->gpu)
		cJSON_AddStringToObject(opts, "gpu", run->gpu);
	if (report_capacity(run))
		cJSON_AddNumberToObject(o, "capacity", (double)report_capacity(run));
	else
		cJSON_AddNullToObject(o, "capacity");
	cJSON_AddNumberToObject(o, "events", (double)r->events);
	cJSON_AddNumberToObject(o, "peak_live", (double)r->peak_live);
	if ((before = trace_peak_before(run->hdr)) > 0) {
		/* a profile's window began after the allocator held this */
		cJSON_AddNumberToObject(o, "peak_in_use_before", (double)before);
		cJSON_AddBoolToObject(o, "oom_before_window", report_capacity(run) != 0 &&
		    before > report_capacity(run));
	}
	cJSON_AddNumberToObject(o, "peak_reserved", (double)r->peak_reserved);
	if (nogpu_range(run, &lo, &hi)) {	/* only then: the contract's keys stay */
		cJSON *range = cJSON_AddArrayToObject(o, "peak_reserved_range");

		cJSON_AddItemToArray(range, cJSON_CreateNumber((double)lo));
		cJSON_AddItemToArray(range, cJSON_CreateNumber((double)hi));
	}
	cJSON_AddNumberToObject(o, "peak_allocated", (double)r->peak_allocated);
	cJSON_AddNumberToObject(o, "peak_requested", (double)r->peak_requested);
	cJSON_AddNumberToObject(o, "device_allocs", (double)r->device_allocs);
	cJSON_AddNumberToObject(o, "device_frees", (double)r->device_frees);
	cJSON_AddNumberToObject(o, "alloc_retries", (double)r->alloc_retries);
	if (r->caught_ooms > 0) {	/* only then: the contract's keys stay as they were */
		cJSON_AddNumberToObject(o, "caught_ooms", (double)r->caught_ooms);
		cJSON_AddNumberToObject(o, "first_caught_oom", (double)r->first_caught_oom);
	}
	cJSON_AddNumberToObject(o, "fragmentation", report_fragmentation(r));
	if (r->oomed) {
		oom = cJSON_AddObjectToObject(o, "oom");
		cJSON_AddNumberToObject(oom, "event", (double)r->oom.event);
		cJSON_AddNumberToObject(oom, "size", (double)r->oom.size);
		cJSON_AddNumberToObject(oom, "live", (double)r->oom.live);
		cJSON_AddNumberToObject(oom, "allocated", (double)r->oom.allocated);
		cJSON_AddNumberToObject(oom, "reserved", (double)r->oom.reserved);
		cJSON_AddNumberToObject(oom, "largest_free", (double)r->oom.largest_free);
		if (r->oom.at)
			cJSON_AddStringToObject(oom, "at", r->oom.at);
		else
			cJSON_AddNullToObject(oom, "at");
		if (r->oom.mark)
			cJSON_AddStringToObject(oom, "mark", r->oom.mark);
		else
			cJSON_AddNullToObject(oom, "mark");
	} else {
		cJSON_AddNullToObject(o, "oom");
	}
	cJSON_AddItemToObject(o, "observed", observed_json(run));
	cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(run->hdr));
	return o;
}

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

char *
report_settings_text(const struct report_run *run)
{
	const cJSON *src = run->hdr->source, *from, *why;
	const char *mode, *fw, *assumed = "";
	uint64_t limit;

	/* a profile that does not say its framework: the one taken, said */
	from = src != NULL ? cJSON_GetObjectItemCaseSensitive(src, "framework_from") : NULL;
	if ((run->ops->traits & POLICY_BFC) && run->as_recorded && cJSON_IsString(from) &&
	    strncmp(from->valuestring, "assumed", 7) == 0)
		assumed = "  the profile does not say whether TensorFlow or JAX ran it: "
		    "TensorFlow's allocator taken (--option flavor=jax for JAX's)\n";
	if (run_recorded_bfc(run->hdr, &mode, &fw, &limit) && mode == NULL && run->as_recorded &&
	    (run->ops->traits & POLICY_WHOLE_POOL)) {
		why = cJSON_GetObjectItemCaseSensitive(src, "mode_unknown");
		return gms_asprintf("%s  %s: preallocate is simulated, the framework's default "
		    "(--policy=grow-only for a job run with %s)\n", assumed, cJSON_IsString(why) ?
		    why->valuestring : "the profile does not say the allocator's mode",
		    strcmp(fw, "jax") == 0 ? "XLA_PYTHON_CLIENT_PREALLOCATE=false" :
		    "memory growth on");
	}
	if (assumed[0] != '\0')
		return gms_strdup(assumed);

	if (!(run->ops->traits & POLICY_ALLOC_CONF) || src == NULL || policy_opt(&(struct policy_args){
	    .opts = run->opts, .nopts = run->nopts }, "alloc_conf") != NULL)
		return NULL;
	from = cJSON_GetObjectItemCaseSensitive(src, "from");
	if (!cJSON_IsString(from) || strcmp(from->valuestring, "pytorch memory snapshot") != 0 ||
	    cJSON_GetObjectItemCaseSensitive(src, "allocator_settings") != NULL)
		return NULL;
	return gms_strdup("  the snapshot does not record its allocator settings (PyTorch "
	    "before 2.9 does not): the defaults are simulated (--alloc-conf to say otherwise)\n");
}

/* The out-of-memory paragraph of a run that ran out. */
static void
oom_story(FILE *f, const struct report_run *run)
{
	const struct sim_result *r = run->res;
	uint64_t cap = report_capacity(run);

	fprintf(f, "OUT OF MEMORY at event %llu: a request for %s (%llu B) on stream %lld",
	    (unsigned long long)r->oom.event, SZ(r->oom.size),
	    (unsigned long long)r->oom.size, (long long)trace_stream_base(r->oom.stream));
	if (trace_stream_pool(r->oom.stream) > 0)
		fprintf(f, " into CUDA graph pool %u", trace_stream_pool(r->oom.stream));
	if (r->oom.at)
		fprintf(f, ", at %s", r->oom.at);
	fprintf(f, "\n");
	if (r->oom.mark)
		fprintf(f, "  after mark \"%s\" (event %llu)\n", r->oom.mark,
		    (unsigned long long)r->oom.mark_event);
	fprintf(f, "  capacity %s: reserved %s after releasing the cache, "
	    "allocated %s, live %s\n", cap ? SZ(cap) : "unlimited",
	    SZ(r->oom.reserved), SZ(r->oom.allocated), SZ(r->oom.live));
	if (!cap && (run->ops->traits & POLICY_ALLOC_CONF))
		fprintf(f, "  with no capacity set, no expandable segment can hold this "
		    "request: one spans the device's memory (%s)\n",
		    run->hdr->device_total ? SZ(run->hdr->device_total) :
		    "80.00 GiB when the trace does not say");
	else if (!cap)
		fprintf(f, "  with no capacity set, the policy itself cannot serve a "
		    "request this large\n");
	if (r->oom.reserved > r->oom.allocated)
		fprintf(f, "  %s reserved but unallocated; the largest free block is %s\n",
		    SZ(r->oom.reserved - r->oom.allocated), SZ(r->oom.largest_free));
	fprintf(f, "  the trace needs at least %s live (its peak, event %llu)\n",
	    SZ(r->peak_live), (unsigned long long)r->peak_live_event);
}

char *
report_oom_text(const struct report_run *run)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	oom_story(f, run);
	fclose(f);
	return out;
}

char *
report_run_text(const struct report_run *run)
{
	const struct sim_result *r = run->res;
	struct report_observed_key keys[REPORT_OBSERVED_KEYS];
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	uint64_t cap = report_capacity(run), before, rlo, rhi;
	char *note;
	size_t k;
	int n, i, all;

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	fprintf(f, "%s: %llu event%s (%llu alloc%s, %llu free%s)\n", run->trace,
	    (unsigned long long)r->events, GMS_PLURAL(r->events), (unsigned long long)r->allocs,
	    GMS_PLURAL(r->allocs), (unsigned long long)r->frees, GMS_PLURAL(r->frees));
	fprintf(f, "policy %s", run->policy);
	for (k = 0; k < run->nopts; k++)
		fprintf(f, "%s%s=%s", k ? ", " : " (", run->opts[k].key, run->opts[k].value);
	fprintf(f, "%s, capacity %s%s%s%s%s, placement %s\n", run->recorded_conf || run->as_recorded ?
	    ", as recorded)" : run->nopts ? ")" : "",
	    cap ? gms_fmt_capacity(cap, (char[48]){ 0 }, 48) : "unlimited", run->gpu ? " (" : "",
	    run->gpu ? run->gpu : "", run->gpu ? " less the context)" : "",
	    cap != run->capacity ? " (per_process_memory_fraction)" : "", run->placement);
	if ((note = report_settings_text(run)) != NULL) {
		fprintf(f, "%s", note);
		free(note);
	}
	fputc('\n', f);
	if ((note = report_incomplete_text(run->hdr)) != NULL) {
		fprintf(f, "%s\n", note);
		free(note);
	}

	fprintf(f, "  peak reserved   %12s  %14llu B\n", SZ(r->peak_reserved),
	    (unsigned long long)r->peak_reserved);
	if (nogpu_range(run, &rlo, &rhi))
		fprintf(f, "  on the GPU      %12s  %14llu B  to %s (%llu B): where PyTorch's own "
		    "is expected\n", SZ(rlo), (unsigned long long)rlo, SZ(rhi),
		    (unsigned long long)rhi);
	fprintf(f, "  peak allocated  %12s  %14llu B\n", SZ(r->peak_allocated),
	    (unsigned long long)r->peak_allocated);
	fprintf(f, "  peak requested  %12s  %14llu B\n", SZ(r->peak_requested),
	    (unsigned long long)r->peak_requested);
	fprintf(f, "  peak live       %12s  %14llu B  the lower bound (event %llu)\n",
	    SZ(r->peak_live), (unsigned long long)r->peak_live,
	    (unsigned long long)r->peak_live_event);
	if ((before = trace_peak_before(run->hdr)) > 0 && !trace_peak_in_window(run->hdr))
		fprintf(f, "  before window   %12s  %14llu B  what the allocator held before the "
		    "profile began%s\n", SZ(before), (unsigned long long)before,
		    cap != 0 && before > cap ? ": more than the capacity, OUT OF MEMORY BEFORE IT" :
		    " (its peak_bytes_in_use)");
	else if (before > 0)
		fprintf(f, "  in the window   %12s  %14llu B  what the allocator recorded in use: "
		    "free chunks made before the window, handed out whole, are not in the "
		    "replay%s\n", SZ(before), (unsigned long long)before,
		    cap != 0 && before > cap ? ": more than the capacity, OUT OF MEMORY" : "");
	fprintf(f, "  fragmentation   %11.1f%%  1 - peak allocated / peak reserved\n",
	    100.0 * report_fragmentation(r));
	if (r->peak_live > 0 && !r->oomed && (run->ops->traits & POLICY_WHOLE_POOL))
		/* the pool is the limit, whatever the job needed: no overhead to speak of */
		fprintf(f, "  overhead                 -  a preallocated pool: its limit, reserved "
		    "whole at the first allocation\n");
	else if (r->peak_live > 0 && !r->oomed)
		fprintf(f, "  overhead        %11.1f%%  peak reserved over the live peak\n",
		    100.0 * ((double)r->peak_reserved / (double)r->peak_live - 1.0));
	fprintf(f, "  device calls    %llu alloc%s, %llu free%s, %llu retr%s\n",
	    (unsigned long long)r->device_allocs, GMS_PLURAL(r->device_allocs),
	    (unsigned long long)r->device_frees, GMS_PLURAL(r->device_frees),
	    (unsigned long long)r->alloc_retries, r->alloc_retries == 1 ? "y" : "ies");

	if (r->caught_ooms > 0)
		fprintf(f, "  caught OOMs     %llu: cuDNN workspaces that did not fit, the first at "
		    "event %llu\n                  (PyTorch catches them and tries the next plan, "
		    "whose workspace\n                  the recording does not hold: taken as "
		    "none)\n", (unsigned long long)r->caught_ooms,
		    (unsigned long long)r->first_caught_oom);
	if (r->oomed) {
		fputc('\n', f);
		oom_story(f, run);
	}

	if (r->empty_caches_ignored > 0)
		fprintf(f, "\n  the trace calls torch.cuda.empty_cache() %llu time%s; %s has no such "
		    "call (its framework keeps what it reserved): ignored\n",
		    (unsigned long long)r->empty_caches_ignored,
		    r->empty_caches_ignored == 1 ? "" : "s", run->policy);
	if (r->recorded_ooms > 0) {
		fprintf(f, "\nRECORDED OUT OF MEMORY: the job itself ran out at event %llu, asking "
		    "for %s (%llu B)", (unsigned long long)r->recorded_oom_event,
		    SZ(r->recorded_oom_size), (unsigned long long)r->recorded_oom_size);
		if (r->recorded_ooms > 1)
			fprintf(f, "; %llu failures in all", (unsigned long long)r->recorded_ooms);
		fprintf(f, "\n");
	}

	if ((n = report_observed(run, keys, &all)) >= 0) {
		const cJSON *al = cJSON_GetObjectItemCaseSensitive(run->hdr->observed, "allocator");
		uint64_t lo, hi;
		int limited = recorded_limit(run, &lo, &hi);

		fprintf(f, "\nobserved (%s, as recorded): ",
		    cJSON_IsString(al) ? al->valuestring : "recording allocator");
		if (what_if(run) != NULL) {
			fprintf(f, "a what-if (%s than the recording's): not comparable\n",
			    what_if(run));
			n = 0;
		} else if (limited && !comparable(run, all)) {
			fprintf(f, "recorded under a limit between %llu and %llu B (the job reached "
			    "it: %s): %s\n", (unsigned long long)lo, (unsigned long long)hi,
			    r->recorded_ooms ? "it ran out of memory" : "it released its cache to "
			    "retry", cap ? "not this capacity, so not comparable" :
			    "give --capacity in that range to compare");
			n = 0;
		} else if (limited) {
			fprintf(f, "%s (the recorded limit was between %llu and %llu B)\n",
			    all && n > 0 ? "reproduced exactly" : "NOT reproduced",
			    (unsigned long long)lo, (unsigned long long)hi);
		} else if (all && n > 0) {
			fprintf(f, "reproduced exactly (%d number%s%s)\n", n, n == 1 ? "" : "s",
			    r->observed_segments ? " and every segment" : r->observed_in_use ?
			    " and the bytes in use at every event" : "");
		} else if (cap) {
			fprintf(f, "recorded without this capacity: not comparable\n");
			n = 0;
		} else if (n == 0) {
			fprintf(f, "nothing this run reports was recorded: not compared\n");
		} else if (numbers_match(keys, n) && r->in_use_mismatches == 0 &&
		    r->segment_mismatches > 0) {
			/* the numbers agree; which segments were reserved does not */
			fprintf(f, "the %d numbers reproduced, not every segment\n", n);
		} else {
			fprintf(f, "NOT reproduced\n");
		}
		for (i = 0; i < n; i++)
			if (!report_observed_match(&keys[i])) {
				char a[32], b[32];

				fprintf(f, "  %-15s simulated %s, observed %s\n", keys[i].key,
				    report_observed_value(&keys[i], 1, a, sizeof(a)),
				    report_observed_value(&keys[i], 0, b, sizeof(b)));
			}
		if (r->in_use_mismatches > 0 && n > 0)
			fprintf(f, "  bytes in use    differ at %llu of %llu events, the first at "
			    "event %llu (simulated %llu, recorded %llu)\n",
			    (unsigned long long)r->in_use_mismatches,
			    (unsigned long long)r->observed_in_use,
			    (unsigned long long)r->first_in_use_mismatch,
			    (unsigned long long)r->first_in_use_simulated,
			    (unsigned long long)r->first_in_use_observed);
		if (r->segment_mismatches > 0 && n > 0)
			fprintf(f, "  segments        %llu events differ, the first at event %llu%s\n",
			    (unsigned long long)r->segment_mismatches,
			    (unsigned long long)r->first_segment_mismatch,
			    strcmp(run->placement, "model") == 0 ? ": where the driver put "
			    "segments decides which are reused, and this run placed them by the "
			    "placement model (without --placement=model a run follows the recorded "
			    "addresses)" : "");
	}
	fclose(f);
	return out;
}
