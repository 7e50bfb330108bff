/*
 * auth_cmd.c — the account requests: register, login, guest, resume,
 * logout, passwd (auth_priv.h says how the module is split).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "admin.h"
#include "auth.h"
#include "auth_priv.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "game.h"
#include "guard.h"
#include "kdf.h"
#include "log.h"
#include "mstime.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

/* --- handlers ---------------------------------------------------------------- */

static const char *str_field(json_t *req, const char *key, size_t *len)
{
	json_t *v = json_object_get(req, key);
	if (!json_is_string(v)) {
		*len = 0;
		return NULL;
	}
	*len = json_string_length(v);
	return json_string_value(v);
}

static void cmd_register(struct conn *c, json_t *id, json_t *req)
{
	struct auth *a = conn_server(c)->auth;
	size_t nlen, plen;
	const char *name = str_field(req, "user", &nlen);
	const char *pw = str_field(req, "password", &plen);
	size_t ilen;
	const char *invite = str_field(req, "invite", &ilen);
	char idigest[KDF_DIGEST_HEX + 1] = "";
	struct job *j;
	int rc;

	/* The club's policy first (admin.h): a refusal names the policy, so
	 * the client can explain what to do instead. */
	const struct admin_policy *pol = admin_policy_of(a->srv);
	if (pol->registration == ADMIN_REG_CLOSED) {
		dispatch_error(c, id, PE_REGISTRATION_CLOSED,
		               "registration is closed on this server; an admin creates accounts");
		return;
	}
	if (pol->registration == ADMIN_REG_INVITE && invite == NULL) {
		dispatch_error(c, id, PE_INVITE_REQUIRED,
		               "this server registers by invitation; ask an admin for an invite code");
		return;
	}
	if (pol->registration == ADMIN_REG_INVITE) {
		rc = STORE_NOT_FOUND;
		if (kdf_token_valid(invite, ilen) && kdf_token_digest(invite, ilen, idigest) == 0)
			rc = store_invite_valid(a->srv->store, idigest, auth_now_unix());
		if (rc == STORE_ERROR) {
			auth_reply_storage(a, c, id, "register");
			return;
		}
		if (rc != STORE_OK) {
			dispatch_error(c, id, PE_BAD_INVITE, "that invite code is unknown, used or expired");
			return;
		}
	}
	if (auth_check_name(name, nlen) != PE_NONE) {
		dispatch_error(c, id, PE_BAD_NAME, AUTH_NAME_RULE_FMT, AUTH_NAME_RULE_ARGS);
		return;
	}
	if (auth_name_reserved(name)) {
		dispatch_error(c, id, PE_BAD_NAME, "that name is reserved: it reads as the server's, its "
		               "staff's or a side's");
		return;
	}
	if (auth_check_password(name, pw, plen) != PE_NONE) {
		dispatch_error(c, id, PE_WEAK_PASSWORD,
		               "passwords are %d to %d bytes and not the user name",
		               PROTO_PASSWORD_MIN, PROTO_PASSWORD_MAX);
		return;
	}
	/* register_per_hour, asked before the name is looked up: past the
	 * limit a taken name was still answered user_exists, at once (accounts
	 * probe).  Counted after it: a taken name costs an honest user none of
	 * the hour's allowance (names are no secret: challenge and profile
	 * tell them too). */
	int64_t wait = guard_hourly_wait(a->guard, GUARD_REGISTER, conn_limit_host(c), mstime_mono());
	char note[96];
	if (wait > 0) {
		if (conn_log_line(c, note, sizeof note))
			log_info("conn=%llu register refused addr=%s retry_after_ms=%lld%s",
			         (unsigned long long)conn_id(c), conn_host(c), (long long)wait, note);
		dispatch_retry_after(c, id, wait, "too many registrations from your address; try again later");
		return;
	}
	/* Fail fast on a taken name, or one that reads as it (the insert
	 * checks again after hashing). */
	char taken[PROTO_NAME_MAX + 1];
	rc = store_user_alike(a->srv->store, name, taken, sizeof taken);
	if (rc == STORE_OK) {
		auth_reply_taken(c, id, name, taken);
		return;
	}
	if (rc != STORE_NOT_FOUND) {
		auth_reply_storage(a, c, id, "register");
		return;
	}
	/* Counted once queued: a registration refused `busy` costs none of
	 * the hour's allowance (a review: one refused so took it all at
	 * register_per_hour = 1), nor does one queued and then given up for
	 * another address's job (auth.c queue_make_room gives it back). */
	if ((j = auth_job_new(a, c, id, JOB_REGISTER, pw, plen)) == NULL)
		return;
	(void)guard_hourly(a->guard, GUARD_REGISTER, conn_limit_host(c), mstime_mono());   /* allowed: asked above */
	memcpy(j->name, name, nlen);
	j->name[nlen] = '\0';
	memcpy(j->invite, idigest, sizeof j->invite);
	auth_job_submit(a, j);
}

