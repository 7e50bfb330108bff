/*
 * idtable.h — a hash of objects by a 64-bit id, intrusive: an object holds
 * a struct idnode (its id and the chain's link) and is found by it.  The
 * chains double once there are as many objects (load at most 1), so a
 * find, an add and a remove cost a chain of about one, however many
 * objects there are.  Used for the connections by id and by user
 * (conn.c), the live games by id and each player's count of live games
 * (game.c): every request that names one of them looks it up.
 *
 * The table owns its chains' array, not the objects: removing or freeing
 * the table never frees one (idtable_free can hand each to a function).
 */
#ifndef KRIEG_IDTABLE_H
#define KRIEG_IDTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IDTABLE_FIRST 64         /* chains of a new table */

struct idnode {
	int64_t id;
	struct idnode *next;
};

struct idtable {
	struct idnode **chain;
	size_t nchains;              /* a power of two, or 0 before the first add */
	size_t count;
};

/* The object of type that holds node as member. */
#define IDTABLE_ENTRY(node, type, member) \
	((type *)(void *)((char *)(node) - offsetof(type, member)))

/* Add n (n->id set; not in a table).  Ids need not be unique: a find
 * returns the last added of equals. */
void idtable_add(struct idtable *t, struct idnode *n);
/* The node of id; NULL if none. */
struct idnode *idtable_find(const struct idtable *t, int64_t id);
/* Take n out: true, or false if it was not in t. */
bool idtable_remove(struct idtable *t, struct idnode *n);
/* Free the chains (each node first to each_node, if not NULL); t is empty
 * and usable again. */
void idtable_free(struct idtable *t, void (*each_node)(struct idnode *n));

#endif
