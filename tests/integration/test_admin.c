/*
 * test_admin.c — running a club (issue 11) against a real kriegd:
 *   policy_open          the default: register and guest work
 *   policy_invite        register needs a single-use invite an admin made
 *   policy_closed        register refused; an admin creates the account,
 *                        whose first login must change the password
 *   guests_off           guest refused, register still works
 *   passwd_ends_others   passwd ends every other session and its token,
 *                        keeps this one; wrong old / weak new refused
 *   admin_forbidden      every admin request is forbidden to a player
 *   admin_users          the user list: role, state, last login, address
 *   admin_disable_role   disable closes live sessions, enable lets back in;
 *                        a role change shows in who
 *   admin_reset          reset ends the sessions; the next login must
 *                        change the password and nothing else is allowed
 *   admin_kick_broadcast kick closes connections, broadcast reaches everyone
 *   admin_closes_waiting_logins  kick, user_reset and user_disable close a
 *                        connection whose login waits on a password change
 *   admin_audit          every admin action that changes something is an
 *                        audit row with the admin's name, and a log line;
 *                        one that changes nothing is none
 *   admin_game_end       an admin ends games from the umpire's chair
 *                        (adjudicate, umpire_abort), each audited
 *   admin_invites        invites lists the codes (never the codes
 *                        themselves), invite_revoke ends an unused one
 *   offline_audit        `kriegd user ...` changes are audited (the Unix
 *                        user at the console); --must-change
 */
#include <check.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <sqlite3.h>

#include "check_main.h"
#include "harness.h"
#include "harness_game.h"

#define PW "correct horse"

/* A password one byte over PROTO_PASSWORD_MAX (256): weak_password, not
 * the field's bad_request, wherever a new password is set. */
static const char *too_long(void)
{
	static char pw[258];
	memset(pw, 'p', sizeof pw - 1);
	return pw;
}

static struct kc *reg(struct kd *d, const char *user)
{
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "register", "{s:s, s:s}", "user", user, "password", PW));
	return c;
}

/* An admin "boss" made by the operator's tool (any policy), logged in. */
static struct kc *boss(struct kd *d)
{
	kg_user_add(d, "boss", "admin", "boss-password");
	return kg_login(d, "boss", "boss-password", NULL, 0);
}

/* The row of `users` for name (borrowed), or NULL. */
static json_t *user_row(struct kc *admin, const char *name)
{
	json_t *r = kc_ok(admin, kc_req(admin, "users", NULL)), *u;
	size_t i;
	json_array_foreach(json_object_get(r, "users"), i, u)
		if (strcmp(json_string_value(json_object_get(u, "name")), name) == 0)
			return u;
	return NULL;
}

/* The audit rows' "action target" strings, newest first, joined by '|',
 * of the rows made over the protocol (the offline tool's, made by the
 * console, are skipped: offline_audit). */
static void audit_actions(struct kc *admin, char *buf, size_t len)
{
	json_t *r = kc_ok(admin, kc_req(admin, "audit", NULL)), *e;
	size_t i, used = 0, n = 0;
	buf[0] = '\0';
	json_array_foreach(json_object_get(r, "entries"), i, e) {
		if (strcmp(json_string_value(json_object_get(e, "address")), "console") == 0)
			continue;
		ck_assert_str_eq(json_string_value(json_object_get(e, "admin")), "boss");
		ck_assert_str_eq(json_string_value(json_object_get(e, "address")), "127.0.0.1");
		ck_assert(json_integer_value(json_object_get(e, "at")) > 0);
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s", n++ ? "|" : "",
		                         json_string_value(json_object_get(e, "action")),
		                         json_string_value(json_object_get(e, "target")));
		ck_assert(used < len);
	}
}

START_TEST(policy_open)
{
	struct kd *d = kd_start("registration = open\nguests = on\n");
	struct kc *a = reg(d, "alice");
	struct kp g;
	kp_guest(d, &g);
	/* A guest disabled (PROTOCOL.md user_disable; the club probe found it
	 * undocumented): its connection closes, its token no longer resumes,
	 * the audit says it was a guest. */
	struct kc *b = boss(d);
	kc_ok(b, kc_req(b, "user_disable", "{s:s}", "user", g.name));
	ck_assert(kc_closed(g.c, 10000));
	ck_assert(kc_saw(g.c, "account_disabled"));
	kc_close(g.c);
	struct kc *c = kc_hello(d);
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", g.token), "account_disabled");
	json_t *r = kc_ok(b, kc_req(b, "audit", NULL));
	json_t *row = json_array_get(json_object_get(r, "entries"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(row, "action")), "user_disable");
	ck_assert_str_eq(json_string_value(json_object_get(row, "target")), g.name);
	ck_assert_str_eq(json_string_value(json_object_get(row, "detail")), "guest");
	kc_close(c);
	kc_close(b);
	kc_close(a);
	kd_stop(d);
}
END_TEST

