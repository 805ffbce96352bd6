/*
 * policy-direct.c - no-cache (one device allocation per request, rounded to
 * the granularity) and ideal (reserves exactly the live bytes), by hand.
 */
#include "config.h"

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "t/steps.h"
#include "t/tap.h"

#define MiB GMS_MiB

static const struct step steps[] = {
	ALLOC(1, 1000),		/* no-cache: 1024 */
	ALLOC(2, 3 * MiB + 1),	/* no-cache: 3 MiB + 512 */
	FREE(1),
	ALLOC(3, 100),		/* no-cache: 512 */
	FREE(2), FREE(3),
};

static struct sim_result
result(struct sim *s)
{
	struct sim_result r;

	sim_result(s, &r);
	return r;
}

int
main(void)
{
	static const struct policy_kv pages[] = { { "granularity", "2MiB" } };
	struct policy_args args = { .opts = pages, .nopts = 1 };
	struct sim *s = test_sim("no-cache", 0);
	struct sim_result r;

	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	is_u64(r.device_allocs, 3, "no-cache: a device allocation per request");
	is_u64(r.device_frees, 3, "no-cache: a device free per free");
	is_u64(r.peak_reserved, 1024 + 3 * MiB + 512, "no-cache: reserved follows live, rounded to 512");
	is_u64(r.peak_allocated, r.peak_reserved, "no-cache: allocated is reserved");
	is_u64(sim_device(s)->c.reserved, 0, "no-cache: everything went back");
	test_sim_free(s);

	s = test_sim_args("no-cache", 0, &args);
	run_steps(s, steps, ARRAY_SIZE(steps));
	is_u64(result(s).peak_reserved, 2 * MiB + 4 * MiB, "no-cache granularity=2MiB: whole pages");
	test_sim_free(s);

	s = test_sim("ideal", 0);
	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	is_u64(r.peak_reserved, 1000 + 3 * MiB + 1, "ideal: reserved is the live peak");
	is_u64(r.peak_reserved, r.peak_live, "ideal: equal to peak_live");
	test_sim_free(s);

	s = test_sim("ideal", 1000 + 3 * MiB + 1);
	run_steps(s, steps, ARRAY_SIZE(steps));
	ok(!result(s).oomed, "ideal: fits in exactly the live peak");
	test_sim_free(s);

	s = test_sim("ideal", 1000 + 3 * MiB);
	run_steps(s, steps, ARRAY_SIZE(steps));
	r = result(s);
	ok(r.oomed, "ideal: one byte less does not fit");
	is_u64(r.oom.event, 1, "ideal: the OOM is where live bytes first exceed the capacity");
	test_sim_free(s);
	return tap_done();
}
