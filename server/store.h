/*
 * store.h — persistence.  SQLite is the first backend; everything the
 * daemon keeps goes through this interface so a distributed store can be a
 * second one.  Calls are synchronous; each returns STORE_OK or a status,
 * and store_error() holds the first error's text (a "sticky" error within
 * one transaction).
 *
 * Games are stored as their record: the ordered actions applied to the
 * referee (tries, lists, any?, endings) and the events each produced, with
 * audiences.  Replaying the actions through the referee rebuilds a game.
 */
#ifndef KRIEG_STORE_H
#define KRIEG_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "proto.h"

#define STORE_HASH_MAX 256      /* encoded password hash */

enum store_status {
	STORE_OK = 0,
	STORE_NOT_FOUND = 1,
	STORE_EXISTS = 2,      /* unique constraint (user name taken) */
	STORE_ERROR = 3,       /* I/O, full disk, read-only, corrupt: see store_error() */
};

struct store;

/* Open (creating and migrating as needed) the database at path. */
struct store *store_open(const char *path, char *err, size_t errlen);

/* The schema version this binary writes (PRAGMA user_version).  A newer
 * binary upgrades an older database in place at open; an older binary
 * refuses a newer database. */
#define STORE_SCHEMA_VERSION 22
#define STORE_BUSY_TIMEOUT_MS 5000

/* store_open() with options; NULL options = the defaults. */
struct store_options {
	int readonly;              /* SQLITE_OPEN_READONLY: inspection tools, tests */
	const char *synchronous;   /* config `store_synchronous`: "off", "normal",
	                            * "full" (default), "extra" */
	int busy_timeout_ms;       /* 0 = STORE_BUSY_TIMEOUT_MS */
	int checkpoint_pages;      /* the writer's checkpoint mark; 0 = STORE_CKPT_PAGES */
	/* Called before an upgrade of the schema from `from` begins (it may
	 * take minutes: deploy/BACKUP.md), so that the caller can say so;
	 * NULL: nothing said. */
	void (*upgrading)(const char *path, int64_t from, int to);
	/* The caller made path, empty, just now (main.c hold_database): a new
	 * database.  Else an empty file at path is refused (store_file_empty). */
	bool made_empty;
};
struct store *store_open_opts(const char *path, const struct store_options *opt, char *err,
                              size_t errlen);
/* The schema version of the database at path, read only (--check-config:
 * an upgrade the next start will make is said before it).  *wal: a
 * non-empty -wal lies beside it, whose commits were not read (a kriegd
 * running, or one stopped uncleanly): the version may be later. */
enum { STORE_PEEK_OK, STORE_PEEK_NONE, STORE_PEEK_REFUSED, STORE_PEEK_UNREAD };
/* STORE_PEEK_OK with *version; STORE_PEEK_NONE: no file yet;
 * STORE_PEEK_REFUSED with err: not a krieg database this kriegd can open
 * (another program's, a newer schema's); STORE_PEEK_UNREAD with err: it
 * could not be read (permissions, or changed under the look). */
int store_peek_version(const char *path, int64_t *version, bool *wal, char *err, size_t errlen);
/* The file at path is there and empty (0 bytes, no -wal beside it with
 * commits): no krieg database, but SQLite would make it a new one (the
 * backup probe: a database emptied by accident was served as a new, empty
 * club; a review: `kriegd user list` filled it with a new schema, and
 * `kriegd backup` copied it).  true with err set.  store_open_opts,
 * --check-config and `kriegd backup` ask. */
bool store_file_empty(const char *path, char *err, size_t errlen);
/* A second connection to st's database for the store writer thread
 * (batch.c), with st's synchronous and busy_timeout settings.  From then
 * on st is the event loop's: its busy handler waits at most
 * STORE_LOOP_BUSY_MS (see store.c), so a lock held elsewhere fails a
 * write on the loop quickly instead of freezing every client.  Each
 * struct store is used by one thread at a time. */
#define STORE_LOOP_BUSY_MS 250
struct store *store_open_writer(struct store *st, char *err, size_t errlen);
/* A read-only connection to st's database for the reader thread
 * (reader.h): long replays of records, off the loop.  WAL lets it read
 * while the writer writes. */
