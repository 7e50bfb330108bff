/*
 * chat.c — words between people (PROTOCOL.md, "Chat"):
 *
 *   say  {game, text}   a player of a live game to the other player; the
 *                       spectators and umpires read it too
 *   spec {game, text}   a spectator of a live game (holding a `watch` seat)
 *                       to the other spectators and the umpires: the
 *                       spectators' channel, never sent to a player of it
 *   tell {user, text}   one user to another who is online
 *   message {user, text}
 *                       left for a registered user, online or not: kept in
 *                       the store (schema 15) until they delete it, pushed
 *                       at once if they are online, else at their next login
 *   messages {from?}    the messages left for this user, oldest first
 *   message_delete {message?}
 *                       one of them, or all
 *   mutes {}           the names this user muted
 *   mute {user} / unmute {user}
 *                       the muting user no longer receives that user's
 *                       say, spec and tell, as a player or as a spectator
 *                       (watch.c asks chat_speaker); kept in the store
 *                       (schema 12), read at start, and in memory
 *
 * say and spec are actions of the game's record (action.h, ACTION_SAY and
 * ACTION_SPEC), taken by game_act like a move: stored with their time,
 * replayed into record views and PGN, and announced as a `chat` event of
 * their own (announce_notice), never as one of the umpire's announcements,
 * and never changing what the referee announces.  tell is not stored.
 *
 * Every text is checked at the edge: valid UTF-8 without control
 * characters, 1..ACTION_REASON_MAX bytes (action_umpire_text's normal
 * form), and each user may send CHAT_BURST messages in any CHAT_WINDOW_MS.
 * Part of the game module (game_priv.h): it holds its state in struct games.
 */
#include <sys/queue.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "action.h"
#include "auth.h"
#include "conn.h"
#include "dispatch.h"
#include "game.h"
#include "game_priv.h"
#include "idtable.h"
#include "lobby.h"
#include "log.h"
#include "mstime.h"
#include "proto.h"
#include "server.h"
#include "store.h"
#include "text.h"
#include "xmalloc.h"

#define CHAT_BURST 5                /* messages a user may send ... */
#define CHAT_WINDOW_MS (10 * 1000)  /* ... in any span this long */
#define CHAT_MUTES_MAX 200          /* users one user may mute */
#define CHAT_GAME_ID_MAX (1LL << 53)
#define CHAT_MAILBOX_MAX 100        /* messages kept for one user ... */
#define CHAT_FROM_ONE_MAX 10        /* ... of them from one sender: no pest fills a mailbox */

struct chat_user {
	struct idnode node;          /* in chat's users; node.id = the user */
	TAILQ_ENTRY(chat_user) recent;   /* in chat's recent while its window holds a message */
	bool in_recent;
	int64_t sent[CHAT_BURST];    /* mstime_mono of the last CHAT_BURST accepted, a ring */
	int nsent;                   /* how many of them are set (up to CHAT_BURST) */
	int next;                    /* the ring's oldest, overwritten by the next */
	int64_t *muted;              /* users whose words this one does not receive */
	size_t nmuted, capmuted;
};

/*
 * A user's entry is found by id (every listener of a spectator's or a
 * player's words is looked up: a list walked was one entry of every user
 * who chatted since the start), and goes once it holds nothing: no mute,
 * and its last message out of the window (chat_sent sweeps a few of the
 * oldest, as conn.c does the address budgets).  Before, an entry stayed
 * for every user who ever chatted, until a restart.
 */
struct chat {
	struct idtable users;
	TAILQ_HEAD(, chat_user) recent;  /* by last message, oldest first */
	int64_t window_ms;           /* CHAT_WINDOW_MS, or the test hook's */
};

#define CHAT_SWEEP 4                /* entries looked at per message accepted */

