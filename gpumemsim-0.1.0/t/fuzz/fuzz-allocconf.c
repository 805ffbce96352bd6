/*
 * fuzz-allocconf.c - PYTORCH_CUDA_ALLOC_CONF strings under libFuzzer: parsed,
 * and when accepted, every value within what it feeds (divisions powers of
 * two or 0, sizes not below PyTorch's minimums, a fraction in [0, 1]); then a
 * fixed alloc/free sequence runs through the caching policy with that
 * setting, its invariants checked after every event, under a capacity.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/allocconf.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t sizes[] = { 512, 1000, 1 << 20, 3 << 20, 20 << 20, 21 << 20, 100 << 20 };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *cause = NULL;
	struct alloc_conf c;
	struct policy_kv kv = { "alloc_conf", s };
	struct policy_args args = { .opts = &kv, .nopts = 1, .device_total = 8 * GMS_GiB };
	struct trace_event ev = { 0 };
	struct device *dev;
	struct sim *sim;
	size_t i;
	int rc;

	memcpy(s, data, size);
	s[size] = '\0';
	rc = alloc_conf_parse(s, &c, &cause);
	if (rc < 0) {
		fuzz_assert(rc == GMS_ECONFIG && cause != NULL, "a refusal without a message", s);
		goto out;
	}
	for (i = 0; i < SC_DIVISION_SLOTS; i++)
		fuzz_assert(c.sc.divisions[i] == 0 || (c.sc.divisions[i] & (c.sc.divisions[i] - 1)) == 0,
		    "divisions not a power of two", s);
	/* PyTorch 2.11: the minimum follows large_segment_size_mb (20 MiB by default) */
	fuzz_assert(c.max_split >= c.sc.large_segment, "max_split below the large segment size", s);
	fuzz_assert(c.sc.large_segment > 10 * GMS_MiB && c.sc.large_segment <= ((uint64_t)1 << 50),
	    "large segment out of range", s);
	fuzz_assert(c.gc_threshold == 0 || (c.gc_threshold > 0 && c.gc_threshold < 1),
	    "gc threshold out of range", s);
	fuzz_assert(!c.has_memory_fraction || (c.memory_fraction >= 0 && c.memory_fraction <= 1),
	    "memory fraction out of range", s);

	dev = device_sim_create(2 * GMS_GiB);
	sim = sim_create(&policy_caching, &args, dev, SIM_CHECK_EVERY, &cause);
	fuzz_assert(sim != NULL, "an accepted setting makes no policy", cause);
	for (i = 0; i < 64; i++) {
		ev.op = i % 3 == 2 ? TRACE_FREE : TRACE_ALLOC;
		ev.id = ev.op == TRACE_FREE ? i - 1 : i;
		ev.size = sizes[(i * 7 + size) % ARRAY_SIZE(sizes)] + i;
		rc = sim_event(sim, i, &ev, &cause);
		fuzz_assert(rc != GMS_EBUG, "the simulation broke an invariant", cause);
		fuzz_assert(rc == 0, "a sound event refused", cause);
	}
	sim_destroy(sim);
	device_destroy(dev);
out:
	free(cause);
	free(s);
	return 0;
}
