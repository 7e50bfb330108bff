/*
 * game.c — live games: one referee each, clocks, the fan-out of every
 * event to its audience's connections, and persistence of every action.
 *
 * One action (a try, a list, a quiet sequence, "any?", or an ending from
 * outside the board) goes through game_act():
 *   1. the referee rules on it (pure; a refusal changes nothing and is
 *      answered with an error, nothing stored);
 *   2. the clocks are charged, and the action joins this loop turn's
 *      batch (batch.c) with its rows (action, events, finish when over);
 *   3. its events and the requester's ok are HELD by the batch;
 *   4. at the end of the turn every action of the turn, in every game,
 *      is written in ONE transaction (group commit: one fsync per turn,
 *      not per move) by the store writer thread, while the loop serves
 *      on; only after the commit do the held messages go out, in order,
 *      and a finished game is buried.
 * If the commit fails, it is rolled back and every game with an action in
 * the batch is put back as it was before its first one: the referee has
 * no copy operation, so it is REBUILT by replaying the in-memory record
 * (the actions that did commit) through a fresh referee by referee_apply
 * (action.h), the one path of every action live, in recovery, in views
 * and in PGN — and the clock, draw offer and seq are restored from a
 * copy taken at that first action.  The game's actions in the next batch
 * (taken while this one was committing) fail with it.  Each requester gets `storage`, and no
 * event of those actions is sent.  Failures are rare, so the normal path
 * pays nothing for this.
 *
 * A player's request about games may wait for a commit: the deferral
 * rule, batch.h.  Timers (flag fall, abandonment) act like
 * requests without a requester; if their commit fails they try again a
 * second later.
 *
 * Audiences: AUD_WHITE and AUD_BLACK go to every connection of that
 * player; AUD_UMPIRE and AUD_SPECTATOR have no clients yet, and
 * route_umpire() / route_spectators() are the seams where they will.
 *
 * Ordering on the wire: an action's events are sent first, then the ok
 * to the request, so a client holding the ok has all its events.  A game
 * start is its own transaction (the new game's id comes from the store)
 * and is announced right after it.
 *
 * Refused calls (REF_E_*) change nothing and are not stored; a refused try
 * that the referee announces (EV_ILLEGAL ...) is an accepted call and is.
 * Recovery at start is recover.c's (recover_games: a replay of each
 * unfinished game checked against the stored events, and its clocks
 * brought to the restart without charging the downtime); this file only
 * installs what it hands over, with each player given the grace period to
 * come back.
 *
 * The module is split by concern (game_priv.h is what the files share):
 * this file holds the live state, the action path, clocks and timers
 * and the fan-out; game_cmd.c the requests (and the deferral rule of
 * batch.h); game_view.c a player's view and the state sent at login.
 * announce.c (outside the module) gives the wire form of events and the
 * replayed views.
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
#include "idtable.h"
#include "jsonline.h"
#include "line.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "rating.h"
#include "recover.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "stall.h"
#include "store.h"
#include "announce.h"
#include "audlist.h"
#include "auth.h"
#include "xmalloc.h"

#define GAME_ACTIONS_MAX 50000        /* record length held in memory per game */
/* The last of them are for an ending only (a resignation, the clock, an
 * abandonment, the umpire's): a record filled with refused tries, offers
 * or chat would otherwise leave a game nobody could end, not even its
 * flag (probe: one player alone stores dozens of refused tries a turn). */
#define GAME_ACTIONS_ENDING 16
/* And no player or spectator fills it for the others: the spectators'
 * words take at most a tenth of the record, each player's own actions
 * (tries, offers, chat) at most half of what is left after the start; the
 * umpire's and the server's (the start) count only against the whole.  Before, spectators' chat, which the players never
 * hear, filled the record and the players could no longer move, nor learn
 * why (probe); an opponent's refused tries did the same. */
#define GAME_SPECTATOR_SHARE 10
/* How often a daemon with running clocks records that it is alive (one small
 * row, store_state "alive_ms", through the batch), as a lease reaching past
 * the next one (RECOVER_ALIVE_LEASE_MS): a restart charges the side to
 * move its thinking time up to the last lease, so never less than a
 * reading it was shown, and at most the lease's margin of the downtime
 * (deploy/BACKUP.md).  A clean shutdown writes its exact time last.
 * GAME_HEARTBEAT_MS is in game_priv.h (game_restart.c beats). */
_Static_assert(RECOVER_ALIVE_LEASE_MS > GAME_HEARTBEAT_MS,
               "a heartbeat's lease must reach past the next heartbeat");
_Static_assert(RECOVER_ALIVE_DAYS_LEASE_MS > GAME_DAYS_HEARTBEAT_MS + GAME_HEARTBEAT_MS,
               "the days' lease must reach past the heartbeat that stores it again");

/* ---- small helpers -------------------------------------------------------- */

const char *game_color_name(int color)
{
	return color == WHITE ? "white" : "black";
}

/* Whose share of the record an action of this kind and colour takes
 * (game_priv.h record_by). */
static int record_actor_of(int kind, int color)
{
	if (kind == ACTION_SPEC)
		return RECORD_BY_SPECTATORS;
	if (kind == ACTION_BEGIN || action_is_umpire(kind) || (color != WHITE && color != BLACK))
		return RECORD_BY_UMPIRE;
	return color;
}

static int record_actor(const struct action *a)
{
	return record_actor_of(a->kind, a->color);
}

void game_record_push(struct game *g, const struct action *a, unsigned heard, int seq)
{
	_Static_assert(ACTION_TEXT_MAX - 1 <= UINT8_MAX && ACTION_KIND_COUNT <= INT8_MAX &&
	               (uint64_t)GAME_ACTIONS_MAX * ACTION_TEXT_MAX < UINT32_MAX,
	               "struct game_rec holds an action's length, kind and offset");
	_Static_assert(sizeof(struct game_rec) <= 8, "a record's action costs 8 bytes and its text");
	size_t len = strnlen(a->text, ACTION_TEXT_MAX - 1);
	g->rec = xgrow(g->rec, &g->caprec, g->nacts + 1, sizeof *g->rec, 64);
	if (len > 0) {   /* (an empty text, a begin's, takes no room: texts may be NULL) */
		g->texts = xgrow(g->texts, &g->captexts, g->ntexts + len, 1, 1024);
		memcpy(g->texts + g->ntexts, a->text, len);
	}
	/* The offset fits: a record holds GAME_ACTIONS_MAX actions at most. */
	g->rec[g->nacts++] = (struct game_rec){ .off = (uint32_t)g->ntexts, .len = (uint8_t)len,
	                                        .kind = (int8_t)a->kind, .color = (int8_t)a->color };
	g->ntexts += len;
	g->record_by[record_actor(a)]++;
	for (int col = WHITE; col <= BLACK; col++)
		if (heard & announce_heard_aud(col)) {
			g->heard_at[col] = xgrow(g->heard_at[col], &g->capheard[col], g->nheard[col] + 1,
			                         sizeof *g->heard_at[col], 64);
			g->heard_at[col][g->nheard[col]++] =
			    (struct game_heard){ (uint32_t)(g->nacts - 1), (int32_t)seq };
		}
}

