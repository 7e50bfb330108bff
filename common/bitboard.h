/*
 * bitboard.h — 64-bit square sets and the attack lookups built on them.
 *
 * The tables are `const` arrays generated at build time by
 * common/gen/gentables.c (see the Makefile) and defined in attacks.c; the
 * lookups are inline so move generation pays no call per probe.  Sliding
 * attacks use "fancy" magic bitboards: (occupancy & mask) * magic >> shift
 * indexes a per-square slice of one shared table.
 */
#ifndef KRIEG_BITBOARD_H
#define KRIEG_BITBOARD_H

#include <stdint.h>

#include "board.h"

#define BB_FILE_A 0x0101010101010101ULL
#define BB_FILE_H (BB_FILE_A << 7)
#define BB_RANK_1 0xFFULL
#define BB_RANK_2 (BB_RANK_1 << 8)
#define BB_RANK_3 (BB_RANK_1 << 16)
#define BB_RANK_6 (BB_RANK_1 << 40)
#define BB_RANK_7 (BB_RANK_1 << 48)
#define BB_RANK_8 (BB_RANK_1 << 56)
#define BB_LIGHT 0x55AA55AA55AA55AAULL /* h1 is light: a1 dark */
#define BB_DARK (~BB_LIGHT)

struct bb_magic {
	bb_t mask;
	bb_t magic;
	const bb_t *attacks;
	unsigned shift;
};

extern const bb_t bb_knight_table[64];
extern const bb_t bb_king_table[64];
extern const bb_t bb_pawn_table[128];     /* [color * 64 + sq]: squares a pawn there attacks */
extern const bb_t bb_between_table[4096]; /* [a * 64 + b]: squares strictly between, or 0 */
extern const bb_t bb_line_table[4096];    /* [a * 64 + b]: the whole line through both, or 0 */
extern const struct bb_magic bb_rook_magics[64];
extern const struct bb_magic bb_bishop_magics[64];

static inline bb_t bb_sq(int sq) { return 1ULL << sq; }
static inline int bb_count(bb_t b) { return __builtin_popcountll(b); }
static inline int bb_lsb(bb_t b) { return __builtin_ctzll(b); }
static inline bool bb_several(bb_t b) { return (b & (b - 1)) != 0; }

/* Remove and return the lowest square; b must be non-empty. */
static inline int bb_pop(bb_t *b)
{
	int sq = __builtin_ctzll(*b);
	*b &= *b - 1;
	return sq;
}

static inline bb_t bb_knight(int sq) { return bb_knight_table[sq]; }
static inline bb_t bb_king(int sq) { return bb_king_table[sq]; }
static inline bb_t bb_pawn_attacks(int color, int sq) { return bb_pawn_table[color * 64 + sq]; }
static inline bb_t bb_between(int a, int b) { return bb_between_table[a * 64 + b]; }
static inline bb_t bb_line(int a, int b) { return bb_line_table[a * 64 + b]; }

static inline bb_t bb_rook(int sq, bb_t occ)
{
	const struct bb_magic *m = &bb_rook_magics[sq];
	return m->attacks[((occ & m->mask) * m->magic) >> m->shift];
}

static inline bb_t bb_bishop(int sq, bb_t occ)
{
	const struct bb_magic *m = &bb_bishop_magics[sq];
	return m->attacks[((occ & m->mask) * m->magic) >> m->shift];
}

static inline bb_t bb_queen(int sq, bb_t occ) { return bb_rook(sq, occ) | bb_bishop(sq, occ); }

/* One rank towards the opponent for `color`'s pawns. */
static inline bb_t bb_forward(int color, bb_t b) { return color == WHITE ? b << 8 : b >> 8; }

/* Pieces of colour `by` attacking sq, given occupancy occ (pieces outside
 * occ still attack: callers remove a captured piece from both). */
static inline bb_t bb_attackers(const struct board *b, int sq, int by, bb_t occ)
{
	const bb_t *p = b->pieces[by];
	return (bb_pawn_attacks(by ^ 1, sq) & p[PAWN]) | (bb_knight(sq) & p[KNIGHT]) |
	       (bb_king(sq) & p[KING]) | (bb_bishop(sq, occ) & (p[BISHOP] | p[QUEEN])) |
	       (bb_rook(sq, occ) & (p[ROOK] | p[QUEEN]));
}

/*
 * Would `us` taking en passant from `from` onto `ep` leave its own king
 * safe?  Two pawns leave one rank at once, so pins do not tell: test the
 * board after the capture.  Shared by move generation and the Zobrist key
 * (board.c), which counts an en-passant right only when it can be used.
 * A board without us's king (a player's view) has no king to expose.
 */
static inline bool bb_ep_safe(const struct board *b, int us, int from, int ep)
{
	const bb_t *mine = b->pieces[us], *theirs = b->pieces[us ^ 1];
	if (!mine[KING])
		return true;
	const int ksq = bb_lsb(mine[KING]);
	const int cap = us == WHITE ? ep - 8 : ep + 8;
	const bb_t occ = (b->occ[WHITE] | b->occ[BLACK]) ^ bb_sq(from) ^ bb_sq(cap) ^ bb_sq(ep);
	return !((bb_pawn_attacks(us, ksq) & theirs[PAWN] & ~bb_sq(cap)) | (bb_knight(ksq) & theirs[KNIGHT]) |
	         (bb_bishop(ksq, occ) & (theirs[BISHOP] | theirs[QUEEN])) |
	         (bb_rook(ksq, occ) & (theirs[ROOK] | theirs[QUEEN])));
}

#endif
