/*
 * batch.c — group commit; see batch.h.
 *
 * One batch is open at a time.  The flush takes the open batch's contents
 * out before it does anything else, so whatever runs during the flush
 * (a connection torn down by its output cap, a rebuilt game re-arming its
 * timers, a waiting request run from batch_after) and opens a new action
 * starts the NEXT batch, which arms the flush event again.
 */
#include "batch.h"

#include <event2/event.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "dispatch.h"
#include "log.h"
#include "server.h"
#include "store.h"

struct batch_action {
	struct batch *b;
	size_t index;                /* in its turn's actions */
	const struct batch_ops *ops;
	void *arg;
	uint64_t requester;
	json_t *id;
};

struct held {
	size_t action;               /* index into the actions of the same batch */
	bool to_user;
	uint64_t conn;
	int64_t user;
	json_t *msg;
};

struct after {
	void (*fn)(void *arg);
	void *arg;
};

/* What one turn accumulates. */
struct turn {
	struct batch_action **acts;
	size_t nacts, capacts;
	struct held *msgs;
	size_t nmsgs, capmsgs;
	struct after *afters;
	size_t nafters, capafters;
};

struct batch {
	struct server *srv;
	struct event *flush_ev;
	struct turn cur;
	uint64_t commits;
};

static void *grow(void *p, size_t *cap, size_t size)
{
	*cap = *cap ? *cap * 2 : 16;
	p = realloc(p, *cap * size);
	if (p == NULL)
		fatal("realloc");
	return p;
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	batch_flush(arg);
}

struct batch *batch_new(struct server *srv)
{
	struct batch *b = calloc(1, sizeof *b);

	if (b == NULL)
		fatal("calloc");
	b->srv = srv;
	if (srv->base != NULL && (b->flush_ev = event_new(srv->base, -1, 0, flush_cb, b)) == NULL)
		fatalx("event_new failed");
	return b;
}

void batch_free(struct batch *b)
{
	if (b == NULL)
		return;
	batch_flush(b);
	if (b->flush_ev != NULL)
		event_free(b->flush_ev);
	free(b);
}

bool batch_is_open(const struct batch *b)
{
	return b->cur.nacts > 0;
}

uint64_t batch_commits(const struct batch *b)
{
	return b->commits;
}

struct batch_action *batch_begin_action(struct batch *b, const struct batch_ops *ops, void *arg,
                                        uint64_t requester, json_t *id)
{
	struct batch_action *a = calloc(1, sizeof *a);

	if (a == NULL)
		fatal("calloc");
	a->b = b;
	a->index = b->cur.nacts;
	a->ops = ops;
	a->arg = arg;
	a->requester = requester;
	a->id = id != NULL ? json_incref(id) : NULL;
	if (b->cur.nacts == b->cur.capacts)
		b->cur.acts = grow(b->cur.acts, &b->cur.capacts, sizeof *b->cur.acts);
	b->cur.acts[b->cur.nacts++] = a;
	/* The first action of the turn arms the flush (once: an active event
	 * is not queued twice). */
	if (b->cur.nacts == 1 && b->flush_ev != NULL)
		event_active(b->flush_ev, EV_TIMEOUT, 1);
	return a;
}

static void hold(struct batch_action *a, bool to_user, uint64_t conn, int64_t user, json_t *msg)
{
	struct turn *t = &a->b->cur;

	if (msg == NULL)
		return;
	if (t->nmsgs == t->capmsgs)
		t->msgs = grow(t->msgs, &t->capmsgs, sizeof *t->msgs);
	struct held *h = &t->msgs[t->nmsgs++];
	h->action = a->index;
	h->to_user = to_user;
	h->conn = conn;
	h->user = user;
	h->msg = msg;
}

void batch_hold_conn(struct batch_action *a, uint64_t conn_id, json_t *msg)
{
	hold(a, false, conn_id, 0, msg);
}

void batch_hold_user(struct batch_action *a, int64_t user, json_t *msg)
{
	hold(a, true, 0, user, msg);
}

