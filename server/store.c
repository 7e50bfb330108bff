/*
 * store.c — the SQLite backend of store.h: opening and migrating the
 * database, the statement table, the sticky error and transactions.  The
 * queries are in store_user.c (accounts, sessions) and store_game.c (game
 * records); store_priv.h is what the three share.
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
#include <ctype.h>
#include <libgen.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mstime.h"
#include "store_priv.h"
#include "xmalloc.h"

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

	/* 6: roles and disabled accounts (auth.h).  `kriegd user ...` changes
	 * them from another process while the daemon runs; the trigger bumps
	 * server_state "users_version" on every such change, so the daemon
	 * notices with one cheap read a second instead of re-reading every
	 * logged-in account (auth.c, users_check). */
	"ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'player'"
	" CHECK (role IN ('player', 'umpire', 'admin'));"
	"ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0"
	" CHECK (disabled IN (0, 1));"
	"INSERT OR IGNORE INTO server_state (name, value) VALUES ('users_version', 0);"
	"CREATE TRIGGER users_version AFTER UPDATE OF role, disabled, pwhash ON users"
	" BEGIN UPDATE server_state SET value = value + 1 WHERE name = 'users_version'; END;",

	/* 7: Glicko-2 ratings (rating.h), one row per user and pool (a rule
	 * set family), and every change with the game that caused it, so a
	 * rating can be explained and recomputed. */
	"CREATE TABLE ratings ("
	" user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" pool TEXT NOT NULL,"
	" r REAL NOT NULL,"
	" rd REAL NOT NULL,"
	" vol REAL NOT NULL,"
	" games INTEGER NOT NULL DEFAULT 0,"
	" updated INTEGER NOT NULL,"
	" PRIMARY KEY (user, pool)) WITHOUT ROWID;"
	"CREATE INDEX ratings_pool ON ratings(pool, r DESC);"
	"CREATE TABLE rating_history ("
	" id INTEGER PRIMARY KEY,"
	" user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" pool TEXT NOT NULL,"
	" game INTEGER NOT NULL REFERENCES games(id),"
	" r_before REAL NOT NULL, rd_before REAL NOT NULL, vol_before REAL NOT NULL,"
	" r REAL NOT NULL, rd REAL NOT NULL, vol REAL NOT NULL,"
	" at INTEGER NOT NULL);"
	"CREATE INDEX rating_history_user ON rating_history(user, pool, id);"
	"CREATE UNIQUE INDEX rating_history_game ON rating_history(game, user);",

	/* 8: club administration (admin.h).  Each account's last login and
	 * the address it came from (the admin's user list); a password an
	 * admin reset must be changed at the next login; single-use invite
	 * codes (only a digest, as for session tokens); and the audit log of
	 * every admin action, with the admin's name as it was then. */
	"ALTER TABLE users ADD COLUMN must_change INTEGER NOT NULL DEFAULT 0"
	" CHECK (must_change IN (0, 1));"
	"ALTER TABLE users ADD COLUMN last_login INTEGER;"
	"ALTER TABLE users ADD COLUMN last_addr TEXT;"
	"CREATE TABLE invites ("
	" code_hash TEXT PRIMARY KEY,"
	" created_by INTEGER REFERENCES users(id),"
	" created INTEGER NOT NULL,"
	" expires INTEGER NOT NULL,"
	" used_by INTEGER REFERENCES users(id),"
	" used INTEGER);"
	"CREATE TABLE audit ("
	" id INTEGER PRIMARY KEY,"
	" at INTEGER NOT NULL,"
	" admin INTEGER REFERENCES users(id),"
	" admin_name TEXT NOT NULL,"
	" addr TEXT NOT NULL,"
	" action TEXT NOT NULL,"
	" target TEXT NOT NULL,"
	" detail TEXT NOT NULL);",

	/* 9: bot accounts (issue 14): a flag set offline (`kriegd user bot`),
	 * shown wherever a player is named in the lobby and at game start, and
	 * read when a rated game starts (a bot is rated against people only
	 * where the server says so: rate_bots_vs_humans). */
	"ALTER TABLE users ADD COLUMN bot INTEGER NOT NULL DEFAULT 0 CHECK (bot IN (0, 1));",

	/* 10: an action's events in its own row (store_game.c, "the events of
	 * an action"), written with it by one insert.  A row apiece in
	 * `events` cost the store writer three inserts and an index entry per
	 * action, on a second page per game per commit (BENCHMARKS.md).
	 * Records written before stay in `events` and are read from there:
	 * NULL here means "none in this row". */
	"ALTER TABLE actions ADD COLUMN events BLOB;",

	/* 11: `actions` in insertion order, found by an index.  Keyed by
	 * (game, seq) the table put each game's new row on that game's own
	 * leaf, so a commit of the actions of 43 games wrote some 43 leaves
	 * of about 100-byte rows to the WAL; in insertion order they share
	 * the last leaf or two, and only the index entries (game, seq, rowid:
	 * a few bytes each, hundreds to a page) stay spread over the live
	 * games.  Fewer WAL pages a commit, and a try waits for its commit
	 * (BENCHMARKS.md, "fewer pages a commit").  Reading one game is then
	 * an index walk and a row apiece.  Nothing refers to `actions`, so
	 * dropping and renaming it needs foreign keys neither off nor
	 * checked. */
	"CREATE TABLE actions_v11 ("
	" game INTEGER NOT NULL REFERENCES games(id),"
	" seq INTEGER NOT NULL,"
	" color INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"
	" text TEXT NOT NULL,"
	" at_ms INTEGER NOT NULL,"
	" clock_white_ms INTEGER NOT NULL,"
	" clock_black_ms INTEGER NOT NULL,"
	" ok INTEGER NOT NULL,"
	" events BLOB);"
	"INSERT INTO actions_v11 (game, seq, color, kind, text, at_ms, clock_white_ms,"
	" clock_black_ms, ok, events) SELECT game, seq, color, kind, text, at_ms,"
	" clock_white_ms, clock_black_ms, ok, events FROM actions ORDER BY game, seq;"
	"DROP TABLE actions;"
	"ALTER TABLE actions_v11 RENAME TO actions;"
	"CREATE UNIQUE INDEX actions_game ON actions(game, seq);",

	/* 12: mutes (chat.c) outlive a restart: who muted whom.  Read whole at
	 * start (a user mutes at most 200), written as each changes. */
	"CREATE TABLE mutes ("
	" user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" muted INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" PRIMARY KEY (user, muted)) WITHOUT ROWID;",

	/* 13: each user's finished games counted as they finish (`profile`),
	 * by a trigger in the finishing transaction.  Counted at each request
	 * from `games` instead, a bot's hundred thousand games cost the loop
	 * about 100 ms a `profile`, which anyone could ask twenty times a
	 * second.  The games finished before are counted once, here. */
	"CREATE TABLE tallies ("
	" user INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,"
	" won INTEGER NOT NULL, lost INTEGER NOT NULL, drawn INTEGER NOT NULL,"
	" aborted INTEGER NOT NULL);"
	"INSERT INTO tallies (user, won, lost, drawn, aborted)"
	" SELECT u, sum(w), sum(l), sum(d), sum(a) FROM ("
	"  SELECT white AS u, result = 1 AS w, result = 2 AS l, result = 3 AS d, result = 0 AS a"
	"  FROM games WHERE result != 0 OR reason != 0"
	"  UNION ALL"
	"  SELECT black, result = 2, result = 1, result = 3, result = 0"
	"  FROM games WHERE result != 0 OR reason != 0)"
	" GROUP BY u;"
	"CREATE TRIGGER games_tally AFTER UPDATE OF result, reason ON games"
	" WHEN old.result = 0 AND old.reason = 0 AND (new.result != 0 OR new.reason != 0)"
	" BEGIN"
	"  INSERT INTO tallies (user, won, lost, drawn, aborted)"
	"  VALUES (new.white, new.result = 1, new.result = 2, new.result = 3, new.result = 0)"
	"  ON CONFLICT(user) DO UPDATE SET won = won + excluded.won, lost = lost + excluded.lost,"
	"  drawn = drawn + excluded.drawn, aborted = aborted + excluded.aborted;"
	"  INSERT INTO tallies (user, won, lost, drawn, aborted)"
	"  VALUES (new.black, new.result = 2, new.result = 1, new.result = 3, new.result = 0)"
	"  ON CONFLICT(user) DO UPDATE SET won = won + excluded.won, lost = lost + excluded.lost,"
	"  drawn = drawn + excluded.drawn, aborted = aborted + excluded.aborted;"
	" END;",

	/* 14: a correspondence challenge waits for its target up to two weeks
	 * (lobby.c) — through a restart too: written when made, deleted when
	 * taken, declined, cancelled or lapsed, read whole at start (the lobby
	 * holds at most 4,096 offers; since, half of 65,536 may wait). */
	"CREATE TABLE challenges ("
	" id INTEGER PRIMARY KEY,"
	" owner INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" target INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" rules TEXT NOT NULL,"
	" days INTEGER NOT NULL,"
	" color TEXT NOT NULL,"
	" rated INTEGER NOT NULL,"
	" rematch INTEGER NOT NULL,"
	" made_ms INTEGER NOT NULL);",

	/* 15: messages left for a user (chat.c `message`), kept until that
	 * user deletes them (at most 100 a user); `delivered` 1 once pushed to
	 * a connection of theirs, so a login pushes only the new ones; 2 for
	 * one withheld (its sender muted by its reader). */
	"CREATE TABLE messages ("
	" id INTEGER PRIMARY KEY,"
	" recipient INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" sender INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" text TEXT NOT NULL,"
	" sent INTEGER NOT NULL,"
	" delivered INTEGER NOT NULL);"
	"CREATE INDEX messages_recipient ON messages(recipient, id);"
	"CREATE INDEX messages_sender ON messages(sender);",

	/* 16: a correspondence seek of a registered account waits too, so the
	 * waiting offers are schema 14's challenges and seeks (no target, a
	 * rating range): one table for both, the challenges copied over. */
	"CREATE TABLE waiting_offers ("
	" id INTEGER PRIMARY KEY,"
	" owner INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" target INTEGER REFERENCES users(id) ON DELETE CASCADE,"   /* NULL: a seek */
	" rules TEXT NOT NULL,"
	" days INTEGER NOT NULL,"
	" color TEXT NOT NULL,"
	" rated INTEGER NOT NULL,"
	" rating_min INTEGER NOT NULL,"
	" rating_max INTEGER NOT NULL,"
	" rematch INTEGER NOT NULL,"
	" made_ms INTEGER NOT NULL);"
	"INSERT INTO waiting_offers (id, owner, target, rules, days, color, rated, rating_min,"
	" rating_max, rematch, made_ms) SELECT id, owner, target, rules, days, color, rated, 0, 0,"
	" rematch, made_ms FROM challenges;"
	"DROP TABLE challenges;",

	/* 17: a message's id is never given again (AUTOINCREMENT): a plain
	 * rowid comes back once the newest message is deleted, and a delete
	 * by a number read before would take the new message in its stead. */
	"CREATE TABLE messages_v17 ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" recipient INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" sender INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" text TEXT NOT NULL,"
	" sent INTEGER NOT NULL,"
	" delivered INTEGER NOT NULL);"
	"INSERT INTO messages_v17 (id, recipient, sender, text, sent, delivered)"
	" SELECT id, recipient, sender, text, sent, delivered FROM messages ORDER BY id;"
	"DROP TABLE messages;"
	"ALTER TABLE messages_v17 RENAME TO messages;"
	"CREATE INDEX messages_recipient ON messages(recipient, id);"
	"CREATE INDEX messages_sender ON messages(sender);",

	/* 18: a registered user's follows (follow.c) are the account's, kept
	 * as FICS keeps a notify list: every connection of theirs has them
	 * from its login.  At most 32 a user, written as each changes. */
	"CREATE TABLE follows ("
	" user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" followed INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" PRIMARY KEY (user, followed)) WITHOUT ROWID;",

	/* 19: what became of a waiting offer while its owner was away (a
	 * challenge declined, an offer lapsed), kept for the owner's next
	 * login (lobby.c) and deleted once told.  The target's name is the
	 * one the challenge had ('' for a seek). */
	"CREATE TABLE offer_news ("
	" id INTEGER PRIMARY KEY,"
	" offer INTEGER NOT NULL,"
	" owner INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	" what TEXT NOT NULL,"
	" target_name TEXT NOT NULL,"
	" at_ms INTEGER NOT NULL);"
	"CREATE INDEX offer_news_owner ON offer_news(owner, id);",

	/* 20: a director's pairing names its tournament and round (lobby.c
	 * `pair`), written into the game's PGN as Event and Round; '' for
	 * every other game.  (Parenthesised: two literals alone make clang
	 * suspect a missing comma.) */
	("ALTER TABLE games ADD COLUMN tournament TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE games ADD COLUMN round TEXT NOT NULL DEFAULT '';"
	 "CREATE INDEX games_tournament ON games(tournament COLLATE NOCASE);"),

	/* 21: what a registered account's name looks like (proto_name_look:
	 * "aIice" looks as "alice"), so that a new account whose name looks
	 * as one registered is refused by an index, not by reading every
	 * name (a stranger's register could make the loop do that at will).
	 * Not unique: look-alikes registered before this rule are kept.  NULL
	 * for guests (their names are drawn, not chosen).  Filled here by
	 * krieg_name_look() (store.c name_look_sql, on the connection that
	 * migrates: never use it in an index, a trigger or a view, which
	 * every other connection, the sqlite3 shell's too, would need);
	 * later rows by store_user_create, rows written by hand at the next
	 * start (store_open_opts). */
	("ALTER TABLE users ADD COLUMN look TEXT;"
	 "UPDATE users SET look = krieg_name_look(name) WHERE guest = 0;"
	 "CREATE INDEX users_look ON users(look) WHERE look IS NOT NULL;"),

	/* 22: the games that ended while a player was away, for their next
	 * login's `welcome` (game_presence.c).  Kept in memory before, so a
	 * restart forgot them: a correspondence player, away for days, never
	 * heard that a game was won or lost (friends probe).  A row goes with
	 * its login, its account (a guest's too) or its game. */
	("CREATE TABLE missed_games ("
	 " user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	 " game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	 " PRIMARY KEY (user, game)) WITHOUT ROWID;"
	 /* and a message's number is its reader's own (1, 2, ... for each
	  * reader, never given again: users.message_seq): the server-wide id
	  * told a reader how many messages the server had kept before theirs
	  * (friends probe).  A withheld one (its sender muted) takes none, so
	  * no gap tells of it; the numbers read before stay. */
	 "ALTER TABLE users ADD COLUMN message_seq INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE messages ADD COLUMN num INTEGER NOT NULL DEFAULT 0;"
	 "UPDATE messages SET num = id WHERE delivered != 2;"
	 "UPDATE users SET message_seq = (SELECT coalesce(max(num), 0) FROM messages"
	 " WHERE recipient = users.id);"),
};

