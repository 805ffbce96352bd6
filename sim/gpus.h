/*
 * gpus.h - a catalogue of GPU models for capacity planning: the memory the
 * driver reports (cudaMemGetInfo's total, which is below the marketing size)
 * and the compute capability, which decides TensorFlow's reserve.
 */
#ifndef SIM_GPUS_H
#define SIM_GPUS_H

#include <stdint.h>

struct gpu_model {
	const char *name;	/* "A100-80GB" */
	const char *aliases;	/* other names, space-separated, lower case */
	uint64_t total;		/* bytes the driver reports */
	int cc;			/* compute capability major (AMD: 9, for TensorFlow's rule) */
	const char *note;	/* where the number comes from */
};

extern const struct gpu_model gpu_catalogue[];	/* name NULL terminates */

/*
 * The default CUDA context and library overhead taken off a GPU's memory
 * before the allocator gets any (--context-overhead).
 */
#define GPU_CONTEXT_OVERHEAD ((uint64_t)512 << 20)

/* Find a model by name or alias, case-insensitively; NULL with *cause. */
const struct gpu_model *gpu_find(const char *name, char **cause);

/*
 * A --gpu or --gpus word: a catalogued model, or a size ("24GiB") for a card
 * the catalogue lacks, made in *own (named arg, which must outlive it;
 * compute capability 9, for TensorFlow's reserve).  NULL with *cause.
 */
const struct gpu_model *gpu_parse(const char *arg, struct gpu_model *own, char **cause);

#endif /* SIM_GPUS_H */