START_TEST(policy_invite)
{
	struct kd *d = kd_start("registration = invite\n");
	struct kc *c = kc_hello(d);
	json_t *r = kc_error(c, kc_req(c, "register", "{s:s, s:s}", "user", "alice", "password", PW),
	                     "invite_required");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_object_get(r, "error"),
	                                                               "message")), "invite"));
	kc_error(c, kc_req(c, "register", "{s:s, s:s, s:s}", "user", "alice", "password", PW,
	                   "invite", "nonsense"), "bad_invite");
	kc_error(c, kc_req(c, "register", "{s:s, s:s, s:s}", "user", "alice", "password", PW,
	                   "invite", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), "bad_invite");
	/* Guests still play, but cannot invite. */
	struct kp g;
	kp_guest(d, &g);
	kc_error(g.c, kc_req(g.c, "invite", NULL), "forbidden");
	struct kc *b = boss(d);
	r = kc_ok(b, kc_req(b, "invite", NULL));
	char code[64];
	snprintf(code, sizeof code, "%s", json_string_value(json_object_get(r, "invite")));
	ck_assert_int_eq((int)strlen(code), 43);
	ck_assert(json_integer_value(json_object_get(r, "expires")) > 0);
	r = kc_ok(c, kc_req(c, "register", "{s:s, s:s, s:s}", "user", "alice", "password", PW,
	                    "invite", code));
	ck_assert_str_eq(json_string_value(json_object_get(r, "user")), "alice");
	/* Single use. */
	struct kc *c2 = kc_hello(d);
	kc_error(c2, kc_req(c2, "register", "{s:s, s:s, s:s}", "user", "carol", "password", PW,
	                    "invite", code), "bad_invite");
	ck_assert_ptr_null(user_row(b, "carol"));
	ck_assert_ptr_nonnull(user_row(b, "alice"));
	/* The code itself is never in the audit, nor in the log. */
	char *log = kd_log(d);
	ck_assert_ptr_null(strstr(log, code));
	free(log);
	kc_close(c2);
	kc_close(g.c);
	kc_close(b);
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(policy_closed)
{
	struct kd *d = kd_start("registration = closed\n");
	struct kc *c = kc_hello(d);
	kc_error(c, kc_req(c, "register", "{s:s, s:s}", "user", "alice", "password", PW),
	         "registration_closed");
	struct kc *b = boss(d);
	json_t *r = kc_ok(b, kc_req(b, "user_create", "{s:s, s:s, s:s}", "user", "alice", "password",
	                            "first-password", "role", "umpire"));
	ck_assert(json_is_true(json_object_get(r, "must_change_password")));
	ck_assert_str_eq(json_string_value(json_object_get(r, "role")), "umpire");
	kc_error(b, kc_req(b, "user_create", "{s:s, s:s}", "user", "ALICE", "password",
	                   "first-password"), "user_exists");
	kc_error(b, kc_req(b, "user_create", "{s:s, s:s}", "user", "guest-x", "password",
	                   "first-password"), "bad_name");
	/* (a probe) nor one that reads as it: a person could not tell them apart */
	kc_error(b, kc_req(b, "user_create", "{s:s, s:s}", "user", "aIice", "password",
	                   "first-password"), "user_exists");
	kc_error(b, kc_req(b, "user_create", "{s:s, s:s}", "user", "dave", "password", "short"),
	         "weak_password");
	kc_error(b, kc_req(b, "user_create", "{s:s, s:s}", "user", "dave", "password", too_long()),
	         "weak_password");
	kc_error(b, kc_req(b, "user_create", "{s:s, s:s, s:s}", "user", "dave", "password",
	                   "first-password", "role", "king"), "bad_request");
	/* The first login must change the password: no token, not logged in. */
	r = kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "alice", "password", "first-password"));
	ck_assert(json_is_true(json_object_get(r, "must_change_password")));
	ck_assert_ptr_null(json_object_get(r, "token"));
	kc_error(c, kc_req(c, "who", NULL), "password_change_required");
	kc_error(c, kc_req(c, "passwd", "{s:s, s:s}", "old", "first-password", "new",
	                   "first-password"), "weak_password");
	r = kc_ok(c, kc_req(c, "passwd", "{s:s, s:s}", "old", "first-password", "new", "own-password"));
	ck_assert_str_eq(json_string_value(json_object_get(r, "user")), "alice");
	ck_assert_int_eq((int)json_string_length(json_object_get(r, "token")), 43);
	kc_ok(c, kc_req(c, "who", NULL));
	kc_close(c);
	c = kg_login(d, "alice", "own-password", NULL, 0);
	ck_assert(!json_is_true(json_object_get(user_row(b, "alice"), "must_change_password")));
	/* Created without must_change: logs in at once. */
	kc_ok(b, kc_req(b, "user_create", "{s:s, s:s, s:b}", "user", "erin", "password",
	                "erin-password", "must_change", 0));
	kc_close(kg_login(d, "erin", "erin-password", NULL, 0));
	kc_close(c);
	kc_close(b);
	kd_stop(d);
}
END_TEST

