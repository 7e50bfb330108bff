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
 * The lists live in memory with their connection, like the lobby's
 * watchers: emptied at logout or close (games_conn_closed), gone on
 * restart.  Bounded per connection and in all.
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

static void cmd_follow(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct games *gs = srv->games;
	if (!gs->follows)
		gs->follows = xcalloc(1, sizeof *gs->follows);
	struct follows *f = gs->follows;
	const char *name = json_string_value(json_object_get(req, "user"));
	if (name == NULL) {   /* the list */
		json_t *a = json_array();
		for (size_t i = 0; i < f->n; i++)
			if (f->v[i].conn == conn_id(c))
				json_array_append_new(a, json_string(f->v[i].name));
		dispatch_ok(c, id, json_pack("{s:o}", "following", a));
		return;
	}
	struct store_user u;
	if (auth_find_user(c, id, name, &u) != 0)
		return;
	if (u.id == conn_user(c)) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "you cannot follow yourself");
		return;
	}
	size_t mine = 0;   /* this connection's follows; one of them u's? */
	bool known = false;
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].conn == conn_id(c)) {
			mine++;
			known |= f->v[i].user == u.id;
		}
	if (!known && mine >= FOLLOW_PER_CONN) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "you follow %d players already", FOLLOW_PER_CONN);
		return;
	}
	if (!known && f->n >= FOLLOW_MAX) {
		dispatch_error(c, id, PE_BUSY, "too many follows on this server; try later");
		return;
	}
	if (!known) {   /* following twice is following once */
		f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v, 16);
		struct follow *x = &f->v[f->n++];
		x->conn = conn_id(c);
		x->user = u.id;
		snprintf(x->name, sizeof x->name, "%.*s", PROTO_NAME_MAX, u.name);
	}
	dispatch_ok(c, id, json_pack("{s:s, s:o, s:b}", "user", u.name, "games", live_games_of(gs, u.id),
	                             "online", conn_of_user(srv, u.id, NULL) != NULL));
}

static void cmd_unfollow(struct conn *c, json_t *id, json_t *req)
{
	struct follows *f = conn_server(c)->games->follows;
	const char *name = json_string_value(json_object_get(req, "user"));
	size_t k = 0;
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].conn != conn_id(c) || (name && strcasecmp(f->v[i].name, name) != 0))
			f->v[k++] = f->v[i];
	if (f)
		f->n = k;
	dispatch_ok(c, id, NULL);   /* not followed: ok all the same */
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
