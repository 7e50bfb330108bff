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
#include <ctype.h>
#include <pthread.h>
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
#include "wake.h"
#include "xmalloc.h"

/* --- validation ------------------------------------------------------------ */

enum proto_error auth_check_name(const char *name, size_t len)
{
	size_t plen = strlen(AUTH_GUEST_PREFIX);

	/* Not a leading '-': such a name reads as an option to `kriegd user`
	 * (`user add --must-change --password-stdin`, the name forgotten,
	 * made an account named "--must-change"). */
	if (name == NULL || len < PROTO_NAME_MIN || len > PROTO_NAME_MAX || name[0] == '-')
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

bool auth_name_reserved(const char *name)
{
	static const char *const reserved[] = {
		"admin", "administrator", "black", "console", "everyone", "guest", "krieg", "kriegd",
		"mod", "moderator", "operator", "owner", "referee", "root", "server", "spectator",
		"spectators", "staff", "system", "umpire", "white", "you",
	};
	char mine[PROTO_NAME_MAX + 1], theirs[PROTO_NAME_MAX + 1];
	size_t stem = proto_name_skeleton(name, mine, sizeof mine);

	/* a registered account that reads as a guest ("guest_k3x9" beside
	 * the guests' "guest-k3x9") is refused as a reserved word is */
	if (strncmp(mine, "guest", 5) == 0)
		return true;
	/* The word may end anywhere from the stem on: "umpire2", "admin1_",
	 * "Adminl" (the stem), "Umpir3" (a digit read as a letter: the whole) */
	size_t whole = strlen(mine);
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
		proto_name_skeleton(reserved[i], theirs, sizeof theirs);
		size_t k = strlen(theirs);
		if (k >= stem && k <= whole && strncmp(mine, theirs, k) == 0)
			return true;
	}
	return false;
}

void auth_taken_words(const char *name, const char *taken, char *out, size_t len)
{
	if (strcasecmp(taken, name) == 0)
		snprintf(out, len, "that name is taken");
	else
		snprintf(out, len, "that name looks like %s, an account that exists", taken);
}

void auth_reply_taken(struct conn *c, json_t *id, const char *name, const char *taken)
{
	char words[PROTO_NAME_MAX + 64];

	auth_taken_words(name, taken, words, sizeof words);
	dispatch_error(c, id, PE_USER_EXISTS, "%s", words);
}

