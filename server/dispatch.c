/*
 * dispatch.c — one line in, one typed request out to its handler.
 *
 * The order of checks is the contract of PROTOCOL.md: parse (bad_json) →
 * rate limit → id (bad_request) → type (bad_request/unknown_type) →
 * hello_first → not_logged_in → the role (forbidden) → every field
 * (bad_request) → handler.
 * Nothing a handler owns changes before all checks pass.
 */
#include "dispatch.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "config.h"
#include "conn.h"
#include "log.h"
#include "proto.h"
#include "reader.h"
#include "server.h"
#include "store.h"
#include "text.h"
#include "xmalloc.h"

static void cmd_hello(struct conn *c, json_t *id, json_t *req);
static void cmd_ping(struct conn *c, json_t *id, json_t *req);

#define HELLO_VERSION_MAX 1000000
#define HELLO_CLIENT_MAX 64

static const struct field hello_fields[] = {
	{ "version", F_INT, 1, HELLO_VERSION_MAX },
	{ "client", F_STRING, 0, HELLO_CLIENT_MAX },
	{ NULL, 0, 0, 0 },
};

static const struct field no_fields[] = {
	{ NULL, 0, 0, 0 },
};

const struct cmd conn_cmds[] = {
	{ "hello", CMD_BEFORE_HELLO | CMD_NO_LOGIN, hello_fields, cmd_hello },
	{ "ping", CMD_BEFORE_HELLO | CMD_NO_LOGIN, no_fields, cmd_ping },
	{ NULL, 0, NULL, NULL },
};

static const struct cmd *const cmd_tables[] = { conn_cmds, auth_cmds, lobby_cmds, game_cmds,
                                               history_cmds, club_cmds, watch_cmds, follow_cmds,
                                               admin_cmds, chat_cmds };

/* The string element size limit of F_STRINGS. */
#define FIELD_STRINGS_ITEM_MAX 32

static const struct cmd *find_cmd(const char *type)
{
	for (size_t t = 0; t < sizeof cmd_tables / sizeof cmd_tables[0]; t++)
		for (const struct cmd *cmd = cmd_tables[t]; cmd->type != NULL; cmd++)
			if (strcmp(cmd->type, type) == 0)
				return cmd;
	return NULL;
}

const struct cmd *dispatch_cmd_at(size_t i)
{
	for (size_t t = 0; t < sizeof cmd_tables / sizeof cmd_tables[0]; t++)
		for (const struct cmd *cmd = cmd_tables[t]; cmd->type != NULL; cmd++)
			if (i-- == 0)
				return cmd;
	return NULL;
}

/* An id is an integer, or a string of at most PROTO_ID_MAX bytes. */
static bool id_valid(const json_t *id)
{
	return (json_is_integer(id) && json_integer_value(id) >= 0) ||
	       (json_is_string(id) && json_string_length(id) <= PROTO_ID_MAX);
}

static const char *kind_name(enum field_kind k)
{
	switch (k) {
	case F_STRING: return "a string";
	case F_INT:
	case F_COUNT: return "an integer";
	case F_BOOL: return "a boolean";
	case F_STRINGS: return "an array of strings";
	case F_OBJECT: return "an object";
	}
	return "?";
}

