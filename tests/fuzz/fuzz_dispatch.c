/*
 * fuzz_dispatch.c — protocol lines through dispatch_line, in process, on
 * connections that are logged in and in a live game, so that game
 * requests (move, any, list, draw, possible, game, history, ...) are
 * reached, not only the checks in front of them.
 *
 * The world is a real daemon without sockets: store (a scratch database,
 * synchronous=off), auth, lobby, games and the reader thread wired as
 * main.c wires them, and connections made with conn_attach() (server/
 * conn.h, the one seam this needs) over bufferevent pairs whose far ends
 * this file reads (the replay cache keeps every record here, a mark every
 * 3 actions, so that pages are read from marks; the daemon's keeps only
 * long records).  Building the world costs a password hash (auth's
 * dummy), so one world serves WORLD_INPUTS inputs before it is rebuilt:
 * what one input leaves behind (a registered name, a seek) can reach the
 * next few only.
 *
 * Each input gets a new game between two users and three new
 * connections, one per player and one of a third user, an umpire, who may
 * take either seat (`watch` or `umpire`).  A line starting with "b " goes
 * to Black's connection, one starting with "s " to the umpire's, any
 * other to White's; "@G" in a line stands for the game's id (ids grow
 * from input to input: the seeds must name this input's game).  An input
 * may start with a header of a line or two: "R" plays a rated game,
 * which spectators watch SPECTATOR_DELAY plies behind; "=NAME" plays
 * rule set NAME (icc otherwise).  A line "~" (or "b ~", "s ~") closes that
 * seat's connection and logs in on a new one (the login's state of the
 * live game); "~!" closes the new one too before its state is back.  A
 * line starting with "!" is run, and its connection closed before its
 * answer (or its job) is back.  At the end the connections close and
 * White resigns the game.
 *
 * After each line the group commit is flushed (games_flush) and the loop
 * runs, so answers and announcements are encoded and written, until the
 * reader thread has nothing out.  It hands over replays of
 * READER_FUZZ_MIN actions or more here (the daemon's READER_REPLAY_MIN
 * is more than an input makes), so that the requests sent back to run
 * again, the waits, a login's state behind its gate and a connection
 * closed while its job is out are all reached (not the PGN's hand-over:
 * the PGN cache keeps no record that short).
 *
 * What a player's connection receives while the game is live (before and
 * after the line that produced it) is checked against what the rule set
 * grants a player (check_player_line): no umpire_move, no event whose
 * audience leaves the player out, nothing of the opponent's move, of
 * their refused tries only what the rule set tells, of captures only what
 * it says (check_said), and no square or man in an error message that the
 * player's own line did not name.  So is what the third user's connection
 * receives while it holds the spectator's seat, never the umpire's
 * (check_spectator): only events addressed to spectators, nothing of
 * either player's moves, no true board, captures as the rule set says
 * them, and at a rated game nothing of the last SPECTATOR_DELAY plies.
 */
#include <ctype.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <jansson.h>
#include <stdbool.h>
#include <strings.h>
#include <unistd.h>

#include "announce.h"
#include "auth.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "fuzz_util.h"
#include "game.h"
#include "game_priv.h"
#include "lobby.h"
#include "log.h"
#include "pgn_cache.h"
#include "reader.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"

#define WORLD_INPUTS 256
#define LINES_MAX 64        /* lines of one input that are run */
#define READER_FUZZ_MIN 4   /* replays handed to the reader thread, actions */
#define SEATS 3             /* White, Black, the umpire */
#define SPECTATOR_DELAY 2   /* plies, rated games */
#define STR_(x) #x
#define STR(x) STR_(x)

static const char *const names[SEATS] = { "white", "black", "carol" };

struct world {
	struct server srv;
	char path[256];
	int64_t user[SEATS];
	int inputs;
};

static struct world *world;

