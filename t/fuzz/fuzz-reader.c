/*
 * fuzz-reader.c - one reader under libFuzzer: built once per format with
 * FUZZ_SUFFIX (".json", ".jsonl", ".pickle", ".csv"), the input read as a
 * trace of that format and replayed through the caching policy with its
 * invariants checked after every event (t/fuzz/fuzz.c says what is a finding).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read(fuzz_file(data, size, FUZZ_SUFFIX), FUZZ_CHECK_EVERY);
	return 0;
}
