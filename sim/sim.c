/*
 * sim.c - the event loop (sim.h has the contract).  The live set is an
 * open-addressing table (idtable.h), so a steady-state replay makes no host
 * allocation per event and a lookup is one probe.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "sim/device.h"
#include "sim/gms.h"
#include "sim/idtable.h"
#include "sim/policy.h"
#include "sim/progress.h"
#include "sim/sim.h"
#include "traces/tracemem.h"

/* Segment sizes recorded, or reserved, since the last alloc event. */
#define PENDING_MAX 16

struct sim {
	const struct policy_ops *ops;
	void *state;
	struct device *dev;
	unsigned flags;
	struct idtable live;		/* the trace's live ids */
	uint64_t live_bytes;		/* requested bytes live in the trace */
	uint64_t requested;		/* ... and in the policy */
	uint64_t allocated;
	int stopped;			/* an OOM happened: the policy is done */
	struct sim_result r;
	char last_mark[256];
	int has_mark;
	uint64_t mark_event;
	sim_sample_fn *sampler;
	void *sampler_arg;
	device_hook_fn *seg_hook;
	void *seg_hook_arg;
	uint64_t obs[PENDING_MAX], got[PENDING_MAX];
	unsigned nobs, ngot;		/* may exceed PENDING_MAX: then a mismatch */
};

static void
reserve_hook(void *arg, int reserve, uint64_t addr, uint64_t size)
{
	struct sim *s = arg;

	if (reserve && s->ngot++ < PENDING_MAX)
		s->got[s->ngot - 1] = size;
	if (s->seg_hook != NULL)
		s->seg_hook(s->seg_hook_arg, reserve, addr, size);
}

void
sim_set_segment_hook(struct sim *s, device_hook_fn *fn, void *arg)
{
	s->seg_hook = fn;
	s->seg_hook_arg = arg;
}

struct sim *
sim_create(const struct policy_ops *policy, const struct policy_args *args,
    struct device *dev, unsigned flags, char **cause)
{
	static const struct policy_args defaults;
	struct sim *s;

	if (args == NULL)
		args = &defaults;
	if (policy_check_options(policy, args, cause) < 0)
		return NULL;
	s = gms_calloc(1, sizeof(*s));
	if (policy->create(args, dev, &s->state, cause) < 0) {
		free(s);
		return NULL;
	}
	s->ops = policy;
	s->dev = dev;
	idtable_init(&s->live);
	s->flags = flags;
	dev->hook = reserve_hook;
	dev->hook_arg = s;
	dev->limit = policy->limit == POLICY_LIMIT_SELF ? DEVICE_LIMIT_NONE :
	    policy->limit == POLICY_LIMIT_PHYSICAL ? DEVICE_LIMIT_PHYSICAL : DEVICE_LIMIT_RESERVED;
	return s;
}

/* Compare what the policy reserved for this event with what was recorded. */
static void
match_segments(struct sim *s, uint64_t index)
{
	int same = s->nobs == s->ngot && s->nobs <= PENDING_MAX &&
	    memcmp(s->obs, s->got, s->nobs * sizeof(s->obs[0])) == 0;

	if (!same && s->r.segment_mismatches++ == 0)
		s->r.first_segment_mismatch = index;
	s->nobs = 0;
}

/* What the policy counts as reserved now (see policy_ops.limit). */
static uint64_t
reserved_now(const struct sim *s)
{
	return s->ops->limit == POLICY_LIMIT_PHYSICAL ? s->dev->c.physical : s->dev->c.reserved;
}

static void
note_oom(struct sim *s, uint64_t index, const struct trace_event *ev)
{
	struct policy_stats st;

	s->ops->stats(s->state, &st);
	s->stopped = 1;
	s->r.oomed = 1;
	s->r.oom.event = index;
	s->r.oom.size = ev->size;
	s->r.oom.stream = ev->stream;
	s->r.oom.live = s->requested;
	s->r.oom.allocated = s->allocated;
	s->r.oom.reserved = reserved_now(s);
	s->r.oom.largest_free = st.largest_free;
	s->r.oom.at = ev->at ? gms_strdup(ev->at) : NULL;
	s->r.oom.mark = s->has_mark ? gms_strdup(s->last_mark) : NULL;
	s->r.oom.mark_event = s->mark_event;
}

