/*
 * test_rulesets.c — every announcement of every rule set, with its
 * audience and wording.  Positions are small FENs built so that exactly
 * one rule is at work.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "srcfile.h"
#include "notation.h"
#include "referee.h"
#include "view.h"

static struct referee *mk(const char *rules, const char *fen, struct evlist *ev)
{
	char err[160];
	struct referee *r = referee_new(ruleset_find(rules), fen, err, sizeof err);
	ck_assert_msg(r != NULL, "referee_new(%s): %s", fen ? fen : "start", err);
	evlist_init(ev);
	ck_assert_int_eq(referee_begin(r, ev), REF_OK);
	return r;
}

static void play(struct referee *r, const char *text, struct evlist *ev)
{
	evlist_clear(ev);
	int st = referee_attempt(r, referee_side_to_move(r), text, ev);
	ck_assert_msg(st == REF_OK, "%s: %s", text, referee_error(r));
}

static void done(struct referee *r, struct evlist *ev)
{
	referee_free(r);
	evlist_free(ev);
}

/* The event of a type whose audience is exactly aud (0: any audience). */
static const struct event *find(const struct evlist *ev, int type, unsigned aud)
{
	for (size_t i = 0; i < ev->n; i++)
		if (ev->v[i].type == type && (aud == 0 || ev->v[i].audience == aud))
			return &ev->v[i];
	return NULL;
}

static int count_type(const struct evlist *ev, int type)
{
	int n = 0;
	for (size_t i = 0; i < ev->n; i++)
		n += ev->v[i].type == type;
	return n;
}

/* The exact sequence of event types, ended by EV_NONE. */
static void expect_types(const struct evlist *ev, ...)
{
	va_list ap;
	va_start(ap, ev);
	size_t i = 0;
	for (int t = va_arg(ap, int); t != EV_NONE; t = va_arg(ap, int), i++) {
		ck_assert_msg(i < ev->n, "missing event %s", event_type_name(t));
		ck_assert_msg(ev->v[i].type == t, "event %zu is %s, want %s", i, event_type_name(ev->v[i].type),
		              event_type_name(t));
	}
	va_end(ap);
	ck_assert_uint_eq(i, ev->n);
}

static void say_is(const char *rules, const struct event *e, const char *want)
{
	char buf[160];
	ck_assert_ptr_nonnull(e);
	ruleset_say(ruleset_find(rules), e, buf, sizeof buf);
	ck_assert_str_eq(buf, want);
}

#define W AUD_WHITE
#define B AUD_BLACK
#define U AUD_UMPIRE
#define S AUD_SPECTATOR

/* ---------------------------------------------------------------- table */

START_TEST(test_table)
{
	ck_assert_uint_eq(ruleset_count(), 10);
	ck_assert_str_eq(ruleset_default()->name, "icc");
	const char *names[] = { "icc", "english", "insurance", "nost", "gollon",
	                        "berkeley", "berkeley_any", "cincinnati", "rand", "crazykrieg" };
	for (int i = 0; i < 10; i++) {
		const struct ruleset *rs = ruleset_find(names[i]);
		ck_assert_ptr_nonnull(rs);
		ck_assert_str_eq(rs->name, names[i]);
		ck_assert(rs->title && rs->title[0]);
		ck_assert_ptr_eq(ruleset_at((size_t)i), rs);
	}
	ck_assert_ptr_null(ruleset_at(10));
	ck_assert_ptr_null(ruleset_find(NULL));
	ck_assert_ptr_null(ruleset_find("ICC"));
}
END_TEST

/* ---------------------------------------------------------------- icc */

START_TEST(test_icc_pawn_tries)
{
	struct evlist ev;
	/* b7xa8 (promoting, counted once) and e5xd6 en passant. */
	struct referee *r = mk("icc", "r3k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1", &ev);
	expect_types(&ev, EV_PAWN_TRIES, EV_NONE);
	ck_assert_int_eq(ev.v[0].count, 2);
	ck_assert_int_eq(ev.v[0].by, WHITE);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	say_is("icc", &ev.v[0], "White has 2 pawn tries");
	done(r, &ev);

	/* In check from the d3 knight: only c2xd3 resolves it; a2xb3 and c2xb3 do not count. */
	r = mk("icc", "4k3/8/8/8/8/1p1n4/P1P5/4K3 w - - 0 1", &ev);
	ck_assert_int_eq(find(&ev, EV_PAWN_TRIES, 0)->count, 1);
	done(r, &ev);

	r = mk("icc", NULL, &ev);
	ck_assert_int_eq(find(&ev, EV_PAWN_TRIES, 0)->count, 0);
	play(r, "e4", &ev);
	ck_assert_int_eq(find(&ev, EV_PAWN_TRIES, 0)->by, BLACK);
	play(r, "d5", &ev);
	ck_assert_int_eq(find(&ev, EV_PAWN_TRIES, 0)->count, 1);
	done(r, &ev);
}
END_TEST

