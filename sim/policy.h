/*
 * policy.h - the interface every simulated allocator implements: one ops
 * table per policy, all listed in policy_table[], in a file per allocator
 * (sim/policy-caching.c; sim/policy-bfc.c holds its two modes, grow-only and
 * preallocate; sim/policy-nocache-ideal.c the two bounds, no-cache and
 * ideal; sim/policy-rmm-*.c RAPIDS RMM's memory resources, over sim/rmm.h;
 * sim/policy-cuda-async.c cudaMallocAsync's pool, a measured model).
 *
 * Contract: a policy gets its segments from a struct device and never prints,
 * exits or touches real memory.  Sizes and addresses are bytes (uint64_t).
 * Streams are the trace's stream numbers (0 = the default stream).
 */
#ifndef SIM_POLICY_H
#define SIM_POLICY_H

#include <stdint.h>

#include "traces/trace.h"

struct device;

/* One tunable, for `gpumemsim policies` and option validation. */
struct policy_option {
	const char *key;
	const char *defval;	/* the default, as the user would write it ("": none) */
	const char *help;
};

/* One option as the user gave it (--option KEY=VALUE). */
struct policy_kv {
	const char *key, *value;
};

/* What a policy is created from (its capacity is its device's). */
struct policy_args {
	const struct policy_kv *opts;	/* validated against the policy's table */
	size_t nopts;
	uint64_t gpu_total;		/* --gpu: the card's memory (frameworks size
					   their pools from it), else 0 */
	int gpu_cc;			/* --gpu: its compute capability major */
	uint64_t device_total;		/* the recording GPU's memory, 0 if unknown */
};

/* What a policy reports at any time (current values; peaks are the engine's). */
struct policy_stats {
	uint64_t allocated;	/* bytes of blocks handed out (>= requested) */
	uint64_t cached_free;	/* bytes of free blocks held in reserved segments */
	uint64_t largest_free;	/* the largest free block */
	uint64_t alloc_retries;	/* allocations retried after releasing cache */
	uint64_t ooms;
	uint64_t limit;		/* the policy's own limit on reservation, when
				   its options set one (caching's
				   per_process_memory_fraction); 0: none */
	uint64_t peak_asked;	/* the most its limit check was asked to
				   allow: reserved + what it asked for, which
				   may exceed what it then reserved (caching's
				   expandable segments ask for a whole segment
				   and map pages); 0 when never more than it
				   reserved */
	uint64_t largest_size;	/* caching: the largest segment so far, which
				   bounds every block and every request that
				   got one, all that max_split_size_mb is
				   compared with (a request that got none fails
				   alike either way): one above it changes
				   nothing (UINT64_MAX: not known); 0 for the
				   others */
	uint64_t pool_slack;	/* a policy that reserves one pool whole at its
				   first request (pool_at): how many bytes more
				   of pool would have changed nothing so far
				   (UINT64_MAX: any); 0 for the others */
};

/* What a walk reports: each segment, then its blocks in address order. */
struct policy_walk_block {
	uint64_t addr, size;
	uint64_t requested;	/* 0 for a free block */
	int allocated;
};
struct policy_walk_segment {
	uint64_t addr, size;
	int64_t stream;
	const char *pool;	/* "small", "large", ... */
};
typedef void (policy_segment_fn)(void *arg, const struct policy_walk_segment *seg);
typedef void (policy_block_fn)(void *arg, const struct policy_walk_block *blk);

