/*
 * jsonline.c — a jansson tree as one compact JSON text (jsonline.h).
 */
#include "jsonline.h"

#include <stdbool.h>
#include <string.h>

/* Room for a real as jansson writes it (its own bound is 100). */
#define JSONLINE_REAL_MAX 100

/* Like json_dumpb, a piece is copied only if it fits, and `used` counts
 * every byte, so the caller learns the whole length. */
static void put(struct jsonline_out *o, const char *s, size_t n)
{
	if (o->used <= o->size && n <= o->size - o->used)
		memcpy(o->buf + o->used, s, n);
	o->used += n;
	if (n > 0)
		o->last = s[n - 1];
}

/* A string in quotes, escaped as jansson escapes it without flags: the
 * quote, the backslash and the control characters, each of the last
 * with its short form where JSON has one, else \u00XX in capitals.
 * Everything else, UTF-8 included, is copied as it is. */
static void put_string(struct jsonline_out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t run = 0;

	put(o, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		put(o, s + run, i - run);
		run = i + 1;
		char esc[6] = { '\\', (char)ch, 0, 0, 0, 0 };
		size_t len = 2;
		switch (ch) {
		case '"':
		case '\\':
			break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[ch >> 4];
			esc[5] = hex[ch & 0xf];
			len = 6;
			break;
		}
		put(o, esc, len);
	}
	put(o, s + run, n - run);
	put(o, "\"", 1);
}

static void put_integer(struct jsonline_out *o, json_int_t v)
{
	char tmp[24];
	char *p = tmp + sizeof tmp;
	/* In unsigned arithmetic, so that the most negative value negates. */
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		*--p = '-';
	put(o, p, (size_t)(tmp + sizeof tmp - p));
}

static int put_value(struct jsonline_out *o, const json_t *j, int depth)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		if (depth >= JSONLINE_DEPTH_MAX)
			return -1;
		bool first = true;
		put(o, "{", 1);
		for (void *it = json_object_iter((json_t *)j); it != NULL;
		     it = json_object_iter_next((json_t *)j, it)) {
			if (!first)
				put(o, ",", 1);
			first = false;
			put_string(o, json_object_iter_key(it), json_object_iter_key_len(it));
			put(o, ":", 1);
			if (put_value(o, json_object_iter_value(it), depth + 1) != 0)
				return -1;
		}
		put(o, "}", 1);
		return 0;
	}
	case JSON_ARRAY: {
		if (depth >= JSONLINE_DEPTH_MAX)
			return -1;
		size_t n = json_array_size(j);
		put(o, "[", 1);
		for (size_t i = 0; i < n; i++) {
			if (i > 0)
				put(o, ",", 1);
			if (put_value(o, json_array_get(j, i), depth + 1) != 0)
				return -1;
		}
		put(o, "]", 1);
		return 0;
	}
	case JSON_STRING:
		put_string(o, json_string_value(j), json_string_length(j));
		return 0;
	case JSON_INTEGER:
		put_integer(o, json_integer_value(j));
		return 0;
	case JSON_REAL: {
		char tmp[JSONLINE_REAL_MAX];
		size_t n = json_dumpb(j, tmp, sizeof tmp, JSON_ENCODE_ANY | JSON_COMPACT);
		if (n == 0 || n > sizeof tmp)
			return -1;
		put(o, tmp, n);
		return 0;
	}
	case JSON_TRUE:
		put(o, "true", 4);
		return 0;
	case JSON_FALSE:
		put(o, "false", 5);
		return 0;
	case JSON_NULL:
		put(o, "null", 4);
		return 0;
	}
	return -1;
}

void jsonline_put(struct jsonline_out *o, const char *s, size_t n)
{
	put(o, s, n);
}

void jsonline_put_str(struct jsonline_out *o, const char *s, size_t n)
{
	put_string(o, s, n);
}

void jsonline_put_int(struct jsonline_out *o, int64_t v)
{
	put_integer(o, (json_int_t)v);
}

void jsonline_put_key(struct jsonline_out *o, const char *key)
{
	/* A member after another needs its comma; the first follows the '{'. */
	if (o->last != '{')
		put(o, ",", 1);
	/* A constant of the caller's with nothing to escape (jsonline.h):
	 * copied, not scanned, a dozen times a line on the try path. */
	put(o, "\"", 1);
	put(o, key, strlen(key));
	put(o, "\":", 2);
}

size_t jsonline_dump(const json_t *j, char *buf, size_t size)
{
	struct jsonline_out o = { .buf = buf, .size = size, .used = 0 };

	if (j == NULL || !(json_is_object(j) || json_is_array(j)))
		return 0;
	return put_value(&o, j, 0) == 0 ? o.used : 0;
}
