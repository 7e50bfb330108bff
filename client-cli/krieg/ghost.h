/*
 * ghost.h — the player's scratch layer: guessed enemy pieces.
 *
 * Ghosts live only in the client.  No ghost operation has a network side:
 * they are guesses, and the server must never hear of them.
 */
#ifndef KRIEG_GHOST_H
#define KRIEG_GHOST_H

#include <stdint.h>

#include "board.h"

struct ghosts {
	int color;            /* the colour the ghosts stand for (the opponent's) */
	uint8_t sq[64];       /* piece_code() of a ghost, or MAILBOX_EMPTY */
};

enum ghost_status {
	GHOST_OK = 0,
	GHOST_SYNTAX,         /* not "[PNBRQK]square" / not a square */
	GHOST_OCCUPIED,       /* one of the player's own pieces stands there */
	GHOST_EMPTY,          /* no ghost on the from-square */
};

void ghost_init(struct ghosts *g, int color);

/* "Nf6", "nf6", "f6" (a pawn), "K e8" is not accepted: one token. */
enum ghost_status ghost_place(struct ghosts *g, const struct board *own, const char *what);
enum ghost_status ghost_move(struct ghosts *g, const struct board *own, const char *from,
                             const char *to);
/* A square name clears that square; NULL or "" clears them all. */
enum ghost_status ghost_clear(struct ghosts *g, const char *sq);

/* Drop ghosts standing where own pieces now stand (an own move or capture landed there). */
void ghost_sync(struct ghosts *g, const struct board *own);

int ghost_count(const struct ghosts *g);
const char *ghost_error(enum ghost_status s);

#endif
