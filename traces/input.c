/*
 * input.c - what a trace is read from (input.h): spooling what cannot be
 * re-read, and the identity of each file a command reads (a uthash table by
 * path, under a lock: batch threads open traces too).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uthash.h>

#include "sim/gms.h"
#include "traces/input.h"

struct seen {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	UT_hash_handle hh;
};

static struct seen *seen;
static int watching;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* What was spooled, by the path it came from: read again from the copy. */
struct spooled {
	char *path;
	int fd;				/* the copy, kept open to the end */
	UT_hash_handle hh;
};
static struct spooled *spooled;

/*
 * The copy of path, if it was spooled: a descriptor of its own (its own
 * offset: batch threads read at once) at the start.  1 with *out, 0 when
 * path was never spooled, < 0 with *cause.
 */
static int
respool(const char *path, int *out, char **cause)
{
	struct spooled *sp;
	char proc[64];
	int fd = -1;

	pthread_mutex_lock(&lock);
	HASH_FIND_STR(spooled, path, sp);
	if (sp != NULL) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", sp->fd);
		if ((fd = open(proc, O_RDONLY | O_CLOEXEC)) < 0 &&
		    (fd = dup(sp->fd)) >= 0 && lseek(fd, 0, SEEK_SET) != 0) {
			close(fd);
			fd = -1;
		}
	}
	pthread_mutex_unlock(&lock);
	if (sp == NULL)
		return 0;
	if (fd < 0)
		return gms_fail(cause, GMS_EIO, "cannot read '%s' again from its copy: %s", path,
		    strerror(errno));
	*out = fd;
	return 1;
}

/* Keep fd's copy of path (a descriptor of its own) for the next open of it. */
static void
keep_spool(const char *path, int fd)
{
	struct spooled *sp;
	int kept = dup(fd);

	if (kept < 0)
		return;
	pthread_mutex_lock(&lock);
	HASH_FIND_STR(spooled, path, sp);
	if (sp == NULL) {
		sp = gms_calloc(1, sizeof(*sp));
		sp->path = gms_strdup(path);
		sp->fd = kept;
		HASH_ADD_KEYPTR(hh, spooled, sp->path, strlen(sp->path), sp);
	} else {
		close(kept);
	}
	pthread_mutex_unlock(&lock);
}

/*
 * All of fd's bytes into an unnamed temporary file (fd is closed): what
 * cannot be read twice, kept so that it can.
 */
static int
spool(int fd, const char *what, int (*looks_like)(const unsigned char *, size_t), int *out,
    char **cause)
{
	unsigned char *buf = gms_malloc(1 << 16);
	unsigned long long kept = 0;
	FILE *t = NULL;
	ssize_t n;
	int e, tfd, err = 0;

	if ((n = gms_read_full(fd, buf, INPUT_HEAD)) < 0) {
		err = gms_fail(cause, GMS_EIO, "cannot read %s: %s", what, strerror(errno));
		goto fail;
	}
	if (looks_like != NULL && !looks_like(buf, (size_t)n)) {
		err = gms_fail(cause, GMS_ETRACE, "%s: not a trace gpumemsim can read (its first "
		    "bytes are no JSON, pickle, CSV, profile or gzip)", what);
		goto fail;
	}
	if ((t = tmpfile()) == NULL) {
		err = gms_fail(cause, GMS_EIO, "cannot keep %s in a temporary file: %s", what,
		    strerror(errno));
		goto fail;
	}
	for (; n > 0; n = gms_read_full(fd, buf, 1 << 16)) {
		if ((kept += (unsigned long long)n) > INPUT_SPOOL_MAX) {
			err = gms_fail(cause, GMS_ETRACE, "%s gave more than %llu GiB through a pipe: "
			    "give gpumemsim the file itself", what, INPUT_SPOOL_MAX >> 30);
			goto fail;
		}
		if (fwrite(buf, 1, (size_t)n, t) != (size_t)n)
			break;
	}
	free(buf);
	buf = NULL;
	if (n < 0) {
		err = gms_fail(cause, GMS_EIO, "cannot read %s: %s", what, strerror(errno));
		goto fail;
	}
	if (ferror(t) || fflush(t) != 0) {
		err = gms_fail(cause, GMS_EIO, "cannot keep %s in a temporary file: %s", what,
		    strerror(errno));
		goto fail;
	}
	close(fd);
	tfd = dup(fileno(t));
	fclose(t);
	if (tfd < 0 || lseek(tfd, 0, SEEK_SET) != 0) {
		e = errno;
		if (tfd >= 0)
			close(tfd);
		return gms_fail(cause, GMS_EIO, "cannot read %s back: %s", what, strerror(e));
	}
	*out = tfd;
	return 0;
fail:
	free(buf);
	if (t != NULL)
		fclose(t);
	close(fd);
	return err;
}

int
input_open(const char *path, int (*looks_like)(const unsigned char *, size_t), int *out,
    char **cause)
{
	struct stat st;
	char *what;
	int fd, err;

	/* standard input, a pipe or a device is read once: every later open reads its copy */
	if ((err = respool(path, out, cause)) != 0)
		return err < 0 ? err : 0;
	if (strcmp(path, "-") == 0) {
		if ((fd = dup(STDIN_FILENO)) < 0)
			return gms_fail(cause, GMS_EIO, "cannot read standard input: %s",
			    strerror(errno));
		if ((err = spool(fd, "standard input", looks_like, out, cause)) == 0)
			keep_spool(path, *out);
		return err;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return gms_fail(cause, GMS_EIO, "cannot open trace '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		*out = fd;
		return 0;
	}
	what = gms_asprintf("'%s'", path);
	if ((err = spool(fd, what, looks_like, out, cause)) == 0)
		keep_spool(path, *out);
	free(what);
	return err;
}

int
input_rereadable(const char *path)
{
	struct stat st;

	return strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

void
input_watch(int on)
{
	watching = on;
}

int
input_unchanged(const char *path, char **cause)
{
	struct seen *s;
	struct stat st;
	int err = 0;

	if (!watching || strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	pthread_mutex_lock(&lock);
	HASH_FIND_STR(seen, path, s);
	if (s == NULL) {
		s = gms_calloc(1, sizeof(*s));
		s->path = gms_strdup(path);
		s->dev = st.st_dev;
		s->ino = st.st_ino;
		s->size = st.st_size;
		s->mtime = st.st_mtim;
		HASH_ADD_KEYPTR(hh, seen, s->path, strlen(s->path), s);
	} else if (s->dev != st.st_dev || s->ino != st.st_ino) {
		err = gms_fail(cause, GMS_ETRACE, "'%s' was replaced by another file while it was "
		    "being read: the report would mix two traces; run it again on a copy that "
		    "stays as it is", path);
	} else if (s->size != st.st_size || s->mtime.tv_sec != st.st_mtim.tv_sec ||
	    s->mtime.tv_nsec != st.st_mtim.tv_nsec) {
		err = gms_fail(cause, GMS_ETRACE, "'%s' changed while it was being read (%s): the "
		    "report would mix two traces; run it again on a copy that stays as it is",
		    path, s->size != st.st_size ? "its size differs" :
		    "its modification time differs");
	}
	pthread_mutex_unlock(&lock);
	return err;
}
