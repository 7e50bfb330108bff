/*
 * test_history.c — reading games back: `history`, `record` (white's,
 * black's and the umpire's view of a finished game, compared with a local
 * replay), `pgn`, and what may not be read: another side's or the umpire's
 * view of a live game, anyone else's live game.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "event.h"
#include "harness.h"
#include "harness_game.h"
#include "pgn.h"

#define ACTS_MAX 64

struct tgame {
	int64_t id;
	struct action acts[ACTS_MAX];
	size_t n;
};

static void play(struct kp *w, struct kp *b, struct tgame *g, int n, unsigned *seed)
{
	for (int i = 0; i < n; i++) {
		struct action a;
		ck_assert_int_ge(kg_random_try("icc", g->acts, g->n, seed, &a), 0);
		struct kc *c = a.color == WHITE ? w->c : b->c;
		kc_ok(c, kc_req(c, "move", "{s:I, s:s}", "game", (json_int_t)g->id, "move", a.text));
		g->acts[g->n++] = a;
	}
}

static void expect_view(struct kc *c, struct tgame *g, const char *view, unsigned aud)
{
	json_t *got = kg_fetch_events(c, "record", g->id, view, NULL, 0);
	ck_assert_msg(got != NULL, "record %s refused", view);
	json_t *want = kg_expected("icc", g->acts, g->n, g->id, aud);
	ck_assert_msg(json_equal(got, want), "the %s view differs from the replay", view);
	ck_assert_uint_gt(json_array_size(got), 0);
	json_decref(got);
	json_decref(want);
}

static void expect_refused_code(struct kc *c, int64_t game, const char *view, const char *want)
{
	char code[32] = "";
	json_t *got = kg_fetch_events(c, "record", game, view, code, sizeof code);
	ck_assert_msg(got == NULL, "record %s of game %lld was served", view, (long long)game);
	ck_assert_str_eq(code, want);
}

static void expect_refused(struct kc *c, int64_t game, const char *view)
{
	expect_refused_code(c, game, view, "no_such_game");
}

static json_t *find_game(json_t *games, int64_t id)
{
	for (size_t i = 0; i < json_array_size(games); i++)
		if (json_integer_value(json_object_get(json_array_get(games, i), "game")) == id)
			return json_array_get(games, i);
	return NULL;
}

START_TEST(views_and_history)
{
	unsigned seed = 5;
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp a, b, x;
	static struct tgame done, live;

	kp_guest(d, &a);
	kp_guest(d, &b);
	kp_guest(d, &x);
	memset(&done, 0, sizeof done);
	memset(&live, 0, sizeof live);
	done.id = kg_new_game(&a, &b);
	play(&a, &b, &done, 12, &seed);
	/* The side to move resigns: a finished game with a result. */
	struct action end;
	ck_assert_int_ge(kg_random_try("icc", done.acts, done.n, &seed, &end), 0);
	struct kp *res = end.color == WHITE ? &a : &b;
	kc_ok(res->c, kc_req(res->c, "resign", "{s:I}", "game", (json_int_t)done.id));
	kg_action(&end, ACTION_END, end.color, "resignation");
	done.acts[done.n++] = end;
	live.id = kg_new_game(&a, &b);
	play(&a, &b, &live, 5, &seed);

	/* A finished game is public: all three views, to anyone. */
	expect_view(x.c, &done, "white", AUD_WHITE);
	expect_view(x.c, &done, "black", AUD_BLACK);
	expect_view(x.c, &done, "umpire", AUD_UMPIRE);
	expect_view(a.c, &done, "black", AUD_BLACK);
	/* A live game: your own view only. */
	expect_view(a.c, &live, "white", AUD_WHITE);
	expect_view(b.c, &live, "black", AUD_BLACK);
	/* A player of the live game is told why (issue 10), not "no such game". */
	expect_refused_code(a.c, live.id, "black", "forbidden");
	expect_refused_code(a.c, live.id, "umpire", "forbidden");
	expect_refused_code(b.c, live.id, "white", "forbidden");
	expect_refused(x.c, live.id, "white");
	expect_refused(x.c, live.id + 1000, "umpire");
	kc_error(x.c, kc_req(x.c, "record", "{s:I, s:s}", "game", (json_int_t)done.id, "view", "all"),
	         "bad_request");

	/* history: mine (live and finished), someone else's (finished only). */
	json_t *r = kc_ok(a.c, kc_req(a.c, "history", NULL));
	json_t *games = json_object_get(r, "games");
	ck_assert_uint_eq(json_array_size(games), 2);
	ck_assert(json_is_true(json_object_get(find_game(games, live.id), "live")));
	json_t *gd = find_game(games, done.id);
	ck_assert(json_is_false(json_object_get(gd, "live")));
	ck_assert_str_eq(json_string_value(json_object_get(gd, "reason")), "resignation");
	ck_assert_str_eq(json_string_value(json_object_get(gd, "result")),
	                 end.color == WHITE ? "0-1" : "1-0");
	ck_assert_str_eq(json_string_value(json_object_get(gd, "white")), a.name);
	r = kc_ok(x.c, kc_req(x.c, "history", "{s:s}", "user", a.name));
	games = json_object_get(r, "games");
	ck_assert_uint_eq(json_array_size(games), 1);
	ck_assert_ptr_nonnull(find_game(games, done.id));
	r = kc_ok(a.c, kc_req(a.c, "history", "{s:i}", "limit", 1));
	ck_assert_uint_eq(json_array_size(json_object_get(r, "games")), 1);
	kc_error(x.c, kc_req(x.c, "history", "{s:s}", "user", "nobody-here"), "no_such_user");
	json_t *e = kc_error(x.c, kc_req(x.c, "history", "{s:i}", "limit", 0), "bad_request");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"), "message")),
	                 "field 'limit' must be from 1 to 100");   /* as the table's 101 says */
	static const char *const views[] = { "spectator", "umpires", "" };
	for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
		e = kc_error(x.c, kc_req(x.c, "record", "{s:I, s:s}", "game", (json_int_t)done.id,
		                         "view", views[i]), "bad_request");
		ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"),
		                                                   "message")),
		                 "view must be white, black or umpire");
		e = kc_error(x.c, kc_req(x.c, "pgn", "{s:I, s:s}", "game", (json_int_t)done.id,
		                         "view", views[i]), "bad_request");
		ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "error"),
		                                                   "message")),
		                 "view must be white, black or umpire");
	}

	/* pgn: the full record of a finished game reads back through pgn_read. */
	char code[32] = "", err[256];
	char *text = kg_fetch_pgn(x.c, done.id, NULL, code, sizeof code);
	ck_assert_msg(text != NULL, "pgn refused: %s", code);
	ck_assert_ptr_nonnull(strstr(text, a.name));
	struct pgn_header h;
	struct action *acts = NULL;
	size_t n = 0;
	ck_assert_msg(pgn_read(text, &h, &acts, &n, err, sizeof err) == 0, "pgn_read: %s", err);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(acts[n - 1].kind, ACTION_END);
	free(acts);
	free(text);
	/* A live game's pgn: own view by default, never the other's. */
	text = kg_fetch_pgn(a.c, live.id, NULL, code, sizeof code);
	ck_assert_msg(text != NULL, "own pgn refused: %s", code);
	free(text);
	ck_assert_ptr_null(kg_fetch_pgn(a.c, live.id, "black", code, sizeof code));
	ck_assert_str_eq(code, "forbidden");
	ck_assert_ptr_null(kg_fetch_pgn(x.c, live.id, NULL, code, sizeof code));
	ck_assert_str_eq(code, "no_such_game");

	/* Views survive a restart (they are replayed from the store). */
	kc_close(a.c);
	kc_close(b.c);
	kc_close(x.c);
	kd_restart(d);
	kp_resume(d, &x);
	expect_view(x.c, &done, "umpire", AUD_UMPIRE);
	kc_close(x.c);
	kd_stop(d);
}
END_TEST

