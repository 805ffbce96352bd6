/*
 * placement-driver.h - the CUDA driver's placement of cudaMalloc's
 * reservations as measured on the H200 (doc/placement.md): the model behind
 * --placement=driver.  Addresses only; placement.c counts the pages.
 */
#ifndef SIM_PLACEMENT_DRIVER_H
#define SIM_PLACEMENT_DRIVER_H

#include <stdint.h>

struct driver;

struct driver *driver_create(void);
/*
 * The same driver in a process that also reserves what the trace does not
 * show (library workspaces, buffers, an earlier phase): hidden reservations
 * made before the first and among the trace's, drawn from seed (0: none,
 * driver_create's placement).
 */
struct driver *driver_create_perturbed(uint64_t seed);
/* An address for size bytes in *addr; -1 when the model's space is full. */
int driver_place(struct driver *d, uint64_t size, uint64_t *addr);
/* [addr, addr + size), placed earlier, is released. */
void driver_remove(struct driver *d, uint64_t addr, uint64_t size);
void driver_destroy(struct driver *d);

#endif /* SIM_PLACEMENT_DRIVER_H */
