/*
 * pickle.c - the pickle subset reader of pickle.h: a small stack machine over
 * the opcodes PyTorch's snapshot writers emit (CPython's C pickler, protocol
 * 4 or 5, and the TorchScript pickler of the C++ path, protocol 2).  Every
 * length and index is checked against what is left of the input, so absurd
 * counts and truncations end in a located error.
 *
 * Memory stays in proportion to the input: a value popped off the stack and
 * never memoized has no other reference, so it is recycled, and everything
 * the machine holds is counted against a budget set from the input's length
 * (a stream of one-byte opcodes must not cost gigabytes).
 *
 * A dict that sets one key twice is refused: Python keeps the last value
 * and a lookup here would find the first, so the two would read different
 * snapshots.  PyTorch never writes one.
 *
 * The input is read through a window (pickle_read) or given whole
 * (pickle_parse).  Streamed trace entries are let go after their batch is
 * handed out: the memo names them GONE from then on, and with them go what
 * they hold that the memo does not name, and the lists the reader stood in
 * for (pk_stub: a PK_REF in the memo), as long as nothing older can reach
 * those lists: only lists made after the entry began, memoized once.  The
 * memo holds 32-bit slots into a table of the memoized values still alive,
 * so a let-go entry costs its memo slots only.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "sim/gms.h"
#include "traces/pickle.h"

/* Deeper nesting than this is not a snapshot. */
#define PK_MAX_STACK (1u << 20)
#define PK_ARENA_CHUNK (64u << 10)
/*
 * What the machine may hold per byte of input, beyond a 64 MiB floor.  The
 * bundled snapshots need 4.7 (ResNet-50) and 4.9 (GPT-2); a stream of
 * one-byte opcodes that each leave a 32-byte value on the stack needs 40.
 */
#define PK_BYTES_PER_INPUT_BYTE 16u
/* The window a stream is read through; a string longer than PK_MAX_WINDOW is no snapshot's. */
#define PK_WINDOW (1u << 20)
#define PK_MAX_WINDOW ((size_t)1 << 30)
/* Lists of device_traces streamed at most (MAX_DEVICES in trace-pickle.c). */
#define PK_MAX_DEVICES 4096

/* The machine's flags on a value. */
#define PKF_MEMO	0x01	/* reachable from the memo: may be shared */
#define PKF_LISTED	0x02	/* in the pickle's list of sequences to free */
#define PKF_PIN		0x04	/* never recycled: an interned string, or pinned by the reader */
#define PKF_FREE	0x08	/* recycled: among the spares */
#define PKF_DEVICE	0x10	/* a list of device_traces: streamed (u.seq.cap is its device) */

/* Memo slots: 0 unset, GONE a let-go value, else an index into vals. */
#define SLOT_GONE 1u
#define SLOT_FIRST 2u

/*
 * The memo in pages of MEMO_PAGE slots.  Once a streamed batch is let go,
 * the full pages below it are packed when they hold at most 256 distinct
 * slots (a snapshot's entries name few: GONE, a shared "N/A", the summaries
 * of their frames): a byte a slot and the distinct ones.  A packed page
 * written again (a BINPUT far back) is unpacked.
 */
#define MEMO_PAGE 4096
struct memo_page {
	uint32_t *raw;			/* the slots, or NULL when packed */
	uint8_t *idx;			/* packed: each slot's place in pal */
	uint32_t *pal;
	size_t npal;
};

struct str_intern {
	struct pk_val *v;
	UT_hash_handle hh;
};

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct pickle {
	struct arena_chunk *arena;
	struct pk_val *spare;		/* recycled values, chained through u.seq.items */
	struct pk_val *spare_seq;	/* recycled lists and dicts that keep their item
					   arrays, chained through u.seq.n */
	struct pk_val **work;		/* recycle()'s work list */
	size_t nwork, wcap;
	size_t used, budget;		/* bytes the machine holds, and its limit */
	int protocol;
	struct pk_val **seqs;		/* every list, tuple and dict: their item
					   arrays are heap blocks to free */
	size_t nseqs, seqcap;
	/* The machine, while parsing. */
	struct pk_val **stack;		/* PK_MARK entries are NULL */
	size_t sp, scap;
	struct memo_page *memo;
	size_t nmemo, npages, mcap;	/* slots in use, pages made, pages room */
	size_t packed;			/* pages below this one were tried */
	struct pk_val **vals;		/* memoized values alive, by vidx */
	uint64_t *vfirst;		/* ... the memo index each was first put at */
	size_t nvals, vcap;
	uint32_t *vfree;		/* vidx free for reuse */
	size_t nvfree, vfcap;
	struct str_intern *strs;	/* every string, once */
	struct pk_val *traces;		/* the root's device_traces, once seen */
	size_t ndevices;		/* lists streamed */
	int in_batch;			/* pk_stub may let lists go */
	struct pk_val **refs;		/* PK_REF values by id */
	size_t nrefs;
	uint64_t bytes;			/* input read */
};

/* n bytes aligned to align (a power of two). */
static void *
arena_alloc(struct pickle *p, size_t n, size_t align)
{
	struct arena_chunk *c = p->arena;
	size_t size;
	void *r;

	/* aligning may pass the end of a chunk that a long string filled */
	if (c != NULL)
		c->used = GMS_MIN((c->used + align - 1) & ~(align - 1), c->size);
	if (c == NULL || c->size - c->used < n) {
		size = GMS_MAX(n, (size_t)PK_ARENA_CHUNK);
		p->used += sizeof(*c) + size;
		c = gms_malloc(sizeof(*c) + size);
		c->used = 0;
		c->size = size;
		c->next = p->arena;
		p->arena = c;
	}
	r = (char *)c->data + c->used;
	c->used += n;
	return r;
}

