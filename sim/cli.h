/*
 * cli.h - what sim/main.c and the sim/cmd-*.c commands share: the command
 * table entry, git-style messages, and exit codes (DESIGN.md): 0 done,
 * 1 a requested check failed, 2 usage or feature not built, 3 bad trace or
 * options, 4 I/O or system error.
 */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <stddef.h>
#include <stdint.h>

struct policy_kv;

enum cli_exit {
	EXIT_DONE = 0,
	EXIT_CHECK = 1,
	EXIT_USAGE = 2,
	EXIT_INPUT = 3,
	EXIT_SYSTEM = 4,
	EXIT_BUG = 5,		/* a policy broke its own invariant (--check) */
};

struct cli_command {
	const char *name;
	const char *summary;	/* one line for `gpumemsim --help` */
	int (*exec)(int argc, char **argv);	/* argv[0] is the command name */
};

extern const struct cli_command cli_commands[];

/* "gpumemsim: error: ..." on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The one-line usage and a pointer to --help on stderr; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The end of a getopt loop (optstring starting with ':'): ch ':' is an option
 * without its value, anything else an unknown one; a usage error naming
 * argv[optind - 1].  Returns EXIT_USAGE.
 */
int cli_bad_option(const char *cmd, const char *usage, int ch, char **argv);
/* Called when not exactly one trace is left: the usage error (EXIT_USAGE). */
int cli_one_trace(const char *cmd, const char *usage, int argc);

/*
 * Append "key=value" (from --option) to *opts; the strings point into arg.
 * Returns 0, or -1 after saying what is wrong.
 */
int cli_add_option(struct policy_kv **opts, size_t *nopts, char *arg);

/* Append key=value to *opts (the strings are not copied). */
void cli_add_kv(struct policy_kv **opts, size_t *nopts, const char *key, const char *value);

/*
 * A list of policies to run (--policies), each with its options, and the
 * --option values that apply to them (KEY=VALUE to every policy that has the
 * key, POLICY.KEY=VALUE to one).
 */
struct policy_ops;
struct cli_entry {
	const struct policy_ops *ops;
	char *label;			/* as written: "grow-only:flavor=jax" */
	char *store;			/* owns the strings opts point to */
	struct policy_kv *opts;
	size_t nopts;
};
struct cli_policies {
	const char *list;		/* --policies, or NULL for every policy */
	struct policy_kv *global;	/* --option */
	size_t nglobal;
	struct cli_entry *ents;		/* filled by cli_policies_parse() */
	size_t n;
};
/* 0, or EXIT_INPUT after saying what is wrong. */
int cli_policies_parse(struct cli_policies *p);
void cli_policies_free(struct cli_policies *p);

/* --capacity: a size above 0.  0, or EXIT_INPUT after saying what is wrong. */
int cli_capacity(const char *arg, uint64_t *out);

/* A count from 1 to max for option opt.  0, or EXIT_INPUT after saying so. */
int cli_count(const char *opt, const char *arg, long max, long *out);

/*
 * Where a run happens: --capacity, or --gpu (its memory less
 * --context-overhead).  Fill it from the options, then cli_target() checks it
 * and gives the capacity (0: unlimited) and the model's name or NULL.
 */
struct gpu_model;
struct cli_target {
	uint64_t capacity;		/* --capacity */
	const char *gpu;		/* --gpu */
	uint64_t overhead;		/* --context-overhead */
	const struct gpu_model *model;	/* set by cli_target() */
};
int cli_target(struct cli_target *t, const char **gpu_name, uint64_t *capacity);
/*
 * A getopt loop's --capacity ('c'), --gpu ('g') or --context-overhead ('X')
 * into t: 0, or EXIT_INPUT after saying what is wrong.
 */
int cli_target_opt(struct cli_target *t, int ch, const char *arg);

/*
 * Write timelines as CSV to path ("-": stdout) through sim/outfile.h (never
 * onto input, never half a file).  0, or an exit status after saying why.
 */
struct timeline;
int write_timeline(const char *path, const char *input, struct timeline *const *tls,
    const char *const *labels, size_t n);

/* arg is one of choices (NULL-terminated): *out its index; 0 or EXIT_INPUT. */
int cli_choice(const char *opt, const char *arg, const char *const *choices, int *out);

extern const char *const cli_formats[];		/* "text", "json" */
extern const char *const cli_placements[];	/* "model", "recorded" */

/* --device: a device number.  0, or EXIT_INPUT after saying what is wrong. */
int cli_device(const char *arg, int *out);

int cmd_run(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_policies(int argc, char **argv);

#endif /* SIM_CLI_H */
