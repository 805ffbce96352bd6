/*
 * policy-bfc.c - the BFC policies (grow-only, preallocate) step by step, every
 * value worked by hand from XLA's xla/tsl/framework/bfc_allocator.cc: region growth, the split
 * rule and its slack, the 128 MiB rule, merging, garbage collection of free
 * regions, the limit check and backpedalling.  Large regions are placed
 * descending from 2^52 and 2 MiB ones ascending from 2^46 by the simulated
 * device.  The policy's check() runs after every step.
 */
#include "config.h"

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "t/steps.h"
#include "t/tap.h"

/* The placement model's fresh context (doc/placement.md): a 2 MiB region fills
   its 2 MiB hole at B - 74 MiB; larger ones take slots from B - 488 MiB down. */
#define B ((uint64_t)1 << 51)
#define MiB GMS_MiB

static const struct policy_kv jax[] = { { "flavor", "jax" } };
static const struct policy_kv tf[] = { { "flavor", "tensorflow" } };

static struct sim_result
result(struct sim *s)
{
	struct sim_result r;

	sim_result(s, &r);
	return r;
}

static struct policy_stats
stats(struct sim *s)
{
	struct policy_stats st;

	sim_policy(s)->stats(sim_policy_state(s), &st);
	return st;
}

/* The doc's growth example: 1 B -> 2 MiB; 3 MiB -> +4 MiB; 20 MiB -> +32 MiB. */
static void
growth(void)
{
	static const struct step steps[] = { ALLOC(1, 1), ALLOC(2, 3 * MiB), ALLOC(3, 20 * MiB) };
	struct policy_args args = { .opts = jax, .nopts = 1 };
	struct sim *s = test_sim_args("grow-only", 0, &args);

	run_steps(s, steps, 1);
	is_u64(sim_device(s)->c.reserved, 2 * MiB, "growth: the first region is 2 MiB");
	is_u64(block_of(s, 1), 256, "growth: 1 byte rounds to 256, split from the region");
	is_u64(addr_of(s, 1), B - 74 * MiB, "growth: at the region's start");
	run_steps(s, steps + 1, 1);
	is_u64(sim_device(s)->c.reserved, 6 * MiB, "growth: 3 MiB adds a 4 MiB region");
	is_u64(block_of(s, 2), 4 * MiB, "growth: 4 MiB < 2 x 3 MiB and 1 MiB of slack: no split");
	run_steps(s, steps + 2, 1);
	is_u64(sim_device(s)->c.reserved, 38 * MiB, "growth: 20 MiB doubles 8 -> 16 -> 32 MiB");
	is_u64(block_of(s, 3), 32 * MiB, "growth: handed out whole, 12 MiB of slack");
	is_u64(result(s).peak_allocated, 256 + 4 * MiB + 32 * MiB, "growth: in use counts slack");
	is_u64(result(s).device_allocs, 3, "growth: three regions");
	test_sim_free(s);
}

/* The doc's split experiment, in a preallocated 64 MiB pool. */
static void
split_rule(void)
{
	static const struct step steps[] = {
		ALLOC(1, 1572864),	/* 1.5 MiB */
		ALLOC(2, 256),		/* a guard after it */
		FREE(1),		/* a free 1.5 MiB chunk at the pool's start */
		ALLOC(3, 838861),	/* 0.8 MiB -> 839168: 1.5 MiB < 2 x that: whole */
		FREE(3),
		ALLOC(4, 734003),	/* 0.7 MiB -> 734208: 1.5 MiB >= 2 x that: split */
	};
	struct policy_args args = { .opts = jax, .nopts = 1 };
	struct sim *s = test_sim_args("preallocate", 64 * MiB, &args);

	run_steps(s, steps, 4);
	is_u64(sim_device(s)->c.reserved, 64 * MiB, "prealloc: the whole limit is one region");
	is_u64(addr_of(s, 3), B - 552 * MiB, "split: 0.8 MiB reuses the 1.5 MiB hole");
	is_u64(block_of(s, 3), 1572864, "split: and takes all of it (slack 733696 B)");
	run_steps(s, steps + 4, 2);
	is_u64(addr_of(s, 4), B - 552 * MiB, "split: 0.7 MiB lands at the hole's front");
	is_u64(block_of(s, 4), 734208, "split: and is split off it");
	is_u64(stats(s).largest_free, 64 * MiB - 1572864 - 256, "split: the pool's tail is the "
	    "largest free chunk");
	test_sim_free(s);
}

