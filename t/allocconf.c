/*
 * allocconf.c - parsing PYTORCH_CUDA_ALLOC_CONF (sim/allocconf.c): values as
 * PyTorch sets them, and PyTorch's own messages for what it refuses, with
 * the place in the string.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/allocconf.h"
#include "sim/gms.h"
#include "t/tap.h"

#define MiB GMS_MiB

static void
refused(const char *s, const char *msg)
{
	struct alloc_conf c;
	char *cause = NULL;
	int rc = alloc_conf_parse(s, &c, &cause);

	ok(rc == GMS_ECONFIG && cause != NULL && strstr(cause, msg) != NULL,
	    "'%s' refused: %s", s, cause ? cause : "(no message)");
	free(cause);
}

int
main(void)
{
	struct alloc_conf c;
	char *cause = NULL;
	int i, all;

	ok(alloc_conf_parse("", &c, &cause) == 0, "the empty string is the defaults");
	is_u64(c.max_split, SC_UNLIMITED, "default: max_split_size unlimited");
	is_u64(c.max_non_split_rounding, 20 * MiB, "default: max_non_split_rounding 20 MiB");
	is_u64(c.sc.large_segment, 20 * MiB, "default: large segments of 20 MiB");
	ok(c.gc_threshold == 0 && !c.expandable, "default: no GC, no expandable segments");

	ok(alloc_conf_parse(" expandable_segments : True , max_split_size_mb:128,"
	    "garbage_collection_threshold:0.6", &c, &cause) == 0, "several keys, spaces ignored");
	ok(c.expandable, "expandable_segments:True");
	is_u64(c.max_split, 128 * MiB, "max_split_size_mb:128");
	ok(c.gc_threshold == 0.6, "garbage_collection_threshold:0.6");

	ok(alloc_conf_parse("roundup_power2_divisions:4", &c, &cause) == 0, "divisions: one value");
	for (i = 0, all = 1; i < SC_DIVISION_SLOTS; i++)
		all &= c.sc.divisions[i] == 4;
	ok(all, "divisions 4: every interval");
	ok(alloc_conf_parse("roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", &c, &cause) == 0,
	    "divisions: the list form");
	ok(c.sc.divisions[0] == 1 && c.sc.divisions[7] == 1 && c.sc.divisions[8] == 1 &&
	    c.sc.divisions[9] == 2 && c.sc.divisions[10] == 4 && c.sc.divisions[11] == 8 &&
	    c.sc.divisions[15] == 8,
	    "divisions list: the first value below its interval, '>' after the last listed one");

	ok(alloc_conf_parse("large_segment_size_mb:32,max_split_size_mb:40", &c, &cause) == 0,
	    "large_segment_size_mb");
	is_u64(c.sc.large_segment, 32 * MiB, "large segments of 32 MiB");
	is_u64(c.max_non_split_rounding, 32 * MiB, "max_non_split_rounding follows it");
	ok(alloc_conf_parse("backend:native,release_lock_on_cudamalloc:True,"
	    "pinned_use_cuda_host_register:False,pinned_num_register_threads:8", &c, &cause) == 0,
	    "keys without effect on device memory are accepted");

	/* Values that must fit what they feed (issue 10): refused, never truncated. */
	ok(alloc_conf_parse("roundup_power2_divisions:4294967296", &c, &cause) == 0 &&
	    c.sc.divisions[0] == ((uint64_t)1 << 32) && c.sc.divisions[15] == ((uint64_t)1 << 32),
	    "divisions 2^32 are kept whole (PyTorch's stoull takes them)");
	ok(alloc_conf_parse("max_non_split_rounding_mb:18446744073709551615", &c, &cause) == 0 &&
	    c.max_non_split_rounding == UINT64_MAX / MiB * MiB,
	    "max_non_split_rounding_mb clamps where bytes overflow, as PyTorch does");
	refused("large_segment_size_mb:17592186044416", "at character 23 ('17592186044416'): "
	    "large_segment_size_mb must be at most 1073741824");
	refused("max_split_size_mb:18446744073709551616", "takes a whole number");
	refused("pinned_num_register_threads:1024", "Number of register threads should be less "
	    "than or equal to 128");
	ok(alloc_conf_parse("pinned_num_register_threads:128", &c, &cause) == 0,
	    "pinned_num_register_threads:128 is PyTorch's largest");
	ok(alloc_conf_parse("per_process_memory_fraction:0.25", &c, &cause) == 0 &&
	    c.has_memory_fraction && c.memory_fraction == 0.25, "per_process_memory_fraction:0.25");
	ok(alloc_conf_parse("per_process_memory_fraction:0", &c, &cause) == 0 &&
	    c.has_memory_fraction && c.memory_fraction == 0, "per_process_memory_fraction:0 is a limit");
	ok(alloc_conf_parse("per_process_memory_fraction:1", &c, &cause) == 0 &&
	    c.memory_fraction == 1.0, "per_process_memory_fraction:1, the whole card, is taken");
	refused("pinned_num_register_threads:256", "less than or equal to 128");
	refused("per_process_memory_fraction:1.01", "per_process_memory_fraction is invalid, "
	    "set it in [0.0, 1.0]");
	refused("per_process_memory_fraction:nan", "set it in [0.0, 1.0]");
	ok(alloc_conf_parse("graph_capture_record_stream_reuse:True", &c, &cause) == 0 &&
	    c.graph_capture_reuse, "graph_capture_record_stream_reuse is accepted");
	refused("graph_capture_record_stream_reuse:1", "Expected a single True/False");

	refused("foo:1", "at character 1 ('foo'): Unrecognized CachingAllocator option: foo");
	refused("max_split_size_mb:5", "at character 19 ('5'): CachingAllocator option "
	    "max_split_size_mb too small, must be >= 20");
	refused("large_segment_size_mb:32,max_split_size_mb:30", "must be >= 32");
	refused("max_non_split_rounding_mb:1", "max_non_split_rounding_mb too small");
	/* measured with PyTorch 2.11: 0 is a value like any other, and too small */
	refused("max_split_size_mb:0", "at character 19 ('0'): CachingAllocator option "
	    "max_split_size_mb too small, must be >= 20");
	refused("max_non_split_rounding_mb:0", "max_non_split_rounding_mb too small, must be >= 20");
	refused("garbage_collection_threshold:1.5", "garbage_collect_threshold is invalid, "
	    "set it in (0.0, 1.0)");
	refused("garbage_collection_threshold:0", "set it in (0.0, 1.0)");
	refused("garbage_collection_threshold:1", "set it in (0.0, 1.0)");
	refused("large_segment_size_mb:10", "large_segment_size_mb must be > 10");
	ok(alloc_conf_parse("large_segment_size_mb:11", &c, &cause) == 0 &&
	    c.sc.large_segment == 11 * MiB, "large_segment_size_mb:11 is the smallest taken");
	refused("roundup_power2_divisions:3", "For roundups, the divisons has to be power of 2");
	refused("roundup_power2_divisions:[3:2]", "the intervals have to be power of 2");
	refused("roundup_power2_divisions:[256:3]", "power of 2 or 0 to disable roundup");
	refused("roundup_power2_divisions:[256:2", "no closing ]");
	refused("expandable_segments:true", "Expected a single True/False argument for "
	    "expandable_segments");
	refused("max_split_size_mb", "at its end: Error parsing CachingAllocator::AllocatorConfig "
	    "settings, expected :");
	refused("max_split_size_mb:abc", "max_split_size_mb takes a whole number, not 'abc'");
	refused("max_split_size_mb:64;expandable_segments:True", "takes a whole number");
	refused("expandable_segments:True max_split_size_mb:64", "Expected a single True/False");
	refused("backend:cudaMallocAsync", "which --policy=cuda-async simulates");
	refused("max_split_size_mb:64 expandable", "takes a whole number");
	return tap_done();
}
