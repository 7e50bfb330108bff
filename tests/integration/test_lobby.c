/*
 * test_lobby.c — who, seeks, challenges, accept/decline/cancel through a
 * real kriegd, and the requests the lobby must refuse.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "check_main.h"
#include "harness.h"
#include "harness_game.h"
#include "mstime.h"
#include "proto.h"

#define FAST_CONFIG "rate_limit = 100000\nrate_burst = 100000\n"

static json_t *find_by(json_t *arr, const char *key, const char *value)
{
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
		if (strcmp(json_string_value(json_object_get(x, key)), value) == 0)
			return x;
	return NULL;
}

START_TEST(who_lists_each_user_once)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b;
	kp_guest(d, &a);
	kp_guest(d, &b);
	struct kc *anon = kc_hello(d);
	kc_error(anon, kc_req(anon, "who", NULL), "not_logged_in");
	json_t *users = json_object_get(kc_ok(a.c, kc_req(a.c, "who", NULL)), "users");
	ck_assert_int_eq(json_array_size(users), 2);
	json_t *ua = find_by(users, "name", a.name);
	ck_assert_ptr_nonnull(ua);
	ck_assert_int_eq(json_integer_value(json_object_get(ua, "games")), 0);
	ck_assert_ptr_nonnull(find_by(users, "name", b.name));

	/* A game shows in the count. */
	json_int_t offer = json_integer_value(json_object_get(
		kc_ok(a.c, kc_req(a.c, "seek", NULL)), "offer"));
	kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer));
	users = json_object_get(kc_ok(b.c, kc_req(b.c, "who", NULL)), "users");
	ck_assert_int_eq(json_integer_value(json_object_get(find_by(users, "name", b.name), "games")), 1);
	kc_close(anon);
	kc_close(a.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* max_live_games: a game that would take a player past it does not start
 * (probe: two accounts made 400 untimed games they then left, live for
 * good); the offer stands, and once a game ends it may be taken. */
START_TEST(live_games_capped)
{
	struct kd *d = kd_start(FAST_CONFIG "max_live_games = 2\n");
	struct kp a, b, c;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bert");
	kp_register(d, &c, "cleo");
	json_int_t g1 = json_integer_value(json_object_get(kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer",
	        json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "seek", NULL)), "offer")))), "game"));
	kc_ok(c.c, kc_req(c.c, "accept", "{s:I}", "offer",
	                  json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "seek", NULL)), "offer"))));
	/* anna plays 2: cleo cannot take her seek, nor she bert's; a seek of
	 * bert's on the same terms does not meet hers, and is listed */
	json_int_t offer = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "seek", NULL)), "offer"));
	json_t *e = kc_error(c.c, kc_req(c.c, "accept", "{s:I}", "offer", offer), "illegal_action");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"), "message")),
	                 "anna plays 2 live games already (the server's max_live_games)");
	json_int_t theirs = json_integer_value(json_object_get(kc_ok(b.c, kc_req(b.c, "seek", NULL)), "offer"));
	e = kc_error(a.c, kc_req(a.c, "accept", "{s:I}", "offer", theirs), "illegal_action");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_object_get(e, "error"), "message")),
	                             "you play 2 live games"));
	/* anna's own seek on bert's terms is listed too, not refused as it
	 * was when it met one (probe) */
	json_t *mine = kc_ok(a.c, kc_req(a.c, "seek", NULL));
	ck_assert_ptr_null(json_object_get(mine, "game"));
	kc_ok(a.c, kc_req(a.c, "cancel", "{s:I}", "offer", json_integer_value(json_object_get(mine, "offer"))));
	/* the offers stand: listed; one game over, anna's seek is taken */
	json_t *s = kc_ok(c.c, kc_req(c.c, "seeks", NULL));
	ck_assert_int_eq(json_integer_value(json_object_get(s, "total")), 2);
	kc_ok(b.c, kc_req(b.c, "resign", "{s:I}", "game", g1));
	kc_ok(c.c, kc_req(c.c, "accept", "{s:I}", "offer", offer));
	kc_close(a.c);
	kc_close(b.c);
	kc_close(c.c);
	kd_stop(d);
}
END_TEST

START_TEST(seek_list_accept)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b, g;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bob");
	kp_guest(d, &g);
	json_t *r = kc_ok(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i, s:i}, s:s, s:b}", "rules", "nost",
	                              "time", "base", 300, "inc", 2, "color", "black", "rated", 1));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	json_t *offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 1);
	json_t *o = json_array_get(offers, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "offer")), offer);
	ck_assert_str_eq(json_string_value(json_object_get(o, "user")), a.name);
	ck_assert_str_eq(json_string_value(json_object_get(o, "rules")), "nost");
	ck_assert_str_eq(json_string_value(json_object_get(o, "color")), "black");
	ck_assert(json_is_true(json_object_get(o, "rated")));
	ck_assert_int_eq((int)json_number_value(json_object_get(json_object_get(o, "time"), "base")), 300);

	/* Not your own. */
	kc_error(a.c, kc_req(a.c, "accept", "{s:I}", "offer", offer), "illegal_action");
	/* Regression: guests played rated games (and filled the standings).
	 * Rated games are registered accounts': a guest's rated seek, its
	 * rated challenge or one to it, and its accepting a rated seek are
	 * refused, and change nothing. */
	kc_error(g.c, kc_req(g.c, "accept", "{s:I}", "offer", offer), "illegal_action");
	kc_error(g.c, kc_req(g.c, "seek", "{s:b}", "rated", 1), "illegal_action");
	kc_error(g.c, kc_req(g.c, "challenge", "{s:s, s:b}", "user", "anna", "rated", 1), "illegal_action");
	kc_error(a.c, kc_req(a.c, "challenge", "{s:s, s:b}", "user", g.name, "rated", 1), "illegal_action");
	kc_no_event(a.c, "challenge");
	kc_no_event(g.c, "challenge");
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(g.c, kc_req(g.c, "seeks", NULL)),
	                                                 "offers")), 1);
	kc_ok(g.c, kc_req(g.c, "seek", "{s:b}", "rated", 0));   /* unrated: as ever */
	r = kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer));
	long long game = json_integer_value(json_object_get(r, "game"));
	json_t *e = kc_event(a.c, "game_start");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), game);
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
	ck_assert_str_eq(json_string_value(json_object_get(e, "white")), b.name);
	ck_assert_str_eq(json_string_value(json_object_get(e, "rules")), "nost");
	e = kc_event(b.c, "game_start");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
	/* Gone once taken (the guest's unrated seek stays). */
	offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(offers, 0), "user")), g.name);
	kc_error(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer), "no_such_offer");
	kc_close(a.c);
	kc_close(b.c);
	kc_close(g.c);
	kd_stop(d);
}
END_TEST