static struct pk_val *
new_val(struct pickle *p, enum pk_type t)
{
	struct pk_val *v = p->spare;
	unsigned char listed = 0;

	/* a list or dict made again (one a trace entry) reuses an item array */
	if ((t == PK_LIST || t == PK_TUPLE || t == PK_DICT) && (v = p->spare_seq) != NULL) {
		p->spare_seq = (struct pk_val *)(uintptr_t)v->u.seq.n;
		v->u.seq.n = 0;
		v->type = (unsigned char)t;
		v->flags = PKF_LISTED;
		v->mark = 0;
		v->vidx = 0;
		return v;
	}
	v = p->spare;
	if (v != NULL) {
		p->spare = (struct pk_val *)v->u.seq.items;
		listed = v->flags & PKF_LISTED;
	} else {
		v = arena_alloc(p, sizeof(*v), _Alignof(struct pk_val));
	}
	memset(v, 0, sizeof(*v));
	v->type = (unsigned char)t;
	v->flags = listed;
	return v;
}

/* Double *cap (from init) and *ptr's array with it, counting the new bytes against the budget. */
static void *
grow(struct pickle *p, void *ptr, size_t *cap, size_t init, size_t size)
{
	p->used += (*cap ? *cap : init) * size;
	*cap = *cap ? *cap * 2 : init;
	return gms_realloc(ptr, *cap * size);
}

/*
 * A value popped for good: unless the memo can reach it, nothing else can,
 * nor can anything reach its unmemoized items, so all of them are recycled.
 */
#define KEPT (PKF_MEMO | PKF_PIN | PKF_FREE)

static void
recycle(struct pickle *p, struct pk_val *v)
{
	struct pk_val *x;
	size_t i;

	if (v == NULL || (v->flags & KEPT))
		return;
	p->nwork = 0;
	p->work[p->nwork++] = v;
	v->flags |= PKF_FREE;
	while (p->nwork > 0) {
		x = p->work[--p->nwork];
		if (x->type == PK_LIST || x->type == PK_TUPLE || x->type == PK_DICT) {
			for (i = 0; i < x->u.seq.n; i++) {
				/* a value named twice inside one entry is let go once */
				if (x->u.seq.items[i]->flags & KEPT)
					continue;
				if (p->nwork == p->wcap) {
					p->wcap *= 2;
					p->work = gms_realloc(p->work, p->wcap * sizeof(*p->work));
				}
				x->u.seq.items[i]->flags |= PKF_FREE;
				p->work[p->nwork++] = x->u.seq.items[i];
			}
			if (x->u.seq.cap > 0 && !(x->flags & PKF_DEVICE)) {
				/* kept, still counted: the next list or dict takes it */
				x->type = PK_LIST;
				x->flags &= PKF_LISTED | PKF_FREE;
				x->u.seq.n = (size_t)(uintptr_t)p->spare_seq;
				p->spare_seq = x;
				continue;
			}
			if (!(x->flags & PKF_DEVICE))
				p->used -= x->u.seq.cap * sizeof(*x->u.seq.items);
			free(x->u.seq.items);
		}
		x->type = PK_NONE;
		x->flags &= PKF_LISTED | PKF_FREE;
		x->u.seq.items = (struct pk_val **)p->spare;
		p->spare = x;
	}
}

/* Append item; -1 when growing s would take the machine past its budget. */
static int
seq_push(struct pickle *p, struct pk_val *s, struct pk_val *item)
{
	size_t more;

	if (s->u.seq.n == s->u.seq.cap) {
		/* checked before the realloc, which briefly holds old and new */
		more = (s->u.seq.cap ? s->u.seq.cap : 4) * sizeof(item);
		if (p->used + 2 * more > p->budget) {
			p->used = p->budget + 1;
			return -1;
		}
		s->u.seq.items = grow(p, s->u.seq.items, &s->u.seq.cap, 4, sizeof(item));
	}
	s->u.seq.items[s->u.seq.n++] = item;
	return 0;
}

struct parser {
	struct pickle *p;
	unsigned char *buf;	/* the window: the input from byte base */
	size_t len, pos, cap;
	uint64_t base;
	uint64_t op_at;		/* offset of the opcode being run */
	pk_read_fn rd;		/* NULL: buf is the whole input */
	void *rctx;
	int eof;
	pk_entry_fn entry;
	void *ectx;
	char **cause;
};

static int
fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct parser *ps, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gms_fail(ps->cause, GMS_ETRACE, "pickle byte %llu: %s",
	    (unsigned long long)ps->op_at, msg);
}

static int
over_budget(struct parser *ps)
{
	return fail(ps, "holding this pickle's values needs more than %zu MiB (%llu bytes of "
	    "input): not a snapshot", ps->p->budget >> 20, (unsigned long long)ps->p->bytes);
}

static size_t pickle_budget(uint64_t len);

/*
 * At least n bytes in the window from pos, reading more as needed: 0, 1 when
 * the input ends first, or a negative error with *cause.
 */
static int
fill(struct parser *ps, size_t n)
{
	long got;

	if (ps->rd == NULL || ps->eof)
		return 1;
	if (n > PK_MAX_WINDOW)
		return fail(ps, "a value of %zu bytes: longer than any snapshot's", n);
	if (ps->pos > 0) {
		memmove(ps->buf, ps->buf + ps->pos, ps->len - ps->pos);
		ps->base += ps->pos;
		ps->len -= ps->pos;
		ps->pos = 0;
	}
	while (ps->len < n) {
		/* grown as the bytes come: a length the input does not hold costs nothing */
		if (ps->len == ps->cap) {
			ps->cap = GMS_MIN(n, 2 * ps->cap);
			ps->buf = gms_realloc(ps->buf, ps->cap);
		}
		if ((got = ps->rd(ps->rctx, ps->buf + ps->len, ps->cap - ps->len, ps->cause)) < 0)
			return GMS_ETRACE;
		if (got == 0) {
			ps->eof = 1;
			break;
		}
		ps->len += (size_t)got;
	}
	ps->p->bytes = ps->base + ps->len;
	ps->p->budget = pickle_budget(ps->p->bytes);
	return ps->len < n;
}

