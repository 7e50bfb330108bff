/*
 * recover.h — rebuilding a game from its stored record, checked.
 *
 * A game's record is its actions and, for each, the announcements that
 * were sent.  recover_verify() replays the actions through a fresh referee
 * and requires the replay's events to equal the stored ones, action by
 * action, field by field (the SAN text is not stored and is not compared:
 * it is derived from the move, which is).  A record that fails is not
 * trusted: the caller flags it (store_game_flag), logs it, and does not
 * resume the game; nothing in the record is changed.
 *
 * Every action goes to the referee through referee_apply() (action.h),
 * the one path live play, record views and PGN take too.
 *
 * recover_games() is the daemon's start-up: every unfinished game is
 * verified, its clocks are brought to where they stand now (see there),
 * and handed to the live-game layer (game.c) to resume, or reported as
 * flagged.  The live-game layer only installs what it is given.
 */
#ifndef KRIEG_RECOVER_H
#define KRIEG_RECOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "announce.h"
#include "event.h"
#include "store.h"

struct referee;

/* store_state keys: a daemon with live games records that it is alive
 * (game.c's heartbeat), and each restart's clock readings are a server
 * umpire action of this kind after the record's last action. */
/* What a flagged game's players and readers are told of why (flag_reason,
 * game_flagged): the check's own words ("seq 3: event 1 (move) differs in
 * move (stored 2356, replay 2291)") named the opponent's stored move, so
 * they go to the log alone (hostile-input probe). */
#define RECOVER_FLAGGED_SAY "its record failed its check when the server started (the server's log says where)"

#define RECOVER_ALIVE_KEY "alive_ms"
/* The heartbeat is a lease: each records "alive until" its time plus this
 * (a heartbeat's period, GAME_HEARTBEAT_MS, and room for its commit), and
 * so does a start with timed games and a game's start, before any clock
 * reading goes out.  Every reading a player was shown is then within the
 * stored lease, and a restart, charging the mover up to it, never hands
 * back time a player saw run (deploy/BACKUP.md).  A clean stop records
 * its exact time instead. */
#define RECOVER_ALIVE_LEASE_MS 1500
/* Correspondence clocks (days a move) have a lease of their own, longer
 * and written seldom (GAME_DAYS_HEARTBEAT_MS): a daemon whose only
 * running clocks count days would otherwise write a row and flush the
 * disk every second for as long as those games last (weeks), to keep a
 * precision of a second nobody's days need.  A restart charges such a
 * mover up to that lease: at most its length of the downtime.  A
 * database from before it has only RECOVER_ALIVE_KEY, which such games
 * then go by. */
#define RECOVER_ALIVE_DAYS_KEY "alive_days_ms"
#define RECOVER_ALIVE_DAYS_LEASE_MS 60000
/* The two leases, by the clock they are for: recover_lease_kind(days). */
enum { RECOVER_LEASE_CLOCK = 0, RECOVER_LEASE_DAYS = 1, RECOVER_LEASES = 2 };
static inline int recover_lease_kind(int64_t days)
{
	return days > 0 ? RECOVER_LEASE_DAYS : RECOVER_LEASE_CLOCK;
}
static inline const char *recover_lease_key(int kind)
{
	return kind == RECOVER_LEASE_DAYS ? RECOVER_ALIVE_DAYS_KEY : RECOVER_ALIVE_KEY;
}
static inline int64_t recover_lease_ms(int kind)
{
	return kind == RECOVER_LEASE_DAYS ? RECOVER_ALIVE_DAYS_LEASE_MS : RECOVER_ALIVE_LEASE_MS;
}
#define RECOVER_RESUME_KIND "resume"

/*
 * The clock of those stored times (an action's and a restart's at_ms, the
 * alive lease), ms since the epoch: the wall clock as read at this
 * process's first call, advanced by the monotonic clock since.  A restart
 * charges the mover the difference of two of them, so within one run
 * that difference must be monotonic time: a wall-clock step while the
 * daemon runs (`date -s`, NTP stepping a badly set clock) would otherwise
 * be charged to the mover (a step forward, up to a flag fall) or refunded
 * (a step back) at the next restart.  Across runs it is wall time, as it
 * must be: the lease outlives the process, and the monotonic clock's zero
 * does not outlive the machine.  A step made while the daemon runs reaches
 * these stamps at its next start.  Main thread only.
 */
