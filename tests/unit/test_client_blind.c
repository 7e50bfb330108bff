/*
 * test_client_blind.c — krieg for a player who does not see the screen (a
 * blind player's probe, with a screen reader and a braille display): the
 * clocks asked for in words (time, and `game`), one's own men listed by
 * square (pieces), a capture of one's own man named, a check said with
 * whom it is on, squares spoken with a space between them, and --plain's
 * prompt and low-time words.  Nothing here may tell a player more than the
 * rules let them hear.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_main.h"
#include "client.h"
#include "client_fixture.h"
#include "cmd.h"
#include "event_json.h"
#include "referee.h"
#include "words.h"

/* What was printed from `from` on. */
static const char *since(const struct sink *s, size_t from)
{
	return s->printed + from;
}

/* time / clock: the clocks in words, and whose move; untimed said so. */
START_TEST(time_says_the_clocks)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	sink_game_start(&c, 7, "white", true);
	s.now += 3000;   /* White's clock runs */
	size_t from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "time"), 0);
	ck_assert_msg(strstr(since(&s, from), "#7: White 4:57, Black 5:00; your move\n") != NULL, "%s",
	              since(&s, from));
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "clock"), 0);
	ck_assert_msg(strstr(since(&s, from), "#7: White 4:57, Black 5:00; your move\n") != NULL, "%s",
	              since(&s, from));
	ck_assert_int_eq(s.nsent, 0);   /* the client's own clocks: nothing asked of the server */
	client_free(&c);

	sink_client(&c, &s);
	sink_game_start(&c, 8, "black", false);
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "time"), 0);
	ck_assert_msg(strstr(since(&s, from), "#8: untimed; their move\n") != NULL, "%s", since(&s, from));
	client_free(&c);

	/* a correspondence clock also as the date it runs out (from the
	 * leftovers of the times probe: "2d 23:59" is a count, not a day) */
	sink_logged_in(&c, &s);   /* the wall clock: 2026-01-01 00:00 UTC */
	client_receive(&c, "{\"event\":\"game_start\",\"game\":9,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"time\":{\"days\":3},"
	                   "\"clock\":{\"white\":259200000,\"black\":259200000}}");
	client_flush(&c);
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "time"), 0);
	ck_assert_msg(strstr(since(&s, from), "#9: White 3d 00:00, Black 3d 00:00; your move (White's time "
	                                      "runs out 2026-01-04 00:00 UTC)\n") != NULL, "%s", since(&s, from));
	client_free(&c);

	/* The friends probe: a correspondence deadline under a day was given
	 * as a count only ("23:59:58"): the date whatever is left */
	sink_logged_in(&c, &s);
	client_receive(&c, "{\"event\":\"game_state\",\"game\":5,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,"
	                   "\"to_move\":\"black\",\"time\":{\"days\":1},\"events\":[],"
	                   "\"clock\":{\"white\":86400000,\"black\":86398000}}");
	client_flush(&c);
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "time"), 0);
	ck_assert_msg(strstr(since(&s, from), "#5: White 1d 00:00, Black 23:59:58; their move (Black's time "
	                                      "runs out 2026-01-01 23:59 UTC)\n") != NULL, "%s", since(&s, from));
	client_free(&c);

	/* a watched game's clocks: the seat's */
	sink_client(&c, &s);
	ck_assert_int_eq(client_command(&c, "watch 12"), 0);
	sink_reply_ok(&c, &s, "\"game\":12,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	                      "\"rated\":false,\"seat\":\"spectator\",\"ply\":1,\"to_move\":\"black\","
	                      "\"time\":{\"base\":300,\"inc\":0},\"clock\":{\"white\":290000,\"black\":300000}");
	s.now += 2000;
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "time"), 0);
	/* and whose move it is (the client probe: a --plain spectator had it nowhere) */
	ck_assert_msg(strstr(since(&s, from), "#12 (watching): White 4:50, Black 4:58; Black to move\n") != NULL,
	              "%s", since(&s, from));
	client_free(&c);

	/* no game: said, not silent */
	sink_client(&c, &s);
	ck_assert_int_eq(client_command(&c, "time"), -1);
	ck_assert_msg(strstr(s.printed, "time: no current game") != NULL, "%s", s.printed);
	client_free(&c);
}
END_TEST

