/*
 * share-report.h - what is said of a shared card's run (sim/share.h runs
 * it): its report as text and JSON (report-share.c), and the searches around
 * it (share-search.c): how often a job runs out over random start offsets,
 * and per-job limits in each framework's terms under which all fit.
 */
#ifndef ANALYSIS_SHARE_REPORT_H
#define ANALYSIS_SHARE_REPORT_H

#include <cJSON.h>

#include "sim/share.h"

/*
 * --offsets: n scenarios with the jobs after the first started at seeded
 * random offsets (uniform over the longest job's run), on up to threads
 * threads.  The JSON report's "offsets" object: {samples, seed, with_oom,
 * share, per job ooms, worst: {starts_us, ooms}}.
 */
cJSON *share_offsets(const struct share_scenario *sc, unsigned long long n,
    unsigned long long seed, int threads, char **text, char **cause);

/*
 * --recommend: per-job limits in each framework's terms under which every
 * job fits alone and all fit the card together, checked by a run with
 * them, or why none exists.  The JSON "recommend" object, *text for people.
 */
cJSON *share_recommend(const struct share_scenario *sc, int threads, char **text,
    char **cause);

cJSON *share_json(const struct share_scenario *sc, const struct share_result *res);
/* One out-of-memory as share_json() gives it (with its job's name when with_job). */
cJSON *share_oom_json(const struct share_scenario *sc, const struct share_oom *o, int with_job);
char *share_text(const struct share_scenario *sc, const struct share_result *res);

#endif /* ANALYSIS_SHARE_REPORT_H */
