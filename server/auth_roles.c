/*
 * auth_roles.c — account roles, and the poll that applies account changes
 * (a role, a disabled flag, a password) made while the daemon runs, by the
 * offline `kriegd user` commands or an admin (auth_priv.h).
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
#include "lobby.h"
#include "log.h"
#include "mstime.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

/* --- roles ------------------------------------------------------------------ */

static const char *const role_names[] = {
	[AUTH_ROLE_PLAYER] = "player", [AUTH_ROLE_UMPIRE] = "umpire", [AUTH_ROLE_ADMIN] = "admin",
};

const char *auth_role_name(int role)
{
	return role >= AUTH_ROLE_PLAYER && role <= AUTH_ROLE_ADMIN ? role_names[role] : NULL;
}

int auth_role_parse(const char *name)
{
	for (int r = AUTH_ROLE_PLAYER; r <= AUTH_ROLE_ADMIN; r++)
		if (name != NULL && strcmp(role_names[r], name) == 0)
			return r;
	return AUTH_ROLE_NONE;
}

/* Read from the store at each question, not cached: a role or a disabled
 * flag changed by `kriegd user` counts from the next request on. */
int auth_user_role(struct server *srv, int64_t uid)
{
	char role[8];
	int disabled = 0, guest = 0;
	if (uid <= 0 || store_user_role(srv->store, uid, role, sizeof role, &disabled, &guest) !=
	                    STORE_OK)
		return AUTH_ROLE_NONE;
	if (disabled)
		return AUTH_ROLE_NONE;
	if (guest)
		return AUTH_ROLE_PLAYER;   /* a guest is never privileged, whatever its row says */
	int r = auth_role_parse(role);
	return r == AUTH_ROLE_NONE ? AUTH_ROLE_PLAYER : r;
}

bool auth_user_is_bot(struct server *srv, int64_t uid)
{
	int bot = 0;
	return uid > 0 && store_user_bot(srv->store, uid, &bot) == STORE_OK && bot;
}

int auth_find_user(struct conn *c, json_t *id, const char *name, struct store_user *u)
{
	int st = name ? store_user_find(conn_server(c)->store, name, u) : STORE_NOT_FOUND;
	if (st == STORE_ERROR) {
		log_warnx("conn=%llu looking up a user: %s", (unsigned long long)conn_id(c),
		          store_error(conn_server(c)->store));
		dispatch_error(c, id, PE_STORAGE, "the user could not be looked up");
		return -1;
	}
	if (st != STORE_OK) {
		dispatch_error(c, id, PE_NO_SUCH_USER, "no such user");
		return -1;
	}
	return 0;
}

/*
 * `kriegd user ...` (useradm.c) changes accounts from another process
 * while the daemon runs.  Rather than re-reading every logged-in account
 * every second, the daemon reads one row: the users table's trigger
 * (store.c, schema 6) bumps server_state "users_version" on every change
 * of a role, a disabled flag or a password.  Only when it moved are the
 * logged-in accounts looked at: a disabled one's connections are closed,
 * and so is every connection logged in under a password set since (its
 * mark, auth_pw_mark, no longer the stored one's: `kriegd user passwd`
 * ended its sessions too), as an admin's user_reset closes them; the
 * logins waiting on a password change likewise; and the games module
 * drops umpire chairs no longer held by right.
 */
static void users_apply(struct auth *a);
static void disables_apply(struct auth *a);

void auth_users_check(evutil_socket_t fd, short what, void *arg)
{
	struct auth *a = arg;
	struct server *srv = a->srv;
	int64_t v = 0;

	(void)fd;
	(void)what;
	if (store_state_get(srv->store, STORE_USERS_VERSION_KEY, &v) == STORE_ERROR) {
		log_warnx("auth: reading the users version: %s", store_error(srv->store));
		return;
	}
	if (v == a->users_version)
		return;
	a->users_version = v;
	disables_apply(a);
	users_apply(a);
}

void auth_reconfigure(struct server *srv)
{
	if (srv->auth != NULL && srv->cfg != NULL)
		guard_reconfigure(srv->auth->guard, &srv->cfg->guard);
}

/* An admin's change over the protocol (admin.c) applies at once; the
 * version it bumped is then seen as known by the next auth_users_check. */
void auth_users_changed(struct server *srv)
{
	struct auth *a = srv->auth;
	int64_t v = 0;
	if (store_state_get(srv->store, STORE_USERS_VERSION_KEY, &v) == STORE_OK)
		a->users_version = v;
	disables_apply(a);
	users_apply(a);
}

/* Was the password of account `name` set since the login that marked it
 * `mark`?  Not when either mark is unknown (a guest; the store failed). */
static bool password_changed(struct auth *a, const char *name, uint64_t mark)
{
	uint64_t now = mark != 0 ? auth_pw_mark(a, name) : 0;
	return now != 0 && now != mark;
}

/* Told once: a connection closing waits for the commits in progress, and
 * is still its user's meanwhile (the review: a second look, or the
 * audit's look then the flag's, sent account_disabled twice). */
static void close_disabled(struct conn *c)
{
	if (conn_closing(c))
		return;
	log_info("conn=%llu user=%lld disabled: closing", (unsigned long long)conn_id(c),
	         (long long)conn_user(c));
	conn_send(c, json_pack("{s:s}", "event", "account_disabled"));
	conn_close(c, "account disabled");
}

