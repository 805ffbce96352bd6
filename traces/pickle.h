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
 * them (a snapshot repeats its key strings and empty lists through the memo).
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
enum pk_type { PK_NONE, PK_BOOL, PK_INT, PK_FLOAT, PK_STR, PK_LIST, PK_TUPLE, PK_DICT, PK_BIGINT };

struct pk_val {
	enum pk_type type;
	unsigned char memoized;	/* reachable from the memo: may be shared */
	unsigned char listed;	/* in the pickle's list of sequences to free */
	unsigned char mark;	/* the reader's own (pk_set_mark), 0 after parsing */
	union {
		int64_t i;		/* PK_INT, PK_BOOL */
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
