/*
 * device-cuda.c - the CUDA device (replay.h): segments from cudaMalloc and
 * cudaFree, expandable segments from the driver's virtual memory API
 * (cuMemAddressReserve, cuMemCreate + cuMemMap per 2 MiB granule, as
 * PyTorch maps pages), the memory in use from cudaMemGetInfo.  The only file
 * that includes CUDA headers.  The driver API is reached through the
 * runtime's entry-point query, so nothing links libcuda directly and the
 * statically linked runtime is all the binary needs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <uthash.h>

#include "replay/replay.h"
#include "sim/device.h"
#include "sim/gms.h"

#define GRANULE (2 * GMS_MiB)

typedef CUresult (*fn_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*fn_addrfree)(CUdeviceptr, size_t);
typedef CUresult (*fn_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
    unsigned long long);
typedef CUresult (*fn_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
    unsigned long long);
typedef CUresult (*fn_setaccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*fn_unmap)(CUdeviceptr, size_t);
typedef CUresult (*fn_release)(CUmemGenericAllocationHandle);

/* A live cudaMalloc, a mapped granule, or a reserved address range. */
struct range {
	uint64_t addr, size;
	CUmemGenericAllocationHandle h;
	UT_hash_handle hh;
};

struct cuda {
	struct device *dev;
	int index;
	struct range *segs, *granules, *vas;
	uint64_t base_used;	/* in use when opened: others' memory and the context */
	struct {
		fn_reserve reserve;
		fn_addrfree addrfree;
		fn_create create;
		fn_map map;
		fn_setaccess setaccess;
		fn_unmap unmap;
		fn_release release;
	} vmm;
	int have_vmm;
};

static struct range *
range_add(struct range **set, uint64_t addr, uint64_t size)
{
	struct range *r = gms_calloc(1, sizeof(*r));

	r->addr = addr;
	r->size = size;
	HASH_ADD(hh, *set, addr, sizeof(uint64_t), r);
	return r;
}

static struct range *
range_take(struct range **set, uint64_t addr)
{
	struct range *r;

	HASH_FIND(hh, *set, &addr, sizeof(addr), r);
	if (r != NULL)
		HASH_DEL(*set, r);
	return r;
}

static int
cuda_used(void *ctx, uint64_t *used)
{
	size_t free_b, total;

	if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
		return -1;
	*used = (uint64_t)(total - free_b);
	return 0;
}

static int
cu_reserve(struct device *d, uint64_t size, uint64_t *addr)
{
	void *p = NULL;

	if (cudaMalloc(&p, (size_t)size) != cudaSuccess) {
		(void)cudaGetLastError();	/* clear it: a refusal is an answer, not a fault */
		return GMS_EOOM;
	}
	*addr = (uint64_t)(uintptr_t)p;
	range_add(&((struct cuda *)d->priv)->segs, *addr, size);
	return 0;
}

static void
cu_release(struct device *d, uint64_t addr, uint64_t size)
{
	free(range_take(&((struct cuda *)d->priv)->segs, addr));
	cudaFree((void *)(uintptr_t)addr);
}

/* What the driver backs for this process's allocations: measured. */
static uint64_t
cu_physical(struct device *d)
{
	struct cuda *c = d->priv;
	uint64_t used = 0;

	if (cuda_used(c, &used) < 0 || used < c->base_used)
		return 0;
	return used - c->base_used;
}

static int
cu_reserve_va(struct device *d, uint64_t size, uint64_t *addr)
{
	struct cuda *c = d->priv;
	CUdeviceptr p;

	if (!c->have_vmm || c->vmm.reserve(&p, (size_t)size, GRANULE, 0, 0) != CUDA_SUCCESS)
		return GMS_EOOM;
	*addr = (uint64_t)p;
	range_add(&c->vas, *addr, size);
	return 0;
}

static void
cu_release_va(struct device *d, uint64_t addr, uint64_t size)
{
	struct cuda *c = d->priv;

	free(range_take(&c->vas, addr));
	c->vmm.addrfree((CUdeviceptr)addr, (size_t)size);
}

