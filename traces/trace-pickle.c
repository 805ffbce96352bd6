/*
 * trace-pickle.c - PyTorch memory snapshots (torch.cuda.memory._dump_snapshot,
 * a pickle; also the C++ path's, protocol 2) read as a trace.  The device
 * trace with the most entries is used unless one is chosen; its entries map
 * to events as the shared .json samples do: alloc (requested size, address,
 * stream, the first frame outside PyTorch's own plumbing as `at`, time),
 * free_completed as the free (the moment the block is reusable),
 * segment_alloc/free/map/unmap and oom as observed events; free_requested and
 * snapshot entries are dropped.  Ids are numbered from 1 in alloc order.
 *
 * Snapshots recorded from a ring buffer, or after the job had started, miss
 * the beginning: blocks freed with no recorded alloc, and blocks still live
 * at the end (in the snapshot's `segments`) that were never allocated in the
 * trace.  Those are seeded: allocated at the start, in address order, after
 * observed segment_alloc events for the segments that existed before the
 * first entry; the header says starts_mid_run and `source.seeded` what was
 * made up.  What cannot be known is when they were allocated, and in what
 * order.
 *
 * The file is read once, streamed (pickle.h's pickle_read): each trace
 * entry becomes a compact record as it completes (its frames reduced to the
 * id of their summary: site, stack and who released, each distinct list of
 * frames summarized once) and is let go; records past RECS_IN_MEMORY (16
 * MiB) go to an unlinked temporary file.  What the header needs from the
 * whole trace (the seeds, the limits, what the recording observed) is found
 * from the records before the first event; events are then made from them
 * as asked.  Memory follows what the snapshot keeps (its segments, distinct
 * frames and stacks, the blocks live), plus 4 bytes for each memo slot the
 * pickle uses (about 3 an entry): not the entries themselves.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/pickle-snap.h"

static int
cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* A pickle value as JSON (settings dicts: strings, numbers, booleans, dicts). */
/*
 * allocator_settings as JSON.  The memo lets a pickle share values, so the
 * settings are a graph, not a tree: a dict may hold itself, and forty lists
 * that each hold the one before twice unfold to 2^40 nodes.  The walk refuses
 * a cycle, stops at a depth and a node count no real settings dict comes near.
 */
#define SETTINGS_MAX_DEPTH 32
#define SETTINGS_MAX_NODES 100000

struct json_walk {
	const struct pk_val *path[SETTINGS_MAX_DEPTH];
	size_t depth, nodes;
	char **cause;
};

static int
to_json(struct json_walk *w, const struct pk_val *v, cJSON **out)
{
	cJSON *o, *item;
	size_t i;
	int err = 0;

	*out = NULL;
	if (++w->nodes > SETTINGS_MAX_NODES)
		return gms_fail(w->cause, GMS_ETRACE, "allocator_settings holds more than %d "
		    "values (shared through the pickle's memo): not a snapshot's settings",
		    SETTINGS_MAX_NODES);
	if (v == NULL) {
		*out = cJSON_CreateNull();
		return 0;
	}
	switch (v->type) {
	case PK_BOOL:
		*out = cJSON_CreateBool((int)v->u.i);
		return 0;
	case PK_INT:
		*out = cJSON_CreateNumber((double)v->u.i);
		return 0;
	case PK_FLOAT:
		*out = cJSON_CreateNumber(v->u.f);
		return 0;
	case PK_STR:
		*out = cJSON_CreateString(v->u.str.s);
		return 0;
	case PK_DICT:
	case PK_LIST:
	case PK_TUPLE:
		break;
	default:
		*out = cJSON_CreateNull();
		return 0;
	}
	for (i = 0; i < w->depth; i++)
		if (w->path[i] == v)
			return gms_fail(w->cause, GMS_ETRACE, "allocator_settings contains "
			    "itself (a cycle at depth %zu)", w->depth);
	if (w->depth == SETTINGS_MAX_DEPTH)
		return gms_fail(w->cause, GMS_ETRACE, "allocator_settings nested deeper "
		    "than %d levels", SETTINGS_MAX_DEPTH);
	w->path[w->depth++] = v;
	o = v->type == PK_DICT ? cJSON_CreateObject() : cJSON_CreateArray();
	for (i = 0; i < v->u.seq.n; i += v->type == PK_DICT ? 2 : 1) {
		if (v->type == PK_DICT) {
			if (i + 1 >= v->u.seq.n || v->u.seq.items[i]->type != PK_STR)
				continue;
			if ((err = to_json(w, v->u.seq.items[i + 1], &item)) < 0)
				break;
			cJSON_AddItemToObject(o, v->u.seq.items[i]->u.str.s, item);
		} else {
			if ((err = to_json(w, v->u.seq.items[i], &item)) < 0)
				break;
			cJSON_AddItemToArray(o, item);
		}
	}
	w->depth--;
	if (i < v->u.seq.n) {
		cJSON_Delete(o);
		return err;
	}
	*out = o;
	return 0;
}

