/*
 * ranks.c - the ranks of one distributed job (ranks.h): the files and their
 * ranks, each rank's run on a GPU of its own, and the job's answer.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "analysis/ranks.h"
#include "analysis/report.h"
#include "sim/gms.h"
#include "sim/outfile.h"
#include "sim/policy.h"
#include "traces/trace.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

/*
 * The rank a file's name says, or -1: *strong when "rank" says it (rank3,
 * rank_3, rank-3), else weak (snap_3.pickle).
 */
static int
rank_of_name(const char *path, int *strong)
{
	const char *base = strrchr(path, '/'), *p, *q, *dot;
	long r = -1;

	base = base ? base + 1 : path;
	*strong = 1;
	for (p = base; (p = strcasestr(p, "rank")) != NULL; p += 4) {
		q = p + 4;
		if (*q == '_' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q))
			r = strtol(q, NULL, 10);
	}
	if (r >= 0)
		return r > 1 << 20 ? -1 : (int)r;
	*strong = 0;
	/* digits after a separator just before the first extension */
	if ((dot = strchr(base, '.')) == NULL)
		dot = base + strlen(base);
	for (q = dot; q > base && isdigit((unsigned char)q[-1]); q--)
		;
	if (q == dot || q == base || (q[-1] != '_' && q[-1] != '-') || dot - q > 7)
		return -1;
	return (int)strtol(q, NULL, 10);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_rank(const void *a, const void *b)
{
	const struct rank_file *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void
add(struct rank_set *set, size_t *cap, char *path)
{
	char *shown = gms_strdup(path), *c;

	if (set->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		set->f = gms_realloc(set->f, *cap * sizeof(*set->f));
	}
	for (c = shown; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	set->f[set->n++] = (struct rank_file){ .rank = -1, .path = path, .shown = shown };
}

/* dir's trace files, sorted by name, added to set. */
static int
add_dir(struct rank_set *set, size_t *cap, const char *dir, char **cause)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, room = 0, i;

	if (d == NULL)
		return gms_fail(cause, GMS_EIO, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (!outfile_trace_like(e->d_name))
			continue;
		if (n == room) {
			room = room ? 2 * room : 16;
			names = gms_realloc(names, room * sizeof(*names));
		}
		names[n++] = gms_asprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
		    e->d_name);
	}
	closedir(d);
	if (n == 0) {
		free(names);
		return gms_fail(cause, GMS_ECONFIG, "%s: no traces in this directory (snapshots "
		    ".pickle, traces .json or .jsonl, RMM logs .csv, profiles .pb)", dir);
	}
	qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++)
		add(set, cap, names[i]);
	free(names);
	return 0;
}

struct file_id {
	dev_t dev;
	ino_t ino;
	size_t i;
};

