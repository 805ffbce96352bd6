/*
 * ranks-plan.c - `plan --ranks` (ranks.h): every rank's plan on GPUs of its
 * own, and the job's: the capacity every rank needs, and which GPUs fit all.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plan.h"
#include "analysis/ranks.h"
#include "analysis/report.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

int
ranks_plan_run(const struct rank_set *set, const struct plan_report *tmpl,
    const struct trace_opts *topts, int threads, struct ranks_plan *rp, char **cause)
{
	size_t r;
	int err;

	memset(rp, 0, sizeof(*rp));
	rp->set = set;
	rp->reps = gms_calloc(set->n, sizeof(*rp->reps));
	rp->mems = gms_calloc(set->n, sizeof(*rp->mems));
	for (r = 0; r < set->n; r++) {
		struct plan_report *rep = &rp->reps[r];
		char *why = NULL;

		*rep = *tmpl;
		rep->cells = NULL;
		rep->pols = gms_calloc(tmpl->npols ? tmpl->npols : 1, sizeof(*rep->pols));
		memcpy(rep->pols, tmpl->pols, tmpl->npols * sizeof(*rep->pols));
		if ((err = trace_mem_load(set->f[r].path, topts, &rp->mems[r], &why)) < 0 ||
		    (err = plan_run(rp->mems[r], rep, threads, &why)) < 0) {
			gms_fail(cause, err, "rank %d: %s", set->f[r].rank, why);
			free(why);
			return err;
		}
	}
	return 0;
}

void
ranks_plan_free(struct ranks_plan *rp)
{
	size_t r;

	for (r = 0; rp->set != NULL && r < rp->set->n; r++) {
		if (rp->reps != NULL) {
			plan_free(&rp->reps[r]);
			free(rp->reps[r].pols);
		}
		if (rp->mems != NULL)
			trace_mem_free(rp->mems[r]);
	}
	free(rp->reps);
	free(rp->mems);
	memset(rp, 0, sizeof(*rp));
}

/* The rank that needs the most of policy i (n when one could not run or
   found no capacity: the job has none then), and that need. */
static size_t
neediest(const struct ranks_plan *rp, size_t i, uint64_t *need)
{
	size_t r, w = 0;

	*need = 0;
	for (r = 0; r < rp->set->n; r++) {
		const struct plan_policy *p = &rp->reps[r].pols[i];

		if (p->err || p->min_capacity == 0)
			return rp->set->n;
		if (p->min_capacity > *need) {
			*need = p->min_capacity;
			w = r;
		}
	}
	return w;
}

/* Policy i on GPU g for the whole job: whether every rank fits, the least
   headroom when they do, else the rank that runs out first. */
struct job_cell {
	int err, fits;
	uint64_t headroom;
	size_t rank;		/* the first to run out, an index */
	uint64_t event;
};

static struct job_cell
job_cell(const struct ranks_plan *rp, size_t g, size_t i)
{
	struct job_cell jc = { .fits = 1, .headroom = UINT64_MAX };
	double first = 2;
	size_t r;

	for (r = 0; r < rp->set->n; r++) {
		const struct plan_report *rep = &rp->reps[r];
		const struct plan_cell *c = &rep->cells[g * rep->npols + i];
		uint64_t events = trace_mem_count(rp->mems[r]);
		double at = events ? (double)c->oom_event / (double)events : 0;

		if (c->err) {
			jc.err = 1;
			return jc;
		}
		if (c->fits) {
			jc.headroom = GMS_MIN(jc.headroom,
			    c->capacity - GMS_MIN(c->capacity, c->peak_reserved));
		} else {
			jc.fits = 0;
			if (at < first) {
				first = at;
				jc.rank = r;
				jc.event = c->oom_event;
			}
		}
	}
	return jc;
}

