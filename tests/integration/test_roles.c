/*
 * test_roles.c — account roles and `kriegd user ...` against a running
 * daemon:
 *   user_add_role_who    add with --role and --password-stdin; the account
 *                        logs in; `who` shows the role, and a role change
 *                        made while the daemon runs
 *   user_cli_errors      taken name, unknown account, bad role, bad usage,
 *                        weak password: non-zero, one line, nothing changed
 *   user_list            one line per registered account, guests left out
 *   user_passwd          the old password stops working, the new one works
 *   cli_passwd_ends_sessions  `user passwd` (with --must-change or not)
 *                        ends every session of the account, and the daemon
 *                        closes its connections, a waiting login's too
 *   disable_closes       disabling closes the live sessions of the account
 *                        (the daemon notices the offline change), and login
 *                        and resume are refused with account_disabled;
 *                        enable lets it back in
 */
#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "harness.h"
#include "harness_game.h"

static const char *login_code(struct kd *d, const char *name, const char *pw, char *buf,
                              size_t len)
{
	struct kc *c = kc_hello(d);
	json_t *r = kc_response(c, kc_req(c, "login", "{s:s, s:s}", "user", name, "password", pw));
	json_t *err = json_object_get(r, "error");
	snprintf(buf, len, "%s", json_is_true(json_object_get(r, "ok")) ? "ok"
	                         : json_string_value(json_object_get(err, "code")));
	kc_close(c);
	return buf;
}

/* The role `who` shows for name, or NULL if not listed. */
static const char *who_role(struct kc *c, const char *name, char *buf, size_t len)
{
	json_t *r = kc_ok(c, kc_req(c, "who", NULL));
	json_t *users = json_object_get(r, "users"), *u;
	size_t i;
	json_array_foreach(users, i, u) {
		if (strcmp(json_string_value(json_object_get(u, "name")), name) == 0) {
			snprintf(buf, len, "%s", json_string_value(json_object_get(u, "role")));
			return buf;
		}
	}
	return NULL;
}

START_TEST(user_add_role_who)
{
	struct kd *d = kd_start("");
	char out[4096], buf[64];
	ck_assert_int_eq(kg_user(d, "sesame-ump\n", out, sizeof out, "add", "ump", "--role", "umpire",
	                          "--password-stdin"), 0);
	ck_assert_int_eq(kg_user(d, "sesame-pl\n", out, sizeof out, "add", "plain",
	                          "--password-stdin"), 0);
	struct kc *u = kg_login(d, "ump", "sesame-ump", NULL, 0);
	struct kc *p = kg_login(d, "plain", "sesame-pl", NULL, 0);
	ck_assert_str_eq(who_role(p, "ump", buf, sizeof buf), "umpire");
	ck_assert_str_eq(who_role(p, "plain", buf, sizeof buf), "player");
	struct kp g;
	kp_guest(d, &g);
	ck_assert_str_eq(who_role(p, g.name, buf, sizeof buf), "player");
	/* A change made while the daemon runs counts at once. */
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "role", "ump", "admin"), 0);
	ck_assert_str_eq(who_role(p, "ump", buf, sizeof buf), "admin");
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "role", "ump", "player"), 0);
	ck_assert_str_eq(who_role(u, "ump", buf, sizeof buf), "player");
	kc_close(g.c);
	kc_close(u);
	kc_close(p);
	kd_stop(d);
}
END_TEST

