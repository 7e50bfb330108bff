/*
 * render.h — drawing a board for a terminal, and text in the terminal's
 * character set (render_term_out, render_term_in).
 *
 * The renderer draws whatever board it is given for a named audience: a
 * player's own board (their pieces, plus their ghosts in a distinct style),
 * or — once the protocol offers watching — the umpire's full board.  It
 * decides nothing about what may be shown; the caller passes only what
 * that audience was told.
 */
#ifndef KRIEG_RENDER_H
#define KRIEG_RENDER_H

#include <iconv.h>
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

#include "board.h"
#include "ghost.h"

#define RENDER_BOARD_MAX 8192    /* bytes a rendered board can take, ANSI included */
#define RENDER_CLOCK_MAX 24

struct render_opts {
	bool unicode;        /* chess glyphs; else ASCII letters (white upper case) */
	bool color;          /* ANSI attributes */
	int bottom;          /* the colour whose side is at the bottom (WHITE: rank 1 at the bottom) */
	unsigned audience;   /* enum audience bits: AUD_WHITE/AUD_BLACK (a player), AUD_UMPIRE, AUD_SPECTATOR */
};

/*
 * Render b (and g, which may be NULL) into out.  Each square is three
 * columns: " N " a piece on the board, "[n]" a ghost, " . " an empty
 * square.  Returns the length written (always NUL-terminated; truncated
 * output is never produced because RENDER_BOARD_MAX is enough).
 */
size_t render_board(const struct board *b, const struct ghosts *g, const struct render_opts *o,
                    char *out, size_t len);

/* crazykrieg's "In hand: White ♕♙ | Black -" line (with its newline), from
 * reserves counted by colour and type; nothing when both are empty. */
size_t render_hands(const uint8_t hand[2][8], const struct render_opts *ro, char *out, size_t len);

/* The glyph for a piece code: "N"/"n" in ASCII, "♘"/"♞" in Unicode. */
const char *render_piece(uint8_t code, bool unicode);

/* "4:59", "1:02:03"; negative readings show as "0:00". */
void render_clock(long ms, char out[RENDER_CLOCK_MAX]);

/*
 * The row, counted from 0 at the prompt's first, where the cursor stands
 * while a line is edited: the prompt, then the typed line (len wide
 * characters) up to its cursor, laid out in `cols` columns as libedit lays
 * them out (a control character as ^X, a tab to the next multiple of 8, a
 * wide character that does not fit moved to the next row).  Erasing the
 * prompt before it is drawn again starts that many rows up: the cursor's
 * row alone left the wrapped rows above it on the screen.
 */
int render_edit_row(const char *prompt, const wchar_t *line, size_t len, size_t cursor, int cols);

/* Should this terminal get Unicode / colour?  (locale codeset, NO_COLOR, isatty) */
bool render_locale_utf8(void);
bool render_want_color(int fd);

/*
 * Text to and from a terminal in the locale's character set (the
 * codeset: nl_langinfo(CODESET) after setlocale(LC_ALL, "")).  krieg's
 * words are UTF-8, as the server's are; a terminal in another character
 * set (LANG=C, a Latin-1 locale) shows them converted, through iconv and
 * its transliterations ("ě" is "e" in ASCII, "é" stays "é" in Latin-1, a
 * character it has no form for is '?').  No byte 0x80..0x9F reaches such
 * a terminal, where they are C1 controls (0x9B is CSI: clear the screen,
 * colours, forged lines); nor, in a UTF-8 one, a byte that is not UTF-8
 * or U+0080..U+009F.  Bytes below 0x80 go as they are (the board's
 * colours, newlines, the bell).
 */
struct render_term {
	bool utf8;        /* the codeset is UTF-8: nothing to convert */
	bool multibyte;   /* its characters take more than a byte (EUC-JP, GB18030...) */
	iconv_t out;      /* UTF-8 to the codeset, transliterated; (iconv_t)-1: ASCII alone */
	iconv_t in;       /* the codeset to UTF-8; (iconv_t)-1: none */
	locale_t translit;   /* the LC_CTYPE whose transliterations iconv uses; 0: the process's */
	bool bare;        /* the C (POSIX) locale: no locale was set; ASCII alone */
};

/* Ready t for a terminal whose character set is `codeset` ("UTF-8",
 * "ANSI_X3.4-1968", "ISO-8859-1"...).  One iconv does not know is shown
 * as ASCII, every other character as '?'. */
void render_term_open(struct render_term *t, const char *codeset);
void render_term_close(struct render_term *t);

/* text (UTF-8) as the terminal shows it: a new string (free it). */
char *render_term_out(const struct render_term *t, const char *text);

/* text (UTF-8) holds a character that t shows as another only because no
 * locale was set (the C locale's ASCII: "ě" as "e", "中" as "?"): worth a
 * word on how to see it. */
bool render_term_lossy(const struct render_term *t, const char *text);

/* A line typed on the terminal, in UTF-8: a new string (free it).  Read
 * in the terminal's character set ("tr\xe8s" in Latin-1 is "très"; in
 * EUC-JP C3 AF is 誰, though it is UTF-8's ï too), or left as it is when it
 * is not in that (a UTF-8 line in a C locale's ASCII) or the set is UTF-8. */
char *render_term_in(const struct render_term *t, const char *line);

#endif
