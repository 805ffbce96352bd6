/*
 * oomlog.c - an out-of-memory log read back into the allocator's state
 * (oomlog.h).  Lines are matched by what they say, wherever it sits in the
 * line: pasted logs carry glog prefixes ("I1207 11:36:34.084 6374
 * bfc_allocator.cc:1447] "), Python's, a timestamp, or none.  Sizes are
 * taken as printed ("812.00MiB", "92.00 MiB", "0 bytes", "851443712"); the
 * chunk map's are exact bytes, and the BFC answer is summed from it.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "analysis/oomlog.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "traces/input.h"

#define OOMLOG_MAX ((size_t)64 << 20)	/* a log longer than this is not a paste */
#define SIZE_MAX_READ ((double)((uint64_t)1 << 60))

/*
 * A size as printed at s: a number, then a unit (B, bytes, KiB/KB, MiB/MB,
 * GiB/GB, TiB/TB; none: bytes).  Binary units either way, as the frameworks
 * print them.  *end past it; *exact when a whole number of bytes.  0 if none.
 */
static int
size_at_ulp(const char *s, uint64_t *out, int *exact, const char **end, double *ulp)
{
	const char *p = s, *dot;
	char *e;
	double v, unit = 1, step = 1;
	int frac;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	errno = 0;
	v = strtod(p, &e);
	if (e == p || errno != 0 || v < 0 || v > SIZE_MAX_READ)
		return 0;
	if ((dot = memchr(p, '.', (size_t)(e - p))) != NULL)	/* 92.00: a step of 0.01 */
		for (step = 1; ++dot < e; )
			step /= 10;
	frac = dot != NULL;
	p = e;
	while (*p == ' ')
		p++;
	if (strncmp(p, "TiB", 3) == 0 || strncmp(p, "TB", 2) == 0)
		unit = 1099511627776.0, frac = 1;
	else if (strncmp(p, "GiB", 3) == 0 || strncmp(p, "GB", 2) == 0)
		unit = 1073741824.0, frac = 1;
	else if (strncmp(p, "MiB", 3) == 0 || strncmp(p, "MB", 2) == 0)
		unit = 1048576.0, frac = 1;
	else if (strncmp(p, "KiB", 3) == 0 || strncmp(p, "KB", 2) == 0)
		unit = 1024.0, frac = 1;
	v *= unit;
	if (v > SIZE_MAX_READ)
		return 0;
	if (ulp != NULL)
		*ulp = unit * step;
	while (isalpha((unsigned char)*p))
		p++;
	*out = (uint64_t)(v + 0.5);
	if (exact != NULL)
		*exact = !frac;
	if (end != NULL)
		*end = p;
	return 1;
}

static int
size_at(const char *s, uint64_t *out, int *exact, const char **end)
{
	return size_at_ulp(s, out, exact, end, NULL);
}

/* A hexadecimal address at s, with or without 0x. */
static int
addr_at(const char *s, uint64_t *out, const char **end)
{
	char *e;

	while (*s == ' ')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!isxdigit((unsigned char)*s))
		return 0;
	errno = 0;
	*out = strtoull(s, &e, 16);
	if (errno != 0)
		return 0;
	*end = e;
	return 1;
}

/* The catalogue's total for a model name tried as given, or 0. */
static uint64_t
try_card(const char *name)
{
	const struct gpu_model *g;
	char *cause = NULL;

	if ((g = gpu_find(name, &cause)) != NULL)
		return g->total;
	free(cause);
	return 0;
}

/*
 * The card's memory from the name the log gives: "NVIDIA H100 80GB HBM3"
 * as H100-80GB, "NVIDIA A100-SXM4-80GB" as A100-80GB, "Tesla T4" as T4.
 */
