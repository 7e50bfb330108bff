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
 * every particle into all its children (weight shared equally among them:
 * the opponent is modelled as choosing uniformly among its legal moves),
 * the announcements filter them, and systematic resampling brings the
 * count back to `particles`.  The resampling (and the switch from exact to
 * sampled) waits until the set is used (belief_settle) or is about to grow
 * again (the next opponent move): everything heard in between filters the
 * whole set first, so the sample is drawn among positions that fit all of
 * it rather than thinned afterwards.
 *
 * A filter alone loses diversity and, once the truth is gone, never gets it
 * back.  So the belief also keeps a checkpoint (the last exact set; once
 * sampled, the sample of BELIEF_CKPT_LAG opponent moves ago) and a log of
 * every observation since (belief_obs).  When the sample thins out
 * (fewer than particles/rejuv_div distinct positions) or nothing in it fits
 * an announcement, it is rejuvenated: fresh particles are drawn by
 * replaying opponent histories from the checkpoint, at each opponent move
 * choosing uniformly among the children consistent with everything observed
 * up to the next opponent move (sequential importance sampling, weight
 * multiplied by consistent/legal children at each step), so every new
 * particle fits every announcement.
 *
 * The announcements that follow a move (capture, check) arrive as separate
 * events; the move's children carry what they would make the umpire say,
 * and the set is filtered once the last of them is in ("settled"): at the
 * next event of another kind, or by belief_settle() before a decision.
 * Over a network a decision (or a measurement) may come between two lines
 * of one ply; a trailing announcement that arrives after the set settled,
 * with nothing else heard since, reopens the move, and the set is rebuilt
 * from the checkpoint by every observation logged (exact: all of them
 * enumerated again; sampled: rejuvenation).
 *
 * A bare king: once our captures (every one is announced, so they are
 * counted, not read from a candidate) have left the opponent its king
 * alone, the positions it can be in are no more than the squares that king
 * may stand on (not in crazykrieg, where a man taken may be dropped
 * again).  A sample then becomes exact again at the opponent's next move:
 * all of those squares, each keeping part of the weight the sample gave it
 * (the rest spread evenly), so the truth is back in the set even if the
 * sample had lost it; with at most 64 positions the set stays exact to the
 * end.  "Exact" there means the set holds every consistent position (and a
 * few that our last turn's refused tries would have ruled out); should
 * nothing in it fit an announcement, it is enumerated again at the
 * opponent's next move.
 *
 * Few men: while the opponent has BELIEF_FEW_MEN men or fewer (counted the
 * same way) and the set is a sample, its king and its pawns are spread
 * again at every opponent move: for each arrangement of its other men the
 * sample holds (its pieces on their squares, its pawns by file), every
 * rank for each pawn on its file and every square for the king, weighted
 * as for a bare king.  The pieces stay where the sample has them, so the
 * set is still a sample; but a sample that had lost the king, or a pawn's
 * rank (a blocked pawn is what a king is stalemated beside), has them
 * back.
 *
 * A lost sample: when nothing could be made to fit (an announcement
 * skipped, our move played on candidates it did not fit), the candidates
 * can fall behind what the bot knows for certain: a turn behind, our men
 * as they were, the opponent's king "taken" by a move of ours it did not
 * fit.  Every try is then illegal in every candidate, and the search has
 * nothing to go on.  So before the set is used (belief_settle) a set with
 * a candidate that disagrees with whose turn it is, or with our men as we
 * were told, or has no opponent king, is drawn afresh from the checkpoint
 * if a replay fits, and failing that put back on what we know: our men,
 * the side to move, the opponent's men where the candidate had them, and
 * a king it lost on every square it may stand on.
 *
 * crazykrieg: a position is a whole struct board, reserves included, and
 * its moves are the core's (movegen.h: drops are legal moves, board_make
 * sends a captured man to its captor's reserve, a promoted one as a pawn).
 * So the opponent's reserve is followed through every candidate: our own
 * captures add the exact man the umpire names to our reserve, its captures
 * to its reserve, and an opponent's drop (told by man, never by square)
 * expands into one child for every square where that man could legally
 * land, the other moves being filtered out by the drop's announcement.
 *
 * A deadline (belief_set_deadline): the work that grows with the size of
 * the set or the length of the log, rather than with one announcement, is
 * cut short when it passes: a rejuvenation keeps the particles it has drawn
 * (at least BELIEF_REJUV_MIN_TRIES replays are tried when the set is to be
 * replaced; none drawn: as if no replay fitted), an expansion of the set by
 * the opponent's move (or the exact set's rebuilding) keeps the children of
 * the parents it reached, BELIEF_EXPAND_MIN at least, taken in random
 * order, and the set becomes a sample of them (the checkpoint is still the
 * whole set before the move), and the few men's spread keeps the
 * arrangements it placed.  The set stays a weighted sample of positions
 * that fit everything heard, never empty.  Filtering the set by one
 * announcement is never cut (its cost is bounded by exact_max).  No
 * deadline (the default): the same work on any machine.  The clock is the
 * caller's (bot.c: the monotonic clock; a test: a counter), read once per
 * replay and once per BELIEF_EXPAND_MIN parents expanded.
 *
 * belief_clone copies the set, the checkpoint and the log (flat arrays, one
 * allocation and memcpy each), and the deadline.
 */
