/*
 * scrub.c — control characters out of received text, and numbers held to
 * a range (scrub.h).
 */
#include "scrub.h"

#include <math.h>
#include <string.h>

#include "text.h"
#include "xmalloc.h"

/* At s: how many bytes a control character takes (0: none), and in *adv
 * how far to go on.  A byte 0x80..0x9F outside a valid sequence is a C1
 * control to a terminal in an 8-bit locale (0x9B is CSI there), as
 * U+0080..U+009F is to a UTF-8 one. */
static size_t ctl_at(const unsigned char *s, size_t n, size_t *adv)
{
	size_t len = text_utf8_seq(s, n);
	*adv = len > 0 ? len : 1;
	if (len == 1)
		return (s[0] < 0x20 && s[0] != '\t' && s[0] != '\n') || s[0] == 0x7f;
	if (len == 2 && s[0] == 0xc2 && s[1] <= 0x9f)
		return 2;
	/* U+202A..U+202E and U+2066..U+2069: the bidirectional embeddings,
	 * overrides and isolates, which make a terminal (or a browser) show
	 * what follows them right to left: "White resigns" can be written
	 * backwards so as to read forwards. */
	if (len == 3 && s[0] == 0xe2 && ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
	                                 (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 3;
	return len == 0 && s[0] >= 0x80 && s[0] <= 0x9f;
}

size_t scrub_count(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t found = 0, adv;
	for (size_t i = 0; i < n; i += adv)
		found += ctl_at(u + i, n - i, &adv) > 0;
	return found;
}

size_t scrub_text(char *s, size_t n)
{
	unsigned char *u = (unsigned char *)s;
	size_t found = 0, adv;
	for (size_t i = 0; i < n; i += adv) {
		size_t k = ctl_at(u + i, n - i, &adv);
		if (k > 0) {
			found++;
			memset(u + i, '?', k);
		}
	}
	return found;
}

size_t scrub_json(json_t *j)
{
	size_t found = 0;
	if (json_is_string(j)) {
		size_t n = json_string_length(j);
		if (scrub_count(json_string_value(j), n) == 0)
			return 0;
		char *copy = xmalloc(n + 1);
		memcpy(copy, json_string_value(j), n + 1);
		found = scrub_text(copy, n);
		json_string_setn(j, copy, n);
		free(copy);
	} else if (json_is_object(j)) {
		const char *key;
		json_t *v;
		json_object_foreach(j, key, v)
			found += scrub_json(v);
	} else if (json_is_array(j)) {
		size_t i;
		json_t *v;
		json_array_foreach(j, i, v)
			found += scrub_json(v);
	}
	return found;
}

long scrub_ms(const json_t *v, double scale)
{
	if (!json_is_number(v))
		return 0;
	double x = json_number_value(v) * scale;
	if (!(x > -SCRUB_MS_MAX))     /* NaN too, which jansson never gives */
		return -SCRUB_MS_MAX;
	if (x > SCRUB_MS_MAX)
		return SCRUB_MS_MAX;
	return lround(x);
}