bool auth_is_guest_name(const char *name)
{
	return strncmp(name, AUTH_GUEST_PREFIX, strlen(AUTH_GUEST_PREFIX)) == 0;
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

/* The queued job at *p taken off the queue (under mu). */
static void queue_unlink(struct auth *a, struct job **p)
{
	*p = (*p)->next;
	if (*p == NULL)   /* the last was taken: the tail is the link before it */
		a->queued_tail = p;
}

static struct job *queue_take_fair(struct auth *a)
{
	struct job **best = NULL;
	for (struct job **p = &a->queued; *p != NULL; p = &(*p)->next)
		if (best == NULL || (*p)->round < (*best)->round)
			best = p;
	struct job *j = *best;
	queue_unlink(a, best);
	a->round = j->round;
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
		wake_poke(a->pipefd[1]);
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
	a->tokens[i].pwmark = 0;
	a->tokens[i].audit_mark = 0;
}

/* Take (and forget) the token digest of a connection; 0 if it had none. */
int auth_token_take(struct auth *a, uint64_t conn, char *digest)
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

struct conn_token *auth_token_find(struct auth *a, uint64_t conn)
{
	for (size_t i = 0; i < a->ntokens; i++)
		if (a->tokens[i].conn == conn)
			return &a->tokens[i];
	return NULL;
}

/* FNV-1a of the encoded hash: its salt is new at each change, so the
 * mark is too; never 0, which says "not known". */
uint64_t auth_pw_mark_of(const char *pwhash)
{
	uint64_t h = 14695981039346656037ULL;
	for (const unsigned char *p = (const unsigned char *)pwhash; *p != '\0'; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h | 1;
}

uint64_t auth_pw_mark(struct auth *a, const char *name)
{
	char hash[KDF_ENCODED_MAX];
	int64_t id;
	uint64_t mark = 0;

	if (auth_is_guest_name(name))
		return 0;
	if (store_user_get(a->srv->store, name, &id, hash, sizeof hash) == STORE_OK &&
	    hash[0] != '\0')
		mark = auth_pw_mark_of(hash);
	OPENSSL_cleanse(hash, sizeof hash);
	return mark;
}

int auth_close_waiting(struct server *srv, int64_t user, struct conn *but, json_t *msg,
                       const char *why)
{
	struct auth *a = srv->auth;
	int n = 0;

	for (size_t i = 0; i < a->nchanging;) {
		struct conn_must_change *m = &a->changing[i];
		struct conn *o = m->user == user ? conn_find(srv, m->conn) : NULL;
		if (o == NULL || o == but) {
			i++;
			continue;
		}
		*m = a->changing[--a->nchanging];   /* forgotten: its passwd would find nothing */
		conn_send(o, json_incref(msg));
		conn_close(o, why);
		n++;
	}
	return n;
}

int auth_count_waiting(struct server *srv, int64_t user)
{
	struct auth *a = srv->auth;
	int n = 0;

	for (size_t i = 0; i < a->nchanging; i++)
		n += a->changing[i].user == user && conn_find(srv, a->changing[i].conn) != NULL;
	return n;
}

/* The must_change login waiting on conn, or NULL. */
struct conn_must_change *auth_changing_find(struct auth *a, uint64_t conn)
{
	for (size_t i = 0; i < a->nchanging; i++)
		if (a->changing[i].conn == conn)
			return &a->changing[i];
	return NULL;
}

void auth_changing_forget(struct auth *a, uint64_t conn)
{
	struct conn_must_change *m = auth_changing_find(a, conn);
	if (m != NULL)
		*m = a->changing[--a->nchanging];
}

static void changing_set(struct auth *a, uint64_t conn, int64_t user, const char *name)
{
	auth_changing_forget(a, conn);
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
	m->pwmark = auth_pw_mark(a, name);
}

bool auth_password_change_pending(struct conn *c)
{
	struct server *srv = conn_server(c);
	return srv != NULL && srv->auth != NULL && auth_changing_find(srv->auth, conn_id(c)) != NULL;
}

/* The token digest a connection logged in with, without forgetting it. */
static const char *token_of(struct auth *a, uint64_t conn)
{
	struct conn_token *t = auth_token_find(a, conn);
	return t != NULL ? t->digest : NULL;
}

/* Wall time, rightly: session and invite expiries are stored and must
 * outlive a restart; a clock step moves them by the step, against
 * lifetimes of days. */
int64_t auth_now_unix(void)
{
	return (int64_t)time(NULL);
}

/* A new session for user: token out (KDF_TOKEN_LEN + 1), digest out.
 * Returns a store status; the caller may be inside a transaction. */
int auth_session_new(struct auth *a, int64_t user, char *token, char *digest)
{
	if (kdf_token_new(token) != 0 || kdf_token_digest(token, KDF_TOKEN_LEN, digest) != 0)
		return STORE_ERROR;
	return store_session_create(a->srv->store, user, digest, auth_now_unix() + AUTH_SESSION_SECONDS);
}

/*
 * An account keeps AUTH_SESSIONS_MAX sessions at most.  Each login made
 * one that lived 30 days, every token valid: 2,000 logins to one account
 * from one address left 2,001 rows (probe).  Past the cap, a login ends
 * the account's least recently used sessions (the earliest issued or last
 * resumed), first those no connection is logged in with: a player's
 * phone, laptop and club computer stay in, and what ends is a token
 * nobody has used for longest.  Only when every one is in use does a
 * connected one end; its connections hear session_ended and are closed,
 * as when a password changes.  Sessions held only by `conn` (the one
 * logging in, whose token its new one replaces) count as unused.
 *
 * Only a login calls this: `register` and `guest` make an account's first
 * session, and a `passwd` that completes a login ends every other one (a
 * guest has one session all its life: `resume` keeps its token).  A
 * failure is logged, and the login stands: the next login trims again.
 */
#define SESSIONS_ENDED_REASON "too many sessions: a newer login of the account ended this one"

struct session_row {
	char digest[KDF_DIGEST_HEX + 1];
	bool held;                    /* a connection (not the one logging in) is logged in with it */
};

struct session_rows {
	struct session_row *v;
	size_t n, cap;
	const char *fresh;            /* the new session's digest: not listed */
};

static int session_listed(const char *token_hash, void *arg)
{
	struct session_rows *sr = arg;
	if (strcmp(token_hash, sr->fresh) == 0)
		return 0;
	sr->v = xgrow(sr->v, &sr->cap, sr->n + 1, sizeof *sr->v, 64);
	snprintf(sr->v[sr->n].digest, sizeof sr->v[sr->n].digest, "%s", token_hash);
	sr->v[sr->n++].held = false;
	return 0;
}

/* End session `digest`: see auth_priv.h. */
int auth_session_end(struct auth *a, const char *digest, uint64_t keep, const char *reason,
                     const char *why)
{
	int n = 0;

	if (store_session_delete(a->srv->store, digest) == STORE_ERROR) {
		log_warnx("auth: ending a session: %s", store_error(a->srv->store));
		return -1;
	}
	for (size_t i = 0; i < a->ntokens;) {
		struct conn *c = conn_find(a->srv, a->tokens[i].conn);
		if (c == NULL || a->tokens[i].conn == keep || strcmp(a->tokens[i].digest, digest) != 0) {
			i++;
			continue;
		}
		char dg[KDF_DIGEST_HEX + 1];
		auth_token_take(a, conn_id(c), dg);   /* tokens[i] is another now */
		conn_send(c, json_pack("{s:s, s:s}", "event", "session_ended", "reason", reason));
		conn_close(c, why);
		n++;
	}
	return n;
}

/* End session row r, but not for `login`, the connection logging in (its
 * token is replaced by the new one: ending it closed the connection and
 * left the login unanswered, own-changes probe). */
static void session_end(struct auth *a, const struct session_row *r, uint64_t login)
{
	(void)auth_session_end(a, r->digest, login, SESSIONS_ENDED_REASON,
	                       "session ended: too many sessions");
}

static void sessions_cap(struct auth *a, int64_t user, const char *fresh, uint64_t conn)
{
	struct session_rows sr = { .fresh = fresh };
	if (store_sessions_of_user(a->srv->store, user, auth_now_unix(), session_listed, &sr) != STORE_OK) {
		log_warnx("auth: listing the sessions of user=%lld: %s", (long long)user,
		          store_error(a->srv->store));
		free(sr.v);
		return;
	}
	if (sr.n + 1 <= AUTH_SESSIONS_MAX) {
		free(sr.v);
		return;
	}
	size_t excess = sr.n + 1 - AUTH_SESSIONS_MAX, idle = 0, held = 0;
	for (size_t i = 0; i < a->ntokens; i++) {
		const struct conn_token *t = &a->tokens[i];
		struct conn *c = t->conn != conn ? conn_find(a->srv, t->conn) : NULL;
		if (c == NULL || conn_user(c) != user)
			continue;
		for (size_t k = 0; k < sr.n; k++)
			if (strcmp(sr.v[k].digest, t->digest) == 0)
				sr.v[k].held = true;
	}
	/* The unused ones, least recently used first; then, if need be, the used ones. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < sr.n && idle + held < excess; k++) {
			if (sr.v[k].held != (pass == 1))
				continue;
			session_end(a, &sr.v[k], conn);
			if (pass == 0)
				idle++;
			else
				held++;
		}
	log_info("user=%lld sessions over %d: %zu ended, %zu of them in use", (long long)user,
	         AUTH_SESSIONS_MAX, idle + held, held);
	free(sr.v);
}

static int add_game_id(const struct store_game *g, void *arg)
{
	json_array_append_new(arg, json_integer(g->id));
	return 0;
}

int64_t auth_audit_mark(struct auth *a)
{
	int64_t mark = 0;
	if (store_audit_disables(a->srv->store, &mark, NULL, NULL) != STORE_OK)
		mark = 0;   /* not known: any disable since the last look closes it */
	return mark;
}

/* Answer, then log the connection in.  with_games: login and resume list
 * the user's unfinished games (their game_state events follow, sent by
 * the login hooks that conn_set_user runs: after the answer). */
void auth_login_done(struct auth *a, struct conn *c, json_t *id, int64_t user,
                       const char *name, const char *token, const char *digest, bool with_games,
                       int64_t audit_mark)
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
	/* The password it logged in under: one set later offline ends it (users
	 * check); and the audit as it stood before the flag was checked: a
	 * disable written after it is one this login was there for. */
	struct conn_token *t = auth_token_find(a, conn_id(c));
	t->pwmark = auth_pw_mark(a, name);
	t->audit_mark = audit_mark;
	auth_changing_forget(a, conn_id(c));
	/* The admin's user list shows each account's last login (schema 8). */
	if (store_user_seen(a->srv->store, user, auth_now_unix(), conn_host(c)) == STORE_ERROR)
		log_warnx("auth: recording the login of user=%lld: %s", (long long)user,
		          store_error(a->srv->store));
	dispatch_ok(c, id, reply);
	/* The hooks send the user's live games, each replayed from the store. */
	uint64_t mark = dispatch_rows_mark(a->srv);
	conn_set_user(c, user, name);
	dispatch_charge_rows(c, mark);
}

void auth_reply_storage(struct auth *a, struct conn *c, json_t *id, const char *what)
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
		auth_reply_storage(a, c, j->id, "register");
		return;
	}
	rc = store_user_create(st, j->name, j->hash, 0, &user);
	if (rc == STORE_EXISTS) {
		store_rollback(st);
		dispatch_error(c, j->id, PE_USER_EXISTS, "that name, or one that reads the same, is taken");
		return;
	}
	/* The code was checked before hashing; using it now, in the same
	 * transaction, settles a race of two registrations for one code. */
	if (rc == STORE_OK && j->invite[0] != '\0') {
		rc = store_invite_use(st, j->invite, user, auth_now_unix());
		if (rc == STORE_NOT_FOUND) {
			store_rollback(st);
			dispatch_error(c, j->id, PE_BAD_INVITE, "that invite code is unknown, used or expired");
			return;
		}
	}
	if (rc == STORE_OK)
		rc = auth_session_new(a, user, token, digest);
	if (rc != STORE_OK || store_commit(st) != STORE_OK) {
		store_rollback(st);
		auth_reply_storage(a, c, j->id, "register");
		return;
	}
	log_info("conn=%llu register user=%lld name=%s%s", (unsigned long long)j->conn,
	         (long long)user, j->name, j->invite[0] != '\0' ? " invited" : "");
	auth_login_done(a, c, j->id, user, j->name, token, digest, false, auth_audit_mark(a));
}