START_TEST(user_cli_errors)
{
	struct kd *d = kd_start("");
	char out[4096], buf[64];
	ck_assert_int_eq(kg_user(d, "sesame-one\n", out, sizeof out, "add", "one",
	                          "--password-stdin"), 0);
	/* Taken, also in another case. */
	ck_assert_int_eq(kg_user(d, "sesame-two\n", out, sizeof out, "add", "ONE",
	                          "--password-stdin"), 1);
	ck_assert_ptr_nonnull(strstr(out, "taken"));
	ck_assert_int_eq((int)(strchr(out, '\n') - out) + 1, (int)strlen(out));   /* one line */
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "role", "nobody", "umpire"), 1);
	ck_assert_ptr_nonnull(strstr(out, "no such account"));
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "role", "one", "king"), 2);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "disable", "nobody"), 1);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "frobnicate"), 2);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "add"), 2);
	ck_assert_int_eq(kg_user(d, "x\n", out, sizeof out, "add", "two", "--password-stdin"), 1);
	/* a name no account can have is the command line's mistake: 2, as a
	 * role none has (admin probe) */
	ck_assert_int_eq(kg_user(d, "sesame-two\n", out, sizeof out, "add", "guest-abc",
	                          "--password-stdin"), 2);
	/* No terminal and no --password-stdin: refused, not hung. */
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "add", "three"), 1);
	/* Nothing of the refused ones exists. */
	ck_assert_str_eq(login_code(d, "two", "x", buf, sizeof buf), "auth_failed");
	ck_assert_str_eq(login_code(d, "three", "sesame-three", buf, sizeof buf), "auth_failed");
	ck_assert_str_eq(login_code(d, "one", "sesame-one", buf, sizeof buf), "ok");
	/* A guest has no role to set. */
	struct kp g;
	kp_guest(d, &g);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "role", g.name, "umpire"), 1);
	ck_assert_str_eq(who_role(g.c, g.name, buf, sizeof buf), "player");
	kc_close(g.c);
	kd_stop(d);
}
END_TEST

/* Regression: `kriegd user list` (or role, passwd...) pointed at a state
 * directory with no database made the directory and an empty database,
 * and answered from it as if it were the server's.  Only `add` makes one. */
START_TEST(user_cli_needs_a_database)
{
	struct kd *d = kd_start("");
	char dir[1024], db[1100], out[1024];
	snprintf(dir, sizeof dir, "%s/elsewhere", kd_state_dir(d));
	snprintf(db, sizeof db, "%s/kriegd.db", dir);
	static const char *const verbs[][3] = { { "list" }, { "role", "one", "admin" },
		                                    { "disable", "one" },
		                                    { "passwd", "one", "--password-stdin" } };
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
		char *argv[8] = { "kriegd", "--state-dir", dir, "user" };
		int n = 4;
		for (int k = 0; k < 3 && verbs[i][k] != NULL; k++)
			argv[n++] = (char *)verbs[i][k];
		int rc = kg_run_kriegd_input(argv, "sesame-one\n", KG_USER_TIMEOUT_MS, out, sizeof out);
		ck_assert_msg(rc == 1, "user %s: exit %d: %s", verbs[i][0], rc, out);
		ck_assert_msg(strstr(out, "makes it") != NULL, "user %s: %s", verbs[i][0], out);
		ck_assert_int_ne(access(dir, F_OK), 0);
	}
	char *add[] = { "kriegd", "--state-dir", dir, "user", "add", "one", "--password-stdin", NULL };
	ck_assert_int_eq(kg_run_kriegd_input(add, "sesame-one\n", KG_USER_TIMEOUT_MS, out, sizeof out), 0);
	ck_assert_int_eq(access(db, F_OK), 0);
	/* Regression (club admin probe): the add that made the database said
	 * only "added", and one forgetting --state-dir made ./var/kriegd.db
	 * believing the account was on the server's.  It names the new one;
	 * an add to a database already there does not. */
	char said[1200];
	snprintf(said, sizeof said, "kriegd: user: one: added, to a new database: %s\n", db);
	ck_assert_str_eq(out, said);
	char *add2[] = { "kriegd", "--state-dir", dir, "user", "add", "two", "--password-stdin", NULL };
	ck_assert_int_eq(kg_run_kriegd_input(add2, "sesame-two\n", KG_USER_TIMEOUT_MS, out, sizeof out), 0);
	ck_assert_str_eq(out, "kriegd: user: two: added\n");
	char *list[] = { "kriegd", "--state-dir", dir, "user", "list", NULL };
	ck_assert_int_eq(kg_run_kriegd_input(list, NULL, KG_USER_TIMEOUT_MS, out, sizeof out), 0);
	ck_assert_ptr_nonnull(strstr(out, "one"));
	kd_stop(d);
}
END_TEST

