/*
 * out.c - what a command writes: its answer, as JSON (with its "schema"
 * first, and how a built job was built) or as text, to the report stream;
 * and the files it writes as it goes (--timeline's CSV, a picture, a page),
 * through sim/outfile.h: never onto an input, never half a file.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "analysis/inputs.h"
#include "analysis/report.h"
#include "analysis/timeline.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/outfile.h"

void
cli_print_json(struct cli_args *a, cJSON *o)
{
	cJSON *schema;
	char *text;

	if (a->in != NULL)
		inputs_scaled_json(a->in, o);
	/* first, so that a script can check it before reading the rest (doc/JSON.md) */
	if (cJSON_IsObject(o) && cJSON_GetObjectItemCaseSensitive(o, "schema") == NULL) {
		schema = cJSON_CreateNumber(REPORT_JSON_SCHEMA);
		schema->string = gms_strdup("schema");
		cJSON_InsertItemInArray(o, 0, schema);
	}
	text = cJSON_Print(o);

	fprintf(a->report, "%s\n", text);
	free(text);
	cJSON_Delete(o);
}

void
cli_print(struct cli_args *a, cJSON *json, char *text)
{
	if (json != NULL) {
		cli_print_json(a, json);
		return;
	}
	if (text != NULL)
		fputs(text, a->report);
	free(text);
}

int
cli_out_open_n(const char *path, const char *const *inputs, size_t n, struct cli_out *o)
{
	char *cause = NULL;
	int err;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	if ((err = outfile_open(path, inputs, n, &o->of, &cause)) < 0)
		return cli_fail(err, cause);
	if ((o->f = fdopen(o->of.fd, "w")) == NULL) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		outfile_abort(&o->of);
		return EXIT_SYSTEM;
	}
	o->of.fd = -1;	/* the stream owns it now */
	o->file = 1;
	return 0;
}

int
cli_out_close(struct cli_out *o, int keep)
{
	char *cause = NULL;
	int err, bad;

	if (o->f == NULL)
		return 0;
	bad = fflush(o->f) != 0 || ferror(o->f);
	if (o->file && fclose(o->f) != 0)
		bad = 1;
	o->f = NULL;
	if (!o->file) {
		if (bad && keep) {
			cli_error("cannot write '%s': %s", o->path, strerror(errno));
			return EXIT_SYSTEM;
		}
		return 0;
	}
	if (bad || !keep) {
		if (bad && keep)
			cli_error("cannot write '%s': %s", o->path, strerror(errno));
		outfile_abort(&o->of);
		return bad && keep ? EXIT_SYSTEM : 0;
	}
	if ((err = outfile_commit(&o->of, &cause)) < 0)
		return cli_fail(err, cause);
	return 0;
}

int
cli_write_timelines(const struct cli_args *a, struct timeline *const *tls,
    const char *const *labels, size_t n)
{
	const char *path = a->v[OPT_TIMELINE].s;
	struct cli_out o;
	int rc;

	if ((rc = cli_out_open_n(path, a->in->files, a->in->nfiles, &o)) != 0)
		return rc;
	if (timeline_write_csv(o.f, tls, labels, n) < 0) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		cli_out_close(&o, 0);
		return EXIT_SYSTEM;
	}
	return cli_out_close(&o, 1);
}
