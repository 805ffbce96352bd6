/*
 * cmd-share.c - `gpumemsim share`: several jobs on one GPU.  The jobs come
 * from --job 'TRACE key=value ...' (typed by hand) and --scenario FILE.json
 * (for CI), the card from --gpu or --capacity (on the command line or in the
 * file); the report says who runs out of memory, when, and what everyone
 * held then, and on request how often over random start offsets and which
 * per-job limits make the mix safe.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/share.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "traces/reader.h"
#include "traces/tracemem.h"

/* The keys a job takes besides its policy's own settings. */
static const char *const job_keys[] = { "policy", "name", "start", "repeat", "duration",
	"limit", "fraction", "cc", NULL };

struct jobspec {
	char *where;			/* "--job 2", "s.json: jobs[1]": for messages */
	char *path;
	char *store;			/* owns the values below */
	char **keys, **vals;
	size_t n;
};

struct scen {
	struct jobspec *specs;
	size_t nspecs;
	uint64_t total;			/* from the file; 0: none */
	char *gpu;
	uint64_t context;
	int has_context;
};

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

/* The policy and its settings from a job's keys into j (label and options). */
static int
job_policy(const struct jobspec *js, struct share_job *j)
{
	const char *name = "caching";
	char *cause = NULL;
	size_t i, len, n = 0;
	struct policy_args args;
	int err;

	for (i = 0; i < js->n; i++)
		if (strcmp(js->keys[i], "policy") == 0)
			name = js->vals[i];
	if ((j->ops = policy_find(name, &cause)) == NULL) {
		cli_error("%s: %s", js->where, cause);
		free(cause);
		return EXIT_INPUT;
	}
	j->opts = gms_calloc(js->n + 1, sizeof(*j->opts));
	len = strlen(j->ops->name) + 1;
	for (i = 0; i < js->n; i++) {
		const char *const *k;

		for (k = job_keys; *k != NULL && strcmp(*k, js->keys[i]) != 0; k++)
			;
		if (*k != NULL)
			continue;
		j->opts[n++] = (struct policy_kv){ js->keys[i], js->vals[i] };
		len += strlen(js->keys[i]) + strlen(js->vals[i]) + 2;
	}
	j->nopts = n;
	args = (struct policy_args){ .opts = j->opts, .nopts = n };
	if ((err = policy_check_options(j->ops, &args, &cause)) < 0) {
		cli_error("%s: %s (a job also takes: policy, name, start, repeat, duration, limit, "
		    "fraction, cc)", js->where, cause);
		free(cause);
		return EXIT_INPUT;
	}
	j->label = gms_malloc(len);
	strcpy(j->label, j->ops->name);
	for (i = 0; i < n; i++) {
		strcat(j->label, " ");
		strcat(j->label, j->opts[i].key);
		strcat(j->label, "=");
		strcat(j->label, j->opts[i].value);
	}
	return 0;
}

