/*
 * fuzz-scenario.c - share's job specs under libFuzzer: the input as a
 * scenario file, and its first line as a --job.  Whatever the bytes, the
 * parsers answer with specs or a refusal that says why, and every spec
 * accepted goes through the job checks (the trace not read) the same way.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario.h"
#include "sim/gms.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
jobs(const struct share_specs *s, const char *detail)
{
	struct share_job j;
	char *cause = NULL;
	size_t i;
	int rc;

	for (i = 0; i < s->n; i++) {
		rc = share_job_make(&s->specs[i], NULL, 0, &j, &cause);
		fuzz_assert(rc == 0 || (rc == GMS_ECONFIG && cause != NULL),
		    "a job refused without a message", detail);
		fuzz_assert(rc != 0 || (j.name != NULL && j.name[0] != '\0' && j.ops != NULL &&
		    j.label != NULL && (j.fraction == 0 || (j.fraction > 0 && j.fraction <= 1))),
		    "an accepted job without a name, a policy or a sane fraction", detail);
		share_job_free(&j);
		free(cause);
		cause = NULL;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct share_specs s = { 0 };
	char *cause = NULL, *line = malloc(size + 1), *nl;
	int rc;

	rc = share_parse_scenario((const char *)data, size, "fuzz.json", &s, &cause);
	fuzz_assert(rc == 0 || (rc == GMS_ECONFIG && cause != NULL &&
	    strncmp(cause, "fuzz.json", 9) == 0), "a scenario refused without its name", cause);
	if (rc == 0)
		jobs(&s, "scenario");
	share_specs_free(&s);
	free(cause);
	cause = NULL;

	memcpy(line, data, size);
	line[size] = '\0';
	if ((nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	rc = share_parse_job(line, 1, &s, &cause);
	fuzz_assert(rc == 0 || (rc == GMS_ECONFIG && cause != NULL &&
	    strncmp(cause, "--job 1", 7) == 0), "a --job refused without its number", cause);
	if (rc == 0)
		jobs(&s, line);
	share_specs_free(&s);
	free(cause);
	free(line);
	return 0;
}
