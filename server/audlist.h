/*
 * audlist.h — what one audience of a live game was told, line by line.
 *
 * A view of a live game (a player's `game`, a login's game_state, a
 * player's own `record` of it, an undelayed game's spectator's `watch`)
 * was its record replayed: every action of it, heard or not, so how long
 * it took, and the rows it was charged, told the reader how many actions
 * they were not told of (an opponent's refused tries, an umpire's private
 * notes: the timing probe measured about 0.66 us an action, and with
 * rate_rows = 1 the refusals counted them exactly).  Each live game now
 * keeps a list for each of its audiences that can ask (WHITE, BLACK, the
 * spectators': HEARD_LISTS, announce.h) of the lines of its record's
 * events and notices that audience heard, as they were sent (game.c, from
 * the start), or read once from the record when the game is recovered
 * (game_restart.c).  Those views read their page from the list: they cost
 * what the reader was told, never what they were not.  About 100 bytes an
 * event heard, per list.  The umpire's, who hears everything, and the
 * finished games' are replayed as before (announce.h).
 *
 * A list is shared by reference: a login's state (game_view.c) keeps the
 * one it reads while its game may end.  The loop's alone; a copy
 * (audlist_copy) may go to the reader thread.
 */
#ifndef KRIEG_AUDLIST_H
#define KRIEG_AUDLIST_H

#include <jansson.h>
#include <stddef.h>

struct audlist;

struct audlist *audlist_new(void);
struct audlist *audlist_ref(struct audlist *l);
void audlist_unref(struct audlist *l);   /* NULL: nothing */

/* One line's text (len bytes, no '\n') at the end; audlist_push_json:
 * msg's compact JSON, 0, or -1 if it could not be written. */
void audlist_push(struct audlist *l, const char *text, size_t len);
int audlist_push_json(struct audlist *l, const json_t *msg);

size_t audlist_count(const struct audlist *l);
/* The first n kept, the rest gone (a failed commit's events). */
void audlist_cut(struct audlist *l, size_t n);
/* A new list of the first n (at most the count). */
struct audlist *audlist_copy(const struct audlist *l, size_t n);

/* Event i parsed (a new reference), without the clock its live line
 * carried: a view's events carry none (PROTOCOL.md).  The item of
 * dispatch_page_built (arg: the list). */
json_t *audlist_item(size_t i, void *arg);

#endif
