/*
 * test_leak.c — the information-leak test.
 *
 * Seeded random games in random rule sets are played through a real
 * kriegd by two TLS clients, with random legal and illegal tries (taken
 * from each player's possible set), "any?", preference lists and quiet
 * sequences where the rule set has them, out-of-turn tries and garbage.
 * The test keeps its own referee replaying the same actions: it predicts
 * every answer (ok, or the exact error code) and the exact event list each
 * audience must get.  Then, for each player:
 *   - every line received passes the per-line rules, written from the rule
 *     documents and not from the core (no umpire_move; an opponent's copy
 *     never has move or san; an opponent's illegal try only in english,
 *     insurance, gollon, berkeley(_any), cincinnati, rand, its impossible
 *     one only in gollon, cincinnati, rand, illegal_count only in nost;
 *     capture kind only in icc, cincinnati, rand, en_passant only in gollon;
 *     `say` names no square its event's keys do not hold; the audience
 *     names the player; no square in an error message that was not in the
 *     player's own attempt);
 *   - a capture's square is the capturer's landing square (nost en passant
 *     included) and, for the victim, a square it had a piece on;
 *   - every 4th game is timed (no flag falls); `possible` answers and draw
 *     offers, declines and agreements are exercised in the loop;
 *   - the received announcement stream equals the AUD-filtered stream of
 *     the test's referee (the clock and game fields aside);
 *   - the player's board rebuilt from those events alone (view.h) holds
 *     exactly the player's pieces on the true board;
 *   - `game {game}` replays exactly the same stream from the record.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "check_main.h"
#include "event_json.h"
#include "fen.h"
#include "harness.h"
#include "movegen.h"
#include "notation.h"
#include "referee.h"
#include "ruleset.h"
#include "view.h"

#define LEAK_GAMES 100
#define LEAK_PLY_CAP 60
#define LEAK_ACTIONS_CAP 400

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
	/* splitmix64: a fixed, seedable sequence independent of libc. */
	unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return n ? (unsigned)(z % n) : 0;
}

/* The brief's mapping of referee statuses to wire codes, written out
 * independently of the server's. */
static const char *expected_code(int st)
{
	switch (st) {
	case REF_E_GAME_OVER: return "game_over";
	case REF_E_NOT_YOUR_TURN: return "not_your_turn";
	case REF_E_SYNTAX:
	case REF_E_NO_PIECE:
	case REF_E_AMBIGUOUS: return "notation";
	case REF_E_BAD_ARGUMENT: return "bad_request";
	default: return "illegal_action";
	}
}

struct lgame {
	const struct ruleset *rs;
	struct referee *ref;
	long long id;
	struct kc *cl[2];
	json_t *expected[2];   /* arrays of announcement objects */
	int plies_seen;
	int draw_offer;        /* colour with a standing draw offer, or -1 */
	int draw_notices;      /* draw_offer/draw_declined notices sent (to both players) */
};

static int ep_seen;   /* nost en-passant captures played (two copies, two squares) */

static const char *cname(int color)
{
	return color == WHITE ? "white" : "black";
}

/* Every square name in msg must appear in the player's own attempt text. */
static void check_error_message(const char *msg, const char *attempt)
{
	for (const char *p = msg; p[0] && p[1]; p++) {
		if (p[0] >= 'a' && p[0] <= 'h' && p[1] >= '1' && p[1] <= '8') {
			char sq[3] = { p[0], p[1], 0 };
			ck_assert_msg(attempt && strstr(attempt, sq),
			              "error message \"%s\" names square %s not in the attempt \"%s\"",
			              msg, sq, attempt ? attempt : "");
		}
	}
}

static bool rs_is(const struct ruleset *rs, const char *name)
{
	return strcmp(rs->name, name) == 0;
}

/* Is s[i..i+1] a square name standing alone (not inside a longer word)? */
static bool square_at(const char *s, size_t i)
{
	if (!(s[i] >= 'a' && s[i] <= 'h' && s[i + 1] >= '1' && s[i + 1] <= '8'))
		return false;
	/* "exd5", "Nf3", "e2e4": a square may follow a capture mark, a piece
	 * letter or another square, but not a lower-case letter of a word. */
	return i == 0 || !(s[i - 1] >= 'a' && s[i - 1] <= 'z' && s[i - 1] != 'x');
}

