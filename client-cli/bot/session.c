/*
 * session.c — see session.h.  A session reads lines (on_line: answers,
 * events, the games' states) and acts when it may (sess_act: a try, an
 * "any?", an answer to a challenge, the seeks play mode keeps open).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "fen.h"
#include "movegen.h"
#include "mstime.h"
#include "notation.h"
#include "scrub.h"
#include "session.h"
#include "timectl.h"
#include "words.h"

#define BOT_VERSION "krieg-bot/" KRIEG_RELEASE
#define RETRY_MS 250              /* after rate_limited / busy */
#define GAME_ERRORS_MAX 32        /* refused requests in one game before resigning it */
#define BUDGET_MIN_MS 20          /* a decision from the clock thinks at least this long ... */
#define BUDGET_MAX_MS 10000       /* ... and at most this */
#define UNCLOCKED_BUDGET_MS 1000  /* an untimed or correspondence game's, at most */

long long sess_send(struct sess *s, json_t *req)
{
	json_object_set_new(req, "id", json_integer(++s->next_id));
	if (s->awaiting++ == 0)
		s->await_since = mstime_mono();   /* its answer is awaited from now (sess_alive) */
	char *line = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!line || net_send_line(s->net, line) != NET_OK)
		s->dead = true;
	free(line);
	return s->next_id;
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

/* The games the bot is committed to: live ones, those the login's reply
 * listed whose game_state has not come yet, accepts awaiting their answer
 * and challenges held for acceptance (each a game about to begin). */
static int live_games(struct sess *s)
{
	int n = s->naccepts + s->nheld;
	for (int i = 0; i < SESS_GAMES_MAX; i++)
		n += s->games[i].bot != NULL;
	for (int i = 0; i < s->nlogin_games; i++)
		n += game_of(s, s->login_games[i]) == NULL;
	return n;
}

/* A game the login's reply listed is accounted for (its game_state came,
 * or its end). */
static void login_game_seen(struct sess *s, long id)
{
	for (int i = 0; i < s->nlogin_games; i++)
		if (s->login_games[i] == id)
			s->login_games[i--] = s->login_games[--s->nlogin_games];
}

/* Our seeks that could start a game: open ones, posts and cancels
 * awaiting their answer (a seek taken before our cancel reached the
 * server has started one).  With without_cancels, less those being
 * cancelled: what is left to withdraw. */
static int seeks_open(const struct sess *s, bool without_cancels)
{
	int n = 0;
	for (int k = 0; k < s->nseeks; k++)
		n += s->seeks[k].offer || s->seeks[k].req || (s->seeks[k].cancel && !without_cancels);
	return n;
}

/* The game whose move or "any?" request rid is, or NULL. */
static struct bgame *game_of_req(struct sess *s, long long rid)
{
	for (int i = 0; i < SESS_GAMES_MAX; i++)
		if (s->games[i].bot && s->games[i].req && s->games[i].req == rid)
			return &s->games[i];
	return NULL;
}

/* An accept of ours answered (taken, or refused): true if rid was one. */
static bool accept_answered(struct sess *s, long long rid)
{
	for (int i = 0; i < s->naccepts; i++)
		if (s->accepts[i] == rid) {
			s->accepts[i] = s->accepts[--s->naccepts];
			return true;
		}
	return false;
}

/* ------------------------------------------------------------------ */
/* time controls and seeks (play)                                      */

/*
 * A --time word, read as krieg's seek and challenge read it (timectl.h,
 * the parser they share): "untimed" or "none", "Nd" (correspondence, days
 * per move), "BASE+INC" or "BASE", minutes and seconds of increment as
 * the chess servers and krieg write them ("5+2", "0.5+0", "1:40+0.5",
 * "5+0.25"), within the server's limits (server/clock.h): a base of 1 s
 * to a day, an increment to 600 s, to the ms; 1..60 days.  (It read with
 * strtod(): "0.01+0", 600 ms that the server refuses, "0x10+0" and
 * "1e1+0" passed, and "1:40+0.5" and "5+0.5", which krieg writes, did
 * not.)
 */