#ifndef KRIEG_BELIEF_H
#define KRIEG_BELIEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "event.h"
#include "ruleset.h"
#include "view.h"

#define BELIEF_EXACT_MAX 4096     /* exact enumeration up to this many positions */
#define BELIEF_PARTICLES 1024     /* then a sample of this many */
#define BELIEF_REJUV_DIV 4        /* rejuvenate below particles/4 distinct positions */
#define BELIEF_REJUV_TRIES 4      /* replay attempts per particle wanted, at most */
#define BELIEF_CKPT_LAG 6         /* a sampled checkpoint trails by this many opponent moves */
#define BELIEF_SPREAD_KEEP 0.5    /* share of weight a spread position keeps from the sample (few men, bare king) */
#define BELIEF_FEW_MEN 3          /* an opponent with this many men or fewer has its king and pawns spread again */
#define BELIEF_REJUV_MIN_TRIES 8  /* replays tried past the deadline when the set is to be replaced */
#define BELIEF_EXPAND_MIN 16      /* parents expanded past the deadline; the clock is read once per this many */

/* A clock for the deadline: milliseconds (or any unit the deadline is in), from any origin. */
typedef int64_t (*belief_clock_fn)(void *ctx);

struct belief_limits {
	size_t exact_max;
	size_t particles;
	size_t rejuv_div;         /* 0: BELIEF_REJUV_DIV; SIZE_MAX: never rejuvenate (for measurements) */
};

/* What the umpire tells us after one move (ours or theirs). */
struct heard {
	int8_t sq;                /* capture square as our audience hears it, or -1 */
	uint8_t what;             /* enum captured_kind as announced (CAPTURED_UNSAID where not said) */
	bool ep;                  /* gollon's "en passant" flag */
	uint8_t chk[2];           /* check directions as announced, CHECK_NONE if none */
	bool promo;               /* a promotion the rule set announces (rand) */
	uint8_t drop;             /* crazykrieg: the man dropped (enum captured_kind), CAPTURED_UNSAID if none */
};

/* One candidate position: the whole board, both colours. */
struct belief_hyp {
	struct board b;
	double w;                 /* weight; the set's weights sum to 1 once settled */
	struct heard x;           /* what the last move makes the umpire say to us */
};

/* One observation since the checkpoint, replayable on any candidate position. */
enum obs_kind {
	OBS_OWN,                  /* our move m was played; then `h` was heard */
	OBS_OPP,                  /* the opponent moved (a pawn capture if `obliged`); then `h` */
	OBS_ILLEGAL,              /* our try m was refused */
	OBS_REFUSABLE,            /* the side to move has at least n refusable tries */
	OBS_SIDE,                 /* n is the side to move */
	OBS_PAWN_COUNT,           /* the side to move has n pawn captures */
	OBS_PAWN_YESNO,           /* it has one (n = 1) or none (n = 0) */
	OBS_PAWN_SQUARES,         /* its pawn captures land on `squares` */
};

