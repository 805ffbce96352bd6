/*
 * trace-xplane.c - TensorFlow's and JAX's profiler files (XSpace protobufs,
 * plugins/profile/<run>/<host>.xplane.pb) as gpumemsim traces: the BFC
 * allocator's own record of every allocation, the "MemoryAllocation" and
 * "MemoryDeallocation" events of the host plane (bfc_allocator.cc), of one
 * GPU allocator ("GPU_<n>_bfc"; the pinned host allocator is not the GPU).
 *
 * An alloc asks for requested_bytes at addr; a free returns the block at
 * addr.  Each carries the allocator's bytes_allocated after it ("in_use",
 * observed), so a simulation is checked event by event.  The limit is
 * bytes_allocated + bytes_available; the regions the allocator took
 * ("DeviceMemAllocator::Alloc") say its mode: one is a preallocated pool,
 * several are growth.  Threads write their events on their own lines, so
 * the events are put in time order (line timestamp_ns + offset_ps, then
 * as written), in which every bytes_allocated follows from the last.
 *
 * Streaming: protobuf-c unpacks whole messages only, and a plane holds every
 * event of a thread, so the containers (XSpace, XPlane, XLine) are walked
 * here, a tag and a length at a time, and only the messages inside them
 * (an XEvent, a metadata entry, a stat) are unpacked, one at a time.  A
 * plane's metadata comes after its lines, so the file is read twice: first
 * the metadata (names of events and stats), then the lines.  What is kept is
 * the metadata's names and the memory events (a few dozen bytes each).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "sim/gms.h"
#include "traces/reader.h"
#include "traces/xplane.pb-c.h"

#define XP_MSG_MAX (16u << 20)	/* one unpacked message, at most */
#define XP_DEVICES 64
#define XP_DEPTH 8

/* The stats of a memory event that are read. */
enum xp_key {
	K_NONE, K_ALLOCATOR, K_ADDR, K_REQUESTED, K_CHUNK, K_IN_USE, K_AVAILABLE,
	K_PEAK, K_FRAGMENTATION, K_TF_OP, K_SHAPE, K_MEMORY_SIZE, K_DEVICE_NAME,
	K_JAX_VERSION, K_NKEYS
};

static const char *const key_names[K_NKEYS] = {
	[K_ALLOCATOR] = "allocator_name", [K_ADDR] = "addr",
	[K_REQUESTED] = "requested_bytes", [K_CHUNK] = "allocation_bytes",
	[K_IN_USE] = "bytes_allocated", [K_AVAILABLE] = "bytes_available",
	[K_PEAK] = "peak_bytes_in_use", [K_FRAGMENTATION] = "fragmentation",
	[K_TF_OP] = "tf_op", [K_SHAPE] = "tensor_shape", [K_MEMORY_SIZE] = "memory_size",
	[K_DEVICE_NAME] = "gpu_device_name", [K_JAX_VERSION] = "jax_version",
};

enum xp_kind { X_OTHER, X_ALLOC, X_FREE, X_REGION };

/* A name from a plane's metadata, by id. */
struct xp_name {
	int64_t id;
	char *name;
	int key;		/* enum xp_key (stats) or enum xp_kind (events) */
	UT_hash_handle hh;
};

struct xp_plane {
	struct xp_name *stats, *events;	/* only the events of the kinds above */
	char *name;
	int host, device;	/* "/host:CPU"; "/device:GPU:<n>" gives n, else -1 */
	uint64_t ord;		/* its place among the file's planes */
};

/* A memory event, as collected. */
struct xp_event {
	int64_t ts_ps;		/* line timestamp_ns * 1000 + offset_ps */
	uint64_t seq;		/* its place in the file */
	uint64_t addr, requested, chunk, in_use, available, peak;
	double fragmentation;	/* -1 when absent */
	char *at;		/* tf_op [tensor_shape], or NULL */
	int device, is_alloc, has_frag;
};

struct addr_live {
	uint64_t addr, id, chunk;
	UT_hash_handle hh;
};

struct xp_state {
	uint64_t pos;			/* bytes read from the start */
	struct xp_plane *planes;	/* those pass 2 reads: the host's, the
					   devices', any with a stat of ours */
	size_t nplanes, capplanes;
	struct xp_event *ev;
	size_t n, cap, next;
	uint64_t count[XP_DEVICES], regions;
	int device, jax;
	int jit;			/* an event named as JAX names its jitted
					   functions (jit_NAME): JAX's, when no
					   jax_version stat says so (older JAX, ROCm) */
	int tf_fn;			/* one named as tf.function names its graphs
					   (__inference_NAME): TensorFlow's */
	uint64_t device_total[XP_DEVICES];
	char *device_name[XP_DEVICES];
	struct trace_event *seeds;
	size_t nseeds, next_seed;
	uint64_t live_before, orphans, next_id;
	int whole;			/* the profile saw the allocator from its start */
	int ndevices;			/* GPU allocators with events */
	char other[4][48];		/* allocators that are not a GPU's (the pinned
					   host's, a TPU's): named when no GPU's is there */
	uint64_t other_count[4];
	size_t nother;
	struct addr_live *live;
	char *at_buf;
	char *stack_buf;	/* the tf_op's name scopes, innermost first */
};

/* ---- reading the wire: a tag or a length at a time ---- */

