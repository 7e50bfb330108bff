/*
 * test_actions.c — one record action means one thing everywhere
 * (common/action.h).  Live play over the wire: a preference list or
 * "if quiet" sequence of 17 tries is refused whole and changes nothing,
 * never cut to 16 and played; 16 tries are played; an "e.p." item is
 * part of the try before it, so it does not count as a try of its own.
 * (Recovery: tests/unit/test_recover.c; krieg-referee pgn:
 * test_referee_cli.c; PGN: tests/unit/test_pgn.c.)
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "harness.h"
#include "harness_game.h"

#define FAST_CONFIG "rate_limit = 100000\nrate_burst = 100000\n"

static const char *const tries16[] = {
	"Na3", "Nc3", "Nf3", "Nh3", "a3", "a4", "b3", "b4",
	"c3", "c4", "d3", "d4", "e3", "e4", "f3", "f4",
};

static long long nost_game(struct kp *w, struct kp *b)
{
	json_t *r = kc_ok(w->c, kc_req(w->c, "seek", "{s:s, s:s}", "rules", "nost", "color", "white"));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	r = kc_ok(b->c, kc_req(b->c, "accept", "{s:I}", "offer", offer));
	long long g = json_integer_value(json_object_get(r, "game"));
	kc_event(w->c, "game_start");
	kc_event(b->c, "game_start");
	return g;
}

/* moves: the first n of tries16, then the extra items. */
static json_t *list_of(size_t n, const char *const *extra)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(tries16[i]));
	for (; extra && *extra; extra++)
		json_array_append_new(a, json_string(*extra));
	return a;
}

START_TEST(list_of_seventeen_is_refused_live)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = nost_game(&w, &b);
	static const char *const seventeenth[] = { "g3", NULL };

	json_t *l = list_of(16, seventeenth);
	kc_error(w.c, kc_req(w.c, "move", "{s:I, s:O}", "game", g, "moves", l), "bad_request");
	kc_error(w.c, kc_req(w.c, "quiet", "{s:I, s:O}", "game", g, "moves", l), "bad_request");
	json_decref(l);
	/* Nothing was played or announced: Black heard nothing, White still moves. */
	kc_no_event(b.c, "moved");
	kc_no_event(w.c, "move");
	kc_error(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", g, "move", "e5"), "not_your_turn");

	/* Sixteen tries are a list; the first legal one (Na3) is played. */
	l = list_of(16, NULL);
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:O}", "game", g, "moves", l));
	json_decref(l);
	json_t *m = kc_event(w.c, "move");
	ck_assert_str_eq(json_string_value(json_object_get(m, "move")), "b1a3");
	kc_event(b.c, "moved");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* 15 tries and an "e.p." item after the last: 17 items, 16 tries. */
START_TEST(ep_item_is_part_of_its_try)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	long long g = nost_game(&w, &b);
	static const char *const tail[] = { "f4", "e.p.", NULL };
	json_t *l = list_of(15, tail);
	ck_assert_int_eq(json_array_size(l), 17);
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:O}", "game", g, "moves", l));
	json_decref(l);
	json_t *m = kc_event(w.c, "move");
	ck_assert_str_eq(json_string_value(json_object_get(m, "move")), "b1a3");
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

static Suite *actions_suite(void)
{
	Suite *s = suite_create("actions");
	TCase *tc = tcase_create("actions");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, list_of_seventeen_is_refused_live);
	tcase_add_test(tc, ep_item_is_part_of_its_try);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(actions_suite)
