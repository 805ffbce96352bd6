/*
 * policy.c - the table of policies, and finding one by name.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include "sim/gms.h"
#include "sim/policy.h"

const struct policy_ops *const policy_table[] = {
	&policy_caching,
	&policy_grow_only,
	&policy_preallocate,
	&policy_no_cache,
	&policy_ideal,
	&policy_rmm_pool,
	&policy_rmm_arena,
	&policy_rmm_binning,
	&policy_cuda_async,
	&policy_rmm_fixed,
	NULL,
};

const char *const *
policy_defaults(unsigned fw)
{
	static const char *const pytorch[] = { "caching",
	    "caching alloc_conf=expandable_segments:True", "cuda-async", "no-cache", "ideal",
	    NULL };
	static const char *const tensorflow[] = { "grow-only", "preallocate", "cuda-async",
	    "no-cache", "ideal", NULL };
	static const char *const jax[] = { "grow-only", "preallocate", "no-cache", "ideal",
	    NULL };
	static const char *const rmm[] = { "no-cache", "ideal", "rmm-pool", "rmm-arena",
	    "rmm-binning", "cuda-async", NULL };
	static const char *const unknown[] = { "caching", "grow-only", "preallocate",
	    "no-cache", "ideal", NULL };

	switch (fw) {
	case TRACE_FW_PYTORCH:
		return pytorch;
	case TRACE_FW_TENSORFLOW:
		return tensorflow;
	case TRACE_FW_JAX:
		return jax;
	case TRACE_FW_RMM:
		return rmm;
	}
	return unknown;
}

const char *
policy_default(unsigned fw)
{
	/* RMM's own default resource is cuda_memory_resource: no caching */
	return fw == TRACE_FW_RMM ? "no-cache" : "caching";
}

const struct policy_ops *
policy_find(const char *name, char **cause)
{
	const struct policy_ops *found = NULL;
	size_t i, n = strlen(name), matches = 0;
	char *list = NULL, *tmp;

	for (i = 0; policy_table[i] != NULL; i++) {
		if (strcmp(policy_table[i]->name, name) == 0)
			return policy_table[i];
		if (n > 0 && strncmp(policy_table[i]->name, name, n) == 0) {
			found = policy_table[i];
			matches++;
		}
	}
	if (matches == 1)
		return found;
	for (i = 0; policy_table[i] != NULL; i++) {
		if (matches > 1 && strncmp(policy_table[i]->name, name, n) != 0)
			continue;
		tmp = gms_asprintf("%s%s%s", list ? list : "", list ? ", " : "",
		    policy_table[i]->name);
		free(list);
		list = tmp;
	}
	if (matches > 1)
		gms_fail(cause, GMS_ECONFIG, "ambiguous policy '%s', could be: %s", name, list);
	else
		gms_fail(cause, GMS_ECONFIG, "unknown policy '%s' (known: %s)", name, list);
	free(list);
	return NULL;
}

int
policy_check_options(const struct policy_ops *ops, const struct policy_args *args,
    char **cause)
{
	const struct policy_option *o;
	char *known = NULL, *tmp;
	size_t i;
	int err;

	if (args == NULL)
		return 0;
	for (i = 0; i < args->nopts; i++) {
		for (o = ops->options; o->key != NULL; o++)
			if (strcmp(o->key, args->opts[i].key) == 0)
				break;
		if (o->key != NULL)
			continue;
		for (o = ops->options; o->key != NULL; o++) {
			tmp = gms_asprintf("%s%s%s", known ? known : "", known ? ", " : "", o->key);
			free(known);
			known = tmp;
		}
		if (known == NULL)
			err = gms_fail(cause, GMS_ECONFIG, "policy '%s' takes no options, not '%s'",
			    ops->name, args->opts[i].key);
		else
			err = gms_fail(cause, GMS_ECONFIG, "policy '%s' has no option '%s' (it has: %s)",
			    ops->name, args->opts[i].key, known);
		free(known);
		return err;
	}
	return 0;
}

char *
policy_label(const char *name, const struct policy_kv *opts, size_t nopts)
{
	char *l = gms_strdup(name), *m;
	size_t i;

	for (i = 0; i < nopts; i++) {
		m = gms_asprintf("%s %s=%s", l, opts[i].key, opts[i].value);
		free(l);
		l = m;
	}
	return l;
}

const char *
policy_column(const char *label, char *buf, size_t len)
{
	const char *k = strstr(label, " alloc_conf=");

	if (k == NULL)
		return label;
	snprintf(buf, len, "%.*s %s", (int)(k - label), label, k + strlen(" alloc_conf="));
	return buf;
}

const char *
policy_opt(const struct policy_args *args, const char *key)
{
	const char *v = NULL;
	size_t i;

	if (args == NULL)
		return NULL;
	for (i = 0; i < args->nopts; i++)
		if (strcmp(args->opts[i].key, key) == 0)
			v = args->opts[i].value;
	return v;
}

