/*
 * trace-pickle.c - PyTorch memory snapshots (torch.cuda.memory._dump_snapshot,
 * a pickle; also the C++ path's, protocol 2) read as a trace.  The device
 * trace with the most entries is used unless one is chosen; its entries map
 * to events as the shared .json samples do: alloc (requested size, address,
 * stream, the first frame outside PyTorch's own plumbing as `at`, time),
 * free_completed as the free (the moment the block is reusable),
 * segment_alloc/free/map/unmap and oom as observed events; free_requested and
 * snapshot entries are dropped.  Ids are numbered from 1 in alloc order.
 *
 * Snapshots recorded from a ring buffer, or after the job had started, miss
 * the beginning: blocks freed with no recorded alloc, and blocks still live
 * at the end (in the snapshot's `segments`) that were never allocated in the
 * trace.  Those are seeded: allocated at the start, in address order, after
 * observed segment_alloc events for the segments that existed before the
 * first entry; the header says starts_mid_run and `source.seeded` what was
 * made up.  What cannot be known is when they were allocated, and in what
 * order.
 *
 * The file is read once, streamed (pickle.h's pickle_read): each trace
 * entry becomes a compact record as it completes (its frames reduced to the
 * id of their summary: site, stack and who released, each distinct list of
 * frames summarized once) and is let go; records past RECS_IN_MEMORY (16
 * MiB) go to an unlinked temporary file.  What the header needs from the
 * whole trace (the seeds, the limits, what the recording observed) is found
 * from the records before the first event; events are then made from them
 * as asked.  Memory follows what the snapshot keeps (its segments, distinct
 * frames and stacks, the blocks live), plus 4 bytes for each memo slot the
 * pickle uses (about 3 an entry): not the entries themselves.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uthash.h>

#include "sim/gms.h"
#include "sim/sizeclass.h"
#include "traces/pickle.h"
#include "traces/reader.h"

/*
 * Frames of PyTorch's own plumbing: `at` names the caller instead.  Matched
 * on paths with '/' (Windows' backslashes are turned first); the modules
 * (torch/nn/modules/) stay sites: they say which layer allocated.  Code that
 * TorchInductor generates lives in its cache directory (torchinductor_USER).
 */
static const char *const plumbing[] = {
	"torch/nn/functional.py", "torch/_jit_internal.py", "torch/autograd/",
	"torch/optim/", "torch/_ops.py", "torch/utils/", "torch/_tensor_str.py",
	"torch/functional.py", "torch/_tensor.py", "torch/_functorch/", "torch/_dynamo/",
	"torch/_inductor/", "torchinductor_", "torch/_higher_order_ops/", "torch/_prims",
	"torch/_refs/", "torch/_decomp/", "torch/fx/", "torch/_subclasses/",
	"torch/overrides.py", "torch/_library/", "torch/_compile.py", "torch/amp/",
	"torch/cuda/amp/", "torch/_C/", "torch/random.py", "torch/_utils.py",
	NULL,
};

/* A frame's file with '/' for '\\' (Windows), in buf. */
static const char *
slashed(const char *file, char *buf, size_t len)
{
	size_t i;

	for (i = 0; file[i] != '\0' && i + 1 < len; i++)
		buf[i] = file[i] == '\\' ? '/' : file[i];
	buf[i] = '\0';
	return buf;
}

/* A site's text, kept once however many events name it. */
struct site_str {
	UT_hash_handle hh;
	char s[];
};

/*
 * What a list of frames says, summarized once: its site, its stack, who
 * released a segment (released_by_walk).  Summary 0 is no frames.
 */
struct summary {
	const char *at, *stack;
	int released;
};

/*
 * A list of frames already summarized: by its address (a list PyTorch hands
 * every block and entry with the same traceback; dropped when the list is
 * let go with its entry), or by its items' addresses (the frame dicts the
 * pickle shares, pinned so that they stay theirs).
 */
struct fmemo {
	const struct pk_val *frames;
	const struct pk_val **items;	/* the key, by content */
	uint32_t sid;
	UT_hash_handle hh;
};

/*
 * Walks that descend through values the memo may share.  A pickle may name
 * one list or dict from many places, so walking what every reference holds
 * can cost far more than the file has bytes (a 16 KB file whose segments all
 * share one list of blocks unfolds to millions).  What the walks read below
 * the top-level lists (the entries of every device trace, the blocks of every
 * segment, every frame, its keys and its strings) is charged against
 * WALK_PER_BYTE steps per byte of the file, counted before expanding where a
 * list's length tells it, and a file past that is refused.  PyTorch's own
 * snapshots take under 1 step a byte (0.87 at most of the 40 in the tree).
 */
#define WALK_PER_BYTE 16u
#define WALK_FLOOR (1u << 16)
/* A block is read through several keys and becomes an event. */
#define WALK_PER_BLOCK 8u
/* A trace entry, segment, block or frame has about 3 to 12 keys. */
#define DICT_KEYS_MAX 64

struct walk {
	uint64_t budget, used;
	uint64_t len;			/* the file's bytes (read so far) */
	const char *over;		/* what went past the budget, or NULL */
};

/* One trace entry kept, compactly (kinds past KIND_KEPT are not kept). */
struct rec {
	uint64_t addr, size;
	int64_t stream, t;		/* t < 0: no time */
	uint32_t sid;			/* its frames' summary */
	int8_t kind;
};

/* A device's records, in order: the first nspill in a temporary file. */
#define RECS_IN_MEMORY ((size_t)(16u << 20) / sizeof(struct rec))
#define RECS_BLOCK 4096
struct recs {
	struct rec *mem;
	size_t n, cap;
	int fd;				/* -1 until spilled */
	uint64_t nspill;
};

/* Reads records by index, a block of the file at a time. */
struct cursor {
	const struct recs *rs;
	struct rec *blk;
	uint64_t first;
	size_t nblk;
};

struct dev;

struct pickle_state {
	struct site_str *sites;		/* the events' at, each text once */
	struct walk walk;
	uint64_t stack_bytes;		/* stack text handed out so far (frame_stack) */
	struct pickle *pk;
	struct summary *sum;		/* by sid */
	size_t nsum, sumcap;
	struct fmemo *byptr, *bycontent;
	struct fmemo **batch;		/* byptr entries made while a batch is read */
	size_t nbatch, batchcap;
	struct dev **dev;		/* by device, while reading */
	size_t ndev;
	struct dev *chosen;		/* the device read */
	struct pools *pools;
	struct emitter *em;		/* the events, once open */
	gzFile gz;
};

/* Charge n steps of what; 0, or -1 once the walk is past its budget. */
static int
charge(struct walk *w, uint64_t n, const char *what)
{
	if (w->over != NULL)
		return -1;
	w->used += n;
	if (w->used > w->budget) {
		w->over = what;
		return -1;
	}
	return 0;
}

static int
walk_fail(const struct walk *w, char **cause)
{
	return gms_fail(cause, GMS_ETRACE, "reading it would take more than %llu steps (%u for "
	    "each of its %zu bytes): its %s are named from many places through the pickle's "
	    "memo, a reference bomb, not a snapshot PyTorch writes",
	    (unsigned long long)w->budget, WALK_PER_BYTE, w->len, w->over);
}

/* The one copy of site s (taken: freed when already kept), or NULL for NULL. */
static const char *
intern_site(struct pickle_state *st, char *s)
{
	struct site_str *e;
	size_t n;

	if (s == NULL)
		return NULL;
	n = strlen(s);
	HASH_FIND(hh, st->sites, s, n, e);
	if (e == NULL) {
		e = gms_malloc(sizeof(*e) + n + 1);
		memcpy(e->s, s, n + 1);
		HASH_ADD_KEYPTR(hh, st->sites, e->s, n, e);
	}
	free(s);
	return e->s;
}

/* A dict with more keys than any snapshot's entries, segments, blocks or frames. */
static int
too_many_keys(const struct pk_val *d)
{
	return pk_is(d, PK_DICT) && d->u.seq.n / 2 > DICT_KEYS_MAX;
}

/*
 * The steps reading frame f costs: a step and its keys (its strings are
 * charged once each, by str_class()).  -1 for a frame no snapshot holds.
 */
static int
charge_frame(struct walk *w, const struct pk_val *f)
{
	if (too_many_keys(f))
		return charge(w, w->budget + 1, "frames");	/* not a frame */
	return charge(w, 1 + (pk_is(f, PK_DICT) ? f->u.seq.n : 0), "frames");
}

struct addr_id {
	uint64_t addr, id, size;
	UT_hash_handle hh;
};

/*
 * C++ frames that say nothing about who allocated: the stack unwinder, the
 * interpreter, the allocator, the dispatcher's and the tensor factories'
 * plumbing (PyTorch's memory viewer hides the first ones too).
 */
static const char *const cpp_plumbing[] = {
	"unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp", "_start",
	"__libc_start_main", "PyEval_", "PyObject_", "PyFunction_", "_PyEval", "_PyObject",
	"CUDACachingAllocator", "c10::cuda::", "c10::Dispatcher", "c10::impl::",
	"c10::BoxedKernel", "c10::KernelFunction", "c10::OperatorHandle", "at::_ops::",
	"wrap_kernel_functor", "at::detail::empty", "at::empty", "at::native::empty",
	"at::(anonymous namespace)::", "c10::callUnboxedKernelFunction", "at::TensorBase::",
	"c10::StorageImpl", "c10::DataPtr", "c10::Allocator", "std::", "torch::autograd::Engine::",
	"torch::autograd::python::PythonEngine", "torch::autograd::impl::", NULL,
};

static int
is_python(const struct pk_val *file)
{
	size_t n = file->u.str.len;

	return n > 3 && strcmp(file->u.str.s + n - 3, ".py") == 0;
}

static int
contains_any(const char *s, const char *const *list)
{
	int i;

	for (i = 0; list[i] != NULL; i++)
		if (strstr(s, list[i]) != NULL)
			return 1;
	return 0;
}

/* C++ files whose frames say nothing: the dispatcher's, the interpreter's. */
static const char *const cpp_noise_files[] = {
	"core/boxing", "/Register", "/Redispatch", "pythonrun.c", "Modules/main.c", "Objects/",
	"ceval", "abstract.h", NULL,
};

/*
 * What a frame's string is, kept in its mark: a snapshot names one path or
 * C++ name from thousands of frames through the memo, so each string is
 * read once, and charged its length once.
 */
