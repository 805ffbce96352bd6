/*
 * kineto-stacks.c - a profile's spans as the call stacks of its [memory]
 * events (kineto-stacks.h).  Spans are kept compactly while the file is
 * read (their names interned), then sorted by thread and start, and swept
 * once with the points in time order: a stack of the spans open at each
 * point.  A Python span's name "path(line): func" becomes the snapshot
 * reader's frame "path:line func", so both kinds of recording read alike.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "sim/gms.h"
#include "traces/kineto-stacks.h"
#include "traces/reader.h"

#define BACKWARD "autograd::engine::evaluate_function: "

struct istr {
	UT_hash_handle hh;
	char s[];
};

/* A span's name as written, and the frame it makes (spans repeat their names). */
struct rawname {
	UT_hash_handle hh;
	const char *frame;
	int python;
	char s[];
};

/* 32 bytes: a profile of a gigabyte holds a few million */
struct span {
	double start, end;
	const char *name;	/* interned frame */
	uint32_t thread;	/* its (pid, tid)'s number (struct thread) */
	uint8_t python;		/* a Python function's frame */
};

/* The threads spans were seen on, numbered in order of appearance. */
struct thread {
	UT_hash_handle hh;
	int64_t key[2];		/* pid, tid */
	uint32_t no;
};

struct kstacks {
	struct span *spans;
	size_t n, cap;
	struct rawname *raw;
	struct thread *threads;
	uint32_t nthreads;
	struct istr *names, *stacks;
	uint64_t text, left_out;
};

struct kstacks *
kstacks_new(void)
{
	return gms_calloc(1, sizeof(struct kstacks));
}

static void
drop(struct istr **head)
{
	struct istr *e, *tmp;

	HASH_ITER(hh, *head, e, tmp) {
		HASH_DEL(*head, e);
		free(e);
	}
}

void
kstacks_free(struct kstacks *s)
{
	if (s == NULL)
		return;
	{
		struct rawname *e, *tmp;

		HASH_ITER(hh, s->raw, e, tmp) {
			HASH_DEL(s->raw, e);
			free(e);
		}
	}
	{
		struct thread *t, *tmp;

		HASH_ITER(hh, s->threads, t, tmp) {
			HASH_DEL(s->threads, t);
			free(t);
		}
	}
	drop(&s->names);
	drop(&s->stacks);
	free(s->spans);
	free(s);
}

static const char *
intern(struct istr **head, const char *str, size_t len)
{
	struct istr *e;

	HASH_FIND(hh, *head, str, len, e);
	if (e == NULL) {
		e = gms_malloc(sizeof(*e) + len + 1);
		memcpy(e->s, str, len);
		e->s[len] = '\0';
		HASH_ADD_KEYPTR(hh, *head, e->s, len, e);
	}
	return e->s;
}

int
kstacks_wanted(const char *bytes, size_t len)
{
	const char *c = memmem(bytes, len, "\"cat\"", 5), *end = bytes + len;

	if (c == NULL)
		return 0;
	for (c += 5; c < end && (*c == ' ' || *c == ':' || *c == '\t' || *c == '\n' ||
	    *c == '\r'); c++)
		;
	if (c >= end || *c++ != '"')
		return 0;
#define IS(w) ((size_t)(end - c) > sizeof(w) - 1 && memcmp(c, w "\"", sizeof(w)) == 0)
	return IS("python_function") || IS("cpu_op") || IS("user_annotation");
#undef IS
}

/*
 * The frame of a span: "path(123): func" as "path:123 func"; anything else
 * as it is, on one line.  *python: the former.
 */
