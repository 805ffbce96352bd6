/*
 * tfile.c - temporary trace files for the reader tests (tfile.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "sim/device.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "t/tfile.h"
#include "traces/trace.h"

char *
tfile_write(const char *suffix, const void *data, size_t len, int gz)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd;
	size_t n;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	n = strlen(dir) + strlen(suffix) + 32;
	path = malloc(n);
	snprintf(path, n, "%s/gms-test-XXXXXX%s", dir, suffix);
	if (path == NULL || (fd = mkstemps(path, (int)strlen(suffix))) < 0) {
		printf("Bail out! cannot make a temp file\n");
		exit(1);
	}
	if (gz) {
		gzFile g = gzdopen(fd, "wb");

		if (g == NULL || (len > 0 && gzwrite(g, data, (unsigned)len) != (int)len) ||
		    gzclose(g) != Z_OK) {
			printf("Bail out! cannot write %s\n", path);
			exit(1);
		}
	} else {
		if (write(fd, data, len) != (ssize_t)len || close(fd) != 0) {
			printf("Bail out! cannot write %s\n", path);
			exit(1);
		}
	}
	return path;
}

int
tfile_replay(const char *path, char **cause)
{
	struct trace_reader *r = NULL;
	struct device *dev = NULL;
	struct sim *s = NULL;
	int err;

	*cause = NULL;
	if ((err = trace_open(path, &r, cause)) < 0)
		return err;
	dev = device_sim_create(64 << 20);
	s = sim_create(&policy_caching, NULL, dev, SIM_CHECK_EVERY, cause);
	err = s ? sim_replay(s, r, cause) : -1;
	sim_destroy(s);
	device_destroy(dev);
	trace_close(r);
	return err;
}