/* 0 if v fits f; otherwise writes why into msg. */
static int check_field(const struct field *f, const json_t *v, char *msg, size_t len)
{
	switch (f->kind) {
	case F_STRING:
		if (!json_is_string(v))
			break;
		if (f->max > 0 && json_string_length(v) > (size_t)f->max) {
			snprintf(msg, len, "field '%s' is longer than %lld bytes", f->name, f->max);
			return -1;
		}
		return 0;
	case F_INT:
	case F_COUNT: {
		if (!json_is_integer(v))
			break;
		long long lo = f->kind == F_COUNT ? 1 : 0;
		if (json_integer_value(v) < lo || json_integer_value(v) > f->max) {
			snprintf(msg, len, "field '%s' must be from %lld to %lld", f->name, lo, f->max);
			return -1;
		}
		return 0;
	}
	case F_BOOL:
		if (!json_is_boolean(v))
			break;
		return 0;
	case F_STRINGS: {
		size_t i;
		json_t *item;

		if (!json_is_array(v))
			break;
		if (f->max > 0 && json_array_size(v) > (size_t)f->max) {
			snprintf(msg, len, "field '%s' has more than %lld elements", f->name, f->max);
			return -1;
		}
		json_array_foreach(v, i, item) {
			if (!json_is_string(item) || json_string_length(item) > FIELD_STRINGS_ITEM_MAX) {
				snprintf(msg, len, "field '%s' must hold strings of at most %d bytes",
				         f->name, FIELD_STRINGS_ITEM_MAX);
				return -1;
			}
		}
		return 0;
	}
	case F_OBJECT:
		if (!json_is_object(v))
			break;
		return 0;
	}
	snprintf(msg, len, "field '%s' must be %s", f->name, kind_name(f->kind));
	return -1;
}

static int check_fields(const struct cmd *cmd, json_t *req, char *msg, size_t len)
{
	const char *key;
	json_t *v;

	json_object_foreach(req, key, v) {
		const struct field *f;

		if (strcmp(key, "id") == 0 || strcmp(key, "type") == 0)
			continue;
		for (f = cmd->fields; f != NULL && f->name != NULL; f++)
			if (strcmp(f->name, key) == 0)
				break;
		if (f == NULL || f->name == NULL) {
			snprintf(msg, len, "unknown field '%.32s' for '%s'", key, cmd->type);
			return -1;
		}
	}
	for (const struct field *f = cmd->fields; f != NULL && f->name != NULL; f++) {
		v = json_object_get(req, f->name);
		if (v == NULL) {
			if (f->required) {
				snprintf(msg, len, "field '%s' is required", f->name);
				return -1;
			}
			continue;
		}
		if (check_field(f, v, msg, len) != 0)
			return -1;
	}
	return 0;
}

void pager_init(struct pager *p, size_t from)
{
	/* bytes: the array's brackets, with each item's comma counted below
	 * (one more than the commas), so that a page is at most
	 * DISPATCH_PAGE_BYTES as encoded. */
	*p = (struct pager){ .from = from, .end = SIZE_MAX, .bytes = 1, .page = json_array() };
}

bool pager_wants(const struct pager *p)
{
	return p->n >= p->from && p->n < p->end && !p->closed;
}

void pager_take(struct pager *p, json_t *it)
{
	if (it != NULL && pager_wants(p)) {
		/* The item's encoded length (json_dumpb with no buffer), and the
		 * comma or bracket beside it.  The first item of a page always
		 * goes in. */
		size_t len = json_dumpb(it, NULL, 0, JSON_COMPACT) + 1;
		if (p->n > p->from && p->bytes + len > DISPATCH_PAGE_BYTES) {
			p->closed = true;
			p->next = p->n;
			json_decref(it);
		} else {
			p->bytes += len;
			json_array_append_new(p->page, it);
		}
	} else {
		json_decref(it);
	}
	p->n++;
}

size_t pager_finish(struct pager *p, json_t *j, const char *key)
{
	json_object_set_new(j, key, p->page);
	p->page = NULL;
	if (p->n > p->end)   /* counted past the list's end: not the list's */
		p->n = p->end;
	json_object_set_new(j, "total", json_integer((json_int_t)p->n));
	if (p->closed)
		json_object_set_new(j, "next", json_integer((json_int_t)p->next));
	return p->closed ? p->next : p->n;
}

void pager_free(struct pager *p)
{
	json_decref(p->page);
	p->page = NULL;
}

size_t dispatch_page_built(json_t *j, const char *key, size_t n, size_t from,
                           json_t *(*item)(size_t i, void *arg), void *arg)
{
	struct pager p;

	pager_init(&p, from);
	p.n = from < n ? from : n;   /* the items before the page: not built */
	while (p.n < n && !p.closed)
		pager_take(&p, item(p.n, arg));
	p.n = n;                      /* nor those after it */
	return pager_finish(&p, j, key);
}

