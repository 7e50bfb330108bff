/*
 * conn.h — one client connection: TLS bufferevent, bounded line framing,
 * output cap, timeouts, one teardown.
 *
 * Other modules hold connection *ids*, never pointers, across callbacks:
 * a connection may be gone by the time deferred work (password hashing, a
 * clock timer) completes; conn_find() returns NULL then.
 */
#ifndef KRIEG_CONN_H
#define KRIEG_CONN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct server;
struct conn;

struct conn *conn_find(struct server *srv, uint64_t id);
uint64_t conn_id(const struct conn *c);
struct server *conn_server(const struct conn *c);

/* The logged-in user of a connection: 0 / NULL before login. */
int64_t conn_user(const struct conn *c);
const char *conn_user_name(const struct conn *c);
void conn_set_user(struct conn *c, int64_t user_id, const char *name);

/* Queue one JSON object as one line.  Steals the reference to msg.  A
 * connection over its output cap is marked for closing instead. */
void conn_send(struct conn *c, json_t *msg);

/* Send to every connection logged in as user_id (a user may have several). */
void conn_send_user(struct server *srv, int64_t user_id, json_t *msg /* stolen */);

/* Visit every logged-in connection (the lobby's "who" and broadcasts). */
void conn_foreach(struct server *srv, void (*fn)(struct conn *c, void *arg), void *arg);

/* Mark for closing; the free happens from a deferred event, never inside
 * the connection's own callback.  reason is logged. */
void conn_close(struct conn *c, const char *reason);

#endif
