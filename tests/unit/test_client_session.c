/*
 * test_client_session.c — the client's state machine without a server:
 * protocol lines in (built by the real referee and the shared event
 * codec), requests out (counted byte by byte), the board and words the
 * player sees.  Proves that ghosts never reach the server.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "check_main.h"
#include "client.h"
#include "client_fixture.h"
#include "fen.h"
#include "cmd.h"
#include "scrub.h"
#include "render.h"
#include "words.h"
#include "event_json.h"
#include "referee.h"

static void make_client(struct client *c, struct sink *s, bool batch)
{
	sink_client(c, s);
	c->batch = batch;
	c->print_raw = sink_raw;
}

/* Hand every event of `evs` addressed to `color` to client c, as the server would. */
static void deliver(struct client *c, const struct evlist *evs, int color, long game)
{
	for (size_t i = 0; i < evs->n; i++) {
		if (!(evs->v[i].audience & aud_of(color)))
			continue;
		json_t *j = event_to_json(&evs->v[i], ruleset_find("icc"), (int)game);
		ck_assert_ptr_nonnull(j);
		char *s = json_dumps(j, JSON_COMPACT);
		client_receive(c, s);
		free(s);
		json_decref(j);
	}
}

/* The board is redrawn after every event that changes what it shows:
 * in crazykrieg the opponent's drop changes only the reserves under it. */
START_TEST(board_redrawn_when_what_it_shows_changes)
{
	struct client c;
	struct sink s;
	char err[128];
	make_client(&c, &s, false);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":5,\"rules\":\"crazykrieg\","
	                   "\"white\":\"alice\",\"black\":\"bob\",\"color\":\"white\",\"rated\":false}");
	const struct ruleset *rs = ruleset_find("crazykrieg");
	ck_assert_ptr_nonnull(rs);
	struct referee *r = referee_new(rs, NULL, err, sizeof err);
	struct evlist ev;
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	static const char *const tries[] = { "e4", "d5", "exd5", "Qxd5", "Nc3", "P@e5" };
	/* Black's d5 changes nothing White's board shows; Black's capture on
	 * d5 and Black's drop (a reserve) do. */
	static const int redraws[] = { 1, 0, 1, 1, 1, 1 };
	client_flush(&c);
	int boards = 0;
	for (const char *p = s.printed; (p = strstr(p, "White's own board")) != NULL; p++)
		boards++;
	for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		int side = referee_side_to_move(r);
		ck_assert_int_eq(referee_attempt(r, side, tries[i], &ev), REF_OK);
		for (size_t k = 0; k < ev.n; k++) {
			if (!(ev.v[k].audience & AUD_WHITE))
				continue;
			json_t *j = event_to_json(&ev.v[k], rs, 5);
			char *line = json_dumps(j, JSON_COMPACT);
			client_receive(&c, line);
			free(line);
			json_decref(j);
		}
		evlist_clear(&ev);
		client_flush(&c);
		int now = 0;
		for (const char *p = s.printed; (p = strstr(p, "White's own board")) != NULL; p++)
			now++;
		ck_assert_msg(now == boards + redraws[i], "after %s: %d boards, want %d", tries[i], now,
		              boards + redraws[i]);
		boards = now;
	}
	/* The last board shows Black's reserve emptied by the drop. */
	const char *last = s.printed;
	for (const char *p = last; (p = strstr(p, "In hand:")) != NULL; p++)
		last = p;
	ck_assert_msg(strncmp(last, "In hand: White P | Black -", 26) == 0, "%.40s", last);
	evlist_free(&ev);
	referee_free(r);
	client_free(&c);
}
END_TEST

/* The list under the board: numbered, and each announcement once, also
 * across a reconnection whose game_state repeats the record so far. */
START_TEST(board_list_has_no_duplicates)
{
	struct client c;
	struct sink s;
	char err[128];
	make_client(&c, &s, false);
	sink_game_start(&c, 6, "white", false);
	const struct ruleset *rs = ruleset_find("icc");
	struct referee *r = referee_new(rs, NULL, err, sizeof err);
	struct evlist ev, all;
	evlist_init(&ev);
	evlist_init(&all);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	static const char *const tries[] = { "e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "Nf3" };
	for (size_t i = 0; i <= sizeof tries / sizeof tries[0]; i++) {
		if (i > 0) {
			int side = referee_side_to_move(r);
			ck_assert_int_eq(referee_attempt(r, side, tries[i - 1], &ev), REF_OK);
		}
		for (size_t k = 0; k < ev.n; k++)
			if (ev.v[k].audience & AUD_WHITE)
				evlist_push(&all, &ev.v[k]);
		/* the reconnection, after Black's Qxd5: the state so far, again */
		if (i == 4) {
			json_t *st = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:b, s:i, s:[]}", "event",
			                       "game_state", "game", 6, "rules", "icc", "white", "alice",
			                       "black", "bob", "color", "white", "rated", 0, "spectators", 2,
			                       "events");
			for (size_t k = 0; k < all.n; k++)
				json_array_append_new(json_object_get(st, "events"),
				                      event_to_json(&all.v[k], rs, 6));
			char *line = json_dumps(st, JSON_COMPACT);
			client_receive(&c, line);
			free(line);
			json_decref(st);
		} else {
			for (size_t k = 0; k < ev.n; k++) {
				if (!(ev.v[k].audience & AUD_WHITE))
					continue;
				json_t *j = event_to_json(&ev.v[k], rs, 6);
				char *line = json_dumps(j, JSON_COMPACT);
				client_receive(&c, line);
				free(line);
				json_decref(j);
			}
		}
		evlist_clear(&ev);
	}
	client_flush(&c);
	/* who watches, as the state said */
	ck_assert_msg(strstr(s.printed, "Game 6: alice (White) vs bob (Black), rules icc, untimed; you play White; 2 watching."),
	              "%s", s.printed);
	struct cgame *g = client_current(&c);
	ck_assert_ptr_nonnull(g);
	static char buf[RENDER_BOARD_MAX + CLIENT_LOG_MAX * (WORDS_MAX + 4)];
	client_render(&c, g, buf, sizeof buf);
	/* the lines under the board ("  N. words"), each once */
	char *lines[64];
	int n = 0;
	for (char *p = strtok(buf, "\n"); p && n < 64; p = strtok(NULL, "\n"))
		if (p[0] == ' ' && p[1] == ' ' && p[2] >= '0' && p[2] <= '9')
			lines[n++] = p;
	ck_assert_int_ge(n, 4);
	for (int i = 0; i < n; i++)
		for (int k = i + 1; k < n; k++)
			ck_assert_msg(strcmp(lines[i], lines[k]) != 0, "twice: %s", lines[i]);
	ck_assert_ptr_nonnull(strstr(lines[n - 1], "4."));   /* White's Nf3 is move 4 */
	evlist_free(&ev);
	evlist_free(&all);
	referee_free(r);
	client_free(&c);
}
END_TEST

START_TEST(ghosts_never_reach_the_server)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	sink_game_start(&c, 4, "white", false);
	ck_assert_int_eq(c.current, 4);
	size_t before = s.bytes;
	int nbefore = s.nsent;
	static const char *const cmds[] = {
		"ghost place Nf6", "ghost place e5", "ghost move f6 g4", "ghost clear e5",
		"ghost place Qd8", "ghost clear", "ghost place Bb4", "board", "help",
	};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		ck_assert_int_eq(client_command(&c, cmds[i]), 0);
	/* refused ghost commands send nothing either */
	ck_assert_int_eq(client_command(&c, "ghost place Ne2"), -1);
	ck_assert_int_eq(client_command(&c, "ghost move a1 a2"), -1);
	ck_assert_int_eq(s.bytes, before);
	ck_assert_int_eq(s.nsent, nbefore);
	struct cgame *g = client_current(&c);
	ck_assert_int_eq(ghost_count(&g->ghosts), 1);
	ck_assert_int_eq(g->ghosts.sq[square_parse("b4")], piece_code(BLACK, BISHOP));
	/* the board the player sees shows it, bracketed */
	ck_assert_ptr_nonnull(strstr(s.printed, "[b]"));
	client_free(&c);
}
END_TEST

/* "help" shows the whole table: the words went through a 2 KB buffer that
 * cut the help (over 2 KB) off in the middle of a line. */
START_TEST(help_is_shown_whole)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "help"), 0);
	ck_assert_ptr_nonnull(strstr(s.printed, cmd_help()));
	client_free(&c);
}
END_TEST

/* help WORD: the command so named first, then the others whose line
 * mentions WORD (any case); none: a refusal that says how to get the list. */
START_TEST(help_about_a_word)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "help watch"), 0);
	ck_assert_msg(strncmp(s.printed, "  watch GAME ", 13) == 0, "%s", s.printed);   /* the one named first */
	ck_assert_ptr_nonnull(strstr(s.printed, "\n  unwatch [GAME] "));
	ck_assert_ptr_null(strstr(s.printed, "  resign "));
	ck_assert_ptr_null(strstr(s.printed, "Commands ("));
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "help UMPIRE"), 0);
	ck_assert_ptr_nonnull(strstr(s.printed, "  umpire GAME "));
	ck_assert_ptr_nonnull(strstr(s.printed, "  adjudicate RESULT "));
	ck_assert_ptr_null(strstr(s.printed, "  resign "));
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "help zzzz"), -1);
	ck_assert_msg(strstr(s.printed, "No command or rule set is named \"zzzz\", nor does a command mention it"),
	              "%s", s.printed);
	client_free(&c);
}
END_TEST

/* help RULES: what that rule set's umpire says (a probe: "help english"
 * printed nothing about english), then the commands that mention it; in
 * --batch too (words asked for); an unknown word stays unknown. */
START_TEST(help_about_a_rule_set)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "help english"), 0);
	ck_assert_msg(strncmp(s.printed, "Rule set english (the Gambit Club, London, 1933):\n", 50) == 0, "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "Answered yes or no, heard by both"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "After\n  a yes you must try a pawn capture first"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "\"White tried an illegal move\" to the opponent"), "%s", s.printed);
	/* what krieg itself refuses, said (the wording probe) */
	ck_assert_msg(strstr(s.printed, "(krieg refuses a try none of your men can make before it is sent"), "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "Commands ("));
	s.printed[0] = '\0';
	/* kriegspiel.org's name for icc, in any case */
	ck_assert_int_eq(client_command(&c, "help WILD16"), 0);
	ck_assert_msg(strncmp(s.printed, "Rule set icc (the default;", 26) == 0, "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "(\"Black has 2 pawn tries\"); there is no \"any?\"."), "%s", s.printed);
	s.printed[0] = '\0';
	/* the rule set, then the commands that name it */
	ck_assert_int_eq(client_command(&c, "help nost"), 0);
	const char *rules = strstr(s.printed, "Rule set nost (NOST postal rules, 1995):");
	const char *quiet = strstr(s.printed, "\n  quiet MOVE MOVE...");
	ck_assert_msg(rules == s.printed && quiet != NULL, "%s", s.printed);
	ck_assert_ptr_nonnull(strstr(s.printed, "(\"White made 1 illegal try\n  before moving\")"));
	client_free(&c);
	make_client(&c, &s, true);
	ck_assert_int_eq(client_command(&c, "help rand"), 0);
	ck_assert_msg(strstr(s.printed, "Stalemate\n  loses: the stalemated side loses."), "%s", s.printed);
	/* the rule sets named, with their sources, then the commands taking
	 * one (the newcomer probe: no help named them) */
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "help RULES"), 0);
	ck_assert_msg(strncmp(s.printed, "Rule sets (seek, challenge and pair take the name;", 50) == 0, "%s", s.printed);
	const char *names[] = { "icc (the default;", "english (the Gambit", "insurance (", "nost (", "gollon (",
	                        "berkeley (", "berkeley_any (", "cincinnati (", "rand (", "crazykrieg (" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char line[64];
		snprintf(line, sizeof line, "\n  %s", names[i]);
		ck_assert_msg(strstr(s.printed, line), "%s: %s", names[i], s.printed);
	}
	ck_assert_ptr_nonnull(strstr(s.printed, "\n  seek [RULES] "));
	ck_assert_ptr_null(strstr(s.printed, "Rule set icc"));   /* names, not the rule sets' texts */
	ck_assert_int_eq(client_command(&c, "help wild17"), -1);
	ck_assert_ptr_nonnull(strstr(s.printed, "No command or rule set is named \"wild17\""));
	client_free(&c);
}
END_TEST

/* The game's line says its time control, "untimed" too (a probe: an
 * untimed game's header said nothing, where a timed one's prompt shows the
 * clocks): a game_start, a login's game_state, correspondence. */
/* What --plain's reader cannot glance at is said (the screen-reader
 * probe): an absent opponent's deadline by `time` (said once, and in no
 * prompt), the older announcements `board` leaves out, and which game a
 * refusal is about, without the code read out. */
START_TEST(plain_says_what_the_screen_shows)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	c.plain = true;
	sink_game_start(&c, 3, "black", true);
	client_receive(&c, "{\"event\":\"opponent_away\",\"game\":3,\"color\":\"white\",\"until\":1767225600000,"
	                   "\"left\":60000}");
	ck_assert_int_eq(client_command(&c, "time"), 0);
	ck_assert_msg(strstr(s.printed, "#3: White 5:00, Black 5:00; their move; White is away, back within 1:00 or the "
	                                "game is lost by abandonment\n"), "%s", s.printed);
	for (int ply = 0; ply < 10; ply++) {
		char line[160];
		snprintf(line, sizeof line, "{\"event\":\"pawn_tries\",\"by\":\"white\",\"count\":%d,\"ply\":0,\"game\":3}", ply);
		client_receive(&c, line);
	}
	client_flush(&c);
	ck_assert_int_eq(client_command(&c, "board"), 0);
	ck_assert_msg(strstr(s.printed, "(2 earlier announcements: \"record 3\" has them all)\n"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "possible"), 0);
	char refusal[160];
	snprintf(refusal, sizeof refusal, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"game_over\",\"message\":"
	         "\"the game is over\"}}", sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, refusal);
	ck_assert_msg(strstr(s.printed, "#3: possible refused: the game is over\n"), "%s", s.printed);
	/* a player's abort (a command that needs no game: the umpire's abort
	 * names its chair's) is refused under its game's number too, and a
	 * command about no game under none (the TD probe) */
	ck_assert_int_eq(client_command(&c, "abort --yes"), 0);
	snprintf(refusal, sizeof refusal, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"game_over\",\"message\":"
	         "\"the game is over\"}}", sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, refusal);
	ck_assert_msg(strstr(s.printed, "#3: abort refused: the game is over\n"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "follow bob"), 0);
	size_t at = strlen(s.printed);
	snprintf(refusal, sizeof refusal, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"no_such_user\",\"message\":"
	         "\"no such user\"}}", sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, refusal);
	ck_assert_msg(!strncmp(s.printed + at, "follow refused: no such user", 28), "%s", s.printed + at);
	client_free(&c);
}
END_TEST

START_TEST(game_header_says_the_time_control)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	sink_game_start(&c, 6, "white", false);
	ck_assert_msg(strstr(s.printed, "New game 6: alice (White) vs bob (Black), rules icc, untimed; you play White."),
	              "%s", s.printed);
	sink_game_start(&c, 7, "black", true);
	ck_assert_msg(strstr(s.printed, "New game 7: alice (White) vs bob (Black), rules icc, 5+0; you play Black."),
	              "%s", s.printed);
	client_receive(&c, "{\"event\":\"game_state\",\"game\":8,\"rules\":\"nost\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,"
	                   "\"to_move\":\"white\",\"time\":{\"days\":3},"
	                   "\"clock\":{\"white\":259200000,\"black\":259200000}}");
	ck_assert_msg(strstr(s.printed, "Game 8: alice (White) vs bob (Black), rules nost, 3 days a move; you play White"),
	              "%s", s.printed);
	client_free(&c);
}
END_TEST

/* An ambiguous try names what it could be, on the player's own board (a
 * probe: "Nd2" was refused without the candidates); nothing is sent. */
