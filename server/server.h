/*
 * server.h — the daemon's one shared state, passed explicitly (no globals
 * beyond the signal plumbing in main.c).
 */
#ifndef KRIEG_SERVER_H
#define KRIEG_SERVER_H

#include <stdint.h>

struct event_base;
struct config;
struct tls;
struct listener;
struct store;
struct auth;
struct lobby;
struct games;
struct connset;

struct server {
	struct event_base *base;
	struct config *cfg;
	struct tls *tls;            /* SSL_CTX and certificate (tls.c) */
	struct listener *listeners;  /* listener.c */
	struct connset *conns;      /* every live connection, by id (conn.c) */
	struct store *store;        /* SQLite (store.c) */
	struct auth *auth;          /* accounts, sessions, password hashing workers (auth.c) */
	struct lobby *lobby;        /* seeks, challenges (lobby.c) */
	struct games *games;        /* live games, clocks (game.c) */
};

#endif
