/*
 * test_batch.c — group commit (server/batch.c): the actions of one loop
 * turn share one transaction, and nothing they announce leaves the daemon
 * before it commits.
 *
 * Two actions in one turn: a player in two games sends a move in each,
 * back to back in one write, so kriegd reads both lines in one callback.
 *
 *   one_commit_per_turn  both moves are one commit (debug log "store commit
 *                        actions=2"); every client gets an action's events
 *                        before its ok; a view of a game pipelined after a
 *                        move in it waits for the commit and shows the move
 *   failed_commit        the database locked by another process: both
 *                        actions of one turn (a move, a resignation) get
 *                        `storage`, the opponents hear nothing, and both
 *                        games go on from where they were (the resigned one
 *                        still live), and are recovered as acknowledged
 *   config_keys          store_synchronous, busy_timeout, abandon_grace are
 *                        applied; wrong values stop kriegd at start
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "check_main.h"
#include "event.h"
#include "harness.h"
#include "harness_game.h"

/* A checkpoint mark of 10 pages: the checkpointer thread (store_ckpt.c)
 * runs all through these tests, also under ThreadSanitizer (make check). */
#define DEBUG_CONF "log_level = debug\nrate_limit = 10000\nrate_burst = 10000\n" \
                   "store_checkpoint_pages = 10\n"

struct tgame {
	int64_t id;
	struct action acts[16];
	size_t n;
};

static void played(struct tgame *g, int color, const char *text)
{
	ck_assert_uint_lt(g->n, sizeof g->acts / sizeof g->acts[0]);
	kg_action(&g->acts[g->n++], ACTION_TRY, color, text);
}

/* Two requests in one write (one TLS record): read in one loop turn. */
static void send_pair(struct kc *c, const char *line1, const char *line2)
{
	char buf[600];
	snprintf(buf, sizeof buf, "%s\n%s\n", line1, line2);
	kc_send(c, buf);
}

static void move_line(char *buf, size_t len, long long id, int64_t game, const char *m)
{
	snprintf(buf, len, "{\"id\":%lld,\"type\":\"move\",\"game\":%lld,\"move\":\"%s\"}", id,
	         (long long)game, m);
}

/* Index of the first line received by c matching: a response with id, or
 * (id < 0) an event `event` of game `game`.  -1 if none. */
static long first_line(struct kc *c, long long id, const char *event, int64_t game)
{
	for (size_t i = 0; i < kc_nlines(c); i++) {
		json_t *j = json_loads(kc_line(c, i), 0, NULL);
		bool hit = false;
		if (j && id >= 0)
			hit = json_integer_value(json_object_get(j, "id")) == id &&
			      json_object_get(j, "ok") != NULL;
		else if (j)
			hit = json_is_string(json_object_get(j, "event")) &&
			      strcmp(json_string_value(json_object_get(j, "event")), event) == 0 &&
			      json_integer_value(json_object_get(j, "game")) == game;
		json_decref(j);
		if (hit)
			return (long)i;
	}
	return -1;
}

/* Both players' views equal the replay of the acknowledged actions. */
static void check_views(struct kp *w, struct kp *b, const struct tgame *g)
{
	for (int col = WHITE; col <= BLACK; col++) {
		json_t *got = kg_fetch_events(col == WHITE ? w->c : b->c, "game", g->id, NULL, NULL, 0);
		ck_assert_ptr_nonnull(got);
		json_t *want = kg_expected("icc", g->acts, g->n, g->id, aud_of(col));
		ck_assert_msg(json_equal(got, want), "game %lld: %s's view is not the acknowledged record",
		              (long long)g->id, col == WHITE ? "white" : "black");
		json_decref(got);
		json_decref(want);
	}
}

/* a plays white against b and c. */
static void two_games(struct kd *d, struct kp *a, struct kp *b, struct kp *c, struct tgame *g1,
                      struct tgame *g2)
{
	kp_guest(d, a);
	kp_guest(d, b);
	kp_guest(d, c);
	memset(g1, 0, sizeof *g1);
	memset(g2, 0, sizeof *g2);
	g1->id = kg_new_game(a, b);
	g2->id = kg_new_game(a, c);
	ck_assert_int_ne(g1->id, g2->id);
}