struct store *store_open_reader(struct store *st, char *err, size_t errlen);
/* The writer's connection also starts the WAL checkpointer (store_ckpt.c):
 * commits no longer checkpoint in place.  A commit that leaves the mark
 * (store_options.checkpoint_pages, default STORE_CKPT_PAGES, SQLite's own
 * default) in the WAL wakes it; one that finds STORE_CKPT_HARD_FACTOR
 * times the mark waits for a pass in progress and checkpoints itself. */
#define STORE_CKPT_PAGES 1000
#define STORE_CKPT_HARD_FACTOR 8
#define STORE_CKPT_FINISH 256   /* frames a commit copies itself (store_ckpt.c) */
/* Checkpoints the writer's checkpointer has run, and whether it has one
 * wanted or running now (tests). */
uint64_t store_ckpt_runs(const struct store *writer);
bool store_ckpt_busy(const struct store *writer);
/* Is name a valid `store_synchronous` value?  (For config checking.) */
int store_synchronous_valid(const char *name);
void store_close(struct store *st);
const char *store_error(const struct store *st);
/* Rows of games' records (actions, events, umpire actions) this handle's
 * listings have handed out, ever: what replaying records costs, which the
 * daemon charges to the request that read them (dispatch_charge_rows). */
uint64_t store_record_rows(const struct store *st);

/* Transactions: everything between begin and commit is atomic.  They
 * nest (only the outermost commits).  Once a call inside a transaction
 * fails with STORE_ERROR the transaction is doomed: later calls return
 * STORE_ERROR at once, commit rolls everything back and returns
 * STORE_ERROR, and store_error() keeps the first failure's text.
 * STORE_NOT_FOUND and STORE_EXISTS are answers, not failures.  Outside a
 * transaction each call is atomic on its own. */
int store_begin(struct store *st);
/* Many reads as one transaction (store_commit ends it): one snapshot and
 * one round of the WAL's locks instead of one per read (`who`'s page). */
int store_begin_read(struct store *st);
int store_commit(struct store *st);
void store_rollback(struct store *st);

/* Users.  A registered account (guest 0) is refused, STORE_EXISTS, when
 * its name is taken or reads as a registered account's (store_user_alike). */
int store_user_create(struct store *st, const char *name, const char *pwhash, int guest,
                      int64_t *id);
int store_user_get(struct store *st, const char *name, int64_t *id, char *pwhash, size_t len);
int store_user_name(struct store *st, int64_t id, char *name, size_t len);

/* A user by name, case-insensitively (names are unique regardless of case);
 * name holds the spelling chosen at registration, pwhash "" for guests. */
struct store_user {
	int64_t id;
	char name[32];
	char pwhash[STORE_HASH_MAX];
	int guest;
	int64_t created_unix;
	char role[8];                /* schema 6: "player", "umpire", "admin" (auth.h) */
	int disabled;
	int must_change;             /* schema 8: the password must be changed at next login */
	int64_t last_login_unix;     /* schema 8: 0 = never */
	char last_addr[48];          /* schema 8: the address of the last login, "" = none */
	int bot;                     /* schema 9: a computer player's account (`kriegd user bot`) */
};
int store_user_find(struct store *st, const char *name, struct store_user *out);

/* Schema 6: an account's role and disabled flag (auth.h reads them).
 * store_user_role: NOT_FOUND for no such id.  The setters take the name
 * (the offline `kriegd user` tool): NOT_FOUND for no such account (guests
 * have no role and no password to set).  Every change bumps
 * server_state "users_version" (STORE_USERS_VERSION_KEY) by a trigger. */
#define STORE_USERS_VERSION_KEY "users_version"
int store_user_role(struct store *st, int64_t id, char *role, size_t len, int *disabled,
                    int *guest);
int store_user_set_role(struct store *st, const char *name, const char *role);
int store_user_set_disabled(struct store *st, const char *name, int disabled);
int store_user_set_pwhash(struct store *st, const char *name, const char *pwhash);
/* Schema 9: the bot flag of an account (`kriegd user bot`).  store_user_bot:
 * NOT_FOUND for no such id; set_bot by name: NOT_FOUND for no such
 * registered account (a guest is never a bot). */
int store_user_bot(struct store *st, int64_t id, int *bot);
int store_user_set_bot(struct store *st, const char *name, int bot);
/* Is there an account named name (any case), or a registered one whose
 * name looks as name to a person (proto_name_look: "aIice", "a1ice" and
 * "alice_" look as "alice")?  STORE_OK, its name in found (len >
 * PROTO_NAME_MAX), the same name first; or STORE_NOT_FOUND.  By index. */