/* --- statements ----------------------------------------------------------- */

#define USER_COLS "id, name, pwhash, guest, created, role, disabled, must_change, last_login," \
                  " last_addr, bot"
#define GAME_COLS "id, white, black, rules, fen, base_ms, inc_ms, days, rated, created, result, reason," \
                  " tournament, round"
#define TOURNAMENT_LIVE "(result = 0 AND reason = 0 AND id NOT IN (SELECT game FROM flagged_games))"
/* An aborted game of a tournament (REASON_ABORTED, 10): counted apart, as a
 * director re-pairs it (it counted nowhere, and read as a bye: TD probe). */
#define TOURNAMENT_ABORTED "(result = 0 AND reason = 10)"
#define EVENT_COLS "type, audience, by_color, square, move, what, en_passant, check1, check2," \
                   " count, answer, result, reason, ply"

/* Guests nobody can be any more (no session: none can resume) and
 * nothing refers to: no game, and nobody who mutes or follows them or
 * challenges them by correspondence (those rows would go with them,
 * unannounced, and the daemon's own lists keep their ids: own-changes
 * probe; a guest leaves no message).  S_GUESTS_STALE takes those made
 * before ?1, never the newest account, whose id SQLite would give again
 * (users has no AUTOINCREMENT), so no id is ever reused; at most ?2.  The
 * lists without an index on the guest's column are read once a statement
 * (NOT IN), the games through theirs. */