START_TEST(challenge_decline_cancel_accept)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b, x;
	kp_guest(d, &a);
	kp_guest(d, &b);
	kp_guest(d, &x);
	json_t *r = kc_ok(a.c, kc_req(a.c, "challenge", "{s:s, s:s}", "user", b.name, "rules", "gollon"));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	json_t *e = kc_event(b.c, "challenge");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	ck_assert_str_eq(json_string_value(json_object_get(e, "user")), a.name);
	ck_assert_str_eq(json_string_value(json_object_get(e, "rules")), "gollon");
	/* A bystander neither sees nor takes it: a's challenge is answered, so
	 * anything it sent x is on x's stream before a ping's answer. */
	kc_no_event(x.c, "challenge");
	json_t *offers = json_object_get(kc_ok(x.c, kc_req(x.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 0);
	kc_error(x.c, kc_req(x.c, "accept", "{s:I}", "offer", offer), "no_such_offer");
	kc_error(x.c, kc_req(x.c, "decline", "{s:I}", "offer", offer), "no_such_offer");
	kc_error(x.c, kc_req(x.c, "cancel", "{s:I}", "offer", offer), "no_such_offer");
	/* Only the target declines; only the owner cancels. */
	kc_error(a.c, kc_req(a.c, "decline", "{s:I}", "offer", offer), "illegal_action");
	kc_error(b.c, kc_req(b.c, "cancel", "{s:I}", "offer", offer), "no_such_offer");
	kc_ok(b.c, kc_req(b.c, "decline", "{s:I}", "offer", offer));
	e = kc_event(a.c, "challenge_declined");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), b.name);
	kc_error(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer), "no_such_offer");

	/* Cancelled by the challenger. */
	r = kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", b.name));
	offer = json_integer_value(json_object_get(r, "offer"));
	kc_event(b.c, "challenge");
	kc_ok(a.c, kc_req(a.c, "cancel", "{s:I}", "offer", offer));
	e = kc_event(b.c, "challenge_cancelled");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	kc_error(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer), "no_such_offer");

	/* Accepted: a game with the challenger's colour. */
	r = kc_ok(a.c, kc_req(a.c, "challenge", "{s:s, s:s, s:{s:i}}", "user", b.name, "color",
	                      "white", "time", "days", 3));
	offer = json_integer_value(json_object_get(r, "offer"));
	kc_event(b.c, "challenge");
	r = kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer));
	e = kc_event(a.c, "game_start");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
	ck_assert_str_eq(json_string_value(json_object_get(e, "rules")), "icc");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(e, "time"), "days")), 3);
	kc_close(a.c);
	kc_close(b.c);
	kc_close(x.c);
	kd_stop(d);
}
END_TEST

/* Where the first line of c's holding needle is among every line it
 * received (-1: none). */
static long line_pos(struct kc *c, const char *needle)
{
	for (size_t i = 0; i < kc_nlines(c); i++)
		if (strstr(kc_line(c, i), needle) != NULL)
			return (long)i;
	return -1;
}

/*
 * Regression (the two-devices probe): a challenge answered on one
 * connection of its target stayed listed on the target's others: declined
 * on one, the other heard nothing (and its accept found no_such_offer);
 * accepted on one, the other heard only game_start.  Now each other
 * connection hears the challenge gone, challenge_cancelled with the
 * reason, and the one that answered only its answer.
 */
START_TEST(challenge_answered_on_one_device)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b;
	kp_guest(d, &a);
	kp_guest(d, &b);
	struct kc *b1 = b.c;
	kp_resume(d, &b);
	struct kc *b2 = b.c;

	/* Declined on b2. */
	json_int_t offer = json_integer_value(json_object_get(
		kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", b.name)), "offer"));
	kc_event(b1, "challenge");
	kc_event(b2, "challenge");
	kc_ok(b2, kc_req(b2, "decline", "{s:I, s:s}", "offer", offer, "reason", "not now"));
	json_t *e = kc_event(b1, "challenge_cancelled");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "declined");
	ck_assert_ptr_null(json_object_get(e, "game"));
	kc_no_event(b2, "challenge_cancelled");
	e = kc_event(a.c, "challenge_declined");
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "not now");
	kc_no_event(a.c, "challenge_cancelled");

	/* Accepted on b1: b2 hears the game start, then the challenge gone. */
	offer = json_integer_value(json_object_get(
		kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", b.name)), "offer"));
	kc_event(b1, "challenge");
	kc_event(b2, "challenge");
	json_int_t game = json_integer_value(json_object_get(
		kc_ok(b1, kc_req(b1, "accept", "{s:I}", "offer", offer)), "game"));
	kc_event(b2, "game_start");
	e = kc_event(b2, "challenge_cancelled");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "accepted");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), game);
	ck_assert(line_pos(b2, "\"game_start\"") < line_pos(b2, "\"accepted\""));
	kc_no_event(b1, "challenge_cancelled");
	kc_no_event(a.c, "challenge_cancelled");

	/* A rematch asked back on b2 takes a's rematch challenge: b1 hears it gone. */
	kc_ok(a.c, kc_req(a.c, "resign", "{s:I}", "game", game));
	offer = json_integer_value(json_object_get(
		kc_ok(a.c, kc_req(a.c, "rematch", "{s:I}", "game", game)), "offer"));
	kc_event(b1, "challenge");
	json_int_t again = json_integer_value(json_object_get(
		kc_ok(b2, kc_req(b2, "rematch", "{s:I}", "game", game)), "game"));
	e = kc_event(b1, "challenge_cancelled");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "accepted");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), again);
	kc_close(a.c);
	kc_close(b1);
	kc_close(b2);
	kd_stop(d);
}
END_TEST

START_TEST(seeks_vanish_with_last_connection)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b;
	kp_guest(d, &a);
	kp_guest(d, &b);
	kc_ok(a.c, kc_req(a.c, "seek", NULL));
	kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", b.name));
	kc_event(b.c, "challenge");
	json_t *offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 2);
	kc_close(a.c);
	/* The challenge's target hears it is gone; then the seek list is empty. */
	kc_event(b.c, "challenge_cancelled");
	offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 0);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* A correspondence challenge of a registered account waits for its
 * target while its owner is away (until KRIEGD_OFFER_WAIT_MS here); a
 * timed one, or a guest's, goes with its owner's last connection. */
