/*
 * text.c — see text.h.
 */
#include "text.h"

size_t text_utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf && (p[1] & 0xc0) == 0x80)
		return p[0] == 0xc2 && p[1] < 0xa0 ? 0 : 2;   /* U+0080..U+009F: C1 controls */
	if (p[0] >= 0xe0 && p[0] <= 0xef && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
		if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
	    (p[3] & 0xc0) == 0x80) {
		if ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
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
