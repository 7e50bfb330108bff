/*
 * test_timing.c — what one player does in private must not reach the
 * other, not even as a delay; and a locked database must not stop the
 * daemon.  No clock is read: the tests hold a commit pending (the
 * database locked by another process, as test_storage does) and assert
 * what is and is not answered meanwhile, and in which order.
 *
 *   private_try_waits_for_nobody  Black's illegal try (icc: heard by Black
 *                        alone) is pending; White's ping, game, possible,
 *                        games and a move in a second game are answered,
 *                        and White's view shows nothing of the try; once
 *                        the lock goes Black gets its event, then its ok
 *   loop_not_blocked     while a move waits for the lock, other clients
 *                        connect, say hello, ping, list who is online and
 *                        log in (answered, `storage` while locked)
 *   failed_commit_cascade the pending try fails (busy_timeout): Black gets
 *                        `storage`, so does White's resignation taken
 *                        meanwhile; nobody heard anything; the game goes
 *                        on from where it was
 *   per_ip_cap           max_connections_per_ip: one more connection from
 *                        the address gets server_full naming the
 *                        per-address limit, then room again once one leaves
 *   hidden_actions_cost_nothing  a live game's views (a player's `game`,
 *                        own `record`, a login's state, a spectator's
 *                        `watch`) are charged what their reader was told,
 *                        not the actions hidden from them
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

#define FAST "rate_limit = 10000\nrate_burst = 10000\n"

struct tgame {
	int64_t id;
	struct action acts[32];
	size_t n;
};

static void played(struct tgame *g, int color, const char *text)
{
	ck_assert_uint_lt(g->n, sizeof g->acts / sizeof g->acts[0]);
	kg_action(&g->acts[g->n++], ACTION_TRY, color, text);
}

static void move_ok(struct kp *p, struct kp *opp, struct tgame *g, int color, const char *m)
{
	kc_ok(p->c, kc_req(p->c, "move", "{s:I, s:s}", "game", (json_int_t)g->id, "move", m));
	played(g, color, m);
	(void)opp;
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

/* Index of the first line c received that is the response `id`, or the
 * event named `event` (id < 0); -1 if none. */
static long first_line(struct kc *c, long long id, const char *event)
{
	for (size_t i = 0; i < kc_nlines(c); i++) {
		json_t *j = json_loads(kc_line(c, i), 0, NULL);
		bool hit = false;
		if (j && id >= 0)
			hit = json_integer_value(json_object_get(j, "id")) == id &&
			      json_object_get(j, "ok") != NULL;
		else if (j && event != NULL)
			hit = json_is_string(json_object_get(j, "event")) &&
			      strcmp(json_string_value(json_object_get(j, "event")), event) == 0;
		json_decref(j);
		if (hit)
			return (long)i;
	}
	return -1;
}

/* No response with this id among the lines c has, after reading what
 * arrives within wait_ms. */
static void assert_no_response(struct kc *c, long long id, int wait_ms)
{
	while (kc_next(c, wait_ms) != NULL)
		;
	ck_assert_msg(first_line(c, id, NULL) < 0, "request %lld was answered while pending", id);
}

/* Is line i of c an event (not a response)? */
static bool is_event(struct kc *c, size_t i)
{
	json_t *j = json_loads(kc_line(c, i), 0, NULL);
	bool ev = j && json_object_get(j, "event") != NULL && json_object_get(j, "id") == NULL;
	json_decref(j);
	return ev;
}

/* 1. e4 e5 2. Nf3: Black's pawn on e5 now "tries" e5e4, blocked by White's
 * pawn: an illegal try Black cannot see is one.  Asserts (with the local
 * referee) that icc tells White nothing of it. */
