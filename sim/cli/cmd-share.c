/*
 * cmd-share.c - `gpumemsim share`: several jobs on one GPU.  The jobs come
 * from --job 'TRACE key=value ...' (typed by hand) and --scenario FILE.json
 * (for CI), the card from --gpu or --capacity (on the command line or in the
 * file); the report says who runs out of memory, when, and what everyone
 * held then, and on request how often over random start offsets and which
 * per-job limits make the mix safe.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/plot.h"
#include "analysis/report.h"
#include "sim/scenario.h"
#include "sim/share.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/outfile.h"
#include "sim/tmpfiles.h"
#include "sim/gpus.h"
#include "traces/tracemem.h"

/* --schedule: the merged order, a step a line. */
static int
write_schedule(const char *path, const struct share_scenario *sc)
{
	struct share_step *st = NULL;
	struct cli_out o = { 0 };
	char *cause = NULL;
	size_t n = 0, i;
	int rc, err;

	if ((err = share_schedule(sc, &st, &n, &cause)) < 0)
		return cli_fail(err, cause);
	if ((rc = cli_out_open(path, sc->jobs[0].path, &o)) != 0) {
		free(st);
		return rc;
	}
	fprintf(o.f, "step,job,what,event,pass,t_us\n");
	for (i = 0; i < n; i++)
		fprintf(o.f, "%zu,%s,%s,%llu,%llu,%lld\n", i, sc->jobs[st[i].job].name,
		    st[i].start ? "start" : "event", (unsigned long long)st[i].event,
		    (unsigned long long)st[i].pass, (long long)st[i].time_us);
	free(st);
	return cli_out_close(&o, 1);
}

