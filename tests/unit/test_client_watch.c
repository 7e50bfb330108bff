/*
 * test_client_watch.c — krieg's seats, with no server: canned server lines
 * in (announcements built by the real referee and the shared event codec,
 * each copy to the audience the core gave it), requests out, words and
 * boards shown.
 *   - a spectator's seat: the public stream in words, ticking clocks, the
 *     game's end, catch-up pages; it shows nothing it was not sent, and
 *     not even a private copy sent to it by mistake;
 *   - the umpire's chair: the true board with both sides' pieces (ASCII and
 *     Unicode), each side's last try and its ruling, who heard what, the
 *     players' connections;
 *   - the umpire's actions: the requests they become, refusals shown;
 *   - the umpire's actions as a player and a spectator see them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_main.h"
#include "client.h"
#include "client_fixture.h"
#include "event_json.h"
#include "fen.h"
#include "referee.h"

/* The last request sent, keys sorted, without its id; and that id. */
static char *last_sent(struct sink *s, long long *id)
{
	ck_assert_int_gt(s->nsent, 0);
	json_t *r = json_loads(s->sent[s->nsent - 1], 0, NULL);
	ck_assert_ptr_nonnull(r);
	if (id)
		*id = json_integer_value(json_object_get(r, "id"));
	json_object_del(r, "id");
	char *text = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(r);
	return text;
}

static void expect_sent(struct sink *s, const char *want)
{
	char *got = last_sent(s, NULL);
	ck_assert_str_eq(got, want);
	free(got);
}

static void receive(struct client *c, json_t *msg)
{
	char *line = json_dumps(msg, JSON_COMPACT);
	client_receive(c, line);
	free(line);
	json_decref(msg);
}

/* The copies of evs[from..] a listener in `aud` receives, as the server sends them. */
static json_t *copies(const struct evlist *evs, size_t from, unsigned aud, long game, const char *rules,
                      bool clock)
{
	json_t *arr = json_array();
	for (size_t i = from; i < evs->n; i++) {
		if (!(evs->v[i].audience & aud))
			continue;
		json_t *j = event_to_json(&evs->v[i], ruleset_find(rules), (int)game);
		if (aud == AUD_SPECTATOR)
			json_object_del(j, "audience");
		if (clock)
			json_object_set_new(j, "clock", json_pack("{s:i, s:i}", "white", 300000, "black", 300000));
		json_array_append_new(arr, j);
	}
	return arr;
}

static void deliver(struct client *c, const struct evlist *evs, size_t from, unsigned aud, long game,
                    const char *rules)
{
	json_t *arr = copies(evs, from, aud, game, rules, true);
	size_t i;
	json_t *j;
	json_array_foreach(arr, i, j)
		receive(c, json_incref(j));
	json_decref(arr);
}

static json_t *ok_reply(long long id, long game, const char *seat, const char *rules, int ply, const char *to_move)
{
	return json_pack("{s:I, s:b, s:I, s:s, s:s, s:s, s:b, s:s, s:i, s:s, s:{s:i, s:i}, s:{s:i, s:i}}", "id",
	                 (json_int_t)id, "ok", 1, "game", (json_int_t)game, "rules", rules, "white", "alice",
	                 "black", "bob", "rated", 0, "seat", seat, "ply", ply, "to_move", to_move, "time",
	                 "base", 300, "inc", 0, "clock", "white", 300000, "black", 300000);
}

/* The words and coordinates of a game's moves a spectator must never see. */
static const char *const secret[] = { "e2e4", "e4", "e7e5", "e5", "g1f3", "Nf3", "d7d5", "d7d4", "e4d5",
                                      "Qh5", "d1h5", "Umpire's board", " P ", " p " };

static void assert_no_secret(const char *text)
{
	for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
		ck_assert_msg(strstr(text, secret[i]) == NULL, "\"%s\" shown to a spectator:\n%s", secret[i], text);
}

/* `command` (watch/umpire GAME) answered with an empty view of icc's
 * start: the seat taken, nothing in it yet. */
static void take_empty_seat(struct client *c, struct sink *s, const char *command, long game,
                            const char *seat)
{
	long long id;
	ck_assert_int_eq(client_command(c, command), 0);
	free(last_sent(s, &id));
	json_t *r = ok_reply(id, game, seat, "icc", 0, "white");
	json_object_set_new(r, "events", json_array());
	json_object_set_new(r, "total", json_integer(0));
	receive(c, r);
}

START_TEST(spectator_sees_the_public_stream)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	c.ropts.unicode = false;
	ck_assert_int_eq(client_command(&c, "watch 12"), 0);
	long long id;
	char *req = last_sent(&s, &id);
	ck_assert_str_eq(req, "{\"game\":12,\"type\":\"watch\"}");
	free(req);

	char err[128];
	struct referee *ref = referee_new(ruleset_find("english"), NULL, err, sizeof err);
	struct evlist evs;
	evlist_init(&evs);
	ck_assert_int_eq(referee_begin(ref, &evs), 0);
	ck_assert_int_eq(referee_attempt(ref, WHITE, "e4", &evs), 0);
	json_t *r = ok_reply(id, 12, "spectator", "english", referee_plies(ref), "black");
	json_object_set_new(r, "events", copies(&evs, 0, AUD_SPECTATOR, 12, "english", false));
	json_object_set_new(r, "total", json_integer(1));
	receive(&c, r);
	ck_assert_msg(strstr(s.printed, "Watching game 12"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "Game 12: alice (White) vs bob (Black), english, unrated; you are watching"),
	              "%s", s.printed);
	ck_assert_ptr_nonnull(strstr(s.printed, "White has moved"));
	ck_assert_ptr_nonnull(strstr(s.printed, "you are watching"));

	/* live: an illegal try (english tells everyone, the move to nobody but its maker), a move */
	size_t from = evs.n;
	ck_assert_int_eq(referee_attempt(ref, BLACK, "d7d4", &evs), 0);
	ck_assert_int_eq(referee_attempt(ref, BLACK, "d5", &evs), 0);
	ck_assert_int_eq(referee_attempt(ref, WHITE, "exd5", &evs), 0);
	deliver(&c, &evs, from, AUD_SPECTATOR, 12, "english");
	ck_assert_msg(strstr(s.printed, "#12 (watching): Black tried an illegal move"), "%s", s.printed);
	ck_assert_ptr_nonnull(strstr(s.printed, "#12 (watching): White captured on d5"));

	/* the clocks tick for the side to move, in the prompt */
	char prompt[256];
	s.now += 3000;
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#12 watching | White 5:00 | Black 4:57 | Black to move] > ");

	/* copies meant for others, sent by mistake: nothing of them is shown */
	from = evs.n;
	ck_assert_int_eq(referee_attempt(ref, BLACK, "Qxd5", &evs), 0);
	json_t *priv = copies(&evs, from, AUD_BLACK | AUD_UMPIRE, 12, "english", true);
	size_t i;
	json_t *j;
	json_array_foreach(priv, i, j) {
		const char *name = json_string_value(json_object_get(j, "event"));
		if (!strcmp(name, "move") || !strcmp(name, "umpire_move"))
			receive(&c, json_incref(j));
	}
	json_decref(priv);
	receive(&c, json_pack("{s:s, s:i, s:s, s:i}", "event", "board", "game", 12, "fen",
	                      "rnb1kbnr/ppp2ppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3", "ply", 4));
	ck_assert_int_eq(client_command(&c, "board"), 0);
	assert_no_secret(s.printed);
	ck_assert_ptr_null(strstr(s.printed, "Qxd5"));
	ck_assert_ptr_null(strstr(s.printed, "played"));

	/* the end */
	from = evs.n;
	ck_assert_int_eq(referee_end(ref, REASON_RESIGNATION, BLACK, &evs), 0);
	deliver(&c, &evs, from, AUD_SPECTATOR, 12, "english");
	ck_assert_msg(strstr(s.printed, "#12 (watching): Game over: Black resigned. White wins (1-0)"), "%s", s.printed);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_ptr_nonnull(strstr(prompt, "game over"));
	/* the server closed the seat: unwatch clears it here without asking */
	int before = s.nsent;
	ck_assert_int_eq(client_command(&c, "unwatch"), 0);
	ck_assert_int_eq(s.nsent, before);
	ck_assert_ptr_null(client_seat(&c, 12));
	assert_no_secret(s.printed);
	evlist_free(&evs);
	referee_free(ref);
	client_free(&c);
}
END_TEST

