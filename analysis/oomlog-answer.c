/*
 * oomlog-answer.c - what an out-of-memory log means (oomlog.h): whether the
 * memory was there in the wrong shape (fragmentation) or was not there
 * (a shortage), what the job held and asked for at that moment, and the
 * framework's own settings that would have served the request, as text or
 * JSON.  Only the moment of the OOM is in a log: what the job would have
 * asked next is not, and the answer says so.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/oomlog.h"
#include "sim/gms.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

static void
add(struct oomlog_answer *a, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (a->nsettings >= sizeof(a->settings) / sizeof(*a->settings))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	a->settings[a->nsettings++] = gms_strdup(buf);
}

/* The least fraction, in thousandths rounded up, that gives need of total. */
static double
fraction(uint64_t need, uint64_t total)
{
	return ceil((double)need * 1000.0 / (double)total) / 1000.0;
}

static void
bfc_answer(const struct oomlog *o, struct oomlog_answer *a)
{
	uint64_t grow = o->has_limit && o->limit > o->pool ? o->limit - o->pool : 0;
	int jax = o->fw != OOMLOG_FW_TF, tf = o->fw != OOMLOG_FW_JAX;

	a->needed = o->in_use + o->request;
	a->available = o->has_limit ? o->limit : o->pool;
	a->held_free = o->free_bytes;
	a->largest_free = o->largest_free;
	a->fragmentation = o->free_bytes + grow >= o->request;
	if (a->fragmentation) {
		/* no pool to cut up: each array its own allocation, freed when deleted */
		if (jax)
			add(a, "XLA_PYTHON_CLIENT_ALLOCATOR=platform (JAX: no pool, so nothing "
			    "to fragment; slower, each array allocated and freed by CUDA)");
		if (tf)
			add(a, "TF_GPU_ALLOCATOR=cuda_malloc_async (TensorFlow: CUDA's own pool, "
			    "which the driver can remap, instead of the BFC allocator's)");
	}
	if (!a->fragmentation && jax && o->device_total != 0 && a->needed < o->device_total)
		add(a, "XLA_PYTHON_CLIENT_MEM_FRACTION=%.3f (JAX: a limit of %s of the %s card, "
		    "at least the %s the job held and asked for)",
		    fraction(a->needed, o->device_total),
		    SZ((uint64_t)(fraction(a->needed, o->device_total) * (double)o->device_total)),
		    SZ(o->device_total), SZ(a->needed));
	else if (!a->fragmentation && jax)
		add(a, "XLA_PYTHON_CLIENT_MEM_FRACTION of at least %s of the card's memory (JAX: "
		    "the log does not name the card)", SZ(a->needed));
	if (!a->fragmentation && tf)
		add(a, "memory_limit=%llu (TensorFlow, MB: tf.config.set_logical_device_configuration"
		    "(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=%llu)]))",
		    (unsigned long long)((a->needed + (1 << 20) - 1) >> 20),
		    (unsigned long long)((a->needed + (1 << 20) - 1) >> 20));
}

/* The segment PyTorch's allocator asks CUDA for, for a block of n bytes. */
static uint64_t
segment_for(uint64_t n)
{
	if (n <= (1 << 20))
		return 2 << 20;
	if (n < (10 << 20))
		return 20 << 20;
	return (n + (2 << 20) - 1) / (2 << 20) * (2 << 20);
}

