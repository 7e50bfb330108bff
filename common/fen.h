/*
 * fen.h — Forsyth-Edwards Notation in and out, fully validated.
 */
#ifndef KRIEG_FEN_H
#define KRIEG_FEN_H

#include "board.h"

#define FEN_MAX 160      /* longest FEN fen_format() writes, with the NUL (a Crazyhouse one:
                          * 71 placement, 16 '~', 34 reserve, 22 other fields) */
#define FEN_INPUT_MAX 256 /* longer input is rejected unread */
#define FEN_START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

/*
 * Parse `fen` into *b.  Returns 0, or -1 with a message naming what is
 * wrong in err (e.g. "rank 3 has 9 squares", "two white kings",
 * "side not to move is in check", "castling right K without a rook on h1",
 * "en passant square e3 without a pawn that just moved two squares",
 * "impossible double check from d3 and f3: no single move gives both",
 * "too many white pieces for the pawns promoted" (bishops counted per
 * square colour)).  Only positions a game can reach pass; every position
 * reached in play parses from its own FEN.
 * *b is untouched on error.  The halfmove and fullmove fields are optional.
 *
 * Crazyhouse FEN (crazykrieg) ends the placement with the reserves in
 * brackets, White's men upper case and Black's lower case, and marks a
 * promoted man with '~' ("r~3k3/8/8/8/8/8/8/4K3[QNpp] w - - 0 1"); a FEN
 * with a reserve field sets b->crazy.  Material is then checked for both
 * sides together (men change sides): at most 16 pawns with the promoted
 * men, 4 knights, bishops and rooks, 2 queens.  fen_format writes the
 * same form when b->crazy is set: reserves White first, Q R B N P.
 */
int fen_parse(const char *fen, struct board *b, char *err, size_t errlen);

/* Write the FEN of b into buf (at least FEN_MAX bytes). */
void fen_format(const struct board *b, char *buf, size_t len);

#endif
