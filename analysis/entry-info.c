/*
 * entry-info.c - `info`'s entry (entries.h): what a trace holds (counts,
 * streams, duration, the live peak and when, a size histogram, the largest
 * allocations, what holds the live peak, what the recording allocator did),
 * or every rank's side by side.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

static int
begin(void *arg, const struct trace_header *hdr, char **cause)
{
	struct info_trace *c = arg;

	c->hdr = *hdr;
	snprintf(c->name, sizeof(c->name), "%s", hdr->name);
	snprintf(c->format, sizeof(c->format), "%s", hdr->format);
	c->hdr.name = c->name;
	c->hdr.format = c->format;
	/* The reader goes away with the walk; the report needs these after. */
	c->hdr_copy = cJSON_CreateObject();
	if (hdr->observed)
		cJSON_AddItemToObject(c->hdr_copy, "observed", cJSON_Duplicate(hdr->observed, 1));
	if (hdr->source)
		cJSON_AddItemToObject(c->hdr_copy, "source", cJSON_Duplicate(hdr->source, 1));
	if (hdr->device)
		cJSON_AddItemToObject(c->hdr_copy, "device", cJSON_Duplicate(hdr->device, 1));
	c->hdr.observed = cJSON_GetObjectItemCaseSensitive(c->hdr_copy, "observed");
	c->hdr.source = cJSON_GetObjectItemCaseSensitive(c->hdr_copy, "source");
	c->hdr.device = cJSON_GetObjectItemCaseSensitive(c->hdr_copy, "device");
	return 0;
}

static int
each(void *arg, uint64_t index, const struct trace_event *ev, char **cause)
{
	info_event(&((struct info_trace *)arg)->in, index, ev);
	return 0;
}

/* One trace's walk into t; *mem held when worth it. */
static int
describe(const char *path, const struct trace_opts *topts, struct info_trace *t,
    struct trace_mem **mem, struct entry_warnings *warn, char **cause)
{
	struct run_walk w = { .device = topts->device, .begin = begin, .fn = each, .arg = t,
	    .unknown_frees_warn = topts->unknown_frees_warn, .path = path };
	int rc;

	*mem = NULL;
	info_init(&t->in);
	/* the live peak's sites take a second walk: standard input is held for it */
	if (trace_mem_worth(path) && (rc = trace_mem_load(path, topts, mem, cause)) < 0)
		return rc;
	w.mem = *mem;
	if ((rc = run_walk(&w, &t->res, cause)) < 0)
		return rc;
	t->hdr.cut = w.cut;
	if (t->in.backwards > 0)
		entry_warn(warn, "%s: %llu event%s timed before the event before %s (the first: "
		    "event %llu): the duration is from the earliest time to the latest", path,
		    (unsigned long long)t->in.backwards, t->in.backwards == 1 ? " is" : "s are",
		    t->in.backwards == 1 ? "it" : "them", (unsigned long long)t->in.first_backwards);
	return 0;
}

int
entry_info(const struct inputs *in, size_t top, struct info_answer *ans, char **cause)
{
	const struct rank_set *set = &in->ranks;
	struct trace_mem *mem;
	char *why = NULL;
	size_t i;
	int err;

	memset(ans, 0, sizeof(*ans));
	ans->in = in;
	ans->top = top;
	attrib_init(&ans->at);
	if (in->kind == INPUTS_RANKS) {
		ans->t = gms_calloc(set->n, sizeof(*ans->t));
		for (i = 0; i < set->n; i++) {
			ans->n = i + 1;
			err = describe(set->f[i].path, &in->topts, &ans->t[i], &mem, &ans->warn, &why);
			trace_mem_free(mem);
			if (err < 0) {
				err = gms_fail(cause, err, "rank %d: %s", set->f[i].rank, why);
				free(why);
				return err;
			}
		}
		return 0;
	}
	ans->t = gms_calloc(1, sizeof(*ans->t));
	ans->n = 1;
	if ((err = describe(in->path, &in->topts, &ans->t[0], &ans->held, &ans->warn, cause)) < 0)
		return err;
	if (ans->t[0].res.peak_live == 0)
		return 0;
	attrib_add(&ans->at, "live_peak", "live peak", ans->t[0].res.peak_live_event, 0, 0);
	return attrib_walk(in->path, ans->held, &in->topts, &ans->at, cause);
}

/* The ranks' walks as ranks-info.c takes them (the caller frees the arrays). */
static struct ranks_info
ranks_of(const struct info_answer *ans)
{
	struct ranks_info ri = { .set = &ans->in->ranks,
	    .in = gms_calloc(ans->n + 1, sizeof(*ri.in)),
	    .hdr = gms_calloc(ans->n + 1, sizeof(*ri.hdr)),
	    .res = gms_calloc(ans->n + 1, sizeof(*ri.res)) };
	size_t i;

	for (i = 0; i < ans->n; i++) {
		ri.in[i] = ans->t[i].in;
		ri.hdr[i] = ans->t[i].hdr;
		ri.res[i] = ans->t[i].res;
	}
	return ri;
}

static void
ranks_done(struct ranks_info *ri)
{
	free(ri->in);
	free(ri->hdr);
	free(ri->res);
}

char *
entry_info_text(const struct info_answer *ans)
{
	const struct info_trace *t = &ans->t[0];
	char *text = NULL, *note;
	size_t len = 0;
	FILE *f;

	if (ans->in->kind == INPUTS_RANKS) {
		struct ranks_info ri = ranks_of(ans);

		text = ranks_info_text(&ri);
		ranks_done(&ri);
		return text;
	}
	if ((f = open_memstream(&text, &len)) == NULL)
		return NULL;
	note = info_text(&t->in, &t->hdr, &t->res);
	fputs(note, f);
	free(note);
	if (ans->at.n > 0 && ans->at.m[0].taken) {
		note = attrib_text(&ans->at.m[0], ans->top);
		fprintf(f, "\n%s", note);
		free(note);
	}
	if ((note = report_incomplete_text(&t->hdr)) != NULL)
		fprintf(f, "\n%s", note);
	free(note);
	fclose(f);
	return text;
}

cJSON *
entry_info_json(const struct info_answer *ans)
{
	const struct info_trace *t = &ans->t[0];
	cJSON *o;

	if (ans->in->kind == INPUTS_RANKS) {
		struct ranks_info ri = ranks_of(ans);

		o = ranks_info_json(&ri);
		ranks_done(&ri);
		return o;
	}
	o = info_json(&t->in, &t->hdr, &t->res);
	if (ans->at.n > 0 && ans->at.m[0].taken)
		cJSON_AddItemToObject(o, "sites", attrib_json(&ans->at.m[0], ans->top));
	else
		cJSON_AddNullToObject(o, "sites");
	cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(&t->hdr));
	return o;
}

void
entry_info_free(struct info_answer *ans)
{
	size_t i;

	for (i = 0; i < ans->n; i++) {
		info_free(&ans->t[i].in);
		cJSON_Delete(ans->t[i].hdr_copy);
	}
	free(ans->t);
	attrib_free(&ans->at);
	trace_mem_free(ans->held);
	entry_warnings_free(&ans->warn);
	memset(ans, 0, sizeof(*ans));
}
