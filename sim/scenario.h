/*
 * scenario.h - share's jobs as people write them: --job 'TRACE key=value
 * ...' and scenario files ({"gpu" or "capacity", "context_overhead",
 * "jobs": [{"trace": ..., key: value, ...}]}), read into job specs and then
 * into struct share_job (sim/share.h), every key checked, every
 * refusal a message naming the job or the key.
 */
#ifndef ANALYSIS_SCENARIO_H
#define ANALYSIS_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "sim/gpus.h"
#include "sim/share.h"
#include "traces/trace.h"

/* One job as written: its trace and its key=value settings. */
struct share_spec {
	char *where;			/* "--job 2", "s.json: jobs[1]": for messages */
	char *path;
	char *store;			/* owns path, keys and values */
	char **keys, **vals;
	size_t n;
};

struct share_specs {
	struct share_spec *specs;
	size_t n;
	uint64_t total;			/* the file's capacity; 0: none */
	char *gpu;			/* the file's GPU model, or NULL */
	uint64_t context;
	int has_context;
	struct gpu_model gpu_own;	/* the file's GPU when it is a size */
};

/* --job number n's text into one more spec of s: 0, or GMS_ECONFIG with *cause. */
int share_parse_job(const char *text, int n, struct share_specs *s, char **cause);
/*
 * A scenario file's len bytes (path names it in messages and anchors its
 * traces' relative paths) into s: 0, or GMS_ECONFIG with a located *cause.
 */
int share_parse_scenario(const char *text, size_t len, const char *path, struct share_specs *s,
    char **cause);
/* The file at path, at most 16 MiB: as above, or GMS_EIO. */
int share_read_scenario(const char *path, struct share_specs *s, char **cause);
void share_specs_free(struct share_specs *s);

/*
 * A job from its spec: the policy and every key checked, and with load set
 * its trace read (topts: --device, --unknown-frees).  0, or a GMS_E* code
 * with *cause; release with share_job_free() either way.
 */
int share_job_make(const struct share_spec *spec, const struct trace_opts *topts, int load,
    struct share_job *j, char **cause);
void share_job_free(struct share_job *j);

#endif /* ANALYSIS_SCENARIO_H */
