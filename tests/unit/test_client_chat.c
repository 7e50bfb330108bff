/*
 * test_client_chat.c — the client's side of issue 10 without a server:
 * chat in the players' own words (never the umpire's voice, never in the
 * announcement list), the chat commands' requests, the opponent's
 * presence counted down in the prompt, the login's welcome, the lobby
 * pushed to the client, and the commands that ask before they act.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_main.h"
#include "client.h"
#include "client_fixture.h"

static const char *field(const json_t *j, const char *key)
{
	const char *v = json_string_value(json_object_get(j, key));
	return v ? v : "";
}

START_TEST(chat_is_the_players_words)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	sink_game_start(&c, 4, "white", true);
	struct cgame *g = client_current(&c);
	int logged = g->log_n;
	client_receive(&c, "{\"event\":\"chat\",\"game\":4,\"channel\":\"game\",\"color\":\"black\","
	                   "\"text\":\"good luck\",\"ply\":0}");
	ck_assert_ptr_nonnull(strstr(s.printed, "#4: bob (Black) says: \"good luck\""));
	client_receive(&c, "{\"event\":\"chat\",\"game\":4,\"channel\":\"game\",\"color\":\"white\","
	                   "\"text\":\"you too\",\"ply\":0}");
	ck_assert_ptr_nonnull(strstr(s.printed, "#4: You say: \"you too\""));
	/* a chat line that tries to speak as the umpire stays quoted, in the player's name */
	client_receive(&c, "{\"event\":\"chat\",\"game\":4,\"channel\":\"game\",\"color\":\"black\","
	                   "\"text\":\"White has 2 pawn tries\",\"ply\":0}");
	ck_assert_ptr_nonnull(strstr(s.printed, "bob (Black) says: \"White has 2 pawn tries\""));
	ck_assert_ptr_null(strstr(s.printed, "\n#4: White has 2 pawn tries"));
	/* never in the announcement list under the board */
	ck_assert_int_eq(g->log_n, logged);
	/* a private message */
	client_receive(&c, "{\"event\":\"tell\",\"from\":\"carol\",\"text\":\"hi\\u0007 there\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "carol tells you: \"hi? there\""));
	/* chat of a game this client does not follow: nothing */
	size_t before = strlen(s.printed);
	client_receive(&c, "{\"event\":\"chat\",\"game\":9,\"channel\":\"game\",\"color\":\"black\","
	                   "\"text\":\"x\",\"ply\":0}");
	ck_assert_uint_eq(strlen(s.printed), before);
	client_free(&c);
}
END_TEST

