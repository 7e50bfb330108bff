/*
 * movegen.h — legal move generation, the "possible" moves a player may
 * attempt on a board holding only their own pieces, and perft.
 */
#ifndef KRIEG_MOVEGEN_H
#define KRIEG_MOVEGEN_H

#include "board.h"

/* Standard chess has at most 218 legal moves; crazykrieg's drops add up to
 * five men times 64 squares, and the possible moves of a player's own
 * board (pawn diagonals onto any square, promotions) stay below 300. */
#define MOVES_MAX 640

struct movelist {
	move_t m[MOVES_MAX];
	int n;
};

/* All legal moves of the side to move.  Promotions appear four times (N, B, R, Q).
 * Drops from the side's reserve (board.h) are legal moves too. */
void movegen_legal(const struct board *b, struct movelist *out);

/* Is m (any 16-bit value, possibly garbage) a legal move here? */
bool movegen_is_legal(const struct board *b, move_t m);

/* The number of legal moves, without listing them (checkmate/stalemate
 * tests, perft's last ply). */
int movegen_count(const struct board *b);

/* The legal move with m's origin, destination and (for a promotion)
 * promotion piece, whatever m's kind says, or MOVE_NONE.  This maps a
 * possible attempt (movegen_possible writes a pawn's diagonal as
 * MOVE_NORMAL) onto the true board, where it may be an en passant. */
move_t movegen_find_legal(const struct board *b, move_t m);

/*
 * Moves that side `color` could attempt as seen from its own pieces alone:
 * every move legal on a board holding only that side's pieces (castling
 * needs the right and empty squares between king and rook on that board;
 * the king is never in check there), plus every pawn diagonal capture onto
 * a square not holding an own piece (with its promotions, and whether or
 * not an enemy stands there), plus every drop from the reserve onto a
 * square without an own man (pawns not on the first or last rank).  An
 * attempt outside this set is "impossible":
 * the player can know it is illegal without any knowledge of the enemy.
 * Works whoever is to move.
 */
void movegen_possible(const struct board *b, int color, struct movelist *out);
bool movegen_is_possible(const struct board *b, int color, move_t m);

/* Legal pawn captures of the side to move, en passant included, a
 * promoting capture counted once (not four times).  In check, only those
 * that resolve it, because only legal moves count. */
int movegen_pawn_captures(const struct board *b);

/* The squares of the side to move's pawns that have a legal capture (bit i
 * = square i), by the same count as movegen_pawn_captures(). */
uint64_t movegen_pawn_capture_squares(const struct board *b);

/* Leaf count of the legal move tree to `depth` plies. */
uint64_t perft(const struct board *b, int depth);

#endif
