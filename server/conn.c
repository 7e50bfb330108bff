/*
 * conn.c — one client connection: a TLS bufferevent, bounded line framing,
 * an output cap, handshake/idle/linger timers, a request token bucket (and
 * the hold of a connection whose requests ran it into debt), and one
 * teardown.
 *
 * Life of a connection:
 *   HANDSHAKE --(BEV_EVENT_CONNECTED)--> OPEN --(conn_close)--> LINGER --> DEAD
 *        \                                  \------(error, EOF, cap)-------^
 *         \--(timeout, TLS error)-------------------------------------------^
 * LINGER flushes the last reply (e.g. line_too_long), sends close_notify
 * and FIN, discards input until the peer closes or close_linger passes:
 * closing with unread input would make the kernel send a reset that can
 * destroy the reply in the peer's receive buffer.  DEAD connections are
 * freed from a deferred event, never inside their own callback.
 */
#include "conn.h"
#include "conn_priv.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>

#include "config.h"
#include "dispatch.h"
#include "game.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "ruleset.h"
#include "server.h"
#include "stall.h"
#include "tls.h"
#include "xmalloc.h"

static void conn_opened(struct conn *c);

/* c's timer to fire in ms.  Not once c is dead: its timer is then its
 * deferred free (conn_teardown), and a timeout added to an event active
 * by a timeout takes it off the active queue (libevent), so a hold or an
 * idle check after the teardown would have kept a dead connection, and
 * its place under the limits, until that timeout. */
static void timer_in(struct conn *c, int64_t ms)
{
	if (c->state == CS_DEAD)
		return;
	struct timeval tv = mstime_timeval(ms);

	evtimer_add(c->timer, &tv);
}

/* ---- the set ------------------------------------------------------------ */

struct connset *connset_new(void)
{
	struct connset *set = xcalloc(1, sizeof *set);

	TAILQ_INIT(&set->all);
	TAILQ_INIT(&set->idle_hosts);
	set->next_id = 1;
	if (RAND_bytes((unsigned char *)&set->host_seed, sizeof set->host_seed) != 1)
		set->host_seed = (uint64_t)mstime_wall() * 0x9E3779B97F4A7C15ULL;
	return set;
}

static struct userconns *users_find(const struct connset *set, int64_t user)
{
	struct idnode *n = idtable_find(&set->users, user);

	return n != NULL ? IDTABLE_ENTRY(n, struct userconns, node) : NULL;
}

/* Put c in the list of c->user (not 0), at its place by id. */
static void index_add(struct conn *c)
{
	struct connset *set = c->srv->conns;
	struct userconns *uc = users_find(set, c->user);

	if (uc == NULL) {
		uc = xcalloc(1, sizeof *uc);
		uc->node.id = c->user;
		TAILQ_INIT(&uc->conns);
		idtable_add(&set->users, &uc->node);
	}
	/* Usually the newest: found from the tail at once. */
	struct conn *at;
	TAILQ_FOREACH_REVERSE(at, &uc->conns, connlist, byuser)
		if (at->id < c->id)
			break;
	if (at != NULL)
		TAILQ_INSERT_AFTER(&uc->conns, at, c, byuser);
	else
		TAILQ_INSERT_HEAD(&uc->conns, c, byuser);
	c->uc = uc;
}

/* Take c out of its user's list; the user's entry goes with their last. */
static void index_remove(struct conn *c)
{
	struct connset *set = c->srv->conns;
	struct userconns *uc = c->uc;

	if (uc == NULL)
		return;
	c->uc = NULL;
	TAILQ_REMOVE(&uc->conns, c, byuser);
	if (!TAILQ_EMPTY(&uc->conns))
		return;
	idtable_remove(&set->users, &uc->node);
	free(uc);
}

/* An address's key in the hosts table: FNV-1a from a secret drawn at
 * start, then mixed (splitmix64's finaliser).  Two addresses with one key
 * share one budget; with a known function a peer who picks its address
 * (an IPv6 /64 holds 2^64) could search offline for one sharing a
 * victim's key, and spend it. */
static int64_t host_key(const struct connset *set, const char *host)
{
	uint64_t h = 14695981039346656037ULL ^ set->host_seed;

	for (; *host != '\0'; host++)
		h = (h ^ (unsigned char)*host) * 1099511628211ULL;
	h ^= h >> 30;
	h *= 0xBF58476D1CE4E5B9ULL;
	h ^= h >> 27;
	h *= 0x94D049BB133111EBULL;
	h ^= h >> 31;
	return (int64_t)h;
}

#define HOSTS_SWEEP 4   /* idle budgets looked at per connection opened or closed */
#define HOST_PROBES 8   /* keys looked at for an address's budget (host_hold) */

static void bucket_refill(const struct config *cfg, double *tokens, int64_t *last, int64_t now);

/* The log budget refilled to now (CONN_LOG_PER_SEC, at most CONN_LOG_BURST). */
static void log_refill(struct hostbudget *hb, int64_t now)
{
	hb->log_tokens += (double)(now - hb->log_refill) * CONN_LOG_PER_SEC / 1000.0;
	hb->log_refill = now;
	if (hb->log_tokens > CONN_LOG_BURST)
		hb->log_tokens = CONN_LOG_BURST;
}

/* A budget forgotten: what its log budget left out is said now, as no
 * later line of its address will say it. */
static void host_forget(struct hostbudget *hb)
{
	if (hb->unlogged > 0)
		log_info("addr=%s %u connections or web requests not logged (over %d a second)",
		         hb->addr, hb->unlogged, CONN_LOG_PER_SEC);
	free(hb);
}

/* An idle budget may be forgotten: both buckets full again. */
static bool host_forgettable(struct server *srv, struct hostbudget *hb, int64_t now)
{
	bucket_refill(srv->cfg, &hb->tokens, &hb->last_refill, now);
	log_refill(hb, now);
	return hb->tokens >= srv->cfg->rate_burst && hb->log_tokens >= CONN_LOG_BURST;
}

/* Forget idle budgets that are full again, oldest first, a few at a time. */
static void hosts_sweep(struct server *srv)
{
	struct connset *set = srv->conns;
	struct hostbudget *hb;
	int64_t now = mstime_mono();

	for (int i = 0; i < HOSTS_SWEEP && (hb = TAILQ_FIRST(&set->idle_hosts)) != NULL; i++) {
		if (!host_forgettable(srv, hb, now))
			break;
		TAILQ_REMOVE(&set->idle_hosts, hb, idle);
		idtable_remove(&set->hosts, &hb->node);
		host_forget(hb);
	}
}

