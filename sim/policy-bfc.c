/*
 * policy-bfc.c - the BFC allocator of TensorFlow and JAX (tsl::BFCAllocator),
 * following XLA's xla/tsl/framework/bfc_allocator.cc, in its two modes:
 *
 *  - grow-only: regions that start at 2 MiB and double (a larger request
 *    doubles until it fits and skips the doubling after), never merged with
 *    each other and never returned, except by the optional garbage collection
 *    of wholly free regions when growth fails (TensorFlow: on; JAX: off);
 *  - preallocate: the whole limit reserved as one region at the first
 *    allocation.
 *
 * Requests round up to 256 bytes.  Free chunks sit in 21 bins by size, each
 * ordered by (size, address), and the search walks the bins upward taking the
 * first chunk that fits: since the bins cover increasing, disjoint size
 * ranges, that is exactly the globally smallest chunk >= the request, lowest
 * address first, so one tree ordered by (size, address) answers it.  A chunk
 * is split only when it is at least twice the request or the remainder is at
 * least 128 MiB (else the slack is handed out and counts as in use); the
 * front is used.  A freed chunk merges with free neighbours in its region.
 * Growth checks the limit first: avail = floor256(limit - pool); a region is
 * min(curr, avail), cut by 10% steps (float arithmetic, as the original) if
 * the device refuses.
 *
 * Tunables: flavor (tensorflow|jax), gc (on|off), and for preallocate
 * fraction, limit and cc (see the option tables at the end).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/sys/tree.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/objpool.h"
#include "sim/policy.h"
#include "sim/sizeclass.h"

#define BFC_MIN_ALLOC 256				/* kMinAllocationSize */
#define BFC_FIRST_REGION (2 * GMS_MiB)
#define BFC_MAX_FRAGMENTATION (128 * GMS_MiB)		/* split when the slack reaches it */
#define BFC_BACKPEDAL 0.9f				/* kBackpedalFactor, a float */
/* "Unlimited": far above any device, far below overflow. */
#define BFC_NO_LIMIT ((uint64_t)1 << 52)

enum { FLAVOR_TENSORFLOW, FLAVOR_JAX };

struct bregion;

struct bchunk {
	uint64_t addr, size;
	uint64_t requested;		/* 0 while free */
	int in_use;
	struct bchunk *prev, *next;	/* physical neighbours in the region */
	struct bregion *region;
	RB_ENTRY(bchunk) link;		/* in the free tree while free */
};

struct bregion {
	uint64_t addr, size;
	struct bchunk *head;
	RB_ENTRY(bregion) link;
};

