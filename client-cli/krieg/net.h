/*
 * net.h — the client's TLS connection: connect, verify the server, and
 * move protocol lines.  Blocking OpenSSL over a non-blocking socket: the
 * caller polls net_fd() together with the terminal, so the clocks keep
 * ticking while the network is quiet.
 *
 * Verification: a certificate that chains to a system CA and matches the
 * host name is trusted.  Otherwise trust on first use: the SHA-256 of the
 * certificate is pinned in the known_servers file (known.h) the first time
 * and must match ever after; a changed certificate is refused.  The
 * messages say why the CA path did not do: a certificate a trusted CA
 * signed for other names (a server reached as localhost) has them listed,
 * with the advice to connect by one, since its pin breaks at every
 * renewal; any other, OpenSSL's reason.  --insecure
 * skips both, with a warning each time.  Whether a first-seen certificate
 * is pinned is the caller's policy: ask the person (a terminal), pin it
 * automatically (--batch, --trust-new), or refuse it (a reconnection: the
 * server was pinned a moment ago, so a new certificate is not a first use).
 */
#ifndef KRIEG_NET_H
#define KRIEG_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define NET_CONNECT_TIMEOUT_MS 10000
#define NET_HOST_MAX 256
#define NET_PORT_DEFAULT "7474"
/* Room for any message of net_connect: the changed certificate's banner
 * names the known_servers file twice (KNOWN_PATH_MAX each), the host and
 * the certificate's names. */
#define NET_ERR_MAX (2 * 4096 + 4096)

enum net_status {
	NET_OK = 0,
	NET_E_ADDRESS = 1,       /* bad HOST[:PORT] or name resolution failed */
	NET_E_CONNECT = 2,       /* TCP connect failed or timed out */
	NET_E_TLS = 3,           /* handshake failed */
	NET_E_CERT_CHANGED = 4,  /* pinned fingerprint differs: refused */
	NET_E_KNOWN_FILE = 5,    /* known_servers could not be read or written */
	NET_E_CLOSED = 6,        /* the server closed the connection */
	NET_E_IO = 7,            /* read/write error */
	NET_E_LINE_TOO_LONG = 8, /* the server sent a line over PROTO_LINE_MAX */
	NET_E_NOT_TRUSTED = 9,   /* a first-seen certificate was not accepted: nothing pinned */
	NET_E_RESET = 10,        /* the connection was reset (RST), by the network or the server's host */
	NET_E_REFUSED = 11,      /* TCP connect refused: nothing listens on that port there */
};

enum net_tofu {
	NET_TOFU_AUTO = 0,       /* pin a first-seen certificate, with a notice */
	NET_TOFU_ASK = 1,        /* ask confirm(); pin only on yes */
	NET_TOFU_REFUSE = 2,     /* never pin */
};

struct net;

struct net_opts {
	const char *host;
	const char *port;
	bool insecure;
	const char *known_path;  /* known_servers file; NULL: known_default_path() */
	FILE *notice;            /* where notices (new pin, --insecure warning) go; NULL: stderr */
	const char *program;     /* the notices' prefix ("krieg-bot"); NULL: "krieg" */
	enum net_tofu tofu;
	/* NET_TOFU_ASK: show `question` (it ends "(yes/no)? ") and return 1 for yes, 0 for no */
	int (*confirm)(void *ctx, const char *question);
	void *confirm_ctx;
};

/* "host", "host:port", "[v6addr]:port" → host and port (default 7474).  0 or -1. */
int net_split_hostport(const char *arg, char *host, size_t hostlen, char *port, size_t portlen);

/* Connect and verify.  On failure *out is NULL and err holds a message meant for a person. */
enum net_status net_connect(const struct net_opts *o, struct net **out, char *err, size_t errlen);
void net_free(struct net *n);

int net_fd(const struct net *n);
/* Whether the socket has something to read now (no wait): what came while
 * the caller was not looking (a prompt, a signal, another session's
 * thinking) is no silence, and must not be taken for a dead path. */
bool net_readable(const struct net *n);

/* Send one line ('\n' appended).  Blocks until written.  NET_OK or an error. */
enum net_status net_send_line(struct net *n, const char *line);

/*
 * Read what the socket has (call when poll() says net_fd() is readable).
 * NET_OK (maybe nothing new), NET_E_CLOSED (an end of stream), NET_E_RESET,
 * NET_E_IO, NET_E_LINE_TOO_LONG.
 */
enum net_status net_read(struct net *n);

/* Next complete line without its '\n' into buf; true if one was there.  buf must hold PROTO_LINE_MAX. */
bool net_next_line(struct net *n, char *buf, size_t len);
bool net_has_line(const struct net *n);

/* SHA-256 fingerprint of the server certificate, hex (for messages and tests). */
const char *net_fingerprint(const struct net *n);

#endif
