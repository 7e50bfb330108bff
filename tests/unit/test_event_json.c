/*
 * test_event_json.c — the announcement codec: exact objects for known
 * events, a round trip of every event of random games under every rule
 * set, and hostile objects that must be refused.
 */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "check_main.h"
#include "event_json.h"
#include "jsonline.h"
#include "notation.h"
#include "referee.h"

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *o = json_loads(text, 0, &err);
	ck_assert_msg(o != NULL, "%s: %s", text, err.text);
	return o;
}

static char *dump(const json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	ck_assert_ptr_nonnull(s);
	return s;
}

static void assert_json(const struct event *e, const char *rules, int game, const char *want)
{
	json_t *o = event_to_json(e, rules ? ruleset_find(rules) : NULL, game);
	ck_assert_ptr_nonnull(o);
	char *got = dump(o);
	ck_assert_str_eq(got, want);
	free(got);
	json_decref(o);
}

static struct event ev0(int type, unsigned aud, int by)
{
	struct event e;
	memset(&e, 0, sizeof e);
	e.type = (uint8_t)type;
	e.audience = (uint8_t)aud;
	e.by = (int8_t)by;
	e.square = -1;
	return e;
}

/* The umpire's copies name the audience with event_json_audience: for
 * every set it is the array an announcement's own text carries. */
START_TEST(test_audience_forms)
{
	for (unsigned aud = 0; aud < 16; aud++) {
		struct event e = ev0(EV_MOVE, aud, WHITE);
		json_t *o = event_to_json(&e, NULL, -1);
		json_t *a = event_json_audience(aud);
		ck_assert_ptr_nonnull(o);
		ck_assert_msg(json_equal(json_object_get(o, "audience"), a), "audience %u", aud);
		ck_assert_uint_eq(json_array_size(a), (unsigned)__builtin_popcount(aud));
		json_decref(a);
		json_decref(o);
	}
}
END_TEST