static uint64_t
card_total(const char *name)
{
	char words[4][32], try[72];
	const char *p = name, *dash;
	uint64_t t;
	int n = 0, i, k;

	while (*p && n < 4) {
		while (*p == ' ')
			p++;
		for (k = 0; *p && *p != ' ' && k < 31; p++)
			words[n][k++] = (char)tolower((unsigned char)*p);
		words[n][k] = '\0';
		while (*p && *p != ' ')
			p++;
		if (k > 0 && strcmp(words[n], "nvidia") != 0 && strcmp(words[n], "tesla") != 0)
			n++;
	}
	if (n == 0)
		return 0;
	for (i = 1; i < n; i++)		/* the model, then a word with its memory */
		if (strstr(words[i], "gb") != NULL) {
			snprintf(try, sizeof(try), "%s-%s", words[0], words[i]);
			if ((t = try_card(try)) != 0)
				return t;
		}
	if ((t = try_card(words[0])) != 0)
		return t;
	if ((dash = strchr(words[0], '-')) != NULL) {	/* a100-sxm4-80gb: a100-80gb */
		snprintf(try, sizeof(try), "%.*s%s", (int)(dash - words[0]), words[0],
		    strrchr(words[0], '-'));
		return try_card(try);
	}
	return 0;
}

static void
set_device(struct oomlog *o, const char *s)
{
	size_t k;

	while (*s == ' ')
		s++;
	for (k = 0; s[k] && s[k] != ',' && s[k] != '\n' && s[k] != ')' && k + 1 < sizeof(o->device);
	    k++)
		o->device[k] = s[k];
	while (k > 0 && o->device[k - 1] == ' ')
		k--;
	o->device[k] = '\0';
	if (o->device_total == 0)
		o->device_total = card_total(o->device);
}

/*
 * The size after key in line, when the line has key: a key with no size
 * after it is noted (o->unread), so that the log is refused rather than read
 * with that number as 0.
 */
static void
size_of(struct oomlog *o, const char *line, const char *key, uint64_t *out, double *ulp)
{
	const char *k = strstr(line, key);

	if (k != NULL && !size_at_ulp(k + strlen(key), out, NULL, NULL, ulp) && o->unread == NULL)
		o->unread = key;
}

/* A PyTorch message, current or 1.x, in line: 0 if it is not one. */
static int
pytorch_message(struct oomlog *o, const char *line, size_t lineno)
{
	const char *t = strstr(line, "CUDA out of memory. Tried to allocate"), *q;

	if (t == NULL || o->kind != 0)
		return 0;
	o->kind = OOMLOG_PYTORCH;
	o->line = lineno;
	o->allocated_ulp = o->reserved_ulp = 1e300;	/* not said yet */
	size_at(t + strlen("CUDA out of memory. Tried to allocate"), &o->request, &o->exact, &q);
	if (strstr(line, "total capacity;") != NULL) {	/* 1.x: (GPU 0; T total capacity; ...) */
		o->old_message = 1;
		if ((q = strstr(line, "(GPU ")) != NULL && (q = strchr(q, ';')) != NULL)
			size_at(q + 1, &o->total_capacity, NULL, NULL);
		size_of(o, line, "total capacity;", &o->allocated, &o->allocated_ulp);
		size_of(o, line, "already allocated;", &o->free_on_card, NULL);
		size_of(o, line, "free;", &o->reserved, &o->reserved_ulp);
		if (o->reserved > o->allocated)
			o->reserved_unallocated = o->reserved - o->allocated;
	} else {
		size_of(o, line, "has a total capacity of", &o->total_capacity, NULL);
		if ((q = strstr(line, "has a total capacity of")) != NULL)
			size_of(o, q, "of which", &o->free_on_card, NULL);
		size_of(o, line, "this process has", &o->process_in_use, NULL);
		size_of(o, line, "Of the allocated memory", &o->allocated, &o->allocated_ulp);
		size_of(o, line, "is allocated by PyTorch, and", &o->reserved_unallocated,
		    &o->reserved_ulp);
		o->reserved = o->allocated + o->reserved_unallocated;
		o->reserved_ulp += o->allocated_ulp;
	}
	/* "1024.00 MiB allowed;": the limit set_per_process_memory_fraction made */
	for (q = line; (q = strstr(q, " allowed")) != NULL; q++) {
		const char *b = q;

		while (b > line && isalpha((unsigned char)b[-1]))	/* its unit */
			b--;
		while (b > line && b[-1] == ' ')
			b--;
		while (b > line && (isdigit((unsigned char)b[-1]) || b[-1] == '.'))
			b--;
		if (size_at(b, &o->allowed, NULL, NULL)) {
			o->has_allowed = 1;
			break;
		}
	}
	return 1;
}

