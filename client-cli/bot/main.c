/*
 * main.c — krieg-bot: a computer opponent that is a client like any other.
 * It speaks the protocol over TLS with net.c (the terminal client's
 * connection), decodes announcements with proto/event_json.c, and plays
 * each game with a bot (bot.h) fed only the events addressed to it.
 *
 *   krieg-bot play HOST[:PORT] (--user U --password-file F | --guest) [options]
 *   krieg-bot arena --white L --black L --games N --rules R [--movetime MS]
 *                   [--max-plies N] [--server HOST:PORT [--umpire U --umpire-password-file F]
 *                   | --kriegd PATH] [--local [--fen FEN] [--pgn FILE]]
 *
 * `play` answers challenges within its rule sets and time controls and,
 * with --seek, keeps one seek open per rule set and time control while it
 * has room for a game (--max-games).
 *
 * `arena` over the network plays through kriegd and attaches an umpire
 * connection to each game, whose `board` events are the true position
 * every ply: each bot's belief is measured against it before the bot
 * acts on that ply (the truth reaches the measurement, never a bot).
 * `arena --local` plays in-process through the rules core (local.h) and
 * measures the same with the referee's board; --pgn writes every game's
 * full record there (the umpire's PGN, proto/PGN.md), to study its play.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "bot.h"
#include "event_json.h"
#include "fen.h"
#include "local.h"
#include "movegen.h"
#include "mstime.h"
#include "net.h"
#include "notation.h"
#include "pgn.h"
#include "proto.h"
#include "words.h"
#include "scrub.h"

#define BOT_VERSION "krieg-bot/" KRIEG_RELEASE
#define SESS_GAMES_MAX 32        /* --max-games at most PLAY_GAMES_MAX, plus seeks taken at once */
#define PLAY_GAMES_MAX 16
#define PLAY_EXIT_REFUSED 3   /* play: the login was refused for good (systemd: RestartPreventExitStatus) */
#define SEEKS_MAX 16              /* the server's cap on one user's open offers */
#define TIMES_MAX 8
#define RULES_MAX 16
#define RETRY_MS 250              /* after rate_limited / busy */
#define GAME_ERRORS_MAX 32        /* refused requests in one game before resigning it */
#define ARENA_GAME_MS_MAX 600000  /* one arena game: give up after ten minutes */

struct bgame {
	long id;
	struct bot *bot;
	bool busy;                /* a move/any awaits its response */
	int64_t wait_until;
	int errors;
	long clock_ms;            /* our clock at the last event, -1 untimed */
	long inc_ms;
	int ply;                  /* plies played, from the last event's "ply" */
	bool draw_offered;        /* arena: the ply cap's draw offer is sent */
	int checked_ply;          /* arena: the last ply the umpire's board was checked against the belief */
	struct local_belief_stats bs;  /* arena: this game's checks */
};

/* A time control as offers carry it: all zero is untimed. */
struct tc {
	long base_ms, inc_ms;
	int days;
};

/* One seek play mode keeps open while it has room for a game. */
struct seekslot {
	const char *rules;
	struct tc tc;
	long long offer;          /* the server's offer id; 0: not open */
	long long req;            /* the `seek` request awaiting its answer; 0: none */
	bool failed;              /* refused: not asked again this connection */
	bool seen;                /* in the `seeks` list being read */
};

struct sess {
	const char *name;         /* for messages */
	bool journal;             /* play: a line on stderr per login, offer answered, game begun and ended */
	struct net *net;
	char user[PROTO_NAME_MAX + 1];
	long long next_id;
	bool logged_in, dead;
	bool refused;             /* play: the account's login was refused for good (wrong password,
	                           * disabled, no guests): not tried again; exit PLAY_EXIT_REFUSED */
	int level;
	long movetime_ms;         /* 0: from the clock */
	const char *rules[RULES_MAX];
	int nrules;               /* 0: any */
	int max_games;
	struct tc times[TIMES_MAX];   /* time controls accepted and sought */
	int ntimes;               /* 0: any (seeks: untimed) */
	struct seekslot seeks[SEEKS_MAX];
	int nseeks;               /* 0: seek nothing, only answer challenges */
	bool seeks_dirty;         /* a game began or ended, or we logged in: reconcile the seeks */
	long long seeks_req;      /* the `seeks` request being read; 0: none */
	int64_t seeks_wait;       /* after a refused listing: not before this (mstime_mono) */
	int max_plies;            /* arena, player A: offer a draw at this many plies (0: never) */
	bool accept_draws;        /* arena, player B: accept every draw offer (the cap's) */
	const char *login_user, *login_password;
	/* A guest's session, resumed after a lost connection: a new `guest`
	 * would be someone else, and its games would be abandoned. */
	char token[PROTO_TOKEN_LEN + 1];
	long long resume_req;     /* the `resume` being answered; 0: none */
	struct bgame games[SESS_GAMES_MAX];
	uint64_t seed;
	/* statistics */
	long finished, moves, think_ms;
	int last_result[2];        /* arena: the last finished game's result and our colour */
	int last_reason;
	struct local_belief_stats bs;  /* arena: the umpire's checks of finished games */
	/*
	 * The arena's umpire connection: a session of its own, logged in to an
	 * umpire account, holding the chair of the game being played.  Its
	 * `board` events are the true position after every ply; a bot's
	 * session pointing at it (`umpire`) acts only once the umpire has the
	 * position of the bot's ply, and first measures its belief against it.
	 * The truth goes from the umpire to the measurement, never to a bot.
	 */
	struct sess *umpire;      /* a bot's: the arena's umpire session, or NULL */
	bool is_umpire;
	long long umpire_req;     /* the umpire's: id of its `umpire` request */
	long ugame;               /* the game whose chair is asked for or held (0: none) */
	bool useated, ufailed;
	int uply;                 /* the ply of utrue */
	struct board utrue;
};

static long long sess_send(struct sess *s, json_t *req)
{
	json_object_set_new(req, "id", json_integer(++s->next_id));
	char *line = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!line || net_send_line(s->net, line) != NET_OK)
		s->dead = true;
	free(line);
	return s->next_id;
}

static void stats_add(struct local_belief_stats *to, const struct local_belief_stats *from)
{
	to->exact_plies += from->exact_plies;
	to->exact_in += from->exact_in;
	to->exact_top += from->exact_top;
	to->sampled_plies += from->sampled_plies;
	to->sampled_in += from->sampled_in;
	to->sampled_top += from->sampled_top;
	to->lost += from->lost;
	to->rejuvenations += from->rejuvenations;
	to->reexact += from->reexact;
	to->respread += from->respread;
	to->reanchored += from->reanchored;
	to->few_plies += from->few_plies;
	to->few_in += from->few_in;
}

/* One line of containment figures, after `label` ("belief", "umpire's check"). */
static void stats_print(const char *label, const struct local_belief_stats *bs)
{
	printf("%s: exact %ld/%ld plies hold the true position (%.1f%%, in the top half of the weight %.1f%%); "
	       "sampled %ld plies: held %.1f%%, in the top half of the weight %.1f%%\n",
	       label, bs->exact_in, bs->exact_plies, bs->exact_plies ? 100.0 * bs->exact_in / bs->exact_plies : 100.0,
	       bs->exact_plies ? 100.0 * bs->exact_top / bs->exact_plies : 100.0,
	       bs->sampled_plies, bs->sampled_plies ? 100.0 * bs->sampled_in / bs->sampled_plies : 0,
	       bs->sampled_plies ? 100.0 * bs->sampled_top / bs->sampled_plies : 0);
}

