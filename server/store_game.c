/*
 * store_game.c — game records (store.h): games, the actions and events of
 * each, the umpire's actions, flagged records, and the listings that read
 * them back; on the connection, statements and sticky error of store.c
 * (store_priv.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "store_priv.h"

/* --- games --------------------------------------------------------------- */

int store_game_create(struct store *st, struct store_game *g)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_GAME_CREATE, &temp)) == NULL)
		return STORE_ERROR;
	if (g->created_unix == 0)
		g->created_unix = (int64_t)time(NULL);
	sqlite3_bind_int64(s, 1, g->white);
	sqlite3_bind_int64(s, 2, g->black);
	if (store_bind_text(s, 3, g->rules, sizeof g->rules) != SQLITE_OK ||
	    store_bind_text(s, 4, g->fen, sizeof g->fen) != SQLITE_OK) {
		rc = store_fail(st, "game create: rules or fen not terminated");
		goto out;
	}
	sqlite3_bind_int64(s, 5, g->base_ms);
	sqlite3_bind_int64(s, 6, g->inc_ms);
	sqlite3_bind_int64(s, 7, g->days);
	sqlite3_bind_int(s, 8, g->rated ? 1 : 0);
	sqlite3_bind_int64(s, 9, g->created_unix);
	rc = store_run(st, s, "game create");
	if (rc == STORE_OK) {
		g->id = sqlite3_last_insert_rowid(st->db);
		g->result = 0;
		g->reason = 0;
	}
out:
	store_stmt_done(s, temp);
	return rc;
}

/* One row of GAME_COLS (store.c). */
static int game_row(struct store *st, sqlite3_stmt *s, struct store_game *g)
{
	memset(g, 0, sizeof *g);
	g->id = sqlite3_column_int64(s, 0);
	g->white = sqlite3_column_int64(s, 1);
	g->black = sqlite3_column_int64(s, 2);
	if (store_col_text(st, s, 3, g->rules, sizeof g->rules, "game") != STORE_OK ||
	    store_col_text(st, s, 4, g->fen, sizeof g->fen, "game") != STORE_OK)
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
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_GAME_GET, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	rc = store_step_row(st, s, "game get");
	if (rc == STORE_OK)
		rc = game_row(st, s, out);
	store_stmt_done(s, temp);
	return rc;
}

