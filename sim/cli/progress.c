/*
 * progress.c - a one-line progress report on standard error while a command
 * works, when standard error is a terminal and --quiet was not given: what
 * it is doing, how far it has got (a search's runs of about how many, the
 * events of how many, or the share of the trace read: sim/progress.h), the
 * events' rate over the last two seconds, the time and the time left,
 * redrawn five times a second (or every GPUMEMSIM_PROGRESS_EVERY seconds)
 * after the first second (or GPUMEMSIM_PROGRESS_DELAY seconds), and erased
 * when the command is done or has something to say: by "erase to the end
 * of the line", or on a terminal without it (TERM=dumb) by blanks.
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
static int running, stopping, on_screen;
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

static int dumb;		/* a terminal without "erase to the end" (TERM=dumb) */
static size_t drawn;		/* the width of the line on screen, for a dumb one */
static double shown;		/* the share done shown last, from a search's runs */

/* Put the line on the terminal over the one before; "" erases it. */
static void
put(const char *text)
{
	size_t len = strlen(text);

	if (!dumb) {
		fprintf(stderr, "\r\033[K%s", text);
	} else {
		/* blanks over what is left of the longer line before */
		fprintf(stderr, "\r%s%*s", text, (int)(drawn > len ? drawn - len : 0), "");
		if (drawn > len)
			fprintf(stderr, "\r%s", text);
	}
	drawn = len;
	fflush(stderr);
}

/*
 * One line: the phase; how far, from the best the work knows (a search's
 * runs against its estimate, the events of a known total, the bytes of the
 * file read); the events, their recent rate, the time so far and the time
 * left.
 */
static void
line(double start, const double *ts, const uint64_t *ns, int k, int have)
{
	const char *phase = progress_phase_now();
	uint64_t n = ns[k % RATE_SAMPLES], total = progress_expected();
	uint64_t runs = progress_runs(), runs_total = progress_runs_expected(), at, size;
	int old = have >= RATE_SAMPLES ? (k + 1) % RATE_SAMPLES : 0;
	double dt = ts[k % RATE_SAMPLES] - ts[old], rate = dt > 0 ?
	    (double)(n - ns[old]) / dt : 0, took = now() - start, left = -1;
	char buf[512];
	int len, reading = 0;

	progress_input_now(&at, &size);
	len = snprintf(buf, sizeof(buf), "gpumemsim %s%s%s: ", what, phase ? ", " : "",
	    phase ? phase : "");
#define MORE(...) (len += snprintf(buf + len, sizeof(buf) - (size_t)len, __VA_ARGS__))
	if (runs_total > 0) {
		/* an estimate: runs past it stay under 100 %, and the share never falls */
		double f = runs < runs_total ? (double)runs / (double)runs_total : 0.99;

		if (f > shown)
			shown = f;
		MORE("run %llu of about %llu (%.0f%%), %.1fM events", (unsigned long long)runs,
		    (unsigned long long)GMS_MAX(runs_total, runs + 1), 100.0 * shown,
		    (double)n / 1e6);
		if (runs > 0 && f > 0)
			left = took * (1 - f) / f;
	} else if (total > 0 && n <= total) {
		MORE("%.1fM of %.1fM events (%.0f%%)", (double)n / 1e6, (double)total / 1e6,
		    100.0 * (double)n / (double)total);
		if (n < total && rate > 0)
			left = (double)(total - n) / rate;
	} else if (size > 0 && at > 0 && at <= size) {
		MORE("%.1fM events, %.0f%% of the trace read", (double)n / 1e6,
		    100.0 * (double)at / (double)size);
		left = took * (double)(size - at) / (double)at;
		reading = 1;	/* the pass over the file: a command may do more after */
	} else {
		MORE("%.1fM events simulated", (double)n / 1e6);
	}
	MORE(", %.1fM/s, %.1f s", rate / 1e6, took);
	if (left >= 1)
		MORE(", about %.0f s left%s", left, reading ? " to read" : "");
	else if (left >= 0)
		MORE(", under a second left%s", reading ? " to read" : "");
#undef MORE
	put(buf);
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
		on_screen = 1;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

void
cli_progress_start(const char *command)
{
	const char *term = getenv("TERM");

	if (cli_quiet || !isatty(STDERR_FILENO))
		return;
	what = command;
	dumb = term == NULL || *term == '\0' || strcmp(term, "dumb") == 0;
	stopping = on_screen = 0;
	running = pthread_create(&thread, NULL, draw, NULL) == 0;
}

void
cli_progress_clear(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	if (on_screen)
		put("");
	on_screen = 0;
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
	if (on_screen)
		put("");
	on_screen = 0;
}
