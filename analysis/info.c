/*
 * info.c - the summary of a trace for `gpumemsim info` (info.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/info.h"
#include "analysis/report.h"
#include "sim/gms.h"
#include "sim/sizeclass.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

void
info_init(struct info *in)
{
	memset(in, 0, sizeof(*in));
}

static void
note_stream(struct info *in, int64_t stream)
{
	int i;

	for (i = 0; i < in->nstreams; i++)
		if (in->streams[i] == stream)
			return;
	if (in->nstreams < INFO_STREAMS)
		in->streams[in->nstreams++] = stream;
	else
		in->more_streams = 1;
}

/* Keep the INFO_TOP largest allocations, largest first, earliest on ties. */
static void
note_top(struct info *in, uint64_t index, const struct trace_event *ev)
{
	int i = in->ntop;

	if (in->ntop == INFO_TOP && ev->size <= in->top[INFO_TOP - 1].size)
		return;
	if (in->ntop == INFO_TOP) {
		free(in->top[INFO_TOP - 1].at);
		i = INFO_TOP - 1;
	} else {
		in->ntop++;
	}
	while (i > 0 && in->top[i - 1].size < ev->size) {
		in->top[i] = in->top[i - 1];
		i--;
	}
	in->top[i] = (struct info_alloc){ .size = ev->size, .event = index, .id = ev->id,
	    .stream = trace_stream_base(ev->stream), .at = ev->at ? gms_strdup(ev->at) : NULL };
}

void
info_event(struct info *in, uint64_t index, const struct trace_event *ev)
{
	int b;

	in->events++;
	in->ops[ev->op]++;
	if (ev->flags & TRACE_HAS_TIME) {
		if (!in->has_time) {
			in->first_t = in->last_t = ev->t_us;
		} else if (ev->t_us < in->prev_t && in->backwards++ == 0) {
			in->first_backwards = index;
		}
		in->first_t = GMS_MIN(in->first_t, ev->t_us);
		in->last_t = GMS_MAX(in->last_t, ev->t_us);
		in->prev_t = ev->t_us;
		in->has_time = 1;
	}
	if (ev->op != TRACE_ALLOC)
		return;
	note_stream(in, trace_stream_base(ev->stream));
	in->requested_total += ev->size;
	b = ev->size == 0 ? 0 : (int)sc_log2(ev->size) + 1;
	in->hist_count[b]++;
	in->hist_bytes[b] += ev->size;
	note_top(in, index, ev);
}

void
info_free(struct info *in)
{
	int i;

	for (i = 0; i < in->ntop; i++)
		free(in->top[i].at);
}

