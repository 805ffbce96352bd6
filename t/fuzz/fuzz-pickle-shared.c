/*
 * fuzz-pickle-shared.c - snapshots that name their values from many places:
 * the input is a recipe, not a pickle.  It picks frames, frames lists,
 * blocks, blocks lists, segments and trace entries, each memoized, and every
 * list is built from memo references to earlier ones (BINGET), so a few
 * bytes of recipe fan out as a reference bomb does (issue 27).  The pickle
 * is read as fuzz-reader reads one; a finding is a crash, a broken promise
 * of fuzz_read, or more events than the pickle has bytes (the reader's work
 * must stay in proportion to its input however much is shared).  libFuzzer's
 * -timeout catches a walk that takes superlinear time.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct recipe {
	const uint8_t *d;
	size_t n, at;
};

static unsigned
take(struct recipe *r)
{
	return r->at < r->n ? r->d[r->at++] : 0;
}

struct out {
	unsigned char *b;
	size_t n, cap;
	uint32_t memo;		/* the next memo index */
};

static void
put(struct out *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2;
		o->b = realloc(o->b, o->cap);
		fuzz_assert(o->b != NULL, "out of memory", NULL);
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void
op(struct out *o, unsigned char c)
{
	put(o, &c, 1);
}

/* MEMOIZE the top of the stack: its memo index. */
static uint32_t
memoize(struct out *o)
{
	op(o, 0x94);
	return o->memo++;
}

static void
get(struct out *o, uint32_t idx)
{
	unsigned char b[4] = { idx & 0xff, idx >> 8 & 0xff, idx >> 16 & 0xff, idx >> 24 };

	if (idx < 256) {
		op(o, 'h');
		op(o, b[0]);
	} else {
		op(o, 'j');
		put(o, b, 4);
	}
}

static void
str(struct out *o, const char *s, size_t n)
{
	unsigned char len[4] = { n & 0xff, n >> 8 & 0xff, n >> 16 & 0xff, n >> 24 };

	op(o, 'X');
	put(o, len, 4);
	put(o, s, n);
}

static void
integer(struct out *o, uint64_t v)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = v >> (8 * i) & 0xff;
	op(o, 0x8a);
	op(o, 8);
	put(o, b, 8);
}

/* The keys, each written once and then named by reference. */
enum { K_FILENAME, K_LINE, K_NAME, K_ACTION, K_ADDR, K_SIZE, K_STREAM, K_TIME, K_FRAMES,
	K_ADDRESS, K_STATE, K_REQ, K_TOTAL, K_DEVICE, K_BLOCKS, K_SEGMENTS, K_TRACES,
	K_SETTINGS, NKEYS };
static const char *const keys[NKEYS] = {
	"filename", "line", "name", "action", "addr", "size", "stream", "time_us", "frames",
	"address", "state", "requested_size", "total_size", "device", "blocks", "segments",
	"device_traces", "allocator_settings",
};

#define POOL 64
struct pools {
	uint32_t key[NKEYS];
	uint32_t frame[POOL], frames[POOL], block[POOL], blocks[POOL], seg[POOL], entry[POOL];
	unsigned nframe, nframes, nblock, nblocks, nseg, nentry;
	uint32_t longname;	/* a long path's memo index, 0 until written */
};

static void
key(struct out *o, const struct pools *p, int k)
{
	get(o, p->key[k]);
}

/* One of pool's n indices as the recipe picks, or -1 when the pool is empty. */
static int
pick(struct recipe *r, const uint32_t *pool, unsigned n)
{
	return n == 0 ? -1 : (int)pool[take(r) % n];
}

/* Up to 4095, from two recipe bytes: how far one list fans out. */
static unsigned
count(struct recipe *r)
{
	unsigned hi = take(r);

	return (hi << 4 | (take(r) & 0x0f)) % 4096;
}

/*
 * A memoized list of n references into pool, from a start and a stride the
 * recipe picks: a few bytes of recipe, thousands of references.
 */