int sess_tc_parse(const char *t, struct tc *out)
{
	struct timectl tc;
	memset(out, 0, sizeof *out);
	if (!timectl_parse(t, &tc))
		return -1;
	out->base_ms = (long)tc.base_ms;
	out->inc_ms = (long)tc.inc_ms;
	out->days = tc.days;
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
void sess_say(const struct sess *s, const char *fmt, ...)
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

/* Whether a rule set is one of ours (--rules; none given: any). */
static bool rules_ok(const struct sess *s, const char *rules)
{
	if (s->nrules == 0)
		return true;
	for (int i = 0; i < s->nrules; i++)
		if (rules && strcmp(s->rules[i], rules) == 0)
			return true;
	return false;
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

/* Whether the i-th rule set (rules) or time control was given before it. */
static bool named_before(const struct sess *s, bool rules, int i)
{
	for (int j = 0; j < i; j++)
		if (rules ? strcmp(s->rules[j], s->rules[i]) == 0
		          : s->times[j].base_ms == s->times[i].base_ms && s->times[j].inc_ms == s->times[i].inc_ms &&
		            s->times[j].days == s->times[i].days)
			return true;
	return false;
}

/*
 * Why a challenge is declined for its rule set (rules) or its time
 * control, with what the bot plays instead (the newcomer probe: "not a
 * time control it plays" left the challenger guessing), into out as
 * "declined: ..."; what the server takes as a reason (ACTION_REASON_MAX
 * bytes) after that prefix.  A list too long is cut at an item with "...":
 * a guard, as today's ten rule sets (each named once) and TIMES_MAX time
 * controls fit, and a reason over the bound would leave the challenge
 * standing (bad_request).
 */
static const char *decline_words(const struct sess *s, bool rules, char *out, size_t len)
{
	size_t max = len < ACTION_REASON_MAX + 11 ? len : ACTION_REASON_MAX + 11;   /* "declined: " + NUL */
	size_t n = (size_t)snprintf(out, max, "declined: not a %s it plays (it plays ", rules ? "rule set" : "time control");
	int count = rules ? s->nrules : s->ntimes;
	for (int i = 0, listed = 0; i < count; i++) {
		char w[32];
		if (named_before(s, rules, i))
			continue;   /* --rules icc,icc: said once */
		if (rules) {
			snprintf(w, sizeof w, "%s", s->rules[i]);
		} else {
			json_t *t = tc_json(&s->times[i]);
			words_time(t, w, sizeof w);
			json_decref(t);
		}
		size_t need = strlen(w) + (listed ? 2 : 0) + (i + 1 < count ? 6 : 1);   /* room left for ", ...)" */
		if (n + need >= max) {
			n += (size_t)snprintf(out + n, max - n, "%s...", listed ? ", " : "");
			break;
		}
		n += (size_t)snprintf(out + n, max - n, "%s%s", listed++ ? ", " : "", w);
	}
	snprintf(out + n, max - n, ")");
	return out;
}

/*
 * Every open seek of ours can start a game, and several can be taken at
 * the same moment: the bot keeps its live games plus its seeks that could
 * start one within --max-games.  Seeks past that are withdrawn (the
 * last-configured first); a cancel awaiting its answer counts as withdrawn
 * here, and still as open where room is counted.
 */
static void seeks_withdraw(struct sess *s)
{
	int excess = live_games(s) + seeks_open(s, true) - s->max_games;
	for (int k = s->nseeks - 1; k >= 0 && excess > 0; k--) {
		struct seekslot *x = &s->seeks[k];
		if (x->offer && !x->cancel) {
			x->cancel = sess_send(s, json_pack("{s:s,s:I}", "type", "cancel", "offer", (json_int_t)x->offer));
			x->cancelling = x->offer;
			x->offer = 0;
			excess--;
		}
	}
}

/*
 * The `seeks` list has been read (every page) and the `games` barrier
 * answered: a seek of ours missing from the list was taken (its game has
 * begun and is counted) or is gone.  One seek is posted per free slot
 * (--max-games less the games it is committed to, less its seeks that
 * could still start one); with more configured seeks than free slots they
 * take turns, each post the next configured one after the last posted.
 */
static void seeks_reconcile(struct sess *s)
{
	for (int i = 0; i < s->nseeks; i++) {
		struct seekslot *k = &s->seeks[i];
		if (k->offer && !k->seen)
			k->offer = 0;
		k->seen = false;
	}
	s->seeks_unsettled = false;
	int room = s->max_games - live_games(s) - seeks_open(s, false);
	int first = s->seek_turn;   /* the turn moves on in the loop: not from there again */
	for (int n = 0; n < s->nseeks && room > 0; n++) {
		int i = (first + n) % s->nseeks;
		struct seekslot *k = &s->seeks[i];
		if (k->offer || k->req || k->cancel || k->failed || k->bot_open)
			continue;
		json_t *req = json_pack("{s:s,s:s,s:s}", "type", "seek", "rules", k->rules, "color", "random");
		json_t *t = tc_json(&k->tc);
		if (t)
			json_object_set_new(req, "time", t);
		k->req = sess_send(s, req);
		s->seek_turn = (i + 1) % s->nseeks;
		room--;
	}
	seeks_withdraw(s);
}

/* Answer a challenge: accept (counted from now, before its game begins) or decline. */
static void challenge_answer(struct sess *s, json_int_t offer, const char *from, const char *rules,
                             const char *tct, const char *no)
{
	sess_say(s, "offer %" JSON_INTEGER_FORMAT " from %s (%s, %s): %s", offer, from, rules, tct,
	    no ? no : "accepted");
	json_t *req = json_pack("{s:s,s:I}", "type", no ? "decline" : "accept", "offer", offer);
	/* the challenger is told why (a human was told nothing: bot probe) */
	if (no)
		json_object_set_new(req, "reason", json_string(strncmp(no, "declined: ", 10) == 0 ? no + 10 : no));
	long long rid = sess_send(s, req);
	if (!no)   /* room: live_games < max_games <= PLAY_GAMES_MAX, naccepts counted in it */
		s->accepts[s->naccepts++] = rid;
}

/*
 * The challenges held (fitting, with room for them only once seeks of ours
 * are withdrawn) are answered once nothing about our seeks is in flight:
 * accepted while there is room beside the games it is committed to and
 * the seeks still open, else declined.  A cancel refused (that seek was
 * taken) waits for the listing and its barrier, so that the game it began
 * is counted first.
 */
static void challenges_settle(struct sess *s)
{
	if (!s->nheld)
		return;
	seeks_withdraw(s);
	if (s->seeks_unsettled || s->seeks_req || s->games_req)
		return;
	for (int k = 0; k < s->nseeks; k++)
		if (s->seeks[k].req || s->seeks[k].cancel)
			return;
	int held = s->nheld;
	s->nheld = 0;
	for (int i = 0; i < held; i++) {
		struct held_challenge *h = &s->held[i];
		bool room = live_games(s) + 1 + seeks_open(s, false) <= s->max_games;
		if (h->seek && !room)   /* a seek is not declined: left to others */
			sess_say(s, "seek %lld of %s (%s, %s): not taken: at its limit of games at once", h->offer,
			    h->from, h->rules, h->time);
		else
			challenge_answer(s, h->offer, h->from, h->rules, h->time,
			                 room ? NULL : "declined: at its limit of games at once");
	}
}

/* One offer that fits and may start a game now (accepted) or once our
 * seeks are withdrawn (held, challenges_settle answers it). */
static void offer_fits(struct sess *s, json_int_t offer, const char *from, const char *rules, const char *tct,
                       bool seek)
{
	if (live_games(s) + 1 + seeks_open(s, false) <= s->max_games) {
		challenge_answer(s, offer, from, rules, tct, NULL);
		return;
	}
	struct held_challenge *h = &s->held[s->nheld++];
	h->offer = offer;
	h->seek = seek;
	snprintf(h->from, sizeof h->from, "%s", from);
	snprintf(h->rules, sizeof h->rules, "%s", rules);
	snprintf(h->time, sizeof h->time, "%s", tct);
	challenges_settle(s);
}

/*
 * A listed offer x, when it is another bot's open seek: a guest bot (which the server cannot tell from
 * a person) does not post the seek of its own that would meet it, since
 * the two would start a game between bots (bot probe).  Our seeks are
 * unrated, with a random colour, so the rules and time decide.  A bot
 * account's seeks the server keeps apart itself.
 */
static void bot_seek_listed(struct sess *s, const json_t *x)
{
	if (s->login_user != NULL || !json_is_true(json_object_get(x, "bot")) || json_object_get(x, "to") ||
	    json_is_true(json_object_get(x, "rated")))
		return;
	const char *rules = json_string_value(json_object_get(x, "rules"));
	if (!rules)
		rules = RULESET_DEFAULT;
	struct tc tc;
	tc_of_json(json_object_get(x, "time"), &tc);
	for (int i = 0; i < s->nseeks; i++) {
		struct seekslot *k = &s->seeks[i];
		if (strcmp(k->rules, rules) == 0 && k->tc.base_ms == tc.base_ms && k->tc.inc_ms == tc.inc_ms &&
		    k->tc.days == tc.days)
			k->bot_open = true;
	}
}

/*
 * A player's open seek (lobby_watch's list or a pushed `seek`): with
 * --seek, one that fits its rule sets and time controls is taken as a
 * fitting challenge would be, when there is room (bot probe: a player's
 * icc 1+0 seek stood 25 s beside a bot seeking icc 1+0 in turn with its
 * other seeks).  Never its own, another bot's (two bots are not matched)
 * or a challenge.
 */
static void seek_offered(struct sess *s, const json_t *x)
{
	const char *from = json_string_value(json_object_get(x, "user"));
	const char *rules = json_string_value(json_object_get(x, "rules"));
	json_t *offer = json_object_get(x, "offer"), *time = json_object_get(x, "time");
	bot_seek_listed(s, x);
	if (!s->nseeks || !from || !json_is_integer(offer) || strcasecmp(from, s->user) == 0 ||
	    json_is_true(json_object_get(x, "bot")) || json_object_get(x, "to"))
		return;
	/* what the server would refuse it: a rated game for a guest, and a
	 * rating range it does not know it is in (review: its own seeks were
	 * withdrawn for an accept refused) */
	if ((!s->login_user && json_is_true(json_object_get(x, "rated"))) ||
	    json_object_get(x, "rating_min") || json_object_get(x, "rating_max"))
		return;
	if (!rules)
		rules = RULESET_DEFAULT;
	if (!rules_ok(s, rules) || !tc_ok(s, time) || live_games(s) >= s->max_games ||
	    s->nheld >= PLAY_GAMES_MAX)
		return;
	for (int i = 0; i < s->nheld; i++)
		if (s->held[i].offer == json_integer_value(offer))
			return;
	char tct[32];
	words_time(time, tct, sizeof tct);
	offer_fits(s, json_integer_value(offer), from, rules, tct, true);
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
 * cancelled (all of them without --seek): left alone, every restart
 * would add one more.
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
		if (!slot->offer && !slot->req && !slot->cancel && rules && strcmp(slot->rules, rules) == 0 &&
		    slot->tc.base_ms == tc.base_ms && slot->tc.inc_ms == tc.inc_ms && slot->tc.days == tc.days) {
			slot->offer = id;
			slot->seen = true;
			return;
		}
	}
	sess_say(s, "offer %" JSON_INTEGER_FORMAT ": a seek an earlier run left open, cancelled (%s)", id,
	    s->nseeks ? "no --rules x --time of this run wants it" : "this run does not --seek");
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
		s->seeks_orphans = false;   /* read: its pages follow */
		size_t i;
		json_t *x;
		json_array_foreach(json_object_get(o, "offers"), i, x) {
			json_int_t id = json_integer_value(json_object_get(x, "offer"));
			bool known = false;
			bot_seek_listed(s, x);
			for (int k = 0; k < s->nseeks; k++) {
				if (s->seeks[k].offer == id)
					known = s->seeks[k].seen = true;
				known |= s->seeks[k].cancel && s->seeks[k].cancelling == id;   /* going */
			}
			if (!known)
				seek_adopt(s, x, id);
		}
		json_t *next = json_object_get(o, "next");
		if (json_is_integer(next))
			s->seeks_req = sess_send(s, json_pack("{s:s,s:O}", "type", "seeks", "from", next));
		else
			s->games_req = sess_send(s, json_pack("{s:s}", "type", "games"));
		return true;
	}
	if (s->games_req && rid == s->games_req) {
		/* the barrier: every game begun before it has been announced */
		s->games_req = 0;
		seeks_reconcile(s);
		return true;
	}
	for (int k = 0; k < s->nseeks; k++) {
		struct seekslot *x = &s->seeks[k];
		if (x->cancel && rid == x->cancel) {
			x->cancel = 0;
			x->cancelling = 0;
			if (!ok) {
				/* gone already: taken, most likely, its game not yet
				 * announced; read the list again, and the barrier */
				s->seeks_unsettled = true;
				s->seeks_dirty = true;
			}
			return true;
		}
		if (!x->req || rid != x->req)
			continue;
		x->req = 0;
		if (ok && json_object_get(o, "game")) {
			x->offer = 0;   /* it met an open seek: that game has begun; reposted while there is room */
		} else if (ok) {
			x->offer = (long long)json_integer_value(json_object_get(o, "offer"));
			seeks_withdraw(s);   /* a game began or a challenge came meanwhile: no room for it now */
		} else {
			fprintf(stderr, "krieg-bot: a seek (%s) was refused: ", x->rules);
			say_refusal(o);
			/* busy or rate_limited: posted again at the next reading of
			 * the list (seeks_wait paces it); any other refusal is for good */
			const char *code = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
			if (code && (strcmp(code, "rate_limited") == 0 || strcmp(code, "busy") == 0)) {
				s->seeks_dirty = true;
				s->seeks_wait = mstime_mono() + 1000;
			} else
				x->failed = true;
		}
		return true;
	}
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
		g->clock_at = mstime_mono();
		g->checked_ply = -1;
		g->bot = bot_new(s->level, rs, &start, color, s->seed++ * 7919 + (uint64_t)id, NULL);
		if (s->movetime_ms > 0)
			g->bot->budget_ms = s->movetime_ms; /* else the default until the first decision (bot.h) */
		return g;
	}
	return NULL;
}