static int
cmp_file_id(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* GMS_ECONFIG when two of set's regular files are one file, else 0. */
static int
same_file_twice(const struct rank_set *set, char **cause)
{
	struct file_id *id = gms_calloc(set->n + 1, sizeof(*id));
	struct stat st;
	size_t i, n = 0;
	int err = 0;

	for (i = 0; i < set->n; i++)
		if (stat(set->f[i].path, &st) == 0 && S_ISREG(st.st_mode))
			id[n++] = (struct file_id){ st.st_dev, st.st_ino, i };
	qsort(id, n, sizeof(*id), cmp_file_id);
	for (i = 1; i < n && err == 0; i++)
		if (id[i].dev == id[i - 1].dev && id[i].ino == id[i - 1].ino)
			err = gms_fail(cause, GMS_ECONFIG, "%s and %s are one file: each rank is a "
			    "recording of its own", set->f[id[i - 1].i].shown, set->f[id[i].i].shown);
	free(id);
	return err;
}

int
ranks_collect(char *const *args, int n, struct rank_set *set, char **cause)
{
	struct stat st;
	size_t cap = 0, i;
	int k, err, one, strong, weak, contents;

	memset(set, 0, sizeof(*set));
	for (k = 0; k < n; k++) {
		if (strcmp(args[k], "-") == 0) {
			ranks_free(set);
			return gms_fail(cause, GMS_ECONFIG, "-: the ranks are files (standard "
			    "input cannot be one, it is read once)");
		}
		if (stat(args[k], &st) == 0 && S_ISDIR(st.st_mode)) {
			if ((err = add_dir(set, &cap, args[k], cause)) < 0) {
				ranks_free(set);
				return err;
			}
		} else {
			add(set, &cap, gms_strdup(args[k]));
		}
	}
	/* one file twice (under any name) is one rank's recording, not two: each
	   file stat'ed once, then sorted by device and inode */
	if ((err = same_file_twice(set, cause)) < 0) {
		ranks_free(set);
		return err;
	}
	/* by name where "rank" says it, else by contents, else by name, else by order */
	for (i = 0, strong = weak = 1; i < set->n; i++) {
		set->f[i].rank = rank_of_name(set->f[i].path, &one);
		strong &= set->f[i].rank >= 0 && one;
		weak &= set->f[i].rank >= 0;
	}
	set->from = strong ? "names" : NULL;
	/* a pipe is read once, by its run: its contents cannot say its rank */
	for (i = 0; i < set->n && !strong; i++)
		set->f[i].rank = stat(set->f[i].path, &st) == 0 && S_ISREG(st.st_mode) ?
		    trace_peek_rank(set->f[i].path) : -1;
	for (i = 0, contents = !strong; i < set->n && contents; i++)
		contents = set->f[i].rank >= 0;
	if (contents)
		set->from = "contents";
	for (i = 0; i < set->n && !strong && !contents; i++)
		set->f[i].rank = weak ? rank_of_name(set->f[i].path, &one) : (int)i;
	if (set->from == NULL)
		set->from = weak ? "names" : "order";
	qsort(set->f, set->n, sizeof(*set->f), cmp_rank);
	for (i = 1; i < set->n; i++)
		if (set->f[i].rank == set->f[i - 1].rank) {
			err = gms_fail(cause, GMS_ECONFIG, "rank %d is named twice: %s and %s",
			    set->f[i].rank, set->f[i - 1].path, set->f[i].path);
			ranks_free(set);
			return err;
		}
	return 0;
}

const char *
ranks_from_text(const struct rank_set *set)
{
	return strcmp(set->from, "names") == 0 ? "ranks from the files' names" :
	    strcmp(set->from, "contents") == 0 ? "ranks from the files' contents" :
	    "ranks in the order given";
}

void
ranks_free(struct rank_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		free(set->f[i].path);
		free(set->f[i].shown);
	}
	free(set->f);
	memset(set, 0, sizeof(*set));
}

/* How far through its own recording a rank ran out: ranks of one job advance
   together, so the share of each one's events is their common clock. */
static double
oom_progress(const struct batch_job *j)
{
	return j->out.res.events ? (double)j->out.res.oom.event / (double)j->out.res.events : 0;
}

/* Whether rank i fares worse than rank j: running out before fitting, sooner
   before later, and among those that fit, the larger peak. */
static int
worse(const struct ranks_job *job, size_t i, size_t j)
{
	const struct sim_result *a = &job->jobs[i].out.res, *b = &job->jobs[j].out.res;

	if (a->oomed != b->oomed)
		return a->oomed;
	if (a->oomed)
		return oom_progress(&job->jobs[i]) < oom_progress(&job->jobs[j]);
	return a->peak_reserved > b->peak_reserved;
}

static struct report_run
rank_report(const struct ranks_job *job, size_t i)
{
	const struct batch_job *j = &job->jobs[i];

	return (struct report_run){
		.trace = j->out.hdr ? j->out.hdr->name : j->spec.path,
		.path = j->spec.path,
		.policy = j->out.policy ? j->out.policy->name : j->spec.policy->name,
		.ops = j->out.policy ? j->out.policy : j->spec.policy,
		.opts = j->out.opts ? j->out.opts : j->spec.opts,
		.nopts = j->out.opts ? j->out.nopts : j->spec.nopts,
		.recorded_conf = j->out.recorded_conf,
		.as_recorded = j->out.as_recorded,
		.placement = run_placement_name(j->out.placement),
		.capacity = j->spec.capacity,
		.hdr = j->out.hdr,
		.res = &j->out.res,
	};
}