START_TEST(correspondence_challenge_waits)
{
	/* 2 s, stretched like every wait of the harness: under valgrind the
	 * logins below (a password hash each) take longer than that. */
	const int64_t wait_ms = 2000LL * kt_timeout_scale();
	char wait[32];
	snprintf(wait, sizeof wait, "%lld", (long long)wait_ms);
	setenv("KRIEGD_OFFER_WAIT_MS", wait, 1);
	struct kd *d = kd_start(FAST_CONFIG);
	unsetenv("KRIEGD_OFFER_WAIT_MS");
	struct kp a, b, g;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bob");
	kc_close(b.c);   /* bob is away */
	json_int_t corr = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:s, s:{s:i}}", "user", "bob", "color", "white", "time", "days", 3)), "offer"));
	kc_ok(a.c, kc_req(a.c, "challenge", "{s:s, s:{s:i, s:i}}", "user", "bob", "time", "base", 300, "inc", 0));
	kc_close(a.c);   /* anna leaves too */
	kp_guest(d, &g);
	kc_ok(g.c, kc_req(g.c, "challenge", "{s:s, s:{s:i}}", "user", "bob", "time", "days", 3));
	kc_close(g.c);   /* a guest who left never comes back to play */

	/* bob comes by: the correspondence challenge is there, nothing else */
	kp_login(d, &b, "bob", "harness-password");
	json_t *e = kc_event(b.c, "challenge");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), corr);
	kc_no_event(b.c, "challenge");
	json_t *offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 1);
	json_int_t game = json_integer_value(json_object_get(
		kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer", corr)), "game"));
	e = kc_event(b.c, "game_start");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
	/* anna is away from the start, said as if she had left (bob was told
	 * nothing, and his view had no opponent_away: friends probe) */
	e = kc_event(b.c, "opponent_away");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), game);
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
	ck_assert_ptr_null(json_object_get(e, "until"));   /* by correspondence: no grace runs */
	json_t *view = kc_ok(b.c, kc_req(b.c, "game", "{s:I}", "game", game));
	ck_assert(json_is_object(json_object_get(view, "opponent_away")));
	/* anna comes back to a game she offered */
	struct kp a2;
	kp_login(d, &a2, "anna", "harness-password");
	e = kc_event(a2.c, "game_state");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), game);
	e = kc_event(b.c, "opponent_back");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");

	/* an unanswered one goes when its time is up, its target told; one
	 * from someone bob muted goes unheard, as it came */
	struct kp pest;
	kp_register(d, &pest, "pester");
	kc_ok(b.c, kc_req(b.c, "mute", "{s:s}", "user", "pester"));
	kc_ok(pest.c, kc_req(pest.c, "challenge", "{s:s, s:{s:i}}", "user", "bob", "time", "days", 1));
	kc_close(pest.c);
	json_int_t lapsing = json_integer_value(json_object_get(kc_ok(a2.c, kc_req(a2.c, "challenge",
		"{s:s, s:{s:i}}", "user", "bob", "time", "days", 1)), "offer"));
	kc_event(b.c, "challenge");
	kc_close(a2.c);
	/* told when it lapses, with nobody touching the lobby (a timer's sweep) */
	int64_t t0 = mstime_mono();
	e = kc_event(b.c, "challenge_cancelled");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), lapsing);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "lapsed");
	ck_assert_int_ge(mstime_mono() - t0, wait_ms * 3 / 4);   /* not before its time, less the round trips */
	offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 0);
	kc_no_event(b.c, "challenge_cancelled");
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Regression: a correspondence challenge that lapsed while its target
 * was away was swept by the target's own login, which then told the new
 * connection `challenge_cancelled` for an offer it was never shown.  The
 * timer's sweeps are made rare here, so the logins do the sweeping: the
 * connection that saw the challenge hears it lapse, the one logging in
 * hears nothing of it. */
START_TEST(lapsed_challenge_not_told_to_a_login)
{
	const int64_t wait_ms = 500LL * kt_timeout_scale();
	char wait[32];
	snprintf(wait, sizeof wait, "%lld", (long long)wait_ms);
	setenv("KRIEGD_OFFER_WAIT_MS", wait, 1);
	setenv("KRIEGD_OFFER_SWEEP_MS", "3600000", 1);
	struct kd *d = kd_start(FAST_CONFIG);
	unsetenv("KRIEGD_OFFER_WAIT_MS");
	unsetenv("KRIEGD_OFFER_SWEEP_MS");
	struct kp a, b, b2, b3;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bob");
	kc_close(b.c);   /* bob is away */
	kc_ok(a.c, kc_req(a.c, "challenge", "{s:s, s:{s:i}}", "user", "bob", "time", "days", 3));
	kc_close(a.c);
	kt_sleep_ms((int)wait_ms + 200);
	/* bob logs in after the 14 days: nothing of it */
	kp_login(d, &b, "bob", "harness-password");
	kc_no_event(b.c, "challenge");
	kc_no_event(b.c, "challenge_cancelled");
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)),
	                                                 "offers")), 0);

	/* one seen on bob's connection lapses at his second login: told there only */
	kp_login(d, &a, "anna", "harness-password");
	json_int_t corr = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:{s:i}}", "user", "bob", "time", "days", 3)), "offer"));
	kc_event(b.c, "challenge");
	kc_close(a.c);
	kt_sleep_ms((int)wait_ms + 200);
	kp_login(d, &b2, "bob", "harness-password");
	json_t *e = kc_event(b.c, "challenge_cancelled");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), corr);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "lapsed");
	kc_no_event(b2.c, "challenge");
	kc_no_event(b2.c, "challenge_cancelled");
	/* and it is gone for everyone */
	kp_login(d, &b3, "bob", "harness-password");
	kc_no_event(b3.c, "challenge");
	kc_no_event(b.c, "challenge_cancelled");
	kc_close(b.c);
	kc_close(b2.c);
	kc_close(b3.c);
	kd_stop(d);
}
END_TEST

/* Regression: a correspondence challenge waits up to two weeks for its
 * target, but lived in memory only, so any restart of the daemon (an
 * upgrade, a crash) lost it without a word to either player.  Stored now,
 * written before its owner is answered: kill -9 keeps it with its id and
 * terms; taken, declined or cancelled, it stays gone; an offer made after
 * the restart gets a new id (not one an offer lost in the crash had: a
 * player may still hold that number). */
