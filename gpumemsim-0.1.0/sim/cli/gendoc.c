/*
 * gendoc.c - run at build time: writes the man pages (gpumemsim.1 and
 * gpumemsim-COMMAND.1) and the bash completion from the command table, so
 * that they say exactly what the parser accepts.
 *
 *   gendoc man DIR      gendoc bash FILE
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/cli/cli.h"

static FILE *
create(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	return f;
}

static void
done(FILE *f, const char *path)
{
	if (fflush(f) != 0 || ferror(f) || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	const struct cli_command *c;
	char path[4096], date[32];
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t t = epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
	struct tm tm;
	FILE *f;

	/* The date of the release, for reproducible pages when it is given. */
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	if (argc == 3 && strcmp(argv[1], "man") == 0) {
		snprintf(path, sizeof(path), "%s/gpumemsim.1", argv[2]);
		f = create(path);
		cli_man_main(f, date);
		done(f, path);
		for (c = cli_commands; c->name != NULL; c++) {
			snprintf(path, sizeof(path), "%s/gpumemsim-%s.1", argv[2], c->name);
			f = create(path);
			cli_man(f, c, date);
			done(f, path);
		}
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "bash") == 0) {
		f = create(argv[2]);
		cli_completion_bash(f);
		done(f, argv[2]);
		return 0;
	}
	fprintf(stderr, "usage: gendoc man DIR | gendoc bash FILE\n");
	return 2;
}
