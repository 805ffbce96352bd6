/*
 * policy-caching.c - the caching policy step by step, every expected value
 * worked by hand from PyTorch's c10/cuda/CUDACachingAllocator.cpp.  The simulated
 * device places small (2 MiB) segments ascending from 2^46 and large ones
 * descending from 2^52, so addresses below are exact.  The policy's check()
 * runs after every step.
 */
#include "config.h"

#include <stdio.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "t/steps.h"
#include "t/tap.h"

/* The placement model's fresh context (doc/placement.md): the first 2 MiB
   segment fills its 2 MiB hole at B - 74 MiB, the next ones and a first
   segment of up to 24 MiB its hole at B; larger ones take 32 MiB slots from
   B - 488 MiB down. */
#define B ((uint64_t)1 << 51)
#define S (B - 74 * GMS_MiB)	/* first small segment */
#define MiB GMS_MiB

static struct sim_result
result(struct sim *s)
{
	struct sim_result r;

	sim_result(s, &r);
	return r;
}

static void
small_pool_split_and_best_fit(void)
{
	static const struct step steps[] = {
		ALLOC(1, 1000),	/* 1024 at S, the rest of the 2 MiB segment stays free */
		ALLOC(2, 512),	/* best fit is that remainder: S + 1024 */
		ALLOC(3, 100),	/* 512 at S + 1536 */
		FREE(2),	/* a 512-byte hole between 1 and 3 */
		ALLOC(4, 300),	/* 512: the hole fits exactly, best fit takes it */
	};
	struct sim *s = test_sim("caching", 0);

	run_steps(s, steps, ARRAY_SIZE(steps));
	is_u64(addr_of(s, 1), S, "small: the first block is the segment's low end");
	is_u64(addr_of(s, 3), S + 1536, "small: split blocks follow each other");
	is_u64(addr_of(s, 4), S + 1024, "small: best fit reuses the 512-byte hole");
	is_u64(block_of(s, 4), 512, "small: 300 bytes round to 512");
	is_u64(result(s).device_allocs, 1, "small: one 2 MiB segment serves all");
	is_u64(result(s).peak_reserved, 2 * MiB, "small: 2 MiB reserved");
	is_u64(result(s).peak_allocated, 1024 + 512 + 512, "small: peak allocated");
	is_u64(result(s).peak_requested, 1000 + 512 + 100, "small: peak requested");
	test_sim_free(s);
}

static void
large_pool_split_rule(void)
{
	static const struct step unsplit[] = {
		ALLOC(1, 3 * MiB),	/* a 20 MiB segment at B, 17 MiB left */
		ALLOC(2, 16 * MiB),	/* the 17 MiB block; 1 MiB would remain: no split */
	};
	static const struct step split[] = {
		ALLOC(1, 3 * MiB),
		ALLOC(2, 16 * MiB - 512),	/* 1 MiB + 512 remains: split */
		ALLOC(3, 1 * MiB + 1),		/* 1 MiB + 512: exactly that remainder */
	};
	struct sim *s = test_sim("caching", 0);

	run_steps(s, unsplit, ARRAY_SIZE(unsplit));
	is_u64(addr_of(s, 1), B, "large: 3 MiB gets a 20 MiB segment, low end");
	is_u64(addr_of(s, 2), B + 3 * MiB, "large: the 16 MiB request takes the remainder");
	is_u64(block_of(s, 2), 17 * MiB, "large: a remainder of exactly 1 MiB is not split off");
	is_u64(result(s).peak_allocated, 20 * MiB, "large: allocated counts the whole block");
	is_u64(result(s).device_allocs, 1, "large: one segment");
	test_sim_free(s);

	s = test_sim("caching", 0);
	run_steps(s, split, ARRAY_SIZE(split));
	is_u64(block_of(s, 2), 16 * MiB - 512, "large: a remainder of 1 MiB + 512 is split off");
	is_u64(addr_of(s, 3), B + 19 * MiB - 512, "large: and serves the next 1 MiB + 512");
	is_u64(block_of(s, 3), 1 * MiB + 512, "large: taken whole");
	is_u64(result(s).device_allocs, 1, "large: still one segment");
	test_sim_free(s);
}