/*
 * The settings as a PYTORCH_CUDA_ALLOC_CONF string, from the parsed values of
 * allocator_settings: what the allocator ran with when they were set from
 * Python (torch.cuda.memory._set_allocator_settings) and the variable is
 * empty.  NULL when they are the defaults.
 */
static char *
conf_from_settings(const cJSON *sj)
{
	const cJSON *v, *it;
	char *out = NULL, list[512] = "";
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&out, &len);
	double same = -1;
	int uniform = 1;

	if (f == NULL)
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(sj, "max_split_size");
	if (cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e15)
		fprintf(f, "%smax_split_size_mb:%.0f", n++ ? "," : "", v->valuedouble / 1048576);
	v = cJSON_GetObjectItemCaseSensitive(sj, "garbage_collection_threshold");
	if (cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1)
		fprintf(f, "%sgarbage_collection_threshold:%.17g", n++ ? "," : "", v->valuedouble);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sj, "expandable_segments")))
		fprintf(f, "%sexpandable_segments:True", n++ ? "," : "");
	v = cJSON_GetObjectItemCaseSensitive(sj, "roundup_power2_divisions");
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsNumber(it) || it->valuedouble <= 0 || it->valuedouble > 1e6 ||
		    it->string == NULL || strlen(it->string) > 12)
			continue;
		if (same >= 0 && same != it->valuedouble)
			uniform = 0;
		same = it->valuedouble;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s:%.0f",
		    list[0] ? "," : "", it->string, it->valuedouble);
	}
	if (same > 0 && uniform && cJSON_GetArraySize(v) > 0)
		fprintf(f, "%sroundup_power2_divisions:%.0f", n++ ? "," : "", same);
	else if (same > 0)
		fprintf(f, "%sroundup_power2_divisions:[%s]", n++ ? "," : "", list);
	fclose(f);
	if (n == 0) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * The device to read when none is chosen: the one that holds memory (trace
 * entries that allocate, free or reserve, or segments in the dump).  A
 * device with nothing is never the answer while another has something;
 * several with memory are refused, each listed, since which one matters is
 * the user's to say.  A snapshot with none keeps device 0 (the caller says
 * it holds nothing).
 */
#define MAX_DEVICES 4096
static int
choose_device(const struct pickle_state *st, size_t ntraces, const struct pk_val *segments,
    int64_t *out, char **cause)
{
	uint64_t *entries = gms_calloc(MAX_DEVICES, sizeof(*entries));
	uint64_t *reserved = gms_calloc(MAX_DEVICES, sizeof(*reserved));
	const struct pk_val *seg, *d, *ts;
	size_t i, j, nd = GMS_MIN(ntraces, MAX_DEVICES), with = 0;
	char *list = NULL, *tmp, one[160];
	int k;

	/* the entries that become events, well formed or not */
	for (i = 0; i < nd && i < st->ndev; i++)
		for (k = 0; st->dev[i] != NULL && k < KIND_KEPT; k++)
			entries[i] += st->dev[i]->sc.counts[k];
	for (i = 0; i < pk_len(segments); i++) {
		seg = pk_item(segments, i);
		d = pk_get(seg, "device");
		ts = pk_get(seg, "total_size");
		j = pk_is(d, PK_INT) && d->u.i >= 0 && d->u.i < MAX_DEVICES ? (size_t)d->u.i : 0;
		nd = GMS_MAX(nd, j + 1);
		reserved[j] += pk_is(ts, PK_INT) && ts->u.i > 0 && ts->u.i <= TRACE_SIZE_MAX ?
		    (uint64_t)ts->u.i : 0;
	}
	*out = 0;
	for (i = 0; i < nd; i++) {
		if (entries[i] == 0 && reserved[i] == 0)
			continue;
		if (with++ == 0)
			*out = (int64_t)i;
		snprintf(one, sizeof(one), "%s%zu (%llu entries, %s reserved at dump)",
		    with > 1 ? ", " : "", i, (unsigned long long)entries[i],
		    gms_fmt_size(reserved[i], (char[32]){ 0 }, 32));
		tmp = list;
		list = gms_asprintf("%s%s", tmp ? tmp : "", one);
		free(tmp);
	}
	free(entries);
	free(reserved);
	if (with > 1) {
		gms_fail(cause, GMS_ETRACE, "the snapshot holds memory on %zu devices: %s; choose "
		    "one with --device=N", with, list);
		free(list);
		return GMS_ETRACE;
	}
	free(list);
	return 0;
}

