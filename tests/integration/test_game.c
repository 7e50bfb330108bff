/*
 * test_game.c — complete games through a real kriegd over TLS: every rule
 * set to checkmate, clocks, resume, abandonment, draws, resignation,
 * abort, and requests that must fail cleanly.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "event.h"
#include "harness.h"
#include "harness_game.h"
#include "mstime.h"
#include "proto.h"

#define FAST_CONFIG "rate_limit = 100000\nrate_burst = 100000\n"

/* w seeks as white with the given terms (a json_pack'ed object stolen), b accepts. */
static long long start_game(struct kp *w, struct kp *b, const char *rules, json_t *time)
{
	json_t *r;
	if (time)
		r = kc_ok(w->c, kc_req(w->c, "seek", "{s:s, s:s, s:o}", "rules", rules, "color", "white",
		                       "time", time));
	else
		r = kc_ok(w->c, kc_req(w->c, "seek", "{s:s, s:s}", "rules", rules, "color", "white"));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	r = kc_ok(b->c, kc_req(b->c, "accept", "{s:I}", "offer", offer));
	long long game = json_integer_value(json_object_get(r, "game"));
	ck_assert_int_gt(game, 0);
	json_t *ws = kc_event(w->c, "game_start");
	json_t *bs = kc_event(b->c, "game_start");
	ck_assert_int_eq(json_integer_value(json_object_get(ws, "game")), game);
	ck_assert_str_eq(json_string_value(json_object_get(ws, "color")), "white");
	ck_assert_str_eq(json_string_value(json_object_get(bs, "color")), "black");
	ck_assert_str_eq(json_string_value(json_object_get(ws, "rules")), rules);
	ck_assert_str_eq(json_string_value(json_object_get(bs, "white")), w->name);
	return game;
}

static json_t *move(struct kp *p, long long game, const char *m)
{
	return kc_ok(p->c, kc_req(p->c, "move", "{s:I, s:s}", "game", game, "move", m));
}

/* The next announcement `name` for this game, with its by/fields checked by the caller. */
static json_t *announcement(struct kp *p, const char *name)
{
	json_t *e = kc_event(p->c, name);
	ck_assert_msg(json_is_integer(json_object_get(e, "game")), "%s without a game", name);
	return e;
}

static void assert_over(struct kp *p, long long game, const char *result, const char *reason)
{
	json_t *e = announcement(p, "game_over");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), game);
	ck_assert_str_eq(json_string_value(json_object_get(e, "result")), result);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), reason);
}

/* No line a player received names one of these moves of the opponent. */
static void assert_never_saw(struct kp *p, const char *const *needles)
{
	for (; *needles; needles++)
		ck_assert_msg(!kc_saw(p->c, *needles), "%s saw %s", p->name, *needles);
	for (size_t i = 0; i < kc_nlines(p->c); i++)
		ck_assert_msg(!strstr(kc_line(p->c, i), "umpire_move"), "%s got an umpire_move",
		              p->name);
}

/* ---- checkmate in every rule set -------------------------------------------- */

static const char *const all_rules[] = { "icc", "english", "insurance", "nost", "gollon",
                                         "berkeley", "berkeley_any", "cincinnati", "rand", "crazykrieg" };

START_TEST(fools_mate_in_every_ruleset)
{
	const char *rules = all_rules[_i];
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, rules, NULL);
	bool nost = strcmp(rules, "nost") == 0;
	bool ask = !strcmp(rules, "english") || !strcmp(rules, "insurance") || !strcmp(rules, "gollon") ||
	           !strcmp(rules, "berkeley_any") || !strcmp(rules, "crazykrieg");
	/* cincinnati and rand said "no pawn capture" (rand: no pawn named), so a
	 * pawn capture try is nonsense, heard by both, and not a try */
	bool nonsense = !strcmp(rules, "cincinnati") || !strcmp(rules, "rand");
	/* berkeley_any, crazykrieg: after their "No", fxe4 is impossible, not a try */
	bool not_a_try = nonsense || !strcmp(rules, "berkeley_any") || !strcmp(rules, "crazykrieg");

	/* 1. f3 */
	move(&w, g, "f3");
	json_t *e = announcement(&w, "move");
	ck_assert_str_eq(json_string_value(json_object_get(e, "move")), "f2f3");
	/* Black tries a pawn capture onto an empty square first: refused, then e5. */
	if (nost) {
		kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:[s,s]}", "game", g, "moves", "exf6", "e5"));
	} else {
		move(&b, g, "exf6");
		e = announcement(&b, nonsense ? "impossible" : "illegal");
		ck_assert_str_eq(json_string_value(json_object_get(e, "move")), "e7f6");
		move(&b, g, "e7-e5");
	}
	e = announcement(&b, "move");
	ck_assert_str_eq(json_string_value(json_object_get(e, "move")), "e7e5");
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "black");
	e = announcement(&w, "moved");
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "black");
	ck_assert_ptr_null(json_object_get(e, "move"));

	/* 2. Any? where the rule set has it (no: f3 has nothing to take). */
	long long id = kc_req(w.c, "any", "{s:I}", "game", g);
	if (ask) {
		kc_ok(w.c, id);
		e = announcement(&w, "any");
		ck_assert_str_eq(json_string_value(json_object_get(e, "answer")), "no");
	} else {
		kc_error(w.c, id, "illegal_action");
	}
	/* A refused try (f3xe4: nothing on e4), then g4. */
	if (nost) {
		kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:[s,s]}", "game", g, "moves", "fxe4", "g4"));
	} else {
		move(&w, g, "fxe4");
		/* The same refused try again this turn is not a new try. */
		if (!not_a_try)
			kc_error(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", g, "move", "f3e4"),
			         "illegal_action");
		move(&w, g, "g2g4");
	}
	/* 2... Qh4# */
	move(&b, g, "Qh4");
	assert_over(&w, g, "0-1", "checkmate");
	assert_over(&b, g, "0-1", "checkmate");
	kc_error(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", g, "move", "e4"), "game_over");
	/* Regression (the endings probe): `say` alone answered no_such_game */
	kc_error(w.c, kc_req(w.c, "say", "{s:I, s:s}", "game", g, "text", "gg"), "game_over");

	const char *const black_moves[] = { "\"e7e5\"", "\"d8h4\"", "\"e7f6\"", NULL };
	const char *const white_moves[] = { "\"f2f3\"", "\"g2g4\"", "\"f3e4\"", NULL };
	assert_never_saw(&w, black_moves);
	assert_never_saw(&b, white_moves);

	/* The record: finished, with the result. */
	kg_assert_ended(b.c, g, "0-1", "checkmate");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* ---- clocks ------------------------------------------------------------------ */

START_TEST(clock_flag_falls_without_any_message)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "icc", json_pack("{s:f, s:i}", "base", 1.0, "inc", 0));
	/* Clock readings ride on the events (the opening ones were sent with game_start). */
	json_t *clk = json_object_get(json_array_get(json_object_get(
		kc_ok(b.c, kc_req(b.c, "games", NULL)), "games"), 0), "clock");
	ck_assert(json_is_integer(json_object_get(clk, "white")));
	ck_assert_int_eq(json_integer_value(json_object_get(clk, "black")), 1000);
	/* A refused try does not stop White's clock; then nobody sends anything. */
	move(&w, g, "exd3");
	json_t *e = kc_event(b.c, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "time");
	ck_assert_str_eq(json_string_value(json_object_get(e, "result")), "0-1");
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "white");
	e = kc_event(w.c, "game_over");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(e, "clock"), "white")), 0);
	kc_error(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", g, "move", "e4"), "game_over");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * A flag falls in K+Q v K (test_start_fen): when the side with the queen
 * runs out, the bare king cannot mate and the game is drawn; when the bare
 * king runs out, the queen wins.
 */
#define KQK_FEN "k7/8/8/8/8/8/8/KQ6 w - - 0 1"

START_TEST(time_forfeit_is_a_draw_when_the_other_side_cannot_mate)
{
	struct kd *d = kd_start(FAST_CONFIG "test_start_fen = " KQK_FEN "\n");
	struct kp w1, b1, w2, b2;
	kp_guest(d, &w1);
	kp_guest(d, &b1);
	kp_guest(d, &w2);
	kp_guest(d, &b2);
	long long g1 = start_game(&w1, &b1, "icc", json_pack("{s:f, s:i}", "base", 1.0, "inc", 0));
	long long g2 = start_game(&w2, &b2, "icc", json_pack("{s:f, s:i}", "base", 2.0, "inc", 0));
	json_t *r = kc_ok(w1.c, kc_req(w1.c, "game", "{s:I}", "game", g1));
	ck_assert_str_eq(json_string_value(json_object_get(r, "fen")), KQK_FEN);
	/* Game 2: White moves at once, then Black's flag falls: 1-0. */
	move(&w2, g2, "Ka2");
	announcement(&w2, "move");
	/* Game 1: White (king and queen) never moves: the bare king cannot mate. */
	json_t *e = announcement(&b1, "game_over");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), g1);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "time");
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "white");
	ck_assert_str_eq(json_string_value(json_object_get(e, "result")), "1/2-1/2");
	assert_over(&w1, g1, "1/2-1/2", "time");
	assert_over(&w2, g2, "1-0", "time");
	e = announcement(&b2, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "black");
	ck_assert_str_eq(json_string_value(json_object_get(e, "result")), "1-0");
	kc_close(w1.c);
	kc_close(b1.c);
	kc_close(w2.c);
	kc_close(b2.c);
	kd_stop(d);
}
END_TEST

