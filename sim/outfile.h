/*
 * outfile.h - writing a file the user named without ever harming another:
 * what a command writes goes to a temporary file beside the destination and
 * is renamed into place only when it is complete, so a failure leaves the
 * old file (or none) and never half of a new one; a destination that is one
 * of the command's inputs, under any name (./in.json, a symlink, a hard
 * link), or a trace's name inside an input directory (which would read it
 * as one of its traces, now or next time), is refused before anything is
 * written.  Devices and pipes (/dev/null, /dev/stdout, a FIFO) are written
 * in place, since they cannot be replaced.
 *
 * A file replaced keeps its permissions (and, where the process may, its
 * owner).  A symbolic link is followed: the file it names is replaced and
 * the link stays; one that names nothing is refused.  A file with other hard
 * links gets a new inode, so its other names keep the old contents (as
 * editors that save by renaming do).  The temporary file is removed when a
 * signal ends the command (tmpfiles.h).
 */
#ifndef SIM_OUTFILE_H
#define SIM_OUTFILE_H

#include <stddef.h>

struct outfile {
	char *path;		/* the destination, as given (for messages) */
	char *dest;		/* what is replaced: path, or the file its links name */
	char *tmp;		/* the file written, or NULL when dest itself is */
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

/*
 * Whether a file of this name is one a directory of traces holds (a
 * snapshot, a native trace, an RMM log, a profile, perhaps gzipped): what an
 * input directory expands to, so never an output inside one.
 */
int outfile_trace_like(const char *name);

/* Give up: the temporary file is removed, the destination untouched. */
void outfile_abort(struct outfile *o);

/*
 * Writing to standard output: refused (GMS_ECONFIG, with *cause) when it is
 * one of the inputs, as `convert t.jsonl - >> t.jsonl` would make it, a
 * command reading what it writes.  0 otherwise.
 */
int outfile_check_stdout(const char *const *inputs, size_t ninputs, char **cause);

#endif /* SIM_OUTFILE_H */