/* After an alloc or free: the policy's bytes in use against what was recorded. */
static void
match_in_use(struct sim *s, uint64_t index, const struct trace_event *ev)
{
	s->r.observed_in_use++;
	if (s->allocated != ev->in_use && s->r.in_use_mismatches++ == 0) {
		s->r.first_in_use_mismatch = index;
		s->r.first_in_use_simulated = s->allocated;
		s->r.first_in_use_observed = ev->in_use;
	}
}

static int
do_alloc(struct sim *s, uint64_t index, const struct trace_event *ev, char **cause)
{
	struct idrec *l;
	void *handle = NULL;
	uint64_t block = 0;
	int fresh, rc;

	/* the table keeps id + 1 (the readers hold ids below 2^53 anyway) */
	if (ev->id == UINT64_MAX)
		return gms_fail(cause, GMS_ETRACE, "alloc of id %llu: ids go up to 2^64 - 2",
		    (unsigned long long)ev->id);
	/* its record now, filled below: nothing reads the table in between */
	l = idtable_claim(&s->live, ev->id, index, &fresh);
	if (!fresh)
		return gms_fail(cause, GMS_ETRACE,
		    "alloc of id %llu, which is already live (allocated at event %llu and not freed)",
		    (unsigned long long)ev->id, (unsigned long long)(l->event1 - 1));
	if (ev->size > UINT64_MAX - s->live_bytes) {
		idtable_delete(&s->live, l);
		return gms_fail(cause, GMS_ETRACE, "alloc of id %llu: live bytes exceed 2^64",
		    (unsigned long long)ev->id);
	}
	s->r.allocs++;
	if (ev->size == 0) {
		s->r.zero_allocs++;
	} else if (!s->stopped) {
		s->ngot = 0;
		rc = 1;
		if ((ev->flags & TRACE_SEEDED) && ev->op == TRACE_ALLOC && (ev->flags & TRACE_HAS_ADDR) &&
		    s->ops->alloc_at != NULL)
			rc = s->ops->alloc_at(s->state, ev->size, ev->stream, ev->addr, &handle, &block);
		if (rc == 1)
			rc = s->ops->alloc(s->state, ev->size, ev->stream, &handle, &block);
		if (rc < 0 && trace_oom_caught(ev)) {
			/* PyTorch tries cuDNN's next plan: this workspace is never held */
			if (s->r.caught_ooms++ == 0)
				s->r.first_caught_oom = index;
		} else if (rc < 0) {
			note_oom(s, index, ev);
		} else {
			s->requested += ev->size;
			s->allocated += block;
			s->r.peak_requested = GMS_MAX(s->r.peak_requested, s->requested);
			s->r.peak_allocated = GMS_MAX(s->r.peak_allocated, s->allocated);
		}
		if (s->r.observed_segments > 0 && !s->stopped)
			match_segments(s, index);
	}
	if ((ev->flags & TRACE_HAS_INUSE) && !s->stopped)
		match_in_use(s, index, ev);
	l->size = ev->size;
	l->block = block;
	l->handle = handle;
	s->live_bytes += ev->size;
	if (s->live_bytes > s->r.peak_live) {
		s->r.peak_live = s->live_bytes;
		s->r.peak_live_event = index;
	}
	return 0;
}

static int
do_free(struct sim *s, uint64_t index, const struct trace_event *ev, char **cause)
{
	struct idrec *l;

	if ((l = idtable_find(&s->live, ev->id)) == NULL) {
		if (!(s->flags & SIM_UNKNOWN_FREES_WARN))
			return gms_fail(cause, GMS_ETRACE, "free of unknown id %llu",
			    (unsigned long long)ev->id);
		if (s->r.unknown_frees++ == 0)
			s->r.first_unknown_free = index;
		return 0;
	}
	s->r.frees++;
	if (s->nobs > 0 && !s->stopped)
		match_segments(s, index);
	if (l->handle != NULL) {
		if (s->ops->free_on != NULL && (ev->flags & TRACE_HAS_STREAM))
			s->ops->free_on(s->state, l->handle, ev->stream);
		else
			s->ops->free(s->state, l->handle);
		s->requested -= l->size;
		s->allocated -= l->block;
	}
	s->live_bytes -= l->size;
	idtable_delete(&s->live, l);
	if ((ev->flags & TRACE_HAS_INUSE) && !s->stopped)
		match_in_use(s, index, ev);
	return 0;
}

