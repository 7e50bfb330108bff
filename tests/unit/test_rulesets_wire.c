/*
 * test_rulesets_wire.c — the wire form of the announcements that
 * kriegspiel.org's rule sets added (rand's pawn_squares and promotion,
 * cincinnati/rand's "nonsense"): exact objects, and hostile ones refused.
 */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "check_main.h"
#include "event_json.h"
#include "referee.h"

static void assert_json(const struct event *e, const char *rules, const char *want)
{
	json_t *o = event_to_json(e, ruleset_find(rules), -1);
	ck_assert_ptr_nonnull(o);
	char *s = json_dumps(o, JSON_COMPACT);
	ck_assert_str_eq(s, want);
	struct event back;
	ck_assert_int_eq(event_from_json(o, &back), 0);
	ck_assert_int_eq(back.type, e->type);
	ck_assert_uint_eq(back.squares, e->squares);
	ck_assert_int_eq(back.by, e->by);
	ck_assert_uint_eq(back.audience, e->audience);
	free(s);
	json_decref(o);
}

START_TEST(test_exact_objects)
{
	struct event e;
	memset(&e, 0, sizeof e);
	e.type = EV_PAWN_SQUARES;
	e.audience = AUD_PUBLIC;
	e.by = BLACK;
	e.square = -1;
	e.ply = 5;
	e.squares = (1ULL << 50) | (1ULL << 52);
	assert_json(&e, "rand",
	            "{\"event\":\"pawn_squares\",\"by\":\"black\",\"ply\":5,\"audience\":[\"white\",\"black\","
	            "\"umpire\",\"spectator\"],\"squares\":[\"c7\",\"e7\"],"
	            "\"say\":\"Black has pawn tries from c7 and e7\"}");
	e.squares = 0;
	e.by = WHITE;
	assert_json(&e, "rand",
	            "{\"event\":\"pawn_squares\",\"by\":\"white\",\"ply\":5,\"audience\":[\"white\",\"black\","
	            "\"umpire\",\"spectator\"],\"squares\":[],\"say\":\"White has no pawn tries\"}");
	e.type = EV_PROMOTION;
	assert_json(&e, "rand",
	            "{\"event\":\"promotion\",\"by\":\"white\",\"ply\":5,\"audience\":[\"white\",\"black\","
	            "\"umpire\",\"spectator\"],\"say\":\"White promoted a pawn\"}");
	e.type = EV_IMPOSSIBLE;
	e.audience = AUD_BLACK | AUD_SPECTATOR;
	assert_json(&e, "cincinnati",
	            "{\"event\":\"impossible\",\"by\":\"white\",\"ply\":5,\"audience\":[\"black\","
	            "\"spectator\"],\"say\":\"White tried nonsense\"}");
}
END_TEST

START_TEST(test_hostile)
{
	static const char *const bad[] = {
		"{\"event\":\"pawn_squares\",\"by\":\"white\"}",
		"{\"event\":\"pawn_squares\",\"squares\":\"e4\"}",
		"{\"event\":\"pawn_squares\",\"squares\":[\"e4\",\"e4\"]}",
		"{\"event\":\"pawn_squares\",\"squares\":[\"e9\"]}",
		"{\"event\":\"pawn_squares\",\"squares\":[4]}",
		"{\"event\":\"pawn_squares\",\"squares\":[\"a2\",\"b2\",\"c2\",\"d2\",\"e2\",\"f2\",\"g2\",\"h2\",\"a3\"]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		json_t *o = json_loads(bad[i], 0, NULL);
		ck_assert_ptr_nonnull(o);
		struct event e;
		ck_assert_msg(event_from_json(o, &e) == -1, "accepted %s", bad[i]);
		ck_assert_uint_eq(e.squares, 0);
		json_decref(o);
	}
}
END_TEST

static Suite *rulesets_wire_suite(void)
{
	Suite *s = suite_create("rulesets_wire");
	TCase *tc = tcase_create("wire");
	tcase_add_test(tc, test_exact_objects);
	tcase_add_test(tc, test_hostile);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(rulesets_wire_suite)
