/*
 * rating.h — Glicko-2 (Mark Glickman, "Example of the Glicko-2 system",
 * 2012), pure: no I/O, no globals, no clock.  The store keeps ratings and
 * their history (store.h, "Ratings"); game.c calls rating_game() through
 * the store when a rated game ends.
 *
 * Pools.  A player has one rating per rule set FAMILY, not per rule set
 * and not one overall: the families group the rule sets that announce the
 * same kind of information, which is what the skill of Kriegspiel is
 * about (reading the referee), while the small differences inside a
 * family (who may ask "any?", how an illegal try is worded) barely change
 * it.  Splitting every rule set would leave each pool too thin for a club.
 *   "icc"     icc, nost       (pawn-try counts, captures by piece/pawn)
 *   "english" english, insurance, gollon   ("any?" asked and answered)
 * A rule set not listed here (a future one) is its own pool.
 *
 * Rating periods.  Each rated game is one rating period for both players,
 * computed from the ratings both had before it (as on most online
 * servers); there is no separate time decay of RD.
 */
#ifndef KRIEG_RATING_H
#define KRIEG_RATING_H

#include <stdbool.h>
#include <stddef.h>

#define RATING_DEFAULT 1500.0
#define RATING_RD_DEFAULT 350.0       /* a new player: very uncertain */
#define RATING_VOL_DEFAULT 0.06
#define RATING_RD_MIN 45.0            /* floor after an update: a rating never freezes */
#define RATING_TAU 0.5                /* Glickman's system constant (0.3 .. 1.2); his example's */
#define RATING_PROVISIONAL_RD 110.0   /* RD above this: the rating is marked provisional */
#define RATING_POOL_MAX 16

struct rating {
	double r, rd, vol;            /* Glicko scale: rating, deviation, volatility */
};

/* One game of a rating period: the opponent's rating before it and the
 * score (1 win, 0.5 draw, 0 loss). */
struct rating_game {
	struct rating opp;
	double score;
};

/* The new rating of a player rated p after the games of one period (n 0:
 * RD only grows).  Returns 0, or -1 on bad input (score outside 0..1,
 * rd or vol not positive, a non-finite value). */
int rating_update(const struct rating *p, const struct rating_game *games, size_t n,
                  double tau, struct rating *out);

/* One rated game between a and b: a's score sa (1, 0.5, 0).  Writes both
 * new ratings (RD floored at RATING_RD_MIN).  Returns 0 or -1. */
int rating_game(const struct rating *a, const struct rating *b, double sa, struct rating *a_out,
                struct rating *b_out);

/* The pool a rule set's games are rated in (see above). */
const char *rating_pool(const char *rules);
/* The distinct pools, i = 0, 1, ...; NULL past the last. */
const char *rating_pool_at(size_t i);
/* A fresh player's rating. */
struct rating rating_initial(void);
bool rating_provisional(const struct rating *p);

#endif
