/*
 * http.c — see http.h.
 */
#include "http.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

/* RFC 9110 tchar: the characters of a method or a field name. */
static bool is_tchar(unsigned char ch)
{
	return isalnum(ch) || (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

/* A field value may hold visible ASCII, spaces and tabs, and (obs-text)
 * bytes >= 0x80; never other control characters. */
static bool is_vchar_ws(unsigned char ch)
{
	return ch == '\t' || (ch >= 0x20 && ch != 0x7f);
}

/* The fields the door reads: each at most once (two Origin headers are an
 * attack on whichever one a checker reads, not a client's mistake). */
static int header_slot(struct http_req *req, const char *name, const char ***slot)
{
	static const struct {
		const char *name;
		size_t off;
	} known[] = {
		{ "host", offsetof(struct http_req, host) },
		{ "origin", offsetof(struct http_req, origin) },
		{ "upgrade", offsetof(struct http_req, upgrade) },
		{ "connection", offsetof(struct http_req, connection) },
		{ "sec-websocket-key", offsetof(struct http_req, ws_key) },
		{ "sec-websocket-version", offsetof(struct http_req, ws_version) },
		{ "x-forwarded-for", offsetof(struct http_req, forwarded_for) },
	};

	*slot = NULL;
	/* A GET (or HEAD) has no body here: one announced is refused, not skipped. */
	if (strcasecmp(name, "content-length") == 0 || strcasecmp(name, "transfer-encoding") == 0)
		return 400;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strcasecmp(name, known[i].name) == 0) {
			*slot = (const char **)((char *)req + known[i].off);
			return **slot != NULL ? 400 : 0;
		}
	}
	return 0;
}

/* The request line, NUL-terminated: "GET SP target SP HTTP/1.1". */
static int parse_request_line(char *line, struct http_req *req)
{
	char *sp1 = strchr(line, ' ');

	if (sp1 == NULL || sp1 == line)
		return 400;
	for (char *p = line; p < sp1; p++)
		if (!is_tchar((unsigned char)*p))
			return 400;
	*sp1 = '\0';
	char *target = sp1 + 1;
	char *sp2 = strchr(target, ' ');
	if (sp2 == NULL)
		return 400;
	*sp2 = '\0';
	if (strcmp(line, "GET") != 0 && strcmp(line, "HEAD") != 0)
		return 405;
	req->head = line[0] == 'H';
	if (strlen(target) > HTTP_TARGET_MAX)
		return 414;
	if (target[0] != '/')
		return 400;
	for (char *p = target; *p != '\0'; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return 400;
	const char *version = sp2 + 1;
	if (strncmp(version, "HTTP/", 5) != 0)
		return 400;
	if (strcmp(version, "HTTP/1.1") != 0)
		return 505;
	req->target = target;
	return 0;
}

bool http_bad_eol(const unsigned char *buf, size_t n, bool first)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n' && (i == 0 ? first : buf[i - 1] != '\r'))
			return true;
		if (buf[i] == '\r' && i + 1 < n && buf[i + 1] != '\n')
			return true;
	}
	return false;
}

int http_parse_head(char *buf, size_t n, struct http_req *req)
{
	memset(req, 0, sizeof *req);
	if (n > HTTP_HEAD_MAX)
		return 431;
	if (n < 4 || memcmp(buf + n - 4, "\r\n\r\n", 4) != 0)
		return 400;
	if (memchr(buf, '\0', n) != NULL)
		return 400;
	buf[n - 2] = '\0';   /* the blank line's CRLF; each line below ends in CRLF */

	char *line = buf;
	bool first = true;
	while (*line != '\0') {
		char *cr = strchr(line, '\r');

		if (cr == NULL || cr[1] != '\n')
			return 400;          /* a bare CR, or a line without its CRLF */
		*cr = '\0';
		if (strchr(line, '\n') != NULL)
			return 400;          /* a bare LF inside a line */
		char *next = cr + 2;
		if (first) {
			int st = parse_request_line(line, req);
			if (st != 0)
				return st;
			first = false;
			line = next;
			continue;
		}
		if (++req->nheaders > HTTP_HEADERS_MAX)
			return 431;
		/* No obs-fold: a line that starts with white space is refused. */
		char *colon = strchr(line, ':');
		if (colon == NULL || colon == line)
			return 400;
		for (char *p = line; p < colon; p++)
			if (!is_tchar((unsigned char)*p))
				return 400;
		*colon = '\0';
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t vl = strlen(v);
		while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			v[--vl] = '\0';
		for (size_t i = 0; i < vl; i++)
			if (!is_vchar_ws((unsigned char)v[i]))
				return 400;
		const char **slot;
		int st = header_slot(req, line, &slot);
		if (st != 0)
			return st;
		if (slot != NULL)
			*slot = v;
		line = next;
	}
	if (first)
		return 400;
	if (req->host == NULL)
		return 400;          /* HTTP/1.1 requires Host */
	return 0;
}

const char *http_reason(int status)
{
	switch (status) {
	case 101: return "Switching Protocols";
	case 200: return "OK";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 426: return "Upgrade Required";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "Error";
	}
}

bool http_has_token(const char *list, const char *token)
{
	size_t tl = strlen(token);

	if (list == NULL)
		return false;
	for (const char *p = list; *p != '\0';) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		const char *s = p;
		while (*p != '\0' && *p != ',')
			p++;
		const char *e = p;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if ((size_t)(e - s) == tl && strncasecmp(s, token, tl) == 0)
			return true;
	}
	return false;
}

int http_ws_accept(const char *key, char out[HTTP_WS_ACCEPT_LEN + 1])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	unsigned char raw[24], md[EVP_MAX_MD_SIZE];
	char cat[24 + sizeof guid];
	unsigned int mdlen = 0;

	/* 16 bytes in base64 are 24 characters ending in "==". */
	if (key == NULL || strlen(key) != 24 || key[22] != '=' || key[23] != '=')
		return -1;
	for (int i = 0; i < 22; i++)
		if (!isalnum((unsigned char)key[i]) && key[i] != '+' && key[i] != '/')
			return -1;
	if (EVP_DecodeBlock(raw, (const unsigned char *)key, 24) != 18)
		return -1;
	memcpy(cat, key, 24);
	memcpy(cat + 24, guid, sizeof guid);
	if (EVP_Digest(cat, 24 + sizeof guid - 1, md, &mdlen, EVP_sha1(), NULL) != 1 || mdlen != 20)
		return -1;
	if (EVP_EncodeBlock((unsigned char *)out, md, 20) != HTTP_WS_ACCEPT_LEN)
		return -1;
	out[HTTP_WS_ACCEPT_LEN] = '\0';
	return 0;
}
