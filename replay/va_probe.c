/*
 * va_probe.c - where the CUDA driver puts what cudaMalloc asks for, with
 * nothing else in the process: a script on standard input, one call a line,
 * each answered on standard output, for replay/va_probe.py to compare with
 * the addresses PyTorch's allocator got for the same reservations.
 *
 *   a SIZE   cudaMalloc(SIZE): "a SIZE ADDR", or "a SIZE fail"
 *   f K      cudaFree of the K-th allocation (0-based): "f K"
 *   i        initialise the context (cudaFree(0)) before anything else: "i"
 *
 *   nvcc -O2 -o va_probe replay/va_probe.c      (cudart linked statically)
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char line[128];
	void **ptrs = NULL;
	size_t n = 0, cap = 0;

	while (fgets(line, sizeof(line), stdin) != NULL) {
		unsigned long long v;

		if (line[0] == 'i') {
			cudaFree(0);
			puts("i");
		} else if (line[0] == 'a' && sscanf(line + 1, "%llu", &v) == 1) {
			void *p = NULL;

			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				ptrs = realloc(ptrs, cap * sizeof(*ptrs));
			}
			if (cudaMalloc(&p, (size_t)v) != cudaSuccess) {
				cudaGetLastError();
				p = NULL;
				printf("a %llu fail\n", v);
			} else {
				printf("a %llu %llu\n", v, (unsigned long long)(uintptr_t)p);
			}
			ptrs[n++] = p;
		} else if (line[0] == 'f' && sscanf(line + 1, "%llu", &v) == 1 && v < n) {
			if (ptrs[v] != NULL)
				cudaFree(ptrs[v]);
			ptrs[v] = NULL;
			printf("f %llu\n", v);
		}
	}
	fflush(stdout);
	return 0;
}
