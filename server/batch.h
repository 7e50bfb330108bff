/*
 * batch.h — group commit: every action handled during one turn of the
 * event loop goes into ONE store transaction, and nothing an action causes
 * to be sent leaves the daemon before that transaction has committed.
 *
 * An action (game.c: a try, an ending, ...) is opened with
 * batch_begin_action(), which also arms the end-of-turn hand-over.  Its
 * rows are not written then: ops->write runs later, inside the batch's
 * transaction, ON THE STORE WRITER THREAD with the writer's own database
 * connection (so write must touch only what its arg owns and nothing the
 * loop may change meanwhile).  What the action announces is handed to
 * batch_hold_*() and held.  At the end of the turn the batch goes to the
 * writer thread; the event loop keeps serving.  When the writer is done,
 * back on the loop:
 *   commit ok  -> the held messages go out in the order they were held
 *                 (one for a connection to it if it still exists; one for
 *                 a user through ops->send_user), then ops->committed for
 *                 each action;
 *   commit bad -> rolled back; the held messages are dropped and
 *                 ops->failed runs for each action (it puts the in-memory
 *                 state back and answers its requester, if any: batch.c
 *                 sends nothing itself).  Every action of the NEXT batch
 *                 (opened while this one was committing) in the same group
 *                 (game.c: the same game) fails with it: it was built on
 *                 the state just undone.
 * Then the work queued with batch_after*() on that batch runs (requests
 * that had to wait for its outcome), in the order it was queued.
 *
 * One batch commits at a time; while it does, new actions go into the
 * next one, handed over once the first is done.  So batches commit in
 * the order they were opened, and per game actions commit in order.
 *
 * "End of the turn" is a libevent event made active when the batch opens.
 * kriegd's base has one priority, and an event made active from inside a
 * callback is appended to the queue being run, so the hand-over runs after
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
struct line;

struct batch_ops {
	/* Write the action's rows inside the batch's transaction: STORE_OK or
	 * not.  Runs on the store writer thread (see above). */
	int (*write)(void *arg, struct store *st);
	/* After the commit: send a line held for user (borrowed) to that
	 * user's connections.  May be NULL if the action holds none. */
	void (*send_user)(void *arg, int64_t user, const struct line *msg);
	/* After the commit, after the held messages went out. */
	void (*committed)(void *arg);
	/* The commit failed and was rolled back: undo the action in memory
	 * and tell its requester, if any, that nothing was changed. */
	void (*failed)(void *arg);
	/* Last call for arg, either way. */
	void (*free)(void *arg);
};

/* Starts the store writer thread with its own connection to srv->store's
 * database (store_open_writer); fatal if that cannot be done. */
struct batch *batch_new(struct server *srv);
/* Drains (batch_flush), stops the writer, then frees. */
void batch_free(struct batch *b);

/* Open one action of this turn.  group: actions of one group depend on
 * each other (a game); see "commit bad" above.  Never fails (allocation
 * failure aborts). */
struct batch_action *batch_begin_action(struct batch *b, const struct batch_ops *ops, void *arg,
                                        const void *group);
/* Hold a message of action a for one connection (msg stolen, encoded now:
 * line.h) / for every connection of a user (a reference of msg stolen;
 * resolved when it is released).  NULL holds nothing. */
void batch_hold_conn(struct batch_action *a, uint64_t conn_id, json_t *msg);
void batch_hold_user(struct batch_action *a, int64_t user, struct line *msg);

/*
 * The deferral rule — the one place it is explained; game_cmd.c applies
 * it to every request about games (a move, a view, `possible`, a draw,
 * `games`) and to the game states sent at login:
 *
 * A request of user U about a group (a game; NULL: all of U's games)
 * waits only while an uncommitted action of that group has produced
 * something addressed to U — a message held for U (an event with U's
 * audience bit), or for one of U's connections (the answer to U's own
 * request) — and then runs as if it had just arrived.  So its answer
 * never overtakes those announcements, nor shows or builds on a state U
 * was told of that may still be undone.
 *
 * An action nobody but its actor hears of (icc: Black's illegal try,
 * heard by Black alone) delays and changes nothing White is answered: it
 * cannot change what White may see (the position, the side to move, the
 * clocks and the draw offer change only by actions both hear), views are
 * replayed from committed rows, and an action White takes meanwhile joins
 * the next batch, behind it.  If that commit fails, White's later action
 * in the same game fails with it (`storage`, the group rule above): the
 * only way Black's private try can reach White, through a storage
 * failure, never through its timing.
 */
/* Does an uncommitted action of group hold a message for user? */
bool batch_waiting(const struct batch *b, const void *group, int64_t user);
/* Run fn(arg) once every uncommitted action of group holding a message
 * for user is committed or failed; at once if there is none. */
void batch_after_waiting(struct batch *b, const void *group, int64_t user,
                         void (*fn)(void *arg), void *arg);
/* Run fn(arg) after every action opened so far; at once if none is open. */
void batch_after(struct batch *b, void (*fn)(void *arg), void *arg);
/*
 * An action's tags (bits, the caller's meaning; every action has
 * BATCH_TAG_ANY): batch_tag() adds some.  batch_after_tagged() runs
 * fn(arg) once every uncommitted action of group carrying one of tags is
 * committed or failed, at once if there is none: for a reader who hears
 * only some of a group's actions (a game's spectators: game.c tags the
 * actions they hear something of), so that waiting for one it does not
 * hear, opened after, does not tell its timing.
 */
enum { BATCH_TAG_ANY = 1u };
void batch_tag(struct batch_action *a, unsigned tags);
/* Is an action of group carrying one of tags uncommitted? */
bool batch_holds(const struct batch *b, const void *group, unsigned tags);
void batch_after_tagged(struct batch *b, const void *group, unsigned tags,
                        void (*fn)(void *arg), void *arg);

/* Is an action waiting for its commit (open or committing)? */
bool batch_is_open(const struct batch *b);
/* Commit everything now and wait for it, releasing or refusing as above
 * (shutdown, before the connections go). */
void batch_flush(struct batch *b);

/* Transactions committed so far. */
uint64_t batch_commits(const struct batch *b);


#endif
