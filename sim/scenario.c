/*
 * scenario.c - share's job specs (scenario.h).  A scenario file is small and
 * read whole, parsed by cJSON; a --job is split on blanks (a trace path with
 * blanks needs a scenario file).  A key's value is kept as the text a --job
 * would carry, so both forms meet the same checks in share_job_make().
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "sim/scenario.h"
#include "sim/gms.h"
#include "sim/run.h"
#include "traces/tracemem.h"

#define MAX_SCENARIO ((size_t)16 << 20)

/* The keys a job takes besides its policy's own settings, and what each takes. */
static const struct {
	const char *key, *takes;
} job_keys[] = {
	{ "policy", NULL },
	{ "name", "a name" },
	{ "start", "a time (30s, 1.5ms, 250us, 2m) or event:N" },
	{ "repeat", "a number of passes (1 or more) or until-end" },
	{ "duration", "a time above 0 (60s, 1.5ms)" },
	{ "limit", "a size above 0 (4GiB, 4000MB)" },
	{ "fraction", "a fraction of the card above 0, at most 1" },
	{ "cc", "a compute capability major (7, 8, 9)" },
	{ "after", "exit (the process ends, its memory back) or hold (it stays alive "
	  "holding what it reserved until the scenario ends)" },
	{ "device", "a device number (0, 1, ...): the profile's or snapshot's GPU to read" },
};

/* The key's entry in job_keys, or -1 when it is not one of share's own. */
static int
job_key_index(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(job_keys); i++)
		if (strcmp(job_keys[i].key, key) == 0)
			return (int)i;
	return -1;
}

/*
 * "30s", "1.5ms", "250us", "2m", "1h", "0"; a number alone (a scenario
 * file's) is seconds.  0, or -1.
 */
static int
parse_time(const char *s, int64_t *us)
{
	static const struct { const char *unit; double us; } units[] = {
		{ "us", 1 }, { "ms", 1e3 }, { "s", 1e6 }, { "m", 60e6 }, { "min", 60e6 },
		{ "h", 3600e6 }, { "", 1e6 }, { NULL, 0 } };
	char *end;
	double v;
	int i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v >= 0) || v > 1e9)
		return -1;
	for (i = 0; units[i].unit != NULL; i++)
		if (strcmp(end, units[i].unit) == 0) {
			*us = (int64_t)(v * units[i].us + 0.5);
			return 0;
		}
	return -1;
}

static int
parse_u64(const char *s, unsigned long long max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (*end != '\0' || errno != 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static struct share_spec *
new_spec(struct share_specs *s)
{
	struct share_spec *sp;

	s->specs = gms_realloc(s->specs, (s->n + 1) * sizeof(*s->specs));
	sp = &s->specs[s->n++];
	memset(sp, 0, sizeof(*sp));
	return sp;
}

int
share_parse_job(const char *text, int n, struct share_specs *s, char **cause)
{
	struct share_spec *js = new_spec(s);
	char *save, *tok, *eq;
	size_t cap = 8;

	js->where = gms_asprintf("--job %d", n);
	js->store = gms_strdup(text);
	js->keys = gms_calloc(cap, sizeof(*js->keys));
	js->vals = gms_calloc(cap, sizeof(*js->vals));
	if ((tok = strtok_r(js->store, " \t", &save)) == NULL)
		return gms_fail(cause, GMS_ECONFIG, "%s: no trace (write the trace first, then "
		    "key=value settings)", js->where);
	js->path = tok;
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
		if ((eq = strchr(tok, '=')) == NULL || eq == tok)
			return gms_fail(cause, GMS_ECONFIG, "%s: '%s' is not key=value (one trace per "
			    "--job, then its settings)", js->where, tok);
		*eq = '\0';
		if (js->n == cap) {
			cap *= 2;
			js->keys = gms_realloc(js->keys, cap * sizeof(*js->keys));
			js->vals = gms_realloc(js->vals, cap * sizeof(*js->vals));
		}
		js->keys[js->n] = tok;
		js->vals[js->n++] = eq + 1;
	}
	return 0;
}

/* A value as the string a --job would carry: strings as they are, numbers printed. */
static const char *
value_text(const cJSON *v, char *buf, size_t len)
{
	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsNumber(v)) {
		snprintf(buf, len, "%.17g", v->valuedouble);
		return buf;
	}
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? "on" : "off";
	return NULL;
}