int store_user_alike(struct store *st, const char *name, char *found, size_t len);
/* Every registered (not guest) account, by name. */
int store_users_list(struct store *st, int (*fn)(const struct store_user *u, void *arg),
                     void *arg);

/*
 * Schema 8: club administration (admin.h).
 * store_user_seen: a login of id at now_unix from addr (last login).
 * store_user_set_password: a new hash by id, and whether it must be
 * changed at the next login; NOT_FOUND for no such account or a guest.
 * store_sessions_end_user: every session of user but the one whose
 * digest is keep ("" keeps none).
 * Invites: only a digest of the code is stored.  store_invite_valid: OK
 * if unused and unexpired, else NOT_FOUND; store_invite_use marks it used
 * by user (NOT_FOUND if it was not valid: two registrations racing for
 * one code get one account).
 */
int store_user_seen(struct store *st, int64_t id, int64_t now_unix, const char *addr);
int store_user_set_password(struct store *st, int64_t id, const char *pwhash, int must_change);
int store_sessions_end_user(struct store *st, int64_t user, const char *keep);
int store_invite_create(struct store *st, const char *digest, int64_t by, int64_t now_unix,
                        int64_t expires_unix);
int store_invite_valid(struct store *st, const char *digest, int64_t now_unix);
int store_invite_use(struct store *st, const char *digest, int64_t user, int64_t now_unix);

/* The invite codes, newest first, at most limit, whose digest starts
 * with prefix ("" for all).  State: used_by set: used; used_unix set
 * without used_by: revoked; else expired when expires_unix <= now. */
struct store_invite {
	char digest[STORE_HASH_MAX];  /* the code's SHA-256 in hex */
	char created_by[32];          /* the admin's name, "" if the account is gone */
	int64_t created_unix, expires_unix;
	char used_by[32];             /* "" if not used */
	int64_t used_unix;            /* 0 if neither used nor revoked */
};
int store_invites_list(struct store *st, const char *prefix, int limit,
                       int (*fn)(const struct store_invite *iv, void *arg), void *arg);
/* An unused, unrevoked, unexpired code ends now: NOT_FOUND otherwise. */
int store_invite_revoke(struct store *st, const char *digest, int64_t now_unix);

/* The audit log: one row per admin action. */
struct store_audit {
	int64_t id;                  /* set by store_audit_list */
	int64_t at_unix;
	int64_t admin;               /* the admin's user id; 0: none (`kriegd user`, stored NULL) */
	char admin_name[32];
	char addr[48];
	char action[24];
	char target[64];
	char detail[256];
};
int store_audit_add(struct store *st, const struct store_audit *a);
/* Newest first, at most limit rows. */
int store_audit_list(struct store *st, int limit,
                     int (*fn)(const struct store_audit *a, void *arg), void *arg);
/* The accounts disabled (`user_disable` rows: their ids and targets) after
 * audit row *seen, oldest first, each given to fn (NULL: none); *seen is
 * then the newest row of any action.  An account disabled and enabled
 * again between two looks of the daemon is found here, where its flag
 * says nothing (auth_roles.c). */
int store_audit_disables(struct store *st, int64_t *seen,
                         int (*fn)(int64_t id, const char *target, void *arg), void *arg);

/* Sessions: only a hash of the resume token is stored. */
int store_session_create(struct store *st, int64_t user, const char *token_hash,
                         int64_t expires_unix);
int store_session_lookup(struct store *st, const char *token_hash, int64_t now_unix,
                         int64_t *user);
int store_session_delete(struct store *st, const char *token_hash);
/* Move a live session's expiry (resume slides it); NOT_FOUND if expired or unknown. */
int store_session_touch(struct store *st, const char *token_hash, int64_t now_unix,
                        int64_t expires_unix);
/* Delete every session expired at now_unix. */
int store_sessions_purge(struct store *st, int64_t now_unix);
/* fn for each live session of user (expires > now_unix), the least
 * recently used first (the earliest expiry: issued or last resumed
 * first); fn returning non-zero stops the walk. */
int store_sessions_of_user(struct store *st, int64_t user, int64_t now_unix,
                           int (*fn)(const char *token_hash, void *arg), void *arg);