START_TEST(test_exact_objects)
{
	struct event e = ev0(EV_MOVE, AUD_WHITE, WHITE);
	e.move = move_make(12, 28, MOVE_NORMAL, KNIGHT);
	e.ply = 1;
	strcpy(e.san, "e4");
	assert_json(&e, "icc", 12,
	            "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"white\"],"
	            "\"move\":\"e2e4\",\"san\":\"e4\",\"say\":\"White played e4\",\"game\":12}");

	e = ev0(EV_MOVED, AUD_BLACK | AUD_SPECTATOR, WHITE);
	e.ply = 1;
	assert_json(&e, "english", -1,
	            "{\"event\":\"moved\",\"by\":\"white\",\"ply\":1,\"audience\":[\"black\",\"spectator\"],"
	            "\"say\":\"White\"}");

	e = ev0(EV_CAPTURE, AUD_PUBLIC, BLACK);
	e.square = 28;
	e.what = CAPTURED_PAWN;
	e.ply = 6;
	assert_json(&e, "icc", -1,
	            "{\"event\":\"capture\",\"by\":\"black\",\"ply\":6,\"audience\":[\"white\",\"black\",\"umpire\","
	            "\"spectator\"],\"square\":\"e4\",\"what\":\"pawn\",\"say\":\"Pawn captured on e4\"}");

	e = ev0(EV_CAPTURE, AUD_PUBLIC, BLACK);
	e.square = 21;
	e.en_passant = true;
	assert_json(&e, NULL, 3,
	            "{\"event\":\"capture\",\"by\":\"black\",\"ply\":0,\"audience\":[\"white\",\"black\","
	            "\"umpire\",\"spectator\"],\"square\":\"f3\",\"en_passant\":true,\"game\":3}");

	e = ev0(EV_CHECK, AUD_PUBLIC, WHITE);
	e.checks[0] = CHECK_RANK;
	e.checks[1] = CHECK_KNIGHT;
	assert_json(&e, "nost", -1,
	            "{\"event\":\"check\",\"by\":\"white\",\"ply\":0,\"audience\":[\"white\",\"black\",\"umpire\","
	            "\"spectator\"],\"checks\":[\"rank\",\"knight\"],\"say\":\"Black is in double check on the "
	            "rank and from a knight\"}");

	/* a check made by a capture everybody heard carries its square, so that
	 * insurance can say the move in one sentence (seed 002 rule 5) */
	e = ev0(EV_CHECK, AUD_PUBLIC, WHITE);
	e.checks[0] = CHECK_RANK;
	e.square = 63;
	assert_json(&e, "insurance", -1,
	            "{\"event\":\"check\",\"by\":\"white\",\"ply\":0,\"audience\":[\"white\",\"black\",\"umpire\","
	            "\"spectator\"],\"checks\":[\"rank\"],\"square\":\"h8\",\"say\":\"White has captured on h8 "
	            "giving check on the rank\"}");

	e = ev0(EV_ILLEGAL, AUD_BLACK | AUD_SPECTATOR, WHITE);
	assert_json(&e, "insurance", -1,
	            "{\"event\":\"illegal\",\"by\":\"white\",\"ply\":0,\"audience\":[\"black\",\"spectator\"],"
	            "\"say\":\"You cannot do that\"}");

	e = ev0(EV_PAWN_TRIES, AUD_PUBLIC, BLACK);
	e.count = 2;
	assert_json(&e, NULL, -1,
	            "{\"event\":\"pawn_tries\",\"by\":\"black\",\"ply\":0,\"audience\":[\"white\",\"black\","
	            "\"umpire\",\"spectator\"],\"count\":2}");

	e = ev0(EV_PAWN_CAPTURES, AUD_PUBLIC, BLACK);
	e.answer = 1;
	assert_json(&e, NULL, -1,
	            "{\"event\":\"pawn_captures\",\"by\":\"black\",\"ply\":0,\"audience\":[\"white\",\"black\","
	            "\"umpire\",\"spectator\"],\"available\":true}");

	e = ev0(EV_ANY, AUD_PUBLIC, WHITE);
	e.answer = ANY_TRY;
	assert_json(&e, "gollon", -1,
	            "{\"event\":\"any\",\"by\":\"white\",\"ply\":0,\"audience\":[\"white\",\"black\",\"umpire\","
	            "\"spectator\"],\"answer\":\"try\",\"say\":\"Try!\"}");

	e = ev0(EV_GAME_OVER, AUD_PUBLIC, -1);
	e.result = RESULT_DRAW;
	e.reason = REASON_STALEMATE;
	assert_json(&e, NULL, -1,
	            "{\"event\":\"game_over\",\"ply\":0,\"audience\":[\"white\",\"black\",\"umpire\",\"spectator\"],"
	            "\"result\":\"1/2-1/2\",\"reason\":\"stalemate\"}");

	e = ev0(EV_NONE, AUD_PUBLIC, -1);
	ck_assert_ptr_null(event_to_json(&e, NULL, -1));
	e.type = 200;
	ck_assert_ptr_null(event_to_json(&e, NULL, -1));
}
END_TEST

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Fields a view and a client need survive the trip; MOVE_EN_PASSANT
 * reads back as a plain move (the text does not say). */