START_TEST(test_icc_captures)
{
	struct evlist ev;
	struct referee *r = mk("icc", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", &ev);
	play(r, "exd5", &ev);
	const struct event *e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(count_type(&ev, EV_CAPTURE), 1);
	ck_assert_int_eq(e->square, 35); /* d5 */
	ck_assert_int_eq(e->what, CAPTURED_PAWN);
	ck_assert(!e->en_passant);
	say_is("icc", e, "Pawn captured on d5");
	done(r, &ev);

	r = mk("icc", "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", &ev);
	play(r, "exd5", &ev);
	e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_int_eq(e->what, CAPTURED_PIECE);
	say_is("icc", e, "Piece captured on d5");
	done(r, &ev);

	/* En passant: an ordinary pawn capture on the taken pawn's square. */
	r = mk("icc", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", &ev);
	play(r, "exd6", &ev);
	e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->square, 35); /* d5, where the black pawn stood */
	ck_assert_int_eq(e->what, CAPTURED_PAWN);
	ck_assert(!e->en_passant);
	ck_assert_int_eq(find(&ev, EV_UMPIRE_MOVE, U)->move, move_make(36, 43, MOVE_EN_PASSANT, KNIGHT));
	done(r, &ev);
}
END_TEST

START_TEST(test_icc_illegal_and_impossible)
{
	struct evlist ev;
	struct movelist before, after;
	/* The e2 bishop is pinned by the e7 rook. */
	struct referee *r = mk("icc", "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1", &ev);
	referee_possible(r, WHITE, &before);
	play(r, "Bd3", &ev);
	expect_types(&ev, EV_ILLEGAL, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, W | U);
	ck_assert_uint_eq(ev.v[0].move, move_make(12, 19, MOVE_NORMAL, KNIGHT));
	ck_assert_str_eq(ev.v[0].san, "Bd3");
	referee_possible(r, WHITE, &after);
	ck_assert_int_eq(after.n, before.n - 1);
	done(r, &ev);

	/* Impossible on own pieces: refused to the mover alone, and not a try. */
	r = mk("icc", NULL, &ev);
	referee_possible(r, WHITE, &before);
	play(r, "Ra1a5", &ev);
	expect_types(&ev, EV_IMPOSSIBLE, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, W | U);
	ck_assert_uint_eq(ev.v[0].move, move_make(0, 32, MOVE_NORMAL, KNIGHT));
	referee_possible(r, WHITE, &after);
	ck_assert_int_eq(after.n, before.n);
	ck_assert_int_eq(before.n, 20); /* "White has 0 pawn tries": none of the 14 pawn diagonals */
	/* asked again: still answered, still not a try */
	play(r, "a1a5", &ev);
	expect_types(&ev, EV_IMPOSSIBLE, EV_NONE);
	done(r, &ev);
}
END_TEST

START_TEST(test_icc_silent_castling_promotion)
{
	struct evlist ev;
	struct referee *r = mk("icc", "4k3/8/8/8/8/8/8/4K2R w K - 0 1", &ev);
	play(r, "O-O", &ev);
	expect_types(&ev, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_PAWN_TRIES, EV_NONE);
	ck_assert_uint_eq(ev.v[1].move, MOVE_NONE);
	ck_assert_uint_eq(ev.v[1].audience, B | S);
	ck_assert_int_eq(move_kind(ev.v[0].move), MOVE_CASTLING);
	done(r, &ev);

	r = mk("icc", "8/P7/8/4k3/8/8/8/4K3 w - - 0 1", &ev);
	play(r, "a8=R", &ev);
	expect_types(&ev, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_PAWN_TRIES, EV_NONE);
	ck_assert_int_eq(move_promo(ev.v[0].move), ROOK);
	ck_assert_uint_eq(ev.v[1].move, MOVE_NONE);
	done(r, &ev);
}
END_TEST

struct check_case {
	const char *fen, *move;
	int a, b;
};

static void check_case(const char *rules, const struct check_case *c, const char *said)
{
	struct evlist ev;
	struct referee *r = mk(rules, c->fen, &ev);
	play(r, c->move, &ev);
	const struct event *e = find(&ev, EV_CHECK, AUD_PUBLIC);
	ck_assert_msg(e != NULL, "%s %s: no check", c->fen, c->move);
	ck_assert_int_eq(count_type(&ev, EV_CHECK), 1);
	ck_assert_msg(e->checks[0] == c->a && e->checks[1] == c->b, "%s %s: checks %d %d, want %d %d", c->fen,
	              c->move, e->checks[0], e->checks[1], c->a, c->b);
	ck_assert_int_eq(e->by, WHITE);
	if (said)
		say_is(rules, e, said);
	done(r, &ev);
}

static const struct check_case CHECKS[] = {
	{ "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "Ra8", CHECK_RANK, 0 },
	{ "4k3/8/8/8/8/8/8/R5K1 w - - 0 1", "Re1", CHECK_FILE, 0 },
	{ "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qa4", CHECK_LONG_DIAGONAL, 0 },  /* a4-e8: 5 squares */
	{ "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qh5", CHECK_SHORT_DIAGONAL, 0 }, /* e8-h5: 4 squares */
	{ "4k3/p7/8/8/4N3/8/8/4K3 w - - 0 1", "Nf6", CHECK_KNIGHT, 0 },
	{ "R1N1k3/8/8/8/8/8/8/4K3 w - - 0 1", "Nd6", CHECK_RANK, CHECK_KNIGHT },
	{ "4k3/8/3P4/8/8/8/8/4K3 w - - 0 1", "d7", CHECK_LONG_DIAGONAL, 0 },   /* a pawn gives a diagonal check */
	{ "4k3/8/5P2/8/8/8/8/4K3 w - - 0 1", "f7", CHECK_SHORT_DIAGONAL, 0 },
};

START_TEST(test_icc_checks)
{
	const char *said[] = { "Check along the rank", "Check along the file", "Check along the long diagonal",
		               "Check along the short diagonal", "Check by a knight",
		               "Double check along the rank and by a knight", NULL, NULL };
	for (int i = 0; i < 8; i++)
		check_case("icc", &CHECKS[i], said[i]);
	/* King in the corner: a1-h8 has 8 squares, the other diagonal is a1 alone. */
	struct check_case corner = { "8/8/8/8/8/8/7P/k3K1B1 w - - 0 1", "Bd4", CHECK_LONG_DIAGONAL, 0 };
	check_case("icc", &corner, NULL);
}
END_TEST

/* ---------------------------------------------------------------- english */

START_TEST(test_english)
{
	struct evlist ev;
	struct referee *r = mk("english", "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1", &ev);
	ck_assert_uint_eq(ev.n, 0); /* nothing at the start: pawn captures only on request */
	play(r, "Bd3", &ev);
	expect_types(&ev, EV_ILLEGAL, EV_ILLEGAL, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, W | U);
	ck_assert_uint_ne(ev.v[0].move, MOVE_NONE);
	ck_assert_uint_eq(ev.v[1].audience, B | S);
	ck_assert_uint_eq(ev.v[1].move, MOVE_NONE);
	ck_assert_str_eq(ev.v[1].san, "");
	say_is("english", &ev.v[1], "White tried an illegal move");
	/* Impossible tries are just illegal ones here. */
	play(r, "Ke1e3", &ev);
	expect_types(&ev, EV_ILLEGAL, EV_ILLEGAL, EV_NONE);
	play(r, "Kd2", &ev);
	say_is("english", find(&ev, EV_MOVED, B | S), "White");
	done(r, &ev);

	r = mk("english", "4k3/8/8/3n4/4P3/8/8/3QK3 w - - 0 1", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	expect_types(&ev, EV_ANY, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	ck_assert_int_eq(ev.v[0].answer, ANY_YES);
	say_is("english", &ev.v[0], "Yes");
	play(r, "exd5", &ev);
	const struct event *e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_int_eq(e->square, 35);
	ck_assert_int_eq(e->what, CAPTURED_UNSAID);
	say_is("english", e, "Capture on d5");
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, BLACK, &ev), REF_OK);
	ck_assert_int_eq(ev.v[0].answer, ANY_NO);
	say_is("english", &ev.v[0], "No");
	done(r, &ev);

	struct check_case c = { "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qa4", CHECK_LONG_DIAGONAL, 0 };
	check_case("english", &c, "Long check");
	struct check_case c2 = { "R1N1k3/8/8/8/8/8/8/4K3 w - - 0 1", "Nd6", CHECK_RANK, CHECK_KNIGHT };
	check_case("english", &c2, "Rank check and Knight check");
}
END_TEST

/* ---------------------------------------------------------------- insurance */

START_TEST(test_insurance)
{
	struct evlist ev;
	struct referee *r = mk("insurance", "4k3/4r3/8/2p5/3P4/8/4B3/4K3 w - - 0 1", &ev);
	play(r, "Bd3", &ev);
	expect_types(&ev, EV_ILLEGAL, EV_ILLEGAL, EV_NONE);
	say_is("insurance", &ev.v[1], "You cannot do that");
	say_is("insurance", &ev.v[0], "You cannot do that (Bd3)");
	play(r, "dxc5", &ev);
	say_is("insurance", find(&ev, EV_CAPTURE, AUD_PUBLIC), "White has captured on c5");
	say_is("insurance", find(&ev, EV_MOVED, B | S), "White has moved");
	done(r, &ev);

	/* seed 002 rule 5: "White/Black has moved giving check on the
	 * rank/file/short diagonal/long diagonal/with a knight" */
	struct check_case c = { "4k3/p7/8/8/4N3/8/8/4K3 w - - 0 1", "Nf6", CHECK_KNIGHT, 0 };
	check_case("insurance", &c, "White has moved giving check with a knight");
	struct check_case c2 = { "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qh5", CHECK_SHORT_DIAGONAL, 0 };
	check_case("insurance", &c2, "White has moved giving check on the short diagonal");

	r = mk("insurance", "k7/8/1K6/8/8/8/7Q/8 w - - 0 1", &ev);
	play(r, "Qh8", &ev);
	say_is("insurance", find(&ev, EV_GAME_OVER, AUD_PUBLIC), "White has given checkmate");
	done(r, &ev);
}
END_TEST

/* Seed 002 rule 5, sentence by sentence: each is the `say` of the event
 * that completes it (RULESETS.md, insurance). */
START_TEST(test_insurance_rule5)
{
	static const struct {
		struct check_case c;
		const char *said;
	} cases[] = {
		{ { "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "Ra8", CHECK_RANK, 0 },
		  "White has moved giving check on the rank" },
		{ { "4k3/8/8/8/8/8/8/R5K1 w - - 0 1", "Re1", CHECK_FILE, 0 },
		  "White has moved giving check on the file" },
		{ { "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qa4", CHECK_LONG_DIAGONAL, 0 },
		  "White has moved giving check on the long diagonal" },
		{ { "R1N1k3/8/8/8/8/8/8/4K3 w - - 0 1", "Nd6", CHECK_RANK, CHECK_KNIGHT },
		  "White has moved giving check on the rank and with a knight" },
		{ { "4k2r/8/8/8/8/8/8/4K2R w - - 0 1", "Rxh8", CHECK_RANK, 0 },
		  "White has captured on h8 giving check on the rank" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_case("insurance", &cases[i].c, cases[i].said);

	/* a capture giving check: the capture event has its own sentence, the
	 * check event the whole move's, and carries the capture's square */
	struct evlist ev;
	struct referee *r = mk("insurance", "4k2r/8/8/8/8/8/8/4K2R w - - 0 1", &ev);
	play(r, "Rxh8", &ev);
	say_is("insurance", find(&ev, EV_CAPTURE, AUD_PUBLIC), "White has captured on h8");
	say_is("insurance", find(&ev, EV_MOVED, B | S), "White has moved");
	ck_assert_int_eq(find(&ev, EV_CHECK, AUD_PUBLIC)->square, 63);
	done(r, &ev);
	r = mk("insurance", "3qk3/8/8/8/8/8/8/3RK3 w - - 0 1", &ev);
	play(r, "Rxd8", &ev); /* checks on the rank, and the king takes back: no check */
	say_is("insurance", find(&ev, EV_CHECK, AUD_PUBLIC), "White has captured on d8 giving check on the rank");
	play(r, "Kxd8", &ev);
	say_is("insurance", find(&ev, EV_CAPTURE, AUD_PUBLIC), "Black has captured on d8");
	ck_assert_ptr_null(find(&ev, EV_CHECK, 0));
	done(r, &ev);

	/* a checkmate: "White/Black has given checkmate" */
	r = mk("insurance", "k7/8/1K6/8/8/8/7Q/8 w - - 0 1", &ev);
	play(r, "Qh8", &ev);
	say_is("insurance", find(&ev, EV_GAME_OVER, AUD_PUBLIC), "White has given checkmate");
	done(r, &ev);

	/* "any?": "Try" / "No", heard by both and by spectators */
	r = mk("insurance", NULL, &ev);
	play(r, "e4", &ev);
	play(r, "d5", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	expect_types(&ev, EV_ANY, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	ck_assert_int_eq(ev.v[0].answer, ANY_YES);
	say_is("insurance", &ev.v[0], "Try");
	play(r, "exd5", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, BLACK, &ev), REF_OK);
	expect_types(&ev, EV_ANY, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	ck_assert_int_eq(ev.v[0].answer, ANY_NO);
	say_is("insurance", &ev.v[0], "No");
	done(r, &ev);
}
END_TEST

/* ---------------------------------------------------------------- nost */

START_TEST(test_nost_ep_split)
{
	struct evlist ev;
	struct referee *r = mk("nost", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", &ev);
	expect_types(&ev, EV_PAWN_CAPTURES, EV_NONE);
	ck_assert_int_eq(ev.v[0].answer, 1);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	play(r, "exd6", &ev);
	ck_assert_int_eq(count_type(&ev, EV_CAPTURE), 2);
	const struct event *mine = find(&ev, EV_CAPTURE, W | U), *theirs = find(&ev, EV_CAPTURE, B | S);
	ck_assert_ptr_nonnull(mine);
	ck_assert_ptr_nonnull(theirs);
	ck_assert_int_eq(mine->square, 43);   /* d6: where my pawn landed */
	ck_assert_int_eq(theirs->square, 35); /* d5: where their pawn was removed */
	ck_assert(!mine->en_passant && !theirs->en_passant);
	say_is("nost", theirs, "White captured at d5");
	const struct event *pc = find(&ev, EV_PAWN_CAPTURES, AUD_PUBLIC);
	ck_assert_int_eq(pc->answer, 0);
	ck_assert_int_eq(pc->by, BLACK);
	say_is("nost", pc, "Black has no pawn capture");
	done(r, &ev);
}
END_TEST

/* Who heard an announcement the referee split into two copies
 * (event_heard): the umpire reads the mover's copy and is shown both
 * audiences (rules probe: an english try told to both sides read as the
 * icc try told to the mover alone).  Every other event: its own. */
static unsigned heard_of(const struct evlist *ev, int type)
{
	for (size_t i = 0; i < ev->n; i++)
		if (ev->v[i].type == type && (ev->v[i].audience & U))
			return event_heard(ev, i);
	ck_abort_msg("no umpire's copy of type %d", type);
	return 0;
}

START_TEST(test_heard_across_copies)
{
	struct evlist ev;
	struct referee *r = mk("english", NULL, &ev);
	play(r, "e4", &ev);
	for (size_t i = 0; i < ev.n; i++)   /* nothing split: each its own */
		ck_assert_uint_eq(event_heard(&ev, i), ev.v[i].audience);
	play(r, "d5", &ev);
	play(r, "exf5", &ev);                /* illegal, told to both */
	ck_assert_uint_eq(heard_of(&ev, EV_ILLEGAL), AUD_PUBLIC);
	done(r, &ev);
	r = mk("icc", NULL, &ev);
	play(r, "e4", &ev);
	play(r, "d5", &ev);
	play(r, "exf5", &ev);                /* illegal, told to the mover */
	ck_assert_uint_eq(heard_of(&ev, EV_ILLEGAL), W | U);
	done(r, &ev);
	r = mk("cincinnati", NULL, &ev);
	play(r, "Ra1a3", &ev);               /* nonsense, told to both */
	ck_assert_uint_eq(heard_of(&ev, EV_IMPOSSIBLE), AUD_PUBLIC);
	done(r, &ev);
	r = mk("nost", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", &ev);
	play(r, "exd6", &ev);                /* the split en passant */
	ck_assert_uint_eq(heard_of(&ev, EV_CAPTURE), AUD_PUBLIC);
	/* Regression (a probe: an information leak): each copy of it says
	 * what an ordinary capture says, everyone; Black's copy said
	 * ["black","spectator"], which told Black it was en passant. */
	int copies = 0;
	for (size_t i = 0; i < ev.n; i++)
		if (ev.v[i].type == EV_CAPTURE) {
			copies++;
			ck_assert_uint_ne(ev.v[i].audience, AUD_PUBLIC);
			ck_assert_uint_eq(event_told(&ev, i), AUD_PUBLIC);
		}
	ck_assert_int_eq(copies, 2);
	done(r, &ev);
	/* a refused try's copies say their own: who hears what of a try is
	 * the rule set's (cincinnati: the mover the move, the others that
	 * there was nonsense) */
	r = mk("cincinnati", NULL, &ev);
	play(r, "Ra1a3", &ev);
	for (size_t i = 0; i < ev.n; i++)
		ck_assert_uint_eq(event_told(&ev, i), ev.v[i].audience);
	done(r, &ev);
	/* nost's list: the mover's copies one after another are not copies of one */
	r = mk("nost", NULL, &ev);
	play(r, "e4", &ev);
	play(r, "e5", &ev);
	const char *l1[] = { "e5", "d4" };
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt_list(r, WHITE, l1, 2, &ev), REF_OK);
	for (size_t i = 0; i < ev.n; i++)
		ck_assert_uint_eq(event_heard(&ev, i), ev.v[i].audience);
	done(r, &ev);
}
END_TEST

/* The web page's "Any?" button shows in the rule sets where "any?" is
 * asked, and only there (rules probe: it showed in all ten, and the
 * server refused it in five): client-web/app.js's ASKS_ANY against
 * pawn_info. */
START_TEST(test_web_asks_any)
{
	char path[PATH_MAX];
	char *js = srcfile_read("client-web/app.js", "KRIEG_APP_JS", __FILE__, path, sizeof path);
	ck_assert_msg(js != NULL, "client-web/app.js not found (%s)", path);
	const char *set = strstr(js, "const ASKS_ANY = new Set([");
	ck_assert_ptr_nonnull(set);
	const char *end = strstr(set, "]);");
	ck_assert_ptr_nonnull(end);
	size_t listed = 0;
	for (size_t i = 0; i < ruleset_count(); i++) {
		const struct ruleset *rs = ruleset_at(i);
		char quoted[40];
		snprintf(quoted, sizeof quoted, "'%s'", rs->name);
		const char *at = strstr(set, quoted);
		bool in = at != NULL && at < end;
		ck_assert_msg(in == (rs->pawn_info == PAWN_INFO_ASK), "%s: ASKS_ANY %s it", rs->name,
		              in ? "lists" : "leaves out");
		listed += in;
	}
	size_t quotes = 0;
	for (const char *q = set; q < end; q++)
		quotes += *q == '\'';
	ck_assert_uint_eq(quotes, 2 * listed);   /* nothing else in the set */
	free(js);
}
END_TEST

START_TEST(test_nost_lists_and_counts)
{
	struct evlist ev;
	struct referee *r = mk("nost", NULL, &ev);
	play(r, "e4", &ev);
	play(r, "e5", &ev);
	/* e5 is blocked by an enemy (counted), Ra1a3 impossible on own pieces (not counted). */
	const char *l1[] = { "e5", "Ra1a3" };
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt_list(r, WHITE, l1, 2, &ev), REF_OK);
	expect_types(&ev, EV_ILLEGAL, EV_IMPOSSIBLE, EV_ALL_ILLEGAL, EV_NONE);
	for (size_t i = 0; i < ev.n; i++)
		ck_assert_uint_eq(ev.v[i].audience, W | U);
	ck_assert_int_eq(referee_side_to_move(r), WHITE);
	const char *l2[] = { "e5" };
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt_list(r, WHITE, l2, 1, &ev), REF_E_ALREADY_TRIED);
	const char *l3[] = { "Qh5", "d4", "Nf3" };
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt_list(r, WHITE, l3, 3, &ev), REF_OK);
	expect_types(&ev, EV_ILLEGAL_COUNT, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_PAWN_CAPTURES, EV_NONE);
	ck_assert_int_eq(ev.v[0].count, 1);
	ck_assert_uint_eq(ev.v[0].audience, B | U | S);
	say_is("nost", &ev.v[0], "White tried one illegal move");
	ck_assert_str_eq(ev.v[1].san, "Qh5");
	ck_assert_int_eq(ev.v[4].answer, 0); /* Qh5 was legal: no pawn capture for Black */
	/* Next turn the count starts again. */
	play(r, "Nc6", &ev);
	ck_assert_int_eq(count_type(&ev, EV_ILLEGAL_COUNT), 0);
	done(r, &ev);
}
END_TEST

START_TEST(test_nost_quiet)
{
	struct evlist ev;
	struct referee *r = mk("nost", NULL, &ev);
	const char *q[] = { "Nc3", "Nb1", "Nc3" };
	evlist_clear(&ev);
	ck_assert_int_eq(referee_quiet(r, WHITE, q, 3, &ev), REF_OK);
	ck_assert_ptr_nonnull(find(&ev, EV_MOVE, W));
	ck_assert_int_eq(referee_side_to_move(r), BLACK);
	/* Black's move triggers White's next one at once. */
	play(r, "Nf6", &ev);
	ck_assert_int_eq(count_type(&ev, EV_MOVE), 2);
	ck_assert_int_eq(referee_side_to_move(r), BLACK);
	ck_assert_str_eq(find(&ev, EV_UMPIRE_MOVE, U)->san, "Nf6");
	play(r, "e5", &ev);
	ck_assert_int_eq(count_type(&ev, EV_MOVE), 2);
	ck_assert_int_eq(referee_plies(r), 5);
	ck_assert_int_eq(count_type(&ev, EV_QUIET_ENDED), 0);
	play(r, "d5", &ev); /* the sequence is spent: White is to move */
	ck_assert_int_eq(referee_side_to_move(r), WHITE);
	done(r, &ev);

	/* A pawn capture becoming available stops the sequence. */
	r = mk("nost", NULL, &ev);
	const char *q2[] = { "e4", "Nf3", "Bc4" };
	evlist_clear(&ev);
	ck_assert_int_eq(referee_quiet(r, WHITE, q2, 3, &ev), REF_OK);
	play(r, "d5", &ev);
	const struct event *e = find(&ev, EV_QUIET_ENDED, W | U);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->count, 2);
	ck_assert_int_eq(referee_side_to_move(r), WHITE);
	say_is("nost", e, "White's quiet sequence stopped; 2 moves not played");
	done(r, &ev);

	/* An illegal move in the sequence stops it, and is counted. */
	r = mk("nost", NULL, &ev);
	const char *q3[] = { "e4", "e5", "Nf3" };
	evlist_clear(&ev);
	ck_assert_int_eq(referee_quiet(r, WHITE, q3, 3, &ev), REF_OK);
	play(r, "e5", &ev); /* blocks White's e5 */
	ck_assert_ptr_nonnull(find(&ev, EV_ILLEGAL, W | U));
	ck_assert_int_eq(find(&ev, EV_QUIET_ENDED, W | U)->count, 2);
	ck_assert_int_eq(referee_side_to_move(r), WHITE);
	play(r, "Nf3", &ev);
	ck_assert_int_eq(find(&ev, EV_ILLEGAL_COUNT, 0)->count, 1);
	done(r, &ev);
}
END_TEST

START_TEST(test_nost_check_words)
{
	struct check_case c = { "R1N1k3/8/8/8/8/8/8/4K3 w - - 0 1", "Nd6", CHECK_RANK, CHECK_KNIGHT };
	check_case("nost", &c, "Black is in double check on the rank and from a knight");
	struct check_case c2 = { "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qa4", CHECK_LONG_DIAGONAL, 0 };
	check_case("nost", &c2, "Black is in check on the long diagonal");
}
END_TEST

/* ---------------------------------------------------------------- gollon */

START_TEST(test_gollon)
{
	struct evlist ev;
	struct referee *r = mk("gollon", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", &ev);
	ck_assert_uint_eq(ev.n, 0);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	ck_assert_int_eq(ev.v[0].answer, ANY_TRY);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	say_is("gollon", &ev.v[0], "Try!");
	ck_assert(referee_must_try_capture(r));
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt(r, WHITE, "Kd2", &ev), REF_E_MUST_TRY_CAPTURE);
	play(r, "exd6", &ev);
	const struct event *e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->square, 43); /* the landing square */
	ck_assert(e->en_passant);
	say_is("gollon", e, "White has taken en passant on d6");
	/* Black has no pawns: "Any?" is answered "Impossible", to both. */
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, BLACK, &ev), REF_OK);
	expect_types(&ev, EV_IMPOSSIBLE, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	ck_assert_uint_eq(ev.v[0].move, MOVE_NONE);
	say_is("gollon", &ev.v[0], "Impossible");
	/* An impossible move: "Impossible" to both, the move to the mover only. */
	play(r, "Ke8e6", &ev);
	expect_types(&ev, EV_IMPOSSIBLE, EV_IMPOSSIBLE, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, B | U);
	ck_assert_uint_ne(ev.v[0].move, MOVE_NONE);
	ck_assert_uint_eq(ev.v[1].audience, W | S);
	ck_assert_uint_eq(ev.v[1].move, MOVE_NONE);
	done(r, &ev);

	r = mk("gollon", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	play(r, "exf5", &ev);
	expect_types(&ev, EV_ILLEGAL, EV_ILLEGAL, EV_NONE);
	ck_assert_uint_eq(ev.v[1].audience, B | S);
	done(r, &ev);

	/* "Before attempting a move", read per attempt (RULESETS.md): after a
	 * refused try the question may still come, once a turn. */
	r = mk("gollon", "4k3/8/8/3p4/4P3/8/4p3/4K2R w K - 0 1", &ev);
	evlist_clear(&ev);
	play(r, "O-O", &ev);     /* through f1, which the e2 pawn attacks: refused */
	expect_types(&ev, EV_ILLEGAL, EV_ILLEGAL, EV_NONE);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	ck_assert_int_eq(ev.v[0].answer, ANY_TRY);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_E_ANY_ALREADY);
	done(r, &ev);

	struct check_case a = { "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qa4", CHECK_A1H8_DIAGONAL, 0 };
	check_case("gollon", &a, "Check along the small diagonal");
	struct check_case h = { "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qh5", CHECK_H1A8_DIAGONAL, 0 };
	check_case("gollon", &h, "Check along the large diagonal");
}
END_TEST

/* The card's double check order: rank, file, a1-h8, h1-a8, knight. */
START_TEST(test_gollon_checks)
{
	struct check_case rank = { "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "Ra8", CHECK_RANK, 0 };
	check_case("gollon", &rank, "Check along a rank");
	struct check_case file = { "4k3/8/8/8/8/8/8/R5K1 w - - 0 1", "Re1", CHECK_FILE, 0 };
	check_case("gollon", &file, "Check along a file");
	struct check_case knight = { "4k3/p7/8/8/4N3/8/8/4K3 w - - 0 1", "Nf6", CHECK_KNIGHT, 0 };
	check_case("gollon", &knight, "Check by a knight");
	struct check_case rk = { "R1N1k3/8/8/8/8/8/8/4K3 w - - 0 1", "Nd6", CHECK_RANK, CHECK_KNIGHT };
	check_case("gollon", &rk, "Double check along a rank and by a knight");
	/* Nd7-f6 opens a4-e8 (a1-h8 direction): the diagonal comes before the knight */
	struct check_case dk = { "4k3/3N4/8/8/B7/8/7r/K7 w - - 0 1", "Nf6", CHECK_A1H8_DIAGONAL, CHECK_KNIGHT };
	check_case("gollon", &dk, "Double check along the small diagonal and by a knight");
	/* e5xd6 e.p. opens the e-file and the h1-a8 diagonal b7-e4 at once */
	struct check_case ep = { "4R3/1B1p4/8/4P3/4k3/8/8/7K b - - 0 1", NULL, CHECK_FILE,
	                         CHECK_H1A8_DIAGONAL };
	struct evlist ev;
	struct referee *r = mk("gollon", ep.fen, &ev);
	play(r, "d5", &ev);
	play(r, "exd6", &ev);
	const struct event *e = find(&ev, EV_CHECK, AUD_PUBLIC);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->checks[0], ep.a);
	ck_assert_int_eq(e->checks[1], ep.b);
	say_is("gollon", e, "Double check along a file and along the large diagonal");
	say_is("gollon", find(&ev, EV_CAPTURE, AUD_PUBLIC), "White has taken en passant on d6");
	done(r, &ev);
}
END_TEST

START_TEST(test_gollon_capture_moved)
{
	struct evlist ev;
	struct referee *r = mk("gollon", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", &ev);
	play(r, "exd5", &ev);
	const struct event *e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->square, 35);
	ck_assert(!e->en_passant);
	ck_assert_int_eq(e->what, CAPTURED_UNSAID);
	say_is("gollon", e, "White has captured on d5");
	say_is("gollon", find(&ev, EV_MOVED, B | S), "White has moved");
	play(r, "Kd7", &ev);
	say_is("gollon", find(&ev, EV_MOVED, W | S), "Black has moved");
	done(r, &ev);
}
END_TEST

/*
 * Castling names the king's move from its home square.  Written when it is
 * not possible on the player's own board (no right, or the king is not at
 * home) it is an impossible attempt, whatever the rule set does with those,
 * and the mover hears it as written: "Impossible: O-O".
 */
START_TEST(test_impossible_castling)
{
	struct evlist ev;
	/* gollon, the king on f1: "Impossible" to both */
	struct referee *r = mk("gollon", "4k3/p7/8/8/8/8/8/5K2 w - - 0 1", &ev);
	play(r, "O-O", &ev);
	expect_types(&ev, EV_IMPOSSIBLE, EV_IMPOSSIBLE, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, W | U);
	ck_assert_uint_eq(ev.v[0].move, move_make(4, 6, MOVE_CASTLING, KNIGHT));
	say_is("gollon", &ev.v[0], "Impossible: O-O");
	ck_assert_uint_eq(ev.v[1].audience, B | S);
	ck_assert_uint_eq(ev.v[1].move, MOVE_NONE);
	say_is("gollon", &ev.v[1], "Impossible");
	done(r, &ev);

	/* icc, Black's king on f8: refused to the mover only, not a try */
	r = mk("icc", "5k2/p7/8/8/8/8/P7/4K3 b - - 0 1", &ev);
	play(r, "O-O-O", &ev);
	expect_types(&ev, EV_IMPOSSIBLE, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, B | U);
	ck_assert_uint_eq(ev.v[0].move, move_make(60, 58, MOVE_CASTLING, KNIGHT));
	say_is("icc", &ev.v[0], "Impossible: O-O-O");
	done(r, &ev);

	/* icc, the king at home without the right */
	r = mk("icc", "4k3/8/8/8/8/8/8/4K2R w - - 0 1", &ev);
	play(r, "O-O", &ev);
	expect_types(&ev, EV_IMPOSSIBLE, EV_NONE);
	say_is("icc", &ev.v[0], "Impossible: O-O");
	done(r, &ev);

	/* english: an impossible try is an illegal one, announced to both; not twice */
	r = mk("english", "4k3/p7/8/8/8/8/8/5K2 w - - 0 1", &ev);
	play(r, "O-O", &ev);
	expect_types(&ev, EV_ILLEGAL, EV_ILLEGAL, EV_NONE);
	say_is("english", &ev.v[0], "Illegal: O-O");
	say_is("english", &ev.v[1], "White tried an illegal move");
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt(r, WHITE, "0-0", &ev), REF_E_ALREADY_TRIED);
	play(r, "Kg2", &ev);
	ck_assert_ptr_nonnull(find(&ev, EV_MOVE, W));
	done(r, &ev);
}
END_TEST

/* Every draw the umpire declares, in every rule set's words. */
START_TEST(test_draw_words)
{
	static const struct {
		const char *fen;
		const char *moves[8];
		int reason;
		const char *said, *said_insurance;
	} draws[] = {
		{ "k7/8/8/1Q6/8/8/8/4K3 w - - 0 1", { "Qb6" }, REASON_STALEMATE, "Drawn by stalemate",
		  "The game is drawn (stalemate)" },
		{ NULL, { "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8" }, REASON_REPETITION,
		  "Drawn by threefold repetition", "The game is drawn (threefold repetition)" },
		{ "k7/8/8/8/8/8/8/K6R w - - 99 80", { "Rh2" }, REASON_FIFTY_MOVES, "Drawn by the fifty-move rule",
		  "The game is drawn (the fifty-move rule)" },
		{ "k7/8/8/8/8/8/1r6/K7 w - - 0 1", { "Kxb2" }, REASON_INSUFFICIENT,
		  "Drawn by insufficient material", "The game is drawn (insufficient material)" },
	};
	for (size_t k = 0; k < ruleset_count(); k++) {
		const char *rules = ruleset_at(k)->name;
		for (size_t d = 0; d < sizeof draws / sizeof draws[0]; d++) {
			if (draws[d].reason == REASON_STALEMATE && ruleset_at(k)->stalemate_loses)
				continue; /* rand: test_rand_promotion_stalemate */
			if (draws[d].reason == REASON_INSUFFICIENT && ruleset_at(k)->drops)
				continue; /* the rook goes to White's reserve: test_crazykrieg_material */
			struct evlist ev;
			struct referee *r = mk(rules, draws[d].fen, &ev);
			for (int i = 0; i < 8 && draws[d].moves[i]; i++) {
				ck_assert(!referee_over(r));
				play(r, draws[d].moves[i], &ev);
			}
			const struct event *e = find(&ev, EV_GAME_OVER, AUD_PUBLIC);
			ck_assert_msg(e != NULL, "%s: no draw %zu", rules, d);
			ck_assert_int_eq(e->result, RESULT_DRAW);
			ck_assert_int_eq(e->reason, draws[d].reason);
			say_is(rules, e, strcmp(rules, "insurance") == 0 ? draws[d].said_insurance : draws[d].said);
			done(r, &ev);
		}
	}
}
END_TEST

/* ---------------------------------------------------------------- say */

START_TEST(test_say_never_more)
{
	/* The redacted copy of an illegal try never names the move. */
	struct event e;
	memset(&e, 0, sizeof e);
	e.type = EV_ILLEGAL;
	e.by = WHITE;
	e.audience = B | S;
	e.square = -1;
	for (size_t i = 0; i < ruleset_count(); i++) {
		char buf[160];
		ruleset_say(ruleset_at(i), &e, buf, sizeof buf);
		ck_assert_ptr_null(strstr(buf, "e2"));
		ck_assert(buf[0] != '\0');
	}
	/* A capture without a kind never says pawn or piece. */
	memset(&e, 0, sizeof e);
	e.type = EV_CAPTURE;
	e.by = BLACK;
	e.square = 28;
	for (size_t i = 0; i < ruleset_count(); i++) {
		char buf[160];
		ruleset_say(ruleset_at(i), &e, buf, sizeof buf);
		ck_assert_ptr_nonnull(strstr(buf, "e4"));
		ck_assert_ptr_null(strstr(buf, "awn"));
		ck_assert_ptr_null(strstr(buf, "iece"));
	}
	char tiny[4];
	e.type = EV_MOVED;
	ruleset_say(ruleset_default(), &e, tiny, sizeof tiny);
	ck_assert_uint_eq(strlen(tiny), 3);
}
END_TEST

START_TEST(test_say_every_row)
{
	/* Every row has its wording, and it names each check direction its
	 * check style can announce. */
	static const int dirs[][4] = {
		[CHECK_STYLE_LENGTH] = { CHECK_RANK, CHECK_FILE, CHECK_LONG_DIAGONAL, CHECK_SHORT_DIAGONAL },
		[CHECK_STYLE_GOLLON] = { CHECK_RANK, CHECK_FILE, CHECK_A1H8_DIAGONAL, CHECK_H1A8_DIAGONAL },
	};
	for (size_t i = 0; i < ruleset_count(); i++) {
		const struct ruleset *rs = ruleset_at(i);
		ck_assert_ptr_nonnull(rs->wording);
		struct event e;
		memset(&e, 0, sizeof e);
		e.type = EV_CHECK;
		e.by = WHITE;
		e.square = -1;
		e.checks[1] = CHECK_KNIGHT;
		for (int d = 0; d < 4; d++) {
			char buf[160];
			e.checks[0] = (uint8_t)dirs[rs->checks][d];
			ruleset_say(rs, &e, buf, sizeof buf);
			ck_assert_msg(strstr(buf, "unknown") == NULL, "%s: %s", rs->name, buf);
		}
	}
}
END_TEST

/* ------------------------------------------- kriegspiel.org's rule sets */

/* A refused try of the mover, the expected copies and words. */
static void refused(const char *rules, struct referee *r, const char *text, int type, unsigned other_aud,
                    const char *said_mover, const char *said_other, struct evlist *ev)
{
	int me = referee_side_to_move(r);
	play(r, text, ev);
	ck_assert_uint_eq(ev->n, other_aud ? 2 : 1);
	ck_assert_int_eq(ev->v[0].type, type);
	ck_assert_uint_eq(ev->v[0].audience, aud_of(me) | U);
	ck_assert_uint_ne(ev->v[0].move, MOVE_NONE);
	say_is(rules, &ev->v[0], said_mover);
	if (other_aud) {
		ck_assert_int_eq(ev->v[1].type, type);
		ck_assert_uint_eq(ev->v[1].audience, other_aud);
		ck_assert_uint_eq(ev->v[1].move, MOVE_NONE);
		ck_assert_str_eq(ev->v[1].san, "");
		say_is(rules, &ev->v[1], said_other);
	}
	ck_assert_int_eq(referee_side_to_move(r), me);
}

START_TEST(test_berkeley)
{
	struct evlist ev;
	/* Nothing at the turn start, no "any?". */
	struct referee *r = mk("berkeley", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", &ev);
	ck_assert_uint_eq(ev.n, 0);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_E_UNSUPPORTED);
	ck_assert_uint_eq(ev.n, 0);
	/* Illegal: both hear it; impossible: the mover alone, not a try. */
	refused("berkeley", r, "exf6", EV_ILLEGAL, B | S, "Illegal: exf6", "White tried an illegal move", &ev);
	refused("berkeley", r, "Ke1e3", EV_IMPOSSIBLE, 0, "Impossible: e1e3", NULL, &ev);
	refused("berkeley", r, "Ke1e3", EV_IMPOSSIBLE, 0, "Impossible: e1e3", NULL, &ev);
	/* En passant: an ordinary capture on the taken pawn's square, kind unsaid. */
	play(r, "exd6", &ev);
	expect_types(&ev, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_CAPTURE, EV_NONE);
	const struct event *e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_int_eq(e->square, 35);
	ck_assert(!e->en_passant);
	ck_assert_int_eq(e->what, CAPTURED_UNSAID);
	say_is("berkeley", e, "Capture on d5");
	say_is("berkeley", find(&ev, EV_MOVED, B | S), "White has moved");
	done(r, &ev);

	/* Checks by length; promotion silent. */
	struct check_case c = CHECKS[2];
	check_case("berkeley", &c, "Check on the long diagonal");
	r = mk("berkeley", "8/4P3/k7/8/8/8/8/4K3 w - - 0 1", &ev);
	play(r, "e8=Q", &ev);
	expect_types(&ev, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_NONE);
	done(r, &ev);
}
END_TEST

START_TEST(test_berkeley_any)
{
	struct evlist ev;
	/* b2xa3 goes nowhere, e4xd5 is the capture the yes is about. */
	struct referee *r = mk("berkeley_any", "4k3/8/8/3p4/4P3/8/1P6/4K3 w - - 0 1", &ev);
	ck_assert_uint_eq(ev.n, 0);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	expect_types(&ev, EV_ANY, EV_NONE);
	ck_assert_int_eq(ev.v[0].answer, ANY_YES);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	say_is("berkeley_any", &ev.v[0], "Yes");
	ck_assert(referee_must_try_capture(r));
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_E_ANY_ALREADY);
	ck_assert_int_eq(referee_attempt(r, WHITE, "Kd2", &ev), REF_E_MUST_TRY_CAPTURE);
	/* A refused pawn capture is heard by both and does not free White. */
	refused("berkeley_any", r, "bxa3", EV_ILLEGAL, B | S, "Illegal: bxa3", "White tried an illegal move", &ev);
	ck_assert(referee_must_try_capture(r));
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt(r, WHITE, "b3", &ev), REF_E_MUST_TRY_CAPTURE);
	ck_assert_uint_eq(ev.n, 0);
	struct movelist ml;
	referee_possible(r, WHITE, &ml);
	for (int i = 0; i < ml.n; i++)
		ck_assert_int_ne(move_from(ml.m[i]) & 7, move_to(ml.m[i]) & 7);
	ck_assert_int_eq(ml.n, 3); /* e4xd5, e4xf5, b2xc3 (b2xa3 was refused) */
	refused("berkeley_any", r, "exf5", EV_ILLEGAL, B | S, "Illegal: exf5", "White tried an illegal move", &ev);
	ck_assert(referee_must_try_capture(r));
	play(r, "exd5", &ev);
	say_is("berkeley_any", find(&ev, EV_CAPTURE, AUD_PUBLIC), "Capture on d5");
	ck_assert(!referee_must_try_capture(r));
	done(r, &ev);

	/* "No": every pawn capture is then known impossible, told to the mover alone. */
	r = mk("berkeley_any", "4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	ck_assert_int_eq(ev.v[0].answer, ANY_NO);
	say_is("berkeley_any", &ev.v[0], "No");
	ck_assert(!referee_must_try_capture(r));
	refused("berkeley_any", r, "exd5", EV_IMPOSSIBLE, 0, "Impossible: e4d5", NULL, &ev);
	referee_possible(r, WHITE, &ml);
	for (int i = 0; i < ml.n; i++)
		ck_assert(move_from(ml.m[i]) != 28 || move_to(ml.m[i]) == 36); /* e4: only the push */
	play(r, "Kd2", &ev);
	/* Black was not asked: its pawn captures stay open (and e5 has none). */
	refused("berkeley_any", r, "exd4", EV_ILLEGAL, W | S, "Illegal: exd4", "Black tried an illegal move", &ev);
	done(r, &ev);
}
END_TEST

