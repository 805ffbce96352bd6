/*
 * gms.h - types, error codes and helpers shared by every part of gpumemsim.
 *
 * Library code (sim/, traces/, replay/, analysis/) returns 0 or a negative GMS_E* code
 * and, where a person needs to know more, fills a heap-allocated "cause"
 * string that the caller frees.  Only the command line (sim/cli/) prints or exits.
 * Sizes and addresses are bytes as uint64_t throughout.
 */
#ifndef GMS_H
#define GMS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The command line's exit status: the one list (README, gpumemsim(1)). */
enum gms_exit {
	EXIT_DONE = 0,		/* done */
	EXIT_CHECK = 1,		/* a requested check failed (check, --fail-on-oom) */
	EXIT_USAGE = 2,		/* usage, or a feature not built */
	EXIT_INPUT = 3,		/* bad trace or bad options */
	EXIT_SYSTEM = 4,	/* I/O or system error */
	EXIT_BUG = 5,		/* a policy broke its own invariant: a bug */
};

/* name, exit status of the CLI, message */
#define GMS_ERRNO_MAP(XX)						\
	XX(OK,      EXIT_DONE, "success")					\
	XX(USAGE,   EXIT_USAGE, "invalid usage")				\
	XX(NOTBUILT, EXIT_USAGE, "feature not built")			\
	XX(TRACE,   EXIT_INPUT, "bad trace")					\
	XX(CONFIG,  EXIT_INPUT, "bad options")				\
	XX(IO,      EXIT_SYSTEM, "input/output error")			\
	XX(NOMEM,   EXIT_SYSTEM, "out of host memory")			\
	XX(OOM,     EXIT_CHECK, "simulated device out of memory")		\
	XX(BUG,     EXIT_BUG, "internal error: a policy broke its own invariant")

enum gms_err {
#define XX(name, code, msg) GMS_E##name##_IDX,
	GMS_ERRNO_MAP(XX)
#undef XX
};

#define XX(name, code, msg) GMS_E##name = -GMS_E##name##_IDX,
enum gms_errcode { GMS_ERRNO_MAP(XX) };
#undef XX

/* The CLI exit status for a negative code, and its message. */
int gms_exit_code(int err);
const char *gms_strerror(int err);

/* printf into a fresh heap string; aborts on host OOM (as every allocation does). */
char *gms_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *gms_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Set *cause (when cause is not NULL) and return err. */
int gms_fail(char **cause, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Allocation wrappers: host out-of-memory is fatal and reported, never silent. */
void *gms_malloc(size_t n);
void *gms_calloc(size_t n, size_t m);
void *gms_realloc(void *p, size_t n);
char *gms_strdup(const char *s);

/*
 * Sizes: "1048576", "24GiB", "1.5 GB", "512k".  Binary suffixes KiB/MiB/GiB/TiB
 * (and K/M/G/T) are powers of 1024; KB/MB/GB/TB are powers of 1000.
 * Returns 0, or GMS_ECONFIG with *cause naming what is wrong.
 */
int gms_parse_size(const char *s, uint64_t *out, char **cause);
/* "3.45 GiB" (binary units, 2 decimals; bytes below 1 KiB). buf >= 32. */
const char *gms_fmt_size(uint64_t n, char *buf, size_t len);
/*
 * A capacity as gms_fmt_size writes it, and in decimal units too when it is
 * a whole number of MB that is no whole MiB (given as 24GB: "22.35 GiB, 24.00 GB"),
 * so a unit's two meanings cannot be mistaken.
 */
const char *gms_fmt_capacity(uint64_t n, char *buf, size_t len);

#define GMS_KiB ((uint64_t)1 << 10)
#define GMS_MiB ((uint64_t)1 << 20)
#define GMS_GiB ((uint64_t)1 << 30)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GMS_MAX(a, b) ((a) > (b) ? (a) : (b))
#define GMS_MIN(a, b) ((a) < (b) ? (a) : (b))
/* A count's noun: "1 free", "2 frees". */
#define GMS_PLURAL(n) ((n) == 1 ? "" : "s")

/*
 * Bounds on what reading one input may cost.  gms_mem_limit() is the
 * process's address-space limit (ulimit -v) in bytes, or 0 when there is
 * none.  gms_input_cap() is the most a format that must hold a whole file
 * (a snapshot pickle) reads after decompression: GMS_INPUT_CAP, or a quarter
 * of the address-space limit when that is smaller.
 */
#define GMS_INPUT_CAP ((uint64_t)4 << 30)
size_t gms_mem_limit(void);
uint64_t gms_input_cap(void);

/*
 * Up to len bytes of fd, through interrupted and short reads: fewer only at
 * its end; -1 with errno on an error.
 */
ssize_t gms_read_full(int fd, void *buf, size_t len);
/* All len bytes to fd, through interrupted and short writes; -1 on an error. */
int gms_write_full(int fd, const void *buf, size_t len);

void gms_assert_fail(const char *expr, const char *file, int line)
    __attribute__((noreturn));
#define GMS_ASSERT(e) ((e) ? (void)0 : gms_assert_fail(#e, __FILE__, __LINE__))

#endif /* GMS_H */
