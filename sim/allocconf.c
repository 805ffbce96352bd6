/*
 * allocconf.c - parsing PYTORCH_CUDA_ALLOC_CONF (allocconf.h): a lexer that
 * splits on , : [ ] and drops spaces, as PyTorch's lexArgs does, then one
 * parser per key with PyTorch's checks and messages.  Numbers are checked
 * whole (PyTorch's stoi would stop at the first non-digit).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/allocconf.h"
#include "sim/gms.h"

#define MAX_TOKENS 256
/* CUDAAllocatorConfig::pinned_max_register_threads() */
#define PINNED_MAX_REGISTER_THREADS 128
/* Segments are sizes in bytes; one past 2^50 (the trace readers' largest size) is no device's. */
#define LARGE_SEGMENT_MAX_MB ((uint64_t)1 << 30)

struct lexer {
	char tok[MAX_TOKENS][64];
	size_t at[MAX_TOKENS];		/* 1-based character position of each token */
	size_t n;
	const char *src;
	char **cause;
};

static int
fail(struct lexer *lx, size_t i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
fail(struct lexer *lx, size_t i, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (i < lx->n)
		return gms_fail(lx->cause, GMS_ECONFIG, "'%s' at character %zu ('%s'): %s",
		    lx->src, lx->at[i], lx->tok[i], msg);
	return gms_fail(lx->cause, GMS_ECONFIG, "'%s' at its end: %s", lx->src, msg);
}

static int
lex(struct lexer *lx, const char *s)
{
	size_t i, len = 0, start = 0;

	lx->n = 0;
	for (i = 0;; i++) {
		char c = s[i];

		if (c == ',' || c == ':' || c == '[' || c == ']' || c == '\0') {
			if (len > 0) {
				lx->tok[lx->n][len] = '\0';
				lx->at[lx->n++] = start + 1;
				len = 0;
			}
			if (c == '\0')
				return 0;
			if (lx->n == MAX_TOKENS)
				return gms_fail(lx->cause, GMS_ECONFIG, "'%s': too many settings", s);
			lx->tok[lx->n][0] = c;
			lx->tok[lx->n][1] = '\0';
			lx->at[lx->n++] = i + 1;
		} else if (c != ' ') {
			if (len == 0)
				start = i;
			if (len == sizeof(lx->tok[0]) - 1)
				return gms_fail(lx->cause, GMS_ECONFIG, "'%s': a word is too long at "
				    "character %zu", s, start + 1);
			lx->tok[lx->n][len++] = c;
		}
		if (lx->n == MAX_TOKENS)
			return gms_fail(lx->cause, GMS_ECONFIG, "'%s': too many settings", s);
	}
}

static int
expect(struct lexer *lx, size_t i, char c)
{
	if (i >= lx->n || lx->tok[i][0] != c || lx->tok[i][1] != '\0')
		return fail(lx, i, "Error parsing CachingAllocator::AllocatorConfig settings, "
		    "expected %c", c);
	return 0;
}

static int
number(struct lexer *lx, size_t i, const char *key, uint64_t *out)
{
	char *end;

	if (i >= lx->n)
		return fail(lx, i, "Error, expecting %s value", key);
	errno = 0;
	*out = strtoull(lx->tok[i], &end, 10);
	if (lx->tok[i][0] == '-' || *end != '\0' || end == lx->tok[i] || errno != 0)
		return fail(lx, i, "%s takes a whole number, not '%s'", key, lx->tok[i]);
	return 0;
}

/*
 * A real number at token i, read whole (PyTorch's stod would stop at the
 * first character it cannot use).  0 with *out; 1 when the token is not a
 * finite number (the caller says which range it wants); < 0 when it is missing.
 */
static int
real(struct lexer *lx, size_t i, const char *key, double *out)
{
	char *end;

	if (i >= lx->n)
		return fail(lx, i, "Error, expecting %s value", key);
	errno = 0;
	*out = strtod(lx->tok[i], &end);
	if (*end != '\0' || end == lx->tok[i] || errno != 0 || !isfinite(*out))
		return 1;
	return 0;
}

static int
is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static int
boolean(struct lexer *lx, size_t i, const char *key, int *out)
{
	if (i < lx->n && strcmp(lx->tok[i], "True") == 0)
		*out = 1;
	else if (i < lx->n && strcmp(lx->tok[i], "False") == 0)
		*out = 0;
	else
		return fail(lx, i, "Expected a single True/False argument for %s", key);
	return 0;
}

static int
divisions(struct lexer *lx, size_t *ip, struct alloc_conf *c)
{
	size_t i = *ip, last = 0, idx, k;
	uint64_t v1, v2;
	int first = 1, err;

	if (i >= lx->n)
		return fail(lx, i, "Error, expecting roundup_power2_divisions value");
	if (strcmp(lx->tok[i], "[") != 0) {
		if ((err = number(lx, i, "roundup_power2_divisions", &v1)) < 0)
			return err;
		if (!is_pow2(v1))
			return fail(lx, i, "For roundups, the divisons has to be power of 2 ");
		for (k = 0; k < SC_DIVISION_SLOTS; k++)
			c->sc.divisions[k] = v1;
		*ip = i;
		return 0;
	}
	while (++i < lx->n && strcmp(lx->tok[i], "]") != 0) {
		size_t key_at = i;

		if ((err = expect(lx, ++i, ':')) < 0 ||
		    (err = number(lx, ++i, "roundup_power2_divisions", &v2)) < 0)
			return err;
		if (v2 != 0 && !is_pow2(v2))
			return fail(lx, i, "For roundups, the divisons has to be power of 2 or 0 to "
			    "disable roundup ");
		if (strcmp(lx->tok[key_at], ">") == 0) {
			/* after the last listed interval (that one keeps its value), as
			   PyTorch 2.11 does: measured on the H200 (t/data/roundup-h200.txt) */
			for (k = last + 1; k < SC_DIVISION_SLOTS; k++)
				c->sc.divisions[k] = v2;
		} else {
			if ((err = number(lx, key_at, "a roundup interval", &v1)) < 0)
				return err;
			if (!is_pow2(v1))
				return fail(lx, key_at, "For roundups, the intervals have to be power of 2 ");
			idx = sc_log2(v1);
			if (idx > SC_DIVISION_SLOTS - 1)
				idx = SC_DIVISION_SLOTS - 1;
			if (first) {
				for (k = 0; k < idx; k++)
					c->sc.divisions[k] = v2;
				first = 0;
			}
			c->sc.divisions[idx] = v2;
			last = idx;
		}
		if (i + 1 < lx->n && strcmp(lx->tok[i + 1], "]") != 0 && (err = expect(lx, ++i, ',')) < 0)
			return err;
	}
	if (i >= lx->n)
		return fail(lx, i, "Error parsing roundup_power2_divisions value: no closing ]");
	*ip = i;
	return 0;
}

void
alloc_conf_defaults(struct alloc_conf *c)
{
	memset(c, 0, sizeof(*c));
	sc_caching_defaults(&c->sc);
	c->max_split = SC_UNLIMITED;
	c->max_non_split_rounding = SC_LARGE_SEGMENT;
}

int
alloc_conf_parse(const char *s, struct alloc_conf *c, char **cause)
{
	struct lexer *lx = gms_calloc(1, sizeof(*lx));
	uint64_t v, large_mb = 0, max_split_mb = 0, rounding_mb = 0;
	size_t i, at_split = 0, at_rounding = 0;
	int err = 0, dummy;
	double d;

	alloc_conf_defaults(c);
	lx->src = s;
	lx->cause = cause;
	if ((err = lex(lx, s)) < 0)
		goto out;
	for (i = 0; i < lx->n && err == 0; i++) {
		const char *key = lx->tok[i];
		size_t key_at = i;

		if (strcmp(key, "max_split_size_mb") == 0 ||
		    strcmp(key, "max_non_split_rounding_mb") == 0 ||
		    strcmp(key, "large_segment_size_mb") == 0) {
			if ((err = expect(lx, ++i, ':')) < 0 || (err = number(lx, ++i, key, &v)) < 0)
				break;
			if (key[4] == 's') {		/* max_split_size_mb */
				max_split_mb = v;
				at_split = i;
			} else if (key[0] == 'm') {	/* max_non_split_rounding_mb */
				rounding_mb = v;
				at_rounding = i;
			} else {
				if (v <= 10) {
					err = fail(lx, i, "large_segment_size_mb must be > 10");
					break;
				}
				if (v > LARGE_SEGMENT_MAX_MB) {
					err = fail(lx, i, "large_segment_size_mb must be at most %llu "
					    "(a pebibyte: no device holds one segment larger)",
					    (unsigned long long)LARGE_SEGMENT_MAX_MB);
					break;
				}
				large_mb = v;
			}
		} else if (strcmp(key, "garbage_collection_threshold") == 0) {
			if ((err = expect(lx, ++i, ':')) < 0 || (err = real(lx, ++i, key, &d)) < 0)
				break;
			if (err > 0 || !(d > 0 && d < 1.0)) {
				err = fail(lx, i, "garbage_collect_threshold is invalid, set it in (0.0, 1.0)");
				break;
			}
			c->gc_threshold = d;
		} else if (strcmp(key, "roundup_power2_divisions") == 0) {
			if ((err = expect(lx, ++i, ':')) < 0)
				break;
			++i;
			err = divisions(lx, &i, c);
		} else if (strcmp(key, "expandable_segments") == 0) {
			if ((err = expect(lx, ++i, ':')) < 0)
				break;
			err = boolean(lx, ++i, key, &c->expandable);
		} else if (strcmp(key, "graph_capture_record_stream_reuse") == 0) {
			/* only acts inside CUDA graph capture, which a trace does not record */
			if ((err = expect(lx, ++i, ':')) < 0)
				break;
			err = boolean(lx, ++i, key, &c->graph_capture_reuse);
		} else if (strcmp(key, "per_process_memory_fraction") == 0) {
			if ((err = expect(lx, ++i, ':')) < 0 || (err = real(lx, ++i, key, &d)) < 0)
				break;
			if (err > 0 || !(d >= 0 && d <= 1.0)) {
				err = fail(lx, i, "per_process_memory_fraction is invalid, set it in "
				    "[0.0, 1.0]");
				break;
			}
			c->memory_fraction = d;
			c->has_memory_fraction = 1;
		} else if (strcmp(key, "release_lock_on_cudamalloc") == 0 ||
		    strcmp(key, "pinned_use_cuda_host_register") == 0 ||
		    strcmp(key, "pinned_use_background_threads") == 0) {
			if ((err = expect(lx, ++i, ':')) < 0)
				break;
			err = boolean(lx, ++i, key, &dummy);
		} else if (strcmp(key, "pinned_num_register_threads") == 0) {
			if ((err = expect(lx, ++i, ':')) < 0 || (err = number(lx, ++i, key, &v)) < 0)
				break;
			if (!is_pow2(v))
				err = fail(lx, i, "Number of register threads has to be power of 2 ");
			else if (v > PINNED_MAX_REGISTER_THREADS)
				err = fail(lx, i, "Number of register threads should be less than or "
				    "equal to %d", PINNED_MAX_REGISTER_THREADS);
		} else if (strcmp(key, "backend") == 0) {
			if ((err = expect(lx, ++i, ':')) < 0)
				break;
			if (++i < lx->n && strcmp(lx->tok[i], "cudaMallocAsync") == 0)
				err = fail(lx, i, "backend:cudaMallocAsync is not the caching "
				    "allocator but the driver's pool, which --policy=cuda-async "
				    "simulates: the caching policy cannot be simulated under it");
			else if (i >= lx->n || strcmp(lx->tok[i], "native") != 0)
				err = fail(lx, i, "Unknown allocator backend, options are native and "
				    "cudaMallocAsync");
		} else {
			err = fail(lx, key_at, "Unrecognized CachingAllocator option: %s", key);
		}
		if (err == 0 && i + 1 < lx->n)
			err = expect(lx, ++i, ',');
	}
	if (err < 0)
		goto out;
	/* large_segment_size_mb is applied first: the minimums follow it. */
	if (large_mb)
		c->sc.large_segment = large_mb * GMS_MiB;
	c->max_non_split_rounding = c->sc.large_segment;
	/* given, 0 too: PyTorch refuses it */
	if (at_split) {
		if (max_split_mb < c->sc.large_segment / GMS_MiB) {
			err = fail(lx, at_split, "CachingAllocator option max_split_size_mb too small, "
			    "must be >= %llu", (unsigned long long)(c->sc.large_segment / GMS_MiB));
			goto out;
		}
		c->max_split = max_split_mb > UINT64_MAX / GMS_MiB ? SC_UNLIMITED : max_split_mb * GMS_MiB;
	}
	if (at_rounding) {
		if (rounding_mb < c->sc.large_segment / GMS_MiB) {
			err = fail(lx, at_rounding, "CachingAllocator option max_non_split_rounding_mb "
			    "too small, must be >= %llu", (unsigned long long)(c->sc.large_segment / GMS_MiB));
			goto out;
		}
		/* PyTorch clamps to what a size_t of bytes holds */
		c->max_non_split_rounding = rounding_mb > UINT64_MAX / GMS_MiB ?
		    UINT64_MAX / GMS_MiB * GMS_MiB : rounding_mb * GMS_MiB;
	}
out:
	free(lx);
	return err;
}

int
alloc_conf_same(const struct alloc_conf *a, const struct alloc_conf *b)
{
	/* graph_capture_reuse is left out: accepted, no effect outside a capture */
	return memcmp(&a->sc, &b->sc, sizeof(a->sc)) == 0 && a->max_split == b->max_split &&
	    a->max_non_split_rounding == b->max_non_split_rounding &&
	    a->gc_threshold == b->gc_threshold && a->expandable == b->expandable &&
	    a->has_memory_fraction == b->has_memory_fraction &&
	    a->memory_fraction == b->memory_fraction;
}