#define S_KNOWN		0x01
#define S_PLUMBING	0x02	/* as a Python path: PyTorch's own plumbing */
#define S_NOISE_FILE	0x04	/* as a C++ file: cpp_noise_files */
#define S_CPP_PLUMBING	0x08	/* as a C++ name: cpp_plumbing */
#define S_NODE		0x10	/* as a C++ name: may be an autograd node's apply */
#define S_EMPTY_CACHE	0x20	/* as a C++ or Python name: torch.cuda.empty_cache() */
#define S_MALLOC	0x40	/* as a C++ name: the allocator's own malloc */

static unsigned
str_class(struct walk *w, const struct pk_val *s)
{
	unsigned m = pk_mark(s);
	char buf[4096];

	if (m & S_KNOWN)
		return m;
	if (charge(w, s->u.str.len, "frames") < 0)
		return S_KNOWN;
	m = S_KNOWN;
	if (contains_any(slashed(s->u.str.s, buf, sizeof(buf)), plumbing))
		m |= S_PLUMBING;
	if (contains_any(s->u.str.s, cpp_noise_files))
		m |= S_NOISE_FILE;
	if (contains_any(s->u.str.s, cpp_plumbing))
		m |= S_CPP_PLUMBING;
	if (strstr(s->u.str.s, "::apply(") != NULL && strstr(s->u.str.s, "Backward") != NULL)
		m |= S_NODE;
	if (strstr(s->u.str.s, "emptyCache") != NULL || strcmp(s->u.str.s, "empty_cache") == 0)
		m |= S_EMPTY_CACHE;
	if (strstr(s->u.str.s, "CachingAllocator::malloc(") != NULL)
		m |= S_MALLOC;
	pk_set_mark(s, (unsigned char)m);
	return m;
}

/*
 * An autograd node's apply ("torch::autograd::generated::MmBackward0::apply(...)"):
 * its class name into buf, or 0.
 */
static int
autograd_node(const char *fn, char *buf, size_t len)
{
	const char *apply = strstr(fn, "::apply("), *start;

	if (apply == NULL || strstr(fn, "Backward") == NULL)
		return 0;
	for (start = apply; start > fn && !(start[-1] == ':' && start - 1 > fn && start[-2] == ':');
	    start--)
		;
	if (strstr(start, "Backward") == NULL || strstr(start, "Backward") > apply)
		return 0;
	snprintf(buf, len, "%.*s", (int)(apply - start), start);
	return 1;
}

/* A C++ name without its argument list ("(anonymous namespace)" kept). */
static char *
cpp_name(const char *fn)
{
	const char *p = strchr(fn, '(');

	while (p != NULL && strncmp(p, "(anonymous namespace)", 21) == 0)
		p = strchr(p + 21, '(');
	return p ? gms_asprintf("%.*s", (int)(p - fn), fn) : gms_strdup(fn);
}

/*
 * The allocation's site, from its frames (innermost first): the first Python
 * frame outside PyTorch's own plumbing ("conv.py:548 _conv_forward"), else
 * the first Python frame; else (the autograd engine's backward thread has no
 * Python frames) the autograd node that ran ("AddmmBackward0 (backward)"),
 * else the first C++ frame that is not plumbing, named without its argument
 * list.  NULL when none.
 */
static char *
site_of(struct walk *w, const struct pk_val *frames)
{
	const struct pk_val *f, *file, *line, *name, *py = NULL, *user = NULL, *cpp = NULL;
	const struct pk_val *pick;
	const char *base, *fn, *path;
	char node[256] = "", buf[4096];
	unsigned fc, nc;
	size_t i;

	for (i = 0; i < pk_len(frames) && user == NULL; i++) {
		f = pk_item(frames, i);
		if (charge_frame(w, f) < 0)
			return NULL;
		file = pk_get(f, "filename");
		name = pk_get(f, "name");
		if (!pk_is(file, PK_STR))
			continue;
		fn = pk_is(name, PK_STR) ? name->u.str.s : "";
		fc = str_class(w, file);
		nc = pk_is(name, PK_STR) ? str_class(w, name) : S_KNOWN;
		if (w->over != NULL)
			return NULL;
		if (is_python(file)) {
			if (py == NULL)
				py = f;
			if (!(fc & S_PLUMBING))
				user = f;
		} else if (node[0] == '\0' && (nc & S_NODE) &&
		    charge(w, name->u.str.len, "frames") == 0 && autograd_node(fn, node, sizeof(node))) {
			continue;
		} else if (cpp == NULL && *fn != '\0' && !(nc & S_CPP_PLUMBING) &&
		    !(fc & S_NOISE_FILE)) {
			cpp = f;
		}
	}
	if (w->over != NULL)
		return NULL;
	pick = user ? user : py;
	if (pick == NULL && node[0] != '\0')
		return gms_asprintf("%s (backward)", node);
	/* the site is built, and interned, from its strings: their length each time */
	if (pick == NULL && cpp != NULL)
		return charge(w, pk_get(cpp, "name")->u.str.len, "frames") < 0 ? NULL :
		    cpp_name(pk_get(cpp, "name")->u.str.s);
	if (pick == NULL)
		return NULL;
	file = pk_get(pick, "filename");
	line = pk_get(pick, "line");
	name = pk_get(pick, "name");
	if (charge(w, GMS_MIN(file->u.str.len, sizeof(buf)) + (pk_is(name, PK_STR) ?
	    name->u.str.len : 0), "frames") < 0)
		return NULL;
	path = slashed(file->u.str.s, buf, sizeof(buf));
	base = strrchr(path, '/');
	/* a line that is not a number (C++ frames may say 2^64 - 1) is unknown: not shown */
	if (!pk_is(line, PK_INT) || line->u.i <= 0)
		return gms_asprintf("%s %s", base ? base + 1 : path,
		    pk_is(name, PK_STR) ? name->u.str.s : "?");
	return gms_asprintf("%s:%lld %s", base ? base + 1 : path, (long long)line->u.i,
	    pk_is(name, PK_STR) ? name->u.str.s : "?");
}

/*
 * The interpreter's and the C runtime's own frames, by name: CPython's API
 * ("PyMethod_New", "_PyRun_SimpleFileObject", "Py_RunMain") and libc's
 * start.  PyTorch symbolizes the interpreter's C frames by the nearest
 * exported name, which says nothing of the program.
 */
static int
interpreter_frame(const char *fn)
{
	if (fn[0] == '_' && fn[1] == 'P' && fn[2] == 'y')
		fn++;
	if (fn[0] == 'P' && fn[1] == 'y' && ((fn[2] >= 'A' && fn[2] <= 'Z') || fn[2] == '_'))
		return 1;
	return strncmp(fn, "__libc_", 7) == 0 || strcmp(fn, "_start") == 0;
}

/*
 * The whole stack of frames, for attribution by stack (trace.h's `stack`):
 * innermost first, each ended by '\n'.  A Python frame is "path:line name"
 * (its path as recorded, '/' for '\\'); a C++ frame its name without the
 * argument list.  The frames that say nothing about who allocated are left
 * out, as from the site: the unwinder's, the interpreter's, the allocator's
 * and the dispatcher's C++.  PyTorch lists a stack's C++ frames first, its
 * Python frames where the interpreter ran them and the rest after the C
 * stack's end; without the interpreter's frames that reads innermost first.
 * NULL when no frame is left.
 */

/* Frame f as a stack's line, into out at *len (grown to *cap). */
static void
stack_line(const struct pk_val *f, char **out, size_t *len, size_t *cap)
{
	const struct pk_val *file = pk_get(f, "filename"), *line = pk_get(f, "line");
	const struct pk_val *name = pk_get(f, "name");
	char pathbuf[4096], *fr;
	size_t n;

	if (!is_python(file))
		fr = cpp_name(name->u.str.s);
	else if (pk_is(line, PK_INT) && line->u.i > 0)
		fr = gms_asprintf("%s:%lld %s", slashed(file->u.str.s, pathbuf, sizeof(pathbuf)),
		    (long long)line->u.i, name->u.str.s);
	else
		fr = gms_asprintf("%s %s", slashed(file->u.str.s, pathbuf, sizeof(pathbuf)),
		    name->u.str.s);
	/* a frame of one line, never empty: trace.h's form */
	for (n = 0; fr[n] != '\0'; n++)
		if (fr[n] == '\n' || fr[n] == '\r')
			fr[n] = ' ';
	if (*len + n + 2 > *cap)
		*out = gms_realloc(*out, *cap = 2 * (*len + n + 2) + 256);
	memcpy(*out + *len, fr, n);
	(*out)[*len + n] = '\n';
	*len += n + 1;
	(*out)[*len] = '\0';
	free(fr);
}

static char *
stack_of(struct walk *w, const struct pk_val *frames)
{
	const struct pk_val *f, *file, *name;
	size_t *keep = NULL, nkeep = 0, len = 0, cap = 0, before = 0, i;
	char *out = NULL;
	unsigned fc, nc;

	/* which frames: classified by their strings, each read once */
	for (i = 0; i < pk_len(frames); i++) {
		f = pk_item(frames, i);
		if (charge_frame(w, f) < 0)
			break;
		file = pk_get(f, "filename");
		name = pk_get(f, "name");
		if (!pk_is(file, PK_STR) || !pk_is(name, PK_STR) || name->u.str.s[0] == '\0')
			continue;
		fc = str_class(w, file);
		nc = str_class(w, name);
		if (w->over != NULL)
			break;
		if (!is_python(file) && ((nc & S_CPP_PLUMBING) || (fc & S_NOISE_FILE) ||
		    interpreter_frame(name->u.str.s)))
			continue;
		if (nkeep % 256 == 0)
			keep = gms_realloc(keep, (nkeep + 256) * sizeof(*keep));
		keep[nkeep++] = i;
	}
	/* then the text of those kept, its length charged */
	for (i = 0; i < nkeep && w->over == NULL; i++) {
		if (nkeep > STACK_FRAMES && i == STACK_FRAMES / 2) {
			if (len + sizeof(STACK_GAP) + 1 > cap)
				out = gms_realloc(out, cap = 2 * (len + sizeof(STACK_GAP) + 1));
			len += (size_t)sprintf(out + len, "%s\n", STACK_GAP);
			i = nkeep - STACK_FRAMES / 2;
		}
		/* the text made is charged (a path is cut at 4 KiB): a memo can name
		   one long path from every frame of every stack */
		stack_line(pk_item(frames, keep[i]), &out, &len, &cap);
		charge(w, len - before, "frames");
		before = len;
	}
	free(keep);
	if (w->over != NULL) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * Stack text handed out, summed over the events: every reader of the trace
 * (convert, the attribution) reads it again for each event, so a list of
 * long frames named by thousands of entries through the memo would make a
 * small file gigabytes of stacks.  Past STACK_BYTES_PER_BYTE bytes for each
 * byte of the file (STACK_BYTES_MIN at least) events get no stack; PyTorch's
 * own snapshots hand out 0.85 to 2.8 bytes per byte.
 */
#define STACK_BYTES_PER_BYTE 32u
#define STACK_BYTES_MIN ((uint64_t)16 << 20)

/* The length of an interned string (intern_site's). */
static size_t
interned_len(const char *s)
{
	return ((const struct site_str *)(const void *)(s - offsetof(struct site_str, s)))->hh.keylen;
}

/* The stack of summary sid, as handed out to an event: NULL when none, or past the allowance. */
static const char *
frame_stack(struct pickle_state *st, uint32_t sid)
{
	uint64_t allowed = GMS_MAX(STACK_BYTES_MIN, st->walk.len * STACK_BYTES_PER_BYTE);
	const char *stack = st->sum[sid].stack;

	if (st->stack_bytes >= allowed)
		return NULL;
	if (stack != NULL)
		st->stack_bytes += interned_len(stack);
	return stack;
}

static int released_by_walk(struct walk *w, const struct pk_val *frames);

/* A list's items' addresses hashed a word at a time (uthash's own hash reads bytes). */
static unsigned
items_hash(const struct pk_val *const *items, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (uint64_t)(uintptr_t)items[i];
		h *= 0xff51afd7ed558ccdu;
		h ^= h >> 29;
	}
	return (unsigned)(h ^ h >> 32);
}