struct fan {
	unsigned n, start, stride;
};

static struct fan
fan(struct recipe *r)
{
	struct fan f;

	f.n = count(r);
	f.start = take(r);
	f.stride = take(r);
	return f;
}

static uint32_t
ref_list(struct out *o, const uint32_t *pool, unsigned npool, unsigned n, unsigned start,
    unsigned stride)
{
	uint32_t m;
	unsigned i;

	op(o, ']');
	m = memoize(o);
	if (npool == 0 || n == 0)
		return m;
	op(o, '(');
	for (i = 0; i < n; i++)
		get(o, pool[(start + i * stride) % npool]);
	op(o, 'e');
	return m;
}

/* A dict's start (EMPTY_DICT, MARK): its keys and values follow, then dict_end(). */
static void
dict_begin(struct out *o)
{
	op(o, '}');
	op(o, '(');
}

/* SETITEMS, and the dict memoized, its index kept in pool while there is room. */
static void
dict_end(struct out *o, uint32_t *pool, unsigned *n)
{
	op(o, 'u');
	if (*n < POOL)
		pool[(*n)++] = o->memo;
	memoize(o);
}

static void
frame(struct out *o, struct recipe *r, struct pools *p)
{
	static const char *const files[] = {
		"/usr/lib/python3/site-packages/torch/nn/functional.py", "train.py",
		"/usr/lib/libc10_cuda.so", "/usr/lib/python3/site-packages/torch/autograd/graph.py",
	};
	static const char *const names[] = {
		"forward", "c10::cuda::CUDACachingAllocator::Native::emptyCache()",
		"torch::autograd::generated::MmBackward0::apply(...)",
		"c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int)",
	};
	unsigned f = take(r), len, nm;
	char *longname;

	dict_begin(o);
	key(o, p, K_FILENAME);
	if (f >= 0xf0 && p->longname != 0 && (f & 1)) {
		get(o, p->longname);	/* the long path again */
	} else if (f >= 0xf0) {
		/* a long plumbing path: every frame that names it costs its length */
		len = 256u * (f & 0x0f) + 64;
		longname = malloc(len);
		fuzz_assert(longname != NULL, "out of memory", NULL);
		memset(longname, 'x', len);
		memcpy(longname, "/torch/nn/functional.py/", 24);
		memcpy(longname + len - 3, ".py", 3);
		str(o, longname, len);
		free(longname);
		op(o, 0x94);
		p->longname = o->memo++;
	} else {
		str(o, files[f % 4], strlen(files[f % 4]));
	}
	key(o, p, K_LINE);
	integer(o, take(r));
	key(o, p, K_NAME);
	nm = take(r) % 4;
	str(o, names[nm], strlen(names[nm]));
	dict_end(o, p->frame, &p->nframe);
}

static void
block(struct out *o, struct recipe *r, struct pools *p)
{
	int fl = pick(r, p->frames, p->nframes);

	dict_begin(o);
	key(o, p, K_ADDRESS);
	integer(o, 0x7f0000000000ull + 512ull * take(r));
	key(o, p, K_SIZE);
	integer(o, 512ull * (1 + take(r)));
	key(o, p, K_STATE);
	if (take(r) & 1)
		str(o, "inactive", 8);
	else
		str(o, "active_allocated", 16);
	if (fl >= 0) {
		key(o, p, K_FRAMES);
		get(o, (uint32_t)fl);
	}
	dict_end(o, p->block, &p->nblock);
}

static void
segment(struct out *o, struct recipe *r, struct pools *p)
{
	int bl = pick(r, p->blocks, p->nblocks);

	dict_begin(o);
	key(o, p, K_DEVICE);
	integer(o, 0);
	key(o, p, K_ADDRESS);
	integer(o, 0x7f0000000000ull + (1ull << 21) * take(r));
	key(o, p, K_TOTAL);
	integer(o, 1ull << 21);
	key(o, p, K_STREAM);
	integer(o, 0);
	if (bl >= 0) {
		key(o, p, K_BLOCKS);
		get(o, (uint32_t)bl);
	}
	dict_end(o, p->seg, &p->nseg);
}

