/*
 * admin.c — see admin.h.
 *
 * Every handler checks the role first (read from the store, so a role
 * taken away counts from the next request), then its fields, then does
 * its change and the audit row in one transaction, and only after the
 * commit acts on live connections (closing, notices) and logs.
 */
#include "admin.h"
#include "text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "auth.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "kdf.h"
#include "log.h"
#include "server.h"
#include "store.h"

/* --- policy ------------------------------------------------------------------ */

static const char *const reg_names[] = {
	[ADMIN_REG_OPEN] = "open", [ADMIN_REG_INVITE] = "invite", [ADMIN_REG_CLOSED] = "closed",
};

void admin_policy_default(struct admin_policy *p)
{
	p->registration = ADMIN_REG_OPEN;
	p->guests = true;
}

const char *admin_registration_name(int registration)
{
	if (registration < ADMIN_REG_OPEN || registration > ADMIN_REG_CLOSED)
		return NULL;
	return reg_names[registration];
}

int admin_policy_set(struct admin_policy *p, const char *key, const char *value, char *err,
                     size_t errlen)
{
	if (strcmp(key, "registration") == 0) {
		for (int r = ADMIN_REG_OPEN; r <= ADMIN_REG_CLOSED; r++) {
			if (strcmp(value, reg_names[r]) == 0) {
				p->registration = r;
				return 0;
			}
		}
		snprintf(err, errlen, "registration: expected open, invite or closed");
		return -1;
	}
	if (strcmp(key, "guests") == 0) {
		if (strcmp(value, "on") == 0 || strcmp(value, "off") == 0) {
			p->guests = strcmp(value, "on") == 0;
			return 0;
		}
		snprintf(err, errlen, "guests: expected on or off");
		return -1;
	}
	return 1;
}

void admin_policy_print(const struct admin_policy *p, FILE *f)
{
	const char *r = admin_registration_name(p->registration);
	fprintf(f, "registration = %s\nguests = %s\n", r != NULL ? r : "open",
	        p->guests ? "on" : "off");
}

const struct admin_policy *admin_policy_of(const struct server *srv)
{
	static const struct admin_policy defaults = { ADMIN_REG_OPEN, true };
	return srv != NULL && srv->cfg != NULL ? &srv->cfg->policy : &defaults;
}

/* --- audit -------------------------------------------------------------------- */

/* The audit row of an action by c's user, to be written in the action's
 * transaction (audit_add) and logged after its commit (audit_log). */
