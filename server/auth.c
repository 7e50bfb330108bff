/*
 * auth.c — register, login, guest, resume, logout.
 *
 * The slow part of an account is scrypt (~0.1 s and 32 MiB per hash, by
 * design).  It runs on AUTH_WORKERS threads fed by a bounded queue; a full
 * queue answers `busy` at once.  Workers touch only their job's password
 * and hash buffers: the store, the connection and the request id stay on
 * the event loop's thread.  A finished job goes on the done list and a
 * byte is written to a pipe; the loop's read event drains the list and
 * answers, if the connection still exists (conn_find by id).
 *
 * Ownership of a job: the loop thread allocates it and keeps it on its own
 * `pending` list until it is answered or auth_free(); workers only move it
 * from `queued` to `done` under the mutex.
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

/* JOB_PASSWD verifies pw (the old password) and then hashes pw2 (the new
 * one) into hash2; JOB_HASH hashes pw for another module (auth_hash_for). */
enum job_kind { JOB_REGISTER, JOB_LOGIN, JOB_PASSWD, JOB_HASH };

struct job {
	struct job *next;             /* queued / done list (under mu) */
	struct job *pending_next;     /* the loop thread's list of every live job */
	enum job_kind kind;
	uint64_t conn;
	json_t *id;                   /* loop thread only */
	char name[32];                /* as struct store_user's */
	int64_t user;                 /* login: the account, 0 if none (dummy hash) */
	char *pw;                     /* a copy, wiped before free */
	size_t pwlen;
	char hash[KDF_ENCODED_MAX];   /* login: the stored hash; register: the new one */
	bool disabled;                /* login: the account is disabled (told only after the password) */
	bool must_change;             /* login: an admin reset the password (admin.h) */
	bool completes_login;         /* passwd: from a connection a must_change login left waiting */
	char *pw2;                    /* passwd: the new password, wiped before free */
	size_t pw2len;
	char hash2[KDF_ENCODED_MAX];  /* passwd: the new hash */
	int result2;                  /* passwd: kdf_hash's rc for the new one */
	char invite[KDF_DIGEST_HEX + 1];  /* register: the invite code's digest, "" if none */
	json_t *req;                  /* JOB_HASH: the request, for done */
	auth_hashed_fn done;          /* JOB_HASH */
	int result;                   /* worker: kdf_verify's result, or kdf_hash's rc */
	char host[GUARD_ADDR_MAX];    /* the client's address: its share of the queue (guard.h) */
	int64_t round;                /* under mu: the round robin's turn it is hashed in */
	char tried[LOG_ESCAPE_BUF];   /* login: the name as sent, escaped, for the log */
	struct event *delay;          /* a failed login's answer, held login_failure_delay */
	struct auth *owner;           /* for delay's callback */
};

/* A connection whose login found a password to change (users.must_change):
 * not logged in; `passwd` completes the login of this user. */
struct conn_must_change {
	uint64_t conn;
	int64_t user;
	char name[32];
};

/* Which token each logged-in connection holds, for logout. */
struct conn_token {
	uint64_t conn;
	char digest[KDF_DIGEST_HEX + 1];
};

struct auth {
	struct server *srv;
	int ln;                                /* scrypt cost of new hashes */
	char dummy[KDF_ENCODED_MAX];           /* what unknown users are verified against */

	pthread_t threads[AUTH_WORKERS];
	size_t nthreads;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;                             /* under mu */
	struct job *queued, **queued_tail;         /* under mu */
	int64_t round;                         /* under mu: the turn of the last job taken */
	struct job *done, **done_tail;         /* under mu */

	struct job *pending;                   /* loop thread: every job not yet answered */
	size_t npending;
	int pipefd[2];
	struct event *wake;
	struct event *purge;
	struct event *users_timer;             /* AUTH_USERS_CHECK_MS: users_check() */
	int64_t users_version;                 /* server_state STORE_USERS_VERSION_KEY last seen */

	struct conn_token *tokens;
	size_t ntokens, captokens;

	struct conn_must_change *changing;     /* logins waiting for `passwd` */
	size_t nchanging, capchanging;

	struct guard *guard;                   /* registration rate, login back-off (guard.h) */
	struct guard_log_limit log_busy, log_refused;
};

/* --- validation ------------------------------------------------------------ */

enum proto_error auth_check_name(const char *name, size_t len)
{
	size_t plen = strlen(AUTH_GUEST_PREFIX);

	if (name == NULL || len < PROTO_NAME_MIN || len > PROTO_NAME_MAX)
		return PE_BAD_NAME;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-'))
			return PE_BAD_NAME;
	}
	if (len >= plen && strncasecmp(name, AUTH_GUEST_PREFIX, plen) == 0)
		return PE_BAD_NAME;
	return PE_NONE;
}

enum proto_error auth_check_password(const char *name, const char *pw, size_t len)
{
	if (pw == NULL || len < PROTO_PASSWORD_MIN || len > PROTO_PASSWORD_MAX)
		return PE_WEAK_PASSWORD;
	if (name != NULL && strlen(name) == len && strncasecmp(name, pw, len) == 0)
		return PE_WEAK_PASSWORD;
	return PE_NONE;
}

