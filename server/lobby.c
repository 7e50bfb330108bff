/*
 * lobby.c — who is online, open seeks, challenges to a named user.
 *
 * An offer is either a seek (open to anyone) or a challenge (to one named
 * user).  Offers belong to their owner's presence: they live in memory
 * and vanish when the owner's last connection closes (and on restart) —
 * but for a correspondence offer (a challenge or a seek) of a registered
 * account, which waits while its owner is away, up to LOBBY_WAIT_MS after
 * it was made: a game of days a move is offered to someone who may come by
 * tomorrow.  Such an offer is also in the store (schemas 14, 16), written
 * before its owner is answered and deleted as it goes, so a restart of the
 * daemon keeps it (lobby_load), with its id.  Accepting an offer starts a
 * game through games_start(), its owner present or not; declined or lapsed
 * while its owner is away, it leaves news the owner hears at their next
 * login (schema 19, offer_retire).
 *
 * Offer colours are the owner's: "white", "black" or "random" (drawn when
 * the offer is accepted).
 *
 * The lobby comes to those who watch it (lobby_watch): each open seek is
 * pushed to them as it appears (`seek`) and as it goes (`seek_gone`:
 * accepted, cancelled, or its owner left).  Challenges are never pushed
 * to watchers: they concern two users only.
 */
#include <sys/queue.h>

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "action.h"
#include "board.h"
#include "clock.h"
#include "config.h"
#include "club.h"
#include "auth.h"
#include "conn.h"
#include "dispatch.h"
#include "game.h"
#include "guard.h"
#include "lobby.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"
#include "text.h"
#include "xmalloc.h"

/*
 * The lobby's room.  One user holds at most LOBBY_OFFERS_PER_USER offers,
 * the lobby at most LOBBY_OFFERS_MAX, and of those at most a
 * LOBBY_WAITING_SHARE may wait for owners who are away (offer_waits: a
 * registered account's correspondence offer; kept in the store, brought
 * back by a restart, for up to LOBBY_WAIT_MS).  At one cap for all, 4,096,
 * 256 accounts that posted 16 correspondence seeks each and left refused
 * every other user's seek and challenge, a guest's too, for 14 days and
 * across restarts (probe).  Now offers that may wait fill half the lobby
 * at most, and the other half holds only offers whose owners are
 * connected: those go when their owners leave, and there are at most 16
 * per logged-in user (max_connections, 1,024 by default, makes 16,384):
 * no number of accounts that left can keep anyone from a timed or untimed
 * game, and keeping correspondence offers out for two weeks takes 2,048
 * accounts (410 address-hours of register_per_hour's default 5).  An
 * offer costs some 200 bytes (struct offer, 176, and malloc's overhead;
 * a daemon's RSS grew 14 MiB with 65,536 loaded); the walks of the offers
 * compare fields in memory and read the store in one transaction
 * (seek_match, lobby_users_changed).  Measured with a full lobby: a seek
 * or an accept about 1 ms, `seeks` 3 to 5 ms, the worst seek (every offer
 * on its terms, each owner's rating read to fall outside its range, the
 * owners interleaved) 32 ms.
 */
#define LOBBY_OFFERS_MAX 65536       /* offers in the whole lobby */
#define LOBBY_WAITING_SHARE 2        /* offers that may wait (offer_waits) fill 1/this of it at most */
#define LOBBY_OFFERS_PER_USER 16     /* open offers one user may have */
#define LOBBY_OFFER_ID_MAX (1LL << 53)
#define LOBBY_GAME_ID_MAX (1LL << 53)  /* JSON-safe integers, as game_cmd.c */
#define LOBBY_RULES_MAX 16
#define COLOR_RANDOM (-1)
#define LOBBY_RATING_MAX 4000        /* a seek's rating range: 0..this */
#define LOBBY_WATCHERS_MAX 4096      /* connections watching the lobby at once */
#define LOBBY_WAIT_MS (14LL * 24 * 3600 * 1000)   /* a correspondence challenge waits this long */
#define LOBBY_SWEEP_MS 60000         /* lapsed offers looked for (at most; wait_ms / 2 in tests) */
/* Offer ids reserved in the store at a time: a write per so many offers,
 * and a restart skips at most so many numbers (people type them: at 1,024
 * a club restarted weekly was past "accept 50000" within a year). */
#define LOBBY_ID_BLOCK 16
#define LOBBY_IDS_KEY "lobby_offer_ids"   /* server_state: ids below it were handed out */

struct offer {
	TAILQ_ENTRY(offer) link;              /* in lobby's offers, oldest first */
	int64_t id;
	int64_t owner;
	char owner_name[PROTO_NAME_MAX + 1];
	int64_t target;                       /* 0: a seek */
	char target_name[PROTO_NAME_MAX + 1];
	const struct ruleset *rs;
	int64_t base_ms, inc_ms, days;
	int color;                            /* the owner's: WHITE, BLACK, COLOR_RANDOM */
	bool rated;
	int rating_min, rating_max;           /* who may accept a seek; 0, 0: anyone */
	int64_t rematch;                      /* a challenge for a rematch of this game, or 0 */
	int64_t made_ms;                      /* mstime_wall() when made */
	char made_from[GUARD_ADDR_MAX];       /* the maker's address as limits count it (games_per_hour
	                                       * charges it when a bot takes the offer); "" for
	                                       * one read back from the store at a start */
	bool stored;                          /* kept in the store (a waiting correspondence offer) */
};

struct lobby {
	struct server *srv;
	TAILQ_HEAD(, offer) offers;           /* oldest first (listings show them so) */
	size_t noffers;
	size_t nwaiting;                      /* of them, offer_waits() ones */
	size_t max_offers;                    /* LOBBY_OFFERS_MAX; $KRIEGD_LOBBY_OFFERS_MAX in tests */
	int64_t next_id;
	int64_t id_reserved;                  /* ids below it are recorded as given (LOBBY_IDS_KEY) */
	uint64_t *watchers;                   /* conn_id()s of lobby_watch connections */
	size_t nwatchers, capwatchers;
	int64_t wait_ms;                      /* LOBBY_WAIT_MS; $KRIEGD_OFFER_WAIT_MS in tests */
	struct event *sweep_ev;               /* lobby_sweep on a timer: a lapse is told when it comes */
};

static void lobby_sweep(struct lobby *l, uint64_t quiet);

static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	lobby_sweep(arg, 0);
}

struct lobby *lobby_new(struct server *srv)
{
	struct lobby *l = xcalloc(1, sizeof *l);
	l->srv = srv;
	TAILQ_INIT(&l->offers);
	l->next_id = 1;
	l->wait_ms = LOBBY_WAIT_MS;
	l->max_offers = LOBBY_OFFERS_MAX;
	/* Test hook: integration tests wait seconds, not two weeks. */
	const char *env = getenv("KRIEGD_OFFER_WAIT_MS");
	if (env && atoll(env) > 0)
		l->wait_ms = atoll(env);
	/* And one that fills the lobby with a few dozen offers, not 65,536
	 * (lower only: the caps above are what the memory was measured at). */
	if ((env = getenv("KRIEGD_LOBBY_OFFERS_MAX")) != NULL && atoll(env) >= 2 &&
	    atoll(env) < LOBBY_OFFERS_MAX)
		l->max_offers = (size_t)atoll(env);
	int64_t every = l->wait_ms / 2 < LOBBY_SWEEP_MS ? l->wait_ms / 2 : LOBBY_SWEEP_MS;
	/* And one that needs the lobby's own sweeps only (a login's). */
	if ((env = getenv("KRIEGD_OFFER_SWEEP_MS")) != NULL && atoll(env) > 0)
		every = atoll(env);
	if (every < 100)
		every = 100;   /* a test's tiny wait must not make the timer spin */
	struct timeval tv = { (time_t)(every / 1000), (suseconds_t)(every % 1000 * 1000) };
	if ((l->sweep_ev = event_new(srv->base, -1, EV_PERSIST, sweep_cb, l)) == NULL ||
	    event_add(l->sweep_ev, &tv) != 0) {
		lobby_free(l);
		return NULL;
	}
	return l;
}

