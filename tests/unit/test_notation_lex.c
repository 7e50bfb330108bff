/*
 * test_notation_lex.c — the one move grammar (notation_lex), its two board
 * resolvers beyond notation_parse (the umpire's raw attempts, the PGN
 * reader's legal-move resolution) and the shared piece letters.
 *
 * The referee cases pin down that every spelling the grammar accepts is
 * answered the same way: before the grammar was shared the referee re-read
 * "Ra1a5"-style attempts with its own parser, and "o-o", " Ra1a5" or
 * "Pe2e5" got a notation error where "O-O", "Ra1a5" and "e2e5" got an
 * "impossible" answer, while "a7a8=" was played although notation_parse
 * calls it no move.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "fen.h"
#include "movegen.h"
#include "notation.h"
#include "referee.h"

static struct board load(const char *fen)
{
	struct board b;
	char err[128];
	ck_assert_msg(fen_parse(fen, &b, err, sizeof err) == 0, "%s: %s", fen, err);
	return b;
}

/* ------------------------------------------------------------------ */
/* piece letters                                                       */

START_TEST(test_piece_letters)
{
	const char *up = "PNBRQK", *low = "pnbrqk";
	for (int t = PAWN; t <= KING; t++) {
		ck_assert_int_eq(piece_letter(t), up[t]);
		ck_assert_int_eq(piece_from_letter(up[t]), t);
		ck_assert_int_eq(piece_from_letter(low[t]), t);
	}
	ck_assert_int_eq(piece_letter(PIECE_NONE), '?');
	ck_assert_int_eq(piece_letter(-1), '?');
	const char *bad = "AaXxZz09=-+ \t";
	for (const char *c = bad; *c; c++)
		ck_assert_int_eq(piece_from_letter(*c), PIECE_NONE);
	ck_assert_int_eq(piece_from_letter('\0'), PIECE_NONE);
	ck_assert_int_eq(piece_from_letter((char)0xd0), PIECE_NONE);
}
END_TEST

/* ------------------------------------------------------------------ */
/* the lexer                                                           */

static const struct {
	const char *text;
	enum notation_castle castle;
	int piece, from_file, from_rank;
	const char *from, *to; /* square names, NULL for none */
	int promo;
	bool capture;
} LEX[] = {
	{ "e4", NOTATION_CASTLE_NONE, PIECE_NONE, -1, -1, NULL, "e4", PIECE_NONE, false },
	{ "Pe4", NOTATION_CASTLE_NONE, PAWN, -1, -1, NULL, "e4", PIECE_NONE, false },
	{ "Nf3", NOTATION_CASTLE_NONE, KNIGHT, -1, -1, NULL, "f3", PIECE_NONE, false },
	{ "Nxf3+", NOTATION_CASTLE_NONE, KNIGHT, -1, -1, NULL, "f3", PIECE_NONE, true },
	{ "exd5", NOTATION_CASTLE_NONE, PIECE_NONE, 4, -1, NULL, "d5", PIECE_NONE, true },
	{ "e5:d6 e.p.", NOTATION_CASTLE_NONE, PIECE_NONE, 4, 4, "e5", "d6", PIECE_NONE, true },
	{ "exd6ep", NOTATION_CASTLE_NONE, PIECE_NONE, 4, -1, NULL, "d6", PIECE_NONE, true },
	{ "xd5", NOTATION_CASTLE_NONE, PIECE_NONE, -1, -1, NULL, "d5", PIECE_NONE, true },
	{ "R1e2", NOTATION_CASTLE_NONE, ROOK, -1, 0, NULL, "e2", PIECE_NONE, false },
	{ "Nbd7", NOTATION_CASTLE_NONE, KNIGHT, 1, -1, NULL, "d7", PIECE_NONE, false },
	{ "Ng1-f3", NOTATION_CASTLE_NONE, KNIGHT, 6, 0, "g1", "f3", PIECE_NONE, false },
	{ " Ra1a5 ", NOTATION_CASTLE_NONE, ROOK, 0, 0, "a1", "a5", PIECE_NONE, false },
	{ "e7e8q", NOTATION_CASTLE_NONE, PIECE_NONE, 4, 6, "e7", "e8", QUEEN, false },
	{ "e7e8b", NOTATION_CASTLE_NONE, PIECE_NONE, 4, 6, "e7", "e8", BISHOP, false },
	{ "exd8=N#", NOTATION_CASTLE_NONE, PIECE_NONE, 4, -1, NULL, "d8", KNIGHT, true },
	{ "d1=r", NOTATION_CASTLE_NONE, PIECE_NONE, -1, -1, NULL, "d1", ROOK, false },
	{ "O-O", NOTATION_CASTLE_SHORT, PIECE_NONE, -1, -1, NULL, NULL, PIECE_NONE, false },
	{ "0-0!?", NOTATION_CASTLE_SHORT, PIECE_NONE, -1, -1, NULL, NULL, PIECE_NONE, false },
	{ "o-o", NOTATION_CASTLE_SHORT, PIECE_NONE, -1, -1, NULL, NULL, PIECE_NONE, false },
	{ "O-O-O+", NOTATION_CASTLE_LONG, PIECE_NONE, -1, -1, NULL, NULL, PIECE_NONE, false },
	{ "0-0-0", NOTATION_CASTLE_LONG, PIECE_NONE, -1, -1, NULL, NULL, PIECE_NONE, false },
};

