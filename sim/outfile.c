/*
 * outfile.c - safe output files (outfile.h): inputs compared by device and
 * inode, a temporary file in the destination's directory (so the final
 * rename never crosses file systems), rename(2) into place.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/gms.h"
#include "sim/outfile.h"
#include "sim/tmpfiles.h"

static void
reset(struct outfile *o)
{
	if (o->tmp != NULL)
		tmpfiles_forget(o->tmp);
	free(o->path);
	free(o->dest);
	free(o->tmp);
	o->path = NULL;
	o->dest = NULL;
	o->tmp = NULL;
	o->fd = -1;
}

/* The input among inputs[0..n) that st is, or NULL. */
static const char *
is_input(const struct stat *st, const char *const *inputs, size_t n)
{
	struct stat in;
	size_t i;

	for (i = 0; i < n; i++) {
		if (inputs[i] == NULL || strcmp(inputs[i], "-") == 0)
			continue;
		if (stat(inputs[i], &in) == 0 && in.st_dev == st->st_dev &&
		    in.st_ino == st->st_ino)
			return inputs[i];
	}
	return NULL;
}

int
outfile_trace_like(const char *name)
{
	static const char *const ext[] = { ".pickle", ".pkl", ".json", ".jsonl", ".csv", ".pb" };
	size_t n = strlen(name), len, i;

	if (name[0] == '.')
		return 0;
	if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
		n -= 3;
	for (i = 0; i < ARRAY_SIZE(ext); i++) {
		len = strlen(ext[i]);
		if (n > len && strncmp(name + n - len, ext[i], len) == 0)
			return 1;
	}
	return 0;
}

/*
 * The input directory among inputs[0..n) that path would be read from (a
 * trace's name, in it or below: a profile's plugins/profile/RUN/), or NULL.
 * The directory expands to its files when it is read, so path need not
 * exist yet to be one of them next time.
 */
static const char *
in_input_dir(const char *path, const char *const *inputs, size_t n)
{
	const char *slash = strrchr(path, '/'), *hit = NULL;
	char *dir, *real, *in;
	struct stat st;
	size_t i, len;

	if (!outfile_trace_like(slash ? slash + 1 : path))
		return NULL;
	dir = slash == NULL ? gms_strdup(".") : slash == path ? gms_strdup("/") :
	    gms_asprintf("%.*s", (int)(slash - path), path);
	real = realpath(dir, NULL);
	free(dir);
	for (i = 0; i < n && real != NULL && hit == NULL; i++) {
		if (inputs[i] == NULL || stat(inputs[i], &st) != 0 || !S_ISDIR(st.st_mode) ||
		    (in = realpath(inputs[i], NULL)) == NULL)
			continue;
		len = strlen(in);
		if (strncmp(real, in, len) == 0 && (real[len] == '\0' || real[len] == '/' ||
		    strcmp(in, "/") == 0))
			hit = inputs[i];
		free(in);
	}
	free(real);
	return hit;
}

int
outfile_open(const char *path, const char *const *inputs, size_t ninputs,
    struct outfile *o, char **cause)
{
	struct stat out, ln;
	const char *slash, *in;
	char *dest;
	mode_t mask;
	int exists;

	o->path = NULL;
	o->dest = NULL;
	o->tmp = NULL;
	o->fd = -1;
	if (*path == '\0')
		return gms_fail(cause, GMS_ECONFIG, "an empty output file name");
	exists = stat(path, &out) == 0;
	if (exists) {
		if ((in = is_input(&out, inputs, ninputs)) != NULL)
			return gms_fail(cause, GMS_ECONFIG, "'%s' is the input '%s' (the same "
			    "file): write somewhere else", path, in);
		if (S_ISDIR(out.st_mode))
			return gms_fail(cause, GMS_ECONFIG, "cannot write '%s': it is a directory",
			    path);
		if (!S_ISREG(out.st_mode)) {
			/* a device or a pipe: nothing to replace, write it as it is */
			if ((o->fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
				return gms_fail(cause, GMS_EIO, "cannot write '%s': %s", path,
				    strerror(errno));
			o->path = gms_strdup(path);
			return 0;
		}
	}
	if ((in = in_input_dir(path, inputs, ninputs)) != NULL)
		return gms_fail(cause, GMS_ECONFIG, "'%s' is in the input directory '%s', which "
		    "reads it as a trace: write somewhere else", path, in);
	dest = gms_strdup(path);
	if (lstat(path, &ln) == 0 && S_ISLNK(ln.st_mode)) {
		/* the file the link names is replaced; the link stays a link */
		char *real = realpath(path, NULL);

		if (real == NULL) {
			free(dest);
			return gms_fail(cause, GMS_EIO, "cannot write '%s': a symbolic link to "
			    "nothing (%s)", path, strerror(errno));
		}
		free(dest);
		dest = gms_strdup(real);
		free(real);
	}
	/* ".gpumemsim-XXXXXX.NAME": hidden, and it keeps NAME's extension (plot's format) */
	slash = strrchr(dest, '/');
	o->tmp = gms_asprintf("%.*s.gpumemsim-XXXXXX.%s", slash ? (int)(slash - dest + 1) : 0,
	    dest, slash ? slash + 1 : dest);
	if ((o->fd = mkostemps(o->tmp, (int)strlen(slash ? slash + 1 : dest) + 1, O_CLOEXEC)) < 0) {
		int e = errno;

		free(o->tmp);
		free(dest);
		o->tmp = NULL;
		return gms_fail(cause, GMS_EIO, "cannot create '%s': %s", path, strerror(e));
	}
	tmpfiles_add(o->tmp);
	if (exists) {
		/* a file replaced keeps who may read it */
		if (fchown(o->fd, out.st_uid, out.st_gid) != 0)
			(void)fchown(o->fd, (uid_t)-1, out.st_gid);
		(void)fchmod(o->fd, out.st_mode & 07777);
	} else {
		/* mkstemp makes 0600; a new file gets what open(2) would have given it */
		mask = umask(0);
		umask(mask);
		(void)fchmod(o->fd, 0666 & ~mask);
	}
	o->path = gms_strdup(path);
	o->dest = dest;
	return 0;
}

int
outfile_commit(struct outfile *o, char **cause)
{
	int err = 0;

	if (o->fd >= 0 && close(o->fd) != 0)
		err = gms_fail(cause, GMS_EIO, "cannot write '%s': %s", o->path, strerror(errno));
	o->fd = -1;
	if (err == 0 && o->tmp != NULL && rename(o->tmp, o->dest) != 0)
		err = gms_fail(cause, GMS_EIO, "cannot write '%s': %s", o->path, strerror(errno));
	if (err < 0 && o->tmp != NULL)
		unlink(o->tmp);
	reset(o);
	return err;
}

void
outfile_abort(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp != NULL)
		unlink(o->tmp);
	reset(o);
}

int
outfile_check_stdout(const char *const *inputs, size_t ninputs, char **cause)
{
	struct stat st;
	const char *in;

	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
	    (in = is_input(&st, inputs, ninputs)) != NULL)
		return gms_fail(cause, GMS_ECONFIG, "standard output is the input '%s' (the "
		    "same file): write somewhere else", in);
	return 0;
}
