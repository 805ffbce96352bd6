/*
 * trace.h - the one event struct every trace format is read into, and the
 * reader interface: open a file of any supported format, get its header, pull
 * events one at a time.  Readers stream: memory stays bounded by the largest
 * event (16 MiB at most), never by the trace's length; only a snapshot pickle
 * is held whole, within a cap (gms_input_cap()).  The format is specified in
 * traces/FORMAT.md.
 */
#ifndef TRACE_H
#define TRACE_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

enum trace_op {
	TRACE_ALLOC,		/* input: a request for size bytes, named id */
	TRACE_FREE,		/* input: the allocation id returns to its allocator */
	TRACE_MARK,		/* input: a label (iteration, phase); no memory effect */
	TRACE_SEGMENT_ALLOC,	/* observed: the recording allocator reserved a segment */
	TRACE_SEGMENT_FREE,	/* observed: ... released one */
	TRACE_SEGMENT_MAP,	/* observed: ... mapped pages of an expandable segment */
	TRACE_SEGMENT_UNMAP,	/* observed: ... unmapped them */
	TRACE_OOM,		/* observed: ... ran out of memory here */
	TRACE_EMPTY_CACHE,	/* input: torch.cuda.empty_cache(): the framework gives
				   its cached memory back, where it can */
	TRACE_NOPS
};

/*
 * Whether path is a directory holding a TensorFlow or JAX profile (what
 * trace_open reads from it: its .xplane.pb).
 */
int trace_is_profile_dir(const char *path);

/*
 * Whether path is an RMM log (.csv, or a file starting as one): the memory
 * resources a command compares by default are then RMM's.
 */
int trace_is_rmm_log(const char *path);

/*
 * Whose allocator a trace was recorded from (TRACE_FW_*, bits so that a
 * policy can name several): its header's source.framework, else its
 * source.from, else observed.allocator ("pytorch ...", "jax", "tensorflow",
 * "rmm ..."); 0 when it does not say (a synthetic trace).
 */
#define TRACE_FW_PYTORCH 0x1u
#define TRACE_FW_TENSORFLOW 0x2u
#define TRACE_FW_JAX 0x4u
#define TRACE_FW_RMM 0x8u
struct trace_header;
unsigned trace_header_framework(const struct trace_header *hdr);

/*
 * What the recording allocator held that a replay of a profile's window
 * cannot see (a TensorFlow or JAX profile taken mid-run): its peak in use
 * before the window began (source.peak_in_use_before), else, when it handed
 * out free chunks made before the window whole, its recorded peak in the
 * window (source.peak_in_use_window).  The job needs at least that.  0 when
 * the trace does not say.  trace_peak_in_window: it is the window's;
 * trace_peak_where: which, in words ("before the profile's window ...").
 */
uint64_t trace_peak_before(const struct trace_header *hdr);
int trace_peak_in_window(const struct trace_header *hdr);
const char *trace_peak_where(const struct trace_header *hdr);
/* "PyTorch", "TensorFlow", "JAX", "RMM", or NULL for none of them. */
const char *trace_framework_name(unsigned fw);
/*
 * The same for path, read no further than it must: a snapshot pickle, a
 * PyTorch profiler trace and an RMM log by their first bytes, the rest by
 * the header its reader gives.  0 when it does not say or cannot be read
 * (the command that reads it then says why).
 */
struct trace_opts;
unsigned trace_framework(const char *path, const struct trace_opts *opts);

/*
 * The rank a distributed job's trace says it is, or -1: a PyTorch profiler
 * trace's top-level "distributedInfo": {"rank": N, ...}, which the profiler
 * writes near the start (read from the first MiB only, compressed or not).
 */
int trace_peek_rank(const char *path);

/* Whether s ends with suffix (file names: extensions). */
/* Do a file's first bytes (NUL-ended) look like an out-of-memory log (analysis/oomlog.h)? */
int trace_looks_like_oomlog(const char *head);
int trace_ends_with(const char *s, const char *suffix);

/* The op's name as it is spelled in a trace ("alloc", "segment_alloc", ...). */
const char *trace_op_name(enum trace_op op);

