/*
 * action.h — one entry of a game's record, and the one way to apply it.
 *
 * A game is its start (rule set, FEN) and the ordered list of actions
 * applied to its referee.  The record is stored by the server, replayed
 * on recovery and by every record view, exported and re-imported as PGN
 * and driven by the tests; all of them read an action through this
 * module, so one record means one game everywhere.
 *
 * An action is a kind, the colour that acted and a text:
 *   begin   the opening announcements (referee_begin); text ""
 *   try     one attempt, in any accepted notation (notation.h)
 *   list    nost: a preference list; quiet: an "if quiet" sequence.  The
 *   quiet   items are joined by single spaces (action_set_list); a spaced
 *           "e.p." belongs to the item before it (notation_join_list), so
 *           "exd6 e.p. Nf3" is two items.  1 to REFEREE_LIST_MAX items:
 *           more, or none, is REF_E_TOO_MANY — never a truncation.
 *   any     "Any?"; text ""
 *   end     an ending from outside the board; text is the reason's wire
 *           name (game_reason_name: "resignation", "agreement", ...).
 *           color is the side the reason is about (-1 allowed for
 *           agreement and aborted)
 *   draw    a draw offer or its decline (text "offer" / "decline"): a
 *           notice between the players the referee announces nothing for;
 *           it needs a game in progress and a colour.
 * Umpire actions (server/watch.c takes them; color -1 unless said): the
 * text is the umpire's reason, normalised by action_umpire_text, after a
 * first word where the kind needs one:
 *   pause    "REASON"            both clocks stop
 *   unpause  "REASON"            the side to move's clock runs again
 *   addtime  "SECONDS REASON"    color: the side whose clock gains 1..86400 s
 *   adjudge  "RESULT REASON"     RESULT "1-0", "0-1" or "1/2-1/2": the game
 *                                ends, REASON_ADJUDICATION
 *   uabort   "REASON"            the game ends with no result, REASON_ABORTED,
 *                                at any point (a player's abort is "end aborted")
 *   note     "public REASON" or "private REASON": a message to everyone, or
 *                                a note only umpires see
 * pause, unpause, addtime and note are notices like draw: the referee
 * announces nothing for them and only checks the game is in progress;
 * what they do to the clocks is the server's (action_paused, server/clock.h).
 * Chat (server/chat.c takes them): notices too, the referee announces
 * nothing for them; the text is action_umpire_text's normal form (valid
 * UTF-8, no control characters, 1 to ACTION_REASON_MAX bytes):
 *   say      "TEXT"              color: the player who spoke; heard by both
 *                                players, the spectators and the umpires
 *   spec     "NAME TEXT"         color -1: a spectator's words (NAME, one word,
 *                                the account that spoke) on the spectators'
 *                                channel: spectators and umpires only, never
 *                                a player of the live game
 * Adjournment (game_cmd.c takes them; PROTOCOL.md "Adjournment"): notices
 * like draw, the referee announces nothing for them and only checks the
 * game is in progress and the colour; color is the player who acted:
 *   adjourn  "offer"             an offer to adjourn, made to the opponent
 *            "agree"             the opponent's offer taken: the game is
 *                                adjourned (clocks stop, never abandoned)
 *            "decline"           the opponent's offer refused
 *   unadj    ""                  an adjourned game resumed: the side to
 *                                move's clock runs again
 * The server allows them only in a timed game, "agree"/"decline" only
 * against a standing offer, unadj only while adjourned with both players
 * connected; the record keeps only what was taken (action_adjourned,
 * action_adjourn_offer give the state after each).
 * Later kinds are appended to the enum and the name table; stored names
 * never change.
 */
#ifndef KRIEG_ACTION_H
#define KRIEG_ACTION_H

#include <stdbool.h>
#include <stddef.h>

#include "event.h"
#include "referee.h"

/* Values are this module's only: the record stores the NAME
 * (action_kind_name), so they may be reordered; names never change. */
enum action_kind {
	ACTION_BEGIN = 0,
	ACTION_TRY,
	ACTION_LIST,
	ACTION_QUIET,
	ACTION_ANY,
	ACTION_END,
	ACTION_DRAW,
	ACTION_PAUSE,                /* umpire actions (the header comment) */
	ACTION_UNPAUSE,
	ACTION_ADDTIME,
	ACTION_ADJUDGE,
	ACTION_UABORT,
	ACTION_NOTE,
	ACTION_SAY,                  /* chat (the header comment, "Chat") */
	ACTION_SPEC,
	ACTION_ADJOURN,              /* adjournment (the header comment) */
	ACTION_UNADJ,
	ACTION_KIND_COUNT
};

