/*
 * client.h — the client's state and its two inputs: a command line typed
 * (or read in --batch) and a protocol line received.  No terminal and no
 * socket here: output goes through `print`, requests through `send`, and
 * the time through `now`, so the tests drive a client with no server and
 * count every byte it would send.
 *
 * client.c owns the state: games and their views, the seats it watches
 * from (seat.h: a spectator's seat, the umpire's chair), the requests in
 * flight, events, and the dispatch of commands and answers through the
 * command table (cmd.h), whose hooks say what each command does.
 */
#ifndef KRIEG_CLIENT_H
#define KRIEG_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cmd.h"
#include "ghost.h"
#include "proto.h"
#include "render.h"
#include "ruleset.h"
#include "seat.h"
#include "view.h"
#include "words.h"

/* Games tracked before the table grows: a finished game's slot is reused for a
 * new one, and the table grows only when every slot holds a live game (the
 * server caps no one's correspondence games, so neither does the client). */
#define CLIENT_GAMES_MIN 32
#define CLIENT_LOG_MAX 8        /* announcements kept per game for the status display */
#define CLIENT_PENDING_MAX 64   /* requests awaiting a response */
#define CLIENT_EVENTS_MAX 4096  /* event names kept for `wait` (batch) */
#define CLIENT_TOKEN_MAX 64     /* a resume token (PROTO_TOKEN_LEN is 43) */
#define CLIENT_PGN_MAX (4L << 20) /* a PGN fetched in chunks; longer ones are refused */
#define CLIENT_SEATS_MAX 8      /* games watched at once (spectator seats and umpire's chairs) */
#define CLIENT_FOLLOWS_MAX 32   /* players followed (the server's FOLLOW_PER_CONN) */
#define CLIENT_WAITING_MAX 8    /* challenges to us a login summary repeats whole */
/* Said after a login an admin's password left waiting (an account an admin
 * created or whose password an admin reset: the wire does not say which),
 * and at each request refused for it. */
#define CLIENT_PASSWD_HINT "An admin set this account's password: choose your own with " \
	"\"passwd\" (the old one is the password you were given) before anything else."
/* A dead path (a phone's network gone, a NAT that forgot the connection:
 * no FIN, no RST) says nothing; only the server's silence tells.  When a
 * request has waited CLIENT_QUIET_MS for its answer, or a live game has
 * heard nothing for that long, a `ping` is sent; nothing at all from the
 * server within CLIENT_DEAD_MS after it, and the connection is lost
 * (client_alive).  The server answers a ping at once, even behind a game
 * action awaiting its commit, unless the connection is held (PROTOCOL.md,
 * "Rate": a request waiting for a token, a replay waiting for its
 * address's debt, a long record read off the loop; a password being
 * hashed): such a hold lasts seconds, and one longer than CLIENT_QUIET_MS
 * + CLIENT_DEAD_MS is taken for a dead path, the connection made again. */
#define CLIENT_QUIET_MS 15000
#define CLIENT_DEAD_MS 10000
/* A connection's liveness as krieg and krieg-bot keep it (ms on one
 * monotonic clock): when the last line came (or the connection was made),
 * and the `ping` sent to ask, if one is out. */
struct liveness {
	long last_rx;
	bool probing;
	long probe_at;
};
/* A line came, or a new connection was made, at now: the path carries. */
void liveness_heard(struct liveness *l, long now);
/*
 * The decision of client_alive (and krieg-bot's): LIVENESS_LOST once
 * CLIENT_DEAD_MS passed after the ping; else quiet since the last line, or
 * since await_since (the oldest request awaited, when `awaiting`) if later;
 * past CLIENT_QUIET_MS while a game goes on here (`live`) or a request is
 * awaited, LIVENESS_ASK: the caller sends a `ping` (marked out from now).
 */
