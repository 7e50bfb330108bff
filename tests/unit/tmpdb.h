/*
 * tmpdb.h — a database file of its own for a unit test: a fresh directory
 * under /tmp (mkdtemp) holding `krieg.db`, and its removal with SQLite's
 * companions (-wal, -shm, -journal; made writable first, for the tests
 * that take the write permission away).
 */
#ifndef KRIEG_TMPDB_H
#define KRIEG_TMPDB_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct tmpdb {
	char dir[64];
	char path[128];     /* dir/krieg.db */
};

/* tag names the directory: /tmp/krieg-TAG-XXXXXX (mkdtemp's template). */
static inline void tmpdb_make(struct tmpdb *t, const char *tag)
{
	snprintf(t->dir, sizeof t->dir, "/tmp/krieg-%s-XXXXXX", tag);
	ck_assert_ptr_nonnull(mkdtemp(t->dir));
	snprintf(t->path, sizeof t->path, "%s/krieg.db", t->dir);
}

static inline void tmpdb_remove(const struct tmpdb *t)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[160];

	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		snprintf(p, sizeof p, "%s%s", t->path, suffix[i]);
		chmod(p, 0600);
		unlink(p);
	}
	rmdir(t->dir);
}

#endif
