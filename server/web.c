/*
 * web.c — see web.h.
 *
 * Life of a web connection:
 *   HANDSHAKE (TLS) --> HEAD (reading the request head) --+--> REPLY --> LINGER --> freed
 *                                                          \--> 101: conn_adopt (conn.c owns it)
 * One timer (handshake_timeout) bounds the TLS handshake and the head
 * together; REPLY flushes one response (a file or an error status), then
 * LINGER sends close_notify and FIN and waits for the peer's close or
 * close_linger, as conn.c does.
 */
#include "web.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <wslay/wslay.h>

#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "guard.h"
#include "http.h"
#include "listener.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "server.h"
#include "stall.h"
#include "text.h"
#include "tls.h"
#include "xmalloc.h"

enum wreq_state { WR_HANDSHAKE, WR_HEAD, WR_REPLY, WR_LINGER, WR_DEAD };

/* One connection in its HTTP phase. */
struct wreq {
	struct web *w;
	uint64_t id;
	struct bufferevent *bev;
	enum wreq_state state;
	bool plain;
	bool shut;
	bool head;                  /* a HEAD request: heads only, no bodies */
	size_t eol_seen;            /* the head's bytes looked at for bad line ends (head_read) */
	int64_t accepted;           /* mstime_mono() at its accept (web_evict) */
	bool said;                  /* its refusal's line already logged (or left out): the
	                               status that follows draws no second from the budget */
	char peer[64];
	char host[INET6_ADDRSTRLEN];
	char limit[GUARD_ADDR_MAX];  /* the socket's host as the limits count it (guard_addr_key) */
	struct event *timer;
	struct event *free_ev;
	TAILQ_ENTRY(wreq) all;
};

struct web {
	struct server *srv;
	TAILQ_HEAD(, wreq) reqs;
	size_t count;
	uint64_t next_id;
	struct guard_log_limit refused_log;   /* refusals: one line an interval */
	bool *root_failing;          /* each asset's web_root file could not be opened when last
	                              * read (read_root_file), [web_nassets] */
};

/* A WebSocket's framing state, owned by its conn (conn_framing). */
struct ws {
	wslay_event_context_ptr ctx;    /* NULL while idle (ws_release) */
	struct bufferevent *bev;
	struct conn *c;             /* set while input is being decoded */
	/* Frame headers as the bytes pass to wslay (ws_scan). */
	unsigned char hdr[14];
	size_t hlen, hneed;
	uint64_t skip;              /* payload bytes left of the current frame */
	bool frag;                  /* a fragmented data message is not finished */
	int depth;                  /* inside wslay_event_recv: ctx stays */
	uint16_t fail_code;         /* the close code ws_fail chose (0: none), sent at the goodbye */
	char fail_why[32];
};

static void wreq_finish(struct wreq *r, bool flush);

static void timer_in(struct event *ev, int64_t ms)
{
	struct timeval tv = mstime_timeval(ms);

	evtimer_add(ev, &tv);
}

/* ---- UTF-8 ----------------------------------------------------------------- */

bool web_utf8_valid(const unsigned char *s, size_t n)
{
	return text_utf8_valid((const char *)s, n);
}

/* ---- the WebSocket framing (conn_framing) --------------------------------------- */

/*
 * Follow the frame headers in the bytes handed to wslay: a control frame
 * must be whole and at most 125 bytes (RFC 6455 5.5), and a length is
 * written in the fewest bytes, its top bit clear (5.2).  wslay refuses
 * what is not, but with a close frame that has no status code; seen here
 * first, it is closed with 1002 (and wslay's own close is not sent: a
 * connection sends one close).  A data frame longer than a message may
 * be is 1009 at its header, not once its payload came.  The close code
 * at such a frame, else 0.
 */