/*
 * A start with Black to move (test_start_fen): Black's clock runs, and
 * Black's flag falls.  Before, White's ran (and White lost on time
 * without being to move).
 */
#define BLACK_TO_MOVE_FEN "7k/8/8/8/8/8/8/1Q2K3 b - - 0 1"

START_TEST(clock_of_the_side_to_move_at_the_start)
{
	struct kd *d = kd_start(FAST_CONFIG "test_start_fen = " BLACK_TO_MOVE_FEN "\n");
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "icc", json_pack("{s:f, s:i}", "base", 1.0, "inc", 0));
	kt_sleep_ms(300);
	json_t *r = kc_ok(w.c, kc_req(w.c, "game", "{s:I}", "game", g));
	ck_assert_str_eq(json_string_value(json_object_get(r, "to_move")), "black");
	json_t *clk = json_object_get(r, "clock");
	ck_assert_int_eq(json_integer_value(json_object_get(clk, "white")), 1000);
	ck_assert_int_lt(json_integer_value(json_object_get(clk, "black")), 1000);
	json_t *e = announcement(&w, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "time");
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "black");
	ck_assert_str_eq(json_string_value(json_object_get(e, "result")), "1-0");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * A start that is an end (K+B v K, test_start_fen: insufficient material):
 * both players hear game_over, and the game is over everywhere, in its
 * row too (it stayed live: listed in `games` and `live`, a clock running
 * to 0 with no flag, flagged at the next start as a record that ends
 * while its row says live).
 */
#define KBK_FEN "4k3/8/8/8/8/8/8/4KB2 w - - 0 1"

START_TEST(over_at_its_start)
{
	struct kd *d = kd_start(FAST_CONFIG "test_start_fen = " KBK_FEN "\n");
	struct kp w, b, x;
	kp_guest(d, &w);
	kp_guest(d, &b);
	kp_guest(d, &x);
	long long g = start_game(&w, &b, "icc", json_pack("{s:i, s:i}", "base", 60, "inc", 0));
	assert_over(&w, g, "1/2-1/2", "insufficient_material");
	assert_over(&b, g, "1/2-1/2", "insufficient_material");
	json_t *r = kc_ok(w.c, kc_req(w.c, "game", "{s:I}", "game", g));
	ck_assert(json_is_false(json_object_get(r, "live")));
	ck_assert_str_eq(json_string_value(json_object_get(r, "result")), "1/2-1/2");
	json_t *list = json_object_get(kc_ok(w.c, kc_req(w.c, "games", NULL)), "games");
	size_t i;
	json_t *it;
	json_array_foreach(list, i, it)
		if (json_integer_value(json_object_get(it, "game")) == g)
			ck_assert_msg(json_is_false(json_object_get(it, "live")), "listed live in games");
	ck_assert_uint_eq(json_array_size(json_object_get(kc_ok(x.c, kc_req(x.c, "live", NULL)),
	                                                  "games")), 0);
	kc_error(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", g, "move", "Kd2"), "game_over");
	/* A restart finds it finished, not a record to flag. */
	kd_restart(d);
	ck_assert_int_eq(kd_log_count(d, "flagged"), 0);
	kc_close(w.c);
	kc_close(b.c);
	kc_close(x.c);
	kd_stop(d);
}
END_TEST

/*
 * nost preference lists over the wire: an item "e.p." (or "ep") alone
 * belongs to the item before it, as krieg-referee reads a typed line.
 */
START_TEST(nost_list_with_a_separate_ep_item)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "nost", NULL);
	move(&w, g, "e4");
	move(&b, g, "a6");
	move(&w, g, "e5");
	move(&b, g, "d5");
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:[s,s,s]}", "game", g, "moves", "exd6", "e.p.", "a3"));
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	kc_ok(b.c, kc_req(b.c, "ping", NULL));
	ck_assert_msg(kc_saw(w.c, "\"move\":\"e5d6\""), "the en passant list item was not played");
	/* nost: the capturer hears the landing square, the victim its pawn's square. */
	ck_assert(kc_saw(w.c, "\"square\":\"d6\""));
	ck_assert(kc_saw(b.c, "\"square\":\"d5\""));
	/* Black's turn: "ep" attaches as well (here to a move that is no capture). */
	json_t *arr = json_array();
	json_array_append_new(arr, json_string("Nc6"));
	json_array_append_new(arr, json_string("ep"));
	kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:O}", "game", g, "moves", arr));
	json_decref(arr);
	kc_ok(b.c, kc_req(b.c, "ping", NULL));
	ck_assert(kc_saw(b.c, "\"move\":\"b8c6\""));
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(clock_increment_and_correspondence)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "english", json_pack("{s:i, s:i}", "base", 60, "inc", 5));
	move(&w, g, "e4");
	json_t *clk = json_object_get(announcement(&w, "move"), "clock");
	/* White moved within a second or so: the increment puts it above the base. */
	ck_assert_int_gt(json_integer_value(json_object_get(clk, "white")), 60000);
	ck_assert_int_eq(json_integer_value(json_object_get(clk, "black")), 60000);

	long long g2 = start_game(&w, &b, "icc", json_pack("{s:i}", "days", 2));
	json_t *r = kc_ok(w.c, kc_req(w.c, "games", NULL));
	json_t *games = json_object_get(r, "games");
	ck_assert_int_eq(json_array_size(games), 2);
	bool found = false;
	for (size_t i = 0; i < json_array_size(games); i++) {
		json_t *gi = json_array_get(games, i);
		if (json_integer_value(json_object_get(gi, "game")) == g2) {
			found = true;
			ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(gi, "time"), "days")), 2);
			ck_assert_int_gt(json_integer_value(json_object_get(json_object_get(gi, "clock"), "white")),
			                 2LL * 86400 * 1000 - 60000);
		}
	}
	ck_assert(found);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* ---- resume, several connections, abandonment ------------------------------- */

