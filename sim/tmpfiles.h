/*
 * tmpfiles.h - the temporary files and directories a command has made and
 * must not leave behind, also when a signal ends it (SIGINT, SIGTERM,
 * SIGHUP): a half-written hidden file beside the user's output, plot's
 * private directory, share's scratch timeline.  The handler removes what is
 * registered (newest first, so a directory's files go before it), ends the
 * child that was named (gnuplot, which may be writing into them) and dies of
 * the same signal, as the shell expects.
 *
 * Paths are registered and forgotten from the main thread only; the handler
 * reads them (pointers set before they are published, cleared before they
 * are freed), and does nothing that is not async-signal-safe.
 */
#ifndef SIM_TMPFILES_H
#define SIM_TMPFILES_H

#include <sys/types.h>

/* Install the handlers (the command line, once, before any command runs). */
void tmpfiles_install(void);

/*
 * Remove path on a signal until tmpfiles_forget(path).  More than
 * TMPFILES_MAX at once are not registered (what a command makes is a handful).
 */
#define TMPFILES_MAX 32
void tmpfiles_add(const char *path);
/* Its owner removed or renamed it. */
void tmpfiles_forget(const char *path);

/* The child writing into them (0: none): ended with SIGTERM on a signal. */
void tmpfiles_child(pid_t pid);

#endif /* SIM_TMPFILES_H */
