/*
 * entry-check.c - `check`'s entry (entries.h): thresholds on a run, for CI.
 * Each policy's run (of the trace, the job built at a value, or every rank
 * of a job) and its checks; with placements the fit checks and the peak
 * hold under every one; against a baseline saved with its stacks, what grew
 * since when a check failed.  Text, TAP (one test per check) or JSON.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "analysis/tracediff.h"
#include "sim/gms.h"

/* A saved run result is about 1 KiB. */
#define BASELINE_MAX (1u << 20)

int
entry_check_baseline(const char *path, cJSON **out, char **cause)
{
	FILE *f = fopen(path, "rb");
	const char *end = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rerr;

	*out = NULL;
	if (f == NULL)
		return gms_fail(cause, GMS_EIO, "cannot open baseline '%s': %s", path,
		    strerror(errno));
	do {
		if (cap - len < 4096)
			buf = gms_realloc(buf, cap = cap ? cap * 2 : 65536);
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0 && len <= BASELINE_MAX);
	rerr = ferror(f);
	fclose(f);
	if (rerr) {
		free(buf);
		return gms_fail(cause, GMS_EIO, "cannot read baseline '%s': %s", path,
		    strerror(EIO));
	}
	if (len > BASELINE_MAX) {
		free(buf);
		return gms_fail(cause, GMS_ECONFIG, "%s: larger than 1 MiB: not a saved run result",
		    path);
	}
	buf[len] = '\0';
	*out = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (*out != NULL && end != NULL && end[strspn(end, " \t\r\n")] != '\0') {
		cJSON_Delete(*out);
		*out = NULL;
		n = (size_t)(end - buf);
		free(buf);
		return gms_fail(cause, GMS_ECONFIG, "%s: unexpected data after the JSON result "
		    "(at byte %zu)", path, n);
	}
	free(buf);
	if (*out == NULL)
		return gms_fail(cause, GMS_ECONFIG, "%s: not JSON (save it with 'gpumemsim run "
		    "--format=json')", path);
	return 0;
}

/* A check's name: "peak_reserved", or with several policies "LABEL peak_reserved". */
static const char *
name(const char *prefix, const char *what, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", prefix ? prefix : "", prefix ? " " : "", what);
	return buf;
}

/*
 * spec's run into *out: with n placements, the model's placement's output,
 * and *pl the others.
 */
static int
run_once(const struct run_spec *spec, size_t n, int threads, struct run_output *out,
    struct placements *pl, char **cause)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (n > 0) {
		err = placements_run(spec, n, threads, pl, cause);
		*out = pl->model;
		memset(&pl->model, 0, sizeof(pl->model));
	} else {
		err = run_simulate(spec, out, cause);
	}
	return err;
}

/*
 * One policy's run and its checks into l.  The first run's output is kept in
 * *first (the trace's header, for the report).
 */
static int
check_policy(const struct check_request *rq, const struct run_spec *tmpl,
    const struct entry_policy *e, const char *prefix, struct check_list *l,
    struct run_output *first, char **cause)
{
	struct run_spec spec = *tmpl;
	struct run_output own, fit, *out = first->hdr == NULL ? first : &own;
	struct placements pl = { 0 }, plfit = { 0 };
	size_t n = rq->placements;
	char detail[160], buf[384], *why = NULL;
	/*
	 * The run under the capacity (or none) is needed only for what is
	 * checked of it: with a fit alone, the run at that capacity is the only
	 * one (a policy that cannot run without a limit, preallocate on a trace
	 * that does not say its GPU's memory, must not fail for want of one).
	 */
	int need_first = spec.capacity != 0 || rq->has_max_peak || rq->has_max_frag ||
	    rq->has_max_overhead || rq->has_max_allocs || rq->baseline != NULL || !rq->has_fit;
	int err = 0;

