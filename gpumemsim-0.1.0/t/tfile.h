/*
 * tfile.h - temporary trace files for the reader tests.
 */
#ifndef T_TFILE_H
#define T_TFILE_H

#include <stddef.h>

/* Write len bytes to a fresh temp file ending in suffix (".json", ".jsonl.gz"
   with gz set compresses them); returns its path (caller unlinks and frees). */
char *tfile_write(const char *suffix, const void *data, size_t len, int gz);

/*
 * Open path and replay it through the caching policy.  Returns 0 or the
 * error code, with *cause set (caller frees).
 */
int tfile_replay(const char *path, char **cause);

#endif /* T_TFILE_H */
