/*
 * msg.c - what the command line says, git-style, on standard error
 * ("gpumemsim: error: ...", "gpumemsim: warning: ..."), each after the
 * progress line is cleared; a command's usage after a usage error.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/entries.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"

int cli_quiet;

static void
vmsg(const char *kind, const char *fmt, va_list ap)
{
	cli_progress_clear();
	fprintf(stderr, "gpumemsim: %s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
}

int
cli_fail(int err, char *cause)
{
	cli_error("%s", cause);
	free(cause);
	return gms_exit_code(err);
}

void
cli_warning(const char *fmt, ...)
{
	va_list ap;

	if (cli_quiet)
		return;
	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

int
cli_usage_error(const struct cli_command *c, const char *fmt, ...)
{
	va_list ap;

	if (fmt != NULL) {
		va_start(ap, fmt);
		vmsg("error", fmt, ap);
		va_end(ap);
	}
	if (c == NULL) {
		fprintf(stderr, "usage: gpumemsim <command> [options] <trace>\n"
		    "Try 'gpumemsim --help'.\n");
		return EXIT_USAGE;
	}
	fprintf(stderr, "usage: gpumemsim %s [options]%s%s\nTry 'gpumemsim %s --help'.\n",
	    c->name, c->args[0] ? " " : "", c->args, c->name);
	return EXIT_USAGE;
}

void
cli_warnings(const struct entry_warnings *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		cli_warning("%s", w->w[i]);
}