void sess_game_close(struct sess *s, struct bgame *g)
{
	bot_free(g->bot);
	memset(g, 0, sizeof *g);
}

int sess_lost(struct sess *s)
{
	if (!s->logged_in)
		return s->nlost;   /* no game was opened on it: those of the last login still wait */
	s->nlost = 0;
	for (int g = 0; g < SESS_GAMES_MAX; g++)
		if (s->games[g].bot) {
			s->lost[s->nlost++] = (struct lost_game){ s->games[g].id, s->games[g].bot->color };
			sess_game_close(s, &s->games[g]);
		}
	/* a game the login listed but never opened is still ours */
	return s->nlost + s->nlogin_games;
}

/*
 * A server that is down for long is not called every second: the wait
 * doubles up to a minute.  But a game goes on at the server while the bot
 * is away, and kriegd abandons it for a player that does not come back
 * within abandon_grace (60 s by default, shorter in some clubs; after a
 * restart each recovered game gives both players the grace from the
 * restart).  A bot doubling its wait came back up to a minute after the
 * server did, and lost its games.  So while it has games (or had, when the
 * connection was lost), it retries every SESS_RETRY_GAMES_MS at most:
 * back within that of the server's return, however long it was down.
 */
long sess_retry_ms(long last_ms, bool games)
{
	long cap = games ? SESS_RETRY_GAMES_MS : SESS_RETRY_MAX_MS;
	long next = last_ms <= 0 ? SESS_RETRY_FIRST_MS : last_ms * 2;
	return next > cap ? cap : next;
}

/* The bucket's tokens at now: refilled at rate a second since p->at. */
static double pace_tokens(const struct sess_pace *p, int64_t now)
{
	double burst = p->rate < SESS_RATE_BURST_MAX ? p->rate : SESS_RATE_BURST_MAX;
	if (!p->at)
		return burst;
	double t = p->tokens + (double)(now - p->at) * p->rate / 1000.0;
	return t > burst ? burst : t;
}

