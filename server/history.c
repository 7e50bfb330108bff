/*
 * history.c — reading finished (and one's own) games back:
 *
 *   history {user?, limit?}  your games, newest first (live and finished);
 *                            with `user`: that user's finished games
 *   record  {game, view, from?}
 *                            a game's announcements as one audience heard
 *                            them: "white", "black" or "umpire"
 *   pgn     {game, view?}    the same record as PGN (common/pgn.h)
 *
 * Who may read what (PROTOCOL.md, "History"): a finished game is public,
 * every view of it; an unfinished one is readable by its players, only in
 * their own colour's view — never the other side's, never the umpire's
 * (its players are refused those with `forbidden`: the game is theirs) —
 * and by umpires and admins who play no live game, every view (the
 * umpire's chair's rule).  Anything else is no_such_game, whether or not
 * it exists.
 *
 * Views are the record replayed for one audience (announce_replay, announce.h:
 * the path live play and recovery take), so the SAN text and the rule
 * set's wording are the same as when the game was played.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "action.h"
#include "auth.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "event_json.h"
#include "fen.h"
#include "game.h"
#include "log.h"
#include "pgn.h"
#include "pgn_cache.h"
#include "recover.h"
#include "proto.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"
#include "announce.h"
#include "reader.h"
#include "xmalloc.h"

#define HISTORY_GAME_ID_MAX (1LL << 53)   /* JSON-safe integers */
#define HISTORY_LIMIT_DEFAULT 20
#define HISTORY_LIMIT_MAX 100
/* Longer than any view's name, so that a wrong one ("spectator") is told
 * the views, not a length. */
#define HISTORY_VIEW_MAX 32
#define HISTORY_FROM_MAX (1LL << 30)
/* PGN bytes per reply: even with every byte escaped twice over in JSON
 * ('"' -> '\"'), a reply stays well under PROTO_LINE_MAX. */
#define HISTORY_PGN_CHUNK 6000

static bool game_finished(const struct store_game *g)
{
	return g->result != RESULT_NONE || g->reason != REASON_NONE;
}

static void user_names(struct store *st, const struct store_game *g, char names[2][PROTO_NAME_MAX + 1])
{
	for (int col = WHITE; col <= BLACK; col++)
		if (store_user_name(st, col == WHITE ? g->white : g->black, names[col],
		                    PROTO_NAME_MAX + 1) != STORE_OK)
			snprintf(names[col], PROTO_NAME_MAX + 1, "?");
}

/* Is g flagged (its record failed the recovery check)?  reason gets why. */
static bool game_flagged(struct store *st, const struct store_game *g, char *reason, size_t len)
{
	return store_game_flagged(st, g->id, reason, len) == STORE_OK;
}

/* The summary of one game, as `history` lists it.  A flagged game is not
 * live (it is never played on) and says so, with the reason. */
static json_t *summary_json(struct server *srv, const struct store_game *g)
{
	struct store *st = srv->store;
	char names[2][PROTO_NAME_MAX + 1], why[256];
	bool flagged = game_flagged(st, g, why, sizeof why);

	user_names(st, g, names);
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:b, s:I, s:b}", "game", (json_int_t)g->id,
	                      "rules", g->rules, "white", names[WHITE], "black", names[BLACK],
	                      "rated", g->rated != 0, "created", (json_int_t)g->created_unix,
	                      "live", !game_finished(g) && !flagged);
	game_marks_json(srv, g, j);   /* bots too (the browser probe: not in Your games) */
	if (flagged) {
		json_object_set_new(j, "flagged", json_true());
		json_object_set_new(j, "flag_reason", json_string(RECOVER_FLAGGED_SAY));   /* why: logged */
	}
	if (g->days > 0)
		json_object_set_new(j, "time", json_pack("{s:I}", "days", (json_int_t)g->days));
	else if (g->base_ms > 0)
		json_object_set_new(j, "time", json_pack("{s:f, s:f}", "base", (double)g->base_ms / 1000.0,
		                                         "inc", (double)g->inc_ms / 1000.0));
	if (game_finished(g)) {
		const char *res = game_result_name(g->result), *rn = game_reason_name(g->reason);
		json_object_set_new(j, "result", json_string(res != NULL ? res : "*"));
		if (rn != NULL)
			json_object_set_new(j, "reason", json_string(rn));
	}
	return j;
}