static uint16_t ws_scan(struct ws *ws, const unsigned char *b, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (ws->skip > 0) {
			size_t k = ws->skip < n - i ? (size_t)ws->skip : n - i;
			ws->skip -= k;
			i += k;
			continue;
		}
		ws->hdr[ws->hlen++] = b[i++];
		if (ws->hlen == 2) {
			unsigned len7 = ws->hdr[1] & 0x7f;
			bool fin = ws->hdr[0] & 0x80, control = ws->hdr[0] & 0x08;
			/* A close's payload is none, or a 2-byte code and a reason:
			 * one byte is a protocol error (RFC 6455 5.5.1), which wslay
			 * would answer with an empty close. */
			bool close1 = (ws->hdr[0] & 0x0f) == WSLAY_CONNECTION_CLOSE && len7 == 1;
			if (control && (!fin || len7 > 125 || close1))
				return WSLAY_CODE_PROTOCOL_ERROR;
			ws->hneed = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + (ws->hdr[1] & 0x80 ? 4 : 0);
		}
		if (ws->hlen >= 2 && ws->hlen == ws->hneed) {
			unsigned len7 = ws->hdr[1] & 0x7f;
			if (!(ws->hdr[0] & 0x08))
				ws->frag = !(ws->hdr[0] & 0x80);
			uint64_t len = len7;
			if (len7 >= 126) {
				len = 0;
				for (size_t k = 2; k < (len7 == 126 ? 4u : 10u); k++)
					len = len << 8 | ws->hdr[k];
				if ((len7 == 126 && len < 126) || (len7 == 127 && (len <= 0xffff || len >> 63)))
					return WSLAY_CODE_PROTOCOL_ERROR;
			}
			if (!(ws->hdr[0] & 0x08) && len > PROTO_LINE_MAX - 1)
				return WSLAY_CODE_MESSAGE_TOO_BIG;
			ws->skip = len;
			ws->hlen = 0;
		}
	}
	return 0;
}

static void ws_fail(struct ws *ws, uint16_t code, const char *why, const char *reason);

static wslay_event_context_ptr ws_ctx(struct ws *ws);

/*
 * An idle WebSocket holds no wslay context: wslay keeps two fixed 4 KiB
 * buffers in each (8.7 KiB a connection, BENCHMARKS.md), which would make a
 * quiet browser cost half as much again as a line connection.  It is
 * dropped only where wslay has nothing worth keeping: between frames (no
 * header or payload half passed to it, ws_scan), outside a fragmented
 * message, nothing queued, no close received or sent, and never inside
 * wslay_event_recv (a reply is sent from its callback).  The next frame in
 * or out makes a fresh one.
 */
static void ws_release(struct ws *ws)
{
	wslay_event_context_ptr ctx = ws->ctx;

	if (ctx == NULL || ws->depth > 0 || ws->hlen > 0 || ws->skip > 0 || ws->frag ||
	    !wslay_event_get_read_enabled(ctx) || !wslay_event_get_write_enabled(ctx) ||
	    wslay_event_get_close_received(ctx) || wslay_event_get_close_sent(ctx) ||
	    wslay_event_want_write(ctx) || wslay_event_get_queued_msg_count(ctx) > 0)
		return;
	wslay_event_context_free(ctx);
	ws->ctx = NULL;
}

static ssize_t ws_recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags,
                          void *arg)
{
	struct ws *ws = arg;
	int n = evbuffer_remove(bufferevent_get_input(ws->bev), buf, len);

	if (n <= 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	uint16_t code = ws_scan(ws, buf, (size_t)n);
	if (code == WSLAY_CODE_MESSAGE_TOO_BIG)
		ws_fail(ws, code, "message too big", "websocket: message too big");
	else if (code != 0)
		ws_fail(ws, code, "bad frame", "websocket: protocol error");
	return n;
}

/* The output buffer takes everything: conn.c caps it (output_buffer_max)
 * and drops a slow reader, so wslay never holds a queue of its own. */
static ssize_t ws_send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len,
                          int flags, void *arg)
{
	struct ws *ws = arg;

	if (evbuffer_add(bufferevent_get_output(ws->bev), data, len) != 0)
		fatalx("evbuffer_add: out of memory");
	return (ssize_t)len;
}

/* Close with code: nothing more is read, and the close frame goes out at
 * the goodbye (ws_goodbye), behind the answers of what the connection
 * sent before the bad frame: conn_close waits for their commits, and a
 * close frame queued here went before them, and they were lost (a move
 * then a binary frame: the move played, never answered). */
static void ws_fail(struct ws *ws, uint16_t code, const char *why, const char *reason)
{
	wslay_event_shutdown_read(ws->ctx);
	ws->fail_code = code;
	snprintf(ws->fail_why, sizeof ws->fail_why, "%s", why);
	conn_close(ws->c, reason);
}

