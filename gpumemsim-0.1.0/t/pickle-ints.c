/*
 * pickle-ints.c - integers in the pickle reader (traces/pickle.c), byte by
 * byte as Python's pickle module writes or reads them: LONG1 and LONG4 of
 * every width, negative ones sign-extended, values past int64 kept apart
 * as PK_BIGINT (a C++ frame's unknown line, 2^64 - 1).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traces/pickle.h"
#include "t/tap.h"

/* Parse PROTO 2, the bytes given, STOP: the root value's type and int. */
static int
parse(const char *what, const unsigned char *body, size_t n, enum pk_type want, int64_t value)
{
	unsigned char buf[64] = { 0x80, 0x02 };
	struct pickle *p = NULL;
	const struct pk_val *v;
	char *cause = NULL;
	int good;

	memcpy(buf + 2, body, n);
	buf[2 + n] = '.';
	v = pickle_parse(buf, n + 3, &p, &cause);
	good = v != NULL && v->type == want && (want != PK_INT || v->u.i == value);
	ok(good, "%s%s%s", what, cause ? ": " : "", cause ? cause : "");
	free(cause);
	pickle_free(p);
	return good;
}

int
main(void)
{
	static const unsigned char zero[] = { 0x8a, 0x00 };
	static const unsigned char minus1[] = { 0x8a, 0x01, 0xff };
	static const unsigned char minus1_wide[] = { 0x8a, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff };
	static const unsigned char big[] = { 0x8a, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0x00 };
	static const unsigned char int64_min[] = { 0x8a, 0x08, 0, 0, 0, 0, 0, 0, 0, 0x80 };
	static const unsigned char int64_max_wide[] = { 0x8a, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0x7f, 0x00 };
	static const unsigned char below_min[] = { 0x8a, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0x7f, 0xff };
	static const unsigned char long4[] = { 0x8b, 0x04, 0, 0, 0, 0x01, 0x02, 0x00, 0x00 };
	static const unsigned char long4_16[] = { 0x8b, 0x10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0 };

	parse("LONG1 of 0 bytes is 0", zero, sizeof(zero), PK_INT, 0);
	parse("LONG1 ff is -1", minus1, sizeof(minus1), PK_INT, -1);
	parse("LONG1 of nine ff bytes is still -1", minus1_wide, sizeof(minus1_wide), PK_INT, -1);
	parse("2^64 - 1 (nine bytes) is a big integer", big, sizeof(big), PK_BIGINT, 0);
	parse("eight bytes 00..80 is INT64_MIN", int64_min, sizeof(int64_min), PK_INT, INT64_MIN);
	parse("nine bytes with a zero top byte: INT64_MAX", int64_max_wide, sizeof(int64_max_wide),
	    PK_INT, INT64_MAX);
	parse("nine bytes below INT64_MIN: a big integer", below_min, sizeof(below_min), PK_BIGINT, 0);
	parse("LONG4 of four bytes: 0x201 = 513", long4, sizeof(long4), PK_INT, 513);
	parse("LONG4 of sixteen bytes holding 1 is 1", long4_16, sizeof(long4_16), PK_INT, 1);
	return tap_done();
}