START_TEST(waiting_challenges_outlive_a_restart)
{
	struct kd *d = kd_start(KD_BASE_CONFIG);
	struct kp a, b;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bob");
	kc_close(b.c);
	json_int_t corr = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:s, s:b, s:s, s:{s:i}}", "user", "bob", "color", "white", "rated", 1, "rules",
		"english", "time", "days", 3)), "offer"));
	json_int_t gone = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:{s:i}}", "user", "bob", "time", "days", 5)), "offer"));
	json_int_t timed = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:{s:i, s:i}}", "user", "bob", "time", "base", 300, "inc", 0)), "offer"));
	/* timed: lost with the daemon, as with its owner */
	kc_ok(a.c, kc_req(a.c, "cancel", "{s:I}", "offer", gone));
	kc_close(a.c);

	kd_crash_restart(d);
	kp_resume(d, &b);
	json_t *e = kc_event(b.c, "challenge");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), corr);
	ck_assert_str_eq(json_string_value(json_object_get(e, "user")), "anna");
	ck_assert_str_eq(json_string_value(json_object_get(e, "rules")), "english");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
	ck_assert(json_is_true(json_object_get(e, "rated")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(e, "time"), "days")), 3);
	kc_no_event(b.c, "challenge");
	json_t *offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 1);
	json_int_t seek = json_integer_value(json_object_get(kc_ok(b.c, kc_req(b.c, "seek", NULL)), "offer"));
	ck_assert_int_gt(seek, timed);   /* no id given twice, not even one lost in the crash */
	ck_assert_int_le(seek, timed + 16);   /* nor many skipped: people type these numbers */
	json_int_t declined = json_integer_value(json_object_get(kc_ok(b.c, kc_req(b.c, "challenge",
		"{s:s, s:{s:i}}", "user", "anna", "time", "days", 2)), "offer"));
	kc_close(b.c);

	/* anna comes back after another crash: bob's challenge waits for her; she declines it */
	kd_crash_restart(d);
	kp_resume(d, &a);
	ck_assert_int_eq(json_integer_value(json_object_get(kc_event(a.c, "challenge"), "offer")), declined);
	kc_ok(a.c, kc_req(a.c, "decline", "{s:I}", "offer", declined));
	kc_close(a.c);

	/* bob takes anna's: after a crash it is not there to be taken twice */
	kd_crash_restart(d);
	kp_resume(d, &b);
	kc_event(b.c, "challenge");
	json_int_t game = json_integer_value(json_object_get(
		kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer", corr)), "game"));
	ck_assert_int_gt(game, 0);
	kc_close(b.c);
	kd_crash_restart(d);
	kp_resume(d, &b);
	kp_resume(d, &a);
	kc_no_event(b.c, "challenge");
	kc_no_event(a.c, "challenge");
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers")), 0);
	kc_error(b.c, kc_req(b.c, "accept", "{s:I}", "offer", corr), "no_such_offer");
	kc_close(a.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Regression: a waiting offer declined or lapsed while its owner was away
 * just vanished: the owner, back days later, was told nothing.  Now its
 * news waits for the owner's next login, through a kill -9 too, and is
 * told once; a decline heard live leaves no news. */
START_TEST(away_owner_hears_what_became_of_offers)
{
	const int64_t wait_ms = 1500LL * kt_timeout_scale();
	char wait[32];
	snprintf(wait, sizeof wait, "%lld", (long long)wait_ms);
	setenv("KRIEGD_OFFER_WAIT_MS", wait, 1);
	struct kd *d = kd_start(FAST_CONFIG);
	unsetenv("KRIEGD_OFFER_WAIT_MS");
	struct kp a, b, a2, a3;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bob");
	json_int_t declined = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:{s:i}}", "user", "bob", "time", "days", 3)), "offer"));
	json_int_t lapsing = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:{s:i}}", "user", "bob", "time", "days", 2)), "offer"));
	json_int_t seek = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "seek",
		"{s:{s:i}}", "time", "days", 1)), "offer"));
	kc_close(a.c);   /* anna is away (once the server has seen her go) */
	for (int i = 0; find_by(json_object_get(kc_ok(b.c, kc_req(b.c, "who", NULL)), "users"),
	                        "name", "anna") != NULL; i++) {
		ck_assert_int_lt(i, 500);
		kt_sleep_ms(20);
	}
	kc_ok(b.c, kc_req(b.c, "decline", "{s:I}", "offer", declined));
	/* the other two lapse (bob hears his challenge go), then a crash */
	json_t *e = kc_event(b.c, "challenge_cancelled");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), lapsing);
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)),
	                                                 "offers")), 0);
	kc_close(b.c);
	kd_crash_restart(d);

	kp_login(d, &a, "anna", "harness-password");
	e = kc_event(a.c, "challenge_declined");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), declined);
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), "bob");
	ck_assert(json_is_true(json_object_get(e, "while_away")));
	e = kc_event(a.c, "offer_lapsed");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), lapsing);
	ck_assert_str_eq(json_string_value(json_object_get(e, "user")), "bob");
	e = kc_event(a.c, "offer_lapsed");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), seek);
	ck_assert_ptr_null(json_object_get(e, "user"));
	kc_no_event(a.c, "offer_lapsed");
	kc_no_event(a.c, "challenge_declined");

	/* told once: not again at the next login */
	kp_login(d, &a2, "anna", "harness-password");
	kc_no_event(a2.c, "offer_lapsed");
	kc_no_event(a2.c, "challenge_declined");
	/* declined while anna is here: heard live, no news left */
	kp_login(d, &b, "bob", "harness-password");
	json_int_t live = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:{s:i}}", "user", "bob", "time", "days", 3)), "offer"));
	kc_event(b.c, "challenge");
	kc_ok(b.c, kc_req(b.c, "decline", "{s:I}", "offer", live));
	e = kc_event(a2.c, "challenge_declined");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), live);
	ck_assert_ptr_null(json_object_get(e, "while_away"));
	kc_close(a.c);
	kc_close(a2.c);
	kp_login(d, &a3, "anna", "harness-password");
	kc_no_event(a3.c, "challenge_declined");
	kc_close(a3.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Regression: the waiting correspondence offers of an account disabled
 * afterwards stayed open: anyone could accept one (a game against an
 * account that cannot log in) and a rated seek was even met at once.
 * Now they go when the account is disabled, as if cancelled (its target
 * told), and so do those of an account disabled while the daemon was down. */
START_TEST(disabled_accounts_offers_go)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b, c;
	char out[1024];
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bob");
	kp_register(d, &c, "carl");
	json_int_t ch = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:{s:i}}", "user", "bob", "time", "days", 3)), "offer"));
	json_int_t seek = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "seek",
		"{s:{s:i}, s:b}", "time", "days", 3, "rated", 1)), "offer"));
	kc_event(b.c, "challenge");
	kc_close(a.c);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "disable", "anna"), 0);
	json_t *e = kc_event(b.c, "challenge_cancelled");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), ch);
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)),
	                                                 "offers")), 0);
	kc_error(b.c, kc_req(b.c, "accept", "{s:I}", "offer", seek), "no_such_offer");
	/* bob's own rated seek meets nobody: it waits */
	json_t *r = kc_ok(b.c, kc_req(b.c, "seek", "{s:{s:i}, s:b}", "time", "days", 3, "rated", 1));
	ck_assert_ptr_null(json_object_get(r, "game"));
	kc_ok(b.c, kc_req(b.c, "cancel", NULL));

	/* carl's, disabled while the daemon is down: not restored */
	kc_ok(c.c, kc_req(c.c, "challenge", "{s:s, s:{s:i}}", "user", "bob", "time", "days", 3));
	kc_close(c.c);
	kc_close(b.c);
	kd_down(d);
	ck_assert_int_eq(kg_user(d, NULL, out, sizeof out, "disable", "carl"), 0);
	kd_up(d);
	kp_login(d, &b, "bob", "harness-password");
	kc_no_event(b.c, "challenge");
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)),
	                                                 "offers")), 0);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* A correspondence seek of a registered account waits while its owner is
 * away, and through a kill -9, as a challenge does; met or accepted then,
 * the game is its owner's at their next login.  A guest's, or a timed one,
 * goes with its owner. */