static json_t *array_item(size_t i, void *arg)
{
	return json_incref(json_array_get(arg, i));
}

size_t dispatch_page(json_t *j, const char *key, json_t *items, size_t from)
{
	return dispatch_page_built(j, key, json_array_size(items), from, array_item, items);
}

size_t dispatch_from(const json_t *req)
{
	return (size_t)json_integer_value(json_object_get(req, "from"));
}

void dispatch_ok_page(struct conn *c, json_t *id, json_t *req, json_t *j, const char *key,
                      json_t *items)
{
	if (j == NULL)
		j = json_object();
	dispatch_page(j, key, items, dispatch_from(req));
	json_decref(items);
	dispatch_ok(c, id, j);
}

json_t *dispatch_page_of(const json_t *req, const char *key, size_t n,
                         json_t *(*item)(size_t i, void *arg), void *arg)
{
	json_t *j = json_object();

	dispatch_page_built(j, key, n, dispatch_from(req), item, arg);
	return j;
}

static bool role_permits(struct conn *c, unsigned flags)
{
	int role = auth_user_role(conn_server(c), conn_user(c));
	return (flags & CMD_ADMIN) ? role == AUTH_ROLE_ADMIN : role >= AUTH_ROLE_UMPIRE;
}

static void refuse_role(struct conn *c, json_t *id, unsigned flags)
{
	dispatch_error(c, id, PE_FORBIDDEN, (flags & CMD_ADMIN) ? "only admins may do this"
	                                                         : "only umpires and admins may do this");
}

bool dispatch_role_allows(struct conn *c, json_t *id, unsigned flags)
{
	if (role_permits(c, flags))
		return true;
	refuse_role(c, id, flags);
	return false;
}

/* A request about a game, its fields checked when its turn comes
 * (dispatch_line), then its handler. */
static void checked_run(struct conn *c, json_t *id, json_t *req)
{
	const struct cmd *cmd = find_cmd(json_string_value(json_object_get(req, "type")));
	char msg[256];
	if (cmd == NULL)
		return;
	if (check_fields(cmd, req, msg, sizeof msg) != 0) {
		dispatch_error(c, id, PE_BAD_REQUEST, "%s", msg);
		return;
	}
	cmd->proceed(c, id, req);
}

/* A request its sender's role does not allow, refused in its turn
 * (dispatch_line). */
static void refused_role(struct conn *c, json_t *id, json_t *req)
{
	const struct cmd *cmd = find_cmd(json_string_value(json_object_get(req, "type")));
	refuse_role(c, id, cmd != NULL ? cmd->flags : CMD_UMPIRE);
}

/* A line of spaces, tabs and carriage returns: a `\r` is blank too, as the
 * line door drops one before `\n` (a WebSocket message "\r" was bad_json,
 * a line "\r\r" too: hostile-input probe). */
static bool blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			return false;
	return true;
}

/* A line past the connection's rate: refused, and the flooder closed. */
static void refuse_rate(struct conn *c, json_t *id, enum conn_rate rate)
{
	dispatch_error(c, id, PE_RATE_LIMITED, "too many requests; slow down");
	if (rate == CONN_RATE_CLOSE)
		conn_close(c, "rate limit: flooding");
}

static void queue_go_on(struct server *srv, uint64_t id);

/* Does the request name a game (a "game" field in its spec)? */
static bool about_game(const struct cmd *cmd)
{
	for (const struct field *f = cmd->fields; f != NULL && f->name != NULL; f++)
		if (strcmp(f->name, "game") == 0)
			return true;
	return false;
}

/*
 * A request about a game waits, before its handler runs (and so before
 * any refusal of it), behind c's waiting requests, and for the commit of
 * an action that addressed c's user in that game (its own, or one it
 * hears): so a connection's requests about a game are answered in the
 * order sent, and each sees what was sent before it (the ordering probe:
 * a `pgn` of a live game, the chair's `record`, a `watch` behind the
 * chair's private note, and refusals, answered before an earlier move or
 * note).  The handler's own waits (game_cmd.c, watch.c) then apply.
 */