/* One job object of a scenario (its traces relative to dir). */
static int
scenario_job(const cJSON *j, const char *where, const char *dir, struct share_specs *s,
    char **cause)
{
	const cJSON *tr = cJSON_GetObjectItemCaseSensitive(j, "trace"), *it;
	struct share_spec *js;
	size_t nk = 0, used, total = 0;
	const char *text;
	char buf[64];

	if (!cJSON_IsObject(j) || !cJSON_IsString(tr) || tr->valuestring[0] == '\0')
		return gms_fail(cause, GMS_ECONFIG, "%s: a job is an object with \"trace\" (a path) "
		    "and its settings", where);
	for (it = j->child; it != NULL; it = it->next) {
		if ((text = value_text(it, buf, sizeof(buf))) == NULL)
			return gms_fail(cause, GMS_ECONFIG, "%s: \"%s\" is not a string, number or "
			    "boolean", where, it->string);
		total += strlen(it->string) + strlen(text) + 2;
		nk++;
	}
	js = new_spec(s);
	js->where = gms_strdup(where);
	total += strlen(dir) + strlen(tr->valuestring) + 1;
	js->store = gms_malloc(total);
	js->keys = gms_calloc(nk, sizeof(*js->keys));
	js->vals = gms_calloc(nk, sizeof(*js->vals));
	js->path = js->store;
	used = (size_t)snprintf(js->store, total, "%s%s", tr->valuestring[0] == '/' ? "" : dir,
	    tr->valuestring) + 1;
	for (it = j->child; it != NULL; it = it->next) {
		if (strcmp(it->string, "trace") == 0)
			continue;
		text = value_text(it, buf, sizeof(buf));
		js->keys[js->n] = js->store + used;
		used += (size_t)snprintf(js->store + used, total - used, "%s", it->string) + 1;
		js->vals[js->n++] = js->store + used;
		used += (size_t)snprintf(js->store + used, total - used, "%s", text) + 1;
	}
	return 0;
}