START_TEST(guests_off)
{
	struct kd *d = kd_start("guests = off\n");
	struct kc *c = kc_hello(d);
	kc_error(c, kc_req(c, "guest", NULL), "guests_disabled");
	kc_ok(c, kc_req(c, "register", "{s:s, s:s}", "user", "alice", "password", PW));
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(passwd_ends_others)
{
	struct kd *d = kd_start(NULL);
	char ta[KP_TOKEN_MAX], tb[KP_TOKEN_MAX];
	kc_close(reg(d, "alice"));
	struct kc *a = kg_login(d, "alice", PW, ta, sizeof ta);
	struct kc *b = kg_login(d, "alice", PW, tb, sizeof tb);
	struct kc *c = kg_login(d, "alice", PW, NULL, 0);
	struct kc *bob = reg(d, "bob");
	kc_error(a, kc_req(a, "passwd", "{s:s, s:s}", "old", "wrong-password", "new", "new-password"),
	         "auth_failed");
	kc_error(a, kc_req(a, "passwd", "{s:s, s:s}", "old", PW, "new", "alice"), "weak_password");
	kc_error(a, kc_req(a, "passwd", "{s:s, s:s}", "old", PW, "new", too_long()), "weak_password");
	json_t *r = kc_ok(a, kc_req(a, "passwd", "{s:s, s:s}", "old", PW, "new", "new-password"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "ended")), 2);
	ck_assert(kc_closed(b, 10000));
	ck_assert(kc_closed(c, 10000));
	ck_assert(kc_saw(b, "\"session_ended\""));
	/* This session goes on, with its token; the others' tokens are dead. */
	kc_ok(a, kc_req(a, "who", NULL));
	struct kc *r1 = kc_hello(d);
	kc_error(r1, kc_req(r1, "resume", "{s:s}", "token", tb), "auth_failed");
	kc_ok(r1, kc_req(r1, "resume", "{s:s}", "token", ta));
	kc_close(r1);
	/* Another user is untouched. */
	kc_ok(bob, kc_req(bob, "ping", NULL));
	ck_assert(!kc_saw(bob, "session_ended"));
	r1 = kc_hello(d);
	kc_error(r1, kc_req(r1, "login", "{s:s, s:s}", "user", "alice", "password", PW), "auth_failed");
	kc_close(r1);
	kc_close(kg_login(d, "alice", "new-password", NULL, 0));
	/* Not logged in: nothing to change.  A guest has no password. */
	r1 = kc_hello(d);
	kc_error(r1, kc_req(r1, "passwd", "{s:s, s:s}", "old", PW, "new", "new-password"),
	         "not_logged_in");
	kc_close(r1);
	struct kp g;
	kp_guest(d, &g);
	kc_error(g.c, kc_req(g.c, "passwd", "{s:s, s:s}", "old", PW, "new", "new-password"),
	         "illegal_action");
	kc_close(g.c);
	kc_close(bob);
	kc_close(a);
	kc_close(b);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/* The first 12 hex digits of the SHA-256 of an invite code: how
 * `invites` names it. */
static void code_prefix(const char *code, char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	ck_assert(EVP_Digest(code, strlen(code), md, &mdlen, EVP_sha256(), NULL) == 1);
	for (int i = 0; i < 6; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* The `invites` row of the code whose digest starts with prefix (borrowed). */
static json_t *invite_row(json_t *list, const char *prefix)
{
	json_t *iv;
	size_t i;
	json_array_foreach(json_object_get(list, "invites"), i, iv)
		if (strcmp(json_string_value(json_object_get(iv, "digest")), prefix) == 0)
			return iv;
	return NULL;
}

/* invites lists the codes without revealing them; invite_revoke ends an
 * unused one; both admin-only, the revocation audited. */
START_TEST(admin_invites)
{
	struct kd *d = kd_start("registration = invite\n");
	struct kc *b = boss(d);
	char code[3][64], pre[3][16];
	for (int i = 0; i < 3; i++) {
		json_t *r = kc_ok(b, kc_req(b, "invite", NULL));
		snprintf(code[i], sizeof code[i], "%s", json_string_value(json_object_get(r, "invite")));
		code_prefix(code[i], pre[i]);
	}
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "register", "{s:s, s:s, s:s}", "user", "alice", "password", PW,
	                "invite", code[0]));
	kc_close(c);

	json_t *r = kc_ok(b, kc_req(b, "invites", NULL));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), 3);
	char *text = json_dumps(r, 0);
	for (int i = 0; i < 3; i++)
		ck_assert_ptr_null(strstr(text, code[i]));   /* a code is never shown again */
	free(text);
	/* Newest first, also within a second (club probe: codes made in the
	 * same second came in their digests' order) */
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(json_string_value(json_object_get(
		                     json_array_get(json_object_get(r, "invites"), (size_t)i), "digest")), pre[2 - i]);
	json_t *iv = invite_row(r, pre[0]);
	ck_assert_ptr_nonnull(iv);
	ck_assert_str_eq(json_string_value(json_object_get(iv, "state")), "used");
	ck_assert_str_eq(json_string_value(json_object_get(iv, "used_by")), "alice");
	ck_assert_str_eq(json_string_value(json_object_get(iv, "created_by")), "boss");
	ck_assert(json_integer_value(json_object_get(iv, "used")) > 0);
	ck_assert(json_integer_value(json_object_get(iv, "expires")) >
	          json_integer_value(json_object_get(iv, "created")));
	iv = invite_row(r, pre[1]);
	ck_assert_ptr_nonnull(iv);
	ck_assert_str_eq(json_string_value(json_object_get(iv, "state")), "open");
	ck_assert(json_is_null(json_object_get(iv, "used_by")));
	ck_assert(json_is_null(json_object_get(iv, "used")));

	json_int_t expires = json_integer_value(json_object_get(iv, "expires"));
	/* Revoke the second by its digest's start (any case). */
	char upper[16];
	for (int i = 0; i < 13; i++)
		upper[i] = (char)(pre[1][i] >= 'a' && pre[1][i] <= 'f' ? pre[1][i] - 32 : pre[1][i]);
	r = kc_ok(b, kc_req(b, "invite_revoke", "{s:s}", "digest", upper));
	ck_assert_str_eq(json_string_value(json_object_get(r, "digest")), pre[1]);
	ck_assert_str_eq(json_string_value(json_object_get(r, "state")), "revoked");
	c = kc_hello(d);
	kc_error(c, kc_req(c, "register", "{s:s, s:s, s:s}", "user", "carol", "password", PW,
	                   "invite", code[1]), "bad_invite");
	/* Refused: again, a used code, an unknown one, not a digest. */
	kc_error(b, kc_req(b, "invite_revoke", "{s:s}", "digest", pre[1]), "bad_invite");
	kc_error(b, kc_req(b, "invite_revoke", "{s:s}", "digest", pre[0]), "bad_invite");
	kc_error(b, kc_req(b, "invite_revoke", "{s:s}", "digest", "zzzzzzzzzzzz"), "bad_request");
	kc_error(b, kc_req(b, "invite_revoke", "{s:s}", "digest", "abc"), "bad_request");
	kc_error(b, kc_req(b, "invite_revoke", "{s:s}", "digest", code[2]), "bad_request");
	r = kc_ok(b, kc_req(b, "invites", NULL));
	iv = invite_row(r, pre[1]);
	ck_assert_str_eq(json_string_value(json_object_get(iv, "state")), "revoked");
	ck_assert(json_is_null(json_object_get(iv, "used_by")));
	ck_assert(json_integer_value(json_object_get(iv, "used")) > 0);
	/* Regression: the revocation time overwrote the expiry; `used` says when */
	ck_assert_int_eq(json_integer_value(json_object_get(iv, "expires")), expires);
	ck_assert(expires > json_integer_value(json_object_get(iv, "used")));
	ck_assert_str_eq(json_string_value(json_object_get(invite_row(r, pre[2]), "state")), "open");
	/* The others stand. */
	kc_ok(c, kc_req(c, "register", "{s:s, s:s, s:s}", "user", "carol", "password", PW,
	                "invite", code[2]));
	char buf[512], want[64];
	audit_actions(b, buf, sizeof buf);
	ck_assert_str_eq(buf, "invite_revoke |invite |invite |invite ");
	r = kc_ok(b, kc_req(b, "audit", NULL));
	snprintf(want, sizeof want, "code_sha256=%s", pre[1]);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(r, "entries"), 0), "detail")), want);
	kc_close(c);
	kc_close(b);
	kd_stop(d);
}
END_TEST

