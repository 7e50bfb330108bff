/*
 * store_user.c — accounts and resume sessions (store.h), on the
 * connection, statements and sticky error of store.c (store_priv.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "board.h"
#include "store_priv.h"

/* --- users ---------------------------------------------------------------- */

/* One row of S_USER_FIND / S_USERS_LIST: id, name, pwhash, guest, created,
 * role, disabled, must_change, last_login, last_addr, bot (USER_COLS). */
static int user_row(struct store *st, sqlite3_stmt *s, struct store_user *out)
{
	memset(out, 0, sizeof *out);
	out->id = sqlite3_column_int64(s, 0);
	out->guest = sqlite3_column_int(s, 3);
	out->created_unix = sqlite3_column_int64(s, 4);
	out->disabled = sqlite3_column_int(s, 6);
	out->must_change = sqlite3_column_int(s, 7);
	out->last_login_unix = sqlite3_column_int64(s, 8);
	out->bot = sqlite3_column_int(s, 10);
	int rc = store_col_text(st, s, 1, out->name, sizeof out->name, "user row");
	if (rc == STORE_OK)
		rc = store_col_text(st, s, 9, out->last_addr, sizeof out->last_addr, "user row");
	if (rc == STORE_OK)
		rc = store_col_text(st, s, 2, out->pwhash, sizeof out->pwhash, "user row");
	if (rc == STORE_OK)
		rc = store_col_text(st, s, 5, out->role, sizeof out->role, "user row");
	return rc;
}

int store_user_alike(struct store *st, const char *name, char *found, size_t len)
{
	int temp, rc;
	sqlite3_stmt *s;
	char look[PROTO_NAME_MAX + 1];

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USER_LOOK, &temp)) == NULL)
		return STORE_ERROR;
	proto_name_look(name, look, sizeof look);
	if (store_bind_text(s, 1, name, PROTO_NAME_MAX + 1) != SQLITE_OK ||
	    store_bind_text(s, 2, look, sizeof look) != SQLITE_OK)
		rc = store_fail(st, "user alike: name too long");
	else if ((rc = store_step_row(st, s, "user alike")) == STORE_OK)
		rc = store_col_text(st, s, 0, found, len, "user alike");
	store_stmt_done(s, temp);
	return rc;
}

int store_user_create(struct store *st, const char *name, const char *pwhash, int guest,
                      int64_t *id)
{
	int temp, rc, step;
	sqlite3_stmt *s;
	char other[PROTO_NAME_MAX + 1], look[PROTO_NAME_MAX + 1];

	/* Looked at in the insert's own transaction (the callers' begin):
	 * two registrations of names alike, one after the other, the second
	 * is refused.  Guests' names are drawn, not chosen. */
	if (!guest && (rc = store_user_alike(st, name, other, sizeof other)) != STORE_NOT_FOUND) {
		if (rc == STORE_OK && st->depth == 0)
			snprintf(st->err, sizeof st->err, "user create: name taken");
		return rc == STORE_OK ? STORE_EXISTS : rc;
	}
	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USER_CREATE, &temp)) == NULL)
		return STORE_ERROR;
	if (store_bind_text(s, 1, name, sizeof ((struct store_user *)0)->name) != SQLITE_OK ||
	    (pwhash != NULL && pwhash[0] != '\0'
	         ? store_bind_text(s, 2, pwhash, STORE_HASH_MAX)
	         : sqlite3_bind_null(s, 2)) != SQLITE_OK ||
	    sqlite3_bind_int(s, 3, guest ? 1 : 0) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 4, (int64_t)time(NULL)) != SQLITE_OK ||
	    (guest ? sqlite3_bind_null(s, 5)
	           : (proto_name_look(name, look, sizeof look), store_bind_text(s, 5, look, sizeof look))) !=
	            SQLITE_OK) {
		rc = store_fail(st, "user create: name or hash too long");
		goto out;
	}
	step = sqlite3_step(s);
	if (step == SQLITE_DONE) {
		if (id != NULL)
			*id = sqlite3_last_insert_rowid(st->db);
		rc = STORE_OK;
	} else if (step == SQLITE_CONSTRAINT_UNIQUE) {
		/* An answer, not a failure: the transaction lives on, and
		 * its sticky error text stays free for a real failure. */
		if (st->depth == 0)
			snprintf(st->err, sizeof st->err, "user create: name taken");
		rc = STORE_EXISTS;
	} else {
		rc = store_fail_db(st, "user create");
	}
