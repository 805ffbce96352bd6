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

#endif /* SIM_PROGRESS_H */