cJSON *
info_json(const struct info *in, const struct trace_header *hdr, const struct sim_result *res)
{
	cJSON *o = cJSON_CreateObject(), *a, *it;
	int i;

	cJSON_AddStringToObject(o, "trace", hdr->name);
	cJSON_AddStringToObject(o, "format", hdr->format);
	cJSON_AddNumberToObject(o, "events", (double)in->events);
	cJSON_AddNumberToObject(o, "allocs", (double)in->ops[TRACE_ALLOC]);
	cJSON_AddNumberToObject(o, "frees", (double)in->ops[TRACE_FREE]);
	cJSON_AddNumberToObject(o, "marks", (double)in->ops[TRACE_MARK]);
	cJSON_AddNumberToObject(o, "observed_events", (double)(in->events - in->ops[TRACE_ALLOC] -
	    in->ops[TRACE_FREE] - in->ops[TRACE_MARK] - in->ops[TRACE_EMPTY_CACHE]));
	cJSON_AddNumberToObject(o, "empty_cache_calls", (double)in->ops[TRACE_EMPTY_CACHE]);
	a = cJSON_AddArrayToObject(o, "streams");
	for (i = 0; i < in->nstreams; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)in->streams[i]));
	if (in->has_time && in->backwards > 0) {
		cJSON *b = cJSON_AddObjectToObject(o, "time_backwards");

		cJSON_AddNumberToObject(b, "events", (double)in->backwards);
		cJSON_AddNumberToObject(b, "first_event", (double)in->first_backwards);
	} else {
		cJSON_AddNullToObject(o, "time_backwards");
	}
	if (in->has_time)
		cJSON_AddNumberToObject(o, "duration_us", (double)(in->last_t - in->first_t));
	else
		cJSON_AddNullToObject(o, "duration_us");
	cJSON_AddNumberToObject(o, "requested_total", (double)in->requested_total);
	cJSON_AddNumberToObject(o, "peak_live", (double)res->peak_live);
	cJSON_AddNumberToObject(o, "peak_live_event", (double)res->peak_live_event);
	cJSON_AddNumberToObject(o, "live_at_end", (double)res->end_live);
	cJSON_AddNumberToObject(o, "unknown_frees", (double)res->unknown_frees);
	a = cJSON_AddArrayToObject(o, "size_histogram");
	for (i = 0; i < 65; i++) {
		if (in->hist_count[i] == 0)
			continue;
		it = cJSON_CreateObject();
		cJSON_AddNumberToObject(it, "min", i == 0 ? 0 : (double)((uint64_t)1 << (i - 1)));
		cJSON_AddNumberToObject(it, "max", i == 0 ? 0 :
		    (double)(((uint64_t)1 << (i - 1)) * 2 - 1));
		cJSON_AddNumberToObject(it, "count", (double)in->hist_count[i]);
		cJSON_AddNumberToObject(it, "bytes", (double)in->hist_bytes[i]);
		cJSON_AddItemToArray(a, it);
	}
	a = cJSON_AddArrayToObject(o, "largest");
	for (i = 0; i < in->ntop; i++) {
		it = cJSON_CreateObject();
		cJSON_AddNumberToObject(it, "size", (double)in->top[i].size);
		cJSON_AddNumberToObject(it, "event", (double)in->top[i].event);
		cJSON_AddNumberToObject(it, "id", (double)in->top[i].id);
		cJSON_AddNumberToObject(it, "stream", (double)in->top[i].stream);
		if (in->top[i].at)
			cJSON_AddStringToObject(it, "at", in->top[i].at);
		else
			cJSON_AddNullToObject(it, "at");
		cJSON_AddItemToArray(a, it);
	}
	cJSON_AddItemToObject(o, "observed", hdr->observed ? cJSON_Duplicate(hdr->observed, 1) :
	    cJSON_CreateNull());
	cJSON_AddItemToObject(o, "source", hdr->source ? cJSON_Duplicate(hdr->source, 1) :
	    cJSON_CreateNull());
	cJSON_AddItemToObject(o, "device", hdr->device ? cJSON_Duplicate(hdr->device, 1) :
	    cJSON_CreateNull());
	return o;
}

