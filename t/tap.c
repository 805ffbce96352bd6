/*
 * tap.c - the TAP library of tap.h.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/tap.h"

static int tap_count, tap_failed;

static int
vreport(int cond, const char *file, int line, const char *fmt, va_list ap)
{
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_count);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("# failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	/* t/mutate.sh needs only a mutant's first failure: the rest is time */
	if (!cond && getenv("TAP_BAIL") != NULL) {
		printf("Bail out! TAP_BAIL: stopped at the first failure\n");
		exit(1);
	}
	return cond;
}

int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cond, file, line, fmt, ap);
	va_end(ap);
	return cond;
}

int
tap_is_u64(uint64_t got, uint64_t want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int cond = got == want;

	va_start(ap, fmt);
	vreport(cond, file, line, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#    got: %" PRIu64 "\n#   want: %" PRIu64 "\n", got, want);
	return cond;
}

int
tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int cond = (got == NULL && want == NULL) ||
	    (got != NULL && want != NULL && strcmp(got, want) == 0);

	va_start(ap, fmt);
	vreport(cond, file, line, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#    got: '%s'\n#   want: '%s'\n", got ? got : "(null)", want ? want : "(null)");
	return cond;
}

void
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void
skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(0);
}

int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

char *
tap_srcpath(const char *rel)
{
	const char *top = getenv("TOP_SRCDIR");
	size_t n;
	char *p;

	if (top == NULL || *top == '\0')
		top = ".";
	n = strlen(top) + strlen(rel) + 2;
	p = malloc(n);
	if (p == NULL)
		abort();
	snprintf(p, n, "%s/%s", top, rel);
	return p;
}
