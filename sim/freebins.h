/*
 * freebins.h - the caching policy's free blocks, in PyTorch's order (stream,
 * size, address), where a lookup is "the smallest block of this stream at
 * or above a size, lowest address on ties".
 *
 * One red-black tree (libbsd's tree.h) per stream and size class (eight
 * classes per power of two) and a bitmap of the classes in use: a search
 * goes to the request's class and, when that holds nothing big enough, to
 * the next class in use, so each tree holds a handful of blocks where one
 * tree over all of them took 55 of the policy's 95 ns per event (perf on
 * bench/sim-only, ~150 free blocks).  The order, and so every result, is
 * that of the one tree.
 */
#ifndef SIM_FREEBINS_H
#define SIM_FREEBINS_H

#include <stddef.h>
#include <stdint.h>

#include <bsd/sys/tree.h>

/* Embedded in what is filed; the key is the one it was filed under. */
struct fb_node {
	RB_ENTRY(fb_node) link;
	int64_t stream;
	uint64_t size, addr;
};

struct fb_stream;

struct fb_slot {
	int64_t stream;			/* here, so a lookup reads no further */
	struct fb_stream *s;
};

struct freebins {
	struct fb_slot *streams;	/* sorted by stream */
	size_t nstreams, cap;
	size_t count;
};

void fb_init(struct freebins *f);
void fb_free(struct freebins *f);
/* File n under (stream, size, addr), which no other node has. */
void fb_insert(struct freebins *f, struct fb_node *n, int64_t stream, uint64_t size,
    uint64_t addr);
void fb_remove(struct freebins *f, struct fb_node *n);
/* The least node of stream at or above (size, addr), or NULL. */
struct fb_node *fb_ceil(const struct freebins *f, int64_t stream, uint64_t size, uint64_t addr);
/* The greatest node of stream, or NULL. */
struct fb_node *fb_last(const struct freebins *f, int64_t stream);
/* In the whole order (streams ascending): the first node, and n's neighbours. */
struct fb_node *fb_first(const struct freebins *f);
struct fb_node *fb_next(const struct freebins *f, const struct fb_node *n);
struct fb_node *fb_prev(const struct freebins *f, const struct fb_node *n);
/* Is n filed here, under its key? */
int fb_contains(const struct freebins *f, const struct fb_node *n);

#endif /* SIM_FREEBINS_H */