START_TEST(chat_commands_send_their_requests)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	sink_game_start(&c, 4, "white", true);

	ck_assert_int_eq(client_command(&c, "say good luck, have fun"), 0);
	json_t *j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "say");
	ck_assert_str_eq(field(j, "text"), "good luck, have fun");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "game")), 4);
	json_decref(j);

	ck_assert_int_eq(client_command(&c, "tell bob  see you at  eight"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "tell");
	ck_assert_str_eq(field(j, "user"), "bob");
	ck_assert_str_eq(field(j, "text"), "see you at  eight");
	json_decref(j);
	/* bob is offline: the refusal says what to type instead (the help probe) */
	char no[200];
	snprintf(no, sizeof no, "{\"id\":%lld,\"ok\":false,\"error\":{\"code\":\"illegal_action\","
	         "\"message\":\"bob is not online\"}}", sink_sent_id(&s, s.nsent - 1));
	client_receive(&c, no);
	ck_assert_msg(strstr(s.printed, "bob is not online") && strstr(s.printed, "\"message USER TEXT\" leaves"),
	              "%s", s.printed);

	ck_assert_int_eq(client_command(&c, "mute bob"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "mute");
	ck_assert_str_eq(field(j, "user"), "bob");
	ck_assert_ptr_null(json_object_get(j, "text"));
	json_decref(j);
	ck_assert_int_eq(client_command(&c, "unmute bob"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "unmute");
	json_decref(j);

	/* refused here, nothing sent */
	int n = s.nsent;
	ck_assert_int_eq(client_command(&c, "say"), -1);
	ck_assert_int_eq(client_command(&c, "tell bob"), -1);
	ck_assert_int_eq(client_command(&c, "tell alice hello me"), -1);
	ck_assert_int_eq(client_command(&c, "spec hello"), -1);   /* no seat */
	ck_assert_ptr_nonnull(strstr(s.printed, "\"watch GAME\" first"));
	char longtext[300];
	memset(longtext, 'a', sizeof longtext - 1);
	longtext[sizeof longtext - 1] = '\0';
	char line[400];
	snprintf(line, sizeof line, "say %s", longtext);
	ck_assert_int_eq(client_command(&c, line), -1);
	ck_assert_int_eq(s.nsent, n);
	client_free(&c);
}
END_TEST

/* message / messages: the requests, a message in words (live and listed,
 * its date in UTC, its control characters scrubbed), a long list asked
 * for page after page, and what a delete says. */
START_TEST(messages_in_words)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	ck_assert_int_eq(client_command(&c, "message bob  tomorrow at  eight?"), 0);
	json_t *j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "message");
	ck_assert_str_eq(field(j, "user"), "bob");
	ck_assert_str_eq(field(j, "text"), "tomorrow at  eight?");
	json_decref(j);
	sink_reply_ok(&c, &s, NULL);
	ck_assert_ptr_nonnull(strstr(s.printed, "Message left"));

	client_receive(&c, "{\"event\":\"message\",\"message\":7,\"from\":\"bob\",\"text\":\"yes\\u0007!\","
	                   "\"sent\":1767225600}");
	ck_assert_ptr_nonnull(strstr(s.printed, "A message for you: 7. from bob, 2026-01-01 00:00 UTC: \"yes?!\""));

	ck_assert_int_eq(client_command(&c, "messages"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "messages");
	json_decref(j);
	sink_reply_ok(&c, &s, "\"messages\":[{\"message\":7,\"from\":\"bob\",\"text\":\"yes\",\"sent\":1767225600}],"
	                      "\"total\":2,\"next\":1");
	ck_assert_ptr_nonnull(strstr(s.printed, "2 messages for you"));
	ck_assert_ptr_nonnull(strstr(s.printed, "  7. from bob, 2026-01-01 00:00 UTC: \"yes\""));
	j = sink_last(&s);   /* the next page, asked for */
	ck_assert_str_eq(field(j, "type"), "messages");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "from")), 1);
	json_decref(j);
	sink_reply_ok(&c, &s, "\"messages\":[{\"message\":9,\"from\":\"carol\",\"text\":\"hi\",\"sent\":0}],"
	                      "\"total\":2");
	ck_assert_ptr_nonnull(strstr(s.printed, "  9. from carol: \"hi\""));
	const char *head = strstr(s.printed, "messages for you");
	ck_assert_ptr_null(strstr(head + 1, "messages for you"));   /* said once, not a page */

	ck_assert_int_eq(client_command(&c, "messages delete 7"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "message_delete");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "message")), 7);
	json_decref(j);
	sink_reply_ok(&c, &s, "\"deleted\":1");
	ck_assert_ptr_nonnull(strstr(s.printed, "Deleted 1 message."));
	ck_assert_int_eq(client_command(&c, "messages delete all"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "message_delete");
	ck_assert_ptr_null(json_object_get(j, "message"));
	json_decref(j);
	sink_reply_ok(&c, &s, "\"deleted\":3");
	ck_assert_ptr_nonnull(strstr(s.printed, "Deleted 3 messages."));

	/* refused here, nothing sent */
	int n = s.nsent;
	ck_assert_int_eq(client_command(&c, "message bob"), -1);
	ck_assert_int_eq(client_command(&c, "message alice hello me"), -1);
	ck_assert_int_eq(client_command(&c, "messages delete"), -1);
	ck_assert_int_eq(client_command(&c, "messages delete 0"), -1);
	ck_assert_int_eq(client_command(&c, "messages delete seven"), -1);
	ck_assert_int_eq(client_command(&c, "messages purge 7"), -1);
	ck_assert_int_eq(s.nsent, n);
	client_free(&c);
}
END_TEST

/* seek: an open offer said, or one met and its game named */
START_TEST(a_seek_said_open_or_met)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	ck_assert_int_eq(client_command(&c, "seek icc 5+0 black"), 0);
	sink_reply_ok(&c, &s, "\"offer\":4");
	ck_assert_ptr_nonnull(strstr(s.printed, "Offer 4 is open.\n"));
	ck_assert_int_eq(client_command(&c, "seek icc 5+0 black"), 0);
	sink_reply_ok(&c, &s, "\"offer\":3,\"game\":12");
	ck_assert_ptr_nonnull(strstr(s.printed, "Your seek met offer 3: game 12 is yours.\n"));
	ck_assert_ptr_null(strstr(s.printed, "Offer 3 is open"));
	client_free(&c);
}
END_TEST

