/*
 * reader.h — the store reader thread: long replays of records, off the loop.
 *
 * A record may hold 50,000 actions (GAME_ACTIONS_MAX), and the first read
 * of a long one (its PGN text, the marks its pages are replayed from: announce.h) replays all
 * of it: tens of ms during which the loop, doing it in place, answered
 * nobody (no try, no clock, no other reader).  A request that finds such a
 * replay not yet made hands it to this thread instead (dispatch_offload,
 * dispatch.h): the job reads the record through the thread's own
 * read-only connection (store_open_reader) and builds what the caches keep;
 * back on the loop, `done` puts that into the cache, and the request runs
 * again from its line, finding it there.  Meanwhile its connection is held
 * (conn_offload, conn.h), so its answers keep their order, while every
 * other connection is served.  A login's game_state of a live game with a
 * long record is built here too (game_view.c): a login is not run again,
 * so its state's place is kept in the connection's output instead
 * (conn_gate_open, conn.h), filled when the job is done.  So is a delayed
 * game's whole public list, which a spectator's catch-up is cut from
 * (watch.c).
 *
 * Threads: `run` touches only its own arg and the store it is given, and
 * logs nothing (log.c is the loop's); `done` runs on the loop, after run,
 * in the order the jobs were submitted.  One thread: replays queue behind
 * each other, and the rows they will read are charged to their readers'
 * connections and addresses when they are handed over (dispatch.h), so
 * what one address can queue is bounded by its budget, as what it could
 * replay on the loop was.
 *
 * Without an event base (tools, unit tests of the store) there is no
 * thread: reader_new returns NULL and requests replay in place.
 */
#ifndef KRIEG_READER_H
#define KRIEG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server;
struct store;
struct reader;

/* The shortest replay (actions) worth the hand-over: under it, in place. */
#define READER_REPLAY_MIN 1024

struct reader_ops {
	/* On the reader thread, with its connection. */
	void (*run)(void *arg, struct store *st);
	/* On the loop, once run has returned; last call for arg (frees it).
	 * rows: the rows of records run read (store_record_rows). */
	void (*done)(void *arg, uint64_t rows);
};

/* Start the thread with a read-only connection to srv->store's database;
 * NULL without an event base, or if that cannot be done (err, logged by
 * the caller: requests then replay in place). */
struct reader *reader_new(struct server *srv, char *err, size_t errlen);
/* Finish the jobs queued (their done run here), stop the thread, free. */
void reader_free(struct reader *r);

/* Queue one job. */
void reader_submit(struct reader *r, const struct reader_ops *ops, void *arg);

/* Whether a replay of `actions` goes to r: there is a thread, and the
 * replay is long enough to be worth it (READER_REPLAY_MIN, or the mark
 * reader_set_replay_min set).  Every hand-over asks this. */
bool reader_wants(const struct reader *r, int64_t actions);
/* The fuzzer's: hand over replays from `actions` (at least 1) on, so that
 * the short records an input can make reach the hand-over's paths. */
void reader_set_replay_min(struct reader *r, int64_t actions);

/* Jobs done so far (tests); jobs submitted whose done has not run yet. */
uint64_t reader_jobs(const struct reader *r);
uint64_t reader_pending(const struct reader *r);

#endif
