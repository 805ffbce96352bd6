/*
 * sim-only.c - the simulation alone: a trace read once into memory
 * (traces/tracemem.h), then replayed REPEAT times through a policy; prints
 * the nanoseconds per event of the replays, without parsing.  For
 * bench/run.sh; not installed.
 *
 *   sim-only TRACE [POLICY [REPEAT]]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/run.h"
#include "traces/tracemem.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct trace_opts topts = { .device = -1 };
	const struct policy_ops *ops;
	struct trace_mem *m = NULL;
	struct run_output out;
	struct run_spec spec;
	char *cause = NULL;
	int i, repeat = argc > 3 ? atoi(argv[3]) : 3;
	double t, best = 1e30;

	if (argc < 2) {
		fprintf(stderr, "usage: sim-only TRACE [POLICY [REPEAT]]\n");
		return 2;
	}
	if ((ops = policy_find(argc > 2 ? argv[2] : "caching", &cause)) == NULL ||
	    trace_mem_load(argv[1], &topts, &m, &cause) < 0) {
		fprintf(stderr, "sim-only: %s\n", cause);
		return 1;
	}
	for (i = 0; i < repeat; i++) {
		spec = (struct run_spec){ .mem = m, .policy = ops, .device = -1 };
		t = now();
		if (run_simulate(&spec, &out, &cause) < 0) {
			fprintf(stderr, "sim-only: %s\n", cause);
			return 1;
		}
		t = now() - t;
		best = t < best ? t : best;
		run_output_free(&out);
	}
	printf("%s %zu events: %.1f ns/event (best of %d)\n", ops->name, trace_mem_count(m),
	    best * 1e9 / (double)trace_mem_count(m), repeat);
	trace_mem_free(m);
	return 0;
}
