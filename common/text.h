/*
 * text.h — the wire's rule for free text (reasons, notes, notices, chat,
 * the message of the day): valid UTF-8 in its shortest form, and no
 * control character: none of C0 (tab and newline included), DEL or C1
 * (U+0080..U+009F, which a UTF-8 terminal may read as CSI); nor a
 * character that lets one person's words pass for another's or for the
 * server's (text_disguise): the bidirectional embeddings, overrides and
 * isolates (U+202A..U+202E, U+2066..U+2069: "\u202e" turns the rest of a
 * line around, and the buttons beside it), the line and paragraph
 * separators (U+2028, U+2029), the invisible ones (U+200B, U+2060..U+2064,
 * U+FEFF, U+180E, U+FFF9..U+FFFB) and the blank letters (U+115F, U+1160,
 * U+3164, U+FFA0, U+2800).  The marks right-to-left writing needs (U+200E,
 * U+200F, U+061C) and the joiners (U+200C, U+200D: Persian, emoji) stay.
 * kriegd checks what it accepts with it; krieg checks what its user types
 * before it goes out, so that a typo is told at once.  Pure: no I/O, no
 * state.
 *
 * Text written before this rule (a game's stored chat) is read back by the
 * older rule alone: action_umpire_text does not ask text_disguise.
 */
#ifndef KRIEG_TEXT_H
#define KRIEG_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* The rule as a refusal says it (a printf format; its %d: the byte limit). */
#define TEXT_RULE "1..%d bytes of UTF-8 without control, invisible or direction-changing characters"

/* Length of the UTF-8 sequence at p, of the n bytes there are (shortest
 * form, no surrogates, at most U+10FFFF; C1 controls included), or 0 if
 * it is not one. */
size_t text_utf8_seq(const unsigned char *p, size_t n);

/* Length of the UTF-8 sequence at p (as text_utf8_seq, no C1 control), or
 * 0 if it is not one.  p is NUL-terminated. */
size_t text_utf8_len(const unsigned char *p);

/* Is s (NUL-terminated) plain text by the rule above?  "" is. */
bool text_plain(const char *s);

/* Is the UTF-8 sequence at p (k bytes, text_utf8_len's) one of the
 * characters text_plain refuses as a disguise? */
bool text_disguise(const unsigned char *p, size_t k);

/* A person's words as they come in (chat, messages, an umpire's note or
 * reason): text_plain's rule, with every Unicode space (U+00A0, U+1680,
 * U+2000..U+200A, U+202F, U+205F, U+3000) made U+0020, so that a run of
 * them is one space like any other (action_umpire_text: twenty ideographic
 * spaces pushed the rest of a chat line onto a line of its own, where it
 * read as the umpire's).  out: len bytes, at least strlen(in) + 1 (the
 * text only shrinks).  false: not plain text, or too long for out. */
bool text_words(const char *in, char *out, size_t len);

#endif