static json_t *my_game_events(struct kc *c, long long game, size_t from)
{
	json_t *arr = json_array();
	for (size_t i = from; i < kc_nlines(c); i++) {
		json_t *j = json_loads(kc_line(c, i), 0, NULL);
		const char *ev = json_string_value(json_object_get(j, "event"));
		if (ev && json_integer_value(json_object_get(j, "game")) == game &&
		    strcmp(ev, "game_start") && strcmp(ev, "game_state") && strcmp(ev, "draw_offer") &&
		    strcmp(ev, "draw_declined")) {
			json_object_del(j, "clock");
			json_array_append(arr, j);
		}
		json_decref(j);
	}
	return arr;
}

START_TEST(resume_mid_game_gives_the_same_view)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "english", NULL);
	/* A second connection of White's, logged in with the token, sees White's events too. */
	struct kp w2 = w;             /* the same player */
	json_t *r = kp_resume(d, &w2);
	snprintf(w.token, sizeof w.token, "%s", w2.token);
	kc_event(w2.c, "game_state");
	size_t w2_from = kc_nlines(w2.c);

	move(&w, g, "e4");
	move(&b, g, "d5");
	move(&w, g, "Bb5");
	move(&b, g, "exd6");          /* refused: nothing on d6 to take */
	move(&b, g, "c6");            /* out of the check */
	move(&w, g, "exd5");          /* a capture */
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	kc_ok(w2.c, kc_req(w2.c, "ping", NULL));
	json_t *seen = my_game_events(w.c, g, 0);
	json_t *seen2 = my_game_events(w2.c, g, w2_from);
	ck_assert_msg(json_equal(seen, seen2), "the second connection's stream differs");
	ck_assert_int_gt(json_array_size(seen), 5);

	/* White drops both connections; Black plays on meanwhile. */
	kc_close(w.c);
	kc_close(w2.c);
	move(&b, g, "a6");
	kc_ok(b.c, kc_req(b.c, "ping", NULL));

	struct kp w3 = w;
	r = kp_resume(d, &w3);
	ck_assert_str_eq(json_string_value(json_object_get(r, "user")), w.name);
	json_t *st = kc_event(w3.c, "game_state");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "game")), g);
	ck_assert_str_eq(json_string_value(json_object_get(st, "color")), "white");
	ck_assert_ptr_null(json_object_get(st, "next"));
	json_t *evs = json_object_get(st, "events");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "total")), json_array_size(evs));
	/* Exactly what White heard before, then what White missed (Black moved, check). */
	ck_assert_int_gt(json_array_size(evs), json_array_size(seen));
	for (size_t i = 0; i < json_array_size(seen); i++) {
		json_t *a = json_deep_copy(json_array_get(evs, i));
		json_object_del(a, "clock");
		ck_assert_msg(json_equal(a, json_array_get(seen, i)), "event %zu differs after resume", i);
		json_decref(a);
	}
	json_t *missed = json_array_get(evs, json_array_size(seen));
	ck_assert_str_eq(json_string_value(json_object_get(missed, "event")), "moved");
	ck_assert_str_eq(json_string_value(json_object_get(missed, "by")), "black");
	ck_assert_ptr_null(json_object_get(missed, "move"));
	for (size_t i = 0; i < kc_nlines(w3.c); i++)
		ck_assert(!strstr(kc_line(w3.c, i), "a7a6") && !strstr(kc_line(w3.c, i), "umpire_move"));
	/* And `game` gives the same view. */
	r = kc_ok(w3.c, kc_req(w3.c, "game", "{s:I}", "game", g));
	ck_assert(json_equal(json_object_get(r, "events"), evs));
	/* The game goes on from the resumed connection. */
	kc_ok(w3.c, kc_req(w3.c, "move", "{s:I, s:s}", "game", g, "move", "Nc3"));
	json_decref(seen);
	json_decref(seen2);
	kc_close(w3.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * A full record still ends: once refused tries, offers or chat have
 * filled all but its last actions (here each player's share of them:
 * with KRIEGD_RECORD_MAX 40, ten each), nothing more is taken but an
 * ending, so a player can still resign and the flag still falls.  Before, every
 * action was refused at the cap, endings and the flag's own included: the
 * game hung live for ever (probe: 50,000 draw offers and declines, then
 * resign, umpire_abort and the flag all refused).  KRIEGD_RECORD_MAX
 * makes the record short.
 */
START_TEST(full_record_still_ends)
{
	setenv("KRIEGD_RECORD_MAX", "40", 1);
	setenv("KRIEGD_CHAT_WINDOW_MS", "1", 1);
	struct kd *d = kd_start(FAST_CONFIG);
	unsetenv("KRIEGD_RECORD_MAX");
	unsetenv("KRIEGD_CHAT_WINDOW_MS");
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	for (int round = 0; round < 2; round++) {
		json_t *time = round == 0 ? NULL : json_pack("{s:i, s:i}", "base", 3, "inc", 0);
		long long g = start_game(&w, &b, "icc", time);
		move(&w, g, "e4");   /* Black to move */
		/* Filled with words (an offer is one a move: game_act). */
		int says = 0;
		for (;; says++) {
			ck_assert_int_lt(says, 40);
			json_t *r = kc_response(w.c, kc_req(w.c, "say", "{s:I, s:s}", "game",
			                                    (json_int_t)g, "text", "x"));
			if (!json_is_true(json_object_get(r, "ok"))) {
				json_t *e = json_object_get(r, "error");
				ck_assert_str_eq(json_string_value(json_object_get(e, "code")),
				                 "illegal_action");
				ck_assert(strstr(json_string_value(json_object_get(e, "message")),
				                 "can only be ended") != NULL);
				break;
			}
			kc_ok(b.c, kc_req(b.c, "say", "{s:I, s:s}", "game", (json_int_t)g, "text", "y"));
		}
		ck_assert_int_gt(says, 5);
		/* White's share is full (its move and words); Black's words left
		 * it one action of its own. */
		kc_ok(b.c, kc_req(b.c, "say", "{s:I, s:s}", "game", (json_int_t)g, "text", "hi"));
		kc_error(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)g, "move", "e7e5"),
		         "illegal_action");
		kc_error(b.c, kc_req(b.c, "say", "{s:I, s:s}", "game", (json_int_t)g, "text", "hi"),
		         "illegal_action");
		if (round == 0) {
			kc_ok(b.c, kc_req(b.c, "resign", "{s:I}", "game", (json_int_t)g));
			assert_over(&w, g, "1-0", "resignation");
		} else {
			assert_over(&w, g, "1-0", "time");   /* Black's 3 s */
		}
	}
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Also after a reload, which used to put the configured grace (by
 * default a minute) over the test hook's (probe). */
