/*
 * test_speclist.c — a delayed game's spectators' list (server/speclist.h):
 * events kept in order with their ply and action, a player's coming back
 * folded into their going, and the cut of a failed commit by action.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "speclist.h"

/* The list's events' "text" (or "event") words, in order, into out. */
static void words(struct speclist *l, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; i < speclist_count(l); i++) {
		json_t *j = speclist_page_item(i, l);
		ck_assert_ptr_nonnull(j);
		ck_assert_ptr_null(json_object_get(j, "clock"));   /* a catch-up carries none */
		const char *w = json_string_value(json_object_get(j, "text"));
		if (w == NULL)
			w = json_string_value(json_object_get(j, "event"));
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", w);
		json_decref(j);
	}
}

/* An action's event: a chat of seq's at ply. */
static void said(struct speclist *l, const char *text, int ply, int seq)
{
	char line[128];
	snprintf(line, sizeof line,
	         "{\"event\":\"chat\",\"text\":\"%s\",\"ply\":%d,\"clock\":{\"white\":1,\"black\":2}}", text,
	         ply);
	speclist_push(l, line, strlen(line), ply, seq, -1);
}

/* col's going (away) or coming back, as watch.c lists it. */
static void presence(struct speclist *l, int col, bool away)
{
	json_t *m = json_pack("{s:s, s:i, s:i}", "event", away ? "opponent_away" : "opponent_back",
	                      "color", col, "ply", 0);
	if (away || !speclist_fold_back(l, col))
		speclist_push_json(l, m, away ? col : -1);
	json_decref(m);
}

START_TEST(test_order_ply_and_action)
{
	struct speclist *l = speclist_new();
	said(l, "one", 0, 2);
	said(l, "two", 1, 3);
	presence(l, 1, true);
	char got[256];
	words(l, got, sizeof got);
	ck_assert_str_eq(got, "one two opponent_away");
	ck_assert_int_eq(speclist_ply(l, 1), 1);
	ck_assert_int_eq(speclist_seq(l, 1), 3);
	ck_assert_int_eq(speclist_seq(l, 2), 0);   /* no action's */
	speclist_free(l);
	speclist_free(NULL);
}
END_TEST

/* A coming back with nothing listed since the going takes the going out;
 * with something between, it is listed. */
START_TEST(test_fold_back)
{
	struct speclist *l = speclist_new();
	said(l, "one", 0, 2);
	presence(l, 0, true);
	presence(l, 0, false);
	char got[256];
	words(l, got, sizeof got);
	ck_assert_str_eq(got, "one");
	presence(l, 0, true);
	said(l, "two", 0, 3);
	presence(l, 0, false);
	words(l, got, sizeof got);
	ck_assert_str_eq(got, "one opponent_away two opponent_back");
	presence(l, 1, true);
	presence(l, 0, false);   /* another colour's going is not folded */
	words(l, got, sizeof got);
	ck_assert_str_eq(got, "one opponent_away two opponent_back opponent_away opponent_back");
	speclist_free(l);
}
END_TEST

/*
 * Regression (a review): a failed commit cut the list back to its length
 * before the first failed action.  Black had left (the going last); an
 * action that lists nothing began (a private note), Black came back (the
 * going folded: one shorter), and a spectator's words, failing with it,
 * were listed where the going had been: the cut kept them.  By action,
 * they go, and the comings and goings between stay.
 */
START_TEST(test_cut_by_action)
{
	struct speclist *l = speclist_new();
	said(l, "kept", 0, 2);
	presence(l, 1, true);
	size_t before = speclist_count(l);   /* what the old cut went back to */
	/* action 3 (a private note) lists nothing */
	presence(l, 1, false);
	said(l, "never-said", 0, 4);
	ck_assert_uint_eq(speclist_count(l), before);   /* the words took the going's place */
	presence(l, 0, true);
	speclist_cut_from(l, 3);
	char got[256];
	words(l, got, sizeof got);
	ck_assert_str_eq(got, "kept opponent_away");
	ck_assert_int_eq(speclist_seq(l, 1), 0);
	/* the list goes on from there, its text intact */
	said(l, "after", 1, 3);
	words(l, got, sizeof got);
	ck_assert_str_eq(got, "kept opponent_away after");
	speclist_free(l);
}
END_TEST

/* An away's `left` read back less the time since it was listed. */
START_TEST(test_left_counts_down)
{
	json_t *m = json_pack("{s:s, s:i}", "event", "opponent_away", "left", 1000);
	speclist_left_since(m, 5000, 5300);
	ck_assert_int_eq(json_integer_value(json_object_get(m, "left")), 700);
	speclist_left_since(m, 5000, 9000);
	ck_assert_int_eq(json_integer_value(json_object_get(m, "left")), 0);
	json_decref(m);
}
END_TEST

static Suite *speclist_suite(void)
{
	Suite *s = suite_create("speclist");
	TCase *tc = tcase_create("speclist");
	tcase_add_test(tc, test_order_ply_and_action);
	tcase_add_test(tc, test_fold_back);
	tcase_add_test(tc, test_cut_by_action);
	tcase_add_test(tc, test_left_counts_down);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(speclist_suite)
