/*
 * pickle-recs.c - the snapshot reader's record store (pickle-snap.h):
 * each trace entry kept as a 40-byte record, the first RECS_IN_MEMORY in
 * memory and the rest in an unlinked temporary file, read back by index.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/pickle-snap.h"

void
snap_recs_free(struct recs *rs)
{
	free(rs->mem);
	if (rs->nspill > 0)
		close(rs->fd);
	memset(rs, 0, sizeof(*rs));
}

uint64_t
snap_recs_count(const struct recs *rs)
{
	return rs->nspill + rs->n;
}

/*
 * Append r.  Past RECS_IN_MEMORY records in memory they go to a temporary
 * file (unlinked at once), where the cursors read them back; without one
 * they stay in memory.
 */
void
snap_recs_add(struct recs *rs, const struct rec *r)
{
	const char *dir;
	char *path;
	size_t off;
	ssize_t w;

	if (rs->n == rs->cap && rs->cap >= RECS_IN_MEMORY) {
		if (rs->nspill == 0) {
			dir = getenv("TMPDIR");
			path = gms_asprintf("%s/gpumemsim-pickle.XXXXXX", dir && *dir ? dir : "/tmp");
			rs->fd = mkstemp(path);
			if (rs->fd >= 0)
				unlink(path);
			free(path);
		}
		for (off = 0, w = 0; rs->fd >= 0 && off < rs->n * sizeof(*rs->mem); off += (size_t)w)
			if ((w = write(rs->fd, (char *)rs->mem + off, rs->n * sizeof(*rs->mem) - off)) <= 0)
				break;
		if (rs->fd >= 0 && off == rs->n * sizeof(*rs->mem)) {
			rs->nspill += rs->n;
			rs->n = 0;
		} else if (rs->nspill == 0 && rs->fd >= 0) {
			close(rs->fd);		/* cannot spill: memory it is */
			rs->fd = -1;
		}
	}
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 1024;
		rs->mem = gms_realloc(rs->mem, rs->cap * sizeof(*rs->mem));
	}
	rs->mem[rs->n++] = *r;
}

void
snap_cursor_init(struct cursor *c, const struct recs *rs)
{
	memset(c, 0, sizeof(*c));
	c->rs = rs;
}

void
snap_cursor_free(struct cursor *c)
{
	free(c->blk);
	c->blk = NULL;
}

/* Record i (< recs_count), or NULL when the file cannot be read back. */
const struct rec *
snap_rec_at(struct cursor *c, uint64_t i)
{
	const struct recs *rs = c->rs;
	size_t want, got = 0;
	ssize_t r;

	if (i >= rs->nspill)
		return &rs->mem[i - rs->nspill];
	if (c->blk == NULL || i < c->first || i >= c->first + c->nblk) {
		if (c->blk == NULL)
			c->blk = gms_malloc(RECS_BLOCK * sizeof(*c->blk));
		c->first = i / RECS_BLOCK * RECS_BLOCK;
		want = (size_t)GMS_MIN((uint64_t)RECS_BLOCK, rs->nspill - c->first) * sizeof(*c->blk);
		while (got < want && (r = pread(rs->fd, (char *)c->blk + got, want - got,
		    (off_t)(c->first * sizeof(*c->blk) + got))) > 0)
			got += (size_t)r;
		c->nblk = got / sizeof(*c->blk);
		if (i >= c->first + c->nblk)
			return NULL;
	}
	return &c->blk[i - c->first];
}
