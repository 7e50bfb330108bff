/*
 * test_client_watch.c — the real krieg binary watching a real kriegd game:
 *   spectator_and_umpire   `krieg --user carol HOST watch G` shows the public
 *                          stream in words (catch-up and live), never a
 *                          move; `krieg --ascii --user ump HOST umpire G`
 *                          draws the true board with both sides' pieces,
 *                          the tries with their rulings, who heard what and
 *                          the players' connections; a player-role account
 *                          asking for the chair is refused `forbidden`, and
 *                          `live` lists the game;
 *   umpire_actions         pause, addtime, a public note and an
 *                          adjudication typed in the chair reach the
 *                          players and the spectator's client in words
 *                          (run when the server knows the umpire's
 *                          actions: a player's clock_pause is then
 *                          `forbidden`, not `unknown_type`).
 * The players are harness connections; the watchers are krieg processes
 * without a terminal (plain lines on stdin, words on stdout).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "harness.h"
#include "harness_client.h"
#include "harness_game.h"

#define WAIT_MS 15000

static struct kcl_scratch sc;

static void setup(void)
{
	kcl_scratch_make(&sc, "krieg-watch");
}

static void teardown(void)
{
	kcl_scratch_remove(&sc);
}

/* A krieg process's output (stdout and stderr, merged) holds needle
 * within WAIT_MS. */
static void proc_expect(struct kcl_proc *p, const char *needle)
{
	ck_assert_msg(kcl_proc_wait_out(p, needle, WAIT_MS), "\"%s\" never came; the client said:\n%s",
	              needle, p->obuf);
}

/* Close stdin: the client quits at once, with status 0 (not killed at
 * the deadline); reap, free. */
static void proc_end(struct kcl_proc *p)
{
	long start = kcl_now_ms();
	int st = kcl_proc_finish(p, WAIT_MS);
	ck_assert_msg(st == 0, "the client ended with status %d %ld ms after its stdin closed:\n%s", st,
	              kcl_now_ms() - start, p->obuf);
	kcl_proc_free(p);
}

/* `krieg --ascii --user NAME 127.0.0.1:PORT SEAT GAME`, the password typed at its prompt. */
static void krieg_seat(struct kcl_proc *p, struct kd *d, const char *name, const char *seat, long long game)
{
	char addr[64], num[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", kd_port(d));
	snprintf(num, sizeof num, "%lld", game);
	char *argv[] = { (char *)kcl_krieg_path(), "--ascii", "--no-color", "--user", (char *)name, addr,
	                 (char *)seat, num, NULL };
	kcl_proc_start(p, argv, sc.known, true);
	kcl_proc_write(p, "sesame-open\n");
}

/* ---- accounts and a game ---------------------------------------------------- */

static struct kc *player(struct kd *d, const char *name)
{
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "register", "{s:s, s:s}", "user", name, "password", "sesame-open"));
	return c;
}

/* alice (White) and bob (Black): an unrated icc game, 5 minutes each. */
static long long new_game(struct kc *w, struct kc *b)
{
	json_t *r = kc_ok(w, kc_req(w, "seek", "{s:s, s:s, s:b, s:{s:i, s:i}}", "color", "white", "rules", "icc",
	                            "rated", 0, "time", "base", 300, "inc", 0));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	r = kc_ok(b, kc_req(b, "accept", "{s:I}", "offer", offer));
	return json_integer_value(json_object_get(r, "game"));
}

