/*
 * watch.c — spectators and the umpire's chair (PROTOCOL.md, "Watching"):
 *
 *   live    {from?}        the live games one may watch
 *   watch   {game, from?}  the public stream of a live game: the replayed
 *                          AUD_SPECTATOR view so far (paged like `game`),
 *                          then its events live
 *   umpire  {game, from?}  the umpire's chair (role umpire or admin): the
 *                          full record so far, every event live with the
 *                          audience that heard it, the true board after
 *                          every move, the players' connection state
 *   unwatch {game}         leave either
 *   clock_pause, clock_unpause, add_time, adjudicate, umpire_abort, note
 *                          the umpire's actions (holder of the game's
 *                          chair only): each one action of the record
 *                          (action.h), taken by game_act like a move
 *
 * Nothing here decides what anyone may know: the referee gave every event
 * its audience, and this file only routes AUD_SPECTATOR and AUD_UMPIRE to
 * the connections that hold those seats (game.c calls
 * watch_route_recorded for every event, inside the same batch action, so
 * a watcher's events are held until the commit like a player's).  What it decides is who may
 * hold a seat:
 *   - spectator: any logged-in account that is not disabled and does not
 *     play in the game; a rated game only for umpires (a player's second
 *     account could watch it otherwise: PROTOCOL.md);
 *   - umpire: role umpire or admin, and playing in no live game at all;
 *     the chairs of an umpire are taken away when a game of theirs starts,
 *     and when `kriegd user` changes their role (games_users_changed).
 * Refusals: `forbidden` for a role or a part in a game; `no_such_game` for
 * a game that is not live (the live list is public, nothing else is).
 *
 * A seat is held by a connection (its id), not by a user: a second
 * connection of the same account has to ask for its own.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "admin.h"
#include "announce.h"
#include "auth.h"
#include "batch.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "event_json.h"
#include "fen.h"
#include "game.h"
#include "game_priv.h"
#include "line.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "speclist.h"
#include "text.h"
#include "xmalloc.h"

#define WATCH_GAME_ID_MAX (1LL << 53)
#define WATCH_EVENTS_MAX (1LL << 30)

struct watcher {
	struct watcher *next;
	uint64_t conn;
	int64_t user;
	bool umpire;
	size_t upto;        /* the catch-up's length at its first page (from 0):
	                     * what came after reached the seat live, so its
	                     * later pages end here (no event twice) */
};

/* A delayed game's public stream not yet released to its spectators: the
 * events of the last spectator_delay plies, in order (route). */
struct watch_delay {
	struct delayed {
		json_t *msg;
		int ply;      /* the ply it says */
		int seq;      /* its action's (0: none's, or one committed before the
		               * list began): a failed commit takes those from its own on */
		int64_t at;   /* when it was queued (mstime_mono) */
	} *e;
	size_t n, cap;
	int released_seq;   /* the newest action whose making released events to the
	                     * seats (held with it: lost if its commit fails) */
};

static int msg_ply(const json_t *msg)
{
	return (int)json_integer_value(json_object_get(msg, "ply"));
}

/* Queue msg (a reference, taken) at the ply it says, of action seq. */
static void delay_push(struct watch_delay *q, json_t *msg, int seq)
{
	q->e = xgrow(q->e, &q->cap, q->n + 1, sizeof *q->e, 32);
	q->e[q->n++] = (struct delayed){ msg, msg_ply(msg), seq, mstime_mono() };
}

/* ---- seats ------------------------------------------------------------- */

static struct watcher *seat_find(const struct game *g, uint64_t conn)
{
	for (struct watcher *w = g->watchers; w; w = w->next)
		if (w->conn == conn)
			return w;
	return NULL;
}

bool watch_is_spectator(const struct game *g, uint64_t conn)
{
	const struct watcher *w = seat_find(g, conn);
	return w != NULL && !w->umpire;
}

bool games_conn_spectates(const struct games *gs, int64_t game, uint64_t conn)
{
	const struct game *g = game_find(gs, game);
	return g != NULL && !g->dead && watch_is_spectator(g, conn);
}

int watch_spectators(const struct game *g)
{
	int n = 0;
	for (const struct watcher *w = g->watchers; w; w = w->next) {
		if (w->umpire)
			continue;
		const struct watcher *x = g->watchers;
		while (x != w && (x->umpire || x->user != w->user))
			x = x->next;
		n += x == w;   /* the user's first spectator's seat */
	}
	return n;
}

static void seat_remove(struct game *g, struct watcher *gone)
{
	for (struct watcher **p = &g->watchers; *p; p = &(*p)->next)
		if (*p == gone) {
			*p = gone->next;
			free(gone);
			return;
		}
}

static void delay_free(struct game *g)
{
	struct watch_delay *q = g->delay;
	if (q == NULL)
		return;
	for (size_t i = 0; i < q->n; i++)
		json_decref(q->e[i].msg);
	free(q->e);
	free(q);
	g->delay = NULL;
}

void watch_free(struct game *g)
{
	while (g->watchers) {
		struct watcher *w = g->watchers;
		g->watchers = w->next;
		free(w);
	}
	delay_free(g);
	speclist_free(g->spect);
	g->spect = NULL;
}

