/*
 * gztail.c - a gzip file's end checked against its compressed data's
 * (gztail.h): the trailer of a single member says the decompressed size, so
 * the common file costs one read; a file of several members, or one whose
 * trailer disagrees, is inflated member by member to find where they end.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sim/gms.h"
#include "traces/gztail.h"

#define CHUNK (1 << 16)

static int
read_fail(const char *path, char **cause)
{
	return gms_fail(cause, GMS_EIO, "cannot read trace '%s': %s", path,
	    errno ? strerror(errno) : "short read");
}

/* Where the last member ends, inflating each in turn: 0 and *end, or < 0. */
static int
members_end(int fd, uint64_t size, const char *path, uint64_t *end, char **cause)
{
	unsigned char *in = gms_malloc(CHUNK), *out = gms_malloc(CHUNK);
	z_stream s;
	uint64_t at = 0;	/* file offset of in[0] */
	ssize_t got;
	int zr = Z_OK, err = 0;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK) {
		free(in), free(out);
		return gms_fail(cause, GMS_EIO, "%s: cannot start zlib", path);
	}
	*end = 0;
	for (;;) {
		if (s.avail_in == 0) {
			at += (uint64_t)(s.next_in ? s.next_in - in : 0);
			if (at >= size)
				break;
			errno = 0;
			if ((got = pread(fd, in, CHUNK, (off_t)at)) <= 0) {
				err = read_fail(path, cause);
				break;
			}
			s.next_in = in;
			s.avail_in = (uInt)got;
		}
		s.next_out = out;
		s.avail_out = CHUNK;
		zr = inflate(&s, Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			*end = at + (uint64_t)(s.next_in - in);
			/* another member follows only where its magic does */
			if (s.avail_in == 0 && *end < size) {
				unsigned char m[2];

				errno = 0;
				if ((got = pread(fd, m, 2, (off_t)*end)) < 0) {
					err = read_fail(path, cause);
					break;
				}
				if (got < 2 || m[0] != 0x1f || m[1] != 0x8b)
					break;
			} else if (s.avail_in == 1 || (s.avail_in >= 2 &&
			    (s.next_in[0] != 0x1f || s.next_in[1] != 0x8b))) {
				break;
			}
			inflateReset(&s);
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			break;	/* gzread said what was wrong already, or would */
		}
	}
	inflateEnd(&s);
	free(in);
	free(out);
	return err;
}

int
gz_tail_check(int fd, uint64_t size, uint64_t total, const char *path, char **cause)
{
	unsigned char t[8];
	uint64_t end = 0;
	int err;

	if (size < 18)
		return 0;	/* no whole member: gzread has said what is wrong */
	errno = 0;
	if (pread(fd, t, 8, (off_t)(size - 8)) != 8)
		return read_fail(path, cause);
	if (((uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24) ==
	    (uint32_t)total)
		return 0;	/* the last member's trailer ends the file and says it all */
	if ((err = members_end(fd, size, path, &end, cause)) < 0)
		return err;
	if (end != 0 && end < size)
		return gms_fail(cause, GMS_ETRACE, "%llu byte%s after the compressed data (which "
		    "ends at byte %llu of %llu): the file was damaged or another joined to it",
		    (unsigned long long)(size - end), GMS_PLURAL(size - end),
		    (unsigned long long)end, (unsigned long long)size);
	return 0;
}
