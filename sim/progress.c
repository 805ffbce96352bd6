/*
 * progress.c - the one counter of events simulated, the events expected and
 * the phase (progress.h).  Relaxed atomics: a watcher needs a number, not an
 * order.
 */
#include "config.h"

#include <stdatomic.h>

#include "sim/progress.h"

static _Atomic uint64_t events, expected;
static _Atomic(const char *) phase;

void
progress_add(uint64_t n)
{
	atomic_fetch_add_explicit(&events, n, memory_order_relaxed);
}

uint64_t
progress_events(void)
{
	return atomic_load_explicit(&events, memory_order_relaxed);
}

void
progress_phase(const char *p)
{
	atomic_store_explicit(&phase, p, memory_order_relaxed);
}

const char *
progress_phase_now(void)
{
	return atomic_load_explicit(&phase, memory_order_relaxed);
}

void
progress_expect(uint64_t n)
{
	atomic_fetch_add_explicit(&expected, n, memory_order_relaxed);
}

uint64_t
progress_expected(void)
{
	return atomic_load_explicit(&expected, memory_order_relaxed);
}
