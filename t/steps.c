/*
 * steps.c - running op streams for the policy tests (steps.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim/device.h"
#include "sim/policy.h"
#include "t/steps.h"
#include "t/tap.h"

struct sim *
test_sim(const char *policy, uint64_t capacity)
{
	struct policy_args args = { 0 };

	return test_sim_args(policy, capacity, &args);
}

struct sim *
test_sim_args(const char *policy, uint64_t dev_capacity, const struct policy_args *args)
{
	const struct policy_ops *ops;
	struct device *dev = device_sim_create(dev_capacity);
	char *cause = NULL;
	struct sim *s;

	if ((ops = policy_find(policy, &cause)) == NULL ||
	    (s = sim_create(ops, args, dev, SIM_CHECK_EVERY, &cause)) == NULL) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	return s;
}

void
run_steps(struct sim *s, const struct step *steps, size_t n)
{
	struct sim_result r;
	struct trace_event ev;
	char *cause = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		sim_result(s, &r);
		ev = (struct trace_event){ .op = steps[i].op, .id = steps[i].id,
		    .size = steps[i].size, .stream = steps[i].stream, .flags = steps[i].flags };
		if (sim_event(s, r.events, &ev, &cause) < 0) {
			printf("Bail out! step %zu: %s\n", i, cause);
			exit(1);
		}
	}
}

static void
lookup(struct sim *s, uint64_t id, uint64_t *addr, uint64_t *block)
{
	if (sim_lookup(s, id, addr, block) < 0) {
		printf("Bail out! id %llu is not live\n", (unsigned long long)id);
		exit(1);
	}
}

uint64_t
addr_of(struct sim *s, uint64_t id)
{
	uint64_t addr, block;

	lookup(s, id, &addr, &block);
	return addr;
}

uint64_t
block_of(struct sim *s, uint64_t id)
{
	uint64_t addr, block;

	lookup(s, id, &addr, &block);
	return block;
}

void
test_sim_free(struct sim *s)
{
	struct device *dev = sim_device(s);

	sim_destroy(s);
	device_destroy(dev);
}