START_TEST(opponent_away_in_the_prompt)
{
	struct client c;
	struct sink s;
	char prompt[256];
	sink_logged_in(&c, &s);
	sink_game_start(&c, 4, "white", true);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_null(strstr(prompt, "away"));

	char line[256];
	snprintf(line, sizeof line, "{\"event\":\"opponent_away\",\"game\":4,\"color\":\"black\",\"until\":%lld}",
	         s.wall + 60000);
	client_receive(&c, line);
	ck_assert_ptr_nonnull(strstr(s.printed, "#4: Black (bob) has left; the game is lost by abandonment "
	                                        "unless they are back within 1:00."));
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_nonnull(strstr(prompt, "| Black away 1:00] > "));
	s.now += 15000;   /* the grace counts down with the clocks */
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_nonnull(strstr(prompt, "| Black away 0:45] > "));
	/* told again while away (the server stood still: a later deadline):
	 * still away, not a second leaving (browser probe) */
	size_t again = strlen(s.printed);
	snprintf(line, sizeof line, "{\"event\":\"opponent_away\",\"game\":4,\"color\":\"black\",\"left\":50000}");
	client_receive(&c, line);
	ck_assert_msg(strstr(s.printed + again, "#4: Black (bob) is still away; the game is lost by abandonment "
	                                         "unless they are back within 0:50.") != NULL, "%s", s.printed + again);
	ck_assert_ptr_null(strstr(s.printed + again, "has left"));
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_nonnull(strstr(prompt, "| Black away 0:50] > "));

	client_receive(&c, "{\"event\":\"opponent_back\",\"game\":4,\"color\":\"black\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "#4: Black (bob) is back."));
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_null(strstr(prompt, "away"));

	/* a game that waits: no deadline */
	client_receive(&c, "{\"event\":\"opponent_away\",\"game\":4,\"color\":\"black\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "the game waits for them"));
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_nonnull(strstr(prompt, "| Black away] > "));

	/* Regression (the time probe): this computer's clock 2 minutes fast;
	 * the server's `left` is counted down, not its `until` against our
	 * clock (which said "within 0:00" of a minute's grace). */
	client_receive(&c, "{\"event\":\"opponent_back\",\"game\":4,\"color\":\"black\"}");
	size_t from = strlen(s.printed);
	snprintf(line, sizeof line, "{\"event\":\"opponent_away\",\"game\":4,\"color\":\"black\","
	         "\"until\":%lld,\"left\":60000}", s.wall - 120000 + 60000);
	client_receive(&c, line);
	ck_assert_msg(strstr(s.printed + from, "unless they are back within 1:00.") != NULL, "%s", s.printed + from);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_nonnull(strstr(prompt, "| Black away 1:00] > "));

	/* Regression (a review): a server's `left` of INT64_MAX overflowed
	 * the sums after it (UBSan); held to a year, as clocks are */
	client_receive(&c, "{\"event\":\"opponent_back\",\"game\":4,\"color\":\"black\"}");
	client_receive(&c, "{\"event\":\"opponent_away\",\"game\":4,\"color\":\"black\","
	                   "\"left\":9223372036854775807,\"until\":-9223372036854775807}");
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_nonnull(strstr(prompt, "| Black away 366d 0h] > "));

	/* a reconnection's game_state says it too */
	snprintf(line, sizeof line,
	         "{\"event\":\"game_state\",\"game\":5,\"rules\":\"icc\",\"white\":\"carol\",\"black\":\"alice\","
	         "\"color\":\"black\",\"rated\":false,\"live\":true,\"to_move\":\"white\",\"events\":[],"
	         "\"opponent_away\":{\"until\":%lld,\"left\":%lld}}", s.wall + 3 * 3600 * 1000LL + 3600000LL,
	         3 * 3600 * 1000LL);   /* our clock an hour slow: `left` counts */
	size_t at = strlen(s.printed);
	client_receive(&c, line);
	/* and in words (friends probe: --plain, whose prompt has no clock,
	 * heard of it only at "is back") */
	ck_assert_msg(strstr(s.printed + at, "#5 (another game): White (carol) is away; the game is lost by "
	                                     "abandonment unless they are back within 3:00:00.\n") != NULL,
	              "%s", s.printed + at);
	ck_assert_int_eq(client_command(&c, "switch 5"), 0);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_nonnull(strstr(prompt, "[#5 Black | their move | White away 3:00:00] > "));
	client_free(&c);
}
END_TEST

START_TEST(welcome_says_what_waited)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	sink_game_start(&c, 12, "black", true);
	client_receive(&c, "{\"event\":\"welcome\",\"your_move\":[{\"game\":12,\"color\":\"black\","
	                   "\"opponent\":\"alice\",\"left\":172790000}],\"draw_offers\":[{\"game\":12,"
	                   "\"by\":\"white\"},{\"game\":13,\"by\":\"black\"}],\"ended\":[{\"game\":9,"
	                   "\"result\":\"1-0\",\"reason\":\"abandoned\"},{\"game\":10,\"color\":\"black\","
	                   "\"opponent\":\"carol\",\"result\":\"1-0\",\"reason\":\"time\"},{\"game\":11,"
	                   "\"color\":\"white\",\"opponent\":\"dave\",\"result\":\"1/2-1/2\"}]}");
	ck_assert_ptr_nonnull(strstr(s.printed, "While you were away:"));
	ck_assert_ptr_nonnull(strstr(s.printed, "game 12 against alice: your move (1d 23h left)."));
	ck_assert_ptr_nonnull(strstr(s.printed, "game 12: White offers a draw"));
	ck_assert_ptr_nonnull(strstr(s.printed, "game 13: Black offers a draw"));
	ck_assert_ptr_nonnull(strstr(s.printed, "game 9 ended: 1-0 by abandonment."));
	/* with the side played (a newer server): whose result it was */
	ck_assert_ptr_nonnull(strstr(s.printed, "game 10 against carol ended: 1-0 on time, you lost."));
	ck_assert_ptr_nonnull(strstr(s.printed, "game 11 against dave ended: 1/2-1/2, a draw."));
	/* Regression (probe): a game an umpire paused read "your move", and the
	 * move was refused. */
	client_receive(&c, "{\"event\":\"welcome\",\"your_move\":[{\"game\":14,\"color\":\"white\","
	                   "\"opponent\":\"erin\",\"paused\":true}]}");
	ck_assert_ptr_nonnull(strstr(s.printed, "game 14 against erin: paused by the umpire, your move "
	                                         "when it resumes."));
	client_free(&c);
}
END_TEST

START_TEST(durations_in_words)
{
	char b[32];
	words_duration(0, b, sizeof b);
	ck_assert_str_eq(b, "0:00");
	words_duration(-5, b, sizeof b);
	ck_assert_str_eq(b, "0:00");
	words_duration(59001, b, sizeof b);   /* a deadline rounds up: never shown early */
	ck_assert_str_eq(b, "1:00");
	words_duration(3723000, b, sizeof b);
	ck_assert_str_eq(b, "1:02:03");
	words_duration(2 * 86400000LL + 3 * 3600000LL, b, sizeof b);
	ck_assert_str_eq(b, "2d 3h");
}
END_TEST

START_TEST(the_lobby_comes_to_the_client)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	/* a challenge shows its terms; the colour named is the challenger's */
	client_receive(&c, "{\"event\":\"challenge\",\"offer\":5,\"user\":\"bob\",\"to\":\"alice\","
	                   "\"rules\":\"nost\",\"color\":\"white\",\"rated\":true,\"time\":{\"days\":3},"
	                   "\"rating\":{\"rating\":1500,\"rd\":350,\"provisional\":true}}");
	ck_assert_ptr_nonnull(strstr(s.printed, "bob (1500?) challenges you: nost, 3 days a move, rated, "
	                                        "you play Black. Type \"accept 5\" or \"decline 5\"."));
	client_receive(&c, "{\"event\":\"challenge\",\"offer\":6,\"user\":\"bob\",\"rules\":\"icc\","
	                   "\"color\":\"random\",\"rated\":false,\"time\":{\"base\":300.0,\"inc\":2.0}}");
	ck_assert_ptr_nonnull(strstr(s.printed, "bob challenges you: icc, 5+2, unrated, colours drawn at random."));
	client_receive(&c, "{\"event\":\"challenge\",\"offer\":7,\"user\":\"bob\",\"rules\":\"english\","
	                   "\"color\":\"black\",\"rated\":false,\"rematch\":12}");
	ck_assert_ptr_nonnull(strstr(s.printed, "bob asks for a rematch of game 12: english, untimed, unrated, "
	                                        "you play White. Type \"accept 7\" or \"decline 7\"."));
	/* a challenge goes: withdrawn, or lapsed after its days */
	client_receive(&c, "{\"event\":\"challenge_cancelled\",\"offer\":6}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Challenge 6 was withdrawn."));
	client_receive(&c, "{\"event\":\"challenge_cancelled\",\"offer\":5,\"reason\":\"lapsed\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Challenge 5 lapsed unanswered."));
	client_receive(&c, "{\"event\":\"challenge_cancelled\",\"offer\":7,\"reason\":\"muted\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Challenge 7 is hidden: you muted its sender."));
	/* Regression (the two-devices probe): answered on another connection
	 * of ours, and a reason this client does not know, were "lapsed" */
	client_receive(&c, "{\"event\":\"challenge_cancelled\",\"offer\":15,\"reason\":\"declined\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Challenge 15 was declined on another connection."));
	client_receive(&c, "{\"event\":\"challenge_cancelled\",\"offer\":16,\"reason\":\"accepted\",\"game\":40}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Challenge 16 was accepted on another connection: game 40."));
	client_receive(&c, "{\"event\":\"challenge_cancelled\",\"offer\":17,\"reason\":\"no-such-reason\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Challenge 17 was withdrawn."));
	/* ours: declined (live, or told at a login), lapsed while we were away */
	client_receive(&c, "{\"event\":\"challenge_declined\",\"offer\":8,\"by\":\"carol\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "carol declined your challenge (offer 8)."));
	client_receive(&c, "{\"event\":\"challenge_declined\",\"offer\":9,\"by\":\"carol\","
	                   "\"while_away\":true}");
	ck_assert_ptr_nonnull(strstr(s.printed, "carol declined your challenge (offer 9) while you were away."));
	/* with the decliner's words, quoted, and cleaned as any user's words are */
	client_receive(&c, "{\"event\":\"challenge_declined\",\"offer\":14,\"by\":\"botty\","
	                   "\"reason\":\"not a rule set it plays\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "botty declined your challenge (offer 14): \"not a rule set it plays\"."));
	client_receive(&c, "{\"event\":\"challenge_declined\",\"offer\":15,\"by\":\"carol\","
	                   "\"reason\":\"\\u001b[2Jbusy\"}");
	ck_assert_ptr_nonnull(strstr(s.printed, "carol declined your challenge (offer 15): \""));
	ck_assert_msg(strchr(s.printed, 0x1b) == NULL, "%s", s.printed);
	client_receive(&c, "{\"event\":\"offer_lapsed\",\"offer\":10,\"user\":\"carol\","
	                   "\"while_away\":true}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Your challenge to carol (offer 10) lapsed unanswered while "
	                                        "you were away."));
	client_receive(&c, "{\"event\":\"offer_lapsed\",\"offer\":11,\"while_away\":true}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Your seek (offer 11) lapsed unanswered while you were away."));

	/* lobby on / off */
	ck_assert_int_eq(client_command(&c, "lobby"), 0);
	json_t *j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "lobby_watch");
	char line[256];
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":true,\"offers\":[],\"total\":0}",
	         (long long)json_integer_value(json_object_get(j, "id")));
	json_decref(j);
	client_receive(&c, line);
	ck_assert_ptr_nonnull(strstr(s.printed, "Watching the lobby"));
	/* nothing open, no games yet: said with what to type next */
	ck_assert_msg(strstr(s.printed, "No open seeks or challenges (\"seek icc 5+2\" opens one"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "games"), 0);
	j = sink_last(&s);
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":true,\"games\":[],\"total\":0}",
	         (long long)json_integer_value(json_object_get(j, "id")));
	json_decref(j);
	client_receive(&c, line);
	ck_assert_ptr_nonnull(strstr(s.printed, "No games yet (\"seeks\" lists the open offers"));
	ck_assert_int_eq(client_command(&c, "lobby off"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "lobby_unwatch");
	json_decref(j);
	ck_assert_int_eq(client_command(&c, "lobby maybe"), -1);

	/* pushed seeks: shown as they open and go */
	client_receive(&c, "{\"event\":\"seek\",\"offer\":9,\"user\":\"carol\",\"rules\":\"icc\","
	                   "\"color\":\"black\",\"rated\":true,\"time\":{\"base\":600.0,\"inc\":0.0},"
	                   "\"rating\":{\"rating\":1612,\"rd\":74,\"provisional\":false},"
	                   "\"rating_min\":1400,\"rating_max\":1800}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Seek 9: carol (1612): icc, 10+0, rated, you play White, "
	                                        "ratings 1400..1800 (\"play 9\")"));
	client_receive(&c, "{\"event\":\"seek\",\"offer\":10,\"user\":\"alice\",\"rules\":\"icc\","
	                   "\"color\":\"random\",\"rated\":false}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Seek 10: alice: icc, untimed, unrated, colours drawn at random "
	                                        "(yours; \"cancel 10\")"));
	client_receive(&c, "{\"event\":\"seek_gone\",\"offer\":9}");
	ck_assert_ptr_nonnull(strstr(s.printed, "Seek 9 is gone."));

	/* play N takes a seek; cancel alone is the server's "your only offer" */
	ck_assert_int_eq(client_command(&c, "play 9"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "accept");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "offer")), 9);
	json_decref(j);
	ck_assert_int_eq(client_command(&c, "play"), -1);
	ck_assert_int_eq(client_command(&c, "cancel"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "cancel");
	ck_assert_ptr_null(json_object_get(j, "offer"));
	json_decref(j);
	/* its answer names the offer withdrawn (the screen-reader probe: "Done.") */
	sink_reply_ok(&c, &s, "\"offer\":10");
	ck_assert_msg(strstr(s.printed, "Offer 10 withdrawn.\n"), "%s", s.printed);
	client_free(&c);
}
END_TEST