static void audit_row(struct conn *c, struct store_audit *row, const char *action,
                      const char *target, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void audit_row(struct conn *c, struct store_audit *row, const char *action,
                      const char *target, const char *fmt, ...)
{
	va_list ap;
	memset(row, 0, sizeof *row);
	row->at_unix = (int64_t)time(NULL);
	row->admin = conn_user(c);
	snprintf(row->admin_name, sizeof row->admin_name, "%s", conn_user_name(c));
	snprintf(row->addr, sizeof row->addr, "%s", conn_host(c));
	snprintf(row->action, sizeof row->action, "%s", action);
	snprintf(row->target, sizeof row->target, "%s", target != NULL ? target : "");
	va_start(ap, fmt);
	vsnprintf(row->detail, sizeof row->detail, fmt, ap);
	va_end(ap);
}

static void audit_log(struct conn *c, const struct store_audit *row)
{
	char esc[LOG_ESCAPE_BUF], tesc[LOG_ESCAPE_BUF];
	/* target quoted as detail is: "game 11" is one value (key=value
	 * readers split an unquoted one at its space), "" as the row has it */
	log_info("conn=%llu admin=%s addr=%s action=%s target=\"%s\" detail=\"%s\"",
	         (unsigned long long)conn_id(c), row->admin_name, row->addr, row->action,
	         log_escape(row->target, strlen(row->target), tesc, sizeof tesc),
	         log_escape(row->detail, strlen(row->detail), esc, sizeof esc));
}

static void reply_storage(struct conn *c, json_t *id, const char *what)
{
	log_msg(LOGL_ERROR, "admin: %s: %s", what, store_error(conn_server(c)->store));
	dispatch_error(c, id, PE_STORAGE, "the database refused; nothing was changed");
}

/* End an action's transaction (store_begin'd; rc: how its change went):
 * add the audit row, commit, and log the row.  STORE_OK; else all of it
 * rolled back and rc (STORE_ERROR if only the commit failed), for the
 * caller to answer. */
static int audit_commit(struct conn *c, int rc, const struct store_audit *row)
{
	struct store *st = conn_server(c)->store;

	if (rc == STORE_OK)
		rc = store_audit_add(st, row);
	if (rc == STORE_OK && store_commit(st) == STORE_OK) {
		audit_log(c, row);
		return STORE_OK;
	}
	store_rollback(st);
	return rc != STORE_OK ? rc : STORE_ERROR;
}

/* Write an action-less audit row (kick, broadcast, invite are their own
 * change): commit it and log it.  0, or -1 after answering `storage`. */
static int audit_only(struct conn *c, json_t *id, const struct store_audit *row)
{
	if (store_audit_add(conn_server(c)->store, row) != STORE_OK) {
		reply_storage(c, id, "audit");
		return -1;
	}
	audit_log(c, row);
	return 0;
}

void admin_audit_game(struct conn *c, int64_t game, const char *action, const char *detail)
{
	struct store_audit row;
	char target[32];

	if (auth_user_role(conn_server(c), conn_user(c)) != AUTH_ROLE_ADMIN)
		return;
	snprintf(target, sizeof target, "game %lld", (long long)game);
	audit_row(c, &row, action, target, "%s", detail);
	if (store_audit_add(conn_server(c)->store, &row) != STORE_OK)
		log_warnx("admin: audit of %s: %s", action, store_error(conn_server(c)->store));
	audit_log(c, &row);
}

/* --- checks ----------------------------------------------------------------- */

/* Every request of this table is CMD_ADMIN: dispatch checks the role
 * before the fields (PROTOCOL.md "Checking a request"). */

/* The account req's "user" names (case-insensitively), registered or
 * guest.  0, or -1 after answering (no_such_user, storage). */
static int target_of(struct conn *c, json_t *id, json_t *req, struct store_user *u)
{
	const char *name = json_string_value(json_object_get(req, "user"));
	int rc = STORE_NOT_FOUND;
	if (name != NULL && strlen(name) <= PROTO_NAME_MAX)
		rc = store_user_find(conn_server(c)->store, name, u);
	if (rc == STORE_ERROR) {
		reply_storage(c, id, "reading an account");
		return -1;
	}
	if (rc != STORE_OK) {
		dispatch_error(c, id, PE_NO_SUCH_USER, "no such user");
		return -1;
	}
	return 0;
}

static bool is_self(struct conn *c, json_t *id, const struct store_user *u, const char *what)
{
	if (u->id != conn_user(c))
		return false;
	dispatch_error(c, id, PE_ILLEGAL_ACTION, "you cannot %s your own account", what);
	return true;
}

static int count_conns(struct server *srv, int64_t user)
{
	int n = 0;
	for (struct conn *o = NULL; (o = conn_of_user(srv, user, o)) != NULL;)
		n++;
	return n;
}

/* --- users ------------------------------------------------------------------ */

struct user_list {
	struct server *srv;
	json_t *rows;
};

static int user_item(const struct store_user *u, void *arg)
{
	struct user_list *l = arg;
	json_t *row = json_pack("{s:s, s:s, s:s, s:b, s:I, s:i}", "name", u->name, "role", u->role,
	                        "state", u->disabled ? "disabled" : "enabled",
	                        "must_change_password", u->must_change, "created",
	                        (json_int_t)u->created_unix, "online", count_conns(l->srv, u->id));
	json_object_set_new(row, "last_login", u->last_login_unix > 0
	                                            ? json_integer((json_int_t)u->last_login_unix)
	                                            : json_null());
	json_object_set_new(row, "last_address",
	                    u->last_addr[0] != '\0' ? json_string(u->last_addr) : json_null());
	json_array_append_new(l->rows, row);
	return 0;
}

static void cmd_users(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct user_list l = { srv, json_array() };

	if (store_users_list(srv->store, user_item, &l) != STORE_OK) {
		json_decref(l.rows);
		reply_storage(c, id, "users");
		return;
	}
	dispatch_ok_page(c, id, req, NULL, "users", l.rows);
}

/* user_create: the name is checked before the (slow) hash, and again by
 * the insert after it. */
static void created(struct conn *c, json_t *id, json_t *req, const char *hash)
{
	struct server *srv = conn_server(c);
	struct store *st = srv->store;
	const char *name = json_string_value(json_object_get(req, "user"));
	json_t *jrole = json_object_get(req, "role");
	const char *role = jrole != NULL ? json_string_value(jrole) : "player";
	json_t *jmc = json_object_get(req, "must_change");
	bool must_change = jmc == NULL || json_is_true(jmc);
	struct store_audit row;
	int64_t user = 0;

	if (!dispatch_role_allows(c, id, CMD_ADMIN))   /* still, after the hash */
		return;
	audit_row(c, &row, "user_create", name, "role=%s must_change=%d", role, must_change);
	int rc = store_begin(st);
	if (rc == STORE_OK)
		rc = store_user_create(st, name, hash, 0, &user);
	if (rc == STORE_OK)
		rc = store_user_set_password(st, user, hash, must_change);
	if (rc == STORE_OK && strcmp(role, "player") != 0)
		rc = store_user_set_role(st, name, role);
	rc = audit_commit(c, rc, &row);
	if (rc != STORE_OK) {
		if (rc == STORE_EXISTS)
			dispatch_error(c, id, PE_USER_EXISTS, "that name, or one that reads the same, is taken");
		else
			reply_storage(c, id, "user_create");
		return;
	}
	dispatch_ok(c, id, json_pack("{s:s, s:s, s:b}", "user", name, "role", role,
	                             "must_change_password", must_change));
}

static void cmd_user_create(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	const char *name = json_string_value(json_object_get(req, "user"));
	json_t *pw = json_object_get(req, "password");
	json_t *role = json_object_get(req, "role");

	if (auth_check_name(name, strlen(name)) != PE_NONE) {
		dispatch_error(c, id, PE_BAD_NAME, AUTH_NAME_RULE_FMT, AUTH_NAME_RULE_ARGS);
		return;
	}
	if (auth_check_password(name, json_string_value(pw), json_string_length(pw)) != PE_NONE) {
		dispatch_error(c, id, PE_WEAK_PASSWORD,
		               "passwords are %d to %d bytes and not the user name",
		               PROTO_PASSWORD_MIN, PROTO_PASSWORD_MAX);
		return;
	}
	if (role != NULL && auth_role_parse(json_string_value(role)) == AUTH_ROLE_NONE) {
		dispatch_error(c, id, PE_BAD_REQUEST, "role is \"player\", \"umpire\" or \"admin\"");
		return;
	}
	char taken[PROTO_NAME_MAX + 1];
	int rc = store_user_alike(srv->store, name, taken, sizeof taken);
	if (rc == STORE_OK) {
		auth_reply_taken(c, id, name, taken);
		return;
	}
	if (rc != STORE_NOT_FOUND) {
		reply_storage(c, id, "user_create");
		return;
	}
	auth_hash_for(c, id, req, json_string_value(pw), json_string_length(pw), created);
}

/* user_disable / user_enable: the store's disabled flag, as `kriegd user
 * disable`; the disabled account's connections close at once. */
static void set_disabled(struct conn *c, json_t *id, json_t *req, bool disabled)
{
	struct server *srv = conn_server(c);
	struct store *st = srv->store;
	struct store_user u;
	struct store_audit row;

	if (target_of(c, id, req, &u) != 0)
		return;
	if (disabled && is_self(c, id, &u, "disable"))
		return;
	if ((u.disabled != 0) == disabled) {   /* nothing to change: no row (PROTOCOL.md) */
		dispatch_ok(c, id, json_pack("{s:s, s:s}", "user", u.name, "state",
		                             disabled ? "disabled" : "enabled"));
		return;
	}
	audit_row(c, &row, disabled ? "user_disable" : "user_enable", u.name, "%s",
	          u.guest ? "guest" : "");
	int rc = store_begin(st);
	if (rc == STORE_OK)
		rc = store_user_set_disabled(st, u.name, disabled);
	if (audit_commit(c, rc, &row) != STORE_OK) {
		reply_storage(c, id, "user_disable");
		return;
	}
	dispatch_ok(c, id, json_pack("{s:s, s:s}", "user", u.name, "state",
	                             disabled ? "disabled" : "enabled"));
	auth_users_changed(srv);
}

static void cmd_user_disable(struct conn *c, json_t *id, json_t *req)
{
	set_disabled(c, id, req, true);
}

static void cmd_user_enable(struct conn *c, json_t *id, json_t *req)
{
	set_disabled(c, id, req, false);
}

/* user_reset: the new (temporary) password is hashed, then stored with
 * must_change set, every session of the account ends and its
 * connections close. */
static void reset_done(struct conn *c, json_t *id, json_t *req, const char *hash)
{
	struct server *srv = conn_server(c);
	struct store *st = srv->store;
	struct store_user u;
	struct store_audit row;

	if (target_of(c, id, req, &u) != 0)
		return;
	audit_row(c, &row, "user_reset", u.name, "must change the password at next login");
	int rc = store_begin(st);
	if (rc == STORE_OK)
		rc = store_user_set_password(st, u.id, hash, 1);
	if (rc == STORE_OK)
		rc = store_sessions_end_user(st, u.id, "");
	rc = audit_commit(c, rc, &row);
	if (rc != STORE_OK) {
		if (rc == STORE_NOT_FOUND)
			dispatch_error(c, id, PE_NO_SUCH_USER, "no such user");
		else
			reply_storage(c, id, "user_reset");
		return;
	}
	int closed = auth_end_sessions(srv, u.id, NULL, "an admin reset your password");
	dispatch_ok(c, id, json_pack("{s:s, s:b, s:i}", "user", u.name, "must_change_password", 1,
	                             "closed", closed > 0 ? closed : 0));
}

static void cmd_user_reset(struct conn *c, json_t *id, json_t *req)
{
	json_t *pw = json_object_get(req, "password");
	struct store_user u;

	if (target_of(c, id, req, &u) != 0)
		return;
	if (u.guest) {
		dispatch_error(c, id, PE_NO_SUCH_USER, "a guest has no password");
		return;
	}
	if (is_self(c, id, &u, "reset (use passwd for)"))
		return;
	if (auth_check_password(u.name, json_string_value(pw), json_string_length(pw)) != PE_NONE) {
		dispatch_error(c, id, PE_WEAK_PASSWORD,
		               "passwords are %d to %d bytes and not the user name",
		               PROTO_PASSWORD_MIN, PROTO_PASSWORD_MAX);
		return;
	}
	auth_hash_for(c, id, req, json_string_value(pw), json_string_length(pw), reset_done);
}

static void cmd_user_role(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct store *st = srv->store;
	const char *role = json_string_value(json_object_get(req, "role"));
	struct store_user u;
	struct store_audit row;

	if (auth_role_parse(role) == AUTH_ROLE_NONE) {
		dispatch_error(c, id, PE_BAD_REQUEST, "role is \"player\", \"umpire\" or \"admin\"");
		return;
	}
	if (target_of(c, id, req, &u) != 0)
		return;
	if (u.guest) {
		dispatch_error(c, id, PE_NO_SUCH_USER, "a guest has no role to change");
		return;
	}
	if (is_self(c, id, &u, "change the role of"))
		return;
	if (strcmp(u.role, role) == 0) {   /* nothing to change: no row (PROTOCOL.md) */
		dispatch_ok(c, id, json_pack("{s:s, s:s}", "user", u.name, "role", role));
		return;
	}
	audit_row(c, &row, "user_role", u.name, "%s -> %s", u.role, role);
	int rc = store_begin(st);
	if (rc == STORE_OK)
		rc = store_user_set_role(st, u.name, role);
	if (audit_commit(c, rc, &row) != STORE_OK) {
		reply_storage(c, id, "user_role");
		return;
	}
	dispatch_ok(c, id, json_pack("{s:s, s:s}", "user", u.name, "role", role));
	auth_users_changed(srv);   /* chairs no longer held by right are given up */
}

/* A person's words sent as they are (a kick's reason, a notice): chat's
 * rule, spaces kept as sent, and not blank, as the refusal says (the club
 * probe: "   " went out to everyone as a notice).  text_words writes
 * every Unicode space as " ". */
static bool admin_words(const char *in, char *out, size_t len)
{
	return text_words(in, out, len) && out[strspn(out, " ")] != '\0';
}

/* kick: close the account's connections now, a login waiting on a
 * password change among them.  Its sessions stay: the user may come back
 * (to keep them out, disable the account). */
static void cmd_kick(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	json_t *jr = json_object_get(req, "reason");
	const char *reason = jr != NULL ? json_string_value(jr) : "an admin closed your connection";
	struct store_user u;
	struct store_audit row;

	if (target_of(c, id, req, &u) != 0)
		return;
	if (is_self(c, id, &u, "kick"))
		return;
	char words[ADMIN_REASON_MAX + 1];
	if (!admin_words(reason, words, sizeof words)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "reason: " TEXT_RULE, ADMIN_REASON_MAX);
		return;
	}
	reason = words;
	int n = count_conns(srv, u.id) + auth_count_waiting(srv, u.id);
	if (n == 0) {   /* nothing to change: no row (PROTOCOL.md) */
		dispatch_ok(c, id, json_pack("{s:s, s:i}", "user", u.name, "closed", 0));
		return;
	}
	audit_row(c, &row, "kick", u.name, "connections=%d reason=%s", n, reason);
	if (audit_only(c, id, &row) != 0)
		return;
	json_t *msg = json_pack("{s:s, s:s}", "event", "session_ended", "reason", reason);
	for (struct conn *o = NULL; (o = conn_of_user(srv, u.id, o)) != NULL;) {
		conn_send(o, json_incref(msg));
		conn_close(o, "kicked by an admin");
	}
	(void)auth_close_waiting(srv, u.id, NULL, msg, "kicked by an admin");
	json_decref(msg);
	dispatch_ok(c, id, json_pack("{s:s, s:i}", "user", u.name, "closed", n));
}

