/*
 * store_game.c — game records (store.h): games, the actions and events of
 * each, the umpire's actions, flagged records, and the listings that read
 * them back; on the connection, statements and sticky error of store.c
 * (store_priv.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
	    store_bind_text(s, 4, g->fen, sizeof g->fen) != SQLITE_OK ||
	    store_bind_text(s, 10, g->tournament, sizeof g->tournament) != SQLITE_OK ||
	    store_bind_text(s, 11, g->round, sizeof g->round) != SQLITE_OK) {
		rc = store_fail(st, "game create: rules, fen, tournament or round not terminated");
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
	if (store_col_text(st, s, 12, g->tournament, sizeof g->tournament, "game") != STORE_OK ||
	    store_col_text(st, s, 13, g->round, sizeof g->round, "game") != STORE_OK)
		return STORE_ERROR;
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

/*
 * The events of an action, in the action's row (migration 10): a record
 * of EVENT_REC_BYTES per event, in the order the referee produced them.
 * A record holds the fields of EVENT_COLS (store.c) in that order,
 * little-endian, each as wide as struct event's own field, except the
 * move field: 8 bytes, since rand's pawn_squares holds no move and its
 * squares (a bitboard of pawns, ranks 2-7 only) ride there.  Reading back
 * applies the same ranges as a row of the old `events` table, so a record
 * is read alike from either place.
 */
enum {
	EF_TYPE, EF_AUDIENCE, EF_BY, EF_SQUARE, EF_MOVE, EF_WHAT, EF_EN_PASSANT, EF_CHECK1,
	EF_CHECK2, EF_COUNT, EF_ANSWER, EF_RESULT, EF_REASON, EF_PLY, EF__COUNT
};
static const struct {
	uint8_t width;
	bool is_signed;
} event_field[EF__COUNT] = {
	[EF_TYPE] = { 1, false },    [EF_AUDIENCE] = { 1, false }, [EF_BY] = { 1, true },
	[EF_SQUARE] = { 1, true },   [EF_MOVE] = { 8, false },     [EF_WHAT] = { 1, false },
	[EF_EN_PASSANT] = { 1, false }, [EF_CHECK1] = { 1, false }, [EF_CHECK2] = { 1, false },
	[EF_COUNT] = { 2, true },    [EF_ANSWER] = { 1, false },   [EF_RESULT] = { 1, false },
	[EF_REASON] = { 1, false },  [EF_PLY] = { 2, false },
};
#define EVENT_REC_BYTES 23   /* the sum of the widths above */
/* Records an action's events take on the stack; more (a long preference
 * list) are encoded on the heap. */
#define EVENT_REC_STACK 32

static void event_fields(const struct event *e, int64_t v[EF__COUNT])
{
	v[EF_TYPE] = e->type;
	v[EF_AUDIENCE] = e->audience;
	v[EF_BY] = e->by;
	v[EF_SQUARE] = e->square;
	v[EF_MOVE] = e->type == EV_PAWN_SQUARES ? (int64_t)e->squares : (int64_t)e->move;
	v[EF_WHAT] = e->what;
	v[EF_EN_PASSANT] = e->en_passant ? 1 : 0;
	v[EF_CHECK1] = e->checks[0];
	v[EF_CHECK2] = e->checks[1];
	v[EF_COUNT] = e->count;
	v[EF_ANSWER] = e->answer;
	v[EF_RESULT] = e->result;
	v[EF_REASON] = e->reason;
	v[EF_PLY] = e->ply;
}

/* v inside [lo, hi], else 0 with *ok cleared. */
static int in_range(int64_t v, int64_t lo, int64_t hi, int *ok)
{
	if (v < lo || v > hi) {
		*ok = 0;
		return 0;
	}
	return (int)v;
}

/* Fields as read from either place into an event; 0 if one is out of
 * its range (a corrupt record). */
