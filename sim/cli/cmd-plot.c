/*
 * cmd-plot.c - `gpumemsim plot`: pictures of a run, drawn by gnuplot.  By
 * default a timeline of live bytes and each policy's allocated and reserved
 * bytes, with the capacity, the trace's marks and where each policy ran out
 * of memory; with --map, the segments and blocks of one policy at its peak
 * reservation (or its OOM, or --at an event): where the fragmentation is;
 * with --flame, the live memory by call stack there, as an icicle graph;
 * with --ranks, each rank's reserved and allocated bytes on one timeline.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/attrib.h"
#include "analysis/plot.h"
#include "analysis/ranks.h"
#include "analysis/timeline.h"
#include "analysis/watch.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "sim/outfile.h"
#include "sim/gpus.h"
#include "sim/policy.h"
#include "traces/tracemem.h"

#define MAX_MARKS 120		/* more vertical lines than this are noise */

struct plot_opts {
	const char *out, *title;
	int fd;				/* where the finished picture goes */
	const char *gpu_name;
	uint64_t capacity;
	const struct gpu_model *model;
	int placement;
	long points;
	int map, flame;
	const char *frames;		/* --flame: --frames, --depth */
	unsigned depth;
	uint64_t at;
	int has_at;
	int threads;
	struct trace_opts topts;	/* --device, --unknown-frees */
};

static struct run_spec
spec_for(const struct trace_mem *m, const struct cli_entry *e, const struct plot_opts *o)
{
	return (struct run_spec){ .mem = m, .policy = e->ops, .opts = e->opts, .nopts = e->nopts,
	    .capacity = o->capacity, .device = o->topts.device,
	    .unknown_frees_warn = o->topts.unknown_frees_warn,
	    .gpu_total = o->model ? o->model->total : 0, .gpu_cc = o->model ? o->model->cc : 0,
	    .placement = (enum run_placement)o->placement };
}

/* The picture's title; an incomplete trace says so in it. */
static char *
default_title(const struct trace_header *hdr, const char *what, const struct plot_opts *o)
{
	const char *mid = hdr->starts_mid_run ? " (starts mid-run: seeded from the dump)" : "";
	char size[32];

	if (o->gpu_name != NULL)
		return gms_asprintf("%s: %s on %s%s", hdr->name, what, o->gpu_name, mid);
	if (o->capacity != 0) {
		gms_fmt_size(o->capacity, size, sizeof(size));
		return gms_asprintf("%s: %s in %s%s", hdr->name, what, size, mid);
	}
	return gms_asprintf("%s: %s%s", hdr->name, what, mid);
}

/* A run failing on the trace itself is reported as such; 0 when it ran. */
static int
job_error(const struct batch_job *j)
{
	if (j->err == 0)
		return 0;
	cli_error("%s", j->cause);
	return gms_exit_code(j->err);
}

