/* crt/host_defines.h, for host C only: the CUDA runtime headers a pip
 * installation of PyTorch ships (nvidia/cu13/include) include this compiler
 * header without carrying it.  nocuda.c declares and defines host functions
 * only, so the attributes that matter to a device compiler are empty here;
 * a CUDA toolkit's own header, found first, is used where there is one. */
#ifndef GMS_HOST_DEFINES_H
#define GMS_HOST_DEFINES_H
#define __HOST_DEFINES_H__
#define CUDARTAPI
#define CUDARTAPI_CDECL
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__
#define __forceinline__ inline __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(a) __align__(a)
#define __location__(a) __annotate__(a)
#define __annotate__(a) __attribute__((a))
#define __thread__ __thread
#define __import__
#define __export__
#define __cdecl
#define __specialization_static
#define __no_return__ __attribute__((noreturn))
#define __CUDA_ARCH_HAS_FEATURE__(_FEAT) 0
#endif
