/*
 * conn_priv.h — internal to the connection module (conn.c, conn_out.c):
 * a connection's state, the set and its user index.  Nothing outside the
 * module includes it; its interface is conn.h.
 *
 * conn.c holds the set, the accessors, teardown, the callbacks and
 * accepting; conn_out.c the output path (encoding, the output cap and the
 * paced queue).
 */
#ifndef KRIEG_CONN_PRIV_H
#define KRIEG_CONN_PRIV_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <event2/bufferevent.h>
#include <event2/event.h>

#include "conn.h"
#include "guard.h"
#include "idtable.h"

enum conn_state { CS_HANDSHAKE, CS_OPEN, CS_LINGER, CS_DEAD };

struct conn {
	uint64_t id;
	struct server *srv;
	struct bufferevent *bev;
	enum conn_state state;
	int64_t accepted;            /* mstime_mono() at its accept (evict_handshake) */
	bool refused;              /* over max_connections: server_full, then close */
	bool refused_addr;         /* over max_connections_per_ip (refused too) */
	bool hello;
	bool first_line_seen;      /* line door: its first line was checked for HTTP
	                              (conn.c, http_on_line_door) */
	bool leaving;              /* running the closed hooks (logout): skipped by conn_of_user */
	bool shut;                 /* LINGER: close_notify and FIN sent */
	bool held;                 /* waiting for a token: input neither read nor run */
	bool quiet;                /* over its address's log budget (host_log_take): its
	                              accepted, handshake, hello and closed lines left out */
	bool owing;                /* charged into debt (conn_rate_charge) since its bucket
	                              was last full and its address's out of debt: a
	                              request waits for its token, and for the address's
	                              debt to be paid (held), instead of being refused */
	bool offloaded;            /* its request's replay is with the reader (conn_offload):
	                              input neither read nor run */
	bool rerun;                /* the next request run is that one again */
	bool authing;              /* an authentication job of its request is in flight
	                              (conn_auth_hold): input neither read nor run */
	struct dispatch_later *queue; /* its requests waiting, in order (dispatch.h) */
	bool queue_full;           /* that queue is full (DISPATCH_QUEUE_MAX): input neither
	                              read nor run until it has room (conn_queue_room) */
	bool closing;              /* conn_close waits for the commits of what it took:
	                              input neither read nor run, then closed */
	int64_t user;
	char *user_name;
	bool arrival;              /* its login of `user` is one the user's arrival may be
	                              told for, not yet asked (conn_user_arrived) */
	char host[INET6_ADDRSTRLEN]; /* the peer's address without the port */
	struct event *timer;       /* handshake, then idle/ping, then linger, then the deferred free */
	int64_t last_rx;           /* last line received (mstime_mono) */
	bool pinged;               /* keep-alive sent since last_rx */
	bool kicking;              /* in conn_pace_kick: a gate it fills kicks no other */
	double tokens;
	int64_t last_refill;
	struct hostbudget *hb;     /* its address's (every connection has one); hb->addr
	                              is host as the per-address limits count it
	                              (guard_addr_key), kept there and not in each
	                              connection: 10,000 idle ones hold 0.5 MiB less */
	int strikes;               /* refused requests since the bucket was last full */
	/* Messages a framing decoded while the connection was held, each with
	 * a '\n', run when the hold ends (NULL until the first). */
	struct evbuffer *held_in;
	/* Message framing other than '\n'-terminated lines (a WebSocket,
	 * server/web.c); NULL for the line transport. */
	const struct conn_framing *framing;
	void *framing_ctx;
	/* Lines waiting for the output buffer to drain (conn_send_paced), and
	 * everything sent after them, in order; a gate (conn_gate_open) holds
	 * back everything behind it. */
	TAILQ_HEAD(, paced) paced;
	size_t paced_extra;        /* bytes in `paced` from plain conn_send (capped) */
	TAILQ_ENTRY(conn) all;
	struct idnode byid;        /* in the id index (conn_find); byid.id = id */
	struct userconns *uc;      /* the user index's entry for `user` (NULL: user 0) */
	TAILQ_ENTRY(conn) byuser;  /* in uc->conns */
};

