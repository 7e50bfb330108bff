/*
 * harness.h — integration tests against a real kriegd.
 *
 * kd_* runs the daemon: bin/kriegd (path from $KRIEGD, set by `make
 * integration`; else build/asan/bin/kriegd, else bin/kriegd) on
 * 127.0.0.1:0 with a fresh temporary state directory and optional extra
 * config lines; its stderr goes to a file the test can search.  kd_stop()
 * asserts a clean exit (status 0, no sanitizer report in the log).
 *
 * kc_* is a TLS client (OpenSSL, non-blocking + poll) that verifies the
 * daemon's generated certificate.  Every wait has a timeout (KC_TIMEOUT_MS
 * unless given), so a test fails instead of hanging.  Every line received
 * is kept, in order: kc_next/kc_response/kc_event take lines out of that
 * queue (skipping, not dropping, the others), and kc_saw()/kc_line() look
 * at all of them afterwards, e.g. to assert a player never received
 * something.  Returned json_t pointers are borrowed: valid until
 * kc_close().  Helpers that "assert" fail the current Check test.
 *
 * A typical test:
 *
 *     struct kd *d = kd_start("idle_timeout = 2s\n");
 *     struct kc *a = kc_hello(d);                      // TLS, greeting, hello
 *     long long id = kc_req(a, "register", "{s:s, s:s}", "user", "alice",
 *                           "password", "correct horse");
 *     json_t *r = kc_ok(a, id);                        // asserts "ok": true
 *     id = kc_req(a, "seek", NULL);                    // no fields
 *     kc_error(a, id, "bad_request");                  // asserts the code
 *     json_t *ev = kc_event(a, "game_start");          // waits for it
 *     ck_assert(!kc_saw(a, "\"e7e5\""));               // leak check
 *     kc_close(a);
 *     kd_stop(d);
 */
#ifndef KRIEG_HARNESS_H
#define KRIEG_HARNESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Every wait is stretched by $KRIEG_TIMEOUT_SCALE (a whole number, default
 * 1): `make memcheck` sets it, since kriegd under valgrind runs 20-50 times
 * slower.  Explicit shorter timeouts given to the kd_/kc_ waits are scaled
 * too, up to KC_TIMEOUT_MS. */
int kt_timeout_scale(void);
#define KC_TIMEOUT_MS (10000 * kt_timeout_scale())      /* default wait for one line */
#define KD_START_TIMEOUT_MS (30000 * kt_timeout_scale())
#define KC_NULL_ID (-0x7fffffffffffffffLL - 1)   /* "id": null in kc_response/kc_error */

struct kd;
struct kc;

/* ---- the daemon ---- */

/* What every test's config starts with: the per-address defences against
 * abuse (server/guard.h) off, since every client is 127.0.0.1 (a test of
 * them sets its own values after these); and scrypt at the lowest cost
 * kriegd takes (kdf.h's KDF_LN_MIN: 1 MiB and about 1 ms a hash, against
 * 32 MiB and 170 ms at the default 15, paid at every daemon's start and
 * every registration and login): the suites' hashing was a third of their
 * CPU.  test_accounts' password_cost tests run at other costs. */
#define KD_PASSWORD_COST "10"
/* For a test whose point needs hashing to take its time (a queue that
 * fills, a login still being hashed while something changes): the
 * default cost, after KD_BASE_CONFIG's. */
#define KD_SLOW_HASH "password_cost = 15\n"
/* idle_timeout: the harness's clients answer no ping, and a test's connection
 * may stand quiet for long under valgrind (make memcheck); the default (60 s)
 * is the service's and the browser's tests' own. */
#define KD_BASE_CONFIG "register_per_hour = 0\nguests_per_address = 0\ngames_per_hour = 0\n" \
	"idle_timeout = 5m\n" \
	"login_free_failures = 1000\nlogin_failure_delay = 0\nhash_queue_per_address = 1000\n" \
	"password_cost = " KD_PASSWORD_COST "\n"

/* Start kriegd; config: extra "key = value\n" lines, or NULL.  Asserts it
 * came up.  Values that make tests fast: "idle_timeout = 1s",
 * "handshake_timeout = 300ms", "max_connections = 2", "rate_limit = 1000". */
