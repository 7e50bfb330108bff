/*
 * client.c — state and dispatch of the terminal client (see client.h).
 */
#include "client.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "event_json.h"
#include "fen.h"
#include "notation.h"

__attribute__((format(printf, 2, 3)))
static void out(struct client *c, const char *fmt, ...)
{
	char buf[2048];
	if (c->batch)
		return;   /* scripts read the protocol lines; words go nowhere */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (c->print)
		c->print(c->ctx, buf);
}

__attribute__((format(printf, 2, 3)))
static int error(struct client *c, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	c->errors++;
	if (c->print)
		c->print(c->ctx, buf);
	return -1;
}

void client_init(struct client *c)
{
	memset(c, 0, sizeof *c);
	c->next_id = 1;
	c->current = -1;
	c->last_challenge = -1;
	c->ropts.bottom = WHITE;
	c->ropts.audience = AUD_WHITE;
	c->evnames = calloc(CLIENT_EVENTS_MAX, sizeof *c->evnames);
	if (!c->evnames)
		abort();
}

static void pgn_reset(struct client *c)
{
	free(c->pgn);
	c->pgn = NULL;
	c->pgn_len = 0;
	c->pgn_file[0] = '\0';
	c->pgn_busy = false;
}

void client_free(struct client *c)
{
	free(c->evnames);
	c->evnames = NULL;
	pgn_reset(c);
	memset(c->token, 0, sizeof c->token);
}

static long now(const struct client *c)
{
	return c->now ? c->now(c->ctx) : 0;
}

/* --- games ----------------------------------------------------------------- */

struct cgame *client_game(struct client *c, long id)
{
	for (int i = 0; i < CLIENT_GAMES_MAX; i++)
		if (c->games[i].used && c->games[i].id == id)
			return &c->games[i];
	return NULL;
}

struct cgame *client_current(struct client *c)
{
	return c->current >= 0 ? client_game(c, c->current) : NULL;
}

/* Logged out, or logged in as someone else: nothing of the last user's games stays on screen. */
static void forget_games(struct client *c)
{
	memset(c->games, 0, sizeof c->games);
	c->current = -1;
	c->last_challenge = -1;
}

/* A slot for a new game: a free one, else the oldest finished one. */
static struct cgame *game_slot(struct client *c, long id)
{
	struct cgame *g = client_game(c, id);
	if (g)
		return g;
	for (int i = 0; i < CLIENT_GAMES_MAX; i++)
		if (!c->games[i].used)
			return &c->games[i];
	for (int i = 0; i < CLIENT_GAMES_MAX; i++)
		if (!c->games[i].live && c->games[i].id != c->current)
			return &c->games[i];
	return NULL;
}

static int color_parse(const char *s)
{
	if (!s)
		return -1;
	return !strcmp(s, "white") ? WHITE : !strcmp(s, "black") ? BLACK : -1;
}

long client_clock(const struct client *c, const struct cgame *g, int color)
{
	if (!g->timed || g->clock_ms[color] < 0)
		return -1;
	long v = g->clock_ms[color];
	if (g->live && g->view.to_move == color && !g->view.over)
		v -= now(c) - g->clock_at;
	return v < 0 ? 0 : v;
}

static void read_clock(struct client *c, struct cgame *g, const json_t *msg)
{
	json_t *clk = json_object_get(msg, "clock");
	json_t *w = json_object_get(clk, "white"), *b = json_object_get(clk, "black");
	if (!json_is_number(w) || !json_is_number(b))
		return;
	g->clock_ms[WHITE] = (long)json_number_value(w);
	g->clock_ms[BLACK] = (long)json_number_value(b);
	g->timed = g->clock_ms[WHITE] >= 0 && g->clock_ms[BLACK] >= 0;
	g->clock_at = now(c);
}

static void game_log(struct cgame *g, const char *text)
{
	snprintf(g->log[g->log_n % CLIENT_LOG_MAX], WORDS_MAX, "%s", text);
	g->log_n++;
}

