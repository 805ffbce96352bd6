/*
 * report-share.c - share's report (share.h): JSON for scripts, a table and
 * the out-of-memory story for people.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/share-report.h"
#include "sim/share.h"
#include "sim/gms.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

cJSON *
share_oom_json(const struct share_scenario *sc, const struct share_oom *o, int with_job)
{
	cJSON *it = cJSON_CreateObject(), *held;
	size_t k;

	if (with_job)
		cJSON_AddStringToObject(it, "job", sc->jobs[o->job].name);
	if (o->event < 0)
		cJSON_AddNullToObject(it, "event");
	else
		cJSON_AddNumberToObject(it, "event", (double)o->event);
	cJSON_AddNumberToObject(it, "pass", (double)o->pass);
	cJSON_AddNumberToObject(it, "time_us", (double)o->time_us);
	cJSON_AddNumberToObject(it, "size", (double)o->size);
	cJSON_AddStringToObject(it, "what", o->what);
	held = cJSON_AddObjectToObject(it, "held");
	for (k = 0; k < sc->njobs; k++)
		cJSON_AddNumberToObject(held, sc->jobs[k].name, (double)o->held[k]);
	cJSON_AddNumberToObject(it, "gpu_free", (double)o->gpu_free);
	return it;
}

cJSON *
share_json(const struct share_scenario *sc, const struct share_result *res)
{
	cJSON *o = cJSON_CreateObject(), *a, *it;
	size_t k;

	cJSON_AddNumberToObject(o, "capacity", (double)sc->total);
	if (sc->gpu != NULL)
		cJSON_AddStringToObject(o, "gpu", sc->gpu);
	else
		cJSON_AddNullToObject(o, "gpu");
	cJSON_AddNumberToObject(o, "context_overhead", (double)sc->context);
	a = cJSON_AddArrayToObject(o, "jobs");
	for (k = 0; k < sc->njobs; k++) {
		const struct share_job *j = &sc->jobs[k];
		const struct share_job_result *r = &res->jobs[k];

		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "name", j->name);
		cJSON_AddStringToObject(it, "trace", j->path);
		cJSON_AddStringToObject(it, "policy", j->label);
		cJSON_AddNumberToObject(it, "start_us", (double)r->start_us);
		if (j->repeat == 0)
			cJSON_AddStringToObject(it, "repeat", "until-end");
		else
			cJSON_AddNumberToObject(it, "repeat", (double)j->repeat);
		if (r->limit != 0)
			cJSON_AddNumberToObject(it, "limit", (double)r->limit);
		else
			cJSON_AddNullToObject(it, "limit");
		cJSON_AddBoolToObject(it, "started", r->started);
		cJSON_AddNumberToObject(it, "passes", (double)r->passes);
		cJSON_AddNumberToObject(it, "events", (double)r->events);
		cJSON_AddNumberToObject(it, "peak_reserved", (double)r->peak_reserved);
		cJSON_AddNumberToObject(it, "end_us", (double)r->end_us);
		cJSON_AddStringToObject(it, "after", j->hold ? "hold" : "exit");
		cJSON_AddNumberToObject(it, "done_us", (double)r->done_us);
		if (r->oomed)
			cJSON_AddItemToObject(it, "oom", share_oom_json(sc, &res->ooms[r->oom], 0));
		else
			cJSON_AddNullToObject(it, "oom");
		cJSON_AddItemToArray(a, it);
	}
	a = cJSON_AddArrayToObject(o, "ooms");
	for (k = 0; k < res->nooms; k++)
		cJSON_AddItemToArray(a, share_oom_json(sc, &res->ooms[k], 1));
	cJSON_AddNumberToObject(o, "peak_used", (double)res->peak_used);
	cJSON_AddBoolToObject(o, "fits", res->fits);
	return o;
}

/* "12.345 s" */
static const char *
secs(int64_t us, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f s", (double)us / 1e6);
	return buf;
}

#define SECS(us) secs((us), (char[32]){ 0 }, 32)

