/*
 * device.h - where policies get their segments from.  A device hands out
 * address ranges ("segments") and takes them back; it enforces the capacity
 * (the most the allocator may reserve: PyTorch's per-process memory fraction
 * limit, BFC's memory limit) and keeps the counters every report shows.
 *
 * Implementations: the simulated device (device-sim.c: a capacity and a model
 * of where the driver places segments), the recorded device (device-recorded.c:
 * addresses in order from a recording) and the CUDA device (replay/).
 */
#ifndef SIM_DEVICE_H
#define SIM_DEVICE_H

#include <stdint.h>

struct device;

struct device_ops {
	const char *name;
	/*
	 * Place a new segment of size bytes (a multiple of 512) and return its
	 * base address in *addr.  Called only after the capacity check passed.
	 * Returns 0, or GMS_EOOM when the device itself refuses (a real driver).
	 */
	int (*reserve)(struct device *d, uint64_t size, uint64_t *addr);
	/* Give back a segment exactly as reserved. */
	void (*release)(struct device *d, uint64_t addr, uint64_t size);
	/* Bytes of memory the driver backs now (whole pages, packing small ones). */
	uint64_t (*physical)(struct device *d);
	/*
	 * Virtual memory, for expandable segments: reserve an address range
	 * with nothing behind it, map and unmap pages inside it, give it back
	 * (cuMemAddressReserve, cuMemCreate + cuMemMap, cuMemUnmap + cuMemRelease,
	 * cuMemAddressFree).  map returns GMS_EOOM when the device refuses.
	 */
	int (*reserve_va)(struct device *d, uint64_t size, uint64_t *addr);
	void (*release_va)(struct device *d, uint64_t addr, uint64_t size);
	int (*map)(struct device *d, uint64_t addr, uint64_t size);
	void (*unmap)(struct device *d, uint64_t addr, uint64_t size);
	void (*destroy)(struct device *d);
};

struct device_counters {
	uint64_t reserved;	/* bytes held now: sum of live segment sizes */
	uint64_t peak_reserved;	/* max of reserved, sampled at every reserve */
	uint64_t segments;	/* live segments */
	uint64_t peak_segments;
	uint64_t allocs;	/* successful reserve calls (cudaMalloc / map) */
	uint64_t frees;		/* release calls (cudaFree / unmap) */
	uint64_t refusals;	/* reserve calls refused for capacity */
	uint64_t physical;	/* bytes the driver backs: reserved rounded to its
				   pages, small reservations packed */
	uint64_t peak_physical;
	uint64_t driver_ns;	/* the calls' estimated time in the driver
				   (sim/drivercost.h) */
	uint64_t driver_ns_grown;	/* ... up to the last call that raised
					   peak_reserved */
	uint64_t driver_ns_grown_physical;	/* ... peak_physical */
};

/* Told of every segment reserved or released (for comparisons and timelines). */
typedef void (device_hook_fn)(void *arg, int reserve, uint64_t addr, uint64_t size);

/*
 * One physical GPU that several jobs' devices share (share): each job's
 * device reserves in its own address space, but what the driver backs
 * (physical bytes) comes out of this one card, beside every job's CUDA
 * context.  A reservation the card cannot back is refused, as cudaMalloc is.
 */
struct device_gpu {
	uint64_t total;		/* the card's memory */
	uint64_t used;		/* every attached device's physical bytes, and contexts */
};

struct device {
	const struct device_ops *ops;
	uint64_t capacity;	/* 0: unlimited */
	enum device_limit {
		DEVICE_LIMIT_RESERVED,	/* reserved + size > capacity is refused */
		DEVICE_LIMIT_PHYSICAL,	/* what the driver would back is bounded (a
					   GPU of that size) */
		DEVICE_LIMIT_NONE,	/* the policy checks its limit itself */
	} limit;
	struct device_counters c;
	device_hook_fn *hook;	/* optional */
	void *hook_arg;
	struct device_gpu *gpu;	/* a shared card, or NULL */
	void *priv;		/* the implementation's state */
};

/*
 * Reserve size bytes: fails with GMS_EOOM without calling the implementation
 * when reserved + size > capacity (strict, as PyTorch checks its limit), or,
 * with DEVICE_LIMIT_PHYSICAL, when what the driver would back exceeds it.
 */
int device_reserve(struct device *d, uint64_t size, uint64_t *addr);
void device_release(struct device *d, uint64_t addr, uint64_t size);

/*
 * Expandable segments' virtual memory (see device_ops).  Mapping counts as a
 * device allocation and adds to reserved; unmapping as a device free.
 */
int device_reserve_va(struct device *d, uint64_t size, uint64_t *addr);
void device_release_va(struct device *d, uint64_t addr, uint64_t size);
int device_map(struct device *d, uint64_t addr, uint64_t size);
void device_unmap(struct device *d, uint64_t addr, uint64_t size);
void device_destroy(struct device *d);

/*
 * The simulated device: segments placed by the driver's rules measured on
 * the H200 (placement.h, doc/placement.md).
 */
struct device *device_sim_create(uint64_t capacity);
/* The same in a process with hidden reservations drawn from seed (placement.h). */
struct device *device_sim_create_perturbed(uint64_t capacity, uint64_t seed);

/*
 * The recorded device: hands out addresses in the order given by
 * device_recorded_push() (from a trace's observed segment_alloc events, or a
 * list of a recorded run's segments).  When the queue is empty, or the next
 * recorded segment has another size, it places the segment with the model
 * instead and counts a divergence.
 */
struct device *device_recorded_create(uint64_t capacity);
void device_recorded_push(struct device *d, uint64_t addr, uint64_t size);

struct device_recorded_stats {
	uint64_t pushed;	/* recorded segments offered */
	uint64_t asked;		/* segments asked for (reserve calls) */
	uint64_t used;		/* handed out with their recorded address */
	uint64_t diverged;	/* reserves that got no matching recorded segment */
	uint64_t first_divergence;	/* device alloc number (0-based) of the first */
};
void device_recorded_stats(const struct device *d, struct device_recorded_stats *st);

#endif /* SIM_DEVICE_H */
