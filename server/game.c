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
 * (the actions that did commit) through a fresh referee — the same replay
 * recovery uses — and the clock, draw offer and seq are restored from a
 * copy taken at that first action.  The game's actions in the next batch
 * (taken while this one was committing) fail with it.  Each requester gets `storage`, and no
 * event of those actions is sent.  Failures are rare, so the normal path
 * pays nothing for this.
 *
 * A player's request about games waits for a commit only while an
 * uncommitted action has produced something addressed to that player
 * (the deferral rule, game_cmd.c): never for an action only
 * its opponent hears of, so its timing tells nothing.  Timers (flag fall, abandonment) act like
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
 * Recovery at start rebuilds each unfinished game through recover.c (a
 * replay of its actions checked against the stored events); clocks
 * resume from their last stored readings without charging the downtime;
 * abandonment timers start only when a connection closes, so a recovered
 * game waits for its players (or its clock).
 *
 * The module is split by concern (game_priv.h is what the files share):
 * this file holds the live state, the action path, clocks and timers,
 * recovery and the fan-out; game_cmd.c the requests (and the deferral
 * rule); game_view.c a player's view and the state sent at login.
 */
#include <event2/event.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "clock.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "event_json.h"
#include "fen.h"
#include "game.h"
#include "game_priv.h"
#include "log.h"
#include "proto.h"
#include "recover.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"

#define GAME_ACTIONS_MAX 50000        /* record length held in memory per game */
/* How often a daemon with live games records that it is alive (one small
 * row, store_state "alive_ms", through the batch): a restart charges the
 * side to move its thinking time up to the last heartbeat, never the
 * downtime after it (deploy/BACKUP.md).  A clean shutdown writes it last. */
#define GAME_HEARTBEAT_MS 1000
#define GAME_ALIVE_KEY "alive_ms"
#define GAME_RESUME_KIND "resume"     /* umpire action: clocks at a restart */

/* In the order of enum act_kind (game_priv.h). */
static const char *const act_names[] = { "begin", "try", "list", "quiet", "any", "end", "draw" };

/* ---- small helpers -------------------------------------------------------- */

int64_t game_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *game_color_name(int color)
{
	return color == WHITE ? "white" : "black";
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (!q)
		abort();
	return q;
}

static int reason_parse(const char *name)
{
	for (int r = REASON_NONE; r <= REASON_ABORTED; r++) {
		const char *n = game_reason_name(r);
		if (n && strcmp(n, name) == 0)
			return r;
	}
	return -1;
}

/* Split a space-joined list (as stored) into at most REFEREE_LIST_MAX items. */
static size_t split_list(char *buf, const char *items[REFEREE_LIST_MAX])
{
	size_t n = 0;
	for (char *tok = strtok(buf, " "); tok && n < REFEREE_LIST_MAX; tok = strtok(NULL, " "))
		items[n++] = tok;
	return n;
}

/* Apply one action to a referee: the one path used live, on rebuild and on recovery. */
int game_act_apply(struct referee *r, int kind, int color, const char *text, struct evlist *out)
{
	switch (kind) {
	case ACT_BEGIN:
		return referee_begin(r, out);
	case ACT_TRY:
		return referee_attempt(r, color, text, out);
	case ACT_LIST:
	case ACT_QUIET: {
		char buf[256];
		const char *items[REFEREE_LIST_MAX];
		snprintf(buf, sizeof buf, "%s", text);
		size_t n = split_list(buf, items);
		return kind == ACT_LIST ? referee_attempt_list(r, color, items, n, out)
		                        : referee_quiet(r, color, items, n, out);
	}
	case ACT_ANY:
		return referee_any(r, color, out);
	case ACT_END: {
		int reason = reason_parse(text);
		if (reason <= REASON_NONE)
			return REF_E_BAD_ARGUMENT;
		return referee_end(r, (enum game_reason)reason, color, out);
	}
	case ACT_DRAW:
		if (strcmp(text, "offer") != 0 && strcmp(text, "decline") != 0)
			return REF_E_BAD_ARGUMENT;
		return referee_over(r) ? REF_E_GAME_OVER : REF_OK;
	}
	return REF_E_BAD_ARGUMENT;
}