static int sq_or_none(const char *name)
{
	return name ? square_parse(name) : SQ_NONE;
}

START_TEST(test_lex_parts)
{
	struct notation_parts p;
	char err[64] = "x";
	enum notation_status st = notation_lex(LEX[_i].text, &p, err, sizeof err);
	ck_assert_msg(st == NOTATION_OK, "\"%s\": %d %s", LEX[_i].text, st, err);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(p.castle, LEX[_i].castle);
	if (LEX[_i].castle != NOTATION_CASTLE_NONE)
		return;
	ck_assert_int_eq(p.piece, LEX[_i].piece);
	ck_assert_int_eq(p.from_file, LEX[_i].from_file);
	ck_assert_int_eq(p.from_rank, LEX[_i].from_rank);
	ck_assert_int_eq(p.from, sq_or_none(LEX[_i].from));
	ck_assert_int_eq(p.to, sq_or_none(LEX[_i].to));
	ck_assert_int_eq(p.promo, LEX[_i].promo);
	ck_assert_int_eq(p.capture, LEX[_i].capture);
}
END_TEST

static const struct {
	const char *text;
	const char *msg;
} LEX_BAD[] = {
	{ "", "empty" },
	{ " +! ", "empty" },
	{ "e2e4e2e4e2e4e2e4e2e4e2e4e2e4e2e4e", "too long" },
	{ "a7a8=", "not a move" },
	{ "e8=K", "not a move" },
	{ "e8=P", "not a move" },
	{ "nf3", "not a move" },
	{ "e2--e4", "not a move" },
	{ "e-2e4", "not a move" },
	{ "N1ge2", "not a move" },
	{ "O-O-O-O", "not a move" },
	{ "e2\te4", "not a move" },
	{ "e4\n", "not a move" },
};

START_TEST(test_lex_rejects)
{
	struct notation_parts p;
	memset(&p, 0x5a, sizeof p);
	struct notation_parts before = p;
	char err[64] = "";
	ck_assert_int_eq(notation_lex(LEX_BAD[_i].text, &p, err, sizeof err), NOTATION_SYNTAX);
	ck_assert_msg(strstr(err, LEX_BAD[_i].msg) != NULL, "\"%s\": \"%s\"", LEX_BAD[_i].text, err);
	ck_assert(memcmp(&p, &before, sizeof p) == 0); /* *out untouched on error */
	/* err is optional */
	ck_assert_int_eq(notation_lex(LEX_BAD[_i].text, &p, NULL, 0), NOTATION_SYNTAX);
	ck_assert_int_eq(notation_lex(NULL, &p, NULL, 0), NOTATION_SYNTAX);
}
END_TEST

/* notation_parse is the lexer followed by notation_resolve: same answers. */
START_TEST(test_parse_is_lex_then_resolve)
{
	static const char *const texts[] = { "e4", "Nf3", "Nf4", "e2e5", "O-O", "Ke1g1", "hello",
		                             "e3e4", "Ne2e4", "e4=Q", "d2d4+", "" };
	struct board b = load(FEN_START), own;
	board_own_view(&b, WHITE, &own);
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct notation_parts p;
		move_t m1 = MOVE_NONE, m2 = MOVE_NONE;
		char e1[96] = "", e2[96] = "";
		enum notation_status s1 = notation_parse(&own, WHITE, texts[i], &m1, e1, sizeof e1);
		enum notation_status s2 = notation_lex(texts[i], &p, e2, sizeof e2);
		if (s2 == NOTATION_OK)
			s2 = notation_resolve(&own, WHITE, &p, &m2, e2, sizeof e2);
		ck_assert_msg(s1 == s2, "%s: %d vs %d", texts[i], s1, s2);
		ck_assert_uint_eq(m1, m2);
		ck_assert_str_eq(e1, e2);
	}
}
END_TEST

