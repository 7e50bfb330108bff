/*
 * game_cmd.c — the game requests (move, quiet, any, resign, draw, abort,
 * games, game, possible), their field specs, and the deferral rule
 * (batch.h) that holds a request, or a login's game states, until the
 * turn's commit.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "batch.h"
#include "conn.h"
#include "dispatch.h"
#include "game.h"
#include "game_priv.h"
#include "log.h"
#include "mstime.h"
#include "notation.h"
#include "proto.h"
#include "referee.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

#define GAME_ID_MAX (1LL << 53)       /* JSON-safe integers */
#define GAME_EVENTS_MAX (1LL << 30)   /* bound of a view's "from" */

/* ---- requests ------------------------------------------------------------- */

void game_wait_for_commit(struct conn *c, const struct game *g, json_t *id, json_t *req,
                          proceed_fn proceed)
{
	if (dispatch_wait_behind(c, id, req, proceed))
		return;
	struct games *gs = conn_server(c)->games;
	struct dispatch_later *l = dispatch_wait_first(c, id, req, proceed);
	if (l != NULL)
		batch_after_waiting(gs->batch, g, conn_user(c), dispatch_later_run, l);
}

/* srv->game_waits (server.h): before the handler of any request naming a
 * game.  Its order (dispatch.h), and the commit of an action that
 * addressed its user in that game, if it is live: never one they do not
 * hear (an opponent's private try). */
bool game_request_waits(struct conn *c, json_t *id, json_t *req, proceed_fn proceed)
{
	struct games *gs = conn_server(c)->games;
	const struct game *g =
	    gs != NULL ? game_find(gs, json_integer_value(json_object_get(req, "game"))) : NULL;
	if (g == NULL || g->dead)
		return dispatch_wait_behind(c, id, req, proceed);
	return game_must_wait(c, g, id, req, proceed);
}

bool game_must_wait(struct conn *c, const struct game *g, json_t *id, json_t *req,
                    proceed_fn proceed)
{
	/* Behind the connection's waiting request, whatever this one needs:
	 * its requests run in the order sent (dispatch.h). */
	if (dispatch_wait_behind(c, id, req, proceed))
		return true;
	if (!game_user_busy(conn_server(c)->games, g, conn_user(c)))
		return false;
	game_wait_for_commit(c, g, id, req, proceed);
	return true;
}

/* Must a request of user about game g (NULL: about all their games) wait
 * (batch.h)? */
bool game_user_busy(const struct games *gs, const struct game *g, int64_t uid)
{
	return batch_waiting(gs->batch, g, uid);
}

/* See game_priv.h. */
struct game *game_mine(struct conn *c, json_t *id, json_t *req, int *color, proceed_fn self)
{
	struct server *srv = conn_server(c);
	int64_t uid = conn_user(c);
	json_int_t gid = json_integer_value(json_object_get(req, "game"));
	struct game *g = game_find(srv->games, gid);
	if (g && (g->user[WHITE] == uid || g->user[BLACK] == uid)) {
		if (game_must_wait(c, g, id, req, self))
			return NULL;
		*color = g->user[WHITE] == uid ? WHITE : BLACK;
		return g;
	}
	struct store_game info;
	if (!g && store_game_get(srv->store, gid, &info) == STORE_OK &&
	    (info.white == uid || info.black == uid) &&
	    (info.result != RESULT_NONE || info.reason != REASON_NONE)) {
		dispatch_error(c, id, PE_GAME_OVER, "the game is over");
		return NULL;
	}
	const struct flagged_game *fl = g ? NULL : game_flagged_find(srv->games, gid);
	if (fl && (fl->user[WHITE] == uid || fl->user[BLACK] == uid)) {
		dispatch_error(c, id, PE_FLAGGED, GAME_FLAGGED_SAY);
		return NULL;
	}
	dispatch_error(c, id, PE_NO_SUCH_GAME, "no such game");
	return NULL;
}

