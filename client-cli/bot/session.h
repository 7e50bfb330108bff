/*
 * session.h — one protocol session of krieg-bot (session.c): a TLS
 * connection to a kriegd (net.c, the terminal client's), logged in to one
 * account, playing each of its games with a bot (bot.h) fed only the
 * events addressed to it.  `play` runs one; `arena` runs two bots' and,
 * with an umpire account, a third holding the chair of the game being
 * played (arena.c).
 */
#ifndef KRIEG_BOT_SESSION_H
#define KRIEG_BOT_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "bot.h"
#include "client.h"   /* struct liveness: krieg's record of a connection's silence */
#include "local.h"
#include "net.h"
#include "proto.h"

#define SESS_GAMES_MAX 32        /* --max-games at most PLAY_GAMES_MAX, plus seeks taken at once */
#define PLAY_GAMES_MAX 16
#define PLAY_EXIT_REFUSED 3   /* play: the login was refused for good (systemd: RestartPreventExitStatus) */
#define PLAY_EXIT_UNTRUSTED 4 /* play: the server's certificate is not the one pinned for it */
#define SEEKS_MAX 16              /* the server's cap on one user's open offers */
#define TIMES_MAX 8
#define RULES_MAX 16

/*
 * A dead path (a phone's network gone, a NAT that forgot the connection:
 * no FIN, no RST) says nothing; only the server's silence tells.  The bot
 * decides as krieg does (client.h, liveness_step): when a request has
 * waited CLIENT_QUIET_MS for its answer, or a game here has heard nothing
 * for that long, a `ping` is sent; nothing at all from the server within
 * CLIENT_DEAD_MS after it, and the connection is taken for lost (said in
 * the journal): play reconnects as after any loss, well within the
 * server's abandonment grace.
 */

#define SESS_RATE_DEFAULT 15      /* play: tries a second at most (--rate); kriegd's default rate_limit
                                   * is 20 requests a second: the rest for the bot's other requests */
#define SESS_RATE_MAX 1000
#define SESS_RATE_BURST_MAX 20    /* tries at once after a quiet while (kriegd's default burst: 40) */
#define SESS_RATE_RECOVER_MS 10000 /* halved: one try a second more each this long without a refusal */
#define SESS_BOTS_MET_WAIT_MS 30000 /* a game against a bot aborted: no seek posted for this long */

/*
 * play: the tries of all its games, paced by a token bucket under the
 * server's request rate.  Unpaced, a bot at a short --movetime with
 * several games sent tries as fast as their answers came and was refused
 * rate_limited again and again.  A try refused so halves the rate (a
 * server set below the default), once for the tries in flight together:
 * a refusal of a try sent before the last halving changes nothing (every
 * game's refusal halving again took 15 to 1 in one burst).  Each
 * SESS_RATE_RECOVER_MS without a halving gives one a second back, up to
 * max.  rate 0: not paced (the arena, whose kriegd is set for it).
 */
struct sess_pace {
	int rate;                 /* tries a second; 0: not paced */
	int max;                  /* --rate: what it comes back to (0: rate) */
	double tokens;            /* up to min(rate, SESS_RATE_BURST_MAX) */
	int64_t at;               /* when tokens was counted (mstime_mono); 0: never (full) */
	int64_t changed_at;       /* the last halving or step back up (0: none) */
};