START_TEST(admin_forbidden)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kc *p = reg(d, "plain");
	ck_assert_int_eq(kg_user(d, NULL, NULL, 0, "role", "plain", "umpire"), 0);
	static const char *const types[] = { "users", "invite", "invites", "audit" };
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		kc_error(p, kc_req(p, types[i], NULL), "forbidden");
	kc_error(p, kc_req(p, "user_create", "{s:s, s:s}", "user", "x-new", "password", PW),
	         "forbidden");
	kc_error(p, kc_req(p, "user_disable", "{s:s}", "user", "plain"), "forbidden");
	kc_error(p, kc_req(p, "user_enable", "{s:s}", "user", "plain"), "forbidden");
	kc_error(p, kc_req(p, "user_reset", "{s:s, s:s}", "user", "plain", "password", PW),
	         "forbidden");
	kc_error(p, kc_req(p, "user_role", "{s:s, s:s}", "user", "plain", "role", "admin"),
	         "forbidden");
	kc_error(p, kc_req(p, "kick", "{s:s}", "user", "plain"), "forbidden");
	kc_error(p, kc_req(p, "broadcast", "{s:s}", "text", "hello"), "forbidden");
	kc_error(p, kc_req(p, "invite_revoke", "{s:s}", "digest", "0123456789ab"), "forbidden");
	/* Whatever the fields: the role is checked before them (PROTOCOL.md
	 * "Administration"), so a missing, unknown or out-of-range one is
	 * still `forbidden`. */
	static const char *const all[] = { "users", "user_create", "user_disable", "user_enable",
		                           "user_reset", "user_role", "kick", "invite", "invites",
		                           "invite_revoke", "broadcast", "audit" };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		kc_error(p, kc_req(p, all[i], NULL), "forbidden");
		kc_error(p, kc_req(p, all[i], "{s:i}", "zz", 1), "forbidden");
		kc_error(p, kc_req(p, all[i], "{s:i, s:s}", "from", -1, "digest", "zz"), "forbidden");
	}
	kc_close(p);
	kd_stop(d);
}
END_TEST

START_TEST(admin_users)
{
	struct kd *d = kd_start(NULL);
	kc_close(reg(d, "alice"));
	struct kc *b = boss(d);
	json_t *u = user_row(b, "alice");
	ck_assert_ptr_nonnull(u);
	ck_assert_str_eq(json_string_value(json_object_get(u, "role")), "player");
	ck_assert_str_eq(json_string_value(json_object_get(u, "state")), "enabled");
	/* Registering logged in from 127.0.0.1. */
	ck_assert(json_integer_value(json_object_get(u, "last_login")) > 0);
	ck_assert_str_eq(json_string_value(json_object_get(u, "last_address")), "127.0.0.1");
	ck_assert_int_eq(json_integer_value(json_object_get(u, "online")), 0);
	ck_assert(!json_is_true(json_object_get(u, "must_change_password")));
	/* An account made by an admin has never logged in. */
	kc_ok(b, kc_req(b, "user_create", "{s:s, s:s}", "user", "carol", "password", "carol-password"));
	u = user_row(b, "carol");
	ck_assert(json_is_null(json_object_get(u, "last_login")));
	ck_assert(json_is_null(json_object_get(u, "last_address")));
	ck_assert(json_is_true(json_object_get(u, "must_change_password")));
	struct kc *a = kc_hello_from(d, "127.0.0.2");
	kc_ok(a, kc_req(a, "login", "{s:s, s:s}", "user", "alice", "password", PW));
	u = user_row(b, "alice");
	ck_assert(json_integer_value(json_object_get(u, "last_login")) > 0);
	ck_assert_str_eq(json_string_value(json_object_get(u, "last_address")), "127.0.0.2");
	ck_assert_int_eq(json_integer_value(json_object_get(u, "online")), 1);
	u = user_row(b, "boss");
	ck_assert_str_eq(json_string_value(json_object_get(u, "role")), "admin");
	ck_assert_str_eq(json_string_value(json_object_get(u, "last_address")), "127.0.0.1");
	kc_close(a);
	kc_close(b);
	kd_stop(d);
}
END_TEST