struct trace_event;
/* Do a and b say exactly the same: op, flags, every number and string? */
int trace_event_equal(const struct trace_event *a, const struct trace_event *b);
/*
 * Whether the framework takes back an allocation that does not fit, its
 * stack says: PyTorch's cuDNN convolutions ask for each plan's workspace
 * (at::native::run_conv_plan, the innermost frame) and, when it does not
 * fit, catch the out-of-memory error and try the next plan.
 */
int trace_oom_caught(const struct trace_event *ev);

/*
 * The bounds every reader holds a trace to, so that what one format reads
 * another can write (convert) and nothing is rounded on the way: integers
 * (ids, addresses, times, streams) below 2^53, which a JSON number holds
 * exactly (2^53 itself is also what 2^53 + 1 rounds to, so it could be
 * another id), and sizes up to 2^50 (no device has a pebibyte).
 */
#define TRACE_INT_MAX (((int64_t)1 << 53) - 1)
#define TRACE_SIZE_MAX ((int64_t)1 << 50)

/*
 * A CUDA graph's private memory pool (PyTorch's MempoolId): allocations made
 * into pool N (1..TRACE_POOL_MAX; 0 is the ordinary one) carry it in their
 * stream, as stream + N * 2^54, so that a policy that files free blocks by
 * stream never hands one pool's block to another; the native format writes
 * the two apart ("stream", "pool").
 */
#define TRACE_POOL_MAX 255
#define TRACE_POOL_UNIT ((int64_t)1 << 54)

static inline int64_t
trace_pool_stream(unsigned pool, int64_t stream)
{
	return stream + (int64_t)pool * TRACE_POOL_UNIT;
}

static inline unsigned
trace_stream_pool(int64_t key)
{
	return key >= TRACE_POOL_UNIT / 2 ? (unsigned)((key + TRACE_POOL_UNIT / 2) / TRACE_POOL_UNIT) : 0;
}

static inline int64_t
trace_stream_base(int64_t key)
{
	return key - (int64_t)trace_stream_pool(key) * TRACE_POOL_UNIT;
}

#define TRACE_HAS_ADDR   0x1
#define TRACE_HAS_TIME   0x2
#define TRACE_HAS_STREAM 0x4
#define TRACE_HAS_ID     0x8	/* an oom that names its request: the allocation
				   that failed, replayed as one (never freed) */
#define TRACE_SEEDED     0x8	/* (the same bit, on an alloc or segment_alloc)
				   live before the trace began, at its address:
				   a policy that keeps segments starts with it */
#define TRACE_HAS_INUSE  0x10	/* alloc, free: in_use, as the recording
				   allocator reported it after the event */

struct trace_event;
/*
 * Whether ev asks for memory: an alloc, or an oom that names the request
 * that failed (id, size, stream, at), which a simulation replays as an
 * allocation: under a larger capacity the job would have got it.
 */
#define trace_is_request(ev) ((ev)->op == TRACE_ALLOC || \
	((ev)->op == TRACE_OOM && ((ev)->flags & TRACE_HAS_ID)))

struct trace_event {
	enum trace_op op;
	unsigned flags;		/* TRACE_HAS_* for the optional fields */
	uint64_t id;		/* alloc, free */
	uint64_t size;		/* alloc: requested bytes; segment_*: segment bytes; oom */
	uint64_t addr;		/* alloc (recorded block address), segment_* */
	int64_t stream;		/* alloc, segment_*: 0 is the default stream */
	int64_t t_us;		/* microseconds, any epoch */
	uint64_t in_use;	/* observed (TRACE_HAS_INUSE): the recording
				   allocator's bytes in use after this event
				   (the BFC allocator's bytes_allocated) */
	const char *at;		/* alloc: program location, or NULL; owned by the
				   reader, valid until the next trace_next() */
	const char *stack;	/* alloc, oom: the whole call stack, or NULL: its
				   frames innermost first, each ended by '\n'
				   (none empty or holding one); same lifetime */
	const char *label;	/* mark: label or ""; same lifetime as at */
};

/*
 * What a trace says about itself.  The cJSON members are owned by the reader
 * (NULL when absent); device_total is 0 when unknown.
 */