static bool game_waits(struct server *srv, const struct cmd *cmd, struct conn *c, json_t *id,
                       json_t *req, dispatch_proceed_fn proceed)
{
	return srv->game_waits != NULL && req != NULL && about_game(cmd) &&
	       srv->game_waits(c, id, req, proceed);
}

/*
 * Run a request's handler (proceed; cmd NULL: a login's game states) for c
 * as the request cur (srv->req, NULL: none), the first of c's queue when
 * head (behind none: dispatch.h), after srv->game_waits: the rows of
 * records it reads are charged to c, and one not flagged CMD_REPLAYS that
 * reads many is logged.
 */
static void run_handler(struct conn *c, const struct cmd *cmd, dispatch_proceed_fn proceed,
                        json_t *id, json_t *req, const struct dispatch_req *cur, bool head)
{
	struct server *srv = conn_server(c);
	const struct dispatch_req *outer = srv->req;
	uint64_t outer_head = srv->queue_head;
	uint64_t mark = dispatch_rows_mark(srv);
	srv->queue_head = head ? conn_id(c) : 0;
	srv->req = cur;
	if (cmd == NULL || !game_waits(srv, cmd, c, id, req, proceed))
		proceed(c, id, req);
	srv->req = outer;
	srv->queue_head = outer_head;
	uint64_t rows = dispatch_rows_mark(srv) - mark;
	if (cmd != NULL && !(cmd->flags & CMD_REPLAYS) && rows > DISPATCH_UNMARKED_ROWS)
		log_warnx("dispatch: %s read %llu rows of records and %s", cmd->type,
		          (unsigned long long)rows, DISPATCH_UNMARKED_LOG);
	dispatch_charge_rows(c, mark);
}

