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
 * the run without a limit forks one at each point, which waits; a run under
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

/*
 * Start spec's run without a limit (spec: a trace held in memory, capacity
 * 0, model placement) in a process of its own, with its points.  Returns
 * NULL where that cannot be (a policy without set_capacity or limit_inert,
 * a trace too short to gain, no fork).  Call it with no other thread of
 * this process running: a fork copies only the calling thread.
 */
struct ckpt *ckpt_start(const struct run_spec *spec);

/*
 * The run without a limit: 1 it ran through, 0 it ran out of memory (a limit
 * of the policy's own), with *res (res->oom's strings NULL); < 0: it could
 * not run there (the caller runs it itself, to say why).  Waits for it.
 */
int ckpt_uncapped(struct ckpt *c, struct sim_result *res);

/*
 * The same run under capacity, ended at the first OOM: 1 fits, 0 runs out
 * (with *res when res is not NULL), or < 0: not answered here (replay it
 * from the start).  Any thread, several at once.
 */
int ckpt_fits(struct ckpt *c, uint64_t capacity, struct sim_result *res);

/* End its processes and free it (NULL: nothing). */
void ckpt_end(struct ckpt *c);

/*
 * GMS_CHECKPOINTS=never turns them off, =always uses them on any trace
 * however short (for tests comparing both ways).
 */

#endif /* SIM_CHECKPOINT_H */
