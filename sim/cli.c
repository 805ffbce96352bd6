/*
 * cli.c - what the commands share: git-style messages, and parsing the
 * options several commands take (--capacity, --placement, --format,
 * --option).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/gms.h"
#include "sim/policy.h"

static void
vmsg(const char *kind, const char *fmt, va_list ap)
{
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

void
cli_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

int
cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	if (fmt != NULL) {
		va_start(ap, fmt);
		vmsg("error", fmt, ap);
		va_end(ap);
	}
	fprintf(stderr, "usage: %s\nTry 'gpumemsim %s%s--help'.\n", usage,
	    cmd ? cmd : "", cmd ? " " : "");
	return EXIT_USAGE;
}

int
cli_add_option(struct policy_kv **opts, size_t *nopts, char *arg)
{
	char *eq = strchr(arg, '=');

	if (eq == NULL || eq == arg || eq[1] == '\0') {
		cli_error("--option takes KEY=VALUE, not '%s'", arg);
		return -1;
	}
	*eq = '\0';
	*opts = gms_realloc(*opts, (*nopts + 1) * sizeof(**opts));
	(*opts)[*nopts].key = arg;
	(*opts)[(*nopts)++].value = eq + 1;
	return 0;
}

int
cli_capacity(const char *arg, uint64_t *out)
{
	char *cause = NULL;

	if (gms_parse_size(arg, out, &cause) < 0) {
		cli_error("--capacity: %s", cause);
		free(cause);
		return EXIT_INPUT;
	}
	if (*out == 0) {
		cli_error("--capacity must be above 0 (leave it out for unlimited)");
		return EXIT_INPUT;
	}
	return 0;
}

int
cli_choice(const char *opt, const char *arg, const char *const *choices, int *out)
{
	int i;

	for (i = 0; choices[i] != NULL; i++)
		if (strcmp(arg, choices[i]) == 0) {
			*out = i;
			return 0;
		}
	fprintf(stderr, "gpumemsim: error: %s must be ", opt);
	for (i = 0; choices[i] != NULL; i++)
		fprintf(stderr, "%s'%s'", i == 0 ? "" : choices[i + 1] == NULL ? " or " : ", ",
		    choices[i]);
	fprintf(stderr, ", not '%s'\n", arg);
	return EXIT_INPUT;
}

const char *const cli_formats[] = { "text", "json", NULL };
const char *const cli_placements[] = { "model", "recorded", NULL };
