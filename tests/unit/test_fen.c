/*
 * test_fen.c — FEN round trips and a table of bad FENs, each with the
 * text its error must contain.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "board.h"
#include "fen.h"
#include "movegen.h"

static const char *const GOOD[] = {
	FEN_START,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
	"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
	"8/8/8/8/8/8/8/K1k5 b - - 49 120",
	"4k3/8/8/8/8/8/8/4K2R w K - 0 1",
	"r3k3/8/8/8/8/8/8/4K3 b q - 0 1",
	"QQQQQQQQ/Q7/8/8/8/8/6p1/K6k b - - 0 1",
	/* double checks a single move gives */
	"R3k3/8/3N4/8/8/8/8/4K3 b - - 0 1",         /* Nc8-d6, the a8 rook discovered */
	"4k3/8/5N2/8/B7/8/7r/K7 b - - 0 1",         /* Nd7-f6, the a4 bishop discovered */
	"5R1k/8/8/8/8/8/8/B3K3 b - - 0 1",          /* g7xf8=R, the a1 bishop discovered */
	"4R3/1B6/3P4/8/4k3/8/8/7K b - - 0 1",       /* e5xd6 e.p. opens the e-file and b7-e4 */
	"4k3/8/8/8/8/3n4/8/r3K3 w - - 0 1",         /* Nc1-d3, the a1 rook discovered */
	/* an en-passant square with the check the double step discovered */
	"1q5k/8/8/2pPK3/8/8/8/8 w - c6 0 1",
	/* bishops: one of each colour beyond the pawns is no promotion */
	"4k3/8/8/8/8/8/PPPPPPPP/2B1KB2 w - - 0 1",
	/* Crazyhouse (crazykrieg): reserves in brackets, White's first, Q R B N P; '~' promoted */
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
	"2k5/8/8/8/8/8/8/4K3[QRBNPPqrbnp] b - - 0 8",
	"4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1",
	/* three knights and ten pawns of one side: men change sides */
	"4k3/8/8/8/PPPPPPPP/PP6/8/1NNNK3[] w - - 0 1",
};

START_TEST(test_round_trip)
{
	struct board b;
	char err[128], out[FEN_MAX];
	ck_assert_msg(fen_parse(GOOD[_i], &b, err, sizeof err) == 0, "%s: %s", GOOD[_i], err);
	fen_format(&b, out, sizeof out);
	ck_assert_str_eq(out, GOOD[_i]);
	ck_assert(b.key == board_compute_key(&b));
}
END_TEST

