/*
 * cmd-check.c - `gpumemsim check TRACE`: thresholds on a run, for CI.  Exit
 * 0 when every check holds, 1 when one fails (2, 3, 4 as for every command).
 * Output as text, JSON or TAP, one test per check.  With --placements=N the
 * fit checks and the peak hold under every one of N placements.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/check.h"
#include "analysis/placements.h"
#include "analysis/ranks.h"
#include "analysis/report.h"
#include "analysis/tracediff.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"
#include "sim/run.h"
#include "sim/scale.h"
#include "traces/tracemem.h"

/* A saved run result is about 1 KiB. */
#define BASELINE_MAX (1u << 20)

static int
load_baseline(const char *path, cJSON **out)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		cli_error("cannot open baseline '%s': %s", path, strerror(errno));
		return EXIT_SYSTEM;
	}
	const char *end = NULL;
	int rerr;

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
		cli_error("cannot read baseline '%s': %s", path, strerror(EIO));
		return EXIT_SYSTEM;
	}
	if (len > BASELINE_MAX) {
		free(buf);
		cli_error("%s: larger than 1 MiB: not a saved run result", path);
		return EXIT_INPUT;
	}
	buf[len] = '\0';
	*out = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (*out != NULL && end != NULL && end[strspn(end, " \t\r\n")] != '\0') {
		cJSON_Delete(*out);
		*out = NULL;
		cli_error("%s: unexpected data after the JSON result (at byte %zu)", path,
		    (size_t)(end - buf));
		free(buf);
		return EXIT_INPUT;
	}
	free(buf);
	if (*out == NULL) {
		cli_error("%s: not JSON (save it with 'gpumemsim run --format=json')", path);
		return EXIT_INPUT;
	}
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
 * and *pl the others (0 or an exit status, said).
 */
static int
run_once(const struct run_spec *spec, size_t n, int threads, struct run_output *out,
    struct placements *pl)
{
	char *cause = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if (n > 0) {
		err = placements_run(spec, n, threads, pl, &cause);
		*out = pl->model;
		memset(&pl->model, 0, sizeof(pl->model));
	} else {
		err = run_simulate(spec, out, &cause);
	}
	if (err < 0)
		return cli_fail(err, cause);
	return 0;
}

/*
 * One policy's run and its checks into l.  The first run's output is kept in
 * *first (the trace's header, for the report); 0 or an exit status.
 */
static int
check_policy(const struct cli_args *a, const struct run_spec *tmpl, const struct cli_entry *e,
    const char *prefix, uint64_t fit_capacity, const cJSON *base, struct check_list *l,
    struct run_output *first)
{
	struct run_spec spec = *tmpl;
	struct run_output own, fit, *out = first->hdr == NULL ? first : &own;
	struct placements pl = { 0 }, plfit = { 0 };
	size_t n = a->given[OPT_PLACEMENTS] ? (size_t)a->v[OPT_PLACEMENTS].n : 0;
	int threads = (int)a->v[OPT_JOBS].n;
	char *cause = NULL, detail[160], buf[384];
	/*
	 * The run under --capacity (or none) is needed only for what is checked
	 * of it: with --must-fit alone, the run at that capacity is the only one
	 * (a policy that cannot run without a limit, preallocate on a trace that
	 * does not say its GPU's memory, must not fail for want of one).
	 */
	int need_first = spec.capacity != 0 || a->given[OPT_MAX_PEAK_RESERVED] ||
	    a->given[OPT_MAX_FRAGMENTATION] || a->given[OPT_MAX_OVERHEAD] ||
	    a->given[OPT_MAX_DEVICE_ALLOCS] || base != NULL || !a->given[OPT_MUST_FIT];
	int rc = 0;

