/*
 * conn.h — one client connection: TLS bufferevent, bounded line framing,
 * output cap, request rate limit, timeouts, one teardown; the set of all
 * connections, the query "connections of user U", and the login hooks.
 *
 * Other modules hold connection *ids*, never pointers, across callbacks:
 * a connection may be gone by the time deferred work (password hashing, a
 * clock timer) completes; conn_find() returns NULL then.
 *
 * The transport knows nothing of what is sent: modules with per-user
 * state (the lobby, the games) learn of logins and closes through hooks
 * (struct conn_hook, server.h):
 *   conn_set_user() with a new user runs every login hook, in the order
 *   added, at once; so a handler that logs a connection in answers first
 *   (its "ok" precedes the challenges and game states the hooks send).
 *   With the user it is logged in as already (a `login` or `resume` of
 *   the same account, to read its state again) it runs them again: what
 *   a login is sent is sent again, but the user did not arrive
 *   (conn_user_arrived), and no closed hook runs.
 *   Setting user 0 (logout) or another user first runs every closed hook
 *   for the old user, during which conn_of_user() skips this connection.
 *   conn_close() runs the closed hooks once for a logged-in connection;
 *   from then on the connection is invisible (conn_find() NULL, skipped by
 *   conn_of_user()) and conn_send() to it is a no-op.  Shutdown of the
 *   daemon (connset_free) runs no hooks.
 */
#ifndef KRIEG_CONN_H
#define KRIEG_CONN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"   /* KRIEG_RELEASE */

struct server;
struct conn;
struct line;
struct sockaddr;

#define KRIEGD_SERVER_NAME "kriegd/" KRIEG_RELEASE  /* the greeting's "server" */
#define CONN_REFUSE_EXTRA 16             /* over max_connections: at most this many
                                            more get a server_full reply; the rest are
                                            closed right after accept */
#define CONN_EVICT_HANDSHAKE_MS 2000     /* full: a new connection takes the place of the
                                            oldest still in its TLS handshake this long */
#define CONN_HANDSHAKES_PER_IP 8         /* TLS handshakes unfinished from one address
                                            (limit key), or a quarter of
                                            max_connections_per_ip if more: one more
                                            closes the address's oldest at it
                                            CONN_EVICT_HANDSHAKE_MS */
/* One address's connections logged (accepted, handshake failure, hello,
 * closed): this many at once, then this many a second; the rest are
 * counted, not logged.  A loop of connections from one address wrote 2 MB
 * of log a second (a probe).  The web door's refused requests share it. */
#define CONN_LOG_BURST 30
#define CONN_LOG_PER_SEC 1

/* Add a module's hooks (either may be NULL); fatal past SERVER_HOOKS_MAX. */
void conn_hook_add(struct server *srv, void (*login)(struct server *srv, struct conn *c),
                   void (*closed)(struct server *srv, struct conn *c));

/* May a line of host's (the web door's refused request) be logged now?
 * Taken from the address's log budget (CONN_LOG_BURST); over it, counted
 * and false.  note gets "" or what was left out before it, to append. */
bool conn_log_allow(struct server *srv, const char *host, char *note, size_t len);
/* The same for a line of c's that a client can repeat at will (a refused
 * guest or registration): from its address's budget. */
bool conn_log_line(struct conn *c, char *note, size_t len);
/* c's own lines (accepted, hello, handshake failure, closed) are left out:
 * its address was over its log budget when it connected. */
bool conn_quiet(const struct conn *c);

/* An open connection by id, or NULL (closed, closing, or no set any more). */
struct conn *conn_find(struct server *srv, uint64_t id);
uint64_t conn_id(const struct conn *c);
struct server *conn_server(const struct conn *c);
/* "1.2.3.4" (the peer's address without the port): for logs, the audit
 * and the admin's views. */
const char *conn_host(const struct conn *c);
/* The address as every per-address limit counts it (max_connections_per_ip,
 * the request budget, auth's guard.h): an IPv6 address's network
 * (guard_addr_key, ipv6_prefix). */
const char *conn_limit_host(const struct conn *c);