bool sess_pace_take(struct sess_pace *p, int64_t now)
{
	if (!p->rate)
		return true;
	int max = p->max ? p->max : p->rate;
	if (p->rate < max && now - p->changed_at >= SESS_RATE_RECOVER_MS) {
		p->tokens = pace_tokens(p, now);   /* counted at the old rate up to now */
		p->at = now;
		p->rate++;
		p->changed_at = now;
	}
	double t = pace_tokens(p, now);
	if (t < 1.0)
		return false;
	p->tokens = t - 1.0;
	p->at = now;
	return true;
}

long sess_pace_wait_ms(const struct sess_pace *p, int64_t now)
{
	double t = p->rate ? pace_tokens(p, now) : 1.0;
	return t >= 1.0 ? 0 : (long)((1.0 - t) * 1000.0 / p->rate) + 1;
}

int sess_pace_slower(struct sess_pace *p, int64_t sent, int64_t now)
{
	if (p->rate > 1 && sent >= p->changed_at) {
		p->rate /= 2;
		p->changed_at = now;
	}
	p->tokens = 0;   /* the server says none are left */
	p->at = now;
	return p->rate;
}

static int color_parse(const char *c)
{
	return !c ? -1 : strcmp(c, "white") == 0 ? WHITE : strcmp(c, "black") == 0 ? BLACK : -1;
}

/* Our clock's reading in an event or notice that carries one. */
static void game_clock(struct bgame *g, const json_t *o)
{
	json_t *clock = json_object_get(o, "clock");
	if (json_is_object(clock)) {
		json_t *ms = json_object_get(clock, g->bot->color == WHITE ? "white" : "black");
		if (json_is_integer(ms)) {
			g->clock_ms = scrub_ms(ms, 1);
			g->clock_at = mstime_mono();
		}
	}
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
	game_clock(g, o);
	if (e.ply > g->ply)
		g->ply = e.ply;
	bot_event(g->bot, &e);
	if (e.type == EV_GAME_OVER) {
		int mine = g->bot->color == WHITE ? RESULT_WHITE : RESULT_BLACK;
		sess_say(s, "game %ld ends: %s, %s; %s", g->id, game_result_name(e.result), game_reason_name(e.reason),
		    e.result == mine ? "won" : e.result == RESULT_DRAW ? "drawn" : e.result == RESULT_NONE ? "no result" : "lost");
		s->finished++;
		s->last_result[0] = e.result;
		s->last_result[1] = g->bot->color;
		s->last_reason = e.reason;
		s->seeks_dirty = true;
		local_stats_add(&s->bs, &g->bs);
		sess_game_close(s, g);
	}
}

/*
 * The bot never agrees to a draw or an adjournment a player offers: it
 * cannot judge a position it does not see, and an offer left unanswered
 * stood for the rest of the game.  It declines at once.  (The arena's
 * second player accepts draws: its ply cap's adjudication.)
 */
static const char *const offer_kinds[2] = { "draw", "adjourn" };

static void offer_answer(struct sess *s, struct bgame *g, int kind, const char *by)
{
	if (!g || color_parse(by) != !g->bot->color)
		return;
	bool accept = s->accept_draws && kind == 0;
	g->offer_answer[kind] = sess_send(s, json_pack("{s:s,s:I,s:s}", "type", offer_kinds[kind], "game",
	                                               (json_int_t)g->id, "action", accept ? "accept" : "decline"));
}

/* The server's answer to ours (offer_answer): said once taken.  Refused, the
 * offer was gone before it came (a move of ours withdraws a draw offer). */
static bool offer_answered(struct sess *s, long long rid, const json_t *o)
{
	for (int i = 0; i < SESS_GAMES_MAX; i++) {
		struct bgame *g = &s->games[i];
		for (int k = 0; g->bot && k < 2; k++) {
			if (g->offer_answer[k] != rid)
				continue;
			g->offer_answer[k] = 0;
			if (json_is_true(json_object_get(o, "ok")))
				sess_say(s, "game %ld: %s offer %s", g->id, offer_kinds[k],
				         s->accept_draws && k == 0 ? "accepted" : "declined");
			else
				sess_say(s, "game %ld: the %s offer was gone before its answer (%s)", g->id, offer_kinds[k],
				         json_string_value(json_object_get(json_object_get(o, "error"), "code")) ?: "?");
			return true;
		}
	}
	return false;
}

/* Does game_start o's "bots" (the colours bot accounts play) hold color? */
static bool bots_play(const json_t *o, int color)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(o, "bots"), i, c)
		if (color_parse(json_string_value(c)) == color)
			return true;
	return false;
}

/*
 * A game against a bot account, this bot not one to the server (a guest,
 * or an account not flagged): the server keeps two bot accounts' seeks
 * apart and cannot tell this one, so a guest bot's seek met a bot's and
 * the two filled each other's places (bot probe).  Aborted at once, as
 * any game may be before both sides moved, and said.
 */
static void bots_met(struct sess *s, struct bgame *g, const json_t *start)
{
	if (s->is_umpire || !g->bot || !bots_play(start, !g->bot->color) || bots_play(start, g->bot->color))
		return;
	sess_say(s, "game %ld: the opponent is a bot, and bots do not play bots here: aborted", g->id);
	g->aborting = true;
	sess_send(s, json_pack("{s:s,s:I}", "type", "abort", "game", (json_int_t)g->id));
	/* Both bots would post their seeks again at once and meet again:
	 * this one's wait (the listing then shows the other's seek). */
	s->seeks_wait = mstime_mono() + SESS_BOTS_MET_WAIT_MS;
}

/* A game's time control, from its game_start or its view's "time". */
static void game_terms(struct bgame *g, const json_t *t)
{
	if (json_is_object(t) && json_is_number(json_object_get(t, "inc")))
		g->inc_ms = scrub_ms(json_object_get(t, "inc"), 1000);
	g->corr = json_is_object(t) && json_is_integer(json_object_get(t, "days"));
}

