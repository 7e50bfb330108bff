/*
 * test_transport.c — kriegd's transport against a real daemon: greeting,
 * hello, framing, malformed input, TLS refusal of plaintext, and every
 * named limit (line length, connections, handshake and idle timeouts,
 * output cap, request rate).
 */
#define _GNU_SOURCE 1   /* prlimit */
#include <check.h>
#include <dirent.h>
#include <sys/resource.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "check_main.h"
#include "conn.h"   /* CONN_REFUSE_EXTRA, CONN_LOG_BURST, CONN_EVICT_HANDSHAKE_MS ... */
#include "dispatch.h"   /* DISPATCH_QUEUE_MAX */
#include "listener.h"   /* LISTENER_KEEPIDLE_S */
#include "harness.h"
#include "harness_game.h"
#include "proto.h"

/* A raw line in, the error code out, and the connection still serves. */
static void expect_line_error(struct kc *c, const char *line, long long id, const char *code)
{
	kc_send(c, line);
	kc_error(c, id, code);
}

static void expect_usable(struct kc *c)
{
	long long id = kc_req(c, "ping", NULL);

	kc_ok(c, id);
}

START_TEST(test_greeting_hello_ping)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_connect(d);
	json_t *g = kc_greeting(c);

	ck_assert_int_eq(json_integer_value(json_object_get(g, "protocol")), PROTO_VERSION);
	ck_assert(json_is_string(json_object_get(g, "server")));
	json_t *rs = json_object_get(g, "rulesets");
	ck_assert(json_is_array(rs) && json_array_size(rs) >= 1);
	ck_assert(kc_saw(c, "\"icc\""));

	/* ping is allowed before hello; string ids are echoed. */
	kc_send(c, "{\"id\":\"abc-1\",\"type\":\"ping\"}");
	json_t *r = kc_next(c, KC_TIMEOUT_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "abc-1");
	ck_assert(json_is_true(json_object_get(r, "ok")));

	json_t *h = kc_ok(c, kc_req(c, "hello", "{s:i}", "version", PROTO_VERSION));
	ck_assert_int_eq(json_integer_value(json_object_get(h, "protocol")), PROTO_VERSION);
	expect_usable(c);
	/* A second hello is refused, harmlessly. */
	kc_error(c, kc_req(c, "hello", "{s:i}", "version", PROTO_VERSION), "bad_request");
	/* Blank lines and CRLF are tolerated. */
	kc_send(c, "\r\n");
	kc_send(c, "{\"id\":77,\"type\":\"ping\"}\r\n");
	kc_ok(c, 77);
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(test_version_mismatch)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_connect(d);

	kc_error(c, kc_req(c, "hello", "{s:i}", "version", PROTO_VERSION + 41), "version");
	kc_error(c, kc_req(c, "hello", "{s:i}", "version", 0), "version");
	/* Still before hello: other requests are refused ... */
	kc_error(c, kc_req(c, "who", NULL), "hello_first");
	/* ... and the right version still works. */
	kc_ok(c, kc_req(c, "hello", "{s:i}", "version", PROTO_VERSION));
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(test_request_before_hello)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_connect(d);

	kc_error(c, kc_req(c, "login", "{s:s, s:s}", "user", "alice", "password", "longenough"),
	         "hello_first");
	kc_error(c, kc_req(c, "guest", NULL), "hello_first");
	kc_error(c, kc_req(c, "who", NULL), "hello_first");
	kc_ok(c, kc_req(c, "hello", "{s:i}", "version", PROTO_VERSION));
	/* After hello, a request that needs a login says so. */
	kc_error(c, kc_req(c, "who", NULL), "not_logged_in");
	kc_error(c, kc_req(c, "games", NULL), "not_logged_in");
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(test_malformed)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_hello(d);
	char longid[PROTO_ID_MAX + 40];

	expect_line_error(c, "not json", KC_NULL_ID, "bad_json");
	expect_line_error(c, "{\"id\":1,\"type\":\"ping\"", KC_NULL_ID, "bad_json");
	expect_line_error(c, "{\"id\":1,\"type\":\"ping\"} trailing", KC_NULL_ID, "bad_json");
	expect_line_error(c, "[1,2,3]", KC_NULL_ID, "bad_json");
	expect_line_error(c, "\"a string\"", KC_NULL_ID, "bad_json");
	expect_line_error(c, "42", KC_NULL_ID, "bad_json");
	/* Invalid UTF-8, an escaped NUL, duplicate keys. */
	expect_line_error(c, "{\"id\":2,\"type\":\"ping\",\"x\":\"\xff\xfe\"}", KC_NULL_ID, "bad_json");
	expect_line_error(c, "{\"id\":2,\"type\":\"ping\",\"x\":\"\xc0\xaf\"}", KC_NULL_ID, "bad_json");
	expect_line_error(c, "{\"id\":2,\"type\":\"hello\",\"client\":\"a\\u0000b\",\"version\":1}",
	                  KC_NULL_ID, "bad_json");
	expect_line_error(c, "{\"id\":2,\"id\":3,\"type\":\"ping\"}", KC_NULL_ID, "bad_json");
	/* An integer beyond 64 bits, the id's too (PROTOCOL.md "Checking a request"). */
	expect_line_error(c, "{\"id\":99999999999999999999,\"type\":\"ping\"}", KC_NULL_ID,
	                  "bad_json");

	/* Unknown type: the id is echoed. */
	expect_line_error(c, "{\"id\":10,\"type\":\"fly\"}", 10, "unknown_type");
	kc_send(c, "{\"id\":\"s-11\",\"type\":\"fly\"}");
	json_t *r = kc_next(c, KC_TIMEOUT_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "s-11");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "error"), "code")),
	                 "unknown_type");

	/* Regression (a probe): the quoted type or field cut at 32 bytes in the
	 * middle of a character made a message jansson refused, and no answer
	 * came at all. */
	char utype[256] = "{\"id\":15,\"type\":\"a", ufield[256] = "{\"id\":16,\"type\":\"ping\",\"a";
	for (int i = 0; i < 40; i++) {
		strcat(utype, "\xc3\xa9");
		strcat(ufield, "\xc3\xa9");
	}
	strcat(utype, "\"}");
	strcat(ufield, "\":1}");
	expect_line_error(c, utype, 15, "unknown_type");
	expect_line_error(c, ufield, 16, "bad_request");

	/* Missing or mistyped type. */
	expect_line_error(c, "{\"id\":12}", 12, "bad_request");
	expect_line_error(c, "{\"id\":13,\"type\":5}", 13, "bad_request");
	expect_line_error(c, "{\"id\":14,\"type\":null}", 14, "bad_request");

	/* Wrong field types, unknown fields, missing required fields. */
	expect_line_error(c, "{\"id\":20,\"type\":\"hello\",\"version\":\"1\"}", 20, "bad_request");
	expect_line_error(c, "{\"id\":21,\"type\":\"hello\",\"version\":1.0}", 21, "bad_request");
	expect_line_error(c, "{\"id\":22,\"type\":\"hello\",\"version\":-1}", 22, "bad_request");
	expect_line_error(c, "{\"id\":23,\"type\":\"hello\"}", 23, "bad_request");
	expect_line_error(c, "{\"id\":24,\"type\":\"hello\",\"version\":1,\"client\":7}", 24,
	                  "bad_request");
	expect_line_error(c, "{\"id\":25,\"type\":\"ping\",\"extra\":true}", 25, "bad_request");
	expect_line_error(c, "{\"id\":26,\"type\":\"ping\",\"\":true}", 26, "bad_request");

	/* Bad ids: answered with "id": null. */
	expect_line_error(c, "{\"type\":\"ping\"}", KC_NULL_ID, "bad_request");
	expect_line_error(c, "{\"id\":null,\"type\":\"ping\"}", KC_NULL_ID, "bad_request");
	expect_line_error(c, "{\"id\":1.5,\"type\":\"ping\"}", KC_NULL_ID, "bad_request");
	expect_line_error(c, "{\"id\":true,\"type\":\"ping\"}", KC_NULL_ID, "bad_request");
	expect_line_error(c, "{\"id\":[1],\"type\":\"ping\"}", KC_NULL_ID, "bad_request");
	expect_line_error(c, "{\"id\":{},\"type\":\"ping\"}", KC_NULL_ID, "bad_request");
	memset(longid, 'x', sizeof longid);
	char line[512];
	snprintf(line, sizeof line, "{\"id\":\"%.*s\",\"type\":\"ping\"}", PROTO_ID_MAX + 1, longid);
	expect_line_error(c, line, KC_NULL_ID, "bad_request");
	/* Exactly PROTO_ID_MAX bytes is fine. */
	snprintf(line, sizeof line, "{\"id\":\"%.*s\",\"type\":\"ping\"}", PROTO_ID_MAX, longid);
	kc_send(c, line);
	r = kc_next(c, KC_TIMEOUT_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert(json_is_true(json_object_get(r, "ok")));

	/* After all that, the connection still serves. */
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* Client text reaches the log escaped: no forged log lines. */
START_TEST(test_log_escaping)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_connect(d);

	kc_send(c, "{\"id\":1,\"type\":\"hello\",\"version\":1,"
	           "\"client\":\"evil\\nkriegd: forged line\\u001b[31m\"}");
	kc_ok(c, 1);
	ck_assert(kd_log_wait(d, "hello client=", KC_TIMEOUT_MS));
	char *log = kd_log(d);
	ck_assert_ptr_null(strstr(log, "\nkriegd: forged line"));
	ck_assert_ptr_null(strstr(log, "\x1b"));
	ck_assert_ptr_nonnull(strstr(log, "evil\\x0akriegd: forged line\\x1b[31m"));
	free(log);
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(test_line_limit_boundary)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_hello(d);
	char *line = malloc(PROTO_LINE_MAX + 2);
	const char *head = "{\"id\":5,\"type\":\"ping\",\"pad\":\"";

	/* Exactly PROTO_LINE_MAX bytes with the newline: parsed (and refused
	 * for its unknown field, not for its length). */
	size_t body = PROTO_LINE_MAX - 1 - strlen(head) - 2;
	memcpy(line, head, strlen(head));
	memset(line + strlen(head), 'a', body);
	memcpy(line + strlen(head) + body, "\"}\n", 4);
	ck_assert_uint_eq(strlen(line), PROTO_LINE_MAX);
	kc_send(c, line);
	kc_error(c, 5, "bad_request");
	expect_usable(c);

	/* One byte more: line_too_long, then the server closes. */
	memcpy(line, head, strlen(head));
	memset(line + strlen(head), 'a', body + 1);
	memcpy(line + strlen(head) + body + 1, "\"}\n", 4);
	ck_assert_uint_eq(strlen(line), PROTO_LINE_MAX + 1);
	kc_send(c, line);
	kc_error(c, KC_NULL_ID, "line_too_long");
	ck_assert(kc_closed(c, KC_TIMEOUT_MS));
	free(line);
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(test_line_too_long_1mib)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_hello(d);
	size_t n = 1024 * 1024;
	char *big = malloc(n + 1);

	memset(big, 'x', n);
	big[n] = '\n';
	/* The server stops parsing after PROTO_LINE_MAX; the write may or may
	 * not complete before it closes. */
	(void)kc_write(c, big, n + 1, KC_TIMEOUT_MS);
	kc_error(c, KC_NULL_ID, "line_too_long");
	ck_assert(kc_closed(c, KC_TIMEOUT_MS));
	/* Nothing after the error. */
	ck_assert_ptr_null(kc_next(c, 0));
	free(big);
	kc_close(c);

	/* A line without any newline at all, too. */
	c = kc_hello(d);
	big = malloc(PROTO_LINE_MAX * 2);
	memset(big, '{', PROTO_LINE_MAX * 2);
	(void)kc_write(c, big, PROTO_LINE_MAX * 2, KC_TIMEOUT_MS);
	kc_error(c, KC_NULL_ID, "line_too_long");
	ck_assert(kc_closed(c, KC_TIMEOUT_MS));
	free(big);
	kc_close(c);

	ck_assert(kd_alive(d));
	c = kc_hello(d);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/*
 * Regression (hostile-input probe): a close the server makes answers what
 * it took first.  A move and a line too long in one write: the move was
 * played and never answered (the connection closed before its commit);
 * a move and then a flood of pings (closed at its 100th refusal) the
 * same.  Now the close waits for the commit: the move's event and answer
 * come, with the line_too_long (or the refusals), then the close; the
 * move is in the opponent's view.
 */
START_TEST(test_close_answers_what_it_took)
{
	struct kd *d = kd_start(NULL);
	for (int flood = 0; flood <= 1; flood++) {
		struct kp w, b;
		kp_guest(d, &w);
		kp_guest(d, &b);
		int64_t game = kg_new_game(&w, &b);
		size_t cap = PROTO_LINE_MAX + 16 * 1024;
		char *batch = malloc(cap);
		ck_assert_ptr_nonnull(batch);
		int n = snprintf(batch, cap, "{\"id\":77,\"type\":\"move\",\"game\":%lld,\"move\":\"e4\"}\n",
		                 (long long)game);
		size_t len = (size_t)n;
		if (flood) {
			for (int i = 0; i < 200; i++)
				len += (size_t)snprintf(batch + len, cap - len, "{\"id\":%d,\"type\":\"ping\"}\n", 100 + i);
		} else {
			memset(batch + len, 'x', PROTO_LINE_MAX + 10);
			len += PROTO_LINE_MAX + 10;
			batch[len++] = '\n';
		}
		(void)kc_write(w.c, batch, len, KC_TIMEOUT_MS);
		free(batch);
		kc_ok(w.c, 77);
		kc_event(w.c, "move");
		if (!flood)
			kc_error(w.c, KC_NULL_ID, "line_too_long");
		ck_assert(kc_closed(w.c, KC_TIMEOUT_MS));
		ck_assert_msg(flood == kc_saw(w.c, "rate_limited"), "the flood: %d", flood);
		json_t *v = kc_ok(b.c, kc_req(b.c, "game", "{s:I}", "game", (json_int_t)game));
		ck_assert_str_eq(json_string_value(json_object_get(v, "to_move")), "black");
		kc_close(w.c);
		kc_close(b.c);
	}
	kd_stop(d);
}
END_TEST

/* Two guests' game in d, and White's e4 taken with its commit held by
 * another process's lock (*lock; kd_unlock_db lets it go): its request id. */
static long long held_move(struct kd *d, struct kp *w, struct kp *b, int64_t *game,
                           struct sqlite3 **lock)
{
	kp_guest(d, w);
	kp_guest(d, b);
	*game = kg_new_game(w, b);
	*lock = kd_lock_db(d);
	long long mv = kc_req(w->c, "move", "{s:I, s:s}", "game", (json_int_t)*game, "move", "e4");
	kt_sleep_ms(200);   /* taken, its commit held */
	return mv;
}

/*
 * What a connection being closed had not run is not run: White's move
 * awaits its commit (the store held by another process), White's words
 * wait for that commit, then a line too long.  The store let go: the move
 * is answered, then the close; the words are never said (Black hears
 * none, White gets no answer for them), as if the connection had closed
 * at once, as it did before the close waited for the commit.
 */
START_TEST(test_close_runs_nothing_more)
{
	struct kd *d = kd_start("busy_timeout = 60s\n");
	struct kp w, b;
	int64_t game;
	struct sqlite3 *lock;
	long long mv = held_move(d, &w, &b, &game, &lock);
	long long say = kc_req(w.c, "say", "{s:I, s:s}", "game", (json_int_t)game, "text", "unsaid");
	kt_sleep_ms(200);   /* waits for the move's commit */
	char *big = malloc(PROTO_LINE_MAX + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', PROTO_LINE_MAX + 1);
	big[PROTO_LINE_MAX + 1] = '\n';
	(void)kc_write(w.c, big, PROTO_LINE_MAX + 2, KC_TIMEOUT_MS);
	free(big);
	kc_error(w.c, KC_NULL_ID, "line_too_long");
	kd_unlock_db(lock);
	kc_ok(w.c, mv);
	ck_assert(kc_closed(w.c, KC_TIMEOUT_MS));
	char id[32];
	snprintf(id, sizeof id, "\"id\":%lld,", say);
	ck_assert_msg(!kc_saw(w.c, id), "the words waiting behind the move were answered");
	json_t *v = kc_ok(b.c, kc_req(b.c, "game", "{s:I}", "game", (json_int_t)game));
	ck_assert_str_eq(json_string_value(json_object_get(v, "to_move")), "black");
	ck_assert(!kc_saw(b.c, "unsaid"));
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * A connection's queue of waiting requests is bounded (hostile-input
 * probe: 20,000 pipelined behind a move whose commit a locked database
 * held grew kriegd by 15 MB): at DISPATCH_QUEUE_MAX its input is not read
 * until the queue has room, and then every request is answered, in the
 * order sent.
 */
#define QUEUED_VIEWS (DISPATCH_QUEUE_MAX + 150)
START_TEST(test_queue_bounded)
{
	struct kd *d = kd_start("busy_timeout = 60s\nrate_limit = 100000\nrate_burst = 100000\n"
	                        "log_level = debug\n");
	struct kp w, b;
	int64_t game;
	struct sqlite3 *lock;
	long long mv = held_move(d, &w, &b, &game, &lock);
	static char batch[QUEUED_VIEWS * 64];
	size_t len = 0;
	for (int i = 0; i < QUEUED_VIEWS; i++)
		len += (size_t)snprintf(batch + len, sizeof batch - len,
		                        "{\"id\":%d,\"type\":\"game\",\"game\":%lld}\n", 5000 + i,
		                        (long long)game);
	ck_assert_int_eq(kc_write(w.c, batch, len, KC_TIMEOUT_MS), 0);
	ck_assert(kd_log_wait(d, "its queue of waiting requests is full", 5000));
	kd_unlock_db(lock);
	kc_ok(w.c, mv);
	long at = kc_first_line(w.c, "\"event\":\"move\"");
	for (int i = 0; i < QUEUED_VIEWS; i++) {
		json_t *v = kc_ok(w.c, 5000 + i);
		ck_assert_str_eq(json_string_value(json_object_get(v, "to_move")), "black");
		char id[32];
		snprintf(id, sizeof id, "\"id\":%d,", 5000 + i);
		long line = kc_first_line(w.c, id);
		ck_assert_msg(line > at, "view %d answered out of order", i);
		at = line;
	}
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Read a plain socket until EOF/reset; returns bytes read, -1 on timeout. */
static long drain_plain(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t got = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		char tmp[4096];
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r <= 0)
			return (long)got;
		if (got < len) {
			size_t k = (size_t)r < len - got ? (size_t)r : len - got;
			memcpy(buf + got, tmp, k);
			got += k;
		}
	}
}

START_TEST(test_plaintext_refused)
{
	struct kd *d = kd_start(NULL);
	int fd = kd_tcp(d);
	char buf[4096] = "";
	const char *req = "{\"id\":1,\"type\":\"hello\",\"version\":1}\n";

	ck_assert(write(fd, req, strlen(req)) == (ssize_t)strlen(req));
	long got = drain_plain(fd, buf, sizeof buf - 1, KC_TIMEOUT_MS);
	ck_assert_msg(got >= 0, "the server kept a plaintext client open");
	buf[got] = '\0';
	ck_assert_ptr_null(strstr(buf, "greeting"));
	ck_assert_ptr_null(strstr(buf, "\"ok\""));
	close(fd);
	ck_assert(kd_log_wait(d, "tls handshake failed", KC_TIMEOUT_MS));

	/* An HTTP client, too. */
	fd = kd_tcp(d);
	req = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
	ck_assert(write(fd, req, strlen(req)) == (ssize_t)strlen(req));
	ck_assert(drain_plain(fd, buf, sizeof buf - 1, KC_TIMEOUT_MS) >= 0);
	close(fd);

	ck_assert(kd_alive(d));
	struct kc *c = kc_hello(d);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/*
 * One TLS handshake with the line port as a client other than krieg's
 * would make it: at most TLS version max_version (0: any), offering only
 * the TLS 1.2 suites `ciphers` (NULL: OpenSSL's default) and the ALPN
 * protocols `alpn` (wire format, NULL: none).  True if it completes; why
 * gets the protocol and suite, or OpenSSL's reason for the failure.
 */
static bool tls_try(struct kd *d, int max_version, const char *ciphers, const unsigned char *alpn,
                    unsigned alpn_len, char *why, size_t whylen)
{
	int fd = kd_tcp(d);
	struct timeval tv = { .tv_sec = 10 * kt_timeout_scale() };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	ck_assert_ptr_nonnull(ctx);
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if (max_version != 0)
		SSL_CTX_set_max_proto_version(ctx, max_version);
	if (ciphers != NULL)
		ck_assert_msg(SSL_CTX_set_cipher_list(ctx, ciphers) == 1, "cipher list %s", ciphers);
	SSL *ssl = SSL_new(ctx);
	ck_assert_ptr_nonnull(ssl);
	if (alpn != NULL)   /* 0 is success here */
		ck_assert_int_eq(SSL_set_alpn_protos(ssl, alpn, alpn_len), 0);
	SSL_set_fd(ssl, fd);
	ERR_clear_error();
	bool ok = SSL_connect(ssl) == 1;
	if (ok)
		snprintf(why, whylen, "%s %s", SSL_get_version(ssl), SSL_get_cipher_name(ssl));
	else
		ERR_error_string_n(ERR_get_error(), why, whylen);
	ERR_clear_error();
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	return ok;
}

/*
 * A handshake with the line port at most TLS version max_version that
 * offers the session `resume` (NULL: none) and reads the greeting (TLS
 * 1.3's tickets come after the handshake); the session to resume next
 * into *out.  True if `resume` was resumed.
 */
static bool tls_resume(struct kd *d, int max_version, SSL_SESSION *resume, SSL_SESSION **out)
{
	int fd = kd_tcp(d);
	struct timeval tv = { .tv_sec = 10 * kt_timeout_scale() };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	ck_assert_ptr_nonnull(ctx);
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_max_proto_version(ctx, max_version);
	SSL *ssl = SSL_new(ctx);
	ck_assert_ptr_nonnull(ssl);
	if (resume != NULL)
		ck_assert_int_eq(SSL_set_session(ssl, resume), 1);
	SSL_set_fd(ssl, fd);
	ck_assert_int_eq(SSL_connect(ssl), 1);
	char c;
	while (SSL_read(ssl, &c, 1) == 1 && c != '\n')
		;
	bool reused = SSL_session_reused(ssl) == 1;
	*out = SSL_get1_session(ssl);
	ck_assert_ptr_nonnull(*out);
	SSL_shutdown(ssl);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	return reused;
}

/*
 * A session ticket is the session's keys sealed with the daemon's ticket
 * key: whoever reads that key from a daemon that ran for months could
 * open every session resumed or recorded in that time.  The key is
 * replaced every TLS_TICKET_KEY_MS (here shortened by
 * KRIEGD_TICKET_KEY_MS); a ticket sealed with an old one starts a full
 * handshake.  Before the fix the key lived as long as the certificate.
 */
START_TEST(test_ticket_key_rotated)
{
	setenv("KRIEGD_TICKET_KEY_MS", "2000", 1);
	struct kd *d = kd_start("log_level = debug\n");
	unsetenv("KRIEGD_TICKET_KEY_MS");
	static const int versions[] = { TLS1_2_VERSION, TLS1_3_VERSION };

	for (size_t v = 0; v < 2; v++) {
		SSL_SESSION *s1, *s2, *s3;
		int seen = kd_log_count(d, "tls: session ticket key rotated");
		/* Just after a rotation: a whole period to resume in. */
		ck_assert(kd_log_wait_count(d, "tls: session ticket key rotated", seen, 10000));
		ck_assert(!tls_resume(d, versions[v], NULL, &s1));
		ck_assert_msg(tls_resume(d, versions[v], s1, &s2), "version %d: no resumption",
		              versions[v]);
		seen = kd_log_count(d, "tls: session ticket key rotated");
		ck_assert(kd_log_wait_count(d, "tls: session ticket key rotated", seen, 10000));
		ck_assert_msg(!tls_resume(d, versions[v], s2, &s3),
		              "version %d: a ticket of the old key resumed", versions[v]);
		SSL_SESSION_free(s1);
		SSL_SESSION_free(s2);
		SSL_SESSION_free(s3);
	}
	kd_stop(d);
}
END_TEST

/*
 * A browser always offers ALPN; a page can make it POST to the line port
 * (same host, same certificate) and have its body run as requests: a
 * cross-protocol attack.  The line door refuses any ALPN offer in the
 * handshake, with the no_application_protocol alert; without one (the
 * krieg clients) it goes on as ever.
 */
START_TEST(test_alpn_refused_on_line_port)
{
	struct kd *d = kd_start(NULL);
	static const unsigned char http11[] = "\x08http/1.1";
	static const unsigned char browser[] = "\x02h2\x08http/1.1";
	char why[256];

	for (int v = 0; v < 2; v++) {
		int max = v == 0 ? TLS1_2_VERSION : 0;   /* both TLS 1.2 and 1.3 */
		ck_assert_msg(!tls_try(d, max, NULL, http11, sizeof http11 - 1, why, sizeof why),
		              "ALPN http/1.1 accepted on the line port: %s", why);
		ck_assert_msg(strstr(why, "no application protocol") != NULL, "refused how? %s", why);
		ck_assert_msg(!tls_try(d, max, NULL, browser, sizeof browser - 1, why, sizeof why),
		              "ALPN h2,http/1.1 accepted on the line port: %s", why);
		ck_assert_msg(tls_try(d, max, NULL, NULL, 0, why, sizeof why), "no ALPN: %s", why);
	}
	ck_assert(kd_log_wait(d, "offering ALPN", KC_TIMEOUT_MS));
	struct kc *c = kc_hello(d);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/*
 * What a browser sends when a page POSTs a text/plain form to the line
 * port, through a client that offers no ALPN (or an older browser): the
 * header block, then the body the page chose.  The first line is an HTTP
 * request line, so the connection is closed with nothing run: no hello,
 * no guest, not a bad_json per header line.  A JSON first line is the
 * line protocol: a later line like it is only a bad line.
 */
START_TEST(test_http_request_on_line_port)
{
	struct kd *d = kd_start(NULL);
	const char *body = "{\"id\":1,\"type\":\"hello\",\"version\":1}\r\n"
	                   "{\"id\":2,\"type\":\"guest\"}\r\n";
	char req[2048];
	snprintf(req, sizeof req,
	         "POST / HTTP/1.1\r\nHost: localhost:%d\r\nUser-Agent: Mozilla/5.0 Firefox/130.0\r\n"
	         "Content-Type: text/plain\r\nContent-Length: %zu\r\n"
	         "Origin: https://evil.example\r\nSec-Fetch-Site: cross-site\r\n\r\n%s",
	         kd_port(d), strlen(body), body);

	struct kc *c = kc_connect(d);
	ck_assert_int_eq(kc_write(c, req, strlen(req), KC_TIMEOUT_MS), 0);
	ck_assert_msg(kc_closed(c, KC_TIMEOUT_MS), "an HTTP request kept the line connection open");
	for (size_t i = 0; i < kc_nlines(c); i++) {
		const char *l = kc_line(c, i);
		ck_assert_msg(strstr(l, "greeting") != NULL, "answered an HTTP request: %s", l);
	}
	ck_assert(kd_log_wait(d, "http request on the line port", KC_TIMEOUT_MS));
	ck_assert_int_eq(kd_log_count(d, " guest user="), 0);
	kc_close(c);

	/* A plain GET, with a bare LF. */
	c = kc_connect(d);
	ck_assert_int_eq(kc_write(c, "GET /x HTTP/1.0\n\n", 18, KC_TIMEOUT_MS), 0);
	ck_assert(kc_closed(c, KC_TIMEOUT_MS));
	kc_close(c);

	/* Only the first line is looked at. */
	c = kc_hello(d);
	expect_line_error(c, "GET / HTTP/1.1", KC_NULL_ID, "bad_json");
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/*
 * TLS 1.2 offers only forward-secret AEAD suites: a client that offers
 * only CBC with SHA-1 (ECDHE-ECDSA-AES128-SHA, in OpenSSL's DEFAULT) is
 * refused; one with ECDHE-ECDSA-AES128-GCM-SHA256 gets it.
 */
START_TEST(test_tls12_cipher_suites)
{
	struct kd *d = kd_start(NULL);
	char why[256];

	/* @SECLEVEL=0: the client's own policy must not be what refuses it. */
	ck_assert_msg(!tls_try(d, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-SHA:@SECLEVEL=0", NULL, 0, why,
	                       sizeof why),
	              "CBC/SHA-1 suite accepted: %s", why);
	ck_assert_msg(!tls_try(d, TLS1_2_VERSION, "ECDHE-ECDSA-AES256-SHA384:@SECLEVEL=0", NULL, 0,
	                       why, sizeof why),
	              "CBC suite accepted: %s", why);
	ck_assert_msg(tls_try(d, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-GCM-SHA256", NULL, 0, why,
	                      sizeof why), "GCM suite refused: %s", why);
	ck_assert_str_eq(why, "TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256");
	ck_assert_msg(tls_try(d, TLS1_2_VERSION, "ECDHE-ECDSA-CHACHA20-POLY1305", NULL, 0, why,
	                      sizeof why), "ChaCha20 suite refused: %s", why);
	/* TLS 1.3 as OpenSSL has it. */
	ck_assert_msg(tls_try(d, 0, NULL, NULL, 0, why, sizeof why), "TLS 1.3: %s", why);
	ck_assert_msg(strncmp(why, "TLSv1.3 ", 8) == 0, "%s", why);
	kd_stop(d);
}
END_TEST

START_TEST(test_handshake_timeout)
{
	struct kd *d = kd_start("handshake_timeout = 500ms\n");
	int fd = kd_tcp(d);
	char buf[64];

	/* Connected, silent: closed after the handshake timeout. */
	ck_assert_msg(drain_plain(fd, buf, sizeof buf, 5000) >= 0,
	              "a silent client was not dropped");
	close(fd);
	ck_assert(kd_log_wait(d, "reason=\"tls handshake timeout\"", KC_TIMEOUT_MS));
	/* A prompt client is unaffected. */
	struct kc *c = kc_hello(d);
	kt_sleep_ms(500);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(test_idle_timeout)
{
	struct kd *d = kd_start("idle_timeout = 1s\n");
	struct kc *quiet = kc_hello(d);
	struct kc *lively = kc_hello(d);

	/* At half the idle timeout, the server pings. */
	ck_assert_ptr_nonnull(kc_event(quiet, "ping"));
	/* The lively client answers pings (any line resets the timer). */
	for (int i = 0; i < 8; i++) {
		kt_sleep_ms(250);
		expect_usable(lively);
	}
	/* The quiet one is gone by now (1 s of silence). */
	ck_assert(kc_closed(quiet, 3000));
	ck_assert(kd_log_wait(d, "reason=\"idle timeout\"", KC_TIMEOUT_MS));
	expect_usable(lively);
	kc_close(quiet);
	kc_close(lively);
	kd_stop(d);
}
END_TEST

START_TEST(test_max_connections)
{
	struct kd *d = kd_start("max_connections = 2\n");
	struct kc *a = kc_hello(d);
	struct kc *b = kc_hello(d);

	/* The third gets TLS, then server_full instead of a greeting, then EOF. */
	struct kc *c = kc_open(d);
	kc_error(c, KC_NULL_ID, "server_full");
	ck_assert(kc_closed(c, KC_TIMEOUT_MS));
	ck_assert(!kc_saw(c, "greeting"));
	kc_close(c);

	/* Room again once one leaves. */
	kc_close(a);
	ck_assert(kd_log_wait(d, "closed reason=\"eof\"", KC_TIMEOUT_MS));
	c = kc_hello(d);
	expect_usable(c);
	expect_usable(b);
	kc_close(b);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* Regression (the exhaustion probe): connections that never finish their
 * TLS handshake, 32 from each of some 40 addresses, held every slot for
 * handshake_timeout at a time, and every new client was refused.  Full,
 * the server closes the oldest still in its handshake after
 * CONN_EVICT_HANDSHAKE_MS, and the new client takes its place. */
START_TEST(test_full_evicts_unfinished_handshakes)
{
	struct kd *d = kd_start("max_connections = 4\nhandshake_timeout = 60s\n");
	int fds[4];
	for (int i = 0; i < 4; i++)
		fds[i] = kd_tcp(d);   /* TCP only: each holds a slot in its handshake */
	kt_sleep_ms(CONN_EVICT_HANDSHAKE_MS + 500);
	struct kc *c = kc_hello(d);
	expect_usable(c);
	ck_assert_int_eq(kd_log_count(d, "tls handshake unfinished while the server is full"), 1);
	kc_close(c);
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	kd_stop(d);
}
END_TEST

/* The same probe: an address's handshakes not finished are at most
 * CONN_HANDSHAKES_PER_IP (with the default max_connections_per_ip): one
 * more closes the address's oldest still at it CONN_EVICT_HANDSHAKE_MS,
 * so that filling the server with them takes many addresses. */
START_TEST(test_handshakes_per_address)
{
	struct kd *d = kd_start("handshake_timeout = 60s\n");
	int fds[CONN_HANDSHAKES_PER_IP];
	for (int i = 0; i < CONN_HANDSHAKES_PER_IP; i++)
		fds[i] = kd_tcp(d);   /* TCP only */
	kt_sleep_ms(CONN_EVICT_HANDSHAKE_MS + 500);
	struct kc *c = kc_hello(d);   /* the ninth from this address */
	expect_usable(c);
	ck_assert_int_eq(kd_log_count(d, "tls handshake unfinished, another from its address"), 1);
	struct pollfd p = { .fd = fds[0], .events = POLLIN };   /* the oldest: closed */
	ck_assert_int_eq(poll(&p, 1, KC_TIMEOUT_MS), 1);
	char b;
	ck_assert_int_le(read(fds[0], &b, 1), 0);   /* EOF, or reset */
	kc_close(c);
	for (int i = 0; i < CONN_HANDSHAKES_PER_IP; i++)
		close(fds[i]);
	kd_stop(d);
}
END_TEST

START_TEST(test_rate_limit)
{
	struct kd *d = kd_start("rate_limit = 5\nrate_burst = 5\nrate_limit_close = 30\n");
	struct kc *c = kc_hello(d);   /* hello took one token */
	int ok = 0, limited = 0;
	long long ids[12];

	for (int i = 0; i < 12; i++)
		ids[i] = kc_req(c, "ping", NULL);
	for (int i = 0; i < 12; i++) {
		json_t *r = kc_response(c, ids[i]);
		if (json_is_true(json_object_get(r, "ok"))) {
			ok++;
		} else {
			ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "error"),
			                                                   "code")),
			                 "rate_limited");
			limited++;
		}
	}
	ck_assert_int_ge(ok, 4);
	ck_assert_int_le(ok, 8);
	ck_assert_int_ge(limited, 4);
	/* The bucket refills: the connection is usable again after a pause. */
	kt_sleep_ms(1300);
	expect_usable(c);
	/* Persistent flooding closes the connection. */
	for (int i = 0; i < 60; i++)
		if (kc_write(c, "{\"id\":1,\"type\":\"ping\"}\n", 23, 2000) != 0)
			break;
	ck_assert(kc_closed(c, KC_TIMEOUT_MS));
	ck_assert(kd_log_wait(d, "rate limit", KC_TIMEOUT_MS));
	kc_close(c);
	c = kc_hello(d);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* protocol probe: a blank line past the rate is refused like any other
 * line (rate_limited, "id":null), so a flood of blank lines hears why it
 * is closed; blank lines were once closed by rate_limit_close without a
 * word.  Within the rate a blank line still gets no answer. */
START_TEST(test_rate_limit_blank_lines)
{
	struct kd *d = kd_start("rate_limit = 1\nrate_burst = 5\nrate_limit_close = 5\n");
	struct kc *c = kc_hello(d);   /* hello took one token */
	size_t before = kc_nlines(c);
	int limited = 0;

	for (int i = 0; i < 60; i++)
		if (kc_write(c, "\n", 1, 2000) != 0)
			break;
	ck_assert(kc_closed(c, KC_TIMEOUT_MS));
	for (size_t i = before; i < kc_nlines(c); i++) {
		json_t *r = json_loads(kc_line(c, i), 0, NULL);
		ck_assert_ptr_nonnull(r);
		ck_assert(json_is_null(json_object_get(r, "id")));
		ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "error"), "code")),
		                 "rate_limited");
		json_decref(r);
		limited++;
	}
	/* One answer per refusal up to rate_limit_close, the closing one too. */
	ck_assert_int_eq(limited, 5);
	ck_assert(kd_log_wait(d, "rate limit", KC_TIMEOUT_MS));
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* Regression (hostile-input probe): a line of carriage returns, spaces and
 * tabs is blank, as one of spaces and tabs is: no answer ("\r\r\n" was
 * bad_json; a WebSocket message "\r" too, through the same dispatch). */