/*
 * The umpire's words never name a square the event's own keys do not
 * hold: every square in `say` must be in `square`, `move`, `san` or
 * (rand's pawn_squares) `squares`.
 */
static void check_say(json_t *j, const char *text)
{
	const char *say = json_string_value(json_object_get(j, "say"));
	if (!say)
		return;
	char keys[96] = "";
	const char *names[] = { "square", "move", "san" };
	for (size_t k = 0; k < 3; k++) {
		const char *v = json_string_value(json_object_get(j, names[k]));
		if (v) {
			strncat(keys, v, sizeof keys - strlen(keys) - 2);
			strcat(keys, " ");
		}
	}
	size_t q;
	json_t *named;
	json_array_foreach(json_object_get(j, "squares"), q, named) {
		if (json_is_string(named)) {
			strncat(keys, json_string_value(named), sizeof keys - strlen(keys) - 2);
			strcat(keys, " ");
		}
	}
	for (size_t i = 0; say[i] && say[i + 1]; i++) {
		if (!square_at(say, i))
			continue;
		char sq[3] = { say[i], say[i + 1], 0 };
		ck_assert_msg(strstr(keys, sq) != NULL, "say names square %s its keys do not hold: %s",
		              sq, text);
	}
}

/*
 * Per-line rules for a line a player received, written from the rule
 * documents (not derived from the rules core): what an opponent's try,
 * a capture and the umpire's words may carry in each rule set.
 */
static void check_line(const char *text, int color, const struct ruleset *rs)
{
	json_t *j = json_loads(text, 0, NULL);
	ck_assert_msg(j != NULL, "unparsable line: %s", text);
	const char *ev = json_string_value(json_object_get(j, "event"));
	if (ev && json_object_get(j, "audience")) {
		ck_assert_msg(strcmp(ev, "umpire_move") != 0, "umpire_move reached a player: %s", text);
		const char *by = json_string_value(json_object_get(j, "by"));
		bool theirs = by && strcmp(by, cname(color)) != 0;
		if (json_object_get(j, "move") &&
		    (!strcmp(ev, "move") || !strcmp(ev, "illegal") || !strcmp(ev, "impossible")))
			ck_assert_msg(by && strcmp(by, cname(color)) == 0,
			              "the opponent's move reached %s: %s", cname(color), text);
		if (theirs) {
			ck_assert_msg(!json_object_get(j, "move") && !json_object_get(j, "san"),
			              "an opponent's copy carries move or san: %s", text);
			ck_assert_msg(strcmp(ev, "move") != 0, "an opponent's move event: %s", text);
		}
		/* The opponent's refused tries: english, insurance and gollon tell
		 * of them; nost only counts them; icc says nothing. */
		if (theirs && !strcmp(ev, "illegal"))
			ck_assert_msg(rs_is(rs, "english") || rs_is(rs, "insurance") || rs_is(rs, "gollon") ||
			              rs_is(rs, "berkeley") || rs_is(rs, "berkeley_any") ||
			              rs_is(rs, "cincinnati") || rs_is(rs, "rand") || rs_is(rs, "crazykrieg"),
			              "%s: an opponent's illegal try reached %s: %s", rs->name,
			              cname(color), text);
		if (theirs && !strcmp(ev, "impossible"))
			ck_assert_msg(rs_is(rs, "gollon") || rs_is(rs, "cincinnati") || rs_is(rs, "rand") ||
			              rs_is(rs, "crazykrieg"), "%s: an opponent's impossible try reached %s: %s",
			              rs->name, cname(color), text);
		if (!strcmp(ev, "illegal_count"))
			ck_assert_msg(rs_is(rs, "nost") && theirs, "%s: illegal_count to %s: %s", rs->name,
			              cname(color), text);
		if (!strcmp(ev, "capture")) {
			const char *what = json_string_value(json_object_get(j, "what"));
			if (what && (!strcmp(what, "pawn") || !strcmp(what, "piece")))
				ck_assert_msg(rs_is(rs, "icc") || rs_is(rs, "cincinnati") || rs_is(rs, "rand") ||
				              (rs_is(rs, "crazykrieg") && !strcmp(what, "pawn")),
				              "%s: capture kind: %s", rs->name, text);
			else if (what) /* the exact man: crazykrieg alone */
				ck_assert_msg(rs_is(rs, "crazykrieg"), "%s: captured man: %s", rs->name, text);
			if (json_object_get(j, "en_passant"))
				ck_assert_msg(rs_is(rs, "gollon"), "%s: en passant told: %s", rs->name, text);
			/* Every capture says everyone heard it: a nost en passant's
			 * copies said their own ("black","spectator"), which told the
			 * reader it was en passant (probe). */
			json_t *aud = json_object_get(j, "audience");
			ck_assert_msg(json_array_size(aud) == 4, "%s: a capture's audience tells of its copies: %s",
			              rs->name, text);
		}
		/* crazykrieg's drop: the man, never the square or the move. */
		if (!strcmp(ev, "drop")) {
			ck_assert_msg(rs_is(rs, "crazykrieg"), "%s: a drop told: %s", rs->name, text);
			ck_assert_msg(!json_object_get(j, "square") && !json_object_get(j, "move") &&
			              !json_object_get(j, "san"), "a drop told more than its man: %s", text);
		}
		if (!strcmp(ev, "moved"))
			ck_assert_msg(json_object_size(j) <= 7, "a moved event with extra keys: %s", text);
		check_say(j, text);
		json_t *aud = json_object_get(j, "audience");
		bool mine = false;
		size_t i;
		json_t *a;
		json_array_foreach(aud, i, a)
			mine |= strcmp(json_string_value(a), cname(color)) == 0;
		ck_assert_msg(mine, "an event not addressed to %s: %s", cname(color), text);
	}
	json_decref(j);
}

