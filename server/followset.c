/*
 * followset.c — who follows whom, in two intrusive lists per follow
 * (followset.h).  A head exists while its list is not empty.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/queue.h>

#include "followset.h"
#include "idtable.h"
#include "proto.h"
#include "xmalloc.h"

struct follow {
	uint64_t conn;
	int64_t user;
	char name[PROTO_NAME_MAX + 1];   /* as registered */
	TAILQ_ENTRY(follow) by_conn, by_user;
};

TAILQ_HEAD(follow_list, follow);

/* A connection's follows, or a user's followers. */
struct follow_head {
	struct idnode node;          /* the connection's or the user's id */
	struct follow_list list;     /* oldest first */
	size_t n;
};

struct followset {
	struct idtable conns, users;
	size_t count;
};

struct followset *followset_new(void)
{
	return xcalloc(1, sizeof(struct followset));
}

static struct follow_head *head_find(const struct idtable *t, int64_t id)
{
	struct idnode *n = idtable_find(t, id);
	return n ? IDTABLE_ENTRY(n, struct follow_head, node) : NULL;
}

static struct follow_head *head_get(struct idtable *t, int64_t id)
{
	struct follow_head *h = head_find(t, id);
	if (!h) {
		h = xcalloc(1, sizeof *h);
		h->node.id = id;
		TAILQ_INIT(&h->list);
		idtable_add(t, &h->node);
	}
	return h;
}

static void head_put(struct idtable *t, struct follow_head *h)
{
	if (--h->n == 0) {
		idtable_remove(t, &h->node);
		free(h);
	}
}

/* x out of both lists and freed; an emptied head goes too. */
static void follow_drop(struct followset *fs, struct follow *x)
{
	struct follow_head *hc = head_find(&fs->conns, (int64_t)x->conn);
	struct follow_head *hu = head_find(&fs->users, x->user);
	TAILQ_REMOVE(&hc->list, x, by_conn);
	TAILQ_REMOVE(&hu->list, x, by_user);
	head_put(&fs->conns, hc);
	head_put(&fs->users, hu);
	fs->count--;
	free(x);
}

/* A connection's head and its follows (each follow is in one). */
static void conn_head_free(struct idnode *n)
{
	struct follow_head *h = IDTABLE_ENTRY(n, struct follow_head, node);
	struct follow *x;
	while ((x = TAILQ_FIRST(&h->list)) != NULL) {
		TAILQ_REMOVE(&h->list, x, by_conn);
		free(x);
	}
	free(h);
}

static void user_head_free(struct idnode *n)
{
	free(IDTABLE_ENTRY(n, struct follow_head, node));
}

void followset_free(struct followset *fs)
{
	if (!fs)
		return;
	idtable_free(&fs->users, user_head_free);
	idtable_free(&fs->conns, conn_head_free);
	free(fs);
}

int followset_check(const struct followset *fs, uint64_t conn, int64_t user, size_t max)
{
	const struct follow_head *h = head_find(&fs->conns, (int64_t)conn);
	const struct follow *x;
	if (!h)
		return max > 0 ? FOLLOW_ADDED : FOLLOW_FULL;
	TAILQ_FOREACH(x, &h->list, by_conn)
		if (x->user == user)
			return FOLLOW_KNOWN;   /* following twice is following once */
	return h->n >= max ? FOLLOW_FULL : FOLLOW_ADDED;
}

int followset_add(struct followset *fs, uint64_t conn, int64_t user, const char *name, size_t max)
{
	int rc = followset_check(fs, conn, user, max);
	if (rc != FOLLOW_ADDED)
		return rc;
	struct follow *x = xcalloc(1, sizeof *x);
	x->conn = conn;
	x->user = user;
	snprintf(x->name, sizeof x->name, "%.*s", PROTO_NAME_MAX, name);
	struct follow_head *hc = head_get(&fs->conns, (int64_t)conn), *hu = head_get(&fs->users, user);
	TAILQ_INSERT_TAIL(&hc->list, x, by_conn);
	TAILQ_INSERT_TAIL(&hu->list, x, by_user);
	hc->n++;
	hu->n++;
	fs->count++;
	return FOLLOW_ADDED;
}

size_t followset_drop(struct followset *fs, uint64_t conn, int64_t user)
{
	struct follow_head *h = head_find(&fs->conns, (int64_t)conn);
	size_t left = h ? h->n : 0, gone = 0;
	struct follow *x = h ? TAILQ_FIRST(&h->list) : NULL;
	/* counted down, since dropping the last one frees h */
	for (; left > 0; left--) {
		struct follow *next = TAILQ_NEXT(x, by_conn);
		if (!user || x->user == user) {
			follow_drop(fs, x);
			gone++;
		}
		x = next;
	}
	return gone;
}

static void each(const struct follow_head *h, bool by_conn, followset_fn *fn, void *arg)
{
	const struct follow *x;
	if (!h)
		return;
	if (by_conn)
		TAILQ_FOREACH(x, &h->list, by_conn)
			fn(x->conn, x->user, x->name, arg);
	else
		TAILQ_FOREACH(x, &h->list, by_user)
			fn(x->conn, x->user, x->name, arg);
}

void followset_each_of_conn(const struct followset *fs, uint64_t conn, followset_fn *fn, void *arg)
{
	each(head_find(&fs->conns, (int64_t)conn), true, fn, arg);
}

void followset_each_follower(const struct followset *fs, int64_t user, followset_fn *fn, void *arg)
{
	each(head_find(&fs->users, user), false, fn, arg);
}

size_t followset_count(const struct followset *fs)
{
	return fs->count;
}
