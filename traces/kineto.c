/*
 * kineto.c - PyTorch profiler traces (Kineto's Chrome trace JSON, recorded
 * with profile_memory=True) as gpumemsim traces: the instant events named
 * "[memory]" of one CUDA device ("Device Type" 1) become allocs (Bytes > 0,
 * at Addr) and frees (Bytes < 0, of the block at Addr); everything else in
 * "traceEvents" is skipped.  trace-json.c streams the document once and
 * hands each [memory] element here (kineto_collect); the rest never reaches
 * cJSON.
 *
 * The file does not hold the events in the order they happened (each
 * thread's are written together): they are put in the profiler's order,
 * by "ts" and then "Ev Idx", so only the [memory] events are held (a few
 * dozen bytes each), never the file.
 *
 * "Total Allocated" is PyTorch's allocated bytes after the event and "Bytes"
 * the block's size, so what was live before the profile began is the first
 * event's Total Allocated less its own change.  Those bytes count: blocks
 * the profile frees without having seen them allocated are seeded at the
 * start with their sizes, the rest as one block live throughout, and the
 * trace says it starts mid-run.  The simulation's allocated bytes then
 * follow Total Allocated, whose peak is observed; Total Reserved's peak is
 * observed too when the profile saw the job from its first allocation.
 * A profile that contradicts itself (a Total Allocated that is not the last
 * one plus Bytes, a free whose Bytes is not its block's) is read as it is
 * and says so (source.inconsistent), in every report.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "sim/gms.h"
#include "traces/kineto-stacks.h"
#include "traces/kineto.h"

#define KINETO_DEVICES 64
#define CUDA_DEVICE_TYPE 1
#define HIP_DEVICE_TYPE 6	/* ROCm: c10::DeviceType::HIP, the same caching allocator */

/* One [memory] event of a CUDA device, as collected. */
struct mem_event {
	double ts;		/* microseconds */
	double total_alloc, total_reserved;	/* NAN when absent */
	int64_t ev_idx;		/* "Ev Idx", or -1 */
	int64_t bytes;
	uint64_t addr;
	uint32_t device, order;	/* order: its place in the file */
	int has_ts, has_thread;
	int emptied;		/* Total Reserved fell before it: empty_cache() ran */
	int64_t pid, tid;
	const char *stack, *at;	/* from the spans enclosing it (kineto-stacks.h) */
};

struct addr_id {
	uint64_t addr, id, size;
	UT_hash_handle hh;
};

struct kineto {
	int want;			/* the device asked for, -1 for the busiest */
	int device;			/* the device read */
	uint64_t count[KINETO_DEVICES];	/* [memory] events per device */
	unsigned char hip[KINETO_DEVICES];	/* a device's events said HIP (ROCm) */
	struct mem_event *ev;		/* collected; after kineto_choose, the device's
					   in the profiler's order */
	size_t n, cap, next;
	struct trace_event *seeds;	/* blocks live before the profile */
	size_t nseeds, next_seed;
	double live_before, peak_reserved, peak_allocated;
	uint64_t orphans;		/* frees of blocks the profile never saw allocated */
	uint64_t empty_caches;		/* events Total Reserved fell before (scan) */
	int emptied_now;		/* the next event's empty_cache handed out */
	/* where the profile contradicts itself (its numbers cannot all be right) */
	uint64_t bad_totals, first_bad_total;	/* Total Allocated is not the last one
						   plus Bytes (first: its place in ev) */
	uint64_t bad_sizes, first_bad_size;	/* a free's Bytes is not its block's */
	uint64_t reused, first_reused;		/* an allocation at an address still live */
	struct addr_id *live;
	uint64_t next_id;
	struct kstacks *ks;		/* the profile's spans, then its stacks */
};

struct kineto *
kineto_new(int device)
{
	struct kineto *k = gms_calloc(1, sizeof(*k));

	k->want = device;
	k->device = -1;
	k->next_id = 1;
	k->ks = kstacks_new();
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
	free(k->ev);
	free(k->seeds);
	kstacks_free(k->ks);
	free(k);
}

