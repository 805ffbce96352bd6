/*
 * inputs.c - what a command reads (inputs.h): each kind resolved once, the
 * trace a run of it reads, and how a job built from recordings says so.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/inputs.h"
#include "analysis/scaling.h"
#include "sim/gms.h"
#include "sim/run.h"
#include "sim/share.h"
#include "traces/tracemem.h"

const char *
inputs_kind_name(enum inputs_kind k)
{
	switch (k) {
	case INPUTS_TRACE:
		return "one trace";
	case INPUTS_PAIR:
		return "two traces";
	case INPUTS_RANKS:
		return "--ranks";
	case INPUTS_SCALED:
		return "--at";
	case INPUTS_JOBS:
		return "--job/--scenario";
	case INPUTS_OOMLOG:
		return "an out-of-memory log";
	}
	return "?";
}

static void
add_file(struct inputs *in, const char *path)
{
	in->files = gms_realloc(in->files, (in->nfiles + 1) * sizeof(*in->files));
	in->files[in->nfiles++] = path;
}

/* Recordings at values: each read whole, the model, and the job at rq->value. */
static int
open_scaled(const struct inputs_req *rq, struct inputs *in, char **cause)
{
	size_t i;
	int err;

	/* one run of the job per value: the same file twice is no curve */
	for (i = 0; i < rq->nargs; i++) {
		struct stat si, sj;
		size_t j;

		for (j = 0; j < i; j++) {
			if (strcmp(rq->args[i], "-") == 0 && strcmp(rq->args[j], "-") == 0)
				return gms_fail(cause, GMS_ECONFIG, "standard input can be one of "
				    "the recordings, not two (--at %llu and --at %llu)",
				    (unsigned long long)rq->at[j], (unsigned long long)rq->at[i]);
			if (strcmp(rq->args[i], "-") != 0 && strcmp(rq->args[j], "-") != 0 &&
			    stat(rq->args[i], &si) == 0 && stat(rq->args[j], &sj) == 0 &&
			    si.st_dev == sj.st_dev && si.st_ino == sj.st_ino)
				return gms_fail(cause, GMS_ECONFIG, "%s is given at %llu and at %llu: "
				    "each value needs a recording of its own (the job run at it)",
				    rq->args[i], (unsigned long long)rq->at[j],
				    (unsigned long long)rq->at[i]);
		}
	}
	in->nrecs = rq->nargs;
	in->recs = gms_calloc(in->nrecs, sizeof(*in->recs));
	for (i = 0; i < in->nrecs; i++) {
		in->recs[i].path = rq->args[i];
		in->recs[i].value = rq->at[i];
		if ((err = trace_mem_load(rq->args[i], &rq->topts, &in->recs[i].mem, cause)) < 0)
			return err;
	}
	if ((err = scale_model_new(in->recs, in->nrecs, &in->model, cause)) < 0)
		return err;
	if (rq->value == 0)
		return 0;
	in->built = gms_calloc(1, sizeof(*in->built));
	if ((err = scale_build(in->model, rq->value, &in->mem, in->built, cause)) < 0)
		return err;
	in->path = scale_rec_at(in->model, in->built->base)->path;
	return 0;
}

/*
 * The jobs of a shared GPU (share's and replay's): --scenario's and each
 * --job's, the card from the command line first, then the file; each job
 * read, checked and named apart.
 */
