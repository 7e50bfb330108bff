/*
 * text.c — see text.h.
 */
#include "text.h"

#include <string.h>

size_t text_utf8_seq(const unsigned char *p, size_t n)
{
	if (n == 0)
		return 0;
	size_t len = p[0] < 0x80 ? 1 : p[0] < 0xc2 ? 0 : p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 :
	             p[0] < 0xf5 ? 4 : 0;
	if (len == 0 || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* not overlong, not a surrogate, not past U+10FFFF */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return len;
}

size_t text_utf8_len(const unsigned char *p)
{
	/* a NUL ends the bytes there are (a cut sequence is none) */
	size_t len = text_utf8_seq(p, p[0] == '\0' ? 1 : strnlen((const char *)p, 4));
	return len == 2 && p[0] == 0xc2 && p[1] < 0xa0 ? 0 : len;   /* U+0080..U+009F: C1 controls */
}

bool text_plain(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t k = *p < 0x20 || *p == 0x7f ? 0 : text_utf8_len(p);
		if (k == 0)
			return false;
		p += k;
	}
	return true;
}
