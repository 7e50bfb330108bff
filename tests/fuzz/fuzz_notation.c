/*
 * fuzz_notation.c — the move-text lexer (notation_lex) on any text, then
 * resolution of what it lexed on the pieces of a few positions.  A lexed
 * move that resolves must be one of the player's possible moves
 * (movegen_possible on its own pieces), and what the daemon writes of it
 * must read back as the same move: its coordinates on the player's own
 * pieces, its SAN as told to the player (own view) on them too, and the
 * SAN of a legal move (the record's, PGN's) on the true board.
 */
#include "board.h"
#include "fen.h"
#include "fuzz_util.h"
#include "movegen.h"
#include "notation.h"

static const char *const positions[] = {
	FEN_START,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"4k3/1P4P1/8/2pP4/8/8/1p4p1/4K3 w - c6 0 1",
	"4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
	"r3k2r/1P6/8/8/8/8/8/R3K2R[QNpp] w KQkq - 0 1", /* crazykrieg: drops beside promotions */
	"4k3/8/8/3pP3/8/8/1N3N2/4K3 w - d6 0 1",        /* en passant; two knights reach d3 */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char err[160];
	struct notation_parts parts;
	enum notation_status st = notation_lex(text, &parts, err, sizeof err);

	if (st != NOTATION_OK) {
		FUZZ_ASSERT(st == NOTATION_SYNTAX, "lex returned %d", (int)st);
		free(text);
		return 0;
	}
	for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
		struct board b, own;
		move_t m;

		FUZZ_ASSERT(fen_parse(positions[i], &b, err, sizeof err) == 0, "%s", err);
		for (int color = WHITE; color <= BLACK; color++) {
			board_own_view(&b, color, &own);
			if (notation_resolve(&own, color, &parts, &m, err, sizeof err) != NOTATION_OK)
				continue;
			struct movelist ml;
			int found = 0;
			movegen_possible(&own, color, &ml);
			for (int k = 0; k < ml.n; k++)
				found |= ml.m[k] == m;
			FUZZ_ASSERT(found, "'%s' resolved to a move not possible for %d", text, color);
			char uci[NOTATION_MAX], san[NOTATION_MAX];
			move_t back;
			notation_uci(m, uci);
			FUZZ_ASSERT(notation_parse(&own, color, uci, &back, err, sizeof err) == NOTATION_OK &&
			                    back == m,
			            "'%s': %s read back as %#x, not %#x", text, uci, back, m);
			notation_san(&own, m, true, san);
			FUZZ_ASSERT(notation_parse(&own, color, san, &back, err, sizeof err) == NOTATION_OK &&
			                    back == m,
			            "'%s': %s read back as %#x, not %#x", text, san, back, m);
		}
		if (notation_resolve_legal(&b, &parts, &m) == NOTATION_OK) {
			char san[NOTATION_MAX];
			struct notation_parts p2;
			move_t back = MOVE_NONE;
			notation_san(&b, m, false, san);
			FUZZ_ASSERT(notation_lex(san, &p2, err, sizeof err) == NOTATION_OK, "%s", san);
			FUZZ_ASSERT(notation_resolve_legal(&b, &p2, &back) == NOTATION_OK && back == m,
			            "'%s': %s read back as %#x, not %#x", text, san, back, m);
		}
	}
	free(text);
	return 0;
}
