/*
 * announce.c — announcements as an audience receives them (announce.h).
 */
#include "announce.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "audlist.h"
#include "clock.h"
#include "conn.h"
#include "dispatch.h"
#include "event.h"
#include "event_json.h"
#include "fen.h"
#include "jsonline.h"
#include "log.h"
#include "proto.h"
#include "reader.h"
#include "referee.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

/* Who hears a draw offer or its decline: both players and the umpire. */
#define ANNOUNCE_DRAW_AUDIENCE (AUD_WHITE | AUD_BLACK | AUD_UMPIRE)

/* The fen of the final position and an umpire's note: what a game_over
 * is told beyond the referee's event (announce.h). */
static void put_decoration(struct jsonline_out *o, const struct event *e,
                           const struct referee *r, const struct action *a)
{
	struct action_umpire u;
	if (r == NULL || e->type != EV_GAME_OVER)
		return;
	char fen[FEN_MAX];
	fen_format(referee_board(r), fen, sizeof fen);
	jsonline_put_key(o, "fen");
	jsonline_put_str(o, fen, strlen(fen));
	if (a != NULL && (a->kind == ACTION_ADJUDGE || a->kind == ACTION_UABORT) &&
	    action_umpire_parse(a, &u) == REF_OK) {
		jsonline_put_key(o, "note");
		jsonline_put_str(o, u.reason, strlen(u.reason));
	}
}

int announce_event_put(struct jsonline_out *o, int64_t game, const struct ruleset *rs,
                       const struct event *e, const int64_t *clock, const struct referee *r,
                       const struct action *a)
{
	if (event_json_put(o, e, rs) != 0)
		return -1;
	jsonline_put_key(o, "game");
	jsonline_put_int(o, game);
	if (clock != NULL) {
		jsonline_put_key(o, "clock");
		jsonline_put(o, "{\"white\":", 9);
		jsonline_put_int(o, clock[WHITE]);
		jsonline_put(o, ",\"black\":", 9);
		jsonline_put_int(o, clock[BLACK]);
		jsonline_put(o, "}", 1);
	}
	put_decoration(o, e, r, a);
	jsonline_put(o, "}", 1);
	return 0;
}

json_t *announce_event(int64_t game, const struct ruleset *rs, const struct event *e,
                        const int64_t *clock, const struct referee *r, const struct action *a)
{
	char buf[PROTO_LINE_MAX];
	struct jsonline_out o = { .buf = buf, .size = sizeof buf, .used = 0 };
	if (announce_event_put(&o, game, rs, e, clock, r, a) != 0 || o.used > o.size)
		return NULL;
	return json_loadb(buf, o.used, 0, NULL);
}

json_t *announce_clock_json(const int64_t *clock)
{
	if (clock == NULL)
		return NULL;
	return json_pack("{s:I, s:I}", "white", (json_int_t)clock[WHITE], "black",
	                 (json_int_t)clock[BLACK]);
}

/* The clock readings (ms) as a notice carries them, when given. */
static json_t *with_clock(json_t *j, const int64_t *clock)
{
	if (j != NULL && clock != NULL)
		json_object_set_new(j, "clock", announce_clock_json(clock));
	return j;
}

json_t *announce_draw(int64_t game, const struct action *a, const int64_t *clock)
{
	json_t *j = json_pack("{s:s, s:I, s:s}", "event",
	                      strcmp(a->text, "offer") == 0 ? "draw_offer" : "draw_declined",
	                      "game", (json_int_t)game, "by", a->color == WHITE ? "white" : "black");
	return with_clock(j, clock);
}

/* What a replayed list may leave out of what its audience heard
 * (in_list): an umpire's private note, the spectators' channel. */
enum { HIDE_NOTE = 1, HIDE_SPEC = 2 };

/* Who hears the notice of a (0: a has none: announce_notice gives NULL),
 * and in *hide whether it is an umpire's private note or the spectators'
 * channel (HIDE_ bits). */
static unsigned notice_audience(const struct action *a, unsigned *hide)
{
	struct action_umpire u;
	char buf[ACTION_TEXT_MAX];
	const char *name, *text;

	*hide = 0;
	if (a->kind == ACTION_DRAW)
		return ANNOUNCE_DRAW_AUDIENCE;
	/* An offer to adjourn or its refusal is between the players (as a
	 * draw's); the clocks stopping or running again is everyone's news. */
	if (action_is_adjourn(a->kind))
		return a->kind == ACTION_UNADJ || strcmp(a->text, "agree") == 0 ? AUD_PUBLIC
		                                                                 : ANNOUNCE_DRAW_AUDIENCE;
	/* The spectators' channel never reaches a player. */
	if (action_is_chat(a->kind)) {
		if (action_chat_parse(a, buf, &name, &text) != REF_OK)
			return 0;
		if (a->kind == ACTION_SAY)
			return AUD_PUBLIC;
		*hide = HIDE_SPEC;
		return AUD_SPECTATOR | AUD_UMPIRE;
	}
	if (a->kind == ACTION_ADJUDGE || a->kind == ACTION_UABORT ||
	    action_umpire_parse(a, &u) != REF_OK)
		return 0;
	*hide = a->kind == ACTION_NOTE && !u.public ? HIDE_NOTE : 0;
	return *hide ? AUD_UMPIRE : AUD_PUBLIC;
}