/* crazykrieg (ks-game test_crazykrieg.py): every announcement kind. */
START_TEST(test_crazykrieg)
{
	struct evlist ev;
	/* Nothing at the turn start; exact captures; the captured man to the reserve. */
	struct referee *r = mk("crazykrieg", "7k/8/8/n2b4/4P3/8/8/R3K3 w - - 0 1", &ev);
	ck_assert_uint_eq(ev.n, 0);
	/* "any?": yes, heard by both; the obligation holds off other tries... */
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	expect_types(&ev, EV_ANY, EV_NONE);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	say_is("crazykrieg", &ev.v[0], "Yes");
	ck_assert_int_eq(referee_attempt(r, WHITE, "Rxa5", &ev), REF_E_MUST_TRY_CAPTURE);
	/* ...until a pawn capture is tried, even a failed one (ks-game
	 * test_crazykrieg_any_yes_requires_one_pawn_try_then_releases_after_failed_try). */
	refused("crazykrieg", r, "exf5", EV_ILLEGAL, B | S, "Illegal: exf5", "White tried an illegal move", &ev);
	ck_assert(!referee_must_try_capture(r));
	/* impossible: "Nonsense", heard by both */
	refused("crazykrieg", r, "Ke1e3", EV_IMPOSSIBLE, B | S, "Nonsense: e1e3", "White tried nonsense", &ev);
	play(r, "Rxa5", &ev);
	const struct event *e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_int_eq(e->what, CAPTURED_KNIGHT);
	ck_assert_int_eq(e->square, 32);
	say_is("crazykrieg", e, "Knight captured on a5");
	ck_assert_int_eq(referee_board(r)->hand[WHITE][KNIGHT], 1);
	play(r, "Kg8", &ev);
	/* A drop: the mover hears the drop, everybody the man, nobody the square;
	 * a knight's check is said as any other. */
	play(r, "N@f6", &ev);
	expect_types(&ev, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_DROP, EV_CHECK, EV_NONE);
	ck_assert_str_eq(ev.v[0].san, "N@f6+");   /* the check is told to the mover too */
	say_is("crazykrieg", &ev.v[0], "White played N@f6+");
	ck_assert_uint_eq(ev.v[3].audience, AUD_PUBLIC);
	ck_assert_int_eq(ev.v[3].what, CAPTURED_KNIGHT);
	ck_assert_uint_eq(ev.v[3].move, MOVE_NONE);
	ck_assert_int_eq(ev.v[3].square, -1);
	say_is("crazykrieg", &ev.v[3], "White dropped a knight");
	say_is("crazykrieg", &ev.v[4], "Check by a knight");
	ck_assert_str_eq(ev.v[2].san, "N@f6+");
	ck_assert_int_eq(referee_board(r)->hand[WHITE][KNIGHT], 0);
	done(r, &ev);

	/* A drop onto a square an enemy man hides is illegal, heard by both
	 * (ks-game ..._drop_on_hidden_occupied_square_is_public_illegal...);
	 * another man onto the same square is the same try. */
	r = mk("crazykrieg", "k7/8/8/8/8/4n3/1K6/8[P] w - - 0 1", &ev);
	refused("crazykrieg", r, "P@e3", EV_ILLEGAL, B | S, "Illegal: P@e3", "White tried an illegal move", &ev);
	ck_assert_int_eq(referee_attempt(r, WHITE, "P@e3", &ev), REF_E_ALREADY_TRIED);
	/* onto an own man: nonsense; a pawn on the last rank, a man not held: no move at all */
	refused("crazykrieg", r, "P@b2", EV_IMPOSSIBLE, B | S, "Nonsense: P@b2", "White tried nonsense", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt(r, WHITE, "P@e8", &ev), REF_E_NO_PIECE);
	ck_assert_str_eq(referee_error(r), "cannot drop a pawn on e8");
	ck_assert_int_eq(referee_attempt(r, WHITE, "N@e4", &ev), REF_E_NO_PIECE);
	ck_assert_str_eq(referee_error(r), "no knight in reserve");
	ck_assert_uint_eq(ev.n, 0);
	done(r, &ev);

	/* A drop that leaves the king in check is illegal; one that interposes is played. */
	r = mk("crazykrieg", "k3r3/8/8/8/8/8/8/4K3[B] w - - 0 1", &ev);
	refused("crazykrieg", r, "B@a2", EV_ILLEGAL, B | S, "Illegal: B@a2", "White tried an illegal move", &ev);
	play(r, "B@e2", &ev);
	ck_assert_ptr_nonnull(find(&ev, EV_DROP, AUD_PUBLIC));
	done(r, &ev);

	/* A promoted man taken is said and kept as the pawn it was (ks-game
	 * test_crazykrieg_capture_of_promoted_pawn_enters_reserve_as_pawn). */
	r = mk("crazykrieg", "3rQ~2k/8/8/8/8/8/8/K7[] b - - 0 1", &ev);
	play(r, "Rxe8", &ev);
	e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_int_eq(e->what, CAPTURED_PAWN);
	say_is("crazykrieg", e, "Pawn captured on e8");
	ck_assert_int_eq(referee_board(r)->hand[BLACK][PAWN], 1);
	ck_assert_int_eq(referee_board(r)->hand[BLACK][QUEEN], 0);
	/* A man in reserve keeps the game alive (..._reserve_material_prevents_insufficient...). */
	ck_assert(!referee_over(r));
	done(r, &ev);
	r = mk("crazykrieg", "7k/8/8/8/8/8/8/K7[] w - - 0 1", &ev);
	ck_assert(referee_over(r));
	ck_assert_int_eq(find(&ev, EV_GAME_OVER, AUD_PUBLIC)->reason, REASON_INSUFFICIENT);
	done(r, &ev);
	/* A lone promoted minor is no dead draw: taken, it is a pawn in the
	 * captor's reserve (rules probe: drawn at once, at the promotion and
	 * from a FEN); the same minor unpromoted is. */
	r = mk("crazykrieg", "4k3/8/8/8/8/8/8/1N~2K3[] w - - 0 1", &ev);
	ck_assert(!referee_over(r));
	done(r, &ev);
	r = mk("crazykrieg", "8/1P2k3/8/8/8/8/8/4K3[] w - - 0 1", &ev);
	play(r, "b8=N", &ev);
	ck_assert(!referee_over(r));
	ck_assert(board_can_mate(referee_board(r), BLACK));
	done(r, &ev);
	r = mk("crazykrieg", "4k3/8/8/8/8/8/8/1N2K3[] w - - 0 1", &ev);
	ck_assert(referee_over(r));
	done(r, &ev);

	/* "No": pawn captures are then nonsense (ks-game removes them from the possible set). */
	r = mk("crazykrieg", "4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1", &ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	say_is("crazykrieg", &ev.v[0], "No");
	refused("crazykrieg", r, "exd5", EV_IMPOSSIBLE, B | S, "Nonsense: e4d5", "White tried nonsense", &ev);
	done(r, &ev);

	/* Reserves belong to crazykrieg alone. */
	char err[160];
	ck_assert_ptr_null(referee_new(ruleset_find("icc"), "7k/8/8/8/8/8/8/K7[N] w - - 0 1", err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "reserve"));
}
END_TEST

/* Both players' views keep both reserves from what they are told alone
 * (captures say the man, drops the man): random crazykrieg games. */
START_TEST(test_crazykrieg_views)
{
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	for (int game = 0; game < 20; game++) {
		struct evlist ev;
		struct referee *r = mk("crazykrieg", NULL, &ev);
		struct view v[2];
		for (int c = 0; c < 2; c++) {
			view_init(&v[c], referee_board(r), c);
			view_set_ruleset(&v[c], ruleset_find("crazykrieg"));
		}
		for (int ply = 0; ply < 160 && !referee_over(r); ply++) {
			struct movelist l;
			movegen_legal(referee_board(r), &l);
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			/* prefer drops when there are any, to exercise them */
			move_t m = l.m[seed % (uint64_t)l.n];
			for (int i = 0; i < l.n && (seed >> 40) % 3 == 0; i++)
				if (move_is_drop(l.m[i]))
					m = l.m[i];
			char text[NOTATION_MAX];
			notation_uci(m, text);
			play(r, text, &ev);
			for (size_t i = 0; i < ev.n; i++)
				for (int c = 0; c < 2; c++)
					view_apply(&v[c], &ev.v[i]);
			for (int c = 0; c < 2; c++) {
				ck_assert(memcmp(v[c].own.hand, referee_board(r)->hand, sizeof v[c].own.hand) == 0);
				ck_assert_uint_eq(v[c].own.occ[c], referee_board(r)->occ[c]);
			}
		}
		done(r, &ev);
	}
}
END_TEST

/* RULESETS.md's complete crazykrieg game, every event in order with its words. */
START_TEST(test_crazykrieg_game)
{
	static const char *const script[] = { "e4", "e5", "Nf3", "Nc6", "Bc4", "Nd4", "any", "Nxe5", "Qg5",
	                                      "Nxf7", "Qxg2", "Rf1", "Qxe4", "Ke1e3", "P@e4", "P@e2", "Nf3" };
	struct evlist ev, all;
	struct referee *r = mk("crazykrieg", NULL, &ev);
	evlist_init(&all);
	for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) {
		evlist_clear(&ev);
		int st = strcmp(script[i], "any") == 0 ? referee_any(r, referee_side_to_move(r), &ev)
		                                        : referee_attempt(r, referee_side_to_move(r), script[i], &ev);
		ck_assert_msg(st == REF_OK, "%s: %s", script[i], referee_error(r));
		for (size_t k = 0; k < ev.n; k++)
			evlist_push(&all, &ev.v[k]);
	}
	char names[2048] = "", says[4096] = "";
	for (size_t k = 0; k < all.n; k++) {
		char say[160];
		ruleset_say(ruleset_find("crazykrieg"), &all.v[k], say, sizeof say);
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? " " : "",
		         event_type_name(all.v[k].type));
		snprintf(says + strlen(says), sizeof says - strlen(says), "%s%s", k ? " | " : "", say);
	}
	ck_assert_str_eq(names, "move moved umpire_move move moved umpire_move move moved umpire_move move moved umpire_mov"
	                 "e move moved umpire_move move moved umpire_move any move moved umpire_move capture move mo"
	                 "ved umpire_move move moved umpire_move capture move moved umpire_move capture move moved u"
	                 "mpire_move move moved umpire_move capture check impossible impossible illegal illegal move"
	                 " moved umpire_move drop move moved umpire_move check game_over");
	ck_assert_str_eq(says, "White played e4 | White has moved | White played e4 | Black played e5 | Black has moved | "
	                 "Black played e5 | White played Nf3 | White has moved | White played Nf3 | Black played Nc6"
	                 " | Black has moved | Black played Nc6 | White played Bc4 | White has moved | White played "
	                 "Bc4 | Black played Nd4 | Black has moved | Black played Nd4 | No | White played Nxe5 | Whi"
	                 "te has moved | White played Nxe5 | Pawn captured on e5 | Black played Qg5 | Black has moved"
	                 " | Black played Qg5 | White played Nxf7 | White has moved | White played Nxf7 | Pawn captur"
	                 "ed on f7 | Black played Qxg2 | Black has moved | Black played Qxg2 | Pawn captured on g2 | "
	                 "White played Rf1 | White has moved | White played Rf1 | Black played Qxe4+ | Black has moved"
	                 " | Black played Qxe4+ | Pawn captured on e4 | Check on the file | Nonsense: e1e3 | White t"
	                 "ried nonsense | Illegal: P@e4 | White tried an illegal move | White played P@e2 | White ha"
	                 "s moved | White played P@e2 | White dropped a pawn | Black played Nf3# | Black has moved | "
	                 "Black played Nf3# | Check by a knight | Checkmate: Black wins");
	ck_assert(referee_over(r));
	ck_assert_int_eq(referee_result(r), RESULT_BLACK);
	evlist_free(&all);
	done(r, &ev);
}
END_TEST