struct disables {
	struct disable { int64_t row; char name[PROTO_NAME_MAX + 1]; } *v;
	size_t n, cap;
};

static int disabled_row(int64_t row, const char *target, void *arg)
{
	struct disables *l = arg;
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v, 8);
	l->v[l->n].row = row;
	snprintf(l->v[l->n++].name, sizeof l->v->name, "%s", target);
	return 0;
}

/*
 * Every account disabled since the last look has the connections it had
 * then closed, whatever its flag says now: `kriegd user disable NAME;
 * kriegd user enable NAME` within one AUTH_USERS_CHECK_MS left the flag
 * as it was, and the member logged in, told nothing (the club admin
 * probe), where PROTOCOL.md promises the close within about a second of
 * the disable.  The audit rows say it: each change of the flag writes
 * one, in the change's own transaction (useradm.c, admin.c).  A login
 * after the disable's row (its token's audit_mark) came after the enable
 * too, and stays.  Waiting logins (a password change asked) are closed
 * all the same.  The rows are read first and looked up after, one
 * statement at a time.
 */
bool auth_audit_skip(struct auth *a)
{
	a->audit_known = a->audit_known ||
	                 store_audit_disables(a->srv->store, &a->audit_seen, NULL, NULL) == STORE_OK;
	return a->audit_known;
}

static void disables_apply(struct auth *a)
{
	struct server *srv = a->srv;
	if (!a->audit_known) {   /* the start's read failed: from now on, not all history */
		(void)auth_audit_skip(a);
		return;
	}
	struct disables rows = { 0 };
	if (store_audit_disables(srv->store, &a->audit_seen, disabled_row, &rows) != STORE_OK)
		log_warnx("auth: reading the audit: %s", store_error(srv->store));
	for (size_t i = 0; i < rows.n; i++) {
		struct store_user u;
		if (store_user_find(srv->store, rows.v[i].name, &u) != STORE_OK)
			continue;
		for (struct conn *c = NULL; (c = conn_of_user(srv, u.id, c)) != NULL;) {
			const struct conn_token *t = auth_token_find(a, conn_id(c));
			if (t == NULL || t->audit_mark < rows.v[i].row)
				close_disabled(c);
		}
		json_t *msg = json_pack("{s:s}", "event", "account_disabled");
		(void)auth_close_waiting(srv, u.id, NULL, msg, "account disabled");
		json_decref(msg);
	}
	free(rows.v);
}

static void users_apply(struct auth *a)
{
	struct server *srv = a->srv;
	for (struct conn *c = NULL; (c = conn_of_user(srv, 0, c)) != NULL;)
		if (auth_user_role(srv, conn_user(c)) == AUTH_ROLE_NONE)
			close_disabled(c);
	/* Logged in under a password set since: found from the sessions'
	 * marks (a walk of the connections asking each for its session was
	 * quadratic, and this runs at every wire passwd), closed after the
	 * walk (closing one takes its session out of the array). */
	uint64_t *stale = NULL;
	size_t nstale = 0, capstale = 0;
	for (size_t i = 0; i < a->ntokens; i++) {
		const struct conn_token *t = &a->tokens[i];
		struct conn *c = t->pwmark != 0 ? conn_find(srv, t->conn) : NULL;
		if (c == NULL || conn_user(c) <= 0 ||
		    !password_changed(a, conn_user_name(c), t->pwmark))
			continue;
		stale = xgrow(stale, &capstale, nstale + 1, sizeof *stale, 16);
		stale[nstale++] = t->conn;
	}
	for (size_t i = 0; i < nstale; i++) {
		struct conn *c = conn_find(srv, stale[i]);
		if (c == NULL)
			continue;
		log_info("conn=%llu user=%lld password set offline: closing",
		         (unsigned long long)conn_id(c), (long long)conn_user(c));
		char dg[KDF_DIGEST_HEX + 1];
		auth_token_take(a, conn_id(c), dg);
		conn_send(c, json_pack("{s:s, s:s}", "event", "session_ended", "reason",
		                       "the password was changed"));
		conn_close(c, "password changed");
	}
	free(stale);
	/* Logins waiting on a password change are the account's too. */
	for (size_t i = 0; i < a->nchanging;) {
		struct conn_must_change *m = &a->changing[i];
		struct conn *c = conn_find(srv, m->conn);
		bool off = c != NULL && auth_user_role(srv, m->user) == AUTH_ROLE_NONE;
		if (c == NULL || (!off && !password_changed(a, m->name, m->pwmark))) {
			i++;
			continue;
		}
		log_info("conn=%llu user=%lld %s: closing the waiting login", (unsigned long long)m->conn,
		         (long long)m->user, off ? "disabled" : "password set offline");
		*m = a->changing[--a->nchanging];
		if (off)
			conn_send(c, json_pack("{s:s}", "event", "account_disabled"));
		else
			conn_send(c, json_pack("{s:s, s:s}", "event", "session_ended", "reason",
			                       "the password was changed"));
		conn_close(c, off ? "account disabled" : "password changed");
	}
	games_users_changed(srv);
	lobby_users_changed(srv);
}