/* A clock read below zero is a fallen flag: 0:00 in the seat's prompt, not "-". */
START_TEST(spectator_negative_clock_shows_zero)
{
	struct client c;
	struct sink s;
	char prompt[256];
	sink_client(&c, &s);
	ck_assert_int_eq(client_command(&c, "watch 12"), 0);
	long long id;
	free(last_sent(&s, &id));
	json_t *r = ok_reply(id, 12, "spectator", "english", 0, "white");
	json_object_set_new(r, "clock", json_pack("{s:i, s:i}", "white", -400, "black", 61000));
	json_object_set_new(r, "events", json_array());
	receive(&c, r);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#12 watching | White 0:00 | Black 1:01 | White to move] > ");
	client_free(&c);
}
END_TEST

/* Regression (a review): the seats a reconnection takes again are krieg's
 * own requests: lost with the next drop, "a request got no answer" was
 * said of them, of nothing the user asked. */
START_TEST(seat_taken_again_is_kriegs_own)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	snprintf(c.user, sizeof c.user, "zed");   /* a spectator of alice's game */
	snprintf(c.token, sizeof c.token, "tok");
	ck_assert_int_eq(client_command(&c, "watch 12"), 0);
	long long id;
	free(last_sent(&s, &id));
	json_t *r = ok_reply(id, 12, "spectator", "icc", 0, "white");
	json_object_set_new(r, "events", json_array());
	receive(&c, r);
	ck_assert_int_eq(client_disconnected(&c), 0);
	ck_assert_int_eq(client_resume(&c), 0);
	sink_reply_ok(&c, &s, "\"user\":\"zed\",\"token\":\"tok2\",\"games\":[]");
	json_t *w = json_loads(s.sent[s.nsent - 2], 0, NULL);   /* the seat, then the ping */
	ck_assert_str_eq(json_string_value(json_object_get(w, "type")), "watch");
	ck_assert_int_eq(json_integer_value(json_object_get(w, "game")), 12);
	json_decref(w);
	ck_assert_int_eq(client_disconnected(&c), 0);
	client_free(&c);
}
END_TEST

/* A seat taken while a player is away says so, as opponent_away would
 * have (the reply's `away`; before, nothing was said until they came back). */
START_TEST(spectator_told_who_is_away)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	s.wall = 1767225600000LL;
	c.wall = sink_wall;
	ck_assert_int_eq(client_command(&c, "watch 12"), 0);
	long long id;
	free(last_sent(&s, &id));
	json_t *r = ok_reply(id, 12, "spectator", "icc", 1, "black");
	json_object_set_new(r, "events", json_array());
	/* `until` by a server's clock 10 minutes behind ours: `left` counts */
	json_object_set_new(r, "away", json_pack("{s:{s:I, s:I}, s:{}}", "black", "until",
	                                         (json_int_t)(s.wall - 600000 + 45000), "left", (json_int_t)45000,
	                                         "white"));
	receive(&c, r);
	ck_assert_msg(strstr(s.printed, "#12 (watching): Black (bob) has left; the game is lost by "
	                                "abandonment unless they are back within 0:45.") != NULL,
	              "printed: %s", s.printed);
	ck_assert_msg(strstr(s.printed, "#12 (watching): White (alice) has left; the game waits for them.") !=
	                      NULL,
	              "printed: %s", s.printed);
	client_free(&c);
}
END_TEST

/* crazykrieg's reserves are public: a spectator's seat shows both, kept from
 * the capture and drop events (it showed none). */
START_TEST(spectator_sees_the_reserves)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	c.ropts.unicode = false;
	ck_assert_int_eq(client_command(&c, "watch 14"), 0);
	long long id;
	free(last_sent(&s, &id));
	char err[128];
	struct referee *ref = referee_new(ruleset_find("crazykrieg"), NULL, err, sizeof err);
	struct evlist evs;
	evlist_init(&evs);
	ck_assert_int_eq(referee_begin(ref, &evs), 0);
	static const char *const tries[] = { "e4", "d5", "exd5", "Qxd5" };
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(referee_attempt(ref, i % 2 ? BLACK : WHITE, tries[i], &evs), 0);
	json_t *r = ok_reply(id, 14, "spectator", "crazykrieg", referee_plies(ref), "white");
	json_object_set_new(r, "events", copies(&evs, 0, AUD_SPECTATOR, 14, "crazykrieg", false));
	receive(&c, r);
	ck_assert_msg(strstr(s.printed, "In hand: White P | Black p"), "%s", s.printed);
	size_t from = evs.n;
	ck_assert_int_eq(referee_attempt(ref, WHITE, "P@e4", &evs), 0);
	deliver(&c, &evs, from, AUD_SPECTATOR, 14, "crazykrieg");
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "board"), 0);
	ck_assert_msg(strstr(s.printed, "In hand: White - | Black p"), "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "e4"));   /* the drop's square is not the spectator's */
	evlist_free(&evs);
	referee_free(ref);
	client_free(&c);
}
END_TEST