/* A number in args, or NAN. */
static double
arg(const cJSON *args, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* An absent total (NAN), or a whole number of bytes up to 2^53. */
static int
valid_total(double v)
{
	return isnan(v) || (v >= 0 && v <= (double)TRACE_INT_MAX && v == floor(v));
}

int
kineto_collect(struct kineto *k, const cJSON *ev, char **cause)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(ev, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
	const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
	double type, dev, addr, bytes, idx;
	struct mem_event *m;

	if (!cJSON_IsString(name) || strcmp(name->valuestring, "[memory]") != 0) {
		kstacks_collect(k->ks, ev);	/* a span, if it is one */
		return 0;
	}
	if (!cJSON_IsObject(args))
		return 0;
	type = arg(args, "Device Type");
	dev = arg(args, "Device Id");
	if ((type != CUDA_DEVICE_TYPE && type != HIP_DEVICE_TYPE) ||
	    !(dev >= 0 && dev < KINETO_DEVICES) || dev != floor(dev))
		return 0;
	addr = arg(args, "Addr");
	bytes = arg(args, "Bytes");
	if (!(addr >= 0 && addr <= (double)TRACE_INT_MAX) || addr != floor(addr))
		return gms_fail(cause, GMS_ETRACE, "[memory] event \"Addr\" is not an address");
	if (!(fabs(bytes) <= 1125899906842624.0) || bytes != floor(bytes))
		return gms_fail(cause, GMS_ETRACE, "[memory] event \"Bytes\" is not a size");
	/* byte counts when present; a total past 2^53 would not convert to one */
	if (!valid_total(arg(args, "Total Allocated")))
		return gms_fail(cause, GMS_ETRACE, "[memory] event \"Total Allocated\" is not a size");
	if (!valid_total(arg(args, "Total Reserved")))
		return gms_fail(cause, GMS_ETRACE, "[memory] event \"Total Reserved\" is not a size");
	k->count[(int)dev]++;
	k->hip[(int)dev] |= type == HIP_DEVICE_TYPE;
	if (bytes == 0)
		return 0;
	if (k->n == UINT32_MAX)
		return gms_fail(cause, GMS_ETRACE, "more than 2^32 [memory] events: too many");
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 1024;
		k->ev = gms_realloc(k->ev, k->cap * sizeof(*k->ev));
	}
	m = &k->ev[k->n];
	*m = (struct mem_event){ .addr = (uint64_t)addr, .bytes = (int64_t)bytes,
	    .device = (uint32_t)dev, .order = (uint32_t)k->n,
	    .total_alloc = arg(args, "Total Allocated"),
	    .total_reserved = arg(args, "Total Reserved"), .ev_idx = -1 };
	idx = arg(args, "Ev Idx");
	if (idx >= 0 && idx <= (double)TRACE_INT_MAX && idx == floor(idx))
		m->ev_idx = (int64_t)idx;
	if (cJSON_IsNumber(ts) && fabs(ts->valuedouble) < 9007199254740992.0) {
		m->ts = ts->valuedouble;
		m->has_ts = 1;
	}
	{
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
		const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");

		m->has_thread = cJSON_IsNumber(pid) && cJSON_IsNumber(tid) &&
		    fabs(pid->valuedouble) < 9007199254740992.0 &&
		    fabs(tid->valuedouble) < 9007199254740992.0 &&
		    pid->valuedouble == floor(pid->valuedouble) &&
		    tid->valuedouble == floor(tid->valuedouble);
		if (m->has_thread) {
			m->pid = (int64_t)pid->valuedouble;
			m->tid = (int64_t)tid->valuedouble;
		}
	}
	k->n++;
	return 0;
}

int
kineto_scan(struct kineto *k, const char *bytes, size_t len)
{
	return !kstacks_wanted(bytes, len) || kstacks_scan(k->ks, bytes, len);
}

