/* nocuda.c - the CUDA runtime's device queries answered as a named GPU, for
 * recording a PyTorch job on a machine without one (gpumemsim.recorder).
 *
 * PyTorch's fake CUDA tensors allocate nothing, but the autograd engine, the
 * stream pools and the attention backends' choice still ask the runtime how
 * many devices there are, which one is current, its streams and its
 * properties; with no GPU the runtime answers "no CUDA-capable device" and the
 * job stops.  Loaded ahead of libcudart (LD_PRELOAD, or dlopen RTLD_GLOBAL
 * before torch is imported), these definitions answer instead, from the
 * GMS_GPU_* variables the recorder sets.  Anything that would need memory or
 * a kernel fails loudly (cudaErrorNoDevice) rather than pretending.
 *
 * Built on the user's machine against the CUDA headers of the torch it
 * serves (cudaDeviceProp's layout changes between CUDA majors). */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int current;
static unsigned long long handles = 0x1000;

static long long env_ll(const char *name, long long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoll(v, NULL, 0) : dflt;
}

/* calls that would need the real device: named once on stderr, so a
 * recording that reaches one says which */
static cudaError_t needs_device(const char *what)
{
	if (!getenv("GMS_NOCUDA_QUIET"))
		fprintf(stderr, "gpumemsim: recording without a GPU: %s needs a real device\n", what);
	return cudaErrorNoDevice;
}

cudaError_t cudaGetDeviceCount(int *count)
{
	*count = 1;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
	*device = current;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	if (device != 0)
		return cudaErrorInvalidDevice;
	current = device;
	return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
	(void)deviceFlags, (void)flags;
	return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

static void fill_props(struct cudaDeviceProp *p)
{
	const char *name = getenv("GMS_GPU_NAME");
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", name ? name : "NVIDIA H100 80GB HBM3");
	memcpy(p->uuid.bytes, "gpumemsim-nogpu", 16);
	p->totalGlobalMem = (size_t)env_ll("GMS_GPU_TOTAL", 85045477376LL);
	p->sharedMemPerBlock = 49152;
	p->regsPerBlock = 65536;
	p->warpSize = 32;
	p->memPitch = 2147483647;
	p->maxThreadsPerBlock = 1024;
	p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
	p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
	p->totalConstMem = 65536;
	p->major = (int)env_ll("GMS_GPU_MAJOR", 9);
	p->minor = (int)env_ll("GMS_GPU_MINOR", 0);
	p->textureAlignment = 512;
	p->texturePitchAlignment = 32;
	p->multiProcessorCount = (int)env_ll("GMS_GPU_SMS", 132);
	p->canMapHostMemory = 1;
	p->concurrentKernels = 1;
	p->ECCEnabled = 1;
	p->asyncEngineCount = 2;
	p->unifiedAddressing = 1;
	p->memoryBusWidth = (int)env_ll("GMS_GPU_BUS_BITS", 5120);
	p->l2CacheSize = (int)env_ll("GMS_GPU_L2", 52428800);
	p->maxThreadsPerMultiProcessor = (int)env_ll("GMS_GPU_THREADS_PER_SM", 2048);
	p->streamPrioritiesSupported = 1;
	p->globalL1CacheSupported = 1;
	p->localL1CacheSupported = 1;
	p->sharedMemPerMultiprocessor = (size_t)env_ll("GMS_GPU_SMEM_PER_SM", 233472);
	p->regsPerMultiprocessor = 65536;
	p->managedMemory = 1;
	p->computePreemptionSupported = 1;
	p->cooperativeLaunch = 1;
	p->sharedMemPerBlockOptin = (size_t)env_ll("GMS_GPU_SMEM_OPTIN", 232448);
	p->maxBlocksPerMultiProcessor = 32;
	p->reservedSharedMemPerBlock = 1024;
	p->memoryPoolsSupported = 1;
#if CUDART_VERSION < 13000
	p->clockRate = 1980000;
	p->memoryClockRate = 2619000;
	p->computeMode = 0;
#endif
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	if (device != 0)
		return cudaErrorInvalidDevice;
	fill_props(prop);
	return cudaSuccess;
}

#if CUDART_VERSION >= 12000 && CUDART_VERSION < 13000
#undef cudaGetDeviceProperties
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device)
{
	return cudaGetDeviceProperties(prop, device);
}
#endif

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	struct cudaDeviceProp p;
	if (device != 0)
		return cudaErrorInvalidDevice;
	fill_props(&p);
	switch (attr) {
	case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
	case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
	case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
	case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
	case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
	case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
	case cudaDevAttrWarpSize: *value = 32; break;
	case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
	case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
	case cudaDevAttrMaxRegistersPerBlock: *value = 65536; break;
	case cudaDevAttrMaxRegistersPerMultiprocessor: *value = 65536; break;
	case cudaDevAttrUnifiedAddressing: *value = 1; break;
	case cudaDevAttrConcurrentKernels: *value = 1; break;
	case cudaDevAttrMemoryPoolsSupported: *value = 1; break;
	case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
	default: *value = 0; break;
	}
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
	*v = (int)env_ll("GMS_GPU_DRIVER", CUDART_VERSION);
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
	*v = CUDART_VERSION;
	return cudaSuccess;
}

cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaPeekAtLastError(void) { return cudaSuccess; }

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
	*total = (size_t)env_ll("GMS_GPU_TOTAL", 85045477376LL);
	*free_bytes = *total;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	if (least)
		*least = 0;
	if (greatest)
		*greatest = -5;
	return cudaSuccess;
}

/* streams and events: distinct handles that are never run on */
static void *handle(void) { return (void *)(handles += 0x10); }

cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = handle(); return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int f) { (void)f; *s = handle(); return cudaSuccess; }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int f, int p)
{
	(void)f, (void)p;
	*s = handle();
	return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) { (void)s; return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t s) { (void)s; return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)s; return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int f)
{
	(void)s, (void)e, (void)f;
	return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *st)
{
	(void)s;
	*st = cudaStreamCaptureStatusNone;
	return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = handle(); return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int f) { (void)f; *e = handle(); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { (void)e, (void)s; return cudaSuccess; }
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int f)
{
	(void)e, (void)s, (void)f;
	return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t e) { (void)e; return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t e) { (void)e; return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { (void)e; return cudaSuccess; }
cudaError_t cudaDeviceCanAccessPeer(int *can, int d, int peer) { (void)d, (void)peer; *can = 0; return cudaSuccess; }

cudaError_t cudaMalloc(void **p, size_t n) { (void)p, (void)n; return needs_device("cudaMalloc"); }
cudaError_t cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **a, size_t s, cudaStream_t st)
{
	(void)f, (void)g, (void)b, (void)a, (void)s, (void)st;
	return needs_device("a kernel launch");
}
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
	*mode = cudaStreamCaptureModeGlobal;
	return cudaSuccess;
}

/* The driver API, for what PyTorch asks it directly: a device guard's
 * restore (MaybeSetDevice) asks whether the device's primary context is
 * active, through libcuda.so.1 opened by name.  The recorder puts this
 * library first on the path under that name; CUresult and CUdevice are ints. */
int cuInit(unsigned int flags) { (void)flags; return 0; }
int cuDriverGetVersion(int *v) { *v = (int)env_ll("GMS_GPU_DRIVER", CUDART_VERSION); return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return ordinal == 0 ? 0 : 101; }
int cuDevicePrimaryCtxGetState(int dev, unsigned int *flags, int *active)
{
	if (dev != 0)
		return 101;     /* CUDA_ERROR_INVALID_DEVICE */
	*flags = 0;
	*active = 1;
	return 0;
}
int cuCtxGetCurrent(void **ctx) { *ctx = (void *)0x1; return 0; }
int cuGetErrorString(int e, const char **s)
{
	(void)e;
	*s = "no device: recording without a GPU (gpumemsim)";
	return 0;
}
int cuGetErrorName(int e, const char **s)
{
	(void)e;
	*s = "CUDA_ERROR_NO_DEVICE";
	return 0;
}
