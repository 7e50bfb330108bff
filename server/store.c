/*
 * store.c — the SQLite backend of store.h.
 *
 * One connection, used only from the event loop's thread (auth's hashing
 * workers never touch it).  Statements are prepared once and cached.
 * Errors are sticky inside a transaction (see store.h), so a caller can
 * run several writes and check once at commit.
 *
 * Schema changes are migrations: migrations[N-1] moves a database from
 * version N-1 to N (PRAGMA user_version).  Never edit a released step;
 * append a new one and raise STORE_SCHEMA_VERSION.  All pending steps run
 * in one transaction, so an upgrade either completes or leaves the file
 * as it was.  (A future step that rebuilds a table must turn foreign keys
 * off around the transaction: that PRAGMA is a no-op inside one.)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sqlite3.h>

#include "store.h"

#define STORE_ERR_MAX 512
/* PRAGMA application_id: 'KRIG'.  Tells our files from other SQLite files. */
#define STORE_APP_ID 0x4b524947

/* --- schema ------------------------------------------------------------- */

static const char *const migrations[STORE_SCHEMA_VERSION] = {
	/* 1: accounts.  Names are unique regardless of case (NOCASE on the
	 * column) so "Alice" cannot impersonate "alice".  Only a digest of
	 * a resume token is kept: a stolen database yields no live token. */
	"CREATE TABLE users ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL COLLATE NOCASE UNIQUE,"
	" pwhash TEXT,"                       /* NULL for guests */
	" guest INTEGER NOT NULL DEFAULT 0 CHECK (guest IN (0, 1)),"
	" created INTEGER NOT NULL);"
	"CREATE TABLE sessions ("
	" token_hash TEXT PRIMARY KEY,"
	" user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" created INTEGER NOT NULL,"
	" expires INTEGER NOT NULL);"
	"CREATE INDEX sessions_user ON sessions(user);"
	"CREATE INDEX sessions_expires ON sessions(expires);",

	/* 2: game records.  A game is its actions (every try, legal or not,
	 * with wall time and both clocks) and the events they produced, field
	 * by field with their audience, so a record can be replayed through
	 * the referee and each player's view rebuilt exactly. */
	"CREATE TABLE games ("
	" id INTEGER PRIMARY KEY,"
	" white INTEGER NOT NULL REFERENCES users(id),"
	" black INTEGER NOT NULL REFERENCES users(id),"
	" rules TEXT NOT NULL,"
	" fen TEXT NOT NULL,"
	" base_ms INTEGER NOT NULL DEFAULT 0,"
	" inc_ms INTEGER NOT NULL DEFAULT 0,"
	" days INTEGER NOT NULL DEFAULT 0,"
	" rated INTEGER NOT NULL DEFAULT 0,"
	" created INTEGER NOT NULL,"
	" result INTEGER NOT NULL DEFAULT 0,"
	" reason INTEGER NOT NULL DEFAULT 0,"
	" finished INTEGER);"
	"CREATE INDEX games_white ON games(white, id);"
	"CREATE INDEX games_black ON games(black, id);"
	"CREATE INDEX games_live ON games(id) WHERE result = 0 AND reason = 0;"
	"CREATE TABLE actions ("
	" game INTEGER NOT NULL REFERENCES games(id),"
	" seq INTEGER NOT NULL,"
	" color INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"
	" text TEXT NOT NULL,"
	" at_ms INTEGER NOT NULL,"
	" clock_white_ms INTEGER NOT NULL,"
	" clock_black_ms INTEGER NOT NULL,"
	" ok INTEGER NOT NULL,"
	" PRIMARY KEY (game, seq)) WITHOUT ROWID;"
	"CREATE TABLE events ("
	" id INTEGER PRIMARY KEY,"            /* insertion order within a seq */
	" game INTEGER NOT NULL REFERENCES games(id),"
	" seq INTEGER NOT NULL,"
	" type INTEGER NOT NULL,"
	" audience INTEGER NOT NULL,"
	" by_color INTEGER NOT NULL,"
	" square INTEGER NOT NULL,"
	" move INTEGER NOT NULL,"
	" what INTEGER NOT NULL,"
	" en_passant INTEGER NOT NULL,"
	" check1 INTEGER NOT NULL,"
	" check2 INTEGER NOT NULL,"
	" count INTEGER NOT NULL,"
	" answer INTEGER NOT NULL,"
	" result INTEGER NOT NULL,"
	" reason INTEGER NOT NULL,"
	" ply INTEGER NOT NULL);"
	"CREATE INDEX events_game ON events(game, seq, id);",

	/* 3: the umpire role's own record (nothing writes it yet). */
	"CREATE TABLE umpire_actions ("
	" id INTEGER PRIMARY KEY,"
	" game INTEGER NOT NULL REFERENCES games(id),"
	" umpire INTEGER REFERENCES users(id),"   /* NULL: the server itself */
	" seq INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"
	" text TEXT NOT NULL,"
	" at_ms INTEGER NOT NULL);"
	"CREATE INDEX umpire_actions_game ON umpire_actions(game, id);",

	/* 4: records that failed the recovery check (recover.c).  A flagged
	 * game is not resumed and its record is left exactly as found; the
	 * operator clears the row once the record has been examined. */
	"CREATE TABLE flagged_games ("
	" game INTEGER PRIMARY KEY REFERENCES games(id),"
	" at INTEGER NOT NULL,"
	" reason TEXT NOT NULL);",

	/* 5: the daemon's own named values, e.g. "alive_ms" (game.c's
	 * heartbeat: the daemon was serving at that wall-clock time, so a
	 * restart charges the mover up to it, and no more). */
	"CREATE TABLE server_state ("
	" name TEXT PRIMARY KEY,"
	" value INTEGER NOT NULL);",
};

/* --- statements ----------------------------------------------------------- */

