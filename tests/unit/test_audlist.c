/*
 * test_audlist.c — what one audience of a live game was told
 * (server/audlist.h): lines kept as pushed, read back parsed without the
 * clock their live line carried, cut back after a failed commit, copied
 * for the reader thread, and shared by reference.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "audlist.h"
#include "check_main.h"

/* Item i of l as compact JSON (freed by the caller). */
static char *item_text(struct audlist *l, size_t i)
{
	json_t *j = audlist_item(i, l);
	ck_assert_ptr_nonnull(j);
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	return s;
}

static void assert_item(struct audlist *l, size_t i, const char *want)
{
	char *got = item_text(l, i);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_lines_read_back_without_clock)
{
	struct audlist *l = audlist_new();
	ck_assert_uint_eq(audlist_count(l), 0);
	static const char live[] = "{\"event\":\"moved\",\"game\":3,\"ply\":1,\"clock\":{\"white\":1,\"black\":2}}";
	audlist_push(l, live, strlen(live));
	json_t *notice = json_pack("{s:s, s:s, s:i}", "event", "umpire_note", "text", "hello", "ply", 1);
	ck_assert_int_eq(audlist_push_json(l, notice), 0);
	json_decref(notice);
	ck_assert_uint_eq(audlist_count(l), 2);
	assert_item(l, 0, "{\"event\":\"moved\",\"game\":3,\"ply\":1}");
	assert_item(l, 1, "{\"event\":\"umpire_note\",\"ply\":1,\"text\":\"hello\"}");
	audlist_unref(l);
}
END_TEST

/* A failed commit's lines go; what was pushed before stays, and what
 * comes after lands where they were. */
START_TEST(test_cut)
{
	struct audlist *l = audlist_new();
	for (int i = 0; i < 5; i++) {
		char line[32];
		int n = snprintf(line, sizeof line, "{\"n\":%d}", i);
		audlist_push(l, line, (size_t)n);
	}
	audlist_cut(l, 2);
	ck_assert_uint_eq(audlist_count(l), 2);
	audlist_cut(l, 7);   /* past the end: nothing */
	ck_assert_uint_eq(audlist_count(l), 2);
	audlist_push(l, "{\"n\":9}", 7);
	ck_assert_uint_eq(audlist_count(l), 3);
	assert_item(l, 1, "{\"n\":1}");
	assert_item(l, 2, "{\"n\":9}");
	audlist_cut(l, 0);
	ck_assert_uint_eq(audlist_count(l), 0);
	audlist_unref(l);
}
END_TEST

/* A copy of the first n is the list's own: what the original gains or
 * loses after does not touch it (the reader thread parses a copy while the
 * loop goes on). */
START_TEST(test_copy)
{
	struct audlist *l = audlist_new();
	for (int i = 0; i < 300; i++) {
		char line[32];
		int n = snprintf(line, sizeof line, "{\"n\":%d}", i);
		audlist_push(l, line, (size_t)n);
	}
	struct audlist *c = audlist_copy(l, 200);
	ck_assert_uint_eq(audlist_count(c), 200);
	audlist_cut(l, 10);
	for (int i = 0; i < 5000; i++)   /* moves the original's buffer */
		audlist_push(l, "{\"n\":-1}", 8);
	assert_item(c, 0, "{\"n\":0}");
	assert_item(c, 199, "{\"n\":199}");
	struct audlist *all = audlist_copy(c, 1000);   /* more than it holds: all of it */
	ck_assert_uint_eq(audlist_count(all), 200);
	struct audlist *none = audlist_copy(l, 0);
	ck_assert_uint_eq(audlist_count(none), 0);
	audlist_unref(none);
	audlist_unref(all);
	audlist_unref(c);
	audlist_unref(l);
}
END_TEST

/* Shared: a second holder keeps it after the first lets go (ASan reports
 * a use after free if the count is wrong). */
START_TEST(test_references)
{
	struct audlist *l = audlist_new();
	audlist_push(l, "{\"a\":1}", 7);
	struct audlist *other = audlist_ref(l);
	ck_assert_ptr_eq(other, l);
	audlist_unref(l);
	assert_item(other, 0, "{\"a\":1}");
	audlist_unref(other);
	audlist_unref(NULL);
}
END_TEST

static Suite *audlist_suite(void)
{
	Suite *s = suite_create("audlist");
	TCase *tc = tcase_create("audlist");
	tcase_add_test(tc, test_lines_read_back_without_clock);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_copy);
	tcase_add_test(tc, test_references);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(audlist_suite)