static void world_free(struct world *w)
{
	games_flush(w->srv.games);
	struct reader *reader = w->srv.reader;
	w->srv.reader = NULL;
	reader_free(reader);
	connset_free(&w->srv);
	games_free(w->srv.games);
	announce_cache_free(w->srv.replays);
	pgn_cache_free(w->srv.pgns);
	lobby_free(w->srv.lobby);
	auth_free(w->srv.auth);
	store_close(w->srv.store);
	event_base_free(w->srv.base);
	config_free(w->srv.cfg);
	char p[300];
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s%s", w->path, suffix[i]);
		unlink(p);
	}
	free(w);
}

static struct world *world_new(void)
{
	struct world *w = calloc(1, sizeof *w);
	char err[512];
	const char *tmp = getenv("TMPDIR");

	if (w == NULL)
		abort();
	if (access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	snprintf(w->path, sizeof w->path, "%s/krieg-fuzz-%d.db", tmp ? tmp : "/tmp", (int)getpid());
	unlink(w->path);
	w->srv.cfg = config_new();
	/* Every line is served: the bucket is the daemon's, not under test here. */
	FUZZ_ASSERT(config_set(w->srv.cfg, "rate_limit", "1000000", err, sizeof err) == 0, "%s", err);
	FUZZ_ASSERT(config_set(w->srv.cfg, "rate_burst", "1000000", err, sizeof err) == 0, "%s", err);
	FUZZ_ASSERT(config_set(w->srv.cfg, "store_synchronous", "off", err, sizeof err) == 0, "%s",
	            err);
	FUZZ_ASSERT(config_set(w->srv.cfg, "spectator_delay", STR(SPECTATOR_DELAY), err,
	                       sizeof err) == 0, "%s", err);
	if ((w->srv.base = event_base_new()) == NULL)
		abort();
	struct store_options opt = { .synchronous = "off" };
	w->srv.store = store_open_opts(w->path, &opt, err, sizeof err);
	FUZZ_ASSERT(w->srv.store != NULL, "store: %s", err);
	w->srv.conns = connset_new();
	FUZZ_ASSERT((w->srv.auth = auth_new(&w->srv)) != NULL, "auth_new");
	FUZZ_ASSERT((w->srv.lobby = lobby_new(&w->srv)) != NULL, "lobby_new");
	FUZZ_ASSERT((w->srv.games = games_new(&w->srv)) != NULL, "games_new");
	/* The replay cache on every record, a mark every 3 actions (the
	 * daemon's keeps records of 1,024 actions and more). */
	w->srv.replays = announce_cache_new(2, 3, 0);
	w->srv.pgns = pgn_cache_new(PGN_CACHE_ENTRIES, PGN_CACHE_BYTES);
	FUZZ_ASSERT((w->srv.reader = reader_new(&w->srv, err, sizeof err)) != NULL, "reader: %s",
	            err);
	reader_set_replay_min(w->srv.reader, READER_FUZZ_MIN);
	conn_hook_add(&w->srv, lobby_conn_login, lobby_conn_closed);
	conn_hook_add(&w->srv, games_conn_login, games_conn_closed);
	for (int i = 0; i < SEATS; i++)
		FUZZ_ASSERT(store_user_create(w->srv.store, names[i], "", i == 2 ? 0 : 1, &w->user[i]) ==
		            STORE_OK, "user: %s", store_error(w->srv.store));
	FUZZ_ASSERT(store_user_set_role(w->srv.store, names[2], "umpire") == STORE_OK, "role: %s",
	            store_error(w->srv.store));
	return w;
}

static struct conn *attach(struct world *w, int color, struct bufferevent **far)
{
	struct bufferevent *pair[2];