START_TEST(one_commit_per_turn)
{
	struct kd *d = kd_start(DEBUG_CONF);
	struct kp a, b, c;
	struct tgame g1, g2;
	char l1[200], l2[200];

	two_games(d, &a, &b, &c, &g1, &g2);
	ck_assert_int_eq(kd_log_count(d, "store commit actions=2"), 0);

	move_line(l1, sizeof l1, 9001, g1.id, "e2e4");
	move_line(l2, sizeof l2, 9002, g2.id, "d2d4");
	send_pair(a.c, l1, l2);
	kc_ok(a.c, 9001);
	kc_ok(a.c, 9002);
	played(&g1, WHITE, "e2e4");
	played(&g2, WHITE, "d2d4");
	ck_assert_msg(kd_log_wait(d, "store commit actions=2", 5000),
	              "the two moves of one turn were not one commit");

	/* Every client has an action's events before its ok... */
	long ev1 = first_line(a.c, -1, "move", g1.id), ok1 = first_line(a.c, 9001, NULL, 0);
	long ev2 = first_line(a.c, -1, "move", g2.id), ok2 = first_line(a.c, 9002, NULL, 0);
	ck_assert(ev1 >= 0 && ev2 >= 0);
	ck_assert_int_lt(ev1, ok1);
	ck_assert_int_lt(ev2, ok2);
	/* ...and the opponents hear the moves. */
	kc_event(b.c, "moved");
	kc_event(c.c, "moved");

	/* A view pipelined after a move in the same game waits for its commit:
	 * it comes after the ok, and holds the move. */
	move_line(l1, sizeof l1, 9003, g1.id, "g1f3");
	snprintf(l2, sizeof l2, "{\"id\":9004,\"type\":\"game\",\"game\":%lld}", (long long)g1.id);
	kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)g1.id, "move", "e7e5"));
	played(&g1, BLACK, "e7e5");
	send_pair(a.c, l1, l2);
	kc_ok(a.c, 9003);
	played(&g1, WHITE, "g1f3");
	json_t *view = kc_ok(a.c, 9004);
	ck_assert_int_lt(first_line(a.c, 9003, NULL, 0), first_line(a.c, 9004, NULL, 0));
	json_t *want = kg_expected("icc", g1.acts, g1.n, g1.id, AUD_WHITE);
	ck_assert_msg(json_equal(json_object_get(view, "events"), want),
	              "the view pipelined after a move does not show it");
	json_decref(want);
	ck_assert(kd_log_wait(d, "waits for the turn's commit", 5000));

	check_views(&a, &b, &g1);
	check_views(&a, &c, &g2);
	kc_close(a.c);
	kc_close(b.c);
	kc_close(c.c);
	kd_stop(d);
}
END_TEST

