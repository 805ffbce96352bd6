/*
 * progress.h - how far the work has got, for a person watching: every
 * replay adds the events it has simulated to one counter (in steps, so the
 * counting costs nothing), which the command line shows on a terminal
 * (sim/cli/progress.c).  The library never prints.
 *
 * How much is left comes from whichever the work knows best: a search
 * (plan, tune) counts its runs against an estimate of the runs it will make;
 * a command that knows its events to come (report, once the trace is read)
 * counts events; a pass that streams a file says how far into the file it is.
 */
#ifndef SIM_PROGRESS_H
#define SIM_PROGRESS_H

#include <stdint.h>

#define PROGRESS_STEP 65536	/* events between additions */

/* Add n events simulated (any thread). */
void progress_add(uint64_t n);
/* Events simulated so far, by every replay. */
uint64_t progress_events(void);
/*
 * What the work is doing now ("reading", "simulating", "writing the page"):
 * a static string, or NULL.  The watcher shows it, so a pause between
 * counted events says why.
 */
void progress_phase(const char *phase);
const char *progress_phase_now(void);
/*
 * From now on n more events are expected: the total becomes those simulated
 * so far plus n (0 while unknown).  Said again when the work learns more,
 * so a total never stays below what was done.
 */
void progress_expect_left(uint64_t n);
uint64_t progress_expected(void);
/*
 * A search's runs: one more done (any thread), and from now on about n more
 * expected (an estimate, said again as the search narrows).
 */
void progress_run(void);
void progress_expect_runs_left(uint64_t n);
uint64_t progress_runs(void);
uint64_t progress_runs_expected(void);
/*
 * How far a reader streaming a file has got: at bytes of size (size 0:
 * unknown, a pipe).  The last reader to say it is shown.
 */
void progress_input(uint64_t at, uint64_t size);
void progress_input_now(uint64_t *at, uint64_t *size);

#endif /* SIM_PROGRESS_H */