static int
need(struct parser *ps, size_t n)
{
	int err;

	if (ps->len - ps->pos >= n)
		return 0;
	if ((err = fill(ps, n)) < 0)
		return err;
	if (err > 0)
		return fail(ps, "truncated pickle (needs %zu more bytes, %zu left)", n,
		    ps->len - ps->pos);
	return 0;
}

static uint64_t
le(const unsigned char *b, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = n; i > 0; i--)
		v = v << 8 | b[i - 1];
	return v;
}

static int
push(struct parser *ps, struct pk_val *v)
{
	struct pickle *p = ps->p;

	if (p->sp == p->scap) {
		if (p->scap >= PK_MAX_STACK)
			return fail(ps, "stack deeper than %u: not a snapshot", PK_MAX_STACK);
		p->stack = grow(p, p->stack, &p->scap, 64, sizeof(*p->stack));
	}
	p->stack[p->sp++] = v;
	return 0;
}

static struct pk_val *
new_seq(struct parser *ps, enum pk_type t)
{
	struct pickle *p = ps->p;
	struct pk_val *v = new_val(p, t);

	if (v->flags & PKF_LISTED)
		return v;
	v->flags |= PKF_LISTED;
	if (p->nseqs == p->seqcap) {
		p->seqs = grow(p, p->seqs, &p->seqcap, 64, sizeof(*p->seqs));
	}
	p->seqs[p->nseqs++] = v;
	return v;
}

/* The topmost value (not a mark). */
static int
top(struct parser *ps, struct pk_val **out)
{
	if (ps->p->sp == 0 || ps->p->stack[ps->p->sp - 1] == NULL)
		return fail(ps, "stack underflow");
	*out = ps->p->stack[ps->p->sp - 1];
	return 0;
}

static int
pop(struct parser *ps, struct pk_val **out)
{
	int err;

	if ((err = top(ps, out)) < 0)
		return err;
	ps->p->sp--;
	return 0;
}

/* The position just above the topmost mark. */
static int
mark_pos(struct parser *ps, size_t *at)
{
	size_t i;

	for (i = ps->p->sp; i > 0; i--)
		if (ps->p->stack[i - 1] == NULL) {
			*at = i;
			return 0;
		}
	return fail(ps, "no MARK on the stack");
}

/* v's place among the memoized values, made on its first memo put at idx. */
static uint32_t
val_slot(struct pickle *p, struct pk_val *v, uint64_t idx)
{
	uint32_t k;

	if (v->vidx != 0)
		return v->vidx;
	if (p->nvfree > 0) {
		k = p->vfree[--p->nvfree];
	} else {
		if (p->nvals < SLOT_FIRST)
			p->nvals = SLOT_FIRST;
		if (p->nvals >= p->vcap) {
			p->vals = grow(p, p->vals, &p->vcap, 256, sizeof(*p->vals));
			p->vfirst = gms_realloc(p->vfirst, p->vcap * sizeof(*p->vfirst));
			p->used += p->vcap / 2 * sizeof(*p->vfirst);
		}
		k = (uint32_t)p->nvals++;
	}
	p->vals[k] = v;
	p->vfirst[k] = idx;
	v->vidx = k;
	return k;
}

/* Memo slot idx (< nmemo). */
static uint32_t
slot_get(const struct pickle *p, uint64_t idx)
{
	const struct memo_page *pg = &p->memo[idx / MEMO_PAGE];

	return pg->raw != NULL ? pg->raw[idx % MEMO_PAGE] : pg->pal[pg->idx[idx % MEMO_PAGE]];
}

static void
slot_set(struct pickle *p, uint64_t idx, uint32_t k)
{
	struct memo_page *pg = &p->memo[idx / MEMO_PAGE];
	size_t i;

	if (pg->raw == NULL) {
		pg->raw = gms_malloc(MEMO_PAGE * sizeof(*pg->raw));
		for (i = 0; i < MEMO_PAGE; i++)
			pg->raw[i] = pg->pal[pg->idx[i]];
		p->used += MEMO_PAGE * sizeof(*pg->raw);
		p->used -= MEMO_PAGE + pg->npal * sizeof(*pg->pal);
		free(pg->idx);
		free(pg->pal);
		pg->idx = NULL;
		pg->pal = NULL;
	}
	pg->raw[idx % MEMO_PAGE] = k;
}

/* Pack the raw pages wholly below slot end, where they hold few distinct slots. */
static void
memo_pack(struct pickle *p, uint64_t end)
{
	uint32_t pal[256], seen[512];	/* seen: slot + 1 by its hash, for its place */
	uint8_t place[512], *idx;
	struct memo_page *pg;
	size_t np, i, h;

	for (; p->packed < end / MEMO_PAGE; p->packed++) {
		pg = &p->memo[p->packed];
		if (pg->raw == NULL)
			continue;
		memset(seen, 0, sizeof(seen));
		idx = gms_malloc(MEMO_PAGE);
		for (i = 0, np = 0; i < MEMO_PAGE; i++) {
			for (h = (pg->raw[i] * 2654435761u) >> 23; seen[h] != 0 &&
			    seen[h] != pg->raw[i] + 1; h = (h + 1) % 512)
				;
			if (seen[h] == 0) {
				if (np == 256)
					break;
				seen[h] = pg->raw[i] + 1;
				place[h] = (uint8_t)np;
				pal[np++] = pg->raw[i];
			}
			idx[i] = place[h];
		}
		if (i < MEMO_PAGE) {
			free(idx);
			continue;
		}
		pg->pal = gms_malloc(np * sizeof(*pg->pal));
		memcpy(pg->pal, pal, np * sizeof(*pg->pal));
		pg->npal = np;
		pg->idx = idx;
		free(pg->raw);
		pg->raw = NULL;
		p->used -= MEMO_PAGE * sizeof(*pg->raw) - MEMO_PAGE - np * sizeof(*pg->pal);
	}
}

static void
memo_free(struct pickle *p)
{
	size_t i;

	for (i = 0; i < p->npages; i++) {
		free(p->memo[i].raw);
		free(p->memo[i].idx);
		free(p->memo[i].pal);
	}
	free(p->memo);
	p->memo = NULL;
	p->nmemo = p->npages = p->mcap = p->packed = 0;
}