/* The logged-in user of a connection: 0 / NULL before login. */
int64_t conn_user(const struct conn *c);
const char *conn_user_name(const struct conn *c);
/* Log in as user_id (0: log out), running the hooks above. */
void conn_set_user(struct conn *c, int64_t user_id, const char *name);
/* For a login hook: did this login bring c's user online (no other
 * connection of theirs was in when it was made), and is this the first
 * time it is asked since?  What
 * is told once per arrival (followers' `arrived`, the umpires'
 * `connection`) is told when it says so: never for a repeated login of
 * the same user on c, nor twice for one login whose hook ran again (a
 * login that waited for a commit). */
bool conn_user_arrived(struct conn *c);

/*
 * The connections logged in as user (0: as anyone), in accept order: the
 * first with prev NULL, then the one after prev, NULL after the last:
 *	for (struct conn *c = NULL; (c = conn_of_user(srv, user, c)) != NULL;)
 * The caller may send to or close the one it holds (frees are deferred),
 * or log it out or in as another user (the walk goes on with the next of
 * `user` in accept order).  A per-user index: a walk costs the
 * connections of that user; user 0 walks every connection.
 */
struct conn *conn_of_user(struct server *srv, int64_t user, struct conn *prev);

/* hello was answered; requests other than hello and ping are allowed. */
bool conn_hello_done(const struct conn *c);
void conn_set_hello(struct conn *c);

/* One request token of the connection's bucket (rate_limit per second,
 * rate_burst deep).  CONN_RATE_CLOSE: refused, and the client kept flooding
 * (rate_limit_close refusals without ever letting the bucket refill): the
 * caller answers rate_limited, then calls conn_close(). */
enum conn_rate { CONN_RATE_OK = 0, CONN_RATE_LIMITED = 1, CONN_RATE_CLOSE = 2 };
enum conn_rate conn_rate_take(struct conn *c);
/* Charge tokens more for what a request cost beyond its line (the store's
 * rows it replayed: dispatch_charge_rows).  A bucket left under one token
 * holds the connection: nothing more of its input is read or run until the
 * bucket has refilled to one, then it goes on where it stopped; and until
 * the bucket is full again, each request that finds no token waits for one
 * the same way.  So a client pays for expensive reads in waiting, and none
 * of its requests is refused for them. */
void conn_rate_charge(struct conn *c, double tokens);
/* The rows charged come out of the address's bucket too (one per address,
 * of the same size and refill; a connection's own bucket still pays for
 * them as well).  A request that replays (CMD_REPLAYS, dispatch.h) from an
 * address whose bucket is in debt is deferred: true, and the line (its
 * token given back) waits first in turn while the connection is held until
 * the debt is paid, then runs as if it had just arrived.  So however many
 * connections one address opens, its replays together cost no more than
 * one connection's, and its other requests (a try) are not slowed.  False:
 * run it now. */
bool conn_defer_replay(struct conn *c, const char *line, size_t n);
/* A request that continues a paged list (dispatch_line: a "from" above 0)
 * and finds no token waits for one instead of being refused: true, the
 * line is kept first in turn and the connection held until its bucket has
 * a token (and treated as owing until it is full: what follows waits the
 * same way).  Reading a long list page by page is one read.  False: a
 * token is there; take it (conn_rate_take). */
bool conn_wait_token(struct conn *c, const char *line, size_t n);

/* A request whose replay went to the reader thread (dispatch_offload,
 * reader.h): its line is kept first in turn and the connection held
 * (nothing more of its input read or run) until conn_offload_done.  False
 * if the connection is not open. */
bool conn_offload(struct conn *c, const char *line, size_t n);
/* The replay of connection id's request is done (charged `tokens` more
 * for rows it read beyond what was charged at the hand-over): that
 * request runs again now, first and without waiting
 * for a token (its answer goes out before the charge holds what follows),
 * then the connection goes on.  Nothing if it closed meanwhile. */
void conn_offload_done(struct server *srv, uint64_t id, double tokens);
/* Is a request of c with the reader now (conn_offload)? */
/* c's queue of waiting requests has room again (dispatch.c): its input,
 * stopped while the queue was full, goes on. */
void conn_queue_room(struct conn *c);
/* Is an authentication of its request in flight (conn_auth_hold)?  Its
 * user may change when it is done. */
bool conn_authing(const struct conn *c);
bool conn_offloaded(const struct conn *c);
/* Is the request about to run the one that came back from the reader?
 * (dispatch_line asks once per request, which clears it.) */