/* A copy without the fields that legitimately differ (clock readings). */
static json_t *comparable(json_t *e)
{
	json_t *c = json_deep_copy(e);
	json_object_del(c, "clock");
	json_object_del(c, "game");
	return c;
}

static void expect_events(struct lgame *g, const struct evlist *out)
{
	for (size_t i = 0; i + 1 < out->n; i++)
		if (out->v[i].type == EV_CAPTURE && out->v[i + 1].type == EV_CAPTURE &&
		    out->v[i].square != out->v[i + 1].square)
			ep_seen++;
	for (size_t i = 0; i < out->n; i++)
		for (int col = WHITE; col <= BLACK; col++)
			if (out->v[i].audience & aud_of(col)) {
				struct event told = out->v[i];   /* as sent: event_told's audience */
				told.audience = (uint8_t)event_told(out, i);
				json_t *j = event_to_json(&told, g->rs, -1);
				/* Once the game is over, both players are shown the true
				 * final position (PROTOCOL.md, game_over): the test's own
				 * referee says what it must be. */
				if (out->v[i].type == EV_GAME_OVER) {
					char fen[FEN_MAX];
					fen_format(referee_board(g->ref), fen, sizeof fen);
					json_object_set_new(j, "fen", json_string(fen));
				}
				json_array_append_new(g->expected[col], j);
			}
}

enum lkind { L_TRY, L_LIST, L_QUIET, L_ANY, L_RESIGN, L_ABORT, L_AGREE };

