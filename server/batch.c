/*
 * batch.c — group commit on a store writer thread; see batch.h.
 *
 * Two turns exist at most: `open` collects the actions of the current
 * loop turns, `busy` is with the writer thread.  At the end of a loop turn
 * (flush_ev) the open turn is handed over if the writer is idle; else it
 * keeps collecting until the writer reports back (a byte on a pipe:
 * wake.h).  A completion that committed hands the
 * open turn over before it sends anything; one that failed first fails
 * what was built on it (cascade) and re-arms flush_ev.
 *
 * Threads: the writer thread touches only the turn it was handed (its
 * actions' ops->write and args, its rc and err) and its own store
 * connection, and only between the hand-over and its report (ordered by
 * the mutex).  Everything else — the held messages, the waiting work,
 * cancelling actions of the open turn — is the loop's.  While a turn is
 * with the writer the loop only reads its messages (batch_waiting)
 * and appends to its waiting work, fields the writer never reads.
 *
 * Whatever runs during a completion (a connection torn down, a rebuilt
 * game re-arming its timers, a waiting request) and opens an action joins
 * the open turn, which the completion hands over at the end of the pass.
 */
#include "batch.h"

#include <event2/event.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "conn.h"
#include "guard.h"
#include "line.h"
#include "log.h"
#include "mstime.h"
#include "server.h"
#include "store.h"
#include "wake.h"
#include "xmalloc.h"

#define BATCH_ERR_MAX 512
/* A commit this slow is logged: a stalled disk (fsync) or a database
 * locked by another process holds every player's announcement back. */
#define BATCH_SLOW_MS 1000

struct batch_action {
	struct batch *b;
	const struct batch_ops *ops;
	void *arg;
	const void *group;
	unsigned tags;               /* batch_tag (batch.h) */
	bool cancelled;              /* failed with an earlier turn (open turn only) */
};

struct held {
	size_t action;               /* index into the actions of the same turn */
	bool to_user;
	uint64_t conn;
	int64_t user;                /* the addressee (a connection's user when held) */
	struct line *msg;
};

struct after {
	void (*fn)(void *arg);
	void *arg;
};

/* What one or more loop turns accumulate, committed as one transaction. */
struct turn {
	struct batch_action **acts;
	size_t nacts, capacts;
	size_t live;                 /* actions not cancelled */
	struct held *msgs;
	size_t nmsgs, capmsgs;
	struct after *afters;
	size_t nafters, capafters;
	/* Written by the writer thread, read after its report. */
	int rc;
	int64_t took_ms;             /* the transaction, begin to commit */
	char err[BATCH_ERR_MAX];
};

struct batch {
	struct server *srv;
	struct event *flush_ev;      /* end of a loop turn: hand the open turn over */
	struct event *done_ev;       /* the writer reported */
	struct turn *open;           /* collecting; NULL: nothing */
	struct turn *busy;           /* with the writer; NULL: idle */
	uint64_t commits;
	struct guard_log_limit fail_log;   /* "store failed" lines (log_repeat_interval) */
	struct guard_log_limit ok_log;     /* "succeed again" lines, likewise */
	bool failing;                      /* the last commit failed */

	struct store *wst;           /* the writer's own connection */
	bool threaded;               /* false: no event base, commit in place */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv;
	struct turn *job;            /* under mu: handed over, not yet done */
	bool done;                   /* under mu: the writer finished `busy` */
	bool stop;                   /* under mu */
	int pipefd[2];
};

/* One of l's lines may be logged now (log_repeat_interval); always without
 * settings (the unit tests' batch). */
static bool log_allow(struct batch *b, struct guard_log_limit *l, unsigned *more)
{
	return b->srv->cfg == NULL || guard_log_allow(&b->srv->cfg->guard, l, mstime_mono(), more);
}

/* --- the writer thread --------------------------------------------------- */

/* One transaction for every live action of t. */
static void turn_commit(struct store *st, struct turn *t)
{
	int64_t t0 = mstime_mono();
	int rc = store_begin(st);

	for (size_t i = 0; i < t->nacts && rc == STORE_OK; i++)
		if (!t->acts[i]->cancelled)
			rc = t->acts[i]->ops->write(t->acts[i]->arg, st);
	if (rc == STORE_OK)
		rc = store_commit(st);   /* rolls back itself when it fails */
	if (rc != STORE_OK) {
		snprintf(t->err, sizeof t->err, "%s", store_error(st));
		store_rollback(st);
	}
	t->rc = rc;
	t->took_ms = mstime_mono() - t0;
}

