/*
 * stacks.c - the live memory by call stack (stacks.h): frames, nodes and
 * whole stacks interned through uthash, a moment's values by node, and the
 * views built from them (filtered, cut, summed, sorted) with their four
 * outputs.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "analysis/stacks.h"
#include "sim/gms.h"

struct frame_ent {
	char *s;
	uint32_t id;
	UT_hash_handle hh;
};

/* A node by its parent and frame. */
struct node_key {
	uint64_t parent;
	uintptr_t frame;	/* an index into frames (the tree) or a name (a view) */
};

struct node_ent {
	struct node_key key;
	uint32_t id;
	UT_hash_handle hh;
};

struct stack_ent {
	char *s;
	uint32_t node;
	UT_hash_handle hh;
};

struct tnode {
	uint32_t parent, frame;
};

struct stack_tree {
	struct frame_ent *frame_h;
	char **frames;
	size_t nframes, capframes;
	struct node_ent *node_h;
	struct tnode *nodes;		/* 0: the root */
	size_t nnodes, capnodes;
	struct stack_ent *stack_h;
	uint32_t none;			/* STACKS_NONE's node; 0 until seen */
};

struct vnode {
	const char *frame;		/* NULL: the root */
	uint32_t parent, depth;
	uint32_t first, next;		/* first child, next sibling (0: none) */
	uint64_t bytes, count;		/* with the callees' */
	uint64_t self_bytes, self_count;
	uint64_t ev_first, ev_last;	/* the events of its own allocations */
};

struct stack_view {
	struct vnode *n;
	size_t nn, cap;
	struct node_ent *node_h;
	uint32_t maxdepth;
};

struct stack_tree *
stack_tree_new(void)
{
	struct stack_tree *t = gms_calloc(1, sizeof(*t));

	t->capnodes = 256;
	t->nodes = gms_malloc(t->capnodes * sizeof(*t->nodes));
	t->nodes[0] = (struct tnode){ 0, UINT32_MAX };
	t->nnodes = 1;
	return t;
}

void
stack_tree_free(struct stack_tree *t)
{
	struct frame_ent *f, *ft;
	struct node_ent *n, *nt;
	struct stack_ent *s, *st;

	if (t == NULL)
		return;
	HASH_ITER(hh, t->frame_h, f, ft) {
		HASH_DEL(t->frame_h, f);
		free(f->s);
		free(f);
	}
	HASH_ITER(hh, t->node_h, n, nt) {
		HASH_DEL(t->node_h, n);
		free(n);
	}
	HASH_ITER(hh, t->stack_h, s, st) {
		HASH_DEL(t->stack_h, s);
		free(s->s);
		free(s);
	}
	free(t->frames);
	free(t->nodes);
	free(t);
}

static uint32_t
frame_id(struct stack_tree *t, const char *s, size_t len)
{
	struct frame_ent *f;

	HASH_FIND(hh, t->frame_h, s, len, f);
	if (f != NULL)
		return f->id;
	if (t->nframes == t->capframes)
		t->frames = gms_realloc(t->frames, (t->capframes = t->capframes ? 2 * t->capframes :
		    256) * sizeof(*t->frames));
	f = gms_malloc(sizeof(*f));
	f->s = gms_asprintf("%.*s", (int)len, s);
	f->id = (uint32_t)t->nframes;
	t->frames[t->nframes++] = f->s;
	HASH_ADD_KEYPTR(hh, t->frame_h, f->s, len, f);
	return f->id;
}

static uint32_t
child(struct stack_tree *t, uint32_t parent, uint32_t frame)
{
	struct node_key k;
	struct node_ent *n;

	memset(&k, 0, sizeof(k));
	k.parent = parent;
	k.frame = frame;
	HASH_FIND(hh, t->node_h, &k, sizeof(k), n);
	if (n != NULL)
		return n->id;
	if (t->nnodes == t->capnodes)
		t->nodes = gms_realloc(t->nodes, (t->capnodes *= 2) * sizeof(*t->nodes));
	t->nodes[t->nnodes] = (struct tnode){ parent, frame };
	n = gms_malloc(sizeof(*n));
	n->key = k;
	n->id = (uint32_t)t->nnodes++;
	HASH_ADD(hh, t->node_h, key, sizeof(n->key), n);
	return n->id;
}

