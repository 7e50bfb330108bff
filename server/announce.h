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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct action;
struct event;
struct evlist;
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

/* Who heard anything of action a, whose events are out (AUD_ bits): its
 * events' audiences and its notice's (a muted player's words too: they
 * are in the listener's record).  A player's list ends at the last
 * action they heard (game_priv.h heard_seq). */
unsigned announce_heard(const struct action *a, const struct evlist *out);
/* The last action each list heard anything of: seq[WHITE], seq[BLACK]
 * and seq[HEARD_SPECTATORS] (a spectator's), moved to `at` for those in
 * heard (AUD_ bits).  A list ends at its seq: a view replayed through it
 * is the whole view, and costs nothing for the actions after it. */
#define HEARD_SPECTATORS 2
#define HEARD_LISTS 3
/* Whose list i (WHITE, BLACK, HEARD_SPECTATORS) is, as AUD_ bits. */
static inline unsigned announce_heard_aud(int i)
{
	return i == WHITE ? AUD_WHITE : i == BLACK ? AUD_BLACK : AUD_SPECTATOR;
}
void announce_heard_at(int seq[HEARD_LISTS], unsigned heard, int at);

/* How a replayed view is written (bits): */
enum {
	ANNOUNCE_AUDIENCE = 1,       /* each event says who heard it ("audience": the
	                              * umpire's seat and record view) */
	ANNOUNCE_NO_PRIVATE = 2,     /* an umpire's private notes left out (the umpire's
	                              * record read by one who is not an umpire) */
	ANNOUNCE_NO_SPECTATORS = 4,  /* the spectators' channel left out (the umpire's
	                              * record read by a player of the game) */
	ANNOUNCE_CLOCKS = 8,         /* a timed game's events and notices carry the clocks
	                              * their action stored, as live ones carried the clocks
	                              * then (a delayed game's spectators' list, watch.c) */
};

/* Every announcement of game g heard by audience aud (AUD_ bits),
 * replayed from the stored record, draw notices included for the players
 * and the umpire, written as how says.  A new array; NULL (logged) if the
 * store fails or the record does not replay. */
json_t *announce_replay(struct store *st, const struct store_game *g, unsigned aud,
                        unsigned how);
/* The same for White, Black and the spectators (announce_heard_aud), in
 * one replay, as the lines each was told (a live game's lists at
 * start-up: audlist.h), pushed onto lists: 0, or -1 (logged unless a
 * line could not be written; the lists are then partly filled). */
struct audlist;
int announce_replay_told(struct store *st, const struct store_game *g,
                         struct audlist *lists[HEARD_LISTS]);
/* The same through the action of seq `through` (0: all), for the reader
 * thread (reader.h): NULL with err, nothing logged. */
json_t *announce_replay_through(struct store *st, const struct store_game *g, unsigned aud,
                                unsigned how, int through, char *err, size_t errlen);

/*
 * The replay cache: marks along long records, so that a page is replayed
 * from the mark before it, not from the record's start.  Without it a page
 * of a record of n actions costs a replay of all n (a record may hold
 * 50,000: tens of ms of the loop for every page, which anyone may ask for
 * again and again); with it, at most `stride` actions and the page.
 *
 * A mark is a copy of the referee where it stood after an action
 * (referee_copy: no older position than can still repeat) and how many
 * events each list (each audience's view, the umpire's without its
 * private notes) held before it; the cache also keeps each record's
 * replay at its end and each list's length there.  It holds only the
 * referee's state and counts, never an event or a line: a page is built
 * by the same replay, for its own audience, as without it.  A record only
 * grows (actions are never changed or deleted: store.h), so its last seq
 * names what was replayed; a record that grew is replayed on from its end,
 * never again from its start.  Records under min_actions are replayed
 * whole (a few ms at most).  `games` records are kept, the least recently
 * read replaced: about 3 KiB a mark, so at most games x 50,000 / stride
 * marks (the daemon's: 16 x 98, under 5 MiB).  The loop's alone (no
 * locking).
 */