static void cmd_invite(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct store *st = srv->store;
	char code[KDF_TOKEN_LEN + 1], digest[KDF_DIGEST_HEX + 1];
	int64_t now = (int64_t)time(NULL), expires = now + ADMIN_INVITE_SECONDS;
	struct store_audit row;

	(void)req;
	if (kdf_token_new(code) != 0 || kdf_token_digest(code, KDF_TOKEN_LEN, digest) != 0) {
		dispatch_error(c, id, PE_INTERNAL, "no random code could be made");
		return;
	}
	/* The audit names the code by the start of its digest, never the code. */
	audit_row(c, &row, "invite", "", "code_sha256=%.*s expires=%lld", ADMIN_INVITE_PREFIX,
	          digest, (long long)expires);
	int rc = store_begin(st);
	if (rc == STORE_OK)
		rc = store_invite_create(st, digest, conn_user(c), now, expires);
	if (audit_commit(c, rc, &row) != STORE_OK) {
		reply_storage(c, id, "invite");
		return;
	}
	dispatch_ok(c, id, json_pack("{s:s, s:I}", "invite", code, "expires", (json_int_t)expires));
}

/* invites: the codes made, newest first, each named by the start of its
 * digest (as in the audit): a code is shown once, to the admin who made
 * it, and never again. */
