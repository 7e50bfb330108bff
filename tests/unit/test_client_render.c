/*
 * test_client_render.c — krieg's board drawing: ASCII and Unicode, from
 * each side, with ghosts, with and without colour; and the clock text.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "check_main.h"
#include "event.h"
#include "ghost.h"
#include "render.h"

static char out[RENDER_BOARD_MAX];

/* The text of row `n` (0 = the title line) of a rendering. */
static const char *row(const char *text, int n, char *buf, size_t len)
{
	const char *p = text;
	for (int i = 0; i < n && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	ck_assert_ptr_nonnull(p);
	size_t l = strcspn(p, "\n");
	ck_assert_uint_lt(l, len);
	memcpy(buf, p, l);
	buf[l] = '\0';
	return buf;
}

static void own_start(struct board *own, int color)
{
	struct board b;
	board_start(&b);
	board_own_view(&b, color, own);
}

START_TEST(ascii_white_side)
{
	struct board own;
	struct render_opts o = { .unicode = false, .color = false, .bottom = WHITE, .audience = AUD_WHITE };
	char line[256];
	own_start(&own, WHITE);
	render_board(&own, NULL, &o, out, sizeof out);
	ck_assert_str_eq(row(out, 0, line, sizeof line), "White's own board");
	ck_assert_str_eq(row(out, 1, line, sizeof line), "    a  b  c  d  e  f  g  h ");
	/* rank 8 first, empty: Black's pieces are not on White's own board */
	ck_assert_str_eq(row(out, 2, line, sizeof line), " 8  .  .  .  .  .  .  .  .  8");
	ck_assert_str_eq(row(out, 8, line, sizeof line), " 2  P  P  P  P  P  P  P  P  2");
	ck_assert_str_eq(row(out, 9, line, sizeof line), " 1  R  N  B  Q  K  B  N  R  1");
	ck_assert_ptr_null(strchr(out, '\033'));
}
END_TEST

/* crazykrieg: both (public) reserves under the board; none elsewhere. */
START_TEST(hands_under_the_board)
{
	struct board own;
	struct render_opts o = { .unicode = false, .color = false, .bottom = WHITE, .audience = AUD_WHITE };
	char line[256];
	own_start(&own, WHITE);
	render_board(&own, NULL, &o, out, sizeof out);
	ck_assert_ptr_null(strstr(out, "In hand"));
	board_hand_add(&own, WHITE, KNIGHT);
	board_hand_add(&own, WHITE, PAWN);
	board_hand_add(&own, WHITE, PAWN);
	render_board(&own, NULL, &o, out, sizeof out);
	ck_assert_str_eq(row(out, 11, line, sizeof line), "In hand: White NPP | Black -");
	board_hand_add(&own, BLACK, QUEEN);
	render_board(&own, NULL, &o, out, sizeof out);
	ck_assert_str_eq(row(out, 11, line, sizeof line), "In hand: White NPP | Black q");
}
END_TEST

START_TEST(ascii_black_side)
{
	struct board own;
	struct render_opts o = { .unicode = false, .color = false, .bottom = BLACK, .audience = AUD_BLACK };
	char line[256];
	own_start(&own, BLACK);
	render_board(&own, NULL, &o, out, sizeof out);
	ck_assert_str_eq(row(out, 0, line, sizeof line), "Black's own board");
	ck_assert_str_eq(row(out, 1, line, sizeof line), "    h  g  f  e  d  c  b  a ");
	/* rank 1 at the top, seen from Black: h-file on the left */
	ck_assert_str_eq(row(out, 2, line, sizeof line), " 1  .  .  .  .  .  .  .  .  1");
	ck_assert_str_eq(row(out, 8, line, sizeof line), " 7  p  p  p  p  p  p  p  p  7");
	ck_assert_str_eq(row(out, 9, line, sizeof line), " 8  r  n  b  k  q  b  n  r  8");
}
END_TEST

START_TEST(unicode_pieces)
{
	struct board own;
	struct render_opts o = { .unicode = true, .color = false, .bottom = WHITE, .audience = AUD_WHITE };
	char line[256];
	own_start(&own, WHITE);
	render_board(&own, NULL, &o, out, sizeof out);
	ck_assert_str_eq(row(out, 9, line, sizeof line),
	                 " 1  \u2656  \u2658  \u2657  \u2655  \u2654  \u2657  \u2658  \u2656  1");
	ck_assert_ptr_nonnull(strstr(row(out, 5, line, sizeof line), "\u00B7"));
	own_start(&own, BLACK);
	o.bottom = BLACK;
	render_board(&own, NULL, &o, out, sizeof out);
	ck_assert_ptr_nonnull(strstr(out, "\u265A"));   /* black king */
	ck_assert_ptr_null(strstr(out, "\u2654"));      /* no white king on Black's board */
}
END_TEST

START_TEST(ghosts_are_bracketed)
{
	struct board own;
	struct ghosts g;
	struct render_opts o = { .unicode = false, .color = false, .bottom = WHITE, .audience = AUD_WHITE };
	char line[256];
	own_start(&own, WHITE);
	ghost_init(&g, BLACK);
	ck_assert_int_eq(ghost_place(&g, &own, "Nf6"), GHOST_OK);
	ck_assert_int_eq(ghost_place(&g, &own, "e5"), GHOST_OK);
	render_board(&own, &g, &o, out, sizeof out);
	ck_assert_str_eq(row(out, 4, line, sizeof line), " 6  .  .  .  .  . [n] .  .  6");
	ck_assert_str_eq(row(out, 5, line, sizeof line), " 5  .  .  .  . [p] .  .  .  5");
	/* from Black's side the same squares mirror */
	o.bottom = BLACK;
	render_board(&own, &g, &o, out, sizeof out);
	ck_assert_str_eq(row(out, 7, line, sizeof line), " 6  .  . [n] .  .  .  .  .  6");
	/* unicode ghost keeps the brackets */
	o.unicode = true;
	o.bottom = WHITE;
	render_board(&own, &g, &o, out, sizeof out);
	ck_assert_ptr_nonnull(strstr(out, "[\u265E]"));
}
END_TEST

START_TEST(color_marks_ghosts)
{
	struct board own;
	struct ghosts g;
	struct render_opts o = { .unicode = false, .color = true, .bottom = WHITE, .audience = AUD_WHITE };
	own_start(&own, WHITE);
	ghost_init(&g, BLACK);
	ck_assert_int_eq(ghost_place(&g, &own, "Qd5"), GHOST_OK);
	render_board(&own, &g, &o, out, sizeof out);
	ck_assert_ptr_nonnull(strstr(out, "\033[2;35m[q]\033[0m"));
	ck_assert_ptr_nonnull(strstr(out, "\033[1m K \033[0m"));
}
END_TEST

START_TEST(umpire_audience_full_board)
{
	struct board b;
	struct render_opts o = { .unicode = false, .color = false, .bottom = WHITE, .audience = AUD_UMPIRE };
	char line[256];
	board_start(&b);
	render_board(&b, NULL, &o, out, sizeof out);
	ck_assert_str_eq(row(out, 0, line, sizeof line), "Umpire's board");
	ck_assert_str_eq(row(out, 2, line, sizeof line), " 8  r  n  b  q  k  b  n  r  8");
	ck_assert_str_eq(row(out, 9, line, sizeof line), " 1  R  N  B  Q  K  B  N  R  1");
}
END_TEST

START_TEST(ghost_rules)
{
	struct board own;
	struct ghosts g;
	own_start(&own, WHITE);
	ghost_init(&g, BLACK);
	ck_assert_int_eq(ghost_place(&g, &own, "Ne2"), GHOST_OCCUPIED);   /* own pawn there */
	ck_assert_int_eq(ghost_place(&g, &own, "Xf6"), GHOST_SYNTAX);
	ck_assert_int_eq(ghost_place(&g, &own, "f9"), GHOST_SYNTAX);
	ck_assert_int_eq(ghost_place(&g, &own, "Bf6"), GHOST_OK);
	ck_assert_int_eq(ghost_move(&g, &own, "f6", "e4"), GHOST_OK);
	ck_assert_int_eq(g.sq[square_parse("e4")], piece_code(BLACK, BISHOP));
	ck_assert_int_eq(g.sq[square_parse("f6")], MAILBOX_EMPTY);
	ck_assert_int_eq(ghost_move(&g, &own, "f6", "e5"), GHOST_EMPTY);
	ck_assert_int_eq(ghost_move(&g, &own, "e4", "e2"), GHOST_OCCUPIED);
	ck_assert_int_eq(ghost_place(&g, &own, "Rh6"), GHOST_OK);
	ck_assert_int_eq(ghost_count(&g), 2);
	ck_assert_int_eq(ghost_clear(&g, "e4"), GHOST_OK);
	ck_assert_int_eq(ghost_count(&g), 1);
	ck_assert_int_eq(ghost_clear(&g, NULL), GHOST_OK);
	ck_assert_int_eq(ghost_count(&g), 0);
	/* an own piece arriving on a ghost's square removes the ghost */
	ck_assert_int_eq(ghost_place(&g, &own, "Ne4"), GHOST_OK);
	board_put(&own, WHITE, KNIGHT, square_parse("e4"));
	ghost_sync(&g, &own);
	ck_assert_int_eq(ghost_count(&g), 0);
}
END_TEST

START_TEST(clock_text)
{
	char buf[RENDER_CLOCK_MAX];
	render_clock(300000, buf);
	ck_assert_str_eq(buf, "5:00");
	render_clock(299001, buf);
	ck_assert_str_eq(buf, "5:00");   /* rounds up: 0:00 only when time is gone */
	render_clock(298999, buf);
	ck_assert_str_eq(buf, "4:59");
	render_clock(3723000, buf);
	ck_assert_str_eq(buf, "1:02:03");
	render_clock(-5, buf);
	ck_assert_str_eq(buf, "0:00");
	/* a correspondence clock: days, hours and minutes (3 days read 72:00:00,
	 * and 60 days were cut to 999:00:00) */
	render_clock(3 * 86400000L, buf);
	ck_assert_str_eq(buf, "3d 00:00");
	render_clock(60 * 86400000L - 61000, buf);
	ck_assert_str_eq(buf, "59d 23:58");
	render_clock(86399000L, buf);
	ck_assert_str_eq(buf, "23:59:59");
}
END_TEST

START_TEST(no_color_env)
{
	setenv("NO_COLOR", "1", 1);
	ck_assert(!render_want_color(1));
	unsetenv("NO_COLOR");
	/* a pipe is never a terminal */
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert(!render_want_color(p[1]));
}
END_TEST

static Suite *render_suite(void)
{
	Suite *s = suite_create("client_render");
	TCase *tc = tcase_create("render");
	tcase_add_test(tc, ascii_white_side);
	tcase_add_test(tc, hands_under_the_board);
	tcase_add_test(tc, ascii_black_side);
	tcase_add_test(tc, unicode_pieces);
	tcase_add_test(tc, ghosts_are_bracketed);
	tcase_add_test(tc, color_marks_ghosts);
	tcase_add_test(tc, umpire_audience_full_board);
	tcase_add_test(tc, ghost_rules);
	tcase_add_test(tc, clock_text);
	tcase_add_test(tc, no_color_env);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(render_suite)