/*
 * A row of memory_summary()'s table: its first column ("Cur Usage").  The
 * table is printed after the error was caught, when the frames it unwound
 * have freed their tensors: its allocated is not the moment's, and the
 * message's is kept.  What is reserved stays until empty_cache(), so the
 * table's is kept where it is finer (KiB, against the message's two
 * decimals of MiB or GiB).
 */
static void
summary_row(struct oomlog *o, const char *line)
{
	const char *bar;
	uint64_t v;
	double ulp;

	if (line[0] != '|' || (bar = strchr(line + 1, '|')) == NULL)
		return;
	if (strncmp(line, "| Allocated memory ", 19) == 0) {
		o->has_summary = 1;
		if (o->allocated_ulp > 1e299 && size_at_ulp(bar + 1, &v, NULL, NULL, &ulp))
			o->allocated = v, o->allocated_ulp = ulp;	/* the message lacks it */
	} else if (strncmp(line, "| GPU reserved memory ", 22) == 0) {
		if (size_at_ulp(bar + 1, &v, NULL, NULL, &ulp) && ulp < o->reserved_ulp)
			o->reserved = v, o->reserved_ulp = ulp;
	} else if (strncmp(line, "| GPU reserved segments ", 24) == 0) {
		size_at(bar + 1, &o->segments, NULL, NULL);
	} else if (strncmp(line, "| Non-releasable memory ", 24) == 0) {
		size_at(bar + 1, &o->inactive_split, NULL, NULL);
	}
	if (o->reserved >= o->allocated)
		o->reserved_unallocated = o->reserved - o->allocated;
}

/* One line of a BFC dump (after the line that says it ran out). */
static int
bfc_line(struct oomlog *o, const char *line, size_t lineno, char **cause)
{
	const char *p;
	uint64_t v;
	int in_use = -1;

	if ((p = strstr(line, "Next region of size")) != NULL) {
		if (!size_at(p + strlen("Next region of size"), &v, NULL, NULL))
			return gms_fail(cause, GMS_ETRACE, "%s:%zu: a region without its size",
			    o->path, lineno);
		o->regions = gms_realloc(o->regions, (o->nregions + 1) * sizeof(*o->regions));
		o->regions[o->nregions++] = v;
		return 0;
	}
	if ((p = strstr(line, "InUse at ")) != NULL || (p = strstr(line, "Chunk at ")) != NULL)
		in_use = 1;
	else if ((p = strstr(line, "Free  at ")) != NULL || (p = strstr(line, "Free at ")) != NULL)
		in_use = 0;
	if (in_use >= 0) {
		struct oomlog_chunk c = { .in_use = in_use };
		const char *e;

		p = strstr(p, "at ") + 3;
		if (!addr_at(p, &c.addr, &e) || (e = strstr(e, "of size")) == NULL ||
		    !size_at(e + strlen("of size"), &c.size, NULL, NULL))
			return gms_fail(cause, GMS_ETRACE, "%s:%zu: a chunk without its address "
			    "and size (\"InUse at ADDR of size N\")", o->path, lineno);
		if (o->nregions == 0) {		/* older dumps list chunks before any region */
			o->regions = gms_realloc(o->regions, sizeof(*o->regions));
			o->regions[o->nregions++] = 0;
		}
		c.region = o->nregions - 1;
		o->chunks = gms_realloc(o->chunks, (o->nchunks + 1) * sizeof(*o->chunks));
		o->chunks[o->nchunks++] = c;
		return 0;
	}
	if ((p = strstr(line, "pool limit")) != NULL && size_at(p + 10, &v, NULL, NULL)) {
		o->limit = v;
		o->has_limit = 1;
	}
	if (strstr(line, "(growth enabled)") != NULL)
		o->growth = 1;
	if ((p = strstr(line, "Limit:")) != NULL && size_at(p + 6, &v, NULL, NULL) && !o->has_limit) {
		o->limit = v;
		o->has_limit = 1;
	}
	if ((p = strstr(line, "InUse:")) != NULL && (p == line || !isalpha((unsigned char)p[-1])) &&
	    size_at(p + 6, &v, NULL, NULL)) {	/* not MaxInUse: */
		o->stats_in_use = v;
		o->has_stats = 1;
	}
	return 0;
}

