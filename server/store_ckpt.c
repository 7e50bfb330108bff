/*
 * store_ckpt.c — WAL checkpoints off the commit path (store_priv.h).
 *
 * In WAL mode a commit appends the pages it changed to the -wal file; a
 * checkpoint copies them back into the database file and syncs it.
 * SQLite's default (wal_autocheckpoint = 1000 pages) runs that checkpoint
 * inside the commit that crosses the mark, on the committing connection.
 * For the daemon that connection is the store writer thread (batch.c), and
 * every client whose answer waits for that commit waited for the copy of
 * ~4 MB and an fsync of the database file as well: the tail of try ->
 * answer latency, and about a third of the writer's time per commit at 200
 * connections (BENCHMARKS.md).
 *
 * So the daemon's two connections (the writer's and the loop's) do not
 * checkpoint when they commit.  A commit that leaves the mark
 * (`store_checkpoint_pages`, 1000 by default, SQLite's own) or more in the
 * WAL wakes this module's thread, which runs a PASSIVE
 * checkpoint on a third connection: it copies the frames no reader still
 * needs without taking the writer's lock, so commits go on meanwhile.
 *
 * SQLite starts the WAL again from its beginning only when a write
 * transaction begins with every frame already copied (walRestartLog), and
 * under steady load the writer appends while the thread copies, so the
 * thread alone never quite catches up.  The commit that finds the thread
 * idle and at most STORE_CKPT_FINISH frames left behind its last pass
 * copies those few itself (a small PASSIVE checkpoint in place), and the
 * next transaction starts the file over.  If the WAL reaches
 * STORE_CKPT_HARD_FACTOR times the mark anyway (a writer faster than the
 * thread's passes, or a long read pinning old frames), the commit that sees
 * it checkpoints in place, as SQLite would have.  It first waits for a pass
 * in progress to end: that pass holds the checkpoint lock, and a PASSIVE
 * checkpoint beside it copies nothing (SQLITE_BUSY), so without the wait
 * the WAL grew on past the bound for as long as the pass took.  So the WAL
 * stays within the bound and one commit's frames, unless a reader pins it.
 *
 * Durability is unchanged: a commit is durable when its frames are synced
 * in the WAL (synchronous = full), whoever checkpoints them later.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store_priv.h"
#include "wake.h"
#include "xmalloc.h"

struct store_ckpt {
	sqlite3 *db;                 /* the thread's own connection */
	sqlite3 *peer;               /* the loop's connection, hooked too */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_cond_t idle;         /* signalled when a pass ends */
	bool wanted;                 /* under mu */
	bool running;                /* under mu: the thread is checkpointing */
	bool stop;                   /* under mu */
	int mark;                    /* the writer's ckpt_pages */
	int copied;                  /* under mu: frames copied as of its last pass */
	uint64_t runs;               /* under mu: checkpoints run by the thread */
};

static void *ckpt_main(void *arg)
{
	struct store_ckpt *c = arg;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->wanted && !c->stop)
			pthread_cond_wait(&c->cv, &c->mu);
		if (c->stop)
			break;
		c->wanted = false;
		c->running = true;
		pthread_mutex_unlock(&c->mu);
		int nlog = 0, nckpt = 0;
		int rc = sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &nlog,
		                                   &nckpt);
		if (rc != SQLITE_OK && rc != SQLITE_BUSY)
			log_warnx("store: checkpoint: %s", sqlite3_errmsg(c->db));
		else
			log_debug("store: checkpoint wal=%d copied=%d", nlog, nckpt);
		pthread_mutex_lock(&c->mu);
		c->running = false;
		c->copied = rc == SQLITE_OK ? nckpt : 0;
		c->runs++;
		pthread_cond_broadcast(&c->idle);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* sqlite3_wal_hook: after every commit of a hooked connection, on the
 * thread that committed. */
static int ckpt_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store_ckpt *c = arg;

	if (pages < c->mark)
		return SQLITE_OK;
	bool hard = pages >= STORE_CKPT_HARD_FACTOR * c->mark;
	pthread_mutex_lock(&c->mu);
	if (hard) {
		c->wanted = false;   /* this commit checkpoints instead */
		while (c->running)
			pthread_cond_wait(&c->idle, &c->mu);
	}
	bool idle = !c->running && !c->wanted;
	bool finish = idle && c->copied > 0 && pages - c->copied <= STORE_CKPT_FINISH;
	if (finish || hard)
		c->copied = 0;
	else if (idle) {
		c->wanted = true;
		pthread_cond_signal(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	if (hard)
		log_warnx("store: the WAL holds %d pages; checkpointing in the commit", pages);
	if (finish || hard)
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

struct store_ckpt *store_ckpt_start(struct store *writer, struct store *peer, char *err,
                                    size_t errlen)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(writer->path, &db, SQLITE_OPEN_READWRITE | STORE_OPEN_THREADING, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s: checkpointer: %s", writer->path,
		         db != NULL ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	/* A connection learns the file is in WAL mode by reading it; until
	 * then a checkpoint on it does nothing (SQLite answers -1 frames). */
	if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: checkpointer: %s", writer->path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	struct store_ckpt *c = xcalloc(1, sizeof *c);
	c->db = db;
	c->peer = peer->db;
	c->mark = writer->ckpt_pages;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	pthread_cond_init(&c->idle, NULL);
	int rc = wake_thread_start(&c->thread, ckpt_main, c);
	if (rc != 0) {
		snprintf(err, errlen, "checkpointer: pthread_create: %s", strerror(rc));
		pthread_mutex_destroy(&c->mu);
		pthread_cond_destroy(&c->cv);
		pthread_cond_destroy(&c->idle);
		sqlite3_close(db);
		free(c);
		return NULL;
	}
	/* sqlite3_wal_hook replaces the automatic checkpoint of each. */
	sqlite3_wal_hook(writer->db, ckpt_hook, c);
	sqlite3_wal_hook(c->peer, ckpt_hook, c);
	return c;
}

/* On the loop's thread, with the writer thread stopped (batch_free): the
 * peer gets SQLite's own checkpointing back for whatever it commits after. */
void store_ckpt_stop(struct store_ckpt *c)
{
	if (c == NULL)
		return;
	sqlite3_wal_autocheckpoint(c->peer, c->mark);
	pthread_mutex_lock(&c->mu);
	c->stop = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->thread, NULL);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	pthread_cond_destroy(&c->idle);
	sqlite3_close(c->db);
	free(c);
}

sqlite3 *store_ckpt_db(const struct store *writer)
{
	return writer->ckpt != NULL ? writer->ckpt->db : NULL;
}

bool store_ckpt_busy(const struct store *writer)
{
	struct store_ckpt *c = writer->ckpt;
	bool busy;

	if (c == NULL)
		return false;
	pthread_mutex_lock(&c->mu);
	busy = c->wanted || c->running;
	pthread_mutex_unlock(&c->mu);
	return busy;
}

uint64_t store_ckpt_runs(const struct store *writer)
{
	struct store_ckpt *c = writer->ckpt;
	uint64_t n;

	if (c == NULL)
		return 0;
	pthread_mutex_lock(&c->mu);
	n = c->runs;
	pthread_mutex_unlock(&c->mu);
	return n;
}