static void
merge_and_reuse(void)
{
	static const struct step steps[] = {
		ALLOC(1, 512), ALLOC(2, 512), ALLOC(3, 512),
		FREE(1), FREE(3),	/* 1's block and 3's (merged with the tail) */
		FREE(2),		/* merges with both: one free 2 MiB block */
		ALLOC(4, 1 * MiB),	/* fits at the segment's start */
	};
	struct sim *s = test_sim("caching", 0);
	struct policy_stats st;

	run_steps(s, steps, 6);
	sim_policy(s)->stats(sim_policy_state(s), &st);
	is_u64(st.largest_free, 2 * MiB, "merge: three blocks and the tail become one 2 MiB block");
	is_u64(st.cached_free, 2 * MiB, "merge: all of the segment is cached");
	run_steps(s, steps + 6, 1);
	is_u64(addr_of(s, 4), S, "merge: the merged block is reused from its low end");
	is_u64(result(s).device_allocs, 1, "merge: no new segment");
	test_sim_free(s);
}

static void
streams(void)
{
	static const struct step steps[] = {
		ALLOC_S(1, 512, 0),
		FREE(1),
		ALLOC_S(2, 512, 7),	/* stream 7 never takes stream 0's cache */
		ALLOC_S(3, 512, 0),	/* stream 0 does */
	};
	struct sim *s = test_sim("caching", 0);

	run_steps(s, steps, ARRAY_SIZE(steps));
	is_u64(result(s).device_allocs, 2, "streams: a second stream gets its own segment");
	is_u64(addr_of(s, 2), B, "streams: the next small segment, in the context's 24 MiB hole");
	is_u64(addr_of(s, 3), S, "streams: stream 0 reuses its own block");
	test_sim_free(s);
}

static void
ties_break_by_address(void)
{
	static const struct step steps[] = {
		ALLOC(1, 30 * MiB),	/* a 32 MiB slot at B - 520 MiB */
		ALLOC(2, 30 * MiB),	/* the next at B - 552 MiB: lower */
		FREE(1), FREE(2),
		ALLOC(3, 30 * MiB),	/* two equal free blocks: the lower address wins */
	};
	struct sim *s = test_sim("caching", 0);

	run_steps(s, steps, ARRAY_SIZE(steps));
	is_u64(addr_of(s, 3), B - 552 * MiB, "ties: best fit takes the lowest address");
	test_sim_free(s);
}

static void
capacity_release_and_retry(void)
{
	static const struct step steps[] = {
		ALLOC(1, 12 * MiB), FREE(1),	/* 12 MiB cached, unsplit */
		ALLOC(2, 30 * MiB),	/* 12 + 30 > 40: release the cache, retry */
	};
	struct sim *s = test_sim("caching", 40 * MiB);
	struct sim_result r;

	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	ok(!r.oomed, "retry: the request fits after the cache is released");
	is_u64(r.alloc_retries, 1, "retry: counted once");
	is_u64(r.device_frees, 1, "retry: the cached segment went back");
	is_u64(r.device_allocs, 2, "retry: two segments in all");
	is_u64(r.peak_reserved, 30 * MiB, "retry: the peak is the new segment alone");
	is_u64(sim_device(s)->c.reserved, 30 * MiB, "retry: 30 MiB reserved now");
	test_sim_free(s);
}

