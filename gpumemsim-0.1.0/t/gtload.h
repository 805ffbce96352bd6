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

/*
 * Per-run expectations (t/data/expect/<name>.txt): for every ground-truth run,
 * whether the model reproduces it today ("agree") or not ("differ"), one
 * line each: "SETTING TRACE RUN LIMIT agree|differ".  gt_expect checks a run
 * against its line: any change, in either direction, fails, so an
 * improvement is a deliberate update of the file and a regression is never
 * absorbed by a margin.  With GMS_EXPECT_WRITE=1 in the environment the file
 * is written anew from today's results instead (then review its diff).
 */
struct gt_expect;
struct gt_expect *gt_expect_open(const char *name);
/* One TAP test: the run agrees (agree != 0) exactly when its line says it does. */
void gt_expect(struct gt_expect *e, const char *setting, const char *trace, int run,
    uint64_t limit, int agree, const char *detail);
/*
 * gt_expect for one simulated run against its ground-truth run object:
 * agreement is the same peak reserved and the same OOM event (or none).
 */
struct sim_result;
void gt_expect_result(struct gt_expect *e, const char *setting, const char *trace, int run,
    const cJSON *real, const struct sim_result *res);

/* Every line was used (a run that disappeared fails); closes e. */
void gt_expect_close(struct gt_expect *e);

#endif /* T_GTLOAD_H */