static void on_game_view(struct sess *s, const json_t *o)
{
	long id = (long)json_integer_value(json_object_get(o, "game"));
	login_game_seen(s, id);
	if (!json_is_true(json_object_get(o, "live")) || game_of(s, id))
		return;
	struct bgame *g = game_open(s, id, json_string_value(json_object_get(o, "rules")),
	                            color_parse(json_string_value(json_object_get(o, "color"))),
	                            json_string_value(json_object_get(o, "fen")));
	if (!g)
		return;
	char tct[32];
	words_time(json_object_get(o, "time"), tct, sizeof tct);
	const char *w = json_string_value(json_object_get(o, "white"));
	const char *b = json_string_value(json_object_get(o, "black"));
	const char *rules = json_string_value(json_object_get(o, "rules"));
	/* as a game begun is said: a game begun from a seek while the bot was
	 * away is first heard of here */
	json_t *total = json_object_get(o, "total");   /* all its pages' */
	sess_say(s, "game %ld resumed: %s (White) v %s (Black), %s, %s (its view rebuilt from %lld events)", id,
	    w ? w : "?", b ? b : "?", rules ? rules : RULESET_DEFAULT, tct,
	    json_is_integer(total) ? (long long)json_integer_value(total)
	                           : (long long)json_array_size(json_object_get(o, "events")));
	game_terms(g, json_object_get(o, "time"));   /* a resumed game's increment counts too */
	g->paused = json_is_true(json_object_get(o, "paused"));
	g->adjourned = json_is_true(json_object_get(o, "adjourned"));
	/* a long record's state comes in pages (game_events follow, each with
	 * "next" but the last): the belief is not whole before the last one,
	 * and a move chosen from a part of it was refused, and counted */
	g->paging = json_object_get(o, "next") != NULL;
	game_clock(g, o);
	size_t i;
	json_t *ev;
	json_array_foreach(json_object_get(o, "events"), i, ev) {
		if (!g->bot)
			break;
		game_event(s, g, ev);
	}
	/* an offer that stood while we were away is answered now */
	if (g->bot) {
		offer_answer(s, g, 0, json_string_value(json_object_get(o, "draw_offer")));
		offer_answer(s, g, 1, json_string_value(json_object_get(o, "adjourn_offer")));
	}
}

/*
 * The answer to g's move or "any?".  A refusal is tried again: at once,
 * after RETRY_MS when the server was busy or limiting our rate, and not
 * while an umpire's pause or an adjournment stands (its end is an event).
 * Refusals that waiting cannot explain are counted; past GAME_ERRORS_MAX
 * the game is resigned rather than tried for ever.
 */
static void req_answered(struct sess *s, struct bgame *g, const json_t *o)
{
	bool any = g->req_any;
	g->req = 0;
	g->req_any = false;
	if (json_is_true(json_object_get(o, "ok")))
		return;
	const char *code = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
	bool transient = g->paused || g->adjourned ||
	                 (code && (strcmp(code, "rate_limited") == 0 || strcmp(code, "busy") == 0));
	if (any && (transient || !code || strcmp(code, "illegal_action") != 0))
		g->bot->any_asked = false;   /* not asked after all ("asked twice" is illegal_action): ask again */
	g->wait_until = mstime_mono() + RETRY_MS;
	if (s->pace.rate && code && strcmp(code, "rate_limited") == 0) {
		int was = s->pace.rate;
		if (sess_pace_slower(&s->pace, g->req_at, mstime_mono()) < was)
			sess_say(s, "the server refused a try as too fast (rate_limited): at most %d tries a second from "
			         "now on", s->pace.rate);
	}
	if (transient)
		return;
	sess_say(s, "game %ld: a request was refused (%s)", g->id, code ? code : "?");
	if (++g->errors > GAME_ERRORS_MAX) {
		sess_say(s, "game %ld: resigned after %d refused requests", g->id, g->errors);
		sess_send(s, json_pack("{s:s,s:I}", "type", "resign", "game", (json_int_t)g->id));
		g->wait_until = INT64_MAX;   /* nothing more is tried; its game_over closes it */
	}
}

/*
 * The `welcome` that follows a login's game_states: every game the login
 * listed has had its game_state.  Its `ended` are the games that ended
 * while the bot was away, each said as a game ending is (won or lost by
 * the side the entry says it played, or, from a server that does not say,
 * when the bot held the game when its connection was lost, and so knows its
 * colour).
 */
