/*
 * test_guard.c — the abuse bookkeeping (server/guard.c) with an injected
 * clock: registration rate, login back-off per address and per account,
 * the real user's way in from a clean address, forgetting, bounded logs.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "guard.h"

static struct guard *fresh(void)
{
	struct guard_settings s;
	guard_settings_default(&s);
	return guard_new(&s);
}

START_TEST(registration_rate)
{
	struct guard *g = fresh();
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(guard_hourly(g, GUARD_REGISTER, "10.0.0.1", 1000 + i), 0);
	ck_assert_int_eq(guard_hourly(g, GUARD_REGISTER, "10.0.0.1", 2000), 3600 * 1000 - 1000);
	ck_assert_int_eq(guard_hourly(g, GUARD_REGISTER, "10.0.0.2", 2000), 0);   /* another address */
	ck_assert_int_eq(guard_hourly(g, GUARD_REGISTER, "10.0.0.1", 1000 + 3600 * 1000), 0);   /* a new hour */
	guard_free(g);
}
END_TEST

/* Regression: `guest` again and again on a connection made guest accounts
 * without limit (the live count stayed one).  guests_per_hour (60) per
 * address, counted apart from registrations. */
START_TEST(guest_rate)
{
	struct guard *g = fresh();
	for (int i = 0; i < 60; i++)
		ck_assert_int_eq(guard_hourly(g, GUARD_GUEST, "10.0.0.1", 1000 + i), 0);
	ck_assert_int_eq(guard_hourly(g, GUARD_GUEST, "10.0.0.1", 2000), 3600 * 1000 - 1000);
	ck_assert_int_eq(guard_hourly(g, GUARD_REGISTER, "10.0.0.1", 2000), 0);   /* the other kind */
	ck_assert_int_eq(guard_hourly(g, GUARD_GUEST, "10.0.0.2", 2000), 0);
	guard_free(g);
}
END_TEST

/* games_per_hour (600) per address, counted apart from the other kinds;
 * guard_hourly_wait asks without counting (a refused start is not one). */
START_TEST(game_rate)
{
	struct guard *g = fresh();
	for (int i = 0; i < 600; i++) {
		ck_assert_int_eq(guard_hourly_wait(g, GUARD_GAME, "10.0.0.1", 1000 + i), 0);
		ck_assert_int_eq(guard_hourly(g, GUARD_GAME, "10.0.0.1", 1000 + i), 0);
	}
	ck_assert_int_eq(guard_hourly_wait(g, GUARD_GAME, "10.0.0.1", 2000), 3600 * 1000 - 1000);
	ck_assert_int_eq(guard_hourly(g, GUARD_GUEST, "10.0.0.1", 2000), 0);   /* another kind */
	ck_assert_int_eq(guard_hourly(g, GUARD_GAME, "10.0.0.2", 2000), 0);
	ck_assert_int_eq(guard_hourly(g, GUARD_GAME, "10.0.0.1", 1000 + 3600 * 1000), 0);   /* a new hour */
	guard_free(g);
}
END_TEST

START_TEST(backoff_doubles_and_spares_a_clean_address)
{
	struct guard *g = fresh();
	int64_t t = 5000;
	/* Three free failures, then 2 s, 4 s, 8 s ... */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "alice", t), 0);
		guard_login_failed(g, "10.0.0.9", "alice", true, t);
	}
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "alice", t), 0);
	guard_login_failed(g, "10.0.0.9", "Alice", true, t);   /* names match without case */
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "alice", t), 2000);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "bob", t), 2000);   /* any name */
	t += 2000;
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "ALICE", t), 0);
	guard_login_failed(g, "10.0.0.9", "alice", true, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "alice", t), 4000);
	/* The real user from a clean address: not held by the name's window. */
	ck_assert_int_eq(guard_login_check(g, "10.0.0.50", "alice", t), 0);
	/* A second guesser's address, once it has failed, is held by it (its
	 * failure the name's sixth: 8 s). */
	guard_login_failed(g, "10.0.0.51", "alice", true, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.51", "alice", t), 8000);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.51", "bob", t), 0);
	/* Success as the name it failed on clears the address (a typo); an
	 * hour without failures forgets all. */
	guard_login_ok(g, "10.0.0.51", "alice", t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.51", "alice", t), 0);
	t += 3600 * 1000;
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "alice", t), 0);
	guard_login_failed(g, "10.0.0.9", "alice", true, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "alice", t), 0);   /* free again */
	guard_free(g);
}
END_TEST