static struct chat_user *chat_user(struct games *gs, int64_t uid, bool create)
{
	if (gs->chat == NULL) {
		if (!create)
			return NULL;
		gs->chat = xcalloc(1, sizeof *gs->chat);
		TAILQ_INIT(&gs->chat->recent);
		gs->chat->window_ms = CHAT_WINDOW_MS;
		/* Test hook: integration tests slide the window in seconds, not ten. */
		const char *env = getenv("KRIEGD_CHAT_WINDOW_MS");
		if (env && atoll(env) > 0)
			gs->chat->window_ms = atoll(env);
	}
	struct chat *ch = gs->chat;
	struct idnode *n = idtable_find(&ch->users, uid);
	if (n != NULL)
		return IDTABLE_ENTRY(n, struct chat_user, node);
	if (!create)
		return NULL;
	struct chat_user *cu = xcalloc(1, sizeof *cu);
	cu->node.id = uid;
	idtable_add(&ch->users, &cu->node);
	return cu;
}

static void chat_user_free(struct idnode *n)
{
	struct chat_user *cu = IDTABLE_ENTRY(n, struct chat_user, node);
	free(cu->muted);
	free(cu);
}

void chat_free(struct games *gs)
{
	if (gs->chat == NULL)
		return;
	idtable_free(&gs->chat->users, chat_user_free);
	free(gs->chat);
	gs->chat = NULL;
}

/* cu holds nothing any more (no mute, no message in the window): gone. */
static void chat_user_drop(struct chat *ch, struct chat_user *cu)
{
	idtable_remove(&ch->users, &cu->node);
	chat_user_free(&cu->node);
}

/* The oldest entries whose last message left the window leave the recent
 * list, and go altogether when they mute nobody. */
static void chat_sweep(struct chat *ch, int64_t now)
{
	struct chat_user *cu;
	for (int i = 0; i < CHAT_SWEEP && (cu = TAILQ_FIRST(&ch->recent)) != NULL; i++) {
		int64_t last = cu->sent[(cu->next + CHAT_BURST - 1) % CHAT_BURST];
		if (now - last < ch->window_ms)
			break;
		TAILQ_REMOVE(&ch->recent, cu, recent);
		cu->in_recent = false;
		if (cu->nmuted == 0)
			chat_user_drop(ch, cu);
	}
	log_debug("chat: %zu users held", ch->users.count);
}

/* listener mutes speaker from now on (no check of the limit: the store's
 * rows were each allowed when made). */
static void mute_add(struct chat_user *cu, int64_t speaker)
{
	cu->muted = xgrow(cu->muted, &cu->capmuted, cu->nmuted + 1, sizeof *cu->muted, 8);
	cu->muted[cu->nmuted++] = speaker;
}

static int mute_row(int64_t user, int64_t muted, void *arg)
{
	/* A self-mute kept from before they were refused is left out: it
	 * could no longer be undone. */
	if (user != muted && !chat_muted(arg, user, muted))   /* read twice, held once */
		mute_add(chat_user(arg, user, true), muted);
	return 0;
}

int chat_load(struct games *gs)
{
	if (store_mutes_list(gs->srv->store, mute_row, gs) != STORE_OK) {
		log_warnx("chat: reading the mutes: %s", store_error(gs->srv->store));
		return -1;
	}
	return 0;
}

bool games_user_muted(struct server *srv, int64_t listener, int64_t speaker)
{
	return srv->games && chat_muted(srv->games, listener, speaker);
}

bool chat_muted(struct games *gs, int64_t listener, int64_t speaker)
{
	struct chat_user *cu = chat_user(gs, listener, false);
	if (cu == NULL)
		return false;
	for (size_t i = 0; i < cu->nmuted; i++)
		if (cu->muted[i] == speaker)
			return true;
	return false;
}

/* The text in its normal form in out, and the sender's rate checked.
 * Sends the error and returns false if either fails.  The window slides:
 * a message is accepted when the CHAT_BURST-th before it is a whole
 * window old (a window restarted by the first message after it would let
 * a burst at its end and another at the next one's start through).  Only
 * accepted words count (chat_sent): one refused afterwards (a full
 * mailbox, a game that refuses it) uses nothing of the allowance. */
