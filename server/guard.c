/*
 * guard.c — see guard.h.  The tables are small arrays searched linearly:
 * a lookup costs microseconds against a login's 100 ms of scrypt, and a
 * full table forgets its least recently used record, so an attacker with
 * many addresses can only make the server forget, never grow.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "guard.h"
#include "xmalloc.h"

#define HOUR_MS (3600 * 1000LL)

struct record {
	char addr[GUARD_ADDR_MAX];    /* address table */
	char name[GUARD_NAME_MAX];    /* account table: the name tried, folded (fold) */
	/* address table: its failures by the name they were on, so that a
	 * success forgives its own name's (the first GUARD_ADDR_NAMES names;
	 * past them, fail_overflow: none is forgiven) */
	struct {
		char name[GUARD_NAME_MAX];
		int fails;
	} fail_names[GUARD_ADDR_NAMES];
	bool fail_overflow;
	bool account;                 /* name table: a failure named an account (kept longest) */
	int64_t used_ms;              /* 0: free */
	int fails;
	int64_t last_fail_ms;
	int64_t until_ms;             /* back-off window end */
	int64_t hour_start_ms[GUARD_HOURLY];   /* per kind (guard_hourly): its hour */
	int hour_count[GUARD_HOURLY];          /* and what was counted in it */
};

struct guard {
	struct guard_settings s;
	struct record addrs[GUARD_ENTRIES];
	struct record accounts[GUARD_ENTRIES];
};

void guard_settings_default(struct guard_settings *s)
{
	s->register_per_hour = 5;
	s->guests_per_address = 8;
	s->guests_per_hour = 60;
	s->games_per_hour = 600;
	s->login_free_failures = 3;
	s->login_backoff_ms = 2000;
	s->login_backoff_max_ms = 15 * 60 * 1000;
	s->login_failure_memory_ms = 60 * 60 * 1000;
	s->login_failure_delay_ms = 1000;
	s->hash_share = 4;
	s->log_repeat_ms = 10000;
	s->ipv6_prefix = 64;
}

/* The guard's keys of kriegd.conf: set (guard_settings_set) and printed
 * (guard_settings_print) from this one table. */
static const struct {
	const char *key;
	size_t off;
	int lo, hi;
	int duration;
} keys[] = {
	{ "register_per_hour", offsetof(struct guard_settings, register_per_hour), 0, 1000000, 0 },
	{ "guests_per_address", offsetof(struct guard_settings, guests_per_address), 0, 1000000, 0 },
	{ "guests_per_hour", offsetof(struct guard_settings, guests_per_hour), 0, 1000000, 0 },
	{ "games_per_hour", offsetof(struct guard_settings, games_per_hour), 0, 1000000, 0 },
	{ "login_free_failures", offsetof(struct guard_settings, login_free_failures), 0, 1000, 0 },
	{ "hash_queue_per_address", offsetof(struct guard_settings, hash_share), 1, 1000, 0 },
	{ "login_backoff", offsetof(struct guard_settings, login_backoff_ms), 1, 3600000, 1 },
	{ "login_backoff_max", offsetof(struct guard_settings, login_backoff_max_ms), 1, 86400000, 1 },
	{ "login_failure_memory", offsetof(struct guard_settings, login_failure_memory_ms), 1000,
	  INT_MAX, 1 },
	{ "login_failure_delay", offsetof(struct guard_settings, login_failure_delay_ms), 0, 60000, 1 },
	{ "log_repeat_interval", offsetof(struct guard_settings, log_repeat_ms), 0, 3600000, 1 },
	{ "ipv6_prefix", offsetof(struct guard_settings, ipv6_prefix), 32, 128, 0 },
};

