/*
 * game_presence.c — who is at the board: the abandonment policy, the
 * away/back notices, and what a player is told when they log in
 * (PROTOCOL.md, "Presence").  Part of the game module (game_priv.h).
 *
 * The policy (presence_grace): leaving is normal for a game that waits.
 *   correspondence ({"days": N})  never abandoned: the per-move deadline
 *                                 (the clock) is the only limit;
 *   untimed                       abandoned only after untimed_abandon_grace
 *                                 (0, the default: never); but a guest
 *                                 after abandon_grace at most: a guest comes
 *                                 back only with its session's token, which
 *                                 clients keep no longer than they run (krieg)
 *                                 or a browser tab lives, so a game waiting
 *                                 for a guest who quit would wait for nobody
 *                                 and its opponent could leave it only by
 *                                 resigning;
 *   timed (base + increment)      abandon_grace (60 s by default); the clock
 *                                 keeps running meanwhile, as ever.
 * When a player's last connection drops, the opponent and the spectators
 * hear opponent_away (with the grace deadline when there is one); when the
 * player is back, opponent_back.  Both away, the side to move forfeits at
 * its own deadline (abandon_fire; the other's, if it passes first, counts
 * only should the side to move come back in time).  Presence is public: every watcher of a
 * game sees the players come and go on the lobby anyway.
 *
 * At login, after the game states, one `welcome` event lists the games
 * that wait for the player's move (with the time left), the standing draw
 * offers of their games, and the games that ended while they were away
 * (kept in the store from the end until their next login, a player's
 * newest PRESENCE_MISSED_KEEP: a restart forgot them when they were kept
 * in memory, and a correspondence player away for days missed the end of
 * a game: friends probe).
 */
#include <event2/event.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "clock.h"
#include "conn.h"
#include "game.h"
#include "game_priv.h"
#include "log.h"
#include "store.h"
#include "mstime.h"
#include "referee.h"
#include "server.h"
#include "xmalloc.h"

#define PRESENCE_MISSED_KEEP 64   /* a player's games ended while away, kept for the login */

int64_t presence_grace(const struct game *g, int col)
{
	/* An umpire's pause holds it: no time is charged, so none runs out
	 * (the whole grace again at the unpause); the umpire can end it. */
	if (g->paused)
		return 0;
	/* An adjourned game waits for a guest abandon_grace at most (below:
	 * it comes back only with a token its client forgets): one whose guest
	 * quit could be ended by nobody but an umpire, and came back at every
	 * restart (probe).  (By correspondence, the move's deadline ends it.) */
	if (g->adjourned && auth_is_guest_name(g->name[col]))
		return g->gs->grace_ms;
	if (g->adjourned || g->info.days > 0)
		return 0;
	if (g->info.base_ms > 0)
		return g->gs->grace_ms;
	/* Untimed: a guest, and a player whose opponent is a bot account,
	 * are waited for abandon_grace at most.  A bot waits for nobody for
	 * ever: it plays few games at once, and registered players who left
	 * such games filled them for good (bot probe). */
	int64_t u = g->gs->untimed_grace_ms;
	if ((auth_is_guest_name(g->name[col]) || auth_user_is_bot(g->gs->srv, g->user[!col])) &&
	    (u <= 0 || u > g->gs->grace_ms))
		return g->gs->grace_ms;
	return u;
}

/* To the other player's connections (not one waiting for its login's
 * states: those carry the state) and to the spectators. */
static void presence_send(struct game *g, int col, bool away, json_t *msg)
{
	struct games *gs = g->gs;
	for (struct conn *c = NULL; (c = conn_of_user(gs->srv, g->user[!col], c)) != NULL;)
		if (!game_conn_awaiting(c))
			conn_send(c, json_incref(msg));
	watch_route_presence(g, col, away, msg);
	json_decref(msg);
}

/* The abandonment timer of col, due at away_due. */
static void abandon_arm(struct game *g, int col, int64_t now)
{
	int64_t left = g->away_due[col] - now;
	struct timeval tv = mstime_timeval(left > 0 ? left : 0);
	evtimer_add(g->abandon_timer[col], &tv);
}