START_TEST(failed_commit)
{
	struct kd *d = kd_start(DEBUG_CONF "busy_timeout = 200ms\n");
	struct kp a, b, c;
	struct tgame g1, g2;
	char l1[200], l2[200];

	two_games(d, &a, &b, &c, &g1, &g2);
	kc_ok(a.c, kc_req(a.c, "move", "{s:I, s:s}", "game", (json_int_t)g2.id, "move", "c2c4"));
	played(&g2, WHITE, "c2c4");
	kc_event(c.c, "moved");
	kc_ok(c.c, kc_req(c.c, "move", "{s:I, s:s}", "game", (json_int_t)g2.id, "move", "e7e5"));
	played(&g2, BLACK, "e7e5");
	kc_event(a.c, "moved");

	/* Another process holds the write lock. */
	sqlite3 *db = kd_lock_db(d);
	size_t b_before = kc_nlines(b.c), c_before = kc_nlines(c.c);

	/* One turn, two actions: a move in game 1, a resignation of game 2. */
	move_line(l1, sizeof l1, 9101, g1.id, "e2e4");
	snprintf(l2, sizeof l2, "{\"id\":9102,\"type\":\"resign\",\"game\":%lld}", (long long)g2.id);
	send_pair(a.c, l1, l2);
	kc_error(a.c, 9101, "storage");
	kc_error(a.c, 9102, "storage");
	ck_assert_msg(kd_log_wait(d, "actions=2 not saved", 5000), "not one failed commit of two");

	/* Nobody heard of either. */
	kc_ok(b.c, kc_req(b.c, "ping", NULL));
	kc_ok(c.c, kc_req(c.c, "ping", NULL));
	for (size_t i = b_before; i < kc_nlines(b.c); i++)
		ck_assert_msg(strstr(kc_line(b.c, i), "\"event\"") == NULL, "b heard: %s",
		              kc_line(b.c, i));
	for (size_t i = c_before; i < kc_nlines(c.c); i++)
		ck_assert_msg(strstr(kc_line(c.c, i), "\"event\"") == NULL, "c heard: %s",
		              kc_line(c.c, i));
	ck_assert(!kc_saw(a.c, "\"game_over\""));
	/* The lock still held, reads work and show nothing of the two. */
	check_views(&a, &b, &g1);
	check_views(&a, &c, &g2);

	kd_unlock_db(db);

	/* The games go on from exactly where they were: game 2 is still live. */
	move_line(l1, sizeof l1, 9201, g1.id, "e2e4");
	move_line(l2, sizeof l2, 9202, g2.id, "g1f3");
	send_pair(a.c, l1, l2);
	kc_ok(a.c, 9201);
	kc_ok(a.c, 9202);
	played(&g1, WHITE, "e2e4");
	played(&g2, WHITE, "g1f3");
	kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)g1.id, "move", "e7e5"));
	played(&g1, BLACK, "e7e5");
	kc_ok(c.c, kc_req(c.c, "move", "{s:I, s:s}", "game", (json_int_t)g2.id, "move", "b8c6"));
	played(&g2, BLACK, "b8c6");
	check_views(&a, &b, &g1);
	check_views(&a, &c, &g2);

	/* And they are recovered as acknowledged. */
	kc_close(a.c);
	kc_close(b.c);
	kc_close(c.c);
	kd_restart(d);
	ck_assert_int_eq(kd_log_count(d, "record check failed"), 0);
	kp_resume(d, &a);
	kp_resume(d, &b);
	kp_resume(d, &c);
	check_views(&a, &b, &g1);
	check_views(&a, &c, &g2);
	kc_close(a.c);
	kc_close(b.c);
	kc_close(c.c);
	kd_stop(d);
}
END_TEST

static void expect_refused(const char *set, const char *needle)
{
	char dir[] = "/tmp/krieg-batchcfg-XXXXXX", out[4096], cmd[300];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *argv[] = { "kriegd", "--state-dir", dir, "--listen", "127.0.0.1:0", "--set", (char *)set,
	                 NULL };
	int st = kg_run_kriegd(argv, 30000, out, sizeof out);
	ck_assert_msg(st == 1, "kriegd --set %s exited %d:\n%s", set, st, out);
	ck_assert_msg(strstr(out, needle) != NULL, "no message naming %s:\n%s", needle, out);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(config_keys)
{
	struct kd *d = kd_start("store_synchronous = normal\nbusy_timeout = 1s\n"
	                        "untimed_abandon_grace = 300ms\n");
	ck_assert(kd_log_wait(d, "synchronous=normal", 5000));
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t g = kg_new_game(&w, &b);
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)g, "move", "e2e4"));
	/* White leaves; the configured grace (untimed games have none by default) ends the game. */
	kc_close(w.c);
	json_t *e = kc_event(b.c, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "abandoned");
	kc_close(b.c);
	kd_stop(d);

	expect_refused("store_synchronous=fast", "store_synchronous");
	expect_refused("busy_timeout=5000", "busy_timeout");
	expect_refused("abandon_grace=soon", "abandon_grace");
	expect_refused("untimed_abandon_grace=never", "untimed_abandon_grace");
}
END_TEST

static Suite *batch_suite(void)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("batch");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, one_commit_per_turn);
	tcase_add_test(tc, failed_commit);
	tcase_add_test(tc, config_keys);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(batch_suite)