int guard_settings_set(struct guard_settings *s, const char *key, const char *value, char *err,
                       size_t errlen)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strcmp(key, keys[i].key) != 0)
			continue;
		int *slot = (int *)((char *)s + keys[i].off), v;
		char *end;
		long n;
		if (keys[i].duration) {
			if (config_parse_duration_ms(value, &v) != 0 || v < keys[i].lo || v > keys[i].hi) {
				config_duration_range_err(err, errlen, key, keys[i].lo, keys[i].hi);
				return -1;
			}
		} else {
			n = strtol(value, &end, 10);
			if (*value == '\0' || *end != '\0' || n < keys[i].lo || n > keys[i].hi) {
				snprintf(err, errlen, "%s: expected an integer from %d to %d", key, keys[i].lo,
				         keys[i].hi);
				return -1;
			}
			v = (int)n;
		}
		*slot = v;
		return 0;
	}
	return 1;
}

void guard_settings_print(const struct guard_settings *s, FILE *f)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		int v = *(const int *)((const char *)s + keys[i].off);
		if (keys[i].duration)
			config_print_duration(f, keys[i].key, v);
		else
			fprintf(f, "%s = %d\n", keys[i].key, v);
	}
}

void guard_addr_key(const char *addr, int prefix, char key[GUARD_ADDR_MAX])
{
	struct in6_addr a6;
	struct in_addr a4;
	char text[INET6_ADDRSTRLEN];

	/* Printed again from the parsed address: one form of each (a proxy's
	 * "2001:DB8::1" is "2001:db8::1"). */
	snprintf(key, GUARD_ADDR_MAX, "%s", addr);
	if (inet_pton(AF_INET, addr, &a4) == 1) {
		inet_ntop(AF_INET, &a4, key, GUARD_ADDR_MAX);
		return;
	}
	if (inet_pton(AF_INET6, addr, &a6) != 1)
		return;
	/* An IPv4 address inside an IPv6 one counts as that IPv4 address
	 * (else every IPv4 client seen through one of these forms shared one
	 * /64): mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, SIIT
	 * ::ffff:0:a.b.c.d, NAT64 64:ff9b::a.b.c.d (the last 32 bits), 6to4
	 * 2002:aabb:ccdd::/48 (bits 16..47). */
	static const unsigned char zero[10], nat64[12] = { 0, 0x64, 0xff, 0x9b };
	const unsigned char *b = a6.s6_addr;
	const unsigned char *v4 = NULL;
	if (IN6_IS_ADDR_V4MAPPED(&a6) || IN6_IS_ADDR_V4COMPAT(&a6) || memcmp(b, nat64, 12) == 0 ||
	    (memcmp(b, zero, 8) == 0 && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0))
		v4 = b + 12;
	else if (b[0] == 0x20 && b[1] == 0x02)
		v4 = b + 2;
	if (v4 != NULL) {
		inet_ntop(AF_INET, v4, key, GUARD_ADDR_MAX);
		return;
	}
	for (int bit = prefix > 0 ? prefix : 0; bit < 128; bit++)
		a6.s6_addr[bit / 8] &= (unsigned char)~(0x80u >> (bit % 8));
	inet_ntop(AF_INET6, &a6, text, sizeof text);
	/* An IPv6 address's text is 39 bytes at most, 45 with an IPv4 tail
	 * ("::ffff:" is mapped, taken above; "::1.2.3.4" is short); the whole
	 * address (128) needs no prefix length. */
	if (prefix >= 128)
		snprintf(key, GUARD_ADDR_MAX, "%.39s", text);
	else
		snprintf(key, GUARD_ADDR_MAX, "%.39s/%u", text, (unsigned)prefix & 127u);
}

struct guard *guard_new(const struct guard_settings *s)
{
	struct guard *g = xcalloc(1, sizeof *g);
	g->s = *s;
	return g;
}

void guard_reconfigure(struct guard *g, const struct guard_settings *s)
{
	g->s = *s;   /* the counts stay: a reload forgets no guesser */
}

void guard_free(struct guard *g)
{
	free(g);
}

const struct guard_settings *guard_settings(const struct guard *g)
{
	return &g->s;
}

