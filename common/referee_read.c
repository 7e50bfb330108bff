/*
 * referee_read.c — reading a player's attempt (referee_priv.h): what the
 * typed text names on the player's own pieces, whether the player could
 * know it to be impossible, and whether the turn allows it.  Nothing here
 * changes the referee's state except the message of a failure.
 */
#include <stdio.h>
#include <string.h>

#include "referee_priv.h"

/*
 * An attempt that names an own piece's square and a target square (or a
 * castling) but is not a possible move: "Ra1a5" as a first move.  Such an
 * attempt is answered (impossible, or illegal where the rule set makes no
 * difference) instead of being a notation error, because the rules speak
 * of it.  SAN without the starting square that no own piece can make
 * stays a notation error: it names no piece.
 */
static bool raw_attempt(const struct board *own, int color, const struct notation_parts *p,
                        move_t *out)
{
	int back = color == WHITE ? 0 : 56;

	if (p->drop) {
		/* A drop of a man the reserve holds onto an own man: the player
		 * knows it cannot be.  A pawn onto the first or last rank is no
		 * drop at all (as e2e9 is no move), and P@a1 would read as
		 * MOVE_NONE: a notation error. */
		if (p->piece < PAWN || p->piece > QUEEN || !own->hand[color][p->piece] ||
		    (p->piece == PAWN && (p->to < 8 || p->to >= 56)))
			return false;
		*out = move_make_drop(p->piece, p->to);
		return true;
	}
	if (p->castle != NOTATION_CASTLE_NONE) {
		/* Castling names one move, the king's from its home square, whether
		 * or not the king stands there: written when it is not possible (no
		 * right, king or rook moved, own pieces between) it is an attempt
		 * the player knows to be impossible, like "O-O without the right". */
		*out = move_make(back + 4, p->castle == NOTATION_CASTLE_LONG ? back + 2 : back + 6,
		                 MOVE_CASTLING, KNIGHT);
		return true;
	}
	int from = p->from, to = p->to;
	if (from == SQ_NONE || from == to)
		return false;
	uint8_t code = own->mailbox[from];
	if (code == MAILBOX_EMPTY || piece_code_color(code) != color)
		return false;
	int type = piece_code_type(code);
	if (p->piece != PIECE_NONE && p->piece != type)
		return false;
	bool last = (to >> 3) == (color == WHITE ? 7 : 0);
	if (type == PAWN && last) {
		*out = move_make(from, to, MOVE_PROMOTION, p->promo == PIECE_NONE ? QUEEN : p->promo);
		return true;
	}
	if (p->promo != PIECE_NONE)
		return false;
	if (type == KING && from == back + 4 && (to == back + 6 || to == back + 2))
		*out = move_make(from, to, MOVE_CASTLING, KNIGHT);
	else
		*out = move_make(from, to, MOVE_NORMAL, KNIGHT);
	return true;
}

/*
 * A pawn capture the turn's public pawn information already rules out
 * (cincinnati "no pawn capture", rand's squares, berkeley_any's "No"): the
 * mover can know it is illegal, so it is impossible like a move through
 * an own piece (RULESETS.md, ks-game's possible set).
 */
bool referee_ruled_out(const struct referee *r, move_t m)
{
	return r->rs->pawn_info_binds && referee_is_pawn_capture(&r->b, m) && !(r->pawn_ok >> move_from(m) & 1);
}

