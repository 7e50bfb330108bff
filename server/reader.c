/*
 * reader.c — the store reader thread; see reader.h.
 *
 * Jobs go into `queued` (under mu); the thread runs them one at a time, in
 * order, moves each to `done` and wakes the loop (wake.h); the loop's
 * read event takes the whole `done` list and
 * runs each job's done callback in order.
 */
#include "reader.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "server.h"
#include "store.h"
#include "wake.h"
#include "xmalloc.h"

struct job {
	struct job *next;
	const struct reader_ops *ops;
	void *arg;
	uint64_t rows;               /* set by the thread */
};

/* A FIFO of jobs. */
struct jobs {
	struct job *head, **tail;
};

struct reader {
	struct store *st;            /* the thread's own connection */
	struct event *wake;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct jobs queued, done;      /* under mu */
	bool stop;                   /* under mu */
	int pipefd[2];
	int64_t replay_min;          /* reader_wants' mark */
	uint64_t jobs;               /* the loop's: done callbacks run */
	uint64_t submitted;          /* the loop's: jobs submitted */
};

static void jobs_init(struct jobs *q)
{
	q->head = NULL;
	q->tail = &q->head;
}

static void jobs_put(struct jobs *q, struct job *j)
{
	j->next = NULL;
	*q->tail = j;
	q->tail = &j->next;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (r->queued.head == NULL && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		struct job *j = r->queued.head;
		if (j == NULL)
			break;   /* stopping, and nothing left to run */
		if ((r->queued.head = j->next) == NULL)
			r->queued.tail = &r->queued.head;
		pthread_mutex_unlock(&r->mu);
		uint64_t before = store_record_rows(r->st);
		j->ops->run(j->arg, r->st);
		j->rows = store_record_rows(r->st) - before;
		pthread_mutex_lock(&r->mu);
		jobs_put(&r->done, j);
		wake_poke(r->pipefd[1]);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* The jobs the thread has finished: their done callbacks, in order. */
static void run_done(struct reader *r)
{
	pthread_mutex_lock(&r->mu);
	struct job *j = r->done.head;
	jobs_init(&r->done);
	pthread_mutex_unlock(&r->mu);
	while (j != NULL) {
		struct job *next = j->next;
		r->jobs++;
		j->ops->done(j->arg, j->rows);
		free(j);
		j = next;
	}
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)what;
	wake_drain(fd);
	run_done(arg);
}

struct reader *reader_new(struct server *srv, char *err, size_t errlen)
{
	if (srv->base == NULL || srv->store == NULL) {
		snprintf(err, errlen, "no event loop");
		return NULL;
	}
	struct reader *r = xcalloc(1, sizeof *r);
	r->pipefd[0] = r->pipefd[1] = -1;
	r->replay_min = READER_REPLAY_MIN;
	jobs_init(&r->queued);
	jobs_init(&r->done);
	if ((r->st = store_open_reader(srv->store, err, errlen)) == NULL)
		goto fail;
	if (wake_pipe_open(r->pipefd) != 0) {
		snprintf(err, errlen, "reader: pipe: %s", strerror(errno));
		goto fail;
	}
	r->wake = event_new(srv->base, r->pipefd[0], EV_READ | EV_PERSIST, wake_cb, r);
	if (r->wake == NULL || event_add(r->wake, NULL) != 0) {
		snprintf(err, errlen, "reader: event_new failed");
		goto fail;
	}
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	int rc = wake_thread_start(&r->thread, reader_main, r);
	if (rc != 0) {
		snprintf(err, errlen, "reader: pthread_create: %s", strerror(rc));
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv);
		goto fail;
	}
	return r;
fail:
	if (r->wake != NULL)
		event_free(r->wake);
	for (int i = 0; i < 2; i++)
		if (r->pipefd[i] >= 0)
			close(r->pipefd[i]);
	store_close(r->st);
	free(r);
	return NULL;
}

void reader_free(struct reader *r)
{
	if (r == NULL)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	run_done(r);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	event_free(r->wake);
	for (int i = 0; i < 2; i++)
		close(r->pipefd[i]);
	store_close(r->st);
	free(r);
}

void reader_submit(struct reader *r, const struct reader_ops *ops, void *arg)
{
	struct job *j = xcalloc(1, sizeof *j);

	j->ops = ops;
	j->arg = arg;
	r->submitted++;
	pthread_mutex_lock(&r->mu);
	jobs_put(&r->queued, j);
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

bool reader_wants(const struct reader *r, int64_t actions)
{
	return r != NULL && actions >= r->replay_min;
}

void reader_set_replay_min(struct reader *r, int64_t actions)
{
	r->replay_min = actions > 1 ? actions : 1;
}

uint64_t reader_jobs(const struct reader *r)
{
	return r->jobs;
}

uint64_t reader_pending(const struct reader *r)
{
	return r->submitted - r->jobs;
}