char *
info_text(const struct info *in, const struct trace_header *hdr, const struct sim_result *res)
{
	char *out = NULL, bar[41];
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	uint64_t maxc = 0, lo;
	const cJSON *it;
	int i, w;

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	fprintf(f, "%s (%s)\n\n", hdr->name, hdr->format);
	it = hdr->source ? cJSON_GetObjectItemCaseSensitive(hdr->source, "device_type") : NULL;
	if (cJSON_IsString(it))
		fprintf(f, "  device          %s device %d\n", it->valuestring,
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(hdr->source, "device")));
	/* a job recorded without a GPU (python -m gpumemsim record): the card it stood for */
	if (report_nogpu_source(hdr) != NULL) {
		const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(hdr->source, "gpu"),
		    *fw = cJSON_GetObjectItemCaseSensitive(hdr->source, "framework");

		fprintf(f, "  recorded        without a GPU, as a%s %s would run it (%s)\n",
		    cJSON_IsString(gpu) && strchr("AEHILMORSX", gpu->valuestring[0]) ? "n" : "",
		    cJSON_IsString(gpu) ? gpu->valuestring : "GPU",
		    cJSON_IsString(fw) ? fw->valuestring : "PyTorch");
	}
	fprintf(f, "  events          %llu: %llu alloc%s, %llu free%s, %llu mark%s, %llu observed\n",
	    (unsigned long long)in->events, (unsigned long long)in->ops[TRACE_ALLOC],
	    GMS_PLURAL(in->ops[TRACE_ALLOC]), (unsigned long long)in->ops[TRACE_FREE],
	    GMS_PLURAL(in->ops[TRACE_FREE]), (unsigned long long)in->ops[TRACE_MARK],
	    GMS_PLURAL(in->ops[TRACE_MARK]),
	    (unsigned long long)(in->events - in->ops[TRACE_ALLOC] - in->ops[TRACE_FREE] -
	    in->ops[TRACE_MARK] - in->ops[TRACE_EMPTY_CACHE]));
	if (in->ops[TRACE_EMPTY_CACHE] > 0)
		fprintf(f, "  empty_cache     %llu calls of torch.cuda.empty_cache()\n",
		    (unsigned long long)in->ops[TRACE_EMPTY_CACHE]);
	fprintf(f, "  streams         %d%s:", in->nstreams, in->more_streams ? "+" : "");
	for (i = 0; i < in->nstreams && i < 8; i++)
		fprintf(f, " %lld", (long long)in->streams[i]);
	fprintf(f, "%s\n", in->nstreams > 8 ? " ..." : "");
	if (in->has_time)
		fprintf(f, "  duration        %.3f s%s\n", (double)(in->last_t - in->first_t) / 1e6,
		    in->backwards ? " (from the earliest time to the latest)" : "");

	else
		fprintf(f, "  duration        unknown (no times)\n");
	fprintf(f, "  requested       %s in all\n", SZ(in->requested_total));
	fprintf(f, "  peak live       %s (%llu B) at event %llu\n", SZ(res->peak_live),
	    (unsigned long long)res->peak_live, (unsigned long long)res->peak_live_event);
	fprintf(f, "  live at end     %llu allocations\n", (unsigned long long)res->end_live);
	if (res->unknown_frees)
		fprintf(f, "  unknown frees   %llu (the trace starts mid-run)\n",
		    (unsigned long long)res->unknown_frees);
	if (hdr->starts_mid_run)
		fprintf(f, "  starts mid-run  yes: what came before the first event is unknown\n");

	fprintf(f, "\n  sizes            count       bytes\n");
	for (i = 0; i < 65; i++)
		maxc = GMS_MAX(maxc, in->hist_count[i]);
	for (i = 0; i < 65; i++) {
		if (in->hist_count[i] == 0)
			continue;
		lo = i == 0 ? 0 : (uint64_t)1 << (i - 1);
		w = (int)(40 * in->hist_count[i] / (maxc ? maxc : 1));
		memset(bar, '#', (size_t)w);
		bar[w ? w : 0] = '\0';
		fprintf(f, "  %s%10s  %8llu  %10s  %s\n", i == 0 ? "  " : ">=", i == 0 ? "0 B" : SZ(lo),
		    (unsigned long long)in->hist_count[i], SZ(in->hist_bytes[i]), bar);
	}
	if (in->ntop > 0) {
		fprintf(f, "\n  largest allocations\n");
		for (i = 0; i < in->ntop; i++)
			fprintf(f, "  %12s  event %-8llu id %-8llu %s\n", SZ(in->top[i].size),
			    (unsigned long long)in->top[i].event, (unsigned long long)in->top[i].id,
			    in->top[i].at ? in->top[i].at : "");
	}
	if (hdr->observed != NULL) {
		fprintf(f, "\n  observed (as recorded)\n");
		cJSON_ArrayForEach(it, hdr->observed) {
			if (cJSON_IsNumber(it) && it->valuedouble == floor(it->valuedouble))
				fprintf(f, "  %-16s %.0f\n", it->string, it->valuedouble);
			else if (cJSON_IsNumber(it))	/* a fraction: the BFC allocator's fragmentation */
				fprintf(f, "  %-16s %.6g\n", it->string, it->valuedouble);
			else if (cJSON_IsString(it))
				fprintf(f, "  %-16s %s\n", it->string, it->valuestring);
		}
	}
	fclose(f);
	return out;
}