/* A seat taken away (not left): its holder is told why. */
static void seat_revoke(struct game *g, struct watcher *w, const char *reason)
{
	struct conn *c = conn_find(g->gs->srv, w->conn);
	if (c)
		conn_send(c, json_pack("{s:s, s:I, s:s, s:s}", "event", "unwatched", "game",
		                       (json_int_t)g->id, "seat", w->umpire ? "umpire" : "spectator",
		                       "reason", reason));
	log_info("game=%" PRId64 " user=%" PRId64 " loses the %s seat: %s", g->id, w->user,
	         w->umpire ? "umpire" : "spectator", reason);
	seat_remove(g, w);
}

void watch_game_started(struct games *gs, const int64_t user[2])
{
	for (struct game *g = gs->live; g; g = g->next)
		for (struct watcher *w = g->watchers, *next; w; w = next) {
			next = w->next;
			if (w->umpire && (w->user == user[WHITE] || w->user == user[BLACK]))
				seat_revoke(g, w, "your own game started");
		}
}

/* Plies a game's public stream reaches its spectators late: the server's
 * spectator_delay for a rated game, 0 (live) otherwise. */
static int game_delay(const struct game *g)
{
	const struct config *cfg = g->gs->srv->cfg;
	return g->info.rated && cfg != NULL ? cfg->spectator_delay : 0;
}

void watch_users_changed(struct games *gs)
{
	struct server *srv = gs->srv;
	for (struct game *g = gs->live; g; g = g->next)
		for (struct watcher *w = g->watchers, *next; w; w = next) {
			next = w->next;
			int role = auth_user_role(srv, w->user);
			if (role == AUTH_ROLE_NONE)
				seat_revoke(g, w, "the account is disabled");
			else if (role < AUTH_ROLE_UMPIRE &&
			         (w->umpire || (g->info.rated && game_delay(g) == 0)))
				/* The chair, or a rated game's live seat (seat_game). */
				seat_revoke(g, w, "the account is no longer an umpire");
		}
}

void watch_storage_failed(struct game *g, int seq)
{
	/* The failed actions' events go, the comings and goings stay. */
	if (g->spect != NULL)
		speclist_cut_from(g->spect, seq);
	struct watch_delay *q = g->delay;
	if (q == NULL)
		return;
	if (q->released_seq < seq) {
		/* Nothing was released: the failed actions' events leave the
		 * queue, and the seats hear nothing of them.  (Every seat lost
		 * its seat at any failure: a spectator learned, as it happened,
		 * that a try or a private note it is never told of was made:
		 * the delayed-seat probe.) */
		size_t n = 0;
		for (size_t i = 0; i < q->n; i++) {
			if (q->e[i].seq >= seq)
				json_decref(q->e[i].msg);
			else
				q->e[n++] = q->e[i];
		}
		q->n = n;
		return;
	}
	/* What the failed batch released is lost with it: the spectators
	 * start again from a catch-up the record and the stream agree on. */
	for (struct watcher *w = g->watchers, *next; w; w = next) {
		next = w->next;
		if (!w->umpire)
			seat_revoke(g, w, "the game could not be saved; watch again");
	}
	delay_free(g);
}

void watch_conn_closed(struct games *gs, uint64_t conn)
{
	for (struct game *g = gs->live; g; g = g->next) {
		struct watcher *w = seat_find(g, conn);
		if (w)
			seat_remove(g, w);
	}
}

/* ---- routing ------------------------------------------------------------- */

static void to_conn(struct batch_action *ba, struct server *srv, uint64_t conn, json_t *msg)
{
	if (ba) {
		batch_hold_conn(ba, conn, msg);
		return;
	}
	struct conn *c = conn_find(srv, conn);
	if (c)
		conn_send(c, msg);
	else
		json_decref(msg);
}

/* Is an event of ply `ply` released to the spectators of g?  Once the game
 * is over, everything is. */
static bool released(const struct game *g, int ply)
{
	return referee_over(g->ref) || ply <= referee_plies(g->ref) - game_delay(g);
}

/* Is g shown to a viewer as released, not as it stands?  To a spectator
 * of a delayed game still going; not to one who `sees_live` (an umpire's
 * seat; in `live`, an umpire, an admin or the game's own player). */
static bool shown_delayed(const struct game *g, bool sees_live)
{
	return !sees_live && game_delay(g) > 0 && !referee_over(g->ref);
}

/* The plies a viewer is shown as played, and the side to move then, in
 * *to_move: the game's own, or if `delayed` (shown_delayed) what is
 * released: nothing of the last N plies, so no ply count, side to move,
 * clock or pause state of theirs either. */
static int shown_plies(const struct game *g, bool delayed, int *to_move)
{
	int plies = referee_plies(g->ref), shown = plies;
	*to_move = referee_side_to_move(g->ref);
	if (delayed) {
		shown = plies > game_delay(g) ? plies - game_delay(g) : 0;
		if ((plies - shown) % 2 != 0)
			*to_move = !*to_move;
	}
	return shown;
}

static void spectators_send(struct game *g, struct batch_action *ba, const json_t *msg)
{
	/* A spectator who muted the speaker does not receive their chat (chat.c). */
	int64_t speaker = chat_speaker(g, msg);
	for (struct watcher *w = g->watchers; w; w = w->next)
		if (!w->umpire && !(speaker && chat_muted(g->gs, w->user, speaker)))
			to_conn(ba, g->gs->srv, w->conn, json_deep_copy(msg));
}

/* Queue a delayed game's public event, of action seq (0: none's), then
 * release what is due.  Its ply is the one the event says (an event or
 * notice always has it). */
