/*
 * share-gpu.c - share's scenarios over a real device (share-gpu.h).  The
 * parent computes the merged order (share_schedule), forks one process per
 * job before it touches the GPU, then takes its own context and the ballast
 * and lets them go.  A job's process waits for its steps, takes each (its
 * start: its context, its policy, a preallocated pool; an event: the
 * engine's sim_event over the real device) and passes the turn on.  When it
 * ends, done or out of memory, it exits without passing the turn: the
 * parent reaps it, so its memory and context are back on the card before
 * the next step is taken.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/share-gpu.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "sim/sim.h"
#include "traces/tracemem.h"


/* What a job's process reports back. */
struct jobout {
	int started, oomed, ended, failed;
	char what[16];
	int64_t event, time_us;
	uint64_t pass, size, gpu_free, peak_reserved, passes, events, limit;
	uint64_t held[REPLAY_SHARE_MAX_JOBS];
};

struct shm {
	pthread_mutex_t m;
	pthread_cond_t cv;
	int go;
	size_t turn;
	uint64_t reserved[REPLAY_SHARE_MAX_JOBS];	/* each job's, after its last step */
	struct jobout out[REPLAY_SHARE_MAX_JOBS];
	char msg[1024];
};

struct run {
	const struct share_scenario *sc;
	const struct replay_share_gpu *gpu;
	struct share_step *steps;
	size_t nsteps;
	size_t last[REPLAY_SHARE_MAX_JOBS];	/* each job's last step */
	struct shm *shm;
};

/* Past the steps of jobs that have ended; to the end when only jobs repeating until the others end are left (lock held). */
static void
skip(struct run *r)
{
	struct shm *m = r->shm;
	size_t t;

	while (m->turn < r->nsteps && m->out[r->steps[m->turn].job].ended)
		m->turn++;
	for (t = m->turn; t < r->nsteps; t++)
		if (r->sc->jobs[r->steps[t].job].repeat != 0 && !m->out[r->steps[t].job].ended)
			return;
	m->turn = r->nsteps;
}

static void
pass_turn(struct run *r)
{
	pthread_mutex_lock(&r->shm->m);
	r->shm->turn++;
	skip(r);
	pthread_cond_broadcast(&r->shm->cv);
	pthread_mutex_unlock(&r->shm->m);
}

/* after=hold: the job's work is done; it keeps its memory until the run is over. */
static void
hold_to_end(struct run *r)
{
	struct shm *m = r->shm;

	pass_turn(r);
	pthread_mutex_lock(&m->m);
	while (m->turn < r->nsteps)
		pthread_cond_wait(&m->cv, &m->m);
	pthread_mutex_unlock(&m->m);
}

/* The step this job is to take next, or NULL when the run is over for it. */
static const struct share_step *
wait_turn(struct run *r, size_t k)
{
	struct shm *m = r->shm;
	const struct share_step *st = NULL;

	pthread_mutex_lock(&m->m);
	while (!m->go || (m->turn < r->nsteps && r->steps[m->turn].job != k))
		pthread_cond_wait(&m->cv, &m->m);
	if (m->turn < r->nsteps)
		st = &r->steps[m->turn];
	pthread_mutex_unlock(&m->m);
	return st;
}

static void
oom(struct run *r, size_t k, int64_t event, const struct share_step *st, uint64_t size,
    const char *what, uint64_t gpu_free, uint64_t own)
{
	struct jobout *o = &r->shm->out[k];
	size_t i;

	o->oomed = 1;
	snprintf(o->what, sizeof(o->what), "%s", what);
	o->event = event;
	o->pass = st->pass;
	o->time_us = st->time_us;
	o->size = size;
	o->gpu_free = gpu_free;
	for (i = 0; i < r->sc->njobs; i++)
		o->held[i] = i == k ? own : r->shm->out[i].ended ? 0 : r->shm->reserved[i];
}

