/*
 * test_jsonline.c — the daemon's line writer (proto/jsonline.h): exact
 * texts written out by hand, the same bytes and length as jansson's
 * json_dumpb(JSON_COMPACT) for random trees of every kind of value, a
 * buffer too small (the whole length reported, nothing written past its
 * end), and the trees it refuses.
 */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "jsonline.h"

#define TREES 20000
#define BUF_MAX 65536

static char *dump_new(const json_t *j, size_t *len)
{
	char *buf = malloc(BUF_MAX);
	ck_assert_ptr_nonnull(buf);
	*len = jsonline_dump(j, buf, BUF_MAX);
	ck_assert_msg(*len > 0 && *len <= BUF_MAX, "length %zu", *len);
	return buf;
}

static void assert_text(json_t *j, const char *want)
{
	size_t n;
	ck_assert_ptr_nonnull(j);
	char *got = dump_new(j, &n);
	ck_assert_msg(n == strlen(want) && memcmp(got, want, n) == 0, "got %.*s, want %s", (int)n,
	              got, want);
	free(got);
	json_decref(j);
}

START_TEST(test_exact_texts)
{
	assert_text(json_object(), "{}");
	assert_text(json_array(), "[]");
	assert_text(json_pack("{s:i, s:[b, b, n], s:{}}", "a", 1, "b", 1, 0, "c"),
	            "{\"a\":1,\"b\":[true,false,null],\"c\":{}}");
	/* Insertion order, not sorted. */
	assert_text(json_pack("{s:i, s:i, s:i}", "z", 1, "a", 2, "m", 3), "{\"z\":1,\"a\":2,\"m\":3}");
	assert_text(json_pack("[I, I, I, I]", (json_int_t)INT64_MIN, (json_int_t)INT64_MAX,
	                      (json_int_t)0, (json_int_t)-7),
	            "[-9223372036854775808,9223372036854775807,0,-7]");
	/* The escapes: short forms, \u00XX in capitals, '/' and DEL and UTF-8
	 * as they are. */
	assert_text(json_pack("[s]", "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f \xc3\xa9\xf0\x9f\x98\x80"),
	            "[\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001F\x7f \xc3\xa9\xf0\x9f\x98\x80\"]");
	/* A NUL inside a string, and escapes in a key. */
	json_t *o = json_object();
	json_object_set_new(o, "k\"\n", json_stringn("a\0b", 3));
	assert_text(o, "{\"k\\\"\\n\":\"a\\u0000b\"}");
	assert_text(json_pack("{s:f}", "x", 1.5), "{\"x\":1.5}");
}
END_TEST

/* ---- random trees --------------------------------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* Pieces a string is made of: plain text, everything jansson escapes,
 * bytes it does not, and UTF-8 of two, three and four bytes. */