#define ANNOUNCE_CACHE_GAMES 16
#define ANNOUNCE_STRIDE 512          /* actions between two marks */
#define ANNOUNCE_CACHE_MIN 1024      /* the shortest record kept */
struct announce_cache;
struct announce_cache *announce_cache_new(size_t games, int stride, int min_actions);
void announce_cache_free(struct announce_cache *ac);
/* The marks kept for a game's record (0: none kept): for the tests. */
int announce_cache_marks(const struct announce_cache *ac, int64_t game);

/*
 * The same marks built off the loop (reader.h).  announce_cache_behind:
 * how many actions of g's record a page read would replay before its page
 * (0: a short record, or one the cache holds to its end; a store failure
 * is 0 too, and found again in place).  announce_marks_build, on the
 * reader thread with its connection: g's marks through the record's last
 * action, every stride actions (announce_cache_stride), or NULL with err;
 * it touches no cache and logs nothing.  announce_cache_adopt, on the
 * loop: the marks (taken) into the cache, unless it holds the game read
 * further already.
 */
struct announce_marks;
int announce_cache_behind(struct announce_cache *ac, struct store *st, const struct store_game *g);
int announce_cache_stride(const struct announce_cache *ac);
struct announce_marks *announce_marks_build(struct store *st, const struct store_game *g,
                                            int stride, char *err, size_t errlen);
void announce_marks_free(struct announce_marks *m);
void announce_cache_adopt(struct announce_cache *ac, struct announce_marks *m);

/*
 * A live game's replay is kept at each commit, not at the next read:
 * otherwise a player's view paid for every action since the last read,
 * heard or not, and how long it took (and whether it went to the reader
 * thread) told the player how many actions they had not heard: an
 * opponent's private tries, an umpire's private notes (probe).  A live
 * game's slot is made when it starts or is recovered
 * (announce_cache_track, reading its record once), is never replaced
 * while it is live, and keeps only each list's counts and the marks, no
 * referee of its own: what an action adds is taken when it is applied
 * (announce_step_take: its events' counts, and a copy of the referee at a
 * mark's seq), and added when it commits (announce_step_commit), in seq
 * order; a failed commit's step is dropped (announce_step_drop).  A read
 * of a live game then replays from a mark to its page's last event and
 * no further: what follows the last event a player heard costs that
 * player nothing.  At the end the slot is one of those kept for reading
 * (announce_cache_untrack).  A replay still costs the actions between a
 * mark and the page's end, heard or not: the players' and the
 * spectators' views of a live game are read from what they were told
 * instead (audlist.h); the umpire's (who hears everything) and a
 * player's PGN (history.c) read this cache.
 */
#define ANNOUNCE_LISTS 6
struct announce_step {
	int seq;
	uint32_t count[ANNOUNCE_LISTS];   /* what it adds to each list */
	struct referee *mark;             /* the referee after it, at a mark's seq */
};
void announce_cache_track(struct announce_cache *ac, struct store *st, const struct store_game *g);
void announce_cache_untrack(struct announce_cache *ac, int64_t game);
void announce_step_take(const struct announce_cache *ac, struct announce_step *s, int seq,
                        const struct action *a, const struct evlist *out,
                        const struct referee *after);
void announce_step_commit(struct announce_cache *ac, struct store *st, const struct store_game *g,
                          struct announce_step *s);
void announce_step_drop(struct announce_step *s);

/* A CMD_REPLAYS request about to read a page of g's record, whose replay
 * the cache does not hold for READER_REPLAY_MIN actions or more: the
 * marks are built off the loop (dispatch_offload) and the request comes
 * back: true, return without answering.  False: go on in place. */
struct conn;
bool announce_offload_marks(struct conn *c, const struct store_game *g);

/* The same replay, building only the events of one page (dispatch.h's
 * pager; every other event of the list is counted, not built, or with ac
 * and a long record taken from the cache): a page of a long record costs
 * a stride of it, not the whole record's replay and JSON.  ac may be NULL
 * (the whole record replayed).  0, or -1 (logged) as announce_replay's
 * NULL; the pager then holds a partial page (pager_free). */
struct pager;
int announce_replay_page(struct store *st, struct announce_cache *ac, const struct store_game *g,
                         unsigned aud, unsigned how, struct pager *pg);

/* The same from the STORED events (flagged games): no SAN, no draw
 * notices (they are not events).  NULL if the store fails. */
json_t *announce_stored(struct store *st, const struct store_game *g, unsigned aud);

#endif
