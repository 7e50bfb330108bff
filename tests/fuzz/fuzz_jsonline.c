/*
 * fuzz_jsonline.c — the daemon's line writer (proto/jsonline.h) on every
 * object or array jansson's parser accepts: the same length and bytes as
 * json_dumpb(JSON_COMPACT), and with a buffer one byte short the same
 * length again and nothing written past the end.
 */
#include <jansson.h>

#include "fuzz_util.h"
#include "jsonline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t err;
	json_t *j = json_loadb((const char *)data, size, JSON_ALLOW_NUL, &err);

	if (j == NULL)
		return 0;
	char probe[1];
	size_t want_n = json_dumpb(j, probe, 0, JSON_COMPACT);
	FUZZ_ASSERT(want_n > 0, "jansson wrote nothing");
	char *want = malloc(want_n), *got = malloc(want_n + 1);
	FUZZ_ASSERT(want != NULL && got != NULL, "out of memory");
	FUZZ_ASSERT(json_dumpb(j, want, want_n, JSON_COMPACT) == want_n, "jansson's length moved");
	size_t n = jsonline_dump(j, got, want_n);
	FUZZ_ASSERT(n == want_n && memcmp(got, want, n) == 0, "got %.*s\nwant %.*s", (int)n, got,
	            (int)want_n, want);
	got[want_n - 1] = 'X';
	got[want_n] = 'Y';
	FUZZ_ASSERT(jsonline_dump(j, got, want_n - 1) == want_n, "short buffer: length");
	FUZZ_ASSERT(got[want_n - 1] == 'X' && got[want_n] == 'Y', "short buffer: written past");
	free(want);
	free(got);
	json_decref(j);
	return 0;
}