static void on_welcome(struct sess *s, const json_t *o)
{
	s->nlogin_games = 0;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(o, "ended"), i, x) {
		long id = (long)json_integer_value(json_object_get(x, "game"));
		const char *result = json_string_value(json_object_get(x, "result"));
		const char *reason = json_string_value(json_object_get(x, "reason"));
		const char *how = "", *side = json_string_value(json_object_get(x, "color"));
		int color = side == NULL ? -1 : strcmp(side, "white") == 0 ? WHITE
		            : strcmp(side, "black") == 0 ? BLACK : -1;
		for (int k = 0; color < 0 && k < s->nlost; k++)   /* a server that does not say */
			if (s->lost[k].id == id)
				color = s->lost[k].color;
		if (result && color >= 0)
			how = strcmp(result, "1/2-1/2") == 0 ? "; drawn"
			      : strcmp(result, color == WHITE ? "1-0" : "0-1") == 0 ? "; won"
			      : strcmp(result, color == WHITE ? "0-1" : "1-0") == 0 ? "; lost"
			      : "; no result";
		sess_say(s, "game %ld ended while it was away: %s, %s%s", id, result ? result : "?",
		    reason ? reason : "?", how);
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
	if (!ev && json_is_integer(id) && json_object_get(o, "ok") && s->awaiting > 0)
		s->awaiting--;   /* an answer: one request less awaited (sess_alive) */
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
		if (s->watch_req && json_integer_value(id) == s->watch_req) {
			/* the seeks open now, page by page: each as if pushed */
			s->watch_req = 0;
			if (!json_is_true(ok)) {
				fprintf(stderr, "krieg-bot: the lobby could not be watched (players' seeks are not "
				        "taken until it reconnects): ");
				say_refusal(o);
			}
			size_t i;
			json_t *x;
			json_array_foreach(json_object_get(o, "offers"), i, x)
				seek_offered(s, x);
			json_t *next = json_object_get(o, "next");
			if (json_is_true(ok) && json_is_integer(next))
				s->watch_req = sess_send(s, json_pack("{s:s,s:O}", "type", "lobby_watch", "from", next));
			json_decref(o);
			return;
		}
		if (json_is_true(ok) && user && json_object_get(o, "token")) {
			snprintf(s->user, sizeof s->user, "%s", user);
			s->logged_in = true;
			const char *tok = json_string_value(json_object_get(o, "token"));
			if (!s->login_user && tok && strlen(tok) <= PROTO_TOKEN_LEN)
				snprintf(s->token, sizeof s->token, "%s", tok);
			sess_say(s, "%s as %s", json_integer_value(id) == s->resume_req ? "session resumed" : "logged in",
			    s->user);
			s->resume_req = 0;
			/* a new connection: our offers vanished with the last one */
			for (int k = 0; k < s->nseeks; k++)
				s->seeks[k] = (struct seekslot){ .rules = s->seeks[k].rules, .tc = s->seeks[k].tc };
			s->seeks_req = 0;
			s->games_req = 0;
			s->seeks_unsettled = false;
			s->seeks_dirty = true;
			s->naccepts = 0;
			s->nheld = 0;
			/* with --seek, players' seeks that fit are taken too (seek_offered) */
			s->watch_req = s->nseeks ? sess_send(s, json_pack("{s:s}", "type", "lobby_watch")) : 0;
			/* Without --seek, a seek an earlier run left open (kriegd keeps
			 * a registered account's correspondence seek while it is away)
			 * is read and cancelled (seek_adopt): players could start games
			 * from it for 14 days (the bot probe).  sess_act lists them, and
			 * again a second later if the listing is refused (a review). */
			s->seeks_orphans = !s->nseeks && s->login_user;
			/* its live games, counted before any challenge is answered:
			 * one waiting for the bot may come before their game_states */
			s->nlogin_games = 0;
			size_t i;
			json_t *x;
			json_array_foreach(json_object_get(o, "games"), i, x)
				if (json_is_integer(x) && s->nlogin_games < SESS_GAMES_MAX)
					s->login_games[s->nlogin_games++] = (long)json_integer_value(x);
		} else if (json_is_true(ok) && user && json_is_true(json_object_get(o, "must_change_password"))) {
			/* Logged in only once `passwd` sets a new password: a bot
			 * cannot choose one, and waited there, silent, for ever.
			 * The operator sets it (a final refusal: exit 3). */
			fprintf(stderr, "krieg-bot: %s%sthe account %s must change its password before it can play: set "
			        "a new one with `kriegd user passwd %s --password-stdin` (without --must-change) and "
			        "give the bot that password\n", s->journal ? "" : s->name, s->journal ? "" : ": ", user,
			        user);
			s->refused = true;
			s->dead = true;
		} else if (json_is_true(ok) && json_object_get(o, "protocol") && !s->login_user && s->token[0]) {
			s->resume_req = sess_send(s, json_pack("{s:s,s:s}", "type", "resume", "token", s->token));
		} else if (!json_is_true(ok) && s->resume_req && json_integer_value(id) == s->resume_req) {
			/* the session is gone (expired, or a server that forgot it): a new guest */
			sess_say(s, "the guest session could not be resumed; a new guest");
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
			/* play's journal has one prefix for every line; the arena's
			 * sessions (A, B, umpire) say which of them was refused */
			fprintf(stderr, "krieg-bot: %s%s", s->journal ? "" : s->name, s->journal ? "" : ": ");
			say_refusal(o);
			s->dead = true;
			/* a refusal that trying again cannot change; busy or rate_limited can */
			const char *code = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
			static const char *const final[] = { "auth_failed", "account_disabled", "guests_disabled",
			                                     "password_change_required" };
			for (size_t k = 0; code && k < sizeof final / sizeof final[0]; k++)
				s->refused |= strcmp(code, final[k]) == 0;
		}
		long long rid = (long long)json_integer_value(id);
		struct bgame *g = game_of_req(s, rid);
		if (accept_answered(s, rid)) {
			/* taken (its game_start came first) or gone: no longer in flight;
			 * gone (cancelled by its sender meanwhile), its room is free
			 * again, for a seek (seeks withdrawn to make room for it) */
			if (!json_is_true(ok)) {
				/* withdrawn meanwhile, mostly; or refused for now
				 * (retry_after: its sender's address started too many
				 * games this hour): the server's words say which */
				json_t *err = json_object_get(o, "error");
				const char *code = json_string_value(json_object_get(err, "code"));
				const char *msg = json_string_value(json_object_get(err, "message"));
				if (code && strcmp(code, "no_such_offer") == 0)
					sess_say(s, "an offer it accepted was gone (%s): withdrawn meanwhile", code);
				else
					sess_say(s, "an offer it accepted was not taken (%s: %s)", code ? code : "?",
					         msg ? msg : "");
				s->seeks_dirty = true;
			}
		} else if (g) {
			req_answered(s, g, o);
		} else {
			offer_answered(s, rid, o);
		}
		/* anything else about a game (a resign): nothing to do */
	} else if (ev && strcmp(ev, "seek") == 0) {
		seek_offered(s, o);
	} else if (ev && (strcmp(ev, "challenge_cancelled") == 0 || strcmp(ev, "seek_gone") == 0)) {
		/* one held (its room was being made) is forgotten, and its room
		 * given back to the seeks withdrawn for it */
		json_int_t offer = json_integer_value(json_object_get(o, "offer"));
		for (int i = 0; i < s->nheld; i++)
			if (s->held[i].offer == offer) {
				sess_say(s, "offer %" JSON_INTEGER_FORMAT " from %s: withdrawn before it was "
				         "answered", offer, s->held[i].from);
				s->held[i--] = s->held[--s->nheld];
				s->seeks_dirty = true;
			}
		/* a seek held back for a bot's (bot_seek_listed): listed again,
		 * in case the bot's was the one gone */
		for (int i = 0; i < s->nseeks; i++)
			s->seeks_dirty |= s->seeks[i].bot_open;
	} else if (ev && strcmp(ev, "challenge") == 0) {
		const char *rules = json_string_value(json_object_get(o, "rules"));
		const char *to = json_string_value(json_object_get(o, "to"));
		json_t *offer = json_object_get(o, "offer");
		if (to && strcasecmp(to, s->user) == 0 && json_is_integer(offer)) {
			json_t *time = json_object_get(o, "time");
			const char *from = json_string_value(json_object_get(o, "user"));
			if (!rules)
				rules = RULESET_DEFAULT;
			char why[ACTION_REASON_MAX + 16];
			const char *no = !rules_ok(s, rules) ? decline_words(s, true, why, sizeof why)
			                 : !tc_ok(s, time) ? decline_words(s, false, why, sizeof why)
			                 : live_games(s) >= s->max_games ? "declined: at its limit of games at once"
			                 : NULL;
			char tct[32];
			words_time(time, tct, sizeof tct);   /* as krieg says it */
			if (no)
				challenge_answer(s, json_integer_value(offer), from ? from : "?", rules, tct, no);
			else   /* room, but its seeks may fill it: held until they are withdrawn */
				offer_fits(s, json_integer_value(offer), from ? from : "?", rules, tct, false);
		}
	} else if (ev && strcmp(ev, "game_start") == 0) {
		long gid = (long)json_integer_value(json_object_get(o, "game"));
		const char *rules = json_string_value(json_object_get(o, "rules"));
		struct bgame *g = game_open(s, gid, rules,
		                            color_parse(json_string_value(json_object_get(o, "color"))), NULL);
		json_t *t = json_object_get(o, "time");
		if (g)
			game_terms(g, t);
		if (g) {
			char tct[32];
			words_time(t, tct, sizeof tct);
			const char *w = json_string_value(json_object_get(o, "white"));
			const char *b = json_string_value(json_object_get(o, "black"));
			sess_say(s, "game %ld begins: %s (White) v %s (Black), %s, %s", gid, w ? w : "?", b ? b : "?",
			    rules ? rules : RULESET_DEFAULT, tct);
			bots_met(s, g, o);
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
		if (g)
			g->paging = json_object_get(o, "next") != NULL;
	} else if (ev && (strcmp(ev, "draw_offer") == 0 || strcmp(ev, "adjourn_offer") == 0)) {
		offer_answer(s, game_of(s, (long)json_integer_value(json_object_get(o, "game"))), ev[0] == 'd' ? 0 : 1,
		             json_string_value(json_object_get(o, "by")));
	} else if (ev && (strcmp(ev, "clock_paused") == 0 || strcmp(ev, "clock_unpaused") == 0 ||
	                  strcmp(ev, "adjourned") == 0 || strcmp(ev, "unadjourned") == 0)) {
		/* while paused or adjourned every move is refused: none is tried
		 * until it ends, then the game goes on where it was */
		struct bgame *g = game_of(s, (long)json_integer_value(json_object_get(o, "game")));
		if (g && ev[0] == 'c')
			g->paused = strcmp(ev, "clock_paused") == 0;
		else if (g)
			g->adjourned = strcmp(ev, "adjourned") == 0;
		if (g)
			game_clock(g, o);
	} else if (ev && (strcmp(ev, "session_ended") == 0 || strcmp(ev, "account_disabled") == 0)) {
		/* the server closes: said; the bot comes back as a service does,
		 * but for a disabled account, whose login would be refused (it
		 * said "reconnecting", then that: bot probe) */
		const char *why = json_string_value(json_object_get(o, "reason"));
		sess_say(s, "the server ended the session: %s", ev[0] == 'a' ? "the account is disabled" : why ? why : "?");
		s->refused |= ev[0] == 'a';
	} else if (ev && strcmp(ev, "ping") == 0) {
		sess_send(s, json_pack("{s:s}", "type", "ping"));
	} else if (ev && strcmp(ev, "welcome") == 0) {
		on_welcome(s, o);
	} else if (ev && json_is_integer(json_object_get(o, "game"))) {
		struct bgame *g = game_of(s, (long)json_integer_value(json_object_get(o, "game")));
		if (g)
			game_event(s, g, o);
		else if (strcmp(ev, "game_over") == 0)
			login_game_seen(s, (long)json_integer_value(json_object_get(o, "game")));
	}
	json_decref(o);
}