START_TEST(test_blank_lines_with_cr)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_hello(d);
	static const char lines[] = "\r\r\n \r\t\r\n\t\n  \r\n";
	ck_assert_int_eq(kc_write(c, lines, strlen(lines), KC_TIMEOUT_MS), 0);
	long long ping = kc_req(c, "ping", NULL);
	json_t *r = kc_next(c, KC_TIMEOUT_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(json_integer_value(json_object_get(r, "id")) == ping, "a blank line answered: %s",
	              kc_line(c, kc_nlines(c) - 1));
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* A request that continues a paged list (`from` above 0) and finds no
 * token waits for one instead of being refused: twelve pages of `who` at
 * once, against a bucket of 5 refilled at 5 a second, all answered, in
 * order, the last no sooner than the bucket allows; and a `ping` right
 * after waits too (the connection owes until its bucket is full again). */
START_TEST(test_page_waits_for_token)
{
	struct kd *d = kd_start("rate_limit = 5\nrate_burst = 5\n");
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "guest", NULL));
	long long ids[12];
	long long t0 = kt_now_ms();
	for (int i = 0; i < 12; i++)
		ids[i] = kc_req(c, "who", "{s:i}", "from", 1);
	for (int i = 0; i < 12; i++) {
		json_t *r = kc_next(c, KC_TIMEOUT_MS);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), ids[i]);
		ck_assert_msg(json_is_true(json_object_get(r, "ok")), "%s",
		              kc_line(c, kc_nlines(c) - 1));
	}
	/* 12 pages and the two requests before, from 5 tokens at 5 a second. */
	long long waited = kt_now_ms() - t0;
	ck_assert_msg(waited >= 1000, "twelve pages in %lld ms", waited);
	expect_usable(c);
	ck_assert(!kc_saw(c, "rate_limited"));
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* Limits lifted, requests logged ("request waits for the turn's commit",
 * OFF_LOOP): what the tests that count log lines start with. */