START_TEST(correspondence_seek_waits)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b, g, w;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bob");
	kp_register(d, &w, "watcher");
	kc_ok(w.c, kc_req(w.c, "lobby_watch", NULL));
	json_int_t seek = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "seek",
		"{s:s, s:{s:i}, s:s, s:i}", "rules", "english", "time", "days", 3, "color", "black",
		"rating_max", 2000)), "offer"));
	json_int_t other = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "seek",
		"{s:s, s:{s:i}}", "rules", "nost", "time", "days", 1)), "offer"));
	kc_ok(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i, s:i}}", "rules", "icc", "time", "base", 300, "inc", 0));
	kp_guest(d, &g);
	kc_ok(g.c, kc_req(g.c, "seek", "{s:s, s:{s:i}}", "rules", "icc", "time", "days", 2));
	kc_close(g.c);
	kc_close(a.c);
	json_t *gone = kc_event(w.c, "seek_gone");   /* the timed one, and the guest's */
	kc_event(w.c, "seek_gone");
	ck_assert_int_ne(json_integer_value(json_object_get(gone, "offer")), seek);
	kc_close(w.c);
	kc_close(b.c);

	kd_crash_restart(d);
	kp_resume(d, &b);
	json_t *offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 2);
	json_t *o = json_array_get(offers, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "offer")), seek);
	ck_assert_str_eq(json_string_value(json_object_get(o, "user")), "anna");
	ck_assert_str_eq(json_string_value(json_object_get(o, "color")), "black");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "rating_max")), 2000);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(offers, 1), "offer")), other);
	/* bob's seek meets anna's while she is away; she finds the game at her login */
	json_t *r = kc_ok(b.c, kc_req(b.c, "seek", "{s:s, s:{s:i}}", "rules", "english", "time", "days", 3));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "offer")), seek);
	json_int_t game = json_integer_value(json_object_get(r, "game"));
	ck_assert_str_eq(json_string_value(json_object_get(kc_event(b.c, "game_start"), "color")), "white");
	kc_close(b.c);
	kd_crash_restart(d);   /* taken: not back after a crash */
	kp_resume(d, &a);
	ck_assert_int_eq(json_integer_value(json_object_get(kc_event(a.c, "game_state"), "game")), game);
	offers = json_object_get(kc_ok(a.c, kc_req(a.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(offers, 0), "offer")), other);
	kc_ok(a.c, kc_req(a.c, "cancel", "{s:I}", "offer", other));
	kc_close(a.c);
	kd_crash_restart(d);   /* cancelled: not back either */
	kp_resume(d, &b);
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers")), 0);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(bad_lobby_requests)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b;
	kp_guest(d, &a);
	kp_guest(d, &b);
	struct kc *c = a.c;
	/* An unknown rule set's refusal names those there are (the help probe). */
	json_t *r = kc_error(c, kc_req(c, "seek", "{s:s}", "rules", "blitzkrieg"), "bad_request");
	const char *msg = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
	ck_assert_msg(msg && strstr(msg, "unknown rule set (icc, english, ") && strstr(msg, ", crazykrieg"),
	              "%s", msg ? msg : "(none)");
	kc_error(c, kc_req(c, "seek", "{s:i}", "rules", 3), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:s}", "color", "green"), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:{s:i}}", "time", "base", -1), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:{s:i}}", "time", "base", 999999), "bad_request");
	/* Regression (the time probe): a base of 1 ms was taken, and the game
	 * lost on time before White's first try could arrive: a second at least */
	kc_error(c, kc_req(c, "seek", "{s:{s:f}}", "time", "base", 0.001), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:{s:f}}", "time", "base", 0.9994), "bad_request");
	kc_ok(c, kc_req(c, "seek", "{s:{s:f}}", "time", "base", 0.9996));   /* 1000 ms, rounded */
	kc_ok(c, kc_req(c, "cancel", NULL));
	kc_error(c, kc_req(c, "seek", "{s:{s:i, s:i}}", "time", "days", 3, "base", 5), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:{s:i}}", "time", "inc", 5), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:{s:i}}", "time", "days", 0), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:{s:i}}", "time", "minutes", 5), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:s}", "time", "5+3"), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:i}", "rated", 1), "bad_request");
	kc_error(c, kc_req(c, "seek", "{s:i}", "colour", 1), "bad_request");
	kc_error(c, kc_req(c, "challenge", NULL), "bad_request");
	kc_error(c, kc_req(c, "challenge", "{s:s}", "user", "nosuchuser"), "no_such_user");
	/* Regression (hostile-input probe): the terms are checked before the
	 * name is looked up (this was no_such_user) */
	kc_error(c, kc_req(c, "challenge", "{s:s, s:s}", "user", "nosuchuser", "rules", "str"), "bad_request");
	kc_error(c, kc_req(c, "challenge", "{s:s}", "user", a.name), "illegal_action");
	kc_error(c, kc_req(c, "challenge", "{s:s}", "user", "a-name-far-too-long-for-anyone-here"),
	         "bad_request");
	kc_error(c, kc_req(c, "accept", "{s:s}", "offer", "1"), "bad_request");
	kc_error(c, kc_req(c, "accept", NULL), "bad_request");
	kc_error(c, kc_req(c, "accept", "{s:i}", "offer", 12345), "no_such_offer");
	/* Nothing of that left an offer behind. */
	json_t *offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 0);
	kc_close(a.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* A seek that meets an open one starts the game at once (FICS's
 * matching): the same rules, time and ratedness, colours that fit, each
 * within the other's rating range (mutes aside); the oldest first; else it
 * is listed. */
START_TEST(seeks_meet)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp p[9];
	for (int i = 0; i < 9; i++)
		if (i == 2)
			kp_register(d, &p[i], "rater");   /* its rated seek: a registered account's */
		else
			kp_guest(d, &p[i]);
	json_int_t first = json_integer_value(json_object_get(kc_ok(p[0].c, kc_req(p[0].c, "seek",
		"{s:s, s:{s:i, s:i}, s:s}", "rules", "icc", "time", "base", 300, "inc", 0, "color", "white")), "offer"));
	json_int_t second = json_integer_value(json_object_get(kc_ok(p[1].c, kc_req(p[1].c, "seek",
		"{s:s, s:{s:i, s:i}, s:s}", "rules", "icc", "time", "base", 300, "inc", 0, "color", "white")), "offer"));
	ck_assert_int_ne(first, second);   /* both White: no meeting */
	kc_ok(p[2].c, kc_req(p[2].c, "seek", "{s:s, s:{s:i, s:i}}", "rules", "icc", "time", "base", 300, "inc", 5));
	kc_ok(p[2].c, kc_req(p[2].c, "seek", "{s:s, s:{s:i, s:i}, s:b}", "rules", "icc", "time", "base", 300, "inc", 0,
	                     "rated", 1));   /* another increment, rated: no meeting either */
	kc_ok(p[2].c, kc_req(p[2].c, "seek", "{s:s, s:{s:i, s:i}}", "rules", "english", "time", "base", 300, "inc", 0));
	/* Black meets the oldest White */
	json_t *r = kc_ok(p[3].c, kc_req(p[3].c, "seek", "{s:s, s:{s:i, s:i}, s:s}", "rules", "icc", "time", "base",
	                                 300, "inc", 0, "color", "black"));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "offer")), first);
	json_int_t game = json_integer_value(json_object_get(r, "game"));
	ck_assert_int_gt(game, 0);
	json_t *e = kc_event(p[0].c, "game_start");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), game);
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
	ck_assert_str_eq(json_string_value(json_object_get(kc_event(p[3].c, "game_start"), "color")), "black");
	/* random meets White, and plays Black */
	r = kc_ok(p[4].c, kc_req(p[4].c, "seek", "{s:s, s:{s:i, s:i}}", "rules", "icc", "time", "base", 300, "inc", 0));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "offer")), second);
	ck_assert_str_eq(json_string_value(json_object_get(kc_event(p[4].c, "game_start"), "color")), "black");
	/* a mute does not keep seeks apart (an unmet seek would tell the mute; accept ignores it too) */
	kc_ok(p[5].c, kc_req(p[5].c, "mute", "{s:s}", "user", p[6].name));
	kc_ok(p[5].c, kc_req(p[5].c, "seek", "{s:s}", "rules", "nost"));
	r = kc_ok(p[6].c, kc_req(p[6].c, "seek", "{s:s}", "rules", "nost"));
	ck_assert(json_integer_value(json_object_get(r, "game")) > 0);
	/* outside the other's rating range: no meeting (a guest is rated 1500) */
	kc_ok(p[7].c, kc_req(p[7].c, "seek", "{s:s, s:i}", "rules", "gollon", "rating_min", 1800));
	r = kc_ok(p[8].c, kc_req(p[8].c, "seek", "{s:s}", "rules", "gollon"));
	ck_assert_ptr_null(json_object_get(r, "game"));
	r = kc_ok(p[0].c, kc_req(p[0].c, "seeks", NULL));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), 5);   /* 3 of p2, 2 gollon */
	/* within it: met */
	r = kc_ok(p[0].c, kc_req(p[0].c, "seek", "{s:s, s:i, s:i}", "rules", "gollon", "rating_min", 1000,
	                         "rating_max", 1600));
	ck_assert(json_integer_value(json_object_get(r, "game")) > 0);
	/* Regression: a range ending at 0 (0..0, or rating_max 0 alone) was
	 * taken as no range at all, a seek anyone could accept, listed
	 * without its range.  It admits nobody: refused, nothing made. */
	json_t *err = kc_error(p[8].c, kc_req(p[8].c, "seek", "{s:s, s:i, s:i}", "rules", "berkeley",
	                                      "rating_min", 0, "rating_max", 0), "bad_request");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(err, "error"), "message")),
	                 "field 'rating_max' must be from 1 to 4000");
	kc_error(p[8].c, kc_req(p[8].c, "seek", "{s:s, s:i}", "rules", "berkeley", "rating_max", 0),
	         "bad_request");
	r = kc_ok(p[0].c, kc_req(p[0].c, "seeks", NULL));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), 4);
	for (int i = 0; i < 9; i++)
		kc_close(p[i].c);
	kd_stop(d);
}
END_TEST

