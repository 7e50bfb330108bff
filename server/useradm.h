/*
 * useradm.h — `kriegd [--config FILE] [--state-dir DIR] user ...`: account
 * administration on the state directory, offline, usable while the daemon
 * runs (SQLite serialises the writes; the daemon notices role and
 * disabled changes within AUTH_USERS_CHECK_MS, auth.h):
 *
 *   user add NAME [--role player|umpire|admin] [--password-stdin]
 *   user role NAME player|umpire|admin
 *   user passwd NAME [--password-stdin]
 *   user disable NAME
 *   user enable NAME
 *   user list                 one line per account: NAME ROLE enabled|disabled
 *
 * The password is read from the terminal (twice, without echo), or as
 * one line from stdin with --password-stdin.  Exit status 0 on success;
 * otherwise one line "kriegd: user: ..." on stderr and 1 (2 for a usage
 * error).
 */
#ifndef KRIEG_USERADM_H
#define KRIEG_USERADM_H

struct config;

/* argv[0] is "user". Returns the process exit status. */
int useradm_main(const struct config *cfg, int argc, char **argv);

#endif