static void to_private_try(struct kp *w, struct kp *b, struct tgame *g)
{
	move_ok(w, b, g, WHITE, "e2e4");
	move_ok(b, w, g, BLACK, "e7e5");
	move_ok(w, b, g, WHITE, "g1f3");
	json_t *before = kg_expected("icc", g->acts, g->n, g->id, AUD_WHITE);
	json_t *before_b = kg_expected("icc", g->acts, g->n, g->id, AUD_BLACK);
	played(g, BLACK, "e5e4");
	json_t *after = kg_expected("icc", g->acts, g->n, g->id, AUD_WHITE);
	json_t *after_b = kg_expected("icc", g->acts, g->n, g->id, AUD_BLACK);
	g->n--;
	ck_assert_msg(json_equal(before, after), "the test's try is not private to Black");
	ck_assert_msg(json_array_size(after_b) > json_array_size(before_b), "Black hears nothing");
	json_decref(before);
	json_decref(after);
	json_decref(before_b);
	json_decref(after_b);
	/* Everything those moves announced is read (it came before these). */
	kc_ok(w->c, kc_req(w->c, "ping", NULL));
	kc_ok(b->c, kc_req(b->c, "ping", NULL));
}

START_TEST(private_try_waits_for_nobody)
{
	struct kd *d = kd_start(FAST "busy_timeout = 50s\n");
	struct kp w, b, x;
	struct tgame g1 = { 0 }, g2 = { 0 };

	kp_guest(d, &w);
	kp_guest(d, &b);
	kp_guest(d, &x);
	g1.id = kg_new_game(&w, &b);
	g2.id = kg_new_game(&w, &x);
	to_private_try(&w, &b, &g1);
	move_ok(&w, &x, &g2, WHITE, "d2d4");
	kc_event(x.c, "moved");

	sqlite3 *db = kd_lock_db(d);
	size_t w_before = kc_nlines(w.c);

	/* Black's private try, then a ping on the same connection: the ping's
	 * answer proves the try was ruled on; the try's own answer waits. */
	long long try_id = kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)g1.id, "move", "e5e4");
	long long bping = kc_req(b.c, "ping", NULL);
	kc_ok(b.c, bping);
	ck_assert_int_lt(first_line(b.c, try_id, NULL), 0);

	/* White is answered at once, about this game and another. */
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	json_t *view = kc_ok(w.c, kc_req(w.c, "game", "{s:I}", "game", (json_int_t)g1.id));
	json_t *want = kg_expected("icc", g1.acts, g1.n, g1.id, AUD_WHITE);
	ck_assert_msg(json_equal(json_object_get(view, "events"), want),
	              "White's view differs while Black's try is pending");
	json_decref(want);
	ck_assert_str_eq(json_string_value(json_object_get(view, "to_move")), "black");
	json_t *pos = kc_ok(w.c, kc_req(w.c, "possible", "{s:I}", "game", (json_int_t)g1.id));
	ck_assert(json_is_array(json_object_get(pos, "moves")));
	kc_ok(w.c, kc_req(w.c, "games", NULL));
	/* A move in the second game (x's turn there: refused at once, nothing
	 * to store), and x's own move there, which is stored: it waits for the
	 * lock like every commit, but it waits behind the database, not behind
	 * Black (answered once the lock goes). */
	kc_error(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)g2.id, "move", "c2c4"),
	         "not_your_turn");
	long long xmove = kc_req(x.c, "move", "{s:I, s:s}", "game", (json_int_t)g2.id, "move", "d7d5");

	/* Still locked: Black has no answer yet, White heard nothing. */
	assert_no_response(b.c, try_id, 300);
	for (size_t i = w_before; i < kc_nlines(w.c); i++)
		ck_assert_msg(!is_event(w.c, i) && strstr(kc_line(w.c, i), "illegal") == NULL,
		              "White heard: %s", kc_line(w.c, i));

	kd_unlock_db(db);
	kc_ok(b.c, try_id);
	played(&g1, BLACK, "e5e4");
	long ev = -1;
	for (size_t i = 0; i < kc_nlines(b.c); i++)
		if (strstr(kc_line(b.c, i), "\"illegal") != NULL)
			ev = (long)i;
	ck_assert_msg(ev >= 0 && ev < first_line(b.c, try_id, NULL),
	              "Black's illegal event is not before its ok");
	kc_ok(x.c, xmove);
	played(&g2, BLACK, "d7d5");
	kc_event(w.c, "moved");

	/* White never heard of the try. */
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	for (size_t i = w_before; i < kc_nlines(w.c); i++)
		ck_assert_msg(strstr(kc_line(w.c, i), "illegal") == NULL, "White heard: %s",
		              kc_line(w.c, i));
	move_ok(&b, &w, &g1, BLACK, "b8c6");
	check_views(&w, &b, &g1);
	check_views(&w, &x, &g2);
	kc_close(w.c);
	kc_close(b.c);
	kc_close(x.c);
	kd_stop(d);
}
END_TEST

