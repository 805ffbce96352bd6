/*
 * cmd-run.c - `gpumemsim run`: replay one trace through one policy and report
 * peaks, fragmentation, device calls and the out-of-memory story, as text for
 * people or JSON for scripts.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/timeline.h"
#include "sim/cli.h"
#include "sim/gpus.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/run.h"

static const char run_usage[] = "gpumemsim run [options] <trace>";

static int
run_help(void)
{
	const struct policy_ops *const *p;

	printf("usage: %s\n\n"
	    "Replay a trace through one allocator policy and report peak reservation,\n"
	    "fragmentation, device calls and, under a capacity, where memory runs out.\n\n"
	    "Options:\n"
	    "  -p, --policy <name>        allocator policy (default: caching)\n"
	    "  -c, --capacity <size>      the most the allocator may reserve, e.g. 24GiB\n"
	    "                             (default: unlimited)\n"
	    "      --placement <model|recorded>\n"
	    "                             where new segments land: the driver model, or the\n"
	    "                             addresses of the trace's segment_alloc events\n"
	    "                             (default: model)\n"
	    "  -f, --format <text|json>   output format (default: text)\n"
	    "      --device <n>           PyTorch snapshots: the device's trace to replay\n"
	    "                             (default: the one with the most entries)\n"
	    "      --fail-on-oom          exit 1 when the run runs out of memory\n"
	    "      --unknown-frees <error|warn>\n"
	    "                             frees of ids the trace never allocated: an error,\n"
	    "                             or counted and warned about, for traces that start\n"
	    "                             mid-run (default: error, or warn when the trace\n"
	    "                             says \"starts_mid_run\": true)\n"
	    "  -o, --option <key=value>   a policy option (repeatable); 'gpumemsim policies'\n"
	    "                             lists them\n"
	    "      --alloc-conf <conf>    caching: PYTORCH_CUDA_ALLOC_CONF settings, e.g.\n"
	    "                             expandable_segments:True,max_split_size_mb:128\n"
	    "      --gpu <model>          run on a catalogued GPU instead of --capacity: its\n"
	    "                             memory less the context overhead (and for BFC\n"
	    "                             policies the framework's own limit for it);\n"
	    "                             'gpumemsim plan --help' lists the models\n"
	    "      --context-overhead <size>\n"
	    "                             memory the CUDA context and libraries take off a\n"
	    "                             --gpu (default: 512MiB)\n"
	    "      --timeline <file.csv>  write live, allocated and reserved bytes at every\n"
	    "                             change\n"
	    "      --points <n>           ... as an envelope of about n rows that keeps\n"
	    "                             every peak\n"
	    "      --check                verify the policy's invariants after every event\n"
	    "  -h, --help                 show this help\n\n"
	    "Policies:\n", run_usage);
	for (p = policy_table; *p != NULL; p++)
		printf("  %-12s %s\n", (*p)->name, (*p)->models);
	printf("\nSizes take B, KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, GB, TB.\n\n"
	    "Example:\n"
	    "  gpumemsim run traces/resnet50-train-b32.json --policy=caching --capacity=3GiB\n");
	return EXIT_DONE;
}

int
cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "placement", required_argument, NULL, 'P' },
		{ "format", required_argument, NULL, 'f' },
		{ "fail-on-oom", no_argument, NULL, 'O' },
		{ "unknown-frees", required_argument, NULL, 'U' },
		{ "check", no_argument, NULL, 'C' },
		{ "option", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },
		{ "alloc-conf", required_argument, NULL, 'A' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "context-overhead", required_argument, NULL, 'X' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "points", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_spec spec = { .placement = RUN_PLACEMENT_MODEL };
	struct run_output out;
	struct report_run rep;
	static const char *const unknown_frees[] = { "error", "warn", NULL };
	const char *policy = "caching";
	char *cause = NULL, *text;
	struct policy_kv *opts = NULL;
	size_t nopts = 0;
	int fail_on_oom = 0, json = 0, choice = 0, device = -1, ch, err, rc;
	struct cli_target target = { .overhead = GPU_CONTEXT_OVERHEAD };
	const char *timeline_path = NULL, *gpu_name = NULL;
	struct timeline tl;
	long points = 0;
	cJSON *doc;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":p:c:f:o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			policy = optarg;
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
			if ((rc = cli_choice("--placement", optarg, cli_placements, &choice)) != 0)
				return rc;
			spec.placement = choice == 0 ? RUN_PLACEMENT_MODEL : RUN_PLACEMENT_RECORDED;
			break;
		case 'f':
			if ((rc = cli_choice("--format", optarg, cli_formats, &json)) != 0)
				return rc;
			break;
		case 'O':
			fail_on_oom = 1;
			break;
		case 'U':
			if ((rc = cli_choice("--unknown-frees", optarg, unknown_frees, &choice)) != 0)
				return rc;
			spec.unknown_frees_warn = choice;
			break;
		case 'C':
			spec.check_every = 1;
			break;
		case 'd':
			if ((rc = cli_device(optarg, &device)) != 0)
				return rc;
			break;
		case 'o':
			if (cli_add_option(&opts, &nopts, optarg) < 0)
				return EXIT_INPUT;
			break;
		case 'A':
			cli_add_kv(&opts, &nopts, "alloc_conf", optarg);
			break;
		case 'h':
			return run_help();
		default:
			return cli_bad_option("run", run_usage, ch, argv);
		}
	}
	if (optind != argc - 1)
		return cli_one_trace("run", run_usage, argc);
	if ((rc = cli_target(&target, &gpu_name, &spec.capacity)) != 0)
		return rc;
	spec.path = argv[optind];
	spec.opts = opts;
	spec.nopts = nopts;
	spec.device = device;
	if (target.model != NULL) {
		spec.gpu_total = target.model->total;
		spec.gpu_cc = target.model->cc;
	}
	timeline_init(&tl, (size_t)points);
	if (timeline_path != NULL) {
		spec.sampler = timeline_sample;
		spec.sampler_arg = &tl;
	}
	if ((spec.policy = policy_find(policy, &cause)) == NULL) {
		cli_error("%s", cause);
		free(cause);
		return EXIT_INPUT;
	}

	err = run_simulate(&spec, &out, &cause);
	if (err < 0) {
		cli_error("%s", cause);
		free(cause);
		run_output_free(&out);
		free(opts);
		timeline_free(&tl);
		return gms_exit_code(err);
	}
	if (timeline_path != NULL) {
		struct timeline *one = &tl;

		rc = write_timeline(timeline_path, argv[optind], &one, NULL, 1);
		timeline_free(&tl);
		if (rc != 0) {
			run_output_free(&out);
			free(opts);
			return rc;
		}
	}
	if (out.res.unknown_frees > 0)
		cli_warning("%s: %llu frees of ids the trace never allocated (the first at "
		    "event %llu): the trace starts mid-run, so its first numbers are low",
		    spec.path, (unsigned long long)out.res.unknown_frees,
		    (unsigned long long)out.res.first_unknown_free);
	{
		const cJSON *conf = cJSON_GetObjectItemCaseSensitive(out.hdr->source,
		    "alloc_conf");

		if (spec.policy == &policy_caching && cJSON_IsString(conf) &&
		    conf->valuestring[0] != '\0' && policy_opt(&(struct policy_args){ .opts = opts,
		    .nopts = nopts }, "alloc_conf") == NULL)
			cli_warning("%s was recorded with PYTORCH_CUDA_ALLOC_CONF=%s; this run "
			    "simulates the default settings (give --alloc-conf='%s' to simulate "
			    "those)", spec.path, conf->valuestring, conf->valuestring);
	}
	if (out.recorded_diverged > 0)
		cli_warning("%s: %llu of %llu segments did not follow the recording; the "
		    "placement model placed them", spec.path,
		    (unsigned long long)out.recorded_diverged,
		    (unsigned long long)out.res.device_allocs);

	rep = (struct report_run){
		.gpu = gpu_name,
		.trace = out.hdr->name,
		.path = spec.path,
		.policy = spec.policy->name,
		.opts = opts,
		.nopts = nopts,
		.placement = spec.placement == RUN_PLACEMENT_RECORDED ? "recorded" : "model",
		.capacity = spec.capacity,
		.hdr = out.hdr,
		.res = &out.res,
	};
	if (json) {
		doc = report_run_json(&rep);
		text = cJSON_Print(doc);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(doc);
	} else {
		text = report_run_text(&rep);
		fputs(text, stdout);
		free(text);
	}
	rc = fail_on_oom && out.res.oomed ? EXIT_CHECK : EXIT_DONE;
	run_output_free(&out);
	free(opts);
	if (fflush(stdout) != 0) {
		cli_error("cannot write the report: %s", strerror(errno));
		return EXIT_SYSTEM;
	}
	return rc;
}
