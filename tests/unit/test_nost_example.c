/*
 * test_nost_example.c — the example exchange at the end of seed 000 (NOST
 * Index Code 272), replayed under the `nost` rule set, every announcement
 * to each player asserted.  Where the seed's wording and rule 8 differ on
 * what the capturer hears, rule 8 wins (see proto/RULESETS.md, "The NOST
 * example").
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "notation.h"
#include "referee.h"

static int sq(const char *s)
{
	return square_parse(s);
}

/* Events of the call that reached `color`, in order. */
static size_t heard(const struct evlist *ev, int color, const struct event **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < ev->n && n < max; i++)
		if (ev->v[i].audience & aud_of(color))
			out[n++] = &ev->v[i];
	return n;
}

static void send(struct referee *r, int color, const char *moves, struct evlist *ev)
{
	char buf[128];
	const char *texts[REFEREE_LIST_MAX];
	size_t n = 0;
	snprintf(buf, sizeof buf, "%s", moves);
	for (char *t = strtok(buf, ", "); t; t = strtok(NULL, ", "))
		texts[n++] = t;
	evlist_clear(ev);
	int st = referee_attempt_list(r, color, texts, n, ev);
	ck_assert_msg(st == REF_OK, "%s: %s", moves, referee_error(r));
}

/* What a player hears from one call: a compact script, checked in order.
 * M = own move (uci), m = "has moved", I<n> = n illegal tries, C<sq> =
 * capture on sq, K<dir> = check, P<0|1> = pawn capture for the side to
 * move, X = own refused try.  Unlisted: nothing else was heard. */
static void expect(const struct evlist *ev, int color, const char *const *script, size_t n)
{
	const struct event *h[32];
	size_t k = heard(ev, color, h, 32);
	ck_assert_msg(k == n, "colour %d heard %zu announcements, want %zu", color, k, n);
	for (size_t i = 0; i < n; i++) {
		const struct event *e = h[i];
		const char *s = script[i];
		switch (s[0]) {
		case 'M': {
			char uci[NOTATION_MAX];
			ck_assert_int_eq(e->type, EV_MOVE);
			notation_uci(e->move, uci);
			ck_assert_str_eq(uci, s + 1);
			break;
		}
		case 'm':
			ck_assert_int_eq(e->type, EV_MOVED);
			ck_assert_int_eq(e->by, !color);
			ck_assert_uint_eq(e->move, MOVE_NONE);
			break;
		case 'I':
			ck_assert_int_eq(e->type, EV_ILLEGAL_COUNT);
			ck_assert_int_eq(e->count, atoi(s + 1));
			break;
		case 'X':
			ck_assert_int_eq(e->type, EV_ILLEGAL);
			ck_assert_int_eq(e->by, color);
			break;
		case 'C':
			ck_assert_int_eq(e->type, EV_CAPTURE);
			ck_assert_int_eq(e->square, sq(s + 1));
			ck_assert(!e->en_passant);
			ck_assert_int_eq(e->what, CAPTURED_UNSAID);
			break;
		case 'K':
			ck_assert_int_eq(e->type, EV_CHECK);
			ck_assert_str_eq(check_dir_name(e->checks[0]), s + 1);
			ck_assert_int_eq(e->checks[1], CHECK_NONE);
			break;
		case 'P':
			ck_assert_int_eq(e->type, EV_PAWN_CAPTURES);
			ck_assert_int_eq(e->answer, s[1] == '1');
			ck_assert_uint_eq(e->audience, AUD_PUBLIC);
			break;
		default:
			ck_abort_msg("bad script");
		}
	}
}

#define EXPECT(ev, color, ...)                                                        \
	do {                                                                          \
		const char *const script_[] = { __VA_ARGS__ };                        \
		expect((ev), (color), script_, sizeof script_ / sizeof script_[0]);  \
	} while (0)

