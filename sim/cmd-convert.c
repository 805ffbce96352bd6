/*
 * cmd-convert.c - `gpumemsim convert IN OUT`: any trace gpumemsim reads
 * (native JSON or JSON Lines, PyTorch snapshot pickles, RMM logs, gzip'd or
 * not) to native .json, .jsonl or their .gz, checked on the way and streamed
 * where the formats allow.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/gms.h"
#include "sim/run.h"

static const char convert_usage[] = "gpumemsim convert [options] <in> <out>";

static int
convert_help(void)
{
	printf("usage: %s\n\n"
	    "Convert a trace to gpumemsim's native format. <in> is any trace gpumemsim\n"
	    "reads: .json, .jsonl, a PyTorch memory snapshot (.pickle), an RMM log (.csv),\n"
	    "each optionally gzip'd. <out> is named .json (one document), .jsonl (JSON\n"
	    "Lines, for traces too long to hold in memory) or either with .gz; '-' writes\n"
	    "JSON Lines to standard output. The trace is checked on the way: a bad one\n"
	    "leaves no output.\n\n"
	    "Options:\n"
	    "      --device <n>           PyTorch snapshots: the device's trace to take\n"
	    "                             (default: the one with the most entries)\n"
	    "      --unknown-frees <error|warn>\n"
	    "                             frees of ids the trace never allocated\n"
	    "  -h, --help                 show this help\n\n"
	    "Example:\n"
	    "  gpumemsim convert snapshot.pickle trace.jsonl.gz\n", convert_usage);
	return EXIT_DONE;
}

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
cli_device(const char *arg, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || *arg == '\0' || *end != '\0' || v < 0 || v > 4096) {
		cli_error("--device takes a device number, not '%s'", arg);
		return EXIT_INPUT;
	}
	*out = (int)v;
	return 0;
}

int
cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "unknown-frees", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const unknown_frees[] = { "error", "warn", NULL };
	struct run_walk w = { .device = -1, .begin = begin, .fn = each };
	struct trace_writer *tw = NULL;
	struct sim_result res;
	char *cause = NULL;
	int ch, rc, choice;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			if ((rc = cli_device(optarg, &w.device)) != 0)
				return rc;
			break;
		case 'U':
			if ((rc = cli_choice("--unknown-frees", optarg, unknown_frees, &choice)) != 0)
				return rc;
			w.unknown_frees_warn = choice;
			break;
		case 'h':
			return convert_help();
		default:
			return cli_bad_option("convert", convert_usage, ch, argv);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("convert", convert_usage, argc - optind < 2 ?
		    "convert needs an input and an output" : "too many arguments");
	if ((rc = trace_writer_open(argv[optind + 1], (const char *const *)&argv[optind], 1, &tw,
	    &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		return gms_exit_code(rc);
	}
	w.path = argv[optind];
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
		cli_warning("%s: %s", argv[optind], w.cut);
	if (res.unknown_frees > 0)
		cli_warning("%s: %llu frees of ids the trace never allocated (the first at event "
		    "%llu) were kept", argv[optind], (unsigned long long)res.unknown_frees,
		    (unsigned long long)res.first_unknown_free);
	return EXIT_DONE;
}
