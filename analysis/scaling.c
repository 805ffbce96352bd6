/*
 * scaling.c - scale's runs and report (scaling.h).  The search for the
 * largest value that fits bisects between a value that fits and one that
 * does not, so both ends are replays; it then probes a few values above the
 * first failure, because a caching allocator's peak is not monotone in the
 * size (ResNet-18 reserved more at batch 12 than at 16 on the H200).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/scaling.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define PROBES_ABOVE 4

int
scale_point_run(struct scale_model *m, const struct run_spec *spec, struct scale_point *p,
    char **cause)
{
	struct run_spec s = *spec;
	struct run_output out;
	const struct scale_rec *rec = NULL;
	struct trace_mem *t;
	size_t k;
	int rc;

	free(p->oom_at);
	p->oom_at = NULL;
	if ((rc = scale_build(m, p->value, &t, &p->built, cause)) < 0)
		return rc;
	/* at a recorded value the job is its recording, replayed as `run` replays it
	   (at its own addresses where it has them), not a trace built again */
	for (k = 0; k < scale_nrecs(m) && rec == NULL; k++)
		if (scale_rec_at(m, k)->value == p->value)
			rec = scale_rec_at(m, k);
	s.mem = rec != NULL ? rec->mem : t;
	s.path = rec != NULL ? rec->path : scale_rec_at(m, p->built.base)->path;
	if (rec != NULL)
		s.placement = RUN_PLACEMENT_AS_RECORDED;
	s.stop_at_oom = s.capacity != 0;
	rc = run_simulate(&s, &out, cause);
	if (rc == 0) {
		p->peak_reserved = out.res.peak_reserved;
		p->peak_allocated = out.res.peak_allocated;
		p->peak_live = out.res.peak_live;
		p->oomed = out.res.oomed;
		if (p->oomed) {
			p->oom_event = rec != NULL ? out.res.oom.event :
			    scale_event_of(m, p->built.base, out.res.oom.event);
			p->oom_size = out.res.oom.size;
			p->oom_at = out.res.oom.at ? gms_strdup(out.res.oom.at) : NULL;
		}
	}
	run_output_free(&out);
	trace_mem_free(t);
	return rc;
}

/*
 * A curve point whose trace the recordings leave open (scale_build_bound):
 * the peaks at the low end too, with no limit, as the curve's are.
 */
static int
point_low(struct scale_model *m, const struct run_spec *spec, struct scale_point *p,
    char **cause)
{
	struct run_spec s = *spec;
	struct run_output out;
	struct scale_built b;
	struct trace_mem *t;
	size_t k;
	int rc;

	for (k = 0; k < scale_nrecs(m); k++)
		if (scale_rec_at(m, k)->value == p->value)
			return 0;
	if (!p->built.forms[SCALE_UNALIGNED] && !p->built.uncapped)
		return 0;
	if ((rc = scale_build_bound(m, p->value, SCALE_LOW, &t, &b, cause)) < 0)
		return rc;
	s.mem = t;
	s.path = scale_rec_at(m, b.base)->path;
	if ((rc = run_simulate(&s, &out, cause)) == 0) {
		p->ranged = out.res.peak_reserved != p->peak_reserved;
		p->alt_reserved = out.res.peak_reserved;
		p->alt_allocated = out.res.peak_allocated;
	}
	run_output_free(&out);
	trace_mem_free(t);
	return rc;
}

static int
probe(struct scale_report *rep, const struct run_spec *spec, uint64_t v, struct scale_point *p,
    char **cause)
{
	p->value = v;
	rep->probes++;
	return scale_point_run(rep->model, spec, p, cause);
}

static int
search(struct scale_report *rep, const struct run_spec *spec, uint64_t max, char **cause)
{
	struct scale_point lo = { 0 }, hi = { 0 }, mid = { 0 }, tmp;
	uint64_t v;
	int rc;

	rep->searched = 1;
	rep->search_max = max;
	if ((rc = probe(rep, spec, 1, &lo, cause)) < 0)
		goto out;
	if (lo.oomed) {		/* not even 1 fits */
		rep->next = lo;
		lo = (struct scale_point){ 0 };
		goto out;
	}
	if ((rc = probe(rep, spec, max, &hi, cause)) < 0)
		goto out;
	if (!hi.oomed) {
		rep->found = 1;
		rep->fit = hi;
		hi = (struct scale_point){ 0 };
		goto out;
	}
	while (hi.value - lo.value > 1) {
		if ((rc = probe(rep, spec, lo.value + (hi.value - lo.value) / 2, &mid, cause)) < 0)
			goto out;
		tmp = mid.oomed ? hi : lo;
		if (mid.oomed)
			hi = mid;
		else
			lo = mid;
		mid = tmp;
	}
	rep->found = 1;
	rep->fit = lo;
	rep->next = hi;
	lo = hi = (struct scale_point){ 0 };
	for (v = rep->next.value + 1; v <= rep->next.value + PROBES_ABOVE && v <= max; v++) {
		if ((rc = probe(rep, spec, v, &mid, cause)) < 0)
			goto out;
		if (!mid.oomed) {
			rep->fits_again = v;
			break;
		}
	}
out:
	free(lo.oom_at);
	free(hi.oom_at);
	free(mid.oom_at);
	return rc;
}

