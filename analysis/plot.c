/*
 * plot.c - drawing with gnuplot (plot.h): the data goes to files in a
 * private temporary directory, the built-in script to another, and gnuplot
 * runs on them with the parameters as -e assignments.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/plot.h"
#include "sim/gms.h"
#include "sim/tmpfiles.h"

extern const char asset_plot_timeline_gp[];
extern const char asset_plot_map_gp[];
extern const char asset_plot_share_gp[];
extern const char asset_plot_scale_gp[];
extern char **environ;

#define GiB 1073741824.0

const char *
plot_term(const char *out, char **cause)
{
	size_t n = strlen(out);

	if (strcmp(out, "-") == 0)
		return "svg";
	if (n > 4 && strcmp(out + n - 4, ".svg") == 0)
		return "svg";
	if (n > 4 && strcmp(out + n - 4, ".png") == 0)
		return "png";
	gms_fail(cause, GMS_ECONFIG, "cannot tell what to draw '%s' as: name it .svg or .png", out);
	return NULL;
}

/* A gnuplot single-quoted string: quotes doubled. */
static char *
quoted(const char *s)
{
	size_t n = strlen(s), i, j = 0;
	char *q = gms_malloc(2 * n + 3);

	q[j++] = '\'';
	for (i = 0; i < n; i++) {
		if (s[i] == '\'')
			q[j++] = '\'';
		q[j++] = s[i] == '\n' ? ' ' : s[i];
	}
	q[j++] = '\'';
	q[j] = '\0';
	return q;
}

/*
 * "label1='...'; label2='...'": one gnuplot variable per series, so that a
 * name with blanks or quotes is one name (the scripts read value("labelK")).
 */
static char *
label_assigns(const char *const *names, size_t n)
{
	char *out = gms_strdup(""), *q, *tmp;
	size_t i;

	for (i = 0; i < n; i++) {
		q = quoted(names[i]);
		tmp = gms_asprintf("%s%slabel%zu=%s", out, i ? "; " : "", i + 1, q);
		free(q);
		free(out);
		out = tmp;
	}
	return out;
}

/* The private directory a picture is drawn in, and what is in it. */
struct tmp {
	char *dir;
	char *paths[8];
	int n;
};

static FILE *
tmp_file(struct tmp *t, const char *name, char **path)
{
	GMS_ASSERT(t->n < (int)ARRAY_SIZE(t->paths));
	*path = t->paths[t->n++] = gms_asprintf("%s/%s", t->dir, name);
	tmpfiles_add(*path);
	return fopen(*path, "w");
}

static void
tmp_clean(struct tmp *t)
{
	int i;

	for (i = t->n - 1; i >= 0; i--) {
		unlink(t->paths[i]);
		tmpfiles_forget(t->paths[i]);
		free(t->paths[i]);
	}
	if (t->dir != NULL) {
		rmdir(t->dir);
		tmpfiles_forget(t->dir);
		free(t->dir);
	}
	memset(t, 0, sizeof(*t));
}

static int
tmp_dir(struct tmp *t, char **cause)
{
	const char *base = getenv("TMPDIR");

	memset(t, 0, sizeof(*t));
	t->dir = gms_asprintf("%s/gpumemsim-plot.XXXXXX", base && *base ? base : "/tmp");
	if (mkdtemp(t->dir) == NULL) {
		int e = errno;

		gms_fail(cause, GMS_EIO, "cannot make a temporary directory '%s': %s", t->dir,
		    strerror(e));
		free(t->dir);
		t->dir = NULL;
		return GMS_EIO;
	}
	tmpfiles_add(t->dir);
	return 0;
}

/* The last line gnuplot wrote to errpath that says something, for a message. */
static void
last_words(const char *errpath, char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen(errpath, "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[strspn(line, " \t^")] != '\0')
			snprintf(buf, len, "%s", line);
	}
	fclose(f);
}

/*
 * Is the picture at path whole?  gnuplot says nothing when its writes fail
 * (a full disk): an SVG ends with its closing tag, a PNG with its IEND chunk.
 */
static int
picture_whole(const char *path, const char *term)
{
	static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42,
	    0x60, 0x82 };
	unsigned char tail[64];
	size_t n;
	long size;
	FILE *f = fopen(path, "rb");

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 ||
	    fseek(f, size > (long)sizeof(tail) ? size - (long)sizeof(tail) : 0, SEEK_SET) != 0) {
		if (f != NULL)
			fclose(f);
		return 0;
	}
	n = fread(tail, 1, sizeof(tail), f);
	fclose(f);
	if (strcmp(term, "png") == 0)
		return n >= sizeof(iend) && memcmp(tail + n - sizeof(iend), iend, sizeof(iend)) == 0;
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
		n--;
	return n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
}

