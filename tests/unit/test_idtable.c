/*
 * test_idtable.c — server/idtable.c against a model: random adds and
 * removes of nodes with ids drawn from a small range (so chains are
 * shared, and sequential runs as the daemon's ids are), through several
 * doublings; after every step each node is found exactly while it is in
 * the table, the count is the model's, a removal of a node not in the
 * table says so and changes nothing, and idtable_free hands every node
 * still in to its function once.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check_main.h"
#include "idtable.h"

#define T_NODES 3000
#define T_STEPS 20000

struct obj {
	int tag;
	struct idnode node;
	bool in;
};

static struct obj objs[T_NODES];
static int freed[T_NODES];

static void count_free(struct idnode *n)
{
	freed[IDTABLE_ENTRY(n, struct obj, node) - objs]++;
}

static void check_all(const struct idtable *t)
{
	size_t in = 0;

	for (int i = 0; i < T_NODES; i++) {
		const struct idnode *n = idtable_find(t, objs[i].node.id);
		if (objs[i].in) {
			in++;
			ck_assert_msg(n != NULL && n->id == objs[i].node.id, "node %d not found", i);
		}
	}
	ck_assert_uint_eq(t->count, in);
	ck_assert_ptr_null(idtable_find(t, -1));
}

START_TEST(against_a_model)
{
	struct idtable t = { 0 };
	unsigned seed = 5;

	ck_assert_ptr_null(idtable_find(&t, 1));
	ck_assert(!idtable_remove(&t, &objs[0].node));
	/* Unique ids: sequential, as connections' and games' are, then sparse. */
	for (int i = 0; i < T_NODES; i++) {
		objs[i] = (struct obj){ .tag = i };
		objs[i].node.id = i < T_NODES / 2 ? i + 1 : (int64_t)i * 7919 + 100000;
	}
	for (int step = 0; step < T_STEPS; step++) {
		int i = (int)(rand_r(&seed) % T_NODES);
		if (objs[i].in) {
			ck_assert(idtable_remove(&t, &objs[i].node));
			objs[i].in = false;
			ck_assert(!idtable_remove(&t, &objs[i].node));
		} else {
			idtable_add(&t, &objs[i].node);
			objs[i].in = true;
		}
		if (step % 997 == 0)
			check_all(&t);
	}
	check_all(&t);
	ck_assert_uint_ge(t.nchains, t.count);
	ck_assert_uint_gt(t.nchains, IDTABLE_FIRST);
	size_t in = t.count;
	idtable_free(&t, count_free);
	for (int i = 0; i < T_NODES; i++)
		ck_assert_int_eq(freed[i], objs[i].in ? 1 : 0);
	ck_assert_uint_eq(t.count, 0);
	ck_assert_ptr_null(idtable_find(&t, objs[0].node.id));
	ck_assert_uint_gt(in, 0);
}
END_TEST

static Suite *idtable_suite(void)
{
	Suite *s = suite_create("idtable");
	TCase *tc = tcase_create("idtable");

	tcase_add_test(tc, against_a_model);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(idtable_suite)
