/*
 * test_replay_page.c — announce_replay_page (server/announce.c): a page of
 * a view built during the replay, only that page's events built, with and
 * without the replay cache.  On long recorded games (seeded random tries,
 * legal or not, as players make them, and an umpire's public and private
 * notes among them) and for every audience and way of writing it (the
 * umpire's seat with each event's audience, the umpire's record without
 * the private notes), the page from several `from`s must be exactly the
 * page dispatch_page cuts from the whole replay: the same events (so
 * nothing another audience hears, no private note where it is left out),
 * "total" and "next".  The cache must give the same pages while a record
 * grows and while records push each other out of it.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "announce.h"
#include "check_main.h"
#include "dispatch.h"
#include "event.h"
#include "fen.h"
#include "movegen.h"
#include "notation.h"
#include "referee.h"
#include "record.h"
#include "ruleset.h"
#include "store.h"
#include "tmpdb.h"

#define T_TRIES 500

static struct tmpdb db;
static struct store *st;

/* A game being recorded: up to T_TRIES tries drawn from each side's
 * possible ones, recorded as game.c records them: each action with its
 * events; every 37th action a notice (chat, notes, offers). */
struct rec {
	struct store_game game;
	struct referee *r;
	struct evlist out;
	unsigned seed;
	int i;
	int notes[2];   /* [public]: the notes recorded */
	struct announce_cache *live;   /* keeps it as game.c does a live game's (announce.h) */
};

static void rec_begin(struct rec *g, const char *rules, unsigned seed, const struct store_game *like)
{
	char err[256];

	memset(g, 0, sizeof *g);
	if (like == NULL) {
		record_begin(st, rules, &g->game);
	} else {   /* another game between the same two */
		g->game = *like;
		g->game.id = 0;
		ck_assert_int_eq(store_game_create(st, &g->game), STORE_OK);
	}
	g->r = referee_new(ruleset_find(rules), NULL, err, sizeof err);
	ck_assert_ptr_nonnull(g->r);
	evlist_init(&g->out);
	g->seed = seed;
}

/* Up to n more actions (fewer when the game ends). */
static void rec_more(struct rec *g, int n)
{
	for (int stop = g->i + n; g->i < stop && g->i <= T_TRIES && !referee_over(g->r); g->i++) {
		struct action act;
		if (g->i == 0) {
			ck_assert_int_eq(action_set(&act, ACTION_BEGIN, WHITE, ""), REF_OK);
		} else if (g->i % 37 == 0) {
			/* The notices in turn: a public note, a private one, a
			 * player's words, a spectator's, a draw offer, an offer to
			 * adjourn. */
			int color = referee_side_to_move(g->r), k = g->i / 37 % 6;
			if (k < 2) {
				struct action_umpire u = { .public = k == 0, .reason = "a note" };
				ck_assert_int_eq(action_set_umpire(&act, ACTION_NOTE, -1, &u), REF_OK);
				g->notes[u.public]++;
			} else {
				static const int kinds[] = { ACTION_SAY, ACTION_SPEC, ACTION_DRAW, ACTION_ADJOURN };
				static const char *const texts[] = { "good luck", "carol nice try", "offer",
					                             "offer" };
				ck_assert_int_eq(action_set(&act, kinds[k - 2], kinds[k - 2] == ACTION_SPEC ? -1 : color,
				                            texts[k - 2]), REF_OK);
			}
		} else {
			struct movelist l;
			char text[NOTATION_MAX];
			int color = referee_side_to_move(g->r);
			referee_possible(g->r, color, &l);
			if (l.n == 0)
				break;
			notation_uci(l.m[rand_r(&g->seed) % (unsigned)l.n], text);
			ck_assert_int_eq(action_set(&act, ACTION_TRY, color, text), REF_OK);
		}
		record_action(st, g->game.id, g->i + 1, g->r, &act, 0, 0, &g->out);
		if (g->live != NULL) {   /* taken when applied, added when committed */
			struct announce_step step;
			announce_step_take(g->live, &step, g->i + 1, &act, &g->out, g->r);
			announce_step_commit(g->live, st, &g->game, &step);
		}
	}
	ck_assert_int_eq(store_game_get(st, g->game.id, &g->game), STORE_OK);
}

