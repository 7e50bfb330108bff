/*
 * game_view.c — a player's view of a game (the `game` request, the
 * game_state sent at login) and its paging.
 *
 * A player's view (game_state on login, the `game` request) is the
 * record replayed for that player's audience (announce_replay, announce.h): the
 * same events, SAN included, that were sent live.  It is paged
 * (dispatch_page) to stay under one line.
 */
#include <event2/event.h>
#include <inttypes.h>
#include <stdbool.h>

#include "conn.h"
#include "dispatch.h"
#include "game.h"
#include "game_priv.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"
#include "announce.h"

/* ---- views ---------------------------------------------------------------- */

/*
 * A view can outgrow one protocol line (PROTO_LINE_MAX), so its events go
 * in pages (dispatch_page): "events" holds the page, "total" the count, and
 * "next" (present while more remain) the index to continue at.
 */
static size_t events_page(json_t *j, json_t *events, size_t from)
{
	return dispatch_page(j, "events", events, from);
}

/* A player's own view of a game: start info plus every event addressed to
 * them, replayed from the stored record.  NULL if the store fails. */
json_t *game_view_json(struct games *gs, const struct store_game *info,
                       const char names[2][PROTO_NAME_MAX + 1], int color,
                       const struct game *live, size_t from, json_t **all)
{
	const struct ruleset *rs = ruleset_find(info->rules);
	if (!rs)
		return NULL;
	const struct flagged_game *fl = live ? NULL : game_flagged_find(gs, info->id);
	struct store *st = gs->srv->store;
	/* One page asked for (the `game` request; a client reads them all):
	 * only its events are built.  The whole list (all) for the login's
	 * game_state, which sends every page of one replay. */
	struct pager pg;
	json_t *events = NULL;
	bool paged = all == NULL && !fl;
	if (paged) {
		pager_init(&pg, from);
		if (announce_replay_page(st, gs->srv->replays, info, aud_of(color), 0, &pg) != 0) {
			pager_free(&pg);
			return NULL;
		}
	} else {
		events = fl ? announce_stored(st, info, aud_of(color))
		            : announce_replay(st, info, aud_of(color), 0);
		if (!events)
			return NULL;
	}
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:s, s:b}",
	                      "game", (json_int_t)info->id, "rules", rs->name,
	                      "white", names[WHITE], "black", names[BLACK],
	                      "color", game_color_name(color), "rated", info->rated != 0);
	if (paged)
		pager_finish(&pg, j, "events");
	else
		events_page(j, events, from);
	if (all)
		*all = events;
	else
		json_decref(events);
	if (info->fen[0])
		json_object_set_new(j, "fen", json_string(info->fen));
	json_t *t = game_time_json(info);
	if (t)
		json_object_set_new(j, "time", t);
	if (live) {
		json_object_set_new(j, "live", json_true());
		json_object_set_new(j, "to_move", json_string(game_color_name(referee_side_to_move(live->ref))));
		json_object_set_new(j, "spectators", json_integer(watch_spectators(live)));
		json_t *clk = game_clock_json(live, mstime_mono());
		if (clk)
			json_object_set_new(j, "clock", clk);
		if (live->draw_offer >= 0)
			json_object_set_new(j, "draw_offer", json_string(game_color_name(live->draw_offer)));
		if (live->paused)   /* an umpire's pause stands (clock_pause) */
			json_object_set_new(j, "paused", json_true());
		if (live->adjourned)   /* the players adjourned it (PROTOCOL.md "Adjournment") */
			json_object_set_new(j, "adjourned", json_true());
		if (live->adjourn_offer >= 0)
			json_object_set_new(j, "adjourn_offer",
			                    json_string(game_color_name(live->adjourn_offer)));
		if (live->away[!color]) {   /* the opponent is away (game_presence.c) */
			json_t *aw = json_object();
			if (live->away_until[!color] > 0)
				json_object_set_new(aw, "until", json_integer(live->away_until[!color]));
			json_object_set_new(j, "opponent_away", aw);
		}
	} else {
		json_object_set_new(j, "live", json_false());
		if (fl) {
			/* Never finished, never played on: no result (PROTOCOL.md, History). */
			json_object_set_new(j, "flagged", json_true());
			json_object_set_new(j, "flag_reason", json_string(fl->reason));
			return j;
		}
		json_object_set_new(j, "result", json_string(game_result_name(info->result)));
		const char *rn = game_reason_name(info->reason);
		if (rn)
			json_object_set_new(j, "reason", json_string(rn));
	}
	return j;
}

json_t *game_live_view(struct game *g, int color, size_t from, json_t **all)
{
	return game_view_json(g->gs, &g->info, (const char (*)[PROTO_NAME_MAX + 1])g->name, color, g,
	                      from, all);
}

static void login_again(struct conn *c, json_t *id, json_t *req)
{
	games_conn_login(conn_server(c), c);
}

void games_conn_login(struct server *srv, struct conn *c)
{
	struct games *gs = srv->games;
	int64_t uid = conn_user(c);
	if (!gs || uid <= 0)
		return;
	/* A game_state must neither miss nor overtake an action awaiting the commit. */
	if (game_user_busy(gs, NULL, uid)) {
		game_wait_for_commit(c, NULL, NULL, NULL, login_again);
		return;
	}
	/* The umpires of its games see the player back (first connection only). */
	follow_login(gs, c);
	if (conn_of_user(srv, uid, NULL) == c) {
		watch_connection(gs, uid, true);
		follow_presence(gs, uid, true);
	}
	/* From here its games' announcements reach it live (game_conn_awaiting). */
	for (struct game *g = gs->live; g; g = g->next) {
		for (int col = WHITE; col <= BLACK; col++) {
			if (g->user[col] != uid)
				continue;
			presence_back(g, col);
			json_t *all = NULL;
			json_t *v = game_live_view(g, col, 0, &all);
			if (!v) {
				log_warnx("game=%" PRId64 " state for a login could not be read", g->id);
				continue;
			}
			json_object_set_new(v, "event", json_string("game_state"));
			json_t *next = json_object_get(v, "next");
			size_t from = next ? (size_t)json_integer_value(next) : json_array_size(all);
			/* Paced: the states of all a player's games may be far more
			 * than the output cap; they go out as the client reads. */
			conn_send_paced(c, v);
			/* The rest of a long record follows in game_events pages. */
			while (from < json_array_size(all)) {
				json_t *p = json_pack("{s:s, s:I, s:I}", "event", "game_events",
				                      "game", (json_int_t)g->id, "from", (json_int_t)from);
				from = events_page(p, all, from);
				conn_send_paced(c, p);
			}
			json_decref(all);
		}
	}
	/* A game of theirs that was not resumed is not silently missing. */
	for (size_t i = 0; i < gs->nflagged; i++) {
		const struct flagged_game *fl = &gs->flagged[i];
		if (fl->user[WHITE] == uid || fl->user[BLACK] == uid)
			conn_send_paced(c, json_pack("{s:s, s:I, s:s}", "event", "game_flagged", "game",
			                             (json_int_t)fl->id, "reason", fl->reason));
	}
	/* What waits for them, what is offered, what ended while they were away. */
	presence_login(gs, c);
}