	memset(&own, 0, sizeof(own));
	memset(&fit, 0, sizeof(fit));
	spec.policy = e->ops;
	spec.opts = e->opts;
	spec.nopts = e->nopts;
	if (need_first && (err = run_once(&spec, n, rq->threads, out, &pl, cause)) < 0)
		goto out;
	if (spec.capacity != 0 && n > 0)
		check_fits_placements(l, name(prefix, "fits", buf, sizeof(buf)), &pl, out->hdr);
	else if (spec.capacity != 0)
		check_fits(l, name(prefix, "fits", buf, sizeof(buf)), spec.capacity, &out->res,
		    out->hdr);
	if (rq->has_max_peak) {
		snprintf(detail, sizeof(detail), "the largest under %zu placements", n);
		check_le(l, name(prefix, "peak_reserved", buf, sizeof(buf)), CHECK_BYTES,
		    (double)(n > 0 ? pl.peak_max : out->res.peak_reserved),
		    (double)rq->max_peak_reserved, n > 0 ? detail : NULL);
	}
	if (rq->has_max_frag)
		check_le(l, name(prefix, "fragmentation", buf, sizeof(buf)), CHECK_RATIO,
		    report_fragmentation(&out->res), rq->max_fragmentation,
		    "1 - peak allocated / peak reserved");
	if (rq->has_max_overhead) {
		snprintf(detail, sizeof(detail), "peak reserved over the live peak of %llu B",
		    (unsigned long long)out->res.peak_live);
		check_le(l, name(prefix, "overhead", buf, sizeof(buf)), CHECK_RATIO,
		    out->res.peak_live ? (double)out->res.peak_reserved /
		    (double)out->res.peak_live - 1.0 : 0.0, rq->max_overhead, detail);
	}
	if (rq->has_max_allocs)
		check_le(l, name(prefix, "device_allocs", buf, sizeof(buf)), CHECK_COUNT,
		    (double)out->res.device_allocs, (double)rq->max_device_allocs, NULL);
	if (rq->has_fit) {
		struct run_output *fo = need_first ? &fit : out;

		spec.capacity = rq->fit_capacity;
		if ((err = run_once(&spec, n, rq->threads, fo, &plfit, cause)) < 0)
			goto out;
		if (n > 0)
			check_fits_placements(l, name(prefix, "must_fit", buf, sizeof(buf)), &plfit,
			    fo->hdr);
		else
			check_fits(l, name(prefix, "must_fit", buf, sizeof(buf)), rq->fit_capacity,
			    &fo->res, fo->hdr);
	}
	if (rq->baseline != NULL && (err = check_baseline(l, rq->baseline,
	    rq->any_trace ? NULL : out->hdr->name,
	    out->policy ? out->policy->name : e->ops->name, &out->res, rq->tolerance,
	    &why)) < 0) {
		err = gms_fail(cause, GMS_ECONFIG, "%s: %s", rq->baseline_path, why);
		free(why);
	}
out:
	run_output_free(&own);
	run_output_free(&fit);
	placements_free(&pl);
	placements_free(&plfit);
	return err;
}

/* What grew since the baseline, under its heading (caller frees). */
static char *
diff_text(const struct stack_diff *d, size_t top)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (f == NULL)
		return NULL;
	fputs("What grew since the baseline, by stack (each at its peak reservation):\n", f);
	stack_diff_text(f, d, top);
	fclose(f);
	return s;
}

int
entry_check(const struct inputs *in, const struct check_request *rq,
    struct check_answer *ans, char **cause)
{
	const struct rank_set *set = in->kind == INPUTS_RANKS ? &in->ranks : NULL;
	struct run_spec spec = { 0 };
	struct trace_mem *held = NULL;
	const cJSON *bst;
	size_t i, r, nr = set != NULL ? set->n : 1;
	char *note, *tmp, prefix[256], buf[300];
	int err;

	memset(ans, 0, sizeof(*ans));
	ans->rq = rq;
	ans->in = in;
	spec.capacity = rq->target.capacity;
	spec.placement = rq->target.placement;
	spec.gpu_total = rq->target.gpu ? rq->target.gpu->total : 0;
	spec.gpu_cc = rq->target.gpu ? rq->target.gpu->cc : 0;
	/* no policy named: a profile that says its allocator's mode is checked under it */
	spec.policy_as_recorded = rq->as_recorded;
	if ((err = inputs_spec(in, 0, &spec, &held, cause)) < 0)
		return err;
	if (set != NULL)
		ans->ranks = gms_calloc(nr, sizeof(*ans->ranks));
	/* with the ranks of a job, each rank's checks are named after it: "rank 3 must_fit" */
	for (r = 0; r < nr; r++) {
		struct run_output *ro = set != NULL && r > 0 ? &ans->ranks[r] : &ans->first;

		if (set != NULL)
			spec.path = set->f[r].path;
		for (i = 0; i < rq->npols; i++) {
			if (set != NULL)
				snprintf(prefix, sizeof(prefix), "rank %d%s%s", set->f[r].rank,
				    rq->npols > 1 ? " " : "", rq->npols > 1 ? rq->pols[i].label : "");
			if ((err = check_policy(rq, &spec, &rq->pols[i], set != NULL ? prefix :
			    rq->npols > 1 ? rq->pols[i].label : NULL, &ans->l, ro, cause)) < 0)
				return err;
			if (r > 0)
				continue;
			tmp = gms_asprintf("%s%s%s", ans->what ? ans->what : "", ans->what ? ", " :
			    "", rq->npols > 1 ? rq->pols[i].label : ans->first.policy ?
			    ans->first.policy->name : rq->pols[i].ops->name);
			free(ans->what);
			ans->what = tmp;
		}
		if (rq->must_be_complete && ro->hdr != NULL)
			check_complete(&ans->l, name(set != NULL ? prefix : NULL, "complete", buf,
			    sizeof(buf)), ro->hdr);
		if (ans->inc == NULL && ro->hdr != NULL &&
		    (note = report_incomplete_text(ro->hdr)) != NULL) {
			ans->inc = ro->hdr;
			free(note);
		}
	}
	if (ans->inc == NULL)
		ans->inc = ans->first.hdr;
	/* a baseline saved with its stacks says what grew, when a check failed */
	bst = rq->baseline != NULL ? cJSON_GetObjectItemCaseSensitive(rq->baseline, "stacks") :
	    NULL;
	if (bst != NULL && check_failed(&ans->l)) {
		struct run_spec again = spec;
		char *why = NULL;

		again.policy = rq->pols[0].ops;
		again.opts = rq->pols[0].opts;
		again.nopts = rq->pols[0].nopts;
		if ((err = trace_diff_baseline(&again, bst, rq->frames, rq->depth, &ans->sd,
		    &why)) < 0) {
			err = gms_fail(cause, err, "%s: %s", rq->baseline_path, why);
			free(why);
			return err;
		}
		ans->grew = err == 0 ? diff_text(&ans->sd, rq->top) : NULL;
	}
	return 0;
}

