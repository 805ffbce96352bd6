/*
 * kineto.c - PyTorch profiler traces (Kineto's Chrome trace JSON, recorded
 * with profile_memory=True) as gpumemsim traces: the instant events named
 * "[memory]" of one CUDA device ("Device Type" 1) become allocs (Bytes > 0,
 * at Addr) and frees (Bytes < 0, of the block at Addr); everything else in
 * "traceEvents" is skipped.  trace-json.c streams the document and hands
 * each element here, twice: once to count (kineto_count), once to convert
 * (kineto_event).
 *
 * A profile covers a window of a job: memory live before it shows as
 * "Total Allocated" above the first event's own bytes, and its frees as
 * frees of unknown blocks.  Such a trace starts mid-run, and says so; what
 * PyTorch reserved ("Total Reserved") is the observed peak only for a
 * profile that saw the job from its first allocation.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "sim/gms.h"
#include "traces/kineto.h"

#define KINETO_DEVICES 64
#define CUDA_DEVICE_TYPE 1

struct addr_id {
	uint64_t addr, id;
	UT_hash_handle hh;
};

struct kineto {
	int want;			/* the device asked for, -1 for the busiest */
	int device;			/* the device read */
	uint64_t count[KINETO_DEVICES];	/* [memory] events per device */
	/* The device read, while counting and converting: */
	int first_seen;
	double live_before;		/* Total Allocated - Bytes at its first event */
	double peak_reserved;		/* the largest Total Reserved */
	uint64_t orphans;		/* frees of blocks the profile never saw allocated */
	struct addr_id *live;
	uint64_t next_id;
};

struct kineto *
kineto_new(int device)
{
	struct kineto *k = gms_calloc(1, sizeof(*k));

	k->want = device;
	k->device = -1;
	k->next_id = 1;
	return k;
}

static void
clear(struct kineto *k)
{
	struct addr_id *a, *tmp;

	HASH_ITER(hh, k->live, a, tmp) {
		HASH_DEL(k->live, a);
		free(a);
	}
}

void
kineto_free(struct kineto *k)
{
	if (k == NULL)
		return;
	clear(k);
	free(k);
}