/* One encoded line (with its '\n') waiting in a connection's paced queue,
 * or a gate: no line (len 0), a place kept for lines still to come. */
struct paced {
	TAILQ_ENTRY(paced) next;
	size_t len;
	bool capped;               /* counts against output_buffer_max */
	bool gate;
	/* A lazy gate's maker (conn_gate_open_lazy), until it is called. */
	const struct conn_gate_ops *lazy;
	void *lazy_arg;
	char line[];
};

TAILQ_HEAD(connlist, conn);

/*
 * The user index: each logged-in user's connections, so that fan-out to
 * the addressees of an event (conn_of_user, several per try) costs the
 * user's connections and not every connection of the daemon.  A
 * connection is in the list of its user from conn_set_user() until it is
 * freed (closing ones stay, skipped like in the walk over all, so a caller
 * holding one can still step past it); the list is in id order, which is
 * accept order.
 */
struct userconns {
	struct idnode node;        /* in the user index; node.id = the user */
	struct connlist conns;
};

/*
 * What one address's connections have spent of the store, together: the
 * rows charged (conn_rate_charge) also come out of this bucket, of the
 * same size and refill as a connection's.  Without it, each connection
 * from one address (max_connections_per_ip of them) would have a
 * replay's worth of its own to spend.  Found by a keyed hash of the
 * address (host_hold: another address of the same hash takes the next
 * key), and addr is each of its connections' limit key.
 */
struct hostbudget {
	struct idnode node;        /* in connset.hosts; node.id = the address's hash */
	double tokens;             /* may be below 0: a debt */
	int64_t last_refill;
	size_t conns;              /* connections that hold it */
	/* The log budget: connections (and the web door's refused requests)
	 * whose lines are logged, CONN_LOG_BURST at once and CONN_LOG_PER_SEC
	 * after; those over it are counted and said with the next logged one,
	 * or when the record is forgotten. */
	double log_tokens;
	int64_t log_refill;
	unsigned unlogged;
	char addr[GUARD_ADDR_MAX]; /* the address as limited (guard_addr_key), for that line */
	/* With no connection left it is kept (in connset.idle_hosts, oldest
	 * first) until both buckets are full again: closing and opening again
	 * is no way out of a debt, nor out of the log budget. */
	TAILQ_ENTRY(hostbudget) idle;
};
TAILQ_HEAD(hostlist, hostbudget);

struct connset {
	struct connlist all;
	struct idtable byid;       /* every connection by id (conn_find) */
	size_t count;
	size_t refusing;
	uint64_t next_id;
	struct idtable users;      /* the user index: struct userconns by user */
	struct idtable hosts;      /* struct hostbudget by address (host_key) */
	uint64_t host_seed;        /* host_key's secret, drawn at start */
	struct hostlist idle_hosts; /* those with no connection, not yet full */
	struct guard_log_limit refused_log;   /* "no room to say so": one line an interval */
};

/* conn.c: the one teardown (conn_close is it with flush); logs why. */
void conn_teardown(struct conn *c, const char *reason, bool flush);
/* conn_out.c: move paced lines into the output buffer while it is low. */
void conn_pace_drain(struct conn *c);
/* conn_out.c: the stop's last line (msg stolen), straight to the output
 * behind what is there: no cap (the stop's linger bounds the wait, and a
 * teardown inside connset_drain would run the closed hooks a stop must
 * not), ahead of paced lines (a stop sends none of them: a long reply
 * being paced out is cut, and every line queued behind it, answers
 * among them: PROTOCOL.md says so). */
void conn_send_last(struct conn *c, json_t *msg);

#endif