#define GAME_COLS "id, white, black, rules, fen, base_ms, inc_ms, days, rated, created, result, reason"
#define EVENT_COLS "type, audience, by_color, square, move, what, en_passant, check1, check2," \
                   " count, answer, result, reason, ply"

enum stmt_id {
	S_BEGIN,
	S_COMMIT,
	S_ROLLBACK,
	S_USER_CREATE,
	S_USER_FIND,
	S_USER_NAME,
	S_SESSION_CREATE,
	S_SESSION_LOOKUP,
	S_SESSION_DELETE,
	S_SESSION_TOUCH,
	S_SESSIONS_PURGE,
	S_GAME_CREATE,
	S_GAME_FINISH,
	S_GAME_GET,
	S_ACTION_INSERT,
	S_EVENT_INSERT,
	S_ACTIONS_LIST,
	S_EVENTS_LIST,
	S_GAMES_UNFINISHED,
	S_GAMES_OF_USER,
	S_GAMES_LIVE_OF_USER,
	S_UMPIRE_INSERT,
	S_UMPIRE_LIST,
	S_FLAG_INSERT,
	S_FLAG_GET,
	S_GAMES_FINISHED_OF_USER,
	S_STATE_SET,
	S_STATE_GET,
	S__COUNT
};

static const char *const stmt_sql[S__COUNT] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_USER_CREATE] = "INSERT INTO users (name, pwhash, guest, created) VALUES (?1, ?2, ?3, ?4)",
	[S_USER_FIND] = "SELECT id, name, pwhash, guest, created FROM users WHERE name = ?1",
	[S_USER_NAME] = "SELECT name FROM users WHERE id = ?1",
	[S_SESSION_CREATE] = "INSERT INTO sessions (token_hash, user, created, expires)"
	                     " VALUES (?1, ?2, ?3, ?4)",
	[S_SESSION_LOOKUP] = "SELECT user FROM sessions WHERE token_hash = ?1 AND expires > ?2",
	[S_SESSION_DELETE] = "DELETE FROM sessions WHERE token_hash = ?1",
	[S_SESSION_TOUCH] = "UPDATE sessions SET expires = ?3 WHERE token_hash = ?1 AND expires > ?2",
	[S_SESSIONS_PURGE] = "DELETE FROM sessions WHERE expires <= ?1",
	[S_GAME_CREATE] = "INSERT INTO games (white, black, rules, fen, base_ms, inc_ms, days, rated,"
	                  " created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[S_GAME_FINISH] = "UPDATE games SET result = ?2, reason = ?3, finished = ?4"
	                  " WHERE id = ?1 AND result = 0 AND reason = 0",
	[S_GAME_GET] = "SELECT " GAME_COLS " FROM games WHERE id = ?1",
	[S_ACTION_INSERT] = "INSERT INTO actions (game, seq, color, kind, text, at_ms,"
	                    " clock_white_ms, clock_black_ms, ok)"
	                    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[S_EVENT_INSERT] = "INSERT INTO events (game, seq, " EVENT_COLS ") VALUES (?1, ?2, ?3, ?4,"
	                   " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	[S_ACTIONS_LIST] = "SELECT game, seq, color, kind, text, at_ms, clock_white_ms,"
	                   " clock_black_ms, ok FROM actions WHERE game = ?1 ORDER BY seq",
	[S_EVENTS_LIST] = "SELECT seq, " EVENT_COLS " FROM events WHERE game = ?1 ORDER BY seq, id",
	[S_GAMES_UNFINISHED] = "SELECT " GAME_COLS " FROM games WHERE result = 0 AND reason = 0"
	                       " ORDER BY id",
	[S_GAMES_OF_USER] = "SELECT " GAME_COLS " FROM games WHERE white = ?1 OR black = ?1"
	                    " ORDER BY id DESC LIMIT ?2",
	[S_GAMES_LIVE_OF_USER] = "SELECT " GAME_COLS " FROM games WHERE (white = ?1 OR black = ?1)"
	                         " AND result = 0 AND reason = 0"
	                         " AND id NOT IN (SELECT game FROM flagged_games) ORDER BY id",
	[S_UMPIRE_INSERT] = "INSERT INTO umpire_actions (game, umpire, seq, kind, text, at_ms)"
	                    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[S_UMPIRE_LIST] = "SELECT game, umpire, seq, kind, text, at_ms FROM umpire_actions"
	                  " WHERE game = ?1 ORDER BY id",
	[S_FLAG_INSERT] = "INSERT OR IGNORE INTO flagged_games (game, at, reason) VALUES (?1, ?2, ?3)",
	[S_FLAG_GET] = "SELECT reason FROM flagged_games WHERE game = ?1",
	[S_GAMES_FINISHED_OF_USER] = "SELECT " GAME_COLS " FROM games WHERE (white = ?1 OR black = ?1)"
	                             " AND (result != 0 OR reason != 0) ORDER BY id DESC LIMIT ?2",
	[S_STATE_SET] = "INSERT INTO server_state (name, value) VALUES (?1, ?2)"
	                " ON CONFLICT(name) DO UPDATE SET value = excluded.value",
	[S_STATE_GET] = "SELECT value FROM server_state WHERE name = ?1",
};

struct store {
	sqlite3 *db;
	char *path;                 /* for store_open_writer() */
	char synchronous[8];
	int busy_ms;                /* the configured busy_timeout */
	sqlite3_stmt *stmt[S__COUNT];
	int depth;                  /* store_begin() nesting */
	int doomed;                 /* a failure inside the current transaction */
	char err[STORE_ERR_MAX];
};

/* --- errors -------------------------------------------------------------- */

/* Record a failure: the first text wins until the next top-level call. */
static int fail(struct store *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct store *st, const char *fmt, ...)
{
	if (st->err[0] == '\0') {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(st->err, sizeof st->err, fmt, ap);
		va_end(ap);
	}
	if (st->depth > 0)
		st->doomed = 1;
	return STORE_ERROR;
}

