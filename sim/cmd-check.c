/*
 * cmd-check.c - `gpumemsim check TRACE`: thresholds on a run, for CI.  Exit
 * 0 when every check holds, 1 when one fails (2, 3, 4 as for every command).
 * Output as text, JSON or TAP, one test per check.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/check.h"
#include "analysis/report.h"
#include "sim/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"
#include "sim/run.h"

static const char check_usage[] = "gpumemsim check [options] <trace>";

static int
check_help(void)
{
	printf("usage: %s\n\n"
	    "Run a trace and check the result against thresholds, for CI: exit 0 when every\n"
	    "check holds, 1 when one fails. Give at least one threshold or a baseline.\n\n"
	    "Thresholds:\n"
	    "      --max-peak-reserved <size>   peak reserved at most this\n"
	    "      --max-fragmentation <f>      1 - peak allocated / peak reserved at most f\n"
	    "      --max-overhead <f>           peak reserved / live peak - 1 at most f\n"
	    "      --must-fit <size|gpu>        runs without OOM in this capacity, or on this\n"
	    "                                   GPU (its memory less the context overhead)\n"
	    "      --max-device-allocs <n>      at most n segment allocations\n"
	    "      --baseline <file>            a saved 'run --format=json' result: no metric\n"
	    "                                   may grow past it by more than --tolerance\n"
	    "      --tolerance <percent>        for --baseline (default: 0)\n\n"
	    "The run:\n"
	    "  -p, --policy <name>              allocator policy (default: caching)\n"
	    "      --alloc-conf <conf>          caching: PYTORCH_CUDA_ALLOC_CONF settings\n"
	    "  -o, --option <key=value>         a policy option (repeatable)\n"
	    "  -c, --capacity <size>            run under this capacity (then it must fit too)\n"
	    "      --gpu <model>                ... or on this GPU\n"
	    "      --context-overhead <size>    taken off a GPU's memory (default: 512MiB)\n"
	    "      --device <n>                 PyTorch snapshots: the device's trace\n"
	    "  -f, --format <text|json|tap>     output format (default: text)\n"
	    "  -h, --help                       show this help\n\n"
	    "Example:\n"
	    "  gpumemsim check trace.json --max-fragmentation=0.15 --baseline=base.json \\\n"
	    "      --tolerance=2 --format=tap\n", check_usage);
	return EXIT_DONE;
}

static int
fraction(const char *opt, const char *arg, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || !isfinite(*out) || *out < 0) {
		cli_error("%s takes a number of 0 or more, not '%s'", opt, arg);
		return EXIT_INPUT;
	}
	return 0;
}

/* A saved run result is about 1 KiB. */
#define BASELINE_MAX (1u << 20)

static int
load_baseline(const char *path, cJSON **out)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		cli_error("cannot open baseline '%s': %s", path, strerror(errno));
		return EXIT_SYSTEM;
	}
	const char *end = NULL;
	int rerr;

	do {
		if (cap - len < 4096)
			buf = gms_realloc(buf, cap = cap ? cap * 2 : 65536);
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0 && len <= BASELINE_MAX);
	rerr = ferror(f);
	fclose(f);
	if (rerr) {
		free(buf);
		cli_error("cannot read baseline '%s': %s", path, strerror(EIO));
		return EXIT_SYSTEM;
	}
	if (len > BASELINE_MAX) {
		free(buf);
		cli_error("%s: larger than 1 MiB: not a saved run result", path);
		return EXIT_INPUT;
	}
	buf[len] = '\0';
	*out = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (*out != NULL && end != NULL && end[strspn(end, " \t\r\n")] != '\0') {
		cJSON_Delete(*out);
		*out = NULL;
		cli_error("%s: unexpected data after the JSON result (at byte %zu)", path,
		    (size_t)(end - buf));
		free(buf);
		return EXIT_INPUT;
	}
	free(buf);
	if (*out == NULL) {
		cli_error("%s: not JSON (save it with 'gpumemsim run --format=json')", path);
		return EXIT_INPUT;
	}
	return 0;
}

