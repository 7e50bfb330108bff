/*
 * store_admin.c — schema 8's club administration (store.h): last logins,
 * passwords that must be changed, ending a user's sessions, invite codes
 * and the audit log; on the connection, statements and sticky error of
 * store.c (store_priv.h).
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "store_priv.h"

int store_user_seen(struct store *st, int64_t id, int64_t now_unix, const char *addr)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USER_SEEN, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, now_unix);
	if (store_bind_text(s, 3, addr, sizeof ((struct store_user *)0)->last_addr) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return store_fail(st, "user seen: address too long");
	}
	return store_write_changes(st, s, temp, "user seen");
}

int store_user_set_password(struct store *st, int64_t id, const char *pwhash, int must_change)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USER_SET_PASSWORD, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	if (store_bind_text(s, 2, pwhash, STORE_HASH_MAX) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return store_fail(st, "user password: hash too long");
	}
	sqlite3_bind_int(s, 3, must_change ? 1 : 0);
	return store_write_changes(st, s, temp, "user password");
}

int store_sessions_end_user(struct store *st, int64_t user, const char *keep)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_SESSIONS_END_USER, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	if (store_bind_text(s, 2, keep != NULL ? keep : "", STORE_HASH_MAX) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return store_fail(st, "sessions end: digest too long");
	}
	rc = store_run(st, s, "sessions end");
	store_stmt_done(s, temp);
	return rc;
}

int store_invite_create(struct store *st, const char *digest, int64_t by, int64_t now_unix,
                        int64_t expires_unix)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_INVITE_CREATE, &temp)) == NULL)
		return STORE_ERROR;
	if (store_bind_text(s, 1, digest, STORE_HASH_MAX) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return store_fail(st, "invite create: digest too long");
	}
	sqlite3_bind_int64(s, 2, by);
	sqlite3_bind_int64(s, 3, now_unix);
	sqlite3_bind_int64(s, 4, expires_unix);
	rc = store_run(st, s, "invite create");
	store_stmt_done(s, temp);
	return rc;
}

int store_invite_valid(struct store *st, const char *digest, int64_t now_unix)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_INVITE_VALID, &temp)) == NULL)
		return STORE_ERROR;
	if (store_bind_text(s, 1, digest, STORE_HASH_MAX) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return STORE_NOT_FOUND;   /* no stored digest is that long */
	}
	sqlite3_bind_int64(s, 2, now_unix);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		rc = STORE_OK;
	else if (step == SQLITE_DONE)
		rc = STORE_NOT_FOUND;
	else
		rc = store_fail_db(st, "invite check");
	store_stmt_done(s, temp);
	return rc;
}

int store_invite_use(struct store *st, const char *digest, int64_t user, int64_t now_unix)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_INVITE_USE, &temp)) == NULL)
		return STORE_ERROR;
	if (store_bind_text(s, 1, digest, STORE_HASH_MAX) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return STORE_NOT_FOUND;
	}
	sqlite3_bind_int64(s, 2, now_unix);
	sqlite3_bind_int64(s, 3, user);
	return store_write_changes(st, s, temp, "invite use");
}

int store_audit_add(struct store *st, const struct store_audit *a)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_AUDIT_ADD, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, a->at_unix);
	/* No account made an offline change (useradm.c): no user to refer to. */
	if (a->admin != 0)
		sqlite3_bind_int64(s, 2, a->admin);
	else
		sqlite3_bind_null(s, 2);
	if (store_bind_text(s, 3, a->admin_name, sizeof a->admin_name) != SQLITE_OK ||
	    store_bind_text(s, 4, a->addr, sizeof a->addr) != SQLITE_OK ||
	    store_bind_text(s, 5, a->action, sizeof a->action) != SQLITE_OK ||
	    store_bind_text(s, 6, a->target, sizeof a->target) != SQLITE_OK ||
	    store_bind_text(s, 7, a->detail, sizeof a->detail) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return store_fail(st, "audit: a text too long");
	}
	rc = store_run(st, s, "audit");
	store_stmt_done(s, temp);
	return rc;
}