int
scale_run(struct scale_report *rep, const struct run_spec *spec, uint64_t search_max,
    char **cause)
{
	size_t i;
	int rc;

	struct run_spec free_run = *spec;
	struct scale_point capped = { 0 };

	/* the curve's peaks are the job's own, with no limit; under one, whether it fits */
	free_run.capacity = 0;
	free_run.gpu_total = 0;
	rep->capacity = spec->capacity;
	for (i = 0; i < rep->npoints; i++) {
		if ((rc = scale_point_run(rep->model, &free_run, &rep->points[i], cause)) < 0 ||
		    (rc = point_low(rep->model, &free_run, &rep->points[i], cause)) < 0)
			return rc;
		if (spec->capacity == 0)
			continue;
		capped.value = rep->points[i].value;
		if ((rc = scale_point_run(rep->model, spec, &capped, cause)) < 0) {
			free(capped.oom_at);
			return rc;
		}
		rep->points[i].oomed = capped.oomed;
		rep->points[i].oom_event = capped.oom_event;
		rep->points[i].oom_size = capped.oom_size;
		free(rep->points[i].oom_at);
		rep->points[i].oom_at = capped.oom_at;
		capped.oom_at = NULL;
	}
	return spec->capacity != 0 ? search(rep, spec, search_max, cause) : 0;
}

void
scale_report_free(struct scale_report *rep)
{
	size_t i;

	for (i = 0; i < rep->npoints; i++)
		free(rep->points[i].oom_at);
	free(rep->points);
	free(rep->fit.oom_at);
	free(rep->next.oom_at);
	rep->points = NULL;
	rep->npoints = 0;
}

/*
 * The card every recording was made for without a GPU (python -m gpumemsim
 * record), or NULL when one was recorded on a GPU.  Those can be recorded at
 * the value itself, where their kernels' buffers (which change at sizes
 * between the recordings) are what the job asks for there.
 */
static const char *
nogpu_card(const struct scale_model *m)
{
	const cJSON *src, *gpu = NULL;
	size_t i;

	for (i = 0; i < scale_nrecs(m); i++) {
		src = report_nogpu_source(trace_mem_header(scale_rec_at(m, i)->mem));
		gpu = src ? cJSON_GetObjectItemCaseSensitive(src, "gpu") : NULL;
		if (!cJSON_IsString(gpu))
			return NULL;
	}
	return gpu ? gpu->valuestring : NULL;
}

/* Whether the sizes at this value follow no form the recordings hold. */
static int
formless(const struct scale_built *b)
{
	return b->forms[SCALE_NOFIT] > 0 || b->forms[SCALE_UNALIGNED] > 0 || b->uncapped > 0;
}

void
scale_built_json(cJSON *o, const struct scale_model *m, const struct scale_built *b)
{
	const char *card = nogpu_card(m);
	cJSON *f;
	size_t k;

	cJSON_AddStringToObject(o, "follows", scale_rec_at(m, b->base)->path);
	cJSON_AddNumberToObject(o, "beyond", b->beyond);
	f = cJSON_AddObjectToObject(o, "sizes");
	for (k = 0; k < SCALE_NFORMS; k++)
		cJSON_AddNumberToObject(f, scale_form_name((enum scale_form)k), (double)b->forms[k]);
	cJSON_AddNumberToObject(o, "unaligned_bytes", (double)b->unaligned_bytes);
	cJSON_AddNumberToObject(o, "uncapped", (double)b->uncapped);
	cJSON_AddNumberToObject(o, "clamped", (double)b->clamped);
	if (card != NULL && formless(b))
		cJSON_AddStringToObject(o, "record_at_value", card);
}