static void presence_arm(struct game *g, int col)
{
	int64_t grace = presence_grace(g, col);
	g->away_until[col] = 0;
	g->abandon_due[col] = false;
	if (grace <= 0)
		return;
	/* The deadline as shown to people (the wall clock); what enforces it
	 * is the timer, on libevent's monotonic clock, so a wall-clock step
	 * moves only the time shown, never when the game is abandoned. */
	g->away_until[col] = mstime_wall() + grace;
	g->away_since[col] = mstime_mono();
	g->away_due[col] = g->away_since[col] + grace;
	abandon_arm(g, col, g->away_since[col]);
}

/* col's deadline into j, when there is one: `until` (the wall clock's,
 * for a time of day) and `left` (ms from now, on the monotonic clock): a
 * client counts down from `left`, not from its own wall clock, which may be
 * minutes off the server's (probe: 2 minutes fast, it said "back within
 * 0:00" of a 60 s grace). */
static void deadline_set(const struct game *g, int col, json_t *j)
{
	if (g->away_until[col] <= 0)
		return;
	int64_t left = g->away_due[col] - mstime_mono();
	json_object_set_new(j, "until", json_integer(g->away_until[col]));
	json_object_set_new(j, "left", json_integer(left > 0 ? left : 0));
}

json_t *presence_away_event(const struct game *g, int col)
{
	if (!g->away[col])
		return NULL;
	json_t *j = json_pack("{s:s, s:I, s:s}", "event", "opponent_away", "game", (json_int_t)g->id,
	                      "color", game_color_name(col));
	deadline_set(g, col, j);
	return j;
}

/* col's player is away: said with the deadline it has now (none: no `until`). */
static void away_send(struct game *g, int col)
{
	g->told_until[col] = g->away_until[col];
	presence_send(g, col, true, presence_away_event(g, col));
}

json_t *presence_json(const struct game *g, int col)
{
	if (!g->away[col])
		return NULL;
	json_t *aw = json_object();
	deadline_set(g, col, aw);
	return aw;
}

void presence_away(struct game *g, int col)
{
	if (g->away[col])
		return;
	g->away[col] = true;
	presence_arm(g, col);
	away_send(g, col);
}

void presence_back(struct game *g, int col)
{
	evtimer_del(g->abandon_timer[col]);
	if (!g->away[col])
		return;
	g->away[col] = false;
	g->away_until[col] = 0;
	g->abandon_due[col] = false;
	presence_send(g, col, false, json_pack("{s:s, s:I, s:s}", "event", "opponent_back", "game",
	                                (json_int_t)g->id, "color", game_color_name(col)));
	/* Back before its own deadline to a game the other left past theirs
	 * (abandon_fire): the other has abandoned it, ended from the loop
	 * (the other's timer, now) once this login has sent its states. */
	if (g->away[!col] && g->abandon_due[!col]) {
		struct timeval now = { 0, 0 };
		evtimer_add(g->abandon_timer[!col], &now);
	}
}

void games_stalled(struct games *gs, int64_t ms)
{
	if (gs == NULL || gs->stopped)
		return;
	/* The loop stood (stall.h): nobody could come back meanwhile (a
	 * return waited unread in the listen queue), so a grace running then
	 * runs that much longer, said to those who were told the deadline;
	 * one begun since (the stop's first pass closed a connection before
	 * the loop noticed it) by what of it passed.  Not one already past
	 * (abandon_due: decided at the other's return), nor a game already
	 * over, its end not yet committed (a review). */
	int64_t now = mstime_mono();
	for (struct game *g = gs->live; g != NULL; g = g->next)
		for (int col = WHITE; col <= BLACK; col++) {
			if (!g->away[col] || g->away_until[col] <= 0 || g->abandon_due[col] ||
			    referee_over(g->ref))
				continue;
			int64_t by = now - g->away_since[col] < ms ? now - g->away_since[col] : ms;
			if (by <= 0)
				continue;
			g->away_until[col] += by;
			g->away_due[col] += by;
			abandon_arm(g, col, now);
			away_send(g, col);
		}
}