static void
unmap_granule(struct cuda *c, uint64_t addr)
{
	struct range *r = range_take(&c->granules, addr);

	if (r == NULL)
		return;
	c->vmm.unmap((CUdeviceptr)r->addr, (size_t)r->size);
	c->vmm.release(r->h);
	free(r);
}

static int
cu_map(struct device *d, uint64_t addr, uint64_t size)
{
	struct cuda *c = d->priv;
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
	CUmemGenericAllocationHandle h;
	uint64_t off;

	if (!c->have_vmm)
		return GMS_EOOM;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = c->index;
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	for (off = 0; off < size; off += GRANULE) {
		CUdeviceptr p = (CUdeviceptr)(addr + off);

		if (c->vmm.create(&h, GRANULE, &prop, 0) != CUDA_SUCCESS)
			goto refused;
		if (c->vmm.map(p, GRANULE, 0, h, 0) != CUDA_SUCCESS) {
			c->vmm.release(h);
			goto refused;
		}
		range_add(&c->granules, addr + off, GRANULE)->h = h;
		if (c->vmm.setaccess(p, GRANULE, &access, 1) != CUDA_SUCCESS) {
			off += GRANULE;
			goto refused;
		}
	}
	return 0;
refused:
	/* all or nothing, as PyTorch unmaps what it mapped before failing */
	while (off > 0) {
		off -= GRANULE;
		unmap_granule(c, addr + off);
	}
	return GMS_EOOM;
}

static void
cu_unmap(struct device *d, uint64_t addr, uint64_t size)
{
	struct cuda *c = d->priv;
	uint64_t off;

	for (off = 0; off < size; off += GRANULE)
		unmap_granule(c, addr + off);
}

/* Give back everything still held, so the next replay starts clean. */
static void
cuda_reset(struct cuda *c)
{
	struct range *r, *tmp;

	HASH_ITER(hh, c->segs, r, tmp) {
		HASH_DEL(c->segs, r);
		cudaFree((void *)(uintptr_t)r->addr);
		free(r);
	}
	HASH_ITER(hh, c->granules, r, tmp)
		unmap_granule(c, r->addr);
	HASH_ITER(hh, c->vas, r, tmp) {
		HASH_DEL(c->vas, r);
		c->vmm.addrfree((CUdeviceptr)r->addr, (size_t)r->size);
		free(r);
	}
	cudaDeviceSynchronize();
}

static void
cu_destroy(struct device *d)
{
	cuda_reset(d->priv);
}

static const struct device_ops device_cuda_ops = {
	.name = "cuda",
	.reserve = cu_reserve,
	.release = cu_release,
	.physical = cu_physical,
	.reserve_va = cu_reserve_va,
	.release_va = cu_release_va,
	.map = cu_map,
	.unmap = cu_unmap,
	.destroy = cu_destroy,
};

static int
cuda_touch(void *ctx, uint64_t addr, uint64_t size)
{
	if (cudaMemset((void *)(uintptr_t)addr, 0xa5, (size_t)size) != cudaSuccess ||
	    cudaDeviceSynchronize() != cudaSuccess) {
		(void)cudaGetLastError();
		return -1;
	}
	return 0;
}

static void
cuda_close(void *ctx)
{
	struct cuda *c = ctx;

	cuda_reset(c);
	free(c->dev);
	free(c);
}

static void
cuda_reset_ctx(void *ctx)
{
	struct cuda *c = ctx;

	cuda_reset(c);
	cuda_used(c, &c->base_used);
}

static int
entry(const char *sym, void **fn)
{
	enum cudaDriverEntryPointQueryResult q;

	return cudaGetDriverEntryPointByVersion(sym, fn, 12000, cudaEnableDefault, &q) ==
	    cudaSuccess && q == cudaDriverEntryPointSuccess && *fn != NULL ? 0 : -1;
}

static void
load_vmm(struct cuda *c)
{
	c->have_vmm = entry("cuMemAddressReserve", (void **)&c->vmm.reserve) == 0 &&
	    entry("cuMemAddressFree", (void **)&c->vmm.addrfree) == 0 &&
	    entry("cuMemCreate", (void **)&c->vmm.create) == 0 &&
	    entry("cuMemMap", (void **)&c->vmm.map) == 0 &&
	    entry("cuMemSetAccess", (void **)&c->vmm.setaccess) == 0 &&
	    entry("cuMemUnmap", (void **)&c->vmm.unmap) == 0 &&
	    entry("cuMemRelease", (void **)&c->vmm.release) == 0;
}

