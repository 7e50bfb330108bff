/*
 * game_priv.h — internal to the game module (game.c, game_cmd.c,
 * game_view.c): the live game's structures and the few functions those
 * files share.  Nothing outside the module includes it; its interface is
 * game.h.
 */
#ifndef KRIEG_GAME_PRIV_H
#define KRIEG_GAME_PRIV_H

#include <event2/util.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "announce.h"
#include "clock.h"
#include "dispatch.h"
#include "idtable.h"
#include "proto.h"
#include "recover.h"

enum { RECORD_BY_SPECTATORS = 2, RECORD_BY_UMPIRE = 3, RECORD_BY_COUNT = 4 };
#include "store.h"

struct audlist;
struct conn;
struct event;
struct evlist;
struct followset;
struct referee;
struct ruleset;
struct server;


/* One action of a game's record (struct game rec). */
struct game_rec {
	uint32_t off;                /* its text at texts + off ... */
	uint8_t len;                 /* ... this long (< ACTION_TEXT_MAX) */
	int8_t kind;                 /* enum action_kind */
	int8_t color;                /* WHITE, BLACK, or -1 */
};

/* An action a player heard something of, or is told of later
 * (ruleset_told_later): where it is in the record, and its seq. */
struct game_heard {
	uint32_t at;                 /* index into rec */
	int32_t seq;
};

struct game {
	struct games *gs;
	struct game *next;           /* the live list, or the graveyard */
	struct idnode byid;          /* in the live index; byid.id = id */
	int64_t id;
	struct store_game info;
	int64_t user[2];
	char name[2][PROTO_NAME_MAX + 1];
	const struct ruleset *rs;
	struct referee *ref;
	struct clock clock;
	/* The record, kept for a rebuild after a failed commit (game.c
	 * game_rebuild): nacts entries, each an action's kind and colour and
	 * where its text lies in one buffer.  Not struct action's 264 bytes:
	 * a try's text is a few, and a long live game's record stays in
	 * memory, reloaded at every start (memory probe: 13 MB a full game). */
	struct game_rec *rec;
	size_t nacts, caprec;
	char *texts;                 /* the texts, back to back, without NULs */
	size_t ntexts, captexts;
	/* For each player, the indexes into rec of the actions they heard
	 * something of: their PGN of the game is made from these alone, at a
	 * cost that does not count the others (games_heard_actions). */
	struct game_heard *heard_at[2];
	size_t nheard[2], capheard[2];
	/* The record's actions by whose share they take (game.c record_full):
	 * WHITE, BLACK, the spectators', the umpire's (and the server's). */
	size_t record_by[RECORD_BY_COUNT];
	int seq;                     /* last action's seq (committed or in the open batch) */
	unsigned undos;              /* actions undone by a failed commit so far (pending_failed): a
	                              * seq is used again after one, this never (watch.c's notes) */
	/* The last action each player (WHITE, BLACK) heard anything of: their
	 * own view's record ends there, whatever the other did since, so the
	 * PGN cache keys a player's view of a live game by it (history.c: an
	 * opponent's private try must not change how fast it is answered). */
	int heard_seq[HEARD_LISTS];   /* and the spectators' (announce.h) */
	int draw_offer;              /* colour with a standing draw offer, or -1 */
	bool paused;                 /* an umpire paused the game (action_paused): no moves, no clock */
	/* Actions of this game not yet committed (in the open batch or with
	 * the store writer); game.c keeps, with each, the state before it:
	 * what a failed commit puts back. */
	int pending;
	/* The last move played whose announcement is not out yet: its seq
	 * (0: none) and when it was made.  Until its commit is done the side
	 * to move has not been told it is its turn: the clocks stand at
	 * untold_at (game_clock_now), and at the commit the side to move's
	 * runs on from there (clock_defer): a slow commit is charged to
	 * nobody, and the readings its events carry are the ones that stand
	 * when they are sent (PROTOCOL.md `clock`).  Not for a refused try:
	 * whether one was made may be private, and a clock that stood still
	 * for its commit would tell the opponent. */
	int untold_seq;
	int64_t untold_at;
	struct event *flag_timer;
	struct event *abandon_timer[2];
	bool away[2];                /* the player's last connection dropped (game_presence.c) */
	int64_t away_until[2];       /* when away: the abandonment deadline (wall ms), 0 for none */
	int64_t away_since[2];       /* mstime_mono() when the grace began (games_stalled) */
	int64_t away_due[2];         /* the same deadline on the monotonic clock (mstime_mono): what
	                              * `left` is told from, whatever the wall clock does */
	int64_t told_until[2];       /* the deadline last told of it (away_send): a changed one is
	                              * told again (presence_tell) */
	bool abandon_due[2];         /* away past that deadline while the side to move was away
	                              * too: lost if the side to move is back first (abandon_fire) */
	bool adjourned;              /* both players agreed to adjourn (action_adjourned): no moves,
	                              * no clock, no abandonment */
	int adjourn_offer;           /* colour with a standing offer to adjourn, or -1 */
	/* When each side (WHITE, BLACK) last offered a draw ([0]) or to adjourn
	 * ([1]): the ply count then, plus one (0: never).  One offer of a kind a
	 * ply (game_act): an offer made again the moment it was declined, thirty
	 * in two seconds, was thirty questions put to the opponent.  Not kept
	 * over a restart (nor in a record: it is the server's pace, not a rule). */
	int offered_ply[2][2];
	struct watcher *watchers;    /* spectator and umpire seats (watch.c) */
	struct watch_delay *delay;   /* a delayed game's unreleased public stream (watch.c), or NULL */
	struct speclist *spect;      /* a delayed game's spectators' list (speclist.h), or NULL */
	/* What WHITE, BLACK and the spectators (HEARD_SPECTATORS) were told,
	 * read by their views (audlist.h); NULL for a list a recovery could
	 * not read (its views replay the record). */
	struct audlist *told[HEARD_LISTS];
	bool dead;
};