void client_render(const struct client *c, const struct cgame *g, char *buf, size_t len)
{
	struct render_opts ro = c->ropts;
	ro.bottom = g->color;
	ro.audience = aud_of(g->color);
	size_t n = render_board(&g->view.own, &g->ghosts, &ro, buf, len);
	int first = g->log_n > CLIENT_LOG_MAX ? g->log_n - CLIENT_LOG_MAX : 0;
	for (int i = first; i < g->log_n && n < len; i++) {
		int w = snprintf(buf + n, len - n, "  %s\n", g->log[i % CLIENT_LOG_MAX]);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (n >= len)
		n = len - 1;
	/* no trailing newline: print() adds one */
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
}

static void show_board(struct client *c, const struct cgame *g)
{
	if (c->batch || !c->print)
		return;
	char buf[RENDER_BOARD_MAX + CLIENT_LOG_MAX * (WORDS_MAX + 4)];
	client_render(c, g, buf, sizeof buf);
	c->print(c->ctx, buf);
}

void client_prompt(const struct client *c, char *buf, size_t len)
{
	const struct cgame *g = NULL;
	for (int i = 0; i < CLIENT_GAMES_MAX; i++)
		if (c->games[i].used && c->games[i].id == c->current)
			g = &c->games[i];
	if (!g) {
		snprintf(buf, len, "%s%skrieg> ", c->logged_in ? c->user : "",
		         c->logged_in ? " " : "");
		return;
	}
	char wc[RENDER_CLOCK_MAX] = "-", bc[RENDER_CLOCK_MAX] = "-";
	long w = client_clock(c, g, WHITE), b = client_clock(c, g, BLACK);
	if (w >= 0)
		render_clock(w, wc);
	if (b >= 0)
		render_clock(b, bc);
	const char *turn = !g->live || g->view.over ? "game over"
	                 : g->view.to_move == g->color ? "your move" : "their move";
	if (g->timed)
		snprintf(buf, len, "[#%ld White %s | Black %s | %s] > ", g->id, wc, bc, turn);
	else
		snprintf(buf, len, "[#%ld %s | %s] > ", g->id, words_side(g->color), turn);
}

/* --- deferred words ------------------------------------------------------------ */

static void flush_game(struct client *c, struct cgame *g)
{
	if (g->redraw) {
		g->redraw = false;
		if (g->id == c->current)
			show_board(c, g);
	}
	if (g->turn_notice) {
		g->turn_notice = false;
		if (g->live && !g->view.over && g->view.to_move == g->color)
			out(c, "#%ld: your move", g->id);
	}
}

void client_flush(struct client *c)
{
	for (int i = 0; i < CLIENT_GAMES_MAX; i++)
		if (c->games[i].used)
			flush_game(c, &c->games[i]);
}

bool client_deferred(const struct client *c)
{
	for (int i = 0; i < CLIENT_GAMES_MAX; i++)
		if (c->games[i].used && (c->games[i].redraw || c->games[i].turn_notice))
			return true;
	return false;
}

/* --- requests ------------------------------------------------------------------ */

static void send_req(struct client *c, json_t *req, enum cmd_type type, long game, long arg)
{
	char *text = json_dumps(req, JSON_COMPACT);
	if (!text)
		abort();
	json_int_t id = json_integer_value(json_object_get(req, "id"));
	if (c->npending < CLIENT_PENDING_MAX && json_is_integer(json_object_get(req, "id"))) {
		c->pending[c->npending] = (struct pending){ .id = id, .type = type, .game = game, .arg = arg };
		c->npending++;
	}
	if (c->send && c->send(c->ctx, text) != 0)
		error(c, "could not send the request");
	free(text);
}

static void send_json(struct client *c, json_t *req, enum cmd_type type)
{
	send_req(c, req, type, -1, 0);
}

static bool pending_has(const struct client *c, enum cmd_type type, long game)
{
	for (int i = 0; i < c->npending; i++)
		if (c->pending[i].type == type && c->pending[i].game == game)
			return true;
	return false;
}

/* The next page of a paged reply: the same request with `from`. */
static void send_page(struct client *c, const char *type, enum cmd_type ct, long game, const char *view,
                      long from)
{
	json_t *r = json_pack("{s:I, s:s, s:I, s:I}", "id", (json_int_t)c->next_id++, "type", type,
	                      "game", (json_int_t)game, "from", (json_int_t)from);
	if (view)
		json_object_set_new(r, "view", json_string(view));
	send_req(c, r, ct, game, from);
	json_decref(r);
}

/* --- games, continued ------------------------------------------------------------ */

/* Apply a page of a view's events: the board and the announcement log. */
static void apply_events(struct cgame *g, const json_t *evs)
{
	size_t i;
	json_t *ev;
	json_array_foreach(evs, i, ev) {
		struct event e;
		if (event_from_json(ev, &e) != 0)
			continue;
		if (!e.audience)
			e.audience = (uint8_t)aud_of(g->color);
		view_apply(&g->view, &e);
		char words[WORDS_MAX];
		words_event(&e, g->color, e.san, words, sizeof words);
		game_log(g, words);
	}
	ghost_sync(&g->ghosts, &g->view.own);
}

/* The whole view is in: show it. */
static void game_shown(struct client *c, struct cgame *g)
{
	g->loading = false;
	g->redraw = g->id == c->current;
	g->turn_notice = g->live && !g->view.over && g->view.to_move == g->color;
	flush_game(c, g);
}

/*
 * game_start / game_state / a `game` response:
 * {game, rules, white, black, color, [fen], [events], [to_move], [clock], [next]}.
 * A game_start makes the game current; a state only when there is no current
 * game (or it is this one), so that a login or a reconnection with several
 * games does not jump between them.
 */
static struct cgame *game_begin(struct client *c, const json_t *msg, bool state, bool make_current)
{
	long id = (long)json_integer_value(json_object_get(msg, "game"));
	int color = color_parse(json_string_value(json_object_get(msg, "color")));
	const char *rules = json_string_value(json_object_get(msg, "rules"));
	const char *fen = json_string_value(json_object_get(msg, "fen"));
	struct cgame *g = game_slot(c, id);

	if (!g || color < 0)
		return NULL;
	/* the player's guesses survive a reconnection: they are theirs, not the server's */
	struct ghosts keep;
	bool keep_ghosts = g->used && g->id == id && g->color == color;
	if (keep_ghosts)
		keep = g->ghosts;
	memset(g, 0, sizeof *g);
	g->used = true;
	g->id = id;
	g->color = color;
	g->rs = rules ? ruleset_find(rules) : NULL;
	if (!g->rs)
		g->rs = ruleset_default();
	const char *wn = json_string_value(json_object_get(msg, "white"));
	const char *bn = json_string_value(json_object_get(msg, "black"));
	snprintf(g->name[WHITE], sizeof g->name[WHITE], "%s", wn ? wn : "?");
	snprintf(g->name[BLACK], sizeof g->name[BLACK], "%s", bn ? bn : "?");
	g->live = !json_is_false(json_object_get(msg, "live"));

	struct board start;
	board_start(&start);
	if (fen && fen[0]) {
		struct board b;
		if (fen_parse(fen, &b, NULL, 0) == 0)
			start = b;
	}
	view_init(&g->view, &start, color);
	ghost_init(&g->ghosts, !color);
	if (keep_ghosts)
		g->ghosts = keep;
	apply_events(g, json_object_get(msg, "events"));
	int tm = color_parse(json_string_value(json_object_get(msg, "to_move")));
	if (tm >= 0)
		g->view.to_move = tm;
	g->draw_offer_from = color_parse(json_string_value(json_object_get(msg, "draw_offer")));
	if (!g->live)
		g->view.over = true;
	read_clock(c, g, msg);
	if (make_current || c->current < 0 || c->current == id || !client_game(c, c->current))
		c->current = id;

	out(c, "%s %ld: %s (White) vs %s (Black), rules %s; you play %s%s.",
	    state ? "Game" : "New game", id, g->name[WHITE], g->name[BLACK], g->rs->name,
	    words_side(color), g->id == c->current ? "" : " (\"switch\" to it to see it)");
	if (json_object_get(msg, "next")) {
		g->loading = true;   /* the rest of the events follow */
	} else if (!state) {
		/* a new game: its opening announcements follow; show it after them */
		g->redraw = g->id == c->current;
		g->turn_notice = true;
	} else {
		game_shown(c, g);
	}
	return g;
}

/* A further page of a view (game_events, or a paged `game` response). */
static void game_more(struct client *c, struct cgame *g, const json_t *msg)
{
	apply_events(g, json_object_get(msg, "events"));
	if (!json_object_get(msg, "next"))
		game_shown(c, g);
}

/* Own-view SAN never has a capture mark (the mover cannot see what stood there); the player's own 'x' may come back. */
static void echo_typed(struct cgame *g, const struct event *e, char *san, size_t len)
{
	bool x = false;
	for (int i = 0; i < g->ntried; i++)
		if (move_from(g->tried[i].move) == move_from(e->move) &&
		    move_to(g->tried[i].move) == move_to(e->move))
			x = g->tried[i].capture;
	g->ntried = 0;
	if (!x || !san[0] || strchr(san, 'x') || !strchr("NBRQK", san[0]))
		return;
	/* before the destination square: the last file-rank pair */
	int at = -1;
	for (int i = 0; san[i] && san[i + 1]; i++)
		if (san[i] >= 'a' && san[i] <= 'h' && san[i + 1] >= '1' && san[i + 1] <= '8')
			at = i;
	size_t n = strlen(san);
	if (at < 1 || n + 2 > len)
		return;
	memmove(san + at + 1, san + at, n - (size_t)at + 1);
	san[at] = 'x';
}

/* One announcement for this player. */
static void announcement(struct client *c, const json_t *msg, struct cgame *g)
{
	struct event e;
	if (event_from_json(msg, &e) != 0) {
		out(c, "(an announcement this client could not read)");
		return;
	}
	if (!e.audience)
		e.audience = (uint8_t)aud_of(g->color);
	bool was_mine = g->view.to_move == g->color;
	view_apply(&g->view, &e);
	ghost_sync(&g->ghosts, &g->view.own);
	read_clock(c, g, msg);

	char san[EVENT_SAN_MAX + 2];
	snprintf(san, sizeof san, "%s", e.san);
	if (e.type == EV_MOVE && e.by == g->color)
		echo_typed(g, &e, san, sizeof san);
	char words[WORDS_MAX];
	words_event(&e, g->color, san, words, sizeof words);
	game_log(g, words);
	if (e.type == EV_GAME_OVER) {
		g->live = false;
		g->view.over = true;
	}
	if (c->batch)
		return;
	const char *tag = g->id == c->current ? "" : " (another game)";
	out(c, "#%ld%s: %s", g->id, tag, words);
	if (g->id == c->current && (e.type == EV_MOVE || (e.type == EV_CAPTURE && e.by != g->color) ||
	                            e.type == EV_GAME_OVER))
		g->redraw = true;
	if (g->live && !g->view.over && !was_mine && g->view.to_move == g->color)
		g->turn_notice = true;
	/* a turn starts, or the game ends: nothing more of this action is coming */
	if (e.type == EV_PAWN_TRIES || e.type == EV_PAWN_CAPTURES || e.type == EV_GAME_OVER)
		flush_game(c, g);
}

/* --- responses -------------------------------------------------------------- */

static bool pending_take(struct client *c, long long id, struct pending *p)
{
	for (int i = 0; i < c->npending; i++) {
		if (c->pending[i].id != id)
			continue;
		*p = c->pending[i];
		c->pending[i] = c->pending[--c->npending];
		return true;
	}
	return false;
}

static const char *str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? v : "?";
}