START_TEST(abandonment_after_grace)
{
	setenv("KRIEGD_ABANDON_GRACE_MS", "300", 1);
	struct kd *d = kd_start(FAST_CONFIG);
	unsetenv("KRIEGD_ABANDON_GRACE_MS");
	kd_reload(d, "motd = reloaded\n");
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "icc", NULL);
	move(&w, g, "e4");
	move(&b, g, "e5");
	kc_close(b.c);
	assert_over(&w, g, "1-0", "abandoned");
	kc_close(w.c);
	kd_stop(d);
}
END_TEST

/* Regression: with both players away, the game ended at the deadline of
 * whoever left first, as the side to move's abandonment, before the
 * deadline that side had been shown (`until`): a player who waited out a
 * departed opponent lost by stepping away briefly.  Now the side to move
 * forfeits at its own deadline; back before it, it wins: the other is
 * away past theirs.  A spectator sees the deadlines and the ends. */
START_TEST(both_away_the_side_to_move_has_its_own_grace)
{
	const long long grace = 1500LL * kt_timeout_scale();
	char env[32];
	snprintf(env, sizeof env, "%lld", grace);
	setenv("KRIEGD_ABANDON_GRACE_MS", env, 1);
	struct kd *d = kd_start(FAST_CONFIG);
	unsetenv("KRIEGD_ABANDON_GRACE_MS");
	struct kp w, b, s;
	kp_guest(d, &w);
	kp_guest(d, &b);
	kp_guest(d, &s);
	for (int round = 0; round < 2; round++) {
		long long g = start_game(&w, &b, "icc", json_pack("{s:i, s:i}", "base", 300, "inc", 0));
		kc_ok(s.c, kc_req(s.c, "watch", "{s:I}", "game", g));
		move(&w, g, "e4");   /* Black to move */
		kc_close(w.c);
		json_t *e = kc_event(s.c, "opponent_away");
		ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
		long long white_until = json_integer_value(json_object_get(e, "until"));
		kt_sleep_ms((int)(grace / 2));
		kc_close(b.c);
		e = kc_event(s.c, "opponent_away");
		ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
		long long black_until = json_integer_value(json_object_get(e, "until"));
		ck_assert_int_gt(black_until, white_until);
		if (round == 0) {
			/* Black is back after White's deadline, before its own: White lost. */
			while (mstime_wall() < white_until + (black_until - white_until) / 3)
				kt_sleep_ms(10);
			kp_resume(d, &b);
			e = kc_event(s.c, "game_over");
			ck_assert_str_eq(json_string_value(json_object_get(e, "result")), "0-1");
			ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "white");
			ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "abandoned");
			assert_over(&b, g, "0-1", "abandoned");
		} else {
			/* Nobody comes back: Black, to move, lost at its own deadline. */
			e = kc_event(s.c, "game_over");
			ck_assert_int_ge(mstime_wall(), black_until - 50);
			ck_assert_str_eq(json_string_value(json_object_get(e, "result")), "1-0");
			ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "black");
			kp_resume(d, &b);
		}
		kp_resume(d, &w);
	}
	kc_close(w.c);
	kc_close(b.c);
	kc_close(s.c);
	kd_stop(d);
}
END_TEST

/*
 * A login sends every game's state and all its game_events pages: more
 * than a small output cap holds.  They go out as the client reads, so
 * the reconnecting player is not dropped (and does not then lose both
 * games by abandonment), and every event arrives exactly once.
 */
#define CAP_ACTS 320
START_TEST(login_state_larger_than_the_output_cap)
{
	struct kd *d = kd_start(FAST_CONFIG "output_buffer_max = 32k\n");
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	static struct action acts[2][CAP_ACTS];
	size_t n[2] = { 0, 0 };
	json_int_t games[2];
	unsigned seed = 5;
	for (int k = 0; k < 2; k++) {
		json_t *r = kc_ok(w.c, kc_req(w.c, "seek", "{s:s, s:s}", "rules", "english", "color",
		                               "white"));
		r = kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer",
		                      json_integer_value(json_object_get(r, "offer"))));
		games[k] = json_integer_value(json_object_get(r, "game"));
		/* English: every refused try is announced to both sides. */
		while (n[k] < CAP_ACTS) {
			struct action a;
			if (kg_random_try("english", acts[k], n[k], &seed, &a) < 0)
				break;
			struct kc *c = a.color == WHITE ? w.c : b.c;
			kc_ok(c, kc_req(c, "move", "{s:I, s:s}", "game", games[k], "move", a.text));
			acts[k][n[k]++] = a;
		}
	}
	kc_close(w.c);
	/* Resume while reading slowly: the state is several times the cap. */
	w.c = kc_open_rcvbuf(d, 4096);
	kc_event(w.c, "greeting");
	kc_ok(w.c, kc_req(w.c, "hello", "{s:i}", "version", PROTO_VERSION));
	kc_ok(w.c, kc_req(w.c, "resume", "{s:s}", "token", w.token));
	size_t bytes = 0;
	for (int round = 0; round < 2; round++) {
		json_t *st = kc_event(w.c, "game_state");
		json_int_t gid = json_integer_value(json_object_get(st, "game"));
		ck_assert(gid == games[0] || gid == games[1]);
		int k = gid == games[0] ? 0 : 1;
		json_t *want = kg_expected("english", acts[k], n[k], games[k], AUD_WHITE);
		json_t *got = json_array();
		json_int_t total = json_integer_value(json_object_get(st, "total"));
		json_array_extend(got, json_object_get(st, "events"));
		while (json_object_get(st, "next") != NULL && (json_int_t)json_array_size(got) < total) {
			st = kc_event(w.c, "game_events");
			ck_assert_int_eq(json_integer_value(json_object_get(st, "game")), gid);
			ck_assert_int_eq(json_integer_value(json_object_get(st, "from")),
			                 (json_int_t)json_array_size(got));
			json_array_extend(got, json_object_get(st, "events"));
		}
		ck_assert_int_eq((json_int_t)json_array_size(got), total);
		for (size_t i = 0; i < json_array_size(got); i++)
			json_object_del(json_array_get(got, i), "clock");
		ck_assert_msg(json_equal(got, want), "game %lld: the login's events differ",
		              (long long)games[k]);
		char *txt = json_dumps(got, JSON_COMPACT);
		bytes += strlen(txt);
		free(txt);
		json_decref(got);
		json_decref(want);
	}
	ck_assert_msg(bytes > 2 * 32768, "only %zu bytes of state: not a test of the cap", bytes);
	for (size_t i = 0; i < kc_nlines(w.c); i++)
		ck_assert_uint_lt(strlen(kc_line(w.c, i)) + 1, PROTO_LINE_MAX + 1);
	/* Still connected, and both games still live. */
	json_t *r = kc_ok(w.c, kc_req(w.c, "games", NULL));
	json_t *list = json_object_get(r, "games");
	size_t live = 0;
	for (size_t i = 0; i < json_array_size(list); i++)
		live += json_is_true(json_object_get(json_array_get(list, i), "live"));
	ck_assert_uint_eq(live, 2);
	ck_assert_int_eq(kd_log_count(d, "over cap"), 0);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Correspondence: each move refills the mover's allowance to the full days. */