#define FAST_DEBUG_CONF "rate_limit = 10000\nrate_burst = 10000\nlog_level = debug\n"
/* Logged at debug when a request's replay goes to the reader thread. */
#define OFF_LOOP "replay goes to the reader"

/* A live game of w and b with `notes` notes (kg_noted_game), by an
 * umpire account made for it. */
static int64_t live_noted_record(struct kd *d, struct kp *w, struct kp *b, int notes)
{
	struct kp u;
	kg_user_add(d, "ump", "umpire", "sesame-open");
	kp_login(d, &u, "ump", "sesame-open");
	int64_t game = kg_noted_game(d, w, b, &u, notes);
	kc_close(u.c);
	return game;
}

/* The same with KG_HOLD_NOTES notes. */
static int64_t live_long_record(struct kd *d, struct kp *w, struct kp *b)
{
	return live_noted_record(d, w, b, KG_HOLD_NOTES);
}

/* A live game with so many notes that a player is told READER_REPLAY_MIN
 * (server/reader.h) events or more: two in three notes are public
 * (kg_notes), and a login's state is the list of what its player was told
 * (server/audlist.h). */
#define TOLD_LONG_NOTES 1800

/* A daemon holding a finished game of KG_HOLD_NOTES notes (made at a
 * rate that allows it), restarted (a live game's replay is kept while it
 * is played, announce.h: after a restart a finished record's first read
 * replays it whole), then reloaded to KG_HOLD_CONF. */