enum liveness_step { LIVENESS_OK, LIVENESS_ASK, LIVENESS_LOST };
enum liveness_step liveness_step(struct liveness *l, long now, bool live, bool awaiting,
                                 long await_since);
/* Chat said while one was away, shown from a rebuilt view (a reconnection's
 * game_state): the last this many lines not seen yet, the older counted. */
#define CLIENT_CHAT_CATCHUP 8
#define CLIENT_QUIT 1
#define CLIENT_HANDLED 2        /* an exec hook did all there was to do: nothing to send */

struct cgame {
	bool used;
	long id;
	int color;                          /* mine */
	const struct ruleset *rs;
	char name[2][PROTO_NAME_MAX + 1];   /* white, black */
	struct view view;
	struct ghosts ghosts;
	bool live;
	bool timed;
	bool paused;                        /* the umpire stopped the clocks, or the game is adjourned */
	bool adjourned;                     /* adjourned: nobody moves until "unadjourn" (the prompt says so) */
	long clock_ms[2];                   /* readings at clock_at */
	long clock_at;
	int draw_offer_from;                /* colour with a standing offer, or -1 */
	bool draw_declined;                 /* the view's last draw notice: the opponent declined mine
	                                     * (the login summary says it: the friends probe) */
	bool days;                          /* correspondence (days a move): `time` gives the deadline */
	bool tournament;                    /* a director's pairing: its players may not abort it */
	bool bot[2];                        /* the colours played by bot accounts (its "bots") */
	int quiet_left;                     /* nost: items of one's "if quiet" sequence the server is still
	                                     * to play on one's turns (no "your move" for them; a view
	                                     * rebuilt forgets it: a "your move" too many, never one missing) */
	bool quiet_stopped;                 /* the sequence sent last ended (quiet_ended) before its answer:
	                                     * its first item's own action stopped it (a review) */
	int plies;                          /* the most plies an announcement of it has said were played:
	                                     * from 2 on, both sides have moved (no abort) */
	/* A try of ours awaited its answer when the connection dropped: the view
	 * rebuilt after the reconnection says whether it was played (the friends
	 * probe: --plain only flipped its prompt).  try_lost_plies: g->plies when
	 * it was sent (pending.plies). */
	bool try_lost;
	int try_lost_plies;
	int own_move_ply, own_move_log;     /* the last own move apply_events read: its ply, its log
	                                     * line (g->log_n then); 0, -1: none */
	char log[CLIENT_LOG_MAX][WORDS_MAX];
	int log_n;                          /* total logged; the last CLIENT_LOG_MAX are kept */
	/* Said once the action's last announcement is in (client_flush), not on the
	 * first one: "your move" must not come before the same move's check. */
	bool turn_notice;
	bool rematch_notice;                /* the game ended: "rematch" offered, after the board */
	bool final_notice;                  /* the game ended with its true position: `final` shown */
	struct board final;                 /* game_over's fen: both sides' men, seen at the end */
	bool redraw;
	bool loading;                       /* the view's events continue in later pages */
	/* the opponent's last connection dropped (opponent_away): shown in the prompt */
	bool opp_away;
	long away_deadline;                 /* monotonic ms when the grace ends; 0: the game waits */
	/* The last chat line shown: its ply, and how many lines of that ply were
	 * shown (-1: none yet).  A rebuilt view (game_state after a reconnection,
	 * `game`) shows only the lines after it: chat said while one was away,
	 * none seen before the drop again.  view_chat_*: the same count for the
	 * view being read; chat_missed: its lines not seen yet, the last
	 * CLIENT_CHAT_CATCHUP of them, shown with the view (chat_missed_n in all):
	 * the mark moves to the view's last line only once the view is shown.
	 * live_*: the lines shown live while a view was coming in (said after
	 * it), placed after its last line then.  (A view cut short by another
	 * drop places nothing: its live lines may be shown once more.) */
	int chat_ply, chat_n;
	int view_chat_ply, view_chat_n;
	char chat_missed[CLIENT_CHAT_CATCHUP][WORDS_CHAT_MAX];
	int chat_missed_n;
	int live_ply, live_n;
	long low_said;                      /* --plain: the seconds last said left on one's clock (0: none) */
};

