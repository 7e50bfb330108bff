/*
 * test_client_render.c — krieg's board drawing: ASCII and Unicode, from
 * each side, with ghosts, with and without colour; the clock text; the
 * announcement log under the board.
 */
#include <check.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "action.h"
#include "board.h"
#include "check_main.h"
#include "client_fixture.h"
#include "event.h"
#include "ghost.h"
#include "render.h"
#include "text.h"

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

/*
 * The umpire's longest note (ACTION_REASON_MAX bytes) and a pause's reason
 * are shown whole, on their line and in the log under the board (probe:
 * "#3: The umpire says: 中…中\xe4", 164 bytes of 200, and the log the same).
 */
START_TEST(umpire_texts_whole_under_the_board)
{
	struct client c;
	struct sink s;
	char note[ACTION_REASON_MAX + 1] = "", zh[ACTION_REASON_MAX + 1] = "", want[1024];
	for (int i = 0; i < 66; i++)
		strcat(note, "\xe4\xb8\xad");   /* 中 */
	strcat(note, "ab");
	for (int i = 0; i < 100; i++)
		strcat(zh, "\xd0\x96");   /* Ж */
	sink_logged_in(&c, &s);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":3,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"black\",\"rated\":false}");
	client_flush(&c);
	json_t *j = json_pack("{s:s, s:i, s:s, s:i}", "event", "umpire_note", "game", 3, "text", note, "ply", 0);
	char *line = json_dumps(j, JSON_COMPACT);
	client_receive(&c, line);
	free(line);
	json_decref(j);
	j = json_pack("{s:s, s:i, s:s, s:s, s:i}", "event", "clock_paused", "game", 3, "by", "umpire", "reason", zh,
	              "ply", 0);
	line = json_dumps(j, JSON_COMPACT);
	client_receive(&c, line);
	free(line);
	json_decref(j);
	client_flush(&c);
	ck_assert_msg(text_utf8_valid(s.printed, strlen(s.printed)), "not UTF-8: %s", s.printed);
	snprintf(want, sizeof want, "#3: The umpire says: %s\n", note);
	ck_assert_msg(strstr(s.printed, want), "%s", s.printed);
	snprintf(want, sizeof want, "#3: The umpire paused the clocks: %s\n", zh);
	ck_assert_msg(strstr(s.printed, want), "%s", s.printed);

	static char board[RENDER_BOARD_MAX + CLIENT_LOG_MAX * (WORDS_MAX + 4)];
	ck_assert_ptr_nonnull(client_current(&c));
	client_render(&c, client_current(&c), board, sizeof board);
	ck_assert_msg(text_utf8_valid(board, strlen(board)), "not UTF-8: %s", board);
	snprintf(want, sizeof want, "  1. The umpire says: %s\n", note);
	ck_assert_msg(strstr(board, want), "%s", board);
	snprintf(want, sizeof want, "  1. The umpire paused the clocks: %s", zh);
	ck_assert_msg(strstr(board, want), "%s", board);
	client_free(&c);
}
END_TEST

/* No byte 0x80..0x9F in s (a C1 control to an 8-bit terminal: 0x9B is CSI). */
static bool no_c1(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p >= 0x80 && *p <= 0x9f)
			return false;
	return true;
}

/* text as a terminal in `codeset` is shown it (render_term_out), into a static buffer. */
static const char *shown_in(const char *codeset, const char *text)
{
	static char shown[1024];
	struct render_term t;
	render_term_open(&t, codeset);
	char *s = render_term_out(&t, text);
	render_term_close(&t);
	snprintf(shown, sizeof shown, "%s", s);
	free(s);
	return shown;
}

/*
 * In a locale whose character set is not UTF-8 (LANG=C, Latin-1), what
 * krieg prints is converted to it: chat's "ě2Jě31mRED" reached the
 * terminal as \xC4\x9B2J\xC4\x9B31mRED, and 0x9B is CSI on an 8-bit one
 * (xterm in 8-bit mode, the Linux console outside UTF-8 mode).
 */
