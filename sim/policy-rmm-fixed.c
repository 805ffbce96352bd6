/*
 * policy-rmm-fixed.c - RMM's fixed_size_memory_resource (rapidsai/rmm,
 * src/mr/detail/fixed_size_memory_resource_impl.cpp): blocks of one size
 * (block_size aligned up to 256, default 1 MiB) in FIFO free lists per stream
 * (sim/rmm.h), taken from upstream in chunks of `blocks` of them (default 128),
 * the first chunk when the resource is made.  A request larger than a block
 * fails.  Chunks are never given back.  Upstream is the device (cudaMalloc),
 * or, under rmm-binning, a pool.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/rmm.h"

#define FIXED_BLOCK_SIZE ((uint64_t)1 << 20)	/* default_block_size */
#define FIXED_BLOCKS 128			/* default_blocks_to_preallocate */

struct chunk {
	uint64_t addr;
	struct rmm_blk *pooled;		/* its block in the upstream pool, or NULL */
	RB_ENTRY(chunk) link;
};

static int
chunk_cmp(const struct chunk *a, const struct chunk *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(rmm_chunk_tree, chunk);
RB_PROTOTYPE(rmm_chunk_tree, chunk, link, chunk_cmp)
RB_GENERATE(rmm_chunk_tree, chunk, link, chunk_cmp)

struct rmm_fixed {
	struct device *dev;
	struct rmm_pool *up;		/* NULL: the device */
	uint64_t block_size, chunk_size;
	int broken;			/* the first chunk was refused */
	struct rmm_chunk_tree chunks;
	uint64_t nchunks;
	struct rmm_so so;
	struct rmm_addr_tree live;
	uint64_t allocated, ooms;
	struct objpool blks;
};

static struct rmm_blk *
fixed_split(void *arg, struct rmm_blk *b, uint64_t size, struct rmm_stream *s)
{
	return b;
}

/* blocks_from_upstream(): a chunk, cut into blocks appended to the list. */
static int
add_chunk(struct rmm_fixed *f, int64_t stream, struct rmm_stream *s)
{
	struct rmm_blk *b, *pooled = NULL;
	struct chunk *c;
	uint64_t addr, i;

	if (f->up != NULL) {
		if ((pooled = rmm_pool_alloc(f->up, f->chunk_size, stream)) == NULL)
			return -1;
		pooled->owner = f;
		addr = pooled->addr;
	} else if (device_reserve(f->dev, f->chunk_size, &addr) < 0) {
		return -1;
	}
	c = gms_calloc(1, sizeof(*c));
	c->addr = addr;
	c->pooled = pooled;
	RB_INSERT(rmm_chunk_tree, &f->chunks, c);
	f->nchunks++;
	for (i = 0; i < f->chunk_size / f->block_size; i++) {
		b = objpool_get(&f->blks);
		b->addr = addr + i * f->block_size;
		b->size = f->block_size;
		rmm_so_insert(&f->so, s, b);
	}
	return 0;
}

static struct rmm_blk *
fixed_expand(void *arg, uint64_t size, struct rmm_stream *s)
{
	struct rmm_fixed *f = arg;

	if (add_chunk(f, s->key, s) < 0)
		return NULL;
	return rmm_so_take(&f->so, s, size);
}

static const struct rmm_so_ops fixed_ops = { .split = fixed_split, .expand = fixed_expand };

struct rmm_fixed *
rmm_fixed_new(struct device *dev, struct rmm_pool *up, uint64_t block_size, uint64_t blocks,
    enum rmm_order order)
{
	struct rmm_fixed *f = gms_calloc(1, sizeof(*f));

	f->dev = dev;
	f->up = up;
	f->block_size = rmm_align(block_size);
	f->chunk_size = f->block_size * blocks;
	RB_INIT(&f->chunks);
	RB_INIT(&f->live);
	objpool_init(&f->blks, sizeof(struct rmm_blk), 1024);
	rmm_so_init(&f->so, RMM_FIFO, order, &f->blks);
	if (add_chunk(f, 1, rmm_so_stream(&f->so, 1)) < 0)
		f->broken = 1;
	return f;
}

struct rmm_blk *
rmm_fixed_alloc(struct rmm_fixed *f, uint64_t size, int64_t stream)
{
	struct rmm_blk *b;

	if (f->broken || rmm_align(size) > f->block_size ||
	    (b = rmm_so_get(&f->so, &fixed_ops, f, rmm_align(size), stream)) == NULL) {
		f->ooms++;
		return NULL;
	}
	b->requested = size;
	b->stream = stream;
	b->owner = f;
	f->allocated += b->size;
	RB_INSERT(rmm_addr_tree, &f->live, b);
	return b;
}

void
rmm_fixed_free(struct rmm_fixed *f, struct rmm_blk *b, int64_t stream)
{
	RB_REMOVE(rmm_addr_tree, &f->live, b);
	f->allocated -= b->size;
	rmm_so_insert(&f->so, rmm_so_stream(&f->so, stream), b);
}

int
rmm_fixed_broken(const struct rmm_fixed *f)
{
	return f->broken;
}

void
rmm_fixed_stats(struct rmm_fixed *f, uint64_t *allocated, uint64_t *free_bytes,
    uint64_t *chunk_bytes, uint64_t *ooms)
{
	*allocated = f->allocated;
	*free_bytes = f->so.free_bytes;
	*chunk_bytes = f->nchunks * f->chunk_size;
	*ooms = f->ooms;
}

int
rmm_fixed_walk_chunk(struct rmm_fixed *f, uint64_t addr, policy_block_fn *blkfn, void *arg)
{
	struct chunk key = { .addr = addr };
	struct rmm_blk bkey, *b;
	struct policy_walk_block wb;
	uint64_t a;

	if (RB_FIND(rmm_chunk_tree, &f->chunks, &key) == NULL)
		return 0;
	for (a = addr; a < addr + f->chunk_size; a += f->block_size) {
		bkey.addr = a;
		b = RB_FIND(rmm_addr_tree, &f->live, &bkey);
		wb = (struct policy_walk_block){ .addr = a, .size = f->block_size,
		    .requested = b ? b->requested : 0, .allocated = b != NULL };
		blkfn(arg, &wb);
	}
	return 1;
}

void
rmm_fixed_walk(struct rmm_fixed *f, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	struct policy_walk_segment ws = { .pool = "fixed", .size = f->chunk_size };
	struct chunk *c;

	RB_FOREACH(c, rmm_chunk_tree, &f->chunks) {
		ws.addr = c->addr;
		if (segfn != NULL)
			segfn(arg, &ws);
		if (blkfn != NULL)
			rmm_fixed_walk_chunk(f, c->addr, blkfn, arg);
	}
}

static void
count_free(void *arg, const struct rmm_blk *b)
{
	(*(uint64_t *)arg)++;
}

int
rmm_fixed_check(struct rmm_fixed *f, char **cause)
{
	uint64_t nfree = 0, nlive = 0, total = f->nchunks * (f->chunk_size / f->block_size);
	struct chunk key, *c;
	struct rmm_blk *b;

	rmm_so_each(&f->so, count_free, &nfree);
	RB_FOREACH(b, rmm_addr_tree, &f->live) {
		nlive++;
		key.addr = b->addr;
		c = RB_NFIND(rmm_chunk_tree, &f->chunks, &key);
		if (c == NULL || c->addr != b->addr) {
			c = c ? RB_PREV(rmm_chunk_tree, &f->chunks, c) : RB_MAX(rmm_chunk_tree, &f->chunks);
		}
		if (c == NULL || b->addr >= c->addr + f->chunk_size ||
		    (b->addr - c->addr) % f->block_size != 0)
			return gms_fail(cause, -1, "live block %#llx is in none of the chunks",
			    (unsigned long long)b->addr);
	}
	if (nfree + nlive != total || f->allocated != nlive * f->block_size ||
	    f->so.free_bytes != nfree * f->block_size)
		return gms_fail(cause, -1, "blocks disagree: %llu free + %llu live of %llu",
		    (unsigned long long)nfree, (unsigned long long)nlive,
		    (unsigned long long)total);
	return 0;
}

void
rmm_fixed_destroy(struct rmm_fixed *f)
{
	struct chunk *c, *next;

	for (c = RB_MIN(rmm_chunk_tree, &f->chunks); c != NULL; c = next) {
		next = RB_NEXT(rmm_chunk_tree, &f->chunks, c);
		RB_REMOVE(rmm_chunk_tree, &f->chunks, c);
		free(c);
	}
	rmm_so_destroy(&f->so);
	objpool_destroy(&f->blks);
	free(f);
}

/* The policy: one fixed-size resource over the device. */
static int
fixed_create(const struct policy_args *args, struct device *dev, void **state, char **cause)
{
	uint64_t block_size = FIXED_BLOCK_SIZE, blocks = FIXED_BLOCKS;
	const char *v = policy_opt(args, "blocks");
	enum rmm_order order;
	char *end;
	int err;

	if ((err = policy_opt_size("rmm-fixed", args, "block_size", &block_size, cause)) < 0 ||
	    (err = rmm_opt_order("rmm-fixed", args, &order, cause)) < 0)
		return err;
	if (v != NULL) {
		blocks = strtoull(v, &end, 10);
		if (*v < '0' || *v > '9' || *end != '\0' || blocks == 0 || blocks > 1000000)
			return gms_fail(cause, GMS_ECONFIG, "rmm-fixed: option blocks takes a count "
			    "from 1 to 1000000, not '%s'", v);
	}
	if (block_size == 0 || block_size > ((uint64_t)1 << 40))
		return gms_fail(cause, GMS_ECONFIG, "rmm-fixed: option block_size must be above "
		    "0 and at most 1 TiB");
	*state = rmm_fixed_new(dev, NULL, block_size, blocks, order);
	return 0;
}

static int
fixed_alloc(void *state, uint64_t size, int64_t stream, void **handle, uint64_t *block)
{
	struct rmm_blk *b = rmm_fixed_alloc(state, size, stream);

	if (b == NULL)
		return GMS_EOOM;
	*handle = b;
	*block = b->size;
	return 0;
}

static void
fixed_free_on(void *state, void *handle, int64_t stream)
{
	rmm_fixed_free(state, handle, stream);
}

static void
fixed_free(void *state, void *handle)
{
	rmm_fixed_free(state, handle, ((struct rmm_blk *)handle)->stream);
}

static void
fixed_stats(void *state, struct policy_stats *st)
{
	struct rmm_fixed *f = state;
	uint64_t chunks;

	memset(st, 0, sizeof(*st));
	rmm_fixed_stats(f, &st->allocated, &st->cached_free, &chunks, &st->ooms);
	st->largest_free = st->cached_free ? f->block_size : 0;
}

static void
fixed_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	rmm_fixed_walk(state, segfn, blkfn, arg);
}