int
ranks_run(const struct rank_set *set, const struct run_spec *template, size_t nplace,
    unsigned flags, int threads, struct ranks_job *job, char **cause)
{
	struct report_observed_key keys[REPORT_OBSERVED_KEYS];
	struct run_spec specs[2];
	struct report_run rep;
	size_t i;
	int all, err;

	memset(job, 0, sizeof(*job));
	job->set = set;
	job->capacity = template->capacity;
	job->jobs = gms_calloc(set->n, sizeof(*job->jobs));
	for (i = 0; i < set->n; i++) {
		job->jobs[i].spec = *template;
		job->jobs[i].spec.path = set->f[i].path;
		job->jobs[i].spec.mem = NULL;
		job->jobs[i].settle = 1;	/* many ranks: memory of one or two runs */
	}
	if (nplace > 0) {
		/* each rank under its placements: the model's (seed 0) is its run */
		job->nplace = nplace;
		job->pl = gms_calloc(set->n, sizeof(*job->pl));
		for (i = 0; i < set->n; i++) {
			struct batch_job *b = &job->jobs[i];

			if ((b->err = placements_run(&b->spec, nplace, threads, &job->pl[i],
			    &b->cause)) == 0) {
				b->out = job->pl[i].model;
				memset(&job->pl[i].model, 0, sizeof(job->pl[i].model));
			}
			job->place_ooms += job->pl[i].ooms > 0;
		}
	} else {
		batch_run(job->jobs, set->n, threads);
	}
	for (i = 0; i < set->n; i++)
		if (job->jobs[i].err < 0) {
			err = gms_fail(cause, job->jobs[i].err, "rank %d: %s", set->f[i].rank,
			    job->jobs[i].cause);
			/* nothing of a failed job is reported: its files and runs go
			   now (compare goes on to its other policies) */
			for (i = 0; i < set->n; i++)
				run_output_free(&job->jobs[i].out);
			return err;
		}
	for (i = 0; i < set->n; i++) {
		const struct sim_result *r = &job->jobs[i].out.res;

		if (worse(job, i, job->worst))
			job->worst = i;
		if (worse(job, job->least, i))
			job->least = i;
		if (r->oomed)
			job->ooms++;
		if (job->capacity == 0) {
			rep = rank_report(job, i);
			if (report_observed(&rep, keys, &all) > 0) {
				job->observed++;
				job->reproduced += all != 0;
			}
		}
	}
	if ((flags & RANKS_DIFF) && set->n > 1 && job->worst != job->least) {
		specs[0] = job->jobs[job->least].spec;
		specs[1] = job->jobs[job->worst].spec;
		if ((err = trace_diff_run(specs, NULL, 0, &job->diff, cause)) < 0)
			return err;
		job->diffed = 1;
	}
	return 0;
}

void
ranks_job_free(struct ranks_job *job)
{
	if (job->jobs != NULL)
		batch_free(job->jobs, job->set->n);
	free(job->jobs);
	if (job->diffed)
		trace_diff_free(&job->diff);
	for (size_t i = 0; job->pl != NULL && i < job->set->n; i++)
		placements_free(&job->pl[i]);
	free(job->pl);
	memset(job, 0, sizeof(*job));
}

