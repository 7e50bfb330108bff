/*
 * pgn_cache.h — the PGN texts of long records, kept between the chunks a
 * client reads them in.
 *
 * `pgn` answers in chunks of a few KB (history.c), and both clients read
 * every chunk; each answer built the whole text again, a replay of the
 * whole record: a record of 50,000 actions (GAME_ACTIONS_MAX) makes a PGN
 * of about a megabyte in 200 chunks at 60 ms each, 12 s of the loop for one
 * export.  So the text of a long record is kept under its game, its view
 * (which audience, with or without the umpire's private notes) and its
 * record's last seq: a record only grows (store.h), so that seq names the
 * whole of what the text was built from, and a record that grew is a new
 * key.  Texts hold nothing beyond what their view may read; a key names
 * the view, so one reader is never given another view's text.
 *
 * At most `entries` texts and `max_bytes` in all, the least recently read
 * going first; a text over a quarter of max_bytes is not kept.  The loop's
 * alone (no locking).
 */
#ifndef KRIEG_PGN_CACHE_H
#define KRIEG_PGN_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define PGN_CACHE_ENTRIES 32          /* a guest reads 3 views of a game: about 10 games */
#define PGN_CACHE_BYTES (16u << 20)
#define PGN_CACHE_MIN 1024           /* the shortest record (actions) whose text is kept */

struct pgn_cache;

struct pgn_cache *pgn_cache_new(size_t entries, size_t max_bytes);
void pgn_cache_free(struct pgn_cache *pc);

/* The text kept for (game, view, last), or NULL; valid until the next
 * pgn_cache_put. */
const char *pgn_cache_get(struct pgn_cache *pc, int64_t game, unsigned view, int last);

/* Keep text (taken: freed here, now or later) for (game, view, last),
 * replacing what was kept for the game's view before. */
void pgn_cache_put(struct pgn_cache *pc, int64_t game, unsigned view, int last, char *text);

/* Texts and bytes kept: for the tests. */
size_t pgn_cache_count(const struct pgn_cache *pc, size_t *bytes);

#endif