out:
	store_stmt_done(s, temp);
	return rc;
}

int store_user_find(struct store *st, const char *name, struct store_user *out)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USER_FIND, &temp)) == NULL)
		return STORE_ERROR;
	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT) != SQLITE_OK) {
		rc = store_fail_db(st, "user find");
		goto out;
	}
	rc = store_step_row(st, s, "user find");
	if (rc == STORE_OK) {
		rc = user_row(st, s, out);
	}
out:
	store_stmt_done(s, temp);
	return rc;
}

int store_user_get(struct store *st, const char *name, int64_t *id, char *pwhash, size_t len)
{
	struct store_user u;
	int rc = store_user_find(st, name, &u);

	if (rc != STORE_OK)
		return rc;
	if (id != NULL)
		*id = u.id;
	if (pwhash != NULL) {
		size_t n = strlen(u.pwhash);
		if (n >= len)
			return store_fail(st, "user get: hash buffer too small");
		memcpy(pwhash, u.pwhash, n + 1);
	}
	return STORE_OK;
}

int store_user_role(struct store *st, int64_t id, char *role, size_t len, int *disabled,
                    int *guest)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USER_ROLE, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	rc = store_step_row(st, s, "user role");
	if (rc == STORE_OK) {
		*disabled = sqlite3_column_int(s, 1);
		*guest = sqlite3_column_int(s, 2);
		rc = store_col_text(st, s, 0, role, len, "user role");
	}
	store_stmt_done(s, temp);
	return rc;
}

/* An UPDATE keyed by name with one text or integer value. */
static int user_update(struct store *st, enum stmt_id id, const char *name, const char *text,
                       int value, const char *what)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, id, &temp)) == NULL)
		return STORE_ERROR;
	if (store_bind_text(s, 1, name, sizeof ((struct store_user *)0)->name) != SQLITE_OK ||
	    (text != NULL ? store_bind_text(s, 2, text, STORE_HASH_MAX)
	                  : sqlite3_bind_int(s, 2, value)) != SQLITE_OK) {
		store_stmt_done(s, temp);
		return store_fail(st, "%s: value too long", what);
	}
	return store_write_changes(st, s, temp, what);
}

int store_user_set_role(struct store *st, const char *name, const char *role)
{
	return user_update(st, S_USER_SET_ROLE, name, role, 0, "user role");
}

int store_user_set_disabled(struct store *st, const char *name, int disabled)
{
	return user_update(st, S_USER_SET_DISABLED, name, NULL, disabled ? 1 : 0, "user disable");
}

int store_user_set_bot(struct store *st, const char *name, int bot)
{
	return user_update(st, S_USER_SET_BOT, name, NULL, bot ? 1 : 0, "user bot");
}

int store_user_bot(struct store *st, int64_t id, int *bot)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USER_BOT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	rc = store_step_row(st, s, "user bot");
	if (rc == STORE_OK) {
		*bot = sqlite3_column_int(s, 0);
	}
	store_stmt_done(s, temp);
	return rc;
}

int store_user_set_pwhash(struct store *st, const char *name, const char *pwhash)
{
	return user_update(st, S_USER_SET_PWHASH, name, pwhash, 0, "user password");
}

int store_users_list(struct store *st, int (*fn)(const struct store_user *u, void *arg),
                     void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;
	struct store_user u;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USERS_LIST, &temp)) == NULL)
		return STORE_ERROR;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if ((rc = user_row(st, s, &u)) != STORE_OK || fn(&u, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "users list");
	store_stmt_done(s, temp);
	return rc;
}