struct policy_ops {
	const char *name;	/* CLI name: "caching" */
	const char *models;	/* the framework setting it stands for */
	const struct policy_option *options;	/* NULL-key terminated */
	/*
	 * The options that size the policy's pool (NULL-terminated), which
	 * plan searches for the smallest pool that runs the trace, each set to
	 * the same size; and without which (and without --capacity or --gpu)
	 * compare says the policy needs a size.  NULL: none.
	 */
	const char *const *pool_keys;
	/*
	 * Whose allocator it is, or stands for (TRACE_FW_*, traces/trace.h):
	 * the frameworks whose users can set it.  0: nobody's own (a bound).
	 */
	unsigned frameworks;
	/*
	 * What kind of allocator it is, for the code that treats a family alike
	 * (never by its name or its address).
	 */
	unsigned traits;
#define POLICY_BOUND 0x1	/* a bound nobody runs (ideal): never a winner */
#define POLICY_BFC 0x2		/* TensorFlow's and JAX's BFC allocator: a memory
				   limit (limit=, a fraction of the card), a flavor,
				   and a profile's recorded mode and limit */
#define POLICY_WHOLE_POOL 0x4	/* reserves its whole pool at its first request
				   (preallocation): without a size, the card's */
#define POLICY_ALLOC_CONF 0x8	/* PyTorch's caching allocator: takes
				   PYTORCH_CUDA_ALLOC_CONF (alloc_conf, --alloc-conf),
				   a recording's settings and its memory fraction */
	/*
	 * Who enforces --capacity: the policy itself (its limit check is part
	 * of what it models), the device on reserved bytes, or the device on
	 * what the driver backs (no pool of its own: reports then take the
	 * device's physical bytes as "reserved").
	 */
	enum policy_limit {
		POLICY_LIMIT_RESERVED,
		POLICY_LIMIT_PHYSICAL,
		POLICY_LIMIT_SELF,
	} limit;

	/*
	 * Make a policy over dev from args (options already checked against
	 * the table).  Returns 0 and *state, or GMS_ECONFIG with *cause.
	 */
	int (*create)(const struct policy_args *args, struct device *dev, void **state,
	    char **cause);

	/*
	 * Serve a request of size > 0 bytes on stream.  Returns 0 with *handle
	 * (opaque, given back to free) and *block (the bytes the policy counts
	 * as allocated for it), or GMS_EOOM, leaving the policy consistent.
	 */
	int (*alloc)(void *state, uint64_t size, int64_t stream, void **handle,
	    uint64_t *block);
	void (*free)(void *state, void *handle);
	/*
	 * The same, told the stream the free was ordered on (a trace's free
	 * that names one: RMM files a freed block under the freeing stream).
	 * NULL: free is called.
	 */
	void (*free_on)(void *state, void *handle, int64_t stream);
	/*
	 * torch.cuda.empty_cache(): give cached memory back to the device as the
	 * framework does.  NULL for a policy whose framework has no such call
	 * (BFC) or nothing cached (no-cache, ideal): the engine counts the calls.
	 */
	void (*empty_cache)(void *state);
	/* The address of the block behind a live handle. */
	uint64_t (*addr)(void *state, void *handle);

	void (*stats)(void *state, struct policy_stats *st);
	/* Visit every segment and its blocks, in address order. */
	void (*walk)(void *state, policy_segment_fn *seg, policy_block_fn *blk, void *arg);
	/* Verify every invariant: 0, or -1 with *cause naming the broken one. */
	int (*check)(void *state, char **cause);
	/*
	 * Would a run under capacity (args carrying --gpu, if any) go exactly
	 * as the run without one did, given that it asked its limit check for
	 * at most peak bytes (the larger of its peak reserved and peak_asked)?
	 * True when the capacity and every limit the policy derives from it
	 * are never reached and nothing else is sized from them: plan reuses
	 * the uncapped run then.  NULL: never (a pool sized from it).
	 */
	int (*limit_inert)(const struct policy_args *args, uint64_t capacity, uint64_t peak);
	/*
	 * A run without a limit goes on under capacity from here (plan's
	 * checkpoints, sim/checkpoint.h): take whatever create derives from
	 * the device's capacity as if it had been there from the start.  Only
	 * called where limit_inert held for the run so far, with the args it
	 * was created from.  NULL: such a run is never continued.
	 */
	void (*set_capacity)(void *state, const struct policy_args *args, uint64_t capacity);
	/*
	 * The pool a run under capacity (args carrying --gpu, if any) reserves
	 * whole at its first request, when nothing else of the run depends on
	 * the capacity: runs with the same pool go alike, and one with a pool
	 * up to its result's pool_slack larger too (plan shares their runs).
	 * 0 where that is not so (the device would refuse it whole).  NULL:
	 * no such pool.
	 */
	uint64_t (*pool_at)(const struct policy_args *args, uint64_t capacity);
	/*
	 * A trace that starts mid-run (TRACE_SEEDED): what was there before
	 * its first event, adopted as it was.  adopt_segment takes a segment
	 * the recording had reserved at addr (reserving its size from the
	 * device: 0, or GMS_EOOM).  alloc_at serves a live block inside an
	 * adopted segment at its recorded address: 0 with *handle and *block,
	 * GMS_EOOM, or 1 when no adopted segment has room there (the engine
	 * then asks alloc).  NULL for a policy that keeps no segments.
	 */
	int (*adopt_segment)(void *state, uint64_t addr, uint64_t size, int64_t stream);
	int (*alloc_at)(void *state, uint64_t size, int64_t stream, uint64_t addr, void **handle,
	    uint64_t *block);
	void (*destroy)(void *state);
};

