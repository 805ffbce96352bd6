/*
 * resolve.c - what a command line reads, decided and resolved once, before
 * the command runs (cli_inputs): the kind its words name (--ranks, --at,
 * --job/--scenario, two traces or one), whether the command takes it, every
 * option given against it, and the input itself (analysis/inputs.h).  A
 * command never asks which kind it was given: its library entry does.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/gms.h"

/* The kinds in k, as "one trace or --ranks". */
static const char *
kinds_text(unsigned k, char *buf, size_t len)
{
	size_t at = 0;
	unsigned bit;
	int n = 0;

	buf[0] = '\0';
	for (bit = 1; bit < 1u << INPUTS_NKINDS; bit <<= 1)
		if (k & bit)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", n++ ? " or " : "",
			    inputs_kind_name((enum inputs_kind)bit));
	return buf;
}

/* The kind the words name, or 0 after saying why none (*rc the exit status). */
static enum inputs_kind
kind_of(const struct cli_command *c, const struct cli_args *a, int *rc)
{
	int ranks = a->given[OPT_RANKS] > 0, jobs = a->given[OPT_JOB] || a->given[OPT_SCENARIO];
	int scaled = (c->inputs & INPUTS_SCALED) && a->given[OPT_AT];

	if (ranks && scaled) {
		*rc = cli_usage_error(c, "give --ranks or --at, not both");
		return 0;
	}
	if (ranks)
		return INPUTS_RANKS;
	if (scaled || c->inputs == INPUTS_SCALED)
		return INPUTS_SCALED;
	if (jobs && (c->inputs & INPUTS_JOBS)) {
		if (a->argc > 0 && (c->inputs & INPUTS_TRACE)) {
			*rc = cli_usage_error(c, "give a trace or --job/--scenario, not both");
			return 0;
		}
		return INPUTS_JOBS;
	}
	if (c->inputs == INPUTS_JOBS)
		return INPUTS_JOBS;
	if (c->inputs == INPUTS_OOMLOG)
		return INPUTS_OOMLOG;
	if (a->argc == 2 && (c->inputs & INPUTS_PAIR))
		return INPUTS_PAIR;
	return INPUTS_TRACE;
}

/* The count of traces the kind wants: 0, or the exit status after saying why not. */
static int
counts(const struct cli_command *c, const struct cli_args *a, enum inputs_kind kind)
{
	if (kind == INPUTS_RANKS && a->argc >= 1 && a->argc <= RANKS_MAX_ARGS)
		return 0;
	if (kind == INPUTS_JOBS && (c->inputs & INPUTS_TRACE))
		return 0;
	/* recordings at values stand for a G_SCALED command's one trace */
	if (c->groups & G_SCALED) {
		if (!a->given[OPT_AT] && a->argc > 1)
			return cli_usage_error(c, "more than one trace given (recordings of one job "
			    "at several values: --at VALUE TRACE for each)");
		if (a->given[OPT_AT] && a->given[OPT_AT] != a->argc)
			return cli_usage_error(c, "give each trace its value: --at VALUE TRACE "
			    "(%d traces, %d --at)", a->argc, a->given[OPT_AT]);
		if (a->given[OPT_AT] == 1)
			return cli_usage_error(c, "--at: one recording cannot say how the job "
			    "scales: give two or more (--at VALUE TRACE each)");
		if (a->given[OPT_VALUE] > 1)
			return cli_usage_error(c, "--value: give one (scale draws the curve over "
			    "several)");
	}
	if (kind == INPUTS_TRACE && a->argc == 0 && (c->inputs & INPUTS_JOBS))
		return cli_usage_error(c, "no trace given (or --job/--scenario: several jobs)");
	if (a->argc < c->min_args || a->argc > c->max_args) {
		if (c->max_args == 0)
			return cli_usage_error(c, "unexpected argument '%s'", a->argv[0]);
		if (c->max_args == 1 && c->inputs == INPUTS_OOMLOG)
			return cli_usage_error(c, a->argc == 0 ? "no log given" :
			    "more than one log given");
		if (c->max_args == 1)
			return cli_usage_error(c, a->argc == 0 ? "no trace given" :
			    "more than one trace given");
		if (a->argc == 0 && c->min_args == 1)
			return cli_usage_error(c, "no trace given");
		if (a->argc < c->min_args && c->max_args == 2)
			return cli_usage_error(c, "%s needs an input and an output", c->name);
		if (a->argc < c->min_args)
			return cli_usage_error(c, "%s needs %d traces at least", c->name, c->min_args);
		return cli_usage_error(c, "too many arguments");
	}
	/* scale: every recording at its value */
	if (c->inputs == INPUTS_SCALED && a->given[OPT_AT] != a->argc)
		return cli_usage_error(c, "give each trace its value: --at VALUE TRACE "
		    "(%d traces, %d --at)", a->argc, a->given[OPT_AT]);
	return 0;
}