#define GUEST_UNREFERENCED \
	"NOT EXISTS (SELECT 1 FROM sessions WHERE sessions.user = users.id)" \
	" AND NOT EXISTS (SELECT 1 FROM games WHERE games.white = users.id)" \
	" AND NOT EXISTS (SELECT 1 FROM games WHERE games.black = users.id)" \
	" AND id NOT IN (SELECT muted FROM mutes)" \
	" AND id NOT IN (SELECT followed FROM follows)" \
	" AND id NOT IN (SELECT target FROM waiting_offers WHERE target IS NOT NULL)"

/* The SQL of each enum stmt_id (store_priv.h), prepared on first use. */
static const char *const stmt_sql[S__COUNT] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_BEGIN_READ] = "BEGIN",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_USER_CREATE] = "INSERT INTO users (name, pwhash, guest, created, look) VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_USER_FIND] = "SELECT " USER_COLS " FROM users WHERE name = ?1",
	[S_USER_NAME] = "SELECT name FROM users WHERE id = ?1",
	[S_SESSION_CREATE] = "INSERT INTO sessions (token_hash, user, created, expires)"
	                     " VALUES (?1, ?2, ?3, ?4)",
	[S_SESSION_LOOKUP] = "SELECT user FROM sessions WHERE token_hash = ?1 AND expires > ?2",
	[S_SESSION_DELETE] = "DELETE FROM sessions WHERE token_hash = ?1",
	[S_SESSION_TOUCH] = "UPDATE sessions SET expires = ?3 WHERE token_hash = ?1 AND expires > ?2",
	[S_SESSIONS_PURGE] = "DELETE FROM sessions WHERE expires <= ?1",
	[S_GAME_CREATE] = "INSERT INTO games (white, black, rules, fen, base_ms, inc_ms, days, rated,"
	                  " created, tournament, round) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[S_GAME_FINISH] = "UPDATE games SET result = ?2, reason = ?3, finished = ?4"
	                  " WHERE id = ?1 AND result = 0 AND reason = 0",
	[S_GAME_GET] = "SELECT " GAME_COLS " FROM games WHERE id = ?1",
	[S_ACTION_INSERT] = "INSERT INTO actions (game, seq, color, kind, text, at_ms,"
	                    " clock_white_ms, clock_black_ms, ok, events)"
	                    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[S_ACTIONS_LIST] = "SELECT game, seq, color, kind, text, at_ms, clock_white_ms,"
	                   " clock_black_ms, ok FROM actions WHERE game = ?1 AND seq > ?2"
	                   " ORDER BY seq",
	[S_ACTION_LAST] = "SELECT seq FROM actions WHERE game = ?1 ORDER BY seq DESC LIMIT 1",
	[S_EVENTS_LIST] = "SELECT seq, " EVENT_COLS " FROM events WHERE game = ?1 ORDER BY seq, id",
	[S_ACTION_EVENTS_LIST] = "SELECT seq, events FROM actions"
	                         " WHERE game = ?1 AND events IS NOT NULL ORDER BY seq",
	[S_GAMES_UNFINISHED] = "SELECT " GAME_COLS " FROM games WHERE result = 0 AND reason = 0"
	                       " ORDER BY id",
	[S_GAMES_OF_USER] = "SELECT " GAME_COLS " FROM games WHERE white = ?1 OR black = ?1"
	                    " ORDER BY id DESC LIMIT ?2 OFFSET ?3",
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
	                             " AND (result != 0 OR reason != 0) ORDER BY id DESC"
	                             " LIMIT ?2 OFFSET ?3",
	[S_GAMES_COUNT_OF_USER] = "SELECT count(*) FROM games WHERE white = ?1 OR black = ?1",
	[S_STANDINGS_COUNT] = "SELECT count(*) FROM ratings WHERE pool = ?1",
	/* A tournament's table (store_tournament): each player's side of its
	 * games (the name in any case of ASCII, as the index has it), points in
	 * halves (a win 2, a draw 1), most first; a game whose record failed
	 * its check is never played on, so not live. */
	/* Ranked by points, then Buchholz (the opponents' points), then
	 * Sonneborn-Berger (the points of those beaten, half of those drawn
	 * with), each over the finished games; players equal on all three
	 * share a rank (the TD probe: names broke ties).  In halves: pts,
	 * buch; in quarters: sb. */
	[S_TOURNAMENT] = "WITH s AS (SELECT white AS p, black AS o,"
	                 " CASE result WHEN 1 THEN 2 WHEN 3 THEN 1 ELSE 0 END AS pts, result = 1 AS won,"
	                 " result = 3 AS drawn, result = 2 AS lost, " TOURNAMENT_LIVE " AS live, "
	                 TOURNAMENT_ABORTED " AS aborted, result != 0 AS done"
	                 " FROM games WHERE tournament = ?1 COLLATE NOCASE"
	                 " UNION ALL SELECT black, white, CASE result WHEN 2 THEN 2 WHEN 3 THEN 1 ELSE 0 END,"
	                 " result = 2, result = 3, result = 1, " TOURNAMENT_LIVE ", " TOURNAMENT_ABORTED
	                 ", result != 0 FROM games WHERE tournament = ?1 COLLATE NOCASE),"
	                 " t AS (SELECT p, sum(pts) AS pts, sum(won) AS won, sum(drawn) AS drawn,"
	                 " sum(lost) AS lost, sum(live) AS live, sum(aborted) AS aborted FROM s GROUP BY p),"
	                 " tb AS (SELECT s.p, sum(CASE WHEN s.done THEN t.pts ELSE 0 END) AS buch,"
	                 " sum(CASE WHEN s.done THEN s.pts * t.pts ELSE 0 END) AS sb"
	                 " FROM s JOIN t ON t.p = s.o GROUP BY s.p)"
	                 " SELECT t.p, users.name, users.bot, t.pts, t.won, t.drawn, t.lost, t.live, t.aborted,"
	                 " tb.buch, tb.sb, rank() OVER (ORDER BY t.pts DESC, tb.buch DESC, tb.sb DESC) AS rnk"
	                 " FROM t JOIN tb ON tb.p = t.p JOIN users ON users.id = t.p"
	                 " ORDER BY rnk, users.name LIMIT -1 OFFSET ?2",
	/* The spelling the tournament was first paired under, for a pairing
	 * that names it in another case (the index's order: the oldest game
	 * first among equal names). */
	[S_TOURNAMENT_SPELLING] = "SELECT tournament FROM games WHERE tournament = ?1 COLLATE NOCASE"
	                          " ORDER BY tournament COLLATE NOCASE, id LIMIT 1",
	[S_TOURNAMENT_COUNT] = "SELECT count(*) FROM (SELECT white FROM games WHERE tournament = ?1 COLLATE NOCASE"
	                       " UNION SELECT black FROM games WHERE tournament = ?1 COLLATE NOCASE)",
	[S_GAMES_COUNT_FINISHED_OF_USER] = "SELECT count(*) FROM games WHERE (white = ?1 OR black = ?1)"
	                                   " AND (result != 0 OR reason != 0)",
	[S_STATE_SET] = "INSERT INTO server_state (name, value) VALUES (?1, ?2)"
	                " ON CONFLICT(name) DO UPDATE SET value = excluded.value",
	[S_STATE_GET] = "SELECT value FROM server_state WHERE name = ?1",
	[S_USER_ROLE] = "SELECT role, disabled, guest FROM users WHERE id = ?1",
	[S_USER_SET_ROLE] = "UPDATE users SET role = ?2 WHERE name = ?1 AND guest = 0",
	[S_USER_SET_DISABLED] = "UPDATE users SET disabled = ?2 WHERE name = ?1",
	[S_USER_SET_PWHASH] = "UPDATE users SET pwhash = ?2 WHERE name = ?1 AND guest = 0",
	[S_USERS_LIST] = "SELECT " USER_COLS " FROM users WHERE guest = 0 ORDER BY name",
	[S_USER_LOOK] = "SELECT name FROM users WHERE name = ?1 OR look = ?2 ORDER BY name <> ?1 LIMIT 1",
	[S_RATING_GET] = "SELECT r, rd, vol, games FROM ratings WHERE user = ?1 AND pool = ?2",
	[S_RATING_PUT] = "INSERT INTO ratings (user, pool, r, rd, vol, games, updated)"
	                 " VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6) ON CONFLICT(user, pool) DO UPDATE"
	                 " SET r = excluded.r, rd = excluded.rd, vol = excluded.vol,"
	                 " games = games + 1, updated = excluded.updated",
	[S_RATING_HISTORY] = "INSERT INTO rating_history (user, pool, game, r_before, rd_before,"
	                     " vol_before, r, rd, vol, at)"
	                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[S_STANDINGS] = "SELECT ratings.user, users.name, r, rd, vol, games, users.bot FROM ratings"
	                " JOIN users ON users.id = ratings.user WHERE pool = ?1"
	                " ORDER BY r DESC, users.name LIMIT -1 OFFSET ?2",
	[S_USER_SEEN] = "UPDATE users SET last_login = ?2, last_addr = ?3 WHERE id = ?1",
	[S_USER_SET_PASSWORD] = "UPDATE users SET pwhash = ?2, must_change = ?3"
	                        " WHERE id = ?1 AND guest = 0",
	[S_SESSIONS_END_USER] = "DELETE FROM sessions WHERE user = ?1 AND token_hash != ?2",
	/* A session's expiry is its issue or last resume plus the lifetime:
	 * the least recently used first (the older row of one second first). */
	[S_SESSIONS_OF_USER] = "SELECT token_hash FROM sessions WHERE user = ?1 AND expires > ?2"
	                       " ORDER BY expires, rowid",
	[S_GUESTS_STALE] = "SELECT id FROM users WHERE guest = 1 AND created < ?1"
	                   " AND id < (SELECT max(id) FROM users) AND " GUEST_UNREFERENCED
	                   " LIMIT ?2",
	/* The same conditions again, at the delete: a guest who came back
	 * (a session), sat down to play, or was muted between the two stays. */
	[S_GUEST_DELETE] = "DELETE FROM users WHERE id = ?1 AND guest = 1 AND " GUEST_UNREFERENCED,
	[S_INVITE_CREATE] = "INSERT INTO invites (code_hash, created_by, created, expires)"
	                    " VALUES (?1, ?2, ?3, ?4)",
	[S_INVITE_VALID] = "SELECT 1 FROM invites WHERE code_hash = ?1 AND used IS NULL"
	                   " AND expires > ?2",
	[S_INVITE_USE] = "UPDATE invites SET used_by = ?3, used = ?2 WHERE code_hash = ?1"
	                 " AND used IS NULL AND expires > ?2",
	[S_AUDIT_ADD] = "INSERT INTO audit (at, admin, admin_name, addr, action, target, detail)"
	                " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[S_AUDIT_LIST] = "SELECT id, at, admin_name, addr, action, target, detail FROM audit"
	                 " ORDER BY id DESC LIMIT ?1",
	[S_AUDIT_NEWEST] = "SELECT coalesce(max(id), 0) FROM audit",
	[S_AUDIT_DISABLES] = "SELECT id, target FROM audit WHERE id > ?1 AND id <= ?2"
	                     " AND action = 'user_disable' ORDER BY id",
	[S_INVITES_LIST] = "SELECT i.code_hash, cu.name, i.created, i.expires, uu.name, i.used"
	                   " FROM invites i LEFT JOIN users cu ON cu.id = i.created_by"
	                   " LEFT JOIN users uu ON uu.id = i.used_by"
	                   " WHERE substr(i.code_hash, 1, length(?1)) = ?1"
	                   " ORDER BY i.created DESC, i.rowid DESC LIMIT ?2",
	/* A revoked code: used at the revocation by nobody, and expired then. */
	/* Revoked: `used` set without `used_by`; the expiry stays as made. */
	[S_INVITE_REVOKE] = "UPDATE invites SET used = ?2"
	                    " WHERE code_hash = ?1 AND used_by IS NULL AND used IS NULL"
	                    " AND expires > ?2",
	[S_USER_BOT] = "SELECT bot FROM users WHERE id = ?1",
	[S_USER_SET_BOT] = "UPDATE users SET bot = ?2 WHERE name = ?1 AND guest = 0",
	/* Kept by schema 13's trigger as games finish. */
	[S_GAMES_TALLY] = "SELECT won, lost, drawn, aborted FROM tallies WHERE user = ?1",
	[S_MUTE_SET] = "INSERT OR IGNORE INTO mutes (user, muted) VALUES (?1, ?2)",
	[S_MUTE_CLEAR] = "DELETE FROM mutes WHERE user = ?1 AND muted = ?2",
	[S_MUTES_LIST] = "SELECT user, muted FROM mutes ORDER BY user, muted",
	[S_OFFER_PUT] = "INSERT INTO waiting_offers (id, owner, target, rules, days, color, rated,"
	                " rating_min, rating_max, rematch, made_ms)"
	                " VALUES (?1, ?2, nullif(?3, 0), ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[S_OFFER_DROP] = "DELETE FROM waiting_offers WHERE id = ?1",
	[S_OFFER_NEWS_PUT] = "INSERT INTO offer_news (offer, owner, what, target_name, at_ms)"
	                     " SELECT w.id, w.owner, ?2, coalesce(t.name, ''), ?3 FROM waiting_offers w"
	                     " LEFT JOIN users t ON t.id = w.target WHERE w.id = ?1",
	[S_OFFER_NEWS_LIST] = "SELECT id, offer, what, target_name FROM offer_news WHERE owner = ?1"
	                      " ORDER BY id",
	[S_OFFER_NEWS_DROP] = "DELETE FROM offer_news WHERE owner = ?1 AND id <= ?2",
	[S_OFFERS_LIST] = "SELECT w.id, w.owner, o.name, coalesce(w.target, 0), coalesce(t.name, ''), w.rules,"
	                  " w.days, w.color, w.rated, w.rematch, w.made_ms, w.rating_min, w.rating_max"
	                  " FROM waiting_offers w JOIN users o ON o.id = w.owner"
	                  " LEFT JOIN users t ON t.id = w.target ORDER BY w.id",
	/* The reader's next number: the same write whether the message is
	 * withheld or not (a withheld one takes none), so the answer's time
	 * does not tell of a mute. */
	[S_MESSAGE_SEQ] = "UPDATE users SET message_seq = message_seq + (?2 != 2) WHERE id = ?1"
	                  " RETURNING message_seq",
	[S_MESSAGE_PUT] = "INSERT INTO messages (recipient, sender, text, sent, delivered, num)"
	                  " VALUES (?1, ?2, ?3, ?4, ?5, CASE ?5 WHEN 2 THEN 0 ELSE ?6 END)",
	[S_MESSAGES_COUNT] = "SELECT coalesce(sum(delivered != 2 OR sender = ?2), 0),"
	                     " coalesce(sum(sender = ?2), 0)"
	                     " FROM messages WHERE recipient = ?1",
	[S_MESSAGES_LIST] = "SELECT m.id, u.name, m.text, m.sent, m.delivered, m.num FROM messages m"
	                    " JOIN users u ON u.id = m.sender WHERE m.recipient = ?1 ORDER BY m.id",
	[S_MESSAGES_DELIVERED] = "UPDATE messages SET delivered = 1 WHERE recipient = ?1 AND id <= ?2"
	                         " AND delivered = 0",
	[S_FOLLOW_SET] = "INSERT OR IGNORE INTO follows (user, followed) VALUES (?1, ?2)",
	[S_MISSED_ADD] = "INSERT OR IGNORE INTO missed_games (user, game) VALUES (?1, ?2)",
	/* A player's newest MISSED_PER_USER kept: those below the oldest of them go. */
	[S_MISSED_TRIM] = "DELETE FROM missed_games WHERE user = ?1 AND game < (SELECT game FROM missed_games"
	                  " WHERE user = ?1 ORDER BY game DESC LIMIT 1 OFFSET ?2)",
	[S_MISSED_OF] = "SELECT games.id, games.white = ?1, games.result, games.reason, users.name"
	                " FROM missed_games JOIN games ON games.id = missed_games.game"
	                " JOIN users ON users.id = (CASE WHEN games.white = ?1 THEN games.black ELSE games.white END)"
	                " WHERE missed_games.user = ?1 ORDER BY missed_games.game",
	[S_MISSED_DROP] = "DELETE FROM missed_games WHERE user = ?1 AND game = ?2",
	[S_FOLLOW_CLEAR] = "DELETE FROM follows WHERE user = ?1 AND (?2 = 0 OR followed = ?2)",
	[S_FOLLOWS_OF] = "SELECT f.followed, u.name FROM follows f JOIN users u ON u.id = f.followed"
	                 " WHERE f.user = ?1 ORDER BY f.followed",
	[S_MESSAGES_DELETE] = "DELETE FROM messages WHERE recipient = ?1"
	                      " AND (?2 = 0 OR (num = ?2 AND delivered != 2))",
};