static bool chat_checked(struct conn *c, json_t *id, json_t *req, char *out, size_t len)
{
	if (action_text_in(json_string_value(json_object_get(req, "text")), out, len) != REF_OK) {
		dispatch_error(c, id, PE_BAD_REQUEST, "text: " TEXT_RULE, ACTION_REASON_MAX);
		return false;
	}
	struct games *gs = conn_server(c)->games;
	const struct chat_user *cu = chat_user(gs, conn_user(c), false);   /* none: nothing sent */
	if (cu != NULL && cu->nsent == CHAT_BURST &&
	    mstime_mono() - cu->sent[cu->next] < gs->chat->window_ms) {
		dispatch_error(c, id, PE_RATE_LIMITED, "at most %d messages in %d seconds", CHAT_BURST,
		               CHAT_WINDOW_MS / 1000);
		return false;
	}
	return true;
}

/* c's words (checked by chat_checked) were accepted: they count in its window. */
static void chat_sent(struct conn *c)
{
	struct games *gs = conn_server(c)->games;
	struct chat_user *cu = chat_user(gs, conn_user(c), true);
	int64_t now = mstime_mono();
	cu->sent[cu->next] = now;
	cu->next = (cu->next + 1) % CHAT_BURST;
	if (cu->nsent < CHAT_BURST)
		cu->nsent++;
	if (cu->in_recent)
		TAILQ_REMOVE(&gs->chat->recent, cu, recent);
	TAILQ_INSERT_TAIL(&gs->chat->recent, cu, recent);
	cu->in_recent = true;
	chat_sweep(gs->chat, now);   /* never cu: its message is in the window */
}

static void cmd_say(struct conn *c, json_t *id, json_t *req)
{
	/* The refusals of every game request (game_mine): `say` had its own,
	 * no_such_game for one's own finished or flagged game (two probes). */
	int color;
	struct game *g = game_mine(c, id, req, &color, cmd_say);
	if (g == NULL)
		return;
	char text[ACTION_REASON_MAX + 1];
	if (!chat_checked(c, id, req, text, sizeof text))
		return;
	if (game_act(g, ACTION_SAY, color, text, c, id, NULL) == 0)
		chat_sent(c);
}

static void cmd_spec(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct game *g = game_find(srv->games, json_integer_value(json_object_get(req, "game")));
	if (g == NULL || g->dead) {
		dispatch_error(c, id, PE_NO_SUCH_GAME, "no such live game");
		return;
	}
	/* No advice to watch where watching is refused too (the refusals
	 * probe): a player of the game, anyone but an umpire in a rated one.
	 * A player is refused at once: no wait for what spectators hear. */
	bool player = g->user[WHITE] == conn_user(c) || g->user[BLACK] == conn_user(c);
	if (player) {
		dispatch_error(c, id, PE_FORBIDDEN, "you play in this game: the spectators' channel is for "
		               "its spectators");
		return;
	}
	/* After the commits spectators hear of, and behind the connection's
	 * `watch` still waiting (probe: a `spec` sent after it was refused as
	 * from no spectator, one after `unwatch` said). */
	if (watch_must_wait(c, g, id, req, cmd_spec))
		return;
	if (!watch_is_spectator(g, conn_id(c))) {
		dispatch_error(c, id, PE_FORBIDDEN, "the spectators' channel is for the game's spectators");
		return;
	}
	char text[ACTION_REASON_MAX + 1], line[ACTION_TEXT_MAX];
	if (!chat_checked(c, id, req, text, sizeof text))
		return;
	snprintf(line, sizeof line, "%s %s", conn_user_name(c), text);
	if (game_act(g, ACTION_SPEC, -1, line, c, id, NULL) == 0)
		chat_sent(c);
}

int64_t chat_speaker(const struct game *g, const json_t *msg)
{
	const char *ev = json_string_value(json_object_get(msg, "event"));
	if (g->gs->chat == NULL || ev == NULL || strcmp(ev, "chat") != 0)
		return 0;   /* nobody has muted anyone yet: nothing to look up */
	const char *channel = json_string_value(json_object_get(msg, "channel"));
	if (channel && strcmp(channel, "game") == 0) {
		const char *col = json_string_value(json_object_get(msg, "color"));
		return col && strcmp(col, "black") == 0 ? g->user[BLACK] : g->user[WHITE];
	}
	/* A spectator's words: the account that spoke, by the name the record keeps. */
	const char *name = json_string_value(json_object_get(msg, "user"));
	struct store_user u;
	if (name && store_user_find(g->gs->srv->store, name, &u) == STORE_OK)
		return u.id;
	return 0;
}

