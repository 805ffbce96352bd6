/*
 * fuzz.h - what the libFuzzer harnesses of t/fuzz share: the input written
 * to a scratch file named for the format (readers take paths and tell the
 * format by extension), and the checks every reader owes its caller.  A
 * harness aborts (a finding) when a promise is broken, not only on a crash.
 */
#ifndef T_FUZZ_H
#define T_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Write data to this process's scratch file ending in suffix; its path. */
const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix);

/*
 * Read every event of path into a caching simulation with invariant checks
 * after each event (FUZZ_CHECK_EVERY; without it none, for harnesses whose
 * subject is the reader and whose traces are long).  Aborts when an
 * error comes without a message naming the file, or when the simulation
 * breaks an invariant.  Returns the events read (0 when the trace was refused).
 */
#define FUZZ_CHECK_EVERY 1
uint64_t fuzz_read(const char *path, int flags);

/* abort() with a message when cond is false. */
void fuzz_assert(int cond, const char *what, const char *detail);

#endif /* T_FUZZ_H */
