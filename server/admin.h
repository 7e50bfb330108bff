/*
 * admin.h — running a club (issue 11): the registration policy and the
 * admin's requests over the protocol (proto/PROTOCOL.md, "Administration").
 *
 * Policy (config, read at each request so a reload applies it):
 *   registration = open | invite | closed   (default open)
 *     open:   anyone may `register`;
 *     invite: `register` needs an `invite` code an admin made with
 *             `invite` (single use, ADMIN_INVITE_SECONDS to live);
 *     closed: only admins create accounts (`user_create`).
 *   guests = on | off                       (default on)
 * auth.c asks admin_policy_of() in `register` and `guest`.
 *
 * Admin requests (role admin, `forbidden` otherwise; admin_cmds):
 *   users, user_create, user_disable, user_enable, user_reset, user_role,
 *   kick, invite, invites, invite_revoke, broadcast, audit.
 * An invite code is shown once, in the answer to `invite`; `invites`,
 * the audit and the log name it by the first ADMIN_INVITE_PREFIX hex
 * digits of its SHA-256 (all the store keeps), which invite_revoke takes.
 * Each action that changes something is stored in the audit table (with
 * the admin's name and address) in the same transaction as the change,
 * and logged as one `admin=NAME action=...` line.  Accounts are changed
 * through the same store calls as `kriegd user ...`, so a disabled
 * account's connections close by the same path (auth_users_changed).
 */
#ifndef KRIEG_ADMIN_H
#define KRIEG_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct server;

enum admin_registration {
	ADMIN_REG_OPEN = 0,
	ADMIN_REG_INVITE = 1,
	ADMIN_REG_CLOSED = 2,
};

struct admin_policy {
	int registration;       /* registration: enum admin_registration */
	bool guests;            /* guests: on | off */
};

#define ADMIN_INVITE_SECONDS (14 * 24 * 3600)  /* an invite code lives two weeks */
#define ADMIN_AUDIT_MAX 1000                   /* rows `audit` reads (newest first) */
#define ADMIN_INVITES_MAX 1000                 /* codes `invites` reads (newest first) */
#define ADMIN_INVITE_PREFIX 12                 /* hex digits naming a code's digest */
#define ADMIN_NOTICE_MAX 500                   /* bytes in a broadcast notice */
#define ADMIN_REASON_MAX 200                   /* bytes in a kick reason */

void admin_policy_default(struct admin_policy *p);
/* Apply one config key: 0 done, -1 bad value (message in err), 1 not a
 * policy key. */
int admin_policy_set(struct admin_policy *p, const char *key, const char *value, char *err,
                     size_t errlen);
/* "registration = ...", "guests = ..." lines (config_print). */
void admin_policy_print(const struct admin_policy *p, FILE *f);
/* The running policy (the defaults when the server has no config). */
const struct admin_policy *admin_policy_of(const struct server *srv);
const char *admin_registration_name(int registration);

/* Ending a game is the umpire's action (watch.c: adjudicate, umpire_abort),
 * which an admin may take in any game's chair.  When c's user is an admin,
 * watch.c calls this as the action is taken: one audit row and log line
 * (action "adjudge" or "uabort", target "game N", detail the record's
 * text of the action).  A store failure is logged, and does not stop the
 * umpire's action. */
struct conn;
void admin_audit_game(struct conn *c, int64_t game, const char *action, const char *detail);

#endif