/* The umpire's true position of its game at a ply (the chair's reply, or a `board` event). */
static void umpire_board(struct sess *s, const json_t *o)
{
	const char *fen = json_string_value(json_object_get(o, "fen"));
	char err[128];
	if (fen && fen_parse(fen, &s->utrue, err, sizeof err) == 0) {
		s->uply = (int)json_integer_value(json_object_get(o, "ply"));
		s->useated = true;
	}
}

static struct bgame *game_of(struct sess *s, long id)
{
	for (int i = 0; i < SESS_GAMES_MAX; i++)
		if (s->games[i].bot && s->games[i].id == id)
			return &s->games[i];
	return NULL;
}

static int live_games(const struct sess *s)
{
	int n = 0;
	for (int i = 0; i < SESS_GAMES_MAX; i++)
		n += s->games[i].bot != NULL;
	return n;
}

/* ------------------------------------------------------------------ */
/* time controls and seeks (play)                                      */

/*
 * "untimed", "Nd" (correspondence, days per move), "BASE+INC" or "BASE":
 * minutes and seconds of increment, as the chess servers and `krieg`'s
 * seek and challenge write them ("5+2"); BASE may be fractional ("0.5+0",
 * half a minute), within the wire's 86,400 seconds.
 */
static int tc_parse(const char *t, struct tc *out)
{
	char *end;
	memset(out, 0, sizeof *out);
	if (strcmp(t, "untimed") == 0)
		return 0;
	if (t[0] < '0' || t[0] > '9')
		return -1;
	double base = strtod(t, &end);
	if (*end == 'd' && end[1] == '\0' && base >= 1 && base <= 60 && base == (int)base) {
		out->days = (int)base;
		return 0;
	}
	long inc = 0;
	if (*end == '+') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		inc = strtol(end + 1, &end, 10);
	}
	/* base > 0 and <= 1440: whole milliseconds, at least one (0 is untimed) */
	if (*end != '\0' || !(base > 0 && base <= 1440) || inc < 0 || inc > 600 || lround(base * 60000) < 1)
		return -1;
	out->base_ms = lround(base * 60000);
	out->inc_ms = inc * 1000;
	return 0;
}

/* An offer's or a game's "time" (absent: untimed). */
static void tc_of_json(const json_t *t, struct tc *out)
{
	memset(out, 0, sizeof *out);
	if (!json_is_object(t))
		return;
	if (json_is_integer(json_object_get(t, "days")))
		out->days = (int)json_integer_value(json_object_get(t, "days"));
	out->base_ms = scrub_ms(json_object_get(t, "base"), 1000);
	out->inc_ms = scrub_ms(json_object_get(t, "inc"), 1000);
}

static json_t *tc_json(const struct tc *tc)
{
	if (tc->days > 0)
		return json_pack("{s:i}", "days", tc->days);
	if (tc->base_ms > 0)
		return json_pack("{s:f,s:f}", "base", tc->base_ms / 1000.0, "inc", tc->inc_ms / 1000.0);
	return NULL;
}

/* One line of play mode's journal (stderr: the service's journal).  What
 * it names came from the server and was scrubbed on arrival (on_line). */
static void say(const struct sess *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct sess *s, const char *fmt, ...)
{
	if (!s->journal)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fprintf(stderr, "krieg-bot: %s\n", buf);
}

/* Whether a challenge's time control is one of ours (--time; none given: any). */
static bool tc_ok(const struct sess *s, const json_t *time)
{
	if (s->ntimes == 0)
		return true;
	struct tc tc;
	tc_of_json(time, &tc);
	for (int i = 0; i < s->ntimes; i++)
		if (s->times[i].base_ms == tc.base_ms && s->times[i].inc_ms == tc.inc_ms && s->times[i].days == tc.days)
			return true;
	return false;
}

static int live_games(const struct sess *s);

/*
 * The `seeks` list has been read (every page): a seek of ours missing from
 * it was taken (its game has begun) or is gone.  With room for another
 * game, every configured seek is (re)posted; without, ours are cancelled,
 * so that nobody starts a game the bot would not play.
 */
static void seeks_reconcile(struct sess *s)
{
	bool room = live_games(s) < s->max_games;
	for (int i = 0; i < s->nseeks; i++) {
		struct seekslot *k = &s->seeks[i];
		if (k->offer && !k->seen)
			k->offer = 0;
		k->seen = false;
		if (room && !k->offer && !k->req && !k->failed) {
			json_t *req = json_pack("{s:s,s:s,s:s}", "type", "seek", "rules", k->rules, "color", "random");
			json_t *t = tc_json(&k->tc);
			if (t)
				json_object_set_new(req, "time", t);
			k->req = sess_send(s, req);
		} else if (!room && k->offer) {
			sess_send(s, json_pack("{s:s,s:I}", "type", "cancel", "offer", (json_int_t)k->offer));
			k->offer = 0;
		}
	}
}

/* The end of a refusal's log line: its message, or the whole line (scrubbed,
 * as every line received is) when it has none. */
static void say_refusal(const json_t *o)
{
	const char *msg = json_string_value(json_object_get(json_object_get(o, "error"), "message"));
	char *line = msg ? NULL : json_dumps(o, JSON_COMPACT);
	if (line)
		scrub_text(line, strlen(line));
	fprintf(stderr, "%s\n", msg ? msg : line ? line : "?");
	free(line);
}

/*
 * A seek of ours in the list that no slot holds: one that outlived an
 * earlier run (kriegd keeps a registered account's correspondence seek
 * while it is away).  Taken up by a free slot of the same terms, else
 * cancelled: left alone, every restart would add one more.
 */
static void seek_adopt(struct sess *s, const json_t *x, json_int_t id)
{
	const char *user = json_string_value(json_object_get(x, "user"));
	if (!user || strcasecmp(user, s->user) != 0 || json_object_get(x, "to"))
		return;
	struct tc tc;
	tc_of_json(json_object_get(x, "time"), &tc);
	const char *rules = json_string_value(json_object_get(x, "rules"));
	for (int k = 0; k < s->nseeks; k++) {
		struct seekslot *slot = &s->seeks[k];
		if (!slot->offer && !slot->req && rules && strcmp(slot->rules, rules) == 0 &&
		    slot->tc.base_ms == tc.base_ms && slot->tc.inc_ms == tc.inc_ms && slot->tc.days == tc.days) {
			slot->offer = id;
			slot->seen = true;
			return;
		}
	}
	sess_send(s, json_pack("{s:s,s:I}", "type", "cancel", "offer", id));
}

