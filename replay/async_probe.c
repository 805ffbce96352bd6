/*
 * async_probe.c - how a cudaMallocAsync pool reserves memory, measured: an RMM
 * log (Thread,Time,Action,Pointer,Size,Stream) replayed through
 * cudaMallocFromPoolAsync/cudaFreeAsync on a pool made as RMM's cuda_async_memory_resource
 * makes it (cudaMemPoolCreate, release threshold the largest value: nothing is
 * given back), a CUDA stream per stream of the log (0 and 1: the legacy
 * default stream).  After every row it prints the pool's reserved and used
 * bytes and the address an allocation got; the last line has their
 * high-water marks.  For doc/ACCURACY.md's
 * cuda-async range (replay/results-h200/async/).
 *
 *   async_probe LOG [sync]	sync: cudaDeviceSynchronize after every row
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define MAXLIVE (1 << 20)
#define MAXSTREAMS 64

struct live {
	uint64_t ptr;		/* the log's pointer */
	void *dev;
};

static struct live lives[MAXLIVE];
static size_t nlive;
static uint64_t skeys[MAXSTREAMS];
static cudaStream_t streams[MAXSTREAMS];
static size_t nstreams;

static cudaStream_t
stream_of(uint64_t key)
{
	size_t i;

	if (key == 0 || key == 1)
		return 0;
	if (key == 2)
		return cudaStreamPerThread;
	for (i = 0; i < nstreams; i++)
		if (skeys[i] == key)
			return streams[i];
	if (nstreams == MAXSTREAMS) {
		fprintf(stderr, "too many streams\n");
		exit(2);
	}
	skeys[nstreams] = key;
	if (cudaStreamCreateWithFlags(&streams[nstreams], cudaStreamNonBlocking) != cudaSuccess)
		exit(3);
	return streams[nstreams++];
}

static uint64_t
attr(cudaMemPool_t pool, enum cudaMemPoolAttr a)
{
	uint64_t v = 0;

	cudaMemPoolGetAttribute(pool, a, &v);
	return (uint64_t)v;
}

int
main(int argc, char **argv)
{
	char line[1024], action[64];
	struct cudaMemPoolProps props;
	cudaMemPool_t pool;
	uint64_t ptr, size, skey, threshold = UINT64_MAX, row = 0, ooms = 0, last = 0;
	int sync = argc > 2 && strcmp(argv[2], "sync") == 0;
	size_t i;
	FILE *f;

	if (argc < 2 || (f = fopen(argv[1], "r")) == NULL) {
		fprintf(stderr, "usage: async_probe LOG [sync]\n");
		return 2;
	}
	memset(&props, 0, sizeof(props));
	props.allocType = cudaMemAllocationTypePinned;
	props.handleTypes = cudaMemHandleTypeNone;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = 0;
	if (cudaMemPoolCreate(&pool, &props) != cudaSuccess ||
	    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) !=
	    cudaSuccess) {
		fprintf(stderr, "cannot make a pool\n");
		return 3;
	}
	if (fgets(line, sizeof(line), f) == NULL)
		return 2;
	printf("row,action,size,stream,reserved,used,address\n");
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c = line, *fld[8];
		int n = 0;

		while (n < 8 && (fld[n] = strsep(&c, ",\n")) != NULL)
			n++;
		if (n < 6)
			continue;
		snprintf(action, sizeof(action), "%s", fld[2]);
		ptr = strtoull(fld[3], NULL, 0);
		size = strtoull(fld[4], NULL, 10);
		skey = strtoull(fld[5], NULL, 0);
		if (strcmp(action, "allocate") == 0) {
			void *d = NULL;

			if (nlive == MAXLIVE)
				return 4;
			if (cudaMallocFromPoolAsync(&d, size, pool, stream_of(skey)) != cudaSuccess) {
				cudaGetLastError();
				ooms++;
				printf("%llu,oom,%llu,%llu,%llu,%llu\n", (unsigned long long)row,
				    (unsigned long long)size, (unsigned long long)skey,
				    (unsigned long long)attr(pool, cudaMemPoolAttrReservedMemCurrent),
				    (unsigned long long)attr(pool, cudaMemPoolAttrUsedMemCurrent));
				row++;
				continue;
			}
			lives[nlive].ptr = ptr;
			lives[nlive++].dev = d;
			last = (uint64_t)(uintptr_t)d;
		} else if (strcmp(action, "free") == 0 || strcmp(action, "deallocate") == 0) {
			for (i = 0; i < nlive && lives[i].ptr != ptr; i++)
				;
			if (i < nlive) {
				cudaFreeAsync(lives[i].dev, stream_of(skey));
				lives[i] = lives[--nlive];
			}
		}
		if (sync)
			cudaDeviceSynchronize();
		printf("%llu,%s,%llu,%llu,%llu,%llu,%#llx\n", (unsigned long long)row, action,
		    (unsigned long long)size, (unsigned long long)skey,
		    (unsigned long long)attr(pool, cudaMemPoolAttrReservedMemCurrent),
		    (unsigned long long)attr(pool, cudaMemPoolAttrUsedMemCurrent),
		    (unsigned long long)last);
		last = 0;
		row++;
	}
	cudaDeviceSynchronize();
	printf("# high reserved %llu used %llu ooms %llu\n",
	    (unsigned long long)attr(pool, cudaMemPoolAttrReservedMemHigh),
	    (unsigned long long)attr(pool, cudaMemPoolAttrUsedMemHigh), (unsigned long long)ooms);
	return 0;
}
