/*
 * checkpoint.c - a run without a limit kept at points, in forked processes
 * (checkpoint.h).  The run's first pass is the caller's own (ckpt_first,
 * in a thread).  Then three kinds of process: the driver replays the run
 * again and forks a holder at the points that can serve; a holder waits on its
 * socket for a capacity (with the pipe to answer on, passed as SCM_RIGHTS)
 * and forks a worker per request; the worker continues the run under that
 * capacity and writes its result.  The caller's process only talks.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "sim/checkpoint.h"
#include "sim/gms.h"
#include "sim/progress.h"
#include "sim/sim.h"
#include "traces/tracemem.h"

#define SPREAD 4		/* a holder at least every SPREAD points, where
				   points can serve: a run replays at most
				   SPREAD/16 more than it must */
#define MIN_EVENTS 200000	/* below this a replay costs less than the forks */

/* Point k's first event: the points cut the run into CKPT_POINTS + 1 equal parts. */
static uint64_t
point_event(uint64_t n, int k)
{
	return n * (uint64_t)(k + 1) / (CKPT_POINTS + 1);
}

struct point {
	uint64_t event;		/* the first event a continuation replays */
	uint64_t asked;		/* what the run asked its limit check for before it */
	int sock;		/* ours; -1: no holder there */
	int held;		/* the driver reported its holder */
};

struct ckpt {
	struct ckpt *next;	/* every live one: a new driver closes their ends */
	pid_t driver;
	int info;		/* the driver's reports */
	struct point pt[CKPT_POINTS];
	int state;		/* 0 running, 1 done, -1 lost */
};

/* What the driver reports: its points, then that no more come. */
struct report {
	int end;
	int k;
	uint64_t event, asked;
};