	memset(&own, 0, sizeof(own));
	memset(&fit, 0, sizeof(fit));
	spec.policy = e->ops;
	spec.opts = e->opts;
	spec.nopts = e->nopts;
	if (need_first && (rc = run_once(&spec, n, threads, out, &pl)) != 0)
		goto out;
	if (spec.capacity != 0 && n > 0)
		check_fits_placements(l, name(prefix, "fits", buf, sizeof(buf)), &pl);
	else if (spec.capacity != 0)
		check_fits(l, name(prefix, "fits", buf, sizeof(buf)), spec.capacity, &out->res);
	if (a->given[OPT_MAX_PEAK_RESERVED]) {
		snprintf(detail, sizeof(detail), "the largest under %zu placements", n);
		check_le(l, name(prefix, "peak_reserved", buf, sizeof(buf)), CHECK_BYTES,
		    (double)(n > 0 ? pl.peak_max : out->res.peak_reserved),
		    (double)a->v[OPT_MAX_PEAK_RESERVED].size, n > 0 ? detail : NULL);
	}
	if (a->given[OPT_MAX_FRAGMENTATION])
		check_le(l, name(prefix, "fragmentation", buf, sizeof(buf)), CHECK_RATIO,
		    report_fragmentation(&out->res), a->v[OPT_MAX_FRAGMENTATION].ratio,
		    "1 - peak allocated / peak reserved");
	if (a->given[OPT_MAX_OVERHEAD]) {
		snprintf(detail, sizeof(detail), "peak reserved over the live peak of %llu B",
		    (unsigned long long)out->res.peak_live);
		check_le(l, name(prefix, "overhead", buf, sizeof(buf)), CHECK_RATIO,
		    out->res.peak_live ? (double)out->res.peak_reserved /
		    (double)out->res.peak_live - 1.0 : 0.0, a->v[OPT_MAX_OVERHEAD].ratio, detail);
	}
	if (a->given[OPT_MAX_DEVICE_ALLOCS])
		check_le(l, name(prefix, "device_allocs", buf, sizeof(buf)), CHECK_COUNT,
		    (double)out->res.device_allocs, (double)a->v[OPT_MAX_DEVICE_ALLOCS].n, NULL);
	if (a->given[OPT_MUST_FIT]) {
		struct run_output *fo = need_first ? &fit : out;

		spec.capacity = fit_capacity;
		if ((rc = run_once(&spec, n, threads, fo, &plfit)) != 0)
			goto out;
		if (n > 0)
			check_fits_placements(l, name(prefix, "must_fit", buf, sizeof(buf)), &plfit);
		else
			check_fits(l, name(prefix, "must_fit", buf, sizeof(buf)), fit_capacity,
			    &fo->res);
	}
	if (base != NULL && check_baseline(l, base, out->hdr->name, out->policy ?
	    out->policy->name : e->ops->name, &out->res,
	    a->v[OPT_TOLERANCE].ratio, &cause) < 0) {
		cli_error("%s: %s", a->v[OPT_BASELINE].s, cause);
		free(cause);
		rc = EXIT_INPUT;
	}
out:
	run_output_free(&own);
	run_output_free(&fit);
	placements_free(&pl);
	placements_free(&plfit);
	return rc;
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
cmd_check(struct cli_args *a)
{
	struct cli_target target;
	struct cli_policies pols = { 0 };
	struct run_spec spec = { 0 };
	struct run_output out;
	struct check_list l = { 0 };
	const char *baseline = a->given[OPT_BASELINE] ? a->v[OPT_BASELINE].s : NULL;
	const char *must_fit = a->given[OPT_MUST_FIT] ? a->v[OPT_MUST_FIT].s : NULL;
	uint64_t fit_capacity = 0;
	int format = a->v[OPT_FORMAT].choice, rc = 0;
	char *cause = NULL, *text, *note, *what = NULL, *tmp, title[1024];
	cJSON *base = NULL, *o, *arr;
	const cJSON *bst;
	struct stack_diff sd = { 0 };
	struct cli_scaled sc = { 0 };
	struct trace_mem *built = NULL;
	struct trace_opts topts;
	char *grew = NULL;
	size_t i, r, nr = 1;
	struct rank_set set = { 0 };
	struct run_output *routs = NULL;	/* with --ranks: each rank's first run */
	const struct trace_header *inc = NULL;	/* the first incomplete rank's header */
	char jobname[64];

	memset(&out, 0, sizeof(out));
	if (!a->given[OPT_MAX_PEAK_RESERVED] && !a->given[OPT_MAX_FRAGMENTATION] &&
	    !a->given[OPT_MAX_OVERHEAD] && !must_fit && !a->given[OPT_MAX_DEVICE_ALLOCS] &&
	    !baseline && !a->given[OPT_CAPACITY] && !a->given[OPT_GPU])
		return cli_usage_error(a->cmd, "nothing to check: give a threshold, "
		    "--must-fit, --capacity, --gpu or --baseline");
	if ((rc = cli_placement_usage(a)) != 0)
		return rc;
	if ((rc = cli_target(a, &target)) != 0)
		goto out;
	cli_run_spec(a, &target, &spec);
	spec.path = a->argv[0];
	if (a->given[OPT_AT]) {	/* the job built at --value; a read trace streams */
		cli_trace_opts(a, &topts);
		if ((rc = cli_load_trace(a, &topts, 1, &sc, &built)) != 0)
			goto out;
		spec.mem = built;
		spec.path = scale_rec_at(sc.model, sc.built->base)->path;
	}
	if (must_fit != NULL)
		fit_capacity = cli_fit_capacity(&a->v[OPT_MUST_FIT], target.overhead);
	if ((rc = cli_policies(a, "caching", &pols)) != 0)
		goto out;
	if (baseline != NULL && pols.n > 1) {
		rc = cli_usage_error(a->cmd, "--baseline is one policy's saved run: give one --policy");
		goto out;
	}
	if (a->given[OPT_RANKS]) {
		if (baseline != NULL || a->given[OPT_AT]) {
			rc = cli_usage_error(a->cmd, "--ranks checks recorded ranks: --baseline and "
			    "--at take one trace");
			goto out;
		}
		if ((rc = ranks_collect(a->argv, a->argc, &set, &cause)) < 0) {
			cli_error("%s", cause);
			free(cause);
			rc = gms_exit_code(rc);
			goto out;
		}
		nr = set.n;
		routs = gms_calloc(nr, sizeof(*routs));
	}
	if (baseline != NULL && (rc = load_baseline(baseline, &base)) != 0)
		goto out;
	/* no policy named: a profile that says its allocator's mode is checked under it */
	spec.policy_as_recorded = pols.defaulted;
	/* with --ranks, each rank's checks are named after it: "rank 3 must_fit" */
	for (r = 0; r < nr; r++) {
		struct run_output *ro = routs != NULL && r > 0 ? &routs[r] : &out;
		char prefix[256];

		if (routs != NULL)
			spec.path = set.f[r].path;
		for (i = 0; i < pols.n; i++) {
			if (routs != NULL)
				snprintf(prefix, sizeof(prefix), "rank %d%s%s", set.f[r].rank,
				    pols.n > 1 ? " " : "", pols.n > 1 ? pols.ents[i].label : "");
			if ((rc = check_policy(a, &spec, &pols.ents[i], routs != NULL ? prefix :
			    pols.n > 1 ? pols.ents[i].label : NULL, fit_capacity, base, &l,
			    ro)) != 0)
				goto out;
			if (r > 0)
				continue;
			tmp = gms_asprintf("%s%s%s", what ? what : "", what ? ", " : "",
			    pols.n > 1 ? pols.ents[i].label : out.policy ? out.policy->name :
			    pols.ents[i].ops->name);
			free(what);
			what = tmp;
		}
		if (inc == NULL && ro->hdr != NULL && (note = report_incomplete_text(ro->hdr)) != NULL) {
			inc = ro->hdr;
			free(note);
		}
	}
	if (inc == NULL)
		inc = out.hdr;

	/* a baseline saved with its stacks says what grew, when a check failed */
	bst = base != NULL ? cJSON_GetObjectItemCaseSensitive(base, "stacks") : NULL;
	if (bst != NULL && check_failed(&l)) {
		struct run_spec again = spec;
		int err;

		again.policy = pols.ents[0].ops;
		again.opts = pols.ents[0].opts;
		again.nopts = pols.ents[0].nopts;
		if ((err = trace_diff_baseline(&again, bst, &sd, &cause)) < 0) {
			cli_error("%s: %s", baseline, cause);
			free(cause);
			rc = gms_exit_code(err);
			goto out;
		}
		grew = err == 0 ? diff_text(&sd, (size_t)a->v[OPT_TOP].n) : NULL;
	}

	if (routs != NULL)
		snprintf(jobname, sizeof(jobname), "%zu ranks of one job", nr);
	snprintf(title, sizeof(title), "check %s: polic%s %s, capacity %s%s",
	    routs != NULL ? jobname : out.hdr->name,
	    pols.n > 1 ? "ies" : "y", what, spec.capacity ?
	    gms_fmt_size(spec.capacity, (char[32]){ 0 }, 32) : "unlimited",
	    a->given[OPT_PLACEMENTS] ? ", every placement" : "");
	if (format == 1) {
		o = check_json(&l);
		cJSON_AddStringToObject(o, "trace", out.hdr->name);
		if (pols.n == 1) {
			cJSON_AddStringToObject(o, "policy", out.policy ? out.policy->name :
			    pols.ents[0].ops->name);
		} else {
			arr = cJSON_AddArrayToObject(o, "policies");
			for (i = 0; i < pols.n; i++)
				cJSON_AddItemToArray(arr, cJSON_CreateString(pols.ents[i].label));
		}
		if (a->given[OPT_PLACEMENTS])
			cJSON_AddNumberToObject(o, "placements", (double)a->v[OPT_PLACEMENTS].n);
		cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(inc));
		if (routs != NULL) {
			arr = cJSON_AddArrayToObject(o, "ranks");
			for (r = 0; r < nr; r++) {
				cJSON *it = cJSON_CreateObject();

				cJSON_AddNumberToObject(it, "rank", set.f[r].rank);
				cJSON_AddStringToObject(it, "path", set.f[r].path);
				cJSON_AddItemToArray(arr, it);
			}
		}
		if (grew != NULL)
			cJSON_AddItemToObject(o, "stacks_since_baseline", stack_diff_json(&sd,
			    (size_t)a->v[OPT_TOP].n));
		cli_print_json(a, o);
		text = NULL;
	} else if (format == 2) {
		text = check_tap(&l);
		if ((note = report_incomplete_text(inc)) != NULL)
			fprintf(a->report, "# %s", note);
		free(note);
		if ((note = cli_scaled_text(a)) != NULL) {
			char *line, *save = NULL;

			for (line = strtok_r(note, "\n", &save); line != NULL;
			    line = strtok_r(NULL, "\n", &save))
				fprintf(a->report, "# %s\n", line);
		}
		free(note);
		fputs(text, a->report);
		if (grew != NULL) {
			/* TAP: diagnostics, a line each */
			char *line, *save = NULL;

			for (line = strtok_r(grew, "\n", &save); line != NULL;
			    line = strtok_r(NULL, "\n", &save))
				fprintf(a->report, "# %s\n", line);
		}
	} else {
		text = check_text(&l, title);
		fputs(text, a->report);
		if (grew != NULL)
			fprintf(a->report, "\n%s", grew);
		if ((note = cli_scaled_text(a)) != NULL)
			fprintf(a->report, "\n%s", note);
		free(note);
		if ((note = report_incomplete_text(inc)) != NULL)
			fprintf(a->report, "\n%s", note);
		free(note);
	}
	free(text);
	rc = check_failed(&l) ? EXIT_CHECK : EXIT_DONE;
out:
	for (r = 1; routs != NULL && r < nr; r++)
		run_output_free(&routs[r]);
	free(routs);
	ranks_free(&set);
	free(what);
	free(grew);
	stack_diff_free(&sd);
	run_output_free(&out);
	check_free(&l);
	cJSON_Delete(base);
	cli_policies_free(&pols);
	trace_mem_free(built);
	cli_scaled_free(&sc);
	return rc;
}