int auth_guest_name(char *out, size_t outlen, int nchars)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t plen = strlen(AUTH_GUEST_PREFIX);
	unsigned char raw[PROTO_NAME_MAX];

	if (nchars < 1 || plen + (size_t)nchars > PROTO_NAME_MAX || plen + (size_t)nchars >= outlen)
		return -1;
	if (RAND_bytes(raw, nchars) != 1)
		return -1;
	memcpy(out, AUTH_GUEST_PREFIX, plen);
	for (int i = 0; i < nchars; i++)
		out[plen + (size_t)i] = alphabet[raw[i] % 36];   /* 256 % 36: a slight bias, harmless */
	out[plen + (size_t)nchars] = '\0';
	return 0;
}

/* --- workers ---------------------------------------------------------------- */

/*
 * Fair hashing (issue 11): round robin between addresses, not first come
 * first served, so that a flood from a few addresses cannot starve
 * everyone else.  Each job gets a turn when it is queued (queue_turn):
 * the turn being served, or one after the last turn its address already
 * holds in the queue.  The lowest turn goes first, the oldest among
 * equals.  So with addresses A and B holding many jobs, a job of C
 * joins the current turn and waits behind at most one job of each.
 * (A rank recomputed against the queue at each take is not enough: the
 * oldest job of A always ranks first, so C waited behind all of A.)  The
 * queue holds at most AUTH_QUEUE_MAX jobs: the scans are a few dozen
 * comparisons against 100 ms of scrypt.
 */
static void queue_turn(struct auth *a, struct job *j)
{
	j->round = a->round;
	for (struct job *q = a->queued; q != NULL; q = q->next)
		if (strcmp(q->host, j->host) == 0 && q->round >= j->round)
			j->round = q->round + 1;
}

static struct job *queue_take_fair(struct auth *a)
{
	struct job **best = NULL;
	for (struct job **p = &a->queued; *p != NULL; p = &(*p)->next)
		if (best == NULL || (*p)->round < (*best)->round)
			best = p;
	struct job *j = *best;
	*best = j->next;
	a->round = j->round;
	/* The tail pointer moves back when the last job was taken. */
	a->queued_tail = &a->queued;
	while (*a->queued_tail != NULL)
		a->queued_tail = &(*a->queued_tail)->next;
	return j;
}

static void *worker_main(void *arg)
{
	struct auth *a = arg;

	for (;;) {
		struct job *j;

		pthread_mutex_lock(&a->mu);
		while (!a->stop && a->queued == NULL)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop) {
			pthread_mutex_unlock(&a->mu);
			return NULL;
		}
		j = queue_take_fair(a);
		pthread_mutex_unlock(&a->mu);

		if (j->kind == JOB_REGISTER || j->kind == JOB_HASH) {
			j->result = kdf_hash(j->pw, j->pwlen, a->ln, j->hash, sizeof j->hash);
		} else {
			j->result = kdf_verify(j->pw, j->pwlen, j->hash);
			if (j->kind == JOB_PASSWD && j->result == 1)
				j->result2 = kdf_hash(j->pw2, j->pw2len, a->ln, j->hash2, sizeof j->hash2);
		}

		pthread_mutex_lock(&a->mu);
		j->next = NULL;
		*a->done_tail = j;
		a->done_tail = &j->next;
		pthread_mutex_unlock(&a->mu);
		/* One byte wakes the loop; a full pipe already means "wake". */
		ssize_t w;
		do
			w = write(a->pipefd[1], "", 1);
		while (w < 0 && errno == EINTR);
	}
}

static void job_free(struct job *j)
{
	if (j->pw != NULL) {
		OPENSSL_cleanse(j->pw, j->pwlen);
		free(j->pw);
	}
	if (j->pw2 != NULL) {
		OPENSSL_cleanse(j->pw2, j->pw2len);
		free(j->pw2);
	}
	OPENSSL_cleanse(j->hash, sizeof j->hash);
	OPENSSL_cleanse(j->hash2, sizeof j->hash2);
	json_decref(j->id);
	json_decref(j->req);
	if (j->delay != NULL)
		event_free(j->delay);
	free(j);
}

static void pending_remove(struct auth *a, struct job *j)
{
	for (struct job **p = &a->pending; *p != NULL; p = &(*p)->pending_next) {
		if (*p == j) {
			*p = j->pending_next;
			a->npending--;
			return;
		}
	}
}

/* --- sessions -------------------------------------------------------------- */

static void token_remember(struct auth *a, uint64_t conn, const char *digest)
{
	size_t i;

	for (i = 0; i < a->ntokens; i++)
		if (a->tokens[i].conn == conn)
			break;
	if (i == a->ntokens) {
		if (a->ntokens == a->captokens) {
			/* Forget connections that are gone before growing. */
			size_t k = 0;
			for (size_t r = 0; r < a->ntokens; r++)
				if (conn_find(a->srv, a->tokens[r].conn) != NULL)
					a->tokens[k++] = a->tokens[r];
			a->ntokens = k;
		}
		a->tokens = xgrow(a->tokens, &a->captokens, a->ntokens + 1, sizeof *a->tokens, 64);
		i = a->ntokens++;
	}
	a->tokens[i].conn = conn;
	memcpy(a->tokens[i].digest, digest, sizeof a->tokens[i].digest);
}

/* Take (and forget) the token digest of a connection; 0 if it had none. */
static int token_take(struct auth *a, uint64_t conn, char *digest)
{
	for (size_t i = 0; i < a->ntokens; i++) {
		if (a->tokens[i].conn == conn) {
			memcpy(digest, a->tokens[i].digest, KDF_DIGEST_HEX + 1);
			a->tokens[i] = a->tokens[--a->ntokens];
			return 1;
		}
	}
	return 0;
}