void dispatch_line(struct conn *c, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *req, *id = NULL, *type;
	const struct cmd *cmd;
	char msg[256];

	/* A request back from the reader (dispatch_offload) was let through
	 * and paid its token the first time. */
	bool rerun = conn_take_rerun(c);

	/* Blank lines are allowed (typing by hand) and get no answer, but they
	 * cost a token, and one past the rate is refused like any other line:
	 * a flood of blank lines was otherwise closed without a word
	 * (protocol probe). */
	if (blank(line, len)) {
		enum conn_rate rate = conn_rate_take(c);
		if (rate != CONN_RATE_OK)
			refuse_rate(c, NULL, rate);
		return;
	}
	req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (json_is_object(req)) {
		id = json_object_get(req, "id");
		if (id != NULL && !id_valid(id))
			id = NULL;
	}

	if (!rerun && json_is_object(req) && dispatch_from(req) > 0 && conn_wait_token(c, line, len))
		goto out;
	enum conn_rate rate = rerun ? CONN_RATE_OK : conn_rate_take(c);
	if (rate != CONN_RATE_OK) {
		refuse_rate(c, id, rate);
		goto out;
	}
	if (req == NULL) {
		dispatch_error(c, NULL, PE_BAD_JSON, "not JSON: %s (at byte %d)", jerr.text,
		               jerr.position);
		goto out;
	}
	if (!json_is_object(req)) {
		dispatch_error(c, NULL, PE_BAD_JSON, "a request is a JSON object");
		goto out;
	}
	if (id == NULL) {
		if (json_object_get(req, "id") == NULL)
			dispatch_error(c, NULL, PE_BAD_REQUEST, "a request needs an id");
		else
			dispatch_error(c, NULL, PE_BAD_REQUEST,
			               "id must be an integer >= 0 or a string of at most %d bytes",
			               PROTO_ID_MAX);
		goto out;
	}
	type = json_object_get(req, "type");
	if (!json_is_string(type)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "type must be a string");
		goto out;
	}
	cmd = find_cmd(json_string_value(type));
	if (cmd == NULL) {
		dispatch_error(c, id, PE_UNKNOWN_TYPE, "unknown request type '%.32s'",
		               json_string_value(type));
		goto out;
	}
	if (!conn_hello_done(c) && !(cmd->flags & CMD_BEFORE_HELLO)) {
		dispatch_error(c, id, PE_HELLO_FIRST, "send hello first");
		goto out;
	}
	if (!(cmd->flags & CMD_NO_LOGIN) && conn_user(c) == 0) {
		if (auth_password_change_pending(c))
			dispatch_error(c, id, PE_PASSWORD_CHANGE_REQUIRED,
			               "change your password first: passwd {old, new}");
		else
			dispatch_error(c, id, PE_NOT_LOGGED_IN, "log in first");
		goto out;
	}
	if ((cmd->flags & (CMD_UMPIRE | CMD_ADMIN)) && !role_permits(c, cmd->flags)) {
		/* Refused before its fields are read (the refusal names nothing
		 * of a game), but in its turn: behind what the connection sent
		 * before about the same game (re-probe: a player's clock_pause
		 * refused before their move was answered). */
		struct dispatch_req cur = { line, len, rerun, false };
		run_handler(c, cmd, refused_role, id, req, &cur, rerun);
		goto out;
	}
	/* A request about a game has its fields checked in its turn too
	 * (checked_run), so that even a bad one is answered in order. */
	bool in_turn = about_game(cmd);
	if (!in_turn && check_fields(cmd, req, msg, sizeof msg) != 0) {
		dispatch_error(c, id, PE_BAD_REQUEST, "%s", msg);
		goto out;
	}
	if ((cmd->flags & CMD_REPLAYS) && !rerun && conn_defer_replay(c, line, len))
		goto out;
	log_debug("conn=%llu request type=%s", (unsigned long long)conn_id(c), cmd->type);
	struct dispatch_req cur = { line, len, rerun, (cmd->flags & CMD_REPLAYS) != 0 };
	/* A fresh line is behind c's queue; one back from the reader was
	 * the first of it (or c had none) when it went there. */
	run_handler(c, cmd, in_turn ? checked_run : cmd->proceed, id, req, &cur, rerun);
out:
	/* Back from the reader, run or refused: what was queued behind it goes
	 * on (code review: a rerun refused "log in first" left it stranded). */
	if (rerun)
		queue_go_on(conn_server(c), conn_id(c));
	json_decref(req);
}

/* A job of the reader for a request: the handler's, and whose it is. */
struct offload {
	const struct reader_ops *ops;
	void *arg;
	struct server *srv;
	uint64_t conn;
	uint64_t charged;            /* rows charged when it was handed over */
};

static void offload_run(void *arg, struct store *st)
{
	struct offload *o = arg;
	o->ops->run(o->arg, st);
}

static void offload_done(void *arg, uint64_t rows)
{
	struct offload *o = arg;
	struct server *srv = o->srv;
	uint64_t conn = o->conn;

	uint64_t more = rows > o->charged ? rows - o->charged : 0;

	o->ops->done(o->arg, rows);
	free(o);
	conn_offload_done(srv, conn, (double)more / srv->cfg->rate_rows);
}

static const struct reader_ops offload_ops = { offload_run, offload_done };

bool dispatch_can_offload(const struct conn *c)
{
	const struct server *srv = conn_server((struct conn *)c);
	/* Not while a login of the connection is being checked: the request
	 * comes back as a line and would run as whoever it logged in as (code
	 * review: a queued request, run when its commit was done, behind a
	 * login sent after it). */
	return srv->reader != NULL && srv->req != NULL && srv->req->replays && !srv->req->rerun &&
	       !conn_offloaded(c) && !conn_authing(c);
}

/* ---- a connection's queue of waiting requests (dispatch.h) ---- */

