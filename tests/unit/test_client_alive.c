/*
 * test_client_alive.c — a connection's life, on the client's side, without
 * a server: a dead path (no FIN, no RST: a phone's network gone, a NAT that
 * forgot the connection) is noticed by client_alive, which pings after
 * CLIENT_QUIET_MS of silence and gives the connection up CLIENT_DEAD_MS
 * later if nothing at all came; and what was said in a game while the
 * connection was down is shown from the reconnection's game_state, the
 * lines seen before the drop not again.  Time is the sink's: no sleeping.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_main.h"
#include "client.h"
#include "client_fixture.h"

static void make_client(struct client *c, struct sink *s)
{
	sink_logged_in(c, s);
	client_hello(c);
	sink_reply_ok(c, s, "\"protocol\":1");
}

/* How many ping requests the client sent. */
static int pings(const struct sink *s)
{
	int n = 0;
	for (int i = 0; i < s->nsent && i < SINK_SENT_MAX; i++)
		n += strstr(s->sent[i], "\"type\":\"ping\"") != NULL;
	return n;
}

/* Idle in the lobby, nothing asked: no ping of the client's own (the
 * server's keep-alive is enough), and never lost. */
START_TEST(idle_lobby_is_left_alone)
{
	struct client c;
	struct sink s;
	make_client(&c, &s);
	for (int i = 0; i < 600; i++) {
		s.now += 1000;
		ck_assert(client_alive(&c));
	}
	ck_assert_int_eq(pings(&s), 0);
	client_free(&c);
}
END_TEST

/* Regression (a probe over a bad network): a try sent into a dead path
 * waited for minutes with no word.  Unanswered for CLIENT_QUIET_MS, a ping
 * goes; nothing at all CLIENT_DEAD_MS after it, and the connection is lost. */
START_TEST(unanswered_request_pings_then_gives_up)
{
	struct client c;
	struct sink s;
	make_client(&c, &s);
	s.now += 60000;   /* a quiet minute in the lobby first: the silence counts from the request */
	ck_assert(client_alive(&c));
	ck_assert_int_eq(client_command(&c, "who"), 0);
	s.now += CLIENT_QUIET_MS - 1;
	ck_assert(client_alive(&c));
	ck_assert_int_eq(pings(&s), 0);
	s.now += 1;
	ck_assert(client_alive(&c));
	ck_assert_int_eq(pings(&s), 1);
	s.now += CLIENT_DEAD_MS - 1;
	ck_assert(client_alive(&c));
	ck_assert_int_eq(pings(&s), 1);   /* one ping asks; no more are sent */
	s.now += 1;
	ck_assert(!client_alive(&c));
	ck_assert_int_eq(client_silent_ms(&c), 60000 + CLIENT_QUIET_MS + CLIENT_DEAD_MS);
	/* the loop drops it; a new connection starts afresh */
	ck_assert_int_eq(client_disconnected(&c), 1);   /* `who` (the ping is not the player's) */
	client_hello(&c);
	ck_assert(client_alive(&c));
	client_free(&c);
}
END_TEST

/* A slow answer on a live path: the ping's answer (or any line) says it is
 * alive, and a line that came after the request restarts the count. */
START_TEST(any_line_answers_the_ping)
{
	struct client c;
	struct sink s;
	make_client(&c, &s);
	ck_assert_int_eq(client_command(&c, "who"), 0);
	s.now += CLIENT_QUIET_MS - 5000;
	client_receive(&c, "{\"event\":\"notice\",\"text\":\"hello\"}");
	s.now += 5000;
	ck_assert(client_alive(&c));
	ck_assert_int_eq(pings(&s), 0);   /* 15 s since the request, but only 5 since a line */
	s.now += CLIENT_QUIET_MS - 5000;
	ck_assert(client_alive(&c));
	ck_assert_int_eq(pings(&s), 1);
	s.now += CLIENT_DEAD_MS - 1000;
	sink_reply_ok(&c, &s, "");   /* the ping's answer */
	s.now += CLIENT_DEAD_MS;
	ck_assert(client_alive(&c));   /* `who` still unanswered: asked again later, not given up */
	client_free(&c);
}
END_TEST

/* A live game with nothing asked (the opponent thinking): silence past
 * CLIENT_QUIET_MS is checked with a ping, answered, and checked again;
 * an unanswered one loses the connection.  A finished game is not checked. */