/* Fetch every page of a list request (type, with its other fields fixed
 * by `limit`), asserting each line fits; returns the concatenation. */
static json_t *fetch_list(struct kc *c, const char *type, const char *key, int limit)
{
	json_t *all = json_array();
	json_int_t from = 0, total = -1;
	int pages = 0;
	for (;;) {
		long long id = limit > 0 ? kc_req(c, type, "{s:i, s:I}", "limit", limit, "from", from)
		                         : kc_req(c, type, "{s:I}", "from", from);
		json_t *r = kc_ok(c, id);
		json_t *items = json_object_get(r, key);
		ck_assert(json_is_array(items));
		if (total < 0)
			total = json_integer_value(json_object_get(r, "total"));
		ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), total);
		json_array_extend(all, items);
		pages++;
		json_t *next = json_object_get(r, "next");
		if (!next)
			break;
		from = json_integer_value(next);
		ck_assert_int_eq(from, (json_int_t)json_array_size(all));
	}
	ck_assert_int_eq((json_int_t)json_array_size(all), total);
	ck_assert_msg(pages > 1, "%s fit in one page: not a paging test", type);
	for (size_t i = 0; i < kc_nlines(c); i++)
		ck_assert_uint_le(strlen(kc_line(c, i)) + 1, 16384);
	return all;
}

