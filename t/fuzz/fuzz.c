/*
 * fuzz.c - the shared part of the harnesses (fuzz.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "t/fuzz/fuzz.h"
#include "traces/trace.h"

void
fuzz_assert(int cond, const char *what, const char *detail)
{
	if (cond)
		return;
	fprintf(stderr, "FINDING: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

const char *
fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	static char path[512];
	const char *dir = getenv("TMPDIR");
	FILE *f;

	snprintf(path, sizeof(path), "%s/gms-fuzz-%ld%s", dir && *dir ? dir : "/tmp",
	    (long)getpid(), suffix);
	f = fopen(path, "wb");
	fuzz_assert(f != NULL, "cannot write the scratch file", path);
	if (size > 0)
		fwrite(data, 1, size, f);
	fuzz_assert(fclose(f) == 0, "cannot write the scratch file", path);
	return path;
}

void
fuzz_read(const char *path)
{
	struct trace_reader *r = NULL;
	struct device *dev;
	struct sim *s;
	char *cause = NULL;
	int rc;

	rc = trace_open(path, &r, &cause);
	if (rc < 0) {
		fuzz_assert(cause != NULL && strstr(cause, path) != NULL,
		    "an open error that does not name the file", cause);
		fuzz_assert(rc == GMS_ETRACE || rc == GMS_EIO, "an open error of an odd kind", cause);
		free(cause);
		return;
	}
	dev = device_sim_create(64 * GMS_GiB);
	s = sim_create(&policy_caching, NULL, dev, SIM_CHECK_EVERY |
	    (trace_header(r)->starts_mid_run ? SIM_UNKNOWN_FREES_WARN : 0), &cause);
	fuzz_assert(s != NULL, "the caching policy cannot be made", cause);
	rc = sim_replay(s, r, &cause);
	if (rc < 0) {
		fuzz_assert(rc != GMS_EBUG, "the simulation broke an invariant", cause);
		fuzz_assert(cause != NULL && strstr(cause, path) != NULL,
		    "a read error that does not name the file", cause);
	}
	free(cause);
	sim_destroy(s);
	device_destroy(dev);
	trace_close(r);
}