/* Action i of g's record, whole again, into *a. */
static void record_get(const struct game *g, size_t i, struct action *a)
{
	const struct game_rec *r = &g->rec[i];
	a->kind = r->kind;
	a->color = r->color;
	if (r->len > 0)
		memcpy(a->text, g->texts + r->off, r->len);
	a->text[r->len] = '\0';
}

/* g's record cut back to its first n actions, their shares counted again. */
static void record_truncate(struct game *g, size_t n)
{
	g->nacts = n;
	g->ntexts = n > 0 ? g->rec[n - 1].off + g->rec[n - 1].len : 0;
	for (int col = WHITE; col <= BLACK; col++)
		while (g->nheard[col] > 0 && g->heard_at[col][g->nheard[col] - 1].at >= n)
			g->nheard[col]--;
	memset(g->record_by, 0, sizeof g->record_by);
	for (size_t i = 0; i < n; i++)
		g->record_by[record_actor_of(g->rec[i].kind, g->rec[i].color)]++;
}

/* Why action a does not fit in g's record, or NULL: the last actions are
 * for an ending, and the spectators' and each player's shares are their
 * own (GAME_SPECTATOR_SHARE).  Said to the actor, of its own share only. */
static const char *record_full(const struct game *g, const struct action *a, bool ending)
{
	size_t max = g->gs->actions_max, spectators = max / GAME_SPECTATOR_SHARE;
	/* Half of what the start, the ending's room and the spectators leave:
	 * both players' shares fit, however the others filled theirs (probe:
	 * the start left the second player one short). */
	size_t player = (max - GAME_ACTIONS_ENDING - spectators - 1) / 2;
	int by = record_actor(a);
	if (g->nacts >= max || (!ending && g->nacts >= max - GAME_ACTIONS_ENDING))
		return "the game's record is full: it can only be ended";
	if (by == RECORD_BY_SPECTATORS && g->record_by[by] >= spectators)
		return "the spectators' share of the game's record is full";
	if (!ending && (by == WHITE || by == BLACK) && g->record_by[by] >= player)
		return "your share of the game's record is full: it can only be ended";
	return NULL;
}

/* An action as the store keeps it (names, not enum values). */
static void action_to_store(struct store_action *sa, const struct action *a)
{
	sa->color = a->color;
	snprintf(sa->kind, sizeof sa->kind, "%s", action_kind_name(a->kind));
	snprintf(sa->text, sizeof sa->text, "%s", a->text);
}

/* A fresh referee at the game's start position. */
static struct referee *referee_fresh(const struct game *g)
{
	char err[128];
	const char *fen = g->info.fen[0] ? g->info.fen : NULL;
	return referee_new(g->rs, fen, err, sizeof err);
}

/* Rebuild g->ref by replaying the in-memory record (after a failed commit). */
static int game_rebuild(struct game *g)
{
	struct referee *r = referee_fresh(g);
	if (!r)
		return -1;
	struct evlist out;
	evlist_init(&out);
	struct action a;
	for (size_t i = 0; i < g->nacts; i++) {
		evlist_clear(&out);
		record_get(g, i, &a);
		if (referee_apply(r, &a, &out) != REF_OK) {
			evlist_free(&out);
			referee_free(r);
			return -1;
		}
	}
	evlist_free(&out);
	referee_free(g->ref);
	g->ref = r;
	return 0;
}

/* ---- wire objects --------------------------------------------------------- */

int64_t games_lease_now(const struct games *gs, int lease, int64_t now)
{
	return gs->lease_mono[lease] < now ? gs->lease_mono[lease] : now;
}

int64_t game_clock_now(const struct game *g, int64_t now)
{
	now = games_lease_now(g->gs, game_lease(g), now);
	return g->untold_seq != 0 && g->untold_at < now ? g->untold_at : now;
}

const int64_t *game_clock_read(const struct game *g, int64_t now, int64_t ms[2])
{
	now = game_clock_now(g, now);
	if (!clock_timed(&g->clock))
		return NULL;
	ms[WHITE] = clock_remaining(&g->clock, WHITE, now);
	ms[BLACK] = clock_remaining(&g->clock, BLACK, now);
	return ms;
}

json_t *game_clock_json(const struct game *g, int64_t now)
{
	int64_t ms[2];
	return announce_clock_json(game_clock_read(g, now, ms));
}

json_t *game_time_json(const struct store_game *info)
{
	if (info->days > 0)
		return json_pack("{s:I}", "days", (json_int_t)info->days);
	if (info->base_ms > 0)
		return json_pack("{s:f, s:f}", "base", (double)info->base_ms / 1000.0,
		                 "inc", (double)info->inc_ms / 1000.0);
	return NULL;
}


/* Send a game's line to the user's connections, except one whose login
 * game states wait for a commit: they will hold it. */
static void send_user(struct games *gs, int64_t user, const struct line *l)
{
	for (struct conn *c = NULL; (c = conn_of_user(gs->srv, user, c)) != NULL;)
		if (!game_conn_awaiting(c))
			conn_send_line(c, l);
}

/* Hand one line to a player: held in action ba until its commit, or sent
 * now when ba is NULL (a game start, committed already).  Shared, not
 * copied: a line is never changed. */
static void to_user(struct game *g, struct batch_action *ba, int64_t user, struct line *l)
{
	if (ba)
		batch_hold_user(ba, user, line_ref(l));
	else
		send_user(g->gs, user, l);
}

/* A line told to the audiences aud (AUD_ bits), kept for the views of
 * those who read from a list (audlist.h). */
static void told_push(struct game *g, unsigned aud, const char *text, size_t len)
{
	for (int i = 0; i < HEARD_LISTS; i++)
		if ((aud & announce_heard_aud(i)) && g->told[i] != NULL)
			audlist_push(g->told[i], text, len);
}

/* The players' line of an event is written straight from the event (no
 * tree: announce.h); the umpires' and spectators' copies, which watch.c
 * changes per seat, are parsed from it only when a seat may need them. */
static void route_event(struct game *g, struct batch_action *ba, const struct evlist *out, size_t i,
                        const struct action *a, const int64_t *clock)
{
	const struct event *e = &out->v[i];
	char buf[PROTO_LINE_MAX];
	struct jsonline_out o = { .buf = buf, .size = sizeof buf, .used = 0 };
	struct event told = *e;   /* routed by its own audience, saying event_told's */
	told.audience = (uint8_t)event_told(out, i);
	if (announce_event_put(&o, g->id, g->rs, &told, clock, g->ref, a) != 0) {
		log_warnx("game=%" PRId64 " event type=%d has no wire form", g->id, e->type);
		return;
	}
	told_push(g, e->audience, buf, o.used);
	struct line *l = line_new(buf, o.used);
	if (e->audience & AUD_WHITE)
		to_user(g, ba, g->user[WHITE], l);
	if (e->audience & AUD_BLACK)
		to_user(g, ba, g->user[BLACK], l);
	if (l != NULL && watch_wants(g)) {
		json_t *j = json_loadb(buf, o.used, 0, NULL);
		watch_route_recorded(g, ba, e->audience, event_heard(out, i), j, l);
		json_decref(j);
	}
	line_unref(l);
}

