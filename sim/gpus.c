/*
 * gpus.c - the GPU catalogue (gpus.h).  Totals are cudaMemGetInfo's total in
 * bytes as public nvidia-smi/deviceQuery listings give them for each model;
 * the H200's was read here (the shared traces' device.total_bytes), and the
 * cards with a comment above them come from the deviceQuery listing it names
 * (its "Total amount of global memory", which is cudaMemGetInfo's total).
 * They differ between board variants and drivers by up to a few hundred MiB
 * (a T4: 15843721216 B under driver 11.2, 15642329088 B under 12.5):
 * --capacity is exact where it matters.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/gms.h"
#include "sim/gpus.h"

#define MiB ((uint64_t)1 << 20)

const struct gpu_model gpu_catalogue[] = {
	/*
	 * deviceQuery on Colab, driver 12.4, "15095 MBytes" (MiB, rounded):
	 * github.com/sylvia-ymlin/cuda-kernels-from-scratch, README.md.  Other
	 * drivers report 15642329088 (12.5) to 15843721216 (11.2) bytes.
	 */
	{ "T4", "t4 t4-16gb", 15095 * MiB, 7, "16 GB GDDR6, deviceQuery (driver 12.4)" },
	/* deviceQuery, driver 12.2: github.com/aalanwyr/face2cuda, step2cuda/README.md */
	{ "A10", "a10 a10-24gb", 23609475072ULL, 8, "24 GB GDDR6, deviceQuery (driver 12.2)" },
	/*
	 * torch.cuda's total_memory, 22515.75 MiB (the A10's own total):
	 * huggingface.co/PrunaAI/TinyLlama-TinyLlama_v1.1_math_code-AWQ-4bit-smashed,
	 * smashed_results.json ("current_gpu_total_memory").
	 */
	{ "A10G", "a10g a10g-24gb", 23609475072ULL, 8, "24 GB GDDR6 (AWS), torch.cuda's total" },
	/* deviceQuery, driver 12.4: github.com/thamada/nvidia-smi, gls/L4_deviceQuery.py */
	{ "L4", "l4 l4-24gb", 23570219008ULL, 8, "24 GB GDDR6, deviceQuery (driver 12.4)" },
	/* deviceQuery, driver 12.6: github.com/thamada/nvidia-smi, gls/RTX3090_deviceQuery.py */
	{ "RTX3090", "rtx3090 3090 rtx-3090", 25327697920ULL, 8, "24 GB GDDR6X, deviceQuery (driver 12.6)" },
	/* deviceQuery, driver 12.4, of 8 cards: github.com/thamada/nvidia-smi, gls/RTX4090_deviceQuery.py */
	{ "RTX4090", "rtx4090 4090 rtx-4090", 25386352640ULL, 8, "24 GB GDDR6X, deviceQuery (driver 12.4)" },
	/*
	 * Public deviceQuery listings of Tesla V100-SXM2-16GB give 16911433728
	 * (driver 11.0) to 16945512448 B (9.0); 16928342016 B (12.4) taken.
	 */
	{ "V100-16GB", "v100-16gb v100-16 v100-sxm2-16gb v100-pcie-16gb", 16928342016ULL, 7,
	    "16 GB HBM2, deviceQuery listings (drivers 9.0 to 12.4)" },
	/*
	 * The next two and B200: the capacity of NVIDIA's datasheets less what a
	 * driver keeps, estimated (no public listing of their total was found):
	 * said as "estimated" in --gpu=list, so that --capacity is given where
	 * the exact total matters.
	 */
	{ "V100-32GB", "v100-32gb v100-32", 32494 * MiB, 7, "32 GB HBM2, estimated from the datasheet" },
	{ "RTX5090", "rtx5090 5090 rtx-5090", 32120 * MiB, 12, "32 GB GDDR7, estimated from the datasheet" },
	/*
	 * torch.cuda's total_memory of an A100-PCIE-40GB, 40339.3125 MiB:
	 * huggingface.co/PrunaAI/mattshumer-Llama-3-8B-16K-HQQ-4bit-smashed,
	 * results.json ("base_current_gpu_total_memory").
	 */
	{ "A100-40GB", "a100-40gb a100-40", 42298834944ULL, 8, "40 GB HBM2, torch.cuda's total" },
	/* deviceQuery (A100-SXM4-80GB), driver 12.5: github.com/thamada/nvidia-smi, gls/A100SXMx4_deviceQuery.py */
	{ "A100-80GB", "a100-80gb a100-80", 85100068864ULL, 8, "80 GB HBM2e, deviceQuery (driver 12.5)" },
	/* deviceQuery, driver 12.4: github.com/thamada/nvidia-smi, nvsim/L40S_deviceQuery.py */
	{ "L40S", "l40s l40s-48gb", 47803596800ULL, 8, "48 GB GDDR6, deviceQuery (driver 12.4)" },
	/*
	 * The L40 carries the L40S's memory (48 GB GDDR6 with ECC, NVIDIA's
	 * datasheets): the L40S's measured total, not one of its own.
	 */
	{ "L40", "l40 l40-48gb", 47803596800ULL, 8, "48 GB GDDR6, the L40S's deviceQuery total" },
	/* deviceQuery, driver 12.4: github.com/thamada/nvidia-smi, nvsim/A40x10_deviceQuery.py */
	{ "A40", "a40 a40-48gb", 47608692736ULL, 8, "48 GB GDDR6, deviceQuery (driver 12.4)" },
	/* deviceQuery, driver 12.7, of 8 cards: posted on hpc-community.unige.ch (2024-11-29) */
	{ "RTX-A6000", "rtx-a6000 rtxa6000 a6000", 51160023040ULL, 8,
	    "48 GB GDDR6, deviceQuery (driver 12.7)" },
	/* deviceQuery (H100 80GB HBM3, SXM), driver 12.7: github.com/thamada/nvidia-smi, nvsim/H100SXMx8_deviceQuery.py */
	{ "H100-80GB", "h100-80gb h100-80 h100-sxm", 85045477376ULL, 9, "80 GB HBM3, deviceQuery (driver 12.7)" },
	/*
	 * The PCIe card carries 80 GB HBM2e (NVIDIA's datasheet) where the SXM
	 * carries HBM3: the SXM's measured total, not one of its own.
	 */
	{ "H100-PCIe", "h100-pcie h100pcie h100-pcie-80gb", 85045477376ULL, 9,
	    "80 GB HBM2e, the SXM's deviceQuery total" },
	/* deviceQuery, driver 12.4: github.com/thamada/nvidia-smi, gls/H100NVLx2_deviceQuery.py */
	{ "H100-NVL", "h100-nvl h100nvl h100-94gb", 99861594112ULL, 9, "94 GB HBM3, deviceQuery (driver 12.4)" },
	{ "H200", "h200 h200-141gb h200-sxm", 150109880320ULL, 9, "141 GB HBM3e, read on the H200 here" },
	/* The NVL card carries the SXM's 141 GB HBM3e (NVIDIA's datasheet): its total as read here. */
	{ "H200-NVL", "h200-nvl h200nvl", 150109880320ULL, 9, "141 GB HBM3e, the H200 SXM's total" },
	/*
	 * OpenCL's global memory, "97280 MB VRAM", driver 555.42.06:
	 * github.com/mredenti/PowerCapping, configuration/OpenCL_benchmark.md.
	 * The GPU of a GH200 480GB (or 120GB) superchip: 96 GB HBM3.
	 */
	{ "GH200-96GB", "gh200-96gb gh200-480gb gh200-120gb", 97280 * MiB, 9,
	    "96 GB HBM3 (GH200 480GB), OpenCL (driver 555)" },
	{ "B200", "b200 b200-192gb", 182623 * MiB, 10, "192 GB HBM3e, estimated from the datasheet" },
	/* hipDeviceProp "Total Global Memory (MB)": 196592 (MiB): github.com/thamada/nvidia-smi, package/MI300X_deviceQuery.py */
	{ "MI300X", "mi300x mi300x-192gb", 196592 * MiB, 9, "192 GB HBM3 (ROCm), hipDeviceProp" },
	{ NULL, NULL, 0, 0, NULL },
};