/* A long catch-up comes in pages: each asked for, live events meanwhile left to the pages. */
START_TEST(spectator_catch_up_pages)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	ck_assert_int_eq(client_command(&c, "watch 3"), 0);
	long long id;
	free(last_sent(&s, &id));

	char err[128];
	struct referee *ref = referee_new(ruleset_find("icc"), NULL, err, sizeof err);
	struct evlist evs;
	evlist_init(&evs);
	ck_assert_int_eq(referee_begin(ref, &evs), 0);
	static const char *const moves[] = { "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5" };
	for (size_t k = 0; k < 6; k++)
		ck_assert_int_eq(referee_attempt(ref, k % 2 ? BLACK : WHITE, moves[k], &evs), 0);
	json_t *all = copies(&evs, 0, AUD_SPECTATOR, 3, "icc", false);
	size_t total = json_array_size(all);
	ck_assert_uint_gt(total, 6);

	/* The server's pages: the first reply's total is where the later
	 * pages end (PROTOCOL.md, Watching: the seat's live events come from
	 * that reply on), here all but the last event, which comes live while
	 * the second page is asked for.  It was dropped (the catch-up was
	 * thought to hold it: the second browser probe found the page's twin
	 * of this); it is shown after the catch-up, once. */
	json_t *r = ok_reply(id, 3, "spectator", "icc", 6, "white");
	json_t *page = json_array();
	for (size_t k = 0; k < 4; k++)
		json_array_append(page, json_array_get(all, k));
	json_object_set_new(r, "events", page);
	json_object_set_new(r, "total", json_integer((json_int_t)total - 1));
	json_object_set_new(r, "next", json_integer(4));
	receive(&c, r);
	char *req = last_sent(&s, &id);
	ck_assert_str_eq(req, "{\"from\":4,\"game\":3,\"type\":\"watch\"}");
	free(req);
	ck_assert_ptr_null(strstr(s.printed, "Watching game 3"));   /* not before the whole catch-up */
	/* a spectator's words, then the live event: held, and said in order
	 * after the catch-up (words were said before its lines: a review) */
	client_receive(&c, "{\"event\":\"chat\",\"game\":3,\"channel\":\"spectators\",\"user\":\"dave\","
	                   "\"text\":\"here now\",\"ply\":6}");
	ck_assert_ptr_null(strstr(s.printed, "here now"));
	receive(&c, json_incref(json_array_get(all, total - 1)));
	r = ok_reply(id, 3, "spectator", "icc", 6, "white");
	page = json_array();
	for (size_t k = 4; k < total - 1; k++)
		json_array_append(page, json_array_get(all, k));
	json_object_set_new(r, "events", page);
	json_object_set_new(r, "total", json_integer((json_int_t)total - 1));
	receive(&c, r);
	ck_assert_msg(strstr(s.printed, "Watching game 3"), "%s", s.printed);
	const char *shown = strstr(s.printed, "Watching game 3");
	const char *words = strstr(shown, "dave (spectator) says: \"here now\"");
	ck_assert_msg(words != NULL, "the words not said after the catch-up:\n%s", shown);
	ck_assert_msg(strstr(words, "#3 (watching): White has no pawn tries") != NULL,
	              "the live event not shown after the catch-up, after the words:\n%s", shown);
	struct seat *seat = client_seat(&c, 3);
	ck_assert_ptr_nonnull(seat);
	ck_assert_int_eq(seat->heard, (long)total);
	ck_assert(!seat->loading);
	ck_assert_int_eq(seat->to_move, WHITE);
	ck_assert_int_eq(seat->ply, 6);
	/* a later page refused (the game ended meanwhile): the seat goes */
	ck_assert_int_eq(client_command(&c, "watch 4"), 0);
	free(last_sent(&s, &id));
	r = ok_reply(id, 4, "spectator", "icc", 0, "white");
	json_object_set_new(r, "events", json_array());
	json_object_set_new(r, "total", json_integer(9));
	json_object_set_new(r, "next", json_integer(0 + 5));
	receive(&c, r);
	free(last_sent(&s, &id));
	receive(&c, json_pack("{s:I, s:b, s:{s:s, s:s}}", "id", (json_int_t)id, "ok", 0, "error", "code",
	                      "no_such_game", "message", "no such live game"));
	ck_assert_ptr_null(client_seat(&c, 4));
	ck_assert_ptr_nonnull(strstr(s.printed, "watch refused: no such live game (no_such_game)"));
	/* a game_over that came live before the refusal is why: said (it was
	 * dropped with the seat, the result never said: a review) */
	ck_assert_int_eq(client_command(&c, "watch 5"), 0);
	free(last_sent(&s, &id));
	r = ok_reply(id, 5, "spectator", "icc", 0, "white");
	json_object_set_new(r, "events", json_array());
	json_object_set_new(r, "total", json_integer(9));
	json_object_set_new(r, "next", json_integer(5));
	receive(&c, r);
	free(last_sent(&s, &id));
	receive(&c, json_pack("{s:s, s:I, s:s, s:i, s:[s], s:s, s:s, s:s}", "event", "game_over", "game", (json_int_t)5,
	                      "by", "white", "ply", 0, "audience", "spectator", "result", "0-1", "reason", "resignation",
	                      "say", "White resigned"));
	size_t before = strlen(s.printed);
	receive(&c, json_pack("{s:I, s:b, s:{s:s, s:s}}", "id", (json_int_t)id, "ok", 0, "error", "code",
	                      "no_such_game", "message", "no such live game"));
	ck_assert_ptr_null(client_seat(&c, 5));
	ck_assert_msg(strstr(s.printed + before, "#5 (watching): ") && strstr(s.printed + before, "the game is over"),
	              "%s", s.printed + before);
	ck_assert_ptr_null(strstr(s.printed + before, "the seat was lost"));
	json_decref(all);
	evlist_free(&evs);
	referee_free(ref);
	client_free(&c);
}
END_TEST

/* The chair after 1.e4 and a refused try: the true board, the tries, who heard what. */
static void seat_umpire(struct client *c, struct sink *s, struct referee **refp, struct evlist *evs)
{
	ck_assert_int_eq(client_command(c, "umpire 7"), 0);
	long long id;
	char *req = last_sent(s, &id);
	ck_assert_str_eq(req, "{\"game\":7,\"type\":\"umpire\"}");
	free(req);
	char err[128];
	struct referee *ref = referee_new(ruleset_find("english"), NULL, err, sizeof err);
	evlist_init(evs);
	ck_assert_int_eq(referee_begin(ref, evs), 0);
	ck_assert_int_eq(referee_attempt(ref, WHITE, "e4", evs), 0);
	ck_assert_int_eq(referee_attempt(ref, BLACK, "d7d4", evs), 0);
	char fen[FEN_MAX];
	fen_format(referee_board(ref), fen, sizeof fen);
	json_t *r = ok_reply(id, 7, "umpire", "english", referee_plies(ref), "black");
	json_object_set_new(r, "events", copies(evs, 0, AUD_UMPIRE, 7, "english", false));
	json_object_set_new(r, "total", json_integer(3));
	json_object_set_new(r, "fen", json_string(fen));
	json_object_set_new(r, "connected", json_pack("{s:b, s:b}", "white", 1, "black", 0));
	receive(c, r);
	*refp = ref;
}