/* The bucket of host: the one it has (kept while in debt), or a full one. */
static struct hostbudget *host_hold(struct server *srv, const char *host)
{
	struct connset *set = srv->conns;
	int64_t key = host_key(set, host);
	struct idnode *n;
	struct hostbudget *hb;

	hosts_sweep(srv);
	/* Another address of the same key (the keyed hash makes it luck)
	 * takes one of the next keys: hb->addr is each connection's limit key
	 * (conn_limit_host), so two addresses must not share one.  All
	 * HOST_PROBES keys are looked at, holes too (a budget before it may
	 * have gone since); a new one takes the first free. */
	int64_t k = key, free_key = key;
	bool have_free = false;
	n = NULL;
	for (int i = 0; i < HOST_PROBES && n == NULL; i++, k = (int64_t)((uint64_t)k + 1)) {
		struct idnode *x = idtable_find(&set->hosts, k);
		if (x == NULL && !have_free)
			free_key = k;
		have_free |= x == NULL;
		if (x != NULL && strcmp(IDTABLE_ENTRY(x, struct hostbudget, node)->addr, host) == 0)
			n = x;
	}
	if (n == NULL && !have_free)   /* HOST_PROBES collisions in a row: this address shares
	                                  that one's budget and limit key */
		n = idtable_find(&set->hosts, key);
	key = free_key;
	if (n != NULL) {
		hb = IDTABLE_ENTRY(n, struct hostbudget, node);
		if (hb->conns == 0)
			TAILQ_REMOVE(&set->idle_hosts, hb, idle);
	} else {
		hb = xcalloc(1, sizeof *hb);
		hb->node.id = key;
		hb->tokens = srv->cfg->rate_burst;
		hb->last_refill = hb->log_refill = mstime_mono();
		hb->log_tokens = CONN_LOG_BURST;
		snprintf(hb->addr, sizeof hb->addr, "%s", host);
		idtable_add(&set->hosts, &hb->node);
	}
	hb->conns++;
	return hb;
}

static void host_release(struct server *srv, struct hostbudget *hb)
{
	struct connset *set = srv->conns;

	if (--hb->conns > 0)
		return;
	if (host_forgettable(srv, hb, mstime_mono())) {
		idtable_remove(&set->hosts, &hb->node);
		host_forget(hb);
	} else {
		TAILQ_INSERT_TAIL(&set->idle_hosts, hb, idle);
	}
	hosts_sweep(srv);
}

/* A line of hb's address's to be logged now?  Taken from its log budget;
 * over it, counted instead.  note: "" or what was left out since the last
 * line logged, to append to this one. */
static bool host_log_take(struct hostbudget *hb, char *note, size_t len)
{
	log_refill(hb, mstime_mono());
	note[0] = '\0';
	if (hb->log_tokens < 1) {
		hb->unlogged++;
		return false;
	}
	hb->log_tokens -= 1;
	if (hb->unlogged > 0)
		snprintf(note, len, " (%u before it from this address not logged)", hb->unlogged);
	hb->unlogged = 0;
	return true;
}

bool conn_log_allow(struct server *srv, const char *host, char *note, size_t len)
{
	char key[GUARD_ADDR_MAX];

	guard_addr_key(host, srv->cfg->guard.ipv6_prefix, key);
	struct hostbudget *hb = host_hold(srv, key);
	bool allow = host_log_take(hb, note, len);
	host_release(srv, hb);
	return allow;
}

bool conn_log_line(struct conn *c, char *note, size_t len)
{
	return host_log_take(c->hb, note, len);
}

bool conn_quiet(const struct conn *c)
{
	return c->quiet;
}

/* At the end: a flood's count is said even if no connection came after it. */
static void free_host(struct idnode *n)
{
	host_forget(IDTABLE_ENTRY(n, struct hostbudget, node));
}

static void conn_free(struct conn *c)
{
	struct connset *set = c->srv->conns;

	TAILQ_REMOVE(&set->all, c, all);
	idtable_remove(&set->byid, &c->byid);
	index_remove(c);
	set->count--;
	if (c->refused)
		set->refusing--;
	if (c->framing != NULL)
		c->framing->free(c->framing_ctx);
	if (c->bev != NULL)
		bufferevent_free(c->bev);   /* closes the SSL and the socket */
	if (c->held_in != NULL)
		evbuffer_free(c->held_in);
	dispatch_queue_free(c);
	ERR_clear_error();
	event_free(c->timer);
	struct paced *pl;
	while ((pl = TAILQ_FIRST(&c->paced)) != NULL) {
		TAILQ_REMOVE(&c->paced, pl, next);
		if (pl->lazy != NULL)   /* a lazy gate never filled */
			pl->lazy->drop(pl->lazy_arg);
		free(pl);
	}
	free(c->user_name);
	host_release(c->srv, c->hb);   /* last: it holds conn_limit_host's string */
	free(c);
}

/* What the peer sent and nobody read, read away: a socket closed with
 * unread input sends a reset, which can destroy what the peer has not yet
 * read of ours (the last turn's announcements at a shutdown). */
static void discard_input(struct conn *c)
{
	char buf[4096];
	evutil_socket_t fd = c->bev != NULL ? bufferevent_getfd(c->bev) : -1;

	if (fd >= 0)
		while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
			;
}

void connset_free(struct server *srv)
{
	struct connset *set = srv->conns;
	struct conn *c;

	if (set == NULL)
		return;
	while ((c = TAILQ_FIRST(&set->all)) != NULL) {
		discard_input(c);
		conn_free(c);
	}
	idtable_free(&set->users, NULL);   /* each went with its last connection */
	idtable_free(&set->hosts, free_host);   /* those kept with no connection */
	idtable_free(&set->byid, NULL);
	free(set);
	srv->conns = NULL;
}

bool connset_drained(const struct server *srv)
{
	const struct conn *c;

	TAILQ_FOREACH(c, &srv->conns->all, all)
		if (c->state != CS_DEAD && !(c->state == CS_LINGER && c->shut))
			return false;
	return true;
}

size_t conn_count(const struct server *srv)
{
	return srv->conns->count;
}

struct conn *conn_find(struct server *srv, uint64_t id)
{
	struct idnode *n;