START_TEST(ambiguous_try_lists_the_candidates)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":3,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,"
	                   "\"fen\":\"4k3/8/8/8/8/5N2/8/1N2K2R w K - 0 1\"}");
	client_flush(&c);
	int sent = s.nsent;
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "Nd2"), -1);
	ck_assert_msg(strstr(s.printed, "Nd2: ambiguous, say which: Nbd2 or Nfd2\n"), "%s", s.printed);
	/* spoken, and in a preference list */
	ck_assert_int_eq(client_command(&c, "Kf1 nd2"), -1);
	ck_assert_msg(strstr(s.printed, "Nd2: ambiguous, say which: Nbd2 or Nfd2\n"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "Nbd2"), 0);
	ck_assert_int_eq(s.nsent, sent + 1);
	client_free(&c);
	/* three knights: each named as the player's own board tells them apart */
	make_client(&c, &s, false);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":3,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,"
	                   "\"fen\":\"4k3/8/8/8/8/1N3N2/8/1N2K3 w - - 0 1\"}");
	client_flush(&c);
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "Nxd2"), -1);
	ck_assert_msg(strstr(s.printed, "Nxd2: ambiguous, say which: N1d2, Nb3d2 or Nfd2\n"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "Nbd2"), -1);   /* b1 and b3 */
	ck_assert_msg(strstr(s.printed, "Nbd2: ambiguous, say which: N1d2 or Nb3d2\n"), "%s", s.printed);
	ck_assert_int_eq(s.nsent, 0);
	client_free(&c);
}
END_TEST

/* Ghost commands where no board is drawn (--batch) say what they did, a
 * line each (a probe: nothing at all came out); at a terminal the board
 * redrawn shows it. */
START_TEST(ghosts_say_what_they_did)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, true);
	sink_game_start(&c, 4, "white", false);
	s.printed[0] = '\0';
	static const struct { const char *cmd, *said; } steps[] = {
		{ "ghost place Nf6", "#4: ghost black knight placed on f6\n" },
		{ "ghost place e5", "#4: ghost black pawn placed on e5\n" },
		{ "ghost move f6 g4", "#4: ghost black knight moved from f6 to g4\n" },
		{ "ghost clear e5", "#4: ghost on e5 cleared\n" },
		{ "ghost clear", "#4: all ghosts cleared\n" },
	};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		ck_assert_int_eq(client_command(&c, steps[i].cmd), 0);
		ck_assert_str_eq(s.printed, steps[i].said);
		s.printed[0] = '\0';
	}
	ck_assert_int_eq(s.nsent, 0);
	client_free(&c);
	make_client(&c, &s, false);
	sink_game_start(&c, 4, "white", false);
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "ghost place Nf6"), 0);
	ck_assert_msg(strstr(s.printed, "White's own board") && strstr(s.printed, "[n]") && !strstr(s.printed, "placed"),
	              "%s", s.printed);
	client_free(&c);
}
END_TEST

/* games: each game's time control, and a correspondence game's deadline
 * as `time` gives it (a probe: neither was shown). */
START_TEST(games_list_the_time_control)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);   /* wall clock 2026-01-01 00:00 UTC */
	ck_assert_int_eq(client_command(&c, "games"), 0);
	sink_reply_ok(&c, &s, "\"games\":["
	              "{\"game\":12,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"color\":\"white\","
	              "\"rated\":false,\"live\":true,\"to_move\":\"black\",\"clock\":{\"white\":299000,"
	              "\"black\":300000},\"time\":{\"base\":300.0,\"inc\":2.0}},"
	              "{\"game\":13,\"rules\":\"nost\",\"white\":\"carl\",\"black\":\"alice\",\"color\":\"black\","
	              "\"rated\":false,\"live\":true,\"to_move\":\"white\",\"clock\":{\"white\":90000000,"
	              "\"black\":259200000},\"time\":{\"days\":3}},"
	              "{\"game\":14,\"rules\":\"english\",\"white\":\"alice\",\"black\":\"dave\",\"color\":\"white\","
	              "\"rated\":false,\"live\":true,\"to_move\":\"white\"},"
	              "{\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"color\":\"white\","
	              "\"rated\":false,\"live\":false,\"result\":\"0-1\",\"reason\":\"checkmate\","
	              "\"time\":{\"base\":60.0,\"inc\":0.0}},"
	              "{\"game\":8,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"color\":\"white\","
	              "\"rated\":false,\"live\":false,\"result\":\"*\",\"reason\":\"aborted\"}],\"total\":5");
	ck_assert_msg(strstr(s.printed, "  game 12: alice vs bob, icc, you are white, black to move; 5+2\n"), "%s",
	              s.printed);
	ck_assert_msg(strstr(s.printed, "  game 13: carl vs alice, nost, you are black, white to move; 3 days a move, "
	                     "White's time runs out 2026-01-02 01:00 UTC\n"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "  game 14: alice vs dave, english, you are white, white to move; untimed\n"),
	              "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "  game 9: alice vs bob, icc, you are white, finished 0-1 by checkmate; 1+0\n"),
	              "%s", s.printed);
	/* its ending as history says it (the CLI probe: "finished *") */
	ck_assert_msg(strstr(s.printed, "  game 8: alice vs bob, icc, you are white, finished aborted; untimed\n"),
	              "%s", s.printed);
	client_free(&c);
}
END_TEST

/* quit as a guest with a live game: told that it will be lost (a guest
 * cannot come back); an account's quit says nothing (its games wait). */
START_TEST(guest_quit_warns)
{
	static const char *const logins[] = { "guest", "login alice pw-on-the-line" };
	for (int k = 0; k < 2; k++) {
		struct client c;
		struct sink s;
		make_client(&c, &s, false);
		c.interactive = false;
		client_command(&c, logins[k]);
		sink_reply_ok(&c, &s, k == 0 ? "\"user\":\"guest-ab12\",\"token\":\"t0k\""
		                             : "\"user\":\"alice\",\"token\":\"t0k\"");
		ck_assert(c.logged_in);
		ck_assert_str_eq(c.user, k == 0 ? "guest-ab12" : "alice");
		ck_assert_int_eq(client_command(&c, "quit"), CLIENT_QUIT);
		ck_assert_ptr_null(strstr(s.printed, "You are a guest"));   /* no game: nothing to lose */
		sink_game_start(&c, 4, "white", false);
		ck_assert_int_eq(client_command(&c, "quit"), CLIENT_QUIT);
		ck_assert_msg((strstr(s.printed, "You are a guest") != NULL) == (k == 0), "%s", s.printed);
		ck_assert_ptr_null(strstr(s.printed, "of your games"));   /* untimed, a person: it waits */
		/* An account's games the grace applies to are said (bot probe: an
		 * untimed game against a bot was quit, and lost, unwarned): one
		 * against a bot, one with a clock. */
		client_receive(&c, "{\"event\":\"game_start\",\"game\":5,\"rules\":\"icc\",\"white\":\"alice\","
		                   "\"black\":\"robo\",\"color\":\"white\",\"rated\":false,\"bots\":[\"black\"]}");
		sink_game_start(&c, 6, "white", true);
		s.printed[0] = '\0';
		ck_assert_int_eq(client_command(&c, "quit"), CLIENT_QUIT);
		if (k == 1)
			ck_assert_msg(strstr(s.printed, "2 of your games (with a clock, or against a bot) will be lost by "
			                     "abandonment unless you log in again") != NULL, "%s", s.printed);
		/* and the bot's game said unrated (bot probe: a rated challenge to
		 * a bot started unrated, unsaid) */
		client_receive(&c, "{\"event\":\"game_start\",\"game\":7,\"rules\":\"icc\",\"white\":\"alice\","
		                   "\"black\":\"robo\",\"color\":\"white\",\"rated\":false,\"bots\":[\"black\"]}");
		ck_assert_msg(strstr(s.printed, "vs robo (Black, a bot), rules icc, untimed, unrated (a bot's game); "
		                     "you play White") != NULL, "%s", s.printed);
		/* Regression (the help probe): a guest's passwd asked for three
		 * passwords, or took one on the line, before the server said no */
		if (k == 0) {
			int sent = s.nsent;
			ck_assert_int_eq(client_command(&c, "passwd old-password new-password"), -1);
			ck_assert_msg(strstr(s.printed, "passwd: a guest has no password to change") != NULL, "%s",
			              s.printed);
			ck_assert_int_eq(s.nsent, sent);
		}
		client_free(&c);
	}
}
END_TEST

/* The played move is echoed as the server wrote it: a typed 'x' onto a
 * square that held nothing came back as "Qxe4+" (the echo re-added it),
 * telling the player of a capture that did not happen. */
START_TEST(played_move_echoed_as_the_server_wrote_it)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":3,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"black\",\"rated\":false,"
	                   "\"fen\":\"4k3/8/8/3q4/8/8/8/4K3 b - - 0 1\"}");
	ck_assert_int_eq(client_command(&c, "Qxe4"), 0);
	client_receive(&c, "{\"event\":\"move\",\"game\":3,\"by\":\"black\",\"ply\":1,\"move\":\"d5e4\","
	                   "\"san\":\"Qe4+\",\"say\":\"Black played Qe4+\"}");
	client_flush(&c);
	ck_assert_msg(strstr(s.printed, "You played Qe4+") != NULL, "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "Qxe4"));
	client_free(&c);
}
END_TEST

/* raw shows its answer at the prompt (an admin's invite code went nowhere). */
START_TEST(raw_answer_is_shown)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "raw {\"type\":\"invite\"}"), 0);
	sink_reply_ok(&c, &s, "\"invite\":\"9DjLLyNhLvXy\",\"expires\":1797492626");
	ck_assert_msg(strstr(s.printed, "\"invite\":\"9DjLLyNhLvXy\"") != NULL, "%s", s.printed);
	client_free(&c);
}
END_TEST

/* Accounts flagged as bots are marked wherever krieg names a player from
 * the server's "bot"/"bots": who, the seeks, a new game (they were not). */
START_TEST(bots_are_marked)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "who"), 0);
	sink_reply_ok(&c, &s, "\"users\":[{\"name\":\"alice\",\"games\":1,\"role\":\"player\"},"
	                      "{\"name\":\"robo\",\"games\":0,\"bot\":true},"
	                      "{\"name\":\"ref\",\"games\":0,\"role\":\"umpire\"}],\"total\":3");
	ck_assert_ptr_nonnull(strstr(s.printed, "0 game(s), a bot"));
	ck_assert_ptr_nonnull(strstr(s.printed, "1 game(s)\n"));   /* a player: nothing more */
	ck_assert_ptr_nonnull(strstr(s.printed, "0 game(s), an umpire\n"));   /* whom to ask */
	ck_assert_ptr_null(strstr(s.printed, "1 game(s), a bot"));
	ck_assert_int_eq(client_command(&c, "seeks"), 0);
	sink_reply_ok(&c, &s, "\"offers\":[{\"offer\":9,\"user\":\"robo\",\"rules\":\"icc\",\"color\":\"random\","
	                      "\"rated\":false,\"bot\":true,\"rating\":{\"rating\":1500,\"provisional\":true}}],"
	                      "\"total\":1");
	ck_assert_msg(strstr(s.printed, "robo (a bot, 1500?): icc") != NULL, "%s", s.printed);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":5,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"robo\",\"color\":\"white\",\"rated\":false,\"bots\":[\"black\"]}");
	ck_assert_msg(strstr(s.printed, "alice (White) vs robo (Black, a bot)") != NULL, "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "round"));
	/* a director's pairing says its tournament and round, cleaned of escapes */
	client_receive(&c, "{\"event\":\"game_start\",\"game\":6,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,"
	                   "\"tournament\":\"Club \\u001b[31mOpen\",\"round\":\"2.1\"}");
	ck_assert_msg(strstr(s.printed, "\n  Club ") != NULL && strstr(s.printed, "Open, round 2.1.\n") != NULL &&
	              strchr(s.printed, 0x1b) == NULL, "%s", s.printed);
	client_free(&c);
}
END_TEST

/* An admin's commands answered in words (the invite code shown once, with
 * its date), and what the server says to everyone: a notice, the end of a
 * session (which the client then does not reconnect). */
START_TEST(admin_words_and_server_notices)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "invite"), 0);
	sink_reply_ok(&c, &s, "\"invite\":\"9DjLLyNhLvXy\",\"expires\":1797492626");
	ck_assert_msg(strstr(s.printed, "Invite code (single use, valid until 2026-12-17 ") &&
	              strstr(s.printed, "UTC): 9DjLLyNhLvXy"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "kick carol cool down"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"carol\",\"closed\":2");
	ck_assert_ptr_nonnull(strstr(s.printed, "Closed 2 connections of carol"));
	ck_assert_int_eq(client_command(&c, "broadcast the club closes at ten"), 0);
	sink_reply_ok(&c, &s, "\"sent\":12");
	ck_assert_ptr_nonnull(strstr(s.printed, "Sent to 12 connections."));
	client_receive(&c, "{\"event\":\"notice\",\"from\":\"boss\",\"text\":\"the club closes at ten\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Notice from boss: the club closes at ten"));
	/* Regression: a notice may hold 500 bytes; krieg cut it at 319. */
	char line[1024], text[501];
	memset(text, 'x', 500);
	text[499] = '!';
	text[500] = '\0';
	snprintf(line, sizeof line, "{\"event\":\"notice\",\"from\":\"boss\",\"text\":\"%s\"}", text);
	client_receive(&c, line);
	ck_assert_ptr_nonnull(strstr(s.printed, text));
	ck_assert(!c.ended);
	/* A stop said (the ops probe: it read as a lost connection), and
	 * reconnected from as any close is: the session is not ended. */
	client_receive(&c, "{\"event\":\"server_stopping\"}");
	ck_assert_msg(strstr(s.printed, "The server is stopping (a restart, or its admin took it down); "
	                                "your games are kept.") != NULL, "%s", s.printed);
	ck_assert(!c.ended);
	client_receive(&c, "{\"event\":\"session_ended\",\"reason\":\"cool down\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "The server ended this session: cool down."));
	ck_assert(c.ended);
	client_free(&c);
}
END_TEST

/* Paged lists are read to their end: who said "2 online" and stopped at the
 * first page of a longer list (so did seeks and games). */
START_TEST(paged_lists_read_to_the_end)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "who"), 0);
	sink_reply_ok(&c, &s, "\"users\":[{\"name\":\"alice\",\"games\":1},{\"name\":\"bob\",\"games\":0}],"
	                      "\"total\":3,\"next\":2");
	json_t *j = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "who");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "from")), 2);
	json_decref(j);
	sink_reply_ok(&c, &s, "\"users\":[{\"name\":\"carol\",\"games\":2}],\"total\":3");
	ck_assert_msg(strstr(s.printed, "3 online:") && strstr(s.printed, "carol"), "%s", s.printed);
	int n = s.nsent;
	ck_assert_int_eq(client_command(&c, "seeks"), 0);
	sink_reply_ok(&c, &s, "\"offers\":[{\"offer\":4,\"user\":\"alice\",\"rules\":\"icc\"}],\"total\":2,\"next\":1");
	j = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "seeks");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "from")), 1);
	json_decref(j);
	sink_reply_ok(&c, &s, "\"offers\":[{\"offer\":5,\"user\":\"bob\",\"rules\":\"nost\"}],\"total\":2");
	ck_assert_msg(strstr(s.printed, "offer 5: bob"), "%s", s.printed);
	ck_assert_int_eq(s.nsent, n + 2);   /* the last page asks for nothing more */
	client_free(&c);
}
END_TEST