static void show_list(struct client *c, enum cmd_type type, const json_t *res)
{
	size_t i;
	json_t *x;
	switch (type) {
	case CMD_WHO: {
		json_t *users = json_object_get(res, "users");
		out(c, "%zu online:", json_array_size(users));
		json_array_foreach(users, i, x)
			out(c, "  %-24s %lld game(s)", str(x, "name"),
			    (long long)json_integer_value(json_object_get(x, "games")));
		break;
	}
	case CMD_SEEKS: {
		json_t *offers = json_object_get(res, "offers");
		if (json_array_size(offers) == 0)
			out(c, "No open seeks or challenges.");
		json_array_foreach(offers, i, x) {
			json_t *t = json_object_get(x, "time");
			char tc[48] = "untimed";
			if (json_object_get(t, "days"))
				snprintf(tc, sizeof tc, "%lldd", (long long)json_integer_value(json_object_get(t, "days")));
			else if (json_object_get(t, "base"))
				snprintf(tc, sizeof tc, "%g+%g", json_number_value(json_object_get(t, "base")) / 60,
				         json_number_value(json_object_get(t, "inc")));
			const char *to = json_string_value(json_object_get(x, "to"));
			out(c, "  offer %lld: %s, %s, %s, colour %s%s%s%s",
			    (long long)json_integer_value(json_object_get(x, "offer")), str(x, "user"),
			    str(x, "rules"), tc,
			    json_string_value(json_object_get(x, "color")) ?: "random",
			    json_is_true(json_object_get(x, "rated")) ? ", rated" : "", to ? " -> " : "", to ? to : "");
		}
		break;
	}
	case CMD_GAMES: {
		json_t *games = json_object_get(res, "games");
		if (json_array_size(games) == 0)
			out(c, "No games.");
		json_array_foreach(games, i, x) {
			const char *result = json_string_value(json_object_get(x, "result"));
			const char *tm = json_string_value(json_object_get(x, "to_move"));
			out(c, "  game %lld: %s vs %s, %s, you are %s, %s%s",
			    (long long)json_integer_value(json_object_get(x, "game")), str(x, "white"),
			    str(x, "black"), str(x, "rules"), str(x, "color"),
			    result ? "finished " : tm ? tm : "", result ? result : tm ? " to move" : "");
		}
		break;
	}
	case CMD_HISTORY: {
		json_t *games = json_object_get(res, "games");
		if (json_array_size(games) == 0)
			out(c, "No games.");
		json_array_foreach(games, i, x) {
			const char *result = json_string_value(json_object_get(x, "result"));
			const char *reason = json_string_value(json_object_get(x, "reason"));
			char when[32] = "";
			time_t t = (time_t)json_integer_value(json_object_get(x, "created"));
			struct tm tm;
			if (t > 0 && gmtime_r(&t, &tm))
				strftime(when, sizeof when, "%Y-%m-%d", &tm);
			out(c, "  game %lld: %s (White) vs %s (Black), %s%s%s, %s%s%s%s",
			    (long long)json_integer_value(json_object_get(x, "game")), str(x, "white"),
			    str(x, "black"), str(x, "rules"), when[0] ? ", " : "", when,
			    result ? "finished " : "live", result ? result : "", reason ? " by " : "",
			    reason ? reason : "");
		}
		break;
	}
	case CMD_POSSIBLE: {
		json_t *moves = json_object_get(res, "moves");
		char line[2048] = "";
		size_t n = 0;
		json_array_foreach(moves, i, x) {
			int w = snprintf(line + n, sizeof line - n, "%s%s", n ? " " : "",
			                 json_string_value(x) ?: "?");
			if (w < 0 || (size_t)w >= sizeof line - n)
				break;
			n += (size_t)w;
		}
		out(c, "You may try: %s", n ? line : "(nothing)");
		break;
	}
	default:
		break;
	}
}