static void
oom_story(FILE *f, const struct share_scenario *sc, const struct share_oom *o)
{
	const char *name = sc->jobs[o->job].name;
	size_t k;

	if (strcmp(o->what, "context") == 0)
		fprintf(f, "  %s could not start at %s: its CUDA context (%s) did not fit, %s free\n",
		    name, SECS(o->time_us), SZ(o->size), SZ(o->gpu_free));
	else if (strcmp(o->what, "pool") == 0)
		fprintf(f, "  %s could not start at %s: its preallocated pool (%s) did not fit, "
		    "%s free\n", name, SECS(o->time_us), SZ(o->size), SZ(o->gpu_free));
	else
		fprintf(f, "  %s ran out of memory at event %lld (pass %llu) at %s, asking for %s; "
		    "the card had %s free\n", name, (long long)o->event,
		    (unsigned long long)o->pass + 1, SECS(o->time_us), SZ(o->size),
		    SZ(o->gpu_free));
	fprintf(f, "    held then:");
	for (k = 0; k < sc->njobs; k++)
		fprintf(f, "%s %s %s", k ? "," : "", sc->jobs[k].name, SZ(o->held[k]));
	fprintf(f, " (and %s of context each running job)\n", SZ(sc->context));
}

char *
share_text(const struct share_scenario *sc, const struct share_result *res)
{
	char *out = NULL, buf[128];
	size_t len = 0, k, wn = 3, wp = 6;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	for (k = 0; k < sc->njobs; k++) {
		wn = GMS_MAX(wn, strlen(sc->jobs[k].name));
		wp = GMS_MAX(wp, strlen(sc->jobs[k].label));
	}
	if (sc->gpu != NULL)
		fprintf(f, "%zu jobs on one %s (%s; %s of CUDA context each)\n\n", sc->njobs,
		    sc->gpu, SZ(sc->total), SZ(sc->context));
	else
		fprintf(f, "%zu jobs on one GPU of %s (%s of CUDA context each)\n\n", sc->njobs,
		    SZ(sc->total), SZ(sc->context));
	fprintf(f, "  %-*s  %-*s  %10s  %10s  %13s  %s\n", (int)wn, "job", (int)wp, "policy",
	    "start", "limit", "peak reserved", "outcome");
	for (k = 0; k < sc->njobs; k++) {
		const struct share_job_result *r = &res->jobs[k];
		const struct share_oom *o = r->oomed ? &res->ooms[r->oom] : NULL;

		if (o != NULL && o->event < 0)
			snprintf(buf, sizeof(buf), "COULD NOT START (%s)", o->what);
		else if (o != NULL)
			snprintf(buf, sizeof(buf), "OUT OF MEMORY at event %lld, %s", (long long)o->event,
			    SECS(o->time_us));
		else if (!r->started)
			snprintf(buf, sizeof(buf), "not started: the others had ended");
		else if (sc->jobs[k].hold)
			snprintf(buf, sizeof(buf), "done: %llu pass%s at %s, held its memory to %s",
			    (unsigned long long)r->passes, r->passes == 1 ? "" : "es",
			    SECS(r->done_us), SECS(r->end_us));
		else
			snprintf(buf, sizeof(buf), "done: %llu pass%s, ended at %s",
			    (unsigned long long)r->passes, r->passes == 1 ? "" : "es",
			    SECS(r->end_us));
		fprintf(f, "  %-*s  %-*s  %10s  %10s  %13s  %s\n", (int)wn, sc->jobs[k].name, (int)wp,
		    sc->jobs[k].label, SECS(r->start_us), r->limit ? SZ(r->limit) : "-",
		    SZ(r->peak_reserved), buf);
	}
	if (res->nooms > 0)
		fprintf(f, "\n");
	for (k = 0; k < res->nooms; k++)
		oom_story(f, sc, &res->ooms[k]);
	fprintf(f, "\n  the card's peak use: %s of %s (contexts included)\n", SZ(res->peak_used),
	    SZ(sc->total));
	if (res->fits) {
		fprintf(f, "  verdict: every job fits\n");
	} else {
		fprintf(f, "  verdict:");
		for (k = 0; k < res->nooms; k++)
			fprintf(f, "%s %s", k ? "," : "", sc->jobs[res->ooms[k].job].name);
		fprintf(f, " %s out of memory\n", res->nooms == 1 ? "runs" : "run");
	}
	fclose(f);
	return out;
}