START_TEST(terminal_text_in_the_locale_charset)
{
	static const char probe[] = "\xc4\x9b" "2J\xc4\x9b" "31mRED";   /* ě2Jě31mRED */
	const char *s = shown_in("ANSI_X3.4-1968", probe);
	ck_assert_msg(no_c1(s), "%s", s);
	ck_assert_str_eq(s, "e2Je31mRED");
	s = shown_in("ISO-8859-1", probe);
	ck_assert_msg(no_c1(s), "%s", s);
	ck_assert_str_eq(s, "e2Je31mRED");
	/* Latin-1 keeps its own letters; anything else is transliterated or '?' */
	ck_assert_str_eq(shown_in("ISO-8859-1", "tr\xc3\xa8s \xc3\xa9t\xc3\xa9"), "tr\xe8s \xe9t\xe9");
	ck_assert_str_eq(shown_in("ISO-8859-1", "\xe4\xb8\xad!"), "?!");
	ck_assert_str_eq(shown_in("ANSI_X3.4-1968", "caf\xc3\xa9 \xe4\xb8\xad"), "cafe ?");
	/* U+0080..U+009F, and bytes that are not UTF-8 (a cut character), are '?' everywhere */
	ck_assert_str_eq(shown_in("ISO-8859-1", "a\xc2\x9b" "b\xe4"), "a?b?");
	ck_assert_str_eq(shown_in("UTF-8", "a\xc2\x9b" "b\xe4\xb8\xad\xe4"), "a?b\xe4\xb8\xad?");
	/* ASCII as it is: the board's colours, lines, the bell */
	ck_assert_str_eq(shown_in("ISO-8859-1", "\033[1mK\033[0m\n\t\a"), "\033[1mK\033[0m\n\t\a");
	/* character sets whose letters sit at 0x80..0x9F: '?' there (KOI8-R's box line, CP1252's euro) */
	s = shown_in("KOI8-R", "\xe2\x94\x80\xd0\x96");   /* ─Ж */
	ck_assert_msg(no_c1(s), "%s", s);
	ck_assert_str_eq(s, "?\xf6");
	s = shown_in("CP1252", "\xe2\x82\xac \xc3\xa9");   /* € é */
	ck_assert_msg(no_c1(s), "%s", s);
	ck_assert_str_eq(s, "? \xe9");
	/* a multi-byte one keeps its characters' own bytes (EUC-JP's half-width kana lead with 0x8E) */
	ck_assert_str_eq(shown_in("EUC-JP", "\xe4\xb8\xad\xef\xbd\xb1"), "\xc3\xe6\x8e\xb1");
	/* a character set iconv does not know: ASCII alone */
	ck_assert_str_eq(shown_in("NO-SUCH-CHARSET", "caf\xc3\xa9"), "caf?");
}
END_TEST

/* And what is typed in that character set reaches the server as UTF-8
 * (typed Latin-1 was refused as "not UTF-8"). */
START_TEST(typed_text_read_in_the_locale_charset)
{
	struct render_term t;
	render_term_open(&t, "ISO-8859-1");
	char *s = render_term_in(&t, "say tr\xe8s bien");
	ck_assert_str_eq(s, "say tr\xc3\xa8s bien");
	free(s);
	render_term_close(&t);
	/* Regression (a second review): a line that was UTF-8 too was taken
	 * as UTF-8: EUC-JP's 誰 (C3 AF) went out as ï */
	render_term_open(&t, "EUC-JP");
	s = render_term_in(&t, "say \xc3\xaf");
	ck_assert_str_eq(s, "say \xe8\xaa\xb0");
	free(s);
	render_term_close(&t);
	render_term_open(&t, "ANSI_X3.4-1968");
	s = render_term_in(&t, "say tr\xe8s");   /* in neither: as it is, for the client to refuse */
	ck_assert_str_eq(s, "say tr\xe8s");
	free(s);
	s = render_term_in(&t, "say tr\xc3\xa8s");   /* UTF-8 from a terminal whose locale was not set */
	ck_assert_str_eq(s, "say tr\xc3\xa8s");
	free(s);
	render_term_close(&t);
	render_term_open(&t, "UTF-8");
	s = render_term_in(&t, "say \xe8");
	ck_assert_str_eq(s, "say \xe8");
	free(s);
	render_term_close(&t);
}
END_TEST

/* With no locale set (the C locale: LANG unset), letters beyond ASCII are
 * shown plainer; krieg says so once (main.c show) when one was. */
START_TEST(bare_locale_loss_is_known)
{
	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C"));
	struct render_term t;
	render_term_open(&t, "ANSI_X3.4-1968");
	ck_assert(render_term_lossy(&t, "caf\xc3\xa9"));
	ck_assert(render_term_lossy(&t, "\xe4\xb8\xad"));
	ck_assert(!render_term_lossy(&t, "cafe \033[1mK\033[0m\n"));
	render_term_close(&t);
	render_term_open(&t, "UTF-8");   /* a UTF-8 locale loses nothing */
	ck_assert(!render_term_lossy(&t, "caf\xc3\xa9"));
	render_term_close(&t);
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
	tcase_add_test(tc, umpire_texts_whole_under_the_board);
	tcase_add_test(tc, terminal_text_in_the_locale_charset);
	tcase_add_test(tc, typed_text_read_in_the_locale_charset);
	tcase_add_test(tc, bare_locale_loss_is_known);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(render_suite)