/* The must_change login waiting on conn, or NULL. */
static struct conn_must_change *changing_find(struct auth *a, uint64_t conn)
{
	for (size_t i = 0; i < a->nchanging; i++)
		if (a->changing[i].conn == conn)
			return &a->changing[i];
	return NULL;
}

static void changing_forget(struct auth *a, uint64_t conn)
{
	struct conn_must_change *m = changing_find(a, conn);
	if (m != NULL)
		*m = a->changing[--a->nchanging];
}

static void changing_set(struct auth *a, uint64_t conn, int64_t user, const char *name)
{
	changing_forget(a, conn);
	if (a->nchanging == a->capchanging) {
		/* Forget connections that are gone before growing. */
		size_t k = 0;
		for (size_t r = 0; r < a->nchanging; r++)
			if (conn_find(a->srv, a->changing[r].conn) != NULL)
				a->changing[k++] = a->changing[r];
		a->nchanging = k;
	}
	a->changing = xgrow(a->changing, &a->capchanging, a->nchanging + 1, sizeof *a->changing, 16);
	struct conn_must_change *m = &a->changing[a->nchanging++];
	m->conn = conn;
	m->user = user;
	snprintf(m->name, sizeof m->name, "%s", name);
}

bool auth_password_change_pending(struct conn *c)
{
	struct server *srv = conn_server(c);
	return srv != NULL && srv->auth != NULL && changing_find(srv->auth, conn_id(c)) != NULL;
}

/* The token digest a connection logged in with, without forgetting it. */
static const char *token_of(struct auth *a, uint64_t conn)
{
	for (size_t i = 0; i < a->ntokens; i++)
		if (a->tokens[i].conn == conn)
			return a->tokens[i].digest;
	return NULL;
}

static int64_t now_unix(void)
{
	return (int64_t)time(NULL);
}

/* A new session for user: token out (KDF_TOKEN_LEN + 1), digest out.
 * Returns a store status; the caller may be inside a transaction. */
static int session_new(struct auth *a, int64_t user, char *token, char *digest)
{
	if (kdf_token_new(token) != 0 || kdf_token_digest(token, KDF_TOKEN_LEN, digest) != 0)
		return STORE_ERROR;
	return store_session_create(a->srv->store, user, digest, now_unix() + AUTH_SESSION_SECONDS);
}

static int add_game_id(const struct store_game *g, void *arg)
{
	json_array_append_new(arg, json_integer(g->id));
	return 0;
}

/* Answer, then log the connection in.  with_games: login and resume list
 * the user's unfinished games (their game_state events follow, sent by
 * the login hooks that conn_set_user runs: after the answer). */
static void login_done(struct auth *a, struct conn *c, json_t *id, int64_t user,
                       const char *name, const char *token, const char *digest, bool with_games)
{
	json_t *reply = json_pack("{s:s, s:s}", "user", name, "token", token);

	if (reply == NULL)
		fatal("json_pack");
	if (with_games) {
		json_t *games = json_array();
		if (games == NULL)
			fatal("json_array");
		if (store_games_live_of_user(a->srv->store, user, add_game_id, games) != STORE_OK)
			log_warnx("auth: listing games of user=%lld: %s", (long long)user,
			          store_error(a->srv->store));
		json_object_set_new(reply, "games", games);
	}
	token_remember(a, conn_id(c), digest);
	changing_forget(a, conn_id(c));
	/* The admin's user list shows each account's last login (schema 8). */
	if (store_user_seen(a->srv->store, user, now_unix(), conn_host(c)) == STORE_ERROR)
		log_warnx("auth: recording the login of user=%lld: %s", (long long)user,
		          store_error(a->srv->store));
	dispatch_ok(c, id, reply);
	conn_set_user(c, user, name);
}

static void reply_storage(struct auth *a, struct conn *c, json_t *id, const char *what)
{
	log_msg(LOGL_ERROR, "auth: %s: %s", what, store_error(a->srv->store));
	dispatch_error(c, id, PE_STORAGE, "the database refused; nothing was changed");
}

/* --- completions (event loop thread) ---------------------------------------- */

static void finish_register(struct auth *a, struct conn *c, struct job *j)
{
	struct store *st = a->srv->store;
	char token[KDF_TOKEN_LEN + 1], digest[KDF_DIGEST_HEX + 1];
	int64_t user = 0;
	int rc;

	if (j->result != 0) {
		log_msg(LOGL_ERROR, "auth: scrypt failed for a registration");
		dispatch_error(c, j->id, PE_INTERNAL, "password hashing failed");
		return;
	}
	/* The account and its first session together, or neither. */
	if (store_begin(st) != STORE_OK) {
		reply_storage(a, c, j->id, "register");
		return;
	}
	rc = store_user_create(st, j->name, j->hash, 0, &user);
	if (rc == STORE_EXISTS) {
		store_rollback(st);
		dispatch_error(c, j->id, PE_USER_EXISTS, "that name is taken");
		return;
	}
	/* The code was checked before hashing; using it now, in the same
	 * transaction, settles a race of two registrations for one code. */
	if (rc == STORE_OK && j->invite[0] != '\0') {
		rc = store_invite_use(st, j->invite, user, now_unix());
		if (rc == STORE_NOT_FOUND) {
			store_rollback(st);
			dispatch_error(c, j->id, PE_BAD_INVITE, "that invite code is unknown, used or expired");
			return;
		}
	}
	if (rc == STORE_OK)
		rc = session_new(a, user, token, digest);
	if (rc != STORE_OK || store_commit(st) != STORE_OK) {
		store_rollback(st);
		reply_storage(a, c, j->id, "register");
		return;
	}
	log_info("conn=%llu register user=%lld name=%s%s", (unsigned long long)j->conn,
	         (long long)user, j->name, j->invite[0] != '\0' ? " invited" : "");
	login_done(a, c, j->id, user, j->name, token, digest, false);
}

