/*
 * test_batch.c — the hand-over between the loop and the store writer
 * thread (server/batch.c), on a real event base, writer thread and
 * database, with actions whose writes block until the test lets them go,
 * so the order of what happens on the two threads is forced, not timed.
 *
 *   next_turn_commits_while_sending  an action opened while the turn
 *                        before it commits is handed to the writer as
 *                        soon as that commit succeeds, BEFORE the first
 *                        turn's completion (its messages, `committed`)
 *                        runs on the loop: the writer works while the loop
 *                        sends.  (Before, it waited for the completion: the
 *                        two threads took turns.)
 *   failed_turn_holds_the_next  when the first commit fails, the next
 *                        turn's action of the same game is failed and never
 *                        written, and another game's action is written
 *                        after it, as before.
 *   tagged_wait_is_for_the_newest_tagged  work waiting for a group's
 *                        actions of a tag runs once the newest such action
 *                        is committed, not after an untagged action of the
 *                        group opened later (a spectator's wait timed an
 *                        opponent's hidden try), and at once if none.
 * The integration suite test_batch.c checks the same hand-over from the
 * wire (one commit per turn, events before their ok, a failed commit).
 */
#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "batch.h"
#include "check_main.h"
#include "log.h"
#include "server.h"
#include "store.h"
#include "tmpdb.h"

/* How long a thread waits for the other before the test fails. */
#define WAIT_MS 5000

/* Shared by the loop (the test) and the writer thread. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

struct act {
	const char *name;
	bool block;          /* write waits for `go` */
	bool fail;           /* write returns STORE_ERROR */
	/* under mu */
	bool started, go;
	int write_order;     /* 1-based; 0: never written */
	/* loop only */
	bool committed, failed, freed;
	bool next_started_at_commit;   /* committed(): the other's write had begun */
	struct act *next;              /* committed() looks at next->started */
};

static int writes;       /* under mu */

static bool wait_flag(bool *flag)
{
	struct timespec until;
	bool v;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&mu);
	while (!*flag && pthread_cond_timedwait(&cv, &mu, &until) == 0)
		;
	v = *flag;
	pthread_mutex_unlock(&mu);
	return v;
}