static int
rd_fail(struct trace_reader *r, char **cause, const char *what)
{
	struct xp_state *st = r->priv;
	int zerr;

	gzerror(r->gz, &zerr);
	if (zerr != Z_OK && zerr != Z_STREAM_END && zerr != Z_BUF_ERROR)
		return gms_fail(cause, GMS_ETRACE, "%s: at byte %llu: %s", r->path,
		    (unsigned long long)st->pos, gzerror(r->gz, &zerr));
	return gms_fail(cause, GMS_ETRACE, "%s: at byte %llu: %s", r->path,
	    (unsigned long long)st->pos, what);
}

/* A varint: 1 with *v, 0 at a clean end of the file (eof_ok), < 0. */
static int
rd_varint(struct trace_reader *r, uint64_t *v, int eof_ok, char **cause)
{
	struct xp_state *st = r->priv;
	uint64_t x = 0;
	int c, shift;

	for (shift = 0; shift < 64; shift += 7) {
		if ((c = gzgetc(r->gz)) < 0) {
			if (shift == 0 && eof_ok && gzeof(r->gz))
				return 0;
			return rd_fail(r, cause, "the file ends inside a field (cut short?)");
		}
		st->pos++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (c < 0x80) {
			*v = x;
			return 1;
		}
	}
	return rd_fail(r, cause, "a varint longer than 10 bytes: not an XSpace protobuf");
}

static int
rd_skip(struct trace_reader *r, uint64_t n, char **cause)
{
	struct xp_state *st = r->priv;
	char buf[1 << 14];
	int got;

	while (n > 0) {
		got = gzread(r->gz, buf, (unsigned)(n < sizeof(buf) ? n : sizeof(buf)));
		if (got <= 0)
			return rd_fail(r, cause, "the file ends inside a message (cut short?)");
		st->pos += (uint64_t)got;
		n -= (uint64_t)got;
	}
	return 0;
}

/* n bytes into *buf (grown as needed). */
static int
rd_bytes(struct trace_reader *r, uint64_t n, uint8_t **buf, size_t *cap, char **cause)
{
	struct xp_state *st = r->priv;
	int got;

	if (n > XP_MSG_MAX)
		return rd_fail(r, cause, "a message over 16 MiB: not a profiler file gpumemsim reads");
	if (n > *cap)
		*buf = gms_realloc(*buf, *cap = (size_t)n);
	if (n == 0)
		return 0;
	got = gzread(r->gz, *buf, (unsigned)n);
	if (got < 0 || (uint64_t)got != n)
		return rd_fail(r, cause, "the file ends inside a message (cut short?)");
	st->pos += n;
	return 0;
}

/*
 * The next field inside a message that ends at end (UINT64_MAX: the file):
 * 1 with its number, wire type and (varint) value or (length-delimited)
 * length; 0 at the end; < 0.  Fixed-size values are skipped here.
 */
static int
rd_field(struct trace_reader *r, uint64_t end, uint32_t *field, int *wt, uint64_t *val,
    char **cause)
{
	struct xp_state *st = r->priv;
	uint64_t key;
	int rc;

	for (;;) {
		if (end != UINT64_MAX && st->pos >= end) {
			if (st->pos > end)
				return rd_fail(r, cause, "a field runs past the end of its message");
			return 0;
		}
		if ((rc = rd_varint(r, &key, end == UINT64_MAX, cause)) <= 0)
			return rc;
		*field = (uint32_t)(key >> 3);
		*wt = (int)(key & 7);
		if (*field == 0)
			return rd_fail(r, cause, "field number 0: not an XSpace protobuf");
		switch (*wt) {
		case 0:
		case 2:
			if ((rc = rd_varint(r, val, 0, cause)) < 0)
				return rc;
			if (*wt == 2 && end != UINT64_MAX && *val > end - st->pos)
				return rd_fail(r, cause, "a length runs past the end of its message");
			if (*wt == 2 && *val > ((uint64_t)1 << 50))
				return rd_fail(r, cause, "a length past 1 PiB: not an XSpace protobuf");
			return 1;
		case 1:
		case 5:
			if ((rc = rd_skip(r, *wt == 1 ? 8 : 4, cause)) < 0)
				return rc;
			break;	/* a fixed-size value no message here has: skipped */
		default:
			return rd_fail(r, cause, "a wire type protobuf does not have: not an XSpace protobuf");
		}
	}
}

/* ---- names ---- */

static void
name_add(struct xp_name **h, int64_t id, const char *name, int key)
{
	struct xp_name *n;

	HASH_FIND(hh, *h, &id, sizeof(id), n);
	if (n == NULL) {
		n = gms_calloc(1, sizeof(*n));
		n->id = id;
		HASH_ADD(hh, *h, id, sizeof(n->id), n);
	} else {
		free(n->name);
	}
	n->name = gms_strdup(name ? name : "");
	n->key = key;
}

static struct xp_name *
name_find(struct xp_name *h, int64_t id)
{
	struct xp_name *n;

	HASH_FIND(hh, h, &id, sizeof(id), n);
	return n;
}

static void
names_free(struct xp_name **h)
{
	struct xp_name *n, *tmp;

	HASH_ITER(hh, *h, n, tmp) {
		HASH_DEL(*h, n);
		free(n->name);
		free(n);
	}
}

static void
plane_free(struct xp_plane *p)
{
	names_free(&p->stats);
	names_free(&p->events);
	free(p->name);
	p->name = NULL;
}

static int
stat_key(const char *name)
{
	int k;

	for (k = 1; k < K_NKEYS; k++)
		if (strcmp(name, key_names[k]) == 0)
			return k;
	return K_NONE;
}

static int
event_kind(const char *name)
{
	if (strcmp(name, "MemoryAllocation") == 0)
		return X_ALLOC;
	if (strcmp(name, "MemoryDeallocation") == 0)
		return X_FREE;
	if (strcmp(name, "DeviceMemAllocator::Alloc") == 0)
		return X_REGION;
	return X_OTHER;
}