static void *writer_main(void *arg)
{
	struct batch *b = arg;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		while (b->job == NULL && !b->stop)
			pthread_cond_wait(&b->work_cv, &b->mu);
		if (b->job == NULL)
			break;
		struct turn *t = b->job;
		pthread_mutex_unlock(&b->mu);
		turn_commit(b->wst, t);
		pthread_mutex_lock(&b->mu);
		b->job = NULL;
		b->done = true;
		pthread_cond_signal(&b->done_cv);
		wake_poke(b->pipefd[1]);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* --- turns (loop thread) ---------------------------------------------------- */

static void turn_free(struct turn *t)
{
	for (size_t i = 0; i < t->nacts; i++) {
		struct batch_action *a = t->acts[i];

		a->ops->free(a->arg);
		free(a);
	}
	for (size_t i = 0; i < t->nmsgs; i++)
		line_unref(t->msgs[i].msg);
	free(t->acts);
	free(t->msgs);
	free(t->afters);
	free(t);
}

/* Does t hold a message for user from a live action of group (NULL: any)? */
static bool turn_addresses(const struct turn *t, const void *group, int64_t user)
{
	if (t == NULL || user <= 0)
		return false;
	for (size_t i = 0; i < t->nmsgs; i++) {
		const struct batch_action *a = t->acts[t->msgs[i].action];
		if (t->msgs[i].user == user && !a->cancelled && (group == NULL || a->group == group))
			return true;
	}
	return false;
}

/* Work that waits for turn t's outcome, run in the order it was queued.
 * (A connection's requests keep their order by its own queue, dispatch.h:
 * only its first waits here.) */
static void turn_after(struct turn *t, void (*fn)(void *arg), void *arg)
{
	t->afters = xgrow(t->afters, &t->capafters, t->nafters + 1, sizeof *t->afters, 16);
	t->afters[t->nafters++] = (struct after){ fn, arg };
}

static void run_afters(struct turn *t)
{
	for (size_t i = 0; i < t->nafters; i++)
		t->afters[i].fn(t->afters[i].arg);
}

/* Send the held messages of a committed turn, in order.  Once shutdown
 * has freed the connections they find nobody. */
static void release(struct batch *b, struct turn *t)
{
	for (size_t i = 0; i < t->nmsgs; i++) {
		const struct held *h = &t->msgs[i];
		const struct batch_action *a = t->acts[h->action];
		struct line *msg = h->msg;

		t->msgs[i].msg = NULL;
		if (!a->cancelled && h->to_user)
			a->ops->send_user(a->arg, h->user, msg);
		else if (!a->cancelled)
			conn_send_line(conn_find(b->srv, h->conn), msg);
		line_unref(msg);
	}
}

/* Actions of the open turn that belong to a group of the failed turn t
 * were built on the state t's failure just undid: they fail too. */
static void cascade(struct batch *b, const struct turn *t)
{
	struct turn *o = b->open;

	if (o == NULL)
		return;
	for (size_t i = 0; i < o->nacts; i++) {
		struct batch_action *a = o->acts[i];
		bool hit = false;

		if (a->cancelled || a->group == NULL)
			continue;
		for (size_t j = 0; j < t->nacts && !hit; j++)
			hit = !t->acts[j]->cancelled && t->acts[j]->group == a->group;
		if (!hit)
			continue;
		a->cancelled = true;
		o->live--;
		a->ops->failed(a->arg);
	}
}

static void submit(struct batch *b);

/* The writer is done with `busy`: release or refuse, then run what waited. */
static void complete(struct batch *b)
{
	struct turn *t = b->busy;

	b->busy = NULL;
	if (t->took_ms >= BATCH_SLOW_MS)
		log_warnx("store commit slow took_ms=%" PRId64 " actions=%zu", t->took_ms, t->live);
	if (t->rc == STORE_OK) {
		b->commits++;
		log_debug("store commit actions=%zu messages=%zu", t->live, t->nmsgs);
		/* The open turn was built on t's state, which is now durable: hand
		 * it to the writer before t's messages go out, so the two threads
		 * overlap (committing while sending) instead of taking turns.  Its
		 * messages still follow t's: it cannot complete before this
		 * callback returns.  Not a turn whose actions were all
		 * cancelled: submit would finish it at once and run its waiting
		 * work ahead of t's; flush_ev hands it over after this. */
		if (b->threaded && b->open != NULL && b->open->live > 0)
			submit(b);
		if (b->failing) {
			/* the end of a run of failures said, with what went unsaid
			 * (a review: the last count was never told), itself one line
			 * an interval: a disk failing on and off logs no more lines
			 * for it (another review) */
			unsigned more = 0;   /* (the "succeed again" lines left out: not said) */
			b->failing = false;
			if (log_allow(b, &b->ok_log, &more)) {
				log_warnx("store commits succeed again (%u failed ones not logged)",
				          b->fail_log.suppressed);
				b->fail_log.suppressed = 0;
			}
		}
		release(b, t);
		for (size_t i = 0; i < t->nacts; i++)
			if (!t->acts[i]->cancelled)
				t->acts[i]->ops->committed(t->acts[i]->arg);
	} else {
		/* A full or failing disk fails every commit, the clocks' own
		 * among them: one line a log_repeat_interval, the rest counted
		 * (the ops probe: a line a second, into a journal that may sit
		 * on the same full disk). */
		unsigned more = 0;
		b->failing = true;
		if (log_allow(b, &b->fail_log, &more))
			log_warnx("store failed: %s; actions=%zu not saved, answered storage (%u like it "
			          "not logged)", t->err, t->live, more);
		for (size_t i = 0; i < t->nacts; i++)
			if (!t->acts[i]->cancelled)
				t->acts[i]->ops->failed(t->acts[i]->arg);
		cascade(b, t);
	}
	/* The work that waited for this outcome, in the order it was queued. */
	run_afters(t);
	turn_free(t);
	if (b->open != NULL && b->flush_ev != NULL)
		event_active(b->flush_ev, EV_TIMEOUT, 1);
}

/* Hand the open turn to the writer (which must be idle). */
static void submit(struct batch *b)
{
	struct turn *t = b->open;

	b->open = NULL;
	b->busy = t;
	if (t->live == 0) {
		/* Every action failed with an earlier turn: nothing to write. */
		t->rc = STORE_OK;
		b->busy = NULL;
		run_afters(t);
		turn_free(t);
		return;
	}
	if (!b->threaded) {
		turn_commit(b->srv->store, t);
		complete(b);
		return;
	}
	pthread_mutex_lock(&b->mu);
	b->job = t;
	b->done = false;
	pthread_cond_signal(&b->work_cv);
	pthread_mutex_unlock(&b->mu);
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct batch *b = arg;

	(void)fd;
	(void)what;
	if (b->busy == NULL && b->open != NULL)
		submit(b);
}

static bool take_done(struct batch *b, bool wait)
{
	bool d;

	pthread_mutex_lock(&b->mu);
	while (wait && !b->done)
		pthread_cond_wait(&b->done_cv, &b->mu);
	d = b->done;
	b->done = false;
	pthread_mutex_unlock(&b->mu);
	return d;
}

static void done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct batch *b = arg;

	(void)what;
	wake_drain(fd);
	/* batch_flush may have taken the report already. */
	if (b->busy != NULL && take_done(b, false))
		complete(b);
}