/* The picture at from, every byte written to fd (the caller's output). */
static int
copy_out(const char *from, int fd, const char *name, char **cause)
{
	char buf[65536];
	ssize_t w;
	size_t n, off;
	FILE *f = fopen(from, "rb");

	if (f == NULL)
		return gms_fail(cause, GMS_EIO, "cannot read the picture gnuplot drew ('%s'): %s",
		    from, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (off = 0; off < n; off += (size_t)w)
			if ((w = write(fd, buf + off, n - off)) < 0) {
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				fclose(f);
				return gms_fail(cause, GMS_EIO, "cannot write '%s': %s", name,
				    strerror(errno));
			}
	fclose(f);
	return 0;
}

/*
 * Run gnuplot -d -e assigns script (no start-up file read: the picture is
 * the same for every user), its messages kept in errpath (warnings about a
 * sparse picture are not the user's business); the picture it drew at pic,
 * checked whole, then written to fd.
 */
static int
gnuplot(const char *assigns, const char *script, const char *pic, const char *term,
    const char *errpath, int fd, const char *name, char **cause)
{
	char *argv[] = { "gnuplot", "-d", "-e", (char *)assigns, (char *)script, NULL };
	posix_spawn_file_actions_t fa;
	char said[512];
	pid_t pid;
	int status, rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, errpath, O_WRONLY | O_CREAT | O_TRUNC,
	    0600);
	rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT)
		return gms_fail(cause, GMS_ENOTBUILT, "plot needs gnuplot, which is not installed "
		    "(Debian: apt-get install gnuplot-nox)");
	if (rc != 0)
		return gms_fail(cause, GMS_EIO, "cannot run gnuplot: %s", strerror(rc));
	tmpfiles_child(pid);
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	tmpfiles_child(0);
	if (rc < 0)
		return gms_fail(cause, GMS_EIO, "waiting for gnuplot: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		last_words(errpath, said, sizeof(said));
		return gms_fail(cause, GMS_EIO, "gnuplot failed (exit status %d)%s%s",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1, said[0] ? ": " : "", said);
	}
	if (!picture_whole(pic, term))
		return gms_fail(cause, GMS_EIO, "cannot draw '%s': the picture gnuplot wrote in "
		    "'%s' is incomplete (is the disk full?)", name, pic);
	return copy_out(pic, fd, name, cause);
}

/* gnuplot, its complaints kept in t for the message. */
static int
gnuplot_in(struct tmp *t, const char *assigns, const char *script, const char *pic,
    const char *term, int fd, const char *name, char **cause)
{
	char *errpath;
	FILE *f;

	if ((f = tmp_file(t, "gnuplot.err", &errpath)) == NULL)
		return gms_fail(cause, GMS_EIO, "cannot write a temporary file: %s",
		    strerror(errno));
	fclose(f);
	return gnuplot(assigns, script, pic, term, errpath, fd, name, cause);
}

/* Where gnuplot draws: "picture.svg" or "picture.png" in t. */
static int
picture_path(struct tmp *t, const char *term, char **pic, char **cause)
{
	char name[16];
	FILE *f;

	snprintf(name, sizeof(name), "picture.%s", term);
	if ((f = tmp_file(t, name, pic)) == NULL)
		return gms_fail(cause, GMS_EIO, "cannot write %s: %s", *pic, strerror(errno));
	fclose(f);
	return 0;
}

static int
write_script(struct tmp *t, const char *text, char **path, char **cause)
{
	FILE *f = tmp_file(t, "script.gp", path);

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		return gms_fail(cause, GMS_EIO, "cannot write %s: %s", *path, strerror(errno));
	return 0;
}

/* A timeline's row of most reserved (before any OOM), or NULL. */
static const struct timeline_row *
peak_row(const struct timeline *tl)
{
	const struct timeline_row *best = NULL;
	size_t r;

	for (r = 0; r < tl->n; r++)
		if (!tl->rows[r].stopped && (best == NULL || tl->rows[r].reserved > best->reserved))
			best = &tl->rows[r];
	return best;
}