/* An answer about our seeks; true if it was one (taken). */
static bool seeks_answer(struct sess *s, long long rid, const json_t *o)
{
	bool ok = json_is_true(json_object_get(o, "ok"));
	if (s->seeks_req && rid == s->seeks_req) {
		s->seeks_req = 0;
		if (!ok) {
			s->seeks_dirty = true;
			s->seeks_wait = mstime_mono() + 1000;
			return true;
		}
		size_t i;
		json_t *x;
		json_array_foreach(json_object_get(o, "offers"), i, x) {
			json_int_t id = json_integer_value(json_object_get(x, "offer"));
			bool known = false;
			for (int k = 0; k < s->nseeks; k++)
				if (s->seeks[k].offer == id)
					known = s->seeks[k].seen = true;
			if (!known)
				seek_adopt(s, x, id);
		}
		json_t *next = json_object_get(o, "next");
		if (json_is_integer(next))
			s->seeks_req = sess_send(s, json_pack("{s:s,s:O}", "type", "seeks", "from", next));
		else
			seeks_reconcile(s);
		return true;
	}
	for (int k = 0; k < s->nseeks; k++) {
		struct seekslot *x = &s->seeks[k];
		if (!x->req || rid != x->req)
			continue;
		x->req = 0;
		if (ok && json_object_get(o, "game")) {
			x->offer = 0;   /* it met an open seek: that game has begun; reposted while there is room */
		} else if (ok) {
			x->offer = (long long)json_integer_value(json_object_get(o, "offer"));
			if (live_games(s) >= s->max_games) {   /* a game began meanwhile: no room now */
				sess_send(s, json_pack("{s:s,s:I}", "type", "cancel", "offer", (json_int_t)x->offer));
				x->offer = 0;
			}
		} else {
			fprintf(stderr, "krieg-bot: a seek (%s) was refused: ", x->rules);
			say_refusal(o);
			x->failed = true;
		}
		return true;
	}
	return false;
}

static bool rules_ok(const struct sess *s, const char *rules)
{
	if (s->nrules == 0)
		return true;
	for (int i = 0; i < s->nrules; i++)
		if (rules && strcmp(s->rules[i], rules) == 0)
			return true;
	return false;
}

static struct bgame *game_open(struct sess *s, long id, const char *rules, int color, const char *fen)
{
	const struct ruleset *rs = ruleset_find(rules ? rules : RULESET_DEFAULT);
	struct board start;
	char err[128];
	if (!rs || color < 0)
		return NULL;
	if (fen ? fen_parse(fen, &start, err, sizeof err) != 0 : (board_start(&start), 0))
		return NULL;
	for (int i = 0; i < SESS_GAMES_MAX; i++) {
		struct bgame *g = &s->games[i];
		if (g->bot)
			continue;
		memset(g, 0, sizeof *g);
		g->id = id;
		g->clock_ms = -1;
		g->checked_ply = -1;
		g->bot = bot_new(s->level, rs, &start, color, s->seed++ * 7919 + (uint64_t)id, NULL);
		return g;
	}
	return NULL;
}

static void game_close(struct sess *s, struct bgame *g)
{
	bot_free(g->bot);
	memset(g, 0, sizeof *g);
}

static int color_parse(const char *c)
{
	return !c ? -1 : strcmp(c, "white") == 0 ? WHITE : strcmp(c, "black") == 0 ? BLACK : -1;
}

static void game_event(struct sess *s, struct bgame *g, const json_t *o)
{
	struct event e;
	if (event_from_json(o, &e) != 0)
		return;
	/* The server sends only our own audience's copies; an event without
	 * an audience list (a stored view) is ours too. */
	if (e.audience == 0)
		e.audience = (uint8_t)aud_of(g->bot->color);
	json_t *clock = json_object_get(o, "clock");
	if (json_is_object(clock)) {
		json_t *ms = json_object_get(clock, g->bot->color == WHITE ? "white" : "black");
		if (json_is_integer(ms))
			g->clock_ms = scrub_ms(ms, 1);
	}
	if (e.ply > g->ply)
		g->ply = e.ply;
	bot_event(g->bot, &e);
	if (e.type == EV_GAME_OVER) {
		int mine = g->bot->color == WHITE ? RESULT_WHITE : RESULT_BLACK;
		say(s, "game %ld ends: %s, %s; %s", g->id, game_result_name(e.result), game_reason_name(e.reason),
		    e.result == mine ? "won" : e.result == RESULT_DRAW ? "drawn" : e.result == RESULT_NONE ? "no result" : "lost");
		s->finished++;
		s->last_result[0] = e.result;
		s->last_result[1] = g->bot->color;
		s->last_reason = e.reason;
		s->seeks_dirty = true;
		stats_add(&s->bs, &g->bs);
		game_close(s, g);
	}
}

static void on_game_view(struct sess *s, const json_t *o)
{
	long id = (long)json_integer_value(json_object_get(o, "game"));
	if (!json_is_true(json_object_get(o, "live")) || game_of(s, id))
		return;
	struct bgame *g = game_open(s, id, json_string_value(json_object_get(o, "rules")),
	                            color_parse(json_string_value(json_object_get(o, "color"))),
	                            json_string_value(json_object_get(o, "fen")));
	if (!g)
		return;
	say(s, "game %ld resumed (its view rebuilt from %zu events)", id,
	    json_array_size(json_object_get(o, "events")));
	size_t i;
	json_t *ev;
	json_array_foreach(json_object_get(o, "events"), i, ev) {
		if (!g->bot)
			break;
		game_event(s, g, ev);
	}
}

