/*
 * store_priv.h — internal to the store module (store.c, store_user.c,
 * store_game.c, store_rating.c, store_admin.c); nothing else includes it
 * but test_store.c, which checks every statement's query plan
 * (store_stmt_sql); the interface is store.h.
 *
 * It owns what the three files share: struct store (one SQLite connection),
 * the ids of the statement table, and the helpers every query goes
 * through.  store.c holds the rest of the machinery: opening, the schema
 * migrations, the statement SQL and its cache, the sticky error and
 * transactions.  store_user.c holds accounts and sessions, store_game.c
 * game records and their listings.
 *
 * The pattern of a query: store_enter(), store_stmt(), bind, step, decode,
 * store_stmt_done(); any failure goes through store_fail() so that the
 * first error of a transaction sticks (see store.h).
 */
#ifndef KRIEG_STORE_PRIV_H
#define KRIEG_STORE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store.h"

#define STORE_ERR_MAX 512

/* One per entry of stmt_sql[] (store.c). */
enum stmt_id {
	S_BEGIN,
	S_BEGIN_READ,
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
	S_ACTIONS_LIST,
	S_ACTION_LAST,
	S_EVENTS_LIST,
	S_ACTION_EVENTS_LIST,
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
	S_USER_ROLE,
	S_USER_SET_ROLE,
	S_USER_SET_DISABLED,
	S_USER_SET_PWHASH,
	S_USERS_LIST,
	S_USER_LOOK,
	S_RATING_GET,
	S_RATING_PUT,
	S_RATING_HISTORY,
	S_STANDINGS,
	S_USER_SEEN,
	S_USER_SET_PASSWORD,
	S_SESSIONS_END_USER,
	S_INVITE_CREATE,
	S_INVITE_VALID,
	S_INVITE_USE,
	S_AUDIT_ADD,
	S_AUDIT_LIST,
	S_AUDIT_NEWEST,
	S_AUDIT_DISABLES,
	S_INVITES_LIST,
	S_INVITE_REVOKE,
	S_USER_BOT,
	S_USER_SET_BOT,
	S_GAMES_TALLY,
	S_MUTE_SET,
	S_MUTE_CLEAR,
	S_MUTES_LIST,
	S_OFFER_PUT,
	S_OFFER_DROP,
	S_OFFERS_LIST,
	S_OFFER_NEWS_PUT,
	S_OFFER_NEWS_LIST,
	S_OFFER_NEWS_DROP,
	S_MESSAGE_SEQ,
	S_MESSAGE_PUT,
	S_MESSAGES_COUNT,
	S_MESSAGES_LIST,
	S_MESSAGES_DELIVERED,
	S_MESSAGES_DELETE,
	S_FOLLOW_SET,
	S_FOLLOW_CLEAR,
	S_MISSED_ADD,
	S_MISSED_TRIM,
	S_MISSED_OF,
	S_MISSED_DROP,
	S_FOLLOWS_OF,
	S_GAMES_COUNT_OF_USER,
	S_GAMES_COUNT_FINISHED_OF_USER,
	S_STANDINGS_COUNT,
	S_TOURNAMENT,
	S_TOURNAMENT_SPELLING,
	S_TOURNAMENT_COUNT,
	S_SESSIONS_OF_USER,
	S_GUESTS_STALE,
	S_GUEST_DELETE,
	S__COUNT
};

struct store {
	sqlite3 *db;
	char *path;                 /* for store_open_writer() */
	char synchronous[8];
	int busy_ms;                /* the configured busy_timeout */
	int64_t busy_since;         /* mstime_mono() when loop_busy began to wait */
	sqlite3_stmt *stmt[S__COUNT];
	int depth;                  /* store_begin() nesting */
	int doomed;                 /* a failure inside the current transaction */
	char err[STORE_ERR_MAX];
	int ckpt_pages;             /* store_options.checkpoint_pages */
	struct store_ckpt *ckpt;    /* the writer's (store_open_writer): its checkpointer */
	uint64_t record_rows;       /* store_record_rows() */
};

/* store_ckpt.c: WAL checkpoints on a thread of their own, started with the
 * writer's connection, hooking the writer's and peer's commits; stopped
 * when the writer's store closes. */
struct store_ckpt;
struct store_ckpt *store_ckpt_start(struct store *writer, struct store *peer, char *err,
                                    size_t errlen);
void store_ckpt_stop(struct store_ckpt *c);
/* The checkpointer's own connection (tests). */
sqlite3 *store_ckpt_db(const struct store *writer);

/*
 * How every connection of the store is opened: in SQLite's multi-thread
 * mode, without the mutex a connection otherwise takes on every call
 * (sqlite3_column_* included).  That is safe because no connection is ever
 * used by two threads at once: the loop's (store_open) only on the loop's
 * thread; the writer's (store_open_writer) on the writer thread between
 * the hand-over of a turn and its report, and on the loop's thread only
 * before that thread starts and after it is joined (batch.c); the
 * checkpointer's on its own thread; the reader's (store_open_reader) on
 * the reader thread, and on the loop's only before it starts and after it
 * is joined (reader.c); and the WAL hook runs on the thread
 * of the connection that committed (store_ckpt.c).  The mutexes were 29%
 * of the CPU of building a long record's PGN (BENCHMARKS.md).
 */
#define STORE_OPEN_THREADING SQLITE_OPEN_NOMUTEX

/* Record a failure (the first text wins until the next top-level call)
 * and doom the open transaction, if any.  Returns STORE_ERROR. */
int store_fail(struct store *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int store_fail_db(struct store *st, const char *what);   /* what: sqlite3_errmsg */
/* Every public call starts here: 0 when a doomed transaction forbids it. */
int store_enter(struct store *st);

/* The cached statement id, ready to bind; NULL (error recorded) on
 * failure.  *temp says it is a private copy store_stmt_done() finalizes. */
sqlite3_stmt *store_stmt(struct store *st, enum stmt_id id, int *temp);
void store_stmt_done(sqlite3_stmt *s, int temp);
/* The SQL of statement id, for test_store.c's query-plan check. */
const char *store_stmt_sql(enum stmt_id id);
/* Step a statement that returns no rows. */
int store_run(struct store *st, sqlite3_stmt *s, const char *what);
/* Step a lookup once: STORE_OK with the row's columns readable,
 * STORE_NOT_FOUND for no row, else the error (store_fail_db). */
int store_step_row(struct store *st, sqlite3_stmt *s, const char *what);
/* store_run(), then NOT_FOUND if no row changed; finishes the statement. */
int store_write_changes(struct store *st, sqlite3_stmt *s, int temp, const char *what);
/* Bind a text of fewer than max bytes (else SQLITE_TOOBIG). */
int store_bind_text(sqlite3_stmt *s, int i, const char *text, size_t max);
/* Copy a text column into out[len]; a longer value is corruption. */
int store_col_text(struct store *st, sqlite3_stmt *s, int col, char *out, size_t len,
                   const char *what);

#endif