/*
 * What a policy sized from the GPU's free memory says when it has neither a
 * capacity nor a size option: compare then lists it as needing a size.
 */
#define POLICY_NEEDS_SIZE "half the GPU's free memory"

/* Every policy, NULL-terminated, in the order `gpumemsim policies` lists them. */
extern const struct policy_ops *const policy_table[];

/*
 * The policies a command compares when none is named, for a trace of
 * framework fw (TRACE_FW_*): that framework's allocator and its settings
 * worth trying, what else its users can set, and ideal, the bound; for RMM
 * its memory resources; for a trace that does not say, the frameworks'
 * (caching, grow-only, preallocate, no-cache, ideal).  NULL-terminated
 * specs, as --policy takes them.
 */
const char *const *policy_defaults(unsigned fw);
/* The one policy a command runs when none is named (run, check, plot, ...). */
const char *policy_default(unsigned fw);

/* Find a policy by name or unique prefix; NULL with *cause otherwise. */
const struct policy_ops *policy_find(const char *name, char **cause);

/*
 * A policy with options, as written on a command line: "grow-only", words
 * "caching alloc_conf=expandable_segments:True gc=..." (a value may hold
 * colons), or without blanks "grow-only:flavor=jax:gc=on".  Fills *ops and a fresh array *opts of *nopts
 * pairs pointing into *store (the caller frees *opts and *store).  Returns 0,
 * or GMS_ECONFIG with *cause.
 */
int policy_parse_spec(const char *spec, const struct policy_ops **ops,
    struct policy_kv **opts, size_t *nopts, char **store, char **cause);

/* Every key of args is one of ops's options: 0, or GMS_ECONFIG with *cause. */
int policy_check_options(const struct policy_ops *ops, const struct policy_args *args,
    char **cause);

/* "name key=value ...": a policy with its settings as a label (caller frees). */
char *policy_label(const char *name, const struct policy_kv *opts, size_t nopts);
/*
 * A label as a table's column heads it: without "alloc_conf=", whose value
 * says what it is ("caching expandable_segments:True"); into buf.
 */
const char *policy_column(const char *label, char *buf, size_t len);

/* Does opts give one of ops's pool_keys (the user sized its pool)? */
int policy_pool_sized(const struct policy_ops *ops, const struct policy_kv *opts, size_t nopts);

/* The value of key in args (the last one given), or NULL. */
const char *policy_opt(const struct policy_args *args, const char *key);

/*
 * Typed option values: *out keeps its default when key is absent.  0, or
 * GMS_ECONFIG with *cause naming the policy, the key and what it takes.
 */
int policy_opt_bool(const char *policy, const struct policy_args *args, const char *key,
    int *out, char **cause);
int policy_opt_size(const char *policy, const struct policy_args *args, const char *key,
    uint64_t *out, char **cause);
int policy_opt_fraction(const char *policy, const struct policy_args *args, const char *key,
    double *out, char **cause);
/* One of choices (NULL-terminated); *out is the index. */
int policy_opt_choice(const char *policy, const struct policy_args *args, const char *key,
    const char *const *choices, int *out, char **cause);

/*
 * TensorFlow's BFC memory limit on a GPU with free_bytes free when it starts
 * (compute capability major cc): the free memory less its reserve.
 */
uint64_t policy_bfc_tf_limit(uint64_t free_bytes, int cc);

extern const struct policy_ops policy_caching;
extern const struct policy_ops policy_grow_only;
extern const struct policy_ops policy_preallocate;
extern const struct policy_ops policy_no_cache;
extern const struct policy_ops policy_ideal;
extern const struct policy_ops policy_rmm_pool;
extern const struct policy_ops policy_rmm_fixed;
extern const struct policy_ops policy_rmm_binning;
extern const struct policy_ops policy_rmm_arena;
extern const struct policy_ops policy_cuda_async;

#endif /* SIM_POLICY_H */