START_TEST(admin_disable_role)
{
	struct kd *d = kd_start(NULL);
	char token[KP_TOKEN_MAX];
	kc_close(reg(d, "alice"));
	struct kc *a = kg_login(d, "alice", PW, token, sizeof token);
	struct kc *b = boss(d);
	kc_error(b, kc_req(b, "user_disable", "{s:s}", "user", "nobody"), "no_such_user");
	kc_error(b, kc_req(b, "user_disable", "{s:s}", "user", "boss"), "illegal_action");
	json_t *r = kc_ok(b, kc_req(b, "user_disable", "{s:s}", "user", "ALICE"));
	ck_assert_str_eq(json_string_value(json_object_get(r, "user")), "alice");
	ck_assert_str_eq(json_string_value(json_object_get(r, "state")), "disabled");
	/* Closed at once (the same path as `kriegd user disable`). */
	ck_assert(kc_closed(a, 10000));
	ck_assert(kc_saw(a, "account_disabled"));
	ck_assert_str_eq(json_string_value(json_object_get(user_row(b, "alice"), "state")),
	                 "disabled");
	struct kc *c = kc_hello(d);
	kc_error(c, kc_req(c, "login", "{s:s, s:s}", "user", "alice", "password", PW),
	         "account_disabled");
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", token), "account_disabled");
	kc_ok(b, kc_req(b, "user_enable", "{s:s}", "user", "alice"));
	kc_ok(c, kc_req(c, "resume", "{s:s}", "token", token));
	/* Roles. */
	kc_error(b, kc_req(b, "user_role", "{s:s, s:s}", "user", "alice", "role", "king"),
	         "bad_request");
	kc_error(b, kc_req(b, "user_role", "{s:s, s:s}", "user", "boss", "role", "player"),
	         "illegal_action");
	r = kc_ok(b, kc_req(b, "user_role", "{s:s, s:s}", "user", "alice", "role", "umpire"));
	ck_assert_str_eq(json_string_value(json_object_get(r, "role")), "umpire");
	r = kc_ok(c, kc_req(c, "who", NULL));
	json_t *x;
	size_t i;
	bool seen = false;
	json_array_foreach(json_object_get(r, "users"), i, x) {
		if (strcmp(json_string_value(json_object_get(x, "name")), "alice") == 0) {
			ck_assert_str_eq(json_string_value(json_object_get(x, "role")), "umpire");
			seen = true;
		}
	}
	ck_assert(seen);
	struct kp g;
	kp_guest(d, &g);
	kc_error(b, kc_req(b, "user_role", "{s:s, s:s}", "user", g.name, "role", "admin"),
	         "no_such_user");
	kc_close(g.c);
	kc_close(c);
	kc_close(a);
	kc_close(b);
	kd_stop(d);
}
END_TEST

START_TEST(admin_reset)
{
	struct kd *d = kd_start(NULL);
	char token[KP_TOKEN_MAX];
	kc_close(reg(d, "alice"));
	struct kc *a = kg_login(d, "alice", PW, token, sizeof token);
	struct kc *b = boss(d);
	kc_error(b, kc_req(b, "user_reset", "{s:s, s:s}", "user", "alice", "password", "alice"),
	         "weak_password");
	kc_error(b, kc_req(b, "user_reset", "{s:s, s:s}", "user", "alice", "password", too_long()),
	         "weak_password");
	kc_error(b, kc_req(b, "user_reset", "{s:s, s:s}", "user", "boss", "password", "temp-password"),
	         "illegal_action");
	json_t *r = kc_ok(b, kc_req(b, "user_reset", "{s:s, s:s}", "user", "alice", "password",
	                            "temp-password"));
	ck_assert(json_is_true(json_object_get(r, "must_change_password")));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "closed")), 1);
	ck_assert(kc_closed(a, 10000));
	ck_assert(kc_saw(a, "\"session_ended\""));
	struct kc *c = kc_hello(d);
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", token), "auth_failed");
	kc_error(c, kc_req(c, "login", "{s:s, s:s}", "user", "alice", "password", PW), "auth_failed");
	r = kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "alice", "password", "temp-password"));
	ck_assert(json_is_true(json_object_get(r, "must_change_password")));
	ck_assert_ptr_null(json_object_get(r, "token"));
	/* Only passwd: everything else needs the login it has not got, and
	 * says why (a connection that never logged in is only not_logged_in). */
	kc_error(c, kc_req(c, "seek", NULL), "password_change_required");
	json_t *e = kc_response(c, kc_req(c, "who", NULL));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"), "code")),
	                 "password_change_required");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_object_get(e, "error"),
	                                                                "message")), "passwd"));
	struct kc *other = kc_hello(d);
	kc_error(other, kc_req(other, "who", NULL), "not_logged_in");
	kc_close(other);
	kc_error(c, kc_req(c, "passwd", "{s:s, s:s}", "old", "wrong-password", "new",
	                   "alice-again"), "auth_failed");
	r = kc_ok(c, kc_req(c, "passwd", "{s:s, s:s}", "old", "temp-password", "new", "alice-again"));
	ck_assert_int_eq((int)json_string_length(json_object_get(r, "token")), 43);
	kc_ok(c, kc_req(c, "who", NULL));
	kc_close(kg_login(d, "alice", "alice-again", NULL, 0));
	kc_close(c);
	kc_close(a);
	kc_close(b);
	kd_stop(d);
}
END_TEST

START_TEST(admin_kick_broadcast)
{
	struct kd *d = kd_start(NULL);
	struct kc *a = reg(d, "alice");
	struct kc *a2 = kg_login(d, "alice", PW, NULL, 0);
	struct kc *bob = reg(d, "bob");
	struct kc *anon = kc_hello(d);   /* not logged in: not "online" */
	struct kc *b = boss(d);
	/* Regression (club probe): a reason or notice of spaces only went
	 * out (its refusal says "not blank"): refused, nothing closed or sent
	 * (the kick below closes both, bob's first notice is the real one) */
	kc_error(b, kc_req(b, "kick", "{s:s, s:s}", "user", "alice", "reason", "   "), "bad_request");
	kc_error(b, kc_req(b, "kick", "{s:s, s:s}", "user", "alice", "reason", "\xc2\xa0"), "bad_request");
	kc_error(b, kc_req(b, "broadcast", "{s:s}", "text", "   "), "bad_request");
	kc_error(b, kc_req(b, "broadcast", "{s:s}", "text", " \xc2\xa0 "), "bad_request");
	json_t *r = kc_ok(b, kc_req(b, "kick", "{s:s, s:s}", "user", "alice", "reason",
	                            "cool down"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "closed")), 2);
	ck_assert(kc_closed(a, 10000));
	ck_assert(kc_closed(a2, 10000));
	ck_assert(kc_saw(a, "cool down"));
	/* Regression (operations probe): a kick that closed nothing wrote an
	 * audit row; it changes nothing, so it writes none */
	r = kc_ok(b, kc_req(b, "kick", "{s:s}", "user", "alice"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "closed")), 0);
	char acts[256];
	audit_actions(b, acts, sizeof acts);
	ck_assert_str_eq(acts, "kick alice");
	kc_error(b, kc_req(b, "kick", "{s:s}", "user", "boss"), "illegal_action");
	kc_error(b, kc_req(b, "broadcast", "{s:s}", "text", ""), "bad_request");
	kc_error(b, kc_req(b, "broadcast", "{s:s}", "text", "two\nlines"), "bad_request");
	r = kc_ok(b, kc_req(b, "broadcast", "{s:s}", "text", "the club closes at ten"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "sent")), 2);   /* bob and boss */
	json_t *ev = kc_event(bob, "notice");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "text")), "the club closes at ten");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "from")), "boss");
	kc_event(b, "notice");
	kc_no_event(anon, "notice");
	kc_close(anon);
	kc_close(bob);
	kc_close(a);
	kc_close(a2);
	kc_close(b);
	kd_stop(d);
}
END_TEST