/* `game` shows the clocks, as krieg.1 says: under the board, in words. */
START_TEST(game_shows_the_clocks)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	sink_game_start(&c, 7, "white", true);
	size_t from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "game"), 0);
	sink_reply_ok(&c, &s, "\"game\":7,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	                      "\"color\":\"white\",\"to_move\":\"black\",\"events\":[],"
	                      "\"clock\":{\"white\":281000,\"black\":299500}");
	const char *out = since(&s, from);
	const char *board = strstr(out, "White's own board");
	const char *clocks = strstr(out, "#7: White 4:41, Black 5:00; their move\n");
	ck_assert_msg(board != NULL && clocks != NULL && clocks > board, "%s", out);
	client_free(&c);
}
END_TEST

/* --plain: no clock in the prompt (nothing there ticks), no board after a
 * move; one's own clock running low said once at 30 s and once at 10 s. */
START_TEST(plain_prompt_and_low_time)
{
	struct client c;
	struct sink s;
	char p[256];
	sink_client(&c, &s);
	c.plain = true;
	sink_game_start(&c, 7, "white", true);
	ck_assert_ptr_null(strstr(s.printed, "White's own board"));   /* not drawn unasked */
	/* Regression (the help probe): a login's game state drew it, unasked */
	client_receive(&c, "{\"event\":\"game_state\",\"game\":7,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,"
	                   "\"to_move\":\"white\",\"events\":[],\"time\":{\"base\":300,\"inc\":0},"
	                   "\"clock\":{\"white\":300000,\"black\":300000}}");
	client_flush(&c);
	ck_assert_ptr_null(strstr(s.printed, "White's own board"));
	/* ... and `game`, asked, draws it, saying whose move it is once (the
	 * screen-reader probe: "your move", then the clocks' "; your move") */
	size_t asked = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "game"), 0);
	sink_reply_ok(&c, &s, "\"game\":7,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	                      "\"color\":\"white\",\"to_move\":\"white\",\"events\":[],"
	                      "\"time\":{\"base\":300,\"inc\":0},\"clock\":{\"white\":300000,\"black\":300000}");
	ck_assert_ptr_nonnull(strstr(s.printed, "White's own board"));
	int said = 0;
	for (const char *q = s.printed + asked; (q = strstr(q, "your move")) != NULL; q++)
		said++;
	ck_assert_msg(said == 1, "%s", s.printed + asked);
	s.printed[0] = '\0';
	client_prompt(&c, p, sizeof p);
	ck_assert_str_eq(p, "[#7 White | your move] > ");
	s.now += 5000;
	client_prompt(&c, p, sizeof p);
	ck_assert_str_eq(p, "[#7 White | your move] > ");   /* the same: nothing to redraw */
	size_t from = strlen(s.printed);
	client_tick(&c);
	ck_assert_str_eq(since(&s, from), "");
	s.now = 100000 + 270000;   /* 30 s left */
	client_tick(&c);
	client_tick(&c);
	ck_assert_str_eq(since(&s, from), "#7: 30 seconds left on your clock\n");
	s.now += 15000;
	client_tick(&c);
	ck_assert_str_eq(since(&s, from), "#7: 30 seconds left on your clock\n");
	s.now += 5000;   /* 10 s */
	client_tick(&c);
	client_tick(&c);
	ck_assert_str_eq(since(&s, from), "#7: 30 seconds left on your clock\n#7: 10 seconds left on your clock\n");
	client_free(&c);

	/* a game not shown says so, as its other lines do (the screen-reader probe) */
	sink_client(&c, &s);
	c.plain = true;
	sink_game_start(&c, 7, "white", true);
	sink_game_start(&c, 9, "white", true);
	long shown = c.current;
	from = strlen(s.printed);
	s.now += 271000;
	client_tick(&c);
	char want[160];
	snprintf(want, sizeof want, "#%ld (another game): 29 seconds left on your clock\n", shown == 7 ? 9L : 7L);
	ck_assert_msg(strstr(since(&s, from), want), "%s", since(&s, from));
	client_free(&c);

	/* ghosts and a switch in words, not a board read out again */
	sink_client(&c, &s);
	c.plain = true;
	sink_game_start(&c, 7, "white", false);
	sink_game_start(&c, 8, "black", true);
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "ghost place Nf3"), 0);
	ck_assert_str_eq(since(&s, from), "#8: Your ghosts: white knight f3\n");
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "ghost clear"), 0);
	ck_assert_str_eq(since(&s, from), "#8: No ghosts\n");
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "switch 7"), 0);
	ck_assert_str_eq(since(&s, from), "#7: untimed; your move\n");
	client_prompt(&c, p, sizeof p);
	ck_assert_str_eq(p, "[#7 White | your move] > ");
	ck_assert_int_eq(s.nsent, 0);
	client_free(&c);

	/* not --plain: the prompt ticks, and nothing is said */
	sink_client(&c, &s);
	sink_game_start(&c, 7, "white", true);
	ck_assert_ptr_nonnull(strstr(s.printed, "White's own board"));
	client_prompt(&c, p, sizeof p);
	ck_assert_str_eq(p, "[#7 White 5:00 | Black 5:00 | your move] > ");
	s.now += 290000;
	from = strlen(s.printed);
	client_tick(&c);
	ck_assert_str_eq(since(&s, from), "");
	client_free(&c);
}
END_TEST

