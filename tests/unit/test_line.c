/*
 * test_line.c — an outgoing message encoded once (server/line.h): the
 * text and its '\n', shared references, and the encoding policy every
 * outgoing message goes through: an over-long response becomes an
 * `internal` error that keeps its id, an over-long event is dropped, and
 * nothing over the protocol's line is ever made into a line.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "line.h"
#include "proto.h"

static char *long_text(size_t n)
{
	char *s = malloc(n + 1);
	ck_assert_ptr_nonnull(s);
	memset(s, 'q', n);
	s[n] = '\0';
	return s;
}

START_TEST(test_text_and_references)
{
	struct line *l = line_encode(json_pack("{s:s, s:i}", "event", "moved", "ply", 3));
	ck_assert_ptr_nonnull(l);
	static const char want[] = "{\"event\":\"moved\",\"ply\":3}";
	ck_assert_uint_eq(line_len(l), strlen(want));
	ck_assert_int_eq(memcmp(line_text(l), want, strlen(want)), 0);
	ck_assert_int_eq(line_text(l)[line_len(l)], '\n');
	/* Shared: a second holder keeps it after the first lets go (ASan
	 * reports a use after free if the count is wrong). */
	struct line *other = line_ref(l);
	ck_assert_ptr_eq(other, l);
	line_unref(l);
	ck_assert_int_eq(memcmp(line_text(other), want, strlen(want)), 0);
	line_unref(other);
	line_unref(NULL);
	ck_assert_ptr_null(line_ref(NULL));

	struct line *t = line_new("{}", 2);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(memcmp(line_text(t), "{}\n", 3), 0);
	line_unref(t);
}
END_TEST

START_TEST(test_nothing_to_send)
{
	ck_assert_ptr_null(line_encode(NULL));
	ck_assert_ptr_null(line_encode(json_string("not an object")));
	ck_assert_ptr_null(line_new("", 0));
	/* The longest line the protocol allows is made; one byte more is not. */
	char *s = long_text(PROTO_LINE_MAX - 1);
	struct line *l = line_new(s, PROTO_LINE_MAX - 1);
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(line_len(l), PROTO_LINE_MAX - 1);
	line_unref(l);
	ck_assert_ptr_null(line_new(s, PROTO_LINE_MAX));
	free(s);
}
END_TEST

START_TEST(test_over_long)
{
	char *big = long_text(PROTO_LINE_MAX);
	/* A response: the requester learns it failed, with its own id, and no
	 * byte of what would have been sent. */
	struct line *l = line_encode(json_pack("{s:i, s:b, s:s}", "id", 41, "ok", 1, "text", big));
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_lt(line_len(l), 200);
	json_t *j = json_loadb(line_text(l), line_len(l), 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "id")), 41);
	ck_assert(json_is_false(json_object_get(j, "ok")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
	                 "internal");
	char text[200];   /* a line is not NUL-terminated */
	memcpy(text, line_text(l), line_len(l));
	text[line_len(l)] = '\0';
	ck_assert_ptr_null(strstr(text, "qqqq"));   /* none of the filler */
	json_decref(j);
	line_unref(l);
	/* An event: dropped. */
	ck_assert_ptr_null(line_encode(json_pack("{s:s, s:s}", "event", "chat", "text", big)));
	free(big);
}
END_TEST

static Suite *line_suite(void)
{
	Suite *s = suite_create("line");
	TCase *tc = tcase_create("line");
	tcase_add_test(tc, test_text_and_references);
	tcase_add_test(tc, test_nothing_to_send);
	tcase_add_test(tc, test_over_long);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(line_suite)
