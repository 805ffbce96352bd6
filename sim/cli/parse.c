/*
 * parse.c - the one option parser: getopt_long's tables built from a
 * command's entry in table.c, and every value checked by its grammar (sizes,
 * ratios, counts, choices, policy specs) before the command runs, so a value
 * means the same and is refused the same way in every command.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"

static const char *const *
choices_of(const struct cli_command *c, enum cli_opt id)
{
	const struct cli_use *u = cli_use_of(c, id);

	return u != NULL && u->choices != NULL ? u->choices : cli_optdefs[id].choices;
}

/* Whether the command's --at is a recording's value (scale's), not an event. */
static int
at_is_value(const struct cli_command *c)
{
	const struct cli_use *u = cli_use_of(c, OPT_AT);

	if (u == NULL)
		return (c->groups & G_SCALED) != 0;
	return (u->kinds ? u->kinds : c->inputs) == INPUTS_SCALED;
}

/*
 * A ratio: "0.2" or "20%".  A bare number above 1 could be either a fraction
 * or a percent (--max-overhead=20 once meant 2000%), so it is refused.
 */
static int
parse_ratio(const char *opt, const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || !isfinite(v) || v < 0 || isspace((unsigned char)*arg) ||
	    (*end != '\0' && strcmp(end, "%") != 0)) {
		cli_error("--%s takes a ratio: 0.2 or 20%%, not '%s'", opt, arg);
		return EXIT_INPUT;
	}
	if (*end == '%') {
		*out = v / 100.0;
		return 0;
	}
	if (v > 1) {
		cli_error("--%s=%s is ambiguous: write %s%% for a percentage, or a fraction "
		    "from 0 to 1", opt, arg, arg);
		return EXIT_INPUT;
	}
	*out = v;
	return 0;
}

static int
parse_number(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi,
    unsigned long long *out)
{
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)arg[0]))
		goto bad;
	*out = strtoull(arg, &end, 10);
	if (errno != 0 || *end != '\0' || *out < lo || *out > hi)
		goto bad;
	return 0;
bad:
	if (strcmp(opt, "device") == 0 || strcmp(opt, "cuda-device") == 0)
		cli_error("--%s takes a device number, not '%s'", opt, arg);
	else if (strcmp(opt, "at") == 0)
		cli_error("--at takes an event number (0-based), not '%s'", arg);
	else if (strcmp(opt, "at (a value)") == 0)
		cli_error("--at takes the value a recording was made at (a whole number: the "
		    "batch, the sequence length), not '%s'", arg);
	else
		cli_error("--%s takes a number from %llu to %llu, not '%s'", opt, lo, hi, arg);
	return EXIT_INPUT;
}

static int
parse_choice(const char *opt, const char *arg, const char *const *choices, int *out)
{
	int i;

	for (i = 0; choices[i] != NULL; i++)
		if (strcmp(arg, choices[i]) == 0) {
			*out = i;
			return 0;
		}
	fprintf(stderr, "gpumemsim: error: --%s must be ", opt);
	for (i = 0; choices[i] != NULL; i++)
		fprintf(stderr, "%s'%s'", i == 0 ? "" : choices[i + 1] == NULL ? " or " : ", ",
		    choices[i]);
	fprintf(stderr, ", not '%s'\n", arg);
	return EXIT_INPUT;
}

static void
val_free(struct cli_val *v)
{
	free(v->own);
	free(v->gpus);
	free(v->words);
	free(v->specs);
	memset(v, 0, sizeof(*v));
}

/*
 * A GPU or a size, as --must-fit takes it: a number is a size (and its
 * error, not an unknown GPU's), anything else a catalogued model.
 */
static int
parse_fit(const struct cli_optdef *d, const char *arg, struct cli_val *v)
{
	char *cause = NULL;

	if (gms_parse_size(arg, &v->size, &cause) == 0 && v->size != 0)
		return 0;
	if (isdigit((unsigned char)arg[0]) && cause != NULL) {
		cli_error("--%s: %s", d->name, cause);
		free(cause);
		return EXIT_INPUT;
	}
	free(cause);
	cause = NULL;
	if ((v->gpu = gpu_find(arg, &cause)) == NULL) {
		cli_error("--%s takes a size or a GPU model: %s", d->name, cause);
		free(cause);
		return EXIT_INPUT;
	}
	return 0;
}

/* A comma-separated list into v->words, split in place: its words, or -1 when none. */
static size_t
split_list(const char *arg, struct cli_val *v, char ***words)
{
	char *tok, *save;
	size_t n = 0;

	v->words = gms_strdup(arg);
	*words = gms_calloc(strlen(arg) / 2 + 2, sizeof(**words));
	for (tok = strtok_r(v->words, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save))
		(*words)[n++] = tok;
	return n;
}