/* A game of `rules` as `color` (from `fen`, or the start), "possible"
 * answered with `moves` (JSON strings, comma-separated): `want` is shown. */
static void possible_shows(const char *rules, const char *color, const char *fen, const char *moves,
                           const char *want)
{
	struct client c;
	struct sink s;
	char line[512];
	sink_logged_in(&c, &s);
	snprintf(line, sizeof line, "{\"event\":\"game_start\",\"game\":6,\"rules\":\"%s\",\"white\":\"alice\","
	         "\"black\":\"bob\",\"color\":\"%s\",\"rated\":false%s%s%s}", rules, color,
	         fen ? ",\"fen\":\"" : "", fen ? fen : "", fen ? "\"" : "");
	client_receive(&c, line);
	ck_assert_int_eq(client_command(&c, "possible"), 0);
	snprintf(line, sizeof line, "\"game\":6,\"moves\":[%s]", moves);
	sink_reply_ok(&c, &s, line);
	ck_assert_msg(strstr(s.printed, want) != NULL, "no \"%s\" in:\n%s", want, s.printed);
	client_free(&c);
}

START_TEST(possible_grouped_by_piece)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	sink_game_start(&c, 4, "white", true);
	ck_assert_int_eq(client_command(&c, "possible"), 0);
	sink_reply_ok(&c, &s, "\"game\":4,\"moves\":[\"a2a3\",\"a2a4\",\"b1a3\",\"b1c3\",\"b2b3\",\"b2b4\",\"c2c3\","
	               "\"c2c4\",\"d2d3\",\"d2d4\",\"e2e3\",\"e2e4\",\"f2f3\",\"f2f4\",\"g1f3\",\"g1h3\",\"g2g3\","
	               "\"g2g4\",\"h2h3\",\"h2h4\"]");
	ck_assert_ptr_nonnull(strstr(s.printed, "You may try: N: a3 c3 f3 h3 | P: a3 a4 b3 b4 c3 c4 d3 d4 e3 e4 f3"));
	/* wrapped between items, never inside one: every line is short, and "h4" is whole */
	const char *at = strstr(s.printed, "You may try:");
	for (const char *l = at; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		ck_assert_int_le((int)strcspn(l, "\n"), 76);
	ck_assert_ptr_nonnull(strstr(at, " h3 h4\n"));
	client_free(&c);

	/* --plain: one line, the game named (the screen-reader probe) */
	sink_logged_in(&c, &s);
	c.plain = true;
	sink_game_start(&c, 4, "white", true);
	ck_assert_int_eq(client_command(&c, "possible"), 0);
	sink_reply_ok(&c, &s, "\"game\":4,\"moves\":[\"a2a3\",\"a2a4\",\"b1a3\",\"b1c3\",\"b2b3\",\"b2b4\",\"c2c3\","
	               "\"c2c4\",\"d2d3\",\"d2d4\",\"e2e3\",\"e2e4\",\"f2f3\",\"f2f4\",\"g1f3\",\"g1h3\",\"g2g3\","
	               "\"g2g4\",\"h2h3\",\"h2h4\"]");
	ck_assert_msg(strstr(s.printed, "#4: You may try: N: a3 c3 f3 h3 | P: a3 a4 b3 b4 c3 c4 d3 d4 e3 e4 f3 f4 g3 g4 "
	                                "h3 h4\n"), "%s", s.printed);
	client_free(&c);

	/* two pieces of a kind to one square: each named by where it comes from; a promotion */
	possible_shows("icc", "white", "4k3/P7/8/8/8/8/8/N1N1K3 w - - 0 1",
	               "\"a1b3\",\"c1b3\",\"c1d3\",\"a7a8q\",\"e1d2\"",
	               "You may try: K: d2 | N: a1-b3 c1-b3 d3 | P: a8=Q");
	/* a pawn's capture named by where it comes from (bot probe: "h3",
	 * meaning g2xh3, was read back as the push) */
	possible_shows("english", "white", "4k3/8/8/8/8/7p/6P1/4K3 w - - 0 1", "\"g2h3\",\"g2g3\",\"g2g4\"",
	               "You may try: P: g2-h3 g3 g4");
	/* crazykrieg's drops: a group of their own, named (it was "?") */
	possible_shows("crazykrieg", "white", NULL, "\"g1f3\",\"N@e5\",\"P@d3\"",
	               "You may try: N: f3 | drops: N@e5 P@d3");
	/* and for Black to move: "P@" is no square, and was read as one past the
	 * mailbox, the board's side to move (1, a pawn's code): "P: e5" */
	possible_shows("crazykrieg", "black", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
	               "\"g8f6\",\"P@e5\",\"N@d4\"", "You may try: N: f6 | drops: P@e5 N@d4");
	/* nothing to try on the opponent's move: said so (the server's list is empty) */
	possible_shows("icc", "black", NULL, "", "You may try: nothing now (it is their move)");
}
END_TEST