int
share_parse_scenario(const char *text, size_t len, const char *path, struct share_specs *s,
    char **cause)
{
	char *buf = gms_malloc(len + 1), *dir = NULL, *slash, where[512], tmp[64];
	const char *v, *end = NULL;
	unsigned long line, col;
	cJSON *doc, *jobs, *j, *it;
	char *why = NULL;
	size_t i;
	int err = GMS_ECONFIG;

	memcpy(buf, text, len);
	buf[len] = '\0';
	if (memchr(text, '\0', len) != NULL) {
		free(buf);
		return gms_fail(cause, GMS_ECONFIG, "%s: a NUL byte: not a scenario", path);
	}
	if ((doc = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1)) == NULL) {
		end = cJSON_GetErrorPtr();
		trace_line_col(buf, end && end >= buf && end <= buf + len ? (size_t)(end - buf) : 0,
		    &line, &col);
		free(buf);
		return gms_fail(cause, GMS_ECONFIG, "%s:%lu:%lu: invalid JSON", path, line, col);
	}
	if (!cJSON_IsObject(doc)) {
		gms_fail(cause, err, "%s: a scenario is a JSON object with \"jobs\"", path);
		goto out;
	}
	for (it = doc->child; it != NULL; it = it->next)
		if (strcmp(it->string, "jobs") != 0 && strcmp(it->string, "gpu") != 0 &&
		    strcmp(it->string, "capacity") != 0 &&
		    strcmp(it->string, "context_overhead") != 0) {
			gms_fail(cause, err, "%s: unknown key \"%s\" (a scenario has: jobs, gpu, "
			    "capacity, context_overhead)", path, it->string);
			goto out;
		}
	if ((it = cJSON_GetObjectItemCaseSensitive(doc, "gpu")) != NULL) {
		if (!cJSON_IsString(it)) {
			gms_fail(cause, err, "%s: \"gpu\" is not a string (a model: H200, A100-80GB)",
			    path);
			goto out;
		}
		free(s->gpu);
		s->gpu = gms_strdup(it->valuestring);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(doc, "capacity")) != NULL &&
	    ((v = value_text(it, tmp, sizeof(tmp))) == NULL ||
	    gms_parse_size(v, &s->total, &why) < 0 || s->total == 0)) {
		gms_fail(cause, err, "%s: \"capacity\" is not a size above 0 (80GiB)%s%s", path,
		    why ? ": " : "", why ? why : "");
		goto out;
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(doc, "context_overhead")) != NULL) {
		if ((v = value_text(it, tmp, sizeof(tmp))) == NULL ||
		    gms_parse_size(v, &s->context, &why) < 0) {
			gms_fail(cause, err, "%s: \"context_overhead\" is not a size (512MiB)%s%s",
			    path, why ? ": " : "", why ? why : "");
			goto out;
		}
		s->has_context = 1;
	}
	jobs = cJSON_GetObjectItemCaseSensitive(doc, "jobs");
	if (!cJSON_IsArray(jobs) || cJSON_GetArraySize(jobs) == 0) {
		gms_fail(cause, err, "%s: \"jobs\" must be an array of jobs, each {\"trace\": ..., "
		    "...}", path);
		goto out;
	}
	/* traces named relative to the scenario's directory */
	dir = gms_strdup(path);
	if ((slash = strrchr(dir, '/')) != NULL)
		slash[1] = '\0';
	else
		dir[0] = '\0';
	for (j = jobs->child, i = 0; j != NULL; j = j->next, i++) {
		snprintf(where, sizeof(where), "%s: jobs[%zu]", path, i);
		if ((err = scenario_job(j, where, dir, s, cause)) < 0)
			goto out;
	}
	err = 0;
out:
	free(why);
	free(dir);
	cJSON_Delete(doc);
	free(buf);
	return err;
}

int
share_read_scenario(const char *path, struct share_specs *s, char **cause)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, n;
	int err;

	if (f == NULL)
		return gms_fail(cause, GMS_EIO, "cannot open scenario '%s': %s", path,
		    strerror(errno));
	buf = gms_malloc(MAX_SCENARIO + 1);
	while ((n = fread(buf + len, 1, MAX_SCENARIO + 1 - len, f)) > 0 && len + n <= MAX_SCENARIO)
		len += n;
	if (ferror(f)) {
		err = gms_fail(cause, GMS_EIO, "cannot read scenario '%s': %s", path,
		    strerror(errno));
	} else if (n > 0) {
		err = gms_fail(cause, GMS_ECONFIG, "%s: a scenario above 16 MiB is not a scenario",
		    path);
	} else {
		err = share_parse_scenario(buf, len, path, s, cause);
	}
	fclose(f);
	free(buf);
	return err;
}

void
share_specs_free(struct share_specs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->specs[i].where);
		free(s->specs[i].store);
		free(s->specs[i].keys);
		free(s->specs[i].vals);
	}
	free(s->specs);
	free(s->gpu);
	memset(s, 0, sizeof(*s));
}

/* --- a job from its spec --------------------------------------------------- */

