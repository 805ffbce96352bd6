/*
 * device.c - what every device shares: the capacity check, made before the
 * implementation is asked (as PyTorch checks its fraction limit before
 * cudaMalloc), and the counters.
 */
#include "config.h"

#include <stdlib.h>

#include "sim/device.h"
#include "sim/drivercost.h"
#include "sim/gms.h"

/*
 * After a reservation: the peaks, and the driver time spent until a peak
 * last grew.  What the calls after that cost is what every further
 * iteration of a job pays (compare's steady-state driver time).
 */
static void
note_growth(struct device *d)
{
	if (d->c.reserved > d->c.peak_reserved) {
		d->c.peak_reserved = d->c.reserved;
		d->c.driver_ns_grown = d->c.driver_ns;
	}
	if (d->c.physical > d->c.peak_physical) {
		d->c.peak_physical = d->c.physical;
		d->c.driver_ns_grown_physical = d->c.driver_ns;
	}
}

/* On a shared card: can what the driver backs now for d become after? */
static int
gpu_fits(const struct device *d, uint64_t after)
{
	return d->gpu == NULL || d->gpu->used - d->c.physical + after <= d->gpu->total;
}

/* On a shared card: d's physical bytes went from before to d->c.physical. */
static void
gpu_account(struct device *d, uint64_t before)
{
	if (d->gpu != NULL)
		d->gpu->used = d->gpu->used - before + d->c.physical;
}

int
device_reserve(struct device *d, uint64_t size, uint64_t *addr)
{
	uint64_t before = d->c.physical;
	int err;

	if (d->capacity != 0 && d->limit == DEVICE_LIMIT_RESERVED &&
	    d->c.reserved + size > d->capacity) {
		d->c.refusals++;
		return GMS_EOOM;
	}
	if ((err = d->ops->reserve(d, size, addr)) < 0) {
		d->c.refusals++;
		return err;
	}
	if ((d->capacity != 0 && d->limit == DEVICE_LIMIT_PHYSICAL &&
	    d->ops->physical(d) > d->capacity) || !gpu_fits(d, d->ops->physical(d))) {
		d->ops->release(d, *addr, size);
		d->c.refusals++;
		return GMS_EOOM;
	}
	d->c.reserved += size;
	d->c.segments++;
	d->c.peak_segments = GMS_MAX(d->c.peak_segments, d->c.segments);
	d->c.allocs++;
	d->c.physical = d->ops->physical(d);
	gpu_account(d, before);
	d->c.driver_ns += drivercost_malloc_ns(size, d->c.physical - GMS_MIN(before,
	    d->c.physical));
	note_growth(d);
	if (d->hook != NULL)
		d->hook(d->hook_arg, 1, *addr, size);
	return 0;
}

void
device_release(struct device *d, uint64_t addr, uint64_t size)
{
	uint64_t before = d->c.physical;

	GMS_ASSERT(d->c.reserved >= size && d->c.segments > 0);
	d->ops->release(d, addr, size);
	d->c.reserved -= size;
	d->c.segments--;
	d->c.frees++;
	d->c.physical = d->ops->physical(d);
	gpu_account(d, before);
	d->c.driver_ns += drivercost_free_ns(size, before - GMS_MIN(before, d->c.physical));
	if (d->hook != NULL)
		d->hook(d->hook_arg, 0, addr, size);
}

void
device_destroy(struct device *d)
{
	if (d != NULL)
		d->ops->destroy(d);
}

int
device_reserve_va(struct device *d, uint64_t size, uint64_t *addr)
{
	return d->ops->reserve_va(d, size, addr);
}

void
device_release_va(struct device *d, uint64_t addr, uint64_t size)
{
	d->ops->release_va(d, addr, size);
}

int
device_map(struct device *d, uint64_t addr, uint64_t size)
{
	uint64_t before = d->c.physical;
	int err;

	if ((err = d->ops->map(d, addr, size)) < 0) {
		d->c.refusals++;
		return err;
	}
	if (!gpu_fits(d, d->ops->physical(d))) {
		d->ops->unmap(d, addr, size);
		d->c.refusals++;
		return GMS_EOOM;
	}
	d->c.reserved += size;
	d->c.allocs++;
	d->c.driver_ns += drivercost_map_ns(size);
	d->c.physical = d->ops->physical(d);
	gpu_account(d, before);
	note_growth(d);
	if (d->hook != NULL)
		d->hook(d->hook_arg, 1, addr, size);
	return 0;
}

void
device_unmap(struct device *d, uint64_t addr, uint64_t size)
{
	uint64_t before = d->c.physical;

	GMS_ASSERT(d->c.reserved >= size);
	d->ops->unmap(d, addr, size);
	d->c.reserved -= size;
	d->c.frees++;
	d->c.driver_ns += drivercost_unmap_ns(size);
	d->c.physical = d->ops->physical(d);
	gpu_account(d, before);
	if (d->hook != NULL)
		d->hook(d->hook_arg, 0, addr, size);
}
