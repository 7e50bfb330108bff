/*
 * backup.c — `kriegd backup FILE` (see backup.h).
 */
#include "backup.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "config.h"
#include "store.h"

#define BACKUP_PATH_MAX 4096

static int db_fail(sqlite3 *db, const char *what, const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s %s: %s", what, path, db != NULL ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

/* Is the copy whole, and a krieg database? */
static int check_copy(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int ok = sqlite3_prepare_v2(db, "PRAGMA integrity_check(1)", -1, &s, NULL) == SQLITE_OK &&
	         sqlite3_step(s) == SQLITE_ROW;
	const char *res = ok ? (const char *)sqlite3_column_text(s, 0) : NULL;

	if (res == NULL || strcmp(res, "ok") != 0) {
		snprintf(err, errlen, "the copy %s fails its integrity check: %s", path,
		         res != NULL ? res : sqlite3_errmsg(db));
		sqlite3_finalize(s);
		return -1;
	}
	sqlite3_finalize(s);
	/* No schema: an empty database copied is no backup, and a nightly run
	 * would rotate the good copies out with it (a review) */
	int version = 0;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (version <= 0) {
		snprintf(err, errlen, "the copy %s holds no krieg database (schema version %d): the database "
		         "copied is empty", path, version);
		return -1;
	}
	return 0;
}

/* fsync the directory holding path. */
static int sync_dir(const char *path, char *err, size_t errlen)
{
	char copy[BACKUP_PATH_MAX];

	snprintf(copy, sizeof copy, "%s", path);
	const char *dir = dirname(copy);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		snprintf(err, errlen, "sync directory %s: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Do paths a and b name the same entry of the same directory (whatever
 * the path or link to the directory), whether or not the file exists?  A
 * journal does not exist while no daemon runs, and a backup written under
 * its name is deleted by the next start (probe). */
static bool same_entry(const char *a, const char *b)
{
	char da[BACKUP_PATH_MAX], db[BACKUP_PATH_MAX], ba[BACKUP_PATH_MAX], bb[BACKUP_PATH_MAX];
	struct stat sa, sb;

	snprintf(da, sizeof da, "%s", a);
	snprintf(ba, sizeof ba, "%s", a);
	snprintf(db, sizeof db, "%s", b);
	snprintf(bb, sizeof bb, "%s", b);
	return strcmp(basename(ba), basename(bb)) == 0 && stat(dirname(da), &sa) == 0 &&
	       stat(dirname(db), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Is path the file src names, or one of its journals?  A backup written
 * there would be renamed over the live database (or its WAL) under the
 * running daemon, which goes on writing to the unlinked file: every write
 * after it lost (probe: `kriegd backup` given the database's own path). */
static bool is_source(const char *src, const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	struct stat a, b;
	char name[BACKUP_PATH_MAX];
	bool exists = stat(path, &b) == 0;
	/* SQLite keeps the journals beside the file a linked database names,
	 * not beside the link: both are checked (probe: kriegd.db a symlink,
	 * the copy written as the target's live WAL, acknowledged moves lost
	 * at the next crash). */
	char *real = realpath(src, NULL);
	const char *names[2] = { src, real };
	bool is = false;

	for (size_t k = 0; k < 2 && names[k] != NULL && !is; k++)
		for (size_t i = 0; i < sizeof suffix / sizeof suffix[0] && !is; i++) {
			if ((size_t)snprintf(name, sizeof name, "%s%s", names[k], suffix[i]) >= sizeof name)
				continue;
			is = exists && stat(name, &a) == 0 ? a.st_dev == b.st_dev && a.st_ino == b.st_ino
			                                   : same_entry(name, path);
		}
	free(real);
	return is;
}

/* Why could SQLite not open or read src?  It says only "unable to open
 * database file", whichever of the database, its -wal or its -shm it
 * could not open (probe: -shm unreadable to the user running the backup,
 * which BACKUP.md says the backup needs, and the message named neither).
 * The journals sit beside the file a link names, as for is_source.
 * shm_made: whether the error may be the -shm that could not be made.
 * Writes the reason into err and returns true when one is found. */
static bool explain_unreadable(const char *src, bool shm_made, char *err, size_t errlen)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	char name[BACKUP_PATH_MAX], dir[BACKUP_PATH_MAX];
	char *real = realpath(src, NULL);
	const char *base = real != NULL ? real : src;
	bool found = false;

	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0] && !found; i++) {
		if ((size_t)snprintf(name, sizeof name, "%s%s", base, suffix[i]) >= sizeof name)
			continue;
		int fd = open(name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (i > 0 && errno == ENOENT)
			continue;
		snprintf(err, errlen, "cannot read %s%s: %s (the backup reads the database and its "
		         "-wal and -shm files: run it as their owner or as root)",
		         i == 0 ? "the database " : "", name, strerror(errno));
		found = true;
	}
	/* No -shm (no daemon has the file open): a connection to a database
	 * in WAL mode makes one beside it, which needs the directory
	 * writable (SQLite then says "attempt to write a readonly database"). */
	if (!found && shm_made && (size_t)snprintf(name, sizeof name, "%s-shm", base) < sizeof name &&
	    access(name, F_OK) != 0 && errno == ENOENT) {
		snprintf(dir, sizeof dir, "%s", base);
		const char *d = dirname(dir);
		if (access(d, W_OK) != 0) {
			snprintf(err, errlen, "cannot create %s: the directory %s: %s (with no daemon "
			         "running, the backup makes the database's -shm file: run it as the "
			         "directory's owner or as root)", name, d, strerror(errno));
			found = true;
		}
	}
	free(real);
	return found;
}

/* An error of SQLite's opening or reading src, explained when it can be. */
static void source_fail(int rc, const char *what, const char *src, const char *msg, char *err,
                        size_t errlen)
{
	int primary = rc & 0xff;

	if ((primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_PERM ||
	     primary == SQLITE_AUTH || primary == SQLITE_IOERR) &&
	    explain_unreadable(src, primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY, err,
	                       errlen))
		return;
	snprintf(err, errlen, "%s %s: %s%s", what, src, msg,
	         primary == SQLITE_CANTOPEN ? " (the database or its -wal or -shm file could not be "
	                                      "opened)"
	                                    : "");
}

int backup_copy(const char *src, const char *dest, char *err, size_t errlen)
{
	char tmp[BACKUP_PATH_MAX];
	sqlite3 *from = NULL, *to = NULL;
	int rc = -1;

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", dest) >= sizeof tmp) {
		snprintf(err, errlen, "backup file name too long");
		return -1;
	}
	const char *clash = is_source(src, dest) ? dest : is_source(src, tmp) ? tmp : NULL;
	if (clash != NULL) {
		snprintf(err, errlen, "%s is the database being copied (or its journal): choose another "
		         "file", clash);
		return -1;
	}
	if (store_file_empty(src, err, errlen))
		goto out;
	/* Read-only: the backup never writes the live database.  No CREATE:
	 * a wrong path must not leave an empty database behind. */
	int orc = sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL);
	if (orc != SQLITE_OK) {
		if (from == NULL)
			db_fail(from, "open", src, err, errlen);
		else
			source_fail(sqlite3_extended_errcode(from), "open", src, sqlite3_errmsg(from), err,
			            errlen);
		goto out;
	}
	sqlite3_busy_timeout(from, STORE_BUSY_TIMEOUT_MS);
	unlink(tmp);
	/* Created here, 0600, whatever the umask: the copy holds password
	 * hashes and umpire records.  SQLite opens the empty file as a new
	 * database and gives its journal the same mode. */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "create %s: %s", tmp, strerror(errno));
		goto out;
	}
	(void)fchmod(fd, 0600);
	close(fd);
	if (sqlite3_open_v2(tmp, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		db_fail(to, "create", tmp, err, errlen);
		goto out;
	}
	sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
	if (b == NULL) {
		db_fail(to, "backup to", tmp, err, errlen);
		goto out;
	}
	/* All pages in one step: one read transaction on the source, so the
	 * copy is one consistent commit; in WAL mode the daemon's writes go on
	 * meanwhile.  Busy/locked (a checkpoint in progress): wait and retry. */
	int step;
	for (int tries = 0;; tries++) {
		step = sqlite3_backup_step(b, -1);
		if ((step == SQLITE_BUSY || step == SQLITE_LOCKED) && tries < 50) {
			sqlite3_sleep(100);
			continue;
		}
		break;
	}
	int fin = sqlite3_backup_finish(b);
	if (step != SQLITE_DONE || fin != SQLITE_OK) {
		int brc = step != SQLITE_DONE ? step : fin;
		/* Full is the copy's file system (the source is only read): it
		 * named the live database (the backup probe). */
		if ((brc & 0xff) == SQLITE_FULL)
			snprintf(err, errlen, "writing the copy %s: %s (the copy's file system; the database "
			         "%s is untouched)", tmp, sqlite3_errstr(brc), src);
		else
			source_fail(brc, "backup of", src, sqlite3_errstr(brc), err, errlen);
		goto out;
	}
	/* The copy keeps the source's WAL flag in its header; checkpoint so
	 * the single file FILE holds everything once closed. */
	if (check_copy(to, tmp, err, errlen) != 0)
		goto out;
	sqlite3_wal_checkpoint_v2(to, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	if (sqlite3_close(to) != SQLITE_OK) {
		db_fail(to, "close", tmp, err, errlen);
		goto out;
	}
	to = NULL;
	if (rename(tmp, dest) != 0) {
		snprintf(err, errlen, "rename %s to %s: %s", tmp, dest, strerror(errno));
		goto out;
	}
	/* The rename is durable only once the directory is on disk. */
	if (sync_dir(dest, err, errlen) != 0)
		goto out;
	rc = 0;
out:
	if (to != NULL)
		sqlite3_close(to);
	if (from != NULL)
		sqlite3_close(from);
	if (rc != 0)
		unlink(tmp);
	return rc;
}

int backup_main(const struct config *cfg, const char *dest)
{
	char path[BACKUP_PATH_MAX], err[1024];
	struct stat sb;

	if (!config_db_path(cfg, path, sizeof path)) {
		fprintf(stderr, "kriegd: backup: database path too long\n");
		return 1;
	}
	/* Only a missing file is "no database": one in a directory the user
	 * cannot search exists as far as anyone knows, and is unreadable
	 * (probe: "no database at ...: Permission denied"). */
	if (stat(path, &sb) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			fprintf(stderr, "kriegd: backup: no database at %s: %s\n", path, strerror(errno));
		else
			fprintf(stderr, "kriegd: backup: cannot read the database %s: %s (run the backup "
			        "as the database's owner or as root)\n", path, strerror(errno));
		return 1;
	}
	if (backup_copy(path, dest, err, sizeof err) != 0) {
		fprintf(stderr, "kriegd: backup: %s\n", err);
		return 1;
	}
	fprintf(stderr, "kriegd: backup of %s written to %s\n", path, dest);
	return 0;
}