START_TEST(moves_checked_on_own_pieces)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	sink_game_start(&c, 9, "white", false);
	ck_assert_int_eq(client_command(&c, "Nf3"), 0);
	ck_assert_int_eq(s.nsent, 1);
	json_t *r = json_loads(s.sent[0], 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "move");
	ck_assert_str_eq(json_string_value(json_object_get(r, "move")), "Nf3");
	ck_assert_int_eq(json_integer_value(json_object_get(r, "game")), 9);
	json_decref(r);
	/* impossible on White's own pieces, or not a move: refused before sending */
	ck_assert_int_eq(client_command(&c, "Qh5"), -1);
	ck_assert_int_eq(client_command(&c, "Ke2"), -1);
	ck_assert_int_eq(client_command(&c, "zz9"), -1);
	ck_assert_int_eq(s.nsent, 1);
	ck_assert_int_eq(c.errors, 3);
	/* a preference list goes as one request */
	ck_assert_int_eq(client_command(&c, "e4 d4"), 0);
	ck_assert_int_eq(s.nsent, 2);
	ck_assert_ptr_nonnull(strstr(s.sent[1], "\"moves\":[\"e4\",\"d4\"]"));
	/* its refused try says no "Try again": the list goes on by itself (the
	 * wording probe, nost: "Illegal: exf6. Try again", then "You played
	 * exd6"); a single try's still does */
	client_receive(&c, "{\"event\":\"illegal\",\"by\":\"white\",\"ply\":0,\"move\":\"e2e4\",\"san\":\"e4\",\"game\":9}");
	client_receive(&c, "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"move\":\"d2d4\",\"san\":\"d4\",\"game\":9}");
	sink_reply_ok(&c, &s, "\"game\":9");
	client_flush(&c);
	ck_assert_msg(strstr(s.printed, "Illegal: e4\n") && strstr(s.printed, "You played d4") &&
	              !strstr(s.printed, "Try again"), "%s", s.printed);
	client_receive(&c, "{\"event\":\"moved\",\"by\":\"black\",\"ply\":2,\"game\":9}");
	ck_assert_int_eq(client_command(&c, "Nf3"), 0);
	client_receive(&c, "{\"event\":\"illegal\",\"by\":\"white\",\"ply\":2,\"move\":\"g1f3\",\"san\":\"Nf3\",\"game\":9}");
	client_flush(&c);
	ck_assert_msg(strstr(s.printed, "Illegal: Nf3. Try again"), "%s", s.printed);
	client_free(&c);
}
END_TEST

START_TEST(referee_events_build_the_views)
{
	struct client w, b;
	struct sink sw, sb;
	make_client(&w, &sw, false);
	make_client(&b, &sb, false);
	sink_game_start(&w, 2, "white", false);
	sink_game_start(&b, 2, "black", false);

	char err[128];
	struct referee *ref = referee_new(ruleset_find("icc"), NULL, err, sizeof err);
	ck_assert_ptr_nonnull(ref);
	struct evlist evs;
	evlist_init(&evs);
	ck_assert_int_eq(referee_begin(ref, &evs), 0);
	static const struct { int color; const char *try; } play[] = {
		{ WHITE, "e4" }, { BLACK, "d5" }, { WHITE, "exd5" },
	};
	for (size_t i = 0; i < sizeof play / sizeof play[0]; i++)
		ck_assert_int_eq(referee_attempt(ref, play[i].color, play[i].try, &evs), 0);
	deliver(&w, &evs, WHITE, 2);
	deliver(&b, &evs, BLACK, 2);

	/* each client's own board is the referee's board cut to its own pieces */
	for (int col = WHITE; col <= BLACK; col++) {
		struct board own;
		board_own_view(referee_board(ref), col, &own);
		struct cgame *g = client_current(col == WHITE ? &w : &b);
		ck_assert_mem_eq(g->view.own.mailbox, own.mailbox, 64);
		ck_assert_int_eq(g->view.to_move, BLACK);
	}
	ck_assert_ptr_nonnull(strstr(sw.printed, "You played exd5"));
	ck_assert_ptr_nonnull(strstr(sb.printed, "White captured a pawn on d5"));
	ck_assert_ptr_nonnull(strstr(sb.printed, "White has moved"));
	/* White never hears Black's move */
	ck_assert_ptr_null(strstr(sw.printed, "d7d5"));
	/* Black's board: no pawn on d5 any more, and it is Black's move */
	char prompt[256];
	client_prompt(&b, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#2 Black | your move] > ");
	client_prompt(&w, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#2 White | their move] > ");

	evlist_free(&evs);
	referee_free(ref);
	client_free(&w);
	client_free(&b);
}
END_TEST

START_TEST(clocks_tick)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	sink_game_start(&c, 3, "black", true);
	struct cgame *g = client_current(&c);
	ck_assert_int_eq(client_clock(&c, g, WHITE), 300000);
	s.now += 1500;
	ck_assert_int_eq(client_clock(&c, g, WHITE), 298500);   /* White to move: White's runs */
	ck_assert_int_eq(client_clock(&c, g, BLACK), 300000);
	char prompt[256];
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#3 White 4:59 | Black 5:00 | their move] > ");
	/* the prompt's next change: White's 298,500 ms show 4:59 for 500 ms more */
	ck_assert_int_eq(client_prompt_tick(&c), 500);
	s.now += 500;
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#3 White 4:58 | Black 5:00 | their move] > ");
	ck_assert_int_eq(client_prompt_tick(&c), 1000);
	s.now += 1;
	ck_assert_int_eq(client_prompt_tick(&c), 999);
	s.now -= 501;
	/* a new reading replaces the local estimate */
	client_receive(&c, "{\"event\":\"moved\",\"game\":3,\"by\":\"white\",\"ply\":1,"
	                   "\"audience\":[\"black\"],\"clock\":{\"white\":297000,\"black\":300000}}");
	s.now += 2000;
	ck_assert_int_eq(client_clock(&c, g, WHITE), 297000);
	ck_assert_int_eq(client_clock(&c, g, BLACK), 298000);
	client_free(&c);
}
END_TEST

START_TEST(challenge_accept_and_errors)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	client_receive(&c, "{\"event\":\"challenge\",\"offer\":17,\"user\":\"carol\",\"rules\":\"nost\","
	                   "\"color\":\"white\",\"rated\":false}");
	ck_assert_ptr_nonnull(strstr(s.printed, "carol challenges you"));
	ck_assert_int_eq(client_command(&c, "accept"), 0);
	ck_assert_ptr_nonnull(strstr(s.sent[0], "\"offer\":17"));
	ck_assert_ptr_nonnull(strstr(s.sent[0], "\"type\":\"accept\""));
	ck_assert(client_busy(&c));
	json_t *r = json_loads(s.sent[0], 0, NULL);
	char line[256];
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"no_such_offer\",\"message\":\"gone\"}}",
	         (long long)json_integer_value(json_object_get(r, "id")));
	json_decref(r);
	client_receive(&c, line);
	ck_assert(!client_busy(&c));
	ck_assert_int_eq(c.errors, 1);
	ck_assert_ptr_nonnull(strstr(s.printed, "no_such_offer"));
	client_free(&c);
}
END_TEST

START_TEST(batch_prints_verbatim_and_waits)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, true);
	const char *l1 = "{\"event\":\"greeting\",\"protocol\":1,\"server\":\"x\" ,\"rulesets\":[]}";
	client_receive(&c, l1);
	sink_game_start(&c, 5, "white", false);
	client_receive(&c, "{\"event\":\"ping\"}");
	ck_assert(strncmp(s.raw, l1, strlen(l1)) == 0);   /* byte for byte, odd spacing kept */
	ck_assert_str_eq(s.printed, "");                  /* no words in batch mode */
	ck_assert(client_take_event(&c, "game_start"));
	ck_assert(!client_take_event(&c, "game_start"));  /* consumed */
	ck_assert(!client_take_event(&c, "greeting"));    /* before the cursor */
	ck_assert(client_take_event(&c, "ping"));
	ck_assert_int_eq(s.nsent, 1);                     /* the ping was answered */
	ck_assert_ptr_nonnull(strstr(s.sent[0], "\"type\":\"ping\""));
	client_free(&c);
}
END_TEST

START_TEST(switch_fetches_a_game_and_draws)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	sink_game_start(&c, 4, "white", false);
	ck_assert_int_eq(client_command(&c, "switch 9"), 0);
	ck_assert_int_eq(s.nsent, 1);
	json_t *r = json_loads(s.sent[0], 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "game");
	ck_assert_int_eq(json_integer_value(json_object_get(r, "game")), 9);
	long long id = json_integer_value(json_object_get(r, "id"));
	json_decref(r);
	/* our own view of game 9, as Black, after White's first move */
	char line[1024];
	snprintf(line, sizeof line,
	         "{\"id\":%lld,\"ok\":true,\"game\":9,\"rules\":\"icc\",\"white\":\"x\",\"black\":\"y\","
	         "\"color\":\"black\",\"rated\":false,\"live\":true,\"to_move\":\"black\",\"events\":["
	         "{\"event\":\"pawn_tries\",\"by\":\"white\",\"ply\":0,\"audience\":[\"white\",\"black\"],\"count\":0},"
	         "{\"event\":\"moved\",\"by\":\"white\",\"ply\":1,\"audience\":[\"black\"]}]}", id);
	client_receive(&c, line);
	ck_assert_int_eq(c.current, 9);
	struct cgame *g = client_current(&c);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->color, BLACK);
	ck_assert_int_eq(g->view.to_move, BLACK);
	ck_assert_int_eq(g->log_n, 2);
	/* the list under the board is numbered as chess does */
	ck_assert_msg(!strncmp(g->log[0], "1. ", 3), "%s", g->log[0]);
	ck_assert_msg(!strncmp(g->log[1], "1. White has moved", 18), "%s", g->log[1]);
	ck_assert_ptr_nonnull(strstr(s.printed, "White has moved"));
	/* the old game is still there to switch back to, without a request */
	ck_assert_int_eq(client_command(&c, "switch 4"), 0);
	ck_assert_int_eq(s.nsent, 1);
	ck_assert_int_eq(c.current, 4);

	/* a draw offer by the opponent: bare "draw" accepts it */
	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"black\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Black offers a draw"));
	ck_assert_int_eq(client_command(&c, "draw"), 0);
	ck_assert_ptr_nonnull(strstr(s.sent[1], "\"action\":\"accept\""));
	/* our own offer (echoed to us) does not make "draw" an accept */
	client_receive(&c, "{\"event\":\"draw_declined\",\"game\":4,\"by\":\"black\"}");
	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"white\"}");
	ck_assert_int_eq(client_command(&c, "draw"), 0);
	ck_assert_ptr_nonnull(strstr(s.sent[2], "\"action\":\"offer\""));
	/* Another's game: the server's "no such game", and the way to watch
	 * it said (help probe). */
	ck_assert_int_eq(client_command(&c, "switch 31"), 0);
	r = json_loads(s.sent[s.nsent - 1], 0, NULL);
	id = json_integer_value(json_object_get(r, "id"));
	json_decref(r);
	size_t at = strlen(s.printed);
	snprintf(line, sizeof line,
	         "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"no_such_game\",\"message\":\"no such game\"}}",
	         id);
	client_receive(&c, line);
	ck_assert_ptr_nonnull(strstr(s.printed + at, "switch refused: no such game"));
	ck_assert_ptr_nonnull(strstr(s.printed + at, "\"watch 31\" watches it"));
	ck_assert_int_eq(c.current, 4);
	client_free(&c);
}
END_TEST


/* The id of the n-th request sent, for a reply. */
static void sent_is(const struct sink *s, int n, const char *type, const char *user);

/* Requests awaiting an answer that the user asked (not krieg's own). */
static int users_pending(const struct client *c)
{
	int n = 0;
	for (int i = 0; i < c->npending; i++)
		n += c->pending[i].cmd && !c->pending[i].own;
	return n;
}

static void login_as(struct client *c, struct sink *s, const char *user)
{
	char cmd[128], extra[256];
	snprintf(cmd, sizeof cmd, "login %s password123", user);
	ck_assert_int_eq(client_command(c, cmd), 0);
	snprintf(extra, sizeof extra, "\"user\":\"%s\",\"token\":\"tok-%s\",\"games\":[]", user, user);
	sink_reply_ok(c, s, extra);
	ck_assert(c->logged_in);
	ck_assert_str_eq(c->user, user);
	sink_reply_ok(c, s, NULL);   /* the ping after it: its game_states are in (login_settle) */
	ck_assert(!client_busy(c));
}

/*
 * Regression (the CLI probe): the login's game_state lines follow its
 * answer, and --batch sent the next line on the answer: `record 3` asked
 * for the umpire's view of one's own live game 3 (not known yet), and was
 * refused.  A ping after the login says they are in; until its answer the
 * client is busy (--batch waits), and what follows the login runs after.
 */
START_TEST(login_settles_before_the_next_command)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "login alice password123"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok\",\"games\":[3]");
	ck_assert(client_busy(&c));
	sent_is(&s, s.nsent - 1, "ping", NULL);
	sink_game_start(&c, 3, "black", false);   /* its game_state, before the ping's answer */
	sink_reply_ok(&c, &s, NULL);
	ck_assert(!client_busy(&c));
	ck_assert_int_eq(client_command(&c, "record 3"), 0);
	json_t *r = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "record");
	ck_assert_str_eq(json_string_value(json_object_get(r, "view")), "black");
	json_decref(r);
	sink_reply_ok(&c, &s, "\"game\":3,\"view\":\"black\",\"events\":[],\"total\":0");
	/* a review: the ping lost with the connection was no request of the
	 * user's gone unanswered; refused, it still runs what follows */
	ck_assert_int_eq(client_command(&c, "login alice password123"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok\",\"games\":[]");
	ck_assert(client_busy(&c));
	ck_assert_int_eq(client_disconnected(&c), 0);
	snprintf(c.on_login, sizeof c.on_login, "lobby");
	ck_assert_int_eq(client_command(&c, "login alice password123"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok\",\"games\":[]");
	char refusal[256];
	snprintf(refusal, sizeof refusal, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"rate_limited\","
	         "\"message\":\"slow down\"}}", sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, refusal);
	ck_assert_str_eq(c.on_login, "");
	sent_is(&s, s.nsent - 1, "lobby_watch", NULL);
	client_free(&c);
}
END_TEST

/* Regression: after logout, or a login as someone else, the old user's game stayed current. */
START_TEST(logout_forgets_the_games)
{
	struct client c;
	struct sink s;
	char prompt[256];
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	sink_game_start(&c, 9, "white", false);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert(strncmp(prompt, "[#9 ", 4) == 0);

	ck_assert_int_eq(client_command(&c, "logout"), 0);
	sink_reply_ok(&c, &s, NULL);
	ck_assert(!c.logged_in);
	ck_assert_ptr_null(client_current(&c));
	ck_assert_ptr_null(client_game(&c, 9));
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "krieg> ");

	login_as(&c, &s, "bob");
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "bob krieg> ");
	int n = s.nsent;
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "e4"), -1);   /* no move goes out for alice's game */
	ck_assert_int_eq(s.nsent, n);
	ck_assert_ptr_nonnull(strstr(s.printed, "no current game"));
	ck_assert_int_eq(client_command(&c, "board"), -1);

	/* a login as someone else without a logout forgets too; the same user keeps them */
	sink_game_start(&c, 11, "black", false);
	login_as(&c, &s, "bob");
	ck_assert_ptr_nonnull(client_current(&c));
	login_as(&c, &s, "carol");
	ck_assert_ptr_null(client_current(&c));
	ck_assert_ptr_null(client_game(&c, 11));
	client_free(&c);
}
END_TEST