START_TEST(umpire_chair_shows_everything)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	c.ropts.unicode = false;
	struct referee *ref;
	struct evlist evs;
	seat_umpire(&c, &s, &ref, &evs);
	const char *p = s.printed;
	ck_assert_msg(strstr(p, "In the umpire's chair of game 7"), "%s", p);
	ck_assert_ptr_nonnull(strstr(p, "Umpire's board"));
	/* both sides' pieces on the true board */
	ck_assert_msg(strstr(p, " 8  r  n  b  q  k  b  n  r  8"), "%s", p);
	ck_assert_ptr_nonnull(strstr(p, " 4  .  .  .  .  P  .  .  .  4"));
	ck_assert_ptr_nonnull(strstr(p, " 1  R  N  B  Q  K  B  N  R  1"));
	/* each announcement with who heard it; the tries named */
	ck_assert_ptr_nonnull(strstr(p, "[umpire only] White played e4"));
	ck_assert_msg(strstr(p, "[Black] Black tried d7d4: illegal"), "%s", p);
	ck_assert_ptr_nonnull(strstr(p, "Last tries: White e4: played | Black d7d4: illegal"));
	ck_assert_ptr_nonnull(strstr(p, "White (alice) 5:00, connected | Black (bob) 5:00, away"));
	/* regression: the catch-up's tries asked for a redraw, so the next flush
	 * (the terminal's, once the input is read) drew the chair a second time */
	client_flush(&c);
	const char *again = strstr(p, "Umpire's board");
	ck_assert_msg(again && !strstr(again + 1, "Umpire's board"), "the chair drawn twice:\n%s", p);
	/* the chair's copy of a try the others heard without its move (kriegd
	 * lists all who heard it, in either form): not "everyone" beside the
	 * move (the browser probe) */
	client_receive(&c, "{\"event\":\"illegal\",\"by\":\"black\",\"ply\":1,\"audience\":[\"white\",\"black\","
	                   "\"umpire\",\"spectator\"],\"move\":\"d8d1\",\"san\":\"Qd1\",\"say\":\"Illegal: Qd1\",\"game\":7}");
	client_flush(&c);
	ck_assert_msg(strstr(p, "[Black; White and spectators without the move] Black tried Qd1: illegal"), "%s", p);
	/* the chair hears a player's absence, and each new deadline as such
	 * (a review: a pause's re-tell read "has left" again) */
	client_receive(&c, "{\"event\":\"opponent_away\",\"game\":7,\"color\":\"black\",\"until\":1767225600000,"
	                   "\"left\":60000,\"audience\":[\"white\",\"umpire\",\"spectator\"]}");
	client_receive(&c, "{\"event\":\"opponent_away\",\"game\":7,\"color\":\"black\","
	                   "\"audience\":[\"white\",\"umpire\",\"spectator\"]}");
	ck_assert_msg(strstr(p, "#7 (umpire): Black (bob) has left; the game is lost by abandonment unless they are back "
	                        "within 1:00.") && strstr(p, "#7 (umpire): Black (bob) is still away; the game waits for them."),
	              "%s", p);

	/* live: Black's move, the new true board, a connection coming back */
	size_t from = evs.n;
	ck_assert_int_eq(referee_attempt(ref, BLACK, "d5", &evs), 0);
	s.printed[0] = '\0';
	deliver(&c, &evs, from, AUD_UMPIRE, 7, "english");
	char fen[FEN_MAX];
	fen_format(referee_board(ref), fen, sizeof fen);
	receive(&c, json_pack("{s:s, s:i, s:s, s:i}", "event", "board", "game", 7, "fen", fen, "ply", 2));
	receive(&c, json_pack("{s:s, s:i, s:s, s:b}", "event", "connection", "game", 7, "color", "black",
	                      "connected", 1));
	client_flush(&c);
	p = s.printed;
	ck_assert_msg(strstr(p, "#7 (umpire): [umpire only] Black played d5"), "%s", p);
	ck_assert_ptr_nonnull(strstr(p, "#7 (umpire): [umpire only] Black (bob) is connected again"));
	ck_assert_ptr_nonnull(strstr(p, " 5  .  .  .  p  .  .  .  .  5"));
	ck_assert_ptr_nonnull(strstr(p, "Last tries: White e4: played | Black d5: played"));
	ck_assert_ptr_nonnull(strstr(p, "connected | Black (bob) 5:00, connected"));

	/* Unicode: both sides' glyphs */
	c.ropts.unicode = true;
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "board"), 0);
	ck_assert_ptr_nonnull(strstr(s.printed, "\u2659"));
	ck_assert_ptr_nonnull(strstr(s.printed, "\u265F"));
	ck_assert_ptr_nonnull(strstr(s.printed, "\u2654"));
	ck_assert_ptr_nonnull(strstr(s.printed, "\u265A"));
	evlist_free(&evs);
	referee_free(ref);
	client_free(&c);
}
END_TEST

START_TEST(umpire_actions_requests_and_refusals)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	/* no chair: refused here, nothing sent */
	static const char *const acts[] = { "pause", "unpause lunch", "addtime white 60 a noisy hall",
	                                    "adjudicate 1-0 mate in one", "abort fire alarm", "note hello" };
	for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
		ck_assert_int_eq(client_command(&c, acts[i]), -1);
		ck_assert_int_eq(s.nsent, 0);
	}
	ck_assert_msg(strstr(s.printed, "pause: you hold no umpire's chair"), "%s", s.printed);

	struct referee *ref;
	struct evlist evs;
	seat_umpire(&c, &s, &ref, &evs);
	ck_assert_int_eq(client_command(&c, "pause"), 0);
	expect_sent(&s, "{\"game\":7,\"reason\":\"no reason given\",\"type\":\"clock_pause\"}");
	ck_assert_int_eq(client_command(&c, "pause  the hall lights are out  "), 0);
	expect_sent(&s, "{\"game\":7,\"reason\":\"the hall lights are out\",\"type\":\"clock_pause\"}");
	ck_assert_int_eq(client_command(&c, "unpause lights back"), 0);
	expect_sent(&s, "{\"game\":7,\"reason\":\"lights back\",\"type\":\"clock_unpause\"}");
	ck_assert_int_eq(client_command(&c, "addtime black 90 the clock was   started late"), 0);
	expect_sent(&s, "{\"color\":\"black\",\"game\":7,\"reason\":\"the clock was   started late\","
	                "\"seconds\":90,\"type\":\"add_time\"}");
	ck_assert_int_eq(client_command(&c, "adjudicate draw dead drawn ending"), 0);
	expect_sent(&s, "{\"game\":7,\"reason\":\"dead drawn ending\",\"result\":\"1/2-1/2\",\"type\":\"adjudicate\"}");
	ck_assert_int_eq(client_command(&c, "abort fire alarm"), 0);
	expect_sent(&s, "{\"game\":7,\"reason\":\"fire alarm\",\"type\":\"umpire_abort\"}");
	ck_assert_int_eq(client_command(&c, "note --public Play resumes at 3"), 0);
	expect_sent(&s, "{\"game\":7,\"public\":true,\"text\":\"Play resumes at 3\",\"type\":\"note\"}");
	long long id;
	ck_assert_int_eq(client_command(&c, "note white looked at the ceiling"), 0);
	char *req = last_sent(&s, &id);
	ck_assert_str_eq(req, "{\"game\":7,\"public\":false,\"text\":\"white looked at the ceiling\",\"type\":\"note\"}");
	free(req);
	/* the answer, and a refusal with its code */
	receive(&c, json_pack("{s:I, s:b, s:i}", "id", (json_int_t)id, "ok", 1, "game", 7));
	ck_assert_msg(strstr(s.printed, "#7: done (note recorded)."), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "pause x"), 0);
	free(last_sent(&s, &id));
	int errors = c.errors;
	receive(&c, json_pack("{s:I, s:b, s:{s:s, s:s}}", "id", (json_int_t)id, "ok", 0, "error", "code",
	                      "forbidden", "message", "an umpire who plays a live game cannot umpire"));
	ck_assert_ptr_nonnull(strstr(s.printed, "pause refused: an umpire who plays a live game cannot umpire (forbidden)"));
	ck_assert_int_eq(c.errors, errors + 1);
	/* bad words: told here, nothing sent */
	int n = s.nsent;
	static const char *const bad[] = { "addtime green 60 x", "addtime white 0 x", "addtime white 86401 x",
	                                   "addtime white 60", "adjudicate 2-0 x", "adjudicate 1-0",
	                                   "note", "note --public", "note \t", "abort \x01 bell" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(client_command(&c, bad[i]) == -1, "%s accepted", bad[i]);
	char longer[CMD_REASON_MAX + 16];
	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	memcpy(longer, "note ", 5);
	ck_assert_int_eq(client_command(&c, longer), -1);
	ck_assert_int_eq(s.nsent, n);
	/* a player's abort is still the plain abort, of the current game */
	client_receive(&c, "{\"event\":\"game_start\",\"game\":9,\"rules\":\"icc\",\"white\":\"me\",\"black\":\"x\","
	                   "\"color\":\"white\",\"rated\":false}");
	ck_assert_int_eq(client_command(&c, "abort"), 0);
	expect_sent(&s, "{\"game\":9,\"type\":\"abort\"}");
	evlist_free(&evs);
	referee_free(ref);
	client_free(&c);
}
END_TEST