static void
fmemo_free(struct fmemo **h)
{
	struct fmemo *m, *tmp;

	HASH_ITER(hh, *h, m, tmp) {
		HASH_DEL(*h, m);
		free(m->items);
		free(m);
	}
}

/*
 * The summary of an entry's (or a block's) frames: made once for each list,
 * and once for lists of the same frame dicts.  While entry's batch streams,
 * the list is let go with it and the memo names the summary instead (a
 * PK_REF); a later entry that names the list again reads the summary.
 */
static uint32_t
sid_of(struct pickle_state *st, const struct pk_val *entry, const struct pk_val *frames)
{
	const struct pk_val **items;
	struct summary *su;
	struct fmemo *m;
	size_t n = pk_len(frames), i;
	unsigned hv = 0;
	int keyed = 0;

	if (pk_is(frames, PK_REF))
		return frames->u.i > 0 && (uint64_t)frames->u.i < st->nsum ? (uint32_t)frames->u.i : 0;
	if (n == 0) {
		if (entry != NULL && (pk_is(frames, PK_LIST) || pk_is(frames, PK_TUPLE)))
			pk_stub(st->pk, entry, frames, 0);
		return 0;
	}
	HASH_FIND_PTR(st->byptr, &frames, m);
	if (m != NULL)
		return m->sid;
	m = gms_calloc(1, sizeof(*m));
	m->frames = frames;
	if (pk_items_shared(frames)) {
		struct fmemo *c;

		/* the list's own item array is the key looked up; copied when kept */
		items = (const struct pk_val **)frames->u.seq.items;
		hv = items_hash(items, n);
		HASH_FIND_BYHASHVALUE(hh, st->bycontent, items, n * sizeof(*items), hv, c);
		if (c != NULL)
			m->sid = c->sid;
		keyed = c == NULL;
	}
	if (m->sid == 0) {
		if (st->nsum == st->sumcap) {
			st->sumcap = st->sumcap ? 2 * st->sumcap : 256;
			st->sum = gms_realloc(st->sum, st->sumcap * sizeof(*st->sum));
		}
		su = &st->sum[st->nsum];
		su->at = intern_site(st, site_of(&st->walk, frames));
		su->stack = intern_site(st, stack_of(&st->walk, frames));
		su->released = released_by_walk(&st->walk, frames);
		m->sid = (uint32_t)st->nsum++;
		if (keyed) {
			struct fmemo *c = gms_calloc(1, sizeof(*c));

			/* the frame dicts stay: their addresses are the key */
			c->items = gms_malloc(n * sizeof(*c->items));
			for (i = 0; i < n; i++) {
				c->items[i] = pk_item(frames, i);
				pk_pin(c->items[i]);
			}
			c->sid = m->sid;
			HASH_ADD_KEYPTR_BYHASHVALUE(hh, st->bycontent, c->items, n * sizeof(*c->items),
			    hv, c);
		}
	}
	HASH_ADD_PTR(st->byptr, frames, m);
	if (entry != NULL) {
		pk_stub(st->pk, entry, frames, m->sid);
		if (st->nbatch == st->batchcap) {
			st->batchcap = st->batchcap ? 2 * st->batchcap : 1024;
			st->batch = gms_realloc(st->batch, st->batchcap * sizeof(*st->batch));
		}
		st->batch[st->nbatch++] = m;
	}
	return m->sid;
}

/* A batch of entries was let go: forget the lists that went with them. */
static void
batch_end(struct pickle_state *st)
{
	size_t i;

	for (i = 0; i < st->nbatch; i++)
		if (pk_gone(st->batch[i]->frames)) {
			HASH_DEL(st->byptr, st->batch[i]);
			free(st->batch[i]);
		}
	st->nbatch = 0;
}

/* An integer field of a trace entry; -1 and *cause when missing or wrong. */
/* What the native format's readers accept (trace.c): converting must never write more. */

static int
field(const struct pk_val *e, const char *key, size_t idx, int64_t min, int64_t max,
    int64_t *out, char **cause)
{
	const struct pk_val *v = pk_get(e, key);

	if (v == NULL)
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu has no \"%s\"", idx, key);
	if (!pk_is(v, PK_INT))
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu: \"%s\" is not an integer",
		    idx, key);
	if (v->u.i < min || v->u.i > max)
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu: \"%s\" out of range: %lld",
		    idx, key, (long long)v->u.i);
	*out = v->u.i;
	return 0;
}

static void
clear_map(struct addr_id **map)
{
	struct addr_id *a, *tmp;

	HASH_ITER(hh, *map, a, tmp) {
		HASH_DEL(*map, a);
		free(a);
	}
}

static struct addr_id *
map_add(struct addr_id **map, uint64_t addr, uint64_t id, uint64_t size)
{
	struct addr_id *a = gms_calloc(1, sizeof(*a));

	a->addr = addr;
	a->id = id;
	a->size = size;
	HASH_ADD(hh, *map, addr, sizeof(a->addr), a);
	return a;
}

static struct addr_id *
map_find(struct addr_id *map, uint64_t addr)
{
	struct addr_id *a;

	HASH_FIND(hh, map, &addr, sizeof(addr), a);
	return a;
}

/* The actions a trace entry may have; those past KIND_KEPT are dropped. */
static const char *const action_names[] = {
	"alloc", "free_completed", "segment_alloc", "segment_free", "segment_map",
	"segment_unmap", "oom", "free_requested", "snapshot", NULL,
};
static const enum trace_op action_ops[] = {
	TRACE_ALLOC, TRACE_FREE, TRACE_SEGMENT_ALLOC, TRACE_SEGMENT_FREE,
	TRACE_SEGMENT_MAP, TRACE_SEGMENT_UNMAP, TRACE_OOM,
};
#define KIND_KEPT 7
#define NKINDS 9

/* One trace entry, checked. */
struct entry {
	int kind;		/* index into action_names, or -1 for unknown actions */
	uint64_t addr, size;
	int64_t stream, t;	/* t < 0: no time */
	const struct pk_val *frames;
};

static int
read_entry(const struct pk_val *e, size_t i, struct entry *out, char **cause)
{
	const struct pk_val *act = pk_get(e, "action");
	int64_t v;
	int err;

	memset(out, 0, sizeof(*out));
	out->t = -1;
	if (!pk_is(e, PK_DICT))
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu is not a dict", i);
	/* every entry's, dropped ones too: a later entry may name the same list */
	out->frames = pk_get(e, "frames");
	if (!pk_is(act, PK_STR))
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu has no \"action\"", i);
	for (out->kind = 0; action_names[out->kind] != NULL; out->kind++)
		if (strcmp(act->u.str.s, action_names[out->kind]) == 0)
			break;
	if (action_names[out->kind] == NULL) {
		out->kind = -1;
		return 0;
	}
	if (out->kind >= KIND_KEPT)
		return 0;
	if (out->kind != 6) {	/* an oom's addr is the device's free memory */
		if ((err = field(e, "addr", i, 0, TRACE_INT_MAX, &v, cause)) < 0)
			return err;
		out->addr = (uint64_t)v;
	}
	if ((err = field(e, "size", i, 0, TRACE_SIZE_MAX, &v, cause)) < 0)
		return err;
	out->size = (uint64_t)v;
	if (pk_get(e, "stream") != NULL &&
	    (err = field(e, "stream", i, -TRACE_INT_MAX, TRACE_INT_MAX, &out->stream, cause)) < 0)
		return err;
	if (pk_get(e, "time_us") != NULL && (err = field(e, "time_us", i, 0, TRACE_INT_MAX, &out->t, cause)) < 0)
		return err;
	return 0;
}

/*
 * A block live, or a segment reserved, before the first entry: where, its
 * bytes (requested, for a block), its frames (or NULL).
 */
struct seed {
	uint64_t addr, size;
	uint32_t sid;		/* its frames' summary */
	int64_t stream;		/* its segment's */
};

struct scan {
	uint64_t counts[NKINDS];
	struct seed *seed;	/* blocks from before the trace */
	size_t nseed, seedcap;
	struct seed *seedseg;	/* segments from before the trace */
	size_t nseedseg, seedsegcap;
	uint64_t empty_caches;	/* torch.cuda.empty_cache() calls inferred */
	/* The state at dump, from the snapshot's segments of this device. */
	uint64_t dump_segments, dump_reserved, dump_active, dump_requested, dump_largest_free;
	int64_t unknown_actions;
};

static void
seed_add(struct seed **arr, size_t *n, size_t *cap, uint64_t addr, uint64_t size,
    uint32_t sid, int64_t stream)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*arr = gms_realloc(*arr, *cap * sizeof(**arr));
	}
	(*arr)[(*n)++] = (struct seed){ addr, size, sid, stream };
}

