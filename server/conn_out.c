/*
 * conn_out.c — what a connection sends (conn_priv.h): each message encoded
 * as one line, the output cap (a slow reader is closed, not buffered
 * without bound), and the paced queue that lets a long login state go out
 * as the client reads while later lines keep their order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <jansson.h>

#include "config.h"
#include "conn.h"
#include "conn_priv.h"
#include "dispatch.h"
#include "jsonline.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "xmalloc.h"

/* ---- output --------------------------------------------------------------- */

/*
 * Encode msg (stolen) as one line into buf, which holds PROTO_LINE_MAX
 * bytes: the message, then room for the '\n' the caller puts at buf[n].
 * Encoding into the caller's (stack) buffer spares an allocation, a copy
 * and two strlen per message on the hottest path, and jsonline_dump
 * writes jansson's own text for far less than json_dumpb (BENCHMARKS.md).
 * A line over PROTO_LINE_MAX breaks the protocol for every client, so it
 * is never sent: it is logged as the bug it is, and a response is
 * replaced by an `internal` error with its id (an event is dropped).
 * Returns the length, 0 if nothing is to be sent, also when the
 * connection is closing.
 */
static size_t encode_line(struct conn *c, json_t *msg, char *buf)
{
	if (msg == NULL)
		return 0;
	if (c == NULL || c->state != CS_OPEN) {
		json_decref(msg);
		return 0;
	}
	size_t n = jsonline_dump(msg, buf, PROTO_LINE_MAX - 1);

	if (n == 0)
		log_warnx("conn=%llu could not encode a message", (unsigned long long)c->id);
	else if (n > PROTO_LINE_MAX - 1) {
		log_warnx("conn=%llu BUG: refusing to send a line of %zu bytes, over the protocol's %d",
		          (unsigned long long)c->id, n + 1, PROTO_LINE_MAX);
		n = 0;
		json_t *ok = json_object_get(msg, "ok");
		if (ok != NULL && json_object_get(msg, "event") == NULL) {
			json_t *id = json_object_get(msg, "id");
			json_t *err = dispatch_error_msg(id, PE_INTERNAL,
			                                 "the reply would be longer than a line");
			n = jsonline_dump(err, buf, PROTO_LINE_MAX - 1);
			if (n > PROTO_LINE_MAX - 1)
				n = 0;
			json_decref(err);
		}
	}
	json_decref(msg);
	return n;
}

static void out_add(struct conn *c, const char *s, size_t n)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);

	if (evbuffer_add(out, s, n) != 0)
		fatalx("evbuffer_add: out of memory");
}

/* One message (s, n bytes, followed by a '\n' at s[n]) to the output, in
 * the connection's framing: a line as one piece, or a frame without it. */
static void out_msg(struct conn *c, const char *s, size_t n)
{
	if (c->framing != NULL) {
		c->framing->put(c->framing_ctx, s, n);
		return;
	}
	out_add(c, s, n + 1);
}

static void paced_push(struct conn *c, const char *s, size_t n, bool capped)
{
	struct paced *pl = xmalloc(sizeof *pl + n + 1);

	memcpy(pl->line, s, n);
	pl->line[n] = '\n';
	pl->len = n + 1;
	pl->capped = capped;
	if (capped)
		c->paced_extra += pl->len;
	STAILQ_INSERT_TAIL(&c->paced, pl, next);
}

/* Half the cap: paced lines move to the output buffer only below it, so
 * the buffer never holds more than that plus one line of them. */
static size_t pace_low(const struct conn *c)
{
	return c->srv->cfg->output_max / 2;
}

/* Move paced lines to the output buffer while it is below the low mark;
 * while some remain, the write callback runs again once it drains. */
void conn_pace_drain(struct conn *c)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	struct paced *pl;

	while ((pl = STAILQ_FIRST(&c->paced)) != NULL) {
		size_t have = evbuffer_get_length(out);
		if (have > 0 && have + pl->len > pace_low(c))
			break;
		STAILQ_REMOVE_HEAD(&c->paced, next);
		if (pl->capped)
			c->paced_extra -= pl->len;
		out_msg(c, pl->line, pl->len - 1);
		free(pl);
	}
	bufferevent_setwatermark(c->bev, EV_WRITE, STAILQ_EMPTY(&c->paced) ? 0 : pace_low(c), 0);
}

void conn_send(struct conn *c, json_t *msg)
{
	char s[PROTO_LINE_MAX];
	size_t n;

	if ((n = encode_line(c, msg, s)) == 0)
		return;
	s[n] = '\n';
	if (!STAILQ_EMPTY(&c->paced)) {
		/* Behind paced lines: keep the order. */
		paced_push(c, s, n, true);
		conn_pace_drain(c);
	} else {
		out_msg(c, s, n);
	}
	size_t queued = evbuffer_get_length(bufferevent_get_output(c->bev)) + c->paced_extra;
	if (queued > c->srv->cfg->output_max)
		conn_teardown(c, "output buffer over cap (slow reader)", false);
}

void conn_send_paced(struct conn *c, json_t *msg)
{
	char s[PROTO_LINE_MAX];
	size_t n;

	if ((n = encode_line(c, msg, s)) == 0)
		return;
	paced_push(c, s, n, false);
	conn_pace_drain(c);
}

