/*
 * cmd-compare.c - `gpumemsim compare`: every policy (or --policies) on one
 * trace, side by side, run concurrently, with the winner and why.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/timeline.h"
#include "sim/batch.h"
#include "sim/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"

static const char compare_usage[] = "gpumemsim compare [options] <trace>";

static int
compare_help(void)
{
	printf("usage: %s\n\n"
	    "Run several allocator policies on one trace and compare peak reservation,\n"
	    "overhead over the live peak, fragmentation, device calls and whether each\n"
	    "fits. Names the winner: the policy that fits and reserves least, ties broken\n"
	    "by fewer device calls ('ideal' is the bound, never the winner).\n\n"
	    "Options:\n"
	    "      --policies <list>      comma-separated policies, each optionally with\n"
	    "                             options: caching,grow-only:flavor=jax,preallocate\n"
	    "                             (default: every policy with its defaults)\n"
	    "  -c, --capacity <size>      the most each allocator may reserve, e.g. 24GiB\n"
	    "      --placement <model|recorded>\n"
	    "                             where new segments land (default: model)\n"
	    "  -o, --option <key=value>   an option for every policy that has the key, or\n"
	    "                             <policy>.<key>=<value> for one (repeatable)\n"
	    "      --alloc-conf <conf>    PYTORCH_CUDA_ALLOC_CONF settings for caching\n"
	    "  -j, --jobs <n>             simulations at once (default: the cores)\n"
	    "      --gpu <model>          compare on a catalogued GPU instead of --capacity\n"
	    "      --context-overhead <size>\n"
	    "                             taken off a --gpu's memory (default: 512MiB)\n"
	    "      --timeline <file.csv>  every policy's allocated and reserved bytes, and the\n"
	    "                             live bytes, at every change\n"
	    "      --points <n>           ... as an envelope of about n rows\n"
	    "  -f, --format <text|json>   output format (default: text)\n"
	    "      --device <n>           PyTorch snapshots: the device's trace to replay\n"
	    "                             (default: the one with the most entries)\n"
	    "  -h, --help                 show this help\n\n"
	    "Example:\n"
	    "  gpumemsim compare traces/resnet50-train-b32.json --capacity=3.2GiB\n",
	    compare_usage);
	return EXIT_DONE;
}

/* A label as a CSV column name: letters, digits, '-' and '_' only. */
static char *
csv_label(const char *label)
{
	char *s = gms_strdup(label), *p;

	for (p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
			*p = '_';
	return s;
}

int
cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policies", required_argument, NULL, 'L' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "placement", required_argument, NULL, 'P' },
		{ "option", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },
		{ "alloc-conf", required_argument, NULL, 'A' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "context-overhead", required_argument, NULL, 'X' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "points", required_argument, NULL, 'N' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_policies pols = { 0 };
	struct batch_job *jobs;
	struct report_row *rows;
	const char *trace = NULL;
	char *text;
	uint64_t capacity = 0;
	size_t n = 0, i;
	int json = 0, placement = 0, threads = batch_default_threads(), device = -1, ch, rc = 0;
	long v, points = 0;
	struct cli_target target = { .overhead = GPU_CONTEXT_OVERHEAD };
	const char *timeline_path = NULL, *gpu_name = NULL;
	struct timeline *tls = NULL, **tlp = NULL;
	char **labels = NULL;
	cJSON *o;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":c:o:j:f:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'L':
			pols.list = optarg;
			break;
		case 'c':
		case 'g':
		case 'X':
			if ((rc = cli_target_opt(&target, ch, optarg)) != 0)
				return rc;
			break;
		case 'T':
			timeline_path = optarg;
			break;
		case 'N':
			if ((rc = cli_count("--points", optarg, 100000000, &points)) != 0)
				return rc;
			break;
		case 'P':
			if ((rc = cli_choice("--placement", optarg, cli_placements, &placement)) != 0)
				return rc;
			break;
		case 'd':
			if ((rc = cli_device(optarg, &device)) != 0)
				return rc;
			break;
		case 'o':
			if (cli_add_option(&pols.global, &pols.nglobal, optarg) < 0)
				return EXIT_INPUT;
			break;
		case 'A':
			cli_add_kv(&pols.global, &pols.nglobal, "caching.alloc_conf", optarg);
			break;
		case 'j':
			if ((rc = cli_count("--jobs", optarg, 1024, &v)) != 0)
				return rc;
			threads = (int)v;
			break;
		case 'f':
			if ((rc = cli_choice("--format", optarg, cli_formats, &json)) != 0)
				return rc;
			break;
		case 'h':
			return compare_help();
		default:
			return cli_bad_option("compare", compare_usage, ch, argv);
		}
	}
	if (optind != argc - 1)
		return cli_one_trace("compare", compare_usage, argc);
	if ((rc = cli_target(&target, &gpu_name, &capacity)) != 0)
		return rc;

	rc = cli_policies_parse(&pols);
	n = pols.n;
	jobs = gms_calloc(n ? n : 1, sizeof(*jobs));
	rows = gms_calloc(n ? n : 1, sizeof(*rows));
	tls = gms_calloc(n ? n : 1, sizeof(*tls));
	tlp = gms_calloc(n ? n : 1, sizeof(*tlp));
	labels = gms_calloc(n ? n : 1, sizeof(*labels));
	if (rc != 0)
		goto out;
	for (i = 0; i < n; i++) {
		jobs[i].spec = (struct run_spec){ .path = argv[optind], .policy = pols.ents[i].ops,
		    .opts = pols.ents[i].opts, .nopts = pols.ents[i].nopts, .capacity = capacity,
		    .device = device,
		    .gpu_total = target.model ? target.model->total : 0,
		    .gpu_cc = target.model ? target.model->cc : 0,
		    .placement = placement ? RUN_PLACEMENT_RECORDED : RUN_PLACEMENT_MODEL };
		timeline_init(&tls[i], (size_t)points);
		tlp[i] = &tls[i];
		labels[i] = csv_label(pols.ents[i].label);
		if (timeline_path != NULL) {
			jobs[i].spec.sampler = timeline_sample;
			jobs[i].spec.sampler_arg = &tls[i];
		}
	}
	batch_run(jobs, n, threads);

	for (i = 0; i < n; i++) {
		/* A broken trace breaks every run: report it once, as `run` would. */
		if (jobs[i].err == GMS_ETRACE || jobs[i].err == GMS_EIO) {
			cli_error("%s", jobs[i].cause);
			rc = gms_exit_code(jobs[i].err);
			goto out;
		}
		rows[i].label = pols.ents[i].label;
		rows[i].err = jobs[i].err;
		rows[i].cause = jobs[i].cause;
		if (jobs[i].err != 0)
			continue;
		trace = jobs[i].out.hdr->name;
		rows[i].run = (struct report_run){ .trace = trace, .path = argv[optind], .gpu = gpu_name,
		    .policy = pols.ents[i].ops->name, .opts = pols.ents[i].opts, .nopts = pols.ents[i].nopts,
		    .placement = placement ? "recorded" : "model", .capacity = capacity,
		    .hdr = jobs[i].out.hdr, .res = &jobs[i].out.res };
	}
	if (trace == NULL) {
		cli_error("no policy could run: %s", n ? jobs[0].cause : "none named");
		rc = EXIT_INPUT;
		goto out;
	}
	if (timeline_path != NULL &&
	    (rc = write_timeline(timeline_path, argv[optind], tlp, (const char *const *)labels, n)) != 0)
		goto out;
	if (json) {
		o = report_compare_json(rows, n, trace, capacity);
		text = cJSON_Print(o);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(o);
	} else {
		text = report_compare_text(rows, n, trace, capacity);
		fputs(text, stdout);
		free(text);
	}
	if (fflush(stdout) != 0) {
		cli_error("cannot write the report: %s", strerror(errno));
		rc = EXIT_SYSTEM;
	}
out:
	batch_free(jobs, n);
	for (i = 0; i < n; i++) {
		if (tls != NULL)
			timeline_free(&tls[i]);
		if (labels != NULL)
			free(labels[i]);
	}
	free(tls);
	free(tlp);
	free(labels);
	cli_policies_free(&pols);
	free(jobs);
	free(rows);
	return rc;
}