void lobby_free(struct lobby *l)
{
	if (!l)
		return;
	struct offer *o;
	while ((o = TAILQ_FIRST(&l->offers)) != NULL) {
		TAILQ_REMOVE(&l->offers, o, link);
		free(o);
	}
	free(l->watchers);
	if (l->sweep_ev)
		event_free(l->sweep_ev);
	free(l);
}

static const char *color_word(int color)
{
	return color == WHITE ? "white" : color == BLACK ? "black" : "random";
}

/* The owner's rating in the offer's pool, and the seek's range, go with
 * every listing (read now: a rating moves when a game ends). */
static json_t *offer_json(struct server *srv, const struct offer *o)
{
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:b}", "offer", (json_int_t)o->id,
	                      "user", o->owner_name, "rules", o->rs->name,
	                      "color", color_word(o->color), "rated", o->rated);
	if (o->days > 0)
		json_object_set_new(j, "time", json_pack("{s:I}", "days", (json_int_t)o->days));
	else if (o->base_ms > 0)
		json_object_set_new(j, "time", json_pack("{s:f, s:f}", "base", o->base_ms / 1000.0,
		                                         "inc", o->inc_ms / 1000.0));
	if (o->target)
		json_object_set_new(j, "to", json_string(o->target_name));
	if (o->rematch)
		json_object_set_new(j, "rematch", json_integer(o->rematch));
	if (auth_user_is_bot(srv, o->owner))   /* the offer is a computer's */
		json_object_set_new(j, "bot", json_true());
	json_t *r = club_rating_json(srv, o->owner, o->rs->name);
	if (r)
		json_object_set_new(j, "rating", r);
	if (o->rating_max > 0) {
		json_object_set_new(j, "rating_min", json_integer(o->rating_min));
		json_object_set_new(j, "rating_max", json_integer(o->rating_max));
	}
	return j;
}

/* A challenge to uid from someone uid muted (chat.c) is not shown to uid:
 * not pushed, listed or withdrawn.  Its owner is answered as ever. */
static bool hidden_from(struct server *srv, const struct offer *o, int64_t uid)
{
	return o->target == uid && games_user_muted(srv, uid, o->owner);
}

/* Does o outlive its owner's last connection?  A correspondence offer of
 * a registered account (a guest who left never comes back to play). */
static bool offer_waits(const struct offer *o)
{
	return o->days > 0 && !auth_is_guest_name(o->owner_name);
}

/* Forward: defined with the offers below. */
static int offer_remove(struct lobby *l, struct offer *o);

/* A waiting offer in the store's words (a restart keeps it). */
static void offer_row(const struct offer *o, struct store_offer *row)
{
	memset(row, 0, sizeof *row);
	row->id = o->id;
	row->owner = o->owner;
	row->target = o->target;
	snprintf(row->rules, sizeof row->rules, "%s", o->rs->name);
	row->days = o->days;
	snprintf(row->color, sizeof row->color, "%s", color_word(o->color));
	row->rated = o->rated;
	row->rating_min = o->rating_min;
	row->rating_max = o->rating_max;
	row->rematch = o->rematch;
	row->made_ms = o->made_ms;
}

/* Keep o in the store if it waits; 0, or -1 (logged) if it could not be. */
static int offer_store(struct lobby *l, struct offer *o)
{
	if (!offer_waits(o))
		return 0;
	struct store_offer row;
	offer_row(o, &row);
	if (store_offer_put(l->srv->store, &row) == STORE_OK) {
		o->stored = true;
		return 0;
	}
	log_warnx("offer=%lld could not be stored: %s", (long long)o->id, store_error(l->srv->store));
	return -1;
}

/* Forget o in the store if it was kept there; 0, or -1 (logged). */
static int offer_unstore(struct lobby *l, struct offer *o)
{
	if (!o->stored || store_offer_drop(l->srv->store, o->id) == STORE_OK) {
		o->stored = false;
		return 0;
	}
	log_warnx("offer=%lld could not be deleted from the store: %s", (long long)o->id,
	          store_error(l->srv->store));
	return -1;
}

/* A stored offer whose owner is away goes with news for the owner's
 * next login (lobby_conn_login): `what` became of it.  Otherwise it just
 * goes.  0, or -1 (logged) with nothing changed. */
static int offer_retire(struct lobby *l, struct offer *o, const char *what)
{
	if (!o->stored || conn_of_user(l->srv, o->owner, NULL) != NULL)
		return offer_remove(l, o);
	if (store_offer_close(l->srv->store, o->id, what, mstime_wall()) != STORE_OK) {
		log_warnx("offer=%lld could not be closed in the store: %s", (long long)o->id,
		          store_error(l->srv->store));
		return -1;
	}
	o->stored = false;
	return offer_remove(l, o);
}

/* Offer o goes (declined, cancelled), and then user `to`, if not
 * 0, hears ev (consumed): 0, or -1 with nothing changed or sent.  A
 * declined one (`news`) is kept for its owner if away (offer_retire). */
static int offer_close(struct lobby *l, struct offer *o, int64_t to, json_t *ev,
                       const char *news)
{
	int rc = news != NULL ? offer_retire(l, o, news) : offer_remove(l, o);
	if (rc != 0 || to == 0) {
		json_decref(ev);
		return rc;
	}
	conn_send_user(l->srv, to, ev);
	return 0;
}

/*
 * The target of challenge `oid` answered it on connection c (`how`:
 * "declined", "accepted"; game: the game it started, or 0); their other
 * connections, shown the challenge too, hear it is gone, as a withdrawn
 * one is.  Before, they heard nothing (the two-devices probe): a decline
 * on the phone left it listed on the laptop, whose accept then found
 * no_such_offer; an accept told the laptop only game_start.  Not sent
 * when the challenge was hidden from the target (hidden_from): never shown.
 */
static void challenge_answered(struct server *srv, struct conn *c, json_int_t oid, const char *how,
                               int64_t game)
{
	json_t *ev = json_pack("{s:s, s:I, s:s}", "event", "challenge_cancelled", "offer", oid,
	                       "reason", how);
	if (game != 0)
		json_object_set_new(ev, "game", json_integer(game));
	conn_send_user_but(srv, conn_user(c), conn_id(c), ev);
}

/* Waiting offers whose owner is away and whose time is up go; a
 * challenge's target, if here, hears it as a cancellation, the lobby's
 * watchers a seek's going.  Run on a timer (sweep_ev) and whenever the
 * offers are read, named or added to, so that none is taken late.
 * Connection `quiet` (not 0: one logging in now) is not told: it never
 * heard of the challenge. */
static void lobby_sweep(struct lobby *l, uint64_t quiet)
{
	int64_t now = mstime_wall();
	for (struct offer *o = TAILQ_FIRST(&l->offers), *next; o; o = next) {
		next = TAILQ_NEXT(o, link);
		if (!offer_waits(o) || now - o->made_ms < l->wait_ms ||
		    conn_of_user(l->srv, o->owner, NULL) != NULL)
			continue;
		int64_t to = hidden_from(l->srv, o, o->target) ? 0 : o->target;
		json_int_t id = (json_int_t)o->id;
		if (offer_retire(l, o, "lapsed") != 0)
			continue;
		if (to != 0)
			conn_send_user_but(l->srv, to, quiet,
			                   json_pack("{s:s, s:I, s:s}", "event", "challenge_cancelled",
			                             "offer", id, "reason", "lapsed"));
	}
}