/* "check NAME: policy P, capacity C": the text report's first line. */
static void
title(const struct check_answer *ans, char *buf, size_t len)
{
	const struct check_request *rq = ans->rq;
	char jobname[64];

	if (ans->ranks != NULL)
		snprintf(jobname, sizeof(jobname), "%zu ranks of one job", ans->in->ranks.n);
	snprintf(buf, len, "check %s: polic%s %s, capacity %s%s",
	    ans->ranks != NULL ? jobname : ans->first.hdr->name,
	    rq->npols > 1 ? "ies" : "y", ans->what, rq->target.capacity ?
	    gms_fmt_size(rq->target.capacity, (char[32]){ 0 }, 32) : "unlimited",
	    rq->placements ? ", every placement" : "");
}

static void
append(FILE *f, const char *lead, char *text)
{
	if (text != NULL)
		fprintf(f, "%s%s", lead, text);
	free(text);
}

/* Each line of text as a TAP diagnostic. */
static void
diagnostics(FILE *f, char *text)
{
	char *line, *save = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		fprintf(f, "# %s\n", line);
	free(text);
}

char *
entry_check_text(const struct check_answer *ans)
{
	char *text = NULL, head[1024];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	title(ans, head, sizeof(head));
	append(f, "", check_text(&ans->l, head));
	if (ans->grew != NULL)
		fprintf(f, "\n%s", ans->grew);
	append(f, "\n", inputs_scaled_text(ans->in));
	append(f, "\n", report_incomplete_text(ans->inc));
	fclose(f);
	return text;
}

char *
entry_check_tap(const struct check_answer *ans)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	append(f, "# ", report_incomplete_text(ans->inc));
	diagnostics(f, inputs_scaled_text(ans->in));
	append(f, "", check_tap(&ans->l));
	diagnostics(f, ans->grew != NULL ? gms_strdup(ans->grew) : NULL);
	fclose(f);
	return text;
}

cJSON *
entry_check_json(const struct check_answer *ans)
{
	const struct check_request *rq = ans->rq;
	cJSON *o = check_json(&ans->l), *arr;
	size_t i, r;

	cJSON_AddStringToObject(o, "trace", ans->first.hdr->name);
	if (rq->npols == 1) {
		cJSON_AddStringToObject(o, "policy", ans->first.policy ?
		    ans->first.policy->name : rq->pols[0].ops->name);
	} else {
		arr = cJSON_AddArrayToObject(o, "policies");
		for (i = 0; i < rq->npols; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateString(rq->pols[i].label));
	}
	if (rq->placements)
		cJSON_AddNumberToObject(o, "placements", (double)rq->placements);
	cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(ans->inc));
	if (ans->ranks != NULL) {
		arr = cJSON_AddArrayToObject(o, "ranks");
		for (r = 0; r < ans->in->ranks.n; r++) {
			cJSON *it = cJSON_CreateObject();

			cJSON_AddNumberToObject(it, "rank", ans->in->ranks.f[r].rank);
			cJSON_AddStringToObject(it, "path", ans->in->ranks.f[r].path);
			cJSON_AddItemToArray(arr, it);
		}
	}
	if (ans->grew != NULL)
		cJSON_AddItemToObject(o, "stacks_since_baseline", stack_diff_json(&ans->sd, rq->top));
	return o;
}

void
entry_check_free(struct check_answer *ans)
{
	size_t r;

	for (r = 1; ans->ranks != NULL && r < ans->in->ranks.n; r++)
		run_output_free(&ans->ranks[r]);
	free(ans->ranks);
	free(ans->what);
	free(ans->grew);
	stack_diff_free(&ans->sd);
	run_output_free(&ans->first);
	check_free(&ans->l);
	memset(ans, 0, sizeof(*ans));
}