/* --- errors -------------------------------------------------------------- */

/* Record a failure: the first text wins until the next top-level call. */
int store_fail(struct store *st, const char *fmt, ...)
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

int store_fail_db(struct store *st, const char *what)
{
	return store_fail(st, "%s: %s", what, sqlite3_errmsg(st->db));
}

/* Every public call starts here.  Outside a transaction the previous
 * error is forgotten; inside a doomed one nothing more runs. */
int store_enter(struct store *st)
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

uint64_t store_record_rows(const struct store *st)
{
	return st->record_rows;
}

/* --- statement cache ---------------------------------------------------- */

const char *store_stmt_sql(enum stmt_id id)
{
	return stmt_sql[id];
}

/* A statement for one use.  If the cached one is still stepping (a listing
 * callback called the same listing again), a private copy is prepared and
 * *temp tells the caller to finalize it. */
sqlite3_stmt *store_stmt(struct store *st, enum stmt_id id, int *temp)
{
	sqlite3_stmt **slot = &st->stmt[id];
	sqlite3_stmt *s = NULL;

	*temp = 0;
	if (*slot != NULL && !sqlite3_stmt_busy(*slot))
		return *slot;
	if (sqlite3_prepare_v3(st->db, stmt_sql[id], -1,
	                       *slot == NULL ? SQLITE_PREPARE_PERSISTENT : 0, &s, NULL) != SQLITE_OK) {
		store_fail_db(st, "prepare");
		sqlite3_finalize(s);
		return NULL;
	}
	if (*slot == NULL)
		*slot = s;
	else
		*temp = 1;
	return s;
}