/* Regression: the draw response said "Draw: done." whatever was done. */
START_TEST(draw_responses_say_what_happened)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	sink_game_start(&c, 4, "white", false);
	ck_assert_int_eq(client_command(&c, "draw"), 0);
	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"white\"}");
	sink_reply_ok(&c, &s, "\"game\":4");
	ck_assert_ptr_nonnull(strstr(s.printed, "#4: Draw offered."));
	client_receive(&c, "{\"event\":\"draw_declined\",\"game\":4,\"by\":\"black\"}");

	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"black\"}");
	ck_assert_int_eq(client_command(&c, "draw decline"), 0);
	client_receive(&c, "{\"event\":\"draw_declined\",\"game\":4,\"by\":\"white\"}");
	sink_reply_ok(&c, &s, "\"game\":4");
	ck_assert_ptr_nonnull(strstr(s.printed, "#4: Draw declined."));

	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"black\"}");
	ck_assert_int_eq(client_command(&c, "draw"), 0);
	client_receive(&c, "{\"event\":\"game_over\",\"game\":4,\"ply\":0,\"audience\":[\"white\",\"black\"],"
	                   "\"result\":\"1/2-1/2\",\"reason\":\"agreement\"}");
	size_t before_answer = strlen(s.printed);
	sink_reply_ok(&c, &s, "\"game\":4");
	/* the end said it: nothing after it (screen-reader probe: "Draw accepted." came last) */
	ck_assert_msg(strstr(s.printed, "drawn by agreement") && s.printed[before_answer] == '\0', "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "Draw: done"));
	client_free(&c);
}
END_TEST

/*
 * Regression (friends probe): a draw offer lapses when the side it was
 * made to moves, and no event says so; the client kept it, so a bare
 * "draw" after one's own move asked to accept an offer gone, refused at
 * every try.  Now the move ends it, said, and "draw" offers; the
 * opponent's move ends one's own offer likewise, and one's own move
 * does not.
 */
START_TEST(draw_offer_lapses_with_a_move)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	sink_game_start(&c, 4, "white", false);
	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"black\"}");
	client_receive(&c, "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"move\":\"e2e4\","
	                   "\"san\":\"e4\",\"game\":4}");
	ck_assert_msg(strstr(s.printed, "#4: Black's draw offer lapsed with your move.\n") != NULL, "%s",
	              s.printed);
	ck_assert_int_eq(client_command(&c, "draw"), 0);
	ck_assert_ptr_nonnull(strstr(s.sent[s.nsent - 1], "\"action\":\"offer\""));
	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"white\"}");
	sink_reply_ok(&c, &s, "\"game\":4");
	size_t at = strlen(s.printed);
	client_receive(&c, "{\"event\":\"moved\",\"by\":\"black\",\"ply\":2,\"game\":4}");
	ck_assert_msg(strstr(s.printed + at, "#4: your draw offer lapsed with Black's move.\n") != NULL,
	              "%s", s.printed + at);
	ck_assert_int_eq(client_current(&c)->draw_offer_from, -1);
	/* One's own offer stands through one's own move. */
	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"white\"}");
	at = strlen(s.printed);
	client_receive(&c, "{\"event\":\"move\",\"by\":\"white\",\"ply\":3,\"move\":\"d2d4\","
	                   "\"san\":\"d4\",\"game\":4}");
	ck_assert_ptr_null(strstr(s.printed + at, "lapsed"));
	ck_assert_int_eq(client_current(&c)->draw_offer_from, WHITE);
	client_free(&c);
}
END_TEST

/* rematch: offered at the end; alone it asks for the current game; the
 * answer names the opponent, or (they asked first) the game_start says it. */
START_TEST(rematch_after_the_end)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "rematch"), -1);   /* no game yet */
	ck_assert_int_eq(s.nsent, 0);
	sink_game_start(&c, 4, "white", false);
	client_receive(&c, "{\"event\":\"game_over\",\"game\":4,\"ply\":0,\"audience\":[\"white\",\"black\"],"
	                   "\"result\":\"0-1\",\"reason\":\"resignation\"}");
	/* the last words, under the final board */
	const char *hint = "(\"rematch\" to play bob again, colours swapped; \"record 4 umpire\" shows every "
	                   "move and try.)\n";
	ck_assert_str_eq(s.printed + strlen(s.printed) - strlen(hint), hint);
	ck_assert_ptr_nonnull(strstr(s.printed, "Game over"));
	ck_assert_ptr_null(strstr(s.printed, "true board"));   /* no fen came: none shown */
	ck_assert_int_eq(client_command(&c, "rematch"), 0);
	json_t *j = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "rematch");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "game")), 4);
	json_decref(j);
	sink_reply_ok(&c, &s, "\"offer\":7");
	ck_assert_ptr_nonnull(strstr(s.printed, "Rematch offered to bob (offer 7)"));
	/* Another game by number; the answer that starts it says nothing itself. */
	ck_assert_int_eq(client_command(&c, "rematch 3"), 0);
	j = sink_last(&s);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "game")), 3);
	json_decref(j);
	s.printed[0] = '\0';
	sink_reply_ok(&c, &s, "\"offer\":8,\"game\":9");
	ck_assert_str_eq(s.printed, "");
	ck_assert_int_eq(client_command(&c, "rematch three"), -1);
	client_free(&c);
}
END_TEST

/*
 * Regression (the endings probe): game_over carries the true final
 * position to both players, and neither client showed it; the end is the
 * one moment a player sees the other side's men.  Drawn under the
 * player's own board, before the rematch hint; in words with --plain.
 */
START_TEST(final_position_shown)
{
	static const char over[] =
		"{\"event\":\"game_over\",\"game\":4,\"ply\":3,\"by\":\"black\",\"audience\":[\"white\","
		"\"black\"],\"result\":\"0-1\",\"reason\":\"checkmate\","
		"\"fen\":\"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\"}";
	for (int plain = 0; plain < 2; plain++) {
		struct client c;
		struct sink s;
		make_client(&c, &s, false);
		c.plain = plain;
		sink_game_start(&c, 4, "white", false);
		s.printed[0] = '\0';
		client_receive(&c, over);
		client_flush(&c);
		const char *end = plain ? strstr(s.printed, "#4: the true position at the end: White:")
		                        : strstr(s.printed, "The true board at the end:");
		ck_assert_msg(end != NULL, "%s", s.printed);
		if (plain)   /* Black's queen, which White never saw, is said */
			ck_assert_msg(strstr(end, "Black:") && strstr(end, "queen h4"), "%s", end);
		const char *hint = strstr(s.printed, "(\"rematch\"");
		ck_assert_msg(hint != NULL && hint > end, "%s", s.printed);
		client_free(&c);
	}
}
END_TEST

/* profile and standings in words; the standings' later pages are asked
 * for in the pool the first named. */
START_TEST(profile_and_standings_in_words)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "profile alice"), 0);
	sink_reply_ok(&c, &s, "\"name\":\"alice\",\"role\":\"umpire\",\"registered\":1764720000,\"online\":true,"
	              "\"games\":2,\"record\":{\"won\":5,\"lost\":2,\"drawn\":1,\"aborted\":0},"
	              "\"ratings\":{\"icc\":{\"rating\":1612,\"rd\":74,\"provisional\":false},"
	              "\"english\":{\"rating\":1500,\"rd\":350,\"provisional\":true}}");
	ck_assert_ptr_nonnull(strstr(s.printed, "alice: an umpire since 2025-12-03, online, in 2 live games.\n"
	                                        "  Finished games: 5 won, 2 lost, 1 drawn, 0 aborted.\n"
	                                        "  Ratings: icc 1612 (rd 74), english 1500? (rd 350).\n"));
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "finger robo"), 0);
	sink_reply_ok(&c, &s, "\"name\":\"robo\",\"role\":\"player\",\"registered\":0,\"online\":false,\"games\":0,"
	              "\"bot\":true,\"record\":{\"won\":0,\"lost\":0,\"drawn\":0,\"aborted\":0}");
	ck_assert_str_eq(s.printed, "robo (a bot): a player, offline.\n"
	                            "  Finished games: 0 won, 0 lost, 0 drawn, 0 aborted.\n  Not rated yet.\n");

	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "standings nost"), 0);
	sink_reply_ok(&c, &s, "\"pool\":\"icc\",\"total\":3,\"next\":2,\"standings\":["
	              "{\"rank\":1,\"name\":\"alice\",\"rating\":1662,\"rd\":290,\"provisional\":true,\"games\":1},"
	              "{\"rank\":2,\"name\":\"bob\",\"rating\":1600,\"rd\":60,\"provisional\":false,\"games\":30}]");
	json_t *j = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "standings");
	ck_assert_str_eq(json_string_value(json_object_get(j, "rules")), "icc");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "from")), 2);
	json_decref(j);
	int sent = s.nsent;
	sink_reply_ok(&c, &s, "\"pool\":\"icc\",\"total\":3,\"standings\":["
	              "{\"rank\":3,\"name\":\"carol\",\"rating\":1338,\"rd\":290,\"provisional\":true,\"games\":1,"
	              "\"bot\":true}]");
	ck_assert_int_eq(s.nsent, sent);   /* the last page */
	ck_assert_str_eq(s.printed, "Standings, the icc pool (3 rated):\n"
	                            "    1. alice                    1662?  rd 290  1 game\n"
	                            "    2. bob                      1600   rd 60   30 games\n"
	                            "    3. carol                    1338?  rd 290  1 game (bot)\n");

	/* a tournament's table, its next page asked for by its name */
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "tournament  Club Open 2026 "), 0);
	j = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "tournament");
	ck_assert_str_eq(json_string_value(json_object_get(j, "name")), "Club Open 2026");
	json_decref(j);
	sink_reply_ok(&c, &s, "\"tournament\":\"Club Open 2026\",\"total\":3,\"next\":2,\"players\":["
	              "{\"rank\":1,\"name\":\"bob\",\"points\":1.5,\"won\":1,\"drawn\":1,\"lost\":0,\"playing\":1,"
	              "\"buchholz\":1.0,\"sonneborn_berger\":0.75},"
	              "{\"rank\":2,\"name\":\"ann\",\"points\":0.5,\"won\":0,\"drawn\":1,\"lost\":1,"
	              "\"buchholz\":3.0,\"sonneborn_berger\":0.75}]");
	j = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "tournament");
	ck_assert_str_eq(json_string_value(json_object_get(j, "name")), "Club Open 2026");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "from")), 2);
	json_decref(j);
	sent = s.nsent;
	sink_reply_ok(&c, &s, "\"tournament\":\"Club Open 2026\",\"total\":3,\"players\":["
	              "{\"rank\":3,\"name\":\"robo\",\"points\":0.0,\"won\":0,\"drawn\":0,\"lost\":0,\"bot\":true,"
	              "\"playing\":1,\"aborted\":2,\"buchholz\":0.0,\"sonneborn_berger\":0.0}]");
	ck_assert_int_eq(s.nsent, sent);   /* the last page */
	/* aborted games said (they read as a bye: TD probe) */
	ck_assert_str_eq(s.printed, "Club Open 2026:\n"
	                            "    1. bob                       1.5  Bh  1.0  SB  0.75  (+1 =1 -0, 1 playing)\n"
	                            "    2. ann                       0.5  Bh  3.0  SB  0.75  (+0 =1 -1)\n"
	                            "    3. robo                      0.0  Bh  0.0  SB  0.00  (+0 =0 -0, 1 playing, 2 aborted) (bot)\n");

	/* announce: a director's note to a tournament's live games (TD probe) */
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "announce round 3 Club  Open 2026 : the round ends at ten"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "tournament_note");
	ck_assert_str_eq(json_string_value(json_object_get(j, "tournament")), "Club Open 2026");
	ck_assert_str_eq(json_string_value(json_object_get(j, "round")), "3");
	ck_assert_str_eq(json_string_value(json_object_get(j, "text")), "the round ends at ten");
	json_decref(j);
	sink_reply_ok(&c, &s, "\"games\":[14,15]");
	ck_assert_str_eq(s.printed, "Told 2 live games: #14, #15.\n");
	ck_assert_int_eq(client_command(&c, "announce Club Open 2026: now"), 0);
	j = sink_last(&s);
	ck_assert_ptr_null(json_object_get(j, "round"));
	json_decref(j);
	sink_reply_ok(&c, &s, "\"games\":[14]");
	ck_assert_int_eq(client_command(&c, "announce Club Open no colon"), -1);
	ck_assert_int_eq(client_command(&c, "announce round x Club: t"), -1);
	ck_assert_int_eq(client_command(&c, "announce : no name"), -1);
	ck_assert_int_eq(client_command(&c, "announce Club:   "), -1);
	client_free(&c);
}
END_TEST

/* follow: its answers in words; a followed player's game is watched at
 * once by someone playing none, only said to someone playing; their
 * arrivals and departures said. */
START_TEST(following_in_words)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "follow alice"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"games\":[14],\"online\":true");
	ck_assert_ptr_nonnull(strstr(s.printed, "Following alice (online now): each game they start is shown here, "
	                                        "and when they come and go.\n"
	                                        "  alice plays game 14 now (\"watch 14\").\n"));
	ck_assert_int_eq(client_command(&c, "follow bob"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"bob\",\"games\":[],\"online\":false");
	ck_assert_ptr_nonnull(strstr(s.printed, "Following bob (not online):"));
	client_receive(&c, "{\"event\":\"arrived\",\"user\":\"bob\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Notification: bob has arrived.\n"));
	client_receive(&c, "{\"event\":\"departed\",\"user\":\"b\\u001bob\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Notification: b?ob has departed.\n"));
	ck_assert_int_eq(client_command(&c, "follow"), 0);
	sink_reply_ok(&c, &s, "\"following\":[]");
	ck_assert_ptr_nonnull(strstr(s.printed, "You follow nobody."));
	int sent = s.nsent;
	client_receive(&c, "{\"event\":\"following\",\"user\":\"alice\",\"game\":15,\"white\":\"alice\","
	                   "\"black\":\"bob\",\"rules\":\"icc\",\"rated\":false}");
	ck_assert_ptr_nonnull(strstr(s.printed, "alice began game 15: alice (White) vs bob (Black), icc, unrated."));
	ck_assert_int_eq(s.nsent, sent + 1);
	json_t *j = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "watch");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "game")), 15);
	json_decref(j);
	/* both players followed: the game said once (friends probe: a line
	 * for each, one after the other; the first names both) and watched
	 * once (director probe: its catch-up was shown twice), while the seat
	 * is asked for and once it is held */
	client_receive(&c, "{\"event\":\"following\",\"user\":\"bob\",\"game\":15,\"white\":\"alice\","
	                   "\"black\":\"bob\",\"rules\":\"icc\",\"rated\":false}");
	ck_assert_ptr_null(strstr(s.printed, "bob began game 15"));
	ck_assert_int_eq(s.nsent, sent + 1);
	sink_reply_ok(&c, &s, "\"game\":15,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"rated\":false,"
	                      "\"seat\":\"spectator\",\"ply\":0,\"to_move\":\"white\",\"events\":[],\"total\":0");
	ck_assert_ptr_nonnull(client_seat(&c, 15));
	client_receive(&c, "{\"event\":\"following\",\"user\":\"bob\",\"game\":15,\"white\":\"alice\","
	                   "\"black\":\"bob\",\"rules\":\"icc\",\"rated\":false}");
	ck_assert_int_eq(s.nsent, sent + 1);
	/* playing a game of one's own: said, not watched */
	sink_game_start(&c, 4, "white", false);
	sent = s.nsent;
	client_receive(&c, "{\"event\":\"following\",\"user\":\"alice\",\"game\":16,\"white\":\"carol\","
	                   "\"black\":\"alice\",\"rules\":\"english\",\"rated\":true}");
	ck_assert_ptr_nonnull(strstr(s.printed, "alice began game 16: carol (White) vs alice (Black), english, rated; "
	                                        "you are playing, so it is not watched here"));
	ck_assert_int_eq(s.nsent, sent);
	client_free(&c);
}
END_TEST

/* mute alone lists whom one muted; with a name it says what it stops. */
START_TEST(mutes_in_words)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "mute"), 0);
	sink_reply_ok(&c, &s, "\"muted\":[]");
	ck_assert_str_eq(s.printed, "You have muted nobody.\n");
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "mute"), 0);
	sink_reply_ok(&c, &s, "\"muted\":[\"pester\",\"troll\"]");
	ck_assert_str_eq(s.printed, "  muted: pester\n  muted: troll\n");
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "mute troll"), 0);
	sink_reply_ok(&c, &s, NULL);
	ck_assert_str_eq(s.printed, "Muted: you no longer hear that user's words or challenges.\n");
	client_free(&c);
}
END_TEST