static void set_flag(bool *flag)
{
	pthread_mutex_lock(&mu);
	*flag = true;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static int act_write(void *arg, struct store *st)
{
	struct act *a = arg;

	(void)st;
	pthread_mutex_lock(&mu);
	a->started = true;
	a->write_order = ++writes;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	if (a->block && !wait_flag(&a->go))
		return STORE_ERROR;
	return a->fail ? STORE_ERROR : STORE_OK;
}

static void act_committed(void *arg)
{
	struct act *a = arg;

	a->committed = true;
	if (a->next != NULL)
		a->next_started_at_commit = wait_flag(&a->next->started);
}

static void act_failed(void *arg)
{
	((struct act *)arg)->failed = true;
}

static void act_free(void *arg)
{
	((struct act *)arg)->freed = true;
}

static const struct batch_ops ops = {
	.write = act_write,
	.committed = act_committed,
	.failed = act_failed,
	.free = act_free,
};

static struct tmpdb db;
static struct server srv;
static struct batch *b;

static void world_new(void)
{
	char err[512];

	log_set_level(LOGL_WARN);
	writes = 0;
	tmpdb_make(&db, "batch");
	srv = (struct server){ 0 };
	ck_assert_ptr_nonnull(srv.base = event_base_new());
	srv.store = store_open(db.path, err, sizeof err);
	ck_assert_msg(srv.store != NULL, "%s", err);
	b = batch_new(&srv);
}

static void world_free(void)
{
	batch_free(b);
	store_close(srv.store);
	event_base_free(srv.base);
	tmpdb_remove(&db);
}

/* Run the loop until *flag (set on the loop) or the deadline. */
static void loop_until(const bool *flag)
{
	time_t end = time(NULL) + WAIT_MS / 1000 + 1;

	while (!*flag && time(NULL) <= end)
		event_base_loop(srv.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_msg(*flag, "the loop never got there");
}

/* a is with the writer, blocked in its write; then `opened` are opened
 * (the next turn) and a is let go. */
static void first_turn_then(struct act *a, struct act **opened, size_t n)
{
	batch_begin_action(b, &ops, a, a->name);
	/* The end of this pass hands the turn over. */
	event_base_loop(srv.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_msg(wait_flag(&a->started), "the first turn never reached the writer");
	for (size_t i = 0; i < n; i++)
		batch_begin_action(b, &ops, opened[i], opened[i]->name);
	set_flag(&a->go);
}

START_TEST(next_turn_commits_while_sending)
{
	struct act a = { .name = "game 1", .block = true };
	struct act n = { .name = "game 1" };
	struct act *next[] = { &n };

	world_new();
	a.next = &n;
	first_turn_then(&a, next, 1);
	loop_until(&n.committed);
	ck_assert(a.committed && !a.failed);
	ck_assert_msg(a.next_started_at_commit,
	              "the next turn was not with the writer while the first one completed");
	ck_assert_int_eq(a.write_order, 1);
	ck_assert_int_eq(n.write_order, 2);
	ck_assert(!n.failed);
	ck_assert_uint_eq(batch_commits(b), 2);
	world_free();
	ck_assert(a.freed && n.freed);
}
END_TEST

START_TEST(failed_turn_holds_the_next)
{
	struct act a = { .name = "game 1", .block = true, .fail = true };
	struct act same = { .name = "game 1" };
	struct act other = { .name = "game 2" };
	struct act *next[] = { &same, &other };

	world_new();
	/* Groups are compared by pointer: both "game 1" must be the same one. */
	same.name = a.name;
	first_turn_then(&a, next, 2);
	loop_until(&other.committed);
	ck_assert(a.failed && !a.committed);
	ck_assert_msg(same.failed && !same.committed, "an action built on a failed one went on");
	ck_assert_int_eq(same.write_order, 0);
	ck_assert_int_eq(other.write_order, 2);
	ck_assert_uint_eq(batch_commits(b), 1);
	world_free();
	ck_assert(a.freed && same.freed && other.freed);
}
END_TEST

static char ran[8];

static void note_run(void *arg)
{
	size_t n = strlen(ran);
	if (n + 1 < sizeof ran)
		ran[n] = ((const char *)arg)[0];
}

START_TEST(tagged_wait_is_for_the_newest_tagged)
{
	struct act a = { .name = "game 1", .block = true };
	struct act n = { .name = "game 1", .block = true };
	enum { HEARD = 2u };

	world_new();
	ran[0] = '\0';
	n.name = a.name;
	struct batch_action *ba = batch_begin_action(b, &ops, &a, a.name);
	batch_tag(ba, HEARD);
	event_base_loop(srv.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_msg(wait_flag(&a.started), "the first turn never reached the writer");
	batch_begin_action(b, &ops, &n, n.name);   /* untagged, in the next turn */
	ck_assert(batch_holds(b, a.name, HEARD));
	ck_assert(!batch_holds(b, "game 2", BATCH_TAG_ANY));
	batch_after_tagged(b, a.name, HEARD, note_run, (void *)"h");
	batch_after_tagged(b, a.name, BATCH_TAG_ANY, note_run, (void *)"u");
	batch_after_tagged(b, "game 2", BATCH_TAG_ANY, note_run, (void *)"o");
	ck_assert_str_eq(ran, "o");   /* nothing of game 2: at once */
	set_flag(&a.go);
	loop_until(&a.committed);
	event_base_loop(srv.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_msg(wait_flag(&n.started), "the next turn never reached the writer");
	ck_assert_msg(!n.committed, "the untagged action committed");
	ck_assert_str_eq(ran, "oh");   /* after a, before n */
	ck_assert(!batch_holds(b, a.name, HEARD));
	set_flag(&n.go);
	loop_until(&n.committed);
	event_base_loop(srv.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_str_eq(ran, "ohu");
	world_free();
}
END_TEST

static Suite *batch_suite(void)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("batch");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, next_turn_commits_while_sending);
	tcase_add_test(tc, failed_turn_holds_the_next);
	tcase_add_test(tc, tagged_wait_is_for_the_newest_tagged);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(batch_suite)