static void delay_route(struct game *g, struct batch_action *ba, const json_t *msg, int seq)
{
	struct watch_delay *q = g->delay;
	delay_push(q, json_deep_copy(msg), seq);
	size_t k = 0;
	int64_t now = mstime_mono();
	while (k < q->n && released(g, q->e[k].ply)) {
		/* less the time it waited here (a review: counted from its
		 * arrival, a delayed spectator's countdown ran late by that) */
		speclist_left_since(q->e[k].msg, q->e[k].at, now);
		spectators_send(g, ba, q->e[k].msg);
		json_decref(q->e[k].msg);
		k++;
	}
	memmove(q->e, q->e + k, (q->n - k) * sizeof *q->e);
	q->n -= k;
	if (k > 0 && ba != NULL)
		q->released_seq = seq;
}

bool watch_wants(const struct game *g)
{
	return g->watchers != NULL || g->delay != NULL || g->spect != NULL;
}

/* Of a game watched live, every action its spectators hear; of a delayed
 * one, only what releases something (the game's end, or a ply past the
 * delay): one the delay still holds (a move of its first plies, a word, a
 * try) is heard plies later, and a seat's request that waited for its
 * commit told, as it was made, that it was (the delayed-seat probe). */
bool watch_shows(const struct game *g, int plies, unsigned heard)
{
	if (game_delay(g) == 0)
		return (heard & AUD_SPECTATOR) != 0;
	int now = referee_plies(g->ref);
	/* (released: ply 0's events go at ply N) */
	return referee_over(g->ref) || (now > plies && now >= game_delay(g));
}

int watch_list_begin(struct game *g, bool recovered)
{
	if (game_delay(g) == 0 || g->spect != NULL)
		return 0;
	json_t *events = NULL;
	if (recovered && (events = announce_replay(g->gs->srv->store, &g->info, AUD_SPECTATOR,
	                                           ANNOUNCE_CLOCKS)) == NULL)
		return -1;
	g->spect = speclist_new();
	size_t i;
	json_t *e;
	json_array_foreach(events, i, e)
		speclist_push_json(g->spect, e, -1);
	json_decref(events);
	/* Who is away now, as a spectator would have heard it: both players
	 * at a recovery (presence_recovered comes first), any at a list read
	 * late. */
	for (int col = WHITE; col <= BLACK; col++) {
		json_t *aw = presence_away_event(g, col);
		if (aw != NULL)
			speclist_push_json(g->spect, aw, col);
		json_decref(aw);
	}
	log_debug("game=%" PRId64 " spectators' list begun events=%zu", g->id,
	          speclist_count(g->spect));
	return 0;
}

/* An announcement (not stolen) heard by aud, of action seq (0: none's): to
 * the seats of g that hear it (umpires get it with `heard`, who heard the
 * announcement it is a copy of: event_heard), held in ba (NULL: sent now). */
static void route(struct game *g, struct batch_action *ba, unsigned aud, unsigned heard,
                  const json_t *msg, int seq)
{
	for (struct watcher *w = g->watchers; w; w = w->next)
		if (w->umpire && (aud & AUD_UMPIRE)) {
			json_t *j = json_deep_copy(msg);
			json_object_set_new(j, "audience", event_json_audience(heard));
			to_conn(ba, g->gs->srv, w->conn, j);
		}
	if (!(aud & AUD_SPECTATOR))
		return;
	/* A delayed game's queue exists from its first spectator on (take_seat
	 * fills it from the record); before that, nobody is to be sent anything. */
	if (g->delay != NULL)
		delay_route(g, ba, msg, seq);
	else if (game_delay(g) == 0)
		spectators_send(g, ba, msg);
}

void watch_route_recorded(struct game *g, struct batch_action *ba, unsigned aud, unsigned heard,
                          const json_t *msg, const struct line *l)
{
	if (g->spect != NULL && (aud & AUD_SPECTATOR) && l != NULL)
		speclist_push(g->spect, line_text(l), line_len(l), msg_ply(msg), g->seq, -1);
	route(g, ba, aud, heard, msg, g->seq);
}

void watch_route_presence(struct game *g, int col, bool away, const json_t *msg)
{
	/* A player back with nothing listed since they left takes the away
	 * out instead (speclist_fold_back). */
	struct speclist *l = g->spect;
	if (l != NULL && (away || !speclist_fold_back(l, col)))
		speclist_push_json(l, msg, away ? col : -1);
	/* The chairs too: their reply's `away` was all they heard of a
	 * deadline, which a pause takes away and an unpause gives again (the
	 * director probe: a chair counted down to an abandonment that was not
	 * coming).  Heard by the other player, the spectators and the umpires. */
	route(g, NULL, AUD_SPECTATOR | AUD_UMPIRE, aud_of(!col) | AUD_SPECTATOR | AUD_UMPIRE, msg, 0);
}


static json_t *board_json(const struct game *g)
{
	char fen[FEN_MAX];
	fen_format(referee_board(g->ref), fen, sizeof fen);
	return json_pack("{s:s, s:I, s:s, s:i}", "event", "board", "game", (json_int_t)g->id, "fen",
	                 fen, "ply", referee_plies(g->ref));
}

void watch_board(struct game *g, struct batch_action *ba)
{
	for (struct watcher *w = g->watchers; w; w = w->next)
		if (w->umpire)
			to_conn(ba, g->gs->srv, w->conn, board_json(g));
}

