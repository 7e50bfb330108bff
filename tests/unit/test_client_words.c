/*
 * test_client_words.c — krieg's plain-words announcements.
 */
#include <check.h>
#include <jansson.h>
#include <locale.h>
#include <string.h>

#include "board.h"
#include "check_main.h"
#include "event.h"
#include "ruleset.h"
#include "words.h"

static char buf[WORDS_MAX];

static struct event ev(int type, int by)
{
	struct event e;
	memset(&e, 0, sizeof e);
	e.type = (uint8_t)type;
	e.by = (int8_t)by;
	e.audience = AUD_PUBLIC;
	return e;
}

START_TEST(capture_words)
{
	struct event e = ev(EV_CAPTURE, WHITE);
	e.square = (int8_t)square_parse("d5");
	e.what = CAPTURED_PAWN;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White captured a pawn on d5");
	e.what = CAPTURED_PIECE;
	e.by = BLACK;
	e.square = (int8_t)square_parse("e4");
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black captured a piece on e4");
	e.what = CAPTURED_UNSAID;
	e.en_passant = true;
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black captured on e4 en passant");
}
END_TEST

START_TEST(check_words)
{
	struct event e = ev(EV_CHECK, WHITE);
	e.checks[0] = CHECK_LONG_DIAGONAL;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Check on the long diagonal");
	e.checks[0] = CHECK_KNIGHT;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Check by a knight");
	e.checks[0] = CHECK_RANK;
	e.checks[1] = CHECK_KNIGHT;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Double check: on the rank and by a knight");
}
END_TEST

START_TEST(pawn_tries_words)
{
	struct event e = ev(EV_PAWN_TRIES, WHITE);
	e.count = 2;
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You have 2 pawn tries");
	e.count = 1;
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You have 1 pawn try");
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White has 1 pawn try");
	e.count = 0;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White has no pawn tries");
}
END_TEST

START_TEST(moves_and_tries)
{
	struct event e = ev(EV_MOVE, WHITE);
	e.move = move_make(square_parse("g1"), square_parse("f3"), MOVE_NORMAL, KNIGHT);
	words_event(&e, WHITE, "Nf3", buf, sizeof buf);
	ck_assert_str_eq(buf, "You played Nf3");
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You played g1f3");

	e = ev(EV_MOVED, BLACK);
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black has moved");

	/* the mover hears which try; the opponent only that there was one */
	e = ev(EV_ILLEGAL, WHITE);
	e.move = move_make(square_parse("e1"), square_parse("e2"), MOVE_NORMAL, KNIGHT);
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Illegal: e1e2. Try again");
	e.move = MOVE_NONE;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White tried an illegal move");
	ck_assert_ptr_null(strstr(buf, "e1"));
}
END_TEST

START_TEST(any_and_game_over)
{
	struct event e = ev(EV_ANY, BLACK);
	e.answer = ANY_NO;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Any? No. You have no pawn captures");
	e.answer = ANY_YES;
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black asked \"any?\": yes");

	e = ev(EV_GAME_OVER, -1);
	e.result = RESULT_WHITE;
	e.reason = REASON_CHECKMATE;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Game over: White wins by checkmate (1-0)");
	e = ev(EV_GAME_OVER, BLACK);
	e.result = RESULT_WHITE;
	e.reason = REASON_RESIGNATION;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Game over: Black resigned. White wins (1-0)");
	e = ev(EV_GAME_OVER, -1);
	e.result = RESULT_DRAW;
	e.reason = REASON_STALEMATE;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Game over: drawn by stalemate (1/2-1/2)");
}
END_TEST

START_TEST(nost_words)
{
	struct event e = ev(EV_ILLEGAL_COUNT, WHITE);
	e.count = 3;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White made 3 illegal tries before moving");
	e = ev(EV_PAWN_CAPTURES, BLACK);
	e.answer = 1;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You have a pawn capture");
	e = ev(EV_QUIET_ENDED, WHITE);
	e.count = 2;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White's quiet sequence stopped with 2 moves unplayed");
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Your quiet sequence stopped with 2 moves unplayed");
}
END_TEST