static int
memo_put(struct parser *ps, uint64_t idx, struct pk_val *v)
{
	struct pickle *p = ps->p;
	uint32_t old;

	/* Indices come in order; one past what the input could ever hold is absurd. */
	if (idx > ps->base + ps->pos || idx >= UINT32_MAX)
		return fail(ps, "memo index %llu out of range", (unsigned long long)idx);
	while (idx / MEMO_PAGE >= p->npages) {
		if (p->npages == p->mcap)
			p->memo = grow(p, p->memo, &p->mcap, 16, sizeof(*p->memo));
		p->memo[p->npages++] = (struct memo_page){
			.raw = gms_calloc(MEMO_PAGE, sizeof(*p->memo->raw)) };
		p->used += MEMO_PAGE * sizeof(*p->memo->raw);
	}
	p->nmemo = GMS_MAX(p->nmemo, idx + 1);
	old = slot_get(p, idx);
	/* named from two slots, or a slot reused: never let go (one slot would dangle) */
	if ((v->flags & PKF_MEMO) || old >= SLOT_FIRST)
		v->flags |= PKF_PIN;
	if (old >= SLOT_FIRST)
		p->vals[old]->flags |= PKF_PIN;
	if (p->nvals >= UINT32_MAX - 1 && v->vidx == 0)
		return fail(ps, "more than %u values named by the memo at once", UINT32_MAX - 2);
	slot_set(p, idx, val_slot(p, v, idx));
	v->flags |= PKF_MEMO;
	return 0;
}

static int
memo_get(struct parser *ps, uint64_t idx)
{
	uint32_t k = idx < ps->p->nmemo ? slot_get(ps->p, idx) : 0;

	if (k == SLOT_GONE)
		return fail(ps, "memo get of index %llu, a trace entry (or a value made inside "
		    "one) already read: a snapshot names each entry once",
		    (unsigned long long)idx);
	if (k == 0)
		return fail(ps, "memo get of unknown index %llu", (unsigned long long)idx);
	return push(ps, ps->p->vals[k]);
}

/* Let v go from the memo: its slot holds slot (GONE, or a stand-in's) from now on. */
static void
forget(struct pickle *p, struct pk_val *v, uint32_t slot)
{
	slot_set(p, p->vfirst[v->vidx], slot);
	p->vals[v->vidx] = NULL;
	if (p->nvfree == p->vfcap)
		p->vfree = grow(p, p->vfree, &p->vfcap, 256, sizeof(*p->vfree));
	p->vfree[p->nvfree++] = v->vidx;
	v->vidx = 0;
	v->flags &= (unsigned char)~PKF_MEMO;
}

/* Whether child, memoized once and made inside entry, may go with it. */
static int
goes_with(const struct pickle *p, const struct pk_val *entry, const struct pk_val *child)
{
	return (entry->flags & (PKF_MEMO | PKF_PIN | PKF_FREE)) == PKF_MEMO &&
	    (child->flags & (PKF_MEMO | PKF_PIN | PKF_FREE)) == PKF_MEMO &&
	    p->vfirst[child->vidx] > p->vfirst[entry->vidx];
}

static int
push_str(struct parser *ps, size_t n)
{
	struct pk_val *v;
	struct str_intern *e;
	char *s;
	int err;

	if ((err = need(ps, n)) < 0)
		return err;
	/* the readers treat strings as C strings: "alloc\0x" must not read as "alloc" */
	if (memchr(ps->buf + ps->pos, '\0', n) != NULL)
		return fail(ps, "a string holds a NUL byte");
	/* one value for each text: a snapshot writes "N/A" anew in every entry */
	HASH_FIND(hh, ps->p->strs, ps->buf + ps->pos, n, e);
	if (e != NULL) {
		ps->pos += n;
		return push(ps, e->v);
	}
	v = new_val(ps->p, PK_STR);
	v->flags |= PKF_PIN;
	s = arena_alloc(ps->p, n + 1, 1);
	memcpy(s, ps->buf + ps->pos, n);
	s[n] = '\0';
	v->u.str.s = s;
	v->u.str.len = n;
	e = arena_alloc(ps->p, sizeof(*e), _Alignof(struct str_intern));
	e->v = v;
	HASH_ADD_KEYPTR(hh, ps->p->strs, s, n, e);
	ps->pos += n;
	return push(ps, v);
}

static int
push_int(struct parser *ps, int64_t i)
{
	struct pk_val *v = new_val(ps->p, PK_INT);

	v->u.i = i;
	return push(ps, v);
}

/*
 * The n-byte two's complement integer at ps->pos: a PK_INT when int64 holds
 * it, else a PK_BIGINT (Python reads any width; a snapshot needs only 64 bits).
 */
static int
push_long(struct parser *ps, uint64_t n)
{
	const unsigned char *b = ps->buf + ps->pos;
	int neg = n > 0 && (b[n - 1] & 0x80);
	uint64_t u, i;

	/* past 8 bytes, the extra ones must only repeat the sign */
	for (i = 8; i < n; i++)
		if (b[i] != (neg ? 0xff : 0x00))
			return push(ps, new_val(ps->p, PK_BIGINT));
	if (n > 8 && (b[7] & 0x80) != (neg ? 0x80 : 0))
		return push(ps, new_val(ps->p, PK_BIGINT));
	u = le(b, n > 8 ? 8 : n);
	if (n > 0 && n < 8 && neg)
		u |= ~(uint64_t)0 << (8 * n);	/* sign-extend */
	return push_int(ps, (int64_t)u);
}

/* TUPLE, TUPLE1..3: the top n values (or those above the mark) become a tuple. */
static int
make_tuple(struct parser *ps, size_t from)
{
	struct pk_val *t = new_seq(ps, PK_TUPLE);
	size_t i;

	for (i = from; i < ps->p->sp; i++) {
		if (ps->p->stack[i] == NULL)
			return fail(ps, "MARK inside a tuple");
		if (seq_push(ps->p, t, ps->p->stack[i]) < 0)
			return over_budget(ps);
	}
	ps->p->sp = from;
	return push(ps, t);
}

