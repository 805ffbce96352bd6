/*
 * incomplete.c - what every report says about an input that does not hold
 * the whole run (report.h): a snapshot that starts mid-run or has no history
 * at all, a log whose last record was cut off.  The numbers are then about the events the trace holds plus the
 * blocks and segments seeded from the dump, so they bound what really
 * happened from below; a report must say so, once, in text and in JSON.
 * A job recorded without a GPU is whole but modelled: its note says what it
 * stood for, how far from PyTorch's its peak reserved was measured to fall,
 * and what it assumed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "sim/gms.h"

static double
source_num(const struct trace_header *hdr, const char *obj, const char *key)
{
	const cJSON *o = hdr->source ? cJSON_GetObjectItemCaseSensitive(hdr->source, obj) : NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int
has_history(const struct trace_header *hdr)
{
	const cJSON *h = hdr->source ? cJSON_GetObjectItemCaseSensitive(hdr->source, "history") :
	    NULL;

	return !cJSON_IsFalse(h);
}

#define OOM_MEANING "the job ran out of memory: what it would have done next is not " \
	"in the recording. The failed request is replayed (never freed), so " \
	"a capacity that fits is the least that gets past that event, a lower bound on what " \
	"the whole job needs"

/* A profile whose numbers disagree with each other (kineto.c): its object, or NULL. */
static const cJSON *
inconsistent(const struct trace_header *hdr)
{
	return hdr->source ? cJSON_GetObjectItemCaseSensitive(hdr->source, "inconsistent") : NULL;
}

#define INCONSISTENT_MEANING "the recording disagrees with itself: a profile's " \
	"Total Allocated is not the last one plus the event's Bytes, a free's size is not " \
	"its block's, or a block is allocated at an address still live; the events are " \
	"replayed as recorded, and the observed numbers cannot all be right"

const cJSON *
report_nogpu_source(const struct trace_header *hdr)
{
	const cJSON *from = hdr->source ? cJSON_GetObjectItemCaseSensitive(hdr->source, "from") :
	    NULL;

	return cJSON_IsString(from) && strncmp(from->valuestring, "recorded without a GPU", 22) == 0 ?
	    hdr->source : NULL;
}

double
report_nogpu_uncertainty(const struct trace_header *hdr)
{
	const cJSON *u = report_nogpu_source(hdr) ? cJSON_GetObjectItemCaseSensitive(hdr->source, "uncertainty") :
	    NULL;

	return cJSON_IsNumber(u) && u->valuedouble >= 0 && u->valuedouble < 1 ? u->valuedouble : -1;
}

static void
nogpu_json(cJSON *o, const struct trace_header *hdr)
{
	static const char *const keys[] = { "gpu", "uncertainty", "uncertainty_why", "assumed" };
	cJSON *n = cJSON_AddObjectToObject(o, "recorded_without_gpu");
	const cJSON *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		v = cJSON_GetObjectItemCaseSensitive(hdr->source, keys[i]);
		cJSON_AddItemToObject(n, keys[i], v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
	}
}

/* Whether the recording says how far it may be from the real run (newer ones do). */
static int
nogpu_says(const struct trace_header *hdr)
{
	return report_nogpu_source(hdr) && cJSON_GetObjectItemCaseSensitive(hdr->source, "uncertainty_why");
}

cJSON *
report_incomplete_json(const struct trace_header *hdr)
{
	const cJSON *bad = inconsistent(hdr);
	int says = nogpu_says(hdr);	/* a recording without a GPU says what it stood for */
	cJSON *o;

	if (!hdr->starts_mid_run && hdr->cut == NULL && !hdr->ends_in_oom && bad == NULL && !says)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (says)
		nogpu_json(o, hdr);
	if (bad != NULL) {
		cJSON_AddItemToObject(o, "inconsistent", cJSON_Duplicate(bad, 1));
		cJSON_AddStringToObject(o, "inconsistent_meaning", INCONSISTENT_MEANING);
	}
	if (hdr->cut != NULL)
		cJSON_AddStringToObject(o, "cut", hdr->cut);
	if (hdr->ends_in_oom) {
		cJSON_AddBoolToObject(o, "ends_in_oom", 1);
		cJSON_AddStringToObject(o, "oom_meaning", OOM_MEANING);
	}
	if (!hdr->starts_mid_run)
		return o;
	cJSON_AddBoolToObject(o, "starts_mid_run", 1);
	cJSON_AddBoolToObject(o, "history", has_history(hdr));
	cJSON_AddNumberToObject(o, "seeded_allocs", source_num(hdr, "seeded", "allocs"));
	cJSON_AddNumberToObject(o, "seeded_segments", source_num(hdr, "seeded", "segments"));
	if (source_num(hdr, "seeded", "live_before") > 0)
		cJSON_AddNumberToObject(o, "live_before", source_num(hdr, "seeded", "live_before"));
	cJSON_AddStringToObject(o, "meaning", has_history(hdr) ?
	    "the recording began after the job did: what was live before it is seeded from the "
	    "dump at the start, so peaks are lower bounds and the order of the seeded "
	    "allocations is unknown" :
	    "the snapshot has no history: only the state at dump is replayed, so the numbers "
	    "describe that moment, not the run's peak");
	return o;
}

static char *mid_run_text(const struct trace_header *hdr);

