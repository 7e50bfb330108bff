/*
 * ghost.c — guessed enemy pieces (see ghost.h).
 */
#include "ghost.h"

#include <string.h>

void ghost_init(struct ghosts *g, int color)
{
	memset(g, 0, sizeof *g);
	g->color = color;
}

static int parse_sq(const char *s)
{
	if (!s || strlen(s) != 2)
		return SQ_NONE;
	return square_parse(s);
}

enum ghost_status ghost_place(struct ghosts *g, const struct board *own, const char *what)
{
	int type = PAWN, sq;
	size_t n = what ? strlen(what) : 0;

	if (n == 3) {
		type = piece_from_letter(what[0]);
		sq = parse_sq(what + 1);
	} else {
		sq = parse_sq(what);
	}
	if (type == PIECE_NONE || sq == SQ_NONE)
		return GHOST_SYNTAX;
	if (own->mailbox[sq] != MAILBOX_EMPTY)
		return GHOST_OCCUPIED;
	g->sq[sq] = piece_code(g->color, type);
	return GHOST_OK;
}

enum ghost_status ghost_move(struct ghosts *g, const struct board *own, const char *from,
                             const char *to)
{
	int f = parse_sq(from), t = parse_sq(to);
	if (f == SQ_NONE || t == SQ_NONE || f == t)
		return GHOST_SYNTAX;
	if (g->sq[f] == MAILBOX_EMPTY)
		return GHOST_EMPTY;
	if (own->mailbox[t] != MAILBOX_EMPTY)
		return GHOST_OCCUPIED;
	g->sq[t] = g->sq[f];
	g->sq[f] = MAILBOX_EMPTY;
	return GHOST_OK;
}

enum ghost_status ghost_clear(struct ghosts *g, const char *sq)
{
	if (!sq || !*sq || strcmp(sq, "all") == 0) {
		memset(g->sq, 0, sizeof g->sq);
		return GHOST_OK;
	}
	int s = parse_sq(sq);
	if (s == SQ_NONE)
		return GHOST_SYNTAX;
	if (g->sq[s] == MAILBOX_EMPTY)
		return GHOST_EMPTY;
	g->sq[s] = MAILBOX_EMPTY;
	return GHOST_OK;
}

void ghost_sync(struct ghosts *g, const struct board *own)
{
	for (int s = 0; s < 64; s++)
		if (own->mailbox[s] != MAILBOX_EMPTY)
			g->sq[s] = MAILBOX_EMPTY;
}

int ghost_count(const struct ghosts *g)
{
	int n = 0;
	for (int s = 0; s < 64; s++)
		n += g->sq[s] != MAILBOX_EMPTY;
	return n;
}

const char *ghost_error(enum ghost_status s)
{
	switch (s) {
	case GHOST_OK: return "ok";
	case GHOST_SYNTAX: return "expected a piece and a square, e.g. \"ghost place Nf6\", \"ghost move f6 e4\", \"ghost clear e4\"";
	case GHOST_OCCUPIED: return "one of your own pieces stands there";
	case GHOST_EMPTY: return "no ghost on that square";
	}
	return "?";
}
