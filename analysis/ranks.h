/*
 * ranks.h - the ranks of one distributed job (DDP, FSDP, pipeline or tensor
 * parallelism: one recording a rank): which files they are and which rank
 * each is, every rank's run on a GPU of its own, and the job's answer: the
 * worst rank and the spread, who runs out first under a capacity, what the
 * worst rank holds that the least does not (tracediff.h).
 */
#ifndef ANALYSIS_RANKS_H
#define ANALYSIS_RANKS_H

#include <stddef.h>

#include <cJSON.h>

#include "analysis/info.h"
#include "analysis/placements.h"
#include "analysis/tracediff.h"
#include "sim/batch.h"

struct rank_file {
	int rank;
	char *path;
	char *shown;		/* path as text shows it: control characters as '?' */
};

struct rank_set {
	struct rank_file *f;	/* by rank */
	size_t n;
	const char *from;	/* "names", "contents" or "order": where the ranks came from */
};

/*
 * The files args name (each a trace, or a directory whose traces are taken),
 * each given its rank, the first of these that every file has: the digits
 * after "rank" in its name (rank3, rank_3, rank-3); the rank its contents
 * say (trace_peek_rank: a profiler trace's distributedInfo); the digits just
 * before its extension (snap_3.pickle; a profiler's HOST_PID.TIME.pt.trace.json
 * would say its pid, so its contents come first); else their order,
 * directories' files sorted by name.  0, or a GMS_E* code with *cause (no
 * file, a rank named twice, an unreadable directory).
 */
int ranks_collect(char *const *args, int n, struct rank_set *set, char **cause);
/* How the text says where the ranks came from ("ranks from the files' names"). */
const char *ranks_from_text(const struct rank_set *set);
void ranks_free(struct rank_set *set);

/* The job: every rank's run (jobs[i] is set->f[i]'s) and what they say together. */
struct ranks_job {
	const struct rank_set *set;
	struct batch_job *jobs;
	uint64_t capacity;		/* 0: unlimited */
	size_t worst, least;		/* indexes: the rank that ran out first (the
					   share of its events: ranks advance together;
					   the first OOM when ooms > 0), else the largest
					   peak reserved; the least so */
	size_t ooms;			/* ranks that ran out */
	size_t observed, reproduced;	/* ranks whose recording's numbers were compared,
					   and reproduced exactly (uncapped runs) */
	struct trace_diff diff;		/* least (before) against worst (after) */
	int diffed;
	size_t nplace;			/* > 0: each rank also under that many placements */
	struct placements *pl;		/* a rank's each, then */
	size_t place_ooms;		/* ranks that run out under some placement */
};

/*
 * Run template's policy on every rank (template's path and mem ignored),
 * threads at once, then (RANKS_DIFF) the worst against the least by call
 * stack; with
 * nplace > 0 each rank under that many placements too (placements.h: the
 * placement uncertainty a rank's own).  0, or a GMS_E* code with *cause
 * naming the rank's file.
 */
#define RANKS_DIFF 1	/* flags: the worst rank against the least, by call stack */
int ranks_run(const struct rank_set *set, const struct run_spec *template, size_t nplace,
    unsigned flags, int threads, struct ranks_job *job, char **cause);
void ranks_job_free(struct ranks_job *job);

/* {worst_rank, peak_reserved, least_rank, spread, ooms, first_oom}. */
cJSON *ranks_job_json(const struct ranks_job *job);
/* Each rank's line, then the job's paragraph (and the stacks' table, top rows). */
char *ranks_text(const struct ranks_job *job, const char *policy, size_t top);
/* {"schema", "ranks": [{rank, path, ...run's keys}], "job": {...}}. */
cJSON *ranks_json(const struct ranks_job *job, const char *policy, size_t top);

/*
 * compare --ranks: each policy's job (a row each, the policies' order), and
 * the one of least memory: of the policies under which every rank fits (ideal, the bound,
 * aside), the one whose worst rank reserves least; when none fits, the one
 * whose first rank runs out latest.  Index into rows, or -1.
 */
struct ranks_row {
	const char *label;
	struct ranks_job job;
	char *not_run;		/* why the policy could not run (every rank's job then
				   unset), or NULL */
};
int ranks_winner(const struct ranks_row *rows, size_t n);
char *ranks_compare_text(const struct ranks_row *rows, size_t n);
cJSON *ranks_compare_json(const struct ranks_row *rows, size_t n);

/*
 * plan --ranks: every rank's plan (plan.h) on GPUs of its own, and the job's:
 * for each policy the capacity every rank needs (the worst rank's minimum),
 * and on each GPU whether every rank fits, with the least headroom, or which
 * rank runs out first (the share of its events, as ranks_run says it).
 */
struct plan_report;
struct trace_opts;
struct ranks_plan {
	const struct rank_set *set;
	struct plan_report *reps;	/* a rank's each */
	struct trace_mem **mems;
};

/*
 * Plan every rank of set as tmpl says (its policies, GPUs, overhead,
 * placements; each rank gets copies), one after another, each on threads.
 * 0, or a GMS_E* code with *cause naming the rank's file.
 */
int ranks_plan_run(const struct rank_set *set, const struct plan_report *tmpl,
    const struct trace_opts *topts, int threads, struct ranks_plan *rp, char **cause);
void ranks_plan_free(struct ranks_plan *rp);
char *ranks_plan_text(const struct ranks_plan *rp);
cJSON *ranks_plan_json(const struct ranks_plan *rp);

/*
 * info --ranks (ranks-info.c): each rank's info walk (the caller's: in[i],
 * hdr[i] and res[i], the run through ideal, are set->f[i]'s), side by side.
 */
struct ranks_info {
	const struct rank_set *set;
	struct info *in;
	struct trace_header *hdr;
	struct sim_result *res;
};

char *ranks_info_text(const struct ranks_info *ri);
cJSON *ranks_info_json(const struct ranks_info *ri);

#endif /* ANALYSIS_RANKS_H */