/* A device's trace as it streams: its records, and the first pass's state. */
struct dev {
	struct recs recs;
	uint64_t entries;		/* read (kept or not) */
	struct scan sc;
	struct addr_id *live, *segs;	/* blocks allocated, segments reserved so far */
	int err;			/* its first bad entry: an error if it is read */
	char *why;
};

static void
recs_free(struct recs *rs)
{
	free(rs->mem);
	if (rs->nspill > 0)
		close(rs->fd);
	memset(rs, 0, sizeof(*rs));
}

static uint64_t
recs_count(const struct recs *rs)
{
	return rs->nspill + rs->n;
}

/*
 * Append r.  Past RECS_IN_MEMORY records in memory they go to a temporary
 * file (unlinked at once), where the cursors read them back; without one
 * they stay in memory.
 */
static void
recs_add(struct recs *rs, const struct rec *r)
{
	const char *dir;
	char *path;
	size_t off;
	ssize_t w;

	if (rs->n == rs->cap && rs->cap >= RECS_IN_MEMORY) {
		if (rs->nspill == 0) {
			dir = getenv("TMPDIR");
			path = gms_asprintf("%s/gpumemsim-pickle.XXXXXX", dir && *dir ? dir : "/tmp");
			rs->fd = mkstemp(path);
			if (rs->fd >= 0)
				unlink(path);
			free(path);
		}
		for (off = 0, w = 0; rs->fd >= 0 && off < rs->n * sizeof(*rs->mem); off += (size_t)w)
			if ((w = write(rs->fd, (char *)rs->mem + off, rs->n * sizeof(*rs->mem) - off)) <= 0)
				break;
		if (rs->fd >= 0 && off == rs->n * sizeof(*rs->mem)) {
			rs->nspill += rs->n;
			rs->n = 0;
		} else if (rs->nspill == 0 && rs->fd >= 0) {
			close(rs->fd);		/* cannot spill: memory it is */
			rs->fd = -1;
		}
	}
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 1024;
		rs->mem = gms_realloc(rs->mem, rs->cap * sizeof(*rs->mem));
	}
	rs->mem[rs->n++] = *r;
}

static void
cursor_init(struct cursor *c, const struct recs *rs)
{
	memset(c, 0, sizeof(*c));
	c->rs = rs;
}

static void
cursor_free(struct cursor *c)
{
	free(c->blk);
	c->blk = NULL;
}

/* Record i (< recs_count), or NULL when the file cannot be read back. */
static const struct rec *
rec_at(struct cursor *c, uint64_t i)
{
	const struct recs *rs = c->rs;
	size_t want, got = 0;
	ssize_t r;

	if (i >= rs->nspill)
		return &rs->mem[i - rs->nspill];
	if (c->blk == NULL || i < c->first || i >= c->first + c->nblk) {
		if (c->blk == NULL)
			c->blk = gms_malloc(RECS_BLOCK * sizeof(*c->blk));
		c->first = i / RECS_BLOCK * RECS_BLOCK;
		want = (size_t)GMS_MIN((uint64_t)RECS_BLOCK, rs->nspill - c->first) * sizeof(*c->blk);
		while (got < want && (r = pread(rs->fd, (char *)c->blk + got, want - got,
		    (off_t)(c->first * sizeof(*c->blk) + got))) > 0)
			got += (size_t)r;
		c->nblk = got / sizeof(*c->blk);
		if (i >= c->first + c->nblk)
			return NULL;
	}
	return &c->blk[i - c->first];
}

/* A dump segment's stream (0 when it says none, or one out of range). */
static int64_t
seg_stream(const struct pk_val *seg)
{
	const struct pk_val *v = pk_get(seg, "stream");

	return pk_is(v, PK_INT) && v->u.i >= -TRACE_INT_MAX && v->u.i <= TRACE_INT_MAX ? v->u.i : 0;
}

/*
 * Before the dump is walked: what the blocks of every segment add up to,
 * charged before they are read, and no segment or block (or a block's first
 * history entry) with more keys than a snapshot's: every later lookup in
 * them is then short.  (Trace entries are charged and checked as they
 * stream: take_entry.)
 */
static int
check_shape(const struct pk_val *segments, struct walk *w, char **cause)
{
	const struct pk_val *seg, *b, *blocks;
	uint64_t n = 0;
	size_t i, j;

	for (i = 0, n = 0; i < pk_len(segments); i++)
		n += pk_len(pk_get(pk_item(segments, i), "blocks"));
	if (charge(w, WALK_PER_BLOCK * n + pk_len(segments), "blocks") < 0)
		return walk_fail(w, cause);
	for (i = 0; i < pk_len(segments); i++) {
		seg = pk_item(segments, i);
		if (too_many_keys(seg))
			return gms_fail(cause, GMS_ETRACE, "segments[%zu] has %zu keys (a segment "
			    "has about 12): not a snapshot", i, seg->u.seq.n / 2);
		blocks = pk_get(seg, "blocks");
		for (j = 0; j < pk_len(blocks); j++) {
			b = pk_item(blocks, j);
			if (too_many_keys(b) || (pk_len(pk_get(b, "history")) > 0 &&
			    too_many_keys(pk_item(pk_get(b, "history"), 0))))
				return gms_fail(cause, GMS_ETRACE, "segments[%zu].blocks[%zu] has "
				    "more keys than a block (about 6): not a snapshot", i, j);
		}
	}
	return 0;
}

/*
 * First pass, as the trace streams: count the actions and find what the
 * trace does not show: blocks freed with no recorded alloc, and segments
 * released with no recorded reservation (they were there before).  Then
 * keep the entry as a record.
 */
static int
scan_entry(struct dev *d, const struct entry *en, uint32_t sid, size_t i, char **cause)
{
	struct scan *sc = &d->sc;
	struct addr_id *a;
	struct rec r;

	if (en->kind < 0) {
		sc->unknown_actions++;
		return 0;
	}
	sc->counts[en->kind]++;
	if (en->kind >= KIND_KEPT)
		return 0;
	a = en->kind <= 1 ? map_find(d->live, en->addr) : NULL;
	if (en->kind == 0 && a != NULL) {
		return gms_fail(cause, GMS_ETRACE, "trace entry %zu: alloc at %#llx, which is "
		    "already allocated", i, (unsigned long long)en->addr);
	} else if (en->kind == 0) {
		map_add(&d->live, en->addr, 0, en->size);
	} else if (en->kind == 1 && a == NULL) {
		seed_add(&sc->seed, &sc->nseed, &sc->seedcap, en->addr, en->size, sid, en->stream);
	} else if (en->kind == 1) {
		HASH_DEL(d->live, a);
		free(a);
	} else if ((en->kind == 2 || en->kind == 4) && map_find(d->segs, en->addr) == NULL) {
		map_add(&d->segs, en->addr, 0, en->size);
	} else if (en->kind == 3 && map_find(d->segs, en->addr) == NULL) {
		/* released, never reserved in the trace: it was there before */
		seed_add(&sc->seedseg, &sc->nseedseg, &sc->seedsegcap, en->addr, en->size, 0,
		    en->stream);
		map_add(&d->segs, en->addr, 0, en->size);
	}
	r = (struct rec){ en->addr, en->size, en->stream, en->t, sid, (int8_t)en->kind };
	recs_add(&d->recs, &r);
	return 0;
}

/*
 * After the trace: the dump's blocks live at the end that the trace never
 * allocated, and the segments in the dump it never reserved (expandable
 * ones aside: their pages map and unmap).
 */
static int
scan_dump(struct pickle_state *st, const struct pk_val *segments, int64_t device, struct dev *d,
    char **cause)
{
	const struct pk_val *seg, *blocks, *b, *v;
	struct scan *sc = &d->sc;
	size_t i, j, k;
	uint64_t off;
	int err = 0;

	for (i = 0; i < pk_len(segments) && err == 0; i++) {
		seg = pk_item(segments, i);
		v = pk_get(seg, "device");
		if (pk_is(v, PK_INT) && v->u.i != device)
			continue;
		blocks = pk_get(seg, "blocks");
		sc->dump_segments++;
		if (pk_is(pk_get(seg, "total_size"), PK_INT) && pk_get(seg, "total_size")->u.i > 0)
			sc->dump_reserved += (uint64_t)pk_get(seg, "total_size")->u.i;
		/* blocks are listed in address order: PyTorch 2.0's carry no address */
		v = pk_get(seg, "address");
		off = pk_is(v, PK_INT) && v->u.i >= 0 ? (uint64_t)v->u.i : 0;
		for (k = 0; k < pk_len(blocks); k++) {
			const struct pk_val *state, *addr, *req, *bsize, *hist, *frames;
			int64_t ba, rq;

			b = pk_item(blocks, k);
			state = pk_get(b, "state");
			addr = pk_get(b, "address");
			bsize = pk_get(b, "size");
			if (!pk_is(bsize, PK_INT) || bsize->u.i < 0 || bsize->u.i > TRACE_SIZE_MAX) {
				err = gms_fail(cause, GMS_ETRACE, "segments[%zu].blocks[%zu]: no size, "
				    "or one out of range", i, k);
				break;
			}
			ba = pk_is(addr, PK_INT) ? addr->u.i : (int64_t)off;
			off += (uint64_t)bsize->u.i;
			if (!pk_is(state, PK_STR) || strncmp(state->u.str.s, "active", 6) != 0) {
				if (pk_is(state, PK_STR) && strcmp(state->u.str.s, "inactive") == 0 &&
				    (uint64_t)bsize->u.i > sc->dump_largest_free)
					sc->dump_largest_free = (uint64_t)bsize->u.i;
				continue;
			}
			/* requested bytes and frames: the block's own, else its history's (2.0) */
			hist = pk_len(pk_get(b, "history")) > 0 ? pk_item(pk_get(b, "history"), 0) : NULL;
			req = pk_get(b, "requested_size");
			if (!pk_is(req, PK_INT))
				req = pk_get(hist, "real_size");
			rq = pk_is(req, PK_INT) ? req->u.i : bsize->u.i;
			frames = pk_get(b, "frames");
			if (frames == NULL)
				frames = pk_get(hist, "frames");
			sc->dump_active += (uint64_t)bsize->u.i;
			if (ba < 0 || ba > TRACE_INT_MAX || rq < 0 || rq > TRACE_SIZE_MAX) {
				err = gms_fail(cause, GMS_ETRACE, "segments[%zu].blocks[%zu]: address "
				    "%lld or requested_size %lld out of range", i, k, (long long)ba,
				    (long long)rq);
				break;
			}
			sc->dump_requested += (uint64_t)rq;
			if (map_find(d->live, (uint64_t)ba) == NULL)
				seed_add(&sc->seed, &sc->nseed, &sc->seedcap, (uint64_t)ba, (uint64_t)rq,
				    sid_of(st, NULL, frames), seg_stream(seg));
		}
	}
	if (err == 0) {
		for (j = 0; j < pk_len(segments); j++) {
			const struct pk_val *addr, *size;

			seg = pk_item(segments, j);
			v = pk_get(seg, "device");
			addr = pk_get(seg, "address");
			size = pk_get(seg, "total_size");
			if ((pk_is(v, PK_INT) && v->u.i != device) || !pk_is(addr, PK_INT) ||
			    !pk_is(size, PK_INT) || (pk_is(pk_get(seg, "is_expandable"), PK_BOOL) &&
			    pk_get(seg, "is_expandable")->u.i))
				continue;
			if (addr->u.i < 0 || addr->u.i > TRACE_INT_MAX || size->u.i <= 0 ||
			    size->u.i > TRACE_SIZE_MAX) {
				err = gms_fail(cause, GMS_ETRACE, "segments[%zu]: address %lld or "
				    "total_size %lld out of range", j, (long long)addr->u.i,
				    (long long)size->u.i);
				break;
			}
			if (map_find(d->segs, (uint64_t)addr->u.i) != NULL)
				continue;
			seed_add(&sc->seedseg, &sc->nseedseg, &sc->seedsegcap, (uint64_t)addr->u.i,
			    (uint64_t)size->u.i, 0, seg_stream(seg));
		}
	}
	return err;
}