/* The policy and its settings from a spec's keys into j (label and options). */
static int
job_policy(const struct share_spec *js, struct share_job *j, char **cause)
{
	const char *name = "caching";
	char *why = NULL;
	size_t i, n = 0;
	struct policy_args args;
	int err;

	for (i = 0; i < js->n; i++)
		if (strcmp(js->keys[i], "policy") == 0)
			name = js->vals[i];
	if ((j->ops = policy_find(name, &why)) == NULL) {
		err = gms_fail(cause, GMS_ECONFIG, "%s: %s", js->where, why);
		free(why);
		return err;
	}
	j->opts = gms_calloc(js->n + 1, sizeof(*j->opts));
	for (i = 0; i < js->n; i++) {
		if (job_key_index(js->keys[i]) >= 0)
			continue;
		j->opts[n++] = (struct policy_kv){ js->keys[i], js->vals[i] };
	}
	j->nopts = n;
	args = (struct policy_args){ .opts = j->opts, .nopts = n };
	if ((err = policy_check_options(j->ops, &args, &why)) < 0) {
		char keys[256] = "";

		for (i = 0; i < ARRAY_SIZE(job_keys); i++)
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
			    i ? ", " : "", job_keys[i].key);
		err = gms_fail(cause, GMS_ECONFIG, "%s: %s (a job also takes: %s)", js->where, why,
		    keys);
		free(why);
		return err;
	}
	j->label = policy_label(j->ops->name, j->opts, n);
	return 0;
}

/* One of share's own keys into j: 0, 1 when the value is bad, or an error. */
static int
job_key(const struct share_spec *js, const char *k, const char *val, struct share_job *j,
    char **cause)
{
	char *why = NULL, *end;
	uint64_t v;

	if (strcmp(k, "name") == 0) {
		if (val[0] == '\0')
			return 1;
		free(j->name);
		j->name = gms_strdup(val);
	} else if (strcmp(k, "start") == 0) {
		if (strncmp(val, "event:", 6) == 0) {
			if (parse_u64(val + 6, (1ULL << 53) - 1, &j->start_event) < 0)
				return 1;
			j->start_is_event = 1;
		} else if (parse_time(val, &j->start_us) < 0) {
			return 1;
		}
	} else if (strcmp(k, "repeat") == 0) {
		if (strcmp(val, "until-end") == 0)
			j->repeat = 0;
		else if (parse_u64(val, 1000000, &j->repeat) < 0 || j->repeat == 0)
			return 1;
	} else if (strcmp(k, "duration") == 0) {
		if (parse_time(val, &j->duration_us) < 0 || j->duration_us == 0)
			return 1;
	} else if (strcmp(k, "limit") == 0) {
		if (!(j->ops->traits & POLICY_BFC))
			return gms_fail(cause, GMS_ECONFIG, "%s: limit= is BFC's memory_limit "
			    "(grow-only, preallocate); for caching give fraction= "
			    "(set_per_process_memory_fraction)", js->where);
		if (gms_parse_size(val, &j->limit, &why) < 0 || j->limit == 0) {
			int err;

			if (why == NULL)
				return 1;
			err = gms_fail(cause, GMS_ECONFIG, "%s: limit= %s", js->where, why);
			free(why);
			return err;
		}
	} else if (strcmp(k, "fraction") == 0) {
		errno = 0;
		j->fraction = strtod(val, &end);
		if (end == val || *end != '\0' || errno != 0 || !(j->fraction > 0) || j->fraction > 1)
			return 1;
		if (!(j->ops->traits & (POLICY_ALLOC_CONF | POLICY_BFC)))
			return gms_fail(cause, GMS_ECONFIG, "%s: fraction= is a framework's limit; "
			    "%s has none", js->where, j->ops->name);
	} else if (strcmp(k, "after") == 0) {
		if (strcmp(val, "hold") == 0)
			j->hold = 1;
		else if (strcmp(val, "exit") == 0)
			j->hold = 0;
		else
			return 1;
	} else if (strcmp(k, "cc") == 0) {
		if (parse_u64(val, 20, &v) < 0 || v < 3)
			return 1;
		j->cc = (int)v;
	} else if (strcmp(k, "device") == 0) {
		if (parse_u64(val, 1023, &v) < 0)
			return 1;
		j->device = (int)v;
	}
	return 0;
}