/* ---- history -------------------------------------------------------------- */

struct listing {
	struct server *srv;
	json_t *arr;
};

static int listing_cb(const struct store_game *g, void *arg)
{
	struct listing *ls = arg;
	json_array_append_new(ls->arr, summary_json(ls->srv, g));
	return 0;
}

static void cmd_history(struct conn *c, json_t *id, json_t *req)
{
	struct store *st = conn_server(c)->store;
	const char *name = json_string_value(json_object_get(req, "user"));
	json_t *lim = json_object_get(req, "limit");
	int limit = lim != NULL ? (int)json_integer_value(lim) : HISTORY_LIMIT_DEFAULT;
	int64_t uid = conn_user(c);
	bool own = true;
	int rc;

	if (name != NULL) {
		struct store_user u;
		rc = store_user_find(st, name, &u);
		if (rc == STORE_NOT_FOUND) {
			dispatch_error(c, id, PE_NO_SUCH_USER, "no such user");
			return;
		}
		if (rc != STORE_OK) {
			log_warnx("history: %s", store_error(st));
			dispatch_error(c, id, PE_STORAGE, "the games could not be read");
			return;
		}
		own = u.id == uid;
		uid = u.id;
	}
	/* The page: at most `limit` games from the from-th, newest first, as
	 * many of them as fit a line; `total` and `next` are the whole list's. */
	int64_t from = (int64_t)dispatch_from(req), total = 0;
	struct listing ls = { conn_server(c), json_array() };
	rc = store_games_count_of_user(st, uid, !own, &total);
	if (rc == STORE_OK)
		rc = own ? store_games_of_user(st, uid, limit, from, listing_cb, &ls)
		         : store_games_finished_of_user(st, uid, limit, from, listing_cb, &ls);
	if (rc != STORE_OK) {
		log_warnx("history: %s", store_error(st));
		json_decref(ls.arr);
		dispatch_error(c, id, PE_STORAGE, "the games could not be read");
		return;
	}
	json_t *j = json_object();
	int64_t end = from + (int64_t)dispatch_page(j, "games", ls.arr, 0);
	json_decref(ls.arr);
	json_object_set_new(j, "total", json_integer((json_int_t)total));
	if (end < total)
		json_object_set_new(j, "next", json_integer((json_int_t)end));
	else
		json_object_del(j, "next");
	dispatch_ok(c, id, j);
}

/* ---- record ------------------------------------------------------------------ */

static int view_parse(const char *s)
{
	if (s == NULL)
		return -1;
	if (strcmp(s, "white") == 0)
		return AUD_WHITE;
	if (strcmp(s, "black") == 0)
		return AUD_BLACK;
	if (strcmp(s, "umpire") == 0)
		return AUD_UMPIRE;
	return -1;
}

/*
 * Find the game and decide whether the connection's user may read `aud`'s
 * view of it.  Sends the error and returns false if not.
 */