/* To every connection watching the lobby (still logged in); msg is consumed. */
static void lobby_push(struct lobby *l, json_t *msg)
{
	size_t k = 0;
	for (size_t i = 0; i < l->nwatchers; i++) {
		struct conn *c = conn_find(l->srv, l->watchers[i]);
		if (c == NULL)
			continue;   /* gone: forgotten here */
		l->watchers[k++] = l->watchers[i];
		if (conn_user(c) > 0)
			conn_send(c, json_incref(msg));
	}
	l->nwatchers = k;
	json_decref(msg);
}

/* A seek appeared (challenges are nobody else's business). */
static void lobby_push_seek(struct lobby *l, const struct offer *o)
{
	if (o->target || l->nwatchers == 0)
		return;
	json_t *j = offer_json(l->srv, o);
	json_object_set_new(j, "event", json_string("seek"));
	lobby_push(l, j);
}

/* A seek went (accepted, cancelled, its owner left). */
static void lobby_push_gone(struct lobby *l, const struct offer *o)
{
	if (o->target || l->nwatchers == 0)
		return;
	lobby_push(l, json_pack("{s:s, s:I}", "event", "seek_gone", "offer", (json_int_t)o->id));
}

static struct offer *offer_find(struct lobby *l, int64_t id)
{
	struct offer *o;
	TAILQ_FOREACH(o, &l->offers, link)
		if (o->id == id)
			return o;
	return NULL;
}

/* o leaves the lobby's list (its watchers are told of a seek) and is freed. */
static void offer_unlink(struct lobby *l, struct offer *o)
{
	TAILQ_REMOVE(&l->offers, o, link);
	l->noffers--;
	l->nwaiting -= offer_waits(o);
	lobby_push_gone(l, o);
	free(o);
}

/* o goes, from the store first: 0, or -1 (logged) with o left as it was
 * if the store could not forget it (else a restart would bring it back). */
static int offer_remove(struct lobby *l, struct offer *o)
{
	if (offer_unstore(l, o) != 0)
		return -1;
	offer_unlink(l, o);
	return 0;
}

/* ---- presence ------------------------------------------------------------- */

/* What became of the user's waiting offers while they were away: told
 * to the connection logging in, then forgotten (told again at the next
 * login if that cannot be written). */
static int news_item(const struct store_offer_news *n, void *arg)
{
	struct conn *c = arg;
	bool declined = strcmp(n->what, "declined") == 0;
	json_t *j = json_pack("{s:s, s:I, s:b}", "event", declined ? "challenge_declined" : "offer_lapsed",
	                      "offer", (json_int_t)n->offer, "while_away", 1);
	/* by: who declined; user: a lapsed challenge's target (a seek has none) */
	if (n->target_name[0] != '\0')
		json_object_set_new(j, declined ? "by" : "user", json_string(n->target_name));
	conn_send(c, j);
	return 0;
}

static void offer_news_tell(struct server *srv, struct conn *c)
{
	int64_t last = 0;
	if (store_offer_news_list(srv->store, conn_user(c), news_item, c, &last) != STORE_OK ||
	    (last > 0 && store_offer_news_drop(srv->store, conn_user(c), last) != STORE_OK))
		log_warnx("user=%lld offer news: %s", (long long)conn_user(c), store_error(srv->store));
}

void lobby_conn_login(struct server *srv, struct conn *c)
{
	struct lobby *l = srv->lobby;
	int64_t uid = conn_user(c);
	if (!l || uid <= 0)
		return;
	lobby_sweep(l, conn_id(c));
	offer_news_tell(srv, c);
	/* Challenges made while this user was away or on another connection. */
	struct offer *o;
	TAILQ_FOREACH(o, &l->offers, link)
		if (o->target == uid && !hidden_from(srv, o, uid)) {
			json_t *j = offer_json(srv, o);
			json_object_set_new(j, "event", json_string("challenge"));
			conn_send(c, j);
		}
}

void lobby_conn_closed(struct server *srv, struct conn *c)
{
	struct lobby *l = srv->lobby;
	int64_t uid = conn_user(c);
	if (!l || uid <= 0)
		return;
	for (size_t i = 0; i < l->nwatchers; i++)
		if (l->watchers[i] == conn_id(c)) {
			l->watchers[i] = l->watchers[--l->nwatchers];
			break;
		}
	for (struct conn *o = NULL; (o = conn_of_user(srv, uid, o)) != NULL;)
		if (o != c)
			return;
	/* The user's last connection: their offers go with them. */
	for (struct offer *o = TAILQ_FIRST(&l->offers), *next; o; o = next) {
		next = TAILQ_NEXT(o, link);
		if (o->owner != uid || offer_waits(o))
			continue;
		if (o->target && !hidden_from(srv, o, o->target)) {
			json_t *j = json_pack("{s:s, s:I}", "event", "challenge_cancelled",
			                      "offer", (json_int_t)o->id);
			conn_send_user(srv, o->target, j);
		}
		offer_unlink(l, o);
	}
}

/* ---- who ------------------------------------------------------------------ */

/* The page of req's `from` of a list whose items read the store (a user's
 * role, flags and ratings; an offer's owner): built in one read
 * transaction (one snapshot and one round of the WAL's locks, not one per
 * row), ended before the answer is sent (sending may close a slow reader,
 * whose closed hooks write). */
static json_t *page_in_snapshot(struct server *srv, const json_t *req, const char *key, size_t n,
                                json_t *(*item)(size_t i, void *arg), void *arg)
{
	bool snapshot = store_begin_read(srv->store) == STORE_OK;
	json_t *j = dispatch_page_of(req, key, n, item, arg);
	if (snapshot)
		store_commit(srv->store);
	return j;
}

/* The users online: each once, at their first connection. */
struct online {
	struct server *srv;
	struct conn **first;
	size_t n, cap;
};

/* One user of `who`: its role, bot flag and ratings are read from the
 * store, its games counted, so only a page's users are built. */
static json_t *who_item(size_t i, void *arg)
{
	const struct online *on = arg;
	struct server *srv = on->srv;
	int64_t uid = conn_user(on->first[i]);
	/* A disabled account still connected (until auth's next check) is shown as a player. */
	const char *role = auth_role_name(auth_user_role(srv, uid));
	json_t *u = json_pack("{s:s, s:i, s:s}", "name", conn_user_name(on->first[i]), "games",
	                      games_user_count(srv->games, uid), "role", role ? role : "player");
	if (auth_user_is_bot(srv, uid))
		json_object_set_new(u, "bot", json_true());
	json_t *r = club_ratings_json(srv, uid);   /* the pools this user was rated in */
	if (r)
		json_object_set_new(u, "ratings", r);
	return u;
}

static void cmd_who(struct conn *c, json_t *id, json_t *req)
{
	struct online on = { .srv = conn_server(c) };

	for (struct conn *o = NULL; (o = conn_of_user(on.srv, 0, o)) != NULL;) {
		if (conn_of_user(on.srv, conn_user(o), NULL) != o)
			continue;
		on.first = xgrow(on.first, &on.cap, on.n + 1, sizeof *on.first, 64);
		on.first[on.n++] = o;
	}
	json_t *j = page_in_snapshot(on.srv, req, "users", on.n, who_item, &on);
	free(on.first);
	dispatch_ok(c, id, j);
}

/* ---- offers --------------------------------------------------------------- */