/* The profiler's order: by time, then its own event index, then the file's. */
static int
cmp_event(const void *a, const void *b)
{
	const struct mem_event *x = a, *y = b;

	if (x->has_ts != y->has_ts)
		return x->has_ts ? 1 : -1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->ev_idx != y->ev_idx)
		return x->ev_idx < y->ev_idx ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void
add_seed(struct kineto *k, uint64_t addr, uint64_t size, int has_addr)
{
	struct trace_event *s;

	k->seeds = gms_realloc(k->seeds, (k->nseeds + 1) * sizeof(*k->seeds));
	s = &k->seeds[k->nseeds++];
	memset(s, 0, sizeof(*s));
	s->op = TRACE_ALLOC;
	s->size = size;
	s->addr = addr;
	s->flags = has_addr ? TRACE_HAS_ADDR : 0;
	s->at = "(live before the profile)";
}

/* The live set's entry for addr, made when there is none. */
static struct addr_id *
live_at(struct kineto *k, uint64_t addr)
{
	struct addr_id *a;

	HASH_FIND(hh, k->live, &addr, sizeof(addr), a);
	if (a == NULL) {
		a = gms_calloc(1, sizeof(*a));
		a->addr = addr;
		HASH_ADD(hh, k->live, addr, sizeof(a->addr), a);
	}
	return a;
}

/*
 * Follow the live set through the device's events: which frees are of
 * blocks from before (seeded, their sizes from the frees), what else was
 * live then, and the peaks PyTorch reported.
 */
static void
scan(struct kineto *k)
{
	struct addr_id *a;
	uint64_t seeded = 0;
	size_t i;

	double last = NAN;

	for (i = 0; i < k->n; i++) {
		struct mem_event *m = &k->ev[i];

		if (i == 0 && isfinite(m->total_alloc))
			k->live_before = GMS_MAX(0.0, m->total_alloc - (double)m->bytes);
		if (isfinite(last) && isfinite(m->total_alloc) &&
		    m->total_alloc != last + (double)m->bytes && k->bad_totals++ == 0)
			k->first_bad_total = i;
		last = m->total_alloc;
		/*
		 * Reserved memory falls only when cached segments go back to the
		 * driver: torch.cuda.empty_cache(), which makes no [memory] event of
		 * its own (or an allocation's retry, which releases the cache too)
		 */
		if (i > 0 && isfinite(m->total_reserved) && isfinite(k->ev[i - 1].total_reserved) &&
		    m->total_reserved < k->ev[i - 1].total_reserved) {
			m->emptied = 1;
			k->empty_caches++;
		}
		if (isfinite(m->total_reserved) && m->total_reserved > k->peak_reserved)
			k->peak_reserved = m->total_reserved;
		if (isfinite(m->total_alloc) && m->total_alloc > k->peak_allocated)
			k->peak_allocated = m->total_alloc;
		if (m->bytes > 0) {
			HASH_FIND(hh, k->live, &m->addr, sizeof(m->addr), a);
			if (a != NULL && k->reused++ == 0)
				k->first_reused = i;
			live_at(k, m->addr)->size = (uint64_t)m->bytes;
			continue;
		}
		HASH_FIND(hh, k->live, &m->addr, sizeof(m->addr), a);
		if (a != NULL) {
			if (a->size != (uint64_t)-m->bytes && k->bad_sizes++ == 0)
				k->first_bad_size = i;
			HASH_DEL(k->live, a);
			free(a);
			continue;
		}
		/* freed, never allocated in the profile: live before it */
		k->orphans++;
		add_seed(k, m->addr, (uint64_t)-m->bytes, 1);
		seeded += (uint64_t)-m->bytes;
	}
	clear(k);
	if (k->live_before > (double)seeded)
		add_seed(k, 0, (uint64_t)(k->live_before - (double)seeded), 0);
}