char *
ranks_text(const struct ranks_job *job, const char *policy, size_t top)
{
	const struct rank_set *set = job->set;
	char *text = NULL, name[2][32];
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	const struct sim_result *w = &job->jobs[job->worst].out.res;
	const struct sim_result *l = &job->jobs[job->least].out.res;

	fprintf(f, "%zu rank%s (%s), %s, capacity %s%s\n\n", set->n, set->n == 1 ? "" : "s",
	    ranks_from_text(set), policy, job->capacity ? SZ(job->capacity) : "unlimited",
	    job->capacity ? " a rank" : "");
	fprintf(f, "  rank  %13s  %14s  %12s  %s\n", "peak reserved", "peak allocated",
	    "device calls", "result");
	for (i = 0; i < set->n; i++) {
		const struct sim_result *r = &job->jobs[i].out.res;

		fprintf(f, "  %4d  %13s  %14s  %12llu  ", set->f[i].rank,
		    SZ(r->peak_reserved), SZ(r->peak_allocated),
		    (unsigned long long)(r->device_allocs + r->device_frees));
		if (r->oomed)
			fprintf(f, "OOM at event %llu of %llu", (unsigned long long)r->oom.event,
			    (unsigned long long)r->events);
		else
			fprintf(f, "fits");
		fprintf(f, "  %s\n", set->f[i].shown);
		if (job->pl != NULL) {
			const struct placements *pl = &job->pl[i];

			fprintf(f, "        %zu placements: peak reserved %s to %s", pl->n,
			    SZ(pl->peak_min), SZ(pl->peak_max));
			if (pl->ooms > 0)
				fprintf(f, "; %zu run out, at events %llu to %llu", pl->ooms,
				    (unsigned long long)pl->oom_first, (unsigned long long)pl->oom_last);
			fprintf(f, "\n");
		}
	}
	if (job->ooms > 0) {
		fprintf(f, "\nJOB: %zu of %zu ranks run%s out of memory; the first is rank %d, at "
		    "event %llu of %llu, %.0f%% through its recording (the ranks of a job "
		    "advance together: the share of each one's events is their clock)\n",
		    job->ooms, set->n, job->ooms == 1 ? "s" : "", set->f[job->worst].rank,
		    (unsigned long long)w->oom.event, (unsigned long long)w->events,
		    100.0 * oom_progress(&job->jobs[job->worst]));
	} else {
		fprintf(f, "\nJOB: the worst rank is %d, %s reserved at its peak",
		    set->f[job->worst].rank, SZ(w->peak_reserved));
		if (set->n > 1)
			fprintf(f, "; the least, rank %d, %s: a spread of %s (%.1f%% of the worst)",
			    set->f[job->least].rank, SZ(l->peak_reserved),
			    SZ(w->peak_reserved - l->peak_reserved),
			    w->peak_reserved ? 100.0 * (double)(w->peak_reserved -
			    l->peak_reserved) / (double)w->peak_reserved : 0.0);
		fprintf(f, "\n");
		if (job->capacity != 0)
			fprintf(f, "every rank fits in %s\n", SZ(job->capacity));
		else
			fprintf(f, "each rank's GPU needs %s for its allocator (rank %d's peak) and "
			    "its CUDA context: `plan` on rank %d's file gives the capacity to 2 MiB\n",
			    SZ(w->peak_reserved), set->f[job->worst].rank,
			    set->f[job->worst].rank);
	}
	if (job->pl != NULL)
		fprintf(f, "under %zu placements a rank (the model's, and %zu with hidden "
		    "reservations: doc/placement.md): %zu of %zu ranks run out under some\n",
		    job->nplace, job->nplace - 1, job->place_ooms, set->n);
	if (job->observed > 0)
		fprintf(f, "observed: %zu of %zu rank%s reproduced exactly\n", job->reproduced,
		    job->observed, job->observed == 1 ? "" : "s");
	if (job->diffed) {
		char *d;
		const char *names[2];

		snprintf(name[0], sizeof(name[0]), "rank %d", set->f[job->least].rank);
		snprintf(name[1], sizeof(name[1]), "rank %d", set->f[job->worst].rank);
		names[0] = name[0];
		names[1] = name[1];
		d = trace_diff_text(&job->diff, names, top);
		fprintf(f, "\nWhat rank %d holds that rank %d does not, by call stack:\n%s",
		    set->f[job->worst].rank, set->f[job->least].rank, d);
		free(d);
	}
	fclose(f);
	return text;
}