json_t *announce_notice(int64_t game, const struct action *a, int ply, const int64_t *clock,
                        unsigned *aud)
{
	struct action_umpire u;
	json_t *j;
	unsigned hide;
	if ((*aud = notice_audience(a, &hide)) == 0)
		return NULL;
	if (a->kind == ACTION_DRAW)
		return announce_draw(game, a, clock);
	if (action_is_adjourn(a->kind)) {
		const char *name = a->kind == ACTION_UNADJ ? "unadjourned"
		                   : strcmp(a->text, "offer") == 0 ? "adjourn_offer"
		                   : strcmp(a->text, "decline") == 0 ? "adjourn_declined"
		                   : "adjourned";
		j = json_pack("{s:s, s:I, s:s, s:i}", "event", name, "game", (json_int_t)game, "by",
		              a->color == WHITE ? "white" : "black", "ply", ply);
		return with_clock(j, clock);
	}
	if (action_is_chat(a->kind)) {
		/* A player's or a spectator's words: its own event, never the
		 * umpire's voice. */
		char buf[ACTION_TEXT_MAX];
		const char *name, *text;
		action_chat_parse(a, buf, &name, &text);
		if (a->kind == ACTION_SAY)
			return json_pack("{s:s, s:I, s:s, s:s, s:s, s:i}", "event", "chat", "game",
			                 (json_int_t)game, "channel", "game", "color",
			                 a->color == WHITE ? "white" : "black", "text", text, "ply", ply);
		return json_pack("{s:s, s:I, s:s, s:s, s:s, s:i}", "event", "chat", "game",
		                 (json_int_t)game, "channel", "spectators", "user", name, "text", text,
		                 "ply", ply);
	}
	action_umpire_parse(a, &u);
	switch (a->kind) {
	case ACTION_PAUSE:
	case ACTION_UNPAUSE:
		j = json_pack("{s:s, s:I, s:s, s:s, s:i}", "event",
		              a->kind == ACTION_PAUSE ? "clock_paused" : "clock_unpaused", "game",
		              (json_int_t)game, "by", "umpire", "reason", u.reason, "ply", ply);
		break;
	case ACTION_ADDTIME:
		j = json_pack("{s:s, s:I, s:s, s:i, s:s, s:i}", "event", "time_added", "game",
		              (json_int_t)game, "color", a->color == WHITE ? "white" : "black", "seconds",
		              u.seconds, "reason", u.reason, "ply", ply);
		break;
	default: /* ACTION_NOTE */
		j = json_pack("{s:s, s:I, s:s, s:i}", "event", "umpire_note", "game", (json_int_t)game,
		              "text", u.reason, "ply", ply);
		if (hide & HIDE_NOTE)
			json_object_set_new(j, "private", json_true());
		break;
	}
	return with_clock(j, clock);
}

unsigned announce_heard(const struct action *a, const struct evlist *out)
{
	unsigned hide;
	unsigned heard = notice_audience(a, &hide);
	for (size_t i = 0; i < out->n; i++)
		heard |= out->v[i].audience;
	return heard;
}

void announce_heard_at(int seq[HEARD_LISTS], unsigned heard, int at)
{
	_Static_assert(WHITE == 0 && BLACK == 1, "the players' lists first");
	for (int i = 0; i < HEARD_LISTS; i++)
		if (heard & announce_heard_aud(i))
			seq[i] = at;
}

/* Whether the list of (aud, how) holds an announcement heard by `heard`
 * (AUD_ bits): a private note is left out of the list without them, the
 * spectators' channel out of one without it (hide: HIDE_ bits).  The one
 * rule for a replayed view and for the cache's counts. */
static bool in_list(unsigned aud, unsigned how, unsigned heard, unsigned hide)
{
	return (heard & aud) && !((hide & HIDE_NOTE) && (how & ANNOUNCE_NO_PRIVATE)) &&
	       !((hide & HIDE_SPEC) && (how & ANNOUNCE_NO_SPECTATORS));
}

/* The next stored action applied to r (*a: it parsed), its events in out:
 * REF_OK, or the failure (a record that does not replay). */
static int apply_stored(struct referee *r, const struct store_action *sa, struct action *a,
                        struct evlist *out)
{
	evlist_clear(out);
	int rc = action_parse(a, sa->kind, sa->color, sa->text);
	return rc != REF_OK ? rc : referee_apply(r, a, out);
}

