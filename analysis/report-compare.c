/*
 * report-compare.c - the comparison of policies on one trace: the winner
 * (fits, reserves least, fewer device calls on a tie) and why, as a table
 * for people and JSON for scripts.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "sim/gms.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

static uint64_t
calls(const struct sim_result *r)
{
	return r->device_allocs + r->device_frees;
}

/*
 * Preallocate without a capacity takes the recording GPU's memory (or the
 * framework's default share of it), RMM's pool and arena half of it: a number
 * about that card, not the job, so it is no result unless a size (--capacity,
 * --gpu, the policy's size option) is given.  Without any GPU to take it from
 * an RMM resource cannot be made at all, and says so.
 */
static int
needs_capacity(const struct report_row *row)
{
	const struct policy_ops *ops;
	size_t i;

	if (row->err != 0)
		return row->err == GMS_ECONFIG && row->cause != NULL &&
		    strstr(row->cause, POLICY_NEEDS_SIZE) != NULL;
	if (row->run.capacity != 0 || (ops = policy_find(row->run.policy, NULL)) == NULL)
		return 0;
	if (ops->traits & POLICY_WHOLE_POOL) {
		for (i = 0; i < row->run.nopts; i++)
			if (strcmp(row->run.opts[i].key, "limit") == 0)
				return 0;
		return 1;
	}
	return ops->pool_keys != NULL && !policy_pool_sized(ops, row->run.opts, row->run.nopts);
}

/* A row's policy name: its run's, or for one that could not run its label's first word. */
static char *
row_policy(const struct report_row *row)
{
	char *name;

	if (row->err == 0)
		return gms_strdup(row->run.policy);
	name = gms_strdup(row->label);
	name[strcspn(name, " :")] = '\0';
	return name;
}

/* A row whose policy the trace's framework's users cannot set (fw 0: any can). */
static int
foreign(const struct report_row *row, unsigned fw)
{
	return fw != 0 && row->err == 0 && !(row->run.ops->traits & POLICY_BOUND) &&
	    !(row->run.ops->frameworks & fw);
}

static int
candidate(const struct report_row *row, unsigned fw)
{
	return row->err == 0 && !(row->run.ops->traits & POLICY_BOUND) && !row->run.res->oomed &&
	    !needs_capacity(row) && !foreign(row, fw);
}

/* The rows of other frameworks' allocators, as "grow-only, preallocate", or NULL. */
static char *
foreigners(const struct report_row *rows, size_t n, unsigned fw)
{
	char *s = NULL, *t;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!foreign(&rows[i], fw))
			continue;
		t = gms_asprintf("%s%s%s", s ? s : "", s ? ", " : "", rows[i].label);
		free(s);
		s = t;
	}
	return s;
}

/* "12.3 ms"; from 10 s on, "123.9 s" */
static const char *
fmt_ms(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 10000000000ull)
		snprintf(buf, len, "%.1f s", (double)ns / 1e9);
	else
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	return buf;
}
#define MS(ns) fmt_ms((ns), (char[32]){ 0 }, 32)

/* Below this, a difference in steady driver time is noise, not speed. */
#define TIME_SLACK_NS 1000000

/* Is a's driver time within the bound of the fastest's? */
static int
fast_enough(uint64_t ns, uint64_t fastest, double bound)
{
	return (double)ns <= (double)fastest * (1.0 + bound) || ns <= fastest + TIME_SLACK_NS;
}

/* Does r beat the best so far: less memory, then fewer device calls? */
static int
better(const struct sim_result *r, const struct sim_result *best)
{
	return r->peak_reserved < best->peak_reserved ||
	    (r->peak_reserved == best->peak_reserved && calls(r) < calls(best));
}

static double
over_live(const struct sim_result *w)
{
	return 100.0 * ((double)w->peak_reserved / (double)(w->peak_live ? w->peak_live : 1) - 1);
}