static void cmd_login(struct conn *c, json_t *id, json_t *req)
{
	struct auth *a = conn_server(c)->auth;
	size_t nlen, plen;
	const char *name = str_field(req, "user", &nlen);
	const char *pw = str_field(req, "password", &plen);
	struct store_user u;
	struct job *j;
	int rc = STORE_NOT_FOUND;

	if (name == NULL || pw == NULL) {
		dispatch_error(c, id, PE_BAD_REQUEST, "user and password are required");
		return;
	}
	/* A name that cannot exist still costs a hash below, like any
	 * unknown name: the reply time tells nothing about accounts. */
	if (nlen <= PROTO_NAME_MAX && strlen(name) == nlen)
		rc = store_user_find(a->srv->store, name, &u);
	if (rc == STORE_ERROR) {
		auth_reply_storage(a, c, id, "login");
		return;
	}
	/* Inside a back-off window: refused at once, no hash spent (guard.h). */
	int64_t wait = guard_login_check(a->guard, conn_limit_host(c), name, mstime_mono());
	if (wait > 0) {
		char esc[LOG_ESCAPE_BUF];
		unsigned more = 0;
		if (guard_log_allow(guard_settings(a->guard), &a->log_refused, mstime_mono(), &more))
			log_always(LOGL_WARN, "conn=%llu login refused addr=%s user=\"%s\" retry_after_ms=%lld "
			        "(%u like it not logged)", (unsigned long long)conn_id(c), conn_host(c),
			        log_escape(name, nlen, esc, sizeof esc), (long long)wait, more);
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		dispatch_retry_after(c, id, wait, "too many failed logins; try again later");
		return;
	}
	if ((j = auth_job_new(a, c, id, JOB_LOGIN, pw, plen)) == NULL)
		return;
	log_escape(name, nlen, j->tried, sizeof j->tried);
	if (rc == STORE_OK && !u.guest && u.pwhash[0] != '\0' &&
	    strlen(u.pwhash) < sizeof j->hash) {
		j->user = u.id;
		j->disabled = u.disabled != 0;
		j->must_change = u.must_change != 0;
		snprintf(j->name, sizeof j->name, "%s", u.name);   /* the registered spelling */
		memcpy(j->hash, u.pwhash, strlen(u.pwhash) + 1);
	} else {
		j->user = 0;
		snprintf(j->name, sizeof j->name, "%s", name);   /* the guard counts it as any name */
		memcpy(j->hash, a->dummy, sizeof j->hash);
	}
	OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
	auth_job_submit(a, j);
}

/*
 * guests_per_address: guests logged in now from c's address (connections,
 * but not user's own: a guest resuming is one guest, whatever its
 * connections).  At the cap, refused (true) with the answer sent: for
 * `guest`, and for a guest's `resume` (which kept old guests coming back).
 */
static bool guests_full(struct auth *a, struct conn *c, json_t *id, int64_t user)
{
	int cap = guard_settings(a->guard)->guests_per_address;
	if (cap <= 0)
		return false;
	int live = 0;
	for (struct conn *o = NULL; (o = conn_of_user(a->srv, 0, o)) != NULL;)
		live += strcmp(conn_limit_host(o), conn_limit_host(c)) == 0 && conn_user(o) != user &&
		        auth_is_guest_name(conn_user_name(o));
	if (live < cap)
		return false;
	char note[96];
	if (conn_log_line(c, note, sizeof note))
		log_info("conn=%llu guest refused addr=%s live=%d%s", (unsigned long long)conn_id(c),
		         conn_host(c), live, note);
	dispatch_error(c, id, PE_RATE_LIMITED, "too many guests from your address (%d); register an account",
	               cap);
	return true;
}