	if (bufferevent_pair_new(w->srv.base, 0, pair) != 0)
		abort();
	*far = pair[1];
	bufferevent_enable(pair[1], EV_READ);
	struct conn *c = conn_attach(&w->srv, pair[0]);
	conn_set_hello(c);
	conn_set_user(c, w->user[color], names[color]);
	return c;
}

/* Answers and events written so far and not read yet: dropped (what
 * settle_checked does not check of their content is the integration
 * tests'). */
static void drain(struct bufferevent *far)
{
	struct evbuffer *in = bufferevent_get_input(far);

	evbuffer_drain(in, evbuffer_get_length(in));
}

/* Commits made, answers written, and every job handed to the reader
 * back, with what its request does when it runs again. */
static void run(struct world *w)
{
	for (;;) {
		games_flush(w->srv.games);
		event_base_loop(w->srv.base, EVLOOP_NONBLOCK);
		if (reader_pending(w->srv.reader) == 0)
			break;
		event_base_loop(w->srv.base, EVLOOP_ONCE);
	}
}

static void settle(struct world *w, struct bufferevent *far[SEATS])
{
	run(w);
	for (int i = 0; i < SEATS; i++)
		drain(far[i]);
}

static bool game_live(struct world *w, int64_t game)
{
	struct game *g = game_find(w->srv.games, game);
	return g != NULL && !g->dead;
}

/* ---- what a player may receive (icc, the game live) ------------------- */

/* s[i..i+1] a square name standing alone (not inside a longer word). */
static bool square_at(const char *s, size_t i)
{
	if (!(s[i] >= 'a' && s[i] <= 'h' && s[i + 1] >= '1' && s[i + 1] <= '8'))
		return false;
	return i == 0 || !(s[i - 1] >= 'a' && s[i - 1] <= 'z' && s[i - 1] != 'x');
}

/* strcasestr, which is GNU's. */
static const char *find_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return NULL;
}

/* An error's message names no square and no man the request did not. */
static void check_error(const char *msg, const char *req, const char *line)
{
	static const char *const men[] = { "pawn", "knight", "bishop", "rook", "queen", "king" };
	for (size_t i = 0; msg[i] && msg[i + 1]; i++) {
		char sq[3] = { msg[i], msg[i + 1], 0 };
		bool hex = i >= 2 && msg[i - 2] == '0' && msg[i - 1] == 'x';   /* jansson's "byte 0xa2" */
		FUZZ_ASSERT(!square_at(msg, i) || hex || strstr(req, sq) != NULL,
		            "an error names square %s, not in the request %s: %s", sq, req, line);
	}
	/* A man named is the player's own ("no own knight can move to f3",
	 * "no knight in reserve", "cannot drop a knight on f3", the duty of
	 * its own yes to "any?": "a pawn capture must be tried first") or the
	 * request's words (jansson's "... expected near 'king'"), never what
	 * stands on a square of the opponent's. */
	for (size_t k = 0; k < sizeof men / sizeof *men; k++) {
		size_t len = strlen(men[k]);
		for (const char *m = msg; (m = find_ci(m, men[k])) != NULL; m += len) {
			bool word = (m == msg || !isalpha((unsigned char)m[-1])) &&
			            !isalpha((unsigned char)m[len]);
			bool own = (m - msg >= 4 && strncasecmp(m - 4, "own ", 4) == 0) ||
			           (m - msg >= 7 && strncasecmp(m - 7, "drop a ", 7) == 0) ||
			           strncasecmp(m + len, " in reserve", 11) == 0 ||
			           strncasecmp(m, "pawn capture must be tried first", 32) == 0 ||
			           find_ci(req, men[k]) != NULL;
			FUZZ_ASSERT(!word || own,
			            "an error names a %s not the player's own: %s", men[k], line);
		}
	}
}

/* What a check over a line's objects (each_object) knows and finds. */
struct seen {
	const char *rules;           /* the game's rule set */
	int who;                     /* the player's colour (check_event) */
	int released;                /* the last ply released (spectator_event) */
	bool umpire;                 /* "seat":"umpire" met (umpire_seat) */
	const char *line;
};

/* Whether an event is addressed to `name` (an event with no audience, a
 * notice, is addressed to whoever it was sent to). */
static bool heard_by(json_t *o, const char *name)
{
	json_t *aud = json_object_get(o, "audience"), *a;
	bool heard = aud == NULL;
	size_t i;
	json_array_foreach(aud, i, a)
		heard |= json_is_string(a) && strcmp(json_string_value(a), name) == 0;
	return heard;
}

