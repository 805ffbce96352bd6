/*
 * scale.c - building a job at a value nobody ran (traces/scale.h), on traces
 * worked by hand: each form a size can take (constant, affine, c V^2 from two
 * recordings, any quadratic from three, none from four), an allocation only
 * in the recording followed, sizes that are no tensor's (a library's
 * choice), a fit that falls below zero, a reduction's staging buffer that
 * stops growing (seen stopped, or left open at either end), a recording
 * that took another path through a site, the recording followed (the
 * nearest), how far beyond the recordings, and what is refused (one
 * recording, a value twice, recordings of two different jobs, a value past
 * 1024 times the largest, a recording that ran out of memory).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "traces/scale.h"
#include "t/tap.h"
#include "traces/trace.h"
#include "traces/tracemem.h"

struct ev {
	char op;		/* 'a' alloc, 'f' free, 'm' mark */
	uint64_t id, size;
	const char *at;
};

static struct trace_mem *
make(const char *name, const struct ev *e, size_t n, int ends_in_oom)
{
	struct trace_header h = { .name = name, .format = "json", .ends_in_oom = ends_in_oom };
	struct trace_mem *m = trace_mem_new(name, &h);
	struct trace_event ev;
	char *cause = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.op = e[i].op == 'a' ? TRACE_ALLOC : e[i].op == 'f' ? TRACE_FREE : TRACE_MARK;
		ev.id = e[i].id;
		ev.size = e[i].size;
		ev.at = e[i].at;
		ev.label = e[i].op == 'm' ? "step" : NULL;
		ev.flags = TRACE_HAS_TIME;
		ev.t_us = (int64_t)i * 10;
		if (trace_mem_append(m, &ev, &cause) < 0)
			abort();
	}
	return m;
}

/* sizes of the allocations of t, in order, as "a b c" */
static char *
sizes(const struct trace_mem *t)
{
	static char buf[512];
	struct trace_event ev;
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < trace_mem_count(t); i++) {
		trace_mem_event(t, i, &ev);
		if (ev.op == TRACE_ALLOC)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu", len ? " " : "",
			    (unsigned long long)ev.size);
	}
	return buf;
}

/*
 * A job at value V: weights 1024 B (constant), activations 1000 V + 512 B
 * (affine), attention scores 256 V^2 B, a workspace of 4096 V B only when
 * V >= 4 (the framework adds it above a size), freed in that order.
 */
static struct trace_mem *
job(uint64_t v, int oom)
{
	struct ev e[12];
	size_t n = 0;
	char name[32];

	snprintf(name, sizeof(name), "job-%llu", (unsigned long long)v);
	e[n++] = (struct ev){ 'a', 1, 1024, "model.py:10 weights" };
	e[n++] = (struct ev){ 'm', 0, 0, NULL };
	e[n++] = (struct ev){ 'a', 2, 1000 * v + 512, "model.py:20 forward" };
	e[n++] = (struct ev){ 'a', 3, 256 * v * v, "model.py:30 attention" };
	if (v >= 4)
		e[n++] = (struct ev){ 'a', 4, 4096 * v, "reduce.cu workspace" };
	e[n++] = (struct ev){ 'f', 3, 0, NULL };
	if (v >= 4)
		e[n++] = (struct ev){ 'f', 4, 0, NULL };
	e[n++] = (struct ev){ 'f', 2, 0, NULL };
	return make(name, e, n, oom);
}