static void each_once(json_t *list, const int64_t *ids, size_t n)
{
	ck_assert_uint_eq(json_array_size(list), n);
	for (size_t k = 0; k < n; k++) {
		int hits = 0;
		for (size_t i = 0; i < json_array_size(list); i++)
			hits += json_integer_value(json_object_get(json_array_get(list, i), "game")) == ids[k];
		ck_assert_msg(hits == 1, "game %lld listed %d times", (long long)ids[k], hits);
	}
}

/* `history` (pages of `limit` games at most) and `games` with many games:
 * paged, each game once. */
START_TEST(lists_are_paged)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	enum { GAMES = 140, ABORTED = 40 };
	static int64_t ids[GAMES];
	for (int i = 0; i < GAMES; i++) {
		/* Timed, with a long rule-set name: summaries as long as real ones. */
		json_t *r = kc_ok(w.c, kc_req(w.c, "seek", "{s:s, s:s, s:{s:i, s:f}}", "rules",
		                               "insurance", "color", "white", "time", "base", 300,
		                               "inc", 2.5));
		r = kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer",
		                      json_integer_value(json_object_get(r, "offer"))));
		ids[i] = json_integer_value(json_object_get(r, "game"));
		if (i < ABORTED)
			kc_ok(w.c, kc_req(w.c, "abort", "{s:I}", "game", (json_int_t)ids[i]));
	}
	/* history: every game, whatever the page size (`limit`), newest first. */
	json_t *h = fetch_list(w.c, "history", "games", 100);
	each_once(h, ids, GAMES);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(h, 0), "game")),
	                 ids[GAMES - 1]);
	json_decref(h);
	h = fetch_list(w.c, "history", "games", 7);
	each_once(h, ids, GAMES);
	json_decref(h);
	/* Another's history: the finished games (the aborted ones), paged from
	 * `from`; past the end an empty page, with the whole list's total. */
	json_t *r = kc_ok(b.c, kc_req(b.c, "history", "{s:s, s:i, s:i}", "user", w.name, "limit", 5,
	                              "from", ABORTED - 7));
	json_t *games = json_object_get(r, "games");
	ck_assert_uint_eq(json_array_size(games), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(games, 0), "game")),
	                 ids[6]);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), ABORTED);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "next")), ABORTED - 2);
	r = kc_ok(b.c, kc_req(b.c, "history", "{s:s, s:i}", "user", w.name, "from", ABORTED));
	ck_assert_uint_eq(json_array_size(json_object_get(r, "games")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "total")), ABORTED);
	ck_assert_ptr_null(json_object_get(r, "next"));
	/* games: every live one, then the newest finished ones (20). */
	json_t *g = fetch_list(b.c, "games", "games", 0);
	static int64_t want[GAMES - ABORTED + 20];
	size_t n = 0;
	for (int i = ABORTED; i < GAMES; i++)
		want[n++] = ids[i];
	for (int i = ABORTED - 20; i < ABORTED; i++)
		want[n++] = ids[i];
	each_once(g, want, n);
	json_decref(g);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/*
 * A player's PGN of a live game is the same text, answered the same way,
 * whatever the opponent did since the player last heard anything: an icc
 * illegal try is the mover's alone, and it does not make the other's next
 * PGN a rebuild on the reader thread (a cache miss, tens of ms slower for
 * a long record) where it was a cached chunk.  Before, the cache was keyed
 * by the game's last action, so the timing told a private try (probe).
 */