/* --gpus: catalogued models or sizes, at most CLI_GPUS_MAX. */
static int
parse_gpus(const struct cli_optdef *d, const char *arg, struct cli_val *v)
{
	char **w, *cause = NULL;
	size_t n = split_list(arg, v, &w), i;

	v->gpus = gms_calloc(CLI_GPUS_MAX, sizeof(*v->gpus));
	v->own = gms_calloc(CLI_GPUS_MAX, sizeof(*v->own));
	for (i = 0; i < n && v->ngpus < CLI_GPUS_MAX; i++) {
		if ((v->gpus[v->ngpus] = gpu_parse(w[i], &v->own[v->ngpus], &cause)) == NULL) {
			cli_error("--%s: %s", d->name, cause);
			free(cause);
			free(w);
			return EXIT_INPUT;
		}
		v->ngpus++;
	}
	free(w);
	return 0;
}

/* --policies: each spec checked as --policy checks it; "all" is every policy. */
static int
parse_policies(const struct cli_optdef *d, const char *arg, struct cli_val *v)
{
	const struct policy_ops *ops;
	struct policy_kv *kv = NULL;
	char **w, *cause = NULL, *store = NULL;
	size_t n = split_list(arg, v, &w), i, nkv = 0;
	int err;

	v->specs = (const char **)w;
	v->nspecs = n;
	if (n == 0) {
		cli_error("--%s: no policy named", d->name);
		return EXIT_INPUT;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(w[i], "all") == 0)
			continue;	/* every policy (cli_policies) */
		err = policy_parse_spec(w[i], &ops, &kv, &nkv, &store, &cause);
		free(kv);
		free(store);
		if (err < 0) {
			cli_error("--%s: %s", d->name, cause);
			free(cause);
			return EXIT_INPUT;
		}
	}
	return 0;
}

/* "gc=false" given to -o: the letter once meant --option in some commands. */
static int
looks_like_setting(const char *s)
{
	const char *p = s;

	if (!(isalpha((unsigned char)*p) || *p == '_'))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-')
		p++;
	return *p == '=' && strchr(s, '/') == NULL;
}

static int
check_value(const struct cli_command *c, const struct cli_optdef *d, const char *arg,
    struct cli_val *v, int letter)
{
	struct policy_kv *kv = NULL;
	const struct policy_ops *ops;
	char *cause = NULL, *store = NULL;
	size_t nkv = 0;
	int err;

	v->s = arg;
	switch (d->kind) {
	case K_FLAG:
	case K_STRING:
		return 0;
	case K_FILE:
		if (d->id == OPT_OUTPUT && letter && looks_like_setting(arg)) {
			cli_error("-o is --output, the file to write; '%s' looks like a policy "
			    "setting: give --option=%s (or --output=./%s for a file of that "
			    "name)", arg, arg, arg);
			return EXIT_USAGE;
		}
		if (arg[0] == '\0') {
			cli_error("--%s: an empty file name", d->name);
			return EXIT_INPUT;
		}
		return 0;
	case K_SIZE:
	case K_SIZE0:
		if (gms_parse_size(arg, &v->size, &cause) < 0) {
			cli_error("--%s: %s", d->name, cause);
			free(cause);
			return EXIT_INPUT;
		}
		if (d->kind == K_SIZE && v->size == 0) {
			cli_error("--%s must be above 0 (leave it out for unlimited)", d->name);
			return EXIT_INPUT;
		}
		return 0;
	case K_RATIO:
		return parse_ratio(d->name, arg, &v->ratio);
	case K_COUNT:
		return parse_number(d->name, arg, 1, d->max, &v->n);
	case K_INDEX:
		if (d->id == OPT_AT && at_is_value(c))
			return parse_number("at (a value)", arg, 0, d->max, &v->n);
		return parse_number(d->name, arg, 0, d->max, &v->n);
	case K_CHOICE:
		return parse_choice(d->name, arg, choices_of(c, d->id), &v->choice);
	case K_THREADS:
		return parse_number(d->name, arg, 1, d->max, &v->n);
	case K_GPU:
		if (strcasecmp(arg, "list") == 0)	/* answered alone, as --help is */
			return 0;
		v->own = gms_calloc(1, sizeof(*v->own));
		if ((v->gpu = gpu_parse(arg, v->own, &cause)) == NULL) {
			cli_error("--%s: %s", d->name, cause);
			free(cause);
			return EXIT_INPUT;
		}
		return 0;
	case K_GPUS:
		return parse_gpus(d, arg, v);
	case K_FIT:
		return parse_fit(d, arg, v);
	case K_POLICIES:
		return parse_policies(d, arg, v);
	case K_POLICY:
		err = policy_parse_spec(arg, &ops, &kv, &nkv, &store, &cause);
		free(kv);
		free(store);
		if (err < 0) {
			cli_error("%s", cause);
			free(cause);
			return EXIT_INPUT;
		}
		return 0;
	case K_KV:
		if (strchr(arg, '=') == NULL || arg[0] == '=' || strchr(arg, '=')[1] == '\0') {
			cli_error("--%s takes KEY=VALUE, not '%s'", d->name, arg);
			return EXIT_INPUT;
		}
		return 0;
	}
	return 0;
}