/* The address (as limits count it) that pays (games_per_hour) for the
 * game c's user starts by taking owner's offer made from made_from: c's,
 * or, c's user a bot account (it takes every challenge it is sent), the
 * offer's, so that challenging a club's bot again and again is held too
 * (a review: it undid the cap); NULL when the owner is a bot too, or the
 * offer's address is unknown (read back from the store at a start). */
const char *auth_games_payer(struct conn *c, int64_t owner, const char *made_from)
{
	struct server *srv = conn_server(c);
	if (!auth_user_is_bot(srv, conn_user(c)))
		return conn_limit_host(c);
	if (owner <= 0 || auth_user_is_bot(srv, owner) || made_from == NULL || made_from[0] == '\0')
		return NULL;
	return made_from;
}

bool auth_games_refused(struct conn *c, json_t *id, const char *payer)
{
	struct server *srv = conn_server(c);
	if (payer == NULL)
		return false;
	int64_t wait = guard_hourly_wait(srv->auth->guard, GUARD_GAME, payer, mstime_mono());
	if (wait <= 0)
		return false;
	bool own = payer == conn_limit_host(c);
	char note[96];
	if (conn_log_line(c, note, sizeof note))
		log_info("conn=%llu user=%s game refused addr=%s%s retry_after_ms=%lld%s",
		         (unsigned long long)conn_id(c), conn_user_name(c), own ? conn_host(c) : payer,
		         own ? "" : " (the offer's)", (long long)wait, note);
	dispatch_retry_after(c, id, wait, own
	                     ? "too many games started from your address; try again later"
	                     : "too many games started from the offer's owner's address; try again later");
	return true;
}

void auth_game_started(struct conn *c, const char *payer)
{
	struct server *srv = conn_server(c);
	if (payer != NULL)
		(void)guard_hourly(srv->auth->guard, GUARD_GAME, payer, mstime_mono());
}

static void cmd_guest(struct conn *c, json_t *id, json_t *req)
{
	struct auth *a = conn_server(c)->auth;
	struct store *st = a->srv->store;
	char name[PROTO_NAME_MAX + 1], token[KDF_TOKEN_LEN + 1], digest[KDF_DIGEST_HEX + 1];
	int64_t user = 0;
	int rc = STORE_EXISTS;

	(void)req;
	if (!admin_policy_of(a->srv)->guests) {
		dispatch_error(c, id, PE_GUESTS_DISABLED,
		               "this server has no guest accounts; log in or register");
		return;
	}
	if (guests_full(a, c, id, conn_user(c)))   /* this connection's own guest is replaced */
		return;
	/* guests_per_hour: each account made counts (a `guest` on a guest's
	 * connection makes another, the live count staying one). */
	int64_t wait = guard_hourly(a->guard, GUARD_GUEST, conn_limit_host(c), mstime_mono());
	char note[96];
	if (wait > 0) {
		if (conn_log_line(c, note, sizeof note))
			log_info("conn=%llu guest refused addr=%s retry_after_ms=%lld%s",
			         (unsigned long long)conn_id(c), conn_host(c), (long long)wait, note);
		dispatch_retry_after(c, id, wait, "too many guest accounts from your address; register an account");
		return;
	}
	/* Random names; after a few collisions, longer ones. */
	for (int i = 0; i < AUTH_GUEST_TRIES && rc == STORE_EXISTS; i++) {
		int n = AUTH_GUEST_CHARS + 2 * (i / 4);
		if (auth_guest_name(name, sizeof name, n) != 0) {
			rc = STORE_ERROR;
			break;
		}
		if (store_begin(st) != STORE_OK) {
			rc = STORE_ERROR;
			break;
		}
		rc = store_user_create(st, name, NULL, 1, &user);
		if (rc == STORE_OK)
			rc = auth_session_new(a, user, token, digest);
		if (rc == STORE_OK)
			rc = store_commit(st) == STORE_OK ? STORE_OK : STORE_ERROR;
		else
			store_rollback(st);
	}
	if (rc != STORE_OK) {
		auth_reply_storage(a, c, id, "guest");
		return;
	}
	log_info("conn=%llu guest user=%lld name=%s", (unsigned long long)conn_id(c),
	         (long long)user, name);
	auth_login_done(a, c, id, user, name, token, digest, false, auth_audit_mark(a));
}