int
replay_cuda_built(void)
{
	return 1;
}

static void *ballast_p[8];

int
replay_cuda_ballast(int index, uint64_t keep, char **cause)
{
	size_t free_b = 0, total = 0, n;
	cudaError_t e;
	int i, tries;

	if ((e = cudaSetDevice(index)) != cudaSuccess || (e = cudaFree(NULL)) != cudaSuccess ||
	    (e = cudaMemGetInfo(&free_b, &total)) != cudaSuccess)
		return gms_fail(cause, GMS_EIO, "cannot use GPU %d: %s", index, cudaGetErrorString(e));
	if (free_b < keep)
		return gms_fail(cause, GMS_EIO, "GPU %d has %zu bytes free, less than the %llu "
		    "the scenario's card has", index, free_b, (unsigned long long)keep);
	/*
	 * All the rest, in a block or a few: what the driver reports free is
	 * looked at again after each block, so the card ends at keep (to 2 MiB)
	 * whatever the first block's rounding.
	 */
	for (i = 0; i < 8 && free_b > keep + GRANULE; i++) {
		n = (free_b - (size_t)keep) / GRANULE * GRANULE;
		for (tries = 0; tries < 64 && cudaMalloc(&ballast_p[i], n) != cudaSuccess; tries++) {
			(void)cudaGetLastError();
			ballast_p[i] = NULL;
			n -= GRANULE;
		}
		if (ballast_p[i] == NULL)
			return gms_fail(cause, GMS_EIO, "cannot hold the ballast on GPU %d", index);
		if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
			break;
	}
	return 0;
}

void
replay_cuda_unballast(void)
{
	int i;

	for (i = 0; i < 8; i++) {
		if (ballast_p[i] != NULL)
			cudaFree(ballast_p[i]);
		ballast_p[i] = NULL;
	}
}

int
replay_cuda_open(int index, struct replay_gpu *g, char **cause)
{
	struct cudaDeviceProp prop;
	int count = 0, drv = 0, rt = 0;
	size_t free_b = 0, total = 0;
	cudaError_t e;
	struct cuda *c;

	memset(g, 0, sizeof(*g));
	if ((e = cudaGetDeviceCount(&count)) != cudaSuccess || count == 0)
		return gms_fail(cause, GMS_EIO, "no NVIDIA GPU or driver found (CUDA says: %s)",
		    e != cudaSuccess ? cudaGetErrorString(e) : "no devices");
	if (index < 0 || index >= count)
		return gms_fail(cause, GMS_EIO, "no GPU %d here (there %s %d: 0 to %d)", index,
		    count == 1 ? "is" : "are", count, count - 1);
	if ((e = cudaSetDevice(index)) != cudaSuccess || (e = cudaFree(NULL)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&prop, index)) != cudaSuccess)
		return gms_fail(cause, GMS_EIO, "cannot use GPU %d: %s", index, cudaGetErrorString(e));
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	c = gms_calloc(1, sizeof(*c));
	c->index = index;
	load_vmm(c);
	c->dev = gms_calloc(1, sizeof(*c->dev));
	c->dev->ops = &device_cuda_ops;
	c->dev->priv = c;
	cuda_used(c, &c->base_used);
	g->dev = c->dev;
	g->ctx = c;
	g->used = cuda_used;
	g->touch = cuda_touch;
	g->reset = cuda_reset_ctx;
	g->close = cuda_close;
	g->index = index;
	/* what cudaMemGetInfo reports, as the GPU catalogue gives it */
	g->total = cudaMemGetInfo(&free_b, &total) == cudaSuccess ? (uint64_t)total :
	    (uint64_t)prop.totalGlobalMem;
	snprintf(g->name, sizeof(g->name), "%s", prop.name);
	snprintf(g->versions, sizeof(g->versions), "driver %d.%d, runtime %d.%d", drv / 1000,
	    drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
	return 0;
}