static void ws_msg_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                      void *user)
{
	struct ws *ws = user;

	switch (arg->opcode) {
	case WSLAY_TEXT_FRAME:
		if (!web_utf8_valid(arg->msg, arg->msg_length)) {
			ws_fail(ws, WSLAY_CODE_INVALID_FRAME_PAYLOAD_DATA, "invalid UTF-8",
			        "websocket: invalid UTF-8");
			return;
		}
		/* One message is one line: a newline inside would make it two
		 * on the line transport.  Refused like a line that is not a
		 * request, and the connection goes on. */
		if (memchr(arg->msg, '\n', arg->msg_length) != NULL) {
			dispatch_error(ws->c, NULL, PE_BAD_JSON,
			               "a message is one line: no newline inside");
			return;
		}
		conn_message(ws->c, (const char *)arg->msg, arg->msg_length);
		return;
	case WSLAY_BINARY_FRAME:
		ws_fail(ws, WSLAY_CODE_UNSUPPORTED_DATA, "text messages only",
		        "websocket: binary message");
		return;
	case WSLAY_CONNECTION_CLOSE:
		/* wslay answers the close itself. */
		(void)wslay_event_send(ws->ctx);
		conn_close(ws->c, "websocket close");
		return;
	default:
		return;          /* ping (answered by wslay) and pong */
	}
}

static void ws_input(struct conn *c, void *arg)
{
	struct ws *ws = arg;

	ws->c = c;
	ws->depth++;
	int rv = wslay_event_recv(ws_ctx(ws));
	ws->depth--;
	if (rv != 0) {
		ws_fail(ws, WSLAY_CODE_PROTOCOL_ERROR, "protocol error", "websocket: protocol error");
		return;
	}
	if (!wslay_event_get_read_enabled(ws->ctx) && conn_find(conn_server(c), conn_id(c)) != NULL) {
		/* wslay refused a frame and queued its close: 1009 (over the line
		 * limit) or 1002 (a protocol error: unmasked, a reserved bit, a
		 * fragmented or long control frame, a bad continuation). */
		(void)wslay_event_send(ws->ctx);
		uint16_t code = wslay_event_get_status_code_sent(ws->ctx);
		conn_close(c, code == WSLAY_CODE_MESSAGE_TOO_BIG ? "websocket: message too big"
		                                                 : "websocket: protocol error");
		return;
	}
	(void)wslay_event_send(ws->ctx);   /* pongs */
	ws_release(ws);
	/* Pongs go to the output buffer as lines do, and count as they do: a
	 * client that pings and never reads is a slow reader (it grew the
	 * buffer without bound). */
	(void)conn_output_check(c);
}

static void ws_put(void *arg, const char *msg, size_t n)
{
	struct ws *ws = arg;
	struct wslay_event_msg m = { WSLAY_TEXT_FRAME, (const uint8_t *)msg, n };

	if (wslay_event_queue_msg(ws_ctx(ws), &m) == 0)
		(void)wslay_event_send(ws->ctx);
	ws_release(ws);
}

static void ws_goodbye(void *arg, bool going_away)
{
	struct ws *ws = arg;
	uint16_t code = ws->fail_code != 0 ? ws->fail_code
	                : going_away ? WSLAY_CODE_GOING_AWAY : WSLAY_CODE_NORMAL_CLOSURE;

	(void)wslay_event_queue_close(ws_ctx(ws), code, (const uint8_t *)ws->fail_why,
	                              strlen(ws->fail_why));
	(void)wslay_event_send(ws->ctx);
}

static void ws_keepalive(void *arg)
{
	struct ws *ws = arg;
	struct wslay_event_msg m = { WSLAY_PING, NULL, 0 };

	if (wslay_event_queue_msg(ws_ctx(ws), &m) == 0)
		(void)wslay_event_send(ws->ctx);
	ws_release(ws);
}

static void ws_free(void *arg)
{
	struct ws *ws = arg;

	if (ws->ctx != NULL)
		wslay_event_context_free(ws->ctx);
	free(ws);
}

static const struct conn_framing ws_framing = {
	.input = ws_input,
	.put = ws_put,
	.goodbye = ws_goodbye,
	.keepalive = ws_keepalive,
	.free = ws_free,
};

static wslay_event_context_ptr ws_ctx(struct ws *ws)
{
	static const struct wslay_event_callbacks cbs = {
		.recv_callback = ws_recv_cb,
		.send_callback = ws_send_cb,
		.on_msg_recv_callback = ws_msg_cb,
	};

	if (ws->ctx != NULL)
		return ws->ctx;
	if (wslay_event_context_server_init(&ws->ctx, &cbs, ws) != 0)
		fatalx("wslay_event_context_server_init: out of memory");
	/* A message is a line without its newline: one byte less than the line limit. */
	wslay_event_config_set_max_recv_msg_length(ws->ctx, PROTO_LINE_MAX - 1);
	return ws->ctx;
}

