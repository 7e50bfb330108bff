/*
 * lobby.h — who is online, open seeks, challenges to a named user.
 */
#ifndef KRIEG_LOBBY_H
#define KRIEG_LOBBY_H

#include <stdbool.h>
#include <stdint.h>

struct server;
struct conn;
struct lobby;

struct lobby *lobby_new(struct server *srv);
void lobby_free(struct lobby *l);

/* At start: the waiting offers kept in the store come back (lobby.c).
 * 0, or -1 (logged) if the store could not be read. */
int lobby_load(struct lobby *l);

/* A connection logged in / is closing: its login hooks (conn.h), added by main.c. */
void lobby_conn_login(struct server *srv, struct conn *c);
void lobby_conn_closed(struct server *srv, struct conn *c);

/* Accounts changed (auth.h): the offers of a disabled one go, as if
 * cancelled (a waiting correspondence offer outlives its owner's
 * connections, which the disabling closed). */
void lobby_users_changed(struct server *srv);

/* uid muted (or unmuted) owner (chat.c): owner's standing challenges to
 * uid leave (come back to) every connection of uid's, as
 * `challenge_cancelled` with reason "muted" (`challenge`). */
void lobby_muted(struct server *srv, int64_t uid, int64_t owner, bool mute);

#endif
