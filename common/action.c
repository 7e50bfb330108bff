/*
 * action.c — a record's action: names, text, the list splitting rule,
 * the draw-offer lapse rule, the server's rules between actions
 * (action_record_refusal), and referee_apply() (action.h).
 */
#include "action.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

#include "notation.h"

/* Indexed by enum action_kind.  These are stored: never change one. */
static const char *const kind_names[ACTION_KIND_COUNT] = {
	[ACTION_BEGIN] = "begin", [ACTION_TRY] = "try", [ACTION_LIST] = "list",
	[ACTION_QUIET] = "quiet", [ACTION_ANY] = "any", [ACTION_END] = "end",
	[ACTION_DRAW] = "draw", [ACTION_PAUSE] = "pause", [ACTION_UNPAUSE] = "unpause",
	[ACTION_ADDTIME] = "addtime", [ACTION_ADJUDGE] = "adjudge", [ACTION_UABORT] = "uabort",
	[ACTION_NOTE] = "note", [ACTION_SAY] = "say", [ACTION_SPEC] = "spec",
	[ACTION_ADJOURN] = "adjourn", [ACTION_UNADJ] = "unadj",
};

const char *action_kind_name(int kind)
{
	return kind >= 0 && kind < ACTION_KIND_COUNT ? kind_names[kind] : NULL;
}