struct replay {
	const struct store_game *g;
	const struct ruleset *rs;
	struct referee *ref;
	unsigned aud;
	unsigned how;                /* ANNOUNCE_ bits (announce.h) */
	json_t *arr;                 /* every event heard; NULL with pg (the page is pg's) */
	struct pager *pg;
	int limit;                   /* the last seq to replay (0: all) */
	size_t total;                /* the list's length when known (the cache's), else 0:
	                              * then the replay stops once the page is full or the
	                              * list's last event is counted */
	struct evlist out;
	int applied;                 /* the actions replayed (a debug log's count) */
	bool failed;
	/* The lists of what each was told, in one replay (announce_replay_told):
	 * each line written once; aud, arr and pg unused then. */
	struct audlist **told;
	int told_rc;
};

/* Whether rp's page needs nothing more of the record. */
static int replay_done(const struct replay *rp)
{
	return rp->total > 0 && (rp->pg->closed || rp->pg->n >= rp->total);
}

/* Whether rp builds the next announcement of its list; one off the page
 * is counted here instead. */
static bool replay_wants(struct replay *rp)
{
	if (rp->pg == NULL || pager_wants(rp->pg))
		return true;
	pager_take(rp->pg, NULL);
	return false;
}

/* An announcement built (j, NULL for none) into rp's page or array; with
 * ANNOUNCE_AUDIENCE it says who heard it (`heard`), and so does the
 * umpire's list where that is more than the copy's own audience (`own`:
 * an announcement told in two copies, event_heard; rules probe). */
static void replay_put(struct replay *rp, json_t *j, unsigned heard, unsigned own)
{
	if (j == NULL)
		return;
	if (rp->told != NULL) {   /* how is 0 and no list is the umpire's: one line for all */
		char *text = json_dumps(j, JSON_COMPACT);
		for (int i = 0; i < HEARD_LISTS && text != NULL; i++)
			if (in_list(announce_heard_aud(i), 0, own, 0))
				audlist_push(rp->told[i], text, strlen(text));
		if (text == NULL)
			rp->told_rc = -1;
		free(text);
		json_decref(j);
		return;
	}
	if ((rp->how & ANNOUNCE_AUDIENCE) || (rp->aud == AUD_UMPIRE && heard != own))
		json_object_set_new(j, "audience", event_json_audience(heard));
	if (rp->pg != NULL)
		pager_take(rp->pg, j);
	else
		json_array_append_new(rp->arr, j);
}

static int replay_cb(const struct store_action *sa, void *arg)
{
	struct replay *rp = arg;
	struct action a;

	if (rp->limit > 0 && sa->seq > rp->limit)
		return 1;
	if (!sa->ok)
		return 0;
	if (apply_stored(rp->ref, sa, &a, &rp->out) != REF_OK) {
		rp->failed = true;
		return 1;
	}
	rp->applied++;
	int64_t stored[2] = { sa->clock_white_ms, sa->clock_black_ms };
	const int64_t *clk = (rp->how & ANNOUNCE_CLOCKS) && clock_terms_timed(rp->g->base_ms, rp->g->days)
	                     ? stored : NULL;
	for (size_t i = 0; i < rp->out.n; i++) {
		const struct event *e = &rp->out.v[i];
		if (rp->told != NULL ? (e->audience & (AUD_WHITE | AUD_BLACK | AUD_SPECTATOR)) == 0
		             : !in_list(rp->aud, rp->how, e->audience, 0) || !replay_wants(rp))
			continue;
		struct event told = *e;   /* as it was sent: event_told's audience */
		told.audience = (uint8_t)event_told(&rp->out, i);
		replay_put(rp, announce_event(rp->g->id, rp->rs, &told, clk, rp->ref, &a),
		           event_heard(&rp->out, i), e->audience);
	}
	/* The action's notice, if this list has it (a private note is left
	 * out before it is counted: the page's "total" and "next" are those of
	 * the list without it). */
	unsigned hide;
	unsigned naud = notice_audience(&a, &hide);
	bool any = false;
	for (int k = 0; rp->told != NULL && k < HEARD_LISTS; k++)
		any = any || in_list(announce_heard_aud(k), 0, naud, hide);
	if (rp->told != NULL ? any : in_list(rp->aud, rp->how, naud, hide) && replay_wants(rp)) {
		json_t *n = announce_notice(rp->g->id, &a, referee_plies(rp->ref), clk, &naud);
		replay_put(rp, n, naud, naud);
	}
	return replay_done(rp);
}

/* Replay g's record into rp (its arr or its pager) from the action after
 * seq `after` on, ref (taken) ruling as it stood after it: 0, or -1 with
 * err.  Logs nothing (the reader thread replays too). */
