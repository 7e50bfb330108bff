/*
 * test_notation_ep.c — preference lists written with a stand-alone "e.p."
 * (notation_join_list, used by kriegd's `move {moves}` / `quiet` and, via
 * notation_is_ep_word, by krieg-referee's line splitting).
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "fen.h"
#include "notation.h"

START_TEST(test_ep_words)
{
	ck_assert(notation_is_ep_word("e.p."));
	ck_assert(notation_is_ep_word("ep"));
	ck_assert(notation_is_ep_word("e.p.+"));
	ck_assert(notation_is_ep_word("ep!?"));
	ck_assert(!notation_is_ep_word("e4"));
	ck_assert(!notation_is_ep_word("exd6"));
	ck_assert(!notation_is_ep_word("e.p"));
	ck_assert(!notation_is_ep_word("epp"));
	ck_assert(!notation_is_ep_word(""));
}
END_TEST

static const struct {
	const char *items[5];
	size_t n;
	const char *joined;
	int count;
} JOIN[] = {
	{ { "d4", "e4" }, 2, "d4 e4", 2 },
	{ { "exd6", "e.p.", "Nf3" }, 3, "exd6e.p. Nf3", 2 },
	{ { "Nf3", "e5d6", "ep" }, 3, "Nf3 e5d6ep", 2 },
	{ { "exd6", "e.p.+", "exf6", "ep" }, 4, "exd6e.p.+ exf6ep", 2 },
	{ { "e.p.", "d4" }, 2, "e.p. d4", 2 },   /* nothing before it: a word of its own */
	{ { "e4" }, 1, "e4", 1 },
};

START_TEST(test_join)
{
	char buf[128];
	int got = notation_join_list(JOIN[_i].items, JOIN[_i].n, buf, sizeof buf);
	ck_assert_int_eq(got, JOIN[_i].count);
	ck_assert_str_eq(buf, JOIN[_i].joined);
}
END_TEST

START_TEST(test_join_too_long)
{
	const char *items[] = { "e2e4", "d2d4" };
	char buf[8];
	ck_assert_int_eq(notation_join_list(items, 2, buf, sizeof buf), -1);
	ck_assert_int_eq(notation_join_list(items, 2, buf, 0), -1);
}
END_TEST

/* A joined item reads as the capture it names. */
START_TEST(test_joined_item_parses)
{
	struct board b, own;
	char err[64];
	ck_assert_int_eq(fen_parse("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", &b, err, sizeof err), 0);
	board_own_view(&b, WHITE, &own);
	const char *items[] = { "exd6", "e.p." };
	char buf[32];
	ck_assert_int_eq(notation_join_list(items, 2, buf, sizeof buf), 1);
	move_t m;
	ck_assert_int_eq(notation_parse(&own, WHITE, buf, &m, err, sizeof err), NOTATION_OK);
	char uci[NOTATION_MAX];
	notation_uci(m, uci);
	ck_assert_str_eq(uci, "e5d6");
}
END_TEST

static Suite *ep_suite(void)
{
	Suite *s = suite_create("notation_ep");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_ep_words);
	tcase_add_loop_test(tc, test_join, 0, (int)(sizeof JOIN / sizeof *JOIN));
	tcase_add_test(tc, test_join_too_long);
	tcase_add_test(tc, test_joined_item_parses);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(ep_suite)
