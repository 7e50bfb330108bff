/*
 * seat.h — a game this client watches: a spectator's seat or the umpire's
 * chair (PROTOCOL.md, "Watching").
 *
 * A seat is built from what the server sent to it and nothing else: the
 * reply to `watch`/`umpire` (its catch-up pages) and the live events after
 * it.  A spectator's seat has no board at all and keeps no move: even a
 * copy the server should never have sent it (a `move`, an `umpire_move`,
 * a `board`) is not shown, so a client bug elsewhere cannot turn a
 * spectator into a kibitzer.  The chair keeps the true board (`fen`,
 * `board` events), each side's last try with its ruling, who heard each
 * announcement, and the players' connection state.
 *
 * Pure: no client, no output.  `now` (monotonic ms) is passed in, so the
 * tests drive clocks without waiting.
 */
#ifndef KRIEG_SEAT_H
#define KRIEG_SEAT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "board.h"
#include "proto.h"
#include "render.h"
#include "ruleset.h"
#include "words.h"

#define SEAT_LOG_MAX 12                 /* announcements kept for the view */
#define SEAT_LINE_MAX (WORDS_MAX + 64)  /* one logged line: words and who heard them */
#define SEAT_VIEW_MAX (RENDER_BOARD_MAX + SEAT_LOG_MAX * (SEAT_LINE_MAX + 4) + 1024)

struct seat {
	bool used;
	long id;
	bool umpire;                        /* the chair; else a spectator's seat */
	const struct ruleset *rs;
	char name[2][PROTO_NAME_MAX + 1];   /* white, black */
	bool rated;
	bool bot[2];                        /* the colours bot accounts play (the reply's "bots") */
	bool away[2];                       /* a player away, as opponent_away told (client.c) */
	bool loading;                       /* catch-up pages still coming */
	json_t *held;                       /* live events that came meanwhile (seat_event): the
	                                     * later pages end where the first began (PROTOCOL.md,
	                                     * Watching), so they are applied after the last
	                                     * (client_seat_loaded); they were dropped (the web probe) */
	bool over;                          /* game_over heard: the server has closed the seat */
	bool redraw;                        /* the chair's board changed: show it once the batch is in */
	/* clocks: readings at clock_at (monotonic ms); the side to move's runs unless paused */
	bool timed, paused;
	bool adjourned;                     /* paused by the players' adjournment, not an umpire */
	long clock_ms[2], clock_at;
	int ply, to_move;
	int first;                          /* the side to move at ply 0 (a start FEN may say Black) */
	long heard;                         /* announcements received, catch-up included */
	int draw_offer_from;                /* -1: none standing */
	uint8_t hand[2][8];                 /* crazykrieg: both reserves (public), from captures and drops */
	/* the chair only */
	bool has_board;
	struct board board;                 /* the true board */
	bool connection_known, connected[2];
	char last_try[2][WORDS_MAX];        /* "Nf3: played", "e2e5: illegal", "" */
	char log[SEAT_LOG_MAX][SEAT_LINE_MAX];
	int log_n;                          /* total logged; the last SEAT_LOG_MAX are kept */
};

/* What one live event did (bits). */
enum seat_effect {
	SEAT_QUIET = 0,
	SEAT_SAID = 1,      /* words were written: show them */
	SEAT_ENDED = 2,     /* the game is over */
};

/* A seat from the first page of a watch/umpire reply; loading while it has "next". */
void seat_begin(struct seat *s, const json_t *reply, bool umpire, long now);

/* A later page of the catch-up: its events, and the state as of that page. */
void seat_page(struct seat *s, const json_t *reply, long now);

/*
 * One live event of the seat's game.  Returns enum seat_effect bits; the
 * words (if any) in buf.  Nothing while the catch-up is still loading: the
 * client holds those (seat_hold) and hands them over after it
 * (client_seat_loaded).
 */
unsigned seat_event(struct seat *s, const json_t *msg, long now, char *buf, size_t len);

/* Keep a copy of msg, an event of the seat's game, in s->held. */
void seat_hold(struct seat *s, const json_t *msg);

/* What a seat holds freed, and the seat cleared (unused). */
void seat_clear(struct seat *s);

/* The clock of color now, ms; -1 untimed. */
long seat_clock(const struct seat *s, int color, long now);

/* The whole view: heading, the chair's board, clocks, last tries, recent announcements. */
void seat_render(const struct seat *s, const struct render_opts *ro, long now, char *buf, size_t len);

/* "[#12 watching | White 4:59 | Black 5:00 | White to move] > " */
void seat_prompt(const struct seat *s, long now, char *buf, size_t len);

/* "watching" or "umpire", for messages */
const char *seat_kind(const struct seat *s);

/* The prompt's word: seat_kind while the game goes on, "chair closed" or
 * "seat closed" once it is over (nothing is held then). */
const char *seat_prompt_kind(const struct seat *s);

#endif
