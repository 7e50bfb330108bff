/*
 * seat.c — a watched game: a spectator's seat or the umpire's chair (see seat.h).
 */
#include "seat.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "event.h"
#include "fen.h"
#include "notation.h"
#include "scrub.h"
#include "words.h"

static int color_parse(const char *s)
{
	if (!s)
		return -1;
	return !strcmp(s, "white") ? WHITE : !strcmp(s, "black") ? BLACK : -1;
}

const char *seat_kind(const struct seat *s)
{
	return s->umpire ? "umpire" : "watching";
}

/* TD probe: a finished game's prompt read "umpire" as if the chair were
 * still held; its seat is closed (kept until "unwatch N" clears it). */
const char *seat_prompt_kind(const struct seat *s)
{
	return !s->over ? seat_kind(s) : s->umpire ? "chair closed" : "seat closed";
}

static void read_clock(struct seat *s, const json_t *msg, long now)
{
	json_t *clk = json_object_get(msg, "clock");
	json_t *w = json_object_get(clk, "white"), *b = json_object_get(clk, "black");
	if (!json_is_number(w) || !json_is_number(b))
		return;
	/* below zero: a flag fallen (or about to), shown 0:00 (seat_clock takes a negative for none) */
	for (int col = WHITE; col <= BLACK; col++) {
		long ms = scrub_ms(col == WHITE ? w : b, 1);
		s->clock_ms[col] = ms > 0 ? ms : 0;
	}
	s->timed = true;
	s->clock_at = now;
}

static void set_ply(struct seat *s, const json_t *msg)
{
	json_t *p = json_object_get(msg, "ply");
	if (!json_is_integer(p) || json_integer_value(p) < 0)
		return;
	s->ply = (int)json_integer_value(p);
	s->to_move = s->first ^ (s->ply & 1);
}

static void set_board(struct seat *s, const char *fen)
{
	struct board b;
	if (!s->umpire || !fen || fen_parse(fen, &b, NULL, 0) != 0)
		return;   /* a spectator's seat never holds a board */
	s->board = b;
	s->has_board = true;
}

/* A line of the seat's log; the chair's lines say who heard them: `e`'s
 * audience (an announcement), else `aud` (a notice). */
static void seat_log(struct seat *s, const char *words, const struct event *e, unsigned aud)
{
	char who[96] = "";
	bool tag = s->umpire && (e ? e->audience != 0 : true);
	if (tag && e)
		words_heard(e, who, sizeof who);
	else if (tag)
		words_audience(aud, who, sizeof who);
	snprintf(s->log[s->log_n % SEAT_LOG_MAX], SEAT_LINE_MAX, "%s%s%s%s", tag ? "[" : "", who,
	         tag ? "] " : "", words);
	s->log_n++;
}

/* Event types no spectator may hear in any rule set (PROTOCOL.md's table). */
static bool never_public(const struct event *e)
{
	return e->type == EV_MOVE || e->type == EV_UMPIRE_MOVE || e->type == EV_ALL_ILLEGAL ||
	       e->type == EV_QUIET_ENDED || e->move != MOVE_NONE || e->san[0] ||
	       (e->audience && !(e->audience & AUD_SPECTATOR));
}

/* The chair: the last try of e's side, with its ruling. */
static void note_try(struct seat *s, const struct event *e)
{
	if (e->by != WHITE && e->by != BLACK)
		return;
	const char *ruling = e->type == EV_UMPIRE_MOVE ? "played"
	                   : e->type == EV_ILLEGAL ? "illegal"
	                   : e->type == EV_IMPOSSIBLE ? "impossible" : NULL;
	if (!ruling || e->move == MOVE_NONE)
		return;
	char mv[NOTATION_MAX];
	if (e->san[0])
		snprintf(mv, sizeof mv, "%s", e->san);
	else
		notation_uci(e->move, mv);
	snprintf(s->last_try[e->by], sizeof s->last_try[e->by], "%s: %s", mv, ruling);
	s->redraw = true;   /* the view's "Last tries" line changed */
}

