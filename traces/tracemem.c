/*
 * tracemem.c - traces held in memory (tracemem.h).  Events are packed, 24
 * bytes each (plus 8 for a time), into growing arrays; `at`, stacks and mark
 * labels are interned through a uthash table so a trace that names one place
 * ten thousand times stores it once, and streams the same way.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "sim/gms.h"
#include "traces/input.h"
#include "traces/reader.h"
#include "traces/tracemem.h"

/* 24 bytes an event: the size shares its word with the op and flags. */
struct packed {
	uint64_t id;		/* segment events: the address */
	uint64_t size_op;	/* size (below 2^56: every reader holds sizes under
				   2^53) | op << 56 | flags << 60 */
	uint32_t str;		/* 1-based index of `at` or the label; 0: none */
	uint32_t stream;	/* index into streams[] */
};
_Static_assert(sizeof(struct packed) == 24, "24 bytes an event");
_Static_assert(TRACE_NOPS <= 16, "an op in 4 bits");
#define SIZE_BITS 56

/* The streams a trace names, few as a rule: each stored once. */
struct stream_ix {
	int64_t stream;
	uint32_t index;
	UT_hash_handle hh;
};

struct interned {
	char *s;
	uint32_t index;
	UT_hash_handle hh;
};

struct trace_mem {
	char *path;
	struct packed *ev;
	int64_t *t_us;		/* parallel to ev; only when the trace has times */
	uint64_t *in_use;	/* ... only when it has observed bytes in use:
				   in_use + 1, or 0 for none */
	uint32_t *stack;	/* ... only when it has stacks: the interned
				   stack's index, 0 for none */
	size_t n, cap;
	struct interned *table;	/* the hash, by string */
	struct by_ptr *ptrs;	/* a stable reader's strings, by pointer */
	int64_t *streams;
	size_t nstreams, scap;
	struct stream_ix *stream_map;
	uint32_t last_stream;	/* the index of the stream last looked up */
	char **strs;		/* by index - 1 */
	size_t nstrs, strcap;
	struct trace_header hdr;
	cJSON *hdr_json;	/* owns hdr's members */
	char name[256], format[32];
	int unknown_frees_warn;	/* from the trace_opts it was read with */
};

/* A string a stable reader (trace_strings_stable) handed out, and its index. */
struct by_ptr {
	const char *p;
	uint32_t index;
	UT_hash_handle hh;
};

static uint32_t intern(struct trace_mem *m, const char *s);

/*
 * intern() of a string that is one copy of itself in its reader: found by
 * its pointer, without hashing or comparing what may be kilobytes of stack.
 */
static uint32_t
intern_stable(struct trace_mem *m, const char *s)
{
	struct by_ptr *b;

	if (s == NULL)
		return 0;
	HASH_FIND_PTR(m->ptrs, &s, b);
	if (b == NULL) {
		b = gms_calloc(1, sizeof(*b));
		b->p = s;
		b->index = intern(m, s);
		HASH_ADD_PTR(m->ptrs, p, b);
	}
	return b->index;
}

static uint32_t
intern(struct trace_mem *m, const char *s)
{
	struct interned *it;

	if (s == NULL)
		return 0;
	HASH_FIND_STR(m->table, s, it);
	if (it != NULL)
		return it->index;
	if (m->nstrs == m->strcap) {
		m->strcap = m->strcap ? m->strcap * 2 : 256;
		m->strs = gms_realloc(m->strs, m->strcap * sizeof(*m->strs));
	}
	it = gms_calloc(1, sizeof(*it));
	it->s = gms_strdup(s);
	it->index = (uint32_t)++m->nstrs;
	m->strs[m->nstrs - 1] = it->s;
	HASH_ADD_KEYPTR(hh, m->table, it->s, strlen(it->s), it);
	return it->index;
}