START_TEST(user_list)
{
	struct kd *d = kd_start("");
	char out[4096];
	struct kp g;
	kp_guest(d, &g);
	ck_assert_int_eq(kg_user(d, "sesame-bbb\n", out, sizeof out, "add", "bbb", "--role=admin",
	                          "--password-stdin"), 0);
	ck_assert_int_eq(kg_user(d, "sesame-aaa\n", out, sizeof out, "add", "aaa",
	                          "--password-stdin"), 0);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "disable", "aaa"), 0);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "list"), 0);
	ck_assert_str_eq(out, "aaa player disabled\nbbb admin enabled\n");
	kc_close(g.c);
	kd_stop(d);
}
END_TEST

START_TEST(user_passwd)
{
	struct kd *d = kd_start("");
	char out[4096], buf[64];
	ck_assert_int_eq(kg_user(d, "sesame-old\n", out, sizeof out, "add", "pwd",
	                          "--password-stdin"), 0);
	ck_assert_str_eq(login_code(d, "pwd", "sesame-old", buf, sizeof buf), "ok");
	ck_assert_int_eq(kg_user(d, "sesame-new\n", out, sizeof out, "passwd", "pwd",
	                          "--password-stdin"), 0);
	ck_assert_str_eq(login_code(d, "pwd", "sesame-old", buf, sizeof buf), "auth_failed");
	ck_assert_str_eq(login_code(d, "pwd", "sesame-new", buf, sizeof buf), "ok");
	ck_assert_int_eq(kg_user(d, "sesame-new\n", out, sizeof out, "passwd", "nobody",
	                          "--password-stdin"), 1);
	kd_stop(d);
}
END_TEST

/*
 * Regression: `kriegd user passwd NAME` left the account's tokens working
 * and its connections logged in (with --must-change the tokens ended, not
 * the connections), though an operator uses it for a compromised or
 * forgotten password.  Both forms now end every session, and the daemon,
 * noticing the offline change, closes every connection logged in before
 * it (a login waiting on a password change too) as user_reset does.  A
 * connection that changed its own password over the wire stays.
 */
START_TEST(cli_passwd_ends_sessions)
{
	struct kd *d = kd_start("");
	char out[4096], buf[64], token[KP_TOKEN_MAX];
	ck_assert_int_eq(kg_user(d, "sesame-one\n", out, sizeof out, "add", "pwc",
	                          "--password-stdin"), 0);
	struct kc *a = kg_login(d, "pwc", "sesame-one", token, sizeof token);
	struct kc *a2 = kg_login(d, "pwc", "sesame-one", NULL, 0);
	struct kp other;
	kp_guest(d, &other);
	ck_assert_int_eq(kg_user(d, "sesame-two\n", out, sizeof out, "passwd", "pwc",
	                          "--password-stdin"), 0);
	ck_assert(kc_closed(a, 10000));
	ck_assert(kc_closed(a2, 10000));
	ck_assert(kc_saw(a, "\"session_ended\""));
	ck_assert(kc_saw(a, "the password was changed"));
	kc_close(a);
	kc_close(a2);
	struct kc *r = kc_hello(d);
	kc_error(r, kc_req(r, "resume", "{s:s}", "token", token), "auth_failed");
	kc_close(r);
	kc_ok(other.c, kc_req(other.c, "ping", NULL));   /* others untouched */
	ck_assert(!kc_saw(other.c, "session_ended"));

	/* --must-change: the same, and a login waiting on the change goes too */
	a = kg_login(d, "pwc", "sesame-two", token, sizeof token);
	ck_assert_int_eq(kg_user(d, "sesame-three\n", out, sizeof out, "passwd", "pwc",
	                          "--must-change", "--password-stdin"), 0);
	ck_assert(kc_closed(a, 10000));
	ck_assert(kc_saw(a, "\"session_ended\""));
	kc_close(a);
	r = kc_hello(d);
	kc_error(r, kc_req(r, "resume", "{s:s}", "token", token), "auth_failed");
	json_t *j = kc_ok(r, kc_req(r, "login", "{s:s, s:s}", "user", "pwc", "password", "sesame-three"));
	ck_assert(json_is_true(json_object_get(j, "must_change_password")));
	ck_assert_int_eq(kg_user(d, "sesame-four\n", out, sizeof out, "passwd", "pwc",
	                          "--password-stdin"), 0);
	ck_assert(kc_closed(r, 10000));
	kc_close(r);

	/* A password changed over the wire keeps its own connection, past the
	 * daemon's next look at the accounts. */
	a = kg_login(d, "pwc", "sesame-four", NULL, 0);
	kc_ok(a, kc_req(a, "passwd", "{s:s, s:s}", "old", "sesame-four", "new", "sesame-five"));
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "role", "pwc", "umpire"), 0);
	kt_sleep_ms(2500);   /* AUTH_USERS_CHECK_MS, twice over */
	kc_ok(a, kc_req(a, "ping", NULL));
	ck_assert(!kc_saw(a, "session_ended"));
	ck_assert_str_eq(login_code(d, "pwc", "sesame-five", buf, sizeof buf), "ok");
	kc_close(a);
	kc_close(other.c);
	kd_stop(d);
}
END_TEST

