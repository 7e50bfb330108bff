/*
 * line.h — one krieg-referee action line, shared by the normal mode
 * (main.c) and topgn (pgn_cmd.c) so both read a line alike: its words,
 * and the record's action (action.h) it stands for.
 */
#ifndef KRIEG_REFEREE_LINE_H
#define KRIEG_REFEREE_LINE_H

#include <jansson.h>
#include <stddef.h>

#include "action.h"

/* Why the len bytes of a line read (getline's) are refused whole before
 * any word is read, or NULL: a NUL byte in it, which would cut it short. */
const char *line_check(const char *line, size_t len);

/* "white" or "black" as a colour, else -1. */
int line_side(const char *word);

enum line_kind {
	LINE_ACTION,     /* *a is the line's action */
	LINE_EMPTY,      /* no word at all (e.g. only commas) */
	LINE_POSSIBLE,   /* "possible": the tool's own question, not an action */
	LINE_BAD,        /* not an action: *status and *msg say why */
};

/*
 * Read one action line (split in place into words at spaces, tabs, commas
 * and semicolons) in the normal mode's language as the action of `side`
 * (the side to move): a try; several tries = a preference list; "quiet M1
 * M2 ..."; "any"; "resign [white|black]"; "draw [white|black]" (a draw
 * offer: line_record makes it an acceptance where kriegd does).
 * The moves go into the action by action_set_list, so they are joined and
 * counted by the record's one rule: a word "e.p." or "ep" is the suffix of
 * the move before it ("exd6 e.p." is the one try exd6).  A keyword with
 * words after it that it does not take ("draw please", "any x") is
 * LINE_BAD, never a list.  Returns an enum line_kind.
 */
int line_action(char *line, int side, struct action *a, int *status, const char **msg);

/*
 * Before a line's action *a goes to r, the game's record state being s:
 * the rules kriegd applies between actions.  A draw offer while the
 * opponent's stands becomes its acceptance ("end agreement"), as kriegd
 * makes it; then NULL, or why kriegd would refuse the action
 * (action_record_refusal: an agreement with no offer standing, ...; an
 * impossible try sent again in its turn: referee_action_repeats_impossible),
 * with *status the referee's code for it (REF_E_UNSUPPORTED, or
 * REF_E_ALREADY_TRIED), so that the tool records only what kriegd could
 * have.  After applying it, the caller moves s on (action_record_next).
 */
const char *line_record(const struct action_record_state *s, struct referee *r, struct action *a,
                        int *status);

/*
 * What kriegd announces for an applied action that the referee itself
 * announces nothing for: a draw offer or its refusal, kriegd's
 * `draw_offer` / `draw_declined` notice to both players and the umpire
 * (server/announce.c), as an event line: {"event":"draw_offer","by":
 * "white","ply":P,"audience":[...],"say":...} (it printed nothing: the
 * referee probe).  ply: the plies played when it was made.  A new
 * reference, or NULL for any other action; *aud its audience (AUD_ bits).
 */
json_t *line_notice(const struct action *a, int ply, unsigned *aud);

#endif