/* No wslay context yet: the first frame makes it (ws_ctx). */
static struct ws *ws_new(struct bufferevent *bev)
{
	struct ws *ws = xcalloc(1, sizeof *ws);

	ws->bev = bev;
	return ws;
}

/* ---- the set of HTTP-phase connections ---------------------------------------- */

struct web *web_new(struct server *srv)
{
	struct web *w = xcalloc(1, sizeof *w);

	w->srv = srv;
	w->root_failing = xcalloc(web_nassets, sizeof *w->root_failing);
	TAILQ_INIT(&w->reqs);
	w->next_id = 1;
	return w;
}

static void wreq_free(struct wreq *r)
{
	TAILQ_REMOVE(&r->w->reqs, r, all);
	r->w->count--;
	if (r->bev != NULL)
		bufferevent_free(r->bev);
	ERR_clear_error();
	event_free(r->timer);
	event_free(r->free_ev);
	free(r);
}

void web_free(struct web *w)
{
	struct wreq *r;

	if (w == NULL)
		return;
	while ((r = TAILQ_FIRST(&w->reqs)) != NULL)
		wreq_free(r);
	free(w->root_failing);
	free(w);
}

static void free_cb(evutil_socket_t fd, short what, void *arg)
{
	wreq_free(arg);
}

/* ---- responses ------------------------------------------------------------------ */

const struct web_asset *web_asset_find(const char *target)
{
	char path[HTTP_TARGET_MAX + 16];
	size_t n = strcspn(target, "?#");

	if (n >= sizeof path - 16)
		return NULL;
	memcpy(path, target, n);
	path[n] = '\0';
	if (strcmp(path, "/") == 0)
		snprintf(path, sizeof path, "/index.html");
	for (size_t i = 0; i < web_nassets; i++)
		if (strcmp(web_assets[i].path, path) == 0)
			return &web_assets[i];
	return NULL;
}

int web_root_check(const char *root, char *err, size_t errlen)
{
	char full[4096];
	struct stat st;

	for (size_t i = 0; i < web_nassets; i++) {
		if ((size_t)snprintf(full, sizeof full, "%s%s", root, web_assets[i].path) >= sizeof full) {
			snprintf(err, errlen, "web_root = %s: too long a path", root);
			return -1;
		}
		/* Only what is surely wrong: a file this user may not read
		 * is the service's to judge (a review). */
		const char *why = stat(full, &st) != 0 ? (errno == ENOENT || errno == ENOTDIR ?
		                                          strerror(errno) : NULL)
		                  : !S_ISREG(st.st_mode) ? "not a file" : NULL;
		if (why != NULL) {
			snprintf(err, errlen, "web_root = %s: %s: %s (it must hold the client's files, "
			         "as client-web/ does)", root, full, why);
			return -1;
		}
	}
	return 0;
}

/* HSTS (RFC 6797) only where the browser was shown the operator's own
 * certificate (cert/key set): the development one is self-signed, and
 * HSTS would turn the warning a browser shows for it into a refusal it
 * cannot click through, for a year.  Never on a plain listener: there
 * the proxy serves TLS and sends its own (deploy/proxy/). */
static bool hsts(const struct wreq *r)
{
	return !r->plain && r->w->srv->cfg->cert_file != NULL;
}

static void add_headers(struct wreq *r, int status)
{
	struct evbuffer *out = bufferevent_get_output(r->bev);

	evbuffer_add_printf(out,
	                    "HTTP/1.1 %d %s\r\n"
	                    "Server: " KRIEGD_SERVER_NAME "\r\n"
	                    "Content-Security-Policy: " WEB_CSP "\r\n"
	                    "X-Content-Type-Options: nosniff\r\n"
	                    "Referrer-Policy: no-referrer\r\n"
	                    "X-Frame-Options: DENY\r\n%s",
	                    status, http_reason(status),
	                    hsts(r) ? "Strict-Transport-Security: max-age=" WEB_HSTS_MAX_AGE "\r\n"
	                            : "");
}

/* An error status with a one-line text body (not to a HEAD), then close.
 * RFC 9110: a 405 says which methods are allowed, a 426 which upgrade
 * (and RFC 6455, which WebSocket version). */