static const struct pk_val *duplicate_key(const struct pk_val *d,
    const struct pk_val ***scratch, size_t *cap);
static int dup_fail(const struct pk_val *k, char **cause);

/*
 * A new list that is the root's device_traces (its key just pushed, the root
 * dict at the bottom of the stack), or one of that list's items: tagged, so
 * that what is appended to it streams.
 */
static void
tag_list(struct parser *ps, struct pk_val *v)
{
	struct pickle *p = ps->p;
	struct pk_val *t, *root = p->sp > 0 ? p->stack[0] : NULL;
	size_t sp = p->sp, at, dev;

	if (sp == 0 || root == NULL || root->type != PK_DICT)
		return;
	t = p->stack[sp - 1];
	if (p->traces == NULL) {
		/* [root, key] (SETITEM), or [root, MARK, k, v, ..., key] (SETITEMS) */
		if (t != NULL && t->type == PK_STR && t->u.str.len == 13 &&
		    memcmp(t->u.str.s, "device_traces", 13) == 0 &&
		    (sp == 2 || (sp % 2 == 1 && p->stack[1] == NULL))) {
			p->traces = v;
		}
		return;
	}
	if (t == p->traces) {
		dev = t->u.seq.n;	/* APPEND */
	} else {
		/*
		 * Back to the MARK of SETITEMS/APPENDS, no further than a snapshot's
		 * devices: past them no list is tracked, and a hostile pickle's deep
		 * stack would make every new list a walk down all of it.
		 */
		for (at = sp; at > 0 && sp - at <= PK_MAX_DEVICES && p->stack[at - 1] != NULL; at--)
			;
		if (at < 2 || p->stack[at - 1] != NULL || p->stack[at - 2] != p->traces)
			return;
		dev = p->traces->u.seq.n + (sp - at);
	}
	if (p->ndevices == PK_MAX_DEVICES)
		return;		/* more than a snapshot has: read whole */
	p->ndevices++;
	v->flags |= PKF_DEVICE;
	v->u.seq.cap = dev;
}

/*
 * Entries let go after their batch was read: the memo names an entry GONE
 * from now on; what it holds goes with it unless the memo names that too
 * (a later entry may), or the reader's pk_stub stood in for it.
 */
static void
let_go(struct pickle *p, struct pk_val *e)
{
	if (e->flags & PKF_FREE)
		return;		/* the same entry twice in one batch */
	if ((e->flags & (PKF_MEMO | PKF_PIN)) == PKF_MEMO)
		forget(p, e, SLOT_GONE);
	recycle(p, e);
}

/* The entries at stack[from..sp) appended to device list d: read, then let go. */
static int
stream(struct parser *ps, struct pk_val *d, size_t from)
{
	struct pickle *p = ps->p;
	const struct pk_val *k;
	size_t i, cap = 0;
	const struct pk_val **scratch = NULL;
	int err = 0;

	p->in_batch = 1;
	for (i = from; i < p->sp && err == 0; i++) {
		if (p->stack[i] == NULL)
			err = fail(ps, "MARK among a list's items");
		else if (p->stack[i]->type == PK_DICT &&
		    (k = duplicate_key(p->stack[i], &scratch, &cap)) != NULL)
			err = dup_fail(k, ps->cause);
		else
			err = ps->entry(ps->ectx, p, p->stack[i], d->u.seq.cap, d->u.seq.n++,
			    ps->cause);
	}
	free(scratch);
	p->in_batch = 0;
	if (err < 0)
		return err;
	for (i = from; i < p->sp; i++)
		let_go(p, p->stack[i]);
	/* nothing below the memo's end now is written again but by a BINPUT far back */
	memo_pack(p, p->nmemo);
	return ps->entry(ps->ectx, p, NULL, d->u.seq.cap, 0, ps->cause);
}