struct pending {
	long long id;
	const struct cmd_entry *cmd;        /* NULL: hello or a keep-alive ping */
	long game;                          /* the game it is about, or -1 */
	long arg;                           /* draw: the action; game/switch/record/pgn/watch/umpire/live:
	                                     * the page's `from`; an umpire's action: its enum cmd_type;
	                                     * pair: 1 when the director pairs himself */
	long sent_at;                       /* client_now() when it was sent (client_alive) */
	bool own;                           /* sent by krieg itself: no request of the user's went
	                                     * unanswered with it (client_disconnected) */
	int plies;                          /* a try's: its game's plies when it was sent (try_lost: a
	                                     * move heard after, its answer lost, is this try's) */
};

struct client {
	bool batch;                         /* print received lines verbatim; words nowhere */
	bool interactive;                   /* a person at a terminal: passwords are asked for, never typed
	                                     * on the line (it lands in the history); resign asks first */
	bool bell;                          /* BEL after "your move" and a challenge (krieg --bell): the
	                                     * terminal's alert while one looks at another window */
	/* krieg --plain, for screen readers: no clocks in the prompt (asked with
	 * `time`), no board after every move (`board`, `game` show it), and a
	 * word when one's own clock runs low (client_tick) */
	bool plain;
	struct render_opts ropts;
	char user[PROTO_NAME_MAX + 1];
	bool logged_in;
	bool login_here;                    /* this connection holds the login at the server: a
	                                       login's answer sets it, a dropped connection clears
	                                       it (logged_in stays, for the resume) */
	bool guest;                         /* logged in by `guest`: no coming back after quit */
	bool ended;                         /* the server ended the session (kick, password reset,
	                                     * account disabled): its close is not reconnected */
	long long next_id;
	struct pending pending[CLIENT_PENDING_MAX];
	int npending;
	struct cgame *games;                /* ngames slots (client_free frees them) */
	int ngames;
	long current;                       /* current game id, or -1 */
	struct seat seats[CLIENT_SEATS_MAX];
	long seat_current;                  /* the current seat's game id, or -1 */
	bool seat_focus;                    /* the prompt and `board` show the current seat, not the game */
	char on_login[CMD_LINE_MAX];        /* a command run once logged in (krieg watch GAME), or "" */
	/* What the server keeps for a connection only, asked again on the next
	 * one (a reconnection): the players followed, and the lobby watched. */
	char follows[CLIENT_FOLLOWS_MAX][PROTO_NAME_MAX + 1];
	int nfollows;
	bool lobby_watched;
	long last_challenge;                /* offer id of the last challenge received, or -1 */
	/* The challenges to us since the login (those waiting are sent first),
	 * as their lines said them: the login summary repeats them, since the
	 * games' boards scroll them away (the friends probe): the first
	 * CLIENT_WAITING_MAX. */
	struct {
		long offer;
		char line[WORDS_CHAT_MAX + 128];   /* the terms, a rematch's words, the hint */
	} waiting[CLIENT_WAITING_MAX];
	int nwaiting;
	/* resign / abort asked once at a terminal: the same command again (on the same game) confirms */
	enum cmd_type confirm;              /* CMD_NONE: nothing asked */
	long confirm_game;
	int errors;                         /* error responses and local errors so far */
	char refused_code[32];              /* the last refusal's error code, for refused hooks */
	char token[CLIENT_TOKEN_MAX + 1];   /* the session's resume token ("" = none) */
	/* the connection's liveness (client_alive): from client_hello on */
	struct liveness alive;
	/* an umpire's record arriving in pages: its true board, replayed from
	 * its umpire_move events, shown at the end (record GAME umpire) */
	struct board replay;
	bool replay_ok;
	bool replay_live;                   /* the record replayed is a live game's: its board is "now" */
	bool view_asked;                    /* a `game` or `switch` answer is being read: its board
	                                       is drawn with --plain too (asked for) */
	bool game_asked;                    /* ... a `game` answer, whose clocks' line says whose move */
	long following_said;                /* the game of the last "X began game N" said (following) */
	int record_ply;                     /* the last ply a record's events named: a draw offer,
	                                     * which names none, is numbered after it */
	/* a PGN arriving in chunks (one at a time) */
	bool pgn_busy;
	char *pgn;
	size_t pgn_len, pgn_cap;
	char pgn_file[CMD_ARG_MAX];
	/* received event names (batch `wait`): a log and a read cursor */
	char (*evnames)[24];
	size_t ev_n, ev_cursor;

