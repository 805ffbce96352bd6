/*
 * entry-plot.c - `plot`'s entry (entries.h): pictures of a run, drawn by
 * gnuplot.  By default a timeline of live bytes and each policy's allocated
 * and reserved bytes, with the capacity, the trace's marks and where each
 * policy ran out of memory; a map of one policy's segments and blocks at
 * its peak reservation (or its OOM, or an event): where the fragmentation
 * is; the live memory by call stack there, as an icicle graph; or each
 * rank's reserved and allocated bytes on one timeline.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/entries.h"
#include "analysis/plot.h"
#include "sim/gms.h"
#include "traces/tracemem.h"

#define MAX_MARKS 120		/* more vertical lines than this are noise */

static struct run_spec
spec_for(const struct trace_mem *m, const struct entry_policy *e, const struct plot_request *o,
    const struct trace_opts *topts)
{
	struct run_spec s = entry_spec(e, &o->target);

	s.mem = m;
	s.device = topts->device;
	s.unknown_frees_warn = topts->unknown_frees_warn;
	return s;
}

/* The picture's title; an incomplete trace says so in it. */
static char *
default_title(const struct trace_header *hdr, const char *what, const struct plot_request *o)
{
	const char *mid = hdr->starts_mid_run ? " (starts mid-run: seeded from the dump)" : "";
	char size[32];

	if (o->target.gpu != NULL)
		return gms_asprintf("%s: %s on %s%s", hdr->name, what, o->target.gpu->name, mid);
	if (o->target.capacity != 0) {
		gms_fmt_size(o->target.capacity, size, sizeof(size));
		return gms_asprintf("%s: %s in %s%s", hdr->name, what, size, mid);
	}
	return gms_asprintf("%s: %s%s", hdr->name, what, mid);
}

/* A run failing on the trace itself is reported as such; 0 when it ran. */
static int
job_error(const struct batch_job *j, char **cause)
{
	if (j->err == 0)
		return 0;
	return gms_fail(cause, j->err, "%s", j->cause);
}

static int
draw_map(const struct trace_mem *m, const struct trace_opts *topts, const struct plot_request *o,
    char **cause)
{
	const struct entry_policy *e = &o->pols[0];
	struct batch_job job = { 0 };
	struct run_watch w;
	char *title = NULL, size[32];
	uint64_t at, n = trace_mem_count(m);
	const char *why;
	int rc;

	if (o->has_at && o->at >= n)
		return gms_fail(cause, GMS_ECONFIG, "--at %llu: the trace has %llu events (0 to %llu)",
		    (unsigned long long)o->at, (unsigned long long)n,
		    (unsigned long long)(n ? n - 1 : 0));
	/* First find the moment, unless given; then stop there. */
	at = o->at;
	why = "at event";
	if (!o->has_at) {
		job.spec = spec_for(m, e, o, topts);
		run_watch(&w, WATCH_PEAK, 0, &job.spec);
		batch_run(&job, 1, 1);
		if ((rc = job_error(&job, cause)) != 0)
			goto out;
		if (job.out.res.oomed) {
			at = job.out.res.oom.event;
			why = "out of memory at event";
		} else {
			at = w.peak.event;
			why = "peak reserved at event";
		}
		batch_free(&job, 1);
		memset(&job, 0, sizeof(job));
	}
	job.spec = spec_for(m, e, o, topts);
	job.spec.stop_after = at + 1;
	batch_run(&job, 1, 1);
	if ((rc = job_error(&job, cause)) != 0)
		goto out;
	if (o->title != NULL) {
		title = gms_strdup(o->title);
	} else {
		char *what;

		gms_fmt_size(job.out.res.oomed ? job.out.res.oom.reserved :
		    job.out.dev->c.reserved, size, sizeof(size));
		what = gms_asprintf("%s, %s %llu (%s reserved)", e->label, why,
		    (unsigned long long)at, size);
		title = default_title(job.out.hdr, what, o);
		free(what);
	}
	rc = plot_map(o->out, o->fd, title, sim_policy(job.out.sim), sim_policy_state(job.out.sim),
	    cause);
out:
	free(title);
	batch_free(&job, 1);
	return rc;
}