static const char *const umpire_lines[] = {
	"{\"event\":\"clock_paused\",\"game\":%d,\"by\":\"umpire\",\"reason\":\"lights out\",\"clock\":{\"white\":250000,\"black\":200000}}",
	"{\"event\":\"time_added\",\"game\":%d,\"color\":\"black\",\"seconds\":60,\"reason\":\"noise\",\"clock\":{\"white\":250000,\"black\":260000}}",
	"{\"event\":\"clock_unpaused\",\"game\":%d,\"by\":\"umpire\",\"reason\":\"lights back\",\"clock\":{\"white\":250000,\"black\":260000}}",
	"{\"event\":\"umpire_note\",\"game\":%d,\"text\":\"Play ends at 6\\u001b[31m\"}",
	"{\"event\":\"game_over\",\"game\":%d,\"result\":\"1-0\",\"reason\":\"adjudication\",\"note\":\"mate in one\",\"ply\":3,\"audience\":[\"white\",\"black\",\"umpire\",\"spectator\"]}",
};

static void umpire_acts(struct client *c, struct sink *s, int game, const char *prefix)
{
	char line[512], prompt[256];
	snprintf(line, sizeof line, umpire_lines[0], game);
	client_receive(c, line);
	s->now += 5000;   /* paused: no time passes on either clock */
	client_prompt(c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "White 4:10 | Black 3:20"), "%s", prompt);
	snprintf(line, sizeof line, umpire_lines[1], game);
	client_receive(c, line);
	snprintf(line, sizeof line, umpire_lines[2], game);
	client_receive(c, line);
	s->now += 2000;
	client_prompt(c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "White 4:08 | Black 4:20"), "%s", prompt);
	snprintf(line, sizeof line, umpire_lines[3], game);
	client_receive(c, line);
	snprintf(line, sizeof line, umpire_lines[4], game);
	client_receive(c, line);
	static const char *const said[] = {
		"The umpire paused the clocks: lights out", "The umpire gave Black 60 more seconds: noise",
		"The umpire restarted the clocks: lights back", "The umpire says: Play ends at 6?[31m",
		"Game over: White wins by the umpire's decision (1-0): mate in one",
	};
	for (size_t i = 0; i < sizeof said / sizeof said[0]; i++) {
		char want[256];
		snprintf(want, sizeof want, "%s%s", prefix, said[i]);
		ck_assert_msg(strstr(s->printed, want), "\"%s\" not in:\n%s", want, s->printed);
	}
	ck_assert_ptr_null(strstr(s->printed, "\033[31m"));   /* no escape reaches the terminal */
}

START_TEST(players_and_spectators_hear_the_umpire)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	client_receive(&c, "{\"event\":\"game_start\",\"game\":5,\"rules\":\"icc\",\"white\":\"me\",\"black\":\"x\","
	                   "\"color\":\"white\",\"rated\":false,\"clock\":{\"white\":300000,\"black\":300000}}");
	umpire_acts(&c, &s, 5, "#5: ");
	ck_assert(client_current(&c)->view.over);
	client_free(&c);

	sink_client(&c, &s);
	take_empty_seat(&c, &s, "watch 6", 6, "spectator");
	umpire_acts(&c, &s, 6, "#6 (watching): ");
	ck_assert(client_seat(&c, 6)->over);
	client_free(&c);
}
END_TEST

/* Regression (friends probe): a spectator of an adjourned game read
 * "clocks paused", the umpire's word; the players' adjournment is said. */
START_TEST(spectator_sees_an_adjournment)
{
	struct client c;
	struct sink s;
	char prompt[256];
	sink_client(&c, &s);
	take_empty_seat(&c, &s, "watch 6", 6, "spectator");
	client_receive(&c, "{\"event\":\"adjourned\",\"game\":6,\"by\":\"black\",\"ply\":0,"
	                   "\"clock\":{\"white\":250000,\"black\":200000}}");
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "| adjourned] > ") && !strstr(prompt, "paused"), "%s", prompt);
	client_receive(&c, "{\"event\":\"unadjourned\",\"game\":6,\"by\":\"white\",\"ply\":0}");
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "| White to move] > "), "%s", prompt);
	/* a draw offer lapses with the other side's move, as the players'
	 * do (the review: the seat kept "White offers a draw.") */
	client_receive(&c, "{\"event\":\"draw_offer\",\"game\":6,\"by\":\"white\"}");
	ck_assert_int_eq(client_seat(&c, 6)->draw_offer_from, WHITE);
	client_receive(&c, "{\"event\":\"moved\",\"game\":6,\"by\":\"white\",\"ply\":1,"
	                   "\"audience\":[\"black\",\"spectator\"]}");
	ck_assert_int_eq(client_seat(&c, 6)->draw_offer_from, WHITE);   /* its own move: it stands */
	client_receive(&c, "{\"event\":\"moved\",\"game\":6,\"by\":\"black\",\"ply\":2,"
	                   "\"audience\":[\"white\",\"spectator\"]}");
	ck_assert_int_eq(client_seat(&c, 6)->draw_offer_from, -1);
	/* an umpire's pause is still the umpire's */
	client_receive(&c, "{\"event\":\"clock_paused\",\"game\":6,\"by\":\"umpire\",\"reason\":\"x\"}");
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_msg(strstr(prompt, "| clocks paused] > "), "%s", prompt);
	client_free(&c);
}
END_TEST