void presence_recovered(struct game *g)
{
	/* Nobody is connected yet: each player has the game's grace to come back.
	 * The deadline is told by the game states of the logins (their
	 * opponent_away): a later change is told against it (probe: a pause
	 * after a restart took the deadline away and said nothing). */
	for (int col = WHITE; col <= BLACK; col++) {
		g->away[col] = true;
		presence_arm(g, col);
		g->told_until[col] = g->away_until[col];
	}
}

void presence_rearm(struct game *g, bool tell)
{
	for (int col = WHITE; col <= BLACK; col++) {
		evtimer_del(g->abandon_timer[col]);
		if (g->away[col])
			presence_arm(g, col);
	}
	if (tell)
		presence_tell(g);
}

void presence_tell(struct game *g)
{
	/* A new deadline (a whole grace again after an unpause, or none while
	 * paused or adjourned) is told as the first one was: the `until`
	 * people hold must not be one that no longer counts. */
	for (int col = WHITE; col <= BLACK; col++)
		if (g->away[col] && g->away_until[col] != g->told_until[col])
			away_send(g, col);
}

void presence_game_over(struct game *g)
{
	struct games *gs = g->gs;
	for (int col = WHITE; col <= BLACK; col++)
		if (conn_of_user(gs->srv, g->user[col], NULL) == NULL &&
		    store_missed_add(gs->srv->store, g->user[col], g->id, PRESENCE_MISSED_KEEP) != STORE_OK)
			log_warnx("game=%" PRId64 " user=%" PRId64 " ended while away, not kept for the login: %s",
			          g->id, g->user[col], store_error(gs->srv->store));
}

static void ended_json(const struct store_missed *m, void *arg)
{
	json_t *j = json_pack("{s:I, s:s, s:s, s:s}", "game", (json_int_t)m->game, "color",
	                      game_color_name(m->color), "opponent", m->opponent, "result",
	                      game_result_name(m->result));
	if (game_reason_name(m->reason))
		json_object_set_new(j, "reason", json_string(game_reason_name(m->reason)));
	json_array_append_new(arg, j);
}

void presence_login(struct games *gs, struct conn *c)
{
	int64_t uid = conn_user(c);
	int64_t now = mstime_mono();
	json_t *turn = json_array(), *offers = json_array(), *ended = json_array();
	for (struct game *g = gs->live; g; g = g->next)
		for (int col = WHITE; col <= BLACK; col++) {
			if (g->user[col] != uid || referee_over(g->ref))
				continue;
			if (referee_side_to_move(g->ref) == col) {
				json_t *j = json_pack("{s:I, s:s, s:s}", "game", (json_int_t)g->id, "color",
				                      game_color_name(col), "opponent", g->name[!col]);
				if (clock_timed(&g->clock))
					json_object_set_new(j, "left", json_integer(clock_remaining(&g->clock, col, game_clock_now(g, now))));
				if (g->adjourned)   /* the move waits for an unadjourn */
					json_object_set_new(j, "adjourned", json_true());
				if (g->paused)      /* and for the umpire's unpause */
					json_object_set_new(j, "paused", json_true());
				json_array_append_new(turn, j);
			}
			if (g->draw_offer >= 0)
				json_array_append_new(offers, json_pack("{s:I, s:s}", "game", (json_int_t)g->id,
				                                        "by", game_color_name(g->draw_offer)));
		}
	if (store_missed_take(gs->srv->store, uid, ended_json, ended) != STORE_OK)
		log_warnx("user=%" PRId64 " games ended while away not read: %s", uid, store_error(gs->srv->store));
	if (json_array_size(turn) + json_array_size(offers) + json_array_size(ended) == 0) {
		json_decref(turn);
		json_decref(offers);
		json_decref(ended);
		return;
	}
	conn_send_paced(c, json_pack("{s:s, s:o, s:o, s:o}", "event", "welcome", "your_move", turn,
	                             "draw_offers", offers, "ended", ended));
}