void store_stmt_done(sqlite3_stmt *s, int temp)
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
int store_run(struct store *st, sqlite3_stmt *s, const char *what)
{
	if (sqlite3_step(s) != SQLITE_DONE)
		return store_fail_db(st, what);
	return STORE_OK;
}

int store_step_row(struct store *st, sqlite3_stmt *s, const char *what)
{
	int step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		return STORE_OK;
	if (step == SQLITE_DONE)
		return STORE_NOT_FOUND;
	return store_fail_db(st, what);
}

/* Run a write keyed by one text; NOT_FOUND when it changed no row. */
int store_write_changes(struct store *st, sqlite3_stmt *s, int temp, const char *what)
{
	int rc = store_run(st, s, what);
	if (rc == STORE_OK && sqlite3_changes(st->db) == 0)
		rc = STORE_NOT_FOUND;
	store_stmt_done(s, temp);
	return rc;
}

int store_bind_text(sqlite3_stmt *s, int i, const char *text, size_t max)
{
	size_t n = strnlen(text, max);
	if (n >= max)
		return SQLITE_TOOBIG;
	return sqlite3_bind_text(s, i, text, (int)n, SQLITE_TRANSIENT);
}

/* Copy a text column into a fixed buffer; a value that does not fit is
 * corruption (we never write one). */