START_TEST(private_try_keeps_the_pgn_cached)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\nlog_level = debug\n");
	struct kp w, b, u;
	kp_guest(d, &w);
	kp_guest(d, &b);
	kg_user_add(d, "pgnump", "umpire", "sesame-open");
	kp_login(d, &u, "pgnump", "sesame-open");
	/* Two notes in three public: Black's PGN is made from about 1,200
	 * actions it heard, long enough for the reader (games_heard_actions). */
	int64_t game = kg_noted_game(d, &w, &b, &u, 1800);
	kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e7e5"));
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	char *first = kg_fetch_pgn(b.c, game, "black", NULL, 0);
	ck_assert_ptr_nonnull(first);
	int built = kd_log_count(d, "replay goes to the reader");
	ck_assert_int_ge(built, 1);   /* a long record's text is built off the loop */
	/* White's blocked pawn: illegal, and in icc White's alone. */
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e4e5"));
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	char *again = kg_fetch_pgn(b.c, game, "black", NULL, 0);
	ck_assert_str_eq(again, first);
	ck_assert_int_eq(kd_log_count(d, "replay goes to the reader"), built);
	/* A legal move Black hears of is a new text. */
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "g1f3"));
	char *third = kg_fetch_pgn(b.c, game, "black", NULL, 0);
	ck_assert_str_ne(third, first);
	free(first);
	free(again);
	free(third);
	kc_close(w.c);
	kc_close(b.c);
	kc_close(u.c);
	kd_stop(d);
}
END_TEST

/*
 * The umpire's chair, read back: a tournament director exports a round's
 * games as PGN while they are played.  An umpire or admin who plays no
 * live game reads every view of one; one who plays is refused whether or
 * not the game exists; a player-role reader still hears no_such_game.
 * Before, every unfinished game was its two players' alone.
 */