static void reply_status(struct wreq *r, int status, const char *why)
{
	char body[160];
	int n = snprintf(body, sizeof body, "%d %s\n", status, http_reason(status));
	char note[96];

	if (!r->said && conn_log_allow(r->w->srv, r->host, note, sizeof note))
		log_info("web=%llu peer=%s status=%d reason=\"%s\"%s", (unsigned long long)r->id,
		         r->peer, status, why, note);
	add_headers(r, status);
	evbuffer_add_printf(bufferevent_get_output(r->bev),
	                    "%sContent-Type: text/plain; charset=utf-8\r\n"
	                    "Cache-Control: no-store\r\n"
	                    "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
	                    status == 405   ? "Allow: GET, HEAD\r\n"
	                    : status == 426 ? "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
	                                    : "",
	                    n,
	                    r->head ? "" : body);
	wreq_finish(r, true);
}

/* web_root's copy of a file of the set, or NULL (logged): the set is
 * still the compiled one, so web_root adds no name of its own. */
static unsigned char *read_root_file(struct wreq *r, const struct web_asset *a, size_t *len)
{
	const char *root = r->w->srv->cfg->web_root;
	char full[4096];
	struct stat st;
	unsigned char *buf = NULL;
	int fd;

	bool *failing = &r->w->root_failing[a - web_assets];
	if ((size_t)snprintf(full, sizeof full, "%s%s", root, a->path) >= sizeof full)
		return NULL;
	if ((fd = open(full, O_RDONLY | O_CLOEXEC)) < 0) {
		/* Once for each file until it is read again: every visitor's
		 * request wrote a warning (admin probe). */
		log_msg(*failing ? LOGL_DEBUG : LOGL_WARN,
		        "web=%llu web_root file=\"%s\" error=\"%s\"%s", (unsigned long long)r->id, full,
		        strerror(errno), *failing ? "" : " (the next such at debug level until it is "
		        "read)");
		*failing = true;
		return NULL;
	}
	*failing = false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > WEB_FILE_MAX)
		goto out;
	buf = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
		if (k <= 0) {
			free(buf);
			buf = NULL;
			goto out;
		}
		got += (size_t)k;
	}
	*len = got;
out:
	close(fd);
	return buf;
}

static void reply_file(struct wreq *r, const struct web_asset *a, const char *target)
{
	const unsigned char *data = a->data;
	unsigned char *copy = NULL;
	size_t len = a->len;

	if (r->w->srv->cfg->web_root != NULL) {
		if ((copy = read_root_file(r, a, &len)) == NULL) {
			reply_status(r, 500, "web_root file unreadable");
			return;
		}
		data = copy;
	}
	log_debug("web=%llu peer=%s %s %s status=200", (unsigned long long)r->id, r->peer, r->head ? "HEAD" : "GET",
	          a->path);
	add_headers(r, 200);
	/* no-cache: revalidate every time, so a new kriegd is never mixed
	 * with an old page's modules. */
	evbuffer_add_printf(bufferevent_get_output(r->bev),
	                    "Content-Type: %s\r\nCache-Control: no-cache\r\n"
	                    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	                    a->type, len);
	if (!r->head)
		evbuffer_add(bufferevent_get_output(r->bev), data, len);
	free(copy);
	wreq_finish(r, true);
}

/* ---- the upgrade ------------------------------------------------------------------ */

static bool list_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(v[i], s) == 0)
			return true;
	return false;
}

/* Cross-site WebSocket hijacking: a browser always sends the page's
 * Origin; one that is not this door's own (its scheme and the Host the
 * page was loaded from) nor listed in web_origins is refused.  No Origin:
 * not a browser (a script cannot forge one away), allowed. */
static bool origin_ok(const struct wreq *r, const struct http_req *req)
{
	const struct config *cfg = r->w->srv->cfg;
	char own[HTTP_HEAD_MAX];

	if (req->origin == NULL)
		return true;
	if (list_has(cfg->web_origins, cfg->nweb_origins, req->origin))
		return true;
	/* Behind a TLS-terminating proxy the page is https while this
	 * listener is plain. */
	snprintf(own, sizeof own, "https://%s", req->host);
	if (strcasecmp(req->origin, own) == 0)
		return true;
	/* http:// + Host only for a page loaded from this machine's own
	 * name: a rebound one (evil.example resolving to 127.0.0.1 in a
	 * browser on this host) sends its own Host with its own Origin. */
	snprintf(own, sizeof own, "http://%s", req->host);
	return r->plain && listener_host_loopback(req->host) && strcasecmp(req->origin, own) == 0;
}

/* A trusted proxy's X-Forwarded-For: the address it appended (the last
 * one) becomes the host the abuse limits count by. */