struct kd *kd_start(const char *config);
/* SIGTERM, wait, assert exit status 0 and no sanitizer report; remove the
 * state directory; free d. */
void kd_stop(struct kd *d);
/* Stop as kd_stop() but keep the state directory, and start again on it
 * (same config, a new port): recovery tests. */
void kd_restart(struct kd *d);
/* SIGKILL, no checks, state kept; then kd_start again on it (crash recovery). */
void kd_crash_restart(struct kd *d);
/* kd_restart in two halves, to change the state directory in between
 * (restore tests): kd_down stops as kd_stop() but keeps the state and d;
 * kd_up starts the daemon again on it. */
void kd_down(struct kd *d);
void kd_up(struct kd *d);

/* Add config lines (they win over earlier ones) and SIGHUP: the running
 * daemon takes them, as `systemctl reload` would; returns once it has. */
void kd_reload(struct kd *d, const char *config);

int kd_port(const struct kd *d);
pid_t kd_pid(const struct kd *d);
const char *kd_state_dir(const struct kd *d);
/* The daemon's config file (kd_start's lines), or NULL when it has none. */
const char *kd_config_path(const struct kd *d);
/* Another process takes the database's write lock and keeps it (a storage
 * fault the daemon must survive); kd_unlock_db releases it. */
struct sqlite3;
struct sqlite3 *kd_lock_db(const struct kd *d);
void kd_unlock_db(struct sqlite3 *db);
/* The integer the daemon stored in server_state under name, read beside
 * it (a reader: nothing is locked); -1 if it has none. */
long long kd_stored_state(const struct kd *d, const char *name);
bool kd_alive(struct kd *d);
/* Resident memory of the daemon in KiB (from /proc), -1 if unknown. */
long kd_rss_kb(const struct kd *d);
/* Everything the daemon wrote to stderr so far (all runs); free() it. */
char *kd_log(const struct kd *d);
/* Wait until the log contains needle; false on timeout. */
bool kd_log_wait(const struct kd *d, const char *needle, int timeout_ms);
/* Occurrences of needle in the log. */
int kd_log_count(const struct kd *d, const char *needle);
/* The number after the last occurrence of key ("through=") in the log;
 * -1 if none. */
int kd_log_last_int(const struct kd *d, const char *key);
/* Wait until needle occurs more than `than` times in the log; false on
 * timeout. */
bool kd_log_wait_count(const struct kd *d, const char *needle, int than, int timeout_ms);

/* ---- clients ---- */

/* TCP connect and TLS handshake (certificate verified), nothing read. */
struct kc *kc_open(struct kd *d);
/* As kc_open, with SO_RCVBUF set before connecting (slow-reader tests). */
struct kc *kc_open_rcvbuf(struct kd *d, int rcvbuf);
/* kc_open, then assert the greeting event (kept: kc_greeting()). */
struct kc *kc_connect(struct kd *d);
/* kc_connect, then hello with PROTO_VERSION, asserting ok. */
struct kc *kc_hello(struct kd *d);
/* kc_hello from another loopback source address ("127.0.0.2"): tests of
 * per-address limits. */
struct kc *kc_hello_from(struct kd *d, const char *from);
/* A plain TCP socket to the daemon (no TLS), blocking; close() it. */
int kd_tcp(struct kd *d);
/* The client's socket (its address, its TCP state; not for reading or writing). */
int kc_fd(const struct kc *c);
/* The same from another loopback address (127.0.0.N: kc_hello_from). */
int kd_tcp_from(struct kd *d, const char *from);
void kc_close(struct kc *c);

json_t *kc_greeting(struct kc *c);

/* Send one line (a '\n' is appended unless present); asserts success. */
void kc_send(struct kc *c, const char *line);
/* Raw bytes; returns 0, or -1 on error/timeout (no assert): flood tests. */
int kc_write(struct kc *c, const void *buf, size_t len, int timeout_ms);
/* Send {"id": N, "type": type, ...fields} where fields come from
 * json_pack(fmt, ...) (an object format like "{s:i}"), fmt NULL for none.
 * Ids count 1, 2, 3 ... per client.  Returns N. */
long long kc_req(struct kc *c, const char *type, const char *fmt, ...);

