/*
 * test_accounts.c — accounts over TLS against a real kriegd: register, login,
 * guest, resume, logout, their errors, persistence across a restart, and
 * that password hashing never holds up the event loop.
 * (Named test_accounts, not test_auth: both test directories build into one
 * tests/ directory, where tests/unit/test_auth.c already is.)
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "auth.h"
#include "check_main.h"
#include "harness.h"
#include "harness_game.h"
#include "proto.h"

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	ck_assert_msg(s != NULL, "no string field '%s'", key);
	return s;
}

/* Where the response with this id is among every line c received (-1:
 * none yet): the order of answers, asserted after they were taken. */
static long pos_of(struct kc *c, long long id)
{
	for (size_t i = 0; i < kc_nlines(c); i++) {
		json_t *m = json_loads(kc_line(c, i), 0, NULL);
		json_t *v = json_object_get(m, "id");
		bool hit = json_is_integer(v) && json_object_get(m, "ok") != NULL &&
		           json_integer_value(v) == id;
		json_decref(m);
		if (hit)
			return (long)i;
	}
	return -1;
}

/* Responses a, b (and c, unless it is 0) were received in that order. */
static void in_order(struct kc *cl, long long a, long long b, long long c)
{
	ck_assert_msg(pos_of(cl, a) >= 0 && pos_of(cl, a) < pos_of(cl, b),
	              "response %lld did not come before %lld", a, b);
	if (c != 0)
		ck_assert_msg(pos_of(cl, b) < pos_of(cl, c), "response %lld did not come before %lld",
		              b, c);
}

/* The code of an error response. */
static const char *code_of(json_t *r)
{
	return json_string_value(json_object_get(json_object_get(r, "error"), "code"));
}

/* Register on a fresh connection; returns the token (copied into tok). */
static struct kc *registered(struct kd *d, const char *user, const char *pw, char *tok)
{
	struct kc *c = kc_hello(d);
	json_t *r = kc_call(c, "register", "{s:s, s:s}", "user", user, "password", pw);
	ck_assert_msg(json_is_true(json_object_get(r, "ok")), "register %s failed", user);
	ck_assert_str_eq(str(r, "user"), user);
	ck_assert_uint_eq(strlen(str(r, "token")), PROTO_TOKEN_LEN);
	if (tok != NULL)
		snprintf(tok, PROTO_TOKEN_LEN + 1, "%s", str(r, "token"));
	return c;
}

START_TEST(register_and_login)
{
	struct kd *d = kd_start(NULL);
	char tok[PROTO_TOKEN_LEN + 1];
	struct kc *a = registered(d, "Alice", "correct horse", tok);

	/* The same name in any case is taken. */
	struct kc *b = kc_hello(d);
	kc_error(b, kc_req(b, "register", "{s:s, s:s}", "user", "alice", "password",
	                   "another one"), "user_exists");
	/* Regression (a probe of names): nor one that reads as it to a person
	 * (AIice showed as Alice in the web page's font), said so; a refusal
	 * spends none of the address's registrations. */
	static const char *const alike[] = { "AIice", "A1ice", "Alice_", "Al-ice" };
	for (size_t i = 0; i < sizeof alike / sizeof alike[0]; i++) {
		json_t *e = kc_error(b, kc_req(b, "register", "{s:s, s:s}", "user", alike[i], "password",
		                                "another one"), "user_exists");
		json_t *err = json_object_get(e, "error");
		ck_assert_msg(strstr(str(err, "message"), "looks like Alice"), "%s: %s", alike[i], str(err, "message"));
	}
	kc_close(registered(d, "alice2", "another one", NULL));
	/* Wrong password, unknown user: the same answer. */
	kc_error(b, kc_req(b, "login", "{s:s, s:s}", "user", "alice", "password", "correct horsE"),
	         "auth_failed");
	kc_error(b, kc_req(b, "login", "{s:s, s:s}", "user", "nobody", "password", "correct horse"),
	         "auth_failed");
	/* Not logged in yet: lobby requests are refused. */
	kc_error(b, kc_req(b, "logout", NULL), "not_logged_in");

	/* The right password, name in another case: the registered spelling. */
	json_t *r = kc_ok(b, kc_req(b, "login", "{s:s, s:s}", "user", "ALICE", "password",
	                            "correct horse"));
	ck_assert_str_eq(str(r, "user"), "Alice");
	ck_assert_uint_eq(strlen(str(r, "token")), PROTO_TOKEN_LEN);
	ck_assert_str_ne(str(r, "token"), tok);   /* a session per login */
	ck_assert(json_is_array(json_object_get(r, "games")));
	ck_assert_uint_eq(json_array_size(json_object_get(r, "games")), 0);

	/* Nothing secret ever went back out. */
	ck_assert(!kc_saw(b, "scrypt"));
	ck_assert(!kc_saw(a, "correct horse"));
	kc_close(a);
	kc_close(b);
	kd_stop(d);
}
END_TEST

