/*
 * zobrist.h — position hash keys.
 *
 * The keys are const tables generated at build time (common/gen/gentables.c,
 * fixed seed) so they are the same in every build and no code mutates them.
 * A position's key is the xor of: one key per piece on a square, the key of
 * the castling-rights set, the en-passant file's key when the side to move
 * has a legal en-passant capture, and the side key when Black is to move.
 * The en-passant square counts only when the capture is legal (a pawn
 * ready beside the pushed one is not enough: a pin or a check may forbid
 * it): FIDE counts positions as the same when the same moves are possible,
 * and the umpire's repetition rule depends on it.
 */
#ifndef KRIEG_ZOBRIST_H
#define KRIEG_ZOBRIST_H

#include <stdint.h>

extern const uint64_t zobrist_psq_table[768];  /* [(color * 6 + type) * 64 + sq] */
extern const uint64_t zobrist_castle_table[16];
extern const uint64_t zobrist_ep_table[8];
extern const uint64_t zobrist_side_key;

static inline uint64_t zobrist_piece(int color, int type, int sq)
{
	return zobrist_psq_table[(color * 6 + type) * 64 + sq];
}
static inline uint64_t zobrist_castle(int rights) { return zobrist_castle_table[rights & 15]; }
static inline uint64_t zobrist_ep(int sq) { return zobrist_ep_table[sq & 7]; }

#endif