/* The job's answer: its worst and least ranks, the spread, who ran out first. */
static void
job_keys(cJSON *j, const struct ranks_job *job)
{
	const struct rank_set *set = job->set;
	const struct sim_result *w = &job->jobs[job->worst].out.res;

	cJSON_AddNumberToObject(j, "worst_rank", set->f[job->worst].rank);
	cJSON_AddNumberToObject(j, "peak_reserved", (double)w->peak_reserved);
	cJSON_AddNumberToObject(j, "least_rank", set->f[job->least].rank);
	cJSON_AddNumberToObject(j, "spread", (double)(w->peak_reserved -
	    job->jobs[job->least].out.res.peak_reserved));
	cJSON_AddNumberToObject(j, "ooms", (double)job->ooms);
	if (job->ooms > 0) {
		cJSON *f = cJSON_AddObjectToObject(j, "first_oom");

		cJSON_AddNumberToObject(f, "rank", set->f[job->worst].rank);
		cJSON_AddNumberToObject(f, "event", (double)w->oom.event);
		cJSON_AddNumberToObject(f, "events", (double)w->events);
	} else {
		cJSON_AddNullToObject(j, "first_oom");
	}
}

cJSON *
ranks_job_json(const struct ranks_job *job)
{
	cJSON *j = cJSON_CreateObject();

	job_keys(j, job);
	return j;
}

cJSON *
ranks_json(const struct ranks_job *job, const char *policy, size_t top)
{
	const struct rank_set *set = job->set;
	cJSON *o = cJSON_CreateObject(), *arr, *j, *r;
	char name[2][32];
	struct report_run rep;
	size_t i;

	cJSON_AddNumberToObject(o, "schema", REPORT_JSON_SCHEMA);
	cJSON_AddStringToObject(o, "policy", policy);
	if (job->capacity)
		cJSON_AddNumberToObject(o, "capacity", (double)job->capacity);
	else
		cJSON_AddNullToObject(o, "capacity");
	cJSON_AddStringToObject(o, "ranks_from", set->from);
	arr = cJSON_AddArrayToObject(o, "ranks");
	for (i = 0; i < set->n; i++) {
		rep = rank_report(job, i);
		r = report_run_json(&rep);
		cJSON_DeleteItemFromObjectCaseSensitive(r, "schema");
		cJSON_AddItemToObject(r, "rank", cJSON_CreateNumber(set->f[i].rank));
		cJSON_AddItemToObject(r, "path", cJSON_CreateString(set->f[i].path));
		if (job->pl != NULL)
			cJSON_AddItemToObject(r, "placements", placements_json(&job->pl[i]));
		cJSON_AddItemToArray(arr, r);
	}
	j = cJSON_AddObjectToObject(o, "job");
	cJSON_AddNumberToObject(j, "ranks", (double)set->n);
	job_keys(j, job);
	if (job->pl != NULL)
		cJSON_AddNumberToObject(j, "ooms_any_placement", (double)job->place_ooms);
	if (job->observed > 0) {
		cJSON_AddNumberToObject(j, "observed", (double)job->observed);
		cJSON_AddNumberToObject(j, "reproduced", (double)job->reproduced);
	}
	if (job->diffed) {
		const char *names[2];

		snprintf(name[0], sizeof(name[0]), "rank %d", set->f[job->least].rank);
		snprintf(name[1], sizeof(name[1]), "rank %d", set->f[job->worst].rank);
		names[0] = name[0];
		names[1] = name[1];
		cJSON_AddItemToObject(j, "worst_against_least", trace_diff_json(&job->diff,
		    names, top));
	} else {
		cJSON_AddNullToObject(j, "worst_against_least");
	}
	return o;
}

int
ranks_winner(const struct ranks_row *rows, size_t n)
{
	int best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ranks_job *j = &rows[i].job, *b = best >= 0 ? &rows[best].job : NULL;

		if (rows[i].not_run != NULL || (j->jobs[0].spec.policy->traits & POLICY_BOUND))
			continue;
		if (b == NULL || (b->ooms > 0 && j->ooms == 0) ||
		    (b->ooms == 0 && j->ooms == 0 && j->jobs[j->worst].out.res.peak_reserved <
		    b->jobs[b->worst].out.res.peak_reserved) ||
		    (b->ooms > 0 && j->ooms > 0 && oom_progress(&j->jobs[j->worst]) >
		    oom_progress(&b->jobs[b->worst])))
			best = (int)i;
	}
	return best;
}

