/*
 * render.c — terminal boards (see render.h).
 */
#define _XOPEN_SOURCE 700   /* wcwidth (the line being edited) */
#include "render.h"

#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <wctype.h>

#include "event.h"

#define ANSI_RESET "\033[0m"
#define ANSI_OWN "\033[1m"          /* pieces on the board: bold */
#define ANSI_GHOST "\033[2;35m"     /* ghosts: dim magenta, and bracketed anyway */
#define ANSI_EMPTY "\033[2m"
#define ANSI_LABEL "\033[36m"

/* indexed by piece_code(): 0 empty, 1..6 white P..K, 9..14 black P..K */
static const char *const ascii_glyph[16] = {
	".", "P", "N", "B", "R", "Q", "K", "?", "?", "p", "n", "b", "r", "q", "k", "?",
};
static const char *const unicode_glyph[16] = {
	".", "\u2659", "\u2658", "\u2657", "\u2656", "\u2655", "\u2654", "?",
	"?", "\u265F", "\u265E", "\u265D", "\u265C", "\u265B", "\u265A", "?",
};

const char *render_piece(uint8_t code, bool unicode)
{
	return (unicode ? unicode_glyph : ascii_glyph)[code & 15];
}

struct out {
	char *p;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	if (o->used >= o->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->p + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->used += (size_t)n;
	if (o->used >= o->len)
		o->used = o->len - 1;
}

static const char *title(const struct render_opts *ro)
{
	if (ro->audience & AUD_UMPIRE)
		return "Umpire's board";
	if (ro->audience & AUD_SPECTATOR)
		return "Spectator's board";
	if (ro->audience & AUD_WHITE)
		return "White's own board";
	if (ro->audience & AUD_BLACK)
		return "Black's own board";
	return "Board";
}

static void files_line(struct out *o, const struct render_opts *ro)
{
	put(o, "   ");
	if (ro->color)
		put(o, ANSI_LABEL);
	for (int i = 0; i < 8; i++) {
		int file = ro->bottom == WHITE ? i : 7 - i;
		put(o, " %c ", 'a' + file);
	}
	if (ro->color)
		put(o, ANSI_RESET);
	put(o, "\n");
}

/* crazykrieg: both reserves are public, so every view shows both, each
 * man once per piece held (queen first).  Other rule sets hold none. */
static void hands_line(struct out *o, const uint8_t hand[2][8], const struct render_opts *ro)
{
	bool any = false;
	for (int type = PAWN; type <= QUEEN; type++)
		any |= hand[WHITE][type] || hand[BLACK][type];
	if (!any)
		return;
	put(o, "In hand:");
	for (int col = WHITE; col <= BLACK; col++) {
		put(o, " %s ", col == WHITE ? "White" : "| Black");
		int n = 0;
		for (int type = QUEEN; type >= PAWN; type--)
			for (int k = 0; k < hand[col][type]; k++, n++)
				put(o, "%s", render_piece(piece_code(col, type), ro->unicode));
		if (n == 0)
			put(o, "-");
	}
	put(o, "\n");
}

size_t render_hands(const uint8_t hand[2][8], const struct render_opts *ro, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	if (len == 0)
		return 0;
	buf[0] = '\0';
	hands_line(&o, hand, ro);
	return o.used;
}

size_t render_board(const struct board *b, const struct ghosts *g, const struct render_opts *ro,
                    char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	if (len == 0)
		return 0;
	buf[0] = '\0';
	put(&o, "%s\n", title(ro));
	files_line(&o, ro);
	for (int row = 0; row < 8; row++) {
		int rank = ro->bottom == WHITE ? 7 - row : row;
		if (ro->color)
			put(&o, ANSI_LABEL " %d " ANSI_RESET, rank + 1);
		else
			put(&o, " %d ", rank + 1);
		for (int col = 0; col < 8; col++) {
			int file = ro->bottom == WHITE ? col : 7 - col;
			int sq = rank * 8 + file;
			uint8_t code = b->mailbox[sq];
			uint8_t ghost = g ? g->sq[sq] : MAILBOX_EMPTY;
			if (code != MAILBOX_EMPTY) {
				put(&o, "%s %s %s", ro->color ? ANSI_OWN : "",
				    render_piece(code, ro->unicode), ro->color ? ANSI_RESET : "");
			} else if (ghost != MAILBOX_EMPTY) {
				put(&o, "%s[%s]%s", ro->color ? ANSI_GHOST : "",
				    render_piece(ghost, ro->unicode), ro->color ? ANSI_RESET : "");
			} else {
				put(&o, "%s %s %s", ro->color ? ANSI_EMPTY : "",
				    ro->unicode ? "\u00B7" : ".",
				    ro->color ? ANSI_RESET : "");
			}
		}
		if (ro->color)
			put(&o, ANSI_LABEL " %d" ANSI_RESET "\n", rank + 1);
		else
			put(&o, " %d\n", rank + 1);
	}
	files_line(&o, ro);
	hands_line(&o, b->hand, ro);
	return o.used;
}

void render_clock(long ms, char out[RENDER_CLOCK_MAX])
{
	if (ms < 0)
		ms = 0;
	long s = (ms + 999) / 1000;   /* a clock shows 0:00 only when the time is really gone */
	if (s > 999L * 86400)
		s = 999L * 86400;     /* keeps the text short */
	long d = s / 86400;
	int h = (int)(s / 3600 % 24), m = (int)(s / 60 % 60), sec = (int)(s % 60);
	if (d)   /* correspondence: up to 60 days a move; "2d 23:59" (hours and minutes) */
		snprintf(out, RENDER_CLOCK_MAX, "%ldd %02d:%02d", d, h, m);
	else if (h)
		snprintf(out, RENDER_CLOCK_MAX, "%d:%02d:%02d", h, m, sec);
	else
		snprintf(out, RENDER_CLOCK_MAX, "%d:%02d", m, sec);
}

/* --- the line being edited ------------------------------------------------- */

#define EDIT_TAB 8   /* libedit's tab stops */

/* Where the next character goes: a row (from the prompt's first) and a column. */
struct edit_at {
	int row, col;
};

/* One character `w` columns wide, at the end of the row when it no longer fits there. */
static void edit_put(struct edit_at *a, int w, int cols)
{
	while (a->col > 0 && a->col + w > cols) {   /* padded out to the row's end */
		if (++a->col >= cols) {
			a->col = 0;
			a->row++;
		}
	}
	a->col += w;
	if (a->col >= cols) {
		a->col = 0;
		a->row++;
	}
}

/* A character of the typed line, as libedit shows it. */
static void edit_add(struct edit_at *a, wchar_t c, int cols)
{
	if (c == L'\t') {
		do
			edit_put(a, 1, cols);
		while (a->col % EDIT_TAB != 0);
	} else if (c < 0x100 && iswcntrl((wint_t)c)) {
		edit_put(a, 1, cols);   /* ^X, a column each */
		edit_put(a, 1, cols);
	} else if (iswprint((wint_t)c)) {
		int w = wcwidth(c);
		edit_put(a, w > 0 ? w : 0, cols);
	} else {
		for (int i = c > 0xffff ? 8 : 7; i > 0; i--)   /* a backslash and U+XXXX (or U+XXXXX) */
			edit_put(a, 1, cols);
	}
}

int render_edit_row(const char *prompt, const wchar_t *line, size_t len, size_t cursor, int cols)
{
	struct edit_at a = { 0, 0 };
	if (cols < 2)
		return 0;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	for (const char *p = prompt; *p;) {
		wchar_t c;
		size_t n = mbrtowc(&c, p, strlen(p), &st);
		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&st, 0, sizeof st);   /* a byte that is no character: a column, at most */
			c = (wchar_t)(unsigned char)*p;
			n = 1;
		}
		int w = wcwidth(c);
		edit_put(&a, w > 0 ? w : 0, cols);
		p += n;
	}
	if (cursor > len)
		cursor = len;
	for (size_t i = 0; i < cursor; i++)
		edit_add(&a, line[i], cols);
	/* a wide character under the cursor that does not fit starts the next row, with the cursor */
	if (cursor < len && iswprint((wint_t)line[cursor]) && wcwidth(line[cursor]) > 1 &&
	    a.col + wcwidth(line[cursor]) > cols)
		a.row++;
	return a.row;
}

bool render_locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

bool render_want_color(int fd)
{
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)   /* no-color.org: present and not empty */
		return false;
	const char *term = getenv("TERM");
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fd);
}
