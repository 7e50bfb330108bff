/*
 * referee_snap.h — what a refused referee call must leave as it was, for
 * the unit tests of the rules core: the board, the whole state's hash, the
 * side to move and the plies played.
 *
 *     ASSERT_FAILS_CLEANLY(r, &ev, referee_attempt(r, BLACK, "e5", &ev),
 *                          REF_E_NOT_YOUR_TURN);
 *
 * asserts the call returns that status, appends no event, changes none of
 * the above and leaves a message for referee_error().
 */
#ifndef KRIEG_REFEREE_SNAP_H
#define KRIEG_REFEREE_SNAP_H

#include "check_main.h"   /* check.h, with assertions that do not write on a pass */
#include <stdint.h>

#include "fen.h"
#include "referee.h"

struct snap {
	char fen[FEN_MAX];
	uint64_t hash;
	int side, plies;
};

static inline struct snap snap_of(const struct referee *r)
{
	struct snap s;
	fen_format(referee_board(r), s.fen, sizeof s.fen);
	s.hash = referee_state_hash(r);
	s.side = referee_side_to_move(r);
	s.plies = referee_plies(r);
	return s;
}

#define ASSERT_SAME_SNAP(a, b)                                                       \
	do {                                                                         \
		ck_assert_str_eq((a).fen, (b).fen);                                  \
		ck_assert((a).hash == (b).hash);                                     \
		ck_assert_int_eq((a).side, (b).side);                                \
		ck_assert_int_eq((a).plies, (b).plies);                              \
	} while (0)

#define ASSERT_FAILS_CLEANLY(r, ev, call, want)                                      \
	do {                                                                         \
		struct snap before_ = snap_of(r);                                    \
		evlist_clear(ev);                                                    \
		int st_ = (call);                                                    \
		ck_assert_int_eq(st_, (want));                                       \
		ck_assert_uint_eq((ev)->n, 0);                                       \
		struct snap after_ = snap_of(r);                                     \
		ASSERT_SAME_SNAP(before_, after_);                                   \
		ck_assert(referee_error(r)[0] != '\0');                              \
	} while (0)

#endif
