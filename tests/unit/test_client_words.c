/*
 * test_client_words.c — krieg's plain-words announcements.
 */
#include <assert.h>
#include <check.h>
#include <jansson.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "action.h"
#include "admin.h"
#include "board.h"
#include "check_main.h"
#include "client_fixture.h"
#include "cmd.h"
#include "config.h"
#include "event.h"
#include "proto.h"
#include "ruleset.h"
#include "text.h"
#include "words.h"

static char buf[WORDS_MAX];

/* The client's room for a text is the server's limit for it (words.h). */
static_assert(WORDS_TEXT_MAX == ACTION_REASON_MAX && WORDS_TEXT_MAX == ADMIN_REASON_MAX &&
              WORDS_TEXT_MAX == CMD_REASON_MAX, "reasons, notes, chat: one limit");
static_assert(WORDS_NOTICE_TEXT_MAX >= ADMIN_NOTICE_MAX && WORDS_NOTICE_TEXT_MAX >= CONFIG_MOTD_MAX,
              "a notice, the message of the day");
static_assert(WORDS_NOTICE_MAX > WORDS_NOTICE_TEXT_MAX, "a notice with its NUL");

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
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White captured a pawn on d5");
	e.what = CAPTURED_PIECE;
	e.by = BLACK;
	e.square = (int8_t)square_parse("e4");
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black captured a piece on e4");
	e.what = CAPTURED_UNSAID;
	e.en_passant = true;
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black captured on e4 en passant");
}
END_TEST

/* A check says whom it is on (a blind player's probe: both sides heard
 * "Check on the short diagonal", a line that means nothing read alone):
 * the side the mover moved against, which every listener knows. */
START_TEST(check_words)
{
	struct event e = ev(EV_CHECK, WHITE);
	e.checks[0] = CHECK_LONG_DIAGONAL;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You are in check on the long diagonal");
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black is in check on the long diagonal");
	words_event(NULL, &e, -1, NULL, buf, sizeof buf);   /* a spectator */
	ck_assert_str_eq(buf, "Black is in check on the long diagonal");
	e.checks[0] = CHECK_KNIGHT;
	e.by = BLACK;
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You are in check by a knight");
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White is in check by a knight");
	e.checks[0] = CHECK_RANK;
	e.checks[1] = CHECK_KNIGHT;
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You are in double check: on the rank and by a knight");
	e.by = -1;   /* no mover named: nothing more than the direction */
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Double check: on the rank and by a knight");
}
END_TEST

START_TEST(pawn_tries_words)
{
	struct event e = ev(EV_PAWN_TRIES, WHITE);
	e.count = 2;
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You have 2 pawn tries");
	e.count = 1;
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You have 1 pawn try");
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White has 1 pawn try");
	e.count = 0;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White has no pawn tries");
}
END_TEST

START_TEST(moves_and_tries)
{
	struct event e = ev(EV_MOVE, WHITE);
	e.move = move_make(square_parse("g1"), square_parse("f3"), MOVE_NORMAL, KNIGHT);
	words_event(NULL, &e, WHITE, "Nf3", buf, sizeof buf);
	ck_assert_str_eq(buf, "You played Nf3");
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You played g1f3");

	e = ev(EV_MOVED, BLACK);
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black has moved");

	/* the mover hears which try; the opponent only that there was one */
	e = ev(EV_ILLEGAL, WHITE);
	e.move = move_make(square_parse("e1"), square_parse("e2"), MOVE_NORMAL, KNIGHT);
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Illegal: e1e2. Try again");
	e.move = MOVE_NONE;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White tried an illegal move");
	ck_assert_ptr_null(strstr(buf, "e1"));
}
END_TEST

