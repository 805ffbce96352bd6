/*
 * cmd-plan.c - `gpumemsim plan TRACE`: the smallest capacity each policy
 * needs, and which GPU models the trace fits on.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plan.h"
#include "sim/batch.h"
#include "analysis/report.h"
#include "sim/cli.h"
#include "traces/tracemem.h"
#include "sim/gms.h"
#include "sim/gpus.h"

static const char plan_usage[] = "gpumemsim plan [options] <trace>";

static int
plan_help(void)
{
	const struct gpu_model *g;

	printf("usage: %s\n\n"
	    "For each policy, the smallest capacity at which the trace runs without running\n"
	    "out of memory, to 2 MiB (found by bisection, checked, and probed above: a\n"
	    "caching allocator can fail with more memory where it fits with less), and a\n"
	    "table of which GPU models it fits on, with the headroom or the failing event.\n\n"
	    "Options:\n"
	    "      --policies <list>      policies, each optionally with options:\n"
	    "                             caching,grow-only:flavor=jax (default: all)\n"
	    "  -o, --option <key=value>   an option for every policy that has the key, or\n"
	    "                             <policy>.<key>=<value> for one (repeatable)\n"
	    "      --alloc-conf <conf>    PYTORCH_CUDA_ALLOC_CONF settings for caching\n"
	    "      --gpus <list>          the GPU models to tabulate (default: all below)\n"
	    "      --context-overhead <size>\n"
	    "                             taken off each GPU's memory for the CUDA context\n"
	    "                             and libraries (default: 512MiB)\n"
	    "  -j, --jobs <n>             simulations at once (default: the cores)\n"
	    "      --device <n>           PyTorch snapshots: the device's trace\n"
	    "  -f, --format <text|json>   output format (default: text)\n"
	    "  -h, --help                 show this help\n\nGPU models:\n", plan_usage);
	for (g = gpu_catalogue; g->name != NULL; g++)
		printf("  %-10s %7.2f GiB  compute capability %d  %s\n", g->name,
		    (double)g->total / (double)GMS_GiB, g->cc, g->note);
	printf("\nExample:\n  gpumemsim plan traces/resnet50-train-b32.json --gpus=T4,A10,A100-40GB\n");
	return EXIT_DONE;
}

int
cmd_plan(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policies", required_argument, NULL, 'L' },
		{ "option", required_argument, NULL, 'o' },
		{ "alloc-conf", required_argument, NULL, 'A' },
		{ "gpus", required_argument, NULL, 'G' },
		{ "context-overhead", required_argument, NULL, 'X' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "device", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_opts topts = { .device = -1 };
	struct plan_report rep = { .overhead = GPU_CONTEXT_OVERHEAD };
	struct cli_policies pols = { 0 };
	struct trace_mem *m = NULL;
	const char *gpus = NULL;
	char *cause = NULL, *text, *note, *copy, *tok, *save;
	int json = 0, threads = batch_default_threads(), ch, rc;
	const struct gpu_model *g;
	long v;
	size_t i;
	cJSON *o;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:j:f:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'L':
			pols.list = optarg;
			break;
		case 'o':
			if (cli_add_option(&pols.global, &pols.nglobal, optarg) < 0)
				return EXIT_INPUT;
			break;
		case 'A':
			cli_add_kv(&pols.global, &pols.nglobal, "caching.alloc_conf", optarg);
			break;
		case 'G':
			gpus = optarg;
			break;
		case 'X':
			if (gms_parse_size(optarg, &rep.overhead, &cause) < 0) {
				cli_error("--context-overhead: %s", cause);
				free(cause);
				return EXIT_INPUT;
			}
			break;
		case 'j':
			if ((rc = cli_count("--jobs", optarg, 1024, &v)) != 0)
				return rc;
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
			return plan_help();
		default:
			return cli_bad_option("plan", plan_usage, ch, argv);
		}
	}
	if (optind != argc - 1)
		return cli_one_trace("plan", plan_usage, argc);
	if ((rc = cli_policies_parse(&pols)) != 0)
		goto out;
	rep.gpus = gms_calloc(64, sizeof(*rep.gpus));
	if (gpus == NULL) {
		for (g = gpu_catalogue; g->name != NULL && rep.ngpus < 64; g++)
			rep.gpus[rep.ngpus++] = g;
	} else {
		copy = gms_strdup(gpus);
		for (tok = strtok_r(copy, ",", &save); tok != NULL && rep.ngpus < 64;
		    tok = strtok_r(NULL, ",", &save)) {
			if ((g = gpu_find(tok, &cause)) == NULL) {
				cli_error("--gpus: %s", cause);
				free(cause);
				free(copy);
				rc = EXIT_INPUT;
				goto out;
			}
			rep.gpus[rep.ngpus++] = g;
		}
		free(copy);
	}
	rep.npols = pols.n;
	rep.pols = gms_calloc(pols.n ? pols.n : 1, sizeof(*rep.pols));
	for (i = 0; i < pols.n; i++)
		rep.pols[i] = (struct plan_policy){ .label = pols.ents[i].label,
		    .ops = pols.ents[i].ops, .opts = pols.ents[i].opts, .nopts = pols.ents[i].nopts };
	if ((rc = trace_mem_load(argv[optind], &topts, &m, &cause)) < 0 ||
	    (rc = plan_run(m, &rep, threads, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		rc = gms_exit_code(rc);
		goto out;
	}
	if (json) {
		o = plan_json(&rep);
		cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(trace_mem_header(m)));
		text = cJSON_Print(o);
		printf("%s\n", text);
		cJSON_Delete(o);
	} else {
		text = plan_text(&rep);
		fputs(text, stdout);
		if ((note = report_incomplete_text(trace_mem_header(m))) != NULL)
			printf("\n%s", note);
		free(note);
	}
	free(text);
	rc = EXIT_DONE;
	if (fflush(stdout) != 0) {
		cli_error("cannot write the report: %s", strerror(errno));
		rc = EXIT_SYSTEM;
	}
out:
	plan_free(&rep);
	free(rep.pols);
	free(rep.gpus);
	trace_mem_free(m);
	cli_policies_free(&pols);
	return rc;
}
