/*
 * progress.c - a one-line progress report on standard error while a command
 * works, when standard error is a terminal and --quiet was not given: what
 * it is doing, the events simulated so far (every replay's, sim/progress.h)
 * and of how many when the command knows, their rate over the last two
 * seconds, the time and the time left, redrawn five times a second (or every
 * GPUMEMSIM_PROGRESS_EVERY seconds) after the first second (or
 * GPUMEMSIM_PROGRESS_DELAY seconds), and erased when the command is done or
 * has something to say.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/progress.h"

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int running, stopping, shown;
static const char *what;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep until t (monotonic seconds) or until stopped: 1 when stopped. */
static int
wait_until(double t)
{
	struct timespec ts;
	double s;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + (t - now());
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (!stopping)
		if (pthread_cond_timedwait(&wake, &lock, &ts) == ETIMEDOUT)
			break;
	return stopping;
}

#define RATE_SAMPLES 10	/* the rate is over the last ten lines (2 s): a pause shows at once */

/*
 * One line: the phase, the events (of the total, with a percentage and the
 * time left, when the command knows it), the recent rate, the time so far.
 */
static void
line(double start, const double *ts, const uint64_t *ns, int k, int have)
{
	const char *phase = progress_phase_now();
	uint64_t n = ns[k % RATE_SAMPLES], total = progress_expected();
	int old = have >= RATE_SAMPLES ? (k + 1) % RATE_SAMPLES : 0;
	double dt = ts[k % RATE_SAMPLES] - ts[old], rate = dt > 0 ?
	    (double)(n - ns[old]) / dt : 0;

	fprintf(stderr, "\r\033[Kgpumemsim %s%s%s: ", what, phase ? ", " : "", phase ? phase : "");
	if (total > 0 && n <= total) {
		fprintf(stderr, "%.1fM of %.1fM events (%.0f%%)", (double)n / 1e6,
		    (double)total / 1e6, 100.0 * (double)n / (double)total);
	} else {
		fprintf(stderr, "%.1fM events simulated", (double)n / 1e6);
	}
	fprintf(stderr, ", %.1fM/s, %.1f s", rate / 1e6, now() - start);
	if (total > 0 && n < total && rate > 0)
		fprintf(stderr, ", about %.0f s left", (double)(total - n) / rate);
	fflush(stderr);
}

/* Seconds from the environment's NAME, or dflt when unset or out of range. */
static double
env_seconds(const char *name, double lo, double dflt)
{
	const char *env = getenv(name);
	double v = env != NULL ? strtod(env, NULL) : dflt;

	return v >= lo && v < 1e6 ? v : dflt;
}

static void *
draw(void *arg)
{
	double start = now(), t;
	double delay = env_seconds("GPUMEMSIM_PROGRESS_DELAY", 0, 1.0);
	double every = env_seconds("GPUMEMSIM_PROGRESS_EVERY", 0.01, 0.2);
	double ts[RATE_SAMPLES];
	uint64_t ns[RATE_SAMPLES];
	int k = 0, have = 0;

	(void)arg;
	pthread_mutex_lock(&lock);
	for (t = start + delay; !wait_until(t); t += every) {
		ts[k % RATE_SAMPLES] = now();
		ns[k % RATE_SAMPLES] = progress_events();
		have++;
		line(start, ts, ns, k, have);
		k++;
		shown = 1;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

void
cli_progress_start(const char *command)
{
	if (cli_quiet || !isatty(STDERR_FILENO))
		return;
	what = command;
	stopping = shown = 0;
	running = pthread_create(&thread, NULL, draw, NULL) == 0;
}

void
cli_progress_clear(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	if (shown)
		fputs("\r\033[K", stderr);
	shown = 0;
	pthread_mutex_unlock(&lock);
}

void
cli_progress_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	stopping = 1;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	running = 0;
	if (shown)
		fputs("\r\033[K", stderr);
	shown = 0;
}