/* One job from its spec: every key checked, the trace read. */
static int
make_job(const struct jobspec *js, const struct trace_opts *topts, struct share_job *j)
{
	const char *slash;
	char *cause = NULL, *dot;
	struct trace_mem *m;
	uint64_t v;
	size_t i;
	int rc;

	if ((rc = job_policy(js, j)) != 0)
		return rc;
	j->path = gms_strdup(js->path);
	j->repeat = 1;
	for (i = 0; i < js->n; i++) {
		const char *k = js->keys[i], *val = js->vals[i];

		if (strcmp(k, "name") == 0) {
			if (val[0] == '\0')
				goto bad_value;
			free(j->name);
			j->name = gms_strdup(val);
		} else if (strcmp(k, "start") == 0) {
			if (strncmp(val, "event:", 6) == 0) {
				if (parse_u64(val + 6, (1ULL << 53) - 1, &j->start_event) < 0)
					goto bad_value;
				j->start_is_event = 1;
			} else if (parse_time(val, &j->start_us) < 0) {
				goto bad_value;
			}
		} else if (strcmp(k, "repeat") == 0) {
			if (strcmp(val, "until-end") == 0)
				j->repeat = 0;
			else if (parse_u64(val, 1000000, &j->repeat) < 0 || j->repeat == 0)
				goto bad_value;
		} else if (strcmp(k, "duration") == 0) {
			if (parse_time(val, &j->duration_us) < 0 || j->duration_us == 0)
				goto bad_value;
		} else if (strcmp(k, "limit") == 0) {
			if (j->ops != &policy_grow_only && j->ops != &policy_preallocate) {
				cli_error("%s: limit= is BFC's memory_limit (grow-only, preallocate); "
				    "for caching give fraction= (set_per_process_memory_fraction)",
				    js->where);
				return EXIT_INPUT;
			}
			if (gms_parse_size(val, &j->limit, &cause) < 0 || j->limit == 0) {
				free(cause);
				goto bad_value;
			}
		} else if (strcmp(k, "fraction") == 0) {
			char *end;

			errno = 0;
			j->fraction = strtod(val, &end);
			if (end == val || *end != '\0' || errno != 0 || !(j->fraction > 0) ||
			    j->fraction > 1)
				goto bad_value;
			if (j->ops != &policy_caching && j->ops != &policy_grow_only &&
			    j->ops != &policy_preallocate) {
				cli_error("%s: fraction= is a framework's limit; %s has none",
				    js->where, j->ops->name);
				return EXIT_INPUT;
			}
		} else if (strcmp(k, "cc") == 0) {
			if (parse_u64(val, 20, &v) < 0 || v < 3)
				goto bad_value;
			j->cc = (int)v;
		}
		continue;
bad_value:
		cli_error("%s: %s='%s' is not %s", js->where, k, val,
		    strcmp(k, "start") == 0 ? "a time (30s, 1.5ms, 250us, 2m) or event:N" :
		    strcmp(k, "repeat") == 0 ? "a number of passes (1 or more) or until-end" :
		    strcmp(k, "duration") == 0 ? "a time above 0 (60s, 1.5ms)" :
		    strcmp(k, "limit") == 0 ? "a size above 0 (4GiB, 4000MB)" :
		    strcmp(k, "fraction") == 0 ? "a fraction of the card above 0, at most 1" :
		    strcmp(k, "cc") == 0 ? "a compute capability major (7, 8, 9)" : "a name");
		return EXIT_INPUT;
	}
	if (j->name == NULL) {
		slash = strrchr(j->path, '/');
		j->name = gms_strdup(slash ? slash + 1 : j->path);
		if ((dot = strchr(j->name, '.')) != NULL && dot != j->name)
			*dot = '\0';
	}
	if ((rc = trace_mem_load(j->path, topts, &m, &cause)) < 0) {
		cli_error("%s: %s", js->where, cause);
		free(cause);
		return gms_exit_code(rc);
	}
	j->mem = m;
	return 0;
}