/* Read rules, time, color, rated into o.  0, or -1 with an error sent. */
static int offer_terms(struct conn *c, json_t *id, json_t *req, struct offer *o)
{
	const char *rules = json_string_value(json_object_get(req, "rules"));
	o->rs = rules ? ruleset_find(rules) : ruleset_default();
	if (!o->rs) {
		char names[RULESET_NAMES_MAX];
		ruleset_names(names, sizeof names);
		dispatch_error(c, id, PE_BAD_REQUEST, "unknown rule set (%s)", names);
		return -1;
	}
	const char *color = json_string_value(json_object_get(req, "color"));
	if (!color || strcmp(color, "random") == 0)
		o->color = COLOR_RANDOM;
	else if (strcmp(color, "white") == 0)
		o->color = WHITE;
	else if (strcmp(color, "black") == 0)
		o->color = BLACK;
	else {
		dispatch_error(c, id, PE_BAD_REQUEST, "color must be white, black or random");
		return -1;
	}
	o->rated = json_is_true(json_object_get(req, "rated"));
	json_t *rmin = json_object_get(req, "rating_min"), *rmax = json_object_get(req, "rating_max");
	o->rating_min = rmin ? (int)json_integer_value(rmin) : 0;
	o->rating_max = rmax ? (int)json_integer_value(rmax) : (rmin ? LOBBY_RATING_MAX : 0);
	if (o->rating_min > o->rating_max) {
		dispatch_error(c, id, PE_BAD_REQUEST, "rating_min is above rating_max");
		return -1;
	}

	json_t *t = json_object_get(req, "time");
	o->base_ms = o->inc_ms = o->days = 0;
	if (!t || json_is_null(t))
		return 0;
	if (!json_is_object(t))
		goto bad;
	const char *key;
	json_t *v;
	json_object_foreach(t, key, v) {
		if (strcmp(key, "base") == 0 && json_is_number(v)) {
			double s = json_number_value(v);
			if (!(s > 0) || s * 1000 > (double)CLOCK_BASE_MAX_MS)
				goto bad;
			o->base_ms = llround(s * 1000);
			if (o->base_ms < CLOCK_BASE_MIN_MS)
				goto bad;
		} else if (strcmp(key, "inc") == 0 && json_is_number(v)) {
			double s = json_number_value(v);
			if (!(s >= 0) || s * 1000 > (double)CLOCK_INC_MAX_MS)
				goto bad;
			o->inc_ms = llround(s * 1000);
		} else if (strcmp(key, "days") == 0 && json_is_integer(v)) {
			json_int_t d = json_integer_value(v);
			if (d < 1 || d > CLOCK_DAYS_MAX)
				goto bad;
			o->days = d;
		} else {
			goto bad;
		}
	}
	if (o->days > 0 ? (o->base_ms || o->inc_ms) : (o->base_ms == 0 && o->inc_ms == 0))
		goto bad;
	if (o->days == 0 && o->base_ms == 0)
		goto bad;   /* an increment without a base */
	return 0;
bad:
	dispatch_error(c, id, PE_BAD_REQUEST,
	               "time must be {\"base\":s,\"inc\":s} (base 1..86400 s, inc 0..600 s) or {\"days\":n} "
	               "(1..60)");
	return -1;
}

/* A new offer owned by the connection's user, its terms unset, or NULL
 * with an error sent (the user's own limit; the lobby's is lobby_full's). */
static struct offer *offer_alloc(struct conn *c, json_t *id)
{
	struct lobby *l = conn_server(c)->lobby;
	int64_t uid = conn_user(c);
	lobby_sweep(l, 0);
	size_t mine = 0;
	const struct offer *x;
	TAILQ_FOREACH(x, &l->offers, link)
		mine += x->owner == uid;
	if (mine >= LOBBY_OFFERS_PER_USER) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION,
		               "you have %d open offers, the most one user may have: cancel one first",
		               LOBBY_OFFERS_PER_USER);
		return NULL;
	}
	struct offer *o = xcalloc(1, sizeof *o);
	o->owner = uid;
	o->made_ms = mstime_wall();
	snprintf(o->owner_name, sizeof o->owner_name, "%s", conn_user_name(c));
	snprintf(o->made_from, sizeof o->made_from, "%s", conn_limit_host(c));
	return o;
}

/* A new offer on the request's terms, or NULL with an error sent. */
/* Rated games are registered accounts' (as on FICS): a guest comes and
 * goes with a session, and its ratings would fill the club's standings. */
static bool guest_rated(struct conn *c, json_t *id, bool rated, const char *name, bool guest)
{
	if (!rated || !guest)
		return false;
	dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s is a guest: rated games are for registered accounts",
	               name);
	return true;
}

static struct offer *offer_new(struct conn *c, json_t *id, json_t *req)
{
	struct offer *o = offer_alloc(c, id);
	if (o && (offer_terms(c, id, req, o) != 0 ||
	          guest_rated(c, id, o->rated, conn_user_name(c), auth_is_guest_name(conn_user_name(c))))) {
		free(o);
		return NULL;
	}
	return o;
}

/* Offer o, made, would be listed while the lobby has no room for it:
 * refused (true), o freed and the answer sent.  The lobby's own refusal,
 * not the user's 16: its offers, or (o waiting for its owner, offer_waits)
 * the half of them that may wait, are taken.  A seek that meets another
 * is not listed, so it is never refused here. */
static bool lobby_full(struct conn *c, json_t *id, struct offer *o)
{
	struct lobby *l = conn_server(c)->lobby;
	if (l->noffers >= l->max_offers)
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "the lobby is full (%zu open offers); try again later",
		               l->max_offers);
	else if (offer_waits(o) && l->nwaiting >= l->max_offers / LOBBY_WAITING_SHARE)
		dispatch_error(c, id, PE_ILLEGAL_ACTION,
		               "the lobby is full: its %zu places for correspondence offers that wait for "
		               "their owners are taken; try again later, or offer a timed game",
		               l->max_offers / LOBBY_WAITING_SHARE);
	else
		return false;
	free(o);
	return true;
}

static void offer_link(struct lobby *l, struct offer *o)
{
	/* Append, so listings show the oldest first. */
	TAILQ_INSERT_TAIL(&l->offers, o, link);
	l->noffers++;
	l->nwaiting += offer_waits(o);
}

/*
 * o, made, gets its id and joins the lobby (and the store, if it waits):
 * 0, or -1 with o freed and nothing changed.  An id is never given twice,
 * a restart between: a number a player still holds (`accept 5`) must not
 * name another offer.  The store keeps a mark above every id given, moved
 * a block at a time (one write in LOBBY_ID_BLOCK offers), and a restart
 * starts there.
 */
static int offer_add(struct lobby *l, struct offer *o)
{
	o->id = l->next_id;
	if (o->id >= l->id_reserved) {
		if (store_state_set(l->srv->store, LOBBY_IDS_KEY, o->id + LOBBY_ID_BLOCK) != STORE_OK) {
			log_warnx("offer ids could not be reserved: %s", store_error(l->srv->store));
			free(o);
			return -1;
		}
		l->id_reserved = o->id + LOBBY_ID_BLOCK;
	}
	if (offer_store(l, o) != 0) {
		free(o);
		return -1;
	}
	if (++l->next_id > LOBBY_OFFER_ID_MAX)
		l->next_id = 1;
	offer_link(l, o);
	return 0;
}

/* One waiting offer read from the store at start. */
static int offer_loaded(const struct store_offer *row, void *arg)
{
	struct lobby *l = arg;
	const struct ruleset *rs = ruleset_find(row->rules);
	if (!rs || l->noffers >= l->max_offers || row->id <= 0 || row->id >= LOBBY_OFFER_ID_MAX) {
		log_warnx("offer=%lld in the store is not restored (rules %s)", (long long)row->id,
		          row->rules);
		return 0;
	}
	struct offer *o = xcalloc(1, sizeof *o);
	o->id = row->id;
	o->owner = row->owner;
	o->target = row->target;
	snprintf(o->owner_name, sizeof o->owner_name, "%.*s", PROTO_NAME_MAX, row->owner_name);
	snprintf(o->target_name, sizeof o->target_name, "%.*s", PROTO_NAME_MAX, row->target_name);
	o->rs = rs;
	o->days = row->days;
	o->color = strcmp(row->color, "white") == 0 ? WHITE :
	           strcmp(row->color, "black") == 0 ? BLACK : COLOR_RANDOM;
	o->rated = row->rated != 0;
	o->rating_min = row->rating_min;
	o->rating_max = row->rating_max;
	o->rematch = row->rematch;
	o->made_ms = row->made_ms;
	o->stored = true;
	offer_link(l, o);
	if (o->id >= l->next_id)
		l->next_id = o->id + 1;
	return 0;
}

