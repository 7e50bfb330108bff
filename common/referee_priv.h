/*
 * referee_priv.h — internal to the referee (referee.c, referee_read.c):
 * the state of one game's umpire and the helpers the two files share.
 * Nothing outside the referee includes it; its interface is referee.h.
 *
 * referee.c rules and announces (the turn, the move, the ending);
 * referee_read.c reads what a player typed against their own pieces and
 * validates it against the turn, changing nothing.
 */
#ifndef KRIEG_REFEREE_PRIV_H
#define KRIEG_REFEREE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "referee.h"

struct quiet {
	int n;      /* moves in the sequence */
	int next;   /* index of the first move not yet played; n when idle */
	char text[REFEREE_LIST_MAX][NOTATION_INPUT_MAX + 1];
};

struct referee {
	const struct ruleset *rs;
	struct board b;            /* the true position */
	bool begun;
	bool over;
	enum game_result result;
	enum game_reason reason;
	int plies;
	int moves_made[2];         /* per colour, for insurance's "after the first move" */
	/* the current turn */
	struct movelist refused;   /* tries refused this turn (illegal ones) */
	struct movelist impossible;   /* tries ruled impossible this turn: ruled again if
	                               * sent again (records made before the server
	                               * refused them hold such repeats), the server
	                               * refuses them (referee_impossible_again) */
	bool any_asked;
	bool must_capture;         /* a yes to "any?" obliges a pawn-capture try */
	uint64_t pawn_ok;          /* pawns whose capture tries this turn's pawn information
	                            * leaves open (all, until it says otherwise); a try it
	                            * rules out is impossible where pawn_info_binds
	                            * (referee_ruled_out), and not among referee_possible */
	int illegal_count;         /* nost: counted illegal tries this turn */
	struct quiet quiet[2];     /* nost: pending "if quiet" sequences */
	/* positions since the start, for repetition */
	uint64_t *keys;
	size_t nkeys, capkeys;
	char err[160];
};

/* referee.c: record a failure's message; returns status. */
int referee_fail(struct referee *r, int status, const char *msg);

/* referee_read.c */
/* Read one attempt of `color`: REF_OK with *m and whether it is possible
 * (on the player's own pieces and the turn's public pawn information). */
int referee_resolve(struct referee *r, int color, const char *text, move_t *m, bool *possible);
bool referee_is_pawn_capture(const struct board *b, move_t m);
/* A pawn capture the turn's public pawn information already rules out. */
bool referee_ruled_out(const struct referee *r, move_t m);
/* One try is one origin and one destination (see there). */
bool referee_same_try(move_t a, move_t b);
/* Is the try m (referee_same_try) in l (the turn's refused or impossible tries)? */
bool referee_list_has_try(const struct movelist *l, move_t m);
/* The colour may act now: REF_OK, or the failure (nothing changed). */
int referee_check_turn(struct referee *r, int color);
/* One resolved try against the turn state (refused already, must capture). */
int referee_check_try(struct referee *r, move_t m, bool possible);
/* "O-O" / "O-O-O" for a castling attempt, "" for anything else. */
const char *referee_castle_san(move_t m);
/* The legal move of the true board an attempt means, or MOVE_NONE. */
move_t referee_legal_match(const struct board *b, move_t m);

#endif
