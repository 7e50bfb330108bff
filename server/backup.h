/*
 * backup.h — `kriegd backup FILE`: an online copy of the live database.
 *
 * Uses SQLite's online backup API from a second connection, so it runs
 * while the daemon serves (WAL: the daemon keeps committing meanwhile; the
 * copy is the database as of one commit).  The copy is written to
 * FILE.tmp, checked (PRAGMA integrity_check), then renamed over FILE, so
 * FILE is never a half-written database.  Restoring is documented in
 * deploy/BACKUP.md.
 */
#ifndef KRIEG_BACKUP_H
#define KRIEG_BACKUP_H

#include <stddef.h>

struct config;

/* Copy the database at src to dest.  0, or -1 with a message in err. */
int backup_copy(const char *src, const char *dest, char *err, size_t errlen);

/* The subcommand: the database named by cfg (database, or
 * state_dir/kriegd.db) to dest.  Returns the process exit status. */
int backup_main(const struct config *cfg, const char *dest);

#endif