/* Framework hints anywhere in the log. */
static void
framework_of(struct oomlog *o, const char *text)
{
	if (strstr(text, "xla.execute") || strstr(text, "executable_name=") ||
	    strstr(text, "pjrt") || strstr(text, "XlaRuntimeError") || strstr(text, "jax") ||
	    strstr(text, "XLA_PYTHON_CLIENT"))
		o->fw = OOMLOG_FW_JAX;
	else if (strstr(text, "tensorflow") || strstr(text, "OOM when allocating tensor") ||
	    strstr(text, "/job:localhost"))
		o->fw = OOMLOG_FW_TF;
}

int
oomlog_parse(const char *path, const char *text, size_t len, struct oomlog *o, char **cause)
{
	const char *line = text, *nl, *p;
	char *buf = NULL;
	size_t lineno = 0, cap = 0, n;
	int in_dump = 0, rc = 0, dumps = 0;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->path = gms_strdup(path);
	o->growth = -1;
	if (memchr(text, '\0', len) != NULL)
		return gms_fail(cause, GMS_ETRACE, "%s: a NUL byte: not a log", path);
	while (line < text + len && rc == 0) {
		lineno++;
		nl = memchr(line, '\n', (size_t)(text + len - line));
		n = nl != NULL ? (size_t)(nl - line) : (size_t)(text + len - line);
		if (n + 1 > cap)
			buf = gms_realloc(buf, cap = n + 1);
		memcpy(buf, line, n);
		buf[n] = '\0';
		line = nl != NULL ? nl + 1 : text + len;

		if ((p = strstr(buf, "StreamExecutor [0]: ")) != NULL && !o->device[0])
			set_device(o, p + strlen("StreamExecutor [0]: "));
		else if ((p = strstr(buf, "name: ")) != NULL && strstr(buf, "device") && !o->device[0])
			set_device(o, p + strlen("name: "));
		if ((p = strstr(buf, "XLA backend allocating")) != NULL &&
		    (p = strchr(p, '(')) != NULL && size_at(p + 1, &v, NULL, NULL)) {
			o->growth = 0;		/* preallocated: the whole pool up front */
			o->limit = v;
			o->has_limit = 1;
		}
		if (pytorch_message(o, buf, lineno))
			continue;
		if (o->kind == OOMLOG_PYTORCH) {
			summary_row(o, buf);
			continue;
		}
		if ((p = strstr(buf, "ran out of memory trying to allocate")) != NULL &&
		    strstr(buf, "not a failure") == NULL) {
			if (dumps++ > 0) {
				in_dump = 0;	/* a later OOM: the first one's state is the answer */
				continue;
			}
			o->kind = OOMLOG_BFC;
			o->line = lineno;
			size_at(p + strlen("ran out of memory trying to allocate"), &o->request,
			    &o->exact, NULL);
			if ((p = strstr(buf, "(rounded to")) != NULL &&
			    size_at(p + strlen("(rounded to"), &v, NULL, NULL))
				o->request = v, o->exact = 1;
			if ((p = strstr(buf, "Allocator (")) != NULL) {
				const char *e = strchr(p + 11, ')');

				if (e != NULL && (size_t)(e - p - 11) < sizeof(o->allocator))
					memcpy(o->allocator, p + 11, (size_t)(e - p - 11));
			}
			in_dump = 1;
			continue;
		}
		if (in_dump)
			rc = bfc_line(o, buf, lineno, cause);
	}
	free(buf);
	if (rc < 0)
		return rc;
	if (o->kind == 0 && (strstr(text, "Out of memory while trying to allocate") != NULL ||
	    strstr(text, "OOM when allocating tensor") != NULL))
		return gms_fail(cause, GMS_ETRACE, "%s: the framework's error alone: the allocator's "
		    "dump that explains it went to the log above it (TensorFlow and JAX print it "
		    "with TF_CPP_MIN_LOG_LEVEL=0): paste the whole log", path);
	if (o->kind == 0)
		return gms_fail(cause, GMS_ETRACE, "%s: not an out-of-memory log gpumemsim can read "
		    "(expected the BFC allocator's \"ran out of memory trying to allocate\" and "
		    "its dump, from TensorFlow or JAX, or PyTorch's \"CUDA out of memory. Tried "
		    "to allocate\")", path);
	if (o->request == 0)
		return gms_fail(cause, GMS_ETRACE, "%s:%zu: the request's size is not there", path,
		    o->line);
	if (o->unread != NULL)
		return gms_fail(cause, GMS_ETRACE, "%s:%zu: no size after \"%s\" (a number and "
		    "its unit, below 1 EiB)", path, o->line, o->unread);
	if (o->kind == OOMLOG_BFC) {
		size_t i;

		framework_of(o, text);
		if (o->nchunks == 0)
			return gms_fail(cause, GMS_ETRACE, "%s:%zu: the allocator's dump is not there "
			    "(its chunk map, \"InUse at ... of size ...\"): paste the whole log; "
			    "TensorFlow and JAX print it with TF_CPP_MIN_LOG_LEVEL=0", path, o->line);
		for (i = 0; i < o->nchunks; i++) {
			/* each size is below 1 EiB; so must their sum be, or it wraps */
			if (o->in_use + o->free_bytes + o->chunks[i].size > (uint64_t)SIZE_MAX_READ)
				return gms_fail(cause, GMS_ETRACE, "%s:%zu: the dump's chunks add up to "
				    "more than 1 EiB: not a real allocator's", path, o->line);
			if (o->chunks[i].in_use) {
				o->in_use += o->chunks[i].size;
				o->in_use_chunks++;
			} else {
				o->free_bytes += o->chunks[i].size;
				o->free_chunks++;
				if (o->chunks[i].size > o->largest_free)
					o->largest_free = o->chunks[i].size;
			}
		}
		for (i = 0; i < o->nregions; i++) {
			if (o->pool + o->regions[i] > (uint64_t)SIZE_MAX_READ)
				return gms_fail(cause, GMS_ETRACE, "%s:%zu: the dump's regions add up "
				    "to more than 1 EiB: not a real allocator's", path, o->line);
			o->pool += o->regions[i];
		}
		if (o->pool == 0)
			o->pool = o->in_use + o->free_bytes;
	}
	return 0;
}

