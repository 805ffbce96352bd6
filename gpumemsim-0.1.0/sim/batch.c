/*
 * batch.c - runs a batch of simulations, or of any tasks, on a pool of
 * threads (batch.h).  A shared counter hands out indices; each thread writes
 * only its own results.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim/batch.h"
#include "sim/gms.h"

struct pool {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n, next;
	pthread_mutex_t lock;
};

int
batch_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static void *
worker(void *arg)
{
	struct pool *p = arg;
	size_t i;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		p->fn(p->arg, i);
	}
}

static void
run_job(void *arg, size_t i)
{
	struct batch_job *j = &((struct batch_job *)arg)[i];

	j->err = run_simulate(&j->spec, &j->out, &j->cause);
}

int
batch_run(struct batch_job *jobs, size_t n, int threads)
{
	batch_map(n, run_job, jobs, threads);
	return 0;
}

void
batch_map(size_t n, void (*fn)(void *arg, size_t i), void *arg, int threads)
{
	struct pool p = { .fn = fn, .arg = arg, .n = n };
	pthread_t *tids;
	char *ok;
	int i;

	if (threads < 1)
		threads = 1;
	if ((size_t)threads > n)
		threads = (int)n;
	pthread_mutex_init(&p.lock, NULL);
	tids = gms_calloc((size_t)threads, sizeof(*tids));
	ok = gms_calloc((size_t)threads, 1);
	/* The calling thread works too; a thread that fails to start is no loss. */
	for (i = 1; i < threads; i++)
		ok[i] = pthread_create(&tids[i], NULL, worker, &p) == 0;
	worker(&p);
	for (i = 1; i < threads; i++)
		if (ok[i])
			pthread_join(tids[i], NULL);
	free(ok);
	free(tids);
	pthread_mutex_destroy(&p.lock);
}

void
batch_free(struct batch_job *jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		run_output_free(&jobs[i].out);
		free(jobs[i].cause);
		jobs[i].cause = NULL;
	}
}