/* One event of the seat's stream (catch-up or live).  enum seat_effect bits; words in buf. */
static unsigned apply(struct seat *s, const json_t *msg, long now, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(msg, "event"));
	unsigned fx = SEAT_QUIET;
	buf[0] = '\0';
	if (!name)
		return fx;
	if (!strcmp(name, "board")) {
		set_board(s, json_string_value(json_object_get(msg, "fen")));
		set_ply(s, msg);
		s->redraw = s->umpire;
		return fx;
	}
	if (!strcmp(name, "connection")) {
		int col = color_parse(json_string_value(json_object_get(msg, "color")));
		if (!s->umpire || col < 0)
			return fx;
		s->connection_known = true;
		s->connected[col] = json_is_true(json_object_get(msg, "connected"));
		snprintf(buf, len, "%s (%s) %s", words_side(col), s->name[col],
		         s->connected[col] ? "is connected again" : "has lost the connection");
		seat_log(s, buf, NULL, AUD_UMPIRE);
		return SEAT_SAID;
	}
	read_clock(s, msg, now);
	if (!strcmp(name, "draw_offer") || !strcmp(name, "draw_declined")) {
		int by = color_parse(json_string_value(json_object_get(msg, "by")));
		bool offer = name[5] == 'o';
		s->draw_offer_from = offer ? by : -1;
		words_draw(msg, -1, buf, len);
		seat_log(s, buf, NULL, AUD_PUBLIC);
		return SEAT_SAID;
	}
	if (words_umpire_action(msg, buf, len) == 0) {
		if (!strcmp(name, "clock_paused") || !strcmp(name, "adjourned"))
			s->paused = true;
		else if (!strcmp(name, "clock_unpaused") || !strcmp(name, "unadjourned"))
			s->paused = false;
		if (!strcmp(name, "adjourned") || !strcmp(name, "unadjourned"))
			s->adjourned = name[0] == 'a';
		bool priv = json_is_true(json_object_get(msg, "private"));
		seat_log(s, buf, NULL, priv ? AUD_UMPIRE : AUD_PUBLIC);
		return SEAT_SAID;
	}
	struct event e;
	if (words_read_event(msg, &e) != 0)
		return fx;   /* not an announcement this seat shows */
	if (!s->umpire && never_public(&e))
		return fx;   /* never the spectator's: not shown, whatever sent it */
	set_ply(s, msg);
	s->draw_offer_from = words_offer_after(s->draw_offer_from, &e);   /* a lapse (the review) */
	if (s->rs && s->rs->drops && (e.type == EV_CAPTURE || e.type == EV_DROP) &&
	    (e.by == WHITE || e.by == BLACK)) {
		/* the reserves are public: a capture fills the captor's, a drop empties it */
		int t = captured_type(e.what);
		bool add = e.type == EV_CAPTURE;
		if (t >= PAWN && t <= QUEEN && (add ? s->hand[e.by][t] < HAND_MAX : s->hand[e.by][t] > 0))
			s->hand[e.by][t] = (uint8_t)(s->hand[e.by][t] + (add ? 1 : -1));
	}
	if (s->umpire) {
		note_try(s, &e);
		words_umpire(&e, buf, len);
	} else {
		e.move = MOVE_NONE;
		e.san[0] = '\0';
		words_event(NULL, &e, -1, NULL, buf, len);
	}
	if (e.type == EV_GAME_OVER) {
		words_umpire_end(msg, buf, len);   /* an umpire's decision says so; else as above */
		s->over = true;
		s->redraw = s->umpire;
		fx |= SEAT_ENDED;
	}
	s->heard++;
	seat_log(s, buf, &e, 0);
	return fx | SEAT_SAID;
}