#define ACTION_TEXT_MAX 256      /* bytes of text with its NUL (= store_action.text) */
#define ACTION_KIND_NAME_MAX 8   /* longest kind name with its NUL (= store_action.kind) */

struct action {
	int kind;                    /* enum action_kind */
	int color;                   /* WHITE, BLACK, or -1 */
	char text[ACTION_TEXT_MAX];
};

/* "begin", "try", ...; NULL for a value out of range. */
const char *action_kind_name(int kind);
/* The kind of a stored name, or -1. */
int action_kind_parse(const char *name);

/*
 * Fill *a from its parts.  Returns REF_OK, or REF_E_BAD_ARGUMENT for an
 * unknown kind name or a text that does not fit (never truncated); what
 * the text means is referee_apply's to judge.
 * action_parse takes the kind by name, as the record stores it.
 */
int action_set(struct action *a, int kind, int color, const char *text);
int action_parse(struct action *a, const char *kind, int color, const char *text);

/*
 * A list or quiet action from its items: joined as the record keeps them.
 * REF_E_TOO_MANY for no item or more than REFEREE_LIST_MAX attempts,
 * REF_E_SYNTAX for an item that is empty or holds a space (a record item
 * is one word), REF_E_BAD_ARGUMENT if the text would not fit.
 */
int action_set_list(struct action *a, int kind, int color, const char *const *items, size_t n);

/*
 * THE list splitting rule: split a list or quiet action's text into its
 * attempts, in buf (ACTION_TEXT_MAX bytes).  A spaced "e.p." is joined to
 * the attempt before it.  REF_E_TOO_MANY for none or more than
 * REFEREE_LIST_MAX; REF_OK with *n items otherwise.
 */
int action_split(const char *text, char buf[ACTION_TEXT_MAX],
                 const char *items[REFEREE_LIST_MAX], size_t *n);

/*
 * Apply one action to a referee: the only place a record's action becomes
 * a referee call, used by live play, rebuilds, recovery, record views, PGN
 * and the tests.  The referee's contract holds: REF_OK with events
 * appended to out, or a status with nothing changed and nothing appended.
 */
int referee_apply(struct referee *r, const struct action *a, struct evlist *out);

/* Does a (a try, a list, a quiet sequence's first try) ask again a try
 * ruled impossible this turn (referee_impossible_again)?  The server's
 * refusal, never the referee's: records made before hold such repeats. */
bool referee_action_repeats_impossible(struct referee *r, const struct action *a);

/*
 * The draw-offer lapse rule: the colour with a standing draw offer after
 * action a, given the offer standing before it (-1 for none) and the
 * plies played before and after it.  A "draw offer" action makes one; a
 * decline withdraws it; it lapses when the side it was made to plays a
 * move (refused tries do not end it), its own or one made for it in the
 * offerer's action (nost's "if quiet" move after the offerer's).
 */
int action_draw_offer(int offer, const struct action *a, int plies_before, int plies_after);

/* ---- umpire actions ---- */

#define ACTION_REASON_MAX 200            /* bytes of an umpire's reason or note */
/* Bytes such a text, a chat message or a decline's reason may have as it
 * comes, before it is normalised (text_words: ends trimmed, invisible
 * characters dropped); ACTION_REASON_MAX is checked after. */
#define ACTION_TEXT_IN_MAX (4 * ACTION_REASON_MAX)
#define ACTION_ADDTIME_MAX_S 86400       /* most seconds one addtime gives */

/* Is this kind an umpire's? */
bool action_is_umpire(int kind);

/*
 * An umpire's reason as the record keeps it: valid UTF-8 without control
 * characters, spaces at the ends dropped and runs of spaces made one, 1 to
 * ACTION_REASON_MAX bytes.  REF_OK with it in out (len >= ACTION_REASON_MAX
 * + 1), or REF_E_BAD_ARGUMENT.  The normal form is what PGN keeps
 * (proto/PGN.md), so a record reads back exactly.
 */
int action_umpire_text(const char *in, char *out, size_t len);

/* A person's text as it came (a chat message, a decline's or an umpire's
 * reason, at most ACTION_TEXT_IN_MAX bytes) in that normal form, after
 * text_words (text.h: invisible characters dropped): action_umpire_text's
 * answer.  The one reading of such a text, so that the requests that take
 * one count its length alike (the refusals probe). */
