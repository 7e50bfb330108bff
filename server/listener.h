/*
 * listener.h — listening sockets, bound here or passed in by systemd:
 * accept, hand the socket to conn.c, and on EMFILE/ENFILE pause accepting
 * for a moment instead of spinning.
 */
#ifndef KRIEG_LISTENER_H
#define KRIEG_LISTENER_H

#include <stdbool.h>
#include <stddef.h>

struct server;
struct listener;

/*
 * A peer whose path has died without a word (a phone off its network, a
 * NAT that forgot the connection: no FIN, no RST) is noticed by the
 * kernel: TCP keep-alive probes after LISTENER_KEEPIDLE_S of silence, and
 * data (an opponent's move, a probe) left unacknowledged for
 * LISTENER_USER_TIMEOUT_MS ends the connection.  Before, such a player
 * held its seat as connected until idle_timeout (5 minutes), and the
 * opponent heard nothing of it; now the abandonment grace starts within a
 * minute.  A live peer acknowledges in the kernel, whatever its program
 * is doing, so a player thinking is not cut, nor a slow reader while its
 * receive buffer has room; one that has stopped reading altogether (a
 * client suspended with ^Z) and left a full window for 45 s is closed too,
 * as a dead one is (Linux 5.11 and later).  (libevent's
 * listener already turned keep-alive on, at the system's default of a
 * first probe after two hours.)
 */
#define LISTENER_KEEPIDLE_S 20
#define LISTENER_KEEPINTVL_S 5
#define LISTENER_KEEPCNT 4
#define LISTENER_USER_TIMEOUT_MS 45000

/*
 * An accepted socket's send buffer, fixed: what the kernel holds for a
 * client that does not read comes on top of output_buffer_max (conn.c),
 * and left to grow (Linux's autotuning, up to net.ipv4.tcp_wmem's top:
 * 4 MiB) it held 2.7 MB for one silent reader (hostile-input probe), three
 * times the cap.  The kernel doubles the value for its bookkeeping.
 * Kriegd's lines are small and a login's long state is paced by what the
 * client reads: 64 KiB is room for a few hundred lines in flight.
 */
#define LISTENER_SNDBUF (64 * 1024)

/*
 * Bind "1.2.3.4:PORT" or "[v6addr]:PORT" (numeric addresses; port 0 picks a
 * free one) and start accepting once the event loop runs.  Logs
 * "listening on ADDR:PORT" with the bound port.  Returns 0, or -1 with a
 * message in err; *unavailable is set when the address family or address
 * does not exist on this host (a missing IPv6 stack).
 */
int listener_open(struct server *srv, const char *addr, bool *unavailable, char *err,
                  size_t errlen);
/* What an accepted socket is for. */
enum listener_kind {
	LISTENER_LINE = 0,       /* the line protocol over TLS (conn.c) */
	LISTENER_WEB = 1,        /* the web door over TLS (web.c) */
	LISTENER_WEB_PLAIN = 2,  /* the web door without TLS, behind a proxy: loopback only */
};
/* Is addr one listener_open_kind takes for kind (the form above; a
 * LISTENER_WEB_PLAIN address loopback)?  0, or -1 with a message naming
 * the kind's config key: config.c checks each address as it is read, so
 * that --check-config refuses what a start would. */
int listener_addr_check(const char *addr, enum listener_kind kind, char *err, size_t errlen);
/* listener_open for one kind; a LISTENER_WEB_PLAIN address that is not
 * loopback (127.0.0.0/8, ::1) is refused with a message. */
int listener_open_kind(struct server *srv, const char *addr, enum listener_kind kind,
                       bool *unavailable, char *err, size_t errlen);
/*
 * Accept on fd, a socket already bound and listening, passed by the
 * service manager (socket activation: kriegd.socket, LISTEN_FDS).
 * Returns 0, or -1 with a message in err (not a listening stream socket).
 */
int listener_adopt(struct server *srv, int fd, char *err, size_t errlen);
/* A host as a listen address or an HTTP Host names it ("127.0.0.1",
 * "localhost", "[::1]", each with an optional ":PORT"): this machine's
 * loopback (127.0.0.0/8, ::1, localhost)?  A longer name ending in one
 * ("localhost.example") is not. */
bool listener_host_loopback(const char *host);
/* Stop accepting and close every listening socket. */
void listener_free_all(struct server *srv);

#endif
