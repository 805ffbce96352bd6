/*
 * drivercost.h - what a device call costs in the CUDA driver, by size: the
 * medians measured on an H200 (replay/drivercost_probe.c, results in
 * replay/results-h200/drivercost.txt), interpolated between the measured
 * sizes.  An estimate of a policy's time in the driver, for `compare`.
 */
#ifndef SIM_DRIVERCOST_H
#define SIM_DRIVERCOST_H

#include <stdint.h>

/*
 * Nanoseconds for cudaMalloc, cudaFree of size bytes that made the driver
 * back (or give back) pages bytes of physical memory: below 1 MiB a request
 * shares 2 MiB pages, so it costs a table lookup unless it opens (or closes)
 * a page.
 */
uint64_t drivercost_malloc_ns(uint64_t size, uint64_t pages);
uint64_t drivercost_free_ns(uint64_t size, uint64_t pages);
/* Expandable segments: mapping and unmapping size bytes (2 MiB granules). */
uint64_t drivercost_map_ns(uint64_t size);
uint64_t drivercost_unmap_ns(uint64_t size);

#endif /* SIM_DRIVERCOST_H */