/* pickle_read's input: the file through zlib. */
static long
read_gz(void *ctx, unsigned char *buf, size_t n, char **cause)
{
	struct pickle_state *st = ctx;
	int got, zerr;

	got = gzread(st->gz, buf, (unsigned)GMS_MIN(n, (size_t)1 << 30));
	gzerror(st->gz, &zerr);
	if (got < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))
		return gms_fail(cause, GMS_ETRACE, "%s", zerr == Z_BUF_ERROR ?
		    "truncated compressed file" : gzerror(st->gz, &zerr));
	return got;
}

static void
dev_free(struct dev *d)
{
	snap_recs_free(&d->recs);
	snap_clear_map(&d->live);
	snap_clear_map(&d->segs);
	free(d->sc.seed);
	free(d->sc.seedseg);
	free(d->why);
	free(d);
}

static struct dev *
dev_new(void)
{
	struct dev *d = gms_calloc(1, sizeof(*d));

	d->recs.fd = -1;
	return d;
}

/* Device i's state, made on its first entry. */
static struct dev *
dev_of(struct pickle_state *st, size_t i)
{
	size_t n;

	if (i >= st->ndev) {
		n = GMS_MAX(i + 1, 2 * st->ndev);
		st->dev = gms_realloc(st->dev, n * sizeof(*st->dev));
		memset(st->dev + st->ndev, 0, (n - st->ndev) * sizeof(*st->dev));
		st->ndev = n;
	}
	if (st->dev[i] == NULL)
		st->dev[i] = dev_new();
	return st->dev[i];
}

/*
 * An entry of device_traces[device], at index i there: checked, its frames
 * summarized, scanned and kept as a record.  NULL: its batch was let go.  A
 * malformed entry is an error only if its device is the one read.
 */
static int
take_entry(void *ctx, struct pickle *pk, const struct pk_val *e, size_t device, size_t i,
    char **cause)
{
	struct pickle_state *st = ctx;
	struct entry en;
	struct dev *d;
	uint32_t sid;

	st->pk = pk;
	if (e == NULL) {
		snap_batch_end(st);
		return 0;
	}
	if (snap_too_many_keys(e))
		return gms_fail(cause, GMS_ETRACE, "device_traces[%zu][%zu] has %zu keys (a trace "
		    "entry has about 8): not a snapshot", device, i, e->u.seq.n / 2);
	st->walk.len = pickle_bytes(pk);
	st->walk.budget = WALK_FLOOR + st->walk.len * WALK_PER_BYTE;
	if (snap_charge(&st->walk, 1, "trace entries") < 0)
		return snap_walk_fail(&st->walk, cause);
	if (device >= MAX_DEVICES)
		return 0;
	d = dev_of(st, device);
	d->entries++;
	if (d->err < 0)
		return 0;
	if ((d->err = snap_read_entry(e, i, &en, &d->why)) < 0)
		return 0;
	/* every entry's frames: a later one may name the same list */
	sid = snap_sid_of(st, e, en.frames);
	if (st->walk.over != NULL)
		return snap_walk_fail(&st->walk, cause);
	d->err = snap_scan_entry(d, &en, sid, i, &d->why);
	return 0;
}

/*
 * The lists of device_traces that did not stream (a pickle can build them
 * in ways pickle_read does not follow): their entries taken now, as they
 * stand.  A streamed list must stand at its own place.
 */