static int fail_db(struct store *st, const char *what)
{
	return fail(st, "%s: %s", what, sqlite3_errmsg(st->db));
}

/* Every public call starts here.  Outside a transaction the previous
 * error is forgotten; inside a doomed one nothing more runs. */
static int enter(struct store *st)
{
	if (st->depth == 0) {
		st->err[0] = '\0';
		return 1;
	}
	return !st->doomed;
}

const char *store_error(const struct store *st)
{
	return st->err[0] != '\0' ? st->err : "no error";
}

/* --- statement cache ---------------------------------------------------- */

/* A statement for one use.  If the cached one is still stepping (a listing
 * callback called the same listing again), a private copy is prepared and
 * *temp tells the caller to finalize it. */
static sqlite3_stmt *stmt_get(struct store *st, enum stmt_id id, int *temp)
{
	sqlite3_stmt **slot = &st->stmt[id];
	sqlite3_stmt *s = NULL;

	*temp = 0;
	if (*slot != NULL && !sqlite3_stmt_busy(*slot))
		return *slot;
	if (sqlite3_prepare_v3(st->db, stmt_sql[id], -1,
	                       *slot == NULL ? SQLITE_PREPARE_PERSISTENT : 0, &s, NULL) != SQLITE_OK) {
		fail_db(st, "prepare");
		sqlite3_finalize(s);
		return NULL;
	}
	if (*slot == NULL)
		*slot = s;
	else
		*temp = 1;
	return s;
}

static void stmt_done(sqlite3_stmt *s, int temp)
{
	if (s == NULL)
		return;
	if (temp) {
		sqlite3_finalize(s);
		return;
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

/* Run a statement that returns no rows. */
static int run(struct store *st, enum stmt_id id, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);
	(void)id;
	if (rc != SQLITE_DONE)
		return fail_db(st, what);
	return STORE_OK;
}

static int bind_text(sqlite3_stmt *s, int i, const char *text, size_t max)
{
	size_t n = strnlen(text, max);
	if (n >= max)
		return SQLITE_TOOBIG;
	return sqlite3_bind_text(s, i, text, (int)n, SQLITE_TRANSIENT);
}

/* Copy a text column into a fixed buffer; a value that does not fit is
 * corruption (we never write one). */
static int col_text(struct store *st, sqlite3_stmt *s, int col, char *out, size_t len,
                    const char *what)
{
	const unsigned char *t = sqlite3_column_text(s, col);
	size_t n = (size_t)sqlite3_column_bytes(s, col);

	if (t == NULL) {
		if (len > 0)
			out[0] = '\0';
		return STORE_OK;
	}
	if (n >= len)
		return fail(st, "%s: stored text longer than %zu bytes", what, len - 1);
	memcpy(out, t, n);
	out[n] = '\0';
	return STORE_OK;
}

/* --- open, close, migrate ------------------------------------------------ */

static int exec_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(s, 0);
			rc = SQLITE_OK;
		} else if (rc == SQLITE_DONE) {
			rc = SQLITE_ERROR;
		}
	}
	sqlite3_finalize(s);
	return rc;
}

static const char *const sync_names[] = { "off", "normal", "full", "extra" };

int store_synchronous_valid(const char *name)
{
	for (size_t i = 0; i < sizeof sync_names / sizeof sync_names[0]; i++)
		if (name != NULL && strcmp(name, sync_names[i]) == 0)
			return 1;
	return 0;
}

/* Bring the schema from its current version to STORE_SCHEMA_VERSION, or
 * explain why not.  Returns 0 or -1 with err set. */
