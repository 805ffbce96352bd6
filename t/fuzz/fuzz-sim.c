/*
 * fuzz-sim.c - the simulator under libFuzzer: the first bytes choose a policy,
 * its settings and a capacity; the rest is a trace (3 bytes an event: alloc
 * or free, a size class, a stream), fed to the engine with every policy
 * invariant checked after every event.  A broken invariant, or an event the
 * engine refuses though the harness made it sound, is a finding.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	const char *policy, *key, *value;
} setups[] = {
	{ "caching", NULL, NULL },
	{ "caching", "alloc_conf", "expandable_segments:True" },
	{ "caching", "alloc_conf", "max_split_size_mb:20,garbage_collection_threshold:0.5" },
	{ "caching", "alloc_conf", "roundup_power2_divisions:[1:2,64:8,>:1]" },
	{ "caching", "alloc_conf", "per_process_memory_fraction:0.3" },
	{ "grow-only", NULL, NULL },
	{ "grow-only", "flavor", "jax" },
	{ "preallocate", NULL, NULL },
	{ "no-cache", NULL, NULL },
	{ "ideal", NULL, NULL },
	{ "rmm-pool", NULL, NULL },
	{ "rmm-pool", "initial", "0" },
	{ "rmm-pool", "order", "handle" },
	{ "rmm-arena", NULL, NULL },
	{ "rmm-binning", NULL, NULL },
	{ "rmm-binning", "upstream", "cuda" },
	{ "rmm-fixed", NULL, NULL },
	{ "cuda-async", NULL, NULL },
	{ "cuda-async", "bound", "low" },
	{ "cuda-async", "bound", "high" },
};

static const uint64_t capacities[] = { 0, 64 << 20, 300 << 20, 1ull << 30 };

#define MAX_IDS 256

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_kv kv;
	struct policy_args args = { .device_total = 2 * GMS_GiB };
	struct trace_event ev;
	uint64_t live[MAX_IDS], next_id = 1, index = 0;
	size_t nlive = 0, i, k;
	struct device *dev;
	struct sim *s;
	char *cause = NULL;
	int rc;

	if (size < 2)
		return 0;
	k = data[0] % ARRAY_SIZE(setups);
	if (setups[k].key != NULL) {
		kv = (struct policy_kv){ setups[k].key, setups[k].value };
		args.opts = &kv;
		args.nopts = 1;
	}
	dev = device_sim_create(capacities[data[1] % ARRAY_SIZE(capacities)]);
	s = sim_create(policy_find(setups[k].policy, NULL), &args, dev, SIM_CHECK_EVERY, &cause);
	fuzz_assert(s != NULL, "a policy of the table cannot be made", cause);
	for (i = 2; i + 3 <= size; i += 3, index++) {
		memset(&ev, 0, sizeof(ev));
		if ((data[i] & 1) == 0 && nlive < MAX_IDS) {
			/* sizes from 1 byte to 128 MiB, densest where allocators' rules change */
			ev.op = TRACE_ALLOC;
			ev.id = next_id++;
			ev.size = ((uint64_t)data[i + 1] << (data[i] >> 3 & 15)) + (data[i + 2] & 0x3f) + 1;
			ev.stream = data[i + 2] >> 6;
			live[nlive++] = ev.id;
		} else if (nlive > 0) {
			k = data[i + 1] % nlive;
			ev.op = TRACE_FREE;
			ev.id = live[k];
			live[k] = live[--nlive];
			/* freed on a stream of its own choosing (RMM files the block there) */
			if (data[i + 2] & 0x20) {
				ev.stream = data[i + 2] >> 6;
				ev.flags |= TRACE_HAS_STREAM;
			}
		} else {
			ev.op = TRACE_MARK;
			ev.label = "";
		}
		rc = sim_event(s, index, &ev, &cause);
		fuzz_assert(rc != GMS_EBUG, "a policy broke an invariant", cause);
		fuzz_assert(rc == 0, "a sound event was refused", cause);
	}
	free(cause);
	sim_destroy(s);
	device_destroy(dev);
	return 0;
}
