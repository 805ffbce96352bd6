/*
 * share-search.c - the questions share asks of many scenarios (share.h):
 * how often a mix runs out over random start offsets (--offsets), and the
 * per-job limits, in each framework's own terms, under which it cannot
 * (--recommend).  Each scenario is a share_run(); independent ones run on
 * every core.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plan.h"
#include "analysis/share-report.h"
#include "sim/share.h"
#include "sim/batch.h"
#include "sim/gms.h"
#include "sim/gpus.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)
#define PAGE (2 * GMS_MiB)

static uint64_t
splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* --- --offsets ---------------------------------------------------------- */

struct sample {
	struct share_scenario sc;
	struct share_job *jobs;
	struct share_result res;
	int err;
	char *cause;
};

static void
run_sample(void *arg, size_t i)
{
	struct sample *s = &((struct sample *)arg)[i];

	s->err = share_run(&s->sc, NULL, &s->res, &s->cause);
}

/* Is a worse than b: more jobs out, then the first out sooner? */
static int
worse(const struct share_result *a, const struct share_result *b)
{
	if (a->nooms != b->nooms)
		return a->nooms > b->nooms;
	return a->nooms > 0 && a->ooms[0].time_us < b->ooms[0].time_us;
}

cJSON *
share_offsets(const struct share_scenario *sc, unsigned long long n, unsigned long long seed,
    int threads, char **text, char **cause)
{
	struct sample *smp = gms_calloc(n, sizeof(*smp));
	cJSON *o = NULL, *by, *w, *st, *a;
	uint64_t *outs = gms_calloc(sc->njobs, sizeof(*outs)), x, with = 0;
	int64_t span = 0;
	size_t i, k, worst = 0;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	for (k = 0; k < sc->njobs; k++)
		span = GMS_MAX(span, share_span(&sc->jobs[k]));
	for (i = 0; i < n; i++) {
		/* each sample's offsets from the seed and its number alone */
		x = seed * 0x2545F4914F6CDD1DULL + i;
		smp[i].sc = *sc;
		smp[i].jobs = gms_calloc(sc->njobs, sizeof(*smp[i].jobs));
		memcpy(smp[i].jobs, sc->jobs, sc->njobs * sizeof(*sc->jobs));
		for (k = 1; k < sc->njobs; k++) {
			smp[i].jobs[k].start_is_event = 0;
			smp[i].jobs[k].start_us = (int64_t)(splitmix(&x) % ((uint64_t)span + 1));
		}
		smp[i].sc.jobs = smp[i].jobs;
	}
	batch_map(n, run_sample, smp, threads);
	for (i = 0; i < n; i++)
		if (smp[i].err < 0) {
			gms_fail(cause, smp[i].err, "%s", smp[i].cause);
			goto out;
		}
	for (i = 0; i < n; i++) {
		with += !smp[i].res.fits;
		for (k = 0; k < smp[i].res.nooms; k++)
			outs[smp[i].res.ooms[k].job]++;
		if (worse(&smp[i].res, &smp[worst].res))
			worst = i;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "samples", (double)n);
	cJSON_AddNumberToObject(o, "seed", (double)seed);
	cJSON_AddNumberToObject(o, "within_us", (double)span);
	cJSON_AddNumberToObject(o, "with_oom", (double)with);
	cJSON_AddNumberToObject(o, "share", (double)with / (double)n);
	by = cJSON_AddObjectToObject(o, "ooms_by_job");
	for (k = 0; k < sc->njobs; k++)
		cJSON_AddNumberToObject(by, sc->jobs[k].name, (double)outs[k]);
	if (with == 0) {
		cJSON_AddNullToObject(o, "worst");
	} else {
		w = cJSON_AddObjectToObject(o, "worst");
		cJSON_AddNumberToObject(w, "sample", (double)worst);
		st = cJSON_AddObjectToObject(w, "starts_us");
		for (k = 0; k < sc->njobs; k++)
			cJSON_AddNumberToObject(st, sc->jobs[k].name, (double)smp[worst].res.jobs[k].start_us);
		a = cJSON_AddArrayToObject(w, "ooms");
		for (k = 0; k < smp[worst].res.nooms; k++)
			cJSON_AddItemToArray(a, share_oom_json(sc, &smp[worst].res.ooms[k], 1));
	}
	if ((f = open_memstream(&out, &len)) != NULL) {
		fprintf(f, "\n  start offsets: %llu samples (seed %llu), every job after the first "
		    "starting within %.3f s: %llu (%.0f%%) run out of memory\n", n, seed,
		    (double)span / 1e6, (unsigned long long)with, 100.0 * (double)with / (double)n);
		if (with > 0) {
			fprintf(f, "    out of memory:");
			for (k = 0; k < sc->njobs; k++)
				fprintf(f, "%s %s in %llu", k ? "," : "", sc->jobs[k].name,
				    (unsigned long long)outs[k]);
			fprintf(f, "\n    worst (sample %zu), starting", worst);
			for (k = 0; k < sc->njobs; k++)
				fprintf(f, "%s %s at %.3f s", k ? "," : "", sc->jobs[k].name,
				    (double)smp[worst].res.jobs[k].start_us / 1e6);
			fprintf(f, ":");
			for (k = 0; k < smp[worst].res.nooms; k++) {
				const struct share_oom *e = &smp[worst].res.ooms[k];

				if (e->event < 0)
					fprintf(f, "%s %s could not start (%s)", k ? ";" : "",
					    sc->jobs[e->job].name, e->what);
				else
					fprintf(f, "%s %s out at event %lld (%.3f s)", k ? ";" : "",
					    sc->jobs[e->job].name, (long long)e->event,
					    (double)e->time_us / 1e6);
			}
			fprintf(f, "\n");
		}
		fclose(f);
	}
	*text = out;
out:
	for (i = 0; i < n; i++) {
		share_result_free(&smp[i].res);
		free(smp[i].jobs);
		free(smp[i].cause);
	}
	free(smp);
	free(outs);
	return o;
}

