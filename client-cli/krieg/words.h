/*
 * words.h — announcements in plain words, from the listener's side.
 *
 * The umpire's own formula for a rule set is ruleset_say() (it rides on
 * the wire as "say"); these are the client's sentences: "White captured a
 * pawn on d5", "Check on the long diagonal", "You have 2 pawn tries".
 * They say no more than the event holds.
 */
#ifndef KRIEG_WORDS_H
#define KRIEG_WORDS_H

#include <stddef.h>

#include "event.h"

#define WORDS_MAX 160

/*
 * me is the listener's colour (WHITE/BLACK) or -1 for an umpire or spectator.
 * san, if non-NULL and non-empty, names the move of an EV_MOVE / EV_ILLEGAL /
 * EV_IMPOSSIBLE / EV_UMPIRE_MOVE; else the move is written in coordinates.
 */
void words_event(const struct event *e, int me, const char *san, char *buf, size_t len);

/* "White" / "Black" / "Nobody". */
const char *words_side(int color);

#endif