int
cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-peak-reserved", required_argument, NULL, 'R' },
		{ "max-fragmentation", required_argument, NULL, 'F' },
		{ "max-overhead", required_argument, NULL, 'V' },
		{ "must-fit", required_argument, NULL, 'M' },
		{ "max-device-allocs", required_argument, NULL, 'D' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "policy", required_argument, NULL, 'p' },
		{ "alloc-conf", required_argument, NULL, 'A' },
		{ "option", required_argument, NULL, 'o' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "context-overhead", required_argument, NULL, 'X' },
		{ "device", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const formats[] = { "text", "json", "tap", NULL };
	struct cli_target target = { .overhead = GPU_CONTEXT_OVERHEAD };
	struct run_spec spec = { .placement = RUN_PLACEMENT_MODEL, .device = -1 };
	struct run_output out, fit;
	struct check_list l = { 0 };
	struct policy_kv *opts = NULL;
	const char *policy = "caching", *baseline = NULL, *must_fit = NULL, *gpu_name = NULL;
	uint64_t max_reserved = 0, fit_capacity = 0;
	int has_max_reserved = 0;
	double max_frag = -1, max_over = -1, tolerance = 0;
	long max_allocs = -1;
	size_t nopts = 0;
	int format = 0, nchecks = 0, ch, rc = 0, err;
	char *cause = NULL, *text, *note, title[512], detail[160];
	cJSON *base = NULL, *o;

	memset(&out, 0, sizeof(out));
	memset(&fit, 0, sizeof(fit));
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":p:o:c:f:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'R':
			if (gms_parse_size(optarg, &max_reserved, &cause) < 0) {
				cli_error("--max-peak-reserved: %s", cause);
				free(cause);
				return EXIT_INPUT;
			}
			has_max_reserved = 1;
			nchecks++;
			break;
		case 'F':
			if ((rc = fraction("--max-fragmentation", optarg, &max_frag)) != 0)
				return rc;
			nchecks++;
			break;
		case 'V':
			if ((rc = fraction("--max-overhead", optarg, &max_over)) != 0)
				return rc;
			nchecks++;
			break;
		case 'M':
			must_fit = optarg;
			nchecks++;
			break;
		case 'D':
			if ((rc = cli_count("--max-device-allocs", optarg, 2000000000L, &max_allocs)) != 0)
				return rc;
			nchecks++;
			break;
		case 'B':
			baseline = optarg;
			nchecks++;
			break;
		case 't':
			if ((rc = fraction("--tolerance", optarg, &tolerance)) != 0)
				return rc;
			break;
		case 'p':
			policy = optarg;
			break;
		case 'A':
			cli_add_kv(&opts, &nopts, "alloc_conf", optarg);
			break;
		case 'o':
			if (cli_add_option(&opts, &nopts, optarg) < 0)
				return EXIT_INPUT;
			break;
		case 'c':
		case 'g':
		case 'X':
			if ((rc = cli_target_opt(&target, ch, optarg)) != 0)
				return rc;
			break;
		case 'd':
			if ((rc = cli_device(optarg, &spec.device)) != 0)
				return rc;
			break;
		case 'f':
			if ((rc = cli_choice("--format", optarg, formats, &format)) != 0)
				return rc;
			break;
		case 'h':
			return check_help();
		default:
			return cli_bad_option("check", check_usage, ch, argv);
		}
	}
	if (optind != argc - 1)
		return cli_one_trace("check", check_usage, argc);
	if (nchecks == 0 && target.capacity == 0 && target.gpu == NULL)
		return cli_usage_error("check", check_usage, "nothing to check: give a threshold, "
		    "--must-fit, --capacity, --gpu or --baseline");
	if ((rc = cli_target(&target, &gpu_name, &spec.capacity)) != 0)
		goto out;
	if (must_fit != NULL) {
		const struct gpu_model *g;

		if (gms_parse_size(must_fit, &fit_capacity, NULL) < 0 || fit_capacity == 0) {
			if ((g = gpu_find(must_fit, &cause)) == NULL) {
				cli_error("--must-fit takes a size or a GPU model: %s", cause);
				free(cause);
				rc = EXIT_INPUT;
				goto out;
			}
			fit_capacity = g->total > target.overhead ? g->total - target.overhead : 0;
		}
	}
	if (baseline != NULL && (rc = load_baseline(baseline, &base)) != 0)
		goto out;
	if ((spec.policy = policy_find(policy, &cause)) == NULL) {
		cli_error("%s", cause);
		free(cause);
		rc = EXIT_INPUT;
		goto out;
	}
	spec.path = argv[optind];
	spec.opts = opts;
	spec.nopts = nopts;
	if (target.model != NULL) {
		spec.gpu_total = target.model->total;
		spec.gpu_cc = target.model->cc;
	}
	if ((err = run_simulate(&spec, &out, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		rc = gms_exit_code(err);
		goto out;
	}

	if (spec.capacity != 0)
		check_fits(&l, "fits", spec.capacity, &out.res);
	if (has_max_reserved)
		check_le(&l, "peak_reserved", CHECK_BYTES, (double)out.res.peak_reserved,
		    (double)max_reserved, NULL);
	if (max_frag >= 0)
		check_le(&l, "fragmentation", CHECK_RATIO, report_fragmentation(&out.res), max_frag,
		    "1 - peak allocated / peak reserved");
	if (max_over >= 0) {
		snprintf(detail, sizeof(detail), "peak reserved over the live peak of %llu B",
		    (unsigned long long)out.res.peak_live);
		check_le(&l, "overhead", CHECK_RATIO, out.res.peak_live ?
		    (double)out.res.peak_reserved / (double)out.res.peak_live - 1.0 : 0.0, max_over,
		    detail);
	}
	if (max_allocs >= 0)
		check_le(&l, "device_allocs", CHECK_COUNT, (double)out.res.device_allocs,
		    (double)max_allocs, NULL);
	if (must_fit != NULL) {
		struct run_spec fs = spec;

		fs.capacity = fit_capacity;
		if ((err = run_simulate(&fs, &fit, &cause)) < 0) {
			cli_error("%s", cause);
			free(cause);
			rc = gms_exit_code(err);
			goto out;
		}
		check_fits(&l, "must_fit", fit_capacity, &fit.res);
	}
	if (base != NULL && check_baseline(&l, base, out.hdr->name, spec.policy->name, &out.res,
	    tolerance, &cause) < 0) {
		cli_error("%s: %s", baseline, cause);
		free(cause);
		rc = EXIT_INPUT;
		goto out;
	}

	snprintf(title, sizeof(title), "check %s: policy %s, capacity %s", out.hdr->name,
	    spec.policy->name, spec.capacity ? gms_fmt_size(spec.capacity, (char[32]){ 0 }, 32) :
	    "unlimited");
	if (format == 1) {
		o = check_json(&l);
		cJSON_AddStringToObject(o, "trace", out.hdr->name);
		cJSON_AddStringToObject(o, "policy", spec.policy->name);
		cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(out.hdr));
		text = cJSON_Print(o);
		printf("%s\n", text);
		cJSON_Delete(o);
	} else if (format == 2) {
		text = check_tap(&l);
		if ((note = report_incomplete_text(out.hdr)) != NULL)
			printf("# %s", note);
		free(note);
		fputs(text, stdout);
	} else {
		text = check_text(&l, title);
		fputs(text, stdout);
		if ((note = report_incomplete_text(out.hdr)) != NULL)
			printf("\n%s", note);
		free(note);
	}
	free(text);
	rc = check_failed(&l) ? EXIT_CHECK : EXIT_DONE;
	if (fflush(stdout) != 0) {
		cli_error("cannot write the report: %s", strerror(errno));
		rc = EXIT_SYSTEM;
	}
out:
	run_output_free(&out);
	run_output_free(&fit);
	check_free(&l);
	cJSON_Delete(base);
	free(opts);
	return rc;
}
