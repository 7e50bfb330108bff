/*
 * club.c — see club.h.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "club.h"
#include "conn.h"
#include "dispatch.h"
#include "game.h"
#include "log.h"
#include "proto.h"
#include "rating.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"
#include "text.h"

static json_t *rating_obj(double r, double rd)
{
	struct rating x = { r, rd, RATING_VOL_DEFAULT };
	return json_pack("{s:I, s:I, s:b}", "rating", (json_int_t)lround(r), "rd",
	                 (json_int_t)lround(rd), "provisional", rating_provisional(&x));
}

/* 0 and the rating (fresh if never rated), or -1 (logged). */
static int rating_get(struct server *srv, int64_t user, const char *pool, struct store_rating *out)
{
	int rc = store_rating_get(srv->store, user, pool, out);
	if (rc == STORE_NOT_FOUND) {
		struct rating x = rating_initial();
		out->r = x.r;
		out->rd = x.rd;
		out->vol = x.vol;
		out->games = 0;
		return 0;
	}
	if (rc != STORE_OK) {
		log_warnx("club: reading a rating of user=%lld: %s", (long long)user,
		          store_error(srv->store));
		return -1;
	}
	return 0;
}

json_t *club_rating_json(struct server *srv, int64_t user, const char *rules)
{
	struct store_rating r;
	if (rating_get(srv, user, rating_pool(rules), &r) != 0)
		return NULL;
	return rating_obj(r.r, r.rd);
}

int club_rating_of(struct server *srv, int64_t user, const char *rules)
{
	struct store_rating r;
	if (rating_get(srv, user, rating_pool(rules), &r) != 0)
		return -1;
	return (int)lround(r.r);
}

json_t *club_ratings_json(struct server *srv, int64_t user)
{
	json_t *all = NULL;
	const char *pool;
	for (size_t i = 0; (pool = rating_pool_at(i)) != NULL; i++) {
		struct store_rating r;
		int rc = store_rating_get(srv->store, user, pool, &r);
		if (rc == STORE_NOT_FOUND)
			continue;
		if (rc != STORE_OK) {
			log_warnx("club: reading ratings of user=%lld: %s", (long long)user,
			          store_error(srv->store));
			json_decref(all);
			return NULL;
		}
		if (all == NULL)
			all = json_object();
		json_object_set_new(all, pool, rating_obj(r.r, r.rd));
	}
	return all;
}

/* ---- standings ------------------------------------------------------------ */

/* A page of the table as its rows come (store_standings reads from the
 * page's first row and stops when it is full). */
struct table {
	struct pager pg;   /* pg.n: the row's index in the whole table */
};

static int standings_row(const struct store_rating *r, void *arg)
{
	struct table *t = arg;
	json_t *row = rating_obj(r->r, r->rd);
	json_object_set_new(row, "rank", json_integer((json_int_t)t->pg.n + 1));
	json_object_set_new(row, "name", json_string(r->name));
	json_object_set_new(row, "games", json_integer(r->games));
	if (r->bot)   /* marked as in `who` and the lobby */
		json_object_set_new(row, "bot", json_true());
	pager_take(&t->pg, row);
	return t->pg.closed;
}

/* t ready for the page of the request's `from` (its first row's index in
 * the whole table); the offset the store reads from. */
static int64_t table_begin(struct table *t, json_t *req)
{
	size_t from = dispatch_from(req);
	pager_init(&t->pg, from);
	t->pg.n = from;
	return (int64_t)from;
}

/* A table read by the page (the rows from `from` on, the pager full or
 * the table done; ok: both reads went well) and counted (total): the
 * reply j with its rows under key, or the refusal. */
static void table_reply(struct conn *c, json_t *id, struct table *t, bool ok, int64_t total, json_t *j,
                        const char *key, const char *what)
{
	if (!ok) {
		log_warnx("club: %s: %s", what, store_error(conn_server(c)->store));
		pager_free(&t->pg);
		json_decref(j);
		dispatch_error(c, id, PE_STORAGE, "the %s could not be read", what);
		return;
	}
	/* The whole table's length, counted (a row stored between the two
	 * reads is in one of them only: the next page says). */
	if (!t->pg.closed || (size_t)total > t->pg.n)
		t->pg.n = (size_t)total;
	pager_finish(&t->pg, j, key);
	dispatch_ok(c, id, j);
}

static void cmd_standings(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	const char *rules = json_string_value(json_object_get(req, "rules"));
	const struct ruleset *rs = rules ? ruleset_find(rules) : ruleset_default();
	if (!rs) {
		char names[RULESET_NAMES_MAX];
		ruleset_names(names, sizeof names);
		dispatch_error(c, id, PE_BAD_REQUEST, "unknown rule set (%s)", names);
		return;
	}
	const char *pool = rating_pool(rs->name);
	/* Read by the page, every row of the table reachable (only the first
	 * 1,000 were, and `total` said 1,000: probe). */
	int64_t total = 0;
	struct table t;
	int64_t from = table_begin(&t, req);
	bool ok = store_standings_count(srv->store, pool, &total) == STORE_OK &&
	          store_standings(srv->store, pool, from, standings_row, &t) == STORE_OK;
	table_reply(c, id, &t, ok, total, json_pack("{s:s}", "pool", pool), "standings", "standings");
}

