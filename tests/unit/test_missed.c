/*
 * test_missed.c — server/missed.c: the games that ended while a player was
 * away.  A player keeps their newest per_user; at the server's bound the
 * player holding the most gives up their oldest, so one account's games
 * never push out another's (memory probe: one list of 10,000, oldest
 * first, let one account's abandoned games push out everyone's).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "missed.h"

struct got {
	int64_t game[16];
	char opponent[16][PROTO_NAME_MAX + 1];
	size_t n;
};

static void take_one(const struct missed_game *g, void *arg)
{
	struct got *t = arg;
	t->game[t->n] = g->game;
	snprintf(t->opponent[t->n], sizeof t->opponent[0], "%s", g->opponent);
	t->n++;
}

static void add(struct missed *m, int64_t user, int64_t game)
{
	struct missed_game g = { game, 1, 2, 3, "" };
	snprintf(g.opponent, sizeof g.opponent, "opp%lld", (long long)game);
	missed_add(m, user, &g);
}

/* user's games, taken (and so forgotten), as a string "a b c". */
static const char *taken(struct missed *m, int64_t user)
{
	static char s[256];
	struct got t = { .n = 0 };
	size_t n = missed_take(m, user, take_one, &t);
	ck_assert_uint_eq(n, t.n);
	s[0] = '\0';
	for (size_t i = 0; i < t.n; i++) {
		char opp[32];
		snprintf(opp, sizeof opp, "opp%lld", (long long)t.game[i]);
		ck_assert_str_eq(t.opponent[i], opp);
		snprintf(s + strlen(s), sizeof s - strlen(s), "%s%lld", i ? " " : "", (long long)t.game[i]);
	}
	ck_assert_uint_eq(missed_count_of(m, user), 0);
	return s;
}

START_TEST(a_players_newest_kept)
{
	struct missed *m = missed_new(3, 100);
	for (int64_t g = 1; g <= 5; g++)
		add(m, 7, g);
	add(m, 8, 50);
	ck_assert_uint_eq(missed_count(m), 4);
	ck_assert_uint_eq(missed_count_of(m, 7), 3);
	ck_assert_str_eq(taken(m, 7), "3 4 5");   /* oldest first, once */
	ck_assert_str_eq(taken(m, 7), "");
	ck_assert_str_eq(taken(m, 99), "");
	ck_assert_uint_eq(missed_count(m), 1);
	missed_free(m);   /* with one in it: ASan says if it leaks */
	missed_free(NULL);
}
END_TEST

START_TEST(one_player_cannot_push_out_others)
{
	struct missed *m = missed_new(4, 6);
	add(m, 2, 100);
	add(m, 3, 200);
	add(m, 4, 300);
	for (int64_t g = 1; g <= 20; g++)   /* the noisy account */
		add(m, 1, g);
	ck_assert_uint_eq(missed_count(m), 6);
	ck_assert_str_eq(taken(m, 2), "100");
	ck_assert_str_eq(taken(m, 3), "200");
	ck_assert_str_eq(taken(m, 4), "300");
	ck_assert_str_eq(taken(m, 1), "18 19 20");
	ck_assert_uint_eq(missed_count(m), 0);
	missed_free(m);
}
END_TEST

START_TEST(of_equals_the_oldest_goes)
{
	struct missed *m = missed_new(4, 4);
	add(m, 1, 10);
	add(m, 2, 20);
	add(m, 1, 11);
	add(m, 2, 21);
	add(m, 3, 30);   /* 1 and 2 hold two each: 1's oldest is older */
	ck_assert_str_eq(taken(m, 1), "11");
	add(m, 3, 31);
	add(m, 3, 32);   /* 2 and 3 hold two each: 2's oldest is older */
	add(m, 3, 33);   /* now 3 holds the most */
	ck_assert_str_eq(taken(m, 2), "21");
	ck_assert_str_eq(taken(m, 3), "31 32 33");
	/* the smallest bounds: each player's newest one, the server's one */
	missed_free(m);
	m = missed_new(1, 1);
	add(m, 1, 1);
	add(m, 1, 2);
	add(m, 2, 3);
	ck_assert_uint_eq(missed_count(m), 1);
	ck_assert_str_eq(taken(m, 1), "");
	ck_assert_str_eq(taken(m, 2), "3");
	missed_free(m);
}
END_TEST

static Suite *missed_suite(void)
{
	Suite *s = suite_create("missed");
	TCase *tc = tcase_create("missed");
	tcase_add_test(tc, a_players_newest_kept);
	tcase_add_test(tc, one_player_cannot_push_out_others);
	tcase_add_test(tc, of_equals_the_oldest_goes);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(missed_suite)
