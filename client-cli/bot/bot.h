/*
 * bot.h — one game as krieg-bot plays it: its view (common/view.h) and
 * belief (belief.h), both fed only the events addressed to it, and the
 * choice of its next action.  No I/O: the network loop (session.c) and the
 * in-process games of the benchmarks (local.h) drive it the same way.
 *
 * Levels:
 *   random  uniform over the tries it may still make this turn
 *   greedy  one ply over the belief: the try whose expected evaluation,
 *           weighted by the chance the umpire accepts it, is best
 *   full    information-set Monte Carlo tree search (bot.c): each
 *           iteration draws a position from the belief by weight and walks
 *           one shared tree four plies deep with the moves legal there; a
 *           try illegal in the drawn position ends as "refused".  The try
 *           chosen has the best mean value plus a bonus for what its ruling
 *           would teach (largest when its legality is most in doubt); "any?"
 *           asked when the answer is in doubt.  Iterations run while the
 *           time budget lasts (from the clock: session.c).
 *
 * The budget of a decision covers the belief's work as well (belief.h,
 * the deadline): the work done taking in events since the last decision
 * (an opponent's move expands the set; an announcement nothing fits has it
 * drawn afresh from the checkpoint) may use up to half of it
 * (BOT_UPKEEP_SHARE) and is charged to the next decision; that decision
 * gives settling the belief half of what is left and searches with the
 * rest.  A budget of 0 (or the `iterations` mode) sets no deadline on the
 * belief: the same game on any machine.
 * Every level never repeats a refused try (the view's own list), and the
 * searching levels value a try that would bring back an arrangement of
 * their own men already seen (with the opponent to move) closer to a draw:
 * a position can repeat only if ours does, and a third repetition is one
 * (against `random` most draws of the first benchmark were repetitions).
 */
#ifndef KRIEG_BOT_H
#define KRIEG_BOT_H

#include <stdbool.h>
#include <stdint.h>

#include "belief.h"
#include "board.h"
#include "event.h"
#include "ruleset.h"
#include "view.h"

enum bot_level { BOT_RANDOM = 0, BOT_GREEDY = 1, BOT_FULL = 2 };

#define BOT_BUDGET_DEFAULT_MS 1000   /* the budget before the first decision (bot_new) */
#define BOT_UPKEEP_SHARE 2            /* taking in events may use 1/this of the budget */

/* A clock in milliseconds (bot.clock; tests inject one). */
typedef int64_t (*bot_clock_fn)(void *ctx);

#define BOT_SEEN_MAX 512          /* own arrangements remembered (a repetition needs no capture or
                                   * pawn move since: 100 plies under the fifty-move rule) */

/* "random", "greedy", "full" → level, or -1. */
int bot_level_parse(const char *name);
const char *bot_level_name(int level);

enum bot_action { BOT_WAIT = 0, BOT_ANY = 1, BOT_TRY = 2 };

struct bot {
	enum bot_level level;
	const struct ruleset *rs;
	int color;
	struct view view;
	struct belief *bel;
	uint64_t rng;
	bool any_asked;           /* this turn */
	int moves_made;           /* own moves played (insurance: "any?" only after the first) */
	long searched;            /* determinizations searched in all (statistics) */
	int widest;               /* full: the most children a node of the last search had (statistics) */
	long iterations;          /* full: search exactly this many iterations, the clock unread
	                           * (tests: the same search on any machine); 0: the budget rules */
	bot_clock_fn clock;       /* NULL: the monotonic clock (mstime_mono); a test's: read even with iterations */
	void *clock_ctx;
	long budget_ms;           /* the last decision's budget (BOT_BUDGET_DEFAULT_MS until one): what events may use */
	int64_t upkeep_ms;        /* time the events took since the last decision (charged to the next) */
	/* Keys of our own men after each of our moves (the opponent to move),
	 * the last BOT_SEEN_MAX of them: what a try would repeat. */
	uint64_t seen[BOT_SEEN_MAX];
	int nseen;
};

struct bot *bot_new(enum bot_level level, const struct ruleset *rs, const struct board *start, int color,
                    uint64_t seed, const struct belief_limits *lim);
void bot_free(struct bot *b);

/* One event the bot received (view and belief both see it). */
void bot_event(struct bot *b, const struct event *e);

static inline bool bot_to_move(const struct bot *b) { return !b->view.over && b->view.to_move == b->color; }

/*
 * The next action on our turn: BOT_ANY (ask "any?"), BOT_TRY with *m, or
 * BOT_WAIT (not our turn, game over, or nothing left to try).  budget_ms
 * bounds the thinking of this call, less the events' upkeep charged to it
 * (above), the belief's settling included; 0 means a minimal search (and
 * a belief without deadline).  Past the deadline it still answers: at
 * least MCTS_ITER_MIN iterations are searched (full).
 */
enum bot_action bot_choose(struct bot *b, long budget_ms, move_t *m);

/* How many times the arrangement of our men after try m (the opponent to
 * move) has been seen after our moves before (exposed for tests). */
int bot_repeats(const struct bot *b, move_t m);

/*
 * The stalemate risk of try m (full): the share of the belief's weight in
 * which m is legal and leaves the opponent's king no move and not in
 * check, while the opponent has a few men beside it (2 to BOT_BOX_MEN men
 * in all) and the belief is a sample.  0 otherwise.  (Exposed for tests.)
 */
#define BOT_BOX_MEN 4
double bot_box_share(const struct bot *b, move_t m);

/* Static evaluation of a whole position for `color`, in centipawns (exposed for tests). */
int bot_eval(const struct board *pos, int color);

#endif