int
sim_event(struct sim *s, uint64_t index, const struct trace_event *ev, char **cause)
{
	int err = 0;

	s->r.events++;
	switch (ev->op) {
	case TRACE_ALLOC:
		err = do_alloc(s, index, ev, cause);
		break;
	case TRACE_FREE:
		err = do_free(s, index, ev, cause);
		break;
	case TRACE_MARK:
		s->r.marks++;
		snprintf(s->last_mark, sizeof(s->last_mark), "%s", ev->label ? ev->label : "");
		s->has_mark = 1;
		s->mark_event = index;
		break;
	case TRACE_SEGMENT_ALLOC:
	case TRACE_SEGMENT_MAP:
		/* what the recording allocator reserved for the next alloc */
		s->r.observed_events++;
		s->r.observed_segments++;
		if (ev->op == TRACE_SEGMENT_ALLOC && (s->flags & SIM_FEED_RECORDED))
			device_recorded_push(s->dev, ev->addr, ev->size);
		if (ev->op == TRACE_SEGMENT_ALLOC && (ev->flags & TRACE_SEEDED) &&
		    s->ops->adopt_segment != NULL) {
			/* there before the trace: the policy starts with it, as it was */
			if (!s->stopped && s->ops->adopt_segment(s->state, ev->addr, ev->size,
			    ev->stream) < 0)
				note_oom(s, index, ev);
			s->ngot = 0;
			break;
		}
		if (s->nobs++ < PENDING_MAX)
			s->obs[s->nobs - 1] = ev->size;
		break;
	case TRACE_EMPTY_CACHE:
		s->r.empty_caches++;
		if (s->ops->empty_cache == NULL)
			s->r.empty_caches_ignored++;
		else if (!s->stopped)
			s->ops->empty_cache(s->state);
		break;
	case TRACE_OOM:
		/* the recorded job ran out of memory here (RMM's allocate failure, a snapshot's oom) */
		s->r.observed_events++;
		if (s->r.recorded_ooms++ == 0) {
			s->r.recorded_oom_event = index;
			s->r.recorded_oom_size = ev->size;
		}
		if (ev->flags & TRACE_HAS_ID)
			err = do_alloc(s, index, ev, cause);
		break;
	default:
		s->r.observed_events++;
		break;
	}
	if (err == 0 && (s->flags & SIM_CHECK_EVERY) && !s->stopped &&
	    s->ops->check(s->state, cause) < 0) {
		char *why = cause ? *cause : NULL;

		if (cause != NULL) {
			*cause = NULL;
			gms_fail(cause, GMS_EBUG, "internal error, a bug in gpumemsim (please "
			    "report it with the trace): policy %s broke an invariant: %s",
			    s->ops->name, why ? why : "?");
		}
		free(why);
		return GMS_EBUG;
	}
	if (err == 0 && s->sampler != NULL) {
		struct sim_sample smp = { .event = index, .t_us = ev->t_us,
		    .has_time = (ev->flags & TRACE_HAS_TIME) != 0, .live = s->live_bytes,
		    .allocated = s->allocated, .reserved = reserved_now(s), .stopped = s->stopped,
		    .ev = ev, .sim = s };

		s->sampler(s->sampler_arg, &smp);
	}
	return err;
}

int
sim_replay(struct sim *s, struct trace_reader *r, char **cause)
{
	return sim_replay_upto(s, r, 0, cause);
}

int
sim_replay_upto(struct sim *s, struct trace_reader *r, uint64_t stop_after, char **cause)
{
	struct trace_event ev;
	char *why = NULL;
	int rc;

	uint64_t step = 0;

	while ((rc = trace_next(r, &ev, &why)) == 1) {
		if ((rc = sim_event(s, trace_index(r), &ev, &why)) < 0)
			break;
		if (++step == PROGRESS_STEP) {
			progress_add(step);
			step = 0;
		}
		if (s->stopped && (s->flags & SIM_STOP_AT_OOM))
			break;
		if (stop_after != 0 && trace_index(r) + 1 >= stop_after)
			break;
	}
	progress_add(step);
	if (rc < 0) {
		gms_fail(cause, rc, "%s: %s", trace_where(r), why);
		free(why);
		return rc;
	}
	return 0;
}

int
sim_replay_mem(struct sim *s, const struct trace_mem *m, char **cause)
{
	return sim_replay_mem_upto(s, m, 0, cause);
}

int
sim_replay_mem_upto(struct sim *s, const struct trace_mem *m, uint64_t stop_after, char **cause)
{
	uint64_t n = trace_mem_count(m);

	return sim_replay_mem_range(s, m, 0, stop_after != 0 && stop_after < n ? stop_after : n,
	    cause);
}

