/*
 * dispatch.h — requests are dispatched from tables of {type, flags,
 * fields, proceed}.  Every field of a request is checked (presence, type,
 * size) against the table before the handler runs, so handlers never see
 * a wrong type; unknown fields are an error.
 *
 * A handler answers with exactly one dispatch_ok()/dispatch_error(), now
 * or later (password hashing answers from a worker's completion).  To
 * answer later, keep conn_id() and the request id (json_incref), and look
 * the connection up again with conn_find().
 */
#ifndef KRIEG_DISPATCH_H
#define KRIEG_DISPATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct conn;
struct server;

enum field_kind {
	F_STRING = 1,     /* max: longest length in bytes */
	F_INT,            /* max: largest value; never below 0 */
	F_BOOL,
	F_STRINGS,        /* array of strings; max: most elements (each <= 32 bytes) */
	F_OBJECT,         /* checked by the handler */
	F_COUNT,          /* an F_INT never below 1 (a limit, seconds to add) */
};

struct field {
	const char *name;
	enum field_kind kind;
	int required;
	long long max;
};

enum cmd_flags {
	CMD_BEFORE_HELLO = 1,   /* allowed before hello (hello and ping only) */
	CMD_NO_LOGIN = 2,       /* allowed before login (register, login, guest, resume) */
	CMD_REPLAYS = 4,        /* reads games' records (a replay): waits while its
	                           address's bucket is in debt (conn_defer_replay) */
	CMD_UMPIRE = 8,         /* needs the role umpire or admin, */
	CMD_ADMIN = 16,         /* or admin: read at each request and checked before
	                           the fields, so a refusal says nothing of them */
};
/* A request not marked CMD_REPLAYS that reads more rows of records than
 * this is logged (DISPATCH_UNMARKED_LOG): it should be marked; the
 * integration tests fail on that line. */
#define DISPATCH_UNMARKED_ROWS 64
#define DISPATCH_UNMARKED_LOG "is not marked CMD_REPLAYS"


struct cmd {
	const char *type;
	unsigned flags;
	const struct field *fields;   /* NULL-name terminated; "id" and "type" are implicit */
	void (*proceed)(struct conn *c, json_t *id, json_t *req);
};

/* Does c's account hold the role `flags` asks (CMD_UMPIRE or CMD_ADMIN),
 * read now?  Answers `forbidden` when not.  dispatch_line asks it of a
 * flagged request before its fields (PROTOCOL.md "Checking a request"),
 * so that a refusal is the same whatever they hold; a handler asks again
 * after work off the loop. */
bool dispatch_role_allows(struct conn *c, json_t *id, unsigned flags);

/* Each module exports one NULL-type-terminated table; dispatch.c lists them. */
extern const struct cmd conn_cmds[];    /* hello, ping (dispatch.c) */
extern const struct cmd auth_cmds[];    /* register, login, guest, resume, logout (auth.c) */
extern const struct cmd lobby_cmds[];   /* who, seek, seeks, challenge, accept, rematch, pair, decline, cancel, lobby_watch, lobby_unwatch (lobby.c) */
extern const struct cmd game_cmds[];    /* move, any, resign, draw, abort, games, game, possible (game_cmd.c) */
extern const struct cmd history_cmds[]; /* history, record, pgn (history.c) */
extern const struct cmd chat_cmds[];    /* say, spec, tell, mute, unmute, mutes (chat.c) */
extern const struct cmd watch_cmds[];   /* live, watch, umpire, unwatch (watch.c) */
extern const struct cmd club_cmds[];    /* standings, profile (club.c) */
extern const struct cmd follow_cmds[];  /* follow, unfollow (follow.c) */
extern const struct cmd admin_cmds[];   /* users, user_create, ..., audit (admin.c) */

/* The i-th registered request of all the tables above, in dispatch order;
 * NULL past the last (tests: every request is documented in PROTOCOL.md). */
const struct cmd *dispatch_cmd_at(size_t i);

/*
 * Lists (seeks, who, games, history) are paged so that no reply outgrows
 * one line: `items[from..]` that fit DISPATCH_PAGE_BYTES go into j[key]
 * (at least one item), with "total" (the whole list's length) and, while
 * more remain, "next" (the `from` to ask for).  items is not stolen.
 * Returns the index after the page.
 */
