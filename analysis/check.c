/*
 * check.c - checks on a run (check.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/check.h"
#include "analysis/placements.h"
#include "analysis/report.h"
#include "sim/gms.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

static struct check_item *
add(struct check_list *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = gms_realloc(l->items, l->cap * sizeof(*l->items));
	}
	memset(&l->items[l->n], 0, sizeof(l->items[0]));
	return &l->items[l->n++];
}

void
check_le(struct check_list *l, const char *name, enum check_unit unit, double value,
    double limit, const char *detail)
{
	struct check_item *c = add(l);

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->unit = unit;
	c->value = value;
	c->limit = limit;
	c->pass = value <= limit;
	snprintf(c->detail, sizeof(c->detail), "%s", detail ? detail : "");
}

/* A capacity the window fits in but the job did not: it held more before it. */
static void
held_before(struct check_item *c, uint64_t before, uint64_t capacity,
    const struct trace_header *hdr)
{
	c->pass = 0;
	snprintf(c->detail, sizeof(c->detail), "the allocator recorded %s in use %s, more than %s",
	    SZ(before), trace_peak_where(hdr), SZ(capacity));
}

void
check_fits(struct check_list *l, const char *name, uint64_t capacity, const struct sim_result *res,
    const struct trace_header *hdr)
{
	struct check_item *c = add(l);
	uint64_t before = trace_peak_before(hdr);

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->unit = CHECK_FITS;
	c->limit = (double)capacity;
	c->value = res->oomed ? (double)res->oom.event + 1 : 0;
	c->pass = !res->oomed;
	if (!res->oomed && before > capacity)
		held_before(c, before, capacity, hdr);
	if (res->oomed)
		snprintf(c->detail, sizeof(c->detail), "out of memory at event %llu (a request "
		    "for %s)%s%s", (unsigned long long)res->oom.event, SZ(res->oom.size),
		    res->oom.at ? " at " : "", res->oom.at ? res->oom.at : "");
}

void
check_complete(struct check_list *l, const char *name, const struct trace_header *hdr)
{
	struct check_item *c = add(l);
	const cJSON *bad = hdr->source ? cJSON_GetObjectItemCaseSensitive(hdr->source,
	    "inconsistent") : NULL;
	const char *why[4];
	size_t n = 0, i, len = 0;

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->unit = CHECK_COMPLETE;
	if (hdr->ends_in_oom)
		why[n++] = "cut short by its out of memory";
	if (hdr->starts_mid_run)
		why[n++] = "starts mid-run";
	if (hdr->cut != NULL && !hdr->ends_in_oom)
		why[n++] = hdr->cut;
	if (bad != NULL)
		why[n++] = "its numbers disagree";
	c->pass = n == 0;
	c->value = (double)n;
	for (i = 0; i < n && len < sizeof(c->detail); i++)
		len += (size_t)snprintf(c->detail + len, sizeof(c->detail) - len, "%s%s",
		    i ? "; " : "", why[i]);
}

void
check_fits_placements(struct check_list *l, const char *name, const struct placements *p,
    const struct trace_header *hdr)
{
	struct check_item *c = add(l);
	uint64_t before = trace_peak_before(hdr);

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->unit = CHECK_FITS;
	c->limit = (double)p->capacity;
	c->value = p->ooms ? (double)p->oom_first + 1 : 0;
	c->pass = p->ooms == 0;
	if (p->ooms == 0 && before > p->capacity)
		held_before(c, before, p->capacity, hdr);
	else if (p->ooms == 0)
		snprintf(c->detail, sizeof(c->detail), "under every one of %zu placements", p->n);
	else if (p->oom_first == p->oom_last)
		snprintf(c->detail, sizeof(c->detail), "out of memory under %zu of %zu placements, "
		    "at event %llu", p->ooms, p->n, (unsigned long long)p->oom_first);
	else
		snprintf(c->detail, sizeof(c->detail), "out of memory under %zu of %zu placements, "
		    "at events %llu .. %llu", p->ooms, p->n, (unsigned long long)p->oom_first,
		    (unsigned long long)p->oom_last);
}

