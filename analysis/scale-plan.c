/*
 * scale-plan.c - plan's table of the largest value that fits each GPU
 * (scale-plan.h).  Each cell is one search on the thread pool; the model is
 * aligned whole first, so that the searches only read it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scale-plan.h"
#include "sim/batch.h"
#include "sim/gms.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

static void
cell(void *arg, size_t i)
{
	struct scale_plan *p = arg;
	const struct gpu_model *gpu = p->gpus[i / p->npols];
	const struct plan_policy *pol = &p->pols[i % p->npols];
	struct scale_report *rep = &p->cells[i];
	struct run_spec spec = { .policy = pol->ops, .opts = pol->opts, .nopts = pol->nopts,
	    .placement = RUN_PLACEMENT_MODEL, .gpu_total = gpu->total, .gpu_cc = gpu->cc };

	rep->model = p->model;
	rep->policy = pol->label;
	rep->gpu = gpu->name;
	spec.capacity = gpu->total > p->overhead ? gpu->total - p->overhead : 0;
	if (spec.capacity == 0) {
		p->errs[i] = GMS_ECONFIG;
		p->causes[i] = gms_asprintf("%s: its memory (%s) is all context overhead",
		    gpu->name, SZ(gpu->total));
		return;
	}
	p->errs[i] = scale_run(rep, &spec, (uint64_t)SCALE_EXTRAPOLATION_MAX *
	    scale_rec_at(p->model, scale_nrecs(p->model) - 1)->value, &p->causes[i]);
}

int
scale_plan_run(struct scale_plan *p, int threads, char **cause)
{
	size_t i, n = p->ngpus * p->npols;
	int rc;

	if ((rc = scale_model_align(p->model, cause)) < 0)
		return rc;
	p->cells = gms_calloc(n ? n : 1, sizeof(*p->cells));
	p->errs = gms_calloc(n ? n : 1, sizeof(*p->errs));
	p->causes = gms_calloc(n ? n : 1, sizeof(*p->causes));
	batch_map(n, cell, p, threads);
	/* a card too small for its context is a row that says so; any other error is the run's */
	for (i = 0; i < n; i++)
		if (p->errs[i] < 0 && p->errs[i] != GMS_ECONFIG) {
			*cause = gms_strdup(p->causes[i]);
			return p->errs[i];
		}
	return 0;
}

void
scale_plan_free(struct scale_plan *p)
{
	size_t i, n = p->ngpus * p->npols;

	for (i = 0; p->cells != NULL && i < n; i++) {
		scale_report_free(&p->cells[i]);
		free(p->causes[i]);
	}
	free(p->cells);
	free(p->errs);
	free(p->causes);
	p->cells = NULL;
	p->errs = NULL;
	p->causes = NULL;
}

static cJSON *
cell_json(const struct scale_plan *p, size_t i)
{
	const struct scale_report *rep = &p->cells[i];
	cJSON *o = cJSON_CreateObject(), *next, *oom;

	cJSON_AddStringToObject(o, "policy", p->pols[i % p->npols].label);
	if (p->errs[i] < 0) {
		cJSON_AddStringToObject(o, "error", p->causes[i]);
		return o;
	}
	if (rep->found) {
		cJSON_AddNumberToObject(o, "value", (double)rep->fit.value);
		cJSON_AddNumberToObject(o, "peak_reserved", (double)rep->fit.peak_reserved);
		cJSON_AddNumberToObject(o, "beyond", rep->fit.built.beyond);
	} else {
		cJSON_AddNullToObject(o, "value");
	}
	cJSON_AddNumberToObject(o, "searched_up_to", (double)rep->search_max);
	if (rep->next.value) {
		next = cJSON_AddObjectToObject(o, "next");
		cJSON_AddNumberToObject(next, "value", (double)rep->next.value);
		oom = cJSON_AddObjectToObject(next, "oom");
		cJSON_AddNumberToObject(oom, "event", (double)rep->next.oom_event);
		cJSON_AddNumberToObject(oom, "size", (double)rep->next.oom_size);
		if (rep->next.oom_at)
			cJSON_AddStringToObject(oom, "at", rep->next.oom_at);
		cJSON_AddStringToObject(next, "follows",
		    scale_rec_at(p->model, rep->next.built.base)->path);
	}
	if (rep->fits_again)
		cJSON_AddNumberToObject(o, "fits_again_at", (double)rep->fits_again);
	cJSON_AddNumberToObject(o, "replays", (double)rep->probes);
	return o;
}