/* The user named in the request (into u), or 0 (the error sent). */
static int64_t named_user(struct conn *c, json_t *id, json_t *req, struct store_user *u)
{
	return auth_find_user(c, id, json_string_value(json_object_get(req, "user")), u) == 0 ? u->id : 0;
}

static void cmd_tell(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct store_user u;
	int64_t to = named_user(c, id, req, &u);
	if (to == 0)
		return;
	if (to == conn_user(c)) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "that is you");
		return;
	}
	if (conn_of_user(srv, to, NULL) == NULL) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s is not online",
		               json_string_value(json_object_get(req, "user")));
		return;
	}
	char text[ACTION_REASON_MAX + 1];
	if (!chat_checked(c, id, req, text, sizeof text))
		return;
	chat_sent(c);
	/* A muted sender is answered ok all the same: muting is not announced. */
	if (!chat_muted(srv->games, to, conn_user(c)))
		for (struct conn *o = NULL; (o = conn_of_user(srv, to, o)) != NULL;)
			conn_send(o, json_pack("{s:s, s:s, s:s}", "event", "tell", "from", conn_user_name(c),
			                       "text", text));
	/* whom it reached, as registered: the teller's words name them */
	dispatch_ok(c, id, json_pack("{s:s}", "user", u.name));
}

static json_t *message_json(const struct store_message *m)
{
	return json_pack("{s:I, s:s, s:s, s:I}", "message", (json_int_t)m->num, "from", m->from, "text",
	                 m->text, "sent", (json_int_t)m->sent_unix);
}

/*
 * message {user, text}: left for a registered user.  Stored before the
 * answer; pushed to the recipient's connections if any (then marked
 * delivered), else at their next login.  A muted sender's message goes the
 * same way, the same refusals and the same write, but is kept withheld:
 * never pushed or listed, and not counted in the reader's mailbox for
 * anyone else; its sender counts it, in their ten and in the mailbox (a
 * mailbox that never filled for them would tell them of the mute).
 * Muting is not announced, not even by the answer's time (one without a
 * write would come back sooner).
 */
static void cmd_message(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	int64_t uid = conn_user(c);
	if (auth_is_guest_name(conn_user_name(c))) {
		dispatch_error(c, id, PE_FORBIDDEN, "guests cannot leave messages: register first");
		return;
	}
	struct store_user u;
	if (auth_find_user(c, id, json_string_value(json_object_get(req, "user")), &u) != 0)
		return;
	if (u.id == uid) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "that is you");
		return;
	}
	if (u.guest) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s is a guest: guests keep no messages", u.name);
		return;
	}
	char text[ACTION_REASON_MAX + 1];
	if (!chat_checked(c, id, req, text, sizeof text))
		return;
	bool muted = chat_muted(srv->games, u.id, uid);
	int64_t kept = 0, mine = 0;
	if (store_messages_count(srv->store, u.id, uid, &kept, &mine) != STORE_OK) {
		log_warnx("chat: counting messages: %s", store_error(srv->store));
		dispatch_error(c, id, PE_STORAGE, "the message could not be stored");
		return;
	}
	if (mine >= CHAT_FROM_ONE_MAX) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s keeps %d of your messages already: wait until "
		               "they read and delete them", u.name, CHAT_FROM_ONE_MAX);
		return;
	}
	if (kept >= CHAT_MAILBOX_MAX) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "%s keeps %d messages already: their mailbox is full",
		               u.name, CHAT_MAILBOX_MAX);
		return;
	}
	bool online = conn_of_user(srv, u.id, NULL) != NULL;
	struct store_message m = { .sent_unix = (int64_t)time(NULL) };
	snprintf(m.from, sizeof m.from, "%s", conn_user_name(c));
	snprintf(m.text, sizeof m.text, "%s", text);
	int state = muted ? STORE_MESSAGE_WITHHELD : online ? STORE_MESSAGE_DELIVERED : STORE_MESSAGE_NEW;
	if (store_message_put(srv->store, u.id, uid, text, m.sent_unix, state, &m.num) != STORE_OK) {
		log_warnx("chat: storing a message: %s", store_error(srv->store));
		dispatch_error(c, id, PE_STORAGE, "the message could not be stored");
		return;
	}
	chat_sent(c);
	if (state == STORE_MESSAGE_DELIVERED) {
		json_t *ev = message_json(&m);
		json_object_set_new(ev, "event", json_string("message"));
		conn_send_user(srv, u.id, ev);
	}
	dispatch_ok(c, id, NULL);
}