START_TEST(umpire_reads_a_live_game)
{
	unsigned seed = 9;
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp a, b, x, u;
	static struct tgame live;

	kp_guest(d, &a);
	kp_guest(d, &b);
	kp_guest(d, &x);
	kg_user_add(d, "roundump", "umpire", "sesame-open");
	kp_login(d, &u, "roundump", "sesame-open");
	memset(&live, 0, sizeof live);
	live.id = kg_new_game(&a, &b);
	play(&a, &b, &live, 9, &seed);
	kc_ok(a.c, kc_req(a.c, "ping", NULL));
	kc_ok(b.c, kc_req(b.c, "ping", NULL));

	expect_view(u.c, &live, "umpire", AUD_UMPIRE);
	expect_view(u.c, &live, "white", AUD_WHITE);
	expect_view(u.c, &live, "black", AUD_BLACK);
	char *pgn = kg_fetch_pgn(u.c, live.id, NULL, NULL, 0);   /* default: the umpire's */
	ck_assert_ptr_nonnull(pgn);
	ck_assert_msg(strstr(pgn, "[Result \"*\"]") != NULL, "a live game's result in\n%s", pgn);
	ck_assert_msg(strstr(pgn, "[White \"") != NULL && strstr(pgn, a.name) != NULL, "%s", pgn);
	free(pgn);
	expect_refused(x.c, live.id, "umpire");
	expect_refused(x.c, live.id, "white");
	expect_refused(u.c, live.id + 1000, "umpire");

	/* The umpire sits down to play: no other unfinished game, nor an
	 * answer that tells a live game from none. */
	struct kp y;
	kp_guest(d, &y);
	int64_t own = kg_new_game(&u, &y);
	expect_refused_code(u.c, live.id, "umpire", "forbidden");
	expect_refused_code(u.c, live.id + 1000, "umpire", "forbidden");
	char code[32] = "";
	ck_assert_ptr_null(kg_fetch_pgn(u.c, live.id, "umpire", code, sizeof code));
	ck_assert_str_eq(code, "forbidden");
	/* Their own game reads as any player's. */
	expect_refused_code(u.c, own, "black", "forbidden");
	kc_ok(u.c, kc_req(u.c, "resign", "{s:I}", "game", (json_int_t)own));
	expect_view(u.c, &live, "umpire", AUD_UMPIRE);

	kc_close(a.c);
	kc_close(b.c);
	kc_close(x.c);
	kc_close(y.c);
	kc_close(u.c);
	kd_stop(d);
}
END_TEST

/* An action a player did not hear costs that player's views nothing: the
 * replay of a live game is kept at each commit, and a login's state is
 * replayed through the last action the player heard.  Before, Black's
 * `game` view after 1,100 private umpire's notes replayed them all (and
 * went to the reader thread for it), and a login's state replayed the
 * whole record: how long either took told Black how many actions it had
 * not heard (probe). */
START_TEST(unheard_actions_cost_no_view)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\nlog_level = debug\n");
	struct kp w, b, u;
	kg_user_add(d, "quietw", "player", "sesame-open");
	kg_user_add(d, "quietb", "player", "sesame-open");
	kg_user_add(d, "quietu", "umpire", "sesame-open");
	kp_login(d, &w, "quietw", "sesame-open");
	kp_login(d, &b, "quietb", "sesame-open");
	kp_login(d, &u, "quietu", "sesame-open");
	/* Two notes in three public: Black's PGN is made from about 1,200
	 * actions it heard, long enough for the reader (games_heard_actions). */
	int64_t game = kg_noted_game(d, &w, &b, &u, 1800);
	kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e7e5"));
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	json_t *before = kg_fetch_events(b.c, "game", game, NULL, NULL, 0);
	ck_assert_ptr_nonnull(before);
	struct kp b2;
	kp_login(d, &b2, "quietb", "sesame-open");
	kc_ok(b2.c, kc_req(b2.c, "ping", NULL));
	int through = kd_log_last_int(d, " through=");
	ck_assert_int_gt(through, 1500);
	int offloaded = kd_log_count(d, "replay goes to the reader");
	int replayed_on = kd_log_count(d, "cache replays on");
	/* 1,100 notes only umpires see: no player hears a thing. */
	for (int k = 0; k < 1100; k += 100) {
		long long ids[100];
		for (int i = 0; i < 100; i++)
			ids[i] = kc_req(u.c, "note", "{s:I, s:s, s:b}", "game", (json_int_t)game, "text",
			                "quiet", "public", 0);
		for (int i = 0; i < 100; i++)
			kc_ok(u.c, ids[i]);
	}
	json_t *after = kg_fetch_events(b.c, "game", game, NULL, NULL, 0);
	ck_assert_ptr_nonnull(after);
	ck_assert(json_equal(before, after));
	ck_assert_int_eq(kd_log_count(d, "replay goes to the reader"), offloaded);
	ck_assert_int_eq(kd_log_count(d, "cache replays on"), replayed_on);
	struct kp b3;
	kp_login(d, &b3, "quietb", "sesame-open");
	kc_ok(b3.c, kc_req(b3.c, "ping", NULL));
	ck_assert_int_eq(kd_log_last_int(d, " through="), through);
	/* White's next move is heard, and read at once. */
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "g1f3"));
	json_t *third = kg_fetch_events(b.c, "game", game, NULL, NULL, 0);
	ck_assert_int_gt(json_array_size(third), json_array_size(after));
	ck_assert_int_eq(kd_log_count(d, "cache replays on"), replayed_on);
	json_decref(before);
	json_decref(after);
	json_decref(third);
	kc_close(w.c);
	kc_close(b.c);
	kc_close(b2.c);
	kc_close(b3.c);
	kc_close(u.c);
	kd_stop(d);
}
END_TEST