int
report_winner(const struct report_row *rows, size_t n, const struct report_compare *how,
    char **why)
{
	const struct sim_result *w, *r;
	int best = -1, second = -1, fastest = -1, cheaper = -1;
	uint64_t capacity = how->capacity;
	size_t i;

	for (i = 0; i < n; i++)
		if (candidate(&rows[i], how->framework) && (fastest < 0 ||
		    rows[i].run.res->steady_driver_ns < rows[fastest].run.res->steady_driver_ns))
			fastest = (int)i;
	for (i = 0; i < n; i++) {
		if (!candidate(&rows[i], how->framework))
			continue;
		r = rows[i].run.res;
		if (!how->by_memory && !fast_enough(r->steady_driver_ns,
		    rows[fastest].run.res->steady_driver_ns, how->time_bound)) {
			if (cheaper < 0 || better(r, rows[cheaper].run.res))
				cheaper = (int)i;
			continue;
		}
		if (best < 0 || better(r, rows[best].run.res)) {
			second = best;
			best = (int)i;
		} else if (second < 0 || better(r, rows[second].run.res)) {
			second = (int)i;
		}
	}
	if (best < 0) {
		uint64_t live = 0;

		for (i = 0; i < n; i++)
			if (rows[i].err == 0)
				live = rows[i].run.res->peak_live;
		if (capacity == 0)
			*why = gms_strdup("no policy could run");
		else if (live <= capacity)
			*why = gms_asprintf("no policy fits in %s; only a perfect allocator would, "
			    "the live peak being %s", SZ(capacity), SZ(live));
		else
			*why = gms_asprintf("no policy fits in %s: the live peak alone is %s",
			    SZ(capacity), SZ(live));
		return -1;
	}
	w = rows[best].run.res;
	if (second < 0) {
		*why = gms_asprintf("%s is the only policy that fits%s, reserving %s (%.1f%% over "
		    "the live peak)", rows[best].label, how->by_memory ? "" :
		    " with a steady driver time near the least", SZ(w->peak_reserved), over_live(w));
	} else {
		r = rows[second].run.res;
		if (r->peak_reserved == w->peak_reserved)
			*why = gms_asprintf("%s fits and reserves %s, as %s does, with fewer device "
			    "calls (%llu against %llu)", rows[best].label, SZ(w->peak_reserved),
			    rows[second].label, (unsigned long long)calls(w),
			    (unsigned long long)calls(r));
		else
			*why = gms_asprintf("%s fits and reserves least: %s, %.1f%% over the live "
			    "peak and %s (%.1f%%) less than the runner-up, %s, with %llu device "
			    "calls against %llu", rows[best].label, SZ(w->peak_reserved),
			    over_live(w), SZ(r->peak_reserved - w->peak_reserved),
			    100.0 * (1.0 - (double)w->peak_reserved / (double)r->peak_reserved),
			    rows[second].label, (unsigned long long)calls(w),
			    (unsigned long long)calls(r));
	}
	if (cheaper >= 0 && better(rows[cheaper].run.res, w)) {
		char *more = gms_asprintf("%s; %s reserves less (%s) but, once its reservation "
		    "stopped growing, still spends %s in the driver against %s, more than %.0f%% "
		    "(or 1 ms) over the least (%s, %s)%s", *why,
		    rows[cheaper].label, SZ(rows[cheaper].run.res->peak_reserved),
		    MS(rows[cheaper].run.res->steady_driver_ns), MS(w->steady_driver_ns),
		    100.0 * how->time_bound, rows[fastest].label,
		    MS(rows[fastest].run.res->steady_driver_ns),
		    how->by_option ? "; --by=memory ranks by memory alone" : "");

		free(*why);
		*why = more;
	}
	return best;
}

cJSON *
report_compare_json(const struct report_row *rows, size_t n, const char *trace,
    const struct report_compare *how)
{
	uint64_t capacity = how->capacity;
	cJSON *o = cJSON_CreateObject(), *arr, *item;
	const struct trace_header *hdr = NULL;
	uint64_t live = 0;
	char *why;
	size_t i;
	int w;

	cJSON_AddStringToObject(o, "trace", trace);
	if (capacity)
		cJSON_AddNumberToObject(o, "capacity", (double)capacity);
	else
		cJSON_AddNullToObject(o, "capacity");
	for (i = 0; i < n; i++)
		if (rows[i].err == 0)
			live = rows[i].run.res->peak_live;
	cJSON_AddNumberToObject(o, "peak_live", (double)live);
	arr = cJSON_AddArrayToObject(o, "results");
	for (i = 0; i < n; i++) {
		if (needs_capacity(&rows[i])) {
			char *name = row_policy(&rows[i]);

			item = cJSON_CreateObject();
			cJSON_AddStringToObject(item, "policy", name);
			free(name);
			cJSON_AddStringToObject(item, "needs", "--capacity or --gpu");
		} else if (rows[i].err == 0) {
			item = report_run_json(&rows[i].run);
			/* said once, for the whole comparison */
			cJSON_DeleteItemFromObjectCaseSensitive(item, "incomplete");
			cJSON_AddNumberToObject(item, "driver_time_ms",
			    (double)rows[i].run.res->driver_ns / 1e6);
			cJSON_AddNumberToObject(item, "steady_driver_time_ms",
			    (double)rows[i].run.res->steady_driver_ns / 1e6);
		} else {
			item = cJSON_CreateObject();
			cJSON_AddStringToObject(item, "policy", rows[i].label);
			cJSON_AddStringToObject(item, "error", rows[i].cause ? rows[i].cause : "");
		}
		if (rows[i].err == 0 && hdr == NULL)
			hdr = rows[i].run.hdr;
		cJSON_AddStringToObject(item, "label", rows[i].label);
		cJSON_AddItemToArray(arr, item);
	}
	if (how->framework && trace_framework_name(how->framework)) {
		char *other = foreigners(rows, n, how->framework), *tok, *save = NULL;
		cJSON *fa = cJSON_CreateArray();

		cJSON_AddStringToObject(o, "framework", trace_framework_name(how->framework));
		for (tok = other ? strtok_r(other, ",", &save) : NULL; tok != NULL;
		    tok = strtok_r(NULL, ",", &save))
			cJSON_AddItemToArray(fa, cJSON_CreateString(tok + (*tok == ' ')));
		cJSON_AddItemToObject(o, "other_frameworks", fa);
		free(other);
	} else {
		cJSON_AddNullToObject(o, "framework");
	}
	cJSON_AddStringToObject(o, "by", how->by_memory ? "memory" : "balanced");
	if (!how->by_memory)
		cJSON_AddNumberToObject(o, "time_bound", how->time_bound);
	w = report_winner(rows, n, how, &why);
	if (w >= 0)
		cJSON_AddStringToObject(o, "winner", rows[w].label);
	else
		cJSON_AddNullToObject(o, "winner");
	cJSON_AddStringToObject(o, "why", why);
	free(why);
	cJSON_AddItemToObject(o, "incomplete", hdr ? report_incomplete_json(hdr) : cJSON_CreateNull());
	return o;
}