#define DISPATCH_PAGE_BYTES 12000
#define DISPATCH_FROM_MAX (1LL << 30)
size_t dispatch_page(json_t *j, const char *key, json_t *items, size_t from);
/* The same page of a list of n items that are built one at a time, only
 * those of the page (and the one past it): item(i, arg) returns item i, a
 * new reference.  For server-wide lists (`who`, `live`, `seeks`), whose
 * items cost a lookup each: a page costs its own items, not the whole
 * list's (and a client reading every page, the list once). */
size_t dispatch_page_built(json_t *j, const char *key, size_t n, size_t from,
                           json_t *(*item)(size_t i, void *arg), void *arg);
/* Answer ok with the page of items (consumed) that req's "from" asks for;
 * j (NULL: none) holds the answer's other fields, stolen. */
void dispatch_ok_page(struct conn *c, json_t *id, json_t *req, json_t *j, const char *key,
                      json_t *items);
/* A page built as its items come, one at a time (a replay of a record:
 * dispatch_page_built is one too): pager_wants says whether the next item
 * is one of the page, to be built and given to pager_take; any other is
 * only counted (pager_take with NULL, or with an item, which it frees).
 * pager_finish puts the page, "total" and "next" into j (as
 * dispatch_page) and returns the index after the page; pager_free drops
 * an unfinished one. */
struct pager {
	size_t from, n, bytes, next;
	size_t end;        /* items from this index on are not the list's (SIZE_MAX: none) */
	bool closed;
	json_t *page;
};
void pager_init(struct pager *p, size_t from);
bool pager_wants(const struct pager *p);
void pager_take(struct pager *p, json_t *it);
size_t pager_finish(struct pager *p, json_t *j, const char *key);
void pager_free(struct pager *p);

/* The `from` a paged request asks for (0 when absent). */
size_t dispatch_from(const json_t *req);
/* A new answer object holding dispatch_page_built's page of req's `from`
 * (to be sent with dispatch_ok, after any read transaction around the
 * building has ended: sending may close a connection, and its hooks
 * write). */
json_t *dispatch_page_of(const json_t *req, const char *key, size_t n,
                         json_t *(*item)(size_t i, void *arg), void *arg);

/* Decode and run one line. */
void dispatch_line(struct conn *c, const char *line, size_t len);

/*
 * What a request read from the store beyond its line: the rows of games'
 * records it listed (store_record_rows), a replay's cost.  Take a mark
 * before the work, then charge c the rows read since, rate_rows a token
 * (conn_rate_charge; a client in debt is held, not refused).  Each row is
 * charged once: work that nests (a login's hooks inside the login
 * request) charges only what the inner charge left.  dispatch_line does
 * this around every handler; work that answers later (a login after its
 * password was hashed) does it around its own part.
 */
uint64_t dispatch_rows_mark(const struct server *srv);
void dispatch_charge_rows(struct conn *c, uint64_t mark);

/* The request dispatch_line runs now (server.h: srv->req). */
struct dispatch_req {
	const char *line;
	size_t len;
	bool rerun;          /* back from the reader: its replay was made there */
	bool replays;        /* CMD_REPLAYS */
};

/*
 * A long replay off the loop (reader.h).  A CMD_REPLAYS handler that finds
 * the replay it needs not yet made (a long record's PGN text or marks)
 * asks dispatch_can_offload(); if true it hands ops and arg (ops->done
 * frees arg) to dispatch_offload() and returns without answering: the job
 * runs on the reader thread while the connection is held, then ops->done
 * puts what it built into the cache on the loop, and the request runs
 * again from its line.  The rows it will read (`rows`, the actions to
 * replay) are charged when it is handed over, to the connection and its
 * address (conn_rate_charge), so that a reader who closes at once still
 * pays; any rows read beyond them are charged when it is done.  It runs
 * again first, before anything the connection sent after it, and this
 * time in place: a request is sent to the reader once at most, so one
 * whose replay left the cache meanwhile is answered, not sent back.
 * dispatch_can_offload false: no reader, not a CMD_REPLAYS request, it
 * is already that second run, or another request of the connection is
 * with the reader (one that waited for a commit goes on while another is
 * out: dispatch_later_run below).
 */