void watch_connection(struct games *gs, int64_t uid, bool connected)
{
	for (struct game *g = gs->live; g; g = g->next)
		for (int col = WHITE; col <= BLACK; col++) {
			if (g->user[col] != uid)
				continue;
			for (struct watcher *w = g->watchers; w; w = w->next)
				if (w->umpire)
					to_conn(NULL, gs->srv, w->conn,
					        json_pack("{s:s, s:I, s:s, s:b}", "event", "connection", "game",
					                  (json_int_t)g->id, "color", game_color_name(col),
					                  "connected", connected));
		}
}

/* ---- requests ---------------------------------------------------------- */

/*
 * A request that waits until the game has no uncommitted action: the
 * replayed view so far and the live events after it meet without a gap
 * (an action in the batch was routed to the seats that existed then).
 * It goes on as in its request: charged, and able to go to the reader.
 * A spectator waits only for actions that change what it is shown
 * (watch_shows), and for the commit of the newest of them, not for every
 * action opened so far: waiting for one it does not hear (an icc illegal
 * try, a draw offer) told its timing (probe: 1.3 ms against 4.7 ms), and
 * in a delayed game one the delay holds; the umpire hears them all (of
 * its game: not other games').
 */
static bool must_wait(struct conn *c, const struct game *g, bool umpire, json_t *id, json_t *req,
                      dispatch_proceed_fn proceed)
{
	/* (Behind the connection's waiting requests it waited already: every
	 * seat request names its game, srv->game_waits.) */
	unsigned tags = umpire ? BATCH_TAG_ANY : GAME_TAG_SPECTATORS;
	/* A delayed game whose list could not be read at its recovery has
	 * it read from the record at its first seat (seat_view): an action
	 * not yet committed is not there, and would be in neither the list
	 * nor the queue (a review).  That read waits for every action. */
	if (!umpire && game_delay(g) > 0 && g->spect == NULL)
		tags = BATCH_TAG_ANY;
	if (!batch_holds(g->gs->batch, g, tags))
		return false;
	struct dispatch_later *l = dispatch_wait_first(c, id, req, proceed);
	if (l != NULL)
		batch_after_tagged(g->gs->batch, g, tags, dispatch_later_run, l);
	return true;
}

bool watch_must_wait(struct conn *c, const struct game *g, json_t *id, json_t *req,
                     void (*proceed)(struct conn *c, json_t *id, json_t *req))
{
	return must_wait(c, g, false, id, req, proceed);
}

/* The live game of a watch/umpire request, or NULL with the refusal sent. */
static struct game *seat_game(struct conn *c, json_t *id, json_t *req, bool umpire, int *role)
{
	struct server *srv = conn_server(c);
	int64_t uid = conn_user(c);
	json_int_t gid = json_integer_value(json_object_get(req, "game"));
	struct game *g = game_find(srv->games, gid);
	*role = auth_user_role(srv, uid);
	if (*role == AUTH_ROLE_NONE) {
		dispatch_error(c, id, PE_FORBIDDEN, "this account may not watch");
		return NULL;
	}
	if (umpire && *role < AUTH_ROLE_UMPIRE) {
		dispatch_error(c, id, PE_FORBIDDEN, "only umpires and admins take the umpire's chair");
		return NULL;
	}
	/* Checked before the game is looked at: the refusal says nothing of it. */
	if (umpire && games_user_count(srv->games, uid) > 0) {   /* plays a live game (history.c too) */
		dispatch_error(c, id, PE_FORBIDDEN, "an umpire who plays a live game cannot umpire");
		return NULL;
	}
	if (g == NULL || g->dead) {
		dispatch_error(c, id, PE_NO_SUCH_GAME, "no such live game");
		return NULL;
	}
	if (g->user[WHITE] == uid || g->user[BLACK] == uid) {
		dispatch_error(c, id, PE_FORBIDDEN, "you play in this game");
		return NULL;
	}
	if (!umpire && g->info.rated && *role < AUTH_ROLE_UMPIRE && game_delay(g) == 0) {
		dispatch_error(c, id, PE_FORBIDDEN, "rated games are watched live by umpires only");
		return NULL;
	}
	return g;
}

/* A spectator who muted a speaker does not hear their words in the
 * catch-up either (spectators_send for the live ones; probe: they came
 * back on a second connection's `watch`).  The page's "total" and "next"
 * count the words dropped. */
static void drop_muted(struct game *g, int64_t viewer, json_t *events)
{
	for (size_t i = json_array_size(events); i-- > 0;) {
		int64_t speaker = chat_speaker(g, json_array_get(events, i));
		if (speaker && chat_muted(g->gs, viewer, speaker))
			json_array_remove(events, i);
	}
}

/* Is a seat's catch-up read from what the spectators were told
 * (audlist.h), not replayed?  A spectator's of a game not delayed. */
static bool seat_told(const struct game *g, bool umpire)
{
	return !umpire && game_delay(g) == 0 && g->told[HEARD_SPECTATORS] != NULL;
}

/* The seat's view for c's user: its catch-up's page from `from`, the
 * list cut at `end` (SIZE_MAX: the whole list so far), whose length goes
 * to *total. */
