/*
 * cmd-plot.c - `gpumemsim plot`: a picture of a run (analysis/entry-plot.c):
 * a timeline, a memory map (--map), the live memory by call stack (--flame),
 * or the ranks' timelines; here, what goes with what, and the picture's file,
 * opened before the runs (a picture with nowhere to go fails first).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/entries.h"
#include "analysis/plot.h"
#include "sim/cli/cli.h"
#include "sim/outfile.h"

int
cmd_plot(struct cli_args *a)
{
	struct plot_request rq = { .out = a->given[OPT_OUTPUT] ? a->v[OPT_OUTPUT].s : NULL,
	    .title = a->given[OPT_TITLE] ? a->v[OPT_TITLE].s : NULL,
	    .points = (size_t)a->v[OPT_POINTS].n, .map = a->given[OPT_MAP] > 0,
	    .flame = a->given[OPT_FLAME] > 0, .depth = (unsigned)a->v[OPT_DEPTH].n,
	    .frames = a->given[OPT_FRAMES] ? a->v[OPT_FRAMES].s : NULL,
	    .has_at = a->given[OPT_AT] > 0, .at = a->v[OPT_AT].n, .threads = (int)a->v[OPT_JOBS].n };
	struct cli_policies pols = { 0 };
	struct entry_policy *ep = NULL;
	struct outfile of = { .fd = -1 };
	char *cause = NULL;
	int rc, err;

	if (rq.out == NULL)
		return cli_usage_error(a->cmd, "no output given (-o file.svg)");
	if (a->given[OPT_AT] > 1)
		return cli_usage_error(a->cmd, "give --at once: the map is drawn at one event");
	/* '-' is an SVG; a file's name says what to draw */
	if (plot_term(rq.out, &cause) == NULL)
		return cli_fail(GMS_ECONFIG, cause);
	if (rq.has_at && !rq.map && !rq.flame)
		return cli_usage_error(a->cmd, "--at goes with --map or --flame");
	if (rq.map && rq.flame)
		return cli_usage_error(a->cmd, "--map and --flame are two pictures: give one");
	if ((rq.frames != NULL || a->given[OPT_DEPTH]) && !rq.flame)
		return cli_usage_error(a->cmd, "--depth and --frames go with --flame");
	if (rq.flame && strcmp(plot_term(rq.out, &cause), "svg") != 0)
		return cli_usage_error(a->cmd, "--flame draws SVG: name the output .svg (or '-')");
	if (strcmp(rq.out, "-") == 0) {
		rq.fd = STDOUT_FILENO;
		fflush(stdout);
	} else if ((err = outfile_open(rq.out, a->in->files, a->in->nfiles, &of, &cause)) < 0) {
		return cli_fail(err, cause);
	} else {
		rq.fd = of.fd;
	}
	if ((rc = cli_entry_target(a, &rq.target)) == 0 &&
	    (rc = cli_policies(a, CLI_ONE_POLICY, &pols)) == 0) {
		rq.pols = ep = cli_entry_policies(&pols);
		rq.npols = pols.n;
		if ((err = entry_plot(a->in, &rq, &cause)) < 0)
			rc = cli_fail(err, cause);
		else if (of.fd >= 0 && (err = outfile_commit(&of, &cause)) < 0)
			rc = cli_fail(err, cause);
	}
	if (rc != EXIT_DONE && of.fd >= 0)
		outfile_abort(&of);
	free(ep);
	cli_policies_free(&pols);
	return rc;
}