static bool readable(struct conn *c, json_t *id, json_t *req, unsigned aud, struct store_game *g)
{
	struct store *st = conn_server(c)->store;
	int64_t uid = conn_user(c);
	json_int_t gid = json_integer_value(json_object_get(req, "game"));
	int rc = store_game_get(st, gid, g);

	if (rc == STORE_ERROR) {
		log_warnx("game=%" PRId64 " record: %s", (int64_t)gid, store_error(st));
		dispatch_error(c, id, PE_STORAGE, "the game could not be read");
		return false;
	}
	if (rc == STORE_OK && game_finished(g))
		return true;
	/* Unfinished: a player, own colour only.  Everything else reads as
	 * "no such game", so the answer says nothing about other games. */
	if (rc == STORE_OK && ((aud == AUD_WHITE && g->white == uid) ||
	                       (aud == AUD_BLACK && g->black == uid)))
		return true;
	/* A player of it knows the game exists: the refusal says why. */
	if (rc == STORE_OK && (g->white == uid || g->black == uid)) {
		dispatch_error(c, id, PE_FORBIDDEN, "the game is not over: only your own view of it can "
		               "be read until it ends");
		return false;
	}
	/* The umpire's chair, read back (a director's PGN of a round in
	 * play): an umpire or admin reads every view of a live game on the
	 * chair's terms (watch.c, seat_game).  One who plays a live game is
	 * refused before the game is looked at, so the refusal says nothing
	 * of it. */
	if (auth_user_role(conn_server(c), uid) >= AUTH_ROLE_UMPIRE) {
		if (games_user_count(conn_server(c)->games, uid) > 0) {
			dispatch_error(c, id, PE_FORBIDDEN, "an umpire who plays a live game reads no "
			               "other unfinished game until their own ends");
			return false;
		}
		if (rc == STORE_OK)
			return true;
	}
	/* A spectator in its seat knows the game: told why (it read "no such
	 * game" of the game it watched: friends probe). */
	if (rc == STORE_OK && games_conn_spectates(conn_server(c)->games, gid, conn_id(c))) {
		dispatch_error(c, id, PE_FORBIDDEN, "the game is not over: a spectator follows it from the "
		               "seat (watch), and reads its record once it ends");
		return false;
	}
	dispatch_error(c, id, PE_NO_SUCH_GAME, "no such game");
	return false;
}

/* What the full record leaves out for the reader of game g (ANNOUNCE_
 * bits, announce.h).  An umpire's private notes (action.h, "note
 * private") stay the umpires' after the game too; not a game's own
 * players', whatever their role: notes are written about them (an umpire
 * who played it, or became one since, reads without).  Nor does the
 * spectators' channel ever reach a player of the game, after it either
 * (probe: the players read it, and who watched, in the full record). */
static unsigned record_hides(struct conn *c, const struct store_game *g)
{
	int64_t uid = conn_user(c);
	bool player = uid == g->white || uid == g->black;
	unsigned hides = player ? ANNOUNCE_NO_SPECTATORS : 0;
	if (player || auth_user_role(conn_server(c), uid) < AUTH_ROLE_UMPIRE)
		hides |= ANNOUNCE_NO_PRIVATE;
	return hides;
}

