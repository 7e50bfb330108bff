/*
 * render.c — terminal boards, and text in the terminal's character set (see render.h).
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
#include "text.h"
#include "xmalloc.h"

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

static bool codeset_utf8(const char *cs)
{
	return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

bool render_locale_utf8(void)
{
	return codeset_utf8(nl_langinfo(CODESET));
}

/* --- text to and from the terminal's character set ------------------------------ */

/* Does codeset write one character in several bytes (EUC-JP, GB18030, Big5...)?  中 tells. */
static bool codeset_multibyte(const char *cs)
{
	iconv_t cd = iconv_open(cs, "UTF-8");
	if (cd == (iconv_t)-1)
		return false;
	char zh[] = "\xe4\xb8\xad", got[16], *in = zh, *o = got;
	size_t il = 3, ol = sizeof got;
	bool multi = iconv(cd, &in, &il, &o, &ol) != (size_t)-1 && il == 0 && o - got >= 2;
	iconv_close(cd);
	return multi;
}

void render_term_open(struct render_term *t, const char *codeset)
{
	t->utf8 = codeset_utf8(codeset);
	t->multibyte = false;
	t->out = t->in = (iconv_t)-1;
	t->translit = (locale_t)0;
	const char *now = setlocale(LC_CTYPE, NULL);
	t->bare = !t->utf8 && now && (!strcmp(now, "C") || !strcmp(now, "POSIX"));
	if (t->utf8 || !codeset || !codeset[0])
		return;
	char to[128];
	snprintf(to, sizeof to, "%s//TRANSLIT", codeset);
	t->out = iconv_open(to, "UTF-8");
	t->in = iconv_open("UTF-8", codeset);
	t->multibyte = codeset_multibyte(codeset);
	/* The C locale's transliterations know no accented letter ("ě" was
	 * '?' in ASCII); a UTF-8 C locale's do ("e"), where there is one. */
	if (t->bare)
		t->translit = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

void render_term_close(struct render_term *t)
{
	if (t->out != (iconv_t)-1)
		iconv_close(t->out);
	if (t->in != (iconv_t)-1)
		iconv_close(t->in);
	if (t->translit)
		freelocale(t->translit);
	t->out = t->in = (iconv_t)-1;
	t->translit = (locale_t)0;
}

/* The UTF-8 character c[0..k) in t's character set, into one (len bytes); its length. */
static size_t to_codeset(const struct render_term *t, const unsigned char *c, size_t k, char *one, size_t len)
{
	char *in = (char *)c, *o = one;
	size_t il = k, ol = len;
	if (t->out == (iconv_t)-1)
		goto none;
	iconv(t->out, NULL, NULL, NULL, NULL);
	if (iconv(t->out, &in, &il, &o, &ol) == (size_t)-1 || il != 0 ||
	    iconv(t->out, NULL, NULL, &o, &ol) == (size_t)-1)
		goto none;
	size_t got = (size_t)(o - one);
	/* A byte 0x80..0x9F alone is a C1 control to an 8-bit terminal, whatever
	 * the character set names it (KOI8-R's box lines, CP1252's "€"); inside a
	 * multi-byte character (EUC-JP's 0x8E lead) it is that character's. */
	for (size_t j = 0; j < got; j++) {
		unsigned char b = (unsigned char)one[j];
		if (b < 0x20 || b == 0x7f || (b >= 0x80 && b <= 0x9f && (!t->multibyte || got == 1)))
			one[j] = '?';
	}
	return got;
none:
	one[0] = '?';
	return 1;
}

char *render_term_out(const struct render_term *t, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t n = strlen(text), cap = n + 1, used = 0;
	char *out = xmalloc(cap);
	locale_t was = t->translit ? uselocale(t->translit) : (locale_t)0;
	for (size_t i = 0; i < n;) {
		char one[64];
		size_t k = p[i] < 0x80 ? 1 : text_utf8_seq(p + i, n - i), got = 1;
		if (p[i] < 0x80)
			one[0] = (char)p[i];   /* ASCII: the same in every character set a locale has */
		else if (k == 0 || (k == 2 && p[i] == 0xc2 && p[i + 1] <= 0x9f))
			one[0] = '?';   /* not UTF-8, or U+0080..U+009F */
		else if (t->utf8)
			memcpy(one, p + i, got = k);
		else
			got = to_codeset(t, p + i, k, one, sizeof one);
		i += k ? k : 1;
		out = xgrow(out, &cap, used + got + 1, 1, 64);
		memcpy(out + used, one, got);
		used += got;
	}
	if (t->translit)
		uselocale(was);
	out[used] = '\0';
	return out;
}

bool render_term_lossy(const struct render_term *t, const char *text)
{
	if (!t->bare)
		return false;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if (*p >= 0x80)
			return true;
	return false;
}

char *render_term_in(const struct render_term *t, const char *line)
{
	size_t n = strlen(line);
	/* The locale's character set first: in EUC-JP, GB18030 or KOI8-R many
	 * characters are byte pairs that are UTF-8 too (EUC-JP's 誰, C3 AF, is
	 * UTF-8's ï), and what a terminal sends is in its own set.  In ASCII
	 * (a C locale) a byte above 0x7F is in none: the line goes as it is,
	 * UTF-8 from a UTF-8 terminal whose locale was not set. */
	if (t->utf8 || t->in == (iconv_t)-1)
		return xstrdup(line);   /* nothing to read it as */
	size_t cap = 4 * n + 1, il = n, ol = cap - 1;
	char *out = xmalloc(cap), *in = (char *)line, *o = out;
	iconv(t->in, NULL, NULL, NULL, NULL);
	if (iconv(t->in, &in, &il, &o, &ol) == (size_t)-1 || il != 0) {
		free(out);
		return xstrdup(line);   /* not in the locale's character set either: refused as it is */
	}
	*o = '\0';
	return out;
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