	/* Ids are below 2^63: a larger one names nobody. */
	if (srv->conns == NULL || id > INT64_MAX ||
	    (n = idtable_find(&srv->conns->byid, (int64_t)id)) == NULL)
		return NULL;
	struct conn *c = IDTABLE_ENTRY(n, struct conn, byid);
	return c->state == CS_OPEN ? c : NULL;
}

/* ---- accessors ------------------------------------------------------------ */

uint64_t conn_id(const struct conn *c)
{
	return c->id;
}

struct server *conn_server(const struct conn *c)
{
	return c->srv;
}

int64_t conn_user(const struct conn *c)
{
	return c->user;
}

const char *conn_user_name(const struct conn *c)
{
	return c->user_name;
}

const char *conn_host(const struct conn *c)
{
	return c->host;
}

const char *conn_limit_host(const struct conn *c)
{
	return c->hb->addr;
}

bool conn_hello_done(const struct conn *c)
{
	return c->hello;
}

void conn_set_hello(struct conn *c)
{
	c->hello = true;
}

void conn_hook_add(struct server *srv, void (*login)(struct server *srv, struct conn *c),
                   void (*closed)(struct server *srv, struct conn *c))
{
	if (srv->nhooks == SERVER_HOOKS_MAX)
		fatalx("conn_hook_add: more than %d hooks", SERVER_HOOKS_MAX);
	srv->hooks[srv->nhooks++] = (struct conn_hook){ login, closed };
}

static void run_closed_hooks(struct conn *c)
{
	c->leaving = true;
	for (size_t i = 0; i < c->srv->nhooks; i++)
		if (c->srv->hooks[i].closed != NULL)
			c->srv->hooks[i].closed(c->srv, c);
	c->leaving = false;
}

/* A hook may close the connection (or log it out): the rest are skipped. */
static void run_login_hooks(struct conn *c)
{
	int64_t user = c->user;

	for (size_t i = 0; i < c->srv->nhooks && c->state == CS_OPEN && c->user == user; i++)
		if (c->srv->hooks[i].login != NULL)
			c->srv->hooks[i].login(c->srv, c);
}

void conn_set_user(struct conn *c, int64_t user_id, const char *name)
{
	char esc[LOG_ESCAPE_BUF];

	if (c->state != CS_OPEN)
		return;
	if (c->user != 0 && c->user != user_id) {
		log_info("conn=%llu logout user=%lld", (unsigned long long)c->id, (long long)c->user);
		run_closed_hooks(c);
	}
	/* A login of the user this connection is logged in as already sends
	 * what any login sends (its game states, welcome, challenges): a
	 * client logging in again to read its state again was answered with
	 * its games and sent none of them (the two-devices probe).  It is no
	 * arrival: the user was here (conn_user_arrived). */
	bool login = user_id != 0 && user_id != c->user;
	bool again = user_id != 0 && user_id == c->user;
	free(c->user_name);
	c->user_name = NULL;
	if (user_id != c->user) {
		/* An arrival when no other connection of the user is in: asked
		 * before this one is indexed.  "This is the user's first
		 * connection" (the index is in accept order) took an older
		 * connection logging in beside a newer one for an arrival, and
		 * followers were told twice (a review). */
		c->arrival = login && conn_of_user(c->srv, user_id, NULL) == NULL;
		index_remove(c);
		c->user = user_id;
		if (user_id != 0)
			index_add(c);
	}
	if (user_id != 0)
		c->user_name = xstrdup(name != NULL ? name : "");
	if (login || again) {
		log_info("conn=%llu login%s user=%lld name=\"%s\"", (unsigned long long)c->id,
		         again ? " again" : "", (long long)user_id,
		         log_escape(c->user_name, strlen(c->user_name), esc, sizeof esc));
		run_login_hooks(c);
	}
}

bool conn_user_arrived(struct conn *c)
{
	bool first = c->arrival && c->user != 0;
	c->arrival = false;
	return first;
}

/* Tokens earned at rate_limit a second since *last, up to the burst. */
static void bucket_refill(const struct config *cfg, double *tokens, int64_t *last, int64_t now)
{
	*tokens += (double)(now - *last) * cfg->rate_limit / 1000.0;
	*last = now;
	if (*tokens > cfg->rate_burst)
		*tokens = cfg->rate_burst;
}

/* Both buckets of c refilled to now. */
static void refill(struct conn *c)
{
	const struct config *cfg = c->srv->cfg;
	int64_t now = mstime_mono();

	bucket_refill(cfg, &c->hb->tokens, &c->hb->last_refill, now);
	bucket_refill(cfg, &c->tokens, &c->last_refill, now);
	if (c->tokens >= cfg->rate_burst) {
		c->strikes = 0;   /* quiet long enough to refill: forgive */
		c->owing = false;
	}
}

enum conn_rate conn_rate_take(struct conn *c)
{
	refill(c);
	if (c->tokens >= 1.0) {
		c->tokens -= 1.0;
		return CONN_RATE_OK;
	}
	c->strikes++;
	return c->strikes >= c->srv->cfg->rate_strikes ? CONN_RATE_CLOSE : CONN_RATE_LIMITED;
}

/* Milliseconds until a bucket of tokens holds want, at the refill rate. */
static int64_t wait_ms(const struct conn *c, double tokens, double want)
{
	return (int64_t)((want - tokens) * 1000.0 / c->srv->cfg->rate_limit) + 1;
}

/*
 * The hold: nothing more is read from the socket (the peer's sends back up
 * into its own buffers), and what is already here waits: the socket's
 * input for the line transport, c->held_in for what a framing had decoded
 * or a deferred request.  The timer, which otherwise keeps the idle time,
 * ends it (timer_cb) once the connection has a token.
 */
static void hold(struct conn *c, int64_t ms)
{
	c->held = true;
	bufferevent_disable(c->bev, EV_READ);
	timer_in(c, ms);
}

void conn_rate_charge(struct conn *c, double tokens)
{
	if (c->state != CS_OPEN || !(tokens > 0.0))
		return;
	refill(c);
	c->tokens -= tokens;
	c->hb->tokens -= tokens;
	if (c->tokens < 1.0) {
		c->owing = true;
		if (!c->held)
			hold(c, wait_ms(c, c->tokens, 1.0));
	}
}

/* Must the next request of c wait (for its token, the reader, or its
 * authentication)?
 * Holds it if it finds no token.  A request that comes back from the
 * reader runs first, whatever its replay cost (conn_offload_done). */