/* Whether `rules` is one of set (NULL-terminated). */
static bool rules_in(const char *rules, const char *const *set)
{
	for (; *set != NULL; set++)
		if (strcmp(rules, *set) == 0)
			return true;
	return false;
}

/*
 * What an announcement may say in each rule set, for any audience: written
 * from the rule documents, as test_leak.c's per-line rules are, not from
 * the core.  A capture says pawn or piece only in icc, cincinnati, rand
 * (and crazykrieg, of a pawn), the exact man only in crazykrieg, en
 * passant only in gollon; only crazykrieg drops, and a drop names its man,
 * never its square.
 */
static void check_said(json_t *o, const char *ev, const struct seen *sn)
{
	static const char *const kind[] = { "icc", "cincinnati", "rand", NULL };
	if (strcmp(ev, "capture") == 0) {
		const char *what = json_string_value(json_object_get(o, "what"));
		bool pawn = what != NULL && strcmp(what, "pawn") == 0;
		bool piece = what != NULL && strcmp(what, "piece") == 0;
		FUZZ_ASSERT(what == NULL || ((pawn || piece) && rules_in(sn->rules, kind)) ||
		            (!piece && strcmp(sn->rules, "crazykrieg") == 0),
		            "%s: a capture said %s: %s", sn->rules, what, sn->line);
		FUZZ_ASSERT(json_object_get(o, "en_passant") == NULL || strcmp(sn->rules, "gollon") == 0,
		            "%s: en passant said: %s", sn->rules, sn->line);
	}
	if (strcmp(ev, "drop") == 0)
		FUZZ_ASSERT(strcmp(sn->rules, "crazykrieg") == 0 && json_object_get(o, "square") == NULL &&
		            json_object_get(o, "move") == NULL && json_object_get(o, "san") == NULL,
		            "%s: a drop told more than its man: %s", sn->rules, sn->line);
}

static void check_event(json_t *o, struct seen *sn)
{
	int who = sn->who;
	const char *line = sn->line;
	static const char *const colour[2] = { "white", "black" };
	const char *ev = json_string_value(json_object_get(o, "event"));
	if (ev == NULL)
		return;
	const char *by = json_string_value(json_object_get(o, "by"));
	FUZZ_ASSERT(strcmp(ev, "umpire_move") != 0, "umpire_move reached %s: %s", colour[who], line);
	FUZZ_ASSERT(heard_by(o, colour[who]), "an event not addressed to %s: %s", colour[who], line);
	if (by != NULL && strcmp(by, colour[who]) != 0) {
		FUZZ_ASSERT(json_object_get(o, "move") == NULL && json_object_get(o, "san") == NULL,
		            "the opponent's move or try reached %s: %s", colour[who], line);
		/* The opponent's refused tries: english, insurance, gollon and
		 * the rest tell of them, nost only counts them, icc says nothing. */
		static const char *const illegal[] = { "english",  "insurance",  "gollon",
			                                "berkeley", "berkeley_any", "cincinnati",
			                                "rand",     "crazykrieg",   NULL };
		static const char *const impossible[] = { "gollon", "cincinnati", "rand",
			                                   "crazykrieg", NULL };
		static const char *const counted[] = { "nost", NULL };
		FUZZ_ASSERT(strcmp(ev, "move") != 0 &&
		            (strcmp(ev, "illegal") != 0 || rules_in(sn->rules, illegal)) &&
		            (strcmp(ev, "impossible") != 0 || rules_in(sn->rules, impossible)) &&
		            (strcmp(ev, "illegal_count") != 0 || rules_in(sn->rules, counted)),
		            "%s: an opponent's %s event reached %s: %s", sn->rules, ev, colour[who],
		            line);
	} else {
		FUZZ_ASSERT(strcmp(ev, "illegal_count") != 0, "%s: %s's own tries counted to them: %s",
		            sn->rules, colour[who], line);
	}
	check_said(o, ev, sn);
}