int store_col_text(struct store *st, sqlite3_stmt *s, int col, char *out, size_t len,
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
		return store_fail(st, "%s: stored text longer than %zu bytes", what, len - 1);
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

/* krieg_name_look(name): proto_name_look in SQL, for migration 21. */
static void name_look_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *name = argc == 1 ? sqlite3_value_text(argv[0]) : NULL;
	char look[PROTO_NAME_MAX + 1];

	if (name == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	proto_name_look((const char *)name, look, sizeof look);
	sqlite3_result_text(ctx, look, -1, SQLITE_TRANSIENT);
}

static const char *const sync_names[] = { "off", "normal", "full", "extra" };

int store_synchronous_valid(const char *name)
{
	for (size_t i = 0; i < sizeof sync_names / sizeof sync_names[0]; i++)
		if (name != NULL && strcmp(name, sync_names[i]) == 0)
			return 1;
	return 0;
}

/* Whose file is it?  Read before anything is written (the journal mode
 * included): another program's file, or a newer schema, is refused
 * untouched.  A krieg database this kriegd can open (of schema *version),
 * or a new empty file: 0; it cannot be read: IDENT_UNREAD; read, and not
 * one to open: IDENT_REFUSED; err set for both. */
enum { IDENT_UNREAD = -1, IDENT_REFUSED = -2 };

/* A file there before, with no schema: a database emptied, not a new one
 * (kriegd makes a new one's schema in the open that makes the file). */
static void say_no_schema(const char *path, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s: restore a backup (deploy/BACKUP.md), or remove the file to start a "
	         "new, empty database", path, what);
}

static void say_damaged(const char *path, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: the database is damaged (%s); restore a backup (deploy/BACKUP.md)", path, why);
}

/* SQLite's last error on db is a damaged file (a truncated copy, pages of
 * another file): said as one, with what to do (the backup probe: a half
 * file was "database disk image is malformed", and --check-config passed
 * it with a warning). */
static bool damaged(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	int ec = sqlite3_errcode(db) & 0xff;
	if (ec != SQLITE_CORRUPT && ec != SQLITE_NOTADB)
		return false;
	say_damaged(path, sqlite3_errmsg(db), err, errlen);
	return true;
}

/* quick_check reads every page once (O(size), no index cross-check),
 * which a start, or a check of a file, can afford.  false with err set. */
static bool pages_ok(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	const char *res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
	bool ok = rc == SQLITE_ROW && res != NULL && strcmp(res, "ok") == 0;
	if (!ok)
		say_damaged(path, res != NULL ? res : sqlite3_errmsg(db), err, errlen);
	sqlite3_finalize(s);
	return ok;
}

static int identify(sqlite3 *db, const char *path, int64_t *version, char *err, size_t errlen)
{
	int64_t app = 0, objects = 0;
	*version = 0;
	if (exec_int(db, "PRAGMA user_version", version) != SQLITE_OK ||
	    exec_int(db, "PRAGMA application_id", &app) != SQLITE_OK ||
	    exec_int(db, "SELECT count(*) FROM sqlite_schema", &objects) != SQLITE_OK) {
		*version = 0;
		if (damaged(db, path, err, errlen))
			return IDENT_REFUSED;
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		return IDENT_UNREAD;
	}
	if (*version > STORE_SCHEMA_VERSION) {
		snprintf(err, errlen,
		         "%s: database schema version %lld is newer than this kriegd's %d; "
		         "refusing to open it (run a newer kriegd)",
		         path, (long long)*version, STORE_SCHEMA_VERSION);
		return IDENT_REFUSED;
	}
	if ((*version > 0 && app != STORE_APP_ID) || (*version == 0 && (objects > 0 || app != 0))) {
		snprintf(err, errlen, "%s: not a krieg database (application_id %lld, "
		         "schema version %lld, %lld objects)", path, (long long)app,
		         (long long)*version, (long long)objects);
		return IDENT_REFUSED;
	}
	return 0;
}

/* path's -wal has commits (not empty). */
static bool wal_beside(const char *path)
{
	struct stat sb;
	size_t len = strlen(path);
	char *walpath = xmalloc(len + sizeof "-wal");
	snprintf(walpath, len + sizeof "-wal", "%s-wal", path);
	bool has = stat(walpath, &sb) == 0 && sb.st_size > 0;
	free(walpath);
	return has;
}

/* A kriegd holds path (main.c hold_database's flock).  Only a process with
 * no SQLite connection to the file may ask: closing a descriptor of it
 * drops the process's fcntl locks. */
static bool served(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

bool store_file_empty(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size != 0 || wal_beside(path))
		return false;
	say_no_schema(path, "the file is empty (0 bytes), not a krieg database", err, errlen);
	return true;
}