static void cmd_record(struct conn *c, json_t *id, json_t *req)
{
	struct store *st = conn_server(c)->store;
	const char *view = json_string_value(json_object_get(req, "view"));
	int aud = view_parse(view);
	size_t from = dispatch_from(req);
	struct store_game g;

	if (aud < 0) {
		dispatch_error(c, id, PE_BAD_REQUEST, "view must be white, black or umpire");
		return;
	}
	if (!readable(c, id, req, (unsigned)aud, &g))
		return;
	char why[256];
	bool flagged = game_flagged(st, &g, why, sizeof why);
	/* Only the page's events are built (announce_replay_page); the
	 * umpire's private notes are left out of the umpire's view for those
	 * who may not read them.  A flagged game's stored events (no notes:
	 * they are not events) are built whole and paged after. */
	struct pager pg;
	json_t *events = NULL;
	/* A player's own view of a live game: what they were told, as their
	 * `game` view reads it (game_view.c), no replay. */
	json_t *told = NULL;
	if (!flagged && aud != AUD_UMPIRE && !game_finished(&g)) {
		told = json_object();
		int r = games_told_record(c, id, req, cmd_record, g.id, aud == AUD_WHITE ? WHITE : BLACK,
		                          told, from);
		if (r <= 0) {
			json_decref(told);
			told = NULL;
		}
		if (r < 0)
			return;   /* it comes back after the commit */
	}
	if (told == NULL && !flagged) {
		if (announce_offload_marks(c, &g))
			return;
		/* The umpire's view says who heard each line, its notices (chat,
		 * draws, the umpire's) too, as the chair's copies do (protocol
		 * probe: a spectators' chat line came without its audience). */
		unsigned how = aud == AUD_UMPIRE ? record_hides(c, &g) | ANNOUNCE_AUDIENCE : 0;
		pager_init(&pg, from);
		if (announce_replay_page(st, conn_server(c)->replays, &g, (unsigned)aud, how, &pg) != 0) {
			pager_free(&pg);
			dispatch_error(c, id, PE_STORAGE, "the game could not be read");
			return;
		}
	} else if (flagged && (events = announce_stored(st, &g, (unsigned)aud)) == NULL) {
		dispatch_error(c, id, PE_STORAGE, "the game could not be read");
		return;
	}
	json_t *j = summary_json(conn_server(c), &g);
	json_object_set_new(j, "view", json_string(view));
	if (g.fen[0])
		json_object_set_new(j, "fen", json_string(g.fen));
	if (told != NULL) {
		json_object_update(j, told);
		json_decref(told);
	} else if (!flagged) {
		pager_finish(&pg, j, "events");
	} else {
		dispatch_page(j, "events", events, from);
	}
	json_decref(events);
	dispatch_ok(c, id, j);
}

/* ---- pgn -------------------------------------------------------------------- */