static struct kd *start_long_record(int64_t *game)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	*game = kg_long_record(d, "ump", KG_HOLD_NOTES);
	kd_restart(d);
	kd_reload(d, KG_HOLD_CONF);
	return d;
}

/*
 * A request pays for the store rows it replays (rate_rows to a token):
 * the first read of a long record leaves the bucket deep in debt, and the
 * connection is held, not refused.  The record's page and three pings go
 * in one write; the page is answered, then nothing until the bucket holds
 * a token again (another connection is served meanwhile), then every ping,
 * in order, none refused (KG_HOLD_CONF: harness_game.h).
 */
START_TEST(test_replay_cost_holds)
{
	int64_t game;
	struct kd *d = start_long_record(&game);
	struct kp g, o;
	kp_guest(d, &g);
	kp_guest(d, &o);
	char batch[512];
	int n = snprintf(batch, sizeof batch,
	                 "{\"id\":900,\"type\":\"record\",\"game\":%lld,\"view\":\"white\"}\n"
	                 "{\"id\":901,\"type\":\"ping\"}\n{\"id\":902,\"type\":\"ping\"}\n"
	                 "{\"id\":903,\"type\":\"ping\"}\n", (long long)game);
	long long t0 = kt_now_ms();
	ck_assert_int_eq(kc_write(g.c, batch, (size_t)n, KC_TIMEOUT_MS), 0);
	json_t *r = kc_ok(g.c, 900);
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	/* Held: the other connection is served, the held one hears nothing. */
	kc_ok(o.c, kc_req(o.c, "ping", NULL));
	ck_assert_ptr_null(kc_next(g.c, 0));
	for (long long id = 901; id <= 903; id++) {
		json_t *p = kc_next(g.c, KC_TIMEOUT_MS);
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(json_integer_value(json_object_get(p, "id")), id);
		ck_assert_msg(json_is_true(json_object_get(p, "ok")), "%s", kc_line(g.c, kc_nlines(g.c) - 1));
	}
	long long waited = kt_now_ms() - t0;
	ck_assert_msg(waited >= KG_HOLD_MIN_MS, "the pings were answered after %lld ms", waited);
	ck_assert(!kc_saw(g.c, "rate_limited"));
	expect_usable(g.c);
	kc_close(g.c);
	kc_close(o.c);
	kd_stop(d);
}
END_TEST