static int fields_event(const int64_t v[EF__COUNT], struct event *e)
{
	int ok = 1;

	memset(e, 0, sizeof *e);
	e->type = (uint8_t)in_range(v[EF_TYPE], 0, UINT8_MAX, &ok);
	e->audience = (uint8_t)in_range(v[EF_AUDIENCE], 0, UINT8_MAX, &ok);
	e->by = (int8_t)in_range(v[EF_BY], INT8_MIN, INT8_MAX, &ok);
	e->square = (int8_t)in_range(v[EF_SQUARE], INT8_MIN, INT8_MAX, &ok);
	if (e->type == EV_PAWN_SQUARES) {
		if (v[EF_MOVE] < 0 || ((uint64_t)v[EF_MOVE] & 0xff000000000000ffULL) != 0)
			ok = 0; /* a pawn on the first or last rank */
		else
			e->squares = (uint64_t)v[EF_MOVE];
	} else {
		e->move = (move_t)in_range(v[EF_MOVE], 0, UINT16_MAX, &ok);
	}
	e->what = (uint8_t)in_range(v[EF_WHAT], 0, UINT8_MAX, &ok);
	e->en_passant = in_range(v[EF_EN_PASSANT], 0, 1, &ok) != 0;
	e->checks[0] = (uint8_t)in_range(v[EF_CHECK1], 0, UINT8_MAX, &ok);
	e->checks[1] = (uint8_t)in_range(v[EF_CHECK2], 0, UINT8_MAX, &ok);
	e->count = (int16_t)in_range(v[EF_COUNT], INT16_MIN, INT16_MAX, &ok);
	e->answer = (uint8_t)in_range(v[EF_ANSWER], 0, UINT8_MAX, &ok);
	e->result = (uint8_t)in_range(v[EF_RESULT], 0, UINT8_MAX, &ok);
	e->reason = (uint8_t)in_range(v[EF_REASON], 0, UINT8_MAX, &ok);
	e->ply = (uint16_t)in_range(v[EF_PLY], 0, UINT16_MAX, &ok);
	return ok;
}

static void event_pack(const struct event *e, uint8_t *rec)
{
	int64_t v[EF__COUNT];

	event_fields(e, v);
	for (int f = 0; f < EF__COUNT; f++) {
		uint64_t u = (uint64_t)v[f];
		for (int b = 0; b < event_field[f].width; b++)
			*rec++ = (uint8_t)(u >> (8 * b));
	}
}

static int event_unpack(const uint8_t *rec, struct event *e)
{
	int64_t v[EF__COUNT];

	for (int f = 0; f < EF__COUNT; f++) {
		int w = event_field[f].width;
		uint64_t u = 0;
		for (int b = 0; b < w; b++)
			u |= (uint64_t)*rec++ << (8 * b);
		if (event_field[f].is_signed && w < 8 && (u >> (8 * w - 1)) != 0)
			u |= ~0ULL << (8 * w);   /* sign-extend */
		v[f] = (int64_t)u;
	}
	return fields_event(v, e);
}

int store_game_action(struct store *st, const struct store_action *a, const struct event *ev,
                      size_t n)
{
	int temp, rc;
	sqlite3_stmt *s;
	uint8_t stack[EVENT_REC_STACK * EVENT_REC_BYTES], *recs = stack;

	if (!store_enter(st))
		return STORE_ERROR;
	if (n > EVENT_REC_STACK && (recs = malloc(n * EVENT_REC_BYTES)) == NULL)
		return store_fail(st, "game action: out of memory for its events");
	if ((s = store_stmt(st, S_ACTION_INSERT, &temp)) == NULL) {
		rc = STORE_ERROR;
		goto free;
	}
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
	for (size_t i = 0; i < n; i++)
		event_pack(&ev[i], recs + i * EVENT_REC_BYTES);
	if (n > 0)
		sqlite3_bind_blob(s, 10, recs, (int)(n * EVENT_REC_BYTES), SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 10);
	rc = store_run(st, s, "game action");
out:
	store_stmt_done(s, temp);
free:
	if (recs != stack)
		free(recs);
	return rc;
}

/* --- listings ------------------------------------------------------------- */

/* An integer column (its type read before its value, which may convert
 * it); another type clears *ok. */
static int64_t col_int(sqlite3_stmt *s, int col, int *ok)
{
	if (sqlite3_column_type(s, col) != SQLITE_INTEGER)
		*ok = 0;
	return sqlite3_column_int64(s, col);
}

/* An integer column that must fit [lo, hi], or the row is corrupt. */
static int col_range(sqlite3_stmt *s, int col, int64_t lo, int64_t hi, int *ok)
{
	return in_range(col_int(s, col, ok), lo, hi, ok);
}

