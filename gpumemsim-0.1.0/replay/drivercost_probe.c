/*
 * drivercost_probe.c - what the CUDA driver charges for a reservation, by
 * size: the median time of cudaMalloc and cudaFree, and of an expandable
 * segment's 2 MiB granule (cuMemCreate + cuMemMap + cuMemSetAccess, then
 * cuMemUnmap + cuMemRelease), each over many calls in a fresh process.  The
 * numbers behind sim/drivercost.c; output in replay/results-h200/drivercost.txt.
 *
 *   nvcc -O2 -o drivercost_probe replay/drivercost_probe.c -lcuda
 *   ./drivercost_probe >drivercost.txt
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Holding `hold` allocations live at once, as allocators do, then freeing them. */
static void
probe(size_t size, int reps, int hold)
{
	double *ta = calloc(reps, sizeof(double)), *tf = calloc(reps, sizeof(double));
	void **p = calloc(hold, sizeof(void *));
	int i, j, n = 0;
	double t;

	for (i = 0; i < reps; i += hold) {
		for (j = 0; j < hold && i + j < reps; j++) {
			t = now_us();
			if (cudaMalloc(&p[j], size) != cudaSuccess) {
				printf("# %zu: cudaMalloc failed\n", size);
				return;
			}
			ta[i + j] = now_us() - t;
		}
		for (j = 0; j < hold && i + j < reps; j++) {
			t = now_us();
			cudaFree(p[j]);
			tf[i + j] = now_us() - t;
			n++;
		}
	}
	qsort(ta, n, sizeof(double), cmp);
	qsort(tf, n, sizeof(double), cmp);
	printf("cudaMalloc %14zu %6d median_us %9.1f p90_us %9.1f | cudaFree median_us %9.1f p90_us %9.1f\n",
	    size, n, ta[n / 2], ta[n * 9 / 10], tf[n / 2], tf[n * 9 / 10]);
	free(ta);
	free(tf);
	free(p);
}

static void
probe_map(int reps)
{
	CUmemAllocationProp prop = { 0 };
	CUmemAccessDesc acc = { 0 };
	CUdeviceptr va;
	CUmemGenericAllocationHandle h;
	size_t gran = 2 << 20;
	double *tm = calloc(reps, sizeof(double)), *tu = calloc(reps, sizeof(double)), t;
	int i;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	if (cuMemAddressReserve(&va, gran * 64, 0, 0, 0) != CUDA_SUCCESS) {
		printf("# cuMemAddressReserve failed\n");
		return;
	}
	for (i = 0; i < reps; i++) {
		t = now_us();
		cuMemCreate(&h, gran, &prop, 0);
		cuMemMap(va, gran, 0, h, 0);
		cuMemSetAccess(va, gran, &acc, 1);
		tm[i] = now_us() - t;
		t = now_us();
		cuMemUnmap(va, gran);
		cuMemRelease(h);
		tu[i] = now_us() - t;
	}
	qsort(tm, reps, sizeof(double), cmp);
	qsort(tu, reps, sizeof(double), cmp);
	printf("map-2MiB   %14zu %6d median_us %9.1f p90_us %9.1f | unmap    median_us %9.1f p90_us %9.1f\n",
	    gran, reps, tm[reps / 2], tm[reps * 9 / 10], tu[reps / 2], tu[reps * 9 / 10]);
	cuMemAddressFree(va, gran * 64);
}

int
main(void)
{
	static const size_t sizes[] = { 512, 4096, 65536, 524288, 1 << 20, 2 << 20, 4 << 20,
	    20 << 20, 64 << 20, 256 << 20, 1ul << 30, 4ul << 30, 16ul << 30, 64ul << 30 };
	struct cudaDeviceProp dp;
	size_t i;

	cudaFree(0);
	cudaGetDeviceProperties(&dp, 0);
	printf("# %s; median and p90 over the calls; sizes in bytes\n", dp.name);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		probe(sizes[i], sizes[i] >= (4ul << 30) ? 20 : 400,
		    sizes[i] >= (1ul << 30) ? 1 : 16);
	probe_map(400);
	return 0;
}
