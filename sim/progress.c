/*
 * progress.c - the one counter of events simulated (progress.h).  Relaxed
 * atomics: a watcher needs a number, not an order.
 */
#include "config.h"

#include <stdatomic.h>

#include "sim/progress.h"

static _Atomic uint64_t events;

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