static bool must_wait(struct conn *c)
{
	if (c->rerun)
		return false;
	if (c->held || c->offloaded || c->authing || c->queue_full)
		return true;
	if (dispatch_queue_full(c)) {
		/* Its requests wait in the kernel's buffer, not in ours. */
		c->queue_full = true;
		bufferevent_disable(c->bev, EV_READ);
		log_debug("conn=%llu input waits: its queue of waiting requests is full",
		          (unsigned long long)c->id);
		return true;
	}
	if (!c->owing)
		return false;
	refill(c);
	if (c->tokens >= 1.0)
		return false;
	hold(c, wait_ms(c, c->tokens, 1.0));
	return true;
}

/* Keep line to run first when c goes on. */
static void keep_first(struct conn *c, const char *line, size_t n)
{
	if (c->held_in == NULL && (c->held_in = evbuffer_new()) == NULL)
		fatalx("evbuffer_new: out of memory");
	if (evbuffer_prepend(c->held_in, "\n", 1) != 0 || evbuffer_prepend(c->held_in, line, n) != 0)
		fatalx("evbuffer_prepend: out of memory");
}

/* Hold c for ms with line kept to run first when the hold ends. */
static void defer(struct conn *c, const char *line, size_t n, int64_t ms)
{
	keep_first(c, line, n);
	hold(c, ms);
}

bool conn_wait_token(struct conn *c, const char *line, size_t n)
{
	if (c->state != CS_OPEN)
		return false;
	refill(c);
	if (c->tokens >= 1.0)
		return false;
	c->owing = true;   /* what it sends after waits behind it */
	defer(c, line, n, wait_ms(c, c->tokens, 1.0));
	return true;
}

bool conn_defer_replay(struct conn *c, const char *line, size_t n)
{
	if (c->state != CS_OPEN)
		return false;
	refill(c);
	if (c->hb->tokens >= 0.0)
		return false;
	c->tokens += 1.0;   /* its token back: it is taken again when it runs */
	defer(c, line, n, wait_ms(c, c->hb->tokens, 0.0));
	return true;
}

bool conn_offload(struct conn *c, const char *line, size_t n)
{
	if (c->state != CS_OPEN)
		return false;
	keep_first(c, line, n);
	c->offloaded = true;
	bufferevent_disable(c->bev, EV_READ);
	return true;
}

static void go_on(struct conn *c);

void conn_offload_done(struct server *srv, uint64_t id, double tokens)
{
	struct conn *c = conn_find(srv, id);

	if (c == NULL || c->state != CS_OPEN || !c->offloaded)
		return;   /* closed meanwhile: nothing waits */
	c->offloaded = false;
	c->rerun = true;
	/* Charged now, paid after: its answer goes out first (must_wait). */
	conn_rate_charge(c, tokens);
	go_on(c);
}

void conn_auth_hold(struct conn *c)
{
	if (c->state != CS_OPEN)
		return;
	/* The request that queued the job has run (its line is gone): only
	 * what follows it waits, where it is (must_wait). */
	c->authing = true;
	bufferevent_disable(c->bev, EV_READ);
}

void conn_auth_done(struct server *srv, uint64_t id)
{
	struct conn *c = conn_find(srv, id);

	if (c == NULL || !c->authing)
		return;   /* closed meanwhile: nothing waits */
	c->authing = false;
	/* Still held for a token (its login's replays charged it) or with
	 * the reader: that hold's end goes on. */
	if (!c->held && !c->offloaded)
		go_on(c);
}

bool conn_closing(const struct conn *c)
{
	return c->closing;
}

struct dispatch_later **conn_queue(struct conn *c)
{
	return &c->queue;
}

bool conn_offloaded(const struct conn *c)
{
	return c->offloaded;
}

bool conn_authing(const struct conn *c)
{
	return c->authing;
}

void conn_queue_room(struct conn *c)
{
	if (!c->queue_full || dispatch_queue_full(c))
		return;
	c->queue_full = false;
	if (c->state == CS_OPEN && !c->closing && !c->held && !c->offloaded && !c->authing)
		go_on(c);
}

bool conn_take_rerun(struct conn *c)
{
	bool r = c->rerun;
	c->rerun = false;
	return r;
}

static bool conn_visible(const struct conn *c)
{
	return c->state == CS_OPEN && !c->leaving && c->user != 0;
}

struct conn *conn_of_user(struct server *srv, int64_t user, struct conn *prev)
{
	struct conn *c;

	if (srv->conns == NULL)
		return NULL;
	if (user == 0) {
		/* Anyone: the walk over all (lobby's who, admin's counts). */
		c = prev != NULL ? TAILQ_NEXT(prev, all) : TAILQ_FIRST(&srv->conns->all);
		for (; c != NULL; c = TAILQ_NEXT(c, all))
			if (conn_visible(c))
				return c;
		return NULL;
	}
	struct userconns *uc = users_find(srv->conns, user);
	if (uc == NULL)
		return NULL;
	if (prev == NULL) {
		c = TAILQ_FIRST(&uc->conns);
	} else if (prev->uc == uc) {
		c = TAILQ_NEXT(prev, byuser);
	} else {
		/* The caller logged prev out (or in as someone else) while it
		 * held it: the next is the first of user's after it by id. */
		TAILQ_FOREACH(c, &uc->conns, byuser)
			if (c->id > prev->id)
				break;
	}
	for (; c != NULL; c = TAILQ_NEXT(c, byuser))
		if (conn_visible(c))
			return c;
	return NULL;
}

void conn_send_user_but(struct server *srv, int64_t user_id, uint64_t but, json_t *msg)
{
	for (struct conn *c = NULL; user_id != 0 && (c = conn_of_user(srv, user_id, c)) != NULL;)
		if (but == 0 || c->id != but)
			conn_send(c, json_incref(msg));
	json_decref(msg);
}

void conn_send_user(struct server *srv, int64_t user_id, json_t *msg)
{
	conn_send_user_but(srv, user_id, 0, msg);
}

/* ---- teardown ------------------------------------------------------------- */

/* LINGER and the reply is out: say goodbye in TLS and TCP, then wait for the peer. */
static void linger_shut(struct conn *c)
{
	SSL *ssl = bufferevent_openssl_get_ssl(c->bev);

	c->shut = true;
	if (ssl != NULL)
		(void)SSL_shutdown(ssl);
	ERR_clear_error();
	shutdown(bufferevent_getfd(c->bev), SHUT_WR);
}