START_TEST(bad_names_and_weak_passwords)
{
	struct kd *d = kd_start(NULL);
	struct kc *c = kc_hello(d);
	static const char *const names[] = { "ab", "bad name", "tooooooooooooooooooooooolong",
	                                     "guest-abcd", "Guest-x1", "semi;colon", "",
	                                     "White", "umpire", "ADMIN" };   /* reserved */

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		kc_error(c, kc_req(c, "register", "{s:s, s:s}", "user", names[i], "password",
		                   "long enough pw"), "bad_name");
	/* an accented letter is no letter here: the rule says which are (a
	 * newcomer read "letters" and tried "jöns") */
	json_t *e = kc_error(c, kc_req(c, "register", "{s:s, s:s}", "user", "j\xc3\xb6ns", "password", "long enough pw"),
	                     "bad_name");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"), "message")),
	                 "names are 3 to 24 letters A-Z or a-z, digits, '_' or '-', starting with neither '-' nor "
	                 "\"guest-\"");
	kc_error(c, kc_req(c, "register", "{s:s, s:s}", "user", "bobby", "password", "short"),
	         "weak_password");
	kc_error(c, kc_req(c, "register", "{s:s, s:s}", "user", "bobby12345", "password",
	                   "BOBBY12345"), "weak_password");
	/* 8..256 bytes: one over is weak too, not the field's bad_request. */
	char longer[258];
	memset(longer, 'p', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	kc_error(c, kc_req(c, "register", "{s:s, s:s}", "user", "bobby", "password", longer),
	         "weak_password");
	longer[256] = '\0';   /* 256 bytes: the longest allowed, kept for the end */
	/* Wrong types and missing fields are the dispatcher's bad_request. */
	kc_error(c, kc_req(c, "register", "{s:s}", "user", "bobby"), "bad_request");
	kc_error(c, kc_req(c, "register", "{s:s, s:i}", "user", "bobby", "password", 12345678),
	         "bad_request");
	/* None of them created an account. */
	kc_error(c, kc_req(c, "login", "{s:s, s:s}", "user", "bobby", "password", "short"),
	         "auth_failed");
	kc_ok(c, kc_req(c, "register", "{s:s, s:s}", "user", "bobby", "password", "long enough pw"));
	kc_ok(c, kc_req(c, "register", "{s:s, s:s}", "user", "bobby256", "password", longer));
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(guests)
{
	struct kd *d = kd_start(NULL);
	struct kc *a = kc_hello(d), *b = kc_hello(d);
	json_t *ra = kc_ok(a, kc_req(a, "guest", NULL));
	json_t *rb = kc_ok(b, kc_req(b, "guest", NULL));
	const char *na = str(ra, "user"), *nb = str(rb, "user");

	ck_assert_int_eq(strncmp(na, "guest-", 6), 0);
	ck_assert_int_eq(strncmp(nb, "guest-", 6), 0);
	ck_assert_str_ne(na, nb);
	ck_assert_uint_eq(strlen(str(ra, "token")), PROTO_TOKEN_LEN);

	/* A guest has no password: logging in by name fails. */
	struct kc *c = kc_hello(d);
	kc_error(c, kc_req(c, "login", "{s:s, s:s}", "user", na, "password", "anything at all"),
	         "auth_failed");
	/* Nor a password to change, whatever the new one (protocol probe: a
	 * short one was answered weak_password). */
	kc_error(a, kc_req(a, "passwd", "{s:s, s:s}", "old", "a", "new", "b"), "illegal_action");
	kc_error(a, kc_req(a, "passwd", "{s:s, s:s}", "old", "anything at all", "new", "a long new password"),
	         "illegal_action");
	/* But its session resumes like anyone's. */
	json_t *r = kc_ok(c, kc_req(c, "resume", "{s:s}", "token", str(ra, "token")));
	ck_assert_str_eq(str(r, "user"), na);
	kc_close(a);
	kc_close(b);
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(resume_and_logout)
{
	struct kd *d = kd_start(NULL);
	char tok[PROTO_TOKEN_LEN + 1], bad[PROTO_TOKEN_LEN + 1];
	struct kc *a = registered(d, "carol", "carols password", tok);
	kc_close(a);

	/* A new connection resumes with the token; the token stays the same. */
	struct kc *b = kc_hello(d);
	json_t *r = kc_ok(b, kc_req(b, "resume", "{s:s}", "token", tok));
	ck_assert_str_eq(str(r, "user"), "carol");
	ck_assert_str_eq(str(r, "token"), tok);
	ck_assert(json_is_array(json_object_get(r, "games")));

	/* Bad tokens: right shape but unknown, wrong shape, one char off. */
	struct kc *c = kc_hello(d);
	memset(bad, 'A', PROTO_TOKEN_LEN);
	bad[PROTO_TOKEN_LEN] = '\0';
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", bad), "auth_failed");
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", "short"), "auth_failed");
	snprintf(bad, sizeof bad, "%s", tok);
	bad[0] = bad[0] == 'A' ? 'B' : 'A';
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", bad), "auth_failed");

	/* Logout revokes the token it logged in with. */
	kc_ok(b, kc_req(b, "logout", NULL));
	kc_error(b, kc_req(b, "logout", NULL), "not_logged_in");
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", tok), "auth_failed");
	/* A password login still works and gives a fresh token. */
	r = kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "carol", "password",
	                    "carols password"));
	ck_assert_str_ne(str(r, "token"), tok);
	kc_close(b);
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(accounts_survive_restart)
{
	struct kd *d = kd_start(NULL);
	char tok[PROTO_TOKEN_LEN + 1];
	kc_close(registered(d, "dave", "daves password", tok));

	kd_restart(d);
	struct kc *c = kc_hello(d);
	json_t *r = kc_ok(c, kc_req(c, "resume", "{s:s}", "token", tok));
	ck_assert_str_eq(str(r, "user"), "dave");
	kc_ok(c, kc_req(c, "logout", NULL));
	kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "dave", "password", "daves password"));
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* A count in d's store, read beside the daemon: sql selects one integer,
 * ?1 an account's name. */