static int
run(struct parser *ps, struct pk_val **root)
{
	struct pk_val *v = NULL, *k = NULL, *d = NULL;
	uint64_t n;
	size_t at = 0, i;
	unsigned char op;
	double f;
	int err;

	for (;;) {
		ps->op_at = ps->base + ps->pos;
		if (ps->p->used > ps->p->budget)
			return over_budget(ps);
		if (ps->pos >= ps->len && (err = fill(ps, 1)) != 0)
			return err < 0 ? err : fail(ps, "truncated pickle (no STOP)");
		op = ps->buf[ps->pos++];
		switch (op) {
		case 0x80:		/* PROTO */
			if ((err = need(ps, 1)) < 0)
				return err;
			ps->p->protocol = ps->buf[ps->pos++];
			if (ps->p->protocol < 2 || ps->p->protocol > 5)
				return fail(ps, "pickle protocol %d (gpumemsim reads 2 to 5)",
				    ps->p->protocol);
			break;
		case 0x95:		/* FRAME: a length hint; the bytes follow inline */
			if ((err = need(ps, 8)) < 0)
				return err;
			n = le(ps->buf + ps->pos, 8);
			ps->pos += 8;
			/* a frame is a hint: checked while it fits the window */
			if (n > ps->len - ps->pos && n <= PK_WINDOW && (err = fill(ps, n)) < 0)
				return err;
			if (n > ps->len - ps->pos && (n <= PK_WINDOW || ps->rd == NULL))
				return fail(ps, "frame of %llu bytes, %zu left: truncated",
				    (unsigned long long)n, ps->len - ps->pos);
			break;
		case '.':		/* STOP */
			if (ps->p->sp != 1 || ps->p->stack[0] == NULL)
				return fail(ps, "STOP with %zu values on the stack", ps->p->sp);
			*root = ps->p->stack[0];
			return 0;
		case '(':		/* MARK */
			if ((err = push(ps, NULL)) < 0)
				return err;
			break;
		case '0':		/* POP */
			if ((err = pop(ps, &v)) < 0)
				return err;
			recycle(ps->p, v);
			break;
		case 'N':
			if ((err = push(ps, new_val(ps->p, PK_NONE))) < 0)
				return err;
			break;
		case 0x88:		/* NEWTRUE */
		case 0x89:		/* NEWFALSE */
			v = new_val(ps->p, PK_BOOL);
			v->u.i = op == 0x88;
			if ((err = push(ps, v)) < 0)
				return err;
			break;
		case 'K':		/* BININT1 */
			if ((err = need(ps, 1)) < 0 || (err = push_int(ps, ps->buf[ps->pos])) < 0)
				return err;
			ps->pos += 1;
			break;
		case 'M':		/* BININT2 */
			if ((err = need(ps, 2)) < 0 ||
			    (err = push_int(ps, (int64_t)le(ps->buf + ps->pos, 2))) < 0)
				return err;
			ps->pos += 2;
			break;
		case 'J':		/* BININT: signed 32-bit */
			if ((err = need(ps, 4)) < 0 ||
			    (err = push_int(ps, (int32_t)(uint32_t)le(ps->buf + ps->pos, 4))) < 0)
				return err;
			ps->pos += 4;
			break;
		case 0x8a:		/* LONG1: n-byte little-endian two's complement */
		case 0x8b:		/* LONG4: the same with a 4-byte length */
			if ((err = need(ps, op == 0x8a ? 1 : 4)) < 0)
				return err;
			n = op == 0x8a ? ps->buf[ps->pos] : le(ps->buf + ps->pos, 4);
			ps->pos += op == 0x8a ? 1 : 4;
			if ((err = need(ps, n)) < 0 || (err = push_long(ps, n)) < 0)
				return err;
			ps->pos += n;
			break;
		case 'G':		/* BINFLOAT: big-endian double */
			if ((err = need(ps, 8)) < 0)
				return err;
			n = 0;
			for (i = 0; i < 8; i++)
				n = n << 8 | ps->buf[ps->pos + i];
			ps->pos += 8;
			memcpy(&f, &n, sizeof(f));
			v = new_val(ps->p, PK_FLOAT);
			v->u.f = f;
			if ((err = push(ps, v)) < 0)
				return err;
			break;
		case 0x8c:		/* SHORT_BINUNICODE */
			if ((err = need(ps, 1)) < 0)
				return err;
			n = ps->buf[ps->pos++];
			if ((err = push_str(ps, n)) < 0)
				return err;
			break;
		case 'X':		/* BINUNICODE */
			if ((err = need(ps, 4)) < 0)
				return err;
			n = le(ps->buf + ps->pos, 4);
			ps->pos += 4;
			if ((err = push_str(ps, n)) < 0)
				return err;
			break;
		case 0x8d:		/* BINUNICODE8 */
			if ((err = need(ps, 8)) < 0)
				return err;
			n = le(ps->buf + ps->pos, 8);
			ps->pos += 8;
			if (n > ps->len - ps->pos && ps->rd == NULL)
				return fail(ps, "string of %llu bytes, %zu left: truncated",
				    (unsigned long long)n, ps->len - ps->pos);
			if (n > PK_MAX_WINDOW)
				return fail(ps, "a string of %llu bytes: longer than any snapshot's",
				    (unsigned long long)n);
			if ((err = push_str(ps, n)) < 0)
				return err;
			break;
		case '}':		/* EMPTY_DICT */
			if ((err = push(ps, new_seq(ps, PK_DICT))) < 0)
				return err;
			break;
		case ']':		/* EMPTY_LIST */
			v = new_seq(ps, PK_LIST);
			if (ps->entry != NULL)
				tag_list(ps, v);
			if ((err = push(ps, v)) < 0)
				return err;
			break;
		case ')':		/* EMPTY_TUPLE */
			if ((err = push(ps, new_seq(ps, PK_TUPLE))) < 0)
				return err;
			break;
		case 0x85:		/* TUPLE1 */
		case 0x86:		/* TUPLE2 */
		case 0x87:		/* TUPLE3 */
			n = (uint64_t)(op - 0x84);
			if (ps->p->sp < n)
				return fail(ps, "stack underflow");
			if ((err = make_tuple(ps, ps->p->sp - n)) < 0)
				return err;
			break;
		case 't':		/* TUPLE: everything above the mark */
			if ((err = mark_pos(ps, &at)) < 0)
				return err;
			if ((err = make_tuple(ps, at)) < 0)
				return err;
			/* drop the mark under the tuple */
			ps->p->stack[at - 1] = ps->p->stack[at];
			ps->p->sp = at;
			break;
		case 'a':		/* APPEND */
			if ((err = pop(ps, &v)) < 0 || (err = top(ps, &d)) < 0)
				return err;
			if (d->type != PK_LIST)
				return fail(ps, "APPEND to something not a list");
			if (d->flags & PKF_DEVICE) {
				ps->p->stack[ps->p->sp++] = v;	/* its place, popped just above */
				if ((err = stream(ps, d, ps->p->sp - 1)) < 0)
					return err;
				ps->p->sp--;
				break;
			}
			if (seq_push(ps->p, d, v) < 0)
				return over_budget(ps);
			break;
		case 'e':		/* APPENDS */
			if ((err = mark_pos(ps, &at)) < 0)
				return err;
			if (at < 2 || (d = ps->p->stack[at - 2]) == NULL || d->type != PK_LIST)
				return fail(ps, "APPENDS to something not a list");
			if (d->flags & PKF_DEVICE) {
				if ((err = stream(ps, d, at)) < 0)
					return err;
				ps->p->sp = at - 1;
				break;
			}
			for (i = at; i < ps->p->sp; i++)
				if (seq_push(ps->p, d, ps->p->stack[i]) < 0)
					return over_budget(ps);
			ps->p->sp = at - 1;
			break;
		case 's':		/* SETITEM */
			if ((err = pop(ps, &v)) < 0 || (err = pop(ps, &k)) < 0 ||
			    (err = top(ps, &d)) < 0)
				return err;
			if (d->type != PK_DICT)
				return fail(ps, "SETITEM on something not a dict");
			seq_push(ps->p, d, k);
			if (seq_push(ps->p, d, v) < 0)
				return over_budget(ps);
			break;
		case 'u':		/* SETITEMS */
			if ((err = mark_pos(ps, &at)) < 0)
				return err;
			if (at < 2 || (d = ps->p->stack[at - 2]) == NULL || d->type != PK_DICT)
				return fail(ps, "SETITEMS on something not a dict");
			if ((ps->p->sp - at) % 2 != 0)
				return fail(ps, "SETITEMS with an odd number of values");
			for (i = at; i < ps->p->sp; i++)
				if (seq_push(ps->p, d, ps->p->stack[i]) < 0)
					return over_budget(ps);
			ps->p->sp = at - 1;
			break;
		case 0x94:		/* MEMOIZE */
			if ((err = top(ps, &v)) < 0 || (err = memo_put(ps, ps->p->nmemo, v)) < 0)
				return err;
			break;
		case 'q':		/* BINPUT */
			if ((err = need(ps, 1)) < 0 || (err = top(ps, &v)) < 0 ||
			    (err = memo_put(ps, ps->buf[ps->pos], v)) < 0)
				return err;
			ps->pos += 1;
			break;
		case 'r':		/* LONG_BINPUT */
			if ((err = need(ps, 4)) < 0 || (err = top(ps, &v)) < 0 ||
			    (err = memo_put(ps, le(ps->buf + ps->pos, 4), v)) < 0)
				return err;
			ps->pos += 4;
			break;
		case 'h':		/* BINGET */
			if ((err = need(ps, 1)) < 0 || (err = memo_get(ps, ps->buf[ps->pos])) < 0)
				return err;
			ps->pos += 1;
			break;
		case 'j':		/* LONG_BINGET */
			if ((err = need(ps, 4)) < 0 ||
			    (err = memo_get(ps, le(ps->buf + ps->pos, 4))) < 0)
				return err;
			ps->pos += 4;
			break;
		default:
			if (op >= 0x20 && op < 0x7f)
				return fail(ps, "opcode 0x%02x ('%c') is outside the subset of pickle "
				    "that memory snapshots use", op, op);
			return fail(ps, "opcode 0x%02x is outside the subset of pickle that "
			    "memory snapshots use", op);
		}
	}
}