/* A list or quiet request's items as the record's text (action_set_list,
 * the one rule: single words, an item "e.p." alone belongs to the one
 * before it, 1..REFEREE_LIST_MAX attempts).  Any failure is bad_request. */
#define LIST_ITEMS_MAX (2 * REFEREE_LIST_MAX)   /* attempts, each with its "e.p." */
static int list_text(json_t *arr, int kind, int color, char *buf, size_t len)
{
	size_t n = json_array_size(arr);
	const char *items[LIST_ITEMS_MAX];
	struct action a;
	if (n == 0 || n > LIST_ITEMS_MAX)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(arr, i));
		if (!s || strlen(s) > NOTATION_INPUT_MAX)
			return -1;
		for (const char *p = s; *p; p++)
			if (isspace((unsigned char)*p))
				return -1;
		items[i] = s;
	}
	if (action_set_list(&a, kind, color, items, n) != REF_OK)
		return -1;
	snprintf(buf, len, "%s", a.text);
	return 0;
}

static void cmd_move(struct conn *c, json_t *id, json_t *req)
{
	json_t *one = json_object_get(req, "move");
	json_t *many = json_object_get(req, "moves");
	if ((one != NULL) == (many != NULL)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "give exactly one of move or moves");
		return;
	}
	int color;
	struct game *g = game_mine(c, id, req, &color, cmd_move);
	if (!g)
		return;
	if (one) {
		game_act(g, ACTION_TRY, color, json_string_value(one), c, id, NULL);
		return;
	}
	char text[ACTION_TEXT_MAX];
	if (list_text(many, ACTION_LIST, color, text, sizeof text) != 0) {
		dispatch_error(c, id, PE_BAD_REQUEST, "moves: 1..%d items, each one word",
		               REFEREE_LIST_MAX);
		return;
	}
	game_act(g, ACTION_LIST, color, text, c, id, NULL);
}

static void cmd_quiet(struct conn *c, json_t *id, json_t *req)
{
	int color;
	struct game *g = game_mine(c, id, req, &color, cmd_quiet);
	if (!g)
		return;
	char text[ACTION_TEXT_MAX];
	if (list_text(json_object_get(req, "moves"), ACTION_QUIET, color, text, sizeof text) != 0) {
		dispatch_error(c, id, PE_BAD_REQUEST, "moves: 1..%d items, each one word",
		               REFEREE_LIST_MAX);
		return;
	}
	game_act(g, ACTION_QUIET, color, text, c, id, NULL);
}

static void cmd_any(struct conn *c, json_t *id, json_t *req)
{
	int color;
	struct game *g = game_mine(c, id, req, &color, cmd_any);
	if (g)
		game_act(g, ACTION_ANY, color, "", c, id, NULL);
}

static void cmd_resign(struct conn *c, json_t *id, json_t *req)
{
	int color;
	struct game *g = game_mine(c, id, req, &color, cmd_resign);
	if (g)
		game_act(g, ACTION_END, color, game_reason_name(game_forfeit_reason(g, REASON_RESIGNATION)), c,
		         id, NULL);
}

static void cmd_abort(struct conn *c, json_t *id, json_t *req)
{
	int color;
	struct game *g = game_mine(c, id, req, &color, cmd_abort);
	if (!g)
		return;
	/* A tournament's game is its director's to abort (umpire_abort): a
	 * player who did not want the pairing aborted it, the opponent's point
	 * lost (the tournament probe, a review). */
	if (g->info.tournament[0] != '\0') {
		dispatch_error(c, id, PE_ILLEGAL_ACTION,
		               "a tournament's game is not aborted by its players: ask its director");
		return;
	}
	/* Only before both sides moved: game_act refuses (action_record_refusal). */
	game_act(g, ACTION_END, color, game_reason_name(REASON_ABORTED), c, id, NULL);
}

/* An offer's "action" (absent: `dflt`), checked before the game is looked
 * up, so that a bad one is bad_request in every game, as every field's
 * shape is (the refusals probe: `draw` checked it only in one's own live
 * game); NULL once refused. */