/* An option the command does not take, and the one of its own it is a slip for. */
static int
unknown(const struct cli_command *c, const char *arg)
{
	const char *names[OPT__N], *near = NULL;
	size_t n = 0;
	int id;

	for (id = 1; id < OPT__N; id++)
		if (cli_takes(c, id))
			names[n++] = cli_optdefs[id].name;
	if (strncmp(arg, "--", 2) == 0)
		near = cli_nearest(arg + 2, strcspn(arg + 2, "="), names, n);
	if (near != NULL)
		return cli_usage_error(c, "unknown option '%s' (did you mean --%s?)", arg, near);
	return cli_usage_error(c, "unknown option '%s'", arg);
}

/*
 * getopt_long takes a unique prefix of a long option; but a prefix that is
 * another option's whole name (plan --gpu, for --gpus) means that option
 * everywhere else, so it is refused here rather than taken as this one.
 */
static int
exact_name(const struct cli_command *c, const char *arg, int id)
{
	size_t n;
	int o;

	if (strncmp(arg, "--", 2) != 0)
		return 0;
	arg += 2;
	n = strcspn(arg, "=");
	if (n == strlen(cli_optdefs[id].name))
		return 0;
	for (o = 1; o < OPT__N; o++)
		if (strlen(cli_optdefs[o].name) == n && strncmp(cli_optdefs[o].name, arg, n) == 0)
			return unknown(c, arg - 2);
	return 0;
}

/* Every option the command takes and was not given: its default, parsed as if given. */
static int
apply_defaults(const struct cli_command *c, struct cli_args *a)
{
	const char *dflt;
	int id;

	for (id = 1; id < OPT__N; id++) {
		if (a->given[id] || !cli_takes(c, id))
			continue;
		if (cli_optdefs[id].kind == K_THREADS) {
			a->v[id].n = (unsigned long long)batch_default_threads();
			continue;
		}
		if ((dflt = cli_default_of(c, id)) == NULL)
			continue;
		if (check_value(c, &cli_optdefs[id], dflt, &a->v[id], 0) != 0) {
			cli_error("--%s: the table's default '%s' is not a value of it (a bug)",
			    cli_optdefs[id].name, dflt);
			return EXIT_BUG;
		}
	}
	return 0;
}

int
cli_parse(const struct cli_command *c, int argc, char **argv, struct cli_args *a)
{
	struct option longopts[OPT__N + 1];
	char optstring[2 * OPT__N + 2], *s = optstring;
	const struct cli_optdef *d;
	int n = 0, id, ch, rc, letter;

	memset(a, 0, sizeof(*a));
	a->cmd = c;
	a->report = stdout;
	*s++ = ':';
	for (id = 1; id < OPT__N; id++) {
		d = &cli_optdefs[id];
		if (!cli_takes(c, id))
			continue;
		longopts[n++] = (struct option){ d->name, d->arg ? required_argument : no_argument,
		    NULL, 256 + id };
		if (d->letter) {
			*s++ = (char)d->letter;
			if (d->arg)
				*s++ = ':';
		}
	}
	*s = '\0';
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		if (ch == ':')
			return cli_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
		letter = ch < 256;
		if (ch == '?' || ch == 0)
			return unknown(c, optopt && optopt < 256 ?
			    (char[3]){ '-', (char)optopt, 0 } : argv[optind - 1]);
		if (letter) {
			for (id = 1; id < OPT__N; id++)
				if (cli_optdefs[id].letter == ch && cli_takes(c, id))
					break;
		} else {
			id = ch - 256;
			if ((rc = exact_name(c, argv[optind - 1], id)) != 0)
				return rc;
		}
		d = &cli_optdefs[id];
		if (id == OPT_HELP) {
			cli_help(stdout, c);
			return EXIT_DONE;
		}
		val_free(&a->v[id]);
		if ((rc = check_value(c, d, optarg ? optarg : "", &a->v[id], letter)) != 0)
			return rc;
		a->given[id]++;
		if (id == OPT_POLICY && a->given[id] > 1 && !(c->groups & G_POLICIES))
			return cli_usage_error(c, "%s runs one policy: give --policy once "
			    "(compare, check, plot and plan take several)", c->name);
		if (d->repeat) {
			a->all[id] = gms_realloc(a->all[id], a->given[id] * sizeof(*a->all[id]));
			a->all[id][a->given[id] - 1] = optarg;
		}
	}
	a->argc = argc - optind;
	a->argv = argv + optind;
	if ((rc = apply_defaults(c, a)) != 0)
		return rc;
	/* --gpu=list answers alone, as --help does */
	if (a->given[OPT_GPU] && strcasecmp(a->v[OPT_GPU].s, "list") == 0) {
		cli_gpu_list(stdout);
		return EXIT_DONE;
	}
	if (a->given[OPT_QUIET])
		cli_quiet = 1;
	return -1;
}

void
cli_args_free(struct cli_args *a)
{
	int id;

	for (id = 0; id < OPT__N; id++) {
		free(a->all[id]);
		val_free(&a->v[id]);
	}
}