/* fn on every object anywhere in j (a line, a view's list, a page). */
static void each_object(json_t *j, void (*fn)(json_t *o, struct seen *sn), struct seen *sn)
{
	const char *key;
	json_t *v;
	size_t i;
	if (json_is_object(j)) {
		fn(j, sn);
		json_object_foreach(j, key, v)
			each_object(v, fn, sn);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			each_object(v, fn, sn);
	}
}

/* The command table's row of a request type, or NULL. */
static const struct cmd *cmd_named(const char *type)
{
	const struct cmd *c;
	for (size_t i = 0; type != NULL && (c = dispatch_cmd_at(i)) != NULL; i++)
		if (strcmp(c->type, type) == 0)
			return c;
	return NULL;
}

/* The answer j to a player's request req that needs a role (CMD_ADMIN,
 * CMD_UMPIRE; the players hold none): never done, and refused for the
 * role whatever its fields, since the role is checked before them; only
 * the checks before the role's (rate, login) may answer instead. */
static void check_role(json_t *j, const char *req, const char *line)
{
	json_t *id = json_object_get(j, "id"), *r = json_loads(req, JSON_REJECT_DUPLICATES, NULL);
	const struct cmd *cmd = cmd_named(json_string_value(json_object_get(r, "type")));
	if (cmd != NULL && (cmd->flags & (CMD_ADMIN | CMD_UMPIRE)) && json_object_get(j, "ok") &&
	    id != NULL && !json_is_null(id) && json_equal(id, json_object_get(r, "id"))) {
		const char *code =
		        json_string_value(json_object_get(json_object_get(j, "error"), "code"));
		static const char *const before[] = { "forbidden", "rate_limited", "not_logged_in",
			                              "password_change_required" };
		bool ok = false;
		for (size_t i = 0; code != NULL && i < sizeof before / sizeof before[0]; i++)
			ok |= strcmp(code, before[i]) == 0;
		FUZZ_ASSERT(ok, "a player's %s was answered %s, not forbidden: %s -> %s", cmd->type,
		            code != NULL ? code : "ok", req, line);
	}
	json_decref(r);
}

/* One line a player received about the live game (or about no game). */
static void check_player_line(const char *line, int who, int64_t game, const char *rules,
                              const char *req)
{
	json_t *j = json_loads(line, 0, NULL);
	FUZZ_ASSERT(j != NULL, "an unparsable line: %s", line);
	check_role(j, req, line);
	json_t *gid = json_object_get(j, "game");
	if (gid == NULL || (json_is_integer(gid) && json_integer_value(gid) == game)) {
		struct seen sn = { .rules = rules, .who = who, .line = line };
		each_object(j, check_event, &sn);
		const char *msg =
		        json_string_value(json_object_get(json_object_get(j, "error"), "message"));
		if (msg != NULL)
			check_error(msg, req, line);
	}
	json_decref(j);
}

static void check_player(struct bufferevent *far, int who, int64_t game, const char *rules,
                         const char *req)
{
	struct evbuffer *in = bufferevent_get_input(far);
	size_t n;
	char *line;
	while ((line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF)) != NULL) {
		check_player_line(line, who, game, rules, req);
		free(line);
	}
}

/* ---- what a spectator may receive ------------------------------------- */

/* "seat":"umpire": the umpire's seat taken (or taken away), after which
 * this connection's lines are not checked. */
static void umpire_seat(json_t *o, struct seen *sn)
{
	const char *seat = json_string_value(json_object_get(o, "seat"));
	sn->umpire |= seat != NULL && strcmp(seat, "umpire") == 0;
}

/* An event, as a spectator of a game whose released plies are those up
 * to sn->released. */