/* A game's PGN names its time control (TimeControl): untimed "-", a clock
 * as seconds and increment, correspondence as one move in so many
 * seconds.  Before, no tag said it (probe). */
START_TEST(pgn_names_the_time_control)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	static const char *const want[] = { "-", "90.5+2", "1/259200" };
	for (int k = 0; k < 3; k++) {
		json_t *time = k == 0 ? NULL
		               : k == 1 ? json_pack("{s:f, s:i}", "base", 90.5, "inc", 2)
		                        : json_pack("{s:i}", "days", 3);
		json_t *r = kc_ok(w.c, kc_req(w.c, "seek", "{s:s, s:o*}", "color", "white", "time", time));
		r = kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer",
		                      json_integer_value(json_object_get(r, "offer"))));
		json_int_t game = json_integer_value(json_object_get(r, "game"));
		char *pgn = kg_fetch_pgn(w.c, game, "white", NULL, 0);   /* live: its own view */
		char tag[64];
		snprintf(tag, sizeof tag, "[TimeControl \"%s\"]", want[k]);
		ck_assert_msg(pgn != NULL && strstr(pgn, tag) != NULL, "%s in\n%s", tag, pgn);
		free(pgn);
		kc_ok(w.c, kc_req(w.c, "resign", "{s:I}", "game", game));
		pgn = kg_fetch_pgn(b.c, game, NULL, NULL, 0);   /* over: the full record */
		ck_assert_msg(pgn != NULL && strstr(pgn, tag) != NULL, "%s in\n%s", tag, pgn);
		/* Regression (the time probe): the date was UTC's unsaid, the time
		 * of day nowhere: UTCDate (Date's) and UTCTime, within seconds of now */
		const char *date = strstr(pgn, "[Date \""), *udate = strstr(pgn, "[UTCDate \""),
		           *utime = strstr(pgn, "[UTCTime \"");
		ck_assert_msg(date && udate && utime, "%s", pgn);
		ck_assert_msg(strncmp(date + 7, udate + 10, 10) == 0, "%s", pgn);
		struct timespec ts;   /* (`time` is the seek's terms here) */
		clock_gettime(CLOCK_REALTIME, &ts);
		struct tm tm;
		gmtime_r(&ts.tv_sec, &tm);
		int hh, mm, ss;
		ck_assert_int_eq(sscanf(utime + 10, "%2d:%2d:%2d", &hh, &mm, &ss), 3);
		long diff = ((long)tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec) - ((long)hh * 3600 + mm * 60 + ss);
		ck_assert_msg((diff >= 0 && diff < 60) || diff < -86340, "UTCTime %.8s, now %02d:%02d:%02d", utime + 10,
		              tm.tm_hour, tm.tm_min, tm.tm_sec);
		free(pgn);
	}
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

static Suite *history_suite(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("history");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, views_and_history);
	tcase_add_test(tc, umpire_reads_a_live_game);
	tcase_add_test(tc, lists_are_paged);
	tcase_add_test(tc, private_try_keeps_the_pgn_cached);
	tcase_add_test(tc, pgn_names_the_time_control);
	tcase_add_test(tc, unheard_actions_cost_no_view);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(history_suite)