/* The state a reply page holds as of its answer: after its events. */
static void page_state(struct seat *s, const json_t *reply, long now)
{
	json_t *ply = json_object_get(reply, "ply");
	int tm = color_parse(json_string_value(json_object_get(reply, "to_move")));
	if (json_is_integer(ply) && tm >= 0) {
		s->ply = (int)json_integer_value(ply);
		s->to_move = tm;
		s->first = tm ^ (s->ply & 1);
	}
	read_clock(s, reply, now);
	if (s->umpire) {
		set_board(s, json_string_value(json_object_get(reply, "fen")));
		json_t *conn = json_object_get(reply, "connected");
		if (json_is_object(conn)) {
			s->connection_known = true;
			s->connected[WHITE] = json_is_true(json_object_get(conn, "white"));
			s->connected[BLACK] = json_is_true(json_object_get(conn, "black"));
		}
	}
	s->draw_offer_from = color_parse(json_string_value(json_object_get(reply, "draw_offer")));
	s->loading = json_object_get(reply, "next") != NULL;
}

static void page_events(struct seat *s, const json_t *reply, long now)
{
	size_t i;
	json_t *ev;
	char words[WORDS_MAX];
	json_array_foreach(json_object_get(reply, "events"), i, ev)
		apply(s, ev, now, words, sizeof words);
}

void seat_begin(struct seat *s, const json_t *reply, bool umpire, long now)
{
	const char *rules = json_string_value(json_object_get(reply, "rules"));
	const char *wn = json_string_value(json_object_get(reply, "white"));
	const char *bn = json_string_value(json_object_get(reply, "black"));
	seat_clear(s);
	s->used = true;
	s->id = (long)json_integer_value(json_object_get(reply, "game"));
	s->umpire = umpire;
	s->rs = rules ? ruleset_find(rules) : NULL;
	if (!s->rs)
		s->rs = ruleset_default();
	snprintf(s->name[WHITE], sizeof s->name[WHITE], "%s", wn ? wn : "?");
	snprintf(s->name[BLACK], sizeof s->name[BLACK], "%s", bn ? bn : "?");
	s->rated = json_is_true(json_object_get(reply, "rated"));
	s->bot[WHITE] = words_bot(reply, WHITE);
	s->bot[BLACK] = words_bot(reply, BLACK);
	s->draw_offer_from = -1;
	s->clock_ms[WHITE] = s->clock_ms[BLACK] = -1;
	/* the side to move at ply 0, from the reply's present: events before it carry their ply */
	page_state(s, reply, now);
	if (umpire && !s->has_board) {
		board_start(&s->board);
		s->has_board = true;
	}
	page_events(s, reply, now);
	page_state(s, reply, now);
	s->redraw = false;   /* see seat_page */
}

void seat_page(struct seat *s, const json_t *reply, long now)
{
	page_events(s, reply, now);
	page_state(s, reply, now);
	/* The catch-up's tries and boards ask for a redraw as live ones do, but
	 * the seat is shown whole once its last page is in (done_seat): a
	 * redraw left standing drew the chair a second time at the next flush. */
	s->redraw = false;
}

unsigned seat_event(struct seat *s, const json_t *msg, long now, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (s->loading || s->over)
		return SEAT_QUIET;   /* a loading seat's events are held before they come here */
	return apply(s, msg, now, buf, len);
}

void seat_hold(struct seat *s, const json_t *msg)
{
	if (s->held == NULL)
		s->held = json_array();
	json_array_append_new(s->held, json_deep_copy(msg));
}

void seat_clear(struct seat *s)
{
	json_decref(s->held);
	memset(s, 0, sizeof *s);
}

long seat_clock(const struct seat *s, int color, long now)
{
	if (!s->timed || s->clock_ms[color] < 0)
		return -1;
	long v = s->clock_ms[color];
	if (!s->paused && !s->over && s->to_move == color)
		v -= now - s->clock_at;
	return v < 0 ? 0 : v;
}

