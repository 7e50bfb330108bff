/*
 * club.h — ratings on the wire: the `standings` request (the club table
 * of a rule set's pool) and the rating objects that `who`, seeks and
 * game_start carry.  The arithmetic is rating.c's, the rows store's; a
 * rated game's update is written with its finish (game.c, pending_write).
 *
 * A rating on the wire: {"rating": 1612, "rd": 74, "provisional": false}
 * (rating and rd rounded to integers; provisional while rd is above
 * RATING_PROVISIONAL_RD).  A user never rated in a pool plays at
 * rating_initial() there, and is shown so (provisional).
 */
#ifndef KRIEG_CLUB_H
#define KRIEG_CLUB_H

#include <jansson.h>
#include <stdint.h>

struct server;


/* user's rating in the pool of rule set `rules`, as above; NULL if the
 * store failed (logged). */
json_t *club_rating_json(struct server *srv, int64_t user, const char *rules);
/* Integer rating of user in the pool of rules (rounded), for seek
 * ranges; -1 if the store failed. */
int club_rating_of(struct server *srv, int64_t user, const char *rules);
/* {"icc": {...}, "english": {...}}: only the pools the user was rated in;
 * NULL when none (or on a store failure). */
json_t *club_ratings_json(struct server *srv, int64_t user);

#endif
