/*
 * game_view.c — a player's view of a game (the `game` request, the
 * game_state sent at login) and its paging.
 *
 * A player's view (game_state on login, the `game` request) is the
 * events sent to that player: of a live game, the lines they were told
 * (audlist.h); of a finished one, the record replayed for their audience
 * (announce_replay, announce.h), the same events, SAN included.  It is
 * paged (dispatch_page) to stay under one line.  A login's state of a
 * long game is built on the reader thread (state_fill).
 */
#include <event2/event.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "game.h"
#include "game_priv.h"
#include "jsonline.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"
#include "announce.h"
#include "auth.h"
#include "audlist.h"
#include "reader.h"
#include "xmalloc.h"

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

/*
 * A player who muted the other player does not hear their words, live
 * (chat.c) or in a view rebuilt from the record (probe: they came back in
 * the `game` view and the login's game_state).  A player hears no other
 * chat, so the colour whose `say`s go is all there is to it: muted_say
 * tells it (-1: none), drop_say drops those chat events from an array
 * (touching nothing else: the reader thread filters a login's state).
 */
static int muted_say(struct games *gs, const struct store_game *info, int color)
{
	int64_t me = color == WHITE ? info->white : info->black;
	int64_t other = color == WHITE ? info->black : info->white;
	return chat_muted(gs, me, other) ? !color : -1;
}

static void drop_say(json_t *events, int color)
{
	if (color < 0 || !json_is_array(events))
		return;
	for (size_t i = json_array_size(events); i-- > 0;) {
		json_t *e = json_array_get(events, i);
		const char *ev = json_string_value(json_object_get(e, "event"));
		const char *col = json_string_value(json_object_get(e, "color"));
		if (ev && col && strcmp(ev, "chat") == 0 &&
		    strcmp(col, color == WHITE ? "white" : "black") == 0)
			json_array_remove(events, i);
	}
}

/* An umpire's pause (clock_pause) or the players' adjournment (PROTOCOL.md
 * "Adjournment") standing: "paused"/"adjourned" into j, as every view of a
 * live game says them. */
void game_stands_json(const struct game *g, json_t *j)
{
	if (g->paused)
		json_object_set_new(j, "paused", json_true());
	if (g->adjourned)
		json_object_set_new(j, "adjourned", json_true());
}

/* A director's pairing's tournament and round into j, when it named them
 * (game_start, a player's view, the watch reply, live). */
void game_tags_json(const struct store_game *info, json_t *j)
{
	if (info->tournament[0])
		json_object_set_new(j, "tournament", json_string(info->tournament));
	if (info->round[0])
		json_object_set_new(j, "round", json_string(info->round));
}

void game_bots(struct server *srv, int64_t white, int64_t black, bool bot[2])
{
	bot[WHITE] = auth_user_is_bot(srv, white);
	bot[BLACK] = auth_user_is_bot(srv, black);
}

void game_bots_json(const bool bot[2], json_t *j)
{
	if (!bot[WHITE] && !bot[BLACK])
		return;
	json_t *bots = json_array();
	for (int k = WHITE; k <= BLACK; k++)
		if (bot[k])
			json_array_append_new(bots, json_string(game_color_name(k)));
	json_object_set_new(j, "bots", bots);
}

void game_marks_json(struct server *srv, const struct store_game *info, json_t *j)
{
	bool bot[2];
	game_tags_json(info, j);
	game_bots(srv, info->white, info->black, bot);
	game_bots_json(bot, j);
}

/* A player's view of a game but its events: who, how, and where it
 * stands (live) or how it ended.  NULL for rules the server does not know. */
