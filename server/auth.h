/*
 * auth.h — accounts, guests, sessions and resume tokens.  Password hashing
 * (scrypt through OpenSSL's EVP_KDF, see kdf.h) runs on worker threads so
 * a login never stalls other clients; results come back to the event loop
 * through a pipe watched by an ordinary event (no evthread locking needed).
 *
 * Requests (auth_cmds, see proto/PROTOCOL.md):
 *   register {user, password}  -> ok {user, token}
 *   login    {user, password}  -> ok {user, token, games:[id...]}
 *   guest    {}                -> ok {user, token}
 *   resume   {token}           -> ok {user, token, games:[id...]}
 *   logout   {}                -> ok {}
 *   passwd   {old, new}        -> ok {ended}  (every other session of the user ends)
 *
 * A request answered after a hash (register, login, passwd, and
 * auth_hash_for's) holds its connection until it is answered
 * (conn_auth_hold, conn.h): what the client sent after it runs after that
 * answer, so identity changes take effect in the order they were sent
 * (a logout behind a login logs that login out; a second login runs
 * after the first, never `busy` for it).
 *
 * Registration and guests follow the club's policy (admin.h).  A login
 * whose password an admin reset (users.must_change, schema 8) answers
 * ok {user, must_change_password: true} WITHOUT logging the connection in
 * or issuing a token: only `passwd` (with the reset password as `old`)
 * completes it, and its answer is then a login's {user, token, games}.
 *
 * Sessions: a token is 32 random bytes in base64url; only its SHA-256 is
 * stored.  A token lives AUTH_SESSION_SECONDS after it was issued or last
 * resumed: resume keeps the same token and slides its expiry (simpler for
 * clients than rotation, and a token that is used never dies under a
 * player mid-game).  logout revokes the token this connection logged in
 * with or obtained, and closes every other connection logged in with it
 * (told session_ended); the user's other sessions stay valid.  An account
 * keeps AUTH_SESSIONS_MAX sessions at most: a login beyond them ends its
 * least recently used one, one that no connection is logged in with
 * first (auth.c, sessions_cap).
 */
#ifndef KRIEG_AUTH_H
#define KRIEG_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "proto.h"

#define AUTH_WORKERS 2                        /* hashing threads */
#define AUTH_QUEUE_MAX 32                     /* hashes queued or running; more -> busy */
#define AUTH_ROOM_GAP 2                       /* a full queue makes room for an address holding
                                                 this many jobs fewer than another (auth.c) */
#define AUTH_SESSION_SECONDS (30 * 24 * 3600) /* token lifetime, slid by resume */
#define AUTH_SESSIONS_MAX 32                  /* sessions one account keeps (a login ends the oldest) */
#define AUTH_PURGE_INTERVAL_S 3600            /* expired sessions are deleted this often */
#define AUTH_GUEST_PREFIX "guest-"            /* reserved: registration refuses it */
/* bad_name's message (register, user_create, `kriegd user add`): printf's
 * format and its arguments. */
#define AUTH_NAME_RULE_FMT "names are %d to %d letters A-Z or a-z, digits, '_' or '-', starting with neither '-' nor \"%s\""
#define AUTH_NAME_RULE_ARGS PROTO_NAME_MIN, PROTO_NAME_MAX, AUTH_GUEST_PREFIX
#define AUTH_GUEST_CHARS 4                    /* guest-XXXX; longer after collisions */
#define AUTH_GUEST_TRIES 12

struct server;
struct auth;

/* Needs srv->base and srv->store.  Starts the workers and computes the
 * dummy hash that unknown users are verified against.  NULL on failure
 * (logged). */
struct auth *auth_new(struct server *srv);
/* Stops and joins the workers; pending requests get no answer. */
void auth_free(struct auth *a);

/* Validation, exposed for the tests.  PE_NONE when acceptable. */
/* [A-Za-z0-9_-], PROTO_NAME_MIN..PROTO_NAME_MAX bytes, starting with
 * neither '-' nor AUTH_GUEST_PREFIX (any case): PE_BAD_NAME otherwise. */
enum proto_error auth_check_name(const char *name, size_t len);
/* PROTO_PASSWORD_MIN..PROTO_PASSWORD_MAX bytes and not the user name
 * (ignoring case): PE_WEAK_PASSWORD otherwise. */
enum proto_error auth_check_password(const char *name, const char *pw, size_t len);
/* Names a stranger may not `register` (any case): the words the clients
 * write for the server, its staff and the sides (a spectator named "White"
 * saying "I resign" read as White's words).  An admin may still make them
 * (user_create, `kriegd user add`). */
bool auth_name_reserved(const char *name);
struct conn;
/* A new account's name refused, user_exists: taken (any case), or it reads
 * as taken, the registered name (store_user_alike). */
void auth_reply_taken(struct conn *c, json_t *id, const char *name, const char *taken);
/* Its words, the wire's and `kriegd user add`'s: "that name is taken", or
 * "that name looks like TAKEN, an account that exists". */