/* "GPU_<n>_bfc": n, else -1 (another allocator: pinned host memory). */
static int
gpu_allocator(const char *s)
{
	char *end;
	long n;

	if (strncmp(s, "GPU_", 4) != 0 || s[4] < '0' || s[4] > '9')
		return -1;
	n = strtol(s + 4, &end, 10);
	return strcmp(end, "_bfc") == 0 && n < XP_DEVICES ? (int)n : -1;
}

/* An allocator that is not a GPU's, counted under its name (the first four). */
static void
other_allocator(struct xp_state *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->nother; i++)
		if (strcmp(st->other[i], name) == 0)
			break;
	if (i == st->nother) {
		if (st->nother == sizeof(st->other) / sizeof(st->other[0]))
			return;
		snprintf(st->other[st->nother++], sizeof(st->other[0]), "%s", name);
	}
	st->other_count[i]++;
}

/* ---- pass 1: each plane's names ---- */

static int
read_entry(struct trace_reader *r, struct xp_plane *p, uint32_t field, uint64_t len,
    uint8_t **buf, size_t *cap, char **cause)
{
	int rc;

	if ((rc = rd_bytes(r, len, buf, cap, cause)) < 0)
		return rc;
	if (field == 4) {
		Gms__Xplane__EventMetadataEntry *e =
		    gms__xplane__event_metadata_entry__unpack(NULL, (size_t)len, *buf);
		int kind;

		if (e == NULL)
			return rd_fail(r, cause, "an event metadata entry protobuf-c cannot read");
		kind = e->value && e->value->name ? event_kind(e->value->name) : X_OTHER;
		if (e->value && e->value->name && strncmp(e->value->name, "jit_", 4) == 0)
			((struct xp_state *)r->priv)->jit = 1;
		/* tf.function's graphs: "__inference_train_step_1234" */
		if (e->value && e->value->name && strncmp(e->value->name, "__inference_", 12) == 0)
			((struct xp_state *)r->priv)->tf_fn = 1;
		if (kind != X_OTHER)
			name_add(&p->events, e->value->id ? e->value->id : e->key, NULL, kind);
		gms__xplane__event_metadata_entry__free_unpacked(e, NULL);
	} else {
		Gms__Xplane__StatMetadataEntry *e =
		    gms__xplane__stat_metadata_entry__unpack(NULL, (size_t)len, *buf);

		if (e == NULL)
			return rd_fail(r, cause, "a stat metadata entry protobuf-c cannot read");
		if (e->value != NULL && e->value->name != NULL)
			name_add(&p->stats, e->value->id ? e->value->id : e->key, e->value->name,
			    stat_key(e->value->name));
		gms__xplane__stat_metadata_entry__free_unpacked(e, NULL);
	}
	return 0;
}

/* ---- pass 2: the lines' memory events, the planes' stats ---- */

/* A stat's value as an unsigned number: 1, or 0 when it is not one. */
static int
stat_u64(const Gms__Xplane__XStat *s, uint64_t *out)
{
	switch (s->value_case) {
	case GMS__XPLANE__XSTAT__VALUE_UINT64_VALUE:
		*out = s->uint64_value;
		return 1;
	case GMS__XPLANE__XSTAT__VALUE_INT64_VALUE:
		if (s->int64_value < 0)
			return 0;
		*out = (uint64_t)s->int64_value;
		return 1;
	case GMS__XPLANE__XSTAT__VALUE_DOUBLE_VALUE:
		if (!(s->double_value >= 0 && s->double_value < 9007199254740992.0) ||
		    s->double_value != (double)(uint64_t)s->double_value)
			return 0;
		*out = (uint64_t)s->double_value;
		return 1;
	default:
		return 0;
	}
}

/* A stat's value as a string (its own, or the metadata name it refers to), or NULL. */
static const char *
stat_str(const struct xp_plane *p, const Gms__Xplane__XStat *s)
{
	const struct xp_name *n;

	if (s->value_case == GMS__XPLANE__XSTAT__VALUE_STR_VALUE)
		return s->str_value;
	if (s->value_case == GMS__XPLANE__XSTAT__VALUE_REF_VALUE &&
	    s->ref_value <= (uint64_t)INT64_MAX &&
	    (n = name_find(p->stats, (int64_t)s->ref_value)) != NULL)
		return n->name;
	return NULL;
}

static int
bad_stat(struct trace_reader *r, char **cause, const char *what, const char *name)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "a %s event whose %s is not a number in range",
	    what, name);
	return rd_fail(r, cause, msg);
}

/* A varint in buf[*i..len): 1 with *v, 0 when it runs off the end. */
static int
buf_varint(const uint8_t *buf, size_t len, size_t *i, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 64 && *i < len; shift += 7) {
		*v |= (uint64_t)(buf[*i] & 0x7f) << shift;
		if (buf[(*i)++] < 0x80)
			return 1;
	}
	return 0;
}

/*
 * An XEvent's metadata_id, by walking its fields' tags (the last one wins,
 * as protobuf reads it): 1 with *id, 0 when the bytes are not a message this
 * walk can read (protobuf-c then says what is wrong).  Most of a host
 * plane's events are not memory events: this spares unpacking them.
 */
