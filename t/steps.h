/*
 * steps.h - policy tests as op streams (git's t-prio-queue shape): a table of
 * ALLOC/FREE steps run through a policy over the simulated device, with the
 * policy's check() after every step.
 */
#ifndef T_STEPS_H
#define T_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/policy.h"
#include "sim/sim.h"

struct step {
	int op;			/* TRACE_ALLOC, TRACE_FREE */
	uint64_t id, size;
	int64_t stream;
	unsigned flags;		/* TRACE_HAS_STREAM: a free on that stream */
};

#define ALLOC(i, n)        { TRACE_ALLOC, (i), (n), 0, 0 }
#define ALLOC_S(i, n, st)  { TRACE_ALLOC, (i), (n), (st), 0 }
#define FREE(i)            { TRACE_FREE, (i), 0, 0, 0 }
#define FREE_S(i, st)      { TRACE_FREE, (i), 0, (st), TRACE_HAS_STREAM }

/* A sim of the named policy over a simulated device (capacity 0: unlimited). */
struct sim *test_sim(const char *policy, uint64_t capacity);
/* The same with policy options; the device enforces dev_capacity. */
struct sim *test_sim_args(const char *policy, uint64_t dev_capacity,
    const struct policy_args *args);
/* Run the steps; each is one event, numbered from the sim's event count. */
void run_steps(struct sim *s, const struct step *steps, size_t n);
/* The address of live id (aborts the test run if it is not live). */
uint64_t addr_of(struct sim *s, uint64_t id);
/* The bytes the policy counts for live id. */
uint64_t block_of(struct sim *s, uint64_t id);
/* Free the sim and its device. */
void test_sim_free(struct sim *s);

#endif /* T_STEPS_H */
