/*
 * test_timectl.c — common/timectl.h: the time controls krieg and krieg-bot
 * read (the forms krieg's words_time writes among them), the ones they
 * refuse (what the server refuses, and what strtod() would have read:
 * hexadecimal, exponents, blanks, signs), the limits at their edges, and
 * that the locale's decimal comma changes nothing.
 */
#include <locale.h>
#include <string.h>

#include "check_main.h"
#include "timectl.h"

START_TEST(accepted_forms)
{
	static const struct {
		const char *t;
		enum timectl_kind kind;
		long long base, inc;
		int days;
	} ok[] = {
		{ "5+2", TIMECTL_FISCHER, 300000, 2000, 0 },
		{ "0.5+0", TIMECTL_FISCHER, 30000, 0, 0 },
		{ "1:40+0.5", TIMECTL_FISCHER, 100000, 500, 0 },
		{ "1:30.5+2", TIMECTL_FISCHER, 90500, 2000, 0 },
		{ "0:20", TIMECTL_FISCHER, 20000, 0, 0 },
		{ "0:01", TIMECTL_FISCHER, TIMECTL_BASE_MIN_MS, 0, 0 },
		{ "5", TIMECTL_FISCHER, 300000, 0, 0 },
		{ "10", TIMECTL_FISCHER, 600000, 0, 0 },
		{ "5+0.5", TIMECTL_FISCHER, 300000, 500, 0 },
		{ "5+0.25", TIMECTL_FISCHER, 300000, 250, 0 },
		{ "5+0.001", TIMECTL_FISCHER, 300000, 1, 0 },
		{ "0.05+1", TIMECTL_FISCHER, 3000, 1000, 0 },
		{ "2.50+0", TIMECTL_FISCHER, 150000, 0, 0 },
		{ "05+02", TIMECTL_FISCHER, 300000, 2000, 0 },
		{ "1440+600", TIMECTL_FISCHER, TIMECTL_BASE_MAX_MS, TIMECTL_INC_MAX_MS, 0 },
		{ "1439:59.999", TIMECTL_FISCHER, TIMECTL_BASE_MAX_MS - 1, 0, 0 },
		{ "1440:00", TIMECTL_FISCHER, TIMECTL_BASE_MAX_MS, 0, 0 },
		{ "0:59.999+0", TIMECTL_FISCHER, 59999, 0, 0 },
		{ "3d", TIMECTL_DAYS, 0, 0, 3 },
		{ "1d", TIMECTL_DAYS, 0, 0, TIMECTL_DAYS_MIN },
		{ "60d", TIMECTL_DAYS, 0, 0, TIMECTL_DAYS_MAX },
		{ "03d", TIMECTL_DAYS, 0, 0, 3 },
		{ "untimed", TIMECTL_UNTIMED, 0, 0, 0 },
		{ "none", TIMECTL_UNTIMED, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct timectl t = { .kind = TIMECTL_DAYS, .base_ms = -1, .inc_ms = -1, .days = -1 };
		ck_assert_msg(timectl_parse(ok[i].t, &t), "\"%s\" refused", ok[i].t);
		ck_assert_msg(t.kind == ok[i].kind, "\"%s\": kind %d", ok[i].t, (int)t.kind);
		ck_assert_msg(t.base_ms == ok[i].base && t.inc_ms == ok[i].inc && t.days == ok[i].days,
		              "\"%s\": %lld+%lld %dd", ok[i].t, t.base_ms, t.inc_ms, t.days);
	}
}
END_TEST

START_TEST(refused_forms)
{
	static const char *const bad[] = {
		"0.01+0",        /* 600 ms: under the server's second (strtod read it) */
		"0x10+0",        /* hexadecimal (strtod read 16) */
		"1e1+0",         /* an exponent (strtod read 10) */
		"0:00.5",        /* half a second */
		"1:60",          /* seconds under 60 */
		"1:059",         /* seconds of two digits (a review: read as 1:59) */
		"1:05x", "1:0.5",
		"5+601",         /* the increment's 600 s */
		"61d",           /* the days' 60 */
		"1441",          /* a day's 1440 minutes */
		"", "5+", "+5",
		"0", "0.0", "0+0", "0+5", "0d", "d", "3.0d", "3 d", "-3d", "+3d", "5+2d",
		".5+0", "5.+0", "0.5.5", "0,5+0", "1440.5", "1440:00.001", "1441:00", "0.1234567",
		"5++2", "5+-2", "-5+2", " 5+2", "5+2 ", "5 +2", "5+2+1", "5+1:00", "5+0.0001",
		"1:5", "1:4.5", "1.5:00", ":30", "1:", "1:+40", "1:0x", "1:40:00", "1:40+0.0001",
		"inf", "nan", "Untimed", "UNTIMED", "untimed ", "5min", "1e1", "0x10", "0.001",
		"99999999999999999999+0", "5+99999999999999999999", "99999999999999999999d",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct timectl t = { .kind = TIMECTL_DAYS, .base_ms = 7, .inc_ms = 8, .days = 9 };
		ck_assert_msg(!timectl_parse(bad[i], &t), "\"%s\" read: %lld+%lld %dd", bad[i], t.base_ms, t.inc_ms,
		              t.days);
		/* a refused word leaves *out as it was */
		ck_assert_msg(t.kind == TIMECTL_DAYS && t.base_ms == 7 && t.inc_ms == 8 && t.days == 9, "\"%s\"", bad[i]);
	}
}
END_TEST

/* The point is a point wherever the locale writes a comma (the client sets
 * the locale; strtod() would stop at the point there). */
START_TEST(decimal_point_in_any_locale)
{
	static const char *const locales[] = { "de_DE.UTF-8", "fr_FR.UTF-8", "ru_RU.UTF-8", "C.UTF-8", "C" };
	for (size_t i = 0; i < sizeof locales / sizeof locales[0]; i++) {
		if (!setlocale(LC_ALL, locales[i]))
			continue;
		struct timectl t;
		ck_assert_msg(timectl_parse("0.5+0.25", &t), "%s", locales[i]);
		ck_assert_int_eq(t.base_ms, 30000);
		ck_assert_int_eq(t.inc_ms, 250);
		ck_assert_msg(!timectl_parse("0,5+0", &t), "%s", locales[i]);
	}
	setlocale(LC_ALL, "C");
}
END_TEST

static Suite *timectl_suite(void)
{
	Suite *s = suite_create("timectl");
	TCase *tc = tcase_create("timectl");
	tcase_add_test(tc, accepted_forms);
	tcase_add_test(tc, refused_forms);
	tcase_add_test(tc, decimal_point_in_any_locale);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(timectl_suite)
