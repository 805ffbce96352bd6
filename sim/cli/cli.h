/*
 * cli.h - the command line's one declaration: every option (its letter, long
 * name, value grammar and help) is declared once in sim/cli/table.c, and every
 * command there names the options and shared option groups it takes.  One
 * parser (parse.c) serves every command; --help, the man pages and the bash
 * completion (help.c, written out by gendoc.c at build time) come from the
 * same table, so none of them can drift from what the parser accepts.
 *
 * The input a command reads (one trace, two, the ranks of a job, recordings
 * at values, the jobs of a shared card) is a kind the table declares,
 * resolved once before the command runs (resolve.c, analysis/inputs.h).  A
 * command's exec() then does parse -> one library entry -> print: its
 * options into the entry's request, entry_NAME (analysis/entries.h) given
 * the input, the answer as text or JSON.  Exit codes are gms.h's enum
 * gms_exit.
 */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/inputs.h"
#include "sim/gms.h"
#include "sim/outfile.h"
#include "sim/run.h"

struct policy_kv;
struct policy_ops;
struct gpu_model;
struct run_spec;
struct timeline;

/* Every option of every command: one meaning each. */
enum cli_opt {
	OPT_NONE = 0,
	/* the trace */
	OPT_DEVICE, OPT_UNKNOWN_FREES,
	/* the target */
	OPT_CAPACITY, OPT_GPU, OPT_CONTEXT_OVERHEAD,
	/* the policy */
	OPT_POLICY, OPT_POLICIES, OPT_OPTION, OPT_ALLOC_CONF, OPT_PLACEMENT,
	/* the output */
	OPT_FORMAT, OPT_OUTPUT, OPT_TIMELINE, OPT_POINTS,
	/* progress */
	OPT_QUIET, OPT_JOBS,
	/* commands' own */
	OPT_FAIL_ON_OOM, OPT_CHECK, OPT_BY, OPT_TIME_BOUND, OPT_GPUS,
	OPT_MAX_PEAK_RESERVED, OPT_MAX_FRAGMENTATION, OPT_MAX_OVERHEAD, OPT_MUST_FIT,
	OPT_MAX_DEVICE_ALLOCS, OPT_BASELINE, OPT_TOLERANCE, OPT_ANY_TRACE, OPT_MUST_BE_COMPLETE,
	OPT_MAP, OPT_AT, OPT_TITLE,
	OPT_TOUCH, OPT_NO_CACHE_BASELINE, OPT_CUDA_DEVICE, OPT_FAIL_ON_MISMATCH,
	OPT_JOB, OPT_SCENARIO, OPT_OFFSETS, OPT_SEED, OPT_RECOMMEND, OPT_PLOT, OPT_SCHEDULE,
	OPT_BY_SITE, OPT_TOP, OPT_PLACEMENTS, OPT_DEVICE_LOG, OPT_VALUE,
	OPT_BY_STACK, OPT_DEPTH, OPT_FRAMES, OPT_FOLDED, OPT_FLAME, OPT_RANKS,
	OPT_HELP,
	OPT__N
};

/* The grammar of an option's value, checked by the parser. */
enum cli_kind {
	K_FLAG,		/* no value */
	K_STRING,	/* any text */
	K_FILE,		/* a path; '-' is standard input or output */
	K_SIZE,		/* "24GiB", "1.5 GB", "512k": above 0 */
	K_SIZE0,	/* a size, 0 allowed */
	K_RATIO,	/* "0.2" or "20%"; a bare number above 1 is ambiguous */
	K_COUNT,	/* 1 to max */
	K_INDEX,	/* 0 to max */
	K_CHOICE,	/* one of choices */
	K_POLICY,	/* "caching alloc_conf=..." (policy_parse_spec) */
	K_POLICIES,	/* K_POLICY, comma-separated: each in cli_val.specs ("all":
			   every policy) */
	K_KV,		/* KEY=VALUE */
	K_THREADS,	/* a K_COUNT of threads; by default the cores */
	K_GPU,		/* a catalogued GPU model, or a size for a card the
			   catalogue lacks (gpu_parse); "list" lists them */
	K_GPUS,		/* K_GPU, comma-separated: each in cli_val.gpus */
	K_FIT,		/* a size, or a GPU model (its memory less
			   --context-overhead: cli_fit_capacity) */
};