/* A login's game_state events are what the player was told of each live
 * game of theirs (server/audlist.h): charged too, a token for every
 * rate_rows events, after the password was hashed (auth_login_done), so
 * the next request waits (1,200 events at 10 a token). */
START_TEST(test_login_replay_cost_holds)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp w, b;
	kg_user_add(d, "whitey", "player", "sesame-open");
	kp_login(d, &w, "whitey", "sesame-open");
	kp_guest(d, &b);
	int64_t game = live_noted_record(d, &w, &b, TOLD_LONG_NOTES);
	kd_reload(d, KG_HOLD_CONF);
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "whitey", "password", "sesame-open"));
	long long t0 = kt_now_ms();
	json_t *st = kc_event(c, "game_state");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "game")), game);
	expect_usable(c);
	long long waited = kt_now_ms() - t0;
	ck_assert_msg(waited >= KG_HOLD_MIN_MS, "the ping was answered %lld ms after the login", waited);
	ck_assert(!kc_saw(c, "rate_limited"));
	kc_close(c);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * One address's connections share one budget for replays: while the
 * address is in debt, a replaying request from any of its connections
 * waits (a fresh connection with a full bucket of its own too), while its
 * other requests go on at once, and another address reads the same record
 * meanwhile.  a's first read of the long record puts 127.0.0.1 in debt;
 * b's ping is answered, b's `record` is not until the debt is paid;
 * 127.0.0.2's `record` is answered first.
 */
START_TEST(test_replay_budget_per_address)
{
	int64_t game;
	struct kd *d = start_long_record(&game);
	struct kc *a = kc_hello(d), *b = kc_hello(d), *far = kc_hello_from(d, "127.0.0.2");
	kc_ok(a, kc_req(a, "guest", NULL));
	kc_ok(b, kc_req(b, "guest", NULL));
	kc_ok(far, kc_req(far, "guest", NULL));
	kc_ok(a, kc_req(a, "record", "{s:I, s:s}", "game", (json_int_t)game, "view", "white"));
	long long t0 = kt_now_ms();
	kc_ok(b, kc_req(b, "ping", NULL));
	long long rid = kc_req(b, "record", "{s:I, s:s}", "game", (json_int_t)game, "view", "black");
	json_t *r = kc_ok(far, kc_req(far, "record", "{s:I, s:s}", "game", (json_int_t)game, "view",
	                              "black"));
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	ck_assert_ptr_null(kc_next(b, 0));
	kc_ok(b, rid);
	long long waited = kt_now_ms() - t0;
	ck_assert_msg(waited >= KG_HOLD_MIN_MS, "b's record was answered after %lld ms", waited);
	ck_assert(!kc_saw(b, "rate_limited"));
	kc_close(a);
	kc_close(b);
	kc_close(far);
	kd_stop(d);
}
END_TEST

/* A live game's view is read from what its reader was told (audlist.h)
 * and costs its page, a hundred events or so here: an event costs a token
 * in the tests of such views, so that it still holds the next request for
 * KG_HOLD_MIN_MS. */
#define PAGE_HOLD_CONF "rate_limit = 50\nrate_burst = 10\nrate_rows = 1\n"

/* A request that waits for the commit of an action in its game (here a
 * player's `game` view) reads its page after its request has returned:
 * it is charged the same.  The database is locked while Black moves, so
 * the move's commit, and White's view with it, wait; once unlocked, the
 * view comes, and White's next request waits for the page's cost.  It
 * needs no replay, off the loop or on it. */
START_TEST(test_deferred_replay_cost_holds)
{
	const char *waits = "request waits for the turn's commit";   /* logged at debug */
	struct kd *d = kd_start(FAST_DEBUG_CONF);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t game = live_long_record(d, &w, &b);
	kd_reload(d, PAGE_HOLD_CONF "log_level = debug\n");
	int before = kd_log_count(d, waits), off = kd_log_count(d, OFF_LOOP);
	struct sqlite3 *lock = kd_lock_db(d);
	long long mv = kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e5");
	kc_no_event(b.c, "never");   /* the move was read and awaits its commit */
	long long view = kc_req(w.c, "game", "{s:I}", "game", (json_int_t)game);
	ck_assert_msg(kd_log_wait_count(d, waits, before, KC_TIMEOUT_MS),
	              "the view did not wait for the commit");
	kd_unlock_db(lock);
	kc_ok(b.c, mv);
	json_t *v = kc_ok(w.c, view);
	long long t0 = kt_now_ms();
	ck_assert_int_gt(json_array_size(json_object_get(v, "events")), 0);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), off);
	expect_usable(w.c);
	long long waited = kt_now_ms() - t0;
	ck_assert_msg(waited >= KG_HOLD_MIN_MS, "the ping was answered %lld ms after the view",
	              waited);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* s's `watch` of game while Black's move e5 awaits its commit (the
 * database locked): the watch is read and waits, replaying nothing yet
 * (no more than `off` hand-overs to the reader logged); then the commit
 * goes through, and the watch's answer is returned. */
static json_t *seat_while_busy(struct kd *d, struct kp *b, struct kp *s, int64_t game, int off)
{
	struct sqlite3 *lock = kd_lock_db(d);
	long long mv = kc_req(b->c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e5");
	kc_no_event(b->c, "never");   /* the move was read and awaits its commit */
	long long seat = kc_req(s->c, "watch", "{s:I}", "game", (json_int_t)game);
	kc_no_event(s->c, "never");   /* the watch was read and waits */
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), off);
	kd_unlock_db(lock);
	kc_ok(b->c, mv);
	return kc_ok(s->c, seat);
}

/*
 * The same for a seat: a spectator's `watch` of a game with an action
 * awaiting its commit waits for the commit (watch.c), then reads its page
 * of what the spectators were told (server/audlist.h) outside its
 * request, and is charged the same.  Before, what it read then was
 * charged to nobody: a spectator who asked while the game was busy
 * replayed a record for free.  Nothing goes to the reader thread, and the
 * page's cost holds the next request for KG_HOLD_MIN_MS.
 */
#define IN_PLACE_NOTES 1000
START_TEST(test_deferred_watch_cost_holds)
{
	struct kd *d = kd_start(FAST_DEBUG_CONF);
	struct kp w, b, s;
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t game = live_noted_record(d, &w, &b, IN_PLACE_NOTES);
	kp_guest(d, &s);
	kd_reload(d, PAGE_HOLD_CONF "log_level = debug\n");
	int off = kd_log_count(d, OFF_LOOP);
	json_t *v = seat_while_busy(d, &b, &s, game, off);
	long long t0 = kt_now_ms();
	ck_assert_int_gt(json_array_size(json_object_get(v, "events")), 0);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), off);   /* replayed in place */
	expect_usable(s.c);
	long long waited = kt_now_ms() - t0;
	ck_assert_msg(waited >= KG_HOLD_MIN_MS, "the ping was answered %lld ms after the seat",
	              waited);
	ck_assert(!kc_saw(s.c, "rate_limited"));
	kc_close(s.c);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* A seat asked for while its game has an action awaiting the commit waits
 * for it, then runs as in its request, and comes back with its page: a
 * live game's replay is kept at each commit, so it needs none before its
 * page, off the loop (it went to the reader thread before) or on it. */