static enum proto_error ref_to_proto(int st)
{
	switch (st) {
	case REF_E_GAME_OVER: return PE_GAME_OVER;
	case REF_E_NOT_YOUR_TURN: return PE_NOT_YOUR_TURN;
	case REF_E_SYNTAX:
	case REF_E_NO_PIECE:
	case REF_E_AMBIGUOUS: return PE_NOTATION;
	case REF_E_UNSUPPORTED:
	case REF_E_MUST_TRY_CAPTURE:
	case REF_E_ANY_ALREADY:
	case REF_E_ANY_TOO_EARLY:
	case REF_E_ALREADY_TRIED:
	case REF_E_TOO_MANY: return PE_ILLEGAL_ACTION;
	case REF_E_BAD_ARGUMENT: return PE_BAD_REQUEST;
	}
	return PE_INTERNAL;
}

/* ---- lifetime ------------------------------------------------------------- */

static void game_free(struct game *g)
{
	if (g->flag_timer)
		event_free(g->flag_timer);
	for (int i = 0; i < 2; i++)
		if (g->abandon_timer[i])
			event_free(g->abandon_timer[i]);
	watch_free(g);
	for (int i = 0; i < HEARD_LISTS; i++)
		audlist_unref(g->told[i]);
	referee_free(g->ref);
	free(g->rec);
	free(g->texts);
	free(g->heard_at[WHITE]);
	free(g->heard_at[BLACK]);
	free(g);
}

static void reaper_cb(evutil_socket_t fd, short what, void *arg)
{
	struct games *gs = arg;
	while (gs->graveyard) {
		struct game *g = gs->graveyard;
		gs->graveyard = g->next;
		game_free(g);
	}
}

static struct playing *playing_find(const struct games *gs, int64_t user)
{
	struct idnode *n = idtable_find(&gs->playing, user);

	return n != NULL ? IDTABLE_ENTRY(n, struct playing, node) : NULL;
}

/* user's count of live games moves by delta (+1, -1); at 0 it goes. */
static void playing_add(struct games *gs, int64_t user, int delta)
{
	struct playing *p = playing_find(gs, user);

	if (p == NULL) {
		p = xcalloc(1, sizeof *p);
		p->node.id = user;
		idtable_add(&gs->playing, &p->node);
	}
	if ((p->games += delta) <= 0) {
		idtable_remove(&gs->playing, &p->node);
		free(p);
	}
}

/* Each player of g, once (a game against oneself counts once). */
static void playing_game(struct games *gs, const struct game *g, int delta)
{
	playing_add(gs, g->user[WHITE], delta);
	if (g->user[BLACK] != g->user[WHITE])
		playing_add(gs, g->user[BLACK], delta);
}

void games_link(struct games *gs, struct game *g)
{
	/* Its replay kept from now on, at each commit (announce.h). */
	announce_cache_track(gs->srv->replays, gs->srv->store, &g->info);
	g->next = gs->live;
	gs->live = g;
	g->byid.id = g->id;
	idtable_add(&gs->index, &g->byid);
	playing_game(gs, g, +1);
}

/* Take a finished game out of the live games; it is freed from the reaper. */
static void game_bury(struct game *g)
{
	struct games *gs = g->gs;
	for (struct game **p = &gs->live; *p; p = &(*p)->next)
		if (*p == g) {
			*p = g->next;
			break;
		}
	if (idtable_remove(&gs->index, &g->byid))
		playing_game(gs, g, -1);
	g->dead = true;
	announce_cache_untrack(gs->srv->replays, g->id);
	if (g->flag_timer)
		evtimer_del(g->flag_timer);
	for (int i = 0; i < 2; i++)
		if (g->abandon_timer[i])
			evtimer_del(g->abandon_timer[i]);
	g->next = gs->graveyard;
	gs->graveyard = g;
	struct timeval tv = { 0, 0 };
	evtimer_add(gs->reaper, &tv);
}

const struct flagged_game *game_flagged_find(const struct games *gs, int64_t id)
{
	for (size_t i = 0; i < gs->nflagged; i++)
		if (gs->flagged[i].id == id)
			return &gs->flagged[i];
	return NULL;
}

struct game *game_find(const struct games *gs, int64_t id)
{
	struct idnode *n = idtable_find(&gs->index, id);

	return n != NULL ? IDTABLE_ENTRY(n, struct game, byid) : NULL;
}

void game_flag_arm(struct game *g)
{
	int64_t now = mstime_mono();
	int64_t left = clock_deadline(&g->clock, now);
	evtimer_del(g->flag_timer);
	/* Armed when the answer is out, or the lease stored again
	 * (games_lease_extend). */
	if (left < 0 || g->untold_seq != 0 || g->gs->lease_mono[game_lease(g)] <= now ||
	    g->gs->stopped)
		return;
	/* One ms past the deadline so the flag has surely fallen when we look. */
	left += 1;
	struct timeval tv = mstime_timeval(left);
	evtimer_add(g->flag_timer, &tv);
}

/* What a side's forfeit (time, leaving, resigning) or an agreed draw ends
 * a game with: a rated game before both sides moved is aborted instead,
 * as either side could have done at no cost.  No rating moves on a game
 * nobody played: a dropped connection, or a first move not made in time,
 * lost rating points and the opponent won them; and a resignation or a
 * draw at once moved ratings by agreement without a move (sandbagging,
 * or points handed to a friend). */
int game_forfeit_reason(const struct game *g, int reason)
{
	/* A tournament's game (pair named one) keeps a forfeit's result: a
	 * no-show, or a player who left, let the clock fall or resigned
	 * before moving, loses it, and no rating moves (finish_rows: unplayed),
	 * as FIDE scores a forfeit (a rated no-show was aborted and scored
	 * nothing in the tournament's table: a review). */
	if (g->info.tournament[0] != '\0' && reason != REASON_AGREEMENT)
		return reason;
	return g->info.rated && referee_plies(g->ref) < 2 ? REASON_ABORTED : reason;
}

static void flag_cb(evutil_socket_t fd, short what, void *arg)
{
	struct game *g = arg;
	if (g->dead)
		return;
	int flagged = clock_flagged(&g->clock, game_clock_now(g, mstime_mono()));
	if (flagged < 0) {
		game_flag_arm(g);
		return;
	}
	/* If the commit fails, the timer is re-armed to try again in a second. */
	game_act(g, ACTION_END, flagged, game_reason_name(game_forfeit_reason(g, REASON_TIME)), NULL, NULL,
	         g->flag_timer);
}

