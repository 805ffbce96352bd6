/*
 * fuzz-scale.c - scale's alignment and building under libFuzzer.  The input
 * is read as two to four recordings of a job: a count, then for each a value
 * and a run of events (a byte each: alloc at one of 8 sites, free of a live
 * one, mark; a size byte after an alloc).  Every pair is aligned (each match
 * checked: equal tokens, in order on both sides, as many as the longest
 * common subsequence when short), and the job is built at values across
 * the range and past it: never a crash, every size above 0, the recording
 * followed's events kept one for one, a value out of range refused.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "traces/align.h"
#include "sim/gms.h"
#include "traces/scale.h"
#include "t/fuzz/fuzz.h"
#include "traces/trace.h"
#include "traces/tracemem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const sites[8] = { "a", "b", "c", "d", "e", "f", "g", "h" };

static void
check_alignment(const uint8_t *x, size_t nx, const uint8_t *y, size_t ny)
{
	uint64_t a[64], b[64];
	int32_t map[64];
	size_t i, j, n = 0, lcs[65][65];
	long d, last = -1;

	nx = nx > 64 ? 64 : nx;
	ny = ny > 64 ? 64 : ny;
	for (i = 0; i < nx; i++)
		a[i] = x[i] & 7;
	for (i = 0; i < ny; i++)
		b[i] = y[i] & 7;
	d = align_tokens(a, nx, b, ny, 200, map);
	for (i = 0; i < nx; i++) {
		if (map[i] < 0)
			continue;
		if (map[i] <= last || (size_t)map[i] >= ny || a[i] != b[map[i]])
			abort();
		last = map[i];
		n++;
	}
	for (i = 0; i <= nx; i++)
		for (j = 0; j <= ny; j++)
			lcs[i][j] = i == 0 || j == 0 ? 0 : a[i - 1] == b[j - 1] ? lcs[i - 1][j - 1] + 1 :
			    lcs[i - 1][j] > lcs[i][j - 1] ? lcs[i - 1][j] : lcs[i][j - 1];
	if (n != lcs[nx][ny] || d != (long)(nx + ny - 2 * n))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_mem *mem[4] = { 0 }, *t;
	struct scale_rec recs[4];
	struct scale_model *m = NULL;
	struct scale_built info;
	struct trace_header h = { .name = "fuzz", .format = "json" };
	struct trace_event ev;
	uint64_t live[256], next_id = 1, hi = 0;
	size_t nrec, r, p = 1, nlive, i, n, starts[5];
	const uint64_t probes[] = { 1, 2, 3, 7, 64, 1000 };
	char *cause = NULL;

	if (size < 3)
		return 0;
	nrec = 2 + data[0] % 3;
	for (r = 0; r < nrec && p < size; r++) {
		recs[r].path = sites[r];
		recs[r].value = 1 + data[p++] % 32;
		mem[r] = trace_mem_new(sites[r], &h);
		recs[r].mem = mem[r];
		starts[r] = p;
		for (nlive = 0; p < size && data[p] != 0xff; p++) {
			memset(&ev, 0, sizeof(ev));
			switch (data[p] >> 6) {
			case 0: case 1:
				if (nlive == 256 || p + 1 >= size)
					continue;
				ev.op = TRACE_ALLOC;
				ev.id = next_id++;
				ev.at = sites[data[p] & 7];
				p++;
				ev.size = (uint64_t)data[p] << (data[p] & 31);
				live[nlive++] = ev.id;
				break;
			case 2:
				if (nlive == 0)
					continue;
				ev.op = TRACE_FREE;
				i = data[p] % nlive;
				ev.id = live[i];
				live[i] = live[--nlive];
				break;
			default:
				ev.op = TRACE_MARK;
				ev.label = sites[data[p] & 7];
			}
			if (trace_mem_append(mem[r], &ev, &cause) < 0)
				abort();
		}
		if (r > 0)
			check_alignment(data + starts[r - 1], starts[r] - starts[r - 1],
			    data + starts[r], p - starts[r]);
		p++;	/* the 0xff between recordings */
	}
	nrec = r;
	if (scale_model_new(recs, nrec, &m, &cause) == 0) {
		for (r = 0; r < nrec; r++)
			hi = recs[r].value > hi ? recs[r].value : hi;
		for (i = 0; i < sizeof(probes) / sizeof(*probes); i++) {
			uint64_t v = probes[i] == 1000 ? hi * SCALE_EXTRAPOLATION_MAX + 1 : probes[i];

			/* both ends of what the recordings leave open, in turn */
			if (scale_build_bound(m, v, i % 2 ? SCALE_LOW : SCALE_FIT, &t, &info,
			    &cause) == 0) {
				if (v > hi * SCALE_EXTRAPOLATION_MAX)
					abort();
				for (n = 0; n < trace_mem_count(t); n++) {
					trace_mem_event(t, n, &ev);
					if (ev.op == TRACE_ALLOC && (ev.size == 0 ||
					    ev.size > (uint64_t)TRACE_SIZE_MAX))
						abort();
				}
				trace_mem_free(t);
			}
			free(cause);
			cause = NULL;
		}
	}
	free(cause);
	scale_model_free(m);
	for (r = 0; r < 4; r++)
		trace_mem_free(mem[r]);
	return 0;
}
