/*
 * checkpoint.h - one policy's run without a limit, kept at points along the
 * trace, so that a run under a capacity starts from the last point before
 * that capacity could matter instead of from the first event.
 *
 * A run under capacity C goes exactly as the run without one until the
 * policy first asks its limit check for more than C (policy_ops.limit_inert
 * says when nothing else depends on C).  So plan's searches, which replay
 * the trace dozens of times at capacities near its peak, need replay only
 * the rest of it.  The points are forked processes: the process replaying
 * the run without a limit forks one at each point that can serve (known
 * from a first pass: a job that asks its most before the first point, as
 * most training does, is kept at none), which waits; a run under
 * C is a further fork of the last point whose prefix asked for at most C,
 * told C (policy_ops.set_capacity) and replaying from there.  Fork copies
 * the whole state exactly, whatever the policy, and a run ends with its
 * process.  Anything that fails (no fork, a lost process) answers "cannot",
 * and the caller replays from the start as before.
 */
#ifndef SIM_CHECKPOINT_H
#define SIM_CHECKPOINT_H

#include <stdint.h>

#include "sim/run.h"

struct ckpt;

#define CKPT_POINTS 15		/* evenly spaced: a run replays at most 1/16
				   more than it must */

/* The run without a limit, and what it had asked its limit check for at each point. */
struct ckpt_first {
	int rc;				/* 1 fits, 0 ran out (a limit of the
					   policy's own), < 0 could not run */
	struct sim_result res;		/* res.oom's strings NULL */
	uint64_t asks[CKPT_POINTS];	/* UINT64_MAX: not reached */
	int serves;			/* some point asked less than the
					   whole run: a capacity can start there */
};

/*
 * Replay spec's run without a limit here (spec: a trace held in memory,
 * capacity 0, model placement), noting its asks at each point.  Returns
 * first->rc.  Any thread.
 */
int ckpt_first(const struct run_spec *spec, struct ckpt_first *first);

/*
 * Keep that run at its points that can serve, in processes of their own
 * (the run replayed again there).  Returns NULL where none can (a policy
 * without set_capacity or limit_inert, a trace too short to gain, a run
 * that reaches its peak asks before the first point, no fork).  Call it
 * with no other thread of this process running: a fork copies only the
 * calling thread.
 */
struct ckpt *ckpt_start(const struct run_spec *spec, const struct ckpt_first *first);

/* Wait until its points are held (NULL: nothing).  One thread at a time. */
void ckpt_wait(struct ckpt *c);

/*
 * The same run under capacity, ended at the first OOM: 1 fits, 0 runs out
 * (with *res when res is not NULL), or < 0: not answered here (replay it
 * from the start, as before ckpt_wait).  Any thread, several at once.
 */
int ckpt_fits(struct ckpt *c, uint64_t capacity, struct sim_result *res);

/* End its processes and free it (NULL: nothing). */
void ckpt_end(struct ckpt *c);

/*
 * GMS_CHECKPOINTS=never turns them off, =always uses them on any trace
 * however short (for tests comparing both ways).
 */

#endif /* SIM_CHECKPOINT_H */