struct trace_header {
	const char *name;	/* the trace's name, or its file name */
	const char *format;	/* "json", "jsonl", "pickle", "csv", "kineto",
				   "xplane" (".gz" added
				   when compressed) */
	uint64_t device_total;	/* device.total_bytes */
	int starts_mid_run;	/* recorded from a ring buffer: frees of unknown
				   ids are expected, counted and warned about */
	int ends_in_oom;	/* the recording ran out of memory (a snapshot
				   dumped at or after its OOM): what the job would
				   have done next is not in it */
	const char *cut;	/* set once the end is read, when the file was cut
				   short and its unfinished last record left out:
				   what happened (a static string); else NULL */
	cJSON *device, *source, *observed;
};

struct trace_reader;

/* How to read a trace, where a format has choices. */
struct trace_opts {
	int device;		/* PyTorch snapshots: the device trace to read;
				   -1 for the one with the most entries */
	int unknown_frees_warn;	/* not the readers': kept by trace_mem_load for
				   the runs of what it read (--unknown-frees) */
};

/*
 * Open path, recognised by extension (after ".gz") and else by content (gzip
 * is transparent): native .json/.jsonl, PyTorch snapshot .pickle, RMM .csv,
 * a TensorFlow/JAX profile .xplane.pb (or the profile directory holding it).
 * opts may be NULL for the defaults.  Returns 0, GMS_EIO (cannot open/read)
 * or GMS_ETRACE (not a trace), with *cause set on failure.
 */
int trace_open_opts(const char *path, const struct trace_opts *opts,
    struct trace_reader **out, char **cause);
int trace_open(const char *path, struct trace_reader **out, char **cause);

/*
 * Line and column of offset in buf (both 1-based): where a message about
 * JSON held in memory points (a trace's header value, a scenario file).
 */
void trace_line_col(const char *buf, size_t off, unsigned long *line, unsigned long *col);

const struct trace_header *trace_header(const struct trace_reader *r);

/*
 * Read the next event into *ev.  Returns 1 for an event, 0 at the end, or a
 * negative GMS_E* code with *cause set ("alloc without \"size\"").  The cause
 * does not name the place: trace_where() does, for the event last read or
 * attempted.
 */
int trace_next(struct trace_reader *r, struct trace_event *ev, char **cause);

/* 0-based index of the event last returned (its position in "events"). */
uint64_t trace_index(const struct trace_reader *r);

/*
 * Where the reader stands, for messages: "t.jsonl:42" or "t.json: event 17".
 * The string lives in the reader until the next call.
 */
const char *trace_where(struct trace_reader *r);

void trace_close(struct trace_reader *r);

/*
 * Fill *ev from one event object, validating types and ranges.  Shared by the
 * JSON readers; strings point into obj.  Returns 0 or GMS_ETRACE with *cause.
 */
int trace_event_from_json(const cJSON *obj, struct trace_event *ev, char **cause);

/*
 * A JSON number that must be an exact integer in [min, max]; what names the
 * field in messages.  Returns 0 or GMS_ETRACE with *cause.
 */
int trace_json_int(const cJSON *item, const char *what, int64_t min, int64_t max,
    int64_t *out, char **cause);

/*
 * Writing native traces: .json (a document), .jsonl (JSON Lines), either
 * with .gz; "-" writes JSON Lines to standard output.  Events stream out as
 * they come, in the key order of the shared samples.
 */
struct trace_writer;

/*
 * Create path (through sim/outfile.h: written beside it, renamed into place
 * by trace_writer_close; never one of inputs[0..ninputs)).  Returns 0,
 * GMS_EIO or GMS_ECONFIG (unknown extension, an input), with *cause.
 */
int trace_writer_open(const char *path, const char *const *inputs, size_t ninputs,
    struct trace_writer **out, char **cause);
/* The header (before any event): name, device, source, observed, starts_mid_run. */
int trace_writer_header(struct trace_writer *w, const struct trace_header *hdr, char **cause);
int trace_writer_event(struct trace_writer *w, const struct trace_event *ev, char **cause);
/* Finish the file; 0, or GMS_EIO when anything could not be written.  Frees w. */
int trace_writer_close(struct trace_writer *w, char **cause);
/* Remove what was written and free w, after a failure. */
void trace_writer_abort(struct trace_writer *w);

/* One event as a JSON object, keys in the order the samples use (caller deletes). */
cJSON *trace_event_to_json(const struct trace_event *ev);

#endif /* TRACE_H */
