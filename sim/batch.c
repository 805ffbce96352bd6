/*
 * batch.c - runs a batch of simulations, or of any tasks, on a pool of
 * threads (batch.h).  A shared counter hands out indices; each thread writes
 * only its own results.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/batch.h"
#include "sim/gms.h"
#include "sim/progress.h"
#include "sim/sim.h"
#include "traces/trace.h"

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

void
batch_run_one(struct batch_job *job)
{
	job->err = run_simulate(&job->spec, &job->out, &job->cause);
	if (job->settle)
		run_output_settle(&job->out);
}

static void
run_job(void *arg, size_t i)
{
	batch_run_one(&((struct batch_job *)arg)[i]);
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

/*
 * Several policies over one trace read once: the calling thread reads
 * events into one chunk while the workers replay the other through every
 * job's simulation, each worker its own jobs, and a barrier swaps them.
 * Memory stays two chunks, whatever the trace's length.
 */
#define CHUNK 16384

struct chunk {
	struct trace_event ev[CHUNK];
	uint64_t index[CHUNK];
	size_t at_off[CHUNK], label_off[CHUNK];	/* into strs; SIZE_MAX: none */
	size_t stack_off[CHUNK];	/* ... of the stack's innermost frame only: all the
					   engine reads (trace_oom_caught), and a whole
					   chunk of stacks could be megabytes */
	size_t n;
	char *strs;
	size_t slen, scap;
	int end;		/* the last chunk: the trace ended, or failed */
	int err;		/* the reader's failure, or 0 */
	char *cause;
};

struct shared {
	struct batch_job *jobs;
	size_t n;
	int workers;		/* the threads that started: known once go is set */
	pthread_mutex_t gate;
	pthread_cond_t wake;
	int go;
	struct chunk ch[2];
	pthread_barrier_t bar;
	uint64_t *failed_at;	/* per job: the event a simulation refused, + 1 */
};

static size_t
keep_strn(struct chunk *c, const char *s, size_t len)
{
	size_t at;

	if (c->slen + len > c->scap) {
		while (c->slen + len > c->scap)
			c->scap = c->scap ? 2 * c->scap : 65536;
		c->strs = gms_realloc(c->strs, c->scap);
	}
	at = c->slen;
	memcpy(c->strs + at, s, len - 1);
	c->strs[at + len - 1] = '\0';
	c->slen += len;
	return at;
}

static size_t
keep_str(struct chunk *c, const char *s)
{
	return keep_strn(c, s, strlen(s) + 1);
}

static void
fill(struct trace_reader *r, struct chunk *c)
{
	char *why = NULL;
	size_t i;
	int rc = 1;

	c->n = c->slen = 0;
	while (c->n < CHUNK && (rc = trace_next(r, &c->ev[c->n], &why)) == 1) {
		c->index[c->n] = trace_index(r);
		c->at_off[c->n] = c->ev[c->n].at ? keep_str(c, c->ev[c->n].at) : SIZE_MAX;
		c->label_off[c->n] = c->ev[c->n].label ? keep_str(c, c->ev[c->n].label) : SIZE_MAX;
		/* the innermost frame with its newline, as trace.h's form ends each */
		c->stack_off[c->n] = c->ev[c->n].stack ? keep_strn(c, c->ev[c->n].stack,
		    strcspn(c->ev[c->n].stack, "\n") + 2) : SIZE_MAX;
		c->n++;
	}
	/* the strings are in place now: point at them */
	for (i = 0; i < c->n; i++) {
		c->ev[i].at = c->at_off[i] == SIZE_MAX ? NULL : c->strs + c->at_off[i];
		c->ev[i].label = c->label_off[i] == SIZE_MAX ? NULL : c->strs + c->label_off[i];
		c->ev[i].stack = c->stack_off[i] == SIZE_MAX ? NULL : c->strs + c->stack_off[i];
	}
	if (rc < 0) {
		c->err = rc;
		gms_fail(&c->cause, rc, "%s: %s", trace_where(r), why);
		free(why);
	}
	c->end = rc != 1;
}

/* A worker: which one it is, of what. */
struct worker_arg {
	struct shared *sh;
	size_t w;
};