static int
peek_metadata_id(const uint8_t *buf, size_t len, int64_t *id)
{
	uint64_t key, v;
	size_t i = 0;

	*id = 0;
	while (i < len) {
		if (!buf_varint(buf, len, &i, &key))
			return 0;
		switch (key & 7) {
		case 0:
			if (!buf_varint(buf, len, &i, &v))
				return 0;
			if (key >> 3 == 1)
				*id = (int64_t)v;
			break;
		case 1:
			i += 8;
			break;
		case 2:
			if (!buf_varint(buf, len, &i, &v) || v > len - i)
				return 0;
			i += (size_t)v;
			break;
		case 5:
			i += 4;
			break;
		default:
			return 0;
		}
	}
	return i == len;
}

/* One XEvent of a host plane's line; a memory event of a GPU allocator is kept. */
static int
take_event(struct trace_reader *r, struct xp_plane *p, const uint8_t *buf, size_t len,
    uint64_t *seq, char **cause)
{
	struct xp_state *st = r->priv;
	Gms__Xplane__XEvent *e;
	int64_t id;

	if (peek_metadata_id(buf, len, &id) && name_find(p->events, id) == NULL)
		return 0;
	e = gms__xplane__xevent__unpack(NULL, len, buf);
	const char *kname, *alloc_name = NULL, *op = NULL, *shape = NULL, *s;
	struct xp_name *n;
	struct xp_event x = { .fragmentation = -1 };
	uint64_t v, have = 0;
	size_t i;
	int kind, k, rc = 0;

	if (e == NULL)
		return rd_fail(r, cause, "an event protobuf-c cannot read");
	if ((n = name_find(p->events, e->metadata_id)) == NULL)
		goto out;
	kind = n->key;
	if (kind == X_REGION) {
		st->regions++;
		goto out;
	}
	kname = kind == X_ALLOC ? "MemoryAllocation" : "MemoryDeallocation";
	for (i = 0; i < e->n_stats; i++) {
		const struct xp_name *sn = name_find(p->stats, e->stats[i]->metadata_id);

		if (sn == NULL || (k = sn->key) == K_NONE)
			continue;
		if (k == K_ALLOCATOR) {
			alloc_name = stat_str(p, e->stats[i]);
			continue;
		}
		if (k == K_TF_OP || k == K_SHAPE) {
			s = stat_str(p, e->stats[i]);
			if (k == K_TF_OP)
				op = s;
			else
				shape = s;
			continue;
		}
		if (k == K_FRAGMENTATION) {
			/* a double, or an integer when it is one (0) */
			if (e->stats[i]->value_case == GMS__XPLANE__XSTAT__VALUE_DOUBLE_VALUE)
				x.fragmentation = e->stats[i]->double_value;
			else if (stat_u64(e->stats[i], &v))
				x.fragmentation = (double)v;
			x.has_frag = x.fragmentation >= 0 && x.fragmentation <= 1;
			continue;
		}
		if (k > K_PEAK)
			continue;
		if (!stat_u64(e->stats[i], &v) || v > (k == K_ADDR ? (uint64_t)TRACE_INT_MAX :
		    (uint64_t)TRACE_SIZE_MAX)) {
			rc = bad_stat(r, cause, kname, key_names[k]);
			goto out;
		}
		have |= 1u << k;
		switch (k) {
		case K_ADDR: x.addr = v; break;
		case K_REQUESTED: x.requested = v; break;
		case K_CHUNK: x.chunk = v; break;
		case K_IN_USE: x.in_use = v; break;
		case K_AVAILABLE: x.available = v; break;
		case K_PEAK: x.peak = v; break;
		}
	}
	if (alloc_name != NULL && (x.device = gpu_allocator(alloc_name)) < 0)
		other_allocator(st, alloc_name);
	if (alloc_name == NULL || x.device < 0)
		goto out;	/* another allocator's (pinned host memory) */
	for (k = K_ADDR; k <= K_AVAILABLE; k++)
		if (!(have & (1u << k))) {
			char msg[160];

			snprintf(msg, sizeof(msg), "a %s event of %s without %s", kname,
			    alloc_name, key_names[k]);
			rc = rd_fail(r, cause, msg);
			goto out;
		}
	if (x.chunk < x.requested || x.chunk == 0 || x.chunk % 256 != 0) {
		char msg[200];

		snprintf(msg, sizeof(msg), "a %s event of %s whose allocation_bytes %llu is not "
		    "the request %llu rounded up to 256 bytes or more", kname, alloc_name,
		    (unsigned long long)x.chunk, (unsigned long long)x.requested);
		rc = rd_fail(r, cause, msg);
		goto out;
	}
	if (e->data_case == GMS__XPLANE__XEVENT__DATA_OFFSET_PS)
		x.ts_ps = e->offset_ps;
	x.is_alloc = kind == X_ALLOC;
	if (op != NULL && op[0] != '\0')
		x.at = shape && shape[0] ? gms_asprintf("%s %s", op, shape) : gms_strdup(op);
	x.seq = (*seq)++;
	if (st->n == st->cap)
		st->ev = gms_realloc(st->ev, (st->cap = st->cap ? 2 * st->cap : 1024) * sizeof(*st->ev));
	st->ev[st->n++] = x;
	st->count[x.device]++;
out:
	gms__xplane__xevent__free_unpacked(e, NULL);
	return rc;
}

