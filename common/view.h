/*
 * view.h — what one player knows: their own pieces and what they were
 * told.  Built from that player's events alone (never the true board), so
 * the client, a resumed session and a future computer player all derive
 * the same board, and the tests check it against the referee's.
 */
#ifndef KRIEG_VIEW_H
#define KRIEG_VIEW_H

#include "board.h"
#include "event.h"
#include "movegen.h"
#include "ruleset.h"

struct view {
	int color;               /* whose view */
	struct board own;        /* only `color`'s pieces, with its castling rights; in crazykrieg
	                          * both reserves, kept from captures and drops as told */
	int to_move;             /* whose turn it is, as far as this player can tell */
	struct movelist refused; /* own tries refused this turn */
	bool must_try_capture;   /* a yes/"Try!" to "any?" obliges a pawn capture (every rule
	                          * set with "any?" has the obligation); cleared by the first
	                          * pawn-capture try (berkeley_any: by the move) */
	uint64_t pawn_ok;        /* pawns whose capture tries the turn's pawn information leaves
	                          * open: none after a "No" to "any?", a zero count of pawn tries
	                          * (icc) or "no pawn capture" (nost, cincinnati); rand's squares;
	                          * else all.  In every rule set: where the information does not
	                          * bind (pawn_info_binds false) such a try is not impossible,
	                          * but it cannot succeed */
	const struct ruleset *rs; /* NULL: the obligation of english, nothing bound */
	bool over;
};

/* Start from a position (the player knows the starting FEN). */
void view_init(struct view *v, const struct board *start, int color);

/* The game's rule set, where the view must know what its words bind
 * (berkeley_any's obligation, crazykrieg's reserves): call after view_init. */
void view_set_ruleset(struct view *v, const struct ruleset *rs);

/* Apply one event this player received (events for other audiences are ignored). */
void view_apply(struct view *v, const struct event *e);

/* The attempts the player may still make this turn with a chance of
 * success, from its own view alone: the possible moves on its own pieces
 * (movegen_possible) less the tries refused this turn, only pawn captures
 * while a yes to "any?" obliges one, and no pawn capture the turn's pawn
 * information rules out (pawn_ok), whether or not the rule set binds it:
 * in icc, nost, english, insurance and gollon such a try would be taken,
 * and refused as illegal. */
void view_possible(const struct view *v, struct movelist *out);

#endif