static void abandon_fire(struct game *g, int col)
{
	if (g->dead)
		return;
	/* Due during a standstill the loop notices only now: moved by it
	 * (games_stalled re-armed this timer). */
	if (stall_moved(g->gs->srv->stall, g->abandon_timer[col]))
		return;
	/* Both players away when a grace period ends (e.g. a restart nobody
	 * came back to): the side to move forfeits, as the one the game is
	 * waiting for, when its own grace ends (the deadline it was shown).
	 * The other's ending first decides nothing yet: if the side to move
	 * comes back in time, the other, away past its grace, loses then
	 * (presence_back).  Otherwise the absent player forfeits; so does a
	 * guest whose opponent's absence has no grace (an untimed game that
	 * waits for a registered player who is away, not for the guest). */
	bool other_away = conn_of_user(g->gs->srv, g->user[!col], NULL) == NULL;
	if (other_away && presence_grace(g, !col) > 0 && col != referee_side_to_move(g->ref)) {
		g->abandon_due[col] = true;
		return;
	}
	g->abandon_due[col] = false;
	/* Both away before the first move: nobody showed that they came, so
	 * nobody wins by the other's absence.  White forfeited, and a paired
	 * no-show scored the point of a game it never came to, when the one
	 * who had come left for a moment or a restart came first (the
	 * tournament probe): the game is aborted. */
	bool unplayed = referee_plies(g->ref) == 0 && other_away;
	game_act(g, ACTION_END, col,
	         game_reason_name(unplayed ? REASON_ABORTED : game_forfeit_reason(g, REASON_ABANDONED)), NULL,
	         NULL, g->abandon_timer[col]);
}

static void abandon_white_cb(evutil_socket_t fd, short what, void *arg) { abandon_fire(arg, WHITE); }
static void abandon_black_cb(evutil_socket_t fd, short what, void *arg) { abandon_fire(arg, BLACK); }

struct game *game_alloc(struct games *gs, const struct store_game *info)
{
	const struct ruleset *rs = ruleset_find(info->rules);
	if (!rs)
		return NULL;
	struct game *g = xcalloc(1, sizeof *g);
	g->gs = gs;
	g->id = info->id;
	g->info = *info;
	g->user[WHITE] = info->white;
	g->user[BLACK] = info->black;
	g->rs = rs;
	g->draw_offer = -1;
	g->adjourn_offer = -1;
	clock_init(&g->clock, info->base_ms, info->inc_ms, info->days);
	g->ref = referee_fresh(g);
	if (!g->ref) {
		free(g);
		return NULL;
	}
	struct store *st = gs->srv->store;
	for (int col = WHITE; col <= BLACK; col++)
		if (store_user_name(st, g->user[col], g->name[col], sizeof g->name[col]) != STORE_OK)
			snprintf(g->name[col], sizeof g->name[col], "?");
	struct event_base *base = gs->srv->base;
	g->flag_timer = evtimer_new(base, flag_cb, g);
	g->abandon_timer[WHITE] = evtimer_new(base, abandon_white_cb, g);
	g->abandon_timer[BLACK] = evtimer_new(base, abandon_black_cb, g);
	if (!g->flag_timer || !g->abandon_timer[WHITE] || !g->abandon_timer[BLACK])
		abort();
	return g;
}

/* ---- the one path of every action ----------------------------------------- */

/* One accepted action waiting in the batch for the turn's commit. */
struct pending {
	struct game *g;
	struct store_action a;
	struct evlist out;
	bool over;
	int result, reason;          /* when over: what the game row gets */
	bool unplayed;               /* over before both sides moved: a result (an umpire's
	                              * adjudication, a forfeit) that moves no rating */
	struct event *retry;         /* a timer to re-arm if the commit fails, or NULL */
	uint64_t conn;               /* the requester, answered `storage` if it fails (0: a timer) */
	json_t *id;
	/* The game before this action: what a failed commit puts back. */
	struct clock before_clock;
	int before_offer;
	bool before_paused;
	bool before_adjourned;
	int before_adjourn_offer;
	int before_heard[HEARD_LISTS];
	size_t before_nacts;
	size_t before_told[HEARD_LISTS];   /* each audience's list's (audlist.h) */
	struct announce_step step;   /* what it adds to the game's replay (announce.h) */
	bool spec;                   /* it changes what spectators are shown (GAME_TAG_SPECTATORS) */
	bool rearmed;                /* it changed the away players' deadlines: told at the commit */
	int before_offered[2][2];    /* struct game offered_ply before it */
};

/* pending_write runs on the store writer thread (batch.h): it reads only
 * p, which the loop does not change once the action is in the batch, and
 * g->id, which never changes. */

/* The game's end in its row, in the commit of the action that ended it:
 * the result, and a rated game with a result moves both ratings (an
 * aborted game has none), if it was played: one the umpire adjudicated
 * before both sides moved (a forfeit for not turning up) keeps its result
 * and moves no rating, as a forfeit is not rated (FIDE; it moved them:
 * the probe of the endings), as every player's own ending then is aborted
 * (game_forfeit_reason). */
static int finish_rows(struct store *st, const struct game *g, int result, int reason, bool unplayed)
{
	if (store_game_finish(st, g->id, result, reason) != STORE_OK)
		return STORE_ERROR;
	if (g->info.rated && result != RESULT_NONE && !unplayed &&
	    store_rating_game(st, g->id, g->user[WHITE], g->user[BLACK], rating_pool(g->info.rules),
	                      result == RESULT_WHITE ? 1.0 : result == RESULT_BLACK ? 0.0 : 0.5)
	        != STORE_OK)
		return STORE_ERROR;
	return STORE_OK;
}

static int pending_write(void *arg, struct store *st)
{
	struct pending *p = arg;
	struct game *g = p->g;
	if (store_game_action(st, &p->a, p->out.v, p->out.n) != STORE_OK ||
	    (p->over && finish_rows(st, g, p->result, p->reason, p->unplayed) != STORE_OK)) {
		log_warnx("game=%" PRId64 " seq=%d store failed: %s", g->id, p->a.seq, store_error(st));
		return STORE_ERROR;
	}
	return STORE_OK;
}

static void log_over(const struct game *g)
{
	log_info("game=%" PRId64 " over result=%s reason=%s plies=%d", g->id,
	         game_result_name(referee_result(g->ref)),
	         game_reason_name(referee_reason(g->ref)) ? game_reason_name(referee_reason(g->ref)) : "?",
	         referee_plies(g->ref));
}

static void pending_committed(void *arg)
{
	struct pending *p = arg;
	struct game *g = p->g;
	g->pending--;
	announce_step_commit(g->gs->srv->replays, g->gs->srv->store, &g->info, &p->step);
	if (p->rearmed)
		presence_tell(g);
	if (p->a.seq == g->untold_seq) {
		/* Told now (the answer goes out with this commit): the side to
		 * move's time runs from here, not from the try. */
		clock_defer(&g->clock, mstime_mono() - g->untold_at);
		g->untold_seq = 0;
		if (!p->over)
			game_flag_arm(g);
	}
	if (!p->over)
		return;
	presence_game_over(g);
	log_over(g);
	game_bury(g);
}