static int stored_count(struct kd *d, const char *sql, const char *name)
{
	char path[400];
	sqlite3 *db;
	sqlite3_stmt *s;
	snprintf(path, sizeof path, "%s/kriegd.db", kd_state_dir(d));
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	int n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* The sessions of account `name` in d's store. */
static int sessions_of(struct kd *d, const char *name)
{
	return stored_count(d, "SELECT count(*) FROM sessions JOIN users"
	                       " ON users.id = sessions.user WHERE users.name = ?1", name);
}

static bool account_kept(struct kd *d, const char *name)
{
	return stored_count(d, "SELECT count(*) FROM users WHERE name = ?1", name) == 1;
}

static void db_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
}

/* The scrypt cost of account name's stored hash ("$scrypt$ln=N,..."). */
static int hash_cost(struct kd *d, const char *name)
{
	return stored_count(d, "SELECT CAST(substr(pwhash, 12, instr(pwhash, ',') - 12) AS INTEGER)"
	                       " FROM users WHERE name = ?1 AND pwhash LIKE '$scrypt$ln=%'", name);
}

/* password_cost is the cost of what is hashed from then on, by the wire
 * (register, passwd) and by the command line (user add, which reads the
 * same file); a reload keeps the running one and names it; a hash keeps
 * the cost it was made with and still verifies at another. */
START_TEST(password_cost_of_new_hashes)
{
	struct kd *d = kd_start("password_cost = 11\n");
	kc_close(registered(d, "ivan", "ivans password", NULL));
	kg_user_add(d, "jane", "player", "janes password");
	ck_assert_int_eq(hash_cost(d, "ivan"), 11);
	ck_assert_int_eq(hash_cost(d, "jane"), 11);

	kd_reload(d, "password_cost = 12\n");
	ck_assert_int_eq(kd_log_count(d, "take effect only on restart: password_cost"), 1);
	/* the values said, the running one and the file's (admin probe) */
	ck_assert_int_eq(kd_log_count(d, "running on: password_cost = 11 (the file: 12)"), 1);
	kc_close(registered(d, "kate", "kates password", NULL));
	ck_assert_int_eq(hash_cost(d, "kate"), 11);

	kd_restart(d);
	kc_close(registered(d, "lena", "lenas password", NULL));
	ck_assert_int_eq(hash_cost(d, "lena"), 12);
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "ivan", "password", "ivans password"));
	ck_assert_int_eq(hash_cost(d, "ivan"), 11);
	kc_ok(c, kc_req(c, "passwd", "{s:s, s:s}", "old", "ivans password", "new", "ivans new one"));
	ck_assert_int_eq(hash_cost(d, "ivan"), 12);
	kc_close(c);
	c = kc_hello(d);
	kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "ivan", "password", "ivans new one"));
	kc_close(c);
	c = kc_hello(d);
	kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "jane", "password", "janes password"));
	kc_close(c);
	kd_stop(d);
}
END_TEST

/*
 * A guest nobody can be any more (no session left: the last expired) and
 * nothing refers to is deleted.  Kept: a guest with a game, one with a
 * session, one muted, one followed, one challenged by correspondence
 * (those rows would go with it, unannounced, and the daemon's lists keep
 * their ids: own-changes probe), a registered account
 * without a session, and the newest account (its id would be given
 * again).  Before, guest rows were never deleted: 60 an hour from each
 * address (memory probe).  The purge runs at the start, then hourly.
 */
