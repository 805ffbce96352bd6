/*
 * gtload.c - ground-truth fixtures and sample traces for the fidelity tests.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "t/gtload.h"
#include "t/tap.h"

cJSON *
gt_load(const char *rel)
{
	char *path = tap_srcpath(rel), *buf;
	size_t cap = 1 << 20, len = 0;
	gzFile gz = gzopen(path, "rb");
	cJSON *j;
	int n;

	if (gz == NULL) {
		printf("Bail out! cannot open %s\n", path);
		exit(1);
	}
	buf = malloc(cap);
	while (buf != NULL && (n = gzread(gz, buf + len, (unsigned)(cap - len - 1))) > 0) {
		len += (size_t)n;
		if (cap - len < 2)
			buf = realloc(buf, cap *= 2);
	}
	gzclose(gz);
	if (buf == NULL) {
		printf("Bail out! out of memory reading %s\n", path);
		exit(1);
	}
	buf[len] = '\0';
	if ((j = cJSON_Parse(buf)) == NULL) {
		printf("Bail out! %s is not JSON\n", path);
		exit(1);
	}
	free(buf);
	free(path);
	return j;
}

uint64_t
gt_u64(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(it) ? (uint64_t)it->valuedouble : 0;
}

char *
gt_sample_path(const char *name)
{
	char rel[256], *path;

	snprintf(rel, sizeof(rel), "traces/%s.json", name);
	path = tap_srcpath(rel);
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	snprintf(rel, sizeof(rel), "traces/%s.jsonl.gz", name);
	return tap_srcpath(rel);
}
