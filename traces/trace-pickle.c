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
 * The whole file is parsed into memory (a pickle cannot be streamed), then
 * events are handed out one by one.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * What a walk learned of a shared frames list: PyTorch hands every block and
 * entry with the same traceback one list, so each list is read once.
 */
struct frames_memo {
	const struct pk_val *frames;
	const char *at, *stack;
	int have_at, have_stack, released;	/* released: released_by(), 2 until asked */
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
	size_t len;			/* the file's bytes */
	const char *over;		/* what went past the budget, or NULL */
	struct frames_memo *memo;
};

struct pickle_state {
	struct trace_event *ev;
	size_t n, cap, next;
	struct site_str *sites;		/* the events' at, each text once */
	struct walk walk;
	uint64_t stack_bytes;		/* stack text handed out so far (frame_stack) */
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

/* The memo of a shared frames list (made on first use), or NULL when unshared. */
static struct frames_memo *
frames_memo(struct walk *w, const struct pk_val *frames)
{
	struct frames_memo *m;

	if (!pk_shared(frames))
		return NULL;
	HASH_FIND_PTR(w->memo, &frames, m);
	if (m == NULL) {
		m = gms_calloc(1, sizeof(*m));
		m->frames = frames;
		m->released = 2;
		HASH_ADD_PTR(w->memo, frames, m);
	}
	return m;
}

static void
walk_free(struct walk *w)
{
	struct frames_memo *m, *tmp;

	HASH_ITER(hh, w->memo, m, tmp) {
		HASH_DEL(w->memo, m);
		free(m);
	}
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

static struct trace_event *
add(struct pickle_state *st, enum trace_op op)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 1024;
		st->ev = gms_realloc(st->ev, st->cap * sizeof(*st->ev));
	}
	memset(&st->ev[st->n], 0, sizeof(st->ev[0]));
	st->ev[st->n].op = op;
	return &st->ev[st->n++];
}

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

/* The stack of frames, kept once as the site is; NULL when none (or past the allowance). */
static const char *
frame_stack(struct pickle_state *st, const struct pk_val *frames)
{
	struct frames_memo *m = frames_memo(&st->walk, frames);
	uint64_t allowed = GMS_MAX(STACK_BYTES_MIN, (uint64_t)st->walk.len * STACK_BYTES_PER_BYTE);
	const char *stack;

	if (st->stack_bytes >= allowed)
		return NULL;
	if (m != NULL && m->have_stack) {
		stack = m->stack;
	} else if (st->walk.over != NULL) {
		return NULL;
	} else if (m == NULL) {
		stack = intern_site(st, stack_of(&st->walk, frames));
	} else {
		stack = m->stack = intern_site(st, stack_of(&st->walk, frames));
		m->have_stack = st->walk.over == NULL;
	}
	if (stack != NULL)
		st->stack_bytes += interned_len(stack);
	return stack;
}

/* The site of frames, kept once (a shared list is read once); NULL when none. */
static const char *
frame_at(struct pickle_state *st, const struct pk_val *frames)
{
	struct frames_memo *m = frames_memo(&st->walk, frames);

	if (m != NULL && m->have_at)
		return m->at;
	if (st->walk.over != NULL)
		return NULL;
	if (m == NULL)
		return intern_site(st, site_of(&st->walk, frames));
	m->at = intern_site(st, site_of(&st->walk, frames));
	m->have_at = st->walk.over == NULL;
	return m->at;
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
	out->frames = pk_get(e, "frames");
	return 0;
}

/*
 * A block live, or a segment reserved, before the first entry: where, its
 * bytes (requested, for a block), its frames (or NULL).
 */
struct seed {
	uint64_t addr, size;
	const struct pk_val *frames;
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
    const struct pk_val *frames, int64_t stream)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*arr = gms_realloc(*arr, *cap * sizeof(**arr));
	}
	(*arr)[(*n)++] = (struct seed){ addr, size, frames, stream };
}