/* Play one action locally to predict, then on the server, and compare. */
static void act(struct lgame *g, int color, enum lkind kind, const char *const *items, size_t n)
{
	struct evlist out;
	evlist_init(&out);
	int plies = referee_plies(g->ref);
	int st;
	/* kriegd refuses an impossible try sent again this turn before the
	 * referee sees it (referee_impossible_again): a quiet sequence's
	 * first try, a list's every one. */
	bool again = false;
	for (size_t i = 0; (kind == L_TRY || kind == L_LIST || kind == L_QUIET) && i < n; i++)
		again |= (i == 0 || kind == L_LIST) && referee_impossible_again(g->ref, color, items[i]);
	switch (again ? -1 : (int)kind) {
	case -1: st = REF_E_ALREADY_TRIED; break;
	case L_TRY: st = referee_attempt(g->ref, color, items[0], &out); break;
	case L_LIST: st = referee_attempt_list(g->ref, color, items, n, &out); break;
	case L_QUIET: st = referee_quiet(g->ref, color, items, n, &out); break;
	case L_ANY: st = referee_any(g->ref, color, &out); break;
	case L_RESIGN: st = referee_end(g->ref, REASON_RESIGNATION, color, &out); break;
	case L_AGREE: st = referee_end(g->ref, REASON_AGREEMENT, color, &out); break;
	default: st = referee_end(g->ref, REASON_ABORTED, color, &out); break;
	}
	struct kc *c = g->cl[color];
	long long id;
	char joined[512] = "";
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(arr, json_string(items[i]));
		strncat(joined, items[i], sizeof joined - strlen(joined) - 2);
		strcat(joined, " ");
	}
	switch (kind) {
	case L_TRY: id = kc_req(c, "move", "{s:I, s:s}", "game", g->id, "move", items[0]); break;
	case L_LIST: id = kc_req(c, "move", "{s:I, s:O}", "game", g->id, "moves", arr); break;
	case L_QUIET: id = kc_req(c, "quiet", "{s:I, s:O}", "game", g->id, "moves", arr); break;
	case L_ANY: id = kc_req(c, "any", "{s:I}", "game", g->id); break;
	case L_RESIGN: id = kc_req(c, "resign", "{s:I}", "game", g->id); break;
	case L_AGREE: id = kc_req(c, "draw", "{s:I, s:s}", "game", g->id, "action", "accept"); break;
	default: id = kc_req(c, "abort", "{s:I}", "game", g->id); break;
	}
	json_decref(arr);
	if (st == REF_OK) {
		kc_ok(c, id);
		expect_events(g, &out);
		/* A move by the side the offer was made to declines it: its own,
		 * or one made for it after the offerer's (nost's quiet list). */
		int played = referee_plies(g->ref) - plies;
		if (played > 0 && (color != g->draw_offer || played >= 2))
			g->draw_offer = -1;
	} else {
		ck_assert_msg(out.n == 0, "a refused call produced events");
		json_t *r = kc_error(c, id, expected_code(st));
		const char *msg = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
		check_error_message(msg ? msg : "", joined);
	}
	evlist_free(&out);
}

/* A random attempt text for color: a possible move in coordinates or own-view SAN. */
static void random_attempt(struct lgame *g, int color, char buf[NOTATION_MAX])
{
	struct movelist ml;
	referee_possible(g->ref, color, &ml);
	if (ml.n == 0 || rnd(20) == 0) {
		snprintf(buf, NOTATION_MAX, "%s", rnd(2) ? "Zz9" : "e9e4");
		return;
	}
	if (rnd(8) == 0) {
		/* One of our pieces to any square: mostly a move the piece cannot
		 * make at all (impossible), sometimes an illegal or legal one. */
		bb_t own = referee_board(g->ref)->occ[color];
		int k = (int)rnd((unsigned)__builtin_popcountll(own));
		int from = 0;
		for (; from < 64; from++)
			if (((own >> from) & 1) && k-- == 0)
				break;
		char f[3], t[3];
		square_name(from, f);
		square_name((int)rnd(64), t);
		snprintf(buf, NOTATION_MAX, "%s%s", f, t);
		return;
	}
	move_t m = ml.m[rnd((unsigned)ml.n)];
	if (rnd(2)) {
		notation_uci(m, buf);
	} else {
		struct board own;
		board_own_view(referee_board(g->ref), color, &own);
		notation_san(&own, m, true, buf);
	}
}

/* A draw offer, or an answer to the standing one: accepted (the game
 * ends by agreement), declined, or an answer with no offer (refused). */
