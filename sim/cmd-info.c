/*
 * cmd-info.c - `gpumemsim info TRACE`: what a trace holds (counts, streams,
 * duration, the live peak and when, a size histogram, the largest
 * allocations and where they were made, what the recording allocator did).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/info.h"
#include "analysis/report.h"
#include "sim/cli.h"
#include "sim/gms.h"
#include "sim/run.h"

static const char info_usage[] = "gpumemsim info [options] <trace>";

struct info_ctx {
	struct info in;
	cJSON *hdr_copy;	/* the header, kept past the walk */
	struct trace_header hdr;
	char name[256], format[32];
};

static int
begin(void *arg, const struct trace_header *hdr, char **cause)
{
	struct info_ctx *c = arg;

	c->hdr = *hdr;
	snprintf(c->name, sizeof(c->name), "%s", hdr->name);
	snprintf(c->format, sizeof(c->format), "%s", hdr->format);
	c->hdr.name = c->name;
	c->hdr.format = c->format;
	/* The reader goes away with the walk; the report needs these after. */
	c->hdr_copy = cJSON_CreateObject();
	if (hdr->observed)
		cJSON_AddItemToObject(c->hdr_copy, "observed", cJSON_Duplicate(hdr->observed, 1));
	if (hdr->source)
		cJSON_AddItemToObject(c->hdr_copy, "source", cJSON_Duplicate(hdr->source, 1));
	if (hdr->device)
		cJSON_AddItemToObject(c->hdr_copy, "device", cJSON_Duplicate(hdr->device, 1));
	c->hdr.observed = cJSON_GetObjectItemCaseSensitive(c->hdr_copy, "observed");
	c->hdr.source = cJSON_GetObjectItemCaseSensitive(c->hdr_copy, "source");
	c->hdr.device = cJSON_GetObjectItemCaseSensitive(c->hdr_copy, "device");
	return 0;
}

static int
each(void *arg, uint64_t index, const struct trace_event *ev, char **cause)
{
	info_event(&((struct info_ctx *)arg)->in, index, ev);
	return 0;
}

int
cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "device", required_argument, NULL, 'd' },
		{ "unknown-frees", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const unknown_frees[] = { "error", "warn", NULL };
	struct info_ctx ctx;
	struct run_walk w = { .device = -1, .begin = begin, .fn = each, .arg = &ctx };
	struct sim_result res;
	char *cause = NULL, *text, *note;
	int json = 0, ch, rc, choice;
	cJSON *o;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":f:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if ((rc = cli_choice("--format", optarg, cli_formats, &json)) != 0)
				return rc;
			break;
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
			printf("usage: %s\n\n"
			    "Describe a trace: events, allocations, frees, streams, duration, the live\n"
			    "peak and when, a power-of-two size histogram, the largest allocations and\n"
			    "where they were made, and what the recording allocator did.\n\n"
			    "Options:\n"
			    "  -f, --format <text|json>   output format (default: text)\n"
			    "      --device <n>           PyTorch snapshots: the device's trace\n"
			    "      --unknown-frees <error|warn>\n"
			    "  -h, --help                 show this help\n\n"
			    "Example:\n  gpumemsim info traces/resnet50-train-b32.pickle\n", info_usage);
			return EXIT_DONE;
		default:
			return cli_bad_option("info", info_usage, ch, argv);
		}
	}
	if (optind != argc - 1)
		return cli_one_trace("info", info_usage, argc);
	memset(&ctx, 0, sizeof(ctx));
	info_init(&ctx.in);
	w.path = argv[optind];
	rc = run_walk(&w, &res, &cause);
	if (rc < 0) {
		cli_error("%s", cause);
		free(cause);
		info_free(&ctx.in);
		cJSON_Delete(ctx.hdr_copy);
		return gms_exit_code(rc);
	}
	ctx.hdr.cut = w.cut;
	if (json) {
		o = info_json(&ctx.in, &ctx.hdr, &res);
		cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(&ctx.hdr));
		text = cJSON_Print(o);
		printf("%s\n", text);
		cJSON_Delete(o);
	} else {
		text = info_text(&ctx.in, &ctx.hdr, &res);
		fputs(text, stdout);
		if ((note = report_incomplete_text(&ctx.hdr)) != NULL)
			printf("\n%s", note);
		free(note);
	}
	free(text);
	info_free(&ctx.in);
	cJSON_Delete(ctx.hdr_copy);
	if (fflush(stdout) != 0) {
		cli_error("cannot write the report: %s", strerror(errno));
		return EXIT_SYSTEM;
	}
	return EXIT_DONE;
}