int lobby_load(struct lobby *l)
{
	int64_t mark = 0;
	if (store_state_get(l->srv->store, LOBBY_IDS_KEY, &mark) == STORE_ERROR) {
		log_warnx("offer ids could not be read: %s", store_error(l->srv->store));
		return -1;
	}
	if (mark > l->next_id && mark < LOBBY_OFFER_ID_MAX)
		l->next_id = mark;
	if (store_offers_list(l->srv->store, offer_loaded, l) != STORE_OK) {
		log_warnx("waiting offers could not be read: %s", store_error(l->srv->store));
		return -1;
	}
	/* An account disabled while the daemon was down (`kriegd user`). */
	lobby_users_changed(l->srv);
	if (l->noffers > 0)
		log_info("waiting offers restored: %zu", l->noffers);
	return 0;
}

void lobby_muted(struct server *srv, int64_t uid, int64_t owner, bool mute)
{
	struct lobby *l = srv->lobby;
	if (l == NULL)
		return;
	struct offer *o;
	TAILQ_FOREACH(o, &l->offers, link) {
		if (o->target != uid || o->owner != owner)
			continue;
		json_t *j;
		if (mute) {
			j = json_pack("{s:s, s:I, s:s}", "event", "challenge_cancelled", "offer",
			              (json_int_t)o->id, "reason", "muted");
		} else {
			j = offer_json(srv, o);
			json_object_set_new(j, "event", json_string("challenge"));
		}
		conn_send_user(srv, uid, j);
	}
}

void lobby_users_changed(struct server *srv)
{
	struct lobby *l = srv->lobby;
	if (l == NULL)
		return;
	/* The owners' accounts are read in one read transaction, once for a
	 * run of one owner's offers: this runs at every wire passwd, and a
	 * read outside a transaction takes the WAL's locks each time (some
	 * 6 us: 0.4 s for a full lobby, measured in seek_match).  The offers
	 * found are closed after it, which writes. */
	int64_t *gone = NULL, last = 0;
	size_t ngone = 0, capgone = 0;
	bool off = false, snapshot = store_begin_read(srv->store) == STORE_OK;
	const struct offer *x;
	TAILQ_FOREACH(x, &l->offers, link) {
		if (x->owner != last) {
			last = x->owner;
			off = auth_user_role(srv, x->owner) == AUTH_ROLE_NONE;
		}
		if (off) {
			gone = xgrow(gone, &capgone, ngone + 1, sizeof *gone, 16);
			gone[ngone++] = x->id;
		}
	}
	if (snapshot)
		store_commit(srv->store);
	for (size_t i = 0; i < ngone; i++) {
		struct offer *o = offer_find(l, gone[i]);
		if (o == NULL)
			continue;
		log_info("offer=%lld goes: its owner's account is disabled", (long long)o->id);
		(void)offer_close(l, o, hidden_from(srv, o, o->target) ? 0 : o->target,
		                  json_pack("{s:s, s:I}", "event", "challenge_cancelled", "offer",
		                            (json_int_t)o->id), NULL);
	}
	free(gone);
}

static void offer_take(struct conn *c, json_t *id, struct offer *o, int taker_color);

static int live_games_max(const struct server *srv)
{
	return srv->cfg ? srv->cfg->max_live_games : LIVE_GAMES_MAX_DEFAULT;
}

/* An open seek that `mine` (a seek not yet made) meets, the oldest: the
 * same rule set, time control and ratedness, colours that fit, each owner
 * within the other's rating range, not both bot accounts.  Mutes do not
 * count: a seek is open to anyone, whom `accept` does not ask about mutes
 * either, and a seek left unmet for a mute would tell its owner of it. */
static struct offer *seek_match(struct server *srv, const struct offer *mine)
{
	/* A seeker, or an owner, at max_live_games can start no game now
	 * (live_games_full): the seek is listed, whether another would have
	 * met it or not (it was refused when one did: probe). */
	if (games_user_count(srv->games, mine->owner) >= live_games_max(srv))
		return NULL;
	/* The store is read for an offer on the seek's own terms only, and
	 * then as little as it can be: the seeker's bot flag and rating once,
	 * an owner's rating once for a run of their offers, all in one read
	 * transaction (a read outside one takes the WAL's locks each time).  A
	 * full lobby of seeks on these terms whose owners are outside the
	 * seeker's range was 0.4 s a seek, a read and its locks per offer. */
	int mine_bot = -1, mine_rating = -2;   /* not read yet (a rating unreadable: -1) */
	int64_t last_owner = 0;
	int last_rating = -1;
	bool snapshot = false;
	struct offer *o;
	TAILQ_FOREACH(o, &srv->lobby->offers, link) {
		if (o->target || o->owner == mine->owner || o->rs != mine->rs || o->base_ms != mine->base_ms ||
		    o->inc_ms != mine->inc_ms || o->days != mine->days || o->rated != mine->rated)
			continue;
		if (o->color != COLOR_RANDOM && mine->color != COLOR_RANDOM && o->color == mine->color)
			continue;
		if (games_user_count(srv->games, o->owner) >= live_games_max(srv))
			continue;
		if (!snapshot)
			snapshot = store_begin_read(srv->store) == STORE_OK;
		/* Each owner within the other's range (rating_max 0: anyone); a
		 * rating that cannot be read (-1) is outside. */
		if (o->rating_max > 0) {
			if (mine_rating == -2)
				mine_rating = club_rating_of(srv, mine->owner, mine->rs->name);
			if (mine_rating < o->rating_min || mine_rating > o->rating_max)
				continue;
		}
		if (mine_bot < 0)
			mine_bot = auth_user_is_bot(srv, mine->owner);
		if (mine_bot && auth_user_is_bot(srv, o->owner))
			continue;   /* two computers' seeks: no game that nobody asked for */
		if (mine->rating_max == 0)
			break;   /* anyone may meet this seek */
		if (o->owner != last_owner) {
			last_owner = o->owner;
			last_rating = club_rating_of(srv, o->owner, o->rs->name);
		}
		if (last_rating >= mine->rating_min && last_rating <= mine->rating_max)
			break;
	}
	if (snapshot)
		store_commit(srv->store);   /* before the game is started, which writes */
	return o;
}

/* seek: met by an open seek, the game starts at once, as if the seeker
 * had accepted it (FICS's matching); else it is listed. */
static void cmd_seek(struct conn *c, json_t *id, json_t *req)
{
	struct offer *o = offer_new(c, id, req);
	if (!o)
		return;
	struct offer *met = seek_match(conn_server(c), o);
	if (met) {
		int color = o->color;
		free(o);
		offer_take(c, id, met, color);
		return;
	}
	if (lobby_full(c, id, o))
		return;
	if (offer_add(conn_server(c)->lobby, o) != 0) {   /* a correspondence seek waits: stored */
		dispatch_error(c, id, PE_STORAGE, "the seek could not be stored");
		return;
	}
	json_int_t oid = o->id;
	dispatch_ok(c, id, json_pack("{s:I}", "offer", oid));
	lobby_push_seek(conn_server(c)->lobby, o);
}

/* The offers a user is shown; only a page of them is built (each reads
 * its owner's bot flag and rating). */
struct shown {
	struct server *srv;
	const struct offer **v;
	size_t n, cap;
};

static json_t *shown_item(size_t i, void *arg)
{
	const struct shown *sh = arg;

	return offer_json(sh->srv, sh->v[i]);
}