/* A failed login is counted by the guard at once, and logged with the
 * name tried and the address on one line (deploy/fail2ban matches it). */
void auth_refuse_disabled(struct conn *c, json_t *id, const char *what, const char *name)
{
	log_always(LOGL_INFO, "conn=%llu %s of a disabled account addr=%s user=\"%s\"",
	           (unsigned long long)conn_id(c), what, conn_host(c), name);
	dispatch_error(c, id, PE_ACCOUNT_DISABLED, "this account is disabled");
}

static void login_failed(struct auth *a, struct job *j)
{
	if (j->user != 0 && j->result < 0)
		log_msg(LOGL_ERROR, "auth: stored hash of user=%lld unusable", (long long)j->user);
	guard_login_failed(a->guard, j->host, j->name, j->user != 0, mstime_mono());
	log_always(LOGL_WARN, "conn=%llu login failed addr=%s user=\"%s\"", (unsigned long long)j->conn,
	        j->addr, j->tried);
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
	/* The row as it is now, not as it was when the hashing was queued:
	 * an account disabled, or a password set, meanwhile (an admin's, the
	 * command line's, the account's own passwd on another connection)
	 * would otherwise let this login through after the sweep that closed
	 * the account's connections had run (probe: a login queued behind
	 * others, then user_disable, then the login answered ok). */
	int64_t mark = auth_audit_mark(a);
	struct store_user u;
	int rc = store_user_find(a->srv->store, j->name, &u);
	bool same = rc == STORE_OK && strcmp(u.pwhash, j->hash) == 0;
	OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
	if (rc == STORE_ERROR) {
		auth_reply_storage(a, c, j->id, "login");
		return;
	}
	if (!same) {
		log_info("conn=%llu login of user=%lld checked against a password changed since",
		         (unsigned long long)j->conn, (long long)j->user);
		dispatch_error(c, j->id, PE_AUTH_FAILED, "wrong user name or password");
		return;
	}
	j->disabled = u.disabled != 0;
	j->must_change = u.must_change != 0;
	guard_login_ok(a->guard, j->host, j->name, mstime_mono());
	/* Said only to whoever knows the password: it tells them nothing new. */
	if (j->disabled) {
		auth_refuse_disabled(c, j->id, "login", u.name);
		return;
	}
	/* An admin reset the password: no session until it is changed. */
	if (j->must_change) {
		log_info("conn=%llu login of user=%lld must change the password",
		         (unsigned long long)j->conn, (long long)j->user);
		if (conn_user(c) != 0) {
			char old[KDF_DIGEST_HEX + 1];
			auth_token_take(a, j->conn, old);
			conn_set_user(c, 0, NULL);
		}
		changing_set(a, j->conn, j->user, j->name);
		dispatch_ok(c, j->id, json_pack("{s:s, s:b}", "user", j->name,
		                                "must_change_password", 1));
		return;
	}
	if (auth_session_new(a, j->user, token, digest) != STORE_OK) {
		auth_reply_storage(a, c, j->id, "login");
		return;
	}
	sessions_cap(a, j->user, digest, j->conn);
	/* The success beside the failures: who logged in from where (audits,
	 * and the order of hashing the fair queue gave, test_club.c). */
	log_info("conn=%llu login ok addr=%s user=%s", (unsigned long long)j->conn, j->addr,
	         j->name);
	auth_login_done(a, c, j->id, j->user, j->name, token, digest, true, mark);
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
		auth_token_take(a, conn_id(o), dg);
		conn_send(o, json_pack("{s:s, s:s}", "event", "session_ended", "reason", reason));
		conn_close(o, reason);
		n++;
	}
	json_t *msg = json_pack("{s:s, s:s}", "event", "session_ended", "reason", reason);
	n += auth_close_waiting(srv, user, keep, msg, reason);
	json_decref(msg);
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
	struct conn_must_change *m = auth_changing_find(a, j->conn);
	bool waiting = m != NULL && m->user == j->user;
	if (j->completes_login ? !waiting : conn_user(c) != j->user) {
		dispatch_error(c, j->id, PE_NOT_LOGGED_IN, "log in first");
		return;
	}
	const char *keep = j->completes_login ? NULL : token_of(a, j->conn);
	int64_t mark = auth_audit_mark(a);   /* before the flag's check, as a login's */
	/* The old password was checked against the hash the row held when
	 * the job was queued; set since (the command line's `user passwd`, an
	 * admin's reset), the change is refused: it would undo theirs and keep
	 * the session they meant to end (probe: a wire passwd in flight won
	 * over `kriegd user passwd`, which had said it was done). */
	struct store_user u;
	rc = store_begin(st);
	if (rc == STORE_OK && (rc = store_user_find(st, j->name, &u)) == STORE_OK &&
	    (u.id != j->user || strcmp(u.pwhash, j->hash) != 0)) {
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		store_rollback(st);
		log_info("conn=%llu passwd of user=%lld checked against a password changed since",
		         (unsigned long long)j->conn, (long long)j->user);
		dispatch_error(c, j->id, PE_AUTH_FAILED, "the password was changed meanwhile");
		return;
	}
	OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
	/* A login it completes is one: disabled meanwhile (the command line's
	 * `user disable`, not yet looked at), refused, as a login is (the
	 * review: completed, then kept by an enable before the look). */
	if (rc == STORE_OK && j->completes_login && u.disabled) {
		store_rollback(st);
		log_info("conn=%llu passwd of user=%lld completing a login: disabled meanwhile",
		         (unsigned long long)j->conn, (long long)j->user);
		dispatch_error(c, j->id, PE_ACCOUNT_DISABLED, "this account is disabled");
		return;
	}
	if (rc == STORE_OK)
		rc = store_user_set_password(st, j->user, j->hash2, 0);
	if (rc == STORE_OK)
		rc = store_sessions_end_user(st, j->user, keep != NULL ? keep : "");
	if (rc == STORE_OK && j->completes_login)
		rc = auth_session_new(a, j->user, token, digest);
	if (rc != STORE_OK || store_commit(st) != STORE_OK) {
		store_rollback(st);
		if (rc == STORE_NOT_FOUND)
			dispatch_error(c, j->id, PE_AUTH_FAILED, "the account is gone");
		else
			auth_reply_storage(a, c, j->id, "passwd");
		return;
	}
	guard_login_ok(a->guard, j->host, j->name, mstime_mono());
	int ended = 0;
	for (struct conn *o = NULL; (o = conn_of_user(a->srv, j->user, o)) != NULL;) {
		if (o == c)
			continue;
		char dg[KDF_DIGEST_HEX + 1];
		auth_token_take(a, conn_id(o), dg);
		conn_send(o, json_pack("{s:s, s:s}", "event", "session_ended", "reason",
		                       "the password was changed"));
		conn_close(o, "password changed");
		ended++;
	}
	/* A login of the account waiting on its own change elsewhere: its
	 * `old` is gone now. */
	json_t *msg = json_pack("{s:s, s:s}", "event", "session_ended", "reason",
	                        "the password was changed");
	ended += auth_close_waiting(a->srv, j->user, c, msg, "password changed");
	json_decref(msg);
	/* This connection stays, under the new password (users check). */
	struct conn_token *t = j->completes_login ? NULL : auth_token_find(a, j->conn);
	if (t != NULL)
		t->pwmark = auth_pw_mark_of(j->hash2);
	log_info("conn=%llu passwd user=%lld name=%s connections_ended=%d%s",
	         (unsigned long long)j->conn, (long long)j->user, j->name, ended,
	         j->completes_login ? " (required)" : "");
	if (j->completes_login)
		auth_login_done(a, c, j->id, j->user, j->name, token, digest, true, mark);
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