START_TEST(test_waited_seat_needs_no_replay)
{
	struct kd *d = kd_start(FAST_DEBUG_CONF);
	struct kp w, b, s;
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t game = live_long_record(d, &w, &b);
	kp_guest(d, &s);
	int off = kd_log_count(d, OFF_LOOP);
	int replayed_on = kd_log_count(d, "cache replays on");
	json_t *v = seat_while_busy(d, &b, &s, game, off);
	ck_assert_int_gt(json_array_size(json_object_get(v, "events")), 0);
	ck_assert_int_gt(json_integer_value(json_object_get(v, "total")), KG_HOLD_NOTES / 2);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), off);
	ck_assert_int_eq(kd_log_count(d, "cache replays on"), replayed_on);
	expect_usable(s.c);
	kc_close(s.c);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * The first read of a long record is replayed on the reader thread
 * (server/reader.h), not on the loop ("replay goes to the reader", logged
 * at debug), once per text or set of marks: read again, it comes from the
 * cache.  Its connection waits meanwhile: a `pgn` and a ping sent after it
 * in one write are answered in that order.  A connection that closes while
 * its replay is out leaves it to fill the cache; the daemon serves on.
 */
START_TEST(test_replay_off_the_loop)
{
	struct kd *d = kd_start(FAST_DEBUG_CONF);
	int64_t game = kg_long_record(d, "ump", KG_HOLD_NOTES);
	/* A live game's replay is kept while it is played (announce.h): the
	 * cache is cold for a finished record after a restart. */
	kd_restart(d);
	struct kp g;
	kp_guest(d, &g);
	int before = kd_log_count(d, OFF_LOOP);
	char batch[512];
	int n = snprintf(batch, sizeof batch,
	                 "{\"id\":900,\"type\":\"pgn\",\"game\":%lld,\"view\":\"umpire\"}\n"
	                 "{\"id\":901,\"type\":\"ping\"}\n", (long long)game);
	ck_assert_int_eq(kc_write(g.c, batch, (size_t)n, KC_TIMEOUT_MS), 0);
	json_t *p = kc_next(g.c, KC_TIMEOUT_MS);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "id")), 900);
	ck_assert_msg(json_is_true(json_object_get(p, "ok")), "%s", kc_line(g.c, kc_nlines(g.c) - 1));
	const char *chunk = json_string_value(json_object_get(p, "pgn"));
	ck_assert_ptr_nonnull(chunk);
	ck_assert_ptr_nonnull(json_object_get(p, "next"));   /* a long text: several chunks */
	char first[64];
	snprintf(first, sizeof first, "%s", chunk);
	json_t *q = kc_next(g.c, KC_TIMEOUT_MS);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(json_integer_value(json_object_get(q, "id")), 901);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), before + 1);
	/* Read whole: the same text, from the cache. */
	char code[32];
	char *text = kg_fetch_pgn(g.c, game, "umpire", code, sizeof code);
	ck_assert_msg(text != NULL, "pgn refused: %s", code);
	ck_assert(strncmp(text, first, strlen(first)) == 0);
	ck_assert(strstr(text, "note public n1199") != NULL);
	free(text);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), before + 1);
	/* The record's pages: its marks made off the loop once, for every view. */
	json_t *r = kc_ok(g.c, kc_req(g.c, "record", "{s:I, s:s}", "game", (json_int_t)game, "view",
	                              "black"));
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), before + 2);
	r = kc_ok(g.c, kc_req(g.c, "record", "{s:I, s:s, s:I}", "game", (json_int_t)game, "view",
	                      "white", "from", (json_int_t)500));
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), before + 2);
	/* A reader gone before its replay is done. */
	struct kp gone;
	kp_guest(d, &gone);
	kc_req(gone.c, "pgn", "{s:I, s:s}", "game", (json_int_t)game, "view", "white");
	ck_assert_msg(kd_log_wait_count(d, OFF_LOOP, before + 2, KC_TIMEOUT_MS),
	              "the pgn did not go to the reader");
	kc_close(gone.c);
	text = kg_fetch_pgn(g.c, game, "white", code, sizeof code);
	ck_assert_msg(text != NULL, "pgn refused: %s", code);
	ck_assert(strncmp(text, "[Event ", 7) == 0);
	free(text);
	expect_usable(g.c);
	kc_close(g.c);
	kd_stop(d);
}
END_TEST

/* A player's `game` view of a live game with a long record, and an
 * umpire's seat at it after a restart, need no replay before their page:
 * the player's is read from what they were told (audlist.h), the
 * umpire's from the replay kept at each commit and made again when the
 * game is recovered (announce.h), so nothing goes to the reader thread and
 * the cache replays on over nothing (before, each went to the reader once,
 * its cost telling a player how many actions they had not heard). */
START_TEST(test_live_views_need_no_replay)
{
	struct kd *d = kd_start(FAST_DEBUG_CONF);
	struct kp w, b, u;
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t game = live_long_record(d, &w, &b);
	int before = kd_log_count(d, OFF_LOOP);
	int replayed_on = kd_log_count(d, "cache replays on");
	json_t *r = kc_ok(w.c, kc_req(w.c, "game", "{s:I}", "game", (json_int_t)game));
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	ck_assert_int_gt(json_integer_value(json_object_get(r, "total")), KG_HOLD_NOTES / 2);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), before);
	r = kc_ok(w.c, kc_req(w.c, "game", "{s:I, s:I}", "game", (json_int_t)game, "from",
	                      (json_int_t)500));
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), before);
	ck_assert_int_eq(kd_log_count(d, "cache replays on"), replayed_on);
	kc_close(w.c);
	kc_close(b.c);
	kd_restart(d);
	kp_login(d, &u, "ump", "sesame-open");
	before = kd_log_count(d, OFF_LOOP);
	replayed_on = kd_log_count(d, "cache replays on");
	r = kc_ok(u.c, kc_req(u.c, "umpire", "{s:I}", "game", (json_int_t)game));
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	ck_assert_int_eq(kd_log_count(d, OFF_LOOP), before);
	ck_assert_int_eq(kd_log_count(d, "cache replays on"), replayed_on);
	kc_close(u.c);
	kd_stop(d);
}
END_TEST

/* Logged at debug when a login's game_state goes to the reader thread. */
#define STATE_OFF_LOOP "state goes to the reader"

/* A new connection resuming p's session, a ping (id 101) sent behind
 * the resume (id 100) in the same write. */
static struct kc *resume_with_ping(struct kd *d, const struct kp *p)
{
	struct kc *c = kc_hello(d);
	char batch[512];
	int n = snprintf(batch, sizeof batch,
	                 "{\"id\":100,\"type\":\"resume\",\"token\":\"%s\"}\n"
	                 "{\"id\":101,\"type\":\"ping\"}\n", p->token);
	ck_assert_int_eq(kc_write(c, batch, (size_t)n, KC_TIMEOUT_MS), 0);
	return c;
}

/* How many events named `name` a list of events holds. */
static int count_named(json_t *events, const char *name)
{
	int n = 0;
	size_t i;
	json_t *e;
	json_array_foreach(events, i, e)
		n += strcmp(json_string_value(json_object_get(e, "event")), name) == 0;
	return n;
}

/*
 * A login's (here a resume's) game_state of a live game whose player was
 * told many events is built on the reader thread (server/game_view.c),
 * from a copy of what they were told (server/audlist.h), once, and
 * keeps its place in the connection's output: a ping sent in the same
 * write as the resume is answered after the whole state (the game_state
 * and every game_events page), whose events are the player's view, the
 * same as the `game` request's pages.  The opponent moves right after the
 * resume is sent: the move reaches the player once, in the state or after
 * it, never in both (the state is the list as it stood at the login).
 */