static int replay_run(struct store *st, const struct store_game *g, struct replay *rp,
                      struct referee *ref, int after, char *err, size_t errlen)
{
	rp->g = g;
	rp->rs = ruleset_find(g->rules);
	rp->ref = ref;
	evlist_init(&rp->out);
	int rc = store_game_actions_after(st, g->id, after, replay_cb, rp);
	evlist_free(&rp->out);
	referee_free(rp->ref);
	if (rc != STORE_OK || rp->failed) {
		snprintf(err, errlen, "%s", rc != STORE_OK ? store_error(st) : "it does not replay");
		return -1;
	}
	return 0;
}

/* The same, logged: 0, or -1. */
static int replay_from(struct store *st, const struct store_game *g, struct replay *rp,
                       struct referee *ref, int after)
{
	char err[256];
	if (replay_run(st, g, rp, ref, after, err, sizeof err) != 0) {
		log_warnx("game=%" PRId64 " record could not be replayed: %s", g->id, err);
		return -1;
	}
	return 0;
}

/* A referee for g's start; NULL for a rule set or start position the
 * server does not know.  Logs nothing (the reader thread calls it). */
static struct referee *referee_at_start(const struct store_game *g)
{
	char err[128];
	const struct ruleset *rs = ruleset_find(g->rules);
	return rs == NULL ? NULL : referee_new(rs, g->fen[0] ? g->fen : NULL, err, sizeof err);
}

/* Replay g's whole record into rp (through rp->limit): 0, or -1 with err.
 * Logs nothing. */
static int replay_whole(struct store *st, const struct store_game *g, struct replay *rp,
                        char *err, size_t errlen)
{
	struct referee *r = referee_at_start(g);
	if (r == NULL) {
		snprintf(err, errlen, "its rules or start are not known");
		return -1;
	}
	return replay_run(st, g, rp, r, 0, err, errlen);
}

/* The same, logged: 0, or -1. */
static int replay_into(struct store *st, const struct store_game *g, struct replay *rp)
{
	char err[256];
	if (replay_whole(st, g, rp, err, sizeof err) != 0) {
		log_warnx("game=%" PRId64 " record could not be replayed: %s", g->id, err);
		return -1;
	}
	return 0;
}

json_t *announce_replay_through(struct store *st, const struct store_game *g, unsigned aud,
                                unsigned how, int through, char *err, size_t errlen)
{
	struct replay rp = { .aud = aud, .how = how, .arr = json_array(), .limit = through };

	if (replay_whole(st, g, &rp, err, errlen) != 0) {
		json_decref(rp.arr);
		return NULL;
	}
	return rp.arr;
}

json_t *announce_replay(struct store *st, const struct store_game *g, unsigned aud,
                        unsigned how)
{
	char err[256];
	json_t *arr = announce_replay_through(st, g, aud, how, 0, err, sizeof err);

	if (arr == NULL)
		log_warnx("game=%" PRId64 " record could not be replayed: %s", g->id, err);
	return arr;
}

int announce_replay_told(struct store *st, const struct store_game *g,
                         struct audlist *lists[HEARD_LISTS])
{
	struct replay rp = { .told = lists };
	return replay_into(st, g, &rp) != 0 || rp.told_rc != 0 ? -1 : 0;
}

/* ---- the replay cache (announce.h) --------------------------------------- */

/* The lists a page is cut from: each audience's, the umpire's without the
 * private notes, and that without the spectators' channel (a game's own
 * player's). */
enum { L_WHITE, L_BLACK, L_SPECTATOR, L_UMPIRE, L_UMPIRE_PUBLIC, L_UMPIRE_PLAYER, L__COUNT };
#define LIST_HOW (ANNOUNCE_NO_PRIVATE | ANNOUNCE_NO_SPECTATORS)
static const struct {
	unsigned aud, how;
} lists[L__COUNT] = { { AUD_WHITE, 0 }, { AUD_BLACK, 0 }, { AUD_SPECTATOR, 0 },
	              { AUD_UMPIRE, 0 }, { AUD_UMPIRE, ANNOUNCE_NO_PRIVATE },
	              { AUD_UMPIRE, LIST_HOW } };

_Static_assert(ANNOUNCE_LISTS == L__COUNT, "announce_step counts every list");

static int list_of(unsigned aud, unsigned how)
{
	for (int l = 0; l < L__COUNT; l++)
		if (aud == lists[l].aud && (how & LIST_HOW) == lists[l].how)
			return l;
	return -1;
}

/* Each list's count, for an announcement heard by `heard`. */
static void count_in_lists(size_t *total, unsigned heard, unsigned hide)
{
	for (int l = 0; l < L__COUNT; l++)
		total[l] += in_list(lists[l].aud, lists[l].how, heard, hide);
}

/* A point of a record to replay from. */
struct mark {
	int seq;                     /* the last action replayed before it (0: none) */
	struct referee *ref;         /* the referee then: a copy, never played on; NULL
	                              * at the start (seq 0: referee_at_start) */
	size_t count[L__COUNT];      /* each list's events before it */
};

