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

/* The code point of the k-byte UTF-8 sequence at p (a valid one). */
static unsigned long code_point(const unsigned char *p, size_t k)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned long cp = p[0] & lead_mask[k];

	for (size_t i = 1; i < k; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

bool text_disguise(const unsigned char *p, size_t k)
{
	static const struct {
		unsigned long lo, hi;
	} refused[] = {
		{ 0x115f, 0x1160 }, { 0x180e, 0x180e }, { 0x200b, 0x200b }, { 0x2028, 0x202e },
		{ 0x2060, 0x2064 }, { 0x2066, 0x2069 }, { 0x2800, 0x2800 }, { 0x3164, 0x3164 },
		{ 0xfeff, 0xfeff }, { 0xffa0, 0xffa0 }, { 0xfff9, 0xfffb },
	};
	if (k < 3)
		return false;
	unsigned long cp = code_point(p, k);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		if (cp >= refused[i].lo && cp <= refused[i].hi)
			return true;
	return false;
}

/* Is the k-byte sequence at p a Unicode space other than U+0020? */
static bool other_space(const unsigned char *p, size_t k)
{
	unsigned long cp = k > 1 ? code_point(p, k) : 0;
	return cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x202f ||
	       cp == 0x205f || cp == 0x3000;
}

/* The length of the plain character at p (text_plain's rule), 0 if none. */
static size_t plain_len(const unsigned char *p)
{
	size_t k = *p < 0x20 || *p == 0x7f ? 0 : text_utf8_len(p);
	return k > 0 && !text_disguise(p, k) ? k : 0;
}

bool text_plain(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t k = plain_len(p);
		if (k == 0)
			return false;
		p += k;
	}
	return true;
}

bool text_words(const char *in, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0;

	if (len == 0)
		return false;
	while (*p) {
		size_t k = plain_len(p);
		if (k == 0)
			return false;
		const unsigned char *c = other_space(p, k) ? (const unsigned char *)" " : p;
		size_t m = c == p ? k : 1;
		if (n + m >= len)
			return false;
		memcpy(out + n, c, m);
		n += m;
		p += k;
	}
	out[n] = '\0';
	return true;
}