/* --- --recommend ---------------------------------------------------------- */

enum term { T_FRACTION_TORCH, T_FRACTION_JAX, T_MEMORY_LIMIT, T_NONE };

struct need {
	enum term term;
	uint64_t min;			/* the smallest limit it fits in alone; 0: none */
	uint64_t limit;			/* what it is given */
	double fraction;		/* in the framework's terms */
	unsigned long long mib;
	char setting[160];
};

static enum term
term_of(const struct share_job *j)
{
	if (j->ops->traits & POLICY_ALLOC_CONF)
		return T_FRACTION_TORCH;
	if (!(j->ops->traits & POLICY_BFC))
		return T_NONE;
	return share_job_is_jax(j) ? T_FRACTION_JAX : T_MEMORY_LIMIT;
}

/* The limit expressed as the framework takes it, at least min, at most want when it can. */
static void
express(struct need *nd, uint64_t total, uint64_t want)
{
	double lo, f;

	switch (nd->term) {
	case T_FRACTION_TORCH:
	case T_FRACTION_JAX:
		/* four decimals; the framework truncates fraction x total */
		lo = ceil((double)nd->min * 1e4 / (double)total) / 1e4;
		f = floor((double)want * 1e4 / (double)total) / 1e4;
		nd->fraction = GMS_MAX(lo, f);
		nd->limit = (uint64_t)(nd->fraction * (double)total);
		while (nd->limit < nd->min) {
			nd->fraction += 1e-4;
			nd->limit = (uint64_t)(nd->fraction * (double)total);
		}
		if (nd->term == T_FRACTION_TORCH)
			snprintf(nd->setting, sizeof(nd->setting),
			    "torch.cuda.set_per_process_memory_fraction(%.4f)", nd->fraction);
		else
			snprintf(nd->setting, sizeof(nd->setting),
			    "XLA_PYTHON_CLIENT_MEM_FRACTION=%.4f", nd->fraction);
		break;
	case T_MEMORY_LIMIT:
		nd->mib = GMS_MAX((nd->min + GMS_MiB - 1) / GMS_MiB, want / GMS_MiB);
		nd->limit = nd->mib * GMS_MiB;
		snprintf(nd->setting, sizeof(nd->setting),
		    "tf.config.set_logical_device_configuration(gpu, "
		    "[tf.config.LogicalDeviceConfiguration(memory_limit=%llu)])", nd->mib);
		break;
	case T_NONE:
		nd->limit = 0;
		snprintf(nd->setting, sizeof(nd->setting), "(no limit to set: it reserves only "
		    "what is live)");
		break;
	}
}

