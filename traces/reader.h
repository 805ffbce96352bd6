/*
 * reader.h - what a format reader implements, behind trace.h.  Private to
 * traces/ (t/layers.sh holds every other floor to trace.h): one ops table
 * per format (trace-json.c, which also reads profiler traces through
 * kineto.c; trace-jsonl.c; trace-pickle.c; trace-csv.c; trace-xplane.c).
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
	int fd;			/* the file under gz (gz owns it), for its tail */
	uint64_t size;		/* the file's bytes, for the progress line (0: unknown) */
	struct trace_opts opts;
	struct trace_header hdr;
	cJSON *header_json;	/* owns hdr's cJSON members */
	uint64_t index;		/* events returned so far */
	uint64_t cur;		/* index of the event last returned or attempted */
	char where[512];
	char format[16];	/* hdr.format's storage */
	char *at_buf, *label_buf, *stack_buf, *name_buf;	/* printable copies (trace_next) */
	size_t at_cap, label_cap, stack_cap;
	int printable;		/* set by a format's next: the event's strings hold
				   no control character already (trace_next
				   need not look) */
	int stable;		/* set by a format's open: its events' at and stack
				   are one copy of each string, kept until
				   trace_close (the same pointer is the same
				   string): trace_strings_stable() */
	int event_stable;	/* ... and the event last read handed them out
				   as they are (trace_next) */
	int ended;		/* the last event read: gz closed, next returns 0 */
	void *priv;		/* the format's state */
};

/*
 * Validate a header object (format, version, name, device, source, observed)
 * and take ownership of it into r->hdr.  0, or a GMS_E* code with *cause.
 */
int trace_take_header(struct trace_reader *r, cJSON *hdr, char **cause);

/* Reading a text format line by line. */
struct trace_lines {
	char *buf;		/* the current line, without its end (in data) */
	char *data;		/* what was read and not yet handed out, NUL after */
	size_t cap, start, end;
	int eof, zerr;		/* the input ended (zerr: in a gzip error) */
	char *zmsg;		/* ... zlib's words for it */
	unsigned long line;	/* 1-based number of the line last read */
	int unterminated;	/* the line last read ended the file without a newline */
};
/*
 * Read the next line into ln (its "\n" or "\r\n" removed).  Returns 1, 0 at
 * the end, or GMS_ETRACE with *cause (a NUL byte, a line over 16 MiB, a gzip
 * stream cut short).
 */
int trace_read_line(struct trace_reader *r, struct trace_lines *ln, size_t *len, char **cause);
void trace_lines_free(struct trace_lines *ln);

/*
 * The fast path for a native event object in line (NUL-terminated, changed
 * in place when it is read: strings are cut out of it, none holding a
 * control character or DEL): 1 with *ev, or 0
 * when the line needs trace_event_from_json (which then gives the same
 * event, or the error).  Never fails on its own.
 */
int trace_event_scan(char *line, struct trace_event *ev);
/*
 * The same on one line where it lies in a reader's buffer (p at its first
 * byte; the buffer NUL-terminated past what was read, and TRACE_SCAN_PAD
 * more bytes readable after the NUL: it reads words): 1 with *ev and *end
 * at the newline that ends the object, or 0 when the line must be read
 * whole (trace_read_line), also when it does not end before the buffer.
 */
#define TRACE_SCAN_PAD 16
int trace_event_scan_line(char *p, struct trace_event *ev, char **end);

/*
 * Whether the event trace_next last gave holds the format's own kept
 * strings (r->stable): its at and stack pointers then name their strings
 * until trace_close, one pointer a string.
 */
int trace_strings_stable(const struct trace_reader *r);

/* gzread the whole rest of the file into a NUL-terminated buffer. */
int trace_slurp(struct trace_reader *r, char **buf, size_t *len, char **cause);

/*
 * Whether a cJSON parse that failed at off ran out of input: cJSON reports a
 * failure past the end at the last byte, so that counts too.
 */
int trace_json_truncated(const char *buf, size_t len, size_t off);

/*
 * Whether JSON text holds the escape \u0000: cJSON's strings end at a NUL,
 * so "alloc\u0000x" would read as "alloc".  (A literal backslash before
 * "u0000" is counted too; no trace needs one.)
 */
int trace_json_has_nul(const char *buf, size_t len);
/* Where JSON text has a number with a leading zero (01: not JSON, though
   cJSON reads it), as an offset plus one; 0 when it has none. */
size_t trace_json_leading_zero(const char *buf, size_t len);


extern const struct trace_format trace_format_json;
extern const struct trace_format trace_format_jsonl;
extern const struct trace_format trace_format_pickle;
extern const struct trace_format trace_format_csv;
extern const struct trace_format trace_format_xplane;

/*
 * A stack keeps at most this many frames, in every reader: the innermost
 * half and the outermost half, with STACK_GAP between, so that a recursion
 * thousands deep (or a hostile file's) costs no more than a deep model's.
 */
#define STACK_FRAMES 256
#define STACK_GAP "(frames left out)"

#endif /* TRACE_READER_H */