char *
ranks_plan_text(const struct ranks_plan *rp)
{
	const struct plan_report *r0 = &rp->reps[0];
	const struct rank_set *set = rp->set;
	char *out = NULL, buf[64], col[256];
	size_t len = 0, i, g, r, w, width = 8;
	uint64_t need;
	FILE *f = open_memstream(&out, &len);

	for (i = 0; i < r0->npols; i++)
		width = GMS_MAX(width, strlen(r0->pols[i].label));
	fprintf(f, "%zu ranks (%s), each on a GPU of its own; a GPU's memory less %s of "
	    "context\n\n", set->n, ranks_from_text(set), SZ(r0->overhead));
	fprintf(f, "  the capacity every rank needs, to 2 MiB (the neediest rank's smallest)\n");
	for (i = 0; i < r0->npols; i++) {
		if ((w = neediest(rp, i, &need)) == set->n) {
			fprintf(f, "  %-*s  not every rank fits anywhere up to the ceiling, or one "
			    "could not run\n", (int)width, r0->pols[i].label);
			continue;
		}
		fprintf(f, "  %-*s  %10s  %14llu B  rank %d%s\n", (int)width, r0->pols[i].label,
		    SZ(need), (unsigned long long)need, set->f[w].rank,
		    rp->reps[w].pols[i].verified ? "" :
		    "  (not confirmed: fits only at some capacities)");
	}
	fprintf(f, "\n  each rank's smallest, by policy\n  %-6s", "rank");
	for (i = 0; i < r0->npols; i++) {
		const char *c = policy_column(r0->pols[i].label, col, sizeof(col));

		fprintf(f, "  %*s", (int)GMS_MAX(10, strlen(c)), c);
	}
	fprintf(f, "\n");
	for (r = 0; r < set->n; r++) {
		fprintf(f, "  %-6d", set->f[r].rank);
		for (i = 0; i < r0->npols; i++) {
			const struct plan_policy *p = &rp->reps[r].pols[i];

			fprintf(f, "  %*s", (int)GMS_MAX(10, strlen(policy_column(r0->pols[i].label,
			    col, sizeof(col)))), p->err ? "-" : p->min_capacity ?
			    SZ(p->min_capacity) : "none");
		}
		fprintf(f, "\n");
	}
	if (r0->ngpus > 0) {
		fprintf(f, "\n  %-10s %10s", "GPU", "memory");
		for (i = 0; i < r0->npols; i++)
			fprintf(f, i + 1 < r0->npols ? "  %-20s" : "  %s",
			    policy_column(r0->pols[i].label, col, sizeof(col)));
		fprintf(f, "\n");
		for (g = 0; g < r0->ngpus; g++) {
			fprintf(f, "  %-10s %10s", r0->gpus[g]->name, SZ(r0->gpus[g]->total));
			for (i = 0; i < r0->npols; i++) {
				struct job_cell jc = job_cell(rp, g, i);

				if (jc.err)
					snprintf(buf, sizeof(buf), "-");
				else if (jc.fits)
					snprintf(buf, sizeof(buf), "all fit +%s", SZ(jc.headroom));
				else
					snprintf(buf, sizeof(buf), "rank %d OOM @%llu",
					    set->f[jc.rank].rank, (unsigned long long)jc.event);
				fprintf(f, "  %-*s", i + 1 < r0->npols ? (int)GMS_MAX(20,
				    strlen(policy_column(r0->pols[i].label, col, sizeof(col)))) : 0,
				    buf);
			}
			fprintf(f, "\n");
		}
		fprintf(f, "\n  all fit +: every rank fits, with the least headroom of any at its "
		    "peak;\n  rank N OOM @: the first rank to run out (by the share of its events) "
		    "and where\n");
	}
	fclose(f);
	return out;
}

cJSON *
ranks_plan_json(const struct ranks_plan *rp)
{
	const struct plan_report *r0 = &rp->reps[0];
	const struct rank_set *set = rp->set;
	cJSON *o = cJSON_CreateObject(), *a, *j, *it, *gs, *cs, *c;
	size_t i, g, r, w;
	uint64_t need;

	cJSON_AddNumberToObject(o, "schema", REPORT_JSON_SCHEMA);
	cJSON_AddStringToObject(o, "ranks_from", set->from);
	a = cJSON_AddArrayToObject(o, "ranks");
	for (r = 0; r < set->n; r++) {
		it = plan_json(&rp->reps[r]);
		cJSON_DeleteItemFromObjectCaseSensitive(it, "schema");
		cJSON_AddNumberToObject(it, "rank", set->f[r].rank);
		cJSON_AddStringToObject(it, "path", set->f[r].path);
		cJSON_AddItemToArray(a, it);
	}
	j = cJSON_AddObjectToObject(o, "job");
	a = cJSON_AddArrayToObject(j, "policies");
	for (i = 0; i < r0->npols; i++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "policy", r0->pols[i].label);
		if ((w = neediest(rp, i, &need)) == set->n) {
			cJSON_AddNullToObject(it, "min_capacity");
			cJSON_AddNullToObject(it, "rank");
		} else {
			cJSON_AddNumberToObject(it, "min_capacity", (double)need);
			cJSON_AddNumberToObject(it, "rank", set->f[w].rank);
		}
		cJSON_AddItemToArray(a, it);
	}
	gs = cJSON_AddArrayToObject(j, "gpus");
	for (g = 0; g < r0->ngpus; g++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "gpu", r0->gpus[g]->name);
		cJSON_AddNumberToObject(it, "memory", (double)r0->gpus[g]->total);
		cs = cJSON_AddArrayToObject(it, "policies");
		for (i = 0; i < r0->npols; i++) {
			struct job_cell jc = job_cell(rp, g, i);

			c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "policy", r0->pols[i].label);
			if (jc.err) {
				cJSON_AddNullToObject(c, "fits");
			} else {
				cJSON_AddBoolToObject(c, "fits", jc.fits);
				if (jc.fits) {
					cJSON_AddNumberToObject(c, "headroom", (double)jc.headroom);
				} else {
					cJSON_AddNumberToObject(c, "first_oom_rank", set->f[jc.rank].rank);
					cJSON_AddNumberToObject(c, "oom_event", (double)jc.event);
				}
			}
			cJSON_AddItemToArray(cs, c);
		}
		cJSON_AddItemToArray(gs, it);
	}
	return o;
}