bool conn_take_rerun(struct conn *c);

/*
 * Identity in request order.  A request that queues work on the hashing
 * workers (auth.c: login, register, passwd, an admin's user_create and
 * user_reset) is answered later; until then the connection is held as
 * for conn_offload: nothing more of its input is read or run (what it
 * had already sent stays first in turn), so that a logout, guest, login
 * or any request sent behind a login takes effect after it, in the order
 * sent, and not before it only to be overridden when the hash ends.
 * Pings behind it wait too: simplest, and a hash is short.  While held
 * the connection is not idle (the wait is the server's).
 * conn_auth_hold: the job is queued (nothing if c is not open);
 * conn_auth_done: its answer is out (for a failed login, after
 * login_failure_delay): the connection goes on with what it sent next.
 * Nothing if it closed meanwhile: a closed connection's held input goes
 * with it.
 */
void conn_auth_hold(struct conn *c);
void conn_auth_done(struct server *srv, uint64_t id);

/* Queue one JSON object as one line.  Steals the reference to msg.  A
 * connection over its output cap is marked for closing instead. */
void conn_send(struct conn *c, json_t *msg);
/* The same for a line already encoded (line.h; borrowed: the caller keeps
 * its reference).  c NULL or closing: nothing. */
void conn_send_line(struct conn *c, const struct line *l);
/* c's queued output (its buffer and paced lines) over output_buffer_max:
 * a slow reader, torn down (true).  Checked after every line sent; a
 * transport that writes on its own (the WebSocket door's pongs) checks
 * after that. */
bool conn_output_check(struct conn *c);

/* Queue one JSON object (stolen) to go out as the output buffer drains:
 * a long reply made of many lines (the game_state and game_events pages
 * of a login) does not count against the output cap, so a reconnecting
 * player is not dropped for the size of their own games; it is moved to
 * the socket below half the cap.  Lines sent after it with conn_send()
 * keep their order behind it (and do count against the cap). */
void conn_send_paced(struct conn *c, json_t *msg);

/*
 * A gate: a place kept in c's paced queue for lines made later (a login's
 * game_state made off the loop: game_view.c).  Nothing sent to c after
 * conn_gate_open() goes out before the gate is closed; the lines given to
 * conn_gate_put() go out in its place, paced (not counted against the
 * cap), and conn_gate_close() lets everything behind it go on.  NULL if c
 * is closing.  The gate is c's, freed with it: whoever keeps one keeps
 * conn_id() too, and uses the gate only on the connection conn_find()
 * gives for that id.
 *
 * The lines are made by conn_paced_new() on any thread (pure: s is one
 * line's n bytes, without its '\n', written as line_encode_into() writes
 * it: line.h), so that the loop neither copies nor writes them again;
 * conn_gate_put() takes one, conn_paced_free() drops one never put.
 */
struct paced;
struct paced *conn_gate_open(struct conn *c);
struct paced *conn_paced_new(const char *s, size_t n);
void conn_paced_free(struct paced *pl);
void conn_gate_put(struct conn *c, struct paced *gate, struct paced *pl);
void conn_gate_close(struct conn *c, struct paced *gate);

/*
 * A lazy gate: its lines are made only once it is the first thing in c's
 * paced queue and c has read its output down to the low mark, so a
 * connection that logs in and does not read holds a few heads, not the
 * states of all its games (memory probe: 16 MB a connection, unbounded by
 * output_buffer_max).  ops->fill(c, gate, arg) is called then, once, on
 * the loop: it makes the lines (conn_gate_put, conn_gate_close), now or
 * later (the reader), and owns arg from then.  ops->drop(arg) frees arg
 * instead if c goes first.  NULL if c is closing (arg not taken).
 */
struct conn_gate_ops {
	void (*fill)(struct conn *c, struct paced *gate, void *arg);
	void (*drop)(void *arg);
};
struct paced *conn_gate_open_lazy(struct conn *c, const struct conn_gate_ops *ops, void *arg);
/* Fill c's first gate if it is lazy and c's output is low: after a login
 * opened its gates, and as each is closed (the write callback does the
 * rest, as the client reads).  One gate a call; not from within a fill. */