/*
 * Regression (club admin probe): `kriegd user disable NAME; kriegd user
 * enable NAME` between two of the daemon's looks left the flag as it
 * was, and the member logged in, told nothing; PROTOCOL.md promises the
 * close within about a second of the disable.  The daemon's own look is
 * held back here (KRIEGD_USERS_CHECK_MS): the wire's admin change looks
 * the same way (auth_users_changed), at a moment the test chooses.
 */
START_TEST(disable_then_enable_closes)
{
	setenv("KRIEGD_USERS_CHECK_MS", "600000", 1);
	struct kd *d = kd_start("");
	unsetenv("KRIEGD_USERS_CHECK_MS");
	char out[4096];
	kg_user_add(d, "boss", "admin", "sesame-boss");
	kg_user_add(d, "flip", "player", "sesame-flip");
	kg_user_add(d, "stay", "player", "sesame-stay");
	struct kc *boss = kg_login(d, "boss", "sesame-boss", NULL, 0);
	struct kc *flip = kg_login(d, "flip", "sesame-flip", NULL, 0);
	struct kc *stay = kg_login(d, "stay", "sesame-stay", NULL, 0);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "disable", "flip"), 0);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "enable", "flip"), 0);
	kc_ok(flip, kc_req(flip, "ping", NULL));   /* nobody has looked yet */
	/* A login after the enable, before the look, is no login the disable
	 * was for: it stays (the review: closed too). */
	struct kc *again = kg_login(d, "flip", "sesame-flip", NULL, 0);
	kc_ok(boss, kc_req(boss, "user_role", "{s:s, s:s}", "user", "stay", "role", "umpire"));
	ck_assert(kc_closed(flip, 10000));
	ck_assert(kc_saw(flip, "account_disabled"));
	kc_ok(stay, kc_req(stay, "ping", NULL));
	kc_ok(again, kc_req(again, "ping", NULL));
	ck_assert(!kc_saw(again, "account_disabled"));
	/* Enabled: its next login stays, at the next look too. */
	kc_close(flip);
	kc_close(again);
	flip = kg_login(d, "flip", "sesame-flip", NULL, 0);
	kc_ok(boss, kc_req(boss, "user_role", "{s:s, s:s}", "user", "stay", "role", "player"));
	kc_ok(flip, kc_req(flip, "ping", NULL));
	ck_assert(!kc_saw(flip, "account_disabled"));
	kc_close(flip);
	kc_close(stay);
	kc_close(boss);
	kd_stop(d);
}
END_TEST

