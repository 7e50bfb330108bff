/*
 * scrub.h — what a peer sent, made safe to show on a terminal and to
 * compute with.
 *
 * The wire's text never holds a control character (PROTOCOL.md: names,
 * chat, reasons are checked by kriegd), but a client talks to whatever
 * server its user names, and shows that server's words on a terminal,
 * where ESC and CSI are commands: a hostile server could clear the
 * screen, retitle the window, or forge what the user reads.  So the
 * clients (krieg, krieg-bot) scrub every string of every line they
 * receive before they look at it, and the lines they print verbatim.
 *
 * A control character here: C0 (U+0000..U+001F) except tab and newline
 * (a PGN record's lines are text), DEL (U+007F), and C1 (U+0080..U+009F,
 * two bytes in UTF-8: a UTF-8 terminal may read U+009B as CSI), and a
 * byte 0x80..0x9F outside a valid UTF-8 sequence (a C1 control to a
 * terminal in an 8-bit locale: a raw line need not be UTF-8), and the
 * bidirectional overrides, embeddings and isolates (U+202A..U+202E,
 * U+2066..U+2069), which reorder what a line shows.  Each is replaced by
 * '?' byte for byte, so lengths and UTF-8 validity are kept.  A byte
 * 0x80..0x9F INSIDE a valid sequence ("ě" is C4 9B) stays: to a terminal
 * in an 8-bit locale it is a C1 control all the same, so krieg converts
 * what it shows to the locale's character set before it writes
 * (client-cli/krieg/render.h, render_term_out); krieg-bot's lines are
 * written for the journal, which takes UTF-8.
 *
 * Numbers too: a clock reading or a time control is a JSON number, any
 * finite double to jansson, and casting 1e300 to long is undefined
 * behaviour; scrub_ms holds such a number to a range first.
 */
#ifndef KRIEG_SCRUB_H
#define KRIEG_SCRUB_H

#include <stddef.h>

#include <jansson.h>

/* How many control characters s[0..n) holds (what scrub_text would replace). */
size_t scrub_count(const char *s, size_t n);

/* Replace them in s[0..n), in place; returns how many there were. */
size_t scrub_text(char *s, size_t n);

/* The same over every string value of j, at any depth (keys are looked up,
 * never shown, and stay as they are); returns how many were replaced. */
size_t scrub_json(json_t *j);

/* The most milliseconds a clock or a time control read from a peer holds
 * here: a year (correspondence games are counted in days). */
#define SCRUB_MS_MAX (366L * 24 * 3600 * 1000)

/* v times scale (1000 for seconds, 1 for milliseconds), rounded to whole
 * milliseconds within [-SCRUB_MS_MAX, SCRUB_MS_MAX]; 0 if v is not a number. */
long scrub_ms(const json_t *v, double scale);

#endif