/* pieces: one's own men by square, in words; the ghosts placed after them. */
START_TEST(pieces_reads_the_board_out)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	sink_game_start(&c, 7, "white", false);
	size_t from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "pieces"), 0);
	ck_assert_str_eq(since(&s, from), "#7: White: king e1, queen d1, rooks a1 h1, bishops c1 f1, knights b1 g1, "
	                                  "pawns a2 b2 c2 d2 e2 f2 g2 h2\n");
	ck_assert_int_eq(client_command(&c, "ghost place Nf6"), 0);
	ck_assert_int_eq(client_command(&c, "ghost place e5"), 0);
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "pieces"), 0);
	ck_assert_msg(strstr(since(&s, from), "\n#7: Your ghosts: black pawn e5, black knight f6\n") != NULL, "%s",
	              since(&s, from));
	ck_assert_int_eq(s.nsent, 0);   /* the client's own board: nothing sent */
	client_free(&c);

	/* Black's, after a capture of one of its men: only what stands */
	sink_client(&c, &s);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":9,\"rules\":\"icc\",\"white\":\"bob\","
	                   "\"black\":\"alice\",\"color\":\"black\",\"rated\":false,"
	                   "\"fen\":\"4k3/3q4/8/8/8/8/8/4K3 b - - 0 1\"}");
	client_flush(&c);
	from = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "pieces"), 0);
	ck_assert_str_eq(since(&s, from), "#9: Black: king e8, queen d7\n");
	client_free(&c);

	/* no game */
	sink_client(&c, &s);
	ck_assert_int_eq(client_command(&c, "pieces"), -1);
	client_free(&c);
}
END_TEST

/* A game of rule set `rules` from fen, both sides' clients told as the server tells them. */
static void both_start(struct client *w, struct sink *ws, struct client *b, struct sink *bs, const char *rules,
                       const char *fen)
{
	char line[512];
	sink_client(w, ws);
	sink_client(b, bs);
	for (int col = WHITE; col <= BLACK; col++) {
		snprintf(line, sizeof line,
		         "{\"event\":\"game_start\",\"game\":4,\"rules\":\"%s\",\"white\":\"alice\",\"black\":\"bob\","
		         "\"color\":\"%s\",\"rated\":false,\"fen\":\"%s\"}",
		         rules, col == WHITE ? "white" : "black", fen);
		client_receive(col == WHITE ? w : b, line);
		client_flush(col == WHITE ? w : b);
	}
}