/* Every offer, page by page, exactly once; no line over PROTO_LINE_MAX. */
START_TEST(seeks_are_paged)
{
	struct kd *d = kd_start(FAST_CONFIG);
	enum { USERS = 9, PER = 16 };
	struct kp p[USERS];
	for (int i = 0; i < USERS; i++) {
		if (i == 0)
			kp_register(d, &p[i], "pager");   /* rated seeks are registered accounts' */
		else
			kp_guest(d, &p[i]);
		for (int k = 0; k < PER; k++)
			kc_ok(p[i].c, kc_req(p[i].c, "seek", "{s:s, s:{s:i, s:i}, s:s, s:b}", "rules",
			                      "insurance", "time", "base", 600 + PER * i + k, "inc", 10, "color",
			                      "random", "rated", k % 2 == 0 && i == 0));   /* p[0] registered */
	}
	char seen[USERS * PER + 1] = { 0 };
	json_int_t from = 0, pages = 0;
	for (;;) {
		json_t *r = kc_ok(p[0].c, kc_req(p[0].c, "seeks", "{s:I}", "from", from));
		ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), USERS * PER);
		json_t *offers = json_object_get(r, "offers");
		ck_assert_uint_gt(json_array_size(offers), 0);
		for (size_t i = 0; i < json_array_size(offers); i++) {
			json_int_t o = json_integer_value(json_object_get(json_array_get(offers, i), "offer"));
			ck_assert(o >= 1 && o <= USERS * PER);
			ck_assert_msg(!seen[o], "offer %lld twice", (long long)o);
			seen[o] = 1;
		}
		pages++;
		json_t *next = json_object_get(r, "next");
		if (!next)
			break;
		ck_assert_int_eq(json_integer_value(next), from + (json_int_t)json_array_size(offers));
		from = json_integer_value(next);
	}
	ck_assert_int_gt(pages, 1);
	for (int o = 1; o <= USERS * PER; o++)
		ck_assert_msg(seen[o], "offer %d missing", o);
	for (size_t i = 0; i < kc_nlines(p[0].c); i++)
		ck_assert_uint_le(strlen(kc_line(p[0].c, i)) + 1, PROTO_LINE_MAX);
	/* who: the same shape (one page here). */
	json_t *r = kc_ok(p[1].c, kc_req(p[1].c, "who", "{s:i}", "from", 0));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), USERS);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "users")), USERS);
	ck_assert_ptr_null(json_object_get(r, "next"));
	r = kc_ok(p[1].c, kc_req(p[1].c, "who", "{s:i}", "from", USERS));
	ck_assert_uint_eq(json_array_size(json_object_get(r, "users")), 0);
	kc_error(p[1].c, kc_req(p[1].c, "who", "{s:i}", "from", -1), "bad_request");
	for (int i = 0; i < USERS; i++)
		kc_close(p[i].c);
	kd_stop(d);
}
END_TEST

/* Names are case-insensitive: a challenge finds the account and names it
 * as it was registered, whatever the spelling typed. */
START_TEST(challenge_names_the_account)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a;
	kp_guest(d, &a);
	struct kc *bob = kc_hello(d);
	kc_ok(bob, kc_req(bob, "register", "{s:s, s:s}", "user", "Bob_Mixed", "password",
	                  "correct horse battery"));
	json_t *r = kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", "BOB_MIXED"));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	json_t *e = kc_event(bob, "challenge");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	ck_assert_str_eq(json_string_value(json_object_get(e, "to")), "Bob_Mixed");
	json_t *offers = json_object_get(kc_ok(a.c, kc_req(a.c, "seeks", NULL)), "offers");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(offers, 0), "to")),
	                 "Bob_Mixed");
	kc_ok(bob, kc_req(bob, "accept", "{s:I}", "offer", offer));
	kc_event(a.c, "game_start");
	kc_close(a.c);
	kc_close(bob);
	kd_stop(d);
}
END_TEST

/* Ids are integers >= 0 or short strings; "time": null is not a time. */
START_TEST(negative_id_and_null_time)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a;
	kp_guest(d, &a);
	kc_send(a.c, "{\"id\":-1,\"type\":\"ping\"}");
	kc_error(a.c, KC_NULL_ID, "bad_request");
	kc_error(a.c, kc_req(a.c, "seek", "{s:n}", "time"), "bad_request");
	kc_close(a.c);
	kd_stop(d);
}
END_TEST

/* rematch: the other player of a finished game is challenged on its terms,
 * colours swapped; twice is once; both asking starts the game. */
START_TEST(rematch_swaps_colours_on_the_same_terms)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b, x;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "boris");
	kp_guest(d, &x);
	json_t *r = kc_ok(a.c, kc_req(a.c, "challenge", "{s:s, s:s, s:s, s:b, s:{s:i, s:i}}", "user",
	                              b.name, "rules", "english", "color", "white", "rated", 1,
	                              "time", "base", 300, "inc", 2));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	kc_event(b.c, "challenge");
	json_int_t g1 = json_integer_value(json_object_get(
		kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer)), "game"));
	kc_event(a.c, "game_start");

	/* Not while it is played; not someone else's game; not a game that never was. */
	kc_error(a.c, kc_req(a.c, "rematch", "{s:I}", "game", g1), "illegal_action");
	kc_ok(a.c, kc_req(a.c, "resign", "{s:I}", "game", g1));
	kc_event(b.c, "game_over");
	kc_error(x.c, kc_req(x.c, "rematch", "{s:I}", "game", g1), "no_such_game");
	kc_error(a.c, kc_req(a.c, "rematch", "{s:I}", "game", g1 + 1000), "no_such_game");
	kc_error(a.c, kc_req(a.c, "rematch", NULL), "bad_request");

	/* Asked: a challenge to boris, anna now Black, the same rules, clock and rating. */
	r = kc_ok(a.c, kc_req(a.c, "rematch", "{s:I}", "game", g1));
	json_int_t o1 = json_integer_value(json_object_get(r, "offer"));
	ck_assert_ptr_null(json_object_get(r, "game"));
	json_t *e = kc_event(b.c, "challenge");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), o1);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "rematch")), g1);
	ck_assert_str_eq(json_string_value(json_object_get(e, "user")), a.name);
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
	ck_assert_str_eq(json_string_value(json_object_get(e, "rules")), "english");
	ck_assert(json_is_true(json_object_get(e, "rated")));
	ck_assert_int_eq((int)json_number_value(json_object_get(json_object_get(e, "time"), "base")), 300);
	ck_assert_int_eq((int)json_number_value(json_object_get(json_object_get(e, "time"), "inc")), 2);
	kc_no_event(x.c, "challenge");
	/* Asked again: the same offer, not a second challenge. */
	r = kc_ok(a.c, kc_req(a.c, "rematch", "{s:I}", "game", g1));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "offer")), o1);
	kc_no_event(b.c, "challenge");
	json_t *offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(offers, 0), "rematch")), g1);

	/* Asked by boris too: the game starts, as an accept would. */
	r = kc_ok(b.c, kc_req(b.c, "rematch", "{s:I}", "game", g1));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "offer")), o1);
	json_int_t g2 = json_integer_value(json_object_get(r, "game"));
	ck_assert_int_gt(g2, g1);
	e = kc_event(a.c, "game_start");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "game")), g2);
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
	ck_assert_str_eq(json_string_value(json_object_get(e, "white")), b.name);
	ck_assert_str_eq(json_string_value(json_object_get(e, "rules")), "english");
	ck_assert_ptr_nonnull(json_object_get(e, "ratings"));
	offers = json_object_get(kc_ok(a.c, kc_req(a.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 0);

	/* An aborted game too; a rematch declined is a challenge declined. */
	kc_ok(b.c, kc_req(b.c, "abort", "{s:I}", "game", g2));
	kc_event(a.c, "game_over");
	r = kc_ok(b.c, kc_req(b.c, "rematch", "{s:I}", "game", g2));
	json_int_t o2 = json_integer_value(json_object_get(r, "offer"));
	e = kc_event(a.c, "challenge");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "black");
	kc_ok(a.c, kc_req(a.c, "decline", "{s:I}", "offer", o2));
	kc_event(b.c, "challenge_declined");
	kc_close(a.c);
	kc_close(b.c);
	kc_close(x.c);
	kd_stop(d);
}
END_TEST

