/*
 * lobby.h — who is online, open seeks, challenges to a named user.
 */
#ifndef KRIEG_LOBBY_H
#define KRIEG_LOBBY_H

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

#endif
