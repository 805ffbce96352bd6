/*
 * tap.h - a small TAP library for the C tests (after git's test-lib): a lazy
 * plan printed by tap_done(), ok(), typed comparisons that print what they got
 * and what they wanted, diag(), skip_all().
 */
#ifndef T_TAP_H
#define T_TAP_H

#include <stdint.h>

/* Record one test; returns cond.  Prints "ok N - name" or "not ok N - name". */
int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int tap_is_u64(uint64_t got, uint64_t want, const char *file, int line,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int tap_is_str(const char *got, const char *want, const char *file, int line,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_u64(got, want, ...) tap_is_u64((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

/* A "# ..." comment line. */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "1..0 # SKIP why" and exits 0. */
void skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Prints the plan; returns the exit status (1 if any test failed). */
int tap_done(void);

/* $TOP_SRCDIR/rel, or rel when TOP_SRCDIR is unset (caller frees). */
char *tap_srcpath(const char *rel);

#endif /* T_TAP_H */
