/*
 * game.h — live games: one referee each, clocks, the fan-out of every
 * event to its audience's connections, and persistence of every action.
 */
#ifndef KRIEG_GAME_H
#define KRIEG_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct server;
struct conn;
struct games;

/* How long a player whose last connection dropped may stay away before a
 * timed game is lost by abandonment.  games_set_grace() overrides it. */
#define GAME_ABANDON_GRACE_MS (60 * 1000)
/* Finished games listed by the `games` request, besides the live ones. */
#define GAME_LIST_FINISHED 20

struct games *games_new(struct server *srv);
void games_free(struct games *g);

/* Rebuild unfinished games from the store at start-up.  Returns 0 or -1. */
int games_recover(struct games *g);

/* A connection logged in (login or resume): send it the state of each of its user's live games. */
void games_conn_login(struct server *srv, struct conn *c);
/* A connection is closing: start the abandonment grace period if it was the user's last. */
void games_conn_closed(struct server *srv, struct conn *c);

/* "tournament"/"round" into j when a director's pairing named them: every
 * summary of a game says them (game_start, views, watch, live, history). */
struct store_game;
void game_tags_json(const struct store_game *info, json_t *j);
/* Which colours bot accounts play (the store's flags now), and those
 * into j as "bots", absent when neither is one (game_start, a player's
 * view and game_state: a reconnection lost the marker, bot probe; the
 * watch reply, `live` and `history`: a spectator was not told).
 * game_marks_json: a game's tags and its bots, as every summary of it
 * says them. */
void game_bots(struct server *srv, int64_t white, int64_t black, bool bot[2]);
void game_bots_json(const bool bot[2], json_t *j);
void game_marks_json(struct server *srv, const struct store_game *info, json_t *j);

/* Start a game between two users (the lobby calls this on accept, and a
 * director's `pair`, which may name a tournament and a round: NULL or ""
 * for none; checked by the caller, at most PROTO_TOURNAMENT_MAX and
 * PROTO_ROUND_MAX bytes). */
int games_start(struct server *srv, int64_t white, int64_t black, const char *rules,
                int64_t base_ms, int64_t inc_ms, int64_t days, int rated, const char *tournament,
                const char *round, int64_t *game_id);

/* A finished game of `user`'s, for a rematch (lobby.c): its terms in *out.
 * GAME_DONE; GAME_PLAYING while it is played (or its end is not yet
 * committed: the players have not been told); GAME_FLAGGED for one never
 * finished and not live (its record failed its check at the start);
 * GAME_UNKNOWN for no such game or one `user` did not play (no existence
 * oracle); GAME_UNREADABLE when the store failed. */
enum { GAME_DONE, GAME_PLAYING, GAME_UNKNOWN, GAME_UNREADABLE, GAME_FLAGGED };
/* The refusal (PE_FLAGGED) of every request of such a game, in one wording. */
#define GAME_FLAGGED_SAY "the game's record failed its check; it is not played on"
struct store_game;
int games_finished_of(struct server *srv, int64_t id, int64_t user, struct store_game *out);

/* Has `listener` muted `speaker` (chat.c)?  The lobby hides the speaker's
 * challenges from them too. */
bool games_user_muted(struct server *srv, int64_t listener, int64_t speaker);

/* At a login, after its game states and welcome (games_conn_login, once
 * any commit it waited for is done): the messages left for the user since
 * they were last pushed (chat.c). */
void chat_conn_login(struct server *srv, struct conn *c);

/* Number of live games a user plays in (the lobby's `who`). */
int games_user_count(const struct games *g, int64_t user);
/* Does connection conn watch live game `game` as a spectator (a seat,
 * not the umpire's chair)? */
bool games_conn_spectates(const struct games *g, int64_t game, uint64_t conn);
/* The id of a live timed game `user` plays that is not by
 * correspondence and not adjourned (a clock that runs while they sit at
 * it), or 0: a director does not pair a player into a second one
 * (lobby.c). */
int64_t games_user_on_clock(const struct games *g, int64_t user);
/* Games being played now (the service status line). */
size_t games_live_count(const struct games *g);
/* The last action of live game `id` that player `color` heard anything
 * of (game_priv.h heard_seq), or -1 if the game is not live. */
int games_heard_seq(struct server *srv, int64_t id, int color);
/* The committed actions of live game `id` that a player (aud: AUD_WHITE or
 * AUD_BLACK) heard something of, or was told of since (ruleset_told_later),
 * through *through: the seq of the last committed action they heard
 * anything of (heard_seq), the PGN cache's key.  *n: how many; with out,
 * they are copied, in order, into *out (a new array, the caller's to
 * free).  0, or -1 if the game is not live.  Their PGN is the player's
 * PGN of the record through *through (the actions they did not hear change
 * nothing they were told: test_pgn), made without the actions they did
 * not hear, whose number its cost and its rows told (history.c). */
struct action;
int games_heard_actions(struct server *srv, int64_t id, unsigned aud, int *through, size_t *n,
                        struct action **out);
/* The player of `color` of live game `id` (c's user) reads their own
 * `record` of it: the page from `from` of what they were told (audlist.h)
 * into j, charged to c (1), as their `game` view is; the request waits for
 * an action of theirs being committed and comes back to self (-1:
 * answer nothing); or 0: not live, or no list (replay the record). */
int games_told_record(struct conn *c, json_t *id, json_t *req,
                      void (*self)(struct conn *c, json_t *id, json_t *req), int64_t game,
                      int color, json_t *j, size_t from);

/* Run fn(arg) once every action taken so far is committed (or failed) and
 * what it announced is sent: at once if none waits (conn_close). */
void games_after_commits(struct server *srv, void (*fn)(void *arg), void *arg);

/* Commit this turn's actions now and send what they announced (the end
 * of a loop turn does it by itself; shutdown calls it before the
 * connections go). */
void games_flush(struct games *g);
/* The loop stood ms (stall.h): each absent player's grace is that much
 * longer, and said so. */
void games_stalled(struct games *gs, int64_t ms);
/* Shutdown: the clean-shutdown checkpoint is recorded now (the clocks
 * are charged up to the signal, not through the drain), and no clock or
 * abandonment timer fires any more (while the connections drain, nobody
 * could hear it). */
void games_stop(struct games *gs);

/* Accounts changed offline (auth.c, users_check): drop the umpire chairs
 * of users who may no longer hold them. */
void games_users_changed(struct server *srv);

/* The abandonment grace period of timed games (ms; 0: the default,
 * GAME_ABANDON_GRACE_MS).  The test hook KRIEGD_ABANDON_GRACE_MS wins
 * over this and the next. */
void games_set_grace(struct games *g, int64_t ms);
/* The grace of untimed games (ms; 0: never abandoned, the default).
 * Correspondence games are never abandoned (game_presence.c). */
void games_set_untimed_grace(struct games *g, int64_t ms);

#endif