struct cli_optdef {
	enum cli_opt id;
	int letter;			/* 0: long only */
	const char *name;
	const char *arg;		/* shown as <arg>; NULL for a flag */
	enum cli_kind kind;
	const char *help;
	const char *const *choices;	/* K_CHOICE */
	unsigned long long max;		/* K_COUNT, K_INDEX */
	int repeat;			/* every value kept, in order */
	const char *complete;		/* completion: "file", "policy", "gpu", "conf" */
	/*
	 * The value the parser gives the option when it is not given, as a user
	 * would write it (NULL: none; K_THREADS: the cores).  Its help says it
	 * where it writes "{}", so that the value is written once.
	 */
	const char *dflt;
};

extern const struct cli_optdef cli_optdefs[];	/* indexed by enum cli_opt */

/*
 * A command's use of an option: its own help, choices or default where they
 * differ, and the kinds of input it goes with (the option is refused with
 * another, in the same words in every command: never taken and ignored).
 */
struct cli_use {
	enum cli_opt id;
	const char *help;		/* NULL: the option's */
	const char *const *choices;	/* NULL: the option's */
	const char *dflt;		/* NULL: the option's */
	unsigned kinds;			/* enum inputs_kind bits; 0: every kind the
					   command takes */
};

/* The shared option groups (a command takes a set of them). */
enum cli_group {
	G_TRACE = 1 << 0,	/* --device --unknown-frees */
	G_TARGET = 1 << 1,	/* --capacity --gpu --context-overhead */
	G_POLICY = 1 << 2,	/* --policy --option --alloc-conf */
	G_POLICIES = 1 << 3,	/* G_POLICY, --policy repeatable, and --policies */
	G_OUTPUT = 1 << 4,	/* --format --output */
	G_TIMELINE = 1 << 5,	/* --timeline --points */
	G_PROGRESS = 1 << 6,	/* --quiet */
	G_SCALED = 1 << 7,	/* --at --value: the job built at a value nobody
				   recorded, from recordings at others (scale) */
};
#define CLI_NGROUPS 8
extern const char *const cli_group_names[CLI_NGROUPS];
extern const enum cli_opt *const cli_group_opts[CLI_NGROUPS];

struct cli_args;

struct cli_command {
	const char *name;
	const char *args;		/* positional arguments: "<trace>" */
	const char *summary;		/* one line */
	const char *description;	/* paragraphs, blank-line separated */
	const char *examples;		/* "command\n" lines; "# text" lines explain */
	const char *more;		/* man page only: more sections, "== TITLE" headed */
	unsigned groups;
	const struct cli_use *opts;	/* its own, ended by OPT_NONE */
	unsigned inputs;		/* the kinds of input it takes (analysis/inputs.h),
					   resolved before exec runs: cli_args.in */
	int needs_value;		/* INPUTS_SCALED: --value is required */
	int by_framework;		/* what it runs by default follows whose
					   allocator the trace was recorded from
					   (inputs.framework: its header is read first) */
	int min_args, max_args;
	int own_output;			/* --output is the command's own (not its report) */
	int (*exec)(struct cli_args *a);
};

extern const struct cli_command cli_commands[];	/* ended by name NULL */

/* gpumemsim(1)'s own prose: its description, and "== TITLE" sections. */
extern const char cli_manual_intro[];
extern const char cli_manual_more[];

/*
 * A parsed value (the last given, for options that are not repeatable), or
 * the option's default when it was not given and has one.
 */
#define CLI_GPUS_MAX 64
struct cli_val {
	const char *s;			/* as written */
	uint64_t size;			/* K_SIZE, K_SIZE0; K_FIT given as a size */
	double ratio;			/* K_RATIO */
	unsigned long long n;		/* K_COUNT, K_INDEX, K_THREADS */
	int choice;			/* K_CHOICE: the index */
	const struct gpu_model *gpu;	/* K_GPU; K_FIT given as a GPU (else NULL) */
	struct gpu_model *own;		/* K_GPU, K_GPUS: the cards given as sizes */
	const struct gpu_model **gpus;	/* K_GPUS: every card, in order */
	size_t ngpus;
	char *words;			/* K_GPUS, K_POLICIES: the list, split */
	const char **specs;		/* K_POLICIES: every policy, in order */
	size_t nspecs;
};