/* Collects a mailbox: every message (all), and the undelivered ones as events (new). */
struct mailbox {
	json_t *all, *fresh;
	int64_t last;
};

static int mailbox_row(const struct store_message *m, void *arg)
{
	struct mailbox *mb = arg;
	if (m->delivered == STORE_MESSAGE_WITHHELD)
		return 0;
	if (mb->all)
		json_array_append_new(mb->all, message_json(m));
	if (mb->fresh && m->delivered == STORE_MESSAGE_NEW) {
		json_t *ev = message_json(m);
		json_object_set_new(ev, "event", json_string("message"));
		json_array_append_new(mb->fresh, ev);
		mb->last = m->id;
	}
	return 0;
}

/* A login: the messages left since the user's last connection, as events. */
void chat_conn_login(struct server *srv, struct conn *c)
{
	int64_t uid = conn_user(c);
	if (uid <= 0 || auth_is_guest_name(conn_user_name(c)))
		return;
	struct mailbox mb = { .fresh = json_array() };
	if (store_messages_list(srv->store, uid, mailbox_row, &mb) != STORE_OK)
		log_warnx("chat: reading the messages of user=%" PRId64 ": %s", uid, store_error(srv->store));
	else if (mb.last > 0 && store_messages_delivered(srv->store, uid, mb.last) != STORE_OK)
		log_warnx("chat: marking messages delivered: %s", store_error(srv->store));
	size_t i;
	json_t *ev;
	json_array_foreach(mb.fresh, i, ev)
		conn_send(c, json_incref(ev));
	json_decref(mb.fresh);
}

/* messages {from?}: the messages left for this user, oldest first, paged. */
static void cmd_messages(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	struct mailbox mb = { .all = json_array() };
	if (store_messages_list(srv->store, conn_user(c), mailbox_row, &mb) != STORE_OK) {
		json_decref(mb.all);
		log_warnx("chat: reading messages: %s", store_error(srv->store));
		dispatch_error(c, id, PE_STORAGE, "the messages could not be read");
		return;
	}
	dispatch_ok_page(c, id, req, NULL, "messages", mb.all);
}

/* message_delete {message?}: one of this user's messages, or (without) all,
 * the withheld too; only those the user could see are counted in the
 * answer (withheld ones are no business of theirs). */
static void cmd_message_delete(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	int64_t mid = json_integer_value(json_object_get(req, "message")), n = 0, shown = 0, unused;
	if ((mid == 0 && store_messages_count(srv->store, conn_user(c), 0, &shown, &unused) != STORE_OK) ||
	    store_messages_delete(srv->store, conn_user(c), mid, &n) != STORE_OK) {
		log_warnx("chat: deleting messages: %s", store_error(srv->store));
		dispatch_error(c, id, PE_STORAGE, "the messages could not be deleted");
		return;
	}
	if (mid > 0 && n == 0) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "you have no message %" PRId64, mid);
		return;
	}
	dispatch_ok(c, id, json_pack("{s:I}", "deleted", (json_int_t)(mid == 0 ? shown : n)));
}