static int migrate(sqlite3 *db, const char *path, int readonly, char *err, size_t errlen)
{
	int64_t version = 0, app = 0, objects = 0;
	char *msg = NULL;

	if (exec_int(db, "PRAGMA user_version", &version) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	if (version > STORE_SCHEMA_VERSION) {
		snprintf(err, errlen,
		         "%s: database schema version %lld is newer than this kriegd's %d; "
		         "refusing to open it (run a newer kriegd)",
		         path, (long long)version, STORE_SCHEMA_VERSION);
		return -1;
	}
	if (exec_int(db, "PRAGMA application_id", &app) != SQLITE_OK ||
	    exec_int(db, "SELECT count(*) FROM sqlite_schema", &objects) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	if ((version > 0 && app != STORE_APP_ID) || (version == 0 && (objects > 0 || app != 0))) {
		snprintf(err, errlen, "%s: not a krieg database (application_id %lld, "
		         "schema version %lld, %lld objects)", path, (long long)app,
		         (long long)version, (long long)objects);
		return -1;
	}
	if (version == STORE_SCHEMA_VERSION)
		return 0;
	if (readonly) {
		snprintf(err, errlen, "%s: database schema version %lld needs an upgrade to %d, "
		         "but it is open read-only", path, (long long)version, STORE_SCHEMA_VERSION);
		return -1;
	}

	/* IMMEDIATE takes the write lock first; then re-read the version in
	 * case another process migrated meanwhile. */
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK ||
	    exec_int(db, "PRAGMA user_version", &version) != SQLITE_OK)
		goto fail;
	for (int64_t v = version + 1; v <= STORE_SCHEMA_VERSION; v++) {
		char sql[64];
		if (sqlite3_exec(db, migrations[v - 1], NULL, NULL, &msg) != SQLITE_OK) {
			snprintf(err, errlen, "%s: migrating schema %lld -> %lld: %s", path,
			         (long long)(v - 1), (long long)v, msg != NULL ? msg : "?");
			sqlite3_free(msg);
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
		snprintf(sql, sizeof sql, "PRAGMA user_version = %lld", (long long)v);
		if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
	}
	{
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA application_id = %d", STORE_APP_ID);
		if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK ||
		    sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "%s: migrating schema from version %lld: %s", path,
	         (long long)version, msg != NULL ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

struct store *store_open_opts(const char *path, const struct store_options *opt, char *err,
                              size_t errlen)
{
	static const struct store_options defaults = { 0, "full", 0 };
	struct store *st;
	sqlite3 *db = NULL;
	char *msg = NULL;
	char sql[64];
	int flags;

	if (opt == NULL)
		opt = &defaults;
	if (path == NULL || path[0] == '\0') {
		snprintf(err, errlen, "store: no database path");
		return NULL;
	}
	const char *sync = opt->synchronous != NULL ? opt->synchronous : "full";
	if (!store_synchronous_valid(sync)) {
		snprintf(err, errlen, "store: store_synchronous must be off, normal, full or extra");
		return NULL;
	}
	flags = opt->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, db != NULL ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, opt->busy_timeout_ms > 0 ? opt->busy_timeout_ms
	                                                  : STORE_BUSY_TIMEOUT_MS);

	/* foreign_keys and synchronous are per connection, not stored. */
	snprintf(sql, sizeof sql, "PRAGMA foreign_keys = ON; PRAGMA synchronous = %s", sync);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	if (!opt->readonly) {
		/* WAL: readers never block the writer, and a commit is one
		 * append.  The mode is stored in the file. */
		sqlite3_stmt *s = NULL;
		int ok = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &s, NULL) == SQLITE_OK &&
		         sqlite3_step(s) == SQLITE_ROW;
		const char *mode = ok ? (const char *)sqlite3_column_text(s, 0) : NULL;
		if (ok && mode != NULL && strcasecmp(mode, "wal") != 0 &&
		    strcasecmp(mode, "memory") != 0) {
			snprintf(err, errlen, "%s: cannot use WAL journal mode (got %s)", path, mode);
			sqlite3_finalize(s);
			sqlite3_close(db);
			return NULL;
		}
		sqlite3_finalize(s);
		if (!ok)
			goto fail;
	}
	/* A damaged file is refused at start with a clear message rather than
	 * failing request by request later.  quick_check reads every page
	 * once (O(size), no index cross-check), which start-up can afford. */
	{
		sqlite3_stmt *s = NULL;
		int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &s, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(s);
		const char *res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
		if (rc != SQLITE_ROW || res == NULL || strcmp(res, "ok") != 0) {
			snprintf(err, errlen, "%s: the database is damaged (%s); restore a backup "
			         "(deploy/BACKUP.md)", path, res != NULL ? res : sqlite3_errmsg(db));
			sqlite3_finalize(s);
			sqlite3_close(db);
			return NULL;
		}
		sqlite3_finalize(s);
	}
	if (migrate(db, path, opt->readonly, err, errlen) != 0) {
		sqlite3_close(db);
		return NULL;
	}

	st = calloc(1, sizeof *st);
	if (st == NULL) {
		snprintf(err, errlen, "store: out of memory");
		sqlite3_close(db);
		return NULL;
	}
	st->db = db;
	st->busy_ms = opt->busy_timeout_ms > 0 ? opt->busy_timeout_ms : STORE_BUSY_TIMEOUT_MS;
	snprintf(st->synchronous, sizeof st->synchronous, "%s", sync);
	if ((st->path = strdup(path)) == NULL) {
		snprintf(err, errlen, "store: out of memory");
		sqlite3_close(db);
		free(st);
		return NULL;
	}
	return st;
fail:
	snprintf(err, errlen, "%s: %s", path, msg != NULL ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	sqlite3_close(db);
	return NULL;
}

struct store *store_open(const char *path, char *err, size_t errlen)
{
	return store_open_opts(path, NULL, err, errlen);
}

void store_close(struct store *st)
{
	if (st == NULL)
		return;
	if (st->depth > 0)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	for (int i = 0; i < S__COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	/* The last connection to close checkpoints and removes the WAL. */
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

/*
 * A second connection for the store writer thread (batch.c).  The file was
 * checked and migrated when st was opened, so only the per-connection
 * settings are applied.  SQLITE_BUSY between the two connections: WAL lets
 * st read while the writer writes; when both write, SQLite's lock decides
 * and the loser waits in its busy handler.  The writer may wait the whole
 * busy_timeout (it blocks no client); st now belongs to the event loop,
 * so its own writes (accounts, sessions, a game's creation) wait at most
 * STORE_LOOP_BUSY_MS and then fail with STORE_ERROR (`storage`) instead of
 * freezing every client.  The writer's transactions last a few ms, far
 * below that bound.
 */
struct store *store_open_writer(struct store *st, char *err, size_t errlen)
{
	struct store *w;
	sqlite3 *db = NULL;
	char *msg = NULL;
	char sql[64];

	if (st->path == NULL) {
		snprintf(err, errlen, "store: no database path");
		return NULL;
	}
	if (sqlite3_open_v2(st->path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", st->path,
		         db != NULL ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, st->busy_ms);
	snprintf(sql, sizeof sql, "PRAGMA foreign_keys = ON; PRAGMA synchronous = %s",
	         st->synchronous);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", st->path, msg != NULL ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		sqlite3_close(db);
		return NULL;
	}
	if ((w = calloc(1, sizeof *w)) == NULL || (w->path = strdup(st->path)) == NULL) {
		free(w);
		sqlite3_close(db);
		snprintf(err, errlen, "store: out of memory");
		return NULL;
	}
	w->db = db;
	w->busy_ms = st->busy_ms;
	snprintf(w->synchronous, sizeof w->synchronous, "%s", st->synchronous);
	sqlite3_busy_timeout(st->db, st->busy_ms < STORE_LOOP_BUSY_MS ? st->busy_ms
	                                                               : STORE_LOOP_BUSY_MS);
	return w;
}

/* --- transactions -------------------------------------------------------- */

static int simple(struct store *st, enum stmt_id id, const char *what)
{
	int temp;
	sqlite3_stmt *s = stmt_get(st, id, &temp);
	int rc;

	if (s == NULL)
		return STORE_ERROR;
	rc = run(st, id, s, what);
	stmt_done(s, temp);
	return rc;
}

int store_begin(struct store *st)
{
	if (st->depth > 0) {
		if (st->doomed)
			return STORE_ERROR;
		st->depth++;
		return STORE_OK;
	}
	st->err[0] = '\0';
	st->doomed = 0;
	if (simple(st, S_BEGIN, "begin") != STORE_OK)
		return STORE_ERROR;
	st->depth = 1;
	return STORE_OK;
}

static void rollback_now(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->depth = 0;
	st->doomed = 0;
}

int store_commit(struct store *st)
{
	if (st->depth == 0) {
		st->err[0] = '\0';
		return fail(st, "commit without begin");
	}
	if (st->depth > 1) {
		st->depth--;
		return st->doomed ? STORE_ERROR : STORE_OK;
	}
	if (st->doomed) {
		rollback_now(st);
		return STORE_ERROR;
	}
	if (simple(st, S_COMMIT, "commit") != STORE_OK) {
		/* A failed COMMIT (full disk, I/O) may leave the transaction
		 * open; end it so nothing half-written can commit later. */
		rollback_now(st);
		return STORE_ERROR;
	}
	st->depth = 0;
	return STORE_OK;
}

void store_rollback(struct store *st)
{
	if (st->depth == 0)
		return;
	if (st->depth > 1) {
		/* An inner rollback dooms the outer transaction. */
		if (st->err[0] == '\0')
			snprintf(st->err, sizeof st->err, "rolled back");
		st->doomed = 1;
		st->depth--;
		return;
	}
	rollback_now(st);
}

/* --- users ---------------------------------------------------------------- */

int store_user_create(struct store *st, const char *name, const char *pwhash, int guest,
                      int64_t *id)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_USER_CREATE, &temp)) == NULL)
		return STORE_ERROR;
	if (bind_text(s, 1, name, sizeof ((struct store_user *)0)->name) != SQLITE_OK ||
	    (pwhash != NULL && pwhash[0] != '\0'
	         ? bind_text(s, 2, pwhash, STORE_HASH_MAX)
	         : sqlite3_bind_null(s, 2)) != SQLITE_OK ||
	    sqlite3_bind_int(s, 3, guest ? 1 : 0) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 4, (int64_t)time(NULL)) != SQLITE_OK) {
		rc = fail(st, "user create: name or hash too long");
		goto out;
	}
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		if (id != NULL)
			*id = sqlite3_last_insert_rowid(st->db);
		rc = STORE_OK;
	} else if (step == SQLITE_CONSTRAINT_UNIQUE) {
		/* An answer, not a failure: the transaction lives on, and
		 * its sticky error text stays free for a real failure. */
		if (st->depth == 0)
			snprintf(st->err, sizeof st->err, "user create: name taken");
		rc = STORE_EXISTS;
	} else {
		rc = fail_db(st, "user create");
	}