static json_t *view_head(struct server *srv, const struct store_game *info,
                         const char names[2][PROTO_NAME_MAX + 1], int color,
                         const struct game *live, const struct flagged_game *fl)
{
	const struct ruleset *rs = ruleset_find(info->rules);
	if (!rs)
		return NULL;
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:s, s:b}",
	                      "game", (json_int_t)info->id, "rules", rs->name,
	                      "white", names[WHITE], "black", names[BLACK],
	                      "color", game_color_name(color), "rated", info->rated != 0);
	if (info->fen[0])
		json_object_set_new(j, "fen", json_string(info->fen));
	json_t *t = game_time_json(info);
	if (t)
		json_object_set_new(j, "time", t);
	game_marks_json(srv, info, j);
	if (live) {
		json_object_set_new(j, "live", json_true());
		json_object_set_new(j, "to_move", json_string(game_color_name(referee_side_to_move(live->ref))));
		json_object_set_new(j, "spectators", json_integer(watch_spectators(live)));
		json_t *clk = game_clock_json(live, mstime_mono());
		if (clk)
			json_object_set_new(j, "clock", clk);
		if (live->draw_offer >= 0)
			json_object_set_new(j, "draw_offer", json_string(game_color_name(live->draw_offer)));
		game_stands_json(live, j);
		if (live->adjourn_offer >= 0)
			json_object_set_new(j, "adjourn_offer",
			                    json_string(game_color_name(live->adjourn_offer)));
		json_t *aw = presence_json(live, !color);   /* the opponent away (game_presence.c) */
		if (aw)
			json_object_set_new(j, "opponent_away", aw);
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

size_t game_told_page(struct conn *c, json_t *j, struct audlist *l, size_t from, size_t end)
{
	size_t n = audlist_count(l) < end ? audlist_count(l) : end;
	size_t next = dispatch_page_built(j, "events", n, from, audlist_item, l);
	conn_rate_charge(c, (double)json_array_size(json_object_get(j, "events")) /
	                    conn_server(c)->cfg->rate_rows);
	return next;
}

/* A player's own view of a game: its head plus the page of the events
 * addressed to them that begins at `from`: of a live game, read from what
 * they were told (game_told_page, charged to c), else replayed from the
 * stored record (a flagged game's: its stored events).  NULL if the store
 * fails. */
json_t *game_view_json(struct conn *c, struct games *gs, const struct store_game *info,
                       const char names[2][PROTO_NAME_MAX + 1], int color,
                       const struct game *live, size_t from)
{
	const struct flagged_game *fl = live ? NULL : game_flagged_find(gs, info->id);
	struct store *st = gs->srv->store;
	json_t *j = view_head(gs->srv, info, names, color, live, fl);
	if (!j)
		return NULL;
	if (live && live->told[color] != NULL) {
		game_told_page(c, j, live->told[color], from, SIZE_MAX);
		/* The page's "total" and "next" count the words dropped. */
		drop_say(json_object_get(j, "events"), muted_say(gs, info, color));
		return j;
	}
	if (fl) {
		json_t *events = announce_stored(st, info, aud_of(color));
		if (!events) {
			json_decref(j);
			return NULL;
		}
		events_page(j, events, from);
		json_decref(events);
		return j;
	}
	/* Only the page's events are built (a client reads them all). */
	struct pager pg;
	pager_init(&pg, from);
	if (announce_replay_page(st, gs->srv->replays, info, aud_of(color), 0, &pg) != 0) {
		pager_free(&pg);
		json_decref(j);
		return NULL;
	}
	pager_finish(&pg, j, "events");
	/* The page's "total" and "next" count the words dropped. */
	drop_say(json_object_get(j, "events"), muted_say(gs, info, color));
	return j;
}

int games_told_record(struct conn *c, json_t *id, json_t *req,
                      void (*self)(struct conn *c, json_t *id, json_t *req), int64_t game,
                      int color, json_t *j, size_t from)
{
	struct games *gs = conn_server(c)->games;
	struct game *g = gs != NULL ? game_find(gs, game) : NULL;
	if (g == NULL || g->dead || g->told[color] == NULL)
		return 0;
	/* Not before an action they hear is committed: the list has its
	 * lines already, the connection not yet (as cmd_game). */
	if (game_must_wait(c, g, id, req, self))
		return -1;
	game_told_page(c, j, g->told[color], from, SIZE_MAX);
	return 1;
}

json_t *game_live_view(struct conn *c, struct game *g, int color, size_t from)
{
	return game_view_json(c, g->gs, &g->info, (const char (*)[PROTO_NAME_MAX + 1])g->name, color, g,
	                      from);
}

/* ---- the game_state of a login ---------------------------------------------- */

/* A login's state of one game: v (the view's head, stolen) with the first
 * page of its events `all` (borrowed) as a game_state, then the rest of
 * the list in game_events pages, each given to put (which takes it).
 * Touches nothing else: the reader thread makes them too. */
static void state_pages(json_t *v, json_t *all, int muted, void (*put)(void *arg, json_t *msg),
                        void *arg)
{
	json_int_t game = json_integer_value(json_object_get(v, "game"));
	json_object_set_new(v, "event", json_string("game_state"));
	size_t from = events_page(v, all, 0);
	/* As the `game` view's pages: "total" and "next" count the words dropped. */
	drop_say(json_object_get(v, "events"), muted);
	put(arg, v);
	while (from < json_array_size(all)) {
		json_t *p = json_pack("{s:s, s:I, s:I}", "event", "game_events", "game", game,
		                      "from", (json_int_t)from);
		from = events_page(p, all, from);
		drop_say(json_object_get(p, "events"), muted);
		put(arg, p);
	}
}

/*
 * A login's state of each game waits in the connection's paced queue as
 * a lazy gate (conn.h) with the little made at the login: the view's
 * head, where the game stood, and how many lines of the list of what the
 * player was told (audlist.h) it holds then (the game was not busy, so
 * they are committed).  Its lines are made only when the gate is first in
 * the queue and the client has read what went before (state_fill), so a
 * connection that does not read holds no pages (memory probe: 16 MB a
 * connection, 280 at 100 long games), only a reference to the list, and
 * one that reads holds one game's at a time.  Made then or now, they are
 * the same: the list's first lines with the head made at the login.  What
 * the game announces after the login goes to the connection live, as for
 * any state, and waits behind the gate, as does everything else sent to
 * it meanwhile: nothing is missed, repeated or sent ahead of the state.
 *
 * A long game's pages, tens of ms of the loop for tens of thousands of
 * events, are made on the reader thread (reader.h) from a copy of the
 * list's lines; a login is not run twice, so the gate keeps the state's
 * place while the connection goes on reading.  Neither its cost nor
 * whether it goes to the reader counts the actions the player did not
 * hear.  A game whose list a recovery could not read (NULL) is replayed
 * from the record through `through`, the last action the player heard
 * anything of (heard_seq), as before there were lists.
 */
struct state_job {
	struct server *srv;
	uint64_t conn;
	struct paced *gate;
	struct store_game info;
	unsigned aud;
	struct audlist *told;        /* the player's list, or NULL: replay through `through` */
	size_t n;                    /* its lines in the state */
	int through;
	int muted;                   /* whose words go (muted_say) */
	json_t *head;                /* the view but its events, made at the login */
	struct paced **lines;        /* the state's lines, made by state_run */
	size_t nlines, cap;
	bool failed;
	char err[256];
};

/* One line of the state, made on the reader thread or the loop. */
static void put_line(void *arg, json_t *msg)
{
	struct state_job *j = arg;
	char buf[PROTO_LINE_MAX];
	size_t n = j->failed ? 0 : jsonline_dump(msg, buf, PROTO_LINE_MAX - 1);
	json_decref(msg);
	if (j->failed)
		return;
	if (n == 0 || n > PROTO_LINE_MAX - 1) {
		snprintf(j->err, sizeof j->err, "a page could not be written");
		j->failed = true;
		return;
	}
	j->lines = xgrow(j->lines, &j->cap, j->nlines + 1, sizeof *j->lines, 64);
	j->lines[j->nlines++] = conn_paced_new(buf, n);
}

static void state_run(void *arg, struct store *st)
{
	struct state_job *j = arg;
	json_t *all = NULL;
	if (j->told != NULL) {
		all = json_array();
		for (size_t i = 0; i < j->n; i++)
			json_array_append_new(all, audlist_item(i, j->told));
	} else {
		all = announce_replay_through(st, &j->info, j->aud, 0, j->through, j->err,
		                              sizeof j->err);
	}
	if (all == NULL) {
		j->failed = true;
		return;
	}
	state_pages(j->head, all, j->muted, put_line, j);
	j->head = NULL;
	json_decref(all);
}

static void state_free(void *arg)
{
	struct state_job *j = arg;
	for (size_t i = 0; i < j->nlines; i++)
		conn_paced_free(j->lines[i]);
	audlist_unref(j->told);
	json_decref(j->head);
	free(j->lines);
	free(j);
}

static void state_done(void *arg, uint64_t rows)
{
	struct state_job *j = arg;
	struct conn *c = conn_find(j->srv, j->conn);

	if (j->failed)
		log_warnx("game=%" PRId64 " state for a login could not be read: %s", j->info.id,
		          j->err);
	if (c != NULL) {
		/* A replay's rows beyond those charged at the login. */
		if (j->told == NULL && rows > (uint64_t)j->through)
			conn_rate_charge(c, (double)(rows - (uint64_t)j->through) /
			                    j->srv->cfg->rate_rows);
		for (size_t i = 0; !j->failed && i < j->nlines; i++)
			conn_gate_put(c, j->gate, j->lines[i]);
		if (!j->failed)
			j->nlines = 0;   /* put: the connection's now */
		conn_gate_close(c, j->gate);
	}
	state_free(j);
	if (c != NULL)
		conn_pace_kick(c);   /* the next game's, if c has read this far */
}

static const struct reader_ops state_ops = { state_run, state_done };

/* What the state costs: the lines of the list it reads, or the actions
 * of the record it replays. */
static int64_t state_size(const struct state_job *j)
{
	return j->told != NULL ? (int64_t)j->n : j->through;
}

/* The gate is first and c reads: the state's lines, on the reader thread
 * for a long game (from a copy of the list: the loop goes on adding to
 * it), else now. */
static void state_fill(struct conn *c, struct paced *gate, void *arg)
{
	struct state_job *j = arg;
	j->gate = gate;
	if (reader_wants(j->srv->reader, state_size(j))) {
		log_debug("conn=%llu game=%" PRId64 " state goes to the reader lines=%zu through=%d",
		          (unsigned long long)j->conn, j->info.id, j->n, j->through);
		if (j->told != NULL) {
			struct audlist *copy = audlist_copy(j->told, j->n);
			audlist_unref(j->told);
			j->told = copy;
		}
		reader_submit(j->srv->reader, &state_ops, j);
		return;
	}
	log_debug("game=%" PRId64 " state made lines=%zu through=%d", j->info.id, j->n, j->through);
	state_run(j, j->srv->store);
	state_done(j, (uint64_t)j->through);
}

static const struct conn_gate_ops state_gate_ops = { state_fill, state_free };

/* g's state for c's login, in c's queue as a lazy gate (v stolen). */
static void state_queue(struct conn *c, struct game *g, int col, json_t *v)
{
	struct server *srv = g->gs->srv;
	struct state_job *j = xcalloc(1, sizeof *j);
	j->srv = srv;
	j->conn = conn_id(c);
	j->info = g->info;
	j->aud = aud_of(col);
	if (g->told[col] != NULL) {
		j->told = audlist_ref(g->told[col]);
		j->n = audlist_count(g->told[col]);
	}
	j->through = g->heard_seq[col];
	j->muted = muted_say(g->gs, &g->info, col);
	j->head = v;
	if (conn_gate_open_lazy(c, &state_gate_ops, j) == NULL) {
		state_free(j);
		return;
	}
	/* Charged at the login, to the connection and its address, as a
	 * request's replay handed over is (dispatch.h): logins into long
	 * games are spaced out whether or not the client reads.  A list's
	 * lines, one an event the player was told; a replay when long. */
	if (j->told != NULL)
		conn_rate_charge(c, (double)j->n / srv->cfg->rate_rows);
	else if (reader_wants(srv->reader, j->through))
		conn_rate_charge(c, (double)j->through / srv->cfg->rate_rows);
}

static void login_again(struct conn *c, json_t *id, json_t *req)
{
	games_conn_login(conn_server(c), c);
}

/* Does the connection wait for its login's game states?  Live game events
 * skip it then: the states, built after the commit, will hold them. */
bool game_conn_awaiting(const struct conn *c)
{
	return dispatch_waits_with(c, login_again);
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
	/* The umpires of its games see the player back (first connection only;
	 * not for a login of the same user again on c, conn.h). */
	follow_login(gs, c);
	if (conn_user_arrived(c)) {
		watch_connection(gs, uid, true);
		follow_presence(gs, uid, true);
	}
	/* From here its games' announcements reach it live (game_conn_awaiting). */
	for (struct game *g = gs->live; g; g = g->next) {
		for (int col = WHITE; col <= BLACK; col++) {
			if (g->user[col] != uid)
				continue;
			presence_back(g, col);
			json_t *v = view_head(gs->srv, &g->info,
			                      (const char (*)[PROTO_NAME_MAX + 1])g->name, col, g, NULL);
			if (v != NULL)
				state_queue(c, g, col, v);
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
	/* Then the messages left for them: "after the login's other events",
	 * so here and not as a hook of their own, which would run while a
	 * login awaiting a commit (above) has sent nothing yet. */
	chat_conn_login(srv, c);
	conn_pace_kick(c);   /* the first game's state */
}