struct invite_list {
	json_t *rows;
	int64_t now;
};

static const char *invite_state(const struct store_invite *iv, int64_t now)
{
	if (iv->used_by[0] != '\0')
		return "used";
	if (iv->used_unix != 0)
		return "revoked";
	return iv->expires_unix > now ? "open" : "expired";
}

static int invite_item(const struct store_invite *iv, void *arg)
{
	struct invite_list *l = arg;
	json_t *row = json_pack("{s:s%, s:I, s:I, s:s}", "digest", iv->digest,
	                        (size_t)ADMIN_INVITE_PREFIX, "created", (json_int_t)iv->created_unix,
	                        "expires", (json_int_t)iv->expires_unix, "state",
	                        invite_state(iv, l->now));
	json_object_set_new(row, "created_by", iv->created_by[0] != '\0'
	                                           ? json_string(iv->created_by) : json_null());
	json_object_set_new(row, "used_by", iv->used_by[0] != '\0' ? json_string(iv->used_by)
	                                                              : json_null());
	json_object_set_new(row, "used", iv->used_unix != 0 ? json_integer((json_int_t)iv->used_unix)
	                                                     : json_null());
	json_array_append_new(l->rows, row);
	return 0;
}

static void cmd_invites(struct conn *c, json_t *id, json_t *req)
{
	struct invite_list l = { json_array(), (int64_t)time(NULL) };

	if (store_invites_list(conn_server(c)->store, "", ADMIN_INVITES_MAX, invite_item, &l) !=
	    STORE_OK) {
		json_decref(l.rows);
		reply_storage(c, id, "invites");
		return;
	}
	dispatch_ok_page(c, id, req, NULL, "invites", l.rows);
}

