/*
 * share.h - several jobs on one GPU (`gpumemsim share`): each job a trace
 * replayed through its own policy in its own process (its own CUDA context,
 * its own address space), all drawing on one card.  Events interleave by
 * time; a reservation the card cannot back is refused as the driver refuses
 * it, and each policy then does what its framework does (PyTorch frees its
 * cache and retries, BFC backs off its region, then out of memory).  A job
 * that runs out dies, and its memory returns to the card; the others go on.
 */
#ifndef SIM_SHARE_H
#define SIM_SHARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "sim/policy.h"
#include "traces/tracemem.h"

/* One job, as given (--job or a scenario file). */
struct share_job {
	char *name;
	char *path;
	const struct trace_mem *mem;
	const struct policy_ops *ops;
	struct policy_kv *opts;		/* the policy's own settings: alloc_conf,
					   flavor, gc */
	size_t nopts;
	char *label;			/* "caching", "grow-only flavor=jax" */
	uint64_t limit;			/* memory_limit (BFC), bytes; 0: the default */
	double fraction;		/* of the card: set_per_process_memory_fraction
					   (caching), XLA_PYTHON_CLIENT_MEM_FRACTION
					   (BFC, flavor jax); 0: none */
	int cc;				/* TensorFlow's reserve: compute capability */
	int device;			/* device=: the trace's GPU to read (a profile
					   or snapshot of several); -1: the command's */
	int64_t start_us;		/* when it starts */
	int start_is_event;		/* ... at the first job's event start_event */
	uint64_t start_event;
	uint64_t repeat;		/* passes over the trace; 0: until the others end */
	int64_t duration_us;		/* one pass, for a trace without times */
	int hold;			/* after=hold: done, it stays alive holding what
					   it reserved (its cache, its pool) until the
					   scenario ends; else it exits (after=exit) */
};

struct share_scenario {
	uint64_t total;			/* the card's memory */
	int cc;				/* its compute capability (TensorFlow's reserve) */
	const char *gpu;		/* its catalogue name, or NULL (--capacity) */
	uint64_t context;		/* each job's CUDA context */
	struct share_job *jobs;
	size_t njobs;
};

/* A job that could not go on. */
struct share_oom {
	size_t job;
	int64_t event;			/* in its trace; -1: at its start */
	uint64_t pass;
	int64_t time_us;
	uint64_t size;			/* what it asked for */
	const char *what;		/* "alloc", "context", "pool" */
	uint64_t *held;			/* every job's reservation then [njobs] */
	uint64_t gpu_free;		/* the card's memory free then */
};

struct share_job_result {
	int started;
	uint64_t peak_reserved;
	uint64_t limit;			/* the limit in force (memory_limit, the
					   fraction's bytes); 0: none */
	uint64_t passes;		/* whole passes done */
	uint64_t events;		/* events replayed */
	int64_t start_us, end_us;	/* end: when it gave its memory back */
	int64_t done_us;		/* after=hold: when its work was done; else end_us */
	int oomed;
	size_t oom;			/* its entry in ooms */
};

struct share_result {
	struct share_job_result *jobs;	/* [njobs] */
	struct share_oom *ooms;		/* in order */
	size_t nooms;
	uint64_t peak_used;		/* the card's most in use, contexts included */
	int fits;			/* no job ran out */
};

/*
 * The settings job j's policy gets when it starts with free_bytes free on
 * sc's card: its own, and the limit its framework takes then (TensorFlow's
 * from the free memory less its reserve, JAX's fraction of the card,
 * PyTorch's fraction as per_process_memory_fraction).  opts may point into
 * st: keep st where it is while they are used.
 */
struct share_settings {
	struct policy_kv *opts;
	size_t nopts;
	char *conf;
	char limit_text[32];
	uint64_t limit;			/* 0: none */
};
void share_settings(const struct share_scenario *sc, const struct share_job *j,
    uint64_t free_bytes, struct share_settings *st);
void share_settings_free(struct share_settings *st);

/* Is j a JAX job (a BFC policy of flavor jax)? */
int share_job_is_jax(const struct share_job *j);
/* Can j take its preallocated pool (st's limit, in the driver's pages) with
   free_bytes free?  Always, for a job that does not preallocate. */
int share_pool_fits(const struct share_job *j, const struct share_settings *st,
    uint64_t free_bytes);
/* A preallocating job takes its whole pool now, as the frameworks do at
   their start: 0, or -1 when the device refused it (then, or any part). */
struct sim;
int share_preallocate(const struct share_job *j, struct sim *sim);

/* How long a job runs: its passes (one, repeating until the others end) in microseconds. */
int64_t share_span(const struct share_job *j);

/*
 * Check sc (what share_run needs that a job spec cannot say alone): 0, or
 * GMS_ECONFIG with *cause naming the job.
 */
int share_check(const struct share_scenario *sc, char **cause);

/*
 * Run the scenario; with timeline, write "t_us,<job>...,used,free" at every
 * change of a reservation.  0, or a GMS_E* code with a located *cause.
 */
int share_run(const struct share_scenario *sc, FILE *timeline, struct share_result *res,
    char **cause);
void share_result_free(struct share_result *res);

/* One step of a scenario's merged order: a job's start, or one of its events. */
struct share_step {
	size_t job;
	int start;			/* its start (event and pass 0) */
	uint64_t event, pass;
	int64_t time_us;
};
/*
 * The steps in the order share_run() takes them when no job runs out (one
 * that does takes no more steps, and jobs repeating until the others end
 * stop when no other is left: the caller skips those).  *steps is the
 * caller's to free.  0, or GMS_ECONFIG with *cause.
 */
int share_schedule(const struct share_scenario *sc, struct share_step **steps, size_t *n,
    char **cause);

#endif /* SIM_SHARE_H */
