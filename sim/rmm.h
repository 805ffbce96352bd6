/*
 * rmm.h - what RAPIDS RMM's simulated memory resources share: its blocks, its
 * two free lists, the stream-ordered base every pool-like resource derives
 * from, and the pool and fixed-size resources as parts the binning resource
 * is built of.  The policies themselves are sim/policy-rmm-*.c.
 *
 * Followed from rapidsai/rmm: the free lists of mr/detail/coalescing_free_list.hpp
 * and fixed_size_free_list.hpp, the base of
 * mr/detail/stream_ordered_memory_resource.hpp (one free list per stream; a
 * request looks in its own stream's list, then takes a block from another
 * stream's list, then merges the other lists into its own one at a time,
 * then grows).  All sizes are aligned up to 256 bytes.
 *
 * RMM keeps the other streams' lists in a map ordered by the address of the
 * stream's CUDA event, which no log records: `order=created` (the default)
 * takes them in the order their streams were first used (the order their
 * events were created, as the driver hands out ascending handles), `order=handle`
 * by the stream handle's value.
 */
#ifndef SIM_RMM_H
#define SIM_RMM_H

#include <stdint.h>

#include <bsd/sys/queue.h>
#include <bsd/sys/tree.h>
#include <uthash.h>

#include "sim/objpool.h"
#include "sim/policy.h"

#define RMM_ALIGN 256			/* rmm::CUDA_ALLOCATION_ALIGNMENT */

static inline uint64_t
rmm_align(uint64_t n)
{
	return (n + RMM_ALIGN - 1) / RMM_ALIGN * RMM_ALIGN;
}

struct rmm_blk {
	uint64_t addr, size;
	uint64_t requested;		/* while live: the request; 0 while free */
	int head;			/* starts an upstream block: never merged
					   with the block before it */
	int64_t stream;			/* while live: the stream it was taken on */
	void *owner;			/* while live: what serves it (binning) */
	RB_ENTRY(rmm_blk) by_addr;	/* a coalescing list, or the live tree */
	RB_ENTRY(rmm_blk) by_size;	/* a coalescing list: (size, address) */
	TAILQ_ENTRY(rmm_blk) fifo;	/* a fixed-size list */
};

RB_HEAD(rmm_addr_tree, rmm_blk);
RB_HEAD(rmm_size_tree, rmm_blk);
TAILQ_HEAD(rmm_fifo, rmm_blk);
RB_PROTOTYPE(rmm_addr_tree, rmm_blk, by_addr, rmm_addr_cmp)
RB_PROTOTYPE(rmm_size_tree, rmm_blk, by_size, rmm_size_cmp)

enum rmm_list_kind {
	RMM_COALESCING,			/* address-ordered, merged on insertion,
					   best fit (ties: the lowest address) */
	RMM_FIFO,			/* fixed-size blocks, first in first out */
};

struct rmm_list {
	struct rmm_addr_tree addr;
	struct rmm_size_tree size;
	struct rmm_fifo fifo;
	uint64_t bytes;
};

struct rmm_stream {
	int64_t key;			/* the stream (0 and the legacy 1 are one) */
	struct rmm_list list;
	UT_hash_handle hh;
};

enum rmm_order { RMM_ORDER_CREATED, RMM_ORDER_HANDLE };

/* The stream-ordered base: a free list per stream. */
struct rmm_so {
	enum rmm_list_kind kind;
	enum rmm_order order;
	struct objpool *blks;		/* where its blocks come from */
	struct rmm_stream *hash;
	struct rmm_stream **seq;	/* every stream, in the order searched */
	size_t n, cap;
	uint64_t free_bytes;		/* in every list */
};

void rmm_so_init(struct rmm_so *so, enum rmm_list_kind kind, enum rmm_order order,
    struct objpool *blks);
void rmm_so_destroy(struct rmm_so *so);
/* The stream's list, made when the stream is first seen (its event created). */
struct rmm_stream *rmm_so_stream(struct rmm_so *so, int64_t stream);
/* A free block into a stream's list (merged with its neighbours when coalescing). */
void rmm_so_insert(struct rmm_so *so, struct rmm_stream *s, struct rmm_blk *b);
/* A free block out of its stream's list. */
void rmm_so_remove(struct rmm_so *so, struct rmm_stream *s, struct rmm_blk *b);
/* The list's get_block(): its best fit (FIFO: its first) of size, taken out; or NULL. */
struct rmm_blk *rmm_so_take(struct rmm_so *so, struct rmm_stream *s, uint64_t size);
/* policy_ops.addr of every policy whose handles are blocks. */
uint64_t rmm_blk_addr(void *state, void *handle);