int store_user_name(struct store *st, int64_t id, char *name, size_t len)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_USER_NAME, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	rc = store_step_row(st, s, "user name");
	if (rc == STORE_OK)
		rc = store_col_text(st, s, 0, name, len, "user name");
	store_stmt_done(s, temp);
	return rc;
}

/* --- sessions -------------------------------------------------------------- */

int store_session_create(struct store *st, int64_t user, const char *token_hash,
                         int64_t expires_unix)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_SESSION_CREATE, &temp)) == NULL)
		return STORE_ERROR;
	if (store_bind_text(s, 1, token_hash, STORE_HASH_MAX) != SQLITE_OK) {
		rc = store_fail(st, "session create: token hash too long");
	} else {
		sqlite3_bind_int64(s, 2, user);
		sqlite3_bind_int64(s, 3, (int64_t)time(NULL));
		sqlite3_bind_int64(s, 4, expires_unix);
		rc = store_run(st, s, "session create");
	}
	store_stmt_done(s, temp);
	return rc;
}

int store_session_lookup(struct store *st, const char *token_hash, int64_t now_unix,
                         int64_t *user)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_SESSION_LOOKUP, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, token_hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, now_unix);
	rc = store_step_row(st, s, "session lookup");
	if (rc == STORE_OK) {
		if (user != NULL)
			*user = sqlite3_column_int64(s, 0);
	}
	store_stmt_done(s, temp);
	return rc;
}

int store_session_delete(struct store *st, const char *token_hash)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_SESSION_DELETE, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, token_hash, -1, SQLITE_TRANSIENT);
	return store_write_changes(st, s, temp, "session delete");
}

int store_session_touch(struct store *st, const char *token_hash, int64_t now_unix,
                        int64_t expires_unix)
{
	int temp;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_SESSION_TOUCH, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, token_hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, now_unix);
	sqlite3_bind_int64(s, 3, expires_unix);
	return store_write_changes(st, s, temp, "session touch");
}

int store_sessions_purge(struct store *st, int64_t now_unix)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_SESSIONS_PURGE, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, now_unix);
	rc = store_run(st, s, "sessions purge");
	store_stmt_done(s, temp);
	return rc;
}

int store_sessions_of_user(struct store *st, int64_t user, int64_t now_unix,
                           int (*fn)(const char *token_hash, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_SESSIONS_OF_USER, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	sqlite3_bind_int64(s, 2, now_unix);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *h = sqlite3_column_text(s, 0);
		if (fn(h != NULL ? (const char *)h : "", arg) != 0)
			break;
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "sessions of user");
	store_stmt_done(s, temp);
	return rc;
}

int store_guests_stale(struct store *st, int64_t before, int64_t *ids, size_t max, size_t *n)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;

	*n = 0;
	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_GUESTS_STALE, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, before);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)max);
	while ((step = sqlite3_step(s)) == SQLITE_ROW && *n < max)
		ids[(*n)++] = sqlite3_column_int64(s, 0);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "stale guests");
	store_stmt_done(s, temp);
	return rc;
}

int store_guest_delete(struct store *st, int64_t id, int *deleted)
{
	int temp, rc;
	sqlite3_stmt *s;

	*deleted = 0;
	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_GUEST_DELETE, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	rc = store_run(st, s, "guest delete");
	if (rc == STORE_OK)
		*deleted = sqlite3_changes(st->db) > 0;
	store_stmt_done(s, temp);
	return rc;
}

/* A write of statement sid on a pair of users (mutes, follows). */
static int pair_write(struct store *st, enum stmt_id sid, int64_t user, int64_t other, const char *what)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, sid, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	sqlite3_bind_int64(s, 2, other);
	rc = store_run(st, s, what);
	store_stmt_done(s, temp);
	return rc;
}

int store_mute_set(struct store *st, int64_t user, int64_t muted, int on)
{
	return pair_write(st, on ? S_MUTE_SET : S_MUTE_CLEAR, user, muted, "mute");
}

