/*
 * fuzz-baseline.c - `check --baseline` files under libFuzzer: whatever the
 * bytes, the baseline is either refused with a message or every check made
 * from it compares finite numbers.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "analysis/check.h"
#include "sim/gms.h"
#include "sim/sim.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_result res = { .peak_reserved = 3703570432u, .peak_allocated = 3150157824u,
	    .device_allocs = 118, .peak_live = 3127304348u };
	struct check_list l = { 0 };
	char *cause = NULL;
	cJSON *base = cJSON_ParseWithLength((const char *)data, size);
	size_t i;

	if (base != NULL) {
		if (check_baseline(&l, base, "resnet50-train-b32", "caching", &res, 0.02, &cause) < 0) {
			fuzz_assert(cause != NULL, "a refused baseline without a message", NULL);
		} else {
			for (i = 0; i < l.n; i++)
				fuzz_assert(isfinite(l.items[i].value) && isfinite(l.items[i].limit),
				    "a check of a number that is not finite", l.items[i].name);
		}
	}
	free(cause);
	check_free(&l);
	cJSON_Delete(base);
	return 0;
}