char *
ranks_compare_text(const struct ranks_row *rows, size_t n)
{
	const struct rank_set *set = rows[0].job.set;
	char *text = NULL;
	size_t len = 0, i, width = 8;
	int win = ranks_winner(rows, n);
	FILE *f = open_memstream(&text, &len);
	uint64_t capacity = rows[0].job.capacity;

	for (i = 0; i < n; i++)
		width = GMS_MAX(width, strlen(rows[i].label));
	fprintf(f, "%zu rank%s (%s), capacity %s%s: each policy's worst rank\n\n", set->n,
	    set->n == 1 ? "" : "s", ranks_from_text(set), capacity ? SZ(capacity) : "unlimited",
	    capacity ? " a rank" : "");
	fprintf(f, "  %-*s  %10s  %13s  %10s  %s\n", (int)width, "policy", "worst rank",
	    "peak reserved", "spread", "ranks out of memory");
	for (i = 0; i < n; i++) {
		const struct ranks_job *j = &rows[i].job;
		const struct sim_result *w;

		if (rows[i].not_run != NULL) {
			fprintf(f, "  %-*s  not run: %s\n", (int)width, rows[i].label, rows[i].not_run);
			continue;
		}
		w = &j->jobs[j->worst].out.res;
		fprintf(f, "  %-*s  %10d  %13s  %10s  ", (int)width, rows[i].label,
		    set->f[j->worst].rank, SZ(w->peak_reserved),
		    SZ(w->peak_reserved - j->jobs[j->least].out.res.peak_reserved));
		if (j->ooms > 0)
			fprintf(f, "%zu (rank %d first, at event %llu of %llu)\n", j->ooms,
			    set->f[j->worst].rank, (unsigned long long)w->oom.event,
			    (unsigned long long)w->events);
		else
			fprintf(f, "none\n");
	}
	if (win < 0)
		fprintf(f, "\nleast memory: none (no policy but ideal, the bound, ran)\n");
	else if (rows[win].job.ooms == 0)
		fprintf(f, "\nleast memory: %s (every rank fits; its worst rank reserves least;\n"
		    "driver time not weighed: compare on one rank's file weighs it)\n",
		    rows[win].label);
	else
		fprintf(f, "\nleast memory: none fits every rank; %s runs out latest (its first "
		    "rank furthest through its recording)\n", rows[win].label);
	fclose(f);
	return text;
}

cJSON *
ranks_compare_json(const struct ranks_row *rows, size_t n)
{
	const struct rank_set *set = rows[0].job.set;
	cJSON *o = cJSON_CreateObject(), *a, *it;
	int win = ranks_winner(rows, n);
	size_t i;

	cJSON_AddNumberToObject(o, "schema", REPORT_JSON_SCHEMA);
	if (rows[0].job.capacity)
		cJSON_AddNumberToObject(o, "capacity", (double)rows[0].job.capacity);
	else
		cJSON_AddNullToObject(o, "capacity");
	cJSON_AddStringToObject(o, "ranks_from", set->from);
	a = cJSON_AddArrayToObject(o, "ranks");
	for (i = 0; i < set->n; i++) {
		it = cJSON_CreateObject();
		cJSON_AddNumberToObject(it, "rank", set->f[i].rank);
		cJSON_AddStringToObject(it, "path", set->f[i].path);
		cJSON_AddItemToArray(a, it);
	}
	a = cJSON_AddArrayToObject(o, "results");
	for (i = 0; i < n; i++) {
		const struct ranks_job *j = &rows[i].job;

		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "policy", rows[i].label);
		if (rows[i].not_run != NULL) {
			cJSON_AddStringToObject(it, "not_run", rows[i].not_run);
			cJSON_AddItemToArray(a, it);
			continue;
		}
		job_keys(it, j);
		cJSON_AddItemToArray(a, it);
	}
	if (win >= 0)
		cJSON_AddStringToObject(o, "least_memory", rows[win].label);
	else
		cJSON_AddNullToObject(o, "least_memory");
	return o;
}
