/*
 * gtload.c - ground-truth fixtures and sample traces for the fidelity tests.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "sim/gms.h"
#include "sim/sim.h"
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

struct gt_line {
	char key[320];
	int agree, used;
};

struct gt_expect {
	char *path;
	FILE *out;		/* writing anew (GMS_EXPECT_WRITE) */
	struct gt_line *lines;
	size_t n;
};

struct gt_expect *
gt_expect_open(const char *name)
{
	struct gt_expect *e = gms_calloc(1, sizeof(*e));
	const char *top = getenv("TOP_SRCDIR");
	char line[512], setting[128], trace[128], verdict[16];
	unsigned long long limit;
	int run;
	FILE *f;

	e->path = gms_asprintf("%s/t/data/expect/%s.txt", top && *top ? top : ".", name);
	if (getenv("GMS_EXPECT_WRITE") != NULL) {
		if ((e->out = fopen(e->path, "w")) == NULL) {
			printf("Bail out! cannot write %s\n", e->path);
			exit(1);
		}
		fprintf(e->out, "# setting trace run limit agree|differ: does the model reproduce "
		    "each ground-truth run (peak reserved and OOM event)? Written by "
		    "GMS_EXPECT_WRITE=1 make check; review the diff.\n");
		return e;
	}
	if ((f = fopen(e->path, "r")) == NULL) {
		printf("Bail out! cannot read %s (GMS_EXPECT_WRITE=1 writes it)\n", e->path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%127s %127s %d %llu %15s", setting, trace, &run, &limit,
		    verdict) != 5)
			continue;
		e->lines = gms_realloc(e->lines, (e->n + 1) * sizeof(*e->lines));
		snprintf(e->lines[e->n].key, sizeof(e->lines[0].key), "%s %s %d %llu", setting, trace,
		    run, limit);
		e->lines[e->n].agree = strcmp(verdict, "agree") == 0;
		e->lines[e->n++].used = 0;
	}
	fclose(f);
	return e;
}

void
gt_expect(struct gt_expect *e, const char *setting, const char *trace, int run, uint64_t limit,
    int agree, const char *detail)
{
	char key[320];
	size_t i;

	snprintf(key, sizeof(key), "%.127s %.127s %d %llu", setting, trace, run, (unsigned long long)limit);
	if (e->out != NULL) {
		fprintf(e->out, "%s %s\n", key, agree ? "agree" : "differ");
		ok(1, "%s: written (%s)", key, agree ? "agree" : "differ");
		return;
	}
	for (i = 0; i < e->n; i++)
		if (strcmp(e->lines[i].key, key) == 0)
			break;
	if (i == e->n) {
		ok(0, "%s: not in %s", key, e->path);
		return;
	}
	e->lines[i].used = 1;
	ok(agree == e->lines[i].agree, "%s: %s, as expected%s%s", key,
	    agree ? "reproduced" : "not reproduced", detail ? ": " : "", detail ? detail : "");
}

void
gt_expect_close(struct gt_expect *e)
{
	size_t i, unused = 0;

	if (e->out != NULL) {
		fclose(e->out);
	} else {
		for (i = 0; i < e->n; i++)
			if (!e->lines[i].used) {
				diag("expected run not tried: %s", e->lines[i].key);
				unused++;
			}
		ok(unused == 0, "every run of %s was tried", e->path);
	}
	free(e->lines);
	free(e->path);
	free(e);
}

void
gt_expect_result(struct gt_expect *e, const char *setting, const char *trace, int run,
    const cJSON *real, const struct sim_result *res)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(real, "oom");
	uint64_t oom = cJSON_IsObject(o) ? gt_u64(o, "event") + 1 : 0;
	char detail[256];

	snprintf(detail, sizeof(detail), "peak reserved %llu, real %llu; OOM event %lld, real %lld",
	    (unsigned long long)res->peak_reserved, (unsigned long long)gt_u64(real, "peak_reserved"),
	    res->oomed ? (long long)res->oom.event : -1LL, (long long)oom - 1);
	gt_expect(e, setting, trace, run, gt_u64(real, "limit"),
	    res->peak_reserved == gt_u64(real, "peak_reserved") &&
	    (res->oomed ? res->oom.event + 1 : 0) == oom, detail);
}