int
plot_timeline(const struct plot_timeline_args *a, char **cause)
{
	const char *term = plot_term(a->out, cause);
	char *data, *ann, *oom, *script, *pic, *assigns, *qd, *qo, *qt, *qa, *qm, *qp, *tmp, *qx;
	char *qlive;
	char *labels = NULL, *oomplot = NULL;
	struct tmp t;
	size_t i, every;
	uint64_t xmax = 0;	/* the last event drawn */
	FILE *f;
	int err;

	if (term == NULL)
		return GMS_ECONFIG;
	if ((err = tmp_dir(&t, cause)) < 0)
		return err;
	if ((f = tmp_file(&t, "timeline.csv", &data)) == NULL ||
	    timeline_write_csv(f, a->tls, a->labels, a->n) < 0 || fclose(f) != 0) {
		err = gms_fail(cause, GMS_EIO, "cannot write %s: %s", data, strerror(errno));
		goto out;
	}
	/* marks: a thin line each; labels for at most 24 of them */
	if ((f = tmp_file(&t, "annotations.gp", &ann)) == NULL) {
		err = gms_fail(cause, GMS_EIO, "cannot write %s: %s", ann, strerror(errno));
		goto out;
	}
	every = a->nmarks / 24 + 1;
	for (i = 0; i < a->nmarks; i++) {
		char *ql = quoted(a->marks[i].label ? a->marks[i].label : "");

		fprintf(f, "set arrow from first %llu, graph 0 to first %llu, graph 1 nohead lw 0.6 "
		    "lc rgb \"#999999\"\n", (unsigned long long)a->marks[i].event,
		    (unsigned long long)a->marks[i].event);
		if (i % every == 0)
			fprintf(f, "set label %s at first %llu, graph 0.98 rotate by 90 right font \",8\" "
			    "tc rgb \"#666666\" noenhanced\n", ql, (unsigned long long)a->marks[i].event);
		free(ql);
	}
	/*
	 * each series' peak, marked and named from the rows drawn: the picture
	 * says its extremes; series that peak at one point (two ranks alike)
	 * share one mark and one label, naming them all
	 */
	for (i = 0; i < a->n; i++)
		if (a->tls[i]->n > 0)
			xmax = GMS_MAX(xmax, a->tls[i]->rows[a->tls[i]->n - 1].event);
	for (i = 0; i < a->n; i++) {
		const struct timeline_row *best = peak_row(a->tls[i]), *other;
		char size[32], *ql, *label, *names, *more;
		/* in the right half the label runs leftwards, inside the picture */
		int left = best != NULL && best->event > xmax / 2;
		size_t j;

		if (best == NULL || best->reserved == 0)
			continue;
		for (j = 0; j < i; j++)
			if ((other = peak_row(a->tls[j])) != NULL && other->event == best->event &&
			    other->reserved == best->reserved)
				break;
		if (j < i)
			continue;	/* named with the first */
		names = gms_strdup(a->labels ? a->labels[i] : "reserved");
		for (j = i + 1; j < a->n; j++)
			if ((other = peak_row(a->tls[j])) != NULL && other->event == best->event &&
			    other->reserved == best->reserved) {
				more = gms_asprintf("%s, %s", names, a->labels ? a->labels[j] : "reserved");
				free(names);
				names = more;
			}
		label = a->ranks ? gms_asprintf("%s peak %s", names,
		    gms_fmt_size(best->reserved, size, sizeof(size))) :
		    gms_asprintf("%s peak %s at event %llu", names,
		    gms_fmt_size(best->reserved, size, sizeof(size)), (unsigned long long)best->event);
		ql = quoted(label);
		fprintf(f, "set label %s at first %llu, first %.6f / GiB %s point pt 6 ps 1.2 "
		    "lc %zu offset %s0.8, 0.8 font \",9\" noenhanced\n", ql,
		    (unsigned long long)best->event, (double)best->reserved, left ? "right" : "left",
		    i + 1, left ? "-" : "");
		free(ql);
		free(label);
		free(names);
	}
	fclose(f);
	if ((f = tmp_file(&t, "oom.csv", &oom)) == NULL) {
		err = gms_fail(cause, GMS_EIO, "cannot write %s: %s", oom, strerror(errno));
		goto out;
	}
	oomplot = gms_strdup("");
	for (i = 0; i < a->nooms; i++) {
		char *ql = quoted(a->ooms[i].label ? a->ooms[i].label : "out of memory");

		fprintf(f, "%llu,%llu\n", (unsigned long long)a->ooms[i].event,
		    (unsigned long long)a->ooms[i].bytes);
		tmp = gms_asprintf("%s, oomfile every ::%zu::%zu using 1:($2 / GiB) with points pt 7 "
		    "ps 1.8 lc %zu title %s", oomplot, i, i, a->ooms[i].series + 1, ql);
		free(oomplot);
		free(ql);
		oomplot = tmp;
	}
	fclose(f);
	if ((err = write_script(&t, asset_plot_timeline_gp, &script, cause)) < 0 ||
	    (err = picture_path(&t, term, &pic, cause)) < 0)
		goto out;
	labels = label_assigns(a->labels, a->n);
	qd = quoted(data);
	qo = quoted(pic);
	qt = quoted(a->title);
	qa = quoted(ann);
	qm = quoted(oom);
	tmp = NULL;
	qp = quoted(oomplot);
	qx = quoted(a->xlabel ? a->xlabel : "event");
	qlive = quoted(a->ranks ? "" : "datafile using 1:($3 / GiB) with lines lw 2.5 lc rgb "
	    "\"black\" title \"live\", ");
	assigns = gms_asprintf("datafile=%s; outfile=%s; termtype='%s'; npol=%zu; %s%s"
	    "title=%s; capacity=%.0f; annfile=%s; oomfile=%s; oomplot=%s; xlab=%s; liveplot=%s; "
	    "dashed=%d", qd, qo, term, a->n, labels, a->n ? "; " : "", qt, (double)a->capacity, qa,
	    qm, qp, qx, qlive, a->ranks);
	free(qx);
	free(qlive);
	err = gnuplot_in(&t, assigns, script, pic, term, a->fd, a->out, cause);
	free(qd);
	free(qo);
	free(qt);
	free(qa);
	free(qm);
	free(qp);
	free(tmp);
	free(assigns);
	free(labels);
out:
	free(oomplot);
	tmp_clean(&t);
	return err;
}