static void play(struct kc *c, long long game, const char *move)
{
	kc_ok(c, kc_req(c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", move));
}

START_TEST(spectator_and_umpire)
{
	struct kd *d = kd_start(KD_BASE_CONFIG);
	kg_user_add(d, "ump", "umpire", "sesame-open");
	struct kc *alice = player(d, "alice"), *bob = player(d, "bob");
	kc_close(player(d, "carol"));
	long long g = new_game(alice, bob);
	play(alice, g, "e4");

	/* the spectator: the catch-up in words, then the game live */
	struct kcl_proc spec, ump, nosy;
	krieg_seat(&spec, d, "carol", "watch", g);
	char want[128];
	snprintf(want, sizeof want, "Watching game %lld", g);
	proc_expect(&spec, want);
	proc_expect(&spec, "you are watching");
	proc_expect(&spec, "White has moved");
	play(bob, g, "d5");
	play(alice, g, "exd5");
	snprintf(want, sizeof want, "#%lld (watching): White captured a pawn on d5", g);
	proc_expect(&spec, want);
	snprintf(want, sizeof want, "#%lld (watching): Black has moved", g);
	proc_expect(&spec, want);

	/* the umpire: the true board, the tries, who heard what, connections */
	krieg_seat(&ump, d, "ump", "umpire", g);
	snprintf(want, sizeof want, "In the umpire's chair of game %lld", g);
	proc_expect(&ump, want);
	proc_expect(&ump, "Umpire's board");
	proc_expect(&ump, " 8  r  n  b  q  k  b  n  r  8");
	proc_expect(&ump, " 5  .  .  .  P  .  .  .  .  5");
	proc_expect(&ump, " 1  R  N  B  Q  K  B  N  R  1");
	proc_expect(&ump, "[umpire only] White played exd5");
	proc_expect(&ump, "[everyone] White captured a pawn on d5");
	proc_expect(&ump, "Last tries: White exd5: played | Black d5: played");
	proc_expect(&ump, "White (alice) 5:00, connected | Black (bob)");
	/* live: Black's try blocked on the true board, heard by Black and the umpire only */
	long long id = kc_req(bob, "move", "{s:I, s:s}", "game", (json_int_t)g, "move", "Qd1");
	kc_ok(bob, id);
	snprintf(want, sizeof want, "#%lld (umpire): [Black] Black tried Qd1: illegal", g);
	proc_expect(&ump, want);
	proc_expect(&ump, "Black Qd1: illegal");
	play(bob, g, "Qxd5");
	snprintf(want, sizeof want, "#%lld (umpire): [umpire only] Black played Qxd5", g);
	proc_expect(&ump, want);
	proc_expect(&ump, " 5  .  .  .  q  .  .  .  .  5");
	kc_close(bob);
	proc_expect(&ump, "Black (bob) has lost the connection");
	kcl_proc_write(&ump, "live\n");
	snprintf(want, sizeof want, "game %lld: alice (White) vs bob (Black), icc, 5+0, unrated, move 3", g);
	proc_expect(&ump, want);

	/* a player-role account is refused the chair, with its code; no chair, no action */
	krieg_seat(&nosy, d, "carol", "umpire", g);
	proc_expect(&nosy, "umpire refused: only umpires and admins take the umpire's chair (forbidden)");
	kcl_proc_write(&nosy, "pause now\n");
	proc_expect(&nosy, "pause: you hold no umpire's chair");
	proc_end(&nosy);

	/* the spectator heard the public part and nothing else */
	snprintf(want, sizeof want, "#%lld (watching): Black has moved", g);
	char *second = strstr(strstr(spec.obuf, want) + 1, want);
	long end = kcl_now_ms() + WAIT_MS;
	while (!second && kcl_now_ms() < end && !kcl_proc_pump(&spec, 100))
		second = strstr(strstr(spec.obuf, want) + 1, want);
	ck_assert_msg(second, "the spectator missed Black's second move:\n%s", spec.obuf);
	static const char *const secret[] = { "e2e4", "exd5", "Qxd5", "Qd1", "d8d1", "Umpire's board",
	                                      "connection", "illegal" };
	for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
		ck_assert_msg(!strstr(spec.obuf, secret[i]), "the spectator was shown \"%s\":\n%s", secret[i], spec.obuf);
	proc_end(&spec);
	proc_end(&ump);
	kc_close(alice);
	kd_stop(d);
}
END_TEST

START_TEST(umpire_actions)
{
	struct kd *d = kd_start(KD_BASE_CONFIG);
	kg_user_add(d, "ump", "umpire", "sesame-open");
	struct kc *alice = player(d, "alice"), *bob = player(d, "bob");
	kc_close(player(d, "carol"));
	long long g = new_game(alice, bob);
	/* a server without the umpire's actions does not know the request: the unit tests cover them */
	json_t *probe = kc_response(alice, kc_req(alice, "clock_pause", "{s:I, s:s}", "game", (json_int_t)g,
	                                         "reason", "probe"));
	const char *code = json_string_value(json_object_get(json_object_get(probe, "error"), "code"));
	ck_assert_ptr_nonnull(code);   /* a player may never pause */
	if (!strcmp(code, "unknown_type")) {
		kc_close(alice);
		kc_close(bob);
		kd_stop(d);
		return;
	}
	ck_assert_str_eq(code, "forbidden");
	play(alice, g, "e4");
	struct kcl_proc spec, ump;
	char want[160];
	krieg_seat(&spec, d, "carol", "watch", g);
	snprintf(want, sizeof want, "Watching game %lld", g);
	proc_expect(&spec, want);
	krieg_seat(&ump, d, "ump", "umpire", g);
	snprintf(want, sizeof want, "In the umpire's chair of game %lld", g);
	proc_expect(&ump, want);

	kcl_proc_write(&ump, "pause the hall lights are out\n");
	snprintf(want, sizeof want, "#%lld: done (clocks paused).", g);
	proc_expect(&ump, want);
	json_t *ev = kc_event(alice, "clock_paused");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "reason")), "the hall lights are out");
	kc_event(bob, "clock_paused");
	snprintf(want, sizeof want, "#%lld (watching): The umpire paused the clocks: the hall lights are out", g);
	proc_expect(&spec, want);

	kcl_proc_write(&ump, "addtime black 60 noise\n");
	snprintf(want, sizeof want, "#%lld (watching): The umpire gave Black 60 more seconds: noise", g);
	proc_expect(&spec, want);
	kcl_proc_write(&ump, "unpause lights back\n");
	snprintf(want, sizeof want, "#%lld (watching): The umpire restarted the clocks: lights back", g);
	proc_expect(&spec, want);
	kcl_proc_write(&ump, "note --public Play ends at six\n");
	snprintf(want, sizeof want, "#%lld (watching): The umpire says: Play ends at six", g);
	proc_expect(&spec, want);
	ev = kc_event(bob, "umpire_note");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "text")), "Play ends at six");
	kcl_proc_write(&ump, "note alice looked nervous\n");
	snprintf(want, sizeof want, "#%lld: done (note recorded).", g);
	proc_expect(&ump, want);
	proc_expect(&ump, "Umpire's note (umpires only): alice looked nervous");

	kcl_proc_write(&ump, "adjudicate 1-0 mate in one on the board\n");
	snprintf(want, sizeof want, "#%lld (watching): Game over: White wins by the umpire's decision (1-0): mate in one on the board", g);
	proc_expect(&spec, want);
	ev = kc_event(alice, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "result")), "1-0");
	/* a private note went to nobody but umpires */
	ck_assert(!strstr(spec.obuf, "nervous"));
	ck_assert(!kc_saw(alice, "nervous"));
	ck_assert(!kc_saw(bob, "nervous"));
	proc_end(&spec);
	proc_end(&ump);
	kc_close(alice);
	kc_close(bob);
	kd_stop(d);
}
END_TEST

static Suite *client_watch_suite(void)
{
	Suite *s = suite_create("client_watch");
	TCase *tc = tcase_create("client_watch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, spectator_and_umpire);
	tcase_add_test(tc, umpire_actions);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(client_watch_suite)