static const char *offer_action(struct conn *c, json_t *id, json_t *req, const char *dflt)
{
	const char *action = json_string_value(json_object_get(req, "action"));
	if (action == NULL)
		action = dflt;
	if (action == NULL || (strcmp(action, "offer") != 0 && strcmp(action, "accept") != 0 &&
	                       strcmp(action, "decline") != 0)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "action must be offer, accept or decline");
		return NULL;
	}
	return action;
}

static void cmd_draw(struct conn *c, json_t *id, json_t *req)
{
	const char *action = offer_action(c, id, req, NULL);
	int color;
	if (action == NULL)
		return;
	struct game *g = game_mine(c, id, req, &color, cmd_draw);
	if (!g)
		return;
	/* One standing offer a side (another would only repeat the notice
	 * and fill the record), an answer only to the opponent's: game_act
	 * refuses by action_record_refusal.  Offering back is accepting.  An
	 * accepted offer in a rated game before both sides moved aborts it
	 * (game_forfeit_reason); an accept with no offer standing is still
	 * refused as one. */
	int agreed = g->draw_offer == !color ? game_forfeit_reason(g, REASON_AGREEMENT) : REASON_AGREEMENT;
	if (strcmp(action, "offer") == 0 && g->draw_offer == !color)
		game_act(g, ACTION_END, color, game_reason_name(agreed), c, id, NULL);
	else if (strcmp(action, "offer") == 0)
		game_act(g, ACTION_DRAW, color, "offer", c, id, NULL);
	else if (strcmp(action, "accept") == 0)
		game_act(g, ACTION_END, color, game_reason_name(agreed), c, id, NULL);
	else
		game_act(g, ACTION_DRAW, color, "decline", c, id, NULL);
}

/* Adjournment (PROTOCOL.md "Adjournment"): offered, accepted and
 * declined as a draw is; the clocks stop in game_act. */
static void cmd_adjourn(struct conn *c, json_t *id, json_t *req)
{
	const char *action = offer_action(c, id, req, "offer");
	int color;
	if (action == NULL)
		return;
	struct game *g = game_mine(c, id, req, &color, cmd_adjourn);
	if (!g)
		return;
	/* Offering back is accepting; the rest is game_act's to refuse
	 * (action_record_refusal: an offer standing, none to answer). */
	bool offered = g->adjourn_offer == !color;
	if (strcmp(action, "offer") == 0)
		game_act(g, ACTION_ADJOURN, color, offered ? "agree" : "offer", c, id, NULL);
	else
		game_act(g, ACTION_ADJOURN, color, strcmp(action, "accept") == 0 ? "agree" : "decline",
		         c, id, NULL);
}

static void cmd_unadjourn(struct conn *c, json_t *id, json_t *req)
{
	int color;
	struct game *g = game_mine(c, id, req, &color, cmd_unadjourn);
	if (!g)
		return;
	/* Both at the board, or the clock would run for an absent player. */
	if (g->adjourned && conn_of_user(conn_server(c), g->user[!color], NULL) == NULL) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "the opponent is not connected");
		return;
	}
	game_act(g, ACTION_UNADJ, color, "", c, id, NULL);
}

static void cmd_possible(struct conn *c, json_t *id, json_t *req)
{
	int color;
	struct game *g = game_mine(c, id, req, &color, cmd_possible);
	if (!g)
		return;
	struct movelist ml;
	struct board own;
	referee_possible(g->ref, color, &ml);
	/* SAN as written on one's own pieces alone (notation_san's own view:
	 * nothing of the opponent's in it), beside each: the page lists these
	 * (its newcomer probe: coordinates where the announcements write SAN) */
	board_own_view(referee_board(g->ref), color, &own);
	json_t *arr = json_array(), *san = json_array();
	for (int i = 0; i < ml.n; i++) {
		char buf[NOTATION_MAX];
		notation_uci(ml.m[i], buf);
		json_array_append_new(arr, json_string(buf));
		notation_san(&own, ml.m[i], true, buf);
		json_array_append_new(san, json_string(buf));
	}
	dispatch_ok(c, id, json_pack("{s:I, s:o, s:o}", "game", (json_int_t)g->id, "moves", arr, "san", san));
}

