/*
 * cmd-scale.c - `gpumemsim scale --at V1 T1 --at V2 T2 ...`: the job at
 * values of its size nobody recorded (analysis/entry-scale.c), its curve
 * drawn (--plot), or the job at one value written as a trace (-o).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "analysis/plot.h"
#include "sim/cli/cli.h"
#include "sim/outfile.h"

/* --plot: the picture's trouble, said as its own. */
static int
plot_fail(int err, char *cause)
{
	cli_error("--plot: %s", cause);
	free(cause);
	return gms_exit_code(err);
}

int
cmd_scale(struct cli_args *a)
{
	struct scale_request rq = { .plot = a->given[OPT_PLOT] ? a->v[OPT_PLOT].s : NULL };
	const char *out = a->given[OPT_OUTPUT] ? a->v[OPT_OUTPUT].s : NULL;
	uint64_t *values = gms_calloc((size_t)a->given[OPT_VALUE] + 1, sizeof(*values));
	struct scale_report rep = { 0 };
	struct cli_policies pols = { 0 };
	struct outfile pof = { .fd = -1 };
	char *cause = NULL;
	int rc, err;

	for (rq.nvalues = 0; rq.nvalues < (size_t)a->given[OPT_VALUE]; rq.nvalues++)
		values[rq.nvalues] = strtoull(a->all[OPT_VALUE][rq.nvalues], NULL, 10);
	rq.values = values;
	if (out != NULL && rq.nvalues != 1) {
		rc = cli_usage_error(a->cmd, "--output writes the trace at one --value: give exactly one");
		goto out;
	}
	if (rq.plot != NULL && strcmp(rq.plot, "-") == 0) {
		rc = cli_usage_error(a->cmd, "--plot: standard output has the report: name a file "
		    "(.svg or .png)");
		goto out;
	}
	if (rq.plot != NULL && plot_term(rq.plot, &cause) == NULL) {
		rc = plot_fail(GMS_ECONFIG, cause);
		goto out;
	}
	if ((rc = cli_entry_target(a, &rq.target)) != 0 ||
	    (rc = cli_policies(a, CLI_ONE_POLICY, &pols)) != 0)
		goto out;
	rq.policy = cli_entry_policy(&pols, 0);
	if (out != NULL) {
		if ((err = entry_scale_write(a->in, values[0], out, &cause)) < 0)
			rc = cli_fail(err, cause);
		goto out;
	}
	/* the picture's file first: a bad name costs no runs */
	if (rq.plot != NULL && (err = outfile_open(rq.plot, a->in->files, a->in->nfiles, &pof,
	    &cause)) < 0) {
		rc = plot_fail(err, cause);
		goto out;
	}
	rq.plot_fd = pof.fd;
	if ((err = entry_scale(a->in, &rq, &rep, &cause)) < 0) {
		rc = cli_fail(err, cause);
	} else if (rq.plot != NULL && ((err = entry_scale_draw(&rq, &rep, &cause)) < 0 ||
	    (err = outfile_commit(&pof, &cause)) < 0)) {
		rc = plot_fail(err, cause);
	} else {
		cli_print(a, a->v[OPT_FORMAT].choice == 1 ? scale_json(&rep) : NULL,
		    a->v[OPT_FORMAT].choice == 1 ? NULL : scale_text(&rep));
		fflush(a->report);
	}
out:
	if (pof.fd >= 0)
		outfile_abort(&pof);
	scale_report_free(&rep);
	free(values);
	cli_policies_free(&pols);
	return rc;
}