static void
out_of_memory(void)
{
	static const struct step steps[] = {
		ALLOC(1, 3 * MiB),	/* 20 MiB segment, split: cannot be released */
		ALLOC(2, 30 * MiB),	/* 20 + 30 > 40, nothing to release: OOM */
		FREE(1),		/* after the OOM: read, not simulated */
		ALLOC(3, 64 * MiB),
		FREE(3),
	};
	struct sim *s = test_sim("caching", 40 * MiB);
	struct sim_result r;

	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	ok(r.oomed, "oom: the 30 MiB request fails under 40 MiB");
	is_u64(r.oom.event, 1, "oom: at event 1");
	is_u64(r.oom.size, 30 * MiB, "oom: the request's size");
	is_u64(r.oom.reserved, 20 * MiB, "oom: 20 MiB reserved");
	is_u64(r.oom.allocated, 3 * MiB, "oom: 3 MiB allocated");
	is_u64(r.oom.live, 3 * MiB, "oom: 3 MiB live");
	is_u64(r.oom.largest_free, 17 * MiB, "oom: the largest free block is the remainder");
	is_u64(r.alloc_retries, 1, "oom: the retry was counted");
	is_u64(r.device_frees, 0, "oom: nothing could be released");
	/* the trace goes on: 2 (30 MiB, never freed) and 3 (64 MiB) are live together */
	is_u64(r.peak_live, 94 * MiB, "oom: the live peak covers the whole trace");
	is_u64(r.peak_requested, 3 * MiB, "oom: requested stops at the OOM");
	is_u64(r.events, 5, "oom: every event was read");
	test_sim_free(s);
}

static void
strict_capacity(void)
{
	static const struct step steps[] = { ALLOC(1, 3 * MiB) };
	struct sim *s = test_sim("caching", 20 * MiB);

	run_steps(s, steps, 1);
	ok(!result(s).oomed, "capacity: reserved + segment == limit fits");
	test_sim_free(s);
	s = test_sim("caching", 20 * MiB - 1);
	run_steps(s, steps, 1);
	ok(result(s).oomed, "capacity: one byte less does not");
	is_u64(result(s).alloc_retries, 1, "capacity: after one retry");
	test_sim_free(s);
}

static void
zero_size(void)
{
	static const struct step steps[] = { ALLOC(1, 0), FREE(1), ALLOC(1, 0) };
	struct sim *s = test_sim("caching", 0);

	run_steps(s, steps, ARRAY_SIZE(steps));
	is_u64(result(s).device_allocs, 0, "size 0: a no-op, as in PyTorch");
	is_u64(result(s).zero_allocs, 2, "size 0: counted");
	is_u64(result(s).peak_allocated, 0, "size 0: nothing allocated");
	test_sim_free(s);
}

static struct sim *
conf_sim(const char *conf, uint64_t capacity)
{
	struct policy_kv kv = { "alloc_conf", conf };
	struct policy_args args = { .opts = &kv, .nopts = 1, .device_total = 80 * GMS_GiB };

	return test_sim_args("caching", capacity, &args);
}

#define VA ((uint64_t)1 << 52)	/* the first expandable segment's address range */

static void
expandable_segments(void)
{
	static const struct step steps[] = {
		ALLOC(1, 3 * MiB),	/* a new range; one 20 MiB page mapped; split */
		ALLOC(2, 30 * MiB),	/* the 17 MiB free block grows by one page: 37 MiB */
		FREE(1), FREE(2),	/* one free 40 MiB block before the unmapped rest */
		ALLOC(3, 44 * MiB),	/* 40 + 44 > 50 MiB: unmap both pages, retry */
	};
	/* the limit is checked against the segment size (30 MiB: 20 + 30 <= 50) */
	struct sim *s = conf_sim("expandable_segments:True", 50 * MiB);
	struct sim_result r;

	run_steps(s, steps, 1);
	is_u64(addr_of(s, 1), VA, "expandable: the first block at the range's start");
	is_u64(sim_device(s)->c.reserved, 20 * MiB, "expandable: one 20 MiB page (large pool)");
	run_steps(s, steps + 1, 1);
	is_u64(addr_of(s, 2), VA + 3 * MiB, "expandable: the free tail grows instead of a new segment");
	is_u64(sim_device(s)->c.reserved, 40 * MiB, "expandable: a second page mapped");
	is_u64(block_of(s, 2), 30 * MiB, "expandable: split exactly (>= 512 B remain)");
	run_steps(s, steps + 2, 3);
	r = result(s);
	ok(!r.oomed, "expandable: after unmapping, the request fits");
	is_u64(r.alloc_retries, 1, "expandable: one retry");
	is_u64(r.device_frees, 1, "expandable: one unmap of both pages");
	is_u64(r.device_allocs, 3, "expandable: three maps in all");
	/* PyTorch checks reserved + 44 MiB <= 50 MiB, then maps whole 20 MiB pages */
	is_u64(sim_device(s)->c.reserved, 60 * MiB, "expandable: 44 MiB maps three pages, "
	    "past the limit, as in PyTorch");
	is_u64(addr_of(s, 3), VA, "expandable: the released range is reused");
	test_sim_free(s);
}