static void
copy_header(struct trace_mem *m, const struct trace_header *h)
{
	m->hdr = *h;
	snprintf(m->name, sizeof(m->name), "%s", h->name);
	snprintf(m->format, sizeof(m->format), "%s", h->format);
	m->hdr.name = m->name;
	m->hdr.format = m->format;
	m->hdr_json = cJSON_CreateObject();
	if (h->device)
		cJSON_AddItemToObject(m->hdr_json, "device", cJSON_Duplicate(h->device, 1));
	if (h->source)
		cJSON_AddItemToObject(m->hdr_json, "source", cJSON_Duplicate(h->source, 1));
	if (h->observed)
		cJSON_AddItemToObject(m->hdr_json, "observed", cJSON_Duplicate(h->observed, 1));
	m->hdr.device = cJSON_GetObjectItemCaseSensitive(m->hdr_json, "device");
	m->hdr.source = cJSON_GetObjectItemCaseSensitive(m->hdr_json, "source");
	m->hdr.observed = cJSON_GetObjectItemCaseSensitive(m->hdr_json, "observed");
}

static uint32_t
stream_index(struct trace_mem *m, int64_t stream)
{
	struct stream_ix *it;

	if (m->nstreams > 0 && m->streams[m->last_stream] == stream)
		return m->last_stream;
	HASH_FIND(hh, m->stream_map, &stream, sizeof(stream), it);
	if (it == NULL) {
		if (m->nstreams == m->scap)
			m->streams = gms_realloc(m->streams, (m->scap = m->scap ? 2 * m->scap : 8) *
			    sizeof(*m->streams));
		m->streams[m->nstreams] = stream;
		it = gms_calloc(1, sizeof(*it));
		it->stream = stream;
		it->index = (uint32_t)m->nstreams++;
		HASH_ADD(hh, m->stream_map, stream, sizeof(it->stream), it);
	}
	return m->last_stream = it->index;
}

struct trace_mem *
trace_mem_new(const char *path, const struct trace_header *hdr)
{
	struct trace_mem *m = gms_calloc(1, sizeof(*m));

	m->path = gms_strdup(path);
	copy_header(m, hdr);
	return m;
}

/* trace_mem_append; stable: ev's at and stack are its reader's kept strings. */
static int
append(struct trace_mem *m, const struct trace_event *ev, int stable, char **cause)
{
	uint32_t (*in)(struct trace_mem *, const char *) = stable ? intern_stable : intern;
	struct packed *p;

	if (ev->size >> SIZE_BITS)
		return gms_fail(cause, GMS_ETRACE, "size %llu out of range (at most 2^53)",
		    (unsigned long long)ev->size);
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 4096;
		m->ev = gms_realloc(m->ev, m->cap * sizeof(*m->ev));
		if (m->t_us != NULL || (ev->flags & TRACE_HAS_TIME))
			m->t_us = gms_realloc(m->t_us, m->cap * sizeof(*m->t_us));
		if (m->in_use != NULL)
			m->in_use = gms_realloc(m->in_use, m->cap * sizeof(*m->in_use));
		if (m->stack != NULL)
			m->stack = gms_realloc(m->stack, m->cap * sizeof(*m->stack));
	}
	if ((ev->flags & TRACE_HAS_TIME) && m->t_us == NULL)
		m->t_us = gms_calloc(m->cap, sizeof(*m->t_us));
	if ((ev->flags & TRACE_HAS_INUSE) && m->in_use == NULL)
		m->in_use = gms_calloc(m->cap, sizeof(*m->in_use));
	if (ev->stack != NULL && m->stack == NULL)
		m->stack = gms_calloc(m->cap, sizeof(*m->stack));
	p = &m->ev[m->n];
	p->size_op = ev->size | (uint64_t)ev->op << SIZE_BITS |
	    (uint64_t)(ev->flags & 0xf) << (SIZE_BITS + 4);
	p->stream = stream_index(m, ev->stream);
	p->id = trace_is_request(ev) || ev->op == TRACE_FREE ? ev->id : ev->addr;
	p->str = ev->op == TRACE_MARK ? intern(m, ev->label) : in(m, ev->at);
	if (m->t_us != NULL)
		m->t_us[m->n] = ev->t_us;
	if (m->in_use != NULL)
		m->in_use[m->n] = (ev->flags & TRACE_HAS_INUSE) ? ev->in_use + 1 : 0;
	if (m->stack != NULL)
		m->stack[m->n] = in(m, ev->stack);
	m->n++;
	return 0;
}

int
trace_mem_append(struct trace_mem *m, const struct trace_event *ev, char **cause)
{
	return append(m, ev, 0, cause);
}