/* invite_revoke {digest}: the digest's start as `invites` lists it
 * (ADMIN_INVITE_PREFIX hex digits, or more, up to the whole digest). */
struct invite_match {
	struct store_invite first;
	int n;
};

static int match_item(const struct store_invite *iv, void *arg)
{
	struct invite_match *m = arg;
	if (m->n++ == 0)
		m->first = *iv;
	return 0;
}

static void cmd_invite_revoke(struct conn *c, json_t *id, json_t *req)
{
	struct store *st = conn_server(c)->store;
	json_t *jd = json_object_get(req, "digest");
	const char *given = json_string_value(jd);
	size_t len = json_string_length(jd);
	char prefix[KDF_DIGEST_HEX + 1];
	struct invite_match m = { .n = 0 };
	const struct store_invite *iv = &m.first;
	struct store_audit row;
	int64_t now = (int64_t)time(NULL);

	bool hex = len >= ADMIN_INVITE_PREFIX && len <= KDF_DIGEST_HEX;
	for (size_t i = 0; hex && i < len; i++) {
		char ch = given[i];
		if (ch >= 'A' && ch <= 'F')
			ch = (char)(ch - 'A' + 'a');
		hex = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
		prefix[i] = ch;
	}
	if (!hex) {
		dispatch_error(c, id, PE_BAD_REQUEST, "digest is %d to %d hex digits, as "
		               "`invites` lists it", ADMIN_INVITE_PREFIX, KDF_DIGEST_HEX);
		return;
	}
	prefix[len] = '\0';
	if (store_invites_list(st, prefix, 2, match_item, &m) != STORE_OK) {
		reply_storage(c, id, "invite_revoke");
		return;
	}
	if (m.n == 0) {
		dispatch_error(c, id, PE_BAD_INVITE, "no invite code has that digest");
		return;
	}
	if (m.n > 1) {
		dispatch_error(c, id, PE_BAD_REQUEST, "more than one invite code starts so: give "
		               "more of the digest");
		return;
	}
	audit_row(c, &row, "invite_revoke", "", "code_sha256=%.*s", ADMIN_INVITE_PREFIX, iv->digest);
	int rc = store_begin(st);
	if (rc == STORE_OK)
		rc = store_invite_revoke(st, iv->digest, now);
	rc = audit_commit(c, rc, &row);
	if (rc != STORE_OK) {
		if (rc == STORE_NOT_FOUND)
			dispatch_error(c, id, PE_BAD_INVITE, "that invite code is already used, revoked "
			               "or expired");
		else
			reply_storage(c, id, "invite_revoke");
		return;
	}
	dispatch_ok(c, id, json_pack("{s:s%, s:s}", "digest", iv->digest,
	                             (size_t)ADMIN_INVITE_PREFIX, "state", "revoked"));
}