	void (*print)(void *ctx, const char *text);  /* a message for the person; text has no final '\n' */
	void (*print_raw)(void *ctx, const char *line); /* batch: a received line, verbatim */
	int (*send)(void *ctx, const char *line);    /* one request line (no '\n'); 0 or -1 */
	int (*ask_password)(void *ctx, const char *prompt, char *buf, size_t len); /* 0 or -1 */
	long (*now)(void *ctx);                       /* monotonic ms */
	long long (*wall)(void *ctx);                 /* ms since the epoch; NULL: the system's */
	void *ctx;
};

void client_init(struct client *c);
void client_free(struct client *c);

/* The hello request (sent first on each connection, a reconnection's too):
 * the connection's silence (client_alive) is counted from here. */
int client_hello(struct client *c);

/*
 * One command line.  Returns 0, CLIENT_QUIT, or -1 after printing an error
 * (and counting it in c->errors).  Local commands never call send().
 */
int client_command(struct client *c, const char *line);

/* One received protocol line. */
void client_receive(struct client *c, const char *line);

/*
 * Deferred words: the board and "your move" of an action are shown after its
 * last announcement.  The client flushes them itself at a turn-start
 * announcement, at game_over and at a response; the caller flushes at the
 * end of what arrived together (no more lines for a moment).
 */
void client_flush(struct client *c);
bool client_deferred(const struct client *c);

/*
 * The connection is gone: requests in flight will never be answered.
 * Returns how many of the player's requests were dropped (pings not counted).
 */
int client_disconnected(struct client *c);

/*
 * Is the connection alive?  Called by the loops at least once a second,
 * with no line waiting.  When a request has had no answer for
 * CLIENT_QUIET_MS (counted from the later of its sending and the last line
 * received), or a live game here (one's own, or a watched one) has heard
 * nothing for that long, it sends a `ping` request; once one is out, any
 * line received is an answer.  False when nothing at all came within
 * CLIENT_DEAD_MS of that ping: the connection is lost (a dead path), and
 * the caller drops it as if the server had closed it.
 */
bool client_alive(struct client *c);
/* Does one play a game here that goes on? */
bool client_playing(const struct client *c);
/* ms since the last line from the server (or since the connection was made). */
long client_silent_ms(const struct client *c);

/* After client_hello() on a new connection: resume {token}.  0 sent, -1 no session to resume. */
int client_resume(struct client *c);

/* Does a request await its response? (batch mode reads the next command only when none does) */
static inline bool client_busy(const struct client *c) { return c->npending > 0; }

/* Batch `wait`: has an event named `name` arrived since the cursor?  Consumes it and everything before. */
bool client_take_event(struct client *c, const char *name);
/* Is `name` an event kriegd sends (PROTOCOL.md: the referee's
 * announcements and the server's own events)?  `wait` takes no other: a
 * name mistyped waited out its time (play probe).  The i-th of the
 * server's own, NULL past the last (tests: each is in PROTOCOL.md). */
bool client_event_known(const char *name);
const char *client_server_event_at(size_t i);

struct cgame *client_game(struct client *c, long id);
struct cgame *client_current(struct client *c);

