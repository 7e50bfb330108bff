/*
 * test_referee.c — the umpire: error paths leave the state unchanged,
 * audiences, game ends, determinism.  Per-rule-set announcements are in
 * test_rulesets.c.
 */
#include <check.h>
#include <string.h>

#include "action.h"
#include "check_main.h"
#include "fen.h"
#include "notation.h"
#include "referee.h"
#include "referee_snap.h"

static struct referee *mk(const char *rules, const char *fen, struct evlist *ev)
{
	char err[160];
	struct referee *r = referee_new(ruleset_find(rules), fen, err, sizeof err);
	ck_assert_msg(r != NULL, "referee_new: %s", err);
	evlist_init(ev);
	ck_assert_int_eq(referee_begin(r, ev), REF_OK);
	return r;
}

static int play(struct referee *r, const char *text, struct evlist *ev)
{
	evlist_clear(ev);
	return referee_attempt(r, referee_side_to_move(r), text, ev);
}

static const struct event *find(const struct evlist *ev, int type)
{
	for (size_t i = 0; i < ev->n; i++)
		if (ev->v[i].type == type)
			return &ev->v[i];
	return NULL;
}


START_TEST(test_not_your_turn)
{
	struct evlist ev;
	struct referee *r = mk("icc", NULL, &ev);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, BLACK, "e5", &ev), REF_E_NOT_YOUR_TURN);
	ck_assert_int_eq(play(r, "e4", &ev), REF_OK);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "d4", &ev), REF_E_NOT_YOUR_TURN);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, 7, "d5", &ev), REF_E_BAD_ARGUMENT);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

START_TEST(test_bad_notation)
{
	struct evlist ev;
	struct referee *r = mk("icc", NULL, &ev);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "hello", &ev), REF_E_SYNTAX);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "", &ev), REF_E_SYNTAX);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "e2e4e2e4e2e4e2e4e2e4e2e4e2e4e2e4e2e4", &ev),
	                     REF_E_SYNTAX);
	/* SAN naming no piece that could move there, and a square with no own piece. */
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "Qh5", &ev), REF_E_NO_PIECE);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "e4e5", &ev), REF_E_NO_PIECE);
	referee_free(r);
	evlist_free(&ev);

	/* Two knights can reach d2: ambiguous SAN. */
	r = mk("icc", "4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1", &ev);
	ck_assert_int_eq(play(r, "Nf3", &ev), REF_OK);
	ck_assert_int_eq(play(r, "Kd7", &ev), REF_OK);
	ck_assert_int_eq(play(r, "Nf3d2", &ev), REF_OK); /* the f3 knight */
	ck_assert_int_eq(play(r, "Kd6", &ev), REF_OK);
	ck_assert_int_eq(play(r, "Nd2b3", &ev), REF_OK);
	ck_assert_int_eq(play(r, "Kd5", &ev), REF_OK);
	/* knights b1 and b3: both reach d2 */
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "Nd2", &ev), REF_E_AMBIGUOUS);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

START_TEST(test_game_over_errors)
{
	struct evlist ev;
	struct referee *r = mk("english", NULL, &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_end(r, REASON_RESIGNATION, WHITE, &ev), REF_OK);
	ck_assert(referee_over(r));
	ck_assert_int_eq(referee_result(r), RESULT_BLACK);
	const struct event *e = find(&ev, EV_GAME_OVER);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->audience, AUD_PUBLIC);
	ck_assert_int_eq(e->reason, REASON_RESIGNATION);
	ck_assert_int_eq(e->by, WHITE);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "e4", &ev), REF_E_GAME_OVER);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_any(r, WHITE, &ev), REF_E_GAME_OVER);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_end(r, REASON_AGREEMENT, WHITE, &ev), REF_E_GAME_OVER);
	struct movelist ml;
	referee_possible(r, WHITE, &ml);
	ck_assert_int_eq(ml.n, 0);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

