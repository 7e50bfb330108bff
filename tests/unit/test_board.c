/*
 * test_board.c — placement, making moves, keys, views and material rules.
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

static int sq(const char *s)
{
	int v = square_parse(s);
	ck_assert_int_ne(v, SQ_NONE);
	return v;
}

static move_t mv(const char *from, const char *to)
{
	char f[3] = { from[0], from[1], 0 }, t[3] = { to[0], to[1], 0 };
	return move_make(sq(f), sq(t), MOVE_NORMAL, KNIGHT);
}

/* Bitboards, mailbox and occupancy agree. */
static void assert_consistent(const struct board *b)
{
	for (int c = 0; c < 2; c++) {
		bb_t all = 0;
		for (int t = PAWN; t <= KING; t++) {
			ck_assert((all & b->pieces[c][t]) == 0);
			all |= b->pieces[c][t];
			for (bb_t p = b->pieces[c][t]; p;)
				ck_assert_int_eq(b->mailbox[bb_pop(&p)], piece_code(c, t));
		}
		ck_assert(all == b->occ[c]);
	}
	ck_assert((b->occ[0] & b->occ[1]) == 0);
	for (int s = 0; s < 64; s++)
		if (!(bb_sq(s) & (b->occ[0] | b->occ[1])))
			ck_assert_int_eq(b->mailbox[s], MAILBOX_EMPTY);
	ck_assert(b->key == board_compute_key(b));
}

START_TEST(test_start_matches_fen)
{
	struct board a, b = load(FEN_START);
	board_start(&a);
	assert_consistent(&a);
	ck_assert(memcmp(&a, &b, sizeof a) == 0);
	ck_assert_int_eq(board_king(&a, WHITE), sq("e1"));
	ck_assert_int_eq(board_king(&a, BLACK), sq("e8"));
	ck_assert(!board_in_check(&a));
}
END_TEST

START_TEST(test_put_remove)
{
	struct board b;
	board_clear(&b);
	uint64_t empty_key = b.key;
	board_put(&b, WHITE, KNIGHT, sq("c3"));
	board_put(&b, BLACK, QUEEN, sq("d4"));
	assert_consistent(&b);
	board_put(&b, WHITE, BISHOP, sq("d4")); /* replaces */
	assert_consistent(&b);
	ck_assert_int_eq(b.mailbox[sq("d4")], piece_code(WHITE, BISHOP));
	board_remove(&b, sq("d4"));
	board_remove(&b, sq("c3"));
	board_remove(&b, sq("c3")); /* empty: no-op */
	board_put(&b, WHITE, KING, 64); /* out of range: ignored */
	board_remove(&b, -1);
	assert_consistent(&b);
	ck_assert(b.key == empty_key);
	ck_assert_int_eq(board_king(&b, WHITE), SQ_NONE);
	ck_assert(!board_in_check(&b));
}
END_TEST

