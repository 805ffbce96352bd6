/*
 * gms.c - error table, allocation wrappers and size parsing/formatting
 * shared by the engine, the readers, the reports and the CLI.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sim/gms.h"

static const struct {
	int exit_code;
	const char *msg;
} gms_errtab[] = {
#define XX(name, code, msg) [GMS_E##name##_IDX] = { code, msg },
	GMS_ERRNO_MAP(XX)
#undef XX
};

int
gms_exit_code(int err)
{
	int idx = -err;

	if (idx < 0 || (size_t)idx >= ARRAY_SIZE(gms_errtab))
		return 4;
	return gms_errtab[idx].exit_code;
}

const char *
gms_strerror(int err)
{
	int idx = -err;

	if (idx < 0 || (size_t)idx >= ARRAY_SIZE(gms_errtab))
		return "unknown error";
	return gms_errtab[idx].msg;
}

size_t
gms_mem_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > SIZE_MAX)
		return 0;
	return (size_t)rl.rlim_cur;
}

uint64_t
gms_input_cap(void)
{
	size_t lim = gms_mem_limit();

	if (lim != 0 && lim / 4 < GMS_INPUT_CAP)
		return lim / 4;
	return GMS_INPUT_CAP;
}

static void __attribute__((noreturn))
gms_oom(size_t n)
{
	fprintf(stderr, "gpumemsim: error: out of host memory (allocating %zu bytes)\n", n);
	exit(4);
}

void *
gms_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		gms_oom(n);
	return p;
}

void *
gms_calloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (p == NULL)
		gms_oom(n * m);
	return p;
}

void *
gms_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		gms_oom(n);
	return q;
}

char *
gms_strdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(gms_malloc(n), s, n);
}

ssize_t
gms_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if ((n = read(fd, (char *)buf + got, len - got)) < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int
gms_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, p, len)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

char *
gms_vasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		gms_oom(strlen(fmt));
	return s;
}

char *
gms_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = gms_vasprintf(fmt, ap);
	va_end(ap);
	return s;
}

int
gms_fail(char **cause, int err, const char *fmt, ...)
{
	va_list ap;

	if (cause != NULL) {
		free(*cause);
		va_start(ap, fmt);
		*cause = gms_vasprintf(fmt, ap);
		va_end(ap);
	}
	return err;
}

void
gms_assert_fail(const char *expr, const char *file, int line)
{
	fprintf(stderr, "gpumemsim: BUG: %s:%d: assertion failed: %s\n", file, line, expr);
	abort();
}

static const struct {
	const char *suffix;
	uint64_t mult;
} size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1ULL << 10 }, { "kib", 1ULL << 10 }, { "kb", 1000ULL },
	{ "m", 1ULL << 20 }, { "mib", 1ULL << 20 }, { "mb", 1000000ULL },
	{ "g", 1ULL << 30 }, { "gib", 1ULL << 30 }, { "gb", 1000000000ULL },
	{ "t", 1ULL << 40 }, { "tib", 1ULL << 40 }, { "tb", 1000000000000ULL },
};

int
gms_parse_size(const char *s, uint64_t *out, char **cause)
{
	const char *p = s;
	char unit[8];
	size_t ulen = 0, i;
	uint64_t whole = 0, fnum = 0, fden = 1;
	unsigned __int128 bytes;
	int digits = 0, frac = 0;

	while (isspace((unsigned char)*p))
		p++;
	/* Digits by hand, in integers: strtod would take hex, inf and nan, and
	   round 3004.224609375 MiB to a byte less. */
	for (; isdigit((unsigned char)*p); p++, digits++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return gms_fail(cause, GMS_ECONFIG, "invalid size '%s': too large", s);
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, frac++) {
			if (frac < 18) {
				fnum = fnum * 10 + (uint64_t)(*p - '0');
				fden *= 10;
			}
		}
		if (frac == 0)
			digits = 0;
	}
	if (digits == 0)
		return gms_fail(cause, GMS_ECONFIG,
		    "invalid size '%s': expected a number of bytes, optionally with a unit (KiB, MiB, GiB, KB, MB, GB)", s);
	while (isspace((unsigned char)*p))
		p++;
	while (*p != '\0' && ulen < sizeof(unit) - 1 && isalpha((unsigned char)*p))
		unit[ulen++] = (char)tolower((unsigned char)*p++);
	unit[ulen] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '\0')
		return gms_fail(cause, GMS_ECONFIG, "invalid size '%s': unexpected '%s'", s, p);
	for (i = 0; i < ARRAY_SIZE(size_units); i++) {
		if (strcmp(unit, size_units[i].suffix) != 0)
			continue;
		/* "2.93GiB" means what it says, to the byte below; "1.5" bytes does not. */
		if (frac > 0 && size_units[i].mult == 1)
			return gms_fail(cause, GMS_ECONFIG,
			    "invalid size '%s': not a whole number of bytes", s);
		bytes = (unsigned __int128)whole * size_units[i].mult +
		    (unsigned __int128)fnum * size_units[i].mult / fden;
		if (bytes > UINT64_MAX)
			return gms_fail(cause, GMS_ECONFIG, "invalid size '%s': too large", s);
		/* "--capacity=24" could mean 24 GiB or 24 bytes: only 0 goes without a unit */
		if (ulen == 0 && bytes != 0)
			return gms_fail(cause, GMS_ECONFIG, "invalid size '%s': a size needs a unit, "
			    "e.g. %sGiB or %sGB (or %sB for bytes)", s, s, s, s);
		*out = (uint64_t)bytes;
		return 0;
	}
	return gms_fail(cause, GMS_ECONFIG,
	    "invalid size '%s': unknown unit '%s' (use KiB, MiB, GiB, TiB, KB, MB, GB or TB)", s, unit);
}

const char *
gms_fmt_size(uint64_t n, char *buf, size_t len)
{
	if (n < GMS_KiB)
		snprintf(buf, len, "%llu B", (unsigned long long)n);
	else if (n < GMS_MiB)
		snprintf(buf, len, "%.2f KiB", (double)n / (double)GMS_KiB);
	else if (n < GMS_GiB)
		snprintf(buf, len, "%.2f MiB", (double)n / (double)GMS_MiB);
	else
		snprintf(buf, len, "%.2f GiB", (double)n / (double)GMS_GiB);
	return buf;
}

const char *
gms_fmt_capacity(uint64_t n, char *buf, size_t len)
{
	char b[32];

	gms_fmt_size(n, b, sizeof(b));
	if (n >= 1000000 && n % 1000000 == 0 && n % GMS_MiB != 0)
		snprintf(buf, len, "%s, %.2f %s", b, n >= 1000000000 ? (double)n / 1e9 :
		    (double)n / 1e6, n >= 1000000000 ? "GB" : "MB");
	else
		snprintf(buf, len, "%s", b);
	return buf;
}