/*
 * The live memory by stack of the first policy's run at its moment (--at,
 * else its OOM, else its peak reservation), drawn here: SVG needs no gnuplot.
 */
static int
draw_flame(const struct trace_mem *m, const struct trace_opts *topts,
    const struct plot_request *o, char **cause)
{
	const struct entry_policy *e = &o->pols[0];
	const struct attrib_moment *mo;
	struct batch_job job = { 0 };
	struct run_watch w;
	struct attrib at;
	char *title = NULL, *what, size[32];
	uint64_t n = trace_mem_count(m);
	FILE *f;
	int rc, fd;

	if (o->has_at && o->at >= n)
		return gms_fail(cause, GMS_ECONFIG, "--at %llu: the trace has %llu events (0 to %llu)",
		    (unsigned long long)o->at, (unsigned long long)n,
		    (unsigned long long)(n ? n - 1 : 0));
	attrib_init(&at);
	attrib_want_stacks(&at);
	if (o->has_at)
		attrib_at(&at, o->at);
	job.spec = spec_for(m, e, o, topts);
	run_watch(&w, WATCH_PEAK, 0, &job.spec);
	batch_run(&job, 1, 1);
	if ((rc = job_error(&job, cause)) != 0)
		goto out;
	if ((rc = attrib_run(&job.spec, &job.out.res, &w.peak, 0, &at, cause)) < 0)
		goto out;
	if ((mo = attrib_chosen(&at)) == NULL || (o->has_at && strcmp(mo->key, "at") != 0)) {
		if (o->has_at)
			rc = gms_fail(cause, GMS_ECONFIG, "--at %llu: the run ran out of memory at "
			    "event %llu and did not get past it",
			    (unsigned long long)o->at, (unsigned long long)job.out.res.oom.event);
		else
			rc = gms_fail(cause, GMS_ECONFIG, "%s: nothing was ever live: no stacks to "
			    "draw", job.out.hdr->name);
		goto out;
	}
	if (o->title != NULL) {
		title = gms_strdup(o->title);
	} else {
		gms_fmt_size(mo->stk.live, size, sizeof(size));
		what = gms_asprintf("live memory by stack, %s, %s %llu (%s live)", e->label,
		    strcmp(mo->key, "oom") == 0 ? "out of memory at event" :
		    strcmp(mo->key, "at") == 0 ? "at event" : "peak reserved at event",
		    (unsigned long long)mo->event, size);
		title = default_title(job.out.hdr, what, o);
		free(what);
	}
	if ((fd = dup(o->fd)) < 0 || (f = fdopen(fd, "w")) == NULL) {
		rc = gms_fail(cause, GMS_EIO, "cannot write '%s': %s", o->out, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	attrib_flame(f, &at, mo, o->frames, o->depth, title, 0.1, 0);
	if (ferror(f) | (fclose(f) != 0)) {
		rc = gms_fail(cause, GMS_EIO, "cannot write '%s': %s", o->out, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(title);
	run_watch_free(&w);
	attrib_free(&at);
	batch_free(&job, 1);
	return rc;
}

static int
draw_timeline(const struct trace_mem *m, const struct trace_opts *topts,
    const struct plot_request *o, char **cause)
{
	size_t n = o->npols, i, nmarks = 0, nooms = 0, count = trace_mem_count(m), stride;
	struct batch_job *jobs = gms_calloc(n, sizeof(*jobs));
	struct run_watch *watch = gms_calloc(n, sizeof(*watch));
	struct timeline **tlp = gms_calloc(n, sizeof(*tlp));
	const char **labels = gms_calloc(n, sizeof(*labels));
	struct plot_point *ooms = gms_calloc(n, sizeof(*ooms)), *marks = NULL;
	char **oom_labels = gms_calloc(n, sizeof(*oom_labels));
	char *title = NULL, *what = NULL, *tmp;
	struct trace_event ev;
	size_t total_marks = 0;
	int rc = 0;

	for (i = 0; i < n; i++) {
		jobs[i].spec = spec_for(m, &o->pols[i], o, topts);
		run_watch(&watch[i], WATCH_TIMELINE, (size_t)o->points, &jobs[i].spec);
		tlp[i] = &watch[i].tl;
		labels[i] = o->pols[i].label;
	}
	batch_run(jobs, n, o->threads);
	for (i = 0; i < n; i++) {
		if ((rc = job_error(&jobs[i], cause)) != 0)
			goto out;
		if (jobs[i].out.res.oomed) {
			oom_labels[i] = gms_asprintf("%s: out of memory at event %llu",
			    o->pols[i].label, (unsigned long long)jobs[i].out.res.oom.event);
			ooms[nooms++] = (struct plot_point){ .event = jobs[i].out.res.oom.event,
			    .bytes = jobs[i].out.res.oom.reserved, .label = oom_labels[i], .series = i };
		}
		tmp = gms_asprintf("%s%s%s", what ? what : "", what ? ", " : "", o->pols[i].label);
		free(what);
		what = tmp;
	}
	for (i = 0; i < count; i++) {
		trace_mem_event(m, i, &ev);
		total_marks += ev.op == TRACE_MARK;
	}
	stride = total_marks / MAX_MARKS + 1;
	marks = gms_calloc(total_marks / stride + 1, sizeof(*marks));
	for (i = 0, total_marks = 0; i < count; i++) {
		trace_mem_event(m, i, &ev);
		if (ev.op == TRACE_MARK && total_marks++ % stride == 0)
			marks[nmarks++] = (struct plot_point){ .event = i, .label = ev.label };
	}
	title = o->title ? gms_strdup(o->title) : default_title(jobs[0].out.hdr, what, o);
	rc = plot_timeline(&(struct plot_timeline_args){ .out = o->out, .fd = o->fd, .title = title,
	    .tls = tlp, .labels = labels, .n = n, .capacity = o->target.capacity, .marks = marks,
	    .nmarks = nmarks, .ooms = ooms, .nooms = nooms }, cause);
out:
	batch_free(jobs, n);
	for (i = 0; i < n; i++) {
		run_watch_free(&watch[i]);
		free(oom_labels[i]);
	}
	free(jobs);
	free(watch);
	free(tlp);
	free(labels);
	free(ooms);
	free(oom_labels);
	free(marks);
	free(title);
	free(what);
	return rc;
}

/*
 * --ranks: each rank's run of the first policy, its reserved and allocated
 * bytes over its recording.  Ranks of one job advance together, so their
 * common clock is the share of each one's recording replayed (as `run
 * --ranks` takes it for who runs out first): each rank's timeline is kept
 * at the same number of rows and drawn against the longest rank's events.
 */
static int
draw_ranks(const struct inputs *in, const struct plot_request *o, char **cause)
{
	const struct entry_policy *e = &o->pols[0];
	const struct rank_set *set = &in->ranks;
	struct trace_mem **mems = NULL;
	struct batch_job *jobs = NULL;
	struct run_watch *watch = NULL;
	struct timeline **tlp = NULL;
	struct plot_point *ooms = NULL;
	char **labels = NULL, **oom_labels = NULL, *title = NULL, *what, *xlabel, *why = NULL;
	uint64_t longest = 0, n;
	size_t i, r, nooms = 0, nmade = 0;
	int rc = 0;

	mems = gms_calloc(set->n, sizeof(*mems));
	jobs = gms_calloc(set->n, sizeof(*jobs));
	watch = gms_calloc(set->n, sizeof(*watch));
	tlp = gms_calloc(set->n, sizeof(*tlp));
	ooms = gms_calloc(set->n, sizeof(*ooms));
	labels = gms_calloc(set->n, sizeof(*labels));
	oom_labels = gms_calloc(set->n, sizeof(*oom_labels));
	for (r = 0; r < set->n; r++) {
		if ((rc = trace_mem_load(set->f[r].path, &in->topts, &mems[r], &why)) < 0) {
			rc = gms_fail(cause, rc, "rank %d: %s", set->f[r].rank, why);
			free(why);
			goto out;
		}
		nmade = r + 1;
		longest = GMS_MAX(longest, (uint64_t)trace_mem_count(mems[r]));
		jobs[r].spec = spec_for(mems[r], e, o, &in->topts);
		run_watch(&watch[r], WATCH_TIMELINE, (size_t)o->points, &jobs[r].spec);
		tlp[r] = &watch[r].tl;
		labels[r] = gms_asprintf("rank %d", set->f[r].rank);
	}
	if (longest == 0) {
		rc = gms_fail(cause, GMS_ECONFIG, "the ranks' traces have no events: no timeline to "
		    "draw");
		goto out;
	}
	batch_run(jobs, set->n, o->threads);
	for (r = 0; r < set->n; r++) {
		if ((rc = job_error(&jobs[r], cause)) != 0)
			goto out;
		/* each rank's rows on the common clock: the longest rank's events */
		n = trace_mem_count(mems[r]);
		for (i = 0; i < tlp[r]->n && n > 0; i++)
			tlp[r]->rows[i].event = (uint64_t)((double)tlp[r]->rows[i].event *
			    (double)longest / (double)n);
		if (jobs[r].out.res.oomed) {
			oom_labels[r] = gms_asprintf("rank %d: out of memory at its event %llu of %llu",
			    set->f[r].rank, (unsigned long long)jobs[r].out.res.oom.event,
			    (unsigned long long)n);
			ooms[nooms++] = (struct plot_point){ .event = (uint64_t)((double)
			    jobs[r].out.res.oom.event * (double)longest / (double)n),
			    .bytes = jobs[r].out.res.oom.reserved, .label = oom_labels[r], .series = r };
		}
	}
	what = gms_asprintf("%zu rank%s, %s", set->n, set->n == 1 ? "" : "s", e->label);
	if (o->title != NULL) {
		title = gms_strdup(o->title);
	} else if (o->target.gpu != NULL) {
		title = gms_asprintf("%s on %s a rank", what, o->target.gpu->name);
	} else if (o->target.capacity != 0) {
		char size[32];

		title = gms_asprintf("%s in %s a rank", what, gms_fmt_size(o->target.capacity, size,
		    sizeof(size)));
	} else {
		title = gms_strdup(what);
	}
	free(what);
	xlabel = gms_asprintf("each rank's recording, on the longest's %llu events (ranks "
	    "advance together)", (unsigned long long)longest);
	rc = plot_timeline(&(struct plot_timeline_args){ .out = o->out, .fd = o->fd,
	    .title = title, .tls = tlp, .labels = (const char *const *)labels, .n = set->n,
	    .capacity = o->target.capacity, .ooms = ooms, .nooms = nooms, .xlabel = xlabel,
	    .ranks = 1 }, cause);
	free(xlabel);
out:
	batch_free(jobs, nmade);
	for (r = 0; r < nmade; r++) {
		run_watch_free(&watch[r]);
		trace_mem_free(mems[r]);
		free(labels[r]);
		free(oom_labels[r]);
	}
	free(mems);
	free(jobs);
	free(watch);
	free(tlp);
	free(ooms);
	free(labels);
	free(oom_labels);
	free(title);
	return rc;
}

int
entry_plot(const struct inputs *in, const struct plot_request *rq, char **cause)
{
	struct trace_mem *m = NULL;
	int rc, owned;

	if (in->kind == INPUTS_RANKS)
		return draw_ranks(in, rq, cause);
	if ((rc = inputs_mem(in, &m, &owned, cause)) < 0)
		return rc;
	if (!rq->map && !rq->flame && trace_mem_count(m) == 0)
		rc = gms_fail(cause, GMS_ECONFIG, "%s: the trace has no events: no timeline to draw",
		    in->path);
	else
		rc = rq->map ? draw_map(m, &in->topts, rq, cause) : rq->flame ?
		    draw_flame(m, &in->topts, rq, cause) : draw_timeline(m, &in->topts, rq, cause);
	if (owned)
		trace_mem_free(m);
	return rc;
}