/* The message of error response e. */
static const char *message_of(json_t *e)
{
	return json_string_value(json_object_get(json_object_get(e, "error"), "message"));
}

/* decline's reason: a person's words, taken as chat's text is (trimmed,
 * runs of spaces one, U+3000 a space), on the challenger's event; none,
 * no key; a malformed one is bad_request and the challenge stands, to be
 * declined or accepted after. */
START_TEST(decline_gives_a_reason)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, b;
	kp_guest(d, &a);
	kp_guest(d, &b);
	json_int_t offer = json_integer_value(json_object_get(
		kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", b.name)), "offer"));
	kc_event(b.c, "challenge");
	char long201[202], long801[802], exact[210];
	memset(long201, 'x', 201);
	long201[201] = '\0';
	memset(long801, ' ', 801);   /* spaces: past the field's bound, not only the words' */
	long801[801] = '\0';
	snprintf(exact, sizeof exact, "   %.200s   ", long801);
	memset(exact + 3, 'y', 200);
	static const char *const bad[] = { "", "   ", "\xe3\x80\x80\xe2\x80\x8b", "a\tb", "no\nline",
	                                   "turn \xe2\x80\xae this", "\x7f", "\xc2\x85",
	                                   /* five marks on a letter (U+0301): the message names it */
	                                   "a\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		json_t *e = kc_error(b.c, kc_req(b.c, "decline", "{s:I, s:s}", "offer", offer, "reason", bad[i]),
		                     "bad_request");
		ck_assert_msg(strcmp(message_of(e), "reason: 1..200 bytes of UTF-8, not blank, without control or "
		                                    "direction-changing characters or more than 4 marks on a letter") == 0,
		              "#%zu: %s", i, message_of(e));
	}
	/* PROTOCOL.md's two messages: the request's own check, and the field check past 800 */
	json_t *e201 = kc_error(b.c, kc_req(b.c, "decline", "{s:I, s:s}", "offer", offer, "reason", long201),
	                        "bad_request");
	ck_assert_str_eq(message_of(e201),
	                 "reason: 1..200 bytes of UTF-8, not blank, without control or direction-changing "
	                 "characters or more than 4 marks on a letter");
	json_t *e801 = kc_error(b.c, kc_req(b.c, "decline", "{s:I, s:s}", "offer", offer, "reason", long801),
	                        "bad_request");
	ck_assert_str_eq(message_of(e801), "field 'reason' is longer than 800 bytes");
	kc_error(b.c, kc_req(b.c, "decline", "{s:I, s:i}", "offer", offer, "reason", 7), "bad_request");
	kc_no_event(a.c, "challenge_declined");
	/* it stands: listed, and declined now with words in their normal form */
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers")), 1);
	kc_ok(b.c, kc_req(b.c, "decline", "{s:I, s:s}", "offer", offer, "reason",
	                  "  only\xe3\x80\x80\xe3\x80\x80untimed   games, \xc3\xa9t\xc3\xa9 "));
	json_t *e = kc_event(a.c, "challenge_declined");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	ck_assert_str_eq(json_string_value(json_object_get(e, "by")), b.name);
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "only untimed games, \xc3\xa9t\xc3\xa9");
	kc_error(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer), "no_such_offer");

	/* 200 bytes once trimmed: taken */
	offer = json_integer_value(json_object_get(
		kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", b.name)), "offer"));
	kc_event(b.c, "challenge");
	kc_ok(b.c, kc_req(b.c, "decline", "{s:I, s:s}", "offer", offer, "reason", exact));
	e = kc_event(a.c, "challenge_declined");
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(e, "reason"))), 200);

	/* no reason: no key */
	offer = json_integer_value(json_object_get(
		kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", b.name)), "offer"));
	kc_event(b.c, "challenge");
	kc_ok(b.c, kc_req(b.c, "decline", "{s:I}", "offer", offer));
	e = kc_event(a.c, "challenge_declined");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "offer")), offer);
	ck_assert_ptr_null(json_object_get(e, "reason"));

	/* a bad reason, then the challenge accepted: the game starts */
	offer = json_integer_value(json_object_get(
		kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", b.name)), "offer"));
	kc_event(b.c, "challenge");
	kc_error(b.c, kc_req(b.c, "decline", "{s:I, s:s}", "offer", offer, "reason", " \t "), "bad_request");
	json_t *r = kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer));
	ck_assert_int_gt(json_integer_value(json_object_get(r, "game")), 0);
	kc_event(a.c, "game_start");
	kc_no_event(a.c, "challenge_declined");
	kc_close(a.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* With d down, `users` registered accounts (sybil0000...) are written to
 * its store, each with 16 correspondence seeks waiting (icc, 3 days,
 * random, unrated, made now), as accounts that posted them and left
 * leave them for the restart that follows. */
static void sybil_seeks(struct kd *d, int users)
{
	char path[400], sql[1024];
	sqlite3 *db;
	kd_down(d);
	snprintf(path, sizeof path, "%s/kriegd.db", kd_state_dir(d));
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	snprintf(sql, sizeof sql,
	         "BEGIN;"
	         "INSERT INTO users (name, pwhash, guest, created) WITH RECURSIVE n(i) AS"
	         " (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)"
	         " SELECT printf('sybil%%04d', i), NULL, 0, 0 FROM n;"
	         "INSERT INTO waiting_offers (owner, target, rules, days, color, rated, rating_min,"
	         " rating_max, rematch, made_ms) WITH RECURSIVE k(j) AS"
	         " (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 15)"
	         " SELECT u.id, NULL, 'icc', 3, 'random', 0, 0, 0, 0, %lld FROM users u, k"
	         " WHERE u.name LIKE 'sybil%%' ORDER BY u.id, j;"
	         "COMMIT;", users - 1, (long long)mstime_wall());
	char *msg = NULL;
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s", msg ? msg : "?");
	sqlite3_close(db);
	kd_up(d);
}

/*
 * Regression (probe): one cap for the whole lobby, 4,096 offers, was
 * filled by 256 accounts that posted 16 correspondence seeks each and
 * left; every other user's seek and challenge, a fresh guest's too, was
 * refused "too many open offers" for 14 days, through restarts.  Offers
 * that wait for owners who are away now hold half the lobby at most:
 * with that half full (2,048 such accounts), a guest still seeks and
 * challenges; a correspondence offer is refused, saying the lobby is
 * full; one that meets a waiting seek is taken, as ever.  And the user's
 * own 16 says so.
 */
START_TEST(away_accounts_cannot_fill_the_lobby)
{
	struct kd *d = kd_start(FAST_CONFIG);
	struct kp a, g;
	kp_register(d, &a, "anna");
	kc_close(a.c);
	sybil_seeks(d, 2048);   /* 32,768 waiting seeks: the half of the lobby they may have */
	kp_login(d, &a, "anna", "harness-password");
	kp_guest(d, &g);
	/* live offers have the other half */
	json_t *r = kc_ok(g.c, kc_req(g.c, "seek", "{s:s, s:{s:i, s:i}}", "rules", "icc", "time", "base",
	                              300, "inc", 0));
	ck_assert_ptr_null(json_object_get(r, "game"));
	kc_ok(g.c, kc_req(g.c, "challenge", "{s:s}", "user", "anna"));
	kc_event(a.c, "challenge");
	kc_ok(a.c, kc_req(a.c, "seek", "{s:s}", "rules", "nost"));
	/* a correspondence offer that would wait: the lobby's refusal, not the user's 16 */
	json_t *e = kc_error(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i}}", "rules", "nost", "time", "days", 3),
	                     "illegal_action");
	ck_assert_msg(strstr(message_of(e), "the lobby is full") != NULL, "%s", message_of(e));
	ck_assert_ptr_nonnull(strstr(message_of(e), "32768"));
	e = kc_error(a.c, kc_req(a.c, "challenge", "{s:s, s:{s:i}}", "user", g.name, "time", "days", 3),
	             "illegal_action");
	ck_assert_ptr_nonnull(strstr(message_of(e), "the lobby is full"));
	/* one that meets a waiting seek is not listed: it is taken, and a place is free */
	r = kc_ok(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i}}", "rules", "icc", "time", "days", 3));
	ck_assert_int_gt(json_integer_value(json_object_get(r, "game")), 0);
	kc_event(a.c, "game_start");
	kc_ok(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i}}", "rules", "nost", "time", "days", 3));
	kc_error(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i}}", "rules", "nost", "time", "days", 4),
	         "illegal_action");
	/* the user's own cap says it is theirs */
	for (int i = 0; i < 14; i++)
		kc_ok(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i, s:i}}", "rules", "english", "time", "base",
		                  60 + i, "inc", 0));
	e = kc_error(a.c, kc_req(a.c, "seek", "{s:s}", "rules", "english"), "illegal_action");
	ck_assert_str_eq(message_of(e), "you have 16 open offers, the most one user may have: cancel one first");
	r = kc_ok(g.c, kc_req(g.c, "seeks", NULL));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), 32768 - 1 + 1 + 1 + 16);
	kc_close(a.c);
	kc_close(g.c);
	kd_stop(d);
}
END_TEST