int action_kind_parse(const char *name)
{
	for (int k = 0; k < ACTION_KIND_COUNT; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return -1;
}

int action_set(struct action *a, int kind, int color, const char *text)
{
	if (text == NULL)
		text = "";
	if (action_kind_name(kind) == NULL || strlen(text) >= sizeof a->text)
		return REF_E_BAD_ARGUMENT;
	a->kind = kind;
	a->color = color;
	memcpy(a->text, text, strlen(text) + 1);
	return REF_OK;
}

int action_parse(struct action *a, const char *kind, int color, const char *text)
{
	return action_set(a, action_kind_parse(kind), color, text);
}

int action_set_list(struct action *a, int kind, int color, const char *const *items, size_t n)
{
	char text[ACTION_TEXT_MAX];

	if (n == 0)
		return REF_E_TOO_MANY;
	for (size_t i = 0; i < n; i++)
		if (items[i][0] == '\0' || strpbrk(items[i], " \t") != NULL)
			return REF_E_SYNTAX;
	int words = notation_join_list(items, n, text, sizeof text);
	if (words < 0)
		return REF_E_BAD_ARGUMENT;
	if (words == 0 || words > REFEREE_LIST_MAX)
		return REF_E_TOO_MANY;
	return action_set(a, kind, color, text);
}

int action_split(const char *text, char buf[ACTION_TEXT_MAX],
                 const char *items[REFEREE_LIST_MAX], size_t *n)
{
	char *save = NULL;
	size_t k = 0;

	*n = 0;
	if (strlen(text) >= ACTION_TEXT_MAX)
		return REF_E_BAD_ARGUMENT;
	memcpy(buf, text, strlen(text) + 1);
	for (char *tok = strtok_r(buf, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		if (k > 0 && notation_is_ep_word(tok)) {
			/* The suffix of the attempt before it (as notation_join_list
			 * wrote it): moved left against that word's end, over the
			 * NUL strtok_r put there, so "exd6 e.p." reads "exd6e.p.". */
			char *end = (char *)items[k - 1] + strlen(items[k - 1]);
			memmove(end, tok, strlen(tok) + 1);
			continue;
		}
		if (k == REFEREE_LIST_MAX)
			return REF_E_TOO_MANY;
		items[k++] = tok;
	}
	if (k == 0)
		return REF_E_TOO_MANY;
	*n = k;
	return REF_OK;
}

bool referee_action_repeats_impossible(struct referee *r, const struct action *a)
{
	if (!referee_impossible_tried(r, a->color))
		return false;   /* every try of nearly every turn: no text split for nothing */
	if (a->kind == ACTION_TRY)
		return referee_impossible_again(r, a->color, a->text);
	if (a->kind != ACTION_LIST && a->kind != ACTION_QUIET)
		return false;
	char buf[ACTION_TEXT_MAX];
	const char *items[REFEREE_LIST_MAX];
	size_t n;
	if (action_split(a->text, buf, items, &n) != REF_OK)
		return false;
	if (a->kind == ACTION_QUIET)
		n = 1;   /* the later tries are made when their turns come */
	for (size_t i = 0; i < n; i++)
		if (referee_impossible_again(r, a->color, items[i]))
			return true;
	return false;
}

int referee_apply(struct referee *r, const struct action *a, struct evlist *out)
{
	switch (a->kind) {
	case ACTION_BEGIN:
		return referee_begin(r, out);
	case ACTION_TRY:
		return referee_attempt(r, a->color, a->text, out);
	case ACTION_LIST:
	case ACTION_QUIET: {
		char buf[ACTION_TEXT_MAX];
		const char *items[REFEREE_LIST_MAX];
		size_t n;
		int st = action_split(a->text, buf, items, &n);
		if (st == REF_E_TOO_MANY)
			n = 0; /* refused by the referee itself, in its order, with its message */
		else if (st != REF_OK)
			return st;
		return a->kind == ACTION_LIST ? referee_attempt_list(r, a->color, items, n, out)
		                              : referee_quiet(r, a->color, items, n, out);
	}
	case ACTION_ANY:
		return referee_any(r, a->color, out);
	case ACTION_END: {
		/* An unknown reason is REASON_NONE: the referee refuses it with its message. */
		int reason = game_reason_parse(a->text);
		return referee_end(r, reason > REASON_NONE ? (enum game_reason)reason : REASON_NONE,
		                   a->color, out);
	}
	case ACTION_DRAW:
		if (strcmp(a->text, "offer") != 0 && strcmp(a->text, "decline") != 0)
			return REF_E_BAD_ARGUMENT;
		return referee_notice(r, a->color);
	case ACTION_PAUSE:
	case ACTION_UNPAUSE:
	case ACTION_ADDTIME:
	case ACTION_ADJUDGE:
	case ACTION_UABORT:
	case ACTION_NOTE: {
		struct action_umpire u;
		if (action_umpire_parse(a, &u) != REF_OK)
			return REF_E_BAD_ARGUMENT;
		if (a->kind == ACTION_ADJUDGE)
			return referee_umpire_end(r, (enum game_result)u.result, REASON_ADJUDICATION, out);
		if (a->kind == ACTION_UABORT)
			return referee_umpire_end(r, RESULT_NONE, REASON_ABORTED, out);
		return referee_umpire_notice(r);
	}
	case ACTION_ADJOURN:
		if (strcmp(a->text, "offer") != 0 && strcmp(a->text, "agree") != 0 &&
		    strcmp(a->text, "decline") != 0)
			return REF_E_BAD_ARGUMENT;
		return referee_notice(r, a->color);
	case ACTION_UNADJ:
		if (a->text[0] != '\0')
			return REF_E_BAD_ARGUMENT;
		return referee_notice(r, a->color);
	case ACTION_SAY:
	case ACTION_SPEC: {
		/* Words, never a ruling: the referee only checks the game is on. */
		char buf[ACTION_TEXT_MAX];
		const char *name, *text;
		if (action_chat_parse(a, buf, &name, &text) != REF_OK)
			return REF_E_BAD_ARGUMENT;
		return a->kind == ACTION_SAY ? referee_notice(r, a->color) : referee_umpire_notice(r);
	}
	}
	return REF_E_BAD_ARGUMENT;
}

/* ---- chat ------------------------------------------------------------------ */

static bool reason_ok(const char *s);   /* the umpire's text rule, below: chat's too */

bool action_is_chat(int kind)
{
	return kind == ACTION_SAY || kind == ACTION_SPEC;
}

int action_chat_parse(const struct action *a, char buf[ACTION_TEXT_MAX], const char **name,
                      const char **text)
{
	*name = NULL;
	*text = NULL;
	if (!action_is_chat(a->kind) || strlen(a->text) >= ACTION_TEXT_MAX)
		return REF_E_BAD_ARGUMENT;
	memcpy(buf, a->text, strlen(a->text) + 1);
	char *t = buf;
	if (a->kind == ACTION_SAY) {
		if (a->color != WHITE && a->color != BLACK)
			return REF_E_BAD_ARGUMENT;
	} else {
		char *sp = strchr(buf, ' ');
		if (a->color != -1 || sp == NULL || sp == buf)
			return REF_E_BAD_ARGUMENT;
		*sp = '\0';
		for (const char *p = buf; *p; p++)
			if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
				return REF_E_BAD_ARGUMENT;
		*name = buf;
		t = sp + 1;
	}
	if (!reason_ok(t))
		return REF_E_BAD_ARGUMENT;
	*text = t;
	return REF_OK;
}

/* ---- umpire actions -------------------------------------------------------- */

bool action_is_umpire(int kind)
{
	return kind >= ACTION_PAUSE && kind <= ACTION_NOTE;
}

int action_text_in(const char *in, char *out, size_t len)
{
	char words[ACTION_TEXT_IN_MAX + 1];
	if (!text_words(in, words, sizeof words))
		return REF_E_BAD_ARGUMENT;
	return action_umpire_text(words, out, len);
}

int action_umpire_text(const char *in, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0;
	bool space = false;
	if (in == NULL || len < ACTION_REASON_MAX + 1)
		return REF_E_BAD_ARGUMENT;
	while (*p) {
		if (*p == ' ') {
			space = n > 0;   /* leading spaces dropped; a run becomes one */
			p++;
			continue;
		}
		if (*p < 0x20 || *p == 0x7f)
			return REF_E_BAD_ARGUMENT;
		size_t k = text_utf8_len(p);
		if (k == 0 || n + space + k > ACTION_REASON_MAX)
			return REF_E_BAD_ARGUMENT;
		if (space)
			out[n++] = ' ';
		space = false;
		memcpy(out + n, p, k);
		n += k;
		p += k;
	}
	out[n] = '\0';
	return n > 0 ? REF_OK : REF_E_BAD_ARGUMENT;
}

/* Is s already in action_umpire_text's normal form? */
static bool reason_ok(const char *s)
{
	char buf[ACTION_REASON_MAX + 1];
	return action_umpire_text(s, buf, sizeof buf) == REF_OK && strcmp(buf, s) == 0;
}

int action_umpire_parse(const struct action *a, struct action_umpire *u)
{
	memset(u, 0, sizeof *u);
	u->result = RESULT_NONE;
	const char *t = a->text;
	bool side = a->color == WHITE || a->color == BLACK;
	if (!action_is_umpire(a->kind) || (side != (a->kind == ACTION_ADDTIME)))
		return REF_E_BAD_ARGUMENT;
	const char *sp = strchr(t, ' ');
	switch (a->kind) {
	case ACTION_ADDTIME: {
		/* 1..86400 in plain decimal, no sign, no leading zero. */
		if (sp == NULL || sp == t || sp - t > 5 || t[0] == '0')
			return REF_E_BAD_ARGUMENT;
		int v = 0;
		for (const char *q = t; q < sp; q++) {
			if (*q < '0' || *q > '9')
				return REF_E_BAD_ARGUMENT;
			v = v * 10 + (*q - '0');
		}
		if (v < 1 || v > ACTION_ADDTIME_MAX_S)
			return REF_E_BAD_ARGUMENT;
		u->seconds = v;
		t = sp + 1;
		break;
	}
	case ACTION_ADJUDGE: {
		if (sp == NULL)
			return REF_E_BAD_ARGUMENT;
		char word[8];
		if ((size_t)(sp - t) >= sizeof word)
			return REF_E_BAD_ARGUMENT;
		memcpy(word, t, (size_t)(sp - t));
		word[sp - t] = '\0';
		int res = game_result_parse(word);
		if (res != RESULT_WHITE && res != RESULT_BLACK && res != RESULT_DRAW)
			return REF_E_BAD_ARGUMENT;
		u->result = res;
		t = sp + 1;
		break;
	}
	case ACTION_NOTE:
		if (sp != NULL && sp - t == 6 && strncmp(t, "public", 6) == 0)
			u->public = true;
		else if (!(sp != NULL && sp - t == 7 && strncmp(t, "private", 7) == 0))
			return REF_E_BAD_ARGUMENT;
		t = sp + 1;
		break;
	default:
		break;
	}
	if (!reason_ok(t))
		return REF_E_BAD_ARGUMENT;
	u->reason = t;
	return REF_OK;
}

int action_set_umpire(struct action *a, int kind, int color, const struct action_umpire *u)
{
	char reason[ACTION_REASON_MAX + 1], text[ACTION_TEXT_MAX];
	if (!action_is_umpire(kind) || action_umpire_text(u->reason, reason, sizeof reason) != REF_OK)
		return REF_E_BAD_ARGUMENT;
	switch (kind) {
	case ACTION_ADDTIME:
		snprintf(text, sizeof text, "%d %s", u->seconds, reason);
		break;
	case ACTION_ADJUDGE:
		snprintf(text, sizeof text, "%s %s", game_result_name(u->result), reason);
		break;
	case ACTION_NOTE:
		snprintf(text, sizeof text, "%s %s", u->public ? "public" : "private", reason);
		break;
	default:
		snprintf(text, sizeof text, "%s", reason);
		break;
	}
	struct action tmp;
	struct action_umpire check;
	if (action_set(&tmp, kind, color, text) != REF_OK || action_umpire_parse(&tmp, &check) != REF_OK)
		return REF_E_BAD_ARGUMENT;
	*a = tmp;
	return REF_OK;
}

bool action_paused(bool paused, const struct action *a)
{
	if (a->kind == ACTION_PAUSE)
		return true;
	if (a->kind == ACTION_UNPAUSE)
		return false;
	return paused;
}

bool action_is_adjourn(int kind)
{
	return kind == ACTION_ADJOURN || kind == ACTION_UNADJ;
}

bool action_adjourned(bool adjourned, const struct action *a)
{
	if (a->kind == ACTION_ADJOURN && strcmp(a->text, "agree") == 0)
		return true;
	if (a->kind == ACTION_UNADJ)
		return false;
	return adjourned;
}

/* Did the side offer was made to play a move in a?  Its own action, or
 * the offerer's that played two plies: the offerer's move and then the
 * other's, made for them (nost's "if quiet" list). */
static bool offer_answered(int offer, const struct action *a, int plies_before, int plies_after)
{
	return offer >= 0 && plies_after > plies_before &&
	       (a->color != offer || plies_after - plies_before >= 2);
}

int action_adjourn_offer(int offer, const struct action *a, int plies_before, int plies_after)
{
	if (a->kind == ACTION_ADJOURN)
		return strcmp(a->text, "offer") == 0 ? a->color : -1;
	return offer_answered(offer, a, plies_before, plies_after) ? -1 : offer;
}

int action_draw_offer(int offer, const struct action *a, int plies_before, int plies_after)
{
	if (a->kind == ACTION_DRAW)
		return strcmp(a->text, "offer") == 0 ? a->color : -1;
	return offer_answered(offer, a, plies_before, plies_after) ? -1 : offer;
}

void action_record_init(struct action_record_state *s)
{
	s->draw_offer = -1;
	s->adjourn_offer = -1;
	s->paused = false;
	s->adjourned = false;
}

const char *action_record_refusal(const struct action_record_state *s, const struct action *a,
                                  int to_move, int plies)
{
	bool side = a->color == WHITE || a->color == BLACK;
	int other = side ? !a->color : -1;   /* whose offer a may answer */
	bool move_kind = a->kind == ACTION_TRY || a->kind == ACTION_LIST || a->kind == ACTION_QUIET ||
	                 a->kind == ACTION_ANY;

	/* game_act's refusals, in its order: the pause and the adjournment. */
	if (s->paused && move_kind)
		return "the game is paused by the umpire";
	if (a->kind == ACTION_PAUSE && s->paused)
		return "the game is paused already";
	if (a->kind == ACTION_UNPAUSE && !s->paused)
		return "the game is not paused";
	if (s->adjourned && (move_kind || a->kind == ACTION_PAUSE))
		return "the game is adjourned";
	if (a->kind == ACTION_UNADJ && !s->adjourned)
		return "the game is not adjourned";
	if (action_is_adjourn(a->kind) && s->paused)
		return "the game is paused by the umpire";
	if (a->kind == ACTION_ADJOURN && s->adjourned)
		return "the game is adjourned already";

	/* The requests' own (game_cmd.c cmd_draw, cmd_adjourn, cmd_abort). */
	if (a->kind == ACTION_DRAW && strcmp(a->text, "offer") == 0) {
		if (side && s->draw_offer == a->color)
			return "your draw offer stands already";
		if (side && s->draw_offer == other)
			return "the opponent's draw offer stands: offering back accepts it (end agreement)";
	}
	if (a->kind == ACTION_DRAW && strcmp(a->text, "decline") == 0 && side &&
	    s->draw_offer == a->color)
		return "the draw offer is yours: the opponent answers it";
	if (a->kind == ACTION_DRAW && strcmp(a->text, "decline") == 0 &&
	    (!side || s->draw_offer != other))
		return "no draw offer to decline";
	if (a->kind == ACTION_ADJOURN && strcmp(a->text, "offer") == 0) {
		if (side && s->adjourn_offer == a->color)
			return "your offer to adjourn stands already";
		if (side && s->adjourn_offer == other)
			return "the opponent's offer to adjourn stands: offering back accepts it (adjourn agree)";
	}
	if (action_is_adjourn(a->kind) && strcmp(a->text, "offer") != 0 && side &&
	    s->adjourn_offer == a->color)
		return "the offer to adjourn is yours: the opponent answers it";
	if (a->kind == ACTION_ADJOURN && strcmp(a->text, "agree") == 0 &&
	    (!side || s->adjourn_offer != other))
		return "no offer to adjourn to accept";
	if (a->kind == ACTION_ADJOURN && strcmp(a->text, "decline") == 0 &&
	    (!side || s->adjourn_offer != other))
		return "no offer to adjourn to decline";
	if (a->kind == ACTION_END) {
		int reason = game_reason_parse(a->text);
		if (reason == REASON_AGREEMENT && side && s->draw_offer == a->color)
			return "the draw offer is yours: the opponent answers it";
		if (reason == REASON_AGREEMENT && (!side || s->draw_offer != other))
			return "no draw offer to accept";
		if (reason == REASON_ABORTED && plies >= 2)
			return "a game can be aborted only before both sides moved";
		/* The flag falls only on a running clock, the side to move's
		 * (server/clock.c clock_flagged); paused or adjourned none runs. */
		if (reason == REASON_TIME && (s->paused || s->adjourned))
			return "no clock runs while the game is paused or adjourned";
		if (reason == REASON_TIME && a->color != to_move)
			return "only the side to move's clock runs: the other cannot lose on time";
	}
	return NULL;
}

void action_record_next(struct action_record_state *s, const struct action *a, int plies_before,
                        int plies_after)
{
	s->draw_offer = action_draw_offer(s->draw_offer, a, plies_before, plies_after);
	s->paused = action_paused(s->paused, a);
	s->adjourn_offer = action_adjourn_offer(s->adjourn_offer, a, plies_before, plies_after);
	s->adjourned = action_adjourned(s->adjourned, a);
}

void action_label(const struct action *a, char *buf, size_t len)
{
	const char *k = action_kind_name(a->kind);
	snprintf(buf, len, "%s%s%.40s", k ? k : "?", a->text[0] ? " " : "", a->text);
}
