/*
 * cmd-report.c - `gpumemsim report TRACE -o report.html`: every policy (or
 * --policies) on a trace, written up as one self-contained HTML page
 * (analysis/entry-report.c); here, the command line, the footer that
 * repeats it, and the page's file.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"

/* The command line again, for the page's footer. */
static char *
command_line(const struct cli_args *a, const struct cli_policies *pols,
    const struct cli_target *t)
{
	char *s = a->given[OPT_RANKS] ? gms_asprintf("gpumemsim report --ranks %s%s",
	    a->argv[0], a->argc > 1 ? " ..." : "") : a->argc == 2 ?
	    gms_asprintf("gpumemsim report %s %s", a->argv[0], a->argv[1]) :
	    gms_asprintf("gpumemsim report %s", a->argv[0]), *n;
	size_t i;

	for (i = 0; i < pols->n; i++) {
		n = gms_asprintf("%s %s%s", s, i ? "" : "--policies=", pols->list[i].label);
		free(s);
		s = n;
		if (i + 1 < pols->n) {
			n = gms_asprintf("%s,", s);
			free(s);
			s = n;
		}
	}
	/* the list reads as one argument */
	for (n = strstr(s, "--policies="); n != NULL && (n = strstr(n, ", ")) != NULL;)
		memmove(n + 1, n + 2, strlen(n + 2) + 1);
	if (t->gpu_name != NULL)
		n = gms_asprintf("%s --gpu=%s", s, t->gpu_name);
	else if (t->capacity != 0)
		n = gms_asprintf("%s --capacity=%lluB", s, (unsigned long long)t->capacity);
	else
		n = gms_strdup(s);
	free(s);
	return n;
}

int
cmd_report(struct cli_args *a)
{
	struct report_request rq = { .threads = (int)a->v[OPT_JOBS].n,
	    .points = (size_t)a->v[OPT_POINTS].n, .top = (size_t)a->v[OPT_TOP].n,
	    .title = a->given[OPT_TITLE] ? a->v[OPT_TITLE].s : NULL };
	struct report_answer ans;
	struct cli_policies pols = { 0 };
	struct cli_target target;
	struct entry_policy *ep = NULL;
	struct cli_out out = { 0 };
	uint64_t at[ATTRIB_AT_MAX];
	char *cmdline = NULL, *cause = NULL;
	int rc;

	if (!a->given[OPT_OUTPUT])
		return cli_usage_error(a->cmd, "no output given (-o report.html)");
	if (a->given[OPT_AT] > ATTRIB_AT_MAX)
		return cli_usage_error(a->cmd, "give --at %d times at most", ATTRIB_AT_MAX);
	rq.nat = cli_events(a, at, ATTRIB_AT_MAX);
	rq.at = at;
	if ((rc = cli_target(a, &target)) != 0 || (rc = cli_entry_target(a, &rq.target)) != 0)
		return rc;
	if ((rc = cli_policies(a, CLI_POLICY_SET, &pols)) != 0)
		goto out;
	rq.pols = ep = cli_entry_policies(&pols);
	rq.npols = pols.n;
	rq.command = cmdline = command_line(a, &pols, &target);
	if ((rc = entry_report(a->in, &rq, &ans, &cause)) < 0) {
		rc = cli_fail(rc, cause);
	} else if ((rc = cli_out_open_n(a->v[OPT_OUTPUT].s, a->in->files, a->in->nfiles,
	    &out)) == 0) {
		if (entry_report_html(out.f, &ans) < 0) {
			cli_error("cannot write '%s': %s", a->v[OPT_OUTPUT].s, strerror(errno));
			cli_out_close(&out, 0);
			rc = EXIT_SYSTEM;
		} else {
			rc = cli_out_close(&out, 1);
		}
	}
	entry_report_free(&ans);
out:
	free(cmdline);
	free(ep);
	cli_policies_free(&pols);
	return rc;
}