static void cmd_seeks(struct conn *c, json_t *id, json_t *req)
{
	struct shown sh = { .srv = conn_server(c) };
	struct lobby *l = sh.srv->lobby;
	int64_t uid = conn_user(c);
	lobby_sweep(l, 0);
	/* Open seeks, and the challenges this user made or received. */
	const struct offer *o;
	TAILQ_FOREACH(o, &l->offers, link)
		if (!o->target || o->owner == uid || (o->target == uid && !hidden_from(sh.srv, o, uid))) {
			sh.v = xgrow(sh.v, &sh.cap, sh.n + 1, sizeof *sh.v, 64);
			sh.v[sh.n++] = o;
		}
	json_t *j = page_in_snapshot(sh.srv, req, "offers", sh.n, shown_item, &sh);
	free(sh.v);
	dispatch_ok(c, id, j);
}

/* Offer o, made, to user `target` (named `name`): listed, and told to every connection of theirs. */
static void offer_challenge(struct conn *c, json_t *id, struct offer *o, int64_t target,
                            const char *name)
{
	struct server *srv = conn_server(c);
	o->target = target;
	snprintf(o->target_name, sizeof o->target_name, "%.*s", PROTO_NAME_MAX, name);
	/* A bot takes every challenge it is sent, charging this address
	 * (games_per_hour; a bot's own challenge to a bot, nothing): one past
	 * it is refused now, not left standing for the bot's accept to be
	 * refused unseen (a review). */
	if (auth_user_is_bot(srv, target) &&
	    auth_games_refused(c, id, auth_user_is_bot(srv, conn_user(c)) ? NULL : conn_limit_host(c))) {
		free(o);
		return;
	}
	if (lobby_full(c, id, o))
		return;
	if (offer_add(srv->lobby, o) != 0) {
		dispatch_error(c, id, PE_STORAGE, "the challenge could not be stored");
		return;
	}
	if (!hidden_from(srv, o, target)) {
		json_t *ev = offer_json(srv, o);
		json_object_set_new(ev, "event", json_string("challenge"));
		conn_send_user(srv, o->target, ev);
	}
	dispatch_ok(c, id, json_pack("{s:I}", "offer", (json_int_t)o->id));
}

static void cmd_challenge(struct conn *c, json_t *id, json_t *req)
{
	/* Names are unique regardless of case: look the account up
	 * case-insensitively (guests have rows too) and name it as it was
	 * registered, whatever spelling the challenger typed. */
	/* The terms first: a bad one is said whoever is named (it was
	 * answered no_such_user for an unknown name: hostile-input probe). */
	struct offer *o = offer_new(c, id, req);
	if (o == NULL)
		return;
	struct store_user u;
	if (auth_find_user(c, id, json_string_value(json_object_get(req, "user")), &u) != 0) {
		free(o);
		return;
	}
	if (u.id == conn_user(c)) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "you cannot challenge yourself");
		free(o);
	} else if (guest_rated(c, id, o->rated, u.name, u.guest)) {
		free(o);
	} else {
		offer_challenge(c, id, o, u.id, u.name);
	}
}

/* The offer named by the request, if this user may see it; else an error is sent. */
static struct offer *offer_visible(struct conn *c, json_t *id, json_t *req)
{
	struct lobby *l = conn_server(c)->lobby;
	int64_t uid = conn_user(c);
	lobby_sweep(l, 0);
	struct offer *o = offer_find(l, json_integer_value(json_object_get(req, "offer")));
	if (!o || (o->target && o->target != uid && o->owner != uid)) {
		dispatch_error(c, id, PE_NO_SUCH_OFFER, "no such offer");
		return NULL;
	}
	return o;
}

/* A game between white and black would take one of them past the
 * server's max_live_games: refused (illegal_action), naming whose.  One
 * account's live games are held in memory and reloaded at every start,
 * and an untimed game both players left stays live (untimed_abandon_grace
 * is never by default): 400 made in two seconds by two accounts stayed
 * for good (probe). */
static bool live_games_full(struct conn *c, json_t *id, const int64_t user[2], const char *const name[2])
{
	struct server *srv = conn_server(c);
	int max = live_games_max(srv);
	for (int col = WHITE; col <= BLACK; col++) {
		if (games_user_count(srv->games, user[col]) < max)
			continue;
		const char *games = max == 1 ? "game" : "games";
		if (user[col] == conn_user(c))
			dispatch_error(c, id, PE_ILLEGAL_ACTION,
			               "you play %d live %s already (the server's max_live_games): finish one first",
			               max, games);
		else
			dispatch_error(c, id, PE_ILLEGAL_ACTION,
			               "%s plays %d live %s already (the server's max_live_games)", name[col], max, games);
		return true;
	}
	return false;
}

/* o, a challenge to c's user, declined with reason (NULL: none): the
 * challenger told (challenge_declined), the user's other connections
 * (challenge_cancelled).  0, or -1 if it could not be (storage): it stands. */
static int challenge_decline(struct conn *c, struct offer *o, const char *reason)
{
	struct server *srv = conn_server(c);
	json_int_t oid = o->id;
	bool shown = !hidden_from(srv, o, o->target);
	json_t *ev = json_pack("{s:s, s:I, s:s}", "event", "challenge_declined", "offer", oid, "by",
	                       conn_user_name(c));
	if (reason != NULL)
		json_object_set_new(ev, "reason", json_string(reason));
	if (offer_close(srv->lobby, o, o->owner, ev, "declined") != 0)
		return -1;
	if (shown)
		challenge_answered(srv, c, oid, "declined", 0);
	return 0;
}

/* The connection's user takes offer o (checked): the game starts, and the
 * offer goes.  taker_color: the colour the taker asked for (a seek that
 * met o), or COLOR_RANDOM. */
static void offer_take(struct conn *c, json_t *id, struct offer *o, int taker_color)
{
	struct server *srv = conn_server(c);
	int64_t uid = conn_user(c);
	int owner_color = o->color;
	if (owner_color == COLOR_RANDOM && taker_color != COLOR_RANDOM)
		owner_color = !taker_color;
	if (owner_color == COLOR_RANDOM) {
		unsigned char r = 0;
		arc4random_buf(&r, 1);
		owner_color = r & 1 ? BLACK : WHITE;
	}
	int64_t white = owner_color == WHITE ? o->owner : uid;
	int64_t black = owner_color == WHITE ? uid : o->owner;
	if (live_games_full(c, id, (const int64_t[2]){ white, black },
	                    (const char *const[2]){ owner_color == WHITE ? o->owner_name : conn_user_name(c),
	                                            owner_color == WHITE ? conn_user_name(c) : o->owner_name }))
		return;
	/* games_per_hour: the taker's address (two guests of one address
	 * started 46 games a second, each kept for good: the exhaustion probe). */
	const char *payer = auth_games_payer(c, o->owner, o->made_from);
	if (auth_games_refused(c, id, payer)) {
		/* A challenge a bot took that its owner's address may not start
		 * now (it was under games_per_hour when made) is declined for the
		 * bot, saying why: it stood unanswered (the bot probe). */
		if (o->target == uid && payer != conn_limit_host(c))
			(void)challenge_decline(c, o, "too many games started from your address this hour; try again later");
		return;
	}
	int64_t game = 0;
	/* A stored challenge leaves the store first: one that outlived its
	 * game in the store would come back at a restart to be taken twice. */
	if (offer_unstore(srv->lobby, o) != 0) {
		dispatch_error(c, id, PE_STORAGE, "the offer could not be taken; it stands");
		return;
	}
	if (games_start(srv, white, black, o->rs->name, o->base_ms, o->inc_ms, o->days, o->rated, NULL,
	                NULL, &game) != 0) {
		(void)offer_store(srv->lobby, o);
		dispatch_error(c, id, PE_STORAGE, "the game could not be created; the offer stands");
		return;
	}
	auth_game_started(c, payer);
	json_int_t oid = o->id;
	/* A challenge taken by its target (accept, or a rematch asked back). */
	bool shown = o->target == uid && !hidden_from(srv, o, uid);
	offer_remove(srv->lobby, o);
	if (shown)
		challenge_answered(srv, c, oid, "accepted", game);
	dispatch_ok(c, id, json_pack("{s:I, s:I}", "offer", oid, "game", (json_int_t)game));
}