static const char *const pieces[] = {
	"a", "move", " ", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x01", "\x1f", "\x7f",
	"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "e4", "Nf3", "0", "{", "}", "[", ":", ",",
};

static json_t *random_string(char *buf, size_t *len)
{
	size_t n = 0, parts = rnd(8);
	for (size_t i = 0; i < parts; i++) {
		const char *p = pieces[rnd(sizeof pieces / sizeof pieces[0])];
		size_t pl = strlen(p);
		memcpy(buf + n, p, pl);
		n += pl;
	}
	if (rnd(20) == 0)
		buf[n++] = '\0';
	*len = n;
	return json_stringn(buf, n);
}

static json_int_t random_integer(void)
{
	switch (rnd(5)) {
	case 0: return (json_int_t)rnd(10);
	case 1: return -(json_int_t)rnd(100000);
	case 2: return INT64_MIN + (json_int_t)rnd(3);
	case 3: return INT64_MAX - (json_int_t)rnd(3);
	default: return (json_int_t)(((uint64_t)rnd(UINT32_MAX) << 32) | rnd(UINT32_MAX));
	}
}

static json_t *random_value(int depth)
{
	char buf[8 * 8 + 1];
	size_t len;
	int kind = depth >= 5 ? 2 + (int)rnd(6) : (int)rnd(8);
	switch (kind) {
	case 0: {
		json_t *o = json_object();
		for (uint32_t i = rnd(6); i > 0; i--) {
			json_t *k = random_string(buf, &len);
			ck_assert_ptr_nonnull(k);
			json_decref(k);
			ck_assert_int_eq(json_object_setn_new(o, buf, len, random_value(depth + 1)), 0);
		}
		return o;
	}
	case 1: {
		json_t *a = json_array();
		for (uint32_t i = rnd(6); i > 0; i--)
			json_array_append_new(a, random_value(depth + 1));
		return a;
	}
	case 2:
	case 3: return random_string(buf, &len);
	case 4: return json_integer(random_integer());
	case 5: return rnd(10) == 0 ? json_real((double)random_integer() / 1024.0) : json_null();
	case 6: return json_true();
	default: return json_false();
	}
}

START_TEST(test_same_as_jansson)
{
	char *want = malloc(BUF_MAX), *got = malloc(BUF_MAX + 64);
	rng_state = 0x9e3779b97f4a7c15ULL;
	for (int t = 0; t < TREES; t++) {
		json_t *j = rnd(2) ? json_object() : json_array();
		for (uint32_t i = 1 + rnd(6); i > 0; i--) {
			if (json_is_object(j))
				json_object_set_new(j, i % 2 ? "event" : "k", random_value(1));
			else
				json_array_append_new(j, random_value(1));
		}
		size_t wn = json_dumpb(j, want, BUF_MAX, JSON_COMPACT);
		ck_assert_msg(wn > 0 && wn < BUF_MAX, "tree %d: jansson wrote %zu", t, wn);
		size_t gn = jsonline_dump(j, got, BUF_MAX);
		ck_assert_msg(gn == wn && memcmp(got, want, wn) == 0, "tree %d:\n got %.*s\nwant %.*s", t,
		              (int)gn, got, (int)wn, want);

		/* Too small a buffer: the whole length, and not a byte past it. */
		size_t small = rnd((uint32_t)wn);
		memset(got, 0x5a, small + 64);
		ck_assert_uint_eq(jsonline_dump(j, got, small), wn);
		for (size_t i = small; i < small + 64; i++)
			ck_assert_msg(got[i] == 0x5a, "tree %d: byte %zu written past %zu", t, i, small);
		json_decref(j);
	}
	free(want);
	free(got);
}
END_TEST

static json_t *nested(int depth)
{
	json_t *top = json_array(), *cur = top;
	for (int i = 1; i < depth; i++) {
		json_t *next = i % 2 ? json_object() : json_array();
		if (json_is_array(cur))
			json_array_append_new(cur, next);
		else
			json_object_set_new(cur, "n", next);
		cur = next;
	}
	return top;
}

START_TEST(test_refused)
{
	char buf[64];
	ck_assert_uint_eq(jsonline_dump(NULL, buf, sizeof buf), 0);
	json_t *s = json_string("x"), *i = json_integer(1);
	ck_assert_uint_eq(jsonline_dump(s, buf, sizeof buf), 0);
	ck_assert_uint_eq(jsonline_dump(i, buf, sizeof buf), 0);
	json_decref(s);
	json_decref(i);

	/* JSONLINE_DEPTH_MAX containers deep is written as jansson writes it;
	 * one more is refused. */
	char *want = malloc(BUF_MAX), *got = malloc(BUF_MAX);
	json_t *deep = nested(JSONLINE_DEPTH_MAX);
	size_t wn = json_dumpb(deep, want, BUF_MAX, JSON_COMPACT);
	ck_assert_uint_gt(wn, 0);
	ck_assert_uint_eq(jsonline_dump(deep, got, BUF_MAX), wn);
	ck_assert_int_eq(memcmp(got, want, wn), 0);
	json_decref(deep);
	deep = nested(JSONLINE_DEPTH_MAX + 1);
	ck_assert_uint_eq(jsonline_dump(deep, got, BUF_MAX), 0);
	json_decref(deep);
	free(want);
	free(got);
}
END_TEST

/* A line written piece by piece (what the server does for an event) is
 * what jsonline_dump writes for the same object; in a buffer too small
 * nothing goes past its end and the whole length is still counted. */
START_TEST(test_pieces)
{
	static const char ctl[] = "a\"b\\c\n\x01 \xc3\xa9";
	json_t *want = json_pack("{s:s, s:I, s:[s, s], s:{s:I, s:I}, s:b, s:s}", "event", "moved",
	                         "ply", (json_int_t)-9223372036854775807LL - 1, "audience", "white",
	                         "umpire", "clock", "white", (json_int_t)0, "black",
	                         (json_int_t)300000, "en_passant", 1, "say", ctl);
	char text[256];
	size_t n = jsonline_dump(want, text, sizeof text);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_lt(n, sizeof text);

	for (size_t size = 0; size <= n + 1; size++) {
		char buf[300];
		memset(buf, '#', sizeof buf);
		struct jsonline_out o = { .buf = buf, .size = size, .used = 0 };
		jsonline_put(&o, "{", 1);
		jsonline_put_key(&o, "event");
		jsonline_put_str(&o, "moved", 5);
		jsonline_put_key(&o, "ply");
		jsonline_put_int(&o, INT64_MIN);
		jsonline_put_key(&o, "audience");
		jsonline_put(&o, "[", 1);
		jsonline_put_str(&o, "white", 5);
		jsonline_put(&o, ",", 1);
		jsonline_put_str(&o, "umpire", 6);
		jsonline_put(&o, "]", 1);
		jsonline_put_key(&o, "clock");
		jsonline_put(&o, "{", 1);
		jsonline_put_key(&o, "white");
		jsonline_put_int(&o, 0);
		jsonline_put_key(&o, "black");
		jsonline_put_int(&o, 300000);
		jsonline_put(&o, "}", 1);
		jsonline_put_key(&o, "en_passant");
		jsonline_put(&o, "true", 4);
		jsonline_put_key(&o, "say");
		jsonline_put_str(&o, ctl, strlen(ctl));
		jsonline_put(&o, "}", 1);
		ck_assert_uint_eq(o.used, n);
		for (size_t i = size; i < sizeof buf; i++)
			ck_assert_msg(buf[i] == '#', "byte %zu written with size %zu", i, size);
		if (size >= n)
			ck_assert_int_eq(memcmp(buf, text, n), 0);
	}
	json_decref(want);
}
END_TEST

static Suite *jsonline_suite(void)
{
	Suite *s = suite_create("jsonline");
	TCase *tc = tcase_create("writer");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exact_texts);
	tcase_add_test(tc, test_same_as_jansson);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_pieces);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(jsonline_suite)