int store_peek_version(const char *path, int64_t *version, bool *wal, char *err, size_t errlen)
{
	*version = 0;
	*wal = false;
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return STORE_PEEK_NONE;
	if (store_file_empty(path, err, errlen))
		return STORE_PEEK_REFUSED;
	/* immutable: no lock taken, no -wal or -shm opened, so none is made
	 * (a read-only open made both, root's own beside a service's file).
	 * So only the main file is read: commits still in a -wal beside it
	 * (a kriegd running, or stopped uncleanly) are not, which *wal says.
	 * "file://" before an absolute path: "file://tmp/x" names a host. */
	size_t len = strlen(path), n = 0, cap = 3 * len + 32;
	char *uri = xmalloc(cap);
	n = (size_t)snprintf(uri, cap, path[0] == '/' ? "file://" : "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++)
		if (isalnum(*p) || strchr("/-._~", *p) != NULL)
			uri[n++] = (char)*p;
		else
			n += (size_t)snprintf(uri + n, cap - n, "%%%02X", *p);
	snprintf(uri + n, cap - n, "?immutable=1");
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, db != NULL ? sqlite3_errmsg(db) : "out of memory");
		rc = STORE_PEEK_UNREAD;
	} else {
		/* unread: unreadable, or changed under the look (a checkpoint) */
		int id = identify(db, path, version, err, errlen);
		rc = id == 0 ? STORE_PEEK_OK : id == IDENT_UNREAD ? STORE_PEEK_UNREAD : STORE_PEEK_REFUSED;
		/* A file with no schema is no krieg database to put back (a
		 * copy of an emptied one: a review).  And its pages, as the start
		 * checks them: a copy about to be put back is checked before
		 * anything is stopped (CLUB.md "Restore").  Not a database a
		 * kriegd serves (its flock, main.c): it checked them at its
		 * start, and its checkpoints write pages under this look, which
		 * takes no lock (a deploy hook checks beside it); nor one with a
		 * -wal beside it (a kriegd stopped uncleanly), whose main file
		 * alone may be half checkpointed until the -wal completes it. */
		if (rc == STORE_PEEK_OK && *version == 0) {
			say_no_schema(path, "an SQLite file with no krieg schema (version 0)", err, errlen);
			rc = STORE_PEEK_REFUSED;
		}
		if (rc == STORE_PEEK_OK && !served(path) && !wal_beside(path) && !pages_ok(db, path, err, errlen))
			rc = STORE_PEEK_REFUSED;
	}
	sqlite3_close(db);
	*wal = wal_beside(path);   /* after the look: a checkpoint meanwhile empties it */
	return rc;
}

/* Back to normal locking after an upgrade: the exclusive lock goes at
 * the next access of the file, so make one now. */
static void unexclusive(sqlite3 *db)
{
	int64_t objects;
	sqlite3_exec(db, "PRAGMA locking_mode = NORMAL", NULL, NULL, NULL);
	exec_int(db, "SELECT count(*) FROM sqlite_master", &objects);
}

/* Bring the schema from `version` (identify's) to STORE_SCHEMA_VERSION,
 * or explain why not.  Returns 0 or -1 with err set. */