static void *
replay_chunks(void *arg)
{
	struct shared *sh = ((struct worker_arg *)arg)->sh;
	size_t w = ((struct worker_arg *)arg)->w, i, j;
	char *why = NULL;
	int cur = 0;

	/* how many workers share the jobs is known only once all have started */
	pthread_mutex_lock(&sh->gate);
	while (!sh->go)
		pthread_cond_wait(&sh->wake, &sh->gate);
	pthread_mutex_unlock(&sh->gate);
	for (;;) {
		pthread_barrier_wait(&sh->bar);
		for (j = w; j < sh->n; j += (size_t)sh->workers) {
			struct batch_job *job = &sh->jobs[j];

			if (job->err != 0 || sh->failed_at[j] != 0)
				continue;
			for (i = 0; i < sh->ch[cur].n; i++)
				if (sim_event(job->out.sim, sh->ch[cur].index[i], &sh->ch[cur].ev[i],
				    &why) < 0) {
					/* said again, located, by a run of its own */
					sh->failed_at[j] = sh->ch[cur].index[i] + 1;
					free(why);
					why = NULL;
					break;
				}
			progress_add(sh->ch[cur].n);
		}
		pthread_barrier_wait(&sh->bar);
		if (sh->ch[cur].end)
			return NULL;
		cur = 1 - cur;
	}
}

int
batch_run_shared(struct batch_job *jobs, size_t n, int threads)
{
	struct trace_opts topts = { .device = jobs[0].spec.device };
	struct trace_reader *r = NULL;
	struct shared sh = { .jobs = jobs, .n = n };
	pthread_t *tids;
	struct worker_arg *args;
	size_t i;
	int w, want, cur = 0, ready = 0;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		memset(&jobs[i].out, 0, sizeof(jobs[i].out));
	if ((jobs[0].err = trace_open_opts(jobs[0].spec.path, &topts, &r, &jobs[0].cause)) < 0) {
		for (i = 1; i < n; i++) {
			jobs[i].err = jobs[0].err;
			jobs[i].cause = gms_strdup(jobs[0].cause);
		}
		return 0;
	}
	jobs[0].out.reader = r;	/* the first job owns it; every job reports its header */
	for (i = 0; i < n; i++) {
		jobs[i].err = run_prepare(&jobs[i].spec, trace_header(r), &jobs[i].out,
		    &jobs[i].cause);
		ready += jobs[i].err == 0;
	}
	if (ready == 0)
		return 0;
	want = threads < 1 ? 1 : threads > (int)n ? (int)n : threads;
	sh.failed_at = gms_calloc(n, sizeof(*sh.failed_at));
	pthread_mutex_init(&sh.gate, NULL);
	pthread_cond_init(&sh.wake, NULL);
	tids = gms_calloc((size_t)want, sizeof(*tids));
	args = gms_calloc((size_t)want, sizeof(*args));
	/* a thread that fails to start is one worker less, as in batch_map */
	for (w = 0; w < want; w++) {
		args[sh.workers] = (struct worker_arg){ .sh = &sh, .w = (size_t)sh.workers };
		if (pthread_create(&tids[sh.workers], NULL, replay_chunks, &args[sh.workers]) == 0)
			sh.workers++;
	}
	if (sh.workers == 0) {
		/* no thread at all: each job reads the trace itself, here */
		free(tids);
		free(args);
		free(sh.failed_at);
		pthread_cond_destroy(&sh.wake);
		pthread_mutex_destroy(&sh.gate);
		for (i = 0; i < n; i++) {
			run_output_free(&jobs[i].out);
			free(jobs[i].cause);
			jobs[i].cause = NULL;
		}
		batch_map(n, run_job, jobs, 1);
		return 0;
	}
	pthread_barrier_init(&sh.bar, NULL, (unsigned)sh.workers + 1);
	pthread_mutex_lock(&sh.gate);
	sh.go = 1;
	pthread_cond_broadcast(&sh.wake);
	pthread_mutex_unlock(&sh.gate);
	fill(r, &sh.ch[0]);
	for (;;) {
		pthread_barrier_wait(&sh.bar);		/* the workers take ch[cur] */
		if (!sh.ch[cur].end)
			fill(r, &sh.ch[1 - cur]);
		pthread_barrier_wait(&sh.bar);		/* ... and are done with it */
		if (sh.ch[cur].end)
			break;
		cur = 1 - cur;
	}
	for (w = 0; w < sh.workers; w++)
		pthread_join(tids[w], NULL);
	for (i = 0; i < n; i++) {
		if (jobs[i].err != 0)
			continue;
		if (sh.failed_at[i] != 0) {
			/* a simulation refused an event: its own run says where, exactly */
			run_output_free(&jobs[i].out);
			batch_run_one(&jobs[i]);
		} else if (sh.ch[cur].err != 0) {
			jobs[i].err = sh.ch[cur].err;
			jobs[i].cause = gms_strdup(sh.ch[cur].cause);
		} else {
			jobs[i].err = run_finish(&jobs[i].spec, &jobs[i].out, &jobs[i].cause);
		}
	}
	pthread_barrier_destroy(&sh.bar);
	pthread_cond_destroy(&sh.wake);
	pthread_mutex_destroy(&sh.gate);
	for (i = 0; i < 2; i++) {
		free(sh.ch[i].strs);
		free(sh.ch[i].cause);
	}
	free(sh.failed_at);
	free(tids);
	free(args);
	return 0;
}