/* resign and abort ask first at a terminal; --yes, --batch and anything in between. */
START_TEST(resign_asks_first)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	c.interactive = true;
	sink_game_start(&c, 4, "white", true);
	int n = s.nsent;
	ck_assert_int_eq(client_command(&c, "resign"), 0);
	ck_assert_int_eq(s.nsent, n);
	ck_assert_ptr_nonnull(strstr(s.printed, "Resign game 4 against bob? Type \"resign\" again to confirm"));
	ck_assert_int_eq(client_command(&c, "board"), 0);   /* forgets the question */
	ck_assert_int_eq(client_command(&c, "resign"), 0);
	ck_assert_int_eq(s.nsent, n);
	ck_assert_int_eq(client_command(&c, "resign"), 0);
	ck_assert_int_eq(s.nsent, n + 1);
	json_t *j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "resign");
	json_decref(j);
	ck_assert_int_eq(client_command(&c, "resign --yes"), 0);
	ck_assert_int_eq(s.nsent, n + 2);
	ck_assert_int_eq(client_command(&c, "resign now"), -1);
	/* abort: the same; "abort --yes" is the player's, not an umpire's reason */
	ck_assert_int_eq(client_command(&c, "abort"), 0);
	ck_assert_int_eq(s.nsent, n + 2);
	ck_assert_int_eq(client_command(&c, "abort --yes"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "abort");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "game")), 4);
	ck_assert_ptr_null(json_object_get(j, "reason"));
	json_decref(j);
	/* no terminal: no question */
	c.interactive = false;
	ck_assert_int_eq(client_command(&c, "resign"), 0);
	ck_assert_int_eq(s.nsent, n + 4);
	/* Both sides moved: an abort is refused here, not asked and then
	 * refused by the server (help probe); after one move it is asked. */
	c.interactive = true;
	sink_game_start(&c, 5, "white", true);
	n = s.nsent;
	client_receive(&c, "{\"event\":\"move\",\"game\":5,\"by\":\"white\",\"ply\":1,\"move\":\"e2e4\","
	                   "\"san\":\"e4\"}");
	size_t at = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "abort"), 0);
	ck_assert_ptr_nonnull(strstr(s.printed + at, "Abort game 5 against bob?"));
	client_receive(&c, "{\"event\":\"moved\",\"game\":5,\"by\":\"black\",\"ply\":2}");
	at = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "abort --yes"), -1);
	ck_assert_int_eq(client_command(&c, "abort"), -1);
	ck_assert_int_eq(s.nsent, n);
	ck_assert_ptr_nonnull(strstr(s.printed + at, "abort: both sides have moved in game 5"));
	/* what ends it, truly: a draw is only offered (first-game probe) */
	ck_assert_ptr_nonnull(strstr(s.printed + at, "\"resign\" ends it, or offer a draw (\"draw\")"));
	ck_assert_ptr_null(strstr(s.printed + at, "Abort game 5"));
	/* A director's pairing: its players may not abort it (kriegd refuses
	 * it), so it is not asked first either, even before any move. */
	client_receive(&c, "{\"event\":\"game_start\",\"game\":6,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false,\"tournament\":\"Club Open\","
	                   "\"round\":\"1\"}");
	client_command(&c, "switch 6");
	n = s.nsent;
	at = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "abort"), -1);
	ck_assert_int_eq(client_command(&c, "abort --yes"), -1);
	ck_assert_int_eq(s.nsent, n);
	ck_assert_ptr_nonnull(strstr(s.printed + at, "abort: game 6 is a tournament's"));
	ck_assert_ptr_null(strstr(s.printed + at, "Abort game 6"));
	client_free(&c);
}
END_TEST