out:
	stmt_done(s, temp);
	return rc;
}

int store_user_find(struct store *st, const char *name, struct store_user *out)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_USER_FIND, &temp)) == NULL)
		return STORE_ERROR;
	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT) != SQLITE_OK) {
		rc = fail_db(st, "user find");
		goto out;
	}
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		rc = STORE_NOT_FOUND;
	} else if (step != SQLITE_ROW) {
		rc = fail_db(st, "user find");
	} else {
		memset(out, 0, sizeof *out);
		out->id = sqlite3_column_int64(s, 0);
		out->guest = sqlite3_column_int(s, 3);
		out->created_unix = sqlite3_column_int64(s, 4);
		rc = col_text(st, s, 1, out->name, sizeof out->name, "user find");
		if (rc == STORE_OK)
			rc = col_text(st, s, 2, out->pwhash, sizeof out->pwhash, "user find");
	}
out:
	stmt_done(s, temp);
	return rc;
}

int store_user_get(struct store *st, const char *name, int64_t *id, char *pwhash, size_t len)
{
	struct store_user u;
	int rc = store_user_find(st, name, &u);

	if (rc != STORE_OK)
		return rc;
	if (id != NULL)
		*id = u.id;
	if (pwhash != NULL) {
		size_t n = strlen(u.pwhash);
		if (n >= len)
			return fail(st, "user get: hash buffer too small");
		memcpy(pwhash, u.pwhash, n + 1);
	}
	return STORE_OK;
}

int store_user_name(struct store *st, int64_t id, char *name, size_t len)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_USER_NAME, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	step = sqlite3_step(s);
	if (step == SQLITE_DONE)
		rc = STORE_NOT_FOUND;
	else if (step != SQLITE_ROW)
		rc = fail_db(st, "user name");
	else
		rc = col_text(st, s, 0, name, len, "user name");
	stmt_done(s, temp);
	return rc;
}

/* --- sessions -------------------------------------------------------------- */

int store_session_create(struct store *st, int64_t user, const char *token_hash,
                         int64_t expires_unix)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_SESSION_CREATE, &temp)) == NULL)
		return STORE_ERROR;
	if (bind_text(s, 1, token_hash, STORE_HASH_MAX) != SQLITE_OK) {
		rc = fail(st, "session create: token hash too long");
	} else {
		sqlite3_bind_int64(s, 2, user);
		sqlite3_bind_int64(s, 3, (int64_t)time(NULL));
		sqlite3_bind_int64(s, 4, expires_unix);
		rc = run(st, S_SESSION_CREATE, s, "session create");
	}
	stmt_done(s, temp);
	return rc;
}

int store_session_lookup(struct store *st, const char *token_hash, int64_t now_unix,
                         int64_t *user)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_SESSION_LOOKUP, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, token_hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, now_unix);
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		rc = STORE_NOT_FOUND;
	} else if (step == SQLITE_ROW) {
		if (user != NULL)
			*user = sqlite3_column_int64(s, 0);
		rc = STORE_OK;
	} else {
		rc = fail_db(st, "session lookup");
	}
	stmt_done(s, temp);
	return rc;
}