/* The commit failed: the game goes back to the state before its first
 * failed action.  The batch fails a game's actions in order, the later
 * ones with them (batch.h), so the first call is the earliest and puts
 * the state back; later calls find their action gone already (seq past
 * the game's).  The referee has no copy operation, so it is rebuilt by
 * replaying the record that did commit. */
static void pending_failed(void *arg)
{
	struct pending *p = arg;
	struct game *g = p->g;
	g->pending--;
	if (p->a.seq <= g->seq) {
		g->undos++;
		g->clock = p->before_clock;
		g->untold_seq = 0;   /* the tries from this one on are gone */
		g->draw_offer = p->before_offer;
		bool rearm = g->adjourned != p->before_adjourned || g->paused != p->before_paused;
		g->paused = p->before_paused;
		g->adjourned = p->before_adjourned;
		g->adjourn_offer = p->before_adjourn_offer;
		memcpy(g->offered_ply, p->before_offered, sizeof g->offered_ply);   /* nothing was offered */
		memcpy(g->heard_seq, p->before_heard, sizeof g->heard_seq);
		if (rearm)
			presence_rearm(g, true);
		record_truncate(g, p->before_nacts);
		g->seq = p->a.seq - 1;
		if (game_rebuild(g) != 0)
			log_warnx("game=%" PRId64 " rebuild after a failed commit failed", g->id);
		watch_storage_failed(g, p->a.seq);
		for (int i = 0; i < HEARD_LISTS; i++)
			if (g->told[i] != NULL)
				audlist_cut(g->told[i], p->before_told[i]);
		game_flag_arm(g);
	}
	struct conn *c = p->conn ? conn_find(g->gs->srv, p->conn) : NULL;
	if (c)
		dispatch_error(c, p->id, PE_STORAGE, "the game could not be saved; nothing was changed");
	/* A fallen flag, or an ending from a timer: try again in a second
	 * (not at once, over and over, while the store is failing). */
	struct timeval tv = { 1, 0 };
	if (p->retry)
		evtimer_add(p->retry, &tv);
	else if (clock_flagged(&g->clock, game_clock_now(g, mstime_mono())) >= 0)
		evtimer_add(g->flag_timer, &tv);
}

static void pending_send(void *arg, int64_t user, const struct line *msg)
{
	struct pending *p = arg;
	send_user(p->g->gs, user, msg);
}

static void pending_free(void *arg)
{
	struct pending *p = arg;
	announce_step_drop(&p->step);
	evlist_free(&p->out);
	json_decref(p->id);
	free(p);
}

static const struct batch_ops pending_ops = {
	.write = pending_write, .send_user = pending_send, .committed = pending_committed,
	.failed = pending_failed, .free = pending_free,
};

/* A player's draw or adjournment offer: its side's mark of when it last
 * made one (struct game offered_ply); NULL for any other action. */
static int *offer_mark(struct game *g, const struct action *a)
{
	if ((a->color != WHITE && a->color != BLACK) || strcmp(a->text, "offer") != 0)
		return NULL;
	if (a->kind == ACTION_DRAW)
		return &g->offered_ply[0][a->color];
	return a->kind == ACTION_ADJOURN ? &g->offered_ply[1][a->color] : NULL;
}

/*
 * Rule on one action and put it in this turn's batch with what it
 * announces.  c/id are the requester (NULL for timers), retry the timer to
 * re-arm if the commit fails.  Returns 0 when the action was taken (it is
 * committed, or undone, at the end of the turn), 1 when it was refused
 * (answered now: a refusal changes nothing), 2 when a flag that had
 * fallen was taken in its place (the requester hears game_over at the
 * commit: its own action never was).  A game that ends stays live until
 * the commit, when it is buried.
 */
int game_act(struct game *g, int kind, int color, const char *text,
             struct conn *c, json_t *id, struct event *retry)
{
	int64_t now = mstime_mono();
	struct action a;
	if (action_set(&a, kind, color, text) != REF_OK) {
		if (c)
			dispatch_error(c, id, PE_BAD_REQUEST, "the action does not fit in a record");
		return 1;
	}
	/* A flag that fell before this request arrived wins over the request
	 * (a resignation or draw included): the timer may just not have run
	 * yet.  The flag is the action then, and the requester hears
	 * game_over once it is committed. */
	int flagged = clock_flagged(&g->clock, game_clock_now(g, now));
	const char *flag_text = game_reason_name(game_forfeit_reason(g, REASON_TIME));
	bool flag_instead = false;
	if (flagged >= 0 && !(kind == ACTION_END && color == flagged && strcmp(text, flag_text) == 0)) {
		flag_instead = true;
		action_set(&a, ACTION_END, flagged, flag_text);
		retry = g->flag_timer;
	}
	bool ending = a.kind == ACTION_END || a.kind == ACTION_ADJUDGE || a.kind == ACTION_UABORT;
	const char *full = record_full(g, &a, ending);
	if (full != NULL) {
		if (c)
			dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s", full);
		return 1;
	}

	/* The umpire's pause, an adjournment and the offers are the server's
	 * state, not the referee's: checked here, by the rules a record read
	 * back is checked by (action_record_refusal), and what a record cannot
	 * show, the clock. */
	struct action_record_state rs = { .draw_offer = g->draw_offer,
		                          .adjourn_offer = g->adjourn_offer,
		                          .paused = g->paused,
		                          .adjourned = g->adjourned };
	const char *refusal = action_record_refusal(&rs, &a, referee_side_to_move(g->ref),
	                                            referee_plies(g->ref));
	if (refusal == NULL && a.kind == ACTION_ADDTIME && !clock_timed(&g->clock))
		refusal = "the game has no clock";
	else if (refusal == NULL && action_is_adjourn(a.kind) && g->info.days > 0)
		refusal = "a correspondence game has nothing to adjourn: it waits for each move anyway";
	else if (refusal == NULL && action_is_adjourn(a.kind) && !clock_timed(&g->clock))
		refusal = "an untimed game has nothing to adjourn: it waits for its players anyway";
	if (refusal && !referee_over(g->ref)) {
		if (c)
			dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s", refusal);
		return 1;
	}

	/* An impossible try sent again this turn, as an illegal one is (the
	 * referee's): where impossible tries are public the opponent heard
	 * each repeat (the protocol probe). */
	if (referee_action_repeats_impossible(g->ref, &a)) {
		if (c)
			dispatch_error(c, id, PE_ILLEGAL_ACTION, REFEREE_SAY_ALREADY_TRIED);
		return 1;
	}