/* A failed login is counted by the guard at once, and logged with the
 * name tried and the address on one line (deploy/fail2ban matches it). */
static void login_failed(struct auth *a, struct job *j)
{
	if (j->user != 0 && j->result < 0)
		log_msg(LOGL_ERROR, "auth: stored hash of user=%lld unusable", (long long)j->user);
	guard_login_failed(a->guard, j->host, j->user, mstime_mono());
	log_msg(LOGL_WARN, "conn=%llu login failed addr=%s user=%s", (unsigned long long)j->conn,
	        j->host, j->tried);
}

static void finish_login(struct auth *a, struct conn *c, struct job *j)
{
	char token[KDF_TOKEN_LEN + 1], digest[KDF_DIGEST_HEX + 1];

	if (j->user == 0 || j->result != 1) {
		if (j->delay == NULL)   /* not counted yet (no login_failure_delay) */
			login_failed(a, j);
		dispatch_error(c, j->id, PE_AUTH_FAILED, "wrong user name or password");
		return;
	}
	guard_login_ok(a->guard, j->host, mstime_mono());
	/* Said only to whoever knows the password: it tells them nothing new. */
	if (j->disabled) {
		log_info("conn=%llu login of disabled user=%lld", (unsigned long long)j->conn,
		         (long long)j->user);
		dispatch_error(c, j->id, PE_ACCOUNT_DISABLED, "this account is disabled");
		return;
	}
	/* An admin reset the password: no session until it is changed. */
	if (j->must_change) {
		log_info("conn=%llu login of user=%lld must change the password",
		         (unsigned long long)j->conn, (long long)j->user);
		if (conn_user(c) != 0) {
			char old[KDF_DIGEST_HEX + 1];
			token_take(a, j->conn, old);
			conn_set_user(c, 0, NULL);
		}
		changing_set(a, j->conn, j->user, j->name);
		dispatch_ok(c, j->id, json_pack("{s:s, s:b}", "user", j->name,
		                                "must_change_password", 1));
		return;
	}
	if (session_new(a, j->user, token, digest) != STORE_OK) {
		reply_storage(a, c, j->id, "login");
		return;
	}
	/* The success beside the failures: who logged in from where (audits,
	 * and the order of hashing the fair queue gave, test_club.c). */
	log_info("conn=%llu login ok addr=%s user=%s", (unsigned long long)j->conn, j->host,
	         j->name);
	login_done(a, c, j->id, j->user, j->name, token, digest, true);
}

/* End the other sessions of user: see auth.h. */
int auth_end_sessions(struct server *srv, int64_t user, struct conn *keep, const char *reason)
{
	struct auth *a = srv->auth;
	const char *digest = keep != NULL ? token_of(a, conn_id(keep)) : NULL;
	int n = 0;

	if (store_sessions_end_user(srv->store, user, digest != NULL ? digest : "") != STORE_OK) {
		log_warnx("auth: ending the sessions of user=%lld: %s", (long long)user,
		          store_error(srv->store));
		return -1;
	}
	for (struct conn *o = NULL; (o = conn_of_user(srv, user, o)) != NULL;) {
		if (o == keep)
			continue;
		char dg[KDF_DIGEST_HEX + 1];
		token_take(a, conn_id(o), dg);
		conn_send(o, json_pack("{s:s, s:s}", "event", "session_ended", "reason", reason));
		conn_close(o, reason);
		n++;
	}
	return n;
}

/*
 * passwd: the old password was right and the new one is hashed.  The new
 * hash, the end of every other session and (for a login that waited on
 * it) the new session are one transaction; then the other connections
 * are closed.
 */