struct alone {
	const struct share_scenario *sc;
	struct need *nd;
	int err;
};

/* The smallest limit job k fits in alone (plan's search, to 2 MiB). */
static void
search_alone(void *arg, size_t k)
{
	struct alone *al = arg;
	const struct share_job *j = &al->sc->jobs[k];
	struct plan_policy pol = { .label = j->label, .ops = j->ops, .opts = j->opts,
	    .nopts = j->nopts };
	struct plan_report rep = { .pols = &pol, .npols = 1 };
	char *cause = NULL;

	al->nd[k].term = term_of(j);
	if (plan_run(j->mem, &rep, 1, &cause) < 0 || pol.err != 0)
		al->err = -1;
	al->nd[k].min = pol.min_capacity;
	plan_free(&rep);
	free(cause);
}

/* The scenario with the needs' limits; 0 when it runs without running out. */
static int
try_limits(const struct share_scenario *sc, const struct need *nd, struct share_result *res,
    char **cause)
{
	struct share_scenario t = *sc;
	struct share_job *jobs = gms_calloc(sc->njobs, sizeof(*jobs));
	size_t k;
	int err;

	memcpy(jobs, sc->jobs, sc->njobs * sizeof(*jobs));
	for (k = 0; k < sc->njobs; k++) {
		jobs[k].limit = nd[k].term == T_MEMORY_LIMIT ? nd[k].limit : 0;
		jobs[k].fraction = nd[k].term == T_FRACTION_TORCH || nd[k].term == T_FRACTION_JAX ?
		    nd[k].fraction : 0;
	}
	t.jobs = jobs;
	err = share_run(&t, NULL, res, cause);
	free(jobs);
	return err;
}

/* Does job j fit alone under limit?  (A caching allocator may not with more.) */
static int
fits_alone(const struct share_job *j, uint64_t limit)
{
	struct plan_policy pol = { .label = j->label, .ops = j->ops, .opts = j->opts,
	    .nopts = j->nopts };

	return plan_fits(j->mem, &pol, limit, NULL, NULL) == 1;
}

