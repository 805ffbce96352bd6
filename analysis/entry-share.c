/*
 * entry-share.c - `share`'s entry (entries.h): several jobs on one GPU
 * (sim/share.h): who runs out of memory, when, and what everyone held
 * then; on request how often over random start offsets and which per-job
 * limits make the mix safe; the merged order, and the picture.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "analysis/plot.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

int
entry_share(const struct inputs *in, const struct share_request *rq,
    struct share_answer *ans, char **cause)
{
	int err;

	memset(ans, 0, sizeof(*ans));
	ans->in = in;
	if ((err = share_run(&in->sc, rq->timeline, &ans->res, cause)) < 0)
		return err;
	if (rq->offsets > 0 && (ans->offsets = share_offsets(&in->sc, rq->offsets, rq->seed,
	    rq->threads, &ans->offsets_text, cause)) == NULL)
		return GMS_ECONFIG;
	if (rq->recommend && (ans->recommend = share_recommend(&in->sc, rq->threads,
	    &ans->recommend_text, cause)) == NULL)
		return GMS_ECONFIG;
	return 0;
}

char *
entry_share_text(const struct share_answer *ans)
{
	const struct share_scenario *sc = &ans->in->sc;
	char *text = NULL, *part, *note;
	size_t len = 0, k;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	part = share_text(sc, &ans->res);
	fputs(part, f);
	free(part);
	if (ans->offsets_text != NULL)
		fputs(ans->offsets_text, f);
	if (ans->recommend_text != NULL)
		fputs(ans->recommend_text, f);
	/* what an incomplete trace means, job by job */
	for (k = 0; k < sc->njobs; k++)
		if ((note = report_incomplete_text(trace_mem_header(sc->jobs[k].mem))) != NULL) {
			fprintf(f, "\n%s", note);
			free(note);
		}
	fclose(f);
	return text;
}

cJSON *
entry_share_json(const struct share_answer *ans)
{
	const struct share_scenario *sc = &ans->in->sc;
	cJSON *o = share_json(sc, &ans->res);
	size_t k;

	if (ans->offsets != NULL)
		cJSON_AddItemToObject(o, "offsets", cJSON_Duplicate(ans->offsets, 1));
	if (ans->recommend != NULL)
		cJSON_AddItemToObject(o, "recommend", cJSON_Duplicate(ans->recommend, 1));
	for (k = 0; k < sc->njobs; k++)
		cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "jobs"), (int)k),
		    "incomplete", report_incomplete_json(trace_mem_header(sc->jobs[k].mem)));
	return o;
}

int
entry_share_schedule(const struct inputs *in, FILE *f, char **cause)
{
	const struct share_scenario *sc = &in->sc;
	struct share_step *st = NULL;
	size_t n = 0, i;
	int err;

	if ((err = share_schedule(sc, &st, &n, cause)) < 0)
		return err;
	fprintf(f, "step,job,what,event,pass,t_us\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%zu,%s,%s,%llu,%llu,%lld\n", i, sc->jobs[st[i].job].name,
		    st[i].start ? "start" : "event", (unsigned long long)st[i].event,
		    (unsigned long long)st[i].pass, (long long)st[i].time_us);
	free(st);
	return 0;
}

int
entry_share_plot(const struct share_answer *ans, const char *out, int fd, const char *csv,
    char **cause)
{
	const struct share_scenario *sc = &ans->in->sc;
	const char **names = gms_calloc(sc->njobs, sizeof(*names));
	struct plot_point *pts = gms_calloc(ans->res.nooms + 1, sizeof(*pts));
	char *title, size[32];
	size_t k;
	int err;

	for (k = 0; k < sc->njobs; k++)
		names[k] = sc->jobs[k].name;
	for (k = 0; k < ans->res.nooms; k++)
		pts[k] = (struct plot_point){ .event = (uint64_t)ans->res.ooms[k].time_us,
		    .bytes = sc->total - ans->res.ooms[k].gpu_free };
	title = gms_asprintf("gpumemsim share: %zu jobs on %s%s", sc->njobs,
	    sc->gpu ? sc->gpu : "a GPU of ", sc->gpu ? "" : gms_fmt_size(sc->total, size,
	    sizeof(size)));
	err = plot_share(out, fd, title, csv, names, sc->njobs, sc->total, pts, ans->res.nooms,
	    cause);
	free(title);
	free(names);
	free(pts);
	return err;
}

void
entry_share_free(struct share_answer *ans)
{
	share_result_free(&ans->res);
	cJSON_Delete(ans->offsets);
	cJSON_Delete(ans->recommend);
	free(ans->offsets_text);
	free(ans->recommend_text);
	memset(ans, 0, sizeof(*ans));
}