START_TEST(stale_guests_deleted)
{
	struct kd *d = kd_start(NULL);
	struct kp lone, w, b, kept, muted, followed, challenged, reg, last;
	kp_guest(d, &lone);
	kp_guest(d, &w);
	kp_guest(d, &b);
	kg_new_game(&w, &b);
	kp_guest(d, &kept);
	kp_guest(d, &muted);
	kp_guest(d, &followed);
	kp_guest(d, &challenged);
	kp_register(d, &reg, "regular");
	kc_ok(reg.c, kc_req(reg.c, "mute", "{s:s}", "user", muted.name));
	kc_ok(reg.c, kc_req(reg.c, "follow", "{s:s}", "user", followed.name));
	kc_ok(reg.c, kc_req(reg.c, "challenge", "{s:s, s:{s:i}}", "user", challenged.name, "time",
	                    "days", 3));
	kc_close(reg.c);   /* away: the challenge waits */
	kp_guest(d, &last);
	struct kp *all[] = { &lone, &w, &b, &kept, &muted, &followed, &challenged, &last };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		kc_close(all[i]->c);

	/* A day and more later, every session but kept's gone. */
	char path[400], sql[600];
	sqlite3 *db;
	kd_down(d);
	snprintf(path, sizeof path, "%s/kriegd.db", kd_state_dir(d));
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	db_exec(db, "UPDATE users SET created = 1");
	snprintf(sql, sizeof sql, "DELETE FROM sessions WHERE user IN (SELECT id FROM users"
	                          " WHERE name != '%s')", kept.name);
	db_exec(db, sql);
	sqlite3_close(db);
	kd_up(d);

	ck_assert(kd_log_wait(d, "guest accounts without a session or a game deleted: 1", 10000));
	ck_assert(!account_kept(d, lone.name));
	struct kp *stay[] = { &w, &b, &kept, &muted, &followed, &challenged, &last };
	for (size_t i = 0; i < sizeof stay / sizeof stay[0]; i++)
		ck_assert_msg(account_kept(d, stay[i]->name), "%s deleted", stay[i]->name);
	ck_assert(account_kept(d, "regular"));
	ck_assert_int_eq(stored_count(d, "SELECT count(*) FROM mutes", ""), 1);
	ck_assert_int_eq(stored_count(d, "SELECT count(*) FROM waiting_offers", ""), 1);
	/* The one kept by its session resumes. */
	kp_resume(d, &kept);
	kc_close(kept.c);
	kd_stop(d);
}
END_TEST

/*
 * Regression (probe): every login added a session that lived 30 days, so
 * 2,000 logins to one account left 2,001 rows and as many live tokens.
 * An account keeps AUTH_SESSIONS_MAX (32): a login past them ends the
 * least recently used session no connection is logged in with (its token
 * no longer resumes: auth_failed); with every one in use, the least
 * recently used of them, whose connection hears session_ended and is
 * closed.
 */
START_TEST(sessions_capped)
{
	enum { EXTRA = 3, LOGINS = AUTH_SESSIONS_MAX + EXTRA };
	struct kd *d = kd_start("max_connections_per_ip = 100\n");
	char tok[LOGINS + 1][PROTO_TOKEN_LEN + 1];
	kc_close(registered(d, "erin", "erins password", tok[0]));
	struct kc *b = kc_hello(d);
	for (int i = 1; i <= LOGINS; i++) {
		json_t *r = kc_ok(b, kc_req(b, "login", "{s:s, s:s}", "user", "erin", "password",
		                            "erins password"));
		snprintf(tok[i], sizeof tok[i], "%s", str(r, "token"));
	}
	kc_close(b);
	/* The first EXTRA + 1 (the registration's too) ended, oldest first; the rest resume. */
	struct kc *c = kc_hello(d);
	for (int i = 0; i <= EXTRA; i++)
		kc_error(c, kc_req(c, "resume", "{s:s}", "token", tok[i]), "auth_failed");
	kc_close(c);
	ck_assert_int_eq(sessions_of(d, "erin"), AUTH_SESSIONS_MAX);
	struct kc *held[AUTH_SESSIONS_MAX];
	for (int i = 0; i < AUTH_SESSIONS_MAX; i++) {
		held[i] = kc_hello(d);
		kc_ok(held[i], kc_req(held[i], "resume", "{s:s}", "token", tok[EXTRA + 1 + i]));
	}
	/* Every one in use: a login ends the least recently used (resumed first). */
	struct kc *x = kc_hello(d);
	kc_ok(x, kc_req(x, "login", "{s:s, s:s}", "user", "erin", "password", "erins password"));
	json_t *e = kc_event(held[0], "session_ended");
	ck_assert_str_eq(str(e, "reason"), "too many sessions: a newer login of the account ended this one");
	ck_assert(kc_closed(held[0], KC_TIMEOUT_MS));
	kc_ok(held[1], kc_req(held[1], "who", NULL));   /* the others stay */
	kc_ok(held[AUTH_SESSIONS_MAX - 1], kc_req(held[AUTH_SESSIONS_MAX - 1], "who", NULL));
	c = kc_hello(d);
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", tok[EXTRA + 1]), "auth_failed");
	kc_ok(c, kc_req(c, "resume", "{s:s}", "token", tok[EXTRA + 2]));
	ck_assert_int_eq(sessions_of(d, "erin"), AUTH_SESSIONS_MAX);
	kc_close(c);
	kc_close(x);
	for (int i = 0; i < AUTH_SESSIONS_MAX; i++)
		kc_close(held[i]);
	kd_stop(d);
}
END_TEST

/* A connection logging in again whose own token is the least recently
 * used: that token ends (the new one replaces it) and the login is
 * answered on a connection that stays.  Before, the cap closed the
 * connection as one logged in with an ended session, and the login went
 * unanswered (own-changes probe). */