/*
 * Regression (the review): a disabled account's connection closes after
 * the commits in progress, and meanwhile is still its user's: the look at
 * the audit then the look at the flags (or a second look) each sent it
 * account_disabled.  Told once.  A move's commit is held by another
 * process's lock while an admin disables the account.
 */
START_TEST(disabled_told_once)
{
	struct kd *d = kd_start("busy_timeout = 3s\nlog_level = debug\n");
	kg_user_add(d, "boss", "admin", "sesame-boss");
	kg_user_add(d, "flip", "player", "sesame-flip");
	struct kc *boss = kg_login(d, "boss", "sesame-boss", NULL, 0);
	struct kc *flip = kg_login(d, "flip", "sesame-flip", NULL, 0);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t g = kg_new_game(&w, &b);
	struct sqlite3 *lock = kd_lock_db(d);
	int moves = kg_reads(d, "move"), disables = kg_reads(d, "user_disable");
	long long move = kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)g, "move", "e4");
	/* read before the disable (another connection): its commit waits for the lock */
	kg_read(d, "move", moves);
	long long off = kc_req(boss, "user_disable", "{s:s}", "user", "flip");
	kg_read(d, "user_disable", disables);   /* read while the commit is held */
	kd_unlock_db(lock);
	kc_ok(boss, off);
	kc_ok(w.c, move);
	ck_assert(kc_closed(flip, 10000));
	int told = 0;
	for (size_t i = 0; i < kc_nlines(flip); i++)
		told += strstr(kc_line(flip, i), "account_disabled") != NULL;
	ck_assert_int_eq(told, 1);
	kc_close(flip);
	kc_close(boss);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(disable_closes)
{
	struct kd *d = kd_start("");
	char out[4096], buf[64], token[KP_TOKEN_MAX];
	ck_assert_int_eq(kg_user(d, "sesame-dis\n", out, sizeof out, "add", "dis", "--role", "umpire",
	                          "--password-stdin"), 0);
	struct kc *a = kg_login(d, "dis", "sesame-dis", token, sizeof token);
	struct kc *b = kg_login(d, "dis", "sesame-dis", NULL, 0);
	struct kp other;
	kp_guest(d, &other);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "disable", "dis"), 0);
	/* The daemon notices within its check interval: both sessions go. */
	ck_assert(kc_closed(a, 10000));
	ck_assert(kc_closed(b, 10000));
	ck_assert(kc_saw(a, "account_disabled"));
	/* Others are untouched. */
	kc_ok(other.c, kc_req(other.c, "ping", NULL));
	ck_assert_str_eq(login_code(d, "dis", "sesame-dis", buf, sizeof buf), "account_disabled");
	/* A wrong password still says only that. */
	ck_assert_str_eq(login_code(d, "dis", "wrong-password", buf, sizeof buf), "auth_failed");
	struct kc *r = kc_hello(d);
	kc_error(r, kc_req(r, "resume", "{s:s}", "token", token), "account_disabled");
	kc_close(r);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "enable", "dis"), 0);
	ck_assert_str_eq(login_code(d, "dis", "sesame-dis", buf, sizeof buf), "ok");
	r = kc_hello(d);
	kc_ok(r, kc_req(r, "resume", "{s:s}", "token", token));
	kc_close(r);
	kc_close(a);
	kc_close(b);
	kc_close(other.c);
	kd_stop(d);
}
END_TEST

static Suite *roles_suite(void)
{
	Suite *s = suite_create("roles");
	TCase *tc = tcase_create("roles");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, user_add_role_who);
	tcase_add_test(tc, user_cli_errors);
	tcase_add_test(tc, user_cli_needs_a_database);
	tcase_add_test(tc, user_list);
	tcase_add_test(tc, user_passwd);
	tcase_add_test(tc, cli_passwd_ends_sessions);
	tcase_add_test(tc, disable_closes);
	tcase_add_test(tc, disable_then_enable_closes);
	tcase_add_test(tc, disabled_told_once);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(roles_suite)
