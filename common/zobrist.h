/*
 * zobrist.h — position hash keys.
 *
 * The keys are const tables generated at build time (common/gen/gentables.c,
 * fixed seed) so they are the same in every build and no code mutates them.
 * A position's key is the xor of: one key per piece on a square, the key of
 * the castling-rights set, the en-passant file's key when the side to move
 * has a legal en-passant capture, the side key when Black is to move, and
 * for each reserve (crazykrieg) one key per man held: the keys of counts
 * 1..n of that colour and type.
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
extern const uint64_t zobrist_hand_table[2 * 5 * 16]; /* [(color * 5 + type) * 16 + count - 1] */

static inline uint64_t zobrist_piece(int color, int type, int sq)
{
	return zobrist_psq_table[(color * 6 + type) * 64 + sq];
}
static inline uint64_t zobrist_castle(int rights) { return zobrist_castle_table[rights & 15]; }
static inline uint64_t zobrist_ep(int sq) { return zobrist_ep_table[sq & 7]; }
/* The key of holding a count-th man (count 1..16) of a type in a reserve. */
static inline uint64_t zobrist_hand(int color, int type, int count)
{
	return zobrist_hand_table[(color * 5 + type) * 16 + ((count - 1) & 15)];
}

#endif