static void forwarded_for(struct wreq *r, const struct http_req *req)
{
	const struct config *cfg = r->w->srv->cfg;
	unsigned char bin[sizeof(struct in6_addr)];
	char addr[INET6_ADDRSTRLEN];

	if (!r->plain || req->forwarded_for == NULL ||
	    !list_has(cfg->web_trusted_proxy, cfg->nweb_trusted_proxy, r->host))
		return;
	const char *last = strrchr(req->forwarded_for, ',');
	last = last != NULL ? last + 1 : req->forwarded_for;
	while (*last == ' ')
		last++;
	size_t n = strcspn(last, " ");
	if (n == 0 || n >= sizeof addr)
		return;
	memcpy(addr, last, n);
	addr[n] = '\0';
	if (evutil_inet_pton(AF_INET, addr, bin) != 1 && evutil_inet_pton(AF_INET6, addr, bin) != 1)
		return;
	char peer[2 * INET6_ADDRSTRLEN + 16];
	snprintf(peer, sizeof peer, "%s(via %s)", addr, r->host);
	snprintf(r->peer, sizeof r->peer, "%.63s", peer);
	snprintf(r->host, sizeof r->host, "%s", addr);
}

static void upgrade(struct wreq *r, const struct http_req *req)
{
	char accept[HTTP_WS_ACCEPT_LEN + 1];
	char esc[LOG_ESCAPE_BUF];

	/* A HEAD is answered as a GET without the upgrade: it is never one. */
	if (req->head || req->upgrade == NULL || !http_has_token(req->upgrade, "websocket") ||
	    !http_has_token(req->connection, "upgrade")) {
		reply_status(r, 426, req->head ? "HEAD /ws: never an upgrade" : "GET /ws without a WebSocket upgrade");
		return;
	}
	if (http_ws_accept(req->ws_key, accept) != 0) {
		reply_status(r, 400, "bad Sec-WebSocket-Key");
		return;
	}
	if (req->ws_version == NULL || strcmp(req->ws_version, "13") != 0) {
		/* RFC 6455 4.4: say the version spoken (reply_status's 426). */
		reply_status(r, 426, "Sec-WebSocket-Version not 13");
		return;
	}
	if (!origin_ok(r, req)) {
		char note[96];
		if (conn_log_allow(r->w->srv, r->host, note, sizeof note))
			log_warnx("web=%llu peer=%s refused cross-origin upgrade origin=\"%s\"%s",
			          (unsigned long long)r->id, r->peer,
			          log_escape(req->origin, strlen(req->origin), esc, sizeof esc), note);
		r->said = true;
		reply_status(r, 403, "cross-origin upgrade");
		return;
	}
	forwarded_for(r, req);
	add_headers(r, 101);
	evbuffer_add_printf(bufferevent_get_output(r->bev),
	                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	                    "Sec-WebSocket-Accept: %s\r\n\r\n", accept);

	struct bufferevent *bev = r->bev;
	struct ws *ws = ws_new(bev);
	r->bev = NULL;
	if (conn_adopt(r->w->srv, bev, r->peer, r->host, &ws_framing, ws) == NULL) {
		ws_free(ws);
		bufferevent_free(bev);
	}
	r->state = WR_DEAD;
	event_del(r->timer);
	event_active(r->free_ev, EV_TIMEOUT, 1);
}

/* ---- callbacks --------------------------------------------------------------------- */

