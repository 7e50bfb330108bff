/*
 * useradm.h — `kriegd [--config FILE] [--state-dir DIR] user ...`: account
 * administration on the state directory, offline, usable while the daemon
 * runs (SQLite serialises the writes; the daemon notices role and
 * disabled changes within AUTH_USERS_CHECK_MS, auth.h):
 *
 *   user add NAME [--role player|umpire|admin] [--must-change] [--password-stdin]
 *   user role NAME player|umpire|admin
 *   user passwd NAME [--must-change] [--password-stdin]
 *   user disable NAME
 *   user enable NAME
 *   user list                 one line per account: NAME ROLE enabled|disabled
 *
 * The password is read from the terminal (twice, without echo), or as
 * one line from stdin with --password-stdin.  --must-change: the user
 * must change it at the next login (as after an admin's user_reset), and
 * passwd then also ends the account's stored sessions; passwd without it
 * clears the flag.  Exit status 0 on success; otherwise one line
 * "kriegd: user: ..." on stderr and 1 (2 for a usage error).
 *
 * Every change is stored in the audit table (admin.h) in the change's
 * transaction: the admin is the Unix user who ran the tool, the address
 * USERADM_AUDIT_ADDR, the actions user_create, user_role, user_passwd,
 * user_disable, user_enable.
 */
#ifndef KRIEG_USERADM_H
#define KRIEG_USERADM_H

#define USERADM_AUDIT_ADDR "console"   /* the audit's address of an offline change */

struct config;

/* argv[0] is "user". Returns the process exit status. */
int useradm_main(const struct config *cfg, int argc, char **argv);

#endif
