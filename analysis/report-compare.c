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

static int
candidate(const struct report_row *row)
{
	return row->err == 0 && strcmp(row->run.policy, "ideal") != 0 && !row->run.res->oomed;
}

int
report_winner(const struct report_row *rows, size_t n, uint64_t capacity, char **why)
{
	const struct sim_result *w, *r;
	int best = -1, second = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!candidate(&rows[i]))
			continue;
		r = rows[i].run.res;
		if (best < 0 || r->peak_reserved < rows[best].run.res->peak_reserved ||
		    (r->peak_reserved == rows[best].run.res->peak_reserved &&
		    calls(r) < calls(rows[best].run.res))) {
			second = best;
			best = (int)i;
		} else if (second < 0 || r->peak_reserved < rows[second].run.res->peak_reserved ||
		    (r->peak_reserved == rows[second].run.res->peak_reserved &&
		    calls(r) < calls(rows[second].run.res))) {
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
		*why = gms_asprintf("%s is the only policy that fits, reserving %s (%.1f%% over "
		    "the live peak)", rows[best].label, SZ(w->peak_reserved),
		    100.0 * ((double)w->peak_reserved / (double)(w->peak_live ? w->peak_live : 1) - 1));
		return best;
	}
	r = rows[second].run.res;
	if (r->peak_reserved == w->peak_reserved)
		*why = gms_asprintf("%s fits and reserves %s, as %s does, with fewer device calls "
		    "(%llu against %llu)", rows[best].label, SZ(w->peak_reserved),
		    rows[second].label, (unsigned long long)calls(w), (unsigned long long)calls(r));
	else
		*why = gms_asprintf("%s fits and reserves least: %s, %.1f%% over the live peak and "
		    "%s (%.1f%%) less than the runner-up, %s, with %llu device calls against %llu",
		    rows[best].label, SZ(w->peak_reserved),
		    100.0 * ((double)w->peak_reserved / (double)(w->peak_live ? w->peak_live : 1) - 1),
		    SZ(r->peak_reserved - w->peak_reserved),
		    100.0 * (1.0 - (double)w->peak_reserved / (double)r->peak_reserved),
		    rows[second].label, (unsigned long long)calls(w), (unsigned long long)calls(r));
	return best;
}

cJSON *
report_compare_json(const struct report_row *rows, size_t n, const char *trace,
    uint64_t capacity)
{
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
		if (rows[i].err == 0) {
			item = report_run_json(&rows[i].run);
			/* said once, for the whole comparison */
			cJSON_DeleteItemFromObjectCaseSensitive(item, "incomplete");
			if (hdr == NULL)
				hdr = rows[i].run.hdr;
		} else {
			item = cJSON_CreateObject();
			cJSON_AddStringToObject(item, "policy", rows[i].label);
			cJSON_AddStringToObject(item, "error", rows[i].cause ? rows[i].cause : "");
		}
		cJSON_AddStringToObject(item, "label", rows[i].label);
		cJSON_AddItemToArray(arr, item);
	}
	w = report_winner(rows, n, capacity, &why);
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
    uint64_t capacity)
{
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
	    (unsigned long long)events, capacity ? SZ(capacity) : "unlimited", SZ(live));
	for (i = 0; i < n; i++)
		if (rows[i].err == 0) {
			if ((note = report_incomplete_text(rows[i].run.hdr)) != NULL)
				fprintf(f, "%s\n", note);
			free(note);
			break;
		}
	fprintf(f, "  %-*s  %13s  %9s  %8s  %15s  %s\n", (int)width, "policy", "peak reserved",
	    "overhead", "fragm.", "device calls", "result");
	for (i = 0; i < n; i++) {
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
		fprintf(f, "  %-*s  %13s  %9s  %7.1f%%  %7llu / %-5llu  %s\n", (int)width,
		    rows[i].label, SZ(r->peak_reserved), over, 100.0 * report_fragmentation(r),
		    (unsigned long long)r->device_allocs, (unsigned long long)r->device_frees,
		    result);
	}
	fprintf(f, "\n  overhead: peak reserved over the live peak (ideal's reservation); "
	    "device calls: allocs / frees\n");
	w = report_winner(rows, n, capacity, &why);
	fprintf(f, "\n%s %s\n", w >= 0 ? "winner:" : "no winner:", why);
	free(why);
	fclose(f);
	return out;
}
