/*
 * reader.h - what a format reader implements, behind trace.h.  Private to
 * traces/: one ops table per format (trace-json.c, trace-jsonl.c).
 */
#ifndef TRACE_READER_H
#define TRACE_READER_H

#include <zlib.h>

#include "traces/trace.h"

struct trace_reader;

struct trace_format {
	const char *name;
	/* Read the header; the reader's file is open at offset 0. */
	int (*open)(struct trace_reader *r, char **cause);
	/* As trace_next(); r->index is advanced by the caller. */
	int (*next)(struct trace_reader *r, struct trace_event *ev, char **cause);
	/* Describe the current position into r->where. */
	void (*where)(struct trace_reader *r);
	void (*close)(struct trace_reader *r);
};

struct trace_reader {
	const struct trace_format *fmt;
	char *path;		/* as given by the user, for messages */
	gzFile gz;		/* every format reads through zlib: plain files too */
	int compressed;
	struct trace_header hdr;
	cJSON *header_json;	/* owns hdr's cJSON members */
	uint64_t index;		/* events returned so far */
	uint64_t cur;		/* index of the event last returned or attempted */
	char where[512];
	void *priv;		/* the format's state */
};

/*
 * Validate a header object (format, version, name, device, source, observed)
 * and take ownership of it into r->hdr.  events_key: whether "events" may be
 * present (the document form).
 */
int trace_take_header(struct trace_reader *r, cJSON *hdr, char **cause);

/* gzread the whole rest of the file into a NUL-terminated buffer. */
int trace_slurp(struct trace_reader *r, char **buf, size_t *len, char **cause);

/*
 * Whether a cJSON parse that failed at off ran out of input: cJSON reports a
 * failure past the end at the last byte, so that counts too.
 */
int trace_json_truncated(const char *buf, size_t len, size_t off);

/* Line and column of offset in buf (both 1-based). */
void trace_line_col(const char *buf, size_t off, unsigned long *line, unsigned long *col);

extern const struct trace_format trace_format_json;
extern const struct trace_format trace_format_jsonl;

#endif /* TRACE_READER_H */