static void head_read(struct wreq *r)
{
	struct evbuffer *in = bufferevent_get_input(r->bev);
	/* The blank line looked for from where the last read's search ended
	 * (three bytes back: it may straddle the reads), not from the head's
	 * start at every read (a review: quadratic for a head sent a byte at
	 * a time).  eol_seen is how far both have looked. */
	struct evbuffer_ptr start, p;
	size_t back = r->eol_seen > 3 ? r->eol_seen - 3 : 0;
	if (evbuffer_ptr_set(in, &start, back, EVBUFFER_PTR_SET) == 0)
		p = evbuffer_search(in, "\r\n\r\n", 4, &start);
	else
		p = evbuffer_search(in, "\r\n\r\n", 4, NULL);
	char buf[HTTP_HEAD_MAX + 1];
	struct http_req req;

	if (p.pos < 0) {
		size_t len = evbuffer_get_length(in);
		if (len >= HTTP_HEAD_MAX)
			reply_status(r, 431, "request head over the limit");
		/* Lines ended by a bare LF (or CR) never make the blank line:
		 * it waited for the head's timeout, then said 408 (the browser
		 * probe).  Each byte looked at once (the last again, a CR whose
		 * LF may come next), not the whole head at every read (review). */
		else if (len > r->eol_seen) {
			size_t from = r->eol_seen > 0 ? r->eol_seen - 1 : 0;
			unsigned char fresh[HTTP_HEAD_MAX];
			struct evbuffer_ptr at;
			ev_ssize_t got = -1;
			if (evbuffer_ptr_set(in, &at, from, EVBUFFER_PTR_SET) == 0)
				got = evbuffer_copyout_from(in, &at, fresh, len - from);
			if (got < 0)
				fatalx("evbuffer_copyout_from");
			r->eol_seen = len;
			if (http_bad_eol(fresh, (size_t)got, from == 0))
				reply_status(r, 400, "malformed request head");
		}
		return;
	}
	size_t n = (size_t)p.pos + 4;
	if (n > HTTP_HEAD_MAX) {
		reply_status(r, 431, "request head over the limit");
		return;
	}
	if (evbuffer_remove(in, buf, n) != (int)n)
		fatalx("evbuffer_remove");
	buf[n] = '\0';
	int st = http_parse_head(buf, n, &req);
	r->head = req.head;
	if (st != 0) {
		reply_status(r, st, "malformed request head");
		return;
	}
	size_t tl = strcspn(req.target, "?#");
	if (tl == 3 && strncmp(req.target, "/ws", 3) == 0) {
		upgrade(r, &req);
		return;
	}
	const struct web_asset *a = web_asset_find(req.target);
	if (a == NULL) {
		reply_status(r, 404, "no such file");
		return;
	}
	/* The rest of the connection's input is not read: one request each. */
	reply_file(r, a, req.target);
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	struct wreq *r = arg;

	if (r->state == WR_HEAD)
		head_read(r);
	else if (r->bev != NULL)
		evbuffer_drain(bufferevent_get_input(bev), evbuffer_get_length(bufferevent_get_input(bev)));
}

static void linger_shut(struct wreq *r)
{
	SSL *ssl = r->plain ? NULL : bufferevent_openssl_get_ssl(r->bev);

	r->shut = true;
	if (ssl != NULL)
		(void)SSL_shutdown(ssl);
	ERR_clear_error();
	shutdown(bufferevent_getfd(r->bev), SHUT_WR);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
	struct wreq *r = arg;

	if (r->state == WR_LINGER && !r->shut && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		linger_shut(r);
}

/* flush: send what is queued, then close in LINGER; else free now (deferred). */
static void wreq_finish(struct wreq *r, bool flush)
{
	if (r->state == WR_DEAD || (r->state == WR_LINGER && flush))
		return;
	if (flush) {
		r->state = WR_LINGER;
		timer_in(r->timer, r->w->srv->cfg->linger_ms);
		if (evbuffer_get_length(bufferevent_get_output(r->bev)) == 0)
			linger_shut(r);
		return;
	}
	r->state = WR_DEAD;
	event_del(r->timer);
	bufferevent_disable(r->bev, EV_READ | EV_WRITE);
	event_active(r->free_ev, EV_TIMEOUT, 1);
}

/* Full (or key's address at its limit: key non-NULL), the oldest request
 * still in its TLS handshake or its head, at it CONN_EVICT_HANDSHAKE_MS,
 * is closed for a new one (conn.c evict_handshake: requests that never
 * finish held the door's room, a review); whether one was. */
static bool web_evict(struct web *w, const char *key)
{
	int64_t now = mstime_mono();
	struct wreq *r;
	TAILQ_FOREACH(r, &w->reqs, all)   /* in accept order */
		if ((r->state == WR_HANDSHAKE || r->state == WR_HEAD) &&
		    (key == NULL || strcmp(r->limit, key) == 0)) {
			if (now - r->accepted < CONN_EVICT_HANDSHAKE_MS)
				return false;
			char note[96];
			if (conn_log_allow(w->srv, r->host, note, sizeof note))
				log_info("web=%llu peer=%s closed reason=\"unfinished while the door is full\"%s",
				         (unsigned long long)r->id, r->peer, note);
			wreq_finish(r, false);
			return true;
		}
	return false;
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct wreq *r = arg;

	if (what & BEV_EVENT_CONNECTED) {
		if (r->state == WR_HANDSHAKE)
			r->state = WR_HEAD;
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT)) {
		if (r->state == WR_HANDSHAKE || r->state == WR_HEAD)
			log_debug("web=%llu peer=%s closed before a request", (unsigned long long)r->id,
			          r->peer);
		ERR_clear_error();
		wreq_finish(r, false);
	}
}