/* A slack of 128 MiB or more is always split off. */
static void
fragmentation_rule(void)
{
	static const struct step steps[] = {
		ALLOC(1, 600 * MiB),	/* 1 GiB pool: 424 MiB would be slack: split */
		ALLOC(2, 300 * MiB),	/* 424 MiB chunk: 124 MiB of slack: whole */
		FREE(1), FREE(2),	/* everything merges back */
	};
	struct policy_args args = { .opts = jax, .nopts = 1 };
	struct sim *s = test_sim_args("preallocate", 1024 * MiB, &args);

	run_steps(s, steps, 2);
	is_u64(block_of(s, 1), 600 * MiB, "128 MiB rule: 424 MiB of slack is split off");
	is_u64(block_of(s, 2), 424 * MiB, "128 MiB rule: 124 MiB of slack is handed out");
	is_u64(addr_of(s, 2), B - 1512 * MiB + 600 * MiB, "128 MiB rule: behind the first");
	run_steps(s, steps + 2, 2);
	is_u64(stats(s).largest_free, 1024 * MiB, "merge: the pool is one free chunk again");
	is_u64(stats(s).allocated, 0, "merge: nothing in use");
	test_sim_free(s);
}

/* TensorFlow frees wholly free regions to make room; JAX does not. */
static void
garbage_collection(void)
{
	static const struct step steps[] = {
		ALLOC(1, 1 * MiB), FREE(1),	/* a 2 MiB region, wholly free */
		ALLOC(2, 9 * MiB),		/* avail 8 MiB < 9 MiB: grow fails */
	};
	struct policy_args targs = { .opts = tf, .nopts = 1 };
	struct policy_args jargs = { .opts = jax, .nopts = 1 };
	struct sim *s = test_sim_args("grow-only", 10 * MiB, &targs);
	struct sim_result r;

	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	ok(!r.oomed, "gc (tensorflow): the free region goes back and the request fits");
	is_u64(r.device_frees, 1, "gc: one region freed");
	is_u64(r.alloc_retries, 1, "gc: counted as a retry");
	/* curr was 4 MiB: doubles to 16 MiB, cut to avail = 10 MiB */
	is_u64(sim_device(s)->c.reserved, 10 * MiB, "gc: the new region is cut to the limit");
	is_u64(block_of(s, 2), 10 * MiB, "gc: 9 MiB takes the 10 MiB region whole");
	test_sim_free(s);

	s = test_sim_args("grow-only", 10 * MiB, &jargs);
	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	ok(r.oomed, "no gc (jax): the same trace runs out of memory");
	is_u64(r.oom.event, 2, "no gc: at the 9 MiB request");
	is_u64(r.oom.reserved, 2 * MiB, "no gc: the free region is kept");
	is_u64(r.oom.largest_free, 2 * MiB, "no gc: though it is free");
	test_sim_free(s);
}

/* A device that refuses the whole limit: the region shrinks by 10% steps. */
static void
backpedal(void)
{
	static const struct step steps[] = { ALLOC(1, 1 * MiB) };
	static const struct policy_kv lim[] = { { "flavor", "jax" }, { "limit", "100MiB" } };
	struct policy_args args = { .opts = lim, .nopts = 2 };
	struct sim *s = test_sim_args("preallocate", 50 * MiB, &args);

	run_steps(s, steps, 1);
	/* 100 MiB * 0.9f, rounded to 256, until it fits: 94371840, 84934656,
	   76441344, 68797440, 61917696, 55726080, 50153472 */
	is_u64(sim_device(s)->c.reserved, 50153472, "backpedal: 0.9x steps in float, to 50153472");
	is_u64(sim_device(s)->c.refusals, 7, "backpedal: after seven refusals");
	test_sim_free(s);
}

