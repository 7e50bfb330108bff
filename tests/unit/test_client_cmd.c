/*
 * test_client_cmd.c — krieg's command language: the command table,
 * parsing, and the protocol requests the commands become.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_main.h"
#include "client_fixture.h"   /* before the file's own c, which its parameters would shadow */
#include "cmd.h"
#include "scrub.h"
#include "text.h"

static struct cmd c;
static char err[256];

/* The request of `line` as compact JSON with sorted keys, or NULL. */
static char *req(const char *line, long game)
{
	ck_assert_int_eq(cmd_parse(line, &c, err, sizeof err), 0);
	json_t *r = cmd_request(&c, 7, game, err, sizeof err);
	if (!r)
		return NULL;
	char *s = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(r);
	return s;
}

static void expect(const char *line, long game, const char *json)
{
	char *s = req(line, game);
	ck_assert_msg(s != NULL, "%s: no request (%s)", line, err);
	ck_assert_str_eq(s, json);
	free(s);
}

START_TEST(moves)
{
	expect("e4", 3, "{\"game\":3,\"id\":7,\"move\":\"e4\",\"type\":\"move\"}");
	expect("move Nf3", 3, "{\"game\":3,\"id\":7,\"move\":\"Nf3\",\"type\":\"move\"}");
	expect("  e2e4  ", 3, "{\"game\":3,\"id\":7,\"move\":\"e2e4\",\"type\":\"move\"}");
	/* several tries on one line: a preference list */
	expect("exd5 e5 Nf3", 12, "{\"game\":12,\"id\":7,\"moves\":[\"exd5\",\"e5\",\"Nf3\"],\"type\":\"move\"}");
	expect("quiet e4 d4", 12, "{\"game\":12,\"id\":7,\"moves\":[\"e4\",\"d4\"],\"type\":\"quiet\"}");
	/* no current game: refused locally */
	ck_assert_ptr_null(req("e4", -1));
	ck_assert_ptr_nonnull(strstr(err, "no current game"));
}
END_TEST

START_TEST(game_actions)
{
	expect("any", 5, "{\"game\":5,\"id\":7,\"type\":\"any\"}");
	expect("resign", 5, "{\"game\":5,\"id\":7,\"type\":\"resign\"}");
	expect("draw offer", 5, "{\"action\":\"offer\",\"game\":5,\"id\":7,\"type\":\"draw\"}");
	expect("draw accept", 5, "{\"action\":\"accept\",\"game\":5,\"id\":7,\"type\":\"draw\"}");
	expect("draw decline", 5, "{\"action\":\"decline\",\"game\":5,\"id\":7,\"type\":\"draw\"}");
	expect("games", -1, "{\"id\":7,\"type\":\"games\"}");
	ck_assert_int_eq(cmd_parse("draw maybe", &c, err, sizeof err), -1);
	/* adjourn alone: the server offers, or accepts a standing offer */
	expect("adjourn", 5, "{\"game\":5,\"id\":7,\"type\":\"adjourn\"}");
	expect("adjourn decline", 5, "{\"action\":\"decline\",\"game\":5,\"id\":7,\"type\":\"adjourn\"}");
	expect("adjourn accept", 5, "{\"action\":\"accept\",\"game\":5,\"id\":7,\"type\":\"adjourn\"}");
	expect("unadjourn", 5, "{\"game\":5,\"id\":7,\"type\":\"unadjourn\"}");
	ck_assert_int_eq(cmd_parse("adjourn later", &c, err, sizeof err), -1);
}
END_TEST

