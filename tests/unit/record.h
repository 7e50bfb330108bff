/*
 * record.h — a game's record written into a store as game.c writes it,
 * for the unit tests that read records back (test_recover, test_replay_page):
 * the game row between two new users, then each action applied to a
 * referee and stored with the events it produced.
 */
#ifndef KRIEG_TEST_RECORD_H
#define KRIEG_TEST_RECORD_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "event.h"
#include "fen.h"
#include "referee.h"
#include "store.h"

/* A new game row of rules from the start position: alice (White) against
 * bob, both made here. */
static inline void record_begin(struct store *st, const char *rules, struct store_game *game)
{
	int64_t u1, u2;

	ck_assert_int_eq(store_user_create(st, "alice", "", 1, &u1), STORE_OK);
	ck_assert_int_eq(store_user_create(st, "bob", "", 1, &u2), STORE_OK);
	memset(game, 0, sizeof *game);
	game->white = u1;
	game->black = u2;
	snprintf(game->rules, sizeof game->rules, "%s", rules);
	snprintf(game->fen, sizeof game->fen, "%s", FEN_START);
	ck_assert_int_eq(store_game_create(st, game), STORE_OK);
}

/* act applied to r (it must be accepted) and stored as the game's action
 * seq with its events and these clocks; out is scratch. */
static inline void record_action(struct store *st, int64_t game, int seq, struct referee *r,
                                 const struct action *act, int64_t clock_white_ms,
                                 int64_t clock_black_ms, struct evlist *out)
{
	struct store_action a = { .game = game, .seq = seq, .ok = 1, .color = act->color,
	                          .clock_white_ms = clock_white_ms,
	                          .clock_black_ms = clock_black_ms };

	snprintf(a.kind, sizeof a.kind, "%s", action_kind_name(act->kind));
	snprintf(a.text, sizeof a.text, "%s", act->text);
	evlist_clear(out);
	ck_assert_int_eq(referee_apply(r, act, out), REF_OK);
	ck_assert_int_eq(store_game_action(st, &a, out->v, out->n), STORE_OK);
}

#endif
