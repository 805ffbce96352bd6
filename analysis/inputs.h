/*
 * inputs.h - what a command reads, resolved once before it runs: one trace,
 * two traces (before and after), the ranks of one distributed job, the
 * recordings of one job at several values of a size (and the job built at
 * one of them), or the jobs of a shared GPU.  Every command's library entry
 * (entries.h) takes one struct inputs; which kinds a command takes is the
 * command table's to say (sim/cli/table.c), and a kind is added here and
 * there alone.  How each kind reads the trace a run needs is here too, so
 * an entry runs "the trace" without asking which kind it was.
 */
#ifndef ANALYSIS_INPUTS_H
#define ANALYSIS_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "analysis/oomlog.h"
#include "analysis/ranks.h"
#include "sim/gpus.h"
#include "sim/scenario.h"
#include "traces/scale.h"
#include "traces/trace.h"

enum inputs_kind {
	INPUTS_TRACE = 1u << 0,		/* one trace (convert: its input) */
	INPUTS_PAIR = 1u << 1,		/* two traces, before and after */
	INPUTS_RANKS = 1u << 2,		/* the ranks of one job (--ranks) */
	INPUTS_SCALED = 1u << 3,	/* recordings at values (--at VALUE TRACE) */
	INPUTS_JOBS = 1u << 4,		/* jobs sharing a GPU (--job, --scenario) */
	INPUTS_OOMLOG = 1u << 5,	/* an out-of-memory log (analysis/oomlog.h) */
};
#define INPUTS_NKINDS 6
/* The kind as the messages name it: "one trace", "two traces", "--ranks", ... */
const char *inputs_kind_name(enum inputs_kind k);

/* What the command line gives, for inputs_open. */
struct inputs_req {
	enum inputs_kind kind;
	char *const *args;		/* the positional arguments */
	size_t nargs;
	struct trace_opts topts;	/* --device, --unknown-frees: every read */
	int framework;			/* find whose the trace is (inputs.framework):
					   a command that picks policies by it */
	/* INPUTS_SCALED */
	const uint64_t *at;		/* each recording's value (args[i] at at[i]) */
	uint64_t value;			/* build the job here; 0: the model alone */
	/* INPUTS_JOBS */
	const char *scenario;		/* a scenario file, or NULL */
	const char *const *jobs;	/* --job texts */
	size_t njobs;
	const struct gpu_model *gpu;	/* the card (a command line's); NULL: the file's */
	uint64_t capacity;		/* ... or its memory; 0: the file's */
	uint64_t context;		/* each job's context; has_context 0: the file's,
					   else GPU_CONTEXT_OVERHEAD */
	int has_context;
	const char *command;		/* "share", "replay": for messages */
};

struct inputs {
	enum inputs_kind kind;
	struct trace_opts topts;
	unsigned framework;		/* whose allocator recorded it (TRACE_FW_*; the
					   first trace's, the after's of two, the first
					   rank's or recording's); 0: it does not say.
					   What a command runs when none is named. */
	const char *path;		/* TRACE: the trace; PAIR: the after; SCALED:
					   the recording the built job follows */
	const char *paths[2];		/* PAIR: before and after */
	struct rank_set ranks;		/* RANKS: by rank */
	/* SCALED */
	struct scale_rec *recs;
	size_t nrecs;
	struct scale_model *model;
	struct scale_built *built;	/* the job at req.value, or NULL */
	struct trace_mem *mem;		/* ... its trace */
	/* OOMLOG: the log, read */
	struct oomlog *oomlog;
	/* JOBS */
	struct share_specs specs;
	struct share_scenario sc;
	/* every file read, for outputs never to replace one */
	const char **files;
	size_t nfiles;
};

/*
 * Resolve rq into *in: RANKS collects the files and their ranks
 * (ranks_collect); SCALED reads the recordings, models them and with a value
 * builds the job there; JOBS reads the jobs and the card and checks them;
 * OOMLOG reads the log into the allocator's state at its OOM;
 * TRACE and PAIR only keep their paths (the runs read them).  0, or a GMS_E*
 * code with *cause; inputs_close either way.
 */
int inputs_open(const struct inputs_req *rq, struct inputs *in, char **cause);
void inputs_close(struct inputs *in);

/*
 * A run spec's trace for the input (TRACE: its path; SCALED: the built job,
 * under the recording it follows), and *held, when the trace is worth
 * holding for runs that read it twice (standard input, a pipe, a pickle:
 * trace_mem_worth) and hold is set: the caller frees it.  0, or a GMS_E* code
 * with *cause.
 */
struct run_spec;
struct trace_mem;
int inputs_spec(const struct inputs *in, int hold, struct run_spec *spec,
    struct trace_mem **held, char **cause);
/* The trace held in memory whole (TRACE: read; SCALED: the built job's, not the caller's). */
int inputs_mem(const struct inputs *in, struct trace_mem **mem, int *owned, char **cause);

/*
 * How a SCALED input's job was built: a paragraph for a text report, and
 * "scaled" in a JSON one (NULL, nothing: it was read).
 */
char *inputs_scaled_text(const struct inputs *in);
void inputs_scaled_json(const struct inputs *in, cJSON *o);

#endif /* ANALYSIS_INPUTS_H */