static void assert_round_trip(const struct event *e, const struct ruleset *rs)
{
	json_t *o = event_to_json(e, rs, 7);
	ck_assert_ptr_nonnull(o);
	char *text = dump(o);
	/* The text the server sends is written without a tree (event_json_put):
	 * it must be jansson's own compact text of the same object, byte for
	 * byte, or a parse and a dump would not give it back. */
	char raw[1024];
	struct jsonline_out w = { .buf = raw, .size = sizeof raw - 1, .used = 0 };
	ck_assert_int_eq(event_json_put(&w, e, rs), 0);
	jsonline_put_key(&w, "game");
	jsonline_put_int(&w, 7);
	jsonline_put(&w, "}", 1);
	ck_assert_uint_lt(w.used, sizeof raw);
	raw[w.used] = '\0';
	ck_assert_str_eq(raw, text);
	json_t *back = parse(text);
	struct event d;
	ck_assert_msg(event_from_json(back, &d) == 0, "%s", text);
	ck_assert_int_eq(d.type, e->type);
	ck_assert_int_eq(d.audience, e->audience);
	ck_assert_int_eq(d.by, e->by);
	ck_assert_int_eq(d.ply, e->ply);
	ck_assert_int_eq(d.square, e->type == EV_CAPTURE || e->type == EV_CHECK ? e->square : -1);
	ck_assert_int_eq(d.what, e->what);
	ck_assert_int_eq(d.en_passant, e->en_passant);
	ck_assert_int_eq(d.checks[0], e->checks[0]);
	ck_assert_int_eq(d.checks[1], e->checks[1]);
	ck_assert_int_eq(d.count, e->count);
	ck_assert_int_eq(d.answer, e->answer);
	ck_assert_int_eq(d.result, e->result);
	ck_assert_int_eq(d.reason, e->reason);
	ck_assert_str_eq(d.san, e->san);
	if (move_kind(e->move) == MOVE_EN_PASSANT) {
		ck_assert_int_eq(move_from(d.move), move_from(e->move));
		ck_assert_int_eq(move_to(d.move), move_to(e->move));
	} else {
		ck_assert_uint_eq(d.move, e->move);
	}
	/* and encodes to the same text again */
	json_t *again = event_to_json(&d, rs, 7);
	char *text2 = dump(again);
	if (move_kind(e->move) != MOVE_EN_PASSANT)
		ck_assert_str_eq(text, text2);
	free(text);
	free(text2);
	json_decref(o);
	json_decref(back);
	json_decref(again);
}

START_TEST(test_round_trip_random_games)
{
	int seen[64] = { 0 };   /* by event type (enum event_type grows) */
	static const char *fens[] = { NULL, "r3k2r/pPpp1ppp/8/3Pp3/8/8/PP1P1PpP/R3K2R w KQkq e6 0 1" };
	for (size_t k = 0; k < ruleset_count(); k++) {
		const struct ruleset *rs = ruleset_at(k);
		for (size_t f = 0; f < 2; f++) {
			uint32_t seed = 99 + (uint32_t)(k * 7 + f);
			char err[80];
			struct referee *r = referee_new(rs, fens[f], err, sizeof err);
			struct evlist ev;
			evlist_init(&ev);
			referee_begin(r, &ev);
			for (int step = 0; step < 200 && !referee_over(r); step++) {
				for (size_t i = 0; i < ev.n; i++) {
					assert_round_trip(&ev.v[i], rs);
					ck_assert_uint_lt(ev.v[i].type, sizeof seen / sizeof seen[0]);
					seen[ev.v[i].type]++;
				}
				evlist_clear(&ev);
				int side = referee_side_to_move(r);
				struct movelist ml;
				referee_possible(r, side, &ml);
				char t[NOTATION_MAX];
				notation_uci(ml.m[lcg(&seed) % (uint32_t)ml.n], t);
				if (rs->pawn_info == PAWN_INFO_ASK && lcg(&seed) % 4 == 0)
					referee_any(r, side, &ev);
				else if (lcg(&seed) % 9 == 0)
					referee_attempt(r, side, "Ra1a4", &ev); /* often impossible */
				else
					ck_assert_int_eq(referee_attempt(r, side, t, &ev), REF_OK);
			}
			if (!referee_over(r))
				referee_end(r, REASON_RESIGNATION, referee_side_to_move(r), &ev);
			for (size_t i = 0; i < ev.n; i++)
				assert_round_trip(&ev.v[i], rs);
			referee_free(r);
			evlist_free(&ev);
		}
	}
	ck_assert_int_gt(seen[EV_MOVE], 100);
	ck_assert_int_gt(seen[EV_CAPTURE], 10);
	ck_assert_int_gt(seen[EV_ILLEGAL], 10);
	ck_assert_int_gt(seen[EV_ANY], 10);
	ck_assert_int_gt(seen[EV_PAWN_TRIES], 10);
	ck_assert_int_gt(seen[EV_PAWN_CAPTURES], 10);
}
END_TEST