static void
max_split_size(void)
{
	static const struct step steps[] = {
		ALLOC(1, 24 * MiB), FREE(1),	/* an oversize (>= 20 MiB) cached block */
		ALLOC(2, 12 * MiB),	/* a normal request never takes an oversize block */
		ALLOC(3, 22 * MiB),	/* an oversize one does, within 20 MiB of slack */
	};
	static const struct step release[] = {
		ALLOC(1, 24 * MiB), FREE(1),
		ALLOC(2, 40 * MiB),	/* 24 + 40 > 50 MiB: the oversize block goes first */
	};
	struct sim *s = conf_sim("max_split_size_mb:20", 0);
	struct sim_result r;

	run_steps(s, steps, 3);
	is_u64(result(s).device_allocs, 2, "max_split: the 12 MiB request gets a new segment");
	run_steps(s, steps + 3, 1);
	is_u64(block_of(s, 3), 24 * MiB, "max_split: 22 MiB takes the 24 MiB block, unsplit");
	is_u64(result(s).device_allocs, 2, "max_split: no new segment for it");
	test_sim_free(s);

	s = conf_sim("max_split_size_mb:20", 50 * MiB);
	run_steps(s, release, ARRAY_SIZE(release));
	r = result(s);
	ok(!r.oomed, "max_split: the request fits once the oversize block is gone");
	is_u64(r.device_frees, 1, "max_split: the oversize block was released");
	/* 24 MiB < 40 MiB: the targeted release reports failure, yet freed it */
	is_u64(r.alloc_retries, 1, "max_split: and the full release and retry still ran");
	test_sim_free(s);
}

/*
 * Boundaries (issue 12): release_available_cached_blocks freeing exactly the
 * request; a cached block of a higher stream never serves a lower one (the
 * free tree sorts by stream, so the search lands on it).
 */
static void
boundaries(void)
{
	static const struct step exact[] = {
		ALLOC(1, 60 * MiB), ALLOC(2, 40 * MiB), FREE(1), FREE(2),
		ALLOC(3, 100 * MiB),	/* 100 + 100 > 150: release 60 + 40 = exactly 100 */
	};
	static const struct step whole[] = { ALLOC(1, 90 * GMS_GiB), ALLOC(2, 90 * GMS_GiB + 512) };
	static const struct step order[] = {
		ALLOC_S(1, 512, 7), FREE(1),
		ALLOC_S(2, 512, 0),	/* stream 7's cached block sorts after: not for stream 0 */
	};
	struct sim *s = conf_sim("max_split_size_mb:20", 150 * MiB);
	struct sim_result r;

	run_steps(s, exact, ARRAY_SIZE(exact));
	r = result(s);
	ok(!r.oomed, "boundary: 100 MiB fits once 60 + 40 MiB of oversize blocks go back");
	is_u64(r.device_frees, 2, "boundary: both oversize blocks were released");
	is_u64(r.alloc_retries, 0, "boundary: releasing exactly the request succeeds, no retry");
	test_sim_free(s);

	/* one expandable segment spans 9/8 of the device: 90 GiB of an 80 GiB card */
	s = conf_sim("expandable_segments:True", 0);
	run_steps(s, whole, 1);
	ok(!result(s).oomed, "boundary: a request of exactly one expandable range (90 GiB) maps it");
	is_u64(sim_device(s)->c.reserved, 90 * GMS_GiB, "boundary: all of it");
	test_sim_free(s);
	s = conf_sim("expandable_segments:True", 0);
	run_steps(s, whole + 1, 1);
	ok(result(s).oomed, "boundary: 512 B more cannot be mapped: an OOM, even uncapped");
	test_sim_free(s);

	s = test_sim("caching", 0);
	run_steps(s, order, ARRAY_SIZE(order));
	is_u64(result(s).device_allocs, 2, "boundary: stream 0 never takes stream 7's cached block");
	test_sim_free(s);
}