int
policy_opt_bool(const char *policy, const struct policy_args *args, const char *key,
    int *out, char **cause)
{
	static const char *const yes[] = { "on", "true", "1", "yes", NULL };
	static const char *const no[] = { "off", "false", "0", "no", NULL };
	const char *v = policy_opt(args, key);
	int i;

	if (v == NULL)
		return 0;
	for (i = 0; yes[i] != NULL; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return gms_fail(cause, GMS_ECONFIG, "%s: option %s takes on or off, not '%s'",
	    policy, key, v);
}

int
policy_opt_size(const char *policy, const struct policy_args *args, const char *key,
    uint64_t *out, char **cause)
{
	const char *v = policy_opt(args, key);
	char *why = NULL;
	int err;

	if (v == NULL)
		return 0;
	if ((err = gms_parse_size(v, out, &why)) < 0) {
		gms_fail(cause, err, "%s: option %s: %s", policy, key, why);
		free(why);
	}
	return err;
}

int
policy_opt_fraction(const char *policy, const struct policy_args *args, const char *key,
    double *out, char **cause)
{
	const char *v = policy_opt(args, key);
	char *end;
	double d;

	if (v == NULL)
		return 0;
	d = strtod(v, &end);
	if (end == v || *end != '\0' || !isfinite(d) || d <= 0 || d > 1)
		return gms_fail(cause, GMS_ECONFIG,
		    "%s: option %s takes a fraction in (0, 1], not '%s'", policy, key, v);
	*out = d;
	return 0;
}

int
policy_opt_choice(const char *policy, const struct policy_args *args, const char *key,
    const char *const *choices, int *out, char **cause)
{
	const char *v = policy_opt(args, key);
	char *list = NULL, *tmp;
	int i, err;

	if (v == NULL)
		return 0;
	for (i = 0; choices[i] != NULL; i++)
		if (strcmp(v, choices[i]) == 0) {
			*out = i;
			return 0;
		}
	for (i = 0; choices[i] != NULL; i++) {
		tmp = gms_asprintf("%s%s%s", list ? list : "", list ? " or " : "", choices[i]);
		free(list);
		list = tmp;
	}
	err = gms_fail(cause, GMS_ECONFIG, "%s: option %s takes %s, not '%s'", policy, key,
	    list, v);
	free(list);
	return err;
}

int
policy_parse_spec(const char *spec, const struct policy_ops **ops,
    struct policy_kv **opts, size_t *nopts, char **store, char **cause)
{
	char *copy = gms_strdup(spec), *p, *next, *eq;
	const char *seps = strpbrk(spec, " \t") != NULL ? " \t" : ":";
	struct policy_kv *kv = NULL;
	size_t n = 0;

	*opts = NULL;
	*nopts = 0;
	*store = NULL;
	/*
	 * "caching alloc_conf=expandable_segments:True": words, so a value may
	 * hold colons (and caching's alloc_conf may go without its key, as a
	 * table's column names it); without a blank, the older "grow-only:flavor=jax".
	 */
	p = copy + strspn(copy, seps);
	next = p + strcspn(p, seps);
	if (*next != '\0')
		*next++ = '\0';
	if ((*ops = policy_find(p, cause)) == NULL) {
		free(copy);
		return GMS_ECONFIG;
	}
	for (p = next; *(p += strspn(p, seps)) != '\0'; p = next) {
		next = p + strcspn(p, seps);
		if (*next != '\0')
			*next++ = '\0';
		eq = strchr(p, '=');
		/* "caching expandable_segments:True": a PYTORCH_CUDA_ALLOC_CONF alone */
		if (eq == NULL && seps[0] != ':' && ((*ops)->traits & POLICY_ALLOC_CONF) &&
		    strchr(p, ':') != NULL) {
			kv = gms_realloc(kv, (n + 1) * sizeof(*kv));
			kv[n].key = "alloc_conf";
			kv[n++].value = p;
			continue;
		}
		if (eq == NULL || eq == p || eq[1] == '\0') {
			gms_fail(cause, GMS_ECONFIG, "policy '%s': expected KEY=VALUE after %s, not '%s'",
			    spec, seps[0] == ':' ? "':'" : "the name", p);
			free(kv);
			free(copy);
			return GMS_ECONFIG;
		}
		*eq = '\0';
		kv = gms_realloc(kv, (n + 1) * sizeof(*kv));
		kv[n].key = p;
		kv[n++].value = eq + 1;
	}
	*opts = kv;
	*nopts = n;
	*store = copy;
	return 0;
}

int
policy_pool_sized(const struct policy_ops *ops, const struct policy_kv *opts, size_t nopts)
{
	const char *const *k;
	size_t i;

	for (k = ops->pool_keys; k != NULL && *k != NULL; k++)
		for (i = 0; i < nopts; i++)
			if (strcmp(opts[i].key, *k) == 0)
				return 1;
	return 0;
}