START_TEST(test_must_try_capture)
{
	struct evlist ev;
	/* White pawn e4 can take d5. */
	struct referee *r = mk("english", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	const struct event *e = find(&ev, EV_ANY);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->answer, ANY_YES);
	ck_assert(referee_must_try_capture(r));
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "Kd2", &ev), REF_E_MUST_TRY_CAPTURE);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "e5", &ev), REF_E_MUST_TRY_CAPTURE);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_any(r, WHITE, &ev), REF_E_ANY_ALREADY);
	struct movelist ml;
	referee_possible(r, WHITE, &ml);
	ck_assert_int_eq(ml.n, 2); /* exd5 and exf5 */
	/* A refused pawn capture discharges the obligation. */
	ck_assert_int_eq(play(r, "exf5", &ev), REF_OK);
	ck_assert_ptr_nonnull(find(&ev, EV_ILLEGAL));
	ck_assert(!referee_must_try_capture(r));
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "exf5", &ev), REF_E_ALREADY_TRIED);
	ck_assert_int_eq(play(r, "Kd2", &ev), REF_OK);
	ck_assert_ptr_nonnull(find(&ev, EV_MOVE));
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

START_TEST(test_any_errors)
{
	struct evlist ev;
	struct referee *r = mk("insurance", NULL, &ev);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_any(r, WHITE, &ev), REF_E_ANY_TOO_EARLY);
	ck_assert_int_eq(play(r, "e4", &ev), REF_OK);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_any(r, BLACK, &ev), REF_E_ANY_TOO_EARLY);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_any(r, WHITE, &ev), REF_E_NOT_YOUR_TURN);
	ck_assert_int_eq(play(r, "d5", &ev), REF_OK);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	ck_assert_int_eq(find(&ev, EV_ANY)->answer, ANY_YES);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_any(r, WHITE, &ev), REF_E_ANY_ALREADY);
	referee_free(r);
	evlist_free(&ev);

	const char *no_any[] = { "icc", "nost" };
	for (int i = 0; i < 2; i++) {
		r = mk(no_any[i], NULL, &ev);
		ASSERT_FAILS_CLEANLY(r, &ev, referee_any(r, WHITE, &ev), REF_E_UNSUPPORTED);
		referee_free(r);
		evlist_free(&ev);
	}
}
END_TEST

START_TEST(test_unsupported_actions)
{
	struct evlist ev;
	const char *two[] = { "e4", "d4" };
	const char *rules[] = { "icc", "english", "insurance", "gollon" };
	for (int i = 0; i < 4; i++) {
		struct referee *r = mk(rules[i], NULL, &ev);
		ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt_list(r, WHITE, two, 2, &ev), REF_E_UNSUPPORTED);
		ASSERT_FAILS_CLEANLY(r, &ev, referee_quiet(r, WHITE, two, 2, &ev), REF_E_UNSUPPORTED);
		referee_free(r);
		evlist_free(&ev);
	}
	struct referee *r = mk("nost", NULL, &ev);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt_list(r, WHITE, two, 0, &ev), REF_E_TOO_MANY);
	const char *many[REFEREE_LIST_MAX + 1];
	for (int i = 0; i <= REFEREE_LIST_MAX; i++)
		many[i] = "e4";
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt_list(r, WHITE, many, REFEREE_LIST_MAX + 1, &ev),
	                     REF_E_TOO_MANY);
	const char *dup[] = { "e4", "e2e4" };
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt_list(r, WHITE, dup, 2, &ev), REF_E_ALREADY_TRIED);
	const char *bad[] = { "e4", "zz9" };
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt_list(r, WHITE, bad, 2, &ev), REF_E_SYNTAX);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_quiet(r, WHITE, bad, 2, &ev), REF_E_SYNTAX);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt_list(r, BLACK, two, 2, &ev), REF_E_NOT_YOUR_TURN);
	/* begin twice */
	ASSERT_FAILS_CLEANLY(r, &ev, referee_begin(r, &ev), REF_E_BAD_ARGUMENT);
	referee_free(r);
	evlist_free(&ev);

	/* before begin */
	char err[64];
	r = referee_new(ruleset_find("icc"), NULL, err, sizeof err);
	evlist_init(&ev);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "e4", &ev), REF_E_BAD_ARGUMENT);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

START_TEST(test_bad_fen_and_ruleset)
{
	char err[160] = "";
	ck_assert_ptr_null(referee_new(ruleset_find("icc"), "not a fen", err, sizeof err));
	ck_assert(err[0] != '\0');
	ck_assert_ptr_null(referee_new(NULL, NULL, err, sizeof err));
	ck_assert_ptr_null(ruleset_find("nonesuch"));
}
END_TEST

