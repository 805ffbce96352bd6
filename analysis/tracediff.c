/*
 * tracediff.c - two runs of a job compared, by their numbers and by call
 * stack (tracediff.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/tracediff.h"
#include "analysis/watch.h"
#include "sim/gms.h"

int
trace_diff_run(const struct run_spec specs[2], const char *filter, unsigned depth,
    struct trace_diff *td, char **cause)
{
	struct stack_view *w[2] = { NULL, NULL };
	struct stack_values none[2];
	struct run_spec spec;
	struct run_watch watch;
	int i, err;

	memset(td, 0, sizeof(*td));
	for (i = 0; i < 2; i++) {
		attrib_init(&td->at[i]);
		attrib_want_stacks(&td->at[i]);
		spec = specs[i];
		run_watch(&watch, WATCH_PEAK, 0, &spec);
		err = run_simulate(&spec, &td->out[i], cause);
		td->ran[i] = 1;
		if (err == 0)
			err = attrib_run(&specs[i], &td->out[i].res, &watch.peak, 0, &td->at[i], cause);
		run_watch_free(&watch);
		if (err < 0)
			return err;
		td->m[i] = attrib_chosen(&td->at[i]);
	}
	for (i = 0; i < 2; i++) {
		/* a trace with nothing live has no moment: an empty view */
		memset(&none[i], 0, sizeof(none[i]));
		w[i] = stack_view_new(td->at[i].stacks, td->m[i] ? &td->m[i]->stk : &none[i],
		    filter, depth);
	}
	stack_diff_build(w[0], w[1], &td->d);
	stack_view_free(w[0]);
	stack_view_free(w[1]);
	return 0;
}

void
trace_diff_free(struct trace_diff *td)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (td->ran[i])
			run_output_free(&td->out[i]);
		attrib_free(&td->at[i]);
	}
	stack_diff_free(&td->d);
	memset(td, 0, sizeof(*td));
}

/* One number of both runs, with the change. */
static void
line(FILE *f, const char *what, uint64_t a, uint64_t b)
{
	char x[32], y[32], c[40];
	int64_t d = (int64_t)b - (int64_t)a;

	gms_fmt_size(a, x, sizeof(x));
	gms_fmt_size(b, y, sizeof(y));
	gms_fmt_size((uint64_t)(d < 0 ? -d : d), c, sizeof(c) - 8);
	fprintf(f, "  %-16s %12s %12s  %s%s", what, x, y, d > 0 ? "+" : d < 0 ? "-" : "", c);
	if (a > 0 && d != 0)
		fprintf(f, " (%+.1f%%)", 100.0 * (double)d / (double)a);
	fputc('\n', f);
}

static double
frag(const struct sim_result *r)
{
	return r->peak_reserved ? 1.0 - (double)r->peak_allocated / (double)r->peak_reserved : 0;
}

static void
moment_name(const struct attrib_moment *m, char *buf, size_t len)
{
	if (m == NULL)
		snprintf(buf, len, "nothing live");
	else
		snprintf(buf, len, "%s, event %llu", strcmp(m->key, "oom") == 0 ? "OOM" :
		    "peak", (unsigned long long)m->event);
}

char *
trace_diff_text(const struct trace_diff *td, const char *const names[2], size_t top)
{
	const struct sim_result *a = &td->out[0].res, *b = &td->out[1].res;
	char *s = NULL, oa[64], ob[64];
	size_t len = 0;
	FILE *f;

	if ((f = open_memstream(&s, &len)) == NULL)
		return gms_strdup("(out of memory)\n");
	fprintf(f, "before: %s\nafter:  %s\n\n  %-16s %12s %12s  %s\n", names[0], names[1], "",
	    "before", "after", "change");
	line(f, "peak reserved", a->peak_reserved, b->peak_reserved);
	line(f, "peak allocated", a->peak_allocated, b->peak_allocated);
	line(f, "peak live", a->peak_live, b->peak_live);
	fprintf(f, "  %-16s %11.1f%% %11.1f%%\n", "fragmentation", 100 * frag(a), 100 * frag(b));
	fprintf(f, "  %-16s %12llu %12llu\n", "device allocs", (unsigned long long)a->device_allocs,
	    (unsigned long long)b->device_allocs);
	snprintf(oa, sizeof(oa), a->oomed ? "event %llu" : "fits", (unsigned long long)a->oom.event);
	snprintf(ob, sizeof(ob), b->oomed ? "event %llu" : "fits", (unsigned long long)b->oom.event);
	fprintf(f, "  %-16s %12s %12s\n", "out of memory", oa, ob);
	moment_name(td->m[0], oa, sizeof(oa));
	moment_name(td->m[1], ob, sizeof(ob));
	fprintf(f, "\nWhat grew, by stack (before at its %s, after at its %s):\n", oa, ob);
	stack_diff_text(f, &td->d, top);
	fclose(f);
	return s;
}