/* Up to max guest accounts made before `before` with no session and no
 * game (never the newest account: its id would be given again), into
 * ids; *n how many.  store_guest_delete deletes one if that still holds
 * (*deleted 1, else 0): its mutes, follows, messages and the like go
 * with it (ON DELETE CASCADE). */
int store_guests_stale(struct store *st, int64_t before, int64_t *ids, size_t max, size_t *n);
int store_guest_delete(struct store *st, int64_t id, int *deleted);

/* Games. */
struct store_game {
	int64_t id;
	int64_t white, black;        /* user ids */
	char rules[16];              /* rule-set name */
	char fen[100];               /* start position */
	int64_t base_ms, inc_ms;     /* clock; both 0 = untimed */
	int64_t days;                /* correspondence: days per move, 0 = not */
	int rated;
	int64_t created_unix;
	int result, reason;          /* enum game_result / game_reason; RESULT_NONE while live */
	char tournament[PROTO_TOURNAMENT_MAX + 1];   /* a director's pairing's, or "" */
	char round[PROTO_ROUND_MAX + 1];             /* the same */
};

int store_game_create(struct store *st, struct store_game *g /* id set on success */);
/* NOT_FOUND: no such game; EXISTS: it already has a result or a reason.
 * A game is unfinished while both result and reason are 0 (an aborted game
 * has reason REASON_ABORTED and result RESULT_NONE). */
int store_game_finish(struct store *st, int64_t game, int result, int reason);
int store_game_get(struct store *st, int64_t game, struct store_game *out);

/* One action applied to the referee.  kind: "try", "list", "quiet", "any",
 * "end"; text: the attempt(s) as sent (list items joined by ' '), or the
 * ending reason name; color: who acted.  seq: 1, 2, ... per game.
 * clock_*_ms: both clocks after the action.  ok: the referee accepted it. */
struct store_action {
	int64_t game;
	int seq;
	int color;
	char kind[8];
	char text[256];
	int64_t at_ms;               /* wall clock, ms since the epoch */
	int64_t clock_white_ms, clock_black_ms;
	int ok;
};
/* The action and the n events it produced (ev may be NULL when n is 0),
 * in one row: both or neither. */
int store_game_action(struct store *st, const struct store_action *a, const struct event *ev,
                      size_t n);

/* Read back a game's record in order; the callback returns non-zero to stop. */
int store_game_actions(struct store *st, int64_t game,
                       int (*fn)(const struct store_action *a, void *arg), void *arg);
/* The same from the action after seq `after` on (0: from the first). */
int store_game_actions_after(struct store *st, int64_t game, int after,
                             int (*fn)(const struct store_action *a, void *arg), void *arg);
/* The seq of the game's last stored action (0 when it has none).  A
 * record only grows (actions are never changed or deleted), so its last
 * seq names the whole of it. */
int store_game_last_seq(struct store *st, int64_t game, int *seq);
int store_game_event_list(struct store *st, int64_t game,
                          int (*fn)(int seq, const struct event *e, void *arg), void *arg);

/* Games with no result yet (recovery at start), and a user's games. */
int store_games_unfinished(struct store *st, int (*fn)(const struct store_game *g, void *arg),
                           void *arg);
/* Newest first, from the offset-th (0: the newest), at most limit (<= 0:
 * all of them). */
int store_games_of_user(struct store *st, int64_t user, int limit, int64_t offset,
                        int (*fn)(const struct store_game *g, void *arg), void *arg);
/* How many games the listing above holds in all (finished: the one below). */
int store_games_count_of_user(struct store *st, int64_t user, bool finished, int64_t *n);
/* A user's unfinished games, oldest first (the `games` list of login/resume);
 * flagged games (not resumed) are left out. */
int store_games_live_of_user(struct store *st, int64_t user,
                             int (*fn)(const struct store_game *g, void *arg), void *arg);

/* The umpire role (future): what an umpire did to a game, after action seq. */
struct store_umpire_action {
	int64_t game;
	int64_t umpire;              /* user id, 0 = the server itself */
	int seq;
	char kind[16];
	char text[256];
	int64_t at_ms;
};
int store_umpire_action(struct store *st, const struct store_umpire_action *u);
int store_umpire_actions(struct store *st, int64_t game,
                         int (*fn)(const struct store_umpire_action *u, void *arg), void *arg);

