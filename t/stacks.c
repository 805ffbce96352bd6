/*
 * stacks.c - the live memory by call stack (analysis/stacks.h), on stacks
 * worked by hand: each distinct frame and stack kept once, a prefix shared,
 * values that sum into the callers, a filter that passes a frame's bytes to
 * its kept callers, a depth that cuts, the sort (largest, then most, then
 * by name), the folded lines, the JSON tree, the text's folding of callees
 * past --top, and what a frame's text may not do to a page or a terminal.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stacks.h"
#include "t/tap.h"
#include "traces/trace.h"

/* f(w) into a string (caller frees). */
static char *
folded(const struct stack_view *w)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	stack_view_folded(f, w);
	fclose(f);
	return s;
}

static char *
text(const struct stack_view *w, size_t top)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	stack_view_text(f, w, top);
	fclose(f);
	return s;
}

static char *
svg(const struct stack_view *w)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	stack_view_svg(f, w, "t<&>", 0.1, 0);
	fclose(f);
	return s;
}

int
main(void)
{
	struct stack_tree *t = stack_tree_new();
	struct stack_values v;
	struct stack_view *w;
	uint32_t a, b, c, d, none;
	char *s, *j;
	cJSON *o;

	/* a < m < main; b < m < main; main alone; the two share m and main */
	a = stack_tree_intern(t, "a.py:1 a\nm.py:2 m\nmain.py:3 <module>\n");
	b = stack_tree_intern(t, "b.py:4 b\nm.py:2 m\nmain.py:3 <module>\n");
	c = stack_tree_intern(t, "main.py:3 <module>\n");
	is_u64(stack_tree_intern(t, "a.py:1 a\nm.py:2 m\nmain.py:3 <module>\n"), a,
	    "the same stack twice: one node");
	/* root, main, m, a, b */
	is_u64(stack_tree_nodes(t), 5, "five nodes: the root and four frames, the prefix shared");
	ok(a != b && c != a && c != b, "three stacks, three nodes");
	none = stack_tree_intern(t, NULL);
	is_u64(stack_tree_intern(t, ""), none, "no stack and an empty one: one node, (no stack)");
	d = stack_tree_intern(t, "x;y.py:9 f<&>\n");

	stack_values_init(&v, t);
	stack_values_add(&v, a, 100, 0);
	stack_values_add(&v, a, 50, 0);	/* two allocations with one stack */
	stack_values_add(&v, b, 400, 0);
	stack_values_add(&v, c, 30, 0);
	stack_values_add(&v, none, 7, 0);
	stack_values_add(&v, d, 300, 0);
	stack_values_add(&v, 999, 1, 0);	/* a node made after the values: nothing */
	is_u64(v.live, 887, "values: 150 + 400 + 30 + 7 + 300 bytes live");
	is_u64(v.nlive, 6, "values: six allocations");

	w = stack_view_new(t, &v, NULL, 0);
	is_u64(stack_view_bytes(w), 887, "the view's root holds every byte");
	is_u64(stack_view_count(w), 6, "... and every allocation");
	s = folded(w);
	/* main 580 (30 own, m 550: b 400, a 150), then x;y 300, then (no stack) 7 */
	is_str(s, "main.py:3 <module> 30\n"
	    "main.py:3 <module>;m.py:2 m;b.py:4 b 400\n"
	    "main.py:3 <module>;m.py:2 m;a.py:1 a 150\n"
	    "x,y.py:9 f<&> 300\n"
	    "(no stack) 7\n", "folded: largest first, own bytes, ';' in a frame as ','");
	free(s);
	s = text(w, 1);
	is_str(s, "       bytes   share   count  stack (callers above callees, one space deeper per call)\n"
	    "       580 B   65.4%       4  main.py:3 <module>\n"
	    "       550 B   62.0%       3   m.py:2 m\n"
	    "       400 B   45.1%       1    b.py:4 b\n"
	    "       150 B   16.9%       2    (1 other frame)\n"
	    "       307 B   34.6%       2  (2 other frames)\n",
	    "text, --top=1: one callee a frame, the others summed on one line");
	free(s);
	o = stack_view_json(w);
	j = cJSON_PrintUnformatted(o);
	is_str(j, "{\"bytes\":887,\"count\":6,\"children\":["
	    "{\"frame\":\"main.py:3 <module>\",\"bytes\":580,\"count\":4,\"children\":["
	    "{\"frame\":\"m.py:2 m\",\"bytes\":550,\"count\":3,\"children\":["
	    "{\"frame\":\"b.py:4 b\",\"bytes\":400,\"count\":1,\"children\":[]},"
	    "{\"frame\":\"a.py:1 a\",\"bytes\":150,\"count\":2,\"children\":[]}]}]},"
	    "{\"frame\":\"x;y.py:9 f<&>\",\"bytes\":300,\"count\":1,\"children\":[]},"
	    "{\"frame\":\"(no stack)\",\"bytes\":7,\"count\":1,\"children\":[]}]}",
	    "JSON: the tree nested, each node its sum, frames as they are");
	free(j);
	cJSON_Delete(o);
	s = svg(w);
	ok(strstr(s, "<title>x;y.py:9 f&lt;&amp;&gt;\n") != NULL, "SVG: a frame's <, & and > escaped");
	ok(strstr(s, ">t&lt;&amp;&gt;</text>") != NULL, "SVG: the title escaped");
	/* 1180 px for 887 bytes: main.py:3 is 580 of them */
	ok(strstr(s, "width=\"771.59\"") != NULL, "SVG: main.py:3 is 580/887 of 1180 px");
	free(s);
	stack_view_free(w);

	/* a filter: a frame left out passes its bytes to its callers kept */
	w = stack_view_new(t, &v, "[ab].py:*", 0);
	s = folded(w);
	is_str(s, "b.py:4 b 400\n(no frame matches) 330\na.py:1 a 150\n(no stack) 7\n",
	    "--frames: only the matching frames; the rest, with none kept, in one node");
	free(s);
	is_u64(stack_view_bytes(w), 887, "--frames: no byte lost");
	stack_view_free(w);

	/* a depth: each stack cut at its outermost frames */
	w = stack_view_new(t, &v, NULL, 2);
	s = folded(w);
	is_str(s, "main.py:3 <module> 30\nmain.py:3 <module>;m.py:2 m 550\nx,y.py:9 f<&> 300\n"
	    "(no stack) 7\n", "--depth=2: the callees' bytes stay with the second frame");
	free(s);
	stack_view_free(w);
	stack_values_free(&v);

	/* equal bytes: more allocations first, then the frame's name */
	stack_values_init(&v, t);
	stack_values_add(&v, a, 10, 0);
	stack_values_add(&v, b, 5, 0);
	stack_values_add(&v, b, 5, 0);
	stack_values_add(&v, d, 10, 0);
	w = stack_view_new(t, &v, "*.py:[149]*", 0);
	s = folded(w);
	is_str(s, "b.py:4 b 10\na.py:1 a 10\nx,y.py:9 f<&> 10\n",
	    "ties: more allocations (b's two), then by name");
	free(s);
	stack_view_free(w);
	stack_values_free(&v);

	/* control characters never reach a terminal */
	c = stack_tree_intern(t, "esc\033[2J.py:1 f\n");
	stack_values_init(&v, t);
	stack_values_add(&v, c, 1, 0);
	w = stack_view_new(t, &v, NULL, 0);
	s = text(w, 10);
	ok(strstr(s, "esc?[2J.py:1 f") != NULL && strchr(s, '\033') == NULL,
	    "text: a frame's control characters shown as '?'");
	free(s);
	stack_view_free(w);
	stack_values_free(&v);

	/* nothing live */
	stack_values_init(&v, t);
	w = stack_view_new(t, &v, NULL, 0);
	s = text(w, 10);
	ok(strstr(s, "(nothing live)") != NULL, "text: nothing live, said");
	free(s);
	s = folded(w);
	is_str(s, "", "folded: nothing live, no line");
	free(s);
	stack_view_free(w);
	stack_values_free(&v);
	stack_tree_free(t);

	/* a request whose OOM the framework catches: a cuDNN plan's workspace */
	{
		struct trace_event ev = { .op = TRACE_ALLOC, .size = 1 };

		ev.stack = "at::native::run_conv_plan\nat::native::run_single_conv\n";
		ok(trace_oom_caught(&ev), "caught: cuDNN's run_conv_plan asks, innermost");
		ev.stack = "run_conv_plan\n";
		ok(trace_oom_caught(&ev), "caught: the frame without its namespace");
		ev.stack = "at::native::xrun_conv_plan\n";
		ok(!trace_oom_caught(&ev), "not: another name ending the same");
		ev.stack = "at::native::run_conv_plan_v2\n";
		ok(!trace_oom_caught(&ev), "not: a longer name");
		ev.stack = "at::native::empty\nat::native::run_conv_plan\n";
		ok(!trace_oom_caught(&ev), "not: run_conv_plan further out (an output, not its workspace)");
		ev.stack = NULL;
		ok(!trace_oom_caught(&ev), "not: no stack");
		ev.stack = "run_conv_plan\n";
		ev.op = TRACE_FREE;
		ok(!trace_oom_caught(&ev), "not: a free");
	}
	return tap_done();
}
