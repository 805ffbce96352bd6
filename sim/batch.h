/*
 * batch.h - many simulations of one trace at once (compare, plan, tune,
 * --placements): each job is a run_spec; jobs run on up to `threads` POSIX
 * threads, each opening the trace itself (batch_run), or fed by one reader
 * (batch_run_shared); either way results never depend on the thread count.
 */
#ifndef SIM_BATCH_H
#define SIM_BATCH_H

#include <stddef.h>

#include "sim/run.h"

struct batch_job {
	struct run_spec spec;
	struct run_output out;	/* filled by batch_run; release with run_output_free */
	int err;		/* 0, or the GMS_E* code of a failed run */
	char *cause;		/* its message (caller frees) */
	int settle;		/* keep only the result once it ends
				   (run_output_settle): many jobs, few at once */
};

/* Threads to use by default: the machine's online cores. */
int batch_default_threads(void);

/* Run one job here, in this thread. */
void batch_run_one(struct batch_job *job);

/* Run every job; returns 0 once all have finished, whatever they returned. */
int batch_run(struct batch_job *jobs, size_t n, int threads);

/*
 * The same, for jobs that read one trace (the same path and device, no
 * trace_mem): the trace is read once, by the calling thread, while up to
 * threads threads replay it through every job.  The results and messages
 * are batch_run's; the first job's output owns the reader.
 */
int batch_run_shared(struct batch_job *jobs, size_t n, int threads);

/* Run fn(arg, i) for every i in [0, n) on up to threads threads. */
void batch_map(size_t n, void (*fn)(void *arg, size_t i), void *arg, int threads);

/* Release every job's output and message. */
void batch_free(struct batch_job *jobs, size_t n);

#endif /* SIM_BATCH_H */
