/*
 * text.h — the wire's rule for free text (reasons, notes, notices, chat,
 * the message of the day): valid UTF-8 in its shortest form, and no
 * control character: none of C0 (tab and newline included), DEL or C1
 * (U+0080..U+009F, which a UTF-8 terminal may read as CSI): text_plain.
 *
 * What people write as it comes in (chat, tells, messages, an umpire's
 * note or reason, an admin's notice or kick reason) is also put in a form
 * in which one person's words cannot pass for another's or for the
 * server's (text_words):
 *   refused     the bidirectional embeddings, overrides and isolates
 *               (U+202A..U+202E, U+2066..U+2069: "\u202e" turned the rest
 *               of a line around, and the buttons beside it), the line and
 *               paragraph separators (U+2028, U+2029), the interlinear
 *               annotations (U+FFF9..U+FFFB), and a letter (or space)
 *               carrying more than TEXT_COMBINING_RUN marks (they draw
 *               over the lines around): every character of Unicode's
 *               general categories Mn and Me, the marks drawn on a letter
 *               (Thai's tone marks, Arabic's harakat, Hebrew's points as
 *               much as U+0300..; not the spacing marks, Mc, which take a
 *               place of their own, Burmese writes five on a letter, and
 *               neither count nor end a run),
 *               common/text_marks.h, generated from the
 *               Unicode Character Database by common/gen/gen_marks.sh;
 *               a run is ended by a character kept or a space, not by
 *               one dropped or zero-width (below) among its marks;
 *   a space     every Unicode space (U+00A0, U+1680, U+2000..U+200A,
 *               U+202F, U+205F, U+3000) and the blank letters (U+115F,
 *               U+1160, U+3164, U+FFA0, U+2800), so that a run of them is
 *               one space like any other (twenty U+3000 put "The umpire
 *               says: ..." on a line of its own);
 *   dropped     the characters meant to be invisible (Unicode's default
 *               ignorables: U+00AD, U+034F, U+17B4, U+17B5, U+180B..U+180F,
 *               U+200B, U+2060..U+2065, U+206A..U+206F, U+FEFF,
 *               U+1BCA0..U+1BCA3, U+1D173..U+1D17A, U+E0000..U+E00FF,
 *               U+E01F0..U+E0FFF; but the tags of a subdivision flag, U+1F3F4
 *               then 3..6 tag letters or digits and U+E007F, stay with it:
 *               Scotland's, Wales's, England's flags), and
 *               the zero-width marks and joiners that must stay inside
 *               words (U+200C, U+200D: Persian, emoji; U+200E, U+200F,
 *               U+061C: right-to-left writing) wherever they touch a
 *               space or an end (between spaces they kept a run of them
 *               from being one), and the variation selectors (U+FE00..
 *               U+FE0F, U+E0100..U+E01EF) but one right after a character
 *               kept, whose drawing it chooses ("❤" + U+FE0F at a word's
 *               end is the emoji).
 * kriegd checks what it accepts with these; krieg checks what its user
 * types before it goes out, so that a typo is told at once.  Pure: no
 * I/O, no state.
 *
 * Text written before this rule (a game's stored chat, a configured motd)
 * is read by text_plain's alone: action_umpire_text does not ask more.
 */
#ifndef KRIEG_TEXT_H
#define KRIEG_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#define TEXT_COMBINING_RUN 4   /* marks (category M) one letter may carry */

/* What text_words refuses, and the rule as a refusal says it (a printf
 * format; its %d: the byte limit).  Every part of it, so that a refusal
 * never points at a part the text did not break (probe: five marks on a
 * letter were refused as a "control or direction-changing" character). */
#define TEXT_STR_(x) #x
#define TEXT_STR(x) TEXT_STR_(x)
#define TEXT_REFUSED "control or direction-changing characters or more than " \
                     TEXT_STR(TEXT_COMBINING_RUN) " marks on a letter"
#define TEXT_RULE "1..%d bytes of UTF-8, not blank, without " TEXT_REFUSED

/* Length of the UTF-8 sequence at p, of the n bytes there are (shortest
 * form, no surrogates, at most U+10FFFF; C1 controls included), or 0 if
 * it is not one. */
size_t text_utf8_seq(const unsigned char *p, size_t n);

/* How much of s[0..n) is whole characters: n, or less the last one if a
 * cut at n left it short (a message cut to its buffer is cut there). */
size_t text_whole_len(const char *s, size_t n);

/* Are s[0..n) whole UTF-8 sequences (text_utf8_seq's rule, NULs and C1
 * controls allowed)? */
bool text_utf8_valid(const char *s, size_t n);

/* One character at p (n > 0 bytes there) as UTF-8 into out: a UTF-8
 * sequence as it is, else its one byte read as ISO 8859-1, PGN's
 * character set (a C1 control's byte as '?').  Returns the bytes written
 * (1..4); *used gets the bytes of p taken. */
size_t text_latin1_char(const unsigned char *p, size_t n, char out[4], size_t *used);

/* Length of the UTF-8 sequence at p (as text_utf8_seq, no C1 control), or
 * 0 if it is not one.  p is NUL-terminated. */
size_t text_utf8_len(const unsigned char *p);

/* Is s (NUL-terminated) plain text by the rule above?  "" is. */
bool text_plain(const char *s);

/* A person's words as they come in, in the form above, into out (len
 * bytes, at least strlen(in) + 1: the text only shrinks).  Spaces are
 * not collapsed here (action_umpire_text trims and collapses).  false:
 * not plain text, a refused character, or too long for out. */
bool text_words(const char *in, char *out, size_t len);
#endif
