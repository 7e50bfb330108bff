/*
 * belief.h — what krieg-bot thinks the board may be: the set of whole
 * positions (its own pieces, which it knows, plus an opponent placement)
 * consistent with every announcement it was told, each with a weight.
 *
 * It is built from the bot's own events alone (the same events a view.c
 * view is built from), never from the true board.  While the set is small
 * it is exact: every position the opponent's moves could have produced and
 * the umpire's words did not rule out, deduplicated.  Past exact_max it
 * becomes a weighted sample (a particle filter): each opponent move expands
 * every particle into all its children (weight shared equally among them),
 * the announcements filter them, and systematic resampling brings the
 * count back to `particles`.
 *
 * The announcements that follow a move (capture, check) arrive as separate
 * events; the move's children carry what they would make the umpire say,
 * and the set is filtered once the last of them is in ("settled"): at the
 * next event of another kind, or by belief_settle() before a decision.
 *
 * The hypotheses are one flat array, so a copy is one allocation and one
 * memcpy (belief_clone).
 */
#ifndef KRIEG_BELIEF_H
#define KRIEG_BELIEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "event.h"
#include "ruleset.h"

#define BELIEF_EXACT_MAX 4096     /* exact enumeration up to this many positions */
#define BELIEF_PARTICLES 1024     /* then a sample of this many */

struct belief_limits {
	size_t exact_max;
	size_t particles;
};

/* One candidate position: the whole board, both colours. */
struct belief_hyp {
	struct board b;
	double w;                 /* weight; the set's weights sum to 1 once settled */
	int8_t x_sq;              /* what the last move makes the umpire say to us: capture square or -1 */
	uint8_t x_what;           /* enum captured_kind as announced (CAPTURED_UNSAID where not said) */
	bool x_ep;                /* gollon's "en passant" flag */
	uint8_t x_chk[2];         /* check directions as announced, CHECK_NONE if none */
	bool x_promo;             /* a promotion the rule set announces (rand) */
};

struct belief {
	const struct ruleset *rs;
	int color;                /* whose belief (the bot's colour) */
	struct belief_hyp *h;
	size_t n, cap;
	struct belief_limits lim;
	bool exact;               /* false once the set has ever been sampled */
	bool over;
	/* a move's trailing announcements, collected until the set settles */
	bool pending;
	int8_t heard_sq;
	uint8_t heard_what;
	bool heard_ep;
	uint8_t heard_chk[2];
	bool heard_promo;
	/* the opponent's turn so far */
	int opp_illegal;          /* its refused tries heard this turn (where told apart from impossible ones) */
	bool opp_obliged;         /* its "any?" got a yes: its first try must be a pawn capture */
	uint64_t rng;
	unsigned long lost;       /* announcements nothing in the sample fitted (skipped; sample mode only) */
};

/* start: the position the game began from (the players know it).  lim NULL: the defaults. */
struct belief *belief_new(const struct ruleset *rs, const struct board *start, int color,
                          const struct belief_limits *lim, uint64_t seed);
void belief_free(struct belief *bel);
struct belief *belief_clone(const struct belief *bel);

/* One event the bot received (events for other audiences are ignored). */
void belief_apply(struct belief *bel, const struct event *e);

/* Filter by the last move's announcements, if not done yet.  Idempotent. */
void belief_settle(struct belief *bel);

static inline size_t belief_count(const struct belief *bel) { return bel->n; }
static inline bool belief_is_exact(const struct belief *bel) { return bel->exact; }

/* A position drawn by weight (settles first). */
const struct board *belief_sample(struct belief *bel);

/*
 * Where a position stands in the belief: the share of the total weight
 * held by positions weighted strictly more than it, or -1 if it is not
 * in the set.  0 means it is (one of) the most likely; < 0.5 means it is
 * in the top half of the weight.  For measurements, never for play.
 */
double belief_rank(struct belief *bel, const struct board *pos);

/* Probability (by weight) that `m`, a try of the side to move, is legal. */
double belief_p_legal(struct belief *bel, move_t m);

/* A 64-bit generator shared by the bot's modules (splitmix64). */
uint64_t belief_rand(uint64_t *state);

#endif
