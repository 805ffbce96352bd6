/*
 * gms-size.c - size parsing and formatting (sim/gms.c): units, decimals,
 * and the errors for what is not a size.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "t/tap.h"

static void
parses(const char *s, uint64_t want)
{
	uint64_t got = 0;
	char *cause = NULL;
	int rc = gms_parse_size(s, &got, &cause);

	ok(rc == 0, "'%s' parses%s%s", s, cause ? ": " : "", cause ? cause : "");
	is_u64(got, want, "'%s' is %llu bytes", s, (unsigned long long)want);
	free(cause);
}

static void
rejects(const char *s, const char *why)
{
	uint64_t got = 0;
	char *cause = NULL;
	int rc = gms_parse_size(s, &got, &cause);

	ok(rc == GMS_ECONFIG && cause != NULL && strstr(cause, why) != NULL,
	    "'%s' is refused: %s", s, cause ? cause : "(no cause)");
	free(cause);
}

int
main(void)
{
	char buf[32];

	parses("1048576B", 1048576);
	parses("0", 0);	/* the one number that needs no unit */
	parses("24GiB", 25769803776ULL);
	parses("24 GiB", 25769803776ULL);
	parses("24gib", 25769803776ULL);
	parses("24G", 25769803776ULL);
	parses("16GB", 16000000000ULL);
	parses("512KiB", 524288);
	parses("512KB", 512000);
	parses("1.5GiB", 1610612736ULL);
	parses("1.5 MB", 1500000);
	parses("2.93GiB", 3146063544ULL);	/* 3146063544.32: rounded down */
	parses("3004.224609375MiB", 3150157824ULL);
	parses("2TiB", 2199023255552ULL);
	parses("20MiB", 20971520);
	parses("100B", 100);

	/* "--capacity=24" meant 24 GiB: a bare number is refused (issue 28) */
	rejects("24", "invalid size '24': a size needs a unit, e.g. 24GiB or 24GB (or 24B for bytes)");
	rejects("1048576", "a size needs a unit");
	rejects("", "expected a number");
	rejects("GiB", "expected a number");
	rejects("-1GiB", "expected a number");
	rejects("12 apples", "unknown unit 'apples'");
	rejects("1.5", "not a whole number");
	rejects("0x100", "unexpected '100'");
	rejects("99999999999999999999", "too large");
	rejects("20000000TiB", "too large");
	rejects("1GiB extra", "unexpected 'extra'");

	is_str(gms_fmt_size(512, buf, sizeof(buf)), "512 B", "512 bytes print as bytes");
	is_str(gms_fmt_size(1536, buf, sizeof(buf)), "1.50 KiB", "1536 bytes print as KiB");
	is_str(gms_fmt_size(20971520, buf, sizeof(buf)), "20.00 MiB", "20 MiB");
	is_str(gms_fmt_size(3703570432ULL, buf, sizeof(buf)), "3.45 GiB", "3703570432 bytes");
	return tap_done();
}