/* --job 'TRACE key=value ...' */
static int
parse_jobspec(const char *s, int n, struct jobspec *js)
{
	char *save, *tok, *eq;
	size_t cap = 8;

	memset(js, 0, sizeof(*js));
	js->where = gms_malloc(32);
	snprintf(js->where, 32, "--job %d", n);
	js->store = gms_strdup(s);
	js->keys = gms_calloc(cap, sizeof(*js->keys));
	js->vals = gms_calloc(cap, sizeof(*js->vals));
	if ((tok = strtok_r(js->store, " \t", &save)) == NULL) {
		cli_error("%s: no trace (write the trace first, then key=value settings)", js->where);
		return EXIT_INPUT;
	}
	js->path = tok;
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
		if ((eq = strchr(tok, '=')) == NULL || eq == tok) {
			cli_error("%s: '%s' is not key=value (one trace per --job, then its "
			    "settings)", js->where, tok);
			return EXIT_INPUT;
		}
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

static void
jobspec_free(struct jobspec *js)
{
	free(js->where);
	free(js->store);
	free(js->keys);
	free(js->vals);
}

/* --- --scenario FILE.json ----------------------------------------------- */

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

static int
read_scenario(const char *path, struct scen *s)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *dir, *slash, *cause = NULL, where[256], tmp[64];
	const char *text, *err;
	size_t len = 0, cap = 0, n, i;
	unsigned long line, col;
	cJSON *doc = NULL, *jobs, *j, *it;
	int rc = EXIT_INPUT;

	if (f == NULL) {
		cli_error("cannot open scenario '%s': %s", path, strerror(errno));
		return EXIT_SYSTEM;
	}
	for (;;) {
		if (len + 65536 > cap) {
			if (cap > ((size_t)16 << 20)) {
				cli_error("%s: a scenario above 16 MiB is not a scenario", path);
				goto out;
			}
			buf = gms_realloc(buf, cap = cap ? cap * 2 : 65536 * 2);
		}
		if ((n = fread(buf + len, 1, 65536, f)) == 0)
			break;
		len += n;
	}
	if (ferror(f)) {
		cli_error("cannot read scenario '%s': %s", path, strerror(errno));
		rc = EXIT_SYSTEM;
		goto out;
	}
	buf = gms_realloc(buf, len + 1);
	buf[len] = '\0';
	if ((doc = cJSON_ParseWithLengthOpts(buf, len + 1, &err, 1)) == NULL) {
		err = cJSON_GetErrorPtr();
		trace_line_col(buf, err ? (size_t)(err - buf) : 0, &line, &col);
		cli_error("%s:%lu:%lu: invalid JSON", path, line, col);
		goto out;
	}
	if (!cJSON_IsObject(doc)) {
		cli_error("%s: a scenario is a JSON object with \"jobs\"", path);
		goto out;
	}
	for (it = doc->child; it != NULL; it = it->next)
		if (strcmp(it->string, "jobs") != 0 && strcmp(it->string, "gpu") != 0 &&
		    strcmp(it->string, "capacity") != 0 && strcmp(it->string, "context_overhead") != 0) {
			cli_error("%s: unknown key \"%s\" (a scenario has: jobs, gpu, capacity, "
			    "context_overhead)", path, it->string);
			goto out;
		}
	if ((it = cJSON_GetObjectItemCaseSensitive(doc, "gpu")) != NULL) {
		if (!cJSON_IsString(it)) {
			cli_error("%s: \"gpu\" is not a string (a model: H200, A100-80GB)", path);
			goto out;
		}
		s->gpu = gms_strdup(it->valuestring);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(doc, "capacity")) != NULL) {
		if ((text = value_text(it, tmp, sizeof(tmp))) == NULL ||
		    gms_parse_size(text, &s->total, &cause) < 0 || s->total == 0) {
			cli_error("%s: \"capacity\" is not a size above 0 (80GiB)", path);
			goto out;
		}
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(doc, "context_overhead")) != NULL) {
		if ((text = value_text(it, tmp, sizeof(tmp))) == NULL ||
		    gms_parse_size(text, &s->context, &cause) < 0) {
			cli_error("%s: \"context_overhead\" is not a size (512MiB)", path);
			goto out;
		}
		s->has_context = 1;
	}
	jobs = cJSON_GetObjectItemCaseSensitive(doc, "jobs");
	if (!cJSON_IsArray(jobs) || cJSON_GetArraySize(jobs) == 0) {
		cli_error("%s: \"jobs\" must be an array of jobs, each {\"trace\": ..., ...}", path);
		goto out;
	}
	/* traces named relative to the scenario's directory */
	dir = gms_strdup(path);
	if ((slash = strrchr(dir, '/')) != NULL)
		slash[1] = '\0';
	else
		dir[0] = '\0';
	for (j = jobs->child, i = 0; j != NULL; j = j->next, i++) {
		struct jobspec *js;
		const cJSON *tr = cJSON_GetObjectItemCaseSensitive(j, "trace");
		size_t nk = 0, used = 0, total = 0;
		char buf2[64];

		snprintf(where, sizeof(where), "%s: jobs[%zu]", path, i);
		if (!cJSON_IsObject(j) || !cJSON_IsString(tr) || tr->valuestring[0] == '\0') {
			cli_error("%s: a job is an object with \"trace\" (a path) and its settings",
			    where);
			free(dir);
			goto out;
		}
		s->specs = gms_realloc(s->specs, (s->nspecs + 1) * sizeof(*s->specs));
		js = &s->specs[s->nspecs++];
		memset(js, 0, sizeof(*js));
		js->where = gms_strdup(where);
		for (it = j->child; it != NULL; it = it->next) {
			if ((text = value_text(it, buf2, sizeof(buf2))) == NULL) {
				cli_error("%s.%s: not a string, number or boolean", where, it->string);
				free(dir);
				goto out;
			}
			total += strlen(it->string) + strlen(text) + 2;
			nk++;
		}
		total += strlen(dir) + strlen(tr->valuestring) + 1;
		js->store = gms_malloc(total);
		js->keys = gms_calloc(nk, sizeof(*js->keys));
		js->vals = gms_calloc(nk, sizeof(*js->vals));
		js->path = js->store;
		used = (size_t)snprintf(js->store, total, "%s%s",
		    tr->valuestring[0] == '/' ? "" : dir, tr->valuestring) + 1;
		for (it = j->child; it != NULL; it = it->next) {
			if (strcmp(it->string, "trace") == 0)
				continue;
			text = value_text(it, buf2, sizeof(buf2));
			js->keys[js->n] = js->store + used;
			used += (size_t)snprintf(js->store + used, total - used, "%s", it->string) + 1;
			js->vals[js->n++] = js->store + used;
			used += (size_t)snprintf(js->store + used, total - used, "%s", text) + 1;
		}
	}
	free(dir);
	rc = 0;