static void cmd_game(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	int64_t uid = conn_user(c);
	json_int_t gid = json_integer_value(json_object_get(req, "game"));
	size_t from = dispatch_from(req);
	struct game *g = game_find(srv->games, gid);
	json_t *v = NULL;
	if (g && (g->user[WHITE] == uid || g->user[BLACK] == uid)) {
		if (game_must_wait(c, g, id, req, cmd_game))
			return;
		/* Read from what the player was told (audlist.h): no replay, so
		 * nothing off the loop either. */
		int col = g->user[WHITE] == uid ? WHITE : BLACK;
		if (g->told[col] == NULL && announce_offload_marks(c, &g->info))
			return;   /* a long replay, made off the loop: it comes back */
		v = game_live_view(c, g, col, from);
	} else if (!g) {
		struct store_game info;
		char names[2][PROTO_NAME_MAX + 1];
		int st = store_game_get(srv->store, gid, &info);
		if (st == STORE_OK && (info.white == uid || info.black == uid)) {
			if (game_flagged_find(srv->games, gid) == NULL && announce_offload_marks(c, &info))
				return;
			for (int col = WHITE; col <= BLACK; col++)
				if (store_user_name(srv->store, col == WHITE ? info.white : info.black,
				                    names[col], sizeof names[col]) != STORE_OK)
					snprintf(names[col], sizeof names[col], "?");
			v = game_view_json(c, srv->games, &info, (const char (*)[PROTO_NAME_MAX + 1])names,
			                   info.white == uid ? WHITE : BLACK, NULL, from);
		} else if (st == STORE_ERROR) {
			dispatch_error(c, id, PE_STORAGE, "the game could not be read");
			return;
		} else {
			dispatch_error(c, id, PE_NO_SUCH_GAME, "no such game");
			return;
		}
	} else {
		dispatch_error(c, id, PE_NO_SUCH_GAME, "no such game");
		return;
	}
	if (!v) {
		dispatch_error(c, id, PE_STORAGE, "the game could not be read");
		return;
	}
	dispatch_ok(c, id, v);
}

struct listing {
	struct server *srv;
	int64_t uid;
	json_t *arr;
};

static json_t *summary_json(struct server *srv, const struct store_game *info, int64_t uid,
                            const struct game *live)
{
	char names[2][PROTO_NAME_MAX + 1];
	for (int col = WHITE; col <= BLACK; col++) {
		if (live)
			snprintf(names[col], sizeof names[col], "%s", live->name[col]);
		else if (store_user_name(srv->store, col == WHITE ? info->white : info->black,
		                         names[col], sizeof names[col]) != STORE_OK)
			snprintf(names[col], sizeof names[col], "?");
	}
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:s, s:b, s:b}", "game", (json_int_t)info->id,
	                      "rules", info->rules, "white", names[WHITE], "black", names[BLACK],
	                      "color", game_color_name(info->white == uid ? WHITE : BLACK),
	                      "rated", info->rated != 0, "live", live != NULL);
	json_t *t = game_time_json(info);
	if (t)
		json_object_set_new(j, "time", t);
	game_tags_json(info, j);
	if (live) {
		json_object_set_new(j, "to_move", json_string(game_color_name(referee_side_to_move(live->ref))));
		/* nobody moves until it resumes (a "your move" that refuses the move misleads) */
		game_stands_json(live, j);
		json_t *clk = game_clock_json(live, mstime_mono());
		if (clk)
			json_object_set_new(j, "clock", clk);
	} else {
		json_object_set_new(j, "result", json_string(game_result_name(info->result)));
		const char *rn = game_reason_name(info->reason);
		if (rn)
			json_object_set_new(j, "reason", json_string(rn));
	}
	return j;
}