/* A job answered (or its connection gone): freed, and what its connection
 * sent after it runs now (which may queue another job). */
static void job_answered(struct auth *a, struct job *j)
{
	uint64_t conn = j->conn;
	job_free(j);
	conn_auth_done(a->srv, conn);
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
	a->nheld--;
	if (c != NULL)
		finish_login(a, c, j);
	job_answered(a, j);
}

/*
 * A failed login is counted now (its back-off starts now) but answered
 * only after login_failure_delay: one connection cannot guess faster
 * than that.  While held the job still counts for its address's share,
 * and its connection stays held (conn_auth_hold) until the answer:
 * what it sent after the login, a next guess included, waits behind it,
 * as it would behind a login still being hashed.  Returns true when j
 * was held (it stays on the pending list).
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
	a->nheld++;   /* hashed: no longer the queue's (a review: held ones filled it, and
	                 nothing queued was left to make room with) */
	return true;
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct auth *a = arg;
	struct job *list;

	(void)what;
	wake_drain(fd);
	/* Jobs a full queue gave up for another address's (queue_make_room). */
	while (a->evicted != NULL) {
		struct job *j = a->evicted;
		struct conn *c = conn_find(a->srv, j->conn);
		a->evicted = j->pending_next;
		if (c != NULL)
			dispatch_error(c, j->id, PE_BUSY, "server busy, try again shortly");
		job_answered(a, j);
	}
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
		job_answered(a, j);   /* (a job it queues is not on the list taken above) */
	}
}