static json_t *seat_view(struct conn *c, struct game *g, bool umpire, size_t from, size_t end,
                         size_t *total)
{
	struct store *st = g->gs->srv->store;
	int64_t viewer = conn_user(c);
	unsigned aud = umpire ? AUD_UMPIRE : AUD_SPECTATOR;
	unsigned how = umpire ? ANNOUNCE_AUDIENCE : 0;
	/* Only the page's events are built: for a spectator read from what
	 * the spectators were told (game_told_page) or, of a delayed game,
	 * from its list, which is cut at what is released and fills the
	 * seats' queue; for the umpire replayed (announce_replay_page). */
	bool told = seat_told(g, umpire);
	bool paged = !told && (umpire || game_delay(g) == 0);
	struct pager pg;
	size_t keep = 0;
	json_t *page = NULL;
	if (told) {
		page = json_object();
		game_told_page(c, page, g->told[HEARD_SPECTATORS], from, end);
		*total = (size_t)json_integer_value(json_object_get(page, "total"));
	} else if (paged) {
		pager_init(&pg, from);
		pg.end = end;
		if (announce_replay_page(st, g->gs->srv->replays, &g->info, aud, how, &pg) != 0) {
			pager_free(&pg);
			return NULL;
		}
	} else {
		/* A list that could not be read at the recovery is read now. */
		if (g->spect == NULL && watch_list_begin(g, true) != 0)
			return NULL;
		const struct speclist *l = g->spect;
		size_t n = speclist_count(l);
		while (keep < n && released(g, speclist_ply(l, keep)))
			keep++;
		/* The rest is the queue, filled here at the first spectator:
		 * the game has no uncommitted action that released anything
		 * (watch_shows), and one the delay holds, made with no queue to
		 * enter, is in the list and enters it here, so the list and
		 * the stream agree. */
		if (g->delay == NULL) {
			struct watch_delay *q = xcalloc(1, sizeof *q);
			g->delay = q;
			for (size_t i = keep; i < n; i++)
				delay_push(q, speclist_item(i, g->spect), speclist_seq(l, i));
		}
		if (keep > end)
			keep = end;
		log_debug("game=%" PRId64 " catch-up from the spectators' list events=%zu", g->id, keep);
	}
	/* A delayed game's spectator is shown the state of what is released. */
	bool delayed = shown_delayed(g, umpire);
	int to_move;
	int ply = shown_plies(g, delayed, &to_move);
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:b, s:s, s:i, s:s}", "game", (json_int_t)g->id,
	                      "rules", g->rs->name, "white", g->name[WHITE], "black", g->name[BLACK],
	                      "rated", g->info.rated != 0, "seat", umpire ? "umpire" : "spectator",
	                      "ply", ply, "to_move", game_color_name(to_move));
	if (told) {
		json_object_update(j, page);
		json_decref(page);
	} else if (paged) {
		pager_finish(&pg, j, "events");
		*total = pg.n;
	} else {
		dispatch_page_built(j, "events", keep, from, speclist_page_item, g->spect);
		*total = keep;
	}
	if (!umpire)
		drop_muted(g, viewer, json_object_get(j, "events"));
	if (g->info.fen[0])
		json_object_set_new(j, "start_fen", json_string(g->info.fen));
	json_t *t = game_time_json(&g->info);
	if (t)
		json_object_set_new(j, "time", t);
	game_marks_json(g->gs->srv, &g->info, j);
	json_t *clk = delayed ? NULL : game_clock_json(g, mstime_mono());
	if (clk)
		json_object_set_new(j, "clock", clk);
	/* how far behind the seat is shown, said (the page probe: the page
	 * could only guess, and guessed wrong for an admin's live seat) */
	if (delayed)
		json_object_set_new(j, "delay", json_integer(game_delay(g)));
	if (umpire) {
		char fen[FEN_MAX];
		fen_format(referee_board(g->ref), fen, sizeof fen);
		json_object_set_new(j, "fen", json_string(fen));
		struct server *srv = g->gs->srv;
		json_object_set_new(j, "connected",
		                    json_pack("{s:b, s:b}",
		                              "white", conn_of_user(srv, g->user[WHITE], NULL) != NULL,
		                              "black", conn_of_user(srv, g->user[BLACK], NULL) != NULL));
		if (g->draw_offer >= 0)
			json_object_set_new(j, "draw_offer", json_string(game_color_name(g->draw_offer)));
	}
	if (delayed)
		return j;
	game_stands_json(g, j);
	/* The players away now: the stream's opponent_away tells only the
	 * changes, and a seat taken after one heard nothing of it. */
	json_t *away = NULL;
	for (int col = WHITE; col <= BLACK; col++) {
		json_t *aw = presence_json(g, col);
		if (aw == NULL)
			continue;
		if (away == NULL) {
			away = json_object();
			json_object_set_new(j, "away", away);   /* j holds it; filled below */
		}
		json_object_set_new(away, game_color_name(col), aw);
	}
	return j;
}

static void take_seat(struct conn *c, json_t *id, json_t *req, bool umpire,
                      void (*self)(struct conn *c, json_t *id, json_t *req))
{
	int role;
	struct game *g = seat_game(c, id, req, umpire, &role);
	if (!g || must_wait(c, g, umpire, id, req, self))
		return;
	struct watcher *w = seat_find(g, conn_id(c));
	if (w && w->umpire != umpire) {
		/* The other seat of this game is exchanged for this one (a
		 * director watching a board who must act on it): a new seat,
		 * its catch-up from the start. */
		seat_remove(g, w);
		w = NULL;
	}
	/* A long replay for a paged view (seat_view) is made off the loop. */
	if (!seat_told(g, umpire) && (umpire || game_delay(g) == 0) &&
	    announce_offload_marks(c, &g->info))
		return;
	/* A held seat's later pages (`from` past 0) end where its catch-up
	 * began; a request from 0 (the seat's first, or a reader starting
	 * over) is the list so far, and sets that end. */
	size_t from = dispatch_from(req);
	bool cut = w != NULL && from > 0;
	size_t total;
	json_t *v = seat_view(c, g, umpire, from, cut ? w->upto : SIZE_MAX, &total);
	if (!v) {
		dispatch_error(c, id, PE_STORAGE, "the game could not be read");
		return;
	}
	if (!w) {
		w = xcalloc(1, sizeof *w);
		w->conn = conn_id(c);
		w->user = conn_user(c);
		w->umpire = umpire;
		w->next = g->watchers;
		g->watchers = w;
		log_info("game=%" PRId64 " user=%" PRId64 " takes the %s seat", g->id, w->user,
		         umpire ? "umpire" : "spectator");
	}
	if (!cut)
		w->upto = total;
	dispatch_ok(c, id, v);
}