static void
pytorch_answer(const struct oomlog *o, struct oomlog_answer *a)
{
	uint64_t other = o->process_in_use > o->reserved ? o->process_in_use - o->reserved : 0;
	/* On a failed request the allocator gives back only whole free
	 * segments: what sits cached in a segment still partly in use stays
	 * reserved ("Non-releasable memory"; without memory_summary(), all of
	 * the cached is counted), and the request takes a segment of its own. */
	uint64_t stuck = o->has_summary ? o->inactive_split : o->reserved_unallocated;

	a->needed = o->allocated + o->request;
	a->to_serve = o->allocated + stuck + segment_for(o->request);
	a->available = o->has_allowed ? o->allowed : o->free_on_card + o->reserved;
	a->held_free = o->reserved_unallocated;
	a->fragmentation = a->needed <= a->available;
	if (a->fragmentation) {
		add(a, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True%s (segments that grow and "
		    "give back pages: the %s cached in segments still partly in use can serve "
		    "it; torch.cuda.empty_cache() cannot, it frees only whole segments)",
		    o->old_message ? " (PyTorch 2.1 or later; 1.x's message here)" : "",
		    SZ(o->reserved_unallocated));
		return;
	}
	if (o->has_allowed && o->total_capacity != 0 && a->to_serve < o->total_capacity)
		add(a, "torch.cuda.set_per_process_memory_fraction(%.3f) (a limit of %s, at "
		    "least the %s that serving it reserves)", fraction(a->to_serve, o->total_capacity),
		    SZ((uint64_t)(fraction(a->to_serve, o->total_capacity) * (double)o->total_capacity)),
		    SZ(a->to_serve));
	else
		add(a, "a GPU with at least %s (the %s that serving it reserves, and %s of "
		    "CUDA context and other memory this process had)", SZ(a->to_serve + other),
		    SZ(a->to_serve), SZ(other));
}

void
oomlog_answer(const struct oomlog *o, struct oomlog_answer *a)
{
	memset(a, 0, sizeof(*a));
	if (o->kind == OOMLOG_BFC)
		bfc_answer(o, a);
	else
		pytorch_answer(o, a);
}

void
oomlog_answer_free(struct oomlog_answer *a)
{
	size_t i;

	for (i = 0; i < a->nsettings; i++)
		free(a->settings[i]);
	memset(a, 0, sizeof(*a));
}

static const char *
fw_name(const struct oomlog *o)
{
	if (o->kind == OOMLOG_PYTORCH)
		return "pytorch";
	return o->fw == OOMLOG_FW_JAX ? "jax" : o->fw == OOMLOG_FW_TF ? "tensorflow" : NULL;
}

cJSON *
oomlog_json(const struct oomlog *o, const struct oomlog_answer *a)
{
	cJSON *j = cJSON_CreateObject(), *s, *arr;
	size_t i;

	cJSON_AddNumberToObject(j, "schema", 1);
	cJSON_AddStringToObject(j, "log", o->path);
	cJSON_AddNumberToObject(j, "line", (double)o->line);
	cJSON_AddStringToObject(j, "allocator", o->kind == OOMLOG_BFC ? "bfc" : "pytorch-caching");
	if (fw_name(o))
		cJSON_AddStringToObject(j, "framework", fw_name(o));
	else
		cJSON_AddNullToObject(j, "framework");
	if (o->device[0])
		cJSON_AddStringToObject(j, "device", o->device);
	else
		cJSON_AddNullToObject(j, "device");
	cJSON_AddNumberToObject(j, "request", (double)o->request);
	cJSON_AddBoolToObject(j, "request_exact", o->exact);
	s = cJSON_AddObjectToObject(j, "state");
	if (o->kind == OOMLOG_BFC) {
		cJSON_AddNumberToObject(s, "in_use", (double)o->in_use);
		cJSON_AddNumberToObject(s, "in_use_chunks", (double)o->in_use_chunks);
		cJSON_AddNumberToObject(s, "free", (double)o->free_bytes);
		cJSON_AddNumberToObject(s, "free_chunks", (double)o->free_chunks);
		cJSON_AddNumberToObject(s, "largest_free", (double)o->largest_free);
		cJSON_AddNumberToObject(s, "pool", (double)o->pool);
		cJSON_AddNumberToObject(s, "regions", (double)o->nregions);
		if (o->has_limit)
			cJSON_AddNumberToObject(s, "limit", (double)o->limit);
		else
			cJSON_AddNullToObject(s, "limit");
		cJSON_AddStringToObject(s, "mode", o->growth == 1 ? "growth" :
		    o->growth == 0 ? "preallocated" : "not said");
		arr = cJSON_AddArrayToObject(s, "region_sizes");
		for (i = 0; i < o->nregions; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)o->regions[i]));
	} else {
		cJSON_AddNumberToObject(s, "allocated", (double)o->allocated);
		cJSON_AddNumberToObject(s, "reserved", (double)o->reserved);
		cJSON_AddNumberToObject(s, "reserved_unallocated", (double)o->reserved_unallocated);
		cJSON_AddNumberToObject(s, "total_capacity", (double)o->total_capacity);
		cJSON_AddNumberToObject(s, "free_on_card", (double)o->free_on_card);
		if (o->has_allowed)
			cJSON_AddNumberToObject(s, "allowed", (double)o->allowed);
		else
			cJSON_AddNullToObject(s, "allowed");
		cJSON_AddBoolToObject(s, "memory_summary", o->has_summary);
		if (o->has_summary)
			cJSON_AddNumberToObject(s, "segments", (double)o->segments);
	}
	cJSON_AddStringToObject(j, "verdict", a->fragmentation ? "fragmentation" : "shortage");
	cJSON_AddNumberToObject(j, "needed", (double)a->needed);
	if (o->kind == OOMLOG_PYTORCH)
		cJSON_AddNumberToObject(j, "to_serve", (double)a->to_serve);
	cJSON_AddNumberToObject(j, "available", (double)a->available);
	arr = cJSON_AddArrayToObject(j, "settings");
	for (i = 0; i < a->nsettings; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(a->settings[i]));
	return j;
}

