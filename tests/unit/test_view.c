/*
 * test_view.c — a player's view, built from that player's events alone,
 * must equal the true board restricted to that player's pieces after
 * every event, in random games under every rule set; and every event must
 * have a sane audience (no move text ever reaches the opponent).
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "fen.h"
#include "notation.h"
#include "referee.h"
#include "view.h"

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void assert_sane(const struct event *e, const struct ruleset *rs)
{
	unsigned all = AUD_PUBLIC;
	ck_assert_uint_ne(e->audience, 0);
	ck_assert_uint_eq(e->audience & ~all, 0);
	ck_assert_ptr_nonnull(event_type_name(e->type));
	if (e->move != MOVE_NONE) {
		/* a move (an own move, a refused try) never reaches the other side */
		ck_assert(e->by == WHITE || e->by == BLACK);
		ck_assert_uint_eq(e->audience & (aud_of(!e->by) | AUD_SPECTATOR), 0);
	}
	switch (e->type) {
	case EV_MOVE:
		ck_assert_uint_eq(e->audience, aud_of(e->by));
		ck_assert_uint_ne(e->move, MOVE_NONE);
		break;
	case EV_UMPIRE_MOVE:
		ck_assert_uint_eq(e->audience, AUD_UMPIRE);
		ck_assert_uint_ne(e->move, MOVE_NONE);
		break;
	case EV_MOVED:
		ck_assert_uint_eq(e->audience, aud_of(!e->by) | AUD_SPECTATOR);
		break;
	case EV_ILLEGAL:
		if (rs->illegal != ILLEGAL_BOTH)
			ck_assert_uint_eq(e->audience, aud_of(e->by) | AUD_UMPIRE);
		break;
	case EV_CHECK:
	case EV_PAWN_TRIES:
	case EV_PAWN_CAPTURES:
	case EV_ANY:
	case EV_GAME_OVER:
		ck_assert_uint_eq(e->audience, AUD_PUBLIC);
		break;
	case EV_ILLEGAL_COUNT:
		ck_assert_uint_eq(e->audience & aud_of(e->by), 0);
		break;
	case EV_ALL_ILLEGAL:
	case EV_QUIET_ENDED:
		ck_assert_uint_eq(e->audience, aud_of(e->by) | AUD_UMPIRE);
		break;
	default:
		break;
	}
	if (rs->pawn_info != PAWN_INFO_COUNT)
		ck_assert_int_ne(e->type, EV_PAWN_TRIES);
	if (rs->pawn_info != PAWN_INFO_YESNO)
		ck_assert_int_ne(e->type, EV_PAWN_CAPTURES);
}

static void assert_view_matches(const struct view *v, const struct referee *r)
{
	struct board truth;
	board_own_view(referee_board(r), v->color, &truth);
	for (int t = PAWN; t <= KING; t++)
		ck_assert_msg(v->own.pieces[v->color][t] == truth.pieces[v->color][t],
		              "colour %d piece %d differs at ply %d", v->color, t, referee_plies(r));
	ck_assert_uint_eq(v->own.occ[!v->color], 0);
	ck_assert_uint_eq(v->own.castling, truth.castling);
	ck_assert_int_eq(v->to_move, referee_side_to_move(r));
	ck_assert_int_eq(v->over, referee_over(r));
	/* what the player may still try agrees with the referee (the pawn
	 * captures the turn's pawn information rules out left out by both) */
	struct movelist a, b;
	view_possible(v, &a);
	referee_possible(r, v->color, &b);
	ck_assert_int_eq(a.n, b.n);
	for (int i = 0; i < a.n; i++)
		ck_assert_uint_eq(a.m[i], b.m[i]);
}

static void feed(struct view views[2], const struct evlist *ev, const struct referee *r)
{
	for (size_t i = 0; i < ev->n; i++) {
		assert_sane(&ev->v[i], referee_ruleset(r));
		view_apply(&views[WHITE], &ev->v[i]);
		view_apply(&views[BLACK], &ev->v[i]);
	}
	assert_view_matches(&views[WHITE], r);
	assert_view_matches(&views[BLACK], r);
}

static void uci_of(move_t m, char buf[NOTATION_MAX])
{
	notation_uci(m, buf);
}