static int listing_cb(const struct store_game *info, void *arg)
{
	struct listing *ls = arg;
	if (info->result == RESULT_NONE && info->reason == REASON_NONE)
		return 0;   /* live and flagged ones come from memory */
	json_array_append_new(ls->arr, summary_json(ls->srv, info, ls->uid, NULL));
	return 0;
}

static void cmd_games(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	int64_t uid = conn_user(c);
	if (game_must_wait(c, NULL, id, req, cmd_games))
		return;
	json_t *arr = json_array();
	for (struct game *g = srv->games->live; g; g = g->next)
		if (g->user[WHITE] == uid || g->user[BLACK] == uid)
			json_array_append_new(arr, summary_json(srv, &g->info, uid, g));
	struct listing ls = { srv, uid, arr };
	for (size_t i = 0; i < srv->games->nflagged; i++) {
		const struct flagged_game *fl = &srv->games->flagged[i];
		struct store_game info;
		if ((fl->user[WHITE] != uid && fl->user[BLACK] != uid) ||
		    store_game_get(srv->store, fl->id, &info) != STORE_OK)
			continue;
		json_t *j = summary_json(srv, &info, uid, NULL);
		json_object_del(j, "result");   /* flagged: no result, as in `game` and `history` */
		json_object_del(j, "reason");
		json_object_set_new(j, "flagged", json_true());
		json_object_set_new(j, "flag_reason", json_string(fl->reason));
		json_array_append_new(arr, j);
	}
	if (store_games_finished_of_user(srv->store, uid, GAME_LIST_FINISHED, 0, listing_cb, &ls) ==
	    STORE_ERROR) {
		json_decref(arr);
		dispatch_error(c, id, PE_STORAGE, "the games could not be read");
		return;
	}
	dispatch_ok_page(c, id, req, NULL, "games", arr);
}

static const struct field f_game[] = {
	{ "game", F_INT, 1, GAME_ID_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_view[] = {
	{ "game", F_INT, 1, GAME_ID_MAX },
	{ "from", F_INT, 0, GAME_EVENTS_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_move[] = {
	{ "game", F_INT, 1, GAME_ID_MAX },
	{ "move", F_STRING, 0, NOTATION_INPUT_MAX },
	{ "moves", F_STRINGS, 0, LIST_ITEMS_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_quiet[] = {
	{ "game", F_INT, 1, GAME_ID_MAX },
	{ "moves", F_STRINGS, 1, LIST_ITEMS_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_adjourn[] = {
	{ "game", F_INT, 1, GAME_ID_MAX },
	{ "action", F_STRING, 0, 8 },
	{ NULL, 0, 0, 0 },
};
static const struct field f_draw[] = {
	{ "game", F_INT, 1, GAME_ID_MAX },
	{ "action", F_STRING, 1, 8 },
	{ NULL, 0, 0, 0 },
};
static const struct field f_list[] = {
	{ "from", F_INT, 0, DISPATCH_FROM_MAX },
	{ NULL, 0, 0, 0 },
};

const struct cmd game_cmds[] = {
	{ "move", 0, f_move, cmd_move },
	{ "quiet", 0, f_quiet, cmd_quiet },
	{ "any", 0, f_game, cmd_any },
	{ "resign", 0, f_game, cmd_resign },
	{ "draw", 0, f_draw, cmd_draw },
	{ "abort", 0, f_game, cmd_abort },
	{ "adjourn", 0, f_adjourn, cmd_adjourn },
	{ "unadjourn", 0, f_game, cmd_unadjourn },
	{ "games", 0, f_list, cmd_games },
	{ "game", CMD_REPLAYS, f_view, cmd_game },
	{ "possible", 0, f_game, cmd_possible },
	{ NULL, 0, NULL, NULL },
};