uint32_t
stack_tree_intern(struct stack_tree *t, const char *stack)
{
	struct stack_ent *s;
	const char **fr = NULL, *p, *nl;
	size_t n = 0, cap = 0, len;
	uint32_t node = 0;

	if (stack == NULL || stack[0] == '\0') {
		if (t->none == 0)
			t->none = child(t, 0, frame_id(t, STACKS_NONE, strlen(STACKS_NONE)));
		return t->none;
	}
	len = strlen(stack);
	HASH_FIND(hh, t->stack_h, stack, len, s);
	if (s != NULL)
		return s->node;
	/* innermost first: the tree is built from the last frame down */
	for (p = stack; *p != '\0'; p = *nl ? nl + 1 : nl) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		if (n == cap)
			fr = gms_realloc(fr, (cap = cap ? 2 * cap : 32) * sizeof(*fr));
		fr[n++] = p;
	}
	while (n-- > 0) {
		nl = strchr(fr[n], '\n');
		node = child(t, node, frame_id(t, fr[n], nl ? (size_t)(nl - fr[n]) :
		    strlen(fr[n])));
	}
	free(fr);
	s = gms_malloc(sizeof(*s));
	s->s = gms_strdup(stack);
	s->node = node;
	HASH_ADD_KEYPTR(hh, t->stack_h, s->s, len, s);
	return node;
}

size_t
stack_tree_frames(const struct stack_tree *t, uint32_t node, const char **frames, size_t max)
{
	size_t n = 0;

	for (; node != 0 && node < t->nnodes && n < max; node = t->nodes[node].parent)
		frames[n++] = t->frames[t->nodes[node].frame];
	return n;
}

size_t
stack_tree_nodes(const struct stack_tree *t)
{
	return t->nnodes;
}

void
stack_values_init(struct stack_values *v, const struct stack_tree *t)
{
	memset(v, 0, sizeof(*v));
	v->nnodes = t->nnodes;
	v->bytes = gms_calloc(v->nnodes, sizeof(*v->bytes));
	v->count = gms_calloc(v->nnodes, sizeof(*v->count));
	v->first = gms_calloc(v->nnodes, sizeof(*v->first));
	v->last = gms_calloc(v->nnodes, sizeof(*v->last));
}

void
stack_values_add(struct stack_values *v, uint32_t node, uint64_t bytes, uint64_t event)
{
	if (node >= v->nnodes)
		return;		/* made after the values were: cannot be live in them */
	if (v->count[node] == 0 || event < v->first[node])
		v->first[node] = event;
	if (v->count[node] == 0 || event > v->last[node])
		v->last[node] = event;
	v->bytes[node] += bytes;
	v->count[node]++;
	v->live += bytes;
	v->nlive++;
}

void
stack_values_free(struct stack_values *v)
{
	free(v->bytes);
	free(v->count);
	free(v->first);
	free(v->last);
	memset(v, 0, sizeof(*v));
}

/* --- a saved tree, read back ------------------------------------------- */

#define JSON_DEPTH_MAX 4096	/* deeper than any stack a reader keeps */

struct from_json {
	struct stack_tree *t;
	const cJSON **path;		/* the frames' nodes, outermost first */
	uint32_t *node;			/* ... and each one's own, once made */
	uint64_t *bytes, *count;	/* each node's own, as they are read */
	size_t n, cap;
	const char *why;
};

static const cJSON *
json_num(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= 9e15 ? it : NULL;
}

/* The stack of the path's first depth frames, in trace.h's form (caller frees). */
static char *
path_stack(const struct from_json *j, size_t depth)
{
	size_t len = 0, i, k = 0, n;
	char *s;

	for (i = 0; i < depth; i++)
		len += strlen(cJSON_GetObjectItemCaseSensitive(j->path[i], "frame")->valuestring) + 1;
	s = gms_malloc(len + 1);
	for (i = depth; i-- > 0;) {
		const char *f = cJSON_GetObjectItemCaseSensitive(j->path[i], "frame")->valuestring;

		n = strlen(f);
		memcpy(s + k, f, n);
		s[k + n] = '\n';
		k += n + 1;
	}
	s[k] = '\0';
	return s;
}

