/*
 * main.c - the gpumemsim command line: finds the subcommand (a unique prefix
 * is enough) and hands it the rest of argv; --help and --version.  The only
 * place besides sim/cmd-*.c that prints or exits.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <zlib.h>

#include "replay/replay.h"
#include "sim/cli.h"
#include "sim/gms.h"
#include "sim/policy.h"

const struct cli_command cli_commands[] = {
	{ "run", "replay a trace through one allocator policy and report", cmd_run },
	{ "compare", "run several policies on a trace, side by side, and name the winner",
	  cmd_compare },
	{ "check", "check a run against thresholds or a baseline, for CI (exit 1 if not)",
	  cmd_check },
	{ "plan", "the smallest capacity each policy needs, and which GPUs fit", cmd_plan },
	{ "tune", "find the PyTorch allocator setting that reserves least and fits", cmd_tune },
	{ "plot", "draw a run: a timeline per policy, or a memory map (SVG or PNG)", cmd_plot },
	{ "replay", "replay a trace on a real GPU beside the simulation (needs CUDA)", cmd_replay },
	{ "info", "describe a trace: counts, live peak, sizes, largest allocations", cmd_info },
	{ "convert", "convert a trace (snapshot pickle, RMM log, ...) to the native format",
	  cmd_convert },
	{ "policies", "list the policies, what they model and their options", cmd_policies },
	{ NULL, NULL, NULL },
};

static int
usage(FILE *f, int code)
{
	const struct cli_command *c;

	fprintf(f,
	    "usage: gpumemsim <command> [options] <trace>\n"
	    "       gpumemsim --version | --help\n\n"
	    "Replay a recorded GPU memory trace through simulated framework allocators\n"
	    "and report peak reservation, fragmentation and where memory runs out.\n\n"
	    "Commands:\n");
	for (c = cli_commands; c->name != NULL; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nExample:\n  gpumemsim run traces/resnet50-train-b32.json --policy=caching --capacity=3GiB\n\n"
	    "'gpumemsim <command> --help' describes a command and its options.\n"
	    "Exit status: 0 done, 1 a requested check failed, 2 usage, 3 bad trace or\n"
	    "options, 4 I/O or system error, 5 an internal error (a bug: please report it).\n");
	return code;
}

static int
version(void)
{
	printf("gpumemsim %s\n", PACKAGE_VERSION);
	printf("cuda replay: %s\n", replay_cuda_built() ? "built" :
	    "not built (reconfigure with --with-cuda)");
	printf("cJSON %s, zlib %s\n", cJSON_Version(), zlibVersion());
	printf("configured with: %s\n", GMS_CONFIGURE_ARGS[0] ? GMS_CONFIGURE_ARGS : "(defaults)");
	return EXIT_DONE;
}

/*
 * What a command printed must have reached standard output: a full disk or a
 * closed pipe is an I/O error, never a silent exit 0.
 */
static int
finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write to standard output: %s", strerror(errno));
		return rc == EXIT_DONE || rc == EXIT_CHECK ? EXIT_SYSTEM : rc;
	}
	return rc;
}

static int dispatch(int argc, char **argv);

int
main(int argc, char **argv)
{
	return finish(dispatch(argc, argv));
}

static int
dispatch(int argc, char **argv)
{
	const struct cli_command *c, *found = NULL;
	size_t n;
	int matches = 0;

	if (argc < 2)
		return usage(stderr, EXIT_USAGE);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0)
		return usage(stdout, EXIT_DONE);
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return version();
	if (argv[1][0] == '-') {
		cli_error("unknown option '%s'", argv[1]);
		return usage(stderr, EXIT_USAGE);
	}
	n = strlen(argv[1]);
	for (c = cli_commands; c->name != NULL; c++) {
		if (strcmp(c->name, argv[1]) == 0) {
			found = c;
			matches = 1;
			break;
		}
		if (strncmp(c->name, argv[1], n) == 0) {
			found = c;
			matches++;
		}
	}
	if (matches == 1)
		return found->exec(argc - 1, argv + 1);
	if (matches > 1) {
		fprintf(stderr, "gpumemsim: error: ambiguous command '%s', could be:", argv[1]);
		for (c = cli_commands; c->name != NULL; c++)
			if (strncmp(c->name, argv[1], n) == 0)
				fprintf(stderr, " %s", c->name);
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	cli_error("unknown command '%s'", argv[1]);
	return usage(stderr, EXIT_USAGE);
}
