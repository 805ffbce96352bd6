/*
 * fuzz-eventscan.c - the fast event reader (traces/eventscan.c) under
 * libFuzzer, against the cJSON path: an input it reads must be read alike
 * by cJSON and trace_event_from_json, field for field; read in place (as
 * JSON Lines reads it), alike and ending at its newline; anything else is a
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
	/* in place, as JSON Lines reads it: the data, a newline, the next line */
	{
		/* padded as the reader pads its buffer */
		char *buf = calloc(1, size + 4 + TRACE_SCAN_PAD), *end = NULL, *alone;
		struct trace_event inplace;

		memcpy(buf, data, size);
		memcpy(buf + size, "\n{\0", 4);
		if (trace_event_scan_line(buf, &inplace, &end)) {
			/* read: it ends at the first newline, and reads alike alone */
			if (memchr(data, '\n', (size_t)(end - buf)) != NULL || *end != '\n')
				abort();
			alone = malloc((size_t)(end - buf) + 1);
			memcpy(alone, data, (size_t)(end - buf));
			alone[end - buf] = '\0';
			if (!trace_event_scan(alone, &slow) || !trace_event_equal(&inplace, &slow))
				abort();
			free(alone);
		}
		free(buf);
	}
	free(line);
	free(copy);
	return 0;
}
