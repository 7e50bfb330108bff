/*
 * test_friends.c — two friends across the internet (issue 10): games that
 * wait for their players, presence, and the login welcome.
 *
 *   correspondence_and_untimed_wait  both players of a correspondence game
 *                        and of an untimed one leave for longer than the
 *                        (short) grace of a timed game, which is lost by
 *                        abandonment meanwhile: the waiting games go on
 *   welcome_after_leaving  a login lists the games awaiting the player's
 *                        move (time left on a deadline), standing draw
 *                        offers, and games that ended while they were away
 *   away_and_back        opponent_away {game, color, until} / opponent_back
 *                        to the opponent and the spectators; no deadline
 *                        for a game that waits
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "harness.h"
#include "harness_game.h"

#define FRIENDS_CONFIG "rate_limit = 100000\nrate_burst = 100000\nabandon_grace = 300ms\n"

/* w seeks as white with these terms (stolen; NULL: untimed), b accepts. */
static json_int_t start_game(struct kp *w, struct kp *b, const char *rules, json_t *time)
{
	json_t *r;
	if (time)
		r = kc_ok(w->c, kc_req(w->c, "seek", "{s:s, s:s, s:o}", "rules", rules, "color", "white",
		                       "time", time));
	else
		r = kc_ok(w->c, kc_req(w->c, "seek", "{s:s, s:s}", "rules", rules, "color", "white"));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	r = kc_ok(b->c, kc_req(b->c, "accept", "{s:I}", "offer", offer));
	json_int_t game = json_integer_value(json_object_get(r, "game"));
	ck_assert_int_gt(game, 0);
	kc_event(w->c, "game_start");
	kc_event(b->c, "game_start");
	return game;
}

static void move(struct kp *p, json_int_t game, const char *m)
{
	kc_ok(p->c, kc_req(p->c, "move", "{s:I, s:s}", "game", game, "move", m));
}

/* The entry for game in a welcome list, or NULL. */
static json_t *entry(json_t *welcome, const char *list, json_int_t game)
{
	json_t *arr = json_object_get(welcome, list);
	ck_assert_msg(json_is_array(arr), "welcome without %s", list);
	for (size_t i = 0; i < json_array_size(arr); i++)
		if (json_integer_value(json_object_get(json_array_get(arr, i), "game")) == game)
			return json_array_get(arr, i);
	return NULL;
}

static void assert_live(struct kp *p, json_int_t game)
{
	json_t *r = kc_ok(p->c, kc_req(p->c, "game", "{s:I}", "game", game));
	ck_assert_msg(json_is_true(json_object_get(r, "live")), "game %lld is over", (long long)game);
}

START_TEST(correspondence_and_untimed_wait)
{
	struct kd *d = kd_start(FRIENDS_CONFIG);
	struct kp p[6];
	for (int i = 0; i < 6; i++)
		kp_guest(d, &p[i]);
	json_int_t corr = start_game(&p[0], &p[1], "icc", json_pack("{s:i}", "days", 3));
	json_int_t untimed = start_game(&p[2], &p[3], "icc", NULL);
	json_int_t timed = start_game(&p[4], &p[5], "icc", json_pack("{s:i, s:i}", "base", 600, "inc", 0));
	move(&p[0], corr, "e4");
	move(&p[2], untimed, "e4");
	move(&p[4], timed, "e4");
	for (int i = 0; i < 4; i++)
		kc_close(p[i].c);
	/* The timed game's grace runs out (the barrier: every grace armed
	 * before it has run out too). */
	kc_close(p[5].c);
	json_t *e = kc_event(p[4].c, "game_over");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), timed);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "abandoned");
	kt_sleep_ms(300);
	/* Both waiting games are still live and go on. */
	for (int i = 0; i < 4; i++)
		kp_resume(d, &p[i]);
	assert_live(&p[1], corr);
	assert_live(&p[3], untimed);
	move(&p[1], corr, "e5");
	move(&p[3], untimed, "e5");
	ck_assert(!kc_saw(p[0].c, "abandoned") && !kc_saw(p[1].c, "abandoned"));
	ck_assert(!kc_saw(p[2].c, "abandoned") && !kc_saw(p[3].c, "abandoned"));
	for (int i = 0; i < 5; i++)
		kc_close(p[i].c);
	kd_stop(d);
}
END_TEST