START_TEST(test_move_audiences)
{
	struct evlist ev;
	struct referee *r = mk("icc", NULL, &ev);
	ck_assert_int_eq(play(r, "Nf3", &ev), REF_OK);
	const struct event *m = find(&ev, EV_MOVE), *d = find(&ev, EV_MOVED), *u = find(&ev, EV_UMPIRE_MOVE);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_eq(m->audience, AUD_WHITE);
	ck_assert_uint_eq(d->audience, AUD_BLACK | AUD_SPECTATOR);
	ck_assert_uint_eq(u->audience, AUD_UMPIRE);
	ck_assert_uint_eq(d->move, MOVE_NONE);
	ck_assert_str_eq(m->san, "Nf3");
	ck_assert_str_eq(u->san, "Nf3");
	ck_assert_int_eq(m->ply, 1);
	ck_assert_int_eq(referee_plies(r), 1);
	ck_assert_int_eq(referee_side_to_move(r), BLACK);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

static void expect_end(const char *fen, const char *move, int result, int reason, const char *rules)
{
	struct evlist ev;
	struct referee *r = mk(rules, fen, &ev);
	ck_assert_int_eq(play(r, move, &ev), REF_OK);
	ck_assert_ptr_nonnull(find(&ev, EV_MOVE));
	const struct event *e = find(&ev, EV_GAME_OVER);
	ck_assert_msg(e != NULL, "no game over after %s in %s", move, fen);
	ck_assert_int_eq(e->result, result);
	ck_assert_int_eq(e->reason, reason);
	ck_assert_uint_eq(e->audience, AUD_PUBLIC);
	ck_assert(referee_over(r));
	ck_assert_int_eq(referee_reason(r), reason);
	/* nothing is announced for a turn that will not come */
	ck_assert_ptr_null(find(&ev, EV_PAWN_TRIES));
	referee_free(r);
	evlist_free(&ev);
}

START_TEST(test_game_ends)
{
	expect_end("k7/8/1K6/8/8/8/7Q/8 w - - 0 1", "Qh8", RESULT_WHITE, REASON_CHECKMATE, "icc");
	expect_end("k7/8/8/1Q6/8/8/8/4K3 w - - 0 1", "Qb6", RESULT_DRAW, REASON_STALEMATE, "icc");
	expect_end("k7/8/8/8/8/8/1r6/K7 w - - 0 1", "Kxb2", RESULT_DRAW, REASON_INSUFFICIENT, "icc");
	expect_end("k7/8/8/8/8/8/8/K6R w - - 99 80", "Rh2", RESULT_DRAW, REASON_FIFTY_MOVES, "nost");
	/* Mate on the hundredth half-move still wins. */
	expect_end("k7/8/1K6/8/8/8/7Q/8 w - - 99 80", "Qh8", RESULT_WHITE, REASON_CHECKMATE, "english");
}
END_TEST

START_TEST(test_repetition)
{
	struct evlist ev;
	struct referee *r = mk("gollon", NULL, &ev);
	const char *seq[] = { "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1" };
	for (int i = 0; i < 7; i++) {
		ck_assert_int_eq(play(r, seq[i], &ev), REF_OK);
		ck_assert(!referee_over(r));
	}
	ck_assert_int_eq(play(r, "Ng8", &ev), REF_OK);
	ck_assert(referee_over(r));
	ck_assert_int_eq(referee_reason(r), REASON_REPETITION);
	ck_assert_int_eq(referee_result(r), RESULT_DRAW);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

START_TEST(test_begin_terminal)
{
	struct evlist ev;
	/* Black to move and stalemated from the start. */
	struct referee *r = mk("icc", "k7/8/1Q6/8/8/8/8/4K3 b - - 0 1", &ev);
	ck_assert_ptr_nonnull(find(&ev, EV_GAME_OVER));
	ck_assert_int_eq(referee_reason(r), REASON_STALEMATE);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

START_TEST(test_end_reasons)
{
	struct evlist ev;
	struct referee *r = mk("icc", NULL, &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_end(r, REASON_AGREEMENT, WHITE, &ev), REF_OK);
	ck_assert_int_eq(referee_result(r), RESULT_DRAW);
	ck_assert_int_eq(ev.v[0].by, -1);
	referee_free(r);
	evlist_free(&ev);

	/* White flags, Black has a lone king: drawn. */
	r = mk("icc", "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_end(r, REASON_TIME, WHITE, &ev), REF_OK);
	ck_assert_int_eq(referee_result(r), RESULT_DRAW);
	referee_free(r);
	evlist_free(&ev);
	r = mk("icc", "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_end(r, REASON_TIME, BLACK, &ev), REF_OK);
	ck_assert_int_eq(referee_result(r), RESULT_WHITE);
	referee_free(r);
	evlist_free(&ev);

	r = mk("icc", NULL, &ev);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_end(r, REASON_CHECKMATE, WHITE, &ev), REF_E_BAD_ARGUMENT);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_end(r, REASON_RESIGNATION, -1, &ev), REF_E_BAD_ARGUMENT);
	ck_assert_int_eq(play(r, "e4", &ev), REF_OK);
	ck_assert_int_eq(play(r, "e5", &ev), REF_OK);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_end(r, REASON_ABORTED, WHITE, &ev), REF_E_BAD_ARGUMENT);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_end(r, REASON_ABANDONED, BLACK, &ev), REF_OK);
	ck_assert_int_eq(referee_result(r), RESULT_WHITE);
	referee_free(r);
	evlist_free(&ev);

	r = mk("icc", NULL, &ev);
	ck_assert_int_eq(play(r, "e4", &ev), REF_OK);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_end(r, REASON_ABORTED, BLACK, &ev), REF_OK);
	ck_assert_int_eq(referee_result(r), RESULT_NONE);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/* A try is its origin and destination: exd8=Q refused, exd8=N is the same
 * try (legality never depends on the promotion piece), so it is refused
 * as already tried and is neither counted (nost, seed 000 rule 6) nor
 * announced again (english). */
static bool has_from_to(const struct movelist *ml, int from, int to)
{
	for (int i = 0; i < ml->n; i++)
		if (move_from(ml->m[i]) == from && move_to(ml->m[i]) == to)
			return true;
	return false;
}

START_TEST(test_promotion_piece_same_try)
{
	static const char fen[] = "4k3/4P3/8/8/8/8/8/4K2r w - - 0 1";
	struct evlist ev;
	struct movelist ml;
	struct referee *r = mk("nost", fen, &ev);
	ck_assert_int_eq(play(r, "exd8=Q", &ev), REF_OK);
	ck_assert_ptr_nonnull(find(&ev, EV_ILLEGAL));
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "exd8=N", &ev), REF_E_ALREADY_TRIED);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "e7d8r", &ev), REF_E_ALREADY_TRIED);
	const char *again[] = { "exd8=B", "Kd2" };
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt_list(r, WHITE, again, 2, &ev), REF_E_ALREADY_TRIED);
	/* the same try twice in one list, with two promotion pieces */
	const char *twice[] = { "exf8=Q", "exf8=N", "Kd2" };
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt_list(r, WHITE, twice, 3, &ev), REF_E_ALREADY_TRIED);
	referee_possible(r, WHITE, &ml);
	ck_assert(!has_from_to(&ml, 52, 59)); /* no e7d8 of any piece */
	ck_assert(!has_from_to(&ml, 52, 61)); /* nor e7f8: "no pawn capture" was said */
	ck_assert(has_from_to(&ml, 52, 60));  /* the push e7e8 still open */
	ck_assert_int_eq(play(r, "Kd2", &ev), REF_OK);
	const struct event *c = find(&ev, EV_ILLEGAL_COUNT);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->count, 1);
	referee_free(r);
	evlist_free(&ev);

	/* english: announced to both once, not again with another piece */
	r = mk("english", fen, &ev);
	ck_assert_int_eq(play(r, "exd8=Q", &ev), REF_OK);
	ck_assert_uint_eq(ev.n, 2);
	ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, WHITE, "exd8=N", &ev), REF_E_ALREADY_TRIED);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/*
 * Regression (the protocol probe): an impossible try sent again in the same
 * turn was ruled again, and where impossible tries are public (cincinnati)
 * the opponent heard each repeat.  referee_impossible_again tells the
 * server so (it refuses it, as the referee refuses an illegal one again),
 * for a try, a list and a quiet sequence's first try, never across a
 * turn, never for an illegal try; the referee still rules a repeat, as
 * records made before hold them.  Asking changes nothing.
 */