/* Node o at depth (0: the root): its own bytes, the rest its children's. */
static int
json_node_read(struct from_json *j, const cJSON *o, size_t depth, uint64_t *bytes,
    uint64_t *count)
{
	const cJSON *b = json_num(o, "bytes"), *c = json_num(o, "count"), *kids, *k, *fr;
	uint64_t kb = 0, kc = 0, cb, cc;
	char *stack;

	if (!cJSON_IsObject(o) || b == NULL || c == NULL)
		return j->why = "a node without its bytes and count", -1;
	kids = cJSON_GetObjectItemCaseSensitive(o, "children");
	if (kids != NULL && !cJSON_IsArray(kids))
		return j->why = "children that are not an array", -1;
	if (depth > 0) {
		fr = cJSON_GetObjectItemCaseSensitive(o, "frame");
		if (!cJSON_IsString(fr) || fr->valuestring[0] == '\0' ||
		    strchr(fr->valuestring, '\n') != NULL)
			return j->why = "a frame that is not a string of one line", -1;
		if (depth > JSON_DEPTH_MAX)
			return j->why = "stacks deeper than any recording's", -1;
		if (depth > j->cap)
			j->path = gms_realloc(j->path, (j->cap = 2 * depth) * sizeof(*j->path));
		j->path[depth - 1] = o;
	}
	cJSON_ArrayForEach(k, kids) {
		if (json_node_read(j, k, depth + 1, &cb, &cc) < 0)
			return -1;
		kb += cb;
		kc += cc;
	}
	*bytes = (uint64_t)b->valuedouble;
	*count = (uint64_t)c->valuedouble;
	if (kb > *bytes || kc > *count)
		return j->why = "a node that holds less than its children", -1;
	if (depth > 0 && *count > kc) {
		/* what the node holds itself: one stack, its own allocations */
		stack = path_stack(j, depth);
		if (j->n % 256 == 0) {
			j->node = gms_realloc(j->node, (j->n + 256) * sizeof(*j->node));
			j->bytes = gms_realloc(j->bytes, (j->n + 256) * sizeof(*j->bytes));
			j->count = gms_realloc(j->count, (j->n + 256) * sizeof(*j->count));
		}
		j->node[j->n] = strcmp(stack, STACKS_NONE "\n") == 0 ?
		    stack_tree_intern(j->t, NULL) : stack_tree_intern(j->t, stack);
		j->bytes[j->n] = *bytes - kb;
		j->count[j->n] = *count - kc;
		j->n++;
		free(stack);
	}
	return 0;
}

int
stack_values_from_json(struct stack_tree *t, const cJSON *json, struct stack_values *v,
    const char **why)
{
	struct from_json j = { .t = t };
	uint64_t b, c;
	size_t i;
	int rc = json_node_read(&j, json, 0, &b, &c);

	if (rc == 0) {
		stack_values_init(v, t);
		for (i = 0; i < j.n; i++) {
			/* a saved tree keeps no events: unknown */
			v->first[j.node[i]] = v->last[j.node[i]] = UINT64_MAX;
			v->bytes[j.node[i]] += j.bytes[i];
			v->count[j.node[i]] += j.count[i];
			v->live += j.bytes[i];
			v->nlive += j.count[i];
		}
	} else {
		*why = j.why;
	}
	free(j.path);
	free(j.node);
	free(j.bytes);
	free(j.count);
	return rc;
}

/* --- views ------------------------------------------------------------- */

static uint32_t
vchild(struct stack_view *w, uint32_t parent, const char *frame)
{
	struct node_key k;
	struct node_ent *n;

	memset(&k, 0, sizeof(k));
	k.parent = parent;
	k.frame = (uintptr_t)frame;
	HASH_FIND(hh, w->node_h, &k, sizeof(k), n);
	if (n != NULL)
		return n->id;
	if (w->nn == w->cap)
		w->n = gms_realloc(w->n, (w->cap *= 2) * sizeof(*w->n));
	w->n[w->nn] = (struct vnode){ .frame = frame, .parent = parent,
	    .depth = w->n[parent].depth + 1 };
	if (w->n[w->nn].depth > w->maxdepth)
		w->maxdepth = w->n[w->nn].depth;
	n = gms_malloc(sizeof(*n));
	n->key = k;
	n->id = (uint32_t)w->nn++;
	HASH_ADD(hh, w->node_h, key, sizeof(n->key), n);
	return n->id;
}

/* Larger first; equal sizes by frame, so that a view is the same every time. */
static int
by_size(const void *x, const void *y, void *arg)
{
	const struct vnode *n = arg;
	const struct vnode *a = &n[*(const uint32_t *)x], *b = &n[*(const uint32_t *)y];

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->frame, b->frame);
}