int store_mutes_list(struct store *st, int (*fn)(int64_t user, int64_t muted, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_MUTES_LIST, &temp)) == NULL)
		return STORE_ERROR;
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		if (fn(sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), arg) != 0)
			break;
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "mutes list");
	store_stmt_done(s, temp);
	return rc;
}

int store_offer_put(struct store *st, const struct store_offer *c)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_OFFER_PUT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, c->id);
	sqlite3_bind_int64(s, 2, c->owner);
	sqlite3_bind_int64(s, 3, c->target);
	sqlite3_bind_int64(s, 5, c->days);
	sqlite3_bind_int(s, 7, c->rated ? 1 : 0);
	sqlite3_bind_int(s, 8, c->rating_min);
	sqlite3_bind_int(s, 9, c->rating_max);
	sqlite3_bind_int64(s, 10, c->rematch);
	sqlite3_bind_int64(s, 11, c->made_ms);
	if (store_bind_text(s, 4, c->rules, sizeof c->rules) != SQLITE_OK ||
	    store_bind_text(s, 6, c->color, sizeof c->color) != SQLITE_OK) {
		rc = store_fail(st, "offer put: rules or colour too long");
		goto out;
	}
	step = sqlite3_step(s);
	if (step == SQLITE_DONE)
		rc = STORE_OK;
	else if (step == SQLITE_CONSTRAINT_PRIMARYKEY)
		rc = STORE_EXISTS;
	else
		rc = store_fail_db(st, "offer put");
out:
	store_stmt_done(s, temp);
	return rc;
}

int store_offer_drop(struct store *st, int64_t id)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_OFFER_DROP, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s) == SQLITE_DONE ? STORE_OK : store_fail_db(st, "offer drop");
	store_stmt_done(s, temp);
	return rc;
}

int store_offers_list(struct store *st, int (*fn)(const struct store_offer *o, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;
	struct store_offer c;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_OFFERS_LIST, &temp)) == NULL)
		return STORE_ERROR;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&c, 0, sizeof c);
		c.id = sqlite3_column_int64(s, 0);
		c.owner = sqlite3_column_int64(s, 1);
		c.target = sqlite3_column_int64(s, 3);
		c.days = sqlite3_column_int64(s, 6);
		c.rated = sqlite3_column_int(s, 8);
		c.rematch = sqlite3_column_int64(s, 9);
		c.made_ms = sqlite3_column_int64(s, 10);
		c.rating_min = sqlite3_column_int(s, 11);
		c.rating_max = sqlite3_column_int(s, 12);
		if ((rc = store_col_text(st, s, 2, c.owner_name, sizeof c.owner_name, "offers list")) !=
		            STORE_OK ||
		    (rc = store_col_text(st, s, 4, c.target_name, sizeof c.target_name, "offers list")) !=
		            STORE_OK ||
		    (rc = store_col_text(st, s, 5, c.rules, sizeof c.rules, "offers list")) != STORE_OK ||
		    (rc = store_col_text(st, s, 7, c.color, sizeof c.color, "offers list")) != STORE_OK ||
		    fn(&c, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "offers list");
	store_stmt_done(s, temp);
	return rc;
}

int store_offer_close(struct store *st, int64_t id, const char *what, int64_t at_ms)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if (store_begin(st) != STORE_OK)
		return STORE_ERROR;
	if ((s = store_stmt(st, S_OFFER_NEWS_PUT, &temp)) == NULL) {
		store_rollback(st);
		return STORE_ERROR;
	}
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 3, at_ms);
	if (store_bind_text(s, 2, what, sizeof ((struct store_offer_news *)0)->what) != SQLITE_OK) {
		store_stmt_done(s, temp);
		store_rollback(st);
		return store_fail(st, "offer close: what too long");
	}
	rc = store_write_changes(st, s, temp, "offer close");
	if (rc == STORE_OK)
		rc = store_offer_drop(st, id);
	if (rc != STORE_OK) {
		store_rollback(st);
		return rc;
	}
	return store_commit(st);
}