/* english, for contrast: a refused pawn capture frees the asker (seed 001 rule 11). */
START_TEST(test_english_obligation_one_try)
{
	struct evlist ev;
	struct referee *r = mk("english", "4k3/8/8/3p4/4P3/8/1P6/4K3 w - - 0 1", &ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
	ck_assert(referee_must_try_capture(r));
	play(r, "bxa3", &ev);
	ck_assert(!referee_must_try_capture(r));
	play(r, "Kd2", &ev);
	ck_assert_ptr_nonnull(find(&ev, EV_MOVE, W));
	done(r, &ev);
}
END_TEST

START_TEST(test_cincinnati)
{
	struct evlist ev;
	struct referee *r = mk("cincinnati", NULL, &ev);
	expect_types(&ev, EV_PAWN_CAPTURES, EV_NONE);
	ck_assert_int_eq(ev.v[0].answer, 0);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	say_is("cincinnati", &ev.v[0], "White has no pawn capture");
	play(r, "e4", &ev);
	play(r, "d5", &ev);
	const struct event *e = find(&ev, EV_PAWN_CAPTURES, AUD_PUBLIC);
	ck_assert_int_eq(e->answer, 1);
	ck_assert_int_eq(e->by, WHITE);
	say_is("cincinnati", e, "White has a pawn capture");
	/* A yes leaves every pawn capture open: e4xf5 is illegal, heard by both. */
	refused("cincinnati", r, "exf5", EV_ILLEGAL, B | S, "Illegal: exf5", "White tried an illegal move", &ev);
	/* Impossible on own pieces: "nonsense", heard by both. */
	refused("cincinnati", r, "Bf1f3", EV_IMPOSSIBLE, B | S, "Nonsense: f1f3", "White tried nonsense", &ev);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_E_UNSUPPORTED);
	play(r, "exd5", &ev);
	e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_int_eq(e->what, CAPTURED_PAWN);
	say_is("cincinnati", e, "Pawn captured on d5");
	play(r, "Qxd5", &ev);
	/* After "no pawn capture", a pawn capture try is nonsense. */
	e = find(&ev, EV_PAWN_CAPTURES, AUD_PUBLIC);
	ck_assert_int_eq(e->answer, 0);
	refused("cincinnati", r, "dxe3", EV_IMPOSSIBLE, B | S, "Nonsense: d2e3", "White tried nonsense", &ev);
	struct movelist ml;
	referee_possible(r, WHITE, &ml);
	for (int i = 0; i < ml.n; i++)
		ck_assert(!(piece_code_type(referee_board(r)->mailbox[move_from(ml.m[i])]) == PAWN &&
		            (move_from(ml.m[i]) & 7) != (move_to(ml.m[i]) & 7)));
	play(r, "Nc3", &ev);
	play(r, "Qxg2", &ev);
	e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_int_eq(e->what, CAPTURED_PAWN);
	play(r, "Nb5", &ev);
	play(r, "Qxh1", &ev);
	say_is("cincinnati", find(&ev, EV_CAPTURE, AUD_PUBLIC), "Piece captured on h1");
	done(r, &ev);

	/* In check, only a capture that answers it counts (ks-game's test). */
	r = mk("cincinnati", "7k/8/8/8/8/4b3/3P4/r3K3 w - - 0 1", &ev);
	ck_assert_int_eq(find(&ev, EV_PAWN_CAPTURES, 0)->answer, 0);
	done(r, &ev);
}
END_TEST