/*
 * Regression: kick missed a connection whose login waited on a password
 * change (must_change_password): `closed:0`, and it could then complete
 * `passwd` and log in.  Such a connection is the account's too: kick,
 * user_disable and user_reset close it.
 */
static struct kc *waiting_login(struct kd *d, const char *user, const char *pw)
{
	struct kc *c = kc_hello(d);
	json_t *r = kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", user, "password", pw));
	ck_assert(json_is_true(json_object_get(r, "must_change_password")));
	return c;
}

START_TEST(admin_closes_waiting_logins)
{
	struct kd *d = kd_start(NULL);
	struct kc *b = boss(d);
	kc_ok(b, kc_req(b, "user_create", "{s:s, s:s}", "user", "hank", "password", "hank-first"));
	struct kc *h = waiting_login(d, "hank", "hank-first");
	json_t *r = kc_ok(b, kc_req(b, "kick", "{s:s, s:s}", "user", "hank", "reason", "not now"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "closed")), 1);
	ck_assert(kc_closed(h, 10000));
	ck_assert(kc_saw(h, "not now"));
	kc_close(h);
	/* user_reset: counted among those closed */
	h = waiting_login(d, "hank", "hank-first");
	r = kc_ok(b, kc_req(b, "user_reset", "{s:s, s:s}", "user", "hank", "password", "hank-second"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "closed")), 1);
	ck_assert(kc_closed(h, 10000));
	ck_assert(kc_saw(h, "\"session_ended\""));
	kc_close(h);
	/* user_disable: told as a logged-in connection is */
	h = waiting_login(d, "hank", "hank-second");
	kc_ok(b, kc_req(b, "user_disable", "{s:s}", "user", "hank"));
	ck_assert(kc_closed(h, 10000));
	ck_assert(kc_saw(h, "account_disabled"));
	kc_close(h);
	kc_close(b);
	kd_stop(d);
}
END_TEST

START_TEST(admin_audit)
{
	struct kd *d = kd_start(NULL);
	char buf[2048];
	kc_close(reg(d, "alice"));
	struct kc *b = boss(d);
	audit_actions(b, buf, sizeof buf);
	ck_assert_str_eq(buf, "");
	kc_ok(b, kc_req(b, "user_create", "{s:s, s:s}", "user", "carol", "password", "carol-password"));
	kc_ok(b, kc_req(b, "user_disable", "{s:s}", "user", "alice"));
	kc_ok(b, kc_req(b, "user_enable", "{s:s}", "user", "alice"));
	kc_ok(b, kc_req(b, "user_role", "{s:s, s:s}", "user", "alice", "role", "umpire"));
	kc_ok(b, kc_req(b, "user_reset", "{s:s, s:s}", "user", "alice", "password", "temp-password"));
	struct kc *cl = kc_hello(d);   /* a kick closes something (else it writes no row) */
	kc_ok(cl, kc_req(cl, "login", "{s:s, s:s}", "user", "carol", "password", "carol-password"));
	kc_ok(b, kc_req(b, "kick", "{s:s}", "user", "carol"));
	ck_assert(kc_closed(cl, 10000));
	kc_close(cl);
	kc_ok(b, kc_req(b, "invite", NULL));
	kc_ok(b, kc_req(b, "broadcast", "{s:s}", "text", "hello all"));
	/* Refused actions leave no row. */
	kc_error(b, kc_req(b, "user_disable", "{s:s}", "user", "nobody"), "no_such_user");
	/* Regression: so do actions that change nothing (a role it has, an
	 * enabled account enabled, a disabled one disabled), answered as ever. */
	json_t *r = kc_ok(b, kc_req(b, "user_role", "{s:s, s:s}", "user", "alice", "role", "umpire"));
	ck_assert_str_eq(json_string_value(json_object_get(r, "role")), "umpire");
	r = kc_ok(b, kc_req(b, "user_enable", "{s:s}", "user", "alice"));
	ck_assert_str_eq(json_string_value(json_object_get(r, "state")), "enabled");
	kc_ok(b, kc_req(b, "user_disable", "{s:s}", "user", "carol"));
	r = kc_ok(b, kc_req(b, "user_disable", "{s:s}", "user", "carol"));
	ck_assert_str_eq(json_string_value(json_object_get(r, "state")), "disabled");
	audit_actions(b, buf, sizeof buf);
	ck_assert_str_eq(buf, "user_disable carol|broadcast |invite |kick carol|user_reset alice|"
	                      "user_role alice|user_enable alice|user_disable alice|user_create carol");
	r = kc_ok(b, kc_req(b, "audit", NULL));
	json_t *top = json_array_get(json_object_get(r, "entries"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(top, "detail")), "hello all");
	top = json_array_get(json_object_get(r, "entries"), 5);
	ck_assert_str_eq(json_string_value(json_object_get(top, "detail")), "player -> umpire");
	/* And one log line each, naming the admin. */
	ck_assert_int_eq(kd_log_count(d, "admin=boss addr=127.0.0.1 action="), 9);
	ck_assert_int_eq(kd_log_count(d, "admin=boss addr=127.0.0.1 action=user_role target=\"alice\""), 1);
	kc_close(b);
	kd_stop(d);
}
END_TEST