static int
cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * Who released a segment, by its frames when the snapshot has them (C++
 * frames, _record_memory_history()'s default): 1 emptyCache (torch.cuda.
 * empty_cache(), or its Python frame), 0 the allocator's own malloc (an OOM
 * retry, garbage collection, an oversize block), -1 the frames do not say.
 */
static int
released_by_walk(struct walk *w, const struct pk_val *frames)
{
	const struct pk_val *f, *name;
	unsigned nc;
	size_t i;

	for (i = 0; i < pk_len(frames); i++) {
		f = pk_item(frames, i);
		if (charge_frame(w, f) < 0)
			return -1;
		name = pk_get(f, "name");
		if (!pk_is(name, PK_STR))
			continue;
		nc = str_class(w, name);
		if (nc & S_EMPTY_CACHE)
			return 1;
		if (nc & S_MALLOC)
			return 0;
	}
	return -1;
}

/*
 * Whether the segment releases starting at entry i were torch.cuda.empty_cache():
 * the frames say so where there are any; else by what follows, since the
 * allocator releases segments itself only to make room (an OOM retry,
 * garbage collection, oversize blocks), and then reserves again or runs out
 * right after; releases followed by anything else were asked for.
 */
static int
called_empty_cache(const struct pickle_state *st, struct cursor *look, uint64_t i)
{
	const struct rec *r = rec_at(look, i);
	uint64_t n = recs_count(look->rs);
	int by;

	if (r != NULL && (by = st->sum[r->sid].released) >= 0)
		return by;
	for (; i < n; i++) {
		if ((r = rec_at(look, i)) == NULL)
			return 0;
		if (r->kind == 3 || r->kind == 5)
			continue;
		return r->kind != 2 && r->kind != 4 && r->kind != 6;
	}
	return 1;	/* the last thing the trace shows */
}

/*
 * The limit the recording ran under (set_per_process_memory_fraction), as far
 * as the trace shows it reached: every reservation fit, so the limit is at
 * least the most ever reserved; a reservation that failed (before an OOM
 * retry's releases, or at the oom itself after them) did not, so the limit
 * is below what was reserved then plus that segment.  PyTorch refuses a
 * cudaMalloc when reserved + size > limit.  Under garbage collection a
 * release may instead be the collector's, which runs only while reserved
 * exceeds threshold x limit: the limit is then below the larger of the two
 * bounds.  Expandable segments grow by pages: their releases say nothing.
 */
struct limit_scan {
	uint64_t reserved, peak, before, hi;
	int releasing, expandable, known;
	double gc;		/* garbage_collection_threshold, 0 when off */
};

static void
limit_bound(struct limit_scan *l, uint64_t reserved, uint64_t segment)
{
	uint64_t b = reserved + segment - 1;

	if (l->expandable)
		return;
	if (!l->known || b < l->hi)
		l->hi = b;
	l->known = 1;
}

static void
limit_event(struct limit_scan *l, int kind, uint64_t size, int empty_cache)
{
	struct sc_caching sc;

	switch (kind) {
	case 2:
	case 4:
		if (l->releasing && l->gc > 0)
			limit_bound(l, GMS_MAX(l->before, (uint64_t)((double)l->before / l->gc) -
			    size + 1), size);
		else if (l->releasing)
			limit_bound(l, l->before, size);
		l->releasing = 0;
		l->reserved += size;
		l->peak = GMS_MAX(l->peak, l->reserved);
		break;
	case 3:
	case 5:
		if (!l->releasing && !empty_cache) {
			l->releasing = 1;
			l->before = l->reserved;
		}
		l->reserved -= GMS_MIN(l->reserved, size);
		break;
	case 6:
		/* the request is the block's size: its segment as PyTorch sizes it */
		sc_caching_defaults(&sc);
		if (size > 0)
			limit_bound(l, l->reserved, sc_caching_segment(&sc, sc_caching_round(&sc, size)));
		l->releasing = 0;
		break;
	default:
		l->releasing = 0;
		break;
	}
}

/*
 * CUDA graphs' private pools, from the dump: its segments say which pool
 * each belongs to (segment_pool_id, (0, 0) the ordinary one), and a block
 * allocated inside one of a private pool's segments was allocated into that
 * pool (during a capture, or a replay's output), if allocated after the
 * segment was reserved: the address may have held an ordinary segment before.
 * Pools are numbered from 1 in the dump's order (trace.h).  A private segment
 * released before the dump is not known: its blocks count as the ordinary
 * pool's.
 */
struct pool_seg {
	uint64_t addr, size;
	unsigned pool;
	uint64_t since;		/* the record that reserved it (its last
				   segment_alloc there), 0 when before the trace */
};

struct pools {
	struct pool_seg *seg;
	size_t n;
	int64_t id[TRACE_POOL_MAX][2];
	unsigned nids;
};

static int
cmp_pool_seg(const void *a, const void *b)
{
	const struct pool_seg *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void
pools_scan(const struct pk_val *segments, int64_t device, struct pools *pl)
{
	const struct pk_val *seg, *pid, *d, *addr, *size;
	int64_t a, b;
	unsigned k;
	size_t i;

	for (i = 0; i < pk_len(segments); i++) {
		seg = pk_item(segments, i);
		d = pk_get(seg, "device");
		pid = pk_get(seg, "segment_pool_id");
		addr = pk_get(seg, "address");
		size = pk_get(seg, "total_size");
		if ((pk_is(d, PK_INT) && d->u.i != device) || !pk_is(pid, PK_TUPLE) ||
		    pk_len(pid) != 2 || !pk_is(pk_item(pid, 0), PK_INT) ||
		    !pk_is(pk_item(pid, 1), PK_INT) || !pk_is(addr, PK_INT) || !pk_is(size, PK_INT) ||
		    addr->u.i < 0 || size->u.i <= 0 || size->u.i > TRACE_SIZE_MAX ||
		    addr->u.i > TRACE_INT_MAX)
			continue;
		a = pk_item(pid, 0)->u.i;
		b = pk_item(pid, 1)->u.i;
		if (a == 0 && b == 0)
			continue;
		for (k = 0; k < pl->nids && (pl->id[k][0] != a || pl->id[k][1] != b); k++)
			;
		if (k == pl->nids) {
			if (pl->nids == TRACE_POOL_MAX)
				continue;	/* more pools than a trace can name: the ordinary one */
			pl->id[pl->nids][0] = a;
			pl->id[pl->nids++][1] = b;
		}
		pl->seg = gms_realloc(pl->seg, (pl->n + 1) * sizeof(*pl->seg));
		pl->seg[pl->n++] = (struct pool_seg){ (uint64_t)addr->u.i, (uint64_t)size->u.i, k + 1, 0 };
	}
	if (pl->n > 0)
		qsort(pl->seg, pl->n, sizeof(*pl->seg), cmp_pool_seg);
}

static struct pool_seg *
pool_seg_at(const struct pools *pl, uint64_t addr)
{
	size_t lo = 0, hi = pl->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pl->seg[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr - pl->seg[lo - 1].addr >= pl->seg[lo - 1].size)
		return NULL;
	return &pl->seg[lo - 1];
}

/* When each private segment was reserved: the last segment_alloc at its address. */
static void
pools_since(const struct recs *rs, struct pools *pl)
{
	struct pool_seg *ps;
	const struct rec *r;
	struct cursor c;
	uint64_t i;

	cursor_init(&c, rs);
	for (i = 0; pl->n > 0 && i < recs_count(rs) && (r = rec_at(&c, i)) != NULL; i++)
		if (r->kind == 2 && (ps = pool_seg_at(pl, r->addr)) != NULL && ps->addr == r->addr)
			ps->since = i;
	cursor_free(&c);
}

/* The private pool a block allocated at addr by record i belongs to, or 0. */
static unsigned
pool_of(const struct pools *pl, uint64_t addr, uint64_t i)
{
	const struct pool_seg *ps = pool_seg_at(pl, addr);

	return ps != NULL && i >= ps->since ? ps->pool : 0;
}

/*
 * What the recording allocator did, as far as a complete trace shows it:
 * reserved bytes follow the segment events, requested bytes the allocs and
 * frees.  (Allocated bytes need the allocator's rounding: not known here.)
 */
struct observed {
	uint64_t reserved, peak_reserved, requested, peak_requested;
	uint64_t dallocs, dfrees, ooms;
};

/* Event ev, and for a free the requested bytes of the block it frees (the emitter knows them). */
static void
observe(struct observed *o, const struct trace_event *ev, uint64_t freed)
{
	switch (ev->op) {
	case TRACE_SEGMENT_ALLOC:
	case TRACE_SEGMENT_MAP:
		o->reserved += ev->size;
		o->peak_reserved = GMS_MAX(o->peak_reserved, o->reserved);
		o->dallocs++;
		break;
	case TRACE_SEGMENT_FREE:
	case TRACE_SEGMENT_UNMAP:
		o->reserved -= GMS_MIN(o->reserved, ev->size);
		o->dfrees++;
		break;
	case TRACE_ALLOC:
		o->requested += ev->size;
		o->peak_requested = GMS_MAX(o->peak_requested, o->requested);
		break;
	case TRACE_FREE:
		o->requested -= GMS_MIN(o->requested, freed);
		break;
	case TRACE_OOM:
		o->ooms++;
		break;
	default:
		break;
	}
}

static cJSON *
observed_json(const struct observed *ob)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "allocator", "pytorch-caching");
	cJSON_AddNumberToObject(o, "peak_reserved", (double)ob->peak_reserved);
	cJSON_AddNumberToObject(o, "peak_requested", (double)ob->peak_requested);
	cJSON_AddNumberToObject(o, "device_allocs", (double)ob->dallocs);
	cJSON_AddNumberToObject(o, "device_frees", (double)ob->dfrees);
	cJSON_AddNumberToObject(o, "ooms", (double)ob->ooms);
	return o;
}