struct stack_view *
stack_view_new(const struct stack_tree *t, const struct stack_values *v, const char *filter,
    unsigned depth)
{
	struct stack_view *w = gms_calloc(1, sizeof(*w));
	uint32_t *path = gms_malloc(t->nnodes * sizeof(*path)), *order, node, id;
	size_t i, k, n, np, kept;
	struct node_ent *e, *et;

	w->cap = 256;
	w->n = gms_malloc(w->cap * sizeof(*w->n));
	w->n[0] = (struct vnode){ 0 };
	w->nn = 1;
	for (i = 1; i < v->nnodes && i < t->nnodes; i++) {
		if (v->count[i] == 0)
			continue;
		for (np = 0, node = (uint32_t)i; node != 0; node = t->nodes[node].parent)
			path[np++] = t->nodes[node].frame;
		/* outermost first, the filter's frames only, at most depth of them */
		for (id = 0, kept = 0, k = np; k-- > 0 && (depth == 0 || kept < depth);) {
			const char *f = t->frames[path[k]];

			if (filter != NULL && (uint32_t)i != t->none && fnmatch(filter, f, 0) != 0)
				continue;
			id = vchild(w, id, f);
			kept++;
		}
		if (kept == 0)
			id = vchild(w, 0, STACKS_FILTERED);
		if (w->n[id].self_count == 0 || v->first[i] < w->n[id].ev_first)
			w->n[id].ev_first = v->first[i];
		if (w->n[id].self_count == 0 || v->last[i] > w->n[id].ev_last)
			w->n[id].ev_last = v->last[i];
		w->n[id].self_bytes += v->bytes[i];
		w->n[id].self_count += v->count[i];
	}
	free(path);
	HASH_ITER(hh, w->node_h, e, et) {
		HASH_DEL(w->node_h, e);
		free(e);
	}
	/* children after their parents: one pass from the end sums the callees */
	for (i = w->nn; i-- > 0;) {
		w->n[i].bytes += w->n[i].self_bytes;
		w->n[i].count += w->n[i].self_count;
		if (i > 0) {
			w->n[w->n[i].parent].bytes += w->n[i].bytes;
			w->n[w->n[i].parent].count += w->n[i].count;
		}
	}
	n = w->nn - 1;
	order = gms_malloc((n ? n : 1) * sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = (uint32_t)(i + 1);
	qsort_r(order, n, sizeof(*order), by_size, w->n);
	for (i = n; i-- > 0;) {
		struct vnode *c = &w->n[order[i]];

		c->next = w->n[c->parent].first;
		w->n[c->parent].first = order[i];
	}
	free(order);
	return w;
}

void
stack_view_free(struct stack_view *w)
{
	if (w == NULL)
		return;
	free(w->n);
	free(w);
}

uint64_t
stack_view_bytes(const struct stack_view *w)
{
	return w->n[0].bytes;
}

uint64_t
stack_view_count(const struct stack_view *w)
{
	return w->n[0].count;
}

/*
 * A frame as shown to people: control characters as '?', and a library's
 * path from its package on ("torch/nn/modules/module.py:1779 ...", not the
 * site-packages directory before it).  Into buf.
 */
const char *
stack_frame_shown(const char *frame, char *buf, size_t len)
{
	const char *p, *from = frame;
	size_t i;

	if ((p = strstr(frame, "site-packages/")) != NULL)
		from = p + strlen("site-packages/");
	else if ((p = strstr(frame, "dist-packages/")) != NULL)
		from = p + strlen("dist-packages/");
	for (i = 0; from[i] != '\0' && i + 1 < len; i++)
		buf[i] = (unsigned char)from[i] < 0x20 || from[i] == 0x7f ? '?' : from[i];
	buf[i] = '\0';
	return buf;
}

static void
text_line(FILE *f, const struct stack_view *w, uint64_t bytes, uint64_t count, uint32_t indent,
    const char *frame)
{
	char size[32];
	uint64_t of = w->n[0].bytes;

	gms_fmt_size(bytes, size, sizeof(size));
	fprintf(f, "  %10s %6.1f%% %7llu  %*s%s\n", size, of ? 100.0 * (double)bytes /
	    (double)of : 0.0, (unsigned long long)count, (int)indent, "", frame);
}

static void
text_children(FILE *f, const struct stack_view *w, uint32_t node, size_t top)
{
	uint32_t c;
	uint64_t rb = 0, rc = 0;
	size_t k = 0, rest = 0;
	char buf[1024], *name;

	for (c = w->n[node].first; c != 0; c = w->n[c].next, k++) {
		if (k >= top) {
			rb += w->n[c].bytes;
			rc += w->n[c].count;
			rest++;
			continue;
		}
		text_line(f, w, w->n[c].bytes, w->n[c].count, w->n[c].depth - 1,
		    stack_frame_shown(w->n[c].frame, buf, sizeof(buf)));
		text_children(f, w, c, top);
	}
	if (rest > 0) {
		name = gms_asprintf("(%zu other frame%s)", rest, rest == 1 ? "" : "s");
		text_line(f, w, rb, rc, w->n[node].depth, name);
		free(name);
	}
}

void
stack_view_text(FILE *f, const struct stack_view *w, size_t top)
{
	fprintf(f, "  %10s %7s %7s  %s\n", "bytes", "share", "count",
	    "stack (callers above callees, one space deeper per call)");
	if (w->n[0].first == 0)
		fputs("  (nothing live)\n", f);
	text_children(f, w, 0, top ? top : 1);
}

static cJSON *
json_node(const struct stack_view *w, uint32_t node)
{
	cJSON *o = cJSON_CreateObject(), *kids;
	uint32_t c;

	if (node != 0)
		cJSON_AddStringToObject(o, "frame", w->n[node].frame);
	cJSON_AddNumberToObject(o, "bytes", (double)w->n[node].bytes);
	cJSON_AddNumberToObject(o, "count", (double)w->n[node].count);
	kids = cJSON_AddArrayToObject(o, "children");
	for (c = w->n[node].first; c != 0; c = w->n[c].next)
		cJSON_AddItemToArray(kids, json_node(w, c));
	return o;
}

cJSON *
stack_view_json(const struct stack_view *w)
{
	return json_node(w, 0);
}

struct leaves {
	const struct stack_view *w;
	void (*fn)(void *arg, const struct stack_leaf *l);
	void *arg;
	const char **frames;
	size_t cap;
};

static void
leaves_walk(struct leaves *lv, uint32_t node)
{
	const struct vnode *n = &lv->w->n[node];
	uint32_t c, k;

	if (node != 0 && n->self_count > 0) {
		if (n->depth > lv->cap)
			lv->frames = gms_realloc(lv->frames, (lv->cap = 2 * n->depth) *
			    sizeof(*lv->frames));
		for (c = node, k = n->depth; c != 0; c = lv->w->n[c].parent)
			lv->frames[--k] = lv->w->n[c].frame;
		lv->fn(lv->arg, &(struct stack_leaf){ .frames = lv->frames, .nframes = n->depth,
		    .bytes = n->self_bytes, .count = n->self_count, .first = n->ev_first,
		    .last = n->ev_last });
	}
	for (c = n->first; c != 0; c = lv->w->n[c].next)
		leaves_walk(lv, c);
}

void
stack_view_leaves(const struct stack_view *w, void (*fn)(void *arg, const struct stack_leaf *l),
    void *arg)
{
	struct leaves lv = { .w = w, .fn = fn, .arg = arg };

	leaves_walk(&lv, 0);
	free(lv.frames);
}

char *
stack_leaf_folded(const struct stack_leaf *l)
{
	size_t n = 0, i, k = 0;
	const char *p;
	char *s;

	for (i = 0; i < l->nframes; i++)
		n += strlen(l->frames[i]) + 1;
	s = gms_malloc(n + 1);
	for (i = 0; i < l->nframes; i++) {
		if (i > 0)
			s[k++] = ';';
		for (p = l->frames[i]; *p != '\0'; p++)
			s[k++] = *p == ';' ? ',' : *p;
	}
	s[k] = '\0';
	return s;
}

static void
folded_line(void *arg, const struct stack_leaf *l)
{
	char *path = stack_leaf_folded(l);

	fprintf(arg, "%s %llu\n", path, (unsigned long long)l->bytes);
	free(path);
}

void
stack_view_folded(FILE *f, const struct stack_view *w)
{
	stack_view_leaves(w, folded_line, f);
}

/* --- the icicle graph --------------------------------------------------- */

#define SVG_WIDTH 1200.0
#define SVG_ROW 17.0
#define SVG_TOP 44.0
#define SVG_CHAR 6.6		/* an 11 px sans-serif character, about */

static void
xml_text(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				fputc('?', f);
			else
				fputc(*s, f);
		}
	}
}