int action_text_in(const char *in, char *out, size_t len);

/* An umpire action's parts, read from its text (reason points into it). */
struct action_umpire {
	int seconds;                 /* addtime */
	int result;                  /* adjudge: enum game_result */
	bool public;                 /* note */
	const char *reason;
};

/* Read a's parts.  REF_OK, or REF_E_BAD_ARGUMENT for a kind that is no
 * umpire's or a text or colour out of its form (the header comment). */
int action_umpire_parse(const struct action *a, struct action_umpire *u);

/* Build an umpire action from its parts (reason normalised here).
 * REF_OK or REF_E_BAD_ARGUMENT. */
int action_set_umpire(struct action *a, int kind, int color, const struct action_umpire *u);

/* The pause rule: is the game paused after action a, given it was (paused)
 * before?  A pause pauses, an unpause resumes, everything else leaves it. */
bool action_paused(bool paused, const struct action *a);

/* ---- adjournment ---- */

/* Is this kind adjournment's (adjourn, unadj)? */
bool action_is_adjourn(int kind);

/* The adjournment rule: is the game adjourned after action a, given it
 * was (adjourned) before?  "adjourn agree" adjourns, unadj resumes. */
bool action_adjourned(bool adjourned, const struct action *a);

/* The adjourn-offer lapse rule, as action_draw_offer's: the colour with a
 * standing offer to adjourn after a (-1 for none).  "adjourn offer" makes
 * one; agree and decline end it; a move by the side it was made to lapses it. */
int action_adjourn_offer(int offer, const struct action *a, int plies_before, int plies_after);

/* ---- what the server takes: the record between actions ---- */

/*
 * What the server keeps beside the referee between a game's actions
 * (server/game.c game_act, server/recover.c): the standing draw offer and
 * offer to adjourn, the umpire's pause and the adjournment, each after
 * the rules above (action_draw_offer, action_adjourn_offer,
 * action_paused, action_adjourned).
 */
struct action_record_state {
	int draw_offer;              /* the colour whose draw offer stands, or -1 */
	int adjourn_offer;           /* the colour whose offer to adjourn stands, or -1 */
	bool paused;                 /* by the umpire */
	bool adjourned;
};

/* A game's state before its first action: no offer, no pause. */
void action_record_init(struct action_record_state *s);

/*
 * Could the server have taken a, the game in progress in state s with
 * `to_move` to move after `plies` moves?  NULL, or why not in the
 * server's words (PROTOCOL.md "Games", "Adjournment", "The umpire's
 * actions"; server/game_cmd.c, game.c game_act): moves, lists, quiet
 * sequences and "any?" only while neither paused nor adjourned; a pause
 * not while paused or adjourned, an unpause only while paused; adjourn
 * actions not while paused, an offer to adjourn and its acceptance not
 * while adjourned, unadj only while adjourned; a draw offer (or an offer
 * to adjourn) only with none standing (the opponent's is accepted by
 * offering back: the record says "end agreement" / "adjourn agree"), a
 * decline or "end agreement" (an acceptance) only of the opponent's
 * standing offer; "end aborted" only before both sides moved; "end time"
 * only for the side to move (its clock alone runs) and neither paused
 * nor adjourned.  What the record cannot show is not checked: whether the
 * game is timed (adjourning and addtime need a clock), who is connected
 * (abandonment, unadj), chat's rate and mutes.  A game that is over is
 * the referee's to refuse (game_over).
 */
const char *action_record_refusal(const struct action_record_state *s, const struct action *a,
                                  int to_move, int plies);

/* The state after a, applied with plies_before moves played before it
 * and plies_after after. */
void action_record_next(struct action_record_state *s, const struct action *a, int plies_before,
                        int plies_after);

/* ---- chat ---- */

/* Is this kind chat (say, spec)? */
bool action_is_chat(int kind);

/* A chat action's parts: name (spec: the speaker's account; say: NULL) and
 * text, copied into buf (ACTION_TEXT_MAX bytes).  REF_OK, or
 * REF_E_BAD_ARGUMENT for a kind that is no chat or a text or colour out of
 * its form (the header comment). */
int action_chat_parse(const struct action *a, char buf[ACTION_TEXT_MAX], const char **name,
                      const char **text);

/* A short label for messages: "try e4", "list e4 d4", "end resignation". */
void action_label(const struct action *a, char *buf, size_t len);

#endif
