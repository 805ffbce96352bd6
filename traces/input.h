/*
 * input.h - a trace's file as the readers get it, whatever the user gave:
 * standard input, a FIFO or a process substitution (`<(zcat t.gz)`) is kept
 * in an unnamed temporary file first, since readers rewind (format sniffing,
 * two-pass formats) and commands read twice; and a file read more than once
 * by one command must be the same file every time, or two traces would be
 * mixed in one report.
 */
#ifndef TRACES_INPUT_H
#define TRACES_INPUT_H

#include <stddef.h>

/*
 * A descriptor open on path's bytes, positioned at the start: the file
 * itself when it is regular, else a temporary copy of all it gave ("-" is
 * standard input), made at the first open and read again by every later
 * one of the same path (each its own descriptor and offset).  What is copied is first looked at: its first bytes (up
 * to INPUT_HEAD) must satisfy looks_like (else GMS_ETRACE, "not a trace",
 * before anything is kept: /dev/zero is not spooled), and at most
 * INPUT_SPOOL_MAX bytes are kept (else GMS_ETRACE: give the file itself).
 * 0 with *fd, or GMS_EIO / GMS_ETRACE with *cause.
 */
#define INPUT_HEAD 4096
#define INPUT_SPOOL_MAX ((unsigned long long)4 << 30)
int input_open(const char *path, int (*looks_like)(const unsigned char *head, size_t n),
    int *fd, char **cause);

/* Can path be read again from the start (a regular file, a directory)? */
int input_rereadable(const char *path);

/*
 * Inputs watched (the command line turns it on): the first time a regular
 * file is opened its identity is kept (device, inode, size, modification
 * time); every later open and every end of a read compares.  Off, nothing is
 * kept (library users that rewrite their own files between reads).
 */
void input_watch(int on);
/* 0, or GMS_ETRACE with *cause when path is no longer the file first read. */
int input_unchanged(const char *path, char **cause);

#endif /* TRACES_INPUT_H */