static int random_game(const char *rules, const char *fen, uint32_t seed)
{
	char err[160];
	const struct ruleset *rs = ruleset_find(rules);
	struct referee *r = referee_new(rs, fen, err, sizeof err);
	ck_assert_msg(r != NULL, "%s", err);
	struct view views[2];
	view_init(&views[WHITE], referee_board(r), WHITE);
	view_init(&views[BLACK], referee_board(r), BLACK);
	view_set_ruleset(&views[WHITE], rs);
	view_set_ruleset(&views[BLACK], rs);
	struct evlist ev;
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	feed(views, &ev, r);

	int steps = 0;
	for (; steps < 400 && !referee_over(r) && referee_plies(r) < 160; steps++) {
		int side = referee_side_to_move(r);
		struct movelist ml;
		referee_possible(r, side, &ml);
		ck_assert_int_gt(ml.n, 0);
		char t[REFEREE_LIST_MAX][NOTATION_MAX];
		const char *texts[REFEREE_LIST_MAX];
		uint32_t dice = lcg(&seed) % 20;
		int st;
		evlist_clear(&ev);
		if (rs->pawn_info == PAWN_INFO_ASK && dice < 3) {
			st = referee_any(r, side, &ev);
			ck_assert(st == REF_OK || st == REF_E_ANY_ALREADY || st == REF_E_ANY_TOO_EARLY);
		} else if (rs->preference_lists && dice < 7) {
			int n = 1 + (int)(lcg(&seed) % 4), k = 0;
			for (int i = 0; i < n; i++) {
				char tmp[NOTATION_MAX];
				bool dup = false;
				uci_of(ml.m[lcg(&seed) % (uint32_t)ml.n], tmp);
				/* one try per origin and destination (the promotion
				 * piece does not make another try) */
				for (int j = 0; j < k; j++)
					dup = dup || strncmp(t[j], tmp, 4) == 0;
				if (!dup) {
					memcpy(t[k], tmp, sizeof tmp);
					texts[k] = t[k];
					k++;
				}
			}
			st = referee_attempt_list(r, side, texts, (size_t)k, &ev);
			ck_assert_msg(st == REF_OK, "list: %s", referee_error(r));
		} else if (rs->quiet_sequences && dice < 9) {
			int n = 2 + (int)(lcg(&seed) % 3);
			for (int i = 0; i < n; i++) {
				/* later moves are guesses: any possible move of now */
				uci_of(ml.m[lcg(&seed) % (uint32_t)ml.n], t[i]);
				texts[i] = t[i];
			}
			st = referee_quiet(r, side, texts, (size_t)n, &ev);
			ck_assert_msg(st == REF_OK, "quiet: %s", referee_error(r));
		} else {
			uci_of(ml.m[lcg(&seed) % (uint32_t)ml.n], t[0]);
			st = referee_attempt(r, side, t[0], &ev);
			ck_assert_msg(st == REF_OK, "%s: %s", t[0], referee_error(r));
		}
		if (st != REF_OK)
			ck_assert_uint_eq(ev.n, 0);
		feed(views, &ev, r);
	}
	int plies = referee_plies(r);
	evlist_free(&ev);
	referee_free(r);
	return plies;
}

START_TEST(test_random_games_every_ruleset)
{
	static const char *fens[] = {
		NULL,
		/* castling both ways, en passant, promotions close by */
		"r3k2r/pPpp1ppp/8/3Pp3/8/8/PP1P1PpP/R3K2R w KQkq e6 0 1",
		"4k3/1P4P1/8/2pP4/8/8/1p4p1/4K3 w - c6 0 1",
	};
	int total = 0;
	for (size_t k = 0; k < ruleset_count(); k++)
		for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++)
			for (uint32_t seed = 1; seed <= 3; seed++)
				total += random_game(ruleset_at(k)->name, fens[f], seed * 7919u + (uint32_t)(k * 31 + f));
	ck_assert_int_gt(total, 500);
}
END_TEST