START_TEST(live_game_silence_is_checked)
{
	struct client c;
	struct sink s;
	make_client(&c, &s);
	sink_game_start(&c, 4, "white", false);
	for (int round = 1; round <= 3; round++) {
		s.now += CLIENT_QUIET_MS;
		ck_assert(client_alive(&c));
		ck_assert_int_eq(pings(&s), round);
		s.now += 200;
		sink_reply_ok(&c, &s, "");
	}
	s.now += CLIENT_QUIET_MS;
	ck_assert(client_alive(&c));
	ck_assert_int_eq(pings(&s), 4);
	s.now += CLIENT_DEAD_MS;
	ck_assert(!client_alive(&c));

	/* a reconnection; the game ends: nothing more to watch for */
	client_disconnected(&c);
	client_hello(&c);
	sink_reply_ok(&c, &s, "\"protocol\":1");
	client_receive(&c, "{\"event\":\"game_over\",\"game\":4,\"ply\":0,\"result\":\"0-1\","
	                   "\"reason\":\"resignation\",\"audience\":[\"white\",\"black\"]}");
	ck_assert(!client_game(&c, 4)->live);
	int before = pings(&s);
	s.now += 10 * CLIENT_QUIET_MS;
	ck_assert(client_alive(&c));
	ck_assert_int_eq(pings(&s), before);
	client_free(&c);
}
END_TEST

/* The game_state of game 4 after a reconnection, with these events. */
static void game_state(struct client *c, const char *events)
{
	char line[4096];
	snprintf(line, sizeof line,
	         "{\"event\":\"game_state\",\"game\":4,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	         "\"color\":\"white\",\"rated\":false,\"live\":true,\"to_move\":\"white\",\"events\":[%s]}", events);
	client_receive(c, line);
	client_flush(c);
}

#define SAY(color, text, ply) \
	"{\"event\":\"chat\",\"channel\":\"game\",\"color\":\"" color "\",\"text\":\"" text "\",\"ply\":" #ply "}"
#define SAY_LIVE(color, text, ply) \
	"{\"event\":\"chat\",\"game\":4,\"channel\":\"game\",\"color\":\"" color "\",\"text\":\"" text \
	"\",\"ply\":" #ply "}"

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Regression (a probe over a bad network): chat said while the player was
 * away came in the reconnection's game_state and was dropped unread.  The
 * lines not seen are shown; those seen before the drop are not, even the
 * same words said again at the same ply. */
START_TEST(chat_missed_while_away_is_shown_once)
{
	struct client c;
	struct sink s;
	make_client(&c, &s);
	sink_game_start(&c, 4, "white", false);
	client_receive(&c, SAY_LIVE("black", "good luck", 0));
	client_receive(&c, SAY_LIVE("white", "you too", 0));
	ck_assert_int_eq(count(s.printed, "bob (Black) says: \"good luck\""), 1);

	/* the connection drops; bob says more, twice the same, then the state comes */
	client_disconnected(&c);
	client_hello(&c);
	s.printed[0] = '\0';
	game_state(&c, SAY("black", "good luck", 0) "," SAY("white", "you too", 0) "," SAY("black", "hello?", 0) ","
	               SAY("black", "hello?", 0) "," SAY("black", "are you there", 0));
	ck_assert_msg(count(s.printed, "#4: (earlier) bob (Black) says: \"hello?\"") == 2, "%s", s.printed);
	ck_assert_msg(count(s.printed, "bob (Black) says: \"are you there\"") == 1, "%s", s.printed);
	ck_assert_msg(!strstr(s.printed, "good luck") && !strstr(s.printed, "you too"), "%s", s.printed);
	/* before the board it comes with */
	ck_assert_ptr_nonnull(strstr(strstr(s.printed, "are you there"), " 1  R  N  B  Q  K  B  N  R  1"));

	/* the same state again (`game`, another reconnection): nothing repeated */
	s.printed[0] = '\0';
	game_state(&c, SAY("black", "good luck", 0) "," SAY("white", "you too", 0) "," SAY("black", "hello?", 0) ","
	               SAY("black", "hello?", 0) "," SAY("black", "are you there", 0));
	ck_assert_msg(!strstr(s.printed, "says"), "%s", s.printed);
	/* a live line, then a state with one more after it */
	client_receive(&c, SAY_LIVE("white", "back now", 0));
	s.printed[0] = '\0';
	game_state(&c, SAY("black", "good luck", 0) "," SAY("white", "you too", 0) "," SAY("black", "hello?", 0) ","
	               SAY("black", "hello?", 0) "," SAY("black", "are you there", 0) "," SAY("white", "back now", 0) ","
	               SAY("black", "welcome back", 0));
	ck_assert_msg(count(s.printed, "says") == 1 && strstr(s.printed, "\"welcome back\""), "%s", s.printed);
	client_free(&c);
}
END_TEST

/* Regression (a review): a view's chat not seen was counted as shown when
 * its page was read, not when the view was: a reconnection's game_state
 * whose later pages never came (the connection lost again in between)
 * showed nothing, and the next state took those lines for seen. */