START_TEST(loop_not_blocked)
{
	struct kd *d = kd_start(FAST "busy_timeout = 50s\n");
	struct kp w, b, o;
	struct tgame g = { 0 };

	kp_guest(d, &w);
	kp_guest(d, &b);
	kp_guest(d, &o);
	g.id = kg_new_game(&w, &b);

	sqlite3 *db = kd_lock_db(d);
	long long mv = kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)g.id, "move", "e2e4");
	kc_ok(w.c, kc_req(w.c, "ping", NULL));   /* the move was ruled on */

	/* Unrelated clients are served meanwhile. */
	kc_ok(o.c, kc_req(o.c, "who", NULL));
	kc_ok(o.c, kc_req(o.c, "ping", NULL));
	struct kc *fresh = kc_hello(d);
	kc_ok(fresh, kc_req(fresh, "ping", NULL));
	/* A login writes (a guest account, a session): it cannot succeed
	 * while another process holds the lock, but it is answered, promptly
	 * enough that the move above is still waiting. */
	json_t *r = kc_response(fresh, kc_req(fresh, "guest", NULL));
	const char *code = json_string_value(json_object_get(json_object_get(r, "error"), "code"));
	ck_assert_msg(json_is_true(json_object_get(r, "ok")) || (code && !strcmp(code, "storage")),
	              "guest login while locked: %s", code ? code : "?");
	assert_no_response(w.c, mv, 100);
	/* The move is held for its commit, which the lock stops: Black has
	 * not heard of it (read up to a ping's answer; a `games` barrier
	 * would wait for that commit). */
	kc_no_event(b.c, "moved");

	kd_unlock_db(db);
	kc_ok(w.c, mv);
	played(&g, WHITE, "e2e4");
	kc_event(b.c, "moved");
	kc_ok(fresh, kc_req(fresh, "guest", NULL));
	check_views(&w, &b, &g);
	kc_close(fresh);
	kc_close(w.c);
	kc_close(b.c);
	kc_close(o.c);
	kd_stop(d);
}
END_TEST

START_TEST(failed_commit_cascade)
{
	struct kd *d = kd_start(FAST "busy_timeout = 1s\n");
	struct kp w, b;
	struct tgame g = { 0 };

	kp_guest(d, &w);
	kp_guest(d, &b);
	g.id = kg_new_game(&w, &b);
	to_private_try(&w, &b, &g);
	size_t w_before = kc_nlines(w.c), b_before = kc_nlines(b.c);

	sqlite3 *db = kd_lock_db(d);
	long long try_id = kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)g.id, "move", "e5e4");
	kc_ok(b.c, kc_req(b.c, "ping", NULL));
	/* White resigns while the try commits: built on a state that is
	 * undone, it fails with it (or in the next batch, still locked). */
	long long res = kc_req(w.c, "resign", "{s:I}", "game", (json_int_t)g.id);
	kc_error(b.c, try_id, "storage");
	kc_error(w.c, res, "storage");
	ck_assert(kd_log_wait(d, "not saved", 5000));
	kd_unlock_db(db);

	/* Nobody heard anything, and the game is where it was: the same
	 * illegal try is taken again (not "already tried"). */
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	kc_ok(b.c, kc_req(b.c, "ping", NULL));
	for (size_t i = w_before; i < kc_nlines(w.c); i++)
		ck_assert_msg(!is_event(w.c, i), "White heard: %s", kc_line(w.c, i));
	for (size_t i = b_before; i < kc_nlines(b.c); i++)
		ck_assert_msg(!is_event(b.c, i), "Black heard: %s", kc_line(b.c, i));
	check_views(&w, &b, &g);
	move_ok(&b, &w, &g, BLACK, "e5e4");
	move_ok(&b, &w, &g, BLACK, "b8c6");
	move_ok(&w, &b, &g, WHITE, "f1c4");
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_restart(d);
	ck_assert_int_eq(kd_log_count(d, "record check failed"), 0);
	kp_resume(d, &w);
	kp_resume(d, &b);
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(per_ip_cap)
{
	struct kd *d = kd_start("max_connections_per_ip = 2\n");
	struct kc *a = kc_hello(d);
	struct kc *b = kc_hello(d);

	struct kc *c = kc_open(d);
	json_t *e = kc_error(c, KC_NULL_ID, "server_full");
	const char *msg = json_string_value(json_object_get(json_object_get(e, "error"), "message"));
	ck_assert_msg(msg && strstr(msg, "per-address"), "message: %s", msg ? msg : "?");
	ck_assert(kc_closed(c, KC_TIMEOUT_MS));
	ck_assert(!kc_saw(c, "greeting"));
	kc_close(c);
	ck_assert(kd_log_wait(d, "over max_connections_per_ip", KC_TIMEOUT_MS));

	kc_close(a);
	ck_assert(kd_log_wait(d, "closed reason=\"eof\"", KC_TIMEOUT_MS));
	c = kc_hello(d);
	kc_ok(c, kc_req(c, "ping", NULL));
	kc_ok(b, kc_req(b, "ping", NULL));
	kc_close(b);
	kc_close(c);
	kd_stop(d);
}
END_TEST