static cJSON *
side_json(const struct trace_diff *td, int i, const char *name)
{
	const struct sim_result *r = &td->out[i].res;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "trace", name);
	cJSON_AddNumberToObject(o, "peak_reserved", (double)r->peak_reserved);
	cJSON_AddNumberToObject(o, "peak_allocated", (double)r->peak_allocated);
	cJSON_AddNumberToObject(o, "peak_live", (double)r->peak_live);
	cJSON_AddNumberToObject(o, "fragmentation", frag(r));
	cJSON_AddNumberToObject(o, "device_allocs", (double)r->device_allocs);
	if (r->oomed)
		cJSON_AddNumberToObject(o, "oom_event", (double)r->oom.event);
	else
		cJSON_AddNullToObject(o, "oom_event");
	if (td->m[i] != NULL) {
		cJSON_AddStringToObject(o, "moment", td->m[i]->key);
		cJSON_AddNumberToObject(o, "moment_event", (double)td->m[i]->event);
	} else {
		cJSON_AddNullToObject(o, "moment");
		cJSON_AddNullToObject(o, "moment_event");
	}
	return o;
}

cJSON *
trace_diff_json(const struct trace_diff *td, const char *const names[2], size_t top)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "before", side_json(td, 0, names[0]));
	cJSON_AddItemToObject(o, "after", side_json(td, 1, names[1]));
	cJSON_AddItemToObject(o, "stacks", stack_diff_json(&td->d, top));
	return o;
}

int
trace_diff_baseline(const struct run_spec *spec, const cJSON *stacks, const char *filter,
    unsigned depth, struct stack_diff *d, char **cause)
{
	const cJSON *m, *tree = NULL, *key;
	struct stack_tree *bt;
	struct stack_values bv, none = { 0 };
	struct stack_view *w[2];
	struct run_spec again = *spec;
	struct run_output out;
	struct run_watch watch;
	struct attrib at;
	const struct attrib_moment *mo = NULL;
	const char *why = NULL;
	size_t i;
	int err;

	memset(d, 0, sizeof(*d));
	if (!cJSON_IsArray(stacks))
		return gms_fail(cause, GMS_ETRACE, "\"stacks\" is not a list");
	cJSON_ArrayForEach(m, stacks) {
		key = cJSON_GetObjectItemCaseSensitive(m, "moment");
		if (cJSON_IsString(key) && strcmp(key->valuestring, "peak_reserved") == 0)
			tree = cJSON_GetObjectItemCaseSensitive(m, "tree");
	}
	if (tree == NULL || cJSON_IsNull(tree))
		return 1;
	bt = stack_tree_new();
	if (stack_values_from_json(bt, tree, &bv, &why) < 0) {
		stack_tree_free(bt);
		return gms_fail(cause, GMS_ETRACE, "\"stacks\" at the peak reservation is not a "
		    "tree as run --by-stack writes it: %s", why);
	}
	attrib_init(&at);
	attrib_want_stacks(&at);
	run_watch(&watch, WATCH_PEAK, 0, &again);
	err = run_simulate(&again, &out, cause);
	if (err == 0)
		err = attrib_run(spec, &out.res, &watch.peak, 0, &at, cause);
	run_watch_free(&watch);
	run_output_free(&out);
	for (i = 0; err == 0 && i < at.n; i++)
		if (strcmp(at.m[i].key, "peak_reserved") == 0 && at.m[i].taken)
			mo = &at.m[i];
	if (err == 0) {
		w[0] = stack_view_new(bt, &bv, filter, depth);
		w[1] = stack_view_new(at.stacks, mo ? &mo->stk : &none, filter, depth);
		stack_diff_build(w[0], w[1], d);
		stack_view_free(w[0]);
		stack_view_free(w[1]);
	}
	attrib_free(&at);
	stack_values_free(&bv);
	stack_tree_free(bt);
	return err < 0 ? err : 0;
}