/*
 * The thinking budget of one decision.  From the clock: a 40th of the time
 * left plus three quarters of the increment, shared among the live games.
 * One thread thinks for every game in turn, and while it thinks for one
 * the others' clocks run: each game's clock pays for all of them (with the
 * whole share each, three 1+0 games lost on time).  The time left is the
 * reading less what has passed since it was read (thinking for the other
 * games meanwhile).
 */
long sess_budget_ms(long left_ms, long inc_ms, int timed_games)
{
	long b = ((left_ms > 0 ? left_ms : 0) / 40 + inc_ms * 3 / 4) /
	         (timed_games > 1 ? timed_games : 1);
	return b < BUDGET_MIN_MS ? BUDGET_MIN_MS : b > BUDGET_MAX_MS ? BUDGET_MAX_MS : b;
}

/* g's clock now, its last reading less what has passed since. */
static long clock_left(const struct bgame *g, int64_t now)
{
	return g->clock_ms - (long)(now - g->clock_at);
}

/* A game whose own clock pays for its decisions: timed, not by
 * correspondence (whose "clock" is a deadline days away). */
static bool on_clock(const struct bgame *g)
{
	return g->bot && g->clock_ms >= 0 && !g->corr;
}

/*
 * A decision's share of g's clock.  sess_budget_ms gives a move's; a move
 * takes several decisions (refused tries, an "any?"), so it is divided by
 * the decisions a move has taken in this game so far, 1 to 8 (bot probe:
 * four 1+0 games at once still lost two on time, the budget spent once a
 * try).
 */
static long clock_share(const struct bgame *g, int live)
{
	long b = sess_budget_ms(clock_left(g, mstime_mono()), g->inc_ms, live);
	/* ours since the first decision counted (a game reopened after a lost
	 * connection counts again from there: review), and the one being chosen */
	long moves = (g->ply - g->decision_ply) / 2 + 1;
	long per_move = (g->decisions + 1 + moves / 2) / moves;   /* rounded */
	per_move = per_move < 1 ? 1 : per_move > 8 ? 8 : per_move;
	b /= per_move;
	return b < BUDGET_MIN_MS ? BUDGET_MIN_MS : b;
}

/*
 * A game on the clock spends its own share; an untimed or correspondence
 * game has no clock of its own to spend.  But while one of the bot's games
 * is on the clock, no decision for any other may take longer than that
 * game's own share: its clock runs meanwhile (bot probes: three
 * correspondence games, thinking the 10 s cap each, lost a 1+0 game on
 * time; three untimed ones at 1 s each did too; and a 5+2 game's 4 s
 * shares did, beside it).  Every live game counts in the share, since each
 * may take a decision in turn.
 */
long sess_budget(const struct sess *s, const struct bgame *g)
{
	if (s->movetime_ms > 0)
		return s->movetime_ms;
	int live = 0;
	for (int i = 0; i < SESS_GAMES_MAX; i++)
		live += s->games[i].bot != NULL;
	long b = on_clock(g) ? clock_share(g, live) : UNCLOCKED_BUDGET_MS;
	for (int i = 0; i < SESS_GAMES_MAX; i++)
		if (on_clock(&s->games[i]) && clock_share(&s->games[i], live) < b)
			b = clock_share(&s->games[i], live);
	return b;
}

/*
 * The order the games are offered the pace's tokens in.  The games on the
 * clock first, the least time left first: with several fast games, one
 * near its flag waited behind the others' tries for each of its own, and
 * spent 0.6-0.7 s a move on a 20 ms budget (bot probe: 5 of 10 1+0 games,
 * four at once, lost on time).  The others take turns from the one after
 * the last to try: the first in the table would take every token while
 * its tries came back refused at once.
 */
void sess_turn_order(const struct sess *s, int64_t now, int order[SESS_GAMES_MAX])
{
	int n = 0;
	for (int j = 0; j < SESS_GAMES_MAX; j++)
		order[n++] = (s->try_turn + j) % SESS_GAMES_MAX;
	/* an insertion sort, stable: the clocked by time left, ahead of the rest */
	for (int k = 1; k < n; k++) {
		int x = order[k], at = k;
		const struct bgame *gx = &s->games[x];
		while (at > 0) {
			const struct bgame *gp = &s->games[order[at - 1]];
			bool before = on_clock(gx) && (!on_clock(gp) || clock_left(gx, now) < clock_left(gp, now));
			if (!before)
				break;
			order[at] = order[at - 1];
			at--;
		}
		order[at] = x;
	}
}

