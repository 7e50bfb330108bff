/*
 * line.h — the words of one krieg-referee action line, shared by the
 * normal mode (main.c) and topgn (pgn_cmd.c) so both read a line alike.
 */
#ifndef KRIEG_REFEREE_LINE_H
#define KRIEG_REFEREE_LINE_H

#include <stddef.h>

/*
 * Split line in place into words at spaces, tabs, commas and semicolons.
 * A word "e.p." or "ep" (annotation marks after it allowed, "e.p.+") is
 * the suffix of the move before it, not a move: it is joined to that word
 * ("exd6 e.p." reads as "exd6e.p.", which notation reads as exd6).
 * Returns the number of words, or max + 1 when there are more than max.
 */
size_t line_split(char *line, char **words, size_t max);

/* "white" or "black" as a colour, else -1. */
int line_side(const char *word);

#endif
