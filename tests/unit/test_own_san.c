/*
 * test_own_san.c — the mover's own SAN keeps the capture and check marks
 * the umpire tells the mover (issue 10: "Nxe5", "Bxf2+", never "Ne5",
 * "Bf2"), in every rule set, in the live events, in each player's PGN,
 * and an umpire PGN still reads back to the exact actions.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "check_main.h"
#include "pgn.h"
#include "referee.h"
#include "ruleset.h"

/* An Italian game: White's Nxe5 captures, Black's Bxf2+ captures with check. */
#define ITALIAN "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"

/* The mover's EV_MOVE SAN after the try text by color. */
static void try_san(struct referee *r, int color, const char *text, const char *want)
{
	struct evlist ev;
	evlist_init(&ev);
	struct action a;
	ck_assert_int_eq(action_set(&a, ACTION_TRY, color, text), REF_OK);
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	bool found = false;
	for (size_t i = 0; i < ev.n; i++)
		if (ev.v[i].type == EV_MOVE) {
			ck_assert_uint_eq(ev.v[i].audience, aud_of(color));
			ck_assert_str_eq(ev.v[i].san, want);
			found = true;
		}
	ck_assert_msg(found, "%s was not played", text);
	evlist_free(&ev);
}

START_TEST(marks_in_every_ruleset)
{
	const struct ruleset *rs = ruleset_at((size_t)_i);
	char err[160];
	struct referee *r = referee_new(rs, ITALIAN, err, sizeof err);
	ck_assert_msg(r != NULL, "%s: %s", rs->name, err);
	struct evlist ev;
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	evlist_free(&ev);
	try_san(r, WHITE, "Ne5", "Nxe5");     /* typed without the mark: told with it */
	try_san(r, BLACK, "Bxf2", "Bxf2+");
	referee_free(r);
}
END_TEST

START_TEST(marks_in_pgn)
{
	const struct ruleset *rs = ruleset_at((size_t)_i);
	struct action acts[3];
	ck_assert_int_eq(action_set(&acts[0], ACTION_BEGIN, WHITE, ""), REF_OK);
	ck_assert_int_eq(action_set(&acts[1], ACTION_TRY, WHITE, "Ne5"), REF_OK);
	ck_assert_int_eq(action_set(&acts[2], ACTION_TRY, BLACK, "Bxf2"), REF_OK);
	struct pgn_header h;
	pgn_header_init(&h);
	snprintf(h.rules, sizeof h.rules, "%s", rs->name);
	snprintf(h.fen, sizeof h.fen, "%s", ITALIAN);
	char *out, err[200];
	ck_assert_msg(pgn_write(&h, acts, 3, AUD_WHITE, &out, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(strstr(out, "4. Nxe5") != NULL, "%s white view:\n%s", rs->name, out);
	free(out);
	ck_assert_msg(pgn_write(&h, acts, 3, AUD_BLACK, &out, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(strstr(out, "Bxf2+") != NULL, "%s black view:\n%s", rs->name, out);
	free(out);
	/* The full record reads back to exactly these actions. */
	ck_assert_msg(pgn_write(&h, acts, 3, AUD_UMPIRE, &out, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(strstr(out, "Nxe5") != NULL && strstr(out, "Bxf2+") != NULL, "%s", out);
	struct pgn_header back;
	struct action *got;
	size_t n;
	ck_assert_msg(pgn_read(out, &back, &got, &n, err, sizeof err) == 0, "%s: %s\n%s", rs->name,
	              err, out);
	ck_assert_uint_eq(n, 2);   /* without the leading begin */
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(got[i].kind, acts[i + 1].kind);
		ck_assert_int_eq(got[i].color, acts[i + 1].color);
		ck_assert_str_eq(got[i].text, acts[i + 1].text);
	}
	free(got);
	free(out);
}
END_TEST

static Suite *own_san_suite(void)
{
	Suite *s = suite_create("own_san");
	TCase *tc = tcase_create("marks");
	tcase_add_loop_test(tc, marks_in_every_ruleset, 0, (int)ruleset_count());
	tcase_add_loop_test(tc, marks_in_pgn, 0, (int)ruleset_count());
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(own_san_suite)