/* The adjournment notices read as the players' doings, live and in a record. */
START_TEST(adjournment_words)
{
	static const struct { const char *json, *want; } cases[] = {
		{ "{\"event\":\"adjourn_offer\",\"game\":3,\"by\":\"white\",\"ply\":1}", "White offers to adjourn" },
		{ "{\"event\":\"adjourn_declined\",\"game\":3,\"by\":\"black\",\"ply\":1}", "Black declined to adjourn" },
		{ "{\"event\":\"adjourned\",\"game\":3,\"by\":\"black\",\"ply\":1}", "Adjourned (Black agreed)" },
		{ "{\"event\":\"unadjourned\",\"game\":3,\"by\":\"white\",\"ply\":1}", "White resumed the adjourned game" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *j = json_loads(cases[i].json, 0, NULL);
		ck_assert_ptr_nonnull(j);
		ck_assert_int_eq(words_umpire_action(j, buf, sizeof buf), 0);
		ck_assert_msg(strncmp(buf, cases[i].want, strlen(cases[i].want)) == 0, "%s", buf);
		ck_assert(strstr(buf, "umpire") == NULL);   /* never the umpire's voice */
		json_decref(j);
	}
}
END_TEST

/* rand's pawn squares are where the pawns stand: "from", never "on" (which
 * reads as the square captured on). */
START_TEST(pawn_squares_words)
{
	struct event e = ev(EV_PAWN_SQUARES, WHITE);
	e.squares = 1ULL << square_parse("e4");
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White can capture with a pawn from e4");
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Your pawns that can capture: e4");
	e.squares |= 1ULL << square_parse("c4") | 1ULL << square_parse("h2");
	words_event(&e, -1, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White can capture with pawns from h2, c4 and e4");
	e.squares = 0;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White has no pawn tries");
}
END_TEST

/* The mover's impossible try: never "your own pieces cannot make it" unless
 * that is why; in the rule set's word (cincinnati's "Nonsense"). */
START_TEST(impossible_words)
{
	struct event e = ev(EV_IMPOSSIBLE, WHITE);
	e.audience = AUD_WHITE | AUD_UMPIRE;
	e.move = move_make(square_parse("e5"), square_parse("d6"), MOVE_NORMAL, KNIGHT);
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Impossible: e5d6");
	words_impossible(ruleset_find("cincinnati"), &e, WHY_PAWN_INFO, buf, sizeof buf);
	ck_assert_str_eq(buf, "Nonsense: e5d6 (this turn's pawn announcement rules it out)");
	words_impossible(ruleset_find("rand"), &e, WHY_UNSAID, buf, sizeof buf);
	ck_assert_str_eq(buf, "Nonsense: e5d6");
	e.move = move_make(square_parse("a1"), square_parse("a5"), MOVE_NORMAL, KNIGHT);
	words_impossible(ruleset_find("icc"), &e, WHY_OWN_PIECES, buf, sizeof buf);
	ck_assert_str_eq(buf, "Impossible: a1a5 (your own pieces cannot make it)");
	/* gollon's answer to "any?" with no pawns left, told to both: not a
	 * try (rules probe: "Your try was impossible"); a try's copy for the
	 * others stays a try */
	e = ev(EV_IMPOSSIBLE, WHITE);
	words_event(&e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Impossible: you have no pawns to ask \"any?\" about");
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White asked \"any?\" with no pawns: impossible");
	e.audience = AUD_BLACK | AUD_SPECTATOR;
	words_event(&e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White tried an impossible move");
}
END_TEST

/* The half-move an announcement is numbered by: an end a move made
 * belongs to that move, whoever `by` names; a resignation or a flag to the
 * turn in progress (rules probe: "4. White resigns" on Black's turn). */
START_TEST(numbered_as_chess)
{
	struct event e = ev(EV_CAPTURE, WHITE);
	e.ply = 7;                                  /* 4.Qxf7: White's capture */
	ck_assert_int_eq(words_half(&e), 7);
	e = ev(EV_PAWN_TRIES, BLACK);
	e.ply = 7;                                  /* Black's count, before 4... */
	ck_assert_int_eq(words_half(&e), 8);
	e = ev(EV_GAME_OVER, WHITE);
	e.ply = 7;
	e.reason = REASON_CHECKMATE;                /* 4.Qxf7# */
	ck_assert_int_eq(words_half(&e), 7);
	e.reason = REASON_RESIGNATION;              /* White resigns on Black's turn: 4... */
	ck_assert_int_eq(words_half(&e), 8);
	e = ev(EV_GAME_OVER, BLACK);
	e.ply = 19;
	e.reason = REASON_STALEMATE;                /* by the stalemated side, after 10. */
	ck_assert_int_eq(words_half(&e), 19);
	e.reason = REASON_TIME;                     /* Black's flag on its turn: 10... */
	ck_assert_int_eq(words_half(&e), 20);
	e = ev(EV_GAME_OVER, WHITE);
	e.ply = 0;
	e.reason = REASON_RESIGNATION;              /* before any move: 1. */
	ck_assert_int_eq(words_half(&e), 1);
}
END_TEST

/* An offer's instructions reach the one who answers it; its maker, and
 * anyone else (a record, the umpire's chair), reads what happened. */
START_TEST(offers_as_each_side_hears_them)
{
	json_t *j = json_loads("{\"event\":\"adjourn_offer\",\"game\":3,\"by\":\"white\",\"ply\":1}", 0, NULL);
	ck_assert_int_eq(words_notice(j, WHITE, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "You offered to adjourn");
	ck_assert_int_eq(words_notice(j, BLACK, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "White offers to adjourn (\"adjourn\" accepts, \"adjourn decline\" declines)");
	ck_assert_int_eq(words_notice(j, -1, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "White offers to adjourn");
	ck_assert_int_eq(words_draw(j, buf, sizeof buf), -1);
	json_decref(j);
	j = json_loads("{\"event\":\"draw_offer\",\"game\":3,\"by\":\"black\"}", 0, NULL);
	ck_assert_int_eq(words_draw(j, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "Black offers a draw");
	ck_assert_int_eq(words_notice(j, WHITE, buf, sizeof buf), -1);
	json_decref(j);
	j = json_loads("{\"event\":\"draw_declined\",\"game\":3,\"by\":\"white\"}", 0, NULL);
	ck_assert_int_eq(words_draw(j, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "White declined the draw");
	json_decref(j);
}
END_TEST

/* A time control as seek takes it back: the base in minutes, a fraction of a minute
 * in decimals (0.5+0 was shown, and read, as whole minutes' words elsewhere). */
static const char *time_words(const char *json)
{
	json_t *t = json_loads(json, JSON_DECODE_ANY, NULL);
	words_time(t, buf, sizeof buf);
	json_decref(t);
	return buf;
}

static void time_words_all(void)
{
	ck_assert_str_eq(time_words("{\"base\":300.0,\"inc\":2.0}"), "5+2");
	ck_assert_str_eq(time_words("{\"base\":30.0,\"inc\":0.0}"), "0.5+0");
	ck_assert_str_eq(time_words("{\"base\":90,\"inc\":2}"), "1.5+2");
	ck_assert_str_eq(time_words("{\"base\":15.0,\"inc\":0.0}"), "0.25+0");
	ck_assert_str_eq(time_words("{\"base\":3.0,\"inc\":0.0}"), "0.05+0");
	ck_assert_str_eq(time_words("{\"base\":86400.0,\"inc\":600.0}"), "1440+600");
	/* no decimal of minutes is exact: as a clock shows it */
	ck_assert_str_eq(time_words("{\"base\":20.0,\"inc\":0.0}"), "0:20+0");
	ck_assert_str_eq(time_words("{\"base\":80.0,\"inc\":1.0}"), "1:20+1");
	ck_assert_str_eq(time_words("{\"base\":0.6,\"inc\":0.0}"), "0:00.6+0");
	ck_assert_str_eq(time_words("{\"base\":300.0,\"inc\":2.5}"), "5+2.5");
	ck_assert_str_eq(time_words("{\"days\":3}"), "3 days a move");
	ck_assert_str_eq(time_words("{\"days\":1}"), "1 day a move");
	ck_assert_str_eq(time_words("null"), "untimed");
}

START_TEST(time_control_words)
{
	time_words_all();
	/* krieg sets the locale: a decimal comma would print "0,5+0", which seek does not read
	 * (checked where such a locale is installed) */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
		time_words_all();
		setlocale(LC_NUMERIC, "C");
	}
}
END_TEST

static Suite *words_suite(void)
{
	Suite *s = suite_create("client_words");
	TCase *tc = tcase_create("words");
	tcase_add_test(tc, capture_words);
	tcase_add_test(tc, check_words);
	tcase_add_test(tc, pawn_tries_words);
	tcase_add_test(tc, moves_and_tries);
	tcase_add_test(tc, any_and_game_over);
	tcase_add_test(tc, nost_words);
	tcase_add_test(tc, adjournment_words);
	tcase_add_test(tc, pawn_squares_words);
	tcase_add_test(tc, impossible_words);
	tcase_add_test(tc, numbered_as_chess);
	tcase_add_test(tc, offers_as_each_side_hears_them);
	tcase_add_test(tc, time_control_words);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(words_suite)