struct dispatch_later {
	struct dispatch_later *next;   /* behind it in its connection's queue */
	struct server *srv;
	uint64_t conn;
	json_t *id, *req;
	dispatch_proceed_fn proceed;
	bool rerun;                    /* back from the reader when it began to wait */
	bool armed;                    /* the first: a commit's waiting work holds it */
	int64_t user;                  /* whose request it is: run as no one else */
};

static struct dispatch_later *later_new(struct conn *c, json_t *id, json_t *req,
                                        dispatch_proceed_fn proceed)
{
	struct server *srv = conn_server(c);
	struct dispatch_later *l = xcalloc(1, sizeof *l);
	l->srv = srv;
	l->conn = conn_id(c);
	l->id = id != NULL ? json_incref(id) : NULL;
	l->req = req != NULL ? json_incref(req) : NULL;
	l->proceed = proceed;
	l->rerun = srv->req != NULL && srv->req->rerun;
	l->user = conn_user(c);
	return l;
}

static void later_free(struct dispatch_later *l)
{
	json_decref(l->id);
	json_decref(l->req);
	free(l);
}

/* Must c's request wait behind its queue (not the first of it, running)? */
static bool dispatch_behind(struct conn *c)
{
	return *conn_queue(c) != NULL && conn_server(c)->queue_head != conn_id(c);
}

bool dispatch_wait_behind(struct conn *c, json_t *id, json_t *req, dispatch_proceed_fn proceed)
{
	if (!dispatch_behind(c))
		return false;
	struct dispatch_later **p = conn_queue(c);
	while (*p != NULL)
		p = &(*p)->next;
	*p = later_new(c, id, req, proceed);
	log_debug("conn=%llu request waits behind the connection's", (unsigned long long)conn_id(c));
	return true;
}

struct dispatch_later *dispatch_wait_first(struct conn *c, json_t *id, json_t *req,
                                           dispatch_proceed_fn proceed)
{
	struct dispatch_later **q = conn_queue(c);
	if (*q != NULL && (*q)->armed) {
		/* Not reached (only the first is armed, and a request that runs
		 * as the first was taken off): behind it, then, not a second. */
		log_warnx("dispatch: conn=%llu has a first request waiting already",
		          (unsigned long long)conn_id(c));
		while (*q != NULL)
			q = &(*q)->next;
		*q = later_new(c, id, req, proceed);
		return NULL;
	}
	struct dispatch_later *l = later_new(c, id, req, proceed);
	l->armed = true;
	l->next = *q;
	*q = l;
	log_debug("conn=%llu request waits for the turn's commit", (unsigned long long)conn_id(c));
	return l;
}

bool dispatch_queue_full(const struct conn *c)
{
	size_t n = 0;
	for (const struct dispatch_later *l = *conn_queue((struct conn *)c); l && n < DISPATCH_QUEUE_MAX;
	     l = l->next)
		n++;
	return n >= DISPATCH_QUEUE_MAX;
}

bool dispatch_waits_with(const struct conn *c, dispatch_proceed_fn proceed)
{
	for (const struct dispatch_later *l = *conn_queue((struct conn *)c); l; l = l->next)
		if (l->proceed == proceed)
			return true;
	return false;
}

/* Drop c's queue: the armed first stays with its commit's waiting work,
 * which finds c gone and frees it (dispatch_later_run). */
static void queue_drop(struct conn *c)
{
	struct dispatch_later **q = conn_queue(c), *l = *q;
	*q = NULL;
	while (l != NULL) {
		struct dispatch_later *next = l->next;
		l->next = NULL;
		if (!l->armed)
			later_free(l);
		l = next;
	}
}

void dispatch_queue_free(struct conn *c)
{
	queue_drop(c);
}

