/*
 * game_restart.c — what lets a restart resume the live games (part of the
 * game module, game_priv.h): the heartbeat that records the daemon was
 * alive (a lease: recover.h), and installing the games recover.c verified
 * at start-up, each player given the grace period to come back.
 */
#include <event2/event.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "action.h"
#include "batch.h"
#include "clock.h"
#include "club.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "event_json.h"
#include "fen.h"
#include "game.h"
#include "game_priv.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "rating.h"
#include "recover.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"
#include "announce.h"
#include "auth.h"
#include "xmalloc.h"

/* ---- heartbeat ------------------------------------------------------------ */

/* One "alive at" row through the batch, so it takes the path (and the
 * thread) of every other write. */
static int alive_write(void *arg, struct store *st)
{
	return store_state_set(st, RECOVER_ALIVE_KEY, *(int64_t *)arg);
}
static void alive_nop(void *arg) { (void)arg; }

static const struct batch_ops alive_ops = {
	.write = alive_write, .committed = alive_nop, .failed = alive_nop, .free = free,
};

/* "Alive until" now + lease_ms (recover.h; 0: a clean stop's exact time),
 * on the clock the actions' at_ms are read from (recover_clock_ms). */
void game_alive_record(struct games *gs, int64_t lease_ms)
{
	int64_t *t = xmalloc(sizeof *t);
	*t = recover_clock_ms() + lease_ms;
	/* Its own group: no game's actions depend on it. */
	batch_begin_action(gs->batch, &alive_ops, t, gs);
}

void game_heartbeat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct games *gs = arg;
	/* Only games with a clock need it; an idle daemon leaves the disk alone. */
	for (struct game *g = gs->live; g; g = g->next)
		if (clock_timed(&g->clock)) {
			game_alive_record(gs, RECOVER_ALIVE_LEASE_MS);
			break;
		}
}

/* ---- recovery (recover.c decides; this installs) ------------------------- */

static void recovered_flagged(void *arg, const struct store_game *info, const char *reason)
{
	struct games *gs = arg;
	gs->flagged = xreallocarray(gs->flagged, gs->nflagged + 1, sizeof *gs->flagged);
	struct flagged_game *fl = &gs->flagged[gs->nflagged++];
	fl->id = info->id;
	fl->user[WHITE] = info->white;
	fl->user[BLACK] = info->black;
	snprintf(fl->reason, sizeof fl->reason, "%s", reason);
}

static void recovered_resume(void *arg, const struct store_game *info, struct recover_result *rr)
{
	struct games *gs = arg;
	struct game *g = game_alloc(gs, info);
	if (!g) {
		log_warnx("game=%" PRId64 " cannot be recovered (rules %s)", info->id, info->rules);
		return;
	}
	referee_free(g->ref);
	g->ref = rr->ref;
	rr->ref = NULL;
	for (size_t i = 0; i < rr->nacts; i++)
		game_record_push(g, &rr->acts[i]);
	g->seq = rr->last_seq;
	g->draw_offer = rr->draw_offer;
	g->paused = rr->paused;
	g->adjourned = rr->adjourned;
	g->adjourn_offer = rr->adjourn_offer;
	if (rr->clock_ms[WHITE] >= 0)
		clock_set(&g->clock, rr->clock_ms[WHITE], rr->clock_ms[BLACK]);
	/* Paused by an umpire, or adjourned: it stays so, and nobody's clock runs. */
	if (g->paused || g->adjourned)
		clock_pause(&g->clock, mstime_mono());
	else
		clock_start(&g->clock, referee_side_to_move(g->ref), mstime_mono());
	games_link(gs, g);
	game_flag_arm(g);
	/* Nobody is connected yet: each player has the game's grace to come
	 * back (games_conn_login cancels it), as after a dropped connection. */
	presence_recovered(g);
	log_info("game=%" PRId64 " resumed actions=%zu", g->id, g->nacts);
}

static const struct recover_ops recovered_ops = { recovered_resume, recovered_flagged };

int games_recover(struct games *gs)
{
	if (chat_load(gs) != 0)
		return -1;
	return recover_games(gs->srv->store, &recovered_ops, gs);
}

void games_conn_closed(struct server *srv, struct conn *c)
{
	struct games *gs = srv->games;
	int64_t uid = conn_user(c);
	if (!gs || uid <= 0)
		return;
	watch_conn_closed(gs, conn_id(c));
	follow_conn_closed(gs, conn_id(c));
	for (struct conn *o = NULL; (o = conn_of_user(srv, uid, o)) != NULL;)
		if (o != c)
			return;   /* not the user's last connection */
	watch_connection(gs, uid, false);
	follow_presence(gs, uid, false);
	/* The game's grace (none for one that waits) and the opponent told. */
	for (struct game *g = gs->live; g; g = g->next)
		for (int col = WHITE; col <= BLACK; col++)
			if (g->user[col] == uid)
				presence_away(g, col);
}

void games_users_changed(struct server *srv)
{
	watch_users_changed(srv->games);
}