struct cli_args {
	const struct cli_command *cmd;
	int given[OPT__N];		/* how many times */
	struct cli_val v[OPT__N];
	const char **all[OPT__N];	/* repeatable options: every value, in order */
	int argc;			/* positional arguments */
	char **argv;
	FILE *report;			/* stdout, or stderr when --timeline=- has it */
	struct inputs *in;		/* what the command reads, resolved */
};

/* The table's lookups (table.c): does the command take the option?  In a shared group? */
int cli_takes(const struct cli_command *c, enum cli_opt id);
int cli_in_group(const struct cli_command *c, enum cli_opt id);
/* Its use entry (help, default) for an option it takes, or NULL. */
const struct cli_use *cli_use_of(const struct cli_command *c, enum cli_opt id);
/* The default the command gives the option (its use's, else the option's), or NULL. */
const char *cli_default_of(const struct cli_command *c, enum cli_opt id);

/* --ranks: at most this many traces (or directories) given */
#define RANKS_MAX_ARGS 4096

/*
 * Parse argv (argv[0] the command name) for command c into a: every value
 * checked by its grammar, every default the table gives applied.  Returns
 * -1 when the command should run, or the exit status to return now (--help
 * printed: 0; a usage error said: 2; a bad value said: 3).
 */
int cli_parse(const struct cli_command *c, int argc, char **argv, struct cli_args *a);
void cli_args_free(struct cli_args *a);

/*
 * The input a parsed command line names (resolve.c): its kind (--ranks, --at,
 * --job/--scenario, two traces or one), taken by the command or refused,
 * every option given checked against it (cli_use.kinds), then resolved
 * (inputs_open) into *in, which a->in points to.  -1 when the command should
 * run, or the exit status to return now, said; inputs_close either way.
 */
int cli_inputs(const struct cli_command *c, struct cli_args *a, struct inputs *in);

/* Help, man pages and completion, all from the table (help.c). */
void cli_help(FILE *f, const struct cli_command *c);
void cli_help_main(FILE *f);
void cli_man_main(FILE *f, const char *date);
void cli_man(FILE *f, const struct cli_command *c, const char *date);
void cli_completion_bash(FILE *f);

/* --- msg.c: messages, git-style: "gpumemsim: error: ..." on stderr ------- */

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A failed call's end in a command: cause (a GMS_E* error's words, freed
 * here) said as the error; returns the exit code for err.
 */