int64_t recover_clock_ms(void);

/* A verified replay: the rebuilt referee and what the live game needs. */
struct recover_result {
	struct referee *ref;           /* owned by the caller once returned */
	struct action *acts;           /* the applied (ok) actions, in order */
	unsigned char *heard;          /* for each, who heard something of it or is told of
	                                * it later (AUD_ bits: announce_heard,
	                                * ruleset_told_later) */
	int *seq;                      /* for each, its seq */
	size_t nacts;
	int last_seq;                  /* seq of the last action, 0 if none */
	int heard_seq[HEARD_LISTS];              /* of the last action each player (and the
	                                * spectators) heard anything of (announce.h) */
	int64_t clock_ms[2];           /* both clocks after the last action; -1 if none */
	int64_t last_at_ms;            /* wall clock of the last action (ms since the epoch) */
	struct action_record_state rec; /* offers, pause, adjournment after it (action.h) */
};

enum recover_status {
	RECOVER_OK = 0,
	RECOVER_MISMATCH = 1,   /* the record is inconsistent: flag it */
	RECOVER_STORE = 2,      /* the store could not be read (not the record's fault) */
};

/* Replay and check game g (its row as read from the store).  On RECOVER_OK
 * *out holds the result (free it with recover_result_free); otherwise err
 * says what failed, e.g. "seq 7: event 2 differs in type (stored illegal, replay
 * move)", and *out is empty. */
int recover_verify(struct store *st, const struct store_game *g, struct recover_result *out,
                   char *err, size_t errlen);
void recover_result_free(struct recover_result *r);

/* Verify and, on a mismatch, flag the game and log it (a warning naming the
 * game and the reason).  Returns RECOVER_OK with *out filled, or the status.
 * A game flagged earlier is not replayed again: RECOVER_MISMATCH. */
int recover_game(struct store *st, const struct store_game *g, struct recover_result *out);

/* The record's applied (ok) actions of game, in order: *v (free it) and
 * *n.  RECOVER_STORE if the store fails, RECOVER_MISMATCH for a stored
 * kind no action has; *v NULL and *n 0 then. */
int recover_actions(struct store *st, int64_t game, struct action **v, size_t *n);
/* The same through the action of seq `through` (a record only grows: the
 * record as it stood when its last seq was read). */
int recover_actions_through(struct store *st, int64_t game, int through, struct action **v,
                            size_t *n);

/* What recover_games() hands over. */
struct recover_ops {
	/* A verified game to resume.  rr->clock_ms are the clocks as they
	 * stand at this restart (-1 for an untimed game without readings);
	 * the callee takes rr->ref (sets it NULL); the caller frees the rest. */
	void (*resume)(void *arg, const struct store_game *g, struct recover_result *rr);
	/* A game whose record failed its check, now or at an earlier start.
	 * reason says where (logged): not for the wire, where it may name what
	 * a player was not told (a stored move's squares); RECOVER_FLAGGED_SAY is. */
	void (*flagged)(void *arg, const struct store_game *g, const char *reason);
};

/*
 * Start-up: verify every unfinished game and hand it to ops.  Clocks
 * resume from their readings at the last action (or at the last restart
 * since it), less the time the side to move thought while the daemon was
 * still alive (up to the lease of its last heartbeat, RECOVER_ALIVE_KEY,
 * or RECOVER_ALIVE_DAYS_KEY for a correspondence game, and never past this start, unless this start comes before the lease was
 * written: the wall clock went back while the daemon was down, and the
 * whole lease is charged); the downtime after that is charged to
 * nobody.  A game an umpire paused (or the
 * players adjourned) charges
 * nothing at all: its readings are those of the last action (the pause,
 * or added time during it), and it resumes paused.  The readings of this restart are
 * recorded (RECOVER_RESUME_KIND) so a later restart before the next action
 * counts from here.  Returns 0, or -1 if the store cannot be read.
 */
int recover_games(struct store *st, const struct recover_ops *ops, void *arg);

#endif
