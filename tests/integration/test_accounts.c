/*
 * test_accounts.c — accounts over TLS against a real kriegd: register, login,
 * guest, resume, logout, their errors, persistence across a restart, and
 * that password hashing never holds up the event loop.
 * (Named test_accounts, not test_auth: both test directories build into one
 * tests/ directory, where tests/unit/test_auth.c already is.)
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "harness.h"
#include "proto.h"

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	ck_assert_msg(s != NULL, "no string field '%s'", key);
	return s;
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
	                                     "guest-abcd", "Guest-x1", "semi;colon", "" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		kc_error(c, kc_req(c, "register", "{s:s, s:s}", "user", names[i], "password",
		                   "long enough pw"), "bad_name");
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

/* Hashing runs on worker threads: while a login is being hashed, the
 * daemon answers other requests.  Asserted by order, not by time: the
 * login is queued behind several other hashes, then a ping on another
 * connection is answered, and after that a ping on the login's own
 * connection comes back before the login's answer. */
#define HOG_CLIENTS 6

START_TEST(hashing_does_not_block_the_loop)
{
	struct kd *d = kd_start("rate_limit = 1000\n");
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
	/* The login's own connection too, ahead of the login's answer. */
	long long ping = kc_req(a, "ping", NULL);
	json_t *first = kc_next(a, KC_TIMEOUT_MS);
	ck_assert_ptr_nonnull(first);
	ck_assert_int_eq(json_integer_value(json_object_get(first, "id")), ping);
	json_t *r = kc_ok(a, login);
	ck_assert_str_eq(str(r, "user"), "erin");
	for (int i = 0; i < HOG_CLIENTS; i++) {
		kc_error(hog[i], hog_id[i], "auth_failed");
		kc_close(hog[i]);
	}

	/* One hash at a time per connection: a second one while the first
	 * runs is `busy` (both lines arrive together). */
	kc_send(b, "{\"id\":100,\"type\":\"login\",\"user\":\"erin\",\"password\":\"erins password\"}\n"
	           "{\"id\":101,\"type\":\"login\",\"user\":\"erin\",\"password\":\"erins password\"}");
	kc_error(b, 101, "busy");
	kc_ok(b, 100);
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
	tcase_add_test(tc, hashing_does_not_block_the_loop);
	tcase_add_test(tc, password_not_logged);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(auth_suite)
