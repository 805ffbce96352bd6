/*
 * freebins.c - the free-block index of freebins.h.  A size's class is its
 * power of two and the next three bits below the leading one, so classes
 * ascend with sizes and every size of a class is below every size of the
 * next: the order within a class's tree (size, address) and across classes
 * and streams make one total order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/freebins.h"
#include "sim/gms.h"

#define FB_CLASSES 496		/* sizes below 8, then 8 per power of two to 2^63 */
#define FB_WORDS 8		/* of the bitmap: 512 bits */

static int
fb_cmp(const struct fb_node *a, const struct fb_node *b)
{
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(fb_tree, fb_node);
RB_PROTOTYPE(fb_tree, fb_node, link, fb_cmp)
RB_GENERATE(fb_tree, fb_node, link, fb_cmp)

struct fb_stream {
	uint64_t bits[FB_WORDS];	/* the classes holding a node */
	struct fb_tree t[FB_CLASSES];
};

static unsigned
class_of(uint64_t size)
{
	unsigned e;

	if (size < 8)
		return (unsigned)size;
	e = 63 - (unsigned)__builtin_clzll(size);
	return (e - 2) * 8 + (unsigned)((size >> (e - 3)) & 7);
}

/* The first class >= c in use, or FB_CLASSES. */
static unsigned
class_at_or_after(const struct fb_stream *s, unsigned c)
{
	unsigned w = c / 64;
	uint64_t bits;

	if (c >= FB_CLASSES)
		return FB_CLASSES;
	bits = s->bits[w] & (~(uint64_t)0 << (c % 64));
	while (bits == 0) {
		if (++w == FB_WORDS)
			return FB_CLASSES;
		bits = s->bits[w];
	}
	return w * 64 + (unsigned)__builtin_ctzll(bits);
}

/* The last class <= c in use, or FB_CLASSES when none. */
static unsigned
class_at_or_before(const struct fb_stream *s, unsigned c)
{
	unsigned w = c / 64;
	uint64_t bits = s->bits[w] & (c % 64 == 63 ? ~(uint64_t)0 :
	    (((uint64_t)1 << (c % 64 + 1)) - 1));

	while (bits == 0) {
		if (w-- == 0)
			return FB_CLASSES;
		bits = s->bits[w];
	}
	return w * 64 + 63 - (unsigned)__builtin_clzll(bits);
}

/* The index of stream in f->streams, or where it would go (*found 0). */
static size_t
stream_pos(const struct freebins *f, int64_t stream, int *found)
{
	size_t lo = 0, hi = f->nstreams, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (f->streams[mid].stream < stream)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < f->nstreams && f->streams[lo].stream == stream;
	return lo;
}

static inline struct fb_stream *
stream_of(const struct freebins *f, int64_t stream)
{
	int found;
	size_t i;

	/* one stream is the common case */
	if (f->nstreams == 1)
		return f->streams[0].stream == stream ? f->streams[0].s : NULL;
	i = stream_pos(f, stream, &found);
	return found ? f->streams[i].s : NULL;
}

void
fb_init(struct freebins *f)
{
	memset(f, 0, sizeof(*f));
}

void
fb_free(struct freebins *f)
{
	size_t i;

	for (i = 0; i < f->nstreams; i++)
		free(f->streams[i].s);
	free(f->streams);
	memset(f, 0, sizeof(*f));
}

void
fb_insert(struct freebins *f, struct fb_node *n, int64_t stream, uint64_t size, uint64_t addr)
{
	struct fb_stream *s = stream_of(f, stream);
	unsigned c = class_of(size);
	size_t i;
	int found;

	if (s == NULL) {
		i = stream_pos(f, stream, &found);
		if (f->nstreams == f->cap)
			f->streams = gms_realloc(f->streams,
			    (f->cap = f->cap ? 2 * f->cap : 4) * sizeof(*f->streams));
		memmove(&f->streams[i + 1], &f->streams[i],
		    (f->nstreams - i) * sizeof(*f->streams));
		s = gms_calloc(1, sizeof(*s));
		f->streams[i] = (struct fb_slot){ stream, s };
		for (c = 0; c < FB_CLASSES; c++)
			RB_INIT(&s->t[c]);
		f->nstreams++;
		c = class_of(size);
	}
	n->stream = stream;
	n->size = size;
	n->addr = addr;
	GMS_ASSERT(RB_INSERT(fb_tree, &s->t[c], n) == NULL);
	s->bits[c / 64] |= (uint64_t)1 << (c % 64);
	f->count++;
}

void
fb_remove(struct freebins *f, struct fb_node *n)
{
	struct fb_stream *s = stream_of(f, n->stream);
	unsigned c = class_of(n->size);

	GMS_ASSERT(s != NULL);
	RB_REMOVE(fb_tree, &s->t[c], n);
	if (RB_EMPTY(&s->t[c]))
		s->bits[c / 64] &= ~((uint64_t)1 << (c % 64));
	f->count--;
}

struct fb_node *
fb_ceil(const struct freebins *f, int64_t stream, uint64_t size, uint64_t addr)
{
	struct fb_stream *s = stream_of(f, stream);
	struct fb_node key = { .size = size, .addr = addr }, *n;
	unsigned c = class_of(size);

	if (s == NULL)
		return NULL;
	if ((n = RB_NFIND(fb_tree, &s->t[c], &key)) != NULL)
		return n;
	c = class_at_or_after(s, c + 1);
	return c < FB_CLASSES ? RB_MIN(fb_tree, &s->t[c]) : NULL;
}

struct fb_node *
fb_last(const struct freebins *f, int64_t stream)
{
	struct fb_stream *s = stream_of(f, stream);
	unsigned c;

	if (s == NULL || (c = class_at_or_before(s, FB_CLASSES - 1)) == FB_CLASSES)
		return NULL;
	return RB_MAX(fb_tree, &s->t[c]);
}

/* The first node of streams[i] on, or NULL. */
static struct fb_node *
first_from(const struct freebins *f, size_t i)
{
	unsigned c;

	for (; i < f->nstreams; i++)
		if ((c = class_at_or_after(f->streams[i].s, 0)) < FB_CLASSES)
			return RB_MIN(fb_tree, &f->streams[i].s->t[c]);
	return NULL;
}

struct fb_node *
fb_first(const struct freebins *f)
{
	return first_from(f, 0);
}

struct fb_node *
fb_next(const struct freebins *f, const struct fb_node *n)
{
	struct fb_node *m = RB_NEXT(fb_tree, NULL, (struct fb_node *)n);
	struct fb_stream *s;
	unsigned c;
	size_t i;
	int found;

	if (m != NULL)
		return m;
	i = stream_pos(f, n->stream, &found);
	s = f->streams[i].s;
	if ((c = class_at_or_after(s, class_of(n->size) + 1)) < FB_CLASSES)
		return RB_MIN(fb_tree, &s->t[c]);
	return first_from(f, i + 1);
}

struct fb_node *
fb_prev(const struct freebins *f, const struct fb_node *n)
{
	struct fb_node *m = RB_PREV(fb_tree, NULL, (struct fb_node *)n);
	unsigned c = class_of(n->size);
	size_t i;
	int found;

	if (m != NULL)
		return m;
	i = stream_pos(f, n->stream, &found);
	for (;;) {
		if (c > 0 && (c = class_at_or_before(f->streams[i].s, c - 1)) < FB_CLASSES)
			return RB_MAX(fb_tree, &f->streams[i].s->t[c]);
		if (i-- == 0)
			return NULL;
		c = FB_CLASSES;
	}
}

int
fb_contains(const struct freebins *f, const struct fb_node *n)
{
	struct fb_stream *s = stream_of(f, n->stream);

	return s != NULL && RB_FIND(fb_tree, &s->t[class_of(n->size)], (struct fb_node *)n) == n;
}