/* --- public ------------------------------------------------------------------ */

static void start_writer(struct batch *b)
{
	char err[512];
	int rc;

	if ((b->wst = store_open_writer(b->srv->store, err, sizeof err)) == NULL)
		fatalx("store writer: %s", err);
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->work_cv, NULL);
	pthread_cond_init(&b->done_cv, NULL);
	if (wake_pipe_open(b->pipefd) != 0)
		fatal("batch: pipe");
	b->flush_ev = event_new(b->srv->base, -1, 0, flush_cb, b);
	b->done_ev = event_new(b->srv->base, b->pipefd[0], EV_READ | EV_PERSIST, done_cb, b);
	if (b->flush_ev == NULL || b->done_ev == NULL || event_add(b->done_ev, NULL) != 0)
		fatalx("batch: event_new failed");
	rc = wake_thread_start(&b->thread, writer_main, b);
	if (rc != 0)
		fatalx("batch: pthread_create: %s", strerror(rc));
	b->threaded = true;
}

struct batch *batch_new(struct server *srv)
{
	struct batch *b = xcalloc(1, sizeof *b);

	b->srv = srv;
	b->pipefd[0] = b->pipefd[1] = -1;
	/* Without an event loop (tools, tests of the store) commits are made
	 * in place, at batch_flush. */
	if (srv->base != NULL)
		start_writer(b);
	return b;
}

void batch_free(struct batch *b)
{
	if (b == NULL)
		return;
	batch_flush(b);
	if (b->threaded) {
		pthread_mutex_lock(&b->mu);
		b->stop = true;
		pthread_cond_signal(&b->work_cv);
		pthread_mutex_unlock(&b->mu);
		pthread_join(b->thread, NULL);
		pthread_mutex_destroy(&b->mu);
		pthread_cond_destroy(&b->work_cv);
		pthread_cond_destroy(&b->done_cv);
		store_close(b->wst);
	}
	if (b->flush_ev != NULL)
		event_free(b->flush_ev);
	if (b->done_ev != NULL)
		event_free(b->done_ev);
	for (int i = 0; i < 2; i++)
		if (b->pipefd[i] >= 0)
			close(b->pipefd[i]);
	free(b);
}