struct reader_ops;
bool dispatch_can_offload(const struct conn *c);
void dispatch_offload(struct conn *c, const struct reader_ops *ops, void *arg, uint64_t rows);

/*
 * A connection's requests that wait (for a commit: game_cmd.c, watch.c)
 * are kept in its queue, in the order sent, and run in that order: a
 * connection's requests about a game are carried out and answered in the
 * order sent (PROTOCOL.md), whatever each of them waits for.  Only the
 * first of the queue waits for a commit: dispatch_wait_first() puts it
 * there and the caller arms it, handing dispatch_later_run() to the batch
 * (batch_after*); NULL: it is behind another after all (not reached), and
 * nothing is armed.  Every other one waits behind it:
 * dispatch_wait_behind() queues it if a request of c's is queued (true),
 * and nothing else holds it; dispatch.c runs it for every request naming
 * a game, before its handler (srv->game_waits).  When the first has run, the next
 * runs, as dispatch_line would have run it, and so on, until one must
 * wait for a commit in its turn (it is the first then, armed) or the
 * queue is empty.  A request that runs as the first of its queue (and
 * one back from the reader) is behind nothing: if it must wait again it
 * goes back to the front.  Before, each waiting request was held by the
 * turn it waited for, and one that waited again was queued on the newest
 * turn while the request sent after it, held by an older one, ran first
 * (the ordering re-probe: a chair's notes stored out of order).
 *
 * A request run from the queue runs as dispatch_line would run it: the
 * rows it reads are charged to c, its line (req again, with its id and
 * type) is at hand, so that it too may hand a long replay to the reader
 * (unless it had already come back from there when it began to wait: a
 * request goes to the reader once at most; what is queued behind it waits
 * for its return), and it is run as the account that sent it: if c logged
 * out or in as another meanwhile, it is answered not_logged_in.  id and
 * req are referenced; both NULL: a login's game states (charged only).
 * A closing connection's queue is not run; a closed one's is freed
 * (dispatch_queue_free, from conn.c), the armed first when its commit is
 * done.
 */
struct dispatch_later;
typedef void (*dispatch_proceed_fn)(struct conn *c, json_t *id, json_t *req);
/* A connection's requests waiting at most: with this many queued, its
 * input is neither read nor run until one has run (conn.c; about 750
 * bytes a request: a client pipelining behind a commit held by a slow
 * disk grew the daemon by 15 MB for 20,000, hostile-input probe). */
#define DISPATCH_QUEUE_MAX 256
bool dispatch_queue_full(const struct conn *c);
bool dispatch_wait_behind(struct conn *c, json_t *id, json_t *req, dispatch_proceed_fn proceed);
struct dispatch_later *dispatch_wait_first(struct conn *c, json_t *id, json_t *req,
                                           dispatch_proceed_fn proceed);
void dispatch_later_run(void *later);
/* Is a request of c queued that goes on with proceed (game.c: a login's
 * game states)? */
bool dispatch_waits_with(const struct conn *c, dispatch_proceed_fn proceed);
void dispatch_queue_free(struct conn *c);

/* An error's message at most (bytes, its NUL included): longer ones are cut,
 * at a character. */
#define DISPATCH_MESSAGE_MAX 512

/* The responses built without sending (group commit holds them until the
 * commit): fields stolen, may be NULL.  An error's message is sent as valid
 * UTF-8 whatever it holds (bytes of no whole character left out). */
json_t *dispatch_ok_msg(json_t *id, json_t *fields);
json_t *dispatch_error_msg(json_t *id, enum proto_error code, const char *message);

/* Answer a request.  fields (stolen, may be NULL) are merged into the reply. */
void dispatch_ok(struct conn *c, json_t *id, json_t *fields);
void dispatch_error(struct conn *c, json_t *id, enum proto_error code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Refused for now (retry_after): error.retry_after is wait_ms in whole
 * seconds, rounded up. */
void dispatch_retry_after(struct conn *c, json_t *id, int64_t wait_ms, const char *message);

#endif