static int
bchunk_cmp(const struct bchunk *a, const struct bchunk *b)
{
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int
bregion_cmp(const struct bregion *a, const struct bregion *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(bfree_tree, bchunk);
RB_PROTOTYPE(bfree_tree, bchunk, link, bchunk_cmp)
RB_GENERATE(bfree_tree, bchunk, link, bchunk_cmp)
RB_HEAD(bregion_tree, bregion);
RB_PROTOTYPE(bregion_tree, bregion, link, bregion_cmp)
RB_GENERATE(bregion_tree, bregion, link, bregion_cmp)

struct bfc {
	struct device *dev;
	uint64_t limit;		/* memory_limit */
	uint64_t curr;		/* curr_region_allocation_bytes */
	uint64_t pool;		/* pool_bytes: sum of live regions */
	int gc;
	struct bfree_tree free;
	struct bregion_tree regions;
	uint64_t in_use;	/* bytes_in_use: chunk sizes, slack included */
	uint64_t free_bytes;
	uint64_t gc_runs, ooms;
	struct objpool chunks;
	/*
	 * preallocate: one region, of the limit.  Another run whose region is
	 * larger by at most slack bytes goes exactly as this one so far (see
	 * tail_slack); 0 once it has more regions than one.
	 */
	int prealloc;
	uint64_t slack;
	struct bchunk *tail;	/* ... its last chunk */
};

static uint64_t
round256(uint64_t n)
{
	return (n + BFC_MIN_ALLOC - 1) / BFC_MIN_ALLOC * BFC_MIN_ALLOC;
}

static void
free_insert(struct bfc *b, struct bchunk *c)
{
	RB_INSERT(bfree_tree, &b->free, c);
	b->free_bytes += c->size;
}

static void
free_remove(struct bfc *b, struct bchunk *c)
{
	RB_REMOVE(bfree_tree, &b->free, c);
	b->free_bytes -= c->size;
}

/* Extend(): grow the pool by a region that can hold r bytes. */
static int
extend(struct bfc *b, uint64_t r)
{
	uint64_t avail = (b->limit - b->pool) / BFC_MIN_ALLOC * BFC_MIN_ALLOC;
	uint64_t bytes, addr, nb;
	struct bregion *reg;
	struct bchunk *c;
	int increased = 0;

	if (r > avail)
		return 0;
	while (r > b->curr) {
		b->curr *= 2;
		increased = 1;
	}
	bytes = GMS_MIN(b->curr, avail);
	while (device_reserve(b->dev, bytes, &addr) < 0) {
		nb = round256((uint64_t)((float)bytes * BFC_BACKPEDAL));
		if (nb >= bytes)
			nb = bytes - BFC_MIN_ALLOC;
		bytes = nb;
		if (bytes < r)
			return 0;
	}
	if (!increased)
		b->curr *= 2;
	if (b->pool != 0 || bytes != b->limit / BFC_MIN_ALLOC * BFC_MIN_ALLOC)
		b->slack = 0;	/* not the one region of the limit */
	b->pool += bytes;
	reg = gms_calloc(1, sizeof(*reg));
	reg->addr = addr;
	reg->size = bytes;
	c = objpool_get(&b->chunks);
	c->addr = addr;
	c->size = bytes;
	c->region = reg;
	reg->head = c;
	RB_INSERT(bregion_tree, &b->regions, reg);
	free_insert(b, c);
	if (b->prealloc)
		b->tail = c;
	return 1;
}

static int
region_is_free(const struct bregion *reg)
{
	return reg->head->next == NULL && !reg->head->in_use;
}

/* DeallocateFreeRegions(): the garbage collection, when it can help. */
static int
deallocate_free_regions(struct bfc *b, uint64_t r)
{
	struct bregion *reg, *next;
	uint64_t free_total = 0;

	RB_FOREACH(reg, bregion_tree, &b->regions)
		if (region_is_free(reg))
			free_total += reg->size;
	if (free_total == 0 || r > b->limit - b->pool + free_total)
		return 0;
	for (reg = RB_MIN(bregion_tree, &b->regions); reg != NULL; reg = next) {
		next = RB_NEXT(bregion_tree, &b->regions, reg);
		if (!region_is_free(reg))
			continue;
		free_remove(b, reg->head);
		if (reg->head == b->tail)
			b->tail = NULL;
		objpool_put(&b->chunks, reg->head);
		device_release(b->dev, reg->addr, reg->size);
		b->pool -= reg->size;
		RB_REMOVE(bregion_tree, &b->regions, reg);
		free(reg);
	}
	b->gc_runs++;
	return 1;
}

/*
 * A region larger by d than this one differs only in its last chunk, d
 * larger, for as long as every choice stays the same.  That holds for any
 * pick of another chunk (smaller than the tail in (size, address) order) and
 * any free; it can break only where the tail itself is picked (a chunk of a
 * size in (tail, tail + d] would be picked instead, or the tail would be
 * split where it was not) or where nothing fits (the larger tail might).
 * The largest d that keeps c, the tail, picked for r, split as it was.
 */
static uint64_t
tail_slack(struct bfc *b, const struct bchunk *c, uint64_t r)
{
	struct bchunk *next;
	uint64_t d = UINT64_MAX, split_at;

	next = RB_NEXT(bfree_tree, &b->free, (struct bchunk *)c);
	if (next != NULL)
		d = next->size - c->size - 1;
	split_at = GMS_MIN(2 * r, r + BFC_MAX_FRAGMENTATION);
	if (c->size < split_at)
		d = GMS_MIN(d, split_at - c->size - 1);	/* not split here: keep it so */
	return d;
}

/* FindChunk(): the smallest free chunk >= r, lowest address first; split it. */
static struct bchunk *
find_chunk(struct bfc *b, uint64_t r)
{
	struct bchunk key = { .size = r, .addr = 0 }, *c, *rest;

	c = RB_NFIND(bfree_tree, &b->free, &key);
	if (c == NULL)
		return NULL;
	if (c == b->tail)
		b->slack = GMS_MIN(b->slack, tail_slack(b, c, r));
	free_remove(b, c);
	if (c->size >= 2 * r || c->size - r >= BFC_MAX_FRAGMENTATION) {
		rest = objpool_get(&b->chunks);
		rest->addr = c->addr + r;
		rest->size = c->size - r;
		rest->region = c->region;
		rest->prev = c;
		rest->next = c->next;
		if (c->next != NULL)
			c->next->prev = rest;
		c->next = rest;
		c->size = r;
		free_insert(b, rest);
		if (c == b->tail)
			b->tail = rest;
	}
	return c;
}

static int
bfc_alloc(void *state, uint64_t request, int64_t stream, void **handle, uint64_t *block)
{
	struct bfc *b = state;
	uint64_t r = round256(request);
	struct bchunk *c;

	/* a free tail too small: a larger one would be picked once it is r */
	if (b->tail != NULL && !b->tail->in_use && b->tail->size < r)
		b->slack = GMS_MIN(b->slack, r - b->tail->size - 1);
	c = find_chunk(b, r);
	if (c == NULL && extend(b, r))
		c = find_chunk(b, r);
	if (c == NULL && b->gc && deallocate_free_regions(b, r) && extend(b, r))
		c = find_chunk(b, r);
	if (c == NULL) {
		b->ooms++;
		return GMS_EOOM;
	}
	c->in_use = 1;
	c->requested = request;
	b->in_use += c->size;
	*handle = c;
	*block = c->size;
	return 0;
}

/* Merge c's next chunk (out of the free set already) into c. */
static void
absorb_next(struct bfc *b, struct bchunk *c)
{
	struct bchunk *n = c->next;

	if (n == b->tail)
		b->tail = c;
	c->size += n->size;
	c->next = n->next;
	if (n->next != NULL)
		n->next->prev = c;
	objpool_put(&b->chunks, n);
}

static void
bfc_free(void *state, void *handle)
{
	struct bfc *b = state;
	struct bchunk *c = handle, *n, *p;

	GMS_ASSERT(c->in_use);
	c->in_use = 0;
	c->requested = 0;
	b->in_use -= c->size;
	if ((n = c->next) != NULL && !n->in_use) {
		free_remove(b, n);
		absorb_next(b, c);
	}
	if ((p = c->prev) != NULL && !p->in_use) {
		free_remove(b, p);
		absorb_next(b, p);
		c = p;
	}
	free_insert(b, c);
}

static uint64_t
bfc_addr(void *state, void *handle)
{
	return ((struct bchunk *)handle)->addr;
}

static void
bfc_stats(void *state, struct policy_stats *st)
{
	struct bfc *b = state;
	struct bchunk *max = RB_MAX(bfree_tree, &b->free);

	memset(st, 0, sizeof(*st));
	st->allocated = b->in_use;
	st->cached_free = b->free_bytes;
	st->largest_free = max ? max->size : 0;
	st->alloc_retries = b->gc_runs;
	st->ooms = b->ooms;
	st->pool_slack = b->prealloc ? b->slack : 0;
}

static void
bfc_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	struct bfc *b = state;
	struct policy_walk_segment ws = { .pool = "region" };
	struct policy_walk_block wb;
	struct bregion *reg;
	struct bchunk *c;

	RB_FOREACH(reg, bregion_tree, &b->regions) {
		ws.addr = reg->addr;
		ws.size = reg->size;
		if (segfn != NULL)
			segfn(arg, &ws);
		for (c = reg->head; c != NULL && blkfn != NULL; c = c->next) {
			wb = (struct policy_walk_block){ .addr = c->addr, .size = c->size,
			    .requested = c->requested, .allocated = c->in_use };
			blkfn(arg, &wb);
		}
	}
}

static int
bfc_check(void *state, char **cause)
{
	struct bfc *b = state;
	uint64_t in_use = 0, free_bytes = 0, pool = 0, nfree = 0, ntree = 0, end;
	struct bregion *reg;
	struct bchunk *c;

	RB_FOREACH(reg, bregion_tree, &b->regions) {
		pool += reg->size;
		end = reg->addr;
		if (reg->head == NULL || reg->head->prev != NULL)
			return gms_fail(cause, -1, "region %#llx: bad head chunk",
			    (unsigned long long)reg->addr);
		for (c = reg->head; c != NULL; c = c->next) {
			if (c->addr != end || c->region != reg || c->size == 0 ||
			    c->size % BFC_MIN_ALLOC != 0 || (c->next && c->next->prev != c))
				return gms_fail(cause, -1, "region %#llx: chunks broken at %#llx",
				    (unsigned long long)reg->addr, (unsigned long long)c->addr);
			end += c->size;
			if (c->in_use) {
				in_use += c->size;
				continue;
			}
			free_bytes += c->size;
			nfree++;
			if (c->next != NULL && !c->next->in_use)
				return gms_fail(cause, -1, "chunk %#llx: two adjacent free chunks",
				    (unsigned long long)c->addr);
			if (RB_FIND(bfree_tree, &b->free, c) != c)
				return gms_fail(cause, -1, "free chunk %#llx missing from its bin",
				    (unsigned long long)c->addr);
		}
		if (end != reg->addr + reg->size)
			return gms_fail(cause, -1, "region %#llx: chunks cover %llu of %llu bytes",
			    (unsigned long long)reg->addr, (unsigned long long)(end - reg->addr),
			    (unsigned long long)reg->size);
	}
	RB_FOREACH(c, bfree_tree, &b->free)
		ntree++;
	if (ntree != nfree || in_use != b->in_use || free_bytes != b->free_bytes ||
	    pool != b->pool || pool != b->dev->c.reserved || pool > b->limit)
		return gms_fail(cause, -1, "counts disagree: %llu/%llu free chunks, in use "
		    "%llu/%llu, pool %llu/%llu (device %llu, limit %llu)",
		    (unsigned long long)ntree, (unsigned long long)nfree,
		    (unsigned long long)in_use, (unsigned long long)b->in_use,
		    (unsigned long long)pool, (unsigned long long)b->pool,
		    (unsigned long long)b->dev->c.reserved, (unsigned long long)b->limit);
	return 0;
}

static void
bfc_destroy(void *state)
{
	struct bfc *b = state;
	struct bregion *reg, *next;

	for (reg = RB_MIN(bregion_tree, &b->regions); reg != NULL; reg = next) {
		next = RB_NEXT(bregion_tree, &b->regions, reg);
		RB_REMOVE(bregion_tree, &b->regions, reg);
		free(reg);
	}
	objpool_destroy(&b->chunks);
	free(b);
}

static struct bfc *
bfc_new(struct device *dev, uint64_t limit, int gc)
{
	struct bfc *b = gms_calloc(1, sizeof(*b));

	b->dev = dev;
	b->limit = limit;
	b->gc = gc;
	RB_INIT(&b->free);
	RB_INIT(&b->regions);
	objpool_init(&b->chunks, sizeof(struct bchunk), 1024);
	return b;
}

/*
 * MinSystemMemory(): what TensorFlow leaves the system on a GPU with free
 * bytes and compute capability major cc (newest TensorFlow).
 */
static uint64_t
tf_reserve(uint64_t free_bytes, int cc)
{
	if (free_bytes < 2 * GMS_GiB)
		return 225 * GMS_MiB;
	if (cc <= 6)
		return 500 * GMS_MiB;
	if (cc == 7)
		return 1050 * GMS_MiB;
	if (cc == 8)
		return 1536 * GMS_MiB;
	return 1800 * GMS_MiB;
}

/*
 * The BFC limit a framework picks on a GPU of total bytes with free bytes left
 * after the CUDA context: TensorFlow free less its reserve, JAX 75% of total
 * (never more than is free).
 */
static uint64_t
framework_limit(int flavor, uint64_t free_bytes, uint64_t total, int cc)
{
	uint64_t r;

	if (flavor == FLAVOR_JAX)
		return GMS_MIN((uint64_t)((double)total * 0.75), free_bytes);
	r = tf_reserve(free_bytes, cc);
	return r < free_bytes ? free_bytes - r : free_bytes;
}

uint64_t
policy_bfc_tf_limit(uint64_t free_bytes, int cc)
{
	return framework_limit(FLAVOR_TENSORFLOW, free_bytes, 0, cc);
}

static const char *const flavors[] = { "tensorflow", "jax", NULL };

/* grow-only's limit under capacity (0: none), and whether it collects garbage. */
static int
grow_only_settings(const struct policy_args *args, uint64_t capacity, uint64_t *limit, int *gc,
    char **cause)
{
	int flavor = FLAVOR_TENSORFLOW, err;

	*limit = capacity ? capacity : BFC_NO_LIMIT;
	if ((err = policy_opt_choice("grow-only", args, "flavor", flavors, &flavor, cause)) < 0)
		return err;
	*gc = flavor == FLAVOR_TENSORFLOW;
	if (args->gpu_total != 0 && capacity != 0)
		*limit = framework_limit(flavor, capacity, args->gpu_total, args->gpu_cc);
	if ((err = policy_opt_bool("grow-only", args, "gc", gc, cause)) < 0 ||
	    (err = policy_opt_size("grow-only", args, "limit", limit, cause)) < 0)
		return err;
	if (*limit == 0)
		return gms_fail(cause, GMS_ECONFIG, "grow-only: option limit must be above 0");
	return 0;
}

static int
grow_only_create(const struct policy_args *args, struct device *dev, void **state,
    char **cause)
{
	uint64_t limit;
	int gc, err;
	struct bfc *b;

	if ((err = grow_only_settings(args, dev->capacity, &limit, &gc, cause)) < 0)
		return err;
	b = bfc_new(dev, limit, gc);
	b->curr = round256(GMS_MIN(limit, BFC_FIRST_REGION));
	*state = b;
	return 0;
}

/*
 * Below its limit and the device's capacity a run never backs off or
 * collects, so it grows region by region as without them; the first region
 * is the smaller of 2 MiB and the limit.
 */
static int
grow_only_inert(const struct policy_args *args, uint64_t capacity, uint64_t peak)
{
	uint64_t limit;
	int gc;

	if (grow_only_settings(args, capacity, &limit, &gc, NULL) < 0)
		return 0;
	return capacity >= peak && limit >= GMS_MAX(peak, BFC_FIRST_REGION);
}

static void
grow_only_set_capacity(void *state, const struct policy_args *args, uint64_t capacity)
{
	struct bfc *b = state;
	uint64_t limit;
	int gc;

	/* the options were checked when it was made */
	if (grow_only_settings(args, capacity, &limit, &gc, NULL) == 0)
		b->limit = limit;
}

/* preallocate's limit under capacity (0: none), and whether it collects garbage. */
static int
preallocate_settings(const struct policy_args *args, uint64_t capacity, uint64_t *limit_out,
    int *gc_out, char **cause)
{
	static const char *const ccs[] = { "5", "6", "7", "8", "9", "10", "12", NULL };
	static const int cc_major[] = { 5, 6, 7, 8, 9, 10, 12 };
	uint64_t limit = 0, card;
	double fraction = 1.0;
	int flavor = FLAVOR_TENSORFLOW, gc, cc = 4, err;

	if ((err = policy_opt_choice("preallocate", args, "flavor", flavors, &flavor, cause)) < 0)
		return err;
	gc = flavor == FLAVOR_TENSORFLOW;
	if ((err = policy_opt_bool("preallocate", args, "gc", &gc, cause)) < 0 ||
	    (err = policy_opt_size("preallocate", args, "limit", &limit, cause)) < 0 ||
	    (err = policy_opt_fraction("preallocate", args, "fraction", &fraction, cause)) < 0 ||
	    (err = policy_opt_choice("preallocate", args, "cc", ccs, &cc, cause)) < 0)
		return err;
	if (limit == 0 && args->gpu_total != 0 && capacity != 0 &&
	    policy_opt(args, "fraction") == NULL) {
		/* a named GPU: the framework's own default for it */
		limit = framework_limit(flavor, capacity, args->gpu_total,
		    policy_opt(args, "cc") ? cc_major[cc] : args->gpu_cc);
	} else if (limit == 0 && capacity != 0) {
		limit = (uint64_t)((double)capacity * fraction);
	} else if (limit == 0 && args->device_total != 0) {
		/* No capacity given: the framework's default on the recording GPU. */
		card = args->device_total;
		if (policy_opt(args, "fraction") != NULL)
			limit = (uint64_t)((double)card * fraction);
		else if (flavor == FLAVOR_JAX)
			limit = (uint64_t)((double)card * 0.75);
		else
			limit = card - GMS_MIN(card, tf_reserve(card, cc_major[cc]));
	}
	if (limit == 0)
		return gms_fail(cause, GMS_ECONFIG, "preallocate needs a limit to reserve: give "
		    "--capacity, or --option limit=SIZE (the trace does not say its GPU's memory)");
	*limit_out = limit;
	*gc_out = gc;
	return 0;
}

static int
preallocate_create(const struct policy_args *args, struct device *dev, void **state,
    char **cause)
{
	uint64_t limit;
	int gc, err;
	struct bfc *b;

	if ((err = preallocate_settings(args, dev->capacity, &limit, &gc, cause)) < 0)
		return err;
	b = bfc_new(dev, limit, gc);
	b->curr = round256(limit);
	b->prealloc = 1;
	b->slack = UINT64_MAX;
	*state = b;
	return 0;
}

/*
 * The one region of the limit, when the device takes it whole: runs differ
 * only by it (the capacity sets nothing else), and tail_slack says how much
 * larger it may be for the same run.
 */
static uint64_t
preallocate_pool_at(const struct policy_args *args, uint64_t capacity)
{
	uint64_t limit, region;
	int gc;

	if (preallocate_settings(args, capacity, &limit, &gc, NULL) < 0)
		return 0;
	region = limit / BFC_MIN_ALLOC * BFC_MIN_ALLOC;
	return capacity == 0 || region <= capacity ? region : 0;
}

static const struct policy_option grow_only_options[] = {
	{ "flavor", "tensorflow", "tensorflow or jax: sets gc's default (TensorFlow's on, JAX's off)" },
	{ "gc", "on (tensorflow), off (jax)", "free wholly free regions and retry before failing "
	  "(TF_ENABLE_GPU_GARBAGE_COLLECTION)" },
	{ "limit", "--capacity", "the BFC memory limit (bytes_limit)" },
	{ NULL, NULL, NULL },
};

static const struct policy_option preallocate_options[] = {
	{ "flavor", "tensorflow", "tensorflow or jax: the defaults below" },
	{ "fraction", "1", "the limit as a fraction of --capacity (JAX's "
	  "XLA_PYTHON_CLIENT_MEM_FRACTION is 0.75 of the card)" },
	{ "limit", "fraction x --capacity", "the limit in bytes (TensorFlow memory_limit)" },
	{ "cc", "9", "compute capability major, for TensorFlow's reserve when no capacity "
	  "is given (the pool is then the trace's GPU memory less 225 MiB to 1800 MiB)" },
	{ "gc", "on (tensorflow), off (jax)", "as for grow-only; matters only if the pool "
	  "could not be reserved whole" },
	{ NULL, NULL, NULL },
};

const struct policy_ops policy_grow_only = {
	.name = "grow-only",
	.frameworks = TRACE_FW_TENSORFLOW | TRACE_FW_JAX,
	.traits = POLICY_BFC,
	.models = "TensorFlow set_memory_growth / JAX XLA_PYTHON_CLIENT_PREALLOCATE=false "
	    "(the BFC allocator, regions doubling from 2 MiB, never returned)",
	.options = grow_only_options,
	.limit = POLICY_LIMIT_RESERVED,	/* the GPU: a limit above it backpedals */
	.create = grow_only_create,
	.alloc = bfc_alloc,
	.free = bfc_free,
	.addr = bfc_addr,
	.stats = bfc_stats,
	.walk = bfc_walk,
	.check = bfc_check,
	.destroy = bfc_destroy,
	.limit_inert = grow_only_inert,
	.set_capacity = grow_only_set_capacity,
};

const struct policy_ops policy_preallocate = {
	.name = "preallocate",
	.frameworks = TRACE_FW_TENSORFLOW | TRACE_FW_JAX,
	.traits = POLICY_BFC | POLICY_WHOLE_POOL,
	.models = "TensorFlow's and JAX's default (the BFC allocator with its whole limit "
	    "reserved at the first allocation; TensorFlow memory_limit)",
	.options = preallocate_options,
	.limit = POLICY_LIMIT_RESERVED,
	.create = preallocate_create,
	.pool_at = preallocate_pool_at,
	.alloc = bfc_alloc,
	.free = bfc_free,
	.addr = bfc_addr,
	.stats = bfc_stats,
	.walk = bfc_walk,
	.check = bfc_check,
	.destroy = bfc_destroy,
};