/* Each event of ev handed to whoever heard it, then both flushed; ev cleared. */
static void both_hear(struct client *w, struct client *b, const struct ruleset *rs, struct evlist *ev)
{
	for (size_t k = 0; k < ev->n; k++)
		for (int col = WHITE; col <= BLACK; col++) {
			if (!(ev->v[k].audience & aud_of(col)))
				continue;
			json_t *j = event_to_json(&ev->v[k], rs, 4);
			char *line = json_dumps(j, JSON_COMPACT);
			client_receive(col == WHITE ? w : b, line);
			free(line);
			json_decref(j);
		}
	evlist_clear(ev);
	client_flush(w);
	client_flush(b);
}

/* The tries played in order by the side to move, each event handed to whoever heard it. */
static void both_play(struct client *w, struct client *b, const char *rules, const char *fen,
                      const char *const *tries, size_t n)
{
	char err[128];
	const struct ruleset *rs = ruleset_find(rules);
	ck_assert_ptr_nonnull(rs);
	struct referee *r = referee_new(rs, fen, err, sizeof err);
	ck_assert_msg(r != NULL, "%s", err);
	struct evlist ev;
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	evlist_clear(&ev);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(referee_attempt(r, referee_side_to_move(r), tries[i], &ev), REF_OK);
		both_hear(w, b, rs, &ev);
	}
	evlist_free(&ev);
	referee_free(r);
}

/* One's own man taken is named ("your queen"), read off one's own board;
 * the other side's never is: the capturer hears the rules' words alone. */
START_TEST(own_man_captured_is_named)
{
	struct client w, b;
	struct sink ws, bs;
	static const char *const fxe6[] = { "fxe6" };
	const char *fen = "4k3/5p2/4Q3/8/8/8/8/4K3 b - - 0 1";
	both_start(&w, &ws, &b, &bs, "icc", fen);
	both_play(&w, &b, "icc", fen, fxe6, 1);
	ck_assert_msg(strstr(ws.printed, "#4: Black captured a piece on e6 (your queen)\n") != NULL, "%s", ws.printed);
	ck_assert_msg(strstr(bs.printed, "(your") == NULL && strstr(bs.printed, "queen") == NULL, "%s", bs.printed);
	client_free(&w);
	client_free(&b);

	/* the other way round: White takes, Black's pawn is named to Black alone */
	static const char *const kxd2[] = { "Kxd2" };
	fen = "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1";
	both_start(&w, &ws, &b, &bs, "icc", fen);
	both_play(&w, &b, "icc", fen, kxd2, 1);
	ck_assert_msg(strstr(bs.printed, "#4: White captured a pawn on d2 (your pawn)\n") != NULL, "%s", bs.printed);
	ck_assert_msg(strstr(ws.printed, "(your") == NULL, "%s", ws.printed);
	/* and in the list under the board */
	ck_assert_int_eq(client_command(&b, "board"), 0);
	ck_assert_msg(strstr(bs.printed, "1. White captured a pawn on d2 (your pawn)\n") != NULL, "%s", bs.printed);
	client_free(&w);
	client_free(&b);

	/* gollon names en passant's landing square: the pawn taken stood
	 * behind it (the wording probe: not named) */
	static const char *const exd6[] = { "exd6" };
	fen = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
	both_start(&w, &ws, &b, &bs, "gollon", fen);
	both_play(&w, &b, "gollon", fen, exd6, 1);
	ck_assert_msg(strstr(bs.printed, "White captured on d6 en passant (your pawn)\n") != NULL, "%s", bs.printed);
	ck_assert_msg(strstr(ws.printed, "(your") == NULL, "%s", ws.printed);
	client_free(&w);
	client_free(&b);
}
END_TEST