/* Parts filled in by hand are checked, not trusted. */
START_TEST(test_resolve_checks_parts)
{
	struct board b = load(FEN_START), own;
	board_own_view(&b, WHITE, &own);
	struct notation_parts p;
	ck_assert_int_eq(notation_lex("e4", &p, NULL, 0), NOTATION_OK);
	move_t m = MOVE_NONE;
	struct notation_parts bad = p;
	bad.to = 64;
	ck_assert_int_eq(notation_resolve(&own, WHITE, &bad, &m, NULL, 0), NOTATION_SYNTAX);
	ck_assert_int_eq(notation_resolve_legal(&b, &bad, &m), NOTATION_SYNTAX);
	bad = p;
	bad.piece = 9;
	ck_assert_int_eq(notation_resolve(&own, WHITE, &bad, &m, NULL, 0), NOTATION_SYNTAX);
	bad = p;
	bad.from_file = 4; /* from must agree with file and rank */
	bad.from_rank = 1;
	ck_assert_int_eq(notation_resolve_legal(&b, &bad, &m), NOTATION_SYNTAX);
	bad.from = 12;
	ck_assert_int_eq(notation_resolve_legal(&b, &bad, &m), NOTATION_OK);
	ck_assert_uint_eq(m, move_make(12, 28, MOVE_NORMAL, KNIGHT));
	ck_assert_int_eq(notation_resolve(&own, 5, &p, &m, NULL, 0), NOTATION_SYNTAX);
}
END_TEST

/* ------------------------------------------------------------------ */
/* resolving on the true board (PGN)                                   */

static const struct {
	const char *fen;
	const char *text;
	enum notation_status st;
	const char *want; /* coordinates */
} LEGAL[] = {
	{ FEN_START, "e4", NOTATION_OK, "e2e4" },
	{ FEN_START, "Pe4", NOTATION_OK, "e2e4" },
	{ FEN_START, "Ng1f3", NOTATION_OK, "g1f3" },
	{ FEN_START, "e5", NOTATION_NO_PIECE, NULL },
	{ FEN_START, "exd3", NOTATION_NO_PIECE, NULL }, /* no capture on the true board */
	/* lenient: a pawn capture without its file */
	{ "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "xd5", NOTATION_OK, "e4d5" },
	{ "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "d5", NOTATION_OK, "e4d5" },
	{ "4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1", "xd5", NOTATION_AMBIGUOUS, NULL },
	{ "4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1", "cxd5", NOTATION_OK, "c4d5" },
	/* promotions: the piece in either case, queen when left out */
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "exd8", NOTATION_OK, "e7d8q" },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "exd8=N", NOTATION_OK, "e7d8n" },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "exd8=n", NOTATION_OK, "e7d8n" },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "e8R", NOTATION_NO_PIECE, NULL }, /* blocked */
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "Ke2=Q", NOTATION_NO_PIECE, NULL },
	/* castling: O-O only, a king move never castles */
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O", NOTATION_OK, "e1g1" },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "0-0-0", NOTATION_OK, "e1c1" },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "Kg1", NOTATION_NO_PIECE, NULL },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "Ke1g1", NOTATION_NO_PIECE, NULL },
	{ "r3k2r/8/8/8/8/8/8/R3K2R b - - 0 1", "O-O", NOTATION_NO_PIECE, NULL },
	/* disambiguation on the legal moves only: a pinned knight does not count */
	{ "4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1", "Nc3", NOTATION_OK, "b1c3" },
	{ "4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1", "Nbc3", NOTATION_OK, "b1c3" },
	{ "4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1", "Nec3", NOTATION_NO_PIECE, NULL },
	{ "4k3/8/8/8/8/8/4N3/1N2K3 w - - 0 1", "Nc3", NOTATION_AMBIGUOUS, NULL },
};

START_TEST(test_resolve_legal)
{
	struct board b = load(LEGAL[_i].fen);
	struct notation_parts p;
	ck_assert_int_eq(notation_lex(LEGAL[_i].text, &p, NULL, 0), NOTATION_OK);
	move_t m = 0x1234;
	enum notation_status st = notation_resolve_legal(&b, &p, &m);
	ck_assert_msg(st == LEGAL[_i].st, "\"%s\": %d", LEGAL[_i].text, st);
	if (!LEGAL[_i].want) {
		ck_assert_uint_eq(m, 0x1234);
		return;
	}
	char got[NOTATION_MAX];
	notation_uci(m, got);
	ck_assert_str_eq(got, LEGAL[_i].want);
	ck_assert(movegen_is_legal(&b, m));
}
END_TEST

/* ------------------------------------------------------------------ */
/* the referee reads every accepted spelling alike                     */

static struct referee *mk(const char *fen, struct evlist *ev)
{
	char err[160];
	struct referee *r = referee_new(ruleset_find("icc"), fen, err, sizeof err);
	ck_assert_msg(r != NULL, "%s", err);
	evlist_init(ev);
	ck_assert_int_eq(referee_begin(r, ev), REF_OK);
	return r;
}