START_TEST(test_view_basics)
{
	struct board b;
	board_start(&b);
	struct view v;
	view_init(&v, &b, BLACK);
	ck_assert_int_eq(v.color, BLACK);
	ck_assert_int_eq(v.to_move, WHITE);
	ck_assert_uint_eq(v.own.occ[WHITE], 0);
	ck_assert_uint_eq(v.own.occ[BLACK], 0xffff000000000000ULL);
	struct movelist ml;
	view_possible(&v, &ml);
	ck_assert_int_eq(ml.n, 0); /* not Black's turn */

	/* An event for another audience changes nothing. */
	struct event e;
	memset(&e, 0, sizeof e);
	e.type = EV_CAPTURE;
	e.by = WHITE;
	e.square = 52; /* e7 */
	e.audience = AUD_WHITE | AUD_UMPIRE;
	view_apply(&v, &e);
	ck_assert(v.own.mailbox[52] != MAILBOX_EMPTY);
	e.audience = AUD_PUBLIC;
	view_apply(&v, &e);
	ck_assert(v.own.mailbox[52] == MAILBOX_EMPTY);

	/* A capture on the h8 rook drops the king-side right. */
	ck_assert(v.own.castling & CASTLE_BK);
	e.square = 63;
	view_apply(&v, &e);
	ck_assert(!(v.own.castling & CASTLE_BK));
	ck_assert(v.own.castling & CASTLE_BQ);

	/* gollon's en passant names the landing square: our pawn stood behind it. */
	char err[80];
	ck_assert_int_eq(fen_parse("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", &b, err, sizeof err), 0);
	view_init(&v, &b, BLACK);
	ck_assert(v.own.mailbox[35] != MAILBOX_EMPTY);
	e.square = 43; /* d6 */
	e.en_passant = true;
	view_apply(&v, &e);
	ck_assert(v.own.mailbox[35] == MAILBOX_EMPTY);
	ck_assert_uint_eq(v.own.occ[BLACK], 1ULL << 60);
}
END_TEST

/* A refused promotion closes the square to every promotion piece, in the
 * view as in the referee. */
START_TEST(test_view_refused_promotion)
{
	char err[160];
	struct referee *r = referee_new(ruleset_find("english"), "4k3/4P3/8/8/8/8/8/4K2r w - - 0 1", err,
	                                sizeof err);
	ck_assert_ptr_nonnull(r);
	struct view views[2];
	view_init(&views[WHITE], referee_board(r), WHITE);
	view_init(&views[BLACK], referee_board(r), BLACK);
	struct evlist ev;
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	feed(views, &ev, r);
	evlist_clear(&ev);
	ck_assert_int_eq(referee_attempt(r, WHITE, "exd8=Q", &ev), REF_OK);
	ck_assert_int_eq(ev.v[0].type, EV_ILLEGAL);
	feed(views, &ev, r); /* view_possible == referee_possible */
	struct movelist ml;
	view_possible(&views[WHITE], &ml);
	int e7f8 = 0;
	for (int i = 0; i < ml.n; i++) {
		ck_assert_msg(!(move_from(ml.m[i]) == 52 && move_to(ml.m[i]) == 59), "e7d8 still offered");
		e7f8 += move_from(ml.m[i]) == 52 && move_to(ml.m[i]) == 61;
	}
	ck_assert_int_eq(e7f8, 4);
	evlist_free(&ev);
	referee_free(r);
}
END_TEST

/*
 * The pawn information of a turn, heard by the player to move, leaves out
 * of view_possible the pawn captures it rules out, in every rule set
 * that says anything about pawn captures: where it binds (the referee
 * calls such a try impossible) and where it does not (the try would be
 * refused as illegal: it cannot succeed).  The pawn on e4 has two
 * diagonals on its own board (d5, f5) and nothing to take on either.
 */
#define LONE_PAWN "4k3/8/8/8/4P3/8/8/4K3 w - - 0 1"

static bool has_try(const struct movelist *ml, int from, int to)
{
	for (int i = 0; i < ml->n; i++)
		if (move_from(ml->m[i]) == from && move_to(ml->m[i]) == to)
			return true;
	return false;
}

struct game {
	struct referee *r;
	struct view v[2];
	struct evlist ev;
};

static void game_start(struct game *g, const char *rules, const char *fen)
{
	char err[160];
	const struct ruleset *rs = ruleset_find(rules);
	ck_assert_ptr_nonnull(rs);
	g->r = referee_new(rs, fen, err, sizeof err);
	ck_assert_msg(g->r != NULL, "%s", err);
	for (int c = WHITE; c <= BLACK; c++) {
		view_init(&g->v[c], referee_board(g->r), c);
		view_set_ruleset(&g->v[c], rs);
	}
	evlist_init(&g->ev);
	ck_assert_int_eq(referee_begin(g->r, &g->ev), REF_OK);
	feed(g->v, &g->ev, g->r);
}