static cJSON *
point_json(const struct scale_report *rep, const struct scale_point *p)
{
	cJSON *o = cJSON_CreateObject(), *oom, *r;

	cJSON_AddNumberToObject(o, "value", (double)p->value);
	cJSON_AddNumberToObject(o, "peak_reserved", (double)p->peak_reserved);
	cJSON_AddNumberToObject(o, "peak_allocated", (double)p->peak_allocated);
	cJSON_AddNumberToObject(o, "peak_live", (double)p->peak_live);
	if (p->ranged) {	/* what the recordings leave open: both ends' peaks */
		r = cJSON_AddArrayToObject(o, "peak_reserved_range");
		cJSON_AddItemToArray(r, cJSON_CreateNumber((double)MIN(p->alt_reserved,
		    p->peak_reserved)));
		cJSON_AddItemToArray(r, cJSON_CreateNumber((double)MAX(p->alt_reserved,
		    p->peak_reserved)));
	} else {
		cJSON_AddNullToObject(o, "peak_reserved_range");
	}
	if (p->oomed) {
		oom = cJSON_AddObjectToObject(o, "oom");
		cJSON_AddNumberToObject(oom, "event", (double)p->oom_event);
		cJSON_AddNumberToObject(oom, "size", (double)p->oom_size);
		if (p->oom_at)
			cJSON_AddStringToObject(oom, "at", p->oom_at);
	} else {
		cJSON_AddNullToObject(o, "oom");
	}
	scale_built_json(o, rep->model, &p->built);
	return o;
}

cJSON *
scale_json(const struct scale_report *rep)
{
	cJSON *o = cJSON_CreateObject(), *a, *it, *s;
	size_t i, n = scale_nrecs(rep->model);

	a = cJSON_AddArrayToObject(o, "recordings");
	for (i = 0; i < n; i++) {
		const struct scale_rec *r = scale_rec_at(rep->model, i);

		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "trace", r->path);
		cJSON_AddNumberToObject(it, "value", (double)r->value);
		cJSON_AddItemToArray(a, it);
	}
	cJSON_AddStringToObject(o, "policy", rep->policy);
	if (rep->capacity)
		cJSON_AddNumberToObject(o, "capacity", (double)rep->capacity);
	else
		cJSON_AddNullToObject(o, "capacity");
	if (rep->gpu)
		cJSON_AddStringToObject(o, "gpu", rep->gpu);
	a = cJSON_AddArrayToObject(o, "points");
	for (i = 0; i < rep->npoints; i++)
		cJSON_AddItemToArray(a, point_json(rep, &rep->points[i]));
	if (rep->searched) {
		s = cJSON_AddObjectToObject(o, "largest_fitting");
		if (rep->found)
			cJSON_AddNumberToObject(s, "value", (double)rep->fit.value);
		else
			cJSON_AddNullToObject(s, "value");
		cJSON_AddNumberToObject(s, "searched_up_to", (double)rep->search_max);
		if (rep->found)
			cJSON_AddItemToObject(s, "fit", point_json(rep, &rep->fit));
		if (rep->next.value)
			cJSON_AddItemToObject(s, "next", point_json(rep, &rep->next));
		if (rep->fits_again)
			cJSON_AddNumberToObject(s, "fits_again_at", (double)rep->fits_again);
		cJSON_AddNumberToObject(s, "replays", (double)rep->probes);
	}
	return o;
}

void
scale_built_text(FILE *f, const struct scale_model *m, const struct scale_built *b)
{
	uint64_t at = scale_rec_at(m, b->base)->value;
	const char *card;

	if (b->forms[SCALE_UNALIGNED])
		fprintf(f, "    %zu allocations (%s at %llu) are only in the recording at %llu: "
		    "taken in proportion to the value (first: event %zu), and as recorded for "
		    "the low end (a path the job takes above some size: record at another value "
		    "that has them, %llu say, and they are fitted)\n",
		    b->forms[SCALE_UNALIGNED], SZ(b->unaligned_bytes), (unsigned long long)b->value,
		    (unsigned long long)at, b->first_unaligned,
		    (unsigned long long)(b->value > at ? b->value : 2 * at));
	if (b->uncapped)
		fprintf(f, "    %zu reductions' staging buffers grow past every recording "
		    "(first: event %zu): they stop at a size the GPU sets (its multiprocessors), "
		    "which no recording has reached; the low end holds them at the largest "
		    "recorded (record at %llu too, and the cap is seen or ruled out)\n",
		    b->uncapped, b->first_uncapped, (unsigned long long)b->value);
	if (b->forms[SCALE_NOFIT] && scale_nrecs(m) == 2)
		fprintf(f, "    %zu sizes shrink, or grow faster than the value but not as its "
		    "square: a library's choice per shape (a cuDNN workspace, say), the larger "
		    "recorded kept (first: event %zu)\n", b->forms[SCALE_NOFIT], b->first_nofit);
	else if (b->forms[SCALE_NOFIT])
		fprintf(f, "    %zu sizes fit no form through every recording: the quadratic "
		    "through the three nearest (first: event %zu)\n", b->forms[SCALE_NOFIT],
		    b->first_nofit);
	if (b->clamped)
		fprintf(f, "    %zu sizes fell to 0 or below and were raised to the smallest\n",
		    b->clamped);
	if ((card = nogpu_card(m)) != NULL && formless(b))
		fprintf(f, "    recorded without a GPU: a recording at %llu itself (python -m "
		    "gpumemsim record --gpu=%s, the job at %llu) is exact where these sizes "
		    "follow no form (a kernel's buffers change at sizes between recordings)\n",
		    (unsigned long long)b->value, card, (unsigned long long)b->value);
}