static void cmd_accept(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct offer *o = offer_visible(c, id, req);
	if (!o)
		return;
	int64_t uid = conn_user(c);
	if (o->owner == uid) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "you cannot accept your own offer");
		return;
	}
	if (guest_rated(c, id, o->rated, conn_user_name(c), auth_is_guest_name(conn_user_name(c))))
		return;
	if (o->rating_max > 0) {
		int mine = club_rating_of(srv, uid, o->rs->name);
		if (mine < 0) {
			dispatch_error(c, id, PE_STORAGE, "your rating could not be read");
			return;
		}
		if (mine < o->rating_min || mine > o->rating_max) {
			dispatch_error(c, id, PE_ILLEGAL_ACTION,
			               "your rating %d is outside this seek's range %d..%d", mine,
			               o->rating_min, o->rating_max);
			return;
		}
	}
	offer_take(c, id, o, COLOR_RANDOM);
}

/*
 * rematch {game}: a challenge to the other player of a finished game on its
 * terms (rules, time, rated), colours swapped.  Asked twice, the offer
 * stands once; asked by both, the second request takes the first one's
 * challenge and the game starts, as an accept would.
 */
static void cmd_rematch(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	int64_t uid = conn_user(c);
	int64_t gid = json_integer_value(json_object_get(req, "game"));
	struct store_game info;
	switch (games_finished_of(srv, gid, uid, &info)) {
	case GAME_DONE:
		break;
	case GAME_PLAYING:
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "the game is not over");
		return;
	case GAME_FLAGGED:   /* the refusals probe: it said "not over", as if played on */
		dispatch_error(c, id, PE_FLAGGED, GAME_FLAGGED_SAY);
		return;
	case GAME_UNREADABLE:
		dispatch_error(c, id, PE_STORAGE, "the game could not be read");
		return;
	default:
		dispatch_error(c, id, PE_NO_SUCH_GAME, "no such game");
		return;
	}
	int64_t other = info.white == uid ? info.black : info.white;
	struct offer *o;
	TAILQ_FOREACH(o, &srv->lobby->offers, link) {
		if (o->rematch != gid)
			continue;
		if (o->owner == uid) {
			dispatch_ok(c, id, json_pack("{s:I}", "offer", (json_int_t)o->id));
			return;
		}
		if (o->owner == other && o->target == uid) {
			offer_take(c, id, o, COLOR_RANDOM);
			return;
		}
	}
	char name[PROTO_NAME_MAX + 1];
	const struct ruleset *rs = ruleset_find(info.rules);
	int st = store_user_name(srv->store, other, name, sizeof name);
	if (!rs || st != STORE_OK) {
		dispatch_error(c, id, PE_STORAGE, "the game could not be read");
		return;
	}
	if ((o = offer_alloc(c, id)) == NULL)
		return;
	o->rs = rs;
	o->base_ms = info.base_ms;
	o->inc_ms = info.inc_ms;
	o->days = info.days;
	o->color = info.white == uid ? BLACK : WHITE;
	o->rated = info.rated != 0;
	o->rematch = gid;
	offer_challenge(c, id, o, other, name);
}

/* The registered spelling and id of account `field`'s name, for a
 * pairing; else an error is sent and -1 returned.  A registered account
 * online or not: one not online is away from the game's start, and a
 * timed game abandons it as it does one who left, so that a tournament's
 * no-show forfeits (only online accounts could be paired, and a no-show's
 * result could not be recorded: the tournament probe).  A guest only
 * online (one who left may never come back), a disabled account never. */
static int64_t pair_user(struct conn *c, json_t *id, json_t *req, const char *field,
                         struct store_user *u)
{
	struct server *srv = conn_server(c);
	if (auth_find_user(c, id, json_string_value(json_object_get(req, field)), u) != 0)
		return -1;
	if (u->disabled) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s is disabled", u->name);
		return -1;
	}
	if (u->guest && conn_of_user(srv, u->id, NULL) == NULL) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s is not online (a guest)", u->name);
		return -1;
	}
	return u->id;
}

/* pair's tournament (a person's words, as chat's) and round
 * (proto_round_ok) into the two buffers, "" when not given; -1 with the
 * refusal sent.  The field table has bounded their lengths. */
static int pair_tags(struct conn *c, json_t *id, json_t *req, char *tournament, char *round)
{
	const char *t = json_string_value(json_object_get(req, "tournament"));
	const char *r = json_string_value(json_object_get(req, "round"));
	tournament[0] = round[0] = '\0';
	if (t && !proto_tournament_name(t, tournament, PROTO_TOURNAMENT_MAX + 1)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "tournament: " TEXT_RULE, PROTO_TOURNAMENT_MAX);
		return -1;
	}
	if (r && !proto_round_ok(r)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "round: digits and dots, as \"3\" or \"2.1\"");
		return -1;
	}
	snprintf(round, PROTO_ROUND_MAX + 1, "%s", r ? r : "");
	return 0;
}

/*
 * pair {white, black, rules, time, rated, tournament, round}: a
 * tournament director (an umpire or admin) starts a game between two
 * accounts (pair_user: registered ones online or not), on the terms
 * given, as an accepted offer would;
 * each is told who paired them (a notice after their game_start).
 */
static void cmd_pair(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct store_user u[2];
	if (pair_user(c, id, req, "white", &u[WHITE]) < 0 || pair_user(c, id, req, "black", &u[BLACK]) < 0)
		return;
	if (u[WHITE].id == u[BLACK].id) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "a player cannot be paired with themselves");
		return;
	}
	struct offer o = { 0 };
	char tournament[PROTO_TOURNAMENT_MAX + 1], round[PROTO_ROUND_MAX + 1];
	if (offer_terms(c, id, req, &o) != 0 || pair_tags(c, id, req, tournament, round) != 0 ||
	    guest_rated(c, id, o.rated, u[WHITE].name, u[WHITE].guest) ||
	    guest_rated(c, id, o.rated, u[BLACK].name, u[BLACK].guest) ||
	    live_games_full(c, id, (const int64_t[2]){ u[WHITE].id, u[BLACK].id },
	                    (const char *const[2]){ u[WHITE].name, u[BLACK].name }))
		return;
	/* A player on the clock is not paired into a second game on the
	 * clock: two clocks would run for one person.  Untimed and
	 * correspondence games, old or new, do not count: nothing runs out
	 * while the player is elsewhere.  The director sees live games anyway
	 * (`live`, the umpire's chair): the id tells nothing new. */
	for (int col = WHITE; col <= BLACK && (o.base_ms > 0 || o.inc_ms > 0) && o.days == 0; col++) {
		int64_t busy = games_user_on_clock(srv->games, u[col].id);
		if (busy) {
			dispatch_error(c, id, PE_ILLEGAL_ACTION,
			               "%s is playing game %lld on the clock: pair them when it ends",
			               u[col].name, (long long)busy);
			return;
		}
	}
	/* One tournament, one spelling: "club open" after "Club Open" was
	 * kept as typed, and the two games' PGNs named two events (TD probe). */
	char spelled[PROTO_TOURNAMENT_MAX + 1];
	if (tournament[0] && store_tournament_spelling(srv->store, tournament, spelled, sizeof spelled) == STORE_OK)
		snprintf(tournament, sizeof tournament, "%s", spelled);
	int64_t game = 0;
	if (games_start(srv, u[WHITE].id, u[BLACK].id, o.rs->name, o.base_ms, o.inc_ms, o.days, o.rated,
	                tournament, round, &game) != 0) {
		dispatch_error(c, id, PE_STORAGE, "the game could not be created");
		return;
	}
	log_info("conn=%llu user=%s action=pair game=%lld white=%s black=%s rules=%s",
	         (unsigned long long)conn_id(c), conn_user_name(c), (long long)game, u[WHITE].name,
	         u[BLACK].name, o.rs->name);
	for (int col = WHITE; col <= BLACK; col++) {
		char text[160];
		snprintf(text, sizeof text, "you are paired: game %lld, %s against %s", (long long)game,
		         col == WHITE ? "White" : "Black", u[!col].name);
		conn_send_user(srv, u[col].id, json_pack("{s:s, s:s, s:s, s:I}", "event", "notice", "from",
		                                         conn_user_name(c), "text", text, "game",
		                                         (json_int_t)game));
	}
	/* the tournament (as the club spells it) and the round it was paired
	 * in, said back: a director's words may have put them elsewhere */
	json_t *ok = json_pack("{s:I}", "game", (json_int_t)game);
	if (tournament[0])
		json_object_set_new(ok, "tournament", json_string(tournament));
	if (round[0])
		json_object_set_new(ok, "round", json_string(round));
	dispatch_ok(c, id, ok);
}

