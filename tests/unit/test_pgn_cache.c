/*
 * test_pgn_cache.c — server/pgn_cache.c: a text is found only under the
 * key it was kept under (game, view, last seq); a record that grew
 * replaces its view's text; the texts read longest ago go first when the
 * entries or the bytes run out; a text too large is not kept; and, against
 * a model over random gets and puts, the cache never holds more than its
 * limits and every text it hands back is the one kept under that key.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pgn_cache.h"

static char *text(const char *fmt, int a, int b, int c, size_t pad)
{
	char head[64];
	int n = snprintf(head, sizeof head, fmt, a, b, c);
	char *t = malloc((size_t)n + pad + 1);
	memcpy(t, head, (size_t)n);
	memset(t + n, 'x', pad);
	t[(size_t)n + pad] = '\0';
	return t;
}

START_TEST(keys_views_and_growth)
{
	struct pgn_cache *pc = pgn_cache_new(4, 1 << 20);
	ck_assert_ptr_null(pgn_cache_get(pc, 7, 2, 100));
	pgn_cache_put(pc, 7, 2, 100, strdup("seven, view 2, 100"));
	ck_assert_str_eq(pgn_cache_get(pc, 7, 2, 100), "seven, view 2, 100");
	/* another view, another game, another length: not it */
	ck_assert_ptr_null(pgn_cache_get(pc, 7, 3, 100));
	ck_assert_ptr_null(pgn_cache_get(pc, 8, 2, 100));
	ck_assert_ptr_null(pgn_cache_get(pc, 7, 2, 101));
	pgn_cache_put(pc, 7, 3, 100, strdup("seven, view 3"));
	ck_assert_str_eq(pgn_cache_get(pc, 7, 2, 100), "seven, view 2, 100");
	ck_assert_str_eq(pgn_cache_get(pc, 7, 3, 100), "seven, view 3");
	/* the record grew: view 2's text is replaced, view 3's stays */
	pgn_cache_put(pc, 7, 2, 105, strdup("seven, view 2, 105"));
	ck_assert_ptr_null(pgn_cache_get(pc, 7, 2, 100));
	ck_assert_str_eq(pgn_cache_get(pc, 7, 2, 105), "seven, view 2, 105");
	ck_assert_uint_eq(pgn_cache_count(pc, NULL), 2);
	/* game 0 is nobody's */
	pgn_cache_put(pc, 0, 2, 100, strdup("none"));
	ck_assert_ptr_null(pgn_cache_get(pc, 0, 2, 100));
	pgn_cache_free(pc);
}
END_TEST

START_TEST(oldest_read_goes_first)
{
	size_t bytes;
	struct pgn_cache *pc = pgn_cache_new(3, 4000);
	pgn_cache_put(pc, 1, 0, 9, text("g%d v%d l%d", 1, 0, 9, 10));
	pgn_cache_put(pc, 2, 0, 9, text("g%d v%d l%d", 2, 0, 9, 10));
	pgn_cache_put(pc, 3, 0, 9, text("g%d v%d l%d", 3, 0, 9, 10));
	ck_assert_ptr_nonnull(pgn_cache_get(pc, 1, 0, 9));   /* 2 is now the oldest read */
	pgn_cache_put(pc, 4, 0, 9, text("g%d v%d l%d", 4, 0, 9, 10));
	ck_assert_ptr_null(pgn_cache_get(pc, 2, 0, 9));
	ck_assert_ptr_nonnull(pgn_cache_get(pc, 1, 0, 9));
	ck_assert_ptr_nonnull(pgn_cache_get(pc, 3, 0, 9));
	ck_assert_ptr_nonnull(pgn_cache_get(pc, 4, 0, 9));
	/* bytes: a text of 900 pushes out the oldest until it fits */
	pgn_cache_put(pc, 5, 0, 9, text("g%d v%d l%d", 5, 0, 9, 990));
	ck_assert_uint_le(pgn_cache_count(pc, &bytes), 3);
	ck_assert_uint_le(bytes, 4000);
	ck_assert_ptr_nonnull(pgn_cache_get(pc, 5, 0, 9));
	ck_assert_ptr_null(pgn_cache_get(pc, 1, 0, 9));
	/* a text over a quarter of the bytes is not kept */
	pgn_cache_put(pc, 6, 0, 9, text("g%d v%d l%d", 6, 0, 9, 1001));
	ck_assert_ptr_null(pgn_cache_get(pc, 6, 0, 9));
	/* and when it is a grown record's, the older text goes all the same */
	pgn_cache_put(pc, 5, 0, 10, text("g%d v%d l%d", 5, 0, 10, 1001));
	ck_assert_ptr_null(pgn_cache_get(pc, 5, 0, 9));
	pgn_cache_free(pc);
}
END_TEST

/* Random puts and gets against a model of what may be in. */
START_TEST(model)
{
	enum { GAMES = 6, VIEWS = 3, ENTRIES = 5, MAXB = 6000 };
	struct pgn_cache *pc = pgn_cache_new(ENTRIES, MAXB);
	int last[GAMES][VIEWS] = { { 0 } };   /* the newest length put, per key */
	unsigned seed = 99;
	for (int step = 0; step < 20000; step++) {
		int g = 1 + (int)(rand_r(&seed) % GAMES), v = (int)(rand_r(&seed) % VIEWS);
		if (rand_r(&seed) % 3 == 0) {
			int l = last[g - 1][v] + (int)(rand_r(&seed) % 2);
			last[g - 1][v] = l;
			pgn_cache_put(pc, g, (unsigned)v, l, text("g%d v%d l%d;", g, v, l, rand_r(&seed) % 1600));
		} else {
			int l = last[g - 1][v] - (int)(rand_r(&seed) % 2);
			const char *t = pgn_cache_get(pc, g, (unsigned)v, l);
			if (t != NULL) {
				char want[64];
				snprintf(want, sizeof want, "g%d v%d l%d;", g, v, l);
				ck_assert_msg(strncmp(t, want, strlen(want)) == 0, "%s under %s", t, want);
				ck_assert_int_eq(l, last[g - 1][v]);   /* never an older length's */
			}
		}
		size_t bytes;
		ck_assert_uint_le(pgn_cache_count(pc, &bytes), ENTRIES);
		ck_assert_uint_le(bytes, MAXB);
	}
	pgn_cache_free(pc);
}
END_TEST

static Suite *pgn_cache_suite(void)
{
	Suite *s = suite_create("pgn_cache");
	TCase *tc = tcase_create("pgn_cache");

	tcase_add_test(tc, keys_views_and_growth);
	tcase_add_test(tc, oldest_read_goes_first);
	tcase_add_test(tc, model);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(pgn_cache_suite)