/* Run a write keyed by one text; NOT_FOUND when it changed no row. */
static int write_changes(struct store *st, sqlite3_stmt *s, int temp, const char *what)
{
	int rc = run(st, S__COUNT, s, what);
	if (rc == STORE_OK && sqlite3_changes(st->db) == 0)
		rc = STORE_NOT_FOUND;
	stmt_done(s, temp);
	return rc;
}

int store_session_delete(struct store *st, const char *token_hash)
{
	int temp;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_SESSION_DELETE, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, token_hash, -1, SQLITE_TRANSIENT);
	return write_changes(st, s, temp, "session delete");
}

int store_session_touch(struct store *st, const char *token_hash, int64_t now_unix,
                        int64_t expires_unix)
{
	int temp;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_SESSION_TOUCH, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, token_hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, now_unix);
	sqlite3_bind_int64(s, 3, expires_unix);
	return write_changes(st, s, temp, "session touch");
}

int store_sessions_purge(struct store *st, int64_t now_unix)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_SESSIONS_PURGE, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, now_unix);
	rc = run(st, S_SESSIONS_PURGE, s, "sessions purge");
	stmt_done(s, temp);
	return rc;
}

/* --- games --------------------------------------------------------------- */

int store_game_create(struct store *st, struct store_game *g)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_GAME_CREATE, &temp)) == NULL)
		return STORE_ERROR;
	if (g->created_unix == 0)
		g->created_unix = (int64_t)time(NULL);
	sqlite3_bind_int64(s, 1, g->white);
	sqlite3_bind_int64(s, 2, g->black);
	if (bind_text(s, 3, g->rules, sizeof g->rules) != SQLITE_OK ||
	    bind_text(s, 4, g->fen, sizeof g->fen) != SQLITE_OK) {
		rc = fail(st, "game create: rules or fen not terminated");
		goto out;
	}
	sqlite3_bind_int64(s, 5, g->base_ms);
	sqlite3_bind_int64(s, 6, g->inc_ms);
	sqlite3_bind_int64(s, 7, g->days);
	sqlite3_bind_int(s, 8, g->rated ? 1 : 0);
	sqlite3_bind_int64(s, 9, g->created_unix);
	rc = run(st, S_GAME_CREATE, s, "game create");
	if (rc == STORE_OK) {
		g->id = sqlite3_last_insert_rowid(st->db);
		g->result = 0;
		g->reason = 0;
	}
out:
	stmt_done(s, temp);
	return rc;
}

static int game_row(struct store *st, sqlite3_stmt *s, struct store_game *g)
{
	memset(g, 0, sizeof *g);
	g->id = sqlite3_column_int64(s, 0);
	g->white = sqlite3_column_int64(s, 1);
	g->black = sqlite3_column_int64(s, 2);
	if (col_text(st, s, 3, g->rules, sizeof g->rules, "game") != STORE_OK ||
	    col_text(st, s, 4, g->fen, sizeof g->fen, "game") != STORE_OK)
		return STORE_ERROR;
	g->base_ms = sqlite3_column_int64(s, 5);
	g->inc_ms = sqlite3_column_int64(s, 6);
	g->days = sqlite3_column_int64(s, 7);
	g->rated = sqlite3_column_int(s, 8);
	g->created_unix = sqlite3_column_int64(s, 9);
	g->result = sqlite3_column_int(s, 10);
	g->reason = sqlite3_column_int(s, 11);
	return STORE_OK;
}

int store_game_get(struct store *st, int64_t game, struct store_game *out)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_GAME_GET, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	step = sqlite3_step(s);
	if (step == SQLITE_DONE)
		rc = STORE_NOT_FOUND;
	else if (step != SQLITE_ROW)
		rc = fail_db(st, "game get");
	else
		rc = game_row(st, s, out);
	stmt_done(s, temp);
	return rc;
}

int store_game_finish(struct store *st, int64_t game, int result, int reason)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if (result == 0 && reason == 0)
		return fail(st, "game finish: neither a result nor a reason");
	if ((s = stmt_get(st, S_GAME_FINISH, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	sqlite3_bind_int(s, 2, result);
	sqlite3_bind_int(s, 3, reason);
	sqlite3_bind_int64(s, 4, (int64_t)time(NULL));
	rc = write_changes(st, s, temp, "game finish");
	if (rc == STORE_NOT_FOUND) {
		/* Tell "no such game" from "already over". */
		struct store_game g;
		rc = store_game_get(st, game, &g);
		if (rc == STORE_OK)
			rc = STORE_EXISTS;
	}
	return rc;
}

int store_game_action(struct store *st, const struct store_action *a)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_ACTION_INSERT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, a->game);
	sqlite3_bind_int(s, 2, a->seq);
	sqlite3_bind_int(s, 3, a->color);
	if (bind_text(s, 4, a->kind, sizeof a->kind) != SQLITE_OK ||
	    bind_text(s, 5, a->text, sizeof a->text) != SQLITE_OK) {
		rc = fail(st, "game action: kind or text not terminated");
		goto out;
	}
	sqlite3_bind_int64(s, 6, a->at_ms);
	sqlite3_bind_int64(s, 7, a->clock_white_ms);
	sqlite3_bind_int64(s, 8, a->clock_black_ms);
	sqlite3_bind_int(s, 9, a->ok ? 1 : 0);
	rc = run(st, S_ACTION_INSERT, s, "game action");
out:
	stmt_done(s, temp);
	return rc;
}