/* Each event's stack and site, from the spans of its thread around it. */
static void
stacks(struct kineto *k)
{
	struct kstack_point *pts;
	size_t i;

	if (kstacks_spans(k->ks) == 0 || k->n == 0)
		return;
	pts = gms_calloc(k->n, sizeof(*pts));
	for (i = 0; i < k->n; i++) {
		/* an event without its thread or time meets no span */
		pts[i] = (struct kstack_point){ .pid = INT64_MIN, .tid = INT64_MIN };
		if (k->ev[i].has_thread && k->ev[i].has_ts)
			pts[i] = (struct kstack_point){ .pid = k->ev[i].pid, .tid = k->ev[i].tid,
			    .ts = k->ev[i].ts };
	}
	kstacks_assign(k->ks, pts, k->n);
	for (i = 0; i < k->n; i++) {
		k->ev[i].stack = pts[i].stack;
		k->ev[i].at = pts[i].at;
	}
	free(pts);
}

int
kineto_choose(struct kineto *k, char **cause)
{
	size_t i, j;
	int d, best = 0;

	for (d = 0; d < KINETO_DEVICES; d++)
		if (k->count[d] > k->count[best])
			best = d;
	if (k->want >= 0) {
		if (k->want >= KINETO_DEVICES || k->count[k->want] == 0)
			return gms_fail(cause, GMS_ETRACE, "no [memory] events of GPU device %d in "
			    "this profile", k->want);
		best = k->want;
	} else if (k->count[best] == 0) {
		return gms_fail(cause, GMS_ETRACE, "a PyTorch profiler trace without GPU [memory] "
		    "events, CUDA's or ROCm's (record it with profile_memory=True)");
	}
	k->device = best;
	for (i = j = 0; i < k->n; i++)
		if (k->ev[i].device == (uint32_t)best)
			k->ev[j++] = k->ev[i];
	k->n = j;
	qsort(k->ev, k->n, sizeof(*k->ev), cmp_event);
	scan(k);
	stacks(k);
	return 0;
}

/* The event number of k->ev[i] as the trace hands it out: seeds and empty_caches first. */
static uint64_t
event_of(const struct kineto *k, size_t i)
{
	uint64_t n = k->nseeds + i;
	size_t j;

	for (j = 0; j <= i && j < k->n; j++)
		n += (uint64_t)k->ev[j].emptied;
	return n;
}

