/*
 * fuzz_bot.c — krieg-bot's game (client-cli/bot/bot.h: its view, its
 * belief and its choice) fed whatever events a hostile or broken server
 * might send.  A bot plays on any server it is pointed at, and what
 * reaches it is exactly this: events as event_from_json reads them.
 *
 * The input's first line names the game: "RULES LEVEL COLOR [FEN]" ("icc
 * full white"; unknown words fall back to icc, random, white; a FEN
 * fen_parse accepts is the start, as a game_state's "fen" is for the
 * bot, else the usual start).  Every later
 * line ("< " in front is dropped, so PROTOCOL.md's transcripts are inputs)
 * is one event line; lines event_from_json refuses are skipped, as the
 * bot skips them.  After each event, if it is the bot's turn, it chooses
 * (full: a fixed, small number of iterations, so an input's run does not
 * depend on the machine).
 *
 * Beyond "no crash, no sanitizer report, no hang", the promise checked:
 * a try chosen is one the bot's own view still allows (view_possible:
 * its own men, not a try already refused this turn).
 */
#include <jansson.h>

#include "bot.h"
#include "event_json.h"
#include "fen.h"
#include "fuzz_util.h"
#include "movegen.h"

#define STEPS_MAX 200          /* event lines of one input that are run */
#define CHOICES_MAX 40         /* choices made in one input (each one searches) */

static int color_of(const char *w)
{
	return w != NULL && strcmp(w, "black") == 0 ? BLACK : WHITE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char *save = NULL, *wsave = NULL;
	char *head = strtok_r(text, "\n", &save);
	if (head == NULL) {
		free(text);
		return 0;
	}
	const char *rw = strtok_r(head, " ", &wsave), *lw = strtok_r(NULL, " ", &wsave);
	const struct ruleset *rs = rw ? ruleset_find(rw) : NULL;
	int level = lw ? bot_level_parse(lw) : -1;
	int color = color_of(strtok_r(NULL, " ", &wsave));
	struct board start;
	char err[128];
	if (wsave == NULL || fen_parse(wsave, &start, err, sizeof err) != 0)
		board_start(&start);
	/* small limits: each input runs in milliseconds, and the switch from
	 * exact to sampled is reached within a few moves */
	struct belief_limits lim = { .exact_max = 64, .particles = 32 };
	struct bot *b = bot_new(level < 0 ? BOT_RANDOM : (enum bot_level)level, rs ? rs : ruleset_default(),
	                        &start, color, 1, &lim);
	b->iterations = 32;
	int steps = 0, choices = 0;
	for (char *line = strtok_r(NULL, "\n", &save); line != NULL && steps < STEPS_MAX;
	     line = strtok_r(NULL, "\n", &save), steps++) {
		if (line[0] == '<' && line[1] == ' ')
			line += 2;
		json_t *o = json_loads(line, 0, NULL);
		struct event e;
		if (json_is_object(o) && event_from_json(o, &e) == 0) {
			if (e.audience == 0)
				e.audience = (uint8_t)aud_of(color);
			bot_event(b, &e);
		}
		json_decref(o);
		if (!bot_to_move(b) || choices >= CHOICES_MAX)
			continue;
		choices++;
		move_t m = MOVE_NONE;
		if (bot_choose(b, 0, &m) == BOT_TRY) {
			struct movelist ml;
			view_possible(&b->view, &ml);
			bool found = false;
			for (int i = 0; i < ml.n && !found; i++)
				found = ml.m[i] == m;
			FUZZ_ASSERT(found, "the bot chose a try its view does not allow: %d", (int)m);
		}
	}
	bot_free(b);
	free(text);
	return 0;
}