static void finish_passwd(struct auth *a, struct conn *c, struct job *j)
{
	struct store *st = a->srv->store;
	char token[KDF_TOKEN_LEN + 1], digest[KDF_DIGEST_HEX + 1];
	int rc;

	if (j->result != 1) {
		login_failed(a, j);
		dispatch_error(c, j->id, PE_AUTH_FAILED, "the old password is wrong");
		return;
	}
	if (j->result2 != 0) {
		log_msg(LOGL_ERROR, "auth: scrypt failed for a password change");
		dispatch_error(c, j->id, PE_INTERNAL, "password hashing failed");
		return;
	}
	/* The connection may have logged out or in as someone else meanwhile. */
	struct conn_must_change *m = changing_find(a, j->conn);
	bool waiting = m != NULL && m->user == j->user;
	if (j->completes_login ? !waiting : conn_user(c) != j->user) {
		dispatch_error(c, j->id, PE_NOT_LOGGED_IN, "log in first");
		return;
	}
	const char *keep = j->completes_login ? NULL : token_of(a, j->conn);
	rc = store_begin(st);
	if (rc == STORE_OK)
		rc = store_user_set_password(st, j->user, j->hash2, 0);
	if (rc == STORE_OK)
		rc = store_sessions_end_user(st, j->user, keep != NULL ? keep : "");
	if (rc == STORE_OK && j->completes_login)
		rc = session_new(a, j->user, token, digest);
	if (rc != STORE_OK || store_commit(st) != STORE_OK) {
		store_rollback(st);
		if (rc == STORE_NOT_FOUND)
			dispatch_error(c, j->id, PE_AUTH_FAILED, "the account is gone");
		else
			reply_storage(a, c, j->id, "passwd");
		return;
	}
	guard_login_ok(a->guard, j->host, mstime_mono());
	int ended = 0;
	for (struct conn *o = NULL; (o = conn_of_user(a->srv, j->user, o)) != NULL;) {
		if (o == c)
			continue;
		char dg[KDF_DIGEST_HEX + 1];
		token_take(a, conn_id(o), dg);
		conn_send(o, json_pack("{s:s, s:s}", "event", "session_ended", "reason",
		                       "the password was changed"));
		conn_close(o, "password changed");
		ended++;
	}
	log_info("conn=%llu passwd user=%lld name=%s connections_ended=%d%s",
	         (unsigned long long)j->conn, (long long)j->user, j->name, ended,
	         j->completes_login ? " (required)" : "");
	if (j->completes_login)
		login_done(a, c, j->id, j->user, j->name, token, digest, true);
	else
		dispatch_ok(c, j->id, json_pack("{s:i}", "ended", ended));
}

static void finish_hash(struct auth *a, struct conn *c, struct job *j)
{
	(void)a;
	if (j->result != 0) {
		log_msg(LOGL_ERROR, "auth: scrypt failed");
		dispatch_error(c, j->id, PE_INTERNAL, "password hashing failed");
		return;
	}
	j->done(c, j->id, j->req, j->hash);
}

/* The held answer of a failed login (login_hold). */
static void delayed_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;
	struct auth *a = j->owner;
	struct conn *c = conn_find(a->srv, j->conn);

	(void)fd;
	(void)what;
	pending_remove(a, j);
	if (c != NULL)
		finish_login(a, c, j);
	job_free(j);
}

/*
 * A failed login is counted now (its back-off starts now) but answered
 * only after login_failure_delay: one connection cannot guess faster
 * than that, and while held the job still counts for its connection
 * (one authentication at a time) and for its address's share.  Returns
 * true when j was held (it stays on the pending list).
 */
