/*
 * gztail.h - whether a gzip file ends where its compressed data ends.  zlib's
 * gzread takes concatenated members as one stream and silently ignores
 * whatever follows the last one; a file damaged at its end, or two files
 * joined, would then read as a shorter trace without a word.
 */
#ifndef GMS_GZTAIL_H
#define GMS_GZTAIL_H

#include <stdint.h>

/*
 * fd holds size bytes of gzip data that decompressed to total bytes in all
 * (gztell at the end): 0 when nothing follows the last member, GMS_ETRACE
 * with *cause ("N bytes after the compressed data ...", for the caller to
 * place) when something does, GMS_EIO when it cannot be read (path named).  One 8-byte read when the file is a
 * single member (its trailer's size is total); else every member inflated.
 */
int gz_tail_check(int fd, uint64_t size, uint64_t total, const char *path, char **cause);

#endif
