/*
 * test_client_render.c — krieg's board drawing: ASCII and Unicode, from
 * each side, with ghosts, with and without colour; and the clock text.
 */
#include <check.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

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

/* Where the cursor stands among the rows a prompt and a typed line wrap over
 * (main.c erases from there up, then everything below, before a redraw). */
START_TEST(edit_row_follows_the_wrap)
{
	const wchar_t *l = L"abcdefghijklmnopqrstuvwxyz0123456789";
	/* "krieg> " is 7 columns: 13 more fill a row of 20, and the cursor is on the next */
	ck_assert_int_eq(render_edit_row("krieg> ", l, wcslen(l), 12, 20), 0);
	ck_assert_int_eq(render_edit_row("krieg> ", l, wcslen(l), 13, 20), 1);
	ck_assert_int_eq(render_edit_row("krieg> ", l, wcslen(l), 33, 20), 2);
	ck_assert_int_eq(render_edit_row("krieg> ", l, wcslen(l), 0, 20), 0);
	ck_assert_int_eq(render_edit_row("krieg> ", l, wcslen(l), 999, 20), 2);   /* past the end: the end */
	/* a timed game's prompt alone takes three rows of 20; in 80 a 100-column line wraps once */
	const char *timed = "[#12 White 4:59 | Black 5:00 | your move] > ";
	ck_assert_int_eq(render_edit_row(timed, L"", 0, 0, 20), 2);
	wchar_t longl[101];
	wmemset(longl, L'x', 100);
	longl[100] = L'\0';
	ck_assert_int_eq(render_edit_row(timed, longl, 100, 100, 80), 1);
	ck_assert_int_eq(render_edit_row(timed, longl, 100, 35, 80), 0);
	ck_assert_int_eq(render_edit_row(timed, longl, 100, 36, 80), 1);
	/* a control character is drawn ^X (two columns); a tab goes to the next multiple of 8 */
	ck_assert_int_eq(render_edit_row("krieg> ", L"abcdefghijk\001x", 13, 12, 20), 1);
	ck_assert_int_eq(render_edit_row("krieg> ", L"abcdefghijk\001x", 13, 11, 20), 0);
	ck_assert_int_eq(render_edit_row("krieg> ", L"a\tb", 3, 2, 20), 0);   /* 7, a: 8, the tab: 16 */
	ck_assert_int_eq(render_edit_row("krieg> ", L"abcdefghij\tx", 12, 10, 20), 0);   /* 17 */
	ck_assert_int_eq(render_edit_row("krieg> ", L"abcdefghij\tx", 12, 11, 20), 1);   /* the tab: 24, wrapped */
	/* in a UTF-8 locale: a character of the prompt is a column however many bytes it takes,
	 * and a wide one that does not fit at a row's end starts the next row */
	if (setlocale(LC_CTYPE, "C.UTF-8")) {
		ck_assert_int_eq(render_edit_row("\u00b7\u00b7\u00b7> ", L"abcdefghijklmnop", 16, 14, 20), 0);   /* 5 + 14, not 8 + 14 */
		ck_assert_int_eq(render_edit_row("krieg> ", L"abcdefghijkl\u4e2dx", 14, 12, 20), 1);
		ck_assert_int_eq(render_edit_row("krieg> ", L"abcdefghijkl\u4e2dx", 14, 11, 20), 0);
		ck_assert_int_eq(render_edit_row("krieg> ", L"abcdefghijkl\u4e2dx", 14, 13, 20), 1);
		setlocale(LC_CTYPE, "C");
	}
	/* no width known: no rows to go up */
	ck_assert_int_eq(render_edit_row("krieg> ", l, wcslen(l), 30, 0), 0);
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
	tcase_add_test(tc, edit_row_follows_the_wrap);
	tcase_add_test(tc, no_color_env);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(render_suite)