/* Records that failed the recovery check (server/recover.c).  Flagging
 * adds a row and changes nothing else; a game stays flagged (the first
 * reason is kept) until an operator deletes its row from flagged_games.
 * store_game_flagged: STORE_OK with the reason if flagged, else NOT_FOUND. */
int store_game_flag(struct store *st, int64_t game, const char *reason);
int store_game_flagged(struct store *st, int64_t game, char *reason, size_t len);

/* Schema 12: user has muted `muted` (chat.c), or not; every mute, in order. */
int store_mute_set(struct store *st, int64_t user, int64_t muted, int on);
int store_mutes_list(struct store *st, int (*fn)(int64_t user, int64_t muted, void *arg), void *arg);

/* Schema 14, 16: a correspondence offer (a challenge, or a seek) that
 * waits while its owner is away (lobby.c), kept until it is taken,
 * declined, cancelled or lapses.  put: STORE_EXISTS if the id is taken.
 * list: in id order, with the names as registered. */
struct store_offer {
	int64_t id, owner, target;   /* target 0: a seek */
	char owner_name[32], target_name[32];   /* target_name "" for a seek */
	char rules[16];
	int64_t days;
	char color[8];               /* the owner's: "white", "black", "random" */
	int rated;
	int rating_min, rating_max;  /* a seek's range; 0, 0: anyone */
	int64_t rematch;             /* the game this is a rematch of, or 0 */
	int64_t made_ms;             /* wall clock, ms since the epoch */
};
int store_offer_put(struct store *st, const struct store_offer *o);
int store_offer_drop(struct store *st, int64_t id);
int store_offers_list(struct store *st, int (*fn)(const struct store_offer *o, void *arg), void *arg);

/* Schema 19: a waiting offer that goes while its owner is away, with the
 * news of it kept for the owner (`what`: "declined", "lapsed"), in one
 * transaction; STORE_NOT_FOUND if no such offer is stored.  news_list:
 * the owner's, oldest first, each with its row id (*last: the largest,
 * for news_drop, which deletes the owner's up to it). */
struct store_offer_news {
	int64_t id, offer;
	char what[16];
	char target_name[32];        /* "" for a seek */
};
int store_offer_close(struct store *st, int64_t id, const char *what, int64_t at_ms);
int store_offer_news_list(struct store *st, int64_t owner,
                          int (*fn)(const struct store_offer_news *n, void *arg), void *arg,
                          int64_t *last);
int store_offer_news_drop(struct store *st, int64_t owner, int64_t last);

/* Schema 15: messages left for a user (chat.c `message`).  put: the new
 * message's id in *id.  count: how many `recipient` keeps as `sender`
 * would count them (the withheld ones only if `sender`'s own: a muted
 * sender's mailbox fills as anyone's), and how many of all `sender` left
 * (sender 0: none; the mailbox as its reader sees it).  list: theirs,
 * oldest first, with the sender's name as registered.  delivered: those up
 * to `upto` marked as pushed.  delete: one (id, not a withheld one) or all
 * (id 0, the withheld too) of theirs; how many went in *n. */
enum { STORE_MESSAGE_NEW = 0, STORE_MESSAGE_DELIVERED = 1, STORE_MESSAGE_WITHHELD = 2 };
struct store_message {
	int64_t id;                  /* the server's (delivered marks go up to one) */
	int64_t num;                 /* its reader's number, the one shown (0: withheld) */
	char from[32];
	char text[1024];
	int64_t sent_unix;
	int delivered;               /* STORE_MESSAGE_*: withheld, from a user the reader muted */
};
/* *num: the reader's number for it (0 for one withheld); store_messages_delete
 * takes that number (0: all). */
int store_message_put(struct store *st, int64_t recipient, int64_t sender, const char *text,
                      int64_t sent_unix, int delivered, int64_t *num);
int store_messages_count(struct store *st, int64_t recipient, int64_t sender, int64_t *n,
                         int64_t *from_sender);
int store_messages_list(struct store *st, int64_t recipient,
                        int (*fn)(const struct store_message *m, void *arg), void *arg);
int store_messages_delivered(struct store *st, int64_t recipient, int64_t upto);
int store_messages_delete(struct store *st, int64_t recipient, int64_t id, int64_t *n);

