/*
 * missed.c — the games that ended while a player was away (missed.h):
 * each player's oldest first in a small array, the players in a table by
 * id and in a list to look for the one holding the most when the server's
 * bound is reached (a walk of the players, only then).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "idtable.h"
#include "missed.h"
#include "xmalloc.h"

struct entry {
	uint64_t seq;                /* the order they came in, server-wide */
	struct missed_game g;
};

struct player {
	struct idnode node;          /* the user's id */
	TAILQ_ENTRY(player) link;
	struct entry *v;             /* oldest first */
	size_t n, cap;
};

struct missed {
	struct idtable byuser;
	TAILQ_HEAD(, player) players;
	size_t per_user, max, count;
	uint64_t seq;
};

struct missed *missed_new(size_t per_user, size_t max)
{
	struct missed *m = xcalloc(1, sizeof *m);
	TAILQ_INIT(&m->players);
	m->per_user = per_user > 0 ? per_user : 1;
	m->max = max > 0 ? max : 1;
	return m;
}

static void player_free(struct missed *m, struct player *p)
{
	idtable_remove(&m->byuser, &p->node);
	TAILQ_REMOVE(&m->players, p, link);
	m->count -= p->n;
	free(p->v);
	free(p);
}

void missed_free(struct missed *m)
{
	if (!m)
		return;
	struct player *p;
	while ((p = TAILQ_FIRST(&m->players)) != NULL)
		player_free(m, p);
	idtable_free(&m->byuser, NULL);
	free(m);
}

static struct player *player_find(const struct missed *m, int64_t user)
{
	struct idnode *n = idtable_find(&m->byuser, user);
	return n ? IDTABLE_ENTRY(n, struct player, node) : NULL;
}

/* p's oldest forgotten; p too once it holds none. */
static void drop_oldest(struct missed *m, struct player *p)
{
	memmove(p->v, p->v + 1, (p->n - 1) * sizeof *p->v);
	p->n--;
	m->count--;
	if (p->n == 0) {
		player_free(m, p);
	}
}

/* The player who gives one up when the server's bound is reached. */
static struct player *most_held(const struct missed *m)
{
	struct player *best = NULL, *p;
	TAILQ_FOREACH(p, &m->players, link)
		if (!best || p->n > best->n || (p->n == best->n && p->v[0].seq < best->v[0].seq))
			best = p;
	return best;
}

void missed_add(struct missed *m, int64_t user, const struct missed_game *g)
{
	struct player *p = player_find(m, user);
	if (p && p->n >= m->per_user)
		drop_oldest(m, p);
	else if (m->count >= m->max)
		drop_oldest(m, most_held(m));
	p = player_find(m, user);   /* either drop may have emptied p, and freed it */
	if (!p) {
		p = xcalloc(1, sizeof *p);
		p->node.id = user;
		idtable_add(&m->byuser, &p->node);
		TAILQ_INSERT_TAIL(&m->players, p, link);
	}
	p->v = xgrow(p->v, &p->cap, p->n + 1, sizeof *p->v, 4);
	p->v[p->n++] = (struct entry){ ++m->seq, *g };
	m->count++;
}

size_t missed_take(struct missed *m, int64_t user, void (*fn)(const struct missed_game *g, void *arg),
                   void *arg)
{
	struct player *p = player_find(m, user);
	if (!p)
		return 0;
	size_t n = p->n;
	for (size_t i = 0; i < n; i++)
		fn(&p->v[i].g, arg);
	player_free(m, p);
	return n;
}

size_t missed_count(const struct missed *m)
{
	return m->count;
}

size_t missed_count_of(const struct missed *m, int64_t user)
{
	const struct player *p = player_find(m, user);
	return p ? p->n : 0;
}