static int
open_jobs(const struct inputs_req *rq, struct inputs *in, char **cause)
{
	struct share_specs *s = &in->specs;
	struct share_scenario *sc = &in->sc;
	const struct gpu_model *g = rq->gpu;
	char *why = NULL;
	size_t k, m, i;
	int err;

	*sc = (struct share_scenario){ .context = GPU_CONTEXT_OVERHEAD, .cc = 9 };
	if (rq->scenario != NULL && (err = share_read_scenario(rq->scenario, s, cause)) < 0)
		return err;
	for (i = 0; i < rq->njobs; i++)
		if ((err = share_parse_job(rq->jobs[i], (int)i + 1, s, cause)) < 0)
			return err;
	if (s->n < 2)
		return gms_fail(cause, GMS_EUSAGE, "%s needs two jobs or more: give --job "
		    "'TRACE key=value ...' for each, or --scenario FILE.json", rq->command);
	if (g == NULL && rq->capacity == 0 && s->gpu != NULL &&
	    (g = gpu_parse(s->gpu, &s->gpu_own, &why)) == NULL) {
		err = gms_fail(cause, GMS_ECONFIG, "%s: %s", rq->scenario, why);
		free(why);
		return err;
	}
	if (g != NULL) {
		sc->total = g->total;
		sc->cc = g->cc;
		sc->gpu = g->name;
	} else {
		sc->total = rq->capacity ? rq->capacity : s->total;
	}
	if (sc->total == 0)
		return gms_fail(cause, GMS_EUSAGE, "%s needs the GPU: give --gpu=MODEL or "
		    "--capacity=SIZE (its whole memory), or \"gpu\" or \"capacity\" in the "
		    "scenario", rq->command);
	sc->context = rq->has_context ? rq->context : s->has_context ? s->context :
	    GPU_CONTEXT_OVERHEAD;
	sc->jobs = gms_calloc(s->n, sizeof(*sc->jobs));
	for (k = 0; k < s->n; k++) {
		sc->njobs = k + 1;
		if ((err = share_job_make(&s->specs[k], &rq->topts, 1, &sc->jobs[k], cause)) < 0)
			return err;
		add_file(in, sc->jobs[k].path);
		/* names tell jobs apart everywhere: make them unique */
		for (m = 0; m < k; m++)
			if (strcmp(sc->jobs[m].name, sc->jobs[k].name) == 0) {
				char *nn = gms_asprintf("%s-%zu", sc->jobs[k].name, k + 1);

				free(sc->jobs[k].name);
				sc->jobs[k].name = nn;
				m = (size_t)-1;
			}
	}
	return share_check(sc, cause);
}

int
inputs_open(const struct inputs_req *rq, struct inputs *in, char **cause)
{
	size_t i;

	memset(in, 0, sizeof(*in));
	in->kind = rq->kind;
	in->topts = rq->topts;
	if (rq->scenario != NULL)
		add_file(in, rq->scenario);
	switch (rq->kind) {
	case INPUTS_TRACE:
		in->path = rq->args[0];
		add_file(in, in->path);
		in->framework = rq->framework ? trace_framework(in->path, &in->topts) : 0;
		return 0;
	case INPUTS_PAIR:
		in->paths[0] = rq->args[0];
		in->paths[1] = in->path = rq->args[1];
		add_file(in, in->paths[0]);
		add_file(in, in->paths[1]);
		in->framework = rq->framework ? trace_framework(in->path, &in->topts) : 0;
		return 0;
	case INPUTS_RANKS: {
		int err = ranks_collect(rq->args, (int)rq->nargs, &in->ranks, cause);

		/* the directories too: an output in one would be a rank next time */
		for (i = 0; err == 0 && i < rq->nargs; i++)
			add_file(in, rq->args[i]);
		for (i = 0; err == 0 && i < in->ranks.n; i++)
			add_file(in, in->ranks.f[i].path);
		if (err == 0 && rq->framework)
			in->framework = trace_framework(in->ranks.f[0].path, &in->topts);
		return err;
	}
	case INPUTS_SCALED: {
		int err;

		for (i = 0; i < rq->nargs; i++)
			add_file(in, rq->args[i]);
		if ((err = open_scaled(rq, in, cause)) == 0 || in->nrecs > 0)
			in->framework = in->recs[0].mem != NULL ?
			    trace_header_framework(trace_mem_header(in->recs[0].mem)) : 0;
		return err;
	}
	case INPUTS_JOBS:
		return open_jobs(rq, in, cause);
	case INPUTS_OOMLOG:
		in->path = rq->args[0];
		add_file(in, in->path);
		in->oomlog = gms_calloc(1, sizeof(*in->oomlog));
		return oomlog_read(in->path, in->oomlog, cause);
	}
	return gms_fail(cause, GMS_EUSAGE, "no input");
}

