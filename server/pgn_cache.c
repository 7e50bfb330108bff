/*
 * pgn_cache.c — the PGN texts of long records (pgn_cache.h).
 */
#include "pgn_cache.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

struct kept {
	int64_t game;                /* 0: a free slot */
	unsigned view;
	int last;
	uint64_t used;               /* the cache's clock when last read */
	char *text;
	size_t len;
};

struct pgn_cache {
	struct kept *k;
	size_t n, max_bytes, bytes;
	uint64_t clock;
};

struct pgn_cache *pgn_cache_new(size_t entries, size_t max_bytes)
{
	struct pgn_cache *pc = xcalloc(1, sizeof *pc);
	pc->n = entries > 0 ? entries : 1;
	pc->k = xcalloc(pc->n, sizeof *pc->k);
	pc->max_bytes = max_bytes;
	return pc;
}

static void drop(struct pgn_cache *pc, struct kept *k)
{
	pc->bytes -= k->len;
	free(k->text);
	memset(k, 0, sizeof *k);
}

void pgn_cache_free(struct pgn_cache *pc)
{
	if (pc == NULL)
		return;
	for (size_t i = 0; i < pc->n; i++)
		free(pc->k[i].text);
	free(pc->k);
	free(pc);
}

const char *pgn_cache_get(struct pgn_cache *pc, int64_t game, unsigned view, int last)
{
	for (size_t i = 0; i < pc->n; i++) {
		struct kept *k = &pc->k[i];
		if (k->game == game && game != 0 && k->view == view && k->last == last) {
			k->used = ++pc->clock;
			return k->text;
		}
	}
	return NULL;
}

/* A free slot with room for len more bytes: the texts read longest ago
 * go until there is one.  (A text is at most a quarter of max_bytes, so
 * while there is no room some text is kept.) */
static struct kept *room(struct pgn_cache *pc, size_t len)
{
	for (;;) {
		struct kept *free_slot = NULL, *old = NULL;
		for (size_t i = 0; i < pc->n; i++) {
			struct kept *k = &pc->k[i];
			if (k->text == NULL)
				free_slot = free_slot != NULL ? free_slot : k;
			else if (old == NULL || k->used < old->used)
				old = k;
		}
		if (free_slot != NULL && pc->bytes + len <= pc->max_bytes)
			return free_slot;
		drop(pc, old);
	}
}

void pgn_cache_put(struct pgn_cache *pc, int64_t game, unsigned view, int last, char *text)
{
	size_t len = strlen(text);
	/* The view's older text goes: its record has grown since. */
	for (size_t i = 0; i < pc->n && game != 0; i++)
		if (pc->k[i].game == game && pc->k[i].view == view)
			drop(pc, &pc->k[i]);
	if (game == 0 || len > pc->max_bytes / 4) {
		free(text);
		return;
	}
	struct kept *k = room(pc, len);
	*k = (struct kept){ .game = game, .view = view, .last = last, .used = ++pc->clock,
		            .text = text, .len = len };
	pc->bytes += len;
}

size_t pgn_cache_count(const struct pgn_cache *pc, size_t *bytes)
{
	size_t n = 0;
	for (size_t i = 0; i < pc->n; i++)
		n += pc->k[i].text != NULL;
	if (bytes != NULL)
		*bytes = pc->bytes;
	return n;
}