int game_act_kind_parse(const char *s)
{
	for (size_t i = 0; i < sizeof act_names / sizeof act_names[0]; i++)
		if (strcmp(act_names[i], s) == 0)
			return (int)i;
	return -1;
}

static void record_push(struct game *g, int kind, int color, const char *text)
{
	if (g->nacts == g->capacts) {
		g->capacts = g->capacts ? g->capacts * 2 : 64;
		g->acts = xrealloc(g->acts, g->capacts * sizeof *g->acts);
	}
	struct gaction *a = &g->acts[g->nacts++];
	a->kind = (uint8_t)kind;
	a->color = (int8_t)color;
	snprintf(a->text, sizeof a->text, "%s", text ? text : "");
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
	for (size_t i = 0; i < g->nacts; i++) {
		evlist_clear(&out);
		if (game_act_apply(r, g->acts[i].kind, g->acts[i].color, g->acts[i].text, &out) != REF_OK) {
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

json_t *game_clock_json(const struct game *g, int64_t now)
{
	if (!clock_timed(&g->clock))
		return NULL;
	return json_pack("{s:I, s:I}", "white", (json_int_t)clock_remaining(&g->clock, WHITE, now),
	                 "black", (json_int_t)clock_remaining(&g->clock, BLACK, now));
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

/* One announcement as its audience receives it: h2's encoder, plus the game
 * id and the clock readings. */
json_t *game_event_wire(const struct game *g, const struct ruleset *rs, const struct event *e,
                        json_t *clock)
{
	json_t *j = event_to_json(e, rs, -1);
	if (!j)
		return NULL;
	json_object_set_new(j, "game", json_integer(g->id));
	if (clock)
		json_object_set(j, "clock", clock);
	return j;
}

/* Seams for audiences without clients yet. */
static void route_umpire(struct game *g, json_t *msg) { (void)g; (void)msg; }
static void route_spectators(struct game *g, json_t *msg) { (void)g; (void)msg; }

/* Hand one event to exactly its audience: held in action ba until its
 * commit, or sent now when ba is NULL (a game start, committed already). */
static void to_user(struct game *g, struct batch_action *ba, int64_t user, json_t *msg)
{
	if (ba)
		batch_hold_user(ba, user, msg);
	else
		conn_send_user(g->gs->srv, user, msg);
}

static void route_event(struct game *g, struct batch_action *ba, const struct event *e,
                        json_t *clock)
{
	json_t *j = game_event_wire(g, g->rs, e, clock);
	if (!j) {
		log_warnx("game=%" PRId64 " event type=%d has no wire form", g->id, e->type);
		return;
	}
	if (e->audience & AUD_WHITE)
		to_user(g, ba, g->user[WHITE], json_deep_copy(j));
	if (e->audience & AUD_BLACK)
		to_user(g, ba, g->user[BLACK], json_deep_copy(j));
	if (e->audience & AUD_UMPIRE)
		route_umpire(g, j);
	if (e->audience & AUD_SPECTATOR)
		route_spectators(g, j);
	json_decref(j);
}

/* The game-level notice of a draw action ("offer" / "decline" by color),
 * as sent live (with the clocks) and in views (without). */
json_t *game_draw_notice(int64_t game, const char *text, int color, json_t *clock)
{
	json_t *j = json_pack("{s:s, s:I, s:s}", "event",
	                      strcmp(text, "offer") == 0 ? "draw_offer" : "draw_declined",
	                      "game", (json_int_t)game, "by", color == WHITE ? "white" : "black");
	if (clock)
		json_object_set(j, "clock", clock);
	return j;
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
	referee_free(g->ref);
	free(g->acts);
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

/* Take a finished game out of the live list; it is freed from the reaper. */
static void game_bury(struct game *g)
{
	struct games *gs = g->gs;
	for (struct game **p = &gs->live; *p; p = &(*p)->next)
		if (*p == g) {
			*p = g->next;
			break;
		}
	g->dead = true;
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
	for (struct game *g = gs->live; g; g = g->next)
		if (g->id == id)
			return g;
	return NULL;
}

struct online {
	int64_t user;
	int n;
};

static void online_cb(struct conn *c, void *arg)
{
	struct online *o = arg;
	if (conn_user(c) == o->user)
		o->n++;
}

/* Connections logged in as user. */
static int user_online(struct server *srv, int64_t user)
{
	struct online o = { user, 0 };
	conn_foreach(srv, online_cb, &o);
	return o.n;
}

static void flag_arm(struct game *g)
{
	int64_t left = clock_deadline(&g->clock, game_mono_ms());
	evtimer_del(g->flag_timer);
	if (left < 0)
		return;
	/* One ms past the deadline so the flag has surely fallen when we look. */
	left += 1;
	struct timeval tv = { (time_t)(left / 1000), (suseconds_t)(left % 1000) * 1000 };
	evtimer_add(g->flag_timer, &tv);
}

static void flag_cb(evutil_socket_t fd, short what, void *arg)
{
	struct game *g = arg;
	if (g->dead)
		return;
	int flagged = clock_flagged(&g->clock, game_mono_ms());
	if (flagged < 0) {
		flag_arm(g);
		return;
	}
	/* If the commit fails, the timer is re-armed to try again in a second. */
	game_act(g, ACT_END, flagged, game_reason_name(REASON_TIME), NULL, NULL, g->flag_timer);
}

static void abandon_fire(struct game *g, int col)
{
	if (g->dead)
		return;
	/* Both players away when a grace period ends (e.g. a restart nobody
	 * came back to): the side to move forfeits, as the one the game is
	 * waiting for.  Otherwise the absent player does. */
	if (user_online(g->gs->srv, g->user[!col]) == 0)
		col = referee_side_to_move(g->ref);
	game_act(g, ACT_END, col, game_reason_name(REASON_ABANDONED), NULL, NULL,
	         g->abandon_timer[col]);
}

static void abandon_white_cb(evutil_socket_t fd, short what, void *arg) { abandon_fire(arg, WHITE); }
static void abandon_black_cb(evutil_socket_t fd, short what, void *arg) { abandon_fire(arg, BLACK); }

static struct game *game_alloc(struct games *gs, const struct store_game *info)
{
	const struct ruleset *rs = ruleset_find(info->rules);
	if (!rs)
		return NULL;
	struct game *g = calloc(1, sizeof *g);
	if (!g)
		abort();
	g->gs = gs;
	g->id = info->id;
	g->info = *info;
	g->user[WHITE] = info->white;
	g->user[BLACK] = info->black;
	g->rs = rs;
	g->draw_offer = -1;
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
	struct event *retry;         /* a timer to re-arm if the commit fails, or NULL */
	/* The game before this action: what a failed commit puts back. */
	struct clock before_clock;
	int before_offer;
	size_t before_nacts;
};

/* pending_write runs on the store writer thread (batch.h): it reads only
 * p, which the loop does not change once the action is in the batch, and
 * g->id, which never changes. */

static int pending_write(void *arg, struct store *st)
{
	struct pending *p = arg;
	struct game *g = p->g;
	if (store_game_action(st, &p->a) != STORE_OK)
		goto fail;
	if (p->out.n && store_game_events(st, g->id, p->a.seq, p->out.v, p->out.n) != STORE_OK)
		goto fail;
	if (p->over && store_game_finish(st, g->id, p->result, p->reason) != STORE_OK)
		goto fail;
	return STORE_OK;
fail:
	log_warnx("game=%" PRId64 " seq=%d store failed: %s", g->id, p->a.seq, store_error(st));
	return STORE_ERROR;
}

static void pending_committed(void *arg)
{
	struct pending *p = arg;
	struct game *g = p->g;
	g->pending--;
	if (!p->over)
		return;
	log_info("game=%" PRId64 " over result=%s reason=%s plies=%d", g->id,
	         game_result_name(referee_result(g->ref)),
	         game_reason_name(referee_reason(g->ref)) ? game_reason_name(referee_reason(g->ref)) : "?",
	         referee_plies(g->ref));
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
		g->clock = p->before_clock;
		g->draw_offer = p->before_offer;
		g->nacts = p->before_nacts;
		g->seq = p->a.seq - 1;
		if (game_rebuild(g) != 0)
			log_warnx("game=%" PRId64 " rebuild after a failed commit failed", g->id);
		flag_arm(g);
	}
	/* A fallen flag, or an ending from a timer: try again in a second
	 * (not at once, over and over, while the store is failing). */
	struct timeval tv = { 1, 0 };
	if (p->retry)
		evtimer_add(p->retry, &tv);
	else if (clock_flagged(&g->clock, game_mono_ms()) >= 0)
		evtimer_add(g->flag_timer, &tv);
}

static void pending_free(void *arg)
{
	struct pending *p = arg;
	evlist_free(&p->out);
	free(p);
}

static const struct batch_ops pending_ops = {
	pending_write, pending_committed, pending_failed, pending_free,
};

/*
 * Rule on one action and put it in this turn's batch with what it
 * announces.  c/id are the requester (NULL for timers), retry the timer to
 * re-arm if the commit fails.  Returns 0 when the action was taken (it is
 * committed, or undone, at the end of the turn), 1 when it was refused
 * (answered now: a refusal changes nothing).  A game that ends stays live
 * until the commit, when it is buried.
 */
int game_act(struct game *g, int kind, int color, const char *text,
             struct conn *c, json_t *id, struct event *retry)
{
	int64_t now = game_mono_ms();
	if (g->nacts >= GAME_ACTIONS_MAX) {
		if (c)
			dispatch_error(c, id, PE_ILLEGAL_ACTION, "the game's record is full");
		return 1;
	}
	/* A flag that fell before this request arrived wins over the request
	 * (a resignation or draw included): the timer may just not have run
	 * yet.  The flag is the action then, and the requester hears
	 * game_over once it is committed. */
	int flagged = clock_flagged(&g->clock, now);
	bool flag_instead = false;
	if (flagged >= 0 && !(kind == ACT_END && strcmp(text, game_reason_name(REASON_TIME)) == 0)) {
		flag_instead = true;
		kind = ACT_END;
		color = flagged;
		text = game_reason_name(REASON_TIME);
		retry = g->flag_timer;
	}

	struct clock before_clock = g->clock;
	int before_offer = g->draw_offer;
	int plies = referee_plies(g->ref);
	struct pending *p = calloc(1, sizeof *p);
	if (!p)
		abort();
	evlist_init(&p->out);
	int st = game_act_apply(g->ref, kind, color, text, &p->out);
	if (st != REF_OK) {
		if (c)
			dispatch_error(c, id, ref_to_proto(st), "%s", referee_error(g->ref));
		pending_free(p);
		return 1;
	}
	for (int i = plies; i < referee_plies(g->ref); i++)
		clock_moved(&g->clock, now);
	p->over = referee_over(g->ref);
	if (p->over)
		clock_stop(&g->clock, now);
	/* A standing offer lapses when the side it was made to plays on. */
	if (referee_plies(g->ref) > plies && g->draw_offer >= 0 && color != g->draw_offer)
		g->draw_offer = -1;
	if (kind == ACT_DRAW)
		g->draw_offer = strcmp(text, "offer") == 0 ? color : -1;

	g->pending++;
	p->before_clock = before_clock;
	p->before_offer = before_offer;
	p->before_nacts = g->nacts;
	if (p->over) {
		p->result = referee_result(g->ref);
		p->reason = referee_reason(g->ref);
	}
	record_push(g, kind, color, text);
	p->g = g;
	p->retry = retry;
	p->a.game = g->id;
	p->a.seq = ++g->seq;
	p->a.color = color;
	snprintf(p->a.kind, sizeof p->a.kind, "%s", act_names[kind]);
	snprintf(p->a.text, sizeof p->a.text, "%s", text ? text : "");
	p->a.at_ms = wall_ms();
	p->a.clock_white_ms = clock_remaining(&g->clock, WHITE, now);
	p->a.clock_black_ms = clock_remaining(&g->clock, BLACK, now);
	p->a.ok = 1;

	/* Events first, then the answer: a client holding the ok has all its events. */
	struct batch_action *ba = batch_begin_action(g->gs->batch, &pending_ops, p, g,
	                                             c ? conn_id(c) : 0, id);
	json_t *clk = game_clock_json(g, now);
	for (size_t i = 0; i < p->out.n; i++)
		route_event(g, ba, &p->out.v[i], clk);
	if (kind == ACT_DRAW) {
		json_t *j = game_draw_notice(g->id, text, color, clk);
		to_user(g, ba, g->user[WHITE], json_deep_copy(j));
		to_user(g, ba, g->user[BLACK], json_deep_copy(j));
		route_umpire(g, j);
		json_decref(j);
	}
	json_decref(clk);
	if (c)
		batch_hold_conn(ba, conn_id(c),
		                flag_instead ? dispatch_error_msg(id, PE_GAME_OVER, "the game is over")
		                             : dispatch_ok_msg(id, json_pack("{s:I}", "game",
		                                                             (json_int_t)g->id)));
	if (p->over)
		evtimer_del(g->flag_timer);
	else
		flag_arm(g);
	return 0;
}

/* ---- heartbeat ------------------------------------------------------------ */

/* One "alive at" row through the batch, so it takes the path (and the
 * thread) of every other write. */
static int alive_write(void *arg, struct store *st)
{
	return store_state_set(st, GAME_ALIVE_KEY, *(int64_t *)arg);
}
static void alive_nop(void *arg) { (void)arg; }

static const struct batch_ops alive_ops = { alive_write, alive_nop, alive_nop, free };

static void alive_record(struct games *gs)
{
	int64_t *t = malloc(sizeof *t);
	if (!t)
		abort();
	*t = wall_ms();
	/* Its own group: no game's actions depend on it. */
	batch_begin_action(gs->batch, &alive_ops, t, gs, 0, NULL);
}

static void heartbeat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct games *gs = arg;
	/* Only games with a clock need it; an idle daemon leaves the disk alone. */
	for (struct game *g = gs->live; g; g = g->next)
		if (clock_timed(&g->clock)) {
			alive_record(gs);
			break;
		}
}

/* ---- public entry points -------------------------------------------------- */

struct games *games_new(struct server *srv)
{
	struct games *gs = calloc(1, sizeof *gs);
	if (!gs)
		abort();
	gs->srv = srv;
	gs->grace_ms = GAME_ABANDON_GRACE_MS;
	/* Test hook: integration tests shorten the grace period without a flag of their own. */
	const char *env = getenv("KRIEGD_ABANDON_GRACE_MS");
	if (env && atoll(env) > 0)
		gs->grace_ms = atoll(env);
	if (srv->base) {
		gs->reaper = evtimer_new(srv->base, reaper_cb, gs);
		gs->heartbeat = event_new(srv->base, -1, EV_PERSIST, heartbeat_cb, gs);
		struct timeval tv = { GAME_HEARTBEAT_MS / 1000, (GAME_HEARTBEAT_MS % 1000) * 1000 };
		if (!gs->reaper || !gs->heartbeat || event_add(gs->heartbeat, &tv) != 0)
			abort();
	}
	gs->batch = batch_new(srv);
	return gs;
}

void games_free(struct games *gs)
{
	if (!gs)
		return;
	/* The clean-shutdown checkpoint: the clocks were running until now. */
	if (gs->live && gs->srv->store)
		alive_record(gs);
	batch_free(gs->batch);   /* commits what is open; games are still there */
	if (gs->heartbeat)
		event_free(gs->heartbeat);
	free(gs->flagged);
	while (gs->live) {
		struct game *g = gs->live;
		gs->live = g->next;
		game_free(g);
	}
	reaper_cb(-1, 0, gs);
	if (gs->reaper)
		event_free(gs->reaper);
	free(gs);
}

void games_flush(struct games *gs)
{
	if (gs)
		batch_flush(gs->batch);
}

void games_set_grace(struct games *gs, int64_t ms)
{
	if (ms > 0)
		gs->grace_ms = ms;
}

int games_user_count(const struct games *gs, int64_t user)
{
	int n = 0;
	for (const struct game *g = gs->live; g; g = g->next)
		if (g->user[WHITE] == user || g->user[BLACK] == user)
			n++;
	return n;
}

int games_start(struct server *srv, int64_t white, int64_t black, const char *rules,
                int64_t base_ms, int64_t inc_ms, int64_t days, int rated, int64_t *game_id)
{
	struct games *gs = srv->games;
	const struct ruleset *rs = ruleset_find(rules ? rules : RULESET_DEFAULT);
	if (!rs || white == black || white <= 0 || black <= 0)
		return -1;
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
	info.created_unix = (int64_t)time(NULL);
	info.result = RESULT_NONE;
	info.reason = REASON_NONE;

	/* The game row, the opening announcements and their "begin" action are one transaction. */
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
	int64_t now = game_mono_ms();
	if (referee_begin(g->ref, &out) != REF_OK) {
		evlist_free(&out);
		game_free(g);
		goto fail;
	}
	struct store_action a = { 0 };
	a.game = g->id;
	a.seq = 1;
	a.color = WHITE;
	snprintf(a.kind, sizeof a.kind, "%s", act_names[ACT_BEGIN]);
	a.at_ms = wall_ms();
	a.clock_white_ms = clock_remaining(&g->clock, WHITE, now);
	a.clock_black_ms = clock_remaining(&g->clock, BLACK, now);
	a.ok = 1;
	if (store_game_action(st, &a) != STORE_OK ||
	    (out.n && store_game_events(st, g->id, 1, out.v, out.n) != STORE_OK) ||
	    store_commit(st) != STORE_OK) {
		evlist_free(&out);
		game_free(g);
		goto fail;
	}
	g->seq = 1;
	record_push(g, ACT_BEGIN, WHITE, "");
	g->next = gs->live;
	gs->live = g;
	clock_start(&g->clock, WHITE, now);

	json_t *clk = game_clock_json(g, now);
	for (int col = WHITE; col <= BLACK; col++) {
		json_t *j = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:b}", "event", "game_start",
		                      "game", (json_int_t)g->id, "rules", rs->name,
		                      "white", g->name[WHITE], "black", g->name[BLACK],
		                      "color", game_color_name(col), "rated", rated != 0);
		json_t *t = game_time_json(&info);
		if (t)
			json_object_set_new(j, "time", t);
		if (clk)
			json_object_set(j, "clock", clk);
		conn_send_user(srv, g->user[col], j);
	}
	for (size_t i = 0; i < out.n; i++)
		route_event(g, NULL, &out.v[i], clk);
	json_decref(clk);
	evlist_free(&out);
	flag_arm(g);
	log_info("game=%" PRId64 " start rules=%s white=%" PRId64 " black=%" PRId64
	         " base_ms=%" PRId64 " inc_ms=%" PRId64 " days=%" PRId64, g->id, rs->name, white, black,
	         base_ms, inc_ms, days);
	if (game_id)
		*game_id = g->id;
	return 0;
fail:
	log_warnx("starting a game failed: %s", store_error(st));
	store_rollback(st);
	return -1;
}

/* A restart's clock readings (umpire action GAME_RESUME_KIND after the
 * record's last action): where the next restart counts from. */
struct resume_point {
	int seq;
	int64_t ms[2];
	int64_t at_ms;
	bool found;
};

static int resume_point_cb(const struct store_umpire_action *u, void *arg)
{
	struct resume_point *rp = arg;
	long long w, b;
	if (u->umpire == 0 && u->seq == rp->seq && strcmp(u->kind, GAME_RESUME_KIND) == 0 &&
	    sscanf(u->text, "%lld %lld", &w, &b) == 2 && w >= 0 && b >= 0) {
		rp->ms[WHITE] = w;
		rp->ms[BLACK] = b;
		rp->at_ms = u->at_ms;
		rp->found = true;
	}
	return 0;
}

/* Recovery: recover.c replays one unfinished game's stored actions and
 * checks the replay's events against the stored announcements; a record
 * that fails is flagged and logged there, and is not resumed here. */
static int recover_cb(const struct store_game *info, void *arg)
{
	struct games *gs = arg;
	struct recover_result rr;
	int rc = recover_game(gs->srv->store, info, &rr);
	if (rc == RECOVER_MISMATCH) {
		gs->flagged = xrealloc(gs->flagged, (gs->nflagged + 1) * sizeof *gs->flagged);
		struct flagged_game *fl = &gs->flagged[gs->nflagged++];
		fl->id = info->id;
		fl->user[WHITE] = info->white;
		fl->user[BLACK] = info->black;
		if (store_game_flagged(gs->srv->store, info->id, fl->reason, sizeof fl->reason) != STORE_OK)
			snprintf(fl->reason, sizeof fl->reason, "the record failed its check");
	}
	if (rc != RECOVER_OK)
		return 0;
	struct game *g = game_alloc(gs, info);
	if (!g) {
		log_warnx("game=%" PRId64 " cannot be recovered (rules %s)", info->id, info->rules);
		recover_result_free(&rr);
		return 0;
	}
	referee_free(g->ref);
	g->ref = rr.ref;
	rr.ref = NULL;
	for (size_t i = 0; i < rr.nacts; i++)
		record_push(g, game_act_kind_parse(rr.acts[i].kind), rr.acts[i].color, rr.acts[i].text);
	g->seq = rr.last_seq;
	g->draw_offer = rr.draw_offer;
	/* Clocks resume from their readings at the last action, less the time
	 * the side to move then thought while the daemon was still alive (up
	 * to its last heartbeat or clean shutdown); the downtime after that
	 * is charged to nobody, and the clock runs again from now. */
	int mover = referee_side_to_move(g->ref);
	if (rr.clock_ms[WHITE] >= 0) {
		struct resume_point rp = { rr.last_seq, { rr.clock_ms[WHITE], rr.clock_ms[BLACK] },
		                           rr.last_at_ms, false };
		/* An earlier restart since the last action: its readings and time. */
		if (store_umpire_actions(gs->srv->store, g->id, resume_point_cb, &rp) != STORE_OK)
			log_warnx("game=%" PRId64 " earlier restarts unreadable: %s", g->id,
			          store_error(gs->srv->store));
		int64_t *ms = rp.ms;
		int64_t thought = gs->alive_ms - rp.at_ms;
		if (clock_timed(&g->clock) && thought > 0) {
			ms[mover] = ms[mover] > thought ? ms[mover] - thought : 0;
			log_info("game=%" PRId64 " %s charged %" PRId64 " ms thought before the restart",
			         g->id, game_color_name(mover), thought);
		}
		clock_set(&g->clock, ms[WHITE], ms[BLACK]);
		/* The clocks run again from now: a later restart (before the next
		 * action) charges from here, not again across this downtime.  A
		 * server umpire action, outside the players' record. */
		if (clock_timed(&g->clock)) {
			struct store_umpire_action u = { 0 };
			u.game = g->id;
			u.seq = rr.last_seq;
			snprintf(u.kind, sizeof u.kind, "%s", GAME_RESUME_KIND);
			snprintf(u.text, sizeof u.text, "%" PRId64 " %" PRId64, ms[WHITE], ms[BLACK]);
			u.at_ms = wall_ms();
			if (store_umpire_action(gs->srv->store, &u) != STORE_OK)
				log_warnx("game=%" PRId64 " restart not recorded: %s", g->id,
				          store_error(gs->srv->store));
		}
	}
	recover_result_free(&rr);
	clock_start(&g->clock, mover, game_mono_ms());
	g->next = gs->live;
	gs->live = g;
	flag_arm(g);
	/* Nobody is connected yet: each player has the grace period to come
	 * back (games_conn_login cancels it), as after a dropped connection. */
	struct timeval tv = { (time_t)(gs->grace_ms / 1000), (suseconds_t)(gs->grace_ms % 1000) * 1000 };
	for (int col = WHITE; col <= BLACK; col++)
		evtimer_add(g->abandon_timer[col], &tv);
	log_info("game=%" PRId64 " resumed actions=%zu", g->id, g->nacts);
	return 0;
}

int games_recover(struct games *gs)
{
	int64_t alive = 0;
	if (store_state_get(gs->srv->store, GAME_ALIVE_KEY, &alive) == STORE_ERROR)
		return -1;
	gs->alive_ms = alive;
	return store_games_unfinished(gs->srv->store, recover_cb, gs) == STORE_OK ? 0 : -1;
}

struct usercount {
	int64_t user;
	uint64_t except;
	int n;
};

static void count_cb(struct conn *c, void *arg)
{
	struct usercount *uc = arg;
	if (conn_user(c) == uc->user && conn_id(c) != uc->except)
		uc->n++;
}

void games_conn_closed(struct server *srv, struct conn *c)
{
	struct games *gs = srv->games;
	int64_t uid = conn_user(c);
	if (!gs || uid <= 0)
		return;
	struct usercount uc = { uid, conn_id(c), 0 };
	conn_foreach(srv, count_cb, &uc);
	if (uc.n > 0)
		return;
	struct timeval tv = { (time_t)(gs->grace_ms / 1000), (suseconds_t)(gs->grace_ms % 1000) * 1000 };
	for (struct game *g = gs->live; g; g = g->next)
		for (int col = WHITE; col <= BLACK; col++)
			if (g->user[col] == uid && !evtimer_pending(g->abandon_timer[col], NULL))
				evtimer_add(g->abandon_timer[col], &tv);
}