/* Into LINGER: the framing's goodbye (a close frame: `going_away`, the
 * server's end, or a normal close) behind the last reply, close_linger to
 * see it out. */
static void linger_begin(struct conn *c, bool going_away)
{
	if (c->framing != NULL)
		c->framing->goodbye(c->framing_ctx, going_away);
	timer_in(c, c->srv->cfg->linger_ms);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		linger_shut(c);
}

/* The one line a connection's end is logged with (teardown, drain). */
static void log_closed(const struct conn *c, const char *reason)
{
	if (!c->quiet)
		log_info("conn=%llu closed reason=\"%s\" user=%lld", (unsigned long long)c->id, reason,
		         (long long)c->user);
}

void conn_teardown(struct conn *c, const char *reason, bool flush)
{
	if (c->state == CS_DEAD)
		return;
	if (c->state == CS_LINGER) {
		if (flush)
			return;
	} else {
		log_closed(c, reason);
	}
	bool was_open = c->state == CS_OPEN;
	c->state = flush && was_open ? CS_LINGER : CS_DEAD;
	if (was_open && c->user != 0)
		run_closed_hooks(c);
	if (c->state == CS_LINGER) {
		linger_begin(c, false);
		return;
	}
	/* Freed in the loop's next pass (timer_cb), when nothing on the
	 * stack that led here still holds c.  The timer does it: one event
	 * a connection, not two (a struct event is about 0.14 KiB, of the
	 * 16 KiB an idle connection may cost: issue 13). */
	event_del(c->timer);
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	event_active(c->timer, EV_TIMEOUT, 1);
}

/*
 * A close the server makes (a line too long, a flood, a kick, a
 * WebSocket's close) waits for the actions it took from the connection,
 * and from any other, to be committed, so that their answers and
 * announcements go out first (probe: a move, then a line too long in the
 * same write: the move was played and never answered).  Meanwhile
 * nothing more is read from it or run; then it lingers as any close.
 */
/* The reason is kept here, for the few connections closing, and not in
 * every connection. */
struct closing {
	struct server *srv;
	uint64_t id;
	char why[96];              /* the reason the close will log */
};

static void close_after_commits(void *arg)
{
	struct closing *k = arg;
	struct conn *c = conn_find(k->srv, k->id);
	if (c != NULL && c->closing)
		conn_teardown(c, k->why, true);
	free(k);
}

void conn_close(struct conn *c, const char *reason)
{
	if (c == NULL || c->closing)
		return;
	if (c->state != CS_OPEN) {
		conn_teardown(c, reason, true);
		return;
	}
	c->closing = true;
	struct closing *k = xmalloc(sizeof *k);
	*k = (struct closing){ c->srv, c->id, "" };
	snprintf(k->why, sizeof k->why, "%s", reason);
	games_after_commits(c->srv, close_after_commits, k);
}

/*
 * The daemon's stop: every open connection lingers as conn_close's do, so
 * what was sent to it (the last turn's answers and announcements) goes out
 * before its close_notify, but without the closed hooks: its user has not
 * left a game or the lobby, the server has stopped (presence and offers
 * are as they were at the next start).  Each is told
 * {"event":"server_stopping"} last.  A connection still in its
 * handshake has been told nothing and just goes.  The daemon waits only
 * until each has its output out and its close_notify sent
 * (connset_drained), not for its peer to close: connset_free then reads
 * away what the peer sent meanwhile, so that closing does not reset what
 * the peer has yet to read.
 */
void connset_drain(struct server *srv)
{
	struct conn *c, *next;

	for (c = TAILQ_FIRST(&srv->conns->all); c != NULL; c = next) {
		next = TAILQ_NEXT(c, all);
		if (c->state == CS_HANDSHAKE) {
			conn_teardown(c, "shutdown", false);
		} else if (c->state == CS_OPEN) {
			/* Said before the close (the ops probe: a restart looked
			 * like a lost connection): the client may say so, and
			 * reconnect as it does. */
			conn_send_last(c, json_pack("{s:s}", "event", "server_stopping"));
			log_closed(c, "shutdown");
			c->state = CS_LINGER;
			linger_begin(c, true);
		}
	}
}

/* ---- callbacks ------------------------------------------------------------ */

void conn_message(struct conn *c, const char *msg, size_t n)
{
	if (c->state != CS_OPEN || c->closing)
		return;
	if (must_wait(c)) {
		/* It, and whatever a framing decodes after it, keep their turn. */
		if (c->held_in == NULL && (c->held_in = evbuffer_new()) == NULL)
			fatalx("evbuffer_new: out of memory");
		if (evbuffer_add(c->held_in, msg, n) != 0 || evbuffer_add(c->held_in, "\n", 1) != 0)
			fatalx("evbuffer_add: out of memory");
		return;
	}
	c->last_rx = mstime_mono();
	c->pinged = false;
	dispatch_line(c, msg, n);
}

static void send_greeting(struct conn *c)
{
	json_t *names = json_array();

	for (size_t i = 0; i < ruleset_count(); i++)
		json_array_append_new(names, json_string(ruleset_at(i)->name));
	const char *motd = c->srv->cfg ? c->srv->cfg->motd : NULL;   /* read now: a reload changes it */
	conn_send(c, json_pack("{s:s, s:i, s:s, s:o, s:s*}", "event", "greeting", "protocol",
	                       PROTO_VERSION, "server", KRIEGD_SERVER_NAME, "rulesets", names, "motd", motd));
}

static void line_too_long(struct conn *c)
{
	dispatch_error(c, NULL, PE_LINE_TOO_LONG, "a line is at most %d bytes including its newline",
	               PROTO_LINE_MAX);
	conn_close(c, "line too long");
}

/*
 * Whether line looks like an HTTP request line, `^[A-Z]+ \S+ HTTP/\d`
 * ("POST / HTTP/1.1").  No JSON line starts with a capital letter.
 */
static bool http_request_line(const char *line, size_t n)
{
	size_t i = 0, target;

	while (i < n && line[i] >= 'A' && line[i] <= 'Z')
		i++;
	if (i == 0 || i >= n || line[i] != ' ')
		return false;
	target = ++i;
	while (i < n && line[i] != ' ' && line[i] != '\t' && (unsigned char)line[i] > 0x20)
		i++;
	if (i == target || i >= n || line[i] != ' ')
		return false;
	i++;
	return n - i >= 6 && memcmp(line + i, "HTTP/", 5) == 0 && line[i + 5] >= '0' &&
	       line[i + 5] <= '9';
}

