/*
 * test_web.c — the web door (server/web.c) against a real kriegd, without
 * a browser: static files (types, headers, no traversal), the WebSocket
 * upgrade (a connection like any other, its messages the protocol's
 * lines), every close code, fragmented messages with control frames
 * between the fragments, a 1 MiB message, a slow reader, a cross-origin
 * upgrade refused, and the plain listener (loopback only, X-Forwarded-For
 * from a trusted proxy).
 *
 * wsc_* is a small blocking client written here from RFC 6455 (not wslay:
 * the server's framing is under test, so the client must not share it),
 * over TLS or plain TCP, with SO_RCVTIMEO so every wait is bounded.
 */
#define _GNU_SOURCE 1   /* memmem, strcasestr */
#include <check.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "check_main.h"
#include "conn.h"   /* CONN_EVICT_HANDSHAKE_MS */
#include "harness.h"
#include "harness_game.h"
#include "proto.h"

#define WSC_TIMEOUT_MS 10000
#define ORIGIN_OK "Origin: https://127.0.0.1:%d\r\n"

struct wsc {
	int fd;
	SSL_CTX *ctx;
	SSL *ssl;
	char *head;             /* the response head, NUL-terminated */
	unsigned char *rbuf;    /* bytes read past the head */
	size_t rlen, rcap;
};

/* The port of the nth (0-based) "listening on 127.0.0.1:" line of the log:
 * the line listener is the first, the web ones follow in config order. */
static int listen_port_on(const struct kd *d, const char *needle, int nth)
{
	char *log = kd_log(d), *p = log;
	int port = -1;

	for (int i = 0; (p = strstr(p, needle)) != NULL; i++, p++)
		if (i == nth) {
			port = atoi(p + strlen(needle));
			break;
		}
	free(log);
	ck_assert_msg(port > 0, "no listener %d in the log", nth);
	return port;
}

static int listen_port(const struct kd *d, int nth)
{
	return listen_port_on(d, "listening on 127.0.0.1:", nth);
}

static void wsc_raw_write(struct wsc *w, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t k;
		if (w->ssl != NULL) {
			int r = SSL_write(w->ssl, p, (int)n);
			k = r > 0 ? r : -1;
		} else {
			k = write(w->fd, p, n);
		}
		ck_assert_msg(k > 0, "write to kriegd failed");
		p += k;
		n -= (size_t)k;
	}
}

/* Up to n bytes; 0 on EOF, -1 on time-out or error. */
static ssize_t wsc_raw_read(struct wsc *w, void *buf, size_t n)
{
	if (w->ssl != NULL) {
		int r = SSL_read(w->ssl, buf, (int)n);
		if (r > 0)
			return r;
		int e = SSL_get_error(w->ssl, r);
		ERR_clear_error();
		return e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0) ? 0 : -1;
	}
	ssize_t k = read(w->fd, buf, n);
	return k;
}

/* Fill rbuf to at least n bytes; false on EOF or time-out. */
static bool wsc_fill(struct wsc *w, size_t n)
{
	while (w->rlen < n) {
		if (w->rcap < n + 65536) {
			w->rcap = n + 65536;
			w->rbuf = realloc(w->rbuf, w->rcap);
			ck_assert_ptr_nonnull(w->rbuf);
		}
		ssize_t k = wsc_raw_read(w, w->rbuf + w->rlen, w->rcap - w->rlen);
		if (k <= 0)
			return false;
		w->rlen += (size_t)k;
	}
	return true;
}

static void wsc_consume(struct wsc *w, size_t n)
{
	memmove(w->rbuf, w->rbuf + n, w->rlen - n);
	w->rlen -= n;
}

static struct wsc *wsc_connect(int port, bool tls, int rcvbuf)
{
	struct wsc *w = calloc(1, sizeof *w);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { WSC_TIMEOUT_MS / 1000, 0 };

	ck_assert_ptr_nonnull(w);
	/* A server that closes first makes our writes fail, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	w->fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(w->fd, 0);
	if (rcvbuf > 0)
		setsockopt(w->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	setsockopt(w->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(w->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	ck_assert_msg(connect(w->fd, (struct sockaddr *)&sin, sizeof sin) == 0, "connect: %s",
	              strerror(errno));
	if (tls) {
		/* The certificate is the daemon's generated one: the line
		 * transport's tests verify it; here the framing is under test. */
		w->ctx = SSL_CTX_new(TLS_client_method());
		w->ssl = SSL_new(w->ctx);
		SSL_set_fd(w->ssl, w->fd);
		ck_assert_msg(SSL_connect(w->ssl) == 1, "TLS handshake with the web door failed");
	}
	return w;
}

static void wsc_close(struct wsc *w)
{
	if (w == NULL)
		return;
	if (w->ssl != NULL)
		SSL_free(w->ssl);
	if (w->ctx != NULL)
		SSL_CTX_free(w->ctx);
	close(w->fd);
	free(w->head);
	free(w->rbuf);
	free(w);
}

/* Send a request head; read the response head into w->head; its status. */
static int wsc_request(struct wsc *w, const char *head)
{
	wsc_raw_write(w, head, strlen(head));
	for (;;) {
		unsigned char *end = w->rlen >= 4 ? memmem(w->rbuf, w->rlen, "\r\n\r\n", 4) : NULL;
		if (end != NULL) {
			size_t n = (size_t)(end - w->rbuf) + 4;
			free(w->head);
			w->head = strndup((char *)w->rbuf, n);
			wsc_consume(w, n);
			break;
		}
		ck_assert_msg(wsc_fill(w, w->rlen + 1), "no response head");
	}
	ck_assert(strncmp(w->head, "HTTP/1.1 ", 9) == 0);
	return atoi(w->head + 9);
}

/* The whole body after the head (Content-Length). */
static char *wsc_body(struct wsc *w, size_t *len)
{
	const char *cl = strcasestr(w->head, "\r\ncontent-length: ");
	ck_assert_ptr_nonnull(cl);
	size_t n = (size_t)atol(cl + 18);
	ck_assert(wsc_fill(w, n));
	char *b = malloc(n + 1);
	memcpy(b, w->rbuf, n);
	b[n] = '\0';
	wsc_consume(w, n);
	*len = n;
	return b;
}

static struct wsc *upgrade_on(struct wsc *w, int port, const char *extra);

static struct wsc *wsc_upgrade(int port, bool tls, const char *extra)
{
	return upgrade_on(wsc_connect(port, tls, 0), port, extra);
}

/* Over TLS with a small receive window: a reader that soon stops taking. */
static struct wsc *wsc_upgrade_window(int port, int rcvbuf)
{
	return upgrade_on(wsc_connect(port, true, rcvbuf), port, NULL);
}

static struct wsc *upgrade_on(struct wsc *w, int port, const char *extra)
{
	char req[2048];