/* The club's message of the day, from the greeting, whole. */
START_TEST(motd_is_shown)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	client_receive(&c, "{\"event\":\"greeting\",\"protocol\":1,\"server\":\"kriegd/0.1\",\"rulesets\":[\"icc\"]}");
	ck_assert_str_eq(s.printed, "Connected to kriegd/0.1.\n");
	s.printed[0] = '\0';
	client_receive(&c, "{\"event\":\"greeting\",\"protocol\":1,\"server\":\"kriegd/0.1\",\"rulesets\":[\"icc\"],"
	                   "\"motd\":\"Club night on Thursdays\"}");
	ck_assert_str_eq(s.printed, "Connected to kriegd/0.1.\nMessage of the day: Club night on Thursdays\n");
	client_free(&c);
}
END_TEST

static const char *last_of(const char *hay, const char *needle)
{
	const char *last = NULL;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		last = p;
	return last;
}

/* Hand events to c, in the rule set rs. */
static void deliver_rs(struct client *c, const struct evlist *evs, size_t from, int color, long game,
                       const char *rs)
{
	for (size_t i = from; i < evs->n; i++) {
		if (!(evs->v[i].audience & aud_of(color)))
			continue;
		json_t *j = event_to_json(&evs->v[i], ruleset_find(rs), (int)game);
		char *txt = json_dumps(j, JSON_COMPACT);
		client_receive(c, txt);
		free(txt);
		json_decref(j);
	}
}

/* Regression: "your move" came on `moved`, before the same move's check. */
START_TEST(your_move_follows_the_last_announcement)
{
	static const char *const rules[] = { "icc", "english" };
	for (size_t r = 0; r < 2; r++) {
		struct client b;
		struct sink sb;
		make_client(&b, &sb, false);
		char line[512];
		snprintf(line, sizeof line,
		         "{\"event\":\"game_start\",\"game\":2,\"rules\":\"%s\",\"white\":\"w\",\"black\":\"b\","
		         "\"color\":\"black\",\"rated\":false}", rules[r]);
		client_receive(&b, line);
		char err[128];
		struct referee *ref = referee_new(ruleset_find(rules[r]), NULL, err, sizeof err);
		struct evlist evs;
		evlist_init(&evs);
		ck_assert_int_eq(referee_begin(ref, &evs), 0);
		ck_assert_int_eq(referee_attempt(ref, WHITE, "e4", &evs), 0);
		ck_assert_int_eq(referee_attempt(ref, BLACK, "f6", &evs), 0);
		size_t from = evs.n;
		deliver_rs(&b, &evs, 0, BLACK, 2, rules[r]);
		ck_assert_int_eq(referee_attempt(ref, WHITE, "Qh5", &evs), 0);
		sb.printed[0] = '\0';
		deliver_rs(&b, &evs, from, BLACK, 2, rules[r]);
		client_flush(&b);   /* the end of what arrived together */
		const char *check = strstr(sb.printed, "in check");
		const char *turn = last_of(sb.printed, "#2: your move");
		ck_assert_msg(check && turn && check < turn, "%s: %s", rules[r], sb.printed);
		ck_assert_ptr_eq(strstr(sb.printed, "#2: your move"), turn);   /* once */
		evlist_free(&evs);
		referee_free(ref);
		client_free(&b);
	}
}
END_TEST

/* krieg --bell: BEL after "your move" and after a challenge; never without it. */
START_TEST(bell_on_your_move_and_a_challenge)
{
	for (int bell = 0; bell < 2; bell++) {
		struct client c;
		struct sink s;
		make_client(&c, &s, false);
		c.bell = bell;
		client_receive(&c, "{\"event\":\"game_start\",\"game\":2,\"rules\":\"icc\",\"white\":\"w\","
		                   "\"black\":\"b\",\"color\":\"white\",\"rated\":false}");
		client_flush(&c);
		client_receive(&c, "{\"event\":\"challenge\",\"offer\":6,\"user\":\"bob\",\"rules\":\"icc\","
		                   "\"color\":\"random\",\"rated\":false,\"time\":{\"base\":300.0,\"inc\":2.0}}");
		ck_assert_ptr_nonnull(strstr(s.printed, "#2: your move"));
		ck_assert_ptr_nonnull(strstr(s.printed, "Type \"accept 6\" or \"decline 6\"."));
		if (bell) {
			ck_assert_ptr_nonnull(strstr(s.printed, "#2: your move\a"));
			ck_assert_ptr_nonnull(strstr(s.printed, "Type \"accept 6\" or \"decline 6\".\a"));
		} else {
			ck_assert_ptr_null(strchr(s.printed, '\a'));
		}
		client_free(&c);
	}
}
END_TEST

/* Regression: "Qxd5" typed came back as "You played Qd5". */
START_TEST(own_move_echoes_the_capture_mark_typed)
{
	struct client b;
	struct sink sb;
	make_client(&b, &sb, false);
	sink_game_start(&b, 6, "black", false);
	char err[128];
	struct referee *ref = referee_new(ruleset_find("icc"), NULL, err, sizeof err);
	struct evlist evs;
	evlist_init(&evs);
	ck_assert_int_eq(referee_begin(ref, &evs), 0);
	ck_assert_int_eq(referee_attempt(ref, WHITE, "e4", &evs), 0);
	ck_assert_int_eq(referee_attempt(ref, BLACK, "d5", &evs), 0);
	ck_assert_int_eq(referee_attempt(ref, WHITE, "exd5", &evs), 0);
	deliver(&b, &evs, BLACK, 6);
	size_t from = evs.n;
	ck_assert_int_eq(client_command(&b, "Qxd5"), 0);
	ck_assert_int_eq(referee_attempt(ref, BLACK, "Qxd5", &evs), 0);
	deliver_rs(&b, &evs, from, BLACK, 6, "icc");
	ck_assert_msg(strstr(sb.printed, "You played Qxd5"), "%s", sb.printed);
	/* a move typed without the mark is echoed as the umpire wrote it */
	from = evs.n;
	ck_assert_int_eq(referee_attempt(ref, WHITE, "Nc3", &evs), 0);
	deliver_rs(&b, &evs, from, BLACK, 6, "icc");
	from = evs.n;
	ck_assert_int_eq(client_command(&b, "Qa5"), 0);
	ck_assert_int_eq(referee_attempt(ref, BLACK, "Qa5", &evs), 0);
	deliver_rs(&b, &evs, from, BLACK, 6, "icc");
	ck_assert_ptr_nonnull(strstr(sb.printed, "You played Qa5"));
	ck_assert_ptr_null(strstr(sb.printed, "You played Qxa5"));
	evlist_free(&evs);
	referee_free(ref);
	client_free(&b);
}
END_TEST

/* Regression: --batch said "no current game" for a word that is no move at all. */
START_TEST(batch_unknown_word_is_named)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, true);
	ck_assert_int_eq(client_command(&c, "frobnicate"), -1);
	ck_assert_msg(strstr(s.printed, "\"frobnicate\" is not a command or a move"), "%s", s.printed);
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "e4"), -1);   /* a move, but no game */
	ck_assert_ptr_nonnull(strstr(s.printed, "no current game"));
	ck_assert_int_eq(s.nsent, 0);
	client_free(&c);
}
END_TEST

/* The JSON of the last request sent (new reference). */
/* pgn GAME > FILE: chunks are asked for until none remain, then written whole. */
START_TEST(pgn_chunks_are_joined_into_a_file)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	char path[] = "/tmp/krieg-pgn-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "pgn 9 > %s", path);
	ck_assert_int_eq(client_command(&c, cmd), 0);
	/* one at a time */
	ck_assert_int_eq(client_command(&c, "pgn 10"), -1);
	sink_reply_ok(&c, &s, "\"game\":9,\"view\":\"umpire\",\"pgn\":\"[Event \\\"x\\\"]\\n\\n1. e4 \",\"total\":30,\"next\":19");
	json_t *r = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "pgn");
	ck_assert_int_eq(json_integer_value(json_object_get(r, "game")), 9);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "from")), 19);
	ck_assert_str_eq(json_string_value(json_object_get(r, "view")), "umpire");
	json_decref(r);
	ck_assert(client_busy(&c));
	sink_reply_ok(&c, &s, "\"game\":9,\"view\":\"umpire\",\"pgn\":\"e5 2. Qh5 *\\n\",\"total\":30");
	ck_assert(!client_busy(&c));
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char buf[256] = "";
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	ck_assert_str_eq(buf, "[Event \"x\"]\n\n1. e4 e5 2. Qh5 *\n");
	ck_assert_ptr_nonnull(strstr(s.printed, "Wrote game 9"));
	/* without a file, the PGN is shown */
	int before = s.nsent;
	ck_assert_int_eq(client_command(&c, "pgn 9 white"), 0);
	ck_assert_int_eq(s.nsent, before + 1);
	sink_reply_ok(&c, &s, "\"game\":9,\"view\":\"white\",\"pgn\":\"[Event \\\"y\\\"]\\n1. e4 *\\n\",\"total\":20");
	ck_assert_ptr_nonnull(strstr(s.printed, "[Event \"y\"]\n1. e4 *\n"));
	client_free(&c);
}
END_TEST

/* history lists; record pages through one view's announcements, in words. */
START_TEST(history_and_record_pages)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	ck_assert_int_eq(client_command(&c, "history bob"), 0);
	sink_reply_ok(&c, &s, "\"games\":[{\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	         "\"rated\":false,\"created\":1735689600,\"live\":false,\"result\":\"0-1\",\"reason\":\"checkmate\"}]");
	/* the start's time and zone (the time probe: a date alone, in UTC unsaid) */
	ck_assert_msg(strstr(s.printed, "game 9: alice (White) vs bob (Black), icc, 2025-01-01 00:00 UTC, finished 0-1 by "
	                                "checkmate"),
	              "%s", s.printed);

	ck_assert_int_eq(client_command(&c, "record 9"), 0);   /* not followed here: the umpire's view */
	json_t *r = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(r, "view")), "umpire");
	json_decref(r);
	sink_reply_ok(&c, &s, "\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":false,"
	         "\"result\":\"0-1\",\"reason\":\"checkmate\",\"view\":\"umpire\",\"total\":2,\"next\":1,\"events\":["
	         "{\"event\":\"umpire_move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"umpire\"],\"move\":\"e2e4\",\"san\":\"e4\",\"game\":9}]");
	r = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "record");
	ck_assert_int_eq(json_integer_value(json_object_get(r, "from")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(r, "view")), "umpire");
	json_decref(r);
	sink_reply_ok(&c, &s, "\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":false,"
	         "\"view\":\"umpire\",\"total\":2,\"events\":["
	         "{\"event\":\"illegal\",\"by\":\"black\",\"ply\":1,\"audience\":[\"umpire\"],\"move\":\"e7e4\",\"san\":\"e4\",\"game\":9},"
	         "{\"event\":\"chat\",\"game\":9,\"channel\":\"game\",\"color\":\"black\",\"text\":\"nice try\",\"ply\":1},"
	         "{\"event\":\"adjourned\",\"game\":9,\"by\":\"white\",\"ply\":1}]");
	/* chat in the record's words: the player's own, numbered where it was said */
	ck_assert_msg(strstr(s.printed, "1... bob (Black) says: \"nice try\""), "%s", s.printed);
	ck_assert_ptr_nonnull(strstr(s.printed, "1... Adjourned (White agreed)"));
	ck_assert_ptr_nonnull(strstr(s.printed, "as the umpire heard it:"));
	ck_assert_ptr_nonnull(strstr(s.printed, "White played e4"));
	ck_assert_ptr_nonnull(strstr(s.printed, "Black tried e4: illegal"));
	ck_assert_ptr_nonnull(strstr(s.printed, "(2 announcements)"));
	ck_assert(!client_busy(&c));

	/* a game followed here: our own side by default */
	sink_game_start(&c, 12, "black", false);
	ck_assert_int_eq(client_command(&c, "record 12"), 0);
	r = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(r, "view")), "black");
	json_decref(r);
	client_free(&c);
}
END_TEST

/* record GAME umpire: the true board at the end, replayed from the
 * umpire's moves over every page (en passant too); none when a move does
 * not replay. */
START_TEST(record_shows_the_true_board)
{
	static const char *const page1 =
		"\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":false,"
		"\"fen\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\","
		"\"view\":\"umpire\",\"total\":5,\"next\":3,\"events\":["
		"{\"event\":\"umpire_move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"umpire\"],\"move\":\"e2e4\",\"san\":\"e4\",\"game\":9},"
		"{\"event\":\"umpire_move\",\"by\":\"black\",\"ply\":2,\"audience\":[\"umpire\"],\"move\":\"a7a6\",\"san\":\"a6\",\"game\":9},"
		"{\"event\":\"umpire_move\",\"by\":\"white\",\"ply\":3,\"audience\":[\"umpire\"],\"move\":\"e4e5\",\"san\":\"e5\",\"game\":9}]";
	for (int bad = 0; bad < 2; bad++) {
		struct client c;
		struct sink s;
		make_client(&c, &s, false);
		login_as(&c, &s, "carol");
		ck_assert_int_eq(client_command(&c, "record 9 umpire"), 0);
		sink_reply_ok(&c, &s, page1);
		char page2[1024];
		snprintf(page2, sizeof page2,
		         "\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":false,"
		         "\"view\":\"umpire\",\"total\":5,\"events\":["
		         "{\"event\":\"umpire_move\",\"by\":\"black\",\"ply\":4,\"audience\":[\"umpire\"],\"move\":\"d7d5\",\"san\":\"d5\",\"game\":9},"
		         "{\"event\":\"umpire_move\",\"by\":\"white\",\"ply\":5,\"audience\":[\"umpire\"],\"move\":\"%s\",\"san\":\"exd6\",\"game\":9}]",
		         bad ? "e5d7" : "e5d6");
		sink_reply_ok(&c, &s, page2);
		struct board b;
		ck_assert_int_eq(fen_parse("rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3", &b, NULL, 0), 0);
		struct render_opts ro = c.ropts;
		ro.bottom = WHITE;
		ro.audience = AUD_UMPIRE;
		char want[RENDER_BOARD_MAX];
		render_board(&b, NULL, &ro, want, sizeof want);
		if (bad)
			ck_assert_ptr_null(strstr(s.printed, "The true board"));
		else
			ck_assert_msg(strstr(s.printed, "The true board at the end:") && strstr(s.printed, want),
			              "%s\nwanted:\n%s", s.printed, want);
		client_free(&c);
	}
	/* a live game's (a director's record of a round in play): the board
	 * now, not "at the end" (director probe) */
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "carol");
	ck_assert_int_eq(client_command(&c, "record 9 umpire"), 0);
	sink_reply_ok(&c, &s,
	              "\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":true,"
	              "\"fen\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\","
	              "\"view\":\"umpire\",\"total\":1,\"events\":["
	              "{\"event\":\"umpire_move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"umpire\"],\"move\":\"e2e4\",\"san\":\"e4\",\"game\":9}]");
	ck_assert_msg(strstr(s.printed, ", live; as the umpire heard it:") && strstr(s.printed, "The true board now:") &&
	              !strstr(s.printed, "at the end"), "%s", s.printed);
	client_free(&c);
	/* --plain: in words (the screen-reader probe: the grid alone) */
	make_client(&c, &s, false);
	c.plain = true;
	login_as(&c, &s, "carol");
	ck_assert_int_eq(client_command(&c, "record 9 umpire"), 0);
	sink_reply_ok(&c, &s,
	              "\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":true,"
	              "\"fen\":\"4k3/8/8/8/8/8/8/4K3 w - - 0 1\",\"view\":\"umpire\",\"total\":0,\"events\":[]");
	ck_assert_msg(strstr(s.printed, "#9: the true position now: White: king e1. Black: king e8.") &&
	              !strstr(s.printed, "Umpire's board"), "%s", s.printed);
	client_free(&c);
}
END_TEST

