/*
 * oomlog.h - what users paste after an out-of-memory error, read back into
 * the allocator's state at that moment: the BFC allocator's dump
 * (TensorFlow since 2017, JAX/XLA: "Allocator (GPU_0_bfc) ran out of memory
 * trying to allocate ...", the bins, the chunk map of every region, the
 * in-use summary, "Stats:"), or PyTorch's OutOfMemoryError message (the
 * current one and the 1.x one) with or without torch.cuda.memory_summary().
 * Then the answer: a real shortage or fragmentation, what the job needed at
 * that moment, and the settings that would have served the request.
 */
#ifndef ANALYSIS_OOMLOG_H
#define ANALYSIS_OOMLOG_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

enum oomlog_kind { OOMLOG_BFC = 1, OOMLOG_PYTORCH };
enum oomlog_fw { OOMLOG_FW_UNKNOWN, OOMLOG_FW_JAX, OOMLOG_FW_TF };

/* One chunk of the BFC allocator's chunk map, in the order the dump lists them. */
struct oomlog_chunk {
	uint64_t addr, size;
	int in_use;
	size_t region;		/* index into regions */
};

struct oomlog {
	enum oomlog_kind kind;
	char *path;
	size_t line;			/* the line that says it ran out (1-based) */
	uint64_t request;		/* what was asked for (BFC: rounded when said) */
	int exact;			/* request is exact bytes, not "92.00 MiB" */
	char device[96];		/* the card, when the log names it */
	uint64_t device_total;		/* ... and its memory, when it says (bytes) */
	const char *unread;		/* a phrase the message has with no size
					   after it (or one beyond 1 EiB) */

	/* BFC */
	enum oomlog_fw fw;
	char allocator[64];		/* "GPU_0_bfc" */
	uint64_t *regions;		/* each region's size, as listed */
	size_t nregions;
	struct oomlog_chunk *chunks;
	size_t nchunks;
	uint64_t in_use, free_bytes, largest_free;	/* summed from the chunk map */
	size_t in_use_chunks, free_chunks;
	uint64_t pool;			/* the regions' sum */
	uint64_t limit;			/* Stats' Limit (or the summary's pool limit) */
	int has_limit;
	int growth;			/* 1 growth, 0 preallocated, -1 not said */
	uint64_t stats_in_use;		/* Stats' InUse, as printed */
	int has_stats;

	/* PyTorch */
	uint64_t total_capacity, free_on_card, process_in_use, allowed;
	int has_allowed;		/* "N allowed": set_per_process_memory_fraction */
	uint64_t allocated, reserved_unallocated, reserved;
	double allocated_ulp, reserved_ulp;	/* their steps as printed (bytes) */
	int old_message;		/* PyTorch 1.x: "(GPU 0; T total capacity; ...)" */
	int has_summary;		/* memory_summary()'s table followed */
	uint64_t segments;		/* "GPU reserved segments", current */
	uint64_t inactive_split;	/* "Non-releasable memory", current */
};

/*
 * Read path ("-": standard input; gzip'd or not) as an OOM log.  0, or
 * GMS_ETRACE with *cause naming the file and, where it stops making sense,
 * the line; GMS_EIO when it cannot be read.
 */
int oomlog_read(const char *path, struct oomlog *o, char **cause);
/* Parse text[0..len) (NUL at text[len]) as read from path. */
int oomlog_parse(const char *path, const char *text, size_t len, struct oomlog *o,
    char **cause);
void oomlog_free(struct oomlog *o);

/* The answer. */
struct oomlog_answer {
	int fragmentation;		/* the memory was there, in the wrong shape */
	uint64_t needed;		/* in use (allocated) + the request */
	uint64_t to_serve;		/* PyTorch: the reserved memory serving it
					   takes, with what the allocator cannot
					   give back (cached in partly used
					   segments) and the request's segment */
	uint64_t available;		/* what the allocator could have had: the
					   limit (BFC), allowed or free + reserved */
	uint64_t held_free;		/* free in the pool / reserved but unallocated */
	uint64_t largest_free;		/* BFC: the largest free chunk */
	char *settings[6];		/* what would have served it, best first */
	size_t nsettings;
};
void oomlog_answer(const struct oomlog *o, struct oomlog_answer *a);
void oomlog_answer_free(struct oomlog_answer *a);
cJSON *oomlog_json(const struct oomlog *o, const struct oomlog_answer *a);
char *oomlog_text(const struct oomlog *o, const struct oomlog_answer *a);

#endif /* ANALYSIS_OOMLOG_H */
