/*
 * game_priv.h — internal to the game module (game.c, game_cmd.c,
 * game_view.c): the live game's structures and the few functions those
 * files share.  Nothing outside the module includes it; its interface is
 * game.h.
 */
#ifndef KRIEG_GAME_PRIV_H
#define KRIEG_GAME_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "proto.h"
#include "store.h"

struct conn;
struct event;
struct evlist;
struct referee;
struct ruleset;
struct server;

/* ACT_DRAW: a draw offer or its decline (text "offer" / "decline"), stored
 * like any action so the record, a restart and the views keep it; the
 * referee announces nothing for it (the notice is game.c's). */
enum act_kind { ACT_BEGIN = 0, ACT_TRY, ACT_LIST, ACT_QUIET, ACT_ANY, ACT_END, ACT_DRAW };

/* One action of the record, kept in memory for a rebuild after a failed commit. */
struct gaction {
	uint8_t kind;
	int8_t color;
	char text[256];
};

struct game {
	struct games *gs;
	struct game *next;
	int64_t id;
	struct store_game info;
	int64_t user[2];
	char name[2][PROTO_NAME_MAX + 1];
	const struct ruleset *rs;
	struct referee *ref;
	struct clock clock;
	struct gaction *acts;
	size_t nacts, capacts;
	int seq;                     /* last action's seq (committed or in the open batch) */
	int draw_offer;              /* colour with a standing draw offer, or -1 */
	/* Actions of this game not yet committed (in the open batch or with
	 * the store writer); each keeps the state before it (struct pending),
	 * what a failed commit puts back. */
	int pending;
	struct event *flag_timer;
	struct event *abandon_timer[2];
	bool dead;
};

struct flagged_game {
	int64_t id;
	int64_t user[2];
	char reason[256];
};

struct games {
	struct server *srv;
	struct game *live;
	struct game *graveyard;      /* finished, freed from reaper (never inside their own callback) */
	struct event *reaper;
	struct batch *batch;         /* this turn's actions, one commit (batch.c) */
	int64_t grace_ms;
	struct event *heartbeat;     /* GAME_HEARTBEAT_MS */
	/* Unfinished games whose record failed the check at start (recover.c):
	 * never played on; reported as flagged, served from their STORED
	 * announcements only, never from a replay. */
	struct flagged_game *flagged;
	size_t nflagged;
	int64_t alive_ms;            /* at recovery: the last heartbeat before the restart, or 0 */
};

/* game.c */
int64_t game_mono_ms(void);
const char *game_color_name(int color);
int game_act_apply(struct referee *r, int kind, int color, const char *text, struct evlist *out);
int game_act_kind_parse(const char *s);
json_t *game_clock_json(const struct game *g, int64_t now);
json_t *game_time_json(const struct store_game *info);
json_t *game_event_wire(const struct game *g, const struct ruleset *rs, const struct event *e,
                        json_t *clock);
json_t *game_draw_notice(int64_t game, const char *text, int color, json_t *clock);
const struct flagged_game *game_flagged_find(const struct games *gs, int64_t id);
struct game *game_find(const struct games *gs, int64_t id);
int game_act(struct game *g, int kind, int color, const char *text,
             struct conn *c, json_t *id, struct event *retry);

/* game_cmd.c: the deferral rule (see there) */
typedef void (*proceed_fn)(struct conn *c, json_t *id, json_t *req);
bool game_user_busy(const struct games *gs, const struct game *g, int64_t uid);
void game_wait_for_commit(struct conn *c, const struct game *g, json_t *id, json_t *req,
                          proceed_fn proceed);

/* game_view.c */
json_t *game_view_json(struct games *gs, const struct store_game *info,
                       const char names[2][PROTO_NAME_MAX + 1], int color,
                       const struct game *live, size_t from, json_t **all);
json_t *game_live_view(struct game *g, int color, size_t from, json_t **all);

#endif