int store_offer_news_list(struct store *st, int64_t owner,
                          int (*fn)(const struct store_offer_news *n, void *arg), void *arg,
                          int64_t *last)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;
	struct store_offer_news n;

	*last = 0;
	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_OFFER_NEWS_LIST, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, owner);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&n, 0, sizeof n);
		n.id = sqlite3_column_int64(s, 0);
		n.offer = sqlite3_column_int64(s, 1);
		if ((rc = store_col_text(st, s, 2, n.what, sizeof n.what, "offer news")) != STORE_OK ||
		    (rc = store_col_text(st, s, 3, n.target_name, sizeof n.target_name, "offer news")) !=
		            STORE_OK)
			break;
		*last = n.id;
		if (fn(&n, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "offer news");
	store_stmt_done(s, temp);
	return rc;
}

int store_offer_news_drop(struct store *st, int64_t owner, int64_t last)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_OFFER_NEWS_DROP, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, owner);
	sqlite3_bind_int64(s, 2, last);
	rc = sqlite3_step(s) == SQLITE_DONE ? STORE_OK : store_fail_db(st, "offer news drop");
	store_stmt_done(s, temp);
	return rc;
}

int store_message_put(struct store *st, int64_t recipient, int64_t sender, const char *text,
                      int64_t sent_unix, int delivered, int64_t *num)
{
	int temp, rc;
	sqlite3_stmt *s;
	int64_t seq = 0;

	if ((rc = store_begin(st)) != STORE_OK)
		return rc;
	if ((s = store_stmt(st, S_MESSAGE_SEQ, &temp)) == NULL) {
		store_rollback(st);
		return STORE_ERROR;
	}
	sqlite3_bind_int64(s, 1, recipient);
	sqlite3_bind_int(s, 2, delivered);
	if ((rc = store_step_row(st, s, "message number")) == STORE_OK)
		seq = sqlite3_column_int64(s, 0);
	store_stmt_done(s, temp);
	if (rc == STORE_OK && (s = store_stmt(st, S_MESSAGE_PUT, &temp)) == NULL)
		rc = STORE_ERROR;
	else if (rc == STORE_OK) {
		sqlite3_bind_int64(s, 1, recipient);
		sqlite3_bind_int64(s, 2, sender);
		sqlite3_bind_int64(s, 4, sent_unix);
		sqlite3_bind_int(s, 5, delivered);
		sqlite3_bind_int64(s, 6, seq);
		if (store_bind_text(s, 3, text, sizeof ((struct store_message *)0)->text) != SQLITE_OK)
			rc = store_fail(st, "message put: text too long");
		else
			rc = store_run(st, s, "message put");
		store_stmt_done(s, temp);
	}
	if (rc != STORE_OK) {
		store_rollback(st);
		return rc;
	}
	if (num != NULL)
		*num = delivered == STORE_MESSAGE_WITHHELD ? 0 : seq;
	return store_commit(st);
}

int store_messages_count(struct store *st, int64_t recipient, int64_t sender, int64_t *n,
                         int64_t *from_sender)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_MESSAGES_COUNT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, recipient);
	sqlite3_bind_int64(s, 2, sender);
	if ((rc = store_step_row(st, s, "messages count")) == STORE_OK) {
		*n = sqlite3_column_int64(s, 0);
		*from_sender = sqlite3_column_int64(s, 1);
	}
	store_stmt_done(s, temp);
	return rc;
}

int store_messages_list(struct store *st, int64_t recipient,
                        int (*fn)(const struct store_message *m, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;
	struct store_message m;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_MESSAGES_LIST, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, recipient);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&m, 0, sizeof m);
		m.id = sqlite3_column_int64(s, 0);
		m.sent_unix = sqlite3_column_int64(s, 3);
		m.delivered = sqlite3_column_int(s, 4);
		m.num = sqlite3_column_int64(s, 5);
		if ((rc = store_col_text(st, s, 1, m.from, sizeof m.from, "messages list")) != STORE_OK ||
		    (rc = store_col_text(st, s, 2, m.text, sizeof m.text, "messages list")) != STORE_OK ||
		    fn(&m, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "messages list");
	store_stmt_done(s, temp);
	return rc;
}