static void spectator_event(json_t *o, struct seen *sn)
{
	const char *ev = json_string_value(json_object_get(o, "event"));
	const char *line = sn->line;
	if (ev == NULL)
		return;
	FUZZ_ASSERT(strcmp(ev, "umpire_move") != 0 && strcmp(ev, "board") != 0,
	            "the umpire's %s reached a spectator: %s", ev, line);
	FUZZ_ASSERT(json_object_get(o, "move") == NULL && json_object_get(o, "san") == NULL,
	            "a player's move reached a spectator: %s", line);
	check_said(o, ev, sn);
	FUZZ_ASSERT(heard_by(o, "spectator"), "an event not addressed to spectators reached one: %s",
	            line);
	json_t *ply = json_object_get(o, "ply");
	FUZZ_ASSERT(!json_is_integer(ply) || json_integer_value(ply) <= sn->released,
	            "ply %lld reached a spectator, %d released: %s",
	            (long long)json_integer_value(ply), sn->released, line);
}

/* The third seat's lines: the events pushed to it and its seat's view
 * (its answers to other requests, such as an umpire's `record`, are what
 * its role grants, not its seat).  *umpired: it took the umpire's seat. */
static void check_spectator(struct world *w, struct bufferevent *far, int64_t game,
                            bool *umpired)
{
	struct evbuffer *in = bufferevent_get_input(far);
	struct game *g = game_find(w->srv.games, game);
	int released = referee_plies(g->ref) - (g->info.rated ? SPECTATOR_DELAY : 0);
	size_t n;
	char *line;
	while ((line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF)) != NULL) {
		json_t *j = json_loads(line, 0, NULL);
		FUZZ_ASSERT(j != NULL, "an unparsable line: %s", line);
		struct seen sn = { .rules = g->rs->name, .released = released, .line = line };
		each_object(j, umpire_seat, &sn);
		*umpired |= sn.umpire;
		json_t *gid = json_object_get(j, "game");
		const char *seat = json_string_value(json_object_get(j, "seat"));
		bool view = json_object_get(j, "event") != NULL ||
		            (seat != NULL && strcmp(seat, "spectator") == 0);
		if (!*umpired && view && json_is_integer(gid) && json_integer_value(gid) == game)
			each_object(j, spectator_event, &sn);
		json_decref(j);
		free(line);
	}
}

/* settle, with what the players and the spectator received checked if
 * the game was live before (live) and still is: req is what seat `who`
 * sent. */
static void settle_checked(struct world *w, struct bufferevent *far[SEATS], int64_t game,
                           bool live, int who, const char *req, bool *umpired)
{
	run(w);
	if (live && game_live(w, game)) {
		const char *rules = game_find(w->srv.games, game)->rs->name;
		for (int i = 0; i < 2; i++)
			check_player(far[i], i, game, rules, i == who ? req : "");
		check_spectator(w, far[2], game, umpired);
	}
	for (int i = 0; i < SEATS; i++)
		drain(far[i]);
}