int store_game_finish(struct store *st, int64_t game, int result, int reason)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if (result == 0 && reason == 0)
		return store_fail(st, "game finish: neither a result nor a reason");
	if ((s = store_stmt(st, S_GAME_FINISH, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	sqlite3_bind_int(s, 2, result);
	sqlite3_bind_int(s, 3, reason);
	sqlite3_bind_int64(s, 4, (int64_t)time(NULL));
	rc = store_write_changes(st, s, temp, "game finish");
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

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_ACTION_INSERT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, a->game);
	sqlite3_bind_int(s, 2, a->seq);
	sqlite3_bind_int(s, 3, a->color);
	if (store_bind_text(s, 4, a->kind, sizeof a->kind) != SQLITE_OK ||
	    store_bind_text(s, 5, a->text, sizeof a->text) != SQLITE_OK) {
		rc = store_fail(st, "game action: kind or text not terminated");
		goto out;
	}
	sqlite3_bind_int64(s, 6, a->at_ms);
	sqlite3_bind_int64(s, 7, a->clock_white_ms);
	sqlite3_bind_int64(s, 8, a->clock_black_ms);
	sqlite3_bind_int(s, 9, a->ok ? 1 : 0);
	rc = store_run(st, s, "game action");
out:
	store_stmt_done(s, temp);
	return rc;
}

int store_game_events(struct store *st, int64_t game, int seq, const struct event *ev, size_t n)
{
	int temp, rc = STORE_OK;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if (n == 0)
		return STORE_OK;
	/* Several rows: all or none. */
	if (store_begin(st) != STORE_OK)
		return STORE_ERROR;
	if ((s = store_stmt(st, S_EVENT_INSERT, &temp)) == NULL) {
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
		/* rand's pawn_squares holds no move: its squares (a bitboard of
		 * pawns, ranks 2-7 only) ride in the 64-bit move column, so the
		 * event needs no schema change (event_row reads them back). */
		if (e->type == EV_PAWN_SQUARES)
			sqlite3_bind_int64(s, 7, (sqlite3_int64)e->squares);
		else
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
		rc = store_run(st, s, "game events");
		sqlite3_reset(s);
	}
	store_stmt_done(s, temp);
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

/* One row of seq, EVENT_COLS (store.c). */
static int event_row(struct store *st, sqlite3_stmt *s, int *seq, struct event *e)
{
	int ok = 1;

	memset(e, 0, sizeof *e);
	*seq = col_range(s, 0, 0, INT32_MAX, &ok);
	e->type = (uint8_t)col_range(s, 1, 0, UINT8_MAX, &ok);
	e->audience = (uint8_t)col_range(s, 2, 0, UINT8_MAX, &ok);
	e->by = (int8_t)col_range(s, 3, INT8_MIN, INT8_MAX, &ok);
	e->square = (int8_t)col_range(s, 4, INT8_MIN, INT8_MAX, &ok);
	if (e->type == EV_PAWN_SQUARES) {
		int64_t sq = sqlite3_column_int64(s, 5);
		if (sq < 0 || ((uint64_t)sq & 0xff000000000000ffULL) != 0)
			ok = 0; /* a pawn on the first or last rank: corrupt */
		else
			e->squares = (uint64_t)sq;
	} else {
		e->move = (move_t)col_range(s, 5, 0, UINT16_MAX, &ok);
	}
	e->what = (uint8_t)col_range(s, 6, 0, UINT8_MAX, &ok);
	e->en_passant = col_range(s, 7, 0, 1, &ok) != 0;
	e->checks[0] = (uint8_t)col_range(s, 8, 0, UINT8_MAX, &ok);
	e->checks[1] = (uint8_t)col_range(s, 9, 0, UINT8_MAX, &ok);
	e->count = (int16_t)col_range(s, 10, INT16_MIN, INT16_MAX, &ok);
	e->answer = (uint8_t)col_range(s, 11, 0, UINT8_MAX, &ok);
	e->result = (uint8_t)col_range(s, 12, 0, UINT8_MAX, &ok);
	e->reason = (uint8_t)col_range(s, 13, 0, UINT8_MAX, &ok);
	e->ply = (uint16_t)col_range(s, 14, 0, UINT16_MAX, &ok);
	return ok ? STORE_OK : store_fail(st, "game events: stored value out of range (corrupt row)");
}

static int action_row(struct store *st, sqlite3_stmt *s, struct store_action *a)
{
	memset(a, 0, sizeof *a);
	a->game = sqlite3_column_int64(s, 0);
	a->seq = sqlite3_column_int(s, 1);
	a->color = sqlite3_column_int(s, 2);
	if (store_col_text(st, s, 3, a->kind, sizeof a->kind, "game actions") != STORE_OK ||
	    store_col_text(st, s, 4, a->text, sizeof a->text, "game actions") != STORE_OK)
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
	if (store_col_text(st, s, 3, u->kind, sizeof u->kind, "umpire actions") != STORE_OK ||
	    store_col_text(st, s, 4, u->text, sizeof u->text, "umpire actions") != STORE_OK)
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
		rc = store_fail_db(st, what);
	store_stmt_done(s, temp);
	return rc;
}

static int list_by_id(struct store *st, enum stmt_id id, int64_t key, enum row_kind kind,
                      void *fn, void *arg, const char *what)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, id, &temp)) == NULL)
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

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_GAMES_UNFINISHED, &temp)) == NULL)
		return STORE_ERROR;
	return list(st, s, temp, ROW_GAME, (void *)fn, arg, "unfinished games");
}

int store_games_of_user(struct store *st, int64_t user, int limit,
                        int (*fn)(const struct store_game *g, void *arg), void *arg)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_GAMES_OF_USER, &temp)) == NULL)
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

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_UMPIRE_INSERT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, u->game);
	if (u->umpire > 0)
		sqlite3_bind_int64(s, 2, u->umpire);
	else
		sqlite3_bind_null(s, 2);
	sqlite3_bind_int(s, 3, u->seq);
	if (store_bind_text(s, 4, u->kind, sizeof u->kind) != SQLITE_OK ||
	    store_bind_text(s, 5, u->text, sizeof u->text) != SQLITE_OK) {
		rc = store_fail(st, "umpire action: kind or text not terminated");
		goto out;
	}
	sqlite3_bind_int64(s, 6, u->at_ms);
	rc = store_run(st, s, "umpire action");
out:
	store_stmt_done(s, temp);
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

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_FLAG_INSERT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	sqlite3_bind_int64(s, 2, (int64_t)time(NULL));
	sqlite3_bind_text(s, 3, reason != NULL ? reason : "", -1, SQLITE_TRANSIENT);
	rc = store_run(st, s, "game flag");
	store_stmt_done(s, temp);
	return rc;
}

int store_game_flagged(struct store *st, int64_t game, char *reason, size_t len)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_FLAG_GET, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		rc = STORE_NOT_FOUND;
	} else if (step != SQLITE_ROW) {
		rc = store_fail_db(st, "game flagged");
	} else if (reason != NULL && len > 0) {
		/* The reason is ours, but cut rather than fail on a long one. */
		const unsigned char *t = sqlite3_column_text(s, 0);
		snprintf(reason, len, "%s", t != NULL ? (const char *)t : "");
		rc = STORE_OK;
	} else {
		rc = STORE_OK;
	}
	store_stmt_done(s, temp);
	return rc;
}

int store_games_finished_of_user(struct store *st, int64_t user, int limit,
                                 int (*fn)(const struct store_game *g, void *arg), void *arg)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_GAMES_FINISHED_OF_USER, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	sqlite3_bind_int(s, 2, limit > 0 ? limit : -1);
	return list(st, s, temp, ROW_GAME, (void *)fn, arg, "finished games of user");
}