static void rec_end(struct rec *g)
{
	evlist_free(&g->out);
	referee_free(g->r);
}

/* The private notes in a list. */
static int privates(const json_t *all)
{
	size_t i;
	json_t *e;
	int n = 0;

	json_array_foreach(all, i, e)
		n += json_is_true(json_object_get(e, "private"));
	return n;
}

/* Events named ev in a list (with key = value when key is given). */
static int count(const json_t *all, const char *ev, const char *key, const char *value)
{
	size_t i;
	json_t *e;
	int n = 0;

	json_array_foreach(all, i, e) {
		const char *v = key ? json_string_value(json_object_get(e, key)) : NULL;
		n += strcmp(json_string_value(json_object_get(e, "event")), ev) == 0 &&
		     (key == NULL || (v != NULL && strcmp(v, value) == 0));
	}
	return n;
}

/* For every page of (aud, how) of g's record: the page built alone (with
 * the cache ac, or without when NULL) equals the page cut from the whole
 * replay.  The whole list is returned. */
static json_t *check_pages(const struct rec *g, struct announce_cache *ac, unsigned aud,
                           unsigned how)
{
	json_t *all = announce_replay(st, &g->game, aud, how);
	ck_assert_ptr_nonnull(all);
	size_t n = json_array_size(all);
	ck_assert_uint_gt(n, 100);   /* a long record: several pages */
	size_t froms[] = { 0, 1, n / 3, n - 1, n, n + 7, n / 2, 0 };
	/* and the start of every page, as a client reads them */
	for (size_t from = 0, k = 0; k < 64; k++) {
		json_t *whole = json_object();
		size_t next = dispatch_page(whole, "events", all, from);
		struct pager pg;
		pager_init(&pg, from);
		ck_assert_int_eq(announce_replay_page(st, ac, &g->game, aud, how, &pg), 0);
		json_t *paged = json_object();
		ck_assert_uint_eq(pager_finish(&pg, paged, "events"), next);
		ck_assert_msg(json_equal(whole, paged),
		              "%s, audience %u, how %u, cache %s: the page from %zu differs",
		              g->game.rules, aud, how, ac ? "on" : "off", from);
		json_decref(whole);
		json_decref(paged);
		if (k < sizeof froms / sizeof froms[0])
			from = froms[k];
		else if (next >= n)
			break;
		else
			from = next;
	}
	return all;
}

/* Every list of g's record, paged with ac. */
static void check_lists(const struct rec *g, struct announce_cache *ac)
{
	static const unsigned auds[] = { AUD_WHITE, AUD_BLACK, AUD_SPECTATOR, AUD_UMPIRE };
	static const unsigned hows[] = { ANNOUNCE_AUDIENCE, ANNOUNCE_NO_PRIVATE,
		                         ANNOUNCE_AUDIENCE | ANNOUNCE_NO_PRIVATE };

	for (size_t a = 0; a < sizeof auds / sizeof auds[0]; a++) {
		json_t *all = check_pages(g, ac, auds[a], 0);
		/* Only the umpires hear the private notes; the spectators'
		 * channel never reaches a player; offers are the players' and
		 * the umpires'. */
		ck_assert_int_eq(privates(all), (auds[a] == AUD_UMPIRE ? g->notes[0] : 0));
		bool player = auds[a] == AUD_WHITE || auds[a] == AUD_BLACK;
		ck_assert_int_gt(count(all, "chat", "channel", "game"), 0);
		ck_assert_int_eq(count(all, "chat", "channel", "spectators") > 0, !player);
		ck_assert_int_eq(count(all, "draw_offer", NULL, NULL) > 0, auds[a] != AUD_SPECTATOR);
		ck_assert_int_eq(count(all, "adjourn_offer", NULL, NULL) > 0, auds[a] != AUD_SPECTATOR);
		json_decref(all);
	}
	for (size_t h = 0; h < sizeof hows / sizeof hows[0]; h++)
		json_decref(check_pages(g, ac, AUD_UMPIRE, hows[h]));
}

