/*
 * follow.c — following players (PROTOCOL.md, "Following"):
 *
 *   follow   {user?}   add a player to this connection's list; without
 *                      `user`, the list
 *   unfollow {user?}   remove one, or (without `user`) all
 *
 * Each game a followed player starts afterwards is told to the connection
 * (`following`: the game's id, players, rule set, whether rated) so that
 * its client may watch it; that is what the public `live` list says of the
 * game, no more, and the seat is still taken by `watch`, under its rules.
 * A connection is never told of a game it plays in.  It is also told
 * when a followed player comes online (`arrived`: their first connection)
 * and goes (`departed`: their last one closed), as `who` would show.
 *
 * A registered account's follows are the account's, as FICS keeps a
 * notify list: kept in the store (schema 18), taken up by each connection
 * at its login (follow_login), changed for all its connections at once.
 * A guest's belongs to its connection (PROTOCOL.md): another connection
 * of the guest (a resume) keeps its own, and none outlives it.  In memory
 * the lists are per connection, like the lobby's watchers: a connection's
 * emptied at its logout or close (games_conn_closed).  Bounded per
 * connection and in all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth.h"
#include "conn.h"
#include "dispatch.h"
#include "game.h"
#include "game_priv.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

#define FOLLOW_PER_CONN 32       /* players one connection follows */
#define FOLLOW_MAX 65536         /* follows held in all */

struct follow {
	uint64_t conn;
	int64_t user;
	char name[PROTO_NAME_MAX + 1];   /* as registered */
};

struct follows {
	struct follow *v;
	size_t n, cap;
};

void follow_free(struct games *gs)
{
	if (gs->follows)
		free(gs->follows->v);
	free(gs->follows);
	gs->follows = NULL;
}

void follow_conn_closed(struct games *gs, uint64_t conn)
{
	struct follows *f = gs->follows;
	size_t k = 0;
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].conn != conn)
			f->v[k++] = f->v[i];
	if (f)
		f->n = k;
}

void follow_game_started(struct games *gs, const struct game *g)
{
	struct follows *f = gs->follows;
	for (size_t i = 0; f && i < f->n; i++) {
		const struct follow *x = &f->v[i];
		if (x->user != g->user[WHITE] && x->user != g->user[BLACK])
			continue;
		struct conn *c = conn_find(gs->srv, x->conn);
		if (c == NULL || conn_user(c) == g->user[WHITE] || conn_user(c) == g->user[BLACK])
			continue;   /* gone (its close empties the list), or a player of it */
		conn_send(c, json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:b}", "event", "following", "user",
		                       x->name, "game", (json_int_t)g->id, "white", g->name[WHITE], "black",
		                       g->name[BLACK], "rules", g->rs->name, "rated", g->info.rated != 0));
	}
}

void follow_presence(struct games *gs, int64_t user, bool online)
{
	struct follows *f = gs->follows;
	for (size_t i = 0; f && i < f->n; i++) {
		const struct follow *x = &f->v[i];
		struct conn *c = x->user == user ? conn_find(gs->srv, x->conn) : NULL;
		if (c != NULL && conn_user(c) != user)
			conn_send(c, json_pack("{s:s, s:s}", "event", online ? "arrived" : "departed", "user",
			                       x->name));
	}
}

/* The live games `user` plays now, by id. */
static json_t *live_games_of(const struct games *gs, int64_t user)
{
	json_t *a = json_array();
	for (const struct game *g = gs->live; g; g = g->next)
		if (g->user[WHITE] == user || g->user[BLACK] == user)
			json_array_append_new(a, json_integer(g->id));
	return a;
}

/* May connection conn follow `user`?  PE_NONE (*known: it does already),
 * or the limit's error code. */
static int follow_check(const struct follows *f, uint64_t conn, int64_t user, bool *known)
{
	size_t mine = 0;
	*known = false;
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].conn == conn) {
			mine++;
			*known |= f->v[i].user == user;
		}
	if (*known)
		return PE_NONE;   /* following twice is following once */
	if (mine >= FOLLOW_PER_CONN)
		return PE_ILLEGAL_ACTION;
	return f && f->n >= FOLLOW_MAX ? PE_BUSY : PE_NONE;
}

/* Connection conn follows `user` (named `name`) from now on, if it does
 * not yet and the limits allow: 0, or the error code (nothing changed). */
static int follow_add(struct games *gs, uint64_t conn, int64_t user, const char *name)
{
	if (!gs->follows)
		gs->follows = xcalloc(1, sizeof *gs->follows);
	struct follows *f = gs->follows;
	bool known;
	int rc = follow_check(f, conn, user, &known);
	if (rc != PE_NONE || known)
		return rc;
	f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v, 16);
	struct follow *x = &f->v[f->n++];
	x->conn = conn;
	x->user = user;
	snprintf(x->name, sizeof x->name, "%.*s", PROTO_NAME_MAX, name);
	return PE_NONE;
}