START_TEST(relogin_keeps_its_connection)
{
	struct kd *d = kd_start("max_connections_per_ip = 100\n");
	kc_close(registered(d, "fay", "fays password", NULL));
	struct kc *y = kc_hello(d);
	json_t *r = kc_ok(y, kc_req(y, "login", "{s:s, s:s}", "user", "fay", "password", "fays password"));
	char first[PROTO_TOKEN_LEN + 1];
	snprintf(first, sizeof first, "%s", str(r, "token"));
	for (int i = 1; i < AUTH_SESSIONS_MAX; i++) {   /* the registration's ends: y's is the oldest */
		struct kc *o = kc_hello(d);
		kc_ok(o, kc_req(o, "login", "{s:s, s:s}", "user", "fay", "password", "fays password"));
		kc_close(o);
	}
	ck_assert_int_eq(sessions_of(d, "fay"), AUTH_SESSIONS_MAX);
	kc_ok(y, kc_req(y, "login", "{s:s, s:s}", "user", "fay", "password", "fays password"));
	ck_assert(!kc_saw(y, "session_ended"));
	kc_ok(y, kc_req(y, "who", NULL));
	struct kc *c = kc_hello(d);
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", first), "auth_failed");
	ck_assert_int_eq(sessions_of(d, "fay"), AUTH_SESSIONS_MAX);
	kc_close(c);
	kc_close(y);
	kd_stop(d);
}
END_TEST

/* Hashing runs on worker threads: while a login is being hashed, the
 * daemon answers other connections' requests.  Asserted by order, not by
 * time: the login is queued behind several other hashes, then a ping on
 * another connection is answered; a ping on the login's own connection
 * waits behind the login (pipelined_identity_in_order below says why). */
#define HOG_CLIENTS 6

START_TEST(hashing_does_not_block_the_loop)
{
	struct kd *d = kd_start(KD_SLOW_HASH "rate_limit = 1000\n");
	struct kc *hog[HOG_CLIENTS];
	long long hog_id[HOG_CLIENTS];
	struct kc *a, *b;

	kc_close(registered(d, "erin", "erins password", NULL));
	for (int i = 0; i < HOG_CLIENTS; i++)
		hog[i] = kc_hello(d);
	a = kc_hello(d);
	b = kc_hello(d);

	for (int i = 0; i < HOG_CLIENTS; i++)
		hog_id[i] = kc_req(hog[i], "login", "{s:s, s:s}", "user", "erin", "password",
		                   "wrong password");
	long long login = kc_req(a, "login", "{s:s, s:s}", "user", "erin", "password",
	                         "erins password");
	/* Another connection is served at once. */
	kc_ok(b, kc_req(b, "ping", NULL));
	/* The login's own connection waits for it: what it sends after a
	 * login takes effect after it (identity in request order), so even
	 * its ping is answered after the login's answer. */
	long long ping = kc_req(a, "ping", NULL);
	kc_ok(a, ping);
	json_t *r = kc_ok(a, login);
	ck_assert_str_eq(str(r, "user"), "erin");
	in_order(a, login, ping, 0);
	for (int i = 0; i < HOG_CLIENTS; i++) {
		kc_error(hog[i], hog_id[i], "auth_failed");
		kc_close(hog[i]);
	}

	kc_close(a);
	kc_close(b);
	kd_stop(d);
}
END_TEST

/* No password in the log, at debug level either: a login's line that is
 * not JSON (cut short inside the password) is answered bad_json, whose
 * message quotes where it broke, and the log kept that message (probe). */
START_TEST(password_not_logged)
{
	struct kd *d = kd_start("log_level = debug\n");
	struct kc *c = kc_hello(d);
	kc_send(c, "{\"id\":2,\"type\":\"login\",\"user\":\"alice\",\"password\":\"Hunter2-secret\t\"}");
	json_t *r = kc_response(c, KC_NULL_ID);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "error"), "code")),
	                 "bad_json");
	kc_close(c);
	ck_assert(kd_log_wait(d, "error code=bad_json", 5000));
	ck_assert_int_eq(kd_log_count(d, "Hunter2"), 0);
	kd_stop(d);
}
END_TEST

/*
 * Requests that change who a connection is take effect in the order they
 * were sent, whatever the answers' order: a login's password is hashed
 * off the loop, and what was pipelined behind it ran first and was then
 * overridden by it (probe): a logout behind a login was answered
 * not_logged_in and the connection ended logged in (a client that cancels
 * its login stayed logged in); a resume, then a login, then a logout
 * deleted the resumed session's token and still ended logged in.  Each
 * write below carries all its lines at once, so they are all read while
 * the login is being hashed.
 */