/* Read one attempt of `color`: REF_OK with *m and whether it is possible. */
int referee_resolve(struct referee *r, int color, const char *text, move_t *m, bool *possible)
{
	struct board own;
	struct notation_parts parts;
	char e[96] = "";
	if (text == NULL || strlen(text) > NOTATION_INPUT_MAX)
		return referee_fail(r, REF_E_SYNTAX, "not a move: too long");
	board_own_view(&r->b, color, &own);
	enum notation_status st = notation_lex(text, &parts, e, sizeof e);
	if (st == NOTATION_OK)
		st = notation_resolve(&own, color, &parts, m, e, sizeof e);
	if (st == NOTATION_OK) {
		*possible = !referee_ruled_out(r, *m);
		return REF_OK;
	}
	if (st == NOTATION_NO_PIECE && raw_attempt(&own, color, &parts, m)) {
		*possible = movegen_is_possible(&own, color, *m) && !referee_ruled_out(r, *m);
		return REF_OK;
	}
	char msg[140];
	snprintf(msg, sizeof msg, "%s", e[0] ? e : "not a move");
	switch (st) {
	case NOTATION_AMBIGUOUS: return referee_fail(r, REF_E_AMBIGUOUS, msg);
	case NOTATION_NO_PIECE: return referee_fail(r, REF_E_NO_PIECE, msg);
	default: return referee_fail(r, REF_E_SYNTAX, msg);
	}
}

bool referee_is_pawn_capture(const struct board *b, move_t m)
{
	return piece_code_type(b->mailbox[move_from(m)]) == PAWN && (move_from(m) & 7) != (move_to(m) & 7);
}

/*
 * One try is one origin and one destination.  The promotion piece does
 * not make another: whether a pawn may step or capture onto the last rank
 * never depends on what it becomes, so exd8=N after exd8=Q was refused
 * would ask the same question again (seed 000 rule 6 counts it once; the
 * rule sets that announce tries would announce it twice).
 */
bool referee_same_try(move_t a, move_t b)
{
	return move_from(a) == move_from(b) && move_to(a) == move_to(b);
}

bool referee_list_has_try(const struct movelist *l, move_t m)
{
	for (int i = 0; i < l->n; i++)
		if (referee_same_try(l->m[i], m))
			return true;
	return false;
}

int referee_check_turn(struct referee *r, int color)
{
	if (color != WHITE && color != BLACK)
		return referee_fail(r, REF_E_BAD_ARGUMENT, "bad colour");
	if (!r->begun)
		return referee_fail(r, REF_E_BAD_ARGUMENT, "referee_begin was not called");
	if (r->over)
		return referee_fail(r, REF_E_GAME_OVER, "the game is over");
	if (color != r->b.side)
		return referee_fail(r, REF_E_NOT_YOUR_TURN, "not your turn");
	return REF_OK;
}

/* Validation of one resolved try against the turn state. */
int referee_check_try(struct referee *r, move_t m, bool possible)
{
	if (referee_list_has_try(&r->refused, m))
		return referee_fail(r, REF_E_ALREADY_TRIED, REFEREE_SAY_ALREADY_TRIED);
	if (r->must_capture && !(possible && referee_is_pawn_capture(&r->b, m)))
		return referee_fail(r, REF_E_MUST_TRY_CAPTURE, "a pawn capture must be tried first");
	return REF_OK;
}

/* "O-O" / "O-O-O" for a castling attempt, "" for anything else. */
const char *referee_castle_san(move_t m)
{
	if (move_kind(m) != MOVE_CASTLING)
		return "";
	return move_to(m) > move_from(m) ? "O-O" : "O-O-O";
}

/*
 * The legal move of the true board that an attempt means, or MOVE_NONE.
 * The attempt was read on the player's own board, where a diagonal pawn
 * step onto the en-passant square is an ordinary capture attempt: match
 * by squares (and promotion piece), and take the kind from the true board.
 */
move_t referee_legal_match(const struct board *b, move_t m)
{
	struct movelist ml;
	movegen_legal(b, &ml);
	for (int i = 0; i < ml.n; i++) {
		move_t l = ml.m[i];
		if (move_is_drop(l) || move_is_drop(m)) {
			if (l == m)
				return l;
			continue;
		}
		if (move_from(l) != move_from(m) || move_to(l) != move_to(m))
			continue;
		if (move_kind(l) == MOVE_PROMOTION &&
		    (move_kind(m) != MOVE_PROMOTION || move_promo(l) != move_promo(m)))
			continue;
		return l;
	}
	return MOVE_NONE;
}

