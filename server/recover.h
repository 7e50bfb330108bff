/*
 * recover.h — rebuilding a game from its stored record, checked.
 *
 * A game's record is its actions and, for each, the announcements that
 * were sent.  recover_verify() replays the actions through a fresh referee
 * and requires the replay's events to equal the stored ones, action by
 * action, field by field (the SAN text is not stored and is not compared:
 * it is derived from the move, which is).  A record that fails is not
 * trusted: the caller flags it (store_game_flag), logs it, and does not
 * resume the game; nothing in the record is changed.
 *
 * recover_apply() is the one mapping from a stored action to a referee
 * call, shared by recovery and by history's record views.
 */
#ifndef KRIEG_RECOVER_H
#define KRIEG_RECOVER_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "store.h"

struct referee;

/* A verified replay: the rebuilt referee and what the live game needs. */
struct recover_result {
	struct referee *ref;           /* owned by the caller once returned */
	struct store_action *acts;     /* the applied (ok) actions, in order */
	size_t nacts;
	int last_seq;                  /* seq of the last action, 0 if none */
	int64_t clock_ms[2];           /* both clocks after the last action; -1 if none */
	int64_t last_at_ms;            /* wall clock of the last action (ms since the epoch) */
	int draw_offer;                /* colour with a standing draw offer, or -1 */
};

enum recover_status {
	RECOVER_OK = 0,
	RECOVER_MISMATCH = 1,   /* the record is inconsistent: flag it */
	RECOVER_STORE = 2,      /* the store could not be read (not the record's fault) */
};

/* Apply one stored action to a referee: a REF_ status.  kind is one of
 * "begin", "try", "list", "quiet", "any", "end", "draw" (as game.c stores
 * them).  A "draw" action (text "offer" or "decline") is a game-level
 * notice: it announces nothing through the referee, so it only checks that
 * the game is not over. */
int recover_apply(struct referee *r, const struct store_action *a, struct evlist *out);

/* The draw offer standing after action a, given the one standing before it
 * and the plies played before it (game.c's rule: an offer lapses when the
 * side it was made to plays on; declining withdraws it). */
int recover_draw_offer(int offer, const struct store_action *a, int plies_before,
                       int plies_after);

/* Replay and check game g (its row as read from the store).  On RECOVER_OK
 * *out holds the result (free it with recover_result_free); otherwise err
 * says what failed, e.g. "seq 7: event 2 differs in type (stored illegal, replay
 * move)", and *out is empty. */
int recover_verify(struct store *st, const struct store_game *g, struct recover_result *out,
                   char *err, size_t errlen);
void recover_result_free(struct recover_result *r);

/* Verify and, on a mismatch, flag the game and log it (a warning naming the
 * game and the reason).  Returns RECOVER_OK with *out filled, or the status.
 * A game flagged earlier is not replayed again: RECOVER_MISMATCH. */
int recover_game(struct store *st, const struct store_game *g, struct recover_result *out);

#endif