void web_stalled(struct server *srv)
{
	struct wreq *r;

	/* The loop stood (stall.h): a handshake or a head sent meanwhile is
	 * unread; each has its whole time again (a browser accepted before a
	 * stop got 408 after it: a review). */
	TAILQ_FOREACH(r, &srv->web->reqs, all)
		if (r->state == WR_HANDSHAKE || r->state == WR_HEAD)
			timer_in(r->timer, srv->cfg->handshake_timeout_ms);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct wreq *r = arg;

	/* Due during a standstill the loop notices only now: web_stalled
	 * re-armed it. */
	if (stall_moved(r->w->srv->stall, r->timer))
		return;
	if (r->state == WR_HEAD) {
		/* Too slow for one request head: tell it, then close. */
		reply_status(r, 408, "request head timeout");
		return;
	}
	char note[96];
	if (r->state == WR_HANDSHAKE && conn_log_allow(r->w->srv, r->host, note, sizeof note))
		log_info("web=%llu peer=%s closed reason=\"tls handshake timeout\"%s",
		         (unsigned long long)r->id, r->peer, note);
	wreq_finish(r, false);
}

/* ---- accept ------------------------------------------------------------------------ */

void web_accept(struct server *srv, int fd, const struct sockaddr *sa, bool plain)
{
	struct web *w = srv->web;
	const struct config *cfg = srv->cfg;
	char peer[64], host[INET6_ADDRSTRLEN], key[GUARD_ADDR_MAX];
	size_t same = 0;
	struct wreq *r;

	conn_format_peer(sa, peer, sizeof peer, host);
	/* The HTTP phase has its own room, as large as the connections':
	 * a flood of half-open requests cannot crowd out the line transport. */
	guard_addr_key(host, cfg->guard.ipv6_prefix, key);
	/* Finished requests (WR_DEAD) are freed at the loop's next pass:
	 * their room is free already. */
	size_t dead = 0;
	TAILQ_FOREACH(r, &w->reqs, all) {
		dead += r->state == WR_DEAD;
		same += r->state != WR_DEAD && strcmp(r->limit, key) == 0;
	}
	bool addr_full = same >= (size_t)cfg->max_conns_per_ip;
	bool full = w->count - dead >= (size_t)cfg->max_conns;
	if (addr_full ? !web_evict(w, key) : full && !web_evict(w, NULL)) {
		/* One line an interval: each refusal was a warning of its own. */
		unsigned more = 0;
		if (guard_log_allow(&cfg->guard, &w->refused_log, mstime_mono(), &more))
			log_warnx("refused peer=%s reason=\"web: too many requests in progress\" (%u like it "
			          "not logged)", peer, more);
		evutil_closesocket(fd);
		return;
	}
	struct bufferevent *bev;
	if (plain) {
		bev = bufferevent_socket_new(srv->base, fd,
		                             BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	} else {
		SSL *ssl = tls_ssl_new(srv->tls);
		if (ssl == NULL) {
			evutil_closesocket(fd);
			return;
		}
		bev = bufferevent_openssl_socket_new(srv->base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING,
		                                     BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
		if (bev == NULL)
			SSL_free(ssl);
		else
			bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	}
	if (bev == NULL) {
		log_warnx("refused peer=%s reason=\"bufferevent_new failed\"", peer);
		evutil_closesocket(fd);
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->w = w;
	r->id = w->next_id++;
	r->accepted = mstime_mono();
	r->bev = bev;
	r->plain = plain;
	r->state = plain ? WR_HEAD : WR_HANDSHAKE;
	snprintf(r->peer, sizeof r->peer, "%s", peer);
	snprintf(r->host, sizeof r->host, "%s", host);
	snprintf(r->limit, sizeof r->limit, "%s", key);
	if ((r->timer = evtimer_new(srv->base, timer_cb, r)) == NULL ||
	    (r->free_ev = evtimer_new(srv->base, free_cb, r)) == NULL)
		fatalx("evtimer_new: out of memory");
	TAILQ_INSERT_TAIL(&w->reqs, r, all);
	w->count++;
	/* Stop reading past one head and a bit. */
	bufferevent_setwatermark(bev, EV_READ, 0, HTTP_HEAD_MAX + 4096);
	bufferevent_setcb(bev, read_cb, write_cb, event_cb, r);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	timer_in(r->timer, cfg->handshake_timeout_ms);
	log_debug("web=%llu accepted peer=%s%s", (unsigned long long)r->id, peer,
	          plain ? " plain" : "");
}