/* A nost game from fen: White's client sends "quiet" with seq (n items),
 * the referee plays it, both hear it and White's request is answered.
 * *r and *ev are the caller's to free. */
static void quiet_sent(struct client *w, struct sink *ws, struct client *b, struct sink *bs, const char *fen,
                       const char *const *seq, size_t n, struct referee **r, struct evlist *ev)
{
	char err[128], line[128] = "quiet";
	const struct ruleset *rs = ruleset_find("nost");
	both_start(w, ws, b, bs, "nost", fen);
	*r = referee_new(rs, fen, err, sizeof err);
	ck_assert_msg(*r != NULL, "%s", err);
	evlist_init(ev);
	ck_assert_int_eq(referee_begin(*r, ev), REF_OK);
	evlist_clear(ev);
	for (size_t i = 0; i < n; i++)
		snprintf(line + strlen(line), sizeof line - strlen(line), " %s", seq[i]);
	ck_assert_int_eq(client_command(w, line), 0);
	ck_assert_int_eq(referee_quiet(*r, WHITE, seq, n, ev), REF_OK);
	both_hear(w, b, rs, ev);
	sink_reply_ok(w, ws, "\"game\":4");
	client_flush(w);
}

/* Black plays try; what White's client printed of it. */
static const char *black_plays(struct client *w, struct sink *ws, struct client *b, struct referee *r,
                               struct evlist *ev, const char *try)
{
	size_t from = strlen(ws->printed);
	ck_assert_int_eq(referee_attempt(r, BLACK, try, ev), REF_OK);
	both_hear(w, b, ruleset_find("nost"), ev);
	return ws->printed + from;
}

/* nost's "if quiet": the items the server plays for us get no "your move"
 * before them (the wording probe: said before each); once the sequence
 * has run out, the move is ours and said so. */
