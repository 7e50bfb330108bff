/*
 * local.h — a game between two bots inside one process, refereed by the
 * rules core exactly as kriegd referees it (common/referee.h), each bot
 * handed only the events addressed to it.  The offline half of
 * `krieg-bot arena --local` and of the tests: the only place that holds
 * the true board, which it uses for one thing, to measure whether each
 * bot's belief contains it (never to help a bot).
 */
#ifndef KRIEG_LOCAL_H
#define KRIEG_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "action.h"
#include "bot.h"
#include "ruleset.h"

#define LOCAL_PLIES_MAX 600       /* a game longer than this is stopped, unfinished */
#define LOCAL_ERRORS_MAX 64       /* refused requests in one turn before the bot is resigned for */

struct local_opts {
	const char *fen;              /* NULL: the standard start */
	long movetime_ms;             /* thinking budget per bot_choose() */
	bool check_belief;            /* measure belief containment every ply */
	struct belief_limits lim;     /* zero: the defaults */
	uint64_t seed;
	int max_plies;                /* 0: LOCAL_PLIES_MAX */
	bool record;                  /* keep the game's record in the result */
};

/* Containment, for one colour's belief. */
struct local_belief_stats {
	long exact_plies, exact_in;       /* plies measured while exact / true position inside */
	long exact_top;                   /* ... inside the top half of the weight (belief_rank < 0.5) */
	long sampled_plies, sampled_top;  /* plies measured while sampled / inside the top half of the weight */
	long sampled_in;                  /* ... inside at all */
	long lost;                        /* announcements the sample could not fit */
	long rejuvenations;               /* times the sample was regenerated from the checkpoint */
	long reexact;                     /* times a sample became exact again (a bare king) */
	long respread;                    /* times a sample's king and pawns were spread again (few men) */
	long reanchored;                  /* times a lost sample was put back on the bot's men and turn */
	long few_plies, few_in;           /* sampled plies with the opponent at BELIEF_FEW_MEN men or fewer / truth inside */
};

struct local_result {
	enum game_result result;
	enum game_reason reason;
	int plies;
	long moves[2], ms[2];             /* moves played and ms thought, per colour */
	double upkeep_ms[2];              /* ms spent taking in events (view and belief), per colour */
	long searched[2];                 /* positions its search drew from the belief (bot.h `searched`) */
	long tries[2];                    /* tries and "any?" sent, per colour */
	long events;                      /* events the referee announced (every audience's) */
	struct local_belief_stats bs[2];
	/* With opts.record: every action the referee took, in order, as kriegd
	 * stores a game (action.h; pgn_write takes it).  Malloc'd: the caller
	 * frees acts (NULL without record). */
	struct action *acts;
	size_t nacts, capacts;
};

/*
 * Measure b's belief against the true position (one ply into s; lost,
 * rejuvenations, reexact, respread and reanchored are set to the belief's own counts, which are per game).
 * The belief is measured as the bot would use it now (settled: filtered by
 * everything heard and cut back to its limit), on a copy, so that the
 * measurement never changes what the bot does next.
 * Used here and by the network arena, whose truth is an umpire's `board`
 * event (arena.c, session.c): never by a bot.
 */
void local_measure(struct bot *b, const struct board *truth, struct local_belief_stats *s);
/* Add one set of checks to another (a game's to a run's). */
void local_stats_add(struct local_belief_stats *to, const struct local_belief_stats *from);

/* Play one game.  0, or -1 with a message in err (a bad FEN). */
int local_play(const struct ruleset *rs, enum bot_level white, enum bot_level black, const struct local_opts *o,
               struct local_result *res, char *err, size_t errlen);

/*
 * A random legal K+R v K start (White: king and rook; Black: king; White to
 * move, Black not stalemated), written into fen (FEN_MAX bytes): the
 * benchmark's ending (`krieg-bot krk-fen --seed N`).  The same start for
 * the same seed; the seed is mixed before it starts the generator, so that
 * seeds 1..N each draw a stream of their own.
 */
void local_krk_fen(uint64_t seed, char *fen, size_t len);

#endif
