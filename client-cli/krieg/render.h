/*
 * render.h — drawing a board for a terminal.
 *
 * The renderer draws whatever board it is given for a named audience: a
 * player's own board (their pieces, plus their ghosts in a distinct style),
 * or — once the protocol offers watching — the umpire's full board.  It
 * decides nothing about what may be shown; the caller passes only what
 * that audience was told.
 */
#ifndef KRIEG_RENDER_H
#define KRIEG_RENDER_H

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

#endif