START_TEST(live_list_and_seat_commands)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	ck_assert_int_eq(client_command(&c, "live"), 0);
	long long id;
	char *req = last_sent(&s, &id);
	ck_assert_str_eq(req, "{\"type\":\"live\"}");
	free(req);
	client_receive(&c, "{\"id\":1,\"ok\":true,\"games\":[{\"game\":12,\"rules\":\"icc\",\"white\":\"alice\","
	                   "\"black\":\"bob\",\"rated\":false,\"ply\":14,\"to_move\":\"white\",\"spectators\":3,"
	                   "\"time\":{\"base\":300.0,\"inc\":2.0},\"clock\":{\"white\":281000,\"black\":290500}}],"
	                   "\"total\":2,\"next\":1}");
	ck_assert_msg(strstr(s.printed, "game 12: alice (White) vs bob (Black), icc, 5+2, unrated, move 8, white to "
	                                "move, clocks 4:41 | 4:51, 3 watching"), "%s", s.printed);
	req = last_sent(&s, &id);
	ck_assert_str_eq(req, "{\"from\":1,\"type\":\"live\"}");
	free(req);
	/* the next page: a paused game and an adjourned one say so */
	client_receive(&c, "{\"id\":2,\"ok\":true,\"games\":[{\"game\":15,\"rules\":\"icc\",\"white\":\"carl\","
	                   "\"black\":\"dave\",\"rated\":false,\"ply\":2,\"to_move\":\"white\",\"spectators\":0,"
	                   "\"paused\":true},{\"game\":16,\"rules\":\"icc\",\"white\":\"erin\",\"black\":\"fred\","
	                   "\"rated\":false,\"ply\":3,\"to_move\":\"black\",\"spectators\":0,\"adjourned\":true,\"bots\":[\"black\"]}],"
	                   "\"total\":3}");
	ck_assert_msg(strstr(s.printed, "game 15: carl (White) vs dave (Black), icc, untimed, unrated, move 2, white to "
	                                "move (paused by the umpire)"), "%s", s.printed);
	/* a bot's side marked (only a player's own game said it: the browser probe) */
	ck_assert_msg(strstr(s.printed, "game 16: erin (White) vs fred (Black, a bot), icc, untimed, unrated, move 2, "
	                                "black to move (adjourned)"), "%s", s.printed);
	/* a seat's header marks a bot's side too */
	long long sid;
	ck_assert_int_eq(client_command(&c, "watch 17"), 0);
	free(last_sent(&s, &sid));
	json_t *r = ok_reply(sid, 17, "spectator", "icc", 0, "white");
	json_object_set_new(r, "events", json_array());
	json_object_set_new(r, "total", json_integer(0));
	json_object_set_new(r, "bots", json_pack("[s]", "white"));
	receive(&c, r);
	ck_assert_msg(strstr(s.printed, "Game 17: alice (White, a bot) vs bob (Black), icc, unrated; you are watching"),
	              "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "unwatch 17"), 0);
	free(last_sent(&s, &sid));
	receive(&c, json_pack("{s:I, s:b, s:i}", "id", (json_int_t)sid, "ok", 1, "game", 17));
	ck_assert_ptr_null(client_seat(&c, 17));
	/* the server takes a seat away */
	take_empty_seat(&c, &s, "umpire 12", 12, "umpire");
	ck_assert_ptr_nonnull(client_seat(&c, 12));
	client_receive(&c, "{\"event\":\"unwatched\",\"game\":12,\"seat\":\"umpire\",\"reason\":\"your own game started\"}");
	ck_assert_ptr_null(client_seat(&c, 12));
	ck_assert_ptr_nonnull(strstr(s.printed, "#12: you no longer hold the umpire's seat: your own game started."));
	/* unwatch GAME asks the server, and the answer clears the seat */
	take_empty_seat(&c, &s, "watch 13", 13, "spectator");
	/* two seats and a game of one's own: switch moves between them, the prompt follows */
	take_empty_seat(&c, &s, "umpire 14", 14, "umpire");
	char prompt[256];
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#14 umpire | White 5:00 | Black 5:00 | White to move] > ");
	/* a move or an offer typed at a watched board is refused in words that say why, nothing sent */
	int sent = s.nsent;
	ck_assert_int_eq(client_command(&c, "e4"), -1);
	ck_assert_msg(strstr(s.printed, "game 14 is watched here from the umpire's chair: moves and offers are "
	                                "its players'"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "switch 13"), 0);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#13 watching | White 5:00 | Black 5:00 | White to move] > ");
	ck_assert_int_eq(client_command(&c, "draw"), -1);
	ck_assert_msg(strstr(s.printed, "game 13 is watched here: moves, offers and \"draw\" are its players' "
	                                "(\"spec\""), "%s", s.printed);
	ck_assert_int_eq(s.nsent, sent);
	/* the umpire's commands act on the only chair, whichever seat is current */
	ck_assert_int_eq(client_command(&c, "pause tea"), 0);
	expect_sent(&s, "{\"game\":14,\"reason\":\"tea\",\"type\":\"clock_pause\"}");
	ck_assert_int_eq(client_command(&c, "unwatch 13"), 0);
	req = last_sent(&s, &id);
	ck_assert_str_eq(req, "{\"game\":13,\"type\":\"unwatch\"}");
	free(req);
	receive(&c, json_pack("{s:I, s:b, s:i}", "id", (json_int_t)id, "ok", 1, "game", 13));
	ck_assert_ptr_null(client_seat(&c, 13));
	/* the chair is the current seat now: unwatch alone leaves it */
	ck_assert_int_eq(client_command(&c, "unwatch"), 0);
	req = last_sent(&s, &id);
	ck_assert_str_eq(req, "{\"game\":14,\"type\":\"unwatch\"}");
	free(req);
	receive(&c, json_pack("{s:I, s:b, s:i}", "id", (json_int_t)id, "ok", 1, "game", 14));
	ck_assert_msg(strstr(s.printed, "Left the umpire's chair of game 14.") != NULL, "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "unwatch"), -1);   /* none left */
	ck_assert_int_eq(client_command(&c, "watch x"), -1);
	client_free(&c);
}
END_TEST

/* krieg watch GAME: the seat is asked for once the login is in. */
/*
 * Regression (the help probe): with a chair current and a finished game of
 * one's own behind it, `possible`, `pieces` and `game` acted on the own
 * game while the prompt showed the chair.  A player's command at a
 * watched board is refused, saying how to get back; nothing is sent.
 */
START_TEST(player_commands_follow_the_prompt)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	sink_game_start(&c, 5, "white", false);
	client_receive(&c, "{\"event\":\"game_over\",\"game\":5,\"ply\":0,\"by\":\"white\","
	                   "\"audience\":[\"white\",\"black\"],\"result\":\"0-1\",\"reason\":\"resignation\"}");
	client_flush(&c);
	take_empty_seat(&c, &s, "umpire 3", 3, "umpire");
	int sent = s.nsent;
	static const char *const cmds[] = { "possible", "pieces", "game", "resign" };
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		size_t from = strlen(s.printed);
		ck_assert_int_eq(client_command(&c, cmds[i]), -1);
		char want[160];
		snprintf(want, sizeof want, "game 3 is watched here from the umpire's chair: moves, offers and "
		         "\"%s\" are its players' (\"switch GAME\" to a game of your own)", cmds[i]);
		ck_assert_msg(strstr(s.printed + from, want) != NULL, "%s", s.printed + from);
	}
	ck_assert_int_eq(s.nsent, sent);
	client_free(&c);
}
END_TEST

