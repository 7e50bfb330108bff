/*
 * test_movegen.c — legal move generation, possible moves and perft.
 *
 * The perft counts come from the chessprogramming wiki "Perft Results"
 * page (positions 1-6) and from the commonly used talkchess test set
 * (Martin Sedlak's positions); the extra en-passant pin positions were
 * counted with Stockfish 15.1 (`go perft N`), an independent generator.
 * Crazyhouse (crazykrieg) counts: the start position's depth 5, 4888832,
 * from Fairy-Stockfish's tests/perft.sh (equal to chess's 4865609 plus the
 * drops after the first captures), the others from shakmaty's
 * tests/crazyhouse.perft (zh-drops, zh-all-drop-types, zh-middlegame,
 * zh-promoted; its "8/" ninth rank is written "[]" here).
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "bitboard.h"
#include "board.h"
#include "fen.h"
#include "movegen.h"

static struct board load(const char *fen)
{
	struct board b;
	char err[128];
	int rc = fen_parse(fen, &b, err, sizeof err);
	ck_assert_msg(rc == 0, "fen %s: %s", fen, err);
	return b;
}

static move_t mv(const char *from, const char *to, enum move_kind kind, int promo)
{
	char f[3] = { from[0], from[1], 0 }, t[3] = { to[0], to[1], 0 };
	return move_make(square_parse(f), square_parse(t), kind, promo);
}

static const struct {
	const char *fen;
	int depth;
	uint64_t nodes;
} PERFT[] = {
	/* chessprogramming wiki, "Perft Results" */
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 1, 20 },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 2, 400 },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3, 8902 },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5, 4865609 },
	{ "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 1, 48 },
	{ "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2, 2039 },
	{ "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97862 },
	{ "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4085603 },
	{ "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 1, 14 },
	{ "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3, 2812 },
	{ "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674624 },
	{ "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6, 11030083 },
	{ "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 1, 6 },
	{ "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9467 },
	{ "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422333 },
	{ "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 4, 422333 },
	{ "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 1, 44 },
	{ "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62379 },
	{ "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4, 2103487 },
	{ "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 1, 46 },
	{ "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 89890 },
	{ "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4, 3894594 },
	/* talkchess set: illegal en passant, castling, promotion, stalemate */
	{ "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1134888 },
	{ "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1015133 },
	{ "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1440467 },
	{ "5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661072 },
	{ "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803711 },
	{ "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4, 1274206 },
	{ "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4, 1720476 },
	{ "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, 3821001 },
	{ "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 5, 1004658 },
	{ "4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, 217342 },
	{ "8/P1k5/K7/8/8/8/8/8 w - - 0 1", 6, 92683 },
	{ "K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2217 },
	{ "8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 7, 567584 },
	{ "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4, 23527 },
	/* en passant pinned on a rank or diagonal (Stockfish 15.1 counts) */
	{ "8/8/8/K1pP3r/8/8/8/7k w - c6 0 1", 5, 44473 },
	{ "8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1", 5, 122897 },
	/* pinned on a diagonal: off the pin line, and along it (Stockfish counts) */
	{ "8/1k6/8/8/3Pp3/8/6B1/4K3 b - d3 0 1", 5, 41473 },
	{ "8/7k/8/8/3Pp3/8/2B5/4K3 b - d3 0 1", 5, 34216 },
	{ "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1", 5, 82902 },
	{ "8/2k5/8/3pP3/8/8/2K5/6B1 w - d6 0 1", 5, 158401 },
	{ "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 4, 524138 },
};

static const struct {
	const char *fen;
	int depth;
	uint64_t nodes;
} PERFT_ZH[] = {
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1", 4, 197281 },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1", 5, 4888832 },
	{ "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", 1, 67 },
	{ "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", 2, 3083 },
	{ "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", 3, 88634 },
	{ "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", 4, 932554 },
	{ "2k5/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1", 1, 301 },
	{ "2k5/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1", 2, 75353 },
	{ "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[] b KQkq - 0 1", 1, 42 },
	{ "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[] b KQkq - 0 1", 3, 58057 },
	{ "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[] b KQkq - 0 1", 4, 2083382 },
	{ "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1", 1, 20 },
	{ "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1", 2, 360 },
	{ "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1", 3, 5445 },
	{ "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1", 4, 132758 },
};

START_TEST(test_perft_crazyhouse)
{
	struct board b = load(PERFT_ZH[_i].fen);
	ck_assert(b.crazy);
	uint64_t n = perft(&b, PERFT_ZH[_i].depth);
	ck_assert_msg(n == PERFT_ZH[_i].nodes, "%s depth %d: %llu, want %llu", PERFT_ZH[_i].fen,
	              PERFT_ZH[_i].depth, (unsigned long long)n, (unsigned long long)PERFT_ZH[_i].nodes);
}
END_TEST

/* Drops: keys kept incrementally equal the recomputed ones, reserves and
 * promoted marks follow captures, check evasions by interposition only. */
START_TEST(test_drops)
{
	struct board b = load("4k3/8/8/8/8/8/8/R3K3[Nq] w Q - 0 1");
	struct movelist l;
	movegen_legal(&b, &l);
	int drops = 0;
	for (int i = 0; i < l.n; i++)
		if (move_is_drop(l.m[i])) {
			drops++;
			ck_assert_int_eq(move_drop_piece(l.m[i]), KNIGHT);
			struct board c = b;
			board_make(&c, l.m[i]);
			ck_assert_uint_eq(c.key, board_compute_key(&c));
			ck_assert_int_eq(c.hand[WHITE][KNIGHT], 0);
			ck_assert_int_eq(c.halfmove, 0);
		}
	ck_assert_int_eq(drops, 61);
	/* Black in check along the e-file: a drop must interpose (e7..e2), a pawn never on rank 1/8. */
	b = load("4k3/8/8/8/8/8/8/4R1K1[p] b - - 0 1");
	movegen_legal(&b, &l);
	drops = 0;
	for (int i = 0; i < l.n; i++)
		if (move_is_drop(l.m[i])) {
			drops++;
			ck_assert_int_ge(move_to(l.m[i]), 12);
			ck_assert_int_le(move_to(l.m[i]), 52);
			ck_assert_int_eq(move_to(l.m[i]) & 7, 4);
		}
	ck_assert_int_eq(drops, 6);
	/* A knight's check cannot be blocked. */
	b = load("4k3/8/3N4/8/8/8/8/4K3[q] b - - 0 1");
	movegen_legal(&b, &l);
	for (int i = 0; i < l.n; i++)
		ck_assert(!move_is_drop(l.m[i]));
	/* A promoted queen taken goes to the reserve as a pawn. */
	b = load("3rk3/4Q~3/8/8/8/8/8/4K3[] b - - 0 1");
	board_make(&b, mv("d8", "e7", MOVE_NORMAL, KNIGHT));
	ck_assert_int_eq(b.hand[BLACK][PAWN], 1);
	ck_assert_int_eq(b.hand[BLACK][QUEEN], 0);
	ck_assert_uint_eq(b.promoted, 0);
	ck_assert_uint_eq(b.key, board_compute_key(&b));
	/* Possible: drops onto any square not holding an own man. */
	b = load("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1");
	movegen_possible(&b, WHITE, &l);
	drops = 0;
	for (int i = 0; i < l.n; i++)
		drops += move_is_drop(l.m[i]);
	ck_assert_int_eq(drops, 48);
	/* Standard boards never drop, whatever MOVE_NONE reads as. */
	board_start(&b);
	ck_assert(!move_is_drop(MOVE_NONE));
	ck_assert(!movegen_is_legal(&b, move_make_drop(KNIGHT, 28)));
}
END_TEST

START_TEST(test_perft_suite)
{
	struct board b = load(PERFT[_i].fen);
	uint64_t n = perft(&b, PERFT[_i].depth);
	ck_assert_msg(n == PERFT[_i].nodes, "%s depth %d: %llu, want %llu", PERFT[_i].fen,
	              PERFT[_i].depth, (unsigned long long)n, (unsigned long long)PERFT[_i].nodes);
}
END_TEST

START_TEST(test_perft_zero_and_count)
{
	struct board b;
	board_start(&b);
	ck_assert_uint_eq(perft(&b, 0), 1);
	struct movelist l;
	movegen_legal(&b, &l);
	ck_assert_int_eq(l.n, 20);
	ck_assert_int_eq(movegen_count(&b), 20);
}
END_TEST

static bool legal(const struct board *b, const char *from, const char *to, enum move_kind kind,
                  int promo)
{
	return movegen_is_legal(b, mv(from, to, kind, promo));
}

START_TEST(test_castling_through_into_out_of_check)
{
	/* f1 attacked: kingside passes through check; queenside fine */
	struct board b = load("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
	ck_assert(!legal(&b, "e1", "g1", MOVE_CASTLING, KNIGHT));
	ck_assert(legal(&b, "e1", "c1", MOVE_CASTLING, KNIGHT));
	/* g1 attacked: into check */
	b = load("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
	ck_assert(!legal(&b, "e1", "g1", MOVE_CASTLING, KNIGHT));
	ck_assert(legal(&b, "e1", "c1", MOVE_CASTLING, KNIGHT));
	/* in check: neither */
	b = load("4k3/8/8/4r3/8/8/8/R3K2R w KQ - 0 1");
	ck_assert(!legal(&b, "e1", "g1", MOVE_CASTLING, KNIGHT));
	ck_assert(!legal(&b, "e1", "c1", MOVE_CASTLING, KNIGHT));
	/* b1 attacked does not matter: the king never crosses it */
	b = load("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
	ck_assert(legal(&b, "e1", "c1", MOVE_CASTLING, KNIGHT));
	ck_assert(legal(&b, "e1", "g1", MOVE_CASTLING, KNIGHT));
	/* a piece between king and rook blocks */
	b = load("4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1");
	ck_assert(!legal(&b, "e1", "g1", MOVE_CASTLING, KNIGHT));
	ck_assert(!legal(&b, "e1", "c1", MOVE_CASTLING, KNIGHT));
	/* black: d8 attacked blocks queenside */
	b = load("r3k2r/8/8/8/8/8/8/3RK3 b kq - 0 1");
	ck_assert(!legal(&b, "e8", "c8", MOVE_CASTLING, KNIGHT));
	ck_assert(legal(&b, "e8", "g8", MOVE_CASTLING, KNIGHT));
}
END_TEST

START_TEST(test_castling_rights_lost)
{
	/* A rook captured on its home square takes the right with it. */
	struct board b = load("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1");
	board_make(&b, mv("g2", "h1", MOVE_NORMAL, KNIGHT));
	ck_assert_int_eq(b.castling, CASTLE_WQ | CASTLE_BK | CASTLE_BQ);
	ck_assert(b.key == board_compute_key(&b));
	ck_assert(!legal(&b, "e1", "g1", MOVE_CASTLING, KNIGHT));
	/* a rook move loses its side only */
	b = load("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
	board_make(&b, mv("a1", "a2", MOVE_NORMAL, KNIGHT));
	ck_assert_int_eq(b.castling, CASTLE_WK | CASTLE_BK | CASTLE_BQ);
	/* a king move loses both */
	board_make(&b, mv("e8", "e7", MOVE_NORMAL, KNIGHT));
	ck_assert_int_eq(b.castling, CASTLE_WK);
	/* rook takes rook on a8: white loses Q (gone already), black loses q */
	b = load("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
	board_make(&b, mv("a1", "a8", MOVE_NORMAL, KNIGHT));
	ck_assert_int_eq(b.castling, CASTLE_WK | CASTLE_BK);
	ck_assert(b.key == board_compute_key(&b));
}
END_TEST

START_TEST(test_en_passant_exposing_king)
{
	/* Both pawns leave rank 5 and the rook sees the king. */
	struct board b = load("8/8/8/K1pP3r/8/8/8/7k w - c6 0 1");
	ck_assert(!legal(&b, "d5", "c6", MOVE_EN_PASSANT, KNIGHT));
	b = load("8/8/8/K1pP4/8/8/8/7k w - c6 0 1");
	ck_assert(legal(&b, "d5", "c6", MOVE_EN_PASSANT, KNIGHT));
	/* on a rank the other way round, the queen behind */
	b = load("8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1");
	ck_assert(!legal(&b, "e4", "d3", MOVE_EN_PASSANT, KNIGHT));
	/* pinned on a diagonal: off the line it is illegal, along it legal */
	b = load("8/1k6/8/8/3Pp3/8/6B1/4K3 b - d3 0 1");
	ck_assert(!legal(&b, "e4", "d3", MOVE_EN_PASSANT, KNIGHT));
	b = load("8/7k/8/8/3Pp3/8/2B5/4K3 b - d3 0 1");
	ck_assert(legal(&b, "e4", "d3", MOVE_EN_PASSANT, KNIGHT));
	/* An en-passant capture can never block a check: the double step does
	 * not discover one through the square it skipped, so such a position
	 * (Qf1 checking through d3 after d2-d4) was already check before the
	 * step and cannot arise; the FEN is refused. */
	char err[128];
	ck_assert_int_eq(fen_parse("8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1", &b, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "en passant square d3"));
	/* en passant that removes the checking pawn is legal */
	b = load("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
	ck_assert(board_in_check(&b));
	ck_assert(legal(&b, "e4", "d3", MOVE_EN_PASSANT, KNIGHT));
	struct board c = b;
	board_make(&c, mv("e4", "d3", MOVE_EN_PASSANT, KNIGHT));
	ck_assert_int_eq(c.mailbox[27], MAILBOX_EMPTY);
	ck_assert_int_eq(c.mailbox[19], piece_code(BLACK, PAWN));
	ck_assert(c.key == board_compute_key(&c));
}
END_TEST

START_TEST(test_promotion_capture_double_check)
{
	struct board b = load("3rk3/4P3/8/8/8/8/8/4RK2 w - - 0 1");
	ck_assert(legal(&b, "e7", "d8", MOVE_PROMOTION, QUEEN));
	struct board c = b;
	board_make(&c, mv("e7", "d8", MOVE_PROMOTION, QUEEN));
	bb_t ch = board_checkers(&c);
	ck_assert_int_eq(bb_count(ch), 2);
	ck_assert(ch & bb_sq(59)); /* the new queen */
	ck_assert(ch & bb_sq(4));  /* the rook behind */
	/* double check: only king moves */
	struct movelist l;
	movegen_legal(&c, &l);
	for (int i = 0; i < l.n; i++)
		ck_assert_int_eq(move_from(l.m[i]), 60);
	/* an under-promotion to a knight checks only through the file */
	c = b;
	board_make(&c, mv("e7", "d8", MOVE_PROMOTION, KNIGHT));
	ck_assert_int_eq(bb_count(board_checkers(&c)), 1);
	/* promotions come four times */
	movegen_legal(&b, &l);
	int promos = 0;
	for (int i = 0; i < l.n; i++)
		promos += move_kind(l.m[i]) == MOVE_PROMOTION;
	ck_assert_int_eq(promos, 4); /* xd8 only (the king blocks e8), four pieces */
}
END_TEST

START_TEST(test_mate_and_stalemate)
{
	struct board b = load("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
	ck_assert(board_in_check(&b));
	ck_assert_int_eq(movegen_count(&b), 0);
	b = load("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
	ck_assert(!board_in_check(&b));
	ck_assert_int_eq(movegen_count(&b), 0);
	b = load("7k/8/6K1/8/8/8/8/5Q2 b - - 0 1");
	ck_assert_int_gt(movegen_count(&b), 0);
}
END_TEST

START_TEST(test_is_legal_garbage)
{
	struct board b;
	board_start(&b);
	ck_assert(!movegen_is_legal(&b, MOVE_NONE));
	for (unsigned v = 0; v < 65536; v += 97)
		if (movegen_is_legal(&b, (move_t)v))
			ck_assert(movegen_find_legal(&b, (move_t)v) == (move_t)v);
	ck_assert(!movegen_is_legal(&b, (move_t)0xFFFF));
	ck_assert(movegen_is_legal(&b, mv("e2", "e4", MOVE_NORMAL, KNIGHT)));
	ck_assert(!movegen_is_legal(&b, mv("e2", "e5", MOVE_NORMAL, KNIGHT)));
}
END_TEST

START_TEST(test_find_legal_maps_kind)
{
	/* a possible pawn diagonal (MOVE_NORMAL) is an en passant on the true board */
	struct board b = load("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
	move_t want = mv("e5", "d6", MOVE_EN_PASSANT, KNIGHT);
	ck_assert(movegen_find_legal(&b, mv("e5", "d6", MOVE_NORMAL, KNIGHT)) == want);
	ck_assert(movegen_find_legal(&b, mv("e5", "f6", MOVE_NORMAL, KNIGHT)) == MOVE_NONE);
	b = load("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
	ck_assert(movegen_find_legal(&b, mv("b7", "b8", MOVE_PROMOTION, ROOK)) ==
	          mv("b7", "b8", MOVE_PROMOTION, ROOK));
	ck_assert(movegen_find_legal(&b, mv("b7", "b8", MOVE_NORMAL, KNIGHT)) == MOVE_NONE);
}
END_TEST

START_TEST(test_possible_start)
{
	struct board b;
	board_start(&b);
	struct movelist l;
	/* 16 pushes, 14 pawn diagonals, 4 knight moves; either colour, whoever moves */
	movegen_possible(&b, WHITE, &l);
	ck_assert_int_eq(l.n, 34);
	movegen_possible(&b, BLACK, &l);
	ck_assert_int_eq(l.n, 34);
	ck_assert(movegen_is_possible(&b, WHITE, mv("e2", "d3", MOVE_NORMAL, KNIGHT)));
	ck_assert(movegen_is_possible(&b, BLACK, mv("e7", "f6", MOVE_NORMAL, KNIGHT)));
	ck_assert(!movegen_is_possible(&b, WHITE, mv("e2", "e5", MOVE_NORMAL, KNIGHT)));
	ck_assert(!movegen_is_possible(&b, WHITE, mv("e7", "e5", MOVE_NORMAL, KNIGHT)));
	ck_assert(!movegen_is_possible(&b, WHITE, MOVE_NONE));
	ck_assert(!movegen_is_possible(&b, WHITE, (move_t)0xFFFF));
}
END_TEST

START_TEST(test_possible_ignores_enemy)
{
	/* Castling through an attacked square, a pinned knight, a king stepping
	 * into check, a push into an enemy piece: all possible from own pieces. */
	const char *fen = "4kr2/8/8/8/8/2b5/3N4/4K2R w K - 0 1";
	struct board b = load(fen), own;
	board_own_view(&b, WHITE, &own);
	struct movelist a, c;
	movegen_possible(&b, WHITE, &a);
	movegen_possible(&own, WHITE, &c);
	ck_assert_int_eq(a.n, c.n);
	ck_assert(memcmp(a.m, c.m, sizeof(move_t) * (size_t)a.n) == 0);
	ck_assert(movegen_is_possible(&b, WHITE, mv("e1", "g1", MOVE_CASTLING, KNIGHT)));
	ck_assert(!movegen_is_legal(&b, mv("e1", "g1", MOVE_CASTLING, KNIGHT)));
	ck_assert(movegen_is_possible(&b, WHITE, mv("d2", "f3", MOVE_NORMAL, KNIGHT)));
	ck_assert(!movegen_is_legal(&b, mv("d2", "f3", MOVE_NORMAL, KNIGHT)));
	ck_assert(movegen_is_possible(&b, WHITE, mv("e1", "f2", MOVE_NORMAL, KNIGHT)));
	/* promotions by push and by diagonal, four each */
	b = load("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
	movegen_possible(&b, WHITE, &a);
	int promos = 0;
	for (int i = 0; i < a.n; i++)
		promos += move_kind(a.m[i]) == MOVE_PROMOTION;
	ck_assert_int_eq(promos, 12);
	/* no castling without the right, or with an own piece in the way */
	b = load("4k3/8/8/8/8/8/8/R3K1NR w Q - 0 1");
	ck_assert(!movegen_is_possible(&b, WHITE, mv("e1", "g1", MOVE_CASTLING, KNIGHT)));
	ck_assert(movegen_is_possible(&b, WHITE, mv("e1", "c1", MOVE_CASTLING, KNIGHT)));
}
END_TEST

START_TEST(test_pawn_captures)
{
	/* b7xa8 promotes (counted once), e5xd6 en passant */
	struct board b = load("r3k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1");
	ck_assert_int_eq(movegen_pawn_captures(&b), 2);
	b = load("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
	ck_assert_int_eq(movegen_pawn_captures(&b), 0);
	/* in check from a knight: only the capture of the knight counts */
	b = load("4k3/8/8/8/8/3p1p2/4P2n/4K3 w - - 0 1");
	ck_assert(!board_in_check(&b));
	ck_assert_int_eq(movegen_pawn_captures(&b), 2);
	b = load("4k3/8/8/8/8/3p1n2/4P3/4K3 w - - 0 1");
	ck_assert(board_in_check(&b));
	ck_assert_int_eq(movegen_pawn_captures(&b), 1);
	/* start position: none */
	board_start(&b);
	ck_assert_int_eq(movegen_pawn_captures(&b), 0);
}
END_TEST

static Suite *movegen_suite(void)
{
	Suite *s = suite_create("movegen");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_perft_suite, 0, (int)(sizeof PERFT / sizeof PERFT[0]));
	tcase_add_loop_test(tc, test_perft_crazyhouse, 0, (int)(sizeof PERFT_ZH / sizeof PERFT_ZH[0]));
	tcase_add_test(tc, test_drops);
	tcase_add_test(tc, test_perft_zero_and_count);
	tcase_add_test(tc, test_castling_through_into_out_of_check);
	tcase_add_test(tc, test_castling_rights_lost);
	tcase_add_test(tc, test_en_passant_exposing_king);
	tcase_add_test(tc, test_promotion_capture_double_check);
	tcase_add_test(tc, test_mate_and_stalemate);
	tcase_add_test(tc, test_is_legal_garbage);
	tcase_add_test(tc, test_find_legal_maps_kind);
	tcase_add_test(tc, test_possible_start);
	tcase_add_test(tc, test_possible_ignores_enemy);
	tcase_add_test(tc, test_pawn_captures);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(movegen_suite)