/*
 * Second pass, event by event: the seeds, then the records as events.  Run
 * once whole at open (the header's limits, empty_cache calls and observed
 * numbers), then again as next() asks.
 */
struct emitter {
	struct scan *sc;
	const struct pools *pl;
	const struct recs *rs;
	struct limit_scan *lim;		/* the first run's */
	struct observed *ob;		/* ... and what it observes */
	int phase;			/* 0 segment seeds, 1 block seeds, 2 records, 3 done */
	uint64_t i;
	struct addr_id *live;
	uint64_t id;
	int in_release, asked;
	struct trace_event q[2];	/* an inferred empty_cache, then the record's event */
	uint64_t freed[2];		/* ... a free's block's requested bytes */
	int nq, qi;
	struct cursor cur, look;
};

static void
emit_free(struct emitter *em)
{
	clear_map(&em->live);
	cursor_free(&em->cur);
	cursor_free(&em->look);
}

/* (Re)start em from the first seed; the first run, with lim and ob, also counts for the header. */
static void
emit_start(struct emitter *em, struct scan *sc, const struct pools *pl, const struct recs *rs,
    struct limit_scan *lim, struct observed *ob)
{
	emit_free(em);
	memset(em, 0, sizeof(*em));
	em->sc = sc;
	em->pl = pl;
	em->rs = rs;
	em->lim = lim;
	em->ob = ob;
	em->id = 1;
	cursor_init(&em->cur, rs);
	cursor_init(&em->look, rs);
}

static struct trace_event *
queue(struct emitter *em, enum trace_op op)
{
	struct trace_event *pe = &em->q[em->nq++];

	memset(pe, 0, sizeof(*pe));
	pe->op = op;
	em->freed[em->nq - 1] = 0;
	return pe;
}

/* Record em->i's events into the queue. */
static void
emit_rec(struct pickle_state *st, struct emitter *em, const struct rec *r)
{
	struct trace_event *pe;
	/* only a free looks its block up */
	struct addr_id *a = r->kind == 1 ? map_find(em->live, r->addr) : NULL;

	if (r->kind == 1 && a == NULL)
		return;		/* cannot happen: scan_entry() seeded it */
	if ((r->kind == 3 || r->kind == 5) && !em->in_release) {
		em->asked = called_empty_cache(st, &em->look, em->i);
		if (em->asked) {
			pe = queue(em, TRACE_EMPTY_CACHE);
			if (r->t >= 0) {
				pe->t_us = r->t;
				pe->flags |= TRACE_HAS_TIME;
			}
			if (em->lim != NULL)
				em->sc->empty_caches++;
		}
	}
	em->in_release = r->kind == 3 || r->kind == 5;
	if (em->lim != NULL)
		limit_event(em->lim, r->kind, r->size, em->in_release && em->asked);
	pe = queue(em, action_ops[r->kind]);
	pe->size = r->size;
	if (r->t >= 0) {
		pe->t_us = r->t;
		pe->flags |= TRACE_HAS_TIME;
	}
	switch (r->kind) {
	case 0:
		pe->id = em->id;
		map_add(&em->live, r->addr, em->id++, r->size);
		pe->addr = r->addr;
		pe->stream = trace_pool_stream(pool_of(em->pl, r->addr, em->i), r->stream);
		pe->flags |= TRACE_HAS_ADDR | TRACE_HAS_STREAM;
		pe->at = st->sum[r->sid].at;
		pe->stack = frame_stack(st, r->sid);
		break;
	case 1:
		pe->id = a->id;
		pe->size = 0;	/* a free names its block; the size is the alloc's */
		em->freed[em->nq - 1] = a->size;
		HASH_DEL(em->live, a);
		free(a);
		break;
	case 6:
		/* the request that failed: replayed as one, never freed */
		pe->id = em->id++;
		pe->stream = r->stream;
		pe->flags |= TRACE_HAS_ID | TRACE_HAS_STREAM;
		pe->at = st->sum[r->sid].at;
		pe->stack = frame_stack(st, r->sid);
		break;
	default:
		pe->addr = r->addr;
		pe->stream = r->stream;
		pe->flags |= TRACE_HAS_ADDR | TRACE_HAS_STREAM;
		break;
	}
}

/* The next event: 1, 0 at the end, or GMS_ETRACE when a record cannot be read back. */
static int
emit_next(struct pickle_state *st, struct emitter *em, struct trace_event *ev, char **cause)
{
	struct scan *sc = em->sc;
	struct trace_event *pe;
	const struct rec *r;

	while (em->qi == em->nq) {
		em->qi = em->nq = 0;
		switch (em->phase) {
		case 0:
			if (em->i == sc->nseedseg) {
				em->phase++;
				em->i = 0;
				break;
			}
			pe = queue(em, TRACE_SEGMENT_ALLOC);
			pe->addr = sc->seedseg[em->i].addr;
			pe->size = sc->seedseg[em->i].size;
			pe->stream = trace_pool_stream(pool_of(em->pl, pe->addr, 0),
			    sc->seedseg[em->i].stream);
			pe->flags = TRACE_HAS_ADDR | TRACE_HAS_STREAM | TRACE_SEEDED;
			if (em->lim != NULL)
				limit_event(em->lim, 2, sc->seedseg[em->i].size, 0);
			em->i++;
			break;
		case 1:
			if (em->i == sc->nseed) {
				em->phase++;
				em->i = 0;
				break;
			}
			/* a block freed and live again at the same address is seeded once */
			if (map_find(em->live, sc->seed[em->i].addr) == NULL) {
				pe = queue(em, TRACE_ALLOC);
				pe->id = em->id;
				pe->addr = sc->seed[em->i].addr;
				pe->size = sc->seed[em->i].size;
				pe->flags = TRACE_HAS_ADDR | TRACE_HAS_STREAM | TRACE_SEEDED;
				pe->stream = trace_pool_stream(pool_of(em->pl, pe->addr, 0),
				    sc->seed[em->i].stream);
				pe->at = st->sum[sc->seed[em->i].sid].at;
				pe->stack = frame_stack(st, sc->seed[em->i].sid);
				map_add(&em->live, sc->seed[em->i].addr, em->id++, pe->size);
			}
			em->i++;
			break;
		case 2:
			if (em->i == recs_count(em->rs)) {
				em->phase++;
				break;
			}
			if ((r = rec_at(&em->cur, em->i)) == NULL)
				return gms_fail(cause, GMS_ETRACE, "its trace entries, kept in a "
				    "temporary file, cannot be read back at entry %llu",
				    (unsigned long long)em->i);
			emit_rec(st, em, r);
			em->i++;
			break;
		default:
			return 0;
		}
	}
	if (em->ob != NULL)
		observe(em->ob, &em->q[em->qi], em->freed[em->qi]);
	*ev = em->q[em->qi++];
	return 1;
}

/* A pickle value as JSON (settings dicts: strings, numbers, booleans, dicts). */
/*
 * allocator_settings as JSON.  The memo lets a pickle share values, so the
 * settings are a graph, not a tree: a dict may hold itself, and forty lists
 * that each hold the one before twice unfold to 2^40 nodes.  The walk refuses
 * a cycle, stops at a depth and a node count no real settings dict comes near.
 */
#define SETTINGS_MAX_DEPTH 32
#define SETTINGS_MAX_NODES 100000

struct json_walk {
	const struct pk_val *path[SETTINGS_MAX_DEPTH];
	size_t depth, nodes;
	char **cause;
};

static int
to_json(struct json_walk *w, const struct pk_val *v, cJSON **out)
{
	cJSON *o, *item;
	size_t i;
	int err = 0;

	*out = NULL;
	if (++w->nodes > SETTINGS_MAX_NODES)
		return gms_fail(w->cause, GMS_ETRACE, "allocator_settings holds more than %d "
		    "values (shared through the pickle's memo): not a snapshot's settings",
		    SETTINGS_MAX_NODES);
	if (v == NULL) {
		*out = cJSON_CreateNull();
		return 0;
	}
	switch (v->type) {
	case PK_BOOL:
		*out = cJSON_CreateBool((int)v->u.i);
		return 0;
	case PK_INT:
		*out = cJSON_CreateNumber((double)v->u.i);
		return 0;
	case PK_FLOAT:
		*out = cJSON_CreateNumber(v->u.f);
		return 0;
	case PK_STR:
		*out = cJSON_CreateString(v->u.str.s);
		return 0;
	case PK_DICT:
	case PK_LIST:
	case PK_TUPLE:
		break;
	default:
		*out = cJSON_CreateNull();
		return 0;
	}
	for (i = 0; i < w->depth; i++)
		if (w->path[i] == v)
			return gms_fail(w->cause, GMS_ETRACE, "allocator_settings contains "
			    "itself (a cycle at depth %zu)", w->depth);
	if (w->depth == SETTINGS_MAX_DEPTH)
		return gms_fail(w->cause, GMS_ETRACE, "allocator_settings nested deeper "
		    "than %d levels", SETTINGS_MAX_DEPTH);
	w->path[w->depth++] = v;
	o = v->type == PK_DICT ? cJSON_CreateObject() : cJSON_CreateArray();
	for (i = 0; i < v->u.seq.n; i += v->type == PK_DICT ? 2 : 1) {
		if (v->type == PK_DICT) {
			if (i + 1 >= v->u.seq.n || v->u.seq.items[i]->type != PK_STR)
				continue;
			if ((err = to_json(w, v->u.seq.items[i + 1], &item)) < 0)
				break;
			cJSON_AddItemToObject(o, v->u.seq.items[i]->u.str.s, item);
		} else {
			if ((err = to_json(w, v->u.seq.items[i], &item)) < 0)
				break;
			cJSON_AddItemToArray(o, item);
		}
	}
	w->depth--;
	if (i < v->u.seq.n) {
		cJSON_Delete(o);
		return err;
	}
	*out = o;
	return 0;
}