static void open_store(void)
{
	char err[512];

	tmpdb_make(&db, "replay");
	st = store_open(db.path, err, sizeof err);
	ck_assert_msg(st != NULL, "%s", err);
}

static void close_store(void)
{
	store_close(st);
	tmpdb_remove(&db);
}

static void check_rules(const char *rules, unsigned seed)
{
	struct rec g;

	open_store();
	rec_begin(&g, rules, seed, NULL);
	rec_more(&g, T_TRIES + 1);
	ck_assert_int_gt(g.notes[0], 0);
	ck_assert_int_gt(g.notes[1], 0);
	check_lists(&g, NULL);
	/* A mark every 7 actions, every record kept. */
	struct announce_cache *ac = announce_cache_new(4, 7, 0);
	check_lists(&g, ac);
	ck_assert_int_gt(announce_cache_marks(ac, g.game.id), 50);
	announce_cache_free(ac);
	/* The daemon's: a record this short is replayed whole. */
	ac = announce_cache_new(ANNOUNCE_CACHE_GAMES, ANNOUNCE_STRIDE, ANNOUNCE_CACHE_MIN);
	check_lists(&g, ac);
	ck_assert_int_eq(announce_cache_marks(ac, g.game.id), 0);
	announce_cache_free(ac);

	/* The umpire's seat: every event with who heard it. */
	json_t *plain = announce_replay(st, &g.game, AUD_UMPIRE, 0);
	json_t *all = announce_replay(st, &g.game, AUD_UMPIRE, ANNOUNCE_AUDIENCE);
	ck_assert_uint_eq(json_array_size(all), json_array_size(plain));
	size_t i;
	json_t *e;
	json_array_foreach(all, i, e) {
		json_t *who = json_object_get(e, "audience");
		ck_assert(json_is_array(who) && json_array_size(who) > 0);
		json_t *want = json_deep_copy(json_array_get(plain, i));
		json_object_set(want, "audience", who);
		ck_assert(json_equal(e, want));
		json_decref(want);
	}
	json_decref(all);
	/* The umpire's record read by one who is not an umpire: the same list
	 * without the private notes. */
	all = announce_replay(st, &g.game, AUD_UMPIRE, ANNOUNCE_NO_PRIVATE);
	ck_assert_int_eq(privates(all), 0);
	ck_assert_uint_eq(json_array_size(all), json_array_size(plain) - (size_t)g.notes[0]);
	for (size_t k = 0, p = 0; k < json_array_size(plain); k++)
		if (!json_is_true(json_object_get(json_array_get(plain, k), "private")))
			ck_assert(json_equal(json_array_get(plain, k), json_array_get(all, p++)));
	json_decref(all);
	json_decref(plain);
	rec_end(&g);
	close_store();
}

START_TEST(pages_equal_the_whole_replays_pages)
{
	check_rules("icc", 11);
	check_rules("english", 12);
	check_rules("crazykrieg", 13);
}
END_TEST

/* A record read, then grown (a live game goes on), then read again: the
 * cache replays on from where it stood and its pages are the longer
 * record's.  Two records through a cache of one: each read pushes the
 * other out, and every page is still right. */