START_TEST(test_rand_squares)
{
	struct evlist ev;
	/* ks-game's position: e4 can take on f5, c4 has nothing. */
	struct referee *r = mk("rand", "7k/8/8/5r2/2P1P3/8/8/4K3 w - - 0 1", &ev);
	expect_types(&ev, EV_PAWN_SQUARES, EV_NONE);
	ck_assert_uint_eq(ev.v[0].squares, 1ULL << 28);
	ck_assert_uint_eq(ev.v[0].audience, AUD_PUBLIC);
	ck_assert_int_eq(ev.v[0].by, WHITE);
	say_is("rand", &ev.v[0], "White has pawn tries from e4");
	/* A capture from a pawn not named is nonsense, heard by both. */
	refused("rand", r, "cxd5", EV_IMPOSSIBLE, B | S, "Nonsense: c4d5", "White tried nonsense", &ev);
	refused("rand", r, "Ke1e3", EV_IMPOSSIBLE, B | S, "Nonsense: e1e3", "White tried nonsense", &ev);
	/* From a named pawn, a wrong target is an ordinary "No". */
	refused("rand", r, "exd5", EV_ILLEGAL, B | S, "No: exd5", "No", &ev);
	struct movelist ml;
	referee_possible(r, WHITE, &ml);
	for (int i = 0; i < ml.n; i++)
		ck_assert(move_from(ml.m[i]) != 26 || move_to(ml.m[i]) == 34); /* c4: only c5 */
	evlist_clear(&ev);
	ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_E_UNSUPPORTED);
	play(r, "exf5", &ev);
	expect_types(&ev, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_CAPTURE, EV_PAWN_SQUARES, EV_NONE);
	say_is("rand", find(&ev, EV_CAPTURE, AUD_PUBLIC), "Piece gone on f5");
	ck_assert_uint_eq(ev.v[4].squares, 0);
	say_is("rand", &ev.v[4], "Black has no pawn tries");
	done(r, &ev);

	/* En passant: the capturing pawn named, the taken pawn's square said. */
	r = mk("rand", NULL, &ev);
	ck_assert_uint_eq(ev.v[0].squares, 0);
	play(r, "e4", &ev);
	play(r, "h6", &ev);
	play(r, "e5", &ev);
	play(r, "d5", &ev);
	const struct event *e = find(&ev, EV_PAWN_SQUARES, AUD_PUBLIC);
	ck_assert_uint_eq(e->squares, 1ULL << 36);
	play(r, "exd6", &ev);
	e = find(&ev, EV_CAPTURE, AUD_PUBLIC);
	ck_assert_int_eq(e->square, 35);
	ck_assert_int_eq(e->what, CAPTURED_PAWN);
	say_is("rand", e, "Pawn gone on d5");
	e = find(&ev, EV_PAWN_SQUARES, AUD_PUBLIC);
	ck_assert_uint_eq(e->squares, (1ULL << 50) | (1ULL << 52));
	say_is("rand", e, "Black has pawn tries from c7 and e7");
	done(r, &ev);

	/* In check: only captures that answer it. */
	r = mk("rand", "7k/8/8/8/8/3n4/2P5/4K3 w - - 0 1", &ev);
	ck_assert_uint_eq(ev.v[0].squares, 1ULL << 10);
	done(r, &ev);
	r = mk("rand", "7k/8/8/8/8/4b3/3P4/r3K3 w - - 0 1", &ev);
	ck_assert_uint_eq(ev.v[0].squares, 0);
	done(r, &ev);
	/* Three names. */
	r = mk("rand", "7k/8/8/1p1p1p2/P1P1P3/8/8/4K3 w - - 0 1", &ev);
	say_is("rand", &ev.v[0], "White has pawn tries from a4, c4 and e4");
	done(r, &ev);
}
END_TEST