char *
report_compare_text(const struct report_row *rows, size_t n, const char *trace,
    const struct report_compare *how)
{
	uint64_t capacity = how->capacity;
	const struct sim_result *r;
	char *out = NULL, *why, *note, result[96], over[32];
	size_t len = 0, i, width = 6;
	FILE *f = open_memstream(&out, &len);
	uint64_t live = 0, events = 0;
	int w;

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	for (i = 0; i < n; i++) {
		width = GMS_MAX(width, strlen(rows[i].label));
		if (rows[i].err == 0) {
			live = rows[i].run.res->peak_live;
			events = rows[i].run.res->events;
		}
	}
	fprintf(f, "%s: %llu events, capacity %s, peak live %s\n\n", trace,
	    (unsigned long long)events, capacity ? gms_fmt_capacity(capacity, (char[48]){ 0 }, 48) :
	    "unlimited", SZ(live));
	for (i = 0; i < n; i++)
		if (rows[i].err == 0) {
			if ((note = report_incomplete_text(rows[i].run.hdr)) != NULL)
				fprintf(f, "%s\n", note);
			free(note);
			break;
		}
	fprintf(f, "  %-*s  %13s  %9s  %8s  %15s  %11s  %9s  %s\n", (int)width, "policy",
	    "peak reserved", "overhead", "fragm.", "device calls", "driver time", "steady", "result");
	for (i = 0; i < n; i++) {
		if (needs_capacity(&rows[i])) {
			fprintf(f, "  %-*s  %13s  needs --capacity or --gpu (it takes a whole "
			    "card's share at start)\n", (int)width, rows[i].label, "-");
			continue;
		}
		if (rows[i].err != 0) {
			fprintf(f, "  %-*s  not run: %s\n", (int)width, rows[i].label, rows[i].cause);
			continue;
		}
		r = rows[i].run.res;
		if (r->oomed) {
			snprintf(result, sizeof(result), "OOM at event %llu (%s)",
			    (unsigned long long)r->oom.event, SZ(r->oom.size));
			snprintf(over, sizeof(over), "-");
		} else {
			snprintf(result, sizeof(result), "fits");
			snprintf(over, sizeof(over), "%.1f%%", live ? 100.0 *
			    ((double)r->peak_reserved / (double)live - 1.0) : 0.0);
		}
		fprintf(f, "  %-*s  %13s  %9s  %7.1f%%  %7llu / %-5llu  %11s  %9s  %s\n",
		    (int)width, rows[i].label, SZ(r->peak_reserved), over,
		    100.0 * report_fragmentation(r), (unsigned long long)r->device_allocs,
		    (unsigned long long)r->device_frees, MS(r->driver_ns), MS(r->steady_driver_ns),
		    result);
	}
	fprintf(f, "\n  overhead: peak reserved over the live peak (ideal's reservation); "
	    "device calls:\n  allocs / frees; driver time: those calls at the cudaMalloc and "
	    "cudaFree costs\n  measured on an H200 by size (replay/results-h200/"
	    "drivercost.txt), an estimate;\n  steady: the part after the reservation last "
	    "grew, what each further\n  iteration of the job pays\n");
	if (!how->by_memory)
		fprintf(f, "  winner: the least memory among the policies that fit whose steady "
		    "driver time\n  is within %.0f%% (or 1 ms) of the least (--by=memory: memory "
		    "alone)\n", 100.0 * how->time_bound);
	if ((note = foreigners(rows, n, how->framework)) != NULL)
		fprintf(f, "  not %s's allocators, which its users cannot set (shown beside, never "
		    "the\n  winner): %s\n", trace_framework_name(how->framework), note);
	free(note);
	w = report_winner(rows, n, how, &why);
	fprintf(f, "\n%s %s\n", w >= 0 ? "winner:" : "no winner:", why);
	free(why);
	fclose(f);
	return out;
}