/* A record has nothing worth keeping at now: no window, no failure to
 * remember, no registration in the current hour. */
static bool idle(const struct guard *g, const struct record *r, int64_t now)
{
	for (int k = 0; k < GUARD_HOURLY; k++)
		if (r->hour_count[k] > 0 && now - r->hour_start_ms[k] < HOUR_MS)
			return false;
	return r->until_ms <= now &&
	       (r->fails == 0 || now - r->last_fail_ms >= g->s.login_failure_memory_ms);
}

/* A name as the account table keys it: ASCII letters in lower case (names
 * are matched without case), its first GUARD_NAME_MAX - 1 bytes. */
static void fold(char out[GUARD_NAME_MAX], const char *name)
{
	size_t i = 0;
	for (; name && name[i] != '\0' && i < GUARD_NAME_MAX - 1; i++)
		out[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
	out[i] = '\0';
}

/* The record of addr (name NULL) or of the folded name; create: make one
 * (the least recently used is reused when the table is full).  NULL if
 * none. */
static struct record *find(struct guard *g, const char *addr, const char *name, int64_t now, bool create)
{
	struct record *t = addr ? g->addrs : g->accounts, *victim = NULL, *victim_made_up = NULL;
	for (size_t i = 0; i < GUARD_ENTRIES; i++) {
		struct record *r = &t[i];
		if (r->used_ms != 0 && strcmp(addr ? r->addr : r->name, addr ? addr : name) == 0) {
			if (idle(g, r, now)) {
				/* Stale: start afresh. */
				memset(r, 0, sizeof *r);
				break;
			}
			r->used_ms = now;
			return r;
		}
		if (victim == NULL || r->used_ms < victim->used_ms)
			victim = r;
		if (!r->account && (victim_made_up == NULL || r->used_ms < victim_made_up->used_ms))
			victim_made_up = r;
	}
	if (!create)
		return NULL;
	struct record *r = NULL;
	for (size_t i = 0; i < GUARD_ENTRIES && r == NULL; i++)
		if (t[i].used_ms == 0)
			r = &t[i];
	/* Full: a made-up name's record goes first (names tried from thousands
	 * of addresses would otherwise push an account's window out). */
	if (r == NULL)
		r = victim_made_up != NULL ? victim_made_up : victim;
	memset(r, 0, sizeof *r);
	if (addr)
		snprintf(r->addr, sizeof r->addr, "%s", addr);
	else
		snprintf(r->name, sizeof r->name, "%s", name);
	r->used_ms = now > 0 ? now : 1;
	return r;
}

/* guard_hourly and guard_hourly_wait: count it (if allowed) or only ask. */
static int64_t hourly(struct guard *g, enum guard_hourly kind, const char *addr, int64_t now, bool count)
{
	int limit = kind == GUARD_REGISTER ? g->s.register_per_hour
	          : kind == GUARD_GUEST  ? g->s.guests_per_hour
	                                 : g->s.games_per_hour;
	if (limit <= 0)
		return 0;
	struct record *r = find(g, addr, NULL, now, count);
	if (r == NULL)
		return 0;
	if (r->hour_count[kind] == 0 || now - r->hour_start_ms[kind] >= HOUR_MS) {
		r->hour_start_ms[kind] = now;
		r->hour_count[kind] = 0;
	}
	if (r->hour_count[kind] >= limit)
		return r->hour_start_ms[kind] + HOUR_MS - now;
	r->hour_count[kind] += count;
	return 0;
}

int64_t guard_hourly(struct guard *g, enum guard_hourly kind, const char *addr, int64_t now)
{
	return hourly(g, kind, addr, now, true);
}

int64_t guard_hourly_wait(struct guard *g, enum guard_hourly kind, const char *addr, int64_t now)
{
	return hourly(g, kind, addr, now, false);
}

void guard_hourly_refund(struct guard *g, enum guard_hourly kind, const char *addr, int64_t now)
{
	struct record *r = find(g, addr, NULL, now, false);
	if (r != NULL && r->hour_count[kind] > 0 && now - r->hour_start_ms[kind] < HOUR_MS)
		r->hour_count[kind]--;
}

static bool failing(const struct guard *g, const struct record *r, int64_t now)
{
	return r && r->fails > 0 && now - r->last_fail_ms < g->s.login_failure_memory_ms;
}

int64_t guard_login_check(struct guard *g, const char *addr, const char *name, int64_t now)
{
	struct record *a = find(g, addr, NULL, now, false);
	int64_t wait = 0;
	if (a && a->until_ms > now)
		wait = a->until_ms - now;
	/* The name's window binds only an address that failed recently. */
	if (failing(g, a, now)) {
		char key[GUARD_NAME_MAX];
		fold(key, name);
		struct record *u = find(g, NULL, key, now, false);
		if (u && u->until_ms - now > wait)
			wait = u->until_ms - now;
	}
	return wait;
}

static void fail(const struct guard *g, struct record *r, int64_t now)
{
	if (!failing(g, r, now))
		r->fails = 0;
	r->fails++;
	r->last_fail_ms = now;
	int extra = r->fails - g->s.login_free_failures;
	if (extra <= 0)
		return;
	int64_t w = g->s.login_backoff_ms;
	for (int i = 1; i < extra && w < g->s.login_backoff_max_ms; i++)
		w *= 2;
	if (w > g->s.login_backoff_max_ms)
		w = g->s.login_backoff_max_ms;
	r->until_ms = now + w;
}

void guard_login_failed(struct guard *g, const char *addr, const char *name, bool account, int64_t now)
{
	char key[GUARD_NAME_MAX];
	fold(key, name);
	struct record *a = find(g, addr, NULL, now, true);
	if (!failing(g, a, now)) {
		memset(a->fail_names, 0, sizeof a->fail_names);
		a->fail_overflow = false;
	}
	size_t i = 0;
	while (i < GUARD_ADDR_NAMES && a->fail_names[i].fails > 0 && strcmp(a->fail_names[i].name, key) != 0)
		i++;
	if (i == GUARD_ADDR_NAMES) {
		a->fail_overflow = true;
	} else {
		snprintf(a->fail_names[i].name, sizeof a->fail_names[i].name, "%s", key);
		a->fail_names[i].fails++;
	}
	fail(g, a, now);
	/* every name has its record, an account's or not: a window that only
	 * accounts had would tell which names are accounts */
	struct record *u = find(g, NULL, key, now, true);
	u->account |= account;
	fail(g, u, now);
}

void guard_login_ok(struct guard *g, const char *addr, const char *name, int64_t now)
{
	char key[GUARD_NAME_MAX];
	fold(key, name);
	struct record *a = find(g, addr, NULL, now, false);
	/* Only its own name's failures are forgiven (a typo; several members
	 * behind one address each forgiven theirs): a guesser's address that
	 * logs in to an account of its own between guesses keeps every guess
	 * counted. */
	if (a == NULL || a->fail_overflow)
		return;
	for (size_t i = 0; i < GUARD_ADDR_NAMES; i++)
		if (a->fail_names[i].fails > 0 && strcmp(a->fail_names[i].name, key) == 0) {
			a->fails -= a->fail_names[i].fails < a->fails ? a->fail_names[i].fails : a->fails;
			a->fail_names[i].fails = 0;
			if (a->fails == 0)
				a->until_ms = 0;
		}
}

bool guard_log_allow(const struct guard_settings *s, struct guard_log_limit *l, int64_t now,
                     unsigned *suppressed)
{
	if (now < l->next_ms) {
		l->suppressed++;
		return false;
	}
	*suppressed = l->suppressed;
	l->suppressed = 0;
	l->next_ms = now + s->log_repeat_ms;
	return true;
}