/*
 * Guest accounts nobody can be any more: no session (the last expired
 * AUTH_SESSION_SECONDS after its last use, or was ended), no game, made a
 * day ago or more, and not online.  Before, guest rows were never deleted:
 * 60 an hour from each address at the defaults, for good (memory probe).
 * A guest with a game stays, so every record keeps its players.  A few
 * hundred a pass: the next pass, an hour on, takes the rest.
 */
#define AUTH_GUESTS_PURGE_MAX 500
#define AUTH_GUEST_MIN_AGE_S (24 * 3600)

static void guests_purge(struct auth *a)
{
	struct store *st = a->srv->store;
	int64_t ids[AUTH_GUESTS_PURGE_MAX];
	size_t n = 0, gone = 0;

	if (store_guests_stale(st, auth_now_unix() - AUTH_GUEST_MIN_AGE_S, ids,
	                       AUTH_GUESTS_PURGE_MAX, &n) != STORE_OK) {
		log_warnx("auth: listing stale guests: %s", store_error(st));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int deleted = 0;
		if (conn_of_user(a->srv, ids[i], NULL) != NULL)
			continue;
		if (store_guest_delete(st, ids[i], &deleted) != STORE_OK) {
			log_warnx("auth: deleting guest user=%lld: %s", (long long)ids[i], store_error(st));
			return;
		}
		gone += (size_t)deleted;
	}
	if (gone > 0)
		log_info("auth: guest accounts without a session or a game deleted: %zu", gone);
}

