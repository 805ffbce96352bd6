/*
 * cmd-tune.c - `gpumemsim tune TRACE`: the PyTorch allocator setting that
 * reserves least and fits, as a ready PYTORCH_CUDA_ALLOC_CONF line, with the
 * runner-ups, and what TensorFlow's and JAX's allocator modes would cost.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/tune.h"
#include "sim/batch.h"
#include "analysis/report.h"
#include "sim/cli.h"
#include "traces/tracemem.h"
#include "sim/gms.h"

static const char tune_usage[] = "gpumemsim tune [options] <trace>";

static int
tune_help(void)
{
	printf("usage: %s\n\n"
	    "Search PyTorch's allocator settings (PYTORCH_CUDA_ALLOC_CONF: expandable\n"
	    "segments, max_split_size_mb, roundup_power2_divisions and, under a capacity,\n"
	    "garbage_collection_threshold) for the one that reserves least and fits, and\n"
	    "say what TensorFlow's and JAX's allocator modes (growth, preallocation, a\n"
	    "memory limit) would cost. The trace is read once and replayed on all cores.\n\n"
	    "Options:\n"
	    "  -c, --capacity <size>      the memory the job may use, e.g. 24GiB\n"
	    "  -j, --jobs <n>             simulations at once (default: the cores)\n"
	    "      --device <n>           PyTorch snapshots: the device's trace\n"
	    "  -f, --format <text|json>   output format (default: text)\n"
	    "  -h, --help                 show this help\n\n"
	    "Example:\n"
	    "  gpumemsim tune traces/resnet50-train-b32.json --capacity=3.3GiB\n", tune_usage);
	return EXIT_DONE;
}

int
cmd_tune(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capacity", required_argument, NULL, 'c' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "device", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_opts topts = { .device = -1 };
	struct tune_report rep;
	struct trace_mem *m = NULL;
	uint64_t capacity = 0;
	char *cause = NULL, *text, *note, *end;
	int json = 0, threads = batch_default_threads(), ch, rc;
	long v;
	cJSON *o;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":c:j:f:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			if ((rc = cli_capacity(optarg, &capacity)) != 0)
				return rc;
			break;
		case 'j':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || v < 1 || v > 1024) {
				cli_error("--jobs takes a number from 1 to 1024, not '%s'", optarg);
				return EXIT_INPUT;
			}
			threads = (int)v;
			break;
		case 'd':
			if ((rc = cli_device(optarg, &topts.device)) != 0)
				return rc;
			break;
		case 'f':
			if ((rc = cli_choice("--format", optarg, cli_formats, &json)) != 0)
				return rc;
			break;
		case 'h':
			return tune_help();
		default:
			return cli_bad_option("tune", tune_usage, ch, argv);
		}
	}
	if (optind != argc - 1)
		return cli_one_trace("tune", tune_usage, argc);
	if ((rc = trace_mem_load(argv[optind], &topts, &m, &cause)) < 0 ||
	    (rc = tune_run(m, capacity, threads, &rep, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		trace_mem_free(m);
		return gms_exit_code(rc);
	}
	if (json) {
		o = tune_json(&rep);
		cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(trace_mem_header(m)));
		text = cJSON_Print(o);
		printf("%s\n", text);
		cJSON_Delete(o);
	} else {
		text = tune_text(&rep);
		fputs(text, stdout);
		if ((note = report_incomplete_text(trace_mem_header(m))) != NULL)
			printf("\n%s", note);
		free(note);
	}
	free(text);
	tune_free(&rep);
	trace_mem_free(m);
	if (fflush(stdout) != 0) {
		cli_error("cannot write the report: %s", strerror(errno));
		return EXIT_SYSTEM;
	}
	return EXIT_DONE;
}
