/*
 * pickle.h - a reader for the subset of Python's pickle format that PyTorch
 * memory snapshots use (PyTorch's torch/cuda/memory.py and the C++ snapshot writer):
 * protocols 2 to 5, frames, the memo (MEMOIZE, BINPUT, gets), dicts, lists,
 * tuples, strings, ints of every width (LONG1 and LONG4; past 64 bits kept
 * only as PK_BIGINT),
 * floats, booleans and None.  No Python objects are built and nothing is
 * imported: any opcode outside the subset (GLOBAL, REDUCE, ...) is an error
 * naming it and its byte offset, never a guess.
 *
 * Values live in an arena owned by the struct pickle; memo references share
 * them (a snapshot repeats its key strings and empty lists through the memo),
 * and equal strings are one value.
 *
 * pickle_read streams: the entries appended to each list of a snapshot's
 * "device_traces" are handed to a callback as they complete, then let go
 * (with what was made inside them and nothing else names), so memory follows
 * what the rest of the snapshot holds, not the number of entries.  A memo
 * reference to a let-go entry is an error; one to a list the reader stood in
 * for (pk_stub) is the reader's PK_REF.
 */
#ifndef TRACES_PICKLE_H
#define TRACES_PICKLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * PK_BIGINT: an integer Python reads but int64 cannot hold (a C++ frame's
 * unknown line is 2^64 - 1); its value is not kept, so it is never mistaken
 * for a number where one is needed.
 */
enum pk_type { PK_NONE, PK_BOOL, PK_INT, PK_FLOAT, PK_STR, PK_LIST, PK_TUPLE, PK_DICT, PK_BIGINT,
	PK_REF };

struct pk_val {
	unsigned char type;	/* enum pk_type */
	unsigned char flags;	/* the machine's own (pickle.c) */
	unsigned char mark;	/* the reader's own (pk_set_mark), 0 after parsing */
	uint32_t vidx;		/* the machine's own: its place among memoized values */
	union {
		int64_t i;		/* PK_INT, PK_BOOL; PK_REF: the reader's id */
		double f;		/* PK_FLOAT */
		struct {
			const char *s;	/* NUL-terminated UTF-8 (may hold NULs; see len) */
			size_t len;
		} str;
		struct {
			struct pk_val **items;	/* dicts: key, value, key, value ... */
			size_t n, cap;
		} seq;
	} u;
};

struct pickle;

/*
 * Parse buf[0..len).  Returns the root value, or NULL with *cause saying what
 * is wrong and at which byte.  The values live until pickle_free(*out).
 */
const struct pk_val *pickle_parse(const unsigned char *buf, size_t len, struct pickle **out,
    char **cause);
void pickle_free(struct pickle *p);

/*
 * Streaming.  rd reads up to n bytes into buf: the count, 0 at the end, or
 * -1 with *cause.  entry is called for each value appended to
 * device_traces[device] (its index there counts from 0), the stack still
 * holding every entry of the batch; then with entry NULL once the batch has
 * been let go.  A negative return stops the parse with its *cause.
 */
typedef long (*pk_read_fn)(void *ctx, unsigned char *buf, size_t n, char **cause);
typedef int (*pk_entry_fn)(void *ctx, struct pickle *p, const struct pk_val *entry,
    size_t device, size_t index, char **cause);
const struct pk_val *pickle_read(pk_read_fn rd, void *rctx, pk_entry_fn entry, void *ectx,
    struct pickle **out, char **cause);
/* Bytes of pickle read (all of it once parsed). */
uint64_t pickle_bytes(const struct pickle *p);
/*
 * A list of device_traces whose entries were streamed: 1 with its device and
 * the number of entries handed out, else 0 (its items are then its own).
 */
int pk_streamed(const struct pk_val *list, size_t *device, size_t *entries);
/*
 * While entry's batch is handed out: let the memo name child (a list made
 * inside entry) as a PK_REF of id from now on, so that the list itself can
 * go with the entry.  1 when done; 0 when child stays (made before entry, or
 * named twice by the memo): the reader may keep its pointer.
 */
int pk_stub(struct pickle *p, const struct pk_val *entry, const struct pk_val *child, int64_t id);
/* Whether v was let go with its batch (its memory is reused after the batch ends). */
int pk_gone(const struct pk_val *v);
/* Keep v as long as the pickle: a reader may key on its address. */
void pk_pin(const struct pk_val *v);

/* The protocol the stream declared (its PROTO opcode), or 0. */
int pickle_protocol(const struct pickle *p);

/* A dict's value for a string key, or NULL (also when d is not a dict). */
const struct pk_val *pk_get(const struct pk_val *d, const char *key);
/* Number of items of a list or tuple (0 for anything else). */
size_t pk_len(const struct pk_val *v);
/* Item i of a list or tuple. */
const struct pk_val *pk_item(const struct pk_val *v, size_t i);
/*
 * Whether v may be reached from more than one place (the memo can hand it
 * out again): a walk that descends into it once per reference may do more
 * work than the input has bytes.  An unshared value has one reference.
 */
int pk_shared(const struct pk_val *v);
/* Whether every item of list or tuple v is shared (1 for anything else). */
int pk_items_shared(const struct pk_val *v);
/*
 * A byte a reader may keep on a value, to remember what it learned of it
 * (a string's class, say) once however many places name it.  Values are
 * otherwise read-only; 0 until set.
 */
unsigned pk_mark(const struct pk_val *v);
void pk_set_mark(const struct pk_val *v, unsigned char mark);
/* Type checks that tolerate NULL. */
int pk_is(const struct pk_val *v, enum pk_type t);

#endif /* TRACES_PICKLE_H */
