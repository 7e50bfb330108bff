/*
 * client.c — state and dispatch of the terminal client (see client.h).
 */
#include "client.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void client_free(struct client *c)
{
	free(c->evnames);
	c->evnames = NULL;
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

/* game_start / game_state: {game, rules, white, black, color, [fen], [events], [to_move], [clock]} */
static void game_begin(struct client *c, const json_t *msg, bool state)
{
	long id = (long)json_integer_value(json_object_get(msg, "game"));
	int color = color_parse(json_string_value(json_object_get(msg, "color")));
	const char *rules = json_string_value(json_object_get(msg, "rules"));
	const char *fen = json_string_value(json_object_get(msg, "fen"));
	struct cgame *g = game_slot(c, id);

	if (!g || color < 0)
		return;
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
	g->draw_offer_from = -1;
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

	json_t *evs = json_object_get(msg, "events");
	size_t i;
	json_t *ev;
	json_array_foreach(evs, i, ev) {
		struct event e;
		if (event_from_json(ev, &e) != 0)
			continue;
		if (!e.audience)
			e.audience = (uint8_t)aud_of(color);
		view_apply(&g->view, &e);
		char words[WORDS_MAX];
		words_event(&e, color, e.san, words, sizeof words);
		game_log(g, words);
	}
	int tm = color_parse(json_string_value(json_object_get(msg, "to_move")));
	if (tm >= 0)
		g->view.to_move = tm;
	int dof = color_parse(json_string_value(json_object_get(msg, "draw_offer")));
	g->draw_offer_from = dof;
	if (!g->live)
		g->view.over = true;
	read_clock(c, g, msg);
	c->current = id;

	out(c, "%s %ld: %s (White) vs %s (Black), rules %s; you play %s.",
	    state ? "Game" : "New game", id, g->name[WHITE], g->name[BLACK], g->rs->name,
	    words_side(color));
	show_board(c, g);
	if (g->live && !g->view.over && g->view.to_move == color)
		out(c, "#%ld: your move", id);
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

	char words[WORDS_MAX];
	words_event(&e, g->color, e.san, words, sizeof words);
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
		show_board(c, g);
	if (g->live && !g->view.over && !was_mine && g->view.to_move == g->color)
		out(c, "#%ld: your move", g->id);
}

/* --- responses -------------------------------------------------------------- */

static bool pending_take(struct client *c, long long id, enum cmd_type *type)
{
	for (int i = 0; i < c->npending; i++) {
		if (c->pending[i].id != id)
			continue;
		*type = c->pending[i].type;
		c->pending[i] = c->pending[--c->npending];
		return true;
	}
	return false;
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
			out(c, "  %-24s %lld game(s)", json_string_value(json_object_get(x, "name")) ?: "?",
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
			    (long long)json_integer_value(json_object_get(x, "offer")),
			    json_string_value(json_object_get(x, "user")) ?: "?",
			    json_string_value(json_object_get(x, "rules")) ?: "?", tc,
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
			    (long long)json_integer_value(json_object_get(x, "game")),
			    json_string_value(json_object_get(x, "white")) ?: "?",
			    json_string_value(json_object_get(x, "black")) ?: "?",
			    json_string_value(json_object_get(x, "rules")) ?: "?",
			    json_string_value(json_object_get(x, "color")) ?: "?",
			    result ? "finished " : tm ? tm : "", result ? result : tm ? " to move" : "");
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

static void response(struct client *c, const json_t *msg)
{
	enum cmd_type type = CMD_NONE;
	json_t *jid = json_object_get(msg, "id");
	bool known = json_is_integer(jid) && pending_take(c, json_integer_value(jid), &type);

	if (!json_is_true(json_object_get(msg, "ok"))) {
		json_t *err = json_object_get(msg, "error");
		const char *code = json_string_value(json_object_get(err, "code"));
		const char *text = json_string_value(json_object_get(err, "message"));
		c->errors++;
		if (!c->batch)
			out(c, "%s refused: %s (%s)", known && type != CMD_NONE ? cmd_name(type) : "request",
			    text ? text : "no reason given", code ? code : "error");
		return;
	}
	if (!known)
		return;
	switch (type) {
	case CMD_LOGIN:
	case CMD_REGISTER:
	case CMD_GUEST: {
		const char *u = json_string_value(json_object_get(msg, "user"));
		snprintf(c->user, sizeof c->user, "%s", u ? u : "?");
		c->logged_in = true;
		out(c, "Logged in as %s. Type \"help\" for commands.", c->user);
		break;
	}
	case CMD_LOGOUT:
		c->logged_in = false;
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
	case CMD_DRAW:
		out(c, "Draw: done.");
		break;
	case CMD_WHO: case CMD_SEEKS: case CMD_GAMES: case CMD_POSSIBLE:
		show_list(c, type, msg);
		break;
	case CMD_GAME:
		game_begin(c, msg, true);
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

static void send_json(struct client *c, json_t *req, enum cmd_type type)
{
	char *text = json_dumps(req, JSON_COMPACT);
	if (!text)
		abort();
	json_int_t id = json_integer_value(json_object_get(req, "id"));
	if (c->npending < CLIENT_PENDING_MAX && json_is_integer(json_object_get(req, "id"))) {
		c->pending[c->npending].id = id;
		c->pending[c->npending].type = type;
		c->npending++;
	}
	if (c->send && c->send(c->ctx, text) != 0)
		error(c, "could not send the request");
	free(text);
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
		game_begin(c, msg, strcmp(name, "game_state") == 0);
		return;
	}
	long id = (long)json_integer_value(json_object_get(msg, "game"));
	struct cgame *g = json_object_get(msg, "game") ? client_game(c, id) : NULL;
	if (g && is_announcement(name)) {
		announcement(c, msg, g);
		return;
	}
	if (g && !strcmp(name, "draw_offer")) {
		int by = color_parse(json_string_value(json_object_get(msg, "by")));
		g->draw_offer_from = by >= 0 ? by : !g->color;
		read_clock(c, g, msg);
		if (g->draw_offer_from == g->color)
			out(c, "#%ld: you offered a draw.", g->id);
		else
			out(c, "#%ld: %s offers a draw: \"draw accept\" or \"draw decline\".", g->id,
			    words_side(g->draw_offer_from));
		return;
	}
	if (g && !strcmp(name, "draw_declined")) {
		g->draw_offer_from = -1;
		read_clock(c, g, msg);
		out(c, "#%ld: the draw offer was declined.", g->id);
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
			json_t *r = json_pack("{s:I, s:s, s:I}", "id", (json_int_t)c->next_id++, "type", "game",
			                      "game", (json_int_t)cmd->number);
			send_json(c, r, CMD_GAME);
			json_decref(r);
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

/* Early feedback: resolve each try on the player's own pieces before sending. */
static int check_moves(struct client *c, const struct cmd *cmd, const struct cgame *g)
{
	if (cmd->type == CMD_QUIET)
		return 0;   /* later moves of a sequence depend on earlier ones; the server judges */
	for (int i = 0; i < cmd->argc; i++) {
		move_t m;
		char err[128] = "";
		enum notation_status st = notation_parse(&g->view.own, g->color, cmd->argv[i], &m, err,
		                                         sizeof err);
		if (st == NOTATION_OK)
			continue;
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

	if (cmd_parse(line, &cmd, err, sizeof err) != 0)
		return error(c, "%s", err);
	if (cmd_is_local(&cmd))
		return local_command(c, &cmd);

	struct cgame *g = client_current(c);
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
		break;
	case CMD_MOVE:
		if (g && check_moves(c, &cmd, g) != 0)
			return -1;
		break;
	default:
		break;
	}
	json_t *req = cmd_request(&cmd, c->next_id, g ? g->id : -1, err, sizeof err);
	memset(cmd.argv, 0, sizeof cmd.argv);   /* a password must not linger */
	if (!req)
		return error(c, "%s", err[0] ? err : "nothing to send");
	c->next_id++;
	send_json(c, req, cmd.type);
	json_decref(req);
	return 0;
}