int cli_fail(int err, char *cause);
/* Silenced by --quiet. */
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int cli_quiet;
/* The command's usage and a pointer to --help on stderr; returns EXIT_USAGE. */
int cli_usage_error(const struct cli_command *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * The one of names[0..n) that word (its first len bytes) is a slip for: the
 * nearest by edit distance (a letter added, dropped, changed or two
 * swapped), if near enough for the word's length and nearer than any other;
 * else NULL.  For "did you mean".
 */
const char *cli_nearest(const char *word, size_t len, const char *const *names, size_t n);
/* An answer's warnings, said (unless --quiet). */
struct entry_warnings;
void cli_warnings(const struct entry_warnings *w);

/* --- words.c: the command line's words in the library's terms ----------- */

/*
 * The policies the command runs: every --policy (and --policies list) in
 * order, or dflt (a spec; NULL: every policy) when none is given, each with
 * the --option and --alloc-conf values that apply to it (KEY=VALUE to every
 * policy that has the key, POLICY.KEY=VALUE to one; --alloc-conf to the
 * policy that takes PYTORCH_CUDA_ALLOC_CONF).
 */
struct cli_policy {
	const struct policy_ops *ops;
	char *label;			/* "caching", "caching expandable_segments:True" */
	char *store;			/* owns the strings opts point to */
	struct policy_kv *opts;
	size_t nopts;
	char **keys;			/* owns the keys --option gave */
	size_t nkeys;
};
struct cli_policies {
	struct cli_policy *list;
	size_t n;
	int defaulted;		/* none was named: the command's default one
				   (a recording that says its mode runs that) */
};
/*
 * When none is named: the one policy of the trace's framework (its
 * recorded allocator: policy_default), or its set (policy_defaults).
 * --policies=all names every framework's.  0, or EXIT_INPUT after saying
 * what is wrong.
 */
enum cli_default { CLI_ONE_POLICY, CLI_POLICY_SET };
int cli_policies(const struct cli_args *a, enum cli_default dflt, struct cli_policies *p);
void cli_policies_free(struct cli_policies *p);
/* Each policy as an entry's request names it (the caller frees the array). */
struct entry_policy;
struct entry_policy cli_entry_policy(const struct cli_policies *p, size_t i);
struct entry_policy *cli_entry_policies(const struct cli_policies *p);

/*
 * Where a run happens: --capacity, or --gpu (its memory less
 * --context-overhead).  0, or an exit status after saying what is wrong.
 */
struct cli_target {
	uint64_t capacity;		/* 0: unlimited */
	uint64_t overhead;
	const struct gpu_model *model;	/* --gpu, or NULL */
	const char *gpu_name;
};
int cli_target(const struct cli_args *a, struct cli_target *t);
/* The same and --placement, as an entry's request takes it. */
struct entry_target;
int cli_entry_target(const struct cli_args *a, struct entry_target *t);
/* --placement as a run's placement ("driver" is the model). */
enum run_placement cli_placement(const struct cli_args *a);
/* 0, or the usage error of --placement=recorded beside --placements. */
int cli_placement_usage(const struct cli_args *a);
/* The GPU catalogue, a line a model (--gpu=list). */
void cli_gpu_list(FILE *f);
/* A K_FIT value's capacity: its size, or its GPU's memory less overhead (0: none left). */
uint64_t cli_fit_capacity(const struct cli_val *v, uint64_t overhead);
/* --at's events into at[0..max): how many. */
size_t cli_events(const struct cli_args *a, uint64_t *at, size_t max);

/* --- out.c: what a command writes --------------------------------------- */

/* An answer printed to the report stream: json when not NULL, else text (both consumed). */
struct cJSON;
void cli_print(struct cli_args *a, struct cJSON *json, char *text);
/* A JSON answer, its "schema" first and, for a built job, how it was built (consumed). */
void cli_print_json(struct cli_args *a, struct cJSON *o);

/*
 * A file a command writes as it goes (path "-": standard output), through
 * sim/outfile.h: never onto one of inputs (a command's: a->in->files), never
 * half a file.  cli_out_close puts it in place when keep is set and all was
 * written, else leaves no trace of it.  Both: 0, or an exit status after
 * saying why.
 */
struct cli_out {
	const char *path;
	FILE *f;
	struct outfile of;
	int file;			/* not standard output */
};
int cli_out_open_n(const char *path, const char *const *inputs, size_t n, struct cli_out *o);
int cli_out_close(struct cli_out *o, int keep);
/* --timeline's file: timelines as CSV, the same way.  0, or an exit status. */
struct timeline;
int cli_write_timelines(const struct cli_args *a, struct timeline *const *tls,
    const char *const *labels, size_t n);

/* --- cmd-*.c: the commands, each parse -> one library entry -> print ----- */

int cmd_run(struct cli_args *a);
int cmd_convert(struct cli_args *a);
int cmd_info(struct cli_args *a);
int cmd_tune(struct cli_args *a);
int cmd_plan(struct cli_args *a);
int cmd_check(struct cli_args *a);
int cmd_plot(struct cli_args *a);
int cmd_replay(struct cli_args *a);
int cmd_compare(struct cli_args *a);
int cmd_policies(struct cli_args *a);
int cmd_share(struct cli_args *a);
int cmd_report(struct cli_args *a);
int cmd_scale(struct cli_args *a);
int cmd_oom(struct cli_args *a);

/*
 * The progress line (progress.c): on a terminal, unless --quiet.  Messages
 * clear it first (cli_error and cli_warning do).
 */
void cli_progress_start(const char *command);
void cli_progress_clear(void);
void cli_progress_stop(void);

/* The whole command line (main.c); gendoc.c links everything but main(). */
int cli_main(int argc, char **argv);

#endif /* SIM_CLI_H */