/*
 * Regression (accounts probe): a guesser logging in to an account of its
 * own between guesses at another's was never held: each success cleared
 * its address's failures, and the target's window binds only an address
 * that is failing.  Twelve guesses, each followed by its own login, all
 * reached the hash.  A success forgives only failures against its own name.
 */
START_TEST(own_login_between_guesses_forgives_none)
{
	struct guard *g = fresh();
	int64_t t = 5000;
	int refused = 0;
	for (int i = 0; i < 12; i++, t += 10) {
		if (guard_login_check(g, "10.0.0.120", "bob5", t) > 0) {
			refused++;
		} else {
			guard_login_failed(g, "10.0.0.120", "bob5", true, t);
		}
		guard_login_ok(g, "10.0.0.120", "alice", t);   /* its own account */
	}
	ck_assert_int_eq(refused, 12 - 4);   /* three free failures, the fourth opens the window */
	ck_assert_int_gt(guard_login_check(g, "10.0.0.120", "alice", t), 0);   /* the address is held */
	/* failures on two names: a success as one of them forgives its own
	 * only (dave's stays: three more failures make the fourth) */
	guard_login_failed(g, "10.0.0.7", "carol", true, t);
	guard_login_failed(g, "10.0.0.7", "dave", true, t);
	guard_login_ok(g, "10.0.0.7", "carol", t);
	for (int i = 0; i < 2; i++)
		guard_login_failed(g, "10.0.0.7", "zed", false, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.7", "eve", t), 0);
	guard_login_failed(g, "10.0.0.7", "zed", false, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.7", "eve", t), 2000);
	/* failures on more names than the address keeps: none forgiven */
	for (int i = 0; i < GUARD_ADDR_NAMES + 1; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "name%d", i);
		guard_login_failed(g, "10.0.0.8", nm, false, t);
	}
	guard_login_ok(g, "10.0.0.8", "name0", t);
	ck_assert_int_gt(guard_login_check(g, "10.0.0.8", "eve", t), 0);
	guard_free(g);
}
END_TEST

/*
 * Members of a club behind one address (NAT): each mistypes a password,
 * then logs in; every one's success forgives that member's failure, in
 * whatever order they come, so the address is not held by typos already
 * mended (with a success forgiving only an address whose failures were all
 * on its own name, two members' interleaved typos stayed counted).
 */
START_TEST(members_behind_one_address_forgiven)
{
	struct guard *g = fresh();
	int64_t t = 5000;
	static const char *const members[] = { "alice", "bob", "carol" };
	for (int round = 0; round < 3; round++) {
		for (int m = 0; m < 3; m++)
			guard_login_failed(g, "192.0.2.1", members[m], true, t);
		for (int m = 2; m >= 0; m--) {
			ck_assert_int_eq(guard_login_check(g, "192.0.2.1", members[m], t), 0);
			guard_login_ok(g, "192.0.2.1", members[m], t);
		}
	}
	/* nothing held over: three free failures again */
	for (int i = 0; i < 3; i++)
		guard_login_failed(g, "192.0.2.1", "dave", true, t);
	ck_assert_int_eq(guard_login_check(g, "192.0.2.1", "erin", t), 0);
	guard_free(g);
}
END_TEST

/*
 * Regression (accounts probe): names that are no account had no window of
 * their own (failures were kept per account id, 0 for an unknown name), so
 * four addresses failing once each on a name, then a fifth try, answered
 * retry_after for an account and auth_failed for a name without one: an
 * account oracle.  Every name now has its window.
 */
START_TEST(unknown_names_have_windows_too)
{
	struct guard *g = fresh();
	int64_t t = 5000;
	const char *names[] = { "carol", "nosuchq" };   /* an account and not: the guard cannot tell */
	int64_t waits[2];
	for (int k = 0; k < 2; k++) {
		char addr[32];
		for (int i = 0; i < 4; i++) {
			snprintf(addr, sizeof addr, "10.%d.0.%d", k, i);
			guard_login_failed(g, addr, names[k], k == 0, t);
		}
		snprintf(addr, sizeof addr, "10.%d.0.0", k);
		waits[k] = guard_login_check(g, addr, names[k], t);
	}
	ck_assert_int_eq(waits[0], 2000);
	ck_assert_int_eq(waits[1], waits[0]);
	guard_free(g);
}
END_TEST

START_TEST(backoff_is_capped)
{
	struct guard *g = fresh();
	int64_t t = 1;
	for (int i = 0; i < 40; i++)
		guard_login_failed(g, "10.0.0.9", "nobody", false, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", "nobody", t), 15 * 60 * 1000);
	guard_free(g);
}
END_TEST

START_TEST(tables_are_bounded)
{
	struct guard *g = fresh();
	char addr[32];
	/* Many more addresses than records: the oldest are forgotten, the
	 * newest kept. */
	for (int i = 0; i < GUARD_ENTRIES * 2; i++) {
		snprintf(addr, sizeof addr, "10.%d.%d.%d", i >> 16 & 255, i >> 8 & 255, i & 255);
		for (int k = 0; k < 4; k++)
			guard_login_failed(g, addr, addr, false, 10 + i);   /* a made-up name each, too */
	}
	ck_assert_int_gt(guard_login_check(g, addr, "x", 10 + GUARD_ENTRIES * 2), 0);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.0", "x", 10 + GUARD_ENTRIES * 2), 0);
	guard_free(g);
}
END_TEST

/*
 * Regression (probe of the change above): with a record for every name
 * tried, made-up names from fresh addresses pushed an account's window out
 * of the full table (4096 of them: alice's 15-minute window was gone).  A
 * full table forgets made-up names first.
 */
START_TEST(made_up_names_do_not_evict_accounts)
{
	struct guard *g = fresh();
	int64_t t = 1000;
	char addr[48], name[32];
	for (int i = 0; i < 20; i++) {
		snprintf(addr, sizeof addr, "10.9.0.%d", i);
		guard_login_failed(g, addr, "alice", true, t);
	}
	int64_t before = guard_login_check(g, "10.9.0.0", "alice", t);
	ck_assert_int_gt(before, 0);
	for (int i = 0; i < 2 * GUARD_ENTRIES; i++) {
		snprintf(addr, sizeof addr, "2001:db8::%x", i);
		snprintf(name, sizeof name, "made-up-%d", i);
		guard_login_failed(g, addr, name, false, t + 1 + i);
	}
	/* a guesser's address that has failed (on anything) is still held */
	int64_t now = t + 1 + 2 * GUARD_ENTRIES;
	guard_login_failed(g, "10.9.9.9", "zzz", false, now);
	ck_assert_int_eq(guard_login_check(g, "10.9.9.9", "alice", now), before - (now - t));
	guard_free(g);
}
END_TEST

START_TEST(log_lines_summarised)
{
	struct guard *g = fresh();
	struct guard_log_limit l = { 0, 0 };
	unsigned n = 99;
	ck_assert(guard_log_allow(guard_settings(g), &l, 100, &n));
	ck_assert_uint_eq(n, 0);
	for (int i = 0; i < 50; i++)
		ck_assert(!guard_log_allow(guard_settings(g), &l, 200 + i, &n));
	ck_assert(guard_log_allow(guard_settings(g), &l, 100 + 10000, &n));
	ck_assert_uint_eq(n, 50);
	guard_free(g);
}
END_TEST

START_TEST(settings)
{
	struct guard_settings s;
	char err[128];
	guard_settings_default(&s);
	ck_assert_int_eq(guard_settings_set(&s, "login_backoff", "5s", err, sizeof err), 0);
	ck_assert_int_eq(s.login_backoff_ms, 5000);
	ck_assert_int_eq(guard_settings_set(&s, "register_per_hour", "0", err, sizeof err), 0);
	ck_assert_int_eq(guard_settings_set(&s, "register_per_hour", "-1", err, sizeof err), -1);
	ck_assert_int_eq(guard_settings_set(&s, "hash_queue_per_address", "0", err, sizeof err), -1);
	ck_assert_int_eq(guard_settings_set(&s, "max_connections", "5", err, sizeof err), 1);
	ck_assert_int_eq(s.ipv6_prefix, 64);
	ck_assert_int_eq(guard_settings_set(&s, "ipv6_prefix", "56", err, sizeof err), 0);
	ck_assert_int_eq(s.ipv6_prefix, 56);
	ck_assert_int_eq(guard_settings_set(&s, "ipv6_prefix", "31", err, sizeof err), -1);
	ck_assert_int_eq(guard_settings_set(&s, "ipv6_prefix", "129", err, sizeof err), -1);
	ck_assert_int_eq(s.ipv6_prefix, 56);
}
END_TEST

/* Regression: every per-address limit counted an IPv6 address alone, and a
 * subscriber picks any of the 2^64 addresses of its /64: a fresh address
 * for each guess, registration or connection slot passed them all. */
START_TEST(ipv6_counts_by_network)
{
	static const struct {
		const char *addr;
		int prefix;
		const char *key;
	} cases[] = {
		{ "203.0.113.7", 64, "203.0.113.7" },
		{ "2001:db8:1:2::7", 64, "2001:db8:1:2::/64" },
		{ "2001:db8:1:2:ffff:ffff:ffff:ffff", 64, "2001:db8:1:2::/64" },
		{ "2001:DB8:1:2:0:0:0:9", 64, "2001:db8:1:2::/64" },
		{ "2001:db8:1:3::7", 64, "2001:db8:1:3::/64" },
		{ "2001:db8:1:2ff::1", 56, "2001:db8:1:200::/56" },
		{ "2001:db8:1:2ff::1", 60, "2001:db8:1:2f0::/60" },
		{ "2001:db8:1:2ff::1", 63, "2001:db8:1:2fe::/63" },
		{ "2001:DB8::1", 128, "2001:db8::1" },
		{ "2001:db8::1", 127, "2001:db8::/127" },
		{ "::1", 64, "::/64" },
		{ "::ffff:203.0.113.7", 64, "203.0.113.7" },   /* a dual-stack listener's IPv4 client */
		{ "::ffff:203.0.113.7", 128, "203.0.113.7" },
		/* (probe) other forms an IPv4 address comes in: each its own */
		{ "::203.0.113.7", 64, "203.0.113.7" },
		{ "::ffff:0:203.0.113.8", 64, "203.0.113.8" },
		{ "64:ff9b::203.0.113.9", 64, "203.0.113.9" },
		{ "2002:cb00:7107:1::1", 64, "203.0.113.7" },   /* 6to4: its site is the IPv4 address */
		{ "2002:cb00:7107:2::1", 64, "203.0.113.7" },
		{ "?", 64, "?" },
		{ "not an address", 64, "not an address" },
	};
	char key[GUARD_ADDR_MAX];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		guard_addr_key(cases[i].addr, cases[i].prefix, key);
		ck_assert_msg(strcmp(key, cases[i].key) == 0, "%s /%d: %s, not %s", cases[i].addr,
		              cases[i].prefix, key, cases[i].key);
	}
	/* The longest: every bit of a /127 set. */
	guard_addr_key("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 127, key);
	ck_assert_str_eq(key, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127");
}
END_TEST

static Suite *guard_suite(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("core");
	/* Check's 4 s is short for tables_are_bounded (about a second under
	 * ASan) on a loaded machine: a fresh-clone CI run timed out there. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, registration_rate);
	tcase_add_test(tc, guest_rate);
	tcase_add_test(tc, game_rate);
	tcase_add_test(tc, backoff_doubles_and_spares_a_clean_address);
	tcase_add_test(tc, own_login_between_guesses_forgives_none);
	tcase_add_test(tc, members_behind_one_address_forgiven);
	tcase_add_test(tc, unknown_names_have_windows_too);
	tcase_add_test(tc, backoff_is_capped);
	tcase_add_test(tc, tables_are_bounded);
	tcase_add_test(tc, made_up_names_do_not_evict_accounts);
	tcase_add_test(tc, log_lines_summarised);
	tcase_add_test(tc, settings);
	tcase_add_test(tc, ipv6_counts_by_network);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(guard_suite)
