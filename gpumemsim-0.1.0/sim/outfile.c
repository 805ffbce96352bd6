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

static void
reset(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	o->path = NULL;
	o->tmp = NULL;
	o->fd = -1;
}

int
outfile_open(const char *path, const char *const *inputs, size_t ninputs,
    struct outfile *o, char **cause)
{
	struct stat out, in;
	const char *slash;
	mode_t mask;
	size_t i;

	o->path = NULL;
	o->tmp = NULL;
	o->fd = -1;
	if (*path == '\0')
		return gms_fail(cause, GMS_ECONFIG, "an empty output file name");
	if (stat(path, &out) == 0) {
		for (i = 0; i < ninputs; i++) {
			if (inputs[i] == NULL || strcmp(inputs[i], "-") == 0)
				continue;
			if (stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev &&
			    in.st_ino == out.st_ino)
				return gms_fail(cause, GMS_ECONFIG, "'%s' is the input '%s' (the same "
				    "file): write somewhere else", path, inputs[i]);
		}
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
	/* ".gpumemsim-XXXXXX.NAME": hidden, and it keeps NAME's extension (plot's format) */
	slash = strrchr(path, '/');
	o->tmp = gms_asprintf("%.*s.gpumemsim-XXXXXX.%s", slash ? (int)(slash - path + 1) : 0,
	    path, slash ? slash + 1 : path);
	if ((o->fd = mkostemps(o->tmp, (int)strlen(slash ? slash + 1 : path) + 1, O_CLOEXEC)) < 0) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		return gms_fail(cause, GMS_EIO, "cannot create '%s': %s", path, strerror(e));
	}
	/* mkstemp makes 0600; a new file gets what open(2) would have given it */
	mask = umask(0);
	umask(mask);
	(void)fchmod(o->fd, 0666 & ~mask);
	o->path = gms_strdup(path);
	return 0;
}

int
outfile_commit(struct outfile *o, char **cause)
{
	int err = 0;

	if (o->fd >= 0 && close(o->fd) != 0)
		err = gms_fail(cause, GMS_EIO, "cannot write '%s': %s", o->path, strerror(errno));
	o->fd = -1;
	if (err == 0 && o->tmp != NULL && rename(o->tmp, o->path) != 0)
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