/*
 * How a resource cuts an allocation from a free block (the rest, if any, goes
 * back into list) and grows (a block of at least size, or NULL: out of memory;
 * it may put more blocks into list, which by then holds every stream's free
 * blocks).
 */
struct rmm_so_ops {
	struct rmm_blk *(*split)(void *arg, struct rmm_blk *b, uint64_t size, struct rmm_stream *s);
	struct rmm_blk *(*expand)(void *arg, uint64_t size, struct rmm_stream *s);
};

/* get_block(): a block of at least size (aligned) for stream, or NULL. */
struct rmm_blk *rmm_so_get(struct rmm_so *so, const struct rmm_so_ops *ops, void *arg,
    uint64_t size, int64_t stream);
/* The largest free block in any list. */
uint64_t rmm_so_largest(const struct rmm_so *so);
/* Visit every free block (walks: each list in address or FIFO order). */
void rmm_so_each(const struct rmm_so *so, void (*fn)(void *arg, const struct rmm_blk *b),
    void *arg);

/* Parse order= (the default: created). */
int rmm_opt_order(const char *policy, const struct policy_args *args, enum rmm_order *order,
    char **cause);

/*
 * The pool resource (pool_memory_resource), on its own (rmm-pool) or under
 * binning.  maximum 0: none.  initial that the device refuses leaves it
 * broken: every request then fails, as RMM's constructor would have thrown.
 */
struct rmm_pool;
struct rmm_pool *rmm_pool_new(struct device *dev, uint64_t initial, uint64_t maximum,
    enum rmm_order order);
struct rmm_blk *rmm_pool_alloc(struct rmm_pool *p, uint64_t size, int64_t stream);
void rmm_pool_free(struct rmm_pool *p, struct rmm_blk *b, int64_t stream);
void rmm_pool_stats(struct rmm_pool *p, uint64_t *allocated, uint64_t *free_bytes,
    uint64_t *largest, uint64_t *ooms);
/* Each upstream block, then its blocks (live and free) in address order. */
void rmm_pool_walk(struct rmm_pool *p, policy_segment_fn *segfn, policy_block_fn *blkfn,
    void *arg, int (*expand)(void *earg, const struct rmm_blk *live, policy_block_fn *blkfn,
    void *arg), void *earg);
int rmm_pool_check(struct rmm_pool *p, char **cause);
void rmm_pool_destroy(struct rmm_pool *p);
/* Was its initial pool refused? */
int rmm_pool_broken(const struct rmm_pool *p);
/* The pool size its options give under args on dev (initial's default: half the free memory). */
int rmm_pool_sizes(const char *policy, const struct policy_args *args, const struct device *dev,
    uint64_t *initial, uint64_t *maximum, char **cause);

/*
 * The fixed-size resource (fixed_size_memory_resource): blocks of one size,
 * chunks of `blocks` of them from upstream (the device, or a pool).
 */
struct rmm_fixed;
struct rmm_fixed *rmm_fixed_new(struct device *dev, struct rmm_pool *up, uint64_t block_size,
    uint64_t blocks, enum rmm_order order);
struct rmm_blk *rmm_fixed_alloc(struct rmm_fixed *f, uint64_t size, int64_t stream);
void rmm_fixed_free(struct rmm_fixed *f, struct rmm_blk *b, int64_t stream);
/* Was its first chunk refused (RMM's constructor would have thrown)? */
int rmm_fixed_broken(const struct rmm_fixed *f);
void rmm_fixed_stats(struct rmm_fixed *f, uint64_t *allocated, uint64_t *free_bytes,
    uint64_t *chunk_bytes, uint64_t *ooms);
/* Is addr the start of one of its chunks?  Then its blocks, live and free. */
int rmm_fixed_walk_chunk(struct rmm_fixed *f, uint64_t addr, policy_block_fn *blkfn, void *arg);
void rmm_fixed_walk(struct rmm_fixed *f, policy_segment_fn *segfn, policy_block_fn *blkfn,
    void *arg);
int rmm_fixed_check(struct rmm_fixed *f, char **cause);
void rmm_fixed_destroy(struct rmm_fixed *f);

#endif /* SIM_RMM_H */