/* One record's marks, and its replay as far as it was read. */
struct cached {
	int64_t game;                /* 0: a free slot */
	bool live;                   /* a live game's, kept at each commit
	                              * (announce_step_commit): never replaced */
	int last;                    /* the last seq replayed */
	uint64_t used;               /* the cache's clock when last read */
	struct referee *ref;         /* the referee after `last`; NULL while a live
	                              * game keeps it (cached_resume makes it again) */
	size_t total[L__COUNT];      /* each list's events through `last` */
	int since;                   /* actions since the last mark */
	struct mark *m;              /* m[0]: the start */
	size_t n, cap;
};

/* Where a game's slot was last found, by its id's low bits: a live game's
 * is looked up at every commit, among as many slots as live games. */
#define CACHE_HINTS 4096

struct announce_cache {
	struct cached *slot;         /* the live games' and up to `games` more */
	size_t n, cap;
	size_t hint[CACHE_HINTS];    /* an index into slot, to check (cache_find) */
	size_t games;
	uint64_t clock;
	int stride, min;
};

struct announce_cache *announce_cache_new(size_t games, int stride, int min_actions)
{
	struct announce_cache *ac = xcalloc(1, sizeof *ac);
	ac->games = games > 0 ? games : 1;
	ac->stride = stride > 0 ? stride : 1;
	ac->min = min_actions;
	return ac;
}

static void cached_clear(struct cached *c)
{
	for (size_t i = 0; i < c->n; i++)
		referee_free(c->m[i].ref);
	free(c->m);
	referee_free(c->ref);
	memset(c, 0, sizeof *c);
}

void announce_cache_free(struct announce_cache *ac)
{
	if (ac == NULL)
		return;
	for (size_t i = 0; i < ac->n; i++)
		cached_clear(&ac->slot[i]);
	free(ac->slot);
	free(ac);
}

/* g's slot, or NULL. */
static struct cached *cache_find(struct announce_cache *ac, int64_t game)
{
	if (ac == NULL || game == 0)
		return NULL;
	size_t *h = &ac->hint[(uint64_t)game % CACHE_HINTS];
	if (*h < ac->n && ac->slot[*h].game == game)
		return &ac->slot[*h];
	for (size_t i = 0; i < ac->n; i++)
		if (ac->slot[i].game == game) {
			*h = i;
			return &ac->slot[i];
		}
	return NULL;
}

int announce_cache_marks(const struct announce_cache *ac, int64_t game)
{
	for (size_t i = 0; ac != NULL && game != 0 && i < ac->n; i++)
		if (ac->slot[i].game == game)
			return (int)ac->slot[i].n;
	return 0;
}

/* A mark where c stands now.  The referee that goes on is swapped for its
 * copy too: a copy leaves out the positions that can no longer repeat, so
 * neither grows with the record. */
static void cached_mark(struct cached *c)
{
	struct referee *r = referee_copy(c->ref);
	referee_free(c->ref);
	c->ref = r;
	c->m = xgrow(c->m, &c->cap, c->n + 1, sizeof *c->m, 4);   /* a live game's: one, often */
	struct mark *m = &c->m[c->n++];
	m->seq = c->last;
	m->ref = c->last == 0 ? NULL : referee_copy(r);   /* the start is made again */
	memcpy(m->count, c->total, sizeof m->count);
	c->since = 0;
}

/* A fresh referee where mark m of g's record stands; NULL as
 * referee_at_start. */
static struct referee *mark_referee(const struct mark *m, const struct store_game *g)
{
	return m->ref != NULL ? referee_copy(m->ref) : referee_at_start(g);
}

struct extend {
	struct cached *c;
	int limit, stride;
	struct evlist out;
	bool failed;
};

/* One more action of the record: each list's count, and a mark every
 * stride actions.  What counts is what replay_cb puts in a list (in_list). */
static int extend_cb(const struct store_action *sa, void *arg)
{
	struct extend *x = arg;
	struct cached *c = x->c;
	struct action a;

	if (sa->seq > x->limit)
		return 1;
	if (sa->ok) {
		if (apply_stored(c->ref, sa, &a, &x->out) != REF_OK) {
			x->failed = true;
			return 1;
		}
		for (size_t i = 0; i < x->out.n; i++)
			count_in_lists(c->total, x->out.v[i].audience, 0);
		unsigned hide;
		unsigned naud = notice_audience(&a, &hide);
		count_in_lists(c->total, naud, hide);
	}
	c->last = sa->seq;
	if (++c->since >= x->stride)
		cached_mark(c);
	return 0;
}

/* c, g's, taken back to its last mark, the referee made again there (a
 * live game's slot keeps none: announce_step_commit): 0, or -1. */
static int cached_resume(struct cached *c, const struct store_game *g)
{
	const struct mark *m = &c->m[c->n - 1];
	if ((c->ref = mark_referee(m, g)) == NULL)
		return -1;
	c->last = m->seq;
	memcpy(c->total, m->count, sizeof c->total);
	c->since = 0;
	return 0;
}

