/*
 * wake.h — the daemon's worker threads (the store writer: batch.c; the
 * password hashers: auth.c; the checkpointer: store_ckpt.c; the reader:
 * reader.c), and the pipe through which those with results wake the loop.
 *
 * A worker is started with every signal blocked, so that signals stay
 * with the loop's thread (libevent's evsignal handlers).  A worker that
 * has something for the loop writes one byte to its pipe (wake_poke); the
 * loop's read event on the other end drains it (wake_drain) and takes the
 * work under the worker's own mutex.  The pipe is non-blocking at both
 * ends: a full pipe already means "wake", so a poke never blocks.
 */
#ifndef KRIEG_WAKE_H
#define KRIEG_WAKE_H

#include <pthread.h>

/* pthread_create with every signal blocked in the new thread: 0 or its
 * error number. */
int wake_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* A pipe, non-blocking and close-on-exec at both ends: 0, or -1 (errno
 * set, nothing left open). */
int wake_pipe_open(int fd[2]);
/* One byte into the pipe's write end (from the worker). */
void wake_poke(int fd);
/* Empty the pipe's read end (on the loop). */
void wake_drain(int fd);

#endif