static int
take_unstreamed(struct pickle_state *st, const struct pk_val *traces, char **cause)
{
	const struct pk_val *tr;
	size_t i, j, dev, n;
	int err;

	for (i = 0; i < pk_len(traces); i++) {
		tr = pk_item(traces, i);
		if (pk_streamed(tr, &dev, &n)) {
			if (dev != i)
				return gms_fail(cause, GMS_ETRACE, "device_traces[%zu] is the list of "
				    "device_traces[%zu] again (named twice through the pickle's memo): "
				    "not a snapshot PyTorch writes", i, dev);
			continue;
		}
		for (j = 0; j < pk_len(tr); j++)
			if ((err = take_entry(st, st->pk, pk_item(tr, j), i, j, cause)) < 0)
				return err;
	}
	return 0;
}

/* What only reading needed: the pickle, the other devices, the memos. */
static void
reading_done(struct pickle_state *st)
{
	size_t i;

	for (i = 0; i < st->ndev; i++)
		if (st->dev[i] != NULL && st->dev[i] != st->chosen)
			dev_free(st->dev[i]);
	free(st->dev);
	st->dev = NULL;
	st->ndev = 0;
	snap_fmemo_free(&st->byptr);
	snap_fmemo_free(&st->bycontent);
	free(st->batch);
	st->batch = NULL;
	st->nbatch = st->batchcap = 0;
	pickle_free(st->pk);
	st->pk = NULL;
}