/* One announcement of a record, in words for someone reading it afterwards. */
static void record_words(const struct event *e, int me, char *buf, size_t len)
{
	char mv[NOTATION_MAX] = "";
	if (e->san[0])
		snprintf(mv, sizeof mv, "%s", e->san);
	else if (e->move != MOVE_NONE)
		notation_uci(e->move, mv);
	if (e->type == EV_MOVE && e->by != me)
		snprintf(buf, len, "%s played %s", words_side(e->by), mv[0] ? mv : "a move");
	else if ((e->type == EV_ILLEGAL || e->type == EV_IMPOSSIBLE) && e->by != me && mv[0])
		snprintf(buf, len, "%s tried %s: %s", words_side(e->by), mv,
		         e->type == EV_ILLEGAL ? "illegal" : "impossible");
	else
		words_event(e, me, e->san, buf, len);
}

/* record {game, view}: one page of what that audience heard, more asked for while there is more. */
static void record_page(struct client *c, const json_t *msg, const struct pending *p)
{
	const char *view = str(msg, "view");
	long game = (long)json_integer_value(json_object_get(msg, "game"));
	int me = -1;
	if (!strcmp(view, "white") && !strcmp(str(msg, "white"), c->user))
		me = WHITE;
	else if (!strcmp(view, "black") && !strcmp(str(msg, "black"), c->user))
		me = BLACK;
	if (p->arg == 0) {
		const char *result = json_string_value(json_object_get(msg, "result"));
		const char *reason = json_string_value(json_object_get(msg, "reason"));
		out(c, "Game %ld, %s: %s (White) vs %s (Black), %s%s%s; as %s%s heard it:", game,
		    str(msg, "rules"), str(msg, "white"), str(msg, "black"), result ? result : "live",
		    reason ? " by " : "", reason ? reason : "", !strcmp(view, "umpire") ? "the " : "",
		    !strcmp(view, "umpire") ? "umpire" : !strcmp(view, "white") ? "White" : "Black");
	}
	size_t i;
	json_t *ev;
	json_array_foreach(json_object_get(msg, "events"), i, ev) {
		struct event e;
		char words[WORDS_MAX];
		if (event_from_json(ev, &e) != 0)
			continue;
		record_words(&e, me, words, sizeof words);
		out(c, "  %3d. %s", e.ply / 2 + 1, words);
	}
	json_t *next = json_object_get(msg, "next");
	if (json_is_integer(next) && json_integer_value(next) > p->arg)
		send_page(c, "record", CMD_RECORD, game, view, (long)json_integer_value(next));
	else
		out(c, "(%lld announcements)", (long long)json_integer_value(json_object_get(msg, "total")));
}