START_TEST(watch_after_login)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	snprintf(c.on_login, sizeof c.on_login, "watch 21");
	ck_assert_int_eq(client_command(&c, "login carol sesame-open"), 0);
	long long id;
	free(last_sent(&s, &id));
	ck_assert_int_eq(s.nsent, 1);
	receive(&c, json_pack("{s:I, s:b, s:s, s:s, s:[]}", "id", (json_int_t)id, "ok", 1, "user", "carol",
	                      "token", "t", "games"));
	/* first a ping, whose answer says the login's game_states are in (login_settle) */
	ck_assert_int_eq(s.nsent, 2);
	free(last_sent(&s, &id));
	receive(&c, json_pack("{s:I, s:b}", "id", (json_int_t)id, "ok", 1));
	ck_assert_int_eq(s.nsent, 3);
	expect_sent(&s, "{\"game\":21,\"type\":\"watch\"}");
	ck_assert_str_eq(c.on_login, "");
	client_free(&c);
}
END_TEST

/* TD probe: live, history and games named no director's tournament and
 * round (and history and games not whether the game is rated). */
START_TEST(td_lists_name_the_pairing)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);
	ck_assert_int_eq(client_command(&c, "live"), 0);
	sink_reply_ok(&c, &s, "\"games\":[{\"game\":5,\"rules\":\"icc\",\"white\":\"bert\",\"black\":\"dave\","
	              "\"rated\":true,\"tournament\":\"Club Open\",\"round\":\"3\",\"ply\":0,\"to_move\":\"white\","
	              "\"spectators\":1},{\"game\":7,\"rules\":\"icc\",\"white\":\"erin\",\"black\":\"fred\","
	              "\"rated\":false,\"round\":\"2.1\",\"ply\":0,\"to_move\":\"white\"}],\"total\":2");
	ck_assert_msg(strstr(s.printed, "game 5: bert (White) vs dave (Black), icc, untimed, rated, Club Open round 3, "
	                                "move 1, white to move, 1 watching"), "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "game 7: erin (White) vs fred (Black), icc, untimed, unrated, round 2.1, "
	                                "move 1, white to move\n"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "history dave"), 0);
	sink_reply_ok(&c, &s, "\"games\":[{\"game\":4,\"rules\":\"icc\",\"white\":\"bert\",\"black\":\"dave\","
	              "\"rated\":true,\"tournament\":\"Club\\u001b[31m Open\",\"round\":\"3\",\"created\":1735689600,"
	              "\"live\":false,\"result\":\"0-1\",\"reason\":\"adjudication\"}],\"total\":1");
	ck_assert_msg(strstr(s.printed, "game 4: bert (White) vs dave (Black), icc, rated, Club?[31m Open round 3, "
	                                "2025-01-01 00:00 UTC, finished 0-1 by "), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "games"), 0);
	sink_reply_ok(&c, &s, "\"games\":[{\"game\":8,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	              "\"color\":\"white\",\"rated\":true,\"tournament\":\"Club Open\",\"round\":\"4\",\"live\":true,"
	              "\"to_move\":\"white\"},{\"game\":9,\"rules\":\"icc\",\"white\":\"alice\",\"black\":\"bob\","
	              "\"color\":\"black\",\"rated\":false,\"live\":false,\"result\":\"1-0\"}],\"total\":2");
	ck_assert_msg(strstr(s.printed, "game 8: alice vs bob, icc, rated, Club Open round 4, you are white, white to move"),
	              "%s", s.printed);
	ck_assert_msg(strstr(s.printed, "game 9: alice vs bob, icc, you are black, finished 1-0"), "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "\033["));
	client_free(&c);
}
END_TEST

/* TD probe: a director who pairs himself was told to watch or umpire the
 * game, which its player may not. */
START_TEST(td_pairs_himself)
{
	struct client c;
	struct sink s;
	sink_logged_in(&c, &s);   /* alice */
	ck_assert_int_eq(client_command(&c, "pair ALICE bob icc untimed round 3 tournament Club Open"), 0);
	expect_sent(&s, "{\"black\":\"bob\",\"rated\":false,\"round\":\"3\",\"rules\":\"icc\",\"tournament\":\"Club Open\","
	                "\"type\":\"pair\",\"white\":\"ALICE\"}");
	long long id;
	free(last_sent(&s, &id));
	sink_game_start(&c, 6, "white", false);   /* before the answer, as the server sends them */
	receive(&c, json_pack("{s:I, s:b, s:i}", "id", (json_int_t)id, "ok", 1, "game", 6));
	ck_assert_msg(strstr(s.printed, "Paired: game 6; you play it (an umpire who plays a live game holds no chair "
	                                "until it ends)."), "%s", s.printed);
	ck_assert_ptr_null(strstr(s.printed, "\"umpire 6\""));
	/* as Black too; and a pairing of others still says how to follow it */
	ck_assert_int_eq(client_command(&c, "pair carl alice"), 0);
	free(last_sent(&s, &id));
	receive(&c, json_pack("{s:I, s:b, s:i}", "id", (json_int_t)id, "ok", 1, "game", 10));
	ck_assert_msg(strstr(s.printed, "Paired: game 10; you play it"), "%s", s.printed);
	ck_assert_int_eq(client_command(&c, "pair carl dave"), 0);
	free(last_sent(&s, &id));
	receive(&c, json_pack("{s:I, s:b, s:i}", "id", (json_int_t)id, "ok", 1, "game", 11));
	ck_assert_msg(strstr(s.printed, "Paired: game 11 (\"watch 11\" or \"umpire 11\" to follow it)."), "%s", s.printed);
	/* Regression (the TD probe with bots): a round written after the
	 * tournament's name became part of it, a tournament of its own, and
	 * nothing said so.  It is the round; and the answer's tournament and
	 * round are said back. */
	ck_assert_int_eq(client_command(&c, "pair carl dave icc untimed tournament Spring Open round 2"), 0);
	expect_sent(&s, "{\"black\":\"dave\",\"rated\":false,\"round\":\"2\",\"rules\":\"icc\","
	                "\"tournament\":\"Spring Open\",\"type\":\"pair\",\"white\":\"carl\"}");
	free(last_sent(&s, &id));
	receive(&c, json_pack("{s:I, s:b, s:i, s:s, s:s}", "id", (json_int_t)id, "ok", 1, "game", 12,
	                      "tournament", "Spring Open", "round", "2"));
	ck_assert_msg(strstr(s.printed, "Paired: game 12, Spring Open, round 2 (\"watch 12\""), "%s", s.printed);
	/* in capitals too, and cut before the name's length is checked (a
	 * review): a name of 60 bytes and its round */
	ck_assert_int_eq(client_command(&c, "pair carl dave tournament Spring Open Round 3"), 0);
	expect_sent(&s, "{\"black\":\"dave\",\"rated\":false,\"round\":\"3\",\"tournament\":\"Spring Open\","
	                "\"type\":\"pair\",\"white\":\"carl\"}");
	free(last_sent(&s, &id));
	char longer[128], want[256];
	snprintf(longer, sizeof longer, "pair carl dave tournament %.60s round 12",
	         "The Sixtieth Annual Open Kriegspiel Championship of the Club");
	ck_assert_int_eq(client_command(&c, longer), 0);
	snprintf(want, sizeof want, "{\"black\":\"dave\",\"rated\":false,\"round\":\"12\",\"tournament\":\"%.60s\","
	         "\"type\":\"pair\",\"white\":\"carl\"}", "The Sixtieth Annual Open Kriegspiel Championship of the Club");
	expect_sent(&s, want);
	free(last_sent(&s, &id));
	/* a tournament named "round 2" alone stays that name */
	ck_assert_int_eq(client_command(&c, "pair carl dave tournament round 2"), 0);
	expect_sent(&s, "{\"black\":\"dave\",\"rated\":false,\"tournament\":\"round 2\","
	                "\"type\":\"pair\",\"white\":\"carl\"}");
	free(last_sent(&s, &id));
	/* A command about no game is refused without the current game's
	 * number (the TD probe: "#6: announce refused: ..."). */
	size_t at = strlen(s.printed);
	ck_assert_int_eq(client_command(&c, "announce round 3 Club Open: nobody"), 0);
	free(last_sent(&s, &id));
	receive(&c, json_pack("{s:I, s:b, s:{s:s, s:s}}", "id", (json_int_t)id, "ok", 0, "error", "code",
	                      "no_such_game", "message", "no live game of that tournament and round"));
	ck_assert_msg(strstr(s.printed + at, "\nannounce refused: no live game") != NULL ||
	              strncmp(s.printed + at, "announce refused: no live game", 30) == 0, "%s", s.printed + at);
	ck_assert_ptr_null(strstr(s.printed + at, "#6:"));
	client_free(&c);
}
END_TEST

/* TD probe: after adjudicate (or the umpire's abort) the chair's header was
 * redrawn as "you hold the umpire's chair" and the prompt still read
 * "umpire"; the seat is closed, kept until "unwatch N" clears it. */
START_TEST(td_closed_chair_not_held)
{
	static const char over[] = "{\"event\":\"game_over\",\"game\":%d,\"result\":\"0-1\",\"reason\":\"adjudication\","
	                           "\"ply\":0,\"audience\":[\"white\",\"black\",\"umpire\",\"spectator\"]}";
	struct client c;
	struct sink s;
	char line[512], prompt[256];
	sink_client(&c, &s);
	c.ropts.unicode = false;
	take_empty_seat(&c, &s, "umpire 2", 2, "umpire");
	client_flush(&c);
	ck_assert_msg(strstr(s.printed, "; you hold the umpire's chair"), "%s", s.printed);
	s.printed[0] = '\0';
	snprintf(line, sizeof line, over, 2);
	client_receive(&c, line);
	client_flush(&c);   /* the chair's board is drawn again */
	const char *closed = strstr(s.printed, "#2: the game is over and the seat closed (\"unwatch 2\" clears it here).");
	ck_assert_msg(closed, "%s", s.printed);
	ck_assert_msg(strstr(closed, "Game 2: alice (White) vs bob (Black), icc, unrated; you held the umpire's chair; "
	                             "the game is over"), "%s", s.printed);
	ck_assert_msg(!strstr(s.printed, "you hold the umpire's chair"), "%s", s.printed);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#2 chair closed | White 5:00 | Black 5:00 | game over] > ");
	c.plain = true;
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#2 chair closed, game over] > ");
	c.plain = false;
	/* a spectator's seat the same */
	take_empty_seat(&c, &s, "watch 3", 3, "spectator");
	snprintf(line, sizeof line, over, 3);
	client_receive(&c, line);
	s.printed[0] = '\0';
	ck_assert_int_eq(client_command(&c, "board"), 0);
	ck_assert_msg(strstr(s.printed, "; you watched it; the game is over"), "%s", s.printed);
	client_prompt(&c, prompt, sizeof prompt);
	ck_assert_str_eq(prompt, "[#3 seat closed | White 5:00 | Black 5:00 | game over] > ");
	/* unwatch N clears a closed seat here, as before */
	int sent = s.nsent;
	ck_assert_int_eq(client_command(&c, "unwatch 2"), 0);
	ck_assert_ptr_null(client_seat(&c, 2));
	ck_assert_int_eq(s.nsent, sent);
	client_free(&c);
}
END_TEST

/* TD probe: "help umpire" left out the commands that move a director
 * between boards. */
START_TEST(td_help_umpire_lists_the_seat_commands)
{
	struct client c;
	struct sink s;
	sink_client(&c, &s);
	ck_assert_int_eq(client_command(&c, "help umpire"), 0);
	static const char *const want[] = { "\n  watch GAME ", "\n  unwatch [GAME] ", "\n  switch GAME ", "\n  pair " };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		ck_assert_msg(strstr(s.printed, want[i]), "no \"%s\" in:\n%s", want[i] + 3, s.printed);
	client_free(&c);
}
END_TEST

static Suite *watch_suite(void)
{
	Suite *s = suite_create("client_watch");
	TCase *tc = tcase_create("watch");
	tcase_add_test(tc, spectator_sees_the_public_stream);
	tcase_add_test(tc, spectator_negative_clock_shows_zero);
	tcase_add_test(tc, seat_taken_again_is_kriegs_own);
	tcase_add_test(tc, spectator_told_who_is_away);
	tcase_add_test(tc, spectator_sees_the_reserves);
	tcase_add_test(tc, spectator_catch_up_pages);
	tcase_add_test(tc, umpire_chair_shows_everything);
	tcase_add_test(tc, umpire_actions_requests_and_refusals);
	tcase_add_test(tc, players_and_spectators_hear_the_umpire);
	tcase_add_test(tc, spectator_sees_an_adjournment);
	tcase_add_test(tc, live_list_and_seat_commands);
	tcase_add_test(tc, watch_after_login);
	tcase_add_test(tc, player_commands_follow_the_prompt);
	suite_add_tcase(s, tc);
	TCase *td = tcase_create("td");
	tcase_add_test(td, td_lists_name_the_pairing);
	tcase_add_test(td, td_pairs_himself);
	tcase_add_test(td, td_closed_chair_not_held);
	tcase_add_test(td, td_help_umpire_lists_the_seat_commands);
	suite_add_tcase(s, td);
	return s;
}

KRIEG_TEST_MAIN(watch_suite)