START_TEST(test_login_state_off_the_loop)
{
	struct kd *d = kd_start(FAST_DEBUG_CONF);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t game = live_noted_record(d, &w, &b, TOLD_LONG_NOTES);
	json_t *want = kg_fetch_events(w.c, "game", game, NULL, NULL, 0);
	ck_assert_int_eq(count_named(want, "moved"), 0);
	int before = kd_log_count(d, STATE_OFF_LOOP);
	struct kc *c = resume_with_ping(d, &w);
	kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e5"));
	kc_ok(c, 100);
	kc_ok(c, 101);
	kc_ok(c, kc_req(c, "games", NULL));   /* the move's events went out before it */
	ck_assert_int_eq(kd_log_count(d, STATE_OFF_LOOP), before + 1);

	/* The lines c received, in order: the state's events gathered, the
	 * ping's answer after the state's last page, the move once. */
	json_t *got = json_array();
	size_t state_at = 0, last_page = 0, pong = 0;
	int moved_live = 0;
	for (size_t i = 0; i < kc_nlines(c); i++) {
		json_t *m = json_loads(kc_line(c, i), 0, NULL);
		ck_assert_ptr_nonnull(m);
		const char *ev = json_string_value(json_object_get(m, "event"));
		json_t *id = json_object_get(m, "id");
		bool state = ev && strcmp(ev, "game_state") == 0;
		if (state || (ev && strcmp(ev, "game_events") == 0)) {
			ck_assert_int_eq(json_integer_value(json_object_get(m, "game")), game);
			ck_assert_int_eq(json_array_size(got),
			                 state ? 0 : json_integer_value(json_object_get(m, "from")));
			json_array_extend(got, json_object_get(m, "events"));
			if (state)
				state_at = i;
			last_page = i;
		} else if (ev && strcmp(ev, "moved") == 0) {
			ck_assert_uint_gt(i, last_page);
			moved_live++;
		} else if (json_integer_value(id) == 101) {
			pong = i;
		}
		json_decref(m);
	}
	ck_assert_uint_gt(state_at, 0);
	ck_assert_msg(pong > last_page, "the ping was answered at line %zu, the state ended at %zu",
	              pong, last_page);
	int moved_state = count_named(got, "moved");
	ck_assert_msg(moved_state + moved_live == 1, "the move reached the player %d + %d times",
	              moved_state, moved_live);
	/* The state is the view as it stood: the move's events after it only
	 * if the move came first. */
	ck_assert_uint_ge(json_array_size(got), json_array_size(want));
	if (moved_state == 0)
		ck_assert_uint_eq(json_array_size(got), json_array_size(want));
	while (json_array_size(got) > json_array_size(want))
		json_array_remove(got, json_array_size(got) - 1);
	ck_assert_msg(json_equal(got, want), "the state's %zu events are not the view's %zu",
	              json_array_size(got), json_array_size(want));
	json_decref(got);
	json_decref(want);
	kc_close(c);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * Shorter records do not add up on the loop: a player with two live games
 * of 600 notes each (neither over READER_REPLAY_MIN actions alone, both
 * together) gets each state built in place, each in a pass of its own (a
 * lazy gate is filled once the client has read what went before it:
 * conn.h), both whole and before the answer to a ping sent behind the
 * resume.  (Before the lazy gates, every state was made at the login, in
 * one pass, and the second of these went to the reader thread.)
 */
START_TEST(test_login_states_add_up)
{
	struct kd *d = kd_start(FAST_DEBUG_CONF);
	struct kp w, b, u;
	kp_guest(d, &w);
	kp_guest(d, &b);
	kg_user_add(d, "ump", "umpire", "sesame-open");
	kp_login(d, &u, "ump", "sesame-open");
	int64_t games[2];
	json_int_t totals[2];
	for (int i = 0; i < 2; i++) {
		games[i] = kg_noted_game(d, &w, &b, &u, 600);
		json_t *r = kc_ok(w.c, kc_req(w.c, "game", "{s:I}", "game", (json_int_t)games[i]));
		totals[i] = json_integer_value(json_object_get(r, "total"));
		ck_assert_int_gt(totals[i], 300);
	}
	kc_close(u.c);
	int before = kd_log_count(d, STATE_OFF_LOOP);
	int in_place = kd_log_count(d, "state made lines");
	struct kc *c = resume_with_ping(d, &w);
	kc_ok(c, 101);
	ck_assert_int_eq(kd_log_count(d, STATE_OFF_LOOP), before);
	ck_assert_int_eq(kd_log_count(d, "state made lines"), in_place + 2);
	/* Every event of both states came before the ping's answer. */
	json_int_t got[2] = { 0, 0 };
	for (size_t i = 0; i < kc_nlines(c); i++) {
		json_t *m = json_loads(kc_line(c, i), 0, NULL);
		const char *ev = json_string_value(json_object_get(m, "event"));
		json_int_t game = json_integer_value(json_object_get(m, "game"));
		if (ev && (strcmp(ev, "game_state") == 0 || strcmp(ev, "game_events") == 0))
			for (int k = 0; k < 2; k++)
				if (game == games[k])
					got[k] += (json_int_t)json_array_size(json_object_get(m, "events"));
		json_decref(m);
	}
	for (int k = 0; k < 2; k++)
		ck_assert_msg(got[k] == totals[k], "game %d: %lld of %lld events before the ping", k,
		              (long long)got[k], (long long)totals[k]);
	kc_close(c);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * A reader who closes before its replay is done still pays for it: the
 * rows are charged to the connection and its address when the replay
 * goes to the reader thread, not when it comes back (then there is no
 * connection left to charge).  gone asks for the long record's PGN and
 * closes at once; another connection from the same address then waits
 * for that debt before its own replay is answered.
 */
START_TEST(test_offloaded_replay_paid_on_close)
{
	int64_t game;
	struct kd *d = start_long_record(&game);
	kd_reload(d, KG_HOLD_CONF "log_level = debug\n");
	struct kp gone, b;
	kp_guest(d, &gone);
	kp_guest(d, &b);
	int before = kd_log_count(d, OFF_LOOP);
	/* Closed right behind its request: gone is torn down long before a
	 * replay of over a thousand actions comes back from the thread. */
	kc_req(gone.c, "pgn", "{s:I, s:s}", "game", (json_int_t)game, "view", "umpire");
	kc_close(gone.c);
	ck_assert_msg(kd_log_wait_count(d, OFF_LOOP, before, KC_TIMEOUT_MS),
	              "the pgn did not go to the reader");
	long long t0 = kt_now_ms();
	json_t *r = kc_ok(b.c, kc_req(b.c, "record", "{s:I, s:s}", "game", (json_int_t)game, "view",
	                              "white"));
	ck_assert_int_gt(json_array_size(json_object_get(r, "events")), 0);
	long long waited = kt_now_ms() - t0;
	ck_assert_msg(waited >= KG_HOLD_MIN_MS, "b's record was answered after %lld ms", waited);
	ck_assert(!kc_saw(b.c, "rate_limited"));
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(test_slow_reader_dropped)
{
	struct kd *d = kd_start("output_buffer_max = 64k\nrate_limit = 1000000\n"
	                        "rate_burst = 1000000\n");
	struct kc *slow = kc_open_rcvbuf(d, 4096);
	char line[256], batch[256 * 64];
	size_t blen = 0;
	long rss0 = kd_rss_kb(d);

	/* Requests whose replies are bigger than themselves; never read. */
	snprintf(line, sizeof line,
	         "{\"id\":\"%064d\",\"type\":\"no_such_request_type_padding_xx\"}\n", 7);
	for (int i = 0; i < 64; i++) {
		memcpy(batch + blen, line, strlen(line));
		blen += strlen(line);
	}
	size_t sent = 0;
	while (sent < 32u * 1024 * 1024) {
		if (kc_write(slow, batch, blen, 2000) != 0)
			break;
		sent += blen;
		if (sent % (512 * 1024) < blen && kd_log_count(d, "slow reader") > 0)
			break;
	}
	ck_assert_msg(kd_log_wait(d, "reason=\"output buffer over cap (slow reader)\"", 10000),
	              "a client that never reads was not dropped after %zu bytes", sent);
	long rss1 = kd_rss_kb(d);
	if (rss0 > 0 && rss1 > 0)
		ck_assert_msg(rss1 - rss0 < 64 * 1024, "RSS grew from %ld to %ld KiB", rss0, rss1);
	kc_close(slow);

	ck_assert(kd_alive(d));
	struct kc *c = kc_hello(d);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/*
 * Regression (hostile-input probe): what the kernel holds for a client
 * that does not read comes on top of output_buffer_max, and left to
 * autotuning the server's send buffer grew to hold 1.4-2.7 MB of a silent
 * lobby watcher's events, past the cap many times over, before the cap
 * was even reached.  kriegd fixes its send buffer (server/listener.h):
 * the watcher is dropped, having been sent the cap, the two sockets'
 * buffers and no more.  Another client's seeks, made and cancelled, are
 * what it is told.
 */
START_TEST(test_silent_reader_bounded)
{
	struct kd *d = kd_start("output_buffer_max = 64k\nrate_limit = 1000000\nrate_burst = 1000000\n"
	                        "guests_per_address = 0\n");
	struct kc *silent = kc_hello(d), *busy = kc_hello(d);
	kc_ok(silent, kc_req(silent, "guest", NULL));
	kc_ok(silent, kc_req(silent, "lobby_watch", NULL));
	kc_ok(busy, kc_req(busy, "guest", NULL));
	for (int round = 0; round < 1000 && kd_log_count(d, "slow reader") == 0; round++) {
		long long ids[15];   /* a user's open offers: 16 at most */
		for (int k = 0; k < 15; k++)
			ids[k] = kc_req(busy, "seek", "{s:s}", "rules", "icc");
		for (int k = 0; k < 15; k++) {
			json_int_t offer = json_integer_value(json_object_get(kc_ok(busy, ids[k]), "offer"));
			ids[k] = kc_req(busy, "cancel", "{s:I}", "offer", offer);
		}
		for (int k = 0; k < 15; k++)
			kc_ok(busy, ids[k]);
	}
	ck_assert_msg(kd_log_wait(d, "reason=\"output buffer over cap (slow reader)\"", 10000),
	              "the watcher that never reads was not dropped");
	ck_assert(kc_closed(silent, KC_TIMEOUT_MS));
	size_t got = 0;
	for (size_t i = 0; i < kc_nlines(silent); i++)
		got += strlen(kc_line(silent, i)) + 1;
	ck_assert_msg(got < 64 * 1024 + 512 * 1024, "a reader that never read was sent %zu bytes", got);
	kc_close(silent);
	kc_close(busy);
	kd_stop(d);
}
END_TEST

START_TEST(test_stop_with_clients)
{
	struct kd *d = kd_start(NULL);
	struct kc *a = kc_hello(d);
	struct kc *b = kc_connect(d);
	int raw = kd_tcp(d);   /* mid-handshake */

	kd_stop(d);   /* asserts exit 0 and a clean sanitizer log */
	ck_assert(kc_closed(a, KC_TIMEOUT_MS));
	ck_assert(kc_closed(b, KC_TIMEOUT_MS));
	close(raw);
	kc_close(a);
	kc_close(b);
}
END_TEST

START_TEST(test_restart_reuses_certificate)
{
	struct kd *d = kd_start(NULL);
	char *log;

	kd_restart(d);
	log = kd_log(d);
	/* Generated once, loaded twice. */
	int generated = 0;
	for (const char *p = log; (p = strstr(p, "generating a self-signed")) != NULL; p++)
		generated++;
	ck_assert_int_eq(generated, 1);
	free(log);
	ck_assert_int_eq(kd_log_count(d, " sha256="), 2);
	struct kc *c = kc_hello(d);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST


/* The lowest descriptor number pid has free: RLIMIT_NOFILE bounds the
 * numbers, not the count (under valgrind the tool's own descriptors sit
 * near the top of the range, far above the daemon's). */
static int lowest_free_fd(pid_t pid)
{
	char path[64];
	static bool open_fd[4096];

	memset(open_fd, 0, sizeof open_fd);
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *dir = opendir(path);
	if (dir == NULL)
		return -1;
	for (struct dirent *e; (e = readdir(dir)) != NULL;) {
		long n = e->d_name[0] != '.' ? strtol(e->d_name, NULL, 10) : -1;
		if (n >= 0 && n < (long)(sizeof open_fd / sizeof open_fd[0]))
			open_fd[n] = true;
	}
	closedir(dir);
	int n = 0;
	while (n < (int)(sizeof open_fd / sizeof open_fd[0]) && open_fd[n])
		n++;
	return n;
}

/* Regression: past the refusals it can answer, each refused connection
 * was a warning of its own (1,051 lines in a second from one address).
 * One line an interval now, as the login warnings. */
START_TEST(test_refusal_storm_logged_once)
{
	struct kd *d = kd_start("max_connections_per_ip = 2\nhandshake_timeout = 20s\n"
	                        "log_repeat_interval = 1h\n");
	enum { N = 2 + CONN_REFUSE_EXTRA + 40 };
	int fds[N];
	/* TCP only, no TLS: each holds its slot, or its refusal, for the handshake. */
	for (int i = 0; i < N; i++)
		fds[i] = kd_tcp(d);
	ck_assert(kd_log_wait(d, "no room to say so", KC_TIMEOUT_MS));
	struct kc *c = kc_hello_from(d, "127.0.0.9");   /* another address is served */
	expect_usable(c);
	kc_close(c);
	ck_assert_int_eq(kd_log_count(d, "no room to say so"), 1);
	for (int i = 0; i < N; i++)
		close(fds[i]);
	kd_stop(d);
}
END_TEST

/* The server's end of kc's connection in /proc/net/tcp: its timer's kind
 * (0 none, 1 retransmit, 2 keep-alive, 4 zero-window probe) and when it is
 * due, in clock ticks; false if not found. */
static bool server_timer(struct kd *d, struct kc *c, int *kind, long *when)
{
	struct sockaddr_in me;
	socklen_t len = sizeof me;
	ck_assert_int_eq(getsockname(kc_fd(c), (struct sockaddr *)&me, &len), 0);
	FILE *f = fopen("/proc/net/tcp", "r");
	ck_assert_ptr_nonnull(f);
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned la, lp, ra, rp, st, tr;
		unsigned long tm;
		if (sscanf(line, " %*d: %8X:%4X %8X:%4X %2X %*8X:%*8X %2X:%8lX", &la, &lp, &ra, &rp, &st,
		           &tr, &tm) == 7 &&
		    lp == (unsigned)kd_port(d) && rp == ntohs(me.sin_port) && st == 1 /* ESTABLISHED */) {
			*kind = (int)tr;
			*when = (long)tm;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/*
 * Regression: a peer whose path died without a FIN or a RST (a phone off
 * its network) kept its seat as connected for the whole idle_timeout, and
 * its opponent heard nothing for five minutes (a probe through a relay
 * that stopped forwarding).  The server's end of an idle connection now
 * runs TCP's keep-alive timer due within LISTENER_KEEPIDLE_S (before: the
 * system's default, two hours; libevent's listener turns keep-alive on).
 */
START_TEST(test_dead_path_probed)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "ping", NULL));
	long tick = sysconf(_SC_CLK_TCK), when = -1;
	int kind = -1;
	for (int i = 0; i < 100; i++) {   /* until what the ping sent is acknowledged */
		ck_assert_msg(server_timer(d, c, &kind, &when), "the server's socket not in /proc/net/tcp");
		if (kind == 2)
			break;
		kt_sleep_ms(20);
	}
	ck_assert_msg(kind == 2, "no keep-alive timer on the server's end of an idle connection (timer %d)",
	              kind);
	ck_assert_msg(when > 0 && when <= (long)LISTENER_KEEPIDLE_S * tick,
	              "the keep-alive probe is due in %ld ticks, more than %d s", when, LISTENER_KEEPIDLE_S);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/*
 * One address's connections are logged up to its log budget
 * (CONN_LOG_BURST at once, CONN_LOG_PER_SEC after), the rest counted and
 * said with the next one logged.  Regression: a loop of connections from
 * one address, each a bad TLS hello, wrote three lines each (accepted,
 * handshake failed, closed), 2 MB of log a second (a probe).  Another
 * address is logged as ever, and a failed login always (fail2ban).
 */
START_TEST(test_connection_flood_log_bounded)
{
	struct kd *d = kd_start(NULL);
	enum { N = 200 };
	long long t0 = kt_now_ms();
	for (int i = 0; i < N; i++) {
		int fd = kd_tcp_from(d, "127.0.0.9");
		ck_assert_int_eq(write(fd, "x\n", 2), 2);   /* not a TLS hello */
		close(fd);
	}
	/* accepted in order: this one's greeting comes after all of those */
	struct kc *other = kc_hello_from(d, "127.0.0.10");
	long long secs = (kt_now_ms() - t0) / 1000 + 1;
	ck_assert(kd_log_wait(d, "accepted peer=127.0.0.10:", KC_TIMEOUT_MS));
	int logged = kd_log_count(d, "accepted peer=127.0.0.9:");
	ck_assert_msg(logged >= CONN_LOG_BURST && logged <= CONN_LOG_BURST + secs * CONN_LOG_PER_SEC,
	              "%d of %d connections logged in %lld s", logged, N, secs);
	ck_assert_int_le(kd_log_count(d, "tls handshake failed"), logged);
	/* a second on, the next is logged, saying what was left out */
	kt_sleep_ms(1100);
	close(kd_tcp_from(d, "127.0.0.9"));
	ck_assert(kd_log_wait(d, "before it from this address not logged", KC_TIMEOUT_MS));
	/* a connection over the budget: its failed login is logged all the same */
	struct kc *g = kc_hello_from(d, "127.0.0.9");
	kc_error(g, kc_req(g, "login", "{s:s, s:s}", "user", "nobody", "password", "wrong guess"),
	         "auth_failed");
	ck_assert(kd_log_wait(d, "login failed addr=127.0.0.9 ", KC_TIMEOUT_MS));
	expect_usable(other);
	kc_close(other);
	kc_close(g);
	/* another flood, and nothing from anywhere after it: its count is said
	 * at the end all the same (it was said only when a later connection
	 * forgot the address's record) */
	for (int i = 0; i < 60; i++) {
		int fd = kd_tcp_from(d, "127.0.0.11");
		ck_assert_int_eq(write(fd, "x\n", 2), 2);
		close(fd);
	}
	other = kc_hello_from(d, "127.0.0.12");   /* greeted after all of those were accepted */
	kc_close(other);
	kd_down(d);
	char *log = kd_log(d);
	ck_assert_ptr_nonnull(log);
	ck_assert_msg(strstr(log, "addr=127.0.0.11 ") && strstr(strstr(log, "addr=127.0.0.11 "), " not logged"),
	              "the flood's count never said:\n%s", log + (strlen(log) > 3000 ? strlen(log) - 3000 : 0));
	free(log);
	kd_up(d);
	kd_stop(d);
}
END_TEST

/* Out of file descriptors, the daemon pauses accepting instead of spinning,
 * and serves again once descriptors are free. */
START_TEST(test_emfile_pause)
{
	struct kd *d = kd_start("accept_pause = 200ms\n");
	int fds[8];
	int used = lowest_free_fd(kd_pid(d));

	ck_assert_int_gt(used, 0);
	/* Lower the soft limit only, so it can be raised back unprivileged. */
	struct rlimit old, rl;
	ck_assert_int_eq(prlimit(kd_pid(d), RLIMIT_NOFILE, NULL, &old), 0);
	rl.rlim_cur = (rlim_t)used + 2;
	rl.rlim_max = old.rlim_max;
	ck_assert_int_eq(prlimit(kd_pid(d), RLIMIT_NOFILE, &rl, NULL), 0);
	for (int i = 0; i < 8; i++)
		fds[i] = kd_tcp(d);
	ck_assert_msg(kd_log_wait(d, "pausing for 200ms", KC_TIMEOUT_MS),
	              "no accept pause with descriptors limited to %d", used + 2);
	for (int i = 0; i < 8; i++)
		close(fds[i]);
	ck_assert_msg(prlimit(kd_pid(d), RLIMIT_NOFILE, &old, NULL) == 0, "prlimit: %s",
	              strerror(errno));
	ck_assert(kd_log_wait(d, "accepting again", KC_TIMEOUT_MS));
	struct kc *c = kc_hello(d);
	expect_usable(c);
	kc_close(c);
	kd_stop(d);
}
END_TEST

static Suite *transport_suite(void)
{
	Suite *s = suite_create("transport");
	TCase *tc = tcase_create("transport");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_greeting_hello_ping);
	tcase_add_test(tc, test_version_mismatch);
	tcase_add_test(tc, test_request_before_hello);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_log_escaping);
	tcase_add_test(tc, test_line_limit_boundary);
	tcase_add_test(tc, test_line_too_long_1mib);
	tcase_add_test(tc, test_close_answers_what_it_took);
	tcase_add_test(tc, test_close_runs_nothing_more);
	tcase_add_test(tc, test_silent_reader_bounded);
	tcase_add_test(tc, test_blank_lines_with_cr);
	tcase_add_test(tc, test_plaintext_refused);
	tcase_add_test(tc, test_alpn_refused_on_line_port);
	tcase_add_test(tc, test_http_request_on_line_port);
	tcase_add_test(tc, test_tls12_cipher_suites);
	tcase_add_test(tc, test_ticket_key_rotated);
	tcase_add_test(tc, test_handshake_timeout);
	tcase_add_test(tc, test_refusal_storm_logged_once);
	tcase_add_test(tc, test_connection_flood_log_bounded);
	tcase_add_test(tc, test_dead_path_probed);
	tcase_add_test(tc, test_idle_timeout);
	tcase_add_test(tc, test_max_connections);
	tcase_add_test(tc, test_full_evicts_unfinished_handshakes);
	tcase_add_test(tc, test_handshakes_per_address);
	tcase_add_test(tc, test_rate_limit);
	tcase_add_test(tc, test_rate_limit_blank_lines);
	tcase_add_test(tc, test_page_waits_for_token);
	tcase_add_test(tc, test_replay_cost_holds);
	tcase_add_test(tc, test_login_replay_cost_holds);
	tcase_add_test(tc, test_replay_budget_per_address);
	tcase_add_test(tc, test_deferred_replay_cost_holds);
	tcase_add_test(tc, test_deferred_watch_cost_holds);
	tcase_add_test(tc, test_waited_seat_needs_no_replay);
	tcase_add_test(tc, test_replay_off_the_loop);
	tcase_add_test(tc, test_live_views_need_no_replay);
	tcase_add_test(tc, test_login_state_off_the_loop);
	tcase_add_test(tc, test_login_states_add_up);
	tcase_add_test(tc, test_offloaded_replay_paid_on_close);
	tcase_add_test(tc, test_slow_reader_dropped);
	tcase_add_test(tc, test_emfile_pause);
	tcase_add_test(tc, test_stop_with_clients);
	tcase_add_test(tc, test_restart_reuses_certificate);
	tcase_add_test(tc, test_queue_bounded);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(transport_suite)