static bool login_hold(struct auth *a, struct job *j)
{
	int ms = guard_settings(a->guard)->login_failure_delay_ms;
	if (j->kind != JOB_LOGIN || (j->user != 0 && j->result == 1) || ms <= 0)
		return false;
	j->owner = a;
	j->delay = evtimer_new(a->srv->base, delayed_cb, j);
	if (j->delay == NULL)
		return false;
	login_failed(a, j);
	struct timeval tv = mstime_timeval(ms);
	evtimer_add(j->delay, &tv);
	return true;
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct auth *a = arg;
	char buf[64];
	struct job *list;

	(void)what;
	while (read(fd, buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&a->mu);
	list = a->done;
	a->done = NULL;
	a->done_tail = &a->done;
	pthread_mutex_unlock(&a->mu);

	while (list != NULL) {
		struct job *j = list;
		struct conn *c = conn_find(a->srv, j->conn);
		list = j->next;
		if (c != NULL && login_hold(a, j))
			continue;
		pending_remove(a, j);
		if (c != NULL) {
			switch (j->kind) {
			case JOB_REGISTER: finish_register(a, c, j); break;
			case JOB_LOGIN: finish_login(a, c, j); break;
			case JOB_PASSWD: finish_passwd(a, c, j); break;
			case JOB_HASH: finish_hash(a, c, j); break;
			}
		}
		job_free(j);
	}
}

static void purge_cb(evutil_socket_t fd, short what, void *arg)
{
	struct auth *a = arg;

	(void)fd;
	(void)what;
	if (store_sessions_purge(a->srv->store, now_unix()) != STORE_OK)
		log_warnx("auth: purging expired sessions: %s", store_error(a->srv->store));
}

/* --- submitting ------------------------------------------------------------- */

/* Queue a hash for conn; answers `busy` itself and returns NULL when the
 * queue is full or the connection already waits for one. */
static struct job *job_new(struct auth *a, struct conn *c, json_t *id, enum job_kind kind,
                           const char *pw, size_t pwlen)
{
	uint64_t cid = conn_id(c);
	struct job *j;

	for (j = a->pending; j != NULL; j = j->pending_next) {
		if (j->conn == cid) {
			dispatch_error(c, id, PE_BUSY, "an authentication is already in progress");
			return NULL;
		}
	}
	/* One address gets a bounded share of the queue (hash_queue_per_address),
	 * so a flood from a few addresses leaves room for everyone else. */
	size_t mine = 0;
	for (j = a->pending; j != NULL; j = j->pending_next)
		mine += strcmp(j->host, conn_host(c)) == 0;
	if (mine >= (size_t)guard_settings(a->guard)->hash_share || a->npending >= AUTH_QUEUE_MAX) {
		unsigned more = 0;
		if (guard_log_allow(a->guard, &a->log_busy, mstime_mono(), &more))
			log_warnx("auth: hashing queue busy addr=%s queued=%zu mine=%zu (%u like it "
			          "not logged)", conn_host(c), a->npending, mine, more);
		dispatch_error(c, id, PE_BUSY, "server busy, try again shortly");
		return NULL;
	}
	j = xcalloc(1, sizeof *j);
	snprintf(j->host, sizeof j->host, "%s", conn_host(c));
	j->pw = xmalloc(pwlen);
	memcpy(j->pw, pw, pwlen);
	j->pwlen = pwlen;
	j->kind = kind;
	j->conn = cid;
	j->id = json_incref(id);
	return j;
}

static void job_submit(struct auth *a, struct job *j)
{
	j->pending_next = a->pending;
	a->pending = j;
	a->npending++;
	pthread_mutex_lock(&a->mu);
	j->next = NULL;
	queue_turn(a, j);
	*a->queued_tail = j;
	a->queued_tail = &j->next;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

/* --- handlers ---------------------------------------------------------------- */

/* A `retry_after` error: the error object says in how many seconds. */
static void reply_retry(struct conn *c, json_t *id, int64_t wait_ms, const char *message)
{
	json_t *m = dispatch_error_msg(id, PE_RETRY_AFTER, message);
	json_object_set_new(json_object_get(m, "error"), "retry_after",
	                    json_integer((json_int_t)((wait_ms + 999) / 1000)));
	conn_send(c, m);
}

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
	int64_t existing;
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
			rc = store_invite_valid(a->srv->store, idigest, now_unix());
		if (rc == STORE_ERROR) {
			reply_storage(a, c, id, "register");
			return;
		}
		if (rc != STORE_OK) {
			dispatch_error(c, id, PE_BAD_INVITE, "that invite code is unknown, used or expired");
			return;
		}
	}
	if (auth_check_name(name, nlen) != PE_NONE) {
		dispatch_error(c, id, PE_BAD_NAME,
		               "names are %d to %d letters, digits, '_' or '-', not starting with "
		               "\"%s\"", PROTO_NAME_MIN, PROTO_NAME_MAX, AUTH_GUEST_PREFIX);
		return;
	}
	if (auth_check_password(name, pw, plen) != PE_NONE) {
		dispatch_error(c, id, PE_WEAK_PASSWORD,
		               "passwords are %d to %d bytes and not the user name",
		               PROTO_PASSWORD_MIN, PROTO_PASSWORD_MAX);
		return;
	}
	/* Fail fast on a taken name (the insert checks again after hashing). */
	rc = store_user_get(a->srv->store, name, &existing, NULL, 0);
	if (rc == STORE_OK) {
		dispatch_error(c, id, PE_USER_EXISTS, "that name is taken");
		return;
	}
	if (rc != STORE_NOT_FOUND) {
		reply_storage(a, c, id, "register");
		return;
	}
	/* register_per_hour: an attempt that reaches the hashing counts. */
	int64_t wait = guard_register(a->guard, conn_host(c), mstime_mono());
	if (wait > 0) {
		log_info("conn=%llu register refused addr=%s retry_after_ms=%lld",
		         (unsigned long long)conn_id(c), conn_host(c), (long long)wait);
		reply_retry(c, id, wait, "too many registrations from your address; try again later");
		return;
	}
	if ((j = job_new(a, c, id, JOB_REGISTER, pw, plen)) == NULL)
		return;
	memcpy(j->name, name, nlen);
	j->name[nlen] = '\0';
	memcpy(j->invite, idigest, sizeof j->invite);
	job_submit(a, j);
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
		reply_storage(a, c, id, "login");
		return;
	}
	/* Inside a back-off window: refused at once, no hash spent (guard.h). */
	int64_t wait = guard_login_check(a->guard, conn_host(c), rc == STORE_OK ? u.id : 0,
	                                 mstime_mono());
	if (wait > 0) {
		char esc[LOG_ESCAPE_BUF];
		unsigned more = 0;
		if (guard_log_allow(a->guard, &a->log_refused, mstime_mono(), &more))
			log_msg(LOGL_WARN, "conn=%llu login refused addr=%s user=%s retry_after_ms=%lld "
			        "(%u like it not logged)", (unsigned long long)conn_id(c), conn_host(c),
			        log_escape(name, nlen, esc, sizeof esc), (long long)wait, more);
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		reply_retry(c, id, wait, "too many failed logins; try again later");
		return;
	}
	if ((j = job_new(a, c, id, JOB_LOGIN, pw, plen)) == NULL)
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
		memcpy(j->hash, a->dummy, sizeof j->hash);
	}
	OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
	job_submit(a, j);
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
	/* guests_per_address: live guests (logged in now) from this address. */
	int cap = guard_settings(a->guard)->guests_per_address;
	if (cap > 0) {
		size_t plen = strlen(AUTH_GUEST_PREFIX);
		int live = 0;
		for (struct conn *o = NULL; (o = conn_of_user(a->srv, 0, o)) != NULL;)
			live += strcmp(conn_host(o), conn_host(c)) == 0 &&
			        strncmp(conn_user_name(o), AUTH_GUEST_PREFIX, plen) == 0;
		if (live >= cap) {
			log_info("conn=%llu guest refused addr=%s live=%d", (unsigned long long)conn_id(c),
			         conn_host(c), live);
			dispatch_error(c, id, PE_RATE_LIMITED,
			               "too many guests from your address (%d); register an account", cap);
			return;
		}
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
			rc = session_new(a, user, token, digest);
		if (rc == STORE_OK)
			rc = store_commit(st) == STORE_OK ? STORE_OK : STORE_ERROR;
		else
			store_rollback(st);
	}
	if (rc != STORE_OK) {
		reply_storage(a, c, id, "guest");
		return;
	}
	log_info("conn=%llu guest user=%lld name=%s", (unsigned long long)conn_id(c),
	         (long long)user, name);
	login_done(a, c, id, user, name, token, digest, false);
}