struct bgame {
	long id;
	struct bot *bot;
	/* The move or "any?" awaiting its answer (its request id; 0: none).
	 * Answers are matched by id: a refusal names no game, so matching by
	 * its "game" left the game waiting for an answer it had had. */
	long long req;
	int64_t req_at;           /* when it was sent (mstime_mono): a refusal's pacing */
	bool req_any;             /* that request is an "any?" */
	bool paused;              /* an umpire's clock_pause stands: nothing is tried until clock_unpaused */
	bool adjourned;           /* adjourned: nothing is tried until unadjourned */
	bool paging;              /* a resumed game's view has more pages to come: nothing is tried yet */
	bool aborting;            /* against another bot, aborted (sess: bots_met): nothing is tried */
	int64_t wait_until;
	int errors;
	long clock_ms;            /* our clock at the last event, -1 untimed */
	bool corr;                /* by correspondence: clock_ms is the move's deadline, days away */
	int64_t clock_at;         /* when clock_ms was read (mstime_mono) */
	long inc_ms;
	int ply;                  /* plies played, from the last event's "ply" */
	int decisions;            /* tries and "any?"s sent: a move takes several (clock_share) */
	int decision_ply;         /* the ply of its first decision on this connection */
	bool draw_offered;        /* arena: the ply cap's draw offer is sent */
	/* Our answer to a draw [0] or adjournment [1] offer, awaiting the
	 * server's (its request id; 0: none): the journal says it once taken
	 * (an offer a move withdrew meanwhile was said declined: bot probe). */
	long long offer_answer[2];
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
	long long cancel;         /* our `cancel` of it awaiting its answer; 0: none.  Until
	                           * answered it may still start a game (taken meanwhile) */
	long long cancelling;     /* the offer that cancel is for: still ours in a `seeks` list
	                           * read meanwhile (taken for an earlier run's: bot probe) */
	bool failed;              /* refused: not asked again this connection */
	bool seen;                /* in the `seeks` list being read */
	bool bot_open;            /* a guest's: another bot's seek it would meet is listed, so it
	                           * is not posted (two bots' seeks meeting: bot probe) */
};

/* A challenge that fits, waiting for seeks of ours to be withdrawn before
 * it is accepted (or declined, if one of them was taken meanwhile). */
struct held_challenge {
	long long offer;
	bool seek;                /* a player's open seek (taken, never declined) */
	char from[PROTO_NAME_MAX + 1];
	char rules[32];
	char time[32];            /* as krieg says it (words_time) */
};

/* A game held when the connection was lost: its colour, for the `welcome`
 * that may say it ended meanwhile. */