/* Whether c's account keeps its follows (a registered one; a guest's last a connection). */
static bool follows_kept(struct conn *c)
{
	return !auth_is_guest_name(conn_user_name(c));
}

static int follow_loaded(int64_t followed, const char *name, void *arg)
{
	struct conn *c = arg;
	if (follow_add(conn_server(c)->games, conn_id(c), followed, name) != PE_NONE)
		log_warnx("conn=%llu a kept follow of %s is not taken up (limits)", (unsigned long long)conn_id(c),
		          name);
	return 0;
}

void follow_login(struct games *gs, struct conn *c)
{
	if (follows_kept(c) && store_follows_of(gs->srv->store, conn_user(c), follow_loaded, c) != STORE_OK)
		log_warnx("follows of user=%lld could not be read: %s", (long long)conn_user(c),
		          store_error(gs->srv->store));
}

/*
 * follow {user?}: without user, the connection's list; with it, the user
 * followed from now on by every connection of a registered account, and
 * kept for it (written before the answer) for its next logins; by this
 * connection alone for a guest.
 */
static void cmd_follow(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct games *gs = srv->games;
	const char *name = json_string_value(json_object_get(req, "user"));
	if (name == NULL) {   /* the list */
		json_t *a = json_array();
		for (size_t i = 0; gs->follows && i < gs->follows->n; i++)
			if (gs->follows->v[i].conn == conn_id(c))
				json_array_append_new(a, json_string(gs->follows->v[i].name));
		dispatch_ok(c, id, json_pack("{s:o, s:b}", "following", a, "kept", follows_kept(c)));
		return;
	}
	struct store_user u;
	if (auth_find_user(c, id, name, &u) != 0)
		return;
	if (u.id == conn_user(c)) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "you cannot follow yourself");
		return;
	}
	bool known;
	int rc = follow_check(gs->follows, conn_id(c), u.id, &known);
	if (rc == PE_BUSY) {
		dispatch_error(c, id, rc, "too many follows on this server; try later");
		return;
	}
	if (rc != PE_NONE) {
		dispatch_error(c, id, rc, "you follow %d players already", FOLLOW_PER_CONN);
		return;
	}
	if (follows_kept(c) && store_follow_set(srv->store, conn_user(c), u.id) != STORE_OK) {
		log_warnx("follow: %s", store_error(srv->store));
		dispatch_error(c, id, PE_STORAGE, "the follow could not be stored");
		return;
	}
	if (!follows_kept(c))
		(void)follow_add(gs, conn_id(c), u.id, u.name);   /* checked above */
	else
		for (struct conn *o = NULL; (o = conn_of_user(srv, conn_user(c), o)) != NULL;)
			(void)follow_add(gs, conn_id(o), u.id, u.name);   /* c's own checked above */
	dispatch_ok(c, id, json_pack("{s:s, s:o, s:b}", "user", u.name, "games", live_games_of(gs, u.id),
	                             "online", conn_of_user(srv, u.id, NULL) != NULL));
}

/* unfollow {user?}: one, or everyone, for every connection of a
 * registered account and in the store first; for this connection alone
 * for a guest.  Not followed: ok all the same. */
static void cmd_unfollow(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct follows *f = srv->games->follows;
	const char *name = json_string_value(json_object_get(req, "user"));
	int64_t who = 0;
	struct store_user u;
	if (name && store_user_find(srv->store, name, &u) == STORE_OK)
		who = u.id;
	else if (name) {   /* no such account: nobody followed under that name */
		dispatch_ok(c, id, NULL);
		return;
	}
	if (follows_kept(c) && store_follow_clear(srv->store, conn_user(c), who) != STORE_OK) {
		log_warnx("unfollow: %s", store_error(srv->store));
		dispatch_error(c, id, PE_STORAGE, "the unfollow could not be stored");
		return;
	}
	bool kept = follows_kept(c);
	size_t k = 0;
	for (size_t i = 0; f && i < f->n; i++) {
		struct conn *o = conn_find(srv, f->v[i].conn);
		bool mine = o == c || (kept && o != NULL && conn_user(o) == conn_user(c));
		if (!mine || (who && f->v[i].user != who))
			f->v[k++] = f->v[i];
	}
	if (f)
		f->n = k;
	dispatch_ok(c, id, NULL);
}

static const struct field f_follow[] = {
	{ "user", F_STRING, 0, PROTO_NAME_MAX },
	{ NULL, 0, 0, 0 },
};

const struct cmd follow_cmds[] = {
	{ "follow", 0, f_follow, cmd_follow },
	{ "unfollow", 0, f_follow, cmd_unfollow },
	{ NULL, 0, NULL, NULL },
};