struct map_ctx {
	FILE *data, *tics;
	int row;
	uint64_t seg_addr;
	size_t nsegs;
};

int
plot_share(const char *out, int fd, const char *title, const char *csv,
    const char *const *names, size_t njobs, uint64_t capacity, const struct plot_point *ooms,
    size_t nooms, char **cause)
{
	const char *term = plot_term(out, cause);
	char *oom, *script, *pic, *assigns, *qd, *qo, *qt, *ql, *qm, *qp, *labels;
	char *oomplot;
	struct tmp t;
	size_t i;
	FILE *f;
	int err;

	if (term == NULL)
		return GMS_ECONFIG;
	if ((err = tmp_dir(&t, cause)) < 0)
		return err;
	if ((f = tmp_file(&t, "oom.csv", &oom)) == NULL) {
		err = gms_fail(cause, GMS_EIO, "cannot write %s: %s", oom, strerror(errno));
		goto out;
	}
	for (i = 0; i < nooms; i++)
		fprintf(f, "%llu,%llu\n", (unsigned long long)ooms[i].event,
		    (unsigned long long)ooms[i].bytes);
	fclose(f);
	if ((err = write_script(&t, asset_plot_share_gp, &script, cause)) < 0 ||
	    (err = picture_path(&t, term, &pic, cause)) < 0)
		goto out;
	labels = label_assigns(names, njobs);
	qm = quoted(oom);
	oomplot = nooms == 0 ? gms_strdup("") : gms_asprintf(", %s using ($1 / 1e6):($2 / GiB) "
	    "with points pt 7 ps 2 lc rgb \"#cc0000\" title \"out of memory\"", qm);
	qd = quoted(csv);
	qo = quoted(pic);
	qt = quoted(title);
	ql = gms_strdup(labels);
	qp = quoted(oomplot);
	assigns = gms_asprintf("datafile=%s; outfile=%s; termtype='%s'; njobs=%zu; %s%s"
	    "title=%s; capacity=%.0f; oomplot=%s", qd, qo, term, njobs, ql, njobs ? "; " : "", qt,
	    (double)capacity, qp);
	err = gnuplot_in(&t, assigns, script, pic, term, fd, out, cause);
	free(qd);
	free(qo);
	free(qt);
	free(ql);
	free(qm);
	free(qp);
	free(oomplot);
	free(labels);
	free(assigns);
out:
	tmp_clean(&t);
	return err;
}