cJSON *
scale_plan_json(const struct scale_plan *p)
{
	cJSON *o = cJSON_CreateObject(), *a, *g, *cells, *it;
	size_t i, j, n = scale_nrecs(p->model);

	a = cJSON_AddArrayToObject(o, "recordings");
	for (i = 0; i < n; i++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "trace", scale_rec_at(p->model, i)->path);
		cJSON_AddNumberToObject(it, "value", (double)scale_rec_at(p->model, i)->value);
		cJSON_AddItemToArray(a, it);
	}
	a = cJSON_AddArrayToObject(o, "policies");
	for (i = 0; i < p->npols; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->pols[i].label));
	cJSON_AddNumberToObject(o, "context_overhead", (double)p->overhead);
	a = cJSON_AddArrayToObject(o, "gpus");
	for (j = 0; j < p->ngpus; j++) {
		g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "gpu", p->gpus[j]->name);
		cJSON_AddNumberToObject(g, "memory", (double)p->gpus[j]->total);
		cells = cJSON_AddArrayToObject(g, "largest_fitting");
		for (i = 0; i < p->npols; i++)
			cJSON_AddItemToArray(cells, cell_json(p, j * p->npols + i));
		cJSON_AddItemToArray(a, g);
	}
	return o;
}

/* One cell as the table shows it: the value, "n+" past the search, "-" when nothing fits. */
static void
cell_text(const struct scale_plan *p, size_t i, char *buf, size_t len, int *far)
{
	const struct scale_report *rep = &p->cells[i];

	if (p->errs[i] < 0)
		snprintf(buf, len, "-");
	else if (!rep->found)
		snprintf(buf, len, "none fits");
	else
		snprintf(buf, len, "%llu%s (%s)%s", (unsigned long long)rep->fit.value,
		    rep->next.value ? "" : "+", SZ(rep->fit.peak_reserved),
		    rep->fit.built.beyond > 2 ? " *" : "");
	if (p->errs[i] >= 0 && rep->found && rep->fit.built.beyond > 2)
		*far = 1;
}

char *
scale_plan_text(const struct scale_plan *p)
{
	char *out = NULL, buf[96], col[256];
	size_t len = 0, i, j, n = scale_nrecs(p->model), w;
	uint64_t hi = scale_rec_at(p->model, n - 1)->value;
	FILE *f = open_memstream(&out, &len);
	int far = 0, again = 0, none = 0;

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	fprintf(f, "plan: the largest value that fits each GPU, from %zu recordings\n", n);
	for (i = 0; i < n; i++)
		fprintf(f, "  at %llu: %s\n", (unsigned long long)scale_rec_at(p->model, i)->value,
		    scale_rec_at(p->model, i)->path);
	fprintf(f, "a GPU's memory less %s of context; each value built and replayed\n\n",
	    SZ(p->overhead));
	fprintf(f, "  %-10s %10s", "GPU", "memory");
	for (i = 0; i < p->npols; i++) {
		const char *c = policy_column(p->pols[i].label, col, sizeof(col));

		fprintf(f, "  %-*s", i + 1 < p->npols ? (int)GMS_MAX(24, strlen(c)) : 0, c);
	}
	fprintf(f, "\n");
	for (j = 0; j < p->ngpus; j++) {
		fprintf(f, "  %-10s %10s", p->gpus[j]->name, SZ(p->gpus[j]->total));
		for (i = 0; i < p->npols; i++) {
			size_t k = j * p->npols + i;

			cell_text(p, k, buf, sizeof(buf), &far);
			w = i + 1 < p->npols ? GMS_MAX(24, strlen(policy_column(p->pols[i].label, col,
			    sizeof(col)))) : 0;
			fprintf(f, "  %-*s", (int)w, buf);
			again |= p->errs[k] >= 0 && p->cells[k].fits_again != 0;
			none |= p->errs[k] >= 0 && p->cells[k].found && !p->cells[k].next.value;
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n  each cell: the largest value that fits (its peak reserved)\n");
	if (none)
		fprintf(f, "  n+: every value searched fits (up to %d times the largest recorded, "
		    "%llu)\n", SCALE_EXTRAPOLATION_MAX,
		    (unsigned long long)SCALE_EXTRAPOLATION_MAX * hi);
	if (far)
		fprintf(f, "  *: more than twice the largest recorded value (%llu): record nearer "
		    "it to be sure\n", (unsigned long long)hi);
	if (again)
		fprintf(f, "  (on some cards a larger value fits again: the peak is not monotone "
		    "in the value; JSON fits_again_at)\n");
	for (j = 0; j < p->ngpus; j++)	/* a card's cause once, whatever its policies */
		if (p->npols > 0 && p->errs[j * p->npols] < 0)
			fprintf(f, "  -: %s\n", p->causes[j * p->npols]);
	fclose(f);
	return out;
}
