/*
 * cmd-convert.c - `gpumemsim convert IN OUT` (or IN -o OUT): any trace gpumemsim reads
 * (native JSON or JSON Lines, PyTorch snapshot pickles, RMM logs, gzip'd or
 * not) to native .json, .jsonl or their .gz, checked on the way and streamed
 * where the formats allow.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/run.h"

static int
begin(void *arg, const struct trace_header *hdr, char **cause)
{
	return trace_writer_header(arg, hdr, cause);
}

static int
each(void *arg, uint64_t index, const struct trace_event *ev, char **cause)
{
	return trace_writer_event(arg, ev, cause);
}

int
cmd_convert(struct cli_args *a)
{
	struct run_walk w = { .device = a->in->topts.device, .begin = begin, .fn = each,
	    .unknown_frees_warn = a->in->topts.unknown_frees_warn, .path = a->in->path };
	struct trace_writer *tw = NULL;
	struct sim_result res;
	const char *out = a->argc > 1 ? a->argv[1] : a->given[OPT_OUTPUT] ? a->v[OPT_OUTPUT].s : NULL;
	char *cause = NULL;
	int rc;

	if (out == NULL || (a->argc > 1 && a->given[OPT_OUTPUT]))
		return cli_usage_error(a->cmd, out == NULL ? "convert needs an output: <out> or "
		    "-o <out>" : "give the output once: <out> or -o <out>");
	if ((rc = trace_writer_open(out, a->in->files, a->in->nfiles, &tw, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		return gms_exit_code(rc);
	}
	w.arg = tw;
	if ((rc = run_walk(&w, &res, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		trace_writer_abort(tw);
		return gms_exit_code(rc);
	}
	if ((rc = trace_writer_close(tw, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		return gms_exit_code(rc);
	}
	if (w.cut != NULL)
		cli_warning("%s: %s", a->argv[0], w.cut);
	if (res.unknown_frees > 0)
		cli_warning("%s: %llu frees of ids the trace never allocated (the first at event "
		    "%llu) were kept", a->argv[0], (unsigned long long)res.unknown_frees,
		    (unsigned long long)res.first_unknown_free);
	return EXIT_DONE;
}
