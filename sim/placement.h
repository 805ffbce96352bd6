/*
 * placement.h - the model of where the CUDA driver puts a new segment in the
 * virtual address space.  Policies break ties between equal-size free blocks
 * by address, so the order of segment addresses changes which block is reused.
 *
 * Measured against real H200 runs (doc/ACCURACY.md): segments of at most 2 MiB ascend
 * from one region and larger segments descend from another; a released range is
 * reused, for small segments the lowest free range that fits (at its bottom),
 * for large ones the highest (at its top).  placement_create_driver() places
 * segments by the driver's rules measured since (placement-driver.h,
 * doc/placement.md), which reproduce every default run.
 */
#ifndef SIM_PLACEMENT_H
#define SIM_PLACEMENT_H

#include <stdint.h>

struct placement;

struct placement *placement_create(void);
/* The same, segments placed by the driver's measured rules (placement-driver.h). */
struct placement *placement_create_driver(void);
/*
 * An address for a new segment of size bytes (size > 0) in *addr; -1 when
 * the model's address space is full (petabytes: no real device gets there).
 */
int placement_place(struct placement *pl, uint64_t size, uint64_t *addr);
/* The segment [addr, addr+size) placed earlier is free again. */
void placement_remove(struct placement *pl, uint64_t addr, uint64_t size);
/*
 * Address ranges with nothing behind them (expandable segments), from a
 * region of their own, and pages mapped inside them.
 */
int placement_reserve_va(struct placement *pl, uint64_t size, uint64_t *addr);
void placement_release_va(struct placement *pl, uint64_t addr, uint64_t size);
void placement_map(struct placement *pl, uint64_t size);
void placement_unmap(struct placement *pl, uint64_t size);

/* Bytes of device memory the driver backs for what is placed (whole pages). */
uint64_t placement_physical(const struct placement *pl);
void placement_destroy(struct placement *pl);

/* The shared pages' bookkeeping holds (for tests): 0, or GMS_EBUG with *cause. */
int placement_check(const struct placement *pl, char **cause);

#endif /* SIM_PLACEMENT_H */
