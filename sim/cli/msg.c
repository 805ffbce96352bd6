/*
 * msg.c - what the command line says, git-style, on standard error
 * ("gpumemsim: error: ...", "gpumemsim: warning: ..."), each after the
 * progress line is cleared; a command's usage after a usage error; the
 * name a mistyped word was meant to be.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define NEAR_MAX 32	/* longer words are not slips of a name */

/* Edits from a to b (optimal string alignment: Damerau-Levenshtein without re-edits). */
static size_t
edits(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[NEAR_MAX + 1][NEAR_MAX + 1], i, j;

	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			v = GMS_MIN(v, d[i - 1][j] + 1);
			v = GMS_MIN(v, d[i][j - 1] + 1);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				v = GMS_MIN(v, d[i - 2][j - 2] + 1);
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *
cli_nearest(const char *word, size_t len, const char *const *names, size_t n)
{
	/* one slip in a short word, two in most, three in a long one */
	size_t most = len <= 3 ? 1 : len <= 8 ? 2 : 3, best = SIZE_MAX, i, d;
	const char *found = NULL;
	int tie = 0;

	if (len == 0 || len > NEAR_MAX)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t ln = strlen(names[i]);

		if (ln > NEAR_MAX)
			continue;
		d = edits(word, len, names[i], ln);
		if (d < best) {
			best = d;
			found = names[i];
			tie = 0;
		} else if (d == best) {
			tie = 1;
		}
	}
	return best <= most && best > 0 && !tie ? found : NULL;
}