static void at_exit_free(void)
{
	if (world != NULL)
		world_free(world);
	world = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;

	if (!once) {
		once = 1;
		log_set_level(LOGL_ERROR);
		if (evthread_use_pthreads() != 0)
			abort();
		atexit(at_exit_free);
	}
	if (world == NULL || world->inputs >= WORLD_INPUTS) {
		if (world != NULL)
			world_free(world);
		world = world_new();
	}
	struct world *w = world;
	w->inputs++;

	const char *p = (const char *)data, *end = p + size;
	/* The header: "R" (rated), "=NAME" (the rule set), one line each. */
	int rated = 0;
	char rules[32] = "icc";
	for (int h = 0; h < 2 && p < end; h++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		if (len == 1 && p[0] == 'R') {
			rated = 1;
		} else if (len >= 2 && len < sizeof rules && p[0] == '=') {
			memcpy(rules, p + 1, len - 1);
			rules[len - 1] = '\0';
			if (ruleset_find(rules) == NULL)
				snprintf(rules, sizeof rules, "icc");
		} else {
			break;
		}
		p = nl != NULL ? nl + 1 : end;
	}
	int64_t game = 0;
	FUZZ_ASSERT(games_start(&w->srv, w->user[0], w->user[1], rules, 3600 * 1000, 0, 0, rated, NULL,
	                        NULL, &game) == 0, "games_start");
	struct bufferevent *far[SEATS];
	uint64_t id[SEATS];
	for (int i = 0; i < SEATS; i++)
		id[i] = conn_id(attach(w, i, &far[i]));
	bool umpired = false;   /* the third seat's connection took the umpire's seat */
	settle_checked(w, far, game, true, 0, "", &umpired);

	for (int lines = 0; p < end && lines < LINES_MAX; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		int who = len < 2 || p[1] != ' ' ? 0 : p[0] == 'b' ? 1 : p[0] == 's' ? 2 : 0;
		const char *line = who ? p + 2 : p;
		size_t n = who ? len - 2 : len;
		struct conn *c = conn_find(&w->srv, id[who]);
		bool live = game_live(w, game);

		if (n >= 1 && n <= 2 && line[0] == '~' && (n == 1 || line[1] == '!')) {
			/* The player comes back on a new connection. */
			if (c != NULL)
				conn_close(c, "fuzz reconnect");
			settle_checked(w, far, game, live, who, "", &umpired);
			bufferevent_free(far[who]);
			c = attach(w, who, &far[who]);
			id[who] = conn_id(c);
			if (who == 2)
				umpired = false;
			if (n == 2)
				conn_close(c, "fuzz drop");
			settle_checked(w, far, game, game_live(w, game), who, "", &umpired);
			p = nl != NULL ? nl + 1 : end;
			continue;
		}
		bool drop = n >= 1 && line[0] == '!';
		if (drop) {
			line++;
			n--;
		}
		/* The transport's framing: no line reaches dispatch_line longer
		 * than PROTO_LINE_MAX with its newline. */
		if (c != NULL && n + 1 <= PROTO_LINE_MAX) {
			/* dispatch_line gets the line without its newline, not
			 * NUL-terminated: an exact-size copy lets ASan see any
			 * read past its end. */
			char *copy = malloc(n + 33), gid[24];   /* room for the NUL */
			size_t k = 0;
			int gn = snprintf(gid, sizeof gid, "%lld", (long long)game);
			if (copy == NULL)
				abort();
			for (size_t i = 0; i < n; i++) {
				if (line[i] == '@' && i + 1 < n && line[i + 1] == 'G' && k + (size_t)gn <= n + 31) {
					memcpy(copy + k, gid, (size_t)gn);
					k += (size_t)gn;
					i++;
				} else if (k < n + 32) {
					copy[k++] = line[i];
				}
			}
			char *exact = malloc(k ? k : 1);
			if (exact == NULL)
				abort();
			memcpy(exact, copy, k);
			copy[k] = '\0';   /* the request, for check_error */
			dispatch_line(c, exact, k);
			free(exact);
			if (drop && (c = conn_find(&w->srv, id[who])) != NULL)
				conn_close(c, "fuzz drop");
			settle_checked(w, far, game, live, who, copy, &umpired);
			free(copy);
		} else {
			settle_checked(w, far, game, live, who, "", &umpired);
		}
		p = nl != NULL ? nl + 1 : end;
	}

	for (int i = 0; i < SEATS; i++) {
		struct conn *c = conn_find(&w->srv, id[i]);
		if (c != NULL)
			conn_close(c, "fuzz input done");
	}
	settle(w, far);
	/* End the game so the world does not fill up with live ones. */
	struct bufferevent *cf[SEATS];
	struct conn *c = attach(w, 0, &cf[0]);
	for (int i = 1; i < SEATS; i++)
		cf[i] = cf[0];
	char resign[96];
	int rn = snprintf(resign, sizeof resign, "{\"type\":\"resign\",\"game\":%lld,\"id\":0}",
	                  (long long)game);
	dispatch_line(c, resign, (size_t)rn);
	settle(w, cf);
	conn_close(c, "fuzz cleanup");
	settle(w, cf);
	/* The pairs' far ends: the near ends went with their connections. */
	for (int i = 0; i < SEATS; i++)
		bufferevent_free(far[i]);
	bufferevent_free(cf[0]);
	return 0;
}