/* A text reader that takes what input_open spools: anything. */
static int
any_text(const unsigned char *head, size_t n)
{
	(void)head;
	(void)n;
	return 1;
}

int
oomlog_read(const char *path, struct oomlog *o, char **cause)
{
	size_t cap = 1 << 16, len = 0;
	char *buf;
	gzFile gz;
	int fd, n, rc;

	memset(o, 0, sizeof(*o));
	if ((rc = input_open(path, any_text, &fd, cause)) < 0)
		return rc;
	if ((gz = gzdopen(fd, "rb")) == NULL) {
		close(fd);
		return gms_fail(cause, GMS_EIO, "cannot read '%s': out of memory", path);
	}
	buf = gms_malloc(cap);
	while ((n = gzread(gz, buf + len, (unsigned)(cap - len - 1))) > 0) {
		len += (size_t)n;
		if (len > OOMLOG_MAX) {
			gzclose(gz);
			free(buf);
			return gms_fail(cause, GMS_ETRACE, "%s: more than %zu MiB: not a pasted log",
			    path, OOMLOG_MAX >> 20);
		}
		if (cap - len < 4096)
			buf = gms_realloc(buf, cap *= 2);
	}
	if (n < 0) {
		int zerr;
		const char *why = gzerror(gz, &zerr);

		rc = gms_fail(cause, GMS_ETRACE, "%s: %s", path, why);
		gzclose(gz);
		free(buf);
		return rc;
	}
	gzclose(gz);
	buf[len] = '\0';
	rc = oomlog_parse(path, buf, len, o, cause);
	free(buf);
	return rc;
}

void
oomlog_free(struct oomlog *o)
{
	free(o->path);
	free(o->regions);
	free(o->chunks);
	memset(o, 0, sizeof(*o));
}