/* First-game probe: "exd5 e.p." (the suffix a word of its own, as
 * krieg-referee takes it) is the capture; a move typed in a finished game
 * is told the game is over, not read on its board; "Any? Yes" says the
 * capture try is owed. */
START_TEST(moves_as_players_type_them)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	sink_game_start(&c, 4, "white", false);
	client_receive(&c, "{\"event\":\"move\",\"game\":4,\"by\":\"white\",\"ply\":1,\"move\":\"e2e4\","
	                   "\"san\":\"e4\"}");
	client_receive(&c, "{\"event\":\"moved\",\"game\":4,\"by\":\"black\",\"ply\":2}");
	int n = s.nsent;
	ck_assert_int_eq(client_command(&c, "exd5 e.p."), 0);
	ck_assert_int_eq(s.nsent, n + 1);
	json_t *j = sink_last(&s);
	ck_assert_str_eq(field(j, "type"), "move");
	ck_assert_str_eq(field(j, "move"), "exd5");
	json_decref(j);
	client_receive(&c, "{\"event\":\"any\",\"game\":4,\"by\":\"white\",\"ply\":2,\"audience\":[\"white\"],"
	                   "\"answer\":\"yes\"}");
	client_flush(&c);
	ck_assert_msg(strstr(s.printed, "must try one first") != NULL, "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "until one is played") == NULL, "%s", s.printed);
	/* berkeley_any's yes binds until one is played (the rules probe) */
	size_t was = strlen(s.printed);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":5,\"rules\":\"berkeley_any\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"color\":\"white\",\"rated\":false}");
	client_receive(&c, "{\"event\":\"any\",\"game\":5,\"by\":\"white\",\"ply\":0,\"audience\":[\"white\"],"
	                   "\"answer\":\"yes\"}");
	client_flush(&c);
	ck_assert_msg(strstr(s.printed + was, "Any? Yes. You have a pawn capture: only pawn captures may be tried "
	                                      "until one is played"), "%s", s.printed + was);
	ck_assert_int_eq(client_command(&c, "switch 4"), 0);
	client_receive(&c, "{\"event\":\"game_over\",\"game\":4,\"ply\":2,\"audience\":[\"white\",\"black\"],"
	                   "\"result\":\"0-1\",\"reason\":\"resignation\",\"by\":\"white\"}");
	n = s.nsent;
	size_t at = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "d4"), -1);
	ck_assert_int_eq(s.nsent, n);
	ck_assert_msg(strstr(s.printed + at, "game 4 is over") != NULL, "%s", s.printed + at);
	/* a word no move is, there: not a command, not "the game is over"
	 * (the newcomer probe read that as about the game) */
	at = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "clear"), -1);
	ck_assert_int_eq(s.nsent, n);
	ck_assert_msg(strstr(s.printed + at, "\"clear\" is not a command or a move") != NULL, "%s", s.printed + at);
	client_free(&c);
}
END_TEST