cJSON *
kineto_header(struct kineto *k, const char *name)
{
	cJSON *hdr = cJSON_CreateObject(), *src, *obs;
	int mid = k->nseeds > 0;

	cJSON_AddStringToObject(hdr, "format", "gpumemsim-trace");
	cJSON_AddNumberToObject(hdr, "version", 1);
	cJSON_AddStringToObject(hdr, "name", name);
	src = cJSON_AddObjectToObject(hdr, "source");
	cJSON_AddStringToObject(src, "from", "pytorch profiler (kineto) trace");
	cJSON_AddNumberToObject(src, "device", k->device);
	/* ROCm's PyTorch runs the caching allocator on HIP devices: read alike, said */
	cJSON_AddStringToObject(src, "device_type", k->hip[k->device] ? "HIP (ROCm)" : "CUDA");
	cJSON_AddNumberToObject(src, "memory_events", (double)k->count[k->device]);
	if (k->empty_caches > 0) {
		cJSON_AddNumberToObject(src, "empty_caches", (double)k->empty_caches);
		cJSON_AddStringToObject(src, "empty_caches_from", "where Total Reserved fell: "
		    "torch.cuda.empty_cache() (or an allocation's retry) released the cache there");
	}
	if (kstacks_left_out(k->ks) > 0)	/* past KSTACKS_TEXT_MAX of distinct stacks */
		cJSON_AddNumberToObject(src, "stacks_left_out", (double)kstacks_left_out(k->ks));
	if (mid) {
		cJSON *seeded = cJSON_AddObjectToObject(src, "seeded");

		cJSON_AddNumberToObject(seeded, "allocs", (double)k->nseeds);
		cJSON_AddNumberToObject(seeded, "segments", 0);
		cJSON_AddNumberToObject(seeded, "live_before", k->live_before);
		cJSON_AddNumberToObject(seeded, "frees_of_earlier_blocks", (double)k->orphans);
		cJSON_AddStringToObject(seeded, "unknown", "when, and in what segments, the "
		    "blocks live before the profile were allocated: they are seeded at its start");
		cJSON_AddBoolToObject(hdr, "starts_mid_run", 1);
	}
	if (k->bad_totals > 0 || k->bad_sizes > 0 || k->reused > 0) {
		/* event numbers as the trace hands them out (event_of) */
		cJSON *bad = cJSON_AddObjectToObject(src, "inconsistent");

		cJSON_AddNumberToObject(bad, "totals", (double)k->bad_totals);
		if (k->bad_totals > 0)
			cJSON_AddNumberToObject(bad, "first_total_event",
			    (double)event_of(k, k->first_bad_total));
		cJSON_AddNumberToObject(bad, "sizes", (double)k->bad_sizes);
		if (k->bad_sizes > 0)
			cJSON_AddNumberToObject(bad, "first_size_event",
			    (double)event_of(k, k->first_bad_size));
		cJSON_AddNumberToObject(bad, "reused", (double)k->reused);
		if (k->reused > 0)
			cJSON_AddNumberToObject(bad, "first_reused_event",
			    (double)event_of(k, k->first_reused));
	}
	if (k->peak_allocated > 0 || k->peak_reserved > 0) {
		obs = cJSON_AddObjectToObject(hdr, "observed");
		cJSON_AddStringToObject(obs, "allocator", "pytorch-caching");
		if (k->peak_allocated > 0)
			cJSON_AddNumberToObject(obs, "peak_allocated", k->peak_allocated);
		/* what was reserved before the profile is not known: only a whole one's */
		if (!mid && k->peak_reserved > 0)
			cJSON_AddNumberToObject(obs, "peak_reserved", k->peak_reserved);
	}
	return hdr;
}

int
kineto_next(struct kineto *k, struct trace_event *out)
{
	struct mem_event *m;
	struct addr_id *a;

	if (k->next_seed < k->nseeds) {
		*out = k->seeds[k->next_seed++];
		out->id = k->next_id++;
		if (out->flags & TRACE_HAS_ADDR)
			live_at(k, out->addr)->id = out->id;
		return 1;
	}
	if (k->next >= k->n)
		return 0;
	m = &k->ev[k->next];
	memset(out, 0, sizeof(*out));
	if (m->emptied && !k->emptied_now) {
		k->emptied_now = 1;
		out->op = TRACE_EMPTY_CACHE;
		if (m->has_ts) {
			out->t_us = (int64_t)llround(m->ts);
			out->flags |= TRACE_HAS_TIME;
		}
		return 1;
	}
	k->emptied_now = 0;
	k->next++;
	if (m->bytes > 0) {
		a = live_at(k, m->addr);
		a->id = k->next_id++;
		out->op = TRACE_ALLOC;
		out->id = a->id;
		out->size = (uint64_t)m->bytes;
		out->addr = m->addr;
		out->flags |= TRACE_HAS_ADDR;
		out->stack = m->stack;
		out->at = m->at;
	} else {
		out->op = TRACE_FREE;
		/* none only for an input that frees a block twice: scan() seeded the rest */
		out->id = (uint64_t)TRACE_INT_MAX;
		HASH_FIND(hh, k->live, &m->addr, sizeof(m->addr), a);
		if (a != NULL) {
			out->id = a->id;
			HASH_DEL(k->live, a);
			free(a);
		}
	}
	if (m->has_ts) {
		out->t_us = (int64_t)llround(m->ts);
		out->flags |= TRACE_HAS_TIME;
	}
	return 1;
}
