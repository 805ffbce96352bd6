/*
 * placements.c - a run under many placements (placements.h).  Every
 * placement is a job of its own on the batch's threads, as many at a time as
 * there are threads; each group reads a trace in a file once
 * (batch_run_shared), and only what the range needs is kept of a run.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/placements.h"
#include "sim/gms.h"
#include "traces/input.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

/* What the range needs of seed's run. */
static void
keep(struct placements *p, size_t seed, const struct sim_result *r)
{
	p->runs[seed] = (struct placement_run){ .peak_reserved = r->peak_reserved,
	    .oomed = r->oomed, .oom_event = r->oomed ? r->oom.event : 0 };
	if (seed == 0 || r->peak_reserved < p->peak_min)
		p->peak_min = r->peak_reserved;
	if (seed == 0 || r->peak_reserved > p->peak_max)
		p->peak_max = r->peak_reserved;
	if (!r->oomed)
		return;
	if (p->ooms == 0 || r->oom.event < p->oom_first)
		p->oom_first = r->oom.event;
	if (p->ooms == 0 || r->oom.event > p->oom_last)
		p->oom_last = r->oom.event;
	p->ooms++;
}

int
placements_run(const struct run_spec *tmpl, size_t n, int threads, struct placements *p,
    char **cause)
{
	size_t group = threads < 1 ? 1 : (size_t)threads, first, k, i;
	struct run_spec spec = *tmpl;
	struct trace_mem *held = NULL;
	struct batch_job *jobs;
	int err = 0, have_model = 0;

	/* samples of the model's placements, the model's own the first */
	if (spec.placement == RUN_PLACEMENT_AS_RECORDED)
		spec.placement = RUN_PLACEMENT_MODEL;
	memset(p, 0, sizeof(*p));
	p->n = n;
	p->capacity = tmpl->capacity;
	p->runs = gms_calloc(n + 1, sizeof(*p->runs));
	if (spec.mem == NULL && n > group && !input_rereadable(spec.path)) {
		struct trace_opts topts = { .device = spec.device,
		    .unknown_frees_warn = spec.unknown_frees_warn };

		if ((err = trace_mem_load(spec.path, &topts, &held, cause)) < 0)
			return err;
		spec.mem = held;
	}
	jobs = gms_calloc(group, sizeof(*jobs));
	for (first = 0; first < n && err == 0; first += k) {
		k = GMS_MIN(group, n - first);
		memset(jobs, 0, k * sizeof(*jobs));
		for (i = 0; i < k; i++) {
			jobs[i].spec = spec;
			jobs[i].spec.placement_seed = first + i;
			/* the prediction keeps the caller's sampler; the others need none */
			if (first + i > 0) {
				jobs[i].spec.sampler = NULL;
				jobs[i].spec.sampler_arg = NULL;
			}
		}
		if (spec.mem != NULL)
			batch_run(jobs, k, threads);
		else
			batch_run_shared(jobs, k, threads);
		for (i = 0; i < k && err == 0; i++) {
			if ((err = jobs[i].err) < 0) {
				*cause = jobs[i].cause;
				jobs[i].cause = NULL;
			} else {
				keep(p, first + i, &jobs[i].out.res);
			}
		}
		if (err == 0 && first == 0) {
			/* the prediction's whole output, its reader with it */
			p->model = jobs[0].out;
			memset(&jobs[0].out, 0, sizeof(jobs[0].out));
			have_model = 1;
		}
		batch_free(jobs, k);
	}
	free(jobs);
	if (have_model)
		p->model.held = held;	/* the prediction's header points into it */
	else
		trace_mem_free(held);
	return err;
}

int
placements_all_fit(const struct placements *p)
{
	return p->ooms == 0;
}

char *
placements_text(const struct placements *p)
{
	const struct placement_run *r0 = &p->runs[0];
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
	cJSON_AddNumberToObject(pk, "model", (double)p->runs[0].peak_reserved);
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
		const struct placement_run *r = &p->runs[i];

		it = cJSON_CreateObject();
		cJSON_AddNumberToObject(it, "seed", (double)i);
		cJSON_AddNumberToObject(it, "peak_reserved", (double)r->peak_reserved);
		if (r->oomed)
			cJSON_AddNumberToObject(it, "oom_event", (double)r->oom_event);
		else
			cJSON_AddNullToObject(it, "oom_event");
		cJSON_AddItemToArray(runs, it);
	}
	return o;
}

void
placements_free(struct placements *p)
{
	run_output_free(&p->model);
	free(p->runs);
	memset(p, 0, sizeof(*p));
}