START_TEST(test_rand_promotion_stalemate)
{
	struct evlist ev;
	struct referee *r = mk("rand", "8/7P/8/8/k7/8/8/4K3 w - - 0 1", &ev);
	play(r, "h8=Q", &ev);
	expect_types(&ev, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_PROMOTION, EV_PAWN_SQUARES, EV_NONE);
	ck_assert_uint_eq(ev.v[3].audience, AUD_PUBLIC);
	ck_assert_int_eq(ev.v[3].by, WHITE);
	ck_assert_int_eq(ev.v[3].square, -1);
	ck_assert_uint_eq(ev.v[3].move, MOVE_NONE);
	say_is("rand", &ev.v[3], "White promoted a pawn");
	done(r, &ev);

	/* A capture that promotes: the capture, then the promotion. */
	r = mk("rand", "7k/8/8/8/8/5K2/3p4/2B5 b - - 0 1", &ev);
	ck_assert_uint_eq(ev.v[0].squares, 1ULL << 11);
	play(r, "dxc1=Q", &ev);
	expect_types(&ev, EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE, EV_CAPTURE, EV_PROMOTION, EV_PAWN_SQUARES, EV_NONE);
	ck_assert_int_eq(ev.v[3].what, CAPTURED_PIECE);
	ck_assert_int_eq(ev.v[3].square, 2);
	done(r, &ev);

	/* Stalemate loses: the stalemated side loses (ks-game). */
	r = mk("rand", "7k/5K2/8/6Q1/8/8/8/8 w - - 0 1", &ev);
	play(r, "Qg6", &ev);
	const struct event *e = find(&ev, EV_GAME_OVER, AUD_PUBLIC);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->result, RESULT_WHITE);
	ck_assert_int_eq(e->reason, REASON_STALEMATE);
	ck_assert_int_eq(e->by, BLACK);
	say_is("rand", e, "Stalemate: White wins");
	ck_assert_int_eq(referee_result(r), RESULT_WHITE);
	ck_assert_int_eq(count_type(&ev, EV_PAWN_SQUARES), 0);
	done(r, &ev);
	/* Elsewhere a draw. */
	r = mk("cincinnati", "7k/5K2/8/6Q1/8/8/8/8 w - - 0 1", &ev);
	play(r, "Qg6", &ev);
	ck_assert_int_eq(find(&ev, EV_GAME_OVER, AUD_PUBLIC)->result, RESULT_DRAW);
	done(r, &ev);
}
END_TEST

