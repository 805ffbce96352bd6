/*
 * report.h - turning a run's statistics into what people and scripts read:
 * the JSON object scripts depend on (gpumemsim-run(1), OUTPUT) and the text summary.  Reports
 * build strings and cJSON trees; the CLI prints them.
 */
#ifndef ANALYSIS_REPORT_H
#define ANALYSIS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "sim/policy.h"
#include "sim/sim.h"
#include "traces/trace.h"

/*
 * The version of every command's JSON (its first key, "schema"; doc/JSON.md):
 * raised when a key is taken away or changes its meaning, not when one is added.
 */
#define REPORT_JSON_SCHEMA 1

/* What was run, beside what came out of it. */
struct report_run {
	const char *trace;		/* the trace's name */
	const char *path;		/* the file as given */
	const char *policy;
	const struct policy_ops *ops;	/* ... the policy that ran */
	const struct policy_kv *opts;	/* the policy's options as it ran */
	size_t nopts;
	const char *recorded_conf;	/* the alloc_conf among them came from the
					   recording (run_output.recorded_conf), or NULL */
	int as_recorded;		/* some options came from the recording */
	const char *placement;		/* "model" or "recorded" */
	uint64_t capacity;		/* 0: unlimited */
	const char *gpu;		/* the --gpu model the capacity came from, or NULL */
	const struct trace_header *hdr;
	const struct sim_result *res;
};

/* The observed numbers a trace carries, compared with the simulation. */
struct report_observed_key {
	const char *key;
	uint64_t simulated;
	uint64_t observed;
	int ratio;		/* a fraction instead (the BFC allocator's
				   fragmentation), compared to the 6 digits the
				   recording keeps: */
	double simulated_ratio, observed_ratio;
};
#define REPORT_OBSERVED_KEYS 8

/* Whether an observed key's two sides agree. */
int report_observed_match(const struct report_observed_key *k);
/* Its value, simulated (which 1) or observed, as a report prints it, into buf. */
const char *report_observed_value(const struct report_observed_key *k, int which,
    char *buf, size_t size);

/*
 * Compare the trace's "observed" object with the run: fills keys[] with the
 * numeric keys present in both (at most REPORT_OBSERVED_KEYS) and returns how
 * many; *all_match says whether every one and the segment sequence agree.
 * Returns -1 when the trace has no observed numbers.
 */
int report_observed(const struct report_run *run, struct report_observed_key *keys,
    int *all_match);

/*
 * The capacity the run was held to: --capacity/--gpu, or the tighter limit
 * the policy's own options set (per_process_memory_fraction), as the engine
 * found it (sim_result.limit); 0: unlimited.
 */
uint64_t report_capacity(const struct report_run *run);

/* 1 - peak_allocated / peak_reserved (0 when nothing was reserved). */
double report_fragmentation(const struct sim_result *res);

/*
 * An input that does not hold the whole run (a snapshot that starts mid-run
 * or has no history), as every report says it: a JSON object (cJSON null for
 * a whole trace; caller deletes) and one text line (NULL for a whole trace;
 * caller frees).
 */
cJSON *report_incomplete_json(const struct trace_header *hdr);
char *report_incomplete_text(const struct trace_header *hdr);
/* The source of a job recorded without a GPU (python -m gpumemsim record), or NULL. */
const cJSON *report_nogpu_source(const struct trace_header *hdr);
/*
 * For a job recorded without a GPU: how far from PyTorch's its caching
 * replay's peak reserved was measured to fall (a fraction), or -1 where the
 * recording states none.
 */
double report_nogpu_uncertainty(const struct trace_header *hdr);

/*
 * For a caching run of a snapshot that does not record its allocator
 * settings, and was given none: one line saying the defaults are simulated
 * (caller frees); else NULL.
 */
char *report_settings_text(const struct report_run *run);

/* The `run --format=json` object (caller deletes). */
cJSON *report_run_json(const struct report_run *run);

/* The `run` text summary (caller frees). */
char *report_run_text(const struct report_run *run);
/* Its OUT OF MEMORY paragraph alone, for a run that ran out (caller frees). */
char *report_oom_text(const struct report_run *run);



/* One row of a comparison: a run, or the reason it could not be made. */
struct report_row {
	const char *label;		/* "caching", "grow-only:flavor=jax" */
	struct report_run run;		/* valid when err == 0 */
	int err;
	const char *cause;
};

/* What every row of a batch of policy runs names beside its result. */
struct report_rows_of {
	const char *path;		/* the trace as the user named it */
	const char *gpu;		/* --gpu, or NULL */
	uint64_t capacity;		/* 0: unlimited */
	const char *const *labels;	/* labels[i]: job i's policy as the user named it */
	unsigned framework;		/* the trace's, for the winner (report_compare) */
};

struct batch_job;
/*
 * Run jobs (each a policy on one trace: batch_run when they hold it in
 * memory, else batch_run_shared reads it once) on up to threads threads and
 * make rows[i] of job i; *first is the first that ran.  0, or a GMS_E* code
 * with *cause: a trace that cannot be read (every run breaks on it: said
 * once), or no policy could run.
 */
int report_rows_run(struct batch_job *jobs, size_t n, int threads,
    const struct report_rows_of *of, struct report_row *rows,
    const struct report_row **first, char **cause);

/* How a comparison picks its winner. */
struct report_compare {
	uint64_t capacity;		/* 0: unlimited */
	unsigned framework;		/* the trace's (TRACE_FW_*): only its users'
					   allocators can win, the others are shown
					   beside them; 0: any */
	int by_memory;			/* memory alone */
	int by_option;			/* the command takes --by: the reason names it */
	double time_bound;		/* else: driver time at most (1 + this) times the
					   fastest's (or 1 ms more) */
};

/*
 * The winner of a comparison: among the rows that ran, are not `ideal` (the
 * bound), are the trace's framework's own (how->framework), have a size (not
 * preallocate without a capacity), fit and, unless
 * by memory, spend no more than the bound over the fastest driver time, the
 * one that reserves least, ties broken by fewer device calls (then by order).
 * Returns its index or -1, and *why (caller frees): a sentence saying why,
 * or why there is none.
 */
int report_winner(const struct report_row *rows, size_t n, const struct report_compare *how,
    char **why);

/*
 * `compare --format=json`: {trace, capacity, peak_live, results: [...], by,
 * time_bound, winner, why}.
 */
cJSON *report_compare_json(const struct report_row *rows, size_t n, const char *trace,
    const struct report_compare *how);

/* The `compare` table (caller frees). */
char *report_compare_text(const struct report_row *rows, size_t n, const char *trace,
    const struct report_compare *how);

/* `replay`'s report: text to f, or JSON for one replay's result. */
struct replay_gpu;
struct replay_result;
void report_replay_text(FILE *f, const char *trace, const struct replay_gpu *g,
    const char *policy, uint64_t capacity, int touch, const struct replay_result *r,
    const struct replay_result *base);
cJSON *report_replay_json(const struct replay_result *r);
/* The replay's device calls: [[op, address, size], ...] / a line each. */
cJSON *report_replay_calls_json(const struct replay_result *r);
void report_replay_calls_text(FILE *f, const struct replay_result *r);
#endif /* ANALYSIS_REPORT_H */