static int
line_events(struct trace_reader *r, struct xp_plane *p, uint64_t end, uint8_t **buf,
    size_t *cap, uint64_t *seq, char **cause)
{
	struct xp_state *st = r->priv;
	size_t first = st->n, i;
	int64_t ts_ns = 0;
	uint32_t f;
	uint64_t v;
	int wt, rc;

	while ((rc = rd_field(r, end, &f, &wt, &v, cause)) == 1) {
		if (f == 3 && wt == 0) {
			ts_ns = (int64_t)v;
		} else if (f == 4 && wt == 2) {
			if ((rc = rd_bytes(r, v, buf, cap, cause)) < 0 ||
			    (rc = take_event(r, p, *buf, (size_t)v, seq, cause)) < 0)
				return rc;
		} else if (wt == 2 && (rc = rd_skip(r, v, cause)) < 0) {
			return rc;
		}
	}
	if (rc < 0)
		return rc;
	/* the line's start may come after its events: its offsets are made whole here */
	if (ts_ns < -(INT64_MAX / 2000) || ts_ns > INT64_MAX / 2000)
		return rd_fail(r, cause, "a line's timestamp_ns out of range");
	for (i = first; i < st->n; i++) {
		if (st->ev[i].ts_ps < -(INT64_MAX / 4) || st->ev[i].ts_ps > INT64_MAX / 4)
			return rd_fail(r, cause, "an event's offset_ps out of range");
		st->ev[i].ts_ps += ts_ns * 1000;
	}
	return 0;
}

/* A plane stat (field 6) of a device plane: its memory and its name. */
static int
plane_stat(struct trace_reader *r, struct xp_plane *p, const uint8_t *buf, size_t len,
    char **cause)
{
	struct xp_state *st = r->priv;
	Gms__Xplane__XStat *s = gms__xplane__xstat__unpack(NULL, len, buf);
	const struct xp_name *n;
	const char *str;
	uint64_t v;

	if (s == NULL)
		return rd_fail(r, cause, "a stat protobuf-c cannot read");
	if ((n = name_find(p->stats, s->metadata_id)) != NULL) {
		if (n->key == K_JAX_VERSION)
			st->jax = 1;
		else if (p->device >= 0 && n->key == K_MEMORY_SIZE && stat_u64(s, &v) &&
		    v <= (uint64_t)TRACE_INT_MAX)
			st->device_total[p->device] = v;
		else if (p->device >= 0 && n->key == K_DEVICE_NAME && (str = stat_str(p, s)) != NULL) {
			free(st->device_name[p->device]);
			st->device_name[p->device] = gms_strdup(str);
		}
	}
	gms__xplane__xstat__free_unpacked(s, NULL);
	return 0;
}

/*
 * One plane's fields, for pass 1 (its name and its names of events and
 * stats) or pass 2 (the host plane's lines, the device planes' stats); the
 * rest is skipped.
 */
static int
plane_fields(struct trace_reader *r, struct xp_plane *p, uint64_t end, int pass,
    uint8_t **buf, size_t *cap, uint64_t *seq, char **cause)
{
	struct xp_state *st = r->priv;
	uint32_t f;
	uint64_t v;
	int wt, rc;

	while ((rc = rd_field(r, end, &f, &wt, &v, cause)) == 1) {
		if (wt != 2)
			continue;
		if (pass == 1 && f == 2) {
			if ((rc = rd_bytes(r, v, buf, cap, cause)) < 0)
				return rc;
			free(p->name);
			p->name = gms_asprintf("%.*s", (int)v, (const char *)*buf);
		} else if (pass == 1 && (f == 4 || f == 5)) {
			if ((rc = read_entry(r, p, f, v, buf, cap, cause)) < 0)
				return rc;
		} else if (pass == 2 && f == 3 && p->host) {
			if ((rc = line_events(r, p, st->pos + v, buf, cap, seq, cause)) < 0)
				return rc;
		} else if (pass == 2 && f == 6) {
			if ((rc = rd_bytes(r, v, buf, cap, cause)) < 0 ||
			    (rc = plane_stat(r, p, *buf, (size_t)v, cause)) < 0)
				return rc;
		} else if ((rc = rd_skip(r, v, cause)) < 0) {
			return rc;
		}
	}
	return rc;
}

/* One pass over the XSpace's planes (field 1); other fields are skipped. */
static int
walk(struct trace_reader *r, int pass, char **cause)
{
	struct xp_state *st = r->priv;
	uint8_t *buf = NULL;
	size_t cap = 0, k = 0;
	uint64_t v, seq = 0, ord = 0;
	uint32_t f;
	int wt, rc;

	st->pos = 0;
	while ((rc = rd_field(r, UINT64_MAX, &f, &wt, &v, cause)) == 1) {
		if (f != 1 || wt != 2) {
			if (wt == 2 && (rc = rd_skip(r, v, cause)) < 0)
				break;
			continue;
		}
		if (pass == 1) {
			struct xp_plane *p;

			if (st->nplanes == st->capplanes) {
				st->capplanes = st->capplanes ? 2 * st->capplanes : 8;
				st->planes = gms_realloc(st->planes, st->capplanes * sizeof(*st->planes));
			}
			p = memset(&st->planes[st->nplanes], 0, sizeof(*p));
			p->ord = ord++;
			if ((rc = plane_fields(r, p, st->pos + v, 1, &buf, &cap, &seq, cause)) < 0) {
				st->nplanes++;	/* freed with the rest */
				break;
			}
			p->host = p->name && strcmp(p->name, "/host:CPU") == 0;
			p->device = -1;
			if (p->name && strncmp(p->name, "/device:GPU:", 12) == 0) {
				char *end;
				long d = strtol(p->name + 12, &end, 10);

				if (*end == '\0' && d >= 0 && d < XP_DEVICES)
					p->device = (int)d;
			}
			/* a plane pass 2 has nothing to read in is not kept: a profile
			   of millions of empty planes costs their bytes, not a plane each */
			if (!p->host && p->device < 0 && p->stats == NULL) {
				plane_free(p);
				continue;
			}
			st->nplanes++;
		} else if (k < st->nplanes && st->planes[k].ord == ord) {
			ord++;
			if ((rc = plane_fields(r, &st->planes[k++], st->pos + v, 2, &buf, &cap,
			    &seq, cause)) < 0)
				break;
		} else {
			ord++;
			if ((rc = rd_skip(r, v, cause)) < 0)
				break;
		}
	}
	if (rc >= 0 && pass == 2 && k < st->nplanes)
		rc = rd_fail(r, cause, "the file changed while it was read");
	free(buf);
	return rc;
}