static void cmd_resume(struct conn *c, json_t *id, json_t *req)
{
	struct auth *a = conn_server(c)->auth;
	struct store *st = a->srv->store;
	size_t tlen;
	const char *token = str_field(req, "token", &tlen);
	char digest[KDF_DIGEST_HEX + 1], name[PROTO_NAME_MAX + 8];
	int64_t user = 0, now = auth_now_unix();
	int rc;

	if (!kdf_token_valid(token, tlen)) {
		dispatch_error(c, id, PE_AUTH_FAILED, "unknown or expired token");
		return;
	}
	if (kdf_token_digest(token, tlen, digest) != 0) {
		dispatch_error(c, id, PE_INTERNAL, "digest failed");
		return;
	}
	int64_t mark = auth_audit_mark(a);   /* before the flag's check */
	rc = store_session_lookup(st, digest, now, &user);
	if (rc == STORE_OK)
		rc = store_user_name(st, user, name, sizeof name);
	/* The flag itself, not auth_user_role's NONE, which a failed read
	 * gives too: that is `storage` below, not a disabled account (a
	 * review: said so to the player and logged so). */
	char role[8];
	int disabled = 0, guest = 0;
	if (rc == STORE_OK)
		rc = store_user_role(st, user, role, sizeof role, &disabled, &guest);
	if (rc == STORE_OK && disabled) {
		/* (the club admin probe: a token kept past the disable tried
		 * again left no trace) */
		auth_refuse_disabled(c, id, "resume", name);
		return;
	}
	if (rc == STORE_OK && auth_is_guest_name(name) && guests_full(a, c, id, user))
		return;
	if (rc == STORE_OK)
		rc = store_session_touch(st, digest, now, now + AUTH_SESSION_SECONDS);
	if (rc == STORE_NOT_FOUND) {
		dispatch_error(c, id, PE_AUTH_FAILED, "unknown or expired token");
		return;
	}
	if (rc != STORE_OK) {
		auth_reply_storage(a, c, id, "resume");
		return;
	}
	auth_login_done(a, c, id, user, name, token, digest, true, mark);
}

/*
 * logout {}: the session this connection holds ends, for every connection
 * that holds it.  Before, only its row went: another connection that had
 * resumed the same token (a second device, or whoever copied it) stayed
 * logged in as the account for as long as it kept its socket, though the
 * token no longer resumed (the two-devices probe; a guest's only session
 * went and its other connection played on).  They are ended as the
 * session cap ends a session in use: told session_ended, then closed.
 * The account's other sessions (other tokens) stay.
 */
#define LOGOUT_ENDED_REASON "the session was logged out on another connection"

static void cmd_logout(struct conn *c, json_t *id, json_t *req)
{
	struct auth *a = conn_server(c)->auth;
	char digest[KDF_DIGEST_HEX + 1];

	(void)req;
	auth_changing_forget(a, conn_id(c));
	if (auth_token_take(a, conn_id(c), digest)) {
		int n = auth_session_end(a, digest, 0, LOGOUT_ENDED_REASON, "session ended: logged out");
		if (n > 0)
			log_info("conn=%llu logout user=%lld ended its session on %d other connection%s",
			         (unsigned long long)conn_id(c), (long long)conn_user(c), n, n == 1 ? "" : "s");
	}
	conn_set_user(c, 0, NULL);
	dispatch_ok(c, id, NULL);
}

/*
 * passwd {old, new}: a logged-in user's own password, or the password a
 * must_change login is waiting on (then the answer completes the login).
 * The old password is verified like a login (the back-off applies: a
 * borrowed session cannot guess its way to the password).
 */
