/*
 * cli.c - what the commands share: git-style messages, and parsing the
 * options several commands take (--capacity, --placement, --format,
 * --option).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "sim/cli.h"
#include "sim/gms.h"
#include "sim/outfile.h"
#include "sim/gpus.h"
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

int
cli_count(const char *opt, const char *arg, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno != 0 || *arg == '\0' || *end != '\0' || *out < 1 || *out > max) {
		cli_error("%s takes a number from 1 to %ld, not '%s'", opt, max, arg);
		return EXIT_INPUT;
	}
	return 0;
}

int
cli_bad_option(const char *cmd, const char *usage, int ch, char **argv)
{
	return cli_usage_error(cmd, usage, ch == ':' ? "option '%s' needs a value" :
	    "unknown option '%s'", argv[optind - 1]);
}

int
cli_one_trace(const char *cmd, const char *usage, int argc)
{
	return cli_usage_error(cmd, usage, optind == argc ? "no trace given" :
	    "more than one trace given");
}

int
cli_target_opt(struct cli_target *t, int ch, const char *arg)
{
	char *cause = NULL;

	switch (ch) {
	case 'c':
		return cli_capacity(arg, &t->capacity);
	case 'g':
		t->gpu = arg;
		return 0;
	default:
		if (gms_parse_size(arg, &t->overhead, &cause) < 0) {
			cli_error("--context-overhead: %s", cause);
			free(cause);
			return EXIT_INPUT;
		}
		return 0;
	}
}

int
cli_target(struct cli_target *t, const char **gpu_name, uint64_t *capacity)
{
	char *cause = NULL;

	if (t->gpu != NULL && t->capacity != 0) {
		cli_error("give --capacity or --gpu, not both");
		return EXIT_USAGE;
	}
	if (t->gpu != NULL) {
		if ((t->model = gpu_find(t->gpu, &cause)) == NULL) {
			cli_error("--gpu: %s", cause);
			free(cause);
			return EXIT_INPUT;
		}
		if (t->overhead >= t->model->total) {
			cli_error("--context-overhead is all of the %s's memory", t->model->name);
			return EXIT_INPUT;
		}
		*capacity = t->model->total - t->overhead;
	} else {
		*capacity = t->capacity;
	}
	if (gpu_name != NULL)
		*gpu_name = t->model ? t->model->name : NULL;
	return 0;
}

int
write_timeline(const char *path, const char *input, struct timeline *const *tls,
    const char *const *labels, size_t n)
{
	struct outfile o;
	char *cause = NULL;
	FILE *f = stdout;
	int err;

	if (strcmp(path, "-") != 0) {
		if ((err = outfile_open(path, &input, 1, &o, &cause)) < 0) {
			cli_error("%s", cause);
			free(cause);
			return gms_exit_code(err);
		}
		if ((f = fdopen(o.fd, "w")) == NULL) {
			cli_error("cannot write '%s': %s", path, strerror(errno));
			outfile_abort(&o);
			return EXIT_SYSTEM;
		}
		o.fd = -1;	/* the stream owns it now */
	}
	if (timeline_write_csv(f, tls, labels, n) < 0 || fflush(f) != 0 || ferror(f) ||
	    (f != stdout && fclose(f) != 0)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		if (f != stdout)
			outfile_abort(&o);
		return EXIT_SYSTEM;
	}
	if (f != stdout && (err = outfile_commit(&o, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		return gms_exit_code(err);
	}
	return 0;
}

/* Does the policy have an option named key? */
static int
has_option(const struct policy_ops *ops, const char *key)
{
	const struct policy_option *o;

	for (o = ops->options; o->key != NULL; o++)
		if (strcmp(o->key, key) == 0)
			return 1;
	return 0;
}

/* Add the --option values that apply to e: KEY=VALUE where it has KEY, POLICY.KEY=VALUE. */
static void
apply_global(struct cli_entry *e, const struct policy_kv *g, size_t ng)
{
	size_t i, plen = strlen(e->ops->name);
	const char *key;

	for (i = 0; i < ng; i++) {
		key = g[i].key;
		if (strncmp(key, e->ops->name, plen) == 0 && key[plen] == '.')
			key += plen + 1;
		else if (strchr(key, '.') != NULL || !has_option(e->ops, key))
			continue;
		e->opts = gms_realloc(e->opts, (e->nopts + 1) * sizeof(*e->opts));
		e->opts[e->nopts].key = key;
		e->opts[e->nopts++].value = g[i].value;
	}
}


void
cli_add_kv(struct policy_kv **opts, size_t *nopts, const char *key, const char *value)
{
	*opts = gms_realloc(*opts, (*nopts + 1) * sizeof(**opts));
	(*opts)[*nopts].key = key;
	(*opts)[(*nopts)++].value = value;
}

int
cli_policies_parse(struct cli_policies *p)
{
	char *copy, *tok, *save, *cause = NULL;
	size_t i;
	int rc = 0;

	if (p->list == NULL) {
		for (i = 0; policy_table[i] != NULL; i++) {
			p->ents = gms_realloc(p->ents, (p->n + 1) * sizeof(*p->ents));
			p->ents[p->n++] = (struct cli_entry){ .ops = policy_table[i],
			    .label = gms_strdup(policy_table[i]->name) };
		}
	} else {
		copy = gms_strdup(p->list);
		for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
			p->ents = gms_realloc(p->ents, (p->n + 1) * sizeof(*p->ents));
			memset(&p->ents[p->n], 0, sizeof(p->ents[0]));
			if (policy_parse_spec(tok, &p->ents[p->n].ops, &p->ents[p->n].opts,
			    &p->ents[p->n].nopts, &p->ents[p->n].store, &cause) < 0) {
				cli_error("--policies: %s", cause);
				free(cause);
				rc = EXIT_INPUT;
				break;
			}
			p->ents[p->n++].label = gms_strdup(tok);
		}
		free(copy);
		if (p->n == 0 && rc == 0) {
			cli_error("--policies: no policy named");
			rc = EXIT_INPUT;
		}
	}
	for (i = 0; i < p->n && rc == 0; i++)
		apply_global(&p->ents[i], p->global, p->nglobal);
	return rc;
}

void
cli_policies_free(struct cli_policies *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->ents[i].label);
		free(p->ents[i].store);
		free(p->ents[i].opts);
	}
	free(p->ents);
	free(p->global);
	memset(p, 0, sizeof(*p));
}
