/*
 * test_replay_page.c — announce_replay_page (server/announce.c): a page of
 * a view built during the replay, only that page's events built.  On a
 * long recorded game (seeded random tries, legal or not, as players make
 * them, and an umpire's public and private notes among them) and for
 * every audience and way of writing it (the umpire's seat with each
 * event's audience, the umpire's record without the private notes), the
 * page from several `from`s must be exactly the page dispatch_page cuts
 * from the whole replay: the same events (so nothing another audience
 * hears, no private note where it is left out), "total" and "next".
 */
#include <check.h>
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
static struct store_game game;
static int notes[2];   /* [public]: the notes recorded */

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

/* A game of up to T_TRIES tries drawn from each side's possible ones,
 * recorded as game.c records it: each action with its events; every
 * 37th action an umpire's note, public and private in turn. */
static void record_random_game(const char *rules, unsigned seed)
{
	char err[256];

	record_begin(st, rules, &game);
	struct referee *r = referee_new(ruleset_find(rules), NULL, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	struct evlist out;
	evlist_init(&out);
	for (int i = 0; i <= T_TRIES && !referee_over(r); i++) {
		struct action act;
		if (i == 0) {
			ck_assert_int_eq(action_set(&act, ACTION_BEGIN, WHITE, ""), REF_OK);
		} else if (i % 37 == 0) {
			struct action_umpire u = { .public = i % 74 == 0, .reason = "a note" };
			ck_assert_int_eq(action_set_umpire(&act, ACTION_NOTE, -1, &u), REF_OK);
			notes[u.public]++;
		} else {
			struct movelist l;
			char text[NOTATION_MAX];
			int color = referee_side_to_move(r);
			referee_possible(r, color, &l);
			if (l.n == 0)
				break;
			notation_uci(l.m[rand_r(&seed) % (unsigned)l.n], text);
			ck_assert_int_eq(action_set(&act, ACTION_TRY, color, text), REF_OK);
		}
		record_action(st, game.id, i + 1, r, &act, 0, 0, &out);
	}
	ck_assert_int_eq(store_game_get(st, game.id, &game), STORE_OK);
	evlist_free(&out);
	referee_free(r);
}

/* For every page of (aud, how): the page built alone equals the page cut
 * from the whole replay.  The whole list is returned. */
static json_t *check_pages(const char *rules, unsigned aud, unsigned how)
{
	json_t *all = announce_replay(st, &game, aud, how);
	ck_assert_ptr_nonnull(all);
	size_t n = json_array_size(all);
	ck_assert_uint_gt(n, 100);   /* a long record: several pages */
	size_t froms[] = { 0, 1, n / 3, n - 1, n, n + 7, 0 };
	/* and the start of every page, as a client reads them */
	for (size_t from = 0, k = 0; k < 64; k++) {
		json_t *whole = json_object();
		size_t next = dispatch_page(whole, "events", all, from);
		struct pager pg;
		pager_init(&pg, from);
		ck_assert_int_eq(announce_replay_page(st, &game, aud, how, &pg), 0);
		json_t *paged = json_object();
		ck_assert_uint_eq(pager_finish(&pg, paged, "events"), next);
		ck_assert_msg(json_equal(whole, paged),
		              "%s, audience %u, how %u: the page from %zu differs", rules, aud, how,
		              from);
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

static void check_rules(const char *rules, unsigned seed)
{
	char err[512];
	static const unsigned auds[] = { AUD_WHITE, AUD_BLACK, AUD_SPECTATOR, AUD_UMPIRE };

	tmpdb_make(&db, "replay");
	st = store_open(db.path, err, sizeof err);
	ck_assert_msg(st != NULL, "%s", err);
	notes[0] = notes[1] = 0;
	record_random_game(rules, seed);
	ck_assert_int_gt(notes[0], 0);
	ck_assert_int_gt(notes[1], 0);
	for (size_t a = 0; a < sizeof auds / sizeof auds[0]; a++) {
		json_t *all = check_pages(rules, auds[a], 0);
		/* Only the umpires hear the private notes. */
		ck_assert_int_eq(privates(all), (auds[a] == AUD_UMPIRE ? notes[0] : 0));
		json_decref(all);
	}
	/* The umpire's seat: every event with who heard it. */
	json_t *plain = announce_replay(st, &game, AUD_UMPIRE, 0);
	json_t *all = check_pages(rules, AUD_UMPIRE, ANNOUNCE_AUDIENCE);
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
	 * without the private notes, paged without them. */
	all = check_pages(rules, AUD_UMPIRE, ANNOUNCE_NO_PRIVATE);
	ck_assert_int_eq(privates(all), 0);
	ck_assert_uint_eq(json_array_size(all), json_array_size(plain) - (size_t)notes[0]);
	for (size_t k = 0, p = 0; k < json_array_size(plain); k++)
		if (!json_is_true(json_object_get(json_array_get(plain, k), "private")))
			ck_assert(json_equal(json_array_get(plain, k), json_array_get(all, p++)));
	json_decref(all);
	json_decref(plain);
	store_close(st);
	tmpdb_remove(&db);
}

START_TEST(pages_equal_the_whole_replays_pages)
{
	check_rules("icc", 11);
	check_rules("english", 12);
	check_rules("crazykrieg", 13);
}
END_TEST

static Suite *replay_page_suite(void)
{
	Suite *s = suite_create("replay_page");
	TCase *tc = tcase_create("replay_page");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pages_equal_the_whole_replays_pages);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(replay_page_suite)