static void cmd_watch(struct conn *c, json_t *id, json_t *req)
{
	take_seat(c, id, req, false, cmd_watch);
}

static void cmd_umpire(struct conn *c, json_t *id, json_t *req)
{
	take_seat(c, id, req, true, cmd_umpire);
}

static void cmd_unwatch(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	json_int_t gid = json_integer_value(json_object_get(req, "game"));
	struct game *g = game_find(srv->games, gid);
	struct watcher *w = g ? seat_find(g, conn_id(c)) : NULL;
	/* After the commit in progress, as the seat was taken: what that
	 * action routed to the seat arrives before the ok, nothing after it
	 * (probe: its events followed the ok).  And after the connection's
	 * `watch` still waiting, before it says there is no seat (probe). */
	if (g != NULL && must_wait(c, g, w != NULL && w->umpire, id, req, cmd_unwatch))
		return;
	if (!w) {
		dispatch_error(c, id, PE_NO_SUCH_GAME, "not watching that game");
		return;
	}
	seat_remove(g, w);
	dispatch_ok(c, id, json_pack("{s:I}", "game", (json_int_t)gid));
}

/* The live games, newest first; only a page of them is built. */
struct live_list {
	struct game **games;
	size_t n, cap;
	int64_t now;
	bool umpire;        /* the asker may take a chair: every game as it stands */
	int64_t user;       /* the asker: their own games as they stand */
};

static json_t *live_item(size_t i, void *arg)
{
	const struct live_list *ll = arg;
	const struct game *g = ll->games[i];
	int64_t now = ll->now;
	/* A delayed game as its spectators are shown it (seat_view). */
	bool delayed = shown_delayed(g, ll->umpire || g->user[WHITE] == ll->user ||
	                                    g->user[BLACK] == ll->user);
	int to_move;
	int ply = shown_plies(g, delayed, &to_move);
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:b, s:i, s:s, s:i}", "game", (json_int_t)g->id,
	                      "rules", g->rs->name, "white", g->name[WHITE], "black",
	                      g->name[BLACK], "rated", g->info.rated != 0, "ply", ply, "to_move",
	                      game_color_name(to_move), "spectators", watch_spectators(g));
	json_t *t = game_time_json(&g->info);
	if (t)
		json_object_set_new(j, "time", t);
	game_marks_json(g->gs->srv, &g->info, j);
	json_t *clk = delayed ? NULL : game_clock_json(g, now);
	if (clk)
		json_object_set_new(j, "clock", clk);
	/* Live facts, as the watch reply has them: not a delayed game's. */
	if (!delayed)
		game_stands_json(g, j);
	return j;
}

static void cmd_live(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	/* An umpire who plays a live game sees the others as a spectator
	 * does, as the chair and the record refuse such an umpire (spectators
	 * probe: `live` gave a delayed rated game's true ply, side and clocks). */
	struct live_list ll = { .now = mstime_mono(), .user = conn_user(c),
		                .umpire = auth_user_role(srv, conn_user(c)) >= AUTH_ROLE_UMPIRE &&
		                          games_user_count(srv->games, conn_user(c)) == 0 };

	for (struct game *g = srv->games->live; g; g = g->next) {
		if (g->dead)
			continue;
		ll.games = xgrow(ll.games, &ll.cap, ll.n + 1, sizeof *ll.games, 64);
		ll.games[ll.n++] = g;
	}
	json_t *j = dispatch_page_of(req, "games", ll.n, live_item, &ll);
	free(ll.games);
	dispatch_ok(c, id, j);
}

/* ---- the umpire's actions ------------------------------------------------ */

/* The live game of an umpire action, if c holds its chair; NULL with the
 * refusal sent, or with the request kept to run again (proceed) after the
 * commit in progress: the chair hears every action, so it is answered
 * after the announcements of any action being committed, as a player's
 * request waits for one it hears (probe: a flag's fall read just ahead
 * answered a pause game_over before the umpire had heard the game end).
 * The role was checked before anything else (CMD_UMPIRE), so a refusal
 * for it names nothing of the game. */
static struct game *chair_game(struct conn *c, json_t *id, json_t *req,
                               void (*proceed)(struct conn *c, json_t *id, json_t *req))
{
	struct server *srv = conn_server(c);
	struct game *g = game_find(srv->games, json_integer_value(json_object_get(req, "game")));
	if (g == NULL || g->dead) {
		dispatch_error(c, id, PE_NO_SUCH_GAME, "no such live game");
		return NULL;
	}
	struct watcher *w = seat_find(g, conn_id(c));
	if (w == NULL || !w->umpire) {
		dispatch_error(c, id, PE_FORBIDDEN, "take the umpire's chair of this game first");
		return NULL;
	}
	return must_wait(c, g, true, id, req, proceed) ? NULL : g;
}