/*
 * A TensorFlow or JAX profile whose spec names no policy is the job it
 * recorded: its allocator's mode (preallocate where the profile does not
 * show it, the frameworks' default), its flavor, and for JAX the fraction of
 * the card its limit was (XLA_PYTHON_CLIENT_MEM_FRACTION, read to 3 places
 * from the limit and the card's memory).  One that names a BFC mode keeps
 * the recording's flavor and fraction unless it gives its own.
 */
static void
recorded_job(const struct share_spec *js, struct share_job *j)
{
	const struct trace_header *h = trace_mem_header(j->mem);
	struct policy_args args = { .opts = j->opts, .nopts = j->nopts };
	const char *mode, *fw;
	uint64_t limit;
	double f;
	size_t i;
	int named = 0;

	for (i = 0; i < js->n; i++)
		named |= strcmp(js->keys[i], "policy") == 0;
	if (!run_recorded_bfc(h, &mode, &fw, &limit))
		return;
	if (named && !(j->ops->traits & POLICY_BFC))
		return;
	/* a BFC mode named without its flavor is still the recording framework's */
	if (!named)
		j->ops = mode && strcmp(mode, "grow-only") == 0 ? &policy_grow_only :
		    &policy_preallocate;
	if (policy_opt(&args, "flavor") == NULL)
		j->opts[j->nopts++] = (struct policy_kv){ "flavor", fw };
	args = (struct policy_args){ .opts = j->opts, .nopts = j->nopts };
	if (strcmp(fw, "jax") == 0 && strcmp(policy_opt(&args, "flavor"), "jax") == 0 &&
	    j->limit == 0 && j->fraction == 0 && h->device_total > 0) {
		f = floor((double)limit / (double)h->device_total * 1000.0 + 0.5) / 1000.0;
		if (f > 0 && f <= 1)
			j->fraction = f;
	}
	free(j->label);
	j->label = policy_label(j->ops->name, j->opts, j->nopts);
}

int
share_job_make(const struct share_spec *js, const struct trace_opts *topts, int load,
    struct share_job *j, char **cause)
{
	const char *slash;
	char *dot;
	struct trace_mem *m;
	size_t i;
	int err;

	memset(j, 0, sizeof(*j));
	j->path = gms_strdup(js->path);
	j->repeat = 1;
	j->device = -1;
	if ((err = job_policy(js, j, cause)) < 0)
		return err;
	for (i = 0; i < js->n; i++) {
		if ((err = job_key(js, js->keys[i], js->vals[i], j, cause)) < 0)
			return err;
		if (err > 0)
			return gms_fail(cause, GMS_ECONFIG, "%s: %s='%s' is not %s", js->where,
			    js->keys[i], js->vals[i], job_keys[job_key_index(js->keys[i])].takes);
	}
	if (j->name == NULL) {
		slash = strrchr(j->path, '/');
		j->name = gms_strdup(slash ? slash + 1 : j->path);
		if ((dot = strchr(j->name, '.')) != NULL && dot != j->name)
			*dot = '\0';
		if (j->name[0] == '\0') {	/* "dir/": no file name to take */
			free(j->name);
			j->name = gms_strdup(j->path);
		}
	}
	if (load) {
		char *why = NULL;

		/* the job's own device=, else the command's --device */
		struct trace_opts own = topts ? *topts : (struct trace_opts){ .device = -1 };

		if (j->device >= 0)
			own.device = j->device;
		if ((err = trace_mem_load(j->path, &own, &m, &why)) < 0) {
			err = gms_fail(cause, err, "%s: %s", js->where, why);
			free(why);
			return err;
		}
		j->mem = m;
		recorded_job(js, j);
	}
	return 0;
}

void
share_job_free(struct share_job *j)
{
	free(j->name);
	free(j->path);
	free(j->label);
	free(j->opts);
	trace_mem_free((struct trace_mem *)j->mem);
	memset(j, 0, sizeof(*j));
}