struct out {
	char *p;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	if (o->used + 1 >= o->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->p + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->used += (size_t)n;
	if (o->used >= o->len)
		o->used = o->len - 1;
}

static void clock_text(const struct seat *s, int color, long now, char out[RENDER_CLOCK_MAX])
{
	long v = seat_clock(s, color, now);
	if (v < 0)
		snprintf(out, RENDER_CLOCK_MAX, "-");
	else
		render_clock(v, out);
}

static const char *turn_text(const struct seat *s)
{
	/* the players' adjournment is no umpire's pause (the friends probe) */
	return s->over ? "game over" : s->adjourned ? "adjourned" : s->paused ? "clocks paused"
	     : s->to_move == WHITE ? "White to move" : "Black to move";
}

void seat_render(const struct seat *s, const struct render_opts *ro, long now, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	if (len == 0)
		return;
	buf[0] = '\0';
	/* TD probe: the header redrawn at the game's end said the chair was still held */
	const char *held = s->over ? (s->umpire ? "; you held the umpire's chair; the game is over"
	                                        : "; you watched it; the game is over")
	                 : s->umpire ? "; you hold the umpire's chair" : "; you are watching";
	put(&o, "Game %ld: %s (White%s) vs %s (Black%s), %s, %s%s\n", s->id, s->name[WHITE],
	    s->bot[WHITE] ? ", a bot" : "", s->name[BLACK], s->bot[BLACK] ? ", a bot" : "", s->rs->name,
	    s->rated ? "rated" : "unrated", held);
	if (s->umpire && s->has_board) {
		struct render_opts r = *ro;
		r.bottom = WHITE;
		r.audience = AUD_UMPIRE;
		char board[RENDER_BOARD_MAX];
		render_board(&s->board, NULL, &r, board, sizeof board);
		put(&o, "%s", board);
	}
	for (int col = WHITE; col <= BLACK; col++) {
		char clk[RENDER_CLOCK_MAX];
		clock_text(s, col, now, clk);
		put(&o, "%s%s (%s)", col == WHITE ? "" : " | ", words_side(col), s->name[col]);
		if (s->timed)
			put(&o, " %s", clk);
		if (s->umpire && s->connection_known)
			put(&o, ", %s", s->connected[col] ? "connected" : "away");
	}
	put(&o, " | %s, move %d\n", turn_text(s), s->ply / 2 + 1);
	if (!s->has_board) {   /* the chair's board shows the reserves itself */
		char hands[256];
		render_hands(s->hand, ro, hands, sizeof hands);
		put(&o, "%s", hands);
	}
	if (s->umpire && (s->last_try[WHITE][0] || s->last_try[BLACK][0]))
		put(&o, "Last tries: White %s | Black %s\n", s->last_try[WHITE][0] ? s->last_try[WHITE] : "-",
		    s->last_try[BLACK][0] ? s->last_try[BLACK] : "-");
	if (s->draw_offer_from >= 0 && !s->over)
		put(&o, "%s offers a draw.\n", words_side(s->draw_offer_from));
	int first = s->log_n > SEAT_LOG_MAX ? s->log_n - SEAT_LOG_MAX : 0;
	if (first > 0)
		put(&o, "  (%d earlier)\n", first);
	for (int i = first; i < s->log_n; i++)
		put(&o, "  %s\n", s->log[i % SEAT_LOG_MAX]);
	/* no trailing newline: print() adds one */
	while (o.used > 0 && buf[o.used - 1] == '\n')
		buf[--o.used] = '\0';
}

void seat_prompt(const struct seat *s, long now, char *buf, size_t len)
{
	char wc[RENDER_CLOCK_MAX], bc[RENDER_CLOCK_MAX];
	clock_text(s, WHITE, now, wc);
	clock_text(s, BLACK, now, bc);
	if (s->timed)
		snprintf(buf, len, "[#%ld %s | White %s | Black %s | %s] > ", s->id, seat_prompt_kind(s), wc, bc,
		         turn_text(s));
	else
		snprintf(buf, len, "[#%ld %s | %s] > ", s->id, seat_prompt_kind(s), turn_text(s));
}
