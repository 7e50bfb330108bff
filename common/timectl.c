/*
 * timectl.c — see timectl.h.
 */
#include "timectl.h"

#include <string.h>

#define SECOND_MS 1000LL
#define MINUTE_MS (60 * SECOND_MS)
/* Past this a number is refused before it could overflow (and long past
 * any limit: a day is 86,400,000 ms). */
#define DECIMAL_MAX_MS 1000000000LL
/* Decimals that a whole number of ms may need (of a minute: 0.000001 is
 * no whole ms, but the digits are read before that is known). */
#define DECIMAL_SCALE_MAX 1000000LL

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * [p, end), a decimal number of `unit` ms ("5", "0.5", "1.25" minutes or
 * seconds), in whole ms into *ms; false if it is not one, is no whole
 * number of ms, or passes DECIMAL_MAX_MS.
 */
static bool decimal_ms(const char *p, const char *end, long long unit, long long *ms)
{
	long long whole = 0, frac = 0, scale = 1;
	if (p == end || !is_digit(*p))
		return false;
	for (; p < end && is_digit(*p); p++)
		if ((whole = whole * 10 + (*p - '0')) * unit > DECIMAL_MAX_MS)
			return false;
	if (p < end && *p == '.') {
		if (++p == end || !is_digit(*p))
			return false;
		for (; p < end && is_digit(*p); p++) {
			if (scale == DECIMAL_SCALE_MAX)
				return false;   /* more decimals than any whole ms needs */
			frac = frac * 10 + (*p - '0');
			scale *= 10;
		}
	}
	if (p != end || frac * unit % scale != 0)
		return false;
	*ms = whole * unit + frac * unit / scale;
	return *ms <= DECIMAL_MAX_MS;
}

/* [p, end), digits only, a number of days within the limits. */
static bool days_of(const char *p, const char *end, int *days)
{
	int v = 0;
	if (p == end)
		return false;
	for (; p < end; p++) {
		if (!is_digit(*p))
			return false;
		if ((v = v * 10 + (*p - '0')) > TIMECTL_DAYS_MAX)
			return false;
	}
	if (v < TIMECTL_DAYS_MIN)
		return false;
	*days = v;
	return true;
}

bool timectl_parse(const char *s, struct timectl *out)
{
	size_t n = strlen(s);
	const char *end = s + n;

	if (strcmp(s, "untimed") == 0 || strcmp(s, "none") == 0) {
		*out = (struct timectl){ .kind = TIMECTL_UNTIMED };
		return true;
	}
	if (n >= 2 && s[n - 1] == 'd') {   /* "3d": nothing but digits before the d */
		int days;
		if (!days_of(s, end - 1, &days))
			return false;
		*out = (struct timectl){ .kind = TIMECTL_DAYS, .days = days };
		return true;
	}

	const char *plus = strchr(s, '+');
	const char *base_end = plus ? plus : end;
	const char *colon = memchr(s, ':', (size_t)(base_end - s));
	long long base, inc = 0, sec;
	if (colon) {   /* m:ss[.fff]: whole minutes, seconds of two digits ("1:059" is no clock), under 60 */
		if (!decimal_ms(s, colon, MINUTE_MS, &base) || memchr(s, '.', (size_t)(colon - s)) ||
		    base_end - (colon + 1) < 2 || !is_digit(colon[1]) || !is_digit(colon[2]) ||
		    (colon + 3 < base_end && colon[3] != '.') ||
		    !decimal_ms(colon + 1, base_end, SECOND_MS, &sec) || sec >= MINUTE_MS)
			return false;
		base += sec;
	} else if (!decimal_ms(s, base_end, MINUTE_MS, &base)) {
		return false;
	}
	if (base < TIMECTL_BASE_MIN_MS || base > TIMECTL_BASE_MAX_MS)
		return false;
	if (plus && (!decimal_ms(plus + 1, end, SECOND_MS, &inc) || inc > TIMECTL_INC_MAX_MS))
		return false;
	*out = (struct timectl){ .kind = TIMECTL_FISCHER, .base_ms = base, .inc_ms = inc };
	return true;
}