START_TEST(correspondence_refill_after_a_move)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "icc", json_pack("{s:i}", "days", 1));
	kt_sleep_ms(1200);
	json_t *r = kc_ok(w.c, kc_req(w.c, "game", "{s:I}", "game", g));
	json_int_t before = json_integer_value(json_object_get(json_object_get(r, "clock"), "white"));
	ck_assert_int_lt(before, 86400000LL - 1000);
	move(&w, g, "e4");
	json_t *clk = json_object_get(announcement(&w, "move"), "clock");
	ck_assert_int_eq(json_integer_value(json_object_get(clk, "white")), 86400000LL);
	ck_assert_int_le(json_integer_value(json_object_get(clk, "black")), 86400000LL);
	ck_assert_int_gt(json_integer_value(json_object_get(clk, "black")), 86400000LL - 2000);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* ---- draws, resignation, abort ----------------------------------------------- */

START_TEST(draw_by_agreement)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "insurance", NULL);
	kc_error(b.c, kc_req(b.c, "draw", "{s:I, s:s}", "game", g, "action", "accept"),
	         "illegal_action");
	kc_ok(w.c, kc_req(w.c, "draw", "{s:I, s:s}", "game", g, "action", "offer"));
	json_t *e = kc_event(b.c, "draw_offer");
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "white");
	/* Regression: offering again while one's own offer stands sent the
	 * opponent the notice again (and recorded it again).  Refused now. */
	kc_event(w.c, "draw_offer");
	kc_error(w.c, kc_req(w.c, "draw", "{s:I, s:s}", "game", g, "action", "offer"), "illegal_action");
	kc_no_game_event(b.c, "draw_offer");
	kc_no_game_event(w.c, "draw_offer");
	kc_ok(b.c, kc_req(b.c, "draw", "{s:I, s:s}", "game", g, "action", "decline"));
	e = kc_event(w.c, "draw_declined");
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "black");
	kc_error(b.c, kc_req(b.c, "draw", "{s:I, s:s}", "game", g, "action", "accept"),
	         "illegal_action");
	/* Regression: declined, an offer could be made again at once, thirty in
	 * two seconds, each a question put to the opponent (the web page's
	 * modal one).  One offer a side a move (a ply). */
	kc_error(w.c, kc_req(w.c, "draw", "{s:I, s:s}", "game", g, "action", "offer"), "illegal_action");
	kc_no_game_event(b.c, "draw_offer");
	move(&w, g, "d4");
	kc_ok(b.c, kc_req(b.c, "draw", "{s:I, s:s}", "game", g, "action", "offer"));
	kc_event(w.c, "draw_offer");
	kc_ok(w.c, kc_req(w.c, "draw", "{s:I, s:s}", "game", g, "action", "accept"));
	assert_over(&w, g, "1/2-1/2", "agreement");
	assert_over(&b, g, "1/2-1/2", "agreement");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Regression: in nost, a draw offer survived the opponent's move when
 * that move was made for them (their "if quiet" list, played after the
 * offerer's move): it could still be accepted a move later. */
START_TEST(draw_offer_lapses_on_a_quiet_move)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "nost", NULL);
	move(&w, g, "Nf3");
	kc_ok(b.c, kc_req(b.c, "quiet", "{s:I, s:[s,s,s]}", "game", g, "moves", "Nf6", "Ng8", "Nf6"));
	kc_ok(w.c, kc_req(w.c, "draw", "{s:I, s:s}", "game", g, "action", "offer"));
	kc_event(b.c, "draw_offer");
	move(&w, g, "Nc3");   /* and Black's Ng8, made for it */
	json_t *r = kc_ok(b.c, kc_req(b.c, "game", "{s:I}", "game", g));
	ck_assert_str_eq(json_string_value(json_object_get(r, "to_move")), "white");
	ck_assert_ptr_null(json_object_get(r, "draw_offer"));
	kc_error(b.c, kc_req(b.c, "draw", "{s:I, s:s}", "game", g, "action", "accept"), "illegal_action");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(resignation)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "gollon", NULL);
	move(&w, g, "Nf3");
	kc_ok(b.c, kc_req(b.c, "resign", "{s:I}", "game", g));
	assert_over(&w, g, "1-0", "resignation");
	assert_over(&b, g, "1-0", "resignation");
	json_t *r = kc_ok(w.c, kc_req(w.c, "games", NULL));
	json_t *gi = json_array_get(json_object_get(r, "games"), 0);
	ck_assert(json_is_false(json_object_get(gi, "live")));
	ck_assert_str_eq(json_string_value(json_object_get(gi, "result")), "1-0");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(abort_only_before_both_moved)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "icc", NULL);
	move(&w, g, "e4");
	kc_ok(b.c, kc_req(b.c, "abort", "{s:I}", "game", g));
	assert_over(&w, g, "*", "aborted");
	assert_over(&b, g, "*", "aborted");

	g = start_game(&w, &b, "icc", NULL);
	move(&w, g, "e4");
	move(&b, g, "e5");
	kc_error(w.c, kc_req(w.c, "abort", "{s:I}", "game", g), "illegal_action");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* ---- requests that must fail -------------------------------------------------- */