/* Record and announce one umpire action (game_act, the path of every action). */
static void umpire_act(struct conn *c, json_t *id, json_t *req, int kind, int color,
                       struct action_umpire *u, void (*self)(struct conn *c, json_t *id, json_t *req))
{
	struct game *g = chair_game(c, id, req, self);
	if (g == NULL)
		return;
	struct action a;
	/* Taken as chat's text is (PROTOCOL.md): the limit is the normalised
	 * text's, not the request's (the refusals probe: 199 letters and 5
	 * spaces were refused here and accepted by `say`). */
	char reason[ACTION_REASON_MAX + 1];
	bool plain = u->reason == NULL || action_text_in(u->reason, reason, sizeof reason) == REF_OK;
	if (plain && u->reason != NULL)
		u->reason = reason;
	if (!plain || action_set_umpire(&a, kind, color, u) != REF_OK) {
		dispatch_error(c, id, PE_BAD_REQUEST, "%s: " TEXT_RULE, kind == ACTION_NOTE ? "text" : "reason",
		               ACTION_REASON_MAX);
		return;
	}
	/* Logged, and an admin's ending audited, once the game took it (a
	 * refusal is not an action: the director probe read a refused second
	 * pause in the log as a pause; a commit that then fails, rare, leaves
	 * the row and the line). */
	if (game_act(g, a.kind, a.color, a.text, c, id, NULL) != 0)
		return;
	log_info("game=%" PRId64 " user=%" PRId64 " umpire %s", g->id, conn_user(c),
	         action_kind_name(kind));
	if (kind == ACTION_ADJUDGE || kind == ACTION_UABORT)
		admin_audit_game(c, g->id, action_kind_name(kind), a.text);
}

static const char *req_str(json_t *req, const char *key)
{
	return json_string_value(json_object_get(req, key));
}

static void cmd_clock_pause(struct conn *c, json_t *id, json_t *req)
{
	struct action_umpire u = { .reason = req_str(req, "reason") };
	umpire_act(c, id, req, ACTION_PAUSE, -1, &u, cmd_clock_pause);
}

static void cmd_clock_unpause(struct conn *c, json_t *id, json_t *req)
{
	struct action_umpire u = { .reason = req_str(req, "reason") };
	umpire_act(c, id, req, ACTION_UNPAUSE, -1, &u, cmd_clock_unpause);
}

static void cmd_add_time(struct conn *c, json_t *id, json_t *req)
{
	const char *col = req_str(req, "color");
	int color = strcmp(col, "white") == 0 ? WHITE : strcmp(col, "black") == 0 ? BLACK : -1;
	json_int_t secs = json_integer_value(json_object_get(req, "seconds"));   /* 1.. (the table) */
	if (color < 0) {
		dispatch_error(c, id, PE_BAD_REQUEST, "color: white or black");
		return;
	}
	struct action_umpire u = { .seconds = (int)secs, .reason = req_str(req, "reason") };
	umpire_act(c, id, req, ACTION_ADDTIME, color, &u, cmd_add_time);
}

static void cmd_adjudicate(struct conn *c, json_t *id, json_t *req)
{
	int res = game_result_parse(req_str(req, "result"));
	if (res != RESULT_WHITE && res != RESULT_BLACK && res != RESULT_DRAW) {
		dispatch_error(c, id, PE_BAD_REQUEST, "result: 1-0, 0-1 or 1/2-1/2");
		return;
	}
	struct action_umpire u = { .result = res, .reason = req_str(req, "reason") };
	umpire_act(c, id, req, ACTION_ADJUDGE, -1, &u, cmd_adjudicate);
}

static void cmd_umpire_abort(struct conn *c, json_t *id, json_t *req)
{
	struct action_umpire u = { .reason = req_str(req, "reason") };
	umpire_act(c, id, req, ACTION_UABORT, -1, &u, cmd_umpire_abort);
}

static void cmd_note(struct conn *c, json_t *id, json_t *req)
{
	struct action_umpire u = { .public = json_is_true(json_object_get(req, "public")),
	                           .reason = req_str(req, "text") };
	umpire_act(c, id, req, ACTION_NOTE, -1, &u, cmd_note);
}

/* tournament_note's answer, sent once the notes' turn is committed: the
 * games whose note was kept.  A note is undone with its game's earlier
 * action that failed in the turn before (batch.h's group rule) or with its
 * own turn, and a seq is used again after an undo, so each game's undos
 * are counted instead (a review: the notes of other games in the same
 * turn may be kept while one is undone). */
struct note_told {
	int64_t game;
	unsigned undos;   /* the game's when its note was taken */
};
struct note_answer {
	struct server *srv;
	uint64_t conn;
	json_t *id;
	size_t n;
	struct note_told told[];
};

static void note_answered(void *arg)
{
	struct note_answer *k = arg;
	struct conn *c = conn_find(k->srv, k->conn);
	if (c != NULL) {
		json_t *kept = json_array();
		for (size_t i = 0; i < k->n; i++) {
			const struct game *g = game_find(k->srv->games, k->told[i].game);
			if (g == NULL || g->undos == k->told[i].undos)   /* NULL: it ended since, the note kept */
				json_array_append_new(kept, json_integer(k->told[i].game));
		}
		if (json_array_size(kept) == 0) {
			json_decref(kept);
			dispatch_error(c, k->id, PE_STORAGE, "the notes could not be saved; nothing was changed");
		} else {
			dispatch_ok(c, k->id, json_pack("{s:o}", "games", kept));
		}
	}
	json_decref(k->id);
	free(k);
}

