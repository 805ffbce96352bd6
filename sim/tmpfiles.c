/*
 * tmpfiles.c - what a signal must not leave behind (tmpfiles.h): a fixed
 * table of paths the handler unlinks (or, for a directory, rmdirs).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/gms.h"
#include "sim/tmpfiles.h"

static char *volatile slots[TMPFILES_MAX];
static volatile pid_t child;

static void
on_signal(int sig)
{
	int saved = errno, i;
	char *p;

	if (child > 0)
		kill(child, SIGTERM);
	for (i = TMPFILES_MAX - 1; i >= 0; i--)
		if ((p = slots[i]) != NULL && unlink(p) != 0)
			rmdir(p);
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

void
tmpfiles_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		/* a signal the caller ignores (nohup, a background job's SIGINT) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

void
tmpfiles_add(const char *path)
{
	int i;

	/* the newest in the highest free slot above every used one: removed first */
	for (i = TMPFILES_MAX - 1; i >= 0 && slots[i] == NULL; i--)
		;
	if (i + 1 < TMPFILES_MAX)
		slots[i + 1] = gms_strdup(path);
}

void
tmpfiles_forget(const char *path)
{
	char *p;
	int i;

	for (i = TMPFILES_MAX - 1; i >= 0; i--)
		if ((p = slots[i]) != NULL && strcmp(p, path) == 0) {
			slots[i] = NULL;
			free(p);
			return;
		}
}

void
tmpfiles_child(pid_t pid)
{
	child = pid;
}
