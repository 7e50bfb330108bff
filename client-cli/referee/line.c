/*
 * line.c — an action line's words and its action (line.h).
 */
#include "line.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "event.h"
#include "event_json.h"
#include "referee.h"

/* Split line in place into at most max words; max + 1 when there are more. */
static size_t line_split(char *line, char **words, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(line, " \t,;", &save); tok; tok = strtok_r(NULL, " \t,;", &save)) {
		if (n == max)
			return max + 1;
		words[n++] = tok;
	}
	return n;
}

const char *line_check(const char *line, size_t len)
{
	/* What follows a NUL would be dropped unread: "e4\0garbage" is not e4. */
	if (memchr(line, '\0', len) != NULL)
		return "line holds a NUL byte";
	return NULL;
}

int line_side(const char *word)
{
	if (strcmp(word, "white") == 0)
		return WHITE;
	if (strcmp(word, "black") == 0)
		return BLACK;
	return -1;
}

/* Words on one line: a command word, and 16 moves each with its "e.p.". */
#define LINE_WORDS_MAX (1 + 2 * REFEREE_LIST_MAX)

static int bad(int *status, const char **msg, int st, const char *why)
{
	*status = st;
	*msg = why;
	return LINE_BAD;
}

/* A list or quiet action from its items; LINE_BAD if action_set_list
 * refuses (too_many says `many`).  A list of one attempt is a try. */
static int set_list(struct action *a, int kind, int side, char **items, size_t n,
                    const char *many, int *status, const char **msg)
{
	int st = action_set_list(a, kind, side, (const char *const *)items, n);
	if (st == REF_E_BAD_ARGUMENT) /* the text does not fit: no move is that long */
		return bad(status, msg, REF_E_SYNTAX, "not a move: too long");
	if (st != REF_OK)
		return bad(status, msg, st, st == REF_E_TOO_MANY ? many : "not a move");
	char buf[ACTION_TEXT_MAX];
	const char *tries[REFEREE_LIST_MAX];
	size_t k;
	if (kind == ACTION_LIST && action_split(a->text, buf, tries, &k) == REF_OK && k == 1)
		a->kind = ACTION_TRY;
	return LINE_ACTION;
}

int line_action(char *line, int side, struct action *a, int *status, const char **msg)
{
	char *w[LINE_WORDS_MAX + 1];
	size_t n = line_split(line, w, LINE_WORDS_MAX);

	if (n == 0)
		return LINE_EMPTY;
	if (n > LINE_WORDS_MAX)
		return bad(status, msg, REF_E_TOO_MANY, "too many moves on one line");
	/* A keyword with words after it is not a preference list of moves
	 * ("draw please" would be refused as "this rule set takes one move
	 * at a time"): say what is wrong with it instead. */
	if (n > 1) {
		static const char *const alone[][2] = {
			{ "any", "any takes nothing after it" },
			{ "possible", "possible takes nothing after it" },
		};
		for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++)
			if (strcmp(w[0], alone[i][0]) == 0)
				return bad(status, msg, REF_E_BAD_ARGUMENT, alone[i][1]);
		if (strcmp(w[0], "resign") == 0 && n > 2)
			return bad(status, msg, REF_E_BAD_ARGUMENT, "resign takes white or black");
		if (strcmp(w[0], "draw") == 0 && (n > 2 || line_side(w[1]) < 0))
			return bad(status, msg, REF_E_BAD_ARGUMENT, "draw takes white or black");
	}
	if (strcmp(w[0], "any") == 0 && n == 1) {
		action_set(a, ACTION_ANY, side, "");
		return LINE_ACTION;
	}
	if (strcmp(w[0], "resign") == 0 && n <= 2) {
		/* Plain "resign" is the side to move's; a record may need the
		 * other side to resign ([%krieg end resignation white] names
		 * the side), so a colour may be named. */
		int who = n == 1 ? side : line_side(w[1]);
		if (who < 0)
			return bad(status, msg, REF_E_BAD_ARGUMENT, "resign takes white or black");
		action_set(a, ACTION_END, who, "resignation");
		return LINE_ACTION;
	}
	if (strcmp(w[0], "draw") == 0) {
		/* A draw offer, as kriegd's `draw` takes one (line_record makes
		 * it the acceptance of the opponent's standing offer); the side
		 * may be named, as the accepting side is not the one to move. */
		action_set(a, ACTION_DRAW, n == 1 ? side : line_side(w[1]), "offer");
		return LINE_ACTION;
	}
	if (strcmp(w[0], "possible") == 0 && n == 1)
		return LINE_POSSIBLE;
	if (strcmp(w[0], "quiet") == 0) {
		if (n == 1)
			return bad(status, msg, REF_E_TOO_MANY, "quiet needs at least one move");
		return set_list(a, ACTION_QUIET, side, &w[1], n - 1, "a list holds 1 to 16 moves", status,
		                msg);
	}
	return set_list(a, ACTION_LIST, side, w, n, "too many moves on one line", status, msg);
}

const char *line_record(const struct action_record_state *s, struct referee *r, struct action *a,
                        int *status)
{
	*status = REF_E_UNSUPPORTED;   /* kriegd's illegal_action */
	/* Offering while the opponent's offer stands accepts it (kriegd's
	 * `draw`, PROTOCOL.md "Games"). */
	if (a->kind == ACTION_DRAW && strcmp(a->text, "offer") == 0 &&
	    (a->color == WHITE || a->color == BLACK) && s->draw_offer == !a->color)
		action_set(a, ACTION_END, a->color, "agreement");
	if (referee_over(r))
		return NULL;   /* the referee's to refuse: game_over */
	const char *why = action_record_refusal(s, a, referee_side_to_move(r), referee_plies(r));
	if (why == NULL && referee_action_repeats_impossible(r, a)) {
		*status = REF_E_ALREADY_TRIED;
		why = REFEREE_SAY_ALREADY_TRIED;
	}
	return why;
}

json_t *line_notice(const struct action *a, int ply, unsigned *aud)
{
	if (a->kind != ACTION_DRAW || (a->color != WHITE && a->color != BLACK))
		return NULL;
	bool offer = strcmp(a->text, "offer") == 0;
	const char *side = a->color == WHITE ? "White" : "Black";
	char say[64];
	snprintf(say, sizeof say, offer ? "%s offers a draw" : "%s declines the draw", side);
	*aud = AUD_WHITE | AUD_BLACK | AUD_UMPIRE;   /* kriegd's ANNOUNCE_DRAW_AUDIENCE */
	return json_pack("{s:s, s:s, s:i, s:o, s:s}", "event", offer ? "draw_offer" : "draw_declined",
	                 "by", a->color == WHITE ? "white" : "black", "ply", ply, "audience",
	                 event_json_audience(*aud), "say", say);
}