int
sim_replay_mem_range(struct sim *s, const struct trace_mem *m, uint64_t from, uint64_t to,
    char **cause)
{
	struct trace_event ev;
	char *why = NULL, where[512];
	uint64_t i, done = 0;
	int rc;

	for (i = from; i < to; i++) {
		trace_mem_event(m, (size_t)i, &ev);
		if ((rc = sim_event(s, i, &ev, &why)) < 0) {
			gms_fail(cause, rc, "%s: %s", trace_mem_where(m, (size_t)i, where,
			    sizeof(where)), why);
			free(why);
			progress_add(done);
			return rc;
		}
		if (++done == PROGRESS_STEP) {
			progress_add(done);
			done = 0;
		}
		if (s->stopped && (s->flags & SIM_STOP_AT_OOM))
			break;
	}
	progress_add(done);
	return 0;
}

void
sim_limit_to(struct sim *s, const struct policy_args *args, uint64_t capacity)
{
	s->dev->capacity = capacity;
	s->ops->set_capacity(s->state, args, capacity);
	s->flags |= SIM_STOP_AT_OOM;
}

int
sim_stopped(const struct sim *s)
{
	return s->stopped;
}

void
sim_free_live(struct sim *s, uint64_t index)
{
	uint64_t *ids = gms_malloc((s->live.n ? s->live.n : 1) * sizeof(*ids));
	size_t i, n = 0;

	/* the ids first: each free moves records about */
	for (i = 0; i < s->live.cap; i++)
		if (s->live.keys[i] != 0)
			ids[n++] = s->live.keys[i] - 1;
	for (i = 0; i < n; i++) {
		struct trace_event ev = { .op = TRACE_FREE, .id = ids[i] };
		int rc = do_free(s, index, &ev, NULL);

		GMS_ASSERT(rc == 0);
	}
	free(ids);
}

void
sim_result(struct sim *s, struct sim_result *res)
{
	struct policy_stats st;

	s->ops->stats(s->state, &st);
	*res = s->r;
	res->peak_reserved = s->ops->limit == POLICY_LIMIT_PHYSICAL ? s->dev->c.peak_physical :
	    s->dev->c.peak_reserved;
	res->peak_segments = s->dev->c.peak_segments;
	res->device_allocs = s->dev->c.allocs;
	res->device_frees = s->dev->c.frees;
	res->driver_ns = s->dev->c.driver_ns;
	res->steady_driver_ns = s->dev->c.driver_ns - (s->ops->limit == POLICY_LIMIT_PHYSICAL ?
	    s->dev->c.driver_ns_grown_physical : s->dev->c.driver_ns_grown);
	res->alloc_retries = st.alloc_retries;
	res->end_live = s->live.n;
	res->end_reserved = s->ops->limit == POLICY_LIMIT_PHYSICAL ? s->dev->c.physical :
	    s->dev->c.reserved;
	res->end_allocated = s->allocated;
	res->end_largest_free = st.largest_free;
	res->peak_asked = GMS_MAX(res->peak_reserved, st.peak_asked);
	res->pool_slack = st.pool_slack;
	res->largest_size = st.largest_size;
	res->limit = s->dev->capacity;
	if (st.limit != 0 && (res->limit == 0 || st.limit < res->limit))
		res->limit = st.limit;
}

void
sim_set_sampler(struct sim *s, sim_sample_fn *fn, void *arg)
{
	s->sampler = fn;
	s->sampler_arg = arg;
}

const struct policy_ops *
sim_policy(const struct sim *s)
{
	return s->ops;
}

void *
sim_policy_state(const struct sim *s)
{
	return s->state;
}

struct device *
sim_device(const struct sim *s)
{
	return s->dev;
}

int
sim_lookup(const struct sim *s, uint64_t id, uint64_t *addr, uint64_t *block)
{
	const struct idrec *l = idtable_find(&s->live, id);

	if (l == NULL || l->handle == NULL)
		return -1;
	*addr = s->ops->addr(s->state, l->handle);
	*block = l->block;
	return 0;
}

void
sim_destroy(struct sim *s)
{
	if (s == NULL)
		return;
	idtable_free(&s->live);
	s->ops->destroy(s->state);
	s->dev->hook = NULL;
	free(s->r.oom.at);
	free(s->r.oom.mark);
	free(s);
}
