/*
 * harness_game.h — games on top of harness.h (players: struct kp,
 * kp_guest, kp_resume there), for the game, batch, timing, recovery,
 * storage and history tests.
 *
 * The tests keep their own referee (the rules core links into every test
 * binary): a game's expected announcements for one audience are computed
 * by replaying the actions the test saw acknowledged, and compared with
 * what kriegd serves, object by object.
 */
#ifndef KRIEG_HARNESS_GAME_H
#define KRIEG_HARNESS_GAME_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "harness.h"

/*
 * A game's actions are kept as the server's record keeps them, struct
 * action (common/action.h): a try by a colour, an ending from outside the
 * board (ACTION_END, the reason's wire name: "resignation"), ...  The
 * local replay applies them with referee_apply, the one way a record's
 * action is applied, after an implicit "begin".
 */

/* action_set, asserting it took (a known kind, a text that fits). */
void kg_action(struct action *a, int kind, int color, const char *text);

/* white seeks as white, black accepts: the game id. */
int64_t kg_new_game(struct kp *white, struct kp *black);
/* The same with a clock (icc): base and increment in seconds. */
int64_t kg_new_timed_game(struct kp *white, struct kp *black, int base_s, int inc_s);
/* c's `game` request for game says it is over, with this result and reason. */
void kg_assert_ended(struct kc *c, int64_t game, const char *result, const char *reason);

/* Every event of `game` as kriegd serves it: request `type` ("game" or
 * "record"; view: NULL for "game") page by page.  A new reference; NULL if
 * the request failed (*code, if given, gets the error code). */
json_t *kg_fetch_events(struct kc *c, const char *type, int64_t game, const char *view,
                        char *code, size_t codelen);
/* The whole PGN of game (view NULL: the default), chunk by chunk; NULL
 * (code set) when refused.  The caller frees it. */
char *kg_fetch_pgn(struct kc *c, int64_t game, const char *view, char *code, size_t len);

/* The events audience `aud` (AUD_ bits) hears when the referee of `rules`
 * replays begin + acts[0..n) (icc default start).  A new reference. */
json_t *kg_expected(const char *rules, const struct action *acts, size_t n, int64_t game,
                    unsigned aud);

/* A random attempt for the side to move after begin + acts: one of the
 * moves referee_possible() offers (so the referee rules on it: legal or
 * illegal, never refused as a request), as an ACTION_TRY in coordinates.
 * Returns the colour to move, or -1 if the game is over (*out untouched).
 * seed: a rand_r() state. */
int kg_random_try(const char *rules, const struct action *acts, size_t n, unsigned *seed,
                  struct action *out);
/* Is the game over after begin + acts? */
int kg_over(const char *rules, const struct action *acts, size_t n);

/* The kriegd binary the harness runs (for subcommands like `backup`). */
const char *kg_kriegd_path(void);
/* Run kriegd with argv (argv[0] is filled in), wait up to timeout_ms;
 * returns the exit status (or 128+signal), -1 on timeout; its stderr in
 * out (NUL-terminated, cut to outlen). */
int kg_run_kriegd(char *const argv[], int timeout_ms, char *out, size_t outlen);
/* kg_run_kriegd with `input` on its stdin, in a session of its own (no
 * terminal: a prompt fails rather than hangs). */
int kg_run_kriegd_input(char *const argv[], const char *input, int timeout_ms, char *out,
                        size_t outlen);

/* Wait for an offline `kriegd user ...` run before calling it hung. */
#define KG_USER_TIMEOUT_MS 30000

/* `kriegd --state-dir DIR user ARGS...` (args NULL-terminated, at most 24)
 * with input (NULL: none) on its stdin, as kg_run_kriegd_input: its exit
 * status; its stdout+stderr in out unless out is NULL. */
int kg_user_argv(struct kd *d, const char *input, char *out, size_t outlen,
                 const char *const args[]);
#define kg_user(d, input, out, outlen, ...) \
	kg_user_argv((d), (input), (out), (outlen), (const char *const[]){ __VA_ARGS__, NULL })

/* An account made offline (`user add NAME --role ROLE --password-stdin`),
 * asserting it took. */
void kg_user_add(struct kd *d, const char *name, const char *role, const char *password);

/* A new connection logged in as name (asserted ok, and not waiting for a
 * password change); the session token copied to token unless NULL. */
struct kc *kg_login(struct kd *d, const char *name, const char *password, char *token,
                    size_t len);
/* p logged in as name on a new connection (p->c, p->name). */
void kp_login(struct kd *d, struct kp *p, const char *name, const char *password);

/* A game between w (White) and b with a long record, made fast: White
 * plays e4, then u (logged in, an umpire) takes the chair and writes
 * `notes` notes, "n0", "n1", ..., every third private, 100 requests at a
 * time (the daemon's rate limit must allow that).  The game stays live.
 * Returns it. */
int64_t kg_noted_game(struct kd *d, struct kp *w, struct kp *b, struct kp *u, int notes);
/* Requests of `type` the daemon has read so far, by its debug log
 * ("request type=", logged as the handler runs: the daemon must run with
 * log_level = debug). */
int kg_reads(struct kd *d, const char *type);
/* Wait (asserting) until it has read more than `before` of them: the last
 * one handled, so that what any connection sends after is read after it.
 * Two connections' lines come in no set order: a sleep is no proof. */
void kg_read(struct kd *d, const char *type, int before);
/* Two commits held in turn by another process's lock (returned;
 * kd_unlock_db lets it go): p1's move m1 in game g1, with the writer and
 * held, then p2's m2 in game g2, taken into the next commit; their request
 * ids into ids.  Under a short busy_timeout the first fails (`storage`)
 * and the next is held in its turn.  The daemon must log at debug level
 * (kg_read). */
struct sqlite3 *kg_held_in_turn(struct kd *d, struct kp *p1, int64_t g1, const char *m1,
                                struct kp *p2, int64_t g2, const char *m2, long long ids[2]);
/* Those notes alone, by u in the chair of game. */
void kg_notes(struct kp *u, int64_t game, int notes);
/* The same between two guests, with an umpire account `umpire` made for
 * it, then White resigns: a finished game, whose record anyone may read. */
int64_t kg_long_record(struct kd *d, const char *umpire, int notes);
/* Settings (for kd_reload) under which the first read of a record of
 * KG_HOLD_NOTES notes holds its reader at least KG_HOLD_MIN_MS: at 10 rows
 * a token the replay costs over 120 tokens, which a bucket of 10 refilled
 * at 50 a second pays back in about 2.3 s. */
#define KG_HOLD_NOTES 1200
#define KG_HOLD_CONF "rate_limit = 50\nrate_burst = 10\nrate_rows = 10\n"
#define KG_HOLD_MIN_MS 1500

#endif