	snprintf(req, sizeof req,
	         "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
	         "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	         "Sec-WebSocket-Version: 13\r\n%s\r\n", port, extra != NULL ? extra : "");
	int st = wsc_request(w, req);
	ck_assert_msg(st == 101, "upgrade answered %d:\n%s", st, w->head);
	/* RFC 6455's own example key and accept value. */
	ck_assert_ptr_nonnull(strstr(w->head, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"));
	return w;
}

/* A WebSocket upgrade on a new connection, TLS or plain, with this Host
 * and Origin (NULL: none); the answer's status in the return, the
 * connection in *out (open after a 101, to read the greeting). */
static int upgrade_as(int port, bool tls, const char *host, const char *origin, struct wsc **out)
{
	char head[1024];
	*out = wsc_connect(port, tls, 0);
	snprintf(head, sizeof head,
	         "GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
	         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	         "%s%s%s\r\n", host, origin ? "Origin: " : "", origin ? origin : "", origin ? "\r\n" : "");
	return wsc_request(*out, head);
}

/* One frame, masked as a client must (unless masked is false). */
/* One frame into f (room for n + 14 bytes); its length. */
static size_t frame_put(unsigned char *f, bool fin, int opcode, const void *data, size_t n,
                        bool masked)
{
	size_t h = 0;
	const unsigned char mask[4] = { 0x12, 0x34, 0x56, 0x78 };

	f[h++] = (unsigned char)((fin ? 0x80 : 0) | opcode);
	unsigned char m = masked ? 0x80 : 0;
	if (n < 126) {
		f[h++] = m | (unsigned char)n;
	} else if (n < 65536) {
		f[h++] = m | 126;
		f[h++] = (unsigned char)(n >> 8);
		f[h++] = (unsigned char)n;
	} else {
		f[h++] = m | 127;
		for (int i = 7; i >= 0; i--)
			f[h++] = (unsigned char)((uint64_t)n >> (8 * i));
	}
	if (masked) {
		memcpy(f + h, mask, 4);
		h += 4;
	}
	for (size_t i = 0; i < n; i++)
		f[h + i] = ((const unsigned char *)data)[i] ^ (masked ? mask[i % 4] : 0);
	return h + n;
}

static void wsc_frame(struct wsc *w, bool fin, int opcode, const void *data, size_t n, bool masked)
{
	unsigned char *f = malloc(n + 14);

	wsc_raw_write(w, f, frame_put(f, fin, opcode, data, n, masked));
	free(f);
}

/* Text messages, masked, in one write (so the server reads them at once). */
static void wsc_texts(struct wsc *w, const char *const *msgs, size_t count)
{
	unsigned char buf[4096];
	size_t len = 0;

	for (size_t i = 0; i < count; i++) {
		size_t n = strlen(msgs[i]);
		ck_assert(len + n + 14 <= sizeof buf);
		len += frame_put(buf + len, true, 1, msgs[i], n, true);
	}
	wsc_raw_write(w, buf, len);
}

static void wsc_text(struct wsc *w, const char *s)
{
	wsc_frame(w, true, 1, s, strlen(s), true);
}

/* The next frame from the server (servers never mask); its payload
 * NUL-terminated in *out (caller frees).  -1 on EOF/time-out. */
static int wsc_next(struct wsc *w, char **out, size_t *len)
{
	if (!wsc_fill(w, 2))
		return -1;
	int op = w->rbuf[0] & 0x0f;
	ck_assert_msg(!(w->rbuf[1] & 0x80), "the server masked a frame");
	ck_assert_msg(w->rbuf[0] & 0x80, "the server fragmented a message");
	uint64_t n = w->rbuf[1] & 0x7f;
	size_t h = 2;
	if (n == 126) {
		if (!wsc_fill(w, 4))
			return -1;
		n = (uint64_t)w->rbuf[2] << 8 | w->rbuf[3];
		h = 4;
	} else if (n == 127) {
		if (!wsc_fill(w, 10))
			return -1;
		n = 0;
		for (int i = 0; i < 8; i++)
			n = n << 8 | w->rbuf[2 + i];
		h = 10;
	}
	if (!wsc_fill(w, h + n))
		return -1;
	*out = malloc(n + 1);
	memcpy(*out, w->rbuf + h, n);
	(*out)[n] = '\0';
	*len = n;
	wsc_consume(w, h + n);
	return op;
}

/* The next text message (skipping pings); asserts one arrives. */
static json_t *wsc_msg(struct wsc *w)
{
	for (;;) {
		char *p;
		size_t n;
		int op = wsc_next(w, &p, &n);
		ck_assert_msg(op >= 0, "no message from the web door");
		if (op == 9 || op == 10) {
			free(p);
			continue;
		}
		ck_assert_msg(op == 1, "expected a text frame, got opcode %d", op);
		ck_assert_msg(memchr(p, '\n', n) == NULL, "a newline inside a message");
		json_error_t je;
		json_t *j = json_loads(p, 0, &je);
		ck_assert_msg(j != NULL, "not JSON: %s", p);
		free(p);
		return j;
	}
}

/* Read until the close frame; its status code (-1: closed without one). */
static int wsc_close_code(struct wsc *w)
{
	for (;;) {
		char *p;
		size_t n;
		int op = wsc_next(w, &p, &n);
		if (op < 0)
			return -1;
		if (op == 8) {
			int code = n >= 2 ? ((unsigned char)p[0] << 8 | (unsigned char)p[1]) : 0;
			free(p);
			return code;
		}
		free(p);
	}
}

static json_t *wsc_hello(struct wsc *w)
{
	json_t *g = wsc_msg(w);
	ck_assert_str_eq(json_string_value(json_object_get(g, "event")), "greeting");
	json_decref(g);
	char req[128];
	snprintf(req, sizeof req, "{\"id\":1,\"type\":\"hello\",\"version\":%d}", PROTO_VERSION);
	wsc_text(w, req);
	json_t *r = wsc_msg(w);
	ck_assert(json_is_true(json_object_get(r, "ok")));
	return r;
}

static struct kd *start_web(const char *extra)
{
	char conf[1024];

	snprintf(conf, sizeof conf, "listen_web = 127.0.0.1:0\n%s", extra != NULL ? extra : "");
	return kd_start(conf);
}

/* ---- static files ---- */

START_TEST(test_static_files)
{
	struct kd *d = start_web(NULL);
	int port = listen_port(d, 1);
	struct wsc *w = wsc_connect(port, true, 0);
	char req[512];
	size_t n;

	snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port);
	ck_assert_int_eq(wsc_request(w, req), 200);
	ck_assert_ptr_nonnull(strstr(w->head, "\r\nContent-Type: text/html; charset=utf-8\r\n"));
	ck_assert_ptr_nonnull(strstr(w->head, "\r\nCache-Control: no-cache\r\n"));
	ck_assert_ptr_nonnull(strstr(w->head, "\r\nContent-Security-Policy: default-src 'none'; "
	                                      "script-src 'self';"));
	ck_assert_ptr_nonnull(strstr(w->head, "\r\nX-Content-Type-Options: nosniff\r\n"));
	/* The development certificate: no HSTS (test_hsts_with_configured_cert),
	 * and a loopback door is no reason to warn about it. */
	ck_assert_msg(strcasestr(w->head, "Strict-Transport-Security") == NULL, "%s", w->head);
	ck_assert_int_eq(kd_log_count(d, "set cert and key"), 0);
	char *body = wsc_body(w, &n);
	ck_assert_ptr_nonnull(strstr(body, "<html"));
	free(body);
	wsc_close(w);

	/* Nothing outside the file set: traversal, encoded or not, and
	 * names that exist in the source tree but are not served. */
	static const char *const refused[] = {
		"/../server/web.c", "/%2e%2e/%2e%2e/etc/passwd", "/..%2fserver%2fweb.c",
		"//etc/passwd", "/index.html/..", "/.git/config", "/nonexistent.js",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		w = wsc_connect(port, true, 0);
		snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", refused[i]);
		ck_assert_msg(wsc_request(w, req) == 404, "%s: %s", refused[i], w->head);
		wsc_close(w);
	}
	/* Regression (the browser probe): a head whose lines end in a bare LF
	 * (or CR: a review) was waited for until handshake_timeout, then
	 * called slow (408).
	 * Malformed at once (400), whether its first line or a later one
	 * ends so. */
	static const char *const bare[] = { "GET / HTTP/1.1\nHost: x\n\n", "GET / HTTP/1.1\r\nHost: x\n\r\n",
	                                    "\n", "GET / HTTP/1.1\rHost: x\r\r", "GET / HTTP/1.1\r\nHost: x\r\r\n" };
	for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
		w = wsc_connect(port, true, 0);
		ck_assert_msg(wsc_request(w, bare[i]) == 400, "bare LF %zu: %s", i, w->head);
		wsc_close(w);
	}
	/* a bare CR ending one piece, the next not starting with LF: refused
	 * (the byte looked at again with the next piece's first) */
	w = wsc_connect(port, true, 0);
	wsc_raw_write(w, "GET / HTTP/1.1\r", 15);
	usleep(50000);
	ck_assert_int_eq(wsc_request(w, "Host: x\r\n"), 400);   /* no blank line yet: refused all the same */
	wsc_close(w);
	/* in pieces, a CR ending one and its LF starting the next: a head */
	w = wsc_connect(port, true, 0);
	wsc_raw_write(w, "GET / HTTP/1.1\r", 15);
	usleep(50000);
	wsc_raw_write(w, "\nHost: x\r", 9);
	usleep(50000);
	ck_assert_int_eq(wsc_request(w, "\n\r\n"), 200);
	wsc_close(w);
	/* HEAD: the GET's head (its length too), no body; of /ws, never an upgrade. */
	w = wsc_connect(port, true, 0);
	snprintf(req, sizeof req, "GET /app.js HTTP/1.1\r\nHost: x\r\n\r\n");
	ck_assert_int_eq(wsc_request(w, req), 200);
	char *get_head = strdup(w->head);
	wsc_close(w);
	w = wsc_connect(port, true, 0);
	snprintf(req, sizeof req, "HEAD /app.js HTTP/1.1\r\nHost: x\r\n\r\n");
	ck_assert_int_eq(wsc_request(w, req), 200);
	ck_assert_str_eq(w->head, get_head);
	ck_assert_msg(!wsc_fill(w, w->rlen + 1), "a body after a HEAD's head");
	free(get_head);
	wsc_close(w);
	w = wsc_connect(port, true, 0);
	snprintf(req, sizeof req, "HEAD /nonexistent.js HTTP/1.1\r\nHost: x\r\n\r\n");
	ck_assert_int_eq(wsc_request(w, req), 404);
	ck_assert_msg(!wsc_fill(w, w->rlen + 1), "a body after a HEAD's head");
	wsc_close(w);
	w = wsc_connect(port, true, 0);
	snprintf(req, sizeof req,
	         "HEAD /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
	         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
	ck_assert_int_eq(wsc_request(w, req), 426);
	ck_assert_ptr_nonnull(strstr(w->head, "\r\nUpgrade: websocket\r\n"));
	wsc_close(w);
	/* Another WebSocket version: 426, saying the one spoken (RFC 6455 4.4;
	 * it was a 400 that did not). */
	w = wsc_connect(port, true, 0);
	snprintf(req, sizeof req,
	         "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
	         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n");
	ck_assert_int_eq(wsc_request(w, req), 426);
	ck_assert_ptr_nonnull(strstr(w->head, "\r\nSec-WebSocket-Version: 13\r\n"));
	wsc_close(w);
	/* GET and HEAD only (a 405 says so), HTTP/1.1 only, a bounded head. */
	w = wsc_connect(port, true, 0);
	ck_assert_int_eq(wsc_request(w, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"), 405);
	ck_assert_ptr_nonnull(strstr(w->head, "\r\nAllow: GET, HEAD\r\n"));
	wsc_close(w);
	w = wsc_connect(port, true, 0);
	ck_assert_int_eq(wsc_request(w, "GET / HTTP/1.0\r\nHost: x\r\n\r\n"), 505);
	wsc_close(w);
	w = wsc_connect(port, true, 0);
	char *big = malloc(20000);
	snprintf(big, 20000, "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: %09000d\r\n\r\n", 0);
	ck_assert_int_eq(wsc_request(w, big), 431);
	free(big);
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* ---- the WebSocket: a connection like any other ---- */

START_TEST(test_upgrade_lines)
{
	struct kd *d = start_web(NULL);
	int port = listen_port(d, 1);
	char origin[128];

	snprintf(origin, sizeof origin, ORIGIN_OK, port);
	struct wsc *w = wsc_upgrade(port, true, origin);
	/* The same greeting a line client gets, byte for byte. */
	struct kc *line = kc_connect(d);
	json_t *lg = kc_greeting(line);
	char *p;
	size_t n;
	ck_assert_int_eq(wsc_next(w, &p, &n), 1);
	char *ls = json_dumps(lg, JSON_COMPACT);
	ck_assert_str_eq(p, ls);
	free(ls);
	free(p);
	char req[128];
	snprintf(req, sizeof req, "{\"id\":1,\"type\":\"hello\",\"version\":%d}", PROTO_VERSION);
	wsc_text(w, req);
	json_t *r = wsc_msg(w);
	ck_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	/* A bad line is answered and the connection goes on. */
	wsc_text(w, "{not json");
	r = wsc_msg(w);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "error"), "code")),
	                 "bad_json");
	json_decref(r);
	/* A message with a newline inside is not one line. */
	wsc_text(w, "{\"id\":2,\n\"type\":\"ping\"}");
	r = wsc_msg(w);
	ck_assert(json_is_false(json_object_get(r, "ok")));
	json_decref(r);
	/* A fragmented message with a ping between its fragments. */
	const char *a = "{\"id\":3,", *b = "\"type\":\"ping\"}";
	wsc_frame(w, false, 1, a, strlen(a), true);
	wsc_frame(w, true, 9, "hi", 2, true);
	wsc_frame(w, true, 0, b, strlen(b), true);
	ck_assert_int_eq(wsc_next(w, &p, &n), 10);   /* the pong first, with the ping's data */
	ck_assert_str_eq(p, "hi");
	free(p);
	r = wsc_msg(w);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 3);
	ck_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	/* The same with the pong awaited between the fragments, so the server
	 * has read the first one and gone idle before the last comes: an idle
	 * connection's wslay context is dropped (web.c ws_release), but never
	 * inside a message. */
	const char *a4 = "{\"id\":4,";
	wsc_frame(w, false, 1, a4, strlen(a4), true);
	wsc_frame(w, true, 9, "hi", 2, true);
	ck_assert_int_eq(wsc_next(w, &p, &n), 10);
	free(p);
	wsc_frame(w, true, 0, b, strlen(b), true);
	r = wsc_msg(w);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 4);
	ck_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	/* A close from the client is answered with a close. */
	wsc_frame(w, true, 8, "\x03\xe8", 2, true);
	ck_assert_int_eq(wsc_close_code(w), 1000);
	ck_assert(kd_log_wait(d, "reason=\"websocket close\"", 5000));
	wsc_close(w);
	kc_close(line);
	kd_stop(d);
}
END_TEST