START_TEST(any_and_game_over)
{
	struct event e = ev(EV_ANY, BLACK);
	e.answer = ANY_NO;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Any? No. You have no pawn captures");
	e.answer = ANY_YES;
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black asked \"any?\": yes");
	/* in the rule set's own terms, as the game and its record say it: a
	 * yes in berkeley_any binds until a capture is played (rules probe) */
	words_event(ruleset_find("english"), &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Any? Yes. You have a pawn capture to try, and must try one first");
	words_event(ruleset_find("berkeley_any"), &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Any? Yes. You have a pawn capture: only pawn captures may be tried until one is played");
	words_event(ruleset_find("berkeley_any"), &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Black asked \"any?\": yes");

	e = ev(EV_GAME_OVER, -1);
	e.result = RESULT_WHITE;
	e.reason = REASON_CHECKMATE;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Game over: White wins by checkmate (1-0)");
	e = ev(EV_GAME_OVER, BLACK);
	e.result = RESULT_WHITE;
	e.reason = REASON_RESIGNATION;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Game over: Black resigned. White wins (1-0)");
	e = ev(EV_GAME_OVER, -1);
	e.result = RESULT_DRAW;
	e.reason = REASON_STALEMATE;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Game over: drawn by stalemate (1/2-1/2)");
	/* Regression (the endings probe): who aborted was not said */
	e = ev(EV_GAME_OVER, WHITE);
	e.reason = REASON_ABORTED;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Game aborted by White");
	e.by = -1;   /* an umpire's abort */
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Game aborted");
}
END_TEST

/* Regression (the endings probe): `history`, `record` and the welcome's
 * ended games wrote the wire's names ("1-0 by time", "* by aborted",
 * "1/2-1/2 by fifty_moves") where the game's own words are English. */
START_TEST(ending_in_words)
{
	static const char *const cases[][3] = {
		{ "1-0", "checkmate", "1-0 by checkmate" },
		{ "1/2-1/2", "stalemate", "1/2-1/2 by stalemate" },
		{ "1/2-1/2", "repetition", "1/2-1/2 by threefold repetition" },
		{ "1/2-1/2", "fifty_moves", "1/2-1/2 by the fifty-move rule" },
		{ "1/2-1/2", "insufficient_material", "1/2-1/2 by insufficient material" },
		{ "0-1", "resignation", "0-1 by resignation" },
		{ "1/2-1/2", "agreement", "1/2-1/2 by agreement" },
		{ "1-0", "time", "1-0 on time" },
		{ "0-1", "abandoned", "0-1 by abandonment" },
		{ "*", "aborted", "aborted" },
		{ NULL, "aborted", "aborted" },
		{ "1/2-1/2", "adjudication", "1/2-1/2 by the umpire's decision" },
		{ "1-0", "forfeit", "1-0 (forfeit)" },   /* a reason of a newer server: as it came */
		{ "1/2-1/2", NULL, "1/2-1/2" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		words_ending(cases[i][0], cases[i][1], buf, sizeof buf);
		ck_assert_str_eq(buf, cases[i][2]);
	}
	/* every reason the server names has its words */
	for (int r = REASON_CHECKMATE; r <= REASON_ADJUDICATION; r++) {
		words_ending("1-0", game_reason_name(r), buf, sizeof buf);
		ck_assert_msg(strchr(buf, '(') == NULL && strchr(buf, '_') == NULL, "%s: %s",
		              game_reason_name(r), buf);
	}
}
END_TEST

START_TEST(nost_words)
{
	struct event e = ev(EV_ILLEGAL_COUNT, WHITE);
	e.count = 3;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White made 3 illegal tries before moving");
	e = ev(EV_PAWN_CAPTURES, BLACK);
	e.answer = 1;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You have a pawn capture");
	e = ev(EV_QUIET_ENDED, WHITE);
	e.count = 2;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White's quiet sequence stopped with 2 moves unplayed");
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
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
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White can capture with a pawn from e4");
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You can capture with a pawn from e4");
	e.squares |= 1ULL << square_parse("c4") | 1ULL << square_parse("h2");
	words_event(NULL, &e, -1, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White can capture with pawns from h2, c4 and e4");   /* the server's order */
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "You can capture with pawns from h2, c4 and e4");     /* the opponent's words (probe) */
	e.squares = 0;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
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
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
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
	words_event(NULL, &e, WHITE, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "Impossible: you have no pawns to ask \"any?\" about");
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "White asked \"any?\" with no pawns: impossible");
	e.audience = AUD_BLACK | AUD_SPECTATOR;
	words_event(NULL, &e, BLACK, NULL, buf, sizeof buf);
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
	e = ev(EV_QUIET_ENDED, WHITE);
	e.ply = 15;                                 /* stopped on Black's turn after 8.c5: 8... */
	ck_assert_int_eq(words_half(&e), 16);       /* (it read "8." after "8...": wording probe) */
}
END_TEST

/* An offer's instructions reach the one who answers it; its maker, and
 * anyone else (a record, the umpire's chair), reads what happened. */
START_TEST(offers_as_each_side_hears_them)
{
	json_t *j = json_loads("{\"event\":\"adjourn_offer\",\"game\":3,\"by\":\"white\",\"ply\":1}", 0, NULL);
	ck_assert_int_eq(words_notice(j, WHITE, true, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "You offered to adjourn");
	ck_assert_int_eq(words_notice(j, BLACK, true, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "White offers to adjourn (\"adjourn\" accepts, \"adjourn decline\" declines)");
	/* replayed (a view), history: no hint (the friends probe) */
	ck_assert_int_eq(words_notice(j, BLACK, false, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "White offers to adjourn");
	ck_assert_int_eq(words_notice(j, -1, true, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "White offers to adjourn");
	ck_assert_int_eq(words_draw(j, -1, buf, sizeof buf), -1);
	json_decref(j);
	j = json_loads("{\"event\":\"draw_offer\",\"game\":3,\"by\":\"black\"}", 0, NULL);
	ck_assert_int_eq(words_draw(j, -1, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "Black offers a draw");
	ck_assert_int_eq(words_notice(j, WHITE, true, buf, sizeof buf), -1);
	json_decref(j);
	j = json_loads("{\"event\":\"draw_declined\",\"game\":3,\"by\":\"white\"}", 0, NULL);
	ck_assert_int_eq(words_draw(j, -1, buf, sizeof buf), 0);
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

/* --- the server's texts, whole, and never cut inside a character ------------------ */

/* unit, times times, then tail, into out (len bytes). */
static const char *repeat(const char *unit, int times, const char *tail, char *out, size_t len)
{
	size_t n = 0;
	for (int i = 0; i < times; i++)
		n += (size_t)snprintf(out + n, len - n, "%s", unit);
	snprintf(out + n, len - n, "%s", tail);
	return out;
}

/* msg's words (words_umpire_action, or words_umpire_end for a game_over) must be exactly want. */
static void says(json_t *msg, const char *want)
{
	ck_assert_ptr_nonnull(msg);
	const char *name = json_string_value(json_object_get(msg, "event"));
	if (!strcmp(name, "game_over"))
		ck_assert_int_eq(words_umpire_end(msg, buf, sizeof buf), 0);
	else
		ck_assert_int_eq(words_umpire_action(msg, buf, sizeof buf), 0);
	ck_assert_msg(text_utf8_valid(buf, strlen(buf)), "not UTF-8 (%zu bytes): %s", strlen(buf), buf);
	ck_assert_msg(!strcmp(buf, want), "%zu bytes, not the %zu of the whole text: %s", strlen(buf), strlen(want),
	              buf);
	json_decref(msg);
}

/*
 * Every umpire's text the server may send (ACTION_REASON_MAX bytes: a note,
 * a pause's or a time's reason, an adjudication's note) reaches the player
 * whole (probe: "中"x66+"ab", 200 bytes, arrived as "The umpire says: 中…中"
 * and the first byte of a 中, 164 bytes; a pause's "Ж"x100 as "…ЖЖ\xd0").
 */
START_TEST(umpire_texts_shown_whole)
{
	char note[ACTION_REASON_MAX + 1], zh[ACTION_REASON_MAX + 1], ascii[ACTION_REASON_MAX + 1];
	char want[1024];
	repeat("\xe4\xb8\xad", 66, "ab", note, sizeof note);   /* 中 */
	repeat("\xd0\x96", 100, "", zh, sizeof zh);           /* Ж */
	repeat("r", ACTION_REASON_MAX, "", ascii, sizeof ascii);
	ck_assert_uint_eq(strlen(note), ACTION_REASON_MAX);
	ck_assert_uint_eq(strlen(zh), ACTION_REASON_MAX);

	snprintf(want, sizeof want, "The umpire says: %s", note);
	says(json_pack("{s:s, s:i, s:s, s:i}", "event", "umpire_note", "game", 3, "text", note, "ply", 4), want);
	snprintf(want, sizeof want, "Umpire's note (umpires only): %s", note);
	says(json_pack("{s:s, s:i, s:s, s:b}", "event", "umpire_note", "game", 3, "text", note, "private", 1), want);
	snprintf(want, sizeof want, "The umpire paused the clocks: %s", zh);
	says(json_pack("{s:s, s:i, s:s}", "event", "clock_paused", "game", 3, "reason", zh), want);
	snprintf(want, sizeof want, "The umpire restarted the clocks: %s", ascii);
	says(json_pack("{s:s, s:i, s:s}", "event", "clock_unpaused", "game", 3, "reason", ascii), want);
	/* the longest number a server could write, and no colour it names */
	/* Regression (the time probe): a day given was "86400 more seconds" alone */
	snprintf(want, sizeof want, "The umpire gave White 86400 more seconds (1d 0h): %s", note);
	says(json_pack("{s:s, s:i, s:s, s:I, s:s}", "event", "time_added", "game", 3, "color", "white", "seconds",
	               (json_int_t)86400, "reason", note), want);
	says(json_pack("{s:s, s:i, s:s, s:I}", "event", "time_added", "game", 3, "color", "black", "seconds",
	               (json_int_t)5400), "The umpire gave Black 5400 more seconds (1:30:00)");
	snprintf(want, sizeof want, "The umpire gave a side -9223372036854775808 more seconds: %s", note);
	says(json_pack("{s:s, s:i, s:I, s:s}", "event", "time_added", "game", 3, "seconds",
	               (json_int_t)INT64_MIN, "reason", note), want);
	snprintf(want, sizeof want, "Game over: drawn by the umpire's decision (1/2-1/2): %s", zh);
	says(json_pack("{s:s, s:i, s:s, s:s, s:s}", "event", "game_over", "game", 3, "result", "1/2-1/2",
	               "reason", "adjudication", "note", zh), want);
	/* a result this build does not know, as long as the words keep one */
	snprintf(want, sizeof want, "Game over: no result by the umpire's decision (%s): %s", "123456789012345", note);
	says(json_pack("{s:s, s:i, s:s, s:s, s:s}", "event", "game_over", "game", 3, "result", "123456789012345",
	               "reason", "adjudication", "note", note), want);
	snprintf(want, sizeof want, "Game aborted by the umpire: %s", note);
	says(json_pack("{s:s, s:i, s:s, s:s, s:s}", "event", "game_over", "game", 3, "result", "*",
	               "reason", "aborted", "note", note), want);
}
END_TEST

/*
 * People's words (chat, tells, messages: ACTION_REASON_MAX bytes, names
 * PROTO_NAME_MAX) are shown whole too, with the longest names and numbers.
 */
START_TEST(peoples_words_shown_whole)
{
	char text[ACTION_REASON_MAX + 1], name[PROTO_NAME_MAX + 1], want[1024], line[WORDS_CHAT_MAX];
	repeat("\xc3\xa9", ACTION_REASON_MAX / 2, "", text, sizeof text);   /* é */
	repeat("n", PROTO_NAME_MAX, "", name, sizeof name);
	json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:s}", "event", "chat", "game", 3, "channel", "spectators",
	                      "user", name, "text", text);
	ck_assert_int_eq(words_chat(j, "w", "b", WHITE, line, sizeof line), 0);
	snprintf(want, sizeof want, "%s (spectator) says: \"%s\"", name, text);
	ck_assert_str_eq(line, want);
	json_decref(j);
	j = json_pack("{s:s, s:i, s:s, s:s, s:s}", "event", "chat", "game", 3, "channel", "game", "color", "black",
	              "text", text);
	ck_assert_int_eq(words_chat(j, "w", name, WHITE, line, sizeof line), 0);
	snprintf(want, sizeof want, "%s (Black) says: \"%s\"", name, text);
	ck_assert_str_eq(line, want);
	json_decref(j);
	j = json_pack("{s:s, s:s, s:s}", "event", "tell", "from", name, "text", text);
	ck_assert_int_eq(words_tell(j, line, sizeof line), 0);
	snprintf(want, sizeof want, "%s tells you: \"%s\"", name, text);
	ck_assert_str_eq(line, want);
	json_decref(j);
	/* a message, with the largest number JSON keeps exactly, sent 2026-12-03 18:02 UTC */
	j = json_pack("{s:s, s:I, s:s, s:I, s:s}", "event", "message", "message", (json_int_t)9007199254740993LL,
	              "from", name, "sent", (json_int_t)1796320920, "text", text);
	ck_assert_int_eq(words_tell(j, line, sizeof line), 0);
	snprintf(want, sizeof want, "A message for you: 9007199254740993. from %s, 2026-12-03 18:02 UTC: \"%s\"", name,
	         text);
	ck_assert_str_eq(line, want);
	json_decref(j);
}
END_TEST

/*
 * A hostile server's over-long text (more than the protocol allows) is cut,
 * but between characters: what reaches the terminal stays UTF-8.
 */
START_TEST(over_long_text_cut_between_characters)
{
	char big[4 * ACTION_REASON_MAX], out[8];
	repeat("\xe4\xb8\xad", ACTION_REASON_MAX / 2, "", big, sizeof big);   /* 300 bytes of 中 */
	json_t *j = json_pack("{s:s, s:i, s:s}", "event", "umpire_note", "game", 3, "text", big);
	ck_assert_int_eq(words_umpire_action(j, buf, sizeof buf), 0);
	ck_assert_msg(text_utf8_valid(buf, strlen(buf)), "not UTF-8 (%zu bytes): %s", strlen(buf), buf);
	ck_assert_msg(!strncmp(buf, "The umpire says: \xe4\xb8\xad", 20), "%s", buf);
	/* all the protocol allows is kept: 66 whole characters, 198 bytes */
	ck_assert_uint_ge(strlen(buf), strlen("The umpire says: ") + ACTION_REASON_MAX - 2);
	json_decref(j);

	repeat("\xd0\x96", ACTION_REASON_MAX, "", big, sizeof big);   /* 400 bytes of Ж */
	j = json_pack("{s:s, s:i, s:s, s:s, s:s}", "event", "game_over", "game", 3, "result", "1-0", "reason",
	              "adjudication", "note", big);
	ck_assert_int_eq(words_umpire_end(j, buf, sizeof buf), 0);
	ck_assert_msg(text_utf8_valid(buf, strlen(buf)), "not UTF-8 (%zu bytes): %s", strlen(buf), buf);
	json_decref(j);

	/* a buffer smaller than the text: whole characters only */
	words_clean("a\xc3\xa9", out, 3);
	ck_assert_str_eq(out, "a");
	words_clean("\xe4\xb8\xad\xe4\xb8\xad", out, 6);
	ck_assert_str_eq(out, "\xe4\xb8\xad");
	words_clean("ab\xf0\x9f\x98\x80", out, sizeof out);
	ck_assert_str_eq(out, "ab\xf0\x9f\x98\x80");
	words_clean("abcd\xf0\x9f\x98\x80", out, sizeof out);
	ck_assert_str_eq(out, "abcd");
	/* and into a caller's small buffer: the sentence is cut between characters too */
	repeat("\xe4\xb8\xad", 10, "", big, sizeof big);
	j = json_pack("{s:s, s:i, s:s}", "event", "umpire_note", "game", 3, "text", big);
	char small[24];
	ck_assert_int_eq(words_umpire_action(j, small, sizeof small), 0);
	ck_assert_str_eq(small, "The umpire says: \xe4\xb8\xad\xe4\xb8\xad");
	json_decref(j);

	/* a name longer than the protocol allows, in an offer and in chat */
	big[0] = 'x';
	repeat("\xc3\xa9", 13, "", big + 1, sizeof big - 1);   /* 27 bytes: "x" and 13 é */
	j = json_pack("{s:s, s:s, s:s}", "user", big, "rules", "icc", "color", "white");
	words_offer(j, "me", buf, sizeof buf);
	ck_assert_msg(text_utf8_valid(buf, strlen(buf)), "not UTF-8: %s", buf);
	ck_assert_msg(!strncmp(buf, "x\xc3\xa9", 3), "%s", buf);
	json_decref(j);
	j = json_pack("{s:s, s:i, s:s, s:s, s:s}", "event", "chat", "game", 3, "channel", "spectators", "user",
	              repeat("yy", 1, "\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96"
	                             "\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96"
	                             "\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96\xd0\x96"
	                             "\xd0\x96\xd0\x96",
	                     big, sizeof big),
	              "text", "hi");
	char line[WORDS_CHAT_MAX];
	ck_assert_int_eq(words_chat(j, NULL, NULL, -1, line, sizeof line), 0);
	ck_assert_msg(text_utf8_valid(line, strlen(line)), "not UTF-8: %s", line);
	ck_assert_msg(strstr(line, " (spectator) says: \"hi\""), "%s", line);
	json_decref(j);
}
END_TEST

/* help RULES: every rule set of the core's table has its lines, headed by
 * its name, short (at most 10 lines, none over 100 columns); any case and
 * kriegspiel.org's "wild16" find them; no other word does. */
START_TEST(every_rule_set_has_help)
{
	const struct ruleset *rs;
	for (size_t i = 0; (rs = ruleset_at(i)) != NULL; i++) {
		const char *text = words_rules_help(rs->name);
		ck_assert_msg(text != NULL, "no help for rule set %s", rs->name);
		char head[64];
		snprintf(head, sizeof head, "Rule set %s ", rs->name);
		ck_assert_msg(strncmp(text, head, strlen(head)) == 0, "%s: %.60s", rs->name, text);
		int lines = 1;
		for (const char *p = text, *nl; p; p = nl ? nl + 1 : NULL, lines += nl != NULL) {
			nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			ck_assert_msg(n <= 100, "%s: a line of %zu bytes: %.*s", rs->name, n, (int)n, p);
		}
		ck_assert_msg(lines >= 3 && lines <= 10, "%s: %d lines", rs->name, lines);
		ck_assert_msg(text[strlen(text) - 1] != '\n', "%s ends in a newline", rs->name);
	}
	ck_assert_ptr_eq(words_rules_help("English"), words_rules_help("english"));
	ck_assert_ptr_eq(words_rules_help("wild16"), words_rules_help("icc"));
	ck_assert_ptr_null(words_rules_help("wild"));
	ck_assert_ptr_null(words_rules_help(""));
	ck_assert_ptr_null(words_rules_help(NULL));
	/* what each says its pawn tries and "any?" are */
	ck_assert_ptr_nonnull(strstr(words_rules_help("gollon"), "\"Try!\" when a pawn capture"));
	ck_assert_ptr_nonnull(strstr(words_rules_help("insurance"), "a yes (the umpire's\n  \"Try\")"));
	ck_assert_ptr_nonnull(strstr(words_rules_help("berkeley"), "there is no \"any?\""));
	/* Regression (a play probe): the help quoted the umpire's words
	 * ("Long check", "White tried nonsense"), which the screen never shows:
	 * what it quotes is what words_event writes. */
	static const struct {
		const char *rules;
		struct event e;
	} shown[] = {
		{ "english", { .type = EV_CAPTURE, .by = WHITE, .square = 28, .what = CAPTURED_UNSAID } },
		{ "english", { .type = EV_CHECK, .by = WHITE, .checks = { CHECK_LONG_DIAGONAL } } },
		{ "icc", { .type = EV_CHECK, .by = WHITE, .checks = { CHECK_LONG_DIAGONAL } } },
		{ "icc", { .type = EV_CAPTURE, .by = WHITE, .square = 28, .what = CAPTURED_PAWN } },
		{ "nost", { .type = EV_ILLEGAL_COUNT, .by = WHITE, .count = 1 } },
		{ "nost", { .type = EV_PAWN_CAPTURES, .by = BLACK, .answer = 0 } },
		{ "cincinnati", { .type = EV_IMPOSSIBLE, .by = WHITE, .move = MOVE_NONE } },
		{ "rand", { .type = EV_PAWN_SQUARES, .by = WHITE, .squares = 1ULL << 26 | 1ULL << 28 } },
		{ "rand", { .type = EV_ILLEGAL, .by = WHITE, .move = MOVE_NONE } },
		{ "crazykrieg", { .type = EV_CAPTURE, .by = WHITE, .square = 32, .what = CAPTURED_KNIGHT } },
		{ "gollon", { .type = EV_CAPTURE, .by = BLACK, .square = 21, .en_passant = true } },
	};
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		char said[256], flat[1024];
		words_event(NULL, &shown[i].e, -1, NULL, said, sizeof said);
		/* the help's lines joined as one (a quote may be broken over two) */
		size_t k = 0;
		for (const char *p = words_rules_help(shown[i].rules); *p && k + 1 < sizeof flat; p++) {
			if (*p == '\n') {
				while (p[1] == ' ')
					p++;
				flat[k++] = ' ';
			} else {
				flat[k++] = *p;
			}
		}
		flat[k] = '\0';
		ck_assert_msg(strstr(flat, said) != NULL, "help %s does not quote \"%s\" as shown", shown[i].rules,
		              said);
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
	tcase_add_test(tc, ending_in_words);
	tcase_add_test(tc, nost_words);
	tcase_add_test(tc, adjournment_words);
	tcase_add_test(tc, pawn_squares_words);
	tcase_add_test(tc, impossible_words);
	tcase_add_test(tc, numbered_as_chess);
	tcase_add_test(tc, offers_as_each_side_hears_them);
	tcase_add_test(tc, time_control_words);
	tcase_add_test(tc, every_rule_set_has_help);
	tcase_add_test(tc, umpire_texts_shown_whole);
	tcase_add_test(tc, peoples_words_shown_whole);
	tcase_add_test(tc, over_long_text_cut_between_characters);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(words_suite)
