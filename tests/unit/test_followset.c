/*
 * test_followset.c — server/followset.c against a model: random follows,
 * unfollows (one user or all) and closes over many connections and users;
 * after every step each connection's list and each user's followers are
 * the model's, in the model's order (oldest first), and the count is.
 * Then the bound: only the connection's own; a server-wide cap of 65,536
 * had let 2,048 connections make `follow` answer `busy` to everyone
 * (memory probe), so 4,096 connections of 32 follows each all hold.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "followset.h"

#define T_CONNS 40
#define T_USERS 25
#define T_MAX 6
#define T_STEPS 6000

/* The model: each connection's follows in order. */
struct mconn {
	int64_t user[T_MAX];
	int n;
};
static struct mconn model[T_CONNS + 1];
static long long order[T_CONNS + 1][T_USERS + 1];   /* when each follow was made */
static long long clock_now;

struct seen {
	uint64_t conn[T_CONNS * T_USERS];
	int64_t user[T_CONNS * T_USERS];
	char name[T_CONNS * T_USERS][40];
	size_t n;
};

static void record(uint64_t conn, int64_t user, const char *name, void *arg)
{
	struct seen *s = arg;
	s->conn[s->n] = conn;
	s->user[s->n] = user;
	snprintf(s->name[s->n], sizeof s->name[0], "%s", name);
	s->n++;
}

static void check_model(const struct followset *fs)
{
	size_t total = 0;
	for (uint64_t c = 1; c <= T_CONNS; c++) {
		struct seen s = { .n = 0 };
		followset_each_of_conn(fs, c, record, &s);
		ck_assert_uint_eq(s.n, (size_t)model[c].n);
		for (int i = 0; i < model[c].n; i++) {
			char want[40];
			snprintf(want, sizeof want, "user%lld", (long long)model[c].user[i]);
			ck_assert(s.conn[i] == c && s.user[i] == model[c].user[i]);
			ck_assert_str_eq(s.name[i], want);
		}
		total += s.n;
	}
	ck_assert_uint_eq(followset_count(fs), total);
	for (int64_t u = 1; u <= T_USERS; u++) {
		struct seen s = { .n = 0 };
		followset_each_follower(fs, u, record, &s);
		size_t want = 0;
		long long last = -1;
		for (uint64_t c = 1; c <= T_CONNS; c++)
			for (int i = 0; i < model[c].n; i++)
				want += model[c].user[i] == u;
		ck_assert_uint_eq(s.n, want);
		for (size_t i = 0; i < s.n; i++) {   /* each a follow of the model's, oldest first */
			ck_assert(s.user[i] == u);
			bool found = false;
			for (int k = 0; k < model[s.conn[i]].n; k++)
				found |= model[s.conn[i]].user[k] == u;
			ck_assert(found);
			ck_assert(order[s.conn[i]][u] > last);
			last = order[s.conn[i]][u];
		}
	}
}

static void model_drop(uint64_t c, int64_t u)
{
	int k = 0;
	for (int i = 0; i < model[c].n; i++)
		if (u && model[c].user[i] != u)
			model[c].user[k++] = model[c].user[i];
	model[c].n = k;
}

START_TEST(against_a_model)
{
	struct followset *fs = followset_new();
	srand(7);
	memset(model, 0, sizeof model);
	for (int step = 0; step < T_STEPS; step++) {
		uint64_t c = 1 + (uint64_t)(rand() % T_CONNS);
		int64_t u = 1 + rand() % T_USERS;
		int op = rand() % 10;
		if (op < 6) {
			char name[40];
			snprintf(name, sizeof name, "user%lld", (long long)u);
			bool known = false;
			for (int i = 0; i < model[c].n; i++)
				known |= model[c].user[i] == u;
			int want = known ? FOLLOW_KNOWN : model[c].n == T_MAX ? FOLLOW_FULL : FOLLOW_ADDED;
			ck_assert_int_eq(followset_check(fs, c, u, T_MAX), want);
			ck_assert_int_eq(followset_add(fs, c, u, name, T_MAX), want);
			if (want == FOLLOW_ADDED) {
				model[c].user[model[c].n++] = u;
				order[c][u] = ++clock_now;
			}
		} else if (op < 8) {
			int before = model[c].n;
			model_drop(c, u);
			ck_assert_uint_eq(followset_drop(fs, c, u), (size_t)(before - model[c].n));
		} else {   /* a close, or an unfollow of everyone */
			size_t before = (size_t)model[c].n;
			model[c].n = 0;
			ck_assert_uint_eq(followset_drop(fs, c, 0), before);
		}
		check_model(fs);
	}
	followset_free(fs);   /* with follows in it: ASan says if any leaks */
	followset_free(NULL);
}
END_TEST

START_TEST(bounded_per_connection_only)
{
	enum { CONNS = 4096, EACH = 32 };
	struct followset *fs = followset_new();
	for (uint64_t c = 1; c <= CONNS; c++)
		for (int64_t u = 1; u <= EACH; u++)
			ck_assert_int_eq(followset_add(fs, c, u, "someone", EACH), FOLLOW_ADDED);
	ck_assert_uint_eq(followset_count(fs), (size_t)CONNS * EACH);
	ck_assert_int_eq(followset_add(fs, 1, EACH + 1, "more", EACH), FOLLOW_FULL);
	ck_assert_int_eq(followset_add(fs, CONNS + 1, EACH + 1, "more", EACH), FOLLOW_ADDED);
	/* a name is cut at a user name's length */
	struct seen *s = calloc(1, sizeof *s);
	ck_assert_int_eq(followset_add(fs, CONNS + 2, 1, "abcdefghijklmnopqrstuvwxyz0123456789", EACH), FOLLOW_ADDED);
	followset_each_of_conn(fs, CONNS + 2, record, s);
	ck_assert_str_eq(s->name[0], "abcdefghijklmnopqrstuvwx");
	for (uint64_t c = 1; c <= CONNS; c += 2)
		ck_assert_uint_eq(followset_drop(fs, c, 0), EACH);
	ck_assert_uint_eq(followset_count(fs), (size_t)CONNS / 2 * EACH + 2);
	free(s);
	followset_free(fs);
}
END_TEST

static Suite *followset_suite(void)
{
	Suite *s = suite_create("followset");
	TCase *tc = tcase_create("followset");
	tcase_add_test(tc, against_a_model);
	tcase_add_test(tc, bounded_per_connection_only);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(followset_suite)