void batch_after(struct batch *b, void (*fn)(void *arg), void *arg)
{
	if (!batch_is_open(b)) {
		fn(arg);
		return;
	}
	struct turn *t = &b->cur;
	if (t->nafters == t->capafters)
		t->afters = grow(t->afters, &t->capafters, sizeof *t->afters);
	t->afters[t->nafters++] = (struct after){ fn, arg };
}

/* Send the held messages of a committed turn, in order.  Once shutdown
 * has freed the connections they are dropped. */
static void release(struct batch *b, struct turn *t)
{
	struct server *srv = b->srv;

	for (size_t i = 0; i < t->nmsgs; i++) {
		json_t *msg = t->msgs[i].msg;

		t->msgs[i].msg = NULL;
		if (srv->conns == NULL)
			json_decref(msg);
		else if (t->msgs[i].to_user)
			conn_send_user(srv, t->msgs[i].user, msg);
		else
			conn_send(conn_find(srv, t->msgs[i].conn), msg);
	}
}

/* A failed turn: its messages are dropped, and each requester is told
 * that nothing was changed. */
static void refuse(struct batch *b, struct turn *t)
{
	struct server *srv = b->srv;

	for (size_t i = 0; i < t->nmsgs; i++) {
		json_decref(t->msgs[i].msg);
		t->msgs[i].msg = NULL;
	}
	for (size_t i = 0; i < t->nacts; i++) {
		struct batch_action *a = t->acts[i];
		struct conn *c;

		if (a->requester == 0 || srv->conns == NULL || (c = conn_find(srv, a->requester)) == NULL)
			continue;
		dispatch_error(c, a->id, PE_STORAGE, "the game could not be saved; nothing was changed");
	}
}

static void turn_free(struct turn *t)
{
	for (size_t i = 0; i < t->nacts; i++) {
		struct batch_action *a = t->acts[i];

		a->ops->free(a->arg);
		json_decref(a->id);
		free(a);
	}
	for (size_t i = 0; i < t->nmsgs; i++)
		json_decref(t->msgs[i].msg);
	free(t->acts);
	free(t->msgs);
	free(t->afters);
}

void batch_flush(struct batch *b)
{
	struct turn t = b->cur;
	struct store *st = b->srv->store;
	int rc;

	if (t.nacts == 0)
		return;
	/* Anything opened from here on belongs to the next turn. */
	memset(&b->cur, 0, sizeof b->cur);

	rc = store_begin(st);
	for (size_t i = 0; i < t.nacts && rc == STORE_OK; i++)
		rc = t.acts[i]->ops->write(t.acts[i]->arg, st);
	if (rc == STORE_OK)
		rc = store_commit(st);   /* rolls back itself when it fails */
	else
		store_rollback(st);

	if (rc == STORE_OK) {
		b->commits++;
		log_debug("store commit actions=%zu messages=%zu", t.nacts, t.nmsgs);
		release(b, &t);
		for (size_t i = 0; i < t.nacts; i++)
			t.acts[i]->ops->committed(t.acts[i]->arg);
	} else {
		log_warnx("store failed: %s; actions=%zu not saved, answered storage", store_error(st),
		          t.nacts);
		for (size_t i = 0; i < t.nacts; i++)
			t.acts[i]->ops->failed(t.acts[i]->arg);
		refuse(b, &t);
	}
	/* The work that waited for this outcome, in the order it was queued. */
	for (size_t i = 0; i < t.nafters; i++)
		t.afters[i].fn(t.afters[i].arg);
	turn_free(&t);
}

json_t *batch_reply_ok(json_t *id, json_t *fields)
{
	json_t *resp = json_object();
	const char *key;
	json_t *v;

	json_object_set(resp, "id", id != NULL ? id : json_null());
	json_object_set_new(resp, "ok", json_true());
	if (fields != NULL) {
		json_object_foreach(fields, key, v) {
			if (strcmp(key, "id") != 0 && strcmp(key, "ok") != 0)
				json_object_set(resp, key, v);
		}
		json_decref(fields);
	}
	return resp;
}

json_t *batch_reply_error(json_t *id, const char *code, const char *message)
{
	return json_pack("{s:O, s:b, s:{s:s, s:s}}", "id", id != NULL ? id : json_null(), "ok", 0,
	                 "error", "code", code, "message", message);
}
