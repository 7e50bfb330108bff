/*
 * http.h — the HTTP/1.1 request head that opens the web door (web.c): a
 * small strict parser with hard limits, and the WebSocket accept key.
 *
 * Why not evhttp: the door serves a fixed set of files and one upgrade,
 * over the daemon's own TLS bufferevents, and then hands the very same
 * bufferevent to conn.c.  evhttp owns its connections (its own
 * bufferevents, keep-alive, chunked bodies, every method) and has no clean
 * way to give a socket back after a 101; a parser that accepts only
 * `GET target HTTP/1.1` (and HEAD, which RFC 9110 asks of every
 * general-purpose server: monitors use it), CRLF lines, at most
 * HTTP_HEADERS_MAX headers in HTTP_HEAD_MAX bytes and no body is a few
 * dozen lines we can fuzz whole (tests/fuzz/fuzz_http.c).
 *
 * Pure: no I/O, no allocation; the request's strings point into the
 * caller's buffer, which the parser NUL-terminates in place.
 */
#ifndef KRIEG_HTTP_H
#define KRIEG_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_HEAD_MAX 8192        /* request line + headers + blank line */
#define HTTP_HEADERS_MAX 32       /* header lines */
#define HTTP_TARGET_MAX 256       /* request target */
#define HTTP_WS_ACCEPT_LEN 28     /* base64 of a SHA-1 */

/* The fields the door reads; NULL when absent.  Any other header is
 * skipped (after its syntax is checked). */
struct http_req {
	const char *target;       /* "/index.html?x" as sent: origin-form only */
	bool head;                /* HEAD: the GET's head, no body */
	const char *host;
	const char *origin;
	const char *upgrade;
	const char *connection;
	const char *ws_key;       /* Sec-WebSocket-Key */
	const char *ws_version;   /* Sec-WebSocket-Version */
	const char *forwarded_for; /* X-Forwarded-For */
	int nheaders;
};

/*
 * Parse a head of n bytes ending with its blank line (CRLF CRLF).
 * Returns 0, or the HTTP status to refuse it with: 400 (malformed, a
 * repeated field the door reads, a body announced), 405 (a method other
 * than GET or HEAD), 414 (target over HTTP_TARGET_MAX), 431 (over
 * HTTP_HEADERS_MAX headers or HTTP_HEAD_MAX bytes), 505 (not HTTP/1.1).
 */
int http_parse_head(char *buf, size_t n, struct http_req *req);

/* Do the n bytes of a head (its blank line not yet come; buf[0] is the
 * head's first byte when first is true, else one more byte after one
 * already looked at) hold a line end that is not CRLF: a bare LF, or a
 * CR followed by anything but LF (a CR at the end is not judged yet)?
 * Then the head never ends in CRLF CRLF: malformed at once (400), not
 * waited for until the head's timeout (408). */
bool http_bad_eol(const unsigned char *buf, size_t n, bool first);

/* The reason phrase of a status the door sends ("Not Found"). */
const char *http_reason(int status);

/* Does the comma-separated token list contain token (case-insensitive)?
 * ("keep-alive, Upgrade" has "upgrade".) */
bool http_has_token(const char *list, const char *token);

/*
 * The Sec-WebSocket-Accept value of a Sec-WebSocket-Key (RFC 6455 4.2.2):
 * 0 and out filled (HTTP_WS_ACCEPT_LEN chars and a NUL), or -1 when the
 * key is not the base64 of 16 bytes.
 */
int http_ws_accept(const char *key, char out[HTTP_WS_ACCEPT_LEN + 1]);

#endif