START_TEST(test_impossible_again)
{
	struct evlist ev;
	struct referee *r = mk("cincinnati", FEN_START, &ev);
	ck_assert(!referee_impossible_again(r, WHITE, "a1a5"));
	ck_assert_int_eq(play(r, "a1a5", &ev), REF_OK);   /* through the own rook's pawn */
	ck_assert_ptr_nonnull(find(&ev, EV_IMPOSSIBLE));
	uint64_t h = referee_state_hash(r);
	ck_assert(referee_impossible_again(r, WHITE, "a1a5"));
	ck_assert(referee_impossible_again(r, WHITE, "Ra1a5"));
	ck_assert(!referee_impossible_again(r, WHITE, "a2a4"));
	ck_assert(!referee_impossible_again(r, BLACK, "a1a5"));
	ck_assert(!referee_impossible_again(r, WHITE, "zz"));
	struct action a;
	ck_assert_int_eq(action_set(&a, ACTION_TRY, WHITE, "a1a5"), REF_OK);
	ck_assert(referee_action_repeats_impossible(r, &a));
	ck_assert_int_eq(action_set(&a, ACTION_TRY, WHITE, "e2e4"), REF_OK);
	ck_assert(!referee_action_repeats_impossible(r, &a));
	ck_assert_uint_eq(referee_state_hash(r), h);
	/* the referee rules a repeat (a record's) as before */
	ck_assert_int_eq(play(r, "a1a5", &ev), REF_OK);
	ck_assert_ptr_nonnull(find(&ev, EV_IMPOSSIBLE));
	ck_assert_int_eq(play(r, "e2e4", &ev), REF_OK);
	ck_assert(!referee_impossible_again(r, BLACK, "a8a4"));
	ck_assert_int_eq(play(r, "e7e5", &ev), REF_OK);
	ck_assert(!referee_impossible_again(r, WHITE, "a1a5"));   /* a new turn */
	referee_free(r);
	evlist_free(&ev);

	/* nost: a list's member and a quiet sequence's first try */
	r = mk("nost", FEN_START, &ev);
	ck_assert_int_eq(play(r, "Qd1d5", &ev), REF_OK);
	ck_assert_ptr_nonnull(find(&ev, EV_IMPOSSIBLE));
	ck_assert_int_eq(action_set(&a, ACTION_LIST, WHITE, "e2e4 Qd1d5"), REF_OK);
	ck_assert(referee_action_repeats_impossible(r, &a));
	ck_assert_int_eq(action_set(&a, ACTION_QUIET, WHITE, "Qd1d5 e2e4"), REF_OK);
	ck_assert(referee_action_repeats_impossible(r, &a));
	ck_assert_int_eq(action_set(&a, ACTION_QUIET, WHITE, "e2e4 Qd1d5"), REF_OK);
	ck_assert(!referee_action_repeats_impossible(r, &a));
	referee_free(r);
	evlist_free(&ev);

	/* an illegal try is the referee's to refuse again, not this */
	r = mk("icc", "4k3/8/8/8/8/8/8/R3K2r w - - 0 1", &ev);
	ck_assert_int_eq(play(r, "Ke1f1", &ev), REF_OK);
	ck_assert_ptr_nonnull(find(&ev, EV_ILLEGAL));
	ck_assert(!referee_impossible_again(r, WHITE, "Ke1f1"));
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/*
 * Positions are the same only when the same moves are possible (FIDE
 * 9.2.3): an en-passant right that no legal capture can use does not make
 * a position different.  After 1...c5 the b5 pawn may not take en passant
 * (it would open the fifth rank from h5 to the king on a5), so the
 * position after 1...c5 is the one after 3...Ng8 and 5...Ng8: the third
 * occurrence, and the draw, comes with 5...Ng8.
 */
START_TEST(test_repetition_illegal_en_passant)
{
	struct evlist ev;
	struct referee *r = mk("icc", "6nk/2p5/8/KP5r/8/8/8/6N1 b - - 0 1", &ev);
	const char *seq[] = { "c5", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1" };
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(play(r, seq[i], &ev), REF_OK);
		ck_assert_msg(!referee_over(r), "over after %s", seq[i]);
	}
	ck_assert_int_eq(play(r, "Ng8", &ev), REF_OK);
	ck_assert(referee_over(r));
	ck_assert_int_eq(referee_reason(r), REASON_REPETITION);
	referee_free(r);
	evlist_free(&ev);

	/* With a legal en-passant capture (rook on h6: nothing pins the b5
	 * pawn) the position after 1...c5 differs from the later ones, so
	 * 5...Ng8 is only its second occurrence; the first position to come a
	 * third time is the one after 2.Nf3, with 6.Nf3. */
	r = mk("icc", "6nk/2p5/7r/KP6/8/8/8/6N1 b - - 0 1", &ev);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(play(r, seq[i], &ev), REF_OK);
	ck_assert_int_eq(play(r, "Ng8", &ev), REF_OK);
	ck_assert(!referee_over(r));
	ck_assert_int_eq(play(r, "Nf3", &ev), REF_OK);
	ck_assert(referee_over(r));
	ck_assert_int_eq(referee_reason(r), REASON_REPETITION);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/* A small deterministic generator for the random games. */
static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void random_game(const char *rules, uint32_t seed, struct evlist *all)
{
	struct evlist ev;
	struct referee *r = mk(rules, NULL, &ev);
	for (size_t i = 0; i < ev.n; i++)
		evlist_push(all, &ev.v[i]);
	for (int step = 0; step < 300 && !referee_over(r); step++) {
		struct movelist ml;
		int side = referee_side_to_move(r);
		referee_possible(r, side, &ml);
		ck_assert_int_gt(ml.n, 0);
		char text[NOTATION_MAX];
		notation_uci(ml.m[lcg(&seed) % (uint32_t)ml.n], text);
		evlist_clear(&ev);
		if (referee_ruleset(r)->pawn_info == PAWN_INFO_ASK && lcg(&seed) % 5 == 0 &&
		    referee_any(r, side, &ev) == REF_OK) {
			for (size_t i = 0; i < ev.n; i++)
				evlist_push(all, &ev.v[i]);
			continue;
		}
		ck_assert_int_eq(referee_attempt(r, side, text, &ev), REF_OK);
		for (size_t i = 0; i < ev.n; i++)
			evlist_push(all, &ev.v[i]);
	}
	referee_free(r);
	evlist_free(&ev);
}

START_TEST(test_deterministic)
{
	for (size_t k = 0; k < ruleset_count(); k++) {
		struct evlist a, b;
		evlist_init(&a);
		evlist_init(&b);
		random_game(ruleset_at(k)->name, 1234 + (uint32_t)k, &a);
		random_game(ruleset_at(k)->name, 1234 + (uint32_t)k, &b);
		ck_assert_uint_gt(a.n, 10);
		ck_assert_uint_eq(a.n, b.n);
		ck_assert(memcmp(a.v, b.v, a.n * sizeof a.v[0]) == 0);
		evlist_free(&a);
		evlist_free(&b);
	}
}
END_TEST

/* The same attempt to both referees: the same status and the same events. */
static void play_both(struct referee *a, struct referee *b, const char *text, struct evlist *ea,
                      struct evlist *eb)
{
	int side = referee_side_to_move(a);
	ck_assert_int_eq(referee_side_to_move(b), side);
	evlist_clear(ea);
	evlist_clear(eb);
	ck_assert_int_eq(referee_attempt(a, side, text, ea), referee_attempt(b, side, text, eb));
	ck_assert_uint_eq(ea->n, eb->n);
	ck_assert(ea->n == 0 || memcmp(ea->v, eb->v, ea->n * sizeof ea->v[0]) == 0);
}

/* A copy (referee_copy) rules every later attempt as the original does,
 * in every rule set, from any point of a game, a copy of a copy too; it
 * lives on when the original is freed. */
START_TEST(test_copy_rules_alike)
{
	for (size_t k = 0; k < ruleset_count(); k++) {
		for (uint32_t seed = 1; seed <= 8; seed++) {
			struct evlist ea, eb;
			struct referee *a = mk(ruleset_at(k)->name, NULL, &ea);
			struct referee *b = NULL;
			evlist_init(&eb);
			uint32_t s = seed * 7919u + (uint32_t)k;
			int copy_at = (int)(lcg(&s) % 120), again_at = copy_at + 1 + (int)(lcg(&s) % 60);
			for (int step = 0; step < 400 && !referee_over(a); step++) {
				if (step == copy_at)
					b = referee_copy(a);
				if (step == again_at) {
					/* the copy's copy goes on in its place, the original freed */
					struct referee *c = referee_copy(b);
					referee_free(b);
					b = c;
				}
				struct movelist ml;
				referee_possible(a, referee_side_to_move(a), &ml);
				char text[NOTATION_MAX];
				notation_uci(ml.m[lcg(&s) % (uint32_t)ml.n], text);
				if (b != NULL)
					play_both(a, b, text, &ea, &eb);
				else
					ck_assert_int_eq(play(a, text, &ea), REF_OK);
			}
			if (b != NULL) {
				ck_assert_int_eq(referee_over(b), referee_over(a));
				ck_assert_int_eq(referee_plies(b), referee_plies(a));
				char fa[FEN_MAX], fb[FEN_MAX];
				fen_format(referee_board(a), fa, sizeof fa);
				fen_format(referee_board(b), fb, sizeof fb);
				ck_assert_str_eq(fa, fb);
			}
			referee_free(a);
			referee_free(b);
			evlist_free(&ea);
			evlist_free(&eb);
		}
	}
}
END_TEST

/* A copy made after the positions it leaves out still sees a repetition
 * of those it keeps: the draw falls on the same move as the original's. */
START_TEST(test_copy_repetition)
{
	struct evlist ea, eb;
	struct referee *a = mk("gollon", NULL, &ea);
	evlist_init(&eb);
	/* A pawn move first: the positions before it can never repeat. */
	const char *seq[] = { "e4", "e5", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8" };
	ck_assert_int_eq(play(a, seq[0], &ea), REF_OK);
	ck_assert_int_eq(play(a, seq[1], &ea), REF_OK);
	ck_assert_int_eq(play(a, seq[2], &ea), REF_OK);
	struct referee *b = referee_copy(a);
	for (int i = 3; i < 9; i++) {
		play_both(a, b, seq[i], &ea, &eb);
		ck_assert(!referee_over(a) && !referee_over(b));
	}
	play_both(a, b, seq[9], &ea, &eb);
	ck_assert(referee_over(a) && referee_over(b));
	ck_assert_int_eq(referee_reason(b), REASON_REPETITION);
	referee_free(a);
	referee_free(b);
	evlist_free(&ea);
	evlist_free(&eb);
}
END_TEST

START_TEST(test_status_names)
{
	ck_assert_str_eq(referee_status_name(REF_E_NOT_YOUR_TURN), "not_your_turn");
	ck_assert_str_eq(referee_status_name(REF_E_MUST_TRY_CAPTURE), "must_try_capture");
	ck_assert_str_eq(referee_status_name(999), "unknown");
}
END_TEST

static Suite *referee_suite(void)
{
	Suite *s = suite_create("referee");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_not_your_turn);
	tcase_add_test(tc, test_bad_notation);
	tcase_add_test(tc, test_game_over_errors);
	tcase_add_test(tc, test_must_try_capture);
	tcase_add_test(tc, test_any_errors);
	tcase_add_test(tc, test_unsupported_actions);
	tcase_add_test(tc, test_bad_fen_and_ruleset);
	tcase_add_test(tc, test_move_audiences);
	tcase_add_test(tc, test_game_ends);
	tcase_add_test(tc, test_repetition);
	tcase_add_test(tc, test_repetition_illegal_en_passant);
	tcase_add_test(tc, test_impossible_again);
	tcase_add_test(tc, test_promotion_piece_same_try);
	tcase_add_test(tc, test_begin_terminal);
	tcase_add_test(tc, test_end_reasons);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_copy_rules_alike);
	tcase_add_test(tc, test_copy_repetition);
	tcase_add_test(tc, test_status_names);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(referee_suite)
