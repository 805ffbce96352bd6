/*
 * ranks-info.c - `info --ranks` (ranks.h): what each rank's recording holds,
 * side by side, and the job's: which rank's live memory peaks highest, and
 * the spread between ranks.  The live bytes are the program's own, before
 * any allocator: where ranks differ here, every policy will see it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ranks.h"
#include "analysis/report.h"
#include "sim/gms.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

/* The rank whose live peak is the largest (most = 1) or the smallest. */
static size_t
extreme(const struct ranks_info *ri, int most)
{
	size_t i, k = 0;

	for (i = 1; i < ri->set->n; i++)
		if (most ? ri->res[i].peak_live > ri->res[k].peak_live :
		    ri->res[i].peak_live < ri->res[k].peak_live)
			k = i;
	return k;
}

char *
ranks_info_text(const struct ranks_info *ri)
{
	const struct rank_set *set = ri->set;
	char *text = NULL, dur[32];
	size_t len = 0, i, w = extreme(ri, 1), l = extreme(ri, 0);
	FILE *f = open_memstream(&text, &len);
	uint64_t spread = ri->res[w].peak_live - ri->res[l].peak_live;

	fprintf(f, "%zu rank%s (%s)\n\n", set->n, set->n == 1 ? "" : "s", ranks_from_text(set));
	fprintf(f, "  rank  %9s  %9s  %9s  %12s  %9s  %10s  %13s\n", "events", "allocs",
	    "frees", "peak live", "at event", "duration", "largest alloc");
	for (i = 0; i < set->n; i++) {
		const struct info *in = &ri->in[i];

		if (in->has_time)
			snprintf(dur, sizeof(dur), "%.3f s", (double)(in->last_t - in->first_t) / 1e6);
		else
			snprintf(dur, sizeof(dur), "-");
		fprintf(f, "  %4d  %9llu  %9llu  %9llu  %12s  %9llu  %10s  %13s  %s\n",
		    set->f[i].rank, (unsigned long long)in->events,
		    (unsigned long long)in->ops[TRACE_ALLOC], (unsigned long long)in->ops[TRACE_FREE],
		    SZ(ri->res[i].peak_live), (unsigned long long)ri->res[i].peak_live_event, dur,
		    in->ntop > 0 ? SZ(in->top[0].size) : "-", set->f[i].shown);
	}
	if (set->n > 1)
		fprintf(f, "\nJOB: the largest live peak is rank %d's, %s (event %llu of %llu); the "
		    "least, rank %d's, %s: a spread of %s (%.1f%% of the largest)\n",
		    set->f[w].rank, SZ(ri->res[w].peak_live),
		    (unsigned long long)ri->res[w].peak_live_event,
		    (unsigned long long)ri->in[w].events, set->f[l].rank, SZ(ri->res[l].peak_live),
		    SZ(spread), ri->res[w].peak_live ?
		    100.0 * (double)spread / (double)ri->res[w].peak_live : 0.0);
	fprintf(f, "live bytes are the program's own, before any allocator: `run --ranks` "
	    "says what each rank reserves, `info` on one rank's file what holds its peak\n");
	fclose(f);
	return text;
}

cJSON *
ranks_info_json(const struct ranks_info *ri)
{
	const struct rank_set *set = ri->set;
	cJSON *o = cJSON_CreateObject(), *a, *r, *job;
	size_t i, w = extreme(ri, 1), l = extreme(ri, 0);

	cJSON_AddNumberToObject(o, "schema", REPORT_JSON_SCHEMA);
	cJSON_AddStringToObject(o, "ranks_from", set->from);
	a = cJSON_AddArrayToObject(o, "ranks");
	for (i = 0; i < set->n; i++) {
		r = info_json(&ri->in[i], &ri->hdr[i], &ri->res[i]);
		cJSON_AddItemToObject(r, "rank", cJSON_CreateNumber(set->f[i].rank));
		cJSON_AddStringToObject(r, "path", set->f[i].path);
		cJSON_AddItemToArray(a, r);
	}
	job = cJSON_AddObjectToObject(o, "job");
	cJSON_AddNumberToObject(job, "ranks", (double)set->n);
	cJSON_AddNumberToObject(job, "largest_rank", set->f[w].rank);
	cJSON_AddNumberToObject(job, "peak_live", (double)ri->res[w].peak_live);
	cJSON_AddNumberToObject(job, "least_rank", set->f[l].rank);
	cJSON_AddNumberToObject(job, "spread", (double)(ri->res[w].peak_live -
	    ri->res[l].peak_live));
	return o;
}