/* A dump segment's stream (0 when it says none, or one out of range). */
static int64_t
seg_stream(const struct pk_val *seg)
{
	const struct pk_val *v = pk_get(seg, "stream");

	return pk_is(v, PK_INT) && v->u.i >= -TRACE_INT_MAX && v->u.i <= TRACE_INT_MAX ? v->u.i : 0;
}

/*
 * Before any walk: what the entries of every device trace and the blocks of
 * every segment add up to, charged before they are read, and no dict among
 * them (or a block's first history entry) with more keys than a snapshot's:
 * every later lookup in them is then short.
 */
static int
check_shape(const struct pk_val *traces, const struct pk_val *segments, struct walk *w,
    char **cause)
{
	const struct pk_val *seg, *b, *blocks;
	uint64_t n = 0;
	size_t i, j;

	for (i = 0; i < pk_len(traces); i++)
		n += pk_len(pk_item(traces, i));
	if (charge(w, n, "trace entries") < 0)
		return walk_fail(w, cause);
	for (i = 0; i < pk_len(traces); i++)
		for (j = 0; j < pk_len(pk_item(traces, i)); j++)
			if (too_many_keys(pk_item(pk_item(traces, i), j)))
				return gms_fail(cause, GMS_ETRACE, "device_traces[%zu][%zu] has %zu "
				    "keys (a trace entry has about 8): not a snapshot", i, j,
				    pk_item(pk_item(traces, i), j)->u.seq.n / 2);
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
 * First pass: count the actions and find what the trace does not show:
 * blocks freed with no recorded alloc, blocks live at the end never allocated
 * in the trace, and the segments reserved before the first entry: those
 * released with no recorded reservation, and those in the dump the trace
 * never reserved (expandable ones aside: their pages map and unmap).
 */
static int
scan(const struct pk_val *segments, const struct pk_val *tr, int64_t device, struct scan *sc,
    char **cause)
{
	const struct pk_val *seg, *blocks, *b, *v;
	struct addr_id *live = NULL, *segs = NULL, *a;
	struct entry en;
	size_t i, j, k;
	uint64_t off;
	int err = 0;

	for (i = 0; i < pk_len(tr) && err == 0; i++) {
		if ((err = read_entry(pk_item(tr, i), i, &en, cause)) < 0)
			break;
		if (en.kind < 0) {
			sc->unknown_actions++;
			continue;
		}
		sc->counts[en.kind]++;
		a = map_find(live, en.addr);
		if (en.kind == 0 && a != NULL) {
			err = gms_fail(cause, GMS_ETRACE, "trace entry %zu: alloc at %#llx, which is "
			    "already allocated", i, (unsigned long long)en.addr);
		} else if (en.kind == 0) {
			map_add(&live, en.addr, 0, en.size);
		} else if (en.kind == 1 && a == NULL) {
			seed_add(&sc->seed, &sc->nseed, &sc->seedcap, en.addr, en.size, en.frames,
			    en.stream);
		} else if (en.kind == 1) {
			HASH_DEL(live, a);
			free(a);
		} else if ((en.kind == 2 || en.kind == 4) && map_find(segs, en.addr) == NULL) {
			map_add(&segs, en.addr, 0, en.size);
		} else if (en.kind == 3 && map_find(segs, en.addr) == NULL) {
			/* released, never reserved in the trace: it was there before */
			seed_add(&sc->seedseg, &sc->nseedseg, &sc->seedsegcap, en.addr, en.size, NULL,
			    en.stream);
			map_add(&segs, en.addr, 0, en.size);
		}
	}
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
			if (map_find(live, (uint64_t)ba) == NULL)
				seed_add(&sc->seed, &sc->nseed, &sc->seedcap, (uint64_t)ba, (uint64_t)rq,
				    frames, seg_stream(seg));
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
			if (map_find(segs, (uint64_t)addr->u.i) != NULL)
				continue;
			seed_add(&sc->seedseg, &sc->nseedseg, &sc->seedsegcap, (uint64_t)addr->u.i,
			    (uint64_t)size->u.i, NULL, seg_stream(seg));
		}
	}
	clear_map(&live);
	clear_map(&segs);
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

