/*
 * share.c - several jobs on one GPU (sim/share.h), on hand-worked
 * scenarios whose every number is derived in the comments: the story that
 * started the project (two growing BFC jobs, the second dies; capped, both
 * fit), PyTorch freeing its own cache to retry but never another job's, a
 * preallocating job that cannot start, a context that does not fit,
 * repeated passes, starts by event, traces without times, and start
 * offsets reproducible by seed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/scenario.h"
#include "analysis/share-report.h"
#include "sim/share.h"
#include "replay/share-gpu.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "t/tap.h"
#include "t/tfile.h"
#include "traces/tracemem.h"

#define MiB GMS_MiB
#define GiB GMS_GiB
#define SEC 1000000LL

static char *paths[32];
static struct trace_mem *mems[32];
static size_t npaths;

/* A JSON Lines trace from event lines. */
static struct trace_mem *
trace(const char *const *lines)
{
	char buf[8192];
	size_t len = 0;
	struct trace_mem *m = NULL;
	struct trace_opts o = { .device = -1 };
	char *cause = NULL, *path;

	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
	    "{\"format\":\"gpumemsim-trace\",\"version\":1}\n");
	for (; *lines != NULL; lines++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s\n", *lines);
	path = tfile_write(".jsonl", buf, len, 0);
	if (trace_mem_load(path, &o, &m, &cause) < 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	mems[npaths] = m;
	paths[npaths++] = path;
	return m;
}

static struct share_job
job(const char *name, struct trace_mem *m, const struct policy_ops *ops,
    const struct policy_kv *opts, size_t nopts)
{
	return (struct share_job){ .name = (char *)name, .path = (char *)name, .mem = m,
	    .ops = ops, .opts = (struct policy_kv *)opts, .nopts = nopts, .label = (char *)name,
	    .repeat = 1 };
}

static const struct policy_kv jax[] = { { "flavor", "jax" } };

static int
run(struct share_scenario *sc, struct share_result *r)
{
	char *cause = NULL;
	int err = share_run(sc, NULL, r, &cause);

	if (err < 0)
		diag("share_run: %s", cause);
	free(cause);
	return err;
}

/*
 * A stand-in for the GPU in replay_share(): every job's process gets a
 * simulated device of its own whose physical bytes come out of one card in
 * shared memory, and its context with it.  A replay over it must then say
 * exactly what share_run() says: the processes, the turns and the reaping
 * are all that differ.
 */
struct fake {
	struct device_gpu *gpu;		/* in shared memory */
	uint64_t context;
};

struct fake_job {
	struct fake *f;
	struct device *dev;
};

static int
fake_used(void *ctx, uint64_t *used)
{
	*used = ((struct fake_job *)ctx)->f->gpu->used;
	return 0;
}

static void
fake_close(void *ctx)
{
	struct fake_job *fj = ctx;

	fj->f->gpu->used -= fj->dev->c.physical + fj->f->context;
	fj->dev->gpu = NULL;
	device_destroy(fj->dev);
	free(fj);
}

static int
fake_open(void *arg, struct replay_gpu *g, char **cause)
{
	struct fake *f = arg;
	struct fake_job *fj;

	memset(g, 0, sizeof(*g));
	if (f->gpu->used + f->context > f->gpu->total)
		return gms_fail(cause, GMS_EOOM, "no room for a context");
	f->gpu->used += f->context;
	fj = gms_calloc(1, sizeof(*fj));
	fj->f = f;
	fj->dev = device_sim_create(0);
	fj->dev->gpu = f->gpu;
	g->dev = fj->dev;
	g->ctx = fj;
	g->used = fake_used;
	g->close = fake_close;
	g->total = f->gpu->total;
	return 0;
}

/* share_run() and replay_share() over the stand-in agree on everything. */
static void
same_on_gpu(struct share_scenario *sc, const char *what)
{
	struct device_gpu *gpu = mmap(NULL, sizeof(*gpu), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct fake f = { .gpu = gpu, .context = sc->context };
	struct replay_share_gpu g = { .open = fake_open, .arg = &f };
	struct share_result a, b;
	char *cause = NULL;
	size_t k, m;
	int same;

	gpu->total = sc->total;
	gpu->used = 0;
	if (run(sc, &a) < 0 || replay_share(sc, &g, &b, &cause) < 0) {
		ok(0, "%s: replayed in processes: %s", what, cause ? cause : "");
		free(cause);
		return;
	}
	same = a.fits == b.fits && a.nooms == b.nooms;
	for (k = 0; same && k < sc->njobs; k++)
		same = a.jobs[k].started == b.jobs[k].started &&
		    a.jobs[k].peak_reserved == b.jobs[k].peak_reserved &&
		    a.jobs[k].events == b.jobs[k].events && a.jobs[k].passes == b.jobs[k].passes &&
		    a.jobs[k].oomed == b.jobs[k].oomed && a.jobs[k].limit == b.jobs[k].limit;
	for (k = 0; same && k < a.nooms; k++) {
		same = a.ooms[k].job == b.ooms[k].job && a.ooms[k].event == b.ooms[k].event &&
		    a.ooms[k].pass == b.ooms[k].pass && a.ooms[k].time_us == b.ooms[k].time_us &&
		    strcmp(a.ooms[k].what, b.ooms[k].what) == 0;
		if (strcmp(a.ooms[k].what, "context") != 0)
			same = same && a.ooms[k].size == b.ooms[k].size &&
			    a.ooms[k].gpu_free == b.ooms[k].gpu_free;
		for (m = 0; same && m < sc->njobs; m++)
			same = a.ooms[k].held[m] == b.ooms[k].held[m];
	}
	ok(same, "%s: the same replayed in a process per job, taking turns", what);
	share_result_free(&a);
	share_result_free(&b);
	munmap(gpu, sizeof(*gpu));
}

/*
 * Job a: 17 allocations of 235.5 MiB, one a second, held to 100 s.  BFC's
 * regions double from the first request's power of two: 256 MiB, 256, 512,
 * 1 GiB, 2 GiB hold 1+1+2+4+8 = 16 of them (each with 20.5 MiB to spare per
 * allocation); the 17th needs a sixth region, which JAX's limit (0.75 of an
 * 8.5 GiB card: 6845104128) cuts to what is left, 2550136832: a holds
 * 6845104128.  Job b starts at 20 s and asks for 2.5 GiB, a 4 GiB region
 * (under its own limit of the same 6845104128), backed off in 10% steps to
 * 2.36 GiB < 2.5: the card has 9126805504 - 6845104128 = 2281701376 free,
 * and b runs out at its event 0.  With memory_limit 4.25 GiB each, a's
 * sixth region is 256 MiB (4.25 GiB in all) and b gets a 4 GiB region.
 */
static void
seed_story(void)
{
	static const char *const b_lines[] = { "{\"op\":\"alloc\",\"id\":1,\"size\":2684354560,"
	    "\"t_us\":0}", "{\"op\":\"free\",\"id\":1,\"t_us\":1000000}", NULL };
	const char *a_lines[40];
	char store[40][96];
	struct share_job jobs[2];
	struct share_scenario sc = { .total = 9126805504ULL, .context = 0, .njobs = 2,
	    .jobs = jobs };
	struct share_result r;
	int i, n = 0;

	for (i = 0; i < 17; i++) {
		snprintf(store[n], sizeof(store[n]), "{\"op\":\"alloc\",\"id\":%d,\"size\":%llu,"
		    "\"t_us\":%lld}", i + 1, (unsigned long long)(235 * MiB + MiB / 2), i * SEC);
		a_lines[n] = store[n];
		n++;
	}
	a_lines[n++] = "{\"op\":\"mark\",\"label\":\"eval\",\"t_us\":100000000}";
	for (i = 0; i < 17; i++) {
		snprintf(store[n], sizeof(store[n]), "{\"op\":\"free\",\"id\":%d,\"t_us\":%lld}",
		    i + 1, 101 * SEC + i);
		a_lines[n] = store[n];
		n++;
	}
	a_lines[n] = NULL;
	jobs[0] = job("a", trace(a_lines), &policy_grow_only, jax, 1);
	jobs[1] = job("b", trace(b_lines), &policy_grow_only, jax, 1);
	jobs[1].start_us = 20 * SEC;
	if (run(&sc, &r) == 0) {
		is_u64(r.jobs[0].peak_reserved, 6845104128ULL, "story: a grows to JAX's limit, 6.38 GiB");
		ok(!r.jobs[0].oomed && r.jobs[0].passes == 1, "story: a runs to its end");
		ok(!r.fits && r.nooms == 1 && r.ooms[0].job == 1, "story: b, and only b, runs out");
		ok(r.nooms == 1 && r.ooms[0].event == 0 && r.ooms[0].time_us == 20 * SEC &&
		    r.ooms[0].size == 2684354560ULL && strcmp(r.ooms[0].what, "alloc") == 0,
		    "story: at its event 0, at 20 s, asking for 2.5 GiB");
		ok(r.nooms == 1 && r.ooms[0].held[0] == 6845104128ULL && r.ooms[0].held[1] == 0 &&
		    r.ooms[0].gpu_free == 2281701376ULL,
		    "story: a held 6845104128 then, b nothing, 2281701376 free");
		is_u64(r.peak_used, 6845104128ULL, "story: the card's peak use is a's");
	}
	share_result_free(&r);
	same_on_gpu(&sc, "story");
	jobs[0].limit = jobs[1].limit = 4 * GiB + GiB / 4;
	if (run(&sc, &r) == 0) {
		ok(r.fits, "story, capped at 4.25 GiB each: both fit");
		is_u64(r.jobs[0].peak_reserved, 4563402752ULL, "capped: a holds its limit");
		is_u64(r.jobs[1].peak_reserved, 4294967296ULL, "capped: b a 4 GiB region");
		is_u64(r.peak_used, 8858370048ULL, "capped: the card's peak, 8.25 GiB");
	}
	share_result_free(&r);
	same_on_gpu(&sc, "story, capped");
}

/*
 * PyTorch frees its own cache to retry, never another job's.  A 7 GiB card.
 * a: 3 GiB at 0, freed at 0.5 s (cached), 3.5 GiB at 2 s; b from 1 s: 3 GiB.
 * At 2 s the card has 7 - 3 - 3 = 1 GiB free: a's new segment is refused, a
 * frees its cached 3 GiB and retries: 3.5 GiB fits beside b's 3.  Then c
 * holds 4 GiB cached and d (from 10 s) asks for 4 GiB of the 3 free: d frees
 * its own cache (none) and runs out.
 */
static void
caching(void)
{
	static const char *const a_lines[] = {
		"{\"op\":\"alloc\",\"id\":1,\"size\":3221225472,\"t_us\":0}",
		"{\"op\":\"free\",\"id\":1,\"t_us\":500000}",
		"{\"op\":\"alloc\",\"id\":2,\"size\":3758096384,\"t_us\":2000000}",
		"{\"op\":\"free\",\"id\":2,\"t_us\":3000000}", NULL };
	static const char *const b_lines[] = {
		"{\"op\":\"alloc\",\"id\":1,\"size\":3221225472,\"t_us\":0}",
		"{\"op\":\"free\",\"id\":1,\"t_us\":5000000}", NULL };
	static const char *const c_lines[] = {
		"{\"op\":\"alloc\",\"id\":1,\"size\":4294967296,\"t_us\":0}",
		"{\"op\":\"free\",\"id\":1,\"t_us\":500000}",
		"{\"op\":\"mark\",\"label\":\"idle\",\"t_us\":100000000}", NULL };
	struct share_job jobs[2];
	struct share_scenario sc = { .total = 7 * GiB, .context = 0, .njobs = 2, .jobs = jobs };
	struct share_result r;

	jobs[0] = job("a", trace(a_lines), &policy_caching, NULL, 0);
	jobs[1] = job("b", trace(b_lines), &policy_caching, NULL, 0);
	jobs[1].start_us = SEC;
	if (run(&sc, &r) == 0) {
		ok(r.fits, "caching: a frees its cache and retries, and fits");
		is_u64(r.jobs[0].peak_reserved, 3758096384ULL, "caching: a's peak, its 3.5 GiB");
		is_u64(r.peak_used, 3758096384ULL + 3221225472ULL, "caching: the card's peak, 6.5 GiB");
	}
	share_result_free(&r);
	same_on_gpu(&sc, "caching retry");
	jobs[0] = job("c", trace(c_lines), &policy_caching, NULL, 0);
	jobs[1] = job("d", trace(c_lines), &policy_caching, NULL, 0);
	jobs[1].start_us = 10 * SEC;
	if (run(&sc, &r) == 0) {
		ok(!r.fits && r.nooms == 1 && r.ooms[0].job == 1 && r.ooms[0].event == 0 &&
		    r.ooms[0].time_us == 10 * SEC, "caching: d runs out at its event 0, at 10 s");
		ok(r.nooms == 1 && r.ooms[0].held[0] == 4 * GiB && r.ooms[0].gpu_free == 3 * GiB,
		    "caching: c's cached 4 GiB stay c's; 3 GiB free");
	}
	share_result_free(&r);
	same_on_gpu(&sc, "another job's cache");
}

/*
 * Starting: a grow-only job takes a 4 GiB region for 3 GiB on an 8 GiB card;
 * a preallocation from 1 s with memory_limit 6 GiB wants 6 GiB at once, with
 * 4 free: it cannot start.  JAX's own 0.75 x 8 GiB takes the 4 instead.  A second context of 600 MiB on a 1 GiB card with
 * one already there: 424 MiB free, it cannot start.
 */
static void
starts(void)
{
	static const char *const a_lines[] = {
		"{\"op\":\"alloc\",\"id\":1,\"size\":3221225472,\"t_us\":0}",
		"{\"op\":\"free\",\"id\":1,\"t_us\":5000000}", NULL };
	static const char *const tiny[] = {
		"{\"op\":\"alloc\",\"id\":1,\"size\":1048576,\"t_us\":0}",
		"{\"op\":\"free\",\"id\":1,\"t_us\":1000}", NULL };
	struct share_job jobs[2];
	struct share_scenario sc = { .total = 8 * GiB, .context = 0, .njobs = 2, .jobs = jobs };
	struct share_result r;

	jobs[0] = job("a", trace(a_lines), &policy_grow_only, jax, 1);
	jobs[1] = job("p", trace(a_lines), &policy_preallocate, jax, 1);
	jobs[1].start_us = SEC;
	jobs[1].limit = 6 * GiB;
	if (run(&sc, &r) == 0)
		ok(r.nooms == 1 && r.ooms[0].job == 1 && r.ooms[0].event == -1 &&
		    strcmp(r.ooms[0].what, "pool") == 0 && r.ooms[0].size == 6 * GiB &&
		    r.ooms[0].gpu_free == 4 * GiB && !r.jobs[1].started,
		    "preallocation: a 6 GiB memory_limit pool with 4 GiB free cannot start");
	share_result_free(&r);
	same_on_gpu(&sc, "preallocation");
	/* JAX's own 0.75 x 8 GiB above the 4 free: it takes the 4 (as the H200 showed) */
	jobs[1].limit = 0;
	if (run(&sc, &r) == 0)
		ok(r.fits && r.jobs[1].peak_reserved == 4 * GiB && r.jobs[1].limit == 4 * GiB,
		    "preallocation: JAX's pool above what is free takes what is free, 4 GiB");
	share_result_free(&r);
	same_on_gpu(&sc, "JAX's pool");
	sc.total = GiB;
	sc.context = 600 * MiB;
	jobs[0] = job("x", trace(tiny), &policy_caching, NULL, 0);
	jobs[1] = job("y", trace(tiny), &policy_caching, NULL, 0);
	if (run(&sc, &r) == 0)
		ok(r.nooms == 1 && r.ooms[0].job == 1 && strcmp(r.ooms[0].what, "context") == 0 &&
		    r.ooms[0].gpu_free == GiB - 600 * MiB && r.jobs[0].passes == 1,
		    "a second 600 MiB context on a 1 GiB card cannot start; the first job runs");
	share_result_free(&r);
	same_on_gpu(&sc, "no room for a context");
}

/*
 * Time: b's pass is its 1 s span plus a mean gap, 2 s: three passes end at
 * 2 + 2 + 1 = 5 s, and the job repeating until the others end stops there,
 * after two whole passes of its own from 0.5 s.  start=event:1 is a's event
 * 1, at 1 s.  A trace without times spreads over its duration: 4 events
 * over 8 s are 2 s apart, the last at 6 s.
 */
static void
timing(void)
{
	static const char *const b_lines[] = {
		"{\"op\":\"alloc\",\"id\":1,\"size\":1048576,\"t_us\":0}",
		"{\"op\":\"free\",\"id\":1,\"t_us\":1000000}", NULL };
	static const char *const untimed[] = {
		"{\"op\":\"alloc\",\"id\":1,\"size\":1048576}",
		"{\"op\":\"alloc\",\"id\":2,\"size\":1048576}",
		"{\"op\":\"free\",\"id\":1}", "{\"op\":\"free\",\"id\":2}", NULL };
	struct share_job jobs[2];
	struct share_scenario sc = { .total = 8 * GiB, .context = 0, .njobs = 2, .jobs = jobs };
	struct share_result r;
	char *cause = NULL;
	int err;

	jobs[0] = job("b3", trace(b_lines), &policy_caching, NULL, 0);
	jobs[0].repeat = 3;
	jobs[1] = job("loop", trace(b_lines), &policy_caching, NULL, 0);
	jobs[1].repeat = 0;
	jobs[1].start_us = SEC / 2;
	if (run(&sc, &r) == 0) {
		ok(r.jobs[0].passes == 3 && r.jobs[0].end_us == 5 * SEC,
		    "repeat=3: three passes of 2 s, the last event at 5 s");
		ok(r.jobs[1].passes == 2 && r.jobs[1].end_us == 5 * SEC && r.fits,
		    "repeat=until-end: two whole passes, ended with the other at 5 s");
	}
	share_result_free(&r);
	same_on_gpu(&sc, "repeats");
	jobs[0].repeat = 1;
	jobs[1].repeat = 1;
	jobs[1].start_is_event = 1;
	jobs[1].start_event = 1;
	if (run(&sc, &r) == 0)
		is_u64((uint64_t)r.jobs[1].start_us, (uint64_t)SEC, "start=event:1: a's event 1, at 1 s");
	share_result_free(&r);
	jobs[1] = job("untimed", trace(untimed), &policy_caching, NULL, 0);
	err = share_check(&sc, &cause);
	ok(err == GMS_ECONFIG && cause != NULL && strstr(cause, "has no times: give duration=") !=
	    NULL, "a trace without times needs a duration: %s", cause ? cause : "(none)");
	free(cause);
	jobs[1].duration_us = 8 * SEC;
	if (run(&sc, &r) == 0)
		ok(r.jobs[1].end_us == 6 * SEC && r.jobs[1].events == 4,
		    "4 events spread over 8 s: the last at 6 s");
	share_result_free(&r);
}

/* The same seed, the same offsets and outcomes, on 1 thread or 2. */
static void
offsets(void)
{
	static const char *const big[] = {
		"{\"op\":\"alloc\",\"id\":1,\"size\":5368709120,\"t_us\":0}",
		"{\"op\":\"free\",\"id\":1,\"t_us\":10000000}", NULL };
	struct share_job jobs[2];
	struct share_scenario sc = { .total = 8 * GiB, .context = 0, .njobs = 2, .jobs = jobs };
	char *t1 = NULL, *t2 = NULL, *t3 = NULL, *cause = NULL, *s1, *s2, *s3;
	cJSON *a, *b, *c;
	double with;

	/* two 5 GiB jobs of 10 s on 8 GiB: they collide when the second starts
	   within the first's 10 s, so most offsets in [0, 20 s] fail */
	jobs[0] = job("one", trace(big), &policy_caching, NULL, 0);
	jobs[1] = job("two", trace(big), &policy_caching, NULL, 0);
	a = share_offsets(&sc, 50, 7, 1, &t1, &cause);
	b = share_offsets(&sc, 50, 7, 2, &t2, &cause);
	c = share_offsets(&sc, 50, 8, 2, &t3, &cause);
	s1 = cJSON_PrintUnformatted(a);
	s2 = cJSON_PrintUnformatted(b);
	s3 = cJSON_PrintUnformatted(c);
	ok(s1 && s2 && strcmp(s1, s2) == 0, "offsets: seed 7 gives the same on 1 and 2 threads");
	ok(s1 && s3 && strcmp(s1, s3) != 0, "offsets: seed 8 others");
	with = cJSON_GetNumberValue(cJSON_GetObjectItem(a, "with_oom"));
	ok(with > 10 && with < 50, "offsets: %g of 50 collide (the second within 10 s of "
	    "[0, 20 s])", with);
	ok(cJSON_IsObject(cJSON_GetObjectItem(a, "worst")), "offsets: the worst case given");
	free(s1);
	free(s2);
	free(s3);
	free(t1);
	free(t2);
	free(t3);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
	free(cause);
}

/*
 * The scenario and --job readers on 20,000 mutations of a good scenario
 * (bytes flipped, cut, doubled): each is read or refused with its name in
 * the message, and every job read passes or fails the job checks the same
 * way.  t/fuzz/fuzz-scenario does this at length.
 */
static void
spec_mutations(void)
{
	static const char good[] =
	    "{\"gpu\": \"A10\", \"context_overhead\": \"512MiB\",\n"
	    " \"jobs\": [{\"trace\": \"a.json\", \"policy\": \"grow-only\", \"flavor\": \"jax\", "
	    "\"start\": \"30s\", \"repeat\": 3},\n"
	    "  {\"trace\": \"b.json\", \"policy\": \"caching\", \"fraction\": 0.4, "
	    "\"start\": \"event:10\", \"name\": \"b\", \"alloc_conf\": \"expandable_segments:True\"}]}";
	char buf[sizeof(good) * 2];
	uint64_t x = 12345;
	size_t len, i, p, bad_scen = 0, bad_job = 0, read = 0, made = 0;
	struct share_specs sp;
	struct share_job j;
	char *cause;
	int rc, k;

	for (i = 0; i < 20000; i++) {
		memcpy(buf, good, sizeof(good) - 1);
		len = sizeof(good) - 1;
		for (k = 0; k < 1 + (int)(i % 4); k++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			p = (size_t)(x >> 33) % len;
			switch ((x >> 20) % 3) {
			case 0:
				buf[p] = (char)(x >> 40);
				break;
			case 1:
				memmove(buf + p, buf + p + 1, len - p - 1);
				len--;
				break;
			default:
				if (len + 1 < sizeof(buf)) {
					memmove(buf + p + 1, buf + p, len - p);
					len++;
				}
			}
		}
		memset(&sp, 0, sizeof(sp));
		cause = NULL;
		rc = share_parse_scenario(buf, len, "m.json", &sp, &cause);
		if (rc != 0)
			bad_scen += !(rc == GMS_ECONFIG && cause && strncmp(cause, "m.json", 6) == 0);
		read += rc == 0;
		for (p = 0; rc == 0 && p < sp.n; p++) {
			char *why = NULL;
			int r = share_job_make(&sp.specs[p], NULL, 0, &j, &why);

			bad_job += !(r == 0 ? j.name && j.name[0] && j.label && j.ops :
			    r == GMS_ECONFIG && why != NULL);
			made += r == 0;
			share_job_free(&j);
			free(why);
		}
		share_specs_free(&sp);
		free(cause);
	}
	ok(bad_scen == 0, "20,000 mutated scenarios: every refusal names the file (%zu read)", read);
	ok(bad_job == 0, "... every job read passes or is refused with a reason (%zu passed)", made);
	memset(&sp, 0, sizeof(sp));
	memset(&j, 0, sizeof(j));
	cause = NULL;
	rc = share_parse_job("dir/ policy=caching", 1, &sp, &cause) == 0 &&
	    share_job_make(&sp.specs[0], NULL, 0, &j, &cause) == 0;
	ok(rc && strcmp(j.name, "dir/") == 0, "a trace named dir/ names its job dir/, not ''");
	share_job_free(&j);
	share_specs_free(&sp);
	free(cause);
}

int
main(void)
{
	size_t i;

	seed_story();
	caching();
	starts();
	timing();
	offsets();
	spec_mutations();
	for (i = 0; i < npaths; i++) {
		unlink(paths[i]);
		free(paths[i]);
		trace_mem_free(mems[i]);
	}
	return tap_done();
}