static void
limits(void)
{
	static const struct step steps[] = { ALLOC(1, 3 * MiB), ALLOC(2, 3 * MiB) };
	struct policy_args args = { .opts = jax, .nopts = 1 };
	struct sim *s = test_sim_args("grow-only", 6 * MiB, &args);

	run_steps(s, steps, ARRAY_SIZE(steps));
	/* 3 MiB > curr (2 MiB): curr doubles to 4 MiB, handed out whole (1 MiB of
	   slack); the second needs 3 MiB but only 2 MiB remain under the limit */
	ok(result(s).oomed, "limit: growth stops at the limit");
	is_u64(result(s).oom.event, 1, "limit: at the second request");
	is_u64(result(s).peak_reserved, 4 * MiB, "limit: one 4 MiB region");
	is_u64(result(s).oom.largest_free, 0, "limit: no free chunk at all");
	test_sim_free(s);
}

/*
 * Boundaries (issue 12), each worked from bfc-allocator.md: a chunk of
 * exactly twice the request splits; a first request of exactly 2 MiB takes
 * the 2 MiB region and the next region is 4 MiB; garbage collection runs
 * when the request fits exactly once free regions are given back.
 */
static void
boundaries(void)
{
	static const struct step half[] = { ALLOC(1, 1 * MiB), ALLOC(2, 1 * MiB) };
	static const struct step exact[] = { ALLOC(1, 2 * MiB), ALLOC(2, 1) };
	static const struct step gc[] = { ALLOC(1, 1 * MiB), FREE(1), ALLOC(2, 20 * MiB) };
	struct policy_args args = { .opts = jax, .nopts = 1 };
	struct policy_args targs = { .opts = tf, .nopts = 1 };
	struct sim *s = test_sim_args("grow-only", 0, &args);

	run_steps(s, half, ARRAY_SIZE(half));
	is_u64(block_of(s, 1), 1 * MiB, "boundary: a 2 MiB chunk splits for exactly half of it");
	is_u64(sim_device(s)->c.reserved, 2 * MiB, "boundary: the second 1 MiB fits the other half");
	test_sim_free(s);

	s = test_sim_args("grow-only", 0, &args);
	run_steps(s, exact, 1);
	is_u64(sim_device(s)->c.reserved, 2 * MiB, "boundary: exactly 2 MiB takes the 2 MiB region");
	run_steps(s, exact + 1, 1);
	is_u64(sim_device(s)->c.reserved, 6 * MiB, "boundary: then the next region is 4 MiB");
	test_sim_free(s);

	/* 328 MiB pool, 200 MiB asked: under twice the request, but exactly 128 MiB of slack */
	s = test_sim_args("preallocate", 328 * MiB, &args);
	run_steps(s, half, 0);
	{
		static const struct step slack[] = { ALLOC(1, 200 * MiB), ALLOC(2, 128 * MiB) };

		run_steps(s, slack, ARRAY_SIZE(slack));
		is_u64(block_of(s, 1), 200 * MiB, "boundary: exactly 128 MiB of slack is split off");
		ok(!result(s).oomed, "boundary: and serves the next 128 MiB");
	}
	test_sim_free(s);

	/* JAX preallocates 75% of a named GPU: 16 GiB card, 15.5 GiB left after the context */
	{
		static const struct step one[] = { ALLOC(1, 1) };
		struct policy_args gargs = { .opts = jax, .nopts = 1, .gpu_total = 16 * GMS_GiB,
		    .gpu_cc = 8 };

		s = test_sim_args("preallocate", 16 * GMS_GiB - 512 * MiB, &gargs);
		run_steps(s, one, 1);
		is_u64(sim_device(s)->c.reserved, 12 * GMS_GiB, "boundary: JAX takes 75%% of a 16 GiB card");
		test_sim_free(s);
	}

	s = test_sim_args("grow-only", 20 * MiB, &targs);
	run_steps(s, gc, ARRAY_SIZE(gc));
	ok(!result(s).oomed, "boundary: 20 MiB fits a 20 MiB limit once the free 2 MiB region goes back");
	is_u64(sim_device(s)->c.reserved, 20 * MiB, "boundary: one 20 MiB region left");
	is_u64(result(s).device_frees, 1, "boundary: the 2 MiB region was released");
	test_sim_free(s);
}