void conn_pace_kick(struct conn *c);

/* conn_send() to every connection of user_id (msg stolen); _but leaves out
 * the connection whose id is `but` (0: none), one that must not hear it. */
void conn_send_user(struct server *srv, int64_t user_id, json_t *msg);
void conn_send_user_but(struct server *srv, int64_t user_id, uint64_t but, json_t *msg);

/* Mark for closing; the free happens from a deferred event, never inside
 * the connection's own callback.  reason is logged.  The close waits for
 * the commits in progress (what was taken from it is answered first);
 * meanwhile c reads and runs nothing more, and conn_closing says so: a
 * request of it that was waiting is not run (dispatch.h). */
void conn_close(struct conn *c, const char *reason);
bool conn_closing(const struct conn *c);
/* c's requests that wait, in the order sent: dispatch.c's (dispatch.h),
 * freed with c (dispatch_queue_free). */
struct dispatch_later;
struct dispatch_later **conn_queue(struct conn *c);

/* The set (main.c, listener.c). */
struct connset *connset_new(void);
/* Daemon shutdown, without hooks: connset_drain closes every connection
 * as conn_close() does (what it was sent goes out first, then TLS's
 * close_notify; a WebSocket's close says 1001, going away); once
 * connset_drained() (each has its output out, or is gone), connset_free
 * frees every connection left at once. */
void connset_drain(struct server *srv);
bool connset_drained(const struct server *srv);
void connset_free(struct server *srv);

/* The loop stood ms (stall.h): each open connection's silence counts
 * from that much later, each handshake has its whole time again. */
void conn_stalled(struct server *srv, int64_t ms);
void conn_accept(struct server *srv, int fd, const struct sockaddr *sa, int socklen);
/*
 * A connection over a bufferevent the caller made, already open (no TLS,
 * no handshake, no greeting); the connection owns bev from then on.  The
 * seam for the in-process fuzzer (tests/fuzz/fuzz_dispatch.c), which
 * drives dispatch_line over a bufferevent pair; the daemon never calls it.
 */
struct bufferevent;
struct conn *conn_attach(struct server *srv, struct bufferevent *bev);
/*
 * The seam for message framings other than '\n'-terminated lines (the
 * WebSocket door, server/web.c): the connection keeps its limits,
 * dispatch, hooks, timers and teardown, and asks the framing only to turn
 * bytes into messages and back.  Each message is exactly one protocol
 * line without its newline.
 *   input     bytes arrived in the bufferevent's input: decode whole
 *             messages, handing each to conn_message(); on a framing
 *             error queue its own goodbye and conn_close().
 *   put       queue one message (n bytes) to the bufferevent's output.
 *   goodbye   the connection is closing (LINGER): queue the framing's
 *             close (a close frame; going_away: the server is stopping)
 *             behind the last reply; idempotent.
 *   keepalive the idle timer's half-way mark (besides the ping event);
 *             may be NULL.
 *   free      the connection is freed (before its bufferevent).
 */
struct conn_framing {
	void (*input)(struct conn *c, void *ctx);
	void (*put)(void *ctx, const char *msg, size_t n);
	void (*goodbye)(void *ctx, bool going_away);
	void (*keepalive)(void *ctx);
	void (*free)(void *ctx);
};
/*
 * A connection over bev (open: TLS, if any, and the upgrade are done),
 * framed by framing/ctx, counted against max_connections and
 * max_connections_per_ip by host like an accepted one, and greeted.  The
 * connection owns bev and ctx from then on.  NULL when refused with no
 * room to say so: bev and ctx stay the caller's.
 */
struct conn *conn_adopt(struct server *srv, struct bufferevent *bev, const char *peer,
                        const char *host, const struct conn_framing *framing, void *ctx);
/* buf: "addr:port" (for the log); host: the address alone. */
#include <netinet/in.h>
void conn_format_peer(const struct sockaddr *sa, char *buf, size_t len,
                      char host[INET6_ADDRSTRLEN]);
/* One message received (n bytes, no newline): the idle timer is reset and
 * it goes to dispatch, as a line of the line transport does. */
void conn_message(struct conn *c, const char *msg, size_t n);
/* Connections in the set, in any state. */
size_t conn_count(const struct server *srv);

#endif
