/*
 * gtload.h - loading the ground-truth fixtures (JSON, maybe gzip) in t/data and the
 * sample traces for the fidelity tests.
 */
#ifndef T_GTLOAD_H
#define T_GTLOAD_H

#include <stdint.h>

#include <cJSON.h>

/* Parse $TOP_SRCDIR/rel (gzip or plain); bails out of the test on failure. */
cJSON *gt_load(const char *rel);
/* An integer member of o, 0 when absent. */
uint64_t gt_u64(const cJSON *o, const char *key);
/* traces/<name>.json, or the .jsonl.gz the larger samples are kept as. */
char *gt_sample_path(const char *name);

#endif /* T_GTLOAD_H */