/*
 * tournament_note {tournament, text, round?}: a public note in every live
 * game of a director's tournament (of that round, when named), as `note`
 * would put it in each: a director spoke to one board at a time, taking
 * each chair (TD probe).  The umpire's role is enough (CMD_UMPIRE); no
 * chair is needed, as nothing of the games comes back: the answer lists
 * the games told, after their notes (a chair held hears them).  Each
 * game's note is its own action, in its record.
 */
static void cmd_tournament_note(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	char name[PROTO_TOURNAMENT_MAX + 1], text[ACTION_REASON_MAX + 1];
	const char *round = req_str(req, "round");
	struct action a;
	if (!proto_tournament_name(req_str(req, "tournament"), name, sizeof name)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "tournament: " TEXT_RULE, PROTO_TOURNAMENT_MAX);
		return;
	}
	if (round && !proto_round_ok(round)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "round: digits and dots, as \"3\" or \"2.1\"");
		return;
	}
	struct action_umpire u = { .public = true, .reason = text };
	if (action_text_in(req_str(req, "text"), text, sizeof text) != REF_OK ||
	    action_set_umpire(&a, ACTION_NOTE, -1, &u) != REF_OK) {
		dispatch_error(c, id, PE_BAD_REQUEST, "text: " TEXT_RULE, ACTION_REASON_MAX);
		return;
	}
	/* The name as pair keeps it, matched as the tournament's table
	 * matches it: in any case of ASCII. */
	struct note_told *told = NULL;
	size_t n = 0, cap = 0;
	for (struct game *g = srv->games->live; g; g = g->next)
		if (!g->dead && strcasecmp(g->info.tournament, name) == 0 &&
		    (round == NULL || strcmp(g->info.round, round) == 0) &&
		    game_act(g, a.kind, a.color, a.text, NULL, NULL, NULL) == 0) {
			told = xgrow(told, &cap, n + 1, sizeof *told, 16);
			told[n++] = (struct note_told){ g->id, g->undos };
		}
	if (n == 0) {
		dispatch_error(c, id, PE_NO_SUCH_GAME, "no live game of that tournament%s", round ? " and round" : "");
		return;
	}
	log_info("user=%" PRId64 " umpire tournament_note games=%zu", conn_user(c), n);
	/* Answered after the notes' commit, as an action's requester is: a
	 * director holding a chair of one of the games hears its note first
	 * (protocol probe: the ok came before the umpire_note); listing the
	 * games whose note was kept, `storage` when none was. */
	struct note_answer *k = xmalloc(sizeof *k + n * sizeof *told);
	k->srv = srv;
	k->conn = conn_id(c);
	k->id = json_incref(id);
	k->n = n;
	memcpy(k->told, told, n * sizeof *told);
	free(told);
	games_after_commits(srv, note_answered, k);
}

static const struct field f_reason[] = {
	{ "game", F_INT, 1, WATCH_GAME_ID_MAX },
	{ "reason", F_STRING, 1, ACTION_TEXT_IN_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_add_time[] = {
	{ "game", F_INT, 1, WATCH_GAME_ID_MAX },
	{ "color", F_STRING, 1, 5 },
	{ "seconds", F_COUNT, 1, ACTION_ADDTIME_MAX_S },
	{ "reason", F_STRING, 1, ACTION_TEXT_IN_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_adjudicate[] = {
	{ "game", F_INT, 1, WATCH_GAME_ID_MAX },
	{ "result", F_STRING, 1, 7 },
	{ "reason", F_STRING, 1, ACTION_TEXT_IN_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_note[] = {
	{ "game", F_INT, 1, WATCH_GAME_ID_MAX },
	{ "text", F_STRING, 1, ACTION_TEXT_IN_MAX },
	{ "public", F_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};

static const struct field f_tournament_note[] = {
	{ "tournament", F_STRING, 1, PROTO_TOURNAMENT_MAX },
	{ "text", F_STRING, 1, ACTION_TEXT_IN_MAX },
	{ "round", F_STRING, 0, PROTO_ROUND_MAX },
	{ NULL, 0, 0, 0 },
};

static const struct field f_seat[] = {
	{ "game", F_INT, 1, WATCH_GAME_ID_MAX },
	{ "from", F_INT, 0, WATCH_EVENTS_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_unwatch[] = {
	{ "game", F_INT, 1, WATCH_GAME_ID_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_live[] = {
	{ "from", F_INT, 0, DISPATCH_FROM_MAX },
	{ NULL, 0, 0, 0 },
};

const struct cmd watch_cmds[] = {
	{ "live", 0, f_live, cmd_live },
	{ "watch", CMD_REPLAYS, f_seat, cmd_watch },
	{ "umpire", CMD_REPLAYS, f_seat, cmd_umpire },
	{ "unwatch", 0, f_unwatch, cmd_unwatch },
	{ "clock_pause", CMD_UMPIRE, f_reason, cmd_clock_pause },
	{ "clock_unpause", CMD_UMPIRE, f_reason, cmd_clock_unpause },
	{ "add_time", CMD_UMPIRE, f_add_time, cmd_add_time },
	{ "adjudicate", CMD_UMPIRE, f_adjudicate, cmd_adjudicate },
	{ "umpire_abort", CMD_UMPIRE, f_reason, cmd_umpire_abort },
	{ "note", CMD_UMPIRE, f_note, cmd_note },
	{ "tournament_note", CMD_UMPIRE, f_tournament_note, cmd_tournament_note },
	{ NULL, 0, NULL, NULL },
};