/* pgn {game}: a chunk; more asked for while there is more; then shown or written. */
static void pgn_chunk(struct client *c, const json_t *msg, const struct pending *p)
{
	const char *chunk = json_string_value(json_object_get(msg, "pgn"));
	long game = (long)json_integer_value(json_object_get(msg, "game"));
	size_t n = chunk ? strlen(chunk) : 0;
	if (c->pgn_len + n + 1 > (size_t)CLIENT_PGN_MAX) {
		error(c, "pgn: game %ld is longer than this client takes (%ld bytes)", game, CLIENT_PGN_MAX);
		pgn_reset(c);
		return;
	}
	char *grown = realloc(c->pgn, c->pgn_len + n + 1);
	if (!grown)
		abort();
	c->pgn = grown;
	memcpy(c->pgn + c->pgn_len, chunk ? chunk : "", n);
	c->pgn_len += n;
	c->pgn[c->pgn_len] = '\0';
	json_t *next = json_object_get(msg, "next");
	if (json_is_integer(next) && json_integer_value(next) > p->arg) {
		send_page(c, "pgn", CMD_PGN, game, str(msg, "view"), (long)json_integer_value(next));
		return;
	}
	if (c->pgn_file[0]) {
		FILE *f = fopen(c->pgn_file, "w");
		bool ok = f && fwrite(c->pgn, 1, c->pgn_len, f) == c->pgn_len;
		if (f && fclose(f) != 0)
			ok = false;
		if (!ok)
			error(c, "pgn: cannot write %s: %s", c->pgn_file, strerror(errno));
		else
			out(c, "Wrote game %ld (%s view, %zu bytes) to %s.", game, str(msg, "view"), c->pgn_len,
			    c->pgn_file);
	} else if (!c->batch && c->print) {
		while (c->pgn_len && c->pgn[c->pgn_len - 1] == '\n')
			c->pgn[--c->pgn_len] = '\0';
		c->print(c->ctx, c->pgn);
	}
	pgn_reset(c);
}

/* A login of any kind succeeded (login, register, guest, resume). */
static void logged_in(struct client *c, enum cmd_type type, const json_t *msg)
{
	const char *u = json_string_value(json_object_get(msg, "user"));
	const char *tok = json_string_value(json_object_get(msg, "token"));
	if (!u)
		u = "?";
	if (strcmp(u, c->user) != 0)
		forget_games(c);
	snprintf(c->user, sizeof c->user, "%s", u);
	c->logged_in = true;
	if (tok && strlen(tok) <= CLIENT_TOKEN_MAX)
		snprintf(c->token, sizeof c->token, "%s", tok);
	if (type != CMD_RESUME) {
		out(c, "Logged in as %s. Type \"help\" for commands.", c->user);
		return;
	}
	out(c, "Session resumed as %s.", c->user);
	/* a game that ended while we were away gets no game_state: fetch how it ended */
	json_t *live = json_object_get(msg, "games");
	for (int i = 0; i < CLIENT_GAMES_MAX; i++) {
		struct cgame *g = &c->games[i];
		if (!g->used || !g->live)
			continue;
		bool still = false;
		size_t k;
		json_t *x;
		json_array_foreach(live, k, x)
			if (json_integer_value(x) == g->id)
				still = true;
		if (!still)
			send_page(c, "game", CMD_GAME, g->id, NULL, 0);
	}
}