int store_messages_delivered(struct store *st, int64_t recipient, int64_t upto)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_MESSAGES_DELIVERED, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, recipient);
	sqlite3_bind_int64(s, 2, upto);
	rc = store_run(st, s, "messages delivered");
	store_stmt_done(s, temp);
	return rc;
}

int store_messages_delete(struct store *st, int64_t recipient, int64_t id, int64_t *n)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_MESSAGES_DELETE, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, recipient);
	sqlite3_bind_int64(s, 2, id);
	if ((rc = store_run(st, s, "messages delete")) == STORE_OK)
		*n = sqlite3_changes(st->db);
	store_stmt_done(s, temp);
	return rc;
}

int store_follow_set(struct store *st, int64_t user, int64_t followed)
{
	return pair_write(st, S_FOLLOW_SET, user, followed, "follow");
}

int store_follow_clear(struct store *st, int64_t user, int64_t followed)
{
	return pair_write(st, S_FOLLOW_CLEAR, user, followed, "unfollow");
}

int store_missed_add(struct store *st, int64_t user, int64_t game, int keep)
{
	int rc = store_begin(st);
	if (rc == STORE_OK)
		rc = pair_write(st, S_MISSED_ADD, user, game, "missed game");
	if (rc == STORE_OK)
		rc = pair_write(st, S_MISSED_TRIM, user, keep - 1, "missed games trim");
	if (rc != STORE_OK) {
		store_rollback(st);
		return rc;
	}
	return store_commit(st);
}

int store_missed_take(struct store *st, int64_t user, void (*fn)(const struct store_missed *m, void *arg),
                      void *arg)
{
	/* Read first, in a read transaction: every login asks, and most have
	 * nothing waiting; a write transaction would take the write lock (and
	 * wait behind the group commit) for nothing.  Those told are then
	 * deleted, one by one: a game that ended meanwhile stays for the next
	 * login (told twice, should the delete fail, rather than never). */
	enum { TAKE_MAX = 256 };
	int64_t told[TAKE_MAX];
	int temp, rc, step, n = 0;
	sqlite3_stmt *s;

	if ((rc = store_begin_read(st)) != STORE_OK)
		return rc;
	if ((s = store_stmt(st, S_MISSED_OF, &temp)) == NULL) {
		store_rollback(st);
		return STORE_ERROR;
	}
	sqlite3_bind_int64(s, 1, user);
	while (n < TAKE_MAX && (step = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_missed m = { .game = sqlite3_column_int64(s, 0),
		                          .color = sqlite3_column_int(s, 1) ? WHITE : BLACK,
		                          .result = sqlite3_column_int(s, 2),
		                          .reason = sqlite3_column_int(s, 3) };
		if ((rc = store_col_text(st, s, 4, m.opponent, sizeof m.opponent, "missed games")) != STORE_OK)
			break;
		fn(&m, arg);
		told[n++] = m.game;
	}
	if (rc == STORE_OK && n < TAKE_MAX && step != SQLITE_DONE)
		rc = store_fail_db(st, "missed games");
	store_stmt_done(s, temp);
	if (rc != STORE_OK) {
		store_rollback(st);
		return rc;
	}
	if ((rc = store_commit(st)) != STORE_OK || n == 0)
		return rc;
	if ((rc = store_begin(st)) != STORE_OK)
		return rc;
	for (int k = 0; k < n && rc == STORE_OK; k++)
		rc = pair_write(st, S_MISSED_DROP, user, told[k], "missed game told");
	if (rc != STORE_OK) {
		store_rollback(st);
		return rc;
	}
	return store_commit(st);
}

int store_follows_of(struct store *st, int64_t user,
                     int (*fn)(int64_t followed, const char *name, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;
	char name[32];

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_FOLLOWS_OF, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if ((rc = store_col_text(st, s, 1, name, sizeof name, "follows of")) != STORE_OK ||
		    fn(sqlite3_column_int64(s, 0), name, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "follows of");
	store_stmt_done(s, temp);
	return rc;
}