static void cmd_broadcast(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	const char *text = json_string_value(json_object_get(req, "text"));
	struct store_audit row;
	int n = 0;

	char words[ADMIN_NOTICE_MAX + 1];
	if (!admin_words(text, words, sizeof words)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "text: " TEXT_RULE, ADMIN_NOTICE_MAX);
		return;
	}
	text = words;
	audit_row(c, &row, "broadcast", "", "%s", text);
	if (audit_only(c, id, &row) != 0)
		return;
	for (struct conn *o = NULL; (o = conn_of_user(srv, 0, o)) != NULL; n++)
		conn_send(o, json_pack("{s:s, s:s, s:s}", "event", "notice", "from", conn_user_name(c),
		                       "text", text));
	dispatch_ok(c, id, json_pack("{s:i}", "sent", n));
}

static int audit_item(const struct store_audit *a, void *arg)
{
	json_array_append_new(arg, json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s}", "id",
	                                     (json_int_t)a->id, "at", (json_int_t)a->at_unix,
	                                     "admin", a->admin_name, "address", a->addr, "action",
	                                     a->action, "target", a->target, "detail", a->detail));
	return 0;
}

static void cmd_audit(struct conn *c, json_t *id, json_t *req)
{
	json_t *rows = json_array();

	if (store_audit_list(conn_server(c)->store, ADMIN_AUDIT_MAX, audit_item, rows) != STORE_OK) {
		json_decref(rows);
		reply_storage(c, id, "audit");
		return;
	}
	dispatch_ok_page(c, id, req, NULL, "entries", rows);
}

