/*
 * policy-nocache-ideal.c - the two policies that reserve per request, with no cache:
 *
 *  - no-cache: every request is its own device allocation and every free
 *    returns it (PyTorch PYTORCH_NO_CUDA_MEMORY_CACHING=1, XLA's "platform"
 *    allocator).  What it reserves is what the driver backs: the device's
 *    physical bytes (requests above 1 MiB in whole 2 MiB pages, smaller ones
 *    packed into shared pages; placement.c, measured on an H200), and the
 *    capacity is the GPU's memory.  Device calls show what caching saves.
 *  - ideal: a perfect allocator whose reservation is exactly the live bytes,
 *    the lower bound every report states overhead against.
 *
 * The two differ only in what counts as reserved.
 *
 * Each live request is one segment, in an unordered array (a free moves the
 * last one into its slot: no neighbours touched, which with 100k live was a
 * cache miss each): a walk (a memory map) sorts them by address, so a
 * request costs O(1) whatever is live.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/objpool.h"
#include "sim/policy.h"

struct dblock {
	uint64_t addr, size, requested;
	int64_t stream;
	size_t slot;		/* its index in live[] */
};

struct direct {
	struct device *dev;
	struct dblock **live;	/* unordered: walks sort, O(1) per request */
	size_t nlive, cap;
	uint64_t allocated, ooms;
	struct objpool blocks;
};

static int
direct_alloc(void *state, uint64_t request, int64_t stream, void **handle, uint64_t *block)
{
	struct direct *d = state;
	uint64_t size = request, addr;
	struct dblock *b;

	if (device_reserve(d->dev, size, &addr) < 0) {
		d->ooms++;
		return GMS_EOOM;
	}
	b = objpool_get(&d->blocks);
	b->addr = addr;
	b->size = size;
	b->requested = request;
	b->stream = stream;
	if (d->nlive == d->cap)
		d->live = gms_realloc(d->live, (d->cap = d->cap ? 2 * d->cap : 1024) *
		    sizeof(*d->live));
	b->slot = d->nlive;
	d->live[d->nlive++] = b;
	d->allocated += size;
	*handle = b;
	*block = size;
	return 0;
}

static void
direct_free(void *state, void *handle)
{
	struct direct *d = state;
	struct dblock *b = handle;

	d->live[b->slot] = d->live[--d->nlive];
	d->live[b->slot]->slot = b->slot;
	device_release(d->dev, b->addr, b->size);
	d->allocated -= b->size;
	objpool_put(&d->blocks, b);
}

static uint64_t
direct_addr(void *state, void *handle)
{
	return ((struct dblock *)handle)->addr;
}

static void
direct_stats(void *state, struct policy_stats *st)
{
	struct direct *d = state;

	memset(st, 0, sizeof(*st));
	st->allocated = d->allocated;
	st->ooms = d->ooms;
}

static int
by_addr(const void *a, const void *b)
{
	const struct dblock *x = *(const struct dblock *const *)a;
	const struct dblock *y = *(const struct dblock *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void
direct_walk(void *state, policy_segment_fn *segfn, policy_block_fn *blkfn, void *arg)
{
	struct direct *d = state;
	struct dblock *b, **all;
	size_t n = d->nlive, i;

	/* in address order, as every walk is; sorted only when one is asked for */
	all = gms_malloc((n ? n : 1) * sizeof(*all));
	if (n > 0)	/* nothing live: live may be NULL */
		memcpy(all, d->live, n * sizeof(*all));
	if (n > 1)
		qsort(all, n, sizeof(*all), by_addr);
	for (i = 0; i < n; i++) {
		b = all[i];
		struct policy_walk_segment ws = { .addr = b->addr, .size = b->size,
		    .stream = b->stream, .pool = "request" };
		struct policy_walk_block wb = { .addr = b->addr, .size = b->size,
		    .requested = b->requested, .allocated = 1 };

		if (segfn != NULL)
			segfn(arg, &ws);
		if (blkfn != NULL)
			blkfn(arg, &wb);
	}
	free(all);
}

static int
direct_check(void *state, char **cause)
{
	struct direct *d = state;
	struct dblock *b;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < d->nlive; i++) {
		b = d->live[i];
		if (b->slot != i)
			return gms_fail(cause, -1, "block %#llx: in slot %zu, says %zu",
			    (unsigned long long)b->addr, i, b->slot);
		if (b->size != b->requested)
			return gms_fail(cause, -1, "block %#llx: size %llu for %llu requested",
			    (unsigned long long)b->addr, (unsigned long long)b->size,
			    (unsigned long long)b->requested);
		sum += b->size;
	}
	if (sum != d->allocated || sum != d->dev->c.reserved ||
	    d->dev->c.physical < d->dev->c.reserved)
		return gms_fail(cause, -1, "live blocks hold %llu bytes; allocated %llu, reserved %llu",
		    (unsigned long long)sum, (unsigned long long)d->allocated,
		    (unsigned long long)d->dev->c.reserved);
	return 0;
}

static void
direct_destroy(void *state)
{
	struct direct *d = state;

	objpool_destroy(&d->blocks);
	free(d->live);
	free(d);
}

static int
direct_create(const struct policy_args *args, struct device *dev, void **state, char **cause)
{
	struct direct *d = gms_calloc(1, sizeof(*d));

	d->dev = dev;
	objpool_init(&d->blocks, sizeof(struct dblock), 1024);
	*state = d;
	return 0;
}

static const struct policy_option no_options[] = {
	{ NULL, NULL, NULL },
};

/* The device's check on what is backed is all a capacity does here. */
static int
direct_inert(const struct policy_args *args, uint64_t capacity, uint64_t peak)
{
	(void)args;
	return capacity >= peak;
}

/* The device holds the capacity: nothing of the policy's depends on it. */
static void
direct_set_capacity(void *state, const struct policy_args *args, uint64_t capacity)
{
	(void)state;
	(void)args;
	(void)capacity;
}

const struct policy_ops policy_no_cache = {
	.name = "no-cache",
	.frameworks = TRACE_FW_PYTORCH | TRACE_FW_TENSORFLOW | TRACE_FW_JAX | TRACE_FW_RMM,
	.models = "no caching: one device allocation per request (PyTorch "
	    "PYTORCH_NO_CUDA_MEMORY_CACHING=1, XLA_PYTHON_CLIENT_ALLOCATOR=platform)",
	.options = no_options,
	.limit = POLICY_LIMIT_PHYSICAL,
	.create = direct_create,
	.alloc = direct_alloc,
	.free = direct_free,
	.addr = direct_addr,
	.stats = direct_stats,
	.walk = direct_walk,
	.check = direct_check,
	.destroy = direct_destroy,
	.limit_inert = direct_inert,
	.set_capacity = direct_set_capacity,
};

const struct policy_ops policy_ideal = {
	.name = "ideal",
	.frameworks = 0,
	.traits = POLICY_BOUND,
	.models = "the lower bound: a perfect allocator that reserves exactly the live bytes",
	.options = no_options,
	.create = direct_create,
	.alloc = direct_alloc,
	.free = direct_free,
	.addr = direct_addr,
	.stats = direct_stats,
	.walk = direct_walk,
	.check = direct_check,
	.destroy = direct_destroy,
	.limit_inert = direct_inert,
	.set_capacity = direct_set_capacity,
};