int store_game_events(struct store *st, int64_t game, int seq, const struct event *ev, size_t n)
{
	int temp, rc = STORE_OK;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if (n == 0)
		return STORE_OK;
	/* Several rows: all or none. */
	if (store_begin(st) != STORE_OK)
		return STORE_ERROR;
	if ((s = stmt_get(st, S_EVENT_INSERT, &temp)) == NULL) {
		store_rollback(st);
		return STORE_ERROR;
	}
	for (size_t i = 0; i < n && rc == STORE_OK; i++) {
		const struct event *e = &ev[i];
		sqlite3_bind_int64(s, 1, game);
		sqlite3_bind_int(s, 2, seq);
		sqlite3_bind_int(s, 3, e->type);
		sqlite3_bind_int(s, 4, e->audience);
		sqlite3_bind_int(s, 5, e->by);
		sqlite3_bind_int(s, 6, e->square);
		sqlite3_bind_int(s, 7, e->move);
		sqlite3_bind_int(s, 8, e->what);
		sqlite3_bind_int(s, 9, e->en_passant ? 1 : 0);
		sqlite3_bind_int(s, 10, e->checks[0]);
		sqlite3_bind_int(s, 11, e->checks[1]);
		sqlite3_bind_int(s, 12, e->count);
		sqlite3_bind_int(s, 13, e->answer);
		sqlite3_bind_int(s, 14, e->result);
		sqlite3_bind_int(s, 15, e->reason);
		sqlite3_bind_int(s, 16, e->ply);
		rc = run(st, S_EVENT_INSERT, s, "game events");
		sqlite3_reset(s);
	}
	stmt_done(s, temp);
	if (rc != STORE_OK) {
		store_rollback(st);
		return rc;
	}
	return store_commit(st);
}

/* --- listings ------------------------------------------------------------- */

/* A column that must fit [lo, hi], or the row is corrupt. */
static int col_range(sqlite3_stmt *s, int col, int64_t lo, int64_t hi, int *ok)
{
	int64_t v = sqlite3_column_int64(s, col);
	if (v < lo || v > hi || sqlite3_column_type(s, col) != SQLITE_INTEGER) {
		*ok = 0;
		return 0;
	}
	return (int)v;
}

static int event_row(struct store *st, sqlite3_stmt *s, int *seq, struct event *e)
{
	int ok = 1;

	memset(e, 0, sizeof *e);
	*seq = col_range(s, 0, 0, INT32_MAX, &ok);
	e->type = (uint8_t)col_range(s, 1, 0, UINT8_MAX, &ok);
	e->audience = (uint8_t)col_range(s, 2, 0, UINT8_MAX, &ok);
	e->by = (int8_t)col_range(s, 3, INT8_MIN, INT8_MAX, &ok);
	e->square = (int8_t)col_range(s, 4, INT8_MIN, INT8_MAX, &ok);
	e->move = (move_t)col_range(s, 5, 0, UINT16_MAX, &ok);
	e->what = (uint8_t)col_range(s, 6, 0, UINT8_MAX, &ok);
	e->en_passant = col_range(s, 7, 0, 1, &ok) != 0;
	e->checks[0] = (uint8_t)col_range(s, 8, 0, UINT8_MAX, &ok);
	e->checks[1] = (uint8_t)col_range(s, 9, 0, UINT8_MAX, &ok);
	e->count = (int16_t)col_range(s, 10, INT16_MIN, INT16_MAX, &ok);
	e->answer = (uint8_t)col_range(s, 11, 0, UINT8_MAX, &ok);
	e->result = (uint8_t)col_range(s, 12, 0, UINT8_MAX, &ok);
	e->reason = (uint8_t)col_range(s, 13, 0, UINT8_MAX, &ok);
	e->ply = (uint16_t)col_range(s, 14, 0, UINT16_MAX, &ok);
	return ok ? STORE_OK : fail(st, "game events: stored value out of range (corrupt row)");
}

static int action_row(struct store *st, sqlite3_stmt *s, struct store_action *a)
{
	memset(a, 0, sizeof *a);
	a->game = sqlite3_column_int64(s, 0);
	a->seq = sqlite3_column_int(s, 1);
	a->color = sqlite3_column_int(s, 2);
	if (col_text(st, s, 3, a->kind, sizeof a->kind, "game actions") != STORE_OK ||
	    col_text(st, s, 4, a->text, sizeof a->text, "game actions") != STORE_OK)
		return STORE_ERROR;
	a->at_ms = sqlite3_column_int64(s, 5);
	a->clock_white_ms = sqlite3_column_int64(s, 6);
	a->clock_black_ms = sqlite3_column_int64(s, 7);
	a->ok = sqlite3_column_int(s, 8);
	return STORE_OK;
}

static int umpire_row(struct store *st, sqlite3_stmt *s, struct store_umpire_action *u)
{
	memset(u, 0, sizeof *u);
	u->game = sqlite3_column_int64(s, 0);
	u->umpire = sqlite3_column_int64(s, 1);   /* NULL reads as 0 */
	u->seq = sqlite3_column_int(s, 2);
	if (col_text(st, s, 3, u->kind, sizeof u->kind, "umpire actions") != STORE_OK ||
	    col_text(st, s, 4, u->text, sizeof u->text, "umpire actions") != STORE_OK)
		return STORE_ERROR;
	u->at_ms = sqlite3_column_int64(s, 5);
	return STORE_OK;
}

enum row_kind { ROW_GAME, ROW_ACTION, ROW_EVENT, ROW_UMPIRE };

/* Step a bound listing statement, decode each row and hand it to the
 * callback; a non-zero return from the callback stops early (STORE_OK). */