static int ask_from_sink(void *ctx, const char *prompt, char *buf, size_t len)
{
	struct sink *s = ctx;
	if (s->asked >= 4 || !s->answers[s->asked])
		return -1;
	snprintf(buf, len, "%s", s->answers[s->asked++]);
	return 0;
}

START_TEST(register_asks_twice)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	c.interactive = true;
	c.ask_password = ask_from_sink;
	/* on the line at a terminal: refused, with the way to do it */
	ck_assert_int_eq(client_command(&c, "register carol sesame-open"), -1);
	ck_assert_ptr_nonnull(strstr(s.printed, "type \"register carol [--invite CODE]\" alone"));
	ck_assert(cmd_has_secret("register carol sesame-open"));
	ck_assert(cmd_has_secret("login carol sesame-open"));
	ck_assert(!cmd_has_secret("register carol"));
	/* Regression (the own-changes probe): a raw request with a password
	 * or token was kept in the history. */
	ck_assert(cmd_has_secret("raw {\"type\":\"login\",\"user\":\"carol\",\"password\":\"x\"}"));
	ck_assert(cmd_has_secret(" raw {\"type\":\"resume\",\"token\":\"abc\"}"));
	ck_assert(!cmd_has_secret("raw {\"type\":\"who\"}"));
	ck_assert_int_eq(s.nsent, 0);
	/* two that differ: nothing sent */
	s.answers[0] = "sesame-open";
	s.answers[1] = "sesame-opem";
	ck_assert_int_eq(client_command(&c, "register carol"), -1);
	ck_assert_int_eq(s.asked, 2);
	ck_assert_int_eq(s.nsent, 0);
	/* the same twice: sent */
	s.asked = 0;
	s.answers[1] = "sesame-open";
	ck_assert_int_eq(client_command(&c, "register carol"), 0);
	json_t *j = sink_last(&s);
	ck_assert_str_eq(field(j, "password"), "sesame-open");
	json_decref(j);
	/* an invite code at a terminal: --invite, the password asked for twice */
	s.asked = 0;
	ck_assert_int_eq(client_command(&c, "register carol --invite 9DjLLyNhLvXy"), 0);
	j = sink_last(&s);
	ck_assert_str_eq(field(j, "password"), "sesame-open");
	ck_assert_str_eq(field(j, "invite"), "9DjLLyNhLvXy");
	ck_assert_int_eq(s.asked, 2);
	json_decref(j);
	ck_assert(cmd_has_secret("register carol --invite 9DjLLyNhLvXy"));   /* kept out of the history */
	/* login asks once */
	s.asked = 0;
	ck_assert_int_eq(client_command(&c, "login carol"), 0);
	ck_assert_int_eq(s.asked, 1);
	client_free(&c);
}
END_TEST

static Suite *chat_suite(void)
{
	Suite *s = suite_create("client_chat");
	TCase *tc = tcase_create("chat");
	tcase_add_test(tc, chat_is_the_players_words);
	tcase_add_test(tc, chat_commands_send_their_requests);
	tcase_add_test(tc, messages_in_words);
	tcase_add_test(tc, a_seek_said_open_or_met);
	tcase_add_test(tc, opponent_away_in_the_prompt);
	tcase_add_test(tc, welcome_says_what_waited);
	tcase_add_test(tc, durations_in_words);
	tcase_add_test(tc, the_lobby_comes_to_the_client);
	tcase_add_test(tc, possible_grouped_by_piece);
	tcase_add_test(tc, resign_asks_first);
	tcase_add_test(tc, moves_as_players_type_them);
	tcase_add_test(tc, register_asks_twice);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(chat_suite)