/* The lobby's cap (lowered to 8 here: KRIEGD_LOBBY_OFFERS_MAX): full, a
 * seek or challenge that would be listed is refused saying so; half of it
 * (4) may wait for owners who are away; a seek that meets one still
 * starts its game. */
START_TEST(full_lobby_says_so)
{
	setenv("KRIEGD_LOBBY_OFFERS_MAX", "8", 1);
	struct kd *d = kd_start(FAST_CONFIG);
	unsetenv("KRIEGD_LOBBY_OFFERS_MAX");
	struct kp a, g, h;
	kp_register(d, &a, "anna");
	kp_guest(d, &g);
	kp_guest(d, &h);
	for (int i = 1; i <= 4; i++)
		kc_ok(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i}}", "rules", "nost", "time", "days", i));
	json_t *e = kc_error(a.c, kc_req(a.c, "seek", "{s:s, s:{s:i}}", "rules", "nost", "time", "days", 5),
	                     "illegal_action");
	ck_assert_str_eq(message_of(e), "the lobby is full: its 4 places for correspondence offers that wait "
	                 "for their owners are taken; try again later, or offer a timed game");
	/* a guest's correspondence seek does not wait (it goes with the guest) */
	kc_ok(g.c, kc_req(g.c, "seek", "{s:s, s:{s:i}}", "rules", "nost", "time", "days", 9));
	kc_ok(g.c, kc_req(g.c, "seek", "{s:s}", "rules", "english"));
	kc_ok(a.c, kc_req(a.c, "seek", "{s:s}", "rules", "nost"));
	kc_ok(a.c, kc_req(a.c, "challenge", "{s:s}", "user", h.name));
	e = kc_error(h.c, kc_req(h.c, "seek", "{s:s}", "rules", "gollon"), "illegal_action");
	ck_assert_str_eq(message_of(e), "the lobby is full (8 open offers); try again later");
	e = kc_error(h.c, kc_req(h.c, "challenge", "{s:s}", "user", "anna"), "illegal_action");
	ck_assert_str_eq(message_of(e), "the lobby is full (8 open offers); try again later");
	json_t *r = kc_ok(h.c, kc_req(h.c, "seek", "{s:s}", "rules", "english"));   /* meets g's */
	ck_assert_int_gt(json_integer_value(json_object_get(r, "game")), 0);
	kc_ok(h.c, kc_req(h.c, "seek", "{s:s}", "rules", "gollon"));   /* a place was freed */
	kc_close(a.c);
	kc_close(g.c);
	kc_close(h.c);
	kd_stop(d);
}
END_TEST

static Suite *lobby_suite(void)
{
	Suite *s = suite_create("lobby");
	TCase *tc = tcase_create("lobby");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, who_lists_each_user_once);
	tcase_add_test(tc, seek_list_accept);
	tcase_add_test(tc, live_games_capped);
	tcase_add_test(tc, challenge_decline_cancel_accept);
	tcase_add_test(tc, decline_gives_a_reason);
	tcase_add_test(tc, challenge_answered_on_one_device);
	tcase_add_test(tc, seeks_vanish_with_last_connection);
	tcase_add_test(tc, correspondence_challenge_waits);
	tcase_add_test(tc, lapsed_challenge_not_told_to_a_login);
	tcase_add_test(tc, away_owner_hears_what_became_of_offers);
	tcase_add_test(tc, disabled_accounts_offers_go);
	tcase_add_test(tc, waiting_challenges_outlive_a_restart);
	tcase_add_test(tc, correspondence_seek_waits);
	tcase_add_test(tc, bad_lobby_requests);
	tcase_add_test(tc, seeks_are_paged);
	tcase_add_test(tc, seeks_meet);
	tcase_add_test(tc, challenge_names_the_account);
	tcase_add_test(tc, negative_id_and_null_time);
	tcase_add_test(tc, rematch_swaps_colours_on_the_same_terms);
	suite_add_tcase(s, tc);
	/* The lobby's caps: a store full of waiting offers written behind
	 * the daemon's back. */
	TCase *full = tcase_create("full");
	tcase_set_timeout(full, 60);
	tcase_add_test(full, away_accounts_cannot_fill_the_lobby);
	tcase_add_test(full, full_lobby_says_so);
	suite_add_tcase(s, full);
	return s;
}

KRIEG_TEST_MAIN(lobby_suite)
