/*
 * auth_priv.h — internal to the accounts module (auth.c, auth_cmd.c,
 * auth_roles.c): the hashing jobs, the module's state and the helpers the
 * files share.  Nothing outside the module includes it; its interface is
 * auth.h.
 *
 * auth.c holds the hashing queue and its workers, sessions and the
 * completions on the loop thread; auth_cmd.c the requests (register,
 * login, guest, resume, logout, passwd); auth_roles.c the roles and the
 * poll that applies account changes made while the daemon runs.
 */
#ifndef KRIEG_AUTH_PRIV_H
#define KRIEG_AUTH_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

#include "auth.h"
#include "guard.h"
#include "kdf.h"
#include "log.h"

struct conn;

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
	char host[GUARD_ADDR_MAX];    /* the client's address as the limits count it (its share
	                               * of the queue, guard.h: conn_limit_host) */
	char addr[GUARD_ADDR_MAX];    /* and as it is, for the log (conn_host) */
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
	uint64_t pwmark;              /* auth_pw_mark when the login found it */
};

/* Which token each logged-in connection holds, for logout, and a mark of
 * the password it logged in under, for the users check (auth_pw_mark). */
struct conn_token {
	uint64_t conn;
	char digest[KDF_DIGEST_HEX + 1];
	uint64_t pwmark;              /* 0: none known (a guest; the store failed) */
	int64_t audit_mark;           /* the newest audit row at its login: a disable
	                                 after it is one it was there for (disables_apply) */
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
	size_t nheld;                          /* loop thread: of them, failed logins hashed and
	                                          held for their answer (login_hold): not in the
	                                          queue's AUTH_QUEUE_MAX, still in their address's share */
	struct job *evicted;                   /* loop thread: jobs taken off a full queue for
	                                          another address's (queue_make_room), answered
	                                          `busy` by wake_cb; on neither list above */
	int pipefd[2];
	struct event *wake;
	struct event *purge;
	struct event *users_timer;             /* AUTH_USERS_CHECK_MS: users_check() */
	int64_t users_version;                 /* server_state STORE_USERS_VERSION_KEY last seen */
	int64_t audit_seen;                    /* the newest audit row looked at (disables_apply) */
	bool audit_known;                      /* audit_seen read: a failed first read is no 0 */

	struct conn_token *tokens;
	size_t ntokens, captokens;

	struct conn_must_change *changing;     /* logins waiting for `passwd` */
	size_t nchanging, capchanging;

	struct guard *guard;                   /* registration rate, login back-off (guard.h) */
	struct guard_log_limit log_busy, log_refused, log_room;
};

void auth_job_submit(struct auth *a, struct job *j);
int64_t auth_now_unix(void);
void auth_reply_storage(struct auth *a, struct conn *c, json_t *id, const char *what);
/* A disabled account's login or resume (what) answered account_disabled,
 * and logged at every level with its address and name (the club admin
 * probe: "user=3" alone, and a resume not at all), worded apart from a
 * failure's: the password or the token was right, and fail2ban's filter
 * counts none of it. */
void auth_refuse_disabled(struct conn *c, json_t *id, const char *what, const char *name);
struct conn_must_change *auth_changing_find(struct auth *a, uint64_t conn);
struct conn_token *auth_token_find(struct auth *a, uint64_t conn);
/* A mark of the password hash stored for the registered account `name`
 * (a guest's, or an unreadable one: 0), and of a hash itself: a password
 * set after a connection logged in (`kriegd user passwd`) changes it. */
uint64_t auth_pw_mark(struct auth *a, const char *name);
uint64_t auth_pw_mark_of(const char *pwhash);
struct job *auth_job_new(struct auth *a, struct conn *c, json_t *id, enum job_kind kind,
                           const char *pw, size_t pwlen);
int auth_token_take(struct auth *a, uint64_t conn, char *digest);
/* End the session whose token hashes to `digest`: its stored row first,
 * then every connection logged in with it but `keep` (0: none), each
 * sent {"event":"session_ended","reason":reason} and closed (`why` for
 * the log).  The connections closed, or -1 if the store failed (logged;
 * nothing closed: the token still works, so they keep it). */
int auth_session_end(struct auth *a, const char *digest, uint64_t keep, const char *reason,
                     const char *why);
int auth_session_new(struct auth *a, int64_t user, char *token, char *digest);
void auth_changing_forget(struct auth *a, uint64_t conn);
void auth_login_done(struct auth *a, struct conn *c, json_t *id, int64_t user,
                       const char *name, const char *token, const char *digest, bool with_games,
                     int64_t audit_mark);
/* The newest audit row now (0: not known), read before a login's check of
 * the disabled flag: a disable written after it is one the login was
 * there for (auth_roles.c disables_apply). */
int64_t auth_audit_mark(struct auth *a);
/* The audit read up to its newest row without looking at it (the start;
 * a look after a failed start): audit_seen set, audit_known true; false
 * if the store failed (auth_roles.c). */
bool auth_audit_skip(struct auth *a);
void auth_users_check(evutil_socket_t fd, short what, void *arg);

#endif