static void
oom_line(FILE *f, const struct scale_report *rep, const struct scale_point *p)
{
	fprintf(f, "out of memory at event %llu of the job as recorded at %llu (%s%s%s)",
	    (unsigned long long)p->oom_event,
	    (unsigned long long)scale_rec_at(rep->model, p->built.base)->value, SZ(p->oom_size),
	    p->oom_at ? " at " : "", p->oom_at ? p->oom_at : "");
}

char *
scale_text(const struct scale_report *rep)
{
	char *out = NULL;
	size_t len = 0, i, k, n = scale_nrecs(rep->model);
	FILE *f = open_memstream(&out, &len);
	const struct scale_built *b;

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	fprintf(f, "scale: the job at other values, from %zu recordings\n", n);
	for (i = 0; i < n; i++)
		fprintf(f, "  at %llu: %s\n", (unsigned long long)scale_rec_at(rep->model, i)->value,
		    scale_rec_at(rep->model, i)->path);
	fprintf(f, "policy: %s", rep->policy);
	if (rep->capacity)
		fprintf(f, ", capacity %s%s%s%s", SZ(rep->capacity), rep->gpu ? " (" : "",
		    rep->gpu ? rep->gpu : "", rep->gpu ? ")" : "");
	fprintf(f, "\n");
	if (rep->npoints > 0) {
		fprintf(f, "\n  %8s  %14s  %14s\n", "value", "peak reserved", "peak allocated");
		for (i = 0; i < rep->npoints; i++) {
			const struct scale_point *p = &rep->points[i];

			b = &p->built;
			fprintf(f, "  %8llu  %14s  %14s", (unsigned long long)p->value,
			    SZ(p->peak_reserved), SZ(p->peak_allocated));
			for (k = 0; k < n && scale_rec_at(rep->model, k)->value != p->value; k++)
				;
			if (k < n)
				fprintf(f, "  recorded");
			else if (b->beyond > 0)
				fprintf(f, "  %.1fx beyond the recordings", b->beyond);
			if (p->ranged)
				fprintf(f, "%s%s to %s: the recordings cannot decide", b->beyond > 0 ?
				    "; " : "  ", SZ(MIN(p->alt_reserved, p->peak_reserved)),
				    SZ(MAX(p->alt_reserved, p->peak_reserved)));
			if (p->oomed) {
				fprintf(f, "  ");
				oom_line(f, rep, p);
			}
			fprintf(f, "\n");
		}
		b = &rep->points[rep->npoints - 1].built;
		fprintf(f, "\n  sizes at %llu:", (unsigned long long)rep->points[rep->npoints - 1].value);
		for (k = 0; k < SCALE_NFORMS; k++)
			fprintf(f, "%s %zu %s", k ? "," : "", b->forms[k],
			    scale_form_name((enum scale_form)k));
		fprintf(f, "\n");
		scale_built_text(f, rep->model, &rep->points[rep->npoints - 1].built);
	}
	if (rep->searched) {
		fprintf(f, "\n");
		if (!rep->found) {
			fprintf(f, "nothing fits %s: at 1, ", SZ(rep->capacity));
			oom_line(f, rep, &rep->next);
			fprintf(f, "\n");
		} else if (rep->next.value == 0) {
			fprintf(f, "largest value that fits %s: %llu or more (searched up to %llu: "
			    "%d times the largest recorded), peak reserved %s\n", SZ(rep->capacity),
			    (unsigned long long)rep->fit.value, (unsigned long long)rep->search_max,
			    SCALE_EXTRAPOLATION_MAX, SZ(rep->fit.peak_reserved));
		} else {
			fprintf(f, "largest value that fits %s: %llu (peak reserved %s)\n",
			    SZ(rep->capacity), (unsigned long long)rep->fit.value,
			    SZ(rep->fit.peak_reserved));
			fprintf(f, "  at %llu: ", (unsigned long long)rep->next.value);
			oom_line(f, rep, &rep->next);
			fprintf(f, "\n");
			if (rep->fits_again)
				fprintf(f, "  but %llu fits again: the peak is not monotone in the "
				    "value here\n", (unsigned long long)rep->fits_again);
		}
		if (rep->found && rep->fit.built.beyond > 2)
			fprintf(f, "  (%.1fx beyond the recordings: record nearer it to be sure)\n",
			    rep->fit.built.beyond);
		if (rep->found)
			scale_built_text(f, rep->model, &rep->fit.built);
	}
	fclose(f);
	return out;
}
