/*
 * pickle-snap.h - the snapshot reader's private parts (traces/trace-pickle.c
 * and the files it is split into), shared by them alone, on floors that
 * call one way: the frames' summaries (pickle-frames.c) and the record
 * store (pickle-recs.c) at the bottom; the dump's scan, its seeds, the
 * limit inference and CUDA graphs' pools (pickle-dump.c) over them; the
 * events made from the records (pickle-emit.c) over that; opening and
 * reading the file (trace-pickle.c) on top.  Nothing outside traces/
 * includes it.
 */
#ifndef TRACES_PICKLE_SNAP_H
#define TRACES_PICKLE_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>
#include <uthash.h>

#include "sim/gms.h"
#include "traces/pickle.h"
#include "traces/reader.h"

/* A site's text, kept once however many events name it. */
struct site_str {
	UT_hash_handle hh;
	char s[];
};

/*
 * What a list of frames says, summarized once: its site, its stack, who
 * released a segment (released_by_walk).  Summary 0 is no frames.
 */
struct summary {
	const char *at, *stack;
	int released;
};

/*
 * A list of frames already summarized: by its address (a list PyTorch hands
 * every block and entry with the same traceback; dropped when the list is
 * let go with its entry), or by its items' addresses (the frame dicts the
 * pickle shares, pinned so that they stay theirs).
 */
struct fmemo {
	const struct pk_val *frames;
	const struct pk_val **items;	/* the key, by content */
	uint32_t sid;
	UT_hash_handle hh;
};

/*
 * Walks that descend through values the memo may share.  A pickle may name
 * one list or dict from many places, so walking what every reference holds
 * can cost far more than the file has bytes (a 16 KB file whose segments all
 * share one list of blocks unfolds to millions).  What the walks read below
 * the top-level lists (the entries of every device trace, the blocks of every
 * segment, every frame, its keys and its strings) is charged against
 * WALK_PER_BYTE steps per byte of the file, counted before expanding where a
 * list's length tells it, and a file past that is refused.  PyTorch's own
 * snapshots take under 1 step a byte (0.87 at most of the 40 in the tree).
 */
#define WALK_PER_BYTE 16u
#define WALK_FLOOR (1u << 16)
/* A block is read through several keys and becomes an event. */
#define WALK_PER_BLOCK 8u
/* A trace entry, segment, block or frame has about 3 to 12 keys. */
#define DICT_KEYS_MAX 64

struct walk {
	uint64_t budget, used;
	uint64_t len;			/* the file's bytes (read so far) */
	const char *over;		/* what went past the budget, or NULL */
};

/* One trace entry kept, compactly (kinds past KIND_KEPT are not kept). */
struct rec {
	uint64_t addr, size;
	int64_t stream, t;		/* t < 0: no time */
	uint32_t sid;			/* its frames' summary */
	int8_t kind;
};

/* A device's records, in order: the first nspill in a temporary file. */
#define RECS_IN_MEMORY ((size_t)(16u << 20) / sizeof(struct rec))
#define RECS_BLOCK 4096
struct recs {
	struct rec *mem;
	size_t n, cap;
	int fd;				/* -1 until spilled */
	uint64_t nspill;
};

/* Reads records by index, a block of the file at a time. */
struct cursor {
	const struct recs *rs;
	struct rec *blk;
	uint64_t first;
	size_t nblk;
};

struct dev;

struct pickle_state {
	struct site_str *sites;		/* the events' at, each text once */
	struct walk walk;
	uint64_t stack_bytes;		/* stack text handed out so far (frame_stack) */
	struct pickle *pk;
	struct summary *sum;		/* by sid */
	size_t nsum, sumcap;
	struct fmemo *byptr, *bycontent;
	struct fmemo **batch;		/* byptr entries made while a batch is read */
	size_t nbatch, batchcap;
	struct dev **dev;		/* by device, while reading */
	size_t ndev;
	struct dev *chosen;		/* the device read */
	struct pools *pools;
	struct emitter *em;		/* the events, once open */
	gzFile gz;
};

struct addr_id {
	uint64_t addr, id, size;
	UT_hash_handle hh;
};

#define KIND_KEPT 7
#define NKINDS 9

/* One trace entry, checked. */
struct entry {
	int kind;		/* index into action_names, or -1 for unknown actions */
	uint64_t addr, size;
	int64_t stream, t;	/* t < 0: no time */
	const struct pk_val *frames;
};

/*
 * A block live, or a segment reserved, before the first entry: where, its
 * bytes (requested, for a block), its frames (or NULL).
 */
struct seed {
	uint64_t addr, size;
	uint32_t sid;		/* its frames' summary */
	int64_t stream;		/* its segment's */
};

struct scan {
	uint64_t counts[NKINDS];
	struct seed *seed;	/* blocks from before the trace */
	size_t nseed, seedcap;
	struct seed *seedseg;	/* segments from before the trace */
	size_t nseedseg, seedsegcap;
	uint64_t empty_caches;	/* torch.cuda.empty_cache() calls inferred */
	/* The state at dump, from the snapshot's segments of this device. */
	uint64_t dump_segments, dump_reserved, dump_active, dump_requested, dump_largest_free;
	int64_t unknown_actions;
};

/* A device's trace as it streams: its records, and the first pass's state. */
struct dev {
	struct recs recs;
	uint64_t entries;		/* read (kept or not) */
	struct scan sc;
	struct addr_id *live, *segs;	/* blocks allocated, segments reserved so far */
	int err;			/* its first bad entry: an error if it is read */
	char *why;
};