/* The events of one action the real referee rules that `aud` hears, as the
 * server's record holds them (JSON objects, comma-separated), onto out. */
static void record_events(const struct evlist *evs, const struct ruleset *rs, unsigned aud, char *out,
                          size_t len)
{
	for (size_t i = 0; i < evs->n; i++) {
		if (!(evs->v[i].audience & aud))
			continue;
		json_t *j = event_to_json(&evs->v[i], rs, 9);
		ck_assert_ptr_nonnull(j);
		char *text = json_dumps(j, JSON_COMPACT);
		size_t n = strlen(out);
		snprintf(out + n, len - n, "%s%s", n ? "," : "", text);
		free(text);
		json_decref(j);
	}
}

/* record GAME umpire ends with the true board of every finished game: a
 * game of piece moves, castling, an illegal and an impossible try (the
 * replay read "Nf3"'s "g1f3" as a pawn's and stopped, so that only a game
 * of pawn moves showed its board); and an adjudicated game whose moves do
 * not replay here, from its game_over's "fen". */
START_TEST(record_board_after_a_refused_try)
{
	char err[128];
	const struct ruleset *rs = ruleset_find("icc");
	struct referee *r = referee_new(rs, NULL, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	struct evlist ev;
	evlist_init(&ev);
	static char events[32768];
	events[0] = '\0';
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	record_events(&ev, rs, AUD_UMPIRE, events, sizeof events);
	static const char *const tries[] = { "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "e5", "a1a5", "O-O", "d6" };
	int refused = 0;
	for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		int before = referee_plies(r);
		evlist_clear(&ev);
		referee_attempt(r, referee_side_to_move(r), tries[i], &ev);
		refused += referee_plies(r) == before;
		record_events(&ev, rs, AUD_UMPIRE, events, sizeof events);
	}
	ck_assert_int_eq(refused, 2);   /* e5 (blocked: illegal) and a1a5 (impossible) */
	evlist_clear(&ev);
	ck_assert_int_eq(referee_end(r, REASON_RESIGNATION, WHITE, &ev), REF_OK);
	record_events(&ev, rs, AUD_UMPIRE, events, sizeof events);
	ck_assert_ptr_nonnull(strstr(events, "\"illegal\""));
	ck_assert_ptr_nonnull(strstr(events, "\"impossible\""));

	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "carol");
	ck_assert_int_eq(client_command(&c, "record 9 umpire"), 0);
	static char page[40000];   /* longer than sink_reply_ok takes */
	snprintf(page, sizeof page,
	         "{\"id\":%lld,\"ok\":true,\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	         "\"live\":false,\"result\":\"0-1\",\"reason\":\"resignation\","
	         "\"fen\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\","
	         "\"view\":\"umpire\",\"total\":99,\"events\":[%s]}", sink_sent_id(&s, s.nsent - 1), events);
	client_receive(&c, page);
	struct render_opts ro = c.ropts;
	ro.bottom = WHITE;
	ro.audience = AUD_UMPIRE;
	char want[RENDER_BOARD_MAX];
	render_board(referee_board(r), NULL, &ro, want, sizeof want);
	ck_assert_msg(strstr(s.printed, "White tried e5: illegal") && strstr(s.printed, "White played O-O"),
	              "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "The true board at the end:") && strstr(s.printed, want),
	              "%s\nwanted:\n%s", s.printed, want);
	client_free(&c);

	/* adjudicated: its end said (it was dropped), the board from the game_over's fen */
	make_client(&c, &s, false);
	login_as(&c, &s, "carol");
	ck_assert_int_eq(client_command(&c, "record 9 umpire"), 0);
	sink_reply_ok(&c, &s,
	              "\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":false,"
	              "\"result\":\"1-0\",\"reason\":\"adjudication\","
	              "\"fen\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\","
	              "\"view\":\"umpire\",\"total\":2,\"events\":["
	              "{\"event\":\"umpire_move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"umpire\"],\"move\":\"e2e5\",\"san\":\"e5\",\"game\":9},"
	              "{\"event\":\"game_over\",\"ply\":1,\"audience\":[\"white\",\"black\",\"umpire\",\"spectator\"],"
	              "\"result\":\"1-0\",\"reason\":\"adjudication\",\"note\":\"flag fell in the hall\","
	              "\"fen\":\"rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\",\"game\":9}]");
	struct board b;
	ck_assert_int_eq(fen_parse("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", &b, NULL, 0), 0);
	render_board(&b, NULL, &ro, want, sizeof want);
	ck_assert_msg(strstr(s.printed, "White wins by the umpire's decision (1-0): flag fell in the hall"),
	              "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "The true board at the end:") && strstr(s.printed, want),
	              "%s\nwanted:\n%s", s.printed, want);
	client_free(&c);
	evlist_free(&ev);
	referee_free(r);
}
END_TEST

/* The lines of a record shown: "  N. ..." / "  N... ...". */
static int record_lines(const char *printed)
{
	int n = 0;
	for (const char *p = printed; (p = strstr(p, "\n  ")) != NULL; p++) {
		const char *q = p + 3;
		q += strspn(q, " ");
		if (*q >= '0' && *q <= '9' && strchr(q, '.') && strchr(q, '.') - q <= 6)
			n++;
	}
	return n;
}

/* record (every view) shows the draw offers and declines it holds, so the
 * lines shown are as many as "(N announcements)" counts; a draw's event
 * names no ply: it goes after the event before it.  A player's own record
 * says "You" of the player's own offers, as the game's list does (the
 * friends probe: "White offers to adjourn" to White, beside "You played"). */
START_TEST(record_shows_draw_offers)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	ck_assert_int_eq(client_command(&c, "record 9 white"), 0);
	sink_reply_ok(&c, &s,
	              "\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":false,"
	              "\"result\":\"1/2-1/2\",\"reason\":\"agreement\",\"view\":\"white\",\"total\":8,\"next\":3,\"events\":["
	              "{\"event\":\"pawn_tries\",\"by\":\"white\",\"ply\":0,\"count\":0,\"game\":9},"
	              "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"move\":\"e2e4\",\"san\":\"e4\",\"game\":9},"
	              "{\"event\":\"draw_offer\",\"game\":9,\"by\":\"white\"}]");
	sink_reply_ok(&c, &s,
	              "\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"live\":false,"
	              "\"result\":\"1/2-1/2\",\"reason\":\"agreement\",\"view\":\"white\",\"total\":8,\"events\":["
	              "{\"event\":\"draw_declined\",\"game\":9,\"by\":\"black\"},"
	              "{\"event\":\"moved\",\"by\":\"black\",\"ply\":2,\"game\":9},"
	              "{\"event\":\"adjourn_offer\",\"game\":9,\"by\":\"white\",\"ply\":2},"
	              "{\"event\":\"draw_offer\",\"game\":9,\"by\":\"black\"},"
	              "{\"event\":\"game_over\",\"ply\":2,\"result\":\"1/2-1/2\",\"reason\":\"agreement\",\"game\":9}]");
	ck_assert_msg(strstr(s.printed, "1... You offered a draw\n"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "1... Black declined your draw offer\n"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "2. You offered to adjourn\n"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "2. Black offers a draw\n"), "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "White offers"));
	ck_assert_ptr_nonnull(strstr(s.printed, "(8 announcements)"));
	ck_assert_msg(record_lines(s.printed) == 8, "%d lines:\n%s", record_lines(s.printed), s.printed);
	client_free(&c);
}
END_TEST

/* The events of one try, as the referee rules it, delivered to player `color`'s client. */
static void try_as(struct client *c, struct referee *r, const struct ruleset *rs, const char *text, int color)
{
	struct evlist ev;
	evlist_init(&ev);
	referee_attempt(r, referee_side_to_move(r), text, &ev);
	for (size_t i = 0; i < ev.n; i++) {
		if (!(ev.v[i].audience & aud_of(color)))
			continue;
		json_t *j = event_to_json(&ev.v[i], rs, 5);
		char *line = json_dumps(j, JSON_COMPACT);
		client_receive(c, line);
		free(line);
		json_decref(j);
	}
	evlist_free(&ev);
	client_flush(c);
}

/* A pawn capture the turn's pawn announcement ruled out is refused as
 * impossible, though the player's own pieces can make it: said in the rule
 * set's word ("Nonsense") and why, never "your own pieces cannot make it". */
START_TEST(impossible_pawn_capture_says_why)
{
	static const struct {
		const char *rules;
		const char *const tries[6];
		const char *wrong, *told, *want;
	} cases[] = {
		/* cincinnati: "You have no pawn captures", then exd6 */
		{ "cincinnati", { "e4", "a6", "e5", "h5" }, "exd6", "You have no pawn captures",
		  "Nonsense: e5d6 (this turn's pawn announcement rules it out)" },
		/* rand: only e4 named, then dxe5 */
		{ "rand", { "e4", "d5", "d4", "a6" }, "dxe5", "You can capture with a pawn from e4",
		  "Nonsense: d4e5 (this turn's pawn announcement rules it out)" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char err[128], line[512];
		const struct ruleset *rs = ruleset_find(cases[k].rules);
		struct referee *r = referee_new(rs, NULL, err, sizeof err);
		struct client c;
		struct sink s;
		make_client(&c, &s, false);
		snprintf(line, sizeof line, "{\"event\":\"game_start\",\"game\":5,\"rules\":\"%s\",\"white\":\"alice\","
		         "\"black\":\"bob\",\"color\":\"white\",\"rated\":false}", cases[k].rules);
		client_receive(&c, line);
		struct evlist ev;
		evlist_init(&ev);
		ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
		deliver_rs(&c, &ev, 0, WHITE, 5, cases[k].rules);
		evlist_free(&ev);
		for (size_t i = 0; cases[k].tries[i]; i++)
			try_as(&c, r, rs, cases[k].tries[i], WHITE);
		ck_assert_msg(strstr(s.printed, cases[k].told), "%s", s.printed);
		s.printed[0] = '\0';
		try_as(&c, r, rs, cases[k].wrong, WHITE);
		ck_assert_msg(strstr(s.printed, cases[k].want), "%s: %s", cases[k].rules, s.printed);
		ck_assert_ptr_null(strstr(s.printed, "own pieces"));
		client_free(&c);
		referee_free(r);
	}
}
END_TEST

/* Adjournment: the offerer is told the offer was made, the opponent how to
 * answer it; while adjourned the prompt says so, never "your move". */
START_TEST(adjournment_from_both_sides)
{
	char prompt[256];
	struct client c, d;
	struct sink s, t;
	make_client(&c, &s, false);
	make_client(&d, &t, false);
	login_as(&c, &s, "alice");
	login_as(&d, &t, "bob");
	sink_game_start(&c, 4, "white", true);
	sink_game_start(&d, 4, "black", true);
	client_flush(&c);
	client_flush(&d);
	static const char offer[] = "{\"event\":\"adjourn_offer\",\"game\":4,\"by\":\"white\",\"ply\":0,"
	                            "\"clock\":{\"white\":300000,\"black\":300000}}";
	client_receive(&c, offer);
	client_receive(&d, offer);
	ck_assert_msg(strstr(s.printed, "#4: You offered to adjourn"), "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "accepts"));
	ck_assert_msg(strstr(t.printed, "#4: White offers to adjourn (\"adjourn\" accepts, \"adjourn decline\" declines)"),
	              "%s", t.printed);

	static const char done[] = "{\"event\":\"adjourned\",\"game\":4,\"by\":\"black\",\"ply\":0,"
	                           "\"clock\":{\"white\":300000,\"black\":300000}}";
	client_receive(&c, done);
	client_receive(&d, done);
	/* the one who agreed reads "you" (friends probe: "Adjourned (Black
	 * agreed)" to Black, who had typed it) */
	ck_assert_msg(strstr(t.printed, "#4: Adjourned (you agreed)"), "%s", t.printed);
	ck_assert_msg(strstr(s.printed, "#4: Adjourned (Black agreed)"), "%s", s.printed);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "| adjourned]") && !strstr(prompt, "your move"), "%s", prompt);
	ck_assert_int_eq(client_command(&c, "games"), 0);   /* the list does not say it: the client does */
	sink_reply_ok(&c, &s, "\"games\":[{\"game\":4,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	              "\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\"}],\"total\":1");
	ck_assert_msg(strstr(s.printed, "you are white, white to move (adjourned)"), "%s", s.printed);
	client_receive(&c, "{\"event\":\"unadjourned\",\"game\":4,\"by\":\"black\",\"ply\":0}");
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "your move"), "%s", prompt);
	client_receive(&d, "{\"event\":\"unadjourned\",\"game\":4,\"by\":\"black\",\"ply\":0}");
	ck_assert_msg(strstr(t.printed, "#4: You resumed the adjourned game"), "%s", t.printed);
	ck_assert_msg(strstr(s.printed, "#4: Black resumed the adjourned game"), "%s", s.printed);
	/* "adjourn" is answered by its event alone (friends probe: "#4: done."
	 * after "You offered to adjourn") */
	ck_assert_int_eq(client_command(&c, "adjourn"), 0);
	size_t at = strlen(s.printed);
	client_receive(&c, "{\"event\":\"adjourn_offer\",\"game\":4,\"by\":\"white\",\"ply\":0}");
	sink_reply_ok(&c, &s, "\"game\":4");
	ck_assert_msg(!strcmp(s.printed + at, "#4: You offered to adjourn\n"), "%s", s.printed + at);
	client_receive(&c, "{\"event\":\"adjourn_declined\",\"game\":4,\"by\":\"black\",\"ply\":0}");
	/* Regression (probe): an umpire's pause read "your move" in the prompt
	 * and the list, and the move was refused. */
	client_receive(&c, "{\"event\":\"clock_paused\",\"game\":4,\"by\":\"umpire\",\"reason\":\"x\","
	                   "\"ply\":0,\"clock\":{\"white\":300000,\"black\":300000}}");
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "| paused by the umpire]") && !strstr(prompt, "your move"), "%s", prompt);
	ck_assert_int_eq(client_command(&c, "games"), 0);
	sink_reply_ok(&c, &s, "\"games\":[{\"game\":4,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	              "\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\","
	              "\"paused\":true}],\"total\":1");
	ck_assert_msg(strstr(s.printed, "you are white, white to move (paused by the umpire)"), "%s", s.printed);
	client_free(&c);
	client_free(&d);

	/* logging in to an adjourned game: "adjourned", no "your move" */
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	s.printed[0] = '\0';
	client_receive(&c, "{\"event\":\"game_state\",\"game\":4,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\","
	                   "\"adjourned\":true,\"time\":{\"base\":300,\"inc\":0},"
	                   "\"clock\":{\"white\":300000,\"black\":300000},\"events\":[]}");
	client_flush(&c);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "| adjourned]"), "%s", prompt);
	ck_assert_msg(strstr(s.printed, "#4: adjourned (\"unadjourn\" resumes it)."), "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "your move"));
	client_free(&c);
}
END_TEST

/* The friends probe: alice offered a draw and moved; bob declined while
 * she was away.  Her game's list and the login summary say so (the view
 * carried it; neither showed it). */
