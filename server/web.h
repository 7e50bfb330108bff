/*
 * web.h — the web door: HTTPS (or, behind a local proxy, plain HTTP) that
 * serves the browser client's static files and upgrades `GET /ws` to a
 * WebSocket (RFC 6455, framed by wslay) whose every text message is one
 * protocol line.  After the upgrade the socket is a connection like any
 * other (conn_adopt): the same limits, dispatch, hooks and teardown.  No
 * new semantics: a browser is one more transport.
 *
 * Owns the connections while they are HTTP (TLS handshake and one request
 * head, bounded by handshake_timeout): each serves one file and closes, or
 * becomes a conn.  Their number is capped by max_connections and
 * max_connections_per_ip like the line transport's.
 */
#ifndef KRIEG_WEB_H
#define KRIEG_WEB_H

#include <stdbool.h>
#include <stddef.h>

struct server;
struct sockaddr;

/* The Content-Security-Policy of every response: the page loads nothing
 * from anywhere but kriegd, and runs no inline script. */
#define WEB_CSP "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " \
                "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; " \
                "frame-ancestors 'none'"
/* Strict-Transport-Security's max-age, a year, on the HTTPS door's
 * responses when the operator configured cert and key (web.c). */
#define WEB_HSTS_MAX_AGE "31536000"
#define WEB_FILE_MAX (4 * 1024 * 1024)  /* a file read from web_root */

struct web *web_new(struct server *srv);
/* Close every connection still in its HTTP phase (daemon shutdown). */
void web_free(struct web *w);
/* The loop stood (stall.h): each request still in its handshake or head
 * has its whole handshake_timeout again. */
void web_stalled(struct server *srv);
/* A socket accepted on a web listener; plain: no TLS (listen_web_plain). */
void web_accept(struct server *srv, int fd, const struct sockaddr *sa, bool plain);

/* The compiled-in files (generated from client-web/ by the Makefile):
 * the door's whole file set. */
struct web_asset {
	const char *path;          /* "/index.html" */
	const char *type;          /* Content-Type */
	const unsigned char *data;
	size_t len;
};
extern const struct web_asset web_assets[];
extern const size_t web_nassets;

/* The file a request target names ("/" is "/index.html"; a query string
 * is ignored), or NULL: only the compiled-in set, no decoding, so no
 * traversal. */
const struct web_asset *web_asset_find(const char *target);

/* Does root hold every file of the set, each a regular file?  0, or -1
 * with err naming the first missing one (--check-config, the start and
 * a reload: a web_root without them was found by each visitor, a 500 and
 * a warning a request: admin probe). */
int web_root_check(const char *root, char *err, size_t errlen);

/* Is a UTF-8 byte string well formed (RFC 3629: no overlongs, no
 * surrogates, at most U+10FFFF)? */
bool web_utf8_valid(const unsigned char *s, size_t n);

#endif
