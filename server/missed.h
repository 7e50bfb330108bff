/*
 * missed.h — the games that ended while a player was away, kept in
 * memory for the player's next login (game_presence.c's `welcome`).  No I/O.
 *
 * Bounded twice: a player keeps at most `per_user` (their oldest go first),
 * and the server at most `max`: when that is full, the player holding the
 * most gives up their oldest (of equals, the one whose oldest is older), so
 * one account's games never push out another's while it holds more
 * (memory probe: one list of 10,000, oldest first, let one account's
 * abandoned games push out everyone's).
 */
#ifndef KRIEG_MISSED_H
#define KRIEG_MISSED_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define MISSED_PER_USER 64       /* a player's, kept */
#define MISSED_MAX 10000         /* the server's */

struct missed_game {
	int64_t game;
	int color, result, reason;   /* the player's side in it; how it ended */
	char opponent[PROTO_NAME_MAX + 1];
};

struct missed;

struct missed *missed_new(size_t per_user, size_t max);
void missed_free(struct missed *m);   /* NULL: nothing */

/* One more for `user`, within the bounds (above). */
void missed_add(struct missed *m, int64_t user, const struct missed_game *g);

/* `user`'s, oldest first, each to fn, and forgotten: how many. */
size_t missed_take(struct missed *m, int64_t user, void (*fn)(const struct missed_game *g, void *arg),
                   void *arg);

/* Held in all, and `user`'s (tests). */
size_t missed_count(const struct missed *m);
size_t missed_count_of(const struct missed *m, int64_t user);

#endif
