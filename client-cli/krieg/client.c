/*
 * client.c — the terminal client's state (see client.h): games and their
 * views, the seats it watches from (seat.c), requests in flight, events;
 * commands and answers are dispatched through the command table (cmd.c),
 * which holds what each command does.
 */
#include "client.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "event_json.h"
#include "fen.h"
#include "movegen.h"
#include "mstime.h"
#include "scrub.h"
#include "xmalloc.h"

/* Show words of any length: most fit the stack buffer; longer ones (the
 * help is over 2 KB) are formatted again on the heap, never cut short. */
static void client_vprint(struct client *c, const char *fmt, va_list ap)
{
	char buf[2048];
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	if (n >= 0 && c->print) {
		if ((size_t)n < sizeof buf) {
			c->print(c->ctx, buf);
		} else {
			char *big = xmalloc((size_t)n + 1);
			vsnprintf(big, (size_t)n + 1, fmt, again);
			c->print(c->ctx, big);
			free(big);
		}
	}
	va_end(again);
}

void client_out(struct client *c, const char *fmt, ...)
{
	if (c->batch)
		return;   /* scripts read the protocol lines; words go nowhere */
	va_list ap;
	va_start(ap, fmt);
	client_vprint(c, fmt, ap);
	va_end(ap);
}

void client_out_asked(struct client *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	client_vprint(c, fmt, ap);
	va_end(ap);
}

int client_error(struct client *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	client_vprint(c, fmt, ap);
	va_end(ap);
	c->errors++;
	return -1;
}

void client_init(struct client *c)
{
	memset(c, 0, sizeof *c);
	c->next_id = 1;
	c->current = -1;
	c->seat_current = -1;
	c->last_challenge = -1;
	c->ropts.bottom = WHITE;
	c->ropts.audience = AUD_WHITE;
	c->evnames = xcalloc(CLIENT_EVENTS_MAX, sizeof *c->evnames);
}

void client_pgn_reset(struct client *c)
{
	free(c->pgn);
	c->pgn = NULL;
	c->pgn_len = c->pgn_cap = 0;
	c->pgn_file[0] = '\0';
	c->pgn_busy = false;
}

void client_free(struct client *c)
{
	client_forget_games(c);   /* the games and the seats (their held events) */
	free(c->evnames);
	c->evnames = NULL;
	client_pgn_reset(c);
	memset(c->token, 0, sizeof c->token);
}

static long now(const struct client *c)
{
	return c->now ? c->now(c->ctx) : 0;
}

long client_now(const struct client *c)
{
	return now(c);
}

static long long wall(const struct client *c)
{
	return c->wall ? c->wall(c->ctx) : (long long)mstime_wall();
}

long long client_wall(const struct client *c)
{
	return wall(c);
}

/* The ms left to an away player's deadline, as the server told it (`left`:
 * by its own clock, whatever this computer's wall clock says; a server
 * before `left`: its `until` against ours); -1: no deadline. */
static long long away_left(const struct client *c, const json_t *away)
{
	json_t *left = json_object_get(away, "left"), *until = json_object_get(away, "until");
	long long ms;
	/* held to scrub_ms's range first, as clocks are: a server's INT64_MAX
	 * overflowed the sums after it (a review, fuzz_client) */
	if (json_is_integer(left)) {
		ms = scrub_ms(left, 1);
	} else if (json_is_integer(until)) {
		long long u = (long long)json_integer_value(until), w = wall(c);
		ms = u <= w ? 0 : u - w > SCRUB_MS_MAX ? SCRUB_MS_MAX : u - w;   /* w > 0: no overflow */
	} else {
		return -1;
	}
	return ms > 0 ? ms : 0;
}

/* The opponent is away: the deadline made monotonic, so the prompt counts
 * it down with the clocks; none: the game waits for them. */
static void set_away(struct client *c, struct cgame *g, const json_t *away)
{
	long long left = away_left(c, away);
	g->opp_away = true;
	g->away_deadline = 0;
	if (left >= 0) {
		g->away_deadline = now(c) + (long)left;
		if (g->away_deadline == 0)
			g->away_deadline = 1;   /* 0 means "no deadline" */
	}
}

/* --- games ----------------------------------------------------------------- */

struct cgame *client_game(struct client *c, long id)
{
	for (int i = 0; i < c->ngames; i++)
		if (c->games[i].used && c->games[i].id == id)
			return &c->games[i];
	return NULL;
}

struct cgame *client_current(struct client *c)
{
	return c->current >= 0 ? client_game(c, c->current) : NULL;
}

void client_forget_games(struct client *c)
{
	free(c->games);
	c->games = NULL;
	c->ngames = 0;
	for (int i = 0; i < CLIENT_SEATS_MAX; i++)
		seat_clear(&c->seats[i]);   /* (a memset lost a seat's held events: a review) */
	c->current = -1;
	c->seat_current = -1;
	c->seat_focus = false;
	c->last_challenge = -1;
	c->nfollows = 0;
	c->lobby_watched = false;
}

/* --- seats ----------------------------------------------------------------- */

struct seat *client_seat(struct client *c, long id)
{
	for (int i = 0; i < CLIENT_SEATS_MAX; i++)
		if (c->seats[i].used && c->seats[i].id == id)
			return &c->seats[i];
	return NULL;
}

/* A free slot, else the oldest finished seat's, else NULL. */
struct seat *client_seat_slot(struct client *c, long id)
{
	struct seat *s = client_seat(c, id);
	if (s)
		return s;
	for (int i = 0; i < CLIENT_SEATS_MAX; i++)
		if (!c->seats[i].used)
			return &c->seats[i];
	for (int i = 0; i < CLIENT_SEATS_MAX; i++)
		if (c->seats[i].over && c->seats[i].id != c->seat_current)
			return &c->seats[i];
	return NULL;
}

void client_seat_drop(struct client *c, long id)
{
	struct seat *s = client_seat(c, id);
	if (s)
		seat_clear(s);
	if (c->seat_current != id)
		return;
	c->seat_current = -1;
	c->seat_focus = false;
	for (int i = 0; i < CLIENT_SEATS_MAX; i++)
		if (c->seats[i].used) {
			c->seat_current = c->seats[i].id;
			c->seat_focus = client_current(c) == NULL;
		}
}

struct seat *client_chair(struct client *c)
{
	struct seat *cur = c->seat_current >= 0 ? client_seat(c, c->seat_current) : NULL, *only = NULL;
	if (cur && cur->umpire)
		return cur;
	int n = 0;
	for (int i = 0; i < CLIENT_SEATS_MAX; i++)
		if (c->seats[i].used && c->seats[i].umpire) {
			only = &c->seats[i];
			n++;
		}
	return n == 1 ? only : NULL;
}

void client_show_seat(struct client *c, const struct seat *s)
{
	if (c->batch || !c->print || !s)
		return;
	char buf[SEAT_VIEW_MAX];
	seat_render(s, &c->ropts, now(c), buf, sizeof buf);
	c->print(c->ctx, buf);
}

/*
 * A slot for a new game: a free one, else a finished one's (not the current
 * game's), else a new one: every live game is tracked, however many there
 * are.  Growing moves the table, so no caller holds a game across this.
 */
static struct cgame *game_slot(struct client *c, long id)
{
	struct cgame *g = client_game(c, id);
	if (g)
		return g;
	for (int i = 0; i < c->ngames; i++)
		if (!c->games[i].used)
			return &c->games[i];
	for (int i = 0; i < c->ngames; i++)
		if (!c->games[i].live && c->games[i].id != c->current)
			return &c->games[i];
	int n = c->ngames ? c->ngames * 2 : CLIENT_GAMES_MIN;
	c->games = xreallocarray(c->games, (size_t)n, sizeof *c->games);
	memset(c->games + c->ngames, 0, (size_t)(n - c->ngames) * sizeof *c->games);
	g = &c->games[c->ngames];
	c->ngames = n;
	return g;
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
	if (g->live && g->view.to_move == color && !g->view.over && !g->paused)
		v -= now(c) - g->clock_at;
	return v < 0 ? 0 : v;
}

static void read_clock(struct client *c, struct cgame *g, const json_t *msg)
{
	json_t *clk = json_object_get(msg, "clock");
	json_t *w = json_object_get(clk, "white"), *b = json_object_get(clk, "black");
	if (!json_is_number(w) || !json_is_number(b))
		return;
	/* Below zero: the flag has fallen (or is about to), and the clock shows
	 * 0:00; a clock there is a timed game whatever it reads. */
	for (int col = WHITE; col <= BLACK; col++) {
		long ms = scrub_ms(col == WHITE ? w : b, 1);
		g->clock_ms[col] = ms > 0 ? ms : 0;
	}
	g->timed = true;
	g->clock_at = now(c);
}

/* One line of the announcement list under the board, numbered as chess
 * does and as `record` is ("12." White's half-move, "12..." Black's):
 * half is the half-move it belongs to, counted from 1. */
static void game_log(struct cgame *g, int half, const char *text)
{
	if (half < 1)
		half = 1;
	/* WORDS_MAX holds the words and the number (WORDS_NUMBER_MAX); words
	 * longer than any the server may cause are cut, between characters. */
	char num[WORDS_NUMBER_MAX];
	int k = snprintf(num, sizeof num, "%d%s ", (half + 1) / 2 % 100000, half % 2 == 0 ? "..." : ".");
	size_t room = WORDS_MAX - 1 - (k > 0 ? (size_t)k : 0);
	snprintf(g->log[g->log_n % CLIENT_LOG_MAX], WORDS_MAX, "%s%.*s", num, (int)words_fit(text, room), text);
	g->log_n++;
}

