/*
 * speclist.c — a delayed game's spectators' list (speclist.h).
 */
#include "speclist.h"

#include <stdlib.h>
#include <string.h>

#include "mstime.h"
#include "xmalloc.h"

struct speclist {
	char *buf;
	size_t len, cap;
	struct listed {
		size_t off, len;
		int ply;
		int seq;               /* its action's (0: none's: kept when a commit fails) */
		int8_t away;           /* an opponent_away's colour; else -1 */
		int64_t at;            /* mstime_mono() when listed: an away's `left` counts from it */
	} *e;
	size_t n, ecap;
};

struct speclist *speclist_new(void)
{
	return xcalloc(1, sizeof(struct speclist));
}

void speclist_free(struct speclist *l)
{
	if (l == NULL)
		return;
	free(l->buf);
	free(l->e);
	free(l);
}

void speclist_push(struct speclist *l, const char *text, size_t len, int ply, int seq, int away)
{
	l->buf = xgrow(l->buf, &l->cap, l->len + len, 1, 4096);
	memcpy(l->buf + l->len, text, len);
	l->e = xgrow(l->e, &l->ecap, l->n + 1, sizeof *l->e, 64);
	l->e[l->n++] = (struct listed){ l->len, len, ply, seq, (int8_t)away, mstime_mono() };
	l->len += len;
}

void speclist_push_json(struct speclist *l, const json_t *msg, int away)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	if (text != NULL)
		speclist_push(l, text, strlen(text),
		              (int)json_integer_value(json_object_get(msg, "ply")), 0, away);
	free(text);
}

bool speclist_fold_back(struct speclist *l, int col)
{
	if (l->n == 0 || l->e[l->n - 1].away != col)
		return false;
	l->len = l->e[l->n - 1].off;
	l->n--;
	return true;
}

void speclist_cut_from(struct speclist *l, int seq)
{
	/* By action, not back to the list's length before the first failed
	 * one: a player's coming back may have shortened it since (the going
	 * folded), and another failed action listed its event where the going
	 * was, which that cut kept (a review). */
	size_t n = 0, len = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->e[i].seq >= seq)
			continue;
		memmove(l->buf + len, l->buf + l->e[i].off, l->e[i].len);
		l->e[n] = l->e[i];
		l->e[n++].off = len;
		len += l->e[i].len;
	}
	l->len = len;
	l->n = n;
}

size_t speclist_count(const struct speclist *l)
{
	return l->n;
}

int speclist_ply(const struct speclist *l, size_t i)
{
	return l->e[i].ply;
}

int speclist_seq(const struct speclist *l, size_t i)
{
	return l->e[i].seq;
}

void speclist_left_since(json_t *msg, int64_t at, int64_t now)
{
	json_t *left = json_object_get(msg, "left");
	if (json_is_integer(left)) {
		int64_t v = json_integer_value(left) - (now - at);
		json_integer_set(left, v > 0 ? v : 0);
	}
}

json_t *speclist_item(size_t i, void *arg)
{
	const struct speclist *l = arg;
	json_t *j = json_loadb(l->buf + l->e[i].off, l->e[i].len, 0, NULL);
	speclist_left_since(j, l->e[i].at, mstime_mono());
	return j;
}

json_t *speclist_page_item(size_t i, void *arg)
{
	json_t *j = speclist_item(i, arg);
	json_object_del(j, "clock");
	return j;
}