struct belief_obs {
	uint8_t kind;
	bool obliged;
	move_t m;
	int n;
	uint64_t squares;
	struct heard h;
};

struct belief {
	const struct ruleset *rs;
	int color;                /* whose belief (the bot's colour) */
	struct belief_hyp *h;
	size_t n, cap;
	struct belief_limits lim;
	bool exact;               /* false while the set is a sample (see "bare king" above) */
	bool over;
	/* a move's trailing announcements, collected until the set settles */
	bool pending;
	struct heard heard;
	bool reopen;              /* settled, and nothing logged since: a late trailing announcement reopens it */
	bool reopened;            /* ... which it did: the settle rebuilds the set from the checkpoint */
	/* the opponent's turn so far */
	int opp_illegal;          /* its refused tries heard this turn (where told apart from impossible ones) */
	bool opp_obliged;         /* its "any?" got a yes: its first try must be a pawn capture */
	uint64_t rng;
	unsigned long lost;       /* announcements nothing could be made to fit (skipped) */
	unsigned long rejuvenations, rejuv_failed;   /* statistics */
	unsigned long replays;    /* histories replayed by them (statistics: their work) */
	unsigned long reexact;    /* times a sample became exact again (bare king) */
	unsigned long respread;   /* times a sample's king and pawns were spread again (few men, not bare) */
	unsigned long reanchored; /* times a lost sample was put back on our men and the turn (belief_settle) */
	int opp_men;              /* the opponent's men on the board, by the captures announced (-1: crazykrieg) */
	struct view mine;         /* our own men as we were told (a lost sample may have them wrong) */
	bool own_unheard;         /* our last move fitted no candidate: its announcements went unheard */
	/* the last exact set and every observation since (rejuvenation) */
	struct belief_hyp *ckpt;
	size_t nckpt;
	struct belief_obs *log;
	size_t nlog, caplog;
	/* the deadline of the work (belief_set_deadline); clock NULL: none */
	belief_clock_fn clock;
	void *clock_ctx;
	int64_t deadline;
	unsigned long cut;        /* times work was cut short by the deadline (statistics) */
};

/* start: the position the game began from (the players know it).  lim NULL: the defaults. */
struct belief *belief_new(const struct ruleset *rs, const struct board *start, int color,
                          const struct belief_limits *lim, uint64_t seed);
void belief_free(struct belief *bel);
struct belief *belief_clone(const struct belief *bel);

/*
 * The work of the calls that follow stops at `deadline` as `clock(ctx)`
 * tells it (belief.h above: what is cut, and what is kept).  clock NULL:
 * no deadline.  The deadline stays until set again.
 */
void belief_set_deadline(struct belief *bel, belief_clock_fn clock, void *ctx, int64_t deadline);

/* One event the bot received (events for other audiences are ignored). */
void belief_apply(struct belief *bel, const struct event *e);

/* Filter by the last move's announcements, if not done yet, and bring the
 * set back within its limit (exact_max while exact, else `particles`).
 * Idempotent; everything that reads the set calls it first. */
void belief_settle(struct belief *bel);

static inline size_t belief_count(const struct belief *bel) { return bel->n; }
static inline bool belief_is_exact(const struct belief *bel) { return bel->exact; }

/* A position drawn by weight (settles first). */
const struct board *belief_sample(struct belief *bel);

/*
 * Where a position stands in the belief: the share of the total weight
 * held by distinct positions weighted strictly more than it, or -1 if it
 * is not in the set.  Copies of one position count as one, their weights
 * summed; weights equal to within a relative 1e-9 are equal (the same
 * share reached by different float paths).  0 means it is (one of) the
 * most likely; < 0.5 means it is in the top half of the weight: among the
 * fewest heaviest distinct positions whose weight reaches half, ties at
 * the boundary included (so with equal weights every position is).  For
 * measurements, never for play.
 */
double belief_rank(struct belief *bel, const struct board *pos);

/* Probability (by weight) that `m`, a try of the side to move, is legal. */
double belief_p_legal(struct belief *bel, move_t m);

/* A 64-bit generator shared by the bot's modules (splitmix64). */
uint64_t belief_rand(uint64_t *state);

#endif