/* RECORDED WITHOUT A GPU: the card, the measured range, the assumptions. */
static char *
nogpu_text(const struct trace_header *hdr)
{
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(hdr->source, "gpu"),
	    *why = cJSON_GetObjectItemCaseSensitive(hdr->source, "uncertainty_why"),
	    *assumed = cJSON_GetObjectItemCaseSensitive(hdr->source, "assumed"), *a;
	double u = report_nogpu_uncertainty(hdr);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return NULL;
	fprintf(f, "RECORDED WITHOUT A GPU: %s stands for the %s; ", hdr->name,
	    cJSON_IsString(gpu) ? gpu->valuestring : "GPU it names");
	if (u >= 0)
		fprintf(f, "PyTorch's peak reserved is expected within %.0f%% of the caching "
		    "replay's", 100.0 * u);
	else
		fprintf(f, "no range is stated for PyTorch's peak reserved");
	fprintf(f, " (%s)\n", cJSON_IsString(why) ? why->valuestring : "");
	cJSON_ArrayForEach(a, assumed)
		if (cJSON_IsNumber(a))
			fprintf(f, "  assumed: %s (%.0f time%s)\n", a->string, a->valuedouble,
			    a->valuedouble == 1 ? "" : "s");
	fclose(f);
	return out;
}

char *
report_incomplete_text(const struct trace_header *hdr)
{
	char *mid = mid_run_text(hdr), *both;
	const cJSON *bad = inconsistent(hdr);

	if (nogpu_says(hdr)) {
		char *n = nogpu_text(hdr);

		both = gms_asprintf("%s%s", mid ? mid : "", n ? n : "");
		free(mid);
		free(n);
		mid = both;
	}

	if (bad != NULL) {
		/* what disagrees, each part said only when it is there */
		static const struct {
			const char *key, *first, *one, *many;
		} parts[] = {
			{ "totals", "first_total_event", "event whose Total Allocated disagrees",
			    "events whose Total Allocated disagrees" },
			{ "sizes", "first_size_event", "free whose size is not its block's",
			    "frees whose size is not their block's" },
			{ "reused", "first_reused_event", "allocation at an address still live",
			    "allocations at an address still live" },
		};
		char said[512] = "";
		size_t i, len = 0;

		for (i = 0; i < ARRAY_SIZE(parts); i++) {
			double n = source_num(hdr, "inconsistent", parts[i].key);

			if (n > 0 && len < sizeof(said))
				len += (size_t)snprintf(said + len, sizeof(said) - len,
				    "%s%.0f %s (the first: event %.0f)", len ? ", " : "", n,
				    n == 1 ? parts[i].one : parts[i].many,
				    source_num(hdr, "inconsistent", parts[i].first));
		}
		both = gms_asprintf("%sINCONSISTENT: %s: %s: " INCONSISTENT_MEANING "\n",
		    mid ? mid : "", hdr->name, said);
		free(mid);
		mid = both;
	}
	if (!hdr->ends_in_oom)
		return mid;
	both = gms_asprintf("%sCUT SHORT BY ITS OUT OF MEMORY: %s: " OOM_MEANING "\n",
	    mid ? mid : "", hdr->name);
	free(mid);
	return both;
}

static char *
mid_run_text(const struct trace_header *hdr)
{
	double a = source_num(hdr, "seeded", "allocs"), s = source_num(hdr, "seeded", "segments");

	if (hdr->cut != NULL && !hdr->starts_mid_run)
		return gms_asprintf("CUT SHORT: %s: %s\n", hdr->name, hdr->cut);
	if (!hdr->starts_mid_run)
		return NULL;
	if (source_num(hdr, "seeded", "live_before") > 0 ||
	    source_num(hdr, "seeded", "frees_of_earlier_blocks") > 0) {
		char before[32];

		return gms_asprintf("STARTS MID-RUN: %s covers a window of the job: %s were live "
		    "before it, seeded at its start (in segments of the policy's choosing), so they "
		    "count in every capacity check; %.0f of its frees are of those blocks; the "
		    "reserved peak is a lower bound\n", hdr->name,
		    gms_fmt_size((uint64_t)source_num(hdr, "seeded", "live_before"), before,
		    sizeof(before)), source_num(hdr, "seeded", "frees_of_earlier_blocks"));
	}
	if (!has_history(hdr)) {
		double res = source_num(hdr, "dump", "reserved"), act = source_num(hdr, "dump", "active");
		char r1[32], r2[32], r3[32];

		return gms_asprintf("NO HISTORY: %s holds only the state at dump (%.0f block%s in "
		    "%.0f segment%s); the numbers describe that moment, not the run's peak\n"
		    "  at dump PyTorch held %s reserved, %s in blocks (fragmentation %.1f%%), the "
		    "largest free block %s\n", hdr->name, a, a == 1 ? "" : "s", s, s == 1 ? "" : "s",
		    gms_fmt_size((uint64_t)res, r1, sizeof(r1)), gms_fmt_size((uint64_t)act, r2,
		    sizeof(r2)), res > 0 ? 100.0 * (1.0 - act / res) : 0.0,
		    gms_fmt_size((uint64_t)source_num(hdr, "dump", "largest_free"), r3, sizeof(r3)));
	}
	return gms_asprintf("STARTS MID-RUN: %s was recorded after the job began; %.0f block%s "
	    "and %.0f segment%s live before its first event are seeded from the dump, so peaks "
	    "are lower bounds\n", hdr->name, a, a == 1 ? "" : "s", s, s == 1 ? "" : "s");
}