/* One attempt by color, fed to both views: the type of the first event it brought. */
static int game_try(struct game *g, int color, const char *text)
{
	evlist_clear(&g->ev);
	ck_assert_msg(referee_attempt(g->r, color, text, &g->ev) == REF_OK, "%s: %s", text, referee_error(g->r));
	ck_assert_uint_gt(g->ev.n, 0);
	feed(g->v, &g->ev, g->r);
	return g->ev.v[0].type;
}

static int game_any(struct game *g, int color)
{
	evlist_clear(&g->ev);
	ck_assert_int_eq(referee_any(g->r, color, &g->ev), REF_OK);
	ck_assert_uint_eq(g->ev.n, 1);
	feed(g->v, &g->ev, g->r);
	return g->ev.v[0].type == EV_ANY ? g->ev.v[0].answer : -1;
}

static void game_end(struct game *g)
{
	evlist_free(&g->ev);
	referee_free(g->r);
}

/* White's possible tries: no capture from e4, but the pawn's push and the king's step up. */
static void assert_no_pawn_captures(const struct game *g, const char *what)
{
	struct movelist ml;
	view_possible(&g->v[WHITE], &ml);
	ck_assert_msg(!has_try(&ml, 28, 35), "%s: e4xd5 still possible", what);
	ck_assert_msg(!has_try(&ml, 28, 37), "%s: e4xf5 still possible", what);
	ck_assert_msg(has_try(&ml, 28, 36), "%s: e4-e5 gone", what);
	int k = board_king(&g->v[WHITE].own, WHITE);
	ck_assert_msg(has_try(&ml, k, k + 8), "%s: the king's step up gone", what);
}

static void assert_pawn_captures(const struct game *g, const char *what)
{
	struct movelist ml;
	view_possible(&g->v[WHITE], &ml);
	ck_assert_msg(has_try(&ml, 28, 35) && has_try(&ml, 28, 37), "%s: e4's captures missing", what);
}

