/*
 * test_reader.c — the store reader thread (server/reader.c) on a real
 * event base, thread and database, with a job that blocks until the loop
 * lets it go, so what runs where is forced, not timed.
 *
 *   jobs_run_off_the_loop  a job runs on another thread than the loop's,
 *                        with a connection of its own that reads the
 *                        records (the rows counted to its done), while the
 *                        loop goes on: the job waits for a timer of the
 *                        loop to fire, which it could not if it ran on
 *                        the loop.  Each done runs on the loop, in the
 *                        order the jobs were submitted.
 *                        reader_pending counts the jobs whose done has
 *                        not run, down to none.
 *   free_finishes_the_queue  reader_free runs the jobs still queued and
 *                        their done callbacks.
 *   replays_wanted_from_the_mark  reader_wants: no thread wants nothing; a
 *                        thread wants replays from READER_REPLAY_MIN
 *                        actions on, or from the mark set (at least 1).
 */
#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "check_main.h"
#include "log.h"
#include "reader.h"
#include "server.h"
#include "store.h"
#include "tmpdb.h"

/* How long the blocked job waits for the loop before giving up. */
#define WAIT_MS 5000
#define JOBS 3

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool timer_fired;        /* under mu: set by the loop's timer */

struct job {
	int n;
	bool block;                  /* run waits for timer_fired */
	int64_t game;                /* run reads its record */
	/* set by run */
	pthread_t ran_on;
	bool released;               /* the timer fired while run waited */
	int actions;
	int rc;
	/* set by done */
	bool done;
	pthread_t done_on;
	uint64_t rows;
};

static int done_order[JOBS], ndone;
static struct tmpdb db;
static struct server srv;

static int count_action(const struct store_action *a, void *arg)
{
	(void)a;
	(*(int *)arg)++;
	return 0;
}

static void job_run(void *arg, struct store *st)
{
	struct job *j = arg;

	j->ran_on = pthread_self();
	if (j->game != 0)   /* no assertion off the test's thread: checked after */
		j->rc = store_game_actions(st, j->game, count_action, &j->actions);
	if (!j->block)
		return;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&mu);
	while (!timer_fired && pthread_cond_timedwait(&cv, &mu, &until) == 0)
		;
	j->released = timer_fired;
	pthread_mutex_unlock(&mu);
}

static void job_done(void *arg, uint64_t rows)
{
	struct job *j = arg;

	j->done = true;
	j->done_on = pthread_self();
	j->rows = rows;
	if (ndone < JOBS)
		done_order[ndone++] = j->n;
}

static const struct reader_ops ops = { job_run, job_done };

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	pthread_mutex_lock(&mu);
	timer_fired = true;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static struct reader *world_new(void)
{
	char err[512];

	log_set_level(LOGL_WARN);
	timer_fired = false;
	ndone = 0;
	tmpdb_make(&db, "reader");
	srv = (struct server){ 0 };
	ck_assert_ptr_nonnull(srv.base = event_base_new());
	srv.store = store_open(db.path, err, sizeof err);
	ck_assert_msg(srv.store != NULL, "%s", err);
	struct reader *r = reader_new(&srv, err, sizeof err);
	ck_assert_msg(r != NULL, "%s", err);
	return r;
}

static void world_free(void)
{
	store_close(srv.store);
	event_base_free(srv.base);
	tmpdb_remove(&db);
}

/* A game with n actions in the store (the loop's connection). */
static int64_t recorded_game(int n)
{
	int64_t w = 0, b = 0;
	ck_assert_int_eq(store_user_create(srv.store, "white1", "$scrypt$x", 0, &w), STORE_OK);
	ck_assert_int_eq(store_user_create(srv.store, "black1", "$scrypt$x", 0, &b), STORE_OK);
	struct store_game g = { .white = w, .black = b };
	snprintf(g.rules, sizeof g.rules, "icc");
	ck_assert_int_eq(store_game_create(srv.store, &g), STORE_OK);
	for (int i = 1; i <= n; i++) {
		struct store_action a = { .game = g.id, .seq = i, .color = (i - 1) % 2, .ok = 0 };
		snprintf(a.kind, sizeof a.kind, "try");
		snprintf(a.text, sizeof a.text, "Qxh%d", i % 8 + 1);
		ck_assert_int_eq(store_game_action(srv.store, &a, NULL, 0), STORE_OK);
	}
	return g.id;
}

START_TEST(jobs_run_off_the_loop)
{
	struct reader *r = world_new();
	struct job j[JOBS] = { { .n = 0, .block = true }, { .n = 1 }, { .n = 2 } };
	j[1].game = recorded_game(17);
	struct event *t = evtimer_new(srv.base, timer_cb, NULL);
	struct timeval tv = { 0, 20 * 1000 };
	evtimer_add(t, &tv);
	for (int i = 0; i < JOBS; i++)
		reader_submit(r, &ops, &j[i]);
	ck_assert_uint_eq(reader_pending(r), JOBS);
	time_t end = time(NULL) + WAIT_MS / 1000 + 2;
	while (!j[JOBS - 1].done && time(NULL) <= end)
		event_base_loop(srv.base, EVLOOP_ONCE);
	ck_assert_msg(j[JOBS - 1].done, "the jobs never came back");
	ck_assert_msg(j[0].released, "the blocked job was not let go by the loop's timer");
	for (int i = 0; i < JOBS; i++) {
		ck_assert_msg(!pthread_equal(j[i].ran_on, pthread_self()), "job %d ran on the loop", i);
		ck_assert(pthread_equal(j[i].done_on, pthread_self()));
		ck_assert_int_eq(done_order[i], i);
	}
	ck_assert_int_eq(j[1].rc, STORE_OK);
	ck_assert_int_eq(j[1].actions, 17);
	ck_assert_uint_eq(j[1].rows, 17);
	ck_assert_uint_eq(j[0].rows, 0);
	ck_assert_uint_eq(reader_jobs(r), JOBS);
	ck_assert_uint_eq(reader_pending(r), 0);
	/* Read on its own connection: the loop's counted none of them. */
	ck_assert_uint_eq(store_record_rows(srv.store), 0);
	event_free(t);
	reader_free(r);
	world_free();
}
END_TEST

START_TEST(free_finishes_the_queue)
{
	struct reader *r = world_new();
	struct job j[JOBS] = { { .n = 0 }, { .n = 1 }, { .n = 2 } };
	for (int i = 0; i < JOBS; i++)
		reader_submit(r, &ops, &j[i]);
	reader_free(r);   /* the loop never ran */
	for (int i = 0; i < JOBS; i++) {
		ck_assert_msg(j[i].done, "job %d was dropped", i);
		ck_assert_int_eq(done_order[i], i);
	}
	world_free();
}
END_TEST

START_TEST(replays_wanted_from_the_mark)
{
	ck_assert(!reader_wants(NULL, 50000));
	struct reader *r = world_new();
	ck_assert(!reader_wants(r, READER_REPLAY_MIN - 1));
	ck_assert(reader_wants(r, READER_REPLAY_MIN));
	reader_set_replay_min(r, 4);
	ck_assert(!reader_wants(r, 3));
	ck_assert(reader_wants(r, 4));
	reader_set_replay_min(r, -5);
	ck_assert(!reader_wants(r, 0));
	ck_assert(reader_wants(r, 1));
	reader_free(r);
	world_free();
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("reader");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, jobs_run_off_the_loop);
	tcase_add_test(tc, free_finishes_the_queue);
	tcase_add_test(tc, replays_wanted_from_the_mark);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(reader_suite)