static int
pickle_open(struct trace_reader *r, char **cause)
{
	struct pickle_state *st = gms_calloc(1, sizeof(*st));
	const struct pk_val *root, *traces, *settings, *conf, *segments;
	struct limit_scan lim = { 0 };
	struct observed ob = { 0 };
	struct trace_event ev;
	struct scan *scp;
	struct pickle *pk = NULL;
	struct dev *d;
	cJSON *hdr, *src, *acts, *seeded;
	char *why = NULL, name[256], *dot;
	uint64_t len;
	int64_t device = r->opts.device;
	int err, kind, history = 0;

	r->priv = st;
	r->stable = 1;		/* every site and stack is intern_site's, kept to the close */
	st->gz = r->gz;
	st->sum = gms_calloc(st->sumcap = 256, sizeof(*st->sum));
	st->sum[0].released = -1;	/* summary 0: no frames */
	st->nsum = 1;
	st->pools = gms_calloc(1, sizeof(*st->pools));
	/* Protocols 2 to 5 open with PROTO: refuse anything else before holding it. */
	if ((kind = gzgetc(r->gz)) != 0x80) {
		err = gms_fail(&why, GMS_ETRACE, "not a pickle (%s)", kind < 0 ?
		    "empty file" : "its first byte is not the PROTO opcode 0x80");
		goto fail;
	}
	gzungetc(kind, r->gz);
	root = pickle_read(read_gz, st, take_entry, st, &pk, &why);
	st->pk = pk;
	if (root == NULL) {
		err = GMS_ETRACE;
		goto fail;
	}
	len = pickle_bytes(pk);
	st->walk.len = len;
	st->walk.budget = WALK_FLOOR + len * WALK_PER_BYTE;
	/* torch.cuda.memory_snapshot() (and old dumps) are a bare list of segments */
	if (pk_is(root, PK_LIST)) {
		segments = root;
		traces = NULL;
	} else {
		segments = pk_get(root, "segments");
		traces = pk_get(root, "device_traces");
	}
	if (!pk_is(root, PK_LIST) && (!pk_is(root, PK_DICT) || (!pk_is(traces, PK_LIST) &&
	    !pk_is(segments, PK_LIST)))) {
		err = gms_fail(&why, GMS_ETRACE, "not a PyTorch memory snapshot: no "
		    "\"device_traces\" list and no \"segments\"");
		goto fail;
	}
	if ((err = take_unstreamed(st, traces, &why)) < 0 ||
	    (err = snap_check_shape(segments, &st->walk, &why)) < 0)
		goto fail;
	if (device < 0 && (err = choose_device(st, pk_len(traces), segments, &device, &why)) < 0)
		goto fail;
	if ((size_t)device < pk_len(traces) && !pk_is(pk_item(traces, (size_t)device), PK_LIST)) {
		err = gms_fail(&why, GMS_ETRACE, "device_traces[%lld] is not a list", (long long)device);
		goto fail;
	}
	/* a device without entries still reads the dump */
	d = st->chosen = (uint64_t)device < st->ndev && st->dev[device] != NULL ?
	    st->dev[device] : dev_new();
	if (d->err < 0) {
		err = d->err;
		why = d->why;
		d->why = NULL;
		goto fail;
	}
	scp = &d->sc;
	if ((err = snap_scan_dump(st, segments, device, d, &why)) < 0)
		goto fail;
	/* the first pass is over: what it knew of each address is not needed again */
	snap_clear_map(&d->live);
	snap_clear_map(&d->segs);
	if (d->entries == 0 && scp->dump_segments == 0 && r->opts.device >= 0 &&
	    (size_t)device >= pk_len(traces) && pk_len(traces) > 0) {
		err = gms_fail(&why, GMS_ETRACE, "no device %lld: the snapshot has traces for "
		    "devices 0 to %zu", (long long)device, pk_len(traces) - 1);
		goto fail;
	}
	if (d->entries == 0 && scp->dump_segments == 0) {
		err = gms_fail(&why, GMS_ETRACE, "the snapshot holds nothing for device %lld: no "
		    "trace entries (was _record_memory_history on?) and no segments",
		    (long long)device);
		goto fail;
	}
	{
		const struct pk_val *set = pk_get(root, "allocator_settings");
		const struct pk_val *gc = pk_get(set, "garbage_collection_threshold");
		const struct pk_val *ex = pk_get(set, "expandable_segments");
		const struct pk_val *cs = pk_get(set, "PYTORCH_CUDA_ALLOC_CONF");

		lim.gc = pk_is(gc, PK_FLOAT) && gc->u.f > 0 && gc->u.f < 1 ? gc->u.f : 0;
		/* a threshold in the variable alone: its bound holds for any below 1 */
		if (lim.gc == 0 && pk_is(cs, PK_STR) &&
		    strstr(cs->u.str.s, "garbage_collection_threshold") != NULL)
			lim.gc = 1e-3;
		lim.expandable = (pk_is(ex, PK_BOOL) && ex->u.i) ||
		    (pk_is(cs, PK_STR) && strstr(cs->u.str.s, "expandable_segments:True") != NULL);
	}
	snap_pools_scan(segments, device, st->pools);
	snap_pools_since(&d->recs, st->pools);
	if (st->walk.over != NULL) {
		err = snap_walk_fail(&st->walk, &why);
		goto fail;
	}
	/* addresses first in struct seed: cmp_pair orders them */
	if (scp->nseedseg > 0)
		qsort(scp->seedseg, scp->nseedseg, sizeof(*scp->seedseg), cmp_pair);
	if (scp->nseed > 0)
		qsort(scp->seed, scp->nseed, sizeof(*scp->seed), cmp_pair);
	/* the whole run once: what the header says of it */
	st->em = gms_calloc(1, sizeof(*st->em));
	snap_emit_start(st->em, scp, st->pools, &d->recs, &lim, &ob);
	while ((err = snap_emit_next(st, st->em, &ev, &why)) > 0)
		;
	if (err < 0)
		goto fail;
	snap_emit_start(st->em, scp, st->pools, &d->recs, NULL, NULL);
	st->stack_bytes = 0;
	/* entries that become events; a lone "snapshot" entry is no history */
	for (kind = 0; kind < KIND_KEPT; kind++)
		history |= scp->counts[kind] > 0;

	hdr = cJSON_CreateObject();
	cJSON_AddStringToObject(hdr, "format", "gpumemsim-trace");
	cJSON_AddNumberToObject(hdr, "version", 1);
	snprintf(name, sizeof(name), "%s", r->hdr.name);
	if ((dot = strstr(name, ".pickle")) != NULL)
		*dot = '\0';
	cJSON_AddStringToObject(hdr, "name", name);
	src = cJSON_AddObjectToObject(hdr, "source");
	cJSON_AddStringToObject(src, "from", "pytorch memory snapshot");
	cJSON_AddNumberToObject(src, "device", (double)device);
	cJSON_AddNumberToObject(src, "pickle_protocol", pickle_protocol(pk));
	acts = cJSON_AddObjectToObject(src, "actions");
	for (kind = 0; kind < NKINDS; kind++)
		if (scp->counts[kind])
			cJSON_AddNumberToObject(acts, snap_action_names[kind], (double)scp->counts[kind]);
	settings = pk_get(root, "allocator_settings");	/* NULL for a bare list */
	conf = pk_get(settings, "PYTORCH_CUDA_ALLOC_CONF");
	if (pk_is(conf, PK_STR))
		cJSON_AddStringToObject(src, "alloc_conf", conf->u.str.s);
	if (settings != NULL) {
		struct json_walk w = { .cause = &why };
		cJSON *sj;

		if ((err = to_json(&w, settings, &sj)) < 0) {
			cJSON_Delete(hdr);
			goto fail;
		}
		cJSON_AddItemToObject(src, "allocator_settings", sj);
		if (!pk_is(conf, PK_STR) || conf->u.str.s[0] == '\0') {
			char *c = conf_from_settings(sj);

			if (c != NULL) {
				cJSON_DeleteItemFromObject(src, "alloc_conf");
				cJSON_AddStringToObject(src, "alloc_conf", c);
				cJSON_AddStringToObject(src, "alloc_conf_from", "allocator_settings");
			}
			free(c);
		}
	}
	if (scp->empty_caches > 0)
		cJSON_AddNumberToObject(src, "empty_cache_inferred", (double)scp->empty_caches);
	if (st->pools->nids > 0)
		cJSON_AddNumberToObject(src, "graph_pools", (double)st->pools->nids);
	{
		cJSON *dump = cJSON_AddObjectToObject(src, "dump");

		cJSON_AddNumberToObject(dump, "segments", (double)scp->dump_segments);
		cJSON_AddNumberToObject(dump, "reserved", (double)scp->dump_reserved);
		cJSON_AddNumberToObject(dump, "active", (double)scp->dump_active);
		cJSON_AddNumberToObject(dump, "requested", (double)scp->dump_requested);
		cJSON_AddNumberToObject(dump, "largest_free", (double)scp->dump_largest_free);
	}
	if (scp->nseed > 0 || scp->nseedseg > 0) {
		seeded = cJSON_AddObjectToObject(src, "seeded");
		cJSON_AddNumberToObject(seeded, "allocs", (double)scp->nseed);
		cJSON_AddNumberToObject(seeded, "segments", (double)scp->nseedseg);
		cJSON_AddStringToObject(seeded, "unknown", !history ? "everything before "
		    "the dump: the snapshot has no history, only the state at dump" : "when, and in "
		    "what order, the seeded blocks and segments were allocated: before the first entry");
		cJSON_AddBoolToObject(src, "history", history);
		cJSON_AddBoolToObject(hdr, "starts_mid_run", 1);
	} else {
		cJSON *obs = snap_observed_json(&ob);

		if (lim.known && lim.hi >= lim.peak) {
			cJSON_AddNumberToObject(obs, "limit_min", (double)lim.peak);
			cJSON_AddNumberToObject(obs, "limit_max", (double)lim.hi);
		}
		cJSON_AddItemToObject(hdr, "observed", obs);
	}
	if (scp->counts[6] > 0)
		cJSON_AddBoolToObject(hdr, "ends_in_oom", 1);
	reading_done(st);
	if ((err = trace_take_header(r, hdr, &why)) < 0)
		goto fail_taken;
	return 0;
fail:
	reading_done(st);
fail_taken:
	gms_fail(cause, err, "%s: %s", r->path, why ? why : "cannot read");
	free(why);
	return err;
}

static int
pickle_next(struct trace_reader *r, struct trace_event *ev, char **cause)
{
	struct pickle_state *st = r->priv;

	return snap_emit_next(st, st->em, ev, cause);
}

static void
pickle_where(struct trace_reader *r)
{
	snprintf(r->where, sizeof(r->where), "%s: event %llu", r->path,
	    (unsigned long long)r->cur);
}

static void
pickle_close(struct trace_reader *r)
{
	struct pickle_state *st = r->priv;
	struct site_str *e, *tmp;

	if (st == NULL)
		return;
	reading_done(st);
	HASH_ITER(hh, st->sites, e, tmp) {
		HASH_DEL(st->sites, e);
		free(e);
	}
	if (st->em != NULL)
		snap_emit_free(st->em);
	free(st->em);
	if (st->chosen != NULL)
		dev_free(st->chosen);
	if (st->pools != NULL)
		free(st->pools->seg);
	free(st->pools);
	free(st->sum);
	free(st);
}

const struct trace_format trace_format_pickle = {
	.name = "pickle",
	.open = pickle_open,
	.next = pickle_next,
	.where = pickle_where,
	.close = pickle_close,
};