/*
 * Names people give to more than one card: refused with the choices, never
 * taken to mean one of them.
 */
static const struct {
	const char *name, *choices;
} ambiguous[] = {
	{ "a100", "A100-40GB or A100-80GB" },
	{ "h100", "H100-80GB (SXM), H100-PCIe or H100-NVL (94 GB)" },
	{ "v100", "V100-16GB or V100-32GB" },
	{ "gh200", "GH200-96GB, or for a 144 GB GH200 its memory as --capacity" },
};

const struct gpu_model *
gpu_parse(const char *arg, struct gpu_model *own, char **cause)
{
	uint64_t total;

	if (isdigit((unsigned char)arg[0]) && gms_parse_size(arg, &total, NULL) == 0 && total > 0) {
		*own = (struct gpu_model){ .name = arg, .aliases = "", .total = total, .cc = 9,
		    .note = "given as a size" };
		return own;
	}
	return gpu_find(arg, cause);
}

const struct gpu_model *
gpu_find(const char *name, char **cause)
{
	const struct gpu_model *g;
	char *names = NULL, *tmp, *list, *tok, *save;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ambiguous); i++)
		if (strcasecmp(ambiguous[i].name, name) == 0) {
			gms_fail(cause, GMS_ECONFIG, "GPU '%s' names more than one card: give %s",
			    name, ambiguous[i].choices);
			return NULL;
		}

	for (g = gpu_catalogue; g->name != NULL; g++) {
		if (strcasecmp(g->name, name) == 0)
			return g;
		list = gms_strdup(g->aliases);
		for (tok = strtok_r(list, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save))
			if (strcasecmp(tok, name) == 0) {
				free(list);
				return g;
			}
		free(list);
	}
	for (g = gpu_catalogue; g->name != NULL; g++) {
		tmp = gms_asprintf("%s%s%s", names ? names : "", names ? ", " : "", g->name);
		free(names);
		names = tmp;
	}
	gms_fail(cause, GMS_ECONFIG, "unknown GPU '%s' (known: %s)", name, names);
	free(names);
	return NULL;
}