START_TEST(lobby)
{
	expect("login alice sekrit123", -1,
	       "{\"id\":7,\"password\":\"sekrit123\",\"type\":\"login\",\"user\":\"alice\"}");
	expect("register bob hunter2hunter2", -1,
	       "{\"id\":7,\"password\":\"hunter2hunter2\",\"type\":\"register\",\"user\":\"bob\"}");
	expect("guest", -1, "{\"id\":7,\"type\":\"guest\"}");
	expect("who", -1, "{\"id\":7,\"type\":\"who\"}");
	expect("seeks", -1, "{\"id\":7,\"type\":\"seeks\"}");
	expect("seek", -1, "{\"color\":\"random\",\"id\":7,\"rated\":false,\"type\":\"seek\"}");
	/* Terms in any case, "any?" as the help writes it (first-game probe). */
	expect("seek English White", -1,
	       "{\"color\":\"white\",\"id\":7,\"rated\":false,\"rules\":\"english\",\"type\":\"seek\"}");
	expect("standings ICC", -1, "{\"id\":7,\"rules\":\"icc\",\"type\":\"standings\"}");
	ck_assert_int_eq(cmd_parse("any?", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.type, CMD_ANY);
	expect("seek nost 5+2 white rated", -1,
	       "{\"color\":\"white\",\"id\":7,\"rated\":true,\"rules\":\"nost\",\"time\":{\"base\":300,\"inc\":2},\"type\":\"seek\"}");
	expect("seek 3d", -1, "{\"color\":\"random\",\"id\":7,\"rated\":false,\"time\":{\"days\":3},\"type\":\"seek\"}");
	expect("challenge carol black 10", -1,
	       "{\"color\":\"black\",\"id\":7,\"rated\":false,\"time\":{\"base\":600,\"inc\":0},\"type\":\"challenge\",\"user\":\"carol\"}");
	expect("accept 4", -1, "{\"id\":7,\"offer\":4,\"type\":\"accept\"}");
	expect("decline 4", -1, "{\"id\":7,\"offer\":4,\"type\":\"decline\"}");
	/* a reason: the rest of the line, after the offer if a number comes first */
	expect("decline 4  only untimed   games ", -1,
	       "{\"id\":7,\"offer\":4,\"reason\":\"only untimed   games\",\"type\":\"decline\"}");
	expect("decline 14 3 games at once", -1,
	       "{\"id\":7,\"offer\":14,\"reason\":\"3 games at once\",\"type\":\"decline\"}");
	expect("decline 4 caf\u00e9 closes", -1,
	       "{\"id\":7,\"offer\":4,\"reason\":\"caf\u00e9 closes\",\"type\":\"decline\"}");
	/* no number: the last challenge (exec fills it in), with or without a reason */
	ck_assert_int_eq(cmd_parse("decline not tonight", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.number, -1);
	ck_assert_str_eq(c.text, "not tonight");
	ck_assert_int_eq(cmd_parse("decline", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.number, -1);
	ck_assert_str_eq(c.text, "");
	ck_assert_int_eq(cmd_parse("decline 4 ", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.number, 4);
	ck_assert_str_eq(c.text, "");
	c.number = -1;
	ck_assert_int_eq(cmd_parse("decline 4x too slow", &c, err, sizeof err), 0);   /* no number: all words */
	ck_assert_int_eq(c.number, -1);
	ck_assert_str_eq(c.text, "4x too slow");
	/* the wire's limits, told before sending */
	char long_decline[CMD_REASON_MAX + 16] = "decline 4 ";
	memset(long_decline + 10, 'x', CMD_REASON_MAX + 1);
	long_decline[10 + CMD_REASON_MAX + 1] = '\0';
	const char *bad_declines[] = { "decline 4 a\tb", "decline 4 \xff\xfe", "decline \x1b[2J",
	                               "decline 99999999999999999999 x", long_decline };
	for (size_t i = 0; i < sizeof bad_declines / sizeof *bad_declines; i++)
		ck_assert_msg(cmd_parse(bad_declines[i], &c, err, sizeof err) == -1, "%s parsed", bad_declines[i]);
	/* the refusal names the part of the rule broken: five marks on a letter */
	ck_assert_int_eq(cmd_parse("decline 4 a\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81", &c, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "more than 4 marks on a letter") != NULL, "%s", err);
	ck_assert_int_eq(cmd_parse("decline 4 a\xcc\x81\xcc\x81\xcc\x81\xcc\x81", &c, err, sizeof err), 0);
	/* Regression (a play probe): two of one kind of term, the first was dropped */
	static const char *const twice[] = { "challenge bob icc 5+0 untimed", "seek 1+2 3d", "seek icc english",
	                                     "challenge bob white black", "seek rated unrated" };
	for (size_t i = 0; i < sizeof twice / sizeof *twice; i++) {
		ck_assert_msg(cmd_parse(twice[i], &c, err, sizeof err) == -1, "%s parsed", twice[i]);
		ck_assert_msg(strstr(err, ", not two") != NULL, "%s: %s", twice[i], err);
	}
	ck_assert_int_eq(cmd_parse("challenge bob icc 5+0 white rated", &c, err, sizeof err), 0);
	ck_assert_ptr_nonnull(strstr(cmd_help(), "decline [OFFER] [REASON...]"));
	expect("cancel 9", -1, "{\"id\":7,\"offer\":9,\"type\":\"cancel\"}");
	expect("rematch 12", -1, "{\"game\":12,\"id\":7,\"type\":\"rematch\"}");
	expect("rematch", 5, "{\"game\":5,\"id\":7,\"type\":\"rematch\"}");   /* the current game */
	ck_assert_int_eq(cmd_parse("rematch twelve", &c, err, sizeof err), -1);
	expect("pair ann bob english 10+5 rated", -1,
	       "{\"black\":\"bob\",\"id\":7,\"rated\":true,\"rules\":\"english\",\"time\":{\"base\":600,\"inc\":5},"
	       "\"type\":\"pair\",\"white\":\"ann\"}");
	expect("pair ann bob", -1, "{\"black\":\"bob\",\"id\":7,\"rated\":false,\"type\":\"pair\",\"white\":\"ann\"}");
	ck_assert_int_eq(cmd_parse("pair ann", &c, err, sizeof err), -1);
	ck_assert_int_eq(cmd_parse("pair ann bob black", &c, err, sizeof err), -1);   /* the order says the colours */
	expect("tournament Club Open", -1, "{\"id\":7,\"name\":\"Club Open\",\"type\":\"tournament\"}");
	ck_assert_int_eq(cmd_parse("tournament", &c, err, sizeof err), -1);
	/* a round and a tournament, its name the rest of the line, as kriegd
	 * keeps it (spaces at the ends dropped, runs made one) */
	expect("pair ann bob round 2.1 tournament  Club \"Open\"  2026 ", -1,
	       "{\"black\":\"bob\",\"id\":7,\"rated\":false,\"round\":\"2.1\",\"tournament\":\"Club \\\"Open\\\" 2026\","
	       "\"type\":\"pair\",\"white\":\"ann\"}");
	/* players called "round" and "tournament" (probe: krieg could not pair them) */
	expect("pair round tournament round 1", -1,
	       "{\"black\":\"tournament\",\"id\":7,\"rated\":false,\"round\":\"1\",\"type\":\"pair\",\"white\":\"round\"}");
	expect("pair ann bob round 3 english 10+5", -1,
	       "{\"black\":\"bob\",\"id\":7,\"rated\":false,\"round\":\"3\",\"rules\":\"english\","
	       "\"time\":{\"base\":600,\"inc\":5},\"type\":\"pair\",\"white\":\"ann\"}");
	/* a tournament's name one byte over PROTO_TOURNAMENT_MAX */
	char long_pair[64 + PROTO_TOURNAMENT_MAX + 1];
	int lp = snprintf(long_pair, 64, "pair ann bob tournament ");
	memset(long_pair + lp, 'n', PROTO_TOURNAMENT_MAX + 1);
	long_pair[lp + PROTO_TOURNAMENT_MAX + 1] = '\0';
	const char *bad_pairs[] = { "pair ann bob round", "pair ann bob round 2a", "pair ann bob round .3",
	                            "pair ann bob tournament", "pair ann bob tournament bell\a",
	                            "pair ann bob tournament   ", "pair ann bob icc 5 rated x y",
	                            long_pair };
	for (size_t i = 0; i < sizeof bad_pairs / sizeof *bad_pairs; i++)
		ck_assert_msg(cmd_parse(bad_pairs[i], &c, err, sizeof err) == -1, "%s parsed", bad_pairs[i]);
	expect("mute", -1, "{\"id\":7,\"type\":\"mutes\"}");
	expect("mute bob", -1, "{\"id\":7,\"type\":\"mute\",\"user\":\"bob\"}");
	expect("follow alice", -1, "{\"id\":7,\"type\":\"follow\",\"user\":\"alice\"}");
	expect("follow", -1, "{\"id\":7,\"type\":\"follow\"}");
	expect("unfollow", -1, "{\"id\":7,\"type\":\"unfollow\"}");
	/* A command in any case is the command, not a move (help probe). */
	expect("Follow alice", -1, "{\"id\":7,\"type\":\"follow\",\"user\":\"alice\"}");
	expect("UNFOLLOW", -1, "{\"id\":7,\"type\":\"unfollow\"}");
	ck_assert_int_eq(cmd_parse("Resign --yes", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.type, CMD_RESIGN);
	ck_assert_int_eq(cmd_parse("Board", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.type, CMD_BOARD);
	ck_assert_int_eq(cmd_parse("Bb5", &c, err, sizeof err), 0);   /* a move still */
	ck_assert_int_eq(c.type, CMD_MOVE);
	expect("standings", -1, "{\"id\":7,\"type\":\"standings\"}");
	expect("standings nost", -1, "{\"id\":7,\"rules\":\"nost\",\"type\":\"standings\"}");
	ck_assert_int_eq(cmd_parse("standings chess960", &c, err, sizeof err), -1);
	/* the rule sets there are, named (the help probe) */
	ck_assert_msg(strstr(err, "unknown rule set \"chess960\" (icc, english, ") != NULL, "%s", err);
	expect("profile", -1, "{\"id\":7,\"type\":\"profile\"}");
	expect("profile bob", -1, "{\"id\":7,\"type\":\"profile\",\"user\":\"bob\"}");
	/* regression: finger, profile's other name, was sent as a type of its own */
	expect("finger bob", -1, "{\"id\":7,\"type\":\"profile\",\"user\":\"bob\"}");
	/* an admin's */
	expect("invite", -1, "{\"id\":7,\"type\":\"invite\"}");
	expect("kick carol", -1, "{\"id\":7,\"type\":\"kick\",\"user\":\"carol\"}");
	expect("kick carol  cool   down ", -1,
	       "{\"id\":7,\"reason\":\"cool   down\",\"type\":\"kick\",\"user\":\"carol\"}");
	expect("broadcast the club closes at ten", -1,
	       "{\"id\":7,\"text\":\"the club closes at ten\",\"type\":\"broadcast\"}");
	ck_assert_int_eq(cmd_parse("kick", &c, err, sizeof err), -1);
	ck_assert_int_eq(cmd_parse("broadcast", &c, err, sizeof err), -1);
	ck_assert_ptr_null(req("accept", -1));    /* which offer? the client fills it in */
	ck_assert_int_eq(cmd_parse("seek 5+x", &c, err, sizeof err), -1);
	ck_assert_int_eq(cmd_parse("seek chess960", &c, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "unknown term \"chess960\" (a rule set: icc, english, ") != NULL &&
	              strstr(err, "crazykrieg; a time like 5+2") != NULL, "%s", err);
	ck_assert_int_eq(cmd_parse("accept four", &c, err, sizeof err), -1);
	/* a password-less login parses; the request needs the password first */
	ck_assert_ptr_null(req("login alice", -1));
	ck_assert_ptr_nonnull(strstr(err, "password"));
}
END_TEST

START_TEST(local_commands_send_nothing)
{
	static const char *const local[] = {
		"ghost place Nf6", "ghost move f6 e4", "ghost clear", "ghost clear e4", "board",
		"help", "switch 3", "wait moved", "wait game_start 5", "sleep 0.5", "quit", "", "# note",
	};
	for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
		ck_assert_msg(cmd_parse(local[i], &c, err, sizeof err) == 0, "%s: %s", local[i], err);
		ck_assert_msg(cmd_is_local(&c), "%s is not local", local[i]);
		ck_assert_ptr_null(cmd_request(&c, 1, 1, err, sizeof err));
	}
	ck_assert_int_eq(cmd_parse("ghost place Nf6", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.type, CMD_GHOST_PLACE);
	ck_assert_str_eq(c.argv[0], "Nf6");
	ck_assert_int_eq(cmd_parse("ghost move f6 e4", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.type, CMD_GHOST_MOVE);
	ck_assert_str_eq(c.argv[1], "e4");
	ck_assert_int_eq(cmd_parse("ghost fly f6", &c, err, sizeof err), -1);
	ck_assert_int_eq(cmd_parse("ghost move f6", &c, err, sizeof err), -1);
	ck_assert_int_eq(cmd_parse("wait moved 9999", &c, err, sizeof err), -1);
}
END_TEST

START_TEST(raw_and_limits)
{
	expect("raw {\"type\":\"ping\"}", -1, "{\"id\":7,\"type\":\"ping\"}");
	expect("raw {\"id\":\"x\",\"type\":\"who\"}", -1, "{\"id\":\"x\",\"type\":\"who\"}");
	ck_assert_int_eq(cmd_parse("raw [1,2]", &c, err, sizeof err), 0);
	ck_assert_ptr_null(cmd_request(&c, 1, -1, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "JSON object"));

	char line[CMD_LINE_MAX + 8];
	memset(line, 'a', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	ck_assert_int_eq(cmd_parse(line, &c, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "too long"));
	ck_assert_int_eq(cmd_parse("e4 e5 e4 e5 e4 e5 e4 e5 e4 e5 e4 e5 e4 e5 e4 e5 e4 e5 e4 e5 e4 e5",
	                           &c, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(cmd_help(), "ghost place"));
	/* a word quoted whole in a refusal longer than its buffer is cut
	 * between characters (a review: "seek aaa...狚" ended in a lone byte) */
	char seek[300] = "seek ";
	memset(seek + 5, 'a', 236);
	strcpy(seek + 241, "\xe7\x8b\x9a\xe7\x8b\x9a\xe7\x8b\x9a\xe7\x8b\x9a");
	ck_assert_int_eq(cmd_parse(seek, &c, err, sizeof err), -1);
	ck_assert_msg(scrub_count(err, strlen(err)) == 0 && text_utf8_valid(err, strlen(err)), "%s", err);
}
END_TEST

START_TEST(history_commands)
{
	expect("history", -1, "{\"id\":7,\"type\":\"history\"}");
	expect("history bob", -1, "{\"id\":7,\"type\":\"history\",\"user\":\"bob\"}");
	expect("record 9 umpire", -1, "{\"game\":9,\"id\":7,\"type\":\"record\",\"view\":\"umpire\"}");
	expect("pgn 9", 3, "{\"game\":9,\"id\":7,\"type\":\"pgn\"}");
	expect("pgn 9 black", 3, "{\"game\":9,\"id\":7,\"type\":\"pgn\",\"view\":\"black\"}");
	/* the file stays in the client: never in the request */
	expect("pgn 9 white > /tmp/x.pgn", 3, "{\"game\":9,\"id\":7,\"type\":\"pgn\",\"view\":\"white\"}");
	ck_assert_str_eq(c.file, "/tmp/x.pgn");
	expect("pgn 9 >out.pgn", 3, "{\"game\":9,\"id\":7,\"type\":\"pgn\"}");
	ck_assert_str_eq(c.file, "out.pgn");
	static const char *const bad[] = {
		"record", "record x", "record 9 red", "pgn 9 >", "pgn 9 umpire white", "pgn nine",
		"history a b",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(cmd_parse(bad[i], &c, err, sizeof err) == -1, "%s parsed", bad[i]);
	/* record without a view: the client picks one; the request alone cannot */
	ck_assert_int_eq(cmd_parse("record 9", &c, err, sizeof err), 0);
	ck_assert_ptr_null(cmd_request(&c, 7, -1, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(cmd_help(), "pgn GAME"));
	ck_assert_ptr_nonnull(strstr(cmd_help(), "history [USER]"));
	ck_assert_ptr_nonnull(strstr(cmd_help(), "record GAME"));
}
END_TEST

/* The table is the only list of commands: each entry complete, names unique, help lists them all
 * (test_client_doc: and so does krieg(1)). */
START_TEST(command_table)
{
	const char *help = cmd_help();
	size_t n, listed = 0, help_lines = 0;
	const struct cmd_entry *e;
	for (n = 0; (e = cmd_entry_at(n)) != NULL; n++) {
		ck_assert_msg(e->name && e->name[0], "entry %zu has no name", n);
		ck_assert_msg(e->usage && !strncmp(e->usage, e->name, strlen(e->name)),
		              "%s: the usage does not start with the command", e->name);
		ck_assert_msg(e->min >= 0 && e->min <= e->max && e->max <= CMD_ARGS_MAX, "%s: word counts", e->name);
		ck_assert_msg(e->request || e->exec || e->type == CMD_WAIT || e->type == CMD_SLEEP,
		              "%s neither sends nor does anything", e->name);
		ck_assert_msg(!e->verbatim || e->parse, "%s: verbatim without a parse hook", e->name);
		for (size_t j = 0; j < n; j++)
			ck_assert_str_ne(cmd_entry_at(j)->name, e->name);
		char line[256];
		snprintf(line, sizeof line, "  %s\n", e->usage);
		ck_assert_msg(strstr(help, line) != NULL, "%s: not in the help", e->name);
		listed++;
		/* the word finds its entry; a request's type is the command's name, or starts with it
		 * (lobby: lobby_watch), or is the name of the command it is another name for
		 * (finger: profile) */
		if (e->min == 0) {
			ck_assert_msg(cmd_parse(e->name, &c, err, sizeof err) == 0, "%s: %s", e->name, err);
			ck_assert_ptr_eq(c.entry, e);
			ck_assert_int_eq(c.type, e->type);
			ck_assert_int_eq(cmd_is_local(&c), e->request == NULL);
			json_t *r = cmd_request(&c, 7, 5, err, sizeof err);
			const char *type = json_string_value(json_object_get(r, "type"));
			bool alias = false;
			for (size_t j = 0; r && cmd_entry_at(j); j++)
				alias |= !strcmp(cmd_entry_at(j)->name, type) && cmd_entry_at(j)->type == e->type;
			if (r)
				ck_assert_msg(!strncmp(type, e->name, strlen(e->name)) || alias,
				              "%s: request type %s", e->name, type);
			json_decref(r);
			if (e->game && e->request) {
				ck_assert_ptr_null(cmd_request(&c, 7, -1, err, sizeof err));
				ck_assert_ptr_nonnull(strstr(err, "no current game"));
			}
		}
	}
	ck_assert_uint_gt(n, 30);
	/* help: a heading, then one line per command and nothing else */
	for (const char *p = strchr(help, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
		help_lines++;
	ck_assert_uint_eq(help_lines, listed);
	/* every command type has an entry ("ghost" reads as three) */
	for (int t = CMD_HELP; t <= CMD_RAW; t++) {
		bool found = t == CMD_GHOST_MOVE || t == CMD_GHOST_CLEAR || t == CMD_UMPIRE_ABORT;
		for (size_t i = 0; (e = cmd_entry_at(i)) != NULL; i++)
			found = found || (int)e->type == t;
		ck_assert_msg(found, "command type %d has no entry", t);
	}
}
END_TEST

/* Watching, and the umpire's actions (the chair's game is filled in by the client: c.number). */
static void expect_chair(const char *line, const char *json)
{
	ck_assert_msg(cmd_parse(line, &c, err, sizeof err) == 0, "%s: %s", line, err);
	/* without a chair: no request */
	ck_assert_ptr_null(cmd_request(&c, 7, 3, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "no umpire's chair"));
	c.number = 12;
	json_t *r = cmd_request(&c, 7, 3, err, sizeof err);
	ck_assert_msg(r != NULL, "%s: %s", line, err);
	char *s = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_str_eq(s, json);
	free(s);
	json_decref(r);
}

START_TEST(watching_and_umpire_actions)
{
	expect("live", -1, "{\"id\":7,\"type\":\"live\"}");
	expect("watch 12", -1, "{\"game\":12,\"id\":7,\"type\":\"watch\"}");
	expect("umpire 12", 3, "{\"game\":12,\"id\":7,\"type\":\"umpire\"}");
	expect("unwatch 12", -1, "{\"game\":12,\"id\":7,\"type\":\"unwatch\"}");
	ck_assert_int_eq(cmd_parse("watch twelve", &c, err, sizeof err), -1);
	ck_assert_int_eq(cmd_parse("watch", &c, err, sizeof err), -1);
	ck_assert_int_eq(cmd_parse("umpire 1 2", &c, err, sizeof err), -1);

	expect_chair("pause", "{\"game\":12,\"id\":7,\"reason\":\"no reason given\",\"type\":\"clock_pause\"}");
	expect_chair("pause tea", "{\"game\":12,\"id\":7,\"reason\":\"tea\",\"type\":\"clock_pause\"}");
	expect_chair("unpause   tea over ", "{\"game\":12,\"id\":7,\"reason\":\"tea over\",\"type\":\"clock_unpause\"}");
	expect_chair("addtime white 30 disturbed by  a phone",
	             "{\"color\":\"white\",\"game\":12,\"id\":7,\"reason\":\"disturbed by  a phone\",\"seconds\":30,"
	             "\"type\":\"add_time\"}");
	expect_chair("adjudicate 0-1 flag fell unseen",
	             "{\"game\":12,\"id\":7,\"reason\":\"flag fell unseen\",\"result\":\"0-1\",\"type\":\"adjudicate\"}");
	expect_chair("adjudicate 1/2-1/2 bare kings",
	             "{\"game\":12,\"id\":7,\"reason\":\"bare kings\",\"result\":\"1/2-1/2\",\"type\":\"adjudicate\"}");
	expect_chair("abort wrong pairing", "{\"game\":12,\"id\":7,\"reason\":\"wrong pairing\",\"type\":\"umpire_abort\"}");
	expect_chair("note --public Round 2 at 14:00",
	             "{\"game\":12,\"id\":7,\"public\":true,\"text\":\"Round 2 at 14:00\",\"type\":\"note\"}");
	expect_chair("note --publicity is private",
	             "{\"game\":12,\"id\":7,\"public\":false,\"text\":\"--publicity is private\",\"type\":\"note\"}");
	expect_chair("note caf\u00e9 talk", "{\"game\":12,\"id\":7,\"public\":false,\"text\":\"caf\u00e9 talk\",\"type\":\"note\"}");
	/* a player's abort is unchanged: the current game, no reason */
	expect("abort", 5, "{\"game\":5,\"id\":7,\"type\":\"abort\"}");
	ck_assert_int_eq(cmd_parse("abort", &c, err, sizeof err), 0);
	ck_assert_ptr_null(cmd_request(&c, 7, -1, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "no current game"));
	/* the wire's limits, told before sending */
	static const char *const bad[] = { "addtime", "addtime white", "addtime white 60", "addtime red 60 x",
	                                   "addtime black -5 x", "addtime black 86401 x", "adjudicate",
	                                   "adjudicate 1-0", "adjudicate win x", "note", "note --public",
	                                   "note a\tb", "note \xff\xfe", "pause \x1b[2J" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(cmd_parse(bad[i], &c, err, sizeof err) == -1, "\"%s\" accepted", bad[i]);
	/* a note's is a text, as its help says (the help probe: "a reason") */
	ck_assert_int_eq(cmd_parse("note --public", &c, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "note: a text is needed") != NULL, "%s", err);
	char line[CMD_REASON_MAX + 16] = "note ";
	memset(line + 5, 'x', CMD_REASON_MAX);
	line[5 + CMD_REASON_MAX] = '\0';
	ck_assert_int_eq(cmd_parse(line, &c, err, sizeof err), 0);   /* exactly the limit */
	strcat(line, "x");
	ck_assert_int_eq(cmd_parse(line, &c, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "at most 200"));
	/* all of them in the help */
	static const char *const listed[] = { "live ", "watch GAME", "umpire GAME", "unwatch [GAME]", "pause [REASON...]",
	                                      "unpause [REASON...]", "addtime COLOR SECONDS REASON...",
	                                      "adjudicate RESULT REASON...", "abort [--yes|REASON...]",
	                                      "note [--public] TEXT..." };
	for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++)
		ck_assert_msg(strstr(cmd_help(), listed[i]), "%s not in the help", listed[i]);
}
END_TEST

/* A password is the rest of the line: a passphrase with spaces from a script
 * (deploy/CLUB.md suggests 'a long club password'); it was "usage: ...". */
START_TEST(passwords_with_spaces)
{
	expect("login alice a long club password", -1,
	       "{\"id\":7,\"password\":\"a long club password\",\"type\":\"login\",\"user\":\"alice\"}");
	/* blanks around it trimmed, those inside kept; quotes are the password's own */
	expect("  login \talice   a  long\tone \t\r\n", -1,
	       "{\"id\":7,\"password\":\"a  long\\tone\",\"type\":\"login\",\"user\":\"alice\"}");
	expect("login alice \"quoted pw\"", -1,
	       "{\"id\":7,\"password\":\"\\\"quoted pw\\\"\",\"type\":\"login\",\"user\":\"alice\"}");
	expect("register bob my pass phrase", -1,
	       "{\"id\":7,\"password\":\"my pass phrase\",\"type\":\"register\",\"user\":\"bob\"}");
	/* the invite code comes first, so that the rest can be the password */
	expect("register bob --invite CODE42 my pass phrase", -1,
	       "{\"id\":7,\"invite\":\"CODE42\",\"password\":\"my pass phrase\",\"type\":\"register\","
	       "\"user\":\"bob\"}");
	ck_assert_int_eq(cmd_parse("register bob --invite CODE42", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.argc, 1);   /* no password: asked for (exec_login) */
	ck_assert_str_eq(c.invite, "CODE42");
	/* a password-less login parses; the request needs the password first */
	ck_assert_ptr_null(req("login alice ", -1));
	ck_assert_ptr_nonnull(strstr(err, "password"));
	static const char *const bad[] = { "login", "login ", "login\t", "register", "register bob --invite",
	                                   "register bob --invite  " };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(cmd_parse(bad[i], &c, err, sizeof err) == -1, "\"%s\" parsed", bad[i]);
	char line[CMD_LINE_MAX] = "login alice ";
	memset(line + strlen(line), 'x', CMD_ARG_MAX);
	ck_assert_int_eq(cmd_parse(line, &c, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "at most"));
	/* kept out of the line history: any password or invite code on the line */
	ck_assert(cmd_has_secret("login alice a long club password"));
	ck_assert(cmd_has_secret("register bob --invite CODE42"));
	ck_assert(cmd_has_secret(line));   /* refused, but a password all the same */
	ck_assert(cmd_has_secret("passwd old-one"));
	ck_assert(cmd_has_secret("passwd old-one new-one"));
	ck_assert(!cmd_has_secret("passwd"));
	ck_assert(!cmd_has_secret("login alice"));
	ck_assert(!cmd_has_secret("say login alice secret"));
	ck_assert(cmd_has_secret("resume Zm9vYmFyYmF6cXV4"));   /* a token logs in as a password does */
}
END_TEST

/*
 * Regression (the documentation probe): outside --batch (a terminal, or
 * lines piped in) "sleep 5" and "wait moved" did nothing and said nothing;
 * no line there waits for anything.  They are refused with a message.
 */
START_TEST(wait_and_sleep_only_in_batch)
{
	static struct client cl;
	static struct sink s;
	/* a malformed one too: its usage would only lead to this refusal */
	static const char *const lines[] = { "sleep 5", "wait moved", "wait game_start 2", "sleep",
	                                     "sleep abc", "wait" };
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		sink_client(&cl, &s);
		ck_assert_int_eq(client_command(&cl, lines[i]), -1);
		char want[64];
		snprintf(want, sizeof want, "%.*s: only in --batch", (int)strcspn(lines[i], " "), lines[i]);
		ck_assert_msg(strstr(s.printed, want) != NULL, "%s: %s", lines[i], s.printed);
		ck_assert_int_eq(s.nsent, 0);
		ck_assert_int_eq(cl.errors, 1);
		client_free(&cl);
	}
}
END_TEST

/* Regression (the help probe): `help` in --batch printed nothing at all;
 * words asked for are printed there too (main.c: to standard error). */
START_TEST(help_in_batch)
{
	static struct client cl;
	static struct sink s;
	sink_client(&cl, &s);
	cl.batch = true;
	ck_assert_int_eq(client_command(&cl, "help seek"), 0);
	ck_assert_msg(strstr(s.printed, "seek") != NULL && strlen(s.printed) > 40, "%s", s.printed);
	size_t had = strlen(s.printed);
	ck_assert_int_eq(client_command(&cl, "help"), 0);
	ck_assert_msg(strlen(s.printed) > had + 400, "%s", s.printed + had);
	ck_assert_int_eq(s.nsent, 0);
	client_free(&cl);
}
END_TEST

/* Regression (a play probe): in --batch `time`, `clock`, `pieces` and,
 * with --plain, `switch` printed nothing, though asked for. */
START_TEST(asked_words_in_batch)
{
	static struct client cl;
	static struct sink s;
	sink_client(&cl, &s);
	cl.batch = true;
	cl.plain = true;
	client_receive(&cl, "{\"event\":\"game_start\",\"game\":5,\"rules\":\"icc\",\"white\":\"alice\","
	                    "\"black\":\"bob\",\"color\":\"white\",\"rated\":false}");
	static const struct {
		const char *line, *want;
	} asked[] = {
		{ "time", "#5: untimed; your move" },
		{ "clock", "#5: untimed; your move" },
		{ "pieces", "#5: White: king e1, queen d1" },
		{ "switch 5", "#5: untimed; your move" },
	};
	for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
		size_t had = strlen(s.printed);
		ck_assert_int_eq(client_command(&cl, asked[i].line), 0);
		ck_assert_msg(strstr(s.printed + had, asked[i].want) != NULL, "%s: printed \"%s\"", asked[i].line,
		              s.printed + had);
	}
	ck_assert_int_eq(s.nsent, 0);
	client_free(&cl);
}
END_TEST

/* Time controls: the base in minutes, a fraction of a minute as the bots'
 * --time and the wire take it (0.5+0 was "bad time control"); the wire's
 * limits told before sending. */
START_TEST(fractional_time_controls)
{
	expect("seek berkeley_any 0.5+0", -1,
	       "{\"color\":\"random\",\"id\":7,\"rated\":false,\"rules\":\"berkeley_any\","
	       "\"time\":{\"base\":30,\"inc\":0},\"type\":\"seek\"}");
	expect("challenge carol 1.5+2", -1,
	       "{\"color\":\"random\",\"id\":7,\"rated\":false,\"time\":{\"base\":90,\"inc\":2},"
	       "\"type\":\"challenge\",\"user\":\"carol\"}");
	static const struct { const char *t; long long base, inc; } ok[] = {
		{ "0.25", 15000, 0 }, { "0.05+1", 3000, 1000 }, { "2.50+0", 150000, 0 }, { "1440+600", 86400000, 600000 },
		{ "0.75+3", 45000, 3000 }, { "10", 600000, 0 }, { "0+0", -1, -1 },
		/* Regression (the time probe): what words_time writes is read
		 * back: a base as minutes:seconds, an increment's fraction */
		{ "1:40+0.5", 100000, 500 }, { "0:20", 20000, 0 }, { "1:30.5+2", 90500, 2000 },
		{ "0:01", 1000, 0 }, { "5+0.25", 300000, 250 },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		char line[64];
		snprintf(line, sizeof line, "seek %s", ok[i].t);
		int rc = cmd_parse(line, &c, err, sizeof err);
		if (ok[i].base < 0) {   /* no base: refused (the wire wants one above 0) */
			ck_assert_msg(rc == -1, "%s parsed", line);
			continue;
		}
		ck_assert_msg(rc == 0, "%s: %s", line, err);
		ck_assert_int_eq(c.base_ms, ok[i].base);
		ck_assert_int_eq(c.inc_ms, ok[i].inc);
	}
	static const char *const bad[] = {
		"seek 0.01+0",    /* under a second */
		"seek 1.000001",  /* not a whole millisecond */
		"seek 0+5",       /* no base: the server refuses it */
		"seek 0", "seek 0.0", "seek .5+0", "seek 5.+0", "seek 0.5.5", "seek 0,5+0", "seek 1440.5",
		"seek 1441", "seek 5+601", "seek 5++2", "seek 5+-2", "seek 5+", "seek 0.1234567",
		"seek 61d",       /* the wire's 60 days */
		"seek 0:00.5",    /* under this client's second */
		"seek 1:60", "seek 1:5", "seek 1.5:00", "seek :30", "seek 1:", "seek 1:40+0.0001", "seek 1:+40",
		"seek 1:0x", "seek 1441:00",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(cmd_parse(bad[i], &c, err, sizeof err) == -1, "\"%s\" parsed", bad[i]);
	ck_assert_ptr_nonnull(strstr(err, "bad time control"));
	expect("seek icc 1:40+0.5", -1,
	       "{\"color\":\"random\",\"id\":7,\"rated\":false,\"rules\":\"icc\","
	       "\"time\":{\"base\":100,\"inc\":0.5},\"type\":\"seek\"}");
	expect("seek 60d", -1, "{\"color\":\"random\",\"id\":7,\"rated\":false,\"time\":{\"days\":60},\"type\":\"seek\"}");
}
END_TEST

static Suite *cmd_suite(void)
{
	Suite *s = suite_create("client_cmd");
	TCase *tc = tcase_create("cmd");
	tcase_add_test(tc, moves);
	tcase_add_test(tc, game_actions);
	tcase_add_test(tc, lobby);
	tcase_add_test(tc, local_commands_send_nothing);
	tcase_add_test(tc, raw_and_limits);
	tcase_add_test(tc, history_commands);
	tcase_add_test(tc, command_table);
	tcase_add_test(tc, wait_and_sleep_only_in_batch);
	tcase_add_test(tc, help_in_batch);
	tcase_add_test(tc, asked_words_in_batch);
	tcase_add_test(tc, watching_and_umpire_actions);
	tcase_add_test(tc, passwords_with_spaces);
	tcase_add_test(tc, fractional_time_controls);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(cmd_suite)
