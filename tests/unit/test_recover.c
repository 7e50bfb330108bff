/*
 * test_recover.c — recover_verify(): a record whose stored announcements
 * equal the replay's rebuilds the referee; any disagreement (an edited
 * event, a missing or extra one, a gap in the actions, a game row that
 * disagrees with where the record ends) is a mismatch, and recover_game()
 * flags it without touching the record.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "action.h"
#include "check_main.h"
#include "fen.h"
#include "recover.h"
#include "referee.h"
#include "ruleset.h"
#include "record.h"
#include "store.h"

static char dir[64], path[128], err[512];
static struct store *st;
static struct store_game game;

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/krieg-recover-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/t.db", dir);
	st = store_open(path, err, sizeof err);
	ck_assert_msg(st != NULL, "%s", err);
}

static void teardown(void)
{
	char cmd[128];
	store_close(st);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Store a game of rules with these actions after "begin" as game.c does:
 * each action and its events.  An action with color -1 is the side to
 * move's.  skip_seq leaves that seq out (a gap); finish ends the row. */
static void store_record(const char *rules, const struct action *acts, size_t n, int skip_seq,
                         int finish)
{
	record_begin(st, rules, &game);
	struct referee *r = referee_new(ruleset_find(rules), NULL, err, sizeof err);
	struct evlist out;
	evlist_init(&out);
	int seq = 0;
	for (size_t i = 0; i <= n; i++) {
		struct action act;
		if (i == 0)
			ck_assert_int_eq(action_set(&act, ACTION_BEGIN, WHITE, ""), REF_OK);
		else
			act = acts[i - 1];
		if (act.color < 0)
			act.color = referee_side_to_move(r);
		if (++seq == skip_seq)
			++seq;
		record_action(st, game.id, seq, r, &act, 1000 + (int64_t)i, 2000 + (int64_t)i, &out);
	}
	if (finish)
		ck_assert_int_eq(store_game_finish(st, game.id, RESULT_WHITE, REASON_RESIGNATION),
		                 STORE_OK);
	ck_assert_int_eq(store_game_get(st, game.id, &game), STORE_OK);
	evlist_free(&out);
	referee_free(r);
}

/* icc: these tries, each by the side to move. */
static void store_game_of(const char *const *tries, size_t n, int skip_seq, int finish)
{
	struct action acts[16];
	ck_assert_uint_le(n, 16);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(action_set(&acts[i], ACTION_TRY, -1, tries[i]), REF_OK);
	store_record("icc", acts, n, skip_seq, finish);
}

static const char *const tries[] = { "e4", "e5", "e4e5", "Nf3", "Nc6", "Bb5" };
#define NTRIES (sizeof tries / sizeof tries[0])