/* One row of seq, EVENT_COLS (store.c): a record written before
 * migration 10. */
static int event_row(struct store *st, sqlite3_stmt *s, int *seq, struct event *e)
{
	int64_t v[EF__COUNT];
	int ok = 1;

	*seq = col_range(s, 0, 0, INT32_MAX, &ok);
	for (int f = 0; f < EF__COUNT; f++)
		v[f] = col_int(s, 1 + f, &ok);
	if (!fields_event(v, e))
		ok = 0;
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
		if (kind != ROW_GAME)
			st->record_rows++;
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
	return store_game_actions_after(st, game, 0, fn, arg);
}

int store_game_actions_after(struct store *st, int64_t game, int after,
                             int (*fn)(const struct store_action *a, void *arg), void *arg)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_ACTIONS_LIST, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	sqlite3_bind_int(s, 2, after);
	return list(st, s, temp, ROW_ACTION, (void *)fn, arg, "game actions");
}

int store_game_last_seq(struct store *st, int64_t game, int *seq)
{
	int temp, rc;
	sqlite3_stmt *s;

	*seq = 0;
	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_ACTION_LAST, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	rc = store_step_row(st, s, "game last action");
	if (rc == STORE_OK)
		*seq = sqlite3_column_int(s, 0);
	store_stmt_done(s, temp);
	return rc == STORE_NOT_FOUND ? STORE_OK : rc;
}

/* A listing's callback, and whether it asked to stop. */
struct ev_pass {
	int (*fn)(int seq, const struct event *e, void *arg);
	void *arg;
	bool stopped;
};

static int ev_pass_cb(int seq, const struct event *e, void *arg)
{
	struct ev_pass *p = arg;
	p->stopped = p->fn(seq, e, p->arg) != 0;
	return p->stopped;
}