static void
entry(struct out *o, struct recipe *r, struct pools *p)
{
	static const char *const actions[] = {
		"alloc", "free_completed", "segment_alloc", "segment_free", "oom",
		"free_requested", "segment_map", "segment_unmap",
	};
	const char *a = actions[take(r) % 8];
	int fl = pick(r, p->frames, p->nframes);

	dict_begin(o);
	key(o, p, K_ACTION);
	str(o, a, strlen(a));
	key(o, p, K_ADDR);
	integer(o, 0x7f0000000000ull + 512ull * take(r));
	key(o, p, K_SIZE);
	integer(o, 512ull * (1 + take(r)));
	key(o, p, K_STREAM);
	integer(o, 0);
	key(o, p, K_TIME);
	integer(o, take(r));
	if (fl >= 0) {
		key(o, p, K_FRAMES);
		get(o, (uint32_t)fl);
	}
	dict_end(o, p->entry, &p->nentry);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recipe r = { data, size, 0 };
	struct out o = { 0 };
	struct pools p = { 0 };
	struct fan f, segs, entries;
	uint32_t tr;
	unsigned steps = 0, what, k, repeats;
	uint64_t events;

	/* first, the root's lists: segments, a device trace, that trace's repeats */
	segs = fan(&r);
	entries = fan(&r);
	repeats = take(&r) % 8;

	put(&o, "\x80\x04", 2);
	op(&o, '}');
	memoize(&o);
	/* the keys, memoized in a throwaway list */
	op(&o, ']');
	op(&o, '(');
	for (k = 0; k < NKEYS; k++) {
		str(&o, keys[k], strlen(keys[k]));
		p.key[k] = memoize(&o);
	}
	op(&o, 'e');
	op(&o, '0');	/* POP the list */
	/* the values, built on a scratch list that is popped at the end */
	op(&o, ']');
	while (r.at < r.n && steps++ < 512) {
		what = take(&r) % 6;
		op(&o, '(');
		if (what == 0)
			frame(&o, &r, &p);
		else if (what == 1 && p.nframes < POOL)
			p.frames[p.nframes++] = ref_list(&o, p.frame, p.nframe, (f = fan(&r)).n,
			    f.start, f.stride);
		else if (what == 2)
			block(&o, &r, &p);
		else if (what == 3 && p.nblocks < POOL)
			p.blocks[p.nblocks++] = ref_list(&o, p.block, p.nblock, (f = fan(&r)).n,
			    f.start, f.stride);
		else if (what == 4)
			segment(&o, &r, &p);
		else
			entry(&o, &r, &p);
		op(&o, 'e');
	}
	op(&o, '0');
	/* {"segments": [...], "device_traces": [[...], ...], "allocator_settings": {}} */
	op(&o, '(');
	get(&o, p.key[K_SEGMENTS]);
	ref_list(&o, p.seg, p.nseg, segs.n, segs.start, segs.stride);
	get(&o, p.key[K_TRACES]);
	op(&o, ']');
	memoize(&o);
	op(&o, '(');
	tr = ref_list(&o, p.entry, p.nentry, entries.n, entries.start, entries.stride);
	for (k = repeats; k > 0; k--)
		get(&o, tr);	/* the same device trace again */
	op(&o, 'e');
	get(&o, p.key[K_SETTINGS]);
	op(&o, '}');
	op(&o, 'u');
	op(&o, '.');
	events = fuzz_read(fuzz_file(o.b, o.n, ".pickle"), 0);
	/* every event an entry or a seeded block or segment: in proportion to the bytes */
	fuzz_assert(events <= 4 * o.n + 64, "more events than the pickle's bytes can hold", NULL);
	free(o.b);
	return 0;
}