static void
roundup_divisions(void)
{
	static const struct step steps[] = { ALLOC(1, 5 * MiB + 1) };
	struct sim *s = conf_sim("roundup_power2_divisions:4", 0);

	run_steps(s, steps, 1);
	is_u64(block_of(s, 1), 6 * MiB, "roundup 4: 5 MiB + 1 rounds to 6 MiB");
	test_sim_free(s);
	s = conf_sim("roundup_power2_divisions:[1:1,4:8]", 0);
	run_steps(s, steps, 1);
	/* slot 2 ([4 MiB, 8 MiB)) has 8 divisions: steps of 512 KiB */
	is_u64(block_of(s, 1), 5 * MiB + 512 * 1024, "roundup list: 8 divisions at 4 MiB");
	test_sim_free(s);
	s = conf_sim("roundup_power2_divisions:[1:1,4:8,>:2]", 0);
	run_steps(s, steps, 1);
	/* '>' fills the intervals after the last listed one (PyTorch 2.11, measured
	   on the H200: t/data/roundup-h200.txt): 4 MiB keeps its 8 divisions */
	is_u64(block_of(s, 1), 5 * MiB + 512 * 1024, "roundup list: '>' leaves the last listed "
	    "interval as it is");
	test_sim_free(s);
}

/*
 * Boundary (issue 12): GC stops once it has reclaimed exactly its target,
 * though a younger cached block remains.  Lookups count ages: A (10 MiB) is
 * freed at lookup 1, B (12 MiB) at lookup 3; at lookup 5 they are 4 and 2
 * old, reserved is 10 + 12 + 14 + 24 = 60 MiB over a 50 MiB threshold, so the
 * target is 10 MiB: the first pass (average age 3) frees A alone, exactly 10.
 */
static void
gc_stops_at_target(void)
{
	static const struct step steps[] = {
		ALLOC(1, 10 * MiB), FREE(1), ALLOC(2, 12 * MiB), ALLOC(3, 14 * MiB), FREE(2),
		ALLOC(4, 24 * MiB), ALLOC(5, 18 * MiB),
	};
	struct sim *s = conf_sim("garbage_collection_threshold:0.5", 100 * MiB);
	struct sim_result r;

	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	is_u64(r.device_frees, 1, "gc: the older block alone meets the target exactly");
	is_u64(r.peak_reserved, 68 * MiB, "gc: the younger 12 MiB block stays cached (50 + 18 MiB)");
	test_sim_free(s);
}

static void
garbage_collection(void)
{
	static const struct step steps[] = {
		ALLOC(1, 30 * MiB), FREE(1),	/* 30 MiB cached */
		ALLOC(2, 40 * MiB),		/* reserved 70 MiB */
		ALLOC(3, 30 * MiB + 1),		/* lookup fails: 70 > 0.5 x 100 MiB: GC */
	};
	struct sim *s = conf_sim("garbage_collection_threshold:0.5", 100 * MiB);
	struct sim_result r;

	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	is_u64(r.device_frees, 1, "gc: the old cached block is freed before growing");
	is_u64(r.alloc_retries, 0, "gc: no retry was needed");
	test_sim_free(s);
	s = conf_sim("", 100 * MiB);
	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	is_u64(r.device_frees, 1, "no gc: the cache goes only when the limit is hit");
	is_u64(r.alloc_retries, 1, "no gc: after a failed try");
	test_sim_free(s);
	s = conf_sim("garbage_collection_threshold:0.5", 0);
	run_steps(s, steps, ARRAY_SIZE(steps));
	is_u64(result(s).device_frees, 0, "gc: off without a capacity, as in PyTorch");
	test_sim_free(s);
	gc_stops_at_target();
}

int
main(void)
{
	small_pool_split_and_best_fit();
	large_pool_split_rule();
	merge_and_reuse();
	streams();
	boundaries();
	ties_break_by_address();
	capacity_release_and_retry();
	out_of_memory();
	strict_capacity();
	zero_size();
	expandable_segments();
	max_split_size();
	roundup_divisions();
	garbage_collection();
	return tap_done();
}