/* The events kept in a game's action rows, in seq order. */
static int action_events(struct store *st, int64_t game, struct ev_pass *p)
{
	int temp, rc = STORE_OK, step = SQLITE_DONE;
	sqlite3_stmt *s;

	if ((s = store_stmt(st, S_ACTION_EVENTS_LIST, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, game);
	while (rc == STORE_OK && !p->stopped && (step = sqlite3_step(s)) == SQLITE_ROW) {
		int ok = 1;
		int seq = col_range(s, 0, 0, INT32_MAX, &ok);
		st->record_rows++;
		/* The type before reading the value (reading may convert it). */
		if (sqlite3_column_type(s, 1) != SQLITE_BLOB)
			ok = 0;
		const uint8_t *recs = sqlite3_column_blob(s, 1);
		size_t len = (size_t)sqlite3_column_bytes(s, 1);
		if (!ok || len == 0 || len % EVENT_REC_BYTES != 0) {
			rc = store_fail(st, "game events: the events of action %d are corrupt", seq);
			break;
		}
		for (size_t off = 0; off < len && !p->stopped; off += EVENT_REC_BYTES) {
			struct event e;
			if (!event_unpack(recs + off, &e)) {
				rc = store_fail(st, "game events: stored value out of range in action %d",
				                seq);
				break;
			}
			ev_pass_cb(seq, &e, p);
		}
	}
	if (rc == STORE_OK && !p->stopped && step != SQLITE_DONE)
		rc = store_fail_db(st, "game events");
	store_stmt_done(s, temp);
	return rc;
}

/* A game's events: first those in `events`, then those in its action rows.
 * Both in seq order, and together too: the daemon writes only the second
 * form from migration 10 on, so a game's rows in `events` (a game that was
 * in play across the upgrade) all come before its rows in `actions`. */
int store_game_event_list(struct store *st, int64_t game,
                          int (*fn)(int seq, const struct event *e, void *arg), void *arg)
{
	struct ev_pass p = { .fn = fn, .arg = arg, .stopped = false };
	int rc = list_by_id(st, S_EVENTS_LIST, game, ROW_EVENT, (void *)ev_pass_cb, &p,
	                    "game events");

	if (rc != STORE_OK || p.stopped)
		return rc;
	return action_events(st, game, &p);
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

/* A page of a user's games, newest first (S_GAMES_OF_USER or S_GAMES_FINISHED_OF_USER). */
static int games_page(struct store *st, enum stmt_id id, int64_t user, int limit, int64_t offset,
                      int (*fn)(const struct store_game *g, void *arg), void *arg,
                      const char *what)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, id, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	sqlite3_bind_int(s, 2, limit > 0 ? limit : -1);   /* LIMIT -1: no limit */
	sqlite3_bind_int64(s, 3, offset > 0 ? offset : 0);
	return list(st, s, temp, ROW_GAME, (void *)fn, arg, what);
}

int store_games_of_user(struct store *st, int64_t user, int limit, int64_t offset,
                        int (*fn)(const struct store_game *g, void *arg), void *arg)
{
	return games_page(st, S_GAMES_OF_USER, user, limit, offset, fn, arg, "games of user");
}

int store_games_count_of_user(struct store *st, int64_t user, bool finished, int64_t *n)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	s = store_stmt(st, finished ? S_GAMES_COUNT_FINISHED_OF_USER : S_GAMES_COUNT_OF_USER, &temp);
	if (s == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	if ((rc = store_step_row(st, s, "games count of user")) == STORE_OK)
		*n = sqlite3_column_int64(s, 0);
	store_stmt_done(s, temp);
	return rc;
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

int store_games_finished_of_user(struct store *st, int64_t user, int limit, int64_t offset,
                                 int (*fn)(const struct store_game *g, void *arg), void *arg)
{
	return games_page(st, S_GAMES_FINISHED_OF_USER, user, limit, offset, fn, arg,
	                  "finished games of user");
}

int store_games_tally(struct store *st, int64_t user, struct store_tally *out)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_GAMES_TALLY, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	memset(out, 0, sizeof *out);   /* no row: no game finished yet */
	int step = sqlite3_step(s);
	if (step == SQLITE_ROW) {
		out->won = sqlite3_column_int64(s, 0);
		out->lost = sqlite3_column_int64(s, 1);
		out->drawn = sqlite3_column_int64(s, 2);
		out->aborted = sqlite3_column_int64(s, 3);
	}
	rc = step == SQLITE_ROW || step == SQLITE_DONE ? STORE_OK : store_fail_db(st, "games tally");
	store_stmt_done(s, temp);
	return rc;
}

int store_tournament_spelling(struct store *st, const char *name, char *buf, size_t len)
{
	int temp, step, rc = STORE_OK;
	sqlite3_stmt *s;

	snprintf(buf, len, "%s", name);
	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_TOURNAMENT_SPELLING, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	if ((step = sqlite3_step(s)) == SQLITE_ROW)
		rc = store_col_text(st, s, 0, buf, len, "tournament spelling");
	else if (step != SQLITE_DONE)
		rc = store_fail_db(st, "tournament spelling");
	store_stmt_done(s, temp);
	return rc;
}

int store_tournament_count(struct store *st, const char *name, int64_t *n)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_TOURNAMENT_COUNT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	if ((rc = store_step_row(st, s, "tournament count")) == STORE_OK)
		*n = sqlite3_column_int64(s, 0);
	store_stmt_done(s, temp);
	return rc;
}

int store_tournament(struct store *st, const char *name, int64_t offset,
                     int (*fn)(const struct store_entrant *e, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_TOURNAMENT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, offset);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_entrant e;
		memset(&e, 0, sizeof e);
		e.user = sqlite3_column_int64(s, 0);
		if ((rc = store_col_text(st, s, 1, e.name, sizeof e.name, "tournament")) != STORE_OK)
			break;
		e.bot = sqlite3_column_int(s, 2) != 0;
		e.points2 = sqlite3_column_int(s, 3);
		e.won = sqlite3_column_int(s, 4);
		e.drawn = sqlite3_column_int(s, 5);
		e.lost = sqlite3_column_int(s, 6);
		e.playing = sqlite3_column_int(s, 7);
		e.aborted = sqlite3_column_int(s, 8);
		e.buchholz2 = sqlite3_column_int(s, 9);
		e.sb4 = sqlite3_column_int(s, 10);
		e.rank = sqlite3_column_int64(s, 11);
		if (fn(&e, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "tournament");
	store_stmt_done(s, temp);
	return rc;
}