/* ---- a tournament's table ------------------------------------------------ */

static int entrant_row(const struct store_entrant *e, void *arg)
{
	struct table *t = arg;
	json_t *row = json_pack("{s:I, s:s, s:f, s:i, s:i, s:i, s:f, s:f}", "rank", (json_int_t)e->rank, "name",
	                        e->name, "points", e->points2 / 2.0, "won", e->won, "drawn", e->drawn, "lost",
	                        e->lost, "buchholz", e->buchholz2 / 2.0, "sonneborn_berger", e->sb4 / 4.0);
	if (e->playing)
		json_object_set_new(row, "playing", json_integer(e->playing));
	if (e->aborted)
		json_object_set_new(row, "aborted", json_integer(e->aborted));
	if (e->bot)
		json_object_set_new(row, "bot", json_true());
	pager_take(&t->pg, row);
	return t->pg.closed;
}

/*
 * tournament {name, from?}: the score table of the games a director paired
 * with that tournament's name (lobby.c `pair`), across rule sets and rating
 * pools: a win a point, a draw a half, by the page.  Public, as standings
 * are; a name nobody paired has an empty table.
 */
static void cmd_tournament(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	char name[PROTO_TOURNAMENT_MAX + 1];
	/* the name as pair stored it (the same rule) */
	if (!proto_tournament_name(json_string_value(json_object_get(req, "name")), name, sizeof name)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "name: " TEXT_RULE, PROTO_TOURNAMENT_MAX);
		return;
	}
	int64_t total = 0;
	struct table t;
	int64_t from = table_begin(&t, req);
	bool ok = store_tournament_count(srv->store, name, &total) == STORE_OK &&
	          store_tournament(srv->store, name, from, entrant_row, &t) == STORE_OK;
	table_reply(c, id, &t, ok, total, json_pack("{s:s}", "tournament", name), "players",
	            "tournament's table");
}

/* ---- profile -------------------------------------------------------------- */

/*
 * profile {user?}: what the club knows of a player, for anyone logged in
 * (FICS's finger): the name as registered, role, when registered, whether
 * online and in how many games, the finished games counted, the ratings.
 * Never an address, a last login or a disabled flag: those are the
 * admins' (`users`).  Without `user`: oneself.
 */
static void cmd_profile(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	const char *name = json_string_value(json_object_get(req, "user"));
	struct store_user u;
	if (auth_find_user(c, id, name ? name : conn_user_name(c), &u) != 0)
		return;
	struct store_tally t = { 0 };
	if (store_games_tally(srv->store, u.id, &t) != STORE_OK) {
		log_warnx("club: profile: %s", store_error(srv->store));
		dispatch_error(c, id, PE_STORAGE, "the profile could not be read");
		return;
	}
	json_t *j = json_pack("{s:s, s:s, s:I, s:b, s:i, s:{s:I, s:I, s:I, s:I}}", "name", u.name, "role",
	                      u.guest ? "player" : u.role, "registered", (json_int_t)u.created_unix,
	                      "online", conn_of_user(srv, u.id, NULL) != NULL, "games",
	                      games_user_count(srv->games, u.id), "record", "won", (json_int_t)t.won,
	                      "lost", (json_int_t)t.lost, "drawn", (json_int_t)t.drawn, "aborted",
	                      (json_int_t)t.aborted);
	if (u.guest)
		json_object_set_new(j, "guest", json_true());
	if (u.bot)
		json_object_set_new(j, "bot", json_true());
	json_t *r = club_ratings_json(srv, u.id);
	if (r)
		json_object_set_new(j, "ratings", r);
	dispatch_ok(c, id, j);
}

static const struct field f_profile[] = {
	{ "user", F_STRING, 0, PROTO_NAME_MAX },
	{ NULL, 0, 0, 0 },
};

static const struct field f_standings[] = {
	{ "rules", F_STRING, 0, 16 },
	{ "from", F_INT, 0, DISPATCH_FROM_MAX },
	{ NULL, 0, 0, 0 },
};

static const struct field f_tournament[] = {
	{ "name", F_STRING, 1, PROTO_TOURNAMENT_MAX },
	{ "from", F_INT, 0, DISPATCH_FROM_MAX },
	{ NULL, 0, 0, 0 },
};

const struct cmd club_cmds[] = {
	{ "standings", 0, f_standings, cmd_standings },
	{ "tournament", 0, f_tournament, cmd_tournament },
	{ "profile", 0, f_profile, cmd_profile },
	{ NULL, 0, NULL, NULL },
};