/*
 * A view of a live game is read from what its reader was told
 * (server/audlist.h), not replayed from the record: a replay cost every
 * action of it, heard or not, and under rate_rows = 1 its rows, a token
 * each, held the reader's next request for as long as the actions they
 * were not told of took to pay for (the timing probe: the refusals
 * counted an opponent's private tries exactly).  The umpire writes
 * PRIVATE_NOTES private notes, heard by no player and no spectator, then
 * a public one; at one token a row and 50 a second, White's `game`, own
 * `record`, a login's (a resume's) state, and a spectator's `watch` are
 * each sent with a ping behind them in one write: the ping is answered
 * at once (before: held a minute, past the wait), and no view holds a
 * private note; a login's state and the `game` view again after a
 * restart.
 */
#define PRIVATE_NOTES 3000
#define ONE_TOKEN_A_ROW "rate_limit = 50\nrate_burst = 20\nrate_rows = 1\n"

/* Request `req` (a line with "id":900) and a ping (901) in one write from
 * c: both answered, in order, nothing refused; the request's answer (or,
 * for `resume`, nothing: its state's events are in c's lines). */
static json_t *with_ping(struct kc *c, const char *req)
{
	char batch[512];
	int n = snprintf(batch, sizeof batch, "%s\n{\"id\":901,\"type\":\"ping\"}\n", req);
	ck_assert_int_eq(kc_write(c, batch, (size_t)n, KC_TIMEOUT_MS), 0);
	json_t *r = kc_ok(c, 900);
	kc_ok(c, 901);
	ck_assert(!kc_saw(c, "rate_limited"));
	return r;
}

/* The view's events say the last, public note and no private one. */
static void told_only_public(json_t *events, const char *who)
{
	ck_assert_msg(json_is_array(events), "%s: no events", who);
	bool last = false;
	size_t i;
	json_t *e;
	json_array_foreach(events, i, e) {
		const char *text = json_string_value(json_object_get(e, "text"));
		ck_assert_msg(text == NULL || text[0] != 'n', "%s heard a private note: %s", who, text);
		last |= text != NULL && strcmp(text, "last") == 0;
	}
	ck_assert_msg(last, "%s: the public note is not in the view", who);
}

/* White's PGN of the live game (one chunk: nothing of the notes, which a
 * player's PGN never carries), made from what White heard: before, from
 * the record read and replayed through the public note, 3,000 rows
 * charged, and the ping behind it held a minute. */