/* The next line not yet taken, any kind; NULL on timeout or EOF. */
json_t *kc_next(struct kc *c, int timeout_ms);
/* The next response with this id (KC_NULL_ID: "id": null); asserts it comes. */
json_t *kc_response(struct kc *c, long long id);
/* kc_response + assert "ok": true. */
json_t *kc_ok(struct kc *c, long long id);
/* kc_response + assert "ok": false with error.code == code. */
json_t *kc_error(struct kc *c, long long id, const char *code);
/* kc_req + kc_response. */
json_t *kc_call(struct kc *c, const char *type, const char *fmt, ...);
/* The next event named name (taken); asserts it comes within KC_TIMEOUT_MS. */
json_t *kc_event(struct kc *c, const char *name);
/* Same, but NULL if none comes within timeout_ms.  Not for asserting
 * absence (a slow server passes any timeout): use kc_no_event. */
json_t *kc_event_maybe(struct kc *c, const char *name, int timeout_ms);

/*
 * Absence by a barrier, not a timeout: assert that no event `name` (not
 * yet taken) reached c, where the event would be caused by an action
 * whose answer the test already holds (another connection's request, or
 * one of c's own).
 *
 * kc_no_event sends a `ping` on c and checks every line that arrived
 * before its answer.  Why that is enough: kriegd runs one event loop, and
 * a request's handler queues what it sends (to any connection) on that
 * connection's output before it returns, its own answer last; c's ping is
 * read after the test held that answer, so it is handled later, and its
 * answer is queued on c behind anything the action had queued for c.
 * The stream keeps that order, so an event the action sent to c precedes
 * the ping's answer.  A slow server only makes the barrier take longer.
 *
 * That holds for what a handler sends at once (lobby events, refusals,
 * the greeting...).  Game announcements are held until the turn's commit
 * (batch.h), which a ping may overtake (PROTOCOL.md, Framing).
 * kc_no_game_event uses a `games` request instead (c must be logged in):
 * by the deferral rule it is answered only after every uncommitted action
 * that holds something for c's user has committed and its held messages
 * went out, so a game event the action produced for c precedes that
 * answer too.  (It needs no barrier on the acting connection: the action's
 * answer the test holds is sent after its handler, or its commit, ran.)
 */
void kc_no_event(struct kc *c, const char *name);
void kc_no_game_event(struct kc *c, const char *name);
/* Wait for the server to close (lines arriving meanwhile are kept). */
bool kc_closed(struct kc *c, int timeout_ms);
/* Closed with TLS's close_notify (a clean close), not cut. */
bool kc_closed_cleanly(const struct kc *c);

/* Every line received so far, in order (raw text without '\n'). */
size_t kc_nlines(const struct kc *c);
const char *kc_line(const struct kc *c, size_t i);
/* Has the answer to c's request id arrived (what has arrived is read
 * first, without waiting; nothing is taken)?  To assert that a request is
 * still held, after the time its answer would have needed. */
bool kc_answered(struct kc *c, long long id);
/* Whether any line received so far contains needle. */
bool kc_saw(const struct kc *c, const char *needle);
/* The index of the first line received so far containing needle; -1 if
 * none (the order of answers and events). */
long kc_first_line(const struct kc *c, const char *needle);

/* ---- players ---- */

#define KP_NAME_MAX 32
#define KP_TOKEN_MAX 64

/* A logged-in connection: who it is and the token that resumes it. */
struct kp {
	struct kc *c;
	char name[KP_NAME_MAX];
	char token[KP_TOKEN_MAX];
};

/* A fresh guest on a new connection (kc_hello, then `guest`). */
void kp_guest(struct kd *d, struct kp *p);
/* A new account `name` registered and logged in on a new connection. */
void kp_register(struct kd *d, struct kp *p, const char *name);
/* A new connection resuming p's session: p->c is replaced (the old one
 * is neither closed nor freed); returns the resume response (borrowed). */
json_t *kp_resume(struct kd *d, struct kp *p);

/* CLOCK_MONOTONIC in milliseconds. */
long long kt_now_ms(void);
/* Milliseconds sleep, for pacing. */
void kt_sleep_ms(int ms);
/* Run a shell command line (printf-style): its exit status, 128 when a
 * signal ended it. */
int kt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