static int
released_by(struct walk *w, const struct pk_val *frames)
{
	struct frames_memo *m = frames_memo(w, frames);

	if (m == NULL)
		return released_by_walk(w, frames);
	if (m->released == 2)
		m->released = released_by_walk(w, frames);
	return m->released;
}

/*
 * Whether the segment releases starting at entry i were torch.cuda.empty_cache():
 * the frames say so where there are any; else by what follows, since the
 * allocator releases segments itself only to make room (an OOM retry,
 * garbage collection, oversize blocks), and then reserves again or runs out
 * right after; releases followed by anything else were asked for.
 */
static int
called_empty_cache(struct walk *w, const struct pk_val *tr, size_t i)
{
	struct entry en;
	int by;

	if (read_entry(pk_item(tr, i), i, &en, NULL) == 0 && (by = released_by(w, en.frames)) >= 0)
		return by;
	for (; i < pk_len(tr); i++) {
		if (read_entry(pk_item(tr, i), i, &en, NULL) < 0)
			return 0;
		if (en.kind == 3 || en.kind == 5 || en.kind < 0 || en.kind >= KIND_KEPT)
			continue;
		return en.kind != 2 && en.kind != 4 && en.kind != 6;
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
	size_t since;		/* the trace entry that reserved it (its last
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
pools_since(const struct pk_val *tr, struct pools *pl)
{
	struct pool_seg *ps;
	struct entry en;
	size_t i;

	for (i = 0; pl->n > 0 && i < pk_len(tr); i++)
		if (read_entry(pk_item(tr, i), i, &en, NULL) == 0 && en.kind == 2 &&
		    (ps = pool_seg_at(pl, en.addr)) != NULL && ps->addr == en.addr)
			ps->since = i;
}

/* The private pool a block allocated at addr by trace entry i belongs to, or 0. */
static unsigned
pool_of(const struct pools *pl, uint64_t addr, size_t i)
{
	const struct pool_seg *ps = pool_seg_at(pl, addr);

	return ps != NULL && i >= ps->since ? ps->pool : 0;
}

/* Second pass: the seeds, then the trace's entries as events. */
static void
emit(struct pickle_state *st, const struct pk_val *tr, struct scan *sc, struct limit_scan *lim,
    const struct pools *pl)
{
	struct addr_id *live = NULL, *a;
	struct trace_event *pe;
	struct entry en;
	uint64_t id = 1;
	int in_release = 0, asked = 0;
	size_t i;

	/* addresses first in struct seed: cmp_pair orders them */
	if (sc->nseedseg > 0)
		qsort(sc->seedseg, sc->nseedseg, sizeof(*sc->seedseg), cmp_pair);
	for (i = 0; i < sc->nseedseg; i++) {
		pe = add(st, TRACE_SEGMENT_ALLOC);
		pe->addr = sc->seedseg[i].addr;
		pe->size = sc->seedseg[i].size;
		pe->stream = trace_pool_stream(pool_of(pl, pe->addr, 0), sc->seedseg[i].stream);
		pe->flags = TRACE_HAS_ADDR | TRACE_HAS_STREAM | TRACE_SEEDED;
		limit_event(lim, 2, sc->seedseg[i].size, 0);
	}
	if (sc->nseed > 0)
		qsort(sc->seed, sc->nseed, sizeof(*sc->seed), cmp_pair);
	for (i = 0; i < sc->nseed; i++) {
		/* a block freed and live again at the same address is seeded once */
		if (map_find(live, sc->seed[i].addr) != NULL)
			continue;
		pe = add(st, TRACE_ALLOC);
		pe->id = id;
		pe->addr = sc->seed[i].addr;
		pe->size = sc->seed[i].size;
		pe->flags = TRACE_HAS_ADDR | TRACE_HAS_STREAM | TRACE_SEEDED;
		pe->stream = trace_pool_stream(pool_of(pl, pe->addr, 0), sc->seed[i].stream);
		pe->at = frame_at(st, sc->seed[i].frames);
		pe->stack = frame_stack(st, sc->seed[i].frames);
		map_add(&live, sc->seed[i].addr, id++, 0);
	}
	for (i = 0; i < pk_len(tr); i++) {
		read_entry(pk_item(tr, i), i, &en, NULL);	/* checked by scan() */
		if (en.kind < 0 || en.kind >= KIND_KEPT)
			continue;
		a = map_find(live, en.addr);
		if (en.kind == 1 && a == NULL)
			continue;	/* cannot happen: scan() seeded it */
		if ((en.kind == 3 || en.kind == 5) && !in_release) {
			asked = called_empty_cache(&st->walk, tr, i);
			if (asked) {
				pe = add(st, TRACE_EMPTY_CACHE);
				if (en.t >= 0) {
					pe->t_us = en.t;
					pe->flags |= TRACE_HAS_TIME;
				}
				sc->empty_caches++;
			}
		}
		in_release = en.kind == 3 || en.kind == 5;
		limit_event(lim, en.kind, en.size, in_release && asked);
		pe = add(st, action_ops[en.kind]);
		pe->size = en.size;
		if (en.t >= 0) {
			pe->t_us = en.t;
			pe->flags |= TRACE_HAS_TIME;
		}
		switch (en.kind) {
		case 0:
			pe->id = id;
			map_add(&live, en.addr, id++, 0);
			pe->addr = en.addr;
			pe->stream = trace_pool_stream(pool_of(pl, en.addr, i), en.stream);
			pe->flags |= TRACE_HAS_ADDR | TRACE_HAS_STREAM;
			pe->at = frame_at(st, en.frames);
			pe->stack = frame_stack(st, en.frames);
			break;
		case 1:
			pe->id = a->id;
			pe->size = 0;	/* a free names its block; the size is the alloc's */
			HASH_DEL(live, a);
			free(a);
			break;
		case 6:
			/* the request that failed: replayed as one, never freed */
			pe->id = id++;
			pe->stream = en.stream;
			pe->flags |= TRACE_HAS_ID | TRACE_HAS_STREAM;
			pe->at = frame_at(st, en.frames);
			pe->stack = frame_stack(st, en.frames);
			break;
		default:
			pe->addr = en.addr;
			pe->stream = en.stream;
			pe->flags |= TRACE_HAS_ADDR | TRACE_HAS_STREAM;
			break;
		}
	}
	clear_map(&live);
}

/*
 * What the recording allocator did, as far as a complete trace shows it:
 * reserved bytes follow the segment events, requested bytes the allocs and
 * frees.  (Allocated bytes need the allocator's rounding: not known here.)
 */
static cJSON *
observed_from_events(const struct pickle_state *st)
{
	uint64_t reserved = 0, peak_reserved = 0, requested = 0, peak_requested = 0;
	uint64_t dallocs = 0, dfrees = 0, ooms = 0;
	struct addr_id *live = NULL, *a;
	const struct trace_event *ev;
	cJSON *o;
	size_t i;

	for (i = 0; i < st->n; i++) {
		ev = &st->ev[i];
		switch (ev->op) {
		case TRACE_SEGMENT_ALLOC:
		case TRACE_SEGMENT_MAP:
			reserved += ev->size;
			peak_reserved = GMS_MAX(peak_reserved, reserved);
			dallocs++;
			break;
		case TRACE_SEGMENT_FREE:
		case TRACE_SEGMENT_UNMAP:
			reserved -= GMS_MIN(reserved, ev->size);
			dfrees++;
			break;
		case TRACE_ALLOC:
			map_add(&live, ev->id, 0, ev->size);
			requested += ev->size;
			peak_requested = GMS_MAX(peak_requested, requested);
			break;
		case TRACE_FREE:
			if ((a = map_find(live, ev->id)) != NULL) {
				requested -= a->size;
				HASH_DEL(live, a);
				free(a);
			}
			break;
		case TRACE_OOM:
			ooms++;
			break;
		default:
			break;
		}
	}
	clear_map(&live);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "allocator", "pytorch-caching");
	cJSON_AddNumberToObject(o, "peak_reserved", (double)peak_reserved);
	cJSON_AddNumberToObject(o, "peak_requested", (double)peak_requested);
	cJSON_AddNumberToObject(o, "device_allocs", (double)dallocs);
	cJSON_AddNumberToObject(o, "device_frees", (double)dfrees);
	cJSON_AddNumberToObject(o, "ooms", (double)ooms);
	return o;
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
choose_device(const struct pk_val *traces, const struct pk_val *segments, int64_t *out,
    char **cause)
{
	uint64_t *entries = gms_calloc(MAX_DEVICES, sizeof(*entries));
	uint64_t *reserved = gms_calloc(MAX_DEVICES, sizeof(*reserved));
	const struct pk_val *seg, *d, *ts, *act;
	size_t i, j, nd = GMS_MIN(pk_len(traces), MAX_DEVICES), with = 0;
	char *list = NULL, *tmp, one[160];
	int k;

	for (i = 0; i < nd; i++)
		for (j = 0; j < pk_len(pk_item(traces, i)); j++) {
			act = pk_get(pk_item(pk_item(traces, i), j), "action");
			for (k = 0; pk_is(act, PK_STR) && k < KIND_KEPT; k++)
				if (strcmp(act->u.str.s, action_names[k]) == 0) {
					entries[i]++;
					break;
				}
		}
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

static int
pickle_open(struct trace_reader *r, char **cause)
{
	struct pickle_state *st = gms_calloc(1, sizeof(*st));
	const struct pk_val *root, *traces, *tr, *settings, *conf, *segments;
	struct scan sc = { 0 };
	struct limit_scan lim = { 0 };
	struct pools pools = { 0 };
	struct pickle *pk = NULL;
	cJSON *hdr, *src, *acts, *seeded;
	char *why = NULL, name[256], *dot;
	unsigned char *buf;
	size_t len;
	int64_t device = r->opts.device;
	int err, kind, history = 0;

	r->priv = st;
	/* Protocols 2 to 5 open with PROTO: refuse anything else before holding it. */
	if ((kind = gzgetc(r->gz)) != 0x80) {
		err = gms_fail(&why, GMS_ETRACE, "not a pickle (%s)", kind < 0 ?
		    "empty file" : "its first byte is not the PROTO opcode 0x80");
		goto fail;
	}
	gzungetc(kind, r->gz);
	if ((err = trace_slurp(r, (char **)&buf, &len, &why)) < 0)
		goto fail;
	root = pickle_parse(buf, len, &pk, &why);
	free(buf);
	if (root == NULL) {
		err = GMS_ETRACE;
		goto fail;
	}
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
	st->walk.len = len;
	st->walk.budget = WALK_FLOOR + (uint64_t)len * WALK_PER_BYTE;
	if ((err = check_shape(traces, segments, &st->walk, &why)) < 0)
		goto fail;
	if (device < 0 && (err = choose_device(traces, segments, &device, &why)) < 0)
		goto fail;
	tr = (size_t)device < pk_len(traces) ? pk_item(traces, (size_t)device) : NULL;
	if (tr != NULL && !pk_is(tr, PK_LIST)) {
		err = gms_fail(&why, GMS_ETRACE, "device_traces[%lld] is not a list", (long long)device);
		goto fail;
	}
	if ((err = scan(segments, tr, device, &sc, &why)) < 0)
		goto fail;
	if (pk_len(tr) == 0 && sc.dump_segments == 0 && r->opts.device >= 0 &&
	    (size_t)device >= pk_len(traces) && pk_len(traces) > 0) {
		err = gms_fail(&why, GMS_ETRACE, "no device %lld: the snapshot has traces for "
		    "devices 0 to %zu", (long long)device, pk_len(traces) - 1);
		goto fail;
	}
	if (pk_len(tr) == 0 && sc.dump_segments == 0) {
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
	pools_scan(segments, device, &pools);
	pools_since(tr, &pools);
	emit(st, tr, &sc, &lim, &pools);
	free(pools.seg);
	walk_free(&st->walk);
	if (st->walk.over != NULL) {
		err = walk_fail(&st->walk, &why);
		goto fail;
	}
	/* entries that become events; a lone "snapshot" entry is no history */
	for (kind = 0; kind < KIND_KEPT; kind++)
		history |= sc.counts[kind] > 0;

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
		if (sc.counts[kind])
			cJSON_AddNumberToObject(acts, action_names[kind], (double)sc.counts[kind]);
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
	if (sc.empty_caches > 0)
		cJSON_AddNumberToObject(src, "empty_cache_inferred", (double)sc.empty_caches);
	if (pools.nids > 0)
		cJSON_AddNumberToObject(src, "graph_pools", (double)pools.nids);
	{
		cJSON *dump = cJSON_AddObjectToObject(src, "dump");

		cJSON_AddNumberToObject(dump, "segments", (double)sc.dump_segments);
		cJSON_AddNumberToObject(dump, "reserved", (double)sc.dump_reserved);
		cJSON_AddNumberToObject(dump, "active", (double)sc.dump_active);
		cJSON_AddNumberToObject(dump, "requested", (double)sc.dump_requested);
		cJSON_AddNumberToObject(dump, "largest_free", (double)sc.dump_largest_free);
	}
	if (sc.nseed > 0 || sc.nseedseg > 0) {
		seeded = cJSON_AddObjectToObject(src, "seeded");
		cJSON_AddNumberToObject(seeded, "allocs", (double)sc.nseed);
		cJSON_AddNumberToObject(seeded, "segments", (double)sc.nseedseg);
		cJSON_AddStringToObject(seeded, "unknown", !history ? "everything before "
		    "the dump: the snapshot has no history, only the state at dump" : "when, and in "
		    "what order, the seeded blocks and segments were allocated: before the first entry");
		cJSON_AddBoolToObject(src, "history", history);
		cJSON_AddBoolToObject(hdr, "starts_mid_run", 1);
	} else {
		cJSON *obs = observed_from_events(st);

		if (lim.known && lim.hi >= lim.peak) {
			cJSON_AddNumberToObject(obs, "limit_min", (double)lim.peak);
			cJSON_AddNumberToObject(obs, "limit_max", (double)lim.hi);
		}
		cJSON_AddItemToObject(hdr, "observed", obs);
	}
	if (sc.counts[6] > 0)
		cJSON_AddBoolToObject(hdr, "ends_in_oom", 1);
	pickle_free(pk);
	free(sc.seed);
	free(sc.seedseg);
	if ((err = trace_take_header(r, hdr, &why)) < 0)
		goto fail_taken;
	return 0;
fail:
	walk_free(&st->walk);
	pickle_free(pk);
	free(sc.seed);
	free(sc.seedseg);
fail_taken:
	gms_fail(cause, err, "%s: %s", r->path, why ? why : "cannot read");
	free(why);
	return err;
}

static int
pickle_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	struct pickle_state *st = r->priv;

	if (st->next >= st->n)
		return 0;
	*ev = st->ev[st->next++];
	return 1;
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
	HASH_ITER(hh, st->sites, e, tmp) {
		HASH_DEL(st->sites, e);
		free(e);
	}
	free(st->ev);
	free(st);
}

const struct trace_format trace_format_pickle = {
	.name = "pickle",
	.open = pickle_open,
	.next = pickle_next,
	.where = pickle_where,
	.close = pickle_close,
};