/*
 * The settings as a PYTORCH_CUDA_ALLOC_CONF string, from the parsed values of
 * allocator_settings: what the allocator ran with when they were set from
 * Python (torch.cuda.memory._set_allocator_settings) and the variable is
 * empty.  NULL when they are the defaults.
 */
static char *
conf_from_settings(const cJSON *sj)
{
	const cJSON *v, *it;
	char *out = NULL, list[512] = "";
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&out, &len);
	double same = -1;
	int uniform = 1;

	if (f == NULL)
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(sj, "max_split_size");
	if (cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e15)
		fprintf(f, "%smax_split_size_mb:%.0f", n++ ? "," : "", v->valuedouble / 1048576);
	v = cJSON_GetObjectItemCaseSensitive(sj, "garbage_collection_threshold");
	if (cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1)
		fprintf(f, "%sgarbage_collection_threshold:%.17g", n++ ? "," : "", v->valuedouble);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sj, "expandable_segments")))
		fprintf(f, "%sexpandable_segments:True", n++ ? "," : "");
	v = cJSON_GetObjectItemCaseSensitive(sj, "roundup_power2_divisions");
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsNumber(it) || it->valuedouble <= 0 || it->valuedouble > 1e6 ||
		    it->string == NULL || strlen(it->string) > 12)
			continue;
		if (same >= 0 && same != it->valuedouble)
			uniform = 0;
		same = it->valuedouble;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s:%.0f",
		    list[0] ? "," : "", it->string, it->valuedouble);
	}
	if (same > 0 && uniform && cJSON_GetArraySize(v) > 0)
		fprintf(f, "%sroundup_power2_divisions:%.0f", n++ ? "," : "", same);
	else if (same > 0)
		fprintf(f, "%sroundup_power2_divisions:[%s]", n++ ? "," : "", list);
	fclose(f);
	if (n == 0) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * The device to read when none is chosen: the one that holds memory (trace
 * entries that allocate, free or reserve, or segments in the dump).  A
 * device with nothing is never the answer while another has something;
 * several with memory are refused, each listed, since which one matters is
 * the user's to say.  A snapshot with none keeps device 0 (the caller says
 * it holds nothing).
 */
#define MAX_DEVICES 4096
static int
choose_device(const struct pickle_state *st, size_t ntraces, const struct pk_val *segments,
    int64_t *out, char **cause)
{
	uint64_t *entries = gms_calloc(MAX_DEVICES, sizeof(*entries));
	uint64_t *reserved = gms_calloc(MAX_DEVICES, sizeof(*reserved));
	const struct pk_val *seg, *d, *ts;
	size_t i, j, nd = GMS_MIN(ntraces, MAX_DEVICES), with = 0;
	char *list = NULL, *tmp, one[160];
	int k;

	/* the entries that become events, well formed or not */
	for (i = 0; i < nd && i < st->ndev; i++)
		for (k = 0; st->dev[i] != NULL && k < KIND_KEPT; k++)
			entries[i] += st->dev[i]->sc.counts[k];
	for (i = 0; i < pk_len(segments); i++) {
		seg = pk_item(segments, i);
		d = pk_get(seg, "device");
		ts = pk_get(seg, "total_size");
		j = pk_is(d, PK_INT) && d->u.i >= 0 && d->u.i < MAX_DEVICES ? (size_t)d->u.i : 0;
		nd = GMS_MAX(nd, j + 1);
		reserved[j] += pk_is(ts, PK_INT) && ts->u.i > 0 && ts->u.i <= TRACE_SIZE_MAX ?
		    (uint64_t)ts->u.i : 0;
	}
	*out = 0;
	for (i = 0; i < nd; i++) {
		if (entries[i] == 0 && reserved[i] == 0)
			continue;
		if (with++ == 0)
			*out = (int64_t)i;
		snprintf(one, sizeof(one), "%s%zu (%llu entries, %s reserved at dump)",
		    with > 1 ? ", " : "", i, (unsigned long long)entries[i],
		    gms_fmt_size(reserved[i], (char[32]){ 0 }, 32));
		tmp = list;
		list = gms_asprintf("%s%s", tmp ? tmp : "", one);
		free(tmp);
	}
	free(entries);
	free(reserved);
	if (with > 1) {
		gms_fail(cause, GMS_ETRACE, "the snapshot holds memory on %zu devices: %s; choose "
		    "one with --device=N", with, list);
		free(list);
		return GMS_ETRACE;
	}
	free(list);
	return 0;
}

/* pickle_read's input: the file through zlib. */
static long
read_gz(void *ctx, unsigned char *buf, size_t n, char **cause)
{
	struct pickle_state *st = ctx;
	int got, zerr;

	got = gzread(st->gz, buf, (unsigned)GMS_MIN(n, (size_t)1 << 30));
	gzerror(st->gz, &zerr);
	if (got < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))
		return gms_fail(cause, GMS_ETRACE, "%s", zerr == Z_BUF_ERROR ?
		    "truncated compressed file" : gzerror(st->gz, &zerr));
	return got;
}

static void
dev_free(struct dev *d)
{
	recs_free(&d->recs);
	clear_map(&d->live);
	clear_map(&d->segs);
	free(d->sc.seed);
	free(d->sc.seedseg);
	free(d->why);
	free(d);
}

static struct dev *
dev_new(void)
{
	struct dev *d = gms_calloc(1, sizeof(*d));

	d->recs.fd = -1;
	return d;
}

/* Device i's state, made on its first entry. */
static struct dev *
dev_of(struct pickle_state *st, size_t i)
{
	size_t n;

	if (i >= st->ndev) {
		n = GMS_MAX(i + 1, 2 * st->ndev);
		st->dev = gms_realloc(st->dev, n * sizeof(*st->dev));
		memset(st->dev + st->ndev, 0, (n - st->ndev) * sizeof(*st->dev));
		st->ndev = n;
	}
	if (st->dev[i] == NULL)
		st->dev[i] = dev_new();
	return st->dev[i];
}

/*
 * An entry of device_traces[device], at index i there: checked, its frames
 * summarized, scanned and kept as a record.  NULL: its batch was let go.  A
 * malformed entry is an error only if its device is the one read.
 */
static int
take_entry(void *ctx, struct pickle *pk, const struct pk_val *e, size_t device, size_t i,
    char **cause)
{
	struct pickle_state *st = ctx;
	struct entry en;
	struct dev *d;
	uint32_t sid;

	st->pk = pk;
	if (e == NULL) {
		batch_end(st);
		return 0;
	}
	if (too_many_keys(e))
		return gms_fail(cause, GMS_ETRACE, "device_traces[%zu][%zu] has %zu keys (a trace "
		    "entry has about 8): not a snapshot", device, i, e->u.seq.n / 2);
	st->walk.len = pickle_bytes(pk);
	st->walk.budget = WALK_FLOOR + st->walk.len * WALK_PER_BYTE;
	if (charge(&st->walk, 1, "trace entries") < 0)
		return walk_fail(&st->walk, cause);
	if (device >= MAX_DEVICES)
		return 0;
	d = dev_of(st, device);
	d->entries++;
	if (d->err < 0)
		return 0;
	if ((d->err = read_entry(e, i, &en, &d->why)) < 0)
		return 0;
	/* every entry's frames: a later one may name the same list */
	sid = sid_of(st, e, en.frames);
	if (st->walk.over != NULL)
		return walk_fail(&st->walk, cause);
	d->err = scan_entry(d, &en, sid, i, &d->why);
	return 0;
}

/*
 * The lists of device_traces that did not stream (a pickle can build them
 * in ways pickle_read does not follow): their entries taken now, as they
 * stand.  A streamed list must stand at its own place.
 */
static int
take_unstreamed(struct pickle_state *st, const struct pk_val *traces, char **cause)
{
	const struct pk_val *tr;
	size_t i, j, dev, n;
	int err;

	for (i = 0; i < pk_len(traces); i++) {
		tr = pk_item(traces, i);
		if (pk_streamed(tr, &dev, &n)) {
			if (dev != i)
				return gms_fail(cause, GMS_ETRACE, "device_traces[%zu] is the list of "
				    "device_traces[%zu] again (named twice through the pickle's memo): "
				    "not a snapshot PyTorch writes", i, dev);
			continue;
		}
		for (j = 0; j < pk_len(tr); j++)
			if ((err = take_entry(st, st->pk, pk_item(tr, j), i, j, cause)) < 0)
				return err;
	}
	return 0;
}

/* What only reading needed: the pickle, the other devices, the memos. */
static void
reading_done(struct pickle_state *st)
{
	size_t i;

	for (i = 0; i < st->ndev; i++)
		if (st->dev[i] != NULL && st->dev[i] != st->chosen)
			dev_free(st->dev[i]);
	free(st->dev);
	st->dev = NULL;
	st->ndev = 0;
	fmemo_free(&st->byptr);
	fmemo_free(&st->bycontent);
	free(st->batch);
	st->batch = NULL;
	st->nbatch = st->batchcap = 0;
	pickle_free(st->pk);
	st->pk = NULL;
}

