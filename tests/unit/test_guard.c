/*
 * test_guard.c — the abuse bookkeeping (server/guard.c) with an injected
 * clock: registration rate, login back-off per address and per account,
 * the real user's way in from a clean address, forgetting, bounded logs.
 */
#include <check.h>
#include <stdio.h>

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

START_TEST(backoff_doubles_and_spares_a_clean_address)
{
	struct guard *g = fresh();
	int64_t t = 5000;
	/* Three free failures, then 2 s, 4 s, 8 s ... */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 7, t), 0);
		guard_login_failed(g, "10.0.0.9", 7, t);
	}
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 7, t), 0);
	guard_login_failed(g, "10.0.0.9", 7, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 7, t), 2000);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 99, t), 2000);   /* any account */
	t += 2000;
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 7, t), 0);
	guard_login_failed(g, "10.0.0.9", 7, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 7, t), 4000);
	/* The real user from a clean address: not held by the account's window. */
	ck_assert_int_eq(guard_login_check(g, "10.0.0.50", 7, t), 0);
	/* A second guesser's address, once it has failed, is held by it. */
	guard_login_failed(g, "10.0.0.51", 0, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.51", 7, t), 4000);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.51", 8, t), 0);
	/* Success clears the address; an hour without failures forgets all. */
	guard_login_ok(g, "10.0.0.51", t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.51", 7, t), 0);
	t += 3600 * 1000;
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 7, t), 0);
	guard_login_failed(g, "10.0.0.9", 7, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 7, t), 0);   /* free again */
	guard_free(g);
}
END_TEST

START_TEST(backoff_is_capped)
{
	struct guard *g = fresh();
	int64_t t = 1;
	for (int i = 0; i < 40; i++)
		guard_login_failed(g, "10.0.0.9", 0, t);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.9", 0, t), 15 * 60 * 1000);
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
			guard_login_failed(g, addr, 0, 10 + i);
	}
	ck_assert_int_gt(guard_login_check(g, addr, 0, 10 + GUARD_ENTRIES * 2), 0);
	ck_assert_int_eq(guard_login_check(g, "10.0.0.0", 0, 10 + GUARD_ENTRIES * 2), 0);
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
	tcase_add_test(tc, backoff_doubles_and_spares_a_clean_address);
	tcase_add_test(tc, backoff_is_capped);
	tcase_add_test(tc, tables_are_bounded);
	tcase_add_test(tc, log_lines_summarised);
	tcase_add_test(tc, settings);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(guard_suite)