static int
draw_map(const struct trace_mem *m, const struct cli_policies *pols, const struct plot_opts *o)
{
	const struct cli_entry *e = &pols->ents[0];
	struct batch_job job = { 0 };
	struct run_watch w;
	char *title = NULL, *cause = NULL, size[32];
	uint64_t at, n = trace_mem_count(m);
	const char *why;
	int rc;

	if (o->has_at && o->at >= n) {
		cli_error("--at %llu: the trace has %llu events (0 to %llu)",
		    (unsigned long long)o->at, (unsigned long long)n,
		    (unsigned long long)(n ? n - 1 : 0));
		return EXIT_INPUT;
	}
	/* First find the moment, unless given; then stop there. */
	at = o->at;
	why = "at event";
	if (!o->has_at) {
		job.spec = spec_for(m, e, o);
		run_watch(&w, WATCH_PEAK, 0, &job.spec);
		batch_run(&job, 1, 1);
		if ((rc = job_error(&job)) != 0)
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
	job.spec = spec_for(m, e, o);
	job.spec.stop_after = at + 1;
	batch_run(&job, 1, 1);
	if ((rc = job_error(&job)) != 0)
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
	if ((rc = plot_map(o->out, o->fd, title, sim_policy(job.out.sim), sim_policy_state(job.out.sim),
	    &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(rc);
		free(cause);
		goto out;
	}
	rc = EXIT_DONE;
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
draw_flame(const struct trace_mem *m, const struct cli_policies *pols, const struct plot_opts *o)
{
	const struct cli_entry *e = &pols->ents[0];
	const struct attrib_moment *mo;
	struct batch_job job = { 0 };
	struct run_watch w;
	struct attrib at;
	char *title = NULL, *cause = NULL, *what, size[32];
	uint64_t n = trace_mem_count(m);
	FILE *f;
	int rc, fd;

	if (o->has_at && o->at >= n) {
		cli_error("--at %llu: the trace has %llu events (0 to %llu)",
		    (unsigned long long)o->at, (unsigned long long)n,
		    (unsigned long long)(n ? n - 1 : 0));
		return EXIT_INPUT;
	}
	attrib_init(&at);
	attrib_want_stacks(&at);
	if (o->has_at)
		attrib_at(&at, o->at);
	job.spec = spec_for(m, e, o);
	run_watch(&w, WATCH_PEAK, 0, &job.spec);
	batch_run(&job, 1, 1);
	if ((rc = job_error(&job)) != 0)
		goto out;
	if ((rc = attrib_run(&job.spec, &job.out.res, &w.peak, 0, &at, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		rc = gms_exit_code(rc);
		goto out;
	}
	if ((mo = attrib_chosen(&at)) == NULL || (o->has_at && strcmp(mo->key, "at") != 0)) {
		if (o->has_at)
			cli_error("--at %llu: the run ran out of memory at event %llu and did not "
			    "get past it",
			    (unsigned long long)o->at, (unsigned long long)job.out.res.oom.event);
		else
			cli_error("%s: nothing was ever live: no stacks to draw", job.out.hdr->name);
		rc = EXIT_INPUT;
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
		cli_error("cannot write '%s': %s", o->out, strerror(errno));
		if (fd >= 0)
			close(fd);
		rc = EXIT_SYSTEM;
		goto out;
	}
	attrib_flame(f, &at, mo, o->frames, o->depth, title, 0.1, 0);
	if (ferror(f) | (fclose(f) != 0)) {
		cli_error("cannot write '%s': %s", o->out, strerror(errno));
		rc = EXIT_SYSTEM;
		goto out;
	}
	rc = EXIT_DONE;
out:
	free(title);
	run_watch_free(&w);
	attrib_free(&at);
	batch_free(&job, 1);
	return rc;
}

static int
draw_timeline(const struct trace_mem *m, const struct cli_policies *pols,
    const struct plot_opts *o)
{
	size_t n = pols->n, i, nmarks = 0, nooms = 0, count = trace_mem_count(m), stride;
	struct batch_job *jobs = gms_calloc(n, sizeof(*jobs));
	struct run_watch *watch = gms_calloc(n, sizeof(*watch));
	struct timeline **tlp = gms_calloc(n, sizeof(*tlp));
	const char **labels = gms_calloc(n, sizeof(*labels));
	struct plot_point *ooms = gms_calloc(n, sizeof(*ooms)), *marks = NULL;
	char **oom_labels = gms_calloc(n, sizeof(*oom_labels));
	char *title = NULL, *cause = NULL, *what = NULL, *tmp;
	struct trace_event ev;
	size_t total_marks = 0;
	int rc = 0, err;

	for (i = 0; i < n; i++) {
		jobs[i].spec = spec_for(m, &pols->ents[i], o);
		run_watch(&watch[i], WATCH_TIMELINE, (size_t)o->points, &jobs[i].spec);
		tlp[i] = &watch[i].tl;
		labels[i] = pols->ents[i].label;
	}
	batch_run(jobs, n, o->threads);
	for (i = 0; i < n; i++) {
		if ((rc = job_error(&jobs[i])) != 0)
			goto out;
		if (jobs[i].out.res.oomed) {
			oom_labels[i] = gms_asprintf("%s: out of memory at event %llu",
			    pols->ents[i].label, (unsigned long long)jobs[i].out.res.oom.event);
			ooms[nooms++] = (struct plot_point){ .event = jobs[i].out.res.oom.event,
			    .bytes = jobs[i].out.res.oom.reserved, .label = oom_labels[i], .series = i };
		}
		tmp = gms_asprintf("%s%s%s", what ? what : "", what ? ", " : "", pols->ents[i].label);
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
	err = plot_timeline(&(struct plot_timeline_args){ .out = o->out, .fd = o->fd, .title = title,
	    .tls = tlp, .labels = labels, .n = n, .capacity = o->capacity, .marks = marks,
	    .nmarks = nmarks, .ooms = ooms, .nooms = nooms }, &cause);
	if (err < 0)
		rc = cli_fail(err, cause);
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
draw_ranks(struct cli_args *a, const struct cli_policies *pols, const struct plot_opts *o)
{
	const struct cli_entry *e = &pols->ents[0];
	struct rank_set set;
	struct trace_mem **mems = NULL;
	struct batch_job *jobs = NULL;
	struct run_watch *watch = NULL;
	struct timeline **tlp = NULL;
	struct plot_point *ooms = NULL;
	char **labels = NULL, **oom_labels = NULL, *title = NULL, *what, *cause = NULL, *xlabel;
	uint64_t longest = 0, n;
	size_t i, r, nooms = 0;
	int rc = 0, err;

	if ((err = ranks_collect(a->argv, a->argc, &set, &cause)) < 0)
		return cli_fail(err, cause);
	mems = gms_calloc(set.n, sizeof(*mems));
	jobs = gms_calloc(set.n, sizeof(*jobs));
	watch = gms_calloc(set.n, sizeof(*watch));
	tlp = gms_calloc(set.n, sizeof(*tlp));
	ooms = gms_calloc(set.n, sizeof(*ooms));
	labels = gms_calloc(set.n, sizeof(*labels));
	oom_labels = gms_calloc(set.n, sizeof(*oom_labels));
	for (r = 0; r < set.n; r++) {
		if ((err = trace_mem_load(set.f[r].path, &o->topts, &mems[r], &cause)) < 0) {
			cli_error("rank %d: %s", set.f[r].rank, cause);
			free(cause);
			rc = gms_exit_code(err);
			set.n = r;	/* what was made so far is freed */
			goto out;
		}
		longest = GMS_MAX(longest, (uint64_t)trace_mem_count(mems[r]));
		jobs[r].spec = spec_for(mems[r], e, o);
		run_watch(&watch[r], WATCH_TIMELINE, (size_t)o->points, &jobs[r].spec);
		tlp[r] = &watch[r].tl;
		labels[r] = gms_asprintf("rank %d", set.f[r].rank);
	}
	if (longest == 0) {
		cli_error("the ranks' traces have no events: no timeline to draw");
		rc = EXIT_INPUT;
		goto out;
	}
	batch_run(jobs, set.n, o->threads);
	for (r = 0; r < set.n; r++) {
		if ((rc = job_error(&jobs[r])) != 0)
			goto out;
		/* each rank's rows on the common clock: the longest rank's events */
		n = trace_mem_count(mems[r]);
		for (i = 0; i < tlp[r]->n && n > 0; i++)
			tlp[r]->rows[i].event = (uint64_t)((double)tlp[r]->rows[i].event *
			    (double)longest / (double)n);
		if (jobs[r].out.res.oomed) {
			oom_labels[r] = gms_asprintf("rank %d: out of memory at its event %llu of %llu",
			    set.f[r].rank, (unsigned long long)jobs[r].out.res.oom.event,
			    (unsigned long long)n);
			ooms[nooms++] = (struct plot_point){ .event = (uint64_t)((double)
			    jobs[r].out.res.oom.event * (double)longest / (double)n),
			    .bytes = jobs[r].out.res.oom.reserved, .label = oom_labels[r], .series = r };
		}
	}
	what = gms_asprintf("%zu rank%s, %s", set.n, set.n == 1 ? "" : "s", e->label);
	if (o->title != NULL) {
		title = gms_strdup(o->title);
	} else if (o->gpu_name != NULL) {
		title = gms_asprintf("%s on %s a rank", what, o->gpu_name);
	} else if (o->capacity != 0) {
		char size[32];

		title = gms_asprintf("%s in %s a rank", what, gms_fmt_size(o->capacity, size,
		    sizeof(size)));
	} else {
		title = gms_strdup(what);
	}
	free(what);
	xlabel = gms_asprintf("each rank's recording, on the longest's %llu events (ranks "
	    "advance together)", (unsigned long long)longest);
	err = plot_timeline(&(struct plot_timeline_args){ .out = o->out, .fd = o->fd,
	    .title = title, .tls = tlp, .labels = (const char *const *)labels, .n = set.n,
	    .capacity = o->capacity, .ooms = ooms, .nooms = nooms, .xlabel = xlabel,
	    .ranks = 1 }, &cause);
	free(xlabel);
	if (err < 0)
		rc = cli_fail(err, cause);
out:
	batch_free(jobs, set.n);
	for (r = 0; r < set.n; r++) {
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
	ranks_free(&set);
	return rc;
}

static int draw(struct cli_args *a, struct plot_opts *o);

int
cmd_plot(struct cli_args *a)
{
	struct plot_opts o = { 0 };
	char *cause = NULL;
	struct outfile of;
	int rc, err;

	o.out = a->given[OPT_OUTPUT] ? a->v[OPT_OUTPUT].s : NULL;
	o.title = a->given[OPT_TITLE] ? a->v[OPT_TITLE].s : NULL;
	o.placement = (int)cli_placement(a);
	o.points = (long)a->v[OPT_POINTS].n;
	o.map = a->given[OPT_MAP] > 0;
	o.flame = a->given[OPT_FLAME] > 0;
	o.frames = a->given[OPT_FRAMES] ? a->v[OPT_FRAMES].s : NULL;
	o.depth = a->given[OPT_DEPTH] ? (unsigned)a->v[OPT_DEPTH].n : 0;
	o.has_at = a->given[OPT_AT] > 0;
	o.at = a->v[OPT_AT].n;
	o.threads = (int)a->v[OPT_JOBS].n;
	cli_trace_opts(a, &o.topts);
	if (o.out == NULL)
		return cli_usage_error(a->cmd, "no output given (-o file.svg)");
	if (a->given[OPT_AT] > 1)
		return cli_usage_error(a->cmd, "give --at once: the map is drawn at one event");
	/* '-' is an SVG; a file's name says what to draw */
	if (plot_term(o.out, &cause) == NULL) {
		cli_error("%s", cause);
		free(cause);
		return EXIT_INPUT;
	}
	if (o.has_at && !o.map && !o.flame)
		return cli_usage_error(a->cmd, "--at goes with --map or --flame");
	if (o.map && o.flame)
		return cli_usage_error(a->cmd, "--map and --flame are two pictures: give one");
	if ((o.frames != NULL || a->given[OPT_DEPTH]) && !o.flame)
		return cli_usage_error(a->cmd, "--depth and --frames go with --flame");
	if (o.flame && strcmp(plot_term(o.out, &cause), "svg") != 0)
		return cli_usage_error(a->cmd, "--flame draws SVG: name the output .svg (or '-')");
	if (strcmp(o.out, "-") == 0) {
		o.fd = STDOUT_FILENO;
		fflush(stdout);
		return draw(a, &o);
	}
	if (a->given[OPT_RANKS] && (o.map || o.flame))
		return cli_usage_error(a->cmd, "--ranks draws the ranks' timelines: --map and "
		    "--flame draw one trace (give one rank's file)");
	/* Fail before the simulations, not after, when the picture has nowhere to go. */
	if ((err = outfile_open(o.out, (const char *const *)&a->argv[0],
	    a->given[OPT_RANKS] ? (size_t)a->argc : 1, &of, &cause)) < 0)
		return cli_fail(err, cause);
	o.fd = of.fd;
	rc = draw(a, &o);
	if (rc == EXIT_DONE && (err = outfile_commit(&of, &cause)) < 0) {
		rc = cli_fail(err, cause);
	} else if (rc != EXIT_DONE) {
		outfile_abort(&of);
	}
	return rc;
}

/* The target, the policies and the trace, then the picture at o->out. */
static int
draw(struct cli_args *a, struct plot_opts *o)
{
	struct cli_policies pols = { 0 };
	struct cli_target target;
	struct trace_mem *m = NULL;
	char *cause = NULL;
	int rc;

	if ((rc = cli_target(a, &target)) != 0)
		return rc;
	o->capacity = target.capacity;
	o->gpu_name = target.gpu_name;
	o->model = target.model;
	if ((rc = cli_policies(a, "caching", &pols)) != 0)
		goto out;
	if (a->given[OPT_RANKS]) {
		rc = draw_ranks(a, &pols, o);
		goto out;
	}
	if ((rc = trace_mem_load(a->argv[0], &o->topts, &m, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		rc = gms_exit_code(rc);
		goto out;
	}
	if (!o->map && !o->flame && trace_mem_count(m) == 0) {
		cli_error("%s: the trace has no events: no timeline to draw", a->argv[0]);
		rc = EXIT_INPUT;
		goto out;
	}
	rc = o->map ? draw_map(m, &pols, o) : o->flame ? draw_flame(m, &pols, o) :
	    draw_timeline(m, &pols, o);
out:
	trace_mem_free(m);
	cli_policies_free(&pols);
	return rc;
}