START_TEST(cache_follows_growth_and_eviction)
{
	struct rec a, b;

	open_store();
	rec_begin(&a, "icc", 21, NULL);
	rec_begin(&b, "english", 22, &a.game);
	rec_more(&a, 250);
	rec_more(&b, 250);
	struct announce_cache *ac = announce_cache_new(1, 5, 0);
	check_lists(&a, ac);
	int before = announce_cache_marks(ac, a.game.id);
	ck_assert_int_gt(before, 40);
	rec_more(&a, 250);
	check_lists(&a, ac);
	ck_assert_int_gt(announce_cache_marks(ac, a.game.id), before);
	for (int k = 0; k < 3; k++) {
		check_lists(&b, ac);
		ck_assert_int_eq(announce_cache_marks(ac, a.game.id), 0);   /* pushed out */
		check_lists(&a, ac);
		ck_assert_int_eq(announce_cache_marks(ac, b.game.id), 0);
		rec_more(&b, 40);
	}
	announce_cache_free(ac);
	rec_end(&a);
	rec_end(&b);
	close_store();
}
END_TEST

/* A live game's slot, kept at each commit from the counts and marks its
 * actions were applied with (announce_step_take/commit), not by replaying
 * at the next read: it is never behind, its pages are the whole replay's,
 * and reading other records through a cache of one never pushes it out;
 * once untracked it is one of the records kept for reading. */
START_TEST(live_slot_kept_at_each_commit)
{
	struct rec a, b;

	open_store();
	rec_begin(&a, "icc", 11, NULL);
	rec_begin(&b, "english", 12, &a.game);
	rec_more(&b, 200);
	struct announce_cache *ac = announce_cache_new(1, 7, 0);
	announce_cache_track(ac, st, &a.game);
	a.live = ac;
	for (int k = 0; k < 3; k++) {
		rec_more(&a, 120);
		int last;
		ck_assert_int_eq(store_game_last_seq(st, a.game.id, &last), STORE_OK);
		ck_assert_int_gt(last, 100 * (k + 1));
		ck_assert_int_eq(announce_cache_behind(ac, st, &a.game), 0);
		ck_assert_int_eq(announce_cache_marks(ac, a.game.id), 1 + last / 7);
		check_lists(&b, ac);   /* a record read beside it */
		ck_assert_int_gt(announce_cache_marks(ac, a.game.id), 0);
		if (k > 0)
			check_lists(&a, ac);
		ck_assert_int_eq(announce_cache_behind(ac, st, &a.game), 0);
	}
	/* Its end: kept for reading, the one record a cache of one keeps (the
	 * more recently read), and pushed out by the next record read. */
	a.live = NULL;
	announce_cache_untrack(ac, a.game.id);
	ck_assert_int_eq(announce_cache_marks(ac, b.game.id), 0);
	ck_assert_int_gt(announce_cache_marks(ac, a.game.id), 0);
	check_lists(&a, ac);
	check_lists(&b, ac);
	ck_assert_int_eq(announce_cache_marks(ac, a.game.id), 0);
	ck_assert_int_gt(announce_cache_marks(ac, b.game.id), 0);
	announce_cache_free(ac);
	rec_end(&a);
	rec_end(&b);
	close_store();
}
END_TEST

/* The database file changed by a connection of the test's own (the store
 * unreadable for a moment: its actions table renamed away and back). */
