/*
 * fuzz-eventscan.c - the fast event reader (traces/eventscan.c) under
 * libFuzzer, against the cJSON path: an input it reads must be read alike
 * by cJSON and trace_event_from_json, field for field; anything else is a
 * finding (abort).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "traces/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), *copy = malloc(size + 1), *cause = NULL;
	struct trace_event fast, slow;
	cJSON *o;

	memcpy(line, data, size);
	line[size] = '\0';
	memcpy(copy, line, size + 1);
	if (trace_event_scan(copy, &fast)) {
		o = cJSON_Parse(line);
		if (o == NULL || trace_event_from_json(o, &slow, &cause) < 0 ||
		    !trace_event_equal(&fast, &slow))
			abort();
		free(cause);
		cJSON_Delete(o);
	}
	free(line);
	free(copy);
	return 0;
}