/* c, empty or g's replayed through c->last, replayed on through last, a
 * mark every stride actions: 0, or -1 with err and c cleared.  Logs
 * nothing: the reader thread builds marks too (announce_marks_build). */
static int cached_extend(struct cached *c, struct store *st, const struct store_game *g, int last,
                         int stride, char *err, size_t errlen)
{
	if (c->game == 0) {
		if ((c->ref = referee_at_start(g)) == NULL) {
			snprintf(err, errlen, "its rules or start are not known");
			return -1;
		}
		c->game = g->id;
		cached_mark(c);
	}
	if (c->last < last) {
		if (c->ref == NULL && cached_resume(c, g) != 0) {
			snprintf(err, errlen, "its rules or start are not known");
			cached_clear(c);
			return -1;
		}
		struct extend x = { .c = c, .limit = last, .stride = stride };
		evlist_init(&x.out);
		int rc = store_game_actions_after(st, g->id, c->last, extend_cb, &x);
		evlist_free(&x.out);
		if (rc != STORE_OK || x.failed || c->last != last) {
			snprintf(err, errlen, "%s", rc != STORE_OK ? store_error(st) : "it does not replay");
			cached_clear(c);
			return -1;
		}
	}
	return 0;
}

/* c, a live game's slot whose record could not be read (the store failing
 * for a moment), made live again at g's start: a live slot is never given
 * up, so the next commit finds it behind and reads the record again
 * (announce_step_commit), instead of the game going untracked, its views
 * replaying what their readers did not hear, for the rest of its life. */
static void cached_keep_live(struct cached *c, const struct store_game *g)
{
	cached_clear(c);
	if ((c->ref = referee_at_start(g)) == NULL)
		return;   /* no rules, no start: nothing to keep (a free slot) */
	c->game = g->id;
	cached_mark(c);
	referee_free(c->ref);
	c->ref = NULL;
	c->live = true;
}

/* The least recently read of the slots kept for reading (not a live
 * game's, not free), how many there are, and a free slot (or NULL). */
static struct cached *cache_lru(struct announce_cache *ac, size_t *kept, struct cached **free_slot)
{
	struct cached *lru = NULL;
	*kept = 0;
	*free_slot = NULL;
	for (size_t i = 0; i < ac->n; i++) {
		struct cached *c = &ac->slot[i];
		if (c->live)
			continue;
		if (c->game == 0) {
			*free_slot = c;
			continue;
		}
		++*kept;
		if (lru == NULL || c->used < lru->used)
			lru = c;
	}
	return lru;
}

/* g's slot, found, or a new one: the least recently read of those kept
 * for reading (cleared) once there are `games` of them, else a free one.
 * A live game's is never taken (announce_cache_track).  May move every
 * slot. */
static struct cached *cache_slot(struct announce_cache *ac, int64_t game, bool *found)
{
	struct cached *c = cache_find(ac, game);
	if ((*found = c != NULL))
		return c;
	size_t kept;
	struct cached *free_slot;
	struct cached *lru = cache_lru(ac, &kept, &free_slot);
	if (lru != NULL && kept >= ac->games) {
		cached_clear(lru);
		return lru;
	}
	if (free_slot != NULL)
		return free_slot;
	ac->slot = xgrow(ac->slot, &ac->cap, ac->n + 1, sizeof *ac->slot, 16);
	c = &ac->slot[ac->n++];
	memset(c, 0, sizeof *c);
	return c;
}

/* g's slot in the cache, replayed through the record's last action: 0
 * with *out (NULL: a short record, replayed whole for each page), or -1
 * (logged). */
static int cache_get(struct announce_cache *ac, struct store *st, const struct store_game *g,
                     struct cached **out)
{
	int last;
	char err[256];

	*out = NULL;
	if (store_game_last_seq(st, g->id, &last) != STORE_OK) {
		log_warnx("game=%" PRId64 " record: %s", g->id, store_error(st));
		return -1;
	}
	if (last < ac->min && cache_find(ac, g->id) == NULL)
		return 0;
	bool found;
	struct cached *c = cache_slot(ac, g->id, &found);
	if (c->last > last && !c->live)   /* a record only grows: not this one */
		cached_clear(c);
	if (c->last < last)
		log_debug("game=%" PRId64 " cache replays on %d actions", g->id, last - c->last);
	bool live = c->live;
	if (cached_extend(c, st, g, last, ac->stride, err, sizeof err) != 0) {
		log_warnx("game=%" PRId64 " record could not be replayed: %s", g->id, err);
		if (live)
			cached_keep_live(c, g);
		return -1;
	}
	c->live = live;
	c->used = ++ac->clock;
	*out = c;
	return 0;
}