static void cmd_resume(struct conn *c, json_t *id, json_t *req)
{
	struct auth *a = conn_server(c)->auth;
	struct store *st = a->srv->store;
	size_t tlen;
	const char *token = str_field(req, "token", &tlen);
	char digest[KDF_DIGEST_HEX + 1], name[PROTO_NAME_MAX + 8];
	int64_t user = 0, now = now_unix();
	int rc;

	if (!kdf_token_valid(token, tlen)) {
		dispatch_error(c, id, PE_AUTH_FAILED, "unknown or expired token");
		return;
	}
	if (kdf_token_digest(token, tlen, digest) != 0) {
		dispatch_error(c, id, PE_INTERNAL, "digest failed");
		return;
	}
	rc = store_session_lookup(st, digest, now, &user);
	if (rc == STORE_OK)
		rc = store_user_name(st, user, name, sizeof name);
	if (rc == STORE_OK && auth_user_role(a->srv, user) == AUTH_ROLE_NONE) {
		dispatch_error(c, id, PE_ACCOUNT_DISABLED, "this account is disabled");
		return;
	}
	if (rc == STORE_OK)
		rc = store_session_touch(st, digest, now, now + AUTH_SESSION_SECONDS);
	if (rc == STORE_NOT_FOUND) {
		dispatch_error(c, id, PE_AUTH_FAILED, "unknown or expired token");
		return;
	}
	if (rc != STORE_OK) {
		reply_storage(a, c, id, "resume");
		return;
	}
	login_done(a, c, id, user, name, token, digest, true);
}

static void cmd_logout(struct conn *c, json_t *id, json_t *req)
{
	struct auth *a = conn_server(c)->auth;
	char digest[KDF_DIGEST_HEX + 1];

	(void)req;
	changing_forget(a, conn_id(c));
	if (token_take(a, conn_id(c), digest) &&
	    store_session_delete(a->srv->store, digest) == STORE_ERROR)
		log_warnx("auth: revoking a session: %s", store_error(a->srv->store));
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
	struct conn_must_change *m = changing_find(a, conn_id(c));
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
	if (auth_check_password(name, neu, nlen) != PE_NONE ||
	    (olen == nlen && memcmp(old, neu, nlen) == 0)) {
		dispatch_error(c, id, PE_WEAK_PASSWORD,
		               "passwords are %d to %d bytes, not the user name and not the old one",
		               PROTO_PASSWORD_MIN, PROTO_PASSWORD_MAX);
		return;
	}
	int rc = store_user_find(a->srv->store, name, &u);
	if (rc == STORE_ERROR) {
		reply_storage(a, c, id, "passwd");
		return;
	}
	if (rc != STORE_OK || u.id != user || u.guest || u.pwhash[0] == '\0' ||
	    strlen(u.pwhash) >= sizeof j->hash) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "a guest has no password to change");
		return;
	}
	if (u.disabled) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		dispatch_error(c, id, PE_ACCOUNT_DISABLED, "this account is disabled");
		return;
	}
	int64_t wait = guard_login_check(a->guard, conn_host(c), u.id, mstime_mono());
	if (wait > 0) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		reply_retry(c, id, wait, "too many failed logins; try again later");
		return;
	}
	if ((j = job_new(a, c, id, JOB_PASSWD, old, olen)) == NULL) {
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
	job_submit(a, j);
}

bool auth_hash_for(struct conn *c, json_t *id, json_t *req, const char *pw, size_t pwlen,
                   auth_hashed_fn done)
{
	struct auth *a = conn_server(c)->auth;
	struct job *j = job_new(a, c, id, JOB_HASH, pw, pwlen);
	if (j == NULL)
		return false;
	j->req = json_incref(req);
	j->done = done;
	job_submit(a, j);
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
static const struct field f_register[] = {
	{ "user", F_STRING, 1, PROTO_LINE_MAX },
	{ "password", F_STRING, 1, PROTO_PASSWORD_MAX },
	{ "invite", F_STRING, 0, PROTO_TOKEN_LEN * 2 },
	{ NULL, 0, 0, 0 },
};
static const struct field f_passwd[] = {
	{ "old", F_STRING, 1, PROTO_PASSWORD_MAX },
	{ "new", F_STRING, 1, PROTO_PASSWORD_MAX },
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
	{ "login", CMD_NO_LOGIN, f_credentials, cmd_login },
	{ "guest", CMD_NO_LOGIN, f_none, cmd_guest },
	{ "resume", CMD_NO_LOGIN, f_resume, cmd_resume },
	{ "logout", 0, f_none, cmd_logout },
	/* CMD_NO_LOGIN: a must_change login is not logged in (auth.h). */
	{ "passwd", CMD_NO_LOGIN, f_passwd, cmd_passwd },
	{ NULL, 0, NULL, NULL },
};

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

/*
 * `kriegd user ...` (useradm.c) changes accounts from another process
 * while the daemon runs.  Rather than re-reading every logged-in account
 * every second, the daemon reads one row: the users table's trigger
 * (store.c, schema 6) bumps server_state "users_version" on every change
 * of a role, a disabled flag or a password.  Only when it moved are the
 * logged-in accounts looked at: a disabled one's connections are closed,
 * and the games module drops umpire chairs no longer held by right.
 */
static void users_apply(struct auth *a);

static void users_check(evutil_socket_t fd, short what, void *arg)
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
	users_apply(a);
}

