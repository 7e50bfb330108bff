/*
 * announce.c — announcements as an audience receives them (announce.h).
 */
#include "announce.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "action.h"
#include "dispatch.h"
#include "event.h"
#include "event_json.h"
#include "fen.h"
#include "jsonline.h"
#include "log.h"
#include "proto.h"
#include "referee.h"
#include "ruleset.h"
#include "store.h"

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

json_t *announce_notice(int64_t game, const struct action *a, int ply, const int64_t *clock,
                        unsigned *aud)
{
	struct action_umpire u;
	json_t *j;
	if (a->kind == ACTION_DRAW) {
		*aud = ANNOUNCE_DRAW_AUDIENCE;
		return announce_draw(game, a, clock);
	}
	if (action_is_adjourn(a->kind)) {
		/* An offer or its refusal is between the players (as a draw's);
		 * the clocks stopping or running again is everyone's news. */
		const char *name = a->kind == ACTION_UNADJ ? "unadjourned"
		                   : strcmp(a->text, "offer") == 0 ? "adjourn_offer"
		                   : strcmp(a->text, "decline") == 0 ? "adjourn_declined"
		                   : "adjourned";
		bool public = a->kind == ACTION_UNADJ || strcmp(a->text, "agree") == 0;
		*aud = public ? AUD_PUBLIC : ANNOUNCE_DRAW_AUDIENCE;
		j = json_pack("{s:s, s:I, s:s, s:i}", "event", name, "game", (json_int_t)game, "by",
		              a->color == WHITE ? "white" : "black", "ply", ply);
		return with_clock(j, clock);
	}
	if (action_is_chat(a->kind)) {
		/* A player's or a spectator's words: its own event, never the
		 * umpire's voice; the spectators' channel never reaches a player. */
		char buf[ACTION_TEXT_MAX];
		const char *name, *text;
		if (action_chat_parse(a, buf, &name, &text) != REF_OK)
			return NULL;
		if (a->kind == ACTION_SAY) {
			*aud = AUD_PUBLIC;
			return json_pack("{s:s, s:I, s:s, s:s, s:s, s:i}", "event", "chat", "game",
			                 (json_int_t)game, "channel", "game", "color",
			                 a->color == WHITE ? "white" : "black", "text", text, "ply", ply);
		}
		*aud = AUD_SPECTATOR | AUD_UMPIRE;
		return json_pack("{s:s, s:I, s:s, s:s, s:s, s:i}", "event", "chat", "game",
		                 (json_int_t)game, "channel", "spectators", "user", name, "text", text,
		                 "ply", ply);
	}
	if (a->kind == ACTION_ADJUDGE || a->kind == ACTION_UABORT ||
	    action_umpire_parse(a, &u) != REF_OK)
		return NULL;
	*aud = AUD_PUBLIC;
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
		if (!u.public) {
			json_object_set_new(j, "private", json_true());
			*aud = AUD_UMPIRE;
		}
		break;
	}
	return with_clock(j, clock);
}

struct replay {
	const struct store_game *g;
	const struct ruleset *rs;
	struct referee *ref;
	unsigned aud;
	unsigned how;                /* ANNOUNCE_ bits (announce.h) */
	json_t *arr;                 /* every event heard; NULL with pg (the page is pg's) */
	struct pager *pg;
	struct evlist out;
	bool failed;
};

static int replay_cb(const struct store_action *sa, void *arg)
{
	struct replay *rp = arg;
	struct action a;

	if (!sa->ok)
		return 0;
	evlist_clear(&rp->out);
	if (action_parse(&a, sa->kind, sa->color, sa->text) != REF_OK ||
	    referee_apply(rp->ref, &a, &rp->out) != REF_OK) {
		rp->failed = true;
		return 1;
	}
	for (size_t i = 0; i < rp->out.n; i++) {
		if (!(rp->out.v[i].audience & rp->aud))
			continue;
		if (rp->pg != NULL && !pager_wants(rp->pg)) {
			pager_take(rp->pg, NULL);   /* counted, not built */
			continue;
		}
		json_t *j = announce_event(rp->g->id, rp->rs, &rp->out.v[i], NULL, rp->ref, &a);
		if (j != NULL && (rp->how & ANNOUNCE_AUDIENCE))
			json_object_set_new(j, "audience", event_json_audience(rp->out.v[i].audience));
		if (j != NULL && rp->pg != NULL)
			pager_take(rp->pg, j);
		else if (j != NULL)
			json_array_append_new(rp->arr, j);
	}
	unsigned naud = 0;
	json_t *j = announce_notice(rp->g->id, &a, referee_plies(rp->ref), NULL, &naud);
	/* A private note is left out before it is counted: the page's "total"
	 * and "next" are those of the list without it. */
	if (j != NULL && (rp->how & ANNOUNCE_NO_PRIVATE) &&
	    json_is_true(json_object_get(j, "private"))) {
		json_decref(j);
		j = NULL;
	}
	if (j != NULL && (rp->aud & naud)) {
		if (rp->how & ANNOUNCE_AUDIENCE)
			json_object_set_new(j, "audience", event_json_audience(naud));
		if (rp->pg != NULL)
			pager_take(rp->pg, j);
		else
			json_array_append_new(rp->arr, j);
	} else {
		json_decref(j);
	}
	return 0;
}

/* Replay g's record into rp (its arr or its pager): 0, or -1 (logged). */
static int replay_into(struct store *st, const struct store_game *g, struct replay *rp)
{
	char err[128];

	rp->g = g;
	rp->rs = ruleset_find(g->rules);
	if (rp->rs == NULL)
		return -1;
	rp->ref = referee_new(rp->rs, g->fen[0] ? g->fen : NULL, err, sizeof err);
	if (rp->ref == NULL)
		return -1;
	evlist_init(&rp->out);
	int rc = store_game_actions(st, g->id, replay_cb, rp);
	evlist_free(&rp->out);
	referee_free(rp->ref);
	if (rc != STORE_OK || rp->failed) {
		log_warnx("game=%" PRId64 " record could not be replayed%s%s", g->id,
		          rc != STORE_OK ? ": " : "", rc != STORE_OK ? store_error(st) : "");
		return -1;
	}
	return 0;
}

json_t *announce_replay(struct store *st, const struct store_game *g, unsigned aud,
                        unsigned how)
{
	struct replay rp = { .aud = aud, .how = how, .arr = json_array() };

	if (replay_into(st, g, &rp) != 0) {
		json_decref(rp.arr);
		return NULL;
	}
	return rp.arr;
}

int announce_replay_page(struct store *st, const struct store_game *g, unsigned aud,
                         unsigned how, struct pager *pg)
{
	struct replay rp = { .aud = aud, .how = how, .pg = pg };

	return replay_into(st, g, &rp);
}

struct stored {
	int64_t game;
	const struct ruleset *rs;
	unsigned aud;
	json_t *arr;
};

static int stored_cb(int seq, const struct event *e, void *arg)
{
	struct stored *sv = arg;
	(void)seq;
	if (!(e->audience & sv->aud))
		return 0;
	json_t *j = announce_event(sv->game, sv->rs, e, NULL, NULL, NULL);
	if (j != NULL)
		json_array_append_new(sv->arr, j);
	return 0;
}

json_t *announce_stored(struct store *st, const struct store_game *g, unsigned aud)
{
	struct stored sv = { g->id, ruleset_find(g->rules), aud, json_array() };
	if (sv.rs == NULL || store_game_event_list(st, g->id, stored_cb, &sv) != STORE_OK) {
		json_decref(sv.arr);
		return NULL;
	}
	return sv.arr;
}