/* Schema 18: a registered user's follows (follow.c).  set: user follows
 * `followed` (once).  clear: one (followed), or all (followed 0).  of:
 * whom user follows, with their names as registered. */
int store_follow_set(struct store *st, int64_t user, int64_t followed);
int store_follow_clear(struct store *st, int64_t user, int64_t followed);
int store_follows_of(struct store *st, int64_t user,
                     int (*fn)(int64_t followed, const char *name, void *arg), void *arg);

/* A user's finished games counted (`profile`): won, lost, drawn, aborted
 * (schema 13's tallies, kept by a trigger as each game finishes). */
struct store_tally {
	int64_t won, lost, drawn, aborted;
};
int store_games_tally(struct store *st, int64_t user, struct store_tally *out);

/* A user's finished games (a result or a reason), newest first, as
 * store_games_of_user pages them (`history` of another user, `games`). */
int store_games_finished_of_user(struct store *st, int64_t user, int limit, int64_t offset,
                                 int (*fn)(const struct store_game *g, void *arg), void *arg);

/* The daemon's own named values (schema 5, table server_state): one row
 * per name, overwritten.  get: NOT_FOUND if never set. */
int store_state_set(struct store *st, const char *name, int64_t value);
int store_state_get(struct store *st, const char *name, int64_t *value);

/* Ratings (schema 7; rating.h owns the arithmetic and the pools).
 * store_rating_get: NOT_FOUND for a user never rated in the pool (the
 * caller uses rating_initial()).  store_rating_game: one finished rated
 * game between white and black (score_white 1, 0.5, 0): both players'
 * ratings in the game's pool are updated and a history row each is
 * written; call it inside the transaction that finishes the game.
 * store_standings: the pool's table, best first, from its offset-th row
 * on, until fn returns nonzero (a page is read, not the table);
 * store_standings_count: its rows. */
struct store_rating {
	int64_t user;
	char name[32];
	double r, rd, vol;
	int games;
	bool bot;          /* store_standings only: a bot account's */
};
int store_rating_get(struct store *st, int64_t user, const char *pool, struct store_rating *out);
int store_rating_game(struct store *st, int64_t game, int64_t white, int64_t black,
                      const char *pool, double score_white);
int store_standings(struct store *st, const char *pool, int64_t offset,
                    int (*fn)(const struct store_rating *r, void *arg), void *arg);
int store_standings_count(struct store *st, const char *pool, int64_t *n);

/* A tournament's table (games a director paired with its name, schema
 * 20): each player's points, most first (then by name), from the
 * offset-th row on until fn returns nonzero; store_tournament_count: its
 * players.  An aborted game counts nothing; a live one as playing. */
struct store_entrant {
	int64_t user;
	char name[32];
	bool bot;
	int points2;       /* in halves: a win 2, a draw 1 */
	int won, drawn, lost, playing;
	int aborted;       /* its games aborted: no result, counted apart */
	int buchholz2;     /* tie-breaks, over its finished games: the opponents' points, in halves */
	int sb4;           /* Sonneborn-Berger, in quarters */
	int64_t rank;      /* 1 + those ahead on points, Buchholz, Sonneborn-Berger */
};
int store_tournament(struct store *st, const char *name, int64_t offset,
                     int (*fn)(const struct store_entrant *e, void *arg), void *arg);
int store_tournament_count(struct store *st, const char *name, int64_t *n);
/* The tournament's name as first paired, into buf (len bytes), when a
 * game names one equal to `name` in any ASCII case; else `name` itself. */
int store_tournament_spelling(struct store *st, const char *name, char *buf, size_t len);

/* The games that ended while a player was away (schema 22), for their
 * next login: store_missed_add keeps one, and the player's newest `keep`
 * only; store_missed_take gives each to fn, oldest first, and forgets
 * those it gave (at most 256 a call). */
struct store_missed {
	int64_t game;
	int color;                   /* the player's side */
	int result, reason;
	char opponent[32];
};
int store_missed_add(struct store *st, int64_t user, int64_t game, int keep);
int store_missed_take(struct store *st, int64_t user, void (*fn)(const struct store_missed *m, void *arg),
                      void *arg);

/* Callbacks of the listing functions may call other store functions
 * (e.g. read a game's actions while listing unfinished games). */

#endif