/*
 * The limit the recording ran under (set_per_process_memory_fraction), as far
 * as the trace shows it reached: every reservation fit, so the limit is at
 * least the most ever reserved; a reservation that failed (before an OOM
 * retry's releases, or at the oom itself after them) did not, so the limit
 * is below what was reserved then plus that segment.  PyTorch refuses a
 * cudaMalloc when reserved + size > limit.  Under garbage collection a
 * release may instead be the collector's, which runs only while reserved
 * exceeds threshold x limit: the limit is then below the larger of the two
 * bounds.  Expandable segments grow by pages: their releases say nothing.
 */
struct limit_scan {
	uint64_t reserved, peak, before, hi;
	int releasing, expandable, known;
	double gc;		/* garbage_collection_threshold, 0 when off */
};

/*
 * CUDA graphs' private pools, from the dump: its segments say which pool
 * each belongs to (segment_pool_id, (0, 0) the ordinary one), and a block
 * allocated inside one of a private pool's segments was allocated into that
 * pool (during a capture, or a replay's output), if allocated after the
 * segment was reserved: the address may have held an ordinary segment before.
 * Pools are numbered from 1 in the dump's order (trace.h).  A private segment
 * released before the dump is not known: its blocks count as the ordinary
 * pool's.
 */
struct pool_seg {
	uint64_t addr, size;
	unsigned pool;
	uint64_t since;		/* the record that reserved it (its last
				   segment_alloc there), 0 when before the trace */
};

struct pools {
	struct pool_seg *seg;
	size_t n;
	int64_t id[TRACE_POOL_MAX][2];
	unsigned nids;
};

/*
 * What the recording allocator did, as far as a complete trace shows it:
 * reserved bytes follow the segment events, requested bytes the allocs and
 * frees.  (Allocated bytes need the allocator's rounding: not known here.)
 */
struct observed {
	uint64_t reserved, peak_reserved, requested, peak_requested;
	uint64_t dallocs, dfrees, ooms;
};

/*
 * Second pass, event by event: the seeds, then the records as events.  Run
 * once whole at open (the header's limits, empty_cache calls and observed
 * numbers), then again as next() asks.
 */
struct emitter {
	struct scan *sc;
	const struct pools *pl;
	const struct recs *rs;
	struct limit_scan *lim;		/* the first run's */
	struct observed *ob;		/* ... and what it observes */
	int phase;			/* 0 segment seeds, 1 block seeds, 2 records, 3 done */
	uint64_t i;
	struct addr_id *live;
	uint64_t id;
	int in_release, asked;
	struct trace_event q[2];	/* an inferred empty_cache, then the record's event */
	uint64_t freed[2];		/* ... a free's block's requested bytes */
	int nq, qi;
	struct cursor cur, look;
};

/* --- pickle-frames.c: what a list of frames says, summarized once -------- */

int snap_charge(struct walk *w, uint64_t n, const char *what);
int snap_walk_fail(const struct walk *w, char **cause);
int snap_too_many_keys(const struct pk_val *d);
const char *snap_frame_stack(struct pickle_state *st, uint32_t sid);
void snap_fmemo_free(struct fmemo **h);
uint32_t snap_sid_of(struct pickle_state *st, const struct pk_val *entry, const struct pk_val *frames);
void snap_batch_end(struct pickle_state *st);

/* --- pickle-recs.c: the records, in memory and past it in a file --------- */

void snap_recs_free(struct recs *rs);
uint64_t snap_recs_count(const struct recs *rs);
void snap_recs_add(struct recs *rs, const struct rec *r);
void snap_cursor_init(struct cursor *c, const struct recs *rs);
void snap_cursor_free(struct cursor *c);
const struct rec *snap_rec_at(struct cursor *c, uint64_t i);

/* --- pickle-dump.c: entries, the dump's scan, seeds, limits and pools ----- */

/* A trace entry's actions, by kind (NULL-terminated), and the events of those kept. */
extern const char *const snap_action_names[];
extern const enum trace_op snap_action_ops[];

void snap_clear_map(struct addr_id **map);
struct addr_id *snap_map_add(struct addr_id **map, uint64_t addr, uint64_t id, uint64_t size);
struct addr_id *snap_map_find(struct addr_id *map, uint64_t addr);
int snap_read_entry(const struct pk_val *e, size_t i, struct entry *out, char **cause);
int snap_check_shape(const struct pk_val *segments, struct walk *w, char **cause);
int snap_scan_entry(struct dev *d, const struct entry *en, uint32_t sid, size_t i, char **cause);
int snap_scan_dump(struct pickle_state *st, const struct pk_val *segments, int64_t device, struct dev *d,
    char **cause);
int snap_called_empty_cache(const struct pickle_state *st, struct cursor *look, uint64_t i);
void snap_limit_event(struct limit_scan *l, int kind, uint64_t size, int empty_cache);
void snap_pools_scan(const struct pk_val *segments, int64_t device, struct pools *pl);
void snap_pools_since(const struct recs *rs, struct pools *pl);
unsigned snap_pool_of(const struct pools *pl, uint64_t addr, uint64_t i);

/* --- pickle-emit.c: the events, made from the records -------------------- */

cJSON *snap_observed_json(const struct observed *ob);
void snap_emit_free(struct emitter *em);
void snap_emit_start(struct emitter *em, struct scan *sc, const struct pools *pl, const struct recs *rs,
    struct limit_scan *lim, struct observed *ob);
int snap_emit_next(struct pickle_state *st, struct emitter *em, struct trace_event *ev, char **cause);

#endif /* TRACES_PICKLE_SNAP_H */
