/*
 * entry.c - what every command's entry shares (entries.h): the warnings an
 * answer carries, a policy's run spec on a target, and the notes a report
 * of one trace ends with (how a built job was built, what an incomplete
 * trace means).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/entries.h"
#include "sim/gms.h"

void
entry_warn(struct entry_warnings *w, const char *fmt, ...)
{
	va_list ap;

	if (w->n == ENTRY_WARNINGS)
		return;
	va_start(ap, fmt);
	w->w[w->n++] = gms_vasprintf(fmt, ap);
	va_end(ap);
}

void
entry_warnings_free(struct entry_warnings *w)
{
	while (w->n > 0)
		free(w->w[--w->n]);
}

struct run_spec
entry_spec(const struct entry_policy *p, const struct entry_target *t)
{
	return (struct run_spec){ .policy = p->ops, .opts = p->opts, .nopts = p->nopts,
	    .capacity = t->capacity, .placement = t->placement, .device = -1,
	    .gpu_total = t->gpu ? t->gpu->total : 0, .gpu_cc = t->gpu ? t->gpu->cc : 0 };
}

char *
entry_notes_text(const struct inputs *in, char *text, const struct trace_header *hdr)
{
	char *out = NULL, *note;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return text;
	fputs(text, f);
	free(text);
	if ((note = inputs_scaled_text(in)) != NULL)
		fprintf(f, "\n%s", note);
	free(note);
	if ((note = report_incomplete_text(hdr)) != NULL)
		fprintf(f, "\n%s", note);
	free(note);
	fclose(f);
	return out;
}

cJSON *
entry_notes_json(cJSON *o, const struct trace_header *hdr)
{
	cJSON_AddItemToObject(o, "incomplete", report_incomplete_json(hdr));
	return o;
}