/*
 * The first line on the line door (empty lines before it aside) is an
 * HTTP request: close at once, running nothing.  A browser that a hostile
 * page sent here (a cross-protocol attack: the ALPN refusal in tls.c
 * stops browsers, this stops clients that offer no ALPN) would have each
 * header line answered with bad_json and then its body, which the page
 * chose, run as requests with the visitor's connection: hello, guest,
 * login.  Only the first line is looked at: later ones cost nothing more,
 * and a session that has begun with a JSON line is the line protocol.
 */
static bool http_on_line_door(struct conn *c, const char *line, size_t n)
{
	if (c->framing != NULL || c->first_line_seen || n == 0)
		return false;
	c->first_line_seen = true;
	if (!http_request_line(line, n))
		return false;
	if (!c->quiet)
		log_info("conn=%llu host=%s sent an HTTP request to the line port; closing it unread",
		         (unsigned long long)c->id, c->host);
	conn_close(c, "http request on the line port");
	return true;
}

/* Run the complete lines of in (the socket's input, or c->held_in) until
 * none is left, the connection closes, or it must wait for a token. */
static void lines_from(struct conn *c, struct evbuffer *in)
{
	char line[PROTO_LINE_MAX];

	while (c->state == CS_OPEN && !c->closing) {
		size_t eol_len = 0;
		struct evbuffer_ptr p = evbuffer_search_eol(in, NULL, &eol_len, EVBUFFER_EOL_LF);

		if (p.pos < 0) {
			/* No newline yet, and already too much for one line. */
			if (evbuffer_get_length(in) >= PROTO_LINE_MAX)
				line_too_long(c);
			break;
		}
		size_t total = (size_t)p.pos + 1;
		if (total > PROTO_LINE_MAX) {
			line_too_long(c);
			break;
		}
		if (must_wait(c))
			break;          /* the line stays where it is, first in turn */
		if (evbuffer_remove(in, line, total) != (int)total)
			fatalx("evbuffer_remove");
		size_t n = total - 1;
		if (n > 0 && line[n - 1] == '\r')
			n--;
		if (http_on_line_door(c, line, n))
			break;
		conn_message(c, line, n);
	}
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	if (c->framing != NULL) {
		if (c->state == CS_OPEN && !c->closing)
			c->framing->input(c, c->framing_ctx);
	} else {
		lines_from(c, in);
	}
	if (c->state != CS_OPEN || c->closing)
		evbuffer_drain(in, evbuffer_get_length(in));
}

