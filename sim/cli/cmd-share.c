/*
 * cmd-share.c - `gpumemsim share`: several jobs on one GPU (the jobs and the
 * card are the resolved input: --job, --scenario, --gpu, --capacity), run by
 * entry_share (analysis/entry-share.c); here the files it writes: --plot
 * (opened before the jobs run: a picture with nowhere to go fails first),
 * --schedule and --timeline, and a scratch copy of the timeline a picture
 * is drawn from.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/entries.h"
#include "analysis/plot.h"
#include "sim/cli/cli.h"
#include "sim/outfile.h"
#include "sim/tmpfiles.h"

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

/* --plot's file, before the jobs run: 0 or the exit status, said. */
static int
open_plot(struct cli_args *a, struct outfile *of)
{
	const char *out = a->v[OPT_PLOT].s;
	char *cause = NULL;
	int err = GMS_ECONFIG;

	if (strcmp(out, "-") == 0) {
		cli_error("--plot: standard output has the report: name a file (.svg or .png)");
		return EXIT_INPUT;
	}
	if (plot_term(out, &cause) != NULL &&
	    (err = outfile_open(out, a->in->files, a->in->nfiles, of, &cause)) == 0)
		return 0;
	cli_error("--plot: %s", cause);
	free(cause);
	return gms_exit_code(err);
}

/* --schedule: the merged order, a step a line. */
static int
write_schedule(struct cli_args *a)
{
	struct cli_out o;
	char *cause = NULL;
	int rc, err;

	if ((rc = cli_out_open_n(a->v[OPT_SCHEDULE].s, a->in->files, a->in->nfiles, &o)) != 0)
		return rc;
	if ((err = entry_share_schedule(a->in, o.f, &cause)) < 0) {
		cli_out_close(&o, 0);
		return cli_fail(err, cause);
	}
	return cli_out_close(&o, 1);
}

/* The timeline as written (to --timeline, and to the picture's scratch file). */
struct share_files {
	struct cli_out tout;
	char *csv;
	FILE *scratch;
};

int
cmd_share(struct cli_args *a)
{
	struct share_request rq = { .threads = (int)a->v[OPT_JOBS].n, .seed = a->v[OPT_SEED].n,
	    .offsets = a->given[OPT_OFFSETS] ? a->v[OPT_OFFSETS].n : 0,
	    .recommend = a->given[OPT_RECOMMEND] > 0 };
	struct share_files sf = { .tout = { 0 } };
	struct share_answer ans = { 0 };
	struct outfile pof = { .fd = -1 };
	char *cause = NULL;
	int json = a->v[OPT_FORMAT].choice == 1, rc, err;

	if ((a->given[OPT_PLOT] && (rc = open_plot(a, &pof)) != 0) ||
	    (a->given[OPT_SCHEDULE] && (rc = write_schedule(a)) != 0) ||
	    (a->given[OPT_TIMELINE] && (rc = cli_out_open_n(a->v[OPT_TIMELINE].s, a->in->files,
	    a->in->nfiles, &sf.tout)) != 0))
		goto out;
	/* a picture needs the timeline as a file of its own */
	if (a->given[OPT_PLOT] && (sf.csv = scratch_csv(&sf.scratch)) == NULL) {
		cli_error("cannot make a temporary file: %s", strerror(errno));
		rc = EXIT_SYSTEM;
		goto out;
	}
	rq.timeline = sf.scratch ? sf.scratch : sf.tout.f;
	if ((err = entry_share(a->in, &rq, &ans, &cause)) < 0) {
		rc = cli_fail(err, cause);
		goto out;
	}
	if (sf.scratch != NULL && (fflush(sf.scratch) != 0 || ferror(sf.scratch) ||
	    (sf.tout.f != NULL && copy(sf.scratch, sf.tout.f) < 0))) {
		cli_error("cannot write the timeline: %s", strerror(errno));
		rc = EXIT_SYSTEM;
		goto out;
	}
	if ((a->given[OPT_TIMELINE] && (rc = cli_out_close(&sf.tout, 1)) != 0))
		goto out;
	if (a->given[OPT_PLOT] && ((err = entry_share_plot(&ans, a->v[OPT_PLOT].s, pof.fd,
	    sf.csv, &cause)) < 0 || (err = outfile_commit(&pof, &cause)) < 0)) {
		cli_error("--plot: %s", cause);
		free(cause);
		rc = gms_exit_code(err);
		goto out;
	}
	cli_print(a, json ? entry_share_json(&ans) : NULL, json ? NULL : entry_share_text(&ans));
	rc = a->given[OPT_FAIL_ON_OOM] && !ans.res.fits ? EXIT_CHECK : EXIT_DONE;
out:
	cli_out_close(&sf.tout, 0);
	entry_share_free(&ans);
	if (sf.scratch != NULL)
		fclose(sf.scratch);
	if (sf.csv != NULL) {
		unlink(sf.csv);
		tmpfiles_forget(sf.csv);
		free(sf.csv);
	}
	outfile_abort(&pof);
	return rc;
}