/*
 * One complete game under each of kriegspiel.org's rule sets: the
 * scholar's mate with the tries each set answers its own way.  Every line
 * is one action; "any" asks.  The events of the whole game are checked in
 * order of type, and the words of the ones the set says differently.
 */
struct game_step {
	const char *action;
	int types[10];   /* the exact types of the events, ended by EV_NONE */
};

static void complete_game(const char *rules, const struct game_step *steps, size_t n, int result)
{
	struct evlist ev;
	struct referee *r = mk(rules, NULL, &ev);
	for (size_t i = 0; i < n; i++) {
		evlist_clear(&ev);
		int me = referee_side_to_move(r);
		int st = strcmp(steps[i].action, "any") == 0 ? referee_any(r, me, &ev)
		         : referee_attempt(r, me, steps[i].action, &ev);
		ck_assert_msg(st == REF_OK, "%s %zu %s: %s", rules, i, steps[i].action, referee_error(r));
		size_t k = 0;
		for (; steps[i].types[k] != EV_NONE; k++) {
			ck_assert_msg(k < ev.n, "%s step %zu (%s): missing %s", rules, i, steps[i].action,
			              event_type_name(steps[i].types[k]));
			ck_assert_msg(ev.v[k].type == steps[i].types[k], "%s step %zu (%s): event %zu is %s, want %s",
			              rules, i, steps[i].action, k, event_type_name(ev.v[k].type),
			              event_type_name(steps[i].types[k]));
		}
		ck_assert_msg(k == ev.n, "%s step %zu (%s): %zu events, want %zu", rules, i, steps[i].action,
		              ev.n, k);
	}
	ck_assert(referee_over(r));
	ck_assert_int_eq(referee_result(r), result);
	ck_assert_int_eq(referee_reason(r), REASON_CHECKMATE);
	done(r, &ev);
}