/* icc (seed 003): "White has 0 pawn tries" as the turn begins. */
START_TEST(test_view_icc_zero_pawn_tries)
{
	struct game g;
	game_start(&g, "icc", LONE_PAWN);
	ck_assert_int_eq(g.ev.v[0].type, EV_PAWN_TRIES);
	ck_assert_int_eq(g.ev.v[0].count, 0);
	assert_no_pawn_captures(&g, "icc, 0 pawn tries");
	/* and again at the next turn's "0 pawn tries" */
	ck_assert_int_eq(game_try(&g, WHITE, "e1f2"), EV_MOVE);
	ck_assert_int_eq(game_try(&g, BLACK, "e8d8"), EV_MOVE);
	assert_no_pawn_captures(&g, "icc, 0 pawn tries next turn");
	game_end(&g);

	/* one pawn try: both diagonals stay open (which one is not said) and,
	 * once one is refused, the other */
	game_start(&g, "icc", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
	ck_assert_int_eq(g.ev.v[0].count, 1);
	assert_pawn_captures(&g, "icc, 1 pawn try");
	ck_assert_int_eq(game_try(&g, WHITE, "e4f5"), EV_ILLEGAL);
	struct movelist ml;
	view_possible(&g.v[WHITE], &ml);
	ck_assert(has_try(&ml, 28, 35));
	ck_assert(!has_try(&ml, 28, 37));
	game_end(&g);
}
END_TEST

/* english (seed 001 rule 11): "Any?" answered "No". */
START_TEST(test_view_english_any_no)
{
	struct game g;
	game_start(&g, "english", LONE_PAWN);
	assert_pawn_captures(&g, "english, not asked");
	ck_assert_int_eq(game_any(&g, WHITE), ANY_NO);
	assert_no_pawn_captures(&g, "english, any? no");
	/* the answer holds for its turn only */
	ck_assert_int_eq(game_try(&g, WHITE, "e1f2"), EV_MOVE);
	ck_assert_int_eq(game_try(&g, BLACK, "e8d8"), EV_MOVE);
	assert_pawn_captures(&g, "english, the next turn");
	game_end(&g);
}
END_TEST

/* insurance: "any?" after the first move, answered "No". */
START_TEST(test_view_insurance_any_no)
{
	struct game g;
	game_start(&g, "insurance", LONE_PAWN);
	ck_assert_int_eq(game_try(&g, WHITE, "e1f2"), EV_MOVE);
	ck_assert_int_eq(game_try(&g, BLACK, "e8d8"), EV_MOVE);
	assert_pawn_captures(&g, "insurance, not asked");
	ck_assert_int_eq(game_any(&g, WHITE), ANY_NO);
	struct movelist ml;
	view_possible(&g.v[WHITE], &ml);
	ck_assert(!has_try(&ml, 28, 35) && !has_try(&ml, 28, 37));
	ck_assert(has_try(&ml, 28, 36) && has_try(&ml, 13, 21)); /* e4-e5, Kf2-f3 */
	game_end(&g);
}
END_TEST

/* gollon: "Any?" answered "No" (a yes would be "Try!"). */
START_TEST(test_view_gollon_any_no)
{
	struct game g;
	game_start(&g, "gollon", LONE_PAWN);
	ck_assert_int_eq(game_any(&g, WHITE), ANY_NO);
	assert_no_pawn_captures(&g, "gollon, any? no");
	game_end(&g);
}
END_TEST

/* nost (seed 000): "White has no pawn capture" as the turn begins; a yes leaves both. */
START_TEST(test_view_nost_no_pawn_capture)
{
	struct game g;
	game_start(&g, "nost", LONE_PAWN);
	ck_assert_int_eq(g.ev.v[0].type, EV_PAWN_CAPTURES);
	ck_assert_int_eq(g.ev.v[0].answer, 0);
	assert_no_pawn_captures(&g, "nost, no pawn capture");
	game_end(&g);
	game_start(&g, "nost", "4k3/8/8/5p2/4P3/8/8/4K3 w - - 0 1");
	ck_assert_int_eq(g.ev.v[0].answer, 1);
	assert_pawn_captures(&g, "nost, a pawn capture");
	game_end(&g);
}
END_TEST

/* The rule sets whose pawn information binds did so already: kept so. */
START_TEST(test_view_binding_no_pawn_capture)
{
	static const char *const ask[] = { "berkeley_any", "crazykrieg" };
	static const char *const told[] = { "cincinnati", "rand" };
	struct game g;
	for (size_t k = 0; k < 2; k++) {
		game_start(&g, ask[k], LONE_PAWN);
		ck_assert_int_eq(game_any(&g, WHITE), ANY_NO);
		assert_no_pawn_captures(&g, ask[k]);
		game_end(&g);
		game_start(&g, told[k], LONE_PAWN);
		assert_no_pawn_captures(&g, told[k]);
		game_end(&g);
	}
	/* berkeley says nothing of pawn captures: both stay */
	game_start(&g, "berkeley", LONE_PAWN);
	assert_pawn_captures(&g, "berkeley");
	game_end(&g);
	/* a view without its rule set: a "No" still rules the captures out */
	struct board b;
	char err[80];
	ck_assert_int_eq(fen_parse(LONE_PAWN, &b, err, sizeof err), 0);
	struct view v;
	view_init(&v, &b, WHITE);
	struct event e;
	memset(&e, 0, sizeof e);
	e.type = EV_ANY;
	e.by = WHITE;
	e.answer = ANY_NO;
	e.audience = AUD_PUBLIC;
	e.move = MOVE_NONE;
	view_apply(&v, &e);
	struct movelist ml;
	view_possible(&v, &ml);
	ck_assert(!has_try(&ml, 28, 35) && !has_try(&ml, 28, 37) && has_try(&ml, 28, 36));
}
END_TEST

static Suite *view_suite(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_view_basics);
	tcase_add_test(tc, test_random_games_every_ruleset);
	tcase_add_test(tc, test_view_refused_promotion);
	tcase_add_test(tc, test_view_icc_zero_pawn_tries);
	tcase_add_test(tc, test_view_english_any_no);
	tcase_add_test(tc, test_view_insurance_any_no);
	tcase_add_test(tc, test_view_gollon_any_no);
	tcase_add_test(tc, test_view_nost_no_pawn_capture);
	tcase_add_test(tc, test_view_binding_no_pawn_capture);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(view_suite)
