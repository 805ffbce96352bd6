/*
 * entries.h - every command's library entry: a command is its options
 * parsed into a request, one call here given the resolved input
 * (inputs.h), and the answer printed as text or JSON.  An entry takes every
 * kind of input its command does (a trace, two, the ranks of a job,
 * recordings at values) and decides what each means; the tests, the Python
 * package and later commands call the same entries.  Each entry returns 0
 * or a GMS_E* code with *cause; its answer is freed by its _free, after a
 * failure too.  Warnings a person should see (a trace that starts
 * mid-run, segments that left the recording) are the answer's, for the
 * caller to say: nothing here prints.
 */
#ifndef ANALYSIS_ENTRIES_H
#define ANALYSIS_ENTRIES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "analysis/attrib.h"
#include "analysis/check.h"
#include "analysis/info.h"
#include "analysis/inputs.h"
#include "analysis/placements.h"
#include "analysis/plan.h"
#include "analysis/ranks.h"
#include "analysis/report-html.h"
#include "analysis/report.h"
#include "analysis/scale-plan.h"
#include "analysis/scaling.h"
#include "analysis/share-report.h"
#include "analysis/stackdiff.h"
#include "analysis/tracediff.h"
#include "analysis/tune.h"
#include "analysis/watch.h"
#include "replay/replay.h"
#include "replay/share-gpu.h"
#include "sim/batch.h"
#include "sim/gpus.h"
#include "sim/policy.h"
#include "sim/run.h"
#include "sim/share.h"