static void cmd_passwd(struct conn *c, json_t *id, json_t *req)
{
	struct auth *a = conn_server(c)->auth;
	size_t olen, nlen;
	const char *old = str_field(req, "old", &olen);
	const char *neu = str_field(req, "new", &nlen);
	struct conn_must_change *m = auth_changing_find(a, conn_id(c));
	int64_t user = conn_user(c);
	char name[32];
	struct store_user u;
	struct job *j;

	if (user == 0 && m == NULL) {
		dispatch_error(c, id, PE_NOT_LOGGED_IN, "log in first");
		return;
	}
	if (user == 0) {
		user = m->user;
		snprintf(name, sizeof name, "%s", m->name);
	} else {
		snprintf(name, sizeof name, "%s", conn_user_name(c));
	}
	int rc = store_user_find(a->srv->store, name, &u);
	if (rc == STORE_ERROR) {
		auth_reply_storage(a, c, id, "passwd");
		return;
	}
	if (rc != STORE_OK || u.id != user || u.guest || u.pwhash[0] == '\0' ||
	    strlen(u.pwhash) >= sizeof j->hash) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "a guest has no password to change");
		return;
	}
	/* After the guest's refusal (the protocol probe: a guest's short
	 * password was answered weak_password, as if it had one to change). */
	if (auth_check_password(name, neu, nlen) != PE_NONE ||
	    (olen == nlen && memcmp(old, neu, nlen) == 0)) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		dispatch_error(c, id, PE_WEAK_PASSWORD,
		               "passwords are %d to %d bytes, not the user name and not the old one",
		               PROTO_PASSWORD_MIN, PROTO_PASSWORD_MAX);
		return;
	}
	if (u.disabled) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		dispatch_error(c, id, PE_ACCOUNT_DISABLED, "this account is disabled");
		return;
	}
	int64_t wait = guard_login_check(a->guard, conn_limit_host(c), u.name, mstime_mono());
	if (wait > 0) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		dispatch_retry_after(c, id, wait, "too many failed logins; try again later");
		return;
	}
	if ((j = auth_job_new(a, c, id, JOB_PASSWD, old, olen)) == NULL) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		return;
	}
	j->pw2 = xmalloc(nlen);
	memcpy(j->pw2, neu, nlen);
	j->pw2len = nlen;
	j->user = u.id;
	j->completes_login = conn_user(c) == 0;
	snprintf(j->name, sizeof j->name, "%s", u.name);
	log_escape(u.name, strlen(u.name), j->tried, sizeof j->tried);
	memcpy(j->hash, u.pwhash, strlen(u.pwhash) + 1);
	OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
	auth_job_submit(a, j);
}

bool auth_hash_for(struct conn *c, json_t *id, json_t *req, const char *pw, size_t pwlen,
                   auth_hashed_fn done)
{
	struct auth *a = conn_server(c)->auth;
	struct job *j = auth_job_new(a, c, id, JOB_HASH, pw, pwlen);
	if (j == NULL)
		return false;
	j->req = json_incref(req);
	j->done = done;
	auth_job_submit(a, j);
	return true;
}

static const struct field f_credentials[] = {
	/* The name's own limits are checked by the handler, so that a long
	 * name is `bad_name` (register) or `auth_failed` (login), not
	 * `bad_request`. */
	{ "user", F_STRING, 1, PROTO_LINE_MAX },
	{ "password", F_STRING, 1, PROTO_PASSWORD_MAX },
	{ NULL, 0, 0, 0 },
};
/* A new password's length is checked by the handler too, so that a long
 * one is `weak_password` (register, passwd's new, admin.c's user_create
 * and user_reset), as PROTOCOL.md says; only the line bounds it here. */
static const struct field f_register[] = {
	{ "user", F_STRING, 1, PROTO_LINE_MAX },
	{ "password", F_STRING, 1, PROTO_LINE_MAX },
	{ "invite", F_STRING, 0, PROTO_TOKEN_LEN * 2 },
	{ NULL, 0, 0, 0 },
};
static const struct field f_passwd[] = {
	{ "old", F_STRING, 1, PROTO_PASSWORD_MAX },
	{ "new", F_STRING, 1, PROTO_LINE_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_none[] = {
	{ NULL, 0, 0, 0 },
};
static const struct field f_resume[] = {
	{ "token", F_STRING, 1, PROTO_TOKEN_LEN * 2 },
	{ NULL, 0, 0, 0 },
};

const struct cmd auth_cmds[] = {
	{ "register", CMD_NO_LOGIN, f_register, cmd_register },
	{ "login", CMD_NO_LOGIN | CMD_REPLAYS, f_credentials, cmd_login },
	{ "guest", CMD_NO_LOGIN, f_none, cmd_guest },
	{ "resume", CMD_NO_LOGIN | CMD_REPLAYS, f_resume, cmd_resume },
	{ "logout", 0, f_none, cmd_logout },
	/* CMD_NO_LOGIN: a must_change login is not logged in (auth.h). */
	{ "passwd", CMD_NO_LOGIN, f_passwd, cmd_passwd },
	{ NULL, 0, NULL, NULL },
};