/* Run l, taken off c's queue, as dispatch_line would have run it. */
static void later_run(struct conn *c, struct dispatch_later *l)
{
	if (conn_user(c) != l->user) {
		/* The connection logged out, or in as another account, while the
		 * request waited (a `guest` or `logout` sent behind it runs at
		 * once): it is not run as someone it was not sent by (probe: a
		 * `games` behind which a `guest` ran answered the guest's).  A
		 * login's game states go with their login, unanswered. */
		if (l->req != NULL)
			dispatch_error(c, l->id, PE_NOT_LOGGED_IN,
			               "the account that sent this is no longer logged in here");
		return;
	}
	const struct cmd *cmd =
	    l->req != NULL ? find_cmd(json_string_value(json_object_get(l->req, "type"))) : NULL;
	/* Its line again, to be kept first if it goes to the reader. */
	char *line = cmd != NULL ? json_dumps(l->req, JSON_COMPACT) : NULL;
	struct dispatch_req cur = { line, line != NULL ? strlen(line) : 0, l->rerun,
		                    cmd != NULL && (cmd->flags & CMD_REPLAYS) };
	run_handler(c, cmd, l->proceed, l->id, l->req, line != NULL ? &cur : NULL, true);
	free(line);
}

/* Run what waits first in conn's queue and needs no commit, in order,
 * until one waits for a commit (armed), the connection's request is with
 * the reader (its return goes on: dispatch_line), or none is left. */
static void queue_go_on(struct server *srv, uint64_t id)
{
	struct conn *c;
	struct dispatch_later *l;
	while ((c = conn_find(srv, id)) != NULL && (l = *conn_queue(c)) != NULL && !l->armed &&
	       !conn_offloaded(c)) {
		if (conn_closing(c)) {
			queue_drop(c);   /* a kick, a line too long: not run */
			return;
		}
		*conn_queue(c) = l->next;
		later_run(c, l);
		later_free(l);
	}
	/* Room again: its input goes on (it stopped at DISPATCH_QUEUE_MAX). */
	if ((c = conn_find(srv, id)) != NULL)
		conn_queue_room(c);
}

void dispatch_later_run(void *later)
{
	struct dispatch_later *l = later;
	struct server *srv = l->srv;
	uint64_t id = l->conn;
	struct conn *c = conn_find(srv, id);
	if (c == NULL) {
		later_free(l);   /* closed: its queue went with it */
		return;
	}
	struct dispatch_later **q = conn_queue(c);
	while (*q != NULL && *q != l)
		q = &(*q)->next;
	if (*q == NULL) {   /* detached (its queue dropped): not run */
		later_free(l);
		return;
	}
	*q = l->next;
	if (conn_closing(c))
		queue_drop(c);
	else
		later_run(c, l);
	later_free(l);
	queue_go_on(srv, id);
}

void dispatch_offload(struct conn *c, const struct reader_ops *ops, void *arg, uint64_t rows)
{
	struct server *srv = conn_server(c);
	struct offload *o = xcalloc(1, sizeof *o);

	o->ops = ops;
	o->arg = arg;
	o->srv = srv;
	o->conn = conn_id(c);
	o->charged = rows;
	if (!conn_offload(c, srv->req->line, srv->req->len))
		o->conn = 0;   /* closing: the job still fills the cache */
	/* Charged now, to the connection and its address, so that closing
	 * before the job is done does not make the replay free (its answer
	 * still goes out first: conn_offload_done). */
	conn_rate_charge(c, (double)rows / srv->cfg->rate_rows);
	log_debug("conn=%llu replay goes to the reader", (unsigned long long)o->conn);
	reader_submit(srv->reader, &offload_ops, o);
}

uint64_t dispatch_rows_mark(const struct server *srv)
{
	return srv->store != NULL ? store_record_rows(srv->store) : 0;
}

void dispatch_charge_rows(struct conn *c, uint64_t mark)
{
	struct server *srv = conn_server(c);
	uint64_t now = dispatch_rows_mark(srv);

	if (mark < srv->rows_charged)
		mark = srv->rows_charged;
	srv->rows_charged = now;
	if (now > mark)
		conn_rate_charge(c, (double)(now - mark) / srv->cfg->rate_rows);
}