/* Every option given goes with the kind: 0, or the exit status after saying which not. */
static int
options(const struct cli_command *c, const struct cli_args *a, enum inputs_kind kind)
{
	const struct cli_use *u;
	char buf[128];
	int id;

	if (kind == INPUTS_PAIR && strcmp(a->argv[0], "-") == 0 && strcmp(a->argv[1], "-") == 0)
		return cli_usage_error(c, "standard input can be one of the traces, not both");
	for (id = 1; id < OPT__N; id++) {
		if (!a->given[id] || (u = cli_use_of(c, id)) == NULL || u->kinds == 0 ||
		    (u->kinds & kind))
			continue;
		return cli_usage_error(c, "--%s goes with %s, not %s%s", cli_optdefs[id].name,
		    kinds_text(u->kinds & c->inputs, buf, sizeof(buf)), inputs_kind_name(kind),
		    !(u->kinds & INPUTS_TRACE) ? "" : kind == INPUTS_RANKS ? " (give it one "
		    "rank's file without --ranks)" : kind == INPUTS_PAIR ? " (two traces are "
		    "compared under one policy, by call stack)" : "");
	}
	return 0;
}

int
cli_inputs(const struct cli_command *c, struct cli_args *a, struct inputs *in)
{
	struct inputs_req rq = { .args = a->argv, .nargs = (size_t)a->argc,
	    .command = c->name, .framework = c->by_framework };
	uint64_t *at = NULL;
	char *cause = NULL;
	int rc = -1, err, i;

	memset(in, 0, sizeof(*in));
	a->in = in;
	if (c->inputs == 0)
		return (rc = counts(c, a, INPUTS_TRACE)) != 0 ? rc : -1;
	if ((rq.kind = kind_of(c, a, &rc)) == 0)
		return rc;
	if ((rc = counts(c, a, rq.kind)) != 0 || (rc = options(c, a, rq.kind)) != 0)
		return rc;
	if (rq.kind == INPUTS_SCALED && c->needs_value && !a->given[OPT_VALUE])
		return cli_usage_error(c, "--at: say the value to %s the job at (--value N)", c->name);
	rq.topts.device = a->given[OPT_DEVICE] ? (int)a->v[OPT_DEVICE].n : -1;
	rq.topts.unknown_frees_warn = a->given[OPT_UNKNOWN_FREES] &&
	    a->v[OPT_UNKNOWN_FREES].choice == 1;
	if (rq.kind == INPUTS_SCALED) {
		at = gms_calloc((size_t)a->argc + 1, sizeof(*at));
		for (i = 0; i < a->argc; i++)
			at[i] = strtoull(a->all[OPT_AT][i], NULL, 10);
		rq.at = at;
		/* scale builds at each of its values itself */
		rq.value = a->given[OPT_VALUE] && c->inputs != INPUTS_SCALED ?
		    a->v[OPT_VALUE].n : 0;
	}
	if (rq.kind == INPUTS_JOBS) {
		if (a->given[OPT_GPU] && a->given[OPT_CAPACITY]) {
			cli_error("give --gpu or --capacity, not both");
			return EXIT_USAGE;
		}
		rq.scenario = a->given[OPT_SCENARIO] ? a->v[OPT_SCENARIO].s : NULL;
		rq.jobs = a->all[OPT_JOB];
		rq.njobs = (size_t)a->given[OPT_JOB];
		rq.gpu = a->given[OPT_GPU] ? a->v[OPT_GPU].gpu : NULL;
		rq.capacity = a->given[OPT_CAPACITY] ? a->v[OPT_CAPACITY].size : 0;
		rq.has_context = a->given[OPT_CONTEXT_OVERHEAD] > 0;
		rq.context = a->v[OPT_CONTEXT_OVERHEAD].size;
	}
	err = inputs_open(&rq, in, &cause);
	free(at);
	if (err < 0)
		return cli_fail(err, cause);
	return -1;
}