void auth_taken_words(const char *name, const char *taken, char *out, size_t len);
/* Whether an account name is a guest's (the prefix no registration may take). */
bool auth_is_guest_name(const char *name);

/* "guest-" and nchars random [a-z0-9]; out holds PROTO_NAME_MAX + 1.
 * Returns 0 or -1. */
int auth_guest_name(char *out, size_t outlen, int nchars);

/*
 * Roles (schema 6, PROTOCOL.md "Roles"): every account is a player, an
 * umpire or an admin (an admin may do whatever an umpire may).  They are
 * set offline by `kriegd user ...` (useradm.c), or by an admin over the
 * wire (admin.c).  A guest is always a player.  A disabled account cannot
 * log in or resume; the daemon closes its connections within
 * AUTH_USERS_CHECK_MS of an offline change (auth.c, users_check), at
 * once for an admin's (auth_users_changed).
 */
enum auth_role {
	AUTH_ROLE_NONE = -1,        /* disabled, unknown, or the store failed: nothing privileged */
	AUTH_ROLE_PLAYER = 0,
	AUTH_ROLE_UMPIRE = 1,
	AUTH_ROLE_ADMIN = 2,
};
#define AUTH_USERS_CHECK_MS 1000
const char *auth_role_name(int role);   /* "player", "umpire", "admin"; NULL otherwise */
int auth_role_parse(const char *name);  /* AUTH_ROLE_NONE if unknown */
/* The user's role now (read from the store): AUTH_ROLE_NONE for a
 * disabled or unknown account. */
int auth_user_role(struct server *srv, int64_t uid);
/* Is uid a bot account (schema 9, set offline by `kriegd user bot`)?
 * false for guests, unknown ids and a failing store (read now, like the
 * role: the lobby and game start mark bots, and rating asks). */
bool auth_user_is_bot(struct server *srv, int64_t uid);
/* games_per_hour for the game c's user is about to start by taking
 * owner's offer, made from the address made_from (as limits count it; ""
 * unknown).  auth_games_payer: the address that pays, c's own
 * (conn_limit_host's pointer), or, the taker a bot account (it takes every
 * challenge it is sent), made_from; NULL for a game between two bots, or
 * of an offer whose address is unknown: not counted.  auth_games_refused:
 * false, or true with the request answered (retry_after, logged).
 * auth_game_started counts a start that was made. */
const char *auth_games_payer(struct conn *c, int64_t owner, const char *made_from);
bool auth_games_refused(struct conn *c, json_t *id, const char *payer);
void auth_game_started(struct conn *c, const char *payer);
/* The account `name` names (case-insensitively; guests too) for a request
 * of c's: 0 with *u filled (the name as registered), or -1 with the
 * request answered (no_such_user; storage). */
struct conn;
struct store_user;
int auth_find_user(struct conn *c, json_t *id, const char *name, struct store_user *u);

/* For admin.c. */
struct conn;
/* Accounts changed in the store (disabled, role): close the connections
 * of disabled accounts and re-check umpire chairs now, as the periodic
 * users check would within AUTH_USERS_CHECK_MS. */
void auth_users_changed(struct server *srv);
/* Is a must_change login waiting on c for `passwd`?  dispatch.c then
 * answers `password_change_required` instead of `not_logged_in`. */
bool auth_password_change_pending(struct conn *c);
/* The settings of srv->cfg changed (a reload): the abuse limits follow. */
void auth_reconfigure(struct server *srv);
/* End user's sessions: delete every stored session but the one `keep`
 * logged in with (keep NULL: all), and close every other connection of
 * user (a login waiting on a password change too), each told
 * {"event":"session_ended","reason":reason} first.
 * Returns the number of connections closed, or -1 if the store failed
 * (logged; nothing closed). */
int auth_end_sessions(struct server *srv, int64_t user, struct conn *keep, const char *reason);
/* Close every connection but `but` whose login of user waits on a
 * password change (must_change: not logged in, so not among
 * conn_of_user's, but the account's all the same), each sent msg first
 * (borrowed).  Returns how many. */
int auth_close_waiting(struct server *srv, int64_t user, struct conn *but, json_t *msg,
                       const char *why);
/* How many connections auth_close_waiting(srv, user, NULL, ...) would close. */
int auth_count_waiting(struct server *srv, int64_t user);
/* Hash pw on the hashing workers (fair share and `busy` as for a login),
 * then call done(c, id, req, hash) on the loop thread if c is still open;
 * id and req are kept (json_incref) until then.  A hashing failure is
 * answered `internal` without calling done.  false: refused now (`busy`
 * already answered). */
typedef void (*auth_hashed_fn)(struct conn *c, json_t *id, json_t *req, const char *hash);
bool auth_hash_for(struct conn *c, json_t *id, json_t *req, const char *pw, size_t pwlen,
                   auth_hashed_fn done);

#endif