START_TEST(test_nost_example)
{
	char err[80];
	struct referee *r = referee_new(ruleset_find("nost"), NULL, err, sizeof err);
	struct evlist ev;
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	EXPECT(&ev, BLACK, "P0");

	/* (1) White sends e2e4.  Referee to Black: "White has moved." */
	send(r, WHITE, "e2e4", &ev);
	EXPECT(&ev, WHITE, "Me2e4", "P0");
	EXPECT(&ev, BLACK, "m", "P0");

	/* (..1) Black sends Nb8c6.  To White: "You moved e2e4. Black has moved." */
	send(r, BLACK, "Nb8c6", &ev);
	EXPECT(&ev, WHITE, "m", "P0");

	/* (2) White sends e4e5; Nb1c3.  To Black: "You moved Nb8c6. White has moved." */
	send(r, WHITE, "e4e5, Nb1c3", &ev);
	EXPECT(&ev, WHITE, "Me4e5", "P0");
	EXPECT(&ev, BLACK, "m", "P0");

	/* (...2) Black sends d7d5; e7e6.  To White: "You moved e4e5. Black has
	 * moved. You have a pawn capture." */
	send(r, BLACK, "d7d5, e7e6", &ev);
	EXPECT(&ev, BLACK, "Md7d5", "P1");
	EXPECT(&ev, WHITE, "m", "P1");

	/* (3) White sends e5:f6, e5:d6.  To Black: "You moved d7d5. White had a
	 * pawn capture. White tried one illegal move. White moved and captured
	 * at d5. You have a pawn capture."  (rule 8: the victim hears d5) */
	send(r, WHITE, "e5:f6, e5:d6", &ev);
	EXPECT(&ev, BLACK, "I1", "m", "Cd5", "P1");
	/* The mover: his refused try, his move, and (rule 8) the landing square. */
	EXPECT(&ev, WHITE, "X", "Me5d6", "Cd6", "P1");

	/* (...3) Black sends Ng8f6.  To White: "You moved e5:d6, capturing.
	 * Black had a pawn capture. Black has moved. You have a pawn capture." */
	send(r, BLACK, "Ng8f6", &ev);
	EXPECT(&ev, WHITE, "m", "P1");

	/* (4) White sends Qd1e2.  To Black: "You moved Ng8f6. White had a pawn
	 * capture. White has moved. You have a pawn capture." */
	send(r, WHITE, "Qd1e2", &ev);
	EXPECT(&ev, BLACK, "m", "P1");

	/* (...4) Black sends e7:d6, c7:d6 (the e7 pawn is pinned by the queen).
	 * To White: "You moved Qd1e2. Black had a pawn capture. Black tried one
	 * illegal move. Black has moved and captured at d6." */
	send(r, BLACK, "e7:d6, c7:d6", &ev);
	EXPECT(&ev, WHITE, "I1", "m", "Cd6", "P0");
	EXPECT(&ev, BLACK, "X", "Mc7d6", "Cd6", "P0");

	/* (5) White sends d2d3.  To Black: "You moved c7:d6. White has moved." */
	send(r, WHITE, "d2d3", &ev);
	EXPECT(&ev, BLACK, "m", "P0");

	/* (...5) Black sends Qd8a5.  To White: "You moved d2d3. Black has moved
	 * and given check on the long diagonal." */
	send(r, BLACK, "Qd8a5", &ev);
	EXPECT(&ev, WHITE, "m", "Klong_diagonal", "P0");
	char said[120];
	ruleset_say(referee_ruleset(r), &ev.v[ev.n - 2], said, sizeof said);
	ck_assert_str_eq(said, "White is in check on the long diagonal");

	/* (6) White sends Bc1d2.  To Black: "You moved Qd8a5, giving check on
	 * the long diagonal. White has moved." */
	send(r, WHITE, "Bc1d2", &ev);
	EXPECT(&ev, BLACK, "m", "P0");
	ck_assert_int_eq(referee_plies(r), 11);
	ck_assert(!referee_over(r));

	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/* Rule 6: a try the mover knew was illegal from his own pieces alone
 * ("Ra1a5 as an opening move") is not counted for the opponent. */
START_TEST(test_nost_rule6_example)
{
	char err[80];
	struct referee *r = referee_new(ruleset_find("nost"), NULL, err, sizeof err);
	struct evlist ev;
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	send(r, WHITE, "Ra1a5, e2e4", &ev);
	EXPECT(&ev, BLACK, "m", "P0");
	ck_assert_int_eq(ev.v[0].type, EV_IMPOSSIBLE);
	ck_assert_uint_eq(ev.v[0].audience, AUD_WHITE | AUD_UMPIRE);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

static Suite *nost_suite(void)
{
	Suite *s = suite_create("nost_example");
	TCase *tc = tcase_create("seed000");
	tcase_add_test(tc, test_nost_example);
	tcase_add_test(tc, test_nost_rule6_example);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(nost_suite)