cJSON *
share_recommend(const struct share_scenario *sc, int threads, char **text, char **cause)
{
	struct need *nd = gms_calloc(sc->njobs, sizeof(*nd));
	struct alone al = { .sc = sc, .nd = nd };
	struct share_result res = { 0 };
	uint64_t sum = 0, need = 0, slack, extra, even;
	cJSON *o = NULL, *a, *it;
	int checked = 0, round, even_short;
	size_t even_oom = 0;
	int64_t even_event = 0;
	char *out = NULL;
	size_t len = 0, k;
	FILE *f;

	batch_map(sc->njobs, search_alone, &al, threads);
	if (al.err < 0) {
		gms_fail(cause, GMS_ECONFIG, "--recommend: a job could not be run alone");
		goto done;
	}
	for (k = 0; k < sc->njobs; k++) {
		sum += nd[k].min;
		need += (nd[k].min + PAGE - 1) / PAGE * PAGE + sc->context;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "need", (double)need);
	/* each its smallest limit and a share of what is left, in proportion; if
	   the mix then runs out, the smallest limits alone */
	for (round = 0; round < 2 && need <= sc->total && sum > 0 && !checked; round++) {
		slack = round == 0 ? sc->total - need : 0;
		for (k = 0; k < sc->njobs; k++) {
			extra = (uint64_t)((double)slack * (double)nd[k].min / (double)sum) /
			    PAGE * PAGE;
			express(&nd[k], sc->total, nd[k].min + extra);
			if (nd[k].term != T_NONE && !fits_alone(&sc->jobs[k], nd[k].limit))
				express(&nd[k], sc->total, nd[k].min);
		}
		share_result_free(&res);
		if (try_limits(sc, nd, &res, cause) < 0) {
			cJSON_Delete(o);
			o = NULL;
			goto done;
		}
		checked = res.fits;
	}
	cJSON_AddBoolToObject(o, "fits", checked);
	a = cJSON_AddArrayToObject(o, "jobs");
	for (k = 0; k < sc->njobs; k++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "name", sc->jobs[k].name);
		cJSON_AddNumberToObject(it, "needs", (double)nd[k].min);
		if (checked) {
			if (nd[k].limit != 0)
				cJSON_AddNumberToObject(it, "limit", (double)nd[k].limit);
			else
				cJSON_AddNullToObject(it, "limit");
			cJSON_AddStringToObject(it, "setting", nd[k].setting);
		}
		cJSON_AddItemToArray(a, it);
	}
	/*
	 * The classic fix, the card split evenly, forgets each process's
	 * context: run it, and where a job runs out under it, say why
	 */
	even = sc->njobs > 1 && sc->context > 0 && checked ? sc->total / sc->njobs : 0;
	even_short = 0;
	/* a job that needs more than its share alone is another story, told above */
	for (k = 0; k < sc->njobs && even > 0; k++)
		if (nd[k].min > even)
			even = 0;
	if (even > 0) {
		struct need *ev = gms_calloc(sc->njobs, sizeof(*ev));
		struct share_result er = { 0 };

		for (k = 0; k < sc->njobs; k++) {
			ev[k] = nd[k];
			ev[k].limit = even;
			ev[k].fraction = (double)even / (double)sc->total;
		}
		if (try_limits(sc, ev, &er, cause) == 0 && !er.fits && er.nooms > 0) {
			even_short = 1;
			even_oom = er.ooms[0].job;
			even_event = er.ooms[0].event;
		}
		share_result_free(&er);
		free(ev);
	}
	if (even_short) {
		cJSON_AddNumberToObject(o, "even_split_limit", (double)even);
		cJSON_AddBoolToObject(o, "even_split_fits", 0);
	}
	a = cJSON_AddArrayToObject(o, "gpus_that_fit");
	for (k = 0; gpu_catalogue[k].name != NULL; k++)
		if (gpu_catalogue[k].total >= need)
			cJSON_AddItemToArray(a, cJSON_CreateString(gpu_catalogue[k].name));
	if ((f = open_memstream(&out, &len)) != NULL) {
		if (checked) {
			fprintf(f, "\n  recommended limits (each job fits alone within its own; with "
			    "their contexts they need %s of %s):\n", SZ(need), SZ(sc->total));
			for (k = 0; k < sc->njobs; k++)
				fprintf(f, "    %s  needs %s, gets %s: %s\n", sc->jobs[k].name,
				    SZ(nd[k].min), nd[k].limit ? SZ(nd[k].limit) : "what it needs",
				    nd[k].setting);
			fprintf(f, "  checked: with these limits no job runs out of memory\n");
			if (even_short)
				fprintf(f, "  not %s each (the card split evenly: %s runs out at "
				    "event %lld): each process's CUDA context (%s) comes on top of "
				    "its limit, so %zu limits and %zu contexts would need %s of %s\n",
				    SZ(even), sc->jobs[even_oom].name, (long long)even_event,
				    SZ(sc->context), sc->njobs, sc->njobs,
				    SZ((even + sc->context) * sc->njobs), SZ(sc->total));
		} else {
			fprintf(f, "\n  no split of this GPU fits every job: alone they need");
			for (k = 0; k < sc->njobs; k++)
				fprintf(f, "%s %s %s", k ? "," : "", sc->jobs[k].name, SZ(nd[k].min));
			fprintf(f, ";\n  with %s of context each that is %s, and the GPU has %s",
			    SZ(sc->context), SZ(need), SZ(sc->total));
			if (need <= sc->total)
				fprintf(f, " (but together, even at their smallest limits, they run "
				    "out)");
			fprintf(f, ".\n  GPUs with at least %s:", SZ(need));
			for (k = 0; gpu_catalogue[k].name != NULL; k++)
				if (gpu_catalogue[k].total >= need)
					fprintf(f, " %s", gpu_catalogue[k].name);
			fprintf(f, "\n");
		}
		fclose(f);
	}
	*text = out;
done:
	share_result_free(&res);
	free(nd);
	return o;
}
