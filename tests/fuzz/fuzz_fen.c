/*
 * fuzz_fen.c — fen_parse on any text, and the move generator on every
 * position it accepts.
 *
 * A FEN it accepts must format back to a FEN that parses to the same board,
 * and format the same again (the writer's output is the canonical form).
 *
 * fen_parse lets through only positions a game can reach (fen.h), so odd
 * but valid positions (rights with pieces nearby, en passant beside a
 * pinned pawn, promotions, reserves) reach movegen here that perft's fixed
 * positions never do.  On each, what the referee leans on:
 *   - the list, the count, and movegen_is_legal agree; no move twice;
 *   - a legal move leaves the mover's king unattacked, keeps the key made
 *     move by move equal to the key computed afresh, and gives a position
 *     whose FEN parses again ("every position reached in play parses from
 *     its own FEN");
 *   - every legal move is a possible one on the mover's own board (else the
 *     umpire would call a legal try "impossible"), and movegen_find_legal
 *     maps that possible attempt back onto it;
 *   - the pawn captures counted are the legal pawn captures listed
 *     (a promotion once), on the squares given;
 *   - perft(2) is the sum of the counts after each move.
 */
#include "board.h"
#include "fen.h"
#include "fuzz_util.h"
#include "movegen.h"

/* The attempt a legal move answers: same origin, destination and promotion
 * piece (a drop: the same drop).  movegen.c has its own; this one is
 * written again so that the oracle is not the code it checks. */
static bool same_attempt(move_t legal, move_t possible)
{
	if (move_is_drop(legal) || move_is_drop(possible))
		return legal == possible;
	if (move_from(legal) != move_from(possible) || move_to(legal) != move_to(possible))
		return false;
	bool pa = move_kind(legal) == MOVE_PROMOTION, pb = move_kind(possible) == MOVE_PROMOTION;
	return pa == pb && (!pa || move_promo(legal) == move_promo(possible));
}

static void check_moves(const struct board *b, const char *fen)
{
	struct movelist l, poss;
	struct board own;
	int side = b->side, pawn_caps = 0;
	uint64_t cap_squares = 0, leaves = 0;

	movegen_legal(b, &l);
	FUZZ_ASSERT(movegen_count(b) == l.n, "%s: count %d, listed %d", fen, movegen_count(b), l.n);
	board_own_view(b, side, &own);
	movegen_possible(&own, side, &poss);
	for (int i = 0; i < l.n; i++) {
		move_t m = l.m[i];
		for (int j = 0; j < i; j++)
			FUZZ_ASSERT(l.m[j] != m, "%s: move %#x listed twice", fen, m);
		FUZZ_ASSERT(movegen_is_legal(b, m), "%s: listed %#x not legal", fen, m);

		int found = -1;
		for (int j = 0; j < poss.n && found < 0; j++)
			if (same_attempt(m, poss.m[j]))
				found = j;
		FUZZ_ASSERT(found >= 0, "%s: legal %#x not possible", fen, m);
		FUZZ_ASSERT(movegen_find_legal(b, poss.m[found]) == m, "%s: %#x maps to %#x", fen,
		            poss.m[found], movegen_find_legal(b, poss.m[found]));

		struct board a = *b;
		board_make(&a, m);
		int ksq = board_king(&a, side);
		FUZZ_ASSERT(ksq != SQ_NONE && !board_attacked(&a, ksq, !side, a.occ[0] | a.occ[1]),
		            "%s: %#x leaves the king attacked", fen, m);
		FUZZ_ASSERT(a.key == board_compute_key(&a), "%s: key after %#x", fen, m);
		char out[FEN_MAX], err[160];
		struct board back;
		fen_format(&a, out, sizeof out);
		FUZZ_ASSERT(fen_parse(out, &back, err, sizeof err) == 0, "%s: after %#x: %s: %s", fen,
		            m, out, err);
		leaves += (uint64_t)movegen_count(&a);

		if (!move_is_drop(m) && piece_code_type(b->mailbox[move_from(m)]) == PAWN &&
		    (move_kind(m) == MOVE_EN_PASSANT ||
		     (b->occ[!side] & ((bb_t)1 << move_to(m))) != 0) &&
		    (move_kind(m) != MOVE_PROMOTION || move_promo(m) == QUEEN)) {
			pawn_caps++;
			cap_squares |= (bb_t)1 << move_from(m);
		}
	}
	FUZZ_ASSERT(movegen_pawn_captures(b) == pawn_caps, "%s: pawn captures %d, listed %d", fen,
	            movegen_pawn_captures(b), pawn_caps);
	FUZZ_ASSERT(movegen_pawn_capture_squares(b) == cap_squares, "%s: capture squares", fen);
	FUZZ_ASSERT(perft(b, 2) == leaves, "%s: perft(2) %llu, summed %llu", fen,
	            (unsigned long long)perft(b, 2), (unsigned long long)leaves);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char err[160], out[FEN_MAX], again[FEN_MAX];
	struct board b, b2;

	if (fen_parse(text, &b, err, sizeof err) == 0) {
		fen_format(&b, out, sizeof out);
		FUZZ_ASSERT(fen_parse(out, &b2, err, sizeof err) == 0, "%s: %s", out, err);
		fen_format(&b2, again, sizeof again);
		FUZZ_ASSERT(strcmp(out, again) == 0, "%s -> %s", out, again);
		FUZZ_ASSERT(board_compute_key(&b) == board_compute_key(&b2), "%s", out);
		FUZZ_ASSERT(b.key == board_compute_key(&b), "%s: key", out);
		check_moves(&b, out);
	} else {
		FUZZ_ASSERT(err[0] != '\0', "no message for a refused FEN");
	}
	free(text);
	return 0;
}
