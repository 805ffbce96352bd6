/*
 * sim-errors.c - what the engine returns when a policy is broken (issue 10):
 * a failed invariant under SIM_CHECK_EVERY is GMS_EBUG, exit 5 with a message
 * that says it is a bug in gpumemsim, never "usage" (exit 2).  The broken
 * policy here serves every request at address 0 and then says so in check().
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "t/tap.h"

static int calls;

static int
bad_create(const struct policy_args *args, struct device *dev, void **state, char **cause)
{
	*state = &calls;
	return 0;
}

static int
bad_alloc(void *state, uint64_t size, int64_t stream, void **handle, uint64_t *block)
{
	*handle = state;
	*block = size;
	calls++;
	return 0;
}

static void bad_free(void *state, void *handle) { }
static uint64_t bad_addr(void *state, void *handle) { return 0; }
static void bad_stats(void *state, struct policy_stats *st) { memset(st, 0, sizeof(*st)); }
static void bad_walk(void *state, policy_segment_fn *seg, policy_block_fn *blk, void *arg) { }
static void bad_destroy(void *state) { }

static int
bad_check(void *state, char **cause)
{
	if (calls < 2)
		return 0;
	return gms_fail(cause, -1, "two live blocks at address 0");
}

static const struct policy_option no_options[] = { { NULL, NULL, NULL } };

static const struct policy_ops broken = {
	.name = "broken", .models = "nothing", .options = no_options,
	.limit = POLICY_LIMIT_RESERVED, .create = bad_create, .alloc = bad_alloc,
	.free = bad_free, .addr = bad_addr, .stats = bad_stats, .walk = bad_walk,
	.check = bad_check, .destroy = bad_destroy,
};

int
main(void)
{
	struct device *dev = device_sim_create(0);
	struct trace_event ev = { .op = TRACE_ALLOC, .size = 512 };
	char *cause = NULL;
	struct sim *s = sim_create(&broken, NULL, dev, SIM_CHECK_EVERY, &cause);
	int rc;

	ok(s != NULL, "a sim of the broken policy");
	ev.id = 1;
	ok(sim_event(s, 0, &ev, &cause) == 0, "the first alloc passes its check");
	ev.id = 2;
	rc = sim_event(s, 1, &ev, &cause);
	ok(rc == GMS_EBUG, "the second breaks the invariant: GMS_EBUG");
	ok(gms_exit_code(rc) == 5, "... which is exit 5, not usage");
	ok(cause != NULL && strcmp(cause, "internal error, a bug in gpumemsim (please report it "
	    "with the trace): policy broken broke an invariant: two live blocks at address 0") == 0,
	    "the message says it is gpumemsim's bug: %s", cause ? cause : "(none)");
	ok(gms_exit_code(GMS_EUSAGE) == 2, "usage stays exit 2");
	free(cause);
	sim_destroy(s);
	device_destroy(dev);
	return tap_done();
}