bool batch_is_open(const struct batch *b)
{
	return b->open != NULL || b->busy != NULL;
}

uint64_t batch_commits(const struct batch *b)
{
	return b->commits;
}

struct batch_action *batch_begin_action(struct batch *b, const struct batch_ops *ops, void *arg,
                                        const void *group)
{
	struct batch_action *a = xcalloc(1, sizeof *a);
	struct turn *t;

	if (b->open == NULL) {
		b->open = xcalloc(1, sizeof *b->open);
		/* The first action arms the hand-over at the end of this pass
		 * (a busy writer: the completion re-arms it). */
		if (b->flush_ev != NULL)
			event_active(b->flush_ev, EV_TIMEOUT, 1);
	}
	t = b->open;
	a->b = b;
	a->ops = ops;
	a->arg = arg;
	a->group = group;
	a->tags = BATCH_TAG_ANY;
	t->acts = xgrow(t->acts, &t->capacts, t->nacts + 1, sizeof *t->acts, 16);
	t->acts[t->nacts++] = a;
	t->live++;
	return a;
}

static void hold(struct batch_action *a, bool to_user, uint64_t conn, int64_t user,
                 struct line *msg)
{
	struct turn *t = a->b->open;
	struct server *srv = a->b->srv;

	if (msg == NULL)
		return;
	/* a belongs to the open turn: actions are held for while being opened. */
	size_t idx = t->nacts;
	while (idx > 0 && t->acts[idx - 1] != a)
		idx--;
	if (idx == 0)
		fatalx("batch: message held for an action of another turn");
	if (!to_user) {
		struct conn *c = conn_find(srv, conn);
		user = c != NULL ? conn_user(c) : 0;
	}
	t->msgs = xgrow(t->msgs, &t->capmsgs, t->nmsgs + 1, sizeof *t->msgs, 16);
	struct held *h = &t->msgs[t->nmsgs++];
	h->action = idx - 1;
	h->to_user = to_user;
	h->conn = conn;
	h->user = user;
	h->msg = msg;
}

void batch_hold_conn(struct batch_action *a, uint64_t conn_id, json_t *msg)
{
	hold(a, false, conn_id, 0, line_encode(msg));
}

void batch_hold_user(struct batch_action *a, int64_t user, struct line *msg)
{
	hold(a, true, 0, user, msg);
}

/* Does t hold a live action of group carrying one of tags? */
static bool turn_holds(const struct turn *t, const void *group, int64_t tags)
{
	for (size_t i = 0; t != NULL && i < t->nacts; i++)
		if (!t->acts[i]->cancelled && t->acts[i]->group == group &&
		    (t->acts[i]->tags & (unsigned)tags))
			return true;
	return false;
}

/* What a turn holds that a waiter waits for: turn_addresses (a user),
 * turn_holds (tags). */
typedef bool (*turn_test)(const struct turn *t, const void *group, int64_t key);

static bool any_turn(const struct batch *b, turn_test in, const void *group, int64_t key)
{
	return in(b->open, group, key) || in(b->busy, group, key);
}

/* Turns complete in order: waiting for the newest one that holds it waits
 * for all of them. */
static void after_newest(struct batch *b, turn_test in, const void *group, int64_t key,
                         void (*fn)(void *arg), void *arg)
{
	if (in(b->open, group, key))
		turn_after(b->open, fn, arg);
	else if (in(b->busy, group, key))
		turn_after(b->busy, fn, arg);
	else
		fn(arg);
}

bool batch_waiting(const struct batch *b, const void *group, int64_t user)
{
	return any_turn(b, turn_addresses, group, user);
}

void batch_after_waiting(struct batch *b, const void *group, int64_t user,
                         void (*fn)(void *arg), void *arg)
{
	after_newest(b, turn_addresses, group, user, fn, arg);
}

void batch_tag(struct batch_action *a, unsigned tags)
{
	a->tags |= tags;
}

bool batch_holds(const struct batch *b, const void *group, unsigned tags)
{
	return any_turn(b, turn_holds, group, tags);
}

void batch_after_tagged(struct batch *b, const void *group, unsigned tags,
                        void (*fn)(void *arg), void *arg)
{
	after_newest(b, turn_holds, group, tags, fn, arg);
}

void batch_after(struct batch *b, void (*fn)(void *arg), void *arg)
{
	if (b->open != NULL)
		turn_after(b->open, fn, arg);
	else if (b->busy != NULL)
		turn_after(b->busy, fn, arg);
	else
		fn(arg);
}

void batch_flush(struct batch *b)
{
	for (;;) {
		if (b->busy != NULL) {
			take_done(b, true);
			complete(b);
		} else if (b->open != NULL) {
			submit(b);
		} else {
			break;
		}
	}
}

