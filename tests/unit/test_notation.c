/*
 * test_notation.c — every accepted input form, ambiguity, resolution on
 * own pieces only, hostile input, and SAN/UCI output.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "board.h"
#include "fen.h"
#include "movegen.h"
#include "notation.h"

static struct board load(const char *fen)
{
	struct board b;
	char err[128];
	int rc = fen_parse(fen, &b, err, sizeof err);
	ck_assert_msg(rc == 0, "fen %s: %s", fen, err);
	return b;
}

static struct board own_of(const char *fen, int color)
{
	struct board b = load(fen), v;
	board_own_view(&b, color, &v);
	return v;
}

static move_t uci(const char *s)
{
	char f[3] = { s[0], s[1], 0 }, t[3] = { s[2], s[3], 0 };
	int promo = s[4] ? (int)(strchr("pnbrqk", s[4]) - "pnbrqk") : KNIGHT;
	return move_make(square_parse(f), square_parse(t), s[4] ? MOVE_PROMOTION : MOVE_NORMAL, promo);
}

static const struct {
	const char *fen;
	int color;
	const char *text;
	const char *want; /* coordinates of the expected move */
	enum move_kind kind;
} ACCEPT[] = {
	/* start position, White */
	{ FEN_START, WHITE, "e4", "e2e4", MOVE_NORMAL },
	{ FEN_START, WHITE, "e3", "e2e3", MOVE_NORMAL },
	{ FEN_START, WHITE, "e2e4", "e2e4", MOVE_NORMAL },
	{ FEN_START, WHITE, "e2-e4", "e2e4", MOVE_NORMAL },
	{ FEN_START, WHITE, "Pe4", "e2e4", MOVE_NORMAL },
	{ FEN_START, WHITE, "Nf3", "g1f3", MOVE_NORMAL },
	{ FEN_START, WHITE, "Ng1f3", "g1f3", MOVE_NORMAL },
	{ FEN_START, WHITE, "Ng1-f3", "g1f3", MOVE_NORMAL },
	{ FEN_START, WHITE, "g1f3", "g1f3", MOVE_NORMAL },
	{ FEN_START, WHITE, "Nxf3", "g1f3", MOVE_NORMAL },
	{ FEN_START, WHITE, "Nc3+", "b1c3", MOVE_NORMAL },
	{ FEN_START, WHITE, "Nc3!?", "b1c3", MOVE_NORMAL },
	{ FEN_START, WHITE, " Nc3 ", "b1c3", MOVE_NORMAL },
	{ FEN_START, WHITE, "exd3", "e2d3", MOVE_NORMAL },
	{ FEN_START, WHITE, "e2:d3", "e2d3", MOVE_NORMAL },
	{ FEN_START, WHITE, "e2xd3", "e2d3", MOVE_NORMAL },
	{ FEN_START, WHITE, "ed3", "e2d3", MOVE_NORMAL },
	/* Black, on White's move: the view works for either side */
	{ FEN_START, BLACK, "e5", "e7e5", MOVE_NORMAL },
	{ FEN_START, BLACK, "Nb8c6", "b8c6", MOVE_NORMAL },
	{ FEN_START, BLACK, "Ng8-f6", "g8f6", MOVE_NORMAL },
	/* en passant written in the seeds' ways */
	{ "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", WHITE, "e5:d6", "e5d6", MOVE_NORMAL },
	{ "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", WHITE, "exd6 e.p.", "e5d6", MOVE_NORMAL },
	{ "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", WHITE, "exd6ep", "e5d6", MOVE_NORMAL },
	/* promotions */
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e8", "e7e8q", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e8=Q", "e7e8q", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e8Q", "e7e8q", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e8=N", "e7e8n", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e7e8q", "e7e8q", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e7e8r", "e7e8r", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e7e8b", "e7e8b", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e7e8", "e7e8q", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "exd8=N", "e7d8n", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "exd8N+", "e7d8n", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e7:d8=R", "e7d8r", MOVE_PROMOTION },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "exf8", "e7f8q", MOVE_PROMOTION },
	{ "4k3/8/8/8/8/8/3p4/K7 b - - 0 1", BLACK, "d1=Q", "d2d1q", MOVE_PROMOTION },
	/* castling */
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE, "O-O", "e1g1", MOVE_CASTLING },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE, "0-0", "e1g1", MOVE_CASTLING },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE, "O-O-O", "e1c1", MOVE_CASTLING },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE, "0-0-0+", "e1c1", MOVE_CASTLING },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE, "e1g1", "e1g1", MOVE_CASTLING },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE, "Ke1-c1", "e1c1", MOVE_CASTLING },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", BLACK, "O-O", "e8g8", MOVE_CASTLING },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", BLACK, "O-O-O", "e8c8", MOVE_CASTLING },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE, "Kf1", "e1f1", MOVE_NORMAL },
	/* disambiguation */
	{ "rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1", BLACK, "Nbd7", "b8d7", MOVE_NORMAL },
	{ "rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1", BLACK, "Nfd7", "f6d7", MOVE_NORMAL },
	{ "rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1", BLACK, "N8d7", "b8d7", MOVE_NORMAL },
	{ "rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1", BLACK, "Nf6xd7", "f6d7", MOVE_NORMAL },
	{ "rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1", BLACK, "Nc6", "b8c6", MOVE_NORMAL },
	{ "k7/8/8/8/8/4R3/8/4RK2 w - - 0 1", WHITE, "R1e2", "e1e2", MOVE_NORMAL },
	{ "k7/8/8/8/8/4R3/8/4RK2 w - - 0 1", WHITE, "R3e2", "e3e2", MOVE_NORMAL },
	{ "k7/8/8/8/8/4R3/8/4RK2 w - - 0 1", WHITE, "Re1-e2", "e1e2", MOVE_NORMAL },
	{ "4k3/8/8/8/7q/8/8/3QK3 w - - 0 1", WHITE, "Qh5", "d1h5", MOVE_NORMAL },
	{ "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", WHITE, "Qd1xe2", "d1e2", MOVE_NORMAL },
	{ "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", BLACK, "Qh4+", "d8h4",
	  MOVE_NORMAL },
	{ "4k3/8/8/8/8/8/8/4KB2 w - - 0 1", WHITE, "Bf1a6", "f1a6", MOVE_NORMAL },
	{ "4k3/8/8/8/8/8/8/4KB2 w - - 0 1", WHITE, "Bb5", "f1b5", MOVE_NORMAL },
	{ "4k3/8/8/8/8/8/8/4KB2 w - - 0 1", WHITE, "Qxf7#", NULL, MOVE_NORMAL },
};