int announce_cache_behind(struct announce_cache *ac, struct store *st, const struct store_game *g)
{
	int last;
	if (ac == NULL || store_game_last_seq(st, g->id, &last) != STORE_OK)
		return 0;
	const struct cached *c = cache_find(ac, g->id);
	if (c != NULL)
		return c->last < last ? last - c->last : 0;
	return last < ac->min ? 0 : last;
}

struct announce_marks {
	struct cached c;
};

struct announce_marks *announce_marks_build(struct store *st, const struct store_game *g,
                                            int stride, char *err, size_t errlen)
{
	int last;
	if (store_game_last_seq(st, g->id, &last) != STORE_OK) {
		snprintf(err, errlen, "%s", store_error(st));
		return NULL;
	}
	struct announce_marks *m = xcalloc(1, sizeof *m);
	if (cached_extend(&m->c, st, g, last, stride > 0 ? stride : 1, err, errlen) != 0) {
		free(m);
		return NULL;
	}
	return m;
}

void announce_marks_free(struct announce_marks *m)
{
	if (m == NULL)
		return;
	cached_clear(&m->c);
	free(m);
}

void announce_cache_adopt(struct announce_cache *ac, struct announce_marks *m)
{
	bool found;
	struct cached *c = cache_slot(ac, m->c.game, &found);
	if (found && c->last >= m->c.last) {
		announce_marks_free(m);   /* read further meanwhile */
		return;
	}
	bool live = c->live;
	cached_clear(c);
	*c = m->c;
	free(m);
	c->live = live;
	c->used = ++ac->clock;
}

int announce_cache_stride(const struct announce_cache *ac)
{
	return ac->stride;
}

/* ---- live games, kept at each commit ----------------------------------------- */

void announce_cache_track(struct announce_cache *ac, struct store *st, const struct store_game *g)
{
	struct cached *c;
	bool found;
	if (ac == NULL)
		return;
	if (cache_get(ac, st, g, &c) != 0) {   /* logged */
		cached_keep_live(cache_slot(ac, g->id, &found), g);
		return;
	}
	if (c == NULL) {   /* a record under min: from its start */
		char err[256];
		c = cache_slot(ac, g->id, &found);
		int last;
		if (store_game_last_seq(st, g->id, &last) != STORE_OK ||
		    cached_extend(c, st, g, last, ac->stride, err, sizeof err) != 0) {
			log_warnx("game=%" PRId64 " record could not be replayed: %s", g->id,
			          store_error(st));
			cached_keep_live(c, g);
			return;
		}
	}
	c->live = true;
	referee_free(c->ref);   /* announce_step_commit keeps the counts, not a referee */
	c->ref = NULL;
}

void announce_cache_untrack(struct announce_cache *ac, int64_t game)
{
	struct cached *c = cache_find(ac, game);
	if (c == NULL)
		return;
	c->live = false;
	c->used = ++ac->clock;
	/* No more than `games` kept for reading: the oldest go. */
	size_t kept;
	struct cached *lru, *free_slot;
	while ((lru = cache_lru(ac, &kept, &free_slot)) != NULL && kept > ac->games)
		cached_clear(lru);
}

void announce_step_take(const struct announce_cache *ac, struct announce_step *s, int seq,
                        const struct action *a, const struct evlist *out,
                        const struct referee *after)
{
	memset(s, 0, sizeof *s);
	s->seq = seq;
	size_t total[L__COUNT] = { 0 };
	for (size_t i = 0; i < out->n; i++)
		count_in_lists(total, out->v[i].audience, 0);
	unsigned hide;
	unsigned naud = notice_audience(a, &hide);
	count_in_lists(total, naud, hide);
	for (int l = 0; l < L__COUNT; l++)
		s->count[l] = (uint32_t)total[l];
	if (ac != NULL && seq % ac->stride == 0)
		s->mark = referee_copy(after);
}

void announce_step_commit(struct announce_cache *ac, struct store *st, const struct store_game *g,
                          struct announce_step *s)
{
	struct cached *c = cache_find(ac, g->id);
	if (c == NULL || !c->live || c->last >= s->seq) {   /* read there already */
		announce_step_drop(s);
		return;
	}
	if (c->last != s->seq - 1) {   /* not expected: from the store, as a read would */
		struct cached *got;
		log_warnx("game=%" PRId64 " replay cache at %d, action %d committed", g->id, c->last,
		          s->seq);
		announce_step_drop(s);
		if (cache_get(ac, st, g, &got) == 0 && got != NULL) {
			referee_free(got->ref);
			got->ref = NULL;
		}
		return;
	}
	for (int l = 0; l < L__COUNT; l++)
		c->total[l] += s->count[l];
	c->last = s->seq;
	c->since++;
	referee_free(c->ref);
	c->ref = NULL;
	if (s->mark != NULL) {
		c->m = xgrow(c->m, &c->cap, c->n + 1, sizeof *c->m, 16);
		struct mark *m = &c->m[c->n++];
		m->seq = c->last;
		m->ref = s->mark;
		memcpy(m->count, c->total, sizeof m->count);
		c->since = 0;
		s->mark = NULL;
	}
}