struct flagged_game {
	int64_t id;
	int64_t user[2];
	char reason[256];
};

/* A game's actions that change what its spectators are shown (batch_tag,
 * watch_shows): a spectator's wait is for these only, never for one it
 * does not hear (one waiting for an opponent's hidden try timed it for a
 * player's second account; one waiting for every action opened so far
 * timed a hidden try opened after the last heard one), nor, in a delayed
 * game, for one the delay still holds. */
enum { GAME_TAG_SPECTATORS = 2u };

struct games {
	struct server *srv;
	struct game *live;
	struct idtable index;        /* the live games by id (game_find) */
	/* How many live games each player is in (games_user_count: `who`,
	 * profiles, limits): struct playing by user; a player leaves at 0. */
	struct idtable playing;
	struct game *graveyard;      /* finished, freed from reaper (never inside their own callback) */
	struct event *reaper;
	struct batch *batch;         /* this turn's actions, one commit (batch.c) */
	int64_t grace_ms;            /* abandonment grace of a timed game */
	int64_t untimed_grace_ms;    /* of an untimed game; 0: never (game_presence.c) */
	int64_t grace_hook_ms;       /* KRIEGD_ABANDON_GRACE_MS, both graces whatever is set; 0: none */
	size_t actions_max;          /* a record's actions (game_act), KRIEGD_RECORD_MAX in tests */
	struct chat *chat;           /* rates and mutes (chat.c), NULL until first used */
	struct event *heartbeat;     /* GAME_HEARTBEAT_MS */
	/* Where the stored lease reaches (mstime_mono): no clock is read or
	 * charged past it (game_clock_now, games_lease_now).  A store that
	 * cannot take the heartbeat (locked, full) so stops the clocks where a
	 * restart would find them, and a heartbeat stored again lets them run
	 * on from there (game_restart.c): what the server could not record is
	 * charged to nobody, as a restart's downtime past the lease is not. */
	int64_t lease_mono[RECOVER_LEASES];   /* by the kind of clock (game_lease) */
	bool stopped;                /* the daemon is stopping (games_stop): no timer fires */
	/* Unfinished games whose record failed the check at start (recover.c):
	 * never played on; reported as flagged, served from their STORED
	 * announcements only, never from a replay. */
	struct flagged_game *flagged;
	size_t nflagged;
	struct followset *follows;   /* who follows whom (follow.c), NULL until first used */
};

/* watch.c: spectators and the umpire's chair (watch.c's header comment). */
struct batch_action;
struct watcher;
void watch_users_changed(struct games *gs);
/* An announcement (not stolen) of g's record heard by aud (an action's,
 * ba NULL only at the game's start): to the seats of g that hear it
 * (umpires get it with `heard`, who heard the announcement it is a copy
 * of: event_heard), held in ba (NULL: sent now).  l is msg's line, already
 * encoded for the players (NULL: none could be): a delayed game's
 * spectators' list keeps its text too. */
struct line;
void watch_route_recorded(struct game *g, struct batch_action *ba, unsigned aud, unsigned heard,
                          const json_t *msg, const struct line *l);
/* A delayed game's spectators' list begun, when g goes live: empty at its
 * start, read from its record when it is recovered.  0, or -1 (logged):
 * the list is then read from the record at its first `watch`. */
int watch_list_begin(struct game *g, bool recovered);
/* col's player's going (away: opponent_away) or coming back
 * (opponent_back), msg, told to the spectators: a delayed game's list
 * keeps it too (watch.c). */