/*
 * The most memory the values of a len-byte pickle may hold before it is
 * refused: in proportion to len, and at most a third of the process's
 * address-space limit when one is set (gms_mem_limit()).
 */
static size_t
pickle_budget(uint64_t len)
{
	/* a third: the input itself and a growing array's old copy need the rest */
	size_t floor = 64u << 20, lim = gms_mem_limit() / 3;
	size_t b = len > (SIZE_MAX - floor) / PK_BYTES_PER_INPUT_BYTE ? SIZE_MAX :
	    floor + len * PK_BYTES_PER_INPUT_BYTE;

	return lim != 0 && lim < b ? lim : b;
}

/*
 * Keys as Python compares them, as far as a snapshot's can be: strings by
 * content, integers and booleans by value (True is 1); anything else is
 * never equal to another key here.
 */
static int
key_class(const struct pk_val *k)
{
	return k->type == PK_STR ? 0 : k->type == PK_INT || k->type == PK_BOOL ? 1 : 2;
}

static int
cmp_key(const void *a, const void *b)
{
	const struct pk_val *x = *(const struct pk_val *const *)a;
	const struct pk_val *y = *(const struct pk_val *const *)b;
	int cx = key_class(x), cy = key_class(y);

	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (cx == 0) {
		if (x->u.str.len != y->u.str.len)
			return x->u.str.len < y->u.str.len ? -1 : 1;
		return memcmp(x->u.str.s, y->u.str.s, x->u.str.len);
	}
	if (cx == 1)
		return x->u.i < y->u.i ? -1 : x->u.i > y->u.i;
	return x < y ? -1 : x > y;	/* by identity: never equal but to itself */
}

/* Whether two keys are equal as Python compares them: a string is one value for each text. */
static int
same_key(const struct pk_val *x, const struct pk_val *y)
{
	if (x->type == PK_STR)
		return x == y;
	return key_class(x) == 1 && key_class(y) == 1 && x->u.i == y->u.i;
}

/* Below this many keys, every pair is compared; above, the keys are sorted. */
#define PK_DUP_LINEAR 16

/* The key a dict sets twice, or NULL. */
static const struct pk_val *
duplicate_key(const struct pk_val *d, const struct pk_val ***scratch, size_t *cap)
{
	const struct pk_val *const *it = (const struct pk_val *const *)d->u.seq.items;
	size_t n = d->u.seq.n / 2, i, j;

	if (n <= PK_DUP_LINEAR) {
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				if (same_key(it[2 * i], it[2 * j]))
					return it[2 * i];
		return NULL;
	}
	if (n > *cap) {
		*cap = n;
		*scratch = gms_realloc(*scratch, n * sizeof(**scratch));
	}
	for (i = 0; i < n; i++)
		(*scratch)[i] = it[2 * i];
	qsort(*scratch, n, sizeof(**scratch), cmp_key);
	for (i = 1; i < n; i++)
		if (key_class((*scratch)[i]) < 2 && cmp_key(&(*scratch)[i - 1], &(*scratch)[i]) == 0)
			return (*scratch)[i];
	return NULL;
}

/* Every dict the machine built, for a key set twice: 0, or -1 with *cause. */
static int
check_keys(const struct pickle *p, char **cause)
{
	const struct pk_val **scratch = NULL, *k = NULL;
	size_t cap = 0, i;

	for (i = 0; i < p->nseqs && k == NULL; i++)
		if (p->seqs[i]->type == PK_DICT)
			k = duplicate_key(p->seqs[i], &scratch, &cap);
	free(scratch);
	if (k == NULL)
		return 0;
	return dup_fail(k, cause);
}

