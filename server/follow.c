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
 * connection; followset.c holds them, found by connection and by followed
 * user.
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
#include "followset.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

#define FOLLOW_PER_CONN 32       /* players one connection follows */

void follow_free(struct games *gs)
{
	followset_free(gs->follows);
	gs->follows = NULL;
}

void follow_conn_closed(struct games *gs, uint64_t conn)
{
	if (gs->follows)
		(void)followset_drop(gs->follows, conn, 0);
}

/* The connections following a user, gathered before any is sent to: a
 * send may close a slow reader, whose close hooks drop its follows from
 * the very list being walked. */
struct followers {
	uint64_t *conn;
	size_t n, cap;
	char name[PROTO_NAME_MAX + 1];   /* the followed user's, as registered */
};

static void gather_one(uint64_t conn, int64_t user, const char *name, void *arg)
{
	struct followers *f = arg;
	(void)user;
	f->conn = xgrow(f->conn, &f->cap, f->n + 1, sizeof *f->conn, 16);
	f->conn[f->n++] = conn;
	snprintf(f->name, sizeof f->name, "%s", name);
}

/* Each connection following `user` (but a connection of skip[0]'s or
 * skip[1]'s: a player of the game, or the user) sent make(name, arg). */
static void followers_send(struct games *gs, int64_t user, const int64_t skip[2],
                           json_t *(*make)(const char *name, const void *arg), const void *arg)
{
	struct followers f = { 0 };
	if (gs->follows)
		followset_each_follower(gs->follows, user, gather_one, &f);
	for (size_t i = 0; i < f.n; i++) {
		struct conn *c = conn_find(gs->srv, f.conn[i]);
		if (c != NULL && conn_user(c) != skip[0] && conn_user(c) != skip[1])
			conn_send(c, make(f.name, arg));
	}
	free(f.conn);
}

static json_t *following_json(const char *name, const void *arg)
{
	const struct game *g = arg;
	return json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:b}", "event", "following", "user", name, "game",
	                 (json_int_t)g->id, "white", g->name[WHITE], "black", g->name[BLACK], "rules",
	                 g->rs->name, "rated", g->info.rated != 0);
}

void follow_game_started(struct games *gs, const struct game *g)
{
	const int64_t players[2] = { g->user[WHITE], g->user[BLACK] };
	for (int col = WHITE; col <= BLACK; col++)
		followers_send(gs, g->user[col], players, following_json, g);
}

static json_t *presence_of(const char *name, const void *arg)
{
	return json_pack("{s:s, s:s}", "event", *(const bool *)arg ? "arrived" : "departed", "user", name);
}

void follow_presence(struct games *gs, int64_t user, bool online)
{
	const int64_t self[2] = { user, user };
	followers_send(gs, user, self, presence_of, &online);
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

/* Connection conn follows `user` (named `name`) from now on, if it does
 * not yet and the limit allows: FOLLOW_ADDED, FOLLOW_KNOWN or FOLLOW_FULL. */
static int follow_add(struct games *gs, uint64_t conn, int64_t user, const char *name)
{
	if (!gs->follows)
		gs->follows = followset_new();
	return followset_add(gs->follows, conn, user, name, FOLLOW_PER_CONN);
}

/* Whether c's account keeps its follows (a registered one; a guest's last a connection). */
static bool follows_kept(struct conn *c)
{
	return !auth_is_guest_name(conn_user_name(c));
}

static int follow_loaded(int64_t followed, const char *name, void *arg)
{
	struct conn *c = arg;
	if (follow_add(conn_server(c)->games, conn_id(c), followed, name) == FOLLOW_FULL)
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

static void list_one(uint64_t conn, int64_t user, const char *name, void *arg)
{
	(void)conn;
	(void)user;
	json_array_append_new(arg, json_string(name));
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
		if (gs->follows)
			followset_each_of_conn(gs->follows, conn_id(c), list_one, a);
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
	if (gs->follows && followset_check(gs->follows, conn_id(c), u.id, FOLLOW_PER_CONN) == FOLLOW_FULL) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "you follow %d players already", FOLLOW_PER_CONN);
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
 * for a guest.  Not followed: ok all the same, "dropped" saying how many
 * left this connection's list (0: none was followed; a client said
 * "Done." to the unfollow of a stranger: help probe). */
static void cmd_unfollow(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct followset *f = srv->games->follows;
	const char *name = json_string_value(json_object_get(req, "user"));
	int64_t who = 0;
	struct store_user u;
	if (name && store_user_find(srv->store, name, &u) == STORE_OK)
		who = u.id;
	else if (name) {   /* no such account: nobody followed under that name */
		dispatch_ok(c, id, json_pack("{s:i}", "dropped", 0));
		return;
	}
	if (follows_kept(c) && store_follow_clear(srv->store, conn_user(c), who) != STORE_OK) {
		log_warnx("unfollow: %s", store_error(srv->store));
		dispatch_error(c, id, PE_STORAGE, "the unfollow could not be stored");
		return;
	}
	/* this connection's list, or every connection's of the account's */
	size_t dropped = 0;
	for (struct conn *o = follows_kept(c) ? conn_of_user(srv, conn_user(c), NULL) : c; f && o != NULL;
	     o = follows_kept(c) ? conn_of_user(srv, conn_user(c), o) : NULL) {
		size_t k = followset_drop(f, conn_id(o), who);
		if (o == c)
			dropped = k;
	}
	dispatch_ok(c, id, json_pack("{s:I}", "dropped", (json_int_t)dropped));
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
