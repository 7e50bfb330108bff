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

#include <jansson.h>

#include "check_main.h"
#include "client.h"
#include "event_json.h"
#include "referee.h"

struct sink {
	char sent[64][1024];
	int nsent;
	size_t bytes;
	char printed[16384];
	char raw[4096];
	long now;
};

static int sink_send(void *ctx, const char *line)
{
	struct sink *s = ctx;
	s->bytes += strlen(line) + 1;
	if (s->nsent < 64)
		snprintf(s->sent[s->nsent], sizeof s->sent[0], "%s", line);
	s->nsent++;
	return 0;
}

static void sink_print(void *ctx, const char *text)
{
	struct sink *s = ctx;
	size_t n = strlen(s->printed);
	snprintf(s->printed + n, sizeof s->printed - n, "%s\n", text);
}

static void sink_raw(void *ctx, const char *line)
{
	struct sink *s = ctx;
	size_t n = strlen(s->raw);
	snprintf(s->raw + n, sizeof s->raw - n, "%s\n", line);
}

static long sink_now(void *ctx)
{
	return ((struct sink *)ctx)->now;
}

static void make_client(struct client *c, struct sink *s, bool batch)
{
	memset(s, 0, sizeof *s);
	s->now = 100000;
	client_init(c);
	c->batch = batch;
	c->ctx = s;
	c->send = sink_send;
	c->print = sink_print;
	c->print_raw = sink_raw;
	c->now = sink_now;
}

static void start_game(struct client *c, long id, const char *color, bool timed)
{
	char line[512];
	snprintf(line, sizeof line,
	         "{\"event\":\"game_start\",\"game\":%ld,\"rules\":\"icc\",\"white\":\"alice\","
	         "\"black\":\"bob\",\"color\":\"%s\",\"rated\":false%s}",
	         id, color, timed ? ",\"time\":{\"base\":300,\"inc\":0},\"clock\":{\"white\":300000,\"black\":300000}" : "");
	client_receive(c, line);
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

START_TEST(ghosts_never_reach_the_server)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	start_game(&c, 4, "white", false);
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

START_TEST(moves_checked_on_own_pieces)
{
	struct client c;
	struct sink s;
	make_client(&c, &s, false);
	start_game(&c, 9, "white", false);
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
	client_free(&c);
}
END_TEST

START_TEST(referee_events_build_the_views)
{
	struct client w, b;
	struct sink sw, sb;
	make_client(&w, &sw, false);
	make_client(&b, &sb, false);
	start_game(&w, 2, "white", false);
	start_game(&b, 2, "black", false);

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
	start_game(&c, 3, "black", true);
	struct cgame *g = client_current(&c);
	ck_assert_int_eq(client_clock(&c, g, WHITE), 300000);
	s.now += 1500;
	ck_assert_int_eq(client_clock(&c, g, WHITE), 298500);   /* White to move: White's runs */
	ck_assert_int_eq(client_clock(&c, g, BLACK), 300000);
	char prompt[256];
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#3 White 4:59 | Black 5:00 | their move] > ");
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
	start_game(&c, 5, "white", false);
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
	start_game(&c, 4, "white", false);
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
	client_free(&c);
}
END_TEST

static Suite *session_suite(void)
{
	Suite *s = suite_create("client_session");
	TCase *tc = tcase_create("session");
	tcase_add_test(tc, ghosts_never_reach_the_server);
	tcase_add_test(tc, moves_checked_on_own_pieces);
	tcase_add_test(tc, referee_events_build_the_views);
	tcase_add_test(tc, clocks_tick);
	tcase_add_test(tc, challenge_accept_and_errors);
	tcase_add_test(tc, batch_prints_verbatim_and_waits);
	tcase_add_test(tc, switch_fetches_a_game_and_draws);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(session_suite)
