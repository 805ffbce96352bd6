/*
 * progress.h - how far the work has got, for a person watching: every
 * replay adds the events it has simulated to one counter (in steps, so the
 * counting costs nothing), which the command line shows on a terminal
 * (sim/cli/progress.c).  The library never prints.
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
 * Events the replays started so far are to simulate in all (added as each
 * replay of a trace held in memory starts; 0 while unknown): a percentage
 * and a time left when known.
 */
void progress_expect(uint64_t n);
uint64_t progress_expected(void);

#endif /* SIM_PROGRESS_H */
