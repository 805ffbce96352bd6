/*
 * placements.c - a run under many placements (placements.h).  Every
 * placement is a job of its own on the batch's threads; a trace in a file is
 * read once for all of them (batch_run_shared), so N placements cost at most
 * N replays, spread over the cores.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/placements.h"
#include "sim/gms.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

int
placements_run(const struct run_spec *tmpl, size_t n, int threads, struct placements *p,
    char **cause)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->capacity = tmpl->capacity;
	p->jobs = gms_calloc(n, sizeof(*p->jobs));
	for (i = 0; i < n; i++) {
		p->jobs[i].spec = *tmpl;
		p->jobs[i].spec.placement_seed = i;
		/* the prediction keeps the caller's sampler; the others need none */
		if (i > 0) {
			p->jobs[i].spec.sampler = NULL;
			p->jobs[i].spec.sampler_arg = NULL;
		}
	}
	if (tmpl->mem != NULL)
		batch_run(p->jobs, n, threads);
	else
		batch_run_shared(p->jobs, n, threads);
	for (i = 0; i < n; i++) {
		const struct sim_result *r = &p->jobs[i].out.res;

		if (p->jobs[i].err < 0) {
			*cause = p->jobs[i].cause;
			p->jobs[i].cause = NULL;
			return p->jobs[i].err;
		}
		if (i == 0 || r->peak_reserved < p->peak_min)
			p->peak_min = r->peak_reserved;
		if (i == 0 || r->peak_reserved > p->peak_max)
			p->peak_max = r->peak_reserved;
		if (!r->oomed)
			continue;
		if (p->ooms == 0 || r->oom.event < p->oom_first)
			p->oom_first = r->oom.event;
		if (p->ooms == 0 || r->oom.event > p->oom_last)
			p->oom_last = r->oom.event;
		p->ooms++;
	}
	return 0;
}

int
placements_all_fit(const struct placements *p)
{
	return p->ooms == 0;
}

char *
placements_text(const struct placements *p)
{
	const struct sim_result *r0 = &p->jobs[0].out.res;
	char *buf = NULL, lo[32], hi[32];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	fprintf(f, "PLACEMENTS: %zu (the model's, and %zu with hidden reservations such as "
	    "library workspaces; doc/placement.md)\n", p->n, p->n - 1);
	gms_fmt_size(p->peak_min, lo, sizeof(lo));
	gms_fmt_size(p->peak_max, hi, sizeof(hi));
	if (p->peak_min == p->peak_max)
		fprintf(f, "  peak reserved   %s (%llu B) under every placement\n", lo,
		    (unsigned long long)p->peak_min);
	else
		fprintf(f, "  peak reserved   %s .. %s (%llu .. %llu B); the model's %s\n", lo, hi,
		    (unsigned long long)p->peak_min, (unsigned long long)p->peak_max,
		    SZ(r0->peak_reserved));
	if (p->capacity == 0)
		fputs("  out of memory   none: no capacity\n", f);
	else if (p->ooms == 0)
		fprintf(f, "  out of memory   none: it fits in %s under every placement\n",
		    SZ(p->capacity));
	else if (p->oom_first == p->oom_last)
		fprintf(f, "  out of memory   %zu of %zu placements (%.1f%%), at event %llu\n",
		    p->ooms, p->n, 100.0 * (double)p->ooms / (double)p->n,
		    (unsigned long long)p->oom_first);
	else
		fprintf(f, "  out of memory   %zu of %zu placements (%.1f%%), at events %llu .. "
		    "%llu\n", p->ooms, p->n, 100.0 * (double)p->ooms / (double)p->n,
		    (unsigned long long)p->oom_first, (unsigned long long)p->oom_last);
	fclose(f);
	return buf;
}

cJSON *
placements_json(const struct placements *p)
{
	cJSON *o = cJSON_CreateObject(), *pk, *oom, *runs, *it;
	size_t i;

	cJSON_AddNumberToObject(o, "n", (double)p->n);
	pk = cJSON_AddObjectToObject(o, "peak_reserved");
	cJSON_AddNumberToObject(pk, "min", (double)p->peak_min);
	cJSON_AddNumberToObject(pk, "max", (double)p->peak_max);
	cJSON_AddNumberToObject(pk, "model", (double)p->jobs[0].out.res.peak_reserved);
	oom = cJSON_AddObjectToObject(o, "oom");
	cJSON_AddNumberToObject(oom, "count", (double)p->ooms);
	cJSON_AddNumberToObject(oom, "share", p->n ? (double)p->ooms / (double)p->n : 0.0);
	if (p->ooms > 0) {
		cJSON_AddNumberToObject(oom, "first_event", (double)p->oom_first);
		cJSON_AddNumberToObject(oom, "last_event", (double)p->oom_last);
	} else {
		cJSON_AddNullToObject(oom, "first_event");
		cJSON_AddNullToObject(oom, "last_event");
	}
	runs = cJSON_AddArrayToObject(o, "runs");
	for (i = 0; i < p->n; i++) {
		const struct sim_result *r = &p->jobs[i].out.res;

		it = cJSON_CreateObject();
		cJSON_AddNumberToObject(it, "seed", (double)i);
		cJSON_AddNumberToObject(it, "peak_reserved", (double)r->peak_reserved);
		if (r->oomed)
			cJSON_AddNumberToObject(it, "oom_event", (double)r->oom.event);
		else
			cJSON_AddNullToObject(it, "oom_event");
		cJSON_AddItemToArray(runs, it);
	}
	return o;
}

void
placements_free(struct placements *p)
{
	if (p->jobs != NULL)
		batch_free(p->jobs, p->n);
	free(p->jobs);
	memset(p, 0, sizeof(*p));
}