START_TEST(welcome_after_leaving)
{
	struct kd *d = kd_start(FRIENDS_CONFIG);
	struct kp a, b, c;
	kp_guest(d, &a);
	kp_guest(d, &b);
	kp_guest(d, &c);
	/* b plays black in a correspondence game (to move, with a draw offered
	 * to them) and white in a timed one that b will lose by staying away. */
	json_int_t corr = start_game(&a, &b, "icc", json_pack("{s:i}", "days", 2));
	json_int_t timed = start_game(&b, &c, "icc", json_pack("{s:i, s:i}", "base", 600, "inc", 0));
	move(&a, corr, "e4");
	kc_ok(a.c, kc_req(a.c, "draw", "{s:I, s:s}", "game", corr, "action", "offer"));
	kc_close(b.c);
	json_t *e = kc_event(c.c, "game_over");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), timed);
	ck_assert_str_eq(json_string_value(json_object_get(e, "result")), "0-1");

	kp_resume(d, &b);
	json_t *st = kc_event(b.c, "game_state");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "game")), corr);
	ck_assert_str_eq(json_string_value(json_object_get(st, "draw_offer")), "white");
	json_t *w = kc_event(b.c, "welcome");
	json_t *t = entry(w, "your_move", corr);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(json_string_value(json_object_get(t, "opponent")), a.name);
	json_int_t left = json_integer_value(json_object_get(t, "left"));
	ck_assert_msg(left > 2 * 86400000LL - 600000 && left <= 2 * 86400000LL, "left %lld",
	              (long long)left);
	json_t *o = entry(w, "draw_offers", corr);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_string_value(json_object_get(o, "by")), "white");
	json_t *x = entry(w, "ended", timed);
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(json_string_value(json_object_get(x, "result")), "0-1");
	ck_assert_str_eq(json_string_value(json_object_get(x, "reason")), "abandoned");
	/* Told once: the next login has nothing ended to report. */
	kp_resume(d, &b);
	w = kc_event(b.c, "welcome");
	ck_assert_ptr_null(entry(w, "ended", timed));
	/* The one whose move it is not is reminded of their own offer only. */
	kc_close(a.c);
	kp_resume(d, &a);
	kc_event(a.c, "game_state");
	w = kc_event(a.c, "welcome");
	ck_assert_int_eq(json_array_size(json_object_get(w, "your_move")), 0);
	ck_assert_int_eq(json_array_size(json_object_get(w, "ended")), 0);
	ck_assert_str_eq(json_string_value(json_object_get(entry(w, "draw_offers", corr), "by")), "white");
	/* Nothing to say (c: no live game, nothing ended while away): no welcome. */
	kc_close(c.c);
	kp_resume(d, &c);
	kc_no_game_event(c.c, "welcome");
	kc_close(a.c);
	kc_close(b.c);
	kc_close(c.c);
	kd_stop(d);
}
END_TEST

START_TEST(away_and_back)
{
	struct kd *d = kd_start("rate_limit = 100000\nrate_burst = 100000\n");
	struct kp w, b, s;
	kp_guest(d, &w);
	kp_guest(d, &b);
	kp_guest(d, &s);
	json_int_t timed = start_game(&w, &b, "icc", json_pack("{s:i, s:i}", "base", 600, "inc", 0));
	json_int_t corr = start_game(&w, &b, "english", json_pack("{s:i}", "days", 1));
	kc_ok(s.c, kc_req(s.c, "watch", "{s:I}", "game", timed));
	move(&w, timed, "e4");
	long long before = 0;
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		before = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	}
	kc_close(b.c);
	for (int k = 0; k < 2; k++) {
		json_t *e = kc_event(w.c, "opponent_away");
		json_int_t g = json_integer_value(json_object_get(e, "game"));
		ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
		if (g == timed) {
			/* The default 60 s grace, as a wall-clock deadline. */
			long long until = json_integer_value(json_object_get(e, "until"));
			ck_assert_msg(until >= before + 59000 && until <= before + 70000, "until %lld", until);
		} else {
			ck_assert_int_eq(g, corr);
			ck_assert_ptr_null(json_object_get(e, "until"));   /* it waits: no deadline */
		}
	}
	json_t *e = kc_event(s.c, "opponent_away");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), timed);
	ck_assert_ptr_nonnull(json_object_get(e, "until"));
	/* The player coming back sees the opponent away in its own state. */
	kc_close(w.c);
	kp_resume(d, &w);
	json_t *st = kc_event(w.c, "game_state");
	ck_assert_ptr_nonnull(json_object_get(st, "opponent_away"));
	kp_resume(d, &b);
	for (int k = 0; k < 2; k++) {
		e = kc_event(w.c, "opponent_back");
		ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
	}
	/* The spectator saw White leave and come back too, then Black come back. */
	e = kc_event(s.c, "opponent_away");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
	e = kc_event(s.c, "opponent_back");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
	e = kc_event(s.c, "opponent_back");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), timed);
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
	kc_close(w.c);
	kc_close(b.c);
	kc_close(s.c);
	kd_stop(d);
}
END_TEST

static Suite *friends_suite(void)
{
	Suite *s = suite_create("friends");
	TCase *tc = tcase_create("waiting");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, correspondence_and_untimed_wait);
	tcase_add_test(tc, welcome_after_leaving);
	tcase_add_test(tc, away_and_back);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(friends_suite)