void watch_route_presence(struct game *g, int col, bool away, const json_t *msg);
/* May watch_route_recorded have anyone to send to, or a delayed stream or
 * list to keep (g has a seat, or had one, or is delayed)?  When not, the
 * caller need not build the seats' copy of an event. */
bool watch_wants(const struct game *g);
/* Does the action just made on g, which found it at `plies` plies and
 * which `heard` says who hears, change what a spectator is shown, so that
 * a seat's request waits for its commit (GAME_TAG_SPECTATORS)? */
bool watch_shows(const struct game *g, int plies, unsigned heard);
/* The true board after a move, to g's umpires. */
void watch_board(struct game *g, struct batch_action *ba);
/* A player's first connection came or last one went: their games' umpires hear it. */
void watch_connection(struct games *gs, int64_t uid, bool connected);
void watch_conn_closed(struct games *gs, uint64_t conn);
/* A game between user[0] and user[1] started: their umpire seats go. */
void watch_game_started(struct games *gs, const int64_t user[2]);
/* follow.c: the followers of g's players told it started; a connection's
 * list emptied at its logout or close; all freed. */
void follow_game_started(struct games *gs, const struct game *g);
void follow_conn_closed(struct games *gs, uint64_t conn);
/* A connection logged in: its account's kept follows taken up. */
void follow_login(struct games *gs, struct conn *c);
/* A followed user's first connection opened (online) or last one closed. */
void follow_presence(struct games *gs, int64_t user, bool online);
void follow_free(struct games *gs);
void watch_free(struct game *g);
/* A commit of g failed, from its action seq on: a delayed game's list
 * and queue lose those actions' events; if their making released anything
 * to the seats (lost with the batch), the spectators lose their seats and
 * the queue goes. */
void watch_storage_failed(struct game *g, int seq);

/* game.c */
const char *game_color_name(int color);
json_t *game_clock_json(const struct game *g, int64_t now);
/* The same readings into ms (ms[WHITE], ms[BLACK]); returns ms, or NULL
 * for an untimed game. */
const int64_t *game_clock_read(const struct game *g, int64_t now, int64_t ms[2]);
/* The time g's clock is read at: now, but not past the lease, nor past
 * untold_at while a move's announcement is not out (above). */
int64_t game_clock_now(const struct game *g, int64_t now);
/* Which lease g's clock runs on (recover.h): a correspondence clock's, or
 * every other's. */
static inline int game_lease(const struct game *g)
{
	return recover_lease_kind(g->info.days);
}
/* The time clocks of that lease are charged up to: now, but not past it. */
int64_t games_lease_now(const struct games *gs, int lease, int64_t now);
/* The stored lease reaches mono_until (game_restart.c). */
void games_lease_extend(struct games *gs, int lease, int64_t mono_until);
/* g's clock is about to run again (an unpause, an adjourned game
 * resumed).  If no clock of its lease ran, the heartbeat kept none (its
 * lease has run out, which stood nothing, or soon will): a lease is
 * stored with the turn's actions, before any reading goes out
 * (game_restart.c). */
void games_lease_restart(struct games *gs, const struct game *g);
json_t *game_time_json(const struct store_game *info);
/* "paused"/"adjourned" into j while they stand (game_view.c). */
void game_stands_json(const struct game *g, json_t *j);
const struct flagged_game *game_flagged_find(const struct games *gs, int64_t id);
struct game *game_find(const struct games *gs, int64_t id);
/* reason (REASON_*), or REASON_ABORTED for a rated game before both
 * sides moved but a tournament's forfeit (game.c). */
int game_forfeit_reason(const struct game *g, int reason);
/* kind: enum action_kind (action.h). */
int game_act(struct game *g, int kind, int color, const char *text,
             struct conn *c, json_t *id, struct event *retry);
/* ... and what game_restart.c needs of it */
struct game *game_alloc(struct games *gs, const struct store_game *info);
/* g joins the live games (the list and the index). */
void games_link(struct games *gs, struct game *g);
/* heard: AUD_ bits of who heard something of it or is told of it later
 * (the players' lists: heard_at); seq: its seq. */
void game_record_push(struct game *g, const struct action *a, unsigned heard, int seq);
void game_flag_arm(struct game *g);

/* game_restart.c: the heartbeat (a lease, recover.h), and games_recover */
#define GAME_HEARTBEAT_MS 1000
/* How often the correspondence clocks' lease is stored again: at the first
 * heartbeat when what is left of it is no longer than the lease less this. */
#define GAME_DAYS_HEARTBEAT_MS 30000
struct playing {
	struct idnode node;          /* node.id = the user */
	int games;
};
/* "Alive until" now + lease_ms for one lease (0: a clean stop's time),
 * queued in this turn's batch (the row it will write, owned by the batch). */