/* Job k's process: its steps, then exit (0, or 1 when it could not go on). */
static int
job(struct run *r, size_t k)
{
	const struct share_job *j = &r->sc->jobs[k];
	struct jobout *o = &r->shm->out[k];
	const struct share_step *st;
	struct replay_gpu g = { 0 };
	struct share_settings set = { 0 };
	struct trace_event ev;
	struct sim *sim = NULL;
	struct sim_result sr;
	uint64_t used, free_bytes;
	char *cause = NULL;
	int rc = 0;

	while ((st = wait_turn(r, k)) != NULL) {
		if (st->start) {
			if (r->gpu->open(r->gpu->arg, &g, &cause) < 0) {
				/* no room for its context, as far as the driver says */
				oom(r, k, -1, st, r->sc->context, "context", 0, 0);
				break;
			}
			free_bytes = g.used(g.ctx, &used) == 0 ? g.total - used : 0;
			share_settings(r->sc, j, free_bytes, &set);
			o->limit = set.limit;
			if (!share_pool_fits(j, &set, free_bytes)) {
				oom(r, k, -1, st, set.limit, "pool", free_bytes, 0);
				break;
			}
			struct policy_args args = { .opts = set.opts, .nopts = set.nopts,
			    .device_total = r->sc->total };
			if ((sim = sim_create(j->ops, &args, g.dev, 0, &cause)) == NULL) {
				snprintf(r->shm->msg, sizeof(r->shm->msg), "job %s: %s", j->name, cause);
				o->failed = 1;
				rc = 1;
				break;
			}
			o->started = 1;
			if (share_preallocate(j, sim) < 0) {
				oom(r, k, -1, st, set.limit, "pool", free_bytes, g.dev->c.reserved);
				break;
			}
		} else {
			if (st->pass > 0 && st->event == 0)
				sim_free_live(sim, trace_mem_count(j->mem) - 1);
			trace_mem_event(j->mem, st->event, &ev);
			if (sim_event(sim, st->event, &ev, &cause) < 0) {
				snprintf(r->shm->msg, sizeof(r->shm->msg), "job %s: %s: event %llu: %s",
				    j->name, j->path, (unsigned long long)st->event, cause);
				o->failed = 1;
				rc = 1;
				break;
			}
			o->events++;
			if (st->event + 1 == trace_mem_count(j->mem))
				o->passes = st->pass + 1;
			if (sim_stopped(sim)) {
				sim_result(sim, &sr);
				oom(r, k, (int64_t)st->event, st, sr.oom.size, "alloc",
				    g.used(g.ctx, &used) == 0 ? g.total - used : 0, g.dev->c.reserved);
				break;
			}
		}
		r->shm->reserved[k] = g.dev->c.reserved;
		o->peak_reserved = GMS_MAX(o->peak_reserved, g.dev->c.peak_reserved);
		/*
		 * the last step of the job: end here, so its memory is back before
		 * the next; or, after=hold, stay, holding it, until the run is over
		 */
		if ((size_t)(st - r->steps) == r->last[k]) {
			if (j->hold)
				hold_to_end(r);
			break;
		}
		pass_turn(r);
	}
	if (sim != NULL) {
		o->peak_reserved = GMS_MAX(o->peak_reserved, g.dev->c.peak_reserved);
		sim_destroy(sim);
	}
	if (g.close != NULL)
		g.close(g.ctx);
	share_settings_free(&set);
	free(cause);
	return rc;
}

/* The parent: the ballast, the go, and every job reaped in turn. */
int
replay_share(const struct share_scenario *sc, const struct replay_share_gpu *gpu,
    struct share_result *res, char **cause)
{
	struct run r = { .sc = sc, .gpu = gpu };
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pid_t pids[REPLAY_SHARE_MAX_JOBS], pid;
	size_t k, t, alive = 0;
	int err = 0, status;