static int
pickle_open(struct trace_reader *r, char **cause)
{
	struct pickle_state *st = gms_calloc(1, sizeof(*st));
	const struct pk_val *root, *traces, *settings, *conf, *segments;
	struct limit_scan lim = { 0 };
	struct observed ob = { 0 };
	struct trace_event ev;
	struct scan *scp;
	struct pickle *pk = NULL;
	struct dev *d;
	cJSON *hdr, *src, *acts, *seeded;
	char *why = NULL, name[256], *dot;
	uint64_t len;
	int64_t device = r->opts.device;
	int err, kind, history = 0;

	r->priv = st;
	r->stable = 1;		/* every site and stack is intern_site's, kept to the close */
	st->gz = r->gz;
	st->sum = gms_calloc(st->sumcap = 256, sizeof(*st->sum));
	st->sum[0].released = -1;	/* summary 0: no frames */
	st->nsum = 1;
	st->pools = gms_calloc(1, sizeof(*st->pools));
	/* Protocols 2 to 5 open with PROTO: refuse anything else before holding it. */
	if ((kind = gzgetc(r->gz)) != 0x80) {
		err = gms_fail(&why, GMS_ETRACE, "not a pickle (%s)", kind < 0 ?
		    "empty file" : "its first byte is not the PROTO opcode 0x80");
		goto fail;
	}
	gzungetc(kind, r->gz);
	root = pickle_read(read_gz, st, take_entry, st, &pk, &why);
	st->pk = pk;
	if (root == NULL) {
		err = GMS_ETRACE;
		goto fail;
	}
	len = pickle_bytes(pk);
	st->walk.len = len;
	st->walk.budget = WALK_FLOOR + len * WALK_PER_BYTE;
	/* torch.cuda.memory_snapshot() (and old dumps) are a bare list of segments */
	if (pk_is(root, PK_LIST)) {
		segments = root;
		traces = NULL;
	} else {
		segments = pk_get(root, "segments");
		traces = pk_get(root, "device_traces");
	}
	if (!pk_is(root, PK_LIST) && (!pk_is(root, PK_DICT) || (!pk_is(traces, PK_LIST) &&
	    !pk_is(segments, PK_LIST)))) {
		err = gms_fail(&why, GMS_ETRACE, "not a PyTorch memory snapshot: no "
		    "\"device_traces\" list and no \"segments\"");
		goto fail;
	}
	if ((err = take_unstreamed(st, traces, &why)) < 0 ||
	    (err = check_shape(segments, &st->walk, &why)) < 0)
		goto fail;
	if (device < 0 && (err = choose_device(st, pk_len(traces), segments, &device, &why)) < 0)
		goto fail;
	if ((size_t)device < pk_len(traces) && !pk_is(pk_item(traces, (size_t)device), PK_LIST)) {
		err = gms_fail(&why, GMS_ETRACE, "device_traces[%lld] is not a list", (long long)device);
		goto fail;
	}
	/* a device without entries still reads the dump */
	d = st->chosen = (uint64_t)device < st->ndev && st->dev[device] != NULL ?
	    st->dev[device] : dev_new();
	if (d->err < 0) {
		err = d->err;
		why = d->why;
		d->why = NULL;
		goto fail;
	}
	scp = &d->sc;
	if ((err = scan_dump(st, segments, device, d, &why)) < 0)
		goto fail;
	/* the first pass is over: what it knew of each address is not needed again */
	clear_map(&d->live);
	clear_map(&d->segs);
	if (d->entries == 0 && scp->dump_segments == 0 && r->opts.device >= 0 &&
	    (size_t)device >= pk_len(traces) && pk_len(traces) > 0) {
		err = gms_fail(&why, GMS_ETRACE, "no device %lld: the snapshot has traces for "
		    "devices 0 to %zu", (long long)device, pk_len(traces) - 1);
		goto fail;
	}
	if (d->entries == 0 && scp->dump_segments == 0) {
		err = gms_fail(&why, GMS_ETRACE, "the snapshot holds nothing for device %lld: no "
		    "trace entries (was _record_memory_history on?) and no segments",
		    (long long)device);
		goto fail;
	}
	{
		const struct pk_val *set = pk_get(root, "allocator_settings");
		const struct pk_val *gc = pk_get(set, "garbage_collection_threshold");
		const struct pk_val *ex = pk_get(set, "expandable_segments");
		const struct pk_val *cs = pk_get(set, "PYTORCH_CUDA_ALLOC_CONF");

		lim.gc = pk_is(gc, PK_FLOAT) && gc->u.f > 0 && gc->u.f < 1 ? gc->u.f : 0;
		/* a threshold in the variable alone: its bound holds for any below 1 */
		if (lim.gc == 0 && pk_is(cs, PK_STR) &&
		    strstr(cs->u.str.s, "garbage_collection_threshold") != NULL)
			lim.gc = 1e-3;
		lim.expandable = (pk_is(ex, PK_BOOL) && ex->u.i) ||
		    (pk_is(cs, PK_STR) && strstr(cs->u.str.s, "expandable_segments:True") != NULL);
	}
	pools_scan(segments, device, st->pools);
	pools_since(&d->recs, st->pools);
	if (st->walk.over != NULL) {
		err = walk_fail(&st->walk, &why);
		goto fail;
	}
	/* addresses first in struct seed: cmp_pair orders them */
	if (scp->nseedseg > 0)
		qsort(scp->seedseg, scp->nseedseg, sizeof(*scp->seedseg), cmp_pair);
	if (scp->nseed > 0)
		qsort(scp->seed, scp->nseed, sizeof(*scp->seed), cmp_pair);
	/* the whole run once: what the header says of it */
	st->em = gms_calloc(1, sizeof(*st->em));
	emit_start(st->em, scp, st->pools, &d->recs, &lim, &ob);
	while ((err = emit_next(st, st->em, &ev, &why)) > 0)
		;
	if (err < 0)
		goto fail;
	emit_start(st->em, scp, st->pools, &d->recs, NULL, NULL);
	st->stack_bytes = 0;
	/* entries that become events; a lone "snapshot" entry is no history */
	for (kind = 0; kind < KIND_KEPT; kind++)
		history |= scp->counts[kind] > 0;

	hdr = cJSON_CreateObject();
	cJSON_AddStringToObject(hdr, "format", "gpumemsim-trace");
	cJSON_AddNumberToObject(hdr, "version", 1);
	snprintf(name, sizeof(name), "%s", r->hdr.name);
	if ((dot = strstr(name, ".pickle")) != NULL)
		*dot = '\0';
	cJSON_AddStringToObject(hdr, "name", name);
	src = cJSON_AddObjectToObject(hdr, "source");
	cJSON_AddStringToObject(src, "from", "pytorch memory snapshot");
	cJSON_AddNumberToObject(src, "device", (double)device);
	cJSON_AddNumberToObject(src, "pickle_protocol", pickle_protocol(pk));
	acts = cJSON_AddObjectToObject(src, "actions");
	for (kind = 0; kind < NKINDS; kind++)
		if (scp->counts[kind])
			cJSON_AddNumberToObject(acts, action_names[kind], (double)scp->counts[kind]);
	settings = pk_get(root, "allocator_settings");	/* NULL for a bare list */
	conf = pk_get(settings, "PYTORCH_CUDA_ALLOC_CONF");
	if (pk_is(conf, PK_STR))
		cJSON_AddStringToObject(src, "alloc_conf", conf->u.str.s);
	if (settings != NULL) {
		struct json_walk w = { .cause = &why };
		cJSON *sj;

		if ((err = to_json(&w, settings, &sj)) < 0) {
			cJSON_Delete(hdr);
			goto fail;
		}
		cJSON_AddItemToObject(src, "allocator_settings", sj);
		if (!pk_is(conf, PK_STR) || conf->u.str.s[0] == '\0') {
			char *c = conf_from_settings(sj);

			if (c != NULL) {
				cJSON_DeleteItemFromObject(src, "alloc_conf");
				cJSON_AddStringToObject(src, "alloc_conf", c);
				cJSON_AddStringToObject(src, "alloc_conf_from", "allocator_settings");
			}
			free(c);
		}
	}
	if (scp->empty_caches > 0)
		cJSON_AddNumberToObject(src, "empty_cache_inferred", (double)scp->empty_caches);
	if (st->pools->nids > 0)
		cJSON_AddNumberToObject(src, "graph_pools", (double)st->pools->nids);
	{
		cJSON *dump = cJSON_AddObjectToObject(src, "dump");

		cJSON_AddNumberToObject(dump, "segments", (double)scp->dump_segments);
		cJSON_AddNumberToObject(dump, "reserved", (double)scp->dump_reserved);
		cJSON_AddNumberToObject(dump, "active", (double)scp->dump_active);
		cJSON_AddNumberToObject(dump, "requested", (double)scp->dump_requested);
		cJSON_AddNumberToObject(dump, "largest_free", (double)scp->dump_largest_free);
	}
	if (scp->nseed > 0 || scp->nseedseg > 0) {
		seeded = cJSON_AddObjectToObject(src, "seeded");
		cJSON_AddNumberToObject(seeded, "allocs", (double)scp->nseed);
		cJSON_AddNumberToObject(seeded, "segments", (double)scp->nseedseg);
		cJSON_AddStringToObject(seeded, "unknown", !history ? "everything before "
		    "the dump: the snapshot has no history, only the state at dump" : "when, and in "
		    "what order, the seeded blocks and segments were allocated: before the first entry");
		cJSON_AddBoolToObject(src, "history", history);
		cJSON_AddBoolToObject(hdr, "starts_mid_run", 1);
	} else {
		cJSON *obs = observed_json(&ob);

		if (lim.known && lim.hi >= lim.peak) {
			cJSON_AddNumberToObject(obs, "limit_min", (double)lim.peak);
			cJSON_AddNumberToObject(obs, "limit_max", (double)lim.hi);
		}
		cJSON_AddItemToObject(hdr, "observed", obs);
	}
	if (scp->counts[6] > 0)
		cJSON_AddBoolToObject(hdr, "ends_in_oom", 1);
	reading_done(st);
	if ((err = trace_take_header(r, hdr, &why)) < 0)
		goto fail_taken;
	return 0;
fail:
	reading_done(st);
fail_taken:
	gms_fail(cause, err, "%s: %s", r->path, why ? why : "cannot read");
	free(why);
	return err;
}

static int
pickle_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	struct pickle_state *st = r->priv;

	return emit_next(st, st->em, ev, cause);
}

static void
pickle_where(struct trace_reader *r)
{
	snprintf(r->where, sizeof(r->where), "%s: event %llu", r->path,
	    (unsigned long long)r->cur);
}

static void
pickle_close(struct trace_reader *r)
{
	struct pickle_state *st = r->priv;
	struct site_str *e, *tmp;

	if (st == NULL)
		return;
	reading_done(st);
	HASH_ITER(hh, st->sites, e, tmp) {
		HASH_DEL(st->sites, e);
		free(e);
	}
	if (st->em != NULL)
		emit_free(st->em);
	free(st->em);
	if (st->chosen != NULL)
		dev_free(st->chosen);
	if (st->pools != NULL)
		free(st->pools->seg);
	free(st->pools);
	free(st->sum);
	free(st);
}

const struct trace_format trace_format_pickle = {
	.name = "pickle",
	.open = pickle_open,
	.next = pickle_next,
	.where = pickle_where,
	.close = pickle_close,
};