static void on_line(struct sess *s, const char *line)
{
	json_error_t jerr;
	json_t *o = json_loads(line, 0, &jerr);
	if (!json_is_object(o)) {
		json_decref(o);
		return;
	}
	scrub_json(o);    /* a server's words reach our log and terminal (scrub.h) */
	const char *ev = json_string_value(json_object_get(o, "event"));
	json_t *id = json_object_get(o, "id");
	if (s->is_umpire && s->ugame && (ev || json_integer_value(id) == s->umpire_req) &&
	    json_integer_value(json_object_get(o, "game")) == s->ugame) {
		if (!ev && json_is_true(json_object_get(o, "ok"))) {
			umpire_board(s, o);
		} else if (!ev) {
			fputs("krieg-bot: the umpire's chair was refused: ", stderr);
			say_refusal(o);
			s->ufailed = true;
		} else if (strcmp(ev, "board") == 0) {
			umpire_board(s, o);
		} else if (strcmp(ev, "unwatched") == 0) {
			s->useated = false;
		}
		json_decref(o);
		return;
	}
	if (!ev && id) {
		json_t *ok = json_object_get(o, "ok");
		json_t *game = json_object_get(o, "game");
		const char *user = json_string_value(json_object_get(o, "user"));
		if (seeks_answer(s, (long long)json_integer_value(id), o)) {
			json_decref(o);
			return;
		}
		if (json_is_true(ok) && user && json_object_get(o, "token")) {
			snprintf(s->user, sizeof s->user, "%s", user);
			s->logged_in = true;
			const char *tok = json_string_value(json_object_get(o, "token"));
			if (!s->login_user && tok && strlen(tok) <= PROTO_TOKEN_LEN)
				snprintf(s->token, sizeof s->token, "%s", tok);
			say(s, "%s as %s", json_integer_value(id) == s->resume_req ? "session resumed" : "logged in",
			    s->user);
			s->resume_req = 0;
			/* a new connection: our offers vanished with the last one */
			for (int k = 0; k < s->nseeks; k++)
				s->seeks[k] = (struct seekslot){ .rules = s->seeks[k].rules, .tc = s->seeks[k].tc };
			s->seeks_req = 0;
			s->seeks_dirty = true;
		} else if (json_is_true(ok) && json_object_get(o, "protocol") && !s->login_user && s->token[0]) {
			s->resume_req = sess_send(s, json_pack("{s:s,s:s}", "type", "resume", "token", s->token));
		} else if (!json_is_true(ok) && s->resume_req && json_integer_value(id) == s->resume_req) {
			/* the session is gone (expired, or a server that forgot it): a new guest */
			say(s, "the guest session could not be resumed; a new guest");
			s->resume_req = 0;
			s->token[0] = '\0';
			sess_send(s, json_pack("{s:s}", "type", "guest"));
		} else if (json_is_true(ok) && json_object_get(o, "protocol")) {
			json_t *req = s->login_user
			              ? json_pack("{s:s,s:s,s:s}", "type", "login", "user", s->login_user, "password",
			                          s->login_password ? s->login_password : "")
			              : json_pack("{s:s}", "type", "guest");
			sess_send(s, req);
		} else if (!json_is_true(ok) && !json_is_integer(game) && !s->logged_in) {
			fprintf(stderr, "krieg-bot %s: ", s->name);
			say_refusal(o);
			s->dead = true;
			/* a refusal that trying again cannot change; busy or rate_limited can */
			const char *code = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
			static const char *const final[] = { "auth_failed", "account_disabled", "guests_disabled",
			                                     "password_change_required" };
			for (size_t k = 0; code && k < sizeof final / sizeof final[0]; k++)
				s->refused |= strcmp(code, final[k]) == 0;
		}
		struct bgame *g = json_is_integer(game) ? game_of(s, (long)json_integer_value(game)) : NULL;
		if (g) {
			g->busy = false;
			if (!json_is_true(ok)) {
				const char *code = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
				g->wait_until = mstime_mono() + (code && (strcmp(code, "rate_limited") == 0 ||
				                                         strcmp(code, "busy") == 0) ? RETRY_MS : 0);
				if (++g->errors > GAME_ERRORS_MAX)
					sess_send(s, json_pack("{s:s,s:I}", "type", "resign", "game", (json_int_t)g->id));
			}
		} else if (!json_is_true(ok) && json_is_integer(game)) {
			/* an error about a game we no longer track: nothing to do */
		}
	} else if (ev && strcmp(ev, "challenge") == 0) {
		const char *rules = json_string_value(json_object_get(o, "rules"));
		const char *to = json_string_value(json_object_get(o, "to"));
		json_t *offer = json_object_get(o, "offer");
		if (to && strcasecmp(to, s->user) == 0 && json_is_integer(offer)) {
			json_t *time = json_object_get(o, "time");
			const char *from = json_string_value(json_object_get(o, "user"));
			if (!rules)
				rules = RULESET_DEFAULT;
			const char *no = !rules_ok(s, rules) ? "declined: not a rule set it plays"
			                 : !tc_ok(s, time) ? "declined: not a time control it plays"
			                 : live_games(s) >= s->max_games ? "declined: at its limit of games at once"
			                 : NULL;
			char tct[32];
			words_time(time, tct, sizeof tct);   /* as krieg says it */
			say(s, "offer %" JSON_INTEGER_FORMAT " from %s (%s, %s): %s", json_integer_value(offer),
			    from ? from : "?", rules, tct, no ? no : "accepted");
			sess_send(s, json_pack("{s:s,s:O}", "type", no ? "decline" : "accept", "offer", offer));
		}
	} else if (ev && strcmp(ev, "game_start") == 0) {
		long gid = (long)json_integer_value(json_object_get(o, "game"));
		const char *rules = json_string_value(json_object_get(o, "rules"));
		struct bgame *g = game_open(s, gid, rules,
		                            color_parse(json_string_value(json_object_get(o, "color"))), NULL);
		json_t *t = json_object_get(o, "time");
		if (g && json_is_object(t) && json_is_number(json_object_get(t, "inc")))
			g->inc_ms = scrub_ms(json_object_get(t, "inc"), 1000);
		if (g) {
			char tct[32];
			words_time(t, tct, sizeof tct);
			const char *w = json_string_value(json_object_get(o, "white"));
			const char *b = json_string_value(json_object_get(o, "black"));
			say(s, "game %ld begins: %s (White) v %s (Black), %s, %s", gid, w ? w : "?", b ? b : "?",
			    rules ? rules : RULESET_DEFAULT, tct);
		}
		s->seeks_dirty = true;
	} else if (ev && strcmp(ev, "game_state") == 0) {
		on_game_view(s, o);
	} else if (ev && strcmp(ev, "game_events") == 0) {
		struct bgame *g = game_of(s, (long)json_integer_value(json_object_get(o, "game")));
		size_t i;
		json_t *e;
		json_array_foreach(json_object_get(o, "events"), i, e) {
			if (!g || !g->bot)
				break;
			game_event(s, g, e);
		}
	} else if (ev && strcmp(ev, "draw_offer") == 0) {
		/* Only the arena's second player accepts: the ply cap's adjudication. */
		struct bgame *g = game_of(s, (long)json_integer_value(json_object_get(o, "game")));
		const char *by = json_string_value(json_object_get(o, "by"));
		if (g && s->accept_draws && color_parse(by) == !g->bot->color)
			sess_send(s, json_pack("{s:s,s:I,s:s}", "type", "draw", "game", (json_int_t)g->id, "action", "accept"));
	} else if (ev && (strcmp(ev, "session_ended") == 0 || strcmp(ev, "account_disabled") == 0)) {
		/* the server closes: said; the bot comes back as a service does
		 * (a disabled account's login is refused, which ends it) */
		const char *why = json_string_value(json_object_get(o, "reason"));
		say(s, "the server ended the session: %s", ev[0] == 'a' ? "the account is disabled" : why ? why : "?");
	} else if (ev && strcmp(ev, "ping") == 0) {
		sess_send(s, json_pack("{s:s}", "type", "ping"));
	} else if (ev && json_is_integer(json_object_get(o, "game"))) {
		struct bgame *g = game_of(s, (long)json_integer_value(json_object_get(o, "game")));
		if (g)
			game_event(s, g, o);
	}
	json_decref(o);
}

/* The thinking budget of one decision. */
static long budget(const struct sess *s, const struct bgame *g)
{
	if (s->movetime_ms > 0)
		return s->movetime_ms;
	if (g->clock_ms < 0)
		return 1000;
	long b = g->clock_ms / 40 + g->inc_ms * 3 / 4;
	return b < 20 ? 20 : b > 10000 ? 10000 : b;
}