	int *offered = offer_mark(g, &a);
	if (offered != NULL && *offered == referee_plies(g->ref) + 1 && !referee_over(g->ref)) {
		if (c)
			dispatch_error(c, id, PE_ILLEGAL_ACTION,
			               "you offered that already at this move: offer again after the next move");
		return 1;
	}

	struct clock before_clock = g->clock;
	int before_offer = g->draw_offer;
	bool before_paused = g->paused;
	bool before_adjourned = g->adjourned;
	int before_adjourn_offer = g->adjourn_offer;
	int plies = referee_plies(g->ref);
	struct pending *p = xcalloc(1, sizeof *p);
	evlist_init(&p->out);
	int st = referee_apply(g->ref, &a, &p->out);
	if (st != REF_OK) {
		if (c)
			dispatch_error(c, id, ref_to_proto(st), "%s", referee_error(g->ref));
		pending_free(p);
		return 1;
	}
	memcpy(p->before_offered, g->offered_ply, sizeof p->before_offered);
	if (offered != NULL)
		*offered = plies + 1;
	/* A clock about to run again on a lease nobody kept. */
	if (a.kind == ACTION_UNPAUSE || a.kind == ACTION_UNADJ)
		games_lease_restart(g->gs, g);
	/* Charged up to the lease at most (lease_mono): past it the clocks
	 * stand, as a restart would find them. */
	int64_t cnow = games_lease_now(g->gs, game_lease(g), now);
	for (int i = plies; i < referee_plies(g->ref); i++)
		clock_moved(&g->clock, cnow);
	p->over = referee_over(g->ref);
	if (p->over)
		clock_stop(&g->clock, cnow);
	/* The server's state after it, by the rules a record is read by. */
	action_record_next(&rs, &a, plies, referee_plies(g->ref));
	g->draw_offer = rs.draw_offer;
	g->paused = rs.paused;
	g->adjourn_offer = rs.adjourn_offer;
	g->adjourned = rs.adjourned;
	struct action_umpire u;
	if (a.kind == ACTION_PAUSE)
		clock_pause(&g->clock, cnow);
	else if (a.kind == ACTION_UNPAUSE)
		clock_unpause(&g->clock, referee_side_to_move(g->ref), cnow);
	else if (a.kind == ACTION_ADDTIME && action_umpire_parse(&a, &u) == REF_OK)
		clock_add(&g->clock, a.color, (int64_t)u.seconds * 1000);
	if (g->adjourned != before_adjourned) {
		/* The umpire's pause, for both players' sake: nobody is charged. */
		if (g->adjourned)
			clock_pause(&g->clock, cnow);
		else
			clock_unpause(&g->clock, referee_side_to_move(g->ref), cnow);
	}
	/* Adjourned or paused, nobody is abandoned (presence_grace): the
	 * deadlines now, told at the commit, after the action's own events
	 * (a deadline told first, with the commit then failing, was one
	 * that never counted: probe). */
	if (g->adjourned != before_adjourned || g->paused != before_paused) {
		presence_rearm(g, false);
		p->rearmed = true;
	}

	g->pending++;
	/* Who hears it, by the one rule the replayed views and their counts
	 * use (events and notice: announce_heard). */
	unsigned heard = announce_heard(&a, &p->out);
	p->spec = watch_shows(g, plies, heard);
	p->before_clock = before_clock;
	p->before_offer = before_offer;
	p->before_paused = before_paused;
	p->before_adjourned = before_adjourned;
	p->before_adjourn_offer = before_adjourn_offer;
	memcpy(p->before_heard, g->heard_seq, sizeof p->before_heard);
	p->before_nacts = g->nacts;
	for (int i = 0; i < HEARD_LISTS; i++)
		p->before_told[i] = g->told[i] != NULL ? audlist_count(g->told[i]) : 0;
	if (p->over) {
		p->result = referee_result(g->ref);
		p->reason = referee_reason(g->ref);
		p->unplayed = referee_plies(g->ref) < 2;
	}
	game_record_push(g, &a, heard | ruleset_told_later(g->rs, &p->out), g->seq + 1);
	p->g = g;
	p->retry = retry;
	p->conn = c ? conn_id(c) : 0;
	p->id = c && id ? json_incref(id) : NULL;
	p->a.game = g->id;
	p->a.seq = ++g->seq;
	action_to_store(&p->a, &a);
	p->a.at_ms = recover_clock_ms();   /* what a restart charges from (recover.h) */
	p->a.clock_white_ms = clock_remaining(&g->clock, WHITE, cnow);
	p->a.clock_black_ms = clock_remaining(&g->clock, BLACK, cnow);
	p->a.ok = 1;
	announce_step_take(g->gs->srv->replays, &p->step, p->a.seq, &a, &p->out, g->ref);
	/* A move played: the opponent is told at the commit.  (Not a refused
	 * try: whether one was made may be private, and a clock that stood
	 * still for its commit would tell.) */
	if (referee_plies(g->ref) > plies && !p->over) {
		g->untold_seq = p->a.seq;
		g->untold_at = now;
	}

	/* Events first, then the answer: a client holding the ok has all its events. */
	struct batch_action *ba = batch_begin_action(g->gs->batch, &pending_ops, p, g);
	if (p->spec)
		batch_tag(ba, GAME_TAG_SPECTATORS);
	int64_t clock_ms[2];
	const int64_t *clk = game_clock_read(g, now, clock_ms);
	for (size_t i = 0; i < p->out.n; i++)
		route_event(g, ba, &p->out, i, &a, clk);
	unsigned naud = 0;
	json_t *notice = announce_notice(g->id, &a, referee_plies(g->ref), clk, &naud);
	announce_heard_at(g->heard_seq, heard, p->a.seq);
	if (notice) {
		/* A player who muted the other does not receive their chat (chat.c). */
		bool said = a.kind == ACTION_SAY;
		struct line *l = line_encode(json_incref(notice));
		if (l != NULL)   /* a muted player's too: their view drops it (game_view.c) */
			told_push(g, naud, line_text(l), line_len(l));
		if ((naud & AUD_WHITE) && !(said && chat_muted(g->gs, g->user[WHITE], g->user[a.color])))
			to_user(g, ba, g->user[WHITE], l);
		if ((naud & AUD_BLACK) && !(said && chat_muted(g->gs, g->user[BLACK], g->user[a.color])))
			to_user(g, ba, g->user[BLACK], l);
		watch_route_recorded(g, ba, naud, naud, notice, l);
		line_unref(l);
		json_decref(notice);
	}
	if (referee_plies(g->ref) > plies)
		watch_board(g, ba);
	if (c)
		batch_hold_conn(ba, conn_id(c),
		                flag_instead ? dispatch_error_msg(id, PE_GAME_OVER, "the game is over")
		                             : dispatch_ok_msg(id, json_pack("{s:I}", "game",
		                                                             (json_int_t)g->id)));
	if (p->over)
		evtimer_del(g->flag_timer);
	else
		game_flag_arm(g);
	/* the flag's ending, not the request's action: not logged or audited
	 * as that action by a caller (a review: an adjudication the flag beat) */
	return flag_instead ? 2 : 0;
}