out:
	free(cause);
	cJSON_Delete(doc);
	free(buf);
	if (f != NULL)
		fclose(f);
	return rc;
}

/* --- the command ------------------------------------------------------------ */

int
cmd_share(struct cli_args *a)
{
	struct scen s = { 0 };
	struct share_scenario sc = { .context = GPU_CONTEXT_OVERHEAD, .cc = 9 };
	struct share_result res = { 0 };
	struct trace_opts topts;
	struct cli_out tout = { 0 };
	const struct gpu_model *g = NULL;
	const char *gpu = NULL;
	char *cause = NULL, *text = NULL, *more = NULL;
	int threads = a->given[OPT_JOBS] ? (int)a->v[OPT_JOBS].n : batch_default_threads();
	int json = a->v[OPT_FORMAT].choice == 1, rc = EXIT_INPUT, err, i;
	cJSON *o = NULL, *x;
	size_t k, m;

	cli_trace_opts(a, &topts);
	if (a->given[OPT_SCENARIO] && (rc = read_scenario(a->v[OPT_SCENARIO].s, &s)) != 0)
		goto out;
	for (i = 0; i < a->given[OPT_JOB]; i++) {
		s.specs = gms_realloc(s.specs, (s.nspecs + 1) * sizeof(*s.specs));
		if ((rc = parse_jobspec(a->all[OPT_JOB][i], i + 1, &s.specs[s.nspecs++])) != 0)
			goto out;
	}
	rc = EXIT_INPUT;
	if (s.nspecs < 2) {
		cli_error("share needs two jobs or more: give --job 'TRACE key=value ...' for "
		    "each, or --scenario FILE.json");
		rc = EXIT_USAGE;
		goto out;
	}
	/* the card: the command line first, then the file */
	gpu = a->given[OPT_GPU] ? a->v[OPT_GPU].s : a->given[OPT_CAPACITY] ? NULL : s.gpu;
	if (gpu != NULL) {
		if ((g = gpu_find(gpu, &cause)) == NULL) {
			cli_error("%s: %s", a->given[OPT_GPU] ? "--gpu" : a->v[OPT_SCENARIO].s, cause);
			goto out;
		}
		sc.total = g->total;
		sc.cc = g->cc;
		sc.gpu = g->name;
	} else {
		sc.total = a->given[OPT_CAPACITY] ? a->v[OPT_CAPACITY].size : s.total;
	}
	if (a->given[OPT_GPU] && a->given[OPT_CAPACITY]) {
		cli_error("give --gpu or --capacity, not both");
		rc = EXIT_USAGE;
		goto out;
	}
	if (sc.total == 0) {
		cli_error("share needs the GPU: give --gpu=MODEL or --capacity=SIZE (its whole "
		    "memory), or \"gpu\" or \"capacity\" in the scenario");
		rc = EXIT_USAGE;
		goto out;
	}
	sc.context = a->given[OPT_CONTEXT_OVERHEAD] ? a->v[OPT_CONTEXT_OVERHEAD].size :
	    s.has_context ? s.context : GPU_CONTEXT_OVERHEAD;
	sc.jobs = gms_calloc(s.nspecs, sizeof(*sc.jobs));
	for (k = 0; k < s.nspecs; k++) {
		sc.njobs = k + 1;
		if ((rc = make_job(&s.specs[k], &topts, &sc.jobs[k])) != 0)
			goto out;
		/* names tell jobs apart everywhere: make them unique */
		for (m = 0; m < k; m++)
			if (strcmp(sc.jobs[m].name, sc.jobs[k].name) == 0) {
				char *nn = gms_malloc(strlen(sc.jobs[k].name) + 24);

				sprintf(nn, "%s-%zu", sc.jobs[k].name, k + 1);
				free(sc.jobs[k].name);
				sc.jobs[k].name = nn;
				m = (size_t)-1;
			}
	}
	if ((err = share_check(&sc, &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(err);
		goto out;
	}
	if (a->given[OPT_TIMELINE] && (rc = cli_out_open(a->v[OPT_TIMELINE].s, sc.jobs[0].path,
	    &tout)) != 0)
		goto out;
	if ((err = share_run(&sc, tout.f, &res, &cause)) < 0) {
		cli_error("%s", cause);
		cli_out_close(&tout, 0);
		rc = gms_exit_code(err);
		goto out;
	}
	if (a->given[OPT_TIMELINE] && (rc = cli_out_close(&tout, 1)) != 0)
		goto out;
	o = json ? share_json(&sc, &res) : NULL;
	text = json ? NULL : share_text(&sc, &res);
	if (a->given[OPT_OFFSETS]) {
		if ((x = share_offsets(&sc, a->v[OPT_OFFSETS].n, a->given[OPT_SEED] ?
		    a->v[OPT_SEED].n : 1, threads, &more, &cause)) == NULL) {
			cli_error("%s", cause);
			rc = EXIT_INPUT;
			goto out;
		}
		if (json)
			cJSON_AddItemToObject(o, "offsets", x);
		else
			cJSON_Delete(x);
	}
	if (more != NULL && !json) {
		text = gms_realloc(text, strlen(text) + strlen(more) + 1);
		strcat(text, more);
	}
	free(more);
	more = NULL;
	if (a->given[OPT_RECOMMEND]) {
		if ((x = share_recommend(&sc, threads, &more, &cause)) == NULL) {
			cli_error("%s", cause);
			rc = EXIT_INPUT;
			goto out;
		}
		if (json)
			cJSON_AddItemToObject(o, "recommend", x);
		else
			cJSON_Delete(x);
		if (more != NULL && !json) {
			text = gms_realloc(text, strlen(text) + strlen(more) + 1);
			strcat(text, more);
		}
	}
	/* what an incomplete trace means, job by job */
	for (k = 0; k < sc.njobs; k++) {
		const struct trace_header *hdr = trace_mem_header(sc.jobs[k].mem);

		if (json) {
			cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "jobs"),
			    (int)k), "incomplete", report_incomplete_json(hdr));
		} else {
			char *note = report_incomplete_text(hdr);

			if (note != NULL) {
				text = gms_realloc(text, strlen(text) + strlen(note) + 2);
				strcat(text, "\n");
				strcat(text, note);
			}
			free(note);
		}
	}
	if (json) {
		cli_print_json(a, o);
		o = NULL;
	} else {
		fputs(text, a->report);
	}
	rc = a->given[OPT_FAIL_ON_OOM] && !res.fits ? EXIT_CHECK : EXIT_DONE;
out:
	cJSON_Delete(o);
	free(text);
	free(more);
	free(cause);
	share_result_free(&res, sc.njobs);
	for (k = 0; k < sc.njobs; k++) {
		free(sc.jobs[k].name);
		free(sc.jobs[k].path);
		free(sc.jobs[k].label);
		free(sc.jobs[k].opts);
		trace_mem_free((struct trace_mem *)sc.jobs[k].mem);
	}
	free(sc.jobs);
	for (k = 0; k < s.nspecs; k++)
		jobspec_free(&s.specs[k]);
	free(s.specs);
	free(s.gpu);
	return rc;
}
