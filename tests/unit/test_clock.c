/*
 * test_clock.c — the chess clock with an injected "now": no sleeping, no
 * timing assertions, only arithmetic on the times we pass in.
 */
#include <check.h>

#include "check_main.h"
#include "clock.h"

START_TEST(untimed_never_flags)
{
	struct clock c;
	clock_init(&c, 0, 0, 0);
	ck_assert(!clock_timed(&c));
	clock_start(&c, 0, 1000);
	ck_assert_int_eq(clock_flagged(&c, 1000000000), -1);
	ck_assert_int_eq(clock_deadline(&c, 5000), -1);
	ck_assert_int_eq(clock_remaining(&c, 0, 5000), -1);
	clock_moved(&c, 6000);
	ck_assert_int_eq(c.running, -1);
}
END_TEST

START_TEST(fischer_runs_only_for_side_to_move)
{
	struct clock c;
	clock_init(&c, 60000, 2000, 0);
	ck_assert_int_eq(c.mode, CLOCK_FISCHER);
	clock_start(&c, 0, 10000);
	/* White thinks 5 s: refused tries do not stop the clock, only clock_moved does. */
	ck_assert_int_eq(clock_remaining(&c, 0, 15000), 55000);
	ck_assert_int_eq(clock_remaining(&c, 1, 15000), 60000);
	clock_moved(&c, 15000);
	/* White got the increment; Black now runs. */
	ck_assert_int_eq(clock_remaining(&c, 0, 15000), 57000);
	ck_assert_int_eq(c.running, 1);
	ck_assert_int_eq(clock_remaining(&c, 0, 99000), 57000);
	ck_assert_int_eq(clock_remaining(&c, 1, 25000), 50000);
	ck_assert_int_eq(clock_deadline(&c, 25000), 50000);
	clock_moved(&c, 25000);
	ck_assert_int_eq(clock_remaining(&c, 1, 25000), 52000);
	ck_assert_int_eq(clock_deadline(&c, 30000), 52000);
}
END_TEST

START_TEST(fischer_flag_falls)
{
	struct clock c;
	clock_init(&c, 1000, 0, 0);
	clock_start(&c, 0, 0);
	ck_assert_int_eq(clock_flagged(&c, 999), -1);
	ck_assert_int_eq(clock_deadline(&c, 400), 600);
	ck_assert_int_eq(clock_flagged(&c, 1000), 0);
	ck_assert_int_eq(clock_deadline(&c, 1500), 0);
	ck_assert_int_eq(clock_remaining(&c, 0, 1500), 0);
	/* Black's flag, after White moved in time. */
	clock_init(&c, 1000, 0, 0);
	clock_start(&c, 0, 0);
	clock_moved(&c, 300);
	ck_assert_int_eq(clock_flagged(&c, 1299), -1);
	ck_assert_int_eq(clock_flagged(&c, 1300), 1);
}
END_TEST

START_TEST(stop_freezes)
{
	struct clock c;
	clock_init(&c, 10000, 0, 0);
	clock_start(&c, 0, 0);
	clock_stop(&c, 4000);
	ck_assert_int_eq(clock_remaining(&c, 0, 100000), 6000);
	ck_assert_int_eq(clock_flagged(&c, 100000), -1);
	ck_assert_int_eq(clock_deadline(&c, 100000), -1);
	/* Time going backwards (a clock step) never adds time. */
	clock_start(&c, 1, 50000);
	ck_assert_int_eq(clock_remaining(&c, 1, 40000), 10000);
}
END_TEST

START_TEST(correspondence_refills)
{
	struct clock c;
	clock_init(&c, 300000, 5000, 3);
	ck_assert_int_eq(c.mode, CLOCK_CORRESPONDENCE);
	clock_start(&c, 0, 0);
	ck_assert_int_eq(clock_remaining(&c, 0, CLOCK_DAY_MS), 2 * CLOCK_DAY_MS);
	clock_moved(&c, 2 * CLOCK_DAY_MS);
	ck_assert_int_eq(clock_remaining(&c, 0, 2 * CLOCK_DAY_MS), 3 * CLOCK_DAY_MS);
	ck_assert_int_eq(clock_flagged(&c, 5 * CLOCK_DAY_MS - 1), -1);
	ck_assert_int_eq(clock_flagged(&c, 5 * CLOCK_DAY_MS), 1);
}
END_TEST

START_TEST(set_restores_readings)
{
	struct clock c;
	clock_init(&c, 60000, 0, 0);
	clock_start(&c, 0, 0);
	clock_set(&c, 1234, 5678);
	ck_assert_int_eq(c.running, -1);
	clock_start(&c, 1, 100);
	ck_assert_int_eq(clock_remaining(&c, 0, 200), 1234);
	ck_assert_int_eq(clock_remaining(&c, 1, 200), 5578);
}
END_TEST

/* An umpire's pause charges nobody and nobody flags, however long it
 * lasts; time added lands on its side; unpause starts the side to move. */
START_TEST(pause_charges_nothing)
{
	struct clock c;
	clock_init(&c, 60000, 0, 0);
	clock_start(&c, 0, 0);
	clock_pause(&c, 10000);
	ck_assert(clock_paused(&c));
	ck_assert_int_eq(clock_remaining(&c, 0, 10000000), 50000);
	ck_assert_int_eq(clock_flagged(&c, 10000000), -1);
	ck_assert_int_eq(clock_deadline(&c, 10000000), -1);
	clock_pause(&c, 20000000);    /* paused already: nothing */
	clock_add(&c, 1, 30000);
	ck_assert_int_eq(clock_remaining(&c, 1, 20000000), 90000);
	clock_unpause(&c, 0, 30000000);
	ck_assert(!clock_paused(&c));
	ck_assert_int_eq(clock_remaining(&c, 0, 30001000), 49000);
	clock_unpause(&c, 1, 30002000);  /* not paused: nothing */
	ck_assert_int_eq(c.running, 0);
}
END_TEST

/* clock_defer: the running side is not charged the ms deferred; a
 * stopped or paused clock, and the other side, are left alone. */
START_TEST(defer_charges_nobody)
{
	struct clock c;
	clock_init(&c, 60000, 0, 0);
	clock_start(&c, 0, 1000);
	clock_moved(&c, 2000);                /* White 59000, Black runs from 2000 */
	clock_defer(&c, 500);                 /* Black told at 2500 */
	ck_assert_int_eq(clock_remaining(&c, 1, 2500), 60000);
	ck_assert_int_eq(clock_remaining(&c, 1, 3500), 59000);
	ck_assert_int_eq(clock_remaining(&c, 0, 3500), 59000);
	clock_pause(&c, 4000);
	clock_defer(&c, 10000);
	ck_assert_int_eq(clock_remaining(&c, 1, 20000), 58500);
	clock_defer(&c, -5);
	clock_unpause(&c, 1, 20000);
	clock_defer(&c, -5);                  /* nothing back in time */
	ck_assert_int_eq(clock_remaining(&c, 1, 20000), 58500);
}
END_TEST

static Suite *clock_suite(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, untimed_never_flags);
	tcase_add_test(tc, fischer_runs_only_for_side_to_move);
	tcase_add_test(tc, fischer_flag_falls);
	tcase_add_test(tc, stop_freezes);
	tcase_add_test(tc, correspondence_refills);
	tcase_add_test(tc, set_restores_readings);
	tcase_add_test(tc, pause_charges_nothing);
	tcase_add_test(tc, defer_charges_nobody);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(clock_suite)
