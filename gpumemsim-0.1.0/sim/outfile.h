/*
 * outfile.h - writing a file the user named without ever harming another:
 * what a command writes goes to a temporary file beside the destination and
 * is renamed into place only when it is complete, so a failure leaves the
 * old file (or none) and never half of a new one; a destination that is one
 * of the command's inputs, under any name (./in.json, a symlink, a hard
 * link), is refused before anything is written.  Devices and pipes
 * (/dev/null, /dev/stdout, a FIFO) are written in place, since they cannot
 * be replaced.
 */
#ifndef SIM_OUTFILE_H
#define SIM_OUTFILE_H

#include <stddef.h>

struct outfile {
	char *path;		/* the destination, as given */
	char *tmp;		/* the file written, or NULL when path itself is */
	int fd;			/* open for writing; -1 once handed on or closed */
};

/*
 * Prepare to write path.  inputs[0..ninputs) are the files the command reads
 * (NULL entries and "-" are skipped).  Returns 0 with o->fd open, or
 * GMS_ECONFIG (path is an input, or a directory) or GMS_EIO, with *cause.
 */
int outfile_open(const char *path, const char *const *inputs, size_t ninputs,
    struct outfile *o, char **cause);

/*
 * The finished file goes into place (o->fd must be closed by then, by
 * whoever took it over, or is closed here when still open).  0, or GMS_EIO
 * with *cause; either way o is released.
 */
int outfile_commit(struct outfile *o, char **cause);

/* Give up: the temporary file is removed, the destination untouched. */
void outfile_abort(struct outfile *o);

#endif /* SIM_OUTFILE_H */
