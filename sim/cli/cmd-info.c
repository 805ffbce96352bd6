/*
 * cmd-info.c - `gpumemsim info TRACE`: what a trace holds (counts, streams,
 * duration, the live peak and when, a size histogram, the largest
 * allocations and where they were made, what the recording allocator did).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "analysis/info.h"
#include "analysis/ranks.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/run.h"
#include "traces/tracemem.h"

struct info_ctx {
	struct info in;
	cJSON *hdr_copy;	/* the header, kept past the walk */
	struct trace_header hdr;
	char name[256], format[32];
};

static int
begin(void *arg, const struct trace_header *hdr, char **cause)
{
	struct info_ctx *c = arg;

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
	info_event(&((struct info_ctx *)arg)->in, index, ev);
	return 0;
}

/* One trace's walk: ctx (initialized by the caller) and *res; *mem held when worth it. */
static int
describe(const char *path, const struct trace_opts *topts, struct info_ctx *ctx,
    struct sim_result *res, struct trace_mem **mem, char **cause)
{
	struct run_walk w = { .device = topts->device, .begin = begin, .fn = each, .arg = ctx,
	    .unknown_frees_warn = topts->unknown_frees_warn, .path = path };
	int rc;

	*mem = NULL;
	/* the live peak's sites take a second walk: standard input is held for it */
	if (trace_mem_worth(path) && (rc = trace_mem_load(path, topts, mem, cause)) < 0)
		return rc;
	w.mem = *mem;
	if ((rc = run_walk(&w, res, cause)) < 0)
		return rc;
	ctx->hdr.cut = w.cut;
	if (ctx->in.backwards > 0)
		cli_warning("%s: %llu event%s timed before the event before %s (the first: "
		    "event %llu): the duration is from the earliest time to the latest", path,
		    (unsigned long long)ctx->in.backwards, ctx->in.backwards == 1 ? " is" : "s are",
		    ctx->in.backwards == 1 ? "it" : "them", (unsigned long long)ctx->in.first_backwards);
	return 0;
}

/* info --ranks: every rank's walk, side by side (analysis/ranks-info.c). */
static int
info_ranks(struct cli_args *a, const struct trace_opts *topts)
{
	struct rank_set set;
	struct info_ctx *ctx;
	struct ranks_info ri;
	struct trace_mem *mem;
	char *cause = NULL, *why = NULL, *text;
	size_t i, done = 0;
	int rc;

	if ((rc = ranks_collect(a->argv, a->argc, &set, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		return gms_exit_code(rc);
	}
	ctx = gms_calloc(set.n, sizeof(*ctx));
	ri = (struct ranks_info){ .set = &set, .in = gms_calloc(set.n, sizeof(*ri.in)),
	    .hdr = gms_calloc(set.n, sizeof(*ri.hdr)), .res = gms_calloc(set.n, sizeof(*ri.res)) };
	for (rc = 0; done < set.n && rc == 0; done++) {
		info_init(&ctx[done].in);
		rc = describe(set.f[done].path, topts, &ctx[done], &ri.res[done], &mem, &why);
		trace_mem_free(mem);
		ri.in[done] = ctx[done].in;
		ri.hdr[done] = ctx[done].hdr;
	}
	if (rc < 0) {
		cli_error("rank %d: %s", set.f[done - 1].rank, why);
		free(why);
	} else if (a->v[OPT_FORMAT].choice == 1) {
		cli_print_json(a, ranks_info_json(&ri));
	} else {
		text = ranks_info_text(&ri);
		fputs(text, a->report);
		free(text);
	}
	for (i = 0; i < done; i++) {
		info_free(&ctx[i].in);
		cJSON_Delete(ctx[i].hdr_copy);
	}
	free(ctx);
	free(ri.in);
	free(ri.hdr);
	free(ri.res);
	ranks_free(&set);
	return rc < 0 ? gms_exit_code(rc) : EXIT_DONE;
}

int
cmd_info(struct cli_args *a)
{
	struct info_ctx ctx;
	struct trace_opts topts;
	struct sim_result res;
	struct trace_mem *mem = NULL;
	struct attrib at;
	size_t top = (size_t)a->v[OPT_TOP].n;
	char *cause = NULL, *text, *sites;
	const char *path = a->argv[0];
	cJSON *o;
	int rc;

	cli_trace_opts(a, &topts);
	if (a->given[OPT_RANKS])
		return info_ranks(a, &topts);
	memset(&ctx, 0, sizeof(ctx));
	info_init(&ctx.in);
	attrib_init(&at);
	if ((rc = describe(path, &topts, &ctx, &res, &mem, &cause)) < 0)
		goto fail;
	if (res.peak_live > 0) {
		attrib_add(&at, "live_peak", "live peak", res.peak_live_event, 0, 0);
		if ((rc = attrib_walk(path, mem, &topts, &at, &cause)) < 0)
			goto fail;
	}
	if (a->v[OPT_FORMAT].choice == 1) {
		o = info_json(&ctx.in, &ctx.hdr, &res);
		if (at.m[0].taken)
			cJSON_AddItemToObject(o, "sites", attrib_json(&at.m[0], top));
		else
			cJSON_AddNullToObject(o, "sites");
		cli_print_report(a, o, NULL, &ctx.hdr);
	} else {
		text = info_text(&ctx.in, &ctx.hdr, &res);
		if (at.m[0].taken) {
			sites = attrib_text(&at.m[0], top);
			text = gms_realloc(text, strlen(text) + strlen(sites) + 2);
			strcat(strcat(text, "\n"), sites);
			free(sites);
		}
		cli_print_report(a, NULL, text, &ctx.hdr);
	}
	info_free(&ctx.in);
	cJSON_Delete(ctx.hdr_copy);
	attrib_free(&at);
	trace_mem_free(mem);
	return EXIT_DONE;
fail:
	cli_error("%s", cause);
	free(cause);
	info_free(&ctx.in);
	cJSON_Delete(ctx.hdr_copy);
	attrib_free(&at);
	trace_mem_free(mem);
	return gms_exit_code(rc);
}
