/*
 * scrub.c — control characters out of received text, and numbers held to
 * a range (scrub.h).
 */
#include "scrub.h"

#include <math.h>
#include <string.h>

#include "xmalloc.h"

/* The length of the control character at s (n > 0 bytes left), or 0. */
static size_t ctl_at(const unsigned char *s, size_t n)
{
	if ((s[0] < 0x20 && s[0] != '\t' && s[0] != '\n') || s[0] == 0x7f)
		return 1;
	if (s[0] == 0xc2 && n > 1 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

size_t scrub_count(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t found = 0;
	for (size_t i = 0; i < n;) {
		size_t k = ctl_at(u + i, n - i);
		found += k > 0;
		i += k > 0 ? k : 1;
	}
	return found;
}

size_t scrub_text(char *s, size_t n)
{
	unsigned char *u = (unsigned char *)s;
	size_t found = 0;
	for (size_t i = 0; i < n;) {
		size_t k = ctl_at(u + i, n - i);
		if (k == 0) {
			i++;
			continue;
		}
		found++;
		memset(u + i, '?', k);
		i += k;
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