static void response(struct client *c, const json_t *msg)
{
	struct pending p = { .type = CMD_NONE, .game = -1 };
	json_t *jid = json_object_get(msg, "id");
	bool known = json_is_integer(jid) && pending_take(c, json_integer_value(jid), &p);

	client_flush(c);   /* an action's events come before its answer */
	if (!json_is_true(json_object_get(msg, "ok"))) {
		json_t *err = json_object_get(msg, "error");
		const char *code = json_string_value(json_object_get(err, "code"));
		const char *text = json_string_value(json_object_get(err, "message"));
		c->errors++;
		if (!c->batch)
			out(c, "%s refused: %s (%s)", known && p.type != CMD_NONE ? cmd_name(p.type) : "request",
			    text ? text : "no reason given", code ? code : "error");
		if (known && p.type == CMD_RESUME) {
			c->logged_in = false;
			memset(c->token, 0, sizeof c->token);
			out(c, "The session could not be resumed: log in again.");
		}
		if (known && p.type == CMD_PGN)
			pgn_reset(c);
		return;
	}
	if (!known)
		return;
	switch (p.type) {
	case CMD_LOGIN:
	case CMD_REGISTER:
	case CMD_GUEST:
	case CMD_RESUME:
		logged_in(c, p.type, msg);
		break;
	case CMD_LOGOUT:
		c->logged_in = false;
		c->user[0] = '\0';
		memset(c->token, 0, sizeof c->token);
		forget_games(c);
		out(c, "Logged out.");
		break;
	case CMD_SEEK:
	case CMD_CHALLENGE:
		out(c, "Offer %lld is open.", (long long)json_integer_value(json_object_get(msg, "offer")));
		break;
	case CMD_DECLINE:
	case CMD_CANCEL:
		out(c, "Done.");
		break;
	case CMD_DRAW: {
		struct cgame *g = client_game(c, p.game);
		if (p.arg == DRAW_DECLINE)
			out(c, "Draw declined.");
		else if (p.arg == DRAW_ACCEPT || (g && g->view.over))
			out(c, "Draw accepted.");   /* an offer while theirs stood accepts it */
		else
			out(c, "Draw offered.");
		break;
	}
	case CMD_WHO: case CMD_SEEKS: case CMD_GAMES: case CMD_POSSIBLE: case CMD_HISTORY:
		show_list(c, p.type, msg);
		break;
	case CMD_GAME:
	case CMD_SWITCH: {
		struct cgame *g;
		if (p.arg > 0) {
			g = client_game(c, p.game);
			if (g)
				game_more(c, g, msg);
		} else {
			g = game_begin(c, msg, true, p.type == CMD_SWITCH);
		}
		json_t *next = json_object_get(msg, "next");
		if (g && json_is_integer(next) && json_integer_value(next) > p.arg)
			send_page(c, "game", p.type, g->id, NULL, (long)json_integer_value(next));
		else if (g && g->loading)
			game_shown(c, g);
		break;
	}
	case CMD_RECORD:
		record_page(c, msg, &p);
		break;
	case CMD_PGN:
		pgn_chunk(c, msg, &p);
		break;
	default:
		break;
	}
}

/* --- events ------------------------------------------------------------------ */

