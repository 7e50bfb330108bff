/*
 * text.c — see text.h.
 */
#include "text.h"

#include <stdint.h>
#include <string.h>

#include "text_marks.h"

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

size_t text_whole_len(const char *s, size_t n)
{
	for (size_t back = 1; back <= 4 && back <= n; back++) {
		const unsigned char *c = (const unsigned char *)s + n - back;
		if ((*c & 0xc0) == 0x80)
			continue;   /* a continuation byte: its lead is further back */
		return *c >= 0x80 && text_utf8_seq(c, back) == 0 ? n - back : n;
	}
	return n;
}

bool text_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0, k; i < n; i += k)
		if ((k = text_utf8_seq(p + i, n - i)) == 0)
			return false;
	return true;
}

size_t text_latin1_char(const unsigned char *p, size_t n, char out[4], size_t *used)
{
	size_t k = text_utf8_seq(p, n);
	if (k > 0) {
		memcpy(out, p, k);
		*used = k;
		return k;
	}
	*used = 1;
	if (p[0] < 0xa0) {   /* (below 0x80 every byte is a sequence) C1: no character to show */
		out[0] = '?';
		return 1;
	}
	out[0] = (char)(0xc0 | p[0] >> 6);
	out[1] = (char)(0x80 | (p[0] & 0x3f));
	return 2;
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

/* Is cp in ranges r[0..n) (sorted, disjoint)?  By halves: text_marks
 * holds some 300 ranges, and text_words asks of every character above
 * U+009F of every line. */
static bool in_ranges(unsigned long cp, const uint32_t (*r)[2], size_t n)
{
	size_t lo = 0, hi = n;

	if (n == 0 || cp < r[0][0])
		return false;
	while (lo < hi) {   /* the range holding cp, if any, is in [lo, hi) */
		size_t mid = lo + (hi - lo) / 2;
		if (cp < r[mid][0])
			hi = mid;
		else if (cp > r[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}
#define IN(cp, table) in_ranges(cp, table, sizeof table / sizeof table[0])

/* How text_words takes each character (text.h).  The tables before
 * K_COMBINING's come first: the variation selectors (U+FE00..U+FE0F,
 * U+E0100..U+E01EF), U+034F, U+17B4, U+17B5 and U+180B..U+180D, U+180F are
 * marks too, but selectors or dropped. */
enum kind { K_KEEP, K_REFUSE, K_SPACE, K_DROP, K_ZERO_WIDTH, K_SELECTOR, K_COMBINING, K_SPACING };

static enum kind kind_of(unsigned long cp)
{
	static const uint32_t refused[][2] = {
		{ 0x2028, 0x202e }, { 0x2066, 0x2069 }, { 0xfff9, 0xfffb },
	};
	static const uint32_t spaces[][2] = {
		{ 0xa0, 0xa0 }, { 0x115f, 0x1160 }, { 0x1680, 0x1680 }, { 0x2000, 0x200a },
		{ 0x202f, 0x202f }, { 0x205f, 0x205f }, { 0x2800, 0x2800 }, { 0x3000, 0x3000 },
		{ 0x3164, 0x3164 }, { 0xffa0, 0xffa0 },
	};
	static const uint32_t ignorable[][2] = {
		{ 0xad, 0xad }, { 0x34f, 0x34f }, { 0x17b4, 0x17b5 }, { 0x180b, 0x180f },
		{ 0x200b, 0x200b }, { 0x2060, 0x2065 }, { 0x206a, 0x206f }, { 0xfeff, 0xfeff },
		{ 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a }, { 0xe0000, 0xe00ff }, { 0xe01f0, 0xe0fff },
	};
	static const uint32_t zero_width[][2] = {
		{ 0x61c, 0x61c }, { 0x200c, 0x200f },
	};
	static const uint32_t selectors[][2] = {
		{ 0xfe00, 0xfe0f }, { 0xe0100, 0xe01ef },
	};
	if (cp < 0xa0)
		return K_KEEP;
	if (IN(cp, refused))
		return K_REFUSE;
	if (IN(cp, spaces))
		return K_SPACE;
	if (IN(cp, ignorable))
		return K_DROP;
	if (IN(cp, zero_width))
		return K_ZERO_WIDTH;
	if (IN(cp, selectors))
		return K_SELECTOR;
	return IN(cp, text_marks) ? K_COMBINING : IN(cp, text_spacing_marks) ? K_SPACING : K_KEEP;
}

/* The length of the plain character at p (text_plain's rule), 0 if none. */
static size_t plain_len(const unsigned char *p)
{
	return *p < 0x20 || *p == 0x7f ? 0 : text_utf8_len(p);
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

/* The kind of the plain character at p (0 bytes: the end), its length in
 * *k; K_REFUSE for one that is not plain. */
static enum kind next_kind(const unsigned char *p, size_t *k)
{
	*k = *p == '\0' ? 0 : plain_len(p);
	if (*p == '\0')
		return K_SPACE;   /* an end counts as a space (zero-width marks there go) */
	if (*k == 0)
		return K_REFUSE;
	return *p == ' ' ? K_SPACE : kind_of(code_point(p, *k));
}

/*
 * The tags of a subdivision flag at p, right after U+1F3F4 (the black
 * flag): 3..6 tag letters or digits (U+E0061..U+E007A, U+E0030..U+E0039:
 * a region and its subdivision, "gbsct") and the cancel tag U+E007F.
 * Their length in bytes, 0 if they are not that.  Kept whole, so that
 * Scotland's flag is not a black one; every other tag is dropped, as tags
 * spell invisible text.
 */
static size_t flag_tags(const unsigned char *p)
{
	size_t n = 0;
	for (int count = 0;; count++) {
		size_t k = text_utf8_len(p + n);
		unsigned long cp = k == 4 ? code_point(p + n, k) : 0;
		if (cp == 0xe007f)
			return count >= 3 ? n + k : 0;
		if (count == 6 || !((cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039)))
			return 0;
		n += k;
	}
}

bool text_words(const char *in, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0, k;
	int marks = 0;
	enum kind last = K_SPACE;   /* of the last character written; the start counts as a space */

	if (len == 0)
		return false;
	while (*p) {
		enum kind kd = next_kind(p, &k);
		if (kd == K_REFUSE)
			return false;
		/* A run of marks is ended only by what starts a new letter (a
		 * character kept, a space): not by one dropped or zero-width,
		 * which left the marks on either side of it on one letter
		 * ("e" + (4 accents + U+034F or U+FE0F) * 10: 44 accents). */
		if (kd == K_COMBINING) {
			if (++marks > TEXT_COMBINING_RUN)
				return false;
		} else if (kd == K_KEEP || kd == K_SPACE) {
			marks = 0;   /* a spacing mark (Mc) does not end a run: one letter + 4 + U+0903 + 4... */
		}
		if (kd == K_ZERO_WIDTH) {
			/* Dropped where it touches a space or an end: the next
			 * character other than one of these decides. */
			const unsigned char *q = p + k;
			size_t qk;
			enum kind after;
			while ((after = next_kind(q, &qk)) == K_ZERO_WIDTH || after == K_DROP || after == K_SELECTOR)
				q += qk;
			if (n == 0 || out[n - 1] == ' ' || after == K_SPACE) {
				p += k;
				continue;
			}
		}
		/* A variation selector chooses how the character before it is
		 * drawn ("❤" + U+FE0F: the red emoji, not the black text heart):
		 * kept right after a character kept, whatever follows (at a
		 * word's end it was dropped, and "I ❤️" lost its colour), one
		 * there; dropped anywhere else, where it selects nothing (a run
		 * of them would be an invisible run of any length). */
		if (kd == K_DROP || (kd == K_SELECTOR && last != K_KEEP && last != K_COMBINING && last != K_SPACING)) {
			p += k;
			continue;
		}
		const unsigned char *c = kd == K_SPACE ? (const unsigned char *)" " : p;
		size_t m = kd == K_SPACE ? 1 : k;
		if (kd == K_KEEP && k == 4 && code_point(p, k) == 0x1f3f4)
			m += flag_tags(p + k);   /* its tags with it, when they name a subdivision */
		if (n + m >= len)
			return false;
		memcpy(out + n, c, m);
		n += m;
		p += kd == K_SPACE ? k : m;
		last = kd;
	}
	out[n] = '\0';
	return true;
}