static void purge_cb(evutil_socket_t fd, short what, void *arg)
{
	struct auth *a = arg;

	(void)fd;
	(void)what;
	if (store_sessions_purge(a->srv->store, auth_now_unix()) != STORE_OK)
		log_warnx("auth: purging expired sessions: %s", store_error(a->srv->store));
	else
		guests_purge(a);
}

/* --- submitting ------------------------------------------------------------- */

/* The jobs of address host (its limit key) not yet answered. */
static size_t host_pending(const struct auth *a, const char *host)
{
	size_t n = 0;
	for (const struct job *j = a->pending; j != NULL; j = j->pending_next)
		n += strcmp(j->host, host) == 0;
	return n;
}

/*
 * A full queue makes room for an address that holds fewer of its jobs
 * than another by AUTH_ROOM_GAP or more (the hostile-client probe: eight
 * addresses of four jobs each kept it full, and every other address was
 * refused `busy` for as long as they did, round robin or not): the newest
 * queued login or registration of the address holding the most is
 * answered `busy` in its place.  Answered by wake_cb on the loop's next
 * pass, not here: its connection's later requests run from there, not
 * inside the dispatch of this one's.  Jobs being hashed and other kinds
 * (passwd, another module's hash) stay.  Each room made moves a job from
 * an address holding m to one holding m - AUTH_ROOM_GAP or fewer, so
 * flooding addresses cannot take it from each other back and forth; an
 * attacker with many addresses can still fill the queue one job each.
 * Whether room was made.
 */
