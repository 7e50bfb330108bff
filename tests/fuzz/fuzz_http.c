/*
 * fuzz_http.c — http_parse_head (server/http.c), the web door's request
 * head parser, on any bytes; and http_ws_accept on whatever key it read.
 * A head it accepts must keep its promises: GET origin-form target within
 * HTTP_TARGET_MAX, at most HTTP_HEADERS_MAX headers, the fields it hands
 * out free of control characters, and only names of the compiled-in file
 * set (web_asset_find) ever resolve.
 */
#include <string.h>

#include "fuzz_util.h"
#include "http.h"
#include "web.h"

static void no_ctl(const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		FUZZ_ASSERT((unsigned char)*s >= 0x20 || *s == '\t', "control byte 0x%02x in a field",
		            (unsigned char)*s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	struct http_req req;
	char accept[HTTP_WS_ACCEPT_LEN + 1];

	if (buf == NULL)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* the door's early refusal of a head with a line end not CRLF never
	 * refuses one the parser would take, whole or in any two pieces */
	bool bad_eol = http_bad_eol(data, size, true);
	size_t cut = size > 0 ? data[0] % size : 0;
	bool bad_eol_cut = http_bad_eol(data, cut, true) ||
	                   http_bad_eol(data + (cut > 0 ? cut - 1 : 0), size - (cut > 0 ? cut - 1 : 0), cut == 0);
	int st = http_parse_head(buf, size, &req);
	if (st == 0)
		FUZZ_ASSERT(!bad_eol && !bad_eol_cut, "a head taken had a bad line end (cut at %zu)", cut);
	if (st == 0) {
		FUZZ_ASSERT(req.target != NULL && req.target[0] == '/', "target %s", req.target);
		FUZZ_ASSERT(strlen(req.target) <= HTTP_TARGET_MAX, "target of %zu bytes",
		            strlen(req.target));
		FUZZ_ASSERT(req.host != NULL, "no Host");
		FUZZ_ASSERT(strncmp((const char *)data, req.head ? "HEAD " : "GET ", req.head ? 5 : 4) == 0,
		            "a %s head read as %s", req.head ? "HEAD" : "GET", (const char *)data);
		FUZZ_ASSERT(req.nheaders <= HTTP_HEADERS_MAX, "%d headers", req.nheaders);
		no_ctl(req.target);
		no_ctl(req.host);
		no_ctl(req.origin);
		no_ctl(req.ws_key);
		no_ctl(req.forwarded_for);
		const struct web_asset *a = web_asset_find(req.target);
		FUZZ_ASSERT(a == NULL || strstr(a->path, "..") == NULL, "served %s", a->path);
		if (http_ws_accept(req.ws_key, accept) == 0)
			FUZZ_ASSERT(strlen(accept) == HTTP_WS_ACCEPT_LEN, "accept %s", accept);
	} else {
		FUZZ_ASSERT(st == 400 || st == 405 || st == 414 || st == 431 || st == 505,
		            "status %d", st);
	}
	free(buf);
	return 0;
}