static void draw_step(struct lgame *g)
{
	if (g->draw_offer < 0) {
		int col = (int)rnd(2);
		if (rnd(4) == 0) {
			kc_error(g->cl[col], kc_req(g->cl[col], "draw", "{s:I, s:s}", "game", g->id,
			                            "action", rnd(2) ? "accept" : "decline"),
			         "illegal_action");
			return;
		}
		kc_ok(g->cl[col], kc_req(g->cl[col], "draw", "{s:I, s:s}", "game", g->id, "action", "offer"));
		g->draw_offer = col;
		g->draw_notices++;
		return;
	}
	int col = !g->draw_offer;
	if (rnd(4) == 0) {
		act(g, col, L_AGREE, NULL, 0);
		return;
	}
	kc_ok(g->cl[col], kc_req(g->cl[col], "draw", "{s:I, s:s}", "game", g->id, "action", "decline"));
	g->draw_offer = -1;
	g->draw_notices++;
}

/* `possible` for color: the referee's attempts in coordinates, in any order;
 * beside each its SAN, which read back on color's own pieces (as a `move`
 * is) is the same attempt, and which the own pieces alone decide. */
static void check_possible(struct lgame *g, int color)
{
	json_t *r = kc_ok(g->cl[color], kc_req(g->cl[color], "possible", "{s:I}", "game", g->id));
	json_t *got = json_object_get(r, "moves"), *san = json_object_get(r, "san");
	struct movelist ml;
	struct board own;
	referee_possible(g->ref, color, &ml);
	board_own_view(referee_board(g->ref), color, &own);
	ck_assert_int_eq(json_array_size(san), json_array_size(got));
	for (size_t k = 0; k < json_array_size(san); k++) {
		const char *text = json_string_value(json_array_get(san, k));
		char want[NOTATION_MAX], back[NOTATION_MAX], err[64];
		move_t m;
		ck_assert_msg(text != NULL, "possible's san[%zu] not a string", k);
		ck_assert_msg(notation_parse(&own, color, text, &m, err, sizeof err) == NOTATION_OK,
		              "possible's %s not read back: %s", text, err);
		notation_uci(m, back);
		ck_assert_str_eq(back, json_string_value(json_array_get(got, k)));
		notation_san(&own, m, true, want);
		ck_assert_str_eq(text, want);
	}
	ck_assert_int_eq(json_array_size(got), ml.n);
	for (int i = 0; i < ml.n; i++) {
		char buf[NOTATION_MAX];
		notation_uci(ml.m[i], buf);
		bool found = false;
		size_t k;
		json_t *m;
		json_array_foreach(got, k, m)
			found |= strcmp(json_string_value(m), buf) == 0;
		ck_assert_msg(found, "possible for %s lacks %s", cname(color), buf);
	}
}

static bool is_draw_notice(json_t *e)
{
	const char *ev = json_string_value(json_object_get(e, "event"));
	return ev && (!strcmp(ev, "draw_offer") || !strcmp(ev, "draw_declined"));
}

/* The announcements of a replayed view, without the draw notices (counted into *notices). */
static json_t *without_draws(json_t *all, int *notices)
{
	json_t *out = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(all, i, e) {
		if (is_draw_notice(e))
			(*notices)++;
		else
			json_array_append(out, e);
	}
	json_decref(all);
	return out;
}

static struct kp players[2];   /* the two players, by client index */

/*
 * A second connection resuming mid-game gets exactly the player's view so
 * far: game_state, then game_events pages when the record is long.
 */
static void check_resume(struct kd *d, struct lgame *g, int color, int idx)
{
	struct kp again = players[idx];   /* a second connection of the same player */
	kp_resume(d, &again);
	snprintf(players[idx].token, sizeof players[idx].token, "%s", again.token);
	struct kc *c = again.c;
	json_t *st = kc_event(c, "game_state");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "game")), g->id);
	ck_assert_str_eq(json_string_value(json_object_get(st, "color")), cname(color));
	json_t *all = json_array();
	json_array_extend(all, json_object_get(st, "events"));
	json_int_t total = json_integer_value(json_object_get(st, "total"));
	json_t *next = json_object_get(st, "next");
	while (next) {
		json_t *p = kc_event(c, "game_events");
		ck_assert_int_eq(json_integer_value(json_object_get(p, "from")), json_array_size(all));
		json_array_extend(all, json_object_get(p, "events"));
		next = json_object_get(p, "next");
	}
	for (size_t i = 0; i < kc_nlines(c); i++) {
		ck_assert_uint_lt(strlen(kc_line(c, i)), 16384);
		check_line(kc_line(c, i), color, g->rs);
	}
	int notices = 0;
	all = without_draws(all, &notices);
	ck_assert_int_eq(notices, g->draw_notices);
	total -= notices;
	json_t *exp = g->expected[color];
	if (getenv("KRIEG_LEAK_VERBOSE"))
		fprintf(stderr, "leak: resumed game %lld as %s: %zu events in %zu lines\n", g->id,
		        cname(color), json_array_size(all), kc_nlines(c) - 3);
	ck_assert_int_eq(total, json_array_size(exp));
	ck_assert_int_eq(json_array_size(all), json_array_size(exp));
	for (size_t i = 0; i < json_array_size(exp); i++) {
		json_t *a = comparable(json_array_get(all, i)), *b = comparable(json_array_get(exp, i));
		ck_assert_msg(json_equal(a, b), "%s: resumed view differs at %zu", cname(color), i);
		json_decref(a);
		json_decref(b);
	}
	json_decref(all);
	kc_close(c);
}