static void sess_act(struct sess *s)
{
	int64_t now = mstime_mono();
	if (s->nseeks && s->logged_in && s->seeks_dirty && !s->seeks_req && now >= s->seeks_wait) {
		/* which of our seeks are still open: a `seeks` listing, then seeks_reconcile */
		s->seeks_dirty = false;
		for (int k = 0; k < s->nseeks; k++)
			s->seeks[k].seen = false;
		s->seeks_req = sess_send(s, json_pack("{s:s}", "type", "seeks"));
	}
	for (int i = 0; i < SESS_GAMES_MAX; i++) {
		struct bgame *g = &s->games[i];
		if (g->bot && s->max_plies > 0 && g->ply >= s->max_plies && !g->draw_offered) {
			/* the arena's ply cap: a draw by agreement (the other bot accepts) */
			sess_send(s, json_pack("{s:s,s:I,s:s}", "type", "draw", "game", (json_int_t)g->id, "action", "offer"));
			g->draw_offered = true;
		}
		if (!g->bot || g->busy)
			continue;
		struct sess *u = s->umpire;
		if (u && !u->dead && !u->ufailed) {
			/* Wait for the umpire's position of this ply; check the belief once per ply. */
			if (!u->useated || u->ugame != g->id || u->uply != g->ply)
				continue;
			if (g->checked_ply != g->ply) {
				local_measure(g->bot, &u->utrue, &g->bs);
				g->checked_ply = g->ply;
			}
		}
		if (now < g->wait_until || !bot_to_move(g->bot))
			continue;
		move_t m;
		int64_t t0 = mstime_mono();
		enum bot_action a = bot_choose(g->bot, budget(s, g), &m);
		s->think_ms += (long)(mstime_mono() - t0);
		if (a == BOT_ANY) {
			sess_send(s, json_pack("{s:s,s:I}", "type", "any", "game", (json_int_t)g->id));
		} else if (a == BOT_TRY) {
			char text[NOTATION_MAX];
			notation_uci(m, text);
			sess_send(s, json_pack("{s:s,s:I,s:s}", "type", "move", "game", (json_int_t)g->id, "move", text));
			s->moves++;
		} else {
			continue;
		}
		g->busy = true;
	}
}

static int sess_connect(struct sess *s, const char *hostport, bool insecure, const char *known)
{
	char host[NET_HOST_MAX], port[16], err[256];
	if (net_split_hostport(hostport, host, sizeof host, port, sizeof port) != 0) {
		fprintf(stderr, "krieg-bot: bad address '%s'\n", hostport);
		return -1;
	}
	static FILE *devnull;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	struct net_opts o = { .host = host, .port = port, .insecure = insecure, .known_path = known,
	                      .notice = insecure ? devnull : stderr, .tofu = NET_TOFU_AUTO,
	                      .program = "krieg-bot" };
	if (net_connect(&o, &s->net, err, sizeof err) != NET_OK) {
		fprintf(stderr, "krieg-bot: %s\n", err);
		return -1;
	}
	sess_send(s, json_pack("{s:s,s:i,s:s}", "type", "hello", "version", PROTO_VERSION, "client", BOT_VERSION));
	return 0;
}

/* Read what arrived on every session (waiting at most timeout_ms), then act. */
static void pump(struct sess **ss, int n, int timeout_ms)
{
	struct pollfd p[8];
	for (int i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = ss[i]->dead ? -1 : net_fd(ss[i]->net), .events = POLLIN };
	bool ready = false;
	for (int i = 0; i < n; i++)
		ready |= !ss[i]->dead && net_has_line(ss[i]->net);
	if (poll(p, (nfds_t)n, ready ? 0 : timeout_ms) < 0 && errno != EINTR)
		return;
	for (int i = 0; i < n; i++) {
		struct sess *s = ss[i];
		if (s->dead)
			continue;
		bool closed = (p[i].revents & (POLLIN | POLLHUP | POLLERR)) && net_read(s->net) != NET_OK;
		/* the lines that came before a close are read first: a server that
		 * ends the session says why, then closes (they were dropped) */
		char line[PROTO_LINE_MAX];
		while (!s->dead && net_next_line(s->net, line, sizeof line))
			on_line(s, line);
		if (closed)
			s->dead = true;
		if (!s->dead)
			sess_act(s);
	}
}

/* ------------------------------------------------------------------ */
/* a local kriegd for the arena                                        */

static pid_t kriegd_pid = -1;
static char kriegd_dir[256];

#define ARENA_UMPIRE "arena-umpire"

/*
 * The umpire account of the arena's own kriegd, made offline before it
 * starts (`kriegd user add NAME --role umpire --password-stdin`), with a
 * random password written to the tool's stdin.  0, or -1.
 */
