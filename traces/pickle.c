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
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct pickle {
	struct arena_chunk *arena;
	struct pk_val *spare;		/* recycled values, chained through u.seq.items */
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
	struct pk_val **memo;
	size_t nmemo, mcap;
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

	if (v != NULL) {
		p->spare = (struct pk_val *)v->u.seq.items;
		listed = v->listed;
	} else {
		v = arena_alloc(p, sizeof(*v), _Alignof(struct pk_val));
	}
	memset(v, 0, sizeof(*v));
	v->type = t;
	v->listed = listed;
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
static void
recycle(struct pickle *p, struct pk_val *v)
{
	struct pk_val *x;
	size_t i;

	if (v == NULL || v->memoized)
		return;
	p->nwork = 0;
	p->work[p->nwork++] = v;
	while (p->nwork > 0) {
		x = p->work[--p->nwork];
		if (x->type == PK_LIST || x->type == PK_TUPLE || x->type == PK_DICT) {
			for (i = 0; i < x->u.seq.n; i++) {
				if (x->u.seq.items[i]->memoized)
					continue;
				if (p->nwork == p->wcap) {
					p->wcap *= 2;
					p->work = gms_realloc(p->work, p->wcap * sizeof(*p->work));
				}
				p->work[p->nwork++] = x->u.seq.items[i];
			}
			p->used -= x->u.seq.cap * sizeof(*x->u.seq.items);
			free(x->u.seq.items);
		}
		x->type = PK_NONE;
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
	const unsigned char *buf;
	size_t len, pos;
	size_t op_at;		/* offset of the opcode being run */
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
	return gms_fail(ps->cause, GMS_ETRACE, "pickle byte %zu: %s", ps->op_at, msg);
}

static int
over_budget(struct parser *ps)
{
	return fail(ps, "holding this pickle's values needs more than %zu MiB (%zu bytes of "
	    "input): not a snapshot", ps->p->budget >> 20, ps->len);
}

static int
need(struct parser *ps, size_t n)
{
	if (ps->len - ps->pos < n)
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

	if (v->listed)
		return v;
	v->listed = 1;
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

static int
memo_put(struct parser *ps, uint64_t idx, struct pk_val *v)
{
	struct pickle *p = ps->p;

	/* Indices come in order; one past what the input could ever hold is absurd. */
	if (idx > ps->len)
		return fail(ps, "memo index %llu out of range", (unsigned long long)idx);
	while (idx >= p->mcap) {
		p->memo = grow(p, p->memo, &p->mcap, 256, sizeof(*p->memo));
	}
	while (p->nmemo <= idx)
		p->memo[p->nmemo++] = NULL;
	p->memo[idx] = v;
	v->memoized = 1;
	return 0;
}

static int
memo_get(struct parser *ps, uint64_t idx)
{
	if (idx >= ps->p->nmemo || ps->p->memo[idx] == NULL)
		return fail(ps, "memo get of unknown index %llu", (unsigned long long)idx);
	return push(ps, ps->p->memo[idx]);
}

static int
push_str(struct parser *ps, size_t n)
{
	struct pk_val *v;
	char *s;
	int err;

	if ((err = need(ps, n)) < 0)
		return err;
	/* the readers treat strings as C strings: "alloc\0x" must not read as "alloc" */
	if (memchr(ps->buf + ps->pos, '\0', n) != NULL)
		return fail(ps, "a string holds a NUL byte");
	v = new_val(ps->p, PK_STR);
	v->u.str.s = "";
	if (n > 0) {
		s = arena_alloc(ps->p, n + 1, 1);
		memcpy(s, ps->buf + ps->pos, n);
		s[n] = '\0';
		v->u.str.s = s;
	}
	v->u.str.len = n;
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
		ps->op_at = ps->pos;
		if (ps->p->used > ps->p->budget)
			return over_budget(ps);
		if (ps->pos >= ps->len)
			return fail(ps, "truncated pickle (no STOP)");
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
			if (n > ps->len - ps->pos)
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
			if (n > ps->len - ps->pos)
				return fail(ps, "string of %llu bytes, %zu left: truncated",
				    (unsigned long long)n, ps->len - ps->pos);
			if ((err = push_str(ps, n)) < 0)
				return err;
			break;
		case '}':		/* EMPTY_DICT */
			if ((err = push(ps, new_seq(ps, PK_DICT))) < 0)
				return err;
			break;
		case ']':		/* EMPTY_LIST */
			if ((err = push(ps, new_seq(ps, PK_LIST))) < 0)
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
			if (seq_push(ps->p, d, v) < 0)
				return over_budget(ps);
			break;
		case 'e':		/* APPENDS */
			if ((err = mark_pos(ps, &at)) < 0)
				return err;
			if (at < 2 || (d = ps->p->stack[at - 2]) == NULL || d->type != PK_LIST)
				return fail(ps, "APPENDS to something not a list");
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
pickle_budget(size_t len)
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
				if (key_class(it[2 * i]) < 2 && cmp_key(&it[2 * i], &it[2 * j]) == 0)
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
	if (k->type == PK_STR)
		return gms_fail(cause, GMS_ETRACE, "a dict sets the key \"%.*s\" twice (Python "
		    "keeps the last value): not a snapshot PyTorch writes",
		    (int)GMS_MIN(k->u.str.len, (size_t)64), k->u.str.s);
	return gms_fail(cause, GMS_ETRACE, "a dict sets the key %lld twice (Python keeps the "
	    "last value): not a snapshot PyTorch writes", (long long)k->u.i);
}

const struct pk_val *
pickle_parse(const unsigned char *buf, size_t len, struct pickle **out, char **cause)
{
	struct pickle *p = gms_calloc(1, sizeof(*p));
	struct parser ps = { .p = p, .buf = buf, .len = len, .cause = cause };
	struct pk_val *root = NULL;

	p->budget = pickle_budget(len);
	p->work = gms_malloc((p->wcap = 64) * sizeof(*p->work));
	if (run(&ps, &root) < 0 || check_keys(p, cause) < 0) {
		pickle_free(p);
		*out = NULL;
		return NULL;
	}
	/* The machine is no longer needed; the values are. */
	free(p->stack);
	free(p->memo);
	free(p->work);
	p->stack = NULL;
	p->memo = NULL;
	p->work = NULL;
	*out = p;
	return root;
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
	free(p->memo);
	free(p->work);
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
	return v != NULL && v->memoized;
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
	return v != NULL && (v->type == PK_LIST || v->type == PK_TUPLE) ? v->u.seq.n : 0;
}

const struct pk_val *
pk_item(const struct pk_val *v, size_t i)
{
	return v->u.seq.items[i];
}