static void
bfc_text(FILE *f, const struct oomlog *o, const struct oomlog_answer *a)
{
	fprintf(f, "%s: the BFC allocator%s%s%s%s%s ran out of memory (line %zu)\n", o->path,
	    o->allocator[0] ? " " : "", o->allocator, fw_name(o) ? " (" : "",
	    fw_name(o) ? (o->fw == OOMLOG_FW_JAX ? "JAX" : "TensorFlow") : "",
	    fw_name(o) ? ")" : "", o->line);
	if (o->device[0])
		fprintf(f, "  device       %s%s%s\n", o->device, o->device_total ? ", " : "",
		    o->device_total ? SZ(o->device_total) : "");
	fprintf(f, "  asked for    %14s  %llu B%s\n", SZ(o->request),
	    (unsigned long long)o->request, o->exact ? "" : " (as printed)");
	fprintf(f, "  in use       %14s  in %zu chunk%s\n", SZ(o->in_use), o->in_use_chunks,
	    o->in_use_chunks == 1 ? "" : "s");
	fprintf(f, "  free         %14s  in %zu chunk%s, the largest %s\n", SZ(o->free_bytes),
	    o->free_chunks, o->free_chunks == 1 ? "" : "s", SZ(o->largest_free));
	fprintf(f, "  pool         %14s  in %zu region%s%s", SZ(o->pool), o->nregions,
	    o->nregions == 1 ? "" : "s", o->growth == 1 ? ", growing" :
	    o->growth == 0 ? ", preallocated" : "");
	if (o->has_limit)
		fprintf(f, "; limit %s", SZ(o->limit));
	fprintf(f, "\n  needed now   %14s  in use + the request\n\n", SZ(a->needed));
	if (a->fragmentation)
		fprintf(f, "FRAGMENTATION: %s was free, but no free chunk holds %s (the largest "
		    "is %s)%s\n", SZ(o->free_bytes), SZ(o->request), SZ(o->largest_free),
		    o->has_limit && o->limit > o->pool ? "" : ", and the pool is at its limit");
	else
		fprintf(f, "SHORTAGE: the job held %s and asked for %s more, %s in all: more "
		    "than the %s %s\n", SZ(o->in_use), SZ(o->request), SZ(a->needed),
		    SZ(a->available), o->has_limit ? "limit" : "pool");
	if (o->has_stats && o->stats_in_use != 0 &&
	    (o->stats_in_use > o->in_use + (o->in_use >> 9) + 1024 * 1024 ||
	    o->stats_in_use + (o->in_use >> 9) + 1024 * 1024 < o->in_use))
		fprintf(f, "  (the chunk map holds %s in use; its Stats say %s: the log's map is "
		    "partial)\n", SZ(o->in_use), SZ(o->stats_in_use));
}

static void
pytorch_text(FILE *f, const struct oomlog *o, const struct oomlog_answer *a)
{
	fprintf(f, "%s: PyTorch's caching allocator ran out of memory (line %zu%s)\n", o->path,
	    o->line, o->has_summary ? ", with memory_summary()" : "");
	fprintf(f, "  asked for    %14s\n", SZ(o->request));
	fprintf(f, "  allocated    %14s  by tensors\n", SZ(o->allocated));
	fprintf(f, "  reserved     %14s  %s of it cached but unallocated", SZ(o->reserved),
	    SZ(o->reserved_unallocated));
	if (o->has_summary)
		fprintf(f, ", in %llu segment%s", (unsigned long long)o->segments,
		    o->segments == 1 ? "" : "s");
	fprintf(f, "\n");
	if (o->has_allowed)
		fprintf(f, "  limit        %14s  set_per_process_memory_fraction, of %s\n",
		    SZ(o->allowed), SZ(o->total_capacity));
	else
		fprintf(f, "  card         %14s  %s free\n", SZ(o->total_capacity), SZ(o->free_on_card));
	fprintf(f, "  needed now   %14s  allocated + the request\n", SZ(a->needed));
	fprintf(f, "  to serve it  %14s  reserved: allocated, %s cached in segments still "
	    "partly in use\n               %14s  (the allocator gives back whole segments only), "
	    "and the request's segment\n\n", SZ(a->to_serve),
	    SZ(a->to_serve - o->allocated - segment_for(o->request)), "");
	if (a->fragmentation)
		fprintf(f, "FRAGMENTATION: %s was needed and %s was %s, but %s of it sat cached "
		    "in segments still partly in use\n", SZ(a->needed), SZ(a->available),
		    o->has_allowed ? "allowed" : "there", SZ(o->reserved_unallocated));
	else
		fprintf(f, "SHORTAGE: the job held %s and asked for %s more, %s in all: more than "
		    "the %s %s\n", SZ(o->allocated), SZ(o->request), SZ(a->needed),
		    SZ(a->available), o->has_allowed ? "allowed" : "free and reserved");
}

char *
oomlog_text(const struct oomlog *o, const struct oomlog_answer *a)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	if (o->kind == OOMLOG_BFC)
		bfc_text(f, o, a);
	else
		pytorch_text(f, o, a);
	if (a->nsettings)
		fprintf(f, "\nwhat would have served the request:\n");
	for (i = 0; i < a->nsettings; i++)
		fprintf(f, "  %s\n", a->settings[i]);
	if (a->nsettings == 0)
		fprintf(f, "\nno setting serves it on this card: the job needs %s at this moment\n",
		    SZ(a->needed));
	fprintf(f, "\nA log holds this moment only: what the job asks for after it is not "
	    "in it.\nRecord the job (a snapshot or a profile) and `gpumemsim tune` or `plan` "
	    "it for the\nsetting and limit that hold the whole run.\n");
	fclose(f);
	return out;
}
