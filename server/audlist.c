/*
 * audlist.c — what one audience of a live game was told (audlist.h).
 *
 * The lines back to back in one buffer, each found by its offset: a push
 * is a copy, a view's page parses only its own lines.
 */
#include <stdlib.h>
#include <string.h>

#include "audlist.h"
#include "xmalloc.h"

struct audlist {
	int refs;
	char *buf;
	size_t len, cap;
	struct told_line {
		size_t off, len;
	} *e;
	size_t n, ecap;
};

struct audlist *audlist_new(void)
{
	struct audlist *l = xcalloc(1, sizeof *l);
	l->refs = 1;
	return l;
}

struct audlist *audlist_ref(struct audlist *l)
{
	l->refs++;
	return l;
}

void audlist_unref(struct audlist *l)
{
	if (l == NULL || --l->refs > 0)
		return;
	free(l->buf);
	free(l->e);
	free(l);
}

void audlist_push(struct audlist *l, const char *text, size_t len)
{
	l->buf = xgrow(l->buf, &l->cap, l->len + len, 1, 4096);
	memcpy(l->buf + l->len, text, len);
	l->e = xgrow(l->e, &l->ecap, l->n + 1, sizeof *l->e, 64);
	l->e[l->n++] = (struct told_line){ l->len, len };
	l->len += len;
}

int audlist_push_json(struct audlist *l, const json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	if (text == NULL)
		return -1;
	audlist_push(l, text, strlen(text));
	free(text);
	return 0;
}

size_t audlist_count(const struct audlist *l)
{
	return l->n;
}

void audlist_cut(struct audlist *l, size_t n)
{
	if (n < l->n) {
		l->len = l->e[n].off;
		l->n = n;
	}
}

struct audlist *audlist_copy(const struct audlist *l, size_t n)
{
	struct audlist *c = audlist_new();
	if (n > l->n)
		n = l->n;
	size_t len = n > 0 ? l->e[n - 1].off + l->e[n - 1].len : 0;
	if (n > 0) {
		c->buf = xgrow(NULL, &c->cap, len, 1, 4096);
		memcpy(c->buf, l->buf, len);
		c->e = xgrow(NULL, &c->ecap, n, sizeof *c->e, 64);
		memcpy(c->e, l->e, n * sizeof *c->e);
	}
	c->len = len;
	c->n = n;
	return c;
}

json_t *audlist_item(size_t i, void *arg)
{
	const struct audlist *l = arg;
	json_t *j = json_loadb(l->buf + l->e[i].off, l->e[i].len, 0, NULL);
	json_object_del(j, "clock");
	return j;
}
