/*
 * progress.c - a one-line progress report on standard error while a command
 * works, when standard error is a terminal and --quiet was not given: the
 * events simulated so far (every replay's, sim/progress.h), their rate and
 * the time, redrawn five times a second after the first second (or
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

static void *
draw(void *arg)
{
	const char *env = getenv("GPUMEMSIM_PROGRESS_DELAY");
	double start = now(), t, delay = env != NULL ? strtod(env, NULL) : 1.0;
	uint64_t n;

	(void)arg;
	if (!(delay >= 0 && delay < 1e6))
		delay = 1.0;
	pthread_mutex_lock(&lock);
	for (t = start + delay; !wait_until(t); t += 0.2) {
		n = progress_events();
		fprintf(stderr, "\r\033[Kgpumemsim %s: %.1fM events simulated, %.1fM/s, %.1f s",
		    what, (double)n / 1e6, (double)n / 1e6 / (now() - start), now() - start);
		fflush(stderr);
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