/* The status of one attempt by the side to move, and its first event. */
static int attempt(const char *fen, const char *text, struct event *first)
{
	struct evlist ev;
	struct referee *r = mk(fen, &ev);
	evlist_clear(&ev);
	int st = referee_attempt(r, referee_side_to_move(r), text, &ev);
	memset(first, 0, sizeof *first);
	if (ev.n > 0)
		*first = ev.v[0];
	referee_free(r);
	evlist_free(&ev);
	return st;
}

static const struct {
	const char *fen;
	const char *a, *b; /* two spellings of one attempt */
} SAME[] = {
	/* castling without the right: "impossible" however it is written */
	{ "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", "O-O", "o-o" },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", "O-O-O", "o-o-o" },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", "0-0", "O-O+" },
	/* both squares named, not a possible move */
	{ NULL, "Ra1a5", " Ra1a5" },
	{ NULL, "Ra1a5", "Ra1-a5!?" },
	{ NULL, "Ra1a5", "a1a5" },
	{ NULL, "e2e5", "Pe2e5" },
	{ NULL, "e2e5", "e2-e5+ e.p." },
	{ "4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8", "a7xb8=Q" },
	/* possible moves */
	{ "4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", "a8=Q" },
	{ NULL, "e2e4", "Pe4" },
};

START_TEST(test_referee_spellings_agree)
{
	struct event ea, eb;
	int sa = attempt(SAME[_i].fen, SAME[_i].a, &ea);
	int sb = attempt(SAME[_i].fen, SAME[_i].b, &eb);
	ck_assert_msg(sa == REF_OK, "%s: %d", SAME[_i].a, sa);
	ck_assert_msg(sb == REF_OK, "%s: %d", SAME[_i].b, sb);
	ck_assert_int_eq(ea.type, eb.type);
	ck_assert_uint_eq(ea.move, eb.move);
	ck_assert_uint_eq(ea.audience, eb.audience);
}
END_TEST

START_TEST(test_referee_raw_attempts)
{
	struct event e;
	/* castling without the right is answered, with the king's move */
	ck_assert_int_eq(attempt("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", "o-o", &e), REF_OK);
	ck_assert_int_eq(e.type, EV_IMPOSSIBLE);
	ck_assert_uint_eq(e.move, move_make(4, 6, MOVE_CASTLING, KNIGHT));
	/* a pawn named by its letter and both squares */
	ck_assert_int_eq(attempt(NULL, "Pe2e5", &e), REF_OK);
	ck_assert_int_eq(e.type, EV_IMPOSSIBLE);
	ck_assert_uint_eq(e.move, move_make(12, 36, MOVE_NORMAL, KNIGHT));
	/* the named piece must be the one standing there */
	ck_assert_int_eq(attempt(NULL, "Na1a5", &e), REF_E_NO_PIECE);
	/* "=" needs a piece after it, for the referee as for notation_parse */
	ck_assert_int_eq(attempt("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8=", &e), REF_E_SYNTAX);
	/* SAN naming no piece stays a notation error */
	ck_assert_int_eq(attempt(NULL, "Qh5", &e), REF_E_NO_PIECE);
	ck_assert_int_eq(attempt(NULL, "a1a1", &e), REF_E_NO_PIECE);
}
END_TEST

/* The later moves of an "if quiet" list are checked for form only. */
START_TEST(test_referee_quiet_form)
{
	struct evlist ev;
	char err[160];
	struct referee *r = referee_new(ruleset_find("nost"), NULL, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	const char *bad[] = { "e4", "a7a8=" };
	ck_assert_int_eq(referee_quiet(r, WHITE, bad, 2, &ev), REF_E_SYNTAX);
	const char *bad2[] = { "e4", "Nf" };
	ck_assert_int_eq(referee_quiet(r, WHITE, bad2, 2, &ev), REF_E_SYNTAX);
	const char *fine[] = { "e4", " o-o-o!" }; /* not possible now, but a move */
	ck_assert_int_eq(referee_quiet(r, WHITE, fine, 2, &ev), REF_OK);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

static Suite *lex_suite(void)
{
	Suite *s = suite_create("notation_lex");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_piece_letters);
	tcase_add_loop_test(tc, test_lex_parts, 0, (int)(sizeof LEX / sizeof *LEX));
	tcase_add_loop_test(tc, test_lex_rejects, 0, (int)(sizeof LEX_BAD / sizeof *LEX_BAD));
	tcase_add_test(tc, test_parse_is_lex_then_resolve);
	tcase_add_test(tc, test_resolve_checks_parts);
	tcase_add_loop_test(tc, test_resolve_legal, 0, (int)(sizeof LEGAL / sizeof *LEGAL));
	tcase_add_loop_test(tc, test_referee_spellings_agree, 0, (int)(sizeof SAME / sizeof *SAME));
	tcase_add_test(tc, test_referee_raw_attempts);
	tcase_add_test(tc, test_referee_quiet_form);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(lex_suite)