static void drain(struct kc *c)
{
	while (kc_next(c, 0))
		;
}

/* All the events of `game {game}`, page after page. */
static json_t *view_events(struct kc *c, long long gid)
{
	json_t *all = json_array();
	long long from = 0;
	for (;;) {
		json_t *r = kc_ok(c, kc_req(c, "game", "{s:I, s:I}", "game", gid, "from", from));
		json_array_extend(all, json_object_get(r, "events"));
		ck_assert_int_eq(json_integer_value(json_object_get(r, "total")) >= from, 1);
		json_t *next = json_object_get(r, "next");
		if (!next)
			break;
		ck_assert_int_gt(json_integer_value(next), from);
		from = json_integer_value(next);
	}
	return all;
}

/* Compare a player's received stream for this game from line `from` on. */
static void compare_stream(struct lgame *g, int color, size_t from)
{
	struct kc *c = g->cl[color];
	json_t *exp = g->expected[color];
	size_t k = 0;
	struct view v;
	struct board start;
	board_start(&start);
	view_init(&v, &start, color);
	int notices = 0;
	int last_to = -1;   /* destination of this player's last own move */
	for (size_t i = from; i < kc_nlines(c); i++) {
		const char *text = kc_line(c, i);
		check_line(text, color, g->rs);
		json_t *j = json_loads(text, 0, NULL);
		const char *ev = json_string_value(json_object_get(j, "event"));
		json_t *gid = json_object_get(j, "game");
		if (ev && json_is_integer(gid) && json_integer_value(gid) == g->id && is_draw_notice(j))
			notices++;
		if (!ev || !json_is_integer(gid) || json_integer_value(gid) != g->id ||
		    !strcmp(ev, "game_start") || !strcmp(ev, "game_state") || is_draw_notice(j)) {
			json_decref(j);
			continue;
		}
		const char *by = json_string_value(json_object_get(j, "by"));
		bool mine = by && strcmp(by, cname(color)) == 0;
		if (!strcmp(ev, "move") && mine) {
			char to[3] = { 0 };   /* the destination without a promotion letter */
			memcpy(to, json_string_value(json_object_get(j, "move")) + 2, 2);
			last_to = square_parse(to);
		}
		if (!strcmp(ev, "capture")) {
			/* The capturer hears its landing square, the victim the square its
			 * own piece stood on (they differ in a nost en passant). */
			int sq = square_parse(json_string_value(json_object_get(j, "square")));
			if (mine)   /* elsewhere an en passant may name the taken pawn's square */
				ck_assert_msg(sq == last_to ||
				              (!rs_is(g->rs, "nost") && !rs_is(g->rs, "gollon") &&
				               sq == (color == WHITE ? last_to - 8 : last_to + 8)),
				              "%s: own capture not on the landing square: %s", g->rs->name, text);
			else if (json_is_true(json_object_get(j, "en_passant")))   /* gollon: the landing square */
				ck_assert_msg(sq >= 16 && sq < 48 &&
				              ((v.own.pieces[color][PAWN] >> (color == WHITE ? sq + 8 : sq - 8)) & 1),
				              "%s: an en passant capture of %s without its pawn: %s",
				              g->rs->name, cname(color), text);
			else
				ck_assert_msg(sq >= 0 && sq < 64 && ((v.own.occ[color] >> sq) & 1),
				              "%s: a capture of %s where it had no piece: %s", g->rs->name,
				              cname(color), text);
		}
		ck_assert_msg(k < json_array_size(exp), "%s got an extra event: %s", cname(color), text);
		json_t *got = comparable(j);
		json_t *want = comparable(json_array_get(exp, k));
		char *ws = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
		ck_assert_msg(json_equal(got, want), "%s event %zu: got %s, expected %s",
		              cname(color), k, text, ws);
		free(ws);
		struct event e;
		ck_assert_msg(event_from_json(j, &e) == 0, "undecodable event %s", text);
		view_apply(&v, &e);
		json_decref(got);
		json_decref(want);
		json_decref(j);
		k++;
	}
	ck_assert_msg(k == json_array_size(exp), "%s got %zu events, expected %zu", cname(color), k,
	              json_array_size(exp));
	ck_assert_int_eq(notices, g->draw_notices);
	/* The view from the events alone holds exactly the player's true pieces. */
	struct board own;
	board_own_view(referee_board(g->ref), color, &own);
	for (int t = PAWN; t <= KING; t++)
		ck_assert_msg(v.own.pieces[color][t] == own.pieces[color][t],
		              "%s's view of its piece type %d differs from the true board", cname(color), t);

	/* The record replays the same stream. */
	notices = 0;
	json_t *evs = without_draws(view_events(c, g->id), &notices);
	ck_assert_int_eq(notices, g->draw_notices);
	ck_assert_int_eq(json_array_size(evs), json_array_size(exp));
	for (size_t i = 0; i < json_array_size(evs); i++) {
		json_t *a = comparable(json_array_get(evs, i)), *b = comparable(json_array_get(exp, i));
		ck_assert_msg(json_equal(a, b), "%s: game replay differs at %zu", cname(color), i);
		json_decref(a);
		json_decref(b);
	}
	json_decref(evs);
}

