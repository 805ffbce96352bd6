/*
 * placement.h - the model of where the CUDA driver puts a new segment in the
 * virtual address space.  Policies break ties between equal-size free blocks
 * by address, so the order of segment addresses changes which block is reused.
 *
 * Segments go where the driver's rules measured on the H200 put them
 * (placement-driver.h, doc/placement.md): they reproduce every default run
 * of the shared ground truth.
 */
#ifndef SIM_PLACEMENT_H
#define SIM_PLACEMENT_H

#include <stdint.h>

struct placement;

/*
 * seed 0: the driver as measured, in a process that reserves nothing else;
 * any other seed: one with hidden reservations drawn from it
 * (driver_create_perturbed), one of the placements of --placements.
 */
struct placement *placement_create(uint64_t seed);
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
