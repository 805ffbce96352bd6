/*
 * t/input.c - an input that changes while it is read (traces/input.c): with
 * inputs watched, as the command line watches them, a file rewritten
 * between two reads, or during one, is refused at the next open or at the
 * end of the read; the same file read twice unchanged is read twice; a
 * file's identity is kept only while watching is on.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/gms.h"
#include "t/tap.h"
#include "t/tfile.h"
#include "traces/input.h"
#include "traces/trace.h"

static const char trace_text[] =
    "{\"format\":\"gpumemsim-trace\",\"version\":1}\n"
    "{\"op\":\"alloc\",\"id\":1,\"size\":512}\n"
    "{\"op\":\"free\",\"id\":1}\n";

/* Read path to its end: 0, or the error code (*cause set). */
static int
read_all(const char *path, char **cause)
{
	struct trace_reader *r;
	struct trace_event ev;
	int rc;

	if ((rc = trace_open(path, &r, cause)) < 0)
		return rc;
	while ((rc = trace_next(r, &ev, cause)) == 1)
		;
	trace_close(r);
	return rc;
}

/* Give path another modification time, its bytes as they are. */
static void
touch_later(const char *path, long sec)
{
	struct timespec ts[2] = { { .tv_sec = sec }, { .tv_sec = sec } };

	utimensat(AT_FDCWD, path, ts, 0);
}

int
main(void)
{
	char *path = tfile_write(".jsonl", trace_text, sizeof(trace_text) - 1, 0);
	char *cause = NULL, *other;
	struct trace_reader *r;
	struct trace_event ev;
	int rc;

	/* not watched: a library user may rewrite its own file between reads */
	ok(read_all(path, &cause) == 0, "unwatched: read");
	touch_later(path, 1000000);
	ok(read_all(path, &cause) == 0, "unwatched: read again after a change, no identity kept");

	input_watch(1);
	ok(read_all(path, &cause) == 0 && read_all(path, &cause) == 0,
	    "watched: the same file read twice unchanged is read twice");

	/* rewritten between two reads */
	touch_later(path, 2000000);
	rc = read_all(path, &cause);
	ok(rc == GMS_ETRACE && cause != NULL && strstr(cause, "changed while it was being read "
	    "(its modification time differs)") != NULL, "a file touched between two reads: "
	    "refused at the second open (%s)", cause ? cause : "no cause");
	free(cause);
	cause = NULL;

	/* replaced by another file (a new inode) of the same bytes */
	other = tfile_write(".jsonl", trace_text, sizeof(trace_text) - 1, 0);
	rename(other, path);
	free(other);
	rc = read_all(path, &cause);
	ok(rc == GMS_ETRACE && cause != NULL && strstr(cause, "was replaced by another file") !=
	    NULL, "a file replaced by a rename between two reads: refused (%s)",
	    cause ? cause : "no cause");
	free(cause);
	cause = NULL;

	/* changed during one read: found at its end */
	other = tfile_write(".jsonl", trace_text, sizeof(trace_text) - 1, 0);
	ok(trace_open(other, &r, &cause) == 0 && trace_next(r, &ev, &cause) == 1,
	    "a fresh file: opened, one event read");
	{
		FILE *f = fopen(other, "a");

		fputs("{\"op\":\"mark\"}\n", f);
		fclose(f);
	}
	while ((rc = trace_next(r, &ev, &cause)) == 1)
		;
	ok(rc == GMS_ETRACE && cause != NULL && strstr(cause, "its size differs") != NULL,
	    "a file appended to during the read: refused at the end of the read (%s)",
	    cause ? cause : "no cause");
	free(cause);
	trace_close(r);

	unlink(path);
	unlink(other);
	free(path);
	free(other);
	return tap_done();
}