START_TEST(test_hostile_objects)
{
	static const char *bad[] = {
		"[]",
		"{}",
		"{\"event\":\"nonsense\"}",
		"{\"event\":42}",
		"{\"event\":\"moved\",\"by\":\"red\"}",
		"{\"event\":\"moved\",\"by\":1}",
		"{\"event\":\"moved\",\"ply\":-1}",
		"{\"event\":\"moved\",\"ply\":70000}",
		"{\"event\":\"moved\",\"audience\":\"white\"}",
		"{\"event\":\"moved\",\"audience\":[\"white\",\"judge\"]}",
		"{\"event\":\"move\",\"move\":\"e2e9\"}",
		"{\"event\":\"move\",\"move\":\"e2e2\"}",
		"{\"event\":\"move\",\"move\":\"e7e8k\"}",
		"{\"event\":\"move\",\"move\":\"e2e4\",\"san\":\"this is far too long\"}",
		"{\"event\":\"capture\",\"square\":\"i9\"}",
		"{\"event\":\"capture\",\"square\":\"e4\",\"what\":\"king\"}",
		"{\"event\":\"drop\",\"what\":\"piece\"}",       /* a drop names its man */
		"{\"event\":\"drop\"}",
		"{\"event\":\"move\",\"move\":\"P@e8\"}",        /* no pawn on the last rank */
		"{\"event\":\"move\",\"move\":\"K@e4\"}",
		"{\"event\":\"capture\",\"square\":\"e4\",\"en_passant\":1}",
		"{\"event\":\"check\"}",
		"{\"event\":\"check\",\"checks\":[]}",
		"{\"event\":\"check\",\"checks\":[\"rank\",\"file\",\"knight\"]}",
		"{\"event\":\"check\",\"checks\":[\"sideways\"]}",
		"{\"event\":\"pawn_tries\"}",
		"{\"event\":\"pawn_tries\",\"count\":\"2\"}",
		"{\"event\":\"pawn_captures\",\"available\":1}",
		"{\"event\":\"any\",\"answer\":\"maybe\"}",
		"{\"event\":\"game_over\",\"result\":\"2-0\"}",
		"{\"event\":\"game_over\",\"result\":\"1-0\",\"reason\":\"boredom\"}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		json_t *o = parse(bad[i]);
		struct event e;
		ck_assert_msg(event_from_json(o, &e) == -1, "accepted %s", bad[i]);
		ck_assert_int_eq(e.type, EV_NONE);
		json_decref(o);
	}
	ck_assert_int_eq(event_from_json(NULL, &(struct event){ 0 }), -1);

	/* Unknown keys are ignored; a client reads what it knows. */
	json_t *o = parse("{\"event\":\"moved\",\"by\":\"black\",\"game\":5,\"clock\":{\"white\":1},\"say\":\"x\"}");
	struct event e;
	ck_assert_int_eq(event_from_json(o, &e), 0);
	ck_assert_int_eq(e.type, EV_MOVED);
	ck_assert_int_eq(e.by, BLACK);
	json_decref(o);
}
END_TEST

START_TEST(test_errors)
{
	ck_assert_str_eq(event_json_error_code(REF_E_SYNTAX), "notation");
	ck_assert_str_eq(event_json_error_code(REF_E_NO_PIECE), "notation");
	ck_assert_str_eq(event_json_error_code(REF_E_AMBIGUOUS), "notation");
	ck_assert_str_eq(event_json_error_code(REF_E_NOT_YOUR_TURN), "not_your_turn");
	ck_assert_str_eq(event_json_error_code(REF_E_GAME_OVER), "game_over");
	ck_assert_str_eq(event_json_error_code(REF_E_MUST_TRY_CAPTURE), "illegal_action");
	ck_assert_str_eq(event_json_error_code(REF_E_BAD_ARGUMENT), "bad_request");
	ck_assert_str_eq(event_json_error_code(12345), "internal");
	json_t *o = event_json_error(REF_E_SYNTAX, "not a move");
	char *s = dump(o);
	ck_assert_str_eq(s, "{\"event\":\"error\",\"code\":\"notation\",\"detail\":\"syntax\",\"message\":\"not a move\"}");
	free(s);
	json_decref(o);
}
END_TEST

static Suite *event_json_suite(void)
{
	Suite *s = suite_create("event_json");
	TCase *tc = tcase_create("codec");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exact_objects);
	tcase_add_test(tc, test_audience_forms);
	tcase_add_test(tc, test_round_trip_random_games);
	tcase_add_test(tc, test_hostile_objects);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(event_json_suite)
