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
#include "line.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "xmalloc.h"

/* ---- output --------------------------------------------------------------- */

/* Encode msg (stolen) for c (line.h); 0 if nothing is to be sent, also
 * when the connection is closing.  Into the caller's (stack) buffer: no
 * allocation and no copy for a message sent to one connection. */
static size_t encode_line(struct conn *c, json_t *msg, char *buf)
{
	if (c == NULL || c->state != CS_OPEN) {
		json_decref(msg);
		return 0;
	}
	return line_encode_into(msg, buf);
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

static struct paced *paced_new(const char *s, size_t n, bool capped)
{
	struct paced *pl = xmalloc(sizeof *pl + n + 1);

	memcpy(pl->line, s, n);
	pl->line[n] = '\n';
	pl->len = n + 1;
	pl->capped = capped;
	pl->gate = false;
	pl->lazy = NULL;
	pl->lazy_arg = NULL;
	return pl;
}

static void paced_push(struct conn *c, const char *s, size_t n, bool capped)
{
	struct paced *pl = paced_new(s, n, capped);

	if (capped)
		c->paced_extra += pl->len;
	TAILQ_INSERT_TAIL(&c->paced, pl, next);
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

	while ((pl = TAILQ_FIRST(&c->paced)) != NULL && !pl->gate) {
		size_t have = evbuffer_get_length(out);
		if (have > 0 && have + pl->len > pace_low(c))
			break;
		TAILQ_REMOVE(&c->paced, pl, next);
		if (pl->capped)
			c->paced_extra -= pl->len;
		out_msg(c, pl->line, pl->len - 1);
		free(pl);
	}
	bufferevent_setwatermark(c->bev, EV_WRITE, TAILQ_EMPTY(&c->paced) ? 0 : pace_low(c), 0);
}

/* s: n bytes followed by a '\n', to c's output (behind its paced lines). */
static void send_text(struct conn *c, const char *s, size_t n)
{
	if (!TAILQ_EMPTY(&c->paced)) {
		/* Behind paced lines (or a gate): keep the order. */
		paced_push(c, s, n, true);
		conn_pace_drain(c);
	} else {
		out_msg(c, s, n);
	}
	(void)conn_output_check(c);
}

bool conn_output_check(struct conn *c)
{
	size_t queued = evbuffer_get_length(bufferevent_get_output(c->bev)) + c->paced_extra;
	if (queued <= c->srv->cfg->output_max)
		return false;
	conn_teardown(c, "output buffer over cap (slow reader)", false);
	return true;
}

/* msg (stolen) as a line, handed to put: n bytes followed by a '\n'. */
static void send_json(struct conn *c, json_t *msg, void (*put)(struct conn *, const char *, size_t))
{
	char s[PROTO_LINE_MAX];
	size_t n;

	if ((n = encode_line(c, msg, s)) == 0)
		return;
	s[n] = '\n';
	put(c, s, n);
}

void conn_send(struct conn *c, json_t *msg)
{
	send_json(c, msg, send_text);
}

void conn_send_last(struct conn *c, json_t *msg)
{
	send_json(c, msg, out_msg);
}

void conn_send_line(struct conn *c, const struct line *l)
{
	if (c == NULL || l == NULL || c->state != CS_OPEN)
		return;
	send_text(c, line_text(l), line_len(l));
}

static void paced_text(struct conn *c, const char *s, size_t n)
{
	paced_push(c, s, n, false);
	conn_pace_drain(c);
}

void conn_send_paced(struct conn *c, json_t *msg)
{
	send_json(c, msg, paced_text);
}

struct paced *conn_gate_open(struct conn *c)
{
	if (c == NULL || c->state != CS_OPEN)
		return NULL;
	struct paced *gate = xcalloc(1, sizeof *gate);
	gate->gate = true;
	TAILQ_INSERT_TAIL(&c->paced, gate, next);
	return gate;
}

struct paced *conn_paced_new(const char *s, size_t n)
{
	return paced_new(s, n, false);
}

void conn_paced_free(struct paced *pl)
{
	free(pl);
}

void conn_gate_put(struct conn *c, struct paced *gate, struct paced *pl)
{
	if (c->state != CS_OPEN) {
		free(pl);
		return;
	}
	TAILQ_INSERT_BEFORE(gate, pl, next);
}

void conn_gate_close(struct conn *c, struct paced *gate)
{
	TAILQ_REMOVE(&c->paced, gate, next);
	free(gate);
	conn_pace_drain(c);
}

struct paced *conn_gate_open_lazy(struct conn *c, const struct conn_gate_ops *ops, void *arg)
{
	struct paced *gate = conn_gate_open(c);
	if (gate != NULL) {
		gate->lazy = ops;
		gate->lazy_arg = arg;
	}
	return gate;
}

void conn_pace_kick(struct conn *c)
{
	struct paced *gate = TAILQ_FIRST(&c->paced);
	if (c->kicking || c->state != CS_OPEN || gate == NULL || gate->lazy == NULL ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)) > pace_low(c))
		return;
	const struct conn_gate_ops *ops = gate->lazy;
	gate->lazy = NULL;   /* the fill owns its arg now */
	c->kicking = true;
	ops->fill(c, gate, gate->lazy_arg);
	c->kicking = false;
}