START_TEST(acting_in_another_users_game)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b, x;
	kp_guest(d, &w);
	kp_guest(d, &b);
	kp_guest(d, &x);
	long long g = start_game(&w, &b, "icc", NULL);
	static const char *const types[] = { "any", "resign", "abort", "game", "possible" };
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		json_t *e1 = kc_error(x.c, kc_req(x.c, types[i], "{s:I}", "game", g), "no_such_game");
		json_t *e2 = kc_error(x.c, kc_req(x.c, types[i], "{s:I}", "game", g + 1000), "no_such_game");
		/* No existence oracle: the same answer for a real game and a missing one. */
		ck_assert(json_equal(json_object_get(e1, "error"), json_object_get(e2, "error")));
	}
	kc_error(x.c, kc_req(x.c, "move", "{s:I, s:s}", "game", g, "move", "e4"), "no_such_game");
	kc_error(x.c, kc_req(x.c, "draw", "{s:I, s:s}", "game", g, "action", "offer"), "no_such_game");
	/* x's refused offer reached nobody.  x holds its answer, so whatever
	 * the offer sent went out (or is held for its commit) already; a
	 * `games` barrier on each player comes after both (harness.h). */
	kc_no_game_event(w.c, "draw_offer");
	kc_no_game_event(b.c, "draw_offer");
	kc_close(w.c);
	kc_close(b.c);
	kc_close(x.c);
	kd_stop(d);
}
END_TEST

START_TEST(moving_out_of_turn)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "english", NULL);
	kc_error(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", g, "move", "e5"), "not_your_turn");
	move(&w, g, "e4");
	kc_error(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", g, "move", "d4"), "not_your_turn");
	kc_error(w.c, kc_req(w.c, "any", "{s:I}", "game", g), "not_your_turn");
	/* White was told nothing about Black's refused attempts. */
	ck_assert(!kc_saw(w.c, "e7e5"));
	json_t *r = kc_ok(b.c, kc_req(b.c, "possible", "{s:I}", "game", g));
	json_t *moves = json_object_get(r, "moves"), *san = json_object_get(r, "san");
	bool e5 = false;
	for (size_t i = 0; i < json_array_size(moves); i++)
		e5 |= strcmp(json_string_value(json_array_get(moves, i)), "e7e5") == 0;
	ck_assert(e5);
	/* the same in SAN, in the same order (the page lists these) */
	ck_assert_int_eq(json_array_size(san), json_array_size(moves));
	for (size_t i = 0; i < json_array_size(moves); i++) {
		const char *uci = json_string_value(json_array_get(moves, i));
		const char *text = json_string_value(json_array_get(san, i));
		if (strcmp(uci, "e7e5") == 0)
			ck_assert_str_eq(text, "e5");
		else if (strcmp(uci, "g8f6") == 0)
			ck_assert_str_eq(text, "Nf6");
	}
	ck_assert_int_ge(json_array_size(moves), 20);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * Regression (the protocol probe): an impossible try sent again in the same
 * turn was ruled, recorded and announced again, and where impossible tries
 * are public (cincinnati) the opponent heard every repeat.  It is refused,
 * as an illegal try sent again is (illegal_action), and told once; a
 * nost list holding one is refused the same way.
 */
START_TEST(impossible_try_again_is_refused)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "cincinnati", NULL);
	move(&w, g, "a1a5");   /* through the own pawn: nonsense, told to both */
	json_t *e = kc_error(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", g, "move", "Ra1a5"),
	                     "illegal_action");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"), "message")),
	                 "that try was refused already this turn");
	kc_no_game_event(b.c, "move");   /* the barrier: every event of the game for b is in */
	size_t told = 0;
	for (size_t i = 0; i < kc_nlines(b.c); i++)
		told += strstr(kc_line(b.c, i), "\"event\":\"impossible\"") != NULL;
	ck_assert_uint_eq(told, 1);
	move(&w, g, "e4");   /* the turn goes on */
	json_t *r = kc_ok(w.c, kc_req(w.c, "game", "{s:I}", "game", g));
	ck_assert_str_eq(json_string_value(json_object_get(r, "to_move")), "black");
	kc_close(w.c);
	kc_close(b.c);

	kp_guest(d, &w);
	kp_guest(d, &b);
	g = start_game(&w, &b, "nost", NULL);
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:[s]}", "game", g, "moves", "Qd1d5"));
	e = kc_error(w.c, kc_req(w.c, "move", "{s:I, s:[ss]}", "game", g, "moves", "e2e4", "Qd1d5"),
	             "illegal_action");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"), "message")),
	                 "that try was refused already this turn");
	move(&w, g, "e4");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(malformed_game_requests)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "icc", NULL);
	struct kc *c = w.c;
	kc_error(c, kc_req(c, "move", "{s:s}", "move", "e4"), "bad_request");
	kc_error(c, kc_req(c, "move", "{s:s, s:s}", "game", "1", "move", "e4"), "bad_request");
	kc_error(c, kc_req(c, "move", "{s:I}", "game", g), "bad_request");
	kc_error(c, kc_req(c, "move", "{s:I, s:s, s:[s]}", "game", g, "move", "e4", "moves", "d4"),
	         "bad_request");
	kc_error(c, kc_req(c, "move", "{s:I, s:s, s:i}", "game", g, "move", "e4", "extra", 1),
	         "bad_request");
	kc_error(c, kc_req(c, "move", "{s:I, s:i}", "game", g, "move", 5), "bad_request");
	kc_error(c, kc_req(c, "move", "{s:I, s:s}", "game", g, "move",
	                   "e2e4e2e4e2e4e2e4e2e4e2e4e2e4e2e4e2e4"), "bad_request");
	kc_error(c, kc_req(c, "move", "{s:I, s:I}", "game", -1LL, "move", 1), "bad_request");
	kc_error(c, kc_req(c, "draw", "{s:I, s:s}", "game", g, "action", "maybe"), "bad_request");
	kc_error(c, kc_req(c, "draw", "{s:I}", "game", g), "bad_request");
	/* Regression (the refusals probe): a bad action is bad_request in any
	 * game, as `adjourn`'s is, not no_such_game outside one's own */
	kc_error(c, kc_req(c, "draw", "{s:I, s:s}", "game", (json_int_t)999999, "action", "maybe"),
	         "bad_request");
	kc_error(c, kc_req(c, "adjourn", "{s:I, s:s}", "game", (json_int_t)999999, "action", "maybe"),
	         "bad_request");
	kc_error(c, kc_req(c, "move", "{s:I, s:s}", "game", g, "move", "Zz9"), "notation");
	kc_error(c, kc_req(c, "move", "{s:I, s:s}", "game", g, "move", "Ke2"), "notation");
	/* Lists and quiet sequences are nost's. */
	kc_error(c, kc_req(c, "move", "{s:I, s:[s,s]}", "game", g, "moves", "e4", "d4"),
	         "illegal_action");
	kc_error(c, kc_req(c, "quiet", "{s:I, s:[s,s]}", "game", g, "moves", "e4", "d4"),
	         "illegal_action");
	/* A list item with a space, or an empty list, is a malformed request. */
	kc_error(c, kc_req(c, "move", "{s:I, s:[s,s]}", "game", g, "moves", "e4", "d2 d4"),
	         "bad_request");
	kc_error(c, kc_req(c, "move", "{s:I, s:[]}", "game", g, "moves"), "bad_request");
	kc_error(c, kc_req(c, "quiet", "{s:I, s:[]}", "game", g, "moves"), "bad_request");
	/* None of that changed the game: White still moves first. */
	move(&w, g, "e4");
	announcement(&w, "move");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST


/* ---- recovery ----------------------------------------------------------------- */

START_TEST(game_survives_a_crash)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = start_game(&w, &b, "icc", json_pack("{s:i, s:i}", "base", 600, "inc", 0));
	move(&w, g, "e4");
	move(&b, g, "e5");
	move(&w, g, "exd5");          /* refused: nothing on d5 */
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	json_t *seen = my_game_events(w.c, g, 0);
	kc_close(w.c);
	kc_close(b.c);
	kd_crash_restart(d);

	struct kp w2 = w;
	json_t *r = kp_resume(d, &w2);
	ck_assert_int_eq(json_array_size(json_object_get(r, "games")), 1);
	json_t *st = kc_event(w2.c, "game_state");
	json_t *evs = json_object_get(st, "events");
	ck_assert_int_eq(json_array_size(evs), json_array_size(seen));
	for (size_t i = 0; i < json_array_size(seen); i++) {
		json_t *a = json_deep_copy(json_array_get(evs, i));
		json_object_del(a, "clock");
		ck_assert_msg(json_equal(a, json_array_get(seen, i)), "event %zu differs after a crash", i);
		json_decref(a);
	}
	/* The refused try is still refused this turn, and the game goes on. */
	kc_error(w2.c, kc_req(w2.c, "move", "{s:I, s:s}", "game", g, "move", "exd5"), "illegal_action");
	kc_ok(w2.c, kc_req(w2.c, "move", "{s:I, s:s}", "game", g, "move", "Nf3"));
	json_t *e = kc_event(w2.c, "move");
	ck_assert_str_eq(json_string_value(json_object_get(e, "move")), "g1f3");
	ck_assert_int_le(json_integer_value(json_object_get(json_object_get(e, "clock"), "white")), 600000);
	json_decref(seen);
	kc_close(w2.c);
	kd_stop(d);
}
END_TEST


/* ---- transcripts ---------------------------------------------------------------- */

/*
 * A short scripted game per rule set whose two streams are checked like the
 * others and, when KRIEG_TRANSCRIPT_DIR is set, written out as
 * <dir>/<rules>-<colour>.txt: "> " lines sent, "< " lines received, in
 * order.  proto/PROTOCOL.md's annotated transcripts come from these files,
 * and are checked against each run (tcheck_doc).
 */
struct tplayer {
	struct kc *c;
	long long next_id;
	char *sent[64];
	size_t sent_at[64];
	size_t nsent;
};

static json_t *tsend(struct tplayer *p, json_t *req /* stolen */, const char *expect_code)
{
	long long id = p->next_id++;
	/* Read what has arrived first, so the file shows lines in the order a
	 * client living through the game would see them. */
	while (kc_next(p->c, 30))
		;
	json_object_set_new(req, "id", json_integer(id));
	char *line = json_dumps(req, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(req);
	ck_assert_uint_lt(p->nsent, 64);
	p->sent[p->nsent] = line;
	p->sent_at[p->nsent++] = kc_nlines(p->c);
	kc_send(p->c, line);
	return expect_code ? kc_error(p->c, id, expect_code) : kc_ok(p->c, id);
}

static void twrite(struct tplayer *p, const char *dir, const char *rules, const char *color)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s-%s.txt", dir, rules, color);
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	size_t k = 0;
	for (size_t i = 0; i <= kc_nlines(p->c); i++) {
		while (k < p->nsent && p->sent_at[k] == i)
			fprintf(f, "> %s\n", p->sent[k++]);
		if (i < kc_nlines(p->c))
			fprintf(f, "< %s\n", kc_line(p->c, i));
	}
	fclose(f);
}

/* proto/PROTOCOL.md: from the repository root (tests/run-tests.sh's
 * working directory), or by this file's path as the compiler saw it. */