static bool is_announcement(const char *name)
{
	for (int t = EV_MOVE; t <= EV_UMPIRE_MOVE; t++) {
		const char *n = event_type_name(t);
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

static void remember_event(struct client *c, const char *name)
{
	if (c->ev_n == CLIENT_EVENTS_MAX) {
		/* keep the unread part; the read part is history */
		size_t keep = c->ev_n - c->ev_cursor;
		memmove(c->evnames, c->evnames + c->ev_cursor, keep * sizeof *c->evnames);
		c->ev_n = keep;
		c->ev_cursor = 0;
		if (c->ev_n == CLIENT_EVENTS_MAX)
			c->ev_n--;   /* a full unread log drops its newest entry */
	}
	snprintf(c->evnames[c->ev_n++], sizeof *c->evnames, "%s", name);
}

bool client_take_event(struct client *c, const char *name)
{
	for (size_t i = c->ev_cursor; i < c->ev_n; i++) {
		if (strcmp(c->evnames[i], name) == 0) {
			c->ev_cursor = i + 1;
			return true;
		}
	}
	return false;
}

static void event(struct client *c, const json_t *msg, const char *name)
{
	remember_event(c, name);
	if (!strcmp(name, "ping")) {
		/* answer a quiet-client probe so the server keeps us */
		json_t *r = json_pack("{s:I, s:s}", "id", (json_int_t)c->next_id++, "type", "ping");
		send_json(c, r, CMD_NONE);
		json_decref(r);
		return;
	}
	if (!strcmp(name, "challenge")) {
		c->last_challenge = (long)json_integer_value(json_object_get(msg, "offer"));
		if (!c->batch)
			out(c, "%s challenges you (%s): type \"accept %ld\" or \"decline %ld\".",
			    json_string_value(json_object_get(msg, "user")) ?: "someone",
			    json_string_value(json_object_get(msg, "rules")) ?: "?", c->last_challenge,
			    c->last_challenge);
		return;
	}
	if (!strcmp(name, "game_start") || !strcmp(name, "game_state")) {
		bool start = strcmp(name, "game_start") == 0;
		game_begin(c, msg, !start, start);
		return;
	}
	long id = (long)json_integer_value(json_object_get(msg, "game"));
	struct cgame *g = json_object_get(msg, "game") ? client_game(c, id) : NULL;
	if (g && !strcmp(name, "game_events")) {
		game_more(c, g, msg);
		return;
	}
	if (g && is_announcement(name)) {
		announcement(c, msg, g);
		return;
	}
	if (g && !strcmp(name, "draw_offer")) {
		int by = color_parse(json_string_value(json_object_get(msg, "by")));
		g->draw_offer_from = by >= 0 ? by : !g->color;
		read_clock(c, g, msg);
		if (g->draw_offer_from != g->color)
			out(c, "#%ld: %s offers a draw: \"draw accept\" or \"draw decline\".", g->id,
			    words_side(g->draw_offer_from));
		else if (!pending_has(c, CMD_DRAW, g->id))
			out(c, "#%ld: you offered a draw (in another session).", g->id);
		return;   /* our own offer from here: its answer says "Draw offered." */
	}
	if (g && !strcmp(name, "draw_declined")) {
		int by = color_parse(json_string_value(json_object_get(msg, "by")));
		g->draw_offer_from = -1;
		read_clock(c, g, msg);
		if (by != g->color)
			out(c, "#%ld: %s declined the draw.", g->id, by >= 0 ? words_side(by) : "Your opponent");
		return;
	}
	if (c->batch)
		return;
	if (!strcmp(name, "greeting"))
		out(c, "Connected to %s.", json_string_value(json_object_get(msg, "server")) ?: "a krieg server");
	else if (!strcmp(name, "challenge_declined"))
		out(c, "Your challenge (offer %lld) was declined.",
		    (long long)json_integer_value(json_object_get(msg, "offer")));
	else if (!strcmp(name, "challenge_cancelled"))
		out(c, "Challenge %lld was withdrawn.", (long long)json_integer_value(json_object_get(msg, "offer")));
}

void client_receive(struct client *c, const char *line)
{
	if (c->batch && c->print_raw)
		c->print_raw(c->ctx, line);
	json_error_t je;
	json_t *msg = json_loads(line, 0, &je);
	if (!json_is_object(msg)) {
		json_decref(msg);
		if (!c->batch)
			out(c, "(unreadable line from the server)");
		return;
	}
	const char *name = json_string_value(json_object_get(msg, "event"));
	if (name)
		event(c, msg, name);
	else if (json_object_get(msg, "ok"))
		response(c, msg);
	json_decref(msg);
}

/* --- connection ---------------------------------------------------------------- */

int client_disconnected(struct client *c)
{
	int dropped = 0;
	for (int i = 0; i < c->npending; i++)
		if (c->pending[i].type != CMD_NONE)
			dropped++;
	c->npending = 0;
	if (c->pgn_busy)
		pgn_reset(c);
	return dropped;
}

int client_resume(struct client *c)
{
	if (!c->token[0])
		return -1;
	json_t *r = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)c->next_id++, "type", "resume",
	                      "token", c->token);
	send_json(c, r, CMD_RESUME);
	json_decref(r);
	return 0;
}

/* --- commands ---------------------------------------------------------------- */

int client_hello(struct client *c)
{
	json_t *r = json_pack("{s:I, s:s, s:i}", "id", (json_int_t)c->next_id++, "type", "hello",
	                      "version", PROTO_VERSION);
	send_json(c, r, CMD_NONE);
	json_decref(r);
	return 0;
}

static int local_command(struct client *c, struct cmd *cmd)
{
	struct cgame *g = client_current(c);
	enum ghost_status gs = GHOST_OK;

	switch (cmd->type) {
	case CMD_NONE:
	case CMD_WAIT:
	case CMD_SLEEP:
		return 0;   /* wait/sleep are the main loop's: they block it */
	case CMD_QUIT:
		return CLIENT_QUIT;
	case CMD_HELP:
		out(c, "%s", cmd_help());
		return 0;
	case CMD_SWITCH: {
		struct cgame *to = client_game(c, cmd->number);
		if (!to) {
			/* not followed here yet: fetch our own view of it; the answer starts it */
			send_page(c, "game", CMD_SWITCH, cmd->number, NULL, 0);
			return 0;
		}
		c->current = to->id;
		show_board(c, to);
		return 0;
	}
	default:
		break;
	}
	if (!g)
		return error(c, "no current game");
	switch (cmd->type) {
	case CMD_BOARD:
		show_board(c, g);
		return 0;
	case CMD_GHOST_PLACE:
		gs = ghost_place(&g->ghosts, &g->view.own, cmd->argv[0]);
		break;
	case CMD_GHOST_MOVE:
		gs = ghost_move(&g->ghosts, &g->view.own, cmd->argv[0], cmd->argv[1]);
		break;
	case CMD_GHOST_CLEAR:
		gs = ghost_clear(&g->ghosts, cmd->argc ? cmd->argv[0] : NULL);
		break;
	default:
		return 0;
	}
	if (gs != GHOST_OK)
		return error(c, "ghost: %s", ghost_error(gs));
	show_board(c, g);
	return 0;
}