static void cmd_mute(struct conn *c, json_t *id, json_t *req)
{
	bool mute = strcmp(json_string_value(json_object_get(req, "type")), "mute") == 0;
	struct store_user u;
	int64_t who = named_user(c, id, req, &u);
	if (who == 0)
		return;
	/* As tell and message: muting yourself would only hide your own
	 * words from you (your say never coming back). */
	if (who == conn_user(c)) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "that is you");
		return;
	}
	struct games *gs = conn_server(c)->games;
	struct chat_user *cu = chat_user(gs, conn_user(c), true);
	size_t i = 0;
	while (i < cu->nmuted && cu->muted[i] != who)
		i++;
	if (mute && i == cu->nmuted && cu->nmuted == CHAT_MUTES_MAX) {
		dispatch_error(c, id, PE_ILLEGAL_ACTION, "at most %d users muted", CHAT_MUTES_MAX);
		return;
	}
	bool change = mute ? i == cu->nmuted : i < cu->nmuted;
	/* Stored first: a mute that would not outlive a restart is refused. */
	struct store *st = conn_server(c)->store;
	if (change && store_mute_set(st, conn_user(c), who, mute) != STORE_OK) {
		log_warnx("chat: storing a mute: %s", store_error(st));
		dispatch_error(c, id, PE_STORAGE, "the mute could not be stored");
		return;
	}
	if (change && mute)
		mute_add(cu, who);
	else if (change)
		cu->muted[i] = cu->muted[--cu->nmuted];
	if (cu->nmuted == 0 && !cu->in_recent)   /* it holds nothing now (chat_sweep) */
		chat_user_drop(gs->chat, cu);
	if (change)
		lobby_muted(conn_server(c), conn_user(c), who, mute);
	dispatch_ok(c, id, NULL);
}

/* mutes {}: the users this one muted, by name (a client's list to show). */
static void cmd_mutes(struct conn *c, json_t *id, json_t *req)
{
	struct server *srv = conn_server(c);
	const struct chat_user *cu = chat_user(srv->games, conn_user(c), false);
	json_t *names = json_array();
	for (size_t i = 0; cu && i < cu->nmuted; i++) {
		char name[PROTO_NAME_MAX + 1];
		if (store_user_name(srv->store, cu->muted[i], name, sizeof name) != STORE_OK) {
			json_decref(names);
			log_warnx("chat: reading a muted user's name: %s", store_error(srv->store));
			dispatch_error(c, id, PE_STORAGE, "the mutes could not be read");
			return;
		}
		json_array_append_new(names, json_string(name));
	}
	dispatch_ok(c, id, json_pack("{s:o}", "muted", names));
}

static const struct field f_none[] = {
	{ NULL, 0, 0, 0 },
};

static const struct field f_say[] = {
	{ "game", F_INT, 1, CHAT_GAME_ID_MAX },
	{ "text", F_STRING, 1, ACTION_TEXT_IN_MAX },   /* the exact bound is checked after */
	{ NULL, 0, 0, 0 },
};
static const struct field f_tell[] = {
	{ "user", F_STRING, 1, PROTO_NAME_MAX },
	{ "text", F_STRING, 1, ACTION_TEXT_IN_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_list[] = {
	{ "from", F_INT, 0, DISPATCH_FROM_MAX },
	{ NULL, 0, 0, 0 },
};
static const struct field f_message_delete[] = {
	{ "message", F_INT, 0, CHAT_GAME_ID_MAX },   /* absent: all */
	{ NULL, 0, 0, 0 },
};
static const struct field f_user[] = {
	{ "user", F_STRING, 1, PROTO_NAME_MAX },
	{ NULL, 0, 0, 0 },
};

const struct cmd chat_cmds[] = {
	{ "say", 0, f_say, cmd_say },
	{ "spec", 0, f_say, cmd_spec },
	{ "tell", 0, f_tell, cmd_tell },
	{ "message", 0, f_tell, cmd_message },
	{ "messages", 0, f_list, cmd_messages },
	{ "message_delete", 0, f_message_delete, cmd_message_delete },
	{ "mute", 0, f_user, cmd_mute },
	{ "unmute", 0, f_user, cmd_mute },
	{ "mutes", 0, f_none, cmd_mutes },
	{ NULL, 0, NULL, NULL },
};