/* The client's monotonic time (ms). */
long client_now(const struct client *c);
/* The wall clock, ms since the epoch (c->wall, else the system's). */
long long client_wall(const struct client *c);

/* A game's clock for `color` now, in ms (-1 untimed). */
long client_clock(const struct client *c, const struct cgame *g, int color);

/*
 * Called by the loop once a second or so: in --plain, where no clock ticks
 * in the prompt, one's own clock running low is said once at 30 seconds
 * and once at 10 ("#7: 30 seconds left on your clock"), on one's move.
 */
void client_tick(struct client *c);

/* The clocks of game g in words, for `time` and `game`: "#7: White 4:57, Black
 * 5:00; your move", or "#7: untimed; your move". */
void client_clocks_words(const struct client *c, const struct cgame *g, char *buf, size_t len);

/* The prompt: "[#12 White 4:59 · Black 5:00 · your move] krieg> ". */
void client_prompt(const struct client *c, char *buf, size_t len);
/* ms until the prompt's clocks show their next second (at most 1000): the
 * interactive loop wakes then, so a ticking clock never skips a second. */
long client_prompt_tick(const struct client *c);

/* The board of the current game with ghosts, and its recent announcements, into buf. */
void client_render(const struct client *c, const struct cgame *g, char *buf, size_t len);

/* --- for the command hooks (cmd.c) --- */

/* Words for the person (nothing in --batch: scripts read the protocol lines). */
__attribute__((format(printf, 2, 3)))
void client_out(struct client *c, const char *fmt, ...);
/* Words the person asked for (help): printed in --batch too. */
__attribute__((format(printf, 2, 3)))
void client_out_asked(struct client *c, const char *fmt, ...);
/* An error, printed even in --batch and counted in c->errors.  Returns -1. */
__attribute__((format(printf, 2, 3)))
int client_error(struct client *c, const char *fmt, ...);
void client_show_board(struct client *c, const struct cgame *g);
/* Both sides' men at a game's end (game_over's fen, an umpire's record), `bottom` nearest;
 * `live`: a live game's umpire's record, whose board is the position now.  --plain: in words. */
void client_show_true_board(struct client *c, const struct board *b, int bottom, bool live, long game);
/* Send a request built by the caller (borrowed), awaiting p->cmd's answer. */
void client_send_request(struct client *c, json_t *req, const struct pending *p);
/* Send {id, type, from[, game][, view]} (a page of a paged reply; game < 0: a list of no game), awaiting cmd's answer.
 * own: krieg's own request (pending.own), as a later page of one is. */
void client_send_page(struct client *c, const char *type, const struct cmd_entry *cmd, long game,
                      const char *view, long from, bool own);
/* Logged out, or logged in as someone else: nothing of the last user's games stays on screen. */
void client_forget_games(struct client *c);
/* Seats: the one of game id, or NULL; a slot for a new one (reused if held); drop one. */
struct seat *client_seat(struct client *c, long id);
struct seat *client_seat_slot(struct client *c, long id);
void client_seat_drop(struct client *c, long id);
/* The chair the umpire's commands act on: the current seat if it is a chair, else the only chair held. */
struct seat *client_chair(struct client *c);
/* The view of a seat (its board for the chair), printed. */
void client_show_seat(struct client *c, const struct seat *s);
/* A seat's catch-up is in: the live events held meanwhile (seat_hold),
 * handled in order as they would have been. */
void client_seat_loaded(struct client *c, struct seat *s);
/* The players away as a seat's reply says (`away`), told as opponent_away would be. */
void client_seat_away(struct client *c, struct seat *s, const json_t *away);
/* Drop a PGN arriving in chunks. */
void client_pgn_reset(struct client *c);
/* A page of a game's view: the answer to game and switch (switch makes it current). */
void client_game_answer(struct client *c, const json_t *msg, const struct pending *p);

#endif