/* Up to this many warnings an answer carries. */
#define ENTRY_WARNINGS 8
struct entry_warnings {
	char *w[ENTRY_WARNINGS];
	size_t n;
};
void entry_warn(struct entry_warnings *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void entry_warnings_free(struct entry_warnings *w);

/*
 * A report of one trace (text consumed), with the notes it ends with: how
 * a built job was built, and what an incomplete trace means (hdr).  The
 * JSON gains "incomplete" (the "scaled" key is the printer's: inputs.h).
 */
char *entry_notes_text(const struct inputs *in, char *text, const struct trace_header *hdr);
cJSON *entry_notes_json(cJSON *o, const struct trace_header *hdr);

/* One policy as a command names it: what it runs, and its label in reports. */
struct entry_policy {
	const struct policy_ops *ops;
	const struct policy_kv *opts;
	size_t nopts;
	const char *label;		/* "caching alloc_conf=expandable_segments:True" */
};

/* Where runs happen: a capacity, or a catalogued card's memory less the context. */
struct entry_target {
	uint64_t capacity;		/* 0: unlimited */
	const struct gpu_model *gpu;	/* --gpu, or NULL */
	enum run_placement placement;
};
/* A run spec for policy p on target t (its trace: inputs_spec). */
struct run_spec entry_spec(const struct entry_policy *p, const struct entry_target *t);

/* --- run ------------------------------------------------------------------ */

struct run_request {
	struct entry_policy policy;
	int as_recorded;		/* no policy named: a recording that says its
					   allocator's mode runs that one */
	struct entry_target target;
	int check_every;		/* the policy's invariants after every event */
	size_t placements;		/* > 0: under that many placements too */
	int threads;
	/* what holds the memory: by site, by stack, folded; at the moments */
	int by_site, by_stack, folded;
	const uint64_t *at;		/* events, besides the peak and the OOM */
	size_t nat;
	const char *frames;		/* a stack's frames kept (fnmatch), or NULL */
	unsigned depth;			/* its outermost frames kept; 0: every one */
	size_t top;			/* rows before the rest are folded */
	/* the timeline: points rows (0: every change, streamed to timeline) */
	int timeline;
	size_t points;
	FILE *timeline_stream;
};

struct run_answer {
	const struct run_request *rq;
	int ranked;			/* the input was the ranks of a job */
	struct run_output out;		/* one trace: its run (the model's placement's
					   with placements) */
	struct report_run rep;		/* ... as the reports take it */
	struct placements pl;
	struct attrib at;
	struct run_watch w;		/* its timeline (rq->timeline) */
	struct trace_mem *held;
	struct ranks_job job;		/* the ranks' runs */
	char *label;
	struct entry_warnings warn;
};

int entry_run(const struct inputs *in, const struct run_request *rq, struct run_answer *ans,
    char **cause);
char *entry_run_text(const struct run_answer *ans);
cJSON *entry_run_json(const struct run_answer *ans);
/* Did a run (any rank, any placement) run out of memory? */
int entry_run_oomed(const struct run_answer *ans);
void entry_run_free(struct run_answer *ans);

/* --- check ---------------------------------------------------------------- */

struct check_request {
	const struct entry_policy *pols;	/* each checked, named by its label when several */
	size_t npols;
	int as_recorded;
	struct entry_target target;	/* under a capacity the run must also fit */
	size_t placements;		/* > 0: the fit checks and the peak under every one */
	int threads;
	/* the thresholds given (has_*), each a check */
	int has_max_peak, has_max_frag, has_max_overhead, has_max_allocs, has_fit;
	uint64_t max_peak_reserved;
	double max_fragmentation, max_overhead;
	uint64_t max_device_allocs;
	uint64_t fit_capacity;		/* must fit here (--must-fit) */
	const cJSON *baseline;		/* a saved `run --format=json`, or NULL */
	const char *baseline_path;	/* ... its file, for messages */
	double tolerance;
	int any_trace;			/* the baseline may be of a trace of another name */
	int must_be_complete;		/* a check that each trace holds the whole job */
	size_t top;			/* stacks listed that grew since the baseline */
	const char *frames;		/* ... compared by the frames that match, or NULL */
	unsigned depth;			/* ... by their outermost frames (0: all) */
};

struct check_answer {
	const struct check_request *rq;
	const struct inputs *in;
	struct check_list l;
	struct run_output first;	/* the first run: the trace's header */
	struct run_output *ranks;	/* with the ranks of a job: each rank's first */
	const struct trace_header *inc;	/* the first incomplete trace's header */
	char *what;			/* the policies, as the title names them */
	struct stack_diff sd;		/* what grew since the baseline, when a check
					   failed and it has its stacks */
	char *grew;
};

/* A saved run result (a `run --format=json` file) as check takes it. */
int entry_check_baseline(const char *path, cJSON **out, char **cause);
int entry_check(const struct inputs *in, const struct check_request *rq,
    struct check_answer *ans, char **cause);
char *entry_check_text(const struct check_answer *ans);
char *entry_check_tap(const struct check_answer *ans);
cJSON *entry_check_json(const struct check_answer *ans);
void entry_check_free(struct check_answer *ans);

/* --- info ----------------------------------------------------------------- */

/* One trace's walk, and its header kept past it (the reader goes away). */
struct info_trace {
	struct info in;
	struct sim_result res;		/* the replay through ideal: the live peak */
	struct trace_header hdr;
	cJSON *hdr_copy;
	char name[256], format[32];
};

struct info_answer {
	const struct inputs *in;
	size_t top;			/* call sites at the live peak */
	struct info_trace *t;		/* one, or a rank's each (set->f[i]'s) */
	size_t n;
	struct attrib at;		/* one trace: what holds its live peak */
	struct trace_mem *held;
	struct entry_warnings warn;
};

int entry_info(const struct inputs *in, size_t top, struct info_answer *ans, char **cause);
char *entry_info_text(const struct info_answer *ans);
cJSON *entry_info_json(const struct info_answer *ans);
void entry_info_free(struct info_answer *ans);

/* --- compare -------------------------------------------------------------- */

struct compare_request {
	const struct entry_policy *pols;	/* each side by side (two traces: the first) */
	size_t npols;
	int as_recorded;		/* two traces: no policy named */
	struct entry_target target;
	int threads;
	struct report_compare how;	/* how the winner is picked */
	int by_site;			/* what holds each policy's memory at its peak */
	size_t top;
	int timeline;			/* every change, each policy's, spilled */
	size_t points;
	const char *frames;		/* two traces: the stacks compared by these frames */
	unsigned depth;
	int folded;			/* ... written folded, before and after */
};

struct compare_answer {
	const struct compare_request *rq;
	const struct inputs *in;
	/* one trace: a row a policy */
	struct batch_job *jobs;
	struct report_row *rows;
	size_t n;
	const struct report_row *first;	/* the first row that ran */
	struct run_watch *watch;
	struct timeline **tls;		/* each policy's timeline (rq->timeline) */
	char **labels;			/* ... its column's name: the label, CSV-safe */
	struct attrib *ats;
	struct attrib_peak *peaks;
	struct trace_mem *held;
	/* two traces: what grew between them */
	struct trace_diff td;
	int diffed;
	struct trace_mem *mem[2];
	/* the ranks of a job: each policy's worst rank */
	struct ranks_row *rrows;
};

int entry_compare(const struct inputs *in, const struct compare_request *rq,
    struct compare_answer *ans, char **cause);
char *entry_compare_text(const struct compare_answer *ans);
cJSON *entry_compare_json(const struct compare_answer *ans);
void entry_compare_free(struct compare_answer *ans);

/* --- plan ----------------------------------------------------------------- */

struct plan_request {
	const struct entry_policy *pols;
	size_t npols;
	enum run_placement placement;
	const struct gpu_model *const *gpus;	/* the cards tabulated */
	size_t ngpus;
	uint64_t overhead;		/* taken off each card's memory */
	size_t placements;		/* > 1: also the capacity under every one */
	int threads;
};

struct plan_answer {
	const struct plan_request *rq;
	const struct inputs *in;
	struct plan_report rep;		/* a trace's (or the job built at a value) */
	struct trace_mem *mem;
	int owned;			/* mem is the answer's */
	struct scale_plan sp;		/* recordings at values without one: each
					   card's largest value */
	int scaled;
	struct ranks_plan rp;		/* the ranks of a job */
};

int entry_plan(const struct inputs *in, const struct plan_request *rq,
    struct plan_answer *ans, char **cause);
char *entry_plan_text(const struct plan_answer *ans);
cJSON *entry_plan_json(const struct plan_answer *ans);
void entry_plan_free(struct plan_answer *ans);

/* --- tune ----------------------------------------------------------------- */

struct tune_request {
	struct entry_target target;	/* its capacity bounds the search */
	int threads;
};

struct tune_answer {
	const struct tune_request *rq;
	const struct inputs *in;
	int rmm;			/* an RMM log: RMM's resources and sizes */
	struct tune_rmm_report rrep;
	struct tune_report rep;		/* PyTorch's settings, and the BFC modes */
	int tuned;
	struct trace_mem *mem;
	int owned;
	/* the ranks of a job: tuned on the worst rank, then every rank run with it */
	struct ranks_job before, after;
	size_t worst;
	struct policy_kv kv;		/* the setting: alloc_conf=... */
};

int entry_tune(const struct inputs *in, const struct tune_request *rq,
    struct tune_answer *ans, char **cause);
char *entry_tune_text(const struct tune_answer *ans);
cJSON *entry_tune_json(const struct tune_answer *ans);
/* Does the best setting fit (every rank, with the ranks of a job)? */
int entry_tune_fits(const struct tune_answer *ans);
void entry_tune_free(struct tune_answer *ans);

/* --- report --------------------------------------------------------------- */

struct report_request {
	const struct entry_policy *pols;	/* side by side on the page */
	size_t npols;
	struct entry_target target;
	int threads;
	size_t points, top;
	const uint64_t *at;		/* the allocator's state after these events too */
	size_t nat;
	const char *title;		/* NULL: the trace's name */
	const char *command;		/* how the page was made, for its footer */
};

/* One trace's page: what it is made of, and what it holds. */
struct report_one {
	const char *path;
	struct trace_mem *mem;
	const char **labels;
	struct report_page page;
};

struct report_answer {
	const struct report_request *rq;
	struct report_one o[2];		/* the page is the last's; the first, before it,
					   is compared with it */
	int two;
	struct trace_diff td;
	struct ranks_job job;		/* the ranks of a job: the worst rank's page,
					   compared with the least's */
	char rname[2][32];
};

int entry_report(const struct inputs *in, const struct report_request *rq,
    struct report_answer *ans, char **cause);
/* The page, to f: 0, or -1 when f failed (errno set). */
int entry_report_html(FILE *f, const struct report_answer *ans);
void entry_report_free(struct report_answer *ans);

/* --- plot ----------------------------------------------------------------- */

struct plot_request {
	const struct entry_policy *pols;	/* each policy's lines (map, flame: the first's) */
	size_t npols;
	struct entry_target target;
	const char *out;		/* the picture's name: its type (plot_term) */
	int fd;				/* where it goes */
	const char *title;		/* NULL: made from the trace and the run */
	size_t points;			/* timeline rows kept, peaks included */
	int map, flame;			/* which picture: the timeline by default */
	const char *frames;		/* --flame: the frames kept, their depth */
	unsigned depth;
	uint64_t at;			/* map, flame: at this event (has_at) */
	int has_at;
	int threads;
};

/* Draw the picture rq asks of the input (a trace, or the ranks' timelines). */
int entry_plot(const struct inputs *in, const struct plot_request *rq, char **cause);

/* --- scale ---------------------------------------------------------------- */

struct scale_request {
	struct entry_policy policy;
	struct entry_target target;	/* with a capacity: the largest value that fits */
	const uint64_t *values;		/* the curve's values; none: the recorded ones and
					   2, 4 and 8 times the largest */
	size_t nvalues;
	const char *plot;		/* entry_scale_draw: the picture's name (its type) */
	int plot_fd;			/* ... where it goes */
};

int entry_scale(const struct inputs *in, const struct scale_request *rq,
    struct scale_report *rep, char **cause);
/* The curve: peak reserved and allocated against the value, and the capacity. */
int entry_scale_draw(const struct scale_request *rq, const struct scale_report *rep,
    char **cause);
/* The job built at value, written as a trace to path (never over an input). */
int entry_scale_write(const struct inputs *in, uint64_t value, const char *path, char **cause);

/* --- share ---------------------------------------------------------------- */

struct share_request {
	int threads;
	unsigned long long offsets;	/* > 0: that many runs at random start offsets */
	unsigned long long seed;
	int recommend;			/* per-job limits under which all fit */
	FILE *timeline;			/* each job's reservation over time, as CSV, or NULL */
};

struct share_answer {
	const struct inputs *in;
	struct share_result res;
	cJSON *offsets, *recommend;	/* the sections asked for, as JSON */
	char *offsets_text, *recommend_text;
};

/* The jobs of in (INPUTS_JOBS) on their card. */
int entry_share(const struct inputs *in, const struct share_request *rq,
    struct share_answer *ans, char **cause);
char *entry_share_text(const struct share_answer *ans);
cJSON *entry_share_json(const struct share_answer *ans);
/* The scenario's merged order as CSV (step,job,what,event,pass,t_us), to f. */
int entry_share_schedule(const struct inputs *in, FILE *f, char **cause);
/* The jobs' reservations stacked over time (from the timeline's CSV file), to out (fd). */
int entry_share_plot(const struct share_answer *ans, const char *out, int fd, const char *csv,
    char **cause);
void entry_share_free(struct share_answer *ans);

/* --- replay --------------------------------------------------------------- */

struct replay_request {
	struct entry_policy policy;	/* a trace's */
	uint64_t capacity;		/* enforced as PyTorch's memory fraction is */
	int touch;			/* write every block once */
	int baseline;			/* no-cache too: what caching saves */
	int cuda_device;
	const struct replay_share_gpu *gpu;	/* opens the GPU (replay_cuda_open's, or a
					   test's stand-in) */
	int built;			/* the CUDA backend was built */
};

struct replay_answer {
	const struct inputs *in;
	const struct replay_request *rq;
	/* a trace: the replay, the no-cache baseline, the GPU */
	struct replay_result r, base;
	int have_r, have_base;
	struct replay_gpu g;
	struct trace_mem *mem;
	int owned;
	/* the jobs of a shared card, one process each: prediction and what the GPU did */
	struct share_result pred, real;
	int agree;			/* the GPU did what the simulation said */
};

/* A trace's replay on GPU rq->cuda_device, or a scenario's jobs there. */
int entry_replay(const struct inputs *in, const struct replay_request *rq,
    struct replay_answer *ans, char **cause);
/* Text, with every device call (device_log). */
char *entry_replay_text(const struct replay_answer *ans, int device_log);
cJSON *entry_replay_json(const struct replay_answer *ans, int device_log);
void entry_replay_free(struct replay_answer *ans);

#endif /* ANALYSIS_ENTRIES_H */
