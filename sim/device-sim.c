/*
 * device-sim.c - the simulated device: a capacity and the placement model of
 * placement.h.  It never refuses below the capacity: a simulated GPU has
 * exactly --capacity bytes for the allocator (the CUDA context and other
 * libraries are the user's to subtract; replay/RESULTS.md).
 */
#include "config.h"

#include <stdlib.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/placement.h"

static int
sim_reserve(struct device *d, uint64_t size, uint64_t *addr)
{
	return placement_place(d->priv, size, addr) < 0 ? GMS_EOOM : 0;
}

static void
sim_release(struct device *d, uint64_t addr, uint64_t size)
{
	placement_remove(d->priv, addr, size);
}

static uint64_t
sim_physical(struct device *d)
{
	return placement_physical(d->priv);
}

static int
sim_reserve_va(struct device *d, uint64_t size, uint64_t *addr)
{
	return placement_reserve_va(d->priv, size, addr) < 0 ? GMS_EOOM : 0;
}

static void
sim_release_va(struct device *d, uint64_t addr, uint64_t size)
{
	placement_release_va(d->priv, addr, size);
}

static int
sim_map(struct device *d, uint64_t addr, uint64_t size)
{
	placement_map(d->priv, size);
	return 0;
}

static void
sim_unmap(struct device *d, uint64_t addr, uint64_t size)
{
	placement_unmap(d->priv, size);
}

static void
sim_destroy(struct device *d)
{
	placement_destroy(d->priv);
	free(d);
}

static const struct device_ops device_sim_ops = {
	.name = "model",
	.reserve = sim_reserve,
	.release = sim_release,
	.physical = sim_physical,
	.reserve_va = sim_reserve_va,
	.release_va = sim_release_va,
	.map = sim_map,
	.unmap = sim_unmap,
	.destroy = sim_destroy,
};

struct device *
device_sim_create_perturbed(uint64_t capacity, uint64_t seed)
{
	struct device *d = gms_calloc(1, sizeof(*d));

	d->ops = &device_sim_ops;
	d->capacity = capacity;
	d->priv = placement_create(seed);
	return d;
}

struct device *
device_sim_create(uint64_t capacity)
{
	return device_sim_create_perturbed(capacity, 0);
}