/*
 * preallocate's pool slack (policy_stats.pool_slack): how much larger its one
 * region may be with every choice the same, worked by hand; then the runs at
 * the slack and one byte-step past it (regions are 256 B multiples), which
 * do the same and differ.
 */
static struct sim *
prealloc_run(uint64_t pool, const struct step *steps, size_t n)
{
	struct policy_args args = { .opts = jax, .nopts = 1 };
	struct sim *s = test_sim_args("preallocate", pool, &args);

	run_steps(s, steps, n);
	return s;
}

static void
pool_slack(void)
{
	/* the tail taken whole (3072 < 2 x 2048): a tail 1024 B larger is split */
	static const struct step whole[] = { ALLOC(1, 1024), ALLOC(2, 2048) };
	/* a free chunk (4096 at 0) just above the tail (3072) that is picked */
	static const struct step above[] = { ALLOC(1, 4096), ALLOC(2, 1024), FREE(1),
		ALLOC(3, 1536) };
	/* nothing fits: a tail of 2048 for 3072 */
	static const struct step oom[] = { ALLOC(1, 2048), ALLOC(2, 3072) };
	struct sim *s;
	uint64_t base;

	s = prealloc_run(4096, whole, 1);
	is_u64(stats(s).pool_slack, UINT64_MAX, "pool slack: a split tail, nothing else free: any");
	test_sim_free(s);
	s = prealloc_run(4096, whole, 2);
	is_u64(stats(s).pool_slack, 1023, "pool slack: tail 3072 for 2048, unsplit below 4096");
	is_u64(block_of(s, 2), 3072, "pool slack: the tail handed out whole");
	test_sim_free(s);
	s = prealloc_run(4096 + 768, whole, 2);
	is_u64(block_of(s, 2), 3840, "pool slack: 768 B more: still whole (the same choice)");
	test_sim_free(s);
	s = prealloc_run(4096 + 1024, whole, 2);
	is_u64(block_of(s, 2), 2048, "pool slack: 1024 B more: split (another choice)");
	test_sim_free(s);

	s = prealloc_run(8192, above, 4);
	base = addr_of(s, 2) - 4096;
	is_u64(stats(s).pool_slack, 1023, "pool slack: a free 4096 above the tail of 3072");
	is_u64(addr_of(s, 3), base + 5120, "pool slack: the tail picked");
	test_sim_free(s);
	s = prealloc_run(8192 + 768, above, 4);
	is_u64(addr_of(s, 3) - (addr_of(s, 2) - 4096), 5120, "pool slack: 768 B more: the tail");
	test_sim_free(s);
	s = prealloc_run(8192 + 1024, above, 4);
	is_u64(addr_of(s, 3) - (addr_of(s, 2) - 4096), 0,
	    "pool slack: 1024 B more: the tail ties 4096, the lower address wins");
	test_sim_free(s);

	s = prealloc_run(4096, oom, 2);
	is_u64(stats(s).pool_slack, 1023, "pool slack: out of memory, 1024 B short");
	ok(result(s).oomed, "pool slack: 3072 does not fit a tail of 2048");
	test_sim_free(s);
	s = prealloc_run(4096 + 768, oom, 2);
	ok(result(s).oomed && result(s).oom.event == 1, "pool slack: 768 B more: the same OOM");
	test_sim_free(s);
	s = prealloc_run(4096 + 1024, oom, 2);
	ok(!result(s).oomed, "pool slack: 1024 B more: it fits");
	test_sim_free(s);

	s = test_sim_args("grow-only", 0, &(struct policy_args){ .opts = jax, .nopts = 1 });
	run_steps(s, whole, 2);
	is_u64(stats(s).pool_slack, 0, "pool slack: none for growth (no one pool)");
	test_sim_free(s);
}

int
main(void)
{
	growth();
	split_rule();
	fragmentation_rule();
	garbage_collection();
	backpedal();
	limits();
	boundaries();
	pool_slack();
	return tap_done();
}