struct reply {
	int rc;			/* 1 fits, 0 out of memory, -1 not answered */
	uint64_t simulated;	/* events replayed, for the progress count */
	struct sim_result res;
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ckpt *live;

static void
reap(int options)
{
	pid_t pid;

	do
		pid = waitpid(-1, NULL, options);
	while (pid > 0 || (pid < 0 && errno == EINTR));
}

/* The holder's side: a capacity and the descriptor to answer on. */
static int
recv_request(int sock, uint64_t *capacity)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { capacity, sizeof(*capacity) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
	    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	ssize_t n;
	int fd;

	while ((n = recvmsg(sock, &msg, 0)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return -2;	/* the caller is gone: done */
	cm = CMSG_FIRSTHDR(&msg);
	if (n != sizeof(*capacity) || cm == NULL || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

static int
send_request(int sock, uint64_t capacity, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &capacity, sizeof(capacity) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
	    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	ssize_t n;

	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	while ((n = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return n == (ssize_t)sizeof(capacity) ? 0 : -1;
}

/* A worker: the run from event from on, under capacity. */
static void
work(const struct run_spec *spec, struct run_output *out, const struct policy_args *args,
    int fd, uint64_t capacity, uint64_t from, uint64_t asked)
{
	struct reply rp = { .rc = -1 };
	uint64_t n = trace_mem_count(spec->mem);
	char *cause = NULL;

	/* the policy's word that nothing before here depended on the capacity */
	if (spec->policy->limit_inert(args, capacity, asked)) {
		sim_limit_to(out->sim, args, capacity);
		if (sim_replay_mem_range(out->sim, spec->mem, from, n, &cause) == 0 &&
		    run_finish(spec, out, &cause) == 0) {
			rp.res = out->res;
			rp.res.oom.at = rp.res.oom.mark = NULL;
			rp.rc = !rp.res.oomed;
			rp.simulated = (rp.res.oomed ? rp.res.oom.event + 1 : n) - from;
		}
	}
	(void)gms_write_full(fd, &rp, sizeof(rp));
	_exit(0);
}

/* A holder: the run as it was at event from, continued on request. */
static void
hold(const struct run_spec *spec, struct run_output *out, const struct policy_args *args,
    int sock, uint64_t from, uint64_t asked)
{
	uint64_t capacity;
	pid_t pid;
	int fd;

	while ((fd = recv_request(sock, &capacity)) != -2) {
		if (fd < 0)
			continue;
		if ((pid = fork()) == 0) {
			close(sock);
			work(spec, out, args, fd, capacity, from, asked);
		}
		close(fd);	/* a failed fork: the caller reads no answer */
		reap(WNOHANG);
	}
	reap(0);
	_exit(0);
}

static int
mode(void)
{
	const char *e = getenv("GMS_CHECKPOINTS");

	return e == NULL ? 0 : strcmp(e, "never") == 0 ? -1 : strcmp(e, "always") == 0;
}

static int
eligible(const struct run_spec *spec)
{
	return mode() >= 0 && spec->mem != NULL && spec->capacity == 0 && spec->gpu_total == 0 &&
	    spec->placement != RUN_PLACEMENT_RECORDED && spec->sampler == NULL &&
	    spec->segment_hook == NULL && spec->stop_after == 0 &&
	    spec->policy->limit_inert != NULL && spec->policy->set_capacity != NULL &&
	    (mode() > 0 || trace_mem_count(spec->mem) >= MIN_EVENTS);
}

int
ckpt_first(const struct run_spec *spec, struct ckpt_first *first)
{
	const struct trace_header *hdr = trace_mem_header(spec->mem);
	uint64_t n = trace_mem_count(spec->mem), from = 0, to;
	struct run_output out;
	struct sim_result r;
	char *cause = NULL;
	int k, rc;

	memset(first, 0, sizeof(*first));
	for (k = 0; k < CKPT_POINTS; k++)
		first->asks[k] = UINT64_MAX;
	memset(&out, 0, sizeof(out));
	out.hdr = hdr;
	rc = run_prepare(spec, hdr, &out, &cause);
	for (k = 0; k < CKPT_POINTS && rc == 0; k++) {
		to = point_event(n, k);
		rc = sim_replay_mem_range(out.sim, spec->mem, from, to, &cause);
		from = to;
		if (rc == 0 && !sim_stopped(out.sim)) {
			sim_result(out.sim, &r);
			first->asks[k] = r.peak_asked;
		}
	}
	if (rc == 0)
		rc = sim_replay_mem_range(out.sim, spec->mem, from, n, &cause);
	if (rc == 0)
		rc = run_finish(spec, &out, &cause);
	first->rc = rc < 0 ? rc : !out.res.oomed;
	first->res = out.res;
	first->res.oom.at = first->res.oom.mark = NULL;
	/* a run without a limit that takes a recording's own (a TensorFlow
	   profile's bytes_limit) is another run than the ones under a capacity */
	for (k = 0; k < CKPT_POINTS && rc == 0 && out.recorded_limit[0] == '\0'; k++)
		first->serves |= first->asks[k] < first->res.peak_asked;
	run_output_free(&out);
	free(cause);
	return first->rc;
}

/*
 * The driver.  A point serves the capacities from what its prefix asked up
 * to what the whole run asked (above that a capacity changes nothing), so
 * which points can serve is known from the run's first pass (ckpt_first),
 * and a fork costs (its page tables, then every page either side writes;
 * more on a virtual machine).  So the run goes again with a holder forked
 * only at each point that can serve, where its asks grew or the last holder
 * is SPREAD points back.
 */
static void
drive(const struct run_spec *spec, const struct ckpt_first *first, int info, int *socks)
{
	uint64_t n = trace_mem_count(spec->mem), from = 0, to, last_asked = 0;
	struct report rep;
	struct run_output out;
	struct policy_args args;
	struct sim_result r;
	char *cause = NULL, c;
	int k, j, rc, last = -1;
	pid_t pid;

	memset(&out, 0, sizeof(out));
	out.hdr = trace_mem_header(spec->mem);
	rc = run_prepare(spec, out.hdr, &out, &cause);
	args = (struct policy_args){ .opts = out.opts ? out.opts : spec->opts,
	    .nopts = out.opts ? out.nopts : spec->nopts,
	    .device_total = spec->device_total ? spec->device_total : out.hdr->device_total };
	for (k = 0; k < CKPT_POINTS && rc == 0 && first->asks[k] < first->res.peak_asked; k++) {
		to = point_event(n, k);
		rc = sim_replay_mem_range(out.sim, spec->mem, from, to, &cause);
		from = to;
		if (rc != 0 || sim_stopped(out.sim))
			break;
		sim_result(out.sim, &r);
		if (last >= 0 && r.peak_asked <= last_asked && k - last < SPREAD)
			continue;
		last = k;
		last_asked = r.peak_asked;
		if ((pid = fork()) == 0) {
			close(info);
			for (j = k + 1; j < CKPT_POINTS; j++)
				close(socks[j]);
			hold(spec, &out, &args, socks[k], to, r.peak_asked);
		}
		if (pid > 0) {
			rep = (struct report){ .k = k, .event = to, .asked = r.peak_asked };
			(void)gms_write_full(info, &rep, sizeof(rep));
		}
	}
	for (k = 0; k < CKPT_POINTS; k++)
		close(socks[k]);
	rep = (struct report){ .end = 1 };
	(void)gms_write_full(info, &rep, sizeof(rep));
	/* until the caller is done with the points */
	for (;;) {
		ssize_t got = read(info, &c, 1);

		if (got == 0 || (got < 0 && errno != EINTR))
			break;
	}
	reap(0);
	_exit(0);
}

struct ckpt *
ckpt_start(const struct run_spec *spec, const struct ckpt_first *first)
{
	int info[2], socks[CKPT_POINTS][2], mine[CKPT_POINTS], k, made = 0;
	struct ckpt *c, *o;
	pid_t pid = -1;

	if (!eligible(spec) || first->rc < 0 || !first->serves)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, info) < 0)
		return NULL;
	for (; made < CKPT_POINTS; made++)
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, socks[made]) < 0)
			break;
	c = gms_calloc(1, sizeof(*c));
	pthread_mutex_lock(&live_lock);
	if (made == CKPT_POINTS && (pid = fork()) == 0) {
		/* the others' ends would keep their holders waiting */
		for (o = live; o != NULL; o = o->next) {
			close(o->info);
			for (k = 0; k < CKPT_POINTS; k++)
				if (o->pt[k].sock >= 0)
					close(o->pt[k].sock);
		}
		close(info[0]);
		for (k = 0; k < CKPT_POINTS; k++) {
			close(socks[k][0]);
			mine[k] = socks[k][1];
		}
		drive(spec, first, info[1], mine);
	}
	for (k = 0; k < made; k++) {
		close(socks[k][1]);
		c->pt[k].sock = socks[k][0];
	}
	close(info[1]);
	c->info = info[0];
	if (made < CKPT_POINTS || pid < 0) {
		pthread_mutex_unlock(&live_lock);
		for (k = 0; k < made; k++)
			close(c->pt[k].sock);
		close(c->info);
		free(c);
		return NULL;
	}
	c->driver = pid;
	c->next = live;
	live = c;
	pthread_mutex_unlock(&live_lock);
	return c;
}

void
ckpt_wait(struct ckpt *c)
{
	struct report rep;
	int k;

	while (c != NULL && c->state == 0) {
		if (gms_read_full(c->info, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
			c->state = -1;
		else if (rep.end)
			c->state = 1;
		else if (rep.k >= 0 && rep.k < CKPT_POINTS) {
			c->pt[rep.k].event = rep.event;
			c->pt[rep.k].asked = rep.asked;
			c->pt[rep.k].held = 1;
		}
	}
	/* points the driver did not report have no holder */
	for (k = 0; c != NULL && k < CKPT_POINTS; k++)
		if (!c->pt[k].held && c->pt[k].sock >= 0) {
			close(c->pt[k].sock);
			c->pt[k].sock = -1;
		}
}

int
ckpt_fits(struct ckpt *c, uint64_t capacity, struct sim_result *res)
{
	struct reply rp;
	int k, p[2], rc;

	if (c == NULL || c->state != 1 || capacity == 0)
		return -1;
	for (k = CKPT_POINTS - 1; k >= 0; k--)
		if (c->pt[k].held && c->pt[k].sock >= 0 && c->pt[k].asked <= capacity)
			break;
	if (k < 0 || pipe2(p, O_CLOEXEC) < 0)
		return -1;
	rc = send_request(c->pt[k].sock, capacity, p[1]);
	close(p[1]);
	if (rc == 0 && gms_read_full(p[0], &rp, sizeof(rp)) != (ssize_t)sizeof(rp))
		rc = -1;
	close(p[0]);
	if (rc < 0 || rp.rc < 0)
		return -1;
	progress_add(rp.simulated);
	if (res != NULL)
		*res = rp.res;
	return rp.rc;
}

void
ckpt_end(struct ckpt *c)
{
	struct ckpt **o;
	int k;

	if (c == NULL)
		return;
	pthread_mutex_lock(&live_lock);
	for (o = &live; *o != NULL; o = &(*o)->next)
		if (*o == c) {
			*o = c->next;
			break;
		}
	pthread_mutex_unlock(&live_lock);
	for (k = 0; k < CKPT_POINTS; k++)
		if (c->pt[k].sock >= 0)
			close(c->pt[k].sock);
	close(c->info);
	while (waitpid(c->driver, NULL, 0) < 0 && errno == EINTR)
		;
	free(c);
}