/* The daemon's stop closes a WebSocket with 1001 (going away), after the
 * last answer: not a cut, not a normal close (1000) as if the client had
 * done something to end it.  Before, the stop freed the connection. */
START_TEST(test_stop_says_going_away)
{
	struct kd *d = start_web(NULL);
	struct wsc *w = wsc_upgrade(listen_port(d, 1), true, NULL);
	json_decref(wsc_hello(w));
	wsc_text(w, "{\"id\":2,\"type\":\"ping\"}");
	json_t *r = wsc_msg(w);
	ck_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	ck_assert_int_eq(kill(kd_pid(d), SIGTERM), 0);
	ck_assert_int_eq(wsc_close_code(w), 1001);
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* Send one offending frame after hello; the close code that comes back. */
static int close_after(struct kd *d, int port, void (*offend)(struct wsc *w))
{
	struct wsc *w = wsc_upgrade(port, true, NULL);
	json_decref(wsc_hello(w));
	offend(w);
	int code = wsc_close_code(w);
	wsc_close(w);
	return code;
}

static void offend_binary(struct wsc *w)
{
	wsc_frame(w, true, 2, "\x01\x02", 2, true);
}

static void offend_utf8(struct wsc *w)
{
	wsc_frame(w, true, 1, "{\"id\":\"\xc3\x28\"}", 10, true);
}

static void offend_unmasked(struct wsc *w)
{
	wsc_frame(w, true, 1, "{}", 2, false);
}

static void offend_fragmented_ping(struct wsc *w)
{
	wsc_frame(w, false, 9, "x", 1, true);
}

static void offend_close_one_byte(struct wsc *w)
{
	wsc_frame(w, true, 8, "x", 1, true);   /* a close's code is two bytes */
}

static void offend_1mib(struct wsc *w)
{
	size_t n = 1024 * 1024;
	char *big = malloc(n);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	/* The server may close before reading it all: a write failure then is fine. */
	wsc_frame(w, true, 1, big, n, true);
	free(big);
}

static void offend_line_plus_one(struct wsc *w)
{
	/* A line's limit counts its newline: a message of PROTO_LINE_MAX bytes is one too many. */
	char *big = malloc(PROTO_LINE_MAX);
	memset(big, ' ', PROTO_LINE_MAX);
	wsc_frame(w, true, 1, big, PROTO_LINE_MAX, true);
	free(big);
}

/* A frame header alone, its length written as given: ext 2 or 8 bytes. */
static void header_only(struct wsc *w, int ext, uint64_t len)
{
	unsigned char f[14];
	size_t n = 0;
	f[n++] = 0x81;
	f[n++] = (unsigned char)(0x80 | (ext == 2 ? 126 : 127));
	for (int k = ext - 1; k >= 0; k--)
		f[n++] = (unsigned char)(len >> (8 * k));
	memset(f + n, 0, 4);   /* the mask */
	n += 4;
	wsc_raw_write(w, f, n);
}

/* Regressions: a length in more bytes than it needs (RFC 6455 5.2) was
 * closed with no code, and a frame declaring more than a message may
 * hold was closed only once its payload came (never, if it did not). */
static void offend_long_form_16(struct wsc *w)
{
	header_only(w, 2, 5);
	wsc_raw_write(w, "{}{}{", 5);
}

static void offend_long_form_64(struct wsc *w)
{
	header_only(w, 8, 5);
	wsc_raw_write(w, "{}{}{", 5);
}

static void offend_declared_1mib(struct wsc *w)
{
	header_only(w, 8, 1024 * 1024);   /* and no payload */
}

START_TEST(test_close_codes)
{
	struct kd *d = start_web(NULL);
	int port = listen_port(d, 1);

	ck_assert_int_eq(close_after(d, port, offend_binary), 1003);
	ck_assert_int_eq(close_after(d, port, offend_utf8), 1007);
	ck_assert_int_eq(close_after(d, port, offend_unmasked), 1002);
	ck_assert_int_eq(close_after(d, port, offend_fragmented_ping), 1002);
	ck_assert_int_eq(close_after(d, port, offend_close_one_byte), 1002);
	ck_assert_int_eq(close_after(d, port, offend_line_plus_one), 1009);
	ck_assert_int_eq(close_after(d, port, offend_1mib), 1009);
	ck_assert_int_eq(close_after(d, port, offend_long_form_16), 1002);
	ck_assert_int_eq(close_after(d, port, offend_long_form_64), 1002);
	ck_assert_int_eq(close_after(d, port, offend_declared_1mib), 1009);
	ck_assert(kd_log_wait(d, "reason=\"websocket: message too big\"", 5000));
	ck_assert(kd_log_wait(d, "reason=\"websocket: binary message\"", 5000));
	/* The longest message that fits is served (an error about its content). */
	struct wsc *w = wsc_upgrade(port, true, NULL);
	json_decref(wsc_hello(w));
	char *big = malloc(PROTO_LINE_MAX);
	memset(big, ' ', PROTO_LINE_MAX - 1);
	big[PROTO_LINE_MAX - 1] = '\0';
	big[0] = '[';
	big[PROTO_LINE_MAX - 2] = ']';
	wsc_text(w, big);
	free(big);
	json_t *r = wsc_msg(w);
	ck_assert(json_is_false(json_object_get(r, "ok")));
	json_decref(r);
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* The next message of w that answers id (events before it skipped); its
 * "ok" must be true. */
static json_t *wsc_ok(struct wsc *w, long long id)
{
	for (;;) {
		json_t *m = wsc_msg(w);
		if (json_integer_value(json_object_get(m, "id")) == id && json_object_get(m, "ok") != NULL) {
			ck_assert_msg(json_is_true(json_object_get(m, "ok")), "request %lld refused", id);
			return m;
		}
		json_decref(m);
	}
}

/*
 * A close the server makes for a bad frame answers what was taken before
 * it (PROTOCOL.md, the closes): a move and a binary frame in one write.
 * The close frame was queued at once, ahead of the move's answer, which
 * was lost though the move was played; it goes out behind them now, with
 * its code (1003).
 */
START_TEST(test_bad_frame_answers_what_it_took)
{
	struct kd *d = start_web(NULL);
	/* (Frames the WebSocket library refuses itself, invalid UTF-8 among
	 * them, it closes at once: PROTOCOL.md.) */
	static const struct { int opcode; const char *payload; int code; } bad[] = {
		{ 2, "\x01\x02", 1003 },              /* binary */
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
	struct wsc *w = wsc_upgrade(listen_port(d, 1), true, NULL);
	json_decref(wsc_hello(w));
	wsc_text(w, "{\"id\":2,\"type\":\"guest\"}");
	json_decref(wsc_ok(w, 2));
	wsc_text(w, "{\"id\":3,\"type\":\"seek\",\"color\":\"white\"}");
	json_t *seek = wsc_ok(w, 3);
	json_int_t offer = json_integer_value(json_object_get(seek, "offer"));
	json_decref(seek);
	struct kc *b = kc_hello(d);
	kc_ok(b, kc_req(b, "guest", NULL));
	json_int_t game = json_integer_value(json_object_get(kc_ok(b, kc_req(b, "accept", "{s:I}", "offer", offer)), "game"));
	unsigned char buf[256];
	char mv[128];
	snprintf(mv, sizeof mv, "{\"id\":4,\"type\":\"move\",\"game\":%lld,\"move\":\"e4\"}", (long long)game);
	size_t len = frame_put(buf, true, 1, mv, strlen(mv), true);
	len += frame_put(buf + len, true, bad[k].opcode, bad[k].payload, strlen(bad[k].payload), true);
	wsc_raw_write(w, buf, len);
	json_decref(wsc_ok(w, 4));
	ck_assert_int_eq(wsc_close_code(w), bad[k].code);
	json_t *v = kc_ok(b, kc_req(b, "game", "{s:I}", "game", game));
	ck_assert_str_eq(json_string_value(json_object_get(v, "to_move")), "black");
	wsc_close(w);
	kc_close(b);
	}
	kd_stop(d);
}
END_TEST

START_TEST(test_cross_origin_refused)
{
	struct kd *d = start_web("web_origins = https://play.example.org\n");
	int port = listen_port(d, 1);
	struct wsc *w;
	char host[32];

	snprintf(host, sizeof host, "127.0.0.1:%d", port);
	ck_assert_int_eq(upgrade_as(port, true, host, "https://evil.example.com", &w), 403);
	ck_assert(kd_log_wait(d, "refused cross-origin upgrade origin=\"https://evil.example.com\"",
	                      5000));
	wsc_close(w);
	/* A listed origin is let in. */
	w = wsc_upgrade(port, true, "Origin: https://play.example.org\r\n");
	json_decref(wsc_hello(w));
	wsc_close(w);
	kd_stop(d);
}
END_TEST

START_TEST(test_slow_reader)
{
	struct kd *d = start_web("output_buffer_max = 64k\nrate_limit = 1000000\n"
	                         "rate_burst = 1000000\n");
	int port = listen_port(d, 1);
	struct wsc *w = wsc_upgrade_window(port, 4096);
	char msg[256];

	snprintf(msg, sizeof msg, "{\"id\":\"%064d\",\"type\":\"no_such_request_type_padding_xx\"}", 7);
	/* Requests whose replies are bigger than themselves; never read. */
	struct timeval tv = { 2, 0 };
	setsockopt(w->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	for (int i = 0; i < 200000 && kd_log_count(d, "slow reader") == 0; i++) {
		unsigned char f[300];
		size_t n = strlen(msg);
		ck_assert(n < 126);
		f[0] = 0x81;
		f[1] = (unsigned char)(0x80 | n);
		memset(f + 2, 0, 4);   /* a zero mask: the payload as is */
		memcpy(f + 6, msg, n);
		if (SSL_write(w->ssl, f, (int)(n + 6)) <= 0)
			break;
	}
	ck_assert_msg(kd_log_wait(d, "reason=\"output buffer over cap (slow reader)\"", 10000),
	              "a WebSocket that never reads was not dropped");
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* Regression: pongs were written past the output cap, so a client that
 * pinged and never read grew kriegd's memory without bound (2M pings:
 * 262 MB).  They count as lines do: it is a slow reader, dropped. */
START_TEST(test_ping_flood_is_a_slow_reader)
{
	struct kd *d = start_web("output_buffer_max = 64k\n");
	int port = listen_port(d, 1);
	struct wsc *w = wsc_upgrade_window(port, 4096);
	long rss0 = kd_rss_kb(d);
	struct timeval tv = { 2, 0 };
	setsockopt(w->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	/* Pings of the largest control payload, 64 to a write, never a read. */
	unsigned char batch[64 * (6 + 125)];
	for (int k = 0; k < 64; k++) {
		unsigned char *f = batch + k * (6 + 125);
		f[0] = 0x89;
		f[1] = 0x80 | 125;
		memset(f + 2, 0, 4);   /* a zero mask */
		memset(f + 6, 'p', 125);
	}
	for (int i = 0; i < 20000 && kd_log_count(d, "slow reader") == 0; i++)
		if (SSL_write(w->ssl, batch, (int)sizeof batch) <= 0)
			break;
	ck_assert_msg(kd_log_wait(d, "reason=\"output buffer over cap (slow reader)\"", 10000),
	              "a WebSocket that pings and never reads was not dropped");
	ck_assert_msg(kd_rss_kb(d) < rss0 + 16 * 1024, "kriegd grew from %ld to %ld KiB", rss0,
	              kd_rss_kb(d));
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* ---- the plain listener, behind a proxy ---- */

START_TEST(test_plain_loopback_only)
{
	const char *bin = getenv("KRIEGD");
	char cmd[4096], dir[] = "/tmp/kriegd-web-XXXXXX", out[8192];

	if (bin == NULL)
		bin = "build/asan/bin/kriegd";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof cmd,
	         "'%s' --state-dir '%s/s' --listen 127.0.0.1:0 --set listen_web_plain=0.0.0.0:0 2>&1",
	         bin, dir);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 0, "kriegd started:\n%s", out);
	ck_assert_msg(strstr(out, "listen_web_plain 0.0.0.0:0: refused, not a loopback address") != NULL,
	              "%s", out);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_plain_forwarded_for)
{
	struct kd *d = kd_start("listen_web_plain = 127.0.0.1:0\nweb_trusted_proxy = 127.0.0.1\n"
	                        "max_connections_per_ip = 2\n");
	int port = listen_port(d, 1);
	char extra[256];

	/* Behind the proxy the page's origin is https://HOST. */
	snprintf(extra, sizeof extra, "X-Forwarded-For: 10.9.9.9, 203.0.113.7\r\n" ORIGIN_OK, port);
	struct wsc *w = wsc_upgrade(port, false, extra);
	json_decref(wsc_hello(w));
	ck_assert(kd_log_wait(d, "peer=203.0.113.7(via 127.0.0.1) transport=websocket", 5000));
	/* The abuse limits count the forwarded address: two from 203.0.113.7
	 * fill its share, and a third is refused as server_full ... */
	struct wsc *w2 = wsc_upgrade(port, false, "X-Forwarded-For: 203.0.113.7\r\n");
	json_decref(wsc_hello(w2));
	struct wsc *w3 = wsc_upgrade(port, false, "X-Forwarded-For: 203.0.113.7\r\n");
	json_t *e = wsc_msg(w3);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"), "code")),
	                 "server_full");
	json_decref(e);
	ck_assert_int_eq(wsc_close_code(w3), 1000);
	wsc_close(w3);
	/* ... while another forwarded address still gets in. */
	struct wsc *w4 = wsc_upgrade(port, false, "X-Forwarded-For: 198.51.100.1\r\n");
	json_decref(wsc_hello(w4));
	wsc_close(w4);
	wsc_close(w2);
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* A guest over the web door (forwarded from addr): the reply's error code,
 * or "" when it was made. */
static void guest_via(int port, const char *addr, const char *want, struct wsc **out)
{
	char extra[128];
	snprintf(extra, sizeof extra, "X-Forwarded-For: %s\r\n", addr);
	struct wsc *w = wsc_upgrade(port, false, extra);
	json_decref(wsc_hello(w));
	wsc_text(w, "{\"id\":2,\"type\":\"guest\"}");
	json_t *r = wsc_msg(w);
	const char *code = json_string_value(json_object_get(json_object_get(r, "error"), "code"));
	ck_assert_msg(strcmp(code != NULL ? code : "", want) == 0, "guest from %s: %s, not \"%s\"",
	              addr, code != NULL ? code : "made", want);
	json_decref(r);
	*out = w;
}

/* Regression: the per-address limits counted an IPv6 address alone, and a
 * subscriber picks any address of its /64: each new one was a fresh
 * share.  They count an IPv6 address's network (ipv6_prefix, 64), an
 * IPv4-mapped one as its IPv4 address. */
START_TEST(test_forwarded_ipv6_counts_by_network)
{
	struct kd *d = kd_start("listen_web_plain = 127.0.0.1:0\nweb_trusted_proxy = 127.0.0.1\n"
	                        "max_connections_per_ip = 2\nguests_per_address = 1\n");
	int port = listen_port(d, 1);
	struct wsc *w[4];

	/* Connections: two addresses of one /64 fill its share ... */
	guest_via(port, "2001:db8:1:2::7", "", &w[0]);
	guest_via(port, "2001:db8:1:2:aaaa::9", "rate_limited", &w[1]);   /* guests: one a network */
	struct wsc *w3 = wsc_upgrade(port, false, "X-Forwarded-For: 2001:db8:1:2:ffff:ffff:ffff:ffff\r\n");
	json_t *e = wsc_msg(w3);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"), "code")),
	                 "server_full");
	json_decref(e);
	wsc_close(w3);
	/* ... and the next /64 has its own. */
	guest_via(port, "2001:db8:1:3::7", "", &w[2]);
	/* The log keeps the address itself. */
	ck_assert(kd_log_wait(d, "peer=2001:db8:1:2:aaaa::9(via 127.0.0.1)", 5000));
	/* IPv4, and IPv4 as a dual-stack listener shows it, are one address. */
	guest_via(port, "203.0.113.7", "", &w[3]);
	struct wsc *w5;
	guest_via(port, "::ffff:203.0.113.7", "rate_limited", &w5);
	wsc_close(w5);
	for (int i = 0; i < 4; i++)
		wsc_close(w[i]);
	kd_stop(d);

	/* ipv6_prefix = 128: each address alone, as before. */
	d = kd_start("listen_web_plain = 127.0.0.1:0\nweb_trusted_proxy = 127.0.0.1\n"
	             "guests_per_address = 1\nipv6_prefix = 128\n");
	port = listen_port(d, 1);
	guest_via(port, "2001:db8:1:2::7", "", &w[0]);
	guest_via(port, "2001:db8:1:2::8", "", &w[1]);
	guest_via(port, "2001:DB8:1:2::8", "rate_limited", &w[2]);   /* one address, spelt two ways */
	for (int i = 0; i < 3; i++)
		wsc_close(w[i]);
	kd_stop(d);
}
END_TEST

START_TEST(test_forwarded_for_untrusted_ignored)
{
	struct kd *d = kd_start("listen_web_plain = 127.0.0.1:0\n");
	int port = listen_port(d, 1);
	struct wsc *w = wsc_upgrade(port, false, "X-Forwarded-For: 203.0.113.7\r\n");

	json_decref(wsc_hello(w));
	ck_assert(kd_log_wait(d, "peer=127.0.0.1:", 5000));
	ck_assert_int_eq(kd_log_count(d, "203.0.113.7"), 0);
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* Regression (DNS rebinding): the plain listener took `http://` + any Host
 * as its own origin, so a page of evil.example whose name was rebound to
 * 127.0.0.1 opened a WebSocket from a browser on the same machine (Host and
 * Origin both its own name).  Its own http:// origin is now that of a
 * loopback Host only; a proxied page's https:// one is unchanged (a
 * rebound name cannot pass TLS for it). */
START_TEST(test_plain_origin_rebinding_refused)
{
	struct kd *d = kd_start("listen_web_plain = 127.0.0.1:0\n");
	int port = listen_port(d, 1);
	static const struct {
		const char *host, *scheme;
		int status;
	} cases[] = {
		{ "127.0.0.1:%d", "http://", 101 },
		{ "localhost:%d", "http://", 101 },
		{ "LocalHost:%d", "http://", 101 },
		{ "[::1]:%d", "http://", 101 },
		{ "127.0.0.2:%d", "http://", 101 },
		{ "evil.example:%d", "http://", 403 },
		{ "localhost.evil.example:%d", "http://", 403 },
		{ "127.0.0.1.evil.example:%d", "http://", 403 },
		{ "[::2]:%d", "http://", 403 },
		{ "10.0.0.1:%d", "http://", 403 },
		/* Behind the proxy: the page is https:// + the public name. */
		{ "play.example.org", "https://", 101 },
	};
	char host[128];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct wsc *w;
		char origin[160];
		snprintf(host, sizeof host, cases[i].host, port);
		snprintf(origin, sizeof origin, "%s%s", cases[i].scheme, host);
		int st = upgrade_as(port, false, host, origin, &w);
		ck_assert_msg(st == cases[i].status, "origin %s%s answered %d", cases[i].scheme, host, st);
		if (st == 101)
			json_decref(wsc_hello(w));
		wsc_close(w);
	}
	kd_stop(d);
}
END_TEST

/* ---- configuration: --check-config and reload ---- */

/* --check-config names every web key, set or not (kriegd.conf(5) documents
 * each: tests/service/run.sh). */
START_TEST(test_check_config_prints_web_keys)
{
	const char *bin = getenv("KRIEGD");
	char cmd[4096], out[16384];

	if (bin == NULL)
		bin = "build/asan/bin/kriegd";
	snprintf(cmd, sizeof cmd,
	         "'%s' --check-config --state-dir /nonexistent --set listen_web=127.0.0.1:7480 "
	         "--set web_trusted_proxy=127.0.0.1 2>&1", bin);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(strstr(out, "\nlisten_web = 127.0.0.1:7480\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\nweb_trusted_proxy = 127.0.0.1\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\n# listen_web_plain: unset;") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\n# web_origins: unset;") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\n# web_root: unset;") != NULL, "%s", out);
}
END_TEST

/* GET path on a new connection to port: the status. */
static int get_status(int port, const char *path)
{
	char req[512];
	struct wsc *w = wsc_connect(port, true, 0);
	snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", path, port);
	int status = wsc_request(w, req);
	wsc_close(w);
	return status;
}

/* Regression (a review of the exhaustion probe's finding): the web door's
 * room for requests in progress was held by connections that never begin
 * their TLS handshake, and every visitor was refused, each refusal a
 * warning of its own.  Full, the oldest at it 2 s gives its place. */
START_TEST(test_web_full_evicts_unfinished)
{
	struct kd *d = start_web("max_connections = 4\nhandshake_timeout = 60s\n");
	int port = listen_port(d, 1);
	struct wsc *idle[4];
	for (int i = 0; i < 4; i++)
		idle[i] = wsc_connect(port, false, 0);   /* TCP only, on the TLS door */
	kt_sleep_ms(CONN_EVICT_HANDSHAKE_MS + 500);
	ck_assert_int_eq(get_status(port, "/"), 200);
	ck_assert_int_eq(kd_log_count(d, "unfinished while the door is full"), 1);
	for (int i = 0; i < 4; i++)
		wsc_close(idle[i]);
	kd_stop(d);
}
END_TEST

/* Regression (a review of the standstill's mending, stall.h): a browser
 * accepted before kriegd was stopped, its handshake unread until the
 * stop's end, was closed by its handshake_timeout run out during it. */
START_TEST(test_web_handshake_outlives_a_stop)
{
	struct kd *d = start_web("handshake_timeout = 2s\n");
	int port = listen_port(d, 1);
	struct wsc *w = wsc_connect(port, false, 0);   /* TCP only, on the TLS door */
	kt_sleep_ms(300);   /* accepted (logged at debug level only) */
	ck_assert_int_eq(kill(kd_pid(d), SIGSTOP), 0);
	kt_sleep_ms(3500);
	ck_assert_int_eq(kill(kd_pid(d), SIGCONT), 0);
	ck_assert(kd_log_wait(d, "the loop stood", KC_TIMEOUT_MS));
	kt_sleep_ms(300);
	char byte;
	ck_assert_int_eq((int)recv(w->fd, &byte, 1, MSG_DONTWAIT), -1);   /* still open */
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* Regression (admin probe): a web_root without the client's files passed
 * --check-config and the start, and every visitor's request then wrote a
 * warning.  It is refused where a setting is checked, naming the file;
 * one that loses a file while serving warns once for it until it is read
 * again.  A reload keeps a running web_root that lost a file (a review:
 * it refused the reload, and with it a certificate's renewal). */
START_TEST(test_web_root_checked_and_warned_once)
{
	const char *bin = getenv("KRIEGD"), *src = getenv("KRIEG_SRCDIR");
	char cmd[4096], out[16384], root[] = "/tmp/kwr-XXXXXX", conf[600], index[300];
	if (bin == NULL)
		bin = "build/asan/bin/kriegd";
	ck_assert_ptr_nonnull(mkdtemp(root));
	/* an empty directory: refused by --check-config, naming the file */
	snprintf(cmd, sizeof cmd, "'%s' --check-config --state-dir /nonexistent --set web_root=%s 2>&1",
	         bin, root);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	ck_assert_int_ne(pclose(p), 0);
	snprintf(index, sizeof index, "web_root = %s: %s/index.html: No such file", root, root);
	ck_assert_msg(strstr(out, index) != NULL, "%s", out);
	/* the client's files: served */
	snprintf(cmd, sizeof cmd, "cp '%s'/client-web/* '%s'/", src != NULL ? src : ".", root);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(conf, sizeof conf, "web_root = %s\n", root);
	struct kd *d = start_web(conf);
	int port = listen_port(d, 1);
	ck_assert_int_eq(get_status(port, "/"), 200);
	/* one lost: a 500 to every request for it, one warning, whatever
	 * else is read meanwhile (a page load reads the others: a review) */
	snprintf(index, sizeof index, "%s/index.html", root);
	snprintf(cmd, sizeof cmd, "mv '%s' '%s.away'", index, index);
	ck_assert_int_eq(system(cmd), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(get_status(port, "/"), 500);
		ck_assert_int_eq(get_status(port, "/app.js"), 200);
	}
	ck_assert_int_eq(kd_log_count(d, "warning: web="), 1);   /* logged before each answer */
	/* another file lost: its own warning */
	snprintf(cmd, sizeof cmd, "rm '%s/app.js'", root);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(get_status(port, "/app.js"), 500);
	ck_assert_int_eq(get_status(port, "/app.js"), 500);
	ck_assert_int_eq(kd_log_count(d, "warning: web="), 2);
	/* back, read, lost again: warned again */
	snprintf(cmd, sizeof cmd, "mv '%s.away' '%s'", index, index);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(get_status(port, "/"), 200);
	ck_assert_int_eq(unlink(index), 0);
	ck_assert_int_eq(get_status(port, "/"), 500);
	ck_assert_int_eq(kd_log_count(d, "warning: web="), 3);
	kd_reload(d, conf);
	ck_assert_int_eq(kd_log_count(d, "(the running web_root, kept)"), 1);
	ck_assert_int_eq(kd_log_count(d, "reload failed"), 0);
	kd_stop(d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* `kriegd --check-config --state-dir /nonexistent ARGS`: its exit status,
 * its output (stdout and stderr) in out. */
static int check_config(const char *args, char *out, size_t len)
{
	const char *bin = getenv("KRIEGD");
	char cmd[4096];

	if (bin == NULL)
		bin = "build/asan/bin/kriegd";
	snprintf(cmd, sizeof cmd, "'%s' --check-config --state-dir /nonexistent %s 2>&1", bin, args);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/*
 * Regression: web_origins and web_trusted_proxy took any string.
 * "web_origins = null" let in an upgrade from a sandboxed frame or a
 * file:// page (Origin: null), and "web_trusted_proxy = 127.0.0.0/8"
 * (or a name) matched no peer, so X-Forwarded-For was silently ignored
 * and every proxied player was one address to the limits.  Each value is
 * checked as it is read: a bad one is an error naming the key and value,
 * at --check-config, at start and at a reload.
 */
START_TEST(test_web_values_checked)
{
	static const char *const bad_origins[] = {
		"null", "*", "evil", "https://x.example/", "https://x.example/path",
		"https://*.example.org", "http://x.example", "https://", "https://user@x.example",
		"https://x.example:0", "https://x.example:65536", "https://x.example:443",
		"https://x.example:08443", "https://x.example?q", "https://x.example#f", "",
		"https://x..example", "https://x.example.", "https://[::1", "https://[zz]:8443",
		"https://[0:0:0:0:0:0:0:1]", "https://1.2.3", "https://300.1.1.1", "https://x example",
	};
	static const char *const bad_proxies[] = {
		"127.0.0.0/8", "localhost", "[::1]", "127.0.0.1:80", "", "1.2.3", "::1/128", "*",
		"127.0.0.1 x",
	};
	char args[512], out[16384], want[256];

	for (size_t i = 0; i < sizeof bad_origins / sizeof bad_origins[0]; i++) {
		snprintf(args, sizeof args, "--set 'web_origins=%s'", bad_origins[i]);
		ck_assert_msg(check_config(args, out, sizeof out) == 1, "%s: %s", args, out);
		snprintf(want, sizeof want, "web_origins '%s': ", bad_origins[i]);
		ck_assert_msg(strstr(out, want) != NULL, "%s: %s", args, out);
	}
	for (size_t i = 0; i < sizeof bad_proxies / sizeof bad_proxies[0]; i++) {
		snprintf(args, sizeof args, "--set 'web_trusted_proxy=%s'", bad_proxies[i]);
		ck_assert_msg(check_config(args, out, sizeof out) == 1, "%s: %s", args, out);
		snprintf(want, sizeof want, "web_trusted_proxy '%s': ", bad_proxies[i]);
		ck_assert_msg(strstr(out, want) != NULL, "%s: %s", args, out);
	}
	/* Blanks around a --set value go, as around a file line's (admin
	 * probe): a proxy written with a trailing blank is that proxy. */
	ck_assert_int_eq(check_config("--set 'web_trusted_proxy= 127.0.0.1 '", out, sizeof out), 0);
	ck_assert_msg(strstr(out, "\nweb_trusted_proxy = 127.0.0.1\n") != NULL, "%s", out);
	ck_assert_int_eq(check_config("--set web_trusted_proxy=127.0.0.0/8", out, sizeof out), 1);
	ck_assert_msg(strstr(out, "list each proxy's address") != NULL, "%s", out);

	/* The documented forms pass; an IPv6 proxy is kept as the peer's
	 * address is written (so that it matches). */
	ck_assert_msg(check_config("--set web_origins=https://play.example.org "
	                           "--set web_origins=https://Play.Example.org:8443 "
	                           "--set web_origins=https://127.0.0.1:7480 "
	                           "--set 'web_origins=https://[::1]:7480' "
	                           "--set web_origins=https://localhost "
	                           "--set web_trusted_proxy=127.0.0.1 --set web_trusted_proxy=::1 "
	                           "--set web_trusted_proxy=0:0:0:0:0:0:0:2", out, sizeof out) == 0,
	              "%s", out);
	ck_assert_msg(strstr(out, "\nweb_origins = https://play.example.org\n"
	                          "web_origins = https://Play.Example.org:8443\n"
	                          "web_origins = https://127.0.0.1:7480\n"
	                          "web_origins = https://[::1]:7480\n"
	                          "web_origins = https://localhost\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\nweb_trusted_proxy = 127.0.0.1\nweb_trusted_proxy = ::1\n"
	                          "web_trusted_proxy = ::2\n") != NULL, "%s", out);

	/* In the file: its line named. */
	char dir[] = "/tmp/kriegd-web-XXXXXX", path[64], cmd[128];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/kriegd.conf", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("listen_web = 127.0.0.1:7480\nweb_origins = null\n", f);
	fclose(f);
	snprintf(args, sizeof args, "--config '%s'", path);
	ck_assert_msg(check_config(args, out, sizeof out) == 1, "%s", out);
	ck_assert_msg(strstr(out, "kriegd.conf:2: web_origins 'null': ") != NULL, "%s", out);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static void write_conf(const struct kd *d, const char *text)
{
	char path[4200], dir[4096];
	snprintf(dir, sizeof dir, "%s", kd_state_dir(d));
	char *slash = strrchr(dir, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
	snprintf(path, sizeof path, "%s/kriegd.conf", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A reload keeps the web listeners (sockets: a restart's business) and
 * names them, while web_origins, read at each upgrade, applies at once. */
START_TEST(test_reload_names_web_listeners)
{
	struct kd *d = start_web(NULL);
	int port = listen_port(d, 1);
	const char *needle = "take effect only on restart: listen_web,listen_web_plain";

	write_conf(d, "listen_web = 127.0.0.1:1\nlisten_web_plain = 127.0.0.1:2\n"
	              "web_origins = https://club.example.org\n");
	ck_assert_int_eq(kill(kd_pid(d), SIGHUP), 0);
	ck_assert_msg(kd_log_wait(d, needle, 10000), "reload did not name the web listeners");
	/* The old door still serves, with the new origin list. */
	struct wsc *w = wsc_upgrade(port, true, "Origin: https://club.example.org\r\n");
	json_decref(wsc_hello(w));
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* A reload with a bad web value is refused whole: the running origins
 * stay (Origin: null is still refused, the listed one still let in). */
START_TEST(test_reload_bad_web_value_refused)
{
	struct kd *d = start_web("web_origins = https://club.example.org\n");
	int port = listen_port(d, 1);

	write_conf(d, KD_BASE_CONFIG "listen_web = 127.0.0.1:0\n"
	              "web_origins = https://club.example.org\nweb_origins = null\n"
	              "web_trusted_proxy = 127.0.0.0/8\n");
	ck_assert_int_eq(kill(kd_pid(d), SIGHUP), 0);
	ck_assert_msg(kd_log_wait(d, "reload failed, keeping the running settings: ", 10000),
	              "a reload with web_origins = null was taken");
	ck_assert(kd_log_wait(d, "web_origins 'null': ", 5000));
	struct wsc *w;
	char host[32];
	snprintf(host, sizeof host, "127.0.0.1:%d", port);
	ck_assert_int_eq(upgrade_as(port, true, host, "null", &w), 403);
	wsc_close(w);
	w = wsc_upgrade(port, true, "Origin: https://club.example.org\r\n");
	json_decref(wsc_hello(w));
	wsc_close(w);
	kd_stop(d);
}
END_TEST

/* ---- HSTS and the development certificate ---- */

/* A self-signed pair made by the openssl CLI, as an operator's own
 * certificate would be configured: dir/cert.pem, dir/key.pem. */
static void make_pair(const char *dir)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd,
	         "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
	         "-subj /CN=localhost -days 2 -keyout '%s/key.pem' -out '%s/cert.pem' "
	         ">/dev/null 2>&1", dir, dir);
	ck_assert_msg(system(cmd) == 0, "openssl could not make a certificate");
}

/* GET / on port; the response head (caller frees). */
static char *get_root(int port, bool tls)
{
	struct wsc *w = wsc_connect(port, tls, 0);
	char req[256];

	snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port);
	ck_assert_int_eq(wsc_request(w, req), 200);
	char *head = strdup(w->head);
	wsc_close(w);
	return head;
}

/* Regression: no response carried Strict-Transport-Security.  With the
 * operator's certificate the HTTPS door sends it (every response: a file,
 * an error); never the plain door behind a proxy (the proxy's business),
 * never with the development certificate (test_static_files). */
START_TEST(test_hsts_with_configured_cert)
{
	char dir[] = "/tmp/kriegd-cert-XXXXXX", conf[512], cmd[128], req[256];
	const char *hsts = "\r\nStrict-Transport-Security: max-age=31536000\r\n";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	make_pair(dir);
	snprintf(conf, sizeof conf, "listen_web = 127.0.0.1:0\nlisten_web_plain = 127.0.0.1:0\n"
	         "cert = %s/cert.pem\nkey = %s/key.pem\n", dir, dir);
	struct kd *d = kd_start(conf);
	int port = listen_port(d, 1), plain = listen_port(d, 2);
	char *head = get_root(port, true);
	ck_assert_msg(strstr(head, hsts) != NULL, "%s", head);
	free(head);
	struct wsc *w = wsc_connect(port, true, 0);
	ck_assert_int_eq(wsc_request(w, "GET /nonexistent.js HTTP/1.1\r\nHost: x\r\n\r\n"), 404);
	ck_assert_msg(strstr(w->head, hsts) != NULL, "%s", w->head);
	wsc_close(w);
	snprintf(req, sizeof req, "127.0.0.1:%d", port);
	ck_assert_int_eq(upgrade_as(port, true, req, NULL, &w), 101);
	ck_assert_msg(strstr(w->head, hsts) != NULL, "%s", w->head);
	wsc_close(w);
	head = get_root(plain, false);
	ck_assert_msg(strcasestr(head, "Strict-Transport-Security") == NULL, "%s", head);
	free(head);
	kd_stop(d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* kriegd with args (no harness: its line listener is not 127.0.0.1) until
 * it is ready, then stopped; its log (caller frees). */
static char *run_until_ready(const char *dir, const char *const *args, size_t nargs)
{
	const char *bin = getenv("KRIEGD");
	char state[128], logpath[128];
	const char *argv[16];
	size_t k = 0;

	if (bin == NULL)
		bin = "build/asan/bin/kriegd";
	snprintf(state, sizeof state, "%s/s", dir);
	snprintf(logpath, sizeof logpath, "%s/kriegd.log", dir);
	argv[k++] = bin;
	argv[k++] = "--state-dir";
	argv[k++] = state;
	for (size_t i = 0; i < nargs && k < 15; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	/* Not an earlier run's "ready". */
	ck_assert(unlink(logpath) == 0 || errno == ENOENT);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		signal(SIGTERM, SIG_DFL);   /* not Check's, which ends the test's group */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	char *log = NULL;
	for (int i = 0; i < 3000 * kt_timeout_scale(); i++) {
		FILE *f = fopen(logpath, "r");
		free(log);
		log = calloc(1, 65536);
		ck_assert_ptr_nonnull(log);
		if (f != NULL) {
			size_t n = fread(log, 1, 65535, f);
			log[n] = '\0';
			fclose(f);
		}
		if (strstr(log, "kriegd: ready") != NULL)
			break;
		ck_assert_msg(waitpid(pid, NULL, WNOHANG) == 0, "kriegd exited:\n%s", log);
		kt_sleep_ms(10);
	}
	int st;
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(strstr(log, "kriegd: ready") != NULL, "kriegd never ready:\n%s", log);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", log);
	ck_assert_msg(strstr(log, "Sanitizer") == NULL && strstr(log, "runtime error:") == NULL,
	              "%s", log);
	return log;
}

/* New: a door beyond loopback with the development certificate (self-signed
 * for localhost) is warned about at start, the line listener's too; with
 * the operator's certificate, or on loopback (test_static_files), not. */
START_TEST(test_dev_cert_public_warned)
{
	char dir[] = "/tmp/kriegd-pub-XXXXXX", cmd[128], cert[128], key[128];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char *pub[] = { "--listen", "0.0.0.0:0", "--set", "listen_web=0.0.0.0:0" };
	char *log = run_until_ready(dir, pub, 4);
	ck_assert_msg(strstr(log, "listen_web 0.0.0.0:0: beyond loopback with the development "
	                          "certificate (self-signed, for localhost): browsers will warn; "
	                          "set cert and key") != NULL, "%s", log);
	ck_assert_msg(strstr(log, "listen 0.0.0.0:0: beyond loopback with the development "
	                          "certificate (self-signed, for localhost)") != NULL, "%s", log);
	free(log);
	/* --check-config says it too, with the development pair's validity
	 * (regression: it said neither). */
	char check[512], out[16384];
	const char *bin = getenv("KRIEGD") != NULL ? getenv("KRIEGD") : "build/asan/bin/kriegd";
	snprintf(check, sizeof check, "'%s' --check-config --state-dir '%s/s' --listen 0.0.0.0:0 "
	         "--set listen_web=0.0.0.0:0 2>&1", bin, dir);
	FILE *p = popen(check, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(strstr(out, "listen_web 0.0.0.0:0: beyond loopback with the development "
	                          "certificate") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "/s/kriegd-cert.pem sha256=") != NULL &&
	              strstr(out, " valid from ") != NULL, "%s", out);
	make_pair(dir);
	snprintf(cert, sizeof cert, "cert=%s/cert.pem", dir);
	snprintf(key, sizeof key, "key=%s/key.pem", dir);
	const char *own[] = { "--listen", "0.0.0.0:0", "--set", "listen_web=0.0.0.0:0",
		              "--set", cert, "--set", key };
	log = run_until_ready(dir, own, 8);
	ck_assert_msg(strstr(log, "set cert and key") == NULL, "%s", log);
	free(log);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * test_transport's test_replay_cost_holds through the web door: the
 * record's page and three pings in one write, so the pings are decoded
 * while the connection is already held (they wait in c->held_in, the line
 * transport's in the socket).  The page is answered, a line client is
 * served meanwhile, then the pings, in order, none refused, once the
 * bucket allows.
 */
START_TEST(test_replay_cost_holds)
{
	struct kd *d = start_web("rate_limit = 10000\nrate_burst = 10000\n");
	int64_t game = kg_long_record(d, "ump", KG_HOLD_NOTES);
	/* A live game's replay is kept while it is played (announce.h): the
	 * cache is cold for a finished record after a restart. */
	kd_restart(d);
	kd_reload(d, KG_HOLD_CONF);
	int port = listen_port(d, 3);   /* the second run's web listener */
	char origin[128], record[128];
	snprintf(origin, sizeof origin, ORIGIN_OK, port);
	struct wsc *w = wsc_upgrade(port, true, origin);
	json_decref(wsc_hello(w));
	wsc_text(w, "{\"id\":2,\"type\":\"guest\"}");
	json_t *r = wsc_msg(w);
	ck_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	struct kc *other = kc_hello(d);
	snprintf(record, sizeof record, "{\"id\":900,\"type\":\"record\",\"game\":%lld,"
	         "\"view\":\"white\"}", (long long)game);
	const char *batch[] = { record, "{\"id\":901,\"type\":\"ping\"}",
		                "{\"id\":902,\"type\":\"ping\"}", "{\"id\":903,\"type\":\"ping\"}" };
	long long t0 = kt_now_ms();
	wsc_texts(w, batch, 4);
	r = wsc_msg(w);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 900);
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	json_decref(r);
	kc_ok(other, kc_req(other, "ping", NULL));
	long long served = kt_now_ms() - t0;
	for (long long id = 901; id <= 903; id++) {
		r = wsc_msg(w);
		ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), id);
		ck_assert_msg(json_is_true(json_object_get(r, "ok")), "ping %lld refused", id);
		json_decref(r);
	}
	long long waited = kt_now_ms() - t0;
	ck_assert_msg(waited >= KG_HOLD_MIN_MS, "the pings were answered after %lld ms", waited);
	ck_assert_msg(served < waited, "the line client waited %lld ms, the pings %lld", served,
	              waited);
	kc_close(other);
	wsc_close(w);
	kd_stop(d);
}
END_TEST

static Suite *web_suite(void)
{
	Suite *s = suite_create("web");
	TCase *tc = tcase_create("door");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_static_files);
	tcase_add_test(tc, test_stop_says_going_away);
	tcase_add_test(tc, test_upgrade_lines);
	tcase_add_test(tc, test_close_codes);
	tcase_add_test(tc, test_bad_frame_answers_what_it_took);
	tcase_add_test(tc, test_cross_origin_refused);
	tcase_add_test(tc, test_slow_reader);
	tcase_add_test(tc, test_ping_flood_is_a_slow_reader);
	tcase_add_test(tc, test_plain_loopback_only);
	tcase_add_test(tc, test_plain_forwarded_for);
	tcase_add_test(tc, test_plain_origin_rebinding_refused);
	tcase_add_test(tc, test_forwarded_for_untrusted_ignored);
	tcase_add_test(tc, test_forwarded_ipv6_counts_by_network);
	tcase_add_test(tc, test_check_config_prints_web_keys);
	tcase_add_test(tc, test_web_root_checked_and_warned_once);
	tcase_add_test(tc, test_web_full_evicts_unfinished);
	tcase_add_test(tc, test_web_handshake_outlives_a_stop);
	tcase_add_test(tc, test_reload_names_web_listeners);
	tcase_add_test(tc, test_web_values_checked);
	tcase_add_test(tc, test_reload_bad_web_value_refused);
	tcase_add_test(tc, test_hsts_with_configured_cert);
	tcase_add_test(tc, test_dev_cert_public_warned);
	tcase_add_test(tc, test_replay_cost_holds);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(web_suite)
