/*
 * progress.c - the counters progress.h names: events simulated and
 * expected, runs done and expected, a streaming reader's place in its file,
 * and the phase.  Relaxed atomics: a watcher needs numbers, not an order.
 */
#include "config.h"

#include <stdatomic.h>

#include "sim/progress.h"

static _Atomic uint64_t events, expected, runs, runs_expected, input_at, input_size;
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
progress_expect_left(uint64_t n)
{
	atomic_store_explicit(&expected, progress_events() + n, memory_order_relaxed);
}

uint64_t
progress_expected(void)
{
	return atomic_load_explicit(&expected, memory_order_relaxed);
}

void
progress_run(void)
{
	atomic_fetch_add_explicit(&runs, 1, memory_order_relaxed);
}

void
progress_expect_runs_left(uint64_t n)
{
	atomic_store_explicit(&runs_expected, progress_runs() + n, memory_order_relaxed);
}

uint64_t
progress_runs(void)
{
	return atomic_load_explicit(&runs, memory_order_relaxed);
}

uint64_t
progress_runs_expected(void)
{
	return atomic_load_explicit(&runs_expected, memory_order_relaxed);
}

void
progress_input(uint64_t at, uint64_t size)
{
	atomic_store_explicit(&input_size, size, memory_order_relaxed);
	atomic_store_explicit(&input_at, at, memory_order_relaxed);
}

void
progress_input_now(uint64_t *at, uint64_t *size)
{
	*size = atomic_load_explicit(&input_size, memory_order_relaxed);
	*at = atomic_load_explicit(&input_at, memory_order_relaxed);
}