/* A scratch file for the timeline a picture is drawn from: its path, or NULL. */
static char *
scratch_csv(FILE **f)
{
	const char *dir = getenv("TMPDIR");
	char *path = gms_asprintf("%s/gms-share-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);

	if (fd < 0 || (*f = fdopen(fd, "w+")) == NULL) {
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return NULL;
	}
	tmpfiles_add(path);
	return path;
}

static int
copy(FILE *from, FILE *to)
{
	char buf[65536];
	size_t n;

	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		if (fwrite(buf, 1, n, to) != n)
			return -1;
	return ferror(from) ? -1 : 0;
}

static void
append(char **text, const char *more)
{
	*text = gms_realloc(*text, strlen(*text) + strlen(more) + 1);
	strcat(*text, more);
}

/*
 * One more part of the report (--offsets, --recommend): x under key in the
 * JSON report o, or, in text (o NULL), *more after *text.  x NULL: it could
 * not be made, as *cause says (read here: after the call that made x).  0,
 * or the exit status.
 */
static int
section(cJSON *o, const char *key, cJSON *x, char **text, char **more, char **cause)
{
	if (x == NULL) {
		cli_error("%s", *cause);
		return EXIT_INPUT;
	}
	if (o != NULL)
		cJSON_AddItemToObject(o, key, x);
	else
		cJSON_Delete(x);
	if (o == NULL && *more != NULL)
		append(text, *more);
	free(*more);
	*more = NULL;
	return 0;
}

/*
 * --plot's file, opened before the jobs run (a picture with nowhere to go
 * fails first); 0 or the exit status, said.
 */
static int
open_plot(const char *out, const struct share_scenario *sc, struct outfile *of)
{
	const char **inputs;
	char *cause = NULL;
	size_t k;
	int err;

	if (strcmp(out, "-") == 0) {
		cli_error("--plot: standard output has the report: name a file (.svg or .png)");
		return EXIT_INPUT;
	}
	if (plot_term(out, &cause) == NULL) {
		cli_error("--plot: %s", cause);
		free(cause);
		return EXIT_INPUT;
	}
	inputs = gms_calloc(sc->njobs, sizeof(*inputs));
	for (k = 0; k < sc->njobs; k++)
		inputs[k] = sc->jobs[k].path;
	err = outfile_open(out, inputs, sc->njobs, of, &cause);
	free(inputs);
	if (err < 0) {
		cli_error("--plot: %s", cause);
		free(cause);
		return gms_exit_code(err);
	}
	return 0;
}

/* --plot: the jobs' reservations stacked over time, with the out-of-memory points. */
static int
draw(const char *out, struct outfile *of, const char *csv, const struct share_scenario *sc,
    const struct share_result *res)
{
	const char **names = gms_calloc(sc->njobs, sizeof(*names));
	struct plot_point *pts = gms_calloc(res->nooms + 1, sizeof(*pts));
	char *cause = NULL, *title, size[32];
	size_t k;
	int err;

	for (k = 0; k < sc->njobs; k++)
		names[k] = sc->jobs[k].name;
	for (k = 0; k < res->nooms; k++)
		pts[k] = (struct plot_point){ .event = (uint64_t)res->ooms[k].time_us,
		    .bytes = sc->total - res->ooms[k].gpu_free };
	title = gms_asprintf("gpumemsim share: %zu jobs on %s%s", sc->njobs,
	    sc->gpu ? sc->gpu : "a GPU of ", sc->gpu ? "" : gms_fmt_size(sc->total, size,
	    sizeof(size)));
	err = plot_share(out, of->fd, title, csv, names, sc->njobs, sc->total, pts, res->nooms,
	    &cause);
	if (err == 0)
		err = outfile_commit(of, &cause);
	if (err < 0)
		cli_error("--plot: %s", cause);
	free(cause);
	free(title);
	free(names);
	free(pts);
	return err < 0 ? gms_exit_code(err) : 0;
}

/*
 * The scenario the command line and a scenario file give (share and replay):
 * sc's jobs read, checked, named apart.  0, or the exit status after saying
 * what is wrong; cli_share_free() either way.
 */
int
cli_share_scenario(struct cli_args *a, const char *command, struct share_specs *s,
    struct share_scenario *sc)
{
	struct trace_opts topts;
	const struct gpu_model *g = NULL;
	const char *gpu;
	char *cause = NULL;
	size_t k, m;
	int err, i;

	memset(s, 0, sizeof(*s));
	*sc = (struct share_scenario){ .context = GPU_CONTEXT_OVERHEAD, .cc = 9 };
	cli_trace_opts(a, &topts);
	if (a->given[OPT_SCENARIO] &&
	    (err = share_read_scenario(a->v[OPT_SCENARIO].s, s, &cause)) < 0)
		goto fail;
	for (i = 0; i < a->given[OPT_JOB]; i++)
		if ((err = share_parse_job(a->all[OPT_JOB][i], i + 1, s, &cause)) < 0)
			goto fail;
	if (s->n < 2) {
		cli_error("%s needs two jobs or more: give --job 'TRACE key=value ...' for "
		    "each, or --scenario FILE.json", command);
		return EXIT_USAGE;
	}
	/* the card: the command line first, then the file */
	gpu = a->given[OPT_GPU] ? a->v[OPT_GPU].s : a->given[OPT_CAPACITY] ? NULL : s->gpu;
	if (a->given[OPT_GPU] && a->given[OPT_CAPACITY]) {
		cli_error("give --gpu or --capacity, not both");
		return EXIT_USAGE;
	}
	if (gpu != NULL) {
		if (a->given[OPT_GPU]) {
			g = a->v[OPT_GPU].gpu;
		} else if ((g = gpu_parse(gpu, &s->gpu_own, &cause)) == NULL) {
			cli_error("%s: %s", a->v[OPT_SCENARIO].s, cause);
			free(cause);
			return EXIT_INPUT;
		}
		sc->total = g->total;
		sc->cc = g->cc;
		sc->gpu = g->name;
	} else {
		sc->total = a->given[OPT_CAPACITY] ? a->v[OPT_CAPACITY].size : s->total;
	}
	if (sc->total == 0) {
		cli_error("%s needs the GPU: give --gpu=MODEL or --capacity=SIZE (its whole "
		    "memory), or \"gpu\" or \"capacity\" in the scenario", command);
		return EXIT_USAGE;
	}
	sc->context = a->given[OPT_CONTEXT_OVERHEAD] ? a->v[OPT_CONTEXT_OVERHEAD].size :
	    s->has_context ? s->context : GPU_CONTEXT_OVERHEAD;
	sc->jobs = gms_calloc(s->n, sizeof(*sc->jobs));
	for (k = 0; k < s->n; k++) {
		sc->njobs = k + 1;
		if ((err = share_job_make(&s->specs[k], &topts, 1, &sc->jobs[k], &cause)) < 0)
			goto fail;
		/* names tell jobs apart everywhere: make them unique */
		for (m = 0; m < k; m++)
			if (strcmp(sc->jobs[m].name, sc->jobs[k].name) == 0) {
				char *nn = gms_asprintf("%s-%zu", sc->jobs[k].name, k + 1);

				free(sc->jobs[k].name);
				sc->jobs[k].name = nn;
				m = (size_t)-1;
			}
	}
	if ((err = share_check(sc, &cause)) < 0)
		goto fail;
	return 0;
fail:
	return cli_fail(err, cause);
}

void
cli_share_free(struct share_specs *s, struct share_scenario *sc)
{
	size_t k;

	for (k = 0; k < sc->njobs; k++)
		share_job_free(&sc->jobs[k]);
	free(sc->jobs);
	sc->jobs = NULL;
	sc->njobs = 0;
	share_specs_free(s);
}

int
cmd_share(struct cli_args *a)
{
	struct share_specs s = { 0 };
	struct share_scenario sc = { 0 };
	struct share_result res = { 0 };
	struct cli_out tout = { 0 };
	char *cause = NULL, *text = NULL, *more = NULL;
	int threads = (int)a->v[OPT_JOBS].n;
	int json = a->v[OPT_FORMAT].choice == 1, rc = EXIT_INPUT, err;
	cJSON *o = NULL;
	char *plotcsv = NULL;
	FILE *plotf = NULL;
	struct outfile pof = { .fd = -1 };
	size_t k;

	if ((rc = cli_share_scenario(a, "share", &s, &sc)) != 0)
		goto out;
	if (a->given[OPT_PLOT] && (rc = open_plot(a->v[OPT_PLOT].s, &sc, &pof)) != 0)
		goto out;
	if (a->given[OPT_SCHEDULE] && (rc = write_schedule(a->v[OPT_SCHEDULE].s, &sc)) != 0)
		goto out;
	if (a->given[OPT_TIMELINE] && (rc = cli_out_open(a->v[OPT_TIMELINE].s, sc.jobs[0].path,
	    &tout)) != 0)
		goto out;
	/* a picture needs the timeline as a file of its own */
	if (a->given[OPT_PLOT] && (plotcsv = scratch_csv(&plotf)) == NULL) {
		cli_error("cannot make a temporary file: %s", strerror(errno));
		cli_out_close(&tout, 0);
		rc = EXIT_SYSTEM;
		goto out;
	}
	if ((err = share_run(&sc, plotf ? plotf : tout.f, &res, &cause)) < 0) {
		cli_error("%s", cause);
		cli_out_close(&tout, 0);
		rc = gms_exit_code(err);
		goto out;
	}
	if (plotf != NULL) {
		rc = fflush(plotf) != 0 || ferror(plotf) || (tout.f != NULL && copy(plotf, tout.f) < 0);
		fclose(plotf);
		plotf = NULL;
		if (rc != 0) {
			cli_error("cannot write the timeline: %s", strerror(errno));
			cli_out_close(&tout, 0);
			rc = EXIT_SYSTEM;
			goto out;
		}
	}
	if (a->given[OPT_TIMELINE] && (rc = cli_out_close(&tout, 1)) != 0)
		goto out;
	if (a->given[OPT_PLOT] && (rc = draw(a->v[OPT_PLOT].s, &pof, plotcsv, &sc, &res)) != 0)
		goto out;
	o = json ? share_json(&sc, &res) : NULL;
	text = json ? NULL : share_text(&sc, &res);
	if (a->given[OPT_OFFSETS] &&
	    (rc = section(o, "offsets", share_offsets(&sc, a->v[OPT_OFFSETS].n,
	    a->v[OPT_SEED].n, threads, &more, &cause), &text, &more,
	    &cause)) != 0)
		goto out;
	if (a->given[OPT_RECOMMEND] &&
	    (rc = section(o, "recommend", share_recommend(&sc, threads, &more, &cause), &text,
	    &more, &cause)) != 0)
		goto out;
	/* what an incomplete trace means, job by job */
	for (k = 0; k < sc.njobs; k++) {
		const struct trace_header *hdr = trace_mem_header(sc.jobs[k].mem);

		if (json) {
			cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "jobs"),
			    (int)k), "incomplete", report_incomplete_json(hdr));
		} else {
			char *note = report_incomplete_text(hdr);

			if (note != NULL) {
				append(&text, "\n");
				append(&text, note);
			}
			free(note);
		}
	}
	if (json) {
		cli_print_json(a, o);
		o = NULL;
	} else {
		fputs(text, a->report);
	}
	rc = a->given[OPT_FAIL_ON_OOM] && !res.fits ? EXIT_CHECK : EXIT_DONE;
out:
	cJSON_Delete(o);
	free(text);
	free(more);
	free(cause);
	share_result_free(&res);
	cli_share_free(&s, &sc);
	if (plotf != NULL)
		fclose(plotf);
	if (plotcsv != NULL) {
		unlink(plotcsv);
		tmpfiles_forget(plotcsv);
		free(plotcsv);
	}
	outfile_abort(&pof);
	return rc;
}