/* Run what waited, then read on unless that had to wait again. */
static void go_on(struct conn *c)
{
	c->last_rx = mstime_mono();   /* the wait was ours, not the peer's silence */
	if (c->held_in != NULL)
		lines_from(c, c->held_in);
	if (c->state != CS_OPEN || c->closing || c->held || c->offloaded || c->authing ||
	    c->queue_full)
		return;
	bufferevent_enable(c->bev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
		read_cb(c->bev, c);
}

/* The bucket holds a token again: read on, first what waited (unless its
 * request is still with the reader, or its authentication in flight:
 * conn_offload_done, conn_auth_done go on then). */
static void unhold(struct conn *c)
{
	c->held = false;
	if (!c->offloaded && !c->authing)
		go_on(c);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	if (c->state == CS_OPEN && !TAILQ_EMPTY(&c->paced)) {
		conn_pace_drain(c);
		conn_pace_kick(c);
	}
	if (c->state == CS_LINGER && !c->shut &&
	    evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		linger_shut(c);
}

static void log_tls_failure(struct conn *c, const char *what)
{
	unsigned long e;
	char buf[256];
	int n = 0;

	if (c->quiet) {
		while (bufferevent_get_openssl_error(c->bev) != 0)
			;
		ERR_clear_error();
		return;
	}

	while ((e = bufferevent_get_openssl_error(c->bev)) != 0) {
		if (ERR_GET_LIB(e) == 0)
			continue;   /* not an OpenSSL error code (a system call's) */
		ERR_error_string_n(e, buf, sizeof buf);
		log_info("conn=%llu %s tls_error=\"%s\"", (unsigned long long)c->id, what, buf);
		n++;
	}
	n += tls_log_errors(c->id, what);
	if (n == 0 && EVUTIL_SOCKET_ERROR() != 0)
		log_debug("conn=%llu %s errno=\"%s\"", (unsigned long long)c->id, what,
		          evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

/*
 * An end of stream, as the log says it.  A dirty shutdown is an end of
 * stream to libevent (allowed: clients close without TLS's close_notify),
 * and a peer's reset and a dead path's keep-alive timing out were logged
 * "eof" as a clean close was (the friends probe).  The socket's TCP state
 * tells them apart: a peer that closed sent a FIN (CLOSE_WAIT), a reset
 * or a timeout leaves it CLOSED; the read's errno, still set when
 * libevent calls back from it, then says which (not trusted alone: a clean
 * end of stream sets none, and another connection's could linger).
 */
static const char *eof_reason(struct bufferevent *bev)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	int e = EVUTIL_SOCKET_ERROR();
	if (getsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 || ti.tcpi_state != TCP_CLOSE)
		return "eof";
	return e == ECONNRESET ? "reset by the peer" : e == ETIMEDOUT ? "timed out (keep-alive unanswered)"
	                                                                  : "connection lost";
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	if (what & BEV_EVENT_CONNECTED) {
		if (c->state != CS_HANDSHAKE)
			return;
		SSL *ssl = bufferevent_openssl_get_ssl(bev);
		log_debug("conn=%llu tls protocol=%s cipher=%s", (unsigned long long)c->id,
		          ssl ? SSL_get_version(ssl) : "?",
		          ssl ? SSL_get_cipher_name(ssl) : "?");
		conn_opened(c);
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT)) {
		const char *reason;

		if (c->state == CS_HANDSHAKE) {
			reason = "tls handshake failed";
			log_tls_failure(c, reason);
		} else if (what & BEV_EVENT_EOF) {
			reason = eof_reason(bev);
		} else {
			reason = "connection error";
			log_tls_failure(c, reason);
		}
		ERR_clear_error();
		conn_teardown(c, reason, false);
	}
}

void conn_stalled(struct server *srv, int64_t ms)
{
	struct conn *c;
	int64_t now = mstime_mono();

	/* The loop stood (stall.h): what a connection sent meanwhile is
	 * unread, so its silence and its handshake are not counted through
	 * the standstill (the service probe: a line sent during a stop was
	 * closed as idle, unanswered). */
	TAILQ_FOREACH(c, &srv->conns->all, all) {
		if (c->state == CS_HANDSHAKE) {
			timer_in(c, srv->cfg->handshake_timeout_ms);
		} else if (c->state == CS_OPEN) {
			c->last_rx += ms;
			if (c->last_rx > now)
				c->last_rx = now;
		}
	}
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	const struct config *cfg = c->srv->cfg;

	/* Due during a standstill the loop notices only now: conn_stalled
	 * moved what it counts (a handshake's timer re-armed). */
	if (stall_moved(c->srv->stall, c->timer))
		return;
	switch (c->state) {
	case CS_HANDSHAKE:
		conn_teardown(c, "tls handshake timeout", false);
		return;
	case CS_LINGER:
		conn_teardown(c, "linger over", false);
		return;
	case CS_DEAD:
		conn_free(c);   /* conn_teardown's deferred free */
		return;
	case CS_OPEN:
		break;
	}
	if (c->held) {
		refill(c);
		if (c->tokens < 1.0) {   /* not yet: a reload lowered rate_limit */
			timer_in(c, wait_ms(c, c->tokens, 1.0));
			return;
		}
		unhold(c);
		if (c->state != CS_OPEN || c->held)
			return;
	}
	/* Waiting for its own authentication (a hash queued behind others,
	 * a failed login's delay), a connection is not silent: what it sent
	 * meanwhile waits unread.  The idle time counts from the answer
	 * (go_on). */
	if (c->authing)
		c->last_rx = mstime_mono();
	int64_t idle = mstime_mono() - c->last_rx;
	int64_t half = cfg->idle_timeout_ms / 2;
	if (idle >= cfg->idle_timeout_ms) {
		conn_teardown(c, "idle timeout", false);
		return;
	}
	if (idle >= half && !c->pinged) {
		c->pinged = true;
		conn_send(c, json_pack("{s:s}", "event", "ping"));
		if (c->state == CS_OPEN && c->framing != NULL && c->framing->keepalive != NULL)
			c->framing->keepalive(c->framing_ctx);
		if (c->state != CS_OPEN)
			return;
	}
	timer_in(c, (c->pinged ? cfg->idle_timeout_ms : half) - idle);
}

/* ---- accept --------------------------------------------------------------- */

/* A new connection over bev in the set, reading and writing; its timer
 * not armed yet. */
static struct conn *conn_add(struct server *srv, struct bufferevent *bev, enum conn_state state,
                             const char *host, const char *limit)
{
	struct connset *set = srv->conns;
	struct conn *c = xcalloc(1, sizeof *c);

	TAILQ_INIT(&c->paced);
	c->id = set->next_id++;
	c->srv = srv;
	c->bev = bev;
	c->state = state;
	c->accepted = mstime_mono();
	c->tokens = srv->cfg->rate_burst;
	c->last_refill = mstime_mono();
	snprintf(c->host, sizeof c->host, "%s", host);
	c->hb = host_hold(srv, limit);
	if ((c->timer = evtimer_new(srv->base, timer_cb, c)) == NULL)
		fatalx("evtimer_new: out of memory");
	TAILQ_INSERT_TAIL(&set->all, c, all);
	c->byid.id = (int64_t)c->id;
	idtable_add(&set->byid, &c->byid);
	set->count++;
	/* Stop reading past one line and a bit: memory per client stays bounded. */
	bufferevent_setwatermark(bev, EV_READ, 0, PROTO_LINE_MAX + 4096);
	bufferevent_setcb(bev, read_cb, write_cb, event_cb, c);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	return c;
}

struct conn *conn_attach(struct server *srv, struct bufferevent *bev)
{
	struct conn *c = conn_add(srv, bev, CS_OPEN, "attached", "attached");

	c->last_rx = c->last_refill = mstime_mono();
	timer_in(c, srv->cfg->idle_timeout_ms / 2);
	return c;
}

/* buf: "addr:port" for the log; host: the address alone (per-IP cap). */
void conn_format_peer(const struct sockaddr *sa, char *buf, size_t len,
                        char host[INET6_ADDRSTRLEN])
{
	snprintf(host, INET6_ADDRSTRLEN, "?");

	if (sa != NULL && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		evutil_inet_ntop(AF_INET6, &s6->sin6_addr, host, INET6_ADDRSTRLEN);
		snprintf(buf, len, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else if (sa != NULL && sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		evutil_inet_ntop(AF_INET, &s4->sin_addr, host, INET6_ADDRSTRLEN);
		snprintf(buf, len, "%s:%u", host, ntohs(s4->sin_port));
	} else {
		snprintf(buf, len, "?");
	}
}

/* Connections from host (a limit key: guard_addr_key) that hold a slot
 * (not themselves refused), and in *handshaking those of them still in
 * their TLS handshake.  A walk over all of them: accepts are rare next to
 * requests, and bounded by max_connections. */
static size_t host_count(const struct connset *set, const char *host, size_t *handshaking,
                         size_t *dead)
{
	const struct conn *c;
	size_t n = 0;

	*handshaking = *dead = 0;
	TAILQ_FOREACH(c, &set->all, all) {
		/* torn down, freed at the loop's next pass: their slots are free already */
		*dead += !c->refused && c->state == CS_DEAD;
		if (!c->refused && strcmp(c->hb->addr, host) == 0) {
			n++;
			*handshaking += c->state == CS_HANDSHAKE;
		}
	}
	return n;
}

/*
 * The oldest connection still in its TLS handshake (not one being
 * refused), from the address whose limit key is key (NULL: any), is closed
 * if it has been at it min_ms, so that a new one takes its place; whether
 * one was.  Connections that never finish their handshake, 32 from each of
 * some 40 addresses (or IPv6 networks), held every slot for
 * handshake_timeout at a time and kept every new client out (the
 * exhaustion probe); a client's handshake takes milliseconds.
 */
static bool evict_handshake(struct connset *set, const char *key, int64_t min_ms)
{
	int64_t now = mstime_mono();
	struct conn *c;
	TAILQ_FOREACH(c, &set->all, all)   /* in accept order: the oldest first */
		if (c->state == CS_HANDSHAKE && !c->refused && (key == NULL || strcmp(c->hb->addr, key) == 0)) {
			if (now - c->accepted < min_ms)
				return false;
			conn_teardown(c, key != NULL ? "tls handshake unfinished, another from its address"
			                             : "tls handshake unfinished while the server is full",
			              false);
			return true;
		}
	return false;
}

/* Room for one more connection from the address whose limit key (an
 * IPv6 one's network: guard_addr_key) is key?  0 with *refused (and
 * *refused_addr) set as it is to be told; -1: refused with no room to say
 * so (logged).  One address may not hold every slot (nor open hundreds of
 * connections to probe the server's timing): max_connections_per_ip,
 * loopback included.  Refused like server_full, with its own message. */
static int admit(struct server *srv, const char *peer, const char *key, bool *refused,
                 bool *refused_addr)
{
	struct connset *set = srv->conns;
	const struct config *cfg = srv->cfg;

	*refused = *refused_addr = false;
	size_t handshaking, dead;
	size_t mine = host_count(set, key, &handshaking, &dead);
	/* An address's handshakes not finished are few (a client's takes
	 * milliseconds): past CONN_HANDSHAKES_PER_IP its oldest at it
	 * CONN_EVICT_HANDSHAKE_MS makes room, so that filling the server
	 * with them takes many addresses, or each handshake begun again
	 * within that (the exhaustion probe: 32 from each of 40); a burst of
	 * handshakes that finish (loadgen's 64 at once) is not cut.  The
	 * address is checked before the server is, so that one at its limit
	 * evicts nobody else's (a review). */
	size_t hs_cap = (size_t)cfg->max_conns_per_ip / 4;   /* a limit raised raises it */
	if (hs_cap < CONN_HANDSHAKES_PER_IP)
		hs_cap = CONN_HANDSHAKES_PER_IP;
	if (handshaking >= hs_cap && evict_handshake(set, key, CONN_EVICT_HANDSHAKE_MS)) {
		mine--;
		dead++;
	}
	if (mine >= (size_t)cfg->max_conns_per_ip)
		*refused = *refused_addr = true;
	else if (set->count - set->refusing - dead >= (size_t)cfg->max_conns &&
	         !evict_handshake(set, NULL, CONN_EVICT_HANDSHAKE_MS))
		*refused = true;
	const char *why = NULL;
	if (*refused && set->refusing >= CONN_REFUSE_EXTRA)
		why = *refused_addr ? "max_connections_per_ip" : "max_connections";
	if (why != NULL) {
		/* A storm of these is one line an interval (log_repeat_interval). */
		unsigned more = 0;
		if (guard_log_allow(&cfg->guard, &set->refused_log, mstime_mono(), &more))
			log_warnx("refused peer=%s reason=\"%s, no room to say so\" (%u like it not logged)",
			          peer, why, more);
		return -1;
	}
	return 0;
}

/* OPEN (the TLS handshake is done): refuse over the limits, else greet
 * and arm the idle timer. */
static void conn_opened(struct conn *c)
{
	c->state = CS_OPEN;
	c->last_rx = c->last_refill = mstime_mono();
	if (c->refused_addr) {
		dispatch_error(c, NULL, PE_SERVER_FULL,
		               "too many connections from your address (per-address limit); "
		               "try again later");
		conn_close(c, "per-address limit");
		return;
	}
	if (c->refused) {
		dispatch_error(c, NULL, PE_SERVER_FULL, "the server is full; try again later");
		conn_close(c, "server full");
		return;
	}
	send_greeting(c);
	timer_in(c, c->srv->cfg->idle_timeout_ms / 2);
}

struct conn *conn_adopt(struct server *srv, struct bufferevent *bev, const char *peer,
                        const char *host, const struct conn_framing *framing, void *ctx)
{
	bool refused, refused_addr;

	char key[GUARD_ADDR_MAX];

	guard_addr_key(host, srv->cfg->guard.ipv6_prefix, key);
	if (admit(srv, peer, key, &refused, &refused_addr) != 0)
		return NULL;
	struct conn *c = conn_add(srv, bev, CS_HANDSHAKE, host, key);
	c->framing = framing;
	c->framing_ctx = ctx;
	c->refused = refused;
	c->refused_addr = refused_addr;
	if (refused)
		srv->conns->refusing++;
	char note[96];
	if (!(c->quiet = !host_log_take(c->hb, note, sizeof note)))
		log_info("conn=%llu accepted peer=%s transport=websocket%s%s", (unsigned long long)c->id,
		         peer, refused_addr ? " over max_connections_per_ip"
		                            : refused ? " over max_connections" : "", note);
	conn_opened(c);
	/* Bytes that came with the upgrade request (a first message) are
	 * already buffered: no read event will announce them. */
	if (c->state == CS_OPEN &&
	    evbuffer_get_length(bufferevent_get_input(bev)) > 0)
		read_cb(bev, c);
	return c;
}

void conn_accept(struct server *srv, int fd, const struct sockaddr *sa, int socklen)
{
	struct connset *set = srv->conns;
	const struct config *cfg = srv->cfg;
	char peer[64], host[INET6_ADDRSTRLEN], key[GUARD_ADDR_MAX];
	bool refused, refused_addr;

	conn_format_peer(sa, peer, sizeof peer, host);
	guard_addr_key(host, cfg->guard.ipv6_prefix, key);
	if (admit(srv, peer, key, &refused, &refused_addr) != 0) {
		evutil_closesocket(fd);
		return;
	}
	SSL *ssl = tls_ssl_new_line(srv->tls);
	if (ssl == NULL) {
		evutil_closesocket(fd);
		return;
	}
	struct bufferevent *bev = bufferevent_openssl_socket_new(
	        srv->base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING,
	        BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	if (bev == NULL) {
		log_warnx("refused peer=%s reason=\"bufferevent_openssl_socket_new failed\"", peer);
		SSL_free(ssl);
		evutil_closesocket(fd);
		return;
	}

	struct conn *c = conn_add(srv, bev, CS_HANDSHAKE, host, key);
	c->refused = refused;
	c->refused_addr = refused_addr;
	if (refused)
		set->refusing++;
	/* A client may close without close_notify: that is an EOF, not an error. */
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	timer_in(c, cfg->handshake_timeout_ms);
	char note[96];
	if (!(c->quiet = !host_log_take(c->hb, note, sizeof note)))
		log_info("conn=%llu accepted peer=%s%s%s", (unsigned long long)c->id, peer,
		         refused_addr ? " over max_connections_per_ip"
		                      : refused ? " over max_connections" : "", note);
}
