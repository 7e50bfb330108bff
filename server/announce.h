/*
 * announce.h — announcements as an audience receives them: the wire form of
 * one event, and a whole game's events for one audience rebuilt from the
 * stored record.
 *
 * Owns the one server-side replay of a record for reading (the `game`
 * view and game_state at login, `record` in history.c): the stored actions
 * go through a fresh referee by referee_apply() (common/action.h), the
 * same path live play and recovery take, so a view holds exactly the
 * events that were sent at the time, SAN and wording included (the events
 * table keeps no SAN).  A record that failed its check at start (flagged,
 * recover.h) is never replayed: announce_stored() serves its STORED events.
 */
#ifndef KRIEG_ANNOUNCE_H
#define KRIEG_ANNOUNCE_H

#include <jansson.h>
#include <stdint.h>

struct action;
struct event;
struct jsonline_out;
struct referee;
struct ruleset;
struct store;
struct store_game;

/*
 * One announcement to its audience, as the line sent (no '\n'): the
 * event's object (event_json_put) with "game", the clock readings in ms
 * (clock[WHITE], clock[BLACK]) when clock is not NULL, and what the
 * server adds when r (the referee after action a) is given: a game_over
 * carries the true final position ("fen": the game is over, everyone may
 * see it) and an umpire's reason ("note") when the umpire ended it.  Live
 * (game.c writes it straight into the line, no tree: BENCHMARKS.md), in
 * every replayed view and in the tests' expectations alike.  Returns 0, or
 * -1 for an event with no wire form; o->used over o->size means it did
 * not fit.
 */
int announce_event_put(struct jsonline_out *o, int64_t game, const struct ruleset *rs,
                       const struct event *e, const int64_t *clock, const struct referee *r,
                       const struct action *a);

/* The same parsed into a tree (replayed views, the umpire's and the
 * spectators' copies).  NULL for an event with no wire form. */
json_t *announce_event(int64_t game, const struct ruleset *rs, const struct event *e,
                        const int64_t *clock, const struct referee *r, const struct action *a);

/* Clock readings in ms (clock[WHITE], clock[BLACK]) as the wire's
 * {"white": ms, "black": ms}; NULL for NULL (an untimed game). */
json_t *announce_clock_json(const int64_t *clock);

/* The notice of a draw action (a->kind == ACTION_DRAW, "offer" or
 * "decline" by a->color) to both players and the umpire. */
json_t *announce_draw(int64_t game, const struct action *a, const int64_t *clock);

/* The notice of an action the referee announces nothing for: a draw
 * offer or decline (announce_draw), an offer to adjourn, its decline, an
 * adjournment and its end (adjourn_offer and adjourn_declined to the
 * players and umpires; adjourned and unadjourned to everyone), an umpire's clock pause, resumption,
 * added time or note, a player's or a spectator's chat (action.h: a
 * "chat" event, the players' channel to everyone, the spectators' to
 * spectators and umpires only); ply: the plies played when it was taken.
 * *aud gets who hears it.  NULL for a kind that has none. */
json_t *announce_notice(int64_t game, const struct action *a, int ply, const int64_t *clock,
                        unsigned *aud);

/* How a replayed view is written (bits): */
enum {
	ANNOUNCE_AUDIENCE = 1,       /* each event says who heard it ("audience": the
	                              * umpire's seat) */
	ANNOUNCE_NO_PRIVATE = 2,     /* an umpire's private notes left out (the umpire's
	                              * record read by one who is not an umpire) */
};

/* Every announcement of game g heard by audience aud (AUD_ bits),
 * replayed from the stored record, draw notices included for the players
 * and the umpire, written as how says.  A new array; NULL (logged) if the
 * store fails or the record does not replay. */
json_t *announce_replay(struct store *st, const struct store_game *g, unsigned aud,
                        unsigned how);

/* The same replay, building only the events of one page (dispatch.h's
 * pager; every other event of the list is counted, not built): a page of
 * a long record costs its replay, not the whole record's JSON.  0, or -1
 * (logged) as announce_replay's NULL; the pager then holds a partial page
 * (pager_free). */
struct pager;
int announce_replay_page(struct store *st, const struct store_game *g, unsigned aud,
                         unsigned how, struct pager *pg);

/* The same from the STORED events (flagged games): no SAN, no draw
 * notices (they are not events).  NULL if the store fails. */
json_t *announce_stored(struct store *st, const struct store_game *g, unsigned aud);

#endif
