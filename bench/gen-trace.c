/*
 * gen-trace.c - writes a large synthetic trace as JSON Lines for the
 * benchmarks (bench/run.sh).  Deterministic.
 *
 *   gen-trace EVENTS              training-shaped: iterations of a forward
 *                                 pass allocating activations of mixed sizes
 *                                 and a backward pass freeing them in reverse,
 *                                 over persistent weights, on one stream
 *   gen-trace --churn=LIVE EVENTS LIVE allocations held at once, each event
 *                                 past the first LIVE freeing a random one and
 *                                 allocating another: the shape that strains
 *                                 per-request policies (no-cache, ideal)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 88172645463325252ULL;

static unsigned long long
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
header(const char *kind, unsigned long long events)
{
	printf("{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"bench-%s-%llu\","
	    "\"source\":{\"generator\":\"bench/gen-trace\"}}\n", kind, events);
}

static void
churn(unsigned long long events, unsigned long long nlive)
{
	unsigned long long *live = calloc(nlive, sizeof(*live)), n = 0, id = 0, i, size;

	if (live == NULL)
		exit(1);
	header("churn", events);
	for (i = 0; i < nlive && n < events; i++, n++) {
		size = 512 + next() % (256 << 10);
		live[i] = ++id;
		printf("{\"op\":\"alloc\",\"id\":%llu,\"size\":%llu}\n", id, size);
	}
	while (n + 1 < events) {
		i = next() % nlive;
		printf("{\"op\":\"free\",\"id\":%llu}\n", live[i]);
		size = 512 + next() % (256 << 10);
		live[i] = ++id;
		printf("{\"op\":\"alloc\",\"id\":%llu,\"size\":%llu}\n", id, size);
		n += 2;
	}
	free(live);
}

static void
training(unsigned long long events)
{
	unsigned long long n = 0, id = 0, size;
	static unsigned long long live[4096];
	unsigned nlive = 0, i, layers = 400;

	header("train", events);
	for (i = 0; i < 200; i++, n++)	/* weights */
		printf("{\"op\":\"alloc\",\"id\":%llu,\"size\":%llu,\"stream\":0}\n", ++id,
		    (unsigned long long)(1 + i % 7) * 1048576 * (1 + i % 3));
	while (n < events) {
		printf("{\"op\":\"mark\",\"label\":\"iteration\"}\n");
		n++;
		for (i = 0; i < layers && n < events; i++, n++) {
			size = next();
			size = size % 8 == 0 ? size % (64ULL << 20) : size % (1ULL << 20);
			live[nlive++] = ++id;
			printf("{\"op\":\"alloc\",\"id\":%llu,\"size\":%llu,\"stream\":0,"
			    "\"at\":\"model.py:%u forward\"}\n", id, size + 1, i);
		}
		while (nlive > 0 && n < events) {
			printf("{\"op\":\"free\",\"id\":%llu}\n", live[--nlive]);
			n++;
		}
		nlive = 0;
	}
}

int
main(int argc, char **argv)
{
	unsigned long long live = 0;
	int i = 1;

	if (argc > 1 && strncmp(argv[1], "--churn=", 8) == 0) {
		live = strtoull(argv[1] + 8, NULL, 10);
		i++;
	}
	if (live > 0)
		churn(argc > i ? strtoull(argv[i], NULL, 10) : 1000000, live);
	else
		training(argc > i ? strtoull(argv[i], NULL, 10) : 1000000);
	return fflush(stdout) == 0 ? 0 : 1;
}
