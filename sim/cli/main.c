/*
 * main.c - the gpumemsim command line: finds the command in the table (a
 * unique prefix is enough), parses its options, points its report at
 * --output, runs it, and makes sure what it printed was written.  --help and
 * --version.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>
#include <zlib.h>

#include "replay/replay.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/outfile.h"
#include "sim/tmpfiles.h"
#include "traces/input.h"

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

static const struct cli_command *
find(const char *name)
{
	const struct cli_command *c, *found = NULL;
	size_t n = strlen(name);
	int matches = 0;

	for (c = cli_commands; c->name != NULL; c++) {
		if (strcmp(c->name, name) == 0)
			return c;
		if (strncmp(c->name, name, n) == 0) {
			found = c;
			matches++;
		}
	}
	if (matches == 1)
		return found;
	if (matches > 1) {
		fprintf(stderr, "gpumemsim: error: ambiguous command '%s', could be:", name);
		for (c = cli_commands; c->name != NULL; c++)
			if (strncmp(c->name, name, n) == 0)
				fprintf(stderr, " %s", c->name);
		fputc('\n', stderr);
	} else {
		const char *names[64], *near;
		size_t k = 0;

		for (c = cli_commands; c->name != NULL && k < ARRAY_SIZE(names); c++)
			names[k++] = c->name;
		if (strcmp(name, "record") == 0) {
			/* it runs the user's PyTorch script: the Python package's */
			cli_error("'record' runs a PyTorch script, and is the Python package's: "
			    "python -m gpumemsim record --gpu=NAME [-o TRACE] script.py [args] "
			    "(pip install ./python)");
		} else if ((near = cli_nearest(name, strlen(name), names, k)) != NULL) {
			cli_error("unknown command '%s' (did you mean '%s'?)", name, near);
			fprintf(stderr, "Try 'gpumemsim --help'.\n");
		} else {
			cli_error("unknown command '%s'", name);
			cli_help_main(stderr);
		}
	}
	return NULL;
}

/*
 * Run c with its report going to --output: written beside the file and
 * renamed into place when the command succeeded (or found a failed check),
 * never onto one of its inputs.
 */
static int
run_to_file(const struct cli_command *c, struct cli_args *a)
{
	const char *path = a->v[OPT_OUTPUT].s;
	struct outfile o;
	char *cause = NULL;
	int saved, rc, err;

	if ((err = outfile_open(path, a->in->files, a->in->nfiles, &o, &cause)) < 0)
		return cli_fail(err, cause);
	fflush(stdout);
	if ((saved = dup(STDOUT_FILENO)) < 0 || dup2(o.fd, STDOUT_FILENO) < 0) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		outfile_abort(&o);
		return EXIT_SYSTEM;
	}
	close(o.fd);
	o.fd = -1;
	rc = c->exec(a);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		rc = rc == EXIT_DONE || rc == EXIT_CHECK ? EXIT_SYSTEM : rc;
	}
	dup2(saved, STDOUT_FILENO);
	close(saved);
	clearerr(stdout);
	if (rc != EXIT_DONE && rc != EXIT_CHECK) {
		outfile_abort(&o);
	} else if ((err = outfile_commit(&o, &cause)) < 0) {
		rc = cli_fail(err, cause);
	}
	return rc;
}

static int
dispatch(int argc, char **argv)
{
	const struct cli_command *c;
	struct cli_args a;
	struct inputs in;
	int rc;

	if (argc < 2) {
		cli_help_main(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0 && (c = find(argv[2])) != NULL) {
			cli_help(stdout, c);
			return EXIT_DONE;
		}
		cli_help_main(stdout);
		return argc > 2 && strcmp(argv[1], "help") == 0 ? EXIT_USAGE : EXIT_DONE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return version();
	if (argv[1][0] == '-') {
		cli_error("unknown option '%s'", argv[1]);
		cli_help_main(stderr);
		return EXIT_USAGE;
	}
	if ((c = find(argv[1])) == NULL)
		return EXIT_USAGE;
	if ((rc = cli_parse(c, argc - 1, argv + 1, &a)) >= 0) {
		cli_args_free(&a);
		return rc;
	}
	if (a.given[OPT_TIMELINE] && strcmp(a.v[OPT_TIMELINE].s, "-") == 0) {
		if (a.given[OPT_OUTPUT] && strcmp(a.v[OPT_OUTPUT].s, "-") == 0) {
			cli_args_free(&a);
			return cli_usage_error(c, "--timeline=- and --output=- would both write "
			    "to standard output");
		}
		/* the CSV has standard output; the report goes beside the messages */
		if (!a.given[OPT_OUTPUT])
			a.report = stderr;
	}
	tmpfiles_install();
	input_watch(1);
	cli_progress_start(c->name);
	/* what it reads, resolved before it runs (an output never replaces any of it) */
	if ((rc = cli_inputs(c, &a, &in)) < 0) {
		if (a.given[OPT_OUTPUT] && !c->own_output && strcmp(a.v[OPT_OUTPUT].s, "-") != 0)
			rc = run_to_file(c, &a);
		else
			rc = c->exec(&a);
	}
	cli_progress_stop();
	inputs_close(&in);
	cli_args_free(&a);
	return rc;
}

int
cli_main(int argc, char **argv)
{
	return finish(dispatch(argc, argv));
}