static void play_one(struct kd *d, struct kc *p[2], unsigned seed)
{
	struct lgame g = { 0 };
	rng_state = 0x4b52494547ULL * (seed + 1);
	/* The rows before crazykrieg (the last) as drawn since before it was
	 * one, so that every older seed plays the game it always did; then
	 * every fifth game is a crazykrieg one (drops, reserves, exact captures). */
	g.rs = ruleset_at(rnd((unsigned)ruleset_count() - 1));
	if (seed % 5 == 1)
		g.rs = ruleset_find("crazykrieg");
	char err[128];
	g.ref = referee_new(g.rs, NULL, err, sizeof err);
	ck_assert_msg(g.ref != NULL, "referee_new: %s", err);
	g.expected[WHITE] = json_array();
	g.expected[BLACK] = json_array();
	g.draw_offer = -1;

	/* Who seeks and which colour they take are random too. */
	int seeker = (int)rnd(2), seeker_color = (int)rnd(2);
	size_t from[2] = { kc_nlines(p[0]), kc_nlines(p[1]) };
	json_t *r;
	if (seed % 4 == 0)   /* timed, with time enough that no flag falls */
		r = kc_ok(p[seeker], kc_req(p[seeker], "seek", "{s:s, s:s, s:{s:i, s:i}}", "rules",
		                            g.rs->name, "color", cname(seeker_color), "time", "base",
		                            3600, "inc", 1));
	else
		r = kc_ok(p[seeker], kc_req(p[seeker], "seek", "{s:s, s:s}", "rules", g.rs->name,
		                            "color", cname(seeker_color)));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	r = kc_ok(p[!seeker], kc_req(p[!seeker], "accept", "{s:I}", "offer", offer));
	g.id = json_integer_value(json_object_get(r, "game"));
	g.cl[seeker_color] = p[seeker];
	g.cl[!seeker_color] = p[!seeker];
	size_t start[2];
	start[seeker_color] = from[seeker];
	start[!seeker_color] = from[!seeker];

	struct evlist out;
	evlist_init(&out);
	ck_assert_int_eq(referee_begin(g.ref, &out), REF_OK);
	expect_events(&g, &out);
	evlist_free(&out);

	bool try_abort = rnd(10) == 0;   /* a few games end by abort */
	for (int n = 0; n < LEAK_ACTIONS_CAP && !referee_over(g.ref); n++) {
		int side = referee_side_to_move(g.ref);
		char a[4][NOTATION_MAX];
		const char *items[4] = { a[0], a[1], a[2], a[3] };
		if (referee_plies(g.ref) >= LEAK_PLY_CAP || n == LEAK_ACTIONS_CAP - 1) {
			if (seed % 8 == 0) {
				int col = (int)rnd(2);
				check_resume(d, &g, col, g.cl[col] == p[0] ? 0 : 1);
			}
			act(&g, (int)rnd(2), referee_plies(g.ref) < 2 ? L_ABORT : L_RESIGN, NULL, 0);
			break;
		}
		unsigned p100 = rnd(100);
		if (p100 < 5) {
			random_attempt(&g, !side, a[0]);
			act(&g, !side, L_TRY, items, 1);
		} else if (p100 < 12) {
			act(&g, side, L_ANY, NULL, 0);
		} else if (p100 < 27 && g.rs->preference_lists) {
			size_t k = 2 + rnd(3);
			for (size_t i = 0; i < k; i++)
				random_attempt(&g, side, a[i]);
			act(&g, side, L_LIST, items, k);
		} else if (p100 < 32 && g.rs->quiet_sequences) {
			size_t k = 2 + rnd(2);
			for (size_t i = 0; i < k; i++)
				random_attempt(&g, side, a[i]);
			act(&g, side, L_QUIET, items, k);
		} else if (p100 < 33 && referee_plies(g.ref) < 2 && try_abort) {
			act(&g, (int)rnd(2), L_ABORT, NULL, 0);
		} else if (p100 < 36) {
			check_possible(&g, side);
		} else if (p100 < 38) {
			draw_step(&g);
		} else {
			random_attempt(&g, side, a[0]);
			act(&g, side, L_TRY, items, 1);
		}
	}
	ck_assert(referee_over(g.ref));
	if (getenv("KRIEG_LEAK_VERBOSE"))
		fprintf(stderr, "leak: seed %u %s game %lld over after %d plies, %d draw notices, %d nost ep so far\n",
		        seed, g.rs->name, g.id, referee_plies(g.ref), g.draw_notices, ep_seen);
	/* The game is over: acting again is game_over, for both. */
	kc_error(g.cl[WHITE], kc_req(g.cl[WHITE], "resign", "{s:I}", "game", g.id), "game_over");
	/* Sync: a ping's answer comes after every event queued before it. */
	for (int col = WHITE; col <= BLACK; col++)
		kc_ok(g.cl[col], kc_req(g.cl[col], "ping", NULL));
	for (int col = WHITE; col <= BLACK; col++)
		compare_stream(&g, col, start[col]);
	drain(p[0]);
	drain(p[1]);
	json_decref(g.expected[WHITE]);
	json_decref(g.expected[BLACK]);
	referee_free(g.ref);
}

START_TEST(random_games_leak_nothing)
{
	struct kd *d = kd_start("rate_limit = 1000000\nrate_burst = 1000000\n");
	kp_guest(d, &players[0]);
	kp_guest(d, &players[1]);
	struct kc *p[2] = { players[0].c, players[1].c };
	unsigned base = 300;   /* seeds 300.. include a nost en passant (339) */
	const char *env = getenv("KRIEG_LEAK_SEED");
	if (env)
		base = (unsigned)strtoul(env, NULL, 10);
	unsigned games = LEAK_GAMES;
	if ((env = getenv("KRIEG_LEAK_GAMES")) != NULL)
		games = (unsigned)strtoul(env, NULL, 10);
	for (unsigned i = 0; i < games; i++)
		play_one(d, p, base + i);
	kc_close(p[0]);
	kc_close(p[1]);
	kd_stop(d);
}
END_TEST

static Suite *leak_suite(void)
{
	Suite *s = suite_create("leak");
	TCase *tc = tcase_create("random");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, random_games_leak_nothing);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(leak_suite)