int store_audit_list(struct store *st, int limit,
                     int (*fn)(const struct store_audit *a, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;
	struct store_audit a;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_AUDIT_LIST, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int(s, 1, limit);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&a, 0, sizeof a);
		a.id = sqlite3_column_int64(s, 0);
		a.at_unix = sqlite3_column_int64(s, 1);
		rc = store_col_text(st, s, 2, a.admin_name, sizeof a.admin_name, "audit row");
		if (rc == STORE_OK)
			rc = store_col_text(st, s, 3, a.addr, sizeof a.addr, "audit row");
		if (rc == STORE_OK)
			rc = store_col_text(st, s, 4, a.action, sizeof a.action, "audit row");
		if (rc == STORE_OK)
			rc = store_col_text(st, s, 5, a.target, sizeof a.target, "audit row");
		if (rc == STORE_OK)
			rc = store_col_text(st, s, 6, a.detail, sizeof a.detail, "audit row");
		if (rc != STORE_OK || fn(&a, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "audit list");
	store_stmt_done(s, temp);
	return rc;
}

int store_audit_disables(struct store *st, int64_t *seen,
                         int (*fn)(int64_t id, const char *target, void *arg), void *arg)
{
	int temp, rc, step;
	sqlite3_stmt *s;
	int64_t newest = 0;

	if (!store_enter(st))
		return STORE_ERROR;
	/* The newest row first: the rows up to it are committed, and the
	 * next look starts after it whatever is written meanwhile. */
	if ((s = store_stmt(st, S_AUDIT_NEWEST, &temp)) == NULL)
		return STORE_ERROR;
	rc = store_step_row(st, s, "audit newest");
	if (rc == STORE_OK)
		newest = sqlite3_column_int64(s, 0);
	store_stmt_done(s, temp);
	if (rc != STORE_OK)
		return rc;
	if (fn != NULL && newest > *seen) {
		if ((s = store_stmt(st, S_AUDIT_DISABLES, &temp)) == NULL)
			return STORE_ERROR;
		sqlite3_bind_int64(s, 1, *seen);
		sqlite3_bind_int64(s, 2, newest);
		char target[sizeof ((struct store_audit *)0)->target];
		while ((step = sqlite3_step(s)) == SQLITE_ROW) {
			rc = store_col_text(st, s, 1, target, sizeof target, "audit disables");
			if (rc != STORE_OK || fn(sqlite3_column_int64(s, 0), target, arg) != 0)
				break;
		}
		if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
			rc = store_fail_db(st, "audit disables");
		store_stmt_done(s, temp);
	}
	if (rc == STORE_OK)
		*seen = newest;
	return rc;
}

int store_invites_list(struct store *st, const char *prefix, int limit,
                       int (*fn)(const struct store_invite *iv, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;
	struct store_invite iv;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_INVITES_LIST, &temp)) == NULL)
		return STORE_ERROR;
	if (store_bind_text(s, 1, prefix, sizeof iv.digest) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return store_fail(st, "invites: prefix too long");
	}
	sqlite3_bind_int(s, 2, limit);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&iv, 0, sizeof iv);
		rc = store_col_text(st, s, 0, iv.digest, sizeof iv.digest, "invite row");
		/* A NULL name (the account is gone) reads as "". */
		if (rc == STORE_OK && sqlite3_column_type(s, 1) != SQLITE_NULL)
			rc = store_col_text(st, s, 1, iv.created_by, sizeof iv.created_by, "invite row");
		iv.created_unix = sqlite3_column_int64(s, 2);
		iv.expires_unix = sqlite3_column_int64(s, 3);
		if (rc == STORE_OK && sqlite3_column_type(s, 4) != SQLITE_NULL)
			rc = store_col_text(st, s, 4, iv.used_by, sizeof iv.used_by, "invite row");
		iv.used_unix = sqlite3_column_int64(s, 5);
		if (rc != STORE_OK || fn(&iv, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "invites list");
	store_stmt_done(s, temp);
	return rc;
}

int store_invite_revoke(struct store *st, const char *digest, int64_t now_unix)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_INVITE_REVOKE, &temp)) == NULL)
		return STORE_ERROR;
	if (store_bind_text(s, 1, digest, STORE_HASH_MAX) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return STORE_NOT_FOUND;   /* no stored digest is that long */
	}
	sqlite3_bind_int64(s, 2, now_unix);
	return store_write_changes(st, s, temp, "invite revoke");
}