int
check_baseline(struct check_list *l, const cJSON *base, const char *trace, const char *policy,
    const struct sim_result *res, double tolerance, char **cause)
{
	static const char *const keys[] = { "peak_reserved", "peak_allocated", "fragmentation",
	    "device_allocs", "alloc_retries" };
	const cJSON *it, *oom;
	double cur, was, lim;
	char name[64], detail[160];
	size_t i;
	int n = 0;

	if (!cJSON_IsObject(base) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(base,
	    "peak_reserved")))
		return gms_fail(cause, GMS_ETRACE, "not a saved 'gpumemsim run --format=json' result "
		    "(no \"peak_reserved\")");
	/* a baseline of another job, or of another allocator, says nothing about this run */
	it = cJSON_GetObjectItemCaseSensitive(base, "trace");
	if (trace != NULL && (!cJSON_IsString(it) || strcmp(it->valuestring, trace) != 0))
		return gms_fail(cause, GMS_ETRACE, "the baseline is of trace %s%s%s, this run of "
		    "'%s' (--any-trace takes it: the same job recorded under another name)",
		    cJSON_IsString(it) ? "'" : "", cJSON_IsString(it) ? it->valuestring :
		    "(none named)", cJSON_IsString(it) ? "'" : "", trace);
	it = cJSON_GetObjectItemCaseSensitive(base, "policy");
	if (!cJSON_IsString(it) || strcmp(it->valuestring, policy) != 0)
		return gms_fail(cause, GMS_ETRACE, "the baseline is of policy %s%s%s, this run of "
		    "'%s'", cJSON_IsString(it) ? "'" : "", cJSON_IsString(it) ? it->valuestring :
		    "(none named)", cJSON_IsString(it) ? "'" : "", policy);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		it = cJSON_GetObjectItemCaseSensitive(base, keys[i]);
		if (it == NULL)
			return gms_fail(cause, GMS_ETRACE, "the baseline has no \"%s\" (every "
			    "'gpumemsim run --format=json' result has)", keys[i]);
		/* a metric that no run could have given is a broken baseline, not a pass */
		if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0 ||
		    (i == 2 ? it->valuedouble > 1 : it->valuedouble != floor(it->valuedouble) ||
		    it->valuedouble > 9007199254740992.0))
			return gms_fail(cause, GMS_ETRACE, "\"%s\" is not %s", keys[i],
			    i == 2 ? "a fraction from 0 to 1" : i == 3 || i == 4 ? "a count" :
			    "a number of bytes");
		was = it->valuedouble;
		switch (i) {
		case 0: cur = (double)res->peak_reserved; break;
		case 1: cur = (double)res->peak_allocated; break;
		case 2: cur = report_fragmentation(res); break;
		case 3: cur = (double)res->device_allocs; break;
		default: cur = (double)res->alloc_retries; break;
		}
		lim = was * (1.0 + tolerance);
		snprintf(name, sizeof(name), "baseline %s", keys[i]);
		/* as the value is shown: a fraction to four places, bytes and counts whole */
		snprintf(detail, sizeof(detail), i == 2 ? "the baseline's %.4f plus %g%%" :
		    "the baseline's %.0f plus %g%%", was, 100.0 * tolerance);
		check_le(l, name, i == 2 ? CHECK_RATIO : i == 3 || i == 4 ? CHECK_COUNT : CHECK_BYTES,
		    cur, lim, detail);
		n++;
	}
	oom = cJSON_GetObjectItemCaseSensitive(base, "oom");
	if (cJSON_IsNull(oom) && res->oomed) {
		struct check_item *c = add(l);

		snprintf(c->name, sizeof(c->name), "baseline fits");
		c->unit = CHECK_FITS;
		c->value = (double)res->oom.event + 1;
		c->pass = 0;
		snprintf(c->detail, sizeof(c->detail), "the baseline ran without running out of "
		    "memory; this run ran out at event %llu", (unsigned long long)res->oom.event);
	}
	return n > 0 ? 0 : gms_fail(cause, GMS_ETRACE, "the baseline has none of the metrics "
	    "peak_reserved, peak_allocated, fragmentation, device_allocs, alloc_retries");
}

size_t
check_failed(const struct check_list *l)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += !l->items[i].pass;
	return n;
}