static bool queue_make_room(struct auth *a, struct conn *c, size_t mine)
{
	const char *most_host = NULL;
	size_t most = 0;
	pthread_mutex_lock(&a->mu);
	for (struct job *q = a->queued; q != NULL; q = q->next) {
		size_t held;
		if ((q->kind == JOB_LOGIN || q->kind == JOB_REGISTER) && (held = host_pending(a, q->host)) > most) {
			most = held;
			most_host = q->host;
		}
	}
	struct job **victim = NULL;
	for (struct job **p = &a->queued; most >= mine + AUTH_ROOM_GAP && *p != NULL; p = &(*p)->next)
		if (((*p)->kind == JOB_LOGIN || (*p)->kind == JOB_REGISTER) && strcmp((*p)->host, most_host) == 0)
			victim = p;   /* the last: its newest */
	struct job *j = victim != NULL ? *victim : NULL;
	if (j != NULL)
		queue_unlink(a, victim);
	pthread_mutex_unlock(&a->mu);
	if (j == NULL)
		return false;
	unsigned more = 0;
	if (guard_log_allow(guard_settings(a->guard), &a->log_room, mstime_mono(), &more))
		log_warnx("auth: hashing queue full: a queued job of addr=%s (holding %zu) answered busy "
		          "for one of addr=%s (holding %zu) (%u like it not logged)", j->addr, most, conn_host(c),
		          mine, more);
	if (j->kind == JOB_REGISTER)   /* counted once queued (auth_cmd.c): given back (a probe) */
		guard_hourly_refund(a->guard, GUARD_REGISTER, j->host, mstime_mono());
	pending_remove(a, j);
	j->pending_next = a->evicted;
	a->evicted = j;
	wake_poke(a->pipefd[1]);
	return true;
}

/* Queue a hash for conn; answers `busy` itself and returns NULL when the
 * queue is full (and no room is made for it: queue_make_room) or the
 * address holds its share.  A connection never has
 * two jobs: the one it has holds it (auth_job_submit), so a second login
 * runs only once the first was answered. */
