/*
 * gen-trace.c - writes a large synthetic training-shaped trace as JSON Lines
 * for the benchmarks (bench/run.sh): N iterations of a forward pass that
 * allocates activations of mixed sizes and a backward pass that frees them in
 * reverse, over persistent weights, on one stream.  Deterministic.
 *
 * usage: gen-trace EVENTS > trace.jsonl
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	unsigned long long events = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	unsigned long long n = 0, id = 0, rng = 88172645463325252ULL;
	static unsigned long long live[4096];
	unsigned nlive = 0, i, layers = 400;
	unsigned long long size;

	printf("{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"bench-%llu\","
	    "\"source\":{\"generator\":\"bench/gen-trace\"}}\n", events);
	for (i = 0; i < 200; i++, n++)	/* weights */
		printf("{\"op\":\"alloc\",\"id\":%llu,\"size\":%llu,\"stream\":0}\n", ++id,
		    (unsigned long long)(1 + i % 7) * 1048576 * (1 + i % 3));
	while (n < events) {
		printf("{\"op\":\"mark\",\"label\":\"iteration\"}\n");
		n++;
		for (i = 0; i < layers && n < events; i++, n++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			size = rng % 8 == 0 ? rng % (64ULL << 20) : rng % (1ULL << 20);
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
	return 0;
}