/* ---- public entry points -------------------------------------------------- */

struct games *games_new(struct server *srv)
{
	struct games *gs = xcalloc(1, sizeof *gs);
	gs->srv = srv;
	srv->game_waits = game_request_waits;
	gs->grace_ms = GAME_ABANDON_GRACE_MS;
	/* Test hook: integration tests shorten the grace period without a
	 * flag of their own; it wins over the settings, a reload's too. */
	const char *env = getenv("KRIEGD_ABANDON_GRACE_MS");
	if (env && atoll(env) > 0)
		gs->grace_ms = gs->untimed_grace_ms = gs->grace_hook_ms = atoll(env);   /* both graces */
	/* Test hook: a record that fills in a test's time. */
	gs->actions_max = GAME_ACTIONS_MAX;
	if ((env = getenv("KRIEGD_RECORD_MAX")) != NULL && atoll(env) > 2 * GAME_ACTIONS_ENDING &&
	    atoll(env) < GAME_ACTIONS_MAX)
		gs->actions_max = (size_t)atoll(env);
	if (srv->base) {
		gs->reaper = evtimer_new(srv->base, reaper_cb, gs);
		gs->heartbeat = event_new(srv->base, -1, EV_PERSIST, game_heartbeat_cb, gs);
		struct timeval tv = mstime_timeval(GAME_HEARTBEAT_MS);
		if (!gs->reaper || !gs->heartbeat || event_add(gs->heartbeat, &tv) != 0)
			abort();
	}
	gs->batch = batch_new(srv);
	return gs;
}

static void playing_free(struct idnode *n)
{
	free(IDTABLE_ENTRY(n, struct playing, node));
}

void games_free(struct games *gs)
{
	if (!gs)
		return;
	/* The clean-shutdown checkpoint: the clocks were running until now
	 * (a signal's stop wrote it at the signal: games_stop). */
	if (gs->live && gs->srv->store && !gs->stopped)
		games_alive_stop(gs);
	batch_free(gs->batch);   /* commits what is open; games are still there */
	if (gs->heartbeat)
		event_free(gs->heartbeat);
	free(gs->flagged);
	chat_free(gs);
	follow_free(gs);
	while (gs->live) {
		struct game *g = gs->live;
		gs->live = g->next;
		game_free(g);
	}
	idtable_free(&gs->index, NULL);
	idtable_free(&gs->playing, playing_free);
	reaper_cb(-1, 0, gs);
	if (gs->reaper)
		event_free(gs->reaper);
	gs->srv->game_waits = NULL;
	free(gs);
}

void games_after_commits(struct server *srv, void (*fn)(void *arg), void *arg)
{
	if (srv->games != NULL && srv->games->batch != NULL)
		batch_after(srv->games->batch, fn, arg);
	else
		fn(arg);
}

void games_flush(struct games *gs)
{
	if (gs)
		batch_flush(gs->batch);
}

void games_stop(struct games *gs)
{
	if (gs == NULL)
		return;
	/* The clean stop's checkpoint is this moment: the side to move is not
	 * charged the drain of the connections, during which it cannot move
	 * (probe: a flag due in the drain fell at the restart). */
	if (gs->live && gs->srv->store)
		games_alive_stop(gs);
	gs->stopped = true;   /* no flag armed again (game_flag_arm) */
	if (gs->heartbeat != NULL)
		event_del(gs->heartbeat);   /* no later lease */
	for (struct game *g = gs->live; g != NULL; g = g->next) {
		evtimer_del(g->flag_timer);
		for (int i = 0; i < 2; i++)
			evtimer_del(g->abandon_timer[i]);
	}
}

void games_set_grace(struct games *gs, int64_t ms)
{
	if (gs->grace_hook_ms == 0)
		gs->grace_ms = ms > 0 ? ms : GAME_ABANDON_GRACE_MS;
}

void games_set_untimed_grace(struct games *gs, int64_t ms)
{
	if (gs->grace_hook_ms == 0 && ms >= 0)
		gs->untimed_grace_ms = ms;
}

int games_heard_actions(struct server *srv, int64_t id, unsigned aud, int *through, size_t *n,
                        struct action **out)
{
	const struct game *g = srv->games != NULL ? game_find(srv->games, id) : NULL;
	if (g == NULL || (aud != AUD_WHITE && aud != AUD_BLACK))
		return -1;
	int col = aud == AUD_WHITE ? WHITE : BLACK;
	/* The uncommitted actions are the newest (per game, actions commit in
	 * the order they were taken: batch.h), and their seqs the last.  One
	 * told of later is not in it before they hear what tells them. */
	int last = g->seq - g->pending;
	*through = g->heard_seq[col] < last ? g->heard_seq[col] : last;
	/* The list is in seq order: how many are through it, found by halves
	 * (a cached text's chunk costs no more than that). */
	size_t lo = 0, hi = g->nheard[col];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->heard_at[col][mid].seq <= *through)
			lo = mid + 1;
		else
			hi = mid;
	}
	*n = lo;
	if (out != NULL) {
		*out = xcalloc(lo > 0 ? lo : 1, sizeof **out);
		for (size_t k = 0; k < lo; k++)
			record_get(g, g->heard_at[col][k].at, &(*out)[k]);
	}
	return 0;
}

int games_heard_seq(struct server *srv, int64_t id, int color)
{
	const struct game *g = srv->games != NULL ? game_find(srv->games, id) : NULL;
	return g != NULL && (color == WHITE || color == BLACK) ? g->heard_seq[color] : -1;
}

size_t games_live_count(const struct games *gs)
{
	return gs->index.count;
}

int games_user_count(const struct games *gs, int64_t user)
{
	const struct playing *p = playing_find(gs, user);

	return p != NULL ? p->games : 0;
}

int64_t games_user_on_clock(const struct games *gs, int64_t user)
{
	if (games_user_count(gs, user) == 0)
		return 0;
	for (const struct game *g = gs->live; g; g = g->next)
		if ((g->user[WHITE] == user || g->user[BLACK] == user) && g->clock.mode == CLOCK_FISCHER &&
		    !g->adjourned)
			return g->id;
	return 0;
}

int games_finished_of(struct server *srv, int64_t id, int64_t user, struct store_game *out)
{
	const struct game *g = game_find(srv->games, id);
	if (g)
		return g->user[WHITE] == user || g->user[BLACK] == user ? GAME_PLAYING : GAME_UNKNOWN;
	int st = store_game_get(srv->store, id, out);
	if (st == STORE_ERROR)
		return GAME_UNREADABLE;
	if (st != STORE_OK || (out->white != user && out->black != user))
		return GAME_UNKNOWN;
	/* Unfinished in the store and not live: a game whose record failed its
	 * check (game_flagged_find), never played on and never over. */
	return out->result != RESULT_NONE || out->reason != REASON_NONE ? GAME_DONE : GAME_FLAGGED;
}

