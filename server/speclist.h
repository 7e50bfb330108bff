/*
 * speclist.h — a delayed game's spectators' list (watch.c).
 *
 * Every event of a delayed game's record that spectators hear, in order,
 * each kept as its line (compact JSON) with the ply it says and the
 * action it is of.  It is kept as the game goes from its start, or read
 * from the record once when the game is recovered, so that a `watch`
 * reads what a spectator is told of and nothing else.  A catch-up replayed
 * from the record cost about 2.7 us for every action in it, heard or not,
 * and how long it took told a spectator how many actions it was not told
 * of (refused tries, private notes) among the plies the delay hides
 * (probe).  A `watch` now costs the list's length in plies read (an int
 * each) and the page's events parsed.  About 100 bytes an event, for
 * rated games only.
 *
 * The players' comings and goings (opponent_away, opponent_back) are in it
 * too, where they were told, though no record keeps them: a spectator
 * seated after a player left heard that player come back and never leave
 * (probe), the more so after a restart, when both are away (the list read
 * from the record ends with both aways).  Read from the record, an event
 * carries the clocks its action stored, as the live line carried the
 * clocks then: what the seats' queue releases has them either way (probe:
 * the events of plies the delay still held when the first spectator sat
 * came without), a catch-up none (speclist_page_item).
 *
 * The loop's alone.
 */
#ifndef KRIEG_SPECLIST_H
#define KRIEG_SPECLIST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct speclist;

struct speclist *speclist_new(void);
void speclist_free(struct speclist *l);   /* NULL: nothing */

/* One event at the end: its line's text (len bytes, no '\n'), the ply it
 * says, the action it is of (seq; 0: none's, a coming or going, or one
 * read at a recovery, which a failed commit never takes out) and, for an
 * opponent_away, the colour that left (else -1). */
void speclist_push(struct speclist *l, const char *text, size_t len, int ply, int seq, int away);
/* The same from msg (its "ply"), of no action's. */
void speclist_push_json(struct speclist *l, const json_t *msg, int away);
/* col's player came back: if their going is the last event, it is taken
 * out (true: a later catch-up is the same without both, and a player who
 * comes and goes a thousand times does not grow the list by two
 * thousand); else false, and the caller lists the coming back. */
bool speclist_fold_back(struct speclist *l, int col);
/* A commit failed from action seq on: those actions' events go, the rest
 * (comings and goings between them too) stay in order. */
void speclist_cut_from(struct speclist *l, int seq);

size_t speclist_count(const struct speclist *l);
int speclist_ply(const struct speclist *l, size_t i);
int speclist_seq(const struct speclist *l, size_t i);
/* Event i parsed (a new reference), an away's `left` counted down by the
 * time since it was listed, as the seats' queue takes it; the page item
 * (dispatch_page_built's; arg: the list) without a clock, as every
 * catch-up is (PROTOCOL.md). */
json_t *speclist_item(size_t i, void *arg);
json_t *speclist_page_item(size_t i, void *arg);

/* An away deadline's `left` was what was left when it was said (at,
 * mstime_mono): less the time since (a delayed spectator's countdown ran
 * late by that). */
void speclist_left_since(json_t *msg, int64_t at, int64_t now);

#endif
