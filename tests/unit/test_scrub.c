/*
 * test_scrub.c — proto/scrub.h: which characters are control characters,
 * that replacing them keeps lengths and UTF-8, that a JSON tree is scrubbed
 * at every depth but its keys, and that numbers are held to a range.
 */
#include <string.h>

#include <jansson.h>

#include "check_main.h"
#include "scrub.h"

START_TEST(control_characters_are_named)
{
	/* C0 but tab and newline, DEL, C1 as UTF-8 (two bytes, one character) */
	static const struct { const char *in, *out; size_t found; } cases[] = {
		{ "plain text", "plain text", 0 },
		{ "tab\tand\nnewline", "tab\tand\nnewline", 0 },
		{ "\x1b[2Jclear", "?[2Jclear", 1 },
		{ "bell\x07\r", "bell??", 2 },
		{ "del\x7f", "del?", 1 },
		{ "csi\xc2\x9b" "31m", "csi??31m", 1 },
		{ "c1 ends \xc2\x80 and \xc2\x9f", "c1 ends ?? and ??", 2 },
		/* not controls: U+00A0 (c2 a0), U+00DB (c3 9b: 9b is a continuation byte), é */
		{ "nbsp\xc2\xa0 \xc3\x9b \xc3\xa9", "nbsp\xc2\xa0 \xc3\x9b \xc3\xa9", 0 },
		/* a lone c2 at the end is not a C1 character */
		{ "end\xc2", "end\xc2", 0 },
		/* Regression (the client probe): bytes 0x80..0x9f outside a UTF-8
		 * sequence, C1 controls to a terminal in an 8-bit locale (9b CSI,
		 * 9d OSC, 90 DCS, 9c ST), reached `krieg --batch`'s output. */
		{ "\x9b" "2J", "?2J", 1 },
		{ "osc\x9d" "0;t\x9c dcs\x90", "osc?0;t? dcs?", 3 },
		{ "overlong \xc0\x9b", "overlong \xc0?", 1 },
		{ "cut \xe2\x82", "cut \xe2?", 1 },
		/* but not a continuation byte inside a sequence (the euro sign:
		 * e2 82 ac), nor a Latin-1 letter outside one */
		{ "euro\xe2\x82\xac caf\xe9", "euro\xe2\x82\xac caf\xe9", 0 },
		{ "\xf0\x9f\x98\x80 \xef\xbf\xbd", "\xf0\x9f\x98\x80 \xef\xbf\xbd", 0 },
		/* the bidi overrides (RLO U+202E, LRE U+202A, RLI U+2067, PDI U+2069),
		 * which reorder a line on screen (the client probe: a tell that
		 * reads backwards as a resignation) ... */
		{ "\xe2\x80\xae" "sngiser etihW", "???sngiser etihW", 1 },
		{ "a\xe2\x80\xaa" "b\xe2\x81\xa7" "c\xe2\x81\xa9", "a???b???c???", 3 },
		/* ... but not their neighbours: U+2029, U+202F, U+2065, U+206A */
		{ "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa",
		  "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa", 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[64];
		size_t n = strlen(cases[i].in);
		memcpy(buf, cases[i].in, n + 1);
		ck_assert_uint_eq(scrub_count(buf, n), cases[i].found);
		ck_assert_uint_eq(scrub_text(buf, n), cases[i].found);
		ck_assert_str_eq(buf, cases[i].out);
		ck_assert_uint_eq(scrub_count(buf, n), 0);
	}
	/* a NUL inside the length counts; the bytes after it are read */
	char nul[] = { 'a', '\0', 'b', 0x1b, '\0' };
	ck_assert_uint_eq(scrub_text(nul, 4), 2);
	ck_assert(memcmp(nul, "a?b?", 4) == 0);
}
END_TEST

START_TEST(json_strings_scrubbed_keys_kept)
{
	json_t *j = json_loads("{\"a\\u001b\":\"x\\u001by\",\"list\":[1,\"\\u0000z\",{\"deep\":[\"\\u009b\"]}],"
	                       "\"ok\":\"fine\",\"n\":3.5}", JSON_ALLOW_NUL, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_uint_eq(scrub_json(j), 3);
	char *out = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_str_eq(out, "{\"a\\u001B\":\"x?y\",\"list\":[1,\"?z\",{\"deep\":[\"??\"]}],\"n\":3.5,\"ok\":\"fine\"}");
	free(out);
	ck_assert_uint_eq(scrub_json(j), 0);
	json_decref(j);
	ck_assert_uint_eq(scrub_json(NULL), 0);
}
END_TEST

START_TEST(numbers_held_to_a_range)
{
	json_t *j = json_loads("[300000,1.5,3058e46,-1e300,\"9\",null,299999.6]", 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(scrub_ms(json_array_get(j, 0), 1), 300000);
	ck_assert_int_eq(scrub_ms(json_array_get(j, 1), 1000), 1500);
	ck_assert_int_eq(scrub_ms(json_array_get(j, 2), 1), SCRUB_MS_MAX);
	ck_assert_int_eq(scrub_ms(json_array_get(j, 2), 1000), SCRUB_MS_MAX);
	ck_assert_int_eq(scrub_ms(json_array_get(j, 3), 1000), -SCRUB_MS_MAX);
	ck_assert_int_eq(scrub_ms(json_array_get(j, 4), 1), 0);    /* a string is not a number */
	ck_assert_int_eq(scrub_ms(json_array_get(j, 5), 1), 0);
	ck_assert_int_eq(scrub_ms(json_array_get(j, 6), 1), 300000);
	ck_assert_int_eq(scrub_ms(NULL, 1), 0);
	json_decref(j);
}
END_TEST

static Suite *scrub_suite(void)
{
	Suite *s = suite_create("scrub");
	TCase *tc = tcase_create("scrub");
	tcase_add_test(tc, control_characters_are_named);
	tcase_add_test(tc, json_strings_scrubbed_keys_kept);
	tcase_add_test(tc, numbers_held_to_a_range);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(scrub_suite)