START_TEST(declined_draw_offer_shown_at_login)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	s.printed[0] = '\0';
	client_receive(&c, "{\"event\":\"game_state\",\"game\":1,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\","
	                   "\"time\":{\"days\":1},\"clock\":{\"white\":86400000,\"black\":86400000},\"events\":["
	                   "{\"event\":\"draw_offer\",\"game\":1,\"by\":\"white\"},"
	                   "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"white\"],\"move\":\"e2e4\",\"san\":\"e4\"},"
	                   "{\"event\":\"draw_declined\",\"game\":1,\"by\":\"black\"}]}");
	client_flush(&c);
	ck_assert_msg(strstr(s.printed, "  1. You offered a draw\n"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "  1... Black declined your draw offer\n"), "%s", s.printed);
	client_receive(&c, "{\"event\":\"welcome\",\"your_move\":[{\"game\":1,\"color\":\"white\","
	                   "\"opponent\":\"bob\",\"left\":86000000}],\"draw_offers\":[],\"ended\":[]}");
	const char *away = strstr(s.printed, "While you were away:");
	ck_assert_msg(away && strstr(away, "  game 1: Black declined your draw offer.\n"), "%s", s.printed);
	/* an offer of hers standing, or one made after the decline: no decline said */
	s.printed[0] = '\0';
	client_receive(&c, "{\"event\":\"game_state\",\"game\":1,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"black\","
	                   "\"draw_offer\":\"white\",\"events\":[{\"event\":\"draw_declined\",\"game\":1,\"by\":\"black\"},"
	                   "{\"event\":\"draw_offer\",\"game\":1,\"by\":\"white\"}]}");
	client_receive(&c, "{\"event\":\"welcome\",\"your_move\":[],\"draw_offers\":[{\"game\":1,\"by\":\"white\"}],"
	                   "\"ended\":[]}");
	ck_assert_msg(strstr(s.printed, "game 1: your draw offer stands."), "%s", s.printed);
	ck_assert_msg(!strstr(s.printed, "declined your draw offer."), "%s", s.printed);
	/* a move of hers after the decline: she was there and heard it; not
	 * said at every login after */
	s.printed[0] = '\0';
	client_receive(&c, "{\"event\":\"game_state\",\"game\":1,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\","
	                   "\"events\":[{\"event\":\"draw_offer\",\"game\":1,\"by\":\"white\"},"
	                   "{\"event\":\"draw_declined\",\"game\":1,\"by\":\"black\"},"
	                   "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"white\"],\"move\":\"e2e4\",\"san\":\"e4\"},"
	                   "{\"event\":\"moved\",\"by\":\"black\",\"ply\":2,\"audience\":[\"white\"]}]}");
	client_receive(&c, "{\"event\":\"welcome\",\"your_move\":[{\"game\":1,\"color\":\"white\","
	                   "\"opponent\":\"bob\"}],\"draw_offers\":[],\"ended\":[]}");
	ck_assert_msg(strstr(s.printed, "While you were away:"), "%s", s.printed);
	ck_assert_msg(!strstr(s.printed, "declined your draw offer."), "%s", s.printed);
	client_free(&c);
}
END_TEST

/* The friends probe: a challenge waiting at login was printed first, then
 * scrolled away by the games' boards; the summary repeats it, hint and all. */
START_TEST(waiting_challenges_in_the_login_summary)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	static const char *const chal[] = {
		"{\"event\":\"challenge\",\"offer\":5,\"user\":\"carol\",\"to\":\"alice\",\"rules\":\"icc\","
		"\"time\":{\"days\":3},\"rated\":false,\"color\":\"white\"}",
		"{\"event\":\"challenge\",\"offer\":6,\"user\":\"dave\",\"to\":\"alice\",\"rules\":\"icc\","
		"\"time\":{\"days\":3},\"rated\":false}",
	};
	client_receive(&c, chal[0]);
	client_receive(&c, chal[1]);
	client_receive(&c, "{\"event\":\"challenge_cancelled\",\"offer\":6}");   /* gone: not repeated */
	sink_game_start(&c, 1, "white", true);
	s.printed[0] = '\0';
	client_receive(&c, "{\"event\":\"welcome\",\"your_move\":[{\"game\":1,\"color\":\"white\","
	                   "\"opponent\":\"bob\"}],\"draw_offers\":[],\"ended\":[]}");
	ck_assert_msg(strstr(s.printed, "\n  carol challenges you: icc, 3 days a move, unrated, you play Black. "
	                                "Type \"accept 5\" or \"decline 5\".\n"), "%s", s.printed);
	ck_assert_msg(!strstr(s.printed, "dave"), "%s", s.printed);
	/* a new login: only what it sends again */
	login_as(&c, &s, "alice");
	s.printed[0] = '\0';
	client_receive(&c, "{\"event\":\"welcome\",\"your_move\":[{\"game\":1,\"color\":\"white\","
	                   "\"opponent\":\"bob\"}],\"draw_offers\":[],\"ended\":[]}");
	ck_assert_msg(!strstr(s.printed, "carol"), "%s", s.printed);
	client_free(&c);
}
END_TEST

/* The friends probe: replayed history carries no how-to-answer hint (it
 * read "White offers to adjourn (\"adjourn\" accepts ...)" over "Adjourned
 * (Black agreed)"), and the current game's draw offer needs no "switch". */
START_TEST(replayed_offers_carry_no_hint)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "bob");
	s.printed[0] = '\0';
	client_receive(&c, "{\"event\":\"game_state\",\"game\":1,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"black\",\"rated\":false,\"live\":true,\"to_move\":\"white\","
	                   "\"adjourned\":true,\"draw_offer\":\"white\",\"events\":["
	                   "{\"event\":\"adjourn_offer\",\"game\":1,\"by\":\"white\",\"ply\":0},"
	                   "{\"event\":\"adjourned\",\"game\":1,\"by\":\"black\",\"ply\":0},"
	                   "{\"event\":\"draw_offer\",\"game\":1,\"by\":\"white\"}]}");
	client_flush(&c);
	ck_assert_msg(strstr(s.printed, "  1. White offers to adjourn\n"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "  1. White offers a draw\n"), "%s", s.printed);
	ck_assert_msg(!strstr(s.printed, "accepts"), "%s", s.printed);
	ck_assert_int_eq(c.current, 1);
	client_receive(&c, "{\"event\":\"welcome\",\"your_move\":[],\"draw_offers\":[{\"game\":1,\"by\":\"white\"},"
	                   "{\"game\":2,\"by\":\"white\"}],\"ended\":[]}");
	ck_assert_msg(strstr(s.printed, "game 1: White offers a draw (\"draw accept\" or \"draw decline\").\n"),
	              "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "game 2: White offers a draw (\"switch 2\", then \"draw accept\" or "
	                                "\"draw decline\").\n"), "%s", s.printed);
	client_free(&c);
}
END_TEST

/*
 * Every live game is followed, however many there are (the server caps no
 * one's correspondence games): past the 32nd, a game_state at login was
 * dropped without a word, and "switch" to it printed nothing at all.
 */
START_TEST(every_live_game_is_followed)
{
	enum { LIVE = 40 };
	struct client c;
	struct sink s;
	char line[512], want[64];
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	s.printed[0] = '\0';
	for (int id = 1; id <= LIVE; id++) {
		snprintf(line, sizeof line,
		         "{\"event\":\"game_state\",\"game\":%d,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
		         "\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\",\"events\":[]}", id);
		client_receive(&c, line);
	}
	client_flush(&c);
	for (int id = 1; id <= LIVE; id++) {
		snprintf(want, sizeof want, "Game %d: alice (White) vs bob (Black)", id);
		ck_assert_msg(strstr(s.printed, want), "no \"%s\"", want);
		ck_assert_ptr_nonnull(client_game(&c, id));
	}
	/* each one switched to here, at once: nothing asked of the server */
	int sent = s.nsent;
	for (int id = LIVE; id >= 1; id--) {
		s.printed[0] = '\0';
		snprintf(line, sizeof line, "switch %d", id);
		ck_assert_int_eq(client_command(&c, line), 0);
		ck_assert_int_eq(c.current, id);
		ck_assert_msg(strstr(s.printed, "White's own board"), "switch %d: %s", id, s.printed);
		client_prompt(&c, line, sizeof line);
		snprintf(want, sizeof want, "[#%d White | your move] > ", id);
		ck_assert_str_eq(line, want);
	}
	ck_assert_int_eq(s.nsent, sent);
	/* one more, begun now: followed too, and current */
	sink_game_start(&c, LIVE + 1, "black", false);
	ck_assert_int_eq(c.current, LIVE + 1);
	ck_assert_ptr_nonnull(client_game(&c, 1));
	client_free(&c);
}
END_TEST

/* A clock read below zero is a flag fallen (or about to): 0:00, not no clocks at all. */
START_TEST(negative_clock_shows_zero)
{
	struct client c;
	struct sink s;
	char prompt[256];
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	client_receive(&c, "{\"event\":\"game_state\",\"game\":4,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\","
	                   "\"time\":{\"base\":300,\"inc\":0},\"clock\":{\"white\":-250,\"black\":120000},\"events\":[]}");
	client_flush(&c);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#4 White 0:00 | Black 2:00 | your move] > ");
	ck_assert_int_eq(client_clock(&c, client_game(&c, 4), WHITE), 0);
	/* an event's clock likewise, Black's this time */
	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":4,\"by\":\"black\","
	                   "\"clock\":{\"white\":5000,\"black\":-1}}");
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#4 White 0:05 | Black 0:00 | your move] > ");
	client_free(&c);
}
END_TEST

/* The view rebuilt after a reconnection says whether the try lost with the
 * connection was played: not played, still one's move; played, and the
 * opponent has answered it since (one's move again: the ply says). */
START_TEST(lost_try_said_after_the_reconnection)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	login_as(&c, &s, "alice");
	sink_game_start(&c, 4, "white", false);
	static const char *const states[] = {
		"\"to_move\":\"white\",\"events\":[]",
		"\"to_move\":\"white\",\"events\":[{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"white\"],"
		"\"move\":\"e2e4\",\"san\":\"e4\"},{\"event\":\"move\",\"by\":\"black\",\"ply\":2}]",
	};
	static const char *const said[] = { "#4: your try sent as the connection dropped was not played: it is "
	                                    "still your move.",
	                                    "#4: your try sent as the connection dropped was played (1. You played e4)." };
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(client_command(&c, "e4"), 0);
		ck_assert_int_eq(client_disconnected(&c), 1);
		ck_assert_int_eq(client_resume(&c), 0);
		sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok2\",\"games\":[4]");
		size_t at = strlen(s.printed);
		char line[1024];
		snprintf(line, sizeof line, "{\"event\":\"game_state\",\"game\":4,\"rules\":\"icc\",\"white\":\"alice\","
		         "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,%s}", states[k]);
		client_receive(&c, line);
		ck_assert_msg(strstr(s.printed + at, said[k]) != NULL, "%s", s.printed + at);
		sink_reply_ok(&c, &s, NULL);   /* the settling ping */
		at = strlen(s.printed);
		client_receive(&c, line);      /* said once */
		ck_assert_ptr_null(strstr(s.printed + at, "connection dropped"));
	}
	/* A review: the try's own announcement heard, its answer lost, and the
	 * opponent's move made while away: one's move again, and the try was
	 * played (the plies are the try's sending's, not the loss's). */
	sink_game_start(&c, 5, "white", false);
	ck_assert_int_eq(client_command(&c, "switch 5"), 0);
	sink_reply_ok(&c, &s, "\"game\":5,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\",\"color\":\"white\","
	              "\"live\":true,\"to_move\":\"white\",\"events\":[]");
	ck_assert_int_eq(client_command(&c, "e4"), 0);
	client_receive(&c, "{\"event\":\"move\",\"game\":5,\"by\":\"white\",\"ply\":1,\"audience\":[\"white\"],"
	                   "\"move\":\"e2e4\",\"san\":\"e4\"}");
	ck_assert_int_eq(client_disconnected(&c), 1);
	ck_assert_int_eq(client_resume(&c), 0);
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok3\",\"games\":[4,5]");
	size_t at = strlen(s.printed);
	client_receive(&c, "{\"event\":\"game_state\",\"game\":5,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	                   "\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\",\"events\":["
	                   "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"white\"],\"move\":\"e2e4\",\"san\":\"e4\"},"
	                   "{\"event\":\"move\",\"by\":\"black\",\"ply\":2}]}");
	ck_assert_msg(strstr(s.printed + at, "#5: your try sent as the connection dropped was played (1. You played e4).") != NULL,
	              "%s", s.printed + at);
	client_free(&c);
}
END_TEST

/* After a lost connection: the token resumes; a resumed state keeps the guesses; an ended game is fetched. */
START_TEST(resume_after_a_lost_connection)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_resume(&c), -1);   /* nothing to resume yet */
	login_as(&c, &s, "alice");
	sink_game_start(&c, 4, "white", false);
	sink_game_start(&c, 5, "black", false);
	ck_assert_int_eq(client_command(&c, "switch 4"), 0);
	ck_assert_int_eq(client_command(&c, "ghost place Nf6"), 0);
	ck_assert_int_eq(client_command(&c, "e4"), 0);   /* in flight when the line drops */
	ck_assert(client_busy(&c));
	ck_assert_int_eq(client_disconnected(&c), 1);
	ck_assert(!client_busy(&c));

	ck_assert_int_eq(client_hello(&c), 0);
	ck_assert_int_eq(client_resume(&c), 0);
	json_t *r = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "resume");
	ck_assert_str_eq(json_string_value(json_object_get(r, "token")), "tok-alice");
	json_decref(r);
	/* game 5 ended meanwhile: not among the live games, so its end is fetched */
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok2\",\"games\":[4]");
	ck_assert_str_eq(c.token, "tok2");
	ck_assert_int_eq(users_pending(&c), 0);   /* the ended game's fetch and the ping: krieg's own */
	sent_is(&s, s.nsent - 1, "ping", NULL);   /* last: login_settle's */
	r = json_loads(s.sent[s.nsent - 2], 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "game");
	ck_assert_int_eq(json_integer_value(json_object_get(r, "game")), 5);
	json_decref(r);
	client_receive(&c, "{\"event\":\"game_state\",\"game\":4,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	                   "\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"black\",\"events\":["
	                   "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"white\"],\"move\":\"e2e4\",\"san\":\"e4\"}]}");
	struct cgame *g = client_game(&c, 4);
	ck_assert_ptr_nonnull(g);
	/* Regression (the friends probe): the try in flight is said played
	 * (--plain only flipped its prompt to "their move") */
	ck_assert_msg(strstr(s.printed, "#4: your try sent as the connection dropped was played (1. You played e4).") != NULL,
	              "%s", s.printed);
	ck_assert_int_eq(c.current, 4);                 /* still the game the player was on */
	ck_assert_int_eq(g->ghosts.sq[square_parse("f6")], piece_code(BLACK, KNIGHT));
	ck_assert_int_eq(g->view.own.mailbox[square_parse("e4")], piece_code(WHITE, PAWN));
	ck_assert_int_eq(g->view.to_move, BLACK);
	char fetched[512];   /* the answer to the game fetch, sent before the ping */
	snprintf(fetched, sizeof fetched, "{\"id\":%lld,\"ok\":true,\"game\":5,\"rules\":\"icc\",\"white\":\"bob\","
	         "\"black\":\"alice\",\"color\":\"black\",\"live\":false,\"result\":\"1-0\",\"reason\":\"time\","
	         "\"events\":[]}", sink_sent_id(&s, s.nsent - 2));
	client_receive(&c, fetched);
	ck_assert(!client_game(&c, 5)->live);
	ck_assert_int_eq(c.current, 4);

	/* a refused resume: logged out, the token forgotten */
	client_disconnected(&c);
	ck_assert_int_eq(client_resume(&c), 0);
	char line[256];
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"auth_failed\",\"message\":\"x\"}}",
	         sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, line);
	ck_assert(!c.logged_in);
	ck_assert_int_eq(client_resume(&c), -1);
	ck_assert_ptr_nonnull(strstr(s.printed, "log in again"));

	/* Regression (the help probe): a mistyped `resume TOKEN` while logged
	 * in is refused by the server, which keeps the login: so does krieg */
	login_as(&c, &s, "alice");
	ck_assert_int_eq(client_command(&c, "resume not-a-token"), 0);
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"auth_failed\",\"message\":\"x\"}}",
	         sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, line);
	ck_assert(c.logged_in);
	ck_assert_str_eq(c.token, "tok-alice");
	ck_assert_ptr_nonnull(strstr(s.printed, "The session was not resumed: you are still logged in as alice."));
	client_free(&c);
}
END_TEST