/* ms as PGN's seconds: "300", or "0.5" for a part of one (buf: 24 bytes). */
static const char *secs(int64_t ms, char *buf)
{
	if (ms % 1000 == 0) {
		snprintf(buf, 24, "%lld", (long long)(ms / 1000));
	} else {
		snprintf(buf, 24, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
		for (char *e = buf + strlen(buf) - 1; *e == '0'; e--)
			*e = '\0';
	}
	return buf;
}

/* The PGN header of game g (read on the loop: the players' names). */
static void pgn_header_of(struct store *st, const struct store_game *g, struct pgn_header *h)
{
	char names[2][PROTO_NAME_MAX + 1];

	pgn_header_init(h);
	user_names(st, g, names);
	/* a director's pairing names its tournament and round (lobby.c) */
	if (g->tournament[0])
		snprintf(h->event, sizeof h->event, "%s", g->tournament);
	else
		snprintf(h->event, sizeof h->event, "krieg game %" PRId64, g->id);
	snprintf(h->round, sizeof h->round, "%s", g->round);
	snprintf(h->site, sizeof h->site, "kriegd");
	time_t t = (time_t)g->created_unix;
	struct tm tm;
	if (gmtime_r(&t, &tm) != NULL) {   /* Date is UTC's day: said by UTCDate and UTCTime too */
		strftime(h->date, sizeof h->date, "%Y.%m.%d", &tm);
		strftime(h->utc_time, sizeof h->utc_time, "%H:%M:%S", &tm);
	}
	snprintf(h->white, sizeof h->white, "%s", names[WHITE]);
	snprintf(h->black, sizeof h->black, "%s", names[BLACK]);
	snprintf(h->rules, sizeof h->rules, "%s", g->rules);
	/* PGN's TimeControl: seconds and increment, a correspondence game's
	 * days a move as one move in so many seconds, "-" untimed. */
	if (g->days > 0)
		snprintf(h->time_control, sizeof h->time_control, "1/%lld", (long long)g->days * 86400);
	else if (g->base_ms > 0)
		snprintf(h->time_control, sizeof h->time_control, "%s+%s",
		         secs(g->base_ms, (char[24]){ 0 }), secs(g->inc_ms, (char[24]){ 0 }));
	else
		snprintf(h->time_control, sizeof h->time_control, "-");
	if (g->fen[0] && strcmp(g->fen, FEN_START) != 0)
		snprintf(h->fen, sizeof h->fen, "%s", g->fen);
}

/* The PGN text of game g's record through the action of seq `through`
 * (the last seq its cache key names) under header h, as audience aud sees
 * it, without what hides says (record_hides); NULL with err.  Logs
 * nothing: the reader thread builds texts too. */
static char *pgn_build(struct store *st, const struct pgn_header *h, int64_t game, int through,
                       unsigned aud, unsigned hides, char *err, size_t errlen)
{
	struct action *acts = NULL;
	size_t nacts = 0;
	char *text = NULL;

	int rc = recover_actions_through(st, game, through, &acts, &nacts);
	struct action_umpire u;
	if (rc == RECOVER_OK && hides != 0) {
		/* Notes and chat change nothing in the game: the record replays
		 * without them. */
		size_t k = 0;
		for (size_t i = 0; i < nacts; i++)
			if (!((hides & ANNOUNCE_NO_PRIVATE) && acts[i].kind == ACTION_NOTE &&
			      action_umpire_parse(&acts[i], &u) == REF_OK && !u.public) &&
			    !((hides & ANNOUNCE_NO_SPECTATORS) && acts[i].kind == ACTION_SPEC))
				acts[k++] = acts[i];
		nacts = k;
	}
	if (rc != RECOVER_OK)
		snprintf(err, errlen, "%s", rc == RECOVER_MISMATCH ? "unknown action" : store_error(st));
	else if (pgn_write(h, acts, nacts, aud, &text, err, errlen) != 0)
		text = NULL;
	free(acts);
	return text;
}

/* The PGN text of game g through `through` as audience aud sees it, made
 * from acts (n of them: a player's heard actions) or, acts NULL, from the
 * record; NULL on failure (logged). */
static char *game_pgn(struct store *st, const struct store_game *g, int through, unsigned aud,
                      unsigned hides, const struct action *acts, size_t n)
{
	struct pgn_header h;
	char err[256];
	char *text = NULL;

	pgn_header_of(st, g, &h);
	if (acts == NULL)
		text = pgn_build(st, &h, g->id, through, aud, hides, err, sizeof err);
	else if (pgn_write(&h, acts, n, aud, &text, err, sizeof err) != 0)
		text = NULL;
	if (text == NULL)
		log_warnx("game=%" PRId64 " pgn: %s", g->id, err);
	return text;
}

/* A long record's PGN text, built on the reader thread and kept. */
struct pgn_job {
	struct pgn_cache *pc;
	struct pgn_header h;
	int64_t game;
	unsigned aud, kind;
	unsigned hides;              /* record_hides */
	int last;
	struct action *acts;         /* a player's heard actions of a live game, or NULL:
	                              * the record through `last` */
	size_t nacts;
	char *text;
	char err[256];
};

static void pgn_run(void *arg, struct store *st)
{
	struct pgn_job *j = arg;
	if (j->acts != NULL && pgn_write(&j->h, j->acts, j->nacts, j->aud, &j->text, j->err,
	                                 sizeof j->err) != 0)
		j->text = NULL;
	else if (j->acts == NULL)
		j->text = pgn_build(st, &j->h, j->game, j->last, j->aud, j->hides, j->err,
		                    sizeof j->err);
}

static void pgn_done(void *arg, uint64_t rows)
{
	struct pgn_job *j = arg;
	(void)rows;
	if (j->text != NULL)
		pgn_cache_put(j->pc, j->game, j->kind, j->last, j->text);
	else   /* the request, run again in place, answers the failure */
		log_warnx("game=%" PRId64 " pgn: %s", j->game, j->err);
	free(j->acts);
	free(j);
}

static const struct reader_ops pgn_ops = { pgn_run, pgn_done };

/* Answer the chunk of text from `from` (a long PGN goes in chunks, cut on
 * UTF-8 character boundaries). */
static void pgn_answer(struct conn *c, json_t *id, int64_t game, const char *view, const char *text,
                       size_t from)
{
	size_t total = strlen(text);
	if (from > total)
		from = total;
	size_t end = from + HISTORY_PGN_CHUNK < total ? from + HISTORY_PGN_CHUNK : total;
	while (end < total && end > from && ((unsigned char)text[end] & 0xC0) == 0x80)
		end--;
	json_t *chunk = json_stringn(text + from, end - from);
	if (chunk == NULL) {
		dispatch_error(c, id, PE_INTERNAL, "the PGN could not be encoded");
		return;
	}
	json_t *j = json_pack("{s:I, s:s, s:o, s:I}", "game", (json_int_t)game, "view", view,
	                      "pgn", chunk, "total", (json_int_t)total);
	if (end < total)
		json_object_set_new(j, "next", json_integer((json_int_t)end));
	dispatch_ok(c, id, j);
}

/*
 * g's PGN text under the cache's key (kind, key), not in the cache: made
 * from `size` actions, a player's heard ones (acts, taken) or, acts NULL,
 * the record through key.  Long, off the loop into the cache (the request
 * comes back, charged size); else here, kept when long, and answered.
 */
static void pgn_make(struct conn *c, json_t *id, const struct store_game *g, const char *view,
                     size_t from, unsigned aud, unsigned hides, int key, struct action *acts,
                     size_t size)
{
	struct server *srv = conn_server(c);
	struct pgn_cache *pc = srv->pgns;
	unsigned kind = aud << 3 | hides;
	bool keep = pc != NULL && size >= PGN_CACHE_MIN;
	if (keep && reader_wants(srv->reader, (int64_t)size) && dispatch_can_offload(c)) {
		struct pgn_job *j = xcalloc(1, sizeof *j);
		j->pc = pc;
		pgn_header_of(srv->store, g, &j->h);
		j->game = g->id;
		j->aud = aud;
		j->kind = kind;
		j->hides = hides;
		j->last = key;
		j->acts = acts;
		j->nacts = size;
		dispatch_offload(c, &pgn_ops, j, (uint64_t)size);
		return;
	}
	char *text = game_pgn(srv->store, g, pc != NULL ? key : INT_MAX, aud, hides, acts, size);
	if (acts != NULL && text != NULL)   /* the record's rows are charged as read */
		conn_rate_charge(c, (double)size / srv->cfg->rate_rows);
	free(acts);
	if (text == NULL) {
		dispatch_error(c, id, PE_STORAGE, "the game could not be read");
		return;
	}
	pgn_answer(c, id, g->id, view, text, from);
	if (keep)
		pgn_cache_put(pc, g->id, kind, key, text);
	else
		free(text);
}

/*
 * A player's PGN of their live game, made from the actions they heard
 * something of (games_heard_actions), not from the record replayed through
 * the last of them: that cost, in time and in the rows charged, the
 * actions they had not heard in between (an opponent's refused tries, an
 * umpire's private notes), and so told how many there were.  Charged a
 * token for every rate_rows actions made, as the told views are.  False:
 * the game is no longer live (the record's PGN, below).
 */
static bool live_pgn(struct conn *c, json_t *id, const struct store_game *g, unsigned aud,
                     unsigned hides, const char *view, size_t from)
{
	struct server *srv = conn_server(c);
	int through = 0;
	size_t n = 0;
	if (games_heard_actions(srv, g->id, aud, &through, &n, NULL) != 0)
		return false;
	const char *text = srv->pgns != NULL && n >= PGN_CACHE_MIN
	                   ? pgn_cache_get(srv->pgns, g->id, aud << 3 | hides, through) : NULL;
	if (text != NULL) {
		pgn_answer(c, id, g->id, view, text, from);
		return true;
	}
	struct action *acts;   /* made from them: a copy */
	games_heard_actions(srv, g->id, aud, &through, &n, &acts);
	pgn_make(c, id, g, view, from, aud, hides, through, acts, n);
	return true;
}

static void cmd_pgn(struct conn *c, json_t *id, json_t *req)
{
	struct store *st = conn_server(c)->store;
	const char *view = json_string_value(json_object_get(req, "view"));
	size_t from = dispatch_from(req);
	int64_t uid = conn_user(c);
	struct store_game g;
	int aud;

	if (view != NULL) {
		if ((aud = view_parse(view)) < 0) {
			dispatch_error(c, id, PE_BAD_REQUEST, "view must be white, black or umpire");
			return;
		}
	} else {
		/* Default: the whole record of a finished game; your own view of
		 * a live one (or of any game you play, before it is found). */
		json_int_t gid = json_integer_value(json_object_get(req, "game"));
		int rc = store_game_get(st, gid, &g);
		aud = AUD_UMPIRE;
		if (rc == STORE_OK && !game_finished(&g))
			aud = g.white == uid ? AUD_WHITE : g.black == uid ? AUD_BLACK : AUD_UMPIRE;
		view = aud == AUD_WHITE ? "white" : aud == AUD_BLACK ? "black" : "umpire";
	}
	if (!readable(c, id, req, (unsigned)aud, &g))
		return;
	char why[256];
	if (game_flagged(st, &g, why, sizeof why)) {
		/* A PGN is a replay of the record, and this record failed its check. */
		dispatch_error(c, id, PE_FLAGGED, "the game's record failed its check; see record");
		return;
	}
	/* A long record's text is kept between its chunks (pgn_cache.h),
	 * under its view: the audience, and what is left out for the reader. */
	struct pgn_cache *pc = conn_server(c)->pgns;
	unsigned hides = record_hides(c, &g);
	if (!game_finished(&g) && (aud == AUD_WHITE || aud == AUD_BLACK) &&
	    live_pgn(c, id, &g, (unsigned)aud, hides, view, from))
		return;
	int last = 0;
	if (pc != NULL && store_game_last_seq(st, g.id, &last) != STORE_OK) {
		dispatch_error(c, id, PE_STORAGE, "the game could not be read");
		return;
	}
	const char *text = pc != NULL ? pgn_cache_get(pc, g.id, (unsigned)aud << 3 | hides, last) : NULL;
	if (text != NULL)
		pgn_answer(c, id, g.id, view, text, from);
	else
		pgn_make(c, id, &g, view, from, (unsigned)aud, hides, last, NULL, (size_t)last);
}

static const struct field f_history[] = {
	{ "user", F_STRING, 0, PROTO_NAME_MAX },
	{ "limit", F_COUNT, 0, HISTORY_LIMIT_MAX },
	{ "from", F_INT, 0, DISPATCH_FROM_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_record[] = {
	{ "game", F_INT, 1, HISTORY_GAME_ID_MAX },
	{ "view", F_STRING, 1, HISTORY_VIEW_MAX },
	{ "from", F_INT, 0, HISTORY_FROM_MAX },
	{ NULL, 0, 0, 0 },
};

static const struct field f_pgn[] = {
	{ "game", F_INT, 1, HISTORY_GAME_ID_MAX },
	{ "view", F_STRING, 0, HISTORY_VIEW_MAX },
	{ "from", F_INT, 0, HISTORY_FROM_MAX },
	{ NULL, 0, 0, 0 },
};

const struct cmd history_cmds[] = {
	{ "history", 0, f_history, cmd_history },
	{ "record", CMD_REPLAYS, f_record, cmd_record },
	{ "pgn", CMD_REPLAYS, f_pgn, cmd_pgn },
	{ NULL, 0, NULL, NULL },
};