/* `kriegd user ...` changes are audited too, by the Unix user at the
 * "console"; --must-change makes the next login change the password,
 * and passwd --must-change ends the stored sessions. */
START_TEST(offline_audit)
{
	struct kd *d = kd_start(NULL);
	char token[KP_TOKEN_MAX];
	struct kc *b = boss(d);
	ck_assert_int_eq(kg_user(d, "carol-password\n", NULL, 0, "add", "carol", "--must-change",
	                           "--password-stdin"), 0);
	/* list shows what was set here, must-change too (admin probe); a
	 * guest's name is said to be a guest's, not "no such account". */
	char out[1024];
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "list"), 0);
	ck_assert_msg(strstr(out, "carol player enabled must-change\n") != NULL, "%s", out);
	struct kp g;
	kp_guest(d, &g);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "disable", g.name), 1);
	ck_assert_msg(strstr(out, ": a guest, not an account") != NULL, "%s", out);
	kc_close(g.c);
	/* A name taken, or one that reads as a taken one, is refused naming
	 * the account it clashes with, as the wire names it (admin probe). */
	ck_assert_int_eq(kg_user(d, "carol-password\n", out, sizeof out, "add", "CAROL",
	                         "--password-stdin"), 1);
	ck_assert_msg(strstr(out, "CAROL: that name is taken") != NULL, "%s", out);
	ck_assert_int_eq(kg_user(d, "carol-password\n", out, sizeof out, "add", "caro1",
	                         "--password-stdin"), 1);
	ck_assert_msg(strstr(out, "caro1: that name looks like carol, an account that exists") != NULL,
	              "%s", out);
	struct kc *c = kc_hello(d);
	json_t *r = kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "carol", "password",
	                            "carol-password"));
	ck_assert(json_is_true(json_object_get(r, "must_change_password")));
	kc_error(c, kc_req(c, "who", NULL), "password_change_required");
	kc_ok(c, kc_req(c, "passwd", "{s:s, s:s}", "old", "carol-password", "new", "carol-own"));
	kc_close(c);

	kc_close(reg(d, "alice"));
	kc_close(kg_login(d, "alice", PW, token, sizeof token));
	ck_assert_int_eq(kg_user(d, "temp-password\n", NULL, 0, "passwd", "alice", "--must-change",
	                           "--password-stdin"), 0);
	c = kc_hello(d);
	kc_error(c, kc_req(c, "resume", "{s:s}", "token", token), "auth_failed");
	r = kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", "alice", "password", "temp-password"));
	ck_assert(json_is_true(json_object_get(r, "must_change_password")));
	kc_close(c);
	/* Without --must-change the operator's password stands (and clears the flag). */
	ck_assert_int_eq(kg_user(d, "chosen-password\n", NULL, 0, "passwd", "alice", "--password-stdin"), 0);
	kc_close(kg_login(d, "alice", "chosen-password", NULL, 0));
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "role", "alice", "umpire"), 0);
	ck_assert_msg(strstr(out, "alice: role set") != NULL, "%s", out);
	ck_assert_int_eq(kg_user(d, NULL, NULL, 0, "disable", "alice"), 0);
	ck_assert_int_eq(kg_user(d, NULL, NULL, 0, "enable", "alice"), 0);
	/* Regression: changing nothing wrote a row ("umpire -> umpire"); it
	 * succeeds as before, and writes none.  Regression (the club admin
	 * probe): it said "role set", "enabled", "bot off" as a change did. */
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "role", "alice", "umpire"), 0);
	ck_assert_msg(strstr(out, "alice: already umpire: nothing changed") != NULL, "%s", out);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "enable", "alice"), 0);
	ck_assert_msg(strstr(out, "alice: already enabled: nothing changed") != NULL, "%s", out);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "bot", "alice", "off"), 0);
	ck_assert_msg(strstr(out, "alice: already not a bot: nothing changed") != NULL, "%s", out);
	/* (a probe) named as registered, not as typed */
	char said[256];
	ck_assert_int_eq(kg_user(d, NULL, said, sizeof said, "disable", "ALICE"), 0);
	ck_assert_msg(strstr(said, "alice: disabled") != NULL, "%s", said);
	ck_assert_int_eq(kg_user(d, NULL, NULL, 0, "enable", "Alice"), 0);
	/* Refused: no row. */
	ck_assert_int_ne(kg_user(d, "x-password\n", NULL, 0, "passwd", "nobody", "--password-stdin"), 0);
	/* Regression (accounts probe): the name forgotten, an option was taken
	 * for it: an account named "--must-change" was made.  Names do not
	 * start with '-'. */
	ck_assert_int_ne(kg_user(d, "x-password\n", out, sizeof out, "add", "--must-change", "--password-stdin"), 0);
	ck_assert_msg(strstr(out, "starting with neither '-'") != NULL, "%s", out);
	/* Regression (operations probe): a failed change read as done
	 * ("user: added: begin: database is locked"): it names the account and
	 * says nothing changed. */
	char dbpath[600];
	snprintf(dbpath, sizeof dbpath, "%s/kriegd.db", kd_state_dir(d));
	sqlite3 *lock;
	ck_assert_int_eq(sqlite3_open(dbpath, &lock), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(lock, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(kg_user(d, "jack-password\n", out, sizeof out, "add", "jack", "--password-stdin"), 1);
	ck_assert_msg(strstr(out, "jack: nothing changed: ") != NULL && strstr(out, "added") == NULL, "%s", out);
	sqlite3_exec(lock, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(lock);
	ck_assert_int_ne(kg_user(d, NULL, NULL, 0, "role", "alice", "--must-change"), 0);
	ck_assert_int_ne(kg_user(d, NULL, NULL, 0, "disable", "alice", "--must-change"), 0);
	/* Usage errors name what was wrong before the usage, and exit 2, a
	 * name no account can have too (some printed the usage alone, and a
	 * bad name was 1 where a bad role was 2: admin probe). */
	static const struct {
		const char *args[5];
		const char *says;
	} bad[] = {
		{ { "bot", "alice", "maybe" }, "bot takes on or off, not 'maybe'\n" },
		{ { "bot", "alice" }, "bot takes NAME and on or off\n" },
		{ { "role", "alice", "king" }, "unknown role 'king'" },
		{ { "role", "alice", "umpire", "now" }, "role takes NAME and ROLE: unexpected word 'now'\n" },
		{ { "enable" }, "enable takes NAME\n" },
		{ { "list", "all" }, "list takes nothing: unexpected word 'all'\n" },
		{ { "lsit" }, "unknown command 'lsit'\n" },
		{ { "add", "dora", "--role" }, "a value is needed after '--role'\n" },
		{ { "add", "dora", "--zap" }, "unknown option '--zap'\n" },
		{ { "add", "dora", "zap" }, "unexpected word 'zap'\n" },
		{ { "add", "d" }, "d: names are 3 to 24" },
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		const char *const *a = bad[k].args;
		ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, a[0], a[1], a[2], a[3], a[4]), 2);
		ck_assert_msg(strstr(out, bad[k].says) != NULL, "%s: %s", a[0], out);
	}

	struct passwd *pw = getpwuid(getuid());
	ck_assert_ptr_nonnull(pw);
	r = kc_ok(b, kc_req(b, "audit", NULL));
	const char *want[] = {
		"user_enable alice ", "user_disable alice ", "user_enable alice ", "user_disable alice ",
		"user_role alice player -> umpire",
		"user_passwd alice must_change=0 sessions ended",
		"user_passwd alice must_change=1 sessions ended",
		"user_create carol role=player must_change=1", "user_create boss role=admin must_change=0",
	};
	json_t *entries = json_object_get(r, "entries"), *e;
	size_t i;
	ck_assert_int_eq((int)json_array_size(entries), 9);
	json_array_foreach(entries, i, e) {
		char row[256];
		snprintf(row, sizeof row, "%s %s %s", json_string_value(json_object_get(e, "action")),
		         json_string_value(json_object_get(e, "target")),
		         json_string_value(json_object_get(e, "detail")));
		ck_assert_str_eq(row, want[i]);
		ck_assert_str_eq(json_string_value(json_object_get(e, "admin")), pw->pw_name);
		ck_assert_str_eq(json_string_value(json_object_get(e, "address")), "console");
	}
	kc_close(b);
	kd_stop(d);
}
END_TEST