START_TEST(test_accepts)
{
	struct board own = own_of(ACCEPT[_i].fen, ACCEPT[_i].color);
	move_t m = MOVE_NONE;
	char err[64] = "";
	enum notation_status st = notation_parse(&own, ACCEPT[_i].color, ACCEPT[_i].text, &m, err,
	                                         sizeof err);
	if (!ACCEPT[_i].want) {
		ck_assert_int_eq(st, NOTATION_NO_PIECE);
		return;
	}
	ck_assert_msg(st == NOTATION_OK, "\"%s\": %d %s", ACCEPT[_i].text, st, err);
	move_t want = uci(ACCEPT[_i].want);
	if (ACCEPT[_i].kind == MOVE_CASTLING)
		want = move_make(move_from(want), move_to(want), MOVE_CASTLING, KNIGHT);
	char got[NOTATION_MAX];
	notation_uci(m, got);
	ck_assert_msg(m == want, "\"%s\": got %s want %s", ACCEPT[_i].text, got, ACCEPT[_i].want);
	ck_assert(movegen_is_possible(&own, ACCEPT[_i].color, m));
}
END_TEST

static const struct {
	const char *fen;
	int color;
	const char *text;
	enum notation_status st;
	const char *msg; /* substring of the error */
} REJECT[] = {
	{ FEN_START, WHITE, "", NOTATION_SYNTAX, "empty" },
	{ FEN_START, WHITE, "   ", NOTATION_SYNTAX, "empty" },
	{ FEN_START, WHITE, "+", NOTATION_SYNTAX, "empty" },
	{ FEN_START, WHITE, "e9e4", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "Qxz9", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "i2i4", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "\xff\xfe", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "e2\te4", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "hello", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "N", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "Nf", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "nf3", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "e2--e4", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "e-2e4", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "e2e4e5", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "O-O-O-O", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "e8=K", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "=Q", NOTATION_SYNTAX, "not a move" },
	{ FEN_START, WHITE, "e5", NOTATION_NO_PIECE, "no own pawn can move to e5" },
	{ FEN_START, WHITE, "Nf4", NOTATION_NO_PIECE, "no own knight can move to f4" },
	{ FEN_START, WHITE, "Bc4", NOTATION_NO_PIECE, "no own bishop" },
	{ FEN_START, WHITE, "e3e4", NOTATION_NO_PIECE, "no own piece on e3" },
	{ FEN_START, WHITE, "Ne2e4", NOTATION_NO_PIECE, "no own knight on e2" },
	{ FEN_START, WHITE, "e7e5", NOTATION_NO_PIECE, "no own piece on e7" },
	{ FEN_START, WHITE, "e4=Q", NOTATION_NO_PIECE, "does not promote" },
	{ FEN_START, WHITE, "O-O", NOTATION_NO_PIECE, "cannot castle kingside" },
	{ FEN_START, WHITE, "d2d5", NOTATION_NO_PIECE, "own pawn on d2 cannot move to d5" },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", WHITE, "O-O", NOTATION_NO_PIECE, "cannot castle" },
	{ "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE, "Kg1", NOTATION_NO_PIECE, "king" },
	{ "rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1", BLACK, "Nd7", NOTATION_AMBIGUOUS, "knight" },
	{ "rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1", BLACK, "Nxd7", NOTATION_AMBIGUOUS, "say which" },
	{ "k7/8/8/8/8/4R3/8/4RK2 w - - 0 1", WHITE, "Re2", NOTATION_AMBIGUOUS, "rook" },
	{ "k7/8/8/8/8/4R3/8/4RK2 w - - 0 1", WHITE, "Ree2", NOTATION_AMBIGUOUS, "rook" },
	{ "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", WHITE, "e8=P", NOTATION_SYNTAX, "not a move" },
};

START_TEST(test_rejects)
{
	struct board own = own_of(REJECT[_i].fen, REJECT[_i].color);
	move_t m = 0x1234;
	char err[96] = "";
	enum notation_status st = notation_parse(&own, REJECT[_i].color, REJECT[_i].text, &m, err,
	                                         sizeof err);
	ck_assert_msg(st == REJECT[_i].st, "\"%s\": status %d (%s)", REJECT[_i].text, st, err);
	ck_assert_msg(strstr(err, REJECT[_i].msg) != NULL, "\"%s\": \"%s\" lacks \"%s\"",
	              REJECT[_i].text, err, REJECT[_i].msg);
	ck_assert_int_eq(m, 0x1234); /* *out untouched on error */
}
END_TEST

START_TEST(test_long_input)
{
	struct board own = own_of(FEN_START, WHITE);
	char text[NOTATION_INPUT_MAX + 2];
	move_t m;
	char err[64];
	/* the longest accepted length is read ... */
	memset(text, ' ', NOTATION_INPUT_MAX);
	memcpy(text, "e4", 2);
	text[NOTATION_INPUT_MAX] = '\0';
	ck_assert_int_eq(notation_parse(&own, WHITE, text, &m, err, sizeof err), NOTATION_OK);
	/* ... one more byte is not */
	text[NOTATION_INPUT_MAX] = ' ';
	text[NOTATION_INPUT_MAX + 1] = '\0';
	ck_assert_int_eq(notation_parse(&own, WHITE, text, &m, err, sizeof err), NOTATION_SYNTAX);
	ck_assert_ptr_nonnull(strstr(err, "too long"));
	/* a huge one, unterminated beyond the limit as far as the parser cares */
	static char huge[1 << 16];
	memset(huge, 'e', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';
	ck_assert_int_eq(notation_parse(&own, WHITE, huge, &m, err, sizeof err), NOTATION_SYNTAX);
	ck_assert_int_eq(notation_parse(&own, WHITE, NULL, &m, err, sizeof err), NOTATION_SYNTAX);
	ck_assert_int_eq(notation_parse(&own, 2, "e4", &m, err, sizeof err), NOTATION_SYNTAX);
	ck_assert_int_eq(notation_parse(&own, WHITE, "e4", &m, NULL, 0), NOTATION_OK);
	char tiny[5];
	ck_assert_int_eq(notation_parse(&own, WHITE, "Nf4", &m, tiny, sizeof tiny), NOTATION_NO_PIECE);
	ck_assert_int_eq(strlen(tiny), 4);
}
END_TEST

/* All printable two- and three-byte inputs: no crash, and every OK is possible. */
START_TEST(test_fuzz_short)
{
	struct board own = own_of("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", WHITE);
	const char alphabet[] = "abcdefgh12345678NBRQKPxX:-=+#O0 q";
	size_t na = sizeof alphabet - 1;
	char text[4] = { 0 };
	move_t m;
	char err[64];
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < na; j++)
			for (size_t k = 0; k <= na; k++) {
				text[0] = alphabet[i];
				text[1] = alphabet[j];
				text[2] = k < na ? alphabet[k] : '\0';
				if (notation_parse(&own, WHITE, text, &m, err, sizeof err) == NOTATION_OK)
					ck_assert_msg(movegen_is_possible(&own, WHITE, m), "%s", text);
				else
					ck_assert(err[0] != '\0');
			}
}
END_TEST

/*
 * The result must not depend on enemy pieces: parsing against the true
 * board (which the server must never do, but a mistake must not matter)
 * or against own views of true boards that differ only in enemy pieces
 * gives the same status, move and message.
 */
START_TEST(test_enemy_independent)
{
	static const char *const boards[] = {
		"4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
		"4k3/8/8/3q4/3pn3/2b1b3/PPPPPPPP/RNBQKBNR w KQ - 0 1",
		"4k3/8/8/8/b7/4n3/PPPPPPPP/RNBQKBNR w KQ - 0 1",
	};
	static const char *const texts[] = {
		"e4", "e3", "exd3", "dxe3", "d3", "Nf3", "Nxe3", "Nc3", "Bc4", "Qd3", "O-O", "d2d4",
		"e2e4", "Ne2", "Nd2", "c3", "Kd1", "Nb1d2", "d4", "a3",
	};
	for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
		enum notation_status st0 = NOTATION_OK;
		move_t m0 = MOVE_NONE;
		char e0[96] = "";
		for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
			struct board truth = load(boards[i]), own;
			board_own_view(&truth, WHITE, &own);
			for (int pass = 0; pass < 2; pass++) {
				move_t m = MOVE_NONE;
				char e[96] = "";
				enum notation_status st =
				        notation_parse(pass ? &truth : &own, WHITE, texts[t], &m, e, sizeof e);
				if (i == 0 && pass == 0) {
					st0 = st;
					m0 = m;
					memcpy(e0, e, sizeof e0);
					continue;
				}
				ck_assert_msg(st == st0 && m == m0 && !strcmp(e, e0), "%s on %s", texts[t],
				              boards[i]);
			}
		}
	}
}
END_TEST