static int list(struct store *st, sqlite3_stmt *s, int temp, enum row_kind kind, void *fn,
                void *arg, const char *what)
{
	int rc = STORE_OK, step;

	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		int stop = 0;
		switch (kind) {
		case ROW_GAME: {
			struct store_game g;
			if ((rc = game_row(st, s, &g)) == STORE_OK)
				stop = ((int (*)(const struct store_game *, void *))fn)(&g, arg);
			break;
		}
		case ROW_ACTION: {
			struct store_action a;
			if ((rc = action_row(st, s, &a)) == STORE_OK)
				stop = ((int (*)(const struct store_action *, void *))fn)(&a, arg);
			break;
		}
		case ROW_EVENT: {
			struct event e;
			int seq;
			if ((rc = event_row(st, s, &seq, &e)) == STORE_OK)
				stop = ((int (*)(int, const struct event *, void *))fn)(seq, &e, arg);
			break;
		}
		case ROW_UMPIRE: {
			struct store_umpire_action u;
			if ((rc = umpire_row(st, s, &u)) == STORE_OK)
				stop = ((int (*)(const struct store_umpire_action *, void *))fn)(&u, arg);
			break;
		}
		}
		if (rc != STORE_OK || stop)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = fail_db(st, what);
	stmt_done(s, temp);
	return rc;
}

static int list_by_id(struct store *st, enum stmt_id id, int64_t key, enum row_kind kind,
                      void *fn, void *arg, const char *what)
{
	int temp;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, id, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, key);
	return list(st, s, temp, kind, fn, arg, what);
}

int store_game_actions(struct store *st, int64_t game,
                       int (*fn)(const struct store_action *a, void *arg), void *arg)
{
	return list_by_id(st, S_ACTIONS_LIST, game, ROW_ACTION, (void *)fn, arg, "game actions");
}

int store_game_event_list(struct store *st, int64_t game,
                          int (*fn)(int seq, const struct event *e, void *arg), void *arg)
{
	return list_by_id(st, S_EVENTS_LIST, game, ROW_EVENT, (void *)fn, arg, "game events");
}

int store_games_unfinished(struct store *st, int (*fn)(const struct store_game *g, void *arg),
                           void *arg)
{
	int temp;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_GAMES_UNFINISHED, &temp)) == NULL)
		return STORE_ERROR;
	return list(st, s, temp, ROW_GAME, (void *)fn, arg, "unfinished games");
}

int store_games_of_user(struct store *st, int64_t user, int limit,
                        int (*fn)(const struct store_game *g, void *arg), void *arg)
{
	int temp;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_GAMES_OF_USER, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	sqlite3_bind_int(s, 2, limit > 0 ? limit : -1);   /* LIMIT -1: no limit */
	return list(st, s, temp, ROW_GAME, (void *)fn, arg, "games of user");
}

int store_games_live_of_user(struct store *st, int64_t user,
                             int (*fn)(const struct store_game *g, void *arg), void *arg)
{
	return list_by_id(st, S_GAMES_LIVE_OF_USER, user, ROW_GAME, (void *)fn, arg,
	                  "live games of user");
}

/* --- umpire ---------------------------------------------------------------- */

int store_umpire_action(struct store *st, const struct store_umpire_action *u)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_UMPIRE_INSERT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, u->game);
	if (u->umpire > 0)
		sqlite3_bind_int64(s, 2, u->umpire);
	else
		sqlite3_bind_null(s, 2);
	sqlite3_bind_int(s, 3, u->seq);
	if (bind_text(s, 4, u->kind, sizeof u->kind) != SQLITE_OK ||
	    bind_text(s, 5, u->text, sizeof u->text) != SQLITE_OK) {
		rc = fail(st, "umpire action: kind or text not terminated");
		goto out;
	}
	sqlite3_bind_int64(s, 6, u->at_ms);
	rc = run(st, S_UMPIRE_INSERT, s, "umpire action");
out:
	stmt_done(s, temp);
	return rc;
}

int store_umpire_actions(struct store *st, int64_t game,
                         int (*fn)(const struct store_umpire_action *u, void *arg), void *arg)
{
	return list_by_id(st, S_UMPIRE_LIST, game, ROW_UMPIRE, (void *)fn, arg, "umpire actions");
}

/* --- flagged records (recover.c) ------------------------------------------ */

int store_game_flag(struct store *st, int64_t game, const char *reason)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_FLAG_INSERT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	sqlite3_bind_int64(s, 2, (int64_t)time(NULL));
	sqlite3_bind_text(s, 3, reason != NULL ? reason : "", -1, SQLITE_TRANSIENT);
	rc = run(st, S_FLAG_INSERT, s, "game flag");
	stmt_done(s, temp);
	return rc;
}

int store_game_flagged(struct store *st, int64_t game, char *reason, size_t len)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_FLAG_GET, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		rc = STORE_NOT_FOUND;
	} else if (step != SQLITE_ROW) {
		rc = fail_db(st, "game flagged");
	} else if (reason != NULL && len > 0) {
		/* The reason is ours, but cut rather than fail on a long one. */
		const unsigned char *t = sqlite3_column_text(s, 0);
		snprintf(reason, len, "%s", t != NULL ? (const char *)t : "");
		rc = STORE_OK;
	} else {
		rc = STORE_OK;
	}
	stmt_done(s, temp);
	return rc;
}

int store_games_finished_of_user(struct store *st, int64_t user, int limit,
                                 int (*fn)(const struct store_game *g, void *arg), void *arg)
{
	int temp;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_GAMES_FINISHED_OF_USER, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	sqlite3_bind_int(s, 2, limit > 0 ? limit : -1);
	return list(st, s, temp, ROW_GAME, (void *)fn, arg, "finished games of user");
}

int store_state_set(struct store *st, const char *name, int64_t value)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_STATE_SET, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, value);
	rc = run(st, S_STATE_SET, s, "state set");
	stmt_done(s, temp);
	return rc;
}

int store_state_get(struct store *st, const char *name, int64_t *value)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!enter(st))
		return STORE_ERROR;
	if ((s = stmt_get(st, S_STATE_GET, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		rc = STORE_NOT_FOUND;
	} else if (step != SQLITE_ROW) {
		rc = fail_db(st, "state get");
	} else {
		*value = sqlite3_column_int64(s, 0);
		rc = STORE_OK;
	}
	stmt_done(s, temp);
	return rc;
}