static void pgn_of_what_was_heard(struct kc *c, int64_t game, const char *who)
{
	char req[128];
	snprintf(req, sizeof req, "{\"id\":900,\"type\":\"pgn\",\"game\":%lld}", (long long)game);
	json_t *r = with_ping(c, req);
	const char *text = json_string_value(json_object_get(r, "pgn"));
	ck_assert_msg(text != NULL && strstr(text, "1. e4") != NULL, "%s: %s", who, text);
	ck_assert_msg(json_object_get(r, "next") == NULL, "%s: more than one chunk", who);
}

START_TEST(hidden_actions_cost_nothing)
{
	struct kd *d = kd_start(FAST);
	struct kp w, b, u, s;
	kp_guest(d, &w);
	kp_guest(d, &b);
	kg_user_add(d, "ump", "umpire", "sesame-open");
	kp_login(d, &u, "ump", "sesame-open");
	int64_t game = kg_new_game(&w, &b);
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e4"));
	kc_ok(u.c, kc_req(u.c, "umpire", "{s:I}", "game", (json_int_t)game));
	for (int k = 0; k < PRIVATE_NOTES; k += 100) {
		long long ids[100];
		for (int i = 0; i < 100; i++) {
			char text[16];
			snprintf(text, sizeof text, "n%d", k + i);
			ids[i] = kc_req(u.c, "note", "{s:I, s:s, s:b}", "game", (json_int_t)game, "text",
			                text, "public", 0);
		}
		for (int i = 0; i < 100; i++)
			kc_ok(u.c, ids[i]);
	}
	kc_ok(u.c, kc_req(u.c, "note", "{s:I, s:s, s:b}", "game", (json_int_t)game, "text", "last",
	                  "public", 1));
	kc_event(w.c, "umpire_note");
	kd_reload(d, ONE_TOKEN_A_ROW);

	char req[256];
	snprintf(req, sizeof req, "{\"id\":900,\"type\":\"game\",\"game\":%lld}", (long long)game);
	json_t *v = with_ping(w.c, req);
	ck_assert_int_lt(json_integer_value(json_object_get(v, "total")), 20);
	told_only_public(json_object_get(v, "events"), "white's game view");

	snprintf(req, sizeof req, "{\"id\":900,\"type\":\"record\",\"game\":%lld,\"view\":\"white\"}",
	         (long long)game);
	told_only_public(json_object_get(with_ping(w.c, req), "events"), "white's record");
	pgn_of_what_was_heard(w.c, game, "white's pgn");

	kp_guest(d, &s);
	snprintf(req, sizeof req, "{\"id\":900,\"type\":\"watch\",\"game\":%lld}", (long long)game);
	told_only_public(json_object_get(with_ping(s.c, req), "events"), "the spectator's catch-up");

	struct kc *again = kc_hello(d);
	snprintf(req, sizeof req, "{\"id\":900,\"type\":\"resume\",\"token\":\"%s\"}", w.token);
	with_ping(again, req);
	json_t *st = kc_event(again, "game_state");
	told_only_public(json_object_get(st, "events"), "white's state at a login");
	kc_close(again);

	/* The same after a restart, which reads the lists from the record. */
	kd_restart(d);
	again = kc_hello(d);
	snprintf(req, sizeof req, "{\"id\":900,\"type\":\"resume\",\"token\":\"%s\"}", w.token);
	with_ping(again, req);
	told_only_public(json_object_get(kc_event(again, "game_state"), "events"),
	                 "white's state after a restart");
	snprintf(req, sizeof req, "{\"id\":900,\"type\":\"game\",\"game\":%lld}", (long long)game);
	told_only_public(json_object_get(with_ping(again, req), "events"),
	                 "white's game view after a restart");
	pgn_of_what_was_heard(again, game, "white's pgn after a restart");

	kc_close(again);
	kc_close(s.c);
	kc_close(u.c);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

static Suite *timing_suite(void)
{
	Suite *s = suite_create("timing");
	TCase *tc = tcase_create("timing");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, private_try_waits_for_nobody);
	tcase_add_test(tc, loop_not_blocked);
	tcase_add_test(tc, failed_commit_cascade);
	tcase_add_test(tc, per_ip_cap);
	tcase_add_test(tc, hidden_actions_cost_nothing);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(timing_suite)
