/*
 * test_rating.c — Glicko-2 (server/rating.c) against the worked example of
 * Glickman's paper "Example of the Glicko-2 system": a player at
 * 1500 / 200 / 0.06 (tau 0.5) beats a 1400/30, loses to a 1550/100 and to
 * a 1700/300, and ends at 1464.06 / 151.52 / 0.05999.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "check_main.h"
#include "rating.h"
#include "ruleset.h"

START_TEST(glickman_example)
{
	struct rating p = { 1500, 200, 0.06 }, out;
	struct rating_game g[3] = {
		{ { 1400, 30, 0.06 }, 1 },
		{ { 1550, 100, 0.06 }, 0 },
		{ { 1700, 300, 0.06 }, 0 },
	};
	ck_assert_int_eq(rating_update(&p, g, 3, 0.5, &out), 0);
	/* The paper rounds its intermediate values (mu' = -0.2069) and so
	 * prints 1464.06; unrounded arithmetic gives 1464.0507, as every
	 * exact implementation does.  Both are 1464.05..1464.06. */
	ck_assert_msg(fabs(out.r - 1464.06) < 0.015, "r %f", out.r);
	ck_assert_msg(fabs(out.r - 1464.0507) < 0.001, "r %f", out.r);
	ck_assert_msg(fabs(out.rd - 151.52) < 0.005, "rd %f", out.rd);
	/* Printed as 0.05999; exactly 0.0599960. */
	ck_assert_msg(fabs(out.vol - 0.05999) < 0.00001, "vol %f", out.vol);
}
END_TEST

START_TEST(no_games_only_widens)
{
	struct rating p = { 1500, 200, 0.06 }, out;
	ck_assert_int_eq(rating_update(&p, NULL, 0, 0.5, &out), 0);
	ck_assert(out.r == 1500 && out.vol == 0.06);
	/* sqrt(phi^2 + sigma^2) on the Glicko-2 scale. */
	ck_assert(fabs(out.rd - 173.7178 * sqrt(pow(200 / 173.7178, 2) + 0.0036)) < 1e-9);
}
END_TEST

START_TEST(one_game_symmetry_and_floor)
{
	struct rating a = rating_initial(), b = rating_initial(), na, nb;
	ck_assert(rating_provisional(&a));
	ck_assert_int_eq(rating_game(&a, &b, 1.0, &na, &nb), 0);
	ck_assert(na.r > 1500 && nb.r < 1500);
	ck_assert(fabs((na.r - 1500) + (nb.r - 1500)) < 1e-9);   /* equal players: zero sum */
	ck_assert(na.rd < 350 && nb.rd < 350);
	/* A draw between equals moves nobody. */
	ck_assert_int_eq(rating_game(&a, &b, 0.5, &na, &nb), 0);
	ck_assert(fabs(na.r - 1500) < 1e-9 && fabs(nb.r - 1500) < 1e-9);
	/* Many games: the deviation settles at the floor, never below. */
	for (int i = 0; i < 500; i++) {
		ck_assert_int_eq(rating_game(&a, &b, i % 2 ? 1.0 : 0.0, &na, &nb), 0);
		a = na;
		b = nb;
	}
	ck_assert(a.rd >= RATING_RD_MIN && b.rd >= RATING_RD_MIN);
	ck_assert(!rating_provisional(&a));
}
END_TEST

START_TEST(bad_input_refused)
{
	struct rating p = { 1500, 200, 0.06 }, out;
	struct rating_game g = { { 1400, 30, 0.06 }, 1.5 };
	ck_assert_int_eq(rating_update(&p, &g, 1, 0.5, &out), -1);
	g.score = 1;
	g.opp.rd = 0;
	ck_assert_int_eq(rating_update(&p, &g, 1, 0.5, &out), -1);
	g.opp.rd = 30;
	p.vol = NAN;
	ck_assert_int_eq(rating_update(&p, &g, 1, 0.5, &out), -1);
	ck_assert_int_eq(rating_update(&p, NULL, 1, 0.5, &out), -1);
}
END_TEST

START_TEST(pools_by_family)
{
	ck_assert_str_eq(rating_pool("icc"), "icc");
	ck_assert_str_eq(rating_pool("nost"), "icc");
	ck_assert_str_eq(rating_pool("english"), "english");
	ck_assert_str_eq(rating_pool("insurance"), "english");
	ck_assert_str_eq(rating_pool("gollon"), "english");
	ck_assert_str_eq(rating_pool("future"), "future");
	/* Every pool, each once: the two families' heads and every rule set
	 * that is its own pool (the list stopped at english: who and profile
	 * then left out the others' ratings). */
	static const char *const want[] = { "icc", "english", "berkeley", "berkeley_any",
		                            "cincinnati", "rand", "crazykrieg" };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		ck_assert_str_eq(rating_pool_at(i), want[i]);
	ck_assert_ptr_null(rating_pool_at(sizeof want / sizeof want[0]));
	/* Every rule set's pool is listed. */
	for (size_t k = 0; k < ruleset_count(); k++) {
		const char *pool = rating_pool(ruleset_at(k)->name);
		bool listed = false;
		for (size_t i = 0; rating_pool_at(i) != NULL; i++)
			listed |= strcmp(rating_pool_at(i), pool) == 0;
		ck_assert_msg(listed, "pool %s not listed", pool);
	}
}
END_TEST

static Suite *rating_suite(void)
{
	Suite *s = suite_create("rating");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, glickman_example);
	tcase_add_test(tc, no_games_only_widens);
	tcase_add_test(tc, one_game_symmetry_and_floor);
	tcase_add_test(tc, bad_input_refused);
	tcase_add_test(tc, pools_by_family);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(rating_suite)