static const char *
frame_of(struct kstacks *s, const char *name, int *python)
{
	const char *close = strstr(name, "): "), *open;
	char *f, *at;
	const char *r;
	size_t i;

	*python = 0;
	if (close != NULL) {
		for (open = close; open > name && open[-1] >= '0' && open[-1] <= '9'; open--)
			;
		if (open < close && open > name + 1 && open[-1] == '(') {
			*python = 1;
			f = gms_asprintf("%.*s:%.*s %s", (int)(open - 1 - name), name,
			    (int)(close - open), open, close + 3);
		} else {
			f = gms_strdup(name);
		}
	} else {
		f = gms_strdup(name);
	}
	/* "<built-in method to of Parameter object at 0x7f...>": one frame for every object */
	if (f[0] == '<' && (at = strstr(f, " at 0x")) != NULL &&
	    at[6 + strspn(at + 6, "0123456789abcdefABCDEF")] == '>')
		memmove(at, at + 6 + strspn(at + 6, "0123456789abcdefABCDEF"),
		    strlen(at + 6 + strspn(at + 6, "0123456789abcdefABCDEF")) + 1);
	for (i = 0; f[i] != '\0'; i++)
		if (f[i] == '\n' || f[i] == '\r')
			f[i] = ' ';
	r = i > 0 ? intern(&s->names, f, i) : NULL;
	free(f);
	return r;
}

/* A span's fields, however they were read; kept when it is one of the kinds wanted. */
static void
add_span(struct kstacks *s, const char *ph, const char *cat, const char *name, double pid,
    double tid, double ts, double dur)
{
	struct span sp = { 0 };
	struct rawname *r;
	size_t len;

	if (strcmp(ph, "X") != 0 || (strcmp(cat, "python_function") != 0 &&
	    strcmp(cat, "cpu_op") != 0 && strcmp(cat, "user_annotation") != 0) ||
	    !isfinite(ts) || !(dur >= 0) || !isfinite(dur) ||
	    !(fabs(pid) < 9007199254740992.0) || pid != floor(pid) ||
	    !(fabs(tid) < 9007199254740992.0) || tid != floor(tid))
		return;
	len = strlen(name);
	HASH_FIND(hh, s->raw, name, len, r);
	if (r == NULL) {
		r = gms_malloc(sizeof(*r) + len + 1);
		memcpy(r->s, name, len + 1);
		r->frame = frame_of(s, name, &r->python);
		HASH_ADD_KEYPTR(hh, s->raw, r->s, len, r);
	}
	if ((sp.name = r->frame) == NULL)
		return;
	sp.python = r->python;
	{
		int64_t key[2] = { (int64_t)pid, (int64_t)tid };
		struct thread *t;

		HASH_FIND(hh, s->threads, key, sizeof(key), t);
		if (t == NULL) {
			if (s->nthreads == UINT32_MAX)
				return;
			t = gms_calloc(1, sizeof(*t));
			memcpy(t->key, key, sizeof(key));
			t->no = s->nthreads++;
			HASH_ADD(hh, s->threads, key, sizeof(t->key), t);
		}
		sp.thread = t->no;
	}
	sp.start = ts;
	sp.end = ts + dur;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->spans = gms_realloc(s->spans, s->cap * sizeof(*s->spans));
	}
	s->spans[s->n++] = sp;
}

void
kstacks_collect(struct kstacks *s, const cJSON *ev)
{
	const cJSON *ph = cJSON_GetObjectItemCaseSensitive(ev, "ph");
	const cJSON *cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(ev, "name");
	const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "dur");
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
	const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");

	if (cJSON_IsString(ph) && cJSON_IsString(cat) && cJSON_IsString(name) &&
	    cJSON_IsNumber(ts) && cJSON_IsNumber(dur) && cJSON_IsNumber(pid) &&
	    cJSON_IsNumber(tid))
		add_span(s, ph->valuestring, cat->valuestring, name->valuestring,
		    pid->valuedouble, tid->valuedouble, ts->valuedouble, dur->valuedouble);
}

/*
 * The fast path (kstacks-scan.c's): one flat pass over an element's bytes.
 * Returns 1 when it read the element whole (a span kept, or not one), 0
 * when unsure (an escape, a repeated key, anything odd): then cJSON reads
 * it, and kstacks_collect decides.
 */
enum { F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_N };
static const char *const fields[F_N] = { "ph", "cat", "name", "pid", "tid", "ts", "dur" };
static const size_t flen[F_N] = { 2, 3, 4, 3, 3, 2, 3 };

