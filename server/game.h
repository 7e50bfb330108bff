/*
 * game.h — live games: one referee each, clocks, the fan-out of every
 * event to its audience's connections, and persistence of every action.
 */
#ifndef KRIEG_GAME_H
#define KRIEG_GAME_H

#include <stdint.h>

struct server;
struct conn;
struct games;

struct games *games_new(struct server *srv);
void games_free(struct games *g);

/* Rebuild unfinished games from the store at start-up.  Returns 0 or -1. */
int games_recover(struct games *g);

/* A connection logged in (login or resume): send it the state of each of its user's live games. */
void games_conn_login(struct server *srv, struct conn *c);
/* A connection is closing: start the abandonment grace period if it was the user's last. */
void games_conn_closed(struct server *srv, struct conn *c);

/* Start a game between two users (the lobby calls this on accept). */
int games_start(struct server *srv, int64_t white, int64_t black, const char *rules,
                int64_t base_ms, int64_t inc_ms, int64_t days, int rated, int64_t *game_id);

#endif
