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
#include "audlist.h"
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

/* One "alive until" row through the batch, so it takes the path (and the
 * thread) of every other write; stored, its lease lets the clocks run to
 * its end (games_lease_extend). */
struct alive {
	struct games *gs;
	int lease;             /* RECOVER_LEASE_* */
	int64_t until_ms;      /* recover_clock_ms() */
	int64_t until_mono;    /* the same, on mstime_mono(); 0: a clean stop's */
	int64_t before_mono;   /* games_lease_restart's lease to give back if it fails; -1: none */
};

static int alive_write(void *arg, struct store *st)
{
	struct alive *al = arg;
	return store_state_set(st, recover_lease_key(al->lease), al->until_ms);
}

static void alive_committed(void *arg)
{
	struct alive *al = arg;
	if (al->until_mono > 0)
		games_lease_extend(al->gs, al->lease, al->until_mono);
}

static void alive_failed(void *arg)
{
	struct alive *al = arg;
	/* Taken ahead of the commit by games_lease_restart, never stored. */
	if (al->before_mono >= 0 && al->gs->lease_mono[al->lease] == al->until_mono)
		al->gs->lease_mono[al->lease] = al->before_mono;
}

static void alive_nop(void *arg) { (void)arg; }

static const struct batch_ops alive_ops = {
	.write = alive_write, .committed = alive_committed, .failed = alive_failed, .free = free,
};

/* "Alive until" now + lease_ms (recover.h; 0: a clean stop's exact time),
 * on the clock the actions' at_ms are read from (recover_clock_ms). */
struct alive *game_alive_record(struct games *gs, int lease, int64_t lease_ms)
{
	struct alive *al = xmalloc(sizeof *al);
	int64_t now = mstime_mono();
	al->gs = gs;
	al->lease = lease;
	al->until_ms = recover_clock_ms() + lease_ms;
	al->until_mono = lease_ms > 0 ? now + lease_ms : 0;
	al->before_mono = -1;
	/* A clean stop's time is where the clocks stand: not past the lease,
	 * or a restart would charge the stand. */
	if (lease_ms == 0)
		al->until_ms -= now - games_lease_now(gs, lease, now);
	/* Its own group: no game's actions depend on it. */
	batch_begin_action(gs->batch, &alive_ops, al, gs);
	return al;
}

void games_alive_stop(struct games *gs)
{
	for (int k = 0; k < RECOVER_LEASES; k++)
		game_alive_record(gs, k, 0);
}

/* Does a clock of that lease run (a timed game, not paused, not over)? */
static bool lease_used(const struct games *gs, int lease)
{
	for (const struct game *g = gs->live; g; g = g->next)
		if (clock_timed(&g->clock) && g->clock.running >= 0 && game_lease(g) == lease)
			return true;
	return false;
}

void games_lease_restart(struct games *gs, const struct game *g)
{
	int lease = game_lease(g);
	/* A clock of that lease runs: the heartbeat keeps its lease (or, run
	 * out under it, the clocks stand: games_lease_extend). */
	if (!clock_timed(&g->clock) || lease_used(gs, lease))
		return;
	/* Stored whether or not the last lease has run out: one that has not
	 * may run out before the next heartbeat stores another (up to a
	 * period later), and the clock would stand in between (probe: an
	 * unpause in the last half second of a lease stood 0.5 s, said as a
	 * store that took no heartbeat). */
	struct alive *al = game_alive_record(gs, lease, recover_lease_ms(lease));
	al->before_mono = gs->lease_mono[lease];
	/* Ahead of its commit, which the readings it covers wait for. */
	if (al->until_mono > gs->lease_mono[lease])
		gs->lease_mono[lease] = al->until_mono;
}

/* A running clock's readings from now on, where a restart counts from
 * (recover.c's resume point): what games_lease_extend gave back is kept. */
struct resume_rows {
	size_t n;
	struct store_umpire_action u[];
};

static int resume_write(void *arg, struct store *st)
{
	struct resume_rows *r = arg;
	for (size_t i = 0; i < r->n; i++)
		if (store_umpire_action(st, &r->u[i]) != STORE_OK)
			return STORE_ERROR;
	return STORE_OK;
}

static const struct batch_ops resume_ops = {
	.write = resume_write, .committed = alive_nop, .failed = alive_nop, .free = free,
};