int games_start(struct server *srv, int64_t white, int64_t black, const char *rules,
                int64_t base_ms, int64_t inc_ms, int64_t days, int rated, const char *tournament,
                const char *round, int64_t *game_id)
{
	struct games *gs = srv->games;
	const struct ruleset *rs = ruleset_find(rules ? rules : RULESET_DEFAULT);
	if (!rs || white == black || white <= 0 || black <= 0)
		return -1;
	/* A bot is rated against a person only where the server says so
	 * (rate_bots_vs_humans, off by default): such a game starts unrated,
	 * and game_start says so, so that no rating moves at its end. */
	bool bot[2];
	game_bots(srv, white, black, bot);
	if (rated && bot[WHITE] != bot[BLACK] && !(srv->cfg && srv->cfg->rate_bots_vs_humans))
		rated = 0;
	struct store_game info = { 0 };
	info.white = white;
	info.black = black;
	snprintf(info.rules, sizeof info.rules, "%s", rs->name);
	/* test_start_fen (tests only) replaces the standard start. */
	snprintf(info.fen, sizeof info.fen, "%s",
	         srv->cfg && srv->cfg->test_start_fen ? srv->cfg->test_start_fen : FEN_START);
	info.base_ms = base_ms;
	info.inc_ms = inc_ms;
	info.days = days;
	info.rated = rated;
	snprintf(info.tournament, sizeof info.tournament, "%s", tournament ? tournament : "");
	snprintf(info.round, sizeof info.round, "%s", round ? round : "");
	info.created_unix = (int64_t)time(NULL);
	info.result = RESULT_NONE;
	info.reason = REASON_NONE;

	/*
	 * The game row, the opening announcements and their "begin" action are
	 * one transaction, written here on the loop thread and not through the
	 * store writer (batch.c) like every later action, because the game's id
	 * is the row's SQLite rowid: it exists only once the row is inserted,
	 * and everything after this point (the game_start messages, the live
	 * game's routing, the batch's per-game ordering, the `ok` to accept)
	 * names the game by it.  A start is one small transaction per game,
	 * not per move, so the loop pays for it rarely.
	 */
	struct store *st = srv->store;
	if (store_begin(st) != STORE_OK)
		goto fail;
	if (store_game_create(st, &info) != STORE_OK)
		goto fail;
	struct game *g = game_alloc(gs, &info);
	if (!g)
		goto fail;
	struct evlist out;
	evlist_init(&out);
	int64_t now = mstime_mono();
	struct action begin;
	action_set(&begin, ACTION_BEGIN, WHITE, "");
	if (referee_apply(g->ref, &begin, &out) != REF_OK) {
		evlist_free(&out);
		game_free(g);
		goto fail;
	}
	struct store_action a = { 0 };
	a.game = g->id;
	a.seq = 1;
	action_to_store(&a, &begin);
	a.at_ms = recover_clock_ms();
	a.clock_white_ms = clock_remaining(&g->clock, WHITE, now);
	a.clock_black_ms = clock_remaining(&g->clock, BLACK, now);
	a.ok = 1;
	/* A start that is already an end (a test_start_fen position the
	 * referee rules drawn, say) ends in the same commit, as a move would
	 * end it: otherwise the row said live for ever while both players
	 * had heard game_over. */
	bool over = referee_over(g->ref);
	/* White's clock runs from here, maybe before this loop's next
	 * heartbeat (none while no clock ran): the lease covers it
	 * (recover.h). */
	if (store_game_action(st, &a, out.v, out.n) != STORE_OK ||
	    (over && finish_rows(st, g, referee_result(g->ref), referee_reason(g->ref),
	                         referee_plies(g->ref) < 2) != STORE_OK) ||
	    (clock_timed(&g->clock) &&
	     store_state_set(st, recover_lease_key(game_lease(g)),
	                     recover_clock_ms() + recover_lease_ms(game_lease(g))) != STORE_OK) ||
	    store_commit(st) != STORE_OK) {
		evlist_free(&out);
		game_free(g);
		goto fail;
	}
	g->seq = 1;
	announce_heard_at(g->heard_seq, AUD_PUBLIC, 1);
	game_record_push(g, &begin, AUD_PUBLIC, 1);
	if (clock_timed(&g->clock))
		games_lease_extend(gs, game_lease(g), now + recover_lease_ms(game_lease(g)));
	watch_game_started(gs, g->user);
	games_link(gs, g);
	clock_start(&g->clock, referee_side_to_move(g->ref), now);   /* a test_start_fen may have Black to move */

	int64_t clock_ms[2];
	const int64_t *clk_ms = game_clock_read(g, now, clock_ms);
	json_t *clk = announce_clock_json(clk_ms);
	for (int col = WHITE; col <= BLACK; col++) {
		json_t *j = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:b}", "event", "game_start",
		                      "game", (json_int_t)g->id, "rules", rs->name,
		                      "white", g->name[WHITE], "black", g->name[BLACK],
		                      "color", game_color_name(col), "rated", rated != 0);
		json_t *t = game_time_json(&info);
		if (t)
			json_object_set_new(j, "time", t);
		game_bots_json(bot, j);
		game_tags_json(&info, j);
		if (rated)   /* both players' ratings before the game (club.h) */
			json_object_set_new(j, "ratings", json_pack("{s:o*, s:o*}",
			        "white", club_rating_json(srv, white, rs->name),
			        "black", club_rating_json(srv, black, rs->name)));
		if (clk)
			json_object_set(j, "clock", clk);
		struct line *l = line_encode(j);
		send_user(gs, g->user[col], l);
		line_unref(l);
	}
	watch_list_begin(g, false);
	for (int i = 0; i < HEARD_LISTS; i++)
		g->told[i] = audlist_new();
	for (size_t i = 0; i < out.n; i++)
		route_event(g, NULL, &out, i, &begin, clk_ms);
	json_decref(clk);
	evlist_free(&out);
	log_info("game=%" PRId64 " start rules=%s white=%" PRId64 " black=%" PRId64
	         " base_ms=%" PRId64 " inc_ms=%" PRId64 " days=%" PRId64, g->id, rs->name, white, black,
	         base_ms, inc_ms, days);
	if (game_id)
		*game_id = g->id;
	if (over) {
		clock_stop(&g->clock, now);
		presence_game_over(g);
		log_over(g);
		game_bury(g);
		return 0;
	}
	/* A player with no connection (a correspondence offer that waited,
	 * taken while its owner is away) is away from the start, as one who
	 * left is: the other was never told so (friends probe). */
	for (int col = WHITE; col <= BLACK; col++)
		if (conn_of_user(srv, g->user[col], NULL) == NULL)
			presence_away(g, col);
	game_flag_arm(g);
	follow_game_started(gs, g);
	return 0;
fail:
	log_warnx("starting a game failed: %s", store_error(st));
	store_rollback(st);
	return -1;
}
