/*
 * test_stall.c — server/stall.c, the loop's standstills, on a real event
 * base whose loop is not run while the test sleeps (as a SIGSTOP would
 * leave it):
 *   no_standstill_within_a_beat  looks closer than STALL_BEAT_MS +
 *                        STALL_SLACK_MS apart are none: 0, no callback
 *   a_timer_notices_it_once  a look after a longer gap (a timer due
 *                        during the stop, stall.h) calls the callback once
 *                        with the gap less one beat, and returns that; the
 *                        next look finds none
 *   the_beat_notices_it  the beat's own timer, overdue, does the same when
 *                        the loop runs again
 */
#include <check.h>
#include <stdint.h>
#include <time.h>

#include <event2/event.h>

#include "check_main.h"
#include "mstime.h"
#include "stall.h"

struct heard {
	int calls;
	int64_t ms;
};

static void heard_cb(void *arg, int64_t ms)
{
	struct heard *h = arg;
	h->calls++;
	h->ms = ms;
}

/* The loop not run for ms (the daemon stopped). */
static void stand(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

#define GAP_MS (STALL_BEAT_MS + STALL_SLACK_MS + 300)

/* Each test's loop, its stall and what its callback heard (a checked
 * fixture: made before each test, freed after). */
static struct event_base *base;
static struct stall *s;
static struct heard h;

static void loop_up(void)
{
	base = event_base_new();
	h = (struct heard){ 0, 0 };
	s = stall_new(base, heard_cb, &h);
	ck_assert_ptr_nonnull(s);
}

static void loop_down(void)
{
	stall_free(s);
	event_base_free(base);
}

START_TEST(no_standstill_within_a_beat)
{
	ck_assert_int_eq(stall_check(NULL), 0);
	ck_assert_int_eq(stall_check(s), 0);
	stand(STALL_BEAT_MS / 2);
	ck_assert_int_eq(stall_check(s), 0);
	ck_assert_int_eq(h.calls, 0);
}
END_TEST

START_TEST(a_timer_notices_it_once)
{
	/* t0 before the stall's own last look (a look now): the fixture's
	 * came before t0, a millisecond tick earlier at times, and ms came
	 * out 1 over `most` (CI) */
	int64_t t0 = mstime_mono();
	ck_assert_int_eq(stall_check(s), 0);
	stand(GAP_MS);
	int64_t ms = stall_check(s);
	int64_t most = mstime_mono() - t0 - STALL_BEAT_MS;
	ck_assert_int_ge(ms, GAP_MS - STALL_BEAT_MS);
	ck_assert_int_le(ms, most);
	ck_assert_int_eq(h.calls, 1);
	ck_assert_int_eq(h.ms, ms);
	ck_assert_int_eq(stall_check(s), 0);
	ck_assert_int_eq(h.calls, 1);
}
END_TEST

START_TEST(the_beat_notices_it)
{
	stand(GAP_MS);
	/* The beat is overdue: the loop's next turn runs it. */
	event_base_loop(base, EVLOOP_ONCE);
	ck_assert_int_eq(h.calls, 1);
	ck_assert_int_ge(h.ms, GAP_MS - STALL_BEAT_MS);
	ck_assert_int_eq(stall_check(s), 0);
}
END_TEST

static Suite *stall_suite(void)
{
	Suite *suite = suite_create("stall");
	TCase *tc = tcase_create("stall");
	tcase_add_checked_fixture(tc, loop_up, loop_down);
	tcase_add_test(tc, no_standstill_within_a_beat);
	tcase_add_test(tc, a_timer_notices_it_once);
	tcase_add_test(tc, the_beat_notices_it);
	suite_add_tcase(suite, tc);
	return suite;
}

KRIEG_TEST_MAIN(stall_suite)