/* Past a JSON value at b[i]; (size_t)-1 when it cannot tell. */
static size_t
skip_value(const char *b, size_t n, size_t i)
{
	int depth = 0;

	do {
		if (i >= n)
			return (size_t)-1;
		if (b[i] == '"') {
			for (i++; i < n && b[i] != '"'; i++)
				if (b[i] == '\\')
					i++;
			if (i >= n)
				return (size_t)-1;
			i++;
		} else if (b[i] == '{' || b[i] == '[') {
			depth++;
			i++;
		} else if (b[i] == '}' || b[i] == ']') {
			if (depth == 0)
				return i;
			depth--;
			i++;
		} else if (depth == 0 && b[i] == ',') {
			return i;
		} else {
			i++;
		}
	} while (depth > 0 || (i < n && b[i] != ',' && b[i] != '}'));
	return i;
}

int
kstacks_scan(struct kstacks *s, const char *b, size_t n)
{
	const char *str[F_N] = { 0 };
	size_t slen[F_N] = { 0 }, i = 0, k0, kl, v0;
	double num[F_N] = { 0 };
	char buf[F_N][512], nb[48];
	unsigned seen = 0;
	int f;

#define WS() while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) i++
	WS();
	if (i >= n || b[i++] != '{')
		return 0;
	for (;;) {
		WS();
		if (i >= n || b[i] != '"')
			return 0;
		k0 = ++i;
		while (i < n && b[i] != '"' && b[i] != '\\')
			i++;
		if (i >= n || b[i] != '"')
			return 0;
		kl = i++ - k0;
		WS();
		if (i >= n || b[i++] != ':')
			return 0;
		WS();
		for (f = 0; f < F_N; f++)
			if (flen[f] == kl && memcmp(b + k0, fields[f], kl) == 0)
				break;
		if (f < F_N) {
			if (seen & (1u << f))
				return 0;
			seen |= 1u << f;
			v0 = i;
			if (f <= F_NAME) {	/* a string without escapes, short */
				if (i >= n || b[i] != '"')
					return 0;
				for (i++; i < n && b[i] != '"' && b[i] != '\\'; i++)
					;
				if (i >= n || b[i] != '"' || i - v0 - 1 >= sizeof(buf[0]))
					return 0;
				slen[f] = i - v0 - 1;
				memcpy(buf[f], b + v0 + 1, slen[f]);
				buf[f][slen[f]] = '\0';
				str[f] = buf[f];
				i++;
			} else {		/* a plain number */
				while (i < n && ((b[i] >= '0' && b[i] <= '9') || b[i] == '.' ||
				    b[i] == '-' || b[i] == '+' || b[i] == 'e' || b[i] == 'E'))
					i++;
				if (i == v0 || i - v0 >= sizeof(nb))
					return 0;
				memcpy(nb, b + v0, i - v0);
				nb[i - v0] = '\0';
				num[f] = strtod(nb, NULL);
			}
		} else if ((i = skip_value(b, n, i)) == (size_t)-1) {
			return 0;
		}
		WS();
		if (i < n && b[i] == ',') {
			i++;
			continue;
		}
		if (i < n && b[i] == '}')
			break;
		return 0;
	}
#undef WS
	/* a name with a NUL in it, or any field missing: cJSON's to judge */
	if (seen != (1u << F_N) - 1 || memchr(b, '\0', n) != NULL)
		return 0;
	(void)slen;
	add_span(s, str[F_PH], str[F_CAT], str[F_NAME], num[F_PID], num[F_TID], num[F_TS],
	    num[F_DUR]);
	return 1;
}

size_t
kstacks_spans(const struct kstacks *s)
{
	return s->n;
}

uint64_t
kstacks_left_out(const struct kstacks *s)
{
	return s->left_out;
}

/* By thread, then start, the longer first (an enclosing span before those it holds). */
static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* A point's place in the sweep: its thread's number (UINT32_MAX: none), time and index. */
struct at_point {
	uint32_t thread;
	double ts;
	size_t i;
};