START_TEST(test_make_special_moves)
{
	/* castling moves the rook */
	struct board b = load("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 3 10");
	board_make(&b, move_make(sq("e1"), sq("g1"), MOVE_CASTLING, KNIGHT));
	ck_assert_int_eq(b.mailbox[sq("f1")], piece_code(WHITE, ROOK));
	ck_assert_int_eq(b.mailbox[sq("h1")], MAILBOX_EMPTY);
	ck_assert_int_eq(b.halfmove, 4);
	ck_assert_int_eq(b.castling, CASTLE_BK | CASTLE_BQ);
	assert_consistent(&b);
	board_make(&b, move_make(sq("e8"), sq("c8"), MOVE_CASTLING, KNIGHT));
	ck_assert_int_eq(b.mailbox[sq("d8")], piece_code(BLACK, ROOK));
	ck_assert_int_eq(b.mailbox[sq("a8")], MAILBOX_EMPTY);
	ck_assert_int_eq(b.fullmove, 11);
	ck_assert_int_eq(b.castling, 0);
	assert_consistent(&b);
	/* double push sets the en-passant square; a capture resets the clock */
	b = load("4k3/8/8/8/5p2/8/4P3/4K3 w - - 7 30");
	board_make(&b, mv("e2", "e4"));
	ck_assert_int_eq(b.ep, sq("e3"));
	ck_assert_int_eq(b.halfmove, 0);
	assert_consistent(&b);
	board_make(&b, move_make(sq("f4"), sq("e3"), MOVE_EN_PASSANT, KNIGHT));
	ck_assert_int_eq(b.mailbox[sq("e4")], MAILBOX_EMPTY);
	ck_assert_int_eq(b.ep, SQ_NONE);
	assert_consistent(&b);
	/* promotion */
	b = load("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
	board_make(&b, move_make(sq("a7"), sq("b8"), MOVE_PROMOTION, KNIGHT));
	ck_assert_int_eq(b.mailbox[sq("b8")], piece_code(WHITE, KNIGHT));
	ck_assert(b.pieces[BLACK][KNIGHT] == 0);
	assert_consistent(&b);
}
END_TEST

/* A small deterministic generator for the playouts. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

START_TEST(test_zobrist_random_playouts)
{
	static const char *const starts[] = {
		FEN_START,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	};
	uint64_t seed = 0x123456789ULL;
	for (int g = 0; g < 24; g++) {
		struct board b = load(starts[g % 4]);
		for (int ply = 0; ply < 100; ply++) {
			struct movelist l;
			movegen_legal(&b, &l);
			if (l.n == 0)
				break;
			board_make(&b, l.m[rnd(&seed) % (uint64_t)l.n]);
			assert_consistent(&b);
			/* FEN out and in gives the same position and key */
			char fen[FEN_MAX];
			fen_format(&b, fen, sizeof fen);
			struct board c = load(fen);
			ck_assert(c.key == b.key);
		}
	}
}
END_TEST

static uint64_t key_after(const char *const *moves, int n)
{
	struct board b;
	board_start(&b);
	for (int i = 0; i < n; i++) {
		move_t m = mv(moves[i], moves[i] + 2);
		ck_assert(movegen_is_legal(&b, m));
		board_make(&b, m);
	}
	return b.key;
}

