/*
 * guard.h — defence against abuse of accounts (issue 11), pure
 * bookkeeping: every call is given the time (monotonic ms), so the unit
 * test drives it without sleeping.  auth.c asks it before and tells it
 * after each registration, guest and login; it does no I/O itself.
 *
 * What it keeps, bounded (GUARD_ENTRIES per table, the least recently
 * used record is forgotten first):
 *   per address:  registrations, guest accounts made and games started
 *                 in the current hour (guard_hourly); recent login
 *                 failures and the back-off window they opened;
 *   per name:     recent login failures and their back-off window, for
 *                 every name tried, an account's or not (keeping them
 *                 for accounts alone told which names are accounts); a
 *                 full table forgets made-up names first.
 *
 * Password guessing.  Each failure after the first login_free_failures
 * opens a window of login_backoff * 2^(extra failures - 1), at most
 * login_backoff_max, in which further attempts are refused at once with
 * `retry_after` (no hash is spent on them).  The ADDRESS window stops one
 * guesser whatever accounts it tries; the NAME window stops guessers
 * spread over many addresses, but it binds only attempts from addresses
 * that have failed recently themselves: the real user, from an address
 * with no recent failures, still logs in with the right password while a
 * stranger hammers the account.  Failures are forgotten
 * login_failure_memory after the last one, and a successful login
 * forgives its address's failures on its own name (a typo; members behind
 * one address each their own), while those on other names stay counted (a
 * guesser logging in to an account of its own between guesses reset its
 * count).  Failures on more than GUARD_ADDR_NAMES names: none forgiven.
 *
 * Settings (deploy/kriegd.conf.example): see struct guard_settings.
 */
#ifndef KRIEG_GUARD_H
#define KRIEG_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GUARD_ENTRIES 4096            /* records per table; LRU beyond */
#define GUARD_ADDR_MAX 48             /* INET6_ADDRSTRLEN and room */
#define GUARD_NAME_MAX 32             /* a name's first 31 bytes are its key (names: 24 at most) */
#define GUARD_ADDR_NAMES 4            /* names an address's failures are kept by (guard_login_ok) */

struct guard_settings {
	int register_per_hour;        /* register_per_hour: registrations per address per
	                               * hour; 0: unlimited.  Default 5 */
	int guests_per_address;       /* guests_per_address: live guests from one address;
	                               * 0: unlimited.  Default 8 */
	int guests_per_hour;          /* guests_per_hour: guest accounts made per address per
	                               * hour (a `guest` on a connection that is one already
	                               * makes another); 0: unlimited.  Default 60 */
	int games_per_hour;           /* games_per_hour: games started per address per hour
	                               * by taking an offer (accept, a seek that meets one, a
	                               * rematch); a bot account taking one charges the
	                               * address the offer was made from; 0: unlimited.
	                               * Default 600 */
	int login_free_failures;      /* login_free_failures: failures before back-off. 3 */
	int login_backoff_ms;         /* login_backoff: the first window. 2s */
	int login_backoff_max_ms;     /* login_backoff_max: the longest window. 15m */
	int login_failure_memory_ms;  /* login_failure_memory: failures forgotten after. 1h */
	int login_failure_delay_ms;   /* login_failure_delay: a failed login's answer waits. 1s */
	int hash_share;               /* hash_queue_per_address: an address's jobs in the
	                               * hashing queue at once.  Default 4 */
	int log_repeat_ms;            /* log_repeat_interval: one line per kind per interval,
	                               * then a count of those left out.  Default 10s */
	int ipv6_prefix;              /* ipv6_prefix: every per-address limit counts an IPv6
	                               * address by its first N bits (guard_addr_key).
	                               * Default 64 */
};

void guard_settings_default(struct guard_settings *s);
/* Every key above as kriegd.conf writes it, one line each (config_print). */
void guard_settings_print(const struct guard_settings *s, FILE *f);
/* Apply one config key: 0 done, -1 bad value (message in err), 1 not a
 * guard key. */
int guard_settings_set(struct guard_settings *s, const char *key, const char *value, char *err,
                       size_t errlen);

struct guard;
struct guard *guard_new(const struct guard_settings *s);
void guard_free(struct guard *g);
/* New settings (a SIGHUP reload); what it remembers of addresses and
 * accounts is kept. */
void guard_reconfigure(struct guard *g, const struct guard_settings *s);
const struct guard_settings *guard_settings(const struct guard *g);

/*
 * The address as every per-address limit counts it (here and in conn.c,
 * web.c, auth.c): an IPv6 address by its network, its first prefix bits
 * ("2001:db8:1:2::/64"; prefix 128: the address itself), since one
 * subscriber is given a /64 or more and picks any address in it; an
 * IPv4-mapped IPv6 address (a dual-stack listener's IPv4 client) as the
 * IPv4 address; an IPv4 address, or anything unparsable ("?"), as it is.
 * Logs and the admin's views keep the address itself.
 */
void guard_addr_key(const char *addr, int prefix, char key[GUARD_ADDR_MAX]);

/* What addr may do so many times an hour: register (register_per_hour),
 * make a guest account (guests_per_hour), start a game (games_per_hour).
 * 0 if allowed now (and counted), else the ms until the address may
 * again. */
enum guard_hourly { GUARD_REGISTER, GUARD_GUEST, GUARD_GAME, GUARD_HOURLY };
int64_t guard_hourly(struct guard *g, enum guard_hourly kind, const char *addr, int64_t now);
/* The same wait, nothing counted (register: past the limit, a taken name
 * is not told either). */
int64_t guard_hourly_wait(struct guard *g, enum guard_hourly kind, const char *addr, int64_t now);
/* One counted this hour given back (a registration queued, then answered
 * `busy` to make room for another address's: auth.c queue_make_room). */
void guard_hourly_refund(struct guard *g, enum guard_hourly kind, const char *addr, int64_t now);

/* May addr try to log in as name (an account's or not) now?  0, or the
 * ms to wait (retry_after). */
int64_t guard_login_check(struct guard *g, const char *addr, const char *name, int64_t now);
/* A failed login: counts for addr and name (account: it names one; a full
 * table forgets a made-up name's record before an account's). */
void guard_login_failed(struct guard *g, const char *addr, const char *name, bool account, int64_t now);
/* A successful login as name: addr's failures on name are forgiven. */
void guard_login_ok(struct guard *g, const char *addr, const char *name, int64_t now);

/* Bounded logging: may a line of this kind be logged now?  true: log it,
 * and if *suppressed is non-zero, say that many were left out since. */
struct guard_log_limit {
	int64_t next_ms;
	unsigned suppressed;
};
bool guard_log_allow(const struct guard_settings *s, struct guard_log_limit *l, int64_t now,
                     unsigned *suppressed);

#endif