static int
point_cmp(const void *a, const void *b)
{
	const struct at_point *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Whether a Python frame is the user's: not torch's own and not an
 * installed package's (the site a person can change).
 */
static int
users_frame(const char *f)
{
	return strncmp(f, "torch/", 6) != 0 && strstr(f, "/torch/") == NULL &&
	    strstr(f, "site-packages/") == NULL && strstr(f, "dist-packages/") == NULL;
}

/*
 * The open spans (outermost first) as a stack, innermost first, and its
 * site: user, the innermost user's Python frame among them (or NULL), kept
 * as spans open and close so that a deep stack is not walked at each point.
 */
static void
stack_of(struct kstacks *s, struct span *const *open, size_t n, const struct span *user,
    struct kstack_point *p)
{
	char *text = NULL;
	size_t len = 0, cap = 0, k, fl;
	const char *f;

	p->stack = p->at = NULL;
	if (n == 0)
		return;
	if (user != NULL)
		p->at = user->name;
	/* on the autograd thread: the backward op, as a snapshot names it */
	if (p->at == NULL && strncmp(open[0]->name, BACKWARD, sizeof(BACKWARD) - 1) == 0) {
		char *b = gms_asprintf("%s (backward)", open[0]->name + sizeof(BACKWARD) - 1);

		p->at = intern(&s->names, b, strlen(b));
		free(b);
	}
	for (k = 0; k < n; k++) {
		/* innermost half, the gap, outermost half */
		if (n > STACK_FRAMES && k == STACK_FRAMES / 2) {
			f = STACK_GAP;
			k = n - STACK_FRAMES / 2 - 1;
		} else {
			f = open[n - 1 - k]->name;
		}
		fl = strlen(f);
		if (len + fl + 2 > cap)
			text = gms_realloc(text, cap = 2 * (len + fl + 2) + 256);
		memcpy(text + len, f, fl);
		text[len + fl] = '\n';
		len += fl + 1;
	}
	{
		struct istr *e;

		HASH_FIND(hh, s->stacks, text, len, e);
		if (e != NULL) {
			p->stack = e->s;
		} else if (s->text + len > KSTACKS_TEXT_MAX) {
			s->left_out++;
		} else {
			s->text += len;
			p->stack = intern(&s->stacks, text, len);
		}
	}
	free(text);
}

void
kstacks_assign(struct kstacks *s, struct kstack_point *pts, size_t n)
{
	size_t i, si = 0, nopen = 0, capopen = 64;
	struct at_point *order;
	struct span **open, **user;	/* user[k]: the innermost user's frame of open[0..k] */

	if (s->n == 0 || n == 0)
		return;
	qsort(s->spans, s->n, sizeof(*s->spans), span_cmp);
	order = gms_calloc(n, sizeof(*order));
	for (i = 0; i < n; i++) {
		int64_t key[2] = { pts[i].pid, pts[i].tid };
		struct thread *t;

		HASH_FIND(hh, s->threads, key, sizeof(key), t);
		order[i] = (struct at_point){ t != NULL ? t->no : UINT32_MAX, pts[i].ts, i };
	}
	qsort(order, n, sizeof(*order), point_cmp);
	open = gms_calloc(capopen, sizeof(*open));
	user = gms_calloc(capopen, sizeof(*user));
	for (i = 0; i < n; i++) {
		struct kstack_point *p = &pts[order[i].i];
		uint32_t th = order[i].thread;

		if (i == 0 || order[i - 1].thread != th) {
			nopen = 0;
			while (si < s->n && s->spans[si].thread < th)
				si++;
		}
		while (si < s->n && s->spans[si].thread == th && s->spans[si].start <= p->ts) {
			while (nopen > 0 && open[nopen - 1]->end < s->spans[si].start)
				nopen--;
			if (nopen == capopen) {
				capopen *= 2;
				open = gms_realloc(open, capopen * sizeof(*open));
				user = gms_realloc(user, capopen * sizeof(*user));
			}
			open[nopen] = &s->spans[si++];
			user[nopen] = open[nopen]->python && users_frame(open[nopen]->name) ?
			    open[nopen] : nopen > 0 ? user[nopen - 1] : NULL;
			nopen++;
		}
		while (nopen > 0 && open[nopen - 1]->end < p->ts)
			nopen--;
		stack_of(s, open, nopen, nopen > 0 ? user[nopen - 1] : NULL, p);
	}
	free(user);
	free(open);
	free(order);
	free(s->spans);
	s->spans = NULL;
	s->n = s->cap = 0;
}
