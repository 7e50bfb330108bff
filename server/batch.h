/*
 * batch.h — group commit: every action handled during one turn of the
 * event loop goes into ONE store transaction, and nothing an action causes
 * to be sent leaves the daemon before that transaction has committed.
 *
 * An action (game.c: a try, an ending, ...) is opened with
 * batch_begin_action(), which also arms the end-of-turn flush.  Its rows
 * are not written then: ops->write runs at the flush, inside the turn's
 * transaction.  What the action announces is handed to batch_hold_*() and
 * held.  At the flush:
 *   commit ok  -> the held messages go out in the order they were held
 *                 (to the connections, or to every connection of a user,
 *                 that exist at that moment; a closed one just drops
 *                 them), then ops->committed for each action;
 *   commit bad -> rolled back; ops->failed for each action (put the
 *                 in-memory state back), its held messages are dropped and
 *                 its requester, if any, gets the error `storage`.
 * Then the work queued with batch_after() runs (requests that had to wait
 * for the turn's outcome).
 *
 * "End of the turn" is a libevent event made active when the batch opens.
 * kriegd's base has one priority, and an event made active from inside a
 * callback is appended to the queue being run, so the flush runs after
 * every callback already due in this pass of the loop (all the lines read
 * from all the connections ready now) and before the loop polls again.
 */
#ifndef KRIEG_BATCH_H
#define KRIEG_BATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server;
struct store;
struct batch;
struct batch_action;

struct batch_ops {
	/* Write the action's rows inside the turn's transaction: STORE_OK or not. */
	int (*write)(void *arg, struct store *st);
	/* After the commit, after the held messages went out. */
	void (*committed)(void *arg);
	/* The commit failed and was rolled back: undo the action in memory. */
	void (*failed)(void *arg);
	/* Last call for arg, either way. */
	void (*free)(void *arg);
};

struct batch *batch_new(struct server *srv);
/* Flushes what is open, then frees. */
void batch_free(struct batch *b);

/* Open one action of this turn.  requester/id: the connection and request
 * id to answer `storage` if the commit fails (0/NULL: a timer).  id is
 * referenced, not stolen.  Never fails (allocation failure aborts). */
struct batch_action *batch_begin_action(struct batch *b, const struct batch_ops *ops, void *arg,
                                        uint64_t requester, json_t *id);
/* Hold a message (stolen) of action a for one connection / for every
 * connection of a user (resolved when it is released). */
void batch_hold_conn(struct batch_action *a, uint64_t conn_id, json_t *msg);
void batch_hold_user(struct batch_action *a, int64_t user, json_t *msg);

/* Run fn(arg) after this turn's flush; at once if no batch is open. */
void batch_after(struct batch *b, void (*fn)(void *arg), void *arg);

/* Is a batch open (an action awaits this turn's commit)? */
bool batch_is_open(const struct batch *b);
/* Commit now (the end of a turn; also at shutdown, before connections go). */
void batch_flush(struct batch *b);

/* Transactions committed so far. */
uint64_t batch_commits(const struct batch *b);

/* The response objects dispatch_ok()/dispatch_error() send, built without
 * sending (for holding).  fields: stolen, may be NULL. */
json_t *batch_reply_ok(json_t *id, json_t *fields);
json_t *batch_reply_error(json_t *id, const char *code, const char *message);

#endif