static void sess_act(struct sess *s)
{
	int64_t now = mstime_mono();
	s->pace_waits = false;
	if (s->logged_in) {
		seeks_withdraw(s);
		challenges_settle(s);
	}
	if ((s->nseeks || s->seeks_orphans) && s->logged_in && s->seeks_dirty && !s->seeks_req && !s->games_req &&
	    now >= s->seeks_wait) {
		/* which of our seeks are still open: a `seeks` listing, its barrier,
		 * then seeks_reconcile.  Never one listing behind another's barrier:
		 * a seek posted by the first reconcile would be missing from it, and
		 * taken for gone */
		s->seeks_dirty = false;
		for (int k = 0; k < s->nseeks; k++)
			s->seeks[k].seen = s->seeks[k].bot_open = false;
		s->seeks_req = sess_send(s, json_pack("{s:s}", "type", "seeks"));
	}
	int order[SESS_GAMES_MAX];
	sess_turn_order(s, now, order);
	for (int j = 0; j < SESS_GAMES_MAX; j++) {
		int i = order[j];
		struct bgame *g = &s->games[i];
		if (g->bot && s->max_plies > 0 && g->ply >= s->max_plies && !g->draw_offered) {
			/* the arena's ply cap: a draw by agreement (the other bot accepts) */
			sess_send(s, json_pack("{s:s,s:I,s:s}", "type", "draw", "game", (json_int_t)g->id, "action", "offer"));
			g->draw_offered = true;
		}
		if (!g->bot || g->req || g->paused || g->adjourned || g->aborting)
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
		if (now < g->wait_until || g->paging || !bot_to_move(g->bot))
			continue;
		if (!sess_pace_take(&s->pace, now)) {
			s->pace_waits = true;   /* the pump wakes when a token is there */
			continue;
		}
		move_t m;
		int64_t t0 = mstime_mono();
		enum bot_action a = bot_choose(g->bot, sess_budget(s, g), &m);
		s->think_ms += (long)(mstime_mono() - t0);
		s->try_turn = (i + 1) % SESS_GAMES_MAX;
		g->req_at = mstime_mono();
		if (a == BOT_ANY || a == BOT_TRY) {
			if (g->decisions++ == 0)
				g->decision_ply = g->ply;
		}
		if (a == BOT_ANY) {
			g->req = sess_send(s, json_pack("{s:s,s:I}", "type", "any", "game", (json_int_t)g->id));
			g->req_any = true;
		} else if (a == BOT_TRY) {
			char text[NOTATION_MAX];
			notation_uci(m, text);
			g->req = sess_send(s, json_pack("{s:s,s:I,s:s}", "type", "move", "game", (json_int_t)g->id, "move", text));
			s->moves++;
		}
	}
}

int sess_connect(struct sess *s, const char *hostport, bool insecure, const char *known)
{
	/* net_connect's messages are for a person and are long: the changed
	 * certificate's banner names the known_servers file twice (the line to
	 * remove), and 256 bytes cut it off before it said which. */
	char host[NET_HOST_MAX], port[16], err[NET_ERR_MAX];
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
	enum net_status st = net_connect(&o, &s->net, err, sizeof err);
	if (st != NET_OK) {
		/* every line of the journal has its prefix, the changed
		 * certificate's banner's too (net.c writes it for krieg, bare) */
		for (const char *p = err; *p;) {
			int n = (int)strcspn(p, "\n");
			fprintf(stderr, "krieg-bot: %.*s\n", n, p);
			p += n + (p[n] == '\n');
		}
		/* as krieg's reconnection: a refused certificate is final */
		return st == NET_E_CERT_CHANGED || st == NET_E_NOT_TRUSTED ? SESS_CONNECT_UNTRUSTED : -1;
	}
	/* a new connection: its silence counts from here */
	liveness_heard(&s->alive, mstime_mono());
	s->awaiting = 0;
	sess_send(s, json_pack("{s:s,s:i,s:s}", "type", "hello", "version", PROTO_VERSION, "client", BOT_VERSION));
	return 0;
}

/*
 * Is s's connection alive (see CLIENT_QUIET_MS)?  Run by the pump when
 * nothing came from it.  Quiet since the last line received, or since the
 * oldest request still awaited was sent if that came later; a game here
 * makes any such quiet a question, a request awaited its own.  Past
 * CLIENT_QUIET_MS a `ping` asks; false once CLIENT_DEAD_MS has passed after it
 * without a line (a line read resets it: the pump).
 */
static bool sess_alive(struct sess *s, int64_t now)
{
	bool games = false;
	for (int i = 0; i < SESS_GAMES_MAX && !games; i++)
		games = s->games[i].bot != NULL;
	enum liveness_step st = liveness_step(&s->alive, now, games, s->awaiting > 0, s->await_since);
	if (st == LIVENESS_ASK)
		sess_send(s, json_pack("{s:s}", "type", "ping"));
	return st != LIVENESS_LOST;
}

void sess_pump(struct sess **ss, int n, int timeout_ms)
{
	struct pollfd p[8];
	for (int i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = ss[i]->dead ? -1 : net_fd(ss[i]->net), .events = POLLIN };
	bool ready = false;
	int64_t now = mstime_mono();
	for (int i = 0; i < n; i++) {
		ready |= !ss[i]->dead && net_has_line(ss[i]->net);
		long w = ss[i]->pace_waits ? sess_pace_wait_ms(&ss[i]->pace, now) : timeout_ms;
		if (w < timeout_ms)
			timeout_ms = (int)w;
	}
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
		bool heard = false;
		while (!s->dead && net_next_line(s->net, line, sizeof line)) {
			heard = true;
			on_line(s, line);
		}
		if (heard) {   /* whatever it was, the connection is alive */
			liveness_heard(&s->alive, mstime_mono());
		}
		if (closed) {
			s->dead = true;
		} else if (!s->dead && !heard && !(p[i].revents & POLLIN) && !sess_alive(s, mstime_mono()) &&
		           !net_readable(s->net)) {
			/* a dead path: nothing came, not even a close */
			sess_say(s, "no answer from the server for %ld s; the network may be down: "
			         "the connection is taken for lost",
			         (long)((mstime_mono() - s->alive.last_rx + 500) / 1000));
			s->dead = true;
		}
		if (!s->dead)
			sess_act(s);
	}
}

const char *sess_read_password(const char *path, char *buf, size_t len)
{
	/* Why, not only that it could not (bot probe): a missing file, a
	 * permission, a directory, an empty file each say so. */
	FILE *f = fopen(path, "r");
	if (!f)
		return strerror(errno);
	errno = 0;
	if (!fgets(buf, (int)len, f)) {
		const char *why = ferror(f) && errno ? strerror(errno) : "it is empty";
		fclose(f);
		return why;
	}
	fclose(f);
	buf[strcspn(buf, "\r\n")] = '\0';
	if (buf[0] == '\0')
		return "its first line is empty";
	return NULL;
}