int
main(void)
{
	struct trace_mem *j2 = job(2, 0), *j4 = job(4, 0), *j6 = job(6, 0), *t = NULL;
	struct scale_model *m = NULL;
	struct scale_built b;
	char *cause = NULL;
	size_t aligned, allocs;
	long edits;
	int rc;

	/* from 2 and 4 */
	{
		struct scale_rec r[] = { { "j4", 4, j4 }, { "j2", 2, j2 } };

		rc = scale_model_new(r, 2, &m, &cause);
		ok(rc == 0, "two recordings taken (%s)", rc ? cause : "ok");
		is_str(scale_rec_at(m, 0)->path, "j2", "... sorted by value");
		ok(scale_alignment(m, 1, 0, &aligned, &allocs, &edits, &cause) == 0 &&
		    aligned == 3 && allocs == 4 && edits == 2,
		    "the recording at 4 against 2: 3 of its 4 allocations align, 2 edits "
		    "(its workspace's alloc and free)");
		rc = scale_build(m, 8, &t, &b, &cause);
		/*
		 * at 8, after the recording at 4 (the nearest): weights 1024;
		 * activations 8512 = 1000 x 8 + 512; scores 256 x 64 = 16384
		 * (4096 = 1024 x 4: c V^2 through both); the workspace 16384 x 8 / 4 =
		 * 32768 (only at 4: in proportion)
		 */
		is_str(rc == 0 ? sizes(t) : cause, "1024 8512 16384 32768", "at 8: every size by its form");
		ok(b.base == 1 && b.forms[SCALE_CONST] == 1 && b.forms[SCALE_AFFINE] == 1 &&
		    b.forms[SCALE_QUADRATIC] == 1 && b.forms[SCALE_UNALIGNED] == 1,
		    "... one of each form, the workspace unaligned");
		is_u64(b.unaligned_bytes, 32768, "... its bytes said");
		ok(b.beyond == 2.0, "... 2 times beyond the recordings (%g)", b.beyond);
		is_u64(trace_mem_count(t), 8, "... the recording at 4's 8 events, the mark kept");
		trace_mem_free(t);
		rc = scale_build(m, 3, &t, &b, &cause);
		/* 3 is as near 2 as 4: the larger is followed */
		is_str(rc == 0 ? sizes(t) : cause, "1024 3512 2304 12288",
		    "at 3 (a tie: the larger recording followed): 1000 x 3 + 512, 256 x 9, 4096 x 3");
		ok(b.beyond == 0, "... inside the recordings");
		trace_mem_free(t);
		rc = scale_build(m, 1, &t, &b, &cause);
		is_str(rc == 0 ? sizes(t) : cause, "1024 1512 256", "at 1: after the recording at 2, no workspace");
		ok(b.beyond == 2.0 && b.base == 0, "... 2 times below the smallest recording");
		trace_mem_free(t);
		ok(scale_build(m, 4 * 1024 + 1, &t, &b, &cause) == GMS_ECONFIG && t == NULL &&
		    strstr(cause, "outside what the recordings can say (1 to 4096: 1024 times") != NULL,
		    "past 1024 times the largest recorded value: refused");
		free(cause);
		cause = NULL;
		scale_model_free(m);
	}
	/* three recordings: any quadratic; four that fit none */
	{
		const struct ev q2[] = { { 'a', 1, 132, "q" } }, q4[] = { { 'a', 1, 188, "q" } },
		    q6[] = { { 'a', 1, 268, "q" } }, q8[] = { { 'a', 1, 400, "q" } };
		struct trace_mem *a = make("q2", q2, 1, 0), *bb = make("q4", q4, 1, 0),
		    *c = make("q6", q6, 1, 0), *d = make("q8", q8, 1, 0);
		struct scale_rec r[] = { { "q2", 2, a }, { "q4", 4, bb }, { "q6", 6, c }, { "q8", 8, d } };

		/* 100 + 10 V + 3 V^2: 132, 188, 268; at 10: 100 + 100 + 300 = 500 */
		ok(scale_model_new(r, 3, &m, &cause) == 0 && scale_build(m, 10, &t, &b, &cause) == 0,
		    "three recordings");
		is_str(sizes(t), "500", "100 + 10 V + 3 V^2 from 2, 4, 6: 500 at 10");
		ok(b.forms[SCALE_QUADRATIC] == 1, "... quadratic");
		trace_mem_free(t);
		scale_model_free(m);
		/* 400 at 8 is not 100 + 80 + 192 = 372: no form; the three nearest 10 are 4, 6, 8 */
		ok(scale_model_new(r, 4, &m, &cause) == 0 && scale_build(m, 10, &t, &b, &cause) == 0,
		    "four recordings");
		/* through (4,188) (6,268) (8,400): 188 + 40 (V-4) + 13/2 (V-4)(V-6) at 10: 188+240+156 = 584 */
		is_str(sizes(t), "584", "... fit by the quadratic through the three nearest: 584 at 10");
		ok(b.forms[SCALE_NOFIT] == 1 && b.first_nofit == 0, "... and said to fit no form");
		trace_mem_free(t);
		scale_model_free(m);
		trace_mem_free(a);
		trace_mem_free(bb);
		trace_mem_free(c);
		trace_mem_free(d);
	}
	/*
	 * Sizes that do not grow as a tensor of the value: from two recordings a
	 * shrinking one (2048 at 2, 1024 at 4) or one growing faster than the
	 * value yet not as its square (1000 at 2, 3000 at 4) is a library's
	 * choice, kept at its larger; from three, an affine fall below zero
	 * (3072, 2048, 1024 at 2, 4, 6: -1024 at 10) raised to the least seen.
	 */
	{
		const struct ev d2[] = { { 'a', 1, 2048, "x" }, { 'a', 2, 1000, "y" } },
		    d4[] = { { 'a', 1, 1024, "x" }, { 'a', 2, 3000, "y" } },
		    e2[] = { { 'a', 1, 3072, "x" } }, e4[] = { { 'a', 1, 2048, "x" } },
		    e6[] = { { 'a', 1, 1024, "x" } };
		struct trace_mem *a = make("d2", d2, 2, 0), *c = make("d4", d4, 2, 0),
		    *x = make("e2", e2, 1, 0), *y = make("e4", e4, 1, 0), *z = make("e6", e6, 1, 0);
		struct scale_rec r[] = { { "d2", 2, a }, { "d4", 4, c } },
		    three[] = { { "e2", 2, x }, { "e4", 4, y }, { "e6", 6, z } };

		ok(scale_model_new(r, 2, &m, &cause) == 0 && scale_build(m, 8, &t, &b, &cause) == 0,
		    "two sizes that are not a tensor's");
		is_str(sizes(t), "2048 3000", "... each kept at its larger at 8");
		ok(b.forms[SCALE_NOFIT] == 2 && b.clamped == 0, "... and said to fit no form");
		trace_mem_free(t);
		scale_model_free(m);
		ok(scale_model_new(three, 3, &m, &cause) == 0 && scale_build(m, 10, &t, &b, &cause) == 0,
		    "an affine fall");
		is_str(sizes(t), "1024", "... -1024 at 10, raised to the least seen, 1024");
		ok(b.forms[SCALE_AFFINE] == 1 && b.clamped == 1, "... affine, and counted as raised");
		trace_mem_free(t);
		scale_model_free(m);
		trace_mem_free(a);
		trace_mem_free(c);
		trace_mem_free(x);
		trace_mem_free(y);
		trace_mem_free(z);
	}
	/*
	 * What two recordings leave open, and a third settles (issue 57): a
	 * reduction's staging buffer, 1024 V B up to the GPU's cap of 6144 B
	 * (the largest recorded, 8, is past it); a site whose kernel takes
	 * another path above V 2 (one buffer at 2, a sort's two from 4 on: at
	 * 4, 8 the first is 512 V, the second constant 3000).
	 */
	{
		const struct ev c2[] = { { 'a', 1, 2048, "void at::native::gpu_reduce_kernel<float>" },
		    { 'a', 2, 100, "Embedding (backward)" } },
		    c4[] = { { 'a', 1, 4096, "void at::native::gpu_reduce_kernel<float>" },
		    { 'a', 2, 2048, "Embedding (backward)" }, { 'a', 3, 3000, "Embedding (backward)" } },
		    c8[] = { { 'a', 1, 6144, "void at::native::gpu_reduce_kernel<float>" },
		    { 'a', 2, 4096, "Embedding (backward)" }, { 'a', 3, 3000, "Embedding (backward)" } };
		struct trace_mem *a = make("c2", c2, 2, 0), *c = make("c4", c4, 3, 0),
		    *d = make("c8", c8, 3, 0);
		struct scale_rec two[] = { { "c2", 2, a }, { "c4", 4, c } },
		    three[] = { { "c2", 2, a }, { "c4", 4, c }, { "c8", 8, d } };

		ok(scale_model_new(two, 2, &m, &cause) == 0 &&
		    scale_build_bound(m, 16, SCALE_FIT, &t, &b, &cause) == 0,
		    "from 2 and 4, at 16");
		/*
		 * reduction 1024 V = 16384; the site's first buffer, paired with the
		 * other path's at 2 (100, 2048: faster than V), no form, its larger
		 * kept; the second only at 4: 3000 x 16 / 4
		 */
		is_str(sizes(t), "16384 2048 12000", "... the fit: the reduction affine, the new buffer in proportion");
		ok(b.uncapped == 1 && b.first_uncapped == 0 && b.forms[SCALE_UNALIGNED] == 1,
		    "... one reduction grown past the recordings, one allocation only at 4: both said");
		trace_mem_free(t);
		ok(scale_build_bound(m, 16, SCALE_LOW, &t, &b, &cause) == 0, "... and at its low end");
		is_str(sizes(t), "4096 2048 3000", "... the reduction held at the largest recorded, the new buffer as recorded");
		trace_mem_free(t);
		ok(scale_build_bound(m, 3, SCALE_LOW, &t, &b, &cause) == 0 && b.uncapped == 0,
		    "... inside the recordings no reduction is left open");
		trace_mem_free(t);
		scale_model_free(m);
		ok(scale_model_new(three, 3, &m, &cause) == 0 &&
		    scale_build_bound(m, 16, SCALE_LOW, &t, &b, &cause) == 0,
		    "from 2, 4 and 8, at 16");
		/*
		 * the reduction 2048, 4096, 6144: 1024 V stopped at 6144, exactly;
		 * the sort path's buffers from 4 and 8 alone (the recording at 2 made
		 * one allocation there, not two): 512 V = 8192 and 3000
		 */
		is_str(sizes(t), "6144 8192 3000", "... the cap seen, the other path's recording left out");
		ok(b.forms[SCALE_CAPPED] == 1 && b.forms[SCALE_AFFINE] == 1 && b.forms[SCALE_CONST] == 1 &&
		    b.uncapped == 0 && b.forms[SCALE_UNALIGNED] == 0, "... capped, affine, constant: nothing left open");
		is_str(scale_form_name(SCALE_CAPPED), "capped", "... the form's name");
		trace_mem_free(t);
		ok(scale_build(m, 6, &t, &b, &cause) == 0, "... at 6, between them");
		is_str(sizes(t), "6144 3072 3000", "... 1024 x 6 is the cap itself");
		trace_mem_free(t);
		scale_model_free(m);
		trace_mem_free(a);
		trace_mem_free(c);
		trace_mem_free(d);
	}
	/* refusals */
	{
		const struct ev o1[] = { { 'a', 1, 100, "a" }, { 'a', 2, 100, "b" }, { 'a', 3, 100, "c" } },
		    o2[] = { { 'a', 1, 100, "x" }, { 'a', 2, 100, "y" }, { 'a', 3, 100, "c" } };
		struct trace_mem *a = make("o1", o1, 3, 0), *c = make("o2", o2, 3, 0), *oom = job(8, 1);
		struct scale_rec r[] = { { "o1", 2, a }, { "o2", 4, c } };
		struct scale_rec same[] = { { "j2", 2, j2 }, { "j4", 2, j4 } };
		struct scale_rec one[] = { { "j2", 2, j2 } };
		struct scale_rec ran_out[] = { { "j2", 2, j2 }, { "j8", 8, oom } };

		ok(scale_model_new(r, 2, &m, &cause) == 0, "two jobs taken at first");
		ok(scale_build(m, 4, &t, &b, &cause) == GMS_ETRACE && strstr(cause, "not one job") &&
		    strstr(cause, "part at event 0 (alloc at x)"),
		    "... but only 1 of 3 allocations align: refused, saying where");
		free(cause);
		cause = NULL;
		scale_model_free(m);
		{
			/* ten marks in common, then 1 of 4 allocations: few edits, too few aligned */
			struct ev h1[14], h2[12];
			struct trace_mem *p1, *p2;
			struct scale_rec hr[] = { { "h1", 2, NULL }, { "h2", 4, NULL } };
			int k;

			for (k = 0; k < 10; k++)
				h1[k] = h2[k] = (struct ev){ 'm', 0, 0, NULL };
			h1[10] = h2[10] = (struct ev){ 'a', 1, 100, "a" };
			h1[11] = (struct ev){ 'a', 2, 100, "b" };
			h1[12] = (struct ev){ 'a', 3, 100, "c" };
			h1[13] = (struct ev){ 'a', 4, 100, "d" };
			h2[11] = (struct ev){ 'a', 2, 100, "x" };
			hr[0].mem = p1 = make("h1", h1, 14, 0);
			hr[1].mem = p2 = make("h2", h2, 12, 0);
			ok(scale_model_new(hr, 2, &m, &cause) == 0 &&
			    scale_build(m, 2, &t, &b, &cause) == GMS_ETRACE &&
			    strstr(cause, "fewer than half the allocations align; they part at event 11 "
			    "(alloc at b)") != NULL, "4 edits among 26 events, but 1 of 4 allocations "
			    "aligned: refused");
			free(cause);
			cause = NULL;
			scale_model_free(m);
			trace_mem_free(p1);
			trace_mem_free(p2);
		}
		ok(scale_model_new(same, 2, &m, &cause) == GMS_ECONFIG && strstr(cause, "both at 2"),
		    "two recordings at one value refused");
		free(cause);
		cause = NULL;
		ok(scale_model_new(one, 1, &m, &cause) == GMS_ECONFIG, "one recording refused");
		free(cause);
		cause = NULL;
		ok(scale_model_new(ran_out, 2, &m, &cause) == GMS_ETRACE &&
		    strstr(cause, "j8: the job ran out of memory"),
		    "a recording that ran out of memory refused");
		free(cause);
		trace_mem_free(a);
		trace_mem_free(c);
		trace_mem_free(oom);
	}
	trace_mem_free(j2);
	trace_mem_free(j4);
	trace_mem_free(j6);
	return tap_done();
}
