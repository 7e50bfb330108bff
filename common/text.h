/*
 * text.h — the wire's rule for free text (reasons, notes, notices, chat,
 * the message of the day): valid UTF-8 in its shortest form, and no
 * control character: none of C0 (tab and newline included), DEL or C1
 * (U+0080..U+009F, which a UTF-8 terminal may read as CSI).  kriegd
 * checks what it accepts with it; krieg checks what its user types before
 * it goes out, so that a typo is told at once.  Pure: no I/O, no state.
 */
#ifndef KRIEG_TEXT_H
#define KRIEG_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the UTF-8 sequence at p, of the n bytes there are (shortest
 * form, no surrogates, at most U+10FFFF; C1 controls included), or 0 if
 * it is not one. */
size_t text_utf8_seq(const unsigned char *p, size_t n);

/* Length of the UTF-8 sequence at p (as text_utf8_seq, no C1 control), or
 * 0 if it is not one.  p is NUL-terminated. */
size_t text_utf8_len(const unsigned char *p);

/* Is s (NUL-terminated) plain text by the rule above?  "" is. */
bool text_plain(const char *s);

#endif