void announce_step_drop(struct announce_step *s)
{
	referee_free(s->mark);
	s->mark = NULL;
}

/* ---- the marks built off the loop (reader.h) ---------------------------------- */

/* A long record's marks, built on the reader thread. */
struct marks_job {
	struct announce_cache *ac;
	struct store_game g;
	int stride;
	struct announce_marks *m;
	char err[256];
};

static void marks_run(void *arg, struct store *st)
{
	struct marks_job *j = arg;
	j->m = announce_marks_build(st, &j->g, j->stride, j->err, sizeof j->err);
}

static void marks_done(void *arg, uint64_t rows)
{
	struct marks_job *j = arg;
	(void)rows;
	if (j->m != NULL)
		announce_cache_adopt(j->ac, j->m);
	else   /* the request, run again in place, answers the failure */
		log_warnx("game=%" PRId64 " record could not be replayed: %s", j->g.id, j->err);
	free(j);
}

static const struct reader_ops marks_ops = { marks_run, marks_done };

bool announce_offload_marks(struct conn *c, const struct store_game *g)
{
	struct server *srv = conn_server(c);
	int behind;
	if (!dispatch_can_offload(c) ||
	    !reader_wants(srv->reader, behind = announce_cache_behind(srv->replays, srv->store, g)))
		return false;
	struct marks_job *j = xcalloc(1, sizeof *j);
	j->ac = srv->replays;
	j->g = *g;
	j->stride = announce_cache_stride(srv->replays);
	dispatch_offload(c, &marks_ops, j, (uint64_t)behind);
	return true;
}

int announce_replay_page(struct store *st, struct announce_cache *ac, const struct store_game *g,
                         unsigned aud, unsigned how, struct pager *pg)
{
	struct replay rp = { .aud = aud, .how = how, .pg = pg };
	struct cached *c = NULL;
	int l = list_of(aud, how);

	if (ac != NULL && l >= 0 && cache_get(ac, st, g, &c) != 0)
		return -1;
	if (c == NULL) {
		int rc = replay_into(st, g, &rp);
		log_debug("game=%" PRId64 " page replayed %d actions", g->id, rp.applied);
		return rc;
	}
	/* From the last mark at or before the page's first event, until the
	 * page is full; the list's length is known. */
	size_t k = 0;
	while (k + 1 < c->n && c->m[k + 1].count[l] <= pg->from)
		k++;
	size_t total = c->total[l];
	if (pg->from < total) {
		pg->n = c->m[k].count[l];
		rp.limit = c->last;
		rp.total = total;
		struct referee *r = mark_referee(&c->m[k], g);
		if (r == NULL) {
			log_warnx("game=%" PRId64 " record could not be replayed: its rules or start are not known",
			          g->id);
			return -1;
		}
		if (replay_from(st, g, &rp, r, c->m[k].seq) != 0)
			return -1;
	}
	log_debug("game=%" PRId64 " page replayed %d actions", g->id, rp.applied);
	pg->n = total;
	return 0;
}

struct stored {
	int64_t game;
	const struct ruleset *rs;
	unsigned aud;
	json_t *arr;
	/* the record's last event, which the next may be the others' copy of
	 * (each copy says who heard either, event_told, as a replayed view
	 * says it), and its line if this list holds it */
	struct event last;
	int last_seq;                /* 0: none yet */
	json_t *last_j;              /* borrowed: arr holds it */
};

static int stored_cb(int seq, const struct event *e, void *arg)
{
	struct stored *sv = arg;
	bool copy = sv->last_seq > 0 && seq == sv->last_seq && event_copies(&sv->last, e);
	unsigned told = copy ? sv->last.audience | e->audience : e->audience;
	/* the umpire's copy says who heard either; so does each copy of a
	 * capture (event_told) */
	if (copy && sv->last_j && (sv->aud == AUD_UMPIRE || event_told_whole(e)))
		json_object_set_new(sv->last_j, "audience", event_json_audience(told));
	sv->last = *e;
	sv->last_seq = seq;
	sv->last_j = NULL;
	if (!(e->audience & sv->aud))
		return 0;
	json_t *j = announce_event(sv->game, sv->rs, e, NULL, NULL, NULL);
	if (j != NULL) {
		if (copy && event_told_whole(e))
			json_object_set_new(j, "audience", event_json_audience(told));
		json_array_append_new(sv->arr, j);
		sv->last_j = j;
	}
	return 0;
}

json_t *announce_stored(struct store *st, const struct store_game *g, unsigned aud)
{
	struct stored sv = { .game = g->id, .rs = ruleset_find(g->rules), .aud = aud, .arr = json_array() };
	if (sv.rs == NULL || store_game_event_list(st, g->id, stored_cb, &sv) != STORE_OK) {
		json_decref(sv.arr);
		return NULL;
	}
	return sv.arr;
}