/*
 * A frame's colour: the program's own Python lines blue, libraries' Python
 * yellow, C++ red, each frame's shade from its text so that neighbours differ.
 */
static void
fill(FILE *f, const char *frame)
{
	uint32_t h = 2166136261u;
	const char *p;
	int shade;

	for (p = frame; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	shade = (int)(h % 56);
	if (strstr(frame, ".py:") == NULL && strstr(frame, ".py ") == NULL)
		fprintf(f, "rgb(%d,%d,%d)", 230, 90 + shade, 60 + shade / 2);
	else if (strstr(frame, "-packages/") != NULL || strstr(frame, "/lib/python") != NULL)
		fprintf(f, "rgb(%d,%d,%d)", 225, 190 + shade / 2, 70 + shade);
	else
		fprintf(f, "rgb(%d,%d,%d)", 80 + shade, 150 + shade, 230);
}

static void
svg_node(FILE *f, const struct stack_view *w, uint32_t node, double x, double scale,
    double min_px)
{
	const struct vnode *v = &w->n[node];
	double width = (double)v->bytes * scale, y = SVG_TOP + (v->depth - 1) * SVG_ROW;
	char size[32], buf[1024];
	size_t fit;
	uint32_t c;

	if (width < min_px)
		return;		/* nor anything under it: narrower still */
	gms_fmt_size(v->bytes, size, sizeof(size));
	fputs("<g><title>", f);
	xml_text(f, v->frame);
	fprintf(f, "\n%s (%.2f%%), %llu allocation%s</title><rect x=\"%.2f\" y=\"%.1f\" "
	    "width=\"%.2f\" height=\"%.1f\" rx=\"2\" fill=\"", size, w->n[0].bytes ? 100.0 *
	    (double)v->bytes / (double)w->n[0].bytes : 0.0, (unsigned long long)v->count,
	    v->count == 1 ? "" : "s", x, y, width, SVG_ROW - 1);
	fill(f, v->frame);
	fputs("\"/>", f);
	fit = (size_t)((width - 6) / SVG_CHAR);
	if (fit >= 3) {
		stack_frame_shown(v->frame, buf, sizeof(buf));
		if (strlen(buf) > fit)
			snprintf(buf + fit - 2, 3, "..");
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + SVG_ROW - 5);
		xml_text(f, buf);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
	for (c = v->first; c != 0; c = w->n[c].next) {
		svg_node(f, w, c, x, scale, min_px);
		x += (double)w->n[c].bytes * scale;
	}
}

void
stack_view_svg(FILE *f, const struct stack_view *w, const char *title, double min_px,
    int in_html)
{
	double height = SVG_TOP + (w->maxdepth ? w->maxdepth : 1) * SVG_ROW + 30;
	double scale = w->n[0].bytes ? (SVG_WIDTH - 20) / (double)w->n[0].bytes : 0;
	double x = 10;
	char size[32];
	uint32_t c;

	gms_fmt_size(w->n[0].bytes, size, sizeof(size));
	fprintf(f, "%s<svg %sxmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	    "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\" font-size=\"11\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdfd\"/>\n"
	    "<text x=\"%.0f\" y=\"20\" font-size=\"15\" text-anchor=\"middle\">",
	    in_html ? "" : "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
	    in_html ? "class=\"flame\" " : "", SVG_WIDTH, height, SVG_WIDTH, height, SVG_WIDTH / 2);
	xml_text(f, title);
	fprintf(f, "</text>\n<text x=\"%.0f\" y=\"36\" text-anchor=\"middle\" fill=\"#555\">"
	    "%s live in %llu allocation%s; callers above callees, widths in bytes; hover for "
	    "each frame's bytes</text>\n", SVG_WIDTH / 2, size, (unsigned long long)w->n[0].count,
	    w->n[0].count == 1 ? "" : "s");
	for (c = w->n[0].first; c != 0; c = w->n[c].next) {
		svg_node(f, w, c, x, scale, min_px);
		x += (double)w->n[c].bytes * scale;
	}
	fprintf(f, "<text x=\"10\" y=\"%.0f\" fill=\"#555\">blue: the program's own Python; "
	    "yellow: libraries' Python; red: C++</text>\n</svg>\n", height - 10);
}