	memset(res, 0, sizeof(*res));
	if (sc->njobs > REPLAY_SHARE_MAX_JOBS)
		return gms_fail(cause, GMS_ECONFIG, "a replay takes up to %d jobs",
		    REPLAY_SHARE_MAX_JOBS);
	if ((err = share_schedule(sc, &r.steps, &r.nsteps, cause)) < 0)
		return err;
	for (t = 0; t < r.nsteps; t++)
		r.last[r.steps[t].job] = t;
	r.shm = mmap(NULL, sizeof(*r.shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	    -1, 0);
	if (r.shm == MAP_FAILED) {
		free(r.steps);
		return gms_fail(cause, GMS_EIO, "cannot share memory with the jobs");
	}
	memset(r.shm, 0, sizeof(*r.shm));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&r.shm->m, &ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&r.shm->cv, &ca);
	/* the jobs first: none may inherit a CUDA context */
	fflush(NULL);
	for (k = 0; k < sc->njobs; k++) {
		if ((pids[k] = fork()) == 0)
			_exit(job(&r, k));
		if (pids[k] < 0) {
			err = gms_fail(cause, GMS_EIO, "cannot start a process for job %s",
			    sc->jobs[k].name);
			break;
		}
		alive++;
	}
	if (err == 0 && gpu->ballast != NULL && (err = gpu->ballast(gpu->arg, sc->total, cause)) < 0)
		snprintf(r.shm->msg, sizeof(r.shm->msg), "%s", *cause);
	pthread_mutex_lock(&r.shm->m);
	if (err < 0) {
		/* nothing to run: let them all see the end */
		r.shm->turn = r.nsteps;
	}
	r.shm->go = 1;
	skip(&r);
	pthread_cond_broadcast(&r.shm->cv);
	pthread_mutex_unlock(&r.shm->m);
	while (alive > 0 && (pid = wait(&status)) > 0) {
		for (k = 0; k < sc->njobs && pids[k] != pid; k++)
			;
		if (k == sc->njobs)
			continue;
		alive--;
		pthread_mutex_lock(&r.shm->m);
		r.shm->out[k].ended = 1;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			r.shm->out[k].failed = 1;
		if (r.shm->turn < r.nsteps && r.steps[r.shm->turn].job == k)
			r.shm->turn++;
		skip(&r);
		pthread_cond_broadcast(&r.shm->cv);
		pthread_mutex_unlock(&r.shm->m);
	}
	if (gpu->unballast != NULL)
		gpu->unballast(gpu->arg);
	if (err == 0)
		for (k = 0; k < sc->njobs; k++)
			if (r.shm->out[k].failed) {
				err = gms_fail(cause, GMS_EIO, "%s", r.shm->msg[0] ? r.shm->msg :
				    "a job's process failed");
				break;
			}
	/* what happened, in share_run's terms, the out-of-memory events by time */
	res->fits = 1;
	res->jobs = gms_calloc(sc->njobs, sizeof(*res->jobs));
	for (k = 0; k < sc->njobs; k++) {
		const struct jobout *o = &r.shm->out[k];

		res->jobs[k] = (struct share_job_result){ .started = o->started,
		    .peak_reserved = o->peak_reserved, .limit = o->limit, .passes = o->passes,
		    .events = o->events };
	}
	for (t = 0; t < r.nsteps; t++) {
		const struct jobout *o = &r.shm->out[r.steps[t].job];
		struct share_oom *e;

		k = r.steps[t].job;
		if (!o->oomed || res->jobs[k].oomed || o->pass != r.steps[t].pass ||
		    (o->event >= 0 ? r.steps[t].start || (int64_t)r.steps[t].event != o->event :
		    !r.steps[t].start))
			continue;
		res->ooms = gms_realloc(res->ooms, (res->nooms + 1) * sizeof(*res->ooms));
		e = &res->ooms[res->nooms];
		*e = (struct share_oom){ .job = k, .event = o->event, .pass = o->pass,
		    .time_us = o->time_us, .size = o->size, .what = o->what[0] == 'c' ? "context" :
		    o->what[0] == 'p' ? "pool" : "alloc", .gpu_free = o->gpu_free };
		e->held = gms_calloc(sc->njobs, sizeof(*e->held));
		memcpy(e->held, o->held, sc->njobs * sizeof(*e->held));
		res->jobs[k].oomed = 1;
		res->jobs[k].oom = res->nooms++;
		res->fits = 0;
	}
	pthread_mutex_destroy(&r.shm->m);
	pthread_cond_destroy(&r.shm->cv);
	munmap(r.shm, sizeof(*r.shm));
	free(r.steps);
	return err;
}