static void exec_sql(const char *sql)
{
	/* A second connection: the store's own is not exposed. */
	char cmd[512];
	snprintf(cmd, sizeof cmd, "sqlite3 '%s' \"%s\"", path, sql);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(good_record)
{
	struct recover_result rr;
	store_game_of(tries, NTRIES, 0, 0);
	ck_assert_int_eq(recover_verify(st, &game, &rr, err, sizeof err), RECOVER_OK);
	ck_assert_ptr_nonnull(rr.ref);
	ck_assert_uint_eq(rr.nacts, NTRIES + 1);
	ck_assert_int_eq(rr.last_seq, (int)NTRIES + 1);
	ck_assert_int_eq(rr.clock_ms[WHITE], 1000 + (int64_t)NTRIES);
	ck_assert_int_eq(rr.clock_ms[BLACK], 2000 + (int64_t)NTRIES);
	ck_assert_int_eq(referee_plies(rr.ref), 5);   /* "e4e5" is refused: an illegal try */
	recover_result_free(&rr);
	ck_assert_int_eq(recover_game(st, &game, &rr), RECOVER_OK);
	recover_result_free(&rr);
	ck_assert_int_eq(store_game_flagged(st, game.id, NULL, 0), STORE_NOT_FOUND);
}
END_TEST

/* The applied actions read back, all or through a seq (the record as it
 * stood when its last seq was read: a PGN text's cache key names it). */
START_TEST(actions_through_a_seq)
{
	struct action *v;
	size_t n;
	store_game_of(tries, NTRIES, 0, 0);
	ck_assert_int_eq(recover_actions(st, game.id, &v, &n), RECOVER_OK);
	ck_assert_uint_eq(n, NTRIES + 1);   /* begin and every try (a refusal is applied too) */
	free(v);
	ck_assert_int_eq(recover_actions_through(st, game.id, 4, &v, &n), RECOVER_OK);
	ck_assert_uint_eq(n, 4);
	free(v);
	ck_assert_int_eq(recover_actions_through(st, game.id, 5, &v, &n), RECOVER_OK);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(v[4].kind, ACTION_TRY);
	free(v);
	ck_assert_int_eq(recover_actions_through(st, game.id, 0, &v, &n), RECOVER_OK);
	ck_assert_uint_eq(n, 0);
	free(v);
}
END_TEST

START_TEST(edited_event)
{
	struct recover_result rr;
	store_game_of(tries, NTRIES, 0, 0);
	/* Black's e5 (seq 3): its first event's square byte (the 4th) moved. */
	exec_sql("UPDATE actions SET events = CAST(substr(events, 1, 3) || x'05' ||"
	         " substr(events, 5) AS BLOB) WHERE seq = 3");
	ck_assert_int_eq(recover_verify(st, &game, &rr, err, sizeof err), RECOVER_MISMATCH);
	ck_assert_ptr_null(rr.ref);
	ck_assert_msg(strstr(err, "differs") != NULL, "%s", err);
	/* recover_game flags it, keeps the first reason, changes nothing else. */
	ck_assert_int_eq(recover_game(st, &game, &rr), RECOVER_MISMATCH);
	char reason[256];
	ck_assert_int_eq(store_game_flagged(st, game.id, reason, sizeof reason), STORE_OK);
	ck_assert_msg(strstr(reason, "differs") != NULL, "%s", reason);
	ck_assert_int_eq(recover_game(st, &game, &rr), RECOVER_MISMATCH);
	struct store_game g2;
	ck_assert_int_eq(store_game_get(st, game.id, &g2), STORE_OK);
	ck_assert_int_eq(g2.result, RESULT_NONE);
	ck_assert_int_eq(g2.reason, REASON_NONE);
}
END_TEST

START_TEST(missing_and_extra_events)
{
	struct recover_result rr;
	store_game_of(tries, NTRIES, 0, 0);
	/* The last event (a record is 23 bytes) gone. */
	exec_sql("UPDATE actions SET events = CASE WHEN length(events) = 23 THEN NULL"
	         " ELSE substr(events, 1, length(events) - 23) END"
	         " WHERE seq = (SELECT max(seq) FROM actions WHERE events IS NOT NULL)");
	ck_assert_int_eq(recover_verify(st, &game, &rr, err, sizeof err), RECOVER_MISMATCH);
	ck_assert_msg(strstr(err, "the record holds") != NULL, "%s", err);
	teardown();
	setup();
	store_game_of(tries, NTRIES, 0, 0);
	/* An event of seq 2 twice. */
	exec_sql("UPDATE actions SET events = CAST(events || substr(events, 1, 23) AS BLOB)"
	         " WHERE seq = 2");
	ck_assert_int_eq(recover_verify(st, &game, &rr, err, sizeof err), RECOVER_MISMATCH);
	ck_assert_msg(strstr(err, "more events than the replay") != NULL, "%s", err);
}
END_TEST

START_TEST(gap_in_actions)
{
	struct recover_result rr;
	store_game_of(tries, NTRIES, 3, 0);
	ck_assert_int_eq(recover_verify(st, &game, &rr, err, sizeof err), RECOVER_MISMATCH);
	ck_assert_msg(strstr(err, "missing") != NULL, "%s", err);
}
END_TEST

START_TEST(row_disagrees)
{
	struct recover_result rr;
	/* The row says resigned, the record has no ending. */
	store_game_of(tries, NTRIES, 0, 1);
	ck_assert_int_eq(recover_verify(st, &game, &rr, err, sizeof err), RECOVER_MISMATCH);
	ck_assert_msg(strstr(err, "game row") != NULL, "%s", err);
}
END_TEST

/* nost: White's preference list of 16 attempts (the most a record holds). */
static void store_nost_list(void)
{
	static const char *const items[REFEREE_LIST_MAX] = {
		"a3", "a4", "b3", "b4", "c3", "c4", "d3", "d4",
		"e3", "e4", "f3", "f4", "g3", "g4", "h3", "h4",
	};
	struct action list;
	ck_assert_int_eq(action_set_list(&list, ACTION_LIST, WHITE, items, REFEREE_LIST_MAX), REF_OK);
	store_record("nost", &list, 1, 0, 0);
}

START_TEST(list_of_sixteen_resumes)
{
	struct recover_result rr;
	store_nost_list();
	ck_assert_int_eq(recover_verify(st, &game, &rr, err, sizeof err), RECOVER_OK);
	ck_assert_int_eq(rr.nacts, 2);
	ck_assert_int_eq(rr.acts[1].kind, ACTION_LIST);
	ck_assert_int_eq(referee_plies(rr.ref), 1);   /* a3, the first legal attempt */
	recover_result_free(&rr);
}
END_TEST

/* A record hand-edited to hold 17 attempts in one list is refused with
 * too_many (action.h: never truncated to 16 and replayed), and flagged. */
START_TEST(list_of_seventeen_is_refused)
{
	struct recover_result rr;
	store_nost_list();
	exec_sql("UPDATE actions SET text = text || ' Na3' WHERE kind = 'list'");
	ck_assert_int_eq(recover_verify(st, &game, &rr, err, sizeof err), RECOVER_MISMATCH);
	ck_assert_msg(strstr(err, "seq 2") && strstr(err, "refuses the stored list (too_many)"), "%s",
	              err);
	ck_assert_int_eq(recover_game(st, &game, &rr), RECOVER_MISMATCH);
	char why[256];
	ck_assert_int_eq(store_game_flagged(st, game.id, why, sizeof why), STORE_OK);
	ck_assert_msg(strstr(why, "too_many") != NULL, "%s", why);
}
END_TEST

static Suite *recover_suite(void)
{
	Suite *s = suite_create("recover");
	TCase *tc = tcase_create("recover");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, good_record);
	tcase_add_test(tc, actions_through_a_seq);
	tcase_add_test(tc, edited_event);
	tcase_add_test(tc, missing_and_extra_events);
	tcase_add_test(tc, gap_in_actions);
	tcase_add_test(tc, row_disagrees);
	tcase_add_test(tc, list_of_sixteen_resumes);
	tcase_add_test(tc, list_of_seventeen_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(recover_suite)
