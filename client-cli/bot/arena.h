/*
 * arena.h — bots against each other, scored (`krieg-bot arena`): in
 * process through the rules core (local.h), or through a kriegd (its own,
 * started here, or --server) with an umpire connection checking each bot's
 * belief against the true position every ply.  Prints the score with a
 * 95% interval, the time per move and the belief's containment.
 */
#ifndef KRIEG_BOT_ARENA_H
#define KRIEG_BOT_ARENA_H

#include <stdint.h>

#include "belief.h"
#include "ruleset.h"

struct arena_opts {
	int la, lb, games, max_plies;
	const char *rules;
	long movetime;
	const char *server;                       /* NULL: start kriegd */
	const char *kriegd;
	const char *umpire, *umpire_pwfile;       /* with --server: an umpire account (optional) */
};

/* arena --local: 0, or 2 (said on stderr). */
int arena_local(int la, int lb, int games, const struct ruleset *rs, long movetime, int max_plies,
                const char *fen, uint64_t seed, const struct belief_limits *lim, const char *pgn);
/* arena over the network: 0, or 2. */
int arena_net(const struct arena_opts *ao);

#endif