/* A notice (the umpire's action, adjournment): before the next half-move. */
static int notice_half(const json_t *msg)
{
	return (int)json_integer_value(json_object_get(msg, "ply")) + 1;
}

void client_render(const struct client *c, const struct cgame *g, char *buf, size_t len)
{
	struct render_opts ro = c->ropts;
	ro.bottom = g->color;
	ro.audience = aud_of(g->color);
	size_t n = render_board(&g->view.own, &g->ghosts, &ro, buf, len);
	int first = g->log_n > CLIENT_LOG_MAX ? g->log_n - CLIENT_LOG_MAX : 0;
	/* the older ones said to be left out, and where they are (the
	 * screen-reader probe: the list began mid-game, silently) */
	if (first > 0 && n < len) {
		int w = snprintf(buf + n, len - n, "  (%d earlier announcement%s: \"record %ld\" has them all)\n", first,
		                 first == 1 ? "" : "s", g->id);
		if (w > 0)
			n += (size_t)w;
	}
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

void client_show_true_board(struct client *c, const struct board *b, int bottom, bool live, long game)
{
	/* --plain: in words, a picture being no use to it (the screen-reader
	 * probe: an umpire's record ended with the grid alone) */
	if (c->plain) {
		char w[WORDS_MAX * 2], k[WORDS_MAX * 2];
		words_pieces(b, WHITE, w, sizeof w);
		words_pieces(b, BLACK, k, sizeof k);
		client_out(c, "#%ld: the true position %s: %s. %s.", game, live ? "now" : "at the end", w, k);
		return;
	}
	struct render_opts ro = c->ropts;
	ro.bottom = bottom;
	ro.audience = AUD_UMPIRE;
	char board[RENDER_BOARD_MAX];
	render_board(b, NULL, &ro, board, sizeof board);
	client_out(c, "The true board %s:\n%s", live ? "now" : "at the end", board);
}

void client_show_board(struct client *c, const struct cgame *g)
{
	if (c->batch || !c->print)
		return;
	char buf[RENDER_BOARD_MAX + CLIENT_LOG_MAX * (WORDS_MAX + 4)];
	client_render(c, g, buf, sizeof buf);
	c->print(c->ctx, buf);
}

/* ms until a clock reading v (ms) shows its next second (render_clock
 * rounds up); 1000 for none. */
static long tick_of(long v)
{
	return v > 0 ? (v - 1) % 1000 + 1 : 1000;
}

long client_prompt_tick(const struct client *c)
{
	long t = 1000;
	for (int i = 0; c->seat_focus && i < CLIENT_SEATS_MAX; i++)
		if (c->seats[i].used && c->seats[i].id == c->seat_current) {
			for (int col = WHITE; col <= BLACK; col++) {
				long d = tick_of(seat_clock(&c->seats[i], col, now(c)));
				t = d < t ? d : t;
			}
			return t;
		}
	for (int i = 0; i < c->ngames; i++)
		if (c->games[i].used && c->games[i].id == c->current)
			for (int col = WHITE; col <= BLACK; col++) {
				long d = tick_of(client_clock(c, &c->games[i], col));
				t = d < t ? d : t;
			}
	return t;
}

/* Whose move it is, as the prompt and `time` say it. */
static const char *turn_words(const struct cgame *g)
{
	return !g->live || g->view.over ? "game over"
	     : g->adjourned ? "adjourned"   /* nobody moves until "unadjourn" */
	     : g->paused ? "paused by the umpire"   /* nor until the unpause */
	     : g->view.to_move == g->color ? "your move" : "their move";
}

/* Is g's opponent away (the game going on)?  left: the time to their
 * deadline in words, "" when the game waits for them. */
static bool opponent_away(const struct client *c, const struct cgame *g, char left[32])
{
	left[0] = '\0';
	if (!g->opp_away || !g->live || g->view.over)
		return false;
	if (g->away_deadline > 0)
		words_duration(g->away_deadline - now(c), left, 32);
	return true;
}

/* "; Black is away, back within 0:47 or the game is lost by abandonment"
 * (no deadline: "; Black is away; the game waits"), or "": what the
 * prompt shows of an absent opponent, for `time` (the screen-reader probe:
 * --plain's prompt has no clock, so the deadline was said once only). */
static void away_words(const struct client *c, const struct cgame *g, char *buf, size_t len)
{
	char left[32];
	buf[0] = '\0';
	if (!opponent_away(c, g, left))
		return;
	if (left[0])
		snprintf(buf, len, "; %s is away, back within %s or the game is lost by abandonment",
		         words_side(!g->color), left);
	else
		snprintf(buf, len, "; %s is away; the game waits", words_side(!g->color));
}

void client_clocks_words(const struct client *c, const struct cgame *g, char *buf, size_t len)
{
	long w = client_clock(c, g, WHITE), b = client_clock(c, g, BLACK);
	char wc[RENDER_CLOCK_MAX], bc[RENDER_CLOCK_MAX], away[112];
	away_words(c, g, away, sizeof away);
	if (w < 0 || b < 0) {
		snprintf(buf, len, "#%ld: untimed; %s%s", g->id, turn_words(g), away);
		return;
	}
	render_clock(w, wc);
	render_clock(b, bc);
	/* A clock of days (a correspondence game's) also as the date it runs
	 * out, by this computer's clock: "2d 23:59" is a count, not a day.  A
	 * correspondence deadline whatever is left: under a day it matters
	 * most (the friends probe: "23:59:58" said no hour). */
	char due[80] = "";
	long run = g->view.to_move == WHITE ? w : b;
	if (g->live && !g->view.over && !g->paused && (g->days || run > 86400000L)) {
		char at[72];
		words_runs_out(g->view.to_move, wall(c) + run, at, sizeof at);
		if (at[0])
			snprintf(due, sizeof due, " (%s)", at);
	}
	snprintf(buf, len, "#%ld: White %s, Black %s; %s%s%s", g->id, wc, bc, turn_words(g), due, away);
}

void client_prompt(const struct client *c, char *buf, size_t len)
{
	const struct cgame *g = NULL;
	for (int i = 0; c->seat_focus && i < CLIENT_SEATS_MAX; i++)
		if (c->seats[i].used && c->seats[i].id == c->seat_current) {
			if (c->plain)
				snprintf(buf, len, "[#%ld %s%s] > ", c->seats[i].id, seat_prompt_kind(&c->seats[i]),
				         c->seats[i].over ? ", game over" : "");
			else
				seat_prompt(&c->seats[i], now(c), buf, len);
			return;
		}
	for (int i = 0; i < c->ngames; i++)
		if (c->games[i].used && c->games[i].id == c->current)
			g = &c->games[i];
	if (!g) {
		snprintf(buf, len, "%s%skrieg> ", c->logged_in ? c->user : "",
		         c->logged_in ? " " : "");
		return;
	}
	const char *turn = turn_words(g);
	if (c->plain) {   /* no clock to tick: the prompt changes only when the game does */
		snprintf(buf, len, "[#%ld %s | %s] > ", g->id, words_side(g->color), turn);
		return;
	}
	char wc[RENDER_CLOCK_MAX] = "-", bc[RENDER_CLOCK_MAX] = "-";
	long w = client_clock(c, g, WHITE), b = client_clock(c, g, BLACK);
	if (w >= 0)
		render_clock(w, wc);
	if (b >= 0)
		render_clock(b, bc);
	char away[64] = "", left[32];
	if (opponent_away(c, g, left))
		snprintf(away, sizeof away, " | %s away%s%s", words_side(!g->color), left[0] ? " " : "", left);
	if (g->timed)
		snprintf(buf, len, "[#%ld White %s | Black %s | %s%s] > ", g->id, wc, bc, turn, away);
	else
		snprintf(buf, len, "[#%ld %s | %s%s] > ", g->id, words_side(g->color), turn, away);
}

void client_tick(struct client *c)
{
	for (int i = 0; c->plain && !c->batch && i < c->ngames; i++) {
		struct cgame *g = &c->games[i];
		if (!g->used || !g->live || g->view.over || g->paused || g->view.to_move != g->color)
			continue;
		long v = client_clock(c, g, g->color);
		if (v < 0)
			continue;
		long secs = (v + 999) / 1000;
		if (secs > 30) {
			g->low_said = 0;   /* time added, or an increment: said again when it runs low again */
			continue;
		}
		long mark = secs > 10 ? 30 : 10;
		if (g->low_said > 0 && g->low_said <= mark)
			continue;
		g->low_said = mark;
		/* marked as a game not shown is everywhere (the screen-reader probe) */
		client_out(c, "#%ld%s: %ld second%s left on your clock", g->id, g->id == c->current ? "" : " (another game)",
		           secs, secs == 1 ? "" : "s");
	}
}

/* --- deferred words ------------------------------------------------------------ */

static void flush_game(struct client *c, struct cgame *g)
{
	if (g->redraw) {
		g->redraw = false;
		if (g->id == c->current)
			client_show_board(c, g);
	}
	if (g->turn_notice) {
		g->turn_notice = false;
		/* adjourned: no move is due, whoever is to move when it resumes */
		if (g->live && !g->view.over && g->adjourned)
			client_out(c, "#%ld: adjourned (\"unadjourn\" resumes it).", g->id);
		else if (g->live && !g->view.over && g->paused)
			client_out(c, "#%ld: paused by the umpire (no move until the unpause).", g->id);
		else if (g->live && !g->view.over && g->view.to_move == g->color && g->quiet_left == 0)
			client_out(c, "#%ld: your move%s", g->id, c->bell ? "\a" : "");
	}
	if (g->final_notice) {   /* under the player's own board, above the rematch */
		g->final_notice = false;
		client_show_true_board(c, &g->final, g->color, false, g->id);
	}
	if (g->rematch_notice) {   /* under the final board, not above it */
		g->rematch_notice = false;
		client_out(c, "(\"rematch\" to play %s again, colours swapped; \"record %ld umpire\" shows every "
		           "move and try.)", g->name[!g->color], g->id);
	}
}

void client_flush(struct client *c)
{
	for (int i = 0; i < c->ngames; i++)
		if (c->games[i].used)
			flush_game(c, &c->games[i]);
	for (int i = 0; i < CLIENT_SEATS_MAX; i++) {
		struct seat *s = &c->seats[i];
		if (s->used && s->redraw) {
			s->redraw = false;
			if (s->id == c->seat_current && c->seat_focus && !c->plain)   /* --plain: `board` shows it */
				client_show_seat(c, s);
		}
	}
}

bool client_deferred(const struct client *c)
{
	for (int i = 0; i < c->ngames; i++)
		if (c->games[i].used && (c->games[i].redraw || c->games[i].turn_notice))
			return true;
	for (int i = 0; i < CLIENT_SEATS_MAX; i++)
		if (c->seats[i].used && c->seats[i].redraw)
			return true;
	return false;
}

/* --- requests ------------------------------------------------------------------ */

void client_send_request(struct client *c, json_t *req, const struct pending *p)
{
	char *text = json_dumps(req, JSON_COMPACT);
	if (!text)
		abort();
	json_t *id = json_object_get(req, "id");
	if (c->npending < CLIENT_PENDING_MAX && json_is_integer(id)) {
		c->pending[c->npending] = *p;
		c->pending[c->npending].sent_at = now(c);
		const struct cgame *g = p->cmd && p->cmd->type == CMD_MOVE ? client_game(c, p->game) : NULL;
		c->pending[c->npending].plies = g ? g->plies : 0;
		c->pending[c->npending++].id = json_integer_value(id);
	}
	if (c->send && c->send(c->ctx, text) != 0)
		client_error(c, "could not send the request");
	free(text);
}

/* hello, or a keep-alive ping: no command awaits the answer */
static void send_bare(struct client *c, json_t *req)
{
	client_send_request(c, req, &(struct pending){ .game = -1 });
	json_decref(req);
}

/* Is a request of `type` about `game`, its arg above `above`, awaiting its answer? */
static bool pending_above(const struct client *c, enum cmd_type type, long game, long above)
{
	for (int i = 0; i < c->npending; i++)
		if (c->pending[i].cmd && c->pending[i].cmd->type == type && c->pending[i].game == game &&
		    c->pending[i].arg > above)
			return true;
	return false;
}

static bool pending_has(const struct client *c, enum cmd_type type, long game)
{
	return pending_above(c, type, game, LONG_MIN);
}

void client_send_page(struct client *c, const char *type, const struct cmd_entry *cmd, long game,
                      const char *view, long from, bool own)
{
	json_t *r = json_pack("{s:I, s:s, s:I}", "id", (json_int_t)c->next_id++, "type", type, "from", (json_int_t)from);
	if (game >= 0)
		json_object_set_new(r, "game", json_integer(game));
	if (view)
		json_object_set_new(r, "view", json_string(view));
	client_send_request(c, r, &(struct pending){ .cmd = cmd, .game = game, .arg = from, .own = own });
	json_decref(r);
}

/* --- games, continued ------------------------------------------------------------ */

/*
 * Why one's own try e came back impossible, read on the view as it stood
 * when it was made (before e is applied): no own piece could make it, or
 * it is a pawn capture the turn's pawn announcement rules out
 * (view_possible's pawn_ok, in the rule sets whose pawn information binds).
 */
static enum words_why impossible_why(const struct cgame *g, const struct event *e)
{
	const struct board *own = &g->view.own;
	int from = move_from(e->move), to = move_to(e->move);
	struct movelist ml;
	bool makeable = false;
	movegen_possible(own, g->color, &ml);
	for (int i = 0; i < ml.n && !move_is_drop(e->move); i++)
		makeable |= move_from(ml.m[i]) == from && move_to(ml.m[i]) == to;
	if (!makeable)
		return move_is_drop(e->move) ? WHY_UNSAID : WHY_OWN_PIECES;
	bool pawn_capture = piece_code_type(own->mailbox[from]) == PAWN && (from & 7) != (to & 7);
	if (pawn_capture && g->rs && g->rs->pawn_info_binds && !(g->view.pawn_ok >> from & 1))
		return WHY_PAWN_INFO;
	return WHY_UNSAID;
}

/* An announcement of game g in words for its player, read before view_apply(). */
static void announcement_words(const struct cgame *g, const json_t *msg, const struct event *e, char *words,
                               size_t len)
{
	if (e->type == EV_GAME_OVER && words_umpire_end(msg, words, len) == 0)
		return;
	if (e->type == EV_IMPOSSIBLE && e->by == g->color && e->move != MOVE_NONE)
		words_impossible(g->rs, e, impossible_why(g, e), words, len);
	else
		words_event(g->rs, e, g->color, e->san, words, len);
	/* One's own man taken: which one, read off one's own board as it stood
	 * (the player knew it; a screen reader user cannot glance at it).  Only
	 * one's own: nothing is said of the capturing side beyond the rules' words. */
	if (e->type == EV_CAPTURE && e->by != g->color && e->square >= 0 && e->square < 64) {
		/* gollon names en passant's landing square: one's pawn stood
		 * behind it, a rank nearer its captor (the wording probe: no
		 * "(your pawn)" for it) */
		int sq = e->en_passant ? e->square + (e->by == WHITE ? -8 : 8) : e->square;
		uint8_t code = sq >= 0 && sq < 64 ? g->view.own.mailbox[sq] : MAILBOX_EMPTY;
		size_t n = strlen(words);
		if (code != MAILBOX_EMPTY && piece_code_color(code) == g->color && n < len)
			snprintf(words + n, len - n, " (your %s)", words_man(piece_code_type(code)));
	}
}

/* A chat line of game g shown (live, or caught up): later views show only those after it. */
static void chat_shown(struct cgame *g, int ply)
{
	if (g->loading) {
		/* said after the view being read was taken: after its lines,
		 * whose count is not known yet (chat_catch_up places them) */
		if (g->live_ply == ply) {
			g->live_n++;
		} else {
			g->live_ply = ply;
			g->live_n = 1;
		}
		return;
	}
	if (g->chat_ply == ply) {
		g->chat_n++;
	} else {
		g->chat_ply = ply;
		g->chat_n = 1;
	}
}

/*
 * A chat event of a view being read (game_state, `game`): kept to be shown
 * with the view if it was not shown before, which the last line shown (its
 * ply, and its rank among that ply's lines) tells.  Counted by place, not
 * by text: the same words said twice are two lines.
 */
static void view_chat(struct cgame *g, const json_t *ev)
{
	int ply = (int)json_integer_value(json_object_get(ev, "ply"));
	if (g->view_chat_ply == ply) {
		g->view_chat_n++;
	} else {
		g->view_chat_ply = ply;
		g->view_chat_n = 1;
	}
	bool seen = g->chat_ply > ply || (g->chat_ply == ply && g->chat_n >= g->view_chat_n);
	char words[WORDS_CHAT_MAX];
	if (seen || words_chat(ev, g->name[WHITE], g->name[BLACK], g->color, words, sizeof words) != 0)
		return;
	/* not the last line shown until it is: a view whose later pages never
	 * come (the connection lost again) shows nothing, and the next one must
	 * still count this line as unseen (chat_catch_up moves the mark) */
	snprintf(g->chat_missed[g->chat_missed_n % CLIENT_CHAT_CATCHUP], WORDS_CHAT_MAX, "%s", words);
	g->chat_missed_n++;
}

/* The chat lines a view brought that had not been shown: before its board. */
static void chat_catch_up(struct client *c, struct cgame *g)
{
	int n = g->chat_missed_n, first = n > CLIENT_CHAT_CATCHUP ? n - CLIENT_CHAT_CATCHUP : 0;
	const char *tag = g->id == c->current ? "" : " (another game)";
	if (first > 0)
		client_out(c, "#%ld%s: %d earlier chat line%s (\"record %ld\" shows them).", g->id, tag, first,
		           first == 1 ? "" : "s", g->id);
	/* "(earlier)": said before this view, not now (the correspondence
	 * probe read a line from days before, shown at the login, as live) */
	for (int i = first; i < n; i++)
		client_out(c, "#%ld%s: (earlier) %s", g->id, tag, g->chat_missed[i % CLIENT_CHAT_CATCHUP]);
	g->chat_missed_n = 0;
	/* The mark: the view's last line, every one up to it shown now; then
	 * the live lines shown while it came in, which were said after it.
	 * Never back (a view holds at least what was shown before it). */
	if (g->view_chat_ply > g->chat_ply || (g->view_chat_ply == g->chat_ply && g->view_chat_n > g->chat_n)) {
		g->chat_ply = g->view_chat_ply;
		g->chat_n = g->view_chat_n;
	}
	if (g->live_n > 0 && g->live_ply == g->chat_ply) {
		g->chat_n += g->live_n;
	} else if (g->live_n > 0 && g->live_ply > g->chat_ply) {
		g->chat_ply = g->live_ply;
		g->chat_n = g->live_n;
	}
	g->live_ply = -1;
	g->live_n = 0;
}

/* Apply a page of a view's events: the board and the announcement log, and the chat not seen yet. */
static void apply_events(struct cgame *g, const json_t *evs)
{
	size_t i;
	json_t *ev;
	json_array_foreach(evs, i, ev) {
		struct event e;
		char words[WORDS_MAX];
		const char *name = json_string_value(json_object_get(ev, "event"));
		if (name && !strcmp(name, "chat")) {
			view_chat(g, ev);
			continue;
		}
		if (words_notice(ev, g->color, false, words, sizeof words) == 0) {
			game_log(g, notice_half(ev), words);   /* a record with the umpire's actions in it */
			continue;
		}
		/* Draw offers and declines, as adjournment's are (the friends
		 * probe: a decline while one was away was shown nowhere).  They
		 * name no ply: after the last half-move one did. */
		if (words_draw(ev, g->color, words, sizeof words) == 0) {
			game_log(g, g->plies + 1, words);
			int by = color_parse(json_string_value(json_object_get(ev, "by")));
			g->draw_declined = name[5] == 'd' && by == !g->color;
			continue;
		}
		if (words_read_event(ev, &e) != 0)
			continue;
		if (!e.audience)
			e.audience = (uint8_t)aud_of(g->color);
		announcement_words(g, ev, &e, words, sizeof words);
		view_apply(&g->view, &e);
		g->plies = e.ply > g->plies ? e.ply : g->plies;
		if (e.type == EV_MOVE)   /* one moved since: one was there, and heard the decline */
			g->draw_declined = false;
		if (e.type == EV_MOVE && e.by == g->color) {
			g->own_move_ply = e.ply;
			g->own_move_log = g->log_n;
		}
		game_log(g, words_half(&e), words);
	}
	ghost_sync(&g->ghosts, &g->view.own);
}

/* "#12: Black (bob) has left; the game is lost by abandonment unless they
 * are back within 0:47." (left "": "...; the game waits for them.") */
static void say_away(struct client *c, long id, const char *tag, const char *who, const char *did,
                     const char *left)
{
	if (left[0])
		client_out(c, "#%ld%s: %s %s; the game is lost by abandonment unless they are back within %s.",
		           id, tag, who, did, left);
	else
		client_out(c, "#%ld%s: %s %s; the game waits for them.", id, tag, who, did);
}

/* The whole view is in: show it. */
/* A try lost with the connection (try_lost): what became of it, from the
 * view rebuilt. */
static void say_try_lost(struct client *c, struct cgame *g)
{
	if (!g->try_lost)
		return;
	g->try_lost = false;
	if (g->own_move_ply > g->try_lost_plies && g->own_move_log >= 0 && g->own_move_log >= g->log_n - CLIENT_LOG_MAX)
		client_out(c, "#%ld: your try sent as the connection dropped was played (%s).", g->id,
		           g->log[g->own_move_log % CLIENT_LOG_MAX]);
	else if (g->live && !g->view.over && g->view.to_move == g->color)
		client_out(c, "#%ld: your try sent as the connection dropped was not played: it is still your move.",
		           g->id);
}

static void game_shown(struct client *c, struct cgame *g)
{
	g->loading = false;
	say_try_lost(c, g);
	chat_catch_up(c, g);
	/* --plain: on demand only, as after a move; a login's game states came
	 * unasked (the help probe: a board at every login) */
	g->redraw = g->id == c->current && (!c->plain || c->view_asked);
	/* `game` says whose move it is in its clocks' line: no "your move" of
	 * its own before it (the screen-reader probe: said twice) */
	g->turn_notice = g->live && !g->view.over && g->view.to_move == g->color && !c->game_asked;
	flush_game(c, g);
	/* A login's or a reconnection's state, with the opponent away: said
	 * with the deadline, as their leaving is (the friends probe: --plain,
	 * whose prompt has no clock, heard "is back" of a leaving never told;
	 * a prompt shows the current game's only).  An asked view says it in
	 * its clocks' line (away_words). */
	char left[32];
	if (!c->view_asked && !c->batch && opponent_away(c, g, left)) {
		char who[PROTO_NAME_MAX + 32];
		snprintf(who, sizeof who, "%s (%s)", words_side(!g->color), g->name[!g->color]);
		say_away(c, g->id, g->id == c->current ? "" : " (another game)", who, "is away", left);
	}
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
	/* the player's guesses survive a reconnection: they are theirs, not the server's;
	 * and so does the last chat line shown, so that only what was said since is */
	struct ghosts keep;
	bool keep_ghosts = g->used && g->id == id && g->color == color;
	int chat_ply = -1, chat_n = 0, try_lost_plies = 0;
	bool try_lost = false;
	if (keep_ghosts) {
		keep = g->ghosts;
		chat_ply = g->chat_ply;
		chat_n = g->chat_n;
		try_lost = g->try_lost;
		try_lost_plies = g->try_lost_plies;
	}
	memset(g, 0, sizeof *g);
	g->chat_ply = chat_ply;
	g->chat_n = chat_n;
	g->try_lost = try_lost;
	g->try_lost_plies = try_lost_plies;
	g->own_move_log = -1;
	g->view_chat_ply = -1;
	g->live_ply = -1;
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
	g->days = json_object_get(json_object_get(msg, "time"), "days") != NULL;

	struct board start;
	board_start(&start);
	if (fen && fen[0]) {
		struct board b;
		if (fen_parse(fen, &b, NULL, 0) == 0)
			start = b;
	}
	view_init(&g->view, &start, color);
	view_set_ruleset(&g->view, g->rs);
	ghost_init(&g->ghosts, !color);
	if (keep_ghosts)
		g->ghosts = keep;
	apply_events(g, json_object_get(msg, "events"));
	int tm = color_parse(json_string_value(json_object_get(msg, "to_move")));
	if (tm >= 0)
		g->view.to_move = tm;
	g->draw_offer_from = color_parse(json_string_value(json_object_get(msg, "draw_offer")));
	/* Stopped clocks: an umpire's pause, or an adjournment. */
	g->adjourned = json_is_true(json_object_get(msg, "adjourned"));
	g->paused = json_is_true(json_object_get(msg, "paused")) || g->adjourned;
	if (!g->live)
		g->view.over = true;
	read_clock(c, g, msg);
	if (g->live && json_is_object(json_object_get(msg, "opponent_away")))
		set_away(c, g, json_object_get(msg, "opponent_away"));
	if (make_current || c->current < 0 || c->current == id || !client_game(c, c->current))
		c->current = id;
	if (make_current)
		c->seat_focus = false;   /* a game of one's own comes first */

	/* game_start's "bots": the colours played by accounts flagged as bots */
	bool *bot = g->bot;
	bot[WHITE] = words_bot(msg, WHITE);
	bot[BLACK] = words_bot(msg, BLACK);
	/* the people watching it now (a live game's view says) */
	char watching[40];
	words_watching(g->live ? json_object_get(msg, "spectators") : NULL, "; ", watching, sizeof watching);
	/* the time control: an untimed game says so, as a timed one's clocks do (untimed probe) */
	char tc[72];
	words_time(json_object_get(msg, "time"), tc, sizeof tc);
	/* rated said; and unrated where a bot plays a person, which the server
	 * makes unrated whatever was asked (the bot probe asked for a rated
	 * game and was never told) */
	bool rated = json_is_true(json_object_get(msg, "rated"));
	const char *rating = rated ? ", rated" : bot[WHITE] != bot[BLACK] ? ", unrated (a bot's game)" : "";
	client_out(c, "%s %ld: %s (White%s) vs %s (Black%s), rules %s, %s%s; you play %s%s%s.",
	           state ? "Game" : "New game", id, g->name[WHITE], bot[WHITE] ? ", a bot" : "", g->name[BLACK],
	           bot[BLACK] ? ", a bot" : "", g->rs->name, tc, rating, words_side(color), watching,
	           g->id == c->current ? "" : " (\"switch\" to it to see it)");
	/* a director's pairing: its tournament and round (game_start) */
	char tour[PROTO_TOURNAMENT_MAX + 1], round[PROTO_ROUND_MAX + 1];
	words_clean(json_string_value(json_object_get(msg, "tournament")), tour, sizeof tour);
	words_clean(json_string_value(json_object_get(msg, "round")), round, sizeof round);
	g->tournament = tour[0] != '\0';
	if (tour[0] || round[0])
		client_out(c, "  %s%s%s%s.", tour, tour[0] && round[0] ? ", " : "", round[0] ? "round " : "", round);
	if (json_object_get(msg, "next")) {
		g->loading = true;   /* the rest of the events follow */
	} else if (!state) {
		/* a new game: its opening announcements follow; show it after them
		 * (--plain: on demand only) */
		g->redraw = g->id == c->current && !c->plain;
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

/* One announcement for this player. */
static void announcement(struct client *c, const json_t *msg, struct cgame *g)
{
	struct event e;
	if (words_read_event(msg, &e) != 0) {
		client_out(c, "(an announcement this client could not read)");
		return;
	}
	if (!e.audience)
		e.audience = (uint8_t)aud_of(g->color);
	bool was_mine = g->view.to_move == g->color;
	struct board before = g->view.own;
	struct ghosts ghosts_before = g->ghosts;
	/* The mover's own SAN is the server's: its capture mark says whether
	 * the move took a man (PROTOCOL.md), whatever the player typed. */
	char words[WORDS_MAX];
	announcement_words(g, msg, &e, words, sizeof words);
	/* A refused try of a preference list (exec_move keeps the number of
	 * tries in its pending arg): the list goes on by itself (its next try,
	 * or "All your tries were illegal"), so no "Try again" in its midst
	 * (the wording probe, nost) */
	static const char again[] = ". Try again";
	size_t wl = strlen(words);
	if (e.type == EV_ILLEGAL && e.by == g->color && wl > sizeof again - 1 &&
	    !strcmp(words + wl - (sizeof again - 1), again) && pending_above(c, CMD_MOVE, g->id, 1))
		words[wl - (sizeof again - 1)] = '\0';
	view_apply(&g->view, &e);
	g->plies = e.ply > g->plies ? e.ply : g->plies;
	ghost_sync(&g->ghosts, &g->view.own);
	/* What the board shows: own men, both reserves, the ghosts. */
	bool changed = memcmp(before.mailbox, g->view.own.mailbox, sizeof before.mailbox) != 0 ||
	               memcmp(before.hand, g->view.own.hand, sizeof before.hand) != 0 ||
	               memcmp(&ghosts_before, &g->ghosts, sizeof ghosts_before) != 0;
	read_clock(c, g, msg);
	game_log(g, words_half(&e), words);
	if (e.type == EV_GAME_OVER) {
		g->live = false;
		g->view.over = true;
	}
	/* A draw offer stands until the side it was made to moves (one made
	 * for them counts: PROTOCOL.md), and no event says it lapsed: a bare
	 * "draw" after one's own move accepted an offer gone, refused to the
	 * end of the game (the friends probe). */
	int lapsed = -1;
	if (words_offer_after(g->draw_offer_from, &e) != g->draw_offer_from) {
		lapsed = g->draw_offer_from;
		g->draw_offer_from = -1;
	}
	if (c->batch)
		return;
	const char *tag = g->id == c->current ? "" : " (another game)";
	client_out(c, "#%ld%s: %s", g->id, tag, words);
	if (lapsed == g->color)
		client_out(c, "#%ld%s: your draw offer lapsed with %s's move.", g->id, tag,
		           words_side(!g->color));
	else if (lapsed >= 0)
		client_out(c, "#%ld%s: %s's draw offer lapsed with your move.", g->id, tag, words_side(lapsed));
	if (e.type == EV_GAME_OVER && g->id == c->current) {
		g->rematch_notice = true;
		/* The end is the one moment a player sees the other side's men
		 * (the endings probe: the fen came and was not shown). */
		const char *fen = json_string_value(json_object_get(msg, "fen"));
		g->final_notice = fen && fen_parse(fen, &g->final, NULL, 0) == 0;
	}
	/* Redrawn after every event that changes what the board shows (and at
	 * the end), once the action's announcements are all in. */
	if (g->id == c->current && (changed || e.type == EV_GAME_OVER) && !c->plain)
		g->redraw = true;   /* --plain: on demand only (board, game) */
	if (g->live && !g->view.over && !was_mine && g->view.to_move == g->color)
		g->turn_notice = true;
	/* An "if quiet" sequence's items played for us, and its end: then the
	 * move is ours again (the wording probe: "your move" was said before
	 * each item the server played) */
	if (e.type == EV_MOVE && e.by == g->color && g->quiet_left > 0)
		g->quiet_left--;
	if (e.type == EV_QUIET_ENDED && e.by == g->color) {
		g->quiet_left = 0;
		g->quiet_stopped = true;
		g->turn_notice = g->live && !g->view.over && g->view.to_move == g->color;
	}
	/* a turn starts, or the game ends: nothing more of this action is coming */
	if (e.type == EV_PAWN_TRIES || e.type == EV_PAWN_CAPTURES || e.type == EV_PAWN_SQUARES ||
	    e.type == EV_GAME_OVER)
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

void client_game_answer(struct client *c, const json_t *msg, const struct pending *p)
{
	struct cgame *g;
	c->view_asked = true;
	c->game_asked = p->cmd && p->cmd->type == CMD_GAME;
	if (p->arg > 0) {
		g = client_game(c, p->game);
		if (g)
			game_more(c, g, msg);
	} else {
		g = game_begin(c, msg, true, p->cmd->type == CMD_SWITCH);
	}
	json_t *next = json_object_get(msg, "next");
	if (g && json_is_integer(next) && json_integer_value(next) > p->arg)
		client_send_page(c, "game", p->cmd, g->id, NULL, (long)json_integer_value(next), p->own);
	else {
		if (g && g->loading)
			game_shown(c, g);
		if (g && p->cmd && p->cmd->type == CMD_GAME) {
			/* `game`: the clocks too, in words, under the board */
			char clocks[256];
			client_clocks_words(c, g, clocks, sizeof clocks);
			client_out(c, "%s", clocks);
		}
	}
	c->view_asked = false;
	c->game_asked = false;
}

static void response(struct client *c, const json_t *msg)
{
	struct pending p = { .game = -1 };
	json_t *jid = json_object_get(msg, "id");
	bool known = json_is_integer(jid) && pending_take(c, json_integer_value(jid), &p);

	client_flush(c);   /* an action's events come before its answer */
	if (!json_is_true(json_object_get(msg, "ok"))) {
		json_t *err = json_object_get(msg, "error");
		const char *code = json_string_value(json_object_get(err, "code"));
		const char *text = json_string_value(json_object_get(err, "message"));
		c->errors++;
		snprintf(c->refused_code, sizeof c->refused_code, "%s", code ? code : "");
		/* the game it was about named, as every line of a game is; the
		 * code is for scripts and reports, not read out by --plain (the
		 * screen-reader probe: "not your turn (not_your_turn)", of which
		 * of two games?) */
		char why[512], game[32] = "", coded[48] = "";
		if (known && p.game >= 0 && !c->batch)
			snprintf(game, sizeof game, "#%ld: ", p.game);
		if (!c->plain || c->batch)
			snprintf(coded, sizeof coded, " (%s)", code ? code : "error");
		snprintf(why, sizeof why, "%s%s refused: %s%s", game, known && p.cmd ? p.cmd->name : "request",
		         text ? text : "no reason given", coded);
		words_clean(why, why, sizeof why);   /* one line, whatever the server wrote */
		if (c->batch && c->print)
			c->print(c->ctx, why);   /* --batch fails with a reason (stderr), not silently */
		else
			client_out(c, "%s", why);
		if (code && strcmp(code, "password_change_required") == 0)
			client_out(c, "%s", CLIENT_PASSWD_HINT);
		if (known && p.cmd && p.cmd->refused)
			p.cmd->refused(c, &p);
		return;
	}
	if (known && p.cmd && p.cmd->done)
		p.cmd->done(c, msg, &p);
}

/* --- events ------------------------------------------------------------------ */

static bool is_announcement(const char *name)
{
	for (int t = EV_MOVE; t <= UINT8_MAX; t++) { /* every type the core names, gaps skipped */
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

/* kriegd's events that are not the referee's announcements (those are
 * common/event.h's event types), as PROTOCOL.md names them. */
static const char *const server_events[] = {
	"account_disabled", "adjourn_declined", "adjourn_offer", "adjourned", "arrived", "board",
	"challenge", "challenge_cancelled", "challenge_declined", "chat", "clock_paused",
	"clock_unpaused", "connection", "departed", "draw_declined", "draw_offer", "following",
	"game_events", "game_flagged", "game_start", "game_state", "greeting", "message", "notice",
	"offer_lapsed", "opponent_away", "opponent_back", "ping", "seek", "seek_gone",
	"server_stopping", "session_ended", "tell", "time_added", "umpire_note", "unadjourned", "unwatched", "welcome",
};

const char *client_server_event_at(size_t i)
{
	return i < sizeof server_events / sizeof server_events[0] ? server_events[i] : NULL;
}

bool client_event_known(const char *name)
{
	if (event_type_parse(name) >= 0)
		return true;
	for (size_t i = 0; client_server_event_at(i) != NULL; i++)
		if (strcmp(client_server_event_at(i), name) == 0)
			return true;
	return false;
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

/* The umpire's action in a game one plays: the clocks may stop or change. */
static void umpire_action(struct client *c, struct cgame *g, const json_t *msg, const char *name)
{
	char words[WORDS_MAX];
	if (words_notice(msg, g->color, true, words, sizeof words) != 0)
		return;
	if (!strcmp(name, "clock_paused") || !strcmp(name, "adjourned"))
		g->paused = true;
	else if (!strcmp(name, "clock_unpaused") || !strcmp(name, "unadjourned"))
		g->paused = false;
	if (!strcmp(name, "adjourned") || !strcmp(name, "unadjourned"))
		g->adjourned = name[0] == 'a';
	read_clock(c, g, msg);
	game_log(g, notice_half(msg), words);
	client_out(c, "#%ld%s: %s", g->id, g->id == c->current ? "" : " (another game)", words);
}

/* A live event of a watched game. */
static void seat_incoming(struct client *c, struct seat *s, const json_t *msg)
{
	char words[WORDS_MAX];
	unsigned fx = seat_event(s, msg, now(c), words, sizeof words);
	if (!(fx & SEAT_SAID))
		return;
	/* the chair's line says who heard it */
	client_out(c, "#%ld (%s): %s", s->id, seat_kind(s), s->umpire ? s->log[(s->log_n - 1) % SEAT_LOG_MAX] : words);
	if (fx & SEAT_ENDED)
		client_out(c, "#%ld: the game is over and the seat closed (\"unwatch %ld\" clears it here).", s->id, s->id);
}

static void event_in(struct client *c, const json_t *msg, const char *name);

void client_seat_loaded(struct client *c, struct seat *s)
{
	json_t *held = s->held;
	s->held = NULL;
	s->loading = false;
	size_t i;
	json_t *ev;
	long id = s->id;
	json_array_foreach(held, i, ev) {
		const char *name = json_string_value(json_object_get(ev, "event"));
		if (name == NULL || client_seat(c, id) != s || s->over)
			break;   /* the seat gone or closed by one of them */
		event_in(c, ev, name);
	}
	json_decref(held);
}

/* The server took a seat away (the umpire's own game started, a role changed). */
static void unwatched(struct client *c, const json_t *msg)
{
	long id = (long)json_integer_value(json_object_get(msg, "game"));
	char why[256];
	words_clean(json_string_value(json_object_get(msg, "reason")), why, sizeof why);
	if (!client_seat(c, id))
		return;
	client_out(c, "#%ld: you no longer hold the %s seat%s%s.", id,
	            client_seat(c, id)->umpire ? "umpire's" : "spectator's", why[0] ? ": " : "", why);
	client_seat_drop(c, id);
}

/* Chat of one's own game or of a watched one: the players' words, set apart from the umpire's. */
static void chat_event(struct client *c, const json_t *msg, long id, struct cgame *g,
                       const struct seat *s)
{
	char words[WORDS_CHAT_MAX];
	if (!g && !s)
		return;   /* a game this client does not follow (a seat just left) */
	const char *wn = g ? g->name[WHITE] : s->name[WHITE], *bn = g ? g->name[BLACK] : s->name[BLACK];
	if (words_chat(msg, wn, bn, g ? g->color : -1, words, sizeof words) != 0)
		return;
	if (g) {
		chat_shown(g, (int)json_integer_value(json_object_get(msg, "ply")));
		client_out(c, "#%ld%s: %s", id, id == c->current ? "" : " (another game)", words);
	} else {
		client_out(c, "#%ld (%s): %s", id, seat_kind(s), words);
	}
}

/* opponent_away / opponent_back: the prompt of one's own game counts the grace down. */
static void presence_event(struct client *c, const json_t *msg, const char *name, long id, struct cgame *g,
                           struct seat *s)
{
	int col = color_parse(json_string_value(json_object_get(msg, "color")));
	bool away = strcmp(name, "opponent_away") == 0;
	if ((!g && !s) || col < 0)
		return;
	if (g && col == g->color)
		return;   /* about oneself: another session's business */
	char who[PROTO_NAME_MAX + 32], tag[32];
	snprintf(who, sizeof who, "%s (%s)", words_side(col), g ? g->name[col] : s->name[col]);
	if (g)
		snprintf(tag, sizeof tag, "%s", id == c->current ? "" : " (another game)");
	else
		snprintf(tag, sizeof tag, " (%s)", seat_kind(s));
	if (!away) {
		if (g)
			g->opp_away = false;
		else
			s->away[col] = false;
		client_out(c, "#%ld%s: %s is back.", id, tag, who);
		return;
	}
	long long ms = away_left(c, msg);
	char left[32] = "";
	if (ms >= 0)
		words_duration(ms, left, sizeof left);
	/* told again while away: the deadline changed (a pause, the server
	 * stood still), not a second leaving (the browser probe: "has left"
	 * twice) */
	const char *did = (g ? g->opp_away : s->away[col]) ? "is still away" : "has left";
	if (g)
		set_away(c, g, msg);
	else
		s->away[col] = true;   /* a chair hears each new deadline too (a review) */
	say_away(c, id, tag, who, did, left);
}

void client_seat_away(struct client *c, struct seat *s, const json_t *away)
{
	static const char *const names[2] = { "white", "black" };
	for (int col = WHITE; col <= BLACK; col++) {
		const json_t *aw = json_object_get(away, names[col]);
		if (!json_is_object(aw))
			continue;
		json_t *msg = json_pack("{s:s}", "color", names[col]);
		for (int k = 0; k < 2; k++) {
			const char *key = k ? "left" : "until";
			json_t *v = json_object_get(aw, key);
			if (json_is_integer(v))
				json_object_set(msg, key, v);
		}
		presence_event(c, msg, "opponent_away", s->id, NULL, s);
		json_decref(msg);
	}
}

/* welcome: what waited while one was away (after the login's game states). */
static void welcome(struct client *c, const json_t *msg)
{
	size_t i;
	json_t *x;
	json_t *turn = json_object_get(msg, "your_move"), *offers = json_object_get(msg, "draw_offers"),
	       *ended = json_object_get(msg, "ended");
	client_out(c, "While you were away:");
	json_array_foreach(turn, i, x) {
		char left[32] = "", opp[PROTO_NAME_MAX + 1];
		json_t *l = json_object_get(x, "left");
		if (json_is_integer(l))
			words_duration((long long)json_integer_value(l), left, sizeof left);
		words_clean(json_string_value(json_object_get(x, "opponent")), opp, sizeof opp);
		client_out(c, "  game %lld against %s: %s%s%s%s.",
		           (long long)json_integer_value(json_object_get(x, "game")), opp[0] ? opp : "?",
		           json_is_true(json_object_get(x, "adjourned")) ? "adjourned, your move when it resumes"
		           : json_is_true(json_object_get(x, "paused")) ? "paused by the umpire, your move when "
		                                                          "it resumes"
		                                                        : "your move",
		           left[0] ? " (" : "", left, left[0] ? " left)" : "");
	}
	json_array_foreach(offers, i, x) {
		long id = (long)json_integer_value(json_object_get(x, "game"));
		int by = color_parse(json_string_value(json_object_get(x, "by")));
		const struct cgame *g = client_game(c, id);
		char sw[48] = "";   /* the current game needs no switch (the friends probe) */
		if (id != c->current)
			snprintf(sw, sizeof sw, "\"switch %ld\", then ", id);
		if (g && by == g->color)
			client_out(c, "  game %ld: your draw offer stands.", id);
		else
			client_out(c, "  game %ld: %s offers a draw (%s\"draw accept\" or \"draw decline\").", id,
			           words_side(by), sw);
	}
	/* One's own offer declined meanwhile: only its game's view had it (the friends probe). */
	for (int k = 0; k < c->ngames; k++)
		if (c->games[k].used && c->games[k].live && c->games[k].draw_declined)
			client_out(c, "  game %ld: %s declined your draw offer.", c->games[k].id,
			           words_side(!c->games[k].color));
	json_array_foreach(ended, i, x) {
		char res[16], why[32], opp[PROTO_NAME_MAX + 1], against[PROTO_NAME_MAX + 16] = "";
		words_clean(json_string_value(json_object_get(x, "result")), res, sizeof res);
		words_clean(json_string_value(json_object_get(x, "reason")), why, sizeof why);
		words_clean(json_string_value(json_object_get(x, "opponent")), opp, sizeof opp);
		if (opp[0])
			snprintf(against, sizeof against, " against %s", opp);
		/* the side played (servers since December 2026 say it): whose result */
		int col = color_parse(json_string_value(json_object_get(x, "color")));
		const char *mine = "";
		if (col >= 0 && strcmp(res, "1/2-1/2") == 0)
			mine = ", a draw";
		else if (col >= 0 && (strcmp(res, "1-0") == 0 || strcmp(res, "0-1") == 0))
			mine = (strcmp(res, "1-0") == 0) == (col == WHITE) ? ", you won" : ", you lost";
		char ending[64];
		words_ending(res[0] ? res : NULL, why[0] ? why : NULL, ending, sizeof ending);
		client_out(c, "  game %lld%s ended: %s%s.",
		           (long long)json_integer_value(json_object_get(x, "game")), against, ending, mine);
	}
	/* The challenges waiting, said before the games' boards scrolled them away. */
	for (int k = 0; k < c->nwaiting; k++)
		client_out(c, "  %s", c->waiting[k].line);
	if (c->nwaiting == CLIENT_WAITING_MAX)
		client_out(c, "  (\"seeks\" lists every challenge to you.)");
}

/* A challenge to us (its line as shown), kept for the login summary. */
static void waiting_add(struct client *c, long offer, const char *line)
{
	int k = 0;
	while (k < c->nwaiting && c->waiting[k].offer != offer)
		k++;   /* one shown again (an unmute) keeps its place */
	if (k == CLIENT_WAITING_MAX)
		return;   /* more: the summary points at "seeks" */
	c->waiting[k].offer = offer;
	snprintf(c->waiting[k].line, sizeof c->waiting[k].line, "%s", line);
	c->nwaiting += k == c->nwaiting;
}

/* A challenge gone (cancelled, accepted elsewhere): no longer waiting. */
static void waiting_drop(struct client *c, long offer)
{
	for (int k = 0; k < c->nwaiting; k++)
		if (c->waiting[k].offer == offer) {
			memmove(&c->waiting[k], &c->waiting[k + 1], (size_t)(c->nwaiting - k - 1) * sizeof c->waiting[0]);
			c->nwaiting--;
			return;
		}
}

/* A followed player's game began: watched at once by someone playing no
 * live game (a seat would take the board from their own), said otherwise. */
static void following(struct client *c, const json_t *msg)
{
	char who[PROTO_NAME_MAX + 1], w[PROTO_NAME_MAX + 1], b[PROTO_NAME_MAX + 1], rules[24];
	words_clean(json_string_value(json_object_get(msg, "user")), who, sizeof who);
	words_clean(json_string_value(json_object_get(msg, "white")), w, sizeof w);
	words_clean(json_string_value(json_object_get(msg, "black")), b, sizeof b);
	words_clean(json_string_value(json_object_get(msg, "rules")), rules, sizeof rules);
	long game = (long)json_integer_value(json_object_get(msg, "game"));
	bool playing = client_playing(c);
	/* Said once: both of its players may be followed, each a `following`
	 * (the friends probe: two lines of one game, one after the other). */
	if (c->batch || (game > 0 && game == c->following_said))
		return;
	c->following_said = game;
	client_out(c, "%s began game %ld: %s (White) vs %s (Black), %s, %s%s", who, game, w, b, rules,
	           json_is_true(json_object_get(msg, "rated")) ? "rated" : "unrated",
	           playing ? "; you are playing, so it is not watched here (\"watch\" it later)." : ".");
	/* Watched once: both of its players may be followed (director probe:
	 * the catch-up was shown twice). */
	if (!playing && game > 0 && client_seat(c, game) == NULL && !pending_has(c, CMD_WATCH, game)) {
		char line[40];
		snprintf(line, sizeof line, "watch %ld", game);
		client_command(c, line);
	}
}

static void event(struct client *c, const json_t *msg, const char *name)
{
	remember_event(c, name);
	event_in(c, msg, name);
}

static void event_in(struct client *c, const json_t *msg, const char *name)
{
	if (!strcmp(name, "ping")) {
		/* answer a quiet-client probe so the server keeps us */
		send_bare(c, json_pack("{s:I, s:s}", "id", (json_int_t)c->next_id++, "type", "ping"));
		return;
	}
	if (!strcmp(name, "challenge")) {
		/* its terms: "alice (1500?) challenges you: icc, 3 days a move, rated, you play Black" */
		char terms[WORDS_CHAT_MAX];
		c->last_challenge = (long)json_integer_value(json_object_get(msg, "offer"));
		words_offer(msg, c->user, terms, sizeof terms);
		const char *colon = strstr(terms, ": ");
		long rematch = (long)json_integer_value(json_object_get(msg, "rematch"));
		char asks[48];
		if (rematch > 0)
			snprintf(asks, sizeof asks, "asks for a rematch of game %ld", rematch);
		char line[sizeof c->waiting[0].line];
		if (!colon)
			return;
		snprintf(line, sizeof line, "%.*s %s:%s. Type \"accept %ld\" or \"decline %ld\".", (int)(colon - terms),
		         terms, rematch > 0 ? asks : "challenges you", colon + 1, c->last_challenge, c->last_challenge);
		client_out(c, "%s%s", line, c->bell ? "\a" : "");
		waiting_add(c, c->last_challenge, line);
		return;
	}
	if (!strcmp(name, "seek") || !strcmp(name, "seek_gone")) {
		/* the lobby, pushed (lobby on) */
		char terms[WORDS_CHAT_MAX];
		long offer = (long)json_integer_value(json_object_get(msg, "offer"));
		if (name[4] == '_') {
			client_out(c, "Seek %ld is gone.", offer);
			return;
		}
		words_offer(msg, c->user, terms, sizeof terms);
		const char *who = json_string_value(json_object_get(msg, "user"));
		bool mine = who && !strcmp(who, c->user);
		client_out(c, "Seek %ld: %s%s%ld%s", offer, terms, mine ? " (yours; \"cancel " : " (\"play ",
		           offer, "\")");
		return;
	}
	if (!strcmp(name, "game_start") || !strcmp(name, "game_state")) {
		bool start = strcmp(name, "game_start") == 0;
		game_begin(c, msg, !start, start);
		return;
	}
	long id = (long)json_integer_value(json_object_get(msg, "game"));
	struct cgame *g = json_object_get(msg, "game") ? client_game(c, id) : NULL;
	if (!strcmp(name, "following")) {
		following(c, msg);
		return;
	}
	if (!strcmp(name, "arrived") || !strcmp(name, "departed")) {   /* a followed player */
		char who[PROTO_NAME_MAX + 1];
		words_clean(json_string_value(json_object_get(msg, "user")), who, sizeof who);
		client_out(c, "Notification: %s has %s.", who[0] ? who : "someone", name);
		return;
	}
	if (!strcmp(name, "unwatched")) {
		unwatched(c, msg);
		return;
	}
	/* A game one watches (never one's own: the server seats no player in
	 * their game).  Its every event while its catch-up is read (chat and
	 * presence too, which came before the catch-up's lines: a review) is
	 * held, and handled in order after it (client_seat_loaded). */
	struct seat *seat = !g && json_object_get(msg, "game") ? client_seat(c, id) : NULL;
	if (seat && seat->loading && !seat->over) {
		seat_hold(seat, msg);
		return;
	}
	if (!strcmp(name, "chat")) {
		chat_event(c, msg, id, g, seat);
		return;
	}
	if (!strcmp(name, "opponent_away") || !strcmp(name, "opponent_back")) {
		presence_event(c, msg, name, id, g, seat);
		return;
	}
	if (g && (!strcmp(name, "clock_paused") || !strcmp(name, "clock_unpaused") ||
	          !strcmp(name, "time_added") || !strcmp(name, "umpire_note") ||
	          !strcmp(name, "adjourn_offer") || !strcmp(name, "adjourn_declined") ||
	          !strcmp(name, "adjourned") || !strcmp(name, "unadjourned"))) {
		umpire_action(c, g, msg, name);
		return;
	}
	if (seat) {
		seat_incoming(c, seat, msg);
		return;
	}
	if (g && !strcmp(name, "game_events")) {
		game_more(c, g, msg);
		return;
	}
	if (g && is_announcement(name)) {
		announcement(c, msg, g);
		return;
	}
	char said[WORDS_MAX];
	if (g && words_draw(msg, g->color, said, sizeof said) == 0)
		game_log(g, g->plies + 1, said);   /* in the list as a view replays it */
	if (g && !strcmp(name, "draw_offer")) {
		int by = color_parse(json_string_value(json_object_get(msg, "by")));
		g->draw_offer_from = by >= 0 ? by : !g->color;
		read_clock(c, g, msg);
		if (g->draw_offer_from != g->color)
			client_out(c, "#%ld: %s offers a draw: \"draw accept\" or \"draw decline\".", g->id,
			           words_side(g->draw_offer_from));
		else if (!pending_has(c, CMD_DRAW, g->id))
			client_out(c, "#%ld: you offered a draw (in another session).", g->id);
		return;   /* our own offer from here: its answer says "Draw offered." */
	}
	if (g && !strcmp(name, "draw_declined")) {
		int by = color_parse(json_string_value(json_object_get(msg, "by")));
		g->draw_offer_from = -1;
		read_clock(c, g, msg);
		if (by != g->color)
			client_out(c, "#%ld: %s declined the draw.", g->id, by >= 0 ? words_side(by) : "Your opponent");
		return;
	}
	/* The server ends the session and closes: said, and not undone by a
	 * reconnection (a kick would last a second; a disabled account's resume
	 * is refused anyway). */
	if (!strcmp(name, "session_ended") || !strcmp(name, "account_disabled"))
		c->ended = true;
	if (c->batch)
		return;
	char words[WORDS_CHAT_MAX];
	if (!strcmp(name, "session_ended") || !strcmp(name, "account_disabled")) {
		words_clean(json_string_value(json_object_get(msg, "reason")), words, sizeof words);
		client_out(c, "The server ended this session: %s.", name[0] == 'a' ? "this account is disabled"
		                                                    : words[0] ? words : "no reason given");
	} else if (!strcmp(name, "notice")) {
		char from[PROTO_NAME_MAX + 1], text[WORDS_NOTICE_MAX];
		words_clean(json_string_value(json_object_get(msg, "text")), text, sizeof text);
		words_clean(json_string_value(json_object_get(msg, "from")), from, sizeof from);
		client_out(c, "Notice from %s: %s", from[0] ? from : "the server", text);
	} else if (!strcmp(name, "server_stopping")) {
		/* Before the close a restart makes (the ops probe: it read as a
		 * lost connection); krieg reconnects as after any (main.c). */
		client_out(c, "The server is stopping (a restart, or its admin took it down); your games are kept.");
	} else if (!strcmp(name, "welcome"))
		welcome(c, msg);
	else if (words_tell(msg, words, sizeof words) == 0)
		client_out(c, "%s", words);
	else if (!strcmp(name, "greeting")) {
		client_out(c, "Connected to %s.", json_string_value(json_object_get(msg, "server")) ?: "a krieg server");
		char motd[WORDS_NOTICE_MAX];
		words_clean(json_string_value(json_object_get(msg, "motd")), motd, sizeof motd);
		if (motd[0])   /* the club's message of the day */
			client_out(c, "Message of the day: %s", motd);
	}
	else if (!strcmp(name, "challenge_declined") || !strcmp(name, "offer_lapsed")) {
		/* Ours; at a login, what became of it while we were away. */
		char who[PROTO_NAME_MAX + 1];
		const char *key = name[0] == 'c' ? "by" : "user";
		long long offer = (long long)json_integer_value(json_object_get(msg, "offer"));
		words_clean(json_string_value(json_object_get(msg, key)), who, sizeof who);
		const char *away = json_is_true(json_object_get(msg, "while_away")) ? " while you were away" : "";
		char why[256];   /* the decliner's words, if they gave any (at most 200 bytes) */
		words_clean(json_string_value(json_object_get(msg, "reason")), why, sizeof why);
		if (name[0] == 'c' && why[0])
			client_out(c, "%s declined your challenge (offer %lld)%s: \"%s\".",
			           who[0] ? who : "Your opponent", offer, away, why);
		else if (name[0] == 'c')
			client_out(c, "%s declined your challenge (offer %lld)%s.", who[0] ? who : "Your opponent",
			           offer, away);
		else if (who[0])
			client_out(c, "Your challenge to %s (offer %lld) lapsed unanswered%s.", who, offer, away);
		else
			client_out(c, "Your seek (offer %lld) lapsed unanswered%s.", offer, away);
	} else if (!strcmp(name, "challenge_cancelled")) {
		/* Answered on another connection of ours (the two-devices probe),
		 * lapsed, hidden by a mute; any other reason, or none, a withdrawal
		 * (PROTOCOL.md: an unknown reason read so; "lapsed unanswered" was
		 * said of any). */
		const char *why = json_string_value(json_object_get(msg, "reason"));
		long long offer = (long long)json_integer_value(json_object_get(msg, "offer"));
		json_t *game = json_object_get(msg, "game");
		waiting_drop(c, (long)offer);
		if (why && !strcmp(why, "accepted") && json_is_integer(game))
			client_out(c, "Challenge %lld was accepted on another connection: game %lld.", offer,
			           (long long)json_integer_value(game));
		else
			client_out(c, !why ? "Challenge %lld was withdrawn."
			              : !strcmp(why, "muted") ? "Challenge %lld is hidden: you muted its sender."
			              : !strcmp(why, "lapsed") ? "Challenge %lld lapsed unanswered."
			              : !strcmp(why, "declined") ? "Challenge %lld was declined on another connection."
			              : !strcmp(why, "accepted") ? "Challenge %lld was accepted on another connection."
			                                          : "Challenge %lld was withdrawn.",
			           offer);
	}
}

/* A server's line: its text is scrubbed (scrub.h) before anything of it is
 * shown, the verbatim copy of batch mode included. */
void client_receive(struct client *c, const char *line)
{
	liveness_heard(&c->alive, now(c));   /* whatever it is, the connection is alive */
	if (c->batch && c->print_raw) {
		char *shown = xstrdup(line);
		scrub_text(shown, strlen(shown));
		c->print_raw(c->ctx, shown);
		free(shown);
	}
	json_error_t je;
	json_t *msg = json_loads(line, 0, &je);
	if (!json_is_object(msg)) {
		json_decref(msg);
		if (!c->batch)
			client_out(c, "(unreadable line from the server)");
		return;
	}
	scrub_json(msg);
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
	c->alive.probing = false;
	c->login_here = false;
	for (int i = 0; i < c->npending; i++) {
		const struct pending *p = &c->pending[i];
		if (!p->cmd || p->own)
			continue;
		dropped++;
		struct cgame *g = p->cmd->type == CMD_MOVE ? client_game(c, p->game) : NULL;
		if (g && g->live && !g->try_lost) {
			g->try_lost = true;
			g->try_lost_plies = p->plies;
		}
	}
	c->npending = 0;
	if (c->pgn_busy)
		client_pgn_reset(c);
	return dropped;
}

bool client_playing(const struct client *c)
{
	for (int i = 0; i < c->ngames; i++)
		if (c->games[i].used && c->games[i].live && !c->games[i].view.over)
			return true;
	return false;
}

/* A game here that goes on: one's own, or a watched one. */
static bool live_here(const struct client *c)
{
	if (client_playing(c))
		return true;
	for (int i = 0; i < CLIENT_SEATS_MAX; i++)
		if (c->seats[i].used && !c->seats[i].over)
			return true;
	return false;
}

void liveness_heard(struct liveness *l, long now)
{
	l->last_rx = now;
	l->probing = false;
}

enum liveness_step liveness_step(struct liveness *l, long now, bool live, bool awaiting,
                                 long await_since)
{
	if (l->probing)
		return now - l->probe_at < CLIENT_DEAD_MS ? LIVENESS_OK : LIVENESS_LOST;
	long since = l->last_rx;
	if (!live && awaiting && await_since > since)
		since = await_since;   /* its answer is awaited from then on */
	if (!(live || awaiting) || now - since < CLIENT_QUIET_MS)
		return LIVENESS_OK;
	/* the answer, or any line at all, says the path still carries */
	l->probing = true;
	l->probe_at = now;
	return LIVENESS_ASK;
}

bool client_alive(struct client *c)
{
	long oldest = 0;
	for (int i = 0; i < c->npending; i++)
		if (i == 0 || c->pending[i].sent_at < oldest)
			oldest = c->pending[i].sent_at;
	enum liveness_step st = liveness_step(&c->alive, now(c), live_here(c), c->npending > 0, oldest);
	if (st == LIVENESS_ASK)
		send_bare(c, json_pack("{s:I, s:s}", "id", (json_int_t)c->next_id++, "type", "ping"));
	return st != LIVENESS_LOST;
}

long client_silent_ms(const struct client *c)
{
	return now(c) - c->alive.last_rx;
}

int client_resume(struct client *c)
{
	char line[CLIENT_TOKEN_MAX + 8];
	if (!c->token[0])
		return -1;
	snprintf(line, sizeof line, "resume %s", c->token);
	int rc = client_command(c, line);
	memset(line, 0, sizeof line);
	/* krieg's own, at a reconnection: lost with the connection, no request
	 * of the user's went unanswered (client_disconnected) */
	struct pending *p = rc == 0 && c->npending > 0 ? &c->pending[c->npending - 1] : NULL;
	if (p && p->cmd && p->cmd->type == CMD_RESUME)
		p->own = true;
	return rc == 0 ? 0 : -1;
}

/* --- commands ---------------------------------------------------------------- */

int client_hello(struct client *c)
{
	liveness_heard(&c->alive, now(c));   /* a new connection: its silence counts from here */
	send_bare(c, json_pack("{s:I, s:s, s:i}", "id", (json_int_t)c->next_id++, "type", "hello",
	                       "version", PROTO_VERSION));
	return 0;
}

/* Parse; the entry's exec hook; its request, sent and awaited. */
int client_command(struct client *c, const char *line)
{
	struct cmd cmd;
	char err[256];

	client_flush(c);
	if (cmd_parse(line, &cmd, err, sizeof err) != 0) {
		/* wait and sleep come here only outside --batch, where even a
		 * well-formed one is refused (cmd.c exec_batch_only): said first,
		 * not a usage that leads to that refusal (own-changes probe). */
		const char *w = line + strspn(line, " \t");
		int n = (int)strcspn(w, " \t\r\n");
		if ((n == 4 && strncmp(w, "wait", 4) == 0) || (n == 5 && strncmp(w, "sleep", 5) == 0))
			return client_error(c, "%.*s: " CMD_BATCH_ONLY, n, w);
		return client_error(c, "%s", err);
	}
	if (!cmd.entry)
		return 0;
	struct cgame *g = client_current(c);
	const struct seat *seat = c->seat_focus ? client_seat(c, c->seat_current) : NULL;
	/* A player's command typed at a watched board goes nowhere, even with
	 * a game of one's own behind the seat: it acted on that game, out of
	 * sight (the help probe: `possible`, `pieces` and `game` on the own
	 * finished game while the prompt showed the chair). */
	if (cmd.entry->game && seat) {
		char what[48] = "moves and offers";
		if (cmd.type != CMD_MOVE)
			snprintf(what, sizeof what, "moves, offers and \"%s\"", cmd.entry->name);
		return client_error(c, "game %ld is watched here%s: %s are its players'%s",
		                    seat->id, seat->umpire ? " from the umpire's chair" : "", what,
		                    g ? " (\"switch GAME\" to a game of your own)"
		                      : seat->umpire ? " (\"help\" lists the umpire's commands)"
		                                     : " (\"spec\" speaks to its other spectators)");
	}
	if (!g && cmd.entry->game && cmd_is_local(&cmd))
		return client_error(c, "no current game");   /* a request says more (cmd_request) */
	if (c->confirm != cmd.type)
		c->confirm = CMD_NONE;   /* a question asked is forgotten at any other command */
	/* the game a request is about: the current one for a game's command
	 * (exec may name another); none for the others (the TD probe: an
	 * announce's refusal was labelled "#10:", the current game's number) */
	struct pending p = { .cmd = cmd.entry, .game = g && cmd.entry->game ? g->id : -1 };
	int rc = cmd.entry->exec ? cmd.entry->exec(c, &cmd, &p) : 0;
	if (rc == CLIENT_HANDLED)
		return 0;
	json_t *req = rc == 0 ? cmd_request(&cmd, c->next_id, g ? g->id : -1, err, sizeof err) : NULL;
	memset(cmd.argv, 0, sizeof cmd.argv);   /* a password must not linger */
	if (rc != 0 || cmd_is_local(&cmd))
		return rc;
	if (!req)
		return client_error(c, "%s", err[0] ? err : "nothing to send");
	c->next_id++;
	client_send_request(c, req, &p);
	json_decref(req);
	return 0;
}