static int
dup_fail(const struct pk_val *k, char **cause)
{
	if (k->type == PK_STR)
		return gms_fail(cause, GMS_ETRACE, "a dict sets the key \"%.*s\" twice (Python "
		    "keeps the last value): not a snapshot PyTorch writes",
		    (int)GMS_MIN(k->u.str.len, (size_t)64), k->u.str.s);
	return gms_fail(cause, GMS_ETRACE, "a dict sets the key %lld twice (Python keeps the "
	    "last value): not a snapshot PyTorch writes", (long long)k->u.i);
}

static const struct pk_val *
parse(struct parser *ps, struct pickle **out)
{
	struct pickle *p = ps->p;
	struct pk_val *root = NULL;

	p->bytes = ps->len;
	p->budget = pickle_budget(ps->len);
	p->work = gms_malloc((p->wcap = 64) * sizeof(*p->work));
	if (run(ps, &root) < 0 || check_keys(p, ps->cause) < 0) {
		pickle_free(p);
		*out = NULL;
		return NULL;
	}
	if (ps->rd != NULL)
		p->bytes = ps->base + ps->pos;
	/* The machine is no longer needed; the values are. */
	free(p->stack);
	memo_free(p);
	free(p->work);
	p->stack = NULL;
	p->work = NULL;
	*out = p;
	return root;
}

const struct pk_val *
pickle_parse(const unsigned char *buf, size_t len, struct pickle **out, char **cause)
{
	struct parser ps = { .p = gms_calloc(1, sizeof(struct pickle)),
	    .buf = (unsigned char *)buf, .len = len, .cause = cause };

	return parse(&ps, out);
}

const struct pk_val *
pickle_read(pk_read_fn rd, void *rctx, pk_entry_fn entry, void *ectx, struct pickle **out,
    char **cause)
{
	struct parser ps = { .p = gms_calloc(1, sizeof(struct pickle)), .rd = rd, .rctx = rctx,
	    .entry = entry, .ectx = ectx, .cause = cause };
	const struct pk_val *root;

	ps.buf = gms_malloc(ps.cap = PK_WINDOW);
	root = parse(&ps, out);
	free(ps.buf);
	return root;
}

uint64_t
pickle_bytes(const struct pickle *p)
{
	return p->bytes;
}

int
pk_streamed(const struct pk_val *list, size_t *device, size_t *entries)
{
	if (list == NULL || !(list->flags & PKF_DEVICE))
		return 0;
	*device = list->u.seq.cap;
	*entries = list->u.seq.n;
	return 1;
}

int
pk_stub(struct pickle *p, const struct pk_val *entry, const struct pk_val *child, int64_t id)
{
	struct pk_val *r;
	size_t k;

	if (!p->in_batch || id < 0 || (uint64_t)id > UINT32_MAX || !goes_with(p, entry, child))
		return 0;
	if ((size_t)id >= p->nrefs) {
		k = GMS_MAX((size_t)id + 1, 2 * p->nrefs);
		p->refs = gms_realloc(p->refs, k * sizeof(*p->refs));
		memset(p->refs + p->nrefs, 0, (k - p->nrefs) * sizeof(*p->refs));
		p->used += (k - p->nrefs) * sizeof(*p->refs);
		p->nrefs = k;
	}
	if ((r = p->refs[id]) == NULL) {
		r = p->refs[id] = new_val(p, PK_REF);
		r->flags |= PKF_PIN;
		r->u.i = id;
		val_slot(p, r, 0);
	}
	forget(p, (struct pk_val *)child, r->vidx);
	return 1;
}

int
pk_gone(const struct pk_val *v)
{
	return v != NULL && (v->flags & PKF_FREE);
}

void
pk_pin(const struct pk_val *v)
{
	if (v != NULL)
		((struct pk_val *)v)->flags |= PKF_PIN;
}

int
pickle_protocol(const struct pickle *p)
{
	return p->protocol;
}

void
pickle_free(struct pickle *p)
{
	struct arena_chunk *c, *next;
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nseqs; i++) {
		enum pk_type t = p->seqs[i]->type;

		/* a recycled value may now be a scalar, or chain the spares */
		if (t == PK_LIST || t == PK_TUPLE || t == PK_DICT)
			free(p->seqs[i]->u.seq.items);
	}
	free(p->seqs);
	free(p->stack);
	memo_free(p);
	free(p->work);
	free(p->vals);
	free(p->vfirst);
	free(p->vfree);
	free(p->refs);
	HASH_CLEAR(hh, p->strs);
	for (c = p->arena; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(p);
}

unsigned
pk_mark(const struct pk_val *v)
{
	return v != NULL ? v->mark : 0;
}

/* The one write to a parsed value: the mark is the reader's, never the machine's. */
void
pk_set_mark(const struct pk_val *v, unsigned char mark)
{
	if (v != NULL)
		((struct pk_val *)v)->mark = mark;
}

int
pk_shared(const struct pk_val *v)
{
	return v != NULL && (v->flags & (PKF_MEMO | PKF_PIN));
}

int
pk_items_shared(const struct pk_val *v)
{
	size_t i;

	for (i = 0; i < pk_len(v); i++)
		if (!(v->u.seq.items[i]->flags & (PKF_MEMO | PKF_PIN)))
			return 0;
	return 1;
}

int
pk_is(const struct pk_val *v, enum pk_type t)
{
	return v != NULL && v->type == t;
}

const struct pk_val *
pk_get(const struct pk_val *d, const char *key)
{
	size_t i, n = strlen(key);

	if (!pk_is(d, PK_DICT))
		return NULL;
	for (i = 0; i + 1 < d->u.seq.n; i += 2) {
		const struct pk_val *k = d->u.seq.items[i];

		if (k->type == PK_STR && k->u.str.len == n && memcmp(k->u.str.s, key, n) == 0)
			return d->u.seq.items[i + 1];
	}
	return NULL;
}

size_t
pk_len(const struct pk_val *v)
{
	return v != NULL && (v->type == PK_LIST || v->type == PK_TUPLE) &&
	    !(v->flags & PKF_DEVICE) ? v->u.seq.n : 0;
}

const struct pk_val *
pk_item(const struct pk_val *v, size_t i)
{
	return v->u.seq.items[i];
}