int
trace_mem_load(const char *path, const struct trace_opts *opts, struct trace_mem **out,
    char **cause)
{
	struct trace_mem *m;
	struct trace_reader *r;
	struct trace_event ev;
	char *why = NULL;
	int rc;

	*out = NULL;
	if ((rc = trace_open_opts(path, opts, &r, cause)) < 0)
		return rc;
	m = trace_mem_new(path, trace_header(r));
	m->unknown_frees_warn = opts != NULL && opts->unknown_frees_warn;
	while ((rc = trace_next(r, &ev, &why)) == 1)
		if ((rc = append(m, &ev, trace_strings_stable(r), &why)) < 0)
			break;
	if (rc < 0) {
		gms_fail(cause, rc, "%s: %s", trace_where(r), why);
		free(why);
		trace_close(r);
		trace_mem_free(m);
		return rc;
	}
	m->hdr.cut = trace_header(r)->cut;	/* known only now, at the end */
	trace_close(r);
	*out = m;
	return 0;
}

int
trace_mem_worth(const char *path)
{
	char base[4096];
	size_t n;

	snprintf(base, sizeof(base), "%s", path);
	if ((n = strlen(base)) > 3 && trace_ends_with(base, ".gz"))
		base[n - 3] = '\0';
	return !input_rereadable(path) || trace_ends_with(base, ".pickle") ||
	    trace_ends_with(base, ".pkl") || trace_ends_with(base, ".pt.trace.json") ||
	    trace_ends_with(base, ".xplane.pb") || trace_is_profile_dir(path);
}

size_t
trace_mem_count(const struct trace_mem *m)
{
	return m->n;
}

void
trace_mem_event(const struct trace_mem *m, size_t i, struct trace_event *ev)
{
	const struct packed *p = &m->ev[i];
	const char *s = p->str ? m->strs[p->str - 1] : NULL;

	memset(ev, 0, sizeof(*ev));
	ev->op = (enum trace_op)(p->size_op >> SIZE_BITS & 0xf);
	ev->flags = (unsigned)(p->size_op >> (SIZE_BITS + 4));
	ev->size = p->size_op & (((uint64_t)1 << SIZE_BITS) - 1);
	ev->stream = m->streams[p->stream];
	if (trace_is_request(ev) || ev->op == TRACE_FREE) {
		ev->id = p->id;
		ev->addr = 0;
	} else {
		ev->addr = p->id;
	}
	if (ev->op == TRACE_MARK)
		ev->label = s ? s : "";
	else
		ev->at = s;
	if (m->t_us != NULL)
		ev->t_us = m->t_us[i];
	if (m->in_use != NULL && m->in_use[i] != 0) {
		ev->in_use = m->in_use[i] - 1;
		ev->flags |= TRACE_HAS_INUSE;
	}
	if (m->stack != NULL && m->stack[i] != 0)
		ev->stack = m->strs[m->stack[i] - 1];
}

const struct trace_header *
trace_mem_header(const struct trace_mem *m)
{
	return &m->hdr;
}

const char *
trace_mem_where(const struct trace_mem *m, size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s: event %zu", m->path, i);
	return buf;
}

void
trace_mem_free(struct trace_mem *m)
{
	struct interned *it, *tmp;
	struct by_ptr *bp, *btmp;
	struct stream_ix *si, *stmp;

	if (m == NULL)
		return;
	HASH_ITER(hh, m->table, it, tmp) {
		HASH_DEL(m->table, it);
		free(it->s);
		free(it);
	}
	HASH_ITER(hh, m->ptrs, bp, btmp) {
		HASH_DEL(m->ptrs, bp);
		free(bp);
	}
	HASH_ITER(hh, m->stream_map, si, stmp) {
		HASH_DEL(m->stream_map, si);
		free(si);
	}
	free(m->streams);
	free(m->strs);
	free(m->ev);
	free(m->t_us);
	free(m->in_use);
	free(m->stack);
	cJSON_Delete(m->hdr_json);
	free(m->path);
	free(m);
}

int
trace_mem_unknown_frees_warn(const struct trace_mem *m)
{
	return m->unknown_frees_warn;
}