/* Ending games is the umpire's action: an admin takes the chair; each is audited. */
START_TEST(admin_game_end)
{
	struct kd *d = kd_start(NULL);
	struct kp w, bl;
	kp_guest(d, &w);
	kp_guest(d, &bl);
	int64_t g1 = kg_new_game(&w, &bl);
	struct kc *b = boss(d);
	/* Only from the chair. */
	kc_error(b, kc_req(b, "adjudicate", "{s:I, s:s, s:s}", "game", (json_int_t)g1, "result", "1-0",
	                   "reason", "flag fell on the wall clock"), "forbidden");
	kc_ok(b, kc_req(b, "umpire", "{s:I}", "game", (json_int_t)g1));
	kc_ok(b, kc_req(b, "adjudicate", "{s:I, s:s, s:s}", "game", (json_int_t)g1, "result", "1-0",
	                "reason", "flag fell on the wall clock"));
	json_t *ev = kc_event(bl.c, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "result")), "1-0");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "reason")), "adjudication");
	int64_t g2 = kg_new_game(&w, &bl);
	kc_ok(b, kc_req(b, "umpire", "{s:I}", "game", (json_int_t)g2));
	kc_ok(b, kc_req(b, "umpire_abort", "{s:I, s:s}", "game", (json_int_t)g2, "reason",
	                "the hall closes"));
	ev = kc_event(w.c, "game_over");
	while (json_integer_value(json_object_get(ev, "game")) != g2)
		ev = kc_event(w.c, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "reason")), "aborted");
	char buf[512], want[512];
	audit_actions(b, buf, sizeof buf);
	snprintf(want, sizeof want, "uabort game %lld|adjudge game %lld", (long long)g2,
	         (long long)g1);
	ck_assert_str_eq(buf, want);
	/* Regression (operations probe): the log wrote target=game 11 unquoted,
	 * one value split in two by a key=value reader */
	snprintf(want, sizeof want, "action=adjudge target=\"game %lld\" detail=", (long long)g1);
	ck_assert_msg(kd_log_wait(d, want, 5000), "no \"%s\" in the log", want);
	kc_close(b);
	kc_close(w.c);
	kc_close(bl.c);
	kd_stop(d);
}
END_TEST

static Suite *admin_suite(void)
{
	Suite *s = suite_create("admin");
	TCase *tc = tcase_create("admin");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, policy_open);
	tcase_add_test(tc, policy_invite);
	tcase_add_test(tc, policy_closed);
	tcase_add_test(tc, guests_off);
	tcase_add_test(tc, passwd_ends_others);
	tcase_add_test(tc, admin_forbidden);
	tcase_add_test(tc, admin_users);
	tcase_add_test(tc, admin_disable_role);
	tcase_add_test(tc, admin_reset);
	tcase_add_test(tc, admin_kick_broadcast);
	tcase_add_test(tc, admin_closes_waiting_logins);
	tcase_add_test(tc, admin_audit);
	tcase_add_test(tc, admin_game_end);
	tcase_add_test(tc, offline_audit);
	tcase_add_test(tc, admin_invites);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(admin_suite)
