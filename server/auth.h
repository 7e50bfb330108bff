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
 *
 * Sessions: a token is 32 random bytes in base64url; only its SHA-256 is
 * stored.  A token lives AUTH_SESSION_SECONDS after it was issued or last
 * resumed: resume keeps the same token and slides its expiry (simpler for
 * clients than rotation, and a token that is used never dies under a
 * player mid-game).  logout revokes the token this connection logged in
 * with or obtained; the user's other sessions stay valid.
 */
#ifndef KRIEG_AUTH_H
#define KRIEG_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define AUTH_WORKERS 2                        /* hashing threads */
#define AUTH_QUEUE_MAX 32                     /* hashes queued or running; more -> busy */
#define AUTH_SESSION_SECONDS (30 * 24 * 3600) /* token lifetime, slid by resume */
#define AUTH_PURGE_INTERVAL_S 3600            /* expired sessions are deleted this often */
#define AUTH_GUEST_PREFIX "guest-"            /* reserved: registration refuses it */
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
/* [A-Za-z0-9_-], PROTO_NAME_MIN..PROTO_NAME_MAX bytes, not starting with
 * AUTH_GUEST_PREFIX (any case): PE_BAD_NAME otherwise. */
enum proto_error auth_check_name(const char *name, size_t len);
/* PROTO_PASSWORD_MIN..PROTO_PASSWORD_MAX bytes and not the user name
 * (ignoring case): PE_WEAK_PASSWORD otherwise. */
enum proto_error auth_check_password(const char *name, const char *pw, size_t len);
/* "guest-" and nchars random [a-z0-9]; out holds PROTO_NAME_MAX + 1.
 * Returns 0 or -1. */
int auth_guest_name(char *out, size_t outlen, int nchars);

/*
 * Roles (schema 6, PROTOCOL.md "Roles"): every account is a player, an
 * umpire or an admin (an admin may do whatever an umpire may).  They are
 * set offline by `kriegd user ...` (useradm.c), never over the wire.  A
 * guest is always a player.  A disabled account cannot log in or resume;
 * the daemon closes its connections within AUTH_USERS_CHECK_MS of the
 * change (auth.c, users_check).
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

#endif