struct alive;
struct alive *game_alive_record(struct games *gs, int lease, int64_t lease_ms);
/* A clean stop's time, for both leases. */
void games_alive_stop(struct games *gs);
void game_heartbeat_cb(evutil_socket_t fd, short what, void *arg);

/* game_cmd.c: the deferral rule (batch.h), and the connection's order
 * (dispatch.h).  id NULL: a login's game states, during whose wait live
 * game events skip the connection (game_conn_awaiting, game_view.c). */
typedef dispatch_proceed_fn proceed_fn;
bool game_user_busy(const struct games *gs, const struct game *g, int64_t uid);
void game_wait_for_commit(struct conn *c, const struct game *g, json_t *id, json_t *req,
                          proceed_fn proceed);
/* c's request about g (NULL: all its user's games) waits, and true: behind
 * a request of c's already waiting (dispatch_wait_behind), or while an action
 * addressing c's user is uncommitted (game_user_busy). */
bool game_must_wait(struct conn *c, const struct game *g, json_t *id, json_t *req,
                    proceed_fn proceed);
bool game_conn_awaiting(const struct conn *c);
/* srv->game_waits (server.h), set by games_new. */
bool game_request_waits(struct conn *c, json_t *id, json_t *req, proceed_fn proceed);
/* The live game req's "game" names if the connection's user plays in it
 * (*color theirs).  Otherwise NULL, with the one refusal every game
 * request makes: game_over for a finished game of theirs, flagged for one
 * whose record failed its check, no_such_game for anything else (no
 * existence oracle); NULL too when the user must wait (batch.h), self
 * then running again after the commit. */
struct game *game_mine(struct conn *c, json_t *id, json_t *req, int *color, proceed_fn self);

/* game_presence.c: the abandonment policy, away/back, the login welcome. */
/* The abandonment grace (ms) of col's player when away, 0 for none
 * (correspondence, adjourned, an untimed game's registered player...). */
int64_t presence_grace(const struct game *g, int col);
/* col's player's last connection dropped / they logged in again. */
void presence_away(struct game *g, int col);
void presence_back(struct game *g, int col);
/* A recovered game: both players away, each given the game's grace. */
void presence_recovered(struct game *g);
/* The policy changed (adjourned, a new grace): the away players' timers again. */
void presence_rearm(struct game *g, bool tell);
/* Tell the away players' deadlines that changed since they were last told
 * (an action that changed them, at its commit: after its own events). */
void presence_tell(struct game *g);
/* col's player away as a view says it: {"until":ms} ({} without a
 * deadline), or NULL while they are connected. */
json_t *presence_json(const struct game *g, int col);
/* col's opponent_away event with the deadline it has now (a new
 * reference), or NULL when col's player is not away. */
json_t *presence_away_event(const struct game *g, int col);
/* g ended (committed): its absent players hear of it at their next login. */
void presence_game_over(struct game *g);
/* After a login's game states: the `welcome` summary, if there is anything to say. */
void presence_login(struct games *gs, struct conn *c);

/* chat.c */
struct chat;
/* Does listener mute speaker (users)? */
bool chat_muted(struct games *gs, int64_t listener, int64_t speaker);
void chat_free(struct games *gs);
/* The mutes kept in the store, read at start (games_recover).  0 or -1 (logged). */
int chat_load(struct games *gs);
/* The user who spoke a chat event msg of g (either channel), or 0 for a
 * message that is no chat or when nobody has muted anyone: what the
 * spectators' routing (watch.c) checks chat_muted against. */
int64_t chat_speaker(const struct game *g, const json_t *msg);
/* watch.c: does the connection hold a spectator's seat of g?  How many
 * people hold one (an account with two seats counted once; the chair not
 * counted: `live` and the players' `game` say so many watch). */
bool watch_is_spectator(const struct game *g, uint64_t conn);
/* A spectator's request about g waits (true) as a seat's does: for an
 * action spectators hear being committed, or behind a request of its
 * connection already waiting (watch.c must_wait). */
bool watch_must_wait(struct conn *c, const struct game *g, json_t *id, json_t *req,
                     void (*proceed)(struct conn *c, json_t *id, json_t *req));
int watch_spectators(const struct game *g);

/* game_view.c */
json_t *game_view_json(struct conn *c, struct games *gs, const struct store_game *info,
                       const char names[2][PROTO_NAME_MAX + 1], int color,
                       const struct game *live, size_t from);
json_t *game_live_view(struct conn *c, struct game *g, int color, size_t from);
/* The page of list l (audlist.h) from `from` into j (as dispatch_page:
 * "events", "total", "next"), the list cut at `end` (SIZE_MAX: whole),
 * charged to c as a replay's rows are (rate_rows to a token), one an
 * event built: what the reader was told, nothing else.  Returns the index
 * after the page. */
size_t game_told_page(struct conn *c, json_t *j, struct audlist *l, size_t from, size_t end);

#endif
