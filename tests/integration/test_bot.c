/*
 * test_bot.c — krieg-bot against a real kriegd: the arena plays one short
 * game per rule set between two bots, each a TLS client that logs in as a
 * guest, challenges or accepts, and plays through the protocol alone, to
 * the end: a game_over both hear, here the draw the arena's ply cap
 * (--max-plies) has the bots agree, so that the test takes seconds.
 *
 * $KRIEG_BOT names the binary; else krieg-bot beside $KRIEGD.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "harness.h"

static void bot_path(char *buf, size_t len)
{
	const char *p = getenv("KRIEG_BOT");
	if (p && *p) {
		snprintf(buf, len, "%s", p);
		return;
	}
	const char *d = getenv("KRIEGD");
	ck_assert_msg(d && *d, "set KRIEG_BOT or KRIEGD");
	snprintf(buf, len, "%s", d);
	char *slash = strrchr(buf, '/');
	snprintf(slash ? slash + 1 : buf, len - (size_t)(slash ? slash + 1 - buf : 0), "krieg-bot");
}

/* Plies before the arena adjudicates: enough for captures, checks and
 * refused tries in every game, few enough for the sanitized trees. */
#define ARENA_PLIES 24

static char *run(const char *cmd, int *status)
{
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	static char out[4096];
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	*status = pclose(f);
	return out;
}

START_TEST(test_arena_smoke)
{
	struct kd *d = kd_start("rate_limit = 1000\nrate_burst = 1000\n");
	char bin[PATH_MAX], cmd[PATH_MAX + 256];
	bot_path(bin, sizeof bin);
	snprintf(cmd, sizeof cmd,
	         "'%s' arena --white greedy --black random --games 1 --rules %s --movetime 1 --max-plies %d"
	         " --server 127.0.0.1:%d",
	         bin, _i == 0 ? "icc" : "english", ARENA_PLIES, kd_port(d));
	int status;
	char *out = run(cmd, &status);
	ck_assert_msg(status == 0, "krieg-bot arena failed (%d): %s", status, out);
	ck_assert_msg(strstr(out, "games 1: +") != NULL, "no score line: %s", out);
	ck_assert_msg(strstr(out, "95% CI") != NULL, "no confidence interval: %s", out);
	ck_assert_msg(strstr(out, "ms per move") != NULL, "no time per move: %s", out);
	/* the game ended: by the rules before the cap, or drawn at it */
	ck_assert_msg(strstr(out, "games 1: +1 =0 -0") || strstr(out, "games 1: +0 =0 -1") ||
	                      strstr(out, "games drawn there by agreement"),
	              "no finished game: %s", out);
	kd_stop(d);
}
END_TEST

START_TEST(test_bad_arguments)
{
	char bin[PATH_MAX], cmd[PATH_MAX + 128];
	bot_path(bin, sizeof bin);
	int status;
	snprintf(cmd, sizeof cmd, "'%s' arena --white nobody --black random --local 2>&1", bin);
	char *out = run(cmd, &status);
	ck_assert_int_ne(status, 0);
	ck_assert_msg(strstr(out, "levels are") != NULL, "%s", out);
	snprintf(cmd, sizeof cmd, "'%s' arena --rules nosuch --local 2>&1", bin);
	out = run(cmd, &status);
	ck_assert_int_ne(status, 0);
	ck_assert_msg(strstr(out, "unknown rule set") != NULL, "%s", out);
}
END_TEST

static Suite *bot_suite(void)
{
	Suite *s = suite_create("bot");
	TCase *tc = tcase_create("bot");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_arena_smoke, 0, 1);
	tcase_add_test(tc, test_bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(bot_suite)