/* The type and user of request n (0-based) the client sent. */
static void sent_is(const struct sink *s, int n, const char *type, const char *user)
{
	json_t *r = json_loads(s->sent[n], 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), type);
	if (user)
		ck_assert_str_eq(json_string_value(json_object_get(r, "user")), user);
	json_decref(r);
}

/* Regression: the server keeps a lobby watch, and a guest's follows, for a
 * connection only, and krieg did not ask for them again when it
 * reconnected: a follower's screen went quiet without a word after any
 * restart of the server.  Asked again at the resume now, the follows
 * quietly; one unfollowed (or all) is not.  A registered account's
 * follows the server keeps itself: not asked again. */
START_TEST(follows_and_lobby_outlive_a_reconnection)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "guest"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok-alice\"");
	ck_assert(c.guest);
	ck_assert_int_eq(client_command(&c, "follow anna"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"Anna\",\"games\":[]");
	ck_assert_int_eq(client_command(&c, "follow bob"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"bob\",\"games\":[]");
	ck_assert_int_eq(client_command(&c, "follow carol"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"carol\",\"games\":[]");
	ck_assert_int_eq(client_command(&c, "follow ANNA"), 0);   /* twice is once */
	sink_reply_ok(&c, &s, "\"user\":\"Anna\",\"games\":[]");
	ck_assert_int_eq(client_command(&c, "unfollow BOB"), 0);
	size_t at = strlen(s.printed);
	sink_reply_ok(&c, &s, "\"dropped\":1");
	ck_assert_ptr_nonnull(strstr(s.printed + at, "Unfollowed."));
	/* One never followed: said so, not "Done." (help probe). */
	ck_assert_int_eq(client_command(&c, "unfollow zed"), 0);
	at = strlen(s.printed);
	sink_reply_ok(&c, &s, "\"dropped\":0");
	ck_assert_ptr_nonnull(strstr(s.printed + at, "You were not following them: nothing changed."));
	ck_assert_ptr_null(strstr(s.printed + at, "Done."));
	ck_assert_int_eq(client_command(&c, "lobby"), 0);
	sink_reply_ok(&c, &s, "\"offers\":[],\"total\":0");

	client_disconnected(&c);
	ck_assert_int_eq(client_hello(&c), 0);
	ck_assert_int_eq(client_resume(&c), 0);
	int before = s.nsent;
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok2\",\"games\":[]");
	ck_assert_int_eq(s.nsent, before + 4);
	ck_assert_int_eq(users_pending(&c), 0);   /* a guest's follows asked again: krieg's own */
	sent_is(&s, before, "follow", "Anna");
	sent_is(&s, before + 1, "follow", "carol");
	sent_is(&s, before + 2, "lobby_watch", NULL);
	sent_is(&s, before + 3, "ping", NULL);   /* login_settle */
	/* the follows answered: quiet, but a game being played now is said */
	size_t said = strlen(s.printed);
	char line[256];
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":true,\"user\":\"Anna\",\"games\":[]}", sink_sent_id(&s, before));
	client_receive(&c, line);
	ck_assert_uint_eq(strlen(s.printed), said);
	sink_game_start(&c, 13, "white", false);   /* a game of alice's own against carol: not said */
	said = strlen(s.printed);
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":true,\"user\":\"carol\",\"games\":[12,13]}", sink_sent_id(&s, before + 1));
	client_receive(&c, line);
	ck_assert_ptr_nonnull(strstr(s.printed + said, "carol plays game 12 now"));
	ck_assert_ptr_null(strstr(s.printed + said, "game 13"));
	ck_assert_ptr_null(strstr(s.printed + said, "Following"));

	/* unfollow alone: all gone; lobby off: not watched; the next reconnection asks for nothing */
	ck_assert_int_eq(client_command(&c, "unfollow"), 0);
	at = strlen(s.printed);
	sink_reply_ok(&c, &s, "\"dropped\":2");
	ck_assert_ptr_nonnull(strstr(s.printed + at, "You follow nobody now (2 unfollowed)."));
	ck_assert_int_eq(client_command(&c, "unfollow"), 0);
	at = strlen(s.printed);
	sink_reply_ok(&c, &s, "\"dropped\":0");
	ck_assert_ptr_nonnull(strstr(s.printed + at, "You followed nobody: nothing changed."));
	ck_assert_int_eq(client_command(&c, "lobby off"), 0);
	sink_reply_ok(&c, &s, NULL);
	client_disconnected(&c);
	ck_assert_int_eq(client_resume(&c), 0);
	before = s.nsent;
	sink_reply_ok(&c, &s, "\"user\":\"alice\",\"token\":\"tok3\",\"games\":[13]");
	ck_assert_int_eq(s.nsent, before + 1);   /* login_settle's ping alone */
	sent_is(&s, before, "ping", NULL);
	client_free(&c);

	/* a registered account: its follows kept by the server, only the lobby asked again */
	make_client(&c, &s, false);
	login_as(&c, &s, "bob");
	ck_assert_int_eq(client_command(&c, "follow anna"), 0);
	sink_reply_ok(&c, &s, "\"user\":\"anna\",\"games\":[]");
	ck_assert_int_eq(client_command(&c, "lobby"), 0);
	sink_reply_ok(&c, &s, "\"offers\":[],\"total\":0");
	client_disconnected(&c);
	ck_assert_int_eq(client_resume(&c), 0);
	before = s.nsent;
	sink_reply_ok(&c, &s, "\"user\":\"bob\",\"token\":\"tok4\",\"games\":[]");
	ck_assert_int_eq(s.nsent, before + 2);
	sent_is(&s, before, "lobby_watch", NULL);
	sent_is(&s, before + 1, "ping", NULL);   /* login_settle */
	/* Regression (a review): what a reconnection asks again is krieg's own:
	 * lost with the next drop, no request of the user's went unanswered */
	ck_assert_int_eq(client_disconnected(&c), 0);
	ck_assert_int_eq(client_resume(&c), 0);
	ck_assert_int_eq(client_disconnected(&c), 0);   /* nor is the resume itself */
	ck_assert_int_eq(client_command(&c, "who"), 0);
	ck_assert_int_eq(client_disconnected(&c), 1);   /* the user's own `who` is */
	client_free(&c);
}
END_TEST

/* register refused by the server's policy explains it; an invite code (--invite, before the password) is sent along. */
START_TEST(register_refusal_explains_the_policy)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	static const char *const codes[] = { "invite_required", "registration_closed", "bad_invite" };
	static const char *const says[] = { "by invitation", "an admin creates accounts", "new one" };
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(client_command(&c, i == 2 ? "register alice --invite CODE42 sesame-pw"
		                                           : "register alice sesame-pw"), 0);
		json_t *r = sink_last(&s);
		ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "register");
		if (i == 2)
			ck_assert_str_eq(json_string_value(json_object_get(r, "invite")), "CODE42");
		else
			ck_assert_ptr_null(json_object_get(r, "invite"));
		json_decref(r);
		char line[256];
		snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"%s\","
		         "\"message\":\"x\"}}", sink_sent_id(&s, s.nsent - 1), codes[i]);
		client_receive(&c, line);
		ck_assert_msg(strstr(s.printed, says[i]) != NULL, "%s: %s", codes[i], s.printed);
		ck_assert(!c.logged_in);
	}
	client_free(&c);
}
END_TEST

/* A login an admin's reset left waiting: not logged in, told to use passwd,
 * and again at each request the server refuses for it; passwd completes
 * the login.  Logged in, passwd says how many other sessions ended. */
START_TEST(reset_login_prompts_for_passwd)
{
	struct client c;
	struct sink s;
	char line[256];
	make_client(&c, &s, false);
	ck_assert_int_eq(client_command(&c, "login alice temp-password"), 0);
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":true,\"user\":\"alice\","
	         "\"must_change_password\":true}", sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, line);
	ck_assert(!c.logged_in);
	ck_assert_ptr_nonnull(strstr(s.printed, "\"passwd\""));
	ck_assert_ptr_null(strstr(s.printed, "Logged in"));
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "who"), 0);
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":"
	         "\"password_change_required\",\"message\":\"x\"}}", sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, line);
	ck_assert_ptr_nonnull(strstr(s.printed, "choose your own with \"passwd\""));
	/* Without a terminal both passwords go on the line. */
	int before = s.nsent;
	ck_assert_int_ne(client_command(&c, "passwd temp-password"), 0);
	ck_assert_int_eq(s.nsent, before);
	ck_assert_int_eq(client_command(&c, "passwd temp-password own-password"), 0);
	json_t *r = sink_last(&s);
	ck_assert_str_eq(json_string_value(json_object_get(r, "type")), "passwd");
	ck_assert_str_eq(json_string_value(json_object_get(r, "old")), "temp-password");
	ck_assert_str_eq(json_string_value(json_object_get(r, "new")), "own-password");
	json_decref(r);
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":true,\"user\":\"alice\",\"token\":"
	         "\"tok\",\"games\":[]}", sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, line);
	ck_assert(c.logged_in);
	ck_assert_str_eq(c.user, "alice");
	ck_assert_ptr_nonnull(strstr(s.printed, "Logged in as alice"));
	ck_assert_int_eq(client_command(&c, "passwd own-password newer-password"), 0);
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":true,\"ended\":2}",
	         sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, line);
	ck_assert_ptr_nonnull(strstr(s.printed, "2 other session(s) ended"));
	ck_assert(c.logged_in);
	client_free(&c);
}
END_TEST

/* A long view arrives in pages (game_events): shown once, when complete. */
START_TEST(paged_game_state_is_shown_once_complete)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	client_receive(&c, "{\"event\":\"game_state\",\"game\":7,\"rules\":\"icc\",\"white\":\"a\",\"black\":\"b\","
	                   "\"color\":\"white\",\"live\":true,\"to_move\":\"white\",\"total\":2,\"next\":1,\"events\":["
	                   "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,\"audience\":[\"white\"],\"move\":\"e2e4\",\"san\":\"e4\"}]}");
	ck_assert_ptr_null(strstr(s.printed, "own board"));
	client_receive(&c, "{\"event\":\"game_events\",\"game\":7,\"from\":1,\"total\":2,\"events\":["
	                   "{\"event\":\"moved\",\"by\":\"black\",\"ply\":2,\"audience\":[\"white\"]}]}");
	struct cgame *g = client_game(&c, 7);
	ck_assert_int_eq(g->log_n, 2);
	ck_assert_ptr_nonnull(strstr(s.printed, "own board"));
	ck_assert_ptr_nonnull(strstr(s.printed, "#7: your move"));
	client_free(&c);
}
END_TEST

/* A hostile server's words reach the terminal without their control
 * characters (scrub.h): a name that clears the screen, chat that rings the
 * bell or opens a CSI in its C1 form; a clock reading no long can hold is
 * held to a year, not cast (undefined behaviour, which UBSan reports).
 * Found by fuzz_client (tests/fuzz/regress/client). */
START_TEST(server_text_is_scrubbed_before_it_is_shown)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":4,\"rules\":\"icc\",\"white\":\"\\u001b[2Jal\\u0007ice\","
	                   "\"black\":\"bob\",\"color\":\"black\",\"rated\":false,\"time\":{\"base\":300,\"inc\":0},"
	                   "\"clock\":{\"white\":3058e46,\"black\":-1e300}}");
	client_receive(&c, "{\"event\":\"chat\",\"game\":4,\"channel\":\"game\",\"color\":\"white\",\"ply\":0,"
	                   "\"text\":\"hi\\u009b31m\\u007f there\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "?[2Jal?ice"));
	ck_assert_ptr_nonnull(strstr(s.printed, "hi??31m? there"));
	ck_assert_uint_eq(scrub_count(s.printed, strlen(s.printed)), 0);
	struct cgame *g = client_current(&c);
	ck_assert_int_eq(g->clock_ms[WHITE], SCRUB_MS_MAX);
	ck_assert_int_eq(g->clock_ms[BLACK], 0);   /* below zero: a fallen flag, 0:00 */
	client_free(&c);

	/* batch mode prints each line as received, but not a raw control byte */
	make_client(&c, &s, true);
	client_receive(&c, "{\"event\":\"chat\",\"text\":\"a\x7f\xc2\x9b" "b\"}");
	ck_assert_str_eq(s.raw, "{\"event\":\"chat\",\"text\":\"a???b\"}\n");
	client_free(&c);
}
END_TEST

static Suite *session_suite(void)
{
	Suite *s = suite_create("client_session");
	TCase *tc = tcase_create("session");
	tcase_add_test(tc, ghosts_never_reach_the_server);
	tcase_add_test(tc, board_list_has_no_duplicates);
	tcase_add_test(tc, board_redrawn_when_what_it_shows_changes);
	tcase_add_test(tc, help_is_shown_whole);
	tcase_add_test(tc, help_about_a_word);
	tcase_add_test(tc, help_about_a_rule_set);
	tcase_add_test(tc, game_header_says_the_time_control);
	tcase_add_test(tc, plain_says_what_the_screen_shows);
	tcase_add_test(tc, ambiguous_try_lists_the_candidates);
	tcase_add_test(tc, ghosts_say_what_they_did);
	tcase_add_test(tc, games_list_the_time_control);
	tcase_add_test(tc, guest_quit_warns);
	tcase_add_test(tc, paged_lists_read_to_the_end);
	tcase_add_test(tc, admin_words_and_server_notices);
	tcase_add_test(tc, bots_are_marked);
	tcase_add_test(tc, raw_answer_is_shown);
	tcase_add_test(tc, played_move_echoed_as_the_server_wrote_it);
	tcase_add_test(tc, moves_checked_on_own_pieces);
	tcase_add_test(tc, referee_events_build_the_views);
	tcase_add_test(tc, clocks_tick);
	tcase_add_test(tc, challenge_accept_and_errors);
	tcase_add_test(tc, batch_prints_verbatim_and_waits);
	tcase_add_test(tc, switch_fetches_a_game_and_draws);
	tcase_add_test(tc, logout_forgets_the_games);
	tcase_add_test(tc, login_settles_before_the_next_command);
	tcase_add_test(tc, draw_responses_say_what_happened);
	tcase_add_test(tc, draw_offer_lapses_with_a_move);
	tcase_add_test(tc, rematch_after_the_end);
	tcase_add_test(tc, final_position_shown);
	tcase_add_test(tc, profile_and_standings_in_words);
	tcase_add_test(tc, following_in_words);
	tcase_add_test(tc, mutes_in_words);
	tcase_add_test(tc, motd_is_shown);
	tcase_add_test(tc, your_move_follows_the_last_announcement);
	tcase_add_test(tc, bell_on_your_move_and_a_challenge);
	tcase_add_test(tc, own_move_echoes_the_capture_mark_typed);
	tcase_add_test(tc, batch_unknown_word_is_named);
	tcase_add_test(tc, pgn_chunks_are_joined_into_a_file);
	tcase_add_test(tc, history_and_record_pages);
	tcase_add_test(tc, record_shows_the_true_board);
	tcase_add_test(tc, record_board_after_a_refused_try);
	tcase_add_test(tc, record_shows_draw_offers);
	tcase_add_test(tc, impossible_pawn_capture_says_why);
	tcase_add_test(tc, adjournment_from_both_sides);
	tcase_add_test(tc, resume_after_a_lost_connection);
	tcase_add_test(tc, lost_try_said_after_the_reconnection);
	tcase_add_test(tc, follows_and_lobby_outlive_a_reconnection);
	tcase_add_test(tc, paged_game_state_is_shown_once_complete);
	tcase_add_test(tc, register_refusal_explains_the_policy);
	tcase_add_test(tc, reset_login_prompts_for_passwd);
	tcase_add_test(tc, server_text_is_scrubbed_before_it_is_shown);
	tcase_add_test(tc, every_live_game_is_followed);
	tcase_add_test(tc, negative_clock_shows_zero);
	tcase_add_test(tc, declined_draw_offer_shown_at_login);
	tcase_add_test(tc, waiting_challenges_in_the_login_summary);
	tcase_add_test(tc, replayed_offers_carry_no_hint);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(session_suite)