struct lost_game {
	long id;
	int color;
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
	int nrules;               /* 0: any (no --rules) */
	int max_games;
	/* Our `accept`s awaiting their answer: each is a game about to begin,
	 * counted against max_games with the live ones (challenges arriving
	 * together were all accepted while none had begun). */
	long long accepts[PLAY_GAMES_MAX];
	int naccepts;
	/* Challenges that fit, held until the seeks that would leave no room
	 * for them are withdrawn (counted against max_games too). */
	struct held_challenge held[PLAY_GAMES_MAX];
	int nheld;
	/* The live games the login's reply listed whose game_state has not
	 * come yet: counted against max_games before they are opened (a
	 * challenge waiting for the bot may reach it first). */
	long login_games[SESS_GAMES_MAX];
	int nlogin_games;
	/* The games held when the connection was last lost (sess_lost). */
	struct lost_game lost[SESS_GAMES_MAX];
	int nlost;
	struct tc times[TIMES_MAX];   /* time controls accepted and sought */
	int ntimes;               /* 0: any (seeks: untimed) */
	struct sess_pace pace;
	bool pace_waits;          /* a game to move waits for a token: the pump wakes for it */
	int try_turn;             /* the game (index in games) asked first for a try next time */
	struct seekslot seeks[SEEKS_MAX];
	int nseeks;               /* 0: seek nothing, only answer challenges */
	bool seeks_dirty;         /* a game began or ended, or we logged in: reconcile the seeks */
	bool seeks_orphans;       /* without --seek: the seeks an earlier run left still to be read
	                             (and cancelled) since the login; listed again if refused */
	long long seeks_req;      /* the `seeks` request being read; 0: none */
	long long watch_req;      /* --seek: the `lobby_watch` awaiting its answer; 0: none */
	/* The `games` request sent once the listing is read: a barrier, since
	 * kriegd answers it only after every game begun before it has been
	 * announced to us (PROTOCOL.md, Games): a seek missing from the
	 * listing was taken, and its game is counted, before seeks are posted. */
	long long games_req;
	bool seeks_unsettled;     /* a cancel of ours was refused (its seek taken?): held
	                           * challenges wait for the next listing and barrier */
	int seek_turn;            /* the slot tried first the next time a seek is posted */
	int64_t seeks_wait;       /* after a refused listing: not before this (mstime_mono) */
	int max_plies;            /* arena, player A: offer a draw at this many plies (0: never) */
	bool accept_draws;        /* arena, player B: accept every draw offer (the cap's) */
	const char *login_user, *login_password;
	/* A guest's session, resumed after a lost connection: a new `guest`
	 * would be someone else, and its games would be abandoned. */
	char token[PROTO_TOKEN_LEN + 1];
	long long resume_req;     /* the `resume` being answered; 0: none */
	struct bgame games[SESS_GAMES_MAX];
	/* The connection's liveness (see CLIENT_QUIET_MS), all mstime_mono():
	 * krieg's record of it (client.h), and the requests sent and not
	 * answered yet, and since when one has been. */
	struct liveness alive;
	int awaiting;
	int64_t await_since;
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

/* Send a request (consumed), numbered: its id; a failed send marks s dead. */
long long sess_send(struct sess *s, json_t *req);
/* sess_connect's answer when the server cannot be trusted (its certificate
 * is not the one pinned for it): trying again cannot change that. */
#define SESS_CONNECT_UNTRUSTED (-2)
/* Connect s to HOST[:PORT] and say hello: 0, -1 (said on stderr; worth
 * trying again), or SESS_CONNECT_UNTRUSTED (said, in full). */
int sess_connect(struct sess *s, const char *hostport, bool insecure, const char *known);
/* Read what arrived on every session (waiting at most timeout_ms), then act. */
void sess_pump(struct sess **ss, int n, int timeout_ms);
/* A game of s ends here: its bot freed, its slot emptied. */
void sess_game_close(struct sess *s, struct bgame *g);
/* s's connection was lost: every game closed (rebuilt from game_state at
 * the next login), remembered in s->lost; the number of games it had
 * (lost before a login: those of the last one). */
int sess_lost(struct sess *s);
/* play's wait before the next connection, given the last one (ms): the
 * first is SESS_RETRY_FIRST_MS, each after doubles up to
 * SESS_RETRY_MAX_MS, or up to SESS_RETRY_GAMES_MS while games may be at
 * stake (see session.c). */
#define SESS_RETRY_FIRST_MS 1000
#define SESS_RETRY_MAX_MS 60000
#define SESS_RETRY_GAMES_MS 2000
long sess_retry_ms(long last_ms, bool games);
/* Take a token for a try at `now` (mstime_mono): false if none is left
 * (p->rate 0: always true). */
bool sess_pace_take(struct sess_pace *p, int64_t now);
/* Milliseconds from now until a token is there (0: one is). */
long sess_pace_wait_ms(const struct sess_pace *p, int64_t now);
/* A try sent at `sent` was refused rate_limited at now: the bucket empty,
 * and the rate halved (1 at least) unless it changed after `sent`.  The
 * new rate. */
int sess_pace_slower(struct sess_pace *p, int64_t sent, int64_t now);
/* One line of play mode's journal (stderr: the service's journal). */
void sess_say(const struct sess *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "untimed"/"none", "Nd", "BASE+INC" or "BASE" (minutes, seconds of
 * increment; "1:40+0.5" too), read by timectl.h as krieg reads them: 0,
 * or -1 (and *out zeroed). */
int sess_tc_parse(const char *t, struct tc *out);
/* A decision's thinking budget from the clock (ms): a 40th of the time
 * left plus three quarters of the increment, shared among the
 * timed_games live at once (one thread thinks for them all), within
 * 20 ms .. 10 s. */
long sess_budget_ms(long left_ms, long inc_ms, int timed_games);
/* The budget of g's next decision in s (sess_budget_ms for a game on the
 * clock; an untimed or correspondence game's, bounded by those). */
long sess_budget(const struct sess *s, const struct bgame *g);
/* The order of s's game slots for the next decisions at time now: the
 * games on the clock by time left, then the rest in turn. */
void sess_turn_order(const struct sess *s, int64_t now, int order[SESS_GAMES_MAX]);
/* The first line of a password file, without its newline: NULL, or why
 * it could not be read ("No such file or directory", "it is empty"). */
const char *sess_read_password(const char *path, char *buf, size_t len);

#endif