/*
 * decline {offer, reason?}: the target says no to a challenge.  The
 * reason, a person's words, is taken as chat's text is (text_words, then
 * action_umpire_text's trimmed, one-spaced form) and goes with the
 * challenger's live event only: the news kept for an away owner
 * (offer_retire) stores no reason.  A malformed one changes nothing.
 */
static void cmd_decline(struct conn *c, json_t *id, json_t *req)
{
	const char *why = json_string_value(json_object_get(req, "reason"));
	char reason[ACTION_REASON_MAX + 1];
	if (why != NULL && action_text_in(why, reason, sizeof reason) != REF_OK) {
		dispatch_error(c, id, PE_BAD_REQUEST, "reason: " TEXT_RULE, ACTION_REASON_MAX);
		return;
	}
	struct offer *o = offer_visible(c, id, req);
	if (!o)
		return;
	if (o->target != conn_user(c)) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "only a challenge to you can be declined");
		return;
	}
	json_int_t oid = o->id;
	if (challenge_decline(c, o, why != NULL ? reason : NULL) != 0) {
		dispatch_error(c, id, PE_STORAGE, "the challenge could not be declined; it stands");
		return;
	}
	dispatch_ok(c, id, json_pack("{s:I}", "offer", oid));
}

/* cancel without an offer: the user's only open offer. */
static struct offer *offer_only(struct conn *c, json_t *id)
{
	struct offer *mine = NULL, *o;
	size_t n = 0;
	TAILQ_FOREACH(o, &conn_server(c)->lobby->offers, link)
		if (o->owner == conn_user(c)) {
			mine = o;
			n++;
		}
	if (n == 0)
		dispatch_error(c, id, PE_NO_SUCH_OFFER, "you have no open offer");
	else if (n > 1)
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "you have %zu open offers: name the one to cancel", n);
	return n == 1 ? mine : NULL;
}

static void cmd_cancel(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct offer *o = json_object_get(req, "offer") ? offer_visible(c, id, req) : offer_only(c, id);
	if (!o)
		return;
	if (o->owner != conn_user(c)) {
		dispatch_error(c, id, PE_NO_SUCH_OFFER, "no such offer");
		return;
	}
	json_int_t oid = o->id;
	if (offer_close(srv->lobby, o, hidden_from(srv, o, o->target) ? 0 : o->target,
	                json_pack("{s:s, s:I}", "event", "challenge_cancelled", "offer", oid), NULL) != 0) {
		dispatch_error(c, id, PE_STORAGE, "the offer could not be cancelled; it stands");
		return;
	}
	dispatch_ok(c, id, json_pack("{s:I}", "offer", oid));
}

/* lobby_watch {from?}: pushed seeks from now on, and the open ones now (the seeks reply). */
static void cmd_lobby_watch(struct conn *c, json_t *id, json_t *req)
{
	struct lobby *l = conn_server(c)->lobby;
	bool known = false;
	for (size_t i = 0; i < l->nwatchers; i++)
		known |= l->watchers[i] == conn_id(c);
	if (!known) {
		if (l->nwatchers == LOBBY_WATCHERS_MAX) {
			dispatch_error(c, id, PE_BUSY, "too many connections watch the lobby; try later");
			return;
		}
		l->watchers = xgrow(l->watchers, &l->capwatchers, l->nwatchers + 1, sizeof *l->watchers, 16);
		l->watchers[l->nwatchers++] = conn_id(c);
	}
	cmd_seeks(c, id, req);
}

static void cmd_lobby_unwatch(struct conn *c, json_t *id, json_t *req)
{
	struct lobby *l = conn_server(c)->lobby;
	for (size_t i = 0; i < l->nwatchers; i++)
		if (l->watchers[i] == conn_id(c)) {
			l->watchers[i] = l->watchers[--l->nwatchers];
			break;
		}
	dispatch_ok(c, id, NULL);
}

static const struct field f_list[] = {
	{ "from", F_INT, 0, DISPATCH_FROM_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_seek[] = {
	{ "rules", F_STRING, 0, LOBBY_RULES_MAX },
	{ "time", F_OBJECT, 0, 0 },
	{ "color", F_STRING, 0, 8 },
	{ "rated", F_BOOL, 0, 0 },
	{ "rating_min", F_INT, 0, LOBBY_RATING_MAX },
	{ "rating_max", F_COUNT, 0, LOBBY_RATING_MAX },   /* 0 would admit nobody */
	{ NULL, 0, 0, 0 },
};
static const struct field f_challenge[] = {
	{ "user", F_STRING, 1, PROTO_NAME_MAX },
	{ "rules", F_STRING, 0, LOBBY_RULES_MAX },
	{ "time", F_OBJECT, 0, 0 },
	{ "color", F_STRING, 0, 8 },
	{ "rated", F_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct field f_pair[] = {
	{ "white", F_STRING, 1, PROTO_NAME_MAX },
	{ "black", F_STRING, 1, PROTO_NAME_MAX },
	{ "rules", F_STRING, 0, LOBBY_RULES_MAX },
	{ "time", F_OBJECT, 0, 0 },
	{ "rated", F_BOOL, 0, 0 },
	{ "tournament", F_STRING, 0, PROTO_TOURNAMENT_MAX },
	{ "round", F_STRING, 0, PROTO_ROUND_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_offer[] = {
	{ "offer", F_INT, 1, LOBBY_OFFER_ID_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_decline[] = {
	{ "offer", F_INT, 1, LOBBY_OFFER_ID_MAX },
	{ "reason", F_STRING, 0, ACTION_TEXT_IN_MAX },   /* the exact bound is checked after */
	{ NULL, 0, 0, 0 },
};
static const struct field f_rematch[] = {
	{ "game", F_INT, 1, LOBBY_GAME_ID_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_cancel[] = {
	{ "offer", F_INT, 0, LOBBY_OFFER_ID_MAX },   /* absent: the user's only offer */
	{ NULL, 0, 0, 0 },
};
static const struct field f_none[] = {
	{ NULL, 0, 0, 0 },
};

const struct cmd lobby_cmds[] = {
	{ "who", 0, f_list, cmd_who },
	{ "seek", 0, f_seek, cmd_seek },
	{ "seeks", 0, f_list, cmd_seeks },
	{ "challenge", 0, f_challenge, cmd_challenge },
	{ "accept", 0, f_offer, cmd_accept },
	{ "rematch", 0, f_rematch, cmd_rematch },
	{ "pair", CMD_UMPIRE, f_pair, cmd_pair },
	{ "decline", 0, f_decline, cmd_decline },
	{ "cancel", 0, f_cancel, cmd_cancel },
	{ "lobby_watch", 0, f_list, cmd_lobby_watch },
	{ "lobby_unwatch", 0, f_none, cmd_lobby_unwatch },
	{ NULL, 0, NULL, NULL },
};