json_t *dispatch_ok_msg(json_t *id, json_t *fields)
{
	json_t *resp = json_object();
	const char *key;
	json_t *v;

	json_object_set(resp, "id", id != NULL ? id : json_null());
	json_object_set_new(resp, "ok", json_true());
	if (fields != NULL) {
		json_object_foreach(fields, key, v) {
			if (strcmp(key, "id") != 0 && strcmp(key, "ok") != 0)
				json_object_set(resp, key, v);
		}
		json_decref(fields);
	}
	return resp;
}

/* in, with every byte that is not part of a whole UTF-8 character left
 * out, into out (cut at a character to fit len). */
static const char *utf8_whole(const char *in, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0, k;

	while (*p != '\0') {
		k = text_utf8_seq(p, strnlen((const char *)p, 4));
		if (k == 0) {
			p++;
			continue;
		}
		if (n + k >= len)
			break;
		memcpy(out + n, p, k);
		n += k;
		p += k;
	}
	out[n] = '\0';
	return out;
}

json_t *dispatch_error_msg(json_t *id, enum proto_error code, const char *message)
{
	const char *name = proto_error_name(code);
	char whole[DISPATCH_MESSAGE_MAX];

	/* jansson takes only UTF-8, and a message it refused was no answer at
	 * all (a request left unanswered): one quoting a client's text cut by
	 * bytes (an unknown type's first 32) could end inside a character.
	 * Such bytes are left out. */
	return json_pack("{s:O, s:b, s:{s:s, s:s}}", "id", id != NULL ? id : json_null(), "ok", 0,
	                 "error", "code", name != NULL ? name : "internal", "message",
	                 utf8_whole(message, whole, sizeof whole));
}

void dispatch_ok(struct conn *c, json_t *id, json_t *fields)
{
	conn_send(c, dispatch_ok_msg(id, fields));
}

void dispatch_error(struct conn *c, json_t *id, enum proto_error code, const char *fmt, ...)
{
	char msg[DISPATCH_MESSAGE_MAX], esc[LOG_ESCAPE_BUF];
	const char *name = proto_error_name(code);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (name == NULL)
		name = "internal";
	/* bad_json's message quotes the line where it broke: perhaps a
	 * password (a login's line cut short).  The client has its own line;
	 * the log keeps only the code. */
	log_debug("conn=%llu error code=%s message=\"%s\"", (unsigned long long)conn_id(c), name,
	          code == PE_BAD_JSON ? "(quotes the line: not logged)"
	                              : log_escape(msg, strlen(msg), esc, sizeof esc));
	conn_send(c, dispatch_error_msg(id, code, msg));
}

void dispatch_retry_after(struct conn *c, json_t *id, int64_t wait_ms, const char *message)
{
	json_t *m = dispatch_error_msg(id, PE_RETRY_AFTER, message);
	json_object_set_new(json_object_get(m, "error"), "retry_after",
	                    json_integer((json_int_t)((wait_ms + 999) / 1000)));
	conn_send(c, m);
}

static void cmd_hello(struct conn *c, json_t *id, json_t *req)
{
	json_int_t version = json_integer_value(json_object_get(req, "version"));
	json_t *client = json_object_get(req, "client");
	char esc[LOG_ESCAPE_BUF];

	if (version != PROTO_VERSION) {
		dispatch_error(c, id, PE_VERSION, "this server speaks protocol %d, not %lld",
		               PROTO_VERSION, (long long)version);
		return;
	}
	if (conn_hello_done(c)) {
		dispatch_error(c, id, PE_BAD_REQUEST, "hello was already received");
		return;
	}
	conn_set_hello(c);
	if (client != NULL && !conn_quiet(c))
		log_info("conn=%llu hello client=\"%s\"", (unsigned long long)conn_id(c),
		         log_escape(json_string_value(client), json_string_length(client), esc,
		                    sizeof esc));
	dispatch_ok(c, id, json_pack("{s:i, s:s}", "protocol", PROTO_VERSION, "server",
	                             KRIEGD_SERVER_NAME));
}

static void cmd_ping(struct conn *c, json_t *id, json_t *req)
{
	dispatch_ok(c, id, NULL);
}