struct job *auth_job_new(struct auth *a, struct conn *c, json_t *id, enum job_kind kind,
                           const char *pw, size_t pwlen)
{
	uint64_t cid = conn_id(c);
	struct job *j;

	/* One address gets a bounded share of the queue (hash_queue_per_address),
	 * so a flood from a few addresses leaves room for everyone else. */
	size_t mine = host_pending(a, conn_limit_host(c));
	if (mine >= (size_t)guard_settings(a->guard)->hash_share ||
	    (a->npending - a->nheld >= AUTH_QUEUE_MAX && !queue_make_room(a, c, mine))) {
		unsigned more = 0;
		if (guard_log_allow(guard_settings(a->guard), &a->log_busy, mstime_mono(), &more))
			log_warnx("auth: hashing queue busy addr=%s queued=%zu mine=%zu (%u like it "
			          "not logged)", conn_host(c), a->npending - a->nheld, mine, more);
		dispatch_error(c, id, PE_BUSY, "server busy, try again shortly");
		return NULL;
	}
	j = xcalloc(1, sizeof *j);
	snprintf(j->host, sizeof j->host, "%s", conn_limit_host(c));
	snprintf(j->addr, sizeof j->addr, "%s", conn_host(c));
	j->pw = xmalloc(pwlen);
	memcpy(j->pw, pw, pwlen);
	j->pwlen = pwlen;
	j->kind = kind;
	j->conn = cid;
	j->id = json_incref(id);
	return j;
}

void auth_job_submit(struct auth *a, struct job *j)
{
	/* Identity in request order (conn.h): the connection's later requests
	 * wait until this job is answered (wake_cb, delayed_cb), so none of
	 * them runs before the login it follows and is then overridden. */
	struct conn *c = conn_find(a->srv, j->conn);
	if (c != NULL)
		conn_auth_hold(c);
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

/* --- life ----------------------------------------------------------------- */

struct auth *auth_new(struct server *srv)
{
	struct auth *a = xcalloc(1, sizeof *a);
	unsigned char junk[24];
	struct timeval tv = { AUTH_PURGE_INTERVAL_S, 0 };

	a->srv = srv;
	a->ln = srv->cfg != NULL ? srv->cfg->password_cost : KDF_LN_DEFAULT;
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
	/* The running cost, which a reload does not change (the file may say
	 * another already: kriegd user reads the file's). */
	log_info("auth: passwords hashed at password_cost=%d (%d MiB a hash, %d at once)", a->ln,
	         1 << (a->ln - 10), AUTH_WORKERS);
	if (wake_pipe_open(a->pipefd) != 0) {
		log_warn("auth: pipe");
		goto fail;
	}
	a->wake = event_new(srv->base, a->pipefd[0], EV_READ | EV_PERSIST, wake_cb, a);
	a->purge = event_new(srv->base, -1, EV_PERSIST, purge_cb, a);
	a->users_timer = event_new(srv->base, -1, EV_PERSIST, auth_users_check, a);
	/* KRIEGD_USERS_CHECK_MS: a test holds the check back, to finish a
	 * request in flight before it (test_club). */
	const char *env = getenv("KRIEGD_USERS_CHECK_MS");
	long long check_ms = env != NULL && atoll(env) > 0 ? atoll(env) : AUTH_USERS_CHECK_MS;
	struct timeval utv = { (time_t)(check_ms / 1000), (suseconds_t)(check_ms % 1000) * 1000 };
	if (store_state_get(srv->store, STORE_USERS_VERSION_KEY, &a->users_version) == STORE_ERROR)
		log_warnx("auth: reading the users version: %s", store_error(srv->store));
	if (!auth_audit_skip(a))
		log_warnx("auth: reading the audit: %s", store_error(srv->store));
	if (a->wake == NULL || a->purge == NULL || a->users_timer == NULL ||
	    event_add(a->wake, NULL) != 0 || event_add(a->purge, &tv) != 0 ||
	    event_add(a->users_timer, &utv) != 0) {
		log_msg(LOGL_ERROR, "auth: cannot create events");
		goto fail;
	}
	for (size_t i = 0; i < AUTH_WORKERS; i++) {
		int err = wake_thread_start(&a->threads[i], worker_main, a);
		if (err != 0) {
			log_msg(LOGL_ERROR, "auth: pthread_create: %s", strerror(err));
			goto fail;
		}
		a->nthreads++;
	}
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
	/* Every job, wherever it was queued, is on the pending list, or
	 * given up and not yet answered on the evicted one. */
	struct job **lists[] = { &a->pending, &a->evicted };
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
		while (*lists[i] != NULL) {
			struct job *j = *lists[i];
			*lists[i] = j->pending_next;
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