START_TEST(test_uci_out)
{
	char buf[NOTATION_MAX];
	notation_uci(uci("e2e4"), buf);
	ck_assert_str_eq(buf, "e2e4");
	notation_uci(uci("e7e8q"), buf);
	ck_assert_str_eq(buf, "e7e8q");
	notation_uci(uci("a2b1n"), buf);
	ck_assert_str_eq(buf, "a2b1n");
	notation_uci(MOVE_NONE, buf);
	ck_assert_str_eq(buf, "0000");
}
END_TEST

/* Drops (crazykrieg): read against the reserve, written "N@f3" in SAN and UCI. */
START_TEST(test_drops)
{
	struct board b = load("4k3/8/8/8/8/8/8/4K3[NPq] w - - 0 1"), own;
	board_own_view(&b, WHITE, &own);
	move_t m;
	char err[96], buf[NOTATION_MAX];
	ck_assert_int_eq(notation_parse(&own, WHITE, "N@f3", &m, err, sizeof err), NOTATION_OK);
	ck_assert(move_is_drop(m));
	ck_assert_int_eq(move_drop_piece(m), KNIGHT);
	ck_assert_int_eq(move_to(m), 21);
	notation_uci(m, buf);
	ck_assert_str_eq(buf, "N@f3");
	notation_san(&b, m, false, buf);
	ck_assert_str_eq(buf, "N@f3");
	ck_assert_int_eq(notation_parse(&own, WHITE, "P@e4", &m, err, sizeof err), NOTATION_OK);
	ck_assert_int_eq(move_drop_piece(m), PAWN);
	ck_assert_int_eq(notation_parse(&own, WHITE, "@e4", &m, err, sizeof err), NOTATION_OK);
	ck_assert_int_eq(move_drop_piece(m), PAWN);
	/* the mark: N@d6+ gives check */
	notation_san(&b, move_make_drop(KNIGHT, 43), false, buf);
	ck_assert_str_eq(buf, "N@d6+");
	/* not in the reserve / onto an own man / a pawn on the last rank */
	ck_assert_int_eq(notation_parse(&own, WHITE, "Q@d4", &m, err, sizeof err), NOTATION_NO_PIECE);
	ck_assert_str_eq(err, "no queen in reserve");
	ck_assert_int_eq(notation_parse(&own, WHITE, "N@e1", &m, err, sizeof err), NOTATION_NO_PIECE);
	ck_assert_str_eq(err, "cannot drop a knight on e1");
	ck_assert_int_eq(notation_parse(&own, WHITE, "P@e8", &m, err, sizeof err), NOTATION_NO_PIECE);
	/* syntax */
	const char *bad[] = { "K@e4", "n@e4", "N@", "N@e9", "NN@e4", "N@e4=Q", "e2@e4", "@" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(notation_parse(&own, WHITE, bad[i], &m, err, sizeof err) == NOTATION_SYNTAX, "%s",
		              bad[i]);
	/* a PGN reader resolves drops among the legal moves */
	struct notation_parts p;
	ck_assert_int_eq(notation_lex("N@f3", &p, NULL, 0), NOTATION_OK);
	ck_assert(p.drop);
	ck_assert_int_eq(notation_resolve_legal(&b, &p, &m), NOTATION_OK);
	ck_assert_uint_eq(m, move_make_drop(KNIGHT, 21));
	ck_assert_int_eq(notation_lex("Q@f3", &p, NULL, 0), NOTATION_OK);
	ck_assert_int_eq(notation_resolve_legal(&b, &p, &m), NOTATION_NO_PIECE);
}
END_TEST

/* Regression (the PGN probe): a PGN reader took a piece's move in
 * coordinates ("g1f3", "g1-f3") for a pawn's and refused it, though pawns'
 * ("e2e4") and "Ng1f3" read; a king's two squares (e1g1) are castling. */
START_TEST(test_resolve_legal_coordinates)
{
	struct board b = load(FEN_START);
	struct notation_parts p;
	move_t m;
	static const struct { const char *text, *uci; } ok[] = {
		{ "g1f3", "g1f3" }, { "g1-f3", "g1f3" }, { "b1c3", "b1c3" }, { "e2e4", "e2e4" }, { "Ng1f3", "g1f3" },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		ck_assert_int_eq(notation_lex(ok[i].text, &p, NULL, 0), NOTATION_OK);
		ck_assert_msg(notation_resolve_legal(&b, &p, &m) == NOTATION_OK, "%s", ok[i].text);
		ck_assert_uint_eq(m, uci(ok[i].uci));
	}
	ck_assert_int_eq(notation_lex("f1c4", &p, NULL, 0), NOTATION_OK);   /* blocked: not legal */
	ck_assert_int_eq(notation_resolve_legal(&b, &p, &m), NOTATION_NO_PIECE);
	ck_assert_int_eq(notation_lex("e3e4", &p, NULL, 0), NOTATION_OK);   /* nothing on e3 */
	ck_assert_int_eq(notation_resolve_legal(&b, &p, &m), NOTATION_NO_PIECE);
	struct board c = load("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
	ck_assert_int_eq(notation_lex("e1g1", &p, NULL, 0), NOTATION_OK);
	ck_assert_int_eq(notation_resolve_legal(&c, &p, &m), NOTATION_OK);
	ck_assert_int_eq(move_kind(m), MOVE_CASTLING);
	ck_assert_int_eq(notation_lex("Kg1", &p, NULL, 0), NOTATION_OK);
	ck_assert_int_eq(notation_resolve_legal(&c, &p, &m), NOTATION_NO_PIECE);
}
END_TEST

static void san_is(const char *fen, const char *move, enum move_kind kind, bool own_view,
                   const char *want)
{
	struct board b = load(fen);
	move_t m = uci(move);
	if (kind != MOVE_NORMAL && kind != MOVE_PROMOTION)
		m = move_make(move_from(m), move_to(m), kind, KNIGHT);
	int color = piece_code_color(b.mailbox[move_from(m)]);
	if (own_view) {
		struct board v;
		board_own_view(&b, color, &v);
		b = v;
	}
	char buf[NOTATION_MAX];
	notation_san(&b, m, own_view, buf);
	ck_assert_msg(!strcmp(buf, want), "%s %s: got %s want %s", fen, move, buf, want);
}

START_TEST(test_san_out)
{
	san_is(FEN_START, "g1f3", MOVE_NORMAL, false, "Nf3");
	san_is(FEN_START, "e2e4", MOVE_NORMAL, false, "e4");
	san_is("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", "e4d5", MOVE_NORMAL,
	       false, "exd5");
	san_is("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "d8h4", MOVE_NORMAL,
	       false, "Qh4#");
	san_is("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "d8h4", MOVE_NORMAL,
	       true, "Qh4");
	san_is("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", MOVE_CASTLING, false, "O-O");
	san_is("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", MOVE_CASTLING, false, "O-O-O");
	san_is("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", MOVE_CASTLING, false, "O-O+");
	san_is("3rk3/4P3/8/8/8/8/8/4RK2 w - - 0 1", "e7d8q", MOVE_PROMOTION, false, "exd8=Q+");
	san_is("3rk3/4P3/8/8/8/8/8/4RK2 w - - 0 1", "e7d8n", MOVE_PROMOTION, true, "exd8=N");
	san_is("k7/8/8/8/8/4R3/8/4RK2 w - - 0 1", "e1e2", MOVE_NORMAL, false, "R1e2");
	san_is("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1", "a1c1", MOVE_NORMAL, false, "Rac1");
	san_is("4k3/8/8/8/8/8/Q7/Q2QK3 w - - 0 1", "a1b1", MOVE_NORMAL, false, "Qa1b1");
	san_is("4k3/8/8/8/8/8/Q7/Q2QK3 w - - 0 1", "a2b1", MOVE_NORMAL, false, "Q2b1");
	san_is("4k3/8/8/8/8/8/Q7/Q2QK3 w - - 0 1", "d1b1", MOVE_NORMAL, false, "Qdb1");
	san_is("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1", "f1f8", MOVE_NORMAL, false, "Rf8+");
	san_is("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1", "a1a8", MOVE_NORMAL, false, "Ra8+");
	san_is("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", MOVE_NORMAL, false, "Rxa8+");
	san_is("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", MOVE_NORMAL, true, "Ra8");
	/* a pin: on the true board only b8 can go to d7, on the view both can */
	san_is("1n5k/8/5n2/8/8/8/8/B3K3 b - - 0 1", "b8d7", MOVE_NORMAL, false, "Nd7");
	san_is("1n5k/8/5n2/8/8/8/8/B3K3 b - - 0 1", "b8d7", MOVE_NORMAL, true, "Nbd7");
	/* SAN written for a view parses back to the same move */
	struct board v = own_of("1n5k/8/5n2/8/8/8/8/B3K3 b - - 0 1", BLACK);
	move_t m;
	char err[64];
	ck_assert_int_eq(notation_parse(&v, BLACK, "Nbd7", &m, err, sizeof err), NOTATION_OK);
	ck_assert(m == uci("b8d7"));
}
END_TEST

/* Every possible move's own-view SAN and UCI parse back to itself. */
START_TEST(test_san_round_trip)
{
	static const char *const fens[] = {
		FEN_START,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"4k3/8/8/8/8/8/Q7/Q3K2Q w - - 0 1",
	};
	for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++)
		for (int color = WHITE; color <= BLACK; color++) {
			struct board own = own_of(fens[f], color);
			struct movelist l;
			movegen_possible(&own, color, &l);
			for (int i = 0; i < l.n; i++) {
				char san[NOTATION_MAX], co[NOTATION_MAX], err[96];
				move_t m;
				notation_san(&own, l.m[i], true, san);
				ck_assert_msg(notation_parse(&own, color, san, &m, err, sizeof err) ==
				                      NOTATION_OK,
				              "%s: %s", san, err);
				ck_assert_msg(m == l.m[i], "%s", san);
				notation_uci(l.m[i], co);
				ck_assert_int_eq(notation_parse(&own, color, co, &m, err, sizeof err),
				                 NOTATION_OK);
				ck_assert_msg(m == l.m[i], "%s", co);
			}
		}
}
END_TEST

static Suite *notation_suite(void)
{
	Suite *s = suite_create("notation");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_accepts, 0, (int)(sizeof ACCEPT / sizeof ACCEPT[0]));
	tcase_add_loop_test(tc, test_rejects, 0, (int)(sizeof REJECT / sizeof REJECT[0]));
	tcase_add_test(tc, test_long_input);
	tcase_add_test(tc, test_fuzz_short);
	tcase_add_test(tc, test_enemy_independent);
	tcase_add_test(tc, test_uci_out);
	tcase_add_test(tc, test_san_out);
	tcase_add_test(tc, test_drops);
	tcase_add_test(tc, test_resolve_legal_coordinates);
	tcase_add_test(tc, test_san_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(notation_suite)