void
check_free(struct check_list *l)
{
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* "3.45 GiB (3703570432 B) <= 4.00 GiB" and the like. */
static void
describe(const struct check_item *c, char *buf, size_t len)
{
	char a[32], b[32];

	switch (c->unit) {
	case CHECK_BYTES:
		snprintf(buf, len, "%s (%.0f B) <= %s (%.0f B)", gms_fmt_size((uint64_t)c->value, a,
		    sizeof(a)), c->value, gms_fmt_size((uint64_t)c->limit, b, sizeof(b)), c->limit);
		break;
	case CHECK_RATIO:
		snprintf(buf, len, "%.4f <= %.4f", c->value, c->limit);
		break;
	case CHECK_COUNT:
		snprintf(buf, len, "%.0f <= %.0f", c->value, floor(c->limit));
		break;
	case CHECK_COMPLETE:
		snprintf(buf, len, "%s", c->pass ? "the whole job" : "incomplete");
		break;
	case CHECK_FITS:
		if (c->limit > 0)
			snprintf(buf, len, "%s in %s", c->pass ? "fits" : "does not fit",
			    gms_fmt_size((uint64_t)c->limit, a, sizeof(a)));
		else
			snprintf(buf, len, "%s", c->pass ? "fits" : "does not fit");
		break;
	}
}

char *
check_text(const struct check_list *l, const char *title)
{
	char *out = NULL, what[160];
	size_t len = 0, i, failed = check_failed(l), width = 26;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return gms_strdup("(out of memory)\n");
	for (i = 0; i < l->n; i++)
		width = GMS_MAX(width, strlen(l->items[i].name));
	fprintf(f, "%s\n", title);
	for (i = 0; i < l->n; i++) {
		describe(&l->items[i], what, sizeof(what));
		fprintf(f, "  %s  %-*s %s%s%s\n", l->items[i].pass ? "PASS" : "FAIL", (int)width,
		    l->items[i].name, what, l->items[i].detail[0] ? ": " : "", l->items[i].detail);
	}
	if (failed)
		fprintf(f, "%zu of %zu check%s failed\n", failed, l->n, l->n == 1 ? "" : "s");
	else if (l->n == 1)
		fprintf(f, "the check passed\n");
	else
		fprintf(f, "all %zu checks passed\n", l->n);
	fclose(f);
	return out;
}

char *
check_tap(const struct check_list *l)
{
	char *out = NULL, what[160];
	size_t len = 0, i;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return gms_strdup("Bail out! out of memory\n");
	fprintf(f, "1..%zu\n", l->n);
	for (i = 0; i < l->n; i++) {
		describe(&l->items[i], what, sizeof(what));
		fprintf(f, "%s %zu - %s: %s\n", l->items[i].pass ? "ok" : "not ok", i + 1,
		    l->items[i].name, what);
		if (l->items[i].detail[0])
			fprintf(f, "# %s\n", l->items[i].detail);
	}
	fclose(f);
	return out;
}

cJSON *
check_json(const struct check_list *l)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "checks"), *it;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct check_item *c = &l->items[i];

		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "check", c->name);
		cJSON_AddBoolToObject(it, "pass", c->pass);
		if (c->unit == CHECK_COMPLETE) {
			cJSON_AddBoolToObject(it, "complete", c->pass);
		} else if (c->unit == CHECK_FITS) {
			cJSON_AddBoolToObject(it, "fits", c->pass);
			if (c->limit > 0)
				cJSON_AddNumberToObject(it, "capacity", c->limit);
			if (!c->pass && c->value > 0)
				cJSON_AddNumberToObject(it, "oom_event", c->value - 1);
		} else {
			cJSON_AddNumberToObject(it, "value", c->value);
			cJSON_AddNumberToObject(it, "limit", c->limit);
		}
		if (c->detail[0])
			cJSON_AddStringToObject(it, "detail", c->detail);
		cJSON_AddItemToArray(a, it);
	}
	cJSON_AddBoolToObject(o, "passed", check_failed(l) == 0);
	cJSON_AddNumberToObject(o, "failed", (double)check_failed(l));
	return o;
}