void games_lease_extend(struct games *gs, int lease, int64_t mono_until)
{
	int64_t old = gs->lease_mono[lease], now = mstime_mono();
	if (mono_until <= old)
		return;
	if (old >= now) {
		gs->lease_mono[lease] = mono_until;
		return;   /* it had not run out: nothing stood still */
	}
	/* A heartbeat that waited behind the outage reaches no further than
	 * now: the clocks stand on where they stood (a restart meanwhile
	 * charges up to it, less than was shown, never more).  Only a lease
	 * past now ends the stand, once: several heartbeats stored together
	 * after an outage each gave the stand back (probe: clocks rose
	 * 1.5-2.9 s). */
	if (mono_until <= now)
		return;
	gs->lease_mono[lease] = mono_until;
	/* The lease had run out at `old` (the store took no heartbeat): the
	 * clocks have stood there since, and run on from now; the time
	 * between is charged to nobody, and a restart's resume point says so. */
	size_t n = 0;
	for (struct game *g = gs->live; g; g = g->next)
		n++;
	struct resume_rows *r = xmalloc(sizeof *r + n * sizeof r->u[0]);
	size_t ran = 0;
	r->n = 0;
	for (struct game *g = gs->live; g; g = g->next) {
		if (!clock_timed(&g->clock) || g->clock.running < 0 || game_lease(g) != lease)
			continue;
		int64_t from = g->clock.since > old ? g->clock.since : old;
		if (now > from)
			clock_defer(&g->clock, now - from);
		game_flag_arm(g);
		ran++;
		if (g->pending > 0)
			continue;   /* its next action's row holds its readings */
		struct store_umpire_action *u = &r->u[r->n++];
		memset(u, 0, sizeof *u);
		u->game = g->id;
		u->seq = g->seq;
		snprintf(u->kind, sizeof u->kind, "%s", RECOVER_RESUME_KIND);
		snprintf(u->text, sizeof u->text, "%" PRId64 " %" PRId64,
		         clock_remaining(&g->clock, WHITE, now), clock_remaining(&g->clock, BLACK, now));
		u->at_ms = recover_clock_ms();
	}
	if (ran > 0)
		log_warnx("clocks stood %" PRId64 " ms (no lease stored), charged to nobody: games=%zu",
		          now - old, ran);
	if (r->n == 0) {
		free(r);
		return;
	}
	batch_begin_action(gs->batch, &resume_ops, r, gs);
}

void game_heartbeat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct games *gs = arg;
	int64_t now = mstime_mono();
	/* Only running clocks need it (not paused, adjourned or untimed
	 * games': games_lease_restart when one runs again); an idle daemon
	 * leaves the disk alone, and correspondence clocks' lease is stored
	 * again only when a heartbeat's period of it is gone. */
	if (lease_used(gs, RECOVER_LEASE_CLOCK))
		game_alive_record(gs, RECOVER_LEASE_CLOCK, RECOVER_ALIVE_LEASE_MS);
	if (gs->lease_mono[RECOVER_LEASE_DAYS] - now <=
	            RECOVER_ALIVE_DAYS_LEASE_MS - GAME_DAYS_HEARTBEAT_MS &&
	    lease_used(gs, RECOVER_LEASE_DAYS))
		game_alive_record(gs, RECOVER_LEASE_DAYS, RECOVER_ALIVE_DAYS_LEASE_MS);
	(void)fd;
	(void)what;
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
	snprintf(fl->reason, sizeof fl->reason, "%s", RECOVER_FLAGGED_SAY);   /* reason: logged */
	(void)reason;
}

/* What each audience was told, read from the record (audlist.h) in one
 * replay, as a replayed view read it.  A list that cannot be read stays
 * NULL: its views replay the record, as they did before there were lists.
 * (Recovery has replayed the record once already, for the position; its
 * replay keeps no announcements, so this is the second.) */
static void told_read(struct game *g)
{
	struct audlist *lists[HEARD_LISTS];
	for (int i = 0; i < HEARD_LISTS; i++)
		lists[i] = audlist_new();
	bool ok = announce_replay_told(g->gs->srv->store, &g->info, lists) == 0;
	if (!ok)
		log_warnx("game=%" PRId64 " the lists of what was told could not be made", g->id);
	for (int i = 0; i < HEARD_LISTS; i++) {
		if (ok)
			g->told[i] = lists[i];
		else
			audlist_unref(lists[i]);
	}
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
		game_record_push(g, &rr->acts[i], rr->heard[i], rr->seq[i]);
	g->seq = rr->last_seq;
	memcpy(g->heard_seq, rr->heard_seq, sizeof g->heard_seq);
	g->draw_offer = rr->rec.draw_offer;
	g->paused = rr->rec.paused;
	g->adjourned = rr->rec.adjourned;
	g->adjourn_offer = rr->rec.adjourn_offer;
	if (rr->clock_ms[WHITE] >= 0)
		clock_set(&g->clock, rr->clock_ms[WHITE], rr->clock_ms[BLACK]);
	/* Paused by an umpire, or adjourned: it stays so, and nobody's clock runs. */
	if (g->paused || g->adjourned)
		clock_pause(&g->clock, mstime_mono());
	else
		clock_start(&g->clock, referee_side_to_move(g->ref), mstime_mono());
	told_read(g);
	games_link(gs, g);
	/* Nobody is connected yet: each player has the game's grace to come
	 * back (games_conn_login cancels it), as after a dropped connection;
	 * a delayed game's spectators' list, begun after, says so. */
	presence_recovered(g);
	watch_list_begin(g, true);
	game_flag_arm(g);
	log_info("game=%" PRId64 " resumed actions=%zu", g->id, g->nacts);
}

static const struct recover_ops recovered_ops = { recovered_resume, recovered_flagged };

int games_recover(struct games *gs)
{
	if (chat_load(gs) != 0)
		return -1;
	/* Timed games resumed run from here, and recover_games stores a lease
	 * from (no sooner than) here. */
	for (int k = 0; k < RECOVER_LEASES; k++)
		gs->lease_mono[k] = mstime_mono() + recover_lease_ms(k);
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