static char *protocol_doc(void)
{
	const char *me = __FILE__, *tail = strstr(me, "tests/integration/");
	FILE *f = fopen("proto/PROTOCOL.md", "r");
	if (f == NULL && tail != NULL) {
		char path[1024];
		snprintf(path, sizeof path, "%.*sproto/PROTOCOL.md", (int)(tail - me), me);
		f = fopen(path, "r");
	}
	ck_assert_msg(f != NULL, "proto/PROTOCOL.md not found");
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	ck_assert_msg(n > 0, "proto/PROTOCOL.md is empty");
	rewind(f);
	char *doc = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(doc);
	doc[fread(doc, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return doc;
}

#define TNAMES 4

/* A transcript line with what differs from run to run made constant: a
 * guest name by its order of first appearance in its transcript, a token,
 * a clock reading (a number after "white": or "black":). */
static void tnorm(const char *in, char *out, size_t len, char names[TNAMES][KP_NAME_MAX],
                  size_t *nnames)
{
	size_t o = 0;
	while (*in && o + 16 < len) {
		if (strncmp(in, "guest-", 6) == 0) {
			size_t k = 6;
			while (in[k] >= 'a' ? in[k] <= 'z' : in[k] >= '0' && in[k] <= '9')
				k++;
			size_t i = 0;
			while (i < *nnames && (strlen(names[i]) != k || strncmp(names[i], in, k) != 0))
				i++;
			if (i == *nnames) {
				ck_assert_uint_lt(*nnames, TNAMES);
				snprintf(names[(*nnames)++], KP_NAME_MAX, "%.*s", (int)k, in);
			}
			o += (size_t)snprintf(out + o, len - o, "guest-%zu", i + 1);
			in += k;
		} else if (strncmp(in, "\"token\":\"", 9) == 0) {
			o += (size_t)snprintf(out + o, len - o, "\"token\":\"T");
			in = strchr(in + 9, '"');
			ck_assert_ptr_nonnull(in);
		} else if ((strncmp(in, "\"white\":", 8) == 0 || strncmp(in, "\"black\":", 8) == 0) &&
		           in[8] >= '0' && in[8] <= '9') {
			o += (size_t)snprintf(out + o, len - o, "%.8sN", in);
			for (in += 8; *in >= '0' && *in <= '9'; in++)
				;
		} else {
			out[o++] = *in++;
		}
	}
	ck_assert_msg(*in == '\0', "transcript line too long");
	out[o] = '\0';
}

/*
 * The transcript as PROTOCOL.md shows it ("#### RULES, as Colour sees
 * it", its fenced block without the `#` annotations) is the one this run
 * captured, line by line, but for what tnorm makes constant: the document
 * is the wire contract, so its examples are kept exact.
 */
static void tcheck_doc(struct tplayer *p, const char *rules, const char *colour)
{
	static char head[64];
	char want[2048], got[2048], line[2048];
	char dnames[TNAMES][KP_NAME_MAX], cnames[TNAMES][KP_NAME_MAX];
	size_t ndn = 0, ncn = 0, k = 0, i = 0;
	snprintf(head, sizeof head, "\n#### %s, as %s sees it\n", rules, colour);
	char *doc = protocol_doc();
	const char *at = strstr(doc, head);
	ck_assert_msg(at != NULL, "PROTOCOL.md has no \"%s\"", head + 1);
	at = strstr(at, "\n```\n");
	ck_assert_ptr_nonnull(at);
	at += 5;
	for (const char *end; strncmp(at, "```", 3) != 0; at = end + 1) {
		end = strchr(at, '\n');
		ck_assert_ptr_nonnull(end);
		if (*at == '#')
			continue;
		snprintf(line, sizeof line, "%.*s", (int)(end - at), at);
		tnorm(line, want, sizeof want, dnames, &ndn);
		/* The run's next line, sent or read, in the order twrite writes them. */
		const char *run = NULL;
		while (run == NULL && i <= kc_nlines(p->c)) {
			if (k < p->nsent && p->sent_at[k] == i) {
				snprintf(line, sizeof line, "> %s", p->sent[k++]);
				run = line;
			} else if (i < kc_nlines(p->c)) {
				snprintf(line, sizeof line, "< %s", kc_line(p->c, i++));
				run = line;
			} else {
				i++;
			}
		}
		ck_assert_msg(run != NULL, "%s: PROTOCOL.md has more lines than the run: %s", head + 1,
		              want);
		tnorm(run, got, sizeof got, cnames, &ncn);
		ck_assert_msg(strcmp(want, got) == 0, "%s: PROTOCOL.md says\n%s\nthe run\n%s", head + 1,
		              want, got);
	}
	ck_assert_msg(k == p->nsent && i >= kc_nlines(p->c), "%s: the run has more lines than "
	              "PROTOCOL.md", head + 1);
	free(doc);
}

static json_t *treq(const char *type, long long game)
{
	return json_pack("{s:s, s:I}", "type", type, "game", game);
}

static json_t *tmove(long long game, const char *m)
{
	return json_pack("{s:s, s:I, s:s}", "type", "move", "game", game, "move", m);
}

START_TEST(transcript_games)
{
	const char *rules = _i == 0 ? "icc" : "english";
	struct kd *d = kd_start(FAST_CONFIG);
	struct tplayer w = { .next_id = 1 }, b = { .next_id = 1 };
	w.c = kc_connect(d);
	b.c = kc_connect(d);
	tsend(&w, json_pack("{s:s, s:i, s:s}", "type", "hello", "version", 1, "client", "transcript"), NULL);
	tsend(&b, json_pack("{s:s, s:i, s:s}", "type", "hello", "version", 1, "client", "transcript"), NULL);
	tsend(&w, json_pack("{s:s}", "type", "guest"), NULL);
	tsend(&b, json_pack("{s:s}", "type", "guest"), NULL);
	json_t *r = tsend(&w, json_pack("{s:s, s:s, s:s, s:{s:i, s:i}}", "type", "seek", "rules", rules,
	                                "color", "white", "time", "base", 300, "inc", 2), NULL);
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	r = tsend(&b, json_pack("{s:s, s:I}", "type", "accept", "offer", offer), NULL);
	long long g = json_integer_value(json_object_get(r, "game"));

	/* Scholar's mate, with refused tries and an Any? where there is one. */
	tsend(&w, tmove(g, "e4"), NULL);
	tsend(&b, tmove(g, "e5"), NULL);
	tsend(&w, tmove(g, "Bc4"), NULL);
	tsend(&b, tmove(g, "Nc6"), NULL);
	tsend(&w, tmove(g, "Qh5"), NULL);
	tsend(&w, tmove(g, "Nf3"), "not_your_turn");   /* a wrong request: only White hears */
	if (strcmp(rules, "english") == 0)
		tsend(&b, treq("any", g), NULL);
	tsend(&b, tmove(g, "exd4"), NULL);             /* nothing on d4: refused */
	tsend(&b, tmove(g, "Nf6"), NULL);
	tsend(&w, tmove(g, "dxe3"), NULL);             /* nothing on e3: refused */
	tsend(&w, tmove(g, "Qxf7"), NULL);             /* mate */
	tsend(&w, json_pack("{s:s}", "type", "ping"), NULL);
	tsend(&b, json_pack("{s:s}", "type", "ping"), NULL);

	const char *const black_moves[] = { "e7e5", "b8c6", "g8f6", "e5d4", NULL };
	const char *const white_moves[] = { "e2e4", "f1c4", "d1h5", "d2e3", "h5f7", "g1f3", NULL };
	for (size_t i = 0; i < kc_nlines(w.c); i++)
		for (const char *const *m = black_moves; *m; m++)
			ck_assert_msg(!strstr(kc_line(w.c, i), *m), "White saw %s", *m);
	for (size_t i = 0; i < kc_nlines(b.c); i++)
		for (const char *const *m = white_moves; *m; m++)
			ck_assert_msg(!strstr(kc_line(b.c, i), *m), "Black saw %s", *m);
	ck_assert(kc_saw(w.c, "\"checkmate\""));
	ck_assert(kc_saw(b.c, "\"checkmate\""));

	const char *dir = getenv("KRIEG_TRANSCRIPT_DIR");
	if (dir) {
		twrite(&w, dir, rules, "white");
		twrite(&b, dir, rules, "black");
	}
	tcheck_doc(&w, rules, "White");
	tcheck_doc(&b, rules, "Black");
	for (size_t i = 0; i < w.nsent; i++)
		free(w.sent[i]);
	for (size_t i = 0; i < b.nsent; i++)
		free(b.sent[i]);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

static Suite *game_suite(void)
{
	Suite *s = suite_create("game");
	TCase *tc = tcase_create("play");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, fools_mate_in_every_ruleset, 0,
	                    (int)(sizeof all_rules / sizeof all_rules[0]));
	tcase_add_test(tc, clock_flag_falls_without_any_message);
	tcase_add_test(tc, time_forfeit_is_a_draw_when_the_other_side_cannot_mate);
	tcase_add_test(tc, clock_of_the_side_to_move_at_the_start);
	tcase_add_test(tc, over_at_its_start);
	tcase_add_test(tc, nost_list_with_a_separate_ep_item);
	tcase_add_test(tc, clock_increment_and_correspondence);
	tcase_add_test(tc, resume_mid_game_gives_the_same_view);
	tcase_add_test(tc, abandonment_after_grace);
	tcase_add_test(tc, full_record_still_ends);
	tcase_add_test(tc, both_away_the_side_to_move_has_its_own_grace);
	tcase_add_test(tc, login_state_larger_than_the_output_cap);
	tcase_add_test(tc, correspondence_refill_after_a_move);
	tcase_add_test(tc, draw_by_agreement);
	tcase_add_test(tc, draw_offer_lapses_on_a_quiet_move);
	tcase_add_test(tc, resignation);
	tcase_add_test(tc, abort_only_before_both_moved);
	tcase_add_test(tc, acting_in_another_users_game);
	tcase_add_test(tc, moving_out_of_turn);
	tcase_add_test(tc, impossible_try_again_is_refused);
	tcase_add_test(tc, malformed_game_requests);
	tcase_add_test(tc, game_survives_a_crash);
	tcase_add_loop_test(tc, transcript_games, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(game_suite)
