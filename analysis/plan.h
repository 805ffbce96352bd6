/*
 * plan.h - capacity planning (`gpumemsim plan`): for each policy, the
 * smallest capacity at which the trace runs without running out of memory,
 * to 2 MiB, found by bisection, checked, and probed above for capacities
 * that fail although a smaller one fits (a caching allocator's fit is not
 * monotone in its capacity); and a fits/doesn't table over GPU models.
 * For a policy that sizes a pool (RMM's), also the smallest pool, to 256 B,
 * on a device without a limit.  With placements > 1, also the smallest capacity that fits under every one
 * of that many placements (--placements: the model's and seeded ones with
 * hidden reservations, placements.h).
 */
#ifndef ANALYSIS_PLAN_H
#define ANALYSIS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "sim/gpus.h"
#include "sim/policy.h"
#include "sim/run.h"
#include "traces/tracemem.h"

#define PLAN_STEP ((uint64_t)2 << 20)
/* n rounded up to the search's step */
uint64_t plan_up(uint64_t n);
#define PLAN_PROBES 8

struct plan_policy {
	const char *label;
	const struct policy_ops *ops;
	const struct policy_kv *opts;
	size_t nopts;
	uint64_t seed;			/* its placement (0: the model's) */
	enum run_placement placement;	/* 0: as recorded (seed 0 alone; with
					   placements > 1 the caller gives the model) */
	/* results */
	int err;			/* could not run at all */
	uint64_t min_capacity;		/* 0: none found */
	int verified;			/* fits at min, fails 2 MiB below (or min is the floor) */
	uint64_t unbounded_peak;	/* its peak reserved with no limit */
	uint64_t unbounded_asked;	/* ... and the most its limit check was asked
					   for (sim_result.peak_asked) */
	uint64_t fails_above[PLAN_PROBES];	/* capacities above min that fail */
	size_t nfails;
	/* a policy sizing a pool (policy_ops.pool_keys) the user left unsized */
	int pool_searched;		/* the search ran */
	uint64_t min_pool;		/* the smallest pool (every pool key set to it)
					   that runs the trace, to 256 B; 0: none found */
	int pool_verified;		/* fits at min_pool, fails 256 B below */
	/* with placements > 1 */
	uint64_t min_every;		/* fits under every placement; 0: none found */
	int every_verified;		/* ... checked at that capacity under each */
	struct ckpt *ckpt;		/* its run without a limit, kept at points
					   (rep->checkpoints); ended by plan_free */
	struct pool_runs *pools;	/* its runs by pool (policy_ops.pool_at), to
					   share; freed by plan_free */
};

struct plan_cell {
	int err;
	int fits;
	int before;			/* it does not fit for peak_before alone */
	uint64_t capacity;		/* what the policy got on that GPU */
	uint64_t peak_reserved;
	uint64_t oom_event;
};

struct plan_report {
	const char *trace;
	uint64_t peak_live;
	uint64_t overhead;
	struct plan_policy *pols;
	size_t npols;
	const struct gpu_model **gpus;
	size_t ngpus;
	struct plan_cell *cells;	/* [gpu * npols + policy] */
	size_t placements;		/* > 1: min_every under that many placements */
	int no_probes;			/* skip the probes above each minimum */
	int checkpoints;		/* serve the capacity searches from checkpoints
					   of each run without a limit (sim/checkpoint.h:
					   processes forked while no other thread runs) */
	const char *recorded_conf;	/* out: the recording's settings, which a
					   caching policy given none simulates */
	uint64_t peak_before;		/* out: what a profile's window began after
					   (source.peak_in_use_before), or held in it
					   out of the replay's sight: every minimum is
					   at least it, and a GPU below it does not fit */
	const char *peak_where;		/* out: which, in words (trace_peak_where) */
};

int plan_run(const struct trace_mem *m, struct plan_report *rep, int threads, char **cause);
/*
 * Let p's runs under a capacity (plan_fits) share what one run shows of
 * another: runs by pool (policy_ops.pool_at).  plan_run does it for its
 * policies, and with rep->checkpoints keeps each one's run without a limit
 * at points (sim/checkpoint.h); plan_policy_done (plan_free) lets go.
 */
void plan_policy_share(struct plan_policy *p);
void plan_policy_done(struct plan_policy *p);
/*
 * Only the smallest pools (min_pool) of rep's policies, above rep->peak_live
 * (which the caller sets): no capacity search, no GPU table.
 */
void plan_pools(const struct trace_mem *m, struct plan_report *rep, int threads);
/*
 * One run of p on m under capacity (on gpu, when not NULL): 1 if it fits, 0
 * if it runs out of memory, < 0 if it cannot run.  A run that runs out
 * stops there: "fits" and where it failed are all a search needs (res, when
 * not NULL, then has partial totals over the trace).
 */
struct sim_result;
int plan_fits(const struct trace_mem *m, const struct plan_policy *p, uint64_t capacity,
    const struct gpu_model *gpu, struct sim_result *res);
/*
 * For the progress line (sim/progress.h, where plan_fits counts its runs):
 * about how many runs a search to step between lo and hi takes, and
 * PLAN_GUESS_RUNS before its range is known.
 */
uint64_t plan_search_runs(uint64_t lo, uint64_t hi, uint64_t step);
#define PLAN_GUESS_RUNS 12
void plan_free(struct plan_report *rep);
cJSON *plan_json(const struct plan_report *rep);
char *plan_text(const struct plan_report *rep);

#endif /* ANALYSIS_PLAN_H */