START_TEST(quiet_sequence_no_your_move_between)
{
	struct client w, b;
	struct sink ws, bs;
	struct referee *r;
	struct evlist ev;
	static const char *const seq[] = { "Nf3", "Nc3", "Rb1" };
	quiet_sent(&w, &ws, &b, &bs, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", seq, 3, &r, &ev);
	static const char *const black[] = { "a6", "a5", "h6" };
	for (int i = 0; i < 3; i++) {
		const char *heard = black_plays(&w, &ws, &b, r, &ev, black[i]);
		if (i < 2)   /* Nc3, then Rb1 played for White: no "your move" before them */
			ck_assert_msg(strstr(heard, i ? "You played Rb1" : "You played Nc3") && !strstr(heard, "your move"),
			              "%s", heard);
		else         /* the sequence ran out: White's move, said */
			ck_assert_msg(strstr(heard, "#4: your move"), "%s", heard);
	}
	evlist_free(&ev);
	referee_free(r);
	client_free(&w);
	client_free(&b);
}
END_TEST

/* A sequence whose first item stops it at once (e4 with a pawn capture
 * there for either side: its quiet_ended comes before the request's
 * answer) leaves the move ours, and said (a review: the answer counted the
 * rest as still to be played, and "your move" was never said again). */
START_TEST(quiet_stopped_at_once)
{
	struct client w, b;
	struct sink ws, bs;
	struct referee *r;
	struct evlist ev;
	static const char *const seq[] = { "e4", "Nf3" };
	quiet_sent(&w, &ws, &b, &bs, "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", seq, 2, &r, &ev);
	const char *heard = black_plays(&w, &ws, &b, r, &ev, "a6");
	ck_assert_msg(strstr(heard, "#4: your move"), "%s", heard);
	evlist_free(&ev);
	referee_free(r);
	client_free(&w);
	client_free(&b);
}
END_TEST

/* The last request sent, as its text. */
static const char *last_sent(const struct sink *s)
{
	ck_assert_int_gt(s->nsent, 0);
	return s->sent[s->nsent - 1];
}

static void start_fen(struct client *c, struct sink *s, const char *fen)
{
	char line[512];
	sink_client(c, s);
	snprintf(line, sizeof line,
	         "{\"event\":\"game_start\",\"game\":3,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	         "\"color\":\"white\",\"rated\":false,\"fen\":\"%s\"}", fen);
	client_receive(c, line);
	client_flush(c);
}

/*
 * Moves as speech input writes them: "e2 e4" (it answered "e2: no own pawn
 * can move to e2") is e2e4; "nf3", "qh5" (refused: not a command or a
 * move) are Nf3, Qh5; a lower-case b is a bishop only where no pawn of
 * one's own could make the move.
 */
START_TEST(spoken_moves_are_read_as_meant)
{
	struct client c;
	struct sink s;
	start_fen(&c, &s, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
	ck_assert_int_eq(client_command(&c, "e2 e4"), 0);
	ck_assert_msg(strstr(last_sent(&s), "\"move\":\"e2e4\"") != NULL, "%s", last_sent(&s));
	ck_assert_int_eq(client_command(&c, "nf3"), 0);
	ck_assert_msg(strstr(last_sent(&s), "\"move\":\"Nf3\"") != NULL, "%s", last_sent(&s));
	ck_assert_int_eq(client_command(&c, "g1 f3"), 0);
	ck_assert_msg(strstr(last_sent(&s), "\"move\":\"g1f3\"") != NULL, "%s", last_sent(&s));
	/* nothing of one's own on e3: a preference list, as before */
	ck_assert_int_eq(client_command(&c, "e3 e4"), 0);
	ck_assert_msg(strstr(last_sent(&s), "\"moves\":[\"e3\",\"e4\"]") != NULL, "%s", last_sent(&s));
	ck_assert_int_eq(client_command(&c, "e2 e4 d2 d4"), 0);
	ck_assert_msg(strstr(last_sent(&s), "\"moves\":[\"e2e4\",\"d2d4\"]") != NULL, "%s", last_sent(&s));
	/* a word that is no move stays as typed in the refusal */
	ck_assert_int_eq(client_command(&c, "nonsense"), -1);
	ck_assert_msg(strstr(s.printed, "\"nonsense\" is not a command or a move") != NULL, "%s", s.printed);
	client_free(&c);

	start_fen(&c, &s, "4k3/8/8/8/8/1P6/8/4KBQ1 w - - 0 1");
	ck_assert_int_eq(client_command(&c, "qh1"), 0);
	ck_assert_msg(strstr(last_sent(&s), "\"move\":\"Qh1\"") != NULL, "%s", last_sent(&s));
	/* bxc4: the b3 pawn can try it, so it is the pawn's */
	ck_assert_int_eq(client_command(&c, "bxc4"), 0);
	ck_assert_msg(strstr(last_sent(&s), "\"move\":\"bxc4\"") != NULL, "%s", last_sent(&s));
	/* bd3: no pawn of one's own can; the bishop can */
	ck_assert_int_eq(client_command(&c, "bd3"), 0);
	ck_assert_msg(strstr(last_sent(&s), "\"move\":\"Bd3\"") != NULL, "%s", last_sent(&s));
	client_free(&c);
}
END_TEST

static Suite *blind_suite(void)
{
	Suite *s = suite_create("client_blind");
	TCase *tc = tcase_create("blind");
	tcase_add_test(tc, time_says_the_clocks);
	tcase_add_test(tc, game_shows_the_clocks);
	tcase_add_test(tc, plain_prompt_and_low_time);
	tcase_add_test(tc, pieces_reads_the_board_out);
	tcase_add_test(tc, own_man_captured_is_named);
	tcase_add_test(tc, quiet_sequence_no_your_move_between);
	tcase_add_test(tc, quiet_stopped_at_once);
	tcase_add_test(tc, spoken_moves_are_read_as_meant);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(blind_suite)
