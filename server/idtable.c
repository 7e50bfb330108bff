/*
 * idtable.c — see idtable.h.
 */
#include "idtable.h"

#include <stdlib.h>

#include "xmalloc.h"

/* Ids are small and mostly sequential; the multiplication (Fibonacci
 * hashing) spreads them over the high bits, which the shift keeps. */
static size_t chain_of(int64_t id, size_t nchains)
{
	uint64_t h = (uint64_t)id * UINT64_C(0x9E3779B97F4A7C15);

	return (size_t)(h >> 32) & (nchains - 1);
}

static void push(struct idnode **chain, size_t nchains, struct idnode *n)
{
	struct idnode **head = &chain[chain_of(n->id, nchains)];

	n->next = *head;
	*head = n;
}

static void grow(struct idtable *t)
{
	size_t n = t->nchains ? t->nchains * 2 : IDTABLE_FIRST;
	struct idnode **chain = xcalloc(n, sizeof *chain);

	for (size_t i = 0; i < t->nchains; i++)
		for (struct idnode *node = t->chain[i], *next; node != NULL; node = next) {
			next = node->next;
			push(chain, n, node);
		}
	free(t->chain);
	t->chain = chain;
	t->nchains = n;
}

void idtable_add(struct idtable *t, struct idnode *n)
{
	if (++t->count > t->nchains)
		grow(t);
	push(t->chain, t->nchains, n);
}

struct idnode *idtable_find(const struct idtable *t, int64_t id)
{
	if (t->count == 0)
		return NULL;
	for (struct idnode *n = t->chain[chain_of(id, t->nchains)]; n != NULL; n = n->next)
		if (n->id == id)
			return n;
	return NULL;
}

bool idtable_remove(struct idtable *t, struct idnode *n)
{
	if (t->nchains == 0)
		return false;
	for (struct idnode **p = &t->chain[chain_of(n->id, t->nchains)]; *p != NULL; p = &(*p)->next)
		if (*p == n) {
			*p = n->next;
			n->next = NULL;
			t->count--;
			return true;
		}
	return false;
}

void idtable_free(struct idtable *t, void (*each_node)(struct idnode *n))
{
	for (size_t i = 0; each_node != NULL && i < t->nchains; i++)
		for (struct idnode *n = t->chain[i], *next; n != NULL; n = next) {
			next = n->next;
			each_node(n);
		}
	free(t->chain);
	*t = (struct idtable){ 0 };
}
