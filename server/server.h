/*
 * server.h — the daemon's one shared state, passed explicitly (no globals
 * beyond the signal plumbing in main.c).
 */
#ifndef KRIEG_SERVER_H
#define KRIEG_SERVER_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct config;
struct tls;
struct listener;
struct store;
struct auth;
struct lobby;
struct games;
struct announce_cache;
struct pgn_cache;
struct reader;
struct dispatch_req;
struct json_t;
struct connset;
struct web;
struct conn;
struct server;

/* What a module with per-user state does when a connection logs in and
 * when it is closing (conn.h, "Login hooks").  Registered at start with
 * conn_hook_add(); the transport knows nothing else of those modules. */
struct conn_hook {
	void (*login)(struct server *srv, struct conn *c);
	void (*closed)(struct server *srv, struct conn *c);
};
#define SERVER_HOOKS_MAX 4

struct server {
	struct event_base *base;
	struct config *cfg;
	struct tls *tls;            /* SSL_CTX and certificate (tls.c) */
	struct listener *listeners;  /* listener.c */
	struct connset *conns;      /* every live connection, by id (conn.c) */
	struct web *web;            /* the web door's HTTP requests in progress (web.c) */
	struct store *store;        /* SQLite (store.c) */
	struct auth *auth;          /* accounts, sessions, password hashing workers (auth.c) */
	struct lobby *lobby;        /* seeks, challenges (lobby.c) */
	struct games *games;        /* live games, clocks (game.c) */
	struct announce_cache *replays;  /* marks along long records (announce.c) */
	struct pgn_cache *pgns;     /* long records' PGN texts (pgn_cache.c) */
	uint64_t rows_charged;      /* store rows already charged to a request (dispatch.c) */
	struct reader *reader;      /* long replays off the loop (reader.c); NULL: in place */
	struct stall *stall;        /* the loop's standstills (stall.c); NULL: not running */
	const struct dispatch_req *req;  /* the request dispatch_line runs now; NULL: none */
	uint64_t queue_head;             /* the connection whose first waiting request runs now
	                                    (dispatch.h: behind none); 0: none */
	/* Must c's request about a game (one with a "game" field) wait, for the
	 * order of c's requests or for a commit?  Then it is queued (true).
	 * The games module's (game_cmd.c), run by dispatch.c before the
	 * request's handler; NULL: none waits there. */
	bool (*game_waits)(struct conn *c, struct json_t *id, struct json_t *req,
	                   void (*proceed)(struct conn *c, struct json_t *id, struct json_t *req));
	struct conn_hook hooks[SERVER_HOOKS_MAX];  /* run in this order (conn.c) */
	size_t nhooks;
};

#endif