static int
fixed_check(void *state, char **cause)
{
	struct rmm_fixed *f = state;

	if (f->nchunks * f->chunk_size != f->dev->c.reserved)
		return gms_fail(cause, -1, "chunks hold %llu bytes, the device %llu",
		    (unsigned long long)(f->nchunks * f->chunk_size),
		    (unsigned long long)f->dev->c.reserved);
	return rmm_fixed_check(f, cause);
}

static void
fixed_destroy(void *state)
{
	rmm_fixed_destroy(state);
}

static const struct policy_option fixed_options[] = {
	{ "block_size", "1MiB", "every block's size (aligned up to 256 B); larger requests fail" },
	{ "blocks", "128", "blocks per chunk taken from the device (the first when it starts)" },
	{ "order", "created", "created or handle: the order other streams' free lists are "
	  "searched in" },
	{ NULL, NULL, NULL },
};

const struct policy_ops policy_rmm_fixed = {
	.name = "rmm-fixed",
	.frameworks = TRACE_FW_RMM,
	.models = "RAPIDS RMM's fixed_size_memory_resource: blocks of one size in FIFO lists "
	    "per stream, chunks of 128 from cudaMalloc",
	.options = fixed_options,
	.limit = POLICY_LIMIT_RESERVED,
	.create = fixed_create,
	.alloc = fixed_alloc,
	.free = fixed_free,
	.free_on = fixed_free_on,
	.addr = rmm_blk_addr,
	.stats = fixed_stats,
	.walk = fixed_walk,
	.check = fixed_check,
	.destroy = fixed_destroy,
};