#define MOVE3 EV_MOVE, EV_MOVED, EV_UMPIRE_MOVE
#define CAP EV_CAPTURE
#define ILL2 EV_ILLEGAL, EV_ILLEGAL

START_TEST(test_complete_games)
{
	/* 1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6 4.Qxf7#, with tries along the way. */
	static const struct game_step berkeley[] = {
		{ "e4", { MOVE3, 0 } },
		{ "e5", { MOVE3, 0 } },
		{ "Qh5", { MOVE3, 0 } },
		{ "Ke8e6", { EV_IMPOSSIBLE, 0 } },         /* impossible: Black alone hears it */
		{ "Nc6", { MOVE3, 0 } },
		{ "Qe8", { ILL2, 0 } },                    /* through f7: illegal, both hear */
		{ "Bc4", { MOVE3, 0 } },
		{ "Nf6", { MOVE3, 0 } },
		{ "Qxf7", { MOVE3, CAP, EV_CHECK, EV_GAME_OVER, 0 } },
	};
	complete_game("berkeley", berkeley, sizeof berkeley / sizeof berkeley[0], RESULT_WHITE);

	static const struct game_step berkeley_any[] = {
		{ "e4", { MOVE3, 0 } },
		{ "any", { EV_ANY, 0 } },                  /* No */
		{ "exd6", { EV_IMPOSSIBLE, 0 } },         /* after a "No": known impossible */
		{ "e5", { MOVE3, 0 } },
		{ "Qh5", { MOVE3, 0 } },
		{ "Nc6", { MOVE3, 0 } },
		{ "Bc4", { MOVE3, 0 } },
		{ "Nf6", { MOVE3, 0 } },
		{ "Qe8", { ILL2, 0 } },
		{ "Qxf7", { MOVE3, CAP, EV_CHECK, EV_GAME_OVER, 0 } },
	};
	complete_game("berkeley_any", berkeley_any, sizeof berkeley_any / sizeof berkeley_any[0], RESULT_WHITE);

	static const struct game_step cincinnati[] = {
		{ "e4", { MOVE3, EV_PAWN_CAPTURES, 0 } },
		{ "Ke8e6", { EV_IMPOSSIBLE, EV_IMPOSSIBLE, 0 } }, /* nonsense, both hear */
		{ "e5", { MOVE3, EV_PAWN_CAPTURES, 0 } },
		{ "Qh5", { MOVE3, EV_PAWN_CAPTURES, 0 } },
		{ "Nc6", { MOVE3, EV_PAWN_CAPTURES, 0 } },
		{ "exd5", { EV_IMPOSSIBLE, EV_IMPOSSIBLE, 0 } },  /* "no pawn capture" was said */
		{ "Bc4", { MOVE3, EV_PAWN_CAPTURES, 0 } },
		{ "Nf6", { MOVE3, EV_PAWN_CAPTURES, 0 } },
		{ "Qe8", { ILL2, 0 } },
		{ "Qxf7", { MOVE3, CAP, EV_CHECK, EV_GAME_OVER, 0 } },
	};
	complete_game("cincinnati", cincinnati, sizeof cincinnati / sizeof cincinnati[0], RESULT_WHITE);

	static const struct game_step rand[] = {
		{ "e4", { MOVE3, EV_PAWN_SQUARES, 0 } },
		{ "e5", { MOVE3, EV_PAWN_SQUARES, 0 } },
		{ "Qh5", { MOVE3, EV_PAWN_SQUARES, 0 } },
		{ "Nc6", { MOVE3, EV_PAWN_SQUARES, 0 } },
		{ "Bc4", { MOVE3, EV_PAWN_SQUARES, 0 } },
		{ "Nf6", { MOVE3, EV_PAWN_SQUARES, 0 } },
		{ "exf5", { EV_IMPOSSIBLE, EV_IMPOSSIBLE, 0 } },  /* e4 was not named */
		{ "Qe8", { ILL2, 0 } },
		{ "Qxf7", { MOVE3, CAP, EV_CHECK, EV_GAME_OVER, 0 } },
	};
	complete_game("rand", rand, sizeof rand / sizeof rand[0], RESULT_WHITE);
}
END_TEST

static Suite *rulesets_suite(void)
{
	Suite *s = suite_create("rulesets");
	TCase *tc = tcase_create("announcements");
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_say_every_row);
	tcase_add_test(tc, test_icc_pawn_tries);
	tcase_add_test(tc, test_icc_captures);
	tcase_add_test(tc, test_icc_illegal_and_impossible);
	tcase_add_test(tc, test_icc_silent_castling_promotion);
	tcase_add_test(tc, test_icc_checks);
	tcase_add_test(tc, test_english);
	tcase_add_test(tc, test_insurance);
	tcase_add_test(tc, test_nost_ep_split);
	tcase_add_test(tc, test_nost_lists_and_counts);
	tcase_add_test(tc, test_nost_quiet);
	tcase_add_test(tc, test_nost_check_words);
	tcase_add_test(tc, test_gollon);
	tcase_add_test(tc, test_gollon_checks);
	tcase_add_test(tc, test_gollon_capture_moved);
	tcase_add_test(tc, test_insurance_rule5);
	tcase_add_test(tc, test_impossible_castling);
	tcase_add_test(tc, test_draw_words);
	tcase_add_test(tc, test_say_never_more);
	tcase_add_test(tc, test_berkeley);
	tcase_add_test(tc, test_berkeley_any);
	tcase_add_test(tc, test_english_obligation_one_try);
	tcase_add_test(tc, test_crazykrieg);
	tcase_add_test(tc, test_crazykrieg_views);
	tcase_add_test(tc, test_crazykrieg_game);
	tcase_add_test(tc, test_cincinnati);
	tcase_add_test(tc, test_rand_squares);
	tcase_add_test(tc, test_rand_promotion_stalemate);
	tcase_add_test(tc, test_complete_games);
	tcase_add_test(tc, test_heard_across_copies);
	tcase_add_test(tc, test_web_asks_any);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(rulesets_suite)