/* --- the table ---------------------------------------------------------------- */

static const struct field f_from[] = {
	{ "from", F_INT, 0, DISPATCH_FROM_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_user[] = {
	{ "user", F_STRING, 1, 64 },
	{ NULL, 0, 0, 0 },
};
static const struct field f_user_create[] = {
	{ "user", F_STRING, 1, 64 },
	{ "password", F_STRING, 1, PROTO_LINE_MAX },   /* long: weak_password (auth_cmd.c) */
	{ "role", F_STRING, 0, 16 },
	{ "must_change", F_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct field f_user_reset[] = {
	{ "user", F_STRING, 1, 64 },
	{ "password", F_STRING, 1, PROTO_LINE_MAX },   /* long: weak_password (auth_cmd.c) */
	{ NULL, 0, 0, 0 },
};
static const struct field f_user_role[] = {
	{ "user", F_STRING, 1, 64 },
	{ "role", F_STRING, 1, 16 },
	{ NULL, 0, 0, 0 },
};
static const struct field f_kick[] = {
	{ "user", F_STRING, 1, 64 },
	{ "reason", F_STRING, 0, ADMIN_REASON_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_none[] = {
	{ NULL, 0, 0, 0 },
};
static const struct field f_invite_revoke[] = {
	{ "digest", F_STRING, 1, KDF_DIGEST_HEX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_broadcast[] = {
	{ "text", F_STRING, 1, ADMIN_NOTICE_MAX },
	{ NULL, 0, 0, 0 },
};

const struct cmd admin_cmds[] = {
	{ "users", CMD_ADMIN, f_from, cmd_users },
	{ "user_create", CMD_ADMIN, f_user_create, cmd_user_create },
	{ "user_disable", CMD_ADMIN, f_user, cmd_user_disable },
	{ "user_enable", CMD_ADMIN, f_user, cmd_user_enable },
	{ "user_reset", CMD_ADMIN, f_user_reset, cmd_user_reset },
	{ "user_role", CMD_ADMIN, f_user_role, cmd_user_role },
	{ "kick", CMD_ADMIN, f_kick, cmd_kick },
	{ "invite", CMD_ADMIN, f_none, cmd_invite },
	{ "invites", CMD_ADMIN, f_from, cmd_invites },
	{ "invite_revoke", CMD_ADMIN, f_invite_revoke, cmd_invite_revoke },
	{ "broadcast", CMD_ADMIN, f_broadcast, cmd_broadcast },
	{ "audit", CMD_ADMIN, f_from, cmd_audit },
	{ NULL, 0, NULL, NULL },
};