/* Is every word a move in some accepted form?  The same words with or without a game. */
static int check_syntax(struct client *c, const struct cmd *cmd)
{
	for (int i = 0; i < cmd->argc; i++) {
		struct notation_parts parts;
		if (notation_lex(cmd->argv[i], &parts, NULL, 0) != NOTATION_OK)
			return error(c, "\"%s\" is not a command or a move (type \"help\")", cmd->argv[i]);
	}
	return 0;
}

/*
 * Early feedback: resolve each try on the player's own pieces before sending.
 * The resolved tries are kept to echo the played one as it was typed.
 */
static int check_moves(struct client *c, const struct cmd *cmd, struct cgame *g)
{
	g->ntried = 0;
	if (cmd->type == CMD_QUIET)
		return 0;   /* later moves of a sequence depend on earlier ones; the server judges */
	for (int i = 0; i < cmd->argc; i++) {
		move_t m;
		char err[128] = "";
		enum notation_status st = notation_parse(&g->view.own, g->color, cmd->argv[i], &m, err,
		                                         sizeof err);
		if (st == NOTATION_OK) {
			struct notation_parts parts;
			bool x = notation_lex(cmd->argv[i], &parts, NULL, 0) == NOTATION_OK && parts.capture;
			g->tried[g->ntried++] = (struct typed_try){ .move = m, .capture = x };
			continue;
		}
		g->ntried = 0;
		if (st == NOTATION_SYNTAX)
			return error(c, "\"%s\" is not a command or a move (type \"help\")", cmd->argv[i]);
		return error(c, "%s: %s", cmd->argv[i], err[0] ? err :
		             st == NOTATION_AMBIGUOUS ? "ambiguous" : "none of your pieces can make that move");
	}
	return 0;
}

int client_command(struct client *c, const char *line)
{
	struct cmd cmd;
	char err[256];

	client_flush(c);
	if (cmd_parse(line, &cmd, err, sizeof err) != 0)
		return error(c, "%s", err);
	if (cmd_is_local(&cmd))
		return local_command(c, &cmd);

	struct cgame *g = client_current(c);
	long game = g ? g->id : -1, arg = 0;
	switch (cmd.type) {
	case CMD_LOGIN:
	case CMD_REGISTER:
		if (cmd.argc == 1) {
			char pw[CMD_ARG_MAX];
			if (!c->ask_password || c->ask_password(c->ctx, "Password: ", pw, sizeof pw) != 0)
				return error(c, "%s needs a password", cmd_name(cmd.type));
			snprintf(cmd.argv[1], CMD_ARG_MAX, "%s", pw);
			cmd.argc = 2;
			memset(pw, 0, sizeof pw);
		}
		break;
	case CMD_ACCEPT:
	case CMD_DECLINE:
		if (cmd.number < 0)
			cmd.number = c->last_challenge;
		break;
	case CMD_DRAW:
		if (cmd.draw == DRAW_DEFAULT)
			cmd.draw = g && g->draw_offer_from == !g->color ? DRAW_ACCEPT : DRAW_OFFER;
		arg = cmd.draw;
		break;
	case CMD_MOVE:
	case CMD_QUIET:
		if (check_syntax(c, &cmd) != 0)
			return -1;
		if (g && check_moves(c, &cmd, g) != 0)
			return -1;
		break;
	case CMD_RECORD:
		if (!cmd.view[0]) {
			/* our own side of a game we follow; else the whole (finished) record */
			struct cgame *of = client_game(c, cmd.number);
			snprintf(cmd.view, sizeof cmd.view, "%s",
			         of ? (of->color == WHITE ? "white" : "black") : "umpire");
		}
		game = cmd.number;
		break;
	case CMD_PGN:
		if (c->pgn_busy)
			return error(c, "pgn: the last PGN asked for is still arriving");
		game = cmd.number;
		break;
	default:
		break;
	}
	json_t *req = cmd_request(&cmd, c->next_id, g ? g->id : -1, err, sizeof err);
	memset(cmd.argv, 0, sizeof cmd.argv);   /* a password must not linger */
	if (!req)
		return error(c, "%s", err[0] ? err : "nothing to send");
	if (cmd.type == CMD_PGN) {
		c->pgn_busy = true;
		c->pgn_len = 0;
		snprintf(c->pgn_file, sizeof c->pgn_file, "%s", cmd.file);
	}
	c->next_id++;
	send_req(c, req, cmd.type, game, arg);
	json_decref(req);
	return 0;
}
