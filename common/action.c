/*
 * action.c — a record's action: names, text, the list splitting rule,
 * the draw-offer lapse rule, and referee_apply() (action.h).
 */
#include "action.h"

#include <stdio.h>
#include <string.h>

#include "notation.h"

/* Indexed by enum action_kind.  These are stored: never change one. */
static const char *const kind_names[ACTION_KIND_COUNT] = {
	[ACTION_BEGIN] = "begin", [ACTION_TRY] = "try", [ACTION_LIST] = "list",
	[ACTION_QUIET] = "quiet", [ACTION_ANY] = "any", [ACTION_END] = "end",
	[ACTION_DRAW] = "draw",
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
	}
	return REF_E_BAD_ARGUMENT;
}

int action_draw_offer(int offer, const struct action *a, int plies_before, int plies_after)
{
	if (a->kind == ACTION_DRAW)
		return strcmp(a->text, "offer") == 0 ? a->color : -1;
	if (plies_after > plies_before && offer >= 0 && a->color != offer)
		return -1;
	return offer;
}

void action_label(const struct action *a, char *buf, size_t len)
{
	const char *k = action_kind_name(a->kind);
	snprintf(buf, len, "%s%s%.40s", k ? k : "?", a->text[0] ? " " : "", a->text);
}