START_TEST(test_optional_counters_and_spaces)
{
	struct board a, b;
	char err[128], out[FEN_MAX];
	ck_assert_int_eq(fen_parse("4k3/8/8/8/8/8/8/4K3 w - -", &a, err, sizeof err), 0);
	fen_format(&a, out, sizeof out);
	ck_assert_str_eq(out, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
	ck_assert_int_eq(fen_parse("  4k3/8/8/8/8/8/8/4K3   w -  - 0   1  ", &b, err, sizeof err), 0);
	ck_assert(memcmp(&a, &b, sizeof a) == 0);
	ck_assert_int_eq(fen_parse("4k3/8/8/8/8/8/8/4K3 w - - 5", &b, err, sizeof err), 0);
	ck_assert_int_eq(b.halfmove, 5);
	ck_assert_int_eq(b.fullmove, 1);
	struct board s;
	board_start(&s);
	ck_assert_int_eq(fen_parse(FEN_START, &b, err, sizeof err), 0);
	ck_assert(memcmp(&s, &b, sizeof s) == 0);
}
END_TEST

static const struct {
	const char *fen;
	const char *want;
} BAD[] = {
	{ "", "empty" },
	{ "     ", "empty" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "missing side" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", "missing castling" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "missing en passant" },
	{ "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 has 7 squares" },
	{ "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 has more than 8" },
	{ "rnbqkbnr/pppppppp/71/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6 has two digits" },
	{ "rnbqkbnr/pppppppp/p7p/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6 has more than 8" },
	{ "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 ranks instead of 8" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 ranks" },
	{ "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "bad piece letter '9'" },
	{ "rnbqkbnr/pppppppp/0/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "bad piece letter '0'" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQXBNR w KQkq - 0 1", "bad piece letter 'X'" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1", "more than 8 ranks" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "no white king" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w kq - 0 1", "2 white kings" },
	{ "rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "2 black kings" },
	{ "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "white pawn on h8" },
	{ "4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "black pawn on a1" },
	{ "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "9 white pawns" },
	{ "4k3/8/8/8/8/QQQ5/PPPPPPPP/4K3 w - - 0 1", "too many white pieces" },
	{ "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "side not to move is in check" },
	{ "4k3/8/3N4/1B6/8/8/8/4RK2 b - - 0 1", "more than two" },
	/* double checks no single move gives */
	{ "4k3/8/8/8/8/3n1n2/8/4K3 w - - 0 1", "impossible double check" },   /* two knights */
	{ "4k3/8/8/8/8/8/3p1p2/4K3 w - - 0 1", "impossible double check" },   /* two pawns */
	{ "4k3/8/8/8/8/8/5pn1/4K3 w - - 0 1", "impossible double check" },    /* pawn and knight */
	{ "4k3/8/8/8/8/8/8/r3K2r w - - 0 1", "impossible double check" },     /* two rooks, one rank */
	{ "4k3/8/8/8/8/8/2n5/r3K3 w - - 0 1", "impossible double check" },    /* no knight square on b1-d1 */
	{ "4k3/8/8/8/8/6b1/8/4K2r w - - 0 1", "impossible double check" },    /* two sliders, no move between */
	/* an en-passant square with a check the double step cannot explain */
	{ "4k3/8/8/3pP3/8/8/8/r3K3 w - d6 0 1", "check from a1" },
	/* promotions counted per bishop colour: two dark bishops and 8 pawns */
	{ "4k3/8/8/8/8/8/PPPPPPPP/B1B1K3 w - - 0 1", "too many white pieces" },
	{ "4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side to move must be w or b" },
	{ "4k3/8/8/8/8/8/8/4K3 white - - 0 1", "side to move must be w or b" },
	{ "4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling right K without a rook on h1" },
	{ "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1x", "bad fullmove" },
	{ "4k3/8/8/8/8/8/8/3K3R w K - 0 1", "castling right K without the king on e1" },
	{ "r3k3/8/8/8/8/8/8/4K3 w k - 0 1", "castling right k without a rook on h8" },
	/* crazykrieg: the rook in the corner must be the first one (found by fuzz_fen) */
	{ "r3k2r/8/8/8/8/8/8/R~3K2R[Pr] w KQkq - 0 1", "castling right Q with a promoted rook on a1" },
	{ "r3k2r~/8/8/8/8/8/8/R3K2R[Pr] w KQkq - 0 1", "castling right k with a promoted rook on h8" },
	{ "4k3/8/8/8/8/8/8/R3K2R w KK - 0 1", "given twice" },
	{ "4k3/8/8/8/8/8/8/R3K2R w KX - 0 1", "bad castling letter 'X'" },
	{ "4k3/8/8/8/8/8/8/R3K2R w KQkqK - 0 1", "castling field too long" },
	{ "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "en passant square e4" },
	{ "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", "en passant square e3" },
	{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "en passant square e3" },
	{ "rnbqkbnr/pppppppp/8/8/4P3/4P3/PPP2PPP/RNBQKBNR b KQkq e3 0 1", "en passant square e3" },
	{ "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e33 0 1", "bad en passant" },
	{ "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq z3 0 1", "bad en passant" },
	{ "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 3 1", "halfmove clock must be 0" },
	{ "4k3/8/8/8/8/8/8/4K3 w - - -1 1", "bad halfmove" },
	{ "4k3/8/8/8/8/8/8/4K3 w - - 99999 1", "bad halfmove" },
	{ "4k3/8/8/8/8/8/8/4K3 w - - 0 0", "bad fullmove" },
	{ "4k3/8/8/8/8/8/8/4K3 w - - 0 x", "bad fullmove" },
	{ "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra", "extra text" },
	{ "4k3/8/8/8/8/8/8/4K3\tw - - 0 1", "bad byte 0x09" },
	{ "4k3/8/8/8/8/8/8/4K3 w - - 0 1\n", "bad byte 0x0a" },
	{ "4k3/8/8/8/8/8/8/4K3 w \xc3\xa9 - 0 1", "bad byte 0xc3" },
	{ "4k3/8/8/8/8/8/8/4K3[Q w - - 0 1", "without its ']'" },
	{ "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1", "bad reserve letter 'K'" },
	{ "4k3/8/8/8/8/8/8/4K3[x] w - - 0 1", "bad reserve letter 'x'" },
	{ "4k3/8/8/8/8/8/8/4Q~K3 w - - 0 1", "'~' without a reserve field" },
	{ "4k3/8/8/8/8/8/8/4K2P~[] w - - 0 1", "'~' after 'P'" },
	{ "4k3/8/8/8/8/8/8/4K3[QQq] w - - 0 1", "more than 2 queens" },
	{ "4k3/8/8/8/8/8/8/4K3[PPPPPPPPPPPPPPPPP] w - - 0 1", "more than 16 'P'" },
	{ "4k3/8/8/8/8/8/8/Q~3K3[PPPPPPPPpppppppp] w - - 0 1", "more than 16 pawns" },
};

START_TEST(test_bad_fen)
{
	struct board b, saved;
	board_start(&b);
	saved = b;
	char err[128];
	ck_assert_int_eq(fen_parse(BAD[_i].fen, &b, err, sizeof err), -1);
	ck_assert_msg(strstr(err, BAD[_i].want) != NULL, "%s: got \"%s\", want \"%s\"", BAD[_i].fen,
	              err, BAD[_i].want);
	ck_assert(memcmp(&b, &saved, sizeof b) == 0);
}
END_TEST

START_TEST(test_too_long_and_null)
{
	char fen[FEN_INPUT_MAX + 64];
	memset(fen, ' ', sizeof fen);
	memcpy(fen, FEN_START, strlen(FEN_START));
	fen[sizeof fen - 1] = '\0';
	struct board b, saved;
	board_start(&b);
	saved = b;
	char err[128];
	ck_assert_int_eq(fen_parse(fen, &b, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "longer than"));
	ck_assert_int_eq(fen_parse(NULL, &b, err, sizeof err), -1);
	ck_assert_int_eq(fen_parse("garbage", &b, NULL, 0), -1);
	ck_assert(memcmp(&b, &saved, sizeof b) == 0);
	/* exactly FEN_INPUT_MAX is still read */
	fen[FEN_INPUT_MAX] = '\0';
	ck_assert_int_eq(fen_parse(fen, &b, err, sizeof err), 0);
	/* a tiny error buffer is never overrun */
	char small[4];
	ck_assert_int_eq(fen_parse("x", &b, small, sizeof small), -1);
	ck_assert_int_eq(strlen(small), 3);
}
END_TEST

START_TEST(test_format_small_buffer)
{
	struct board b;
	board_start(&b);
	char out[10];
	fen_format(&b, out, sizeof out);
	ck_assert_str_eq(out, "rnbqkbnr/");
}
END_TEST

/* Mutated FENs: never a crash, and whatever parses is a sane board whose
 * own FEN parses back to the same board. */
START_TEST(test_mutations)
{
	static const char alphabet[] = "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0 9x";
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	int parsed = 0;
	for (int n = 0; n < 20000; n++) {
		char fen[FEN_INPUT_MAX + 1];
		const char *base = GOOD[n % (int)(sizeof GOOD / sizeof GOOD[0])];
		size_t len = strlen(base);
		memcpy(fen, base, len + 1);
		int edits = 1 + (int)(seed % 3);
		for (int e = 0; e < edits; e++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			fen[seed % len] = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
		}
		struct board b;
		char err[128];
		if (fen_parse(fen, &b, err, sizeof err) != 0) {
			ck_assert(err[0] != '\0');
			continue;
		}
		parsed++;
		ck_assert_int_eq(__builtin_popcountll(b.pieces[WHITE][KING]), 1);
		ck_assert_int_eq(__builtin_popcountll(b.pieces[BLACK][KING]), 1);
		ck_assert(b.key == board_compute_key(&b));
		char out[FEN_MAX];
		struct board c;
		fen_format(&b, out, sizeof out);
		ck_assert_msg(fen_parse(out, &c, err, sizeof err) == 0, "%s -> %s: %s", fen, out, err);
		ck_assert(memcmp(&b, &c, sizeof b) == 0);
	}
	ck_assert_int_gt(parsed, 100); /* the mutations do reach the deeper checks */
}
END_TEST

/*
 * The validation must never refuse a position reached in play: random
 * games (preferring checking moves, so double checks, discovered checks
 * and en-passant rights with checks come up) from the start and the perft
 * suite positions; every position's FEN parses back to the same board.
 */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

START_TEST(test_positions_from_play_parse)
{
	static const char *const starts[] = {
		FEN_START,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	};
	uint64_t seed = 0x5DEECE66DULL;
	int positions = 0, doubles = 0, ep_checks = 0;
	for (int g = 0; g < 240; g++) {
		struct board b;
		char err[128], fen[FEN_MAX];
		ck_assert_int_eq(fen_parse(starts[g % 6], &b, err, sizeof err), 0);
		for (int ply = 0; ply < 160; ply++) {
			struct movelist l;
			movegen_legal(&b, &l);
			if (l.n == 0)
				break;
			move_t pick = l.m[xorshift(&seed) % (uint64_t)l.n];
			if (xorshift(&seed) % 3 != 0) {
				/* a double check, else a check, when there is one */
				int first = (int)(xorshift(&seed) % (uint64_t)l.n), best = 0;
				for (int i = 0; i < l.n && best < 2; i++) {
					struct board c = b;
					board_make(&c, l.m[(first + i) % l.n]);
					int n = __builtin_popcountll(board_checkers(&c));
					if (n > best) {
						best = n;
						pick = l.m[(first + i) % l.n];
					}
				}
			}
			board_make(&b, pick);
			fen_format(&b, fen, sizeof fen);
			struct board c;
			ck_assert_msg(fen_parse(fen, &c, err, sizeof err) == 0, "%s: %s", fen, err);
			ck_assert_msg(memcmp(&b, &c, sizeof b) == 0, "%s parses to another board", fen);
			positions++;
			bb_t checkers = board_checkers(&b);
			doubles += __builtin_popcountll(checkers) == 2;
			ep_checks += checkers != 0 && b.ep != SQ_NONE;
		}
	}
	ck_assert_int_gt(positions, 10000);
	ck_assert_int_gt(doubles, 20);
	ck_assert_int_gt(ep_checks, 0);
}
END_TEST

/* Regression (fuzz_fen, found by CI's smoke): a halfmove clock of 9999
 * became 10000 after a quiet move, which fen_format wrote and fen_parse
 * refused ("bad halfmove clock"); at the board's top, 65535, it would
 * have wrapped to 0.  The parser takes what the board holds, and the
 * counters stop at the top: every position made reads back. */
START_TEST(test_counters_at_their_limits_read_back)
{
	static const char *const fens[] = {
		"8/8/8/8/8/8/8/K6k b - - 9999 1",
		"8/8/8/8/8/8/8/K6k b - - 65535 65535",
		"8/8/8/8/8/8/8/K6k b - - 0 9999",
	};
	for (size_t i = 0; i < sizeof fens / sizeof fens[0]; i++) {
		struct board b, c;
		char err[128], fen[FEN_MAX];
		ck_assert_int_eq(fen_parse(fens[i], &b, err, sizeof err), 0);
		unsigned half = b.halfmove, full = b.fullmove;
		for (int ply = 0; ply < 2; ply++) {
			struct movelist l;
			movegen_legal(&b, &l);
			ck_assert_int_gt(l.n, 0);
			board_make(&b, l.m[0]);   /* a king's move: quiet */
			fen_format(&b, fen, sizeof fen);
			ck_assert_msg(fen_parse(fen, &c, err, sizeof err) == 0, "%s: %s", fen, err);
			ck_assert_msg(memcmp(&b, &c, sizeof b) == 0, "%s parses to another board", fen);
		}
		ck_assert_uint_eq(b.halfmove, half + 2 > UINT16_MAX ? UINT16_MAX : half + 2);
		ck_assert_uint_eq(b.fullmove, full + 1 > UINT16_MAX ? UINT16_MAX : full + 1);
	}
}
END_TEST

static Suite *fen_suite(void)
{
	Suite *s = suite_create("fen");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_round_trip, 0, (int)(sizeof GOOD / sizeof GOOD[0]));
	tcase_add_test(tc, test_optional_counters_and_spaces);
	tcase_add_loop_test(tc, test_bad_fen, 0, (int)(sizeof BAD / sizeof BAD[0]));
	tcase_add_test(tc, test_too_long_and_null);
	tcase_add_test(tc, test_format_small_buffer);
	tcase_add_test(tc, test_mutations);
	tcase_add_test(tc, test_positions_from_play_parse);
	tcase_add_test(tc, test_counters_at_their_limits_read_back);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(fen_suite)