void
inputs_close(struct inputs *in)
{
	size_t i;

	ranks_free(&in->ranks);
	scale_model_free(in->model);
	for (i = 0; i < in->nrecs; i++)
		trace_mem_free(in->recs[i].mem);
	free(in->recs);
	free(in->built);
	trace_mem_free(in->mem);
	for (i = 0; i < in->sc.njobs; i++)
		share_job_free(&in->sc.jobs[i]);
	free(in->sc.jobs);
	share_specs_free(&in->specs);
	if (in->oomlog != NULL)
		oomlog_free(in->oomlog);
	free(in->oomlog);
	free(in->files);
	memset(in, 0, sizeof(*in));
}

int
inputs_spec(const struct inputs *in, int hold, struct run_spec *spec, struct trace_mem **held,
    char **cause)
{
	int err;

	*held = NULL;
	spec->device = in->topts.device;
	spec->unknown_frees_warn = in->topts.unknown_frees_warn;
	spec->path = in->path;
	if (in->mem != NULL) {
		spec->mem = in->mem;
		return 0;
	}
	/* read twice: standard input, a pipe, a pickle are held */
	if (hold && trace_mem_worth(in->path)) {
		if ((err = trace_mem_load(in->path, &in->topts, held, cause)) < 0)
			return err;
		spec->mem = *held;
	}
	return 0;
}

int
inputs_mem(const struct inputs *in, struct trace_mem **mem, int *owned, char **cause)
{
	*owned = in->mem == NULL;
	if (in->mem != NULL) {
		*mem = in->mem;
		return 0;
	}
	return trace_mem_load(in->path, &in->topts, mem, cause);
}

char *
inputs_scaled_text(const struct inputs *in)
{
	const struct scale_built *b = in->built;
	char *out = NULL;
	size_t len = 0, i, n;
	FILE *f;

	if (b == NULL || (f = open_memstream(&out, &len)) == NULL)
		return NULL;
	n = scale_nrecs(in->model);
	fprintf(f, "Built, not recorded: the job at %llu from recordings at",
	    (unsigned long long)b->value);
	for (i = 0; i < n; i++)
		fprintf(f, "%s %llu", i == 0 ? "" : i + 1 < n ? "," : " and",
		    (unsigned long long)scale_rec_at(in->model, i)->value);
	fprintf(f, ", following the events of %s", scale_rec_at(in->model, b->base)->path);
	if (b->beyond > 0)
		fprintf(f, ",\n  %.1fx beyond the recordings%s", b->beyond,
		    b->beyond > 2 ? ": record nearer it to be sure" : "");
	fprintf(f, " (gpumemsim scale says how each size was fitted)\n");
	scale_built_text(f, in->model, b);
	fclose(f);
	return out;
}

void
inputs_scaled_json(const struct inputs *in, cJSON *o)
{
	cJSON *sc, *arr, *it;
	size_t i;

	if (in->built == NULL || !cJSON_IsObject(o))
		return;
	sc = cJSON_AddObjectToObject(o, "scaled");
	cJSON_AddNumberToObject(sc, "value", (double)in->built->value);
	arr = cJSON_AddArrayToObject(sc, "recordings");
	for (i = 0; i < scale_nrecs(in->model); i++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "trace", scale_rec_at(in->model, i)->path);
		cJSON_AddNumberToObject(it, "value", (double)scale_rec_at(in->model, i)->value);
		cJSON_AddItemToArray(arr, it);
	}
	scale_built_json(sc, in->model, in->built);
}