/* ---- the trace ---- */

static int
cmp_event(const void *a, const void *b)
{
	const struct xp_event *x = a, *y = b;

	if (x->ts_ps != y->ts_ps)
		return x->ts_ps < y->ts_ps ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct addr_live *
live_find(struct xp_state *st, uint64_t addr)
{
	struct addr_live *a;

	HASH_FIND(hh, st->live, &addr, sizeof(addr), a);
	return a;
}

static void
live_clear(struct xp_state *st)
{
	struct addr_live *a, *tmp;

	HASH_ITER(hh, st->live, a, tmp) {
		HASH_DEL(st->live, a);
		free(a);
	}
}

/*
 * The device's events only, in time order; what was live before the first
 * (bytes_allocated before it, and the blocks freed without being seen
 * allocated) is seeded.  0 or < 0 (an alloc at a live address).
 */
static int
choose(struct trace_reader *r, char **cause)
{
	struct xp_state *st = r->priv;
	struct addr_live *a;
	size_t i, j = 0;
	int d, found = 0;
	char list[512] = "";
	uint64_t seeded = 0;

	for (d = 0; d < XP_DEVICES; d++)
		if (st->count[d] > 0) {
			found++;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%sGPU_%d_bfc "
			    "(%llu events)", list[0] ? ", " : "", d, (unsigned long long)st->count[d]);
		}
	if (found == 0 && st->nother > 0) {
		/* memory events of other allocators only: say whose, not "tracer off?" */
		for (i = 0; i < st->nother; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s (%llu "
			    "events)", i ? ", " : "", st->other[i],
			    (unsigned long long)st->other_count[i]);
		return gms_fail(cause, GMS_ETRACE, "%s: its memory events are of %s, not of a "
		    "GPU's BFC allocator (GPU_<n>_bfc): gpumemsim replays GPU allocators",
		    r->path, list);
	}
	if (found == 0 && st->pos == 0)
		return gms_fail(cause, GMS_ETRACE, "%s: an empty profile (0 bytes)", r->path);
	if (found == 0)
		return gms_fail(cause, GMS_ETRACE, "%s: no MemoryAllocation events of a GPU's "
		    "BFC allocator (GPU_<n>_bfc): was the profile taken while the job "
		    "allocated, with the host tracer on?", r->path);
	if (r->opts.device >= 0) {
		if (r->opts.device >= XP_DEVICES || st->count[r->opts.device] == 0)
			return gms_fail(cause, GMS_ETRACE, "%s: no events of device %d's allocator "
			    "(the profile has %s)", r->path, r->opts.device, list);
		st->device = r->opts.device;
	}
	st->ndevices = found;
	if (r->opts.device >= 0) {
	} else if (found > 1) {
		return gms_fail(cause, GMS_ETRACE, "%s: the profile holds the allocators of "
		    "several devices, %s: give --device=N", r->path, list);
	} else {
		for (d = 0; st->count[d] == 0; d++)
			;
		st->device = d;
	}
	for (i = 0; i < st->n; i++) {
		if (st->ev[i].device == st->device)
			st->ev[j++] = st->ev[i];
		else
			free(st->ev[i].at);
	}
	st->n = j;
	qsort(st->ev, st->n, sizeof(*st->ev), cmp_event);

	/* before the first event: its bytes_allocated less its own change */
	if (st->ev[0].is_alloc)
		st->live_before = st->ev[0].in_use >= st->ev[0].chunk ?
		    st->ev[0].in_use - st->ev[0].chunk : 0;
	else
		st->live_before = st->ev[0].in_use + st->ev[0].chunk;
	/* an address stays in st->live once seen; id 0 marks it free */
	for (i = 0; i < st->n; i++) {
		struct xp_event *x = &st->ev[i];

		a = live_find(st, x->addr);
		if (x->is_alloc) {
			if (a != NULL && a->id != 0)
				return gms_fail(cause, GMS_ETRACE, "%s: event %zu: an allocation at "
				    "%#llx, where a block of %llu bytes is live", r->path,
				    i + st->nseeds, (unsigned long long)x->addr,
				    (unsigned long long)a->chunk);
			if (a == NULL) {
				a = gms_calloc(1, sizeof(*a));
				a->addr = x->addr;
				HASH_ADD(hh, st->live, addr, sizeof(a->addr), a);
			}
			a->chunk = x->chunk;
			a->id = 1;
		} else if (a != NULL) {
			if (a->id == 0)
				return gms_fail(cause, GMS_ETRACE, "%s: event %zu: a deallocation at "
				    "%#llx, which is free already", r->path, i + st->nseeds,
				    (unsigned long long)x->addr);
			a->id = 0;
		} else {
			/* allocated before the profile began */
			st->seeds = gms_realloc(st->seeds, (st->nseeds + 1) * sizeof(*st->seeds));
			st->seeds[st->nseeds++] = (struct trace_event){ .op = TRACE_ALLOC,
			    .flags = TRACE_HAS_ADDR | TRACE_SEEDED, .size = x->chunk, .addr = x->addr };
			seeded += x->chunk;
			st->orphans++;
			a = gms_calloc(1, sizeof(*a));
			a->addr = x->addr;
			HASH_ADD(hh, st->live, addr, sizeof(a->addr), a);
		}
	}
	live_clear(st);
	/* nothing live before, and never more in use than at the first event */
	st->whole = st->live_before == 0 && st->ev[0].peak <= st->ev[0].in_use;
	if (st->live_before > seeded) {
		st->seeds = gms_realloc(st->seeds, (st->nseeds + 1) * sizeof(*st->seeds));
		st->seeds[st->nseeds++] = (struct trace_event){ .op = TRACE_ALLOC,
		    .flags = TRACE_SEEDED, .size = st->live_before - seeded };
	}
	st->next_id = 1;
	return 0;
}

static cJSON *
header(struct trace_reader *r)
{
	struct xp_state *st = r->priv;
	cJSON *h = cJSON_CreateObject(), *src, *obs, *dev;
	uint64_t limit = st->ev[0].in_use + st->ev[0].available, window = 0, before = 0, peak;
	int jax = st->jax || st->jit;
	const char *fw = jax ? "jax" : "tensorflow";
	char name[256], *dot, alloc[32];
	int mid = st->nseeds > 0;
	size_t i;

	/* the window's own peak in use, and the allocator's lifetime peak it records */
	for (i = 0; i < st->n; i++) {
		window = GMS_MAX(window, st->ev[i].in_use);
		before = GMS_MAX(before, st->ev[i].peak);
	}
	peak = GMS_MAX(window, before);
	snprintf(name, sizeof(name), "%s", r->hdr.name);
	if ((dot = strstr(name, ".xplane.pb")) != NULL)
		*dot = '\0';
	snprintf(alloc, sizeof(alloc), "GPU_%d_bfc", st->device);
	cJSON_AddStringToObject(h, "format", "gpumemsim-trace");
	cJSON_AddNumberToObject(h, "version", 1);
	cJSON_AddStringToObject(h, "name", name);
	if (st->device_total[st->device] > 0 || st->device_name[st->device] != NULL) {
		dev = cJSON_AddObjectToObject(h, "device");
		if (st->device_name[st->device] != NULL)
			cJSON_AddStringToObject(dev, "name", st->device_name[st->device]);
		if (st->device_total[st->device] > 0)
			cJSON_AddNumberToObject(dev, "total_bytes", (double)st->device_total[st->device]);
	}
	src = cJSON_AddObjectToObject(h, "source");
	cJSON_AddStringToObject(src, "from", jax ? "jax profiler (xplane)" :
	    "tensorflow profiler (xplane)");
	cJSON_AddStringToObject(src, "framework", fw);
	if (!st->jax)
		cJSON_AddStringToObject(src, "framework_from", jax ? "its jitted functions' "
		    "names (jit_...): no jax_version stat" : st->tf_fn ? "its tf.function graphs' "
		    "names (__inference_...)" : "assumed: nothing in the profile says TensorFlow "
		    "or JAX (no jax_version stat, no jit_ or __inference_ function)");
	cJSON_AddStringToObject(src, "allocator", alloc);
	cJSON_AddNumberToObject(src, "device", st->device);
	cJSON_AddNumberToObject(src, "limit", (double)limit);
	/*
	 * The regions say the mode, when the profile saw the allocator from its
	 * first allocation and no other device's allocator took regions.
	 */
	if (st->whole && st->regions > 0 && st->ndevices == 1) {
		cJSON_AddNumberToObject(src, "regions", (double)st->regions);
		cJSON_AddStringToObject(src, "mode", st->regions == 1 ? "preallocate" : "grow-only");
	} else {
		cJSON_AddNullToObject(src, "mode");
		cJSON_AddStringToObject(src, "mode_unknown", st->whole ? "the profile does not "
		    "show the allocator's regions" : "the profile began after the allocator's "
		    "first allocation, so its regions are not in it");
	}
	cJSON_AddNumberToObject(src, "memory_events", (double)st->n);
	if (mid) {
		cJSON *seeded = cJSON_AddObjectToObject(src, "seeded");

		cJSON_AddNumberToObject(seeded, "allocs", (double)st->nseeds);
		cJSON_AddNumberToObject(seeded, "segments", 0);
		cJSON_AddNumberToObject(seeded, "live_before", (double)st->live_before);
		cJSON_AddNumberToObject(seeded, "frees_of_earlier_blocks", (double)st->orphans);
		cJSON_AddStringToObject(seeded, "unknown", "when, and in what regions, the "
		    "blocks live before the profile were allocated: they are seeded at its start");
		cJSON_AddBoolToObject(h, "starts_mid_run", 1);
	}
	/* a window of the job: its numbers depend on what came before, so none is held
	   to; but what the allocator recorded holding before it is a fact of the job */
	if (!st->whole) {
		uint64_t whole = 0, extra = 0;

		/*
		 * Chunks larger than their request rounded to 256 B: free chunks
		 * handed out whole.  In a window, the allocator's free chunks made
		 * before it are not in the replay, which cuts what it asks for
		 * instead: the window's recorded peak in use is then a fact too.
		 */
		for (i = 0; i < st->n; i++)
			if (st->ev[i].is_alloc && st->ev[i].chunk > (st->ev[i].requested + 255) / 256 * 256) {
				whole++;
				extra += st->ev[i].chunk - (st->ev[i].requested + 255) / 256 * 256;
			}
		if (before > window) {
			cJSON_AddNumberToObject(src, "peak_in_use_before", (double)before);
		} else if (whole > 0) {
			cJSON_AddNumberToObject(src, "peak_in_use_window", (double)window);
			cJSON_AddNumberToObject(src, "whole_chunks", (double)whole);
			cJSON_AddNumberToObject(src, "whole_chunk_bytes", (double)extra);
		}
		return h;
	}
	obs = cJSON_AddObjectToObject(h, "observed");
	cJSON_AddStringToObject(obs, "allocator", jax ? "jax-bfc" : "tensorflow-bfc");
	cJSON_AddNumberToObject(obs, "peak_allocated", (double)peak);
	if (st->regions > 0 && st->ndevices == 1)
		cJSON_AddNumberToObject(obs, "device_allocs", (double)st->regions);
	if (st->ev[st->n - 1].has_frag)
		cJSON_AddNumberToObject(obs, "fragmentation", st->ev[st->n - 1].fragmentation);
	return h;
}

static void xplane_close(struct trace_reader *r);

static int
xplane_open(struct trace_reader *r, char **cause)
{
	struct xp_state *st = gms_calloc(1, sizeof(*st));
	int rc, zerr;

	r->priv = st;
	if ((rc = walk(r, 1, cause)) < 0)
		return rc;
	if (gzrewind(r->gz) != 0)
		return gms_fail(cause, GMS_EIO, "%s: cannot read it again: %s", r->path,
		    gzerror(r->gz, &zerr));
	if ((rc = walk(r, 2, cause)) < 0 || (rc = choose(r, cause)) < 0)
		return rc;
	return trace_take_header(r, header(r), cause);
}

/*
 * A TensorFlow op's stack: its name scopes ("model/dense_1/MatMul", the
 * shape after a space left out) as frames, innermost first, so that a
 * flame graph nests ops in their layers and models.  NULL for none.
 */
static char *
scopes(const char *at)
{
	size_t n = at != NULL ? strcspn(at, " ") : 0, len = 0, i, e;
	char *out;

	if (n == 0)
		return NULL;
	out = gms_malloc(n + 2);
	for (e = n; e > 0;) {
		for (i = e; i > 0 && at[i - 1] != '/'; i--)
			;
		if (i < e) {
			memcpy(out + len, at + i, e - i);
			len += e - i;
			out[len++] = '\n';
		}
		e = i > 0 ? i - 1 : 0;
	}
	out[len] = '\0';
	if (len == 0) {
		free(out);
		return NULL;
	}
	return out;
}

static int
xplane_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	struct xp_state *st = r->priv;
	struct xp_event *x;
	struct addr_live *a;

	(void)cause;
	if (st->next_seed < st->nseeds) {
		*ev = st->seeds[st->next_seed++];
		ev->id = st->next_id++;
		if (ev->flags & TRACE_HAS_ADDR) {
			a = gms_calloc(1, sizeof(*a));
			a->addr = ev->addr;
			a->id = ev->id;
			HASH_ADD(hh, st->live, addr, sizeof(a->addr), a);
		}
		return 1;
	}
	if (st->next >= st->n)
		return 0;
	x = &st->ev[st->next++];
	memset(ev, 0, sizeof(*ev));
	ev->t_us = x->ts_ps / 1000000;
	ev->flags = TRACE_HAS_TIME;
	/*
	 * Bytes in use are compared only from the allocator's start: before,
	 * where the blocks lay (and so which of them the allocator padded) is
	 * not in the profile.
	 */
	if (st->whole) {
		ev->in_use = x->in_use;
		ev->flags |= TRACE_HAS_INUSE;
	}
	a = live_find(st, x->addr);
	if (x->is_alloc) {
		a = gms_calloc(1, sizeof(*a));
		a->addr = x->addr;
		a->id = st->next_id++;
		HASH_ADD(hh, st->live, addr, sizeof(a->addr), a);
		ev->op = TRACE_ALLOC;
		ev->id = a->id;
		ev->size = x->requested;
		ev->addr = x->addr;
		ev->flags |= TRACE_HAS_ADDR;
		free(st->at_buf);
		ev->at = st->at_buf = x->at;
		x->at = NULL;
		free(st->stack_buf);
		ev->stack = st->stack_buf = scopes(ev->at);
	} else {
		/* choose() seeded every block freed before it was seen allocated */
		ev->op = TRACE_FREE;
		ev->id = (uint64_t)TRACE_INT_MAX;
		if (a != NULL) {
			ev->id = a->id;
			HASH_DEL(st->live, a);
			free(a);
		}
	}
	return 1;
}

static void
xplane_where(struct trace_reader *r)
{
	snprintf(r->where, sizeof(r->where), "%s: event %llu", r->path,
	    (unsigned long long)r->cur);
}

static void
xplane_close(struct trace_reader *r)
{
	struct xp_state *st = r->priv;
	size_t i;
	int d;

	if (st == NULL)
		return;
	for (i = 0; i < st->nplanes; i++)
		plane_free(&st->planes[i]);
	for (i = st->next; i < st->n; i++)
		free(st->ev[i].at);
	for (d = 0; d < XP_DEVICES; d++)
		free(st->device_name[d]);
	live_clear(st);
	free(st->planes);
	free(st->ev);
	free(st->seeds);
	free(st->at_buf);
	free(st->stack_buf);
	free(st);
	r->priv = NULL;
}

const struct trace_format trace_format_xplane = {
	.name = "xplane",
	.open = xplane_open,
	.next = xplane_next,
	.where = xplane_where,
	.close = xplane_close,
};