static int kriegd_add_umpire(const char *bin, const char *state, char *password, size_t len)
{
	unsigned char r[12];
	int rfd = open("/dev/urandom", O_RDONLY);
	if (rfd < 0 || read(rfd, r, sizeof r) != (ssize_t)sizeof r || len < 2 * sizeof r + 1) {
		if (rfd >= 0)
			close(rfd);
		return -1;
	}
	close(rfd);
	for (size_t i = 0; i < sizeof r; i++)
		snprintf(password + 2 * i, 3, "%02x", r[i]);
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		close(p[1]);
		dup2(p[0], 0);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl(bin, bin, "--state-dir", state, "user", "add", ARENA_UMPIRE, "--role", "umpire",
		      "--password-stdin", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	bool ok = dprintf(p[1], "%s\n", password) > 0;
	close(p[1]);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		ok = false;
	return ok ? 0 : -1;
}

static int kriegd_start(const char *bin, char *hostport, size_t len, char *umpire_pw, size_t pwlen)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(kriegd_dir, sizeof kriegd_dir, "%s/krieg-bot-arena-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(kriegd_dir))
		return -1;
	char state[300], logp[300], conf[300];
	snprintf(state, sizeof state, "%s/state", kriegd_dir);
	snprintf(logp, sizeof logp, "%s/kriegd.log", kriegd_dir);
	snprintf(conf, sizeof conf, "%s/kriegd.conf", kriegd_dir);
	FILE *f = fopen(conf, "w");
	if (!f)
		return -1;
	/* two bots from one address, as fast as they think */
	fputs("guests_per_address = 0\nrate_limit = 1000\nrate_burst = 1000\n", f);
	fclose(f);
	if (kriegd_add_umpire(bin, state, umpire_pw, pwlen) != 0) {
		fprintf(stderr, "krieg-bot: could not make the arena's umpire account (%s user add)\n", bin);
		return -1;
	}
	pid_t parent = getpid();
	kriegd_pid = fork();
	if (kriegd_pid < 0)
		return -1;
	if (kriegd_pid == 0) {
		int fd = open(logp, O_WRONLY | O_CREAT | O_APPEND, 0600);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent || fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(bin, bin, "--state-dir", state, "--listen", "127.0.0.1:0", "--config", conf, (char *)NULL);
		_exit(127);
	}
	const char *needle = "kriegd: listening on 127.0.0.1:";
	for (int tries = 0; tries < 6000; tries++) {   /* a minute: a kriegd under valgrind is slow */
		char buf[8192] = "";
		FILE *lf = fopen(logp, "r");
		if (lf) {
			size_t n = fread(buf, 1, sizeof buf - 1, lf);
			buf[n] = '\0';
			fclose(lf);
		}
		char *p = strstr(buf, needle);
		if (p && strstr(buf, "kriegd: ready")) {
			snprintf(hostport, len, "127.0.0.1:%d", atoi(p + strlen(needle)));
			return 0;
		}
		if (waitpid(kriegd_pid, NULL, WNOHANG) == kriegd_pid)
			return -1;
		usleep(10000);
	}
	return -1;
}

static void kriegd_stop(void)
{
	if (kriegd_pid > 0) {
		kill(kriegd_pid, SIGTERM);
		waitpid(kriegd_pid, NULL, 0);
		kriegd_pid = -1;
		char cmd[400];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", kriegd_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "krieg-bot: could not remove %s\n", kriegd_dir);
	}
}

/* ------------------------------------------------------------------ */
/* arena                                                               */

struct score {
	double a;       /* points of player A (--white's level) */
	int n, wins, draws, losses;
};

static void score_add(struct score *sc, int result, int a_color)
{
	double p = result == RESULT_DRAW ? 0.5 : result == (a_color == WHITE ? RESULT_WHITE : RESULT_BLACK) ? 1 : 0;
	if (result == RESULT_NONE)
		p = 0.5; /* unfinished (aborted, move cap): counted as a draw */
	sc->a += p;
	sc->n++;
	if (p == 1)
		sc->wins++;
	else if (p == 0)
		sc->losses++;
	else
		sc->draws++;
}

static void score_print(const struct score *sc, const char *la, const char *lb, const char *rules, double ms_per_move)
{
	double m = sc->n ? sc->a / sc->n : 0;
	/* Wilson interval for the score share (draws as half points) */
	double z = 1.96, n = sc->n ? sc->n : 1;
	double den = 1 + z * z / n, mid = (m + z * z / (2 * n)) / den;
	double half = z * sqrt(m * (1 - m) / n + z * z / (4 * n * n)) / den;
	printf("arena %s: %s vs %s, games %d: +%d =%d -%d, score %.3f (95%% CI %.3f..%.3f), %.1f ms per move\n",
	       rules, la, lb, sc->n, sc->wins, sc->draws, sc->losses, m, mid - half < 0 ? 0 : mid - half,
	       mid + half > 1 ? 1 : mid + half, ms_per_move);
}

/* One game's full record (the umpire's view: every try and announcement;
 * krieg-referee pgn reads it back) appended to f.  Players "A (level)" and
 * "B (level)", Round the game's number. */
static int arena_pgn(FILE *f, const struct ruleset *rs, const char *fen, int g, int a_color, int la, int lb,
                     const struct local_result *res)
{
	struct pgn_header h;
	pgn_header_init(&h);
	snprintf(h.event, sizeof h.event, "krieg-bot arena");
	snprintf(h.site, sizeof h.site, "local");
	snprintf(h.round, sizeof h.round, "%d", g + 1);
	snprintf(a_color == WHITE ? h.white : h.black, sizeof h.white, "A (%s)", bot_level_name(la));
	snprintf(a_color == WHITE ? h.black : h.white, sizeof h.white, "B (%s)", bot_level_name(lb));
	snprintf(h.rules, sizeof h.rules, "%s", rs->name);
	if (fen)
		snprintf(h.fen, sizeof h.fen, "%s", fen);
	char *text, err[160];
	if (pgn_write(&h, res->acts, res->nacts, AUD_UMPIRE, &text, err, sizeof err) != 0) {
		fprintf(stderr, "krieg-bot: game %d: no PGN: %s\n", g + 1, err);
		return -1;
	}
	fprintf(f, "%s\n", text);
	free(text);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

static int arena_local(int la, int lb, int games, const struct ruleset *rs, long movetime, int max_plies,
                       const char *fen, uint64_t seed, const struct belief_limits *lim, const char *pgn)
{
	FILE *pf = NULL;
	if (pgn && !(pf = fopen(pgn, "w"))) {
		fprintf(stderr, "krieg-bot: %s: %s\n", pgn, strerror(errno));
		return 2;
	}
	struct score sc = { 0 };
	long ms = 0, moves = 0, full_moves = 0, a_ms = 0, a_searched = 0;
	double a_upkeep = 0;
	struct local_belief_stats bs = { 0 };
	for (int g = 0; g < games; g++) {
		int a_color = g % 2 == 0 ? WHITE : BLACK;
		struct local_opts o = { .fen = fen, .movetime_ms = movetime, .check_belief = true, .seed = seed + (uint64_t)g,
		                        .lim = *lim, .max_plies = max_plies, .record = pf != NULL };
		struct local_result res;
		char err[128];
		if (local_play(rs, a_color == WHITE ? la : lb, a_color == WHITE ? lb : la, &o, &res, err, sizeof err) != 0) {
			fprintf(stderr, "krieg-bot: %s\n", err);
			if (pf)
				fclose(pf);
			return 2;
		}
		int wrote = pf ? arena_pgn(pf, rs, fen, g, a_color, la, lb, &res) : 0;
		free(res.acts);
		if (wrote != 0) {
			fprintf(stderr, "krieg-bot: %s: the games could not be written\n", pgn);
			fclose(pf);
			return 2;
		}
		score_add(&sc, res.result, a_color);
		for (int c = 0; c < 2; c++) {
			ms += res.ms[c];
			moves += res.moves[c];
			stats_add(&bs, &res.bs[c]);
		}
		full_moves += res.moves[a_color];
		a_ms += res.ms[a_color];
		a_upkeep += res.upkeep_ms[a_color];
		a_searched += res.searched[a_color];
		printf("game %d: %s %s in %ld moves of A\n", g + 1, game_result_name(res.result),
		       game_reason_name(res.reason) ? game_reason_name(res.reason) : "unfinished", res.moves[a_color]);
		fflush(stdout); /* a long arena shows its progress */
	}
	score_print(&sc, bot_level_name(la), bot_level_name(lb), rs->name, moves ? (double)ms / (double)moves : 0);
	stats_print("belief", &bs);
	printf("belief: %ld rejuvenations, %ld announcements fitted by nothing, %ld samples made exact again "
	       "(a bare king), %ld kings and pawns spread again (few men), %ld lost samples put back on the bot's men "
	       "and turn; sampled plies with few men: %ld, held %.1f%%\n",
	       bs.rejuvenations, bs.lost, bs.reexact, bs.respread, bs.reanchored, bs.few_plies,
	       bs.few_plies ? 100.0 * bs.few_in / bs.few_plies : 0);
	/* The budget bounds the thinking; taking in the opponent's move (the
	 * belief's expansion, filtering, spreading) comes on top of it */
	printf("time per move of A (%s): %.1f ms thinking (%.0f positions searched a second), %.1f ms taking in "
	       "events\n",
	       bot_level_name(la), full_moves ? (double)a_ms / (double)full_moves : 0,
	       a_ms ? 1000.0 * (double)a_searched / (double)a_ms : 0, full_moves ? a_upkeep / (double)full_moves : 0);
	if (fen)
		printf("moves of A per game: %.1f\n", games ? (double)full_moves / games : 0);
	if (pf && fclose(pf) != 0) {
		fprintf(stderr, "krieg-bot: %s: %s\n", pgn, strerror(errno));
		return 2;
	}
	return 0;
}

struct arena_opts {
	int la, lb, games, max_plies;
	const char *rules;
	long movetime;
	const char *server;                       /* NULL: start kriegd */
	const char *kriegd;
	const char *umpire, *umpire_pwfile;       /* with --server: an umpire account (optional) */
};

static int read_password(const char *path, char *buf, size_t len);

static int arena_net(const struct arena_opts *ao)
{
	char hostport[128];
	static char umpire_pw[PROTO_PASSWORD_MAX + 2];
	const char *umpire = NULL;
	if (ao->server) {
		snprintf(hostport, sizeof hostport, "%s", ao->server);
		if (ao->umpire) {
			if (!ao->umpire_pwfile || read_password(ao->umpire_pwfile, umpire_pw, sizeof umpire_pw) != 0) {
				fprintf(stderr, "krieg-bot: --umpire needs a readable --umpire-password-file\n");
				return 2;
			}
			umpire = ao->umpire;
		}
	} else if (kriegd_start(ao->kriegd, hostport, sizeof hostport, umpire_pw, sizeof umpire_pw) != 0) {
		fprintf(stderr, "krieg-bot: could not start %s\n", ao->kriegd);
		kriegd_stop();
		return 2;
	} else {
		umpire = ARENA_UMPIRE;
	}
	struct sess a = { .name = "A", .level = ao->la, .movetime_ms = ao->movetime, .max_games = 1, .seed = 1,
	                  .max_plies = ao->max_plies };
	struct sess b = { .name = "B", .level = ao->lb, .movetime_ms = ao->movetime, .max_games = 1, .seed = 2,
	                  .accept_draws = true };
	struct sess u = { .name = "umpire", .is_umpire = true, .login_user = umpire, .login_password = umpire_pw };
	/* the umpire first: its board of a ply is read before the bots act on that ply */
	struct sess *ss[3] = { &u, &a, &b };
	int nss = 0;
	int rc = 0;
	if (sess_connect(&a, hostport, true, NULL) != 0 || sess_connect(&b, hostport, true, NULL) != 0 ||
	    (umpire && sess_connect(&u, hostport, true, NULL) != 0)) {
		rc = 2;
		goto out;
	}
	struct sess **sp = umpire ? ss : ss + 1;
	nss = umpire ? 3 : 2;
	if (umpire)
		a.umpire = b.umpire = &u;
	struct score sc = { 0 };
	int64_t t_start = 0;
	bool in_game = false;
	int capped = 0;
	while (sc.n < ao->games && !a.dead && !b.dead) {
		pump(sp, nss, 20);
		bool umpire_ok = umpire && !u.dead && !u.ufailed;
		if (!a.logged_in || !b.logged_in || (umpire_ok && !u.logged_in))
			continue;
		if (!in_game) {
			int a_color = sc.n % 2 == 0 ? WHITE : BLACK;
			sess_send(&a, json_pack("{s:s,s:s,s:s,s:s}", "type", "challenge", "user", b.user, "rules", ao->rules,
			                        "color", a_color == WHITE ? "white" : "black"));
			in_game = true;
			t_start = mstime_mono();
			a.finished = b.finished = 0;
		} else if (a.finished && b.finished) {
			score_add(&sc, a.last_result[0], a.last_result[1]);
			capped += a.last_reason == REASON_AGREEMENT; /* only the ply cap's offer is ever accepted */
			in_game = false;
			u.ugame = 0;
			u.useated = false;
		} else if (mstime_mono() - t_start > ARENA_GAME_MS_MAX) {
			fprintf(stderr, "krieg-bot: a game took too long\n");
			rc = 2;
			break;
		} else if (umpire_ok && u.ugame == 0) {
			/* the game has begun (A holds it): take its chair */
			for (int i = 0; i < SESS_GAMES_MAX; i++)
				if (a.games[i].bot) {
					u.ugame = a.games[i].id;
					u.umpire_req = sess_send(&u, json_pack("{s:s,s:I}", "type", "umpire", "game",
					                                      (json_int_t)u.ugame));
				}
		}
	}
	if (a.dead || b.dead) {
		fprintf(stderr, "krieg-bot: lost the connection to %s\n", hostport);
		rc = 2;
	}
	long moves = a.moves + b.moves;
	score_print(&sc, bot_level_name(ao->la), bot_level_name(ao->lb), ao->rules,
	            moves ? (double)(a.think_ms + b.think_ms) / (double)moves : 0);
	if (ao->max_plies > 0)
		printf("ply cap %d: %d of %d games drawn there by agreement\n", ao->max_plies, capped, sc.n);
	if (umpire && !u.dead && !u.ufailed) {
		struct local_belief_stats bs = { 0 };
		stats_add(&bs, &a.bs);
		stats_add(&bs, &b.bs);
		stats_print("umpire's check", &bs);
	} else {
		printf("umpire's check: not made (%s)\n",
		       !umpire ? "no umpire account: --umpire NAME --umpire-password-file FILE"
		               : "the umpire's connection or chair failed");
	}
out:
	for (int i = 0; i < 3; i++) {
		for (int g = 0; g < SESS_GAMES_MAX; g++)
			if (ss[i]->games[g].bot)
				game_close(ss[i], &ss[i]->games[g]);
		net_free(ss[i]->net);
	}
	kriegd_stop();
	return rc;
}

/* ------------------------------------------------------------------ */
/* play                                                                */

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { stop_requested = sig; }

static int read_password(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

static int play(struct sess *s, const char *hostport, bool insecure, const char *known)
{
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	int64_t delay = 1000;
	while (!stop_requested) {
		s->dead = false;
		s->logged_in = false;
		s->resume_req = 0;
		if (sess_connect(s, hostport, insecure, known) == 0) {
			delay = 1000;
			struct sess *ss[1] = { s };
			while (!s->dead && !stop_requested)
				pump(ss, 1, 100);
			if (s->refused) {
				net_free(s->net);
				s->net = NULL;
				say(s, "the login was refused for good: not trying again (exit %d)", PLAY_EXIT_REFUSED);
				return PLAY_EXIT_REFUSED;
			}
			for (int g = 0; g < SESS_GAMES_MAX; g++)
				if (s->games[g].bot)
					game_close(s, &s->games[g]); /* rebuilt from game_state at the next login */
			net_free(s->net);
			s->net = NULL;
			if (!stop_requested)
				fprintf(stderr, "krieg-bot: connection lost; reconnecting\n");
		}
		if (stop_requested)
			break;
		usleep((useconds_t)delay * 1000);
		delay = delay * 2 > 60000 ? 60000 : delay * 2;
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: krieg-bot play HOST[:PORT] (--user NAME --password-file FILE | --guest)\n"
	      "                [--level random|greedy|full] [--rules R,R,...] [--max-games N]\n"
	      "                [--time untimed|Nd|MINUTES+INC,...] [--seek]\n"
	      "                [--movetime MS] [--insecure] [--known-servers FILE]\n"
	      "       krieg-bot arena --white LEVEL --black LEVEL --games N --rules R [--movetime MS]\n"
	      "                [--max-plies N (a draw by agreement there; 0: none)]\n"
	      "                [--server HOST:PORT [--umpire NAME --umpire-password-file FILE] | --kriegd PATH]\n"
	      "                [--local [--fen FEN] [--pgn FILE]] [--seed N]\n"
	      "                [--particles N] [--exact-max N] [--rejuv-div N (0: never)]\n"
	      "       krieg-bot --version | --help\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("krieg-bot %s (protocol %d)\n", KRIEG_RELEASE, PROTO_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	const char *cmd = argv[1];
	int la = BOT_FULL, lb = BOT_RANDOM, games = 2, level = BOT_FULL, max_games = 4, max_plies = 0;
	long movetime = 0;
	const char *rules = RULESET_DEFAULT, *server = NULL, *kriegd = getenv("KRIEGD"), *fen = NULL, *pgn = NULL;
	const char *user = NULL, *pwfile = NULL, *known = NULL, *target = NULL;
	const char *umpire = NULL, *umpire_pwfile = NULL;
	bool local = false, insecure = false, guest = false, seek = false;
	const char *times = NULL;
	uint64_t seed = 1;
	struct belief_limits lim = { BELIEF_EXACT_MAX, BELIEF_PARTICLES, BELIEF_REJUV_DIV };
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(name) (strcmp(a, name) == 0 && v && (i++, 1))
		if (TAKE("--white"))
			la = bot_level_parse(v);
		else if (TAKE("--black"))
			lb = bot_level_parse(v);
		else if (TAKE("--level"))
			level = bot_level_parse(v);
		else if (TAKE("--games"))
			games = atoi(v);
		else if (TAKE("--max-games"))
			max_games = atoi(v);
		else if (TAKE("--max-plies"))
			max_plies = atoi(v);
		else if (TAKE("--rules"))
			rules = v;
		else if (TAKE("--movetime"))
			movetime = atol(v);
		else if (TAKE("--server"))
			server = v;
		else if (TAKE("--kriegd"))
			kriegd = v;
		else if (TAKE("--fen"))
			fen = v;
		else if (TAKE("--pgn"))
			pgn = v;
		else if (TAKE("--particles"))
			lim.particles = (size_t)atol(v);
		else if (TAKE("--exact-max"))
			lim.exact_max = (size_t)atol(v);
		else if (TAKE("--rejuv-div"))
			lim.rejuv_div = atol(v) > 0 ? (size_t)atol(v) : SIZE_MAX;
		else if (TAKE("--seed"))
			seed = (uint64_t)atoll(v);
		else if (TAKE("--user"))
			user = v;
		else if (TAKE("--password-file"))
			pwfile = v;
		else if (TAKE("--umpire"))
			umpire = v;
		else if (TAKE("--umpire-password-file"))
			umpire_pwfile = v;
		else if (TAKE("--known-servers"))
			known = v;
		else if (TAKE("--time"))
			times = v;
		else if (strcmp(a, "--seek") == 0)
			seek = true;
		else if (strcmp(a, "--local") == 0)
			local = true;
		else if (strcmp(a, "--insecure") == 0)
			insecure = true;
		else if (strcmp(a, "--guest") == 0)
			guest = true;
		else if (a[0] != '-' && !target)
			target = a;
		else {
			fprintf(stderr, "krieg-bot: unknown or incomplete option '%s'\n", a);
			usage(stderr);
			return 2;
		}
#undef TAKE
	}
	if (la < 0 || lb < 0 || level < 0 || games < 1 || max_games < 1 || movetime < 0 || max_plies < 0) {
		fprintf(stderr, "krieg-bot: levels are random, greedy, full; counts are positive\n");
		return 2;
	}
	if (strcmp(cmd, "arena") == 0) {
		const struct ruleset *rs = ruleset_find(rules);
		if (!rs) {
			fprintf(stderr, "krieg-bot: unknown rule set '%s'\n", rules);
			return 2;
		}
		if (local)
			return arena_local(la, lb, games, rs, movetime, max_plies, fen, seed, &lim, pgn);
		if (pgn || fen) {
			/* over the network the games are kriegd's: its record and PGN export */
			fprintf(stderr, "krieg-bot: --pgn and --fen are for --local\n");
			return 2;
		}
		if (!server && !kriegd) {
			fprintf(stderr, "krieg-bot: arena needs --server HOST:PORT, --kriegd PATH or $KRIEGD\n");
			return 2;
		}
		signal(SIGPIPE, SIG_IGN);
		struct arena_opts ao = { .la = la, .lb = lb, .games = games, .max_plies = max_plies, .rules = rules,
		                         .movetime = movetime, .server = server, .kriegd = kriegd,
		                         .umpire = umpire, .umpire_pwfile = umpire_pwfile };
		return arena_net(&ao);
	}
	if (strcmp(cmd, "krk-fen") == 0) {
		char start[FEN_MAX];
		local_krk_fen(seed, start, sizeof start);
		printf("%s\n", start);
		return 0;
	}
	if (strcmp(cmd, "play") == 0) {
		static char password[PROTO_PASSWORD_MAX + 2];
		if (!target || (!guest && (!user || !pwfile))) {
			usage(stderr);
			return 2;
		}
		if (!guest && read_password(pwfile, password, sizeof password) != 0) {
			fprintf(stderr, "krieg-bot: cannot read the password file %s\n", pwfile);
			return 2;
		}
		struct sess s = { .name = "play", .journal = true, .level = level, .movetime_ms = movetime, .max_games = max_games,
		                  .login_user = guest ? NULL : user, .login_password = password, .seed = seed };
		if (max_games > PLAY_GAMES_MAX)
			s.max_games = PLAY_GAMES_MAX;
		/* --rules a,b,c: the rule sets whose challenges are accepted */
		static char rbuf[256];
		snprintf(rbuf, sizeof rbuf, "%s", rules);
		if (strcmp(rules, RULESET_DEFAULT) != 0 || strchr(rules, ',')) {
			for (char *t = strtok(rbuf, ","); t && s.nrules < RULES_MAX; t = strtok(NULL, ","))
				s.rules[s.nrules++] = t;
		}
		for (int i = 0; i < s.nrules; i++) {
			const struct ruleset *rs = ruleset_find(s.rules[i]);
			if (!rs) {
				fprintf(stderr, "krieg-bot: unknown rule set '%s'\n", s.rules[i]);
				return 2;
			}
		}
		/* --time a,b,c: the time controls it accepts and seeks */
		static char tbuf[256];
		snprintf(tbuf, sizeof tbuf, "%s", times ? times : "");
		for (char *t = strtok(tbuf, ","); t; t = strtok(NULL, ",")) {
			if (s.ntimes >= TIMES_MAX || tc_parse(t, &s.times[s.ntimes]) != 0) {
				fprintf(stderr, "krieg-bot: --time takes at most %d of untimed, Nd (days per move) or "
				        "MINUTES+INC (5+2: five minutes, two seconds more a move), not '%s'\n", TIMES_MAX, t);
				return 2;
			}
			s.ntimes++;
		}
		/* --seek: one open seek per rule set and time control */
		if (seek) {
			int nr = s.nrules ? s.nrules : 1, nt = s.ntimes ? s.ntimes : 1;
			if (nr * nt > SEEKS_MAX) {
				fprintf(stderr, "krieg-bot: --seek: at most %d rule sets times time controls\n", SEEKS_MAX);
				return 2;
			}
			for (int r = 0; r < nr; r++)
				for (int t = 0; t < nt; t++)
					s.seeks[s.nseeks++] = (struct seekslot){ .rules = s.nrules ? s.rules[r] : RULESET_DEFAULT,
					                                          .tc = s.ntimes ? s.times[t] : (struct tc){ 0 } };
		}
		return play(&s, target, insecure, known);
	}
	usage(stderr);
	return 2;
}
