/*
 * util.c - what the commands share once their options are parsed:
 * git-style messages, the policies to run with their settings, the target
 * (--capacity or --gpu), the trace (read, or built from recordings at other
 * values), the run spec from the trace options, timelines as CSV and JSON
 * reports.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "analysis/entries.h"
#include "analysis/report.h"
#include "analysis/scaling.h"
#include "analysis/timeline.h"
#include "traces/trace.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/outfile.h"
#include "sim/policy.h"
#include "sim/run.h"
#include "traces/scale.h"
#include "traces/tracemem.h"

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
cli_policies(const struct cli_args *a, const char *dflt, struct cli_policies *p)
{
	size_t i;
	int rc = 0, several = (a->cmd->groups & G_POLICIES) != 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; rc == 0 && a->given[OPT_POLICIES] && i < a->v[OPT_POLICIES].nspecs; i++)
		rc = add_spec(p, "policies", a->v[OPT_POLICIES].specs[i]);
	for (i = 0; rc == 0 && i < (size_t)a->given[OPT_POLICY]; i++)
		rc = add_spec(p, "policy", a->all[OPT_POLICY][i]);
	if (rc == 0 && p->n == 0) {
		if (dflt != NULL) {
			rc = add_spec(p, "policy", dflt);
			p->defaulted = 1;
		} else {
			/* an RMM log: RMM's resources; else the frameworks' allocators */
			unsigned set = a->argc > 0 && trace_is_rmm_log(a->argv[0]) ?
			    POLICY_SET_RMM : POLICY_SET_FRAMEWORKS;

			for (i = 0; policy_table[i] != NULL && rc == 0; i++)
				if (policy_table[i]->sets & set)
					rc = add_spec(p, "policy", policy_table[i]->name);
		}
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

void
cli_trace_opts(const struct cli_args *a, struct trace_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->device = a->given[OPT_DEVICE] ? (int)a->v[OPT_DEVICE].n : -1;
	o->unknown_frees_warn = a->given[OPT_UNKNOWN_FREES] && a->v[OPT_UNKNOWN_FREES].choice == 1;
}

int
cli_run_rows(const struct cli_args *a, const struct cli_target *t,
    const struct cli_policies *pols, struct batch_job *jobs, size_t n, int threads,
    struct report_row *rows, const struct report_row **first)
{
	const char **labels = gms_calloc(n + 1, sizeof(*labels));
	struct report_rows_of of = { .path = a->argv[0], .gpu = t->gpu_name,
	    .capacity = t->capacity, .labels = labels };
	char *cause = NULL;
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		labels[i] = pols->list[i].label;
	err = report_rows_run(jobs, n, threads, &of, rows, first, &cause);
	free(labels);
	if (err < 0)
		return cli_fail(err, cause);
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

void
cli_run_spec(const struct cli_args *a, const struct cli_target *t, struct run_spec *s)
{
	struct trace_opts o;

	cli_trace_opts(a, &o);
	s->device = o.device;
	s->unknown_frees_warn = o.unknown_frees_warn;
	s->placement = cli_placement(a);
	if (t != NULL) {
		s->capacity = t->capacity;
		if (t->model != NULL) {
			s->gpu_total = t->model->total;
			s->gpu_cc = t->model->cc;
		}
	}
}

void
cli_print_report(struct cli_args *a, cJSON *json, char *text, const struct trace_header *hdr)
{
	char *note;

	if (json != NULL) {
		cJSON_AddItemToObject(json, "incomplete", report_incomplete_json(hdr));
		cli_print_json(a, json);
		return;
	}
	fputs(text, a->report);
	free(text);
	if ((note = inputs_scaled_text(a->in)) != NULL)
		fprintf(a->report, "\n%s", note);
	free(note);
	if ((note = report_incomplete_text(hdr)) != NULL)
		fprintf(a->report, "\n%s", note);
	free(note);
}

void
cli_print_json(struct cli_args *a, cJSON *o)
{
	cJSON *schema;
	char *text;

	if (a->in != NULL)
		inputs_scaled_json(a->in, o);
	/* first, so that a script can check it before reading the rest (doc/JSON.md) */
	if (cJSON_IsObject(o) && cJSON_GetObjectItemCaseSensitive(o, "schema") == NULL) {
		schema = cJSON_CreateNumber(REPORT_JSON_SCHEMA);
		schema->string = gms_strdup("schema");
		cJSON_InsertItemInArray(o, 0, schema);
	}
	text = cJSON_Print(o);

	fprintf(a->report, "%s\n", text);
	free(text);
	cJSON_Delete(o);
}

int
cli_out_open(const char *path, const char *input, struct cli_out *o)
{
	return cli_out_open_n(path, &input, 1, o);
}

int
cli_out_open_n(const char *path, const char *const *inputs, size_t n, struct cli_out *o)
{
	char *cause = NULL;
	int err;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	if ((err = outfile_open(path, inputs, n, &o->of, &cause)) < 0)
		return cli_fail(err, cause);
	if ((o->f = fdopen(o->of.fd, "w")) == NULL) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		outfile_abort(&o->of);
		return EXIT_SYSTEM;
	}
	o->of.fd = -1;	/* the stream owns it now */
	o->file = 1;
	return 0;
}

int
cli_out_close(struct cli_out *o, int keep)
{
	char *cause = NULL;
	int err, bad;

	if (o->f == NULL)
		return 0;
	bad = fflush(o->f) != 0 || ferror(o->f);
	if (o->file && fclose(o->f) != 0)
		bad = 1;
	o->f = NULL;
	if (!o->file) {
		if (bad && keep) {
			cli_error("cannot write '%s': %s", o->path, strerror(errno));
			return EXIT_SYSTEM;
		}
		return 0;
	}
	if (bad || !keep) {
		if (bad && keep)
			cli_error("cannot write '%s': %s", o->path, strerror(errno));
		outfile_abort(&o->of);
		return bad && keep ? EXIT_SYSTEM : 0;
	}
	if ((err = outfile_commit(&o->of, &cause)) < 0)
		return cli_fail(err, cause);
	return 0;
}

int
cli_write_timelines(const struct cli_args *a, struct timeline *const *tls,
    const char *const *labels, size_t n)
{
	const char *path = a->v[OPT_TIMELINE].s;
	struct cli_out o;
	int rc;

	if ((rc = cli_out_open_n(path, a->in->files, a->in->nfiles, &o)) != 0)
		return rc;
	if (timeline_write_csv(o.f, tls, labels, n) < 0) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		cli_out_close(&o, 0);
		return EXIT_SYSTEM;
	}
	return cli_out_close(&o, 1);
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

void
cli_warnings(const struct entry_warnings *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		cli_warning("%s", w->w[i]);
}

void
cli_print(struct cli_args *a, cJSON *json, char *text)
{
	if (json != NULL) {
		cli_print_json(a, json);
		return;
	}
	if (text != NULL)
		fputs(text, a->report);
	free(text);
}