START_TEST(chat_of_a_view_cut_short_is_shown_with_the_next)
{
	struct client c;
	struct sink s;
	make_client(&c, &s);
	sink_game_start(&c, 4, "white", false);
	client_receive(&c, SAY_LIVE("black", "good luck", 0));
	client_disconnected(&c);
	client_hello(&c);
	s.printed[0] = '\0';
	/* the first page of a long state, with a line not seen; the rest never comes */
	client_receive(&c, "{\"event\":\"game_state\",\"game\":4,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,"
	                   "\"to_move\":\"white\",\"total\":3,\"next\":2,\"events\":["
	                   SAY("black", "good luck", 0) "," SAY("black", "still there?", 0) "]}");
	client_flush(&c);
	ck_assert_msg(!strstr(s.printed, "says"), "shown before its view was complete:\n%s", s.printed);
	client_disconnected(&c);
	client_hello(&c);
	game_state(&c, SAY("black", "good luck", 0) "," SAY("black", "still there?", 0) "," SAY("black", "hello", 0));
	ck_assert_msg(count(s.printed, "bob (Black) says: \"still there?\"") == 1, "%s", s.printed);
	ck_assert_msg(count(s.printed, "bob (Black) says: \"hello\"") == 1, "%s", s.printed);
	ck_assert_msg(!strstr(s.printed, "good luck"), "%s", s.printed);
	client_free(&c);
}
END_TEST

/* Regression (a review): a live line shown while a paged view was still
 * coming in, then the view's own missed lines shown when it completed,
 * moved the last-line-shown mark back to before the live line, and the
 * next reconnection showed the live line again. */
START_TEST(chat_mark_never_moves_back)
{
	struct client c;
	struct sink s;
	make_client(&c, &s);
	sink_game_start(&c, 4, "white", false);
	client_disconnected(&c);
	client_hello(&c);
	client_receive(&c, "{\"event\":\"game_state\",\"game\":4,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"live\":true,"
	                   "\"to_move\":\"white\",\"total\":2,\"next\":1,\"events\":["
	                   SAY("black", "missed", 0) "]}");
	client_receive(&c, SAY_LIVE("black", "live now", 0));
	client_receive(&c, "{\"event\":\"game_events\",\"game\":4,\"from\":1,\"total\":2,\"events\":["
	                   SAY("black", "missed too", 0) "]}");
	client_flush(&c);
	ck_assert_msg(count(s.printed, "\"live now\"") == 1 && count(s.printed, "\"missed too\"") == 1, "%s",
	              s.printed);
	client_disconnected(&c);
	client_hello(&c);
	s.printed[0] = '\0';
	game_state(&c, SAY("black", "missed", 0) "," SAY("black", "missed too", 0) "," SAY("black", "live now", 0));
	ck_assert_msg(!strstr(s.printed, "says"), "shown again:\n%s", s.printed);
	client_free(&c);
}
END_TEST

/* A long chat missed (a first login to a game with a long talk): the last
 * CLIENT_CHAT_CATCHUP lines, and how many came before them. */
START_TEST(long_missed_chat_is_cut_to_its_end)
{
	struct client c;
	struct sink s;
	make_client(&c, &s);
	char events[4096] = "";
	for (int i = 1; i <= CLIENT_CHAT_CATCHUP + 3; i++) {
		size_t n = strlen(events);
		snprintf(events + n, sizeof events - n, "%s{\"event\":\"chat\",\"channel\":\"game\",\"color\":\"black\","
		         "\"text\":\"line %d\",\"ply\":%d}", i > 1 ? "," : "", i, i / 2);
	}
	game_state(&c, events);
	ck_assert_msg(strstr(s.printed, "#4: 3 earlier chat lines (\"record 4\" shows them)."), "%s", s.printed);
	ck_assert_msg(!strstr(s.printed, "\"line 3\""), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "\"line 4\"") && strstr(s.printed, "\"line 11\""), "%s", s.printed);
	/* marked as said before the view, not now (correspondence probe) */
	ck_assert_msg(strstr(s.printed, "#4: (earlier) bob (Black) says: \"line 11\""), "%s", s.printed);
	client_free(&c);
}
END_TEST

static Suite *alive_suite(void)
{
	Suite *s = suite_create("client_alive");
	TCase *tc = tcase_create("alive");
	tcase_add_test(tc, idle_lobby_is_left_alone);
	tcase_add_test(tc, unanswered_request_pings_then_gives_up);
	tcase_add_test(tc, any_line_answers_the_ping);
	tcase_add_test(tc, live_game_silence_is_checked);
	tcase_add_test(tc, chat_missed_while_away_is_shown_once);
	tcase_add_test(tc, chat_of_a_view_cut_short_is_shown_with_the_next);
	tcase_add_test(tc, chat_mark_never_moves_back);
	tcase_add_test(tc, long_missed_chat_is_cut_to_its_end);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(alive_suite)
