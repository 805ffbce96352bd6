/*
 * pickle-frames.c - the snapshot reader's frames (pickle-snap.h): a
 * list of frames summarized once, its site (the first frame outside
 * PyTorch's plumbing), its stack and who released a segment; the walks'
 * budget against reference bombs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/pickle-snap.h"

/*
 * Frames of PyTorch's own plumbing: `at` names the caller instead.  Matched
 * on paths with '/' (Windows' backslashes are turned first); the modules
 * (torch/nn/modules/) are not plumbing: they say which layer allocated,
 * after the user's frame that called it (site_of).  Code that TorchInductor
 * generates lives in its cache directory (torchinductor_USER).
 */
static const char *const plumbing[] = {
	"torch/nn/functional.py", "torch/_jit_internal.py", "torch/autograd/",
	"torch/optim/", "torch/_ops.py", "torch/utils/", "torch/_tensor_str.py",
	"torch/functional.py", "torch/_tensor.py", "torch/_functorch/", "torch/_dynamo/",
	"torch/_inductor/", "torchinductor_", "torch/_higher_order_ops/", "torch/_prims",
	"torch/_refs/", "torch/_decomp/", "torch/fx/", "torch/_subclasses/",
	"torch/overrides.py", "torch/_library/", "torch/_compile.py", "torch/amp/",
	"torch/cuda/amp/", "torch/_C/", "torch/random.py", "torch/_utils.py",
	"torch/nn/modules/module.py",	/* Module's calling and moving, not a layer */
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

/* Charge n steps of what; 0, or -1 once the walk is past its budget. */
int
snap_charge(struct walk *w, uint64_t n, const char *what)
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

int
snap_walk_fail(const struct walk *w, char **cause)
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
int
snap_too_many_keys(const struct pk_val *d)
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
	if (snap_too_many_keys(f))
		return snap_charge(w, w->budget + 1, "frames");	/* not a frame */
	return snap_charge(w, 1 + (pk_is(f, PK_DICT) ? f->u.seq.n : 0), "frames");
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
	if (snap_charge(w, s->u.str.len, "frames") < 0)
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

/* A Python frame as a site: "conv.py:548 _conv_forward" (its file's base name). */
static char *
frame_site(struct walk *w, const struct pk_val *f)
{
	const struct pk_val *file = pk_get(f, "filename"), *line = pk_get(f, "line");
	const struct pk_val *name = pk_get(f, "name");
	const char *base, *path;
	char buf[4096];

	/* the site is built, and interned, from its strings: their length each time */
	if (snap_charge(w, GMS_MIN(file->u.str.len, sizeof(buf)) + (pk_is(name, PK_STR) ?
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
 * Whether a Python frame is the user's: not PyTorch's and not an installed
 * package's (the line a person can change), as the profile reader's sites.
 */
static int
users_frame(const char *path)
{
	return strncmp(path, "torch/", 6) != 0 && strstr(path, "/torch/") == NULL &&
	    strstr(path, "site-packages/") == NULL && strstr(path, "dist-packages/") == NULL;
}

/*
 * The allocation's site, from its frames (innermost first): the user's
 * frame (users_frame: "train.py:82 step"), followed by the library's where
 * the allocation was made inside one ("train.py:82 step via linear.py:134
 * forward": the first Python frame outside PyTorch's own plumbing, the
 * layer); without a user's frame, that library frame alone, else the first
 * Python frame; else (the autograd engine's backward thread has no Python
 * frames) the autograd node that ran ("AddmmBackward0 (backward)"), else the
 * first C++ frame that is not plumbing, named without its argument list.
 * NULL when none.
 */
static char *
site_of(struct walk *w, const struct pk_val *frames)
{
	const struct pk_val *f, *file, *name, *py = NULL, *lib = NULL, *cpp = NULL, *mine = NULL;
	const struct pk_val *pick;
	const char *fn;
	char node[256] = "", buf[4096], *a, *b, *site;
	unsigned fc, nc;
	size_t i;

	for (i = 0; i < pk_len(frames) && mine == NULL; i++) {
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
			if (lib == NULL && !(fc & S_PLUMBING))
				lib = f;
			if (!(fc & S_PLUMBING) && users_frame(slashed(file->u.str.s, buf,
			    sizeof(buf))))
				mine = f;
		} else if (node[0] == '\0' && (nc & S_NODE) &&
		    snap_charge(w, name->u.str.len, "frames") == 0 && autograd_node(fn, node, sizeof(node))) {
			continue;
		} else if (cpp == NULL && *fn != '\0' && !(nc & S_CPP_PLUMBING) &&
		    !(fc & S_NOISE_FILE)) {
			cpp = f;
		}
	}
	if (w->over != NULL)
		return NULL;
	pick = lib ? lib : py;
	if (pick == NULL && node[0] != '\0')
		return gms_asprintf("%s (backward)", node);
	if (pick == NULL && cpp != NULL)
		return snap_charge(w, pk_get(cpp, "name")->u.str.len, "frames") < 0 ? NULL :
		    cpp_name(pk_get(cpp, "name")->u.str.s);
	if (pick == NULL)
		return NULL;
	/* PyTorch's plumbing alone between the user's frame and the allocation: no layer */
	if (mine == NULL || mine == pick || lib == NULL)
		return frame_site(w, mine != NULL ? mine : pick);
	if ((a = frame_site(w, mine)) == NULL || (b = frame_site(w, pick)) == NULL) {
		free(a);
		return NULL;
	}
	site = gms_asprintf("%s via %s", a, b);
	free(a);
	free(b);
	return site;
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
		snap_charge(w, len - before, "frames");
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
const char *
snap_frame_stack(struct pickle_state *st, uint32_t sid)
{
	uint64_t allowed = GMS_MAX(STACK_BYTES_MIN, st->walk.len * STACK_BYTES_PER_BYTE);
	const char *stack = st->sum[sid].stack;

	if (st->stack_bytes >= allowed)
		return NULL;
	if (stack != NULL)
		st->stack_bytes += interned_len(stack);
	return stack;
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

void
snap_fmemo_free(struct fmemo **h)
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
uint32_t
snap_sid_of(struct pickle_state *st, const struct pk_val *entry, const struct pk_val *frames)
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
void
snap_batch_end(struct pickle_state *st)
{
	size_t i;

	for (i = 0; i < st->nbatch; i++)
		if (pk_gone(st->batch[i]->frames)) {
			HASH_DEL(st->byptr, st->batch[i]);
			free(st->batch[i]);
		}
	st->nbatch = 0;
}