int
plot_scale(const char *out, int fd, const char *title, const uint64_t *values,
    const uint64_t *reserved, const uint64_t *allocated, const int *recorded, size_t n,
    uint64_t capacity, uint64_t largest, char **cause)
{
	const char *term = plot_term(out, cause);
	char *data, *script, *pic, *assigns, *qd, *qo, *qt;
	struct tmp t;
	size_t i;
	FILE *f;
	int err;

	if (term == NULL)
		return GMS_ECONFIG;
	if ((err = tmp_dir(&t, cause)) < 0)
		return err;
	if ((f = tmp_file(&t, "curve.csv", &data)) == NULL) {
		err = gms_fail(cause, GMS_EIO, "cannot write %s: %s", data, strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%llu,%llu,%llu,%d\n", (unsigned long long)values[i],
		    (unsigned long long)reserved[i], (unsigned long long)allocated[i], recorded[i]);
	if (fclose(f) != 0) {
		err = gms_fail(cause, GMS_EIO, "cannot write %s: %s", data, strerror(errno));
		goto out;
	}
	if ((err = write_script(&t, asset_plot_scale_gp, &script, cause)) < 0 ||
	    (err = picture_path(&t, term, &pic, cause)) < 0)
		goto out;
	qd = quoted(data);
	qo = quoted(pic);
	qt = quoted(title);
	assigns = gms_asprintf("datafile=%s; outfile=%s; termtype='%s'; title=%s; capacity=%.0f; "
	    "largest=%llu", qd, qo, term, qt, (double)capacity, (unsigned long long)largest);
	err = gnuplot_in(&t, assigns, script, pic, term, fd, out, cause);
	free(qd);
	free(qo);
	free(qt);
	free(assigns);
out:
	tmp_clean(&t);
	return err;
}

static void
map_segment(void *arg, const struct policy_walk_segment *s)
{
	struct map_ctx *c = arg;

	c->row++;
	c->seg_addr = s->addr;
	if (c->nsegs <= 48)
		fprintf(c->tics, "set ytics add (\"%s %.0f MiB\" %d)\n", s->pool,
		    (double)s->size / 1048576.0, c->row);
}

static void
map_block(void *arg, const struct policy_walk_block *b)
{
	struct map_ctx *c = arg;

	fprintf(c->data, "%d,%.6f,%.6f,%d\n", c->row, (double)(b->addr - c->seg_addr) / 1048576.0,
	    (double)(b->addr - c->seg_addr + b->size) / 1048576.0,
	    b->allocated ? 0x3366cc : 0xdd5555);
}

static void
count_segment(void *arg, const struct policy_walk_segment *s)
{
	(*(size_t *)arg)++;
}

int
plot_map(const char *out, int fd, const char *title, const struct policy_ops *ops,
    void *state, char **cause)
{
	const char *term = plot_term(out, cause);
	struct map_ctx c = { .row = -1 };
	char *data, *tics, *script, *pic, *assigns, *qd, *qo, *qt, *qs;
	struct tmp t;
	int err;

	if (term == NULL)
		return GMS_ECONFIG;
	if ((err = tmp_dir(&t, cause)) < 0)
		return err;
	ops->walk(state, count_segment, NULL, &c.nsegs);
	if ((c.data = tmp_file(&t, "map.csv", &data)) == NULL ||
	    (c.tics = tmp_file(&t, "tics.gp", &tics)) == NULL) {
		err = gms_fail(cause, GMS_EIO, "cannot write in '%s': %s", t.dir, strerror(errno));
		if (c.data)
			fclose(c.data);
		goto out;
	}
	if (c.nsegs <= 48)
		fprintf(c.tics, "set ytics ()\n");
	ops->walk(state, map_segment, map_block, &c);
	if (c.nsegs == 0)
		fprintf(c.data, "0,0,0,16777215\n");	/* an empty map still draws */
	fclose(c.data);
	fclose(c.tics);
	if ((err = write_script(&t, asset_plot_map_gp, &script, cause)) < 0 ||
	    (err = picture_path(&t, term, &pic, cause)) < 0)
		goto out;
	qd = quoted(data);
	qo = quoted(pic);
	qt = quoted(title);
	qs = quoted(tics);
	assigns = gms_asprintf("datafile=%s; outfile=%s; termtype='%s'; title=%s; nrows=%zu; "
	    "ticfile=%s", qd, qo, term, qt, c.nsegs ? c.nsegs : 1, qs);
	err = gnuplot_in(&t, assigns, script, pic, term, fd, out, cause);
	free(qd);
	free(qo);
	free(qt);
	free(qs);
	free(assigns);
out:
	tmp_clean(&t);
	return err;
}