START_TEST(test_zobrist_transpositions)
{
	static const char *const a[] = { "g1f3", "g8f6", "b1c3", "b8c6" };
	static const char *const b[] = { "b1c3", "b8c6", "g1f3", "g8f6" };
	ck_assert(key_after(a, 4) == key_after(b, 4));
	/* a double push nobody can take en passant does not change the key */
	static const char *const c[] = { "e2e4", "g8f6", "g1f3" };
	static const char *const d[] = { "g1f3", "g8f6", "e2e4" };
	ck_assert(key_after(c, 3) == key_after(d, 3)); /* d ends with ep e3, no taker */
	static const char *const e[] = { "e2e4", "g8f6", "g1f3", "b8c6" };
	static const char *const f[] = { "g1f3", "g8f6", "e2e4", "b8c6" };
	ck_assert(key_after(e, 4) == key_after(f, 4));
	static const char *const g[] = { "g1f3", "b8c6", "e2e4" };
	static const char *const h[] = { "e2e4", "b8c6", "g1f3" };
	ck_assert(key_after(g, 3) != key_after(e, 4));
	ck_assert(key_after(g, 3) == key_after(h, 3));
	/* ... but one that can be taken does */
	struct board x = load("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
	struct board y = load("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1");
	board_make(&x, mv("e2", "e4"));
	ck_assert(x.key != y.key);
	struct board z = load("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
	ck_assert(x.key == z.key);
	ck_assert(x.key == board_compute_key(&x));
	/* ... and only when the capture is legal: after c7c5 the b5 pawn is
	 * held by the h5 rook (taking would open the fifth rank to a5) */
	struct board p = load("6nk/2p5/8/KP5r/8/8/8/6N1 b - - 0 1");
	board_make(&p, mv("c7", "c5"));
	ck_assert_int_eq(p.ep, 42);
	struct board q = load("6nk/8/8/KPp4r/8/8/8/6N1 w - - 0 1");
	ck_assert(p.key == q.key);
	ck_assert(p.key == board_compute_key(&p));
	/* a legal one does count (rook on h6: no pin) */
	struct board p2 = load("6nk/2p5/7r/KP6/8/8/8/6N1 b - - 0 1");
	board_make(&p2, mv("c7", "c5"));
	struct board q2 = load("6nk/8/7r/KPp5/8/8/8/6N1 w - - 0 1");
	ck_assert(p2.key != q2.key);
	ck_assert(p2.key == board_compute_key(&p2));
	/* in check, an en-passant capture that does not resolve it is no right */
	struct board p3 = load("1q5k/2p5/8/3PK3/8/8/8/8 b - - 0 1");
	board_make(&p3, mv("c7", "c5")); /* discovers Qb8 on e5; dxc6 would not help */
	struct board q3 = load("1q5k/8/8/2pPK3/8/8/8/8 w - - 0 1");
	ck_assert(p3.key == q3.key);
	ck_assert(p3.key == board_compute_key(&p3));
	/* castling rights are part of the key */
	struct board r1 = load("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
	struct board r2 = load("r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1");
	ck_assert(r1.key != r2.key);
}
END_TEST

START_TEST(test_checkers)
{
	struct board b = load("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
	ck_assert(board_checkers(&b) == 0);
	b = load("4k3/8/3N4/8/8/8/8/4RK2 b - - 0 1");
	ck_assert_int_eq(bb_count(board_checkers(&b)), 2);
	ck_assert(board_attacked(&b, sq("e5"), WHITE, b.occ[0] | b.occ[1]));
	ck_assert(!board_attacked(&b, sq("a8"), WHITE, b.occ[0] | b.occ[1]));
	/* the occupancy given decides what a slider sees */
	b = load("4k3/8/8/8/8/8/8/4RK2 b - - 0 1");
	ck_assert(board_attacked(&b, sq("e8"), WHITE, b.occ[0] | b.occ[1]));
	ck_assert(!board_attacked(&b, sq("e8"), WHITE, b.occ[0] | b.occ[1] | bb_sq(sq("e4"))));
}
END_TEST

START_TEST(test_own_view)
{
	struct board b = load("r3k2r/pppp1ppp/8/8/3pP3/8/PPP2PPP/R3K2R b KQkq e3 0 12"), v;
	board_own_view(&b, WHITE, &v);
	ck_assert(v.occ[BLACK] == 0);
	ck_assert(v.occ[WHITE] == b.occ[WHITE]);
	ck_assert_int_eq(v.castling, CASTLE_WK | CASTLE_WQ);
	ck_assert_int_eq(v.side, BLACK);
	ck_assert_int_eq(v.ep, SQ_NONE);
	ck_assert_int_eq(v.fullmove, 12);
	assert_consistent(&v);
	board_own_view(&b, BLACK, &v);
	ck_assert(v.occ[WHITE] == 0);
	ck_assert_int_eq(v.castling, CASTLE_BK | CASTLE_BQ);
	assert_consistent(&v);
}
END_TEST

static const struct {
	const char *fen;
	bool insufficient, white_mates, black_mates;
} MATERIAL[] = {
	{ "4k3/8/8/8/8/8/8/4K3 w - - 0 1", true, false, false },
	{ "4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true, false, false },
	{ "4k3/8/8/8/8/8/8/4KB2 w - - 0 1", true, false, false },
	{ "4kb2/8/8/8/8/8/8/4K3 w - - 0 1", true, false, false },
	/* bishops all on light squares, however many and whoever owns them */
	{ "4kb2/8/8/8/8/8/8/4KB2 b - - 0 1", false, true, true },
	{ "4k1b1/8/8/8/8/8/8/4KB2 w - - 0 1", true, false, false },
	{ "4k3/8/8/8/8/8/6B1/4KB1B w - - 0 1", true, false, false },
	{ "2b1kb2/8/8/8/8/8/8/4KB2 w - - 0 1", false, true, true },
	{ "4k3/8/8/8/8/8/8/4KNN1 w - - 0 1", false, true, false },
	{ "4kn2/8/8/8/8/8/8/4KN2 w - - 0 1", false, true, true },
	{ "4kn2/8/8/8/8/8/8/4KB2 w - - 0 1", false, true, true },
	{ "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false, true, false },
	{ "4k3/8/8/8/8/8/8/4K2R w - - 0 1", false, true, false },
	{ "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false, true, false },
	{ "4k3/4p3/8/8/8/8/8/4KN2 w - - 0 1", false, true, true },
	{ "3qk3/8/8/8/8/8/8/4KB2 w - - 0 1", false, true, true },
	{ "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", false, true, false },
	{ "4k3/8/8/8/8/8/8/3BKB2 w - - 0 1", true, false, false },
};

START_TEST(test_material)
{
	struct board b = load(MATERIAL[_i].fen);
	ck_assert_msg(board_insufficient_material(&b) == MATERIAL[_i].insufficient, "%s",
	              MATERIAL[_i].fen);
	ck_assert_msg(board_can_mate(&b, WHITE) == MATERIAL[_i].white_mates, "%s white",
	              MATERIAL[_i].fen);
	ck_assert_msg(board_can_mate(&b, BLACK) == MATERIAL[_i].black_mates, "%s black",
	              MATERIAL[_i].fen);
}
END_TEST

START_TEST(test_square_names)
{
	char buf[3];
	square_name(0, buf);
	ck_assert_str_eq(buf, "a1");
	square_name(63, buf);
	ck_assert_str_eq(buf, "h8");
	square_name(64, buf);
	ck_assert_str_eq(buf, "--");
	ck_assert_int_eq(square_parse("e4"), 28);
	ck_assert_int_eq(square_parse("h8"), 63);
	ck_assert_int_eq(square_parse("e9"), SQ_NONE);
	ck_assert_int_eq(square_parse("i1"), SQ_NONE);
	ck_assert_int_eq(square_parse("E4"), SQ_NONE);
	ck_assert_int_eq(square_parse("e44"), SQ_NONE);
	ck_assert_int_eq(square_parse(""), SQ_NONE);
	ck_assert_int_eq(square_parse("e"), SQ_NONE);
	ck_assert_int_eq(square_parse(NULL), SQ_NONE);
}
END_TEST

/*
 * The castling rule, stated once in board.h: a right needs its king and
 * rook on their first squares.  What making a move keeps agrees with those
 * squares, and what a board can have is what stands there.
 */
START_TEST(test_castling_squares)
{
	static const char *const name[4] = { "K", "Q", "k", "q" };
	static const char *const at[4][2] = { { "e1", "h1" }, { "e1", "a1" }, { "e8", "h8" }, { "e8", "a8" } };
	for (int i = 0; i < 4; i++) {
		unsigned r = 1u << i;
		ck_assert_int_eq(castle_king_square(r), sq(at[i][0]));
		ck_assert_int_eq(castle_rook_square(r), sq(at[i][1]));
		ck_assert_uint_eq(castle_rights_of(i < 2 ? WHITE : BLACK) & r, r);
		ck_assert_uint_eq(castle_rights_of(i < 2 ? BLACK : WHITE) & r, 0);
		for (int s = 0; s < 64; s++) {
			bool lost = s == castle_king_square(r) || s == castle_rook_square(r);
			ck_assert_msg(!(board_castle_keep(s) & r) == lost, "right %s, square %d", name[i], s);
		}
	}
	struct board b = load("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
	ck_assert_uint_eq(board_castling_in_place(&b, 15), 15);
	ck_assert_uint_eq(board_castling_in_place(&b, CASTLE_WQ | CASTLE_BK), CASTLE_WQ | CASTLE_BK);
	b = load("r3k3/8/8/8/8/8/8/R4K1R w - - 0 1"); /* White's king off e1, Black's h-rook gone */
	ck_assert_uint_eq(board_castling_in_place(&b, 15), CASTLE_BQ);
	b = load("4k2r/8/8/8/8/8/8/1R2K3 w - - 0 1"); /* a rook beside the corner is not in it */
	ck_assert_uint_eq(board_castling_in_place(&b, 15), CASTLE_BK);
	b = load("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1");
	b.pieces[BLACK][ROOK] = 0; /* the bitboards decide, not the mailbox */
	ck_assert_uint_eq(board_castling_in_place(&b, 15), CASTLE_WK | CASTLE_WQ);
}
END_TEST

static Suite *board_suite(void)
{
	Suite *s = suite_create("board");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_start_matches_fen);
	tcase_add_test(tc, test_put_remove);
	tcase_add_test(tc, test_make_special_moves);
	tcase_add_test(tc, test_zobrist_random_playouts);
	tcase_add_test(tc, test_zobrist_transpositions);
	tcase_add_test(tc, test_checkers);
	tcase_add_test(tc, test_own_view);
	tcase_add_loop_test(tc, test_material, 0, (int)(sizeof MATERIAL / sizeof MATERIAL[0]));
	tcase_add_test(tc, test_square_names);
	tcase_add_test(tc, test_castling_squares);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(board_suite)
