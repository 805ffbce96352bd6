/*
 * words.c - the command line's words in the library's terms: the policies a
 * command runs with their settings (--policy, --policies, --option,
 * --alloc-conf), where they run (--capacity or --gpu, --placement), a fit's
 * capacity, --at's events; the GPU catalogue for --gpu=list.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"
#include "traces/trace.h"

/* Does the policy have a setting named key? */
static int
has_option(const struct policy_ops *ops, const char *key)
{
	const struct policy_option *o;

	for (o = ops->options; o->key != NULL; o++)
		if (strcmp(o->key, key) == 0)
			return 1;
	return 0;
}

static void
add_kv(struct cli_policy *e, const char *key, const char *value)
{
	e->opts = gms_realloc(e->opts, (e->nopts + 1) * sizeof(*e->opts));
	e->opts[e->nopts].key = key;
	e->opts[e->nopts++].value = value;
}

/*
 * --option and --alloc-conf for e.  With one policy every setting is its
 * (one it lacks is an error, from the policy); with several, KEY=VALUE goes
 * to those that have KEY and POLICY.KEY=VALUE to that one.
 */
static void
apply_global(struct cli_policy *e, const struct cli_args *a, int several)
{
	size_t plen = strlen(e->ops->name);
	const char *arg, *eq;
	char *key;
	int i;

	for (i = 0; i < a->given[OPT_OPTION]; i++) {
		arg = a->all[OPT_OPTION][i];
		eq = strchr(arg, '=');
		key = gms_asprintf("%.*s", (int)(eq - arg), arg);
		if (strncmp(key, e->ops->name, plen) == 0 && key[plen] == '.') {
			memmove(key, key + plen + 1, strlen(key + plen + 1) + 1);
		} else if (several && (strchr(key, '.') != NULL || !has_option(e->ops, key))) {
			free(key);
			continue;
		}
		e->keys = gms_realloc(e->keys, (e->nkeys + 1) * sizeof(*e->keys));
		e->keys[e->nkeys++] = key;
		add_kv(e, key, eq + 1);
	}
	if (a->given[OPT_ALLOC_CONF] && (!several || (e->ops->traits & POLICY_ALLOC_CONF)))
		add_kv(e, "alloc_conf", a->v[OPT_ALLOC_CONF].s);
}

/* A label from the spec: its words joined by one blank, or as written. */
static char *
label_of(const char *spec)
{
	char *s = gms_strdup(spec), *out = gms_calloc(strlen(spec) + 1, 1), *tok, *save;

	if (strpbrk(spec, " \t") == NULL) {
		free(out);
		return s;
	}
	for (tok = strtok_r(s, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		if (out[0] != '\0')
			strcat(out, " ");
		strcat(out, tok);
	}
	free(s);
	return out;
}

static int
add_spec(struct cli_policies *p, const char *opt, const char *spec)
{
	struct cli_policy *e;
	char *cause = NULL;

	p->list = gms_realloc(p->list, (p->n + 1) * sizeof(*p->list));
	e = memset(&p->list[p->n], 0, sizeof(*e));
	if (policy_parse_spec(spec, &e->ops, &e->opts, &e->nopts, &e->store, &cause) < 0) {
		cli_error("--%s: %s", opt, cause);
		free(cause);
		return EXIT_INPUT;
	}
	e->label = label_of(spec);
	p->n++;
	return 0;
}

int
cli_policies(const struct cli_args *a, enum cli_default dflt, struct cli_policies *p)
{
	unsigned fw = a->in != NULL ? a->in->framework : 0;
	const struct policy_ops *const *every;
	const char *const *set;
	size_t i;
	int rc = 0, several = (a->cmd->groups & G_POLICIES) != 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; rc == 0 && a->given[OPT_POLICIES] && i < a->v[OPT_POLICIES].nspecs; i++) {
		if (strcmp(a->v[OPT_POLICIES].specs[i], "all") != 0) {
			rc = add_spec(p, "policies", a->v[OPT_POLICIES].specs[i]);
			continue;
		}
		/* every framework's, side by side */
		for (every = policy_table; rc == 0 && *every != NULL; every++)
			rc = add_spec(p, "policies", (*every)->name);
	}
	for (i = 0; rc == 0 && i < (size_t)a->given[OPT_POLICY]; i++)
		rc = add_spec(p, "policy", a->all[OPT_POLICY][i]);
	/* none named: the trace's framework's (a recording that says its mode runs that) */
	if (rc == 0 && p->n == 0 && dflt == CLI_ONE_POLICY) {
		rc = add_spec(p, "policy", policy_default(fw));
		p->defaulted = 1;
	} else if (rc == 0 && p->n == 0) {
		for (set = policy_defaults(fw); rc == 0 && *set != NULL; set++)
			rc = add_spec(p, "policy", *set);
	}
	for (i = 0; i < p->n && rc == 0; i++)
		apply_global(&p->list[i], a, several);
	return rc;
}