static int migrate(sqlite3 *db, const char *path, int64_t version, const struct store_options *opt,
                   char *err, size_t errlen)
{
	int readonly = opt->readonly;
	char *msg = NULL;

	if (version == STORE_SCHEMA_VERSION)
		return 0;
	if (readonly) {
		snprintf(err, errlen, "%s: database schema version %lld needs an upgrade to %d, "
		         "but it is open read-only", path, (long long)version, STORE_SCHEMA_VERSION);
		return -1;
	}

	/* An upgrade needs the file to itself: an older kriegd still serving
	 * it (one from before main.c's hold_database flock) would go on
	 * with statements on tables changed under it.  Every kriegd keeps the
	 * file in WAL mode, where an open connection holds a shared lock on
	 * it even when idle, so the exclusive lock below is had only when no
	 * other connection, in any process, has it open (after busy_timeout).
	 * It is this connection's until the end of the upgrade; then back to
	 * normal locking, released at the next read.  A new file (version 0)
	 * has nobody else. */
	bool exclusive = version > 0;
	if (exclusive) {
		/* First a read in WAL mode with normal locking: a connection whose
		 * first WAL access is made in exclusive mode keeps its WAL index
		 * in its own memory and can never go back to normal locking (a
		 * file just switched from a rollback journal has had none yet). */
		int64_t objects;
		int rc = exec_int(db, "SELECT count(*) FROM sqlite_master", &objects);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, "PRAGMA locking_mode = EXCLUSIVE", NULL, NULL, &msg);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, &msg);
		if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY)
			goto fail;
		if (rc != SQLITE_OK) {
			snprintf(err, errlen, "%s: database schema version %lld needs an upgrade to %d, "
			         "but another process has it open (an older kriegd still running? stop it "
			         "first: deploy/BACKUP.md \"Upgrades and schema versions\")", path,
			         (long long)version, STORE_SCHEMA_VERSION);
			sqlite3_free(msg);
			unexclusive(db);
			return -1;
		}
	} else if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK) {
		goto fail;
	}
	/* Re-read the version in case another process migrated meanwhile. */
	if (exec_int(db, "PRAGMA user_version", &version) != SQLITE_OK)
		goto fail;
	if (opt->upgrading != NULL && version < STORE_SCHEMA_VERSION)
		opt->upgrading(path, version, STORE_SCHEMA_VERSION);
	for (int64_t v = version + 1; v <= STORE_SCHEMA_VERSION; v++) {
		char sql[64];
		if (sqlite3_exec(db, migrations[v - 1], NULL, NULL, &msg) != SQLITE_OK) {
			snprintf(err, errlen, "%s: migrating schema %lld -> %lld: %s", path,
			         (long long)(v - 1), (long long)v, msg != NULL ? msg : "?");
			sqlite3_free(msg);
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			unexclusive(db);
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
	if (exclusive)
		unexclusive(db);
	return 0;
fail:
	snprintf(err, errlen, "%s: migrating schema from version %lld: %s", path,
	         (long long)version, msg != NULL ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	unexclusive(db);
	return -1;
}

/*
 * SQLite's "attempt to write a readonly database" for a file one may
 * write: its directory is not writable, and WAL mode makes its -wal and
 * -shm files beside it (the ops probe: the error named the file alone).
 * The words to add, or "".
 */
#define STORE_PATH_HINT_MAX 1200
static const char *readonly_dir_hint(sqlite3 *db, const char *path, char *buf, size_t len)
{
	char copy[1024];
	buf[0] = '\0';
	if ((sqlite3_errcode(db) & 0xff) != SQLITE_READONLY || access(path, W_OK) != 0)
		return buf;
	snprintf(copy, sizeof copy, "%s", path);
	const char *dir = dirname(copy);
	if (access(dir, W_OK) != 0)
		snprintf(buf, len, " (the directory %s is not writable: SQLite makes the database's -wal "
		         "and -shm files beside it)", dir);
	return buf;
}

struct store *store_open_opts(const char *path, const struct store_options *opt, char *err,
                              size_t errlen)
{
	static const struct store_options defaults = { .synchronous = "full" };
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
	if (!opt->made_empty && store_file_empty(path, err, errlen))
		return NULL;
	struct stat had;
	bool existed = stat(path, &had) == 0 && had.st_size > 0;
	flags = opt->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(path, &db, flags | STORE_OPEN_THREADING, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, db != NULL ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, opt->busy_timeout_ms > 0 ? opt->busy_timeout_ms
	                                                  : STORE_BUSY_TIMEOUT_MS);
	if (sqlite3_create_function(db, "krieg_name_look", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	                            name_look_sql, NULL, NULL) != SQLITE_OK)
		goto fail;

	/* foreign_keys and synchronous are per connection, not stored. */
	snprintf(sql, sizeof sql, "PRAGMA foreign_keys = ON; PRAGMA synchronous = %s", sync);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	/* A damaged file is refused at start with a clear message rather than
	 * failing request by request later. */
	if (!pages_ok(db, path, err, errlen)) {
		sqlite3_close(db);
		return NULL;
	}
	int64_t version;
	if (identify(db, path, &version, err, errlen) != 0) {
		sqlite3_close(db);
		return NULL;
	}
	if (existed && version == 0) {
		say_no_schema(path, "an SQLite file with no krieg schema (version 0)", err, errlen);
		sqlite3_close(db);
		return NULL;
	}
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
	if (migrate(db, path, version, opt, err, errlen) != 0) {
		sqlite3_close(db);
		return NULL;
	}
	/* An account written by hand (the sqlite3 shell) has no look: given
	 * one, so that a name looking like it is refused too.  One pass over
	 * the accounts at start (a few ms for 100,000), nothing when none. */
	int64_t unlooked = 0;   /* read first: an UPDATE of nothing would still ask for the write lock */
	if (!opt->readonly &&
	    (exec_int(db, "SELECT count(*) FROM (SELECT 1 FROM users WHERE guest = 0 AND look IS NULL LIMIT 1)",
	              &unlooked) != SQLITE_OK ||
	     (unlooked > 0 && sqlite3_exec(db, "UPDATE users SET look = krieg_name_look(name)"
	                                       " WHERE guest = 0 AND look IS NULL", NULL, NULL, &msg) != SQLITE_OK)))
		goto fail;

	st = xcalloc(1, sizeof *st);
	st->db = db;
	st->busy_ms = opt->busy_timeout_ms > 0 ? opt->busy_timeout_ms : STORE_BUSY_TIMEOUT_MS;
	st->ckpt_pages = opt->checkpoint_pages > 0 ? opt->checkpoint_pages : STORE_CKPT_PAGES;
	snprintf(st->synchronous, sizeof st->synchronous, "%s", sync);
	st->path = xstrdup(path);
	return st;
fail:;
	char hint[STORE_PATH_HINT_MAX];
	if (!damaged(db, path, err, errlen))
		snprintf(err, errlen, "%s: %s%s", path, msg != NULL ? msg : sqlite3_errmsg(db),
		         readonly_dir_hint(db, path, hint, sizeof hint));
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
	store_ckpt_stop(st->ckpt);
	for (int i = 0; i < S__COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	/* The last connection to close checkpoints and removes the WAL. */
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

/* Another connection to st's database with st's per-connection settings
 * (flags: how it is opened; pragma: what it runs first).  NULL on failure
 * (err). */
static struct store *open_peer(struct store *st, int flags, const char *pragma, char *err,
                               size_t errlen)
{
	struct store *p;
	sqlite3 *db = NULL;
	char *msg = NULL;

	if (st->path == NULL) {
		snprintf(err, errlen, "store: no database path");
		return NULL;
	}
	if (sqlite3_open_v2(st->path, &db, flags | STORE_OPEN_THREADING, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", st->path,
		         db != NULL ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, st->busy_ms);
	if (sqlite3_exec(db, pragma, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", st->path, msg != NULL ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		sqlite3_close(db);
		return NULL;
	}
	p = xcalloc(1, sizeof *p);
	p->path = xstrdup(st->path);
	p->db = db;
	p->busy_ms = st->busy_ms;
	p->ckpt_pages = st->ckpt_pages;
	snprintf(p->synchronous, sizeof p->synchronous, "%s", st->synchronous);
	return p;
}

/* The loop's busy handler: SQLite's own sleeps 1 ms first, then longer,
 * while the writer's commit that holds the lock takes well under that;
 * every client waited the whole millisecond (a game's start, 43 a second
 * at 200 connections, blocked the loop 1.1-1.5 ms each: BENCHMARKS.md).
 * So it looks again every STORE_LOOP_BUSY_STEP_US, up to STORE_LOOP_BUSY_MS
 * (busy_ms when that is less). */
#define STORE_LOOP_BUSY_STEP_US 100
static int loop_busy(void *arg, int n)
{
	struct store *st = arg;
	int64_t now = mstime_mono();
	if (n == 0)
		st->busy_since = now;
	if (now - st->busy_since >= (st->busy_ms < STORE_LOOP_BUSY_MS ? st->busy_ms : STORE_LOOP_BUSY_MS))
		return 0;
	struct timespec ts = { 0, STORE_LOOP_BUSY_STEP_US * 1000L };
	nanosleep(&ts, NULL);
	return 1;
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
	char sql[64];

	snprintf(sql, sizeof sql, "PRAGMA foreign_keys = ON; PRAGMA synchronous = %s",
	         st->synchronous);
	struct store *w = open_peer(st, SQLITE_OPEN_READWRITE, sql, err, errlen);
	if (w == NULL)
		return NULL;
	if ((w->ckpt = store_ckpt_start(w, st, err, errlen)) == NULL) {
		store_close(w);
		return NULL;
	}
	sqlite3_busy_handler(st->db, loop_busy, st);
	return w;
}

/* Read-only, and refused any write even through a statement that would
 * (query_only): the reader thread only reads records (reader.h). */
struct store *store_open_reader(struct store *st, char *err, size_t errlen)
{
	return open_peer(st, SQLITE_OPEN_READONLY, "PRAGMA query_only = ON", err, errlen);
}

/* --- transactions -------------------------------------------------------- */

static int simple(struct store *st, enum stmt_id id, const char *what)
{
	int temp;
	sqlite3_stmt *s = store_stmt(st, id, &temp);
	int rc;

	if (s == NULL)
		return STORE_ERROR;
	rc = store_run(st, s, what);
	store_stmt_done(s, temp);
	return rc;
}

static int begin(struct store *st, enum stmt_id how)
{
	if (st->depth > 0) {
		if (st->doomed)
			return STORE_ERROR;
		st->depth++;
		return STORE_OK;
	}
	st->err[0] = '\0';
	st->doomed = 0;
	if (simple(st, how, "begin") != STORE_OK)
		return STORE_ERROR;
	st->depth = 1;
	return STORE_OK;
}

int store_begin(struct store *st)
{
	return begin(st, S_BEGIN);
}

/* A deferred BEGIN takes no lock until its first read, and no write lock
 * unless something writes. */
int store_begin_read(struct store *st)
{
	return begin(st, S_BEGIN_READ);
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
		return store_fail(st, "commit without begin");
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

/* --- server state ------------------------------------------------------- */

int store_state_set(struct store *st, const char *name, int64_t value)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_STATE_SET, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, value);
	rc = store_run(st, s, "state set");
	store_stmt_done(s, temp);
	return rc;
}

int store_state_get(struct store *st, const char *name, int64_t *value)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_STATE_GET, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	rc = store_step_row(st, s, "state get");
	if (rc == STORE_OK) {
		*value = sqlite3_column_int64(s, 0);
	}
	store_stmt_done(s, temp);
	return rc;
}