/* A number in args, or NAN. */
static double
arg(const cJSON *args, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The args of a CUDA [memory] event, and its device; NULL for anything else. */
static const cJSON *
memory_args(const cJSON *ev, int *device)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(ev, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
	double type, dev;

	if (!cJSON_IsString(name) || strcmp(name->valuestring, "[memory]") != 0 ||
	    !cJSON_IsObject(args))
		return NULL;
	type = arg(args, "Device Type");
	dev = arg(args, "Device Id");
	if (type != CUDA_DEVICE_TYPE || !(dev >= 0 && dev < KINETO_DEVICES) || dev != floor(dev))
		return NULL;
	*device = (int)dev;
	return args;
}

void
kineto_count(struct kineto *k, const cJSON *ev)
{
	int d;

	if (memory_args(ev, &d) != NULL)
		k->count[d]++;
}

/* Check one event's numbers: 0, or GMS_ETRACE with *cause. */
static int
numbers(const cJSON *args, double *addr, double *bytes, char **cause)
{
	*addr = arg(args, "Addr");
	*bytes = arg(args, "Bytes");
	if (!(*addr >= 0 && *addr <= (double)TRACE_INT_MAX) || *addr != floor(*addr))
		return gms_fail(cause, GMS_ETRACE, "[memory] event \"Addr\" is not an address");
	if (!(fabs(*bytes) <= 1125899906842624.0) || *bytes != floor(*bytes))
		return gms_fail(cause, GMS_ETRACE, "[memory] event \"Bytes\" is not a size");
	return 0;
}

/* Follow the live set through one event of the device read (both passes). */
static int
track(struct kineto *k, const cJSON *args, double addr, double bytes, uint64_t *id)
{
	struct addr_id *a;
	uint64_t key = (uint64_t)addr;
	double total = arg(args, "Total Allocated"), reserved = arg(args, "Total Reserved");

	if (!k->first_seen) {
		k->first_seen = 1;
		if (bytes > 0 && isfinite(total) && total > bytes)
			k->live_before = total - bytes;
	}
	if (isfinite(reserved) && reserved > k->peak_reserved)
		k->peak_reserved = reserved;
	HASH_FIND(hh, k->live, &key, sizeof(key), a);
	if (bytes > 0) {
		if (a == NULL) {
			a = gms_calloc(1, sizeof(*a));
			a->addr = key;
			HASH_ADD(hh, k->live, addr, sizeof(a->addr), a);
		}
		a->id = k->next_id++;
		*id = a->id;
		return 1;
	}
	if (a == NULL) {
		k->orphans++;
		*id = 0;
		return 0;
	}
	*id = a->id;
	HASH_DEL(k->live, a);
	free(a);
	return 1;
}

int
kineto_choose(struct kineto *k, char **cause)
{
	int d, best = 0;

	for (d = 0; d < KINETO_DEVICES; d++)
		if (k->count[d] > k->count[best])
			best = d;
	if (k->want >= 0) {
		if (k->want >= KINETO_DEVICES || k->count[k->want] == 0)
			return gms_fail(cause, GMS_ETRACE, "no [memory] events of CUDA device %d in "
			    "this profile", k->want);
		best = k->want;
	} else if (k->count[best] == 0) {
		return gms_fail(cause, GMS_ETRACE, "a PyTorch profiler trace without CUDA [memory] "
		    "events (record it with profile_memory=True)");
	}
	k->device = best;
	return 0;
}

int
kineto_scan(struct kineto *k, const cJSON *ev, char **cause)
{
	struct trace_event unused;
	int rc = kineto_event(k, ev, &unused, cause);

	return rc < 0 ? rc : 0;
}

cJSON *
kineto_header(struct kineto *k, const char *name)
{
	cJSON *hdr = cJSON_CreateObject(), *src;
	int mid = k->live_before > 0 || k->orphans > 0;

	cJSON_AddStringToObject(hdr, "format", "gpumemsim-trace");
	cJSON_AddNumberToObject(hdr, "version", 1);
	cJSON_AddStringToObject(hdr, "name", name);
	src = cJSON_AddObjectToObject(hdr, "source");
	cJSON_AddStringToObject(src, "from", "pytorch profiler (kineto) trace");
	cJSON_AddNumberToObject(src, "device", k->device);
	cJSON_AddNumberToObject(src, "memory_events", (double)k->count[k->device]);
	if (mid) {
		cJSON *seeded = cJSON_AddObjectToObject(src, "seeded");

		cJSON_AddNumberToObject(seeded, "allocs", 0);
		cJSON_AddNumberToObject(seeded, "segments", 0);
		cJSON_AddNumberToObject(seeded, "live_before", k->live_before);
		cJSON_AddNumberToObject(seeded, "frees_of_earlier_blocks", (double)k->orphans);
		cJSON_AddStringToObject(seeded, "unknown", "what was allocated before the "
		    "profile began: its bytes were live throughout, and are not in the numbers");
		cJSON_AddBoolToObject(hdr, "starts_mid_run", 1);
	} else if (k->peak_reserved > 0) {
		cJSON *obs = cJSON_AddObjectToObject(hdr, "observed");

		cJSON_AddStringToObject(obs, "allocator", "pytorch-caching");
		cJSON_AddNumberToObject(obs, "peak_reserved", k->peak_reserved);
	}
	/* the second pass follows the live set again from the start */
	clear(k);
	k->next_id = 1;
	k->first_seen = 0;
	k->orphans = 0;
	return hdr;
}

int
kineto_event(struct kineto *k, const cJSON *ev, struct trace_event *out, char **cause)
{
	const cJSON *args, *ts;
	double addr, bytes;
	uint64_t id;
	int d, err;

	if ((args = memory_args(ev, &d)) == NULL || d != k->device)
		return 0;
	if ((err = numbers(args, &addr, &bytes, cause)) < 0)
		return err;
	if (bytes == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	if (!track(k, args, addr, bytes, &id)) {
		/* a block from before the profile: a free the engine counts as unknown */
		out->op = TRACE_FREE;
		out->id = (uint64_t)TRACE_INT_MAX + 1 - k->orphans;
	} else if (bytes > 0) {
		out->op = TRACE_ALLOC;
		out->id = id;
		out->size = (uint64_t)bytes;
		out->addr = (uint64_t)addr;
		out->flags |= TRACE_HAS_ADDR;
	} else {
		out->op = TRACE_FREE;
		out->id = id;
	}
	ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
	if (cJSON_IsNumber(ts) && fabs(ts->valuedouble) < 9007199254740992.0) {
		out->t_us = (int64_t)llround(ts->valuedouble);
		out->flags |= TRACE_HAS_TIME;
	}
	return 1;
}