void
cli_policies_free(struct cli_policies *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->list[i].label);
		free(p->list[i].store);
		free(p->list[i].opts);
		while (p->list[i].nkeys > 0)
			free(p->list[i].keys[--p->list[i].nkeys]);
		free(p->list[i].keys);
	}
	free(p->list);
	memset(p, 0, sizeof(*p));
}

void
cli_gpu_list(FILE *f)
{
	const struct gpu_model *m;

	for (m = gpu_catalogue; m->name != NULL; m++)
		fprintf(f, "%-10s %15llu B  %7.2f GiB  compute capability %d  %s\n", m->name,
		    (unsigned long long)m->total, (double)m->total / (double)GMS_GiB, m->cc, m->note);
}

uint64_t
cli_fit_capacity(const struct cli_val *v, uint64_t overhead)
{
	if (v->gpu == NULL)
		return v->size;
	return v->gpu->total > overhead ? v->gpu->total - overhead : 0;
}

int
cli_target(const struct cli_args *a, struct cli_target *t)
{
	memset(t, 0, sizeof(*t));
	t->overhead = a->v[OPT_CONTEXT_OVERHEAD].size;
	if (a->given[OPT_GPU] && a->given[OPT_CAPACITY]) {
		cli_error("give --capacity or --gpu, not both");
		return EXIT_USAGE;
	}
	if (a->given[OPT_GPU]) {
		t->model = a->v[OPT_GPU].gpu;
		if (t->overhead >= t->model->total) {
			cli_error("--context-overhead is all of the %s's memory", t->model->name);
			return EXIT_INPUT;
		}
		t->capacity = t->model->total - t->overhead;
		t->gpu_name = t->model->name;
	} else if (a->given[OPT_CAPACITY]) {
		t->capacity = a->v[OPT_CAPACITY].size;
	}
	return 0;
}

enum run_placement
cli_placement(const struct cli_args *a)
{
	/*
	 * "driver", the model's name while it was an alternative, is the model;
	 * --placements samples the model's placements; else as recorded.
	 */
	if (a->given[OPT_PLACEMENT])
		return a->v[OPT_PLACEMENT].choice == 1 ? RUN_PLACEMENT_RECORDED : RUN_PLACEMENT_MODEL;
	return a->given[OPT_PLACEMENTS] ? RUN_PLACEMENT_MODEL : RUN_PLACEMENT_AS_RECORDED;
}

int
cli_placement_usage(const struct cli_args *a)
{
	if (a->given[OPT_PLACEMENTS] && cli_placement(a) == RUN_PLACEMENT_RECORDED)
		return cli_usage_error(a->cmd, "--placements samples the placement model's "
		    "placements: it does not go with --placement=recorded");
	return 0;
}

int
cli_entry_target(const struct cli_args *a, struct entry_target *t)
{
	struct cli_target ct;
	int rc;

	if ((rc = cli_target(a, &ct)) != 0)
		return rc;
	*t = (struct entry_target){ .capacity = ct.capacity, .gpu = ct.model,
	    .placement = cli_placement(a) };
	return 0;
}

struct entry_policy
cli_entry_policy(const struct cli_policies *p, size_t i)
{
	return (struct entry_policy){ .ops = p->list[i].ops, .opts = p->list[i].opts,
	    .nopts = p->list[i].nopts, .label = p->list[i].label };
}

struct entry_policy *
cli_entry_policies(const struct cli_policies *p)
{
	struct entry_policy *e = gms_calloc(p->n + 1, sizeof(*e));
	size_t i;

	for (i = 0; i < p->n; i++)
		e[i] = cli_entry_policy(p, i);
	return e;
}

size_t
cli_events(const struct cli_args *a, uint64_t *at, size_t max)
{
	size_t i, n = (size_t)a->given[OPT_AT];

	for (i = 0; i < n && i < max; i++)
		at[i] = strtoull(a->all[OPT_AT][i], NULL, 10);
	return i;
}