static void raw(const char *sql)
{
	sqlite3 *db3;
	ck_assert_int_eq(sqlite3_open(db.path, &db3), SQLITE_OK);
	sqlite3_busy_timeout(db3, 5000);
	ck_assert_msg(sqlite3_exec(db3, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
	              sqlite3_errmsg(db3));
	sqlite3_close(db3);
}

/* The marks of a live slot at `last`: the start's and one each 7 actions. */
static void assert_live_current(struct announce_cache *ac, const struct rec *g)
{
	int last;
	ck_assert_int_eq(store_game_last_seq(st, g->game.id, &last), STORE_OK);
	ck_assert_int_eq(announce_cache_behind(ac, st, &g->game), 0);
	ck_assert_int_eq(announce_cache_marks(ac, g->game.id), 1 + last / 7);
}

/* Regression: a store read that failed while a live game's slot was read
 * again (its start or recovery, or a commit finding the slot behind) left
 * the game untracked for the rest of its life: its commits were dropped,
 * and every view replayed what its reader did not hear.  The slot stays
 * live at its start, and the next commit reads the record again. */
START_TEST(live_slot_kept_through_a_failed_read)
{
	struct rec a;

	open_store();
	rec_begin(&a, "icc", 13, NULL);
	rec_more(&a, 150);   /* recorded before it is tracked: a recovery */
	struct announce_cache *ac = announce_cache_new(1, 7, 0);
	raw("ALTER TABLE actions RENAME TO actions_away");
	announce_cache_track(ac, st, &a.game);
	raw("ALTER TABLE actions_away RENAME TO actions");
	ck_assert_int_eq(announce_cache_marks(ac, a.game.id), 1);   /* kept, at its start */
	a.live = ac;
	rec_more(&a, 50);
	assert_live_current(ac, &a);
	check_lists(&a, ac);
	/* Commits it missed, then one that finds the slot behind while the
	 * record cannot be read: not even its length (the slot left as it
	 * was), then its length but not its actions (their replay fails). */
	a.live = NULL;
	rec_more(&a, 10);
	int last;
	ck_assert_int_eq(store_game_last_seq(st, a.game.id, &last), STORE_OK);
	struct announce_step step = { .seq = last + 1 };
	raw("ALTER TABLE actions RENAME TO actions_away");
	announce_step_commit(ac, st, &a.game, &step);
	raw("ALTER TABLE actions_away RENAME TO actions");
	ck_assert_int_gt(announce_cache_marks(ac, a.game.id), 1);
	ck_assert_int_gt(announce_cache_behind(ac, st, &a.game), 0);
	char sql[160];
	snprintf(sql, sizeof sql, "UPDATE actions SET kind = kind || '?' WHERE game = %lld AND seq = %d", (long long)a.game.id, last);
	raw(sql);
	announce_step_commit(ac, st, &a.game, &step);
	snprintf(sql, sizeof sql,
	         "UPDATE actions SET kind = substr(kind, 1, length(kind) - 1) WHERE game = %lld AND seq = %d",
	         (long long)a.game.id, last);
	raw(sql);
	ck_assert_int_eq(announce_cache_marks(ac, a.game.id), 1);   /* kept, at its start */
	a.live = ac;
	rec_more(&a, 60);
	assert_live_current(ac, &a);
	check_lists(&a, ac);
	/* Still never pushed out by another record read. */
	struct rec b;
	rec_begin(&b, "english", 14, &a.game);
	rec_more(&b, 200);
	check_lists(&b, ac);
	assert_live_current(ac, &a);
	announce_cache_free(ac);
	rec_end(&a);
	rec_end(&b);
	close_store();
}
END_TEST

/* Marks built on a connection of their own (the reader thread's,
 * announce_marks_build) and adopted into the cache give the same pages as
 * marks built in place, and a read needs no replay before its page then
 * (announce_cache_behind 0).  After the record grows, marks built before
 * the growth are not adopted over the cache's further ones. */
START_TEST(adopted_marks_give_the_same_pages)
{
	struct rec a;
	char err[256];

	open_store();
	struct store *rd = store_open_reader(st, err, sizeof err);
	ck_assert_msg(rd != NULL, "%s", err);
	rec_begin(&a, "icc", 31, NULL);
	rec_more(&a, 300);
	struct announce_cache *ac = announce_cache_new(2, 5, 0);
	int last;
	ck_assert_int_eq(store_game_last_seq(st, a.game.id, &last), STORE_OK);
	ck_assert_int_eq(announce_cache_behind(ac, st, &a.game), last);
	struct announce_marks *m = announce_marks_build(rd, &a.game, 5, err, sizeof err);
	struct announce_marks *old = announce_marks_build(rd, &a.game, 5, err, sizeof err);
	ck_assert_msg(m != NULL && old != NULL, "%s", err);
	announce_cache_adopt(ac, m);
	ck_assert_int_gt(announce_cache_marks(ac, a.game.id), 50);
	ck_assert_int_eq(announce_cache_behind(ac, st, &a.game), 0);
	check_lists(&a, ac);
	rec_more(&a, 60);
	ck_assert_int_gt(announce_cache_behind(ac, st, &a.game), 0);
	check_lists(&a, ac);   /* replayed on in place */
	int marks = announce_cache_marks(ac, a.game.id);
	announce_cache_adopt(ac, old);   /* read further already: dropped */
	ck_assert_int_eq(announce_cache_marks(ac, a.game.id), marks);
	ck_assert_int_eq(announce_cache_behind(ac, st, &a.game), 0);
	check_lists(&a, ac);
	announce_cache_free(ac);
	rec_end(&a);
	store_close(rd);
	close_store();
}
END_TEST

/* A login's state of a long record is replayed on the reader thread
 * through the game's last action at the login (game_view.c): through a
 * seq, the replay is the whole replay as it was then, for every audience,
 * on the reader's connection, however far the record has grown since;
 * through 0, the whole record.  A record that does not replay gives NULL
 * with a reason. */
START_TEST(replay_through_a_seq_is_the_replay_then)
{
	static const unsigned auds[] = { AUD_WHITE, AUD_BLACK, AUD_SPECTATOR, AUD_UMPIRE };
	struct rec a;
	char err[256];

	open_store();
	struct store *rd = store_open_reader(st, err, sizeof err);
	ck_assert_msg(rd != NULL, "%s", err);
	rec_begin(&a, "english", 43, NULL);
	rec_more(&a, 200);
	int then;
	ck_assert_int_eq(store_game_last_seq(st, a.game.id, &then), STORE_OK);
	json_t *was[4];
	for (size_t k = 0; k < 4; k++)
		ck_assert_ptr_nonnull(was[k] = announce_replay(st, &a.game, auds[k], 0));
	rec_more(&a, 100);
	for (size_t k = 0; k < 4; k++) {
		json_t *through = announce_replay_through(rd, &a.game, auds[k], 0, then, err, sizeof err);
		json_t *now = announce_replay(st, &a.game, auds[k], 0);
		json_t *all = announce_replay_through(rd, &a.game, auds[k], 0, 0, err, sizeof err);
		ck_assert_msg(through != NULL && all != NULL, "%s", err);
		ck_assert_uint_gt(json_array_size(now), json_array_size(was[k]));
		ck_assert_msg(json_equal(through, was[k]), "audience %u: %zu events through seq %d, %zu then",
		              auds[k], json_array_size(through), then, json_array_size(was[k]));
		ck_assert(json_equal(all, now));
		json_decref(through);
		json_decref(now);
		json_decref(all);
		json_decref(was[k]);
	}
	struct store_game unknown = a.game;
	snprintf(unknown.rules, sizeof unknown.rules, "no-such-rules");
	err[0] = '\0';
	ck_assert_ptr_null(announce_replay_through(rd, &unknown, AUD_WHITE, 0, then, err, sizeof err));
	ck_assert_str_ne(err, "");
	rec_end(&a);
	store_close(rd);
	close_store();
}
END_TEST

static Suite *replay_page_suite(void)
{
	Suite *s = suite_create("replay_page");
	TCase *tc = tcase_create("replay_page");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, pages_equal_the_whole_replays_pages);
	tcase_add_test(tc, cache_follows_growth_and_eviction);
	tcase_add_test(tc, adopted_marks_give_the_same_pages);
	tcase_add_test(tc, live_slot_kept_at_each_commit);
	tcase_add_test(tc, live_slot_kept_through_a_failed_read);
	tcase_add_test(tc, replay_through_a_seq_is_the_replay_then);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(replay_page_suite)