START_TEST(pipelined_identity_in_order)
{
	struct kd *d = kd_start(NULL);
	char carol[PROTO_TOKEN_LEN + 1];
	kc_close(registered(d, "alice", "alices password", NULL));
	kc_close(registered(d, "carol", "carols password", carol));

	/* login, logout, profile: the logout logs the login out. */
	struct kc *c = kc_hello(d);
	kc_send(c, "{\"id\":10,\"type\":\"login\",\"user\":\"alice\",\"password\":\"alices password\"}\n"
	           "{\"id\":11,\"type\":\"logout\"}\n"
	           "{\"id\":12,\"type\":\"profile\"}");
	json_t *r = kc_ok(c, 10);
	ck_assert_str_eq(str(r, "user"), "alice");
	char alice[PROTO_TOKEN_LEN + 1];
	snprintf(alice, sizeof alice, "%s", str(r, "token"));
	kc_ok(c, 11);
	ck_assert_str_eq(code_of(kc_response(c, 12)), "not_logged_in");
	in_order(c, 10, 11, 12);
	/* It ended logged out, and the logout revoked the login's token. */
	kc_error(c, kc_req(c, "profile", NULL), "not_logged_in");
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", alice), "auth_failed");
	kc_close(c);

	/* resume carol, login alice, logout: the logout is alice's. */
	c = kc_hello(d);
	char buf[512];
	snprintf(buf, sizeof buf,
	         "{\"id\":20,\"type\":\"resume\",\"token\":\"%s\"}\n"
	         "{\"id\":21,\"type\":\"login\",\"user\":\"alice\",\"password\":\"alices password\"}\n"
	         "{\"id\":22,\"type\":\"logout\"}", carol);
	kc_send(c, buf);
	ck_assert_str_eq(str(kc_ok(c, 20), "user"), "carol");
	ck_assert_str_eq(str(kc_ok(c, 21), "user"), "alice");
	kc_ok(c, 22);
	kc_error(c, kc_req(c, "profile", NULL), "not_logged_in");
	kc_close(c);
	/* carol's session was not the one logged out. */
	c = kc_hello(d);
	ck_assert_str_eq(str(kc_ok(c, kc_req(c, "resume", "{s:s}", "token", carol)), "user"),
	                 "carol");
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* A guest behind a login: the login is answered first, then the guest
 * replaces it.  Before, the guest was made and answered ok, then silently
 * replaced by the login when its hash ended (probe). */
START_TEST(pipelined_guest_after_login)
{
	struct kd *d = kd_start(NULL);
	kc_close(registered(d, "alice", "alices password", NULL));
	struct kc *c = kc_hello(d);
	kc_send(c, "{\"id\":10,\"type\":\"login\",\"user\":\"alice\",\"password\":\"alices password\"}\n"
	           "{\"id\":11,\"type\":\"guest\"}");
	ck_assert_str_eq(str(kc_ok(c, 10), "user"), "alice");
	const char *guest = str(kc_ok(c, 11), "user");
	in_order(c, 10, 11, 0);
	ck_assert_int_eq(strncmp(guest, "guest-", 6), 0);
	json_t *p = kc_ok(c, kc_req(c, "profile", NULL));
	ck_assert_str_eq(str(p, "name"), guest);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* Two logins pipelined: the second runs after the first is answered (it
 * was `busy`, "an authentication is already in progress", a reason
 * PROTOCOL.md does not give), and the connection ends as the second. */
START_TEST(pipelined_logins)
{
	struct kd *d = kd_start(NULL);
	kc_close(registered(d, "alice", "alices password", NULL));
	kc_close(registered(d, "bobby", "bobbys password", NULL));
	struct kc *c = kc_hello(d);
	kc_send(c, "{\"id\":10,\"type\":\"login\",\"user\":\"alice\",\"password\":\"alices password\"}\n"
	           "{\"id\":11,\"type\":\"login\",\"user\":\"bobby\",\"password\":\"bobbys password\"}");
	ck_assert_str_eq(str(kc_ok(c, 10), "user"), "alice");
	ck_assert_str_eq(str(kc_ok(c, 11), "user"), "bobby");
	in_order(c, 10, 11, 0);
	ck_assert_str_eq(str(kc_ok(c, kc_req(c, "profile", NULL)), "name"), "bobby");
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* A failed login's answer is held login_failure_delay, and what the
 * connection sent after it waits behind it too: a second guess cannot be
 * hashed meanwhile, so one connection still guesses at most once a delay
 * (before, a second login during the delay was `busy`). */
START_TEST(pipelined_after_failed_login)
{
	struct kd *d = kd_start("login_failure_delay = 1s\n");
	kc_close(registered(d, "alice", "alices password", NULL));
	struct kc *c = kc_hello(d);
	long long t0 = kt_now_ms();
	kc_send(c, "{\"id\":10,\"type\":\"login\",\"user\":\"alice\",\"password\":\"wrong password\"}\n"
	           "{\"id\":11,\"type\":\"login\",\"user\":\"alice\",\"password\":\"alices password\"}\n"
	           "{\"id\":12,\"type\":\"ping\"}");
	ck_assert_str_eq(code_of(kc_response(c, 10)), "auth_failed");
	ck_assert_str_eq(str(kc_ok(c, 11), "user"), "alice");
	kc_ok(c, 12);
	in_order(c, 10, 11, 12);
	/* The right password was hashed only after the delay had passed. */
	ck_assert_int_ge(kt_now_ms() - t0, 1000);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* A connection held for its authentication is not idle: the wait is the
 * server's (a failed login's delay, longer here than idle_timeout).
 * Before, a failed login's held answer never came: the connection was
 * closed as idle first.  Once answered, what it sent next runs, and its
 * silence after that is idle again. */
START_TEST(held_for_login_not_idle)
{
	struct kd *d = kd_start("idle_timeout = 1s\nlogin_failure_delay = 2500ms\n");
	struct kc *c = kc_hello(d);
	kc_send(c, "{\"id\":10,\"type\":\"login\",\"user\":\"alice\",\"password\":\"wrong password\"}\n"
	           "{\"id\":11,\"type\":\"ping\"}");
	ck_assert_str_eq(code_of(kc_response(c, 10)), "auth_failed");
	kc_ok(c, 11);
	in_order(c, 10, 11, 0);
	ck_assert_msg(kc_closed(c, 5000), "the idle connection stayed open");
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* A connection that closes while held (its login being hashed, or a
 * failed login's answer delayed, with requests waiting behind it) is
 * freed with what waited; the job ends on its own (kd_stop: no sanitizer
 * report, no leak), and the daemon goes on serving. */
START_TEST(held_connection_closes)
{
	struct kd *d = kd_start("login_failure_delay = 500ms\n");
	kc_close(registered(d, "alice", "alices password", NULL));
	for (int i = 0; i < 2; i++) {
		struct kc *c = kc_hello(d);
		kc_send(c, i == 0
		        ? "{\"id\":10,\"type\":\"login\",\"user\":\"alice\",\"password\":\"alices password\"}\n"
		          "{\"id\":11,\"type\":\"profile\"}\n{\"id\":12,\"type\":\"logout\"}"
		        : "{\"id\":10,\"type\":\"login\",\"user\":\"alice\",\"password\":\"wrong password\"}\n"
		          "{\"id\":11,\"type\":\"guest\"}");
		kc_close(c);
	}
	kt_sleep_ms(800);   /* both hashed, the failed login's delay over */
	struct kc *c = kc_hello(d);
	ck_assert_str_eq(str(kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "alice", "password",
	                                     "alices password")), "user"), "alice");
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* A request that waits for a commit (here `games` behind the player's
 * own move) runs after it as the account that sent it: a `guest` sent behind it runs at once, and the waiting request is
 * then refused, not answered as the guest (before: the guest's empty list
 * of games, for a request alice sent; probe). */
START_TEST(waiting_request_keeps_its_account)
{
	struct kd *d = kd_start("rate_limit = 1000\nrate_burst = 1000\n");
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t game = kg_new_game(&w, &b);
	/* One write: the three run in one turn of the loop, before the move's
	 * commit, which `games` then waits for. */
	char batch[256];
	int n = snprintf(batch, sizeof batch,
	                 "{\"id\":500,\"type\":\"move\",\"game\":%lld,\"move\":\"e4\"}\n"
	                 "{\"id\":501,\"type\":\"games\"}\n{\"id\":502,\"type\":\"guest\"}\n",
	                 (long long)game);
	ck_assert_int_eq(kc_write(w.c, batch, (size_t)n, KC_TIMEOUT_MS), 0);
	kc_ok(w.c, 500);
	kc_ok(w.c, 502);
	json_t *r = kc_response(w.c, 501);
	ck_assert_msg(!json_is_true(json_object_get(r, "ok")), "answered as the guest: %s",
	              kc_line(w.c, kc_nlines(w.c) - 1));
	ck_assert_str_eq(code_of(r), "not_logged_in");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * Regression (the two-devices probe): `logout` forgot its token, but a
 * connection that had resumed the same token stayed logged in as the
 * account (seeking, playing, reading messages) while the token no longer
 * resumed, and was told nothing; a guest's only session the same.  Now
 * the session ends on every connection that holds it: told
 * session_ended, then closed.  The account's other sessions stay.
 */
START_TEST(logout_ends_the_session_everywhere)
{
	struct kd *d = kd_start(NULL);
	char tok[PROTO_TOKEN_LEN + 1];
	struct kc *x = registered(d, "carol", "carols password", tok);
	struct kc *y = kc_hello(d);
	kc_ok(y, kc_req(y, "resume", "{s:s}", "token", tok));
	struct kc *w = kg_login(d, "carol", "carols password", NULL, 0);   /* another session */
	kc_ok(x, kc_req(x, "logout", NULL));
	json_t *e = kc_event(y, "session_ended");
	ck_assert_str_eq(str(e, "reason"), "the session was logged out on another connection");
	ck_assert(kc_closed(y, KC_TIMEOUT_MS));
	struct kc *z = kc_hello(d);
	kc_error(z, kc_req(z, "resume", "{s:s}", "token", tok), "auth_failed");
	/* The logging-out connection stays, logged out; the other session is untouched. */
	kc_error(x, kc_req(x, "profile", NULL), "not_logged_in");
	ck_assert(!kc_saw(x, "session_ended"));
	kc_ok(w, kc_req(w, "seek", NULL));
	kc_no_event(w, "session_ended");

	/* A guest: its one session, and every connection of it, ends. */
	struct kp g;
	kp_guest(d, &g);
	struct kc *g1 = g.c;
	kp_resume(d, &g);
	kc_ok(g1, kc_req(g1, "logout", NULL));
	e = kc_event(g.c, "session_ended");
	ck_assert_str_eq(str(e, "reason"), "the session was logged out on another connection");
	ck_assert(kc_closed(g.c, KC_TIMEOUT_MS));
	kc_error(z, kc_req(z, "resume", "{s:s}", "token", g.token), "auth_failed");
	kc_close(g1);
	kc_close(g.c);
	kc_close(x);
	kc_close(y);
	kc_close(z);
	kc_close(w);
	kd_stop(d);
}
END_TEST

/*
 * Regression (the two-devices probe): a `login` or `resume` on a
 * connection already logged in as the same account was answered with its
 * "games" and sent none of the game_state events a login brings, nor the
 * welcome, nor the challenges that stand.  Now it sends what any login
 * sends; and it is no arrival: a follower hears no second `arrived`, the
 * opponent no `opponent_back`.
 */
START_TEST(login_again_sends_the_state)
{
	struct kd *d = kd_start(NULL);
	struct kp w, b, f;
	kp_register(d, &w, "wendy");
	struct kc *older = kc_hello(d);   /* accepted before bravo's own */
	kp_register(d, &b, "bravo");
	kp_guest(d, &f);
	kc_ok(f.c, kc_req(f.c, "follow", "{s:s}", "user", "bravo"));
	int64_t game = kg_new_game(&w, &b);
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e4"));
	kc_event(b.c, "moved");
	json_int_t offer = json_integer_value(json_object_get(
		kc_ok(w.c, kc_req(w.c, "challenge", "{s:s}", "user", "bravo")), "offer"));
	kc_event(b.c, "challenge");

	for (int pass = 0; pass < 2; pass++) {   /* resume, then login by password */
		json_t *r = pass == 0
		    ? kc_ok(b.c, kc_req(b.c, "resume", "{s:s}", "token", b.token))
		    : kc_ok(b.c, kc_req(b.c, "login", "{s:s, s:s}", "user", "bravo", "password",
		                        "harness-password"));
		ck_assert_str_eq(str(r, "user"), "bravo");
		ck_assert_int_eq(json_array_size(json_object_get(r, "games")), 1);
		json_t *st = kc_event(b.c, "game_state");
		ck_assert_int_eq(json_integer_value(json_object_get(st, "game")), game);
		json_t *wl = kc_event(b.c, "welcome");
		json_t *mine = json_array_get(json_object_get(wl, "your_move"), 0);
		ck_assert_int_eq(json_integer_value(json_object_get(mine, "game")), game);
		json_t *ch = kc_event(b.c, "challenge");
		ck_assert_int_eq(json_integer_value(json_object_get(ch, "offer")), offer);
		/* Still bravo, playing on. */
		kc_ok(b.c, kc_req(b.c, "possible", "{s:I}", "game", (json_int_t)game));
	}
	kc_no_event(f.c, "arrived");
	kc_no_game_event(w.c, "opponent_back");
	/* Regression (a review): an older connection logging in beside bravo's
	 * was taken for an arrival (the first of the user's connections, in
	 * accept order), and followers were told bravo arrived, online all
	 * along. */
	kc_ok(older, kc_req(older, "resume", "{s:s}", "token", b.token));
	kc_event(older, "welcome");
	kc_no_event(f.c, "arrived");
	kc_close(older);
	kc_no_event(f.c, "departed");   /* bravo's own connection stays */
	/* An arrival after a departure is still told. */
	kc_close(b.c);
	kc_event(f.c, "departed");
	kp_resume(d, &b);
	ck_assert_str_eq(str(kc_event(f.c, "arrived"), "user"), "bravo");
	kc_close(w.c);
	kc_close(b.c);
	kc_close(f.c);
	kd_stop(d);
}
END_TEST

static Suite *auth_suite(void)
{
	Suite *s = suite_create("auth-integration");
	TCase *tc = tcase_create("auth");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, register_and_login);
	tcase_add_test(tc, bad_names_and_weak_passwords);
	tcase_add_test(tc, guests);
	tcase_add_test(tc, resume_and_logout);
	tcase_add_test(tc, accounts_survive_restart);
	tcase_add_test(tc, password_cost_of_new_hashes);
	tcase_add_test(tc, hashing_does_not_block_the_loop);
	tcase_add_test(tc, password_not_logged);
	tcase_add_test(tc, pipelined_identity_in_order);
	tcase_add_test(tc, pipelined_guest_after_login);
	tcase_add_test(tc, pipelined_logins);
	tcase_add_test(tc, pipelined_after_failed_login);
	tcase_add_test(tc, held_for_login_not_idle);
	tcase_add_test(tc, held_connection_closes);
	tcase_add_test(tc, waiting_request_keeps_its_account);
	suite_add_tcase(s, tc);
	TCase *sessions = tcase_create("sessions");
	tcase_set_timeout(sessions, 120);
	tcase_add_test(sessions, sessions_capped);
	tcase_add_test(sessions, relogin_keeps_its_connection);
	tcase_add_test(sessions, stale_guests_deleted);
	tcase_add_test(sessions, logout_ends_the_session_everywhere);
	tcase_add_test(sessions, login_again_sends_the_state);
	suite_add_tcase(s, sessions);
	return s;
}

KRIEG_TEST_MAIN(auth_suite)