void auth_reconfigure(struct server *srv)
{
	if (srv->auth != NULL && srv->cfg != NULL)
		guard_reconfigure(srv->auth->guard, &srv->cfg->guard);
}

/* An admin's change over the protocol (admin.c) applies at once; the
 * version it bumped is then seen as known by the next users_check. */
void auth_users_changed(struct server *srv)
{
	struct auth *a = srv->auth;
	int64_t v = 0;
	if (store_state_get(srv->store, STORE_USERS_VERSION_KEY, &v) == STORE_OK)
		a->users_version = v;
	users_apply(a);
}

static void users_apply(struct auth *a)
{
	struct server *srv = a->srv;
	for (struct conn *c = NULL; (c = conn_of_user(srv, 0, c)) != NULL;) {
		if (auth_user_role(srv, conn_user(c)) != AUTH_ROLE_NONE)
			continue;
		log_info("conn=%llu user=%lld disabled: closing", (unsigned long long)conn_id(c),
		         (long long)conn_user(c));
		conn_send(c, json_pack("{s:s}", "event", "account_disabled"));
		conn_close(c, "account disabled");
	}
	games_users_changed(srv);
}

/* --- life ----------------------------------------------------------------- */

struct auth *auth_new(struct server *srv)
{
	struct auth *a = xcalloc(1, sizeof *a);
	unsigned char junk[24];
	struct timeval tv = { AUTH_PURGE_INTERVAL_S, 0 };

	a->srv = srv;
	a->ln = KDF_LN_DEFAULT;
	a->pipefd[0] = a->pipefd[1] = -1;
	a->queued_tail = &a->queued;
	a->done_tail = &a->done;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	struct guard_settings gs;
	guard_settings_default(&gs);
	a->guard = guard_new(srv->cfg != NULL ? &srv->cfg->guard : &gs);

	/* Unknown users are verified against a hash of nothing anyone knows,
	 * at the same cost as a real one. */
	if (RAND_bytes(junk, sizeof junk) != 1 ||
	    kdf_hash((const char *)junk, sizeof junk, a->ln, a->dummy, sizeof a->dummy) != 0) {
		log_msg(LOGL_ERROR, "auth: scrypt is unavailable (OpenSSL EVP_KDF SCRYPT)");
		goto fail;
	}
	if (pipe(a->pipefd) != 0) {
		log_warn("auth: pipe");
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		if (fcntl(a->pipefd[i], F_SETFL, O_NONBLOCK) != 0 ||
		    fcntl(a->pipefd[i], F_SETFD, FD_CLOEXEC) != 0) {
			log_warn("auth: fcntl");
			goto fail;
		}
	}
	a->wake = event_new(srv->base, a->pipefd[0], EV_READ | EV_PERSIST, wake_cb, a);
	a->purge = event_new(srv->base, -1, EV_PERSIST, purge_cb, a);
	a->users_timer = event_new(srv->base, -1, EV_PERSIST, users_check, a);
	struct timeval utv = { AUTH_USERS_CHECK_MS / 1000, (AUTH_USERS_CHECK_MS % 1000) * 1000 };
	if (store_state_get(srv->store, STORE_USERS_VERSION_KEY, &a->users_version) == STORE_ERROR)
		log_warnx("auth: reading the users version: %s", store_error(srv->store));
	if (a->wake == NULL || a->purge == NULL || a->users_timer == NULL ||
	    event_add(a->wake, NULL) != 0 || event_add(a->purge, &tv) != 0 ||
	    event_add(a->users_timer, &utv) != 0) {
		log_msg(LOGL_ERROR, "auth: cannot create events");
		goto fail;
	}
	/* Workers block every signal: signals are the loop thread's. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (size_t i = 0; i < AUTH_WORKERS; i++) {
		int err = pthread_create(&a->threads[i], NULL, worker_main, a);
		if (err != 0) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			log_msg(LOGL_ERROR, "auth: pthread_create: %s", strerror(err));
			goto fail;
		}
		a->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	purge_cb(-1, 0, a);
	return a;
fail:
	auth_free(a);
	return NULL;
}

void auth_free(struct auth *a)
{
	if (a == NULL)
		return;
	guard_free(a->guard);
	a->guard = NULL;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	for (size_t i = 0; i < a->nthreads; i++)
		pthread_join(a->threads[i], NULL);
	/* Every job, wherever it was queued, is on the pending list. */
	while (a->pending != NULL) {
		struct job *j = a->pending;
		a->pending = j->pending_next;
		job_free(j);
	}
	if (a->wake != NULL)
		event_free(a->wake);
	if (a->purge != NULL)
		event_free(a->purge);
	if (a->users_timer != NULL)
		event_free(a->users_timer);
	for (int i = 0; i < 2; i++)
		if (a->pipefd[i] >= 0)
			close(a->pipefd[i]);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	OPENSSL_cleanse(a->dummy, sizeof a->dummy);
	free(a->tokens);
	free(a->changing);
	free(a);
}
